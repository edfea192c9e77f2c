#!/usr/bin/env bats
# Verdicts that hold on real projects: rt-verify, the guard and
# rt-diff-facts on small projects shaped like real Python ones and run by
# the real runners (Debian's pytest 7 with pytest-random-order, unittest).
# Each flake is a deterministic function of the trial's RETRIAL_SEED, so a
# fixed --seed is the same run every time. t/fixtures/projects/README.md
# gives each project's measured rate and command.
load helper

P="$RT_TOP/t/fixtures/projects"
PY=/usr/bin/python3

# The commands, as a user would give them to --cmd. pytest-random-order
# needs the cache plugin, so relpkg keeps it (its .pytest_cache is
# written in rt-verify's copies only).
PYRANDOM_CMD="PYTHONDONTWRITEBYTECODE=1 $PY -m pytest -q -p no:cacheprovider -p no:random_order"
UNITPKG_CMD="PYTHONHASHSEED=\$((RETRIAL_SEED % 1000)) PYTHONDONTWRITEBYTECODE=1 $PY -m unittest hashpkg.core"
RELPKG_CMD="PYTHONDONTWRITEBYTECODE=1 $PY -m pytest -q --random-order-seed=\$RETRIAL_SEED"
STDOUT_CMD="PYTHONHASHSEED=\$((RETRIAL_SEED % 1000)) PYTHONDONTWRITEBYTECODE=1 $PY -m pytest -q -p no:cacheprovider -p no:random_order"
STALE_CMD="PYTHONHASHSEED=\$((RETRIAL_SEED % 1000)) PYTHONDONTWRITEBYTECODE=1 $PY -m unittest -q"

have_runners() {
	[ -x "$PY" ] && "$PY" -c 'import pytest, random_order' 2>/dev/null
}

# Every race and collection runs once, here, one after the other (each
# uses both cores); the tests below read their output. A race's output
# is in $BATS_FILE_TMPDIR/NAME.out, its exit status in NAME.rc.
race() {
	local name=$1 rc=0
	shift
	rt-verify --seed 42 -j 2 --no-genome "$@" \
		>"$BATS_FILE_TMPDIR/$name.out" 2>"$BATS_FILE_TMPDIR/$name.err" || rc=$?
	echo "$rc" >"$BATS_FILE_TMPDIR/$name.rc"
}

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
	have_runners || return 0
	mkdir -p "$BATS_FILE_TMPDIR/tmp"
	export TMPDIR="$BATS_FILE_TMPDIR/tmp"
	local rp="$P/pyrandom" up="$P/unitpkg"
	# pyrandom and unitpkg flake at about 10%: their baselines are the
	# committed rt-measure records (README.md), so the race needs no
	# baseline trials and the original's interval is narrow. The budgets
	# are what the seeded races need: each fix wins in 58 trials, each
	# decoy fails within its budget (7/60, 9/70 at --seed 42)
	cat "$P/pyrandom.measure.json" "$P/pyrandom.jsonl" |
		race pyrandom -C "$rp" -N 60 --cmd "$PYRANDOM_CMD"
	cat "$P/unitpkg.measure.json" "$P/unitpkg.jsonl" |
		race unitpkg -C "$up" -N 70 --cmd "$UNITPKG_CMD"
	# relpkg and stale: rt-verify measures the baseline itself
	race relpkg -C "$P/relpkg" -n 40 -N 40 --cmd "$RELPKG_CMD" "$P/relpkg.jsonl"
	race stale -C "$P/stale" -n 20 -N 40 --cmd "$STALE_CMD" "$P/stale.jsonl"
	# evidence for rt-diff-facts, collected in copies of the projects
	cp -R "$P/stdoutonly" "$P/unitpkg" "$BATS_FILE_TMPDIR/"
	(cd "$BATS_FILE_TMPDIR/stdoutonly" &&
		rt-collect -n 20 -j 2 --seed 3 --cmd "$STDOUT_CMD" >../stdoutonly.trials)
	(cd "$BATS_FILE_TMPDIR/unitpkg" &&
		rt-collect -n 20 -j 2 --seed 3 --cmd "$UNITPKG_CMD" >../unitpkg.trials)
}

setup() {
	have_runners || skip "needs /usr/bin/python3 with pytest and pytest-random-order"
	mkdir -p "$T/tmp"
	export TMPDIR="$T/tmp"
}

# verdict NAME: the verdict record (the last line) of race NAME.
verdict() { tail -n 1 "$BATS_FILE_TMPDIR/$1.out"; }
rc_of() { cat "$BATS_FILE_TMPDIR/$1.rc"; }

# lane NAME ID FILTER: jq -e FILTER on lane ID of race NAME's verdict.
lane() {
	verdict "$1" | jq -e --arg id "$2" ".lanes[] | select(.id == \$id) | $3" >/dev/null || {
		echo "race $1, lane $2: $3 is false; the lane:" >&2
		verdict "$1" | jq -c --arg id "$2" '.lanes[] | select(.id == $id)' >&2
		return 1
	}
}

# ---- the fixtures are what they claim to be ----

@test "fixtures: the committed hypotheses are what make-hypotheses.py writes" {
	cp -R "$P" "$T/p"
	rm -f "$T"/p/*.jsonl
	(cd "$T/p" && "$PY" make-hypotheses.py)
	for f in pyrandom unitpkg relpkg stale; do
		cmp "$P/$f.jsonl" "$T/p/$f.jsonl"
	done
	# the projects themselves hold no bytecode or caches
	[ -z "$(find "$P" -name __pycache__ -o -name .pytest_cache)" ]
}

@test "fixtures: relpkg imports only from a directory named relpkg" {
	mkdir -p "$T/x"
	cp -R "$P/relpkg" "$T/x/relpkg"
	cp -R "$P/relpkg" "$T/x/lane.3"
	# RETRIAL_SEED=4 puts test_add before test_add_more: all pass
	run sh -c "cd '$T/x/relpkg' && RETRIAL_SEED=4 $RELPKG_CMD"
	status_is 0
	has "5 passed"
	# renamed, the package-relative imports fail at collection
	run sh -c "cd '$T/x/lane.3' && RETRIAL_SEED=4 $RELPKG_CMD"
	status_is 2
	has "ImportError"
	has "attempted relative import beyond top-level package"
}

@test "fixtures: the stale patch applies only with fuzz" {
	jq -r .patch "$P/stale.jsonl" >"$T/stale.diff"
	cp -R "$P/stale" "$T/s"
	cd "$T/s"
	! patch -p1 -F0 --dry-run <"$T/stale.diff"
	! git apply --check "$T/stale.diff"
	run patch -p1 --dry-run <"$T/stale.diff"
	status_is 0
	has "with fuzz 1"
}

# ---- pyrandom: an RNG-state flake (about 11%), fixed by a seeded local RNG ----

@test "pyrandom: the maintainers' fix wins, FIXED" {
	verdict pyrandom | jqe '.type == "verdict" and .verdict == "FIXED"'
	[ "$(rc_of pyrandom)" -eq 0 ]
	verdict pyrandom | jqe '.baseline.verdict == "FLAKY" and (.baseline.source | startswith("input")) and (.baseline.pairing | startswith("seed"))'
	verdict pyrandom | jqe '.winner.id == "a-fix"'
	lane pyrandom a-fix '.status == "winner" and .failures == 0 and .rule == null'
}

@test "pyrandom: the decoy stays flaky and is eliminated" {
	lane pyrandom a-decoy '(.status == "eliminated" or .status == "undecided") and .failures > 0 and .rule == null'
}

@test "pyrandom: a deleted assert is neutered as assertion-removed, at its line" {
	# checks the guard: the reason names file:line, as every rule's does
	lane pyrandom a-delete-assert '.status == "neutered" and .rule == "assertion-removed" and .trials == 0'
	lane pyrandom a-delete-assert '.reason | test("^assertion-removed: .*tests/test_sampling\\.py:28")'
}

@test "pyrandom: @pytest.mark.skip is neutered as skip, at its line" {
	lane pyrandom a-skip '.status == "neutered" and .rule == "skip" and .trials == 0'
	lane pyrandom a-skip '.reason | test("^skip: .*@pytest\\.mark\\.skip.*tests/test_sampling\\.py:25")'
}

@test "pyrandom: a return before the assert is neutered as early-return, at its line" {
	lane pyrandom a-return '.status == "neutered" and .rule == "early-return" and .trials == 0'
	lane pyrandom a-return '.reason | test("^early-return: .*return.*tests/test_sampling\\.py:28")'
}

@test "pyrandom: an assert wrapped in try/except AssertionError is neutered, at its line" {
	# checks the guard
	# the swallowed assert is not the file's first assert: the guard must
	# find the one the patch touched (a static rule, or the canary aimed
	# at the patched assert), never race it as a fix
	lane pyrandom a-swallow '.status == "neutered" and (.rule == "canary" or .rule == "assertion-swallowed")'
	lane pyrandom a-swallow '.reason | test("^(canary|assertion-swallowed): .*tests/test_sampling\\.py:(28|29)")'
}

@test "pyrandom: a changed tolerance only is neutered as expected-value-changed, at its line" {
	lane pyrandom a-expected '.status == "neutered" and .rule == "expected-value-changed" and .trials == 0'
	lane pyrandom a-expected '.reason | test("^expected-value-changed: .*<= 50.*tests/test_sampling\\.py:28")'
}

# ---- unitpkg: a hash-order flake in a TestCase inside hashpkg/core.py ----

@test "unitpkg: sorting before joining wins, FIXED" {
	verdict unitpkg | jqe '.type == "verdict" and .verdict == "FIXED" and .winner.id == "b-fix"'
	[ "$(rc_of unitpkg)" -eq 0 ]
	lane unitpkg b-fix '.status == "winner" and .failures == 0 and .rule == null'
}

@test "unitpkg: deleting the failing assertEqual lines of a TestCase in a package module is assertion-removed" {
	# checks the guard: hashpkg/core.py is not named test_*, but it is a
	# test file because it holds a unittest.TestCase
	lane unitpkg b-delete '.status == "neutered" and .rule == "assertion-removed" and .trials == 0'
	lane unitpkg b-delete '.reason | test("^assertion-removed: .*hashpkg/core\\.py:4[56]")'
}

@test "unitpkg: the decoy is eliminated" {
	lane unitpkg b-decoy '(.status == "eliminated" or .status == "undecided") and .failures > 0 and .rule == null'
}

# ---- relpkg: an order flake under pytest-random-order, package-relative imports ----

@test "relpkg: the baseline measures the true rate in a copy still named relpkg, no false REGRESSION" {
	# checks rt-verify's copies: a lane, baseline or confirmation copy keeps
	# the project directory's own name, or the package cannot be imported
	# and every trial fails (ALWAYS_FAILING, a false REGRESSION)
	verdict relpkg | jqe '.verdict != "REGRESSION"'
	verdict relpkg | jqe '.baseline.source == "measured" and .baseline.trials == 40 and .baseline.verdict == "FLAKY"'
	# about half the orders fail, never all of them
	verdict relpkg | jqe '.baseline.failures >= 8 and .baseline.failures <= 32'
}

@test "relpkg: setup_method with the updated expectation wins, FIXED" {
	# checks the copies (as above) and the guard: not a false positive
	# the fix changes the literal of an assert too, but with the
	# setup that makes it true: not expected-value-changed
	verdict relpkg | jqe '.verdict == "FIXED" and .winner.id == "c-fix"'
	[ "$(rc_of relpkg)" -eq 0 ]
	lane relpkg c-fix '.status == "winner" and .rule == null and .failures == 0'
}

@test "relpkg: the same literal change alone is expected-value-changed" {
	# checks the guard: the rule still fires when nothing else changes
	lane relpkg c-expected '.status == "neutered" and .rule == "expected-value-changed" and .trials == 0'
	lane relpkg c-expected '.reason | test("^expected-value-changed: .*== 3.*tests/test_cart\\.py:16")'
}

# ---- stale: a real fix whose patch has one stale context line ----

@test "stale: a patch that applies only with fuzz is patch_failed" {
	# checks rt-verify's patch step: exact context (git apply or patch -F0),
	# never a fuzzy match that could land a hunk in the wrong place
	verdict stale | jqe '.baseline.verdict == "FLAKY" and .baseline.source == "measured"'
	lane stale e-stale '.status == "patch_failed" and .trials == 0 and (.reason | test("does not apply"))'
	# nothing else raced: quarantine, exit 1
	verdict stale | jqe '.verdict == "QUARANTINE" and .winner == null'
	[ "$(rc_of stale)" -eq 1 ]
}

# ---- rt-diff-facts on the runners' own output ----

@test "stdoutonly: pytest's report is on stdout only, and the token comes from it" {
	# checks rt-diff-facts: the token may come from standard output
	tr="$BATS_FILE_TMPDIR/stdoutonly.trials"
	# the fixture: failures, passes, and nothing at all on stderr
	jq -s -e 'map(select(.outcome == "fail")) | length >= 3' "$tr" >/dev/null
	jq -s -e 'map(select(.outcome == "pass")) | length >= 3' "$tr" >/dev/null
	jq -s -e 'map(.stderr) | unique == [""]' "$tr" >/dev/null
	rt-diff-facts "$tr" >"$T/diff"
	jqe '.type == "diff" and .failures >= 3 and .token != null' "$T/diff"
	# the token is in the stdout of every failure and of no pass
	tok=$(jq -r .token "$T/diff")
	jq -s -e --arg t "$tok" 'map(select(.outcome == "fail") | .stdout | contains($t)) | all' "$tr" >/dev/null
	jq -s -e --arg t "$tok" 'map(select(.outcome == "pass") | .stdout | contains($t)) | any | not' "$tr" >/dev/null
}

@test "unitpkg: unittest's AssertionError: 'ab-cd1' != '' gives a token keeping 'ab-cd1' whole" {
	# checks rt-diff-facts: a quoted literal in an assertion message is one
	# word, not "ab" and "cd<num>"
	tr="$BATS_FILE_TMPDIR/unitpkg.trials"
	jq -s -e 'map(select(.outcome == "fail")) | length >= 2' "$tr" >/dev/null
	jq -s -e 'map(select(.outcome == "fail") | .stderr | contains("AssertionError: '"'ab-cd1'"' != '"''"'")) | all' "$tr" >/dev/null
	rt-diff-facts "$tr" >"$T/diff"
	jqe '.token != null and (.token | contains("ab-cd1"))' "$T/diff"
}
