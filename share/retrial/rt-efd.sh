#!/bin/sh
# rt-efd.sh: Early Flake Detection. The tests a change adds or changes (git
# diff BASE...HEAD, then the runner's own collection) are each rerun with
# rt-measure --case --until verdict within a budget; one line per test says
# what rt-measure said, and a FLAKY new test fails (exit 1) unless told not.
#
# usage: rt-efd.sh [-n N] [-j N] [-t S] [--base REF] [--head REF]
#                  [--runner auto|pytest|go|jest|mocha] [--python PY]
#                  [--efd-fail flaky|unstable|never] [--summary FILE]
#                  [--records FILE]
#
# Test names are data: they travel as arguments (never through eval or an
# unquoted expansion) and are printed by jq with control characters shown.
# Exit status: 0 no new test failed the rule; 1 one did; 2 a usage error or
# a test that could not be measured.
set -u
me=rt-efd.sh
die() { echo "$me: $*" >&2; exit 2; }
usage() {
	cat >&2 <<'EOF'
usage: rt-efd.sh [-n N] [-j N] [-t S] [--base REF] [--head REF]
                 [--runner auto|pytest|go|jest|mocha] [--python PY]
                 [--efd-fail flaky|unstable|never] [--summary FILE]
                 [--records FILE]
Rerun the tests a change adds or changes until a verdict or the budget.
  -n N               trials per test at most (default 30)
  -j N               parallel trials (default 1)
  -t S               per-trial timeout in seconds
  --base REF         the change's base (default origin/$GITHUB_BASE_REF)
  --head REF         the change's head (default HEAD, checked out)
  --runner R         whose tests: auto (by file name), pytest, go, jest, mocha
  --python PY        the Python that runs pytest (default python3)
  --efd-fail WHEN    exit 1 for a FLAKY new test (flaky, the default), for
                     any verdict but STABLE or INCONCLUSIVE (unstable), never
  --summary FILE     append a Markdown section with the lines to FILE
  --records FILE     append each test's measure record to FILE
EOF
	exit 2
}

budget=30 jobs=1 timeout="" base="" head=HEAD runner=auto py=python3
efdfail=flaky summary="" records=""
while [ $# -gt 0 ]; do
	case $1 in
	-n | --trials) [ $# -ge 2 ] || usage; budget=$2; shift ;;
	-j | --jobs) [ $# -ge 2 ] || usage; jobs=$2; shift ;;
	-t | --timeout) [ $# -ge 2 ] || usage; timeout=$2; shift ;;
	--base) [ $# -ge 2 ] || usage; base=$2; shift ;;
	--head) [ $# -ge 2 ] || usage; head=$2; shift ;;
	--runner) [ $# -ge 2 ] || usage; runner=$2; shift ;;
	--python) [ $# -ge 2 ] || usage; py=$2; shift ;;
	--efd-fail) [ $# -ge 2 ] || usage; efdfail=$2; shift ;;
	--summary) [ $# -ge 2 ] || usage; summary=$2; shift ;;
	--records) [ $# -ge 2 ] || usage; records=$2; shift ;;
	-h | --help) usage ;;
	*) echo "$me: $1: unknown option" >&2; usage ;;
	esac
	shift
done
case $runner in auto | pytest | go | jest | mocha) ;; *) die "--runner $runner: must be auto, pytest, go, jest or mocha" ;; esac
case $efdfail in flaky | unstable | never) ;; *) die "--efd-fail $efdfail: must be flaky, unstable or never" ;; esac
case $budget in '' | *[!0-9]*) die "-n $budget: must be a whole number of trials" ;; esac
case $jobs in '' | *[!0-9]*) die "-j $jobs: must be a whole number" ;; esac
case $timeout in *[!0-9.]*) die "-t $timeout: must be a number of seconds" ;; esac
case $summary in '' | /*) ;; *) summary=$PWD/$summary ;; esac
case $records in '' | /*) ;; *) records=$PWD/$records ;; esac
if [ -z "$base" ]; then
	[ -n "${GITHUB_BASE_REF:-}" ] || die "no --base and no GITHUB_BASE_REF: which change?"
	base=origin/$GITHUB_BASE_REF
fi
for t in git jq rt-measure; do
	command -v "$t" >/dev/null 2>&1 || die "$t not found"
done
git rev-parse --verify -q "$base^{commit}" >/dev/null || die "--base $base: not a commit"
git rev-parse --verify -q "$head^{commit}" >/dev/null || die "--head $head: not a commit"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rt-efd.XXXXXX") || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# the files the change adds, modifies or renames into, one a line
git -c core.quotePath=false diff --name-only --no-renames --diff-filter=AM \
    "$base...$head" -- >"$tmp/changed" || die "git diff $base...$head failed"

# which runner a changed file belongs to ("" for none)
kind() {
	case $runner in
	auto)
		case ${1##*/} in
		test_*.py | *_test.py) echo pytest ;;
		*_test.go) echo go ;;
		*.test.[jt]s | *.spec.[jt]s | *.test.[cm]js | *.spec.[cm]js) echo jest ;;
		esac ;;
	pytest) case $1 in *.py) echo pytest ;; esac ;;
	go) case $1 in *_test.go) echo go ;; esac ;;
	jest | mocha) case $1 in *.[jt]s | *.[cm]js) echo "$runner" ;; esac ;;
	esac
}

# measure one test: $1 its ID (shown), $2 the --case ID or "", $3 the
# runner, then the command (argv); prints its line and appends the record
measured=0 failed=0 errors=0
measure() {
	id=$1 case=$2 mrunner=$3
	shift 3
	: >"$tmp/rec"
	set -- -n "$budget" -j "$jobs" --until verdict --runner "$mrunner" \
	    ${timeout:+-t} ${timeout:+"$timeout"} ${case:+--case} ${case:+"$case"} -- "$@"
	# stdin is the list being read, never the trials'
	if ! rt-measure "$@" </dev/null >"$tmp/rec" 2>"$tmp/err" || ! jq -e -c . "$tmp/rec" >/dev/null 2>&1; then
		errors=$((errors + 1))
		jq -rn --arg id "$id" --arg e "$(tail -n 1 "$tmp/err")" \
		    '"new test \($id | gsub("[\u0000-\u001f\u007f]"; "?")): ERROR: \($e | gsub("[\u0000-\u001f\u007f]"; "?"))"' >>"$tmp/lines"
		return
	fi
	measured=$((measured + 1))
	[ -z "$records" ] || cat "$tmp/rec" >>"$records" || die "$records: cannot write"
	verdict=$(jq -r .verdict "$tmp/rec")
	jq -r --arg id "$id" \
	    '"new test \($id | gsub("[\u0000-\u001f\u007f]"; "?")): \(.verdict): \(.summary)"' \
	    "$tmp/rec" >>"$tmp/lines"
	case $efdfail:$verdict in
	flaky:FLAKY | unstable:FLAKY | unstable:ALWAYS_FAILING) failed=$((failed + 1)) ;;
	esac
}

: >"$tmp/lines"
top=$(git rev-parse --show-toplevel) || die "not in a git work tree"
cd "$top" || die "$top: cannot enter"

# pytest: the collection's node IDs whose file changed
pyfiles=$tmp/pyfiles
: >"$pyfiles"
while IFS= read -r f; do
	[ -f "$f" ] || continue
	k=$(kind "$f")
	case $k in
	pytest) printf '%s\n' "$f" >>"$pyfiles" ;;
	go)
		d=$(dirname -- "$f")
		if ! pkg=$(cd -- "$d" && go list . 2>"$tmp/err" </dev/null); then
			errors=$((errors + 1))
			jq -rn --arg f "$f" --arg e "$(tail -n 1 "$tmp/err")" \
			    '"new tests of \($f | gsub("[\u0000-\u001f\u007f]"; "?")): ERROR: go list: \($e | gsub("[\u0000-\u001f\u007f]"; "?"))"' >>"$tmp/lines"
			continue
		fi
		sed -n 's/^func \(Test[A-Za-z0-9_]*\)(.*\*testing\.T).*/\1/p' "$f" |
		while IFS= read -r fn; do printf '%s\t%s\t%s\n' "$d" "$pkg" "$fn"; done >>"$tmp/gotests" ;;
	jest | mocha) printf '%s\t%s\n' "$k" "$f" >>"$tmp/jsfiles" ;;
	esac
done <"$tmp/changed"

if [ -s "$pyfiles" ]; then
	collect() {
		set --
		while IFS= read -r f; do set -- "$@" "$f"; done <"$pyfiles"
		"$py" -m pytest --collect-only -q -- "$@" </dev/null
	}
	collect >"$tmp/collected" 2>"$tmp/err" ||
	    die "pytest --collect-only failed: $(tail -n 1 "$tmp/collected")"
	while IFS= read -r id; do
		case $id in *::*) ;; *) continue ;; esac
		# its file is the part before the first "::"
		if grep -Fxq -e "${id%%::*}" "$pyfiles"; then
			measure "$id" "$id" pytest "$py" -m pytest -q -- "$id"
		fi
	done <"$tmp/collected"
fi
if [ -s "$tmp/gotests" ] 2>/dev/null; then
	while IFS="	" read -r d pkg fn; do
		# in the package's directory (a subshell), its counts kept
		(cd -- "$d" || exit 2
		    measure "$pkg::$fn" "$pkg::$fn" go go test -count=1 -run "^$fn\$" .
		    echo "$measured $failed $errors" >"$tmp/counts") || die "$d: cannot enter"
		read -r measured failed errors <"$tmp/counts"
	done <"$tmp/gotests"
fi
if [ -s "$tmp/jsfiles" ] 2>/dev/null; then
	while IFS="	" read -r k f; do
		# jest and mocha by file: the file's command exit status
		case $k in
		jest) measure "$f" "" jest npx --no-install jest --runTestsByPath -- "$f" ;;
		mocha) measure "$f" "" mocha npx --no-install mocha -- "$f" ;;
		esac
	done <"$tmp/jsfiles"
fi

if [ "$measured" -eq 0 ] && [ "$errors" -eq 0 ]; then
	echo "no new or changed tests between $base and $head" >>"$tmp/lines"
fi
cat "$tmp/lines"
if [ -n "$summary" ]; then
	# a fence longer than any run of backticks in the lines
	fence=$(awk '{ while (match($0, /`+/)) { if (RLENGTH > n) n = RLENGTH; $0 = substr($0, RSTART + RLENGTH) } }
	    END { s = "```"; while (length(s) <= n) s = s "`"; print s }' "$tmp/lines")
	{
		echo "### Early Flake Detection"
		echo
		echo "$fence"
		cat "$tmp/lines"
		echo "$fence"
	} >>"$summary" || die "$summary: cannot write"
fi
[ "$errors" -eq 0 ] || exit 2
[ "$failed" -eq 0 ] || exit 1
exit 0
