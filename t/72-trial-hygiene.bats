#!/usr/bin/env bats
# Trial hygiene (rt-collect(1), ENVIRONMENT OF A TRIAL and CAVEATS): a trial
# gets no credential of ours, no descriptor but 0-2, and owns what it
# started — what it leaves running is killed when its main process exits.
load helper

FX="$RT_TOP/t/fixtures/verify"
LFX="$RT_TOP/t/fixtures/leftovers"
SNOOP="$RT_TOP/t/fixtures/secrets/snoop.sh"

setup() {
	export GITHUB_TOKEN=gh-secret RETRIAL_API_KEY=rt-secret FIREWORKS_API_KEY=fw-secret
}

teardown() {
	# never leave a sleeper behind, even when a test failed half way
	for f in "$T"/pid*; do
		[ -f "$f" ] && kill -9 $(cat "$f") 2>/dev/null
	done
	[ -n "${D:-}" ] && [ -f "$D/up" ] && kill -9 $(cat "$D/up") 2>/dev/null
	return 0
}

# shape_dir: a copy of the leftover shapes (t/fixtures/leftovers) in
# $D, a directory named by a marker unique to the test ($MK), with a
# "sleep" there: every process of a shape carries $MK in its argv
shape_dir() {
	MK="rtmark-$$-$BATS_TEST_NUMBER-$RANDOM"
	D="$T/$MK"
	mkdir -p "$D"
	cp "$LFX"/*.sh "$D"
	ln -s "$(command -v sleep)" "$D/sleep"
}

# none_left: no process of the shape runs. One SIGKILLed as the tool
# returned may still be on its way out; a survivor sleeps 1000 s.
none_left() {
	i=0
	while pgrep -f "$MK" >/dev/null; do
		i=$((i + 1))
		if [ "$i" -ge 50 ]; then
			echo "left running:" >&2
			pgrep -af "$MK" >&2
			return 1
		fi
		sleep 0.1
	done
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
	export MY_SETTING=pw1 DB_URL=pw2 CLOUD_KEY=pw3 HARMLESS=visible
	RETRIAL_SCRUB="DB_URL, CLOUD_KEY" trial_env --unset-env MY_SETTING
	has "HARMLESS=visible"
	hasnt "MY_SETTING="
	hasnt "DB_URL=pw2"
	hasnt "CLOUD_KEY=pw3"
	RETRIAL_SCRUB="DB_URL CLOUD_KEY" trial_env --keep-env CLOUD_KEY
	hasnt "DB_URL=pw2"
	has "CLOUD_KEY=pw3"
	has "MY_SETTING=pw1"
	# a credential's name needs no list: *_PASSWORD, *_TOKEN, AWS_*, ...
	export DB_PASSWORD=pw4 SLACK_TOKEN=pw5 AWS_REGION=pw6
	trial_env
	hasnt "pw4"
	hasnt "pw5"
	hasnt "pw6"
	trial_env --keep-env AWS_REGION
	has "AWS_REGION=pw6"
	hasnt "pw5"
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

# --- leftovers: the shapes that escaped (issue 23) ---

@test "hygiene: no leftover of any shape survives rt-collect; each is counted" {
	# shape, then how many processes it leaves: parent and child but for
	# the one disowned job; with the trial's cgroup and without (the
	# /proc walk alone)
	for sc in ignore-term:2 daemon:2 pgrp:2 nohup:2 disown:1 \
	    nocg:daemon:2 nocg:pgrp:2; do
		case $sc in
		nocg:*) export RETRIAL_NO_CGROUP=1 sc=${sc#nocg:} ;;
		*) unset RETRIAL_NO_CGROUP ;;
		esac
		s=${sc%:*}
		shape_dir
		sh=sh
		[ "$s" = disown ] && sh=bash
		rt-collect -n 1 --grace 0.2 -o "$D/rec" --cmd "$sh '$D/$s.sh'"
		jqe --argjson n "${sc#*:}" '.outcome == "pass" and .leftovers == $n' "$D/rec" ||
			{ echo "shape $s: $(cat "$D/rec")" >&2; return 1; }
		none_left
	done
}

@test "hygiene: a daemon that forks while it is swept leaves nothing" {
	for cg in "" 1; do
		export RETRIAL_NO_CGROUP=$cg
		shape_dir
		rt-collect -n 1 --grace 0.2 -o "$D/rec" --cmd "sh '$D/spawner.sh'"
		jqe '.leftovers >= 2' "$D/rec"
		none_left
		# it did fork on: more children than the sweep saw at first
		[ "$(wc -l <"$D/up")" -gt 3 ]
	done
}

@test "hygiene: each trial runs in a cgroup of its own where cgroup v2 lets us (Linux)" {
	run rt-collect -n 2 -j 2 --cmd 'grep "^0::" /proc/self/cgroup'
	status_is 0
	case $output in
	*retrial-*) ;;
	*) skip "no writable cgroup v2 here: the /proc walk alone" ;;
	esac
	jqe -s 'map(.stdout | test("/retrial-[0-9]+/trial-[0-9]+-[0-9]+\n$")) == [true, true]' <<<"$output"
	jqe -s '.[0].stdout != .[1].stdout' <<<"$output"
	# and nothing of it is left behind
	dir=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") print $5; break } }' \
		/proc/self/mountinfo | head -n 1)
	[ -d "$dir" ]
	! ls "$dir$(sed -n 's/^0:://p' /proc/self/cgroup)" | grep -q "^retrial-"
	RETRIAL_NO_CGROUP=1 run rt-collect -n 1 --cmd 'grep "^0::" /proc/self/cgroup'
	hasnt "retrial-"
}

@test "hygiene: --timeout on a main process that ignores TERM leaves nothing" {
	shape_dir
	rt-collect -n 1 --timeout 0.5 --grace 0.2 -o "$D/rec" --cmd "sh '$D/timeout.sh'"
	jqe '.outcome == "timeout" and .leftovers >= 2' "$D/rec"
	none_left
}

@test "hygiene: rt-measure and rt-retry leave no daemon's child either" {
	shape_dir
	rt-measure -n 1 --grace 0.2 --facts "$D/f1" --cmd "sh '$D/daemon.sh'" >/dev/null
	jqe '.leftovers == 2' "$D/f1"
	none_left
	shape_dir
	rt-measure -n 1 --timeout 0.5 --grace 0.2 --facts "$D/f2" --cmd "sh '$D/timeout.sh'" >/dev/null
	jqe '.outcome == "timeout" and .leftovers >= 2' "$D/f2"
	none_left
	shape_dir
	echo case1 | rt-retry --grace 0.2 --cmd "sh '$D/pgrp.sh'" >"$D/out"
	jqe -s 'map(select(.type == "attempt")) | .[0].leftovers == 2' "$D/out"
	none_left
	shape_dir
	echo case1 | rt-retry --timeout 0.5 --grace 0.2 --cmd "sh '$D/timeout.sh'" >"$D/out" || true
	jqe -s 'map(select(.type == "attempt")) | .[0].outcome == "timeout"' "$D/out"
	none_left
}

@test "hygiene: SIGTERM to rt-collect mid-trial leaves no daemon's child" {
	shape_dir
	rt-collect -n 1 --grace 0.2 -o "$D/rec" --cmd "sh '$D/timeout.sh'" &
	pid=$!
	while [ "$(cat "$D/up" 2>/dev/null | wc -l)" -lt 3 ]; do sleep 0.05; done
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 143 ]
	none_left
}

# --- secrets: nothing to read in the environment, ours or an ancestor's ---

# The 16 fake credentials, one value prefix to look for, and one more
# named in RETRIAL_SCRUB.
secret_env() {
	SV="fake-$RANDOM$RANDOM"
	SECRETS=()
	for v in GITHUB_TOKEN RETRIAL_API_KEY FIREWORKS_API_KEY AWS_SECRET_ACCESS_KEY \
	    AWS_ACCESS_KEY_ID AWS_SESSION_TOKEN NPM_TOKEN CI_JOB_TOKEN \
	    ACTIONS_ID_TOKEN_REQUEST_TOKEN ACTIONS_ID_TOKEN_REQUEST_URL DB_PASSWORD \
	    MY_API_KEY SLACK_TOKEN CLIENT_SECRET GH_TOKEN STRIPE_SECRET_KEY; do
		SECRETS+=("$v=$SV-$v")
	done
	SECRETS+=("DB_URL=$SV-DB_URL" "RETRIAL_SCRUB=DB_URL" "HARMLESS=visible")
	unset GITHUB_TOKEN RETRIAL_API_KEY FIREWORKS_API_KEY
}

# snooped FILE: the trial read its environment and its ancestors' (the
# tool's among them) and found no credential
snooped() {
	run cat "$1"
	has "HARMLESS=visible"
	has "--- "
	hasnt "$SV"
}

@test "hygiene: no trial finds a credential in any ancestor's /proc/PID/environ" {
	secret_env
	env "${SECRETS[@]}" rt-collect -n 1 -o "$T/r1" --cmd "sh '$SNOOP'"
	jq -r .stdout "$T/r1" >"$T/s1"
	snooped "$T/s1"
	env "${SECRETS[@]}" rt-measure -n 1 --facts "$T/r2" --cmd "sh '$SNOOP'" >/dev/null
	jq -r .stdout "$T/r2" >"$T/s2"
	snooped "$T/s2"
	env "${SECRETS[@]}" rt-matrix -n 1 --tz UTC --facts "$T/r3" --cmd "sh '$SNOOP'" >/dev/null
	jq -r .stdout "$T/r3" >"$T/s3"
	snooped "$T/s3"
	echo case1 | env "${SECRETS[@]}" rt-retry --cmd "sh '$SNOOP'" >"$T/r4"
	jq -r 'select(.type == "attempt") | .stdout' "$T/r4" >"$T/s4"
	snooped "$T/s4"
	printf 't1\nt2\n' >"$T/list"
	env "${SECRETS[@]}" rt-bisect -v t2 -f "$T/list" -n 2 --max-trials 4 \
		--cmd "sh '$SNOOP' >>'$T/s5'" >/dev/null
	snooped "$T/s5"
}

@test "hygiene: rt-verify's trials find no credential in their ancestors either" {
	secret_env
	cp -R "$FX/pool" "$T/proj"
	# unconfined, so the trial can write $T/s6 and see its real ancestors
	# (the sandbox, t/74, hides them in a pid namespace of its own)
	env "${SECRETS[@]}" rt-verify -C "$T/proj" -n 4 -N 4 -j 1 --seed 42 --no-genome \
		--sandbox none --no-canary --cmd "sh '$SNOOP' >>'$T/s6'; ./test_pool.sh" \
		"$FX/pool.jsonl" >"$T/out" 2>"$T/err" || true
	snooped "$T/s6"
}

@test "hygiene: --keep-env passes that one credential to the trial, and only there" {
	secret_env
	env "${SECRETS[@]}" rt-collect -n 1 --keep-env DB_PASSWORD --keep-env DB_URL \
		-o "$T/r1" --cmd "sh '$SNOOP'"
	run jq -r .stdout "$T/r1"
	has "DB_PASSWORD=$SV-DB_PASSWORD"
	has "DB_URL=$SV-DB_URL"
	hasnt "$SV-GITHUB_TOKEN"
	hasnt "$SV-AWS_"
	# the tool's own environment holds no value, the kept ones included
	run sh -c 'jq -r .stdout "$1" | sed -n "/^--- [0-9]* rt-collect\$/,/^--- /p"' sh "$T/r1"
	has "--- "
	hasnt "$SV"
	# rt-measure the same
	env "${SECRETS[@]}" rt-measure -n 1 --keep-env CLIENT_SECRET --facts "$T/r2" \
		--cmd 'env' >/dev/null
	run jq -r .stdout "$T/r2"
	has "CLIENT_SECRET=$SV-CLIENT_SECRET"
	hasnt "$SV-DB_PASSWORD"
}

@test "hygiene: under another uid the tool's /proc/PID/environ is closed to its trial" {
	[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null || skip "needs root and setpriv"
	cd "$T"
	run setpriv --reuid 65534 --regid 65534 --clear-groups \
		"$RT_TOP/bin/rt-collect" -n 1 --cmd 'cat /proc/$PPID/environ >/dev/null'
	status_is 0
	jq -e '.exit_code != 0' <<<"$output" >/dev/null
	has "Permission denied"
}
