#!/usr/bin/env bats
# t/70-security.bats: attacks on the tools' trust boundaries — patches that
# reach out of their copy, git headers the verifier never applied, redirects
# that would carry the key, hostile case names. Loopback only.
load helper

FX="$RT_TOP/t/fixtures"

setup() {
	mkdir -p "$T/tmp"
	export TMPDIR="$T/tmp"
}

teardown() {
	if [ -n "${SRV_PID:-}" ]; then
		kill "$SRV_PID" 2>/dev/null || true
		wait "$SRV_PID" 2>/dev/null || true
	fi
}

# hyp ID PATCH: one hypothesis record carrying PATCH.
hyp() {
	jq -nc --arg id "$1" --arg p "$2" '{type: "hypothesis", id: $id, source: "model:m",
	    model: "m", cause_class: "timing", explanation: "x", patch: $p, files: [],
	    status: "ok", evidence_digest: ("0" * 64)}'
}

# The pool project with links that lead out of it, and a file outside.
mkproj() {
	cp -r "$FX/verify/pool" "$T/proj"
	mkdir -p "$T/outside"
	echo orig >"$T/outside/f"
	ln -s "$T/outside" "$T/proj/evil"
	ln -s "$T/outside/f" "$T/proj/lf"
}

@test "rt-verify: a patch through a symlinked directory that leads out is patch_failed" {
	mkproj
	{ hyp dir $'--- a/evil/f\n+++ b/evil/f\n@@ -1 +1 @@\n-orig\n+PWNED\n'
	  hyp new $'--- /dev/null\n+++ b/evil/new.sh\n@@ -0,0 +1 @@\n+PWNED\n'
	} >"$T/h.jsonl"
	run rt-verify -C "$T/proj" -n 6 -N 6 --seed 42 -- sh test_pool.sh <"$T/h.jsonl"
	echo "$output" | grep '"type":"lane"' >"$T/lanes"
	jqe -s 'length == 2 and all(.status == "patch_failed")' "$T/lanes"
	jqe -s 'all(.reason | test("unsafe path .*symbolic link"))' "$T/lanes"
	[ "$(cat "$T/outside/f")" = orig ]
	[ ! -e "$T/outside/new.sh" ]
}

@test "rt-verify: a patch to a file that is a symbolic link is patch_failed" {
	mkproj
	hyp file $'--- a/lf\n+++ b/lf\n@@ -1 +1 @@\n-orig\n+PWNED\n' >"$T/h.jsonl"
	run rt-verify -C "$T/proj" -n 6 -N 6 --seed 42 -- sh test_pool.sh <"$T/h.jsonl"
	echo "$output" | grep '"type":"lane"' >"$T/lanes"
	jqe '.status == "patch_failed" and (.reason | test("\"lf\": it is a symbolic link"))' "$T/lanes"
	[ "$(cat "$T/outside/f")" = orig ]
}

@test "rt-verify: a patch with git rename or copy headers is refused, not half applied" {
	cp -r "$FX/verify/pool" "$T/proj"
	body=$'--- a/test_pool.sh\n+++ b/test_pool.sh\n@@ -1 +1 @@\n-#!/bin/sh\n+#!/bin/sh\n'
	{ hyp ren $'diff --git a/pool.sh b/x.sh\nrename from pool.sh\nrename to x.sh\n'"$body"
	  hyp cpy $'diff --git a/pool.sh b/y.sh\ncopy from pool.sh\ncopy to y.sh\n'"$body"
	} >"$T/h.jsonl"
	run rt-verify -C "$T/proj" -n 6 -N 6 --seed 42 -- sh test_pool.sh <"$T/h.jsonl"
	echo "$output" | grep '"type":"lane"' >"$T/lanes"
	jqe -s 'length == 2 and all(.status == "patch_failed" and
	    (.reason | test("renames and copies are not supported")))' "$T/lanes"
}

# A repository holding the timing example, and a FIXED verdict whose
# winning patch is fix.diff with EXTRA (git headers) in front.
pr_setup() {
	export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
	mkdir -p "$HOME" "$T/repo"
	git config --global user.name "Test User"
	git config --global user.email test@example.invalid
	git config --global init.defaultBranch main
	cp "$EX/timing/test_cache.py" "$T/repo/"
	chmod 644 "$T/repo/test_cache.py"
	echo 'not a script' >"$T/repo/README"
	git -C "$T/repo" init -q
	git -C "$T/repo" add .
	git -C "$T/repo" commit -qm "the flaky test"
}

pr_verdict() {
	jq -c --arg x "$1" 'if .type == "verdict" then .winner.patch = $x + .winner.patch else . end' \
	    "$FX/pr/fixed.jsonl" >"$T/v.jsonl"
}

@test "rt-pr: a winning patch with rename headers is refused, exit 2, nothing written" {
	pr_setup
	pr_verdict $'diff --git a/README b/evil.sh\nsimilarity index 100%\nrename from README\nrename to evil.sh\ndiff --git a/test_cache.py b/test_cache.py\n'
	run rt-pr -C "$T/repo" --mbox "$T/m" "$T/v.jsonl"
	status_is 2
	has "renames and copies are not supported"
	[ ! -e "$T/m" ]
}

@test "rt-pr: the mbox ships only the checked sections, never a mode change rt-verify did not apply" {
	pr_setup
	pr_verdict $'diff --git a/test_cache.py b/test_cache.py\nold mode 100644\nnew mode 100755\nindex 1111111..2222222\n'
	run rt-pr -C "$T/repo" --mbox "$T/m" "$T/v.jsonl"
	status_is 0
	# git format-patch writes its own index lines; the attacker's never reach the mbox
	run grep -c '^new mode\|^old mode\|^index 1111111\.\.2222222' "$T/m"
	[ "$output" = 0 ]
	grep -qx -- '+++ b/test_cache.py' "$T/m"
	git clone -q "$T/repo" "$T/clone"
	git -C "$T/clone" am -q "$T/m"
	[ "$(git -C "$T/clone" ls-files -s test_cache.py | cut -c1-6)" = 100644 ]
}

@test "rt-diagnose: a redirect is not followed, so the key goes nowhere else" {
	mkdir -p "$T/proj"
	python3 "$RT_TOP/t/fake-llm.py" --fixture "$T/proj"
	# a server that sends every POST to /stolen on itself and logs each request
	python3 - "$T/srv.log" >"$T/port" <<-'EOF' &
	import sys, json
	from http.server import BaseHTTPRequestHandler, HTTPServer
	log = open(sys.argv[1], "a")
	class H(BaseHTTPRequestHandler):
	    def log_message(self, *a): pass
	    def do_POST(self):
	        n = int(self.headers.get("Content-Length") or 0)
	        self.rfile.read(n)
	        log.write(json.dumps({"path": self.path,
	            "auth": self.headers.get("Authorization") is not None}) + "\n")
	        log.flush()
	        self.send_response(307)
	        self.send_header("Location", "/stolen")
	        self.send_header("Content-Length", "0")
	        self.end_headers()
	    do_GET = do_POST
	s = HTTPServer(("127.0.0.1", 0), H)
	print(s.server_address[1], flush=True)
	s.serve_forever()
	EOF
	SRV_PID=$!
	for _ in $(seq 200); do [ -s "$T/port" ] && break; sleep 0.05; done
	export RETRIAL_API_BASE="http://127.0.0.1:$(cat "$T/port")/v1"
	export RETRIAL_API_KEY=sk-test-SECRET-7070
	echo '{"type":"measure","command":"./test_flaky.sh","trials":40,"failures":12,"rate":0.3,"ci_low":0.18,"ci_high":0.45,"confidence":0.95,"verdict":"FLAKY"}' >"$T/ev.jsonl"
	run rt-diagnose --no-cache -C "$T/proj" -s test_flaky.sh -m good "$T/ev.jsonl"
	status_is 2   # a model's failure is no hypothesis: exit 2
	hasnt sk-test-SECRET-7070
	echo "$output" | grep '^{' | jqe '.status == "http_error" and (.error | test("307"))'
	! grep -q stolen "$T/srv.log"
	grep -q '"/v1/chat/completions"' "$T/srv.log"
}

@test "rt-retry: hostile case names reach the command as data, never as shell text" {
	cd "$T"
	printf '%s\n' 'a;touch PWN1' '$(touch PWN2)' '`touch PWN3`' "'; touch PWN4; '" \
	    '"; touch PWN5; "' >cases
	run rt-retry -f cases -p none -c 'echo {}; echo "x{}y"; echo '\''q{}q'\''; echo $(echo {})'
	status_is 0
	! ls PWN* 2>/dev/null
	echo "$output" | grep '"type":"attempt"' | jqe -s 'length == 5 and
	    all(.outcome == "pass" and (.stdout | split("\n")[0]) == .case)'
	run rt-retry -f cases -p none -- sh -c 'echo "$1"' sh
	status_is 0
	! ls PWN* 2>/dev/null
}

@test "rt-verify: its temporary root is private (mode 0700) and removed afterwards" {
	cp -r "$FX/verify/pool" "$T/proj"
	hyp none $'--- a/test_pool.sh\n+++ b/test_pool.sh\n@@ -1 +1 @@\n-#!/bin/sh\n+#!/bin/sh\n' >"$T/h.jsonl"
	run rt-verify --keep -C "$T/proj" -n 4 -N 4 --seed 42 -- sh test_pool.sh <"$T/h.jsonl"
	d=$(ls -d "$T"/tmp/rt-verify.*)
	[ "$(stat -c %a "$d")" = 700 ]
	rm -rf "$T"/tmp/rt-verify.*
	run rt-verify -C "$T/proj" -n 4 -N 4 --seed 42 -- sh test_pool.sh <"$T/h.jsonl"
	[ -z "$(ls "$T/tmp")" ]
}

@test "rt-diagnose -v: credentials in RETRIAL_API_BASE are masked in the log" {
	RETRIAL_MODELS=m RETRIAL_API_BASE="http://user:secretpw@127.0.0.1:9/v1" \
		run rt-diagnose -v -t 2 -C "$EX/timing" -s test_cache.py </dev/null
	has "http://***@127.0.0.1:9/v1/chat/completions"
	hasnt "secretpw"
}
