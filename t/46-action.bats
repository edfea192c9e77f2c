#!/usr/bin/env bats
# The GitHub Action: action.yml is a composite whose inputs reach its one
# script through the environment; the script (share/retrial/github-action.sh)
# run as the runner runs it, with a fake GITHUB_* environment, on a real
# pytest suite's JUnit reports, and against the loopback GitHub.
load helper

PY=/usr/bin/python3
ACT="$RT_TOP/share/retrial/github-action.sh"
TOKEN=ghs_action_token_8d1f0c
export PYTHONPATH="$RT_TOP/share/retrial"

# a real pytest project: test_flaky fails while "seed" says flaky; test_other
# fails while the file "break" exists; the quarantine list holds test_flaky
project() {
	mkdir -p "$1/tests" "$1/.github" "$1/.retrial"
	cat >"$1/tests/test_flaky.py" <<'PYEOF'
import os

def test_flaky():
    mode = open(os.path.join(os.path.dirname(__file__), "..", "seed")).read().strip()
    assert mode == "fixed", "the cache raced"

def test_steady():
    pass
PYEOF
	cat >"$1/tests/test_other.py" <<'PYEOF'
import os

def test_other():
    assert not os.path.exists(os.path.join(os.path.dirname(__file__), "..", "break"))
PYEOF
	printf '* @lead\ntests/test_flaky.py @cache-team\n' >"$1/.github/CODEOWNERS"
	echo flaky >"$1/seed"
}

# the job's tests, then the action's script, as the runner runs them (run N)
job() {
	(cd "$T/p" && "$PY" -m pytest -q -p retrial_quarantine \
	    --junitxml=reports/junit-unit.xml tests >/dev/null 2>&1) || true
	run env -C "$T/p" GITHUB_RUN_ID="$1" "$ACT"
}

setup() {
	project "$T/p"
	export RT_BIN="$RT_TOP/bin" RT_JUNIT="reports/*.xml"
	export GITHUB_REPOSITORY=acme/cache GITHUB_RUN_ATTEMPT=1 GITHUB_JOB=test
	export GITHUB_STEP_SUMMARY="$T/summary.md" GITHUB_OUTPUT="$T/output"
	export RUNNER_TEMP="$T/runner-temp" GITHUB_EVENT_NAME=push
	mkdir -p "$RUNNER_TEMP"
	unset GITHUB_EVENT_PATH GITHUB_TOKEN
	(cd "$T/p" && rt-quarantine add tests/test_flaky.py::test_flaky --rate 9/10 >/dev/null)
}

@test "action.yml: a composite that builds retrial, caches the history, and passes every input through the environment" {
	run "$PY" - "$RT_TOP/action.yml" <<'PYEOF'
import sys, yaml
a = yaml.safe_load(open(sys.argv[1]))
steps = a["runs"]["steps"]
assert a["runs"]["using"] == "composite", a["runs"]
uses = [s.get("uses", "") for s in steps]
assert "actions/cache/restore@v4" in uses and "actions/cache/save@v4" in uses, uses
save = [s for s in steps if s.get("uses") == "actions/cache/save@v4"][0]
assert save["if"].startswith("always()"), save
runs = [s["run"] for s in steps if "run" in s]
# no expression is spliced into a shell line: inputs arrive as env
for r in runs:
    assert "${{" not in r, r
audit = [s for s in steps if s.get("id") == "audit"][0]
assert "github-action.sh" in audit["run"], audit
for name in ("junit", "history", "quarantine", "comment", "annotations", "gate"):
    assert "inputs." + name in audit["env"]["RT_" + name.upper()], name
assert audit["env"]["GITHUB_TOKEN"] == "${{ inputs.github-token }}"
assert "make -C \"$GITHUB_ACTION_PATH\"" in runs[0], runs[0]
# only the build's packages; a prebuilt retrial skips the build
assert " build-deps" in runs[0] and " deps;" not in runs[0], runs[0]
assert steps[0]["env"]["RT_PREBUILT"] == "${{ inputs.prebuilt }}"
assert "inputs.prebuilt" in audit["env"]["RT_BIN"]
# every matrix leg its own cache key and run name
assert a["inputs"]["leg"]["default"] == "${{ strategy.job-index }}"
restore = [s for s in steps if s.get("uses") == "actions/cache/restore@v4"][0]
for st in (restore, save):
    assert st["with"]["key"].startswith("${{ inputs.cache-key }}-${{ inputs.leg }}-${{ github.run_id }}"), st
assert restore["with"]["restore-keys"] == "${{ inputs.cache-key }}-${{ inputs.leg }}-"
assert audit["env"]["RT_LEG"] == "${{ inputs.leg }}"
for name in ("retry-cmd", "retry-default", "retry-max", "auto-quarantine"):
    assert "inputs." + name in audit["env"]["RT_" + name.upper().replace("-", "_")], name
assert "retry" in a["inputs"]["mode"]["description"]
print("ok")
PYEOF
	status_is 0
	[ "$output" = ok ]
	[ -x "$ACT" ]
}

@test "action script: a quarantined failure runs and does not gate; a failure outside it does; summary, outputs, one run per job attempt" {
	job 100
	status_is 0
	has "quarantined, failed: tests/test_flaky.py::test_flaky"
	has "gate: pass: 0 failed outside the quarantine"
	grep -qx "gate=pass" "$GITHUB_OUTPUT"
	digest=$(sed -n 's/^digest=//p' "$GITHUB_OUTPUT")
	[ -s "$digest" ] && [[ "$digest" == "$RUNNER_TEMP"/* ]]
	grep -q "^# Flake audit 1, " "$GITHUB_STEP_SUMMARY"
	grep -q "^gate: pass" "$GITHUB_STEP_SUMMARY"
	# the history, where the cache step saves it; every record one run
	db="$T/p/.retrial/audit.db"
	[ "$(sqlite3 "$db" "SELECT group_concat(DISTINCT run) FROM results")" = "github:acme/cache:100.1:test" ]
	# the quarantined failure is measured: its lane's record counted, once
	[ "$(sqlite3 "$db" "SELECT sum(failed), count(failed) FROM results WHERE case_id = 'tests/test_flaky.py::test_flaky'")" = "1|1" ]
	# the next run: a test not on the list fails; the gate says so
	touch "$T/p/break"
	job 101
	status_is 1
	has "failed: tests/test_other.py::test_other"
	grep -qx "gate=fail" "$GITHUB_OUTPUT"
	[ "$(grep -c "^# Flake audit" "$GITHUB_STEP_SUMMARY")" -eq 2 ]
	grep -q "^# Flake audit 2, " "$GITHUB_STEP_SUMMARY"
	[ "$(sqlite3 "$db" "SELECT count(DISTINCT run) FROM results")" -eq 2 ]
	# a matrix leg's run carries the leg, so two legs' runs stay distinct
	RT_LEG=py3.12 job 101
	[ "$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE run = 'github:acme/cache:101.1:test:py3.12'")" -eq 1 ]
	# gate: false reports the failure and exits 0
	RT_GATE=false job 102
	status_is 0
	grep -q "^gate=fail" "$GITHUB_OUTPUT"
}

@test "action script: no report, a malformed list, a missing tool: exit 2 with one line, the history untouched" {
	rm -rf "$T/p/reports"
	run env -C "$T/p" GITHUB_RUN_ID=1 "$ACT"
	status_is 2
	[ "$output" = "github-action.sh: no report matches reports/*.xml" ]
	[ ! -e "$T/p/.retrial/audit.db" ]
	job 2
	status_is 0
	before=$(sqlite3 "$T/p/.retrial/audit.db" "SELECT count(*) FROM results")
	outputs=$(grep -c "^gate=" "$GITHUB_OUTPUT")
	printf 'tests/x.py::t\tbogus\n' >>"$T/p/.retrial/quarantine"
	line=$(wc -l <"$T/p/.retrial/quarantine")
	job 3
	status_is 2
	has "rt-quarantine: .retrial/quarantine:$line: field \"bogus\""
	[ "$(sqlite3 "$T/p/.retrial/audit.db" "SELECT count(*) FROM results")" = "$before" ]
	[ "$(grep -c "^gate=" "$GITHUB_OUTPUT")" = "$outputs" ]
	run env -C "$T/p" PATH=/usr/bin:/bin RT_BIN= GITHUB_RUN_ID=4 "$ACT"
	status_is 2
	has "rt-junit not found"
}

@test "action script: go test -json reports through the same gate" {
	command -v go >/dev/null || skip "go not installed"
	mkdir -p "$T/p/reports"
	cat >"$T/p/reports/go.json" <<'EOF2'
{"Action":"run","Package":"example.com/cache","Test":"TestRace"}
{"Action":"output","Package":"example.com/cache","Test":"TestRace","Output":"--- FAIL: TestRace (0.00s)\n"}
{"Action":"fail","Package":"example.com/cache","Test":"TestRace","Elapsed":0}
{"Action":"fail","Package":"example.com/cache","Elapsed":0}
EOF2
	run env -C "$T/p" GITHUB_RUN_ID=7 RT_JUNIT="reports/go.json" "$ACT"
	status_is 1
	has "failed: example.com/cache::TestRace"
	(cd "$T/p" && rt-quarantine add example.com/cache::TestRace --owner @go >/dev/null)
	run env -C "$T/p" GITHUB_RUN_ID=8 RT_JUNIT="reports/go.json" "$ACT"
	status_is 0
	has "quarantined, failed: example.com/cache::TestRace"
}

# The loopback GitHub, for the PR comment.
start_gh() {
	FAKE_GITHUB_TOKEN="$TOKEN" python3 "$RT_TOP/t/fake-github.py" --log "$T/gh.log" \
	    --seed-issues 7 --mode "${1:-ok}" \
	    >"$T/gh.port" 2>"$T/gh.err" 3>&- &
	echo $! >"$T/gh.pid"
	for _ in $(seq 200); do [ -s "$T/gh.port" ] && break; sleep 0.05; done
	export GITHUB_API_URL="http://127.0.0.1:$(head -1 "$T/gh.port")"
	touch "$T/gh.log"
}

teardown() {
	[ ! -f "$T/gh.pid" ] || kill "$(cat "$T/gh.pid")" 2>/dev/null || true
	[ ! -f "$T/hook.pid" ] || kill "$(cat "$T/hook.pid")" 2>/dev/null || true
}

@test "action script: on a pull request, one PR comment with the digest, updated on the next run; the token never shows" {
	rt-audit --help | grep -q -- --pr-comment || skip "rt-audit has no --pr-comment"
	start_gh
	echo '{"pull_request": {"number": 7}}' >"$T/event.json"
	export GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$T/event.json" GITHUB_TOKEN="$TOKEN"
	export GITHUB_SERVER_URL=https://github.example
	job 200
	status_is 0
	hasnt "$TOKEN"
	job 201
	status_is 0
	hasnt "$TOKEN"
	! grep -q "$TOKEN" "$GITHUB_STEP_SUMMARY" "$GITHUB_OUTPUT"
	run jq -r 'select(.method == "POST" or .method == "PATCH") | "\(.method) \(.path) \(.auth)"' "$T/gh.log"
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "POST /repos/acme/cache/issues/7/comments ok" ]
	[[ "${lines[1]}" =~ ^PATCH\ /repos/acme/cache/issues/comments/[0-9]+\ ok$ ]]
	# the comment leads with this run: the gate, its new and quarantined
	# failures, the link to the run; then the history's digest, folded
	run jq -r 'select(.method == "PATCH") | .body.body' "$T/gh.log"
	[ "${lines[0]}" = "<!-- retrial-audit -->" ]
	[ "${lines[1]}" = "## retrial: gate passed" ]
	[ "${lines[2]}" = "This run: 0 failed outside the quarantine, 1 quarantined failed. [The run](https://github.example/acme/cache/actions/runs/201)" ]
	body=$output
	new=$(grep -n '^### New failures (0)$' <<<"$body" | cut -d: -f1)
	quar=$(grep -n '^### Quarantined failures (1)$' <<<"$body" | cut -d: -f1)
	det=$(grep -n '^<details><summary>' <<<"$body" | cut -d: -f1)
	dig=$(grep -n '^# Flake audit 2, ' <<<"$body" | cut -d: -f1)
	[ "$new" -lt "$quar" ] && [ "$quar" -lt "$det" ] && [ "$det" -lt "$dig" ]
	grep -qx 'quarantined, failed: tests/test_flaky.py::test_flaky' <<<"$body"
	[ "$(tail -n 1 <<<"$body")" = "</details>" ]
}

@test "action script: a token that may not comment (a fork's pull request) warns, and the job still gates on the tests" {
	rt-audit --help | grep -q -- --pr-comment || skip "rt-audit has no --pr-comment"
	start_gh 403
	echo '{"pull_request": {"number": 7}}' >"$T/event.json"
	export GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$T/event.json" GITHUB_TOKEN="$TOKEN"
	job 210
	status_is 0
	has "::warning title=retrial::the PR comment was not written: "
	has "403"
	hasnt "$TOKEN"
	grep -qx "gate=pass" "$GITHUB_OUTPUT"
	[ "$(sqlite3 "$T/p/.retrial/audit.db" "SELECT count(*) FROM audits")" -eq 1 ]
}

@test "action script: a warning annotation for a newly flaky test, at its file and line" {
	rt-audit --help | grep -q -- --annotations || skip "rt-audit has no --annotations"
	(cd "$T/p" && rt-quarantine release tests/test_flaky.py::test_flaky >/dev/null)
	echo fixed >"$T/p/seed"
	for i in 1 2 3; do job "30$i"; status_is 0; done
	echo flaky >"$T/p/seed"
	for i in 4 5 6; do
		(cd "$T/p" && "$PY" -m pytest -q -p retrial_quarantine \
		    --junitxml=reports/junit-unit.xml tests >/dev/null 2>&1) || true
		echo fixed >"$T/p/seed"
		(cd "$T/p" && "$PY" -m pytest -q -p retrial_quarantine \
		    --junitxml=reports/junit-retry.xml tests >/dev/null 2>&1) || true
		echo flaky >"$T/p/seed"
		run env -C "$T/p" GITHUB_RUN_ID="30$i" "$ACT"
		status_is 0
		printf '%s\n' "$output" >>"$T/job.log"
	done
	# the night it became flaky: one annotation, at its definition
	run grep "^::warning " "$T/job.log"
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "::warning file=tests/test_flaky.py,line=3,title=flaky test::tests/test_flaky.py::test_flaky: "* ]]
	# annotations: false prints none
	RT_ANNOTATIONS=false job 310
	hasnt "::warning"
}

# What GitHub's runner acts on in a job log: each line (LF, CR or CRLF
# ends one) that starts, after blanks, with "::"; "::stop-commands::T"
# stops that until a line "::T::".
acted() {
	printf '%s\n' "$1" | tr '\r' '\n' | awk '{ l = $0; sub(/^[ \t]+/, "", l) }
	stop != "" { if (l == "::" stop "::") stop = ""; next }
	l ~ /^::stop-commands::/ { stop = substr(l, 18); next }
	l ~ /^::/ { print l }'
}

@test "action script: hostile test names (a line feed then ::error, ::add-mask::, ::stop-commands::; U+202E) never make a workflow command" {
	mkdir -p "$T/p/reports"
	cp "$RT_TOP/t/fixtures/hostile/junit-names.xml" "$T/p/reports/junit-hostile.xml"
	cp "$RT_TOP/t/fixtures/hostile/junit-names-retry.xml" "$T/p/reports/junit-hostile-retry.xml"
	job 400
	status_is 1
	# the names shown, visibly, each on the line that names it
	has "failed: tests/test_a.py::test_y␍␊  ::add-mask::FAIL"
	has 'failed: tests/test_a.py::test_w\u202egnp.exe'
	! printf '%s' "$output" | grep -q $'\u202e'
	# the one command acted on: the annotation of the newly flaky test_x,
	# its name escaped into the message
	run acted "$output"
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "::warning title=flaky test::tests/test_a.py::test_x%0A::error title=forged::FAIL: 1/2 failed"* ]]
	# the summary's block of the gate's lines: nothing in it ends the fence
	[ "$(grep -c '^```' "$GITHUB_STEP_SUMMARY")" -eq 2 ]
}

@test "action script: the first run, with no quarantine list, gates; a report named -junit.xml is a report, not an option" {
	rm "$T/p/.retrial/quarantine"
	(cd "$T/p" && "$PY" -m pytest -q --junitxml=-junit.xml tests >/dev/null 2>&1) || true
	run env -C "$T/p" GITHUB_RUN_ID=500 RT_JUNIT='-*.xml' "$ACT"
	status_is 1
	has "failed: tests/test_flaky.py::test_flaky"
	has "gate: FAIL: 1 failed outside the quarantine"
	grep -qx "gate=fail" "$GITHUB_OUTPUT"
	[ ! -e "$T/p/.retrial/quarantine" ]
	[ "$(sqlite3 "$T/p/.retrial/audit.db" "SELECT count(DISTINCT case_id) FROM results")" -eq 3 ]
}

# a loopback webhook receiver: each POST's body one JSON line in hook.log
hook_server() {
	python3 - "$T/hook.log" >"$T/hook.port" <<-'PY' &
	import sys, json
	from http.server import BaseHTTPRequestHandler, HTTPServer
	log = open(sys.argv[1], "a")
	class H(BaseHTTPRequestHandler):
	    def log_message(self, *a): pass
	    def do_POST(self):
	        n = int(self.headers.get("Content-Length") or 0)
	        log.write(json.dumps(json.loads(self.rfile.read(n).decode())) + "\n")
	        log.flush()
	        self.send_response(200)
	        self.send_header("Content-Length", "0")
	        self.end_headers()
	s = HTTPServer(("127.0.0.1", 0), H)
	print(s.server_address[1], flush=True)
	s.serve_forever()
	PY
	echo $! >"$T/hook.pid"
	for _ in $(seq 200); do [ -s "$T/hook.port" ] && break; sleep 0.05; done
	[ -s "$T/hook.port" ]
}

@test "action script: the webhook names the repository and links to the run; a repository name that is not one is left out" {
	hook_server
	export RETRIAL_WEBHOOK_URL="http://127.0.0.1:$(cat "$T/hook.port")/hook" GITHUB_SERVER_URL=https://github.example
	job 600
	kill "$(cat "$T/hook.pid")" 2>/dev/null || true
	status_is 0
	[ "$(wc -l <"$T/hook.log")" -eq 1 ]
	jq -e '.text | startswith("Flake audit 1, ")' "$T/hook.log"
	jq -e '.text | endswith("\n<https://github.example/acme/cache/actions/runs/600|acme/cache run 600>")' "$T/hook.log"
	# Slack markup in the environment is never passed through
	rm "$T/hook.log" "$T/hook.port"
	hook_server
	export RETRIAL_WEBHOOK_URL="http://127.0.0.1:$(cat "$T/hook.port")/hook"
	GITHUB_REPOSITORY='acme/x|<!channel>' job 601
	kill "$(cat "$T/hook.pid")" 2>/dev/null || true
	jq -e '.text | (contains("channel") or contains("actions/runs")) | not' "$T/hook.log"
}

@test "action script: mode retry reruns the failed tests within their budgets, gates on the reruns, and names the reruns' JUnit" {
	RT_MODE=retry RT_RETRY_CMD="$PY -m pytest -q \"\$1\"" job 700
	status_is 0
	has "quarantined: tests/test_flaky.py::test_flaky: failed in the job; rerun 3 times, 3 failed, 0 passed"
	has "gate: pass: 0 failed every attempt outside the quarantine (0 flaky, 1 quarantined)"
	grep -qx "gate=pass" "$GITHUB_OUTPUT"
	grep -qx "retries=$RUNNER_TEMP/retrial-retries.xml" "$GITHUB_OUTPUT"
	grep -q 'name="tests/test_flaky.py::test_flaky"' "$RUNNER_TEMP/retrial-retries.xml"
	grep -q "^\*\*gate: pass" "$GITHUB_STEP_SUMMARY"
	[ "$(sqlite3 "$T/p/.retrial/audit.db" "SELECT DISTINCT run FROM results")" = "github:acme/cache:700.1:test" ]
	# a failure outside the list that every rerun repeats fails the job
	touch "$T/p/break"
	RT_MODE=retry RT_RETRY_CMD="$PY -m pytest -q \"\$1\"" RT_LEG=1 job 701
	status_is 1
	has "failed: tests/test_other.py::test_other: failed in the job; rerun 3 times, 3 failed, 0 passed"
	grep -qx "gate=fail" "$GITHUB_OUTPUT"
	# no command: exit 2
	RT_MODE=retry job 702
	status_is 2
	has "rt-ci-retry.sh: no command to rerun a case"
}
