#!/bin/sh
# bench/audit-memory.sh: peak memory of rt-audit importing many records in
# one run (issue 31). A first night of NRECORDS/2 records (default 100000,
# 10 runs' worth split 5 and 5, one case per 10 records), then the second
# night's: the second audit's peak RSS is what the rate-change test over
# every case tested tonight costs. Measured 2026-12-06 at 100000 records
# (10000 cases): a JSON object per case held for the cutoff, 46368 KiB;
# compact rows, 28048 KiB (1.7x less). OLD=path/to/rt-audit compares.
set -eu
cd "$(dirname "$0")/.."
N=${NRECORDS:-100000}
B=${B:-bin/rt-audit}
[ -x "$B" ] || { echo "bench/audit-memory.sh: build first (make)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/audit-memory.sh: needs /usr/bin/time" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rt-bench-auditmem.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
awk -v n="$N" -v a="$tmp/a.jsonl" -v b="$tmp/b.jsonl" 'BEGIN {
	for (i = 0; i < n; i++) {
		r = i % 10
		printf "{\"type\":\"trial\",\"trial\":%d,\"case\":\"tests/test_m%d.py::test_%d\",\"outcome\":\"%s\",\"run\":\"r%d\",\"revision\":\"abc\",\"timestamp\":\"2026-11-01T03:00:%02dZ\",\"source\":\"junit\"}\n", i, int(i / 1000), int(i / 10), (i % 97 == 0) ? "fail" : "pass", r, r > (r < 5 ? a : b)
	}
}'
peak() {
	rm -f "$tmp/h.db" "$tmp/h.db-wal" "$tmp/h.db-shm"
	"$1" -H "$tmp/h.db" "$tmp/a.jsonl" >/dev/null 2>&1
	/usr/bin/time -o "$tmp/t" -f %M "$1" -H "$tmp/h.db" "$tmp/b.jsonl" >/dev/null 2>&1
	cat "$tmp/t"
}
new=$(peak "$B")
printf '%-28s %9s KiB peak, second night of %s records\n' "$B" "$new" "$N"
if [ -n "${OLD:-}" ]; then
	old=$(peak "$OLD")
	printf '%-28s %9s KiB peak\nratio old/new: %s\n' "$OLD" "$old" \
	    "$(awk -v a="$old" -v b="$new" 'BEGIN { printf "%.1fx", a / b }')"
fi
