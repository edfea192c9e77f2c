#!/bin/sh
# bench/guard.sh: the parser-based guard's time per lane (both sides of a
# patch read by the helper, the rules, the diff) for Python and Go, the Go
# helper cold (an empty cache: built first) and cached, each as a ratio to
# one trial of the fixture's own test command. K (default 10) lanes each.
# Without share/retrial/inventory-go (not yet installed) a stand-in Go
# helper of the same shape (go/parser, go/ast, encoding/json) is built.
set -eu
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
if [ ! -f "$SHARE/inventory-go/main.go" ]; then
	mkdir -p "$TMP/share"
	cp -R "$SHARE" "$TMP/share/retrial"
	SHARE=$TMP/share/retrial
	mkdir -p "$SHARE/inventory-go"
	printf 'module retrial/inventory\n\ngo 1.19\n' >"$SHARE/inventory-go/go.mod"
	cat >"$SHARE/inventory-go/main.go" <<'GO'
// A stand-in for the Go inventory helper: parses every file with go/parser.
package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
)

func main() {
	root, files := ".", os.Args[1:]
	if len(files) > 1 && files[0] == "--root" {
		root, files = files[1], files[2:]
	}
	out := []map[string]interface{}{}
	for _, f := range files {
		fs := token.NewFileSet()
		fns := []map[string]interface{}{}
		if af, err := parser.ParseFile(fs, filepath.Join(root, f), nil, 0); err == nil {
			for _, d := range af.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					fns = append(fns, map[string]interface{}{"name": fd.Name.Name,
						"line": fs.Position(fd.Pos()).Line, "end": fs.Position(fd.End()).Line,
						"test": false, "calls": []string{}, "checks": []string{}})
				}
			}
		}
		out = append(out, map[string]interface{}{"path": f, "error": nil, "functions": fns})
	}
	json.NewEncoder(os.Stdout).Encode(map[string]interface{}{"version": 1, "lang": "go",
		"parser": "go/parser stand-in", "files": out})
}
GO
	echo "go: share/retrial/inventory-go not installed yet: a stand-in helper"
fi
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
