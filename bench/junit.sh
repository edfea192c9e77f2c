#!/bin/sh
# bench/junit.sh: rt-junit throughput (MB/s, testcases/s) and peak memory on
# one big synthetic report (BIG_MB, default 200; BIG_MB=1024 for 1 GB) and on
# NFILES small reports (default 10000; 100000 for the issue's figure), side
# by side with Python junitparser (Debian python3-junitparser) reading the
# same files and counting outcomes; then rt-measure --by case on NREC trial
# records (default 10^6).
# Measured 2026-12-01 (2 cores shared, load 11-19, so compare CPU seconds):
# 1 GB, 5.98e6 cases: rt-junit 75.7 CPU s (13.5 MB/s, 79k cases/s), 2.1 MB
# RSS; junitparser counting 59.1 s, 5608 MB; writing JSON lines 132.5 s.
# 200 MB, 1.17e6 cases: rt-junit 13.8 CPU s (14.5 MB/s, 85k cases/s), 2.2 MB
# RSS; junitparser counting 13.2 s, 1110 MB; writing JSON lines 26.6 s. 10^4 files, 10^6 cases: rt-junit 11.0 s, 5.5 MB; junitparser 5.9 s
# counting, 16.1 s writing JSON. rt-measure --by case, 10^6 records, 10^4
# cases: 4.1 CPU s (246k records/s), 49 MB.
set -eu
# BENCH_SMALL=1 (make bench, .ci/run): the small form, BIG_MB=4 NFILES=200 NREC=20000
if [ "${BENCH_SMALL:-}" = 1 ]; then
	: "${BIG_MB=4}"
	: "${NFILES=200}"
	: "${NREC=20000}"
fi
cd "$(dirname "$0")/.."
BIG_MB=${BIG_MB:-200}
NFILES=${NFILES:-10000}
NREC=${NREC:-1000000}
PY=${PY:-/usr/bin/python3}
[ -x bin/rt-junit ] && [ -x bin/rt-measure ] || { echo "bench/junit.sh: build first (make)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rt-bench-junit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

now() { date +%s.%N; }
# timed CMD...: wall seconds in $secs, CPU seconds (user + system) in $cpu,
# peak RSS (kB) in $rss, via /usr/bin/time. On a shared machine the CPU
# figures are the ones to compare; wall time includes waiting for a core.
timed() {
	t0=$(now)
	/usr/bin/time -f '%M %U %S' -o "$tmp/rss" "$@" >"$tmp/out" 2>"$tmp/err" ||
	    { echo "bench/junit.sh: $* failed:" >&2; cat "$tmp/err" >&2; exit 2; }
	t1=$(now)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	rss=$(tail -1 "$tmp/rss" | awk '{ print $1 }')
	cpu=$(tail -1 "$tmp/rss" | awk '{ printf "%.2f", $2 + $3 }')
}
head_row() {
	printf '%-30s %8s %8s %10s %12s %9s\n' "" "wall s" "CPU s" "MB/CPU s" "cases/CPU s" "peak RSS"
}
row() { # NAME MB CASES
	awk -v n="$1" -v mb="$2" -v c="$3" -v s="$secs" -v u="$cpu" -v r="$rss" 'BEGIN {
	    if (u < 0.01) u = 0.01
	    printf "%-30s %8.2f %8.2f %10.1f %12.0f %6.1f MB\n", n, s, u, mb / u, c / u, r / 1024 }'
}

# A report like Surefire/pytest write: suites of 100 cases, 10% failing with
# a message and a stack trace, 5% skipped, 1% flaky (Surefire flakyFailure),
# every tenth with some system-out; names with non-ASCII and entities.
gen() { # OUT BYTES SUITES_PER_FILE
	"$PY" - "$@" <<'PYEOF'
import sys
out, limit = sys.argv[1], int(sys.argv[2])
trace = "\n".join("\tat com.example.Cart%d.check(Cart.java:%d)" % (i, i) for i in range(12))
n = 0
with open(out, "w", encoding="utf-8") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n')
    s = 0
    while f.tell() < limit:
        f.write('<testsuite name="com.example.Suite%d" tests="100" timestamp="2026-12-01T00:00:00">\n' % s)
        for i in range(100):
            n += 1
            f.write('<testcase classname="com.example.Suite%d" name="t%d_caf\u00e9 &amp; co" time="0.%03d"' % (s, i, i))
            k = n % 100
            if k < 10:
                f.write('><failure message="expected &lt;%d&gt; but was &lt;0&gt;" type="java.lang.AssertionError">%s</failure></testcase>\n' % (i, trace))
            elif k < 15:
                f.write('><skipped message="disabled"/></testcase>\n')
            elif k == 15:
                f.write('><flakyFailure message="once" type="E"><stackTrace>%s</stackTrace></flakyFailure></testcase>\n' % trace)
            elif k % 10 == 7:
                f.write('><system-out>%s</system-out></testcase>\n' % (("log line %d\n" % i) * 20))
            else:
                f.write('/>\n')
        f.write('</testsuite>\n')
        s += 1
    f.write('</testsuites>\n')
print(n)
PYEOF
}

# junitparser, the Python reference: every case's result, counted.
JP='import sys
from junitparser import JUnitXml, Failure, Error, Skipped
n = {"pass": 0, "fail": 0, "skip": 0}
for path in sys.argv[1:] if sys.argv[1] != "-" else (l.strip() for l in sys.stdin):
    for suite in JUnitXml.fromfile(path):
        for case in suite:
            r = case.result
            if any(isinstance(x, (Failure, Error)) for x in r): n["fail"] += 1
            elif any(isinstance(x, Skipped) for x in r): n["skip"] += 1
            else: n["pass"] += 1
print(n["pass"], n["fail"], n["skip"])'

# The same, writing one JSON line per case as rt-junit does (the same work).
JPJ='import sys, json
from junitparser import JUnitXml, Failure, Error, Skipped
w = sys.stdout.write
for path in sys.argv[1:] if sys.argv[1] != "-" else (l.strip() for l in sys.stdin):
    for pos, case in enumerate(c for s in JUnitXml.fromfile(path) for c in s):
        r = case.result
        res = "error" if any(isinstance(x, Error) for x in r) else "failure" if any(isinstance(x, Failure) for x in r) else "skipped" if r else "success"
        m = r[0] if r else None
        w(json.dumps({"type": "trial", "trial": pos + 1, "case": "%s::%s" % (case.classname, case.name),
            "outcome": {"success": "pass", "skipped": "skip"}.get(res, "fail"), "result": res, "attempt": 1,
            "time_ms": case.time * 1000, "message": m.message if m is not None else None,
            "failure_type": m.type if m is not None else None, "stdout": case.system_out,
            "stderr": case.system_err, "report": path, "position": pos, "source": "junit"},
            ensure_ascii=False, separators=(",", ":")) + "\n")'

echo "== one report of ${BIG_MB} MB"
cases=$(gen "$tmp/big.xml" $((BIG_MB * 1024 * 1024)))
mb=$(awk -v b="$(wc -c < "$tmp/big.xml")" 'BEGIN { printf "%.1f", b / 1048576 }')
echo "$cases testcases, $mb MB"
head_row
timed bin/rt-junit "$tmp/big.xml"
recs=$(wc -l < "$tmp/out")
row "rt-junit" "$mb" "$cases"
timed "$PY" -c "$JP" "$tmp/big.xml"
row "junitparser $("$PY" -c 'import junitparser; print(junitparser.version)') (count)" "$mb" "$cases"
counts=$(cat "$tmp/out")
timed "$PY" -c "$JPJ" "$tmp/big.xml"
row "junitparser (JSON lines)" "$mb" "$cases"
echo "(rt-junit wrote $recs records, one per execution, flaky attempts included;"
echo " junitparser counted pass/fail/skip: $counts)"

echo "== $NFILES small reports"
mkdir "$tmp/small"
gen "$tmp/one.xml" 100 >/dev/null   # one suite of 100 cases
i=0
while [ $i -lt "$NFILES" ]; do cp "$tmp/one.xml" "$tmp/small/TEST-$i.xml"; i=$((i + 1)); done
scases=$(( $(grep -c '<testcase' "$tmp/one.xml") * NFILES ))
smb=$(cat "$tmp"/small/*.xml | wc -c | awk '{ printf "%.1f", $1 / 1048576 }')
echo "$scases testcases, $smb MB"
head_row
timed sh -c 'find "$1" -name "*.xml" | xargs "$2"' sh "$tmp/small" "$PWD/bin/rt-junit"
row "rt-junit (xargs)" "$smb" "$scases"
timed sh -c 'find "$1" -name "*.xml" | "$2" -c "$3" -' sh "$tmp/small" "$PY" "$JP"
row "junitparser (count)" "$smb" "$scases"
timed sh -c 'find "$1" -name "*.xml" | "$2" -c "$3" -' sh "$tmp/small" "$PY" "$JPJ"
row "junitparser (JSON lines)" "$smb" "$scases"

echo "== rt-measure --by case on $NREC records"
awk -v n="$NREC" 'BEGIN {
	for (i = 0; i < n; i++) {
		c = i % 10000; r = int(i / 10000)
		# every 50th case flaky (fails 2 runs in 5), every 50th + 1
		# failing only on rev0 (CHANGED), the rest stable
		o = (c % 50 == 0 && (r + c) % 5 < 2) || (c % 50 == 1 && r % 3 == 0) ? "fail" : "pass"
		printf "{\"type\":\"trial\",\"trial\":%d,\"case\":\"com.example.Suite%d::t%d\",\"outcome\":\"%s\",\"attempt\":1,\"run\":\"run-%d\",\"revision\":\"rev%d\",\"source\":\"junit\"}\n", c + 1, c / 100, c, o, r, r % 3
	}
}' > "$tmp/recs.jsonl"
rmb=$(awk -v b="$(wc -c < "$tmp/recs.jsonl")" 'BEGIN { printf "%.1f", b / 1048576 }')
timed bin/rt-measure --by case "$tmp/recs.jsonl"
printf '%-30s %8s %8s %10s %12s %9s\n' "" "wall s" "CPU s" "MB/CPU s" "recs/CPU s" "peak RSS"
row "rt-measure --by case" "$rmb" "$NREC"
echo "($(wc -l < "$tmp/out") cases; $(grep -c '"FLAKY"' "$tmp/out") FLAKY, $(grep -c '"CHANGED"' "$tmp/out") CHANGED)"
