#!/usr/bin/env bats
# The runner adapters (lib/rt_runner): a test the runner says did not run
# is an error with the runner's reason, never a failure and never a pass,
# on real projects run by the real runners (pytest, unittest, python,
# go test). t/fixtures/runners/README says what each project holds.
load helper

R="$RT_TOP/t/fixtures/runners"
PY=/usr/bin/python3
PYT="PYTHONDONTWRITEBYTECODE=1 $PY -m pytest -q -p no:cacheprovider -p no:random_order"

have_pytest() {
	[ -x "$PY" ] && "$PY" -c 'import pytest' 2>/dev/null
}

have_go() {
	command -v go >/dev/null 2>&1
}

setup() {
	cp -R "$R/pyproj" "$T/py"
}

# one trial record; the error warnings on stderr go to $T/err
collect1() {
	rt-collect -n 1 "$@" 2>"$T/err"
}

go_env() {
	export GOCACHE="$BATS_RUN_TMPDIR/gocache" GOPATH="$T/gopath" GOPROXY=off GOTOOLCHAIN=local GOFLAGS=-mod=mod
}

@test "--runner: an unknown name is a usage error listing the runners, in every tool that runs trials" {
	for tool in rt-measure rt-collect rt-retry rt-matrix rt-verify; do
		run "$tool" --runner nose --cmd true
		status_is 2
		has "$tool: --runner nose: unknown runner (want one of: pytest, unittest, python, go, jest, vitest, mocha, rspec, script, generic)"
	done
}

@test "--runner: in --help and the man page" {
	run rt-measure --help
	has "--runner NAME"
	run man -l "$RT_TOP/man/man1/rt-collect.1"
	has "runner"
}

@test "pytest: a missing test file is ERROR with pytest's message, not ALWAYS_FAILING" {
	have_pytest || skip "no Debian pytest"
	cd "$T/py"
	rt-measure -n 30 --cmd "$PYT tests/test_gone.py" >"$T/m.json" 2>"$T/err"
	grep -q "30 of 30 trials were errors" "$T/err"
	jqe < "$T/m.json" '.verdict == "ERROR" and .errors == 30 and .failures == 0 and .trials == 0'
	run collect1 --cmd "$PYT tests/test_gone.py"
	echo "$output" | jqe '.outcome == "error" and .runner == "pytest" and .exit_code == 4 and
	    (.error | startswith("pytest exit 4 (usage error): ERROR: file or directory not found: tests/test_gone.py"))'
}

@test "python: a script run from the wrong directory is ERROR (can't open file), not ALWAYS_FAILING" {
	have_pytest || skip "no Debian python3"
	cd "$T"
	run rt-measure -n 29 --text --cmd "$PY test_cache.py"
	has "ERROR"
	hasnt "ALWAYS_FAILING"
	has "python could not open the test file"
	run collect1 --cmd "$PY test_cache.py"
	echo "$output" | jqe '.outcome == "error" and .runner == "python"'
	# the same script from its own directory runs, and its outcome counts
	cd "$EX/timing"
	run collect1 --cmd "$PY test_cache.py"
	echo "$output" | jqe '.runner == "python" and (.outcome == "pass" or .outcome == "fail")'
}

@test "pytest: a collection error (exit 2) and a -k that selects nothing (exit 5) are errors" {
	have_pytest || skip "no Debian pytest"
	cd "$T/py"
	printf 'def test_x(:\n    pass\n' > tests/test_broken.py
	run collect1 --cmd "$PYT tests/test_broken.py"
	echo "$output" | jqe '.outcome == "error" and .exit_code == 2 and
	    (.error | startswith("pytest exit 2 (interrupted: the tests did not run)"))'
	rm tests/test_broken.py
	run collect1 --cmd "$PYT -k no_such_test tests/test_cart.py"
	echo "$output" | jqe '.outcome == "error" and .exit_code == 5 and
	    (.error | startswith("pytest exit 5 (no tests collected)"))'
}

@test "pytest: a real failure is still a failure, a pass a pass" {
	have_pytest || skip "no Debian pytest"
	cd "$T/py"
	run collect1 --cmd "$PYT tests/test_cart.py"
	echo "$output" | jqe '.outcome == "pass" and .runner == "pytest"'
	sed -i 's/== 10/== 11/' tests/test_cart.py
	run collect1 --cmd "$PYT tests/test_cart.py"
	echo "$output" | jqe '.outcome == "fail" and .exit_code == 1 and (has("error") | not)'
}

@test "--runner generic: exit status only, and the record says so" {
	have_pytest || skip "no Debian pytest"
	cd "$T/py"
	run collect1 --runner generic --cmd "$PYT tests/test_gone.py"
	echo "$output" | jqe '.outcome == "fail" and .runner == "generic" and .exit_code == 4'
	run collect1 --cmd "sh -c 'exit 4'"
	echo "$output" | jqe '.outcome == "fail" and .runner == "generic"'
}

@test "unittest: a test module that cannot be imported is an error; its failures count" {
	have_pytest || skip "no Debian python3"
	cd "$T/py"
	run collect1 --cmd "PYTHONDONTWRITEBYTECODE=1 $PY -m unittest tests.test_nothere"
	echo "$output" | jqe '.outcome == "error" and .runner == "unittest" and
	    (.error | startswith("the test module could not be imported"))'
	run collect1 --cmd "PYTHONDONTWRITEBYTECODE=1 $PY -m unittest tests.test_cart"
	echo "$output" | jqe '.outcome == "pass" and .runner == "unittest"'
	sed -i 's/, 17)/, 18)/' tests/test_cart.py
	run collect1 --cmd "PYTHONDONTWRITEBYTECODE=1 $PY -m unittest tests.test_cart"
	echo "$output" | jqe '.outcome == "fail"'
}

@test "the runner is found behind wrappers and assignments, and the first segment that names one wins" {
	have_pytest || skip "no Debian pytest"
	cd "$T/py"
	run collect1 --cmd "cd . && env X=1 timeout 60 $PYT tests/test_gone.py"
	echo "$output" | jqe '.runner == "pytest" and .outcome == "error"'
	run collect1 -- env PYTHONDONTWRITEBYTECODE=1 "$PY" -m pytest -q -p no:cacheprovider tests/test_gone.py
	echo "$output" | jqe '.runner == "pytest" and .outcome == "error"'
}

@test "go test: a table test runs; a build failure, no test files and -run matching nothing are errors" {
	have_go || skip "no go"
	go_env
	cp -R "$R/gomod" "$T/go"
	cd "$T/go"
	run collect1 --cmd "go test ./..."
	echo "$output" | jqe '.outcome == "pass" and .runner == "go"'
	run collect1 --cmd "go test -json ./..."
	echo "$output" | jqe '.outcome == "pass" and .runner == "go"'
	# -run that matches nothing exits 0: "no tests to run" is not a pass
	run collect1 --cmd "go test -run TestNothing ./calc"
	echo "$output" | jqe '.outcome == "error" and .exit_code == 0 and (.error | startswith("go test ran no tests"))'
	mkdir empty && echo 'package empty' > empty/e.go
	run collect1 --cmd "go test ./empty"
	echo "$output" | jqe '.outcome == "error" and (.error | contains("no test files"))'
	echo 'func broken( {' >> calc/calc.go
	run collect1 --cmd "go test ./calc"
	echo "$output" | jqe '.outcome == "error" and (.error | startswith("go test: the package did not build"))'
	# a failing subtest is a failure
	cp "$R/gomod/calc/calc.go" calc/calc.go
	sed -i 's/{"zero", 0, 0, 0}/{"zero", 0, 0, 1}/' calc/calc_test.go
	run collect1 --cmd "go test ./calc"
	echo "$output" | jqe '.outcome == "fail" and .exit_code == 1'
}

@test "rt-junit reads go test -json: a table test's subtests as PKG::Test/sub, the failing one's message" {
	have_go || skip "no go"
	go_env
	cp -R "$R/gomod" "$T/go"
	cd "$T/go"
	sed -i 's/{"zero", 0, 0, 0}/{"zero", 0, 0, 1}/' calc/calc_test.go
	go test -json -count=3 ./... > "$T/go.json" || true
	run rt-junit "$T/go.json"
	status_is 0
	echo "$output" | jqe -s 'length == 12 and
	    (map(.case) | unique) == ["example.com/gomod/calc::TestAdd", "example.com/gomod/calc::TestAdd/negative",
	      "example.com/gomod/calc::TestAdd/small", "example.com/gomod/calc::TestAdd/zero"] and
	    (map(select(.case == "example.com/gomod/calc::TestAdd/zero")) | all(.outcome == "fail" and
	      .message == "Add(0, 0) = 0, want 1" and .source == "go test -json") and (map(.repeat) == [1, 2, 3]) and all(.attempt == 1)) and
	    (map(select(.case == "example.com/gomod/calc::TestAdd/small")) | all(.outcome == "pass"))'
	run sh -c 'rt-junit "$1" | rt-measure --by case' sh "$T/go.json"
	echo "$output" | jqe -s 'map(select(.case == "example.com/gomod/calc::TestAdd/zero"))[0] | .failures == 3 and .trials == 3'
}

@test "rt-junit reads go test -json: a build failure is one error record, a panic a failure, a cut stream a failure" {
	have_go || skip "no go"
	go_env
	cp -R "$R/gomod" "$T/go"
	cd "$T/go"
	echo 'func broken( {' >> calc/calc.go
	go test -json ./... > "$T/build.json" 2>/dev/null || true
	run rt-junit "$T/build.json"
	status_is 0
	echo "$output" | jqe -s 'length == 1 and .[0].case == "example.com/gomod/calc" and .[0].outcome == "error" and
	    .[0].message == "the package did not build"'
	cp "$R/gomod/calc/calc.go" calc/calc.go
	printf 'package calc\nimport "testing"\nfunc TestPanics(t *testing.T) {\n\tvar m map[string]int\n\tm["x"] = 1\n}\n' > calc/panic_test.go
	go test -json ./... > "$T/panic.json" 2>/dev/null || true
	run rt-junit "$T/panic.json"
	echo "$output" | jqe -s 'map(select(.case == "example.com/gomod/calc::TestPanics"))[0] |
	    .outcome == "fail" and (.message | startswith("panic: assignment to entry in nil map"))'
	# killed mid-run: the last test started and never ended
	grep -v '"Action":"pass"' "$T/panic.json" | grep -v '"Action":"fail"' > "$T/cut.json"
	run rt-junit "$T/cut.json"
	echo "$output" | jqe -s 'all(.outcome == "fail" and .message == "the test did not finish (the stream ended)")'
}

@test "rt-junit: input that is neither JUnit XML nor go test -json names the file and line" {
	printf 'hello\nworld\n' > "$T/x.txt"
	run rt-junit "$T/x.txt"
	status_is 2
	has "rt-junit: $T/x.txt:2: neither JUnit XML"
}

@test "go test under rt-verify's sandbox: a fresh HOME (no build cache) still runs, and a real fix is FIXED" {
	have_go || skip "no go"
	command -v bwrap >/dev/null || skip "no bwrap"
	export GOPROXY=off GOTOOLCHAIN=local GOFLAGS=-mod=mod
	unset GOCACHE GOPATH RETRIAL_HELPER_CACHE
	# a fresh machine: nothing cached under a HOME the sandbox makes read-only
	mkdir -p "$T/home"
	export HOME="$T/home" XDG_CACHE_HOME="$T/home/.cache"
	cp -R "$R/gomod" "$T/go"
	cat >"$T/go/calc/seed_test.go" <<'GO'
package calc

import (
	"os"
	"strconv"
	"testing"
)

// TestSeeded fails for one seed in four: a stand-in for a real flake.
func TestSeeded(t *testing.T) {
	seed, _ := strconv.ParseUint(os.Getenv("RETRIAL_SEED"), 10, 64)
	if seed%4 == 0 {
		t.Fatalf("unlucky seed %d", seed)
	}
}
GO
	mkdir -p "$T/fixed/calc"
	sed 's/^\(\tseed, _ := .*\)$/\1\n\tseed |= 1 \/\/ the runner hands out odd seeds only/' "$T/go/calc/seed_test.go" >"$T/fixed/calc/seed_test.go"
	(cd "$T" && diff -u go/calc/seed_test.go fixed/calc/seed_test.go) | sed '1s|^--- go/|--- a/|; 2s|^+++ fixed/|+++ b/|' >"$T/fix.diff" || true
	jq -nc --rawfile p "$T/fix.diff" '{type: "hypothesis", id: "h-go", source: "cache", cause_class: "randomness",
	    explanation: "Drop the unlucky branch.", files: ["calc/seed_test.go"], patch: $p}' >"$T/h.jsonl"
	rt-verify -C "$T/go" -n 40 -N 300 --seed 3 --no-genome --no-canary --allow expected-value-changed \
		--cmd "go test -run TestSeeded ./calc" "$T/h.jsonl" >"$T/out" 2>"$T/err" || true
	tail -n 1 "$T/out" | jqe '.sandbox == "bwrap" and .baseline.errors == 0 and .baseline.failures > 0 and
	    .verdict == "FIXED" and .winner.id == "h-go"'
	[ ! -e "$T/home/.cache/go-build" ]
}

@test "rt-collect --case: the judged test's own outcome, while another test of the command fails on its own" {
	have_pytest || skip "no Debian pytest"
	cd "$T/py"
	# test_apple fails every time; the judged test_pear passes
	sed -i 's/== 10/== 11/' tests/test_cart.py
	run collect1 --case tests/test_cart.py::test_pear --cmd "$PYT tests/test_cart.py"
	echo "$output" | jq -c 'select(.case == null)' | jqe '.outcome == "pass" and .exit_code == 1 and
	    .exit_outcome == "fail" and .case_judged == "tests/test_cart.py::test_pear" and
	    .others_failed == ["tests/test_cart.py::test_apple"]'
	# pytest's own IDs, asked for by retrial (no --junitxml in the command)
	echo "$output" | jq -c 'select(.case != null)' | jqe -s 'map(.case) | sort ==
	    ["tests/test_cart.py::TestCart::test_total", "tests/test_cart.py::test_apple", "tests/test_cart.py::test_pear"]'
	run collect1 --case tests/test_cart.py::test_apple --cmd "$PYT tests/test_cart.py"
	echo "$output" | jq -c 'select(.case == null)' | jqe '.outcome == "fail" and .others_failed == []'
}

@test "rt-collect --case: a case the runner never reports is an error naming how many it did" {
	have_pytest || skip "no Debian pytest"
	cd "$T/py"
	run collect1 --case tests/test_cart.py::test_plum --cmd "$PYT tests/test_cart.py"
	echo "$output" | jq -c 'select(.case == null)' | jqe '.outcome == "error" and
	    .error == "case tests/test_cart.py::test_plum did not run in trial 1 (the runner reported 3 cases)"'
	run rt-collect --case "" --cmd true
	status_is 2
}

@test "rt-collect --case: go test's subtest judged through go test -json, asked for by retrial" {
	have_go || skip "no go"
	go_env
	cp -R "$R/gomod" "$T/go"
	cd "$T/go"
	sed -i 's/{"zero", 0, 0, 0}/{"zero", 0, 0, 1}/' calc/calc_test.go
	run collect1 --case example.com/gomod/calc::TestAdd/small --cmd "go test ./calc"
	echo "$output" | jq -c 'select(.case == null)' | jqe '.outcome == "pass" and .exit_code == 1 and
	    (.others_failed | sort) == ["example.com/gomod/calc::TestAdd", "example.com/gomod/calc::TestAdd/zero"]'
	run collect1 --case example.com/gomod/calc::TestAdd/zero --cmd "go test ./calc"
	echo "$output" | jq -c 'select(.case == null)' | jqe '.outcome == "fail"'
}

@test "rt_runner_selections: each runner's options and their values are never read as selections" {
	make -s -C "$BATS_TEST_DIRNAME/.." t/runner_test >&2
	run "$BATS_TEST_DIRNAME/runner_test" select "cd x && PYTHONHASHSEED=0 python3 -m pytest -p no:cacheprovider -k 'not slow' --junitxml r.xml -m net tests/ t.py::C::test_x; go test -count 1 -shuffle on -run 'TestA/b' ./pkg/...; python -m unittest -k x pkg.mod.C.t; tox -e py -- tests/y.py::t; python3 t.py; python -m unittest discover -s tests"
	[ "$status" -eq 0 ]
	[ "$output" = "1 pytest k not slow
1 pytest path tests/
1 pytest node t.py::C::test_x
2 go gorun TestA/b
2 go gopkg ./pkg/...
3 unittest dotted pkg.mod.C.t
4 pytest node tests/y.py::t
5 python path t.py
6 unittest discover discover" ]
	# no runner, nothing selected
	run "$BATS_TEST_DIRNAME/runner_test" select "make test"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
}
