#!/usr/bin/env bats
# mocha as a runner (lib/runner/mocha.c): its commands, its test IDs
# (FILE::full title) from --reporter json, the judged test under --case,
# its retries, and what "did not run" means to it. Real mocha 12 from
# t/fixtures/runners/mochaproj (`make jest-deps` installs it; without
# node_modules these tests skip); t/fixtures/runners/README says what the
# project holds.
load helper

R="$RT_TOP/t/fixtures/runners"
RUNNER_TEST="${RUNNER_TEST:-$BATS_TEST_DIRNAME/runner_test}"
M=./node_modules/.bin/mocha
FLAKY="test/a.spec.js::suite flaky thing"
BROKEN="test/a.spec.js::suite always broken"
REFUND="test/b.spec.js::payment refund reaches the bank"

setup_file() {
	make -s -C "$BATS_TEST_DIRNAME/.." t/runner_test >&2
}

have_mocha() {
	command -v node >/dev/null 2>&1 && [ -x "$R/mochaproj/node_modules/.bin/mocha" ]
}

# the fixture in $T/js, its node_modules shared
mocha_proj() {
	have_mocha || skip "no mocha: make jest-deps"
	mkdir -p "$T/js"
	cp -R "$R/mochaproj/test" "$R/mochaproj/src.js" "$R/mochaproj/package.json" "$T/js/"
	ln -s "$R/mochaproj/node_modules" "$T/js/node_modules"
	cd "$T/js"
}

# one trial record; the warnings on stderr go to $T/err
collect1() {
	rt-collect -n 1 "$@" 2>"$T/err"
}

@test "mocha's commands: mocha, _mocha, npx mocha, node .../mocha/bin/mocha.js are mocha; npm test is not" {
	mocha_proj
	for cmd in "$M test/b.spec.js" "npx --no-install mocha test/b.spec.js" \
	    "node node_modules/mocha/bin/mocha.js test/b.spec.js" "env CI=1 $M test/b.spec.js"; do
		run collect1 --cmd "$cmd"
		echo "$output" | jqe '.runner == "mocha" and .outcome == "pass"'
	done
	# mocha 12 has no _mocha: the runner is named, and it could not start
	run collect1 --cmd "./node_modules/.bin/_mocha test/b.spec.js"
	echo "$output" | jqe '.runner == "mocha" and .outcome == "error" and .exit_code == 127 and
	    .error == "mocha could not start: sh: 1: ./node_modules/.bin/_mocha: not found"'
	run collect1 --cmd "npm test --silent -- test/b.spec.js"
	echo "$output" | jqe '.runner == "generic" and .outcome == "pass"'
	run collect1 --runner mocha --cmd "npm test --silent -- test/b.spec.js"
	echo "$output" | jqe '.runner == "mocha"'
}

@test "rt-junit reads mocha --reporter json: FILE::full title, one title in two files stays two, retries as attempts" {
	mocha_proj
	RETRIAL_TRIAL=1 RETRIAL_SEED=2 $M --reporter json --reporter-option output="$T/m.json" >/dev/null 2>&1 || true
	run rt-junit "$T/m.json"
	status_is 0
	echo "$output" | jqe -s '(map(.case) | unique) == [
	      "test/a.spec.js::common has one title",
	      "test/a.spec.js::suite adds prices",
	      "test/a.spec.js::suite always broken",
	      "test/a.spec.js::suite discount HALF halves the sum",
	      "test/a.spec.js::suite discount two codes do not add up",
	      "test/a.spec.js::suite flaky thing",
	      "test/b.spec.js::common has one title",
	      "test/b.spec.js::payment charges the card",
	      "test/b.spec.js::payment refund reaches the bank"] and
	    all(.type == "trial" and .source == "mocha --reporter json" and .suite == (.case | split("::")[0])) and
	    all(has("trial", "case", "outcome", "result", "attempt", "time_ms", "message", "failure_type",
	      "stdout", "stderr", "report", "run", "revision", "timestamp", "position", "suite"))'
	# the flaky test's own failure, mocha's error class and message
	echo "$output" | jqe -s --arg id "$FLAKY" 'map(select(.case == $id)) | length == 1 and
	    .[0].outcome == "fail" and .[0].failure_type == "AssertionError" and
	    .[0].message == "AssertionError: trial 1: the second write was lost" and
	    (.[0].stderr | contains("test/a.spec.js:15"))'
	echo "$output" | jqe -s 'map(select(.case == "test/a.spec.js::suite discount two codes do not add up")) |
	    length == 1 and .[0].outcome == "skip" and .[0].result == "skipped"'
	# this.retries(2) with seed 2: two failed attempts, then the pass
	echo "$output" | jqe -s --arg id "$REFUND" 'map(select(.case == $id)) | map([.attempt, .outcome]) ==
	    [[1, "fail"], [2, "fail"], [3, "pass"]] and
	    (.[0].message | startswith("failed; mocha retried it"))'
	# the ID's full title selects exactly that test: --grep, anchored, in its file
	$M --reporter json --grep '^common has one title$' test/b.spec.js >"$T/one.json"
	jq -e '[.tests[] | .fullTitle] == ["common has one title"] and (.tests[0].file | endswith("test/b.spec.js"))' "$T/one.json"
}

@test "rt-collect --case on mocha: the flaky test FLAKY 2/6 by its own outcome; the always-failing one does not count" {
	mocha_proj
	# retrial asks mocha for its JSON report (MOCHA_OPTIONS); the command names none
	rt-collect -n 6 --case "$FLAKY" --cmd "$M" >"$T/c.jsonl" 2>"$T/err"
	jq -s --arg id "$FLAKY" --arg b "$BROKEN" 'map(select(has("case") | not)) | length == 6 and
	    all(.runner == "mocha" and .case_judged == $id and .exit_outcome == "fail" and
	      (.others_failed | index($b)) != null) and
	    (map(select(.outcome == "fail") | .trial) == [1, 4]) and
	    (map(select(.outcome == "pass") | .trial) == [2, 3, 5, 6])' "$T/c.jsonl" | grep -qx true
	rt-measure --case "$FLAKY" "$T/c.jsonl" | jqe '.verdict == "FLAKY" and .failures == 2 and .trials == 6 and .errors == 0'
	# rt-measure runs the trials itself the same way
	rt-measure -n 3 --case "$BROKEN" --cmd "$M test/a.spec.js" 2>/dev/null |
	    jqe '.failures == 3 and .trials == 3 and .verdict != "STABLE" and .verdict != "FLAKY"'
	# the report went to retrial's private directory, nothing in the project
	[ -z "$(find . -name '*.json' -newer package.json -not -path './node_modules/*')" ]
	# one title in two files: each judged by its own file's test
	run collect1 --case "test/b.spec.js::common has one title" --cmd "$M test/a.spec.js test/b.spec.js"
	echo "$output" | jq -c 'select(.case == null)' | jqe '.outcome == "pass" and .exit_outcome == "fail"'
}

@test "rt-collect --case on mocha: a command with its own --reporter writes \$RETRIAL_JUNIT itself, else the error says how" {
	mocha_proj
	rt-collect -n 2 --case "$FLAKY" --cmd "$M --reporter json --reporter-option output=\"\$RETRIAL_JUNIT\" test/a.spec.js" \
		>"$T/c.jsonl" 2>"$T/err"
	jq -s 'map(select(has("case") | not)) | map(.outcome) == ["fail", "pass"]' "$T/c.jsonl" | grep -qx true
	# its own reporter and no report where retrial reads: an error, never a pass
	rt-collect -n 1 --case "$FLAKY" --cmd "$M --reporter dot test/a.spec.js" >"$T/c.jsonl" 2>"$T/err" || true
	jq -e -s '.[0].outcome == "error" and (.[0].error | test("no JUnit report at .RETRIAL_JUNIT.*mocha wrote none; .*--reporter json --reporter-option output="))' "$T/c.jsonl"
}

@test "mocha's retries: --retries is warned of; under --case each retried attempt counts" {
	mocha_proj
	run "$RUNNER_TEST" retries "npx mocha --retries 2 test/"
	status_is 0
	has "mocha retries failed tests (--retries 2): a retry that passes hides a failure"
	run "$RUNNER_TEST" retries "npx mocha --retries=0"
	status_is 1
	run collect1 --cmd "$M --retries 1 test/b.spec.js"
	grep -q "rt-collect: mocha retries failed tests (--retries 1)" "$T/err"
	# this.retries(2) in the source: the command passes, the attempts say how often it failed
	rt-collect -n 6 --seed 11 --case "$REFUND" --cmd "$M test/b.spec.js" >"$T/c.jsonl" 2>/dev/null
	want=$(jq -s '[.[] | select(has("case") | not) | (.seed | tonumber) % 3] | add' "$T/c.jsonl")
	[ "$want" -gt 0 ]
	jq -s 'map(select(has("case") | not)) | length == 6 and all(.outcome == "pass" and .exit_outcome == "pass")' "$T/c.jsonl" | grep -qx true
	rt-measure --by case "$T/c.jsonl" | jq -s --arg id "$REFUND" --argjson w "$want" \
	    'map(select(.case == $id))[0] | .failures == $w and .trials == 6 + $w and .verdict != "STABLE"' | grep -qx true
}

@test "mocha did not run: no test files, a missing file, a file that does not load, --grep matching nothing, no mocha" {
	mocha_proj
	run collect1 --cmd "$M test/gone.spec.js"
	echo "$output" | jqe '.outcome == "error" and .runner == "mocha" and
	    .error == "mocha found no test files: Error: No test files found: \"test/gone.spec.js\""'
	# in colour (CI=true, FORCE_COLOR): the same words, the colours dropped
	FORCE_COLOR=1 run collect1 --cmd "$M test/gone.spec.js"
	echo "$output" | jqe '.outcome == "error" and
	    .error == "mocha found no test files: Error: No test files found: \"test/gone.spec.js\""'
	run collect1 --cmd "$M test/a.spec.js test/gone.spec.js"
	echo "$output" | jqe '.outcome == "error" and
	    .error == "mocha: a file the command names is not there: Warning: Cannot find any files matching pattern \"test/gone.spec.js\""'
	printf "describe('x', () => {\n\tit('y', () => {})\n\nconst = ;\n" >test/broken.spec.js
	run collect1 --cmd "$M test/broken.spec.js test/b.spec.js"
	echo "$output" | jqe '.outcome == "error" and (.error | startswith("mocha: a test file failed to load: Exception during run: ")) and
	    (.error | endswith("test/broken.spec.js:4: SyntaxError: Unexpected token '"'='"'"))'
	rm test/broken.spec.js
	printf "require('./nope');\nit('z', () => {});\n" >test/req.spec.js
	run collect1 --cmd "$M test/req.spec.js"
	echo "$output" | jqe '.error == "mocha: a test file failed to load: Exception during run: Error: Cannot find module '"'./nope'"'"'
	rm test/req.spec.js
	run collect1 --cmd "$M --grep 'no such test' test/"
	echo "$output" | jqe '.outcome == "error" and .exit_code == 0 and (.error | startswith("mocha ran no tests: 0 passing"))'
	run collect1 --cmd "$T/nowhere/mocha test/"
	echo "$output" | jqe '.outcome == "error" and .exit_code == 127 and (.error | startswith("mocha could not start: "))'
	# under --case too: errors, never failures
	rt-measure -n 2 --case "$FLAKY" --cmd "$M test/gone.spec.js" 2>/dev/null | jqe '.verdict == "ERROR" and .errors == 2 and .failures == 0'
}

@test "rt_runner_selections: mocha's spec files, never its options' values" {
	run "$RUNNER_TEST" select "npx mocha --grep 'suite flaky' -R spec --timeout 500 test/a.spec.js --spec test/b.spec.js --spec=test/c.spec.js -r ts-node/register"
	status_is 0
	[ "$output" = "0 mocha path test/a.spec.js
0 mocha path test/b.spec.js
0 mocha path test/c.spec.js" ]
}

@test "rt-junit reads a captured mocha report (no mocha needed): absolute files outside the current directory stay absolute" {
	cd "$T"
	run rt-junit "$R/mocha.json"
	status_is 0
	echo "$output" | jqe -s 'length == 11 and
	    (map(select(.outcome == "fail")) | map(.case) | unique) == ["/tmp/mj/test/a.spec.js::suite always broken",
	      "/tmp/mj/test/a.spec.js::suite flaky thing", "/tmp/mj/test/b.spec.js::payment refund reaches the bank"] and
	    all(.timestamp == "2026-12-05T11:56:42.061Z" and (.run | endswith("mocha.json@2026-12-05T11:56:42.061Z")))'
}

# a project whose polluter (b_setter, in a nested suite) mocha runs after
# its victim (a_flag), the victim's suite holding an innocent test
mocha_order_proj() {
	have_mocha || skip "no mocha: make jest-deps"
	mkdir -p "$T/mo/test" && cd "$T/mo"
	ln -s "$R/mochaproj/node_modules" node_modules
	cat >test/a_flag.spec.js <<'JS'
'use strict';
const assert = require('node:assert');
describe('flag', function () {
	it('is off at first', function () {
		assert.strictEqual(global.retrialFlag, undefined);
	});
	it('reads the default', function () {
		assert.strictEqual(1 + 1, 2);
	});
});
JS
	cat >test/b_setter.spec.js <<'JS'
'use strict';
describe('setter', function () {
	it('adds', function () {});
	describe('inner', function () {
		it('turns the flag on', function () {
			global.retrialFlag = true;
		});
	});
});
JS
	printf '%s\n' 'test/a_flag.spec.js::flag reads the default' 'test/b_setter.spec.js::setter adds' \
	    'test/b_setter.spec.js::setter inner turns the flag on' >tests.txt
}

@test "rt-bisect on mocha: each probe runs its tests in its order, across and within suites; the polluter mocha runs after the victim is found" {
	mocha_order_proj
	run rt-bisect -n 10 --threshold 0.4 -v 'test/a_flag.spec.js::flag is off at first' -f tests.txt \
	    -o "$T/rec" -- "$M" {}
	status_is 0
	has "mocha runs a suite's tests together: each probe ran"
	jqe '.polluters == ["test/b_setter.spec.js::setter inner turns the flag on"]' "$T/rec"
	jqe '[.probes[] | .ran == .order] | all' "$T/rec"
	jqe '.probes[] | select(.role == "full") | .ran == ["test/a_flag.spec.js::flag reads the default",
	    "test/b_setter.spec.js::setter adds", "test/b_setter.spec.js::setter inner turns the flag on",
	    "test/a_flag.spec.js::flag is off at first"] and .failures == .trials' "$T/rec"
	! ls "$TMPDIR"/rt-mochaorder.* 2>/dev/null
	# mocha alone, in its own order, never shows it: the victim runs first
	"$M" >"$T/plain" 2>&1
	grep -q '4 passing' "$T/plain"
}

@test "rt-bisect on mocha: a probe whose real order differs from the one asked for is an error, never evidence" {
	mocha_order_proj
	mkdir "$T/fake"
	cat >"$T/fake/mocha" <<SH
#!/bin/sh
d=\$(mktemp -d "$T/rev.XXXXXX")
cp "\$1" "\$d/" && jq -c reverse "\$(dirname "\$1")/order.json" >"\$d/order.json"
f="\$d/\$(basename "\$1")"
shift
exec "$T/mo/node_modules/.bin/mocha" "\$f" "\$@"
SH
	chmod +x "$T/fake/mocha"
	run rt-bisect -n 10 --threshold 0.4 -v 'test/a_flag.spec.js::flag is off at first' -f tests.txt \
	    -- "$T/fake/mocha" {}
	status_is 2
	has 'the runner ran ["test/a_flag.spec.js::flag is off at first"'
	has 'not the order asked for'
}
