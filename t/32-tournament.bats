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
