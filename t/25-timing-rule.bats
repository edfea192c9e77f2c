#!/usr/bin/env bats
# The timing rule (issue 34, item 4): a failing check on a clock-measured
# value is timing, and its patch widens the bound to 10 times the largest
# measured value the failures print, rounded up to 1, 2 or 5 times a power
# of ten, flagged as loosening a timing check; rt-verify's guard races it
# under changes_checks and it reaches FIXED. Real jest (t/fixtures/fix/
# jstiming, node_modules from t/fixtures/runners/jestproj: make jest-deps)
# and real pytest (t/fixtures/fix/pytiming); each fails when its
# RETRIAL_SEED % 3 == 0, so rt-collect --seed 1 gives both outcomes.
load helper

X="$RT_TOP/t/fixtures/fix"
export PYTHONDONTWRITEBYTECODE=1
PYCMD="/usr/bin/python3 -m pytest -q -p no:randomly -p no:random_order -p no:cacheprovider tests"

# The bound the rule derives from the values in $1 (one per line).
bound() {
	/usr/bin/python3 -c '
import math, sys
x = 10 * max(float(v) for v in sys.stdin.read().split())
e = math.floor(math.log10(x))
print("%.12g" % next(m * 10.0 ** e for m in (1, 2, 5, 10) if m * 10.0 ** e >= x * (1 - 1e-12)))' <"$1"
}

jest_proj() {
	command -v node >/dev/null 2>&1 && [ -x "$RT_TOP/t/fixtures/runners/jestproj/node_modules/.bin/jest" ] ||
		skip "no jest: make jest-deps"
	cp -R "$X/jstiming" "$T/js"
	# a copy, not a link: a sandboxed trial sees no path under the caller's /tmp
	cp -R "$RT_TOP/t/fixtures/runners/jestproj/node_modules" "$T/js/node_modules"
	cd "$T/js"
	J="./node_modules/.bin/jest --ci --cacheDirectory=$T/jcache"
}

@test "jest: rt-collect, rt-diff-facts, rt-diagnose --rules: a performance.now() check is timing, its bound widened from jest's Received values; rt-verify: FIXED, the guard's timing-bound-loosened" {
	jest_proj
	rt-collect -n 9 --seed 1 -o runs.jsonl --cmd "$J" 2>/dev/null
	rt-diff-facts runs.jsonl >facts.jsonl
	jqe '.failures > 0 and .failures < .trials' facts.jsonl
	run rt-diagnose --offline --no-cache --rules facts.jsonl runs.jsonl
	status_is 0
	grep '^{' <<<"$output" >hyps.jsonl
	# the measured values jest printed in the failing runs
	jq -r 'select(.outcome == "fail") | .stderr' runs.jsonl | sed -n 's/^ *Received: *//p' >values
	[ -s values ]
	b=$(bound values)
	jqe -s --arg b "$b" 'length == 1 and .[0].cause_class == "timing" and .[0].status == "ok"
	    and .[0].loosens == {check: "timing", from: "10", to: $b}
	    and .[0].files == ["__tests__/render.test.js"]
	    and (.[0].patch | contains("+\texpect(performance.now() - before).toBeLessThan(" + $b + ");"))
	    and .[0].build.ok' hyps.jsonl
	has "from 10 to $b, 10 times the largest measured value the failures printed"
	has "the largest of $(wc -l <values | tr -d ' ')"
	has "this loosens a timing check"
	# a timing check loosened, not neutered: raced, and it wins
	rt-verify -n 20 -N 30 -j 2 --seed 5 --no-genome \
	    --case "__tests__/render.test.js::render is quick" \
	    --cmd "$J --reporters=default --reporters=jest-junit" hyps.jsonl >out 2>err || true
	tail -n 1 out | jqe --arg b "$b" '.verdict == "FIXED" and .winner.id == "h1"
	    and .winner.changes_checks == true and .baseline.failures > 0
	    and (.winner.checks[0] | .change == "timing-bound-loosened" and .bound.before == "10"
	      and .bound.after == $b and .bound.unit == "ms")'
}

@test "pytest: an assert on a time.perf_counter() difference is timing, its bound widened from pytest's rewritten assertion; rt-verify: FIXED" {
	cp -R "$X/pytiming" "$T/py"
	cd "$T/py"
	rt-collect -n 9 --seed 1 -o runs.jsonl --cmd "$PYCMD" 2>/dev/null
	rt-diff-facts runs.jsonl >facts.jsonl
	jqe '.failures > 0 and .failures < .trials' facts.jsonl
	run rt-diagnose --offline --no-cache --rules facts.jsonl runs.jsonl
	status_is 0
	grep '^{' <<<"$output" >hyps.jsonl
	jq -r 'select(.outcome == "fail") | .stdout' runs.jsonl | sed -n 's/^E *assert \([0-9.e-]*\) < 0.01$/\1/p' >values
	[ -s values ]
	b=$(bound values)
	jqe -s --arg b "$b" 'length == 1 and .[0].cause_class == "timing" and .[0].status == "ok"
	    and .[0].loosens.from == "0.01" and (.[0].loosens.to | tonumber) == ($b | tonumber)
	    and (.[0] as $h | $h.patch | contains("+    assert elapsed < " + $h.loosens.to + "\n"))
	    and (.[0].rests_on | map(.value) | index("perf_counter") != null)' hyps.jsonl
	# the patch applies, and the slow seed's run passes with it
	patch -p1 --batch -s <<<"$(jq -r .patch hyps.jsonl)"
	RETRIAL_SEED=3 $PYCMD >/dev/null
	patch -R -p1 --batch -s <<<"$(jq -r .patch hyps.jsonl)"
	rt-verify -n 20 -N 30 -j 2 --seed 5 --no-genome --cmd "$PYCMD" hyps.jsonl >out 2>err || true
	tail -n 1 out | jqe '.verdict == "FIXED" and .winner.id == "h1" and .winner.changes_checks == true
	    and (.winner.checks[0].change == "timing-bound-loosened")'
}

@test "without measured values the bound is 10 times the old one; a sum's bound is not widened; no site, no patch" {
	# the patched file is parsed by the project's own parser (node_modules)
	jest_proj
	# a diff record whose failing excerpt names the site but prints no value
	jq -nc '{type: "diff", trials: 30, failures: 8, errors: 0, token: null,
	    facts: [{kind: "token", stream: "stderr", value: "toBeLessThan", direction: "failure_only",
	      in_failures: 8, failures: 8, in_successes: 0, successes: 22, p: 1e-6}],
	    excerpts: {failing: {stream: "stderr", excerpt: "expect(received).toBeLessThan(expected)\n\n      at Object.toBeLessThan (__tests__/render.test.js:10:37)\n"}}}' >d.jsonl
	run rt-diagnose --offline --no-cache --rules d.jsonl
	status_is 0
	jqe '.cause_class == "timing" and .loosens.to == "100" and (.explanation | test("10 times the old bound: no failure message printed"))' <<<"$output"
	# the failing check compares a value no clock measures
	sed -i 's/expect(performance.now() - before).toBeLessThan(10)/const n = 3;\n\texpect(n).toBeLessThan(10)/' __tests__/render.test.js
	sed 's/render.test.js:10:37/render.test.js:11:12/' d.jsonl >d2.jsonl
	run rt-diagnose --offline --no-cache --rules d2.jsonl
	status_is 0
	jqe '.cause_class == "timing" and .status == "no_patch" and .patch == null
	    and (.reason | test("render.test.js:11: the compared value \\(n\\) is not read from a clock"))' <<<"$output"
	# no file and line in the failures
	jq -c '.excerpts.failing.excerpt = "expect(received).toBeLessThan(expected)"' d.jsonl >d3.jsonl
	run rt-diagnose --offline --no-cache --rules d3.jsonl
	status_is 0
	jqe '.cause_class == "timing" and .patch == null and (.reason | test("no failure message names"))' <<<"$output"
}
