#!/bin/sh
# bench/lane-jest.sh: what a sandboxed lane costs on a real jest project
# (issue 33): the jestproj fixture with its real node_modules (make
# jest-deps: jest 30, ~6700 files) and FILES generated ones (default
# 20000, 2000 small), half in node_modules, half in a nested workspace's
# packages/ui/node_modules, which its test requires. As ratios to one bare
# jest trial (warm cache, the mean of N):
#   lane copy: rt-verify's copy of the project (one failing trial on the
#     project less the same on an empty one, the median of R), after
#     (heavy trees shared) and before (RETRIAL_COPY_HEAVY=1; small: the
#     cp -a floor of the tree instead);
#   per trial: rt-verify's wall time over its trials of jest in the
#     sandbox, the lane's copy and its cold jest cache included.
# Gates: lane copy <= 0.5, per trial <= 1.5. MUTATE=1 forces the whole
# copy (RETRIAL_COPY_HEAVY) where the gates measure, and must fail.
# Exit 0, 1 when a gate fails, 2 when it could not run; no jest: skipped.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
JP=t/fixtures/runners/jestproj
if [ "${BENCH_SMALL:-}" = 1 ]; then
	: "${FILES=2000}" "${N=3}" "${K=3}" "${R=3}"
fi
FILES=${FILES:-20000}
N=${N:-5}
K=${K:-6}
R=${R:-5}
[ -x bin/rt-verify ] || { echo "bench/lane-jest.sh: build first (make)" >&2; exit 2; }
command -v node >/dev/null && [ -e "$JP/node_modules/jest/bin/jest.js" ] ||
	{ echo "jest: not installed (make jest-deps), skipped"; exit 0; }
command -v jq >/dev/null || { echo "bench/lane-jest.sh: needs jq" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rt-bench-jest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
now() { date +%s.%N; }

# the project: the fixture, its node_modules hard-linked (the copies below
# are real ones), the generated dependencies and a test that requires them
p=$tmp/p
mkdir -p "$p" "$tmp/empty" "$tmp/t"
cp -R "$JP/package.json" "$JP/src.js" "$JP/__tests__" "$p/"
cp -al "$JP/node_modules" "$p/node_modules" 2>/dev/null ||
	{ rm -rf "$p/node_modules"; cp -a "$JP/node_modules" "$p/node_modules"; }
gen() { # DIR COUNT
	awk -v d="$1" -v n="$2" 'BEGIN {
		for (i = 0; i < n; i++) {
			q = sprintf("%s/pkg%d", d, int(i / 50))
			if (i % 50 == 0) system("mkdir -p " q)
			f = sprintf("%s/f%d.js", q, i % 50)
			printf "module.exports = %d;\n", i > f
			close(f)
		}
	}'
}
gen "$p/node_modules/@gen" $((FILES / 2))
mkdir -p "$p/packages/ui"
echo '{"name": "ui", "private": true}' >"$p/packages/ui/package.json"
gen "$p/packages/ui/node_modules/@gen" $((FILES - FILES / 2))
cat >"$p/__tests__/lane.test.js" <<'EOF'
const a = require('@gen/pkg0/f1.js');
const b = require('../packages/ui/node_modules/@gen/pkg0/f2.js');
const { total } = require('../src');

test('its dependencies load', () => {
	expect(a + b + total([{ price: 1, qty: 1 }])).toBe(4);
});

test('fails under rt-verify, so the baseline runs -n trials', () => {
	expect(process.env.RETRIAL_TRIAL).toBeUndefined();
});
EOF
jest="node node_modules/jest/bin/jest.js --ci lane.test"
nfiles=$(find "$p" -type f | wc -l)

# one bare trial: the mean of N after one to warm jest's cache
(cd "$p" && TMPDIR="$tmp/t" $jest >/dev/null 2>&1)
t0=$(now); i=0
while [ "$i" -lt "$N" ]; do (cd "$p" && TMPDIR="$tmp/t" $jest >/dev/null 2>&1); i=$((i + 1)); done
t1=$(now)
bare=$(awk -v a="$t0" -v b="$t1" -v n="$N" 'BEGIN { print (b - a) / n }')

# verify DIR N CMD: rt-verify's wall time, the baseline only
verify() {
	t0=$(now)
	(TMPDIR="$tmp" bin/rt-verify -C "$1" -n "$2" -j 1 --no-genome --cmd "$3" \
		</dev/null >"$tmp/out" 2>"$tmp/err") || true
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# copycost: the median of R runs of one failing trial, less an empty project's
copycost() {
	i=0
	while [ "$i" -lt "$R" ]; do
		e=$(verify "$tmp/empty" 1 false)
		f=$(verify "$p" 1 false)
		awk -v e="$e" -v f="$f" 'BEGIN { d = f - e; print (d > 0 ? d : 0) }'
		i=$((i + 1))
	done | median
}
# pertrial: seconds per trial of K jest trials in a lane
pertrial() {
	w=$(verify "$p" "$K" "$jest")
	n=$(tail -n 1 "$tmp/out" | jq '.baseline.trials // 0')
	[ "$n" -gt 0 ] || { echo "bench/lane-jest.sh: rt-verify ran no trial:" >&2; cat "$tmp/err" >&2; exit 2; }
	awk -v w="$w" -v n="$n" 'BEGIN { print w / n }'
}

if [ "${MUTATE:-}" = 1 ]; then
	echo "MUTATE=1: the heavy trees copied whole where the gates measure"
	export RETRIAL_COPY_HEAVY=1
	R=1
fi
copy_after=$(copycost)
trial_after=$(pertrial)
sandbox=$(tail -n 1 "$tmp/out" | jq -r .sandbox)
if [ "${BENCH_SMALL:-}" = 1 ]; then
	t0=$(now); cp -a "$p" "$tmp/whole"; t1=$(now)
	copy_before=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
	rm -rf "$tmp/whole"
	before_how="cp -a floor"
	trial_before=
else
	copy_before=$(export RETRIAL_COPY_HEAVY=1; copycost)
	trial_before=$(export RETRIAL_COPY_HEAVY=1; pertrial)
	before_how="RETRIAL_COPY_HEAVY"
fi
awk -v f="$nfiles" -v n="$N" -v k="$K" -v bare="$bare" -v ca="$copy_after" \
    -v cb="$copy_before" -v ta="$trial_after" -v tb="$trial_before" \
    -v sb="$sandbox" -v how="$before_how" 'BEGIN {
	printf "jest project: %d files (node_modules real and generated); sandbox %s\n", f, sb
	printf "bare jest trial (mean of %d):     %8.1f ms (1.00)\n", n, bare * 1000
	printf "lane copy, before (%s): %8.1f ms (%.2f bare trials)\n", how, cb * 1000, cb / bare
	printf "lane copy, after (shared):        %8.1f ms (%.2f; gate <= 0.50)\n", ca * 1000, ca / bare
	if (tb != "")
		printf "per trial in a lane, before:      %8.1f ms (%.2f)\n", tb * 1000, tb / bare
	printf "per trial in a lane, after (%d):   %8.1f ms (%.2f; gate <= 1.50)\n", k, ta * 1000, ta / bare
	bad = 0
	if (ca / bare > 0.5) { print "FAIL: the lane copy costs more than half a jest trial"; bad = 1 }
	if (ta / bare > 1.5) { print "FAIL: a trial in a lane costs more than 1.5 bare jest trials"; bad = 1 }
	exit bad
}'
