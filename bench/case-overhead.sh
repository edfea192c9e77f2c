#!/bin/sh
# bench/case-overhead.sh: what judging a trial by one case's own outcome
# costs (rt-collect --case: pytest asked for its JUnit report, the report
# read and judged), as a ratio to an exit-status-only trial of the same
# pytest command, on t/fixtures/runners/pyproj. N trials each (default 40),
# -j 1, the two runs interleaved ROUNDS times (default 3); prints each
# mean wall time per trial and the ratio of the medians.
set -eu
# BENCH_SMALL=1 (make bench, .ci/run): the small form, N=8 ROUNDS=1
if [ "${BENCH_SMALL:-}" = 1 ]; then
	: "${N=8}"
	: "${ROUNDS=1}"
fi
cd "$(dirname "$0")/.."
N=${N:-40}
ROUNDS=${ROUNDS:-3}
PY=${PY:-/usr/bin/python3}
[ -x bin/rt-collect ] || { echo "bench/case-overhead.sh: build first (make)" >&2; exit 2; }
"$PY" -c 'import pytest' 2>/dev/null || { echo "bench/case-overhead.sh: needs Debian's python3-pytest" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rt-bench-case.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cp -R t/fixtures/runners/pyproj "$tmp/p"
cmd="PYTHONDONTWRITEBYTECODE=1 $PY -m pytest -q -p no:random_order tests/test_cart.py"
now() { date +%s.%N; }
run() { # LABEL [ARGS]
	label=$1; shift
	t0=$(now)
	(cd "$tmp/p" && "$OLDPWD/bin/rt-collect" -n "$N" "$@" --cmd "$cmd" >"$tmp/out" 2>"$tmp/err")
	t1=$(now)
	awk -v l="$label" -v a="$t0" -v b="$t1" -v n="$N" 'BEGIN { printf "%s %.3f\n", l, (b - a) / n * 1000 }' >>"$tmp/times"
}
i=0
while [ "$i" -lt "$ROUNDS" ]; do
	run plain
	run case --case tests/test_cart.py::test_pear
	i=$((i + 1))
done
# the judged run really judged: every trial names its case
n=$(jq -s 'map(select(.case_judged == "tests/test_cart.py::test_pear")) | length' "$tmp/out")
[ "$n" -eq "$N" ] || { echo "bench/case-overhead.sh: --case judged $n of $N trials" >&2; exit 1; }
med() { grep "^$1 " "$tmp/times" | awk '{print $2}' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
p=$(med plain); c=$(med case)
printf 'exit status only: %.1f ms/trial (median of %d rounds of %d)\n' "$p" "$ROUNDS" "$N"
printf 'judged by --case: %.1f ms/trial\n' "$c"
awk -v c="$c" -v p="$p" 'BEGIN { printf "ratio: %.3f\n", c / p }'
