#!/usr/bin/env bash
# github-action.sh: the steps of retrial's GitHub Action (action.yml), as a
# script that runs anywhere a GitHub-shaped environment is set, so the bats
# suite runs it with a fake GITHUB_* environment and a loopback GitHub.
#
# Inputs, from the environment only:
#   RT_JUNIT        report globs (blank- or newline-separated; ** recurses)
#   RT_HISTORY      the rt-audit history (default .retrial/audit.db)
#   RT_QUARANTINE   the quarantine list (default .retrial/quarantine)
#   RT_COMMENT      "true": on a pull request, one PR comment with the digest
#   RT_ANNOTATIONS  "true": a ::warning annotation per newly flaky test
#   RT_GATE         "true": exit 1 when a test outside the quarantine failed
#   RT_BIN          where the rt-* tools are (default: found on PATH)
#   RT_MODE         "audit" (the default), "efd": Early Flake Detection,
#                   share/retrial/rt-efd.sh on the pull request's new tests,
#                   or "retry": share/retrial/rt-ci-retry.sh reruns the
#                   failed tests within their budgets, gates on the reruns
#                   and quarantines what rt-audit's rule lists
#   RT_LEG          the matrix leg: part of the run's name in the history
#   RT_RETRY_CMD    retry: rerun one case, sh -c with the case as "$1"
#   RT_RETRY_JUNIT  retry: the reruns' JUnit (default $RUNNER_TEMP/retrial-retries.xml)
#   RT_RETRY_DEFAULT retry: the budget with no usable rate (.retrial.yml
#                   retries:, else 2)
#   RT_RETRY_MAX    retry: no budget above this (10)
#   RT_AUTO_QUARANTINE retry: "true" adds rt-audit's candidates to the list
#   RT_EFD_BUDGET   efd: trials per new test at most (default 30)
#   RT_EFD_FAIL     efd: flaky (the default), unstable or never
#   RT_EFD_BASE     efd: the base (default origin/$GITHUB_BASE_REF)
#   RT_EFD_RUNNER   efd: auto (the default), pytest, go, jest or mocha
#   RT_EFD_PYTHON   efd: the Python that runs pytest (default python3)
#   RT_EFD_RESULTS  rt-efd.sh's records (JSONL, one measure record a new
#                   test): mode efd writes them there (default
#                   $RUNNER_TEMP/retrial-efd.jsonl), and the audit's PR
#                   comment says each verdict ("New tests checked")
#   GITHUB_TOKEN    the token for the PR comment (never printed)
# and GitHub's own: GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT,
# GITHUB_JOB, GITHUB_SHA, GITHUB_EVENT_NAME, GITHUB_EVENT_PATH,
# GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_API_URL.
#
# Exit status: 0 the gate passed (or RT_GATE is not "true"); 1 a test not on
# the quarantine list failed (efd: a new test was FLAKY, as RT_EFD_FAIL
# says); 2 a tooling error (no report matched, a bad list, a history that
# cannot be written), named on one line.
set -uo pipefail
shopt -s globstar nullglob

me=github-action.sh
die() { echo "$me: $*" >&2; exit 2; }
[ -n "${RT_BIN:-}" ] && PATH="$RT_BIN:$PATH"
for t in rt-junit rt-audit rt-quarantine jq; do
	command -v "$t" >/dev/null || die "$t not found (build retrial first: make)"
done

# a workflow command's message, escaped as GitHub reads it
gh_data() { printf '%s' "$1" | sed 's/%/%25/g; s/\r/%0D/g' | sed ':a;N;$!ba;s/\n/%0A/g'; }

# a PR comment that holds MARKER: made once, then updated; $1 the marker,
# $2 the body's file; the token goes to curl on stdin, never in argv
gh_comment() {
	local api=${GITHUB_API_URL:-https://api.github.com} id
	case $api in
	https://* | http://127.0.0.1[:/]* | http://localhost[:/]*) ;;
	*) echo "$me: GITHUB_API_URL $api: https only (plain http to loopback)" >&2; return 1 ;;
	esac
	local url="$api/repos/$GITHUB_REPOSITORY/issues"
	auth() { printf 'header = "Authorization: Bearer %s"\nheader = "Accept: application/vnd.github+json"\n' "$GITHUB_TOKEN"; }
	auth | curl -sS -f -K - "$url/$pr/comments?per_page=100" >"$tmp/comments.json" || return 1
	id=$(jq -r --arg m "$1" '[.[] | select(.body | contains($m))][0].id // empty' "$tmp/comments.json") || return 1
	jq -Rs '{body: .}' "$2" >"$tmp/comment.json" || return 1
	if [ -n "$id" ]; then
		auth | curl -sS -f -K - -X PATCH --data-binary @"$tmp/comment.json" "$url/comments/$id" >/dev/null
	else
		auth | curl -sS -f -K - -X POST --data-binary @"$tmp/comment.json" "$url/$pr/comments" >/dev/null
	fi
}

# Early Flake Detection: the pull request's new and changed tests, each
# rerun to a verdict or the budget by rt-efd.sh, said in the job summary
# and one PR comment; exit 1 when rt-efd.sh does (a FLAKY new test)
if [ "${RT_MODE:-audit}" = efd ]; then
	case ${GITHUB_EVENT_NAME:-} in
	pull_request | pull_request_target) ;;
	*) echo "$me: mode efd: not a pull request (${GITHUB_EVENT_NAME:-no event}); nothing to check"; exit 0 ;;
	esac
	tmp=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/retrial-efd.XXXXXX") || die "cannot make a temporary directory"
	trap 'rm -rf "$tmp"' EXIT
	base=${RT_EFD_BASE:-}
	if [ -z "$base" ]; then
		[ -n "${GITHUB_BASE_REF:-}" ] || die "mode efd: no RT_EFD_BASE and no GITHUB_BASE_REF"
		base=origin/$GITHUB_BASE_REF
		# actions/checkout fetches one commit: the base and the history
		# back to the merge base are fetched here
		deep=()
		[ "$(git rev-parse --is-shallow-repository)" != true ] || deep=(--unshallow)
		if [ "${#deep[@]}" -gt 0 ] || ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
			git fetch -q --no-tags "${deep[@]}" origin \
			    "+refs/heads/$GITHUB_BASE_REF:refs/remotes/origin/$GITHUB_BASE_REF" ||
			    die "mode efd: cannot fetch the base $GITHUB_BASE_REF (checkout with fetch-depth: 0)"
		fi
	fi
	# the records, for the audit's PR comment later in the job
	efd_results=${RT_EFD_RESULTS:-${RUNNER_TEMP:-$tmp}/retrial-efd.jsonl}
	: >"$efd_results" || die "$efd_results: cannot write"
	opts=(--base "$base" -n "${RT_EFD_BUDGET:-30}" --efd-fail "${RT_EFD_FAIL:-flaky}"
	    --runner "${RT_EFD_RUNNER:-auto}" --python "${RT_EFD_PYTHON:-python3}" --summary "$tmp/efd.md"
	    --records "$efd_results")
	# the tests' own output is data: shown with workflow commands stopped
	stop=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
	[ "${#stop}" -eq 32 ] || die "cannot read /dev/urandom for the stop-commands token"
	echo "::stop-commands::$stop"
	"$(dirname "$0")/rt-efd.sh" "${opts[@]}" 2>&1
	efd=$?
	echo "::$stop::"
	case $efd in
	0) efd_word=pass ;;
	1) efd_word=fail ;;
	*) [ -s "$tmp/efd.md" ] || die "rt-efd.sh exited $efd"; efd_word=error ;;
	esac
	if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
		cat "$tmp/efd.md" >>"$GITHUB_STEP_SUMMARY" || die "$GITHUB_STEP_SUMMARY: cannot append"
	fi
	if [ -n "${GITHUB_OUTPUT:-}" ]; then
		printf 'efd=%s\n' "$efd_word" >>"$GITHUB_OUTPUT" || die "$GITHUB_OUTPUT: cannot write the outputs"
	fi
	pr=""
	if [ "${RT_COMMENT:-true}" = true ] && [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -r "$GITHUB_EVENT_PATH" ]; then
		pr=$(jq -r '.pull_request.number // .number // empty' "$GITHUB_EVENT_PATH")
	fi
	case $pr in *[!0-9]*) pr="" ;; esac
	if [ -n "$pr" ] && [ -n "${GITHUB_TOKEN:-}" ] && [ -n "${GITHUB_REPOSITORY:-}" ]; then
		{ echo "<!-- retrial-efd -->"; cat "$tmp/efd.md"; } >"$tmp/body.md"
		if ! gh_comment "<!-- retrial-efd -->" "$tmp/body.md" 2>"$tmp/comment.err"; then
			echo "::warning title=retrial::the EFD comment was not written: $(gh_data "$(head -n 1 "$tmp/comment.err")")"
		fi
	fi
	exit "$efd"
fi

history=${RT_HISTORY:-.retrial/audit.db}
qlist=${RT_QUARANTINE:-.retrial/quarantine}
export RETRIAL_QUARANTINE=$qlist

# the reports: each glob expanded in the workspace, in order, once each;
# a path that starts with '-' gets "./" (and "--" ends the options), so
# no report is read as an option or as stdin
reports=()
declare -A seen=()
read -r -d '' -a pats <<<"${RT_JUNIT:-**/junit*.xml}" || true
for p in "${pats[@]}"; do
	for f in $p; do
		case $f in -*) f=./$f ;; esac
		[ -f "$f" ] && [ -z "${seen[$f]:-}" ] && { seen[$f]=1; reports+=("$f"); }
	done
done
[ "${#reports[@]}" -gt 0 ] || die "no report matches ${RT_JUNIT:-**/junit*.xml}"

# one run per job attempt and matrix leg, the same in every record of it
run="github:${GITHUB_REPOSITORY:-local}:${GITHUB_RUN_ID:-0}.${GITHUB_RUN_ATTEMPT:-1}:${GITHUB_JOB:-job}${RT_LEG:+:$RT_LEG}"

# budgeted retries: share/retrial/rt-ci-retry.sh reruns the failed tests,
# gates, records the job and quarantines what rt-audit's rule lists
if [ "${RT_MODE:-audit}" = retry ]; then
	retries=${RT_RETRY_JUNIT:-${RUNNER_TEMP:-.}/retrial-retries.xml}
	ropts=(-H "$history" -q "$qlist" -o "$retries" --run "$run")
	[ -z "${RT_RETRY_DEFAULT:-}" ] || ropts+=(-n "$RT_RETRY_DEFAULT")
	[ -z "${RT_RETRY_MAX:-}" ] || ropts+=(-m "$RT_RETRY_MAX")
	[ -z "${GITHUB_STEP_SUMMARY:-}" ] || ropts+=(--summary "$GITHUB_STEP_SUMMARY")
	[ "${RT_AUTO_QUARANTINE:-true}" = true ] || ropts+=(--no-quarantine)
	mkdir -p "$(dirname "$history")" || die "$history: cannot make its directory"
	stop=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
	[ "${#stop}" -eq 32 ] || die "cannot read /dev/urandom for the stop-commands token"
	echo "::stop-commands::$stop"
	"$(dirname "$0")/rt-ci-retry.sh" "${ropts[@]}" -- "${reports[@]}" 2>&1
	rc=$?
	echo "::$stop::"
	case $rc in 0) word=pass ;; 1) word=fail ;; *) word=error ;; esac
	if [ -n "${GITHUB_OUTPUT:-}" ]; then
		printf 'gate=%s\nretries=%s\n' "$word" "$retries" >>"$GITHUB_OUTPUT" ||
		    die "$GITHUB_OUTPUT: cannot write the outputs"
	fi
	[ "$rc" -ne 1 ] || [ "${RT_GATE:-true}" = true ] || exit 0
	exit "$rc"
fi

# Workflow commands come from this script only. Test names are data: the
# tools show them visibly (no line feed in a name starts a line), and all
# that the tools print is shown with commands stopped (GitHub's
# "::stop-commands::TOKEN", the token unguessable); commands resume
# ("::TOKEN::") only to print the annotations rt-audit escaped and this
# script's own warning. One stream, so the two never reorder.
exec 2>&1
stop=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
[ "${#stop}" -eq 32 ] || die "cannot read /dev/urandom for the stop-commands token"
echo "::stop-commands::$stop"
commands() { if [ "$1" = on ]; then echo "::$stop::"; else echo "::stop-commands::$stop"; fi; }

tmp=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/retrial-action.XXXXXX") || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"; commands on' EXIT
mkdir -p "$(dirname "$history")" || die "$history: cannot make its directory"
# the first run, before any test was quarantined: an empty list
if [ ! -e "$qlist" ]; then
	qlist=$tmp/quarantine.empty
	: >"$qlist" || die "$qlist: cannot write"
	export RETRIAL_QUARANTINE=$qlist
fi


# the gate: quarantined tests run and never gate; their outcomes are kept
rt-quarantine gate --records "$tmp/q.jsonl" -- "${reports[@]}" >"$tmp/gate.txt"
gate=$?
cat "$tmp/gate.txt"
case $gate in
0) gate_word=pass ;;
1) gate_word=fail ;;
*) die "rt-quarantine gate exited $gate" ;;
esac

# every case's records, and the quarantine lane's, as one run
{ rt-junit -- "${reports[@]}" || echo "rt-junit failed" >"$tmp/junit.err"; cat "$tmp/q.jsonl"; } |
    jq -c --arg run "$run" '.run = $run' >"$tmp/trials.jsonl" || die "the reports' records could not be read"
[ ! -e "$tmp/junit.err" ] || die "rt-junit could not read the reports"

# what this rt-audit can do (options that came later are used when present)
help=$(rt-audit --help 2>&1)
can() { case $help in *"$1"*) return 0 ;; esac; return 1; }
aopts=(-H "$history" --md "$tmp/digest.md" --json "$tmp/digest.json")
if can --quarantine; then aopts+=(--quarantine "$qlist"); fi
if [ "${RT_ANNOTATIONS:-true}" = true ] && can --annotations; then aopts+=(--annotations); fi
pr="" comment=""
if [ "${RT_COMMENT:-true}" = true ] && [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -r "$GITHUB_EVENT_PATH" ]; then
	case ${GITHUB_EVENT_NAME:-} in
	pull_request | pull_request_target)
		pr=$(jq -r '.pull_request.number // .number // empty' "$GITHUB_EVENT_PATH") ;;
	esac
fi
case $pr in *[!0-9]*) pr="" ;; esac
if [ -n "$pr" ]; then
	if [ -z "${GITHUB_TOKEN:-}" ]; then
		echo "$me: no GITHUB_TOKEN: the PR comment is skipped" >&2
	else
		comment=$pr
	fi
fi
# the new tests mode efd checked earlier in the job, for the PR comment
# (read before the audit, so a bad file records nothing): rt-measure's own
# verdict and summary (count and interval) for each, names shown
# visibly, in a fence longer than any run of backticks in them
efd_results=${RT_EFD_RESULTS:-}
[ -n "$efd_results" ] || [ -z "${RUNNER_TEMP:-}" ] || [ ! -e "$RUNNER_TEMP/retrial-efd.jsonl" ] ||
    efd_results=$RUNNER_TEMP/retrial-efd.jsonl
: >"$tmp/efd.lines"
if [ -n "$efd_results" ]; then
	[ -r "$efd_results" ] || die "RT_EFD_RESULTS $efd_results: cannot read"
	jq -r 'def shown: tostring | gsub("[\u0000-\u001f\u007f]"; "?");
	    select(.type == "measure")
	    | "new test \((.case // .command // "?") | shown): \(.verdict | shown): \(.summary | shown)"' "$efd_results" \
	    >"$tmp/efd.lines" || die "RT_EFD_RESULTS $efd_results: not rt-efd.sh's records"
fi
efds=$(grep -c '' "$tmp/efd.lines")
efd_flaky=$(grep -c '^new test .*: FLAKY: ' "$tmp/efd.lines")
fence=$(awk '{ while (match($0, /`+/)) { if (RLENGTH > n) n = RLENGTH; $0 = substr($0, RSTART + RLENGTH) } }
    END { s = "```"; while (length(s) <= n) s = s "`"; print s }' "$tmp/efd.lines")
rt-audit "${aopts[@]}" -- "$tmp/trials.jsonl" >"$tmp/audit.out" || die "rt-audit exited $? (the history is unchanged)"
# its annotations (rt_gh_command lines, escaped) with commands on, the
# rest of what it said without
grep -v '^::warning ' "$tmp/audit.out"
if grep -q '^::warning ' "$tmp/audit.out"; then
	commands on
	grep '^::warning ' "$tmp/audit.out"
	commands off
fi
# the PR comment, from the audit just recorded: a token that may not
# comment (a pull request from a fork) warns and never fails the job
# It leads with this run (the gate, its new failures, its quarantined
# failures, a link to the run); the history's digest follows, folded.
# The gate's lines show names visibly (none starts a line), in fences.
if [ -n "${comment:-}" ]; then
	fails=$(grep -c '^failed: ' "$tmp/gate.txt")
	quars=$(grep -c '^quarantined, failed: ' "$tmp/gate.txt")
	url=${GITHUB_SERVER_URL:-https://github.com}/$GITHUB_REPOSITORY/actions/runs/${GITHUB_RUN_ID:-0}
	{
		echo "<!-- retrial-audit -->"
		if [ "$gate" = 0 ]; then echo "## retrial: gate passed"; else echo "## retrial: gate FAILED"; fi
		echo
		echo "This run${RT_LEG:+ (leg $RT_LEG)}: $fails failed outside the quarantine, $quars quarantined failed. [The run]($url)"
		echo
		if [ -n "$efd_results" ]; then
			echo "### New tests checked ($efds, $efd_flaky FLAKY)"
			if [ "$efds" -gt 0 ]; then echo "$fence"; cat "$tmp/efd.lines"; echo "$fence"; else echo "None."; fi
			echo
		fi
		echo "### New failures ($fails)"
		if [ "$fails" -gt 0 ]; then echo '```'; grep '^failed: ' "$tmp/gate.txt"; echo '```'; else echo "None."; fi
		echo
		echo "### Quarantined failures ($quars)"
		if [ "$quars" -gt 0 ]; then echo '```'; grep '^quarantined, failed: ' "$tmp/gate.txt"; echo '```'; else echo "None."; fi
		echo
		echo "<details><summary>The flake history's digest</summary>"
		echo
		cat "$tmp/digest.md"
		echo
		echo "</details>"
	} >"$tmp/body.md"
	if ! gh_comment "<!-- retrial-audit -->" "$tmp/body.md" 2>"$tmp/comment.err"; then
		commands on
		echo "::warning title=retrial::the PR comment was not written: $(gh_data "$(head -n 1 "$tmp/comment.err")")"
		commands off
	fi
fi

# results where people look
keep=${RUNNER_TEMP:-$(dirname "$history")}/retrial-digest.md
cp "$tmp/digest.md" "$keep" || die "$keep: cannot write the digest"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
	{ cat "$tmp/digest.md"; echo; echo '```'; cat "$tmp/gate.txt"; echo '```'; } >>"$GITHUB_STEP_SUMMARY" ||
	    die "$GITHUB_STEP_SUMMARY: cannot append the digest"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
	printf 'digest=%s\ngate=%s\n' "$keep" "$gate_word" >>"$GITHUB_OUTPUT" ||
	    die "$GITHUB_OUTPUT: cannot write the outputs"
fi
if [ "${RT_GATE:-true}" = true ]; then
	exit "$gate"
fi
exit 0
