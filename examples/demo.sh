#!/bin/sh
# examples/demo.sh (make demo): the whole pipeline, offline, on the bundled
# timing-flaky test — measure, evidence, cached diagnosis, tournament,
# verdict, dossier and mbox, the report and its autopsy — with a short human summary.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
PATH=$top/bin:$PATH
RETRIAL_SHAREDIR=$top/share/retrial
export PATH RETRIAL_SHAREDIR
unset RETRIAL_API_KEY FIREWORKS_API_KEY RETRIAL_MODELS GITHUB_TOKEN || true
out=${DEMO_OUT:-$top/demo-out}
rm -rf "$out"
mkdir -p "$out"
# the project the fix applies to: a copy of examples/timing in its own repo
proj=$out/project
cp -R "$top/examples/timing" "$proj"
(cd "$proj" && git init -q && git add -A &&
	git -c user.name=demo -c user.email=demo@localhost commit -qm "flaky test") ||
	echo "(git not available: the mbox is still written)"
T="python3 test_cache.py"
cd "$proj"

step() { printf '\n== %s\n' "$*"; }

step "1. How often does it fail? (rt-measure, 200 trials)"
rt-measure -n 200 -j 2 --seed 1 -o "$out/measure.json" --cmd "$T" >/dev/null
jq -r '"   \(.verdict): \(.summary)"' "$out/measure.json"

step "2. How many clean runs would prove a fix? (rt-plan)"
rt-plan --confidence 0.9,0.95,0.99 "$out/measure.json" > "$out/plan.json"
jq -r '.levels[] | "   \(.runs) clean runs in a row at \(.confidence * 100)% confidence"' "$out/plan.json"
rt-plan --policy "$out/measure.json" > "$out/policy.json"
jq -r '"   retry budget \(.retry_budget); quarantine after \(.quarantine_after) exhausted runs in \(.window)"' "$out/policy.json"

step "3. What is true only when it fails? (rt-collect 60 trials | rt-diff-facts)"
rt-collect -n 60 -j 2 --seed 2 -o "$out/trials.jsonl" --cmd "$T"
rt-diff-facts "$out/trials.jsonl" > "$out/diff.json"
jq -r '"   token only in failures: \(.token // "none")",
       (.facts[:3][] | "   \(.kind): \(.value) — \(.in_failures)/\(.failures) failures, \(.in_successes)/\(.successes) passes")' "$out/diff.json"

step "4. Hypotheses (rt-diagnose --offline: the shipped cache, no network)"
rt-diagnose --offline --source test_cache.py "$out/measure.json" "$out/diff.json" \
	> "$out/hypotheses.jsonl"
jq -r '"   \(.id) [\(.source)] \(.cause_class): \(.explanation)"' "$out/hypotheses.jsonl"

step "5. The tournament (rt-verify): each patch raced in its own copy"
rt-verify --board -j 2 --seed 4 --no-genome --test test_cache --cmd "$T" \
	"$out/measure.json" "$out/hypotheses.jsonl" > "$out/verdict.jsonl"
# the board above is for people; the verdict record is what rt-pr reads
jq -r 'select(.type == "verdict") | "   verdict: \(.verdict)",
       (.winner // empty | "   winner \(.id) [\(.source)] \(.cause_class // "unknown"): patches \(.files | join(", "))"),
       (.confirmations[]? | "   confirmation \(.id): \(.summary)")' "$out/verdict.jsonl"

step "6. Ship it (rt-pr): dossier and git-am mbox, offline"
rt-pr -C "$proj" --body "$out/dossier.md" --mbox "$out/fix.mbox" "$out/verdict.jsonl"
rt-report -o "$out/report" --html -a "$out/report/autopsy.txt" "$out/measure.json" \
	"$out/plan.json" "$out/policy.json" "$out/diff.json" "$out/trials.jsonl" \
	"$out/verdict.jsonl" >/dev/null
echo "   dossier: $out/dossier.md"
echo "   mbox:    $out/fix.mbox   (apply: git am $out/fix.mbox)"
echo "   report:  $out/report/report.md, $out/report/report.html (with \"What fixed it\")"

step "7. The autopsy (rt-report --autopsy: a template over the records)"
sed 's/^/   /' "$out/report/autopsy.txt"
