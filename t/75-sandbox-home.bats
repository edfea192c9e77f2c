#!/usr/bin/env bats
# rt-verify's sandbox lets a test be a test (issue 33): every trial has a
# HOME of its own, empty, and its XDG directories under it; the lane's
# caches ($XDG_CACHE_HOME, $GOCACHE, $TMPDIR) are kept across that lane's
# trials; nothing else outside the copy is writable. The proof is a real
# pytest suite (t/fixtures/home/dotcfg) whose tests write ~/.dotcfg and
# read it back.
load helper

FX="$RT_TOP/t/fixtures/home"
PY=/usr/bin/python3
DOTCFG_CMD="PYTHONHASHSEED=\$((RETRIAL_SEED % 1000)) PYTHONDONTWRITEBYTECODE=1 $PY -m pytest -q"

have_bwrap() {
	bwrap --ro-bind / / --unshare-pid --proc /proc --dev /dev -- true ||
		skip "bwrap cannot run here"
}

setup() {
	mkdir -p "$T/tmp" "$T/home"
	export TMPDIR="$T/tmp"
	export HOME="$T/home"
}

last() { tail -n 1 "$T/out"; }

@test "fixture: dotcfg flakes by hash order, and writes its settings in \$HOME" {
	"$PY" -c 'import pytest' 2>/dev/null || skip "no /usr/bin/python3 -m pytest"
	cp -R "$FX/dotcfg" "$T/d"
	cd "$T/d"
	f=0
	for s in 1 2 3 4 5 6 7 8 9 10; do
		RETRIAL_SEED=$s sh -c "$DOTCFG_CMD" >"$T/o" 2>&1 || f=$((f + 1))
	done
	[ "$f" -gt 0 ] && [ "$f" -lt 10 ]
	[ -s "$HOME/.dotcfg" ]
	# the committed hypotheses are what make-hypotheses.py writes
	cp -R "$FX" "$T/fx"
	(cd "$T/fx" && rm dotcfg.jsonl && "$PY" make-hypotheses.py)
	cmp "$FX/dotcfg.jsonl" "$T/fx/dotcfg.jsonl"
}

@test "rt-verify: the maintainer's fix of a suite that writes \$HOME is FIXED in the sandbox, in both orders" {
	"$PY" -c 'import pytest' 2>/dev/null || skip "no /usr/bin/python3 -m pytest"
	have_bwrap
	cp -R "$FX/dotcfg" "$T/dotcfg"
	tac "$FX/dotcfg.jsonl" >"$T/rev.jsonl"
	for in in "$FX/dotcfg.jsonl" "$T/rev.jsonl"; do
		rt-verify -C "$T/dotcfg" --seed 42 -j 2 --no-genome -n 20 -N 40 \
			--cmd "$DOTCFG_CMD" "$in" >"$T/out" 2>"$T/err" || { cat "$T/err"; false; }
		last | jqe '.verdict == "FIXED" and .sandbox == "bwrap" and .winner.id == "a-fix"'
		# the sandboxed original failed as the suite does, not on every trial
		last | jqe '.baseline.failures > 0 and .baseline.failures < .baseline.trials'
		! grep -q "Read-only file system" "$T/err"
	done
	# the real $HOME and the project were never written
	[ ! -e "$HOME/.dotcfg" ]
	[ -z "$(find "$T/dotcfg" -name .dotcfg)" ]
}

@test "rt-verify: HOME is new and empty for every trial, the lane's caches and TMPDIR are kept across its trials" {
	have_bwrap
	mkdir -p "$T/p"
	cat >"$T/p/t.sh" <<'EOF2'
#!/bin/sh
# what this trial sees: HOME empty at the start, the lane's cache so far
{
	echo "home $HOME $(find "$HOME" -mindepth 1 -path "$HOME/.cache" -prune -o ! -type d -print | wc -l)"
	echo "xdg $XDG_CONFIG_HOME $XDG_DATA_HOME $XDG_STATE_HOME $XDG_CACHE_HOME $GOCACHE"
	echo "tmpdir $TMPDIR"
	echo "cache $(ls "$XDG_CACHE_HOME" | wc -l) tmp $(ls "$TMPDIR" | wc -l)"
} >>seen
echo x >"$HOME/.tool-config" && echo x >"$XDG_CONFIG_HOME/tool" &&
	mkdir -p "$XDG_STATE_HOME/tool" && mkdir -p "$XDG_DATA_HOME/tool" &&
	mktemp "$XDG_CACHE_HOME/c.XXXXXX" >/dev/null && mktemp "$TMPDIR/t.XXXXXX" >/dev/null &&
	[ "$(cat "$HOME/.cache/$(ls "$HOME/.cache" | head -n 1)")" = "" ] || exit 3
# nothing else outside the copy
for d in /usr /etc "$REALHOME"; do
	: >"$d/rt75-probe" 2>/dev/null && echo "wrote $d" >>seen
done
exit 1
EOF2
	chmod +x "$T/p/t.sh"
	REALHOME="$HOME" rt-verify -C "$T/p" -n 4 -j 1 --no-genome --keep --cmd ./t.sh \
		</dev/null >"$T/out" 2>"$T/err" || true
	last | jqe '.baseline.failures == 4 and .sandbox == "bwrap"'
	seen=$(cat "$T"/tmp/rt-verify.*/baseline.*/p/seen)
	echo "$seen"
	lane=$(echo "$T"/tmp/rt-verify.*/baseline.*)
	lane=$(cd "$lane" && pwd -P)
	# four trials, four HOMEs, each new and empty, under the lane's directory
	[ "$(grep -c "^home $lane/.retrial/home/[^ ]* 0$" <<<"$seen")" -eq 4 ]
	[ "$(grep '^home' <<<"$seen" | sort -u | wc -l)" -eq 4 ]
	grep '^xdg' <<<"$seen" | while read -r _ c d s k g; do
		[ "$c" = "${c%/.config}/.config" ] && [ "$d" = "${c%/.config}/.local/share" ] &&
			[ "$s" = "${c%/.config}/.local/state" ]
		[ "$k" = "$lane/.retrial/cache" ] && [ "$g" = "$lane/.retrial/cache/go-build" ]
	done
	[ "$(grep -c "^tmpdir $lane/.retrial/tmp$" <<<"$seen")" -eq 4 ]
	# the cache and TMPDIR grow: trial k sees the k-1 files before it
	[ "$(grep '^cache' <<<"$seen" | tr '\n' ' ')" = "cache 0 tmp 0 cache 1 tmp 1 cache 2 tmp 2 cache 3 tmp 3 " ]
	! grep -q '^wrote' <<<"$seen"
	[ ! -e "$HOME/rt75-probe" ]
	[ -z "$(ls -A "$HOME")" ]
}

@test "rt-verify --env HOME=DIR: the sandbox leaves a HOME the user sets" {
	have_bwrap
	mkdir -p "$T/p"
	printf '#!/bin/sh\necho "$HOME $XDG_CONFIG_HOME" >>seen\nexit 1\n' >"$T/p/t.sh"
	chmod +x "$T/p/t.sh"
	rt-verify -C "$T/p" -n 2 -j 1 --no-genome --keep --env HOME=/tmp --cmd ./t.sh \
		</dev/null >"$T/out" 2>"$T/err" || true
	seen=$(cat "$T"/tmp/rt-verify.*/baseline.*/p/seen)
	[ "$(cut -d' ' -f1 <<<"$seen" | sort -u)" = /tmp ]
	grep -q "/.retrial/home/.*/.config$" <<<"$seen"
}

# ---- the sandbox changes the test: said at once, with the way out ----

# outside PROJECT: a test that keeps its state in a directory outside its
# project (as a tool's system-wide cache is): it fails on every trial in
# the sandbox, where that directory is read-only, and flakes outside it.
outside() {
	mkdir -p "$1" "$T/state"
	cat >"$1/t.sh" <<EOF2
#!/bin/sh
echo "run \$RETRIAL_TRIAL" >>"$T/state/log" || { echo "t.sh: cannot keep state in $T/state" >&2; exit 1; }
[ \$((RETRIAL_SEED % 8)) -ne 0 ] || { echo "t.sh: unlucky seed" >&2; exit 1; }
EOF2
	chmod +x "$1/t.sh"
	# a lane: the same test, a comment changed
	printf -- '--- a/t.sh\n+++ b/t.sh\n@@ -1,2 +1,3 @@\n #!/bin/sh\n+# keeps its state\n' >"$T/p.diff"
	sed -n 2p "$1/t.sh" | sed 's/^/ /' >>"$T/p.diff"
	jq -Rsc '{type: "hypothesis", id: "comment", source: "rules", status: "ok",
	    cause_class: "io", explanation: "x", patch: .}' "$T/p.diff" >"$T/h.jsonl"
	sed -i '1i {"type":"measure","trials":40,"failures":5}' "$T/h.jsonl"
}

@test "rt-verify: an original that fails in the sandbox far more than in the input measure is said at once, with its failures and the way out" {
	have_bwrap
	outside "$T/p"
	rt-verify -C "$T/p" -N 20 -j 2 --seed 7 --no-genome --no-canary --confirmations 1 \
		--env "NOTE=it's a \$(test)" --runner generic --events "$T/ev" \
		--cmd ./t.sh "$T/h.jsonl" >"$T/out" 2>"$T/err" || true
	cat "$T/err"
	grep -q "warning: the sandbox (bwrap) changes the test: the original in it [0-9]*/[0-9]* failed" "$T/err"
	grep -q "against 5/40 failed" "$T/err"
	grep -q "Fisher's exact test, two-sided p = .* < 0.001" "$T/err"
	# (the state's directory is under /tmp: in the sandbox it is not there)
	n=$(sed -n 's/^  \([0-9]*\)× .*cannot create .*state\/log: Directory nonexistent$/\1/p' "$T/err")
	grep -q "the original in it $n/$n failed" "$T/err"
	grep -q -- "--env VAR=value .*--network .*--sandbox none" "$T/err"
	# said once, and as an event
	[ "$(grep -c "changes the test" "$T/err")" -eq 1 ]
	jqe -s 'map(select(.event == "sandbox_changes_test")) | length == 1' "$T/ev"
	# every lane record carries its failures' first lines, counted
	last | jqe '(.lanes[0].failure_lines[0].line | test("cannot create .*/state/log")) and
	    .lanes[0].failure_lines[0].count == .lanes[0].failures and .lanes[0].failures > 0'
	# the reproduce line carries what changes a trial, each option one shell word
	last | jqe '.reproduce[0] | test(" --env '"'"'NOTE=it'"'"'\\\\'"'"''"'"'s a [$][(]test[)]'"'"' --runner generic ")'
	r=$(last | jq -r '.reproduce[0]')
	eval "set -- ${r#rt-verify }"
	while [ $# -gt 0 ] && [ "$1" != --env ]; do shift; done
	[ "$2" = "NOTE=it's a \$(test)" ]
}

@test "rt-verify: the same original unconfined is not flagged, and --sandbox none is in the reproduce line" {
	outside "$T/p"
	rt-verify -C "$T/p" -N 20 -j 2 --seed 7 --no-genome --no-canary --confirmations 1 \
		--sandbox none --env SECRET_TOKEN=hunter2 --cmd ./t.sh "$T/h.jsonl" \
		>"$T/out" 2>"$T/err" || true
	! grep -q "changes the test" "$T/err"
	last | jqe '.reproduce[0] | test(" --env SECRET_TOKEN=\"[$]SECRET_TOKEN\" --sandbox none ")'
	! grep -q hunter2 "$T/out"
}

# ---- heavy trees shared, not copied; an interruption ends in seconds ----

# heavy DIR: a project with a node_modules its test only reads
heavy() {
	mkdir -p "$1/node_modules/dep" "$1/.git/objects/ab"
	echo 'module.exports = 1' >"$1/node_modules/dep/index.js"
	echo blob >"$1/.git/objects/ab/cd"
	cat >"$1/t.sh" <<'EOF2'
#!/bin/sh
# reads its dependency; says whether it could write there
{
	cat node_modules/dep/index.js
	stat -c 'ino %i' node_modules/dep/index.js
	if (: >node_modules/dep/written) 2>/dev/null; then echo "wrote node_modules"; else echo "node_modules read-only"; fi
} >>seen
exit 1
EOF2
	chmod +x "$1/t.sh"
}

@test "rt-verify: node_modules and .git/objects are shared read-only with every copy, never copied" {
	have_bwrap
	heavy "$T/p"
	ino=$(stat -c %i "$T/p/node_modules/dep/index.js")
	rt-verify -C "$T/p" -n 2 -j 1 --no-genome --keep --cmd ./t.sh </dev/null \
		>"$T/out" 2>"$T/err" || true
	seen=$(cat "$T"/tmp/rt-verify.*/baseline.*/p/seen)
	echo "$seen"
	[ "$(grep -c '^module.exports = 1$' <<<"$seen")" -eq 2 ]
	# the original's file itself, read-only, and nothing copied
	[ "$(grep -c "^ino $ino$" <<<"$seen")" -eq 2 ]
	[ "$(grep -c '^node_modules read-only$' <<<"$seen")" -eq 2 ]
	[ ! -e "$T/p/node_modules/dep/written" ]
	copy=$(echo "$T"/tmp/rt-verify.*/baseline.*/p)
	[ -d "$copy/node_modules" ] && [ -z "$(ls -A "$copy/node_modules")" ]
	[ -d "$copy/.git/objects" ] && [ -z "$(ls -A "$copy/.git/objects")" ]
}

@test "rt-verify: a patch that touches node_modules gets a real copy of it; unconfined, the copy links to the original" {
	heavy "$T/p"
	printf -- '--- a/node_modules/dep/index.js\n+++ b/node_modules/dep/index.js\n@@ -1 +1 @@\n-module.exports = 1\n+module.exports = 2\n' |
		jq -Rsc '{type: "hypothesis", id: "dep", source: "rules", status: "ok",
		    cause_class: "io", explanation: "x", patch: .}' >"$T/h.jsonl"
	sed -i '1i {"type":"measure","trials":40,"failures":20}' "$T/h.jsonl"
	rt-verify -C "$T/p" -N 2 -j 1 --no-genome --no-canary --keep --sandbox none \
		--allow-path 'node_modules/**' --cmd ./t.sh "$T/h.jsonl" >"$T/out" 2>"$T/err" || true
	cat "$T/err"
	lane=$(echo "$T"/tmp/rt-verify.*/lane.*/p)
	[ ! -L "$lane/node_modules" ] && grep -q 'exports = 2' "$lane/node_modules/dep/index.js"
	grep -q 'exports = 1' "$T/p/node_modules/dep/index.js"
	# .git/objects, untouched, is a link to the original's
	[ "$(readlink "$lane/.git/objects")" = "$(cd "$T/p" && pwd -P)/.git/objects" ]
}

@test "rt-verify: SIGINT mid-run prints the board so far and exits 130 within seconds" {
	mkdir -p "$T/p"
	# a trial takes 2 s: the 400 would take 400 s on two lanes; interrupted
	# once the first trial has ended, it exits far sooner on any machine
	printf '#!/bin/sh\nsleep 2\nexit $((RETRIAL_SEED %% 3 == 0))\n' >"$T/p/t.sh"
	chmod +x "$T/p/t.sh"
	rt-verify -C "$T/p" -n 400 -j 2 --no-genome --board --events "$T/ev" --cmd ./t.sh </dev/null \
		>"$T/out" 2>"$T/err" &
	pid=$!
	for i in $(seq 1200); do
		grep -q '"event":"trial"' "$T/ev" 2>/dev/null && break
		sleep 0.05
	done
	grep -q '"event":"trial"' "$T/ev"
	kill -INT "$pid"
	start=$SECONDS
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ]
	[ $((SECONDS - start)) -le 60 ]
	cat "$T/err"
	grep -q "interrupted" "$T/err"
	grep -q "original" "$T/err"
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "rt-verify: Go's module cache is the caller's, read-only, though HOME is new" {
	have_bwrap
	mkdir -p "$T/p" "$T/gopath/pkg/mod/example.com/m@v1.0.0"
	echo 'package m' >"$T/gopath/pkg/mod/example.com/m@v1.0.0/m.go"
	cat >"$T/p/t.sh" <<'EOF2'
#!/bin/sh
echo "mod $GOMODCACHE" >>seen
cat "$GOMODCACHE/example.com/m@v1.0.0/m.go" >>seen
: >"$GOMODCACHE/probe" 2>/dev/null && echo wrote >>seen
exit 1
EOF2
	chmod +x "$T/p/t.sh"
	GOPATH="$T/gopath" rt-verify -C "$T/p" -n 2 -j 1 --no-genome --keep --cmd ./t.sh \
		</dev/null >"$T/out" 2>"$T/err" || true
	seen=$(cat "$T"/tmp/rt-verify.*/baseline.*/p/seen)
	echo "$seen"
	[ "$(grep -c "^mod /run/retrial-gomodcache$" <<<"$seen")" -eq 2 ]
	[ "$(grep -c '^package m$' <<<"$seen")" -eq 2 ]
	! grep -q wrote <<<"$seen"
	[ ! -e "$T/gopath/pkg/mod/probe" ]
	# --env GOMODCACHE=DIR is the user's
	rm -rf "$T"/tmp/rt-verify.*
	GOPATH="$T/gopath" rt-verify -C "$T/p" -n 2 -j 1 --no-genome --keep --cmd ./t.sh \
		--env GOMODCACHE=/nowhere </dev/null >"$T/out" 2>"$T/err" || true
	grep -q '^mod /nowhere$' "$T"/tmp/rt-verify.*/baseline.*/p/seen
}
