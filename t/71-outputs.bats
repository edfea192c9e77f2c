#!/usr/bin/env bats
# t/71-outputs.bats: files named for output behave like shell redirection
# (/dev/stdout, /dev/fd/N are the descriptor, devices and FIFOs written in
# place, symlinks opened by the kernel, "-" is stdout), one writer per
# record file in every tool, SIGHUP stops like SIGTERM (exit 129), and a
# gone stdout reader ends every tool with 141 after its named files.
load helper

# mkdev: a character device like /dev/null, made in $T so that a tool which
# replaced it would harm nothing; skips where mknod is not allowed.
mkdev() {
	mknod "$T/null" c 1 3 2>/dev/null || skip "mknod not permitted"
	[ -c "$T/null" ]
}

# wait_for FILE: until FILE exists (a bounded poll, not a timing assertion)
wait_for() {
	for _ in $(seq 400); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	echo "never appeared: $1" >&2
	return 1
}

# --- rt-measure -o: a result written whole ---

@test "outputs: -o to a character device writes in place; the device stays a device" {
	mkdev
	run rt-measure -n 2 -o "$T/null" --cmd true
	status_is 0
	[ -c "$T/null" ]
	[ -z "$(ls "$T" | grep tmp)" ]
}

@test "outputs: -o to a FIFO writes into it; the FIFO stays a FIFO" {
	mkfifo "$T/fifo"
	cat "$T/fifo" > "$T/got" 3>&- &
	cat_pid=$!
	run rt-measure -n 2 -o "$T/fifo" --cmd true
	status_is 0
	wait "$cat_pid"
	[ -p "$T/fifo" ]
	jq -e '.type == "measure" and .trials == 2' "$T/got"
}

@test "outputs: -o through a symlink updates the target; the link stays a link" {
	echo old > "$T/real"
	chmod 600 "$T/real"
	ln -s real "$T/link"
	ino=$(stat -c %i "$T/real")
	run rt-measure -n 2 -o "$T/link" --cmd true
	status_is 0
	[ -L "$T/link" ]
	[ "$(readlink "$T/link")" = real ]
	jq -e '.type == "measure" and .trials == 2' "$T/real"
	# written through the link in place, as `> link` does: the same file,
	# its mode kept, no temporary left beside it
	[ "$(stat -c %i "$T/real")" = "$ino" ]
	[ "$(stat -c %a "$T/real")" = 600 ]
	[ -z "$(ls "$T" | grep tmp)" ]
	# a plain regular file is replaced atomically (a new file), mode kept
	run rt-measure -n 1 -o "$T/real" --cmd true
	status_is 0
	[ "$(stat -c %i "$T/real")" != "$ino" ]
	[ "$(stat -c %a "$T/real")" = 600 ]
	# a dangling link gets its target created, as `>` would
	ln -s made "$T/dangling"
	run rt-measure -n 1 -o "$T/dangling" --cmd true
	status_is 0
	[ -L "$T/dangling" ] && [ -f "$T/made" ]
	jq -e '.trials == 1' "$T/made"
}

@test "outputs: -o - writes to stdout, and no file named '-' appears" {
	cd "$T"
	run rt-measure -n 2 -o - --cmd true
	status_is 0
	[ "$(echo "$output" | grep -c '"type":"measure"')" -eq 2 ]
	[ ! -e "$T/-" ]
}

# --- rt-collect -o: records streamed as they happen ---

@test "outputs: rt-collect -o to a device, a FIFO, a symlink and -" {
	mkdev
	run rt-collect -n 2 -o "$T/null" --cmd true
	status_is 0
	[ -c "$T/null" ]
	mkfifo "$T/fifo"
	cat "$T/fifo" > "$T/got" 3>&- &
	cat_pid=$!
	run rt-collect -n 3 -o "$T/fifo" --cmd true
	status_is 0
	wait "$cat_pid"
	[ -p "$T/fifo" ]
	jq -s -e 'map(.trial) == [1,2,3]' "$T/got"
	touch "$T/real"
	ln -s real "$T/link"
	run rt-collect -n 2 -o "$T/link" --cmd true
	status_is 0
	[ -L "$T/link" ]
	jq -s -e 'map(.trial) == [1,2]' "$T/real"
	run rt-collect -n 3 -o "$T/link" --resume --cmd true
	status_is 0
	[ -L "$T/link" ]
	jq -s -e 'map(.trial) == [1,2,3]' "$T/real"
	cd "$T"
	run rt-collect -n 2 -o - --cmd true
	status_is 0
	[ "$(echo "$output" | grep -c '"type":"trial"')" -eq 2 ]
	[ ! -e "$T/-" ]
	run rt-collect -n 2 -o - --resume --cmd true
	status_is 2
	has "--resume needs --out FILE"
}

# --- every other tool's named outputs ---

@test "outputs: --facts of rt-measure and rt-matrix to a device stay devices" {
	mkdev
	run rt-measure -n 2 --facts "$T/null" --cmd true
	status_is 0
	[ -c "$T/null" ]
	run rt-matrix -n 2 --env A=1 --facts "$T/null" --cmd true
	status_is 0
	[ -c "$T/null" ]
	touch "$T/real"
	ln -s real "$T/link"
	run rt-matrix -n 2 --env A=1 --facts "$T/link" --cmd true
	status_is 0
	[ -L "$T/link" ]
	[ "$(jq -s length "$T/real")" -ge 4 ]
}

@test "outputs: rt-retry --junit to a device, a symlink and -" {
	mkdev
	printf '%s\n' a b > "$T/cases"
	run rt-retry -f "$T/cases" --junit "$T/null" --cmd true
	status_is 0
	[ -c "$T/null" ]
	touch "$T/real"
	ln -s real "$T/link"
	run rt-retry -f "$T/cases" --junit "$T/link" --cmd true
	status_is 0
	[ -L "$T/link" ]
	grep -q '<testsuite' "$T/real"
	run rt-retry -f "$T/cases" --junit - --cmd true
	status_is 0
	has '<testsuite'
	has '"type":"group"'
}

@test "outputs: rt-pr --body to a device and through a symlink" {
	mkdev
	export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
	mkdir -p "$HOME"
	run rt-pr --body "$T/null" "$RT_TOP/t/fixtures/pr/fixed.jsonl"
	status_is 0
	[ -c "$T/null" ]
	touch "$T/real"
	ln -s real "$T/link"
	run rt-pr --body "$T/link" "$RT_TOP/t/fixtures/pr/fixed.jsonl"
	status_is 0
	[ -L "$T/link" ]
	grep -q 'Verdict: FIXED' "$T/real"
}

@test "outputs: rt-report's files follow a symlink and write into a device" {
	mkdev
	mkdir "$T/o"
	touch "$T/real"
	ln -s ../real "$T/o/report.md"
	ln -s ../null "$T/o/summary.json"
	run rt-report -o "$T/o" "$RT_TOP/t/fixtures/report/measure.jsonl"
	status_is 0
	[ -L "$T/o/report.md" ] && [ -L "$T/o/summary.json" ]
	[ -c "$T/null" ]
	[ -s "$T/real" ]
}

@test "outputs: rt-verify --events to a device stays a device" {
	mkdev
	mkdir -p "$T/tmp"
	rc=0
	TMPDIR="$T/tmp" rt-verify -C "$RT_TOP/t/fixtures/verify/pool" -n 30 -N 40 -j 2 \
	    --seed 42 --no-genome --events "$T/null" --cmd ./test_pool.sh \
	    "$RT_TOP/t/fixtures/verify/pool.jsonl" > "$T/out" 2> "$T/err" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$T/err"; false; }
	[ -c "$T/null" ]
}

# --- descriptor names: /dev/stdout, /dev/stderr, /dev/fd/N, as the shell ---

# audit_in: per-case trial records for rt-audit, the shape rt-junit writes
audit_in() {
	local i
	for i in 1 2 3; do
		printf '{"type":"trial","trial":%s,"case":"t.a","outcome":"pass","result":"success","attempt":1,"time_ms":1.5,"message":null,"failure_type":null,"stdout":"","stderr":"","report":"junit/n1.xml","run":"n1","revision":"aaa","timestamp":"2026-11-01T03:00:00Z","position":null,"source":"junit"}\n' "$i"
	done > "$T/audit.jsonl"
}

# topipe CMD...: CMD with standard output a pipe (cat copies it to $T/p);
# fails unless CMD exits 0.
topipe() {
	local rc
	"$@" 2> "$T/e" | cat > "$T/p"
	rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] || { echo "exit $rc: $*" >&2; cat "$T/e" >&2; return 1; }
}

@test "outputs: /dev/stdout a pipe: every named output reaches the reader" {
	printf '%s\n' a b > "$T/cases"
	seq -f 't%03g' 1 8 > "$T/list"
	audit_in
	export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
	mkdir -p "$HOME"
	# results written whole
	topipe rt-measure -n 2 -o /dev/stdout --cmd true
	[ "$(grep -c '"type":"measure"' "$T/p")" -eq 2 ]
	topipe rt-bisect -v t005 -f "$T/list" -o /dev/stdout -- \
	    "$RT_TOP/t/fixtures/bisect/stub.sh" t003 t005 {}
	[ "$(grep -c '"type":"order"' "$T/p")" -eq 2 ]
	topipe rt-retry -f "$T/cases" --junit /dev/stdout --cmd true
	grep -q '<testsuite' "$T/p"
	grep -q '"type":"group"' "$T/p"
	topipe rt-audit -H "$T/audit.db" --md /dev/stdout --html /proc/self/fd/1 \
	    --json /dev/fd/1 "$T/audit.jsonl"
	grep -q '^# Flake audit 1' "$T/p"
	grep -q '<html' "$T/p"
	grep -q '"type":"audit"' "$T/p"
	topipe rt-pr --body /dev/stdout "$RT_TOP/t/fixtures/pr/fixed.jsonl"
	grep -q 'Verdict: FIXED' "$T/p"
	# a name that is a link to /dev/stdout is opened by the kernel
	mkdir "$T/o"
	ln -s /dev/stdout "$T/o/report.md"
	topipe rt-report -o "$T/o" "$RT_TOP/t/fixtures/report/measure.jsonl"
	grep -q "^$T/o/summary.json\$" "$T/p"
	[ "$(grep -c '^#' "$T/p")" -ge 1 ]
	[ -L "$T/o/report.md" ]
	# records streamed: whole lines, in order with what the tool prints
	topipe rt-measure -n 2 --facts /dev/stdout --cmd true
	jq -s -e 'map(.type) == ["trial", "trial", "measure"]' "$T/p"
	topipe rt-collect -n 3 -o /dev/stdout --cmd true
	jq -s -e 'map(.trial) == [1, 2, 3]' "$T/p"
	topipe rt-matrix -n 2 --env A=1 --facts /dev/stdout --cmd true
	jq -s -e 'map(select(.type == "trial")) | length >= 2' "$T/p"
	mkdir -p "$T/tmp"
	TMPDIR="$T/tmp" topipe rt-verify -C "$RT_TOP/t/fixtures/verify/pool" -n 30 -N 40 \
	    -j 2 --seed 42 --no-genome --events /dev/stdout --cmd ./test_pool.sh \
	    "$RT_TOP/t/fixtures/verify/pool.jsonl"
	jq -s -e 'map(select(.event == "race_started")) | length >= 1' "$T/p"
	jq -s -e 'map(select(.type == "verdict")) | length == 1' "$T/p"
}

@test "outputs: /dev/stdout a log opened with >>: the log keeps what it had and gains the record" {
	printf '%s\n' a b > "$T/cases"
	seq -f 't%03g' 1 8 > "$T/list"
	audit_in
	echo prior > "$T/app.log"
	rt-measure -n 1 -o /dev/stdout --cmd true >> "$T/app.log"
	rt-measure -n 2 --facts /dev/stdout --cmd true >> "$T/app.log"
	rt-collect -n 2 -o /dev/stdout --cmd true >> "$T/app.log"
	rt-bisect -v t005 -f "$T/list" -o /dev/stdout -- \
	    "$RT_TOP/t/fixtures/bisect/stub.sh" t003 t005 {} >> "$T/app.log"
	[ "$(head -1 "$T/app.log")" = prior ]
	tail -n +2 "$T/app.log" > "$T/records"
	jq -s -e 'map(.type) == ["measure", "measure", "trial", "trial", "measure",
	    "trial", "trial", "order", "order"]' "$T/records"
	rt-audit -H "$T/audit.db" --md /dev/stdout "$T/audit.jsonl" >> "$T/app.log"
	rt-retry -f "$T/cases" --junit /dev/stdout --cmd true >> "$T/app.log"
	[ "$(head -1 "$T/app.log")" = prior ]
	[ "$(grep -c '"type":"measure"' "$T/app.log")" -eq 3 ]
	grep -q '^# Flake audit 1' "$T/app.log"
	grep -q '<testsuite' "$T/app.log"
	# the same through /dev/fd/N and /proc/self/fd/N on a `>>` descriptor
	echo prior > "$T/five.log"
	rt-measure -n 1 -o /dev/fd/5 --cmd true 5>> "$T/five.log" >/dev/null
	rt-measure -n 1 -o /proc/self/fd/5 --cmd true 5>> "$T/five.log" >/dev/null
	[ "$(head -1 "$T/five.log")" = prior ]
	[ "$(grep -c '"type":"measure"' "$T/five.log")" -eq 2 ]
	# --resume reads its file back: a descriptor is refused, nothing redone
	run rt-collect -n 3 -o /dev/stdout --resume --cmd true
	status_is 2
	has "--resume needs --out FILE"
}

@test "outputs: /dev/fd/3 on a deleted file writes into it and creates no '(deleted)' file" {
	echo keep > "$T/gone.txt"
	ln "$T/gone.txt" "$T/keep.txt"
	bash -c 'exec 3>> "$1/gone.txt"; rm "$1/gone.txt"
	    rt-measure -n 1 -o /dev/fd/3 --cmd true >/dev/null &&
	    rt-measure -n 2 --facts /dev/fd/3 --cmd true >/dev/null &&
	    rt-collect -n 1 -o /dev/fd/3 --cmd true' sh "$T"
	[ -z "$(ls "$T" | grep -i deleted)" ]
	[ ! -e "$T/gone.txt" ]
	[ "$(head -1 "$T/keep.txt")" = keep ]
	tail -n +2 "$T/keep.txt" > "$T/records"
	jq -s -e 'map(.type) == ["measure", "trial", "trial", "trial"]' "$T/records"
}

@test "outputs: /dev/stderr gets the output, and standard output keeps its own" {
	# standard error a log opened with >>: kept, and the records added
	echo '{"type":"prior"}' > "$T/err"
	rt-measure -n 1 -o /dev/stderr --cmd true > "$T/out" 2>> "$T/err"
	jq -e '.type == "measure"' "$T/out"
	rt-collect -n 2 -o /dev/stderr --cmd true > "$T/out" 2>> "$T/err"
	[ ! -s "$T/out" ]
	rt-measure -n 2 --facts /dev/stderr --cmd true > "$T/out" 2>> "$T/err"
	jq -s -e 'map(.type) == ["prior", "measure", "trial", "trial", "trial", "trial"]' "$T/err"
	# standard error a pipe
	{ rt-measure -n 1 -o /dev/stderr --cmd true 2>&1 >/dev/null; echo "rc=$?"; } | cat > "$T/p"
	grep -q '^rc=0$' "$T/p"
	grep -q '"type":"measure"' "$T/p"
}

@test "outputs: /dev/fd/N the tool did not get is refused, never its own database" {
	audit_in
	# the history's SQLite files are the tool's descriptors 3, 4 and 5
	# when the digest is written; the caller has none of 3 to 7
	for n in 3 4 5 6 7; do
		run rt-audit -H "$T/audit$n.db" --md /dev/fd/$n "$T/audit.jsonl" \
		    3>&- 4>&- 5>&- 6>&- 7>&-
		status_is 2
		has "/dev/fd/$n: Bad file descriptor"
		[ "$(sqlite3 "$T/audit$n.db" 'pragma integrity_check')" = ok ]
	done
	run rt-measure -n 1 -o /dev/fd/9 --cmd true 9>&-
	status_is 2
	has "rt-measure: /dev/fd/9: Bad file descriptor"
	run rt-collect -n 1 -o /dev/fd/9 --cmd true 9>&-
	status_is 2
	has "rt-collect: /dev/fd/9: Bad file descriptor"
}

# --- one writer per file ---

@test "rt-collect: a second writer of the same -o file is refused, exit 2" {
	rt-collect -n 3 -j 3 -o "$T/f.jsonl" --cmd "touch '$T/go'; sleep 2" 3>&- &
	pid=$!
	wait_for "$T/go"
	run rt-collect -n 3 -o "$T/f.jsonl" --cmd true
	status_is 2
	has "$T/f.jsonl"
	has "locked"
	run rt-collect -n 3 -o "$T/f.jsonl" --resume --cmd true
	status_is 2
	has "locked"
	rc=0; wait "$pid" || rc=$?
	[ "$rc" -eq 0 ]
	# the refused writers truncated nothing and added nothing
	jq -s -e 'map(.trial) | sort == [1,2,3]' "$T/f.jsonl"
}

@test "rt-collect: two --resume on one file: the second is refused, no trial twice" {
	CMD="[ ! -e '$T/slow' ] || { touch '$T/go'; sleep 1; }"
	rt-collect -n 2 -o "$T/f.jsonl" --cmd "$CMD"
	touch "$T/slow"
	rt-collect -n 4 -o "$T/f.jsonl" --resume --cmd "$CMD" 3>&- &
	pid=$!
	wait_for "$T/go"
	run rt-collect -n 4 -o "$T/f.jsonl" --resume --cmd "$CMD"
	status_is 2
	has "$T/f.jsonl: another process (pid $pid) is writing it (locked)"
	rc=0; wait "$pid" || rc=$?
	[ "$rc" -eq 0 ]
	jq -s -e 'map(.trial) == [1,2,3,4]' "$T/f.jsonl"
}

# locked_out NAME: the last `run` was refused, in one line naming NAME,
# because $pid streams into it
locked_out() {
	status_is 2
	has "$1: another process (pid $pid) is writing it (locked); refusing to write it too"
	[ "$(printf '%s\n' "$output" | grep -c 'is writing it (locked)')" -eq 1 ]
}

@test "one writer per record file: every tool refuses a file another tool streams into" {
	printf '%s\n' a b > "$T/cases"
	seq -f 't%03g' 1 8 > "$T/list"
	audit_in
	export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
	mkdir -p "$HOME" "$T/tmp"
	F="$T/f.jsonl"
	ln -s f.jsonl "$T/link"
	rt-collect -n 1 -o "$F" --cmd "touch '$T/go'; exec sleep 30" 3>&- &
	pid=$!
	wait_for "$T/go"
	ino=$(stat -c %i "$F")
	# streaming writers
	run rt-measure -n 1 --facts "$F" --cmd true
	locked_out "$F"
	run rt-matrix -n 1 --env A=1 --facts "$F" --cmd true
	locked_out "$F"
	TMPDIR="$T/tmp" run rt-verify -C "$RT_TOP/t/fixtures/verify/pool" -n 30 -N 40 \
	    --seed 42 --no-genome --events "$F" --cmd ./test_pool.sh \
	    "$RT_TOP/t/fixtures/verify/pool.jsonl"
	locked_out "$F"
	run rt-collect -n 1 -o "$F" --resume --cmd true
	locked_out "$F"
	run rt-measure -n 1 --facts "$T/link" --cmd true
	locked_out "$T/link"
	# a descriptor on the same file: `>> f.jsonl`
	run bash -c 'rt-collect -n 1 -o /dev/stdout --cmd true >> "$1"' sh "$F"
	locked_out /dev/stdout
	# results written whole are not renamed over it, nor written into it
	run rt-measure -n 1 -o "$F" --cmd true
	locked_out "$F"
	run rt-measure -n 1 -o "$T/link" --cmd true
	locked_out "$T/link"
	run bash -c 'rt-measure -n 1 -o /dev/stdout --cmd true >> "$1"' sh "$F"
	locked_out /dev/stdout
	run rt-retry -f "$T/cases" --junit "$F" --cmd true
	locked_out "$F"
	run rt-bisect -v t005 -f "$T/list" -o "$F" -- \
	    "$RT_TOP/t/fixtures/bisect/stub.sh" t003 t005 {}
	locked_out "$F"
	run rt-audit -H "$T/audit.db" --md "$F" "$T/audit.jsonl"
	locked_out "$F"
	run rt-pr --body "$F" "$RT_TOP/t/fixtures/pr/fixed.jsonl"
	locked_out "$F"
	# the first writer's file: the same file, untouched by the refused
	[ "$(stat -c %i "$F")" = "$ino" ]
	[ ! -s "$F" ]
	[ -z "$(ls "$T" | grep tmp)" ] || [ "$(ls "$T" | grep tmp)" = tmp ]
	kill -TERM "$pid"
	wait "$pid" || true
	# the lock went with it
	run rt-measure -n 1 --facts "$F" --cmd true
	status_is 0
}

@test "one writer per record file: rt-measure, rt-matrix and a >> descriptor hold the lock too" {
	F="$T/f.jsonl"
	SLOW="touch '$T/go'; exec sleep 30"
	for first in "rt-measure -n 1 --facts $F" "rt-matrix -n 1 --env A=1 --facts $F" \
	    "rt-measure -n 1 --facts /dev/stdout"; do
		rm -f "$T/go" "$F"
		touch "$F"
		bash -c 'exec $1 --cmd "$2" >> "$3"' sh "$first" "$SLOW" "$F" 3>&- &
		pid=$!
		wait_for "$T/go"
		run rt-collect -n 1 -o "$F" --cmd true
		locked_out "$F"
		run rt-measure -n 1 --facts "$F" --cmd true
		locked_out "$F"
		run rt-measure -n 1 -o "$F" --cmd true
		locked_out "$F"
		kill -TERM "$pid"
		wait "$pid" || true
	done
}

# --- SIGHUP: like SIGTERM, exit 129 ---

@test "rt-measure: SIGHUP kills the trials, writes the measure record, exits 129" {
	rt-measure -n 50 -o "$T/m.json" --cmd "echo \$\$ >> '$T/pids'; exec sleep 30" \
	    > "$T/out" 2> "$T/err" 3>&- &
	pid=$!
	wait_for "$T/pids"
	kill -HUP "$pid"
	rc=0; wait "$pid" || rc=$?
	[ "$rc" -eq 129 ]
	jq -e '.type == "measure" and .interrupted == true and .stopped == "interrupted"' "$T/m.json"
	jq -e '.interrupted == true' "$T/out"
	for p in $(cat "$T/pids"); do ! kill -0 "$p" 2>/dev/null; done
}

@test "rt-collect: SIGHUP kills the trials, keeps whole lines, exits 129" {
	rt-collect -n 50 -o "$T/c.jsonl" --cmd "echo \$\$ >> '$T/pids'; exec sleep 30" 3>&- &
	pid=$!
	wait_for "$T/pids"
	kill -HUP "$pid"
	rc=0; wait "$pid" || rc=$?
	[ "$rc" -eq 129 ]
	for p in $(cat "$T/pids"); do ! kill -0 "$p" 2>/dev/null; done
	# the lock went with the process
	run rt-collect -n 1 -o "$T/c.jsonl" --cmd true
	status_is 0
}

@test "rt-verify: SIGHUP leaves no copy in TMPDIR and no verdict, exit 129" {
	FX="$RT_TOP/t/fixtures/verify"
	mkdir -p "$T/tmp"
	TMPDIR="$T/tmp" rt-verify -C "$FX/pool" -n 6 -N 40 --seed 42 -j 3 --events "$T/ev" \
	    --no-genome --cmd './test_pool.sh; s=$?; sleep 0.3; exit $s' "$FX/pool.jsonl" \
	    > "$T/out" 2> "$T/err" 3>&- &
	pid=$!
	for _ in $(seq 400); do
		grep -q race_started "$T/ev" 2>/dev/null && break
		sleep 0.05
	done
	grep -q race_started "$T/ev"
	ls -d "$T"/tmp/rt-verify.*/lane.* >/dev/null
	kill -HUP "$pid"
	rc=0; wait "$pid" || rc=$?
	[ "$rc" -eq 129 ]
	[ -z "$(ls -A "$T/tmp")" ]
	! grep -q '"type":"verdict"' "$T/out"
	jq -e -s 'last.event == "interrupted" and last.signal == 1' "$T/ev"
}

# --- SIGPIPE: the reader went away ---

# The reader closes its end, then marks $T/closed; each case after the
# first waits for the mark, so its record meets a closed pipe for certain.
@test "rt-retry --junit F | head -1: F is complete and valid, exit 141" {
	printf '%s\n' c1 c2 c3 c4 > "$T/cases"
	CMD="[ {} = c1 ] || while [ ! -e '$T/closed' ]; do sleep 0.02; done"
	bash -c 'rt-retry -f "$1" --junit "$2/j.xml" --cmd "$3"; echo $? > "$2/rc"' \
	    sh "$T/cases" "$T" "$CMD" 2> "$T/err" |
	    { head -1 > "$T/first"; exec 0<&-; touch "$T/closed"; }
	[ "$(cat "$T/rc")" -eq 141 ]
	[ ! -s "$T/err" ]
	jq -e '.type' "$T/first"
	python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
assert r.tag == "testsuite" and r.get("tests") == "4", r.attrib
assert [c.get("name") for c in r.iter("testcase")] == ["c1", "c2", "c3", "c4"]' "$T/j.xml"
}

@test "a gone reader ends every tool the same way: exit 141, no message" {
	# rt-collect stops at once (stdout is its only output)
	run bash -c 'rt-collect -n 100000 --cmd true | head -n 3 >/dev/null; echo "rc=${PIPESTATUS[0]}"'
	has "rc=141"
	hasnt "write error"
	# rt-measure with --facts: the facts file is complete
	run bash -c 'rt-measure -n 5 --facts "$1/f.jsonl" --cmd "while [ ! -e \"$1/closed\" ]; do sleep 0.02; done" |
	    { exec 0<&-; touch "$1/closed"; }; echo "rc=${PIPESTATUS[0]}"' sh "$T"
	has "rc=141"
	hasnt "write error"
	jq -s -e 'map(.trial) | sort == [1,2,3,4,5]' "$T/f.jsonl"
	# a tool with no trials: rt-plan's text to a closed pipe
	run bash -c 'exec 3>&1; { while [ ! -e "$1/closed2" ]; do sleep 0.02; done
	    rt-plan --rate 0.2; echo "rc=$?" >&3; } | { exec 0<&-; touch "$1/closed2"; }' sh "$T"
	has "rc=141"
	hasnt "write error"
}
