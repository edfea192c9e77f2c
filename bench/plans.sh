#!/bin/sh
# bench/plans.sh: how often an unfixed test passes the clean-run round that
# rt-plan's default plans from a measure of n trials, for true rates p.
# Exact, not simulated: for every possible measure k/n the real rt-measure
# record shape is fed to the real rt-plan, and
#   P(pass) = sum over k of Binom(k; n, p) * (1 - p)^runs(k)
# (k = 0 plans nothing: rt-plan refuses it, so no round is passed). The
# promise is P(pass) <= 1 - C at every p. BASIS=point shows the textbook
# formula for contrast. C (default 0.95), PS and NS set the grid.
# Exits 1 when a cell breaks the promise: BASIS=point (the textbook
# formula, the measured rate taken as known) is the mutation that does.
set -eu
# BENCH_SMALL=1 (make bench, .ci/run): the small form, NS="20 40"
if [ "${BENCH_SMALL:-}" = 1 ]; then
	: "${NS=20 40}"
fi
cd "$(dirname "$0")"
B=../bin
C=${C:-0.95}
BASIS=${BASIS:-split}
PS=${PS:-"0.05 0.2 0.5"}
NS=${NS:-"20 40 200"}

printf '%-6s %-5s %-10s %s\n' n p P_pass "promise <= $(awk -v c="$C" 'BEGIN { print 1 - c }')"
broken=0
for n in $NS; do
	runs=$(k=1; while [ "$k" -le "$n" ]; do
		printf '{"type":"measure","trials":%d,"failures":%d,"confidence":%s}\n' \
		    "$n" "$k" "$C" | "$B/rt-plan" -c "$C" -b "$BASIS" | jq -r .runs
		k=$((k + 1))
	done | tr '\n' ' ')
	for p in $PS; do
		awk -v n="$n" -v p="$p" -v c="$C" -v runs="$runs" 'BEGIN {
			split(runs, r, " ")
			# Binom(k; n, p) by the ratio of successive terms
			pmf = (1 - p) ^ n; total = 0
			for (k = 1; k <= n; k++) {
				pmf *= (n - k + 1) / k * p / (1 - p)
				total += pmf * (1 - p) ^ r[k]
			}
			printf "%-6d %-5s %-10.6f %s\n", n, p, total, total <= 1 - c ? "ok" : "BROKEN"
			exit total > 1 - c
		}' || broken=$((broken + 1))
	done
done
[ "$broken" -eq 0 ] || { echo "plans.sh: $broken cell(s) BROKEN" >&2; exit 1; }
