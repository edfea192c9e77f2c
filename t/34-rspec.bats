#!/usr/bin/env bats
# RSpec as a runner (lib/runner/rspec.c): its commands, its IDs from
# rspec --format json, --case through SPEC_OPTS, what did not run. Real
# Debian ruby-rspec (RSpec 3.12) on t/fixtures/runners/rspecproj; without
# rspec these tests skip.
load helper

R="$RT_TOP/t/fixtures/runners"
RUNNER_TEST="${RUNNER_TEST:-$BATS_TEST_DIRNAME/runner_test}"
G="${GUARD_TEST:-$BATS_TEST_DIRNAME/guard_test}"
FLAKY='spec/cart_spec.rb::Cart flaky thing'

setup_file() {
	make -s -C "$BATS_TEST_DIRNAME/.." t/runner_test t/guard_test >&2
}

# the fixture in $T/rb, the current directory
rspec_proj() {
	command -v rspec >/dev/null 2>&1 || skip "no rspec: apt-get install ruby-rspec"
	mkdir -p "$T/rb"
	cp -R "$R/rspecproj/." "$T/rb/"
	cd "$T/rb"
}

# one trial record; the warnings on stderr go to $T/err
collect1() {
	rt-collect -n 1 "$@" 2>"$T/err" | jq -c 'select(has("case") | not)'
}

@test "rspec: rspec, bin/rspec, bundle exec rspec and ruby -S rspec are the rspec runner" {
	rspec_proj
	mkdir -p bin "$T/path"
	printf '#!/bin/sh\nexec rspec "$@"\n' >bin/rspec
	# bundler is not installed here: a bundle that runs what follows "exec"
	printf '#!/bin/sh\nshift\nexec "$@"\n' >"$T/path/bundle"
	chmod +x bin/rspec "$T/path/bundle"
	for cmd in "rspec spec/stock_spec.rb" "bin/rspec spec/stock_spec.rb" \
	    "PATH=$T/path:\$PATH bundle exec rspec spec/stock_spec.rb" \
	    "ruby -S rspec spec/stock_spec.rb"; do
		collect1 --cmd "$cmd" | jqe '.runner == "rspec" and .outcome == "pass" and .exit_code == 0'
	done
	run rt-collect --runner nosuch -n 1 --cmd true
	status_is 2
	has "rspec"
}

@test "rt-junit reads rspec --format json: FILE::full description, one ID per file, the seed, pending as skip" {
	rspec_proj
	RETRIAL_TRIAL=3 rspec --format json --out "$T/r.json" >/dev/null 2>&1 || true
	run rt-junit "$T/r.json"
	status_is 0
	echo "$output" | jqe -s '(map(.case) | sort) == [
	      "spec/cart_spec.rb::Cart adds up",
	      "spec/cart_spec.rb::Cart discount halves the sum with HALF",
	      "spec/cart_spec.rb::Cart discount ignores an unknown code",
	      "spec/cart_spec.rb::Cart discount stacks two codes",
	      "spec/cart_spec.rb::Cart discount takes a code by voucher",
	      "spec/cart_spec.rb::Cart flaky thing",
	      "spec/cart_spec.rb::Cart is empty at first",
	      "spec/legacy_cart_spec.rb::Cart is empty at first",
	      "spec/legacy_cart_spec.rb::Cart keeps the order of lines",
	      "spec/stock_spec.rb::Stock refuses more than there is",
	      "spec/stock_spec.rb::Stock rejects an unknown sku",
	      "spec/stock_spec.rb::Stock reserves what is there"] and
	    all(.type == "trial" and .source == "rspec --format json" and .attempt == 1) and
	    all(has("trial", "case", "outcome", "result", "attempt", "time_ms", "message", "failure_type",
	      "stdout", "stderr", "report", "run", "revision", "timestamp", "position", "suite")) and
	    all(.case == .rspec_file + "::" + .rspec_name and .suite == .rspec_file) and
	    (map(.position) == [range(0; 12)]) and
	    (map(.rspec_seed) | unique | length == 1 and (.[0] | type) == "number")'
	# the seed is rspec's own (config.order = :random)
	jq -e --slurpfile r <(echo "$output" | jq -s .) '.seed == $r[0][0].rspec_seed' "$T/r.json"
	# a failure: the expectation's first line, its class, the text as rspec prints it
	echo "$output" | jqe -s 'map(select(.case == "spec/cart_spec.rb::Cart flaky thing"))[0] |
	    .outcome == "fail" and .result == "failure" and .message == "expected: 2" and
	    .failure_type == "RSpec::Expectations::ExpectationNotMetError" and
	    (.stdout | contains("got: 3") and contains("# ./spec/cart_spec.rb:37:in")) and
	    .rspec_id == "spec/cart_spec.rb[1:4]" and (.time_ms | type) == "number"'
	echo "$output" | jqe -s 'map(select(.case == "spec/cart_spec.rb::Cart discount takes a code by voucher"))[0] |
	    .outcome == "skip" and .result == "skipped" and .message == "vouchers are not built yet"'
	# the ID's file and rspec's own example ID select the same example
	rspec --format json --out "$T/one.json" spec/cart_spec.rb'[1:4]' >/dev/null 2>&1 || true
	jq -e '[.examples[].full_description] == ["Cart flaky thing"]' "$T/one.json"
}

@test "rspec: the exact selection of an ID is FILE -E '\\Afull description\\z'" {
	rspec_proj
	RETRIAL_TRIAL=1 rspec --format json --out "$T/e.json" spec/legacy_cart_spec.rb \
	    -E '\ACart is empty at first\z' >/dev/null 2>&1
	jq -e '[.examples[] | .file_path + "::" + .full_description] ==
	    ["./spec/legacy_cart_spec.rb::Cart is empty at first"]' "$T/e.json"
	# -e is a substring: it selects more than the one example
	rspec --format json --out "$T/s.json" spec/cart_spec.rb -e 'Cart discount' >/dev/null 2>&1 || true
	jq -e '.examples | length == 4' "$T/s.json"
}

@test "rt-collect --case on rspec: FLAKY by that example's own outcome, 2 of 6 exactly; the always-failing one does not count" {
	rspec_proj
	rt-collect -n 6 --case "$FLAKY" --cmd rspec >"$T/c.jsonl" 2>"$T/err"
	jq -s 'map(select(has("case") | not))' "$T/c.jsonl" | jqe 'length == 6 and
	    all(.runner == "rspec" and .case_judged == "spec/cart_spec.rb::Cart flaky thing" and
	      .exit_code == 1 and .exit_outcome == "fail" and
	      .others_failed == ["spec/cart_spec.rb::Cart discount stacks two codes"]) and
	    (map(.outcome) == ["pass", "pass", "fail", "pass", "pass", "fail"])'
	# the console output is kept (a progress formatter beside the JSON one)
	jq -s 'map(select(has("case") | not))[0].stdout' "$T/c.jsonl" | grep -q 'examples, 1 failure'
	rt-measure <"$T/c.jsonl" 2>/dev/null | jqe '.trials == 6 and .failures == 2 and .errors == 0 and
	    .verdict == "FLAKY"'
	# judged by its exit status alone, every trial failed
	rt-collect -n 6 --cmd rspec 2>/dev/null | rt-measure 2>/dev/null | jqe '.trials == 6 and .failures == 6'
	# the example that fails on its own, judged alone
	rt-collect -n 3 --case 'spec/cart_spec.rb::Cart discount stacks two codes' --cmd rspec 2>/dev/null |
	    rt-measure 2>/dev/null | jqe '.trials == 3 and .failures == 3'
	# the same description in the other file is another test: it passes
	rt-collect -n 3 --case 'spec/legacy_cart_spec.rb::Cart is empty at first' --cmd rspec 2>/dev/null |
	    rt-measure 2>/dev/null | jqe '.trials == 3 and .failures == 0'
}

@test "rt-collect --case on rspec: the command's own SPEC_OPTS is kept; its own --out must be \$RETRIAL_JUNIT" {
	rspec_proj
	SPEC_OPTS="--order defined" rt-collect -n 1 --case "$FLAKY" --cmd rspec >"$T/c.jsonl" 2>"$T/err"
	# --order defined: no seed in the report
	jq -s 'map(select(has("case")))' "$T/c.jsonl" | jqe 'length == 12 and all(.rspec_seed == null)'
	run rt-collect -n 1 --case "$FLAKY" --cmd 'rspec --format json --out /dev/null'
	has 'rspec wrote none; retrial adds --format json --out to SPEC_OPTS unless the command names an --out of its own'
	has '--format json --out "$RETRIAL_JUNIT"'
	rt-collect -n 3 --case "$FLAKY" --cmd 'rspec --format json --out "$RETRIAL_JUNIT"' 2>/dev/null |
	    rt-measure 2>/dev/null | jqe '.trials == 3 and .failures == 1'
}

@test "rspec seeds: \"Randomized with seed N\" is a seed fact, and --pin-seed rspec=N pins it through SPEC_OPTS over the command's own --seed" {
	rspec_proj
	rt-collect -n 3 --cmd rspec >"$T/c.jsonl" 2>/dev/null
	rt-diff-facts "$T/c.jsonl" | jq -c '.facts[] | select(.kind == "seed")' >"$T/seed"
	jqe '.runner == "rspec" and .in_failures == 3 and
	    .reproduce == "rt-matrix -n 20 --pin-seed rspec=\(.value) --cmd rspec"' "$T/seed"
	rt-matrix -n 2 --pin-seed rspec=4242 --cmd "rspec --seed 7 >>'$T/seen'" >"$T/m" 2>/dev/null
	jqe '.perturbation.SPEC_OPTS == "--seed 4242" and .probe == "ok"' "$T/m"
	# the pinned trials ran with 4242, the control with the command's 7
	[ "$(grep -c '^Randomized with seed 4242$' "$T/seen")" -ge 2 ]
	[ "$(grep -c '^Randomized with seed 7$' "$T/seen")" -ge 2 ]
	[ -z "$(grep '^Randomized with seed' "$T/seen" | grep -v ' 4242$' | grep -v ' 7$')" ]
	# the pin and --case's report share SPEC_OPTS
	SPEC_OPTS="--seed 4242" rt-collect -n 1 --case "$FLAKY" --cmd rspec 2>/dev/null |
	    jq -s 'map(select(has("case")))' | jqe 'length == 12 and all(.rspec_seed == 4242)'
}

@test "rspec: a spec file that cannot load, no examples, rspec missing: errors with rspec's words, never failures" {
	rspec_proj
	mkdir -p broken
	printf 'require "no_such_lib"\nRSpec.describe "Broken" do\n  it("runs") { }\nend\n' >broken/load_spec.rb
	run collect1 --cmd 'rspec broken/load_spec.rb'
	echo "$output" | jqe '.outcome == "error" and .exit_code == 1 and
	    .error == "rspec could not load a spec file: An error occurred while loading ./broken/load_spec.rb."'
	# under --case: the trial is an error, and the file its own error record
	rt-collect -n 1 --case 'spec/cart_spec.rb::Cart adds up' --cmd 'rspec broken/load_spec.rb spec' \
	    >"$T/c.jsonl" 2>"$T/err"
	jq -s 'map(select(has("case") | not))[0]' "$T/c.jsonl" | jqe '.outcome == "error"'
	jq -s 'map(select(.case == "broken/load_spec.rb"))' "$T/c.jsonl" | jqe 'length == 1 and
	    .[0].outcome == "error" and .[0].message == "LoadError: cannot load such file -- no_such_lib"'
	rt-measure <"$T/c.jsonl" 2>/dev/null | jqe '.failures == 0 and .errors == 1'
	run collect1 --cmd "rspec spec -E '\\Ano such example\\z'"
	echo "$output" | jqe '.outcome == "error" and .exit_code == 0 and
	    .error == "rspec found no examples: All examples were filtered out"'
	run collect1 --cmd 'rspec spec/no_such_spec.rb'
	echo "$output" | jqe '.outcome == "error" and
	    (.error | startswith("rspec could not load a spec file: An error occurred while loading ./spec/no_such_spec.rb"))'
	run collect1 --runner rspec --cmd 'PATH=/nonexistent rspec'
	echo "$output" | jqe '.outcome == "error" and .exit_code == 127 and
	    (.error | startswith("rspec could not start: ")) and (.error | contains("rspec: not found"))'
}

@test "rspec: not-run on captured output; a real failure is not 'did not run'" {
	printf '\nRandomized with seed 1\n.F\n\n2 examples, 1 failure\n' >"$T/out"
	: >"$T/err"
	run "$RUNNER_TEST" not-run rspec 1 "$T/out" "$T/err"
	status_is 1
	printf 'No examples found.\n\n0 examples, 0 failures, 1 error occurred outside of examples\n' >"$T/out"
	run "$RUNNER_TEST" not-run rspec 1 "$T/out" "$T/err"
	status_is 0
	[ "$output" = "rspec found no examples: No examples found." ]
	printf 'bundler: command not found: rspec\nInstall missing gem executables with `bundle install`\n' >"$T/err"
	: >"$T/out"
	run "$RUNNER_TEST" not-run rspec 127 "$T/out" "$T/err"
	status_is 0
	[ "$output" = "rspec could not start: bundler: command not found: rspec" ]
}

@test "rspec: rspec_junit_formatter's testcases are FILE::full description" {
	run "$RUNNER_TEST" junit-id rspec spec.cart_spec 'Cart adds up' ./spec/cart_spec.rb
	status_is 0
	[ "$output" = "spec/cart_spec.rb::Cart adds up" ]
}

@test "rspec: the guard reads Ruby with the text rules: a removed expectation fires, the real fix passes" {
	rspec_proj
	cp -R "$T/rb" "$T/neuter"
	sed -i '/polled_level("apple"/d' "$T/neuter/spec/cart_spec.rb"
	(cd "$T" && diff -ru rb neuter) | sed "s#^--- rb/#--- a/#; s#^+++ neuter/#+++ b/#" >"$T/neuter.patch" || true
	run "$G" check "$T/neuter.patch" "$T/rb" "$T/neuter"
	has "assertion-removed"
	has "spec/cart_spec.rb"
	cp -R "$T/rb" "$T/fix"
	sed -i 's/trial % 3 == 0 ? @levels.fetch(sku) + 1 : @levels.fetch(sku)/@levels.fetch(sku)/' "$T/fix/lib/stock.rb"
	(cd "$T" && diff -ru rb fix) | sed "s#^--- rb/#--- a/#; s#^+++ fix/#+++ b/#" >"$T/fix.patch" || true
	[ -s "$T/fix.patch" ]
	run "$G" check "$T/fix.patch" "$T/rb" "$T/fix"
	hasnt "assertion-removed"
	# the fix is real: the flaky example passes in every trial
	rm -rf "$T/rb" && mv "$T/fix" "$T/rb" && cd "$T/rb"
	rt-collect -n 3 --case "$FLAKY" --cmd rspec 2>/dev/null | rt-measure 2>/dev/null | jqe '.failures == 0'
}
