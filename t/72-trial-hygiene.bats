#!/usr/bin/env bats
# Trial hygiene (rt-collect(1), ENVIRONMENT OF A TRIAL and CAVEATS): a trial
# gets no credential of ours, no descriptor but 0-2, and owns what it
# started — what it leaves running is killed when its main process exits.
load helper

FX="$RT_TOP/t/fixtures/verify"

setup() {
	export GITHUB_TOKEN=gh-secret RETRIAL_API_KEY=rt-secret FIREWORKS_API_KEY=fw-secret
}

teardown() {
	# never leave a sleeper behind, even when a test failed half way
	for f in "$T"/pid*; do
		[ -f "$f" ] && kill -9 $(cat "$f") 2>/dev/null
	done
	return 0
}

# gone PID: the process no longer runs (absent, or a zombie not yet reaped)
gone() {
	s=$(ps -o stat= -p "$1" 2>/dev/null) || return 0
	case $s in Z*|"") return 0 ;; esac
	echo "process $1 still runs ($s)" >&2
	return 1
}

# trial_env ARGS...: the environment one rt-collect trial saw, in $output
trial_env() {
	run sh -c 'rt-collect -n 1 "$@" --cmd env | jq -r .stdout' sh "$@"
	status_is 0
}

# --- usage ---

@test "hygiene: the trial options are in --help; bad names exit 2" {
	for tool in rt-collect rt-measure rt-matrix rt-verify rt-retry; do
		run "$tool" --help
		has "--unset-env NAME"
		has "--keep-env NAME"
		has "--keep-background"
	done
	run rt-collect --unset-env 'A=B' --cmd true
	status_is 2
	has "--unset-env A=B: want a variable name"
	run rt-collect --keep-env '' --cmd true
	status_is 2
	has "want a variable name"
}

# --- environment ---

@test "hygiene: a trial lacks retrial's credentials by default" {
	trial_env
	has "RETRIAL_TRIAL=1"
	hasnt "GITHUB_TOKEN"
	hasnt "RETRIAL_API_KEY"
	hasnt "FIREWORKS_API_KEY"
	hasnt "secret"
}

@test "hygiene: --keep-env opts one credential back in, and only that one" {
	trial_env --keep-env GITHUB_TOKEN
	has "GITHUB_TOKEN=gh-secret"
	hasnt "RETRIAL_API_KEY"
	hasnt "FIREWORKS_API_KEY"
}

@test "hygiene: --unset-env and RETRIAL_SCRUB remove more; --keep-env wins" {
	export MY_PASSWORD=pw1 DB_URL=pw2 CLOUD_KEY=pw3 HARMLESS=visible
	RETRIAL_SCRUB="DB_URL, CLOUD_KEY" trial_env --unset-env MY_PASSWORD
	has "HARMLESS=visible"
	hasnt "MY_PASSWORD="
	hasnt "DB_URL=pw2"
	hasnt "CLOUD_KEY=pw3"
	RETRIAL_SCRUB="DB_URL CLOUD_KEY" trial_env --keep-env CLOUD_KEY
	hasnt "DB_URL=pw2"
	has "CLOUD_KEY=pw3"
	has "MY_PASSWORD=pw1"
}

@test "hygiene: rt-measure, rt-matrix and rt-retry trials are scrubbed too" {
	rt-measure -n 1 --facts "$T/f1" --cmd env >/dev/null
	rt-matrix -n 1 --tz UTC --facts "$T/f2" --cmd env >/dev/null
	echo case1 | rt-retry --cmd env >"$T/f3"
	for f in f1 f2 f3; do
		run jq -r 'select(.stdout) | .stdout' "$T/$f"
		has "RETRIAL_SEED="
		hasnt "secret"
	done
	# and --keep-env reaches them all the same way
	rt-matrix -n 1 --tz UTC --keep-env GITHUB_TOKEN --facts "$T/f4" --cmd env >/dev/null
	run jq -r .stdout "$T/f4"
	has "GITHUB_TOKEN=gh-secret"
}

@test "hygiene: a patched lane of rt-verify does not see the credentials either" {
	cp -R "$FX/shexit" "$T/proj"
	export ENV_OUT="$T/lane-env"
	# the model-written patch dumps the environment from inside the test
	# (to $T: unconfined, as t/74-sandbox keeps a lane inside its copy)
	patch='--- a/test_end.sh
+++ b/test_end.sh
@@ -3,2 +3,3 @@
 # (like examples/lingering/test_lock.sh).
+env >>"$ENV_OUT"
 out=$(./pool.sh acquire 2>&1)
'
	jq -nc --arg p "$patch" '{type:"hypothesis", id:"h-env", source:"model:m",
		model:"m", cause_class:"concurrency", explanation:"Dump env.", patch:$p,
		files:["test_end.sh"], status:"ok", evidence_digest:("0" * 64)}' >"$T/h.jsonl"
	(echo '{"type":"measure","trials":30,"failures":10}'; cat "$T/h.jsonl") |
		rt-verify -C "$T/proj" -N 4 -j 2 --seed 42 --no-genome --no-canary \
		--sandbox none --cmd ./test_end.sh >"$T/out" 2>"$T/err" || true
	tail -n 1 "$T/out" | jqe '.lanes[] | select(.id == "h-env") | .trials > 0'
	# the lane ran: the patch wrote its environment
	grep -q "^RETRIAL_TRIAL=" "$ENV_OUT"
	run cat "$ENV_OUT"
	hasnt "secret"
	hasnt "GITHUB_TOKEN"
}

# --- descriptors ---

@test "hygiene: a trial has only 0, 1, 2 with --facts open and a stray fd 5" {
	# ls's own directory takes the lowest free descriptor: 3 when nothing leaked
	exec 5>"$T/stray"
	rt-measure -n 2 --facts "$T/facts" --cmd 'ls /proc/self/fd | tr "\n" " "' >/dev/null
	exec 5>&-
	jqe -s 'length == 2 and all(.stdout == "0 1 2 3 ")' "$T/facts"
	exec 5>"$T/stray"
	rt-collect -n 1 -o "$T/rec" --cmd 'ls /proc/self/fd | tr "\n" " "'
	exec 5>&-
	jqe '.stdout == "0 1 2 3 "' "$T/rec"
}

@test "hygiene: rt-verify's trials, patched lanes included, get no --events descriptor" {
	cp -R "$FX/pool" "$T/proj"
	export FDS="$T/fds"
	exec 5>"$T/stray"
	rt-verify -C "$T/proj" -n 20 -N 10 -j 2 --seed 42 --no-genome --no-canary \
		--events "$T/ev" --sandbox none \
		--cmd 'printf "%s\n" "$(ls /proc/self/fd | tr "\n" " ")" >>"$FDS"; ./test_pool.sh' \
		"$FX/pool.jsonl" >"$T/out" 2>"$T/err" 3>"$T/three" || true
	exec 5>&-
	[ -s "$T/ev" ]
	# the patched lanes ran too
	jqe -s 'any(.event == "trial" and .lane == "h-fix")' "$T/ev"
	[ "$(sort -u "$FDS")" = "0 1 2 3 " ]
}

# --- leftovers ---

@test "hygiene: a background job left after a normal exit is killed; leftovers 1" {
	rt-collect -n 1 -o "$T/rec" --cmd "sleep 1000 & echo \$! >'$T/pid1'; exit 0"
	jqe '.outcome == "pass" and .leftovers == 1' "$T/rec"
	gone "$(cat "$T/pid1")"
}

@test "hygiene: a leftover that ignores SIGTERM gets SIGKILL after --grace" {
	rt-collect -n 1 -o "$T/rec" --grace 0.3 \
		--cmd "(trap '' TERM; exec sleep 1000) & echo \$! >'$T/pid7'; exit 0"
	jqe '.leftovers == 1' "$T/rec"
	gone "$(cat "$T/pid7")"
}

@test "hygiene: a trial that leaves nothing running says leftovers 0" {
	rt-collect -n 2 -o "$T/rec" --cmd 'true'
	jqe -s 'map(.leftovers) == [0, 0]' "$T/rec"
}

@test "hygiene: a setsid daemon is found and killed (Linux)" {
	[ "$(uname -s)" = Linux ] || skip "subreaper is Linux only"
	rt-collect -n 1 -o "$T/rec" --cmd "setsid sleep 1000 & echo \$! >'$T/pid2'; sleep 0.2; exit 0"
	jqe '.leftovers == 1' "$T/rec"
	gone "$(cat "$T/pid2")"
}

@test "hygiene: a setsid daemon escapes no more through a timeout (Linux)" {
	[ "$(uname -s)" = Linux ] || skip "subreaper is Linux only"
	rt-collect -n 1 -o "$T/rec" --timeout 0.5 --grace 0.2 \
		--cmd "setsid sleep 1000 & echo \$! >'$T/pid3'; sleep 100"
	jqe '.outcome == "timeout"' "$T/rec"
	gone "$(cat "$T/pid3")"
}

@test "hygiene: --keep-background leaves them running and still counts them" {
	rt-collect -n 1 -o "$T/rec" --keep-background \
		--cmd "sleep 1000 & echo \$! >'$T/pid4'; setsid sleep 1000 & echo \$! >'$T/pid5'; sleep 0.2; exit 0"
	jqe '.leftovers == 2' "$T/rec"
	kill -0 "$(cat "$T/pid4")"
	kill -0 "$(cat "$T/pid5")"
	kill "$(cat "$T/pid4")" "$(cat "$T/pid5")"
}

@test "hygiene: parallel trials each kill their own leftovers only" {
	# with -j 2 a daemon of one trial must not be counted by the other
	rt-collect -n 4 -j 2 -o "$T/rec" \
		--cmd "setsid sleep 1000 & echo \$! >>'$T/pid6'; sleep 0.3; exit 0"
	jqe -s 'length == 4 and all(.leftovers == 1)' "$T/rec"
	for p in $(cat "$T/pid6"); do gone "$p"; done
}
