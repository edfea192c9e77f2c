#!/bin/sh
# bench/bisect.sh: probes and trials the shipped rt-bisect spends to the
# answer, by its group testing and by the linear pairwise scan (--linear:
# every candidate in its own pair with the victim, as iDFlakies does),
# (a) on the real fixture suites t/fixtures/bisect/* run by their real
# runners, (b) on synthetic suites of 100, 1000 and 10000 tests with a noisy
# victim: it fails 2% of the time alone and 60% after its polluter, and one
# other test fails on its own every time. The synthetic runner is a
# generic shell command that reads the order it is given and writes a
# JUnit report of every test to $RETRIAL_JUNIT, so rt-bisect judges the
# victim's own outcome. A row is right when the category and the claimed
# sets are the fixture's (the synthetic polluter alone); the pairwise scan
# cannot find a polluter set of two (flags/), so its rows may be "no".
#
#   SIZES="100 1000 10000"  synthetic suites      REPS=3  seeds per synthetic row
#   FIXTURES="broken ..."   fixture suites ("" none)
#   LINEAR_MAX=10000        largest synthetic suite also scanned by --linear
#   LINEAR_REPS=1           seeds per --linear row above 1000 tests (~127000
#                           trials each at 10000)
#   BISECT_OPTS="..."       extra rt-bisect options on every row (a mutation)
#   NO_REPORT=1             the synthetic runner writes no report (a mutation:
#                           rt-bisect then judges by the exit status)
# Exits 1 when a group-testing row (rt-bisect's default) is wrong. Not run
# by make check.
set -eu
# BENCH_SMALL=1 (make bench, .ci/run): the small form, SIZES="100" REPS=1 FIXTURES="broken" LINEAR_MAX=100
if [ "${BENCH_SMALL:-}" = 1 ]; then
	: "${SIZES=100}"
	: "${REPS=1}"
	: "${FIXTURES=broken}"
	: "${LINEAR_MAX=100}"
fi
cd "$(dirname "$0")"
TOP=$(cd .. && pwd)
B=$TOP/bin
F=$TOP/t/fixtures/bisect
SIZES=${SIZES-"100 1000 10000"}
REPS=${REPS:-3}
FIXTURES=${FIXTURES-"broken noisy tmpfiles registry settings pricing flags nod"}
LINEAR_MAX=${LINEAR_MAX:-10000}
LINEAR_REPS=${LINEAR_REPS:-1}
BISECT_OPTS=${BISECT_OPTS:-}
NO_REPORT=${NO_REPORT:-}
export PYTHONDONTWRITEBYTECODE=1 NO_REPORT
out=$(mktemp -d "${TMPDIR:-/tmp}/rt-bench-bisect.XXXXXX")
trap 'rm -rf "$out"' EXIT
wrong=0

# The synthetic runner: "noisy P V S ID..." runs the IDs in order; V
# fails on 2% of the seeds alone and on 60% after P; S fails every time.
cat > "$out/noisy" <<'EOF'
#!/bin/sh
p=$1 v=$2 s=$3
shift 3
u=${RETRIAL_SEED#"${RETRIAL_SEED%???}"}
u=$((1$u - 1000))
rc=0 cut=20
{
	printf '<testsuite>'
	for id do
		case $id in
		"$p") cut=600 ;;
		"$s") rc=1; printf '<testcase name="%s"><failure message="fails on its own"/></testcase>' "$id"; continue ;;
		"$v") if [ "$u" -lt "$cut" ]; then
			rc=1; printf '<testcase name="%s"><failure message="stale"/></testcase>' "$id"
			break
		fi ;;
		esac
		printf '<testcase name="%s"/>' "$id"
		[ "$id" = "$v" ] && break
	done
	printf '</testsuite>\n'
} > "${NO_REPORT:+/dev/null}${NO_REPORT:-${RETRIAL_JUNIT:-/dev/null}}"
exit $rc
EOF
chmod +x "$out/noisy"

row() { printf '%-14s %6s %-7s %6s %8s %8s %s\n' "$@"; }
row suite tests mode probes trials plan found-correct

# bisect DIR EXPECT ARGS...: one rt-bisect run in DIR; the record's answer
# (category and sets) against EXPECT, a jq expression over the record.
bisect() {
	d=$1 want=$2
	shift 2
	# shellcheck disable=SC2086
	(cd "$d" && "$B/rt-bisect" $BISECT_OPTS "$@" > "$out/rec" 2> "$out/err") || {
		sed 's/^/  /' "$out/err" >&2
		echo '{"probes":[],"trials":0,"plan":{"trials":0},"error":true}' > "$out/rec"
	}
	if jq -e "$want" "$out/rec" > /dev/null; then ok=yes; else ok=no; fi
	jq -r --arg ok "$ok" '"\(.probes | length) \(.trials) \(.plan.trials) \($ok) \(.category // "-") \(.polluters // [] | join(","))\(.setters // [] | join(","))"' "$out/rec"
}

# --- (a) the fixture suites, with their real runners ---
P="/usr/bin/python3 -m pytest -q -p no:cacheprovider -p no:random_order -p no:randomly"
for s in $FIXTURES; do
	case $s in
	broken) c=tests/test_cart.py::TestCart; v=$c::test_total_is_sum
		want='.category == "victim" and .polluter_sets == [["'$c'::test_add_coupon"]]' ;;
	noisy) v=tests/test_rates.py::test_convert_rate
		want='.category == "victim" and .polluter_sets == [["tests/test_rates.py::test_warm_cache"]]' ;;
	tmpfiles) v=tests/test_export.py::test_export_is_json
		want='.category == "victim" and .polluter_sets == [["tests/test_export.py::test_switch_to_csv"]]' ;;
	registry) c=tests/test_registry.py::TestRegistry; v=$c::test_default_names
		want='.category == "victim" and .polluter_sets == [["'$c'::test_register_csv"]]' ;;
	settings) v=tests/test_config.py::test_connection_url
		want='.category == "brittle" and .setter_sets == [["tests/test_config.py::test_load_settings"]]' ;;
	pricing) c=tests.test_cache.PriceCacheTest; v=$c.test_list_price
		want='.category == "victim" and .polluter_sets == [["'$c'.test_discount_price"]]' ;;
	flags) v=tests/test_flags.py::test_legacy_banner
		want='.category == "victim" and .polluter_sets == [["tests/test_flags.py::test_enable_beta", "tests/test_flags.py::test_strict_mode"]]' ;;
	nod) v=tests/test_sample.py::test_sample_is_small
		want='.category == "nod" and .polluters == [] and .setters == []' ;;
	*) echo "bisect.sh: unknown fixture $s" >&2; exit 2 ;;
	esac
	for m in group linear; do
		[ $m = linear ] && lin=--linear || lin=
		if [ $s = pricing ]; then
			set -- -f tests.txt -- /usr/bin/python3 -m unittest {}
		else
			# shellcheck disable=SC2086
			set -- --collect "$P --collect-only" -- $P {}
		fi
		# shellcheck disable=SC2086
		r=$(bisect "$F/$s" "$want" $lin --no-cleaners --threshold 0.3 --seed 1 -v "$v" "$@")
		# shellcheck disable=SC2086
		set -- $r
		n=$(jq ".candidates // 0" "$out/rec")
		row "$s" "$((n + 1))" $m "$1" "$2" "$3" "$4"
		[ "$4" = yes ] || [ $m = linear ] || wrong=$((wrong + 1))
	done
done

# --- (b) synthetic suites, a noisy victim ---
for n in $SIZES; do
	seq -f 't%05g' 1 "$n" > "$out/list"
	v=$(printf 't%05g' "$n")
	p=$(printf 't%05g' $((n * 37 / 100)))
	s=$(printf 't%05g' $((n * 11 / 100 + 1)))
	for m in group linear; do
		[ $m = linear ] && [ "$n" -gt "$LINEAR_MAX" ] && continue
		[ $m = linear ] && lin=--linear || lin=
		reps=$REPS
		[ $m = linear ] && [ "$n" -gt 1000 ] && reps=$LINEAR_REPS
		probes=0 trials=0 plan=0 right=0 r=1
		while [ $r -le "$reps" ]; do
			# shellcheck disable=SC2086
			x=$(bisect . '.category == "victim" and .polluter_sets == [["'$p'"]]' $lin \
			    --no-cleaners --max-trials 10000000 --seed "$r" -v "$v" -f "$out/list" \
			    -- "$out/noisy" "$p" "$v" "$s" {})
			# shellcheck disable=SC2086
			set -- $x
			probes=$((probes + $1)) trials=$((trials + $2)) plan=$((plan + $3))
			[ "$4" = yes ] && right=$((right + 1))
			[ "$4" = yes ] || echo "  $n $m seed $r: ${5:-} ${6:-}" >&2
			r=$((r + 1))
		done
		row synthetic "$n" $m "$((probes / reps))" "$((trials / reps))" "$((plan / reps))" \
		    "$right/$reps"
		[ $right = "$reps" ] || [ $m = linear ] || wrong=$((wrong + 1))
	done
done
echo "(synthetic rows: the mean over the seeds counted in found-correct; plan: the record's planned trials)"
[ $wrong = 0 ] || { echo "bisect.sh: $wrong group-testing row(s) with a wrong answer" >&2; exit 1; }
