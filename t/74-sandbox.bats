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
	if [ -n "${usrv:-}" ]; then
		kill "$usrv" 2>/dev/null || true
		wait "$usrv" 2>/dev/null || true
	fi
	[ -z "${kd:-}" ] || rm -rf "$kd"
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
	# a private /tmp, the lane's own TMPDIR, and nothing left running after the trial
	probe="rt74-${T##*/}-$$"
	printf '#!/bin/sh\nsleep 317 &\necho "$TMPDIR" >seen\necho x >/tmp/%s\nexit 1\n' \
		"$probe" >"$T/p/t.sh"
	chmod +x "$T/p/t.sh"
	rt-verify -C "$T/p" -n 3 --no-genome --keep --cmd ./t.sh </dev/null >"$T/out" 2>"$T/err" || true
	last | jqe '.baseline.failures == 3 and .sandbox == "bwrap"'
	[[ "$(cat "$T"/tmp/rt-verify.*/baseline.*/p/seen)" == */baseline.*/.retrial/tmp ]]
	[ ! -e "/tmp/$probe" ]
	! pgrep -f "^sleep 317$"
}

# ---- helpers from trusted places, confined; lanes never root ----

G="$RT_TOP/t/guard_test"
GFX="$RT_TOP/t/fixtures/guard"

have_bwrap() {
	bwrap --ro-bind / / --unshare-pid --proc /proc --dev /dev -- true ||
		skip "bwrap cannot run here"
}

@test "rt-verify --case on jest: a patch's node_modules/acorn is never the canary's parser; the original's is" {
	jp="$RT_TOP/t/fixtures/runners/jestproj/node_modules"
	[ -d "$jp/@babel/parser" ] && command -v node >/dev/null || skip "no jest: make jest-deps"
	have_bwrap
	# the judged project with its own parser (@babel/parser), no acorn
	mkdir -p "$T/jv/node_modules/@babel" "$T/e/a" "$T/e/b/node_modules/acorn"
	cp -R "$GFX/jestcase/__tests__" "$GFX/jestcase/src" "$GFX/jestcase/package.json" "$T/jv/"
	cp -R "$jp/@babel/parser" "$T/jv/node_modules/@babel/"
	# the real fix, and an "acorn" whose loading writes outside any sandbox
	printf '{"name": "acorn", "version": "8.0.0", "main": "index.js"}\n' \
		>"$T/e/b/node_modules/acorn/package.json"
	printf "require('fs').appendFileSync('%s', 'acorn ran as uid ' + process.getuid());\nmodule.exports = require('@babel/parser');\n" \
		"$T/pwned" >"$T/e/b/node_modules/acorn/index.js"
	{ cat "$GFX/jestcase/patches/jest-realfix.patch"; (cd "$T/e" && diff -ruN a b) || true; } |
		jq -Rsc '{type: "hypothesis", id: "acorn", source: "rules", status: "ok",
		    cause_class: "concurrency", explanation: "x", patch: .}' >"$T/h.jsonl"
	case="__tests__/quote.test.js::quote prices each item in order"
	jq -nc --arg c "$case" '{type: "measure", case: $c, trials: 30, failures: 10}' |
		cat - "$T/h.jsonl" >"$T/in.jsonl"
	cd "$T/jv"
	rt-verify -N 2 -j 2 --seed 42 --no-genome --confirmations 1 --case "$case" --cmd true \
		"$T/in.jsonl" >"$T/out" 2>"$T/err" || true
	[ ! -e "$T/pwned" ] || { cat "$T/pwned"; false; }
	# the canary was placed, read by the original project's parser
	last | jqe '.lanes[0].id == "acorn" and .lanes[0].canary.placed == true and
	    (.lanes[0].canary.at | startswith("__tests__/quote.test.js:5: "))'
}

@test "guard: a parser helper runs confined: nothing written outside its scratch, no network" {
	have_bwrap
	make -s -C "$RT_TOP" t/guard_test >&2
	serve
	# an interpreter that attacks, then parses as the real one does
	mkdir -p "$T/bin" "$T/out-of-reach"
	cat >"$T/bin/python3.97" <<EOF
#!/bin/sh
echo pwned >>"$T/out-of-reach/marker"
/usr/bin/python3 -c 'import socket; socket.create_connection(("127.0.0.1", $port), 2)' 2>/dev/null
exec /usr/bin/python3 "\$@"
EOF
	chmod +x "$T/bin/python3.97"
	rm -rf "$T/shop" && cp -R "$GFX/shop" "$T/shop"
	patch -s -p1 -d "$T/shop" <"$GFX/patches/n-len.patch"
	run "$G" check -c "$T/bin/python3.97 -m pytest -q" "$GFX/patches/n-len.patch" \
		"$GFX/shop" "$T/shop"
	status_is 1
	has "rule: assertion-weakened"
	[ ! -e "$T/out-of-reach/marker" ]
	[ ! -s "$T/conns" ]
}

@test "guard: a Go helper planted in the cache is never run: checked by the hash recorded at its build, rebuilt" {
	command -v go >/dev/null || skip "no go"
	make -s -C "$RT_TOP" t/guard_test >&2
	# the shared build, copied: its go-build cache keeps the rebuild short
	mkdir -p "$RETRIAL_HELPER_CACHE"
	cp -a "$RETRIAL_HELPER_CACHE" "$T/hc"
	export RETRIAL_HELPER_CACHE="$T/hc"
	go_check() {
		rm -rf "$T/gp" && cp -R "$GFX/gopool" "$T/gp"
		patch -s -p1 -d "$T/gp" <"$GFX/patches/go-len.patch"
		run "$G" check "$GFX/patches/go-len.patch" "$GFX/gopool" "$T/gp"
	}
	go_check
	status_is 1
	has "rule: assertion-weakened"
	# a test run unsandboxed (rt-collect) plants a helper by the known name
	for f in "$T"/hc/inventory-go-*; do
		case $f in *.sha256) continue ;; esac
		printf '#!/bin/sh\necho planted >>"%s/planted"\necho "{\\"version\\": 1, \\"parser\\": \\"forged\\", \\"files\\": []}"\n' \
			"$T" >"$f"
		chmod 755 "$f"
	done
	go_check
	status_is 1
	has "rule: assertion-weakened"
	has "guard: go/parser"
	[ ! -e "$T/planted" ]
	# kept where only we can write
	[ "$(stat -c %a "$T/hc")" = 700 ]
	# the rebuilt one is the recorded one again
	for f in "$T"/hc/inventory-go-*.sha256; do
		[ "$(sha256sum <"${f%.sha256}" | cut -d' ' -f1)" = "$(cat "$f")" ]
	done
	# a cache directory that is a link is refused, never followed
	ln -s "$T/hc" "$T/hclink"
	RETRIAL_HELPER_CACHE="$T/hclink" go_check
	status_is 1
	has "rule: guard-undecided"
	has "not a directory of uid $(id -u)'s own"
}

@test "rt-verify as root: a lane runs as nobody in bwrap: no root-only file, no Unix socket outside, its own /run" {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	have_bwrap
	command -v setpriv >/dev/null || skip "no setpriv"
	# outside every sandbox mount: a root-only key and a public file beside
	# it (so the directory is reachable), and a root socket (0660)
	# (the checkout's directory, unless it is under /tmp or /var/tmp,
	# which are the lane's own: then /srv, as root)
	base="$RT_TOP/t"
	case $(realpath "$RT_TOP") in /tmp/*|/var/tmp/*) base=/srv; mkdir -p /srv ;; esac
	kd=$(mktemp -d "$base/.rt74-root.XXXXXX")
	chmod 755 "$kd"
	echo SECRET-KEY >"$kd/key" && chmod 600 "$kd/key"
	echo public >"$kd/public" && chmod 644 "$kd/public"
	: >"$T/uconns"
	timeout 120 python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o660)
s.listen(4)
open(sys.argv[2], "w").write("ready")
while True:
    c, _ = s.accept()
    open(sys.argv[3], "a").write("conn\n")
    c.close()
' "$kd/sock" "$T/uready" "$T/uconns" &
	usrv=$!
	while [ ! -s "$T/uready" ]; do sleep 0.05; done
	mkdir -p "$T/p"
	cat >"$T/p/t.py" <<EOF
import os, socket
out = ["uid %d gid %d groups %s" % (os.getuid(), os.getgid(), os.getgroups())]
for f in ("/etc/shadow", "$kd/key", "$kd/public"):
    try:
        open(f).read()
        out.append("read " + f)
    except OSError:
        out.append("denied " + f)
try:
    socket.socket(socket.AF_UNIX).connect("$kd/sock")
    out.append("connected")
except OSError:
    out.append("refused")
out.append("run: %s" % sorted(os.listdir("/run")))
out.append("home %s" % os.access(os.environ["HOME"], os.W_OK))
out.append("tmp %s" % os.access("/tmp", os.W_OK))
open("seen", "w").write("\n".join(out) + "\n")
raise SystemExit(1)  # failing: the baseline stops at -n
EOF
	rt-verify -C "$T/p" -n 2 --no-genome --keep --cmd "python3 t.py" </dev/null \
		>"$T/out" 2>"$T/err" || true
	last | jqe '.sandbox == "bwrap" and .baseline.failures == 2 and .baseline.errors == 0'
	seen=$(cat "$T"/tmp/rt-verify.*/baseline.*/p/seen)
	echo "$seen"
	[[ $seen == *"uid 65534 gid 65534 groups []"* ]]
	[[ $seen == *"denied /etc/shadow"* ]]
	[[ $seen == *"denied $kd/key"* ]]
	[[ $seen == *"read $kd/public"* ]]
	[[ $seen == *refused* ]]
	[[ $seen == *"run: []"* ]]
	[[ $seen == *"home True"* ]]
	[[ $seen == *"tmp True"* ]]
	[ ! -s "$T/uconns" ]
}
