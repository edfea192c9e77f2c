#!/bin/sh
# bench/codeowners.sh: rt-quarantine add --codeowners on a path of SMALL_KB
# (default 30; an argument holds at most 128 KB) and twice that, against
# RULES (default 40) copies of rules that made the backtracking matcher
# blow up (many stars; "**" segments; a pattern at every depth), CPU
# seconds of each via /usr/bin/time, and their ratio. The matcher runs
# a compiled pattern as a set of states over one pass of the path, so the
# ratio is about 2; the backtracking one was cubic in the path (a 6 KB path
# took 15.5 s) and exponential in the stars (a 36-character rule, > 60 s).
# Exits 1 when the ratio is nearer quadratic (4) than linear (2).
# Measured 2026-12-05 (2 shared cores): 30 KB 0.08 CPU s, 60 KB 0.16 CPU s
# (ratio 2.0); the backtracking matcher took 15.5 s on a 6 KB path (issue 31).
set -eu
# BENCH_SMALL=1 (make bench, .ci/run): the small form, SMALL_KB=30
if [ "${BENCH_SMALL:-}" = 1 ]; then
	: "${SMALL_KB=30}"
fi
cd "$(dirname "$0")/.."
SMALL_KB=${SMALL_KB:-30}
RULES=${RULES:-40}
[ -x bin/rt-quarantine ] || { echo "bench/codeowners.sh: build first (make)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/codeowners.sh: needs /usr/bin/time (Debian time)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rt-bench-co.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

stars=$(awk 'BEGIN { for (i = 0; i < 18; i++) printf "a*"; print "b" }')
{
	echo '* @lead'
	i=0
	while [ $i -lt "$RULES" ]; do
		printf '%s @stars\n**/a*a*a*a*a*a*a*a*c/ @deep\n/a/**/**/**/**/*.z @z\n' "$stars"
		i=$((i + 1))
	done
} >"$tmp/CO"

# timed KB: CPU seconds (user + system) of one add on a KB-long path
timed() {
	awk -v n="$(( $1 * 512 ))" 'BEGIN { for (i = 0; i < n; i++) printf "a/"; print "x.py::t" }' >"$tmp/id"
	rm -f "$tmp/q"
	/usr/bin/time -f '%U %S' -o "$tmp/t" bin/rt-quarantine -f "$tmp/q" add "$(cat "$tmp/id")" \
	    --codeowners "$tmp/CO" >/dev/null 2>"$tmp/err" ||
	    { echo "bench/codeowners.sh: rt-quarantine failed:" >&2; cat "$tmp/err" >&2; exit 2; }
	grep -q 'owner=@lead' "$tmp/q" || { echo "bench/codeowners.sh: wrong owner" >&2; exit 2; }
	tail -1 "$tmp/t" | awk '{ printf "%.2f\n", $1 + $2 }'
}

small=$(timed "$SMALL_KB")
big=$(timed $((SMALL_KB * 2)))
ratio=$(awk -v s="$small" -v b="$big" 'BEGIN { printf "%.1f", b / (s > 0.01 ? s : 0.01) }')
printf 'codeowners: %s KB path %s CPU s, %s KB %s CPU s: ratio %s (linear 2, quadratic 4)\n' \
    "$SMALL_KB" "$small" $((SMALL_KB * 2)) "$big" "$ratio"
awk -v r="$ratio" 'BEGIN { exit !(r < 3) }'
