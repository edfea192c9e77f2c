#!/usr/bin/env bats
# t/39-inventory.bats: the assertion-inventory helpers of share/retrial run
# directly: share/retrial/inventory-go (go/parser) and rt-inventory.js (the
# project's @babel/parser, acorn or typescript), on the real-shaped
# fixtures t/fixtures/guard/gotable and jestcase and their patches, and on
# the bad input of issue 19: syntax errors, 3 MiB files, deep nesting, no
# parser.
load helper

FX="$RT_TOP/t/fixtures/guard"
JESTPROJ="$RT_TOP/t/fixtures/runners/jestproj"
INVJS="$RT_TOP/share/retrial/rt-inventory.js"

have_go() {
	command -v go >/dev/null 2>&1
}

have_node() {
	command -v node >/dev/null 2>&1
}

# the jest fixture's node_modules hold @babel/parser (make jest-deps)
have_babel() {
	have_node && [ -d "$JESTPROJ/node_modules/@babel/parser" ]
}

go_env() {
	export GOCACHE="$BATS_FILE_TMPDIR/gocache" GOPATH="$BATS_FILE_TMPDIR/gopath" GOPROXY=off \
	    GOTOOLCHAIN=local GOFLAGS=-mod=mod GOWORK=off
}

# the Go helper is built once per file, as lib/rt_src builds it
setup_file() {
	if have_go; then
		go_env
		(cd "$RT_TOP/share/retrial/inventory-go" && go build -o "$BATS_FILE_TMPDIR/rt-inventory-go" .) >&2
	fi
}

INVGO="$BATS_FILE_TMPDIR/rt-inventory-go"

need_go() {
	have_go || skip "no go toolchain"
	[ -x "$INVGO" ] || skip "the Go helper did not build"
}

need_babel() {
	have_babel || skip "no @babel/parser in t/fixtures/runners/jestproj/node_modules: make jest-deps"
}

# a copy of a fixture in $T/NAME, a patch of its own applied as maintainers
# send it (patch -p1, no fuzz)
fixture() {
	rm -rf "${T:?}/$1"
	cp -R "$FX/$1" "$T/$1"
	if [ -n "${2:-}" ]; then
		patch -s -p1 --fuzz=0 -d "$T/$1" <"$FX/$1/patches/$2.patch"
	fi
}

# goinv FILE...: the Go inventory of files under $T, into $T/inv.json
goinv() {
	"$INVGO" --root "$T" "$@" >"$T/inv.json"
}

# jsinv ROOT FILE...: the JavaScript inventory, into $T/inv.json
jsinv() {
	local root=$1
	shift
	node "$INVJS" --root "$root" "$@" >"$T/inv.json"
}

# fn NAME: the named function of the first file
fn() {
	jq -c --arg n "$1" '.files[0].functions[] | select(.name == $n)' "$T/inv.json"
}

@test "inventory-go: usage errors exit 2 with the usage line" {
	need_go
	run "$INVGO"
	status_is 2
	has "usage: rt-inventory-go [--root DIR] FILE..."
	run "$INVGO" --bogus x.go
	status_is 2
}

@test "inventory-go: the table test's fail_branch has the compared sides, and the len() patch shows as len() on both" {
	need_go
	fixture gotable
	goinv gotable/kv_test.go
	jqe '.version == 1 and .lang == "go" and (.parser | test("^go/parser go1\\.")) and
	    .files[0].path == "gotable/kv_test.go" and .files[0].error == null' "$T/inv.json"
	fn TestFormat | jqe '.test == true and .line == 8 and .end == 23 and (.calls | index("Format")) and
	    (.checks | length == 1) and .checks[0] == {kind: "fail_branch", line: 19, end: 21,
	    callee: "t.Errorf", op: "!=", operands: ["output", "c.expected"], expected: 1, options: {},
	    guarded: null, text: "if output != c.expected { t.Errorf(\"Format(%v) = %q, want %q\", c.in, output, c.expected) }",
	    uses: ["Format"]}'
	fixture gotable go-len
	goinv gotable/kv_test.go
	fn TestFormat | jqe '.checks | length == 1 and .[0].kind == "fail_branch" and .[0].line == 19 and
	    .[0].op == "!=" and .[0].operands == ["len(output)", "len(c.expected)"] and .[0].expected == 1'
}

@test "inventory-go: if err == nil { t.Fatal } is raises; t.Run subtests are functions of their own" {
	need_go
	fixture gotable
	goinv gotable/kv_test.go
	jqe '[.files[0].functions[].name] == ["TestFormat", "TestParse", "TestParse/pairs",
	    "TestParse/not_a_pair", "TestParse/*", "TestRoundTrip"]' "$T/inv.json"
	fn TestParse/not_a_pair | jqe '.test == true and .line == 35 and .end == 39 and
	    .checks == [{kind: "raises", line: 36, end: 38, callee: "t.Fatal", op: "", operands: ["err"],
	      expected: null, options: {}, guarded: null,
	      text: "if _, err := Parse(\"a=1,b\"); err == nil { t.Fatal(\"want error\") }", uses: ["Parse"]}]'
	fn 'TestParse/*' | jqe '.checks | length == 1 and .[0].kind == "raises" and .[0].callee == "t.Fatalf"'
	# the parent keeps none of its subtests' checks
	fn TestParse | jqe '.checks == [] and .calls == ["t.Run"]'
	# nested subtests are named as go test names them, spaces as underscores
	cat >"$T/sub_test.go" <<'EOF'
package p

import "testing"

func TestOuter(t *testing.T) {
	t.Run("a", func(st *testing.T) {
		if x != 1 {
			st.Errorf("x")
		}
		st.Run("deeper one", func(u *testing.T) {
			u.Skip()
		})
	})
}
EOF
	"$INVGO" --root "$T" sub_test.go | jqe '[.files[0].functions[] | [.name, [.checks[] | .kind + " " + .callee]]] ==
	    [["TestOuter", []], ["TestOuter/a", ["fail_branch st.Errorf"]], ["TestOuter/a/deeper_one", ["skip u.Skip"]]]'
	# !reflect.DeepEqual(got, want) reads as got != want, want's value from the if's init
	fn TestParse/pairs | jqe '.checks[1] | .op == "!=" and
	    .operands == ["got", "map[string]int{\"a\": 1, \"b\": 2}"] and .options == {compare: "reflect.DeepEqual"}'
}

@test "inventory-go: the removed t.Fatal branch is gone from TestRoundTrip, and the real fix leaves the test's inventory as it was" {
	need_go
	fixture gotable
	goinv gotable/kv_test.go
	cp "$T/inv.json" "$T/orig.json"
	fn TestRoundTrip | jqe '[.checks[] | [.kind, .op, .operands, .line]] ==
	    [["fail_branch", "!=", ["err", "nil"], 52], ["fail_branch", "!=", ["back", "in"], 55]]'
	fixture gotable go-fatal-removed
	goinv gotable/kv_test.go
	fn TestRoundTrip | jqe '[.checks[] | [.kind, .op, .operands, .line]] == [["fail_branch", "!=", ["back", "in"], 52]]'
	fixture gotable go-realfix
	goinv gotable/kv_test.go
	cmp "$T/orig.json" "$T/inv.json"
}

@test "gotable: the flakes are real under go test, each neutering patch hides its own, the real fix ends both" {
	need_go
	go_env
	fixture gotable
	# 200 runs of a test that fails 1 run in 4 (map order): all passing has odds 0.75^200
	run sh -c "cd '$T/gotable' && go test -count=200 -run '^TestFormat\$' ."
	status_is 1
	has "--- FAIL: TestFormat"
	run sh -c "cd '$T/gotable' && go test -count=200 -run '^TestRoundTrip\$' ."
	status_is 1
	has "--- FAIL: TestRoundTrip"
	fixture gotable go-len
	(cd "$T/gotable" && go test -count=200 -run '^TestFormat$' .)
	fixture gotable go-fatal-removed
	(cd "$T/gotable" && go test -count=200 -run '^TestRoundTrip$' .)
	fixture gotable go-realfix
	(cd "$T/gotable" && go test -count=200 .)
}

@test "inventory-go: recover guards, testify calls, skips, returns and else branches" {
	need_go
	cat >"$T/e_test.go" <<'EOF'
package e

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	req "github.com/stretchr/testify/require"
)

func TestRecover(t *testing.T) {
	defer func() { recover() }()
	if got := compute(); got != 1 {
		t.Fatal("bad")
	}
}

func TestPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("want panic")
		}
	}()
	boom()
}

func TestTestify(t *testing.T) {
	assert.Equal(t, 3, compute(), "compute")
	req.NoError(t, err)
	assert.InDelta(t, 1.0, f(), 0.01)
	assert.Error(t, do())
}

func TestMisc(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	if got == want {
	} else {
		t.Errorf("x")
	}
	t.Error("always")
	go func() { return }()
	if cond {
		return
	}
	os.Exit(0)
}

func Testlower(t *testing.T) {}

func (s *S) Check(t testing.TB, got int) {
	if got != 3 {
		t.Errorf("got %d", got)
	}
}
EOF
	goinv e_test.go
	fn TestRecover | jqe '.checks == [{kind: "fail_branch", line: 13, end: 15, callee: "t.Fatal", op: "!=",
	    operands: ["compute()", "1"], expected: 1, options: {}, guarded: "recover",
	    text: "if got := compute(); got != 1 { t.Fatal(\"bad\") }", uses: ["compute"]}]'
	# a deferred recover() that fails the test is an expected panic, not a guard
	fn TestPanics | jqe '.checks | length == 1 and .[0].kind == "raises" and .[0].operands == ["recover()"] and
	    .[0].guarded == null'
	fn TestTestify | jqe '[.checks[] | [.kind, .callee, .operands, .expected, .options]] == [
	    ["call", "assert.Equal", ["3", "compute()"], 0, {msg: "\"compute\""}],
	    ["call", "req.NoError", ["err"], null, {}],
	    ["call", "assert.InDelta", ["1.0", "f()"], 0, {delta: "0.01"}],
	    ["raises", "assert.Error", ["do()"], null, {}]]'
	fn TestMisc | jqe '[.checks[] | [.kind, .callee, .op, .line]] == [["skip", "t.Skip", "", 36],
	    ["fail_branch", "t.Errorf", "!=", 38], ["fail", "t.Error", "", 42], ["return", "return", "", 45],
	    ["return", "os.Exit", "", 47]]'
	fn Testlower | jqe '.test == false'
	fn S.Check | jqe '.test == false and .checks[0].kind == "fail_branch" and .checks[0].operands == ["got", "3"]'
}

@test "inventory-go: a syntax error is that file's error with the parser's line:col; the other files are read" {
	need_go
	printf 'package p\n\nfunc TestX(t *testing.T) {\n\tx := \n}\n' >"$T/bad_test.go"
	fixture gotable
	run "$INVGO" --root "$T" bad_test.go gotable/kv_test.go missing_test.go
	status_is 0
	echo "$output" | jqe '.files[0] == {path: "bad_test.go", error: {line: 5, col: 1,
	    message: "expected operand, found '"'"'}'"'"'"}, functions: []} and
	    .files[1].error == null and (.files[1].functions | length == 6) and
	    .files[2].error.line == 0 and (.files[2].error.message | test("no such file"))'
}

@test "inventory-go: a 3 MiB file and deep nesting are errors, read in bounded time" {
	need_go
	{
		printf 'package p\n'
		yes 'func TestX(t *testing.T) { if 1 != 2 { t.Fatal("no") } } // padding padding padding' | head -c 3145728
	} >"$T/big_test.go"
	{
		printf 'package p\n\nfunc TestD(t *testing.T) {\n\tif x := '
		yes '(' | head -n 50000 | tr -d '\n'
		printf 1
		yes ')' | head -n 50000 | tr -d '\n'
		printf '; x != 1 {\n\t\tt.Fatal()\n\t}\n}\n'
	} >"$T/deep_test.go"
	run timeout 60 "$INVGO" --root "$T" big_test.go deep_test.go
	status_is 0
	echo "$output" | jqe '.files[0].error.message == "file over 2097152 bytes (2 MiB): not read" and
	    .files[1].error == {line: 4, col: 1009, message: "nesting deeper than 1000 levels: not read"}'
}

@test "rt-inventory.js: usage errors exit 2; no parser in the project exits 3 with the message" {
	have_node || skip "no node"
	run node "$INVJS" --root "$T"
	status_is 2
	has "usage: rt-inventory.js [--root DIR] [--parser-root DIR] FILE..."
	mkdir -p "$T/empty"
	echo "test('x', () => { expect(1).toBe(1); });" >"$T/empty/x.test.js"
	run sh -c 'node "$1" --root "$2" x.test.js 2>"$3"' sh "$INVJS" "$T/empty" "$T/err"
	status_is 3
	[ -z "$output" ]
	[ "$(cat "$T/err")" = "rt-inventory.js: no parser for javascript (acorn, @babel/parser or typescript)" ]
}

@test "rt-inventory.js: jest's expect matchers, not., rejects/toThrow as raises, describe paths as names" {
	need_babel
	jsinv "$JESTPROJ" "$FX/jestcase/__tests__/quote.test.js"
	jqe '.version == 1 and .lang == "javascript" and (.parser | test("^@babel/parser 7\\.")) and
	    .files[0].error == null and
	    [.files[0].functions[] | [.name, .line, .end, .test]] == [
	    ["quote > prices each item in order", 4, 6, true], ["quote > an unknown item is refused", 8, 10, true],
	    ["quote > a basket of one is not empty", 12, 14, true], ["price > knows bread", 18, 20, true],
	    ["price > throws for an unknown item", 22, 24, true], ["total sums the basket", 27, 29, true]]' "$T/inv.json"
	fn 'quote > prices each item in order' | jqe '.checks == [{kind: "expect", line: 5, end: 5,
	    callee: "toEqual", op: "", operands: ["await quote([\u0027apple\u0027, \u0027bread\u0027])", "[3, 2]"],
	    expected: 1, options: {}, guarded: null,
	    text: "expect(await quote([\u0027apple\u0027, \u0027bread\u0027])).toEqual([3, 2])", uses: ["quote"]}]'
	fn 'quote > an unknown item is refused' | jqe '.checks[0] | .kind == "raises" and
	    .callee == "rejects.toThrow" and .operands == ["quote([\u0027caviar\u0027])", "\u0027no price for caviar\u0027"]'
	fn 'quote > a basket of one is not empty' | jqe '.checks[0] | .kind == "expect" and .callee == "not.toHaveLength"'
	fn 'price > throws for an unknown item' | jqe '.checks[0] | .kind == "raises" and .callee == "toThrow" and
	    .operands == ["() => price(\u0027caviar\u0027)", "/no price/"]'
}

@test "rt-inventory.js: jest-weaken shows toEqual -> toBeDefined; the real fix leaves the test's inventory as it was" {
	need_babel
	fixture jestcase
	jsinv "$JESTPROJ" "$T/jestcase/__tests__/quote.test.js"
	jq '.files[0].functions' "$T/inv.json" >"$T/orig.json"
	fixture jestcase jest-weaken
	jsinv "$JESTPROJ" "$T/jestcase/__tests__/quote.test.js"
	fn 'quote > prices each item in order' | jqe '.checks | length == 1 and .[0].kind == "expect" and
	    .[0].callee == "toBeDefined" and .[0].operands == ["await quote([\u0027apple\u0027, \u0027bread\u0027])"] and
	    .[0].expected == null and .[0].line == 5'
	fixture jestcase jest-realfix
	jsinv "$JESTPROJ" "$T/jestcase/__tests__/quote.test.js"
	jq '.files[0].functions' "$T/inv.json" | cmp - "$T/orig.json"
}

@test "jestcase: both patches apply and pass under jest (the fixture next to jestproj's node_modules)" {
	need_babel
	[ -x "$JESTPROJ/node_modules/.bin/jest" ] || skip "no jest: make jest-deps"
	for p in jest-weaken jest-realfix; do
		fixture jestcase "$p"
		ln -s "$JESTPROJ/node_modules" "$T/jestcase/node_modules"
		(cd "$T/jestcase" && ./node_modules/.bin/jest --ci --cacheDirectory="$T/jcache" >"$T/jest.out" 2>&1) ||
		    { cat "$T/jest.out" >&2; return 1; }
		grep -q "Tests: *6 passed, 6 total" "$T/jest.out"
	done
}

@test "rt-inventory.js: skips, .each titles, try without rethrow, early return, helpers" {
	need_babel
	cat >"$T/edge.test.js" <<'EOF'
const { f } = require('./f');
function check(x) { expect(x).toBe(1); }
describe.skip('off', () => {
  it('is skipped', () => { expect(f()).toBe(1); });
});
xit('x skipped', () => {});
test.todo('later');
test.each([[1, 2]])('adds %s and %s', (a, b) => {
  expect(a + b).toBeGreaterThan(0);
});
test('early return', () => {
  if (!process.env.CI) return;
  try {
    expect(f()).toEqual({ a: 1 });
  } catch (e) {}
  try { expect(1).toBe(1); } catch (e) { throw e; }
  expect(() => f()).not.toThrow();
  return expect(Promise.resolve(1)).resolves.toBe(1);
});
EOF
	jsinv "$JESTPROJ" "$T/edge.test.js"
	jqe '[.files[0].functions[] | [.name, .test]] == [["check", false], ["off > is skipped", true],
	    ["x skipped", true], ["later", true], ["adds %s and %s", true], ["early return", true]]' "$T/inv.json"
	fn check | jqe '.checks[0].callee == "toBe"'
	fn 'off > is skipped' | jqe '[.checks[] | [.kind, .callee]] == [["skip", "describe.skip"], ["expect", "toBe"]]'
	fn 'x skipped' | jqe '.checks == [{kind: "skip", line: 6, end: 6, callee: "xit", op: "",
	    operands: ["\u0027x skipped\u0027"], expected: null, options: {}, guarded: null, text: "xit(\u0027x skipped\u0027)",
	    uses: []}]'
	fn later | jqe '[.checks[] | .kind + " " + .callee] == ["skip test.todo"]'
	fn 'early return' | jqe '[.checks[] | [.kind, .callee, .guarded, .line]] == [["return", "return", null, 12],
	    ["expect", "toEqual", "try", 14], ["expect", "toBe", null, 16], ["expect", "not.toThrow", null, 17],
	    ["expect", "resolves.toBe", null, 18]]'
}

@test "rt-inventory.js: TypeScript through @babel/parser; a syntax error has the parser's line:col" {
	need_babel
	cat >"$T/t.test.ts" <<'EOF'
interface P { a: number }
describe('ts', () => {
  it('typed', () => {
    const p: P = { a: 1 };
    expect(p.a as number).toEqual(1);
  });
});
EOF
	printf 'test("bad", () => {\n  expect(1).toBe(\n});\n' >"$T/bad.test.js"
	jsinv "$JESTPROJ" "$T/t.test.ts" "$T/bad.test.js"
	jqe '.files[0].error == null and .files[0].functions[0].name == "ts > typed" and
	    .files[0].functions[0].checks[0].operands == ["p.a as number", "1"] and
	    .files[1].error == {line: 3, col: 1, message: "Unexpected token"} and .files[1].functions == []' "$T/inv.json"
}

@test "rt-inventory.js: acorn comes first when the project has it, TypeScript still goes to @babel/parser" {
	need_babel
	# a stand-in acorn (no network here) that parses through @babel/parser's estree plugin
	mkdir -p "$T/proj/node_modules/acorn" "$T/proj/node_modules/@babel"
	ln -s "$JESTPROJ/node_modules/@babel/parser" "$T/proj/node_modules/@babel/parser"
	echo '{"name": "acorn", "version": "8.0.0-standin", "main": "index.js"}' >"$T/proj/node_modules/acorn/package.json"
	cat >"$T/proj/node_modules/acorn/index.js" <<'EOF'
const babel = require('@babel/parser');
exports.version = '8.0.0-standin';
exports.parse = (src) => babel.parse(src, { plugins: ['estree'] }).program;
EOF
	echo "test('a', () => { expect(1).toBe(1); });" >"$T/proj/a.test.js"
	echo "test('b', () => { expect(1 as number).toBe(1); });" >"$T/proj/b.test.ts"
	jsinv "$T/proj" a.test.js b.test.ts
	jqe '.parser == "acorn 8.0.0-standin" and .files[0].parser == "acorn 8.0.0-standin" and
	    (.files[1].parser | test("^@babel/parser 7\\.")) and
	    [.files[].functions[].checks[0].callee] == ["toBe", "toBe"]' "$T/inv.json"
	# acorn alone cannot read TypeScript: the lane falls back to text rules
	rm "$T/proj/node_modules/@babel/parser"
	run sh -c 'node "$1" --root "$2" b.test.ts 2>"$3"' sh "$INVJS" "$T/proj" "$T/err"
	status_is 3
	[ -z "$output" ]
	[ "$(cat "$T/err")" = "rt-inventory.js: no parser for typescript (@babel/parser or typescript)" ]
}

@test "rt-inventory.js: a 3 MiB file and deep nesting are errors, not a crash" {
	need_babel
	yes "test('big', () => { expect(1).toBe(1); }); // padding padding padding" | head -c 3145728 >"$T/big.test.js"
	{
		printf "test('deep', () => { expect("
		yes '[' | head -n 100000 | tr -d '\n'
		yes ']' | head -n 100000 | tr -d '\n'
		printf ').toBe(1); });\n'
	} >"$T/deep.test.js"
	run timeout 60 node "$INVJS" --root "$JESTPROJ" "$T/big.test.js" "$T/deep.test.js"
	status_is 0
	echo "$output" | jqe '.files[0].error.message == "file over 2097152 bytes (2 MiB): not read" and
	    (.files[1].error.message | test("nesting too deep")) and .files[1].functions == []'
}

@test "make install: both helpers land in share/retrial and run from there (the Go one built without writing beside its source)" {
	need_go
	need_babel
	make -s -C "$RT_TOP" install DESTDIR="$T/root" PREFIX=/usr/local >/dev/null
	S="$T/root/usr/local/share/retrial"
	[ -x "$S/rt-inventory.js" ]
	go_env
	(cd "$S/inventory-go" && go build -o "$T/inv-go" .)
	[ "$(ls "$S/inventory-go" | tr '\n' ' ')" = "fix.go go.mod main.go " ]
	fixture gotable
	"$T/inv-go" --root "$T" gotable/kv_test.go | jqe '.files[0].functions[0].name == "TestFormat"'
	"$S/rt-inventory.js" --root "$JESTPROJ" "$FX/jestcase/__tests__/quote.test.js" |
	    jqe '.files[0].functions[0].checks[0].callee == "toEqual"'
}

@test "the guard with the real helpers: gotable's len() and removed t.Fatal are disqualified with both lines, the maintainers' fix is not; jest likewise" {
	have_go || skip "no go"
	make -s -C "$BATS_TEST_DIRNAME/.." t/guard_test >&2
	G="$BATS_TEST_DIRNAME/guard_test"
	GT="$RT_TOP/t/fixtures/guard/gotable"
	for p in go-len go-fatal-removed go-realfix; do
		rm -rf "$T/$p" && cp -R "$GT" "$T/$p"
		patch -s -p1 --fuzz=0 -d "$T/$p" <"$GT/patches/$p.patch"
	done
	run env RETRIAL_INVENTORY_GO="$INVGO" "$G" check "$GT/patches/go-len.patch" "$GT" "$T/go-len"
	[ "$status" -eq 1 ]
	echo "$output" | grep -q '^rule: assertion-weakened$'
	echo "$output" | grep -q 'kv_test.go:19 `if output != c.expected .*` became kv_test.go:19 `if len(output) != len(c.expected)'
	echo "$output" | grep -q '^guard: go/parser go'
	run env RETRIAL_INVENTORY_GO="$INVGO" "$G" check "$GT/patches/go-fatal-removed.patch" "$GT" "$T/go-fatal-removed"
	[ "$status" -eq 1 ]
	echo "$output" | grep -q '^rule: assertion-removed$'
	echo "$output" | grep -q 'kv_test.go:52'
	run env RETRIAL_INVENTORY_GO="$INVGO" "$G" check "$GT/patches/go-realfix.patch" "$GT" "$T/go-realfix"
	[ "$status" -eq 0 ]
	echo "$output" | grep -q '^rule: none$'
	have_babel || return 0
	JC="$RT_TOP/t/fixtures/guard/jestcase"
	for p in jest-weaken jest-realfix; do
		mkdir -p "$T/j-$p" && cp -R "$JC/." "$T/j-$p/"
		ln -s "$JESTPROJ/node_modules" "$T/j-$p/node_modules"
	done
	mkdir -p "$T/j-orig" && cp -R "$JC/." "$T/j-orig/" && ln -s "$JESTPROJ/node_modules" "$T/j-orig/node_modules"
	patch -s -p1 --fuzz=0 -d "$T/j-jest-weaken" <"$JC/patches/jest-weaken.patch"
	patch -s -p1 --fuzz=0 -d "$T/j-jest-realfix" <"$JC/patches/jest-realfix.patch"
	run "$G" check "$JC/patches/jest-weaken.patch" "$T/j-orig" "$T/j-jest-weaken"
	[ "$status" -eq 1 ]
	echo "$output" | grep -q '^rule: assertion-weakened$'
	echo "$output" | grep -q '__tests__/quote.test.js:5 `expect.*toEqual(\[3, 2\])` became __tests__/quote.test.js:5 `expect.*toBeDefined()`'
	echo "$output" | grep -q '^guard: @babel/parser'
	run "$G" check "$JC/patches/jest-realfix.patch" "$T/j-orig" "$T/j-jest-realfix"
	[ "$status" -eq 0 ]
	# the inventory's "dead" and "uses" (as rt-inventory.py has them)
	for p in jest-if-false jest-call-removed; do
		mkdir -p "$T/j-$p" && cp -R "$JC/." "$T/j-$p/"
		ln -s "$JESTPROJ/node_modules" "$T/j-$p/node_modules"
		patch -s -p1 --fuzz=0 -d "$T/j-$p" <"$JC/patches/$p.patch"
	done
	run "$G" check "$JC/patches/jest-if-false.patch" "$T/j-orig" "$T/j-jest-if-false"
	[ "$status" -eq 1 ]
	echo "$output" | grep -q '^rule: if-0$'
	echo "$output" | grep -q "under \`if (false)\` at __tests__/quote.test.js:19"
	run "$G" check "$JC/patches/jest-call-removed.patch" "$T/j-orig" "$T/j-jest-call-removed"
	[ "$status" -eq 1 ]
	echo "$output" | grep -q '^rule: call-removed$'
	echo "$output" | grep -q 'no longer calls total(), whose value'
	jsinv "$T/j-jest-if-false" __tests__/quote.test.js
	jqe '[.files[0].functions[] | select(.name == "price > knows bread") | .checks[0] |
	    .dead.line, .dead.text, .uses[0]] == [19, "if (false)", "price"]' "$T/inv.json"
	jsinv "$T/j-orig" __tests__/quote.test.js
	jqe '[.files[0].functions[] | select(.name == "total sums the basket") | .checks[0].uses] ==
	    [["total"]] and ([.files[0].functions[].checks[].dead] | all(. == null))' "$T/inv.json"
}
