#!/usr/bin/env bats
# The bundled pipelines in examples/ and the installed library, run as a
# user would run them.
load helper

@test "examples: make demo's script runs offline end to end and the mbox applies" {
	DEMO_OUT="$T/demo" run "$EX/demo.sh"
	status_is 0
	has "FLAKY:"
	has "token only in failures: STALE"
	has "verdict: FIXED"
	[ -s "$T/demo/dossier.md" ] && [ -s "$T/demo/fix.mbox" ]
	grep -q '^Subject: \[PATCH\]' "$T/demo/fix.mbox"
	# a fresh clone of the project takes the mbox, and the test then passes
	git clone -q "$T/demo/project" "$T/clone"
	cd "$T/clone"
	git -c user.name=t -c user.email=t@localhost am -q "$T/demo/fix.mbox"
	run rt-measure -n 20 --text --cmd "python3 test_cache.py"
	has "0/20 failed"
}

@test "examples: how-many-runs.sh writes the four-section report and the proof" {
	cd "$T"
	OUT="$T/hmr" N_MEASURE=40 N_COLLECT=20 N_SLOW=3 GAP_MS=100 run "$EX/how-many-runs.sh"
	status_is 0
	has "failing-only:     STALE"
	has "fixed version:    0/"
	grep -n '^## ' "$T/hmr/report.md" | cut -d: -f2- > "$T/sections"
	printf '%s\n' "## How often" "## What is true only when it fails" \
		"## What observation changed" "## What it takes to say it is fixed" | diff - "$T/sections"
	jq -e '.proof_trials > 0 and .proof_failures == 0 and .token == "STALE"' "$T/hmr/summary.json"
	grep -q '<svg' "$T/hmr/report.html"
}

@test "examples: sharding with GNU parallel merges to the whole experiment" {
	command -v parallel >/dev/null || skip "GNU parallel not installed"
	OUT="$T" N=12 SHARDS=3 run "$EX/shard/gnu-parallel.sh"
	status_is 0
	[ "$output" = "FLAKY: 4/12 failed (33.3%, 95% Wilson CI 13.8%–61.0%)" ]
	run "$EX/shard/merge.sh" "$T"/shard-*.jsonl
	status_is 0
	echo "$output" | jq -s -e '.[0].trials == 12 and .[1].token == "EXHAUSTED"'
}

@test "examples: the nightly audit keeps every trial and digests the flaky one" {
	cd "$T"
	printf 'kth\t%s\nalways-ok\ttrue\n# comment\n' "$EX/kth/every-kth.sh" > tests.list
	RUN=n1 run "$EX/nightly-audit.sh" tests.list 30
	status_is 0
	has "## Newly flaky (1)"
	# all 30 trials, no early stop: the rate is 10/30, not 1/2
	has "10/30 failed (33.3%"
	jq -e '.top[0].rate.trials == 30 and (.new_flaky | length) == 1' audit/n1/digest.json
}

@test "examples: the Makefile gate fails a flaky test and passes a stable one" {
	run make -s -C "$EX" flaky-gate N=12
	[ "$status" -ne 0 ]
	has "FLAKY: 4/12 failed"
	run make -s -C "$EX" flaky-gate N=40 T=true
	status_is 0
	has "STABLE: 0/40 failed (≤7.3% at 95% confidence, below the 10% threshold)"
}

@test "install: make install honours DESTDIR and libretrial-stats links via pkg-config" {
	make -s -C "$RT_TOP" install DESTDIR="$T/root" PREFIX=/opt/rt >/dev/null
	for t in rt-measure rt-collect rt-plan rt-verify rt-pr rt-retry; do
		[ -x "$T/root/opt/rt/bin/$t" ]
		[ -f "$T/root/opt/rt/share/man/man1/$t.1" ]
	done
	[ -f "$T/root/opt/rt/share/man/man7/retrial.7" ]
	[ -f "$T/root/opt/rt/share/retrial/prompt.txt" ]
	[ -f "$T/root/opt/rt/include/rt_stats.h" ]
	cat > "$T/use.c" <<'C'
#include <stdio.h>
#include <rt_stats.h>
int main(void) { rt_interval ci; long n; rt_wilson(0, 40, 0.95, &ci); rt_runs_to_claim(0.2, 0.95, &n);
 printf("%.4f %ld\n", ci.high, n); return 0; }
C
	export PKG_CONFIG_PATH="$T/root/opt/rt/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$T/root"
	# a sanitizer build (make check SANITIZE=1) installs an instrumented library
	san=""
	[ "${SANITIZE:-}" = 1 ] && san="-fsanitize=address,undefined"
	cc $san -o "$T/use" "$T/use.c" $(pkg-config --cflags --libs retrial-stats) -Wl,-rpath,"$T/root/opt/rt/lib"
	run "$T/use"
	[ "$output" = "0.0876 14" ]
	make -s -C "$RT_TOP" uninstall DESTDIR="$T/root" PREFIX=/opt/rt >/dev/null
	[ ! -e "$T/root/opt/rt/bin/rt-measure" ]
	[ ! -e "$T/root/opt/rt/lib/libretrial-stats.so" ]
	[ ! -e "$T/root/opt/rt/share/retrial" ]
}

@test "examples: the shipped cache has a real fix and a decoy for each fixable example" {
	for ex in timing:test_cache.py hashorder:test_order.py lingering:test_lock.sh; do
		dir=${ex%%:*} src=${ex#*:}
		cp -R "$EX/$dir" "$T/$dir"
		rt-diagnose --offline -C "$T/$dir" -s "$src" </dev/null 2>/dev/null > "$T/$dir.h"
		jq -e -s 'length == 2 and all(.source == "cache" and .status == "ok")' "$T/$dir.h"
		for id in h1 h2; do
			jq -r "select(.id == \"$id\") | .patch" "$T/$dir.h" | patch -p1 --dry-run -s -d "$T/$dir"
		done
	done
	# the real fixes hold: hashorder's and lingering's fixed tests always pass
	jq -r 'select(.id == "h1") | .patch' "$T/hashorder.h" | patch -p1 -s -d "$T/hashorder"
	rt-measure -n 10 --text -- python3 "$T/hashorder/test_order.py" | grep -q "0/10 failed"
	jq -r 'select(.id == "h1") | .patch' "$T/lingering.h" | patch -p1 -s -d "$T/lingering"
	rt-measure -n 10 --text -- sh "$T/lingering/test_lock.sh" | grep -q "0/10 failed"
}

@test "examples: the CI files build retrial in every job before a tool runs, and splice no expression into a shell line" {
	run /usr/bin/python3 - "$EX/shard/ci-matrix.yml" "$EX/ci/github-workflow.yml" <<'PYEOF'
import sys, yaml
m = yaml.safe_load(open(sys.argv[1]))
for name, job in m["jobs"].items():
    runs = [s.get("run", "") for s in job["steps"]]
    built = [i for i, r in enumerate(runs) if "make -C .retrial-src" in r]
    tools = [i for i, r in enumerate(runs) if "rt-" in r]
    assert built and tools and built[0] < tools[0], name
    assert any(s.get("with", {}).get("path") == ".retrial-src" for s in job["steps"]), name
    for r in runs:
        assert "${{" not in r, (name, r)
assert any("rt-measure" in s.get("run", "") for s in m["jobs"]["merge"]["steps"])
w = yaml.safe_load(open(sys.argv[2]))
steps = w["jobs"]["test"]["steps"]
acts = [s for s in steps if "retrial@" in s.get("uses", "")]
assert acts[0]["with"]["setup-only"] == "true" and acts[-1]["if"] == "always()"
print("ok")
PYEOF
	status_is 0
	[ "$output" = ok ]
}

@test "examples: the GitLab job's script, run as GitLab runs it (bash -eo pipefail), gates and audits a real pytest suite" {
	mkdir -p "$T/p/tests" && cd "$T/p"
	printf 'def test_flaky():\n    assert 0\n\ndef test_ok():\n    pass\n' >tests/test_a.py
	PATH="$RT_TOP/bin:$PATH" rt-quarantine add tests/test_a.py::test_flaky --owner @qa >/dev/null
	/usr/bin/python3 - "$EX/ci/gitlab-ci.yml" >"$T/script.sh" <<'PYEOF'
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))["test"]
assert job["artifacts"]["reports"]["junit"] == "reports/junit.xml"
assert ".retrial/audit.db" in job["cache"]["paths"]
print("\n".join(job["script"]))
PYEOF
	run env PATH="$RT_TOP/bin:/usr/bin:/bin" PYTHONPATH="$RT_TOP/share/retrial" bash -eo pipefail "$T/script.sh"
	status_is 0
	has "quarantined, failed: tests/test_a.py::test_flaky"
	has "# Flake audit 1"
	[ "$(sqlite3 .retrial/audit.db "SELECT count(*) FROM results WHERE failed = 1")" -eq 1 ]
	# a failure outside the quarantine fails the job, after the audit
	printf 'def test_new():\n    assert 0\n' >tests/test_b.py
	run env PATH="$RT_TOP/bin:/usr/bin:/bin" PYTHONPATH="$RT_TOP/share/retrial" bash -eo pipefail "$T/script.sh"
	status_is 1
	has "failed: tests/test_b.py::test_new"
	has "# Flake audit 2"
}
