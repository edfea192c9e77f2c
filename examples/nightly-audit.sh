#!/bin/sh
# nightly-audit.sh: a cron-driven nightly flake audit on top of rt-audit(1).
# crontab line, after `make install` (cron's PATH=/usr/bin:/bin is enough:
# the script finds the tools next to itself):
#   17 3 * * *  cd /srv/app && sh /usr/local/share/retrial/examples/nightly-audit.sh tests.list >> audit.log 2>&1
#
# usage: nightly-audit.sh [TESTS.LIST [TRIALS]]
#   With JUNIT_DIR=DIR and rt-junit installed, the night's JUnit XML reports
#   in DIR are the records. Otherwise each line "name<TAB>command" of
#   TESTS.LIST is run TRIALS times (30) with rt-collect, every trial kept,
#   and audited as one test named by its command.
# Environment: AUDIT_DIR (./audit), AUDIT_HISTORY (AUDIT_DIR/history.db),
#   RUN (this night's id; the UTC time), REVISION (else git's HEAD when run
#   in a checkout), GATE=1 (exit 1 on a newly flaky test).
# Writes AUDIT_DIR/RUN/{trials.jsonl,digest.md,digest.html,digest.json};
# the exit status is rt-audit's (2 when nothing was measured).
set -eu

# the tools: bin/ of a build tree (examples/..), else of the install
# prefix (PREFIX/share/retrial/examples/../../../bin)
here=$(cd "$(dirname "$0")" && pwd)
for b in "$here/../bin" "$here/../../../bin"; do
	if [ -x "$b/rt-audit" ]; then
		PATH=$(cd "$b" && pwd):$PATH
		break
	fi
done
export PATH
command -v rt-audit >/dev/null 2>&1 || {
	echo "nightly-audit.sh: rt-audit not found next to $here or on PATH" >&2
	exit 2
}

list=${1:-}
n=${2:-30}
run=${RUN:-$(date -u +%Y-%m-%dT%H%M%SZ)}
top=${AUDIT_DIR:-audit}
dir=$top/$run
history=${AUDIT_HISTORY:-$top/history.db}
rev=${REVISION:-}
if [ -z "$rev" ] && command -v git >/dev/null 2>&1; then
	rev=$(git rev-parse HEAD 2>/dev/null || true)
fi
mkdir -p "$dir"
trials=$dir/trials.jsonl
: > "$trials"

if [ -n "${JUNIT_DIR:-}" ] && command -v rt-junit >/dev/null 2>&1; then
	# the night's reports; a corrupt one is named and the rest still count
	rt-junit --run "$run" --same-run ${rev:+--revision "$rev"} "$JUNIT_DIR"/*.xml \
		> "$trials" || echo "nightly-audit.sh: rt-junit: some reports unread" >&2
else
	[ -n "$list" ] || {
		echo "usage: nightly-audit.sh [TESTS.LIST [TRIALS]] (or JUNIT_DIR=DIR with rt-junit)" >&2
		exit 2
	}
	tab=$(printf '\t')
	while IFS="$tab" read -r name cmd; do
		case $name in ''|'#'*) continue ;; esac
		# every trial, no early stop: a nightly rate needs all of them
		rt-collect -n "$n" --cmd "$cmd" >> "$trials" ||
			echo "nightly-audit.sh: $name: rt-collect failed" >&2
	done < "$list"
fi

set +e
rt-audit ${GATE:+--gate} -C -H "$history" --run "$run" ${rev:+--revision "$rev"} \
	--md "$dir/digest.md" --html "$dir/digest.html" --json "$dir/digest.json" \
	"$trials"
status=$?
set -e
[ -f "$dir/digest.md" ] && cat "$dir/digest.md"
exit $status
