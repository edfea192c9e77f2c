#!/usr/bin/env bats
# t/06-records.bats: lib/rt_records — one schema per record type and one
# validator, so every tool says the same thing of the same bad record; and
# retrial(7), RECORDS, is the schema: every field the schema names and every
# field the writers emit is documented there.
load helper

RT="$RT_TOP/t/records_test"
MF="$RT_TOP/t/man-fields.py"
MAN7="$RT_TOP/man/man7/retrial.7"
PR="$RT_TOP/t/fixtures/pr"
VFX="$RT_TOP/t/fixtures/verify"

setup() {
	[ -x "$RT" ] || make -s -C "$RT_TOP" t/records_test >/dev/null
	mkdir -p "$T/tmp"
	export TMPDIR="$T/tmp"
}

# the verdict of a real rt-verify run, changed by the jq filter $1, in $T/bad.jsonl
bad_verdict() {
	jq -c "select(.type == \"verdict\") | $1" "$PR/fixed.jsonl" >"$T/bad.jsonl"
}

# after TOOL: the message, without the tool's name
msg() { printf '%s\n' "$output" | grep -m1 "bad.jsonl:" | sed 's/^[a-z_-]*: //'; }

@test "records: a bad field names file:line, the record and the field" {
	bad_verdict '.lanes = 3'
	run "$RT" check "$T/bad.jsonl"
	status_is 2
	[ "$output" = "records_test: $T/bad.jsonl:1: verdict record: field \"lanes\" must be an array" ]
	bad_verdict 'del(.verdict)'
	run "$RT" check "$T/bad.jsonl"
	status_is 2
	has "bad.jsonl:1: verdict record: field \"verdict\" is missing"
	bad_verdict '.lanes[1].failures = -1'
	run "$RT" check "$T/bad.jsonl"
	has "bad.jsonl:1: verdict record: field \"lanes[1].failures\" must be a whole number >= 0, not -1"
	bad_verdict '.baseline.failures = 41'
	run "$RT" check "$T/bad.jsonl"
	has "field \"baseline.failures\" must be at most \"trials\" (41 failures in 40 trials)"
	bad_verdict '.verdict = "MAYBE"'
	run "$RT" check "$T/bad.jsonl"
	has "field \"verdict\" must be one of FIXED, IMPROVED,"
	printf '{"type":"trial","trial":1,"outcome":"maybe"}\n' >"$T/bad.jsonl"
	run "$RT" check "$T/bad.jsonl"
	has "bad.jsonl:1: trial record: field \"outcome\" must be one of pass, fail, timeout, error, ignored, not maybe"
	printf '{"type":"trial","case":"t::a","trial":1}\n' >"$T/bad.jsonl"
	run "$RT" check "$T/bad.jsonl"
	has "bad.jsonl:1: case trial record: field \"outcome\" is missing"
}

@test "records: a measured 0.0 is a value, not missing; null is absent only where optional" {
	printf '%s\n' '{"type":"measure","trials":0.0,"failures":0.0,"rate":0.0,"ci_low":0.0,"ci_high":0.0}' \
	    '{"type":"measure","trials":40,"failures":0,"rate":null,"errors":null}' >"$T/ok.jsonl"
	run "$RT" check "$T/ok.jsonl"
	status_is 0
	[ "$output" = "$(printf 'measure\nmeasure')" ]
	printf '{"type":"measure","trials":40,"failures":null}\n' >"$T/bad.jsonl"
	run "$RT" check "$T/bad.jsonl"
	status_is 2
	has "bad.jsonl:1: measure record: field \"failures\" must be a whole number"
}

# Each tool that reads verdicts, fed the same bad verdict, says the same
# words after its own name.
same_verdict_message() {
	bad_verdict "$1"
	run "$RT" check "$T/bad.jsonl"
	status_is 2
	want=$(msg)
	[ -n "$want" ]
	has "$2"
	run rt-pr --body - "$T/bad.jsonl"
	status_is 2
	[ "$(msg)" = "$want" ]
	run rt-report -t "$T/bad.jsonl"
	status_is 2
	[ "$(msg)" = "$want" ]
	run rt-genome -g "$T/g.db" --import "$T/bad.jsonl"
	status_is 2
	[ "$(msg)" = "$want" ]
}

@test "records: rt-pr, rt-report and rt-genome give a bad verdict the same message" {
	same_verdict_message '.lanes = 3 | del(.verdict)' 'verdict record: field "verdict" is missing'
	same_verdict_message '.lanes = 3' 'verdict record: field "lanes" must be an array'
	same_verdict_message '.confirmations[0].failures = 99' 'field "confirmations[0].failures" must be at most "trials"'
	same_verdict_message '.confidence = 1' 'field "confidence" must be between 0 and 1 (exclusive), not 1'
	same_verdict_message 'del(.baseline)' 'field "baseline" is missing'
}

@test "records: every tool that reads a measure record gives a bad one the same message" {
	printf '{"type":"measure","trials":10,"failures":20}\n' >"$T/bad.jsonl"
	want="$T/bad.jsonl:1: measure record: field \"failures\" must be at most \"trials\" (20 failures in 10 trials)"
	run rt-plan "$T/bad.jsonl"
	status_is 2
	[ "$(msg)" = "$want" ]
	run rt-report -t "$T/bad.jsonl"
	[ "$(msg)" = "$want" ]
	run rt-retry -r auto --measure "$T/bad.jsonl" --cmd true </dev/null
	status_is 2
	[ "$(msg)" = "$want" ]
	run rt-verify -C "$VFX/pool" --no-genome --cmd true "$T/bad.jsonl"
	status_is 2
	[ "$(msg)" = "$want" ]
	run rt-diagnose --rules --no-cache --offline "$T/bad.jsonl"
	status_is 2
	[ "$(msg)" = "$want" ]
}

@test "records: rt-verify checks a hypothesis record by the schema" {
	printf '{"type":"hypothesis","id":"h1","files":"a.py"}\n' >"$T/bad.jsonl"
	run rt-verify -C "$VFX/pool" --no-genome --cmd true "$T/bad.jsonl"
	status_is 2
	[ "$(msg)" = "$T/bad.jsonl:1: hypothesis record: field \"files\" must be an array" ]
}

@test "records: a hypothesis's minimise (what delta debugging spent) is checked by the schema" {
	printf '{"type":"hypothesis","id":"h1","minimise":{"statements":1,"of":2,"trials":3}}\n' >"$T/bad.jsonl"
	run rt-verify -C "$VFX/pool" --no-genome --cmd true "$T/bad.jsonl"
	status_is 2
	[ "$(msg)" = "$T/bad.jsonl:1: hypothesis record: field \"minimise.probes\" is missing" ]
	printf '{"type":"hypothesis","id":"h1","minimise":{"statements":1,"of":2,"probes":3,"trials":3,"judged_by":"guess"}}\n' >"$T/bad.jsonl"
	run rt-verify -C "$VFX/pool" --no-genome --cmd true "$T/bad.jsonl"
	status_is 2
	[ "$(msg)" = "$T/bad.jsonl:1: hypothesis record: field \"minimise.judged_by\" must be one of case, exit, not guess" ]
}

@test "records: a hypothesis's checked (a polluter's reset, run once) is checked by the schema" {
	printf '{"type":"hypothesis","id":"h1","checked":{"trials":3}}\n' >"$T/bad.jsonl"
	run rt-verify -C "$VFX/pool" --no-genome --cmd true "$T/bad.jsonl"
	status_is 2
	[ "$(msg)" = "$T/bad.jsonl:1: hypothesis record: field \"checked.failures\" is missing" ]
	printf '{"type":"hypothesis","id":"h1","checked":{"trials":3,"failures":1,"judged_by":"guess"}}\n' >"$T/bad.jsonl"
	run rt-verify -C "$VFX/pool" --no-genome --cmd true "$T/bad.jsonl"
	status_is 2
	[ "$(msg)" = "$T/bad.jsonl:1: hypothesis record: field \"checked.judged_by\" must be one of case, exit, not guess" ]
}

@test "records: RETRIAL_CHECK_RECORDS makes writing a bad record a bug, not output" {
	bad_verdict '.lanes = 3'
	run "$RT" write "$T/bad.jsonl"
	status_is 0
	[ "$output" = "$(cat "$T/bad.jsonl")" ]
	RETRIAL_CHECK_RECORDS=1 run "$RT" write "$T/bad.jsonl"
	status_is 2
	[ "$output" = 'records_test: bug: writing a bad record: verdict record: field "lanes" must be an array' ]
	RETRIAL_CHECK_RECORDS=1 run "$RT" write "$PR/fixed.jsonl"
	status_is 0
	[ "$output" = "$(cat "$PR/fixed.jsonl")" ]
}

@test "records: retrial(7) documents every field of lib/rt_records' schema" {
	run sh -c '"$0" fields | python3 "$1" "$2" schema' "$RT" "$MF" "$MAN7"
	status_is 0
	# the check can fail: a field retrial(7) does not name is reported
	run sh -c 'echo "verdict no_such_field" | python3 "$0" "$1" schema' "$MF" "$MAN7"
	status_is 1
	has "verdict: schema field no_such_field is not in retrial(7)"
}

@test "records: every field the writers emit is in retrial(7), and every record they write validates" {
	cd "$T"
	# check builds: every record a tool writes is validated as it is written
	export RETRIAL_CHECK_RECORDS=1
	printf '#!/bin/sh\n[ $((RETRIAL_SEED %% 3)) -ne 0 ] || { echo "boom: seed $RETRIAL_SEED" >&2; exit 1; }\n' >flaky.sh
	chmod +x flaky.sh
	rt-collect -n 12 --seed 7 -- ./flaky.sh >trials.jsonl
	rt-measure trials.jsonl >measure.jsonl
	rt-measure -n 200 --until verdict -- ./flaky.sh >until.jsonl
	rt-plan measure.jsonl >plan.jsonl
	rt-plan --policy measure.jsonl >policy.jsonl
	rt-diff-facts trials.jsonl >diff.jsonl
	rt-junit "$RT_TOP/t/fixtures/junit/surefire-rerun.xml" >cases.jsonl
	rt-measure --by case cases.jsonl >bycase.jsonl
	rt-verify -C "$VFX/pool" -n 30 -N 40 -j 2 --seed 42 --no-genome \
	    --cmd ./test_pool.sh "$VFX/pool.jsonl" >verify.jsonl 2>verify.err
	printf '%s\n' pass-a flaky1-b broken-c >retry.cases
	RT_STATE="$T/state" && mkdir -p "$RT_STATE" && export RT_STATE
	rt-retry -f retry.cases -r 2 --cmd "'$RT_TOP/t/fixtures/retry/case.sh' {}" >retry.jsonl || true
	rt-audit -H "$T/audit.db" --json audit.jsonl cases.jsonl >/dev/null
	seq -f 't%02g' 1 5 >list
	rt-bisect -v t05 -f list -- "$RT_TOP/t/fixtures/bisect/stub.sh" t02 t05 {} >order.jsonl
	files="trials.jsonl measure.jsonl until.jsonl plan.jsonl policy.jsonl diff.jsonl cases.jsonl
	    bycase.jsonl verify.jsonl retry.jsonl audit.jsonl order.jsonl"
	# each pipeline wrote its records
	for f in $files; do [ -s "$f" ] || { echo "$f is empty" >&2; return 1; }; done
	types=$(cat $files | jq -r '.type + (if .type == "trial" and .case then "(case)" else "" end)' | sort -u | tr '\n' ' ')
	[ "$types" = "attempt audit diff group lane measure order plan policy trial trial(case) verdict " ]
	run python3 "$MF" "$MAN7" emitted $files
	status_is 0
	run "$RT" check $files
	status_is 0
}
