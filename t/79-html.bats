#!/usr/bin/env bats
# The HTML pages' defects of issue 36: the digest's sparklines by night,
# the suite page's IDs, verdicts and sections, and well-formed markup.
load helper

LONG='tests/a_very_long_module_name/test_something.py::TestClass::test_method_name'

# rec TRIAL CASE OUTCOME RUN TS: one per-case trial record on revision r1.
rec() {
	jq -cn --argjson t "$1" --arg c "$2" --arg o "$3" --arg r "$4" --arg ts "$5" \
		'{type:"trial",trial:$t,case:$c,outcome:$o,run:$r,revision:"r1",
		timestamp:$ts,source:"junit"}'
}

# well_formed FILE: python3's html.parser finds every element it opened
# closed, in order (void elements aside); prints the first mismatch.
well_formed() {
	python3 - "$1" <<'PY'
import sys
from html.parser import HTMLParser
VOID = {"meta", "link", "wbr", "br", "img", "input", "hr", "col", "source"}
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.stack = []; s.bad = []
    def handle_starttag(s, t, a):
        if t not in VOID: s.stack.append(t)
    def handle_startendtag(s, t, a):
        pass
    def handle_endtag(s, t):
        if t in VOID: return
        if not s.stack or s.stack[-1] != t:
            s.bad.append("</%s> at line %d, open: %s" % (t, s.getpos()[0], s.stack[-3:]))
            return
        s.stack.pop()
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read()); p.close()
if p.bad or p.stack:
    print("\n".join(p.bad[:5]), "unclosed:", p.stack); sys.exit(1)
PY
}

# three nights, three runs a night, four trials of t::flaky a run: night
# N fails N of its twelve; each run starts at its own hour. Arguments go
# to rt-audit.
nights() {
	local night run i o
	for night in 1 2 3; do
		for run in 1 2 3; do
			for i in 1 2 3 4; do
				o=pass
				[ "$run" = 1 ] && [ "$i" -le "$night" ] && o=fail
				rec "$i" t::flaky "$o" "n$night-r$run" "2026-03-0${night}T0${run}:00:00Z"
			done
		done
	done >"$T/h.jsonl"
	rt-audit -H "$T/a.db" --html "$T/d.html" --json "$T/d.json" "$@" "$T/h.jsonl" \
		>/dev/null 2>&1 || true
}

@test "digest: a sparkline has a point and an interval bar per night, not per run" {
	nights
	jq -e '[.nightly[] | select(.case == "t::flaky") | .nights[] | [.night, .failures, .trials]] ==
	    [["2026-03-01", 1, 12], ["2026-03-02", 2, 12], ["2026-03-03", 3, 12]]' "$T/d.json"
	grep -o '<svg class="spark".*</svg>' "$T/d.html" | head -1 >"$T/svg"
	[ "$(grep -o '<circle class="pt' "$T/svg" | wc -l)" -eq 3 ]
	[ "$(grep -o '<line class="iv"' "$T/svg" | wc -l)" -eq 3 ]
	# each night's count and interval in words, from rt_say
	grep -qF '2026-03-03: 3/12 failed (25.0%, 95% Wilson CI 8.8%–53.3%)' "$T/svg"
	# the y of each point is its night's rate: 1/12 lies below 3/12
	y1=$(grep -o '<circle[^>]*' "$T/svg" | sed -n 1p | sed 's/.*cy="\([0-9.]*\)".*/\1/')
	y3=$(grep -o '<circle[^>]*' "$T/svg" | sed -n 3p | sed 's/.*cy="\([0-9.]*\)".*/\1/')
	awk -v a="$y1" -v b="$y3" 'BEGIN { exit !(a > b) }'
	# --audit N draws the same page from the stored JSON
	rt-audit -H "$T/a.db" --audit 1 --html "$T/a1.html"
	cmp "$T/d.html" "$T/a1.html"
	well_formed "$T/d.html"
}

# cases FILE ID...: a per-case measure record for each ID, FLAKY 4/40
cases() {
	local f=$1 id
	shift
	for id in "$@"; do
		jq -cn --arg c "$id" '{type:"measure",case:$c,trials:40,failures:4,rate:0.1,
		    ci_low:0.039585,ci_high:0.230593,interval:"wilson",confidence:0.95,
		    verdict:"FLAKY"}'
	done >"$f"
}

@test "rt-report --html suite page: IDs break at separators only, verdicts never, no headed one-test sections" {
	cases "$T/one.jsonl" "$LONG"
	rt-report -o "$T/o" --html "$T/one.jsonl" >/dev/null
	h="$T/o/report.html"
	# a <wbr> after every separator, none inside a word
	grep -qF '<code>tests/<wbr>a_very_long_module_name/<wbr>test_something.<wbr>py::<wbr>TestClass::<wbr>test_method_name</code>' "$h"
	[ "$(grep -o '<wbr>' "$h" | wc -l)" -eq 5 ]
	# the verdict sits in a cell the stylesheet keeps on one line
	grep -qF '<td class="verdict"><code>FLAKY</code></td>' "$h"
	grep -q '^\.verdict{white-space:nowrap}' "$RT_TOP/share/retrial/retrial.css"
	! grep -q 'overflow-wrap:anywhere' "$RT_TOP/share/retrial/retrial.css"
	# one test: its row in the table, no section of its own
	[ "$(grep -c '<h2>' "$h")" -eq 2 ]
	grep -q '<h2>How often</h2>' "$h"
	! grep -q '<h2>What is true only when it fails</h2>' "$h"
	! grep -q '<h2>What observation changed</h2>' "$h"
	! grep -q '<h3>' "$h"
	grep -qF "One test's diagnosis needs its own records" "$h"
	well_formed "$h"
	# a whole measure record: the sections are back
	jq -cn '{type:"measure",trials:40,failures:4,rate:0.1,ci_low:0.039585,ci_high:0.230593,
	    interval:"wilson",confidence:0.95,verdict:"FLAKY"}' >>"$T/one.jsonl"
	rt-report -o "$T/o2" --html "$T/one.jsonl" >/dev/null
	grep -q '<h2>What is true only when it fails</h2>' "$T/o2/report.html"
}

@test "rt-report --html suite page: hostile IDs are escaped, their separators still break" {
	cases "$T/bad.jsonl" 'a/<script>alert(1)</script>::x"y' "b.<img src=x onerror=alert(1)>"
	rt-report -o "$T/o" --html "$T/bad.jsonl" >/dev/null
	h="$T/o/report.html"
	! grep -q '<script>' "$h"
	! grep -q '<img' "$h"
	grep -qF '<code>a/<wbr>&lt;script&gt;alert(1)&lt;/<wbr>script&gt;::<wbr>x&quot;y</code>' "$h"
	grep -qF '<code>b.<wbr>&lt;img src=x onerror=alert(1)&gt;</code>' "$h"
	well_formed "$h"
}

@test "the site's pages are well-formed: every element opened is closed" {
	nights --html-dir "$T/site"
	[ "$(ls "$T"/site/t/*.html | wc -l)" -eq 1 ]
	well_formed "$T/site/index.html"
	for p in "$T"/site/t/*.html; do
		well_formed "$p"
	done
	# the checker itself fails an unclosed element
	printf '<!DOCTYPE html><html><body><div><p>x</p></body></html>\n' >"$T/bad.html"
	run well_formed "$T/bad.html"
	[ "$status" -ne 0 ]
}
