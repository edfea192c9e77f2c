#!/bin/sh
# bench/bisect.sh: probes and trials rt-bisect spends to find the one
# polluter in synthetic suites of 100, 1000 and 10000 tests, by its group
# testing and by a linear pairwise scan (every candidate in its own pair
# with the victim, as iDFlakies does: --linear), to all single polluters
# and to the first. The runner is t/fixtures/bisect/stub.sh, which fails iff
# the polluter ran before the victim. Classification (the victim alone and
# the full order, 53 trials each at the defaults) is the same for both and
# is counted apart. SIZES sets the suites.
set -eu
cd "$(dirname "$0")"
B=../bin
STUB=../t/fixtures/bisect/stub.sh
SIZES=${SIZES:-"100 1000 10000"}
out=${TMPDIR:-/tmp}/rt-bench-bisect.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT

printf '%-6s %-8s %-16s %7s %8s %8s %9s %s\n' tests polluter method probes trials search_t seconds found
for n in $SIZES; do
	seq -f 't%05g' 1 "$n" > "$out/list"
	v=$(printf 't%05g' "$n")
	p=$(printf 't%05g' $((n * 37 / 100)))
	for m in group group-first linear linear-first; do
		case $m in
		group) opts= ;;
		group-first) opts=--first ;;
		linear) opts=--linear ;;
		linear-first) opts="--linear --first" ;;
		esac
		t0=$(date +%s.%N)
		# shellcheck disable=SC2086
		"$B/rt-bisect" $opts --no-cleaners --max-trials 1000000 --seed 1 \
		    -v "$v" -f "$out/list" -- "$STUB" "$p" "$v" {} > "$out/rec"
		t1=$(date +%s.%N)
		jq -r --arg n "$n" --arg p "$p" --arg m "$m" \
		    --arg s "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" '
		    [.probes[2:][].trials] as $st
		    | "\($n) \($p) \($m) \(.probes | length) \(.trials) \($st | add // 0) \($s) \(.polluters | join(","))"' \
		    "$out/rec" | awk '{ printf "%-6s %-8s %-16s %7s %8s %8s %9s %s\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
	done
done
