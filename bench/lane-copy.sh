#!/bin/sh
# bench/lane-copy.sh: what a lane's copy costs on a jest-like project with a
# large generated node_modules (FILES small files, default 20000), as ratios
# to one bare trial (a node, else sh, trial that requires its dependencies):
# a whole copy of the tree (cp -a, what every lane did before issue 33)
# against the lane's own copy (node_modules shared, not copied), and
# rt-verify's per-trial wall time with node_modules shared against the same
# tree under a name that is not shared (so copied whole, as before).
set -eu
cd "$(dirname "$0")/.."
FILES=${FILES:-20000}
N=${N:-10}
[ -x bin/rt-verify ] || { echo "bench/lane-copy.sh: build first (make)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rt-bench-lane.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
now() { date +%s.%N; }
# gen DIR MODS: the project, its dependencies in DIR/MODS
gen() {
	mkdir -p "$1/src" "$1/__tests__"
	awk -v d="$1/$2" -v n="$FILES" 'BEGIN {
		for (i = 0; i < n; i++) {
			p = sprintf("%s/pkg%d", d, int(i / 50))
			if (i % 50 == 0) system("mkdir -p " p)
			f = sprintf("%s/f%d.js", p, i % 50)
			printf "module.exports = %d;\n", i > f
			close(f)
		}
	}'
	printf 'module.exports = () => require("../%s/pkg0/f0.js") + require("../%s/pkg1/f1.js");\n' "$2" "$2" >"$1/src/sum.js"
	if command -v node >/dev/null; then
		printf '#!/bin/sh\nexec node -e "process.exit(require(\\"./src/sum.js\\")() === 51 ? (process.env.RETRIAL_SEED || 0) %% 2 : 3)"\n' >"$1/t.sh"
	else
		printf '#!/bin/sh\ncat %s/pkg0/f0.js %s/pkg1/f1.js >/dev/null\nexit $((${RETRIAL_SEED:-0} %% 2))\n' "$2" "$2" >"$1/t.sh"
	fi
	chmod +x "$1/t.sh"
}
gen "$tmp/shared/p" node_modules
gen "$tmp/copied/p" node_mods
# one bare trial, the median of N
t0=$(now); i=0
while [ $i -lt "$N" ]; do (cd "$tmp/shared/p" && ./t.sh); i=$((i + 1)); done
t1=$(now)
bare=$(awk -v a="$t0" -v b="$t1" -v n="$N" 'BEGIN { print (b - a) / n }')
t0=$(now); cp -a "$tmp/shared/p" "$tmp/whole"; t1=$(now)
whole=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
# rt-verify, N trials of the original (failing on odd seeds: the baseline
# stops at -n) in its copy
verify() { # DIR: seconds per trial, the copy included
	t0=$(now)
	(TMPDIR="$tmp" bin/rt-verify -C "$1" -n "$N" -j 1 --no-genome --cmd ./t.sh \
		</dev/null >"$tmp/out" 2>"$tmp/err") || true
	t1=$(now)
	awk -v a="$t0" -v b="$t1" -v n="$N" 'BEGIN { print (b - a) / n }'
}
after=$(verify "$tmp/shared/p")
before=$(verify "$tmp/copied/p")
sandbox=$(tail -n 1 "$tmp/out" | sed 's/.*"sandbox":"\([a-z]*\)".*/\1/')
awk -v f="$FILES" -v n="$N" -v bare="$bare" -v whole="$whole" -v before="$before" \
    -v after="$after" -v sb="$sandbox" 'BEGIN {
	printf "node_modules: %d files; %d trials each; sandbox %s\n", f, n, sb
	printf "bare trial:                    %8.1f ms (1.00)\n", bare * 1000
	printf "cp -a of the tree (before):    %8.1f ms (%.2f bare trials)\n", whole * 1000, whole / bare
	printf "rt-verify per trial, copied:   %8.1f ms (%.2f)\n", before * 1000, before / bare
	printf "rt-verify per trial, shared:   %8.1f ms (%.2f)\n", after * 1000, after / bare
}'
