#!/usr/bin/env bats
# t/32-tournament.bats: lib/rt_tournament — the code rt-verify runs —
# driven by bench/stopping-rules on Bernoulli stub trials: every cell's
# false FIXED within the gate, and the gate catching a race that declares
# every lane better.

load helper

B="$BATS_TEST_DIRNAME/../bench/stopping-rules"

setup_file() {
	make -s -C "$BATS_TEST_DIRNAME/.." bench/stopping-rules >&2
}

@test "stopping-rules: a bad --mutate is a usage error, exit 2, naming it" {
	run "$B" --mutate nothing
	[ "$status" -eq 2 ]
	[[ "$output" == *"--mutate nothing: want every-lane-better"* ]]
	run "$B" -r 0
	[ "$status" -eq 2 ]
}

@test "stopping-rules: the tournament passes its gate, with no-op and boundary cells at 2%, 5% and 10%" {
	run "$B" -q
	[ "$status" -eq 0 ]
	[[ "$output" == *"gate: pass"* ]]
	for c in "no-op 2%" "no-op 5%" "no-op 10%" "boundary 2%" "boundary 5%" \
	    "boundary 10%" "power 2%"; do
		[[ "$output" == *"| $c "* ]]
	done
	# a real fix is found: the power cells FIXED by the fix every time here
	[[ "$output" == *"| power 10%      | 0%,10%              | 100.0% |"* ]]
	[[ "$output" != *"**FAIL**"* ]]
	# a real fix with a 50-line diff beside four 5-line partial fixes at
	# the target: confirmation in the statistical order, so the real fix wins
	for c in "tie 30%" "tie 50%"; do
		line=$(printf '%s\n' "$output" | grep "^| $c ")
		[[ "$line" == *"| ok |" ]]
	done
}

@test "stopping-rules: with the race mutated to declare every lane better, the no-op cells fail the gate, exit 1" {
	run "$B" -r 100 --mutate every-lane-better
	[ "$status" -eq 1 ]
	[[ "$output" == *"MUTATED: the race declares every lane better"* ]]
	[[ "$output" == *"gate: FAIL: "*"no-op 2%"* ]]
	line=$(printf '%s\n' "$output" | grep '^| no-op 2% ')
	[[ "$line" == *"**FAIL**"* ]]
}

# one word for each lane state (rt-verify(1), LANE STATES): the set the
# manual documents, and every word the board, the records, rt-report and
# rt-pr use for a lane drawn from it
@test "lane states: the board, the lane and verdict records, rt-report and rt-pr say each state with one documented word" {
	FX="$RT_TOP/t/fixtures/verify"
	mkdir -p "$T/tmp"
	sed -n '/^\.Sh LANE STATES/,/^\.Sh /p' "$RT_TOP/man/man1/rt-verify.1" |
	    sed -n 's/^\.It Li \([a-z_]*\)$/\1/p' | sort >"$T/doc"
	[ "$(tr '\n' ' ' <"$T/doc")" = "eliminated neutered not_raced patch_failed survived tied undecided winner " ]
	TMPDIR="$T/tmp" rt-verify -C "$FX/pool" -n 30 -N 40 -j 2 --seed 42 --board --no-genome \
	    --cmd ./test_pool.sh "$FX/pool.jsonl" >"$T/out" 2>"$T/err"
	# the board: each lane row's last word (the baseline and confirmation
	# rows are not lanes)
	awk '/^  / && $4 == "trials" && $2 != "original" && $2 != "confirmation" { print $NF }' "$T/err" |
	    sort -u >"$T/board"
	jq -r 'select(.type == "lane") | .status' "$T/out" | sort -u >"$T/lanes"
	jq -r 'select(.type == "verdict") | .lanes[].status' "$T/out" | sort -u >"$T/verdict"
	# rt-pr: the summary's words and each row's fate; rt-report: its table
	rt-pr --body - "$T/out" >"$T/pr"
	sed -n 's/^[0-9]* hypothes[a-z]*: //p' "$T/pr" | tr -d '.' | tr ',' '\n' |
	    awk '{ print $2 }' | sort -u >"$T/prsum"
	awk -F ' [|] ' '/^\| h-/ { split($6, w, " "); gsub(/\*/, "", w[1]); print w[1] }' "$T/pr" |
	    sort -u >"$T/prrow"
	rt-report -t "$T/out" >"$T/rep"
	awk -F ' [|] ' '/^\| `h-/ { print $2 }' "$T/rep" | sort -u >"$T/reprow"
	rt-report --autopsy - "$T/out" >"$T/aut"
	for f in board lanes verdict prsum prrow reprow; do
		[ -s "$T/$f" ]
		comm -23 "$T/$f" "$T/doc" >"$T/bad"
		[ ! -s "$T/bad" ] || { echo "$f: undocumented: $(cat "$T/bad")"; false; }
	done
	# the run has an undecided decoy: undecided everywhere, never eliminated
	jq -e 'select(.type == "verdict") | .lanes[] | select(.id == "h-decoy") |
	    .status == "undecided" and (.reason | startswith("undecided after its budget"))' "$T/out"
	grep -q '^  h-decoy .* undecided$' "$T/err"
	grep -q '^| h-decoy | .* | undecided after its budget' "$T/pr"
	grep -q '^| `h-decoy` concurrency | undecided |' "$T/rep"
	grep -q '^h-decoy is undecided: ' "$T/aut"
	! grep -q 'eliminated\|set aside' "$T/aut"
	for f in board lanes verdict prsum prrow reprow; do
		! grep -qx eliminated "$T/$f"
	done
}
