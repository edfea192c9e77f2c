#!/usr/bin/env bats
# jest and pytest-rerunfailures: retries inside the runner reach retrial.
# Real jest 30 and jest-junit 17 from t/fixtures/runners/jestproj (`make
# jest-deps` installs them; without node_modules these tests skip), real
# Debian pytest with pytest-rerunfailures. t/fixtures/runners/README says
# what each project holds.
load helper

R="$RT_TOP/t/fixtures/runners"
RUNNER_TEST="${RUNNER_TEST:-$BATS_TEST_DIRNAME/runner_test}"
PY=/usr/bin/python3

setup_file() {
	make -s -C "$BATS_TEST_DIRNAME/.." t/runner_test >&2
}

have_jest() {
	command -v node >/dev/null 2>&1 && [ -x "$R/jestproj/node_modules/.bin/jest" ]
}

have_reruns() {
	[ -x "$PY" ] && "$PY" -c 'import pytest, pytest_rerunfailures' 2>/dev/null
}

# one trial record; the warnings on stderr go to $T/err
collect1() {
	rt-collect -n 1 "$@" 2>"$T/err"
}

# the fixture in $T/js, its node_modules shared; jest's cache under $T
jest_proj() {
	have_jest || skip "no jest: make jest-deps"
	mkdir -p "$T/js"
	cp -R "$R/jestproj/__tests__" "$R/jestproj/src.js" "$R/jestproj/package.json" "$T/js/"
	ln -s "$R/jestproj/node_modules" "$T/js/node_modules"
	cd "$T/js"
	J="./node_modules/.bin/jest --ci --cacheDirectory=$T/jcache"
}

# how many of a trial's failed attempts the fixture makes: "checkout charges
# the card" fails the first RETRIAL_SEED % 3 of its attempts
expected_fails() {
	jq -s '[.[] | select(has("case") | not) | (.seed | tonumber) % 3] | add' "$1"
}

@test "rt-junit reads jest --json: one record per attempt under jest.retryTimes, failed attempts as failures" {
	jest_proj
	RETRIAL_SEED=2 $J --json --outputFile="$T/j.json" >/dev/null 2>&1 || true
	run rt-junit "$T/j.json"
	status_is 0
	echo "$output" | jqe -s 'all(.type == "trial" and .source == "jest --json") and
	    (map(select(.case == "__tests__/checkout.test.js::checkout charges the card")) |
	      map([.attempt, .outcome]) == [[1, "fail"], [2, "fail"], [3, "pass"]]) and
	    (map(select(.case == "__tests__/checkout.test.js::checkout prints a receipt")) |
	      length == 1 and .[0].outcome == "pass" and .[0].attempt == 1)'
	# jest keeps no reason without logErrorsBeforeRetry: the record says so
	echo "$output" | jqe -s 'map(select(.case == "__tests__/checkout.test.js::checkout charges the card" and
	    .attempt == 1))[0] | .message == "failed; jest retried it (jest.retryTimes) and kept no reason (logErrorsBeforeRetry keeps one)"'
	# with logErrorsBeforeRetry each failed attempt has its own reason
	echo "$output" | jqe -s 'map(select(.case == "__tests__/payment.test.js::a refund reaches the bank")) |
	    length == 2 and all(.outcome == "fail") and
	    all(.message == "Error: expect(received).toEqual(expected) // deep equality" and .failure_type == "Error") and
	    (.[0].stderr | contains("\"attempt\": 1,")) and (.[1].stderr | contains("\"attempt\": 2,")) and
	    .[0].time_ms == null and (.[1].time_ms | type) == "number"'
	# a test outside any describe: no leading space; describe blocks joined by
	# " " (jest -t's own syntax); every field rt_junit's records have
	echo "$output" | jqe -s '(map(.case) | unique) == [
	      "__tests__/cart.test.js::an empty cart costs nothing",
	      "__tests__/cart.test.js::cart adds prices times quantities",
	      "__tests__/cart.test.js::cart discount HALF halves the sum",
	      "__tests__/cart.test.js::cart discount an unknown code changes nothing",
	      "__tests__/cart.test.js::cart discount two codes do not add up",
	      "__tests__/checkout.test.js::checkout charges the card",
	      "__tests__/checkout.test.js::checkout prints a receipt",
	      "__tests__/orders.test.js::cart adds prices times quantities",
	      "__tests__/orders.test.js::cart keeps an order of one item",
	      "__tests__/payment.test.js::a refund reaches the bank"] and
	    all(has("trial", "case", "outcome", "result", "attempt", "time_ms", "message", "failure_type",
	      "stdout", "stderr", "report", "run", "revision", "timestamp", "position", "suite")) and
	    all(.jest_file == .suite and .case == .jest_file + "::" + .jest_name) and
	    (map(select(.case == "__tests__/cart.test.js::cart discount two codes do not add up")) |
	      length == 1 and .[0].outcome == "skip" and .[0].result == "skipped")'
	# the same test, selected by jest with its own -t: the ID's name part runs it
	$J --json --outputFile="$T/one.json" -t 'cart discount HALF halves the sum' __tests__/cart.test.js >/dev/null 2>&1
	jq -e '[.testResults[].assertionResults[] | select(.status == "passed") | .fullName] == ["cart discount HALF halves the sum"]' "$T/one.json"
}

@test "jest under retryTimes: trials that all pass still count the failed attempts (0/6 becomes real)" {
	jest_proj
	rt-collect -n 6 --seed 5 --junit --cmd "$J --json --outputFile=\"\$RETRIAL_JUNIT\" __tests__/checkout.test.js" \
		>"$T/c.jsonl" 2>"$T/err"
	want=$(expected_fails "$T/c.jsonl")
	[ "$want" -gt 0 ]
	# the command passed every time: exit status alone says 0 of 6
	jq -s 'map(select(has("case") | not))' "$T/c.jsonl" | jqe 'length == 6 and all(.outcome == "pass")'
	rt-measure <"$T/c.jsonl" 2>/dev/null | jqe '.failures == 0 and .trials == 6'
	# per case, each failed attempt is a failure
	rt-measure --by case <"$T/c.jsonl" >"$T/m.jsonl"
	jq -s --argjson w "$want" 'map(select(.case == "__tests__/checkout.test.js::checkout charges the card"))[0] |
	    .failures == $w and .trials == 6 + $w and .verdict != "STABLE"' "$T/m.jsonl" | grep -qx true
	jq -s 'map(select(.case == "__tests__/checkout.test.js::checkout prints a receipt"))[0] |
	    .failures == 0 and .trials == 6' "$T/m.jsonl" | grep -qx true
}

@test "jest: a test file with a syntax error is one error record, and the trial an error" {
	jest_proj
	printf "test('x', () => {\n\texpect(1).toBe(1)\n\nconst = ;\n" > __tests__/broken.test.js
	$J --json --outputFile="$T/b.json" >/dev/null 2>&1 || true
	run rt-junit "$T/b.json"
	status_is 0
	echo "$output" | jqe -s 'map(select(.case == "__tests__/broken.test.js"))[0] | .outcome == "error" and
	    .result == "error" and .message == "Test suite failed to run: Jest encountered an unexpected token" and
	    (.stderr | contains("SyntaxError"))'
	# the other files' tests are still there
	echo "$output" | jqe -s 'map(select(.case == "__tests__/cart.test.js::cart adds prices times quantities")) | length == 1'
	run collect1 --cmd "$J __tests__/broken.test.js"
	echo "$output" | jqe '.outcome == "error" and .runner == "jest" and .exit_code == 1 and
	    .error == "jest: a test suite failed to run: FAIL __tests__/broken.test.js: Jest encountered an unexpected token"'
	# with a real failure in another file, the trial is that failure
	run collect1 --cmd "RETRIAL_SEED=2 $J"
	echo "$output" | jqe '.outcome == "fail" and (.error == null)'
}

@test "jest: no tests found, a -t that selects nothing, a missing jest: did-not-run errors with jest's words" {
	jest_proj
	run collect1 --cmd "$J nosuchfile"
	echo "$output" | jqe '.outcome == "error" and .exit_code == 1 and
	    .error == "jest found no tests: No tests found, exiting with code 1"'
	run collect1 --cmd "$J --passWithNoTests nosuchfile"
	echo "$output" | jqe '.outcome == "error" and .exit_code == 0 and
	    .error == "jest found no tests: No tests found, exiting with code 0"'
	run collect1 --cmd "$J -t 'no such test'"
	echo "$output" | jqe '.outcome == "error" and .exit_code == 0 and
	    (.error | startswith("jest ran no tests (every one skipped): Tests:"))'
	# a real failure is not "did not run"
	run collect1 --cmd "RETRIAL_SEED=2 $J __tests__/payment.test.js"
	echo "$output" | jqe '.outcome == "fail" and .exit_code == 1 and .error == null'
	rm node_modules
	run collect1 --cmd "./node_modules/.bin/jest --ci"
	echo "$output" | jqe '.outcome == "error" and .exit_code == 127 and .runner == "jest" and
	    (.error | startswith("jest could not start: sh: 1: ./node_modules/.bin/jest: not found"))'
	rt-measure -n 5 --cmd "./node_modules/.bin/jest --ci" 2>/dev/null | jqe '.verdict == "ERROR" and .failures == 0'
	# npx without the package (captured: npx would ask the registry, so not run here)
	printf 'npm error npx canceled due to missing packages and no YES option: ["jest@30.5.2"]\n' >"$T/npx.err"
	: >"$T/npx.out"
	run "$RUNNER_TEST" not-run jest 1 "$T/npx.out" "$T/npx.err"
	status_is 0
	has "jest could not start: npm error npx canceled due to missing packages"
}

@test "rt-junit: jest --json pretty-printed is read the same; cut short it is an error naming the place" {
	jest_proj
	RETRIAL_SEED=2 $J --json --outputFile="$T/j.json" >/dev/null 2>&1 || true
	rt-junit --run r "$T/j.json" | jq -c 'del(.report)' >"$T/a"
	jq . "$T/j.json" >"$T/pretty.json"
	rt-junit --run r "$T/pretty.json" | jq -c 'del(.report)' >"$T/b"
	diff "$T/a" "$T/b"
	head -c 2000 "$T/j.json" >"$T/cut.json"
	run rt-junit "$T/cut.json"
	status_is 2
	has "rt-junit: $T/cut.json:1:2000: jest --json report: premature end of input"
	# JSON that is neither says what it looked for
	printf '{"testResults":{}}\n' >"$T/odd.json"
	run rt-junit "$T/odd.json"
	status_is 2
	has "rt-junit: $T/odd.json:1: neither JUnit XML (no \"<\"), go test -json (no {\"Action\":...} line), jest --json (no \"testResults\"), mocha --reporter json (no \"stats\") nor rspec --format json (no \"examples\")"
	# go test -json is still go test -json
	run rt-junit "$R/go-test.json"
	status_is 0
	echo "$output" | jqe -s 'length > 0 and all(.source == "go test -json")'
}

@test "rt-junit: the captured jest --json fixture, and a report past 256 MiB is refused naming the file" {
	# the fixture's paths are /tmp/jp/...: from /tmp/jp they would be relative
	run rt-junit "$R/jest.json"
	status_is 0
	echo "$output" | jqe -s 'length == 10 and
	    (map(select(.case == "/tmp/jp/__tests__/checkout.test.js::checkout charges the card")) | map(.outcome) ==
	      ["fail", "fail", "pass"])'
	mkfifo "$T/big.json"
	{ printf '{"testResults":['; head -c 270000000 /dev/zero | tr '\0' ' '; printf ']}\n'; } >"$T/big.json" 2>/dev/null &
	run rt-junit "$T/big.json"
	wait || true
	status_is 2
	has "rt-junit: $T/big.json:1: larger than 256 MiB, the most retrial reads of one JSON report document"
}

@test "jest-junit's real shapes: the canonical ID is FILE::full name, never with the leading space" {
	# the attributes as jest-junit 17 wrote them (t/fixtures/runners/jest-junit*.xml)
	grep -q 'classname=" an empty cart costs nothing" name=" an empty cart costs nothing" time="[0-9.]*" file="__tests__/cart.test.js"' "$R/jest-junit.xml"
	run "$RUNNER_TEST" junit-id undefined " an empty cart costs nothing" " an empty cart costs nothing" __tests__/cart.test.js
	[ "$output" = "__tests__/cart.test.js::an empty cart costs nothing" ]
	run "$RUNNER_TEST" junit-id undefined "cart discount HALF halves the sum" "cart discount HALF halves the sum" __tests__/cart.test.js
	[ "$output" = "__tests__/cart.test.js::cart discount HALF halves the sum" ]
	# no file attribute (jest-junit's default): the full name alone
	run "$RUNNER_TEST" junit-id undefined " an empty cart costs nothing" " an empty cart costs nothing"
	[ "$output" = "an empty cart costs nothing" ]
	# classNameTemplate "{classname}", titleTemplate "{title}": split, and put together again
	grep -q 'classname="cart discount" name="HALF halves the sum"' "$R/jest-junit-split.xml"
	grep -q 'classname="" name="an empty cart costs nothing"' "$R/jest-junit-split.xml"
	run "$RUNNER_TEST" junit-id checkout "cart discount" "HALF halves the sum" __tests__/cart.test.js
	[ "$output" = "__tests__/cart.test.js::cart discount HALF halves the sum" ]
	run "$RUNNER_TEST" junit-id checkout "" "an empty cart costs nothing" __tests__/cart.test.js
	[ "$output" = "__tests__/cart.test.js::an empty cart costs nothing" ]
	# the same IDs as the jest --json reader gives, when run from the project
	if have_jest; then
		jest_proj
		$J --json --outputFile="$T/j.json" __tests__/cart.test.js >/dev/null 2>&1
		rt-junit "$T/j.json" | jqe -s 'map(.case) | index("__tests__/cart.test.js::an empty cart costs nothing") != null and
		    index("__tests__/cart.test.js::cart discount HALF halves the sum") != null'
	fi
}

@test "jest-junit in its default configuration: the IDs of jest --json, two files with one title stay two, a quarantine from one gates the other" {
	jest_proj
	# jest-junit as configured by nothing but --reporters: no file anywhere
	RETRIAL_SEED=2 JEST_JUNIT_OUTPUT_FILE="$T/d.xml" $J --reporters=default --reporters=jest-junit >/dev/null 2>&1 || true
	grep -q '<testsuites name="jest tests"' "$T/d.xml"
	! grep -q 'file=' "$T/d.xml"
	[ "$(grep -c 'name="cart adds prices times quantities"' "$T/d.xml")" = 2 ]
	RETRIAL_SEED=2 $J --json --outputFile="$T/j.json" >/dev/null 2>&1 || true
	rt-junit "$T/d.xml" 2>"$T/err" | jq -r .case | sort -u >"$T/ids.xml"
	[ ! -s "$T/err" ]
	rt-junit "$T/j.json" | jq -r .case | sort -u >"$T/ids.json"
	diff "$T/ids.json" "$T/ids.xml"
	grep -qx "__tests__/cart.test.js::cart adds prices times quantities" "$T/ids.xml"
	grep -qx "__tests__/orders.test.js::cart adds prices times quantities" "$T/ids.xml"
	grep -qx "__tests__/cart.test.js::an empty cart costs nothing" "$T/ids.xml"
	# rt-collect --case writes the file attribute itself: the same ID again
	id="__tests__/orders.test.js::cart adds prices times quantities"
	rt-collect -n 1 --case "$id" --cmd "$J --reporters=default --reporters=jest-junit" >"$T/c" 2>/dev/null
	jqe -s --arg id "$id" 'map(select(.case_judged == $id)) | length == 1 and .[0].outcome == "pass"' "$T/c"
	# the list written from jest --json's ID gates the default report
	rt-quarantine -f "$T/q" add "__tests__/payment.test.js::a refund reaches the bank" --owner @pay
	run rt-quarantine -f "$T/q" gate "$T/d.xml"
	status_is 0
	has "quarantined, failed: __tests__/payment.test.js::a refund reaches the bank"
	# a test file the tree does not hold: one warning naming the option
	sed 's/keeps an order of one item/was renamed/' "$T/d.xml" >"$T/gone.xml"
	run rt-junit "$T/gone.xml"
	status_is 0
	has "no test file under . holds the tests of this suite (\"cart adds prices times quantities\"...): set JEST_JUNIT_ADD_FILE_ATTRIBUTE=true (addFileAttribute in jest-junit's config)"
}

@test "jest --reporters that swallows the test path runs no test: did not run with jest's message, never ALWAYS_FAILING" {
	jest_proj
	c="$J --ci --reporters=default --reporters=jest-junit __tests__/cart.test.js"
	run collect1 --cmd "$c"
	status_is 0
	echo "$output" | jqe '.outcome == "error" and .runner == "jest" and .exit_code == 1 and
	    .error == "jest ran no test: Error: Could not resolve a module for a custom reporter. Module name: __tests__/cart.test.js"'
	rt-measure -n 3 --cmd "$c" 2>/dev/null | jqe '.verdict == "ERROR" and .failures == 0 and .errors == 3'
	# a configuration jest refuses
	printf 'module.exports = { testEnvironment: "node", transform: 5 };\n' >bad.config.js
	run collect1 --cmd "$J --config bad.config.js"
	echo "$output" | jqe '.outcome == "error" and (.error | startswith("jest ran no test: Validation Error: Option \"transform\" must be of type:"))'
	# a real failure under jest-junit alone (no summary printed) is still a failure
	run collect1 --cmd "RETRIAL_SEED=2 $J --reporters=jest-junit"
	echo "$output" | jqe '.outcome == "fail" and .error == null'
}

@test "pytest-rerunfailures: its reruns are not in pytest's JUnit XML, so every trial tool warns" {
	have_reruns || skip "no Debian pytest-rerunfailures"
	mkdir -p "$T/rr" && cd "$T/rr"
	cat > test_gateway.py <<'PY'
import os
import pathlib

CALLS = pathlib.Path(os.environ["CALLS"])


def call():
    n = int(CALLS.read_text()) if CALLS.exists() else 0
    CALLS.write_text(str(n + 1))
    return n + 1


def test_gateway_answers():
    # fails its first two calls in a process's life, then passes
    assert call() > 2


def test_receipt():
    assert "receipt #1".startswith("receipt")
PY
	PYT="PYTHONDONTWRITEBYTECODE=1 $PY -m pytest -q -p no:cacheprovider -p no:random_order"
	CALLS="$T/rr/calls" rt-collect -n 1 --junit --cmd "rm -f \"\$CALLS\"; $PYT --reruns 2 --junitxml=\"\$RETRIAL_JUNIT\" test_gateway.py" \
		>"$T/c.jsonl" 2>"$T/err" || true
	export CALLS="$T/rr/calls"
	# what the plugin did: two reruns of test_gateway_answers, shown only as "R"
	rm -f calls
	run sh -c "$PYT --reruns 2 test_gateway.py"
	has "2 passed, 2 rerun"
	[ "$(cat calls)" = 3 ]
	# the JUnit XML holds one clean pass: the reruns are invisible
	rm -f calls
	sh -c "$PYT --reruns 2 --junitxml=$T/rr.xml test_gateway.py" >/dev/null
	[ "$(grep -o '<testcase ' "$T/rr.xml" | wc -l)" = 2 ]
	! grep -qi 'rerun\|failure' "$T/rr.xml"
	jq -s 'map(select(.case and (.case | contains("test_gateway_answers"))))' "$T/c.jsonl" |
	    jqe 'length == 1 and .[0].outcome == "pass" and .[0].attempt == 1'
	# so the tools say it, once, before the trials
	grep -qx "rt-collect: pytest-rerunfailures reruns failed tests (--reruns 2): a rerun that passes hides a failure, and retrial counts only the final outcome; drop --reruns to measure the real rate" "$T/err"
	run rt-measure -n 1 --cmd "rm -f calls; $PYT --reruns=2 test_gateway.py"
	has "rt-measure: pytest-rerunfailures reruns failed tests (--reruns 2)"
	run rt-measure -n 1 --cmd "rm -f calls; PYTEST_ADDOPTS='--reruns 3' $PYT test_gateway.py"
	has "(--reruns 3)"
	PYTEST_ADDOPTS="--reruns 1" run sh -c 'echo test_x.py::test_y | rt-retry --runner pytest --cmd true' 
	has "rt-retry: pytest-rerunfailures reruns failed tests (--reruns 1 in \$PYTEST_ADDOPTS)"
	# without --reruns the failure is there, and nothing is said
	run rt-measure -n 1 --cmd "rm -f calls; $PYT test_gateway.py"
	hasnt "rerunfailures"
	has '"failures":1'
	run rt-measure -n 1 --cmd "rm -f calls; $PYT --reruns 0 test_gateway.py"
	hasnt "rerunfailures"
}

@test "vitest --retry is named the same way; jest's retries are in the source, not the command" {
	run "$RUNNER_TEST" retries "npx vitest run --retry 2"
	status_is 0
	has "vitest retries failed tests (--retry 2)"
	run "$RUNNER_TEST" retries "npx vitest run --retry=0"
	status_is 1
	# --retry is not pytest's, nor jest's
	run "$RUNNER_TEST" retries "python3 -m pytest --retry 2"
	status_is 1
	run "$RUNNER_TEST" retries "npx jest --ci"
	status_is 1
}

@test "rt-collect --case on jest: a configured jest-junit reporter writes where retrial says; without one the error says how" {
	jest_proj
	id="__tests__/cart.test.js::cart discount HALF halves the sum"
	rt-collect -n 2 --case "$id" --cmd "$J __tests__/cart.test.js --reporters=default --reporters=jest-junit" >"$T/out" 2>"$T/err"
	jq -e -s --arg id "$id" '[.[] | select(.case_judged == $id)] | length == 2 and all(.outcome == "pass" and .runner == "jest")' "$T/out"
	# jest-junit wrote into retrial's private directory, not ./junit.xml
	[ ! -e junit.xml ]
	# the reporter not configured: an error naming what to do, never a pass or a failure
	rt-collect -n 1 --case "$id" --cmd "$J __tests__/cart.test.js" >"$T/out" 2>"$T/err" || true
	jq -e -s '.[0].outcome == "error" and (.[0].error | test("jest wrote none; configure the jest-junit reporter .*JEST_JUNIT_OUTPUT_FILE.* or pass --json --outputFile="))' "$T/out"
}

@test "jest end to end: rt-verify --case disqualifies toEqual -> toBeDefined by the parser, the maintainers' fix wins, the canary is live in the judged test" {
	have_jest || skip "no jest: make jest-deps"
	G="$BATS_TEST_DIRNAME/guard_test"
	make -s -C "$BATS_TEST_DIRNAME/.." t/guard_test >&2
	FXJ="$RT_TOP/t/fixtures/guard/jestcase"
	mkdir -p "$T/jv"
	cp -R "$FXJ/__tests__" "$FXJ/src" "$FXJ/package.json" "$T/jv/"
	# a copy, not a link: the sandbox's /tmp is its own, and a clone of
	# retrial may live under /tmp
	cp -R "$R/jestproj/node_modules" "$T/jv/node_modules"
	# the canary alone: the judged test's expect inverted, a negated one restored
	cp -R "$T/jv" "$T/c1"
	run "$G" canary "$T/c1" -k "__tests__/quote.test.js::quote prices each item in order"
	has "placed: __tests__/quote.test.js:5: expect(await quote(['apple', 'bread'])).toEqual([3, 2])"
	grep -q "expect(await quote(\['apple', 'bread'\])).not.toEqual(\[3, 2\]);" "$T/c1/__tests__/quote.test.js"
	cp -R "$T/jv" "$T/c2"
	run "$G" canary "$T/c2" -k "__tests__/quote.test.js::quote a basket of one is not empty"
	has "placed: __tests__/quote.test.js:13:"
	grep -q "expect(await quote(\['milk'\])).toHaveLength(0);" "$T/c2/__tests__/quote.test.js"
	cp -R "$T/jv" "$T/c3"
	run "$G" canary "$T/c3" -k "__tests__/quote.test.js::quote no such test"
	has "not placed: case __tests__/quote.test.js::quote no such test: no such test in this tree"
	# the tournament, the neutering patch listed first
	for p in jest-weaken jest-realfix; do
		jq -Rsc --arg id "$p" '{type: "hypothesis", id: $id, source: "rules", status: "ok",
			cause_class: "concurrency", explanation: $id, patch: .}' "$FXJ/patches/$p.patch"
	done >"$T/h.jsonl"
	cd "$T/jv"
	rt-verify -n 30 -N 40 -j 2 --seed 42 --no-genome \
		--case "__tests__/quote.test.js::quote prices each item in order" \
		--cmd "./node_modules/.bin/jest --ci --cacheDirectory=.jcache __tests__/quote.test.js --reporters=default --reporters=jest-junit" \
		"$T/h.jsonl" >"$T/out" 2>"$T/err" || true
	tail -n 1 "$T/out" | jqe '.verdict == "FIXED" and .winner.id == "jest-realfix" and .case == "__tests__/quote.test.js::quote prices each item in order"'
	tail -n 1 "$T/out" | jqe '.lanes[] | select(.id == "jest-weaken") | .status == "neutered" and .rule == "assertion-weakened" and
	    (.reason | test("__tests__/quote.test.js:5 `expect.*toEqual.*` became __tests__/quote.test.js:5 `expect.*toBeDefined\\(\\)`"))'
	tail -n 1 "$T/out" | jqe '.lanes[] | select(.id == "jest-realfix") | .canary.verdict == "live" and
	    (.canary.at | startswith("__tests__/quote.test.js:5: ")) and (.guard | startswith("no test file") or startswith("@babel/parser"))'
}

@test "jest end to end: widening a performance.now() bound is the fix that wins, flagged as a loosened timing bound in the verdict and the dossier; widening a sum's bound is neutered" {
	have_jest || skip "no jest: make jest-deps"
	FXJ="$RT_TOP/t/fixtures/guard/jesttiming"
	mkdir -p "$T/jt"
	cp -R "$FXJ/__tests__" "$FXJ/src" "$FXJ/package.json" "$T/jt/"
	cp -R "$R/jestproj/node_modules" "$T/jt/node_modules"
	for p in jest-sum-neuter jest-timing-fix; do
		jq -Rsc --arg id "$p" '{type: "hypothesis", id: $id, source: "rules", status: "ok",
			cause_class: "timing", explanation: $id, patch: .}' "$FXJ/patches/$p.patch"
	done >"$T/h.jsonl"
	cd "$T/jt"
	rt-verify -n 30 -N 40 -j 2 --seed 42 --no-genome \
		--case "__tests__/settle.test.js::settle waits 1000 ms of fake time and little real time" \
		--cmd "./node_modules/.bin/jest --ci --cacheDirectory=.jcache __tests__/settle.test.js --reporters=default --reporters=jest-junit" \
		"$T/h.jsonl" >"$T/out" 2>"$T/err" || true
	tail -n 1 "$T/out" | jqe '.verdict == "FIXED" and .winner.id == "jest-timing-fix" and .winner.changes_checks == true and
	    (.winner.checks[0] | .change == "timing-bound-loosened" and .bound.before == "10" and .bound.after == "1000" and
	    .bound.words == "loosens a timing bound from 10 ms to 1000 ms")'
	tail -n 1 "$T/out" | jqe '.lanes[] | select(.id == "jest-sum-neuter") | .status == "neutered" and .rule == "expected-value-changed"'
	tail -n 1 "$T/out" | jqe '.lanes[] | select(.id == "jest-timing-fix") | .canary.verdict == "live" and (.guard | startswith("@babel/parser"))'
	tail -n 1 "$T/out" >"$T/v.jsonl"
	mkdir -p "$T/repo" && cp -R "$FXJ/__tests__" "$FXJ/src" "$FXJ/package.json" "$T/repo/"
	git -C "$T/repo" init -q && git -C "$T/repo" add -A &&
		git -C "$T/repo" -c user.name=t -c user.email=t@t commit -qm init
	rt-pr -C "$T/repo" --mbox "$T/fix.mbox" --body "$T/d.md" "$T/v.jsonl"
	grep -q "^## The change loosens a timing bound" "$T/d.md"
	grep -q '^- loosens a timing bound from 10 ms to 1000 ms in settle waits 1000 ms' "$T/d.md"
	! grep -q "^## The change edits the test's own checks" "$T/d.md"
}
