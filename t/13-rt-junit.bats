#!/usr/bin/env bats
# rt-junit (JUnit XML to trial records), rt-measure --by case, rt-collect
# --junit: real pytest reports, hand-written samples of the other dialects,
# each sample's counts checked against Python's xml.etree.
load helper

J="$RT_TOP/t/fixtures/junit"
PY=/usr/bin/python3

# etree_counts FILE...: "PASS FAIL SKIP" records by an independent reader:
# one failed record per flaky*/rerun* element, then the testcase's own
# result (error or failure > skipped > success; Bazel status="notrun" skips).
etree_counts() {
	"$PY" - "$@" <<'PYEOF'
import sys, xml.etree.ElementTree as ET
n = {"pass": 0, "fail": 0, "skip": 0}
for f in sys.argv[1:]:
    for tc in ET.parse(f).getroot().iter():
        if tc.tag.split(":")[-1] != "testcase":
            continue
        kids = [k.tag.split(":")[-1] for k in tc]
        n["fail"] += sum(k in ("flakyFailure", "flakyError", "rerunFailure", "rerunError") for k in kids)
        if "error" in kids or "failure" in kids:
            n["fail"] += 1
        elif "skipped" in kids or tc.get("status") == "notrun":
            n["skip"] += 1
        else:
            n["pass"] += 1
print(n["pass"], n["fail"], n["skip"])
PYEOF
}

# rt_counts: the same three numbers from rt-junit's records on stdin
rt_counts() {
	jq -rs '[map(select(.outcome == "pass")), map(select(.outcome == "fail")),
	    map(select(.outcome == "skip"))] | map(length) | map(tostring) | join(" ")'
}

jqe() { jq -e "$@" >/dev/null; }

# pytest_report DIR OUT [ARGS...]: run the real pytest in a copy of DIR
pytest_report() {
	local src=$1 out=$2
	shift 2
	rm -rf "$T/proj" && cp -R "$src" "$T/proj"
	(cd "$T/proj" && "$PY" -m pytest -q --junitxml="$out" "$@" >/dev/null 2>&1) || true
	[ -s "$out" ]
}

@test "rt-junit: usage, version, unknown option" {
	run rt-junit --help
	status_is 0
	[ "${lines[0]}" = "usage: rt-junit [--run ID [--same-run]] [--revision SHA] [--max-output BYTES]" ]
	run rt-junit --bogus
	status_is 2
	[ "${lines[0]}" = "rt-junit: --bogus: unknown option" ]
	run rt-junit --max-output 0 "$J/gradle.xml"
	status_is 2
	has "--max-output 0"
}

@test "rt-junit: every hand-written sample's counts match xml.etree" {
	for f in "$J"/*.xml; do
		want=$(etree_counts "$f")
		got=$(rt-junit "$f" | rt_counts)
		[ "$got" = "$want" ] || { echo "$f: rt-junit $got, etree $want"; return 1; }
	done
	# and the samples are not trivial: every outcome occurs
	[ "$(rt-junit "$J"/*.xml | rt_counts)" = "$(etree_counts "$J"/*.xml)" ]
	rt-junit "$J"/*.xml | jq -s -e 'map(.outcome) | unique == ["fail", "pass", "skip"]'
}

@test "rt-junit: real pytest reports, xunit1 and xunit2, match xml.etree" {
	for fam in xunit1 xunit2; do
		pytest_report "$J/suite" "$T/$fam.xml" -o junit_family=$fam
		want=$(etree_counts "$T/$fam.xml")
		got=$(rt-junit "$T/$fam.xml" | rt_counts)
		[ "$got" = "$want" ] || { echo "$fam: rt-junit $got, etree $want"; return 1; }
		rt-junit "$T/$fam.xml" > "$T/$fam.jsonl"
		# 8 tests, one skipped; pytest's classname is kept as it is
		jqe -s 'length == 8 and (map(select(.outcome == "skip")) | length) == 1' "$T/$fam.jsonl"
		jqe -s 'map(.case) | index("tests/test_net.py::test_parse_header") != null' "$T/$fam.jsonl"
		jqe -s 'map(.position) == [range(8)] and map(.trial) == [range(1; 9)]' "$T/$fam.jsonl"
		jqe -s 'all(.source == "junit" and .type == "trial" and .attempt == 1)' "$T/$fam.jsonl"
		jqe -s 'map(select(.outcome == "skip"))[0] | .result == "skipped" and .message == "needs a real server"' "$T/$fam.jsonl"
	done
}

@test "rt-junit: a real jest-junit report (captured) matches xml.etree" {
	f="$J/jest-junit.xml"
	[ -f "$f" ] || skip "no captured jest-junit report"
	[ "$(rt-junit "$f" | rt_counts)" = "$(etree_counts "$f")" ]
	rt-junit "$f" | jqe -s 'map(select(.outcome == "fail")) | length > 0'
}

@test "rt-junit: Surefire flaky and rerun elements are attempts before the final result" {
	rt-junit "$J/surefire-rerun.xml" > "$T/s"
	jqe -s '[.[] | select(.case == "com.example.CartTest::appliesDiscount")] |
	    map([.attempt, .outcome, .result]) == [[1,"fail","failure"],[2,"fail","error"],[3,"pass","success"]]' "$T/s"
	jqe -s '[.[] | select(.case == "com.example.CartTest::appliesDiscount")] |
	    (map(.trial) | unique) == [2] and .[0].message == "expected: <5> but was: <10>" and
	    .[0].failure_type == "org.opentest4j.AssertionFailedError" and .[0].stdout == "cache warm: false"' "$T/s"
	jqe -s '[.[] | select(.case == "com.example.CartTest::checksOut")] |
	    map(.outcome) == ["fail","fail","fail"] and .[1].stderr == "WARN pool size 0" and .[2].time_ms == 450' "$T/s"
	# one run of a flaky Surefire case is enough to see both outcomes
	rt-measure --by case "$T/s" | jqe -s 'map(select(.verdict == "FLAKY")) | map(.case) == ["com.example.CartTest::appliesDiscount"]'
}

@test "rt-junit: nested suites, Latin-1, entities, missing attributes, precedence" {
	rt-junit "$J/nested.xml" > "$T/n"
	jqe -s '.[0].case == "Outer\\Inner::test_CaféCart_total" and .[0].time_ms == 500' "$T/n"
	# no classname: the suite's file; the innermost suite's timestamp
	jqe -s '.[1].case == "tests/outer.php::test_résumé" and .[1].message == "résumé differs" and
	    .[1].timestamp == "2026-11-30T02:00:05" and .[1].time_ms == 1' "$T/n"
	jqe -s '.[2].time_ms == null and .[2].timestamp == null and .[2].outcome == "pass"' "$T/n"
	# error > failure > skipped
	jqe -s '.[3] | .result == "error" and .outcome == "fail" and .message == "strong"' "$T/n"
	jqe -s 'all(.run == "'"$J"'/nested.xml@2026-11-30T02:00:00")' "$T/n"
	# Bazel: one testcase named after its target; status="notrun" skips
	rt-junit "$J/bazel-test.xml" | jqe -s 'map(.case) == ["//cart:cart_test","//cart:lint_test","//cart:gpu_test"] and map(.result) == ["error","success","skipped"]'
}

@test "rt-junit: --run, --revision, the CI revision variables, capped output" {
	rt-junit "$J/gradle.xml" | jqe -s 'all(.revision == null and .run == "'"$J"'/gradle.xml@2026-11-30T02:02:00")'
	rt-junit --run nightly-7 --revision abc123 "$J/gradle.xml" | jqe -s 'all(.revision == "abc123" and .run == "nightly-7")'
	GIT_COMMIT=fromgit rt-junit "$J/gradle.xml" | jqe -s 'all(.revision == "fromgit")'
	GITHUB_SHA=fromgh GIT_COMMIT=fromgit rt-junit "$J/gradle.xml" | jqe -s 'all(.revision == "fromgh")'
	CI_COMMIT_SHA=gl rt-junit --revision given "$J/gradle.xml" | jqe -s 'all(.revision == "given")'
	BUILD_VCS_NUMBER=tc rt-junit - < "$J/gradle.xml" | jqe -s 'all(.revision == "tc" and .report == "<stdin>")'
	{ printf '<testsuite><testcase name="t"><system-out>'; head -c 100000 /dev/zero | tr '\0' x; printf '</system-out></testcase></testsuite>'; } > "$T/big.xml"
	rt-junit --max-output 100 "$T/big.xml" | jqe '(.stdout | startswith("xxxxxxxxxx")) and (.stdout | test("99900 more bytes not kept"))'
}

@test "rt-junit: a corrupt or non-JUnit file is one line with file:line:column, exit 2; the others are written" {
	printf '<testsuite>\n  <testcase name="a">\n</testsuite>\n' > "$T/torn.xml"
	printf '<html><body/></html>\n' > "$T/page.xml"
	run sh -c 'rt-junit "$1" "$2" "$3" 2>"$4"' sh "$T/torn.xml" "$J/gradle.xml" "$T/page.xml" "$T/err"
	status_is 2
	[ "$(echo "$output" | wc -l)" -eq 3 ]
	echo "$output" | jqe -s 'map(.case) | index("com.example.PriceTest::currency()") != null'
	[ "$(wc -l < "$T/err")" -eq 2 ]
	grep -qx "rt-junit: $T/torn.xml:3:3: mismatched tag" "$T/err"
	grep -qx "rt-junit: $T/page.xml:1:1: not a JUnit report (root element <html>)" "$T/err"
	run rt-junit "$T/nonexistent.xml"
	status_is 2
	has "nonexistent.xml: No such file or directory"
	: > "$T/empty.xml"
	run rt-junit "$T/empty.xml"
	status_is 2
	has "empty.xml:1:1: no element found"
}

@test "rt-junit: a billion-laughs report is refused, memory stays bounded" {
	{
		echo '<?xml version="1.0"?><!DOCTYPE t ['
		echo '<!ENTITY a "aaaaaaaaaa">'
		for i in b c d e f g h i j k; do p=$(printf '%s' "$i" | tr 'b-k' 'a-j'); echo "<!ENTITY $i \"&$p;&$p;&$p;&$p;&$p;&$p;&$p;&$p;&$p;&$p;\">"; done
		echo ']><testsuite><testcase name="x"><failure message="&k;"/></testcase></testsuite>'
	} > "$T/lol.xml"
	run rt-junit "$T/lol.xml"
	status_is 2
	has "lol.xml:"
}

@test "rt-measure --by case: FLAKY needs both outcomes on one revision, else CHANGED" {
	rt-junit --run n1 --revision A "$J/gradle.xml" > "$T/r"
	rt-junit --run n2 --revision A "$J/gradle.xml" >> "$T/r"
	# on revision B, currency() passes: it changed, it is not flaky
	"$PY" -c 'import re, sys; sys.stdout.write(re.sub(r"<failure.*?</failure>", "", open(sys.argv[1]).read(), flags=re.S))' "$J/gradle.xml" > "$T/fixed.xml"
	rt-junit --run n3 --revision B "$T/fixed.xml" | tee "$T/b" >> "$T/r"
	jqe -s 'map(select(.case == "com.example.PriceTest::currency()"))[0].outcome == "pass"' "$T/b"
	rt-measure --by case "$T/r" > "$T/m"
	jqe -s 'length == 3 and all(.type == "measure")' "$T/m"
	jqe -s 'map(select(.case == "com.example.PriceTest::currency()"))[0] |
	    .verdict == "CHANGED" and .trials == 3 and .failures == 2 and .revisions == 2 and .flaky_revisions == 0' "$T/m"
	# the same case failing and passing on revision B is flaky
	rt-junit --run n4 --revision B "$J/gradle.xml" >> "$T/r"
	rt-measure --by case "$T/r" | jqe -s 'map(select(.case == "com.example.PriceTest::currency()"))[0] |
	    .verdict == "FLAKY" and .flaky_revisions == 1 and .ci_low > 0 and .interval == "wilson"'
}

@test "rt-measure --by case: without a revision a run is one revision, as rt-audit counts (rt_rec_rev_key)" {
	# two nightly reports without a revision: a pass one night and a failure
	# the next may be a change between them; rt-audit judged none, rt-measure 4
	"$PY" -c 'import re, sys; sys.stdout.write(re.sub(r"<failure.*?</failure>", "", open(sys.argv[1]).read(), flags=re.S))' "$J/gradle.xml" > "$T/fixed.xml"
	{ env -u GITHUB_SHA rt-junit --run n1 "$J/gradle.xml"; env -u GITHUB_SHA rt-junit --run n2 "$T/fixed.xml"; } > "$T/r"
	jqe -s 'all(.revision == null)' "$T/r"
	rt-measure --by case "$T/r" | jqe -s 'map(select(.case == "com.example.PriceTest::currency()"))[0] |
	    .verdict == "CHANGED" and .revisions == 2'
	rt-audit -H "$T/a.db" --json "$T/d.json" "$T/r" >/dev/null
	jqe '.new_flaky | length == 0' "$T/d.json"
	# one run that passed and failed is flaky to both
	env -u GITHUB_SHA rt-junit --run n1 "$T/fixed.xml" | sed 's/"trial":\([0-9]*\)/"trial":1\1/' >> "$T/r"
	rt-measure --by case "$T/r" | jqe -s 'map(select(.case == "com.example.PriceTest::currency()"))[0] |
	    .verdict == "FLAKY" and .flaky_revisions == 1'
	rt-audit -H "$T/b.db" --json "$T/d.json" "$T/r" >/dev/null
	jqe '[.new_flaky[].case] == ["com.example.PriceTest::currency()"]' "$T/d.json"
}

@test "rt-junit: each report is a run of its own; one --run over several is refused unless --same-run" {
	# a month of nights given one --run was stored as one run, and
	# rt-measure --by case then dropped the nights' records as repeats
	mkdir -p "$T/nightly/1" "$T/nightly/2"
	sed 's/2026-11-30T02:02:00/2026-11-01T02:00:00/' "$J/gradle.xml" > "$T/nightly/1/junit.xml"
	sed 's/2026-11-30T02:02:00/2026-11-02T02:00:00/' "$J/gradle.xml" > "$T/nightly/2/junit.xml"
	run rt-junit --run "2026-11-02" "$T"/nightly/*/junit.xml
	status_is 2
	[ "${lines[0]}" = "rt-junit: --run 2026-11-02 given to 2 reports: each report is a run of its own by default; --same-run says they are one run" ]
	[ -z "$(rt-junit --run x "$T"/nightly/*/junit.xml 2>/dev/null)" ]
	run rt-junit --same-run "$J/gradle.xml"
	status_is 2
	has "rt-junit: --same-run names no run: give --run ID"
	# the default: one run per report, and --by case keeps every record
	rt-junit "$T"/nightly/*/junit.xml > "$T/r"
	jqe -s '[.[].run] | unique | length == 2' "$T/r"
	rt-measure --by case "$T/r" 2> "$T/err" >/dev/null
	! grep -q "dropping repeated" "$T/err"
	# shards of one run, said so
	rt-junit --run shard --same-run "$T"/nightly/*/junit.xml | jqe -s 'all(.run == "shard")'
}

@test "rt-measure --by case: --text is a table, flaky first, then by rate; skips are not trials" {
	for i in 1 2 3; do rt-junit --run r$i --same-run "$J/surefire-rerun.xml" "$J/mocha.xml"; done > "$T/r"
	run rt-measure --by case --text "$T/r"
	status_is 0
	[ "$(echo "${lines[0]}" | awk '{print $1}')" = VERDICT ]
	echo "${lines[1]}" | grep -q '^FLAKY .*6/9 failed (66.7%, 95% Wilson CI .*com.example.CartTest::appliesDiscount$'
	echo "${lines[2]}" | grep -q '9/9 failed (≥.*com.example.CartTest::checksOut$'
	echo "${lines[3]}" | grep -q '3/3 failed (≥.*Cart::talks to the server$'
	echo "$output" | grep -q '^SKIPPED .*0 valid trials.*Cart::prints a receipt  (0 errors, 3 skipped, 0 ignored not counted)$'
	rt-measure --by case "$T/r" | jqe -s 'map(select(.case == "Cart::prints a receipt"))[0] | .skipped == 3 and .trials == 0 and .rate == null'
	# the suite line: what STABLE claims, per case, and no more
	echo "${lines[${#lines[@]}-1]}" | grep -q '^suite: [0-9]* cases, 1 FLAKY, .*; STABLE means a rate below 10% at 95% confidence for that case alone, not a claim that none of them is flaky$'
}

@test "rt-measure --by case: shards merge with cat; exact repeats are dropped with a warning" {
	rt-junit --run s1 "$J/surefire-rerun.xml" > "$T/s1"
	rt-junit --run s2 "$J/surefire-rerun.xml" > "$T/s2"
	cat "$T/s1" "$T/s2" | rt-measure --by case > "$T/once"
	cat "$T/s1" "$T/s2" "$T/s1" | rt-measure --by case 2> "$T/err" > "$T/twice"
	cmp "$T/once" "$T/twice"
	grep -q "already counted: dropping repeated records" "$T/err"
	grep -q "8 repeated records dropped" "$T/err"
	jqe -s 'map(select(.case == "com.example.CartTest::appliesDiscount"))[0].trials == 6' "$T/once"
}

@test "rt-measure: no valid trial in the records read is exit 2, not 0" {
	printf '{"type":"trial","outcome":"error"}\n' > "$T/e"
	run rt-measure "$T/e"
	status_is 2
	has "1 record read, 0 valid trials: nothing was measured"
	run sh -c 'rt-junit "$1" | grep prints | rt-measure --by case' sh "$J/mocha.xml"
	status_is 2
	has "no valid trial"
	run sh -c 'echo "{\"type\":\"trial\",\"outcome\":\"pass\"}" | rt-measure --by case'
	status_is 2
	has 'no records carrying "case"'
	run rt-measure --by suite "$T/e"
	status_is 2
	has '--by suite: want "case"'
}

@test "rt-measure: rt-retry's attempt records are measured, not 0 valid trials" {
	printf 'ok\nflip\n' > "$T/cases"
	cat > "$T/t.sh" <<'SH'
#!/bin/sh
# "flip" fails on its first attempt only: a flag file remembers it
[ "$1" = ok ] && exit 0
[ -e "$0.seen" ] && exit 0
: > "$0.seen"; exit 1
SH
	chmod +x "$T/t.sh"
	rt-retry -f "$T/cases" -p failed-once -- "$T/t.sh" {} > "$T/att" || true
	jqe -s 'map(select(.type == "attempt")) | length == 3' "$T/att"
	rt-measure "$T/att" 2>"$T/err" | jqe '.trials == 3 and .failures == 1'
	grep -q "per test case" "$T/err"
	rt-measure --by case "$T/att" | jqe -s 'map(select(.case == "flip"))[0] | .verdict == "FLAKY" and .trials == 2'
}

@test "rt-collect --junit: one report path per trial, per-case records before each trial's own" {
	cat > "$T/fake.sh" <<'SH'
#!/bin/sh
# a runner that writes a two-case JUnit report where it is told to
printf '%s\n' "$RETRIAL_JUNIT" >> "$(dirname "$0")/paths"
cat > "$RETRIAL_JUNIT" <<XML
<testsuite name="s"><testcase classname="k" name="first"/><testcase classname="k" name="t$RETRIAL_TRIAL"><failure message="boom"/></testcase></testsuite>
XML
SH
	chmod +x "$T/fake.sh"
	rt-collect -n 6 -j 2 --junit -- "$T/fake.sh" > "$T/o"
	[ "$(sort -u "$T/paths" | wc -l)" -eq 6 ]
	# each report lived in a private directory that is gone afterwards
	while read -r p; do [ ! -e "$p" ] && [ ! -e "$(dirname "$p")" ]; done < "$T/paths"
	jqe -s 'length == 18' "$T/o"
	# the trial's cases, with trial, run (the collection's: one checkout,
	# so FLAKY is judged across its trials) and position, then its own record
	jqe -s '[range(0; 18; 3) as $i | .[$i:$i+3] |
	    (.[2].case == null and .[0].case == "k::first" and .[1].case == "k::t\(.[2].trial)" and
	     .[0].trial == .[2].trial and (.[0].run | startswith("seed:")) and .[0].run == .[1].run and
	     .[0].position == 0 and .[1].position == 1 and .[1].message == "boom")] | all' "$T/o"
	# plain rt-measure counts the command's trials; --by case the cases
	rt-measure "$T/o" | jqe '.trials == 6 and .failures == 0'
	rt-measure --by case "$T/o" | jqe -s 'length == 7'
}

@test "rt-collect --junit: a trial without a report is warned about, the others are read" {
	run sh -c 'rt-collect -n 3 --junit --cmd "[ \$RETRIAL_TRIAL = 2 ] || echo \"<testsuite><testcase name=\\\"x\\\"/></testsuite>\" > \"\$RETRIAL_JUNIT\"" 2>"$1"' sh "$T/err"
	status_is 0
	[ "$(echo "$output" | jq -s 'map(select(.case == "x")) | length')" -eq 2 ]
	grep -q "trial 2: no JUnit report at \$RETRIAL_JUNIT" "$T/err"
	grep -q "1 of 3 trials wrote no JUnit report" "$T/err"
}

@test "rt-collect --junit: 30 random-order pytest runs find exactly the order-dependent and the random flaky test" {
	cp -R "$J/suite" "$T/suite"
	cd "$T/suite"
	rt-collect -n 30 -j 2 --junit --cmd '/usr/bin/python3 -m pytest -q -p random_order --random-order --junitxml="$RETRIAL_JUNIT"' > "$T/o"
	rt-measure --by case "$T/o" > "$T/m"
	jqe -s 'map(select(.verdict == "FLAKY")) | map(.case) | sort ==
	    ["tests/test_cart.py::test_default_price", "tests/test_net.py::test_request_within_deadline"]' "$T/m"
	jqe -s 'map(select(.verdict == "STABLE")) | length == 5' "$T/m"
	# positions vary between runs: the order really was random
	jqe -s 'map(select(.case == "tests/test_cart.py::test_default_price") | .position) | unique | length > 1' "$T/o"
	run rt-measure --by case --text "$T/o"
	echo "${lines[1]}" | grep -q '^FLAKY '
	echo "${lines[2]}" | grep -q '^FLAKY '
	echo "${lines[3]}" | grep -q '^STABLE .*0/30 failed (≤9.6% at 95% confidence)'
}

@test "examples/shard/suite-rerun.sh: shards of a suite rerun merge with cat" {
	command -v parallel >/dev/null || skip "no GNU parallel"
	cp -R "$J/suite" "$T/suite"
	cd "$T/suite"
	OUT="$T" N=6 SHARDS=2 run sh "$EX/shard/suite-rerun.sh"
	status_is 0
	has "tests/test_net.py::test_parse_header"
	[ -s "$T/suite-1.jsonl" ] && [ -s "$T/suite-2.jsonl" ]
	# shard 1 ran trials 1, 3, 5 and shard 2 trials 2, 4, 6
	[ "$(jq -s 'map(select(.case == null) | .trial) | sort | join(",")' -r "$T/suite-1.jsonl")" = "1,3,5" ]
	cat "$T"/suite-*.jsonl | rt-measure --by case | jqe -s 'length == 8 and
	    (map(select(.case == "tests/test_cart.py::test_total"))[0].trials == 6)'
}

@test "rt-measure --by case: --gate fails on any unstable case; -o is refused" {
	for i in $(seq 30); do rt-junit --run r$i "$J/surefire-rerun.xml"; done > "$T/r"
	run rt-measure --by case --gate "$T/r"
	status_is 1
	grep -v 'appliesDiscount\|checksOut' "$T/r" > "$T/ok"
	run rt-measure --by case --gate "$T/ok"
	status_is 0
	run rt-measure --by case -o "$T/x" "$T/r"
	status_is 2
	has "-o is for one record"
}

@test "rt-junit: a huge message attribute is cut at a character, not inside one" {
	"$PY" -c 'import sys; sys.stdout.write("<testsuite><testcase name=\"t\"><failure message=\"" + "é" * 5000 + "\"/></testcase></testsuite>")' > "$T/m.xml"
	rt-junit "$T/m.xml" | jqe '(.message | length) == 512 and (.message | test("\ufffd") | not)'
}

# --- issue 23: bounded tokens, capped IDs, bounded nesting, stopping on TERM ---

@test "rt-junit: a 50 MB attribute is cut at 1 MiB with a warning at file:line; the case ID is capped" {
	"$PY" - "$T/a.xml" <<'PYEOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write('<testsuite name="s">\n<testcase classname="k"\n name="')
    for _ in range(50):
        f.write("x" * (1 << 20))
    f.write('"/>\n<testcase classname="k" name="after"/>\n</testsuite>\n')
PYEOF
	# timeout: a hang guard only; unbounded, expat 2.5 is quadratic here
	run sh -c 'timeout -k 5 60 rt-junit "$1/a.xml" > "$1/o"' sh "$T"
	status_is 0
	has "a.xml:3: an attribute value longer than 1048576 bytes; cut there"
	has "a.xml:2: a case ID of 1048579 bytes; cut to 4096"
	jqe -s 'length == 2 and .[1].case == "k::after" and
	    (.[0].case | startswith("k::xxx") and (utf8bytelength < 4200) and
	     test("\\.\\.\\.\\[retrial: 1048579 bytes, sha256 [0-9a-f]{16}\\]$"))' "$T/o"
}

@test "rt-junit: two long case names that share their first 4096 bytes stay two cases" {
	"$PY" -c 'import sys; p = "y" * 5000; sys.stdout.write("<testsuite><testcase name=\"%sA\"/><testcase name=\"%sB\"/><testcase name=\"%sA\"/></testsuite>" % (p, p, p))' > "$T/l.xml"
	rt-junit "$T/l.xml" 2>/dev/null | rt-measure --by case | jqe -s 'length == 2 and (map(.trials) | sort == [1, 2])'
}

@test "rt-junit: an attribute is cut at a character and outside a reference, still well-formed" {
	# 1 MiB - 1 bytes, then a reference and two-byte characters across the cap
	"$PY" -c 'import sys; sys.stdout.write("<testsuite><testcase name=\"" + "x" * ((1 << 20) - 1) + "&amp;" + "é" * 10 + "\"/></testsuite>")' > "$T/c.xml"
	run sh -c 'rt-junit "$1/c.xml" > "$1/o"' sh "$T"
	status_is 0
	has "c.xml:1: an attribute value longer than"
	jqe '(.case | test("\ufffd") | not) and (.case | contains("xx...[retrial: "))' "$T/o"
}

@test "rt-junit: a 5 MB comment, a 1 MB entity name and 300 nested elements are refused at file:line" {
	"$PY" -c 'import sys; sys.stdout.write("<testsuite><testcase name=\"a\"/>\n<!--" + "c" * (5 << 20) + "-->\n<testcase name=\"b\"/></testsuite>")' > "$T/cm.xml"
	run timeout -k 5 60 rt-junit "$T/cm.xml"
	status_is 2
	has "cm.xml:2: a tag, comment or declaration longer than 4 MiB; not read further"
	has '"case":"a"'
	"$PY" -c 'import sys; sys.stdout.write("<testsuite><testcase name=\"a\"><system-out>\n&" + "e" * (1 << 20) + ";</system-out></testcase></testsuite>")' > "$T/er.xml"
	run timeout -k 5 60 rt-junit "$T/er.xml"
	status_is 2
	has "er.xml:2: an entity or character reference longer than 256 bytes"
	"$PY" -c 'import sys; sys.stdout.write("<testsuite>\n" + "<x>" * 300 + "</x>" * 300 + "</testsuite>")' > "$T/d.xml"
	run rt-junit "$T/d.xml"
	status_is 2
	has "d.xml:2:"
	has "elements nested deeper than 256"
}

@test "rt-junit: TERM ends a read blocked on a FIFO (open and read), exit 143, the records so far written" {
	mkfifo "$T/f"
	printf '<testsuite><testcase name="before"/></testsuite>' > "$T/g.xml"
	run sh -c '
	for shape in open read; do
		[ $shape = read ] && exec 7<>"$1/f"
		rt-junit "$1/g.xml" "$1/f" > "$1/o.$shape" &
		pid=$!
		i=0; while ! grep -q "fifo\|pipe" /proc/$pid/wchan 2>/dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
		kill -TERM $pid
		i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
		kill -9 $pid 2>/dev/null && { echo "$shape: still running after TERM"; exit 99; }
		wait $pid; echo "$shape rc=$?"
	done' sh "$T"
	has "open rc=143"
	has "read rc=143"
	jqe '.case == "before"' "$T/o.open"
	jqe '.case == "before"' "$T/o.read"
}

@test "rt-measure --by case, rt-audit: a NUL inside a case name is refused at file:line, never merged" {
	printf '%s\n' '{"type":"trial","trial":1,"case":"k::a\u0000b","outcome":"pass","run":"r1"}' \
	    '{"type":"trial","trial":2,"case":"k::a\u0000c","outcome":"fail","run":"r1"}' > "$T/nul.jsonl"
	run rt-measure --by case "$T/nul.jsonl"
	status_is 2
	has 'nul.jsonl:1: "case": a NUL byte (\u0000) inside'
	hasnt '"case":"k::a"'
	run rt-audit -H "$T/h.db" "$T/nul.jsonl"
	status_is 2
	has 'nul.jsonl:1: "case": a NUL byte (\u0000) inside'
	# JUnit cannot carry one: &#0; is not XML
	printf '<testsuite><testcase name="a&#0;b"/></testsuite>' > "$T/n.xml"
	run rt-junit "$T/n.xml"
	status_is 2
	has "n.xml:1:"
}

@test "rt-junit, rt-measure --by case: go test -count=4 is four executions (repeat 1..4, attempt 1), one failure in four trials" {
	command -v go >/dev/null 2>&1 || skip "no go"
	export GOCACHE="$BATS_RUN_TMPDIR/gocache" GOPATH="$T/gopath" GOPROXY=off GOTOOLCHAIN=local GOFLAGS=-mod=mod
	cp -R "$RT_TOP/t/fixtures/runners/gorepeat" "$T/g"
	(cd "$T/g" && go test -count=4 -json ./... > "$T/go.json") || true
	rt-junit "$T/go.json" > "$T/r.jsonl"
	id=example.com/gorepeat/store::TestFirstID
	jqe -s --arg id "$id" 'map(select(.case == $id)) | length == 4 and
	    map(.repeat) == [1, 2, 3, 4] and all(.attempt == 1) and
	    map(.outcome) == ["pass", "fail", "pass", "pass"] and
	    .[1].message == "NextID() = 2, want an ID other than 2 (reserved)"' "$T/r.jsonl"
	jqe -s 'length == 12' "$T/r.jsonl"
	run rt-measure --by case "$T/r.jsonl"
	status_is 0
	echo "$output" | jqe -s --arg id "$id" 'map(select(.case == $id))[0] | .failures == 1 and .trials == 4'
	echo "$output" | jqe -s 'map(select(.case == "example.com/gorepeat/store::TestPutGet"))[0] | .failures == 0 and .trials == 4'
	# the same file twice: each repeat is dropped once, none taken for another
	run sh -c 'cat "$1" "$1" | rt-measure --by case 2>"$2"' sh "$T/r.jsonl" "$T/err"
	grep -q "repeat 1, attempt 1 was already counted" "$T/err"
	echo "$output" | jqe -s --arg id "$id" 'map(select(.case == $id))[0] | .failures == 1 and .trials == 4'
	# rt-audit keeps each repeat: four results of the case, one failed
	rt-audit -H "$T/h.db" --run night1 "$T/r.jsonl" >/dev/null
	[ "$(sqlite3 "$T/h.db" "SELECT count(*), sum(failed) FROM results WHERE case_id = '$id'")" = "4|1" ]
}

# Issue 31: --junit asks for test cases; a run where no trial gave any is
# a failure, not a run of trials to measure.
@test "rt-collect --junit: no trial writing a report exits 2 with one line, the trial records still written" {
	run sh -c 'rt-collect -n 3 --junit --cmd true 2>"$1"' sh "$T/err"
	status_is 2
	grep -q "^rt-collect: --junit: none of the 3 trials wrote a readable per-case report at \$RETRIAL_JUNIT" "$T/err"
	[ "$(echo "$output" | jq -s 'map(select(.type == "trial" and .case == null)) | length')" -eq 3 ]
}
