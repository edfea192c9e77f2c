#!/usr/bin/env bats
# rt-diagnose --rules with patches, offline: a module-level random.seed
# moved into the tests that draw; a set the code iterates, sorted, when
# failures follow PYTHONHASHSEED; an order record's state-setter or
# cleaner run first in the victim, or the polluted class attribute
# re-created in setup_method. Each patch applies (patch --fuzz=0) and
# parses before it is emitted, the tournament proves it on the real
# runner, and the mbox applies with git am. No network, no cache. A
# setter's or cleaner's statements are first shrunk by delta debugging
# (ddmin, each probe the victim run by real pytest or unittest). For go
# test, a polluter's package-level var is put back by a t.Cleanup.
load helper

F="$RT_TOP/t/fixtures/bisect"
O="$RT_TOP/t/fixtures/order"
X="$RT_TOP/t/fixtures/fix"
export PYTHONDONTWRITEBYTECODE=1

setup() {
	git_scratch_home
}

# a git project of fixture $1/$2 in $T/p
project() {
	git_project "$1/$2"
}

rules() {
	rt-diagnose --rules --offline --no-cache -C "$F/$1" "$O/$1.jsonl"
}

@test "seed rule: rt-collect | rt-diff-facts | rt-diagnose --offline --rules | rt-verify | rt-pr reaches FIXED, and the mbox applies" {
	project "$X" seeded
	cd "$T/p"
	cmd='/usr/bin/python3 -m pytest -q --random-order-seed=$RETRIAL_SEED'
	rt-collect -n 20 --seed 3 --cmd "$cmd" >"$T/trials.jsonl"
	rt-diff-facts "$T/trials.jsonl" >"$T/facts.jsonl"
	rt-diagnose --offline --rules --no-cache --source tests/test_pick.py \
	    "$T/facts.jsonl" "$T/trials.jsonl" >"$T/hyps.jsonl"
	jqe -s 'map(select(.cause_class == "randomness")) | length == 1 and
	    (.[0] | .source == "rules" and .status == "ok" and .files == ["tests/test_pick.py"])' "$T/hyps.jsonl"
	jq -r 'select(.cause_class == "randomness") | .patch' "$T/hyps.jsonl" >"$T/p.diff"
	# the module-level seed goes, and each drawing test seeds itself
	grep -qx -- '-random.seed(1)' "$T/p.diff"
	[ "$(grep -cx -- '+    random.seed(1)' "$T/p.diff")" -eq 3 ]
	jqe -s 'map(select(.cause_class == "randomness"))[0].explanation | test("tests/test_pick.py:8 seeds the random module once, at import")' "$T/hyps.jsonl"
	run rt-verify -n 20 -j 2 --seed 5 --no-genome --cmd "$cmd" "$T/hyps.jsonl"
	status_is 0
	tail -n 1 <<<"$output" >"$T/verdict.jsonl"
	jqe '.verdict == "FIXED" and .winner.source == "rules" and .winner.cause_class == "randomness"
	    and .baseline.failures > 0' "$T/verdict.jsonl"
	rt-pr -m "$T/fix.mbox" "$T/verdict.jsonl"
	git checkout -q -b apply
	git am -q "$T/fix.mbox"
	run /usr/bin/python3 -m pytest -q -p no:cacheprovider -p no:random_order
	status_is 0
	git status --porcelain | grep -v '^??' && false || true
}

@test "hash rule: rt-matrix --hashseed | rt-diagnose --offline --rules sorts the set the code iterates, and rt-verify proves it" {
	project "$RT_TOP/t/fixtures/projects" stale
	cd "$T/p"
	cmd='/usr/bin/python3 -m unittest -q'
	# the control pinned to one hash seed, the cell varying it by trial
	# number: every outcome is fixed by --seed, so the test is not flaky
	PYTHONHASHSEED=0 rt-matrix -n 20 -j 2 --seed 2 --hashseed vary --facts "$T/trials.jsonl" --cmd "$cmd" >"$T/exp.jsonl"
	jqe '.implicated == true' "$T/exp.jsonl"
	rt-diagnose --offline --rules --no-cache --source rooms/slots.py "$T/exp.jsonl" "$T/trials.jsonl" >"$T/hyps.jsonl"
	jqe -s 'map(select(.cause_class == "hash_order" and .status == "ok")) | length == 1' "$T/hyps.jsonl"
	jq -r 'select(.cause_class == "hash_order") | .patch' "$T/hyps.jsonl" >"$T/h.diff"
	grep -qxF '+    return ", ".join(sorted(free))' "$T/h.diff"
	grep -q 'free_slots (rooms/slots.py:9) iterates over a set' "$T/hyps.jsonl"
	run rt-verify -n 20 -j 2 --seed 5 --no-genome --cmd "$cmd" "$T/hyps.jsonl"
	status_is 0
	tail -n 1 <<<"$output" | jqe '.verdict == "FIXED" and .winner.cause_class == "hash_order" and .winner.source == "rules"'
}

@test "map-order rule (go test): a range over a map in the code under test ranges over its keys sorted; FIXED, and the mbox applies" {
	project "$X" gomap
	cd "$T/p"
	cmd='GOFLAGS=-mod=mod GOPROXY=off go test -count=1 ./...'
	rt-collect -n 20 --seed 3 --cmd "$cmd" >"$T/trials.jsonl"
	rt-diff-facts "$T/trials.jsonl" >"$T/facts.jsonl"
	rt-diagnose --offline --rules --no-cache --source labels.go --source labels_test.go \
	    "$T/facts.jsonl" "$T/trials.jsonl" >"$T/hyps.jsonl"
	jqe -s 'map(select(.cause_class == "hash_order" and .status == "ok")) | length == 1
	    and (.[0].files == ["labels.go"])' "$T/hyps.jsonl"
	jq -r 'select(.cause_class == "hash_order") | .patch' "$T/hyps.jsonl" >"$T/g.diff"
	grep -qxF '+	for _, k := range retrialSortedKeys(labels) {' "$T/g.diff"
	grep -qxF '+		v := labels[k]' "$T/g.diff"
	# the test file is not touched
	! grep -q '^+++ b/labels_test.go' "$T/g.diff"
	run rt-verify -n 20 -j 2 --seed 5 --no-genome --cmd "$cmd" "$T/hyps.jsonl"
	status_is 0
	tail -n 1 <<<"$output" >"$T/verdict.jsonl"
	jqe '.verdict == "FIXED" and .winner.cause_class == "hash_order" and .baseline.failures > 0' "$T/verdict.jsonl"
	rt-pr -m "$T/fix.mbox" "$T/verdict.jsonl"
	git checkout -q -b apply
	git am -q "$T/fix.mbox"
	run rt-measure -n 10 --seed 1 --text --cmd "$cmd"
	has "0/10 failed"
}

@test "order rule: the polluted class attribute is re-created in setup_method, and the tournament proves it" {
	run rules registry
	status_is 0
	jqe '.status == "ok" and .files == ["tests/test_registry.py"] and .reason == null' <<<"$output"
	jq -r .patch <<<"$output" >"$T/p.diff"
	grep -qx -- '+    def setup_method(self, method):' "$T/p.diff"
	grep -qx -- '+        self.registry = Registry()' "$T/p.diff"
	# nothing of the test's checks is touched
	! grep -q '^-' <(grep -v '^---' "$T/p.diff")
	has "setup_method re-creates it"
	has "Evidence: "
	rules registry >"$T/hyps.jsonl"
	pair="tests/test_registry.py::TestRegistry::test_register_csv tests/test_registry.py::TestRegistry::test_default_names"
	run rt-verify -C "$F/registry" -n 20 -N 40 -j 2 --seed 7 --no-genome \
	    --cmd "/usr/bin/python3 -m pytest -q -p no:randomly --random-order-seed=\$RETRIAL_SEED $pair" \
	    "$T/hyps.jsonl"
	status_is 0
	tail -n 1 <<<"$output" | jqe '.verdict == "FIXED" and .winner.source == "rules"
	    and (.lanes[0] | .status == "winner" and .failures == 0)'
}

@test "order rule: a state-setter's statements run first in the brittle test; a cleaner's in the victim (unittest)" {
	run rules settings
	status_is 0
	jqe '.status == "ok" and .files == ["tests/test_config.py"]
	    and .minimise == {"statements": 1, "of": 1, "probes": 1, "trials": 8, "minimal": true, "judged_by": "case", "undecided": 0}' <<<"$output"
	jq -r .patch <<<"$output" >"$T/s.diff"
	grep -qxF '+    config.load({"db_scheme": "postgres", "db_host": "db.internal"})' "$T/s.diff"
	has "test_load_settings sets up the state test_connection_url needs"
	has "Delta debugging kept 1 of the 1 statements (1 probes, 8 trials)."
	# the brittle test alone: failing before, passing with the patch
	cp -R "$F/settings" "$T/s"
	( cd "$T/s" && ! /usr/bin/python3 -m pytest -q -p no:cacheprovider -p no:random_order \
	    tests/test_config.py::test_connection_url >/dev/null )
	patch -p1 --fuzz=0 -s -d "$T/s" <"$T/s.diff"
	( cd "$T/s" && /usr/bin/python3 -m pytest -q -p no:cacheprovider -p no:random_order \
	    tests/test_config.py::test_connection_url >/dev/null )
	rules pricing >"$T/c.jsonl"
	# two hypotheses: the cleaner's statements in the victim, and in the
	# polluter's teardown
	jqe -s 'length == 2 and all(.status == "ok" and .files == ["tests/test_cache.py"]
	    and .minimise.statements == 1 and .minimise.of == 2 and .minimise.minimal
	    and .minimise.judged_by == "exit")' "$T/c.jsonl"
	jq -r 'select(.id == "h1") | .patch' "$T/c.jsonl" >"$T/c.diff"
	grep -qx -- '+        cache.clear()' "$T/c.diff"
	# the cleaner's check is not copied, nor its statement the repair does
	# not need
	! grep -q '^+.*assertEqual' "$T/c.diff"
	! grep -q '^+.*Z9' "$T/c.diff"
	cp -R "$F/pricing" "$T/c"
	patch -p1 --fuzz=0 -s -d "$T/c" <"$T/c.diff"
	( cd "$T/c" && /usr/bin/python3 -m unittest -q tests.test_cache.PriceCacheTest.test_discount_price \
	    tests.test_cache.PriceCacheTest.test_list_price 2>/dev/null )
	# the teardown: unittest's tearDown, made for the polluter's class
	jq -r 'select(.id == "h2") | .patch' "$T/c.jsonl" >"$T/t.diff"
	grep -qx -- '+    def tearDown(self):' "$T/t.diff"
	grep -qx -- '+        cache.clear()' "$T/t.diff"
	jqe -s '.[1].explanation | test("in PriceCacheTest.tearDown, so no later test sees the change")' "$T/c.jsonl"
	cp -R "$F/pricing" "$T/t"
	patch -p1 --fuzz=0 -s -d "$T/t" <"$T/t.diff"
	( cd "$T/t" && /usr/bin/python3 -m unittest -q tests.test_cache.PriceCacheTest.test_discount_price \
	    tests.test_cache.PriceCacheTest.test_list_price 2>/dev/null )
}

@test "order rule: the setter's and the cleaner's patches win the tournament on the real runner" {
	# brittle: the setter and the victim in random order
	rules settings >"$T/s.jsonl"
	pair="tests/test_config.py::test_load_settings tests/test_config.py::test_connection_url"
	run rt-verify -C "$F/settings" -n 20 -j 2 --seed 7 --no-genome \
	    --cmd "/usr/bin/python3 -m pytest -q -p no:randomly --random-order-seed=\$RETRIAL_SEED $pair" "$T/s.jsonl"
	status_is 0
	tail -n 1 <<<"$output" | jqe '.verdict == "FIXED" and .winner.source == "rules" and .baseline.failures > 0'
	# polluter and cleaner: unittest tests, run by pytest in random order;
	# the victim judged by its own outcome (its polluter is polluted by
	# it in turn, a second victim this repair does not claim to fix)
	rules pricing >"$T/c.jsonl"
	run rt-verify -C "$F/pricing" -n 20 -j 2 --seed 7 --no-genome \
	    --case tests/test_cache.py::PriceCacheTest::test_list_price --cmd '/usr/bin/python3 -m pytest -q -p no:randomly --random-order-seed=$RETRIAL_SEED tests/test_cache.py' "$T/c.jsonl"
	status_is 0
	tail -n 1 <<<"$output" >"$T/v.jsonl"
	jqe '.verdict == "FIXED" and .winner.source == "rules" and .baseline.failures > 0' "$T/v.jsonl"
	# both places of the cleaner's statements fix it: the victim's setup
	# and the polluter's teardown
	jqe '[.lanes[] | select(.failures == 0 and (.status | IN("eliminated", "undecided") | not))] | length == 2' "$T/v.jsonl"
}

@test "order rule: a cleaner's minimal statements in the victim, and in a yield fixture the polluter takes (pytest); both win the tournament" {
	# t/fixtures/order/cleaner.jsonl is rt-bisect's record of t/fixtures/fix/cleaner
	project "$X" cleaner
	run rt-diagnose --rules --offline --no-cache -C "$T/p" "$O/cleaner.jsonl"
	status_is 0
	printf '%s\n' "$output" >"$T/hyps.jsonl"
	jqe -s 'length == 2 and all(.status == "ok" and .files == ["tests/test_session.py"]
	    and .minimise.statements == 1 and .minimise.of == 4 and .minimise.minimal
	    and .minimise.judged_by == "case")' "$T/hyps.jsonl"
	# of the cleaner's sign-in, grant, print and sign-out, the sign-out
	jq -r 'select(.id == "h1") | .patch' "$T/hyps.jsonl" >"$T/v.diff"
	[ "$(grep '^+ ' "$T/v.diff")" = '+    session.logout()' ]
	jq -r 'select(.id == "h2") | .patch' "$T/hyps.jsonl" >"$T/t.diff"
	[ "$(grep '^+' "$T/t.diff" | grep -v '^+++')" = '+import pytest
+@pytest.fixture
+def _retrial_after_test_admin_can_delete():
+    yield
+    session.logout()
+
+
+def test_admin_can_delete(_retrial_after_test_admin_can_delete):' ]
	jqe -s '.[1].explanation | test("in the fixture _retrial_after_test_admin_can_delete, which test_admin_can_delete takes")' "$T/hyps.jsonl"
	# the teardown alone: the polluter, then the victim, pass by real pytest
	cp -R "$X/cleaner" "$T/t"
	patch -p1 --fuzz=0 -s -d "$T/t" <"$T/t.diff"
	( cd "$T/t" && /usr/bin/python3 -m pytest -q -p no:cacheprovider -p no:random_order \
	    tests/test_session.py::test_admin_can_delete tests/test_session.py::test_guest_cannot_delete >/dev/null )
	cd "$T/p"
	run rt-verify -n 20 -j 2 --seed 7 --no-genome \
	    --cmd '/usr/bin/python3 -m pytest -q -p no:randomly --random-order-seed=$RETRIAL_SEED' "$T/hyps.jsonl"
	status_is 0
	tail -n 1 <<<"$output" >"$T/verdict.jsonl"
	jqe '.verdict == "FIXED" and .winner.source == "rules" and .baseline.failures > 0
	    and ([.lanes[] | select(.failures == 0 and (.status | IN("eliminated", "undecided") | not))] | length == 2)' "$T/verdict.jsonl"
	rt-pr -m "$T/fix.mbox" "$T/verdict.jsonl"
	git checkout -q -b apply
	git am -q "$T/fix.mbox"
	/usr/bin/python3 -m pytest -q -p no:cacheprovider -p no:random_order >/dev/null
}

@test "order rule: with the order record's references (rt-bisect's), each probe is judged against them, as rt-bisect judges its own" {
	project "$X" setter
	jq -c '. + {references: {pass_high: 0.12, fail_low: 0.88, confidence: 0.95, cap: 40}}' \
	    "$O/setter.jsonl" >"$T/refs.jsonl"
	run rt-diagnose --rules --offline --no-cache -C "$T/p" "$T/refs.jsonl"
	status_is 0
	jqe '.status == "ok" and (.minimise | .statements == 3 and .of == 6 and .minimal
	    and .judged_by == "case")' <<<"$output"
	# the same three statements as the fixed rule finds
	[ "$(jq -r .patch <<<"$output" | grep -c '^+ ')" -eq 3 ]
	# the probe of all six statements: passing every trial, it is a pass
	# once its interval lies below 88%, in fewer trials than the fixed
	# rule's eight
	run rt-diagnose --rules --offline --no-cache --max-probes 1 -C "$T/p" "$T/refs.jsonl"
	status_is 0
	jqe '.minimise.probes == 1 and .minimise.trials < 8' <<<"$output"
	# a broken pair of references (the passing one above the failing
	# one) is not used: the fixed rule, eight passing trials
	jq -c '. + {references: {pass_high: 0.9, fail_low: 0.1, confidence: 0.95}}' \
	    "$O/setter.jsonl" >"$T/bad.jsonl"
	run rt-diagnose --rules --offline --no-cache --max-probes 1 -C "$T/p" "$T/bad.jsonl"
	status_is 0
	jqe '.minimise.probes == 1 and .minimise.trials == 8' <<<"$output"
}

@test "order rule: delta debugging keeps only the setter's statements the brittle test needs (pytest), and the tournament proves the patch" {
	# t/fixtures/order/setter.jsonl is rt-bisect's record of t/fixtures/fix/setter
	project "$X" setter
	run rt-diagnose --rules --offline --no-cache -C "$T/p" "$O/setter.jsonl"
	status_is 0
	jqe '.status == "ok" and .source == "rules" and .files == ["tests/test_flags.py"]
	    and (.minimise | .statements == 3 and .of == 6 and .minimal and .judged_by == "case"
	    and .probes > 1 and .probes <= 30 and .trials >= .probes)' <<<"$output"
	printf '%s\n' "$output" >"$T/hyps.jsonl"
	jq -r .patch <<<"$output" >"$T/d.diff"
	# the three statements the banner needs, in their order, and nothing else
	[ "$(grep '^+ ' "$T/d.diff")" = '+    region = "us"
+    flags.load(beta=True)
+    flags.load(region=region)' ]
	! grep -q '^+.*print(' "$T/d.diff"
	! grep -q '^+.*attempts' "$T/d.diff"
	has "Delta debugging kept 3 of the 6 statements"
	# the brittle test alone passes with the patch, by real pytest
	cp -R "$X/setter" "$T/s"
	patch -p1 --fuzz=0 -s -d "$T/s" <"$T/d.diff"
	( cd "$T/s" && /usr/bin/python3 -m pytest -q -p no:cacheprovider -p no:random_order \
	    tests/test_flags.py::test_banner >/dev/null )
	# the project itself is untouched
	git -C "$T/p" diff --quiet
	cd "$T/p"
	pair="tests/test_flags.py::test_enable_beta tests/test_flags.py::test_banner"
	run rt-verify -n 20 -j 2 --seed 7 --no-genome \
	    --cmd "/usr/bin/python3 -m pytest -q -p no:randomly --random-order-seed=\$RETRIAL_SEED $pair" "$T/hyps.jsonl"
	status_is 0
	tail -n 1 <<<"$output" >"$T/verdict.jsonl"
	jqe '.verdict == "FIXED" and .winner.source == "rules" and .baseline.failures > 0' "$T/verdict.jsonl"
	rt-pr -m "$T/fix.mbox" "$T/verdict.jsonl"
	git checkout -q -b apply
	git am -q "$T/fix.mbox"
	/usr/bin/python3 -m pytest -q -p no:cacheprovider -p no:random_order tests/test_flags.py::test_banner >/dev/null
}

@test "order rule: no subset of the setter's statements makes the victim pass, or no probe is allowed: no_patch with the reason and the probes spent" {
	project "$X" setter
	sed -i 's/with beta in us/with beta in ca/' "$T/p/tests/test_flags.py"
	run rt-diagnose --rules --offline --no-cache -C "$T/p" "$O/setter.jsonl"
	status_is 0
	jqe '.status == "no_patch" and .patch == null and .minimise.probes == 1 and .minimise.statements == 0
	    and (.reason | test("^with all 6 of its statements run first, the victim still does not pass: tests/test_flags.py::test_banner failed in trial 1"))' <<<"$output"
	run rt-diagnose --rules --offline --no-cache --max-probes 0 -C "$X/setter" "$O/setter.jsonl"
	status_is 0
	jqe '.status == "no_patch" and .patch == null and (.reason | test("budget \\(--max-probes 0\\) ran out"))' <<<"$output"
	run rt-diagnose --rules --offline --no-cache --max-probes x -C "$X/setter" "$O/setter.jsonl"
	status_is 2
	has "--max-probes x"
}

@test "lib/rt_ddmin: a 1-minimal subset that keeps the property, each subset probed once, within the budget" {
	[ -x "$RT_TOP/t/ddmin_test" ] || make -s -C "$RT_TOP" t/ddmin_test >/dev/null
	D="$RT_TOP/t/ddmin_test"
	# two items of eight are needed: both, and only them
	run "$D" 8 30 1,4
	[ "$output" = "1,4 probes=17 minimal=1 budget_out=0" ]
	# either of two items will do: the first part that holds one
	run "$D" 8 30 3 5
	[ "$output" = "3 probes=5 minimal=1 budget_out=0" ]
	# every item needed: nothing goes
	run "$D" 6 30 0,1,2,3,4,5
	[ "$output" = "0,1,2,3,4,5 probes=18 minimal=1 budget_out=0" ]
	# one item: nothing to probe
	run "$D" 1 30 0
	[ "$output" = "0 probes=0 minimal=1 budget_out=0" ]
	# the budget runs out: the set given, not 1-minimal
	run "$D" 16 3 2,9,11
	[ "$output" = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15 probes=3 minimal=0 budget_out=1" ]
	# noisy probes: a subset that lacks item 6 is only undecided, so the
	# same subset is found but not called 1-minimal (both one-smaller
	# subsets undecided); lacking item 1, one of the two is
	run "$D" -u 6 8 30 1,4
	[ "$output" = "1,4 probes=17 minimal=0 budget_out=0 undecided=2" ]
	run "$D" -u 1 8 30 1,4
	[ "$output" = "1,4 probes=17 minimal=0 budget_out=0 undecided=1" ]
}

@test "lib/rt_ddmin under noise (bench/ddmin): probes judged against the order record's references repair the victim; the fixed rule does not" {
	# the noisy-victim bench (issue 34), the shipped rt_ddmin and
	# rt_ddmin_step: 2 needed of 8, the victim failing 60% without them
	# and 2% with them, the first probe of all 8 counted. The subset
	# emitted repairs the victim in at least 95% of runs and is called
	# minimal wrongly in at most 1%; the fixed rule that judged probes
	# before (8 passes in a row) fails that gate
	[ -x "$RT_TOP/bench/ddmin" ] || make -s -C "$RT_TOP" bench/ddmin >/dev/null
	run "$RT_TOP/bench/ddmin" -q
	echo "$output"
	status_is 0
	has "judged against the references"
	run "$RT_TOP/bench/ddmin" -q --mutate fixed
	echo "$output"
	status_is 1
	run "$RT_TOP/bench/ddmin" --mutate other
	status_is 2
}

@test "order rule: a budget cut short keeps the smallest passing subset seen, and says it is not 1-minimal" {
	run rt-diagnose --rules --offline --no-cache --max-probes 2 -C "$X/setter" "$O/setter.jsonl"
	status_is 0
	jqe '.status == "ok" and .minimise.probes == 2 and .minimise.minimal == false
	    and .minimise.statements == 6' <<<"$output"
}

@test "order rule: a module global of the test file is put back to its import-time value in the victim's setup" {
	cp -R "$F/registry" "$T/r"
	sed -i 's/^    registry = Registry()$/    pass/' "$T/r/tests/test_registry.py"
	sed -i '0,/^class TestRegistry:/s//registry = Registry()\n\n\nclass TestRegistry:/' "$T/r/tests/test_registry.py"
	sed -i 's/self\.registry/registry/g' "$T/r/tests/test_registry.py"
	run rt-diagnose --rules --offline --no-cache -C "$T/r" "$O/registry.jsonl"
	status_is 0
	jqe '.status == "ok" and .order.shared == ["registry"]' <<<"$output"
	has "the module global registry (tests/test_registry.py:6)"
	jq -r .patch <<<"$output" | patch -p1 --fuzz=0 -s -d "$T/r"
	cd "$T/r"
	# the order that failed passes
	/usr/bin/python3 -m pytest -q -p no:cacheprovider -p no:random_order \
	    tests/test_registry.py::TestRegistry::test_register_csv tests/test_registry.py::TestRegistry::test_default_names
}

@test "order rule: a polluter that chdirs into a deleted temporary directory: the victim goes back to the tests' directory" {
	# t/fixtures/order/chdir.jsonl is rt-bisect's record of t/fixtures/fix/chdir
	run rt-diagnose --rules --offline --no-cache -C "$X/chdir" "$O/chdir.jsonl"
	status_is 0
	jqe '.status == "ok" and .order.polluters == ["tests/test_paths.py::test_export_in_scratch_dir"]' <<<"$output"
	jq -r .patch <<<"$output" >"$T/d.diff"
	grep -qx -- '+_retrial_cwd = os.getcwd()' "$T/d.diff"
	grep -qx -- '+    os.chdir(_retrial_cwd)' "$T/d.diff"
	jq -r .patch <<<"$output" >"$T/hyps.patch"
	printf '%s\n' "$output" >"$T/hyps.jsonl"
	run rt-verify -C "$X/chdir" -n 20 -j 2 --seed 5 --no-genome \
	    --cmd '/usr/bin/python3 -m pytest -q --random-order-seed=$RETRIAL_SEED' "$T/hyps.jsonl"
	status_is 0
	tail -n 1 <<<"$output" | jqe '.verdict == "FIXED" and .baseline.failures > 0 and .winner.source == "rules"'
}

@test "order rule: a reset that leaves the victim failing after its polluter (a class attribute the re-created object shares) is no_patch, with the check's trials" {
	# t/fixtures/order/cart.jsonl is rt-bisect's record of t/fixtures/fix/cart:
	# Cart.items is a class attribute, so a fresh Cart() shares it
	run rt-diagnose --rules --offline --no-cache -C "$X/cart" "$O/cart.jsonl"
	status_is 0
	jqe '.status == "no_patch" and .patch == null
	    and .order.polluters == ["tests/test_cart.py::TestCart::test_add_item"]
	    and .checked == {"trials": 3, "failures": 3, "judged_by": "case"}' <<<"$output"
	jqe '.reason | startswith("the reset of TestCart.cart did not make tests/test_cart.py::TestCart::test_starts_empty pass after tests/test_cart.py::TestCart::test_add_item: 3/3 failed")' <<<"$output"
	# --max-probes 0: the patch as planned, and the record says it was not run
	run rt-diagnose --rules --offline --no-cache --max-probes 0 -C "$X/cart" "$O/cart.jsonl"
	status_is 0
	jqe '.status == "ok" and .checked == {"trials": 0, "failures": 0}' <<<"$output"
	has "Not checked: --max-probes 0"
	# a reset that works keeps its patch, the check's trials recorded
	run rt-diagnose --rules --offline --no-cache -C "$X/chdir" "$O/chdir.jsonl"
	status_is 0
	jqe '.status == "ok" and .checked == {"trials": 3, "failures": 0, "judged_by": "case"}' <<<"$output"
}

@test "order rule (go test): a polluter's package-level var is put back by a t.Cleanup; FIXED on real go test, and the mbox applies" {
	# t/fixtures/order/govar.jsonl is rt-bisect's record of t/fixtures/fix/govar
	project "$X" govar
	cd "$T/p"
	run rt-diagnose --rules --offline --no-cache -C "$T/p" "$O/govar.jsonl"
	status_is 0
	jqe '.status == "ok" and .source == "rules" and .cause_class == "order_dependency"
	    and .files == ["retry_test.go"] and .minimise == null' <<<"$output"
	printf '%s\n' "$output" >"$T/hyps.jsonl"
	jq -r .patch <<<"$output" >"$T/g.diff"
	[ "$(grep '^+' "$T/g.diff" | grep -v '^+++')" = '+	retrialSavedMaxAttempts := MaxAttempts
+	t.Cleanup(func() { MaxAttempts = retrialSavedMaxAttempts })' ]
	has "TestDoOnce (retry_test.go:15) sets the package-level MaxAttempts (retry.go:7)"
	cmd='GOPROXY=off go test -count=1 -shuffle=$RETRIAL_SEED ./...'
	run rt-verify -n 20 -j 2 --seed 5 --no-genome --cmd "$cmd" "$T/hyps.jsonl"
	status_is 0
	tail -n 1 <<<"$output" >"$T/verdict.jsonl"
	jqe '.verdict == "FIXED" and .winner.source == "rules" and .winner.cause_class == "order_dependency"
	    and .baseline.failures > 0' "$T/verdict.jsonl"
	rt-pr -m "$T/fix.mbox" "$T/verdict.jsonl"
	git checkout -q -b apply
	git am -q "$T/fix.mbox"
	# the polluter first, then the victim: it passes now
	GOPROXY=off go test -count=1 -shuffle=off -run '^(TestDoOnce|TestDoRetriesUntilUp)$' . >/dev/null
}

@test "order rule (go test): a polluter that assigns no package-level var, or a setter: no_patch with the reason" {
	project "$X" govar
	sed -i 's/^\tMaxAttempts = 1$/\tattempts := 1\n\t_ = attempts/' "$T/p/retry_test.go"
	run rt-diagnose --rules --offline --no-cache -C "$T/p" "$O/govar.jsonl"
	status_is 0
	jqe '.status == "no_patch" and .patch == null and .reason == "TestDoOnce assigns no package-level var of its package"' <<<"$output"
	jq -c '.category = "brittle" | .setter_sets = .polluter_sets | .setters = .polluters
	    | .polluters = [] | .polluter_sets = [] | .cleaners = {}
	    | .probes |= map(if .role == "alone" then .failures = .trials else . end)
	    | .probes |= map(if .role == "confirm" then .failures = 0 else . end)' "$O/govar.jsonl" >"$T/b.jsonl"
	run rt-diagnose --rules --offline --no-cache -C "$X/govar" "$T/b.jsonl"
	status_is 0
	jqe '.status == "no_patch" and (.reason | test("only a polluter.s package-level vars"))' <<<"$output"
}

@test "no rule that fits: an honest no_patch with the reason, exit 0, never a guess" {
	# the polluted state is a module the test imports, and no cleaner says
	# how to reset it
	jq -c '.cleaners |= map_values([])' "$O/pricing.jsonl" >"$T/o.jsonl"
	run rt-diagnose --rules --offline --no-cache -C "$F/pricing" "$T/o.jsonl"
	status_is 0
	jqe '.status == "no_patch" and .patch == null and .cause_class == "order_dependency"
	    and .reason == "cache: not a class attribute of the victim\u0027s class or a module global of tests/test_cache.py"' <<<"$output"
	# a seeded test file that does not parse: no patch from it
	mkdir -p "$T/bad/tests"
	printf 'import random\nrandom.seed(1)\n\ndef test_x(:\n    assert random.random() < 1\n' >"$T/bad/tests/test_x.py"
	printf '{"type":"measure","command":"pytest","trials":10,"failures":3,"rate":0.3,"confidence":0.95}\n' >"$T/m.jsonl"
	run rt-diagnose --rules --offline --no-cache -C "$T/bad" --source "$T/bad/tests/test_x.py" "$T/m.jsonl"
	# and then nothing names a cause: exit 2 (rt-diagnose(1), EXIT STATUS)
	status_is 2
	grep '^{' <<<"$output" | jqe -s 'all(.patch == null)'
}

@test "a planner that fails leaves the hypothesis without a patch, with the planner's message" {
	mkdir -p "$T/share"
	cp -R "$RETRIAL_SHAREDIR"/. "$T/share/"
	printf 'import sys\nsys.stderr.write("planner exploded\\n")\nsys.exit(3)\n' >"$T/share/rt-fix.py"
	RETRIAL_SHAREDIR="$T/share" run rules registry
	status_is 0
	jqe '.status == "no_patch" and .patch == null and (.reason | test("rt-fix.py exited 3: planner exploded"))' <<<"$output"
}

@test "order rule (go test -shuffle, end to end): rt-collect | rt-diff-facts, rt-bisect finds both polluters after the victim in the source, rt-diagnose --rules, rt-verify FIXED, and the mbox applies" {
	command -v go >/dev/null || skip "go not installed"
	# t/fixtures/fix/goshuffle: TestDefaultRate comes first in the file;
	# TestSmallBurst and TestShortWindow, after it, each leave a
	# package-level var set; TestRetryAfterIsSeconds always fails
	project "$X" goshuffle
	cd "$T/p"
	export GOFLAGS=-mod=mod GOPROXY=off
	v=example.invalid/ratelimit::TestDefaultRate
	# each trial's shuffle pinned by its RETRIAL_SEED
	rt-collect -n 9 --seed 3 --junit -o "$T/runs.jsonl" \
	    --cmd 'go test -count=1 -shuffle=$RETRIAL_SEED -json .'
	rt-diff-facts "$T/runs.jsonl" >"$T/facts.jsonl"
	run rt-bisect -n 20 --threshold 0.3 -v "$v" --records "$T/runs.jsonl" -o "$T/order.jsonl" \
	    --cmd 'IFS="|"; go test -count=1 -run "^($(echo "$*" | sed "s#[^|]*::##g"))\$" .'
	status_is 0
	jqe --arg v "$v" '.category == "victim" and .victim == $v
	    and (.polluters | sort) == ["example.invalid/ratelimit::TestShortWindow",
	        "example.invalid/ratelimit::TestSmallBurst"]
	    and (.polluter_sets | length) == 2
	    and all(.probes[]; .ran == .order and .errors == null)' "$T/order.jsonl"
	# in the source the victim runs first: only the driver put the
	# polluters before it, and the user's tree is as it was
	[ ! -e zz_retrial_order_test.go ] && [ -z "$(git status --porcelain)" ]
	cat "$T/facts.jsonl" "$T/order.jsonl" >"$T/evidence.jsonl"
	run rt-diagnose --rules --offline --no-cache -C "$T/p" "$T/evidence.jsonl"
	status_is 0
	jqe '.status == "ok" and .cause_class == "order_dependency" and .files == ["limiter_test.go"]' <<<"$output"
	printf '%s\n' "$output" >"$T/hyps.jsonl"
	jq -r .patch "$T/hyps.jsonl" >"$T/g.diff"
	[ "$(grep -c 't.Cleanup' "$T/g.diff")" = 2 ]
	has "TestSmallBurst (limiter_test.go:21) sets the package-level Burst (limiter.go:7)"
	has "TestShortWindow (limiter_test.go:28) sets the package-level WindowSeconds (limiter.go:10)"
	# judged by the victim's own case: TestRetryAfterIsSeconds fails every run
	run rt-verify -n 20 -j 2 --seed 5 --target 0.3 --no-genome --case "$v" \
	    --cmd 'go test -count=1 -shuffle=$RETRIAL_SEED .' "$T/hyps.jsonl"
	status_is 0
	tail -n 1 <<<"$output" >"$T/verdict.jsonl"
	jqe '.verdict == "FIXED" and .winner.source == "rules" and .winner.cause_class == "order_dependency"
	    and .baseline.failures > 0' "$T/verdict.jsonl"
	rt-pr -m "$T/fix.mbox" "$T/verdict.jsonl"
	git checkout -q -b apply
	git am -q "$T/fix.mbox"
	# both polluters, then the victim, in a driver of the test's own: it passes now
	cat >zz_order_test.go <<'GO'
package ratelimit

import "testing"

func TestPollutersFirst(t *testing.T) {
	t.Run("TestSmallBurst", TestSmallBurst)
	t.Run("TestShortWindow", TestShortWindow)
	t.Run("TestDefaultRate", TestDefaultRate)
}
GO
	go test -count=1 -run '^TestPollutersFirst$' . >/dev/null
}
