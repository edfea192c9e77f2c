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
// candidate per loop, at most four; the file's new text is gofmt'ed. A
// module whose go.mod declares an older language (its go line) gets each
// loop as a no_patch candidate saying so: the helper would not build. The
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
	"sort"
	"strings"
)

type fixOut struct {
	Status     string     `json:"status"`
	Reason     string     `json:"reason,omitempty"`
	Candidates []*fixCand `json:"candidates,omitempty"`
}

type fixCand struct {
	Status      string `json:"status"`
	Reason      string `json:"reason,omitempty"`
	Needs       string `json:"needs,omitempty"`
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
		if v, ok := goLine(root, name); ok && !goAtLeast(v, 1, 18) {
			for _, x := range c {
				x.Status = "no_patch"
				x.Reason = fmt.Sprintf("%s:%d: ranging over the keys sorted takes a "+
					"generic helper (go 1.18), and the module's go.mod declares go %s",
					x.File, x.Line, v)
				x.Source = ""
				x.Needs = "go 1.18"
			}
		}
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

// The order rule for Go (rt-diagnose(1), RULE PATCHES):
//
//	rt-inventory-go --fix-order [--root DIR] POLLUTER VICTIM
//
// POLLUTER and VICTIM are test IDs ("PKG::TestX" as go test -json names
// them, or "TestX"). Each package-level var of the polluter's package that
// the polluter assigns (=, op=, ++, --) is saved when it starts and put
// back by a t.Cleanup, so the tests after it see the value the package
// gave it. One answer, rt-fix.py's: {"status": "ok", "file", "source",
// "line", "explanation"} or {"status": "no_patch", "reason"}.

type fixOne struct {
	Status      string `json:"status"`
	Reason      string `json:"reason,omitempty"`
	File        string `json:"file,omitempty"`
	Source      string `json:"source,omitempty"`
	Line        int    `json:"line,omitempty"`
	Explanation string `json:"explanation,omitempty"`
}

func emitOne(o *fixOne) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(o); err != nil {
		fmt.Fprintf(os.Stderr, "rt-inventory-go: %v\n", err)
		os.Exit(2)
	}
	os.Exit(0)
}

func noPatch(format string, a ...interface{}) {
	emitOne(&fixOne{Status: "no_patch", Reason: fmt.Sprintf(format, a...)})
}

// testName: "PKG::TestX/sub" -> PKG, "TestX".
func testName(id string) (string, string) {
	pkg, name := "", id
	if i := strings.LastIndex(id, "::"); i >= 0 {
		pkg, name = id[:i], id[i+2:]
	}
	if i := strings.Index(name, "/"); i >= 0 {
		name = name[:i]
	}
	return pkg, name
}

// goLine: the go line of the go.mod nearest above root/name (up to root),
// "1.16" when the go.mod has none (as go itself reads it); false when
// there is no go.mod (GOPATH: no declared language).
func goLine(root, name string) (string, bool) {
	if root == "" {
		root = "."
	}
	dir := filepath.Dir(filepath.Join(root, name))
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			for _, ln := range strings.Split(string(b), "\n") {
				f := strings.Fields(ln)
				if len(f) >= 2 && f[0] == "go" {
					return f[1], true
				}
			}
			return "1.16", true
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			return "", false
		}
		dir = filepath.Dir(dir)
	}
}

// goAtLeast: is the go line v ("1.16", "1.21.3") at least major.minor?
func goAtLeast(v string, major, minor int) bool {
	var a, b int
	if n, _ := fmt.Sscanf(v, "%d.%d", &a, &b); n < 1 {
		return true
	}
	return a > major || (a == major && b >= minor)
}

// modulePath: the module line of root/go.mod, or "".
func modulePath(root string) string {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return ""
	}
	for _, ln := range strings.Split(string(b), "\n") {
		f := strings.Fields(ln)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

type goFile struct {
	rel  string
	src  []byte
	fset *token.FileSet
	af   *ast.File
}

// parseDir: every .go file in root/rel (not below it), parsed.
func parseDir(root, rel string) ([]*goFile, string) {
	ents, err := os.ReadDir(filepath.Join(root, rel))
	if err != nil {
		return nil, err.Error()
	}
	var out []*goFile
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || !e.Type().IsRegular() {
			continue
		}
		r := filepath.ToSlash(filepath.Join(rel, e.Name()))
		f, err := os.Open(filepath.Join(root, r))
		if err != nil {
			return nil, err.Error()
		}
		src, err := readBounded(f)
		f.Close()
		if err != nil {
			return nil, r + ": " + err.Error()
		}
		if e := tooDeep(token.NewFileSet(), r, src); e != nil {
			return nil, fmt.Sprintf("%s: %s", r, e.Message)
		}
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, r, src, parser.ParseComments)
		if err != nil {
			return nil, fmt.Sprintf("%s: %v", r, err)
		}
		out = append(out, &goFile{r, src, fset, af})
	}
	return out, ""
}

// testingT: the name of fn's *testing.T parameter, or "".
func testingT(fn *ast.FuncDecl) string {
	for _, f := range fn.Type.Params.List {
		st, ok := f.Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		if se, ok := st.X.(*ast.SelectorExpr); ok && se.Sel.Name == "T" && len(f.Names) == 1 {
			return f.Names[0].Name
		}
	}
	return ""
}

// orderFix: one polluter's restore, an insertion at offset at in its file.
type orderFix struct {
	pf    *goFile
	at    int
	block []byte
	line  int
	name  string
	where []string
	n     int
}

// fixOrder: polluters... victim. Every polluter's package-level vars put
// back by a t.Cleanup; the polluters must share one file (one patch).
func fixOrder(root string, args []string) {
	if len(args) < 2 {
		usage()
	}
	_, vname := testName(args[len(args)-1])
	if v, ok := goLine(root, "."); ok && !goAtLeast(v, 1, 14) {
		noPatch("the repair registers a t.Cleanup (go 1.14), and the module's "+
			"go.mod declares go %s", v)
	}
	var fixes []*orderFix
	for _, p := range args[:len(args)-1] {
		fixes = append(fixes, orderOne(root, p, vname))
	}
	pf := fixes[0].pf
	for _, f := range fixes[1:] {
		if f.pf.rel != pf.rel {
			noPatch("the polluters %s and %s are in two files (%s, %s): one patch "+
				"restores the vars of polluters in one file", fixes[0].name, f.name,
				strings.TrimPrefix(pf.rel, "./"), strings.TrimPrefix(f.pf.rel, "./"))
		}
	}
	// insert from the end of the file, so earlier offsets stay right
	sort.SliceStable(fixes, func(i, j int) bool { return fixes[i].at > fixes[j].at })
	src := append([]byte(nil), pf.src...)
	for _, f := range fixes {
		var out bytes.Buffer
		out.Write(src[:f.at])
		out.Write(f.block)
		out.Write(src[f.at:])
		src = out.Bytes()
	}
	pretty, err := format.Source(src)
	if err != nil {
		noPatch("%s: the restore does not format: %v", pf.rel, err)
	}
	sort.SliceStable(fixes, func(i, j int) bool { return fixes[i].at < fixes[j].at })
	file := strings.TrimPrefix(pf.rel, "./")
	var expl []string
	for _, f := range fixes {
		expl = append(expl, fmt.Sprintf("%s (%s:%d) sets the package-level %s and "+
			"never puts %s back", f.name, file, f.line, strings.Join(f.where, ", "),
			map[bool]string{true: "them", false: "it"}[f.n > 1]))
	}
	who, after := fixes[0].name, "it"
	if len(fixes) > 1 {
		who, after = "each", "either"
	}
	emitOne(&fixOne{Status: "ok", File: file, Source: string(pretty), Line: fixes[0].line,
		Explanation: fmt.Sprintf("%s, so %s, run after %s, sees the value %s left; "+
			"a t.Cleanup in %s restores the value the package had when the test ends.",
			strings.Join(expl, "; "), vname, after, after, who)})
}

func orderOne(root, polluter, vname string) *orderFix {
	ppkg, pname := testName(polluter)
	_ = vname
	rel := "."
	if mod := modulePath(root); ppkg != "" && mod != "" &&
		(ppkg == mod || strings.HasPrefix(ppkg, mod+"/")) {
		rel = "." + strings.TrimPrefix(ppkg, mod)
	}
	files, why := parseDir(root, rel)
	if why != "" {
		noPatch("the polluter's package %s: %s", rel, why)
	}
	// the package-level vars, where each is declared
	vars := map[string]string{}
	for _, f := range files {
		for _, d := range f.af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, sp := range gd.Specs {
				for _, n := range sp.(*ast.ValueSpec).Names {
					p := f.fset.Position(n.Pos())
					vars[n.Name] = fmt.Sprintf("%s:%d", f.rel, p.Line)
				}
			}
		}
	}
	var pf *goFile
	var fn *ast.FuncDecl
	for _, f := range files {
		if !strings.HasSuffix(f.rel, "_test.go") {
			continue
		}
		for _, d := range f.af.Decls {
			if x, ok := d.(*ast.FuncDecl); ok && x.Recv == nil && x.Name.Name == pname && x.Body != nil {
				pf, fn = f, x
			}
		}
	}
	if fn == nil {
		noPatch("%s: no test function %s in the package's _test.go files", rel, pname)
	}
	tv := testingT(fn)
	if tv == "" || tv == "_" {
		noPatch("%s takes no named *testing.T to register a t.Cleanup with", pname)
	}
	// what the polluter assigns: a package-level var, by its own name
	// (not one the function declares) or through the package's import
	imports := map[string]bool{}
	for _, im := range pf.af.Imports {
		p := strings.Trim(im.Path.Value, `"`)
		n := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			n = im.Name.Name
		}
		imports[n] = true
	}
	var set []string
	seen := map[string]bool{}
	target := func(e ast.Expr) {
		name, text := "", ""
		switch x := e.(type) {
		case *ast.Ident:
			if x.Obj != nil {
				if _, ok := x.Obj.Decl.(*ast.ValueSpec); !ok {
					return
				}
				if x.Obj.Decl.(*ast.ValueSpec).Pos() > fn.Pos() && x.Obj.Decl.(*ast.ValueSpec).Pos() < fn.End() {
					return
				}
			}
			name, text = x.Name, x.Name
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && imports[id.Name] && id.Obj == nil {
				name, text = x.Sel.Name, id.Name+"."+x.Sel.Name
			}
		}
		if name == "" || vars[name] == "" || seen[text] {
			return
		}
		seen[text] = true
		set = append(set, text)
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.AssignStmt:
			if s.Tok != token.DEFINE {
				for _, l := range s.Lhs {
					target(l)
				}
			}
		case *ast.IncDecStmt:
			target(s.X)
		}
		return true
	})
	if len(set) == 0 {
		noPatch("%s assigns no package-level var of its package", pname)
	}
	var block bytes.Buffer
	for _, v := range set {
		saved := "retrialSaved" + strings.ReplaceAll(v, ".", "")
		fmt.Fprintf(&block, "\n%s := %s\n%s.Cleanup(func() { %s = %s })", saved, v, tv, v, saved)
	}
	where := make([]string, len(set))
	for i, v := range set {
		where[i] = fmt.Sprintf("%s (%s)", v, vars[v[strings.LastIndex(v, ".")+1:]])
	}
	return &orderFix{pf: pf, at: pf.fset.Position(fn.Body.Lbrace).Offset + 1,
		block: block.Bytes(), line: pf.fset.Position(fn.Pos()).Line, name: pname,
		where: where, n: len(set)}
}
