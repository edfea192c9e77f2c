#!/usr/bin/env bats
# rt-diff-facts: what is true only when the test fails.
load helper

FX="$BATS_TEST_DIRNAME/fixtures/diff"

# gen N FILTER: N trial records, FILTER a jq expression over $t (1..N)
# whose result is merged into a passing trial with empty output.
gen() {
	jq -nc --argjson n "$1" "range(1; \$n + 1) as \$t |
	    {type: \"trial\", trial: \$t, outcome: \"pass\", exit_code: 0, signal: null,
	     elapsed_ms: 10, stdout: \"\", stderr: \"\", concurrent: 0,
	     env: {host: \"ci\", RETRIAL_SEED: \"\\(1000 + \$t)\"}} + ($2)"
}

@test "rt-diff-facts: --help and --version" {
	run rt-diff-facts --help
	status_is 0
	has "usage: rt-diff-facts [--jsonl] [--lenient] [-j N] [--top N] [file ...]"
	has "--jobs N"
	has "--top N"
	run rt-diff-facts -V
	status_is 0
	has "(retrial)"
}

@test "rt-diff-facts: bad options and numbers exit 2" {
	run rt-diff-facts --bogus
	status_is 2
	run rt-diff-facts --top x "$FX/kth.jsonl"
	status_is 2
	has "--top x"
	run rt-diff-facts -n -1 "$FX/kth.jsonl"
	status_is 2
	run rt-diff-facts -j 0 "$FX/kth.jsonl"
	status_is 2
	has "--jobs 0"
	run rt-diff-facts --jobs 65 "$FX/kth.jsonl"
	status_is 2
	RT_DIFF_FACTS_CHUNK=0 run rt-diff-facts "$FX/kth.jsonl"
	status_is 2
	has "RT_DIFF_FACTS_CHUNK 0"
	run rt-diff-facts "$T/missing.jsonl"
	status_is 2
	has "missing.jsonl"
}

@test "rt-diff-facts: golden output for every third trial failing" {
	run rt-diff-facts "$FX/kth.jsonl"
	status_is 0
	[ "$output" = "$(cat "$FX/kth.diff")" ]
}

@test "rt-diff-facts: reads standard input, - and several files" {
	rt-diff-facts <"$FX/kth.jsonl" >"$T/a"
	cmp "$T/a" "$FX/kth.diff"
	rt-diff-facts - <"$FX/kth.jsonl" >"$T/b"
	cmp "$T/b" "$FX/kth.diff"
	head -n 7 "$FX/kth.jsonl" >"$T/p1"
	tail -n +8 "$FX/kth.jsonl" >"$T/p2"
	rt-diff-facts "$T/p1" "$T/p2" >"$T/c"
	cmp "$T/c" "$FX/kth.diff"
}

@test "rt-diff-facts: the diff record's counts, codes and trials" {
	rt-diff-facts "$FX/kth.jsonl" >"$T/o"
	jqe '.type == "diff" and .trials == 12 and .failures == 4 and .errors == 1' "$T/o"
	jqe '.exit_codes_on_failure == [1] and .exit_codes_on_success == [0]' "$T/o"
	jqe '.failure_trials == [3, 6, 9, 12] and .token == "EXHAUSTED"' "$T/o"
	jqe 'has("skipped") | not' "$T/o"
	# every third: periodic, and the fact carries its own Fisher p
	jqe '.facts[] | select(.kind == "position") | .direction == "periodic" and .value == "every 3rd trial" and .in_successes == 0' "$T/o"
	jqe '.facts[] | select(.value == "EXHAUSTED") | .in_failures == 4 and .in_successes == 0 and (.p - 0.00202020202 | fabs) < 1e-9' "$T/o"
	# "ok" vanishes when it fails: a clue too
	jqe '.facts[] | select(.stream == "stdout" and .value == "ok") | .direction == "success_only" and .in_successes == 8' "$T/o"
	# ranked by p ascending
	jqe '[.facts[].p] | . == sort' "$T/o"
}

@test "rt-diff-facts: --jsonl prints the same facts one per line" {
	rt-diff-facts --jsonl "$FX/kth.jsonl" >"$T/l"
	[ "$(wc -l <"$T/l")" -eq "$(jq '.facts | length' "$FX/kth.diff")" ]
	jq -c 'del(.type)' "$T/l" >"$T/l2"
	jq -c '.facts[]' "$FX/kth.diff" >"$T/l3"
	cmp "$T/l2" "$T/l3"
	jqe -s 'all(.[]; .type == "fact")' "$T/l"
}

@test "rt-diff-facts: --top keeps the strongest, 0 keeps all" {
	run rt-diff-facts -n 2 "$FX/kth.jsonl"
	echo "$output" | jq -e '.facts | length == 2 and .[0].direction == "periodic" and .[1].value == "EXHAUSTED"'
	gen 10 'if $t <= 5 then {outcome: "fail", stderr: ([range(30)] | map("w" + ([97 + (. % 26), 97 + (. / 26 | floor)] | implode)) | join(" "))} else {} end' >"$T/in"
	run rt-diff-facts "$T/in"
	echo "$output" | jq -e '.facts | length == 20'
	run rt-diff-facts --top 0 "$T/in"
	echo "$output" | jq -e '[.facts[] | select(.kind == "token")] | length == 30'
}

@test "rt-diff-facts: run-varying parts are masked before comparing" {
	gen 20 'if $t % 2 == 0 then {outcome: "fail", exit_code: 1,
	    stderr: "job \($t): STALE at 0x7ffd\($t)beef (id 123e4567-e89b-12d3-a456-4266141740\($t + 10)) \(2026)-11-29T10:\($t + 10):00Z in /tmp/pytest-\($t)/db.sqlite took \($t).5ms\n"}
	    else {stderr: "job \($t): fresh\n"} end' >"$T/in"
	rt-diff-facts --top 0 "$T/in" >"$T/o"
	jqe '.token == "STALE"' "$T/o"
	# every varying part masked: the same six words in all ten failures,
	# nothing of the address, uuid, time or path, no raw number anywhere
	jqe '[.facts[] | select(.direction == "failure_only" and .kind == "token") | .value] | sort == ["<num>ms", "STALE", "at", "id", "in", "took"]' "$T/o"
	jqe 'all(.facts[] | select(.direction == "failure_only"); .in_failures == 10)' "$T/o"
	jqe '[.facts[] | select(.kind == "token" or .kind == "phrase") | .value | select(test("[0-9]|beef|sqlite|pytest"))] | length == 0' "$T/o"
	# "job <num>" is in every run: no fact
	jqe '[.facts[] | select(.value | test("job"))] | length == 0' "$T/o"
	jqe '[.facts[] | select(.value == "fresh")][0].direction == "success_only"' "$T/o"
}

@test "rt-diff-facts: phrases separate when their words do not" {
	gen 20 'if $t % 2 == 0 then {outcome: "fail", stderr: "job \($t): lock held by worker \($t % 3)\n"}
	    else {stderr: "job \($t): worker \($t % 3) held lock\n"} end' | rt-diff-facts --top 0 >"$T/o"
	jqe '.facts[] | select(.value == "lock held") | .kind == "phrase" and .stream == "stderr" and .direction == "failure_only" and .in_failures == 10' "$T/o"
	jqe '.facts[] | select(.value == "held lock") | .direction == "success_only" and .in_successes == 10' "$T/o"
	jqe '.facts[] | select(.value == "<num> held") | .direction == "success_only"' "$T/o"
	# no phrase with the same runs as one of its words ("held by" = "by")
	jqe '[.facts[] | select(.value == "held by" or .value == "by worker")] | length == 0' "$T/o"
	jqe '.facts[] | select(.value == "by") | .in_failures == 10' "$T/o"
	jqe '[.facts[] | select(.value == "lock" or .value == "held" or .value == "job <num>")] == []' "$T/o"
	jqe '.token == "by"' "$T/o"
}

@test "rt-diff-facts: the strongest token: error-like, then longer, then first" {
	gen 6 'if $t <= 3 then {outcome: "fail", stderr: "cache: STALE value read before warm-up finished"}
	    else {stderr: "cache: value read"} end' | rt-diff-facts | jq -e '.token == "STALE"'
	gen 6 'if $t <= 3 then {outcome: "fail", stderr: "apple banana"} else {} end' |
	    rt-diff-facts | jq -e '.token == "banana"'
	gen 6 'if $t <= 3 then {outcome: "fail", stderr: "plum pear"} else {} end' |
	    rt-diff-facts | jq -e '.token == "pear"'
	gen 6 'if $t <= 3 then {outcome: "fail", stderr: "connection_refused_by_peer xERR"} else {} end' |
	    rt-diff-facts | jq -e '.token == "connection_refused_by_peer"'
	gen 6 'if $t <= 3 then {outcome: "fail", stderr: "connection_refused_by_peer BUSY"} else {} end' |
	    rt-diff-facts | jq -e '.token == "BUSY"'
}

@test "rt-diff-facts: a word also in one success is never the token" {
	gen 30 'if $t % 3 == 0 then {outcome: "fail", exit_code: 1, stderr: "EXHAUSTED DRAINED"}
	    elif $t == 1 then {stderr: "EXHAUSTED"} else {} end' >"$T/in"
	rt-diff-facts "$T/in" >"$T/o"
	jqe '.token == "DRAINED"' "$T/o"
	jqe '.facts[] | select(.value == "EXHAUSTED") | .direction == "failure_more" and .in_failures == 10 and .in_successes == 1' "$T/o"
	gen 30 'if $t % 3 == 0 then {outcome: "fail", exit_code: 1, stderr: "EXHAUSTED"}
	    elif $t == 1 then {stderr: "EXHAUSTED"} else {} end' | rt-diff-facts >"$T/o2"
	jqe '.token == null' "$T/o2"
}

@test "rt-diff-facts: a word in only some failures is not the token" {
	gen 10 'if $t <= 4 then {outcome: "fail", stderr: (if $t == 1 then "PANIC" else "" end)} else {} end' |
	    rt-diff-facts | jq -e '.token == null'
}

@test "rt-diff-facts: no failures, all failures: token null, no facts" {
	gen 10 '{}' | rt-diff-facts >"$T/o"
	jqe '.failures == 0 and .trials == 10 and .token == null and .facts == [] and .failure_trials == []' "$T/o"
	gen 10 '{outcome: "fail", exit_code: 1, stderr: "BOOM"}' | rt-diff-facts >"$T/o"
	jqe '.failures == 10 and .token == null and .facts == [] and .exit_codes_on_success == []' "$T/o"
	printf '' | rt-diff-facts | jq -e '.trials == 0 and .token == null and .facts == []'
}

@test "rt-diff-facts: exit codes sorted and unique, signals, timeouts" {
	gen 20 'if $t % 2 == 0 then {outcome: (if $t % 4 == 0 then "timeout" else "fail" end),
	    exit_code: (if $t % 4 == 0 then null elif $t == 2 then 3 else 1 end),
	    signal: (if $t % 4 == 0 then 9 else null end)} else {} end' >"$T/in"
	rt-diff-facts --top 0 "$T/in" >"$T/o"
	jqe '.exit_codes_on_failure == [1, 3] and .exit_codes_on_success == [0]' "$T/o"
	jqe '.facts[] | select(.kind == "signal") | .value == "9" and .in_failures == 5' "$T/o"
	jqe '.facts[] | select(.kind == "timeout") | .in_failures == 5 and .direction == "failure_only"' "$T/o"
	jqe '[.facts[] | select(.kind == "exit_code" and .value == "0")] | length == 0' "$T/o"
}

@test "rt-diff-facts: timing, faster and slower when failing" {
	gen 40 'if $t % 4 == 0 then {outcome: "fail", elapsed_ms: (100 + $t)} else {elapsed_ms: (10 + $t / 10)} end' |
	    rt-diff-facts | jq -e '.facts[] | select(.kind == "timing") | .direction == "slower_when_failing" and .p < 0.001 and (.detail | test("median"))'
	gen 40 'if $t % 4 == 0 then {outcome: "fail", elapsed_ms: 1.5} else {elapsed_ms: (10 + $t / 10)} end' |
	    rt-diff-facts | jq -e '.facts[] | select(.kind == "timing") | .direction == "faster_when_failing" and .in_failures == 10 and .in_successes == 30'
	# the same times on both sides: no timing fact
	gen 40 'if $t % 4 == 0 then {outcome: "fail"} else {} end' |
	    rt-diff-facts | jq -e '[.facts[] | select(.kind == "timing")] == []'
}

@test "rt-diff-facts: position: periodic, clustered, overlap" {
	gen 40 'if $t % 4 == 0 then {outcome: "fail"} else {} end' | rt-diff-facts >"$T/o"
	jqe '.facts[] | select(.direction == "periodic") | .value == "every 4th trial" and .in_failures == 10' "$T/o"
	gen 40 'if $t > 30 then {outcome: "fail"} else {} end' | rt-diff-facts >"$T/o"
	jqe '.facts[] | select(.kind == "position") | .direction == "clustered_end" and .value == "end"' "$T/o"
	gen 40 'if $t <= 10 then {outcome: "fail"} else {} end' | rt-diff-facts >"$T/o"
	jqe '.facts[] | select(.kind == "position") | .direction == "clustered_start"' "$T/o"
	gen 40 'if $t % 5 == 1 then {outcome: "fail", concurrent: 2} elif $t == 2 then {concurrent: 1} else {} end' |
	    rt-diff-facts >"$T/o"
	jqe '.facts[] | select(.direction == "overlap") | .in_failures == 8 and .in_successes == 1' "$T/o"
	# two failures are not a period; failures at odd trials have none
	gen 40 'if $t == 10 or $t == 20 then {outcome: "fail"} else {} end' | rt-diff-facts |
	    jq -e '[.facts[] | select(.direction == "periodic")] == []'
	gen 40 'if $t % 3 == 1 then {outcome: "fail"} else {} end' | rt-diff-facts |
	    jq -e '[.facts[] | select(.direction == "periodic")] == []'
}

@test "rt-diff-facts: environment values that differ, seeds left out" {
	gen 30 'if $t % 3 == 0 then {outcome: "fail", env: {host: "ci", PYTHONHASHSEED: "1", RETRIAL_SEED: "\($t)"}}
	    else {env: {host: "ci", PYTHONHASHSEED: "0", RETRIAL_SEED: "\($t)"}} end' | rt-diff-facts >"$T/o"
	jqe '.facts[] | select(.kind == "env" and .value == "PYTHONHASHSEED=1") | .direction == "failure_only" and .in_failures == 10' "$T/o"
	jqe '.facts[] | select(.kind == "env" and .value == "PYTHONHASHSEED=0") | .direction == "success_only"' "$T/o"
	jqe '[.facts[] | select(.value | test("RETRIAL_SEED|host"))] == []' "$T/o"
}

@test "rt-diff-facts: errors and ignored trials are not compared; other records ignored" {
	{
		echo '{"type":"measure","trials":3,"failures":1}'
		gen 6 'if $t == 1 then {outcome: "fail", stderr: "BOOM"}
		    elif $t == 2 then {outcome: "error", stderr: "BOOM"}
		    elif $t == 3 then {outcome: "ignored", stderr: "BOOM"} else {} end'
	} | rt-diff-facts >"$T/o"
	jqe '.trials == 4 and .failures == 1 and .errors == 2 and .token == "BOOM"' "$T/o"
	jqe '.facts[] | select(.value == "BOOM") | .in_failures == 1 and .successes == 3' "$T/o"
}

@test "rt-diff-facts: missing fields: stderr absent is empty, trial is the position" {
	printf '%s\n' '{"type":"trial","outcome":"pass"}' '{"type":"trial","outcome":"fail","stderr":"GONE"}' \
	    '{"type":"trial","outcome":"pass","stderr":null}' | rt-diff-facts >"$T/o"
	jqe '.trials == 3 and .failure_trials == [2] and .token == "GONE" and .exit_codes_on_failure == []' "$T/o"
}

@test "rt-diff-facts: malformed input names file and line, exit 2" {
	gen 2 '{}' >"$T/in"
	echo 'not json' >>"$T/in"
	run rt-diff-facts "$T/in"
	status_is 2
	has "in:3: invalid JSON"
	printf '%s\n' '{"type":"trial","outcome":"pass"}' '{"type":"trial","trial":2}' >"$T/in"
	run rt-diff-facts "$T/in"
	status_is 2
	has "in:2: trial record: field \"outcome\" is missing"
	printf '{"type":"trial","outcome":"maybe"}\n' >"$T/in"
	run rt-diff-facts "$T/in"
	status_is 2
	has "in:1: trial record: field \"outcome\" must be one of pass, fail, timeout, error, ignored, not maybe"
	printf '{"type":"trial","outcome":"fail","stderr":42}\n' >"$T/in"
	run rt-diff-facts "$T/in"
	status_is 2
	has "in:1: trial record: field \"stderr\" must be a string"
	printf '{"type":"trial","outcome":"fail","trial":-3}\n' >"$T/in"
	run rt-diff-facts "$T/in"
	status_is 2
	has "in:1: trial record: field \"trial\" must be a whole number >= 0, not -3"
}

@test "rt-diff-facts: invalid UTF-8 and bad escapes are malformed lines" {
	printf '{"type":"trial","outcome":"pass"}\n{"type":"trial","outcome":"fail","stderr":"x \\ud800 y"}\n' >"$T/in"
	run rt-diff-facts "$T/in"
	status_is 2
	has "in:2: invalid JSON"
	printf '{"type":"trial","outcome":"fail","stderr":"x \377 y"}\n' >"$T/in"
	run rt-diff-facts "$T/in"
	status_is 2
	has "in:1: invalid JSON"
}

@test "rt-diff-facts: --lenient skips and counts malformed lines and records" {
	{
		gen 4 'if $t == 1 then {outcome: "fail", stderr: "BOOM"} else {} end'
		echo 'not json'
		echo '{"type":"trial","trial":9}'
		printf '{"type":"trial","outcome":"fail","stderr":"x \\ud800"}\n'
	} >"$T/in"
	rt-diff-facts --lenient "$T/in" >"$T/o"
	jqe '.skipped == 3 and .trials == 4 and .failures == 1 and .token == "BOOM"' "$T/o"
}

# The input is cut into stretches (RT_DIFF_FACTS_CHUNK bytes), tallied in
# parallel (-j) and merged in order: the answer must not depend on either.
@test "rt-diff-facts: stretches and threads give the same answer, byte for byte" {
	# no "trial" field (the position counts across stretches), a seed that
	# is new in every run (dropped across stretches), CRLF, blank lines,
	# a host that differs, a timing shift and every 4th trial failing
	jq -nc 'range(1; 301) as $t | {type: "trial",
	    outcome: (if $t % 4 == 0 then "fail" elif $t % 50 == 7 then "error" else "pass" end),
	    exit_code: (if $t % 4 == 0 then 3 else 0 end), elapsed_ms: ($t % 4 * 10 + 5),
	    stderr: (if $t % 4 == 0 then "job \($t): pool EXHAUSTED at 0x7ffd\($t)" else "ok \($t)" end),
	    stdout: "ran \($t)", env: {RETRIAL_SEED: "\($t)", host: (if $t % 8 == 0 then "b" else "a" end)}}' |
	    awk 'NR % 37 == 0 { print "" } NR % 5 == 0 { printf "%s\r\n", $0; next } { print }' > "$T/in"
	rt-diff-facts -j 1 --top 0 "$T/in" > "$T/one"
	jqe '.trials == 294 and .failures == 75 and .errors == 6 and .token == "EXHAUSTED"' "$T/one"
	jqe '.failure_trials[:3] == [4, 8, 12] and .failure_trials[-1] == 300' "$T/one"
	jqe '[.facts[] | select(.kind == "position" and .direction == "periodic")] | length == 1' "$T/one"
	jqe '[.facts[] | select(.kind == "env") | .value] | any(startswith("RETRIAL_SEED")) | not' "$T/one"
	for j in 1 2 3 8; do
		for chunk in 1 100 1000 100000; do
			RT_DIFF_FACTS_CHUNK=$chunk rt-diff-facts -j $j --top 0 "$T/in" > "$T/o"
			cmp "$T/one" "$T/o"
		done
	done
	RT_DIFF_FACTS_CHUNK=500 rt-diff-facts -j 3 --top 0 < "$T/in" > "$T/o"
	cmp "$T/one" "$T/o"
}

@test "rt-diff-facts: a malformed line in a later stretch names its own line" {
	gen 400 '{}' > "$T/in"
	printf '{"type":"trial","outcome":"maybe"}\n' >> "$T/in"
	gen 10 '{}' >> "$T/in"
	printf 'not json\n' >> "$T/in"
	for j in 1 4; do
		RT_DIFF_FACTS_CHUNK=1000 run rt-diff-facts -j $j "$T/in"
		status_is 2
		has "$T/in:401: trial record: field \"outcome\" must be one of pass, fail, timeout, error, ignored, not maybe"
		RT_DIFF_FACTS_CHUNK=1000 run rt-diff-facts -j $j --lenient "$T/in"
		status_is 0
		jqe '.skipped == 2 and .trials == 410' <<<"$output"
	done
}

@test "rt-diff-facts: a 10 MB stderr and 100-byte words" {
	python3 - "$T/in" <<'EOF'
import json, sys
def word(i):  # a million distinct letter words
    w = ""
    while True:
        w += "abcdefghijklmnopqrstuvwxyz"[i % 26]
        i //= 26
        if i == 0:
            return w
big = " ".join(word(i) for i in range(2000000))[:10 * 1024 * 1024]
long = "\u00e9" * 60  # 120 bytes: cut to 64 at a character boundary
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"type": "trial", "trial": 1, "outcome": "fail", "stderr": big + " OVERFLOWED " + long}) + "\n")
    f.write(json.dumps({"type": "trial", "trial": 2, "outcome": "fail", "stderr": "OVERFLOWED " + long}) + "\n")
    f.write(json.dumps({"type": "trial", "trial": 3, "outcome": "pass", "stderr": "fine"}) + "\n")
EOF
	rt-diff-facts --top 0 "$T/in" >"$T/o"
	jqe '.token == "OVERFLOWED" and .failures == 2' "$T/o"
	jqe '.facts[] | select(.value | startswith("\u00e9")) | (.value | length) == 32 and .in_failures == 2' "$T/o"
}

@test "rt-diff-facts: the command and one failing and one passing excerpt, by lowest trial" {
	printf '%s\n' \
	  '{"type":"trial","trial":5,"outcome":"fail","command":"./t.sh","stderr":"late failure\n"}' \
	  '{"type":"trial","trial":2,"outcome":"fail","command":"./t.sh","stderr":"early failure\n"}' \
	  '{"type":"trial","trial":4,"outcome":"pass","command":"./t.sh","stderr":"fine\n"}' > "$T/ex.jsonl"
	run rt-diff-facts "$T/ex.jsonl"
	status_is 0
	echo "$output" | jq -e '.command == "./t.sh" and .excerpts.failing == {"trial":2,"stderr":"early failure\n","stdout":"","stream":"stderr","excerpt":"early failure\n"} and .excerpts.passing.trial == 4'
	# a long stderr keeps its last 2000 bytes, starting on a character
	python3 -c 'import json; print(json.dumps({"type":"trial","trial":1,"outcome":"fail","stderr":"é"*3000+"END"}))' > "$T/long.jsonl"
	run rt-diff-facts "$T/long.jsonl"
	echo "$output" | jq -e '(.excerpts.failing.stderr | endswith("END") and (utf8bytelength <= 2000) and (test("\ufffd") | not)) and .excerpts.passing == null'
}

# --- real runners: evidence from both streams, seeds ---

EVX="$BATS_TEST_DIRNAME/fixtures/evidence"

# pytest with pytest-random-order: the order (and so the outcome) follows
# the seed, which the fixture's conftest takes from RETRIAL_SEED.
collect_pytest() {
	cp -R "$EVX/pytest-order" "$T/py"
	(cd "$T/py" && rt-collect -n 12 --seed 1 -- /usr/bin/python3 -m pytest \
	    -p random_order --random-order .) >"$T/py.jsonl"
}

@test "rt-diff-facts: pytest reports on stdout: token and excerpt come from stdout" {
	collect_pytest
	jqe -s 'map(select(.outcome == "fail")) | length >= 2' "$T/py.jsonl"
	jqe -s 'map(select(.outcome == "pass")) | length >= 2' "$T/py.jsonl"
	jqe -s 'all(.stderr == "")' "$T/py.jsonl"
	rt-diff-facts "$T/py.jsonl" >"$T/o"
	jqe '.token == "AssertionError: assert [\u0027x\u0027] == []" and .token_stream == "stdout"' "$T/o"
	jqe '.excerpts.failing.stream == "stdout" and .excerpts.failing.stderr == ""' "$T/o"
	jqe '.excerpts.failing.excerpt | test("(?m)^E +AssertionError: assert ") and test("test_registry.py:[0-9]+: AssertionError")' "$T/o"
	jqe '.excerpts.failing.stdout | endswith("==\n")' "$T/o"
	jqe '.excerpts.passing.stream == "stdout" and (.excerpts.passing.excerpt | test("4 passed"))' "$T/o"
	# stdout words are facts too, marked with their stream
	jqe '[.facts[] | select(.kind == "token" and .value == "test_empty_at_start")][0].stream == "stdout"' "$T/o"
}

@test "rt-diff-facts: pytest-random-order seeds: which failed, which passed, and how to rerun one" {
	collect_pytest
	rt-diff-facts "$T/py.jsonl" >"$T/o"
	jq -s -c '[.[] | select(.outcome == "fail") | .stdout | capture("Using --random-order-seed=(?<s>[0-9]+)").s]' "$T/py.jsonl" >"$T/fs"
	jq -s -c '[.[] | select(.outcome == "pass") | .stdout | capture("Using --random-order-seed=(?<s>[0-9]+)").s]' "$T/py.jsonl" >"$T/ps"
	jq -c '.facts[] | select(.kind == "seed")' "$T/o" >"$T/seed"
	[ "$(wc -l <"$T/seed")" -eq 1 ]
	jqe --slurpfile f "$T/fs" --slurpfile p "$T/ps" \
	    '.runner == "pytest-random-order" and .stream == "stdout" and .failing == $f[0] and .passing == $p[0] and .value == $f[0][0] and .both == []' "$T/seed"
	jqe '.in_failures == .failures and .in_successes == .successes' "$T/seed"
	jqe '.reproduce == "rt-matrix -n 20 --pin-seed pytest-random-order=\(.value) --cmd \u0027/usr/bin/python3 -m pytest -p random_order --random-order .\u0027"' "$T/seed"
	# --jsonl carries the same seed fact, typed
	rt-diff-facts --jsonl "$T/py.jsonl" | jq -c 'select(.kind == "seed") | del(.type)' >"$T/seed2"
	cmp "$T/seed" "$T/seed2"
}

@test "rt-diff-facts: the token is never the runner's boilerplate (pytest's E); a seed the command passes is taken out of the reproduce line, which rt-matrix runs" {
	cp -R "$FX/pyreg" "$T/reg"
	cd "$T/reg"
	rt-collect -n 12 --cmd '/usr/bin/python3 -m pytest -p random_order --random-order-seed=$RETRIAL_SEED tests' >"$T/t.jsonl"
	rt-diff-facts "$T/t.jsonl" >"$T/o"
	jqe '.failures > 0 and .failures < .trials' "$T/o"
	jqe '.token != null and ([.token] - ["E", "F", "FAILED", "test", "tests", "in"] | length) == 1' "$T/o"
	jq -c '.facts[] | select(.kind == "seed")' "$T/o" >"$T/seed"
	jqe '.reproduce == "rt-matrix -n 20 --pin-seed pytest-random-order=\(.value) --cmd \u0027/usr/bin/python3 -m pytest -p random_order tests\u0027"
	    and (.detail | test("the command.s own \"--random-order-seed=\\$RETRIAL_SEED\" taken out"))' "$T/seed"
	# the line as printed: rt-matrix takes it, and the failing seed fails
	eval "$(jq -r '.reproduce | sub("-n 20"; "-n 2")' "$T/seed")" >"$T/m.jsonl"
	jqe '.name == "seed" and .perturbed.failures == 2' "$T/m.jsonl"
}

@test "rt-diff-facts: unittest on stderr: the token keeps the quoted literal whole" {
	cp -R "$EVX/unittest-slug" "$T/ut"
	(cd "$T/ut" && rt-collect -n 12 --seed 1 -- /usr/bin/python3 -m unittest test_slug) >"$T/ut.jsonl"
	jqe -s 'map(select(.outcome == "fail")) | length >= 2' "$T/ut.jsonl"
	rt-diff-facts --top 0 "$T/ut.jsonl" >"$T/o"
	jqe '.token == "AssertionError: \u0027ab-cd1\u0027 != \u0027\u0027" and .token_stream == "stderr"' "$T/o"
	jqe '.excerpts.failing.stream == "stderr" and (.excerpts.failing.excerpt | test("(?m)^FAIL: test_reset") and test("(?m)^AssertionError: \u0027ab-cd1\u0027 != \u0027\u0027$"))' "$T/o"
	# the literal is one word among the facts, not ab + cd<num>
	jqe 'any(.facts[]; .kind == "token" and .value == "\u0027ab-cd1\u0027")' "$T/o"
}

@test "rt-diff-facts: failure lines outrank generic words; quoted literals and masking" {
	# a Go failure: the t.Errorf line is the message, --- FAIL names the test
	gen 4 'if $t % 2 == 0 then {outcome: "fail", stdout: "=== RUN   TestPool\n--- FAIL: TestPool (0.00s)\n    pool_test.go:\($t + 10): got \($t) conns, want 0\nFAIL\nexit status 1\nFAIL\texample.com/pool\t0.01s\n", stdout_note: 1} else {stdout: "ok  \texample.com/pool\t0.01s\n"} end' >"$T/go.jsonl"
	run rt-diff-facts "$T/go.jsonl"
	status_is 0
	echo "$output" | jqe '.token == "got <num> conns, want <num>" and .token_stream == "stdout"'
	echo "$output" | jqe '.excerpts.failing.excerpt | startswith("=== RUN")'
	# without failure lines the old rule: the error-like word, stderr first
	gen 4 'if $t % 2 == 0 then {outcome: "fail", stderr: "FAILED here\n", stdout: "FAILED there\n"} else {} end' >"$T/plain.jsonl"
	run rt-diff-facts "$T/plain.jsonl"
	echo "$output" | jqe '.token == "FAILED" and .token_stream == "stderr"'
	# a quoted literal keeps its digits; times and /tmp paths inside it are masked
	gen 4 'if $t % 2 == 0 then {outcome: "fail", stderr: "KeyError: \u0027user-42\u0027 at \u0027\(2026 - $t)-01-02\u0027 in \"/tmp/x\($t)/db\"\n"} else {} end' >"$T/q.jsonl"
	run rt-diff-facts --top 0 "$T/q.jsonl"
	echo "$output" | jqe '.token == "KeyError: \u0027user-42\u0027 at \u0027<time>\u0027 in \"<tmp>\""'
	echo "$output" | jqe 'any(.facts[]; .value == "\u0027user-42\u0027") and any(.facts[]; .value == "\u0027<time>\u0027")'
	# an apostrophe inside a word opens no literal
	gen 2 'if $t == 2 then {outcome: "fail", stderr: "can\u0027t reach \u0027db\u0027\n"} else {} end' >"$T/a.jsonl"
	run rt-diff-facts --top 0 "$T/a.jsonl"
	echo "$output" | jqe 'any(.facts[]; .value == "\u0027db\u0027") and any(.facts[]; .value == "can")'
}

@test "rt-diff-facts: seeds of other runners and PYTHONHASHSEED, kept exact" {
	gen 4 'if $t % 2 == 0 then {outcome: "fail",
	    stdout: "-test.shuffle 170000000000000000\($t)\n--- FAIL: TestX (0.00s)\n",
	    stderr: "You can add @seed(30293430767166753141325785354864364564\($t)) to this test or run pytest with --hypothesis-seed=30293430767166753141325785354864364564\($t) to reproduce this failure.\n",
	    env: {host: "ci", PYTHONHASHSEED: "\($t)07"}}
	  else {stdout: "Using --randomly-seed=00\($t)\n-test.shuffle 170000000000000000\($t)\n", env: {host: "ci", PYTHONHASHSEED: "\($t)07"}} end' >"$T/s.jsonl"
	rt-diff-facts "$T/s.jsonl" >"$T/o"
	jqe '[.facts[] | select(.kind == "seed") | .runner] == ["pytest-randomly", "hypothesis", "PYTHONHASHSEED", "go-shuffle"]' "$T/o"
	jqe '.facts[] | select(.runner == "go-shuffle") | .failing == ["1700000000000000002", "1700000000000000004"] and .passing == ["1700000000000000001", "1700000000000000003"] and .stream == "stdout"' "$T/o"
	jqe '.facts[] | select(.runner == "hypothesis") | .failing == ["302934307671667531413257853548643645642", "302934307671667531413257853548643645644"] and .passing == [] and .stream == "stderr" and .in_failures == 2' "$T/o"
	jqe '.facts[] | select(.runner == "pytest-randomly") | .failing == [] and .passing == ["001", "003"] and .value == null and .reproduce == null' "$T/o"
	jqe '.facts[] | select(.runner == "PYTHONHASHSEED") | .stream == null and .failing == ["207", "407"]' "$T/o"
	# the same seed failing and passing: said so
	gen 4 '{stdout: "Using --random-order-seed=5\n"} + (if $t == 2 then {outcome: "fail"} else {} end)' >"$T/b.jsonl"
	rt-diff-facts "$T/b.jsonl" | jqe '.facts[] | select(.kind == "seed") | .both == ["5"] and (.detail | test("does not decide"))'
}

@test "rt-diff-facts: rt-collect --junit's per-case records do not count as trials (each trial once)" {
	cat >"$T/t.sh" <<'SH'
#!/bin/sh
f=pass; [ $((RETRIAL_SEED % 3)) -eq 0 ] && f=fail
{
	echo '<testsuite name="s" tests="2">'
	echo '<testcase classname="s" name="a"/>'
	if [ $f = fail ]; then echo '<testcase classname="s" name="b"><failure message="boom"/></testcase>'
	else echo '<testcase classname="s" name="b"/>'; fi
	echo '</testsuite>'
} >"$RETRIAL_JUNIT"
[ $f = pass ]
SH
	chmod +x "$T/t.sh"
	rt-collect -n 12 --seed 7 --junit --cmd "$T/t.sh" >"$T/c.jsonl" 2>/dev/null || true
	[ "$(jq -s 'map(select(.case)) | length' "$T/c.jsonl")" -eq 24 ]
	rt-diff-facts "$T/c.jsonl" | jqe 'select(.type == "diff") | .trials == 12'
}
