// fix.go: rt-diagnose's map-order rule for Go (rt-diagnose(1), RULE
// PATCHES), in the inventory helper's binary so it is built and cached
// once with it:
//
//	rt-inventory-go --fix-maprange [--root DIR] FILE...
//
// Each `for k[, v] := range M` in a non-test function, where M is a map
// whose key type is a basic ordered type (a parameter, a var, a make or a
// literal of the function), is rewritten to range over M's keys sorted,
// through a small generic helper added to the file (Go 1.18+). One
// candidate per loop, at most four; the file's new text is gofmt'ed. The
// JSON is rt-fix.py's: {"status": "ok", "candidates": [{"status": "ok",
// "file", "source", "line", "explanation"}]} or {"status": "no_patch",
// "reason"}. It never compiles or runs the code it reads.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

type fixOut struct {
	Status     string     `json:"status"`
	Reason     string     `json:"reason,omitempty"`
	Candidates []*fixCand `json:"candidates,omitempty"`
}

type fixCand struct {
	Status      string `json:"status"`
	File        string `json:"file"`
	Source      string `json:"source"`
	Line        int    `json:"line"`
	Explanation string `json:"explanation"`
}

var orderedKey = map[string]bool{
	"string": true, "int": true, "int8": true, "int16": true, "int32": true,
	"int64": true, "uint": true, "uint8": true, "uint16": true, "uint32": true,
	"uint64": true, "uintptr": true, "float32": true, "float64": true,
	"byte": true, "rune": true,
}

const sortedKeysFunc = `

// retrialSortedKeys returns m's keys in sorted order, so that ranging over
// them does not depend on Go's randomised map iteration order.
func retrialSortedKeys[K retrialOrdered, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

type retrialOrdered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 |
		~uint32 | ~uint64 | ~uintptr | ~float32 | ~float64 | ~string
}
`

// mapNames: the names in fn bound to a map with an ordered key type.
func mapNames(fn *ast.FuncDecl) map[string]string {
	got := map[string]string{}
	keyOf := func(e ast.Expr) string {
		if mt, ok := e.(*ast.MapType); ok {
			if id, ok := mt.Key.(*ast.Ident); ok && orderedKey[id.Name] {
				return id.Name
			}
		}
		return ""
	}
	if fn.Type.Params != nil {
		for _, f := range fn.Type.Params.List {
			if k := keyOf(f.Type); k != "" {
				for _, n := range f.Names {
					got[n.Name] = k
				}
			}
		}
	}
	ast.Inspect(fn, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.ValueSpec:
			if s.Type != nil {
				if k := keyOf(s.Type); k != "" {
					for _, nm := range s.Names {
						got[nm.Name] = k
					}
				}
			}
		case *ast.AssignStmt:
			if s.Tok != token.DEFINE || len(s.Lhs) != len(s.Rhs) {
				return true
			}
			for i, r := range s.Rhs {
				id, ok := s.Lhs[i].(*ast.Ident)
				if !ok {
					continue
				}
				var t ast.Expr
				switch v := r.(type) {
				case *ast.CompositeLit:
					t = v.Type
				case *ast.CallExpr:
					if f, ok := v.Fun.(*ast.Ident); ok && f.Name == "make" && len(v.Args) > 0 {
						t = v.Args[0]
					}
				}
				if k := keyOf(t); k != "" {
					got[id.Name] = k
				}
			}
		}
		return true
	})
	return got
}

// addSortImport: src with "sort" imported.
func addSortImport(af *ast.File, fset *token.FileSet, src []byte) []byte {
	for _, im := range af.Imports {
		if im.Path.Value == `"sort"` {
			return src
		}
	}
	for _, d := range af.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		if gd.Lparen.IsValid() {
			at := fset.Position(gd.Lparen).Offset + 1
			return append(append(append([]byte{}, src[:at]...), []byte("\n\t\"sort\"")...), src[at:]...)
		}
		at := fset.Position(gd.Pos()).Offset
		return append(append(append([]byte{}, src[:at]...), []byte("import \"sort\"\n")...), src[at:]...)
	}
	at := fset.Position(af.Name.End()).Offset
	return append(append(append([]byte{}, src[:at]...), []byte("\n\nimport \"sort\"")...), src[at:]...)
}

func fixFile(root, name string) ([]*fixCand, string) {
	p := name
	if root != "" && !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err.Error()
	}
	src, err := readBounded(f)
	f.Close()
	if err != nil {
		return nil, err.Error()
	}
	if e := tooDeep(token.NewFileSet(), name, src); e != nil {
		return nil, fmt.Sprintf("%s: %s", name, e.Message)
	}
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Sprintf("%s: %v", name, err)
	}
	if strings.Contains(string(src), "func retrialSortedKeys[") {
		return nil, name + ": already ranges over sorted keys"
	}
	var cands []*fixCand
	for _, d := range af.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil || strings.HasPrefix(fn.Name.Name, "Test") {
			continue
		}
		maps := mapNames(fn)
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			rs, ok := n.(*ast.RangeStmt)
			if !ok || len(cands) >= 4 {
				return true
			}
			id, ok := rs.X.(*ast.Ident)
			if !ok || maps[id.Name] == "" || rs.Key == nil {
				return true
			}
			key, ok := rs.Key.(*ast.Ident)
			if !ok {
				return true
			}
			kname := key.Name
			tok := rs.Tok.String()
			head := ""
			val := ""
			if kname == "_" {
				kname = "retrialK"
				tok = ":="
			}
			head = fmt.Sprintf("for _, %s %s range retrialSortedKeys(%s) {", kname, tok, id.Name)
			if rs.Value != nil {
				if v, ok := rs.Value.(*ast.Ident); ok && v.Name != "_" {
					vt := rs.Tok.String()
					if key.Name == "_" {
						vt = ":="
					}
					val = fmt.Sprintf("\n%s %s %s[%s]", v.Name, vt, id.Name, kname)
				}
			}
			b := fset.Position(rs.For).Offset
			e := fset.Position(rs.Body.Lbrace).Offset + 1
			var out bytes.Buffer
			out.Write(src[:b])
			out.WriteString(head + val)
			out.Write(src[e:])
			out.WriteString(sortedKeysFunc)
			nsrc := out.Bytes()
			// the import, on the edited text's own parse
			nfset := token.NewFileSet()
			nf, err := parser.ParseFile(nfset, name, nsrc, parser.ParseComments)
			if err != nil {
				return true
			}
			nsrc = addSortImport(nf, nfset, nsrc)
			pretty, err := format.Source(nsrc)
			if err != nil {
				return true
			}
			line := fset.Position(rs.For).Line
			cands = append(cands, &fixCand{Status: "ok", File: name, Source: string(pretty),
				Line: line, Explanation: fmt.Sprintf("%s (%s:%d) ranges over the map %s, "+
					"and Go randomises map iteration order on every run, so what it "+
					"builds comes out in a different order each time; ranging over "+
					"its keys sorted gives one order on every run.", fn.Name.Name, name, line, id.Name)})
			return true
		})
	}
	return cands, ""
}

func fixMapRange(root string, files []string) {
	out := fixOut{Status: "ok"}
	var why []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		c, w := fixFile(root, name)
		out.Candidates = append(out.Candidates, c...)
		if w != "" {
			why = append(why, w)
		} else if len(c) == 0 {
			why = append(why, name+": no range over a map with an ordered key type outside the tests")
		}
	}
	if len(out.Candidates) > 4 {
		out.Candidates = out.Candidates[:4]
	}
	if len(out.Candidates) == 0 {
		out.Status = "no_patch"
		out.Reason = strings.Join(why, "; ")
		if out.Reason == "" {
			out.Reason = "no Go source outside the tests given"
		}
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&out); err != nil {
		fmt.Fprintf(os.Stderr, "rt-inventory-go: %v\n", err)
		os.Exit(2)
	}
}
