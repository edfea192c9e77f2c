#!/usr/bin/env bats
# rt-measure: a failure rate with its interval and a verdict.
load helper

@test "rt-measure: --help and --version" {
	run rt-measure --help
	status_is 0
	has "usage: rt-measure"
	has "--until RULE"
	run rt-measure -V
	status_is 0
	has "(retrial)"
}

@test "rt-measure: bad numbers are named, exit 2" {
	run rt-measure -n abc --cmd true
	status_is 2
	has "-n abc"
	run rt-measure --confidence 1.5 --cmd true
	status_is 2
	has "--confidence 1.5: must be between 0 and 1 (exclusive)"
	run rt-measure --until sometime --cmd true
	status_is 2
	run rt-measure -j -1 --cmd true
	status_is 2
}

@test "rt-measure: counts, Wilson interval and FLAKY on the every-3rd target" {
	run rt-measure -n 30 -- "$EX/kth/every-kth.sh"
	status_is 0
	echo "$output" | jq -e '.type == "measure" and .trials == 30 and .failures == 10 and .verdict == "FLAKY"'
	echo "$output" | jq -e '.ci_low == 0.192303 and .ci_high == 0.512203 and .z == 1.96 and .confidence == 0.95'
	echo "$output" | jq -e '.summary == "10/30 failed (33.3%, 95% Wilson CI 19.2%–51.3%)"'
}

@test "rt-measure: zero failures is an exact one-sided bound, never 0%, and the text names the threshold" {
	run rt-measure -n 40 --text --cmd true
	status_is 0
	[ "$output" = "STABLE: 0/40 failed (≤7.3% at 95% confidence, below the 10% threshold)" ]
	run rt-measure -n 53 --text --cmd true
	[ "$output" = "STABLE: 0/53 failed (≤5.5% at 95% confidence, below the 10% threshold)" ]
	run rt-measure -n 40 --cmd true
	echo "$output" | jq -e '.rate == 0 and .ci_low == 0 and .ci_high == 0.072158 and .verdict == "STABLE"'
	echo "$output" | jq -e '.interval == "exact one-sided" and .z == null'
	echo "$output" | jq -e '.summary == "0/40 failed (≤7.3% at 95% confidence)"'
}

@test "rt-measure: 0/1 is ≤95.0%, not a two-sided Wilson end; 0/4 at T=0.5 is not STABLE" {
	run rt-measure -n 1 --text --cmd true
	[ "$output" = "INCONCLUSIVE: 0/1 failed (≤95.0% at 95% confidence, not below the 10% threshold)" ]
	run rt-measure -n 4 --threshold 0.5 --cmd true
	echo "$output" | jq -e '.verdict == "INCONCLUSIVE" and .ci_high == 0.527129'
	run rt-measure -n 5 --threshold 0.5 --cmd true
	echo "$output" | jq -e '.verdict == "STABLE"'
}

@test "rt-measure: STABLE takes 29 clean trials at the defaults, 28 is INCONCLUSIVE" {
	run rt-measure -n 29 --text --cmd true
	[ "$output" = "STABLE: 0/29 failed (≤9.9% at 95% confidence, below the 10% threshold)" ]
	run rt-measure -n 28 --text --cmd true
	[ "$output" = "INCONCLUSIVE: 0/28 failed (≤10.2% at 95% confidence, not below the 10% threshold)" ]
	run rt-measure -n 28 --text --threshold 0.25 --cmd true
	[ "$output" = "STABLE: 0/28 failed (≤10.2% at 95% confidence, below the 25% threshold)" ]
}

@test "rt-measure: a mixed count keeps its Wilson interval and names it" {
	run rt-measure -n 30 -- sh "$EX/kth/every-kth.sh"
	echo "$output" | jq -e '.interval == "wilson" and .z == 1.96'
	run rt-measure -n 30 --text -- sh "$EX/kth/every-kth.sh"
	[ "$output" = "FLAKY: 10/30 failed (33.3%, 95% Wilson CI 19.2%–51.3%)" ]
}

@test "rt-measure: verdicts ALWAYS_FAILING (mirrors STABLE: 29/29), INCONCLUSIVE, ERROR" {
	run rt-measure -n 29 --cmd false
	echo "$output" | jq -e '.verdict == "ALWAYS_FAILING" and .ci_low == 0.901855 and .ci_high == 1 and .interval == "exact one-sided"'
	run rt-measure -n 29 --text --cmd false
	[ "$output" = "ALWAYS_FAILING: 29/29 failed (≥90.1% at 95% confidence, at least the 90% that the 10% threshold asks for)" ]
	run rt-measure -n 28 --cmd false
	echo "$output" | jq -e '.verdict == "INCONCLUSIVE"'
	run rt-measure -n 28 --text --cmd false
	[ "$output" = "INCONCLUSIVE: 28/28 failed (≥89.8% at 95% confidence, short of the 90% that the 10% threshold asks for)" ]
	run rt-measure -n 24 --cmd false
	echo "$output" | jq -e '.verdict == "INCONCLUSIVE"'
	run rt-measure -n 10 --cmd true
	echo "$output" | jq -e '.verdict == "INCONCLUSIVE"'
	rt-measure -n 3 --cmd 'exit 127' 2>"$T/err" | jq -e '.verdict == "ERROR" and .trials == 0 and .errors == 3 and .rate == null'
	grep -q "were errors, not failures" "$T/err"
}

@test "rt-measure: --gate exits 1 unless STABLE" {
	run rt-measure -n 40 --gate --cmd true
	status_is 0
	run rt-measure -n 9 --gate -- "$EX/kth/every-kth.sh"
	status_is 1
}

@test "rt-measure: errors and ignored never count in the rate" {
	run rt-measure -n 6 --error-codes 3 --cmd 'if [ $((RETRIAL_TRIAL % 2)) = 0 ]; then exit 3; fi; exit 0'
	echo "$output" | jq -e '.trials == 3 and .errors == 3 and .failures == 0'
	run rt-measure -n 4 --ignore-if 'DNS' --cmd 'echo DNS >&2; exit 1'
	echo "$output" | jq -e '.trials == 0 and .ignored == 4'
}

@test "rt-measure: timeouts are failures and counted apart" {
	run rt-measure -n 2 -t 0.2 --grace 0.1 --cmd 'sleep 5'
	echo "$output" | jq -e '.failures == 2 and .timeouts == 2'
}

@test "rt-measure: reads trial records (merging shards) and matches running" {
	rt-collect -n 9 --shard 1/2 -- "$EX/kth/every-kth.sh" > "$T/a"
	rt-collect -n 9 --shard 2/2 -- "$EX/kth/every-kth.sh" > "$T/b"
	run rt-measure "$T/a" "$T/b"
	status_is 0
	echo "$output" | jq -e '.trials == 9 and .failures == 3 and .records == 9'
	cat "$T/a" "$T/b" | rt-measure | jq -e '.trials == 9'
}

@test "rt-measure: --facts keeps every trial record; --out writes the record" {
	run rt-measure -n 5 --facts "$T/f.jsonl" -o "$T/m.json" -- "$EX/kth/every-kth.sh"
	status_is 0
	[ "$(wc -l < "$T/f.jsonl")" -eq 5 ]
	jq -e '.type == "measure" and .trials == 5' "$T/m.json"
}

@test "rt-measure: --until verdict stops at the first pass+fail, with the reason" {
	run rt-measure -n 500 --until verdict -- "$EX/kth/every-kth.sh"
	echo "$output" | jq -e '.trials == 3 and .stopped == "verdict" and (.stop_reason | test("FLAKY"))'
	run rt-measure -n 500 --until verdict --cmd true
	echo "$output" | jq -e '.stopped == "verdict" and .verdict == "STABLE" and .cs_high < 0.1 and .trials < 500'
}

@test "rt-measure: --until verdict stops ALWAYS_FAILING on the anytime sequence, not at a fixed count" {
	run rt-measure -n 500 --until verdict --cmd false
	status_is 0
	# the anytime-valid lower bound first reaches 0.9 at 53 failures in a row
	echo "$output" | jq -e '.verdict == "ALWAYS_FAILING" and .trials == 53 and .stopped == "verdict"'
	echo "$output" | jq -e '.cs_low >= 0.9 and (.stop_reason | test("^ALWAYS_FAILING: anytime-valid lower bound"))'
	run rt-measure -n 40 --until verdict --cmd false
	echo "$output" | jq -e '.stopped == "budget" and .trials == 40 and .verdict == "ALWAYS_FAILING"'
}

@test "rt-measure: after --until the interval is the anytime one, labelled so, and the early-stopped rate says it is biased" {
	# fails the 7th trial only: --until verdict stops at FLAKY there. A fixed-n Wilson "95% CI" there covers the true rate only
	# 83-86% of the time at 0.5-5% (bench/measure-coverage.sh)
	run rt-measure -n 500 --until verdict --cmd '[ "$RETRIAL_TRIAL" -ne 7 ]'
	status_is 0
	echo "$output" | jq -e '.interval == "anytime" and .z == null and .rate_biased == true
		and .ci_low == .cs_low and .ci_high == .cs_high and .trials == 7'
	# the anytime interval is wider than Wilson's 2.6%-51.3% for 1/7
	echo "$output" | jq -e '.ci_low < 0.026 and .ci_high > 0.6'
	echo "$output" | jq -e '.summary | test("^1/7 failed \\(14.3%, biased by stopping early; 95% anytime interval [0-9.]+%–[0-9.]+%\\)$")'
	run rt-measure -n 500 --until verdict --text --cmd '[ "$RETRIAL_TRIAL" -ne 7 ]'
	has "FLAKY: 1/7 failed (14.3%, biased by stopping early; 95% anytime interval 0.08%–67.5%)"
	hasnt "CI"
	run rt-measure -n 500 --until verdict --text --cmd true
	[ "$output" = "STABLE: 0/53 failed (≤10.0% at 95% confidence, anytime, below the 10% threshold)" ]
	# the cap came first: still the anytime interval (the rule was in force),
	# but no stop to bias the rate
	run rt-measure -n 5 --until width:0.01 --cmd '[ "$RETRIAL_TRIAL" -ne 2 ]'
	echo "$output" | jq -e '.stopped == "budget" and .interval == "anytime" and .rate_biased == false
		and (.summary | test("^1/5 failed \\(20.0%, 95% anytime interval"))'
	# a fixed-n run keeps Wilson's interval
	run rt-measure -n 7 --cmd '[ "$RETRIAL_TRIAL" -ne 7 ]'
	echo "$output" | jq -e '.interval == "wilson" and .summary == "1/7 failed (14.3%, 95% Wilson CI 2.5%–51.4%)" and (has("rate_biased") | not)'
}

@test "rt-measure: --until with -j 2 counts the trial still running and says so" {
	run rt-measure -n 500 -j 2 --until verdict --facts "$T/f.jsonl" --cmd true
	status_is 0
	echo "$output" | jq -e '.verdict == "STABLE" and .jobs == 2 and .trials == 54'
	echo "$output" | jq -e '.stop_reason | test("after 53 trials; 1 trial already running then finished and is counted")'
	[ "$(wc -l < "$T/f.jsonl")" -eq 54 ]
}

@test "rt-measure: --until says so when the cap comes first" {
	run rt-measure -n 10 --until verdict --cmd true
	echo "$output" | jq -e '.stopped == "budget" and .verdict == "INCONCLUSIVE"'
	echo "$output" | jq -e '.stop_reason | test("cap of 10 trials came before the verdict")'
}

@test "rt-measure: -j 0 is one slot per CPU this process may use" {
	run rt-measure -n 2 -j 0 --cmd true
	echo "$output" | jq -e --argjson n "$(nproc)" '.jobs == $n'
	command -v taskset >/dev/null || skip "no taskset"
	run taskset -c 0 rt-measure -n 2 -j 0 --cmd true
	echo "$output" | jq -e '.jobs == 1'
}

@test "rt-measure: progress on a terminal, never on a pipe or a file" {
	command -v script >/dev/null || skip "no script(1)"
	run env -u RETRIAL_NO_TTY script -qec "rt-measure -n 3 --cmd true >/dev/null" /dev/null
	status_is 0
	has "3/3 trials"
	has "0/3 failed"
	env -u RETRIAL_NO_TTY rt-measure -n 3 --cmd true 2>"$T/err" | jqe '.trials == 3'
	[ ! -s "$T/err" ]
}

@test "rt-measure: progress is cut to the terminal width at a whole field" {
	command -v script >/dev/null || skip "no script(1)"
	run env -u RETRIAL_NO_TTY script -qec "stty cols 30; rt-measure -n 3 --cmd true >/dev/null" /dev/null
	status_is 0
	has "rt-measure: 3/3 trials"
	hasnt "0/3"
	run env -u RETRIAL_NO_TTY script -qec "stty cols 70; rt-measure -n 3 --cmd true >/dev/null" /dev/null
	has "0/3 failed ("
	hasnt "ETA"
}

@test "rt-measure: most trials errors: warning on stderr and in the record" {
	rt-measure -n 3 --cmd 'nosuchcmd-rt' 2>"$T/err" >"$T/out"
	grep -q "WARNING: 3 of 3 trials were errors" "$T/err"
	grep -q "nosuchcmd-rt" "$T/err"
	jq -e '.verdict == "ERROR" and (.warning | test("first: trial 1: exit code 127"))' "$T/out"
	rt-measure -n 4 --cmd 'exit $((RETRIAL_TRIAL % 4 == 0 ? 0 : 127))' 2>"$T/err" | jqe '.errors == 3 and .trials == 1 and has("warning")'
	rt-measure -n 4 --cmd 'exit $((RETRIAL_TRIAL % 2 == 0 ? 0 : 127))' 2>"$T/err" | jqe 'has("warning") | not'
}

@test "rt-measure: the same shard given twice is not counted twice" {
	rt-collect -n 9 --shard 1/2 --seed 3 -- "$EX/kth/every-kth.sh" > "$T/a"
	rt-collect -n 9 --shard 2/2 --seed 3 -- "$EX/kth/every-kth.sh" > "$T/b"
	run rt-measure "$T/a" "$T/b" "$T/a"
	status_is 0
	has "a:1: trial 1 with seed"
	echo "$output" | grep '^{' | jq -e '.trials == 9 and .failures == 3 and .records == 14 and .duplicates == 5'
}

@test "rt-measure: records read give gap_ms and jobs too" {
	rt-collect -n 6 -j 2 --gap-ms 1 --cmd 'sleep 0.1' > "$T/a"
	rt-measure "$T/a" | jqe '.gap_ms == 1 and .jobs == 2'
}

@test "rt-measure: no trial records is said, not silently ERROR" {
	run rt-measure < /dev/null
	status_is 0
	has "no records in the input"
	echo '{"type":"measure"}' | rt-measure 2>"$T/err" | jqe '.verdict == "ERROR"'
	grep -q "no trial records" "$T/err"
}

@test "rt-measure: --until width stops when the anytime-valid interval is narrow" {
	run rt-measure -n 5000 --until width:0.2 -- "$EX/kth/every-kth.sh"
	echo "$output" | jq -e '.stopped == "width" and (.cs_high - .cs_low) <= 0.2 and .trials < 5000'
}

@test "rt-measure: malformed records name file:line, exit 2" {
	printf '{"type":"trial","outcome":"pass"}\nnot json\n' > "$T/bad.jsonl"
	run rt-measure "$T/bad.jsonl"
	status_is 2
	has "bad.jsonl:2: invalid JSON"
	printf '{"type":"trial"}\n' > "$T/bad2.jsonl"
	run rt-measure "$T/bad2.jsonl"
	status_is 2
	has 'bad2.jsonl:1: trial record: field "outcome" is missing'
	printf '{"type":"trial","outcome":"weird"}\n' > "$T/bad3.jsonl"
	run rt-measure "$T/bad3.jsonl"
	status_is 2
	has 'bad3.jsonl:1: trial record: field "outcome" must be one of pass, fail, timeout, error, ignored, not weird'
	run rt-measure --lenient "$T/bad.jsonl"
	status_is 0
	echo "$output" | jq -e '.skipped == 1 and .trials == 1'
}

@test "rt-measure: an unreadable file is an error naming it" {
	run rt-measure /nonexistent/trials.jsonl
	status_is 2
	has "/nonexistent/trials.jsonl"
}

@test "rt-measure: SIGINT still prints the finished trials, interrupted, exit 130" {
	rt-measure -n 100 --cmd 'sleep 0.2' > "$T/out" &
	pid=$!
	sleep 1
	kill -INT $pid
	rc=0; wait $pid || rc=$?
	[ "$rc" -eq 130 ]
	jq -e '.interrupted == true and .stopped == "interrupted" and .trials >= 1 and .trials < 100' "$T/out"
}

@test "rt-measure: --confidence 0.9 uses the inverse normal z" {
	run rt-measure -n 30 --confidence 0.9 -- "$EX/kth/every-kth.sh"
	echo "$output" | jq -e '.z == 1.644854 and .confidence == 0.9'
}

# A case named with a terminal's title (OSC) and clear-screen (CSI)
# sequences, and a C1 CSI (U+009B): what a person reads shows them.
ESC_NAME=$(printf 't.\033]0;pwned\007evil\033[2J\302\2332J')
ESC_SHOWN='t.␛]0;pwned␇evil␛[2J\u009b2J'
no_raw_controls() {
	if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$1" || grep -q "$(printf '\302\233')" "$1"; then
		echo "raw control characters in $1:" >&2; od -c "$1" | head >&2; return 1
	fi
}

@test "rt-measure: --by case --text shows a case name's escape sequences, never sends them" {
	jq -cn --arg c "$ESC_NAME" '{type: "trial", trial: 1, case: $c, outcome: "pass", run: "r"},
	    {type: "trial", trial: 2, case: $c, outcome: "fail", run: "r"}' > "$T/esc.jsonl"
	rt-measure --by case --text "$T/esc.jsonl" > "$T/out"
	no_raw_controls "$T/out"
	grep -qF "$ESC_SHOWN" "$T/out"
	# the record keeps the name as it is
	rt-measure --by case "$T/esc.jsonl" | jqe --arg c "$ESC_NAME" '.case == $c'
}

@test "rt-measure: --by case holds counts, not records: well under 1 KiB a case" {
	[ -x /usr/bin/time ] || skip "no /usr/bin/time"
	! ldd "$RT_TOP/bin/rt-measure" 2>/dev/null | grep -q libasan || skip "the sanitizer build's memory is not the tool's"
	! [ "${RT_VALGRIND:-}" = 1 ] || skip "valgrind's memory is not the tool's"
	gen() {
		awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) for (t = 1; t <= 2; t++)
			printf "{\"type\":\"trial\",\"trial\":%d,\"case\":\"tests/test_m%d.py::T::test_%d\",\"outcome\":\"%s\",\"run\":\"r\",\"revision\":\"a\",\"stdout\":\"\",\"stderr\":\"\"}\n",
			    t, i / 100, i, (t == 2 && i % 50 == 0) ? "fail" : "pass" }'
	}
	gen 2000 > "$T/s.jsonl"
	gen 40000 > "$T/b.jsonl"
	s=$(/usr/bin/time -f %M rt-measure --by case "$T/s.jsonl" 2>&1 >/dev/null | tail -n 1)
	b=$(/usr/bin/time -f %M rt-measure --by case "$T/b.jsonl" 2>&1 >"$T/out" | tail -n 1)
	# the record per case held until the sort cost about 3 KiB a case
	awk -v a="$b" -v b="$s" 'BEGIN { per = (a - b) / 38000; print per " KiB a case"; exit !(per < 1) }'
	[ "$(wc -l < "$T/out")" = 40000 ]
	jqe -s '[.[] | select(.verdict == "FLAKY")] | length == 800' "$T/out"
}
