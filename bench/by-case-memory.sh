#!/bin/sh
# bench/by-case-memory.sh: peak memory of rt-measure --by case per case. Two
# runs of NCASES cases (default 100000) and NCASES/10, two records each, the
# same number of records per case, so the difference over the cases is what
# one case costs; and a run of the same records all of one case (the floor:
# the record loop and the repeat filter, which grow with records, not cases).
# Measured 2026-12-02 at 100000 cases (200000 records): before the counts
# were kept compact (a JSON record per case held until the sort) 316740 KiB
# peak, 3.14 KiB a case; after, 31852 KiB, 0.30 KiB a case (the repeat
# filter's table, which grows with records, included): 9.9x less peak,
# 10.7x less a case. OLD=path/to/rt-measure compares another build.
set -eu
# BENCH_SMALL=1 (make bench, .ci/run): the small form, NCASES=10000
if [ "${BENCH_SMALL:-}" = 1 ]; then
	: "${NCASES=10000}"
fi
cd "$(dirname "$0")/.."
NCASES=${NCASES:-100000}
B=${B:-bin/rt-measure}
[ -x "$B" ] || { echo "bench/by-case-memory.sh: build first (make)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/by-case-memory.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rt-bench-bycase.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# gen N CASES: N cases of two trials each (one in 50 flaky), or all of one
# case when CASES is 1
gen() {
	awk -v n="$1" -v one="$2" 'BEGIN {
		for (i = 0; i < n; i++)
			for (t = 1; t <= 2; t++) {
				c = one == 1 ? "one" : sprintf("tests/test_mod%d.py::TestClass::test_case_%d", i / 100, i)
				o = (t == 2 && i % 50 == 0) ? "fail" : "pass"
				printf "{\"type\":\"trial\",\"trial\":%d,\"case\":\"%s\",\"outcome\":\"%s\",\"run\":\"r1\",\"revision\":\"abc123\",\"time_ms\":1.5,\"stdout\":\"\",\"stderr\":\"\"}\n", (one == 1 ? 2 * i + t : t), c, o
			}
	}'
}
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; }

small=$((NCASES / 10))
gen "$NCASES" 0 > "$tmp/big.jsonl"
gen "$small" 0 > "$tmp/small.jsonl"
gen "$NCASES" 1 > "$tmp/one.jsonl"
report() {
	big=$(rss "$1" --by case "$tmp/big.jsonl")
	sm=$(rss "$1" --by case "$tmp/small.jsonl")
	one=$(rss "$1" --by case "$tmp/one.jsonl")
	per=$(awk -v a="$big" -v b="$sm" -v n="$NCASES" -v m="$small" 'BEGIN { printf "%.3f", (a - b) / (n - m) }')
	printf '%-28s %9s KiB at %s cases, %7s KiB at %s, %7s KiB for one case: %s KiB a case\n' \
	    "$1" "$big" "$NCASES" "$sm" "$small" "$one" "$per"
	eval "$2_big=$big $2_per=$per"
}
report "$B" new
if [ -n "${OLD:-}" ]; then
	report "$OLD" old
	# shellcheck disable=SC2154
	awk -v a="$old_big" -v b="$new_big" -v c="$old_per" -v d="$new_per" 'BEGIN {
		printf "ratio old/new: %.1fx peak, %.1fx a case\n", a / b, c / d }'
fi
