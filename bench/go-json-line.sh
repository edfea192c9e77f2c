#!/bin/sh
# bench/go-json-line.sh: peak memory of rt-junit on a go test -json stream
# with one output line of MB megabytes (default 40) against one of a
# quarter of that, with the line cap lowered to 1 MiB (RT_GO_LINE_MAX):
# the reader keeps at most the cap of a line and passes over the rest, so
# the ratio is about 1; getline held the whole line (a 300 MB line cost
# 925 MB, issue 31). Exits 1 when the ratio is over 1.5.
set -eu
# BENCH_SMALL=1 (make bench, .ci/run): the small form, MB=8
if [ "${BENCH_SMALL:-}" = 1 ]; then
	: "${MB=8}"
fi
cd "$(dirname "$0")/.."
MB=${MB:-40}
[ -x bin/rt-junit ] || { echo "bench/go-json-line.sh: build first (make)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/go-json-line.sh: needs /usr/bin/time (Debian time)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rt-bench-go.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# peak MB: maximum resident KB of rt-junit on a stream with an MB-long line
peak() {
	{
		echo '{"Action":"run","Package":"p","Test":"TestA"}'
		printf '{"Action":"output","Package":"p","Test":"TestA","Output":"'
		head -c $(( $1 * 1048576 )) /dev/zero | tr '\0' x
		printf '"}\n'
		echo '{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.1}'
	} >"$tmp/s.json"
	RT_GO_LINE_MAX=1048576 /usr/bin/time -f %M -o "$tmp/m" bin/rt-junit "$tmp/s.json" \
	    >/dev/null 2>"$tmp/err" ||
	    { echo "bench/go-json-line.sh: rt-junit failed:" >&2; cat "$tmp/err" >&2; exit 2; }
	tail -1 "$tmp/m"
}

small=$(peak $(( MB / 4 )))
big=$(peak "$MB")
echo "$MB/4 MB line: $small KB; $MB MB line: $big KB"
awk -v a="$small" -v b="$big" 'BEGIN { r = b / a; printf "ratio %.2f\n", r; exit r > 1.5 }'
