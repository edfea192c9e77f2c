#!/usr/bin/env bats
# t/47-efd.bats: Early Flake Detection (share/retrial/rt-efd.sh) on a real
# git repository whose pull-request commit adds a stable test and a test
# that fails on every other run: pytest, then go test, then the action.
load helper

PY=/usr/bin/python3
EFD="$RT_TOP/share/retrial/rt-efd.sh"

setup() {
	export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
	mkdir -p "$HOME"
	git config --global user.name "Test User"
	git config --global user.email test@example.invalid
	git config --global init.defaultBranch main
	unset GITHUB_BASE_REF
}

# a pytest project on main, and a branch "pr" whose one commit adds
# tests/test_new.py: test_stable, and test_coin, which fails on every
# other run (a count kept in the file "coin")
pyrepo() {
	mkdir -p "$1/tests"
	printf 'def test_old():\n    pass\n' >"$1/tests/test_old.py"
	git -C "$1" init -q
	git -C "$1" add .
	git -C "$1" commit -qm "the old suite"
	git -C "$1" checkout -qb pr
	cat >"$1/tests/test_new.py" <<'PYEOF'
import os

def test_stable():
    pass

def test_coin():
    path = os.path.join(os.path.dirname(__file__), "..", "coin")
    n = int(open(path).read()) if os.path.exists(path) else 0
    open(path, "w").write(str(n + 1))
    assert n % 2 == 0, "the coin came up tails"
PYEOF
	git -C "$1" add .
	git -C "$1" commit -qm "two new tests"
}

@test "rt-efd.sh: a PR's new pytest tests, each rerun to a verdict or the budget; a FLAKY one exits 1" {
	pyrepo "$T/p"
	run env -C "$T/p" "$EFD" --base main -n 8 -j 2 --python "$PY" \
	    --summary "$T/summary.md" --records "$T/efd.jsonl"
	status_is 1
	has "new test tests/test_new.py::test_stable: INCONCLUSIVE: 0/8 failed (≤"
	has "at 95% confidence, anytime)"
	# stopped at the verdict: the trials of -j 2 in flight may have ended too
	[[ $output =~ "test_coin: FLAKY: "[0-9]+/[0-9]+" failed (" ]]
	hasnt test_old
	# the words and numbers are rt-measure's own, from its records
	jq -e -s 'length == 2 and (map(.case) | sort) ==
	    ["tests/test_new.py::test_coin", "tests/test_new.py::test_stable"]' "$T/efd.jsonl"
	stable=$(jq -r 'select(.verdict == "INCONCLUSIVE") | .summary' "$T/efd.jsonl")
	coin=$(jq -r 'select(.verdict == "FLAKY") | .summary' "$T/efd.jsonl")
	has "test_stable: INCONCLUSIVE: $stable"
	has "test_coin: FLAKY: $coin"
	run cat "$T/summary.md"
	has "### Early Flake Detection"
	has "new test tests/test_new.py::test_coin: FLAKY: $coin"
}

@test "rt-efd.sh: --efd-fail never reports the FLAKY test and exits 0; bad options exit 2" {
	pyrepo "$T/p"
	run env -C "$T/p" "$EFD" --base main -n 3 --python "$PY" --efd-fail never
	status_is 0
	has "new test tests/test_new.py::test_coin: FLAKY: "
	has "new test tests/test_new.py::test_stable: INCONCLUSIVE: 0/3 failed"
	run env -C "$T/p" "$EFD" --base main --efd-fail sometimes
	status_is 2
	has "--efd-fail sometimes: must be flaky, unstable or never"
	run env -C "$T/p" "$EFD" --base nosuchref
	status_is 2
	has "--base nosuchref: not a commit"
	run env -C "$T/p" "$EFD" -n 3 --python "$PY"
	status_is 2
	has "no --base and no GITHUB_BASE_REF"
	# no change to the tests: nothing measured, exit 0
	run env -C "$T/p" "$EFD" --base HEAD -n 3 --python "$PY"
	status_is 0
	has "no new or changed tests between HEAD and HEAD"
}

@test "rt-efd.sh: a test's name is data: a parametrized ID with \$( ) and ; reaches pytest as one argument" {
	mkdir -p "$T/p/tests"
	git -C "$T/p" init -q
	git -C "$T/p" commit -q --allow-empty -m "empty"
	cat >"$T/p/tests/test_evil.py" <<'PYEOF'
import pytest

@pytest.mark.parametrize("x", ["$(touch pwned); touch pwned2"])
def test_p(x):
    pass
PYEOF
	git -C "$T/p" add .
	git -C "$T/p" commit -qm "a hostile name"
	run env -C "$T/p" "$EFD" --base HEAD~1 -n 2 --python "$PY"
	status_is 0
	has 'new test tests/test_evil.py::test_p[$(touch pwned); touch pwned2]: INCONCLUSIVE: 0/2 failed'
	[ ! -e "$T/p/pwned" ] && [ ! -e "$T/p/pwned2" ] && [ ! -e pwned ]
}

@test "rt-efd.sh: go test: the func TestX names of a changed _test.go file, by import path" {
	command -v go >/dev/null || skip "no go"
	export GOFLAGS=-mod=mod GOPROXY=off GOCACHE="$BATS_RUN_TMPDIR/gocache" GOPATH="$T/gopath"
	mkdir -p "$T/g/calc"
	printf 'module example.com/m\n\ngo 1.19\n' >"$T/g/go.mod"
	printf 'package calc\n\nfunc Add(a, b int) int { return a + b }\n' >"$T/g/calc/calc.go"
	cat >"$T/g/calc/old_test.go" <<'GOEOF'
package calc

import "testing"

func TestOld(t *testing.T) {}
GOEOF
	git -C "$T/g" init -q
	git -C "$T/g" add .
	git -C "$T/g" commit -qm "calc"
	cat >"$T/g/calc/calc_test.go" <<'GOEOF'
package calc

import (
	"os"
	"strconv"
	"testing"
)

// fails on every other run (a count kept in the file "coin")

func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("1+2")
	}
}

func TestCoin(t *testing.T) {
	b, _ := os.ReadFile("coin")
	n, _ := strconv.Atoi(string(b))
	os.WriteFile("coin", []byte(strconv.Itoa(n+1)), 0o644)
	if n%2 == 1 {
		t.Fatal("the coin came up tails")
	}
}
GOEOF
	git -C "$T/g" add .
	git -C "$T/g" commit -qm "two new tests"
	run env -C "$T/g" "$EFD" --base HEAD~1 -n 3
	status_is 1
	has "new test example.com/m/calc::TestAdd: INCONCLUSIVE: 0/3 failed"
	has "new test example.com/m/calc::TestCoin: FLAKY: "
	hasnt TestOld
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
}

TOKEN=ghs_efd_token_51c0a9

@test "action.yml: mode efd and its efd-* inputs reach the script through the environment" {
	run "$PY" - "$RT_TOP/action.yml" <<'PYEOF'
import sys, yaml
a = yaml.safe_load(open(sys.argv[1]))
audit = [s for s in a["runs"]["steps"] if s.get("id") == "audit"][0]
for name in ("mode", "efd-budget", "efd-fail", "efd-base", "efd-runner", "efd-python"):
    assert name in a["inputs"], name
    assert audit["env"]["RT_" + name.upper().replace("-", "_")] == "${{ inputs.%s }}" % name, name
assert a["inputs"]["mode"]["default"] == "audit"
assert "steps.audit.outputs.efd" in a["outputs"]["efd"]["value"]
print("ok")
PYEOF
	status_is 0
	[ "$output" = ok ]
}

@test "action script, mode efd: a PR's FLAKY new test in the job summary and one PR comment, exit 1; efd-fail never passes" {
	pyrepo "$T/p"
	start_gh
	echo '{"pull_request": {"number": 7}}' >"$T/event.json"
	export RT_MODE=efd RT_EFD_BASE=main RT_EFD_BUDGET=4 RT_EFD_PYTHON="$PY" RT_BIN="$RT_TOP/bin"
	export GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$T/event.json" GITHUB_TOKEN="$TOKEN"
	export GITHUB_REPOSITORY=acme/cache GITHUB_STEP_SUMMARY="$T/summary.md" GITHUB_OUTPUT="$T/output"
	export RUNNER_TEMP="$T/rt"
	mkdir -p "$RUNNER_TEMP"
	run env -C "$T/p" "$RT_TOP/share/retrial/github-action.sh"
	status_is 1
	hasnt "$TOKEN"
	has "new test tests/test_new.py::test_coin: FLAKY: "
	grep -q "^new test tests/test_new.py::test_coin: FLAKY: " "$GITHUB_STEP_SUMMARY"
	grep -q "^new test tests/test_new.py::test_stable: INCONCLUSIVE: 0/4 failed (≤" "$GITHUB_STEP_SUMMARY"
	grep -qx "efd=fail" "$GITHUB_OUTPUT"
	RT_EFD_FAIL=never run env -C "$T/p" "$RT_TOP/share/retrial/github-action.sh"
	status_is 0
	grep -qx "efd=pass" "$GITHUB_OUTPUT"
	! grep -q "$TOKEN" "$GITHUB_STEP_SUMMARY" "$GITHUB_OUTPUT"
	# one comment: made, then updated
	run jq -r 'select(.method == "POST" or .method == "PATCH") | "\(.method) \(.path) \(.auth)"' "$T/gh.log"
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "POST /repos/acme/cache/issues/7/comments ok" ]
	[[ "${lines[1]}" =~ ^PATCH\ /repos/acme/cache/issues/comments/[0-9]+\ ok$ ]]
	run jq -r 'select(.method == "PATCH") | .body.body' "$T/gh.log"
	has "<!-- retrial-efd -->"
	has "### Early Flake Detection"
	has "new test tests/test_new.py::test_coin: FLAKY: "
	# not a pull request: nothing to check
	GITHUB_EVENT_NAME=push run env -C "$T/p" "$RT_TOP/share/retrial/github-action.sh"
	status_is 0
	has "not a pull request"
}
