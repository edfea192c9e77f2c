#!/usr/bin/env bats
# t/49-ci-loop.bats: the CI loop closed (issue 36, Proof): the action's
# script (share/retrial/github-action.sh, mode retry) with a fake GITHUB_*
# environment and the loopback GitHub, over six CI runs of a real pytest
# suite and a real go test -json suite in a two-leg matrix (leg 0 pytest,
# leg 1 go). A new flaky test is retried within its budget and passes the
# gate as flaky, is quarantined with an issue on the run the rule fires,
# and is released on proof later; a real failure fails the job; the legs'
# histories stay apart and merge into one. Flakiness is a counter file
# (t/fixtures/ciloop/README), never chance.
load helper

PY=/usr/bin/python3
ACT="$RT_TOP/share/retrial/github-action.sh"
TOKEN=ghs_ciloopTOKEN0123456789
FX="$RT_TOP/t/fixtures/ciloop"

have_go() { command -v go >/dev/null 2>&1; }

start_gh() {
	FAKE_GITHUB_TOKEN="$TOKEN" python3 "$RT_TOP/t/fake-github.py" --log "$T/gh.log" \
	    --mode ok "$@" >"$T/gh.port" 2>"$T/gh.err" 3>&- &
	echo $! >"$T/gh.pid"
	for _ in $(seq 200); do [ -s "$T/gh.port" ] && break; sleep 0.05; done
	export GITHUB_API_URL="http://127.0.0.1:$(head -1 "$T/gh.port")"
	touch "$T/gh.log"
}

# a leg's checkout: the fixture as a git project with CODEOWNERS; the list
# the action edits stays in it from run to run (as if each run's change to
# .retrial/quarantine were committed)
checkout() {
	mkdir -p "$T/$1"
	cp -R "$FX/$2/." "$T/$1/"
	mkdir -p "$T/$1/.github" "$T/$1/state"
	printf '* @lead\n' >"$T/$1/.github/CODEOWNERS"
	git -C "$T/$1" init -q .
}

setup() {
	export TZ=UTC RT_BIN="$RT_TOP/bin" PYTHONDONTWRITEBYTECODE=1
	export GOCACHE="$T/gocache" GOPATH="$T/gopath" GOPROXY=off GOTOOLCHAIN=local GOFLAGS=-mod=mod
	export GITHUB_REPOSITORY=acme/cache GITHUB_RUN_ATTEMPT=1 GITHUB_JOB=test
	export GITHUB_EVENT_NAME=push RT_MODE=retry
	unset GITHUB_EVENT_PATH GITHUB_TOKEN GITHUB_STEP_SUMMARY
}

teardown() {
	[ ! -f "$T/gh.pid" ] || kill "$(cat "$T/gh.pid")" 2>/dev/null || true
}

# job LEG RUN FAILS [break]: one leg's job of CI run RUN: the suite once
# (the new test failing its first FAILS executions; "break" breaks
# test_broken), then the action's script on its report, the leg's history
# restored from and saved to its own cache directory ($T/cache/LEG, as
# the cache key carries the leg)
job() {
	local leg=$1 id=$2 fails=$3 dir
	if [ "$leg" = 0 ]; then dir=$T/py; else dir=$T/go; fi
	echo "$fails" >"$dir/state/fails"
	rm -f "$dir/state/count" "$dir/state/break"
	[ "${4:-}" != break ] || touch "$dir/state/break"
	mkdir -p "$dir/reports" "$T/cache/$leg" "$T/tmp-$leg-$id"
	rm -f "$dir/reports/"*
	if [ "$leg" = 0 ]; then
		(cd "$dir" && "$PY" -m pytest -q -p no:randomly -p no:random_order --junitxml=reports/junit.xml tests \
		    >/dev/null 2>&1) || true
		cmd="$PY -m pytest -q -p no:randomly -p no:random_order \"\$1\""
	else
		(cd "$dir" && go test -json -count=1 ./... >reports/go-test.json 2>/dev/null) || true
		# the case is PACKAGE::TestName: both halves quoted, never spliced
		cmd='go test -count=1 -run "^${1##*::}\$" "${1%%::*}"'
	fi
	run env -C "$dir" GITHUB_RUN_ID="$id" RT_LEG="$leg" RT_JUNIT="reports/*" \
	    RT_HISTORY="$T/cache/$leg/audit.db" RT_RETRY_CMD="$cmd" \
	    RUNNER_TEMP="$T/tmp-$leg-$id" GITHUB_OUTPUT="$T/out-$leg-$id" \
	    GITHUB_STEP_SUMMARY="$T/summary-$leg-$id.md" "$ACT"
}

# the new test's ID in each leg
nid() { if [ "$1" = 0 ]; then echo tests/test_store.py::test_new_flaky; else echo example.com/ciloop/store::TestNewFlaky; fi; }
bid() { if [ "$1" = 0 ]; then echo tests/test_store.py::test_broken; else echo example.com/ciloop/store::TestBroken; fi; }

@test "the CI loop: six runs of a pytest leg and a go test -json leg: retried within budget, flaky passes, quarantined with an issue when the rule fires, a real failure fails, released on proof" {
	have_go || skip "no go"
	checkout py py
	checkout go go
	start_gh
	export GITHUB_TOKEN="$TOKEN"
	for leg in 0 1; do
		new=$(nid "$leg") broken=$(bid "$leg")
		# run 1: the new test fails once in the job; its rerun passes,
		# within the default budget (no history yet): flaky, the gate passes
		job "$leg" 101 1
		status_is 0
		has "flaky: $new: failed in the job; rerun 1 times, 0 failed, 1 passed (no history, the default budget 2)"
		has "gate: pass: 0 failed every attempt outside the quarantine (1 flaky, 0 quarantined)"
		hasnt "added:"
		grep -qx "gate=pass" "$T/out-$leg-101"
		grep -q "^- flaky: $new" "$T/summary-$leg-101.md"
		# every attempt in the reruns' JUnit
		grep -q "name=\"$new\"" "$T/tmp-$leg-101/retrial-retries.xml"
		# run 2: it fails twice (the job and the first rerun), passes on
		# the second rerun: the whole budget, no more; flaky again, and
		# rt-audit's rule fires (2 of 2 runs failed): on the list, with
		# its issue on the loopback GitHub
		job "$leg" 102 2
		status_is 0
		has "flaky: $new: failed in the job; rerun 2 times, 1 failed, 1 passed"
		has "added: $new"
		has "issue: #"
		hasnt "$TOKEN"
		grep -q "^$new	owner=@lead	.*	issue=[^	]*/acme/cache/issues/[0-9]*	reason=rt-audit: 2/2 failed" \
		    "$T/$( [ "$leg" = 0 ] && echo py || echo go)/.retrial/quarantine"
		# run 3: it fails every attempt, but it is quarantined: no gate
		job "$leg" 103 9
		status_is 0
		has "quarantined: $new: failed in the job; rerun 3 times, 3 failed, 0 passed"
		hasnt "added:"
		# runs 4 and 5: fixed, nothing rerun
		job "$leg" 104 0
		status_is 0
		has "gate: pass: 0 failed every attempt outside the quarantine (0 flaky, 0 quarantined)"
		job "$leg" 105 0
		status_is 0
		# run 6: a real failure, every attempt: the job fails
		job "$leg" 106 0 break
		status_is 1
		has "failed: $broken: failed in the job; rerun 3 times, 3 failed, 0 passed (0/5 failed in the last runs (no rate to plan from), the default budget 2)"
		has "gate: FAIL: 1 failed every attempt outside the quarantine"
		grep -qx "gate=fail" "$T/out-$leg-106"
	done
	# one issue a leg, each opened once, titled by its test
	[ "$(jq -s '[.[] | select(.method == "POST" and .path == "/repos/acme/cache/issues")] | length' "$T/gh.log")" -eq 2 ]
	# each leg's history holds its own six runs, named with its leg
	for leg in 0 1; do
		[ "$(sqlite3 "$T/cache/$leg/audit.db" "SELECT count(*) FROM runs")" -eq 6 ]
		[ "$(sqlite3 "$T/cache/$leg/audit.db" "SELECT count(*) FROM runs WHERE run LIKE 'github:acme/cache:10_.1:test:$leg'")" -eq 6 ]
	done

	# release: the count starts at the listing's date, so all six CI runs
	# of the day count, 3 of them failed: six CI runs cannot prove a rate
	# below 10%, and the list keeps it, saying how many clean runs it needs
	since=$(sed -n 's/^tests\/test_store.py::test_new_flaky	.*since=\([0-9-]*\).*/\1/p' "$T/py/.retrial/quarantine")
	run env -C "$T/py" rt-quarantine release --history "$T/cache/0/audit.db"
	status_is 0
	[ -n "$since" ]
	has "kept: tests/test_store.py::test_new_flaky: 3/6 failed since $since: "
	need=$(printf '%s\n' "$output" | sed -n 's/.*(\([0-9]*\) more clean runs at least).*/\1/p')
	[ "$need" -gt 6 ]
	grep -q "^tests/test_store.py::test_new_flaky	" "$T/py/.retrial/quarantine"
	# Seeded, and said so: the nightly lane's runs of the fixed test since
	# the listing, one passing trial a run, imported with rt-audit (the six
	# CI runs alone cannot reach release's count honestly). One short of
	# the count it named keeps it; the count releases it.
	now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	nightly() {
		for i in $(seq "$1" "$2"); do
			jq -nc --arg r "nightly:$i" --arg ts "$now" \
			    '{type: "trial", case: "tests/test_store.py::test_new_flaky", outcome: "pass", run: $r, timestamp: $ts}'
		done >"$T/nightly.jsonl"
		rt-audit -H "$T/cache/0/audit.db" --md /dev/null "$T/nightly.jsonl" >/dev/null
	}
	nightly 1 $((need - 1))
	run env -C "$T/py" rt-quarantine release --history "$T/cache/0/audit.db"
	status_is 0
	has "kept: tests/test_store.py::test_new_flaky: 3/$((need + 5)) failed since"
	nightly "$need" "$need"
	run env -C "$T/py" rt-quarantine release --history "$T/cache/0/audit.db"
	status_is 0
	has "released: tests/test_store.py::test_new_flaky: 3/$((need + 6)) failed since $since: "
	has "at 95% confidence, checked every night; below the 10.0% level quarantine was for"
	hasnt "$TOKEN"
	! grep -q "test_new_flaky" "$T/py/.retrial/quarantine"
	# its issue got the evidence and was closed
	[ "$(jq -s '[.[] | select(.method == "PATCH" and (.path | test("^/repos/acme/cache/issues/[0-9]+$")))] | length' "$T/gh.log")" -eq 1 ]
	# the go leg's test, with no such proof, stays listed
	grep -q "^example.com/ciloop/store::TestNewFlaky	" "$T/go/.retrial/quarantine"
	# the legs' histories merge into one: every result of each, its run's
	# name (and so its leg), case, outcome and time kept; merging again
	# adds nothing
	MERGE="$RT_TOP/share/retrial/rt-history-merge.sh"
	run "$MERGE" "$T/all.db" "$T/cache/0/audit.db" "$T/cache/1/audit.db"
	status_is 0
	n0=$(sqlite3 "$T/cache/0/audit.db" "SELECT count(*) FROM results")
	n1=$(sqlite3 "$T/cache/1/audit.db" "SELECT count(*) FROM results")
	has "$((need + 12)) runs, $((n0 + n1)) results in $T/all.db"
	[ "$(sqlite3 "$T/all.db" "SELECT count(*) FROM runs WHERE run LIKE '%:test:1'")" -eq 6 ]
	[ "$(sqlite3 "$T/all.db" "SELECT count(*) FROM runs WHERE run LIKE '%:test:0'")" -eq 6 ]
	q="SELECT run, case_id, outcome, failed, attempt, timestamp FROM results"
	diff <( { sqlite3 "$T/cache/0/audit.db" "$q"; sqlite3 "$T/cache/1/audit.db" "$q"; } | sort) \
	    <(sqlite3 "$T/all.db" "$q" | sort)
	run "$MERGE" "$T/all.db" "$T/cache/0/audit.db" "$T/cache/1/audit.db"
	status_is 0
	[ "$(sqlite3 "$T/all.db" "SELECT count(*) FROM results")" -eq $((n0 + n1)) ]
	[ "$(sqlite3 "$T/all.db" "SELECT count(*) FROM audits")" -eq 1 ]
}

@test "rt-history-merge.sh: no input, an input that is not there, the output among the inputs: exit 2 with one line" {
	MERGE="$RT_TOP/share/retrial/rt-history-merge.sh"
	run "$MERGE" "$T/all.db"
	status_is 2
	has "usage: rt-history-merge.sh OUT.db IN.db..."
	run "$MERGE" "$T/all.db" "$T/nope.db"
	status_is 2
	[ "$output" = "rt-history-merge.sh: $T/nope.db: cannot read" ]
	echo '{"type":"trial","case":"a::t","outcome":"pass","run":"r1"}' | rt-audit -H "$T/a.db" --md /dev/null >/dev/null
	run "$MERGE" "$T/a.db" "$T/a.db"
	status_is 2
	has "the merge's output is one of its inputs"
	[ ! -e "$T/all.db" ]
}

@test "rt-quarantine: .retrial.yml's history:, codeowners: and confidence: never fail add, list, check or gate; the command line's --history still does" {
	mkdir -p "$T/q/.github" && cd "$T/q" && git init -q .
	printf '* @lead\n' >.github/CODEOWNERS
	printf 'history: .retrial/audit.db\ncodeowners: .github/CODEOWNERS\nconfidence: 0.9\n' >.retrial.yml
	export RETRIAL_CONFIG="$T/q/.retrial.yml"
	run rt-quarantine add tests/test_x.py::test_y --no-github
	status_is 0
	has "added: tests/test_x.py::test_y"
	grep -q "^tests/test_x.py::test_y	owner=@lead" .retrial/quarantine
	run rt-quarantine list
	status_is 0
	has "tests/test_x.py::test_y"
	run sh -c 'echo tests/test_x.py::test_y | rt-quarantine check'
	status_is 0
	printf '<testsuite name="s"><testcase classname="tests/test_x.py" name="test_y"><failure message="x"/></testcase></testsuite>\n' >r.xml
	run rt-quarantine gate r.xml
	status_is 0
	# the file's value is where it came from in --print-config, and
	# release uses it
	run rt-quarantine --print-config list
	has "history=$T/q/.retrial/audit.db	$T/q/.retrial.yml:1"
	run rt-quarantine release --no-github
	status_is 2
	has "$T/q/.retrial/audit.db"
	# given on the command line, an option the verb does not take is
	# refused by name, as before
	run rt-quarantine add tests/test_x.py::test_z --no-github --history h.db
	status_is 2
	has "rt-quarantine: --history is for release, not add"
	run rt-quarantine list --confidence 0.9
	status_is 2
	has "rt-quarantine: --confidence is for add and release, not list"
}

# a pull request's checkout: the pytest leg's suite on main, and the PR's
# commit adding tests/test_new.py: test_stable, and test_coin, which fails
# on every other run (a count in the file "coin")
pr_checkout() {
	git_scratch_home
	checkout pr py
	git -C "$T/pr" add . && git -C "$T/pr" commit -qm "the suite"
	git -C "$T/pr" checkout -qb pr
	cat >"$T/pr/tests/test_new.py" <<'PYEOF'
import os

def test_stable():
    pass

def test_coin():
    path = os.path.join(os.path.dirname(__file__), "..", "coin")
    n = int(open(path).read()) if os.path.exists(path) else 0
    open(path, "w").write(str(n + 1))
    assert n % 2 == 0, "the coin came up tails"
PYEOF
	git -C "$T/pr" add . && git -C "$T/pr" commit -qm "two new tests"
	echo '{"pull_request": {"number": 7}}' >"$T/event.json"
	export GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$T/event.json" GITHUB_TOKEN="$TOKEN"
	export GITHUB_SERVER_URL=https://github.example RUNNER_TEMP="$T/rt" GITHUB_RUN_ID=300
	export GITHUB_STEP_SUMMARY="$T/summary.md" GITHUB_OUTPUT="$T/out"
	mkdir -p "$RUNNER_TEMP"
}

@test "a PR's job: EFD catches the new flaky test, and the audit's PR comment lists the new tests checked right after this run's line" {
	pr_checkout
	start_gh --seed-issues 7
	# the job's first step: EFD on the PR's new tests, to a verdict or 6 trials
	run env -C "$T/pr" RT_MODE=efd RT_EFD_BASE=main RT_EFD_BUDGET=6 RT_EFD_PYTHON="$PY" "$ACT"
	status_is 1
	has "new test tests/test_new.py::test_coin: FLAKY: "
	grep -qx "efd=fail" "$T/out"
	[ "$(jq -s 'length' "$RUNNER_TEMP/retrial-efd.jsonl")" -eq 2 ]
	# then the suite and the audit, in the same job (the same RUNNER_TEMP)
	rm -f "$T/pr/coin"
	(cd "$T/pr" && "$PY" -m pytest -q -p no:randomly -p no:random_order \
	    --junitxml=reports/junit.xml tests >/dev/null 2>&1) || true
	run env -C "$T/pr" RT_MODE=audit RT_JUNIT="reports/*.xml" "$ACT"
	status_is 0
	hasnt "$TOKEN"
	run jq -r 'select(.method == "POST" and .path == "/repos/acme/cache/issues/7/comments") | .body.body' "$T/gh.log"
	body=$(printf '%s\n' "$output" | sed -n '/^<!-- retrial-audit -->$/,$p')
	[ "$(sed -n 2p <<<"$body")" = "## retrial: gate passed" ]
	[[ "$(sed -n 4p <<<"$body")" == "This run: 0 failed outside the quarantine, 0 quarantined failed. [The run](https://github.example/acme/cache/actions/runs/300)" ]]
	[ "$(sed -n 6p <<<"$body")" = "### New tests checked (2, 1 FLAKY)" ]
	# rt-measure's own words: the count and its interval, from the records
	coin=$(jq -r 'select(.case == "tests/test_new.py::test_coin") | .summary' "$RUNNER_TEMP/retrial-efd.jsonl")
	stable=$(jq -r 'select(.case == "tests/test_new.py::test_stable") | .summary' "$RUNNER_TEMP/retrial-efd.jsonl")
	[[ $coin =~ ^[0-9]+/[0-9]+" failed (" ]]
	[[ $stable =~ ^"0/6 failed (≤" ]]
	grep -qxF "new test tests/test_new.py::test_coin: FLAKY: $coin" <<<"$body"
	grep -qxF "new test tests/test_new.py::test_stable: INCONCLUSIVE: $stable" <<<"$body"
	# before the new failures
	efd=$(grep -n '^### New tests checked' <<<"$body" | cut -d: -f1)
	new=$(grep -n '^### New failures (0)$' <<<"$body" | cut -d: -f1)
	[ "$efd" -lt "$new" ]
}

@test "the audit's PR comment: RT_EFD_RESULTS names shown visibly in a fence longer than theirs; an unreadable or foreign file exits 2" {
	pr_checkout
	start_gh --seed-issues 7
	(cd "$T/pr" && "$PY" -m pytest -q -p no:randomly -p no:random_order \
	    --junitxml=reports/junit.xml tests/test_store.py >/dev/null 2>&1) || true
	jq -nc '{type: "measure", case: "t::a\n## injected ````x", verdict: "STABLE",
	    summary: "0/20 failed (≤14.0% at 95% confidence, anytime)"}' >"$T/efd.jsonl"
	run env -C "$T/pr" RT_MODE=audit RT_EFD_RESULTS="$T/efd.jsonl" RT_JUNIT="reports/*.xml" "$ACT"
	status_is 0
	run jq -r 'select(.method == "POST") | .body.body' "$T/gh.log"
	has "### New tests checked (1, 0 FLAKY)"
	has $'`````\nnew test t::a?## injected ````x: STABLE: 0/20 failed (≤14.0% at 95% confidence, anytime)\n`````'
	hasnt $'\n## injected'
	# not there, and not records: one line, exit 2
	run env -C "$T/pr" RT_MODE=audit RT_EFD_RESULTS="$T/nope.jsonl" RT_JUNIT="reports/*.xml" "$ACT"
	status_is 2
	has "github-action.sh: RT_EFD_RESULTS $T/nope.jsonl: cannot read"
	echo 'not json' >"$T/bad.jsonl"
	run env -C "$T/pr" RT_MODE=audit RT_EFD_RESULTS="$T/bad.jsonl" RT_JUNIT="reports/*.xml" "$ACT"
	status_is 2
	has "github-action.sh: RT_EFD_RESULTS $T/bad.jsonl: not rt-efd.sh's records"
}
