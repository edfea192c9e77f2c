#!/usr/bin/env bats
# rt-diagnose --rules emits a rule's patch only when the project builds
# with it: each runner's build check (go vet of the package at go.mod's
# language version, python3 -m py_compile, node --check) in a scratch
# copy of the project with the patch applied, with no shell. A Go rule
# whose change needs a newer language than go.mod declares emits none.
# Real go and python3; no network.
load helper

X="$RT_TOP/t/fixtures/fix"
export PYTHONDONTWRITEBYTECODE=1

setup() {
	git_scratch_home
}

# a git project of fixture $1 in $T/p
project() {
	git_project "$X/$1"
}

# rt-collect | rt-diff-facts | rt-diagnose --offline --rules of go test
gomap() {
	cd "$T/p"
	rt-collect -n 12 --seed 3 --cmd 'GOFLAGS=-mod=mod GOPROXY=off go test -count=1 ./...' \
	    >"$T/trials.jsonl"
	rt-diff-facts "$T/trials.jsonl" >"$T/facts.jsonl"
	rt-diagnose --offline --rules --no-cache "$@" \
	    "$T/facts.jsonl" "$T/trials.jsonl" >"$T/hyps.jsonl"
}

@test "go.mod declares go 1.16: the map-range rule emits no patch (its helper needs go 1.18), and says so" {
	project gomapold
	gomap --source labels.go --source labels_test.go
	# a hash_order hypothesis for the loop, without a patch
	jqe -s 'map(select(.cause_class == "hash_order")) | length == 1 and
	    (.[0] | .status == "no_patch" and .patch == null and .needs == "go 1.18"
	    and (.reason | test("labels.go:9: .*generic helper \\(go 1.18\\).*go.mod declares go 1.16")))' "$T/hyps.jsonl"
	# no hypothesis patches labels.go
	jqe -s 'map(select(.patch != null and (.files | index("labels.go")))) | length == 0' "$T/hyps.jsonl"
	# the same loop in a go 1.19 module does get the patch, and it builds
	rm -rf "$T/p"
	project gomap
	gomap --source labels.go
	jqe -s 'map(select(.cause_class == "hash_order" and .status == "ok")) | length == 1 and
	    (.[0].build | .ok == true and .command == "go vet .")' "$T/hyps.jsonl"
}

@test "build check: a patch that parses but does not compile (go vet) is not emitted; the hypothesis names the command and its first line" {
	project gomaptwice
	gomap --source labels.go
	jqe -s 'map(select(.cause_class == "hash_order")) | length == 1 and
	    (.[0] | .status == "no_patch" and .patch == null
	    and .build.ok == false and .build.command == "go vet ."
	    and (.build.first_line | test("retrialSortedKeys redeclared"))
	    and (.reason | test("^the patched project does not build \\(go vet \\.\\): ")))' "$T/hyps.jsonl"
	# the check ran in a scratch copy: the project is as it was
	git status --porcelain | grep . && false || true
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "build check: a Python rule's patch is byte-compiled before it is emitted" {
	project seeded
	cd "$T/p"
	cmd='/usr/bin/python3 -m pytest -q --random-order-seed=$RETRIAL_SEED'
	rt-collect -n 12 --seed 3 --cmd "$cmd" >"$T/trials.jsonl"
	rt-diff-facts "$T/trials.jsonl" >"$T/facts.jsonl"
	rt-diagnose --offline --rules --no-cache --source tests/test_pick.py \
	    "$T/facts.jsonl" "$T/trials.jsonl" >"$T/hyps.jsonl"
	jqe -s 'map(select(.cause_class == "randomness")) | length == 1 and (.[0] | .status == "ok"
	    and (.build | del(.import)) == {"ok": true, "command": "python3 -m py_compile ./tests/test_pick.py", "first_line": ""}
	    and .build.import.ok)' "$T/hyps.jsonl"
}
