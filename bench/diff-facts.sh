#!/bin/sh
# bench/diff-facts.sh: rt-diff-facts on N synthetic trial records (~1 KB of
# stderr each, ~20% failing with "STALE"), side by side with a jq pipeline
# answering the same question (rt-diff-facts with all CPUs, up to 8, and with
# one). N=1000000 records by default; jq, some 30
# times slower, gets the first JQ_N (default 20000; JQ_N=all for every one).
set -eu
# BENCH_SMALL=1 (make bench, .ci/run): the small form, N=20000 JQ_N=2000
if [ "${BENCH_SMALL:-}" = 1 ]; then
	: "${N=20000}"
	: "${JQ_N=2000}"
fi
cd "$(dirname "$0")/.."
N=${N:-1000000}
JQ_N=${JQ_N:-20000}
[ "$JQ_N" = all ] && JQ_N=$N
[ "$JQ_N" -gt "$N" ] && JQ_N=$N
bin=./bin/rt-diff-facts
[ -x "$bin" ] || { echo "bench/diff-facts.sh: build first (make)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rt-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

now() { date +%s.%N; }
# timed OUT ERR cmd...: run it; wall seconds in $secs, CPU seconds (user +
# system) in $cpu, peak RSS in kB in $rss — from /usr/bin/time -v, else
# from getrusage(RUSAGE_CHILDREN) through python3, else unknown.
timed() {
	o=$1 e=$2; shift 2
	t0=$(now)
	if [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then
		/usr/bin/time -v -o "$tmp/time" "$@" >"$o" 2>"$e"
		cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' "$tmp/time")
		rss=$(awk -F': ' '/Maximum resident/ { print $2 }' "$tmp/time")
	elif command -v python3 >/dev/null 2>&1; then
		python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[2:], check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.2f %d\n" % (r.ru_utime + r.ru_stime, r.ru_maxrss))' "$tmp/time" "$@" >"$o" 2>"$e"
		read -r cpu rss <"$tmp/time"
	else
		"$@" >"$o" 2>"$e"
		cpu="?" rss="?"
	fi
	t1=$(now)
	secs=$(echo "$t1 $t0" | awk '{ printf "%.3f", $1 - $2 }')
}

echo "generating $N trial records ..."
t0=$(now)
awk -v n="$N" 'BEGIN {
	srand(1)
	nv = split("alpha beta gamma delta cache worker queue batch request index " \
	    "shard replica leader follower commit flush compact merge scan fetch " \
	    "token session socket buffer page block chunk segment record field " \
	    "config module plugin handler router client server proxy pool lock " \
	    "thread task job step phase round epoch tick frame packet stream " \
	    "value key entry table column schema query plan cursor result", v, " ")
	for (t = 1; t <= n; t++) {
		fail = rand() < 0.2
		err = ""
		while (length(err) < 950) {
			err = err sprintf("2026-11-29T23:%02d:%02d.%03dZ worker-%d %s %s %s %s in %.1f ms (at 0x7ffd%06x)\\n",
			    int(rand() * 60), int(rand() * 60), int(rand() * 1000), int(rand() * 16),
			    v[1 + int(rand() * nv)], v[1 + int(rand() * nv)], v[1 + int(rand() * nv)],
			    v[1 + int(rand() * nv)], rand() * 100, int(rand() * 16777216))
		}
		if (fail)
			err = err sprintf("cache: STALE value read before warm-up finished (job %d)\\n", t)
		else
			err = err "cache: warm\\n"
		printf "{\"type\":\"trial\",\"trial\":%d,\"outcome\":\"%s\",\"exit_code\":%d,\"signal\":null," \
		    "\"elapsed_ms\":%.3f,\"started_at\":\"2026-11-29T23:59:59.123Z\",\"gap_ms\":0," \
		    "\"command\":\"python3 test_cache.py\",\"stdout\":\"ran 1 test\\n\",\"stderr\":\"%s\"," \
		    "\"stdout_truncated\":false,\"stderr_truncated\":false,\"concurrent\":0,\"seed\":\"%d\"," \
		    "\"env\":{\"host\":\"bench\",\"load1\":%.2f,\"RETRIAL_SEED\":\"%d\"}}\n",
		    t, fail ? "fail" : "pass", fail, 20 + rand() * 15 + fail * 5, err, 1000 + t, rand() * 4, 1000 + t
	}
}' >"$tmp/trials.jsonl"
t1=$(now)
bytes=$(wc -c <"$tmp/trials.jsonl")
mb=$(echo "$bytes" | awk '{ printf "%.1f", $1 / 1048576 }')
echo "  $mb MB in $(echo "$t1 $t0" | awk '{ printf "%.1f", $1 - $2 }') s"

# The jq answer: letters-only words (digits dropped, a rough mask) of the
# stderr of every failure and of no success. Printed as a script so that
# timed can run it in one shell and measure the whole pipeline.
jq_program() {
	cat <<'JQ'
jq -r 'select(.type == "trial" and (.outcome == "pass" or .outcome == "fail" or .outcome == "timeout")) |
    (if .outcome == "pass" then "S" else "F" end) as $k |
    "R \($k)", ((.stderr // "") | [scan("[A-Za-z_]+")] | unique[] | "\($k) \(.)")' "$1" |
awk '$1 == "R" { n[$2]++; next } { c[$1 " " $2]++; w[$2] = 1 }
    END { for (x in w) if (c["F " x] == n["F"] && !(("S " x) in c)) print x }' | sort
JQ
}

cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
jobs=$((cpus > 8 ? 8 : cpus))
echo "rt-diff-facts on $N records, $jobs threads ($cpus CPUs online) ..."
timed "$tmp/rt.out" "$tmp/rt.err" "$bin" -j "$jobs" --top 0 "$tmp/trials.jsonl"
rt_secs=$secs rt_rss=$rss rt_cpu=$cpu
cat "$tmp/rt.err" >&2
echo "rt-diff-facts on $N records, 1 thread ..."
timed "$tmp/rt1.out" "$tmp/rt.err" "$bin" -j 1 --top 0 "$tmp/trials.jsonl"
one_secs=$secs one_rss=$rss one_cpu=$cpu
cat "$tmp/rt.err" >&2
cmp -s "$tmp/rt.out" "$tmp/rt1.out" || echo "bench/diff-facts.sh: -j $jobs and -j 1 differ" >&2
rt_token=$(jq -r .token "$tmp/rt.out")
rt_only=$(jq -r '[.facts[] | select(.kind == "token" and .stream == "stderr" and .direction == "failure_only" and .in_failures == .failures) | .value] | sort | join(" ")' "$tmp/rt.out")

head -n "$JQ_N" "$tmp/trials.jsonl" >"$tmp/sub.jsonl"
echo "rt-diff-facts and jq on the first $JQ_N records ..."
timed "$tmp/rt2.out" "$tmp/rt2.err" "$bin" -j 1 --top 0 "$tmp/sub.jsonl"
sub_secs=$secs sub_cpu=$cpu
timed "$tmp/jq.out" "$tmp/jq.err" sh -c "$(jq_program)" jq_words "$tmp/sub.jsonl"
jq_secs=$secs jq_cpu=$cpu jq_rss=$rss
cat "$tmp/jq.err" >&2
jq_only=$(tr '\n' ' ' <"$tmp/jq.out" | sed 's/ $//')
sub_only=$(jq -r '[.facts[] | select(.kind == "token" and .stream == "stderr" and .direction == "failure_only" and .in_failures == .failures) | .value] | sort | join(" ")' "$tmp/rt2.out")
subbytes=$(wc -c <"$tmp/sub.jsonl")

awk -v n="$N" -v b="$bytes" -v s="$rt_secs" -v c="$rt_cpu" -v rss="$rt_rss" \
    -v j="$jobs" -v s1="$one_secs" -v c1="$one_cpu" -v rss1="$one_rss" \
    -v jn="$JQ_N" -v jb="$subbytes" -v ss="$sub_secs" -v sc="$sub_cpu" \
    -v js="$jq_secs" -v jc="$jq_cpu" -v jrss="$jq_rss" 'BEGIN {
	printf "\n%-26s %9s %8s %8s %10s %8s %11s\n", "", "records", "wall s", "CPU s", "records/s", "MB/s", "peak RSS kB"
	printf "%-26s %9d %8.2f %8s %10.0f %8.1f %11s\n", "rt-diff-facts -j " j, n, s, c, n / s, b / 1048576 / s, rss
	printf "%-26s %9d %8.2f %8s %10.0f %8.1f %11s\n", "rt-diff-facts -j 1", n, s1, c1, n / s1, b / 1048576 / s1, rss1
	printf "%-26s %9d %8.2f %8s %10.0f %8.1f %11s\n", "rt-diff-facts -j 1 (subset)", jn, ss, sc, jn / ss, jb / 1048576 / ss, "-"
	printf "%-26s %9d %8.2f %8s %10.0f %8.1f %11s\n", "jq | awk | sort (subset)", jn, js, jc, jn / js, jb / 1048576 / js, jrss
	printf "rt-diff-facts is x%.1f faster than jq on the same records (wall)", js / ss
	if (sc + 0 > 0 && jc + 0 > 0)
		printf ", x%.1f in CPU", jc / sc
	printf "\n"
}'
echo "rt-diff-facts token: $rt_token"
echo "  words in every failure, no success (rt-diff-facts, all): $rt_only"
echo "  the same on the subset, rt-diff-facts: $sub_only"
echo "  the same on the subset, jq:            $jq_only"
