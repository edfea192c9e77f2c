#!/usr/bin/env bats
# rt-plan: runs to claim a fix, the CI policy, from a rate or a measure record.
# Golden values computed independently with python3 (exact Fractions).
load helper

measure8() {
	# 8/40 failed; the Wilson 95% interval is [0.104999, 0.347576]
	printf '%s\n' '{"type":"trial","trial":1,"outcome":"pass"}' \
	    '{"type":"measure","command":"x","trials":40,"failures":8,"timeouts":0,"errors":0,"ignored":0,"rate":0.2,"ci_low":0.104999,"ci_high":0.347576,"confidence":0.95,"z":1.96,"verdict":"FLAKY"}' \
	    >"$T/m8.jsonl"
}

measure0() {
	printf '%s\n' '{"type":"measure","command":"x","trials":40,"failures":0,"rate":0,"ci_low":0,"ci_high":0.087625,"confidence":0.95,"verdict":"STABLE"}' \
	    >"$T/m0.jsonl"
}

# --- usage and exit codes -------------------------------------------------

@test "--help prints the synopsis and every option, exit 0" {
	run rt-plan --help
	status_is 0
	has "usage: rt-plan"
	for o in --rate --confidence --choose --basis --policy --target --window --text --version; do
		has "$o"
	done
}

@test "--version prints the version" {
	run rt-plan -V
	status_is 0
	has "rt-plan (retrial)"
}

@test "unknown option is a usage error (exit 2)" {
	run rt-plan --frobnicate
	status_is 2
	has "rt-plan: --frobnicate: unknown option"
	has "--help"
}

@test "an option without its value is a usage error" {
	run rt-plan --rate
	status_is 2
	has "rt-plan: --rate: needs a value"
}

@test "--confidence 1.5 is refused by name" {
	run rt-plan --rate 0.2 --confidence 1.5
	status_is 2
	has "rt-plan: --confidence 1.5: must be between 0 and 1 (exclusive)"
}

@test "--confidence 0 and 1 are refused (exclusive)" {
	run rt-plan --rate 0.2 --confidence 1
	status_is 2
	has "--confidence 1: must be between 0 and 1 (exclusive)"
	run rt-plan --rate 0.2 --confidence 0.9,0
	status_is 2
	has "--confidence 0: must be between"
}

@test "--rate abc and --rate 1.2 are refused" {
	run rt-plan --rate abc
	status_is 2
	has "rt-plan: --rate abc: not a number"
	run rt-plan --rate 1.2
	status_is 2
	has "rt-plan: --rate 1.2: must be between 0 and 1"
}

@test "--rate 0 has nothing to plan against" {
	run rt-plan --rate 0
	status_is 2
	has "--rate 0: no failure to plan a fix against"
}

@test "--basis must be point or upper; upper needs an interval" {
	run rt-plan --rate 0.2 --basis middle
	status_is 2
	has "--basis middle: must be point or upper"
	run rt-plan --rate 0.2 --basis upper
	status_is 2
	has "--basis upper needs a measure record"
}

@test "--target, --window and --choose are checked" {
	run rt-plan --rate 0.2 --policy --target 1
	status_is 2
	has "--target 1: must be between 0 and 1 (exclusive)"
	run rt-plan --rate 0.2 --policy --window 0
	status_is 2
	has "--window 0: must be between 1 and"
	run rt-plan --rate 0.2 --confidence 0.9,0.95 --choose 0.99
	status_is 2
	has "--choose 0.99: not one of the --confidence levels"
}

@test "--rate with a file operand is refused" {
	measure8
	run rt-plan --rate 0.2 "$T/m8.jsonl"
	status_is 2
	has "--rate and a measure input are exclusive"
}

# --- behaviour: plans -----------------------------------------------------

@test "--rate 0.2: 14 runs at 95%" {
	run rt-plan --rate 0.2
	status_is 0
	[ "$output" = '{"type":"plan","rate":0.2,"confidence":0.95,"runs":14,"basis":"point"}' ]
}

@test "--rate 0.2 at 90% and 99%: 11 and 21 runs" {
	run rt-plan -r 0.2 -c 0.9
	status_is 0
	echo "$output" | jqe '.runs == 11 and .confidence == 0.9'
	run rt-plan -r 0.2 -c 0.99
	echo "$output" | jqe '.runs == 21'
}

@test "integer boundary: rate 0.5 at 75% needs exactly 2 runs" {
	run rt-plan -r 0.5 -c 0.75
	status_is 0
	echo "$output" | jqe '.runs == 2'
}

@test "several levels: levels, observed_rate, chosen 0.95" {
	run rt-plan --rate 0.2 --confidence 0.9,0.95,0.99
	status_is 0
	echo "$output" | jqe '.type == "plan" and .observed_rate == 0.2 and .basis == "point"'
	echo "$output" | jqe '.levels == [{"confidence":0.9,"runs":11},{"confidence":0.95,"runs":14},{"confidence":0.99,"runs":21}]'
	echo "$output" | jqe '.chosen == {"confidence":0.95,"runs":14}'
}

@test "--choose picks another level" {
	run rt-plan --rate 0.2 --confidence 0.9,0.95,0.99 --choose 0.99
	status_is 0
	echo "$output" | jqe '.chosen == {"confidence":0.99,"runs":21}'
}

@test "rate 1: one clean run" {
	run rt-plan --rate 1
	status_is 0
	echo "$output" | jqe '.runs == 1'
}

@test "--text says it in a sentence" {
	run rt-plan --rate 0.2 --confidence 0.95 --text
	status_is 0
	[ "$output" = "At a 20.0% failure rate, 14 clean runs in a row show it is fixed at 95% confidence." ]
	run rt-plan --rate 0.2 -c 0.9,0.95,0.99 -t
	[ "$output" = "At a 20.0% failure rate, 11 clean runs in a row show it is fixed at 90% confidence, 14 at 95%, 21 at 99%." ]
}

# --- behaviour: from a measure record ---------------------------------------

@test "a measure record on stdin plans from its rate" {
	measure8
	run rt-plan <"$T/m8.jsonl"
	status_is 0
	echo "$output" | jqe '.type == "plan" and .rate == 0.2 and .runs == 14 and .basis == "point"'
	echo "$output" | jqe '.trials == 40 and .failures == 8 and .ci_low == 0.104999'
}

@test "a file operand works the same as stdin" {
	measure8
	run rt-plan "$T/m8.jsonl"
	status_is 0
	echo "$output" | jqe '.runs == 14'
}

@test "the last measure record wins" {
	measure8
	echo '{"type":"measure","trials":10,"failures":5,"rate":0.5,"ci_low":0.236590,"ci_high":0.763410,"confidence":0.95}' >>"$T/m8.jsonl"
	run rt-plan "$T/m8.jsonl"
	status_is 0
	echo "$output" | jqe '.rate == 0.5 and .runs == 5 and .trials == 10'
}

@test "--basis upper plans a fix from ci_low: 28 runs, not 14" {
	measure8
	run rt-plan --basis upper "$T/m8.jsonl"
	status_is 0
	echo "$output" | jqe '.basis == "upper" and .rate == 0.104999 and .runs == 28 and .observed_rate == 0.2'
}

@test "--basis upper --text names the conservative end" {
	measure8
	run rt-plan -b upper -t "$T/m8.jsonl"
	status_is 0
	has "Measured 8/40 failed (20.0%, 95% CI"
	has "At a 10.5% failure rate (the low end of the interval"
	has "28 clean runs in a row"
}

@test "a measure without an interval gets its Wilson interval" {
	echo '{"type":"measure","trials":40,"failures":8,"confidence":0.95}' >"$T/bare.jsonl"
	run rt-plan -b upper "$T/bare.jsonl"
	status_is 0
	echo "$output" | jqe '.ci_low == 0.104999 and .ci_high == 0.347576 and .runs == 28'
}

@test "0 failures: nothing to plan against (exit 2)" {
	measure0
	run rt-plan "$T/m0.jsonl"
	status_is 2
	has "no failure observed in 40 trials: nothing to plan a fix against"
	[ "$(rt-plan "$T/m0.jsonl" 2>/dev/null)" = "" ]
}

@test "0 failures with --basis upper plans from ci_high" {
	measure0
	run rt-plan --basis upper "$T/m0.jsonl"
	status_is 0
	echo "$output" | jqe '.rate == 0.087625 and .runs == 33 and .observed_rate == 0 and (.note | test("no failure observed"))'
}

# --- behaviour: policy ------------------------------------------------------

@test "--policy at 20%: 14 green runs, retry 2, quarantine after 3 of 100" {
	run rt-plan --rate 0.2 --policy
	status_is 0
	echo "$output" | jqe '.type == "policy" and .observed_rate == 0.2 and .basis == "point" and .confidence == 0.95'
	echo "$output" | jqe '.green_runs_required == 14 and .retry_budget == 2 and .target == 0.01'
	echo "$output" | jqe '.quarantine_after == 3 and .window == 100'
	echo "$output" | jqe '.rule | test("retry a failing run up to 2 times") and test("quarantine when 3 of the last 100 runs")'
	echo "$output" | jqe 'has("note") | not'
}

@test "--policy --target 0.001: retry 4, quarantine after 1" {
	run rt-plan --rate 0.2 --policy --target 0.001
	status_is 0
	echo "$output" | jqe '.retry_budget == 4 and .target == 0.001 and .quarantine_after == 1'
}

@test "--policy --window: 2 of 20, 14 of 1000" {
	run rt-plan --rate 0.2 --policy --window 20
	echo "$output" | jqe '.quarantine_after == 2 and .window == 20'
	run rt-plan --rate 0.2 --policy --window 1000
	echo "$output" | jqe '.quarantine_after == 14 and .window == 1000'
}

@test "--policy at 99% confidence" {
	run rt-plan --rate 0.2 --policy -c 0.99
	status_is 0
	echo "$output" | jqe '.confidence == 0.99 and .green_runs_required == 21 and .quarantine_after == 4'
}

@test "--policy at rate 1: retry_budget null, a note, quarantine after 1" {
	run rt-plan --rate 1 --policy
	status_is 0
	echo "$output" | jqe '.retry_budget == null and .green_runs_required == 1 and .quarantine_after == 1'
	echo "$output" | jqe '.note | test("always fails") and test("not retry")'
}

@test "levels and --policy echo the confidence given: 0.9999999999 is not 1" {
	run rt-plan --rate 0.2 --confidence 0.9,0.9999999999
	status_is 0
	echo "$output" | jqe '.levels[1].confidence == 0.9999999999 and .levels[1].confidence < 1'
	run rt-plan --rate 0.2 --policy -c 0.9999999999 --target 0.0000001
	echo "$output" | jqe '.confidence < 1 and .target == 0.0000001'
}

@test "--policy rule: one clean run is singular" {
	run rt-plan --rate 0.999 --policy
	status_is 0
	echo "$output" | jqe '.green_runs_required == 1 and (.rule | test("by 1 clean run in a row"))'
}

@test "--policy --basis upper: runs from ci_low, retries from ci_high" {
	measure8
	run rt-plan --policy --basis upper "$T/m8.jsonl"
	status_is 0
	echo "$output" | jqe '.green_runs_required == 28 and .retry_budget == 4 and .quarantine_after == 3'
	echo "$output" | jqe '.fix_rate == 0.104999 and .retry_rate == 0.347576 and .observed_rate == 0.2'
}

@test "--policy --text" {
	run rt-plan --rate 0.2 --policy --text
	status_is 0
	has "Retry a failing run up to 2 times"
	has "Quarantine when 3 of the last 100 runs exhaust their retries"
	has "14 clean runs in a row show it is fixed at 95% confidence."
	run rt-plan --rate 1 --policy --text
	has "it always fails"
	has "not retry"
}

@test "example: rt-measure | rt-plan on every-kth (10/30 fail)" {
	rt-measure -n 30 -- sh "$EX/kth/every-kth.sh" >"$T/k.jsonl" 2>/dev/null
	run rt-plan "$T/k.jsonl"
	status_is 0
	echo "$output" | jqe '.runs == 8 and .trials == 30 and .failures == 10'
	run rt-plan --policy --basis upper <"$T/k.jsonl"
	status_is 0
	echo "$output" | jqe '.green_runs_required == 15 and .retry_budget == 6 and .quarantine_after == 4'
}

@test "man page examples: --text and levels" {
	run rt-plan --rate 0.2 --text
	[ "$output" = "At a 20.0% failure rate, 14 clean runs in a row show it is fixed at 95% confidence." ]
	run sh -c 'rt-plan --rate 0.2 --confidence 0.9,0.95,0.99 | jq -c .levels'
	[ "$output" = '[{"confidence":0.9,"runs":11},{"confidence":0.95,"runs":14},{"confidence":0.99,"runs":21}]' ]
}

# --- bad input and faults ---------------------------------------------------

@test "no measure record on stdin: exit 2 naming the input" {
	run rt-plan </dev/null
	status_is 2
	has "rt-plan: <stdin>: no measure record"
	echo '{"type":"trial","trial":1,"outcome":"pass"}' >"$T/t.jsonl"
	run rt-plan "$T/t.jsonl"
	status_is 2
	has "$T/t.jsonl: no measure record"
}

@test "an unreadable file is an error naming it" {
	run rt-plan "$T/missing.jsonl"
	status_is 2
	has "rt-plan: $T/missing.jsonl: No such file or directory"
}

@test "malformed JSONL names file:line" {
	measure8
	echo '{"type":"measure",' >>"$T/m8.jsonl"
	run rt-plan "$T/m8.jsonl"
	status_is 2
	has "rt-plan: $T/m8.jsonl:3:"
}

@test "a measure record missing failures names file:line and the field" {
	echo '{"type":"measure","trials":4}' >"$T/bad.jsonl"
	run rt-plan "$T/bad.jsonl"
	status_is 2
	has "$T/bad.jsonl:1: \"failures\" missing"
}

@test "failures above trials is refused" {
	echo '{"type":"measure","trials":4,"failures":5}' >"$T/bad.jsonl"
	run rt-plan "$T/bad.jsonl"
	status_is 2
	has "$T/bad.jsonl:1: \"failures\""
}

@test "a measure with 0 trials has no rate to plan from" {
	echo '{"type":"measure","trials":0,"failures":0,"rate":null,"ci_low":null,"ci_high":null}' >"$T/z.jsonl"
	run rt-plan <"$T/z.jsonl"
	status_is 2
	has "<stdin>:1: 0 valid trials"
}

@test "a closed stdout is an error, not silent" {
	if [ ! -w /dev/full ]; then skip "no /dev/full"; fi
	run sh -c 'rt-plan --rate 0.2 >/dev/full'
	status_is 2
}
