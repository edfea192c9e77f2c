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
	for o in --rate --confidence --choose --basis --policy --target --survive --window --text --version; do
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

@test "--basis must be split, point or ends; split and ends need an interval" {
	run rt-plan --rate 0.2 --basis middle
	status_is 2
	has "--basis middle: must be split, point or ends"
	run rt-plan --rate 0.2 --basis ends
	status_is 2
	has "--basis ends needs a measure record"
	run rt-plan --rate 0.2 --basis split
	status_is 2
	has "--basis split needs a measure record"
	run rt-plan --rate 0.2 --basis point
	status_is 0
	echo "$output" | jqe '.runs == 14 and .basis == "known"'
}

@test "--target, --survive, --window and --choose are checked" {
	run rt-plan --rate 0.2 --policy --target 1
	status_is 2
	has "--target 1: must be between 0 and 1 (exclusive)"
	run rt-plan --rate 0.2 --policy --survive 0
	status_is 2
	has "--survive 0: must be between 0 and 1 (exclusive)"
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

@test "--rate 0.2: 14 runs at 95%, the rate taken as known" {
	run rt-plan --rate 0.2
	status_is 0
	[ "$output" = '{"type":"plan","rate":0.2,"confidence":0.95,"runs":14,"basis":"known"}' ]
}

@test "--target T: runs that show the residual rate is below min(T, rate), rt-verify's number" {
	run rt-plan --rate 0.35 --target 0.1
	status_is 0
	echo "$output" | jqe '.runs == 29 and .rate == 0.1 and .basis == "target" and .target == 0.1'
	run rt-plan --rate 0.05 --target 0.1
	echo "$output" | jqe '.runs == 59 and .rate == 0.05'
	run rt-plan --rate 0.35 --target 0.1 --text
	has "29 clean runs in a row show its rate is below 10.0% at 95% confidence"
	# from a record: min(T, measured rate), the measurement's error not involved
	measure8
	run rt-plan --target 0.1 "$T/m8.jsonl"
	echo "$output" | jqe '.runs == 29 and .basis == "target" and .trials == 40'
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
	echo "$output" | jqe '.type == "plan" and .observed_rate == 0.2 and .basis == "known"'
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

# 8/40: the exact (Clopper-Pearson) one-sided 97.5% bounds are 0.090522 and
# 0.356478 (python3, bisection on the exact binomial tail); runs at 97.5%:
# ceil(log(0.025)/log(1-0.090522)) = 39.

@test "a measure record on stdin plans from the split basis: exact bound, error split" {
	measure8
	run rt-plan <"$T/m8.jsonl"
	status_is 0
	echo "$output" | jqe '.type == "plan" and .basis == "split" and .rate == 0.090522 and .runs == 39'
	echo "$output" | jqe '.step_confidence == 0.975 and .exact_low == 0.090522 and .exact_high == 0.356478'
	echo "$output" | jqe '.observed_rate == 0.2 and .trials == 40 and .failures == 8 and .ci_low == 0.104999 and .interval == "wilson"'
}

@test "1/11: the measured rate cannot be planned from as if known" {
	echo '{"type":"measure","trials":11,"failures":1}' >"$T/m1.jsonl"
	run rt-plan "$T/m1.jsonl"
	# the exact 97.5% lower bound is 1 - 0.975^(1/11) = 0.0022990
	echo "$output" | jqe '.runs == 1603 and .rate == 0.002299'
	run rt-plan --basis point "$T/m1.jsonl"
	echo "$output" | jqe '.runs == 32 and .basis == "point" and (.note | test("taken as known"))'
}

@test "split --text says where the rate comes from" {
	measure8
	run rt-plan -t "$T/m8.jsonl"
	status_is 0
	[ "$output" = "Measured 8/40 failed (20.0%, 95% Wilson CI 10.4%–34.8%). At a 9.1% failure rate (the exact one-sided 97.5% lower bound of the measured rate: the 5% error is split between the measurement and the runs), 39 clean runs in a row show it is fixed at 95% confidence." ]
}

@test "split at several levels: each level from its own bound" {
	measure8
	run rt-plan -c 0.9,0.95 "$T/m8.jsonl"
	status_is 0
	echo "$output" | jqe '.levels[0] == {"confidence":0.9,"runs":28,"rate":0.103606,"step_confidence":0.95}'
	echo "$output" | jqe '.chosen.runs == 39'
}

@test "a file operand works the same as stdin" {
	measure8
	run rt-plan "$T/m8.jsonl"
	status_is 0
	echo "$output" | jqe '.runs == 39'
}

@test "the last measure record wins" {
	measure8
	echo '{"type":"measure","trials":10,"failures":5,"rate":0.5,"ci_low":0.236590,"ci_high":0.763410,"confidence":0.95}' >>"$T/m8.jsonl"
	run rt-plan -b point "$T/m8.jsonl"
	status_is 0
	echo "$output" | jqe '.rate == 0.5 and .runs == 5 and .trials == 10'
}

@test "--basis point plans from the measured rate, with a note" {
	measure8
	run rt-plan --basis point "$T/m8.jsonl"
	status_is 0
	echo "$output" | jqe '.basis == "point" and .rate == 0.2 and .runs == 14 and (.note | test("leaves out the measurement"))'
}

@test "--basis ends plans a fix from ci_low: 28 runs, not 14; upper is its old name" {
	measure8
	run rt-plan --basis ends "$T/m8.jsonl"
	status_is 0
	echo "$output" | jqe '.basis == "ends" and .rate == 0.104999 and .runs == 28 and .observed_rate == 0.2'
	run rt-plan --basis upper "$T/m8.jsonl"
	echo "$output" | jqe '.basis == "ends" and .runs == 28'
}

@test "--basis ends --text names the conservative end" {
	measure8
	run rt-plan -b ends -t "$T/m8.jsonl"
	status_is 0
	has "Measured 8/40 failed (20.0%, 95% Wilson CI"
	has "At a 10.5% failure rate (the low end of the interval"
	has "28 clean runs in a row"
}

@test "a measure without an interval gets the one rt-measure gives it" {
	echo '{"type":"measure","trials":40,"failures":8,"confidence":0.95}' >"$T/bare.jsonl"
	run rt-plan -b ends "$T/bare.jsonl"
	status_is 0
	echo "$output" | jqe '.ci_low == 0.104999 and .ci_high == 0.347576 and .runs == 28 and .interval == "wilson"'
	echo '{"type":"measure","trials":40,"failures":0,"confidence":0.95}' >"$T/bare0.jsonl"
	run rt-plan -b ends "$T/bare0.jsonl"
	echo "$output" | jqe '.ci_high == 0.072158 and .interval == "exact one-sided" and .runs == 40'
}

@test "0 failures: nothing to plan against (exit 2)" {
	measure0
	run rt-plan "$T/m0.jsonl"
	status_is 2
	has "no failure observed in 40 trials: nothing to plan a fix against"
	[ "$(rt-plan "$T/m0.jsonl" 2>/dev/null)" = "" ]
	run rt-plan -b point "$T/m0.jsonl"
	status_is 2
	run rt-plan --target 0.1 "$T/m0.jsonl"
	status_is 2
}

@test "0 failures with --basis ends plans from ci_high" {
	measure0
	run rt-plan --basis ends "$T/m0.jsonl"
	status_is 0
	echo "$output" | jqe '.rate == 0.087625 and .runs == 33 and .observed_rate == 0 and (.note | test("no failure observed"))'
}

# --- behaviour: policy ------------------------------------------------------

# Quarantine: the smallest m with P(Bin(W,q) >= m) + (W-1) q P(Bin(W-1,q) >= m-1)
# <= 1 - C, the false-alarm bound over W checks, one after every run (python3).

@test "--policy at 20%: 14 green runs, retry 2, quarantine after 4 of 100 checked after every run" {
	run rt-plan --rate 0.2 --policy
	status_is 0
	echo "$output" | jqe '.type == "policy" and .observed_rate == 0.2 and .basis == "known" and .confidence == 0.95'
	echo "$output" | jqe '.green_runs_required == 14 and .retry_budget == 2 and .survive == 0.01'
	echo "$output" | jqe '.quarantine_after == 4 and .window == 100 and .checked == "after every run"'
	echo "$output" | jqe '.false_alarm_bound > 0.0448 and .false_alarm_bound < 0.0449'
	echo "$output" | jqe '.rule | test("retry a failing run up to 2 times") and test("quarantine when 4 of the last 100 runs") and test("checked after every run")'
	echo "$output" | jqe 'has("note") | not'
	echo "$output" | jqe 'has("exhaust_low") | not'
}

@test "--policy --survive 0.001: retry 4, quarantine after 2" {
	run rt-plan --rate 0.2 --policy --survive 0.001
	status_is 0
	echo "$output" | jqe '.retry_budget == 4 and .survive == 0.001 and .quarantine_after == 2'
}

@test "--policy --window: 2 of 20, 18 of 1000" {
	run rt-plan --rate 0.2 --policy --window 20
	echo "$output" | jqe '.quarantine_after == 2 and .window == 20'
	run rt-plan --rate 0.2 --policy --window 1000
	echo "$output" | jqe '.quarantine_after == 18 and .window == 1000'
}

@test "--policy at 99% confidence" {
	run rt-plan --rate 0.2 --policy -c 0.99
	status_is 0
	echo "$output" | jqe '.confidence == 0.99 and .green_runs_required == 21 and .quarantine_after == 5'
}

@test "--policy from a record (split): retries and quarantine hold over the exact interval" {
	measure8
	run rt-plan --policy "$T/m8.jsonl"
	status_is 0
	echo "$output" | jqe '.basis == "split" and .green_runs_required == 39 and .retry_budget == 4'
	echo "$output" | jqe '.retry_rate == 0.356478 and .quarantine_after == 4 and .false_alarm_bound <= 0.025'
	echo "$output" | jqe '.exhaust_probability == 0.00032 and .exhaust_low < .exhaust_probability and .exhaust_high > 0.0057 and .exhaust_high < 0.0058'
	echo "$output" | jqe '.rule | test("survives all 5 attempts with probability 0.032% at the measured 20.0%, 0.0006%–0.6% over the rate.s exact 95% interval")'
	echo "$output" | jqe '.rule | test("at any rate in the rate.s exact 95% interval")'
}

@test "--policy --text: every probability carries its interval" {
	measure8
	run rt-plan --policy --text "$T/m8.jsonl"
	status_is 0
	has "with probability 0.032% at the measured 20.0%, 0.0006%–0.6% over the rate's exact 95% interval (9.0%–35.7%)"
	has "checked after every run: by flakiness alone that happens within any 100 runs with probability at most 1.5% at any rate in the rate's exact 95% interval"
	run rt-plan --rate 0.2 --policy --text
	has "with probability 0.8% at the 20.0% rate, taken as known"
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
	run rt-plan --rate 0.2 --policy -c 0.9999999999 --survive 0.0000001
	echo "$output" | jqe '.confidence < 1 and .survive == 0.0000001'
}

@test "--policy rule: one clean run is singular" {
	run rt-plan --rate 0.999 --policy
	status_is 0
	echo "$output" | jqe '.green_runs_required == 1 and (.rule | test("by 1 clean run in a row"))'
}

@test "--policy --basis ends: runs from ci_low, retries and quarantine from ci_high" {
	measure8
	run rt-plan --policy --basis ends "$T/m8.jsonl"
	status_is 0
	echo "$output" | jqe '.green_runs_required == 28 and .retry_budget == 4 and .quarantine_after == 4'
	echo "$output" | jqe '.fix_rate == 0.104999 and .retry_rate == 0.347576 and .observed_rate == 0.2 and .interval == "wilson"'
}

@test "--policy --text" {
	run rt-plan --rate 0.2 --policy --text
	status_is 0
	has "Retry a failing run up to 2 times"
	has "Quarantine when 4 of the last 100 runs exhaust their retries, checked after every run"
	has "14 clean runs in a row show it is fixed at 95% confidence."
	run rt-plan --rate 1 --policy --text
	has "always fails"
	has "not retry"
}

@test "example: rt-measure | rt-plan on every-kth (10/30 fail)" {
	rt-measure -n 30 -- sh "$EX/kth/every-kth.sh" >"$T/k.jsonl" 2>/dev/null
	run rt-plan "$T/k.jsonl"
	status_is 0
	# exact 97.5% bounds of 10/30: 0.172874 and 0.52812
	echo "$output" | jqe '.runs == 20 and .trials == 30 and .failures == 10 and .basis == "split"'
	run rt-plan -b point "$T/k.jsonl"
	echo "$output" | jqe '.runs == 8'
	run rt-plan --policy <"$T/k.jsonl"
	status_is 0
	echo "$output" | jqe '.green_runs_required == 20 and .retry_budget == 7 and .quarantine_after == 4'
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
	has "$T/bad.jsonl:1: measure record: field \"failures\" is missing"
}

@test "failures above trials is refused" {
	echo '{"type":"measure","trials":4,"failures":5}' >"$T/bad.jsonl"
	run rt-plan "$T/bad.jsonl"
	status_is 2
	has "$T/bad.jsonl:1: measure record: field \"failures\" must be at most \"trials\" (5 failures in 4 trials)"
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

@test "a measure that stopped early (rt-measure --until): the split basis plans from the anytime bound, and says so" {
	# the same counts, once as a fixed-n record and once as an anytime one
	printf '%s\n' '{"type":"measure","command":"x","trials":3,"failures":1,"rate":0.333333,"ci_low":0.061492,"ci_high":0.792358,"interval":"wilson","confidence":0.95}' >"$T/fixed.jsonl"
	printf '%s\n' '{"type":"measure","command":"x","trials":3,"failures":1,"rate":0.333333,"ci_low":0.003145,"ci_high":0.942416,"cs_low":0.003145,"cs_high":0.942416,"interval":"anytime","rate_biased":true,"confidence":0.95}' >"$T/any.jsonl"
	rt-plan "$T/fixed.jsonl" >"$T/f"
	rt-plan "$T/any.jsonl" >"$T/a"
	# the exact 97.5% lower bound of 1/3 is 0.8%; the anytime one is lower,
	# so honest planning asks for more clean runs
	jqe '.runs == 438' "$T/f"
	jqe --slurpfile f "$T/f" '.interval == "anytime" and .exact_low < $f[0].exact_low and .runs > $f[0].runs' "$T/a"
	run rt-plan --text "$T/any.jsonl"
	has "the anytime 97.5% lower bound of the measured rate"
	hasnt "exact one-sided"
	run rt-plan --policy --text "$T/any.jsonl"
	has "over the rate's anytime 95% interval"
}
