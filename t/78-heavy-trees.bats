#!/usr/bin/env bats
# rt-verify shares the heavy trees a test only reads at any depth of the
# project (issue 33, item 3): a monorepo's packages/*/node_modules and a
# service's nested .venv are bound read-only into every copy (a link
# unconfined), never copied; a patch that touches a file in one gets a
# real copy of that tree; the walk stops at a link and at six names deep.
load helper

have_bwrap() {
	bwrap --ro-bind / / --unshare-pid --proc /proc --dev /dev -- true ||
		skip "bwrap cannot run here"
}

setup() {
	mkdir -p "$T/tmp" "$T/home"
	export TMPDIR="$T/tmp"
	export HOME="$T/home"
}

# mono DIR: a monorepo with 300 files in packages/a/node_modules, a nested
# .venv, and a test that reads both and says whether it could write them
mono() {
	mkdir -p "$1/packages/a/node_modules/dep" "$1/packages/a/src" \
		"$1/services/api/.venv/lib" "$1/a/b/c/d/e/f/node_modules"
	i=0
	while [ $i -lt 300 ]; do
		echo "module.exports = $i" >"$1/packages/a/node_modules/dep/f$i.js"
		i=$((i + 1))
	done
	echo 'x = 1' >"$1/services/api/.venv/lib/x.py"
	echo deep >"$1/a/b/c/d/e/f/node_modules/deep.js"
	echo 'module.exports = 1' >"$1/packages/a/src/index.js"
	cat >"$1/t.sh" <<'EOF2'
#!/bin/sh
# reads the nested trees; says whether it could write them
{
	cat packages/a/node_modules/dep/f0.js services/api/.venv/lib/x.py
	stat -c 'ino %i' packages/a/node_modules/dep/f0.js
	if (: >packages/a/node_modules/dep/written) 2>/dev/null; then echo "wrote node_modules"; else echo "node_modules read-only"; fi
	if (: >services/api/.venv/written) 2>/dev/null; then echo "wrote .venv"; else echo ".venv read-only"; fi
} >>seen
exit 1
EOF2
	chmod +x "$1/t.sh"
}

# patch FILE OLD NEW: a hypothesis file whose patch changes one line of FILE
patch() {
	printf -- '--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-%s\n+%s\n' "$1" "$1" "$2" "$3" |
		jq -Rsc '{type: "hypothesis", id: "dep", source: "rules", status: "ok",
		    cause_class: "io", explanation: "x", patch: .}' >"$T/h.jsonl"
	sed -i '1i {"type":"measure","trials":40,"failures":20}' "$T/h.jsonl"
}

@test "rt-verify: nested node_modules and .venv are shared read-only, never copied; a trial reads them" {
	have_bwrap
	mono "$T/p"
	ino=$(stat -c %i "$T/p/packages/a/node_modules/dep/f0.js")
	rt-verify -C "$T/p" -n 2 -j 1 --no-genome --keep --cmd ./t.sh </dev/null \
		>"$T/out" 2>"$T/err" || true
	cat "$T/err"
	copy=$(echo "$T"/tmp/rt-verify.*/baseline.*/p)
	seen=$(cat "$copy/seen")
	echo "$seen"
	[ "$(grep -c '^module.exports = 0$' <<<"$seen")" -eq 2 ]
	[ "$(grep -c '^x = 1$' <<<"$seen")" -eq 2 ]
	# the original's file itself, read-only
	[ "$(grep -c "^ino $ino$" <<<"$seen")" -eq 2 ]
	[ "$(grep -c '^node_modules read-only$' <<<"$seen")" -eq 2 ]
	[ "$(grep -c '^.venv read-only$' <<<"$seen")" -eq 2 ]
	[ ! -e "$T/p/packages/a/node_modules/dep/written" ]
	[ ! -e "$T/p/services/api/.venv/written" ]
	# nothing of them in the copy: an empty directory each
	[ -d "$copy/packages/a/node_modules" ] && [ -z "$(ls -A "$copy/packages/a/node_modules")" ]
	[ -d "$copy/services/api/.venv" ] && [ -z "$(ls -A "$copy/services/api/.venv")" ]
	[ "$(find "$copy" -name 'f*.js' | wc -l)" -eq 0 ]
	# the rest of the package is a real copy
	[ -f "$copy/packages/a/src/index.js" ] &&
		[ "$(stat -c %i "$copy/packages/a/src/index.js")" != "$(stat -c %i "$T/p/packages/a/src/index.js")" ]
	# seven names deep is past the walk: copied as before
	[ -f "$copy/a/b/c/d/e/f/node_modules/deep.js" ]
}

@test "rt-verify: a patch that touches a nested node_modules gets a real copy of that tree; the others stay shared" {
	have_bwrap
	mono "$T/p"
	patch packages/a/node_modules/dep/f0.js 'module.exports = 0' 'module.exports = 2'
	rt-verify -C "$T/p" -N 2 -j 1 --no-genome --no-canary --keep \
		--allow-path 'packages/a/node_modules/**' --cmd ./t.sh "$T/h.jsonl" >"$T/out" 2>"$T/err" || true
	cat "$T/err"
	lane=$(echo "$T"/tmp/rt-verify.*/lane.*/p)
	# the trial read the patched file in the lane's own copy, whole
	grep -q '^module.exports = 2$' "$lane/seen"
	grep -q '^module.exports = 2$' "$lane/packages/a/node_modules/dep/f0.js"
	[ "$(ls "$lane/packages/a/node_modules/dep" | grep -c '^f.*\.js$')" -eq 300 ]
	grep -q '^module.exports = 0$' "$T/p/packages/a/node_modules/dep/f0.js"
	# the .venv the patch does not touch is still shared, read-only
	[ -z "$(ls -A "$lane/services/api/.venv")" ]
	grep -q '^x = 1$' "$lane/seen"
	grep -q '^.venv read-only$' "$lane/seen"
}

@test "rt-verify --sandbox none: nested trees are links to the original's; the walk never follows a link out of the project" {
	mono "$T/p"
	mkdir -p "$T/outside/node_modules"
	echo out >"$T/outside/node_modules/o.js"
	ln -s "$T/outside" "$T/p/packages/ext"
	patch packages/a/src/index.js 'module.exports = 1' 'module.exports = 2'
	rt-verify -C "$T/p" -N 2 -j 1 --no-genome --no-canary --keep --sandbox none \
		--cmd ./t.sh "$T/h.jsonl" >"$T/out" 2>"$T/err" || true
	cat "$T/err"
	lane=$(echo "$T"/tmp/rt-verify.*/lane.*/p)
	real=$(cd "$T/p" && pwd -P)
	[ "$(readlink "$lane/packages/a/node_modules")" = "$real/packages/a/node_modules" ]
	[ "$(readlink "$lane/services/api/.venv")" = "$real/services/api/.venv" ]
	grep -q 'exports = 2' "$lane/packages/a/src/index.js"
	# the link is copied as a link; nothing was made through it
	[ -L "$lane/packages/ext" ]
	[ "$(ls -A "$T/outside")" = node_modules ] && [ "$(ls -A "$T/outside/node_modules")" = o.js ]
}

@test "rt-verify: RETRIAL_COPY_HEAVY copies the heavy trees, nested ones too" {
	have_bwrap
	mono "$T/p"
	RETRIAL_COPY_HEAVY=1 rt-verify -C "$T/p" -n 2 -j 1 --no-genome --keep --cmd ./t.sh \
		</dev/null >"$T/out" 2>"$T/err" || true
	copy=$(echo "$T"/tmp/rt-verify.*/baseline.*/p)
	[ "$(find "$copy/packages/a/node_modules" -name 'f*.js' | wc -l)" -eq 300 ]
	[ -f "$copy/services/api/.venv/lib/x.py" ]
	grep -q '^wrote node_modules$' "$copy/seen"
	[ ! -e "$T/p/packages/a/node_modules/dep/written" ]
}

# ---- rt-audit's digest bounded whatever one import flags (issue 31) ----

@test "rt-audit: past 100 newly flaky tests the nightly sparklines stop; the rest are counted" {
	# 150 tests, each a pass and a failure on one revision, in 3 runs
	for r in n1 n2 n3; do
		i=0
		while [ $i -lt 150 ]; do
			printf '{"type":"trial","trial":1,"case":"t.c%d","outcome":"fail","result":"failure","attempt":1,"time_ms":1,"run":"%s","revision":"aaa","timestamp":"2026-11-01T03:00:00Z","source":"junit"}\n{"type":"trial","trial":2,"case":"t.c%d","outcome":"pass","result":"success","attempt":1,"time_ms":1,"run":"%s","revision":"aaa","timestamp":"2026-11-01T03:00:00Z","source":"junit"}\n' \
				$i $r $i $r
			i=$((i + 1))
		done
	done >"$T/r.jsonl"
	rt-audit -H "$T/a.db" --json "$T/d.json" --html "$T/d.html" "$T/r.jsonl" >/dev/null || true
	jq -e '(.new_flaky | length) == 150 and (.nightly | length) == 100 and
	    .nightly_omitted == 50 and (.nightly[0].nights | length) == 1 and
	    .nightly[0].nights[0].trials == 6' "$T/d.json"
	grep -q 'And 50 more newly flaky tests' "$T/d.html"
}
