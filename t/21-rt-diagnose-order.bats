#!/usr/bin/env bats
# rt-diagnose with an rt-bisect order record as evidence: the rule that
# names the polluter (or state-setter) and the state both tests use, the
# prompt that shows both tests, and rt-verify proving an order fix.
# The records in t/fixtures/order/ are rt-bisect's on t/fixtures/bisect/.
load helper

F="$RT_TOP/t/fixtures/bisect"
O="$RT_TOP/t/fixtures/order"
export PYTHONDONTWRITEBYTECODE=1

rules() {
	rt-diagnose --rules --offline --no-cache -C "$F/$1" "$O/$1.jsonl"
}

# "`a b` failed k/n" for the probe of role $2 and order $3 (a JSON array)
# in record $1, with the tests' short names.
cited() {
	jq -r --arg role "$2" --argjson o "$3" '
	  .probes[] | select(.role == $role and .order == $o)
	  | "`\(.order | map(sub(".*[:.]"; "")) | join(" "))`\(if $role == "alone" then " alone" else "" end) failed \(.failures)/\(.trials)"' "$1" | head -n 1
}

@test "order rule: the polluter and the class-level object both tests use, with its probes" {
	run rules registry
	status_is 0
	echo "$output" >"$T/out"
	[ "$(wc -l <"$T/out")" -eq 1 ]
	v=tests/test_registry.py::TestRegistry::test_default_names
	p=tests/test_registry.py::TestRegistry::test_register_csv
	jqe --arg v "$v" --arg p "$p" '.source == "rules" and .cause_class == "order_dependency"
	    and (.patch | test("setup_method")) and .status == "ok"
	    and .order.victim == $v and .order.polluters == [$p] and .order.confirm == [$p, $v]
	    and .order.shared[0] == "TestRegistry.registry"' "$T/out"
	has "test_register_csv mutates TestRegistry.registry (self.registry.register()"
	has "which test_default_names reads (self.registry.names())"
	# the claim cites the confirming pair and the victim alone, with their counts
	has "$(cited "$O/registry.jsonl" confirm "[\"$p\",\"$v\"]")"
	has "$(cited "$O/registry.jsonl" alone "[\"$v\"]")"
	has '`test_register_csv test_default_names` failed 4/4'
	has '`test_default_names` alone failed 0/14'
}

@test "order rule: a brittle test names its state-setter and the module both reach into" {
	run rules settings
	status_is 0
	jqe '.cause_class == "order_dependency" and .order.category == "brittle"
	    and .order.setters == ["tests/test_config.py::test_load_settings"]
	    and .order.shared == ["config"] and .status == "ok"' <<<"$output"
	has '`test_load_settings test_connection_url` failed 0/4'
	has '`test_connection_url` alone failed 14/14'
	has "test_load_settings and test_connection_url both use config"
	has "config.SETTINGS"
}

@test "order rule: unittest IDs map to their file; a cleaner's reset is run first in the victim" {
	run rules pricing
	status_is 0
	c=tests.test_cache.PriceCacheTest
	jqe --arg c "$c" '(.patch | test("cache.clear")) and .status == "ok"
	    and .order.cleaner == ($c + ".test_clear_empties")
	    and .order.cleaner_confirm == [$c + ".test_discount_price", $c + ".test_clear_empties", $c + ".test_list_price"]
	    and .order.shared == ["cache"]' <<<"$output"
	has "Cleaner test_clear_empties repairs it (\`test_discount_price test_clear_empties test_list_price\` failed 0/4)"
	has "calling its reset, cache.clear(), in test_list_price's setup"
}

@test "order rule: no claim without its confirming probe; NOD claims no polluter" {
	jq -c '.probes |= map(select(.role != "confirm"))' "$O/registry.jsonl" >"$T/noconf.jsonl"
	run rt-diagnose --rules --offline --no-cache -C "$F/registry" "$T/noconf.jsonl"
	# nothing names a cause: exit 2, said on stderr
	status_is 2
	has "rt-diagnose: no hypothesis names a cause"
	grep '^{' <<<"$output" | jqe '.cause_class == "unknown" and (.order == null)'
	jq -c '.category = "nod" | .polluters = [] | .polluter_sets = [] | .cleaners = {}' \
	    "$O/registry.jsonl" >"$T/nod.jsonl"
	run rt-diagnose --rules --offline --no-cache -C "$F/registry" "$T/nod.jsonl"
	status_is 2
	hasnt "order_dependency"
}

@test "order rule: the tests' source missing from the project is said, not guessed" {
	mkdir -p "$T/empty"
	run rt-diagnose --rules --offline --no-cache -C "$T/empty" "$O/registry.jsonl"
	status_is 0
	jqe '.cause_class == "order_dependency" and .order.shared == []' <<<"$output"
	has "source was not found in the project"
	has '`test_register_csv test_default_names` failed 4/4'
}

@test "an order record without a victim is an input error naming its line" {
	printf '{"type":"measure","trials":3,"failures":1}\n{"type":"order","category":"victim"}\n' >"$T/bad.jsonl"
	run rt-diagnose --rules --offline --no-cache -C "$F/registry" "$T/bad.jsonl"
	status_is 2
	has "bad.jsonl:2"
	has "victim"
}

@test "the prompt shows the orders and both tests' source; the cache key follows them" {
	/usr/bin/python3 "$BATS_TEST_DIRNAME/fake-llm.py" --log "$T/llm.log" >"$T/port" 2>"$T/llm.err" &
	pid=$!
	for _ in $(seq 200); do [ -s "$T/port" ] && break; sleep 0.05; done
	export RETRIAL_API_BASE="http://127.0.0.1:$(cat "$T/port")/v1"
	export RETRIAL_API_KEY=sk-test-order-4242
	rt-diagnose -m good -C "$F/registry" "$O/registry.jsonl" >"$T/out" 2>"$T/err" || true
	rt-diagnose -m good -C "$F/registry" "$O/settings.jsonl" >"$T/out2" 2>"$T/err2" || true
	kill "$pid"; wait "$pid" 2>/dev/null || true
	jq -r 'select(.event == "request") | .body.messages[0].content' "$T/llm.log" >"$T/prompts"
	grep -q '^----- TEST: tests/test_registry.py::TestRegistry::test_register_csv (tests/test_registry.py:82) -----$' "$T/prompts"
	grep -q '^    def test_register_csv(self):$' "$T/prompts"
	grep -q '^        self.registry.register("csv", "text/csv")$' "$T/prompts"
	grep -q '^----- TEST: tests/test_registry.py::TestRegistry::test_default_names (tests/test_registry.py:200) -----$' "$T/prompts"
	grep -q '^        assert self.registry.names() == \["json", "text"\]$' "$T/prompts"
	grep -q '^Victim: tests/test_registry.py::TestRegistry::test_default_names; category victim.$' "$T/prompts"
	grep -q '^- confirm: `test_register_csv test_default_names` failed 4/4, fail$' "$T/prompts"
	grep -q '^- order_dependency: `test_register_csv test_default_names` failed 4/4' "$T/prompts"
	! grep -q '{{' "$T/prompts"
	# another order record is other evidence: another digest
	[ "$(jq -r .evidence_digest "$T/out")" != "$(jq -r .evidence_digest "$T/out2")" ]
}

@test "the test ID of a parametrized pytest case maps to its function" {
	mkdir -p "$T/p/tests"
	cat >"$T/p/tests/test_p.py" <<-'EOF'
	import pytest
	SEEN = []


	@pytest.mark.parametrize("x", [1, 2])
	def test_add(x):
	    SEEN.append(x)


	def test_empty():
	    total = 0
	    for s in SEEN:
	        total += s
	    assert total == 0
	EOF
	jq -nc '{type:"order", victim:"tests/test_p.py::test_empty", category:"victim",
	    polluters:["tests/test_p.py::test_add[1]"], polluter_sets:[["tests/test_p.py::test_add[1]"]],
	    setters:[], setter_sets:[], cleaners:{}, probes:[
	    {order:["tests/test_p.py::test_empty"], role:"alone", trials:3, failures:0, decision:"pass"},
	    {order:["tests/test_p.py::test_add[1]", "tests/test_p.py::test_empty"], role:"confirm",
	     trials:3, failures:3, decision:"fail"}]}' >"$T/p.jsonl"
	run rt-diagnose --rules --offline --no-cache -C "$T/p" "$T/p.jsonl"
	status_is 0
	has '`test_add test_empty` failed 3/3, `test_empty` alone failed 0/3'
	has "test_add mutates SEEN (SEEN.append()), which test_empty reads (SEEN)"
	# locals (total, s) and builtins are not shared state
	jqe '.order.shared == ["SEEN"]' <<<"$output"
}

# ---- rt-verify: an order fix, proven on the pair ---------------------------

@test "rt-verify: the polluter's own registry is FIXED on the polluter-victim pair in both orders" {
	mkdir -p "$T/tmp"
	export TMPDIR="$T/tmp"
	pair="tests/test_registry.py::TestRegistry::test_register_csv tests/test_registry.py::TestRegistry::test_default_names"
	# the fixed order fails every time: the detect gate has nothing to race
	run rt-verify -C "$F/registry" -n 30 -j 2 --seed 7 --no-genome \
	    --cmd "/usr/bin/python3 -m pytest -q -p no:cacheprovider -p no:randomly -p no:random_order $pair" \
	    "$O/registry-fix.jsonl"
	status_is 1
	tail -n 1 <<<"$output" | jqe '.verdict == "REGRESSION" and .lanes[0].status == "not_raced"'
	# the seed picks the pair's order: flaky before, FIXED with the patch
	rules registry >"$T/hyps.jsonl"
	cat "$O/registry-fix.jsonl" >>"$T/hyps.jsonl"
	run rt-verify -C "$F/registry" -n 20 -N 40 -j 2 --seed 7 --no-genome \
	    --cmd "/usr/bin/python3 -m pytest -q -p no:randomly --random-order-seed=\$RETRIAL_SEED $pair" \
	    "$T/hyps.jsonl"
	status_is 0
	tail -n 1 <<<"$output" >"$T/verdict"
	# the rule's setup_method changes no check of the test; the cached fix
	# rewrites the polluter's assertion: tied, the rule's wins
	jqe '.verdict == "FIXED" and .winner.id == "h1" and .baseline.failures > 0
	    and .baseline.failures < .baseline.trials' "$T/verdict"
	jqe '.lanes[] | select(.id == "h1") | .status == "winner" and .changes_checks == false' "$T/verdict"
	jqe '.lanes[] | select(.id == "h-copy") | .failures == 0 and .changes_checks == true' "$T/verdict"
	[ -z "$(ls -A "$T/tmp")" ]
	# the winner's patch, applied: the pair in the order that failed passes
	cp -R "$F/registry" "$T/fixed"
	jq -r .winner.patch "$T/verdict" | patch -p1 --batch -s -d "$T/fixed"
	cd "$T/fixed"
	run rt-measure -n 5 --seed 1 --text \
	    --cmd "/usr/bin/python3 -m pytest -q -p no:cacheprovider -p no:randomly -p no:random_order $pair"
	has "0/5 failed"
}

@test "seed rule: pytest-random-order's seeds give order_dependency and the exact rt-bisect line, which rt-bisect runs" {
	cp -R "$RT_TOP/t/fixtures/diff/pyreg" "$T/reg"
	cd "$T/reg"
	rt-collect -n 12 --junit -o runs.jsonl \
	    --cmd '/usr/bin/python3 -m pytest -p random_order --random-order-seed=$RETRIAL_SEED tests'
	rt-diff-facts runs.jsonl >facts.jsonl
	jqe '.failures > 0 and .failures < .trials' facts.jsonl
	run rt-diagnose --rules --offline --no-cache facts.jsonl runs.jsonl
	status_is 0
	line="rt-bisect -v tests/test_reg.py::test_lookup --collect '/usr/bin/python3 -m pytest --collect-only -q tests' --cmd '/usr/bin/python3 -m pytest -p no:randomly -p no:random_order \"\$@\"'"
	has "rt-diagnose: order_dependency: find what tests/test_reg.py::test_lookup depends on with: $line"
	grep '^{' <<<"$output" >hyps.jsonl
	jqe -s --arg l "$line" 'length == 1 and .[0].cause_class == "order_dependency" and .[0].bisect == $l
	    and .[0].rests_on[0].fact == "seed" and .[0].rests_on[0].runner == "pytest-random-order"' hyps.jsonl
	# the line runs as printed (here cut short): rt-bisect takes the command
	eval "$line --max-trials 30" >order.jsonl
	jqe '.victim == "tests/test_reg.py::test_lookup" and .probes[0].role == "alone"
	    and .probes[0].failures == .probes[0].trials' order.jsonl
	# with its order record back, the order rule speaks and no line is printed
	run rt-diagnose --rules --offline --no-cache facts.jsonl order.jsonl
	hasnt "find what"
}
