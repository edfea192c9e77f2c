#!/usr/bin/env bats
# rt-report: the one-page report from hand-made records in t/fixtures/report.
load helper

F="$BATS_TEST_DIRNAME/fixtures/report"

full() {
	rt-report "$@" -p "$F/proof.jsonl" "$F/measure.jsonl" "$F/diff.jsonl" \
	    "$F/experiments.jsonl" "$F/policy.jsonl" "$F/trials.jsonl"
}

# Fail when grep finds the pattern (a bare `! grep` never fails a test).
nogrep() {
	if grep "$@"; then
		echo "unexpected match: grep $*" >&2
		return 1
	fi
}

# a 0% or 0.0% rate that is not part of a larger number (10%, 90.0%)
bare_zero='(^|[^0-9.])0(\.0)?%'

@test "--help prints the synopsis and exits 0" {
	run rt-report --help
	status_is 0
	has "usage: rt-report [-o DIR] [--html] [-p FILE]"
	has "--proof FILE"
}

@test "--version names the tool" {
	run rt-report -V
	status_is 0
	has "rt-report (retrial)"
}

@test "an unknown option is a usage error" {
	run rt-report --bogus "$F/zero.jsonl"
	status_is 2
	has "--bogus: unknown option"
}

@test "--text with --html or -o is rejected by name" {
	run rt-report -t --html "$F/zero.jsonl"
	status_is 2
	has "--text and --html are exclusive"
	run rt-report -t -o "$T/out" "$F/zero.jsonl"
	status_is 2
	has "--text and --output are exclusive"
	[ ! -e "$T/out" ]
}

@test "golden report.md and summary.json for the full set of records" {
	run full -o "$T/out"
	status_is 0
	[ "${lines[0]}" = "$T/out/summary.json" ]
	[ "${lines[1]}" = "$T/out/report.md" ]
	[ "${#lines[@]}" -eq 2 ]
	diff -u "$F/full.report.md" "$T/out/report.md"
	diff -u "$F/full.summary.json" "$T/out/summary.json"
	[ ! -e "$T/out/report.html" ]
}

@test "the sections come in order, each with its numbers" {
	run full -t
	status_is 0
	printf '%s\n' "$output" | grep '^## ' > "$T/heads"
	printf '%s\n' "## How often" "## What is true only when it fails" \
	    "## What observation changed" "## What it takes to say it is fixed" > "$T/want"
	diff -u "$T/want" "$T/heads"
	has "20/60 failed (33.3%, 95% Wilson CI 22.7%–46.0%)."
	has 'Token: `EXHAUSTED`'
	has "Failing trials (20): 3, 6, 9,"
	has "45/60 failed (75.0%, 95% Wilson CI 62.7%–84.3%)"
	has "Implicated: it destabilises the test"
	has "Probe: `up to 3 other trials were running when a trial started`"
	has "Not separated at this budget"
	hasnt "no effect"
	has "| 95% | 21.7%, the exact one-sided 97.5% lower bound | 16 |"
	has "Proof run: 0/14 failed (≤19.3% at 95% confidence)"
}

@test "summary.json: measured values, and null for what was not given" {
	rt-report -o "$T/o" "$F/measure.jsonl" >/dev/null
	jqe '.type == "summary" and .trials == 60 and .failures == 20' "$T/o/summary.json"
	jqe '.token == null' "$T/o/summary.json"
	jqe '.proof_trials == null and .proof_failures == null' "$T/o/summary.json"
	jqe '.observer_changed == null' "$T/o/summary.json"
	# no plan or policy record: rt-plan's default numbers for the same record
	rt-plan --policy "$F/measure.jsonl" > "$T/pol.jsonl"
	jq -e -s '.[0] as $p | .[1] | .green_runs_required == $p.green_runs_required and
	    .retry_budget == $p.retry_budget and .quarantine_after == $p.quarantine_after and
	    .green_runs_required == 16' "$T/pol.jsonl" "$T/o/summary.json" >/dev/null
	[ "$(wc -l < "$T/o/summary.json")" -eq 1 ]
}

@test "summary.json: a measured zero is 0 and experiments without change are false" {
	grep '"slow"' "$F/experiments.jsonl" > "$T/slow.jsonl"
	rt-report -o "$T/o" -p "$F/proof.jsonl" "$F/zero.jsonl" "$T/slow.jsonl" >/dev/null
	jqe '.failures == 0 and .rate == 0 and .ci_low == 0' "$T/o/summary.json"
	jqe '.proof_failures == 0 and .proof_trials == 14' "$T/o/summary.json"
	jqe '.observer_changed == false' "$T/o/summary.json"
	jqe '.green_runs_required == null' "$T/o/summary.json"
}

@test "no measure record: the measurement is tallied from trial records; plan levels used" {
	run rt-report -t "$F/trials.jsonl" "$F/plan.jsonl"
	status_is 0
	diff -u "$F/plan.report.md" - <<<"$output"
	rt-report -o "$T/o" "$F/trials.jsonl" "$F/plan.jsonl" >/dev/null
	diff -u "$F/plan.summary.json" "$T/o/summary.json"
}

@test "zero failures are an upper bound, never 0%" {
	run rt-report -t "$F/zero.jsonl"
	status_is 0
	has "0/40 failed (≤7.3% at 95% confidence)"
	printf '%s\n' "$output" > "$T/zero.md"
	nogrep -E "$bare_zero" "$T/zero.md"
	grep -q '"verdict":"STABLE"' "$F/zero.jsonl"
	has "No failure was observed"
}

@test "a proof run that fails, or is too short, is not called fixed" {
	printf '%s\n' '{"type":"measure","trials":5,"failures":0,"confidence":0.95}' > "$T/short.jsonl"
	run rt-report -t -p "$T/short.jsonl" "$F/measure.jsonl"
	status_is 0
	has "0/5 failed (≤45.1% at 95% confidence): fewer than the 16 clean runs needed"
	printf '%s\n' '{"type":"measure","trials":20,"failures":2}' > "$T/bad.jsonl"
	run rt-report -t -p "$T/bad.jsonl" "$F/measure.jsonl"
	has "2/20 failed"
	has "it still fails, so it is not fixed"
}

@test "a clean proof run says what it rules out: the measured rate, and the interval's lower end or not" {
	printf '%s\n' '{"type":"measure","trials":9,"failures":0,"confidence":0.95}' > "$T/nine.jsonl"
	# the policy record asks for 8 clean runs (rt-plan's default would ask for 16)
	run rt-report -t -p "$T/nine.jsonl" "$F/measure.jsonl" "$F/policy.jsonl"
	status_is 0
	has "0/9 failed (≤28.4% at 95% confidence): at least the 8 clean runs needed at 95% confidence"
	has "were the rate still the measured 33.3%, 9 clean runs in a row would have a chance of 2.6%"
	has "it does not rule out the interval's lower end 22.7% (that takes 12 clean runs)"
	run rt-report -t -p "$F/proof.jsonl" "$F/measure.jsonl" "$F/policy.jsonl"
	has "and it rules out the interval's lower end 22.7% too"
}

@test "a tiny chance is printed with its digits, never 0.0%" {
	# (2/3)^20 = 0.030%, (2/3)^25 = 0.0039%
	printf '%s\n' '{"type":"measure","trials":20,"failures":0,"confidence":0.95}' > "$T/p20.jsonl"
	run rt-report -t -p "$T/p20.jsonl" "$F/measure.jsonl"
	status_is 0
	has "20 clean runs in a row would have a chance of 0.03%"
	printf '%s\n' '{"type":"measure","trials":25,"failures":0,"confidence":0.95}' > "$T/p25.jsonl"
	run rt-report -t -p "$T/p25.jsonl" "$F/measure.jsonl"
	has "25 clean runs in a row would have a chance of 0.004%"
	hasnt "a chance of 0.0%"
}

@test "no plan or policy record: rt-report's runs needed, budget and rule are rt-plan's for the same measure record (8/40: 39 runs, not 14)" {
	printf '%s\n' '{"type":"measure","command":"x","trials":40,"failures":8,"rate":0.2,"ci_low":0.104999,"ci_high":0.347576,"confidence":0.95,"verdict":"FLAKY"}' > "$T/m8.jsonl"
	rt-plan "$T/m8.jsonl" > "$T/plan.jsonl"
	rt-plan --policy "$T/m8.jsonl" > "$T/policy.jsonl"
	rt-report -o "$T/o" "$T/m8.jsonl" >/dev/null
	jq -e -s '.[0] as $plan | .[1] as $pol | .[2] |
	    $plan.runs == 39 and .green_runs_required == $plan.runs and
	    .retry_budget == $pol.retry_budget and .retry_budget == 4 and
	    .quarantine_after == $pol.quarantine_after' \
	    "$T/plan.jsonl" "$T/policy.jsonl" "$T/o/summary.json" >/dev/null
	run rt-report -t "$T/m8.jsonl"
	status_is 0
	# rt-plan's own sentence, word for word, qualifier included
	sentence=$(rt-plan -t "$T/m8.jsonl" | sed 's/^Measured .*%)\. //')
	[[ $sentence == "At a 9.1% failure rate (the exact one-sided 97.5% lower bound"* ]]
	has "$sentence"
	has "| 95% | 9.1%, the exact one-sided 97.5% lower bound | 39 |"
	has "- Retry budget: 4 retries per CI run"
	has "at any rate up to 35.7%, the exact one-sided 97.5% upper bound of the measured rate"
	has "- Rule: $(jq -r .rule "$T/policy.jsonl")."
	hasnt "14 clean runs"
	hasnt "| 14 |"
	# from the records when given: their numbers, with their basis words
	run rt-report -t "$T/m8.jsonl" "$T/policy.jsonl"
	status_is 0
	has "- Green runs required by the policy: 39 at 95% confidence, planned from a failure rate of 9.1%, basis \`split\`."
	has "4 retries per CI run, so a run stays red with chance at most 1.0% (p^(r+1) ≤ target), at any rate up to 35.7%, the exact one-sided 97.5% upper bound of the measured rate."
	hasnt "computed by rt-plan's default rules (no policy record"
	rt-plan --policy --basis point "$T/m8.jsonl" > "$T/point.jsonl"
	run rt-report -t "$T/m8.jsonl" "$T/point.jsonl"
	has "- Retry budget: 2 retries per CI run, so a run stays red with chance at most 1.0% (p^(r+1) ≤ target), at the measured rate 20.0%, taken as known."
}

@test "a policy record's survive chance is read (target in older records)" {
	rt-plan --rate 0.2 --policy > "$T/pol.jsonl"
	run rt-report -t "$T/pol.jsonl" "$F/measure.jsonl"
	status_is 0
	has "so a run stays red with chance at most 1.0%"
}

@test "missing pieces are stated, not invented" {
	run rt-report -t "$F/diff.jsonl"
	status_is 0
	has "Missing: no measure record given (run rt-measure)."
	has "Missing: no experiment records given (run rt-matrix)."
	has "Missing: no measured rate and no plan record given"
	has "Missing: no policy record given (run rt-plan --policy)"
	has "Missing: no proof run given"
	run rt-report -t "$F/measure.jsonl"
	has "Missing: no evidence records given (run rt-diff-facts)."
}

@test "records come from stdin when no file is named, and from -" {
	run sh -c 'cat "$1" | rt-report -t' sh "$F/zero.jsonl"
	status_is 0
	has "0/40 failed"
	run sh -c 'cat "$1" | rt-report -t "$2" -' sh "$F/zero.jsonl" "$F/diff.jsonl"
	status_is 0
	has "0/40 failed"
	has 'Token: `EXHAUSTED`'
}

@test "the default directory is the current one, and -o creates its parents" {
	cd "$T"
	run rt-report "$F/zero.jsonl"
	status_is 0
	[ "$output" = "$(printf 'summary.json\nreport.md')" ]
	[ -s summary.json ] && [ -s report.md ]
	run rt-report -o a/b/c --html "$F/zero.jsonl"
	status_is 0
	[ -s a/b/c/report.html ]
	ls a/b/c > list
	nogrep -q tmp list
}

@test "--html: one self-contained page with SVG charts and no network" {
	run full -o "$T/h" --html
	status_is 0
	has "$T/h/report.html"
	h="$T/h/report.html"
	grep -q '<svg' "$h"
	nogrep -qi 'http' "$h"
	nogrep -qiE '<script|src=|href=|@import|url\(' "$h"
	grep -q '<style>' "$h"
	# code spans wrap at word ends where they can, not inside "STALE"
	nogrep -q 'break-all' "$h"
	# rates as points with bars: measured, 3 control/perturbed pairs (2 run), proof
	[ "$(grep -c '<circle class="pt"' "$h")" -eq 6 ]
	# the timeline: one cell per trial record, in trial-number order
	[ "$(grep -c '<rect class=' "$h")" -eq 61 ]
	grep -o '<title>trial [0-9]*' "$h" | sed 's/.* //' > "$T/order"
	seq 1 61 > "$T/want"
	diff -u "$T/want" "$T/order"
	grep -q '<rect class="timeout"' "$h"
	grep -q '<rect class="error"' "$h"
	# the narrowing band ends at the whole measurement
	grep -q '<polygon class="band"' "$h"
	has_end=$(grep -c 'at the end: 20/60 failed (33.3%, 95% Wilson CI 22.7%–46.0%)' "$h")
	[ "$has_end" -eq 1 ]
	# every section is on the page
	grep -q '<h2>What it takes to say it is fixed</h2>' "$h"
}

@test "--html embeds share/retrial/retrial.css; a missing stylesheet is one error naming it" {
	run rt-report -o "$T/h" --html "$F/zero.jsonl"
	status_is 0
	# the page's <style> is the shared file, byte for byte
	python3 - "$T/h/report.html" "$RT_TOP/share/retrial/retrial.css" <<'PY'
import sys
page, css = open(sys.argv[1]).read(), open(sys.argv[2]).read()
start = page.index("<style>\n") + len("<style>\n")
assert page[start:page.index("</style>")] == css
PY
	mkdir "$T/noshare"
	RETRIAL_SHAREDIR="$T/noshare" run rt-report -o "$T/h2" --html "$F/zero.jsonl"
	status_is 2
	[ "${#lines[@]}" -eq 1 ]
	has "rt-report: $T/noshare/retrial.css: the HTML stylesheet"
	has "No such file or directory"
	[ ! -e "$T/h2/report.html" ]
}

@test "--html escapes hostile text from records" {
	run rt-report -o "$T/x" --html "$F/hostile.jsonl"
	status_is 0
	h="$T/x/report.html"
	nogrep -qi '<script' "$h"
	nogrep -qi '<img' "$h"
	nogrep -q '<b ' "$h"
	nogrep -q '</svg><script' "$h"
	grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$h"
	grep -q '&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quotes&quot;' "$h"
	nogrep -qi 'http' "$h"
	# in Markdown the same text stays inside code spans
	grep -q '^Command: ``python3 -m pytest .*<script>.*``$' "$T/x/report.md"
	nogrep -q '^# heading' "$T/x/report.md"
}

@test "malformed JSONL names the file and line" {
	printf '%s\n' '{"type":"measure","trials":3,"failures":1}' '{oops' > "$T/bad.jsonl"
	run rt-report -t "$T/bad.jsonl"
	status_is 2
	has "rt-report: $T/bad.jsonl:2: invalid JSON"
}

@test "impossible numbers in a record name the file, line and field" {
	printf '%s\n' '{"type":"measure","trials":3,"failures":5}' > "$T/bad.jsonl"
	run rt-report -t "$T/bad.jsonl"
	status_is 2
	has "$T/bad.jsonl:1: measure record: field \"failures\" must be at most \"trials\" (5 failures in 3 trials)"
	printf '%s\n' '{"type":"trial","trial":1,"outcome":"maybe"}' > "$T/bad.jsonl"
	run rt-report -t "$T/bad.jsonl"
	status_is 2
	has "$T/bad.jsonl:1: trial record: field \"outcome\" must be one of pass, fail, timeout, error, ignored, not maybe"
}

@test "no retrial records at all is an error" {
	run rt-report -t < /dev/null
	status_is 2
	has "no retrial records in input"
	printf '%s\n' '{"type":"hypothesis","id":"h1"}' > "$T/other.jsonl"
	run rt-report -o "$T/none" "$T/other.jsonl"
	status_is 2
	has "no retrial records in input"
	[ ! -e "$T/none" ]
}

@test "an output directory that cannot be made is named" {
	: > "$T/file"
	run rt-report -o "$T/file/sub" "$F/zero.jsonl"
	status_is 2
	has "$T/file/sub"
	run rt-report -o "$T/file" "$F/zero.jsonl"
	status_is 2
	has "$T/file: not a directory"
}

@test "a missing or empty proof file is an error" {
	run rt-report -t -p "$T/nope.jsonl" "$F/measure.jsonl"
	status_is 2
	has "$T/nope.jsonl"
	: > "$T/empty.jsonl"
	run rt-report -t -p "$T/empty.jsonl" "$F/measure.jsonl"
	status_is 2
	has "$T/empty.jsonl: no measure or trial record for the proof run"
}

# --- the tournament: rt-verify's lane and verdict records (issue 15) ------

TV="$BATS_TEST_DIRNAME/fixtures/report/tournament.jsonl"   # a real rt-verify run
TO="$BATS_TEST_DIRNAME/fixtures/report/order.jsonl"        # an rt-bisect order record
NUMCHECK="$BATS_TEST_DIRNAME/fixtures/report/numbers-check.py"

# the "What fixed it" section of report.md on stdin
fixed_section() {
	sed -n '/^## What fixed it/,/^## What it takes/p'
}

@test "What fixed it: the baseline and every lane with counts, intervals and fate" {
	run rt-report -t "$TV"
	status_is 0
	has "## What fixed it"
	has "Verdict: \`FIXED\`"
	has "| original (baseline, measured) | baseline | 18/56 | 32.1% | 21.4%–45.2% (wilson) |"
	has "| \`h-fix\` concurrency | winner | 0/15 | ≤28.1% | 0.0%–28.1% (anytime) |"
	has "| \`h-decoy\` concurrency | undecided | 14/56 | 25.0% | 9.9%–46.0% (anytime) |"
	has "| \`h-noapply\` concurrency | patch_failed | not run |"
	has "- \`h-decoy\` (undecided): 14/56 failed"
	has "about 1290 more would likely decide"
	has "Paired with the original: 15 pairs, the original alone failed 7"
	has "Budget: 55 trials"
	has "Canary: not placed"
	has "Finished at 2026-12-01T15:22:16Z"
	has "Records read: 5 lane, 1 verdict."
	hasnt "other"
}

@test "What fixed it: the winner's patch, the confirmation round and the deciding rule" {
	run rt-report -t "$TV"
	status_is 0
	has "### The winner's patch"
	has "\`h-fix\` (concurrency, from cache), changing \`pool.sh\`."
	has '```diff'
	has "-	if [ \$(( \${last:-0} % 3 )) -eq 0 ]; then"
	has "### The confirmation round"
	has "Round 1, \`h-fix\`: 0/29 failed (≤9.9% at 95% confidence); 29 runs required against a reference rate of 10.0%; passed"
	has "### The rule that decided it"
	has "runs_to_claim(10.0%, 0.95) = 29 fresh trials"
}

@test "What fixed it: every number in the section is a record's" {
	rt-report -t "$TV" "$TO" | fixed_section > "$T/sec.md"
	[ -s "$T/sec.md" ]
	run python3 "$NUMCHECK" "$T/sec.md" "$TV" "$TO"
	status_is 0
	# a number the records do not hold fails the check
	sed 's/18\/56/18\/57/' "$T/sec.md" > "$T/bad.md"
	run python3 "$NUMCHECK" "$T/bad.md" "$TV" "$TO"
	status_is 1
	has "57"
}

@test "What fixed it: rt-bisect's order record when present" {
	run rt-report -t "$TV" "$TO"
	status_is 0
	has "### Order dependence (rt-bisect)"
	has "Victim \`test_pool_reuse\`, polluter. Polluters: \`test_pool_fill\` and \`test_pool_drain\`."
	has "Probes: 7. Trials: 42."
	run rt-report -t "$TO"
	status_is 0
	has "### Order dependence"
}

@test "lane records without a verdict: an unfinished race, told as such" {
	grep '"type":"lane"' "$TV" > "$T/lanes.jsonl"
	run rt-report -t "$T/lanes.jsonl"
	status_is 0
	has "Lane records without a verdict"
	has "| \`h-decoy\` concurrency | undecided | 14/56 |"
	hasnt "### The winner's patch"
}

@test "the HTML draws every lane's interval against the baseline and the target in one SVG" {
	run rt-report -o "$T/out" --html "$TV"
	status_is 0
	h="$T/out/report.html"
	[ "$(grep -c '<svg class="chart tournament"' "$h")" -eq 1 ]
	# baseline band, target line at 10% (x = 190 + 420 * 0.1 = 232)
	grep -q '<rect class="baseband"' "$h"
	grep -q '<line class="target" x1="232.0"' "$h"
	# one row per lane, and one per confirmation round
	for id in h-fix h-decoy h-noapply h-outside h-nopatch; do
		grep -q "<title>$id (" "$h" || { echo "no row for $id" >&2; return 1; }
	done
	grep -q '<title>confirm h-fix: 0/29 failed (≤9.9% at 95% confidence' "$h"
	grep -q '<pre class="patch">--- a/pool.sh' "$h"
	# self-contained: nothing fetched
	nogrep -E '(src|href)="(https?:)?//' "$h"
	python3 -c 'import sys, xml.dom.minidom as M; s=open(sys.argv[1]).read(); a=s.index("<svg class=\"chart tournament\""); M.parseString(s[a:s.index("</svg>", a) + 6])' "$h"
}

@test "bad lane and verdict records name the file and line, exit 2" {
	printf '{"type":"lane","id":"x","status":"eliminated","trials":3,"failures":4}\n' > "$T/l.jsonl"
	run rt-report -t "$T/l.jsonl"
	status_is 2
	has "l.jsonl:1: lane record: field \"failures\" must be at most \"trials\" (4 failures in 3 trials)"
	printf '{"type":"verdict","verdict":"FIXED","command":"t","confidence":0.95,"baseline":{"trials":9,"failures":3}}\n' > "$T/v.jsonl"
	run rt-report -t "$T/v.jsonl"
	status_is 2
	has "v.jsonl:1: verdict record: field \"lanes\" is missing"
}

# --- the autopsy --------------------------------------------------------

@test "--autopsy FILE: 6 to 10 sentences, plain about the fix, hesitant about the eliminated" {
	run rt-report -o "$T/out" --autopsy "$T/autopsy.txt" "$TV"
	status_is 0
	has "$T/autopsy.txt"
	[ -f "$T/out/report.md" ]
	n=$(grep -o '[.!?]\( \|$\)' "$T/autopsy.txt" | wc -l)
	[ "$n" -ge 6 ] && [ "$n" -le 10 ]
	grep -q "^Before any fix, ./test_pool.sh failed 18 of 56 trials (32.1%, 95% Wilson CI 21.4%–45.2%)." "$T/autopsy.txt"
	grep -q "^h-decoy is undecided: it failed 14 of 56 trials (25.0%, 95% anytime interval 9.9%–46.0%)" "$T/autopsy.txt"
	grep -q "though it is not disproved" "$T/autopsy.txt"
	grep -q "^The verdict is FIXED: h-fix is the confirmed fix" "$T/autopsy.txt"
	grep -q "h-noapply and h-outside could not be applied" "$T/autopsy.txt"
}

@test "--autopsy: a zero is a bound, never a rate (a measured 0.0 is not missing)" {
	run rt-report --autopsy - "$TV"
	status_is 0
	has "failed 0 of 15 trials (≤28.1% at 95% confidence, anytime)"
	has "failed 0 of 29 trials (≤9.9% at 95% confidence)"
	hasnt "100"
	hasnt " 0.0%"
	echo "$output" | nogrep -E "$bare_zero"
}

@test "--autopsy: every number in it is in the input records (the real run and every fixture verdict)" {
	rt-report -o "$T/out" --autopsy "$T/a.txt" "$TV" "$TO" >/dev/null
	python3 "$NUMCHECK" "$T/a.txt" "$TV" "$TO"
	n=0
	for f in "$BATS_TEST_DIRNAME"/fixtures/pr/*.jsonl "$BATS_TEST_DIRNAME"/fixtures/verify/verdicts.jsonl; do
		i=0
		while IFS= read -r line; do
			i=$((i + 1))
			case $line in *'"type":"verdict"'*) ;; *) continue ;; esac
			printf '%s\n' "$line" > "$T/one.jsonl"
			rt-report --autopsy - "$T/one.jsonl" > "$T/a.txt" ||
			    { echo "$f:$i: rt-report failed" >&2; return 1; }
			python3 "$NUMCHECK" "$T/a.txt" "$T/one.jsonl" ||
			    { echo "$f:$i" >&2; cat "$T/a.txt" >&2; return 1; }
			n=$((n + 1))
		done < "$f"
	done
	[ "$n" -ge 10 ]
}

@test "--autopsy on a fresh rt-verify run: numbers from its records" {
	cp -R "$RT_TOP/t/fixtures/verify/pool" "$T/pool"
	rt-verify -C "$T/pool" -n 30 -j 2 --seed 42 --no-genome --cmd ./test_pool.sh \
	    "$RT_TOP/t/fixtures/verify/pool.jsonl" > "$T/v.jsonl"
	run rt-report --autopsy - "$T/v.jsonl"
	status_is 0
	has "The verdict is FIXED"
	echo "$output" > "$T/a.txt"
	python3 "$NUMCHECK" "$T/a.txt" "$T/v.jsonl"
}

@test "--autopsy: usage errors" {
	run rt-report --autopsy - -o "$T/out" "$TV"
	status_is 2
	has "exclusive"
	run rt-report --autopsy - "$F/measure.jsonl"
	status_is 2
	has "no verdict record"
}

@test "--speak WAV: espeak-ng writes a RIFF/WAVE file" {
	command -v espeak-ng >/dev/null || skip "espeak-ng not installed"
	run rt-report --autopsy - --speak "$T/a.wav" "$TV"
	status_is 0
	has "The verdict is FIXED"
	[ "$(head -c 4 "$T/a.wav")" = "RIFF" ]
	[ "$(dd if="$T/a.wav" bs=1 skip=8 count=4 2>/dev/null)" = "WAVE" ]
}

@test "--speak WAV without espeak-ng: warns no audio, the run goes on, same exit" {
	mkdir -p "$T/bin"
	ln -s "$RT_TOP/bin/rt-report" "$T/bin/rt-report"
	run env PATH="$T/bin" rt-report -o "$T/out" --autopsy "$T/a.txt" --speak "$T/a.wav" "$TV"
	[ -s "$T/out/report.md" ]
	status_is 0
	has "no audio"
	[ -s "$T/a.txt" ]
	[ ! -e "$T/a.wav" ]
	# a voice that fails (exit 1) is the same
	printf '#!/bin/sh\nexit 1\n' > "$T/bin/espeak-ng"
	chmod +x "$T/bin/espeak-ng"
	run env PATH="$T/bin" rt-report --autopsy - --speak "$T/b.wav" "$TV"
	status_is 0
	has "no audio"
	has "The verdict is FIXED"
}

# --- the autopsy's template ----------------------------------------------

@test "--autopsy: the shipped template tells the real run word for word" {
	run rt-report --autopsy - "$TV" "$TO"
	status_is 0
	diff -u "$F/tournament.autopsy.txt" <(printf '%s\n' "$output")
}

@test "--autopsy-template FILE: the words are the user's, the numbers still the records'" {
	cat > "$T/my.tmpl" <<-'T'
	{{! a terse autopsy }}
	{{#end}}
	{{verdict}} by {{id}}.
	{{/end}}
	{{#before}}
	Was: {{counts}}.
	{{/before}}
	{{#confirmations}}
	Now: {{counts}}{{#passed}}, held{{/passed}}.
	{{/confirmations}}
	{{#eliminated}}
	Maybe not {{id}}{{#budget}} (budget {{budget}}){{/budget}}.
	{{/eliminated}}
	T
	run rt-report --autopsy - --autopsy-template "$T/my.tmpl" "$TV"
	status_is 0
	[ "${lines[0]}" = "FIXED by h-fix." ]
	[ "${lines[1]}" = "Was: failed 18 of 56 trials (32.1%, 95% Wilson CI 21.4%–45.2%)." ]
	[ "${lines[2]}" = "Now: failed 0 of 29 trials (≤9.9% at 95% confidence), held." ]
	[ "${lines[3]}" = "Maybe not h-decoy (budget 55)." ]
	[ "${#lines[@]}" -eq 4 ]
	echo "$output" > "$T/a.txt"
	python3 "$NUMCHECK" "$T/a.txt" "$TV"
}

@test "--autopsy: the default template is found in RETRIAL_SHAREDIR" {
	mkdir -p "$T/share"
	cp "$RETRIAL_SHAREDIR/report-tournament.md.tmpl" "$T/share/"
	printf 'Seed {{seed}}{{^seed}}unknown{{/seed}}; {{#next}}{{#FIXED}}ship it{{/FIXED}}{{/next}}.\n' \
	    > "$T/share/autopsy.txt.tmpl"
	RETRIAL_SHAREDIR="$T/share" run rt-report --autopsy - "$TV"
	status_is 0
	[ "$output" = "Seed unknown; ship it." ]
}

@test "--autopsy: at most 10 sentences, the least important left out first" {
	# 3 eliminated, 2 tied, 3 confirmations, a seed, an order: 14 drafted
	lane() { printf '{"id":"%s","status":"%s","trials":40,"failures":%s,"rate":0.%s,"ci_low":0.01,"ci_high":0.5,"interval":"wilson"}' "$@"; }
	printf '{"type":"verdict","verdict":"FIXED","command":"t","test":"t","confidence":0.95,"target":0.1,"seed":"77","rule":"r","baseline":{"trials":40,"failures":12,"rate":0.3,"ci_low":0.1,"ci_high":0.5,"verdict":"FLAKY"},"winner":{"id":"w","explanation":"It waits."},"lanes":[%s,%s,%s,%s,%s,%s],"confirmations":[{"id":"w","trials":29,"failures":0,"ci_low":0,"ci_high":0.098,"passed":true}]}\n' \
	    "$(lane e1 eliminated 11 275)" "$(lane e2 eliminated 13 325)" "$(lane e3 eliminated 14 35)" \
	    "$(lane t1 tied 2 05)" "$(lane t2 tied 3 075)" "$(lane w survived 0 0)" > "$T/v.jsonl"
	printf '{"type":"order","victim":"t","polluters":["p"],"trials":9}\n' >> "$T/v.jsonl"
	run rt-report --autopsy - "$T/v.jsonl"
	status_is 0
	[ "${#lines[@]}" -eq 10 ]
	has "e1 seems not to have been the fix"
	has "The fix that held is w"
	has "confirmation held for w, which failed 0 of 29 trials (≤9.9% at 95% confidence)"
	has "The verdict is FIXED: w is the confirmed fix"
	has "Order matters here: t fails after p, found in 9 trials."
	# priority 5 (the seed, the other eliminated, the second tie) goes first
	hasnt "seed"
	hasnt "e3"
	hasnt "t2 may"
	# then priority 4, latest first (the explanation, the second eliminated)
	hasnt "It waits"
	hasnt "e2 seems"
	has "t1 may also have helped"
}

@test "--autopsy-template: usage and template errors exit 2 and name the place" {
	run rt-report -t --autopsy-template "$T/x" "$TV"
	status_is 2
	has "needs --autopsy or --speak"
	run rt-report --autopsy - --autopsy-template "" "$TV"
	status_is 2
	has "empty file name"
	run rt-report --autopsy - --autopsy-template "$T/missing.tmpl" "$TV"
	status_is 2
	has "missing.tmpl"
	printf 'ok\n{{verdikt}}\n' > "$T/bad.tmpl"
	run rt-report --autopsy - --autopsy-template "$T/bad.tmpl" "$TV"
	status_is 2
	has "bad.tmpl:2: unknown placeholder {{verdikt}}"
	has "AUTOPSY TEMPLATE"
	printf '{{#end}}x\n' > "$T/open.tmpl"
	run rt-report --autopsy - --autopsy-template "$T/open.tmpl" "$TV"
	status_is 2
	has "never closed"
}

# --- "What fixed it" is a template too ----------------------------------

@test "What fixed it: the words are share/retrial/report-tournament.md.tmpl's" {
	mkdir -p "$T/share"
	sed 's/^## What fixed it$/## Which fix won/' "$RETRIAL_SHAREDIR/report-tournament.md.tmpl" \
	    > "$T/share/report-tournament.md.tmpl"
	RETRIAL_SHAREDIR="$T/share" run rt-report -t "$TV"
	status_is 0
	has "## Which fix won"
	hasnt "## What fixed it"
	has "| original (baseline"
	# the patch still sits between the two parts
	echo "$output" | sed -n '/^### The winner.s patch/,/^### The confirmation round/p' > "$T/mid"
	grep -q '^```diff$' "$T/mid"
	rm "$T/share/report-tournament.md.tmpl"
	RETRIAL_SHAREDIR="$T/share" run rt-report -t "$TV"
	status_is 2
	has "report-tournament.md.tmpl"
}

@test "What fixed it: a winner with a source but no cause class reads (from SOURCE)" {
	printf '{"type":"verdict","verdict":"FIXED","command":"t","confidence":0.95,"baseline":{"trials":9,"failures":3},"lanes":[{"id":"w","status":"survived","trials":9,"failures":0}],"winner":{"id":"w","source":"model"}}\n' > "$T/v.jsonl"
	run rt-report -t "$T/v.jsonl"
	status_is 0
	has '`w` (from model).'
	hasnt '( from'
}

@test "the Markdown shows the escape sequences in a command and its output, never sends them" {
	c=$(printf 'pytest -k \033]0;pwned\007x\033[2J\302\2332J')
	jq -c --arg c "$c" '.command = $c' "$F/measure.jsonl" > "$T/m.jsonl"
	jq -c --arg c "$c" 'if .type == "trial" then .command = $c | .stdout = ("out " + $c) else . end' \
	    "$F/trials.jsonl" > "$T/t.jsonl"
	rt-report -o "$T/rep" "$T/m.jsonl" "$T/t.jsonl" "$F/diff.jsonl" >/dev/null
	if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$T/rep/report.md" ||
	    grep -q "$(printf '\302\233')" "$T/rep/report.md"; then
		od -c "$T/rep/report.md" | head >&2; return 1
	fi
	grep -qF 'pytest -k ␛]0;pwned␇x␛[2J\u009b2J' "$T/rep/report.md"
}

# --- per-case records (rt-measure --by case) ------------------------------

@test "per-case records: a table naming each case, flaky first then by rate, in Markdown, HTML and summary.json" {
	# input order is not the table's: a stable case, a flaky one, a broken one
	printf '%s\n' \
	    '{"type":"measure","case":"t::stable","trials":40,"failures":0,"rate":0,"ci_low":0,"ci_high":0.072158,"interval":"exact one-sided","confidence":0.95,"verdict":"STABLE"}' \
	    '{"type":"measure","case":"t::broken","trials":20,"failures":20,"rate":1,"ci_low":0.86089,"ci_high":1,"interval":"exact one-sided","confidence":0.95,"verdict":"ALWAYS_FAILING"}' \
	    '{"type":"measure","case":"t::rare","trials":40,"failures":4,"rate":0.1,"ci_low":0.039585,"ci_high":0.230593,"interval":"wilson","confidence":0.95,"verdict":"FLAKY"}' \
	    '{"type":"measure","case":"t::often | pipe","trials":40,"failures":8,"rate":0.2,"ci_low":0.104999,"ci_high":0.347576,"interval":"wilson","confidence":0.95,"verdict":"FLAKY"}' \
	    > "$T/cases.jsonl"
	run rt-report -t "$T/cases.jsonl"
	status_is 0
	has "Per case, from 4 per-case measure records (rt-measure --by case): 2 \`FLAKY\`"
	printf '%s\n' "$output" | grep '^| `' | cut -d'|' -f2 > "$T/rows"
	printf '%s\n' "$output" | grep '^| `'
	[ "$(wc -l < "$T/rows")" -eq 4 ]
	grep -n 'often' "$T/rows" | grep -q '^1:'
	sed -n 2p "$T/rows" | grep -q 't::rare'
	sed -n 3p "$T/rows" | grep -q 't::broken'
	sed -n 4p "$T/rows" | grep -q 't::stable'
	# each row's numbers in rt_say's words, and rt-plan's clean runs
	runs=$(grep 't::often' "$T/cases.jsonl" | rt-plan | jq .runs)
	[ "$runs" -eq 39 ]
	has '| `t::often \| pipe` | `FLAKY` | 8/40 failed (20.0%, 95% Wilson CI 10.4%–34.8%) | 39 |'
	has '| `t::stable` | `STABLE` | 0/40 failed (≤7.3% at 95% confidence) | — |'
	hasnt "Missing: no measure record given"
	# HTML: the same rows, the name whole despite its "|"
	rt-report -o "$T/h" --html "$T/cases.jsonl" >/dev/null
	h="$T/h/report.html"
	sed 's/<wbr>//g' "$h" | grep -o '<tr><td class="id"><code>[^<]*' | sed 's/.*<code>//' > "$T/hrows"
	printf '%s\n' 't::often | pipe' 't::rare' 't::broken' 't::stable' > "$T/want"
	diff -u "$T/want" "$T/hrows"
	grep -q '<td>8/40 failed (20.0%, 95% Wilson CI 10.4%–34.8%)</td><td>39</td>' "$h"
	# summary.json: the cases in the same order, with their runs
	jqe '[.cases[].case] == ["t::often | pipe", "t::rare", "t::broken", "t::stable"]' "$T/h/summary.json"
	jqe '.cases[0].green_runs_required == 39 and .cases[3].green_runs_required == null' "$T/h/summary.json"
}
