#!/bin/sh
# examples/how-many-runs.sh: "how many runs prove it is fixed", as one
# pipeline on the bundled timing-flaky test. Measure (200 trials), plan at
# 90/95/99%, collect 60 trials of evidence, find the failing-only token,
# measure again slowly (20 trials, 2000 ms gaps) side by side with the fast
# run, derive the retry budget and quarantine rule, run the fixed version
# the planned number of times, and write the summary and the report.
# Sizes can be lowered for a quick look: N_MEASURE N_COLLECT N_SLOW GAP_MS.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
PATH=$top/bin:$PATH
export PATH
out=${OUT:-$PWD/how-many-runs}
N_MEASURE=${N_MEASURE:-200}
N_COLLECT=${N_COLLECT:-60}
N_SLOW=${N_SLOW:-20}
GAP_MS=${GAP_MS:-2000}
mkdir -p "$out"
T="python3 $top/examples/timing/test_cache.py"

# 1. How often: the fast measurement
rt-measure -n "$N_MEASURE" -j 2 --cmd "$T" > "$out/measure.json"
# 2. How many clean runs would prove a fix, at three confidence levels
rt-plan --confidence 0.9,0.95,0.99 "$out/measure.json" > "$out/plan.json"
# 3. Evidence, and what is true only when it fails
rt-collect -n "$N_COLLECT" --cmd "$T" -o "$out/trials.jsonl"
rt-diff-facts "$out/trials.jsonl" > "$out/diff.json"
# 4. Observed slowly, side by side with the fast run (one record)
rt-matrix -n "$N_SLOW" --slow "$GAP_MS" --cmd "$T" > "$out/slow.json"
# 5. The CI policy: retry budget and quarantine rule
rt-plan --policy "$out/measure.json" > "$out/policy.json"
# 6. The fixed version (the race fixed: join the worker), run the planned
#    number of times at 95%
runs=$(jq -r '.chosen.runs' "$out/plan.json")
fixed=$out/fixed
rm -rf "$fixed"
cp -R "$top/examples/timing" "$fixed"
rt-diagnose --offline -C "$fixed" -s test_cache.py "$out/measure.json" "$out/diff.json" |
	jq -r 'select(.cause_class == "race_condition") | .patch' > "$out/fix.diff"
patch -s -p1 -d "$fixed" < "$out/fix.diff"
rt-measure -n "$runs" --cmd "python3 $fixed/test_cache.py" > "$out/proof.json"
# 7. The summary and the four-section report (and the HTML page)
rt-report -o "$out" --html --proof "$out/proof.json" "$out/measure.json" \
	"$out/plan.json" "$out/policy.json" "$out/diff.json" "$out/slow.json" \
	"$out/trials.jsonl" >/dev/null

jq -r '"how often:        \(.summary)"' "$out/measure.json"
jq -r '"failing-only:     \(.token // "no single token")"' "$out/diff.json"
jq -r '"observed slowly:  \(.perturbed.summary // "unavailable") vs \(.control.summary); \(.note)"' "$out/slow.json"
jq -r '"to claim a fix:   " + ([.levels[] | "\(.runs) runs at \(.confidence * 100)%"] | join(", "))' "$out/plan.json"
jq -r '"retry budget:     \(.retry_budget), quarantine after \(.quarantine_after) exhausted runs in \(.window)"' "$out/policy.json"
jq -r '"fixed version:    \(.summary)"' "$out/proof.json"
echo "report:           $out/report.md ($out/report.html, $out/summary.json)"
