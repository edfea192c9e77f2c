#!/usr/bin/env bats
# Order repairs through fixtures (issue 34): a state-setter whose state
# change is a shared pytest fixture's teardown (del sys.modules[...]) has
# it repeated where the victim gets its state, an autouse fixture in the
# victim's module, found with Python's ast. t/fixtures/order/sysmod.jsonl
# is rt-bisect's record of t/fixtures/fix/sysmod (its search takes minutes).
load helper

O="$RT_TOP/t/fixtures/order"
X="$RT_TOP/t/fixtures/fix"
export PYTHONDONTWRITEBYTECODE=1

setup() {
	git_scratch_home
}

project() {
	git_project "$X/$1"
}

fix() {
	python3 "$RT_TOP/share/retrial/rt-fix.py" --root "$T/p" "$1"
}

@test "rt-fix.py: a setter's fixture setup and teardown are its candidates, a del of sys.modules repeated as a pop" {
	project sysmod
	run fix '{"kind":"order","category":"brittle","victim":"tests/test_settings.py::test_fast_mode",
	    "helper":"tests/test_greet.py::test_greet","role":"setter","shared":[]}'
	status_is 0
	jqe '.status == "ok" and .file == "tests/test_settings.py"
	    and .statements == ["import pkg.mod", "sys.modules.pop(\"pkg.mod\", None)"]
	    and (.explanation | test("the fixture mod.s teardown \\(tests/conftest.py:10\\)"))' <<<"$output"
	run fix '{"kind":"order","category":"brittle","victim":"tests/test_settings.py::test_fast_mode",
	    "helper":"tests/test_greet.py::test_greet","role":"setter","shared":[],"keep":[1]}'
	jq -r .source <<<"$output" >"$T/p/tests/test_settings.py"
	grep -qxF '@pytest.fixture(autouse=True)' "$T/p/tests/test_settings.py"
	grep -qxF '    sys.modules.pop("pkg.mod", None)' "$T/p/tests/test_settings.py"
	grep -qxF 'import sys' "$T/p/tests/test_settings.py"
	# the victim passes alone now, and so does every test of its module
	cd "$T/p"
	run /usr/bin/python3 -m pytest -q -p no:random_order tests/test_settings.py::test_fast_mode
	status_is 0
}

@test "rt-fix.py: a class's setup_method is a setter's hook; repeated in the victim's class setup" {
	mkdir -p "$T/p/tests"
	cat >"$T/p/tests/test_c.py" <<'PY'
import os


class TestA:
    def setup_method(self, method):
        os.environ["APP_MODE"] = "x"

    def test_set(self):
        assert os.environ["APP_MODE"] == "x"


class TestB:
    def test_reads(self):
        assert os.environ.get("APP_MODE") == "x"
PY
	run fix '{"kind":"order","category":"brittle","victim":"tests/test_c.py::TestB::test_reads",
	    "helper":"tests/test_c.py::TestA::test_set","role":"setter","shared":[]}'
	status_is 0
	jqe '.status == "ok" and (.source | test("class TestB:\n    def setup_method\\(self, method\\):\n        os.environ\\[\"APP_MODE\"\\] = \"x\"\n"))
	    and (.explanation | test("TestA.setup_method"))' <<<"$output"
}

@test "fixture repair: rt-collect | rt-diff-facts | rt-diagnose --offline --rules (the order record) | rt-verify | rt-pr reaches FIXED, and the mbox applies" {
	project sysmod
	cd "$T/p"
	cmd='/usr/bin/python3 -m pytest -q -p random_order --random-order-seed=$RETRIAL_SEED'
	rt-collect -n 12 --seed 3 --cmd "$cmd" >"$T/trials.jsonl"
	rt-diff-facts "$T/trials.jsonl" >"$T/facts.jsonl"
	jqe '.failures > 0 and .failures < .trials' "$T/facts.jsonl"
	rt-diagnose --offline --rules --no-cache "$O/sysmod.jsonl" >"$T/hyps.jsonl"
	jqe -s 'length == 1 and (.[0] | .cause_class == "order_dependency" and .status == "ok"
	    and .files == ["tests/test_settings.py"] and .minimise.statements == 1 and .minimise.of == 2)' "$T/hyps.jsonl"
	jq -r .patch "$T/hyps.jsonl" >"$T/p.diff"
	[ "$(grep '^+' "$T/p.diff" | grep -v '^+++' | grep -v '^+$')" = '+import pytest
+import sys
+@pytest.fixture(autouse=True)
+def _retrial_as_after_test_greet():
+    sys.modules.pop("pkg.mod", None)' ]
	grep -q "through the fixture mod's teardown (tests/conftest.py:10)" "$T/hyps.jsonl"
	run rt-verify -n 20 -j 2 --seed 5 --no-genome --cmd "$cmd" "$T/hyps.jsonl"
	status_is 0
	tail -n 1 <<<"$output" >"$T/verdict.jsonl"
	jqe '.verdict == "FIXED" and .winner.source == "rules" and .winner.cause_class == "order_dependency"
	    and .baseline.failures > 0' "$T/verdict.jsonl"
	rt-pr -m "$T/fix.mbox" "$T/verdict.jsonl"
	git checkout -q -b apply
	git am -q "$T/fix.mbox"
	run /usr/bin/python3 -m pytest -q -p no:random_order tests/test_settings.py
	status_is 0
}
