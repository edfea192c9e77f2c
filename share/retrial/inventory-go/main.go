// rt-inventory-go: the assertion inventory of Go test files, read with
// go/parser (issue 19; the JSON is share/retrial's inventory schema, version 1).
//
//	rt-inventory-go [--root DIR] FILE...
//
// Standard library only: lib/rt_src builds it once with the project's Go
// toolchain and caches the binary under the XDG cache. It never compiles or
// runs the code it reads. One JSON object on stdout, exit 0 even when a file
// does not parse (that file's "error" has the parser's line:col); exit 2 on
// a usage error.
//
// Per FuncDecl (Func or Recv.Method) and per t.Run closure ("TestX/name",
// the name rewritten as `go test` does, "TestX/*" when not a literal):
//
//	if COND { t.Error... }          fail_branch (op and operands from COND; a
//	                                name bound in the if's init is shown as
//	                                its value: `if got := f(); got != 1` has
//	                                operands ["f()", "1"])
//	if err == nil { t.Fatal.. }     raises (also !errors.Is/As, recover() == nil)
//	t.Error/Fatal not under an if   fail
//	assert.X / require.X (testify)  call (Error*, Panics* are raises)
//	t.Skip*                         skip
//	return, os.Exit, runtime.Goexit return (not inside closures)
//	a deferred func calling recover() without failing the test: the checks
//	after it are guarded "recover"
//	if false { ... } (also `&& false`, `!true`; the else of `if true`):
//	                                its checks are "dead", with that if's line
//
// Each check's "uses" are the calls whose values it compares: called in its
// condition or arguments, or assigned in the function to a name it reads
// (builtins and fmt left out).
//
// Checks inside other closures (helpers, deferred funcs, goroutines) are
// checks of the enclosing function. `if !reflect.DeepEqual(got, want)` (also
// cmp.Equal, bytes.Equal, slices.Equal, maps.Equal, proto.Equal) reads as
// op "!=" on [got, want], with options {"compare": "reflect.DeepEqual"}, the
// one key beyond the schema. Bounded: over 2 MiB or 1000 open brackets is
// that file's "error" (go/parser's time grows with the square of the depth).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/scanner"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

const (
	maxSize  = 2 << 20 // bytes: a larger file is that file's "error"
	maxDepth = 1000    // brackets open at once: more is that file's "error"
)

type errInfo struct {
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
}

type check struct {
	Kind     string            `json:"kind"`
	Line     int               `json:"line"`
	End      int               `json:"end"`
	Callee   string            `json:"callee"`
	Op       string            `json:"op"`
	Operands []string          `json:"operands"`
	Expected *int              `json:"expected"`
	Options  map[string]string `json:"options"`
	Guarded  *string           `json:"guarded"`
	Text     string            `json:"text"`
	Dead     *deadInfo         `json:"dead,omitempty"`
	Uses     []string          `json:"uses"`
	pos      token.Pos
	from     []ast.Node // what it compares, for Uses
}

// deadInfo: the `if false {` a check is under.
type deadInfo struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

type function struct {
	Name   string   `json:"name"`
	Line   int      `json:"line"`
	End    int      `json:"end"`
	Test   bool     `json:"test"`
	Calls  []string `json:"calls"`
	Checks []*check `json:"checks"`
	seen   map[string]bool
}

type fileOut struct {
	Path      string      `json:"path"`
	Error     *errInfo    `json:"error"`
	Functions []*function `json:"functions"`
}

type output struct {
	Version int        `json:"version"`
	Lang    string     `json:"lang"`
	Parser  string     `json:"parser"`
	Files   []*fileOut `json:"files"`
}

// frame: one function body being walked (a FuncDecl, a t.Run closure or a
// closure inside one of them).
type frame struct {
	fn       *function
	closure  bool            // a closure: its returns are not the test's
	tvars    map[string]bool // names of *testing.T/B/F and testing.TB values
	asserts  map[string]bool // values from assert.New / require.New
	recover  token.Pos       // checks after this deferred recover() are guarded
	consumed map[*ast.CallExpr]bool
	dead     *deadInfo // the branch never runs
}

type reader struct {
	fset    *token.FileSet
	testing string          // local name of the "testing" import
	testify map[string]bool // local names of testify's assert and require
	funcs   []*function
	assigns map[string][]string // in the FuncDecl being read: name -> calls assigned to it
	pending []*check            // its checks, their Uses resolved at its end
}

func main() {
	root := ""
	fix, order := false, false
	args := os.Args[1:]
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "--fix-maprange": // rt-diagnose's map-order rule (fix.go)
			fix = true
			args = args[1:]
		case args[0] == "--fix-order": // rt-diagnose's order rule for Go (fix.go)
			order = true
			args = args[1:]
		case args[0] == "--":
			args = args[1:]
			goto files
		case args[0] == "--root" && len(args) > 1:
			root = args[1]
			args = args[2:]
		case strings.HasPrefix(args[0], "--root="):
			root = strings.TrimPrefix(args[0], "--root=")
			args = args[1:]
		default:
			usage()
		}
	}
files:
	if len(args) == 0 {
		usage()
	}
	if fix {
		fixMapRange(root, args)
		return
	}
	if order {
		fixOrder(root, args)
		return
	}
	out := output{Version: 1, Lang: "go", Parser: "go/parser " + runtime.Version()}
	for _, name := range args {
		out.Files = append(out.Files, readFile(root, name))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&out); err != nil {
		fmt.Fprintf(os.Stderr, "rt-inventory-go: %v\n", err)
		os.Exit(2)
	}
	if _, err := os.Stdout.Write(buf.Bytes()); err != nil {
		fmt.Fprintf(os.Stderr, "rt-inventory-go: stdout: %v\n", err)
		os.Exit(2)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: rt-inventory-go [--root DIR] FILE...")
	os.Exit(2)
}

func readFile(root, name string) *fileOut {
	fo := &fileOut{Path: name, Functions: []*function{}}
	p := name
	if root != "" && !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	f, err := os.Open(p)
	if err != nil {
		fo.Error = &errInfo{0, 0, err.Error()}
		return fo
	}
	defer f.Close()
	src, err := readBounded(f)
	if err != nil {
		fo.Error = &errInfo{0, 0, err.Error()}
		return fo
	}
	if e := tooDeep(token.NewFileSet(), name, src); e != nil {
		fo.Error = e
		return fo
	}
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, name, src, parser.AllErrors)
	if err != nil {
		fo.Error = parseError(err)
		return fo
	}
	r := &reader{fset: fset, testify: map[string]bool{}}
	r.imports(af)
	for _, d := range af.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			r.funcDecl(fd)
		}
	}
	fo.Functions = append(fo.Functions, r.funcs...)
	return fo
}

func readBounded(f *os.File) ([]byte, error) {
	src, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return nil, err
	}
	if len(src) > maxSize {
		return nil, fmt.Errorf("file over %d bytes (2 MiB): not read", maxSize)
	}
	return src, nil
}

// tooDeep: go/parser takes time quadratic in the nesting depth (and stops
// at 100000 levels); a linear scan refuses more than maxDepth brackets.
func tooDeep(fset *token.FileSet, name string, src []byte) *errInfo {
	var s scanner.Scanner
	file := fset.AddFile(name, -1, len(src))
	s.Init(file, src, nil, 0)
	depth := 0
	for {
		pos, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return nil
		case token.LPAREN, token.LBRACK, token.LBRACE:
			if depth++; depth > maxDepth {
				p := fset.Position(pos)
				return &errInfo{p.Line, p.Column, fmt.Sprintf("nesting deeper than %d levels: not read", maxDepth)}
			}
		case token.RPAREN, token.RBRACK, token.RBRACE:
			depth--
		}
	}
}

func parseError(err error) *errInfo {
	if el, ok := err.(scanner.ErrorList); ok && len(el) > 0 {
		el.Sort()
		return &errInfo{el[0].Pos.Line, el[0].Pos.Column, el[0].Msg}
	}
	if e, ok := err.(*scanner.Error); ok {
		return &errInfo{e.Pos.Line, e.Pos.Column, e.Msg}
	}
	return &errInfo{0, 0, err.Error()}
}

func (r *reader) imports(af *ast.File) {
	for _, im := range af.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		local := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			local = im.Name.Name
		}
		switch {
		case path == "testing":
			r.testing = local
		case path == "github.com/stretchr/testify/assert" || path == "github.com/stretchr/testify/require":
			r.testify[local] = true
		}
	}
}

func (r *reader) line(p token.Pos) int { return r.fset.Position(p).Line }

func (r *reader) newFunc(name string, from, to token.Pos, test bool) *function {
	fn := &function{Name: name, Line: r.line(from), End: r.line(to), Test: test,
		Calls: []string{}, Checks: []*check{}, seen: map[string]bool{}}
	r.funcs = append(r.funcs, fn)
	return fn
}

func (r *reader) funcDecl(fd *ast.FuncDecl) {
	name := fd.Name.Name
	if fd.Recv != nil && len(fd.Recv.List) > 0 {
		name = recvName(fd.Recv.List[0].Type) + "." + name
	}
	test := fd.Recv == nil && r.isTestFunc(fd)
	fn := r.newFunc(name, fd.Pos(), fd.End(), test)
	if fd.Body == nil {
		return
	}
	fr := &frame{fn: fn, tvars: map[string]bool{}, asserts: map[string]bool{},
		consumed: map[*ast.CallExpr]bool{}}
	r.assigns, r.pending = map[string][]string{}, nil
	r.params(fr, fd.Type)
	r.walk(fd.Body, fr)
	r.resolveUses()
	sortChecks(fn)
}

var notUnderTest = map[string]bool{"len": true, "cap": true, "append": true, "make": true,
	"new": true, "copy": true, "delete": true, "panic": true, "recover": true, "print": true,
	"println": true, "complex": true, "real": true, "imag": true, "min": true, "max": true,
	"clear": true, "close": true, "string": true, "int": true, "byte": true, "rune": true}

func underTest(name string) bool {
	return name != "" && !notUnderTest[name] && !strings.HasPrefix(name, "fmt.") &&
		!equalFuncs[name] && !strings.HasPrefix(name, "errors.")
}

// callsIn: the calls in n that may be the code under test.
func (r *reader) callsIn(n ast.Node, out []string) []string {
	ast.Inspect(n, func(c ast.Node) bool {
		if ce, ok := c.(*ast.CallExpr); ok {
			if name := r.callName(ce.Fun); underTest(name) && !contains(out, name) {
				out = append(out, name)
			}
		}
		return true
	})
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func (r *reader) bind(lhs []ast.Expr, rhs []ast.Expr) {
	for i, l := range lhs {
		id, ok := l.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		v := rhs[0]
		if len(lhs) == len(rhs) {
			v = rhs[i]
		}
		r.assigns[id.Name] = r.callsIn(v, r.assigns[id.Name])
	}
}

func (r *reader) resolveUses() {
	for _, ck := range r.pending {
		u := []string{}
		for _, n := range ck.from {
			u = r.callsIn(n, u)
			ast.Inspect(n, func(c ast.Node) bool {
				if id, ok := c.(*ast.Ident); ok {
					for _, x := range r.assigns[id.Name] {
						if !contains(u, x) {
							u = append(u, x)
						}
					}
				}
				return true
			})
		}
		ck.Uses = u
	}
	r.pending = nil
}

// constBool: a condition that is a constant (false, true, !c, c && false).
func constBool(e ast.Expr) (bool, bool) {
	switch c := unparen(e).(type) {
	case *ast.Ident:
		if c.Name == "false" || c.Name == "true" {
			return c.Name == "true", true
		}
	case *ast.UnaryExpr:
		if v, ok := constBool(c.X); ok && c.Op == token.NOT {
			return !v, true
		}
	case *ast.BinaryExpr:
		if c.Op == token.LAND {
			if v, ok := constBool(c.X); ok && !v {
				return false, true
			}
			if v, ok := constBool(c.Y); ok && !v {
				return false, true
			}
		}
	}
	return false, false
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// isTestFunc: the rules of `go test`: TestXxx(t *testing.T),
// BenchmarkXxx(b *testing.B), FuzzXxx(f *testing.F), Xxx not lower case.
func (r *reader) isTestFunc(fd *ast.FuncDecl) bool {
	want := map[string]string{"Test": "T", "Benchmark": "B", "Fuzz": "F"}
	for prefix, typ := range want {
		if !strings.HasPrefix(fd.Name.Name, prefix) {
			continue
		}
		rest := fd.Name.Name[len(prefix):]
		if rest != "" {
			c := []rune(rest)[0]
			if unicode.IsLower(c) {
				continue
			}
		}
		ps := fd.Type.Params.List
		if len(ps) == 1 && len(ps[0].Names) <= 1 && fd.Type.Results == nil {
			if r.isTestingType(ps[0].Type, typ, true) {
				return true
			}
		}
	}
	return false
}

// isTestingType: *testing.T (star) or testing.TB of the file's import name.
func (r *reader) isTestingType(e ast.Expr, typ string, star bool) bool {
	if r.testing == "" {
		return false
	}
	if star {
		s, ok := e.(*ast.StarExpr)
		if !ok {
			return false
		}
		e = s.X
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == r.testing && sel.Sel.Name == typ
}

func (r *reader) params(fr *frame, ft *ast.FuncType) {
	if ft.Params == nil {
		return
	}
	for _, p := range ft.Params.List {
		if r.isTestingType(p.Type, "T", true) || r.isTestingType(p.Type, "B", true) ||
			r.isTestingType(p.Type, "F", true) || r.isTestingType(p.Type, "TB", false) {
			for _, n := range p.Names {
				fr.tvars[n.Name] = true
			}
		}
	}
}

func (fr *frame) child(closure bool) *frame {
	c := &frame{fn: fr.fn, closure: closure, tvars: map[string]bool{}, asserts: map[string]bool{},
		recover: fr.recover, consumed: fr.consumed}
	for k := range fr.tvars {
		c.tvars[k] = true
	}
	for k := range fr.asserts {
		c.asserts[k] = true
	}
	return c
}

var failMethods = map[string]bool{"Error": true, "Errorf": true, "Fatal": true, "Fatalf": true,
	"Fail": true, "FailNow": true}
var skipMethods = map[string]bool{"Skip": true, "Skipf": true, "SkipNow": true}

// tcall: X.M(...) on a testing value, as (X, M).
func (fr *frame) tcall(e ast.Expr) (string, string, *ast.CallExpr) {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return "", "", nil
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", "", nil
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok || !fr.tvars[x.Name] {
		return "", "", nil
	}
	return x.Name, sel.Sel.Name, c
}

func (r *reader) walk(n ast.Node, fr *frame) {
	ast.Inspect(n, func(c ast.Node) bool {
		if c == nil {
			return true
		}
		switch s := c.(type) {
		case *ast.FuncLit:
			cf := fr.child(true)
			r.params(cf, s.Type)
			r.walk(s.Body, cf)
			return false
		case *ast.IfStmt:
			r.ifStmt(s, fr)
			return false
		case *ast.SwitchStmt:
			r.switchStmt(s, fr)
			return false
		case *ast.DeferStmt:
			r.walk(s.Call, fr)
			if lit, ok := s.Call.Fun.(*ast.FuncLit); ok && r.swallows(lit, fr) {
				fr.recover = s.Pos()
			}
			return false
		case *ast.ReturnStmt:
			r.walkList(s.Results, fr)
			if !fr.closure {
				r.add(fr, &check{Kind: "return", Callee: "return", pos: s.Pos()}, s, nil)
			}
			return false
		case *ast.RangeStmt:
			if r.assigns != nil && s.Key != nil {
				r.bind([]ast.Expr{s.Key, s.Value}, []ast.Expr{s.X})
			}
			return true
		case *ast.ValueSpec:
			if r.assigns != nil && len(s.Values) > 0 {
				lhs := make([]ast.Expr, len(s.Names))
				for i, n := range s.Names {
					lhs[i] = n
				}
				r.bind(lhs, s.Values)
			}
			return true
		case *ast.AssignStmt:
			if r.assigns != nil && len(s.Rhs) > 0 {
				r.bind(s.Lhs, s.Rhs)
			}
			// a := assert.New(t)
			if len(s.Lhs) == 1 && len(s.Rhs) == 1 {
				if id, ok := s.Lhs[0].(*ast.Ident); ok {
					if pkg, name := r.selName(s.Rhs[0]); r.testify[pkg] && name == "New" {
						fr.asserts[id.Name] = true
					}
				}
			}
			return true
		case *ast.CallExpr:
			return r.call(s, fr)
		}
		return true
	})
}

func (r *reader) walkList(es []ast.Expr, fr *frame) {
	for _, e := range es {
		r.walk(e, fr)
	}
}

// selName: the callee of a call as (X, Sel) when it is X.Sel(...).
func (r *reader) selName(e ast.Expr) (string, string) {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return "", ""
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", ""
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", ""
	}
	return x.Name, sel.Sel.Name
}

func (r *reader) call(c *ast.CallExpr, fr *frame) bool {
	fname := r.callName(c.Fun)
	if fname != "" && !fr.fn.seen[fname] {
		fr.fn.seen[fname] = true
		fr.fn.Calls = append(fr.fn.Calls, fname)
	}
	if x, m, _ := fr.tcall(c); x != "" {
		switch {
		case m == "Run" && len(c.Args) == 2:
			if lit, ok := c.Args[1].(*ast.FuncLit); ok {
				r.walk(c.Args[0], fr)
				r.subtest(c, lit, fr)
				return false
			}
		case failMethods[m]:
			if !fr.consumed[c] {
				r.add(fr, &check{Kind: "fail", Callee: x + "." + m, Operands: r.strs(c.Args), pos: c.Pos()}, c, nil)
			}
		case skipMethods[m]:
			r.add(fr, &check{Kind: "skip", Callee: x + "." + m, Operands: r.strs(c.Args), pos: c.Pos()}, c, nil)
		}
		return true
	}
	if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
		if x, ok := sel.X.(*ast.Ident); ok {
			switch {
			case r.testify[x.Name] || fr.asserts[x.Name]:
				r.testifyCall(c, x.Name, sel.Sel.Name, fr, !fr.asserts[x.Name])
			case !fr.closure && (x.Name == "os" && sel.Sel.Name == "Exit" ||
				x.Name == "runtime" && sel.Sel.Name == "Goexit"):
				r.add(fr, &check{Kind: "return", Callee: x.Name + "." + sel.Sel.Name,
					Operands: r.strs(c.Args), pos: c.Pos()}, c, nil)
			}
		}
	}
	return true
}

func (r *reader) callName(e ast.Expr) string {
	switch f := e.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		if x := r.callName(f.X); x != "" {
			return x + "." + f.Sel.Name
		}
	case *ast.IndexExpr: // generic instantiation f[T](...)
		return r.callName(f.X)
	}
	return ""
}

// subtest: t.Run(name, func(t *testing.T) {...}) is a function of its own.
func (r *reader) subtest(c *ast.CallExpr, lit *ast.FuncLit, fr *frame) {
	name := "*"
	if bl, ok := c.Args[0].(*ast.BasicLit); ok && bl.Kind == token.STRING {
		if s, err := strconv.Unquote(bl.Value); err == nil {
			name = rewrite(s)
		}
	}
	fn := r.newFunc(fr.fn.Name+"/"+name, c.Pos(), c.End(), fr.fn.Test)
	sf := &frame{fn: fn, tvars: map[string]bool{}, asserts: map[string]bool{},
		consumed: fr.consumed}
	for k := range fr.asserts {
		sf.asserts[k] = true
	}
	for k := range fr.tvars { // the parent's t, captured
		sf.tvars[k] = true
	}
	r.params(sf, lit.Type)
	r.walk(lit.Body, sf)
	sortChecks(fn)
}

// rewrite: a subtest's name as `go test` reports it (testing's rewrite):
// spaces become underscores, unprintable runes are escaped.
func rewrite(s string) string {
	b := []byte{}
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			b = append(b, '_')
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b = append(b, q[1:len(q)-1]...)
		default:
			b = append(b, string(r)...)
		}
	}
	return string(b)
}

// failsIn: the t.Error/t.Fatal... calls among a block's own statements.
func (r *reader) failsIn(list []ast.Stmt, fr *frame) []*ast.CallExpr {
	var out []*ast.CallExpr
	for _, st := range list {
		es, ok := st.(*ast.ExprStmt)
		if !ok {
			continue
		}
		if x, m, c := fr.tcall(es.X); x != "" && failMethods[m] {
			out = append(out, c)
		}
	}
	return out
}

func (r *reader) ifStmt(s *ast.IfStmt, fr *frame) {
	binds := map[string]ast.Expr{}
	if as, ok := s.Init.(*ast.AssignStmt); ok && as.Tok == token.DEFINE && len(as.Lhs) == len(as.Rhs) {
		for i, l := range as.Lhs {
			if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
				binds[id.Name] = as.Rhs[i]
			}
		}
	}
	bodyFr, elseFr := fr, fr
	if v, ok := constBool(s.Cond); ok && fr.dead == nil {
		df := *fr
		df.dead = &deadInfo{Line: r.line(s.Pos()), Text: "if " + r.src(s.Cond) + " {"}
		if v {
			elseFr = &df
		} else {
			bodyFr = &df
		}
	}
	if fails := r.failsIn(s.Body.List, fr); len(fails) > 0 {
		r.branch(bodyFr, s, s.Init, s.Cond, false, fails, binds, s.Body.End())
	}
	if eb, ok := s.Else.(*ast.BlockStmt); ok {
		if fails := r.failsIn(eb.List, fr); len(fails) > 0 {
			r.branch(elseFr, s, s.Init, s.Cond, true, fails, binds, eb.End())
		}
	}
	if s.Init != nil {
		r.walk(s.Init, fr)
	}
	r.walk(s.Cond, fr)
	r.walk(s.Body, bodyFr)
	if s.Else != nil {
		if ei, ok := s.Else.(*ast.IfStmt); ok {
			r.ifStmt(ei, elseFr)
		} else {
			r.walk(s.Else, elseFr)
		}
	}
}

// switchStmt: `switch { case got != want: t.Errorf(..) }` is a branch.
func (r *reader) switchStmt(s *ast.SwitchStmt, fr *frame) {
	if s.Init != nil {
		r.walk(s.Init, fr)
	}
	if s.Tag != nil {
		r.walk(s.Tag, fr)
	}
	for _, st := range s.Body.List {
		cc := st.(*ast.CaseClause)
		if s.Tag == nil && len(cc.List) == 1 {
			if fails := r.failsIn(cc.Body, fr); len(fails) > 0 {
				r.branch(fr, cc, nil, cc.List[0], false, fails, nil, cc.End())
			}
		}
		r.walkList(cc.List, fr)
		for _, b := range cc.Body {
			r.walk(b, fr)
		}
	}
}

// branch: a fail_branch (or raises) for COND (negated for an else branch).
func (r *reader) branch(fr *frame, at ast.Node, init ast.Stmt, cond ast.Expr, negate bool,
	fails []*ast.CallExpr, binds map[string]ast.Expr, end token.Pos) {
	for _, f := range fails {
		fr.consumed[f] = true
	}
	ck := &check{Kind: "fail_branch", pos: at.Pos(), Callee: r.callName(fails[0].Fun),
		from: []ast.Node{cond}}
	if init != nil {
		ck.from = append(ck.from, init)
	}
	ck.Op, ck.Operands = r.cond(cond, binds)
	if u, ok := unparen(cond).(*ast.UnaryExpr); ok && u.Op == token.NOT {
		if _, _, ok := r.equalCall(u.X); ok {
			ck.Options = map[string]string{"compare": r.callName(unparen(u.X).(*ast.CallExpr).Fun)}
		}
	}
	if negate {
		ck.Op = negateOp(ck.Op)
	}
	if e, ok := r.raises(cond, binds, negate); ok {
		ck.Kind, ck.Op, ck.Operands = "raises", "", e
	}
	text := "if "
	if init != nil {
		text += r.src(init) + "; "
	}
	text += r.src(cond) + " { "
	if negate {
		text = "if " + r.src(cond) + " {} else { "
	}
	var calls []string
	for _, f := range fails {
		calls = append(calls, r.src(f))
	}
	ck.Text = text + strings.Join(calls, "; ") + " }"
	r.add(fr, ck, at, &end)
}

var negOps = map[string]string{"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">",
	"truthy": "not", "not": "truthy"}

func negateOp(op string) string { return negOps[op] }

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

func (r *reader) cond(e ast.Expr, binds map[string]ast.Expr) (string, []string) {
	e = unparen(e)
	switch c := e.(type) {
	case *ast.BinaryExpr:
		switch c.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return c.Op.String(), []string{r.bound(c.X, binds), r.bound(c.Y, binds)}
		}
	case *ast.UnaryExpr:
		if c.Op == token.NOT {
			if x, y, ok := r.equalCall(c.X); ok {
				return "!=", []string{r.bound(x, binds), r.bound(y, binds)}
			}
			return "not", []string{r.bound(c.X, binds)}
		}
	}
	return "truthy", []string{r.bound(e, binds)}
}

// equalFuncs: `!reflect.DeepEqual(got, want)` reads as `got != want`
// (the compare option names the function).
var equalFuncs = map[string]bool{"reflect.DeepEqual": true, "cmp.Equal": true, "bytes.Equal": true,
	"slices.Equal": true, "maps.Equal": true, "proto.Equal": true}

func (r *reader) equalCall(e ast.Expr) (ast.Expr, ast.Expr, bool) {
	c, ok := unparen(e).(*ast.CallExpr)
	if !ok || len(c.Args) < 2 || !equalFuncs[r.callName(c.Fun)] {
		return nil, nil, false
	}
	return c.Args[0], c.Args[1], true
}

// bound: an operand, a name bound in the if's init shown as its value.
func (r *reader) bound(e ast.Expr, binds map[string]ast.Expr) string {
	if id, ok := unparen(e).(*ast.Ident); ok {
		if v, ok := binds[id.Name]; ok {
			return r.src(v)
		}
	}
	return r.src(e)
}

// raises: the COND of an expected error or panic: `err == nil`,
// `!errors.Is(err, E)`, `!errors.As(err, &v)`, `recover() == nil`.
func (r *reader) raises(cond ast.Expr, binds map[string]ast.Expr, negate bool) ([]string, bool) {
	cond = unparen(cond)
	op := token.EQL
	if negate {
		op = token.NEQ
	}
	if b, ok := cond.(*ast.BinaryExpr); ok && b.Op == op {
		x, y := unparen(b.X), unparen(b.Y)
		if id, ok := x.(*ast.Ident); !ok || id.Name != "nil" {
			if id, ok := y.(*ast.Ident); ok && id.Name == "nil" {
				s := r.bound(x, binds)
				if errLike(s) {
					return []string{s}, true
				}
			}
		}
	}
	if u, ok := cond.(*ast.UnaryExpr); ok && u.Op == token.NOT && !negate {
		if c, ok := unparen(u.X).(*ast.CallExpr); ok && len(c.Args) == 2 {
			if n := r.callName(c.Fun); n == "errors.Is" || n == "errors.As" {
				return []string{r.src(c.Args[1])}, true
			}
		}
	}
	return nil, false
}

func errLike(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(s, "recover()") || strings.HasPrefix(l, "err") ||
		strings.HasSuffix(l, "err") || strings.HasSuffix(l, "error") || strings.HasSuffix(l, "err()")
}

// swallows: a deferred func that calls recover() and neither fails the test
// nor panics again.
func (r *reader) swallows(lit *ast.FuncLit, fr *frame) bool {
	rec, fails := false, false
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		name := r.callName(c.Fun)
		switch {
		case name == "recover":
			rec = true
		case name == "panic":
			fails = true
		}
		if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && fr.tvars[x.Name] && failMethods[sel.Sel.Name] {
				fails = true
			}
			if x, ok := sel.X.(*ast.Ident); ok && (r.testify[x.Name] || fr.asserts[x.Name]) {
				fails = true
			}
		}
		return true
	})
	return rec && !fails
}

// testify: [function] = (operands compared, expected index, kind)
type tinfo struct {
	n        int
	expected int
	kind     string
	opt      string // the name of the option after the operands
}

var testifyFuncs = map[string]tinfo{
	"Equal": {2, 0, "call", ""}, "NotEqual": {2, 0, "call", ""}, "EqualValues": {2, 0, "call", ""},
	"NotEqualValues": {2, 0, "call", ""}, "Exactly": {2, 0, "call", ""}, "Same": {2, 0, "call", ""},
	"NotSame": {2, 0, "call", ""}, "ElementsMatch": {2, 0, "call", ""}, "JSONEq": {2, 0, "call", ""},
	"YAMLEq": {2, 0, "call", ""}, "Contains": {2, 1, "call", ""}, "NotContains": {2, 1, "call", ""},
	"Subset": {2, 1, "call", ""}, "NotSubset": {2, 1, "call", ""}, "Len": {2, 1, "call", ""},
	"Greater": {2, 1, "call", ""}, "GreaterOrEqual": {2, 1, "call", ""}, "Less": {2, 1, "call", ""},
	"LessOrEqual": {2, 1, "call", ""}, "IsType": {2, 0, "call", ""}, "Implements": {2, 0, "call", ""},
	"Regexp": {2, 0, "call", ""}, "NotRegexp": {2, 0, "call", ""}, "WithinDuration": {2, 0, "call", "delta"},
	"InDelta": {2, 0, "call", "delta"}, "InDeltaSlice": {2, 0, "call", "delta"},
	"InEpsilon": {2, 0, "call", "epsilon"}, "InEpsilonSlice": {2, 0, "call", "epsilon"},
	"True": {1, -1, "call", ""}, "False": {1, -1, "call", ""}, "Nil": {1, -1, "call", ""},
	"NotNil": {1, -1, "call", ""}, "Empty": {1, -1, "call", ""}, "NotEmpty": {1, -1, "call", ""},
	"Zero": {1, -1, "call", ""}, "NotZero": {1, -1, "call", ""}, "NoError": {1, -1, "call", ""},
	"FileExists": {1, -1, "call", ""}, "DirExists": {1, -1, "call", ""}, "Condition": {1, -1, "call", ""},
	"NotPanics": {1, -1, "call", ""}, "Fail": {0, -1, "fail", ""}, "FailNow": {0, -1, "fail", ""},
	"Error": {1, -1, "raises", ""}, "Errorf": {1, -1, "raises", ""}, "ErrorIs": {2, 1, "raises", ""},
	"ErrorAs": {2, 1, "raises", ""}, "ErrorContains": {2, 1, "raises", ""}, "EqualError": {2, 1, "raises", ""},
	"Panics": {1, -1, "raises", ""}, "PanicsWithValue": {2, 0, "raises", ""},
	"PanicsWithError": {2, 0, "raises", ""},
}

func (r *reader) testifyCall(c *ast.CallExpr, x, m string, fr *frame, pkg bool) {
	name := strings.TrimSuffix(m, "f")
	info, ok := testifyFuncs[m]
	if !ok {
		info, ok = testifyFuncs[name]
	}
	if !ok || m == "New" {
		return
	}
	args := c.Args
	if pkg && len(args) > 0 { // the leading t of assert.Equal(t, ...)
		args = args[1:]
	}
	ck := &check{Kind: info.kind, Callee: x + "." + m, pos: c.Pos(), Options: map[string]string{}}
	for _, a := range args {
		ck.from = append(ck.from, a)
	}
	n := info.n
	if n > len(args) {
		n = len(args)
	}
	ck.Operands = r.strs(args[:n])
	rest := args[n:]
	if info.opt != "" && len(rest) > 0 {
		ck.Options[info.opt] = r.src(rest[0])
		rest = rest[1:]
	}
	if len(rest) > 0 {
		ck.Options["msg"] = strings.Join(r.strs(rest), ", ")
	}
	if info.expected >= 0 && info.expected < n {
		i := info.expected
		ck.Expected = &i
	}
	r.add(fr, ck, c, nil)
}

func (r *reader) strs(es []ast.Expr) []string {
	out := make([]string, 0, len(es))
	for _, e := range es {
		out = append(out, r.src(e))
	}
	return out
}

// src: normalised source: go/printer without positions, so on one line
// where it can, and whitespace outside literals collapsed.
func (r *reader) src(n ast.Node) string {
	var buf bytes.Buffer
	if err := printer.Fprint(&buf, token.NewFileSet(), n); err != nil {
		return "?"
	}
	return collapse(buf.String())
}

func collapse(s string) string {
	var b strings.Builder
	var quote byte
	space := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if quote != 0 {
			b.WriteByte(ch)
			if ch == '\\' && quote != '`' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if ch == quote {
				quote = 0
			}
			continue
		}
		if ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		if ch == '"' || ch == '`' || ch == '\'' {
			quote = ch
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// expectedName: want, expected, exp, c.want, len(tt.expected)...
func expectedName(s string) bool {
	l := strings.ToLower(strings.TrimRight(s[strings.LastIndex(s, ".")+1:], ")"))
	return l == "want" || l == "wanted" || l == "exp" || l == "expect" ||
		strings.HasPrefix(l, "expected") || strings.HasPrefix(l, "want")
}

func literal(s string) bool {
	if s == "nil" || s == "true" || s == "false" {
		return true
	}
	if s == "" {
		return false
	}
	c := s[0]
	return c == '"' || c == '`' || c == '\'' || c == '-' || (c >= '0' && c <= '9') ||
		strings.HasSuffix(s, "}") && !strings.HasPrefix(s, "func")
}

// add: fill in position, guard and expected side, then record.
func (r *reader) add(fr *frame, ck *check, n ast.Node, end *token.Pos) {
	ck.Line = r.line(n.Pos())
	if end != nil {
		ck.End = r.line(*end)
	} else {
		ck.End = r.line(n.End())
	}
	if ck.Operands == nil {
		ck.Operands = []string{}
	}
	if ck.Options == nil {
		ck.Options = map[string]string{}
	}
	if ck.Text == "" {
		ck.Text = r.src(n)
	}
	ck.Dead = fr.dead
	ck.Uses = []string{}
	if r.assigns != nil {
		r.pending = append(r.pending, ck)
	}
	if fr.recover.IsValid() && ck.pos > fr.recover {
		g := "recover"
		ck.Guarded = &g
	}
	if ck.Expected == nil && (ck.Kind == "fail_branch") && len(ck.Operands) == 2 {
		for i, o := range ck.Operands {
			if expectedName(o) || literal(o) {
				j := i
				ck.Expected = &j
				break
			}
		}
	}
	fr.fn.Checks = append(fr.fn.Checks, ck)
}

func sortChecks(fn *function) {
	sort.SliceStable(fn.Checks, func(i, j int) bool { return fn.Checks[i].pos < fn.Checks[j].pos })
}
