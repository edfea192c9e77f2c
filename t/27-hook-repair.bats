#!/usr/bin/env bats
# Checked means it imports (issue 34, item 5), and order repairs through
# jest hooks (item 3). t/fixtures/order/*.jsonl here are written by hand
# in rt-bisect's shape.
load helper

O="$RT_TOP/t/fixtures/order"
X="$RT_TOP/t/fixtures/fix"
export PYTHONDONTWRITEBYTECODE=1

setup() {
	git_scratch_home
}

@test "import check: a setter's hook copied with its relative import byte-compiles but does not import; refused, the exception named" {
	git_project "$X/relimport"
	run rt-diagnose --offline --rules --no-cache -C "$T/p" "$O/relimport.jsonl"
	status_is 0
	jqe '.cause_class == "order_dependency" and .status == "no_patch"
	    and (.reason | test("^the patched module does not import .*ModuleNotFoundError: No module named .tests\\.b\\.helpers. \\(tests/b/test_b\\.py:2\\)$"))
	    and .build.ok and (.build.import | .ok == false and (.command | test("/usr/bin/python3 -B -c .*tests\\.b\\.test_b")))' <<<"$output"
	# the same patch where the relative import resolves: it imports, and
	# delta debugging's probe shows it repairs the victim
	cp "$T/p/tests/a/helpers.py" "$T/p/tests/b/helpers.py"
	run rt-diagnose --offline --rules --no-cache -C "$T/p" "$O/relimport.jsonl"
	status_is 0
	jqe '.status == "ok" and .files == ["tests/b/test_b.py"] and .build.import.ok
	    and (.patch | test("\\+from \\.helpers import set_mode"))' <<<"$output"
}
