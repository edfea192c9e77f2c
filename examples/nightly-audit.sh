#!/bin/sh
# A cron-driven nightly flake audit. crontab line:
#   17 3 * * *  cd /srv/app && /usr/local/share/retrial/examples/nightly-audit.sh tests.list >> audit.log 2>&1
# tests.list: one "name<TAB>command" per line. For each test it measures
# the rate, plans the policy, and keeps the records under audit/DATE/.
set -eu
list=${1:?usage: nightly-audit.sh TESTS.LIST [TRIALS]}
n=${2:-100}
day=$(date -u +%Y-%m-%d)
dir=audit/$day
mkdir -p "$dir"
tab=$(printf '\t')
while IFS="$tab" read -r name cmd; do
	case $name in ''|'#'*) continue ;; esac
	slug=$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' '_')
	rt-measure -n "$n" --until verdict --facts "$dir/$slug.trials.jsonl" \
		-o "$dir/$slug.measure.json" --cmd "$cmd" >/dev/null || continue
	verdict=$(jq -r .verdict "$dir/$slug.measure.json")
	summary=$(jq -r .summary "$dir/$slug.measure.json")
	printf '%s\t%s\t%s\t%s\n' "$day" "$name" "$verdict" "$summary"
	if [ "$verdict" = FLAKY ]; then
		rt-plan --policy < "$dir/$slug.measure.json" > "$dir/$slug.policy.json" || true
		rt-diff-facts "$dir/$slug.trials.jsonl" > "$dir/$slug.diff.json" || true
	fi
done < "$list"
