#!/bin/sh
# bench/guard.sh: the parser-based guard's time per lane (both sides of a
# patch read by the helper, the rules, the diff) for Python and Go, the Go
# helper cold (an empty cache: built first) and cached, each as a ratio to
# one trial of the fixture's own test command. K (default 10) lanes each.
set -eu
# BENCH_SMALL=1 (make bench, .ci/run): the small form, K=2
if [ "${BENCH_SMALL:-}" = 1 ]; then
	: "${K=2}"
fi
cd "$(dirname "$0")/.."
K=${K:-10}
G=t/guard_test
FX=t/fixtures/guard
make -s t/guard_test
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rt-guard-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.4f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
lane() {   # PROJECT PATCH [-c CMD]: one lane's static guard
	proj=$1 p=$2
	shift 2
	rm -rf "$TMP/$proj"
	cp -R "$FX/$proj" "$TMP/$proj"
	patch -s -p1 -d "$TMP/$proj" <"$FX/patches/$p.patch"
	"$G" check "$@" "$FX/patches/$p.patch" "$FX/$proj" "$TMP/$proj" >/dev/null || true
}
lanes() {  # K lanes, the mean in seconds
	t0=$(now)
	i=0
	while [ "$i" -lt "$K" ]; do lane "$@"; i=$((i + 1)); done
	awk -v s="$(since "$t0")" -v k="$K" 'BEGIN { printf "%.4f", s / k }'
}

# one trial of the fixture test, as rt-verify runs it
cp -R "$FX/shop" "$TMP/shop-trial"
t0=$(now)
(cd "$TMP/shop-trial" && PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -m pytest -q \
	-p no:cacheprovider -p no:random_order >/dev/null 2>&1) || true
py_trial=$(since "$t0")
py_lane=$(lanes shop n-len -c "/usr/bin/python3 -m pytest -q")
printf '%-44s %8s s\n' "python: one trial (pytest, shop)" "$py_trial"
printf '%-44s %8s s  (%s x a trial)\n' "python: guard per lane (rt-inventory.py x2)" \
	"$py_lane" "$(ratio "$py_lane" "$py_trial")"

command -v go >/dev/null || { echo "go: not installed, skipped"; exit 0; }
SHARE=$PWD/share/retrial
[ -f "$SHARE/inventory-go/main.go" ] || { echo "go: no share/retrial/inventory-go" >&2; exit 2; }
cp -R "$FX/gopool" "$TMP/go-trial"
(cd "$TMP/go-trial" && go test ./... >/dev/null 2>&1) || true   # the test binary cached
t0=$(now)
(cd "$TMP/go-trial" && go test -count=1 ./... >/dev/null 2>&1) || true
go_trial=$(since "$t0")
mkdir -p "$TMP/cache"
t0=$(now)
RETRIAL_SHAREDIR=$SHARE XDG_CACHE_HOME=$TMP/cache lane gopool go-fix
go_cold=$(since "$t0")
go_lane=$(RETRIAL_SHAREDIR=$SHARE XDG_CACHE_HOME=$TMP/cache lanes gopool go-fix)
printf '%-44s %8s s\n' "go: one trial (go test -count=1, gopool)" "$go_trial"
printf '%-44s %8s s  (%s x a trial)\n' "go: guard, cold (empty cache: go build)" \
	"$go_cold" "$(ratio "$go_cold" "$go_trial")"
printf '%-44s %8s s  (%s x a trial)\n' "go: guard per lane, cached" "$go_lane" \
	"$(ratio "$go_lane" "$go_trial")"
