#!/bin/sh
# bench/junit-attr.sh: rt-junit on one testcase whose name attribute is
# SMALL_MB (default 1) and BIG_MB (default 50) megabytes, CPU seconds and
# peak RSS of each via /usr/bin/time, and their ratios. expat 2.5 rescans an
# incomplete token at every chunk, so unbounded this is quadratic (a 100 MB
# attribute took 185 CPU s and 633 MB); rt_junit's pre-scan cuts attribute
# values at 1 MiB, so the big run costs about the small one plus a linear
# scan of the rest. Exits 1 when the CPU ratio is nearer quadratic than linear.
# Measured 2026-12-02 (2 shared cores): 1 MB 0.02 CPU s, 10.0 MB RSS; 50 MB
# 0.05 CPU s, 10.1 MB RSS (ratios 2.5 and 1.0; before the cap, 50 MB took
# the quadratic path).
set -eu
# BENCH_SMALL=1 (make bench, .ci/run): the small form, BIG_MB=20
if [ "${BENCH_SMALL:-}" = 1 ]; then
	: "${BIG_MB=20}"
fi
cd "$(dirname "$0")/.."
SMALL_MB=${SMALL_MB:-1}
BIG_MB=${BIG_MB:-50}
PY=${PY:-/usr/bin/python3}
[ -x bin/rt-junit ] || { echo "bench/junit-attr.sh: build first (make)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/junit-attr.sh: needs /usr/bin/time (Debian time)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rt-bench-attr.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

gen() { # OUT MB
	"$PY" - "$@" <<'PYEOF'
import sys
out, mb = sys.argv[1], int(sys.argv[2])
with open(out, "w") as f:
    f.write('<testsuite name="s">\n<testcase classname="k" name="')
    chunk = "x" * (1 << 20)
    for _ in range(mb):
        f.write(chunk)
    f.write('"/>\n<testcase classname="k" name="after"/>\n</testsuite>\n')
PYEOF
}

# timed MB: CPU seconds (user + system) in $cpu, peak RSS (kB) in $rss
timed() {
	gen "$tmp/a.xml" "$1"
	/usr/bin/time -f '%M %U %S' -o "$tmp/t" bin/rt-junit "$tmp/a.xml" >"$tmp/out" 2>"$tmp/err" ||
	    { echo "bench/junit-attr.sh: rt-junit failed:" >&2; cat "$tmp/err" >&2; exit 2; }
	rss=$(tail -1 "$tmp/t" | awk '{ print $1 }')
	cpu=$(tail -1 "$tmp/t" | awk '{ c = $2 + $3; if (c < 0.01) c = 0.01; printf "%.2f", c }')
	printf '%4d MB attribute: %6.2f CPU s %8.1f MB peak RSS, %d records\n' "$1" "$cpu" \
	    "$(awk -v r="$rss" 'BEGIN { print r / 1024 }')" "$(wc -l < "$tmp/out")"
}

timed "$SMALL_MB"; c1=$cpu; r1=$rss
timed "$BIG_MB"; c2=$cpu; r2=$rss
awk -v c1="$c1" -v c2="$c2" -v r1="$r1" -v r2="$r2" -v s="$SMALL_MB" -v b="$BIG_MB" 'BEGIN {
	k = b / s
	printf "ratio %d MB / %d MB: CPU %.1f, RSS %.2f (linear %g, quadratic %g)\n",
	    b, s, c2 / c1, r2 / r1, k, k * k
	exit (c2 / c1 > k * sqrt(k) || r2 / r1 > k) ? 1 : 0 }'
