#!/usr/bin/env bats
# share/retrial/rt-ci-retry.sh: a job's failed tests rerun by rt-retry -r
# auto within their budgets, the gate on the reruns and the quarantine,
# the job recorded in the history and the quarantine rule acted on, on a
# real pytest suite whose flakiness is a counter file (no randomness).
load helper

PY=/usr/bin/python3
CI="$RT_TOP/share/retrial/rt-ci-retry.sh"
TOKEN=ghs_ciretryTOKEN0123456789

# test_flaky fails while its counter is below 2 (the job's attempt and the
# first rerun), then passes; test_broken fails while "break" exists;
# test_quarantined always fails and is on the list
project() {
	mkdir -p "$1/tests" "$1/.github"
	cat >"$1/tests/test_ci.py" <<'PYEOF'
import os
HERE = os.path.dirname(__file__)

def _bump(name):
    p = os.path.join(HERE, "..", name)
    n = int(open(p).read()) if os.path.exists(p) else 0
    open(p, "w").write(str(n + 1))
    return n

def test_flaky():
    assert _bump("flaky.count") >= 2, "the cache raced"

def test_broken():
    assert not os.path.exists(os.path.join(HERE, "..", "break")), "really broken"

def test_quarantined():
    assert False, "known flaky"

def test_ok():
    pass
PYEOF
	printf '* @lead\n' >"$1/.github/CODEOWNERS"
	(cd "$1" && git init -q . && rt-quarantine add tests/test_ci.py::test_quarantined --no-github >/dev/null)
}

# the job: the suite once (its counter reset), then the script on its report
job() {
	rm -f "$T/p/flaky.count"
	(cd "$T/p" && "$PY" -m pytest -q --junitxml=reports/junit.xml tests >/dev/null 2>&1) || true
	run env -C "$T/p" "$CI" "$@" reports/junit.xml
}

start_gh() {
	FAKE_GITHUB_TOKEN="$TOKEN" python3 "$RT_TOP/t/fake-github.py" --log "$T/gh.log" \
	    --mode ok >"$T/gh.port" 2>"$T/gh.err" 3>&- &
	echo $! >"$T/gh.pid"
	for _ in $(seq 200); do [ -s "$T/gh.port" ] && break; sleep 0.05; done
	export GITHUB_API_URL="http://127.0.0.1:$(head -1 "$T/gh.port")"
	touch "$T/gh.log"
}

setup() {
	project "$T/p"
	export RT_RETRY_CMD="$PY -m pytest -q \"\$1\""
	unset GITHUB_TOKEN GITHUB_REPOSITORY GITHUB_RUN_ID RETRIAL_CONFIG
}

teardown() {
	[ ! -f "$T/gh.pid" ] || kill "$(cat "$T/gh.pid")" 2>/dev/null || true
}

@test "rt-ci-retry: a failure its reruns show flaky passes as flaky, with every attempt in the JUnit; a quarantined failure never fails the job" {
	job --summary "$T/summary.md" --run ci:1
	status_is 0
	has "flaky: tests/test_ci.py::test_flaky: failed in the job; rerun 2 times, 1 failed, 1 passed (no history, the default budget 2)"
	has "quarantined: tests/test_ci.py::test_quarantined: failed in the job; rerun 3 times, 3 failed, 0 passed"
	has "gate: pass: 0 failed every attempt outside the quarantine (1 flaky, 1 quarantined)"
	hasnt "test_ok"
	# the JUnit: the flaky case's failed rerun as a flakyFailure, the
	# quarantined case's failure and its two rerun failures
	x="$T/p/retrial-retries.xml"
	run "$PY" - "$x" <<'PYEOF'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
cs = {c.get("name"): c for c in r.iter("testcase")}
assert sorted(cs) == ["tests/test_ci.py::test_flaky", "tests/test_ci.py::test_quarantined"], sorted(cs)
f = cs["tests/test_ci.py::test_flaky"]
assert len(f.findall("flakyFailure")) == 1 and f.find("failure") is None
assert "the cache raced" in f.find("flakyFailure").find("system-out").text
q = cs["tests/test_ci.py::test_quarantined"]
assert len(q.findall("failure")) == 1 and len(q.findall("rerunFailure")) == 2
print("ok")
PYEOF
	[ "$output" = ok ]
	grep -q "^\*\*gate: pass" "$T/summary.md"
	grep -q "^- flaky: tests/test_ci.py::test_flaky" "$T/summary.md"
	# the job's own attempts in the history, one run: not the reruns
	[ "$(sqlite3 "$T/p/.retrial/audit.db" "SELECT group_concat(DISTINCT run), count(*) FROM results WHERE case_id = 'tests/test_ci.py::test_flaky'")" = "ci:1|1" ]
}

@test "rt-ci-retry: a test not on the list that fails every attempt fails the job (exit 1)" {
	touch "$T/p/break"
	job --run ci:2 --no-audit
	status_is 1
	has "failed: tests/test_ci.py::test_broken: failed in the job; rerun 3 times, 3 failed, 0 passed (no history, the default budget 2)"
	has "flaky: tests/test_ci.py::test_flaky"
	has "gate: FAIL: 1 failed every attempt outside the quarantine (1 flaky, 1 quarantined)"
	grep -q 'name="tests/test_ci.py::test_broken"' "$T/p/retrial-retries.xml"
	# --no-audit: nothing recorded, nothing added
	[ ! -e "$T/p/.retrial/audit.db" ]
	[ "$(grep -vc '^#' "$T/p/.retrial/quarantine")" -eq 1 ]
	# -n 0: no rerun at all, so the flaky failure stands too
	job --no-audit -n 0
	status_is 1
	has "failed: tests/test_ci.py::test_flaky: failed in the job; rerun 1 times, 1 failed, 0 passed (no history, the default budget 0)"
}

@test "rt-ci-retry: the budget is rt-plan --policy's for the rate in the history, capped by --max-retries; .retrial.yml's retries is the default" {
	# ten earlier runs: test_flaky failed in 3
	for i in $(seq 10); do
		o=pass
		[ "$i" -gt 3 ] || o=fail
		jq -nc --arg o "$o" --arg r "old:$i" '{type: "trial", case: "tests/test_ci.py::test_flaky", outcome: $o, run: $r}'
	done >"$T/old.jsonl"
	(cd "$T/p" && rt-audit -H .retrial/audit.db --md /dev/null "$T/old.jsonl" >/dev/null)
	want=$(echo '{"type":"measure","trials":10,"failures":3}' | rt-plan --policy | jq .retry_budget)
	[ "$want" -ge 5 ]
	job --no-audit
	status_is 0
	has "flaky: tests/test_ci.py::test_flaky: failed in the job; rerun 2 times, 1 failed, 1 passed (3/10 failed in the last runs, rt-plan's budget $want)"
	job --no-audit -m 4
	has "(3/10 failed in the last runs, rt-plan's budget $want, capped at 4)"
	# a test with no rate takes .retrial.yml's retries; the command line wins
	echo "retries: 1" >"$T/p/.retrial.yml"
	job --no-audit
	has "quarantined: tests/test_ci.py::test_quarantined: failed in the job; rerun 2 times, 2 failed, 0 passed (no history, the default budget 1)"
	job --no-audit -n 3
	has "rerun 4 times, 4 failed, 0 passed (no history, the default budget 3)"
}

@test "rt-ci-retry: when rt-audit's quarantine rule fires, the test goes on the list with its issue; from the next run it is quarantined" {
	start_gh
	export GITHUB_TOKEN="$TOKEN" GITHUB_REPOSITORY=acme/cache
	job --run ci:1
	status_is 0
	hasnt "added:"
	job --run ci:2
	status_is 0
	hasnt "$TOKEN"
	has "added: tests/test_ci.py::test_flaky"
	has "issue: #1 "
	grep -q "^tests/test_ci.py::test_flaky	owner=@lead	.*	issue=[^	]*/acme/cache/issues/1	reason=rt-audit: 2/2 failed" "$T/p/.retrial/quarantine"
	[ "$(jq -s '[.[] | select(.method == "POST" and .path == "/repos/acme/cache/issues")] | length' "$T/gh.log")" -eq 1 ]
	# the next run: on the list, so neither flaky nor added again
	job --run ci:3
	status_is 0
	has "quarantined: tests/test_ci.py::test_flaky"
	hasnt "added:"
	[ "$(jq -s '[.[] | select(.method == "POST" and .path == "/repos/acme/cache/issues")] | length' "$T/gh.log")" -eq 1 ]
	# --no-quarantine records but adds nothing
	rm "$T/p/.retrial/quarantine"
	job --run ci:4 --no-quarantine
	hasnt "added:"
	[ ! -e "$T/p/.retrial/quarantine" ]
}

@test "rt-ci-retry: a test name reaches the command as one argv word, never a shell line" {
	mkdir -p "$T/p/reports"
	cat >"$T/p/reports/hostile.xml" <<'EOF'
<testsuite name="s"><testcase classname="c" name="t$(touch pwned);`touch pwned2`">
<failure message="x">x</failure></testcase></testsuite>
EOF
	run env -C "$T/p" RT_RETRY_CMD='printf "%s\n" "$1" >>seen; exit 1' "$CI" --no-audit reports/hostile.xml
	status_is 1
	[ ! -e "$T/p/pwned" ] && [ ! -e "$T/p/pwned2" ]
	[ "$(sort -u "$T/p/seen")" = 'c::t$(touch pwned);`touch pwned2`' ]
	has 'failed: c::t$(touch pwned);`touch pwned2`: failed in the job; rerun 3 times'
}

@test "rt-ci-retry: no command, no report, a missing report, a command that cannot run, a bad number: exit 2 with one line" {
	run env -C "$T/p" -u RT_RETRY_CMD "$CI" reports/junit.xml
	status_is 2
	[ "$output" = "rt-ci-retry.sh: no command to rerun a case (give -c CMD or set RT_RETRY_CMD)" ]
	run env -C "$T/p" "$CI"
	status_is 2
	has "rt-ci-retry.sh: no report given"
	run env -C "$T/p" "$CI" nothere.xml
	status_is 2
	[ "$output" = "rt-ci-retry.sh: nothere.xml: no such report" ]
	run env -C "$T/p" "$CI" -m x nothere.xml
	status_is 2
	[ "$output" = "rt-ci-retry.sh: --max-retries x: must be a whole number" ]
	job --no-audit -c "/nonexistent/runner \"\$1\""
	status_is 2
	has "could not be rerun"
	has "error: tests/test_ci.py::test_flaky"
}
