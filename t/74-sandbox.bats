#!/usr/bin/env bats
# rt-verify's sandbox: a model-written patch runs confined to its copy. The
# attacker's shape: a patch that fixes the flaky pool test and, on every
# trial, reads its ancestor's "-C DIR" from /proc/PID/cmdline and appends to
# that real project (only if it lies in the test's own directory), appends
# to the project by the absolute path baked into
# the patch, writes $HOME/.ssh, appends to the events file, marks every other copy of
# the run, and connects to a loopback server.
load helper

FX="$RT_TOP/t/fixtures/verify"

setup() {
	mkdir -p "$T/tmp" "$T/home"
	export TMPDIR="$T/tmp"
	export HOME="$T/home"
}

teardown() {
	if [ -n "${srv:-}" ]; then
		kill "$srv" 2>/dev/null || true
		wait "$srv" 2>/dev/null || true
	fi
}

# serve: a loopback server that logs each connection to $T/conns; the
# port in $port.
serve() {
	: >"$T/conns"
	python3 -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
while True:
    c, _ = s.accept()
    open(sys.argv[2], "a").write("conn\n")
    c.close()
' "$T/port" "$T/conns" &
	srv=$!
	while [ ! -s "$T/port" ]; do sleep 0.05; done
	port=$(cat "$T/port")
}

# evil DIR: copy the pool project to DIR and write $T/evil.jsonl, two
# hypotheses (a, b) whose patch fixes the race and attacks.
evil() {
	local d=$1 id
	rm -rf "$d" && cp -R "$FX/pool" "$d"
	: >"$T/evil.jsonl"
	for id in a b; do
		rm -rf "$T/edit" && mkdir -p "$T/edit/a" && cp -R "$d/." "$T/edit/a/" &&
			cp -R "$T/edit/a" "$T/edit/b"
		python3 - "$T/edit/b/pool.sh" "$d" "$T/ev" "$T/tmp" "$id" "${port:-9}" "$T" <<'EOF'
import sys
path, real, events, tmp, lane, port, top = sys.argv[1:]
src = open(path).read()
src = src.replace('''\tif [ $(( ${last:-0} % 3 )) -eq 0 ]; then
\t\techo "pool: EXHAUSTED, slot taken by a concurrent holder" >&2
\t\texit 1
\tfi
''', f'''\t{{
\t# the ancestors' command lines: rt-verify's -C is the real project
\tp=$$
\twhile [ "$p" -gt 1 ]; do
\t\tif tr '\\0' '\\n' </proc/$p/cmdline | head -n 1 | grep -q 'rt-verify$'; then
\t\t\td=$(tr '\\0' '\\n' </proc/$p/cmdline | sed -n '/^-C$/{{n;p;q;}}')
\t\t\tcase $d in "{top}"/*) echo pwned-by-cmdline >>"$d/pool.sh" ;; esac
\t\tfi
\t\tp=$(sed 's/.*) . \\([0-9]*\\).*/\\1/' /proc/$p/stat)
\tdone
\techo pwned-by-path >>"{real}/pool.sh"
\tmkdir -p "$HOME/.ssh" && echo key >>"$HOME/.ssh/authorized_keys"
\techo '{{"forged":1}}' >>"{events}"
\tfor c in "{tmp}"/rt-verify.*/*/*; do
\t\t[ -d "$c" ] && ! [ "$c" -ef . ] && echo "{lane}" >>"$c/marks"
\tdone
\tpython3 -c 'import socket; socket.create_connection(("127.0.0.1", {port}), 2)'
\t}} >/dev/null 2>&1
''')
open(path, "w").write(src)
EOF
		(cd "$T/edit" && diff -u a/pool.sh b/pool.sh) |
			jq -Rsc --arg id "h-$id" '{type: "hypothesis", id: $id, source: "model:m",
			    model: "m", cause_class: "concurrency", explanation: "atomic slots",
			    patch: ., files: ["pool.sh"], status: "ok"}' >>"$T/evil.jsonl"
	done
	# the original measured flaky: no baseline trials, the lanes race at once
	sed -i '1i {"type":"measure","trials":30,"failures":10}' "$T/evil.jsonl"
	find "$d" -type f -exec cksum {} + | sort >"$T/before"
}

# attack [ARGS...]: rt-verify on $T/proj with the evil hypotheses, copies kept
attack() {
	rc=0
	rt-verify -C "$T/proj" -N 20 -j 2 --seed 42 --no-genome --no-canary --keep \
		--confirmations 1 --events "$T/ev" "$@" --cmd ./test_pool.sh "$T/evil.jsonl" \
		>"$T/out" 2>"$T/err" || rc=$?
}

last() { tail -n 1 "$T/out"; }

@test "rt-verify --sandbox: usage errors exit 2 and name the problem" {
	run rt-verify --sandbox chroot --cmd true
	status_is 2
	has "--sandbox chroot: want auto, bwrap or none"
	run rt-verify --help
	has "--sandbox MODE"
	has "--network"
	# bwrap required but unusable: exit 2 before any trial, no copy left
	RETRIAL_BWRAP=/bin/false run rt-verify --sandbox bwrap -C "$FX/pool" --no-genome \
		--cmd ./test_pool.sh </dev/null
	status_is 2
	has "rt-verify: --sandbox bwrap: /bin/false cannot run here"
	RETRIAL_BWRAP="$T/nowhere/bwrap" run rt-verify --sandbox bwrap -C "$FX/pool" \
		--no-genome --cmd ./test_pool.sh </dev/null
	status_is 2
	has "not found"
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "rt-verify: a patch that writes its ancestor's -C project, \$HOME, the events and the other copies is confined" {
	bwrap --ro-bind / / --unshare-pid --proc /proc --dev /dev -- true ||
		skip "bwrap cannot run here"
	serve
	evil "$T/proj"
	attack
	[ "$rc" -eq 0 ] || { cat "$T/err"; false; }
	last | jqe '.verdict == "FIXED" and .sandbox == "bwrap" and .network == false'
	# every lane and the confirmation ran the patch
	last | jqe '[.lanes[] | .trials] | all(. > 0)'
	last | jqe '.confirmations[0].trials > 0'
	# the real project is byte for byte what it was
	find "$T/proj" -type f -exec cksum {} + | sort >"$T/after"
	cmp "$T/before" "$T/after"
	# nothing outside the copy: no key, no forged event, no other copy marked
	[ ! -e "$HOME/.ssh" ]
	! grep -q forged "$T/ev"
	jq -s 'length > 0' "$T/ev" >/dev/null
	[ -z "$(find "$T/tmp" -name marks)" ]
	# no network: the loopback server saw nobody
	[ ! -s "$T/conns" ]
	! grep -q "warning" "$T/err"
	jqe -s 'map(select(.event == "start"))[0] | .sandbox == "bwrap" and .network == false' "$T/ev"
}

@test "rt-verify --network: the sandbox shares the network, and the verdict says so" {
	bwrap --ro-bind / / --unshare-pid --proc /proc --dev /dev -- true ||
		skip "bwrap cannot run here"
	serve
	evil "$T/proj"
	attack --network
	last | jqe '.sandbox == "bwrap" and .network == true'
	last | jqe '.reproduce[0] | test(" --network ")'
	[ -s "$T/conns" ]
	# the files stay out of reach all the same
	find "$T/proj" -type f -exec cksum {} + | sort >"$T/after"
	cmp "$T/before" "$T/after"
	[ ! -e "$HOME/.ssh" ]
}

@test "rt-verify --sandbox none: the same patch reaches the project, and the run says so" {
	serve
	evil "$T/proj"
	attack --sandbox none
	last | jqe '.sandbox == "none" and .network == true'
	[ "$(grep -c "warning: trials run unconfined" "$T/err")" -eq 1 ]
	grep -q "warning: trials run unconfined (--sandbox none): a patch's code can write the project" "$T/err"
	# the drill is live: unconfined, every attack lands
	grep -q pwned-by-cmdline "$T/proj/pool.sh"
	grep -q pwned-by-path "$T/proj/pool.sh"
	[ -s "$HOME/.ssh/authorized_keys" ]
	[ -n "$(find "$T/tmp" -name marks)" ]
	[ -s "$T/conns" ]
}

@test "rt-verify: without bwrap, root runs the trials as nobody; else none, warned" {
	evil "$T/proj"
	RETRIAL_BWRAP=/bin/false attack
	if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
		last | jqe '.sandbox == "none"'
		grep -q "warning: trials run unconfined (/bin/false cannot run here" "$T/err"
		return 0
	fi
	[ "$rc" -eq 0 ] || { cat "$T/err"; false; }
	last | jqe '.verdict == "FIXED" and .sandbox == "uid" and .network == true'
	grep -q "warning: no bwrap (/bin/false cannot run here: /bin/false exits 1): trials run as uid 65534" "$T/err"
	# root's files stay root's: the project, $HOME and the events file
	find "$T/proj" -type f -exec cksum {} + | sort >"$T/after"
	cmp "$T/before" "$T/after"
	[ ! -e "$HOME/.ssh" ]
	! grep -q forged "$T/ev"
}

@test "rt-verify: in the sandbox a trial's background process dies with it and exit codes pass through" {
	bwrap --ro-bind / / --unshare-pid --proc /proc --dev /dev -- true ||
		skip "bwrap cannot run here"
	mkdir -p "$T/p"
	# a "not found" stays an error (127), not a failure of the sandbox
	rt-verify -C "$T/p" -n 3 --no-genome -- no-such-program-here </dev/null >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" -eq 2 ]
	last | jqe '.verdict == "ERROR" and .baseline.errors == 3 and .sandbox == "bwrap"'
	# a private /tmp and TMPDIR, and nothing left running after the trial
	probe="rt74-${T##*/}-$$"
	printf '#!/bin/sh\nsleep 317 &\necho "$TMPDIR" >seen\necho x >/tmp/%s\nexit 1\n' \
		"$probe" >"$T/p/t.sh"
	chmod +x "$T/p/t.sh"
	rt-verify -C "$T/p" -n 3 --no-genome --keep --cmd ./t.sh </dev/null >"$T/out" 2>"$T/err" || true
	last | jqe '.baseline.failures == 3 and .sandbox == "bwrap"'
	[ "$(cat "$T"/tmp/rt-verify.*/baseline.*/p/seen)" = /tmp ]
	[ ! -e "/tmp/$probe" ]
	! pgrep -f "^sleep 317$"
}
