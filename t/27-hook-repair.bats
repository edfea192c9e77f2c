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

# t/fixtures/fix/jshooks with jest from t/fixtures/runners/jestproj
# (make jest-deps), committed as a project of its own
jest_project() {
	command -v node >/dev/null 2>&1 && [ -x "$RT_TOP/t/fixtures/runners/jestproj/node_modules/.bin/jest" ] ||
		skip "no jest: make jest-deps"
	git_project "$X/jshooks"
	# a copy, not a link: a sandboxed probe sees no path under the caller's /tmp
	cp -R "$RT_TOP/t/fixtures/runners/jestproj/node_modules" "$T/p/node_modules"
}

P='__tests__/settings.test.js::fast mode skips the retries'
C='__tests__/settings.test.js::defaults are an object'
V='__tests__/settings.test.js::report has the plain header'

@test "jest hooks: a cleaner's afterEach is repeated in a beforeEach of the victim's describe (found by the project's parser), shrunk by delta debugging; the victim passes after its polluter under real jest" {
	jest_project
	cd "$T/p"
	# the flake, on real jest: the polluter's beforeEach leaks, the
	# cleaner's afterEach puts it back
	run ./run-order.sh "$P" "$V"
	[ "$status" -ne 0 ]
	run ./run-order.sh "$P" "$C" "$V"
	status_is 0
	rt-diagnose --offline --rules --no-cache "$O/jshooks.jsonl" >"$T/hyps.jsonl"
	jqe -s 'length == 2 and (.[0] | .cause_class == "order_dependency" and .status == "ok"
	    and .files == ["__tests__/settings.test.js"] and .order.cleaner == "'"$C"'"
	    and (.minimise | .statements == 1 and .of == 2 and .minimal)
	    and .build.ok and (.explanation | test("afterEach of describe\\(.defaults.\\)")))' "$T/hyps.jsonl"
	jq -r 'select(.id == "h1") | .patch' "$T/hyps.jsonl" >"$T/fix.diff"
	# one hook, in the victim's describe block, with the one statement needed
	grep -qxF "+	beforeEach(() => {" "$T/fix.diff"
	grep -qxF "+		settings.mode = 'normal';" "$T/fix.diff"
	run grep -c retries "$T/fix.diff"
	[ "$output" = 0 ]
	[ "$(grep -c '^@@' "$T/fix.diff")" -eq 1 ]
	grep -A3 -F "describe('report'" "$T/fix.diff" | grep -qF 'beforeEach'
	git apply "$T/fix.diff"
	run ./run-order.sh "$P" "$V"
	status_is 0
	# the second hypothesis: the same statement in an afterEach of the
	# polluter's describe block, which repairs it too
	git checkout -q -- .
	jq -r 'select(.id == "h2") | .patch' "$T/hyps.jsonl" >"$T/td.diff"
	grep -A3 -F "describe('fast mode'" "$T/td.diff" | grep -qF 'afterEach'
	git apply "$T/td.diff"
	run ./run-order.sh "$P" "$V"
	status_is 0
}

@test "rt-fix.js: a setter's beforeEach is its candidate; a name the victim's file lacks is no_patch; the parser is the original project's" {
	jest_project
	mkdir -p "$T/p/__tests__/other"
	cat >"$T/p/__tests__/other/mode.test.js" <<'JS'
const settings = require('../../src/settings');

describe('needs fast', () => {
	test('is fast', () => {
		expect(settings.mode).toBe('fast');
	});
});
JS
	fix() {
		node "$RT_TOP/share/retrial/rt-fix.js" --root "$T/p" "$@"
	}
	# the setter's state change is its describe's beforeEach: both of its
	# statements are candidates, its check is not
	run fix '{"kind":"order","category":"brittle","victim":"__tests__/other/mode.test.js::needs fast is fast",
	    "helper":"'"$P"'","role":"setter","shared":[]}'
	status_is 0
	jqe '.status == "ok" and .file == "__tests__/other/mode.test.js"
	    and .statements == ["settings.mode = '"'fast'"'", "settings.retries = 0"]
	    and (.explanation | test("beforeEach of describe\\(.fast mode.\\)"))' <<<"$output"
	jq -r .source <<<"$output" >"$T/p/__tests__/other/mode.test.js"
	cd "$T/p"
	run ./node_modules/.bin/jest --ci --runTestsByPath __tests__/other/mode.test.js
	status_is 0
	# a statement that needs a name only the setter's file has
	cat >"$T/p/__tests__/other/mode.test.js" <<'JS'
describe('needs fast', () => {
	test('is fast', () => {
		expect(require('../../src/settings').mode).toBe('fast');
	});
});
JS
	run fix '{"kind":"order","category":"brittle","victim":"__tests__/other/mode.test.js::needs fast is fast",
	    "helper":"'"$P"'","role":"setter","shared":[]}'
	status_is 0
	jqe '.status == "no_patch" and (.reason | test("uses settings, which __tests__/other/mode.test.js does not have"))' <<<"$output"
	# no parser in the project the helper is told to read it with
	mkdir "$T/empty"
	run fix --parser-root "$T/empty" '{"kind":"order","category":"brittle","victim":"'"$V"'",
	    "helper":"'"$P"'","role":"setter","shared":[]}'
	jqe '.status == "no_patch" and (.reason | test("no parser"))' <<<"$output"
}
