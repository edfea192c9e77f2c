#!/usr/bin/env bash
# rt-ci-retry.sh: budgeted retries and quarantine for any CI. Each test that
# failed in the job's reports is rerun by rt-retry -r auto within the budget
# rt-plan --policy gives for its rate in the rt-audit history; the gate
# passes a failure its reruns show flaky and a quarantined test, and fails
# (exit 1) for a test off the list that failed every attempt. The job's own
# results go into the history, and a test rt-audit lists as a quarantine
# candidate is put on the list with its issue (rt-quarantine add --from).
#
# Test names are data: a case reaches rt-retry in a NUL-terminated file and
# the command as "$1" (never spliced into a shell line), and every name
# printed goes through jq with control characters shown as '?'.
set -uo pipefail

me=rt-ci-retry.sh
die() { echo "$me: $*" >&2; exit 2; }
usage() {
	cat >&2 <<'EOF'
usage: rt-ci-retry.sh [-H DB] [-q LIST] [-o FILE] [-n N] [-m N] [-w W]
                      [--run RUN] [--summary FILE] [--records FILE]
                      [--no-audit] [--no-quarantine] [-c CMD] REPORT...
Rerun the job's failed tests within their budgets, gate, record, quarantine.
  -c, --cmd CMD          rerun one case: sh -c CMD with the case as "$1" (or
                         {}); default $RT_RETRY_CMD
  -H, --history DB       the rt-audit history (default: .retrial.yml history:,
                         else .retrial/audit.db)
  -q, --quarantine LIST  the quarantine list (default: .retrial.yml quarantine:,
                         else .retrial/quarantine)
  -o, --junit FILE       JUnit of every rerun, flakyFailure for the flaky
                         (default retrial-retries.xml)
  -n, --default-retries N  the budget of a test with no usable rate (default:
                         .retrial.yml retries:, else 2)
  -m, --max-retries N    no budget above N (default 10)
  -w, --window W         the last W runs of the history give the rate (30)
      --run RUN          this job's run in the history (default: from
                         GITHUB_* when set, else local:TIME)
      --summary FILE     append the Markdown lines to FILE
      --records FILE     write every rerun's attempt records to FILE
      --no-audit         neither record this run nor quarantine
      --no-quarantine    record this run, but add no test to the list
EOF
	exit 2
}

cmd=${RT_RETRY_CMD:-} history="" qlist="" junit_out=retrial-retries.xml
dflt="" maxr=10 window=30 run="" summary="" records="" audit=1 autoq=1
while [ $# -gt 0 ]; do
	case $1 in
	-c | --cmd) [ $# -ge 2 ] || usage; cmd=$2; shift ;;
	-H | --history) [ $# -ge 2 ] || usage; history=$2; shift ;;
	-q | --quarantine) [ $# -ge 2 ] || usage; qlist=$2; shift ;;
	-o | --junit) [ $# -ge 2 ] || usage; junit_out=$2; shift ;;
	-n | --default-retries) [ $# -ge 2 ] || usage; dflt=$2; shift ;;
	-m | --max-retries) [ $# -ge 2 ] || usage; maxr=$2; shift ;;
	-w | --window) [ $# -ge 2 ] || usage; window=$2; shift ;;
	--run) [ $# -ge 2 ] || usage; run=$2; shift ;;
	--summary) [ $# -ge 2 ] || usage; summary=$2; shift ;;
	--records) [ $# -ge 2 ] || usage; records=$2; shift ;;
	--no-audit) audit=0 ;;
	--no-quarantine) autoq=0 ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) echo "$me: $1: unknown option" >&2; usage ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || { echo "$me: no report given" >&2; usage; }
[ -n "$cmd" ] || die "no command to rerun a case (give -c CMD or set RT_RETRY_CMD)"
for t in rt-junit rt-audit rt-plan rt-retry rt-quarantine jq sqlite3; do
	command -v "$t" >/dev/null || die "$t not found (build retrial first: make)"
done
num() { case $2 in '' | *[!0-9]*) die "$1 $2: must be a whole number" ;; esac; }

# what .retrial.yml says, as the tools read it (the command line wins)
conf() { "$1" --print-config 2>/dev/null | sed -n "s/^$2=\\([^	]*\\)	.*/\\1/p" | head -n 1; }
[ -n "$history" ] || history=$(conf rt-audit history)
[ -n "$history" ] || history=.retrial/audit.db
[ -n "$qlist" ] || qlist=$(conf rt-retry quarantine)
[ -n "$qlist" ] || qlist=.retrial/quarantine
[ -n "$dflt" ] || dflt=$(conf rt-retry retries)
[ -n "$dflt" ] || dflt=2
num --default-retries "$dflt"
num --max-retries "$maxr"
num --window "$window"
[ "$window" -gt 0 ] || die "--window 0: must be at least 1"
[ "$dflt" -le "$maxr" ] || dflt=$maxr
if [ -z "$run" ]; then
	if [ -n "${GITHUB_RUN_ID:-}" ]; then
		run="github:${GITHUB_REPOSITORY:-local}:$GITHUB_RUN_ID.${GITHUB_RUN_ATTEMPT:-1}:${GITHUB_JOB:-job}"
	else
		run="local:$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	fi
fi

tmp=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/rt-ci-retry.XXXXXX") || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
show='gsub("[\u0000-\u001f\u007f]"; "?")'

# the job's results: one run; a report whose path starts with '-' is a path
reports=()
for f in "$@"; do
	case $f in -*) f=./$f ;; esac
	[ -f "$f" ] || die "$f: no such report"
	reports+=("$f")
done
rt-junit -- "${reports[@]}" >"$tmp/junit.jsonl" || die "rt-junit could not read the reports"
jq -c --arg run "$run" '.run = $run' "$tmp/junit.jsonl" >"$tmp/trials.jsonl" ||
    die "the reports' records could not be read"

# failed: a case with a failing attempt and none passing (a case the runner
# already retried to a pass is flaky as reported and is not rerun)
jq -s -j 'map(select(.case != null)) | group_by(.case)[]
    | select(any(.[]; .outcome == "fail" or .outcome == "error") and (any(.[]; .outcome == "pass") | not))
    | .[0].case + "\u0000"' "$tmp/trials.jsonl" >"$tmp/failed" || die "the reports' records could not be read"

# the list as it stands before this run: a test added now gates from the next
if [ -e "$qlist" ]; then
	rt-quarantine -f "$qlist" list --json >"$tmp/qlist.jsonl" || die "$qlist: cannot read the quarantine list"
else
	: >"$tmp/qlist.jsonl"
fi
jq -s 'map(.case)' "$tmp/qlist.jsonl" >"$tmp/listed.json" || die "$qlist: cannot read the quarantine list"

# each case's rate over the history's last W runs, before this run
echo '[]' >"$tmp/rates.json"
if [ -s "$history" ]; then
	sqlite3 -json "file:$history?mode=ro" "SELECT case_id AS c, sum(failed) AS k, count(failed) AS n
	    FROM results WHERE failed IS NOT NULL AND run IN (SELECT run FROM runs
	    ORDER BY audit_id DESC, first_ts DESC, run DESC LIMIT $window) GROUP BY case_id" \
	    >"$tmp/rates.json" 2>"$tmp/err" || die "$history: $(head -n 1 "$tmp/err")"
	[ -s "$tmp/rates.json" ] || echo '[]' >"$tmp/rates.json"
fi

: >"$tmp/lines"
: >"$tmp/attempts.jsonl"
nflaky=0 nfailed=0 nquar=0 nerror=0 i=0
while IFS= read -r -d '' id; do
	i=$((i + 1))
	printf '%s\0' "$id" >"$tmp/case"
	read -r k n < <(jq -r --arg c "$id" 'map(select(.c == $c))[0] // {k: 0, n: 0} | "\(.k) \(.n)"' "$tmp/rates.json")
	# the budget: rt-plan --policy's for a rate strictly between 0 and 1
	# (the smallest r with p^(r+1) <= 1%, p the rate's exact upper bound);
	# none failed or all failed gives no such rate: the default budget
	if [ "$k" -gt 0 ] && [ "$k" -lt "$n" ]; then
		jq -nc --argjson k "$k" --argjson n "$n" '{type: "measure", trials: $n, failures: $k}' |
		    rt-plan --policy >"$tmp/policy.json" 2>"$tmp/err" || die "rt-plan: $(head -n 1 "$tmp/err")"
		r=$(jq -r '.retry_budget // empty' "$tmp/policy.json")
		[ -n "$r" ] || r=$dflt
		why="$k/$n failed in the last runs, rt-plan's budget $r"
		if [ "$r" -gt "$maxr" ]; then why="$why, capped at $maxr"; r=$maxr; fi
	else
		r=$dflt
		if [ "$n" -eq 0 ]; then why="no history, the default budget $r"
		else why="$k/$n failed in the last runs (no rate to plan from), the default budget $r"; fi
	fi
	jq -nc --argjson r "$r" '{type: "policy", retry_budget: $r}' >"$tmp/policy.jsonl"
	rt-retry -0 -f "$tmp/case" -r auto --measure "$tmp/policy.jsonl" \
	    --junit "$tmp/junit.$i.xml" -c "$cmd" </dev/null >"$tmp/retry.jsonl" 2>"$tmp/err"
	rc=$?
	cat "$tmp/retry.jsonl" >>"$tmp/attempts.jsonl"
	jq -c 'select(.type == "group") | .cases[0]' "$tmp/retry.jsonl" >"$tmp/res.json" 2>/dev/null
	if [ "$rc" -gt 2 ] || [ ! -s "$tmp/res.json" ]; then
		die "rt-retry exited $rc: $(tail -n 1 "$tmp/err" | jq -Rr "$show")"
	fi
	res=$(jq -r .result "$tmp/res.json")
	fails=$(jq -r '[.earlier[]?, .outcome] | map(select(. == "fail" or . == "error")) | length' "$tmp/res.json")
	att=$(jq -r .attempts "$tmp/res.json")
	if [ "$res" = error ]; then
		word=error nerror=$((nerror + 1))
	elif jq -e --arg c "$id" 'index($c) != null' "$tmp/listed.json" >/dev/null; then
		word=quarantined nquar=$((nquar + 1))
	elif [ "$res" = passed ] || [ "$res" = flaky ]; then
		word=flaky nflaky=$((nflaky + 1))
	else
		word=failed nfailed=$((nfailed + 1))
	fi
	jq -rn --arg id "$id" --arg w "$word" --arg why "$why" --arg res "$res" \
	    --argjson f "$fails" --argjson a "$att" \
	    '"\($w): \($id | '"$show"'): failed in the job; rerun \($a) times, \($f) failed, \($a - $f) passed (\($why))"' \
	    >>"$tmp/lines"
done <"$tmp/failed"

# every rerun in one JUnit file (one testsuite per case)
{
	echo '<?xml version="1.0" encoding="UTF-8"?>'
	echo '<testsuites name="rt-ci-retry">'
	for f in "$tmp"/junit.*.xml; do [ -e "$f" ] && sed '/^<?xml /d' "$f"; done
	echo '</testsuites>'
} >"$junit_out" || die "$junit_out: cannot write"
[ -z "$records" ] || cp "$tmp/attempts.jsonl" "$records" || die "$records: cannot write"

if [ "$nfailed" -gt 0 ]; then gate="FAIL: $nfailed failed every attempt outside the quarantine"
else gate="pass: 0 failed every attempt outside the quarantine"; fi
gate="gate: $gate ($nflaky flaky, $nquar quarantined)"
[ "$nerror" -eq 0 ] || gate="$gate; $nerror could not be rerun: the command failed to run them (exit 2)"

# the job's own results into the history (single attempts, as rt-audit's
# rule counts them; the reruns, made only after a failure, stay out), and
# the tests its quarantine rule lists onto the list, each with its issue
added=""
if [ "$audit" = 1 ]; then
	mkdir -p "$(dirname "$history")" || die "$history: cannot make its directory"
	qopt=()
	[ ! -e "$qlist" ] || qopt=(--quarantine "$qlist")
	rt-audit -H "$history" "${qopt[@]}" --json "$tmp/digest.json" --md "$tmp/digest.md" \
	    -- "$tmp/trials.jsonl" >"$tmp/audit.out" 2>"$tmp/err" ||
	    die "rt-audit: $(head -n 1 "$tmp/err")"
	jq -c --slurpfile l "$tmp/listed.json" '.quarantine |= map(select(.case as $c | $l[0] | index($c) | not))' \
	    "$tmp/digest.json" >"$tmp/cands.json" || die "the digest could not be read"
	if [ "$autoq" = 1 ] && [ "$(jq '.quarantine | length' "$tmp/cands.json")" -gt 0 ]; then
		if rt-quarantine -f "$qlist" add --from "$tmp/cands.json" >"$tmp/add.out" 2>"$tmp/err"; then
			added=$(cat "$tmp/add.out")
		else
			echo "$me: the quarantine rule listed tests, but they could not be added: $(head -n 1 "$tmp/err" | jq -Rr "$show")" >&2
		fi
	fi
fi

cat "$tmp/lines"
[ -z "$added" ] || printf '%s\n' "$added"
echo "$gate"
if [ -n "$summary" ]; then
	{
		echo "### retrial: retries"
		echo
		echo "**$gate**"
		echo
		sed 's/^/- /' "$tmp/lines"
		[ -z "$added" ] || { echo; echo "Quarantined now (the rule fired):"; printf '%s\n' "$added" | sed 's/^/- /'; }
		echo
	} >>"$summary" || die "$summary: cannot append"
fi
[ "$nerror" -eq 0 ] || exit 2
[ "$nfailed" -eq 0 ]
