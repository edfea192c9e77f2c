#!/bin/sh
# rt-history-merge.sh: merge rt-audit histories (a job matrix's legs, each
# restored from its own cache key) into one. Every result of each history
# goes back in as the trial record it was, its run's name kept, through
# rt-audit -H OUT; a run's name carries its leg, so the legs never mix,
# and a result OUT already holds is skipped (rt-audit keys records by
# their content), so merging again adds nothing.
#
# usage: rt-history-merge.sh OUT.db IN.db...
# Exit status: 0 merged; 2 a usage error, or a history or OUT that cannot
# be read or written.
set -u
me=rt-history-merge.sh
die() { echo "$me: $*" >&2; exit 2; }
[ $# -ge 2 ] || { echo "usage: rt-history-merge.sh OUT.db IN.db..." >&2; exit 2; }
out=$1
shift
for t in rt-audit sqlite3 jq; do
	command -v "$t" >/dev/null 2>&1 || die "$t not found"
done
for db in "$@"; do
	[ -r "$db" ] || die "$db: cannot read"
	[ "$db" != "$out" ] || die "$db: the merge's output is one of its inputs"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rt-history-merge.XXXXXX") || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
for db in "$@"; do
	case $db in /*) uri=$db ;; *) uri=$PWD/$db ;; esac
	# the path as a URI: '?' and '#' would end it, '%' would escape
	case $uri in *[?#%]*) die "$db: a path with ?, # or % in it: copy it first" ;; esac
	sqlite3 -json "file:$uri?mode=ro" "SELECT 'trial' AS type, r.run, r.case_id AS \"case\",
	    r.outcome, r.trial, r.attempt, r.revision, r.timestamp, r.time_ms, r.source,
	    r.report, r.message, r.failure_type FROM results r ORDER BY r.audit_id, r.rowid" \
	    >"$tmp/rows.json" 2>"$tmp/err" || die "$db: $(head -n 1 "$tmp/err")"
	[ -s "$tmp/rows.json" ] || continue
	# no null field: a record names only what it has
	jq -c '.[] | with_entries(select(.value != null))' "$tmp/rows.json" >>"$tmp/records.jsonl" ||
	    die "$db: its results could not be read"
done
[ -s "$tmp/records.jsonl" ] || die "no result in $*: nothing to merge"
# "nothing new" (every result already in OUT) is a merge done before
if ! rt-audit -H "$out" --md /dev/null -- "$tmp/records.jsonl" >/dev/null 2>"$tmp/err"; then
	grep -q "nothing new" "$tmp/err" || die "rt-audit -H $out: $(grep -v '^rt-audit: audit ' "$tmp/err" | head -n 1)"
fi
sqlite3 "file:$(case $out in /*) echo "$out" ;; *) echo "$PWD/$out" ;; esac)?mode=ro" \
    "SELECT count(DISTINCT run) || ' runs, ' || count(*) || ' results in ' FROM results" 2>/dev/null |
    tr -d '\n'
echo "$out"
