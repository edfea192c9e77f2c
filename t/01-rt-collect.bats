#!/usr/bin/env bats
# rt-collect: one evidence record per trial.
load helper

@test "rt-collect: --help prints the synopsis, exit 0" {
	run rt-collect --help
	status_is 0
	has "usage: rt-collect"
	has "--shard K/N"
}

@test "rt-collect: --version" {
	run rt-collect --version
	status_is 0
	has "rt-collect (retrial)"
}

@test "rt-collect: unknown option is a usage error (exit 2)" {
	run rt-collect --bogus --cmd true
	status_is 2
}

@test "rt-collect: -n 0 and -n abc are rejected by name" {
	run rt-collect -n 0 --cmd true
	status_is 2
	has "-n 0: must be between 1 and"
	run rt-collect -n abc --cmd true
	status_is 2
	has "-n abc: not a whole number"
}

@test "rt-collect: no command, and --cmd with -- ARGV, are usage errors" {
	run rt-collect -n 2
	status_is 2
	has "no command"
	run rt-collect -n 2 --cmd true -- true
	status_is 2
	has "--cmd and -- ARGV are exclusive"
}

@test "rt-collect: --resume without --out, bad --shard" {
	run rt-collect --resume --cmd true
	status_is 2
	run rt-collect --shard 5/4 --cmd true
	status_is 2
	has "--shard K 5"
	run rt-collect --shard 2 --cmd true
	status_is 2
}

@test "rt-collect: one record per trial with outcome, exit code and stderr" {
	run rt-collect -n 6 -- "$EX/kth/every-kth.sh"
	status_is 0
	[ "$(echo "$output" | wc -l)" -eq 6 ]
	echo "$output" | jq -s -e 'map(.outcome) == ["pass","pass","fail","pass","pass","fail"]'
	echo "$output" | jq -s -e '.[2].exit_code == 1 and (.[2].stderr | test("EXHAUSTED pool after trial 3"))'
	echo "$output" | jq -s -e 'all(.type == "trial" and (.started_at | test("Z$")) and .env.host != null)'
}

@test "rt-collect: RETRIAL_TRIAL and RETRIAL_SEED reach the trial; --seed repeats seeds" {
	rt-collect -n 3 --seed 42 --cmd 'echo "$RETRIAL_TRIAL $RETRIAL_SEED"' > "$T/a"
	rt-collect -n 3 --seed 42 --cmd 'echo "$RETRIAL_TRIAL $RETRIAL_SEED"' > "$T/b"
	jq -e -s '.[1].stdout | startswith("2 ")' "$T/a"
	jq -e -s '.[1].stdout == "2 " + .[1].seed + "\n"' "$T/a"
	[ "$(jq -r .seed "$T/a")" = "$(jq -r .seed "$T/b")" ]
	[ "$(jq -r .seed "$T/a" | sort -u | wc -l)" -eq 3 ]
}

@test "rt-collect: a signal death is a fail with the signal, exit_code null" {
	run rt-collect -n 1 --cmd 'kill -9 $$'
	status_is 0
	echo "$output" | jq -e '.outcome == "fail" and .signal == 9 and .exit_code == null'
}

@test "rt-collect: a command not found is an error, not a failure" {
	rt-collect -n 2 -- /nonexistent/test-binary 2>"$T/err" | jq -s -e 'all(.outcome == "error" and (.error | test("cannot run")))'
	grep -q "could not run" "$T/err"
	rt-collect -n 2 --cmd 'no-such-command-xyz' 2>/dev/null | jq -s -e 'all(.outcome == "error" and .exit_code == 127)'
}

@test "rt-collect: --error-codes declares infrastructure exit codes" {
	rt-collect -n 1 --error-codes 2-5 --cmd 'exit 4' 2>/dev/null | jq -e '.outcome == "error" and (.error | test("exit code 4"))'
	run rt-collect -n 1 --error-codes 2-5 --cmd 'exit 1'
	echo "$output" | jq -e '.outcome == "fail"'
	run rt-collect --error-codes 9-2 --cmd true
	status_is 2
}

@test "rt-collect: --fail-if and --ignore-if set failures aside" {
	run rt-collect -n 1 --fail-if 'STALE' --cmd 'echo other >&2; exit 1'
	echo "$output" | jq -e '.outcome == "ignored"'
	run rt-collect -n 1 --fail-if 'STALE' --cmd 'echo STALE >&2; exit 1'
	echo "$output" | jq -e '.outcome == "fail"'
	run rt-collect -n 1 --ignore-if 'network unreachable' --cmd 'echo "network unreachable" >&2; exit 1'
	echo "$output" | jq -e '.outcome == "ignored"'
	run rt-collect --fail-if '(' --cmd true
	status_is 2
}

@test "rt-collect: --env sets a variable and records it" {
	run rt-collect -n 1 --env TZ=UTC --env FOO=bar --cmd 'echo "$FOO"'
	echo "$output" | jq -e '.stdout == "bar\n" and .env.FOO == "bar" and .env.TZ == "UTC"'
	run rt-collect --env =x --cmd true
	status_is 2
}

@test "rt-collect: timeout kills the group even when a grandchild holds the pipe" {
	run rt-collect -n 1 -t 0.3 --grace 0.2 --cmd 'sleep 60 & sleep 60; echo never'
	status_is 0
	echo "$output" | jq -e '.outcome == "timeout" and .signal == 15 and .stdout == ""'
}

@test "rt-collect: --timeout-signal sends the diagnostic signal first" {
	run rt-collect -n 1 -t 0.3 --timeout-signal USR1 --cmd 'trap "echo got-usr1 >&2; exit 3" USR1; sleep 60 & wait'
	echo "$output" | jq -e '.outcome == "timeout" and (.stderr | test("got-usr1"))'
}

@test "rt-collect: a background grandchild holding stdout does not hang a passing trial" {
	run rt-collect -n 1 --cmd 'sleep 30 & echo hi'
	status_is 0
	echo "$output" | jq -e '.outcome == "pass" and .stdout == "hi\n"'
}

@test "rt-collect: 100 MB of stdout is drained, kept head and tail, memory bounded" {
	run /usr/bin/env rt-collect -n 1 --max-output 1000 --cmd 'head -c 100000000 /dev/zero | tr "\0" x; echo END'
	status_is 0
	echo "$output" | jq -e '.stdout_bytes == 100000004 and .stdout_truncated and (.stdout | length) < 1100'
	echo "$output" | jq -e '.stdout | test("bytes omitted") and endswith("END\n")'
	# peak memory stays small whatever the output size (kilobytes, Linux)
	rss=$(/bin/sh -c 'rt-collect -n 1 --cmd "head -c 200000000 /dev/zero" >/dev/null & p=$!; m=0; while kill -0 $p 2>/dev/null; do r=$(awk "/VmHWM/{print \$2}" /proc/$p/status 2>/dev/null); [ -n "$r" ] && m=$r; sleep 0.05; done; echo $m')
	[ "$rss" -lt 50000 ]
}

@test "rt-collect: invalid UTF-8 and NUL bytes still make valid JSON" {
	run rt-collect -n 1 --cmd 'printf "a\377b\000c\n"; printf "\303\050" >&2'
	status_is 0
	echo "$output" | jq -e '.stdout == "a\ufffdb\u0000c\n" and .stderr == "\ufffd("'
}

@test "rt-collect: -j 2 runs trials concurrently" {
	run rt-collect -n 4 -j 2 --cmd 'sleep 0.3'
	echo "$output" | jq -s -e 'map(.concurrent) | max >= 1'
	[ "$(echo "$output" | wc -l)" -eq 4 ]
}

@test "rt-collect: --gap-ms rests before each trial, the first included" {
	run rt-collect -n 2 --gap-ms 50 --cmd true
	echo "$output" | jq -s -e 'all(.gap_ms == 50)'
}

@test "rt-collect: shards split the numbering and merge back with GNU parallel" {
	command -v parallel >/dev/null || skip "GNU parallel not installed"
	cd "$T"
	parallel --will-cite rt-collect -n 10 --shard {}/3 --seed 9 -o "s{}.jsonl" -- "$EX/kth/every-kth.sh" ::: 1 2 3
	cat s1.jsonl s2.jsonl s3.jsonl | jq -s -e 'map(.trial) | sort == [1,2,3,4,5,6,7,8,9,10]'
	jq -s -e 'map(.trial) == [2,5,8]' s2.jsonl
	cat s*.jsonl | rt-measure | jq -e '.trials == 10 and .failures == 3'
}

@test "rt-collect: SIGINT mid-run kills the trials, keeps whole lines, exits 130" {
	rt-collect -n 50 --cmd 'sleep 0.2; echo done' > "$T/out" &
	pid=$!
	sleep 1
	kill -INT $pid
	rc=0; wait $pid || rc=$?
	[ "$rc" -eq 130 ]
	n=$(wc -l < "$T/out")
	[ "$n" -ge 1 ] && [ "$n" -lt 50 ]
	jq -e -s 'all(.type == "trial")' "$T/out"
	! pgrep -f 'sleep 0.2; echo done' >/dev/null
}

@test "rt-collect: SIGTERM exits 143" {
	rt-collect -n 50 --cmd 'sleep 0.2' > "$T/out" &
	pid=$!
	sleep 0.5
	kill -TERM $pid
	rc=0; wait $pid || rc=$?
	[ "$rc" -eq 143 ]
}

@test "rt-collect: a closed pipe ends the run quietly, exit 141 (SIGPIPE)" {
	run bash -c 'rt-collect -n 100000 --cmd true | head -n 3; echo "rc=${PIPESTATUS[0]}"'
	has "rc=141"
	[ "$(echo "$output" | grep -c '"type":"trial"')" -eq 3 ]
}

@test "rt-collect: --resume after kill -9 continues the numbering" {
	rt-collect -n 200 -o "$T/r.jsonl" --cmd 'sleep 0.02' &
	pid=$!
	sleep 1
	kill -9 $pid
	wait $pid || true
	# simulate a torn last line, as a crash mid-write would leave
	printf '{"type":"trial","trial":99' >> "$T/r.jsonl"
	before=$(grep -c . "$T/r.jsonl")
	run rt-collect -n 60 -o "$T/r.jsonl" --resume --cmd 'sleep 0.02'
	status_is 0
	has "dropping a torn last line"
	jq -e -s 'map(.trial) | . == [range(1; 61)]' "$T/r.jsonl" || jq -e -s 'map(.trial) | length >= 60' "$T/r.jsonl"
	jq -e -s 'map(.trial) | (. | unique | length) == length' "$T/r.jsonl"
}

@test "rt-collect: --resume runs the holes a -j crash leaves below the highest trial" {
	# with -j 2 trials end out of order: a kill -9 can leave 1 2 4 without 3
	rt-collect -n 4 --seed 5 -- "$EX/kth/every-kth.sh" | sed 3d > "$T/h.jsonl"
	run rt-collect -n 6 --seed 5 -o "$T/h.jsonl" --resume -- "$EX/kth/every-kth.sh"
	status_is 0
	jq -s -e 'map(.trial) | sort == [1,2,3,4,5,6]' "$T/h.jsonl"
	rt-measure "$T/h.jsonl" | jq -e '.trials == 6 and .failures == 2'
}

@test "rt-collect: --resume with --shard runs only that shard's missing trials" {
	rt-collect -n 10 --shard 2/3 --seed 5 -- "$EX/kth/every-kth.sh" | sed 2d > "$T/s.jsonl"
	rt-collect -n 10 --shard 2/3 --seed 5 -o "$T/s.jsonl" --resume -- "$EX/kth/every-kth.sh"
	jq -s -e 'map(.trial) | sort == [2,5,8]' "$T/s.jsonl"
	# another shard resumed into the same file adds its own trials, not none
	rt-collect -n 10 --shard 1/3 --seed 5 -o "$T/s.jsonl" --resume -- "$EX/kth/every-kth.sh"
	jq -s -e 'map(.trial) | sort == [1,2,4,5,7,8,10]' "$T/s.jsonl"
}

@test "rt-collect: --resume refuses a file of another command, naming file:line" {
	rt-collect -n 2 -o "$T/c.jsonl" --cmd 'echo a'
	run rt-collect -n 4 -o "$T/c.jsonl" --resume --cmd 'echo b'
	status_is 2
	has "c.jsonl:1: a trial of another command"
	[ "$(wc -l < "$T/c.jsonl")" -eq 2 ]
}

@test "rt-collect: most trials errors: a loud warning with the first error's reason" {
	run rt-collect -n 3 --cmd 'nosuchcmd-rt'
	status_is 0
	has "WARNING: 3 of 3 trials were errors"
	has "trial 1: exit code 127 is declared infrastructure"
	has "nosuchcmd-rt"
	run rt-collect -n 2 -- /nonexistent/rt-x
	has "cannot run /nonexistent/rt-x"
}

@test "rt-collect: --out to an unwritable place fails with exit 2" {
	run rt-collect -n 1 -o /nonexistent/dir/x.jsonl --cmd true
	status_is 2
	has "/nonexistent/dir/x.jsonl"
}

# --- issue 23: reports that would hang, signals, crashes between records ---

# A report for trial N with two cases: k::first and k::tN (failed).
junit_runner() {
	cat > "$T/junit.sh" <<'SH'
#!/bin/sh
cat > "$RETRIAL_JUNIT" <<XML
<testsuite name="s"><testcase classname="k" name="first"/><testcase classname="k" name="t$RETRIAL_TRIAL"><failure message="boom"/></testcase></testsuite>
XML
SH
	chmod +x "$T/junit.sh"
}

@test "rt-collect --junit: a FIFO, a link to /dev/stdin or a directory at \$RETRIAL_JUNIT is refused, not read" {
	mkdir "$T/tmp"
	junit_runner
	cat > "$T/shapes.sh" <<'SH'
#!/bin/sh
case $RETRIAL_TRIAL in
1) mkfifo "$RETRIAL_JUNIT" ;;
2) ln -s /dev/stdin "$RETRIAL_JUNIT" ;;
3) mkdir "$RETRIAL_JUNIT" ;;
*) exec "$(dirname "$0")/junit.sh" ;;
esac
SH
	chmod +x "$T/shapes.sh"
	# timeout: a hang guard only (before the fix the FIFO blocked forever)
	run sh -c 'TMPDIR="$1/tmp" timeout -k 5 60 rt-collect -n 4 --junit -o "$1/o" -- "$1/shapes.sh" < /dev/zero' sh "$T"
	status_is 0
	has "trial 1: "
	has "junit report is a FIFO, not a regular file"
	has "junit report is a symbolic link, not a regular file"
	has "junit report is a directory, not a regular file"
	has "0 of 4 trials wrote no JUnit report, 3 an unreadable one"
	jqe -s 'map(select(.case == null) | .trial) == [1,2,3,4]' "$T/o"
	jqe -s 'map(select(.case) | .trial) == [4,4]' "$T/o"
	# the private directory is gone, with whatever the trials left in it
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "rt-collect --junit: TERM ends a run whose trials leave FIFOs at \$RETRIAL_JUNIT, exit 143, every record whole" {
	run sh -c '
	: > "$1/o"
	rt-collect -n 100000 --junit --cmd "mkfifo \"\$RETRIAL_JUNIT\"; sleep 0.01" >>"$1/o" 2>"$1/err" &
	pid=$!
	i=0; while [ "$(wc -l < "$1/o")" -lt 3 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
	kill -TERM $pid
	i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
	kill -9 $pid 2>/dev/null && { echo "still running after TERM"; exit 99; }
	wait $pid; echo "rc=$?"' sh "$T"
	has "rc=143"
	[ "$(grep -c . "$T/o")" -ge 3 ]
	jq -c . "$T/o" > /dev/null
}

@test "rt-collect: TERM ends a write blocked on a reader that stopped reading, exit 143" {
	mkfifo "$T/p"
	run sh -c '
	exec 7<>"$1/p"
	rt-collect -n 1000000 --cmd true > "$1/p" 2>/dev/null &
	pid=$!
	# until the pipe is full and rt-collect blocks in write(2)
	i=0; while ! grep -q pipe_write /proc/$pid/wchan 2>/dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
	grep pipe_write /proc/$pid/wchan; echo
	kill -TERM $pid
	i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
	kill -9 $pid 2>/dev/null && { echo "still running after TERM"; exit 99; }
	wait $pid; echo "rc=$?"' sh "$T"
	has "pipe_write"
	has "rc=143"
}

@test "rt-collect --junit: a trial's cases come first, its own record last" {
	junit_runner
	rt-collect -n 3 --junit -o "$T/o" -- "$T/junit.sh"
	jqe -s '[.[] | [.trial, (.case // "TRIAL")]] ==
	    [[1,"k::first"],[1,"k::t1"],[1,"TRIAL"],[2,"k::first"],[2,"k::t2"],[2,"TRIAL"],
	     [3,"k::first"],[3,"k::t3"],[3,"TRIAL"]]' "$T/o"
}

# The checks of one file after a crash and --resume: trials 1..N once each,
# two case records per trial, none doubled.
whole_units() {
	jqe -s --argjson n "$2" '
	    (map(select(.case == null) | .trial) | sort) == [range(1; $n + 1)] and
	    (map(select(.case) | [.trial, .case]) | length) == 2 * $n and
	    (map(select(.case) | [.trial, .case]) | unique | length) == 2 * $n and
	    all(.[] | select(.case); .case == "k::first" or .case == "k::t\(.trial)")' "$1"
}

@test "rt-collect --junit --resume: kill -9 between a trial's cases and its record reruns that trial, no case doubled" {
	junit_runner
	# RETRIAL_TEST_CRASH_AFTER_CASES=N: a test hook, SIGKILL right after
	# trial N's case records, before its trial record
	run env RETRIAL_TEST_CRASH_AFTER_CASES=3 rt-collect -n 5 --junit -o "$T/o" -- "$T/junit.sh"
	status_is 137
	jqe -s 'map(select(.case == null) | .trial) == [1,2] and
	    map(select(.case) | .trial) == [1,1,2,2,3,3]' "$T/o"
	# and a torn line after them, as a crash mid-write leaves
	printf '{"type":"trial","trial":3,"case":"k::t' >> "$T/o"
	run rt-collect -n 5 --junit -o "$T/o" --resume -- "$T/junit.sh"
	status_is 0
	has "o:9: dropping a torn last line"
	has "o:7: dropping 2 case records of trial 3, whose trial record is missing (a crash); it runs again"
	whole_units "$T/o" 5
	rt-measure --by case "$T/o" | jqe -s 'map(select(.case == "k::first"))[0].trials == 5'
}

@test "rt-collect --junit --resume: a crafted file with trial 3's cases and no trial 3 record" {
	junit_runner
	rt-collect -n 4 --junit -o "$T/full" -- "$T/junit.sh"
	# trials 1, 2 and 4 whole, then trial 3's cases alone: what a crash
	# leaves in a -j run where trial 4 ended before trial 3
	jq -c 'select(.trial != 3)' "$T/full" > "$T/o"
	jq -c 'select(.trial == 3 and .case)' "$T/full" >> "$T/o"
	run rt-collect -n 4 --junit -o "$T/o" --resume -- "$T/junit.sh"
	status_is 0
	has "dropping 2 case records of trial 3"
	whole_units "$T/o" 4
	# files of earlier versions (the trial's record before its cases) resume too
	jq -c 'select(.case == null)' "$T/full" | head -2 > "$T/old"
	jq -c 'select(.case == null) | .trial' "$T/full" > /dev/null
	jq -s -c '.[] | select(.trial <= 2)' "$T/full" | jq -s -c 'sort_by(.trial, (.case != null)) | .[]' > "$T/old"
	run rt-collect -n 4 --junit -o "$T/old" --resume -- "$T/junit.sh"
	status_is 0
	hasnt "dropping"
	jqe -s 'map(select(.case == null) | .trial) | sort == [1,2,3,4]' "$T/old"
	jqe -s 'map(select(.case)) | length == 8' "$T/old"
}

@test "a script that is not there did not run, in its interpreter's words; a command missing inside a script is a failure" {
	cd "$T"
	c1() { rt-collect -n 1 "$@" 2>/dev/null; }
	run c1 --cmd "sh missing.sh"
	status_is 0
	echo "$output" | jqe '.outcome == "error" and .runner == "script" and
	    .error == "the script did not run: sh: 0: cannot open missing.sh: No such file"'
	run c1 --cmd "bash missing.sh"
	echo "$output" | jqe '.outcome == "error" and .error == "the script did not run: bash: missing.sh: No such file or directory"'
	if command -v node >/dev/null 2>&1; then
		run c1 --cmd "node missing.js"
		echo "$output" | jqe --arg m "the script did not run: Error: Cannot find module '$T/missing.js'" '.outcome == "error" and .error == $m'
		# a require that fails inside a script that ran is the script's failure
		printf "require('./nothere');\n" >req.js
		run c1 --cmd "node req.js"
		echo "$output" | jqe '.outcome == "fail" and .error == null'
	fi
	rt-measure -n 3 --cmd "sh missing.sh" 2>/dev/null | jqe '.verdict == "ERROR" and .failures == 0'
	# the script ran, and a command in it was not there: its own failure
	printf 'if ! tool_not_installed --check; then echo "check failed"; exit 1; fi\n' >check.sh
	run c1 --cmd "sh check.sh"
	echo "$output" | jqe '.outcome == "fail" and .exit_code == 1 and .error == null and
	    (.stderr | contains("check.sh: 1: tool_not_installed: not found"))'
	# sh -c runs text, not a script; a later segment's runner wins
	run c1 --cmd "sh -c 'exit 1'"
	echo "$output" | jqe '.outcome == "fail" and .runner == "generic"'
	run c1 --cmd "sh check.sh; python3 -m pytest --version"
	echo "$output" | jqe '.runner == "pytest"'
}

@test "rt-collect --junit asks go test for -json itself: per-case records from plain go test, each -count run a repeat" {
	command -v go >/dev/null 2>&1 || skip "no go"
	export GOCACHE="$BATS_RUN_TMPDIR/gocache" GOPATH="$T/gopath" GOPROXY=off GOTOOLCHAIN=local GOFLAGS=-mod=mod
	cp -R "$RT_TOP/t/fixtures/runners/gorepeat" "$T/g"
	cd "$T/g"
	rt-collect -n 2 --junit --cmd "go test -count=4 ./..." > "$T/c.jsonl" 2>"$T/err"
	! grep -q "neither JUnit XML" "$T/err"
	id=example.com/gorepeat/store::TestFirstID
	jqe -s --arg id "$id" '[.[] | select(.case == $id)] | length == 8 and
	    map([.trial, .repeat, .attempt, .outcome]) == [[1,1,1,"pass"],[1,2,1,"fail"],[1,3,1,"pass"],[1,4,1,"pass"],
	      [2,1,1,"pass"],[2,2,1,"fail"],[2,3,1,"pass"],[2,4,1,"pass"]]' "$T/c.jsonl"
	jqe -s '[.[] | select(.case == null)] | length == 2 and all(.outcome == "fail" and .exit_code == 1)' "$T/c.jsonl"
	run sh -c 'rt-measure --by case "$1" 2>/dev/null' sh "$T/c.jsonl"
	echo "$output" | jqe -s --arg id "$id" 'map(select(.case == $id))[0] | .failures == 2 and .trials == 8'
}

@test "rt-collect --case: a test that fails one -count run of four fails its trial, whatever its last run said" {
	command -v go >/dev/null 2>&1 || skip "no go"
	export GOCACHE="$BATS_RUN_TMPDIR/gocache" GOPATH="$T/gopath" GOPROXY=off GOTOOLCHAIN=local GOFLAGS=-mod=mod
	cp -R "$RT_TOP/t/fixtures/runners/gorepeat" "$T/g"
	cd "$T/g"
	rt-collect -n 1 --case TestFirstID --cmd "go test -count=4 ./..." > "$T/c.jsonl" 2>"$T/err"
	jqe -s 'map(select(.case == null))[0] | .outcome == "fail" and .case_judged == "TestFirstID"' "$T/c.jsonl"
	rt-collect -n 1 --case TestPutGet --cmd "go test -count=4 ./..." > "$T/p.jsonl" 2>"$T/err"
	jqe -s 'map(select(.case == null))[0] | .outcome == "pass" and
	    .others_failed == ["example.com/gorepeat/store::TestFirstID"]' "$T/p.jsonl"
}

@test "rt-collect --junit: a runner retrial cannot ask for a report gets one line saying what to do" {
	cd "$T"
	# the only trial had no report: exit 2 (issue 31)
	run sh -c 'rt-collect -n 1 --junit -- true > "$1/c.jsonl" 2>"$1/err"' sh "$T"
	status_is 2
	grep -q '^rt-collect: trial 1: no JUnit report at \$RETRIAL_JUNIT (No such file or directory) (generic has no report option retrial can add: the command must write a JUnit report to \$RETRIAL_JUNIT)$' "$T/err"
}
