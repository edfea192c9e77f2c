#!/usr/bin/env bats
# rt-verify: the tournament that proves a fix. The fixture project's test
# fails when the last two digits of RETRIAL_SEED are divisible by 3, so
# every run with a given --seed is the same run.
load helper

FX="$RT_TOP/t/fixtures/verify"

setup() {
	mkdir -p "$T/tmp"
	export TMPDIR="$T/tmp"
}

# verify ARGS...: rt-verify on the pool project with a fixed seed and a
# small budget; output in $T/out, exit status in $rc.
verify() {
	rc=0
	rt-verify -C "$FX/pool" -n 30 -N 40 -j 2 --seed 42 "$@" >"$T/out" 2>"$T/err" || rc=$?
}

last() { tail -n 1 "$T/out"; }

# The run most tests read: the pool with every flag that only reports
# (--events, --board) and the genome on, once for the file; its output
# in $BATS_FILE_TMPDIR/pool.{out,err,ev,rc}, its genome under data/.
setup_file() {
	local d=$BATS_FILE_TMPDIR rc=0
	mkdir -p "$d/tmp" "$d/data" "$d/cache"
	find "$FX/pool" -type f -exec cksum {} + | sort >"$d/before"
	TMPDIR="$d/tmp" XDG_DATA_HOME="$d/data" XDG_CACHE_HOME="$d/cache" \
		rt-verify -C "$FX/pool" -n 30 -N 40 -j 2 --seed 42 --events "$d/pool.ev" --board \
		--cmd ./test_pool.sh "$FX/pool.jsonl" >"$d/pool.out" 2>"$d/pool.err" || rc=$?
	echo "$rc" >"$d/pool.rc"
	find "$FX/pool" -type f -exec cksum {} + | sort >"$d/after"
}

# the shared run's output in $T/out and $T/err, its exit status in $rc
pool_run() {
	cp "$BATS_FILE_TMPDIR/pool.out" "$T/out"
	cp "$BATS_FILE_TMPDIR/pool.err" "$T/err"
	rc=$(cat "$BATS_FILE_TMPDIR/pool.rc")
}

@test "rt-verify: --help and --version" {
	run rt-verify --help
	status_is 0
	has "usage: rt-verify"
	has "--isolate MODE"
	has "--target R"
	run rt-verify -V
	status_is 0
	has "(retrial)"
}

@test "rt-verify: usage errors exit 2 and name the problem" {
	run rt-verify "$FX/pool.jsonl"
	status_is 2
	has "no command"
	run rt-verify --isolate chroot --cmd true
	status_is 2
	has "--isolate chroot: want process or copy"
	run rt-verify --confidence 1.5 --cmd true
	status_is 2
	has "--confidence 1.5"
	run rt-verify --target 0 --cmd true
	status_is 2
	run rt-verify -N 0 --cmd true
	status_is 2
	run rt-verify --genome "$T/g.db" --no-genome --cmd true
	status_is 2
	has "exclusive"
	run rt-verify -C "$T/nowhere" --cmd true </dev/null
	status_is 2
	has "nowhere"
}

@test "rt-verify: a project that is / or holds \$HOME is refused; a huge one is warned about" {
	mkdir -p "$T/p/home"
	run env HOME="$T/p/home" rt-verify -C "$T/p" --no-genome --cmd true </dev/null
	status_is 2
	has "$T/p: refusing a project that is or contains \$HOME"
	has "give -C the test's own directory"
	run env HOME="$T/p/home" rt-verify -C "$T/p/home" --no-genome --cmd true </dev/null
	status_is 2
	run rt-verify -C / --no-genome --cmd true </dev/null
	status_is 2
	has "refusing a project that is /"
	[ -z "$(ls -A "$T/tmp")" ]
	# the current directory is the project: one with many files is named
	mkdir "$T/big" && (cd "$T/big" && seq 10001 | xargs touch)
	(cd "$T/big" && rt-verify -n 2 --no-genome --cmd true </dev/null >"$T/out" 2>"$T/err") || true
	grep -q "warning: the project $T/big holds more than 10000 files" "$T/err"
	last | jqe '.type == "verdict"'
	# an ordinary project draws no warning
	pool_run
	! grep -q "warning" "$T/err"
}

@test "rt-verify: FIXED — the real fix wins, the decoy stays flaky, bad patches are out" {
	pool_run
	[ "$rc" -eq 0 ]
	# one lane record per hypothesis, then the verdict, last
	[ "$(jq -s 'map(select(.type == "lane")) | length' "$T/out")" -eq 5 ]
	last | jqe '.type == "verdict" and .verdict == "FIXED" and .interrupted == false'
	last | jqe '.winner.id == "h-fix" and .winner.source == "cache" and (.winner.patch | startswith("--- a/pool.sh"))'
	last | jqe '.baseline.verdict == "FLAKY" and .baseline.source == "measured" and .baseline.trials >= 30'
	last | jqe '.lanes[] | select(.id == "h-decoy") | .failures > 0 and ((.status == "eliminated" and (.reason | test("half as often"))) or (.status == "undecided" and (.reason | test("^undecided after its budget"))))'
	last | jqe '.lanes[] | select(.id == "h-noapply") | .status == "patch_failed" and (.reason | test("does not apply"))'
	last | jqe '.lanes[] | select(.id == "h-outside") | .status == "patch_failed" and (.reason | test("\\.\\."))'
	last | jqe '.lanes[] | select(.id == "h-nopatch") | .status == "not_raced"'
	last | jqe '.lanes[] | select(.id == "h-fix") | .status == "winner" and .failures == 0 and (.summary | test("^0/[0-9]+ failed \\(≤"))'
	# zero failures are given by their upper bound in every reason, never "0.0–"
	last | jqe '.lanes[] | select(.id == "h-fix") | .reason | test("0/[0-9]+ failed, interval ≤[0-9.]+%")'
	! grep -q "interval 0\.0–" "$T/out"
	# the user's tree is untouched and no copy is left behind
	cmp "$BATS_FILE_TMPDIR/before" "$BATS_FILE_TMPDIR/after"
	[ -z "$(ls -A "$BATS_FILE_TMPDIR/tmp")" ]
}

@test "rt-verify: the confirmation size and rule are rt-plan's, and 0/n reads FIXED" {
	pool_run
	runs=$(rt-plan -r 0.1 -c 0.95 | jq .runs)
	last | jqe --argjson n "$runs" '.confirmations | length == 1 and .[0].required_runs == $n and .[0].trials == $n and .[0].failures == 0 and .[0].passed == true'
	# what 0/n proves is reported as its own bound, below the target
	last | jqe '.confirmations[0].ci_high < 0.1 and .confirmations[0].reference_rate == 0.1'
	last | jqe '.confirmations[0].summary | test("^0/29 failed \\(≤9\\.9% at 95% confidence")'
	last | jqe '.rule | test("runs_to_claim\\(10\\.0%, 0\\.95\\) = 29")'
	# confirmation trials are fresh: numbered after every trial raced
	cp "$BATS_FILE_TMPDIR/pool.ev" "$T/ev"
	first=$(jq -s 'map(select(.event == "confirmation_started"))[0].first_trial' "$T/ev")
	raced=$(jq -s '[.[] | select(.event == "trial" and .lane != "confirm") | .trial] | max' "$T/ev")
	[ "$first" -gt "$raced" ]
}

@test "rt-verify: a failed confirmation tries the runner-up; alpha is split over the rounds" {
	verify --cmd ./test_pool.sh "$FX/lucky.jsonl"
	[ "$rc" -eq 0 ]
	last | jqe '.verdict == "FIXED" and .winner.id == "h-fix"'
	last | jqe '[.confirmations[].id] == ["h-lucky", "h-fix"]'
	last | jqe '.confirmations[0].passed == false and .confirmations[0].failures > 0'
	last | jqe '.confirmations[1].passed == true and .confirmations[1].required_runs == 36 and .confirmations[1].confidence == 0.975'
	last | jqe '.lanes[] | select(.id == "h-lucky") | .status == "eliminated" and (.reason | test("failed its confirmation"))'
	[ "$(rt-plan -r 0.1 -c 0.975 | jq .runs)" -eq 36 ]
}

@test "rt-verify: every neutering trick is disqualified by its rule" {
	verify --cmd ./test_pool.sh "$FX/tricks.jsonl"
	last | jqe '[.lanes[] | select(.status != "neutered")] == []'
	got=$(last | jq -r '.lanes[] | "\(.id)=\(.rule)"' | sort | tr '\n' ' ')
	want="x-assert-self=tautology x-assert-true=tautology x-delete-assert=assertion-removed \
x-exit0=early-exit x-expect-true=tautology x-expected=expected-value-changed x-go-skip=skip \
x-if0=if-0 x-or-true=or-true x-os-exit=early-exit x-pytest-skip=skip x-remove-call=call-removed \
x-skip-marker=skip x-sys-exit=early-exit x-weaken=assertion-weakened "
	[ "$got" = "$want" ] || { echo "got:  $got"; echo "want: $want"; false; }
	# each reason names the rule and where
	last | jqe '.lanes[] | select(.id == "x-sys-exit") | .reason | test("^early-exit: .*sys.exit\\(0\\).*test_pool.py:")'
	# nothing survived, so the run never dead-ends: QUARANTINE, exit 1
	last | jqe '.verdict == "QUARANTINE" and .winner == null'
	[ "$rc" -eq 1 ]
}

@test "rt-verify: a shell test's kept final exit 0 is not an early exit; every other added exit is" {
	# e-tail rewrites the end of a test that already ended with "exit 0"
	(echo '{"type":"measure","trials":30,"failures":10}'; cat "$FX/shexit.jsonl") |
		rt-verify -C "$FX/shexit" -N 4 -j 2 --seed 42 --no-genome --no-canary \
		--cmd ./test_end.sh >"$T/out" || rc=$?
	[ "$rc" -eq 1 ]   # QUARANTINE: only e-tail raced, on four trials
	last | jqe '.lanes[] | select(.id == "e-tail") | .status != "neutered" and .trials > 0'
	# before the checks, under a condition, or after a final check whose
	# status it would mask: still an early exit
	last | jqe '[.lanes[] | select(.id != "e-tail") | "\(.id)=\(.rule)"] | sort == ["e-cond=early-exit", "e-early=early-exit", "e-mask=early-exit"]'
	last | jqe '.lanes[] | select(.id == "e-mask") | .reason | test("exit 0` at test_last.sh:6")'
}

@test "rt-verify: the canary disqualifies a test that passes with its assertion inverted" {
	# the interpreter itself, without site: a version manager's shim is slow;
	# the system's where there is one (as root the trials run as nobody,
	# who cannot reach a version manager's under /root)
	py=/usr/bin/python3
	[ -x "$py" ] || py=$(python3 -c 'import sys; print(sys.executable)')
	# the static guard sees the swallowed assertion first
	rt-verify -C "$FX/pyslot" -n 20 -N 40 -j 2 --seed 42 --no-genome --cmd "$py -S test_slot.py" \
		"$FX/pyslot.jsonl" >"$T/out"
	last | jqe '.lanes[] | select(.id == "p-swallow") | .status == "neutered" and .rule == "assertion-swallowed" and (.reason | test("test_slot.py:[0-9]+"))'
	last | jqe '.verdict == "FIXED" and .winner.id == "p-fix"'
	# the real fix's canary is placed in the test and bites on every trial
	last | jqe '.lanes[] | select(.id == "p-fix") | .canary.placed == true and .canary.verdict == "live" and .canary.failures >= 3 and .canary.trials <= 5'
	# --allow overrules that rule, and says so; the canary still catches it
	rt-verify -C "$FX/pyslot" -n 20 -N 40 -j 2 --seed 42 --no-genome --allow assertion-swallowed \
		--cmd "$py -S test_slot.py" "$FX/pyslot.jsonl" >"$T/out"
	last | jqe '.allowed_rules == ["assertion-swallowed"]'
	last | jqe '.lanes[] | select(.id == "p-swallow") | .status == "neutered" and .rule == "canary" and .overruled[0].rule == "assertion-swallowed" and (.reason | test("test_slot.py:[0-9]+: .*assert slot")) and .canary.passes == null and .canary.trials >= 3'
	# without both the swallowing patch races (and looks just as good)
	rt-verify -C "$FX/pyslot" -n 20 -N 40 -j 2 --seed 42 --no-genome --no-canary --allow assertion-swallowed \
		--cmd "$py -S test_slot.py" "$FX/pyslot.jsonl" >"$T/out2"
	tail -n 1 "$T/out2" | jqe '.lanes[] | select(.id == "p-swallow") | .status != "neutered"'
	run rt-verify --allow no-such-rule --cmd true
	status_is 2
	has "--allow no-such-rule"
}

@test "rt-verify: the detect gate ends at once for always-failing, stable and error-only commands" {
	verify --events "$T/ev" --cmd false "$FX/pool.jsonl"
	[ "$rc" -eq 1 ]
	last | jqe '.verdict == "REGRESSION" and ([.lanes[].status] | unique) == ["not_raced"] and .confirmations == []'
	! grep -q race_started "$T/ev"
	rt-verify -C "$FX/pool" -n 40 --seed 1 --cmd true "$FX/pool.jsonl" >"$T/out" || rc=$?
	# no failure in -n 40: the original runs on until 0/n shows it below 1%
	last | jqe '.verdict == "ALREADY_STABLE" and .baseline.trials == 299 and (.baseline.summary | startswith("0/299 failed (≤"))'
	verify --cmd 'exit 127' "$FX/pool.jsonl"
	[ "$rc" -eq 2 ]
	last | jqe '.verdict == "ERROR" and .baseline.trials == 0 and .baseline.errors == 30 and .baseline.rate == null'
	{ echo '{"type":"measure","trials":10,"failures":0}'; cat "$FX/pool.jsonl"; } |
		rt-verify -C "$FX/pool" --seed 1 --cmd true >"$T/out" || true
	last | jqe '.verdict == "INCONCLUSIVE_BASELINE" and .baseline.source == "input"'
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "rt-verify: a measure record in the input is the baseline" {
	(cd "$FX/pool" && rt-measure -n 40 --seed 9 --cmd ./test_pool.sh) >"$T/in"
	cat "$FX/pool.jsonl" >>"$T/in"
	rt-verify -C "$FX/pool" -N 40 --seed 42 --no-genome --cmd ./test_pool.sh "$T/in" >"$T/out"
	last | jqe \
		'(.baseline.source | startswith("input")) and .baseline.input_trials == 40 and .baseline.trials >= 40 and .verdict == "FIXED"'
}

@test "rt-verify: -- ARGV with hypotheses on stdin" {
	rt-verify -C "$FX/pool" -n 30 -N 40 --seed 42 --no-genome -- ./test_pool.sh \
		<"$FX/pool.jsonl" >"$T/out"
	last | jqe '.verdict == "FIXED" and .command == "./test_pool.sh"'
}

@test "rt-verify: --isolate copy gives every trial a fresh copy" {
	# the test leaves a marker behind and fails if it finds one: only a
	# fresh copy per trial measures the race itself
	cmd='test ! -e marker && touch marker && ./test_pool.sh'
	verify --isolate copy --no-genome --cmd "$cmd" "$FX/pool.jsonl"
	last | jqe '.verdict == "FIXED"'
	verify --no-genome --cmd "$cmd" "$FX/pool.jsonl"
	last | jqe '.verdict != "FIXED"'
	[ ! -e "$FX/pool/marker" ]
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "rt-verify: --keep keeps the copies and says where" {
	verify --keep --no-genome --cmd ./test_pool.sh "$FX/pool.jsonl"
	grep -q "kept the copies in $T/tmp/rt-verify" "$T/err"
	ls -d "$T"/tmp/rt-verify.*/lane.* >/dev/null
}

@test "rt-verify: --events is a typed JSONL stream that follows the run" {
	cp "$BATS_FILE_TMPDIR/pool.ev" "$T/ev"
	jqe -s 'all(.type == "event" and (.t | type) == "number")' "$T/ev"
	jqe -s 'any(.event == "lane_eliminated" or .event == "lane_undecided")' "$T/ev"
	for e in start baseline race_started trial lane_survived \
		lane_patch_failed lane_not_raced confirmation_started winner_confirmed verdict; do
		jqe -s --arg e "$e" 'any(.event == $e)' "$T/ev"
	done
	jqe -s 'map(select(.event == "verdict"))[0].winner == "h-fix"' "$T/ev"
}

@test "rt-verify: --board prints one line per lane on stderr" {
	pool_run
	grep -q "h-fix .* winner" "$T/err"
	grep -q "h-decoy .* \(eliminated\|undecided\)$" "$T/err"
	grep -q "baseline .* [0-9]* trials" "$T/err"
	# zero failures with their upper bound; the confirmation round has a row
	grep -q "h-fix .* 0 failed  ≤[0-9.]*% .* winner" "$T/err"
	grep -q "h-fix  *confirmation  *29 trials    0 failed  ≤9\.9% .* passed" "$T/err"
	# under the last board, why each lane ended so, and the verdict
	grep -q "^  h-decoy: \(undecided after its budget of 40 trials\|[0-9]*/[0-9]* failed .* half as often\)" "$T/err"
	grep -q "^  h-noapply: the patch does not apply" "$T/err"
	grep -q "^rt-verify: FIXED by h-fix: on fresh trials 0/29 failed (≤9\.9%" "$T/err"
	# columns line up although "≤" and "–" are multibyte
	python3 -c '
import re, sys
rows = [l for l in open(sys.argv[1], encoding="utf-8") if re.match(r"  (baseline|h-[a-z]+) +[a-z_]+ +[0-9]+ trials", l)]
cols = {re.search(r"failed  \S+ +", l).end() for l in rows}
assert len(rows) >= 13 and len(cols) == 1, (len(rows), cols)' "$T/err"
}

@test "rt-verify: every elimination states its numbers; nothing is called worse" {
	verify --cmd ./test_pool.sh "$FX/pool.jsonl" "$FX/tricks.jsonl"
	last | jqe '[.lanes[] | select(.status == "eliminated") | .reason | test("[0-9]+/[0-9]+ failed.*interval ([0-9.]+%?–|≤)[0-9.]+%")] | all'
	! grep -qi "worse" "$T/out"
}

@test "rt-verify: IMPROVED — better on fresh trials, but not shown below the target" {
	jq -c 'select(.id == "h-partial")' "$FX/improved.jsonl" >"$T/partial"
	rt-verify -C "$FX/pool" -n 40 -N 100 --seed 1 --no-genome --cmd ./test_pool.sh "$T/partial" >"$T/out"
	last | jqe '.verdict == "IMPROVED" and .winner.id == "h-partial"'
	last | jqe '.confirmations[0] | .passed == false and .improved == true and .failures > 0 and .difference.ci_low > 0 and .difference.method == "newcombe"'
}

@test "rt-verify: a candidate as good as the winner is tied, not worse" {
	verify --cmd ./test_pool.sh "$FX/improved.jsonl"
	last | jqe '.verdict == "FIXED" and .winner.id == "h-fix"'
	last | jqe '.lanes[] | select(.id == "h-fix-again") | .status == "tied" and (.reason | startswith("tied with the winner h-fix: 0/"))'
}

@test "rt-verify: nothing better than the original is QUARANTINE, exit 1" {
	jq -c 'select(.id == "h-decoy")' "$FX/pool.jsonl" >"$T/decoy"
	verify --cmd ./test_pool.sh "$T/decoy"
	[ "$rc" -eq 1 ]
	last | jqe '.verdict == "QUARANTINE" and .winner == null and .confirmations == []'
}

@test "rt-verify: Ctrl-C mid-tournament leaves no copy and no verdict, exit 130" {
	rt-verify -C "$FX/pool" -n 6 -N 40 --seed 42 -j 3 --events "$T/ev" --genome "$T/g.db" \
		--cmd './test_pool.sh; s=$?; sleep 0.3; exit $s' "$FX/pool.jsonl" >"$T/out" 2>"$T/err" &
	pid=$!
	for i in $(seq 200); do
		grep -q race_started "$T/ev" 2>/dev/null && break
		sleep 0.05
	done
	grep -q race_started "$T/ev"
	ls -d "$T"/tmp/rt-verify.*/lane.* >/dev/null
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ]
	[ -z "$(ls -A "$T/tmp")" ]
	! grep -q '"type":"verdict"' "$T/out"
	grep -q "interrupted: no verdict" "$T/err"
	jqe -s 'last.event == "interrupted"' "$T/ev"
	[ ! -e "$T/g.db" ] || [ "$(sqlite3 "$T/g.db" 'select count(*) from runs')" -eq 0 ]
}

@test "rt-verify: the genome records each run; two concurrent runs lose nothing" {
	db="$BATS_FILE_TMPDIR/data/retrial/genome.db"
	[ "$(sqlite3 "$db" 'select verdict from runs')" = "FIXED" ]
	[ "$(sqlite3 "$db" "select status from hypotheses where hyp_id = 'h-fix'")" = "winner" ]
	for i in 1 2 3; do
		rt-verify -C "$FX/pool" -n 30 -N 40 --seed $i --genome "$T/g.db" --cmd ./test_pool.sh \
			"$FX/pool.jsonl" >"$T/o$i" 2>"$T/e$i" &
	done
	wait
	[ "$(sqlite3 "$T/g.db" 'select count(*) from runs')" -eq 3 ]
	[ "$(sqlite3 "$T/g.db" 'select count(*) from hypotheses')" -eq 15 ]
	[ "$(sqlite3 "$T/g.db" 'pragma journal_mode')" = "wal" ]
	[ "$(sqlite3 "$T/g.db" 'pragma user_version')" -eq 3 ]
	rm -rf "$XDG_DATA_HOME"
	verify --no-genome --cmd ./test_pool.sh "$FX/pool.jsonl"
	[ ! -e "$XDG_DATA_HOME/retrial/genome.db" ]
}

@test "rt-verify: a genome that cannot be written is a failure, exit 2, after the verdict" {
	verify --genome "$T/no/such/dir/g.db" --cmd ./test_pool.sh "$FX/pool.jsonl"
	[ "$rc" -eq 2 ]
	grep -q "genome: " "$T/err"
	last | jqe '.verdict == "FIXED"'
}

@test "rt-verify: bad hypothesis input names the file and line" {
	printf '%s\n' '{"type":"hypothesis","id":"a","patch":null}' '{"type":"hypothesis","id":"a","patch":null}' >"$T/dup"
	run rt-verify -C "$FX/pool" --cmd true "$T/dup"
	status_is 2
	has "$T/dup:2: duplicate hypothesis id \"a\""
	printf '{"type":"hypothesis"}\n' >"$T/noid"
	run rt-verify -C "$FX/pool" --cmd true "$T/noid"
	status_is 2
	has "noid:1: hypothesis record: field \"id\" is missing"
	printf 'not json\n' >"$T/bad"
	run rt-verify -C "$FX/pool" --cmd true "$T/bad"
	status_is 2
	has "bad:1: invalid JSON"
	# a measure record's counts are checked where they are read
	printf '%s\n' '{"type":"x"}' '{"type":"measure","trials":10,"failures":20}' >"$T/m"
	run rt-verify -C "$FX/pool" --no-genome --cmd true "$T/m"
	status_is 2
	has "$T/m:2: measure record: field \"failures\" must be at most \"trials\" (20 failures in 10 trials)"
	printf '{"type":"measure","trials":10,"failures":2,"errors":-1}\n' >"$T/m"
	run rt-verify -C "$FX/pool" --no-genome --cmd true "$T/m"
	status_is 2
	has "$T/m:1: measure record: field \"errors\" must be a whole number >= 0, not -1"
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "rt-verify: an input without hypotheses says so in its QUARANTINE" {
	run rt-verify -C "$FX/pool" -n 12 --seed 42 --no-genome --cmd ./test_pool.sh </dev/null
	status_is 1
	echo "$output" | tail -n 1 | jqe '.verdict == "QUARANTINE" and (.summary | startswith("QUARANTINE: the input held no hypothesis to race; the original "))'
}

@test "rt-verify: --race-failing races an original that fails every trial (an ordered polluter-victim pair)" {
	mkdir -p "$T/ordered"
	printf 'polluted\n' >"$T/ordered/state"
	printf '#!/bin/sh\n# the victim after its polluter: fails until the polluter cleans up\ntest "$(cat state)" = clean\n' >"$T/ordered/test_pair.sh"
	chmod +x "$T/ordered/test_pair.sh"
	jq -nc '{type: "hypothesis", id: "o-fix", source: "rules", cause_class: "order_dependency",
		patch: "--- a/state\n+++ b/state\n@@ -1 +1 @@\n-polluted\n+clean\n", status: "ok"}' >"$T/o.jsonl"
	rc=0
	rt-verify -C "$T/ordered" -n 30 -j 2 --seed 3 --no-genome --cmd ./test_pair.sh "$T/o.jsonl" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 1 ]
	last | jqe '.verdict == "REGRESSION"'
	rc=0
	rt-verify -C "$T/ordered" -n 30 -j 2 --seed 3 --no-genome --race-failing --cmd ./test_pair.sh "$T/o.jsonl" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 0 ]
	last | jqe '.verdict == "FIXED" and .winner.id == "o-fix" and .baseline.failures == .baseline.trials'
	last | jqe '.confirmations[0].passed == true and .confirmations[0].required_runs == 29'
}

@test "rt-verify: with a measure record as the baseline, lanes are still paired with the original by seed" {
	# the flake is a function of RETRIAL_SEED alone, so a patch that
	# changes nothing agrees with the original on every seed-paired trial
	mkdir -p "$T/seedy"
	printf '#!/bin/sh\n[ $(( RETRIAL_SEED %% 4 )) -ne 0 ] || { echo "seedy: unlucky seed" >&2; exit 1; }\n' >"$T/seedy/test_seedy.sh"
	chmod +x "$T/seedy/test_seedy.sh"
	printf 'notes\n' >"$T/seedy/NOTES"
	(cd "$T/seedy" && rt-measure -n 40 --seed 5 --cmd ./test_seedy.sh) >"$T/in"
	jq -nc '{type: "hypothesis", id: "h-noop", source: "cache", cause_class: "order",
	    explanation: "A note.", files: ["NOTES"],
	    patch: "--- a/NOTES\n+++ b/NOTES\n@@ -1 +1,2 @@\n notes\n+more notes\n"}' >>"$T/in"
	rt-verify -C "$T/seedy" -N 60 --seed 11 --no-genome --cmd ./test_seedy.sh "$T/in" >"$T/out" 2>"$T/err" || true
	last | jqe '.baseline.input_trials == 40 and .baseline.source == "input+measured" and
	    (.baseline.pairing | startswith("seed (the original run alongside")) and
	    (.lanes[] | select(.id == "h-noop") | .pairs.pairs > 0 and .pairs.original_only == 0 and .pairs.lane_only == 0)'
}

@test "rt-verify: a tie goes to the smaller diff, whatever the input order" {
	big=$(printf '%s\n' '--- a/pool.sh' '+++ b/pool.sh' '@@ -10,10 +10,8 @@' \
	    ' last=${last#0}' ' case ${1:-} in' ' acquire)' \
	    '-	if [ $(( ${last:-0} % 3 )) -eq 0 ]; then' \
	    '-		echo "pool: EXHAUSTED, slot taken by a concurrent holder" >&2' \
	    '-		exit 1' '-	fi' '+	# the pool hands out a slot to every caller:' \
	    '+	# no concurrent holder can take it any more' ' 	echo slot' ' 	;;' ' *)')
	jq -c --arg p "$big" 'select(.id == "h-fix") | .id = "h-big" | .patch = $p' \
	    "$FX/pool.jsonl" >"$T/h.jsonl"
	jq -c 'select(.id == "h-fix")' "$FX/pool.jsonl" >>"$T/h.jsonl"
	verify --no-genome --cmd ./test_pool.sh "$T/h.jsonl"
	[ "$rc" -eq 0 ]
	last | jqe '.verdict == "FIXED" and .winner.id == "h-fix" and .winner.changes_checks == false'
	last | jqe '.lanes[] | select(.id == "h-big") | .status == "tied" and .diff_lines == 6 and (.reason | test("its diff is larger"))'
	last | jqe '.lanes[] | select(.id == "h-fix") | .diff_lines == 4 and (.reason | test("first of the lanes tied"))'
	# the other order: the same winner
	jq -c 'select(.id == "h-fix")' "$FX/pool.jsonl" >"$T/h2.jsonl"
	jq -c 'select(.id == "h-big")' "$T/h.jsonl" >>"$T/h2.jsonl"
	verify --no-genome --cmd ./test_pool.sh "$T/h2.jsonl"
	last | jqe '.verdict == "FIXED" and .winner.id == "h-fix"'
}
