#!/usr/bin/env bats
# rt-retry: retry policies over a group of scripted cases
# (t/fixtures/retry/case.sh picks a behaviour from the case name).
load helper

setup() {
	export RT_STATE="$T/state"
	mkdir -p "$RT_STATE"
	CASE="$RT_TOP/t/fixtures/retry/case.sh"
	CMD="'$CASE' {}"
}

# cases NAME...: write the case list to $T/cases
cases() {
	printf '%s\n' "$@" > "$T/cases"
}

# retry ARGS...: run rt-retry on $T/cases, records to $T/out, stderr to $T/err
retry() {
	run sh -c 'rt-retry -f "$0" "$@" > "$0.out" 2> "$0.err"; s=$?; cat "$0.err"; exit $s' \
	    "$T/cases" "$@"
}

# group FILTER: jq -e on the group record
group() {
	jq -e "select(.type == \"group\") | $1" "$T/cases.out" >/dev/null ||
	    { echo "group: $1 failed on:" >&2; grep '"group"' "$T/cases.out" >&2; return 1; }
}

# kase NAME FILTER: jq -e on one case of the group record
kase() {
	jq -e --arg n "$1" "select(.type == \"group\") | .cases[] | select(.case == \$n) | $2" \
	    "$T/cases.out" >/dev/null ||
	    { echo "case $1: $2 failed on:" >&2; grep '"group"' "$T/cases.out" >&2; return 1; }
}

# order: the cases in the order they executed, one line, space-separated
order() {
	tr '\n' ' ' < "$RT_STATE/order" | sed 's/ $//'
}

healthy() {
	hasnt "ceiling"
	hasnt "no progress"
}

# --- usage and exit codes ------------------------------------------------

@test "--help prints the synopsis and options, exit 0" {
	run rt-retry --help
	status_is 0
	has "usage: rt-retry"
	has "--stop-on-failure"
	has "whole-group-once"
	run rt-retry -V
	status_is 0
	has "rt-retry"
}

@test "usage errors exit 2 and name the problem" {
	cases pass-a
	run rt-retry -f "$T/cases"
	status_is 2
	has "no command"
	run rt-retry -f "$T/cases" -p sometimes --cmd true
	status_is 2
	has "--policy sometimes"
	run rt-retry -f "$T/cases" -p failed-once -r 3 --cmd true
	status_is 2
	has "--retries goes with --policy failed"
	run rt-retry -f "$T/cases" -p failed --cmd true
	status_is 2
	run sh -c 'printf "pass-a\n" | rt-retry -r auto --cmd true'
	status_is 2
	has "--rate P"
	run rt-retry -f "$T/cases" --rate 0.2 --cmd true
	status_is 2
	run rt-retry -f "$T/cases" -r -1 --cmd true
	status_is 2
	has "--retries -1"
	run rt-retry -f "$T/cases" --max-failures 150% --cmd true
	status_is 2
	run rt-retry -f "$T/cases" --basis middle --cmd true
	status_is 2
	run rt-retry -f "$T/cases" --cmd true -- true
	status_is 2
	has "exclusive"
	[ ! -s "$RT_STATE/order" ]
}

# --- behaviour -----------------------------------------------------------

@test "an all-green group runs once: no retry round" {
	cases pass-a pass-b pass-c
	for p in failed-once failed-twice whole-group-once; do
		: > "$RT_STATE/order"
		retry -p "$p" --cmd "$CMD"
		status_is 0
		[ "$(order)" = "pass-a pass-b pass-c" ]
		group '.rounds == 1 and .attempts == 3 and .result == "passed"'
		group '.totals.passed == 3 and .stopped == "settled"'
		healthy
	done
}

@test "one attempt record per attempt, then exactly one group record, last" {
	cases pass-a flaky1-a broken
	retry --cmd "$CMD"
	status_is 1
	[ "$(jq -s 'map(select(.type == "attempt")) | length' "$T/cases.out")" = 5 ]
	[ "$(jq -s 'map(select(.type == "group")) | length' "$T/cases.out")" = 1 ]
	[ "$(tail -n 1 "$T/cases.out" | jq -r .type)" = group ]
	# a failed attempt keeps its evidence
	jq -e -s 'map(select(.type == "attempt" and .case == "broken"))[0] |
	    .outcome == "fail" and .exit_code == 1 and (.stderr | contains("BROKEN run 1"))
	    and .round == 0 and .attempt == 1' "$T/cases.out" >/dev/null
}

@test "policy none: failures stand, nothing is retried" {
	cases pass-a flaky1-a broken
	retry -p none --cmd "$CMD"
	status_is 1
	[ "$(order)" = "pass-a flaky1-a broken" ]
	group '.policy == "none" and .rounds == 1 and .attempts == 3'
	kase flaky1-a '.result == "failed" and .attempts == 1'
	healthy
}

@test "failed-once: a flaky case passes on retry and is reported flaky, not passed" {
	cases pass-a flaky1-a broken pass-b
	retry -p failed-once --cmd "$CMD"
	status_is 1
	[ "$(order)" = "pass-a flaky1-a broken pass-b flaky1-a broken" ]
	kase pass-a '.result == "passed" and .attempts == 1'
	kase flaky1-a '.result == "flaky" and .attempts == 2 and .earlier == ["fail"]'
	kase broken '.result == "failed" and .attempts == 2 and .spent == 2'
	group '.policy == "failed:1" and .rounds == 2 and .stopped == "settled"'
	healthy
}

@test "failed-once exits 0 when every retried case passes in the end" {
	cases pass-a flaky1-a pass-b
	retry --cmd "$CMD"
	status_is 0
	group '.result == "passed" and .totals.flaky == 1 and .totals.passed == 2'
}

@test "failed-twice and failed:N: each case gets its own budget" {
	cases flaky1-a flaky2-a broken
	retry -p failed-twice --cmd "$CMD"
	status_is 1
	kase flaky1-a '.attempts == 2 and .result == "flaky"'
	kase flaky2-a '.attempts == 3 and .result == "flaky" and .earlier == ["fail","fail"]'
	kase broken '.attempts == 3 and .result == "failed"'
	group '.rounds == 3'
	healthy
	rm -f "$RT_STATE"/runs.*
	cases flaky3-a broken
	retry -p failed:3 --cmd "$CMD"
	status_is 1
	kase flaky3-a '.attempts == 4 and .result == "flaky"'
	kase broken '.attempts == 4'
	rm -f "$RT_STATE"/runs.*
	retry -p failed -r 0 --cmd "$CMD"
	group '.policy == "failed:0" and .rounds == 1 and .attempts == 2'
	healthy
}

@test "stop-on-failure: cases behind a failure are cancelled, then resumed in the retry round" {
	cases pass-a flaky1-a pass-b pass-c
	retry -x --cmd "$CMD"
	status_is 0
	[ "$(order)" = "pass-a flaky1-a flaky1-a pass-b pass-c" ]
	jq -e -s 'map(select(.type == "attempt" and .case == "pass-b")) |
	    .[0].outcome == "cancelled" and .[0].cancel_reason == "earlier-case-failed" and
	    .[0].round == 0 and .[1].outcome == "pass" and .[1].round == 1' "$T/cases.out" >/dev/null
	kase pass-b '.result == "passed" and .attempts == 2 and .spent == 1 and .earlier == ["cancelled"]'
	kase pass-a '.attempts == 1'
	healthy
}

@test "stop-on-failure: cancelled attempts cost nothing, each case keeps its full allowance" {
	# each case fails its first run; under -x one resolves per round
	cases flaky1-a flaky1-b flaky1-c
	retry -x -p failed-once --cmd "$CMD"
	status_is 0
	[ "$(order)" = "flaky1-a flaky1-a flaky1-b flaky1-b flaky1-c flaky1-c" ]
	kase flaky1-c '.result == "flaky" and .attempts == 4 and .spent == 2 and
	    .earlier == ["cancelled","cancelled","fail"]'
	# R x n retry rounds is the most a correct plan needs, and it is not a bug
	group '.rounds == 4 and .ceiling == 3 and .totals.flaky == 3 and .stopped == "settled"'
	healthy
}

@test "stop-on-failure: a permanently broken case stops planning once its budget is spent" {
	cases pass-a broken pass-b pass-c
	retry -x -p failed-twice --cmd "$CMD"
	status_is 1
	[ "$(order)" = "pass-a broken broken broken" ]
	group '.stopped == "exhausted" and .blocked_by == "broken" and .rounds == 3'
	kase broken '.result == "failed" and .spent == 3'
	kase pass-b '.result == "cancelled" and .cancel_reason == "earlier-case-failed" and .spent == 0'
	group '.totals.cancelled == 2 and .totals.cases == 4'
	healthy
}

@test "stop-on-failure with policy none: cancelled cases stay cancelled" {
	cases pass-a broken pass-b
	retry -x -p none --cmd "$CMD"
	status_is 1
	[ "$(order)" = "pass-a broken" ]
	kase pass-b '.result == "cancelled" and .attempts == 1'
	group '.rounds == 1'
	healthy
}

@test "stop-on-failure: a broken case cancelled in round 0 still gets its whole budget" {
	cases flaky1-a broken pass-b
	retry -x -p failed-once --cmd "$CMD"
	status_is 1
	[ "$(order)" = "flaky1-a flaky1-a broken broken" ]
	kase broken '.spent == 2 and .earlier == ["cancelled","fail"]'
	kase pass-b '.result == "cancelled"'
	group '.stopped == "exhausted"'
	healthy
}

@test "whole-group-once re-runs passing cases, so a case can follow another's state" {
	cases setup follow1 pass-a
	retry -p failed-once --cmd "$CMD"
	status_is 1
	kase follow1 '.result == "failed"'
	rm -f "$RT_STATE"/* && : > "$RT_STATE/order"
	retry -p whole-group-once --cmd "$CMD"
	status_is 0
	[ "$(order)" = "setup follow1 pass-a setup follow1 pass-a" ]
	kase setup '.result == "passed" and .attempts == 2'
	kase follow1 '.result == "flaky" and .earlier == ["fail"]'
	group '.policy == "whole-group-once" and .rounds == 2 and .totals.cases == 3'
	healthy
}

@test "whole-group-once with stop-on-failure replays the group into the cancelled cases" {
	cases pass-a flaky1-a pass-b
	retry -x -p whole-group-once --cmd "$CMD"
	status_is 0
	[ "$(order)" = "pass-a flaky1-a pass-a flaky1-a pass-b" ]
	kase pass-b '.earlier == ["cancelled"] and .result == "passed"'
	rm -f "$RT_STATE"/* && : > "$RT_STATE/order"
	cases pass-a broken pass-b
	retry -x -p whole-group-once --cmd "$CMD"
	status_is 1
	[ "$(order)" = "pass-a broken pass-a broken" ]
	group '.stopped == "exhausted" and .rounds == 2'
	healthy
}

@test "totals count cases by their latest attempt, never attempt rows" {
	cases pass-a flaky1-a pass-b flaky2-a pass-c
	retry -p failed-twice --cmd "$CMD"
	status_is 0
	group '.totals.cases == 5 and .attempts == 8'
	group '.totals.passed == 3 and .totals.flaky == 2 and .totals.failed == 0'
	group '[.totals.passed, .totals.flaky, .totals.failed, .totals.cancelled,
	    .totals.error, .totals.quarantined] | add == 5'
	group '.cases | length == 5'
}

@test "--retries auto takes the budget from --rate or a measure record" {
	cases flaky2-a broken
	retry -r auto --rate 0.2 --cmd "$CMD"
	status_is 1
	group '.retries == 2 and .budget.rate == 0.2 and .budget.source == "rate"'
	kase flaky2-a '.result == "flaky" and .attempts == 3'
	echo '{"type":"measure","trials":40,"failures":2,"rate":0.05,"ci_low":0.01,"ci_high":0.4}' > "$T/m.jsonl"
	rm -f "$RT_STATE"/runs.*
	retry -p failed:auto --measure "$T/m.jsonl" --basis point --cmd "$CMD"
	group '.retries == 1 and .budget.basis == "point"'
	# the budget carries the measure behind its rate: n, k, the interval and its method
	group '.budget.trials == 40 and .budget.failures == 2 and .budget.ci_low == 0.01 and .budget.ci_high == 0.4 and .budget.interval == "wilson"'
	# and the chance a flaky failure exhausts it, over that interval: 0.05^2, 0.01^2, 0.4^2
	group '(.budget.exhaust_probability - 0.0025 | fabs) < 1e-12 and (.budget.exhaust_low - 0.0001 | fabs) < 1e-12 and (.budget.exhaust_high - 0.16 | fabs) < 1e-12'
	rm -f "$RT_STATE"/runs.*
	retry -r auto --measure "$T/m.jsonl" --basis upper --cmd "$CMD"
	group '.retries == 5 and .budget.basis == "ends" and .budget.rate == 0.4'
	echo '{"type":"policy","retry_budget":3}' > "$T/p.jsonl"
	retry -r auto --measure "$T/p.jsonl" --cmd "$CMD"
	group '.retries == 3 and .budget.source == "policy"'
}

@test "--retries auto budgets as rt-plan --policy does, from its default basis (8/40: 4 retries, not 2)" {
	cases flaky2-a
	# 8/40 failed: the point estimate 0.2 would give 2 retries (0.2^3 <= 0.01);
	# rt-plan's default basis budgets at the exact one-sided 97.5% upper bound
	printf '%s\n' '{"type":"measure","command":"x","trials":40,"failures":8,"rate":0.2,"ci_low":0.104999,"ci_high":0.347576,"confidence":0.95,"verdict":"FLAKY"}' > "$T/m8.jsonl"
	rt-plan --policy "$T/m8.jsonl" > "$T/policy.jsonl"
	jq -e '.retry_budget == 4 and .basis == "split"' "$T/policy.jsonl" >/dev/null
	retry -r auto --measure "$T/m8.jsonl" --cmd "$CMD"
	status_is 0
	group '.retries == 4'
	# the same numbers, field by field
	jq -e -s '(.[0]) as $p | (.[1:][] | select(.type == "group")) as $g |
	    $g.retries == $p.retry_budget and $g.budget.rate == $p.retry_rate and
	    $g.budget.basis == $p.basis and $g.budget.target == $p.survive and
	    $g.budget.observed_rate == $p.observed_rate and
	    $g.budget.exact_high == $p.exact_high and
	    $g.budget.step_confidence == $p.step_confidence and
	    $g.budget.exhaust_probability == $p.exhaust_probability and
	    $g.budget.exhaust_high == $p.exhaust_high and
	    $g.budget.source == "measure" and
	    $g.budget.rule == "smallest r with p^(r+1) <= target"' \
	    "$T/policy.jsonl" "$T/cases.out" >/dev/null
	# --basis point is the point estimate, as rt-plan --basis point budgets it
	rm -f "$RT_STATE"/runs.*
	rt-plan --policy --basis point "$T/m8.jsonl" > "$T/point.jsonl"
	retry -r auto --basis point --measure "$T/m8.jsonl" --cmd "$CMD"
	group '.retries == 2 and .budget.rate == 0.2'
	jq -e '.retry_budget == 2' "$T/point.jsonl" >/dev/null
	# and --target is rt-plan's --survive
	rm -f "$RT_STATE"/runs.*
	rt-plan --policy --survive 0.001 "$T/m8.jsonl" > "$T/p001.jsonl"
	retry -r auto --target 0.001 --measure "$T/m8.jsonl" --cmd "$CMD"
	r=$(jq -r .retry_budget "$T/p001.jsonl")
	[ "$r" -gt 4 ]
	group ".retries == $r"
}

@test "--retries auto refuses a case that always fails, and a rate that is missing" {
	cases pass-a
	retry -r auto --rate 1 --cmd "$CMD"
	status_is 2
	has "always fails"
	echo '{"type":"measure","trials":0,"failures":0,"rate":null}' > "$T/m.jsonl"
	retry -r auto --measure "$T/m.jsonl" --cmd "$CMD"
	status_is 2
	has "m.jsonl:1"
	echo '{"type":"trial","outcome":"pass"}' > "$T/t.jsonl"
	retry -r auto --measure "$T/t.jsonl" --cmd "$CMD"
	status_is 2
	has "no measure or policy record"
	# 0/n is not a rate of 0: refused as rt-plan refuses it
	echo '{"type":"measure","trials":40,"failures":0,"rate":0,"ci_low":0,"ci_high":0.072158}' > "$T/z.jsonl"
	retry -r auto --measure "$T/z.jsonl" --cmd "$CMD"
	status_is 2
	has "z.jsonl:1: no failure observed in 40 trials: nothing to budget retries against"
	retry -r auto --rate 0 --cmd "$CMD"
	status_is 2
	has "--rate 0: no failure to budget retries against"
	[ ! -s "$RT_STATE/order" ]
}

@test "a quarantined case still runs, but its failure neither retries nor fails the group" {
	cases pass-a broken flaky1-a
	printf '# quarantined by rt-pr\n\n  broken  https://example.invalid/dossier.md\nother\n' > "$T/q"
	retry -q "$T/q" --cmd "$CMD"
	status_is 0
	[ "$(order)" = "pass-a broken flaky1-a flaky1-a" ]
	kase broken '.result == "quarantined" and .as_run == "failed" and .attempts == 1'
	group '.quarantined == ["broken"] and .totals.quarantined == 1 and .result == "passed"'
	group '.summary | contains("1 quarantined")'
	# nor does it stop the group under --stop-on-failure
	rm -f "$RT_STATE"/* && : > "$RT_STATE/order"
	retry -x -q "$T/q" --cmd "$CMD"
	status_is 0
	[ "$(order)" = "pass-a broken flaky1-a flaky1-a" ]
}

@test "circuit breaker: more than --max-failures failing in round 0 means no retry round" {
	cases broken-a broken-b flaky1-a pass-a
	retry --max-failures 50% --cmd "$CMD"
	status_is 1
	has "no retry round"
	group '.circuit_breaker.tripped and .circuit_breaker.round0_failures == 3'
	group '.rounds == 1 and .stopped == "circuit-breaker"'
	kase flaky1-a '.result == "failed"'
	rm -f "$RT_STATE"/*
	retry --max-failures 3 --cmd "$CMD"
	status_is 1
	group '.circuit_breaker.tripped == false and .rounds == 2'
	kase flaky1-a '.result == "flaky"'
}

@test "Ctrl-C during a retry round: the running case is cancelled user-stop, exit 130" {
	# failed-twice: without the stop, flaky2-a and nap would get a round 2
	cases pass-a flaky2-a nap pass-b
	rt-retry -f "$T/cases" -p failed-twice --cmd "$CMD" > "$T/out" 2> "$T/err" &
	pid=$!
	i=0
	while [ ! -e "$RT_STATE/sleeping" ] && [ "$i" -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
	[ -e "$RT_STATE/sleeping" ]
	kill -INT "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" = 130 ]
	jq -e -s 'map(select(.type == "attempt" and .case == "nap")) | length == 2 and
	    .[1].outcome == "cancelled" and .[1].cancel_reason == "user-stop" and .[1].round == 1' \
	    "$T/out" >/dev/null
	[ "$(jq -s 'map(select(.type == "group")) | length' "$T/out")" = 1 ]
	jq -e 'select(.type == "group") | .interrupted and .stopped == "user-stop" and
	    .result == "interrupted" and .rounds == 2 and .totals.cases == 4 and
	    (.cases[] | select(.case == "nap") | .result == "cancelled" and .spent == 1) and
	    (.cases[] | select(.case == "flaky2-a") | .result == "failed" and .attempts == 2)' \
	    "$T/out" >/dev/null
	[ "$(order)" = "pass-a flaky2-a nap pass-b flaky2-a nap" ]
	run cat "$T/err"
	hasnt "ceiling"
}

@test "SIGTERM in round 0 cancels the running case and the cases not reached, exit 143" {
	cases pass-a hang pass-b
	rt-retry -f "$T/cases" --cmd "$CMD" > "$T/out" 2> "$T/err" &
	pid=$!
	i=0
	while ! grep -qx hang "$RT_STATE/order" 2>/dev/null && [ "$i" -lt 400 ]; do
		sleep 0.05; i=$((i + 1))
	done
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" = 143 ]
	jq -e 'select(.type == "group") | .interrupted and .rounds == 1 and
	    ([.cases[] | select(.cancel_reason == "user-stop")] | length == 2)' "$T/out" >/dev/null
	[ "$(order)" = "pass-a hang" ]
}

@test "hostile case names are data, never shell text (--cmd and -- ARGV)" {
	mkdir -p "$T/home" && : > "$T/home/canary"
	cases 'x; rm -rf ~' '$(touch pwned)' '`touch pwned2`' "a\"b'c" '-n' ' lead' '{}' '*' 'x && touch pwned3'
	cd "$T"
	HOME="$T/home" retry --cmd "$CMD"
	status_is 0
	HOME="$T/home" retry -- "$CASE" '{}'
	status_is 0
	[ -e "$T/home/canary" ]
	[ ! -e "$T/pwned" ] && [ ! -e "$T/pwned2" ] && [ ! -e "$T/pwned3" ]
	# each name reached the case verbatim, twice
	sort "$RT_STATE/names" | uniq -c | awk '$1 != 2 { exit 1 }'
	[ "$(sort -u "$RT_STATE/names")" = "$(sort -u "$T/cases")" ]
	kase '$(touch pwned)' '.result == "passed"'
}

@test "{} is substituted inside quotes and inside argv elements" {
	cases 'two words' "it's"
	retry --cmd "printf '%s|%s\\n' \"case={}\" 'q={}' >> \"\$RT_STATE/sub\""
	status_is 0
	[ "$(sed -n 1p "$RT_STATE/sub")" = "case=two words|q=two words" ]
	[ "$(sed -n 2p "$RT_STATE/sub")" = "case=it's|q=it's" ]
	retry -- sh -c 'printf "%s\n" "$1" >> "$RT_STATE/argv"' sh 'n={}'
	status_is 0
	[ "$(cat "$RT_STATE/argv")" = "n=two words
n=it's" ]
}

@test "JUnit: flakyFailure for a flaky case, failure and rerunFailure for a failed one; valid XML" {
	cases pass-a flaky1-a broken ugly
	retry -p failed-once --junit "$T/junit.xml" --cmd "$CMD"
	status_is 1
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$T/junit.xml"
	if command -v xmllint >/dev/null; then xmllint --noout "$T/junit.xml"; fi
	python3 "$RT_TOP/t/fixtures/retry/surefire-check.py" "$T/junit.xml"
	python3 - "$T/junit.xml" <<'EOF'
import sys, xml.etree.ElementTree as E
s = E.parse(sys.argv[1]).getroot()
assert s.tag == "testsuite"
assert s.get("tests") == "4" and s.get("failures") == "2", s.attrib
tc = {t.get("name"): t for t in s.iter("testcase")}
assert len(tc["pass-a"]) == 0
f = tc["flaky1-a"].findall("flakyFailure")
assert len(f) == 1 and "FAILED run 1" in f[0].find("system-err").text
assert tc["flaky1-a"].find("failure") is None
b = tc["broken"]
assert len(b.findall("failure")) == 1 and len(b.findall("rerunFailure")) == 1
assert "BROKEN run 1" in b.find("failure").text
assert b.find("failure").get("type") == "fail"
assert "BROKEN run 1" in b.find("system-err").text
assert f[0].find("stackTrace").text.startswith("attempt 1, round 0")
assert "BROKEN run 2" in b.find("rerunFailure/system-err").text
u = tc["ugly"].find("failure").text
assert "]]>" in u and "nul" in u
EOF
}

@test "JUnit: cancelled cases are skipped with their reason; quarantined ones named" {
	cases pass-a broken pass-b
	echo broken > "$T/q"
	retry -x -p none --junit "$T/j1.xml" --cmd "$CMD"
	python3 - "$T/j1.xml" <<'EOF'
import sys, xml.etree.ElementTree as E
tc = {t.get("name"): t for t in E.parse(sys.argv[1]).iter("testcase")}
assert tc["pass-b"].find("skipped").get("message") == "cancelled: earlier-case-failed"
EOF
	retry -q "$T/q" --junit "$T/j2.xml" --suite my.suite --cmd "$CMD"
	status_is 0
	python3 - "$T/j2.xml" <<'EOF'
import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
tc = {t.get("name"): t for t in r.iter("testcase")}
assert "quarantined" in tc["broken"].find("skipped").get("message")
assert r.get("name") == "my.suite"
EOF
	python3 "$RT_TOP/t/fixtures/retry/surefire-check.py" "$T/j1.xml"
	python3 "$RT_TOP/t/fixtures/retry/surefire-check.py" "$T/j2.xml"
}

@test "a timeout is a failure: it spends budget and is retried" {
	cases pass-a hang
	retry -t 0.3 --grace 0.2 -p failed-once --cmd "$CMD"
	status_is 1
	kase hang '.result == "failed" and .attempts == 2 and .spent == 2 and .outcome == "timeout"'
	healthy
}

@test "the ceiling backstop: when tripped it warns of a bug and the group still settles" {
	cases flaky1-a flaky1-b flaky1-c
	RETRIAL_RETRY_CEILING=1 retry -x --cmd "$CMD"
	status_is 1
	has "ceiling"
	has "bug"
	group '.stopped == "ceiling" and .rounds == 2 and .ceiling == 1'
	kase flaky1-c '.result == "cancelled"'
	[ "$(tail -n 1 "$T/cases.out" | jq -r .type)" = group ]
}

@test "JUnit: only a case that passed in the end carries flakyFailure; Surefire's element order" {
	# seq-pf passes then fails on the whole-group rerun, cancelling seq-fp
	# behind it: seq-fp failed once and never passed, so it is no flaky case
	cases seq-f-q seq-pf seq-fp pass-a
	printf 'seq-f-q\t# dossier: .retrial/dossiers/q.md\n' > "$T/q"
	retry -x -p whole-group-once -q "$T/q" --junit "$T/j.xml" --cmd "$CMD"
	status_is 1
	kase seq-fp '.result == "cancelled" and .earlier == ["fail"]'
	python3 "$RT_TOP/t/fixtures/retry/surefire-check.py" "$T/j.xml"
	if command -v xmllint >/dev/null; then xmllint --noout "$T/j.xml"; fi
	python3 - "$T/j.xml" <<'EOF'
import sys, xml.etree.ElementTree as E
tc = {t.get("name"): t for t in E.parse(sys.argv[1]).iter("testcase")}
fp = tc["seq-fp"]
assert fp.find("flakyFailure") is None, "a cancelled case is not flaky"
assert [c.tag for c in fp] == ["rerunFailure", "skipped"], [c.tag for c in fp]
assert "FAILED run 1" in fp.find("rerunFailure/system-err").text
q = tc["seq-f-q"]
assert [c.tag for c in q] == ["rerunFailure", "rerunFailure", "skipped"], [c.tag for c in q]
assert [c.tag for c in tc["seq-pf"]] == ["failure", "system-out", "system-err"]
EOF
	# an error after a failure: the failure stays as evidence, before <error>
	cases seq-fe
	rm -f "$RT_STATE"/runs.*
	retry --junit "$T/j2.xml" --cmd "$CMD"
	status_is 2
	python3 "$RT_TOP/t/fixtures/retry/surefire-check.py" "$T/j2.xml"
	python3 - "$T/j2.xml" <<'EOF'
import sys, xml.etree.ElementTree as E
t = E.parse(sys.argv[1]).getroot().find("testcase")
assert [c.tag for c in t] == ["rerunFailure", "error", "system-out", "system-err"], [c.tag for c in t]
EOF
}

@test "the ceiling is never tripped on healthy runs, under any policy, with and without -x" {
	cases seq-fffp seq-fp-a seq-pf seq-fp-b seq-ffp seq-p seq-fp-c
	for p in none failed-once failed-twice failed:3 whole-group-once; do
		for x in "" -x; do
			rm -f "$RT_STATE"/runs.*
			retry -p "$p" $x --cmd "$CMD"
			healthy
			hasnt "bug"
			group '.stopped == "settled" or .stopped == "exhausted"'
			group '.rounds - 1 <= .ceiling and ([.cases[].spent] | max) <= .retries + 1'
		done
	done
	# the tight case: every case fails R times under -x, R x n retry rounds
	cases seq-ffp-a seq-ffp-b seq-ffp-c
	rm -f "$RT_STATE"/runs.*
	retry -p failed-twice -x --cmd "$CMD"
	status_is 0
	healthy
	group '.rounds == 7 and .ceiling == 6 and .totals.flaky == 3'
}

@test "rt-measure ... | rt-retry -r auto -f CASES: the measure record arrives on stdin" {
	cases flaky2-a pass-a
	rt-measure -n 6 -- sh "$EX/kth/every-kth.sh" 2>/dev/null > "$T/m6.jsonl"
	rt-retry -r auto -f "$T/cases" --cmd "$CMD" < "$T/m6.jsonl" > "$T/cases.out"
	# 2/6 failed: rt-plan --policy's budget for the same record
	r=$(rt-plan --policy "$T/m6.jsonl" | jq -r .retry_budget)
	group ".retries == $r and .budget.source == \"measure\" and .budget.observed_rate == 0.333333"
	kase flaky2-a '.result == "flaky" and .attempts == 3'
	rm -f "$RT_STATE"/runs.*
	rt-plan --policy --rate 0.2 | rt-retry -r auto --measure - -f "$T/cases" --cmd "$CMD" > "$T/cases.out"
	group '.retries == 2 and .budget.source == "policy"'
	: > "$RT_STATE/order"
	# with the cases on stdin there is no room for the record
	run sh -c 'printf "pass-a\n" | rt-retry -r auto --cmd "$0"' "$CMD"
	status_is 2
	has "standard input"
	run sh -c 'printf "pass-a\n" | rt-retry -r auto --measure - --cmd "$0"' "$CMD"
	status_is 2
	has "cannot both be standard input"
	run sh -c 'echo "{\"type\":\"trial\"}" | rt-retry -r auto -f "$0" --cmd true' "$T/cases"
	status_is 2
	has "<stdin>: no measure or policy record"
	[ ! -s "$RT_STATE/order" ]
}

@test "the quarantine file rt-pr writes: its header, NAME<TAB># dossier: PATH, CRLF" {
	cases pass-a broken-a broken-b flaky1-a
	printf '%s\n' "# Quarantined flaky tests, one per line: the test's name, then (after a TAB)" \
	    "# a comment naming its evidence dossier. Blank lines and lines starting" \
	    "# with '#' are ignored. Written by rt-pr(1); rt-pr(1), QUARANTINE, shows" \
	    "# how CI reads it." > "$T/q"
	printf 'broken-a\t# dossier: .retrial/dossiers/broken-a.md\n' >> "$T/q"
	printf 'broken-b\t# dossier: .retrial/dossiers/broken-b.md\r\n' >> "$T/q"
	printf 'flaky1\t# dossier: .retrial/dossiers/flaky1.md\n' >> "$T/q"
	retry -q "$T/q" --cmd "$CMD"
	status_is 0
	group '.quarantined == ["broken-a","broken-b"] and .totals.quarantined == 2'
	kase flaky1-a '.quarantined == false and .result == "flaky"'
	kase broken-b '.as_run == "failed" and .attempts == 1'
}

@test "-0: NUL-separated case names, so a name may hold a newline" {
	printf 'two\nlines\0-n\0{}\0' > "$T/cases"
	retry -0 --cmd "$CMD" --junit "$T/j.xml"
	status_is 0
	group '.totals.cases == 3 and .totals.passed == 3'
	kase 'two
lines' '.attempts == 1'
	[ "$(jq -r 'select(.type == "attempt") | .env.RETRIAL_CASE' "$T/cases.out" | head -n 2)" = "two
lines" ]
	python3 - "$T/j.xml" <<'EOF'
import sys, xml.etree.ElementTree as E
names = [t.get("name") for t in E.parse(sys.argv[1]).iter("testcase")]
assert names == ["two\nlines", "-n", "{}"], names
EOF
	# without -0 a NUL is refused, naming the place
	retry --cmd "$CMD"
	status_is 2
	has "cases:2: NUL byte"
	has "-0"
}

# --- bad input and faults ------------------------------------------------

@test "an infrastructure error is not a failure: never retried, exit 2" {
	cases pass-a missing pass-b
	retry --cmd "$CMD"
	status_is 2
	kase missing '.result == "error" and .attempts == 1 and .spent == 0'
	group '.result == "error" and .rounds == 1'
	# and under --stop-on-failure it stops planning
	retry -x --cmd "$CMD"
	status_is 2
	kase pass-b '.result == "cancelled"'
	group '.stopped == "error" and .blocked_by == "missing"'
}

@test "bad case lists exit 2 and run nothing" {
	run rt-retry -f "$T/nonexistent" --cmd "$CMD"
	status_is 2
	has "nonexistent"
	printf '\n\n' > "$T/cases"
	retry --cmd "$CMD"
	status_is 2
	has "no cases"
	cases a b a
	retry --cmd "$CMD"
	status_is 2
	has "cases:3: duplicate case"
	run rt-retry -f "$T/cases" -q "$T/nonexistent" --cmd "$CMD"
	status_is 2
	[ ! -e "$RT_STATE/order" ]
}

@test "cases come from stdin by default" {
	run sh -c 'printf "pass-a\nflaky1-a\n" | rt-retry --cmd "$0" | tail -n 1' "$CMD"
	status_is 0
	echo "$output" | jqe '.totals.cases == 2 and .totals.flaky == 1'
}

# --- issue 15: default quarantine, flakes for junitparser, progress -------

@test "-q .retrial/quarantine: a missing default list is an empty one; any other missing list is an error" {
	cases pass-a flaky1-a
	cd "$T"
	retry -p failed-once -q .retrial/quarantine --cmd "$CMD"
	status_is 0
	kase flaky1-a '.result == "flaky" and .quarantined == false'
	retry -p failed-once -q ./.retrial/quarantine --cmd "$CMD"
	status_is 0
	retry -p failed-once -q .retrial/quarantin --cmd "$CMD"
	status_is 2
	has ".retrial/quarantin"
	mkdir -p .retrial && echo flaky1-a > .retrial/quarantine
	retry -p failed-once -q .retrial/quarantine --cmd "$CMD"
	status_is 0
	kase flaky1-a '.quarantined == true'
}

@test "JUnit: flakes=N on the suite and retrial.flaky=true on each flaky case, seen by junitparser" {
	/usr/bin/python3 -c 'import junitparser' 2>/dev/null || skip "python3-junitparser not installed"
	cases pass-a flaky1-a flaky2-a broken
	retry -p failed-twice --junit "$T/junit.xml" --cmd "$CMD"
	status_is 1
	python3 "$RT_TOP/t/fixtures/retry/surefire-check.py" "$T/junit.xml"
	/usr/bin/python3 - "$T/junit.xml" <<'PY'
import sys
from junitparser import JUnitXml
suite = JUnitXml.fromfile(sys.argv[1])
assert suite._elem.get("flakes") == "2", suite._elem.attrib
flaky = {}
for case in suite:
    props = case._elem.find("properties")
    flaky[case.name] = props is not None and any(
        p.get("name") == "retrial.flaky" and p.get("value") == "true" for p in props)
assert flaky == {"pass-a": False, "flaky1-a": True, "flaky2-a": True, "broken": False}, flaky
PY
}

@test "progress on a terminal: a line per attempt on stderr, none when stderr is not a terminal" {
	command -v script >/dev/null || skip "script(1) not installed"
	cases pass-a flaky1-a
	RETRIAL_NO_TTY= script -qec "rt-retry -f '$T/cases' -p failed-once --cmd \"$CMD\" >'$T/out' 2>/dev/tty" "$T/typescript" >/dev/null
	grep -q "rt-retry: 3/3 trials" "$T/typescript"
	grep -q "round 1" "$T/typescript"
	retry -p failed-once --cmd "$CMD"
	status_is 0
	hasnt "trials ·"
}

# --- the runners' canonical IDs, unchanged ---------------------------------

# ids: a jest ID with blanks and '>', a Go package::TestX/sub, a pytest
# node ID with a parameter, and a case whose name is a prefix of the jest
# ID's; $T/runner logs its arguments and fails the IDs named in $T/fail.
J='__tests__/cart.test.js::cart > adds prices times quantities'
G='example.com/gomod/calc::TestAdd/negative'
PY='tests/test_x.py::TestC::test_y[1-2]'
ids() {
	printf '%s\n' "$J" "$G" "$PY" '__tests__/cart.test.js::cart' > "$T/cases"
	cat > "$T/runner" <<-'EOS'
	#!/bin/sh
	printf '%s|%s\n' "$#" "$1" >> "$RT_STATE/args"
	[ "$RETRIAL_CASE" = "$1" ] || { echo "RETRIAL_CASE differs" >&2; exit 3; }
	grep -qxF -- "$1" "$RT_STATE/../fail" 2>/dev/null && exit 1
	exit 0
	EOS
	chmod +x "$T/runner"
}

@test "canonical IDs select their case unchanged: a jest ID with blanks, Go's pkg::TestX/sub (--cmd and -- ARGV)" {
	ids
	for form in cmd argv; do
		: > "$RT_STATE/args"
		if [ $form = cmd ]; then
			retry -p none --junit "$T/j.xml" --cmd "'$T/runner' {}"
		else
			retry -p none --junit "$T/j.xml" -- "$T/runner" {}
		fi
		status_is 0
		# each ID reached the command as one word, as listed
		[ "$(cat "$RT_STATE/args")" = "1|$J
1|$G
1|$PY
1|__tests__/cart.test.js::cart" ]
		kase "$J" '.result == "passed"'
		kase "$G" '.result == "passed"'
		group '.totals.cases == 4 and .totals.passed == 4'
		[ "$(jq -r 'select(.type == "attempt") | .case' "$T/cases.out")" = "$(cat "$T/cases")" ]
	done
	python3 - "$T/j.xml" "$J" "$G" <<-'PY'
	import sys, xml.etree.ElementTree as ET
	names = [c.get("name") for c in ET.parse(sys.argv[1]).iter("testcase")]
	assert sys.argv[2] in names and sys.argv[3] in names, names
	PY
}

@test "-q: a quarantine list of canonical IDs, blanks included, quarantines exactly those cases" {
	ids
	printf '%s\n' "$J" "$G" "$PY" '__tests__/cart.test.js::cart' > "$T/fail"
	# rt-pr's lines (NAME<TAB># dossier), a bare line with a CR, and an
	# older list's "NAME LINK"
	{
		printf '%s\t# dossier: .retrial/dossiers/cart.md\n' "$J"
		printf '%s\r\n' "$G"
		printf '%s https://ci.example/42\n' "$PY"
	} > "$T/q"
	retry -p none -q "$T/q" --cmd "'$T/runner' {}"
	# the prefix case is not quarantined by the jest line: it fails the group
	status_is 1
	kase "$J" '.quarantined == true and .result == "quarantined"'
	kase "$G" '.quarantined == true'
	kase "$PY" '.quarantined == true'
	kase '__tests__/cart.test.js::cart' '.quarantined == false and .result == "failed"'
	group '.quarantined | length == 3'
	printf '%s\t# dossier: x.md\n' '__tests__/cart.test.js::cart' >> "$T/q"
	retry -p none -q "$T/q" --cmd "'$T/runner' {}"
	status_is 0
	group '.totals.quarantined == 4'
}

# Issue 31: a case name reaches a command only as an argv word; {} inside
# a nested shell's script or after eval is refused, with the safe form.
@test "rt-retry: {} in a nested sh -c script, bash -c string or after eval is refused; the argv form runs" {
	cases 'x$(touch pwned)'
	cd "$T"
	for c in "sh -c 'echo {}'" 'bash -c "echo {}"' 'eval echo {}' \
	    "true && sh -ec 'echo {}'" "sh -c {}"; do
		retry --cmd "$c"
		status_is 2
		[ "${#lines[@]}" -eq 1 ]
		has "rt-retry: --cmd: {} in the script of a nested shell or after eval"
		has "sh -c '... \"\$1\" ...' sh {}"
	done
	retry -- sh -c 'echo {}'
	status_is 2
	has "rt-retry: -- ARGV: {} in the script of a nested shell"
	[ ! -e pwned ]
	retry --cmd "echo '{}'; sh -c 'test \"\$1\" = \"x\\\$(touch pwned)\"' sh {}"
	status_is 0
	retry -- sh -c 'test "$1" = "x\$(touch pwned)"' sh {}
	status_is 0
	[ ! -e pwned ]
}
