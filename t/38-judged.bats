#!/usr/bin/env bats
# The judged test (--case ID): rt-measure and rt-verify judge each trial
# by that test case's own outcome, from the runner's own report, while the
# command runs a whole file whose other tests fail on their own; and the
# ID an rt-audit finding names goes unchanged to rt-bisect and
# rt-verify --case. Real pytest (Debian python3-pytest).
load helper

PY=/usr/bin/python3
PYT="PYTHONDONTWRITEBYTECODE=1 $PY -m pytest -q -p no:cacheprovider -p no:random_order"

have_pytest() {
	[ -x "$PY" ] && "$PY" -c 'import pytest' 2>/dev/null
}

# a file whose test_broken always fails, test_flaky fails when
# RETRIAL_SEED % 4 == 0, and test_fine passes
setup() {
	mkdir -p "$T/py/tests"
	: >"$T/py/tests/__init__.py"
	cat >"$T/py/tests/test_shop.py" <<'PY'
import os


def test_broken():
    assert 1 + 1 == 3


def test_flaky():
    assert int(os.environ["RETRIAL_SEED"]) % 4 != 0


def test_fine():
    assert True
PY
}

@test "rt-measure --case: the judged test is FLAKY near 25% while another test of the file always fails" {
	have_pytest || skip "no Debian pytest"
	cd "$T/py"
	rt-measure -n 40 --seed 7 --facts "$T/facts" --case tests/test_shop.py::test_flaky \
		--cmd "$PYT tests/test_shop.py" >"$T/m.json" 2>"$T/err"
	# the seeds the trials got: how many the test should fail
	want=$(jq -s '[.[] | select((.seed | tonumber) % 4 == 0)] | length' "$T/facts")
	[ "$want" -gt 0 ] && [ "$want" -lt 40 ]
	jqe < "$T/m.json" --argjson k "$want" '.verdict == "FLAKY" and .case == "tests/test_shop.py::test_flaky" and
	    .failures == $k and .trials == 40 and .errors == 0 and .rate > 0.05 and .rate < 0.5'
	# every trial's exit status said fail; the judged outcome is the case's
	jqe -s < "$T/facts" 'all(.exit_outcome == "fail" and .case_judged == "tests/test_shop.py::test_flaky" and
	    (.others_failed | index("tests/test_shop.py::test_broken")) != null) and
	    all((.outcome == "fail") == ((.seed | tonumber) % 4 == 0))'
	# without --case, the command's exit status: every trial failed
	rt-measure -n 10 --cmd "$PYT tests/test_shop.py" 2>/dev/null | jqe '.failures == 10 and .case == null'
}

@test "rt-measure --case: a case the runner never reports is all errors, verdict ERROR, with the message" {
	have_pytest || skip "no Debian pytest"
	cd "$T/py"
	rt-measure -n 5 --case tests/test_shop.py::test_gone --cmd "$PYT tests/test_shop.py" >"$T/m.json" 2>"$T/err"
	jqe < "$T/m.json" '.verdict == "ERROR" and .errors == 5 and .trials == 0 and .case == "tests/test_shop.py::test_gone"'
	grep -q "5 of 5 trials were errors" "$T/err"
	grep -q "case tests/test_shop.py::test_gone did not run in trial 1 (the runner reported 3 cases)" "$T/err"
	run rt-measure --case "" --cmd true
	status_is 2
	has "rt-measure: --case: empty ID"
	run rt-measure --case x --by case /dev/null
	status_is 2
}

@test "rt-measure --case reading records: that case's records only, as --by case counts them" {
	have_pytest || skip "no Debian pytest"
	cd "$T/py"
	rt-collect -n 12 --seed 7 --junit --cmd "$PYT tests/test_shop.py --junitxml=\"\$RETRIAL_JUNIT\"" >"$T/recs" 2>/dev/null
	rt-measure --case tests/test_shop.py::test_flaky "$T/recs" >"$T/one.json"
	rt-measure --by case "$T/recs" | jq -c 'select(.case == "tests/test_shop.py::test_flaky")' >"$T/by.json"
	jqe -s < "$T/one.json" 'length == 1 and .[0].case == "tests/test_shop.py::test_flaky" and .[0].trials == 12'
	[ "$(jq -S 'del(.elapsed_s)' "$T/one.json")" = "$(jq -S 'del(.elapsed_s)' "$T/by.json")" ]
	rt-measure --case tests/test_shop.py::test_broken "$T/recs" | jqe '.failures == 12 and .trials == 12 '
	run rt-measure --case tests/test_shop.py::test_gone "$T/recs"
	status_is 2
	has "no records of case tests/test_shop.py::test_gone"
}

# a project whose test_flaky fails on every fourth seed through shop.pick,
# next to test_broken that always fails; fix.diff is the real fix
shop_project() {
	mkdir -p "$T/shop/tests"
	: >"$T/shop/tests/__init__.py"
	cat >"$T/shop/shop.py" <<'PY'
def pick(seed):
    # every fourth seed lands on the empty shelf
    if seed % 4 == 0:
        return []
    return [1]
PY
	cat >"$T/shop/tests/test_shop.py" <<'PY'
import os

from shop import pick


def test_broken():
    assert 1 + 1 == 3


def test_flaky():
    assert pick(int(os.environ["RETRIAL_SEED"])) == [1]


def test_fine():
    assert pick(1) == [1]
PY
	mkdir -p "$T/fixed"
	printf 'def pick(seed):\n    # the shelf is filled before any seed picks from it\n    return [1]\n' >"$T/fixed/shop.py"
	(cd "$T" && diff -u shop/shop.py fixed/shop.py) | sed '1s|^--- shop/|--- a/|; 2s|^+++ fixed/|+++ b/|' >"$T/fix.diff" || true
	jq -nc --rawfile p "$T/fix.diff" '{type: "hypothesis", id: "h-shelf", source: "cache", cause_class: "randomness",
	    explanation: "Never land on the empty shelf.", files: ["shop.py"], patch: $p}' >"$T/h.jsonl"
}

@test "rt-verify --case: baseline, lanes, canary and confirmations judged on the case; the canary in that test" {
	have_pytest || skip "no Debian pytest"
	shop_project
	rt-verify -C "$T/shop" -n 40 -N 300 --seed 3 --no-genome --case tests/test_shop.py::test_flaky \
		--events "$T/ev" --cmd "$PYT tests/test_shop.py" "$T/h.jsonl" >"$T/out" 2>"$T/err" || true
	tail -n 1 "$T/out" | jqe '.verdict == "FIXED" and .case == "tests/test_shop.py::test_flaky" and
	    .test == "tests/test_shop.py::test_flaky" and .winner.id == "h-shelf" and
	    .baseline.failures > 0 and .baseline.failures < .baseline.trials and .baseline.errors == 0'
	# the canary went into test_flaky (not test_broken, the first test), and was live
	tail -n 1 "$T/out" | jqe '.lanes[0].canary.placed == true and
	    .lanes[0].canary.verdict == "live" and (.lanes[0].canary.at | startswith("tests/test_shop.py:11: assert pick(int("))'
	# the lane trials passed: judged on the case, while test_broken failed in every one
	jqe -s < "$T/ev" '[.[] | select(.event == "trial" and .lane == "h-shelf")] | length > 0 and all(.outcome == "pass")'
}

@test "rt-verify without --case: the same command is judged by its exit status (test_broken fails it)" {
	have_pytest || skip "no Debian pytest"
	shop_project
	rt-verify -C "$T/shop" -n 10 --seed 3 --no-genome --no-canary \
		--cmd "$PYT tests/test_shop.py" "$T/h.jsonl" >"$T/out" 2>"$T/err" || true
	tail -n 1 "$T/out" | jqe '.verdict != "FIXED" and .case == null and .baseline.failures == .baseline.trials'
}

@test "rt-verify --case: a case the runner never reports is an ERROR naming it; a measure record of another case is refused" {
	have_pytest || skip "no Debian pytest"
	shop_project
	rt-verify -C "$T/shop" -n 5 --seed 3 --no-genome --case tests/test_shop.py::test_gone \
		--cmd "$PYT tests/test_shop.py" "$T/h.jsonl" >"$T/out" 2>"$T/err" || true
	tail -n 1 "$T/out" | jqe '.verdict == "ERROR" and .baseline.errors == 5 and
	    (.summary | contains("case tests/test_shop.py::test_gone did not run in trial 1 (the runner reported 3 cases)"))'
	echo '{"type":"measure","trials":40,"failures":10,"case":"tests/test_shop.py::test_fine"}' >"$T/m.jsonl"
	run rt-verify -C "$T/shop" --no-genome --case tests/test_shop.py::test_flaky --cmd "$PYT tests/test_shop.py" "$T/m.jsonl" "$T/h.jsonl"
	status_is 2
	has "a measure record of case tests/test_shop.py::test_fine, not of the judged case tests/test_shop.py::test_flaky"
	run rt-verify --case "" --cmd true
	status_is 2
	has "rt-verify: --case: empty ID"
}

G="${GUARD_TEST:-$BATS_TEST_DIRNAME/guard_test}"

@test "the canary of a judged case goes into exactly that test: a pytest function, a class's method, a Go test" {
	make -s -C "$BATS_TEST_DIRNAME/.." t/guard_test >&2
	mkdir -p "$T/g/tests" "$T/g/calc"
	cat >"$T/g/tests/test_two.py" <<'PY'
import unittest


def test_first():
    assert 1 == 1


class TestPair(unittest.TestCase):
    def test_a(self):
        self.assertEqual(2, 2)

    def test_b(self):
        self.assertEqual(3, 3)


def test_second():
    assert 2 == 2
PY
	cat >"$T/g/calc/add_test.go" <<'GO'
package calc

import "testing"

func TestOther(t *testing.T) {
	if 1 != 1 {
		t.Fatal("one")
	}
}

func TestAdd(t *testing.T) {
	t.Run("small", func(t *testing.T) {
		if 1+1 != 2 {
			t.Fatal("sum")
		}
	})
}
GO
	# the command runs the whole file: without a case, its first test
	cp -R "$T/g" "$T/c0"
	run "$G" canary "$T/c0" -c "pytest tests/test_two.py"
	has "placed: tests/test_two.py:5: assert 1 == 1"
	cp -R "$T/g" "$T/c1"
	run "$G" canary "$T/c1" -k tests/test_two.py::test_second
	has "placed: tests/test_two.py:17: assert 2 == 2"
	grep -q "^    assert not (2 == 2)" "$T/c1/tests/test_two.py"
	grep -q "^    assert 1 == 1" "$T/c1/tests/test_two.py"
	cp -R "$T/g" "$T/c2"
	run "$G" canary "$T/c2" -k "tests/test_two.py::TestPair::test_a"
	has "placed: tests/test_two.py:10: self.assertEqual(2, 2)"
	cp -R "$T/g" "$T/c3"
	run "$G" canary "$T/c3" -k example.com/m/calc::TestAdd/small
	has "placed: calc/add_test.go:13: if 1+1 != 2 {"
	# a unittest ID: the dotted name, in exactly that method
	cp -R "$T/g" "$T/c5"
	run "$G" canary "$T/c5" -k tests.test_two.TestPair.test_b
	has "placed: tests/test_two.py:13: self.assertEqual(3, 3)"
	grep -q "self.assertNotEqual(3, 3)" "$T/c5/tests/test_two.py"
	grep -q "self.assertEqual(2, 2)" "$T/c5/tests/test_two.py"
	cp -R "$T/g" "$T/c4"
	run "$G" canary "$T/c4" -k tests/test_two.py::test_gone
	has "not placed: case tests/test_two.py::test_gone: no such test in this tree"
}

@test "one ID from an rt-audit finding to rt-verify --case (FIXED) and rt-bisect -v, unchanged" {
	have_pytest || skip "no Debian pytest"
	shop_project
	cd "$T/shop"
	# the nightly run: the runner's own report, the audit's digest
	rt-collect -n 20 --seed 7 --junit --cmd "$PYT tests/test_shop.py --junitxml=\"\$RETRIAL_JUNIT\"" 2>/dev/null |
		rt-audit -H "$T/h.db" -r night1 --revision r1 --json "$T/d.json" >/dev/null
	ID=$(jq -r '.new_flaky[] | .case' "$T/d.json")
	[ "$ID" = "tests/test_shop.py::test_flaky" ]
	# the same string verifies the fix, judged on that case alone
	rt-verify -C "$T/shop" -n 40 -N 300 --seed 3 --no-genome --case "$ID" \
		--cmd "$PYT tests/test_shop.py" "$T/h.jsonl" >"$T/out" 2>"$T/err" || true
	tail -n 1 "$T/out" | jqe --arg id "$ID" '.verdict == "FIXED" and .case == $id and .winner.id == "h-shelf"'
	# and reaches the runner of rt-bisect as the same single word
	printf '%s\n' tests/test_shop.py::test_fine tests/test_shop.py::test_broken >"$T/cands"
	cat >"$T/stub" <<'SH'
#!/bin/sh
for a in "$@"; do printf '%s\n' "$a"; done >>"$STUB_LOG"
echo '---' >>"$STUB_LOG"
SH
	chmod +x "$T/stub"
	STUB_LOG="$T/argv" rt-bisect -v "$ID" -f "$T/cands" -n 3 --max-trials 20 --seed 1 \
		--env STUB_LOG="$T/argv" -- "$T/stub" {} >"$T/b.json" 2>"$T/berr" || true
	jqe --arg id "$ID" '.victim == $id' <"$T/b.json"
	# its first probe: the victim alone, its ID one argv word, unchanged
	[ "$(sed -n 1,2p "$T/argv")" = "$(printf '%s\n---' "$ID")" ]
}

@test "rt-measure --case: a go test subtest judged through go test -json while its table's other row fails" {
	command -v go >/dev/null 2>&1 || skip "no go"
	export GOCACHE="$BATS_RUN_TMPDIR/gocache" GOPATH="$T/gopath" GOPROXY=off GOTOOLCHAIN=local GOFLAGS=-mod=mod
	cp -R "$RT_TOP/t/fixtures/runners/gomod" "$T/go"
	cd "$T/go"
	sed -i 's/{"zero", 0, 0, 0}/{"zero", 0, 0, 1}/' calc/calc_test.go
	rt-measure -n 3 --case example.com/gomod/calc::TestAdd/small --facts "$T/facts" --cmd "go test ./calc" >"$T/m.json" 2>"$T/err"
	jqe < "$T/m.json" '.case == "example.com/gomod/calc::TestAdd/small" and .trials == 3 and .failures == 0 and .errors == 0'
	jqe -s < "$T/facts" 'all(.exit_outcome == "fail")'
	rt-measure -n 3 --case example.com/gomod/calc::TestAdd/zero --cmd "go test ./calc" 2>/dev/null |
		jqe '.failures == 3 and .trials == 3'
}

@test "rt-collect --case on unittest: no per-case report, an error that says to run it through pytest" {
	mkdir -p "$T/u/tests"
	: >"$T/u/tests/__init__.py"
	printf 'import unittest\nclass TestU(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(1, 1)\n' >"$T/u/tests/test_u.py"
	cd "$T/u"
	rt-collect -n 1 --case tests.test_u.TestU.test_a --cmd "/usr/bin/python3 -m unittest tests.test_u" >"$T/out" 2>"$T/err" || true
	jq -e -s '.[0].outcome == "error" and .[0].runner == "unittest" and (.[0].error | test("unittest writes no per-case report; run the tests through pytest"))' "$T/out"
}

@test "the canary inverts an assert over several lines, read by the parser, line numbers kept" {
	make -s -C "$BATS_TEST_DIRNAME/.." t/guard_test >&2
	mkdir -p "$T/m/tests"
	cat >"$T/m/tests/test_multi.py" <<'PY'
def test_other():
    assert 1 == 1


def test_multi():
    x = [1, 2]
    assert (
        x ==
        [1, 2]
    ), "lists differ"
    y = 3
PY
	run "$G" canary "$T/m" -k tests/test_multi.py::test_multi
	has "placed: tests/test_multi.py:7: assert ("
	[ "$(sed -n 7p "$T/m/tests/test_multi.py")" = '    assert not (( x == [1, 2] )), "lists differ"' ]
	[ -z "$(sed -n 8,10p "$T/m/tests/test_multi.py" | tr -d '\n')" ]
	[ "$(sed -n 11p "$T/m/tests/test_multi.py")" = "    y = 3" ]
	[ "$(sed -n 2p "$T/m/tests/test_multi.py")" = "    assert 1 == 1" ]
	if /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
		(cd "$T/m" && ! /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/test_multi.py::test_multi >/dev/null 2>&1)
	fi
}

@test "the canary picks from the test's own checks as the parser lists them: not one in a local helper the test never calls" {
	make -s -C "$BATS_TEST_DIRNAME/.." t/guard_test >&2
	mkdir -p "$T/n"
	cat >"$T/n/test_nested.py" <<'PY'
def test_a():
    assert 1 + 2 == 3

    def never_called():
        assert False, "not reached"


def test_b():
    def check(v):
        assert v > 0, "positive"
    check(3)
PY
	cp -R "$T/n" "$T/n1"
	run "$G" canary "$T/n1" -k test_nested.py::test_a
	has "placed: test_nested.py:2: assert 1 + 2 == 3"
	grep -q 'assert False, "not reached"' "$T/n1/test_nested.py"
	# a local helper the test calls: its check is the test's
	cp -R "$T/n" "$T/n2"
	run "$G" canary "$T/n2" -k test_nested.py::test_b
	has "placed: test_nested.py:10: assert v > 0"
}
