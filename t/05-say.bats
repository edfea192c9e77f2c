#!/usr/bin/env bats
# t/05-say.bats: lib/rt_say, the one phrasing of counts, rates and
# intervals (t/say_test drives it), and the same record said in the same
# words by every tool that reads it.
load helper

SAY="$RT_TOP/t/say_test"
FX="$RT_TOP/t/fixtures"

# 40 trial records, K of them failing, for rt-measure
trials() {
	local k=$1 i o
	for i in $(seq 40); do
		o=pass
		[ "$i" -le "$k" ] && o=fail
		printf '{"type":"trial","trial":%d,"outcome":"%s","exit_code":%d,"command":"./t.sh"}\n' \
		    "$i" "$o" "$([ "$o" = fail ] && echo 1 || echo 0)"
	done
}

@test "rt_say: a bound is rounded outward at the printed precision" {
	# 0/2000 at 95%: 1 - 0.05^(1/2000) = 0.1497%, so "≤0.1%" would be an
	# 86.5% claim; the printed bound is the next tenth up
	run "$SAY" count 0 2000 0.95
	status_is 0
	[ "$output" = "0/2000 failed (≤0.2% at 95% confidence)" ]
	run "$SAY" count 0 40 0.95
	[ "$output" = "0/40 failed (≤7.3% at 95% confidence)" ]
	run "$SAY" count 40 40 0.95
	[ "$output" = "40/40 failed (≥92.7% at 95% confidence)" ]
	run "$SAY" pct 0.0714 up
	[ "$output" = "7.2%" ]
	run "$SAY" pct 0.0714 down
	[ "$output" = "7.1%" ]
	run "$SAY" pct 0.0714 near
	[ "$output" = "7.1%" ]
	# a value that is not 0 is never "0.0%"
	run "$SAY" pct 0.00012 up
	[ "$output" = "0.012%" ]
}

@test "rt_say: the method is named; a rate always has its count and interval" {
	run "$SAY" count 12 40 0.95
	[ "$output" = "12/40 failed (30.0%, 95% Wilson CI 18.0%–45.5%)" ]
	run "$SAY" short 12 40 0.95
	[ "$output" = "30.0% (18.0%–45.5%)" ]
	run "$SAY" anytime 1 7 0.95 0.0008 0.675 "biased by stopping early"
	[ "$output" = "1/7 failed (14.3%, biased by stopping early; 95% anytime interval 0.08%–67.5%)" ]
	run "$SAY" anytime 0 40 0.95 0 0.0911
	[ "$output" = "0/40 failed (≤9.2% at 95% confidence, anytime)" ]
	run "$SAY" count 0 0 0.95
	[ "$output" = "0 valid trials (no rate)" ]
	run "$SAY" count
	status_is 2
}

@test "one measure record, the same words in rt-measure, rt-plan, rt-plan --policy and rt-report" {
	for k in 12 0 40; do
		trials "$k" >"$T/tr"
		want=$("$SAY" count "$k" 40 0.95)
		rt-measure <"$T/tr" >"$T/m"
		jqe --arg w "$want" '.summary == $w' "$T/m"
		run rt-measure --text <"$T/tr"
		# (STABLE adds its threshold inside the parentheses)
		has "${want%)}"
		if [ "$k" -gt 0 ]; then
			# (0/40 leaves no rate to plan from: rt-plan refuses it)
			run rt-plan --text "$T/m"
			has "Measured $want."
			run rt-plan --policy --text "$T/m"
			has "Measured $want."
		fi
		rm -rf "$T/r"
		rt-report -o "$T/r" "$T/m" >/dev/null
		grep -qF "$want" "$T/r/report.md"
	done
}

@test "an early-stopped measure record keeps its anytime words in every tool (never restated as a fixed-n Wilson CI)" {
	printf '%s\n' '#!/bin/sh' 'c=$(cat "$0.n" 2>/dev/null || echo 0); c=$((c+1)); echo $c >"$0.n"' \
	    '[ $((c % 3)) -ne 0 ]' >"$T/f.sh"
	chmod +x "$T/f.sh"
	rt-measure -n 60 --until verdict --cmd "$T/f.sh" >"$T/m"
	jqe '.interval == "anytime" and .rate_biased == true' "$T/m"
	want=$(jq -r .summary "$T/m")
	case "$want" in *"biased by stopping early; 95% anytime interval"*) ;; *) false ;; esac
	run rt-plan --text "$T/m"
	has "Measured $want."
	hasnt "Wilson"
	run rt-plan --policy --text "$T/m"
	has "Measured $want."
	rt-report -o "$T/r" "$T/m" >/dev/null
	grep -qF "$want" "$T/r/report.md"
	! grep -q "Wilson" "$T/r/report.md"
}

@test "one verdict record, the same words in rt-pr, rt-report, its autopsy and rt-genome" {
	# a hand-made record whose stored intervals are not the counts' (0.05
	# to 0.95 for 12/40): every tool says a fixed-n interval from the counts
	tail -n 1 "$FX/pr/fixed.jsonl" >"$T/v.jsonl"
	base=$("$SAY" count 12 40 0.95)
	lane=$("$SAY" count 0 20 0.95)
	conf=$("$SAY" count 0 30 0.95)
	elim=$("$SAY" count 7 20 0.95)
	run rt-pr -b - "$T/v.jsonl"
	status_is 0
	has "$base"
	has "$lane"
	has "$conf"
	has "| 7/20 | $("$SAY" short 7 20 0.95) |"
	rt-report -o "$T/r" "$T/v.jsonl" >/dev/null
	output=$(cat "$T/r/report.md")
	# (the report names the baseline in its table, by its stored interval)
	for w in "$lane" "$conf" "$elim"; do
		has "${w#*/* failed }"
	done
	# the table's bound for 0/20 is the phrase's, not the record's Wilson end
	has "| 0/20 | ≤14.0% |"
	run rt-report --autopsy - "$T/v.jsonl"
	status_is 0
	has "failed 12 of 40 trials ${base#12/40 failed }"
	has "failed 0 of 30 trials ${conf#0/30 failed }"
	rt-genome -g "$T/g.db" --import "$T/v.jsonl" 2>/dev/null
	run rt-genome -g "$T/g.db" --history
	status_is 0
	has "original $base"
	has "on fresh trials $conf"
}
