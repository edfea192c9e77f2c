#!/usr/bin/env bats
# t/73-misc-hygiene.bats: issue 12's smaller guarantees — dangerous paths
# refused when shipping (rt-verify, rt-pr --allow-path), sane --confidence,
# rt-measure's trial numbers, rt-diff-facts' bounded token table.
load helper

setup() {
	mkdir -p "$T/tmp"
	export TMPDIR="$T/tmp"
}

CIFILE='"--- /dev/null\n+++ b/.github/workflows/x.yml\n@@ -0,0 +1,2 @@\n+on: push\n+jobs: {}\n"'

# The pool fixture's real fix, plus a new CI workflow.
ci_hypothesis() {
	jq -c --argjson ci "$CIFILE" \
	    'select(.id == "h-fix") | .id = "h-ci" | .patch += $ci | .files += [".github/workflows/x.yml"]' \
	    "$RT_TOP/t/fixtures/verify/pool.jsonl" >"$T/h.jsonl"
}

@test "rt_patch: a CI-config patch is refused by rt-verify, with the path and the way out" {
	ci_hypothesis
	run rt-verify -C "$RT_TOP/t/fixtures/verify/pool" -n 30 -N 10 -j 2 --seed 42 \
	    --no-genome --cmd ./test_pool.sh "$T/h.jsonl"
	echo "$output" | jq -e -s 'map(select(.type == "lane" and .id == "h-ci"))[0] |
	    .status == "patch_failed" and
	    (.reason | contains("refused: touches CI configuration .github/workflows/x.yml (--allow-path to permit)"))' >/dev/null
	echo "$output" | tail -n 1 | jqe '.type == "verdict" and .verdict != "FIXED" and (has("allowed_paths") | not)'
}

@test "rt_patch: --allow-path lets rt-verify race it and records the glob" {
	ci_hypothesis
	run rt-verify -C "$RT_TOP/t/fixtures/verify/pool" -n 30 -N 40 -j 2 --seed 42 \
	    --no-genome --allow-path '.github/*' --allow-path 'Jenkinsfile' --cmd ./test_pool.sh "$T/h.jsonl"
	echo "$output" | jq -e -s 'map(select(.type == "lane" and .id == "h-ci"))[0].status != "patch_failed"' >/dev/null
	echo "$output" | tail -n 1 | jqe '.allowed_paths == [".github/*", "Jenkinsfile"]'
}

@test "rt_patch: a glob that does not match leaves the refusal; .gitmodules and hooks are refused too" {
	for f in .gitmodules sub/.gitattributes .husky/pre-commit .pre-commit-config.yaml .GitLab-CI.yml; do
		jq -c --arg f "$f" 'select(.id == "h-fix") | .id = $f |
		    .patch += "--- /dev/null\n+++ b/" + $f + "\n@@ -0,0 +1 @@\n+x\n"' \
		    "$RT_TOP/t/fixtures/verify/pool.jsonl"
	done >"$T/h.jsonl"
	run rt-verify -C "$RT_TOP/t/fixtures/verify/pool" -n 30 -N 4 -j 2 --seed 42 \
	    --no-genome --allow-path 'docs/*' --cmd ./test_pool.sh "$T/h.jsonl"
	echo "$output" | tail -n 1 | jqe '.lanes | length == 5 and all(.status == "patch_failed" and
	    (.id as $i | .reason | startswith("refused: touches ") and contains($i)))'
	echo "$output" | tail -n 1 | jqe '[.lanes[].reason | capture("touches (?<k>[a-zA-Z ]+) ").k] ==
	    ["git submodules", "git attributes", "git hooks", "git hooks", "CI configuration"]'
}

# The FIXED fixture whose winner also adds a CI workflow.
ci_verdict() {
	jq -c --argjson ci "$CIFILE" 'if .type == "verdict" then .winner.patch += $ci else . end' \
	    "$RT_TOP/t/fixtures/pr/fixed.jsonl" >"$T/v.jsonl"
}

@test "rt-pr: a winner touching CI configuration is refused, exit 2, nothing written" {
	ci_verdict
	run rt-pr --body "$T/d.md" "$T/v.jsonl"
	status_is 2
	has "refused: touches CI configuration .github/workflows/x.yml (--allow-path to permit)"
	[ ! -e "$T/d.md" ]
	run rt-pr --allow-path 'docs/*' --body "$T/d.md" "$T/v.jsonl"
	status_is 2
}

@test "rt-pr: --allow-path permits it and the dossier says who permitted what" {
	ci_verdict
	run rt-pr --allow-path '.github/workflows/*.yml' --body "$T/d.md" "$T/v.jsonl"
	status_is 0
	grep -F -- '- **Dangerous paths permitted by the user (rt-pr --allow-path):** .github/workflows/x.yml, CI configuration (--allow-path .github/workflows/\*.yml)' "$T/d.md"
	# an ordinary patch says nothing about it
	rt-pr --allow-path '.github/*' --body "$T/d2.md" "$RT_TOP/t/fixtures/pr/fixed.jsonl"
	diff -u "$RT_TOP/t/fixtures/pr/fixed.md" "$T/d2.md"
}

@test "--confidence: every tool refuses a level below 0.5, naming it" {
	for c in 1e-300 0.3 0.4999; do
		run rt-plan --rate 0.2 --confidence "$c"
		status_is 2
		has "rt-plan: --confidence $c: too low to decide anything; want 0.5 or more (and below 1)"
		run rt-measure --confidence "$c" --cmd true
		status_is 2
		has "--confidence $c: too low to decide anything"
		run rt-verify --confidence "$c" --cmd true
		status_is 2
		has "--confidence $c"
		run rt-matrix --confidence "$c" --cmd true
		status_is 2
		has "--confidence $c"
		run rt-genome --confidence "$c"
		status_is 2
		has "--confidence $c"
	done
	# the ends of the range are accepted
	run rt-plan --rate 0.2 --confidence 0.5
	status_is 0
	run rt-plan --rate 0.2 --confidence 0.99999
	status_is 0
	run rt-plan --rate 0.2 --confidence 1
	status_is 2
}

@test "rt-measure: trial numbers 0 and -1 are bad input, with file:line" {
	for n in 0 -1; do
		printf '{"type":"trial","trial":1,"outcome":"pass"}\n{"type":"trial","trial":%s,"outcome":"pass"}\n' "$n" >"$T/r.jsonl"
		run rt-measure "$T/r.jsonl"
		status_is 2
		# the record's own validator (lib/rt_records) or rt-measure's range
		has "rt-measure: $T/r.jsonl:2: "
		has "\"trial\""
		has "$n"
	done
	printf '{"type":"trial","trial":1,"outcome":"pass"}\n{"type":"trial","outcome":"fail"}\n' >"$T/r.jsonl"
	run rt-measure "$T/r.jsonl"
	echo "$output" | tail -n 1 | jqe '.trials == 2 and .failures == 1'
}

@test "rt-diff-facts: high-entropy output is capped, said so, and the real token is still found" {
	/usr/bin/python3 - "$T/in" <<'PY'
import json, random, string, sys
random.seed(2)
with open(sys.argv[1], "w") as f:
    for i in range(1, 121):
        fail = i % 3 == 0
        words = " ".join("".join(random.choice(string.ascii_lowercase) for _ in range(10)) for _ in range(4000))
        f.write(json.dumps({"type": "trial", "trial": i, "outcome": "fail" if fail else "pass",
                            "stdout": words + (" NEEDLE" if fail else "")}) + "\n")
PY
	rt-diff-facts -j 2 "$T/in" >"$T/o2"
	jqe '.tokens_capped == true and .tokens_dropped > 100000 and .token == "NEEDLE" and .failures == 40' "$T/o2"
	# the same for any -j
	rt-diff-facts -j 1 "$T/in" | cmp - "$T/o2"
	# an ordinary run says nothing about caps
	rt-diff-facts "$RT_TOP/t/fixtures/diff/kth.jsonl" | jqe 'has("tokens_capped") | not'
}

@test "rt-diff-facts: no leak under valgrind, on the fixtures and a capped run" {
	command -v valgrind >/dev/null || skip "no valgrind"
	! ldd "$RT_TOP/bin/rt-plan" 2>/dev/null | grep -q libasan || skip "valgrind cannot run the sanitizer build"
	for f in "$RT_TOP"/t/fixtures/diff/kth.jsonl "$RT_TOP"/t/fixtures/verify/pool.jsonl; do
		run valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
		    --error-exitcode=99 rt-diff-facts --lenient --jsonl "$f"
		status_is 0
	done
}

@test "make check VALGRIND=1: t/helper.bash puts valgrind wrappers first on PATH" {
	command -v valgrind >/dev/null || skip "no valgrind"
	! ldd "$RT_TOP/bin/rt-plan" 2>/dev/null | grep -q libasan || skip "valgrind cannot run the sanitizer build"
	mkdir -p "$T/x"
	# shellcheck disable=SC2016
	run env RT_VALGRIND=1 BATS_TEST_DIRNAME="$RT_TOP/t" BATS_TEST_TMPDIR="$T/x" bash -c \
	    '. "$BATS_TEST_DIRNAME/helper.bash" && command -v rt-plan && rt-plan --rate 0.2'
	status_is 0
	has "$T/x/vgbin/rt-plan"
	has '"type":"plan"'
	grep -q "exec valgrind .*--error-exitcode=97" "$T/x/vgbin/rt-plan"
	run env RT_VALGRIND= BATS_TEST_DIRNAME="$RT_TOP/t" BATS_TEST_TMPDIR="$T/y" bash -c \
	    '. "$BATS_TEST_DIRNAME/helper.bash" && command -v rt-plan'
	has "$RT_TOP/bin/rt-plan"
}

@test "fuzz regressions: every input in t/fuzz/ ends with exit 0, 1 or 2, never a signal" {
	n=0
	for f in "$RT_TOP"/t/fuzz/*/*; do
		[ -f "$f" ] || continue
		case "$f" in
		*/t/fuzz/trial/*) set -- rt-measure ;;
		*/t/fuzz/measure/*) set -- rt-plan ;;
		*/t/fuzz/trial-facts/*) set -- rt-diff-facts -j 1 ;;
		*/t/fuzz/diff/*) set -- rt-diagnose --offline --rules --no-cache ;;
		*/t/fuzz/verdict/*) set -- rt-pr --body - ;;
		*/t/fuzz/verdict-import/*) set -- rt-genome --genome "$T/g.db" --import ;;
		*/t/fuzz/hypothesis/*) set -- rt-verify -C "$T" -n 2 -N 2 --no-genome --no-canary --cmd true ;;
		*) echo "no tool for $f" >&2; return 1 ;;
		esac
		run "$@" "$f"
		[ "$status" -le 2 ] || { echo "$* $f: exit $status" >&2; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 1 ]
}

# Issue 31: one huge line of go test -json output is read with a cap, the
# rest passed over, and named (RT_GO_LINE_MAX lowers the 16 MiB cap here).
@test "rt-junit: a go test -json line past the cap is cut with FILE:LINE, the events around it kept" {
	{
		printf '%s\n' '{"Action":"run","Package":"p","Test":"TestA"}'
		printf '{"Action":"output","Package":"p","Test":"TestA","Output":"'
		head -c 3000000 /dev/zero | tr '\0' x
		printf '"}\n'
		printf '%s\n' '{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.1}'
		printf '%s\n' '{"Action":"run","Package":"p","Test":"TestB"}'
		printf '%s\n' '{"Action":"fail","Package":"p","Test":"TestB","Elapsed":0.1}'
	} > "$T/big.json"
	RT_GO_LINE_MAX=1048576 rt-junit "$T/big.json" >"$T/out" 2>"$T/err"
	grep -qF "rt-junit: $T/big.json:2: line longer than 1 MiB, cut" "$T/err"
	jqe -s 'map({case, outcome}) ==
	    [{case: "p::TestA", outcome: "pass"}, {case: "p::TestB", outcome: "fail"}]' "$T/out"
}

# Issue 31: a temporary a killed run left beside a file is removed by the
# next write there; one of a live process, or any other name, is kept.
@test "rt_tmp_sweep: a killed run's PATH.rt-tmp.PID.XXXXXX is removed by the next run, nothing else" {
	cd "$T"
	sh -c 'exit 0' & dead=$!
	wait "$dead"
	: > "q.rt-tmp.$dead.aB3xYz"
	: > "q.rt-tmp.$$.aB3xYz"
	: > "q.rt-tmp.$dead.short"
	: > q.tmpaB3xYz
	ln -s /dev/null "q.rt-tmp.$dead.LinK00"
	rt-quarantine -f q add 'tests/t.py::x' >/dev/null
	grep -q 'tests/t.py::x' q
	[ ! -e "q.rt-tmp.$dead.aB3xYz" ]
	[ -e "q.rt-tmp.$$.aB3xYz" ] && [ -e "q.rt-tmp.$dead.short" ] && [ -e q.tmpaB3xYz ]
	[ -L "q.rt-tmp.$dead.LinK00" ]
}
