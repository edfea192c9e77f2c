#!/usr/bin/env bats
# t/40-rt-pr.bats: rt-pr — the evidence dossier, the git-am-able mbox, the
# pull request against a loopback fake of GitHub, and the quarantine.
load helper

FX="$RT_TOP/t/fixtures/pr"
TOKEN="ghp_fakeTOKEN_4f2b9c71e0"

setup() {
	export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
	mkdir -p "$HOME"
	git config --global user.name "Test User"
	git config --global user.email test@example.invalid
	git config --global init.defaultBranch main
	git config --global advice.detachedHead false
	export GIT_REAL="$(command -v git)"
}

teardown() {
	if [ -f "$T/gh.pid" ]; then kill "$(cat "$T/gh.pid")" 2>/dev/null || true; fi
	if [ -f "$T/thief.pid" ]; then kill "$(cat "$T/thief.pid")" 2>/dev/null || true; fi
}

# A repository holding the flaky example at its top.
mkrepo() {
	mkdir -p "$1"
	cp "$EX/timing/test_cache.py" "$1/"
	git -C "$1" init -q
	git -C "$1" add .
	git -C "$1" commit -qm "the flaky test"
}

# A bare "origin" and a work clone of it, as a user has them.
mkorigin() {
	git init -q --bare "$T/origin.git"
	git clone -q "$T/origin.git" "$T/work" 2>/dev/null
	cp "$EX/timing/test_cache.py" "$T/work/"
	git -C "$T/work" add .
	git -C "$T/work" commit -qm "the flaky test"
	git -C "$T/work" push -q origin main
}

# The fake GitHub on loopback, in MODE; GITHUB_API_URL points at it. Its
# API requests are logged in gh.log, its git requests (the bare "origin"
# over smart HTTP at /OWNER/REPO.git) in git.log.
start_gh() {
	rm -f "$T/gh.port"  # a restart must not read the last server's port
	FAKE_GITHUB_TOKEN="$TOKEN" python3 "$RT_TOP/t/fake-github.py" --log "$T/gh.log" \
	    --git-log "$T/git.log" --bare "$T/origin.git" --mode "$1" \
	    >"$T/gh.port" 2>"$T/gh.err" 3>&- &
	echo $! >"$T/gh.pid"
	for _ in $(seq 200); do [ -s "$T/gh.port" ] && break; sleep 0.05; done
	GH_PORT=$(head -1 "$T/gh.port")
	export GITHUB_API_URL="http://127.0.0.1:$GH_PORT"
	PUSH_URL="http://127.0.0.1:$GH_PORT/acme/cache.git"
	touch "$T/gh.log" "$T/git.log"
}

# An http server on loopback that asks every request for Basic credentials
# and logs what it gets (Authorization verbatim, Basic decoded) in thief.log.
start_thief() {
	python3 "$RT_TOP/t/fake-github.py" --log "$T/thief.log" --mode thief \
	    >"$T/thief.port" 2>"$T/thief.err" 3>&- &
	echo $! >"$T/thief.pid"
	for _ in $(seq 200); do [ -s "$T/thief.port" ] && break; sleep 0.05; done
	THIEF_PORT=$(head -1 "$T/thief.port")
	touch "$T/thief.log"
}

# A git on PATH that logs its argv and /proc/PID/cmdline, then runs git.
mkshim() {
	mkdir -p "$T/shim"
	export GIT_SHIM_LOG="$T/git-argv.log"
	cat >"$T/shim/git" <<'EOF'
#!/bin/sh
{ printf 'argv:'; for a in "$@"; do printf ' [%s]' "$a"; done; printf '\n'
  printf 'cmdline: '; tr '\000' ' ' </proc/$$/cmdline; printf '\n'; } >>"$GIT_SHIM_LOG"
exec "$GIT_REAL" "$@"
EOF
	chmod +x "$T/shim/git"
}

remote_branches() {
	git --git-dir "$T/origin.git" for-each-ref --format='%(refname)' refs/heads/retrial
}

# ---- usage and exit codes ----

@test "--help prints the synopsis and the options, exit 0" {
	run rt-pr --help
	status_is 0
	has "usage: rt-pr"
	has "--mbox FILE"
	has "--github OWNER/REPO"
	has "--quarantine-file"
}

@test "--version prints the version" {
	run rt-pr --version
	status_is 0
	has "rt-pr (retrial)"
}

@test "nothing to do is a usage error, exit 2" {
	run rt-pr "$FX/fixed.jsonl"
	status_is 2
	has "give --mbox FILE, --body FILE or --github OWNER/REPO"
}

@test "bad options are usage errors, exit 2" {
	run rt-pr --bogus --body - "$FX/fixed.jsonl"
	status_is 2
	run rt-pr --github acme "$FX/fixed.jsonl"
	status_is 2
	has "--github acme: must be OWNER/REPO"
	run rt-pr --body - -q ../escape "$FX/quarantine.jsonl"
	status_is 2
	has "must be a relative path inside the project"
	run rt-pr --body - --base main "$FX/fixed.jsonl"
	status_is 2
	has "need --github"
	run rt-pr --body - --remote up "$FX/fixed.jsonl"
	status_is 2
	has "--remote: unknown option"
	run rt-pr --body - --author "nobody" "$FX/fixed.jsonl"
	status_is 2
	has "must be 'NAME <EMAIL>'"
	run rt-pr --body - "$FX/fixed.jsonl" "$FX/tie.jsonl"
	status_is 2
}

@test "REGRESSION is refused with a reason, exit 1" {
	run rt-pr --body "$T/d.md" --mbox "$T/m" "$FX/regression.jsonl"
	status_is 1
	has "verdict REGRESSION"
	has "24/24 failed"
	has "fix the code, not the test"
	[ ! -e "$T/d.md" ] && [ ! -e "$T/m" ]
}

@test "INCONCLUSIVE_BASELINE is refused with a reason, exit 1" {
	run rt-pr --body - "$FX/inconclusive.jsonl"
	status_is 1
	has "verdict INCONCLUSIVE_BASELINE"
	has "0/10 failed (≤25.9% at 95% confidence)"
	has "measure longer"
}

@test "ALREADY_STABLE, ERROR and an interrupted run are refused, exit 1" {
	jq -c '.verdict = "ALREADY_STABLE"' "$FX/inconclusive.jsonl" >"$T/s.jsonl"
	run rt-pr --body - "$T/s.jsonl"
	status_is 1
	has "nothing to fix"
	jq -c '.verdict = "ERROR" | .baseline.trials = 0 | .baseline.errors = 5' "$FX/inconclusive.jsonl" >"$T/e.jsonl"
	run rt-pr --body - "$T/e.jsonl"
	status_is 1
	has "could not run the test"
	jq -c 'select(.type == "verdict") | .interrupted = true' "$FX/fixed.jsonl" >"$T/i.jsonl"
	run rt-pr --body - "$T/i.jsonl"
	status_is 1
	has "interrupted"
}

# ---- the dossier ----

@test "golden dossier: FIXED" {
	rt-pr --body "$T/d.md" "$FX/fixed.jsonl"
	diff -u "$FX/fixed.md" "$T/d.md"
}

@test "golden dossier: IMPROVED" {
	rt-pr --body "$T/d.md" "$FX/improved.jsonl"
	diff -u "$FX/improved.md" "$T/d.md"
}

@test "golden dossier: QUARANTINE" {
	rt-pr --body "$T/d.md" "$FX/quarantine.jsonl"
	diff -u "$FX/quarantine.md" "$T/d.md"
}

@test "golden dossier: a 0-failure confirmation is written with its upper bound, title too" {
	rt-pr --body "$T/d.md" "$FX/zero.jsonl"
	diff -u "$FX/zero.md" "$T/d.md"
	run head -1 "$T/d.md"
	has "0/14 (≤19.3% at 95% confidence) after"
	run cat "$T/d.md"
	has "0/20 failed (≤14.0% at 95% confidence)"
	! grep -E '(^|[^0-9.])0(\.0)?%' "$T/d.md"
	! grep -F '→ 0' "$T/d.md"
}

@test "golden dossier: a tie, and a runner-up confirmed after the first lost" {
	rt-pr --body "$T/d.md" "$FX/tie.jsonl"
	diff -u "$FX/tie.md" "$T/d.md"
	run cat "$T/d.md"
	has "| h2 | model:llama-3.1-8b | timing | 1/32 | 3.1% (0.5%–15.8%) | tied with the winner"
	has "- h2: 2/22 failed (9.1%, 95% Wilson CI 2.5%–27.9%); 22 required; **failed**."
	has "- h1: 0/22 failed (≤12.8% at 95% confidence); 22 required; **passed**."
}

@test "the dossier has every part: verdict, rates, winner, table, method, reproduce" {
	run rt-pr --body - "$FX/fixed.jsonl"
	status_is 0
	[ "${lines[0]}" = '# Fix flaky `test_cache`: 12/40 failed before, 0/30 (≤9.6% at 95% confidence) after' ]
	has "**Verdict: FIXED.**"
	has "**Before:** 12/40 failed (30.0%, 95% Wilson CI 18.0%–45.5%)"
	has "**In the tournament:** 0/20 failed (≤14.0% at 95% confidence)"
	has "**Confirmation:** 0/30 failed (≤9.6% at 95% confidence) on fresh trials, 16 required"
	has "**timing**, hypothesis h1 (cache)"
	has "| h2 | model:llama-3.1-8b | timing | 7/20 | 35.0% (18.1%–56.8%) | eliminated — 7/20 failed"
	has "| h3 | model:qwen-2.5 | assertion | — | — | neutered by the guard's rule \`early-exit\`"
	has "| h4 | rules | environment | — | — | patch_failed — hunk #​1 FAILED at 40 |"
	has "Wilson score intervals at 95% confidence"
	has "Rule: 0 failures in n = runs_to_claim(baseline ci_low, 0.95) trials."
	# the record's own command, with its operands replaced by the committed evidence
	has "rt-verify -C . --cmd 'python3 test_cache.py' .retrial/evidence/test_cache/measure.json .retrial/evidence/test_cache/hypotheses.jsonl > verdict.jsonl"
	hasnt "/home/dev"
	hasnt "< hypotheses.jsonl"
}

@test "intervals are recomputed from the counts, not copied from the record" {
	# fixed.jsonl's baseline claims ci_low 0.05, ci_high 0.95
	jqe 'select(.type == "verdict") | .baseline.ci_low == 0.05' "$FX/fixed.jsonl"
	run rt-pr --body - "$FX/fixed.jsonl"
	has "18.0%–45.5%"
	hasnt "5.0%–95.0%"
	jq -c 'select(.type == "verdict") | .confidence = 0.9' "$FX/fixed.jsonl" >"$T/c90.jsonl"
	run rt-pr --body - "$T/c90.jsonl"
	has "12/40 failed (30.0%, 90% Wilson CI 19.6%–42.9%)"
	has "0/30 (≤7.4% at 90% confidence)"
}

@test "golden dossier: rt-verify's anytime and exact one-sided intervals, named and explained" {
	# methods.jsonl is rt-verify's own record: anytime lanes, 0/29 exact one-sided
	jqe 'select(.type == "verdict") | .confirmations[0].interval == "exact one-sided"' "$FX/methods.jsonl"
	rt-pr --body "$T/d.md" "$FX/methods.jsonl"
	diff -u "$FX/methods.md" "$T/d.md"
	run cat "$T/d.md"
	# the bounds rt-verify decided with, never a second Wilson bound beside them
	[ "${lines[0]}" = '# Fix flaky `test_cache`: 65/200 failed before, 0/29 (≤9.9% at 95% confidence) after' ]
	has "**Confirmation:** 0/29 failed (≤9.9% at 95% confidence) on fresh trials, 29 required"
	has "- h1: 0/29 failed (≤9.9% at 95% confidence); 29 required; **passed**."
	has "**In the tournament:** 0/17 failed (≤25.5% at 95% confidence, anytime)"
	has "| h1 | cache | race_condition | 0/17 | ≤25.5% (anytime) |"
	has "| h2 | cache | timing | 27/100 | 27.0% (14.2%–43.1%, anytime) | eliminated — 27/100 failed after its budget of 100 trials, interval 14.2–43.0%"
	hasnt "(≤11.7% at"
	hasnt "≤18.4%"
	hasnt "19.3–36.4%"
	# and the Wilson bound of the same 0/29 is explained, not left to be found
	has "the Wilson bound of the same counts, ≤11.7%, is two-sided and looser"
	has "Marked *anytime*"
	has "baseline from the input measure record"
	hasnt "baseline 0.0 s"
	mkrepo "$T/repo"
	run rt-pr -C "$T/repo" --mbox - "$FX/methods.jsonl"
	status_is 0
	has "Confirmation: 0/29 failed (≤9.9% at 95% confidence)"
}

@test "a confirmation round at its own confidence is written at that confidence" {
	jq -c 'select(.type == "verdict") | .confirmations[0].confidence = 0.975' \
	    "$FX/methods.jsonl" >"$T/cm.jsonl"
	run rt-pr --body - "$T/cm.jsonl"
	status_is 0
	has "0/29 failed (≤12.0% at 97.5% confidence)"
	has "for 0/29 at 97.5% confidence it is ≤12.0%"
	has "**Before:** 65/200 failed (32.5%, 95% Wilson CI 26.3%–39.3%)"
}

@test "an unknown interval method, or exact one-sided with failures, is bad input, exit 2" {
	jq -c 'select(.type == "verdict") | .lanes[1].interval = "bayes"' "$FX/methods.jsonl" >"$T/m1.jsonl"
	run rt-pr --body - "$T/m1.jsonl"
	status_is 2
	has "m1.jsonl:1: h2: \"interval\": unknown method \"bayes\""
	jq -c 'select(.type == "verdict") | .confirmations[0].failures = 2' "$FX/methods.jsonl" >"$T/m2.jsonl"
	run rt-pr --body - "$T/m2.jsonl"
	status_is 2
	has "m2.jsonl:1: h1: an exact one-sided interval is for 0 failures, not 2"
	jq -c 'select(.type == "verdict") | .confirmations[0].confidence = 1' "$FX/methods.jsonl" >"$T/m3.jsonl"
	run rt-pr --body - "$T/m3.jsonl"
	status_is 2
	has "m3.jsonl:1: verdict record: field \"confirmations[0].confidence\" must be between 0 and 1 (exclusive), not 1"
}

@test "the verdict is found after the lane records, on standard input" {
	[ "$(grep -c '"type":"lane"' "$FX/fixed.jsonl")" -eq 4 ]
	rt-pr --body "$T/d.md" <"$FX/fixed.jsonl"
	diff -u "$FX/fixed.md" "$T/d.md"
}

@test "text from the record cannot format, inject HTML or mention anyone" {
	run rt-pr --body - "$FX/improved.jsonl"
	has 'Waits for the warm-up \| at most 35 ms; a \*slow\* machine'
	has '\<b\>here\</b\>'
	hasnt "<b>"
	hasnt " @retry"
	has "@​retry"
}

@test "--template renders a user's template; an unknown placeholder names its line" {
	cat >"$T/t.tmpl" <<'EOF'
{{! mine }}
{{verdict}} {{test}}: {{baseline}}
{{#winner}}
winner {{id}}: {{confirmation}}
{{/winner}}
{{#lanes}}
- {{id}} {{counts}}
{{/lanes}}
{{^has_command}}
no commands
{{/has_command}}
EOF
	# an empty command is no command to rerun (a verdict without one is bad input)
	jq -c '.command = ""' "$FX/zero.jsonl" >"$T/nocmd.jsonl"
	run rt-pr --template "$T/t.tmpl" --body - "$T/nocmd.jsonl"
	status_is 0
	[ "${lines[0]}" = 'FIXED `test_cache`: 8/40 failed (20.0%, 95% Wilson CI 10.4%–34.8%)' ]
	[ "${lines[1]}" = "winner h1: 0/14 failed (≤19.3% at 95% confidence) on fresh trials, 14 required" ]
	[ "${lines[2]}" = "- h1 0/20" ]
	[ "${lines[3]}" = "no commands" ]
	[ "${#lines[@]}" -eq 4 ]
	printf 'ok\n{{verdict}}\n{{verdcit}}\n' >"$T/bad.tmpl"
	run rt-pr --template "$T/bad.tmpl" --body - "$FX/fixed.jsonl"
	status_is 2
	has "bad.tmpl:3: unknown placeholder {{verdcit}}"
	printf '{{#lanes}}x\n' >"$T/open.tmpl"
	run rt-pr --template "$T/open.tmpl" --body - "$FX/fixed.jsonl"
	status_is 2
	has "never closed"
}

# ---- the mbox ----

@test "the mbox applies with git am in a fresh clone and the test then passes" {
	mkrepo "$T/repo"
	head=$(git -C "$T/repo" rev-parse HEAD)
	rt-pr -C "$T/repo" --mbox "$T/fix.mbox" "$FX/fixed.jsonl"
	# the user's repository is untouched
	[ "$(git -C "$T/repo" rev-parse HEAD)" = "$head" ]
	[ -z "$(git -C "$T/repo" status --porcelain)" ]
	git clone -q "$T/repo" "$T/clone"
	git -C "$T/clone" am -q "$T/fix.mbox"
	run git -C "$T/clone" log -1 --format='%an <%ae>|%ad|%s' --date=iso-strict
	[ "$output" = "retrial <retrial@localhost>|2026-11-29T23:59:59+00:00|Fix flaky test_cache: 12/40 → 0/30 failures" ]
	run git -C "$T/clone" log -1 --format=%b
	# the whole sentence opens the body
	[ "${lines[0]}" = "Fix flaky test_cache: 12/40 failed before, 0/30 (≤9.6% at 95%" ]
	has "Before: 12/40 failed (30.0%, 95% Wilson CI 18.0%–45.5%)."
	has "Confirmation: 0/30 failed (≤9.6% at 95% confidence) on fresh trials"
	hasnt "| h2 |"
	# the fixed test passes, seed after seed (it failed before)
	for seed in 1 2 3 4 5 6 7 8; do
		(cd "$T/clone" && RETRIAL_SEED=$seed python3 test_cache.py >/dev/null)
	done
}

@test "the mbox: From line, headers, message, ---, the dossier as notes, the diff" {
	mkrepo "$T/repo"
	rt-pr -C "$T/repo" --mbox "$T/a.mbox" "$FX/fixed.jsonl"
	run cat "$T/a.mbox"
	[[ "${lines[0]}" =~ ^From\ [0-9a-f]{40}\ Mon\ Sep\ 17\ 00:00:00\ 2001$ ]]
	[ "${lines[1]}" = "From: retrial <retrial@localhost>" ]
	[ "${lines[2]}" = "Date: Sun, 29 Nov 2026 23:59:59 +0000" ]
	[[ "${lines[3]}" == "Subject: [PATCH] =?UTF-8?q?Fix=20flaky"* ]]
	has "Content-Type: text/plain; charset=UTF-8"
	has $'\n---\n'
	has "| h2 | model:llama-3.1-8b"
	has "+++ b/test_cache.py"
	# the same record gives the same mbox, byte for byte
	rt-pr -C "$T/repo" --mbox "$T/b.mbox" "$FX/fixed.jsonl"
	cmp "$T/a.mbox" "$T/b.mbox"
}

@test "--author and git config retrial.author name the author" {
	mkrepo "$T/repo"
	rt-pr -C "$T/repo" --author "Ada Lovelace <ada@example.invalid>" --mbox "$T/a.mbox" "$FX/fixed.jsonl"
	grep -qx "From: Ada Lovelace <ada@example.invalid>" "$T/a.mbox"
	git -C "$T/repo" config retrial.author "CI Bot <ci@example.invalid>"
	rt-pr -C "$T/repo" --mbox "$T/b.mbox" "$FX/fixed.jsonl"
	grep -qx "From: CI Bot <ci@example.invalid>" "$T/b.mbox"
}

@test "a project in a subdirectory of its repository gets prefixed paths" {
	mkdir -p "$T/repo/sub/proj"
	mkrepo "$T/repo"
	git -C "$T/repo" mv test_cache.py sub/proj/
	git -C "$T/repo" commit -qm "moved"
	rt-pr -C "$T/repo/sub/proj" --mbox "$T/fix.mbox" "$FX/fixed.jsonl"
	grep -q '^+++ b/sub/proj/test_cache.py$' "$T/fix.mbox"
	git clone -q "$T/repo" "$T/clone"
	git -C "$T/clone" am -q "$T/fix.mbox"
	(cd "$T/clone/sub/proj" && RETRIAL_SEED=3 python3 test_cache.py)
}

@test "QUARANTINE: the mbox creates the list and the dossier; git am applies it" {
	mkrepo "$T/repo"
	rt-pr -C "$T/repo" --mbox "$T/q.mbox" --body "$T/d.md" "$FX/quarantine.jsonl"
	git clone -q "$T/repo" "$T/clone"
	git -C "$T/clone" am -q "$T/q.mbox"
	# the test is not edited
	cmp "$EX/timing/test_cache.py" "$T/clone/test_cache.py"
	diff -u "$T/d.md" "$T/clone/.retrial/dossiers/test_cache.md"
	diff -u "$FX/quarantine.md" "$T/d.md"
	run grep -v '^#' "$T/clone/.retrial/quarantine"
	# rt-quarantine(1)'s fields: no CODEOWNERS, so no owner
	[ "$output" = "$(printf 'test_cache\tsince=%s\texpires=%s\treason=rt-verify: 12/40 failed (30.0%%, 95%% Wilson CI 18.0%%–45.5%%), no fix survived\trate=12/40\t# dossier: .retrial/dossiers/test_cache.md' \
	    "$(date -u +%F)" "$(date -u -d '+30 days' +%F)")" ]
	rt-quarantine -f "$T/clone/.retrial/quarantine" list --json | jqe '.case == "test_cache" and .rate.failures == 12' 
	# what CI reads: the first field
	[ "$(grep -v '^#' "$T/clone/.retrial/quarantine" | cut -f1)" = "test_cache" ]
	run git -C "$T/clone" log -1 --format=%s
	[ "$output" = "Quarantine flaky test_cache: 12/40 failures, no fix survived" ]
}

@test "QUARANTINE end to end: rt-verify's record, git am in a fresh clone, rt-retry -q reads the list" {
	# decoy.jsonl: rt-verify raced one decoy patch on examples/timing; it lost
	jqe 'select(.type == "verdict") | .verdict == "QUARANTINE" and .lanes[0].interval == "anytime"' \
	    "$FX/decoy.jsonl"
	mkrepo "$T/repo"
	rt-pr -C "$T/repo" --mbox "$T/q.mbox" --body "$T/d.md" "$FX/decoy.jsonl"
	diff -u "$FX/decoy.md" "$T/d.md"
	run cat "$T/d.md"
	# the table's interval is the one the reason gives
	has "| d1 | rules | timing | 40/100 | 40.0% (24.8%–56.6%, anytime) | eliminated — 40/100 failed after its budget of 100 trials, interval 24.9–56.6%"
	has "No confirmation round ran: no lane was"
	hasnt "Rule: none"
	hasnt "confirmation 0.0 s"
	git clone -q "$T/repo" "$T/clone"
	git -C "$T/clone" am -q "$T/q.mbox"
	cmp "$EX/timing/test_cache.py" "$T/clone/test_cache.py"
	# the quarantined case fails, and the group does not fail on it
	cd "$T/clone"
	echo test_cache >"$T/cases"
	run rt-retry -p none -f "$T/cases" --cmd 'exit 1'
	status_is 1
	run rt-retry -p none -q .retrial/quarantine -f "$T/cases" --cmd 'exit 1'
	status_is 0
	jqe 'select(.type == "group") | .totals.quarantined == 1 and .quarantined == ["test_cache"]' <<<"$output"
}

@test "QUARANTINE extends an existing list and replaces an old dossier" {
	mkrepo "$T/repo"
	mkdir -p "$T/repo/.retrial/dossiers"
	printf '# ours\nother_test' >"$T/repo/.retrial/quarantine"   # no final newline
	printf 'an old dossier\n' >"$T/repo/.retrial/dossiers/test_cache.md"
	printf '* @ops\n' >"$T/repo/CODEOWNERS"
	git -C "$T/repo" add . && git -C "$T/repo" commit -qm "a list"
	rt-pr -C "$T/repo" --mbox "$T/q.mbox" "$FX/quarantine.jsonl"
	git clone -q "$T/repo" "$T/clone"
	git -C "$T/clone" am -q "$T/q.mbox"
	run cat "$T/clone/.retrial/quarantine"
	[ "${lines[0]}" = "# ours" ]
	[ "${lines[1]}" = "other_test" ]
	[[ "${lines[2]}" == "$(printf 'test_cache\towner=@ops\tsince=')"*"$(printf '\trate=12/40\t# dossier: .retrial/dossiers/test_cache.md')" ]]
	[ "${#lines[@]}" -eq 3 ]
	run head -1 "$T/clone/.retrial/dossiers/test_cache.md"
	has "# Quarantine flaky"
}

@test "QUARANTINE: a malformed list at HEAD is named with its line, and nothing is shipped" {
	mkrepo "$T/repo"
	mkdir -p "$T/repo/.retrial"
	printf 'a::b\towner=@x\nc::d\tnot a field\n' >"$T/repo/.retrial/quarantine"
	git -C "$T/repo" add . && git -C "$T/repo" commit -qm "a bad list"
	run rt-pr -C "$T/repo" --mbox "$T/q.mbox" "$FX/quarantine.jsonl"
	status_is 2
	has ".retrial/quarantine:2: field \"not a field\" is not NAME=VALUE"
	[ ! -e "$T/q.mbox" ]
}

@test "QUARANTINE: a test already on the list is not added twice" {
	mkrepo "$T/repo"
	mkdir -p "$T/repo/.retrial"
	printf 'test_cache\t# dossier: elsewhere\n' >"$T/repo/.retrial/quarantine"
	git -C "$T/repo" add . && git -C "$T/repo" commit -qm "listed"
	rt-pr -C "$T/repo" --mbox "$T/q.mbox" "$FX/quarantine.jsonl"
	# the dossier and the evidence, but not the list
	! grep -q '^+++ b/.retrial/quarantine$' "$T/q.mbox"
	[ "$(grep -c '^diff --git a/.retrial/evidence/test_cache/' "$T/q.mbox")" -eq 3 ]
	grep -q '^+++ b/.retrial/dossiers/test_cache.md$' "$T/q.mbox"
	# with the dossier there too, there is nothing left to ship
	git clone -q "$T/repo" "$T/clone"
	git -C "$T/clone" am -q "$T/q.mbox"
	run rt-pr -C "$T/clone" --mbox "$T/again.mbox" "$FX/quarantine.jsonl"
	status_is 0
	has "already on .retrial/quarantine"
	[ ! -e "$T/again.mbox" ]
}

@test "--quarantine-file and --test choose the list and the name" {
	mkrepo "$T/repo"
	rt-pr -C "$T/repo" -q ci/flaky.txt --test "tests/test_cache.py::test_cache_is_fresh" \
	    --mbox "$T/q.mbox" "$FX/quarantine.jsonl"
	git clone -q "$T/repo" "$T/clone"
	git -C "$T/clone" am -q "$T/q.mbox"
	[ "$(grep -v '^#' "$T/clone/ci/flaky.txt" | cut -f1)" = "tests/test_cache.py::test_cache_is_fresh" ]
	# the slug lost the name's punctuation: the name's hash keeps it apart
	h=$(printf '%s' "tests/test_cache.py::test_cache_is_fresh" | sha256sum | cut -c1-8)
	[ -f "$T/clone/.retrial/dossiers/tests-test_cache-py-test_cache_is_fresh-$h.md" ]
	[ -d "$T/clone/.retrial/evidence/tests-test_cache-py-test_cache_is_fresh-$h" ]
}

@test "two tests whose names share a slug (cut at 48 characters) get evidence directories of their own" {
	mkrepo "$T/repo"
	a="tests/test_cache.py::TestTheVeryLongCacheClassName::test_fresh_a"
	b="tests/test_cache.py::TestTheVeryLongCacheClassName::test_fresh_b"
	rt-pr -C "$T/repo" --test "$a" --mbox "$T/a.mbox" "$FX/quarantine.jsonl"
	rt-pr -C "$T/repo" --test "$b" --mbox "$T/b.mbox" "$FX/quarantine.jsonl"
	da=$(grep -o '^+++ b/.retrial/evidence/[^/]*' "$T/a.mbox" | sort -u)
	db=$(grep -o '^+++ b/.retrial/evidence/[^/]*' "$T/b.mbox" | sort -u)
	[ -n "$da" ] && [ -n "$db" ] && [ "$da" != "$db" ]
	# the second's evidence files are all new: nothing of the first's is rewritten
	! grep -A1 '^--- a/.retrial/evidence/' "$T/b.mbox" | grep -q '^--- a/'
}

@test "without git, --mbox is refused by name (it is git format-patch of a commit); --body works" {
	mkdir -p "$T/plain"
	cp "$EX/timing/test_cache.py" "$T/plain/"
	run rt-pr -C "$T/plain" --mbox "$T/fix.mbox" "$FX/fixed.jsonl"
	status_is 2
	has "not in a git work tree: --mbox and --github ship a commit"
	has "write the dossier alone with --body"
	[ ! -e "$T/fix.mbox" ]
	cmp "$EX/timing/test_cache.py" "$T/plain/test_cache.py"
	rt-pr -C "$T/plain" --body "$T/d.md" "$FX/fixed.jsonl"
	diff -u "$FX/fixed.md" "$T/d.md"
}

# ---- GitHub, against a bare repository and a fake API on loopback ----

@test "--github pushes the branch and opens a pull request; the user's tree is untouched" {
	mkorigin
	start_gh ok
	before=$(git -C "$T/work" rev-parse HEAD)
	branches=$(git -C "$T/work" branch --list)
	GITHUB_TOKEN="$TOKEN" run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 0
	has "https://github.example/acme/cache/pull/1"
	has "opened pull request #1: retrial/fix-test_cache-"
	# the branch on the remote holds the fix on top of main
	br=$(remote_branches)
	[[ "$br" == refs/heads/retrial/fix-test_cache-* ]]
	[ "$(git --git-dir "$T/origin.git" rev-parse "$br^")" = "$before" ]
	git --git-dir "$T/origin.git" show "$br:test_cache.py" | grep -q "worker.join()  # wait for the warm-up"
	run git --git-dir "$T/origin.git" log -1 --format='%an|%cn|%s' "$br"
	[ "$output" = "retrial|retrial|Fix flaky test_cache: 12/40 → 0/30 failures" ]
	# the pull request: title, head, base, the dossier as body
	jqe -s 'map(select(.method == "POST"))[0] | .status == 201 and .body.base == "main"
	    and (.body.head | startswith("retrial/fix-test_cache-"))
	    and .body.title == "Fix flaky test_cache: 12/40 → 0/30 failures"' "$T/gh.log"
	jq -js 'map(select(.method == "POST"))[0].body.body' "$T/gh.log" >"$T/body.md"
	diff -u "$FX/fixed.md" "$T/body.md"
	# nothing of the user's changed: HEAD, branches, index, work tree
	[ "$(git -C "$T/work" rev-parse HEAD)" = "$before" ]
	[ "$(git -C "$T/work" branch --list)" = "$branches" ]
	[ -z "$(git -C "$T/work" status --porcelain)" ]
	[ "$(git -C "$T/work" symbolic-ref HEAD)" = refs/heads/main ]
}

@test "re-running for the same verdict finds the pull request and opens no second" {
	mkorigin
	start_gh ok
	GITHUB_TOKEN="$TOKEN" rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	GITHUB_TOKEN="$TOKEN" run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 0
	has "already exists: #1 (open); not opening a second"
	has "https://github.example/acme/cache/pull/1"
	[ "$(jq -s 'map(select(.method == "POST")) | length' "$T/gh.log")" -eq 1 ]
}

@test "a 401 is reported, exit 2, and nothing is pushed" {
	mkorigin
	start_gh 401
	GITHUB_TOKEN="$TOKEN" run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 2
	has "HTTP 401: Bad credentials; nothing was pushed"
	[ -z "$(remote_branches)" ]
}

@test "a wrong token gets a 401 from the server, exit 2" {
	mkorigin
	start_gh ok
	GITHUB_TOKEN="not-the-token" run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 2
	has "HTTP 401"
	jqe -s '.[0].auth == "bad"' "$T/gh.log"
	[ -z "$(remote_branches)" ]
}

@test "a 422 'already exists' is reported and no second pull request is opened" {
	mkorigin
	start_gh 422
	GITHUB_TOKEN="$TOKEN" run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 0
	has "A pull request already exists for acme:retrial/fix-test_cache-"
	has "not opening a second"
	[ "$(jq -s 'map(select(.method == "POST")) | length' "$T/gh.log")" -eq 1 ]
}

@test "a 500 halfway through: the pushed branch is removed again and that is said" {
	mkorigin
	start_gh 500
	GITHUB_TOKEN="$TOKEN" run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 2
	has "HTTP 500: Internal Server Error"
	has "removed branch retrial/fix-test_cache-"
	has "nothing is left behind"
	[ -z "$(remote_branches)" ]
	# it was pushed before the request failed
	jqe -s 'map(select(.method == "POST")) | length == 1' "$T/gh.log"
}

@test "a 500 halfway with the branch undeletable says exactly what is left" {
	mkorigin
	cat >"$T/origin.git/hooks/pre-receive" <<'EOF'
#!/bin/sh
while read old new ref; do
	[ "$new" = 0000000000000000000000000000000000000000 ] && { echo "deleting is not allowed" >&2; exit 1; }
done
exit 0
EOF
	chmod +x "$T/origin.git/hooks/pre-receive"
	start_gh 500
	GITHUB_TOKEN="$TOKEN" run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 2
	br=$(remote_branches)
	[ -n "$br" ]
	sha=$(git --git-dir "$T/origin.git" rev-parse "$br")
	has "branch ${br#refs/heads/} is left on $PUSH_URL at ${sha:0:12}"
	has "remove it with: git push $PUSH_URL --delete ${br#refs/heads/}"
	# run again once GitHub is back: the branch is reused, one pull request
	kill "$(cat "$T/gh.pid")"
	start_gh ok
	GITHUB_TOKEN="$TOKEN" run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 0
	has "opened pull request #1"
	[ "$(git --git-dir "$T/origin.git" rev-parse "$br")" = "$sha" ]
}

@test "the token never appears in output, logs or the argv of anything spawned" {
	mkorigin
	mkshim
	start_gh 500
	PATH="$T/shim:$PATH" GITHUB_TOKEN="$TOKEN" run rt-pr -v -C "$T/work" --github acme/cache \
	    --mbox "$T/fix.mbox" --body "$T/d.md" "$FX/fixed.jsonl"
	status_is 2
	out1=$output
	kill "$(cat "$T/gh.pid")"
	start_gh ok
	printf '%s\n' "$TOKEN" >"$T/token"
	PATH="$T/shim:$PATH" run rt-pr -v -C "$T/work" --github acme/cache --token-file "$T/token" "$FX/fixed.jsonl"
	status_is 0
	has "opened pull request"
	# git was spawned, with the credential helper, for the push and its removal
	grep -q '^argv: \[-C\] .* \[push\]' "$GIT_SHIM_LOG"
	grep -qF "[credential.http://127.0.0.1:$GH_PORT.helper=!f()" "$GIT_SHIM_LOG"
	grep -q '^cmdline: ' "$GIT_SHIM_LOG"
	[ "$(grep -c '^argv:' "$GIT_SHIM_LOG")" -gt 10 ]
	jqe -s 'all(.auth == "ok")' "$T/gh.log"
	# git was asked for credentials (401) and then pushed with the token
	jqe -s 'all(.auth == "ok" or (.auth == "none" and .status == 401))
	    and any(.method == "POST" and (.path | endswith("/git-receive-pack")) and .auth == "ok")' "$T/git.log"
	# the push went to the URL, never with a token in it
	grep -qF "[push] [--quiet] [$PUSH_URL]" "$GIT_SHIM_LOG"
	! grep -q '://[^/ ]*@' "$GIT_SHIM_LOG"
	for f in "$GIT_SHIM_LOG" "$T/gh.log" "$T/git.log" "$T/fix.mbox" "$T/d.md"; do
		! grep -qF "$TOKEN" "$f"
	done
	case "$out1$output" in *"$TOKEN"*) false ;; esac
	! git --git-dir "$T/origin.git" log --all -p | grep -qF "$TOKEN"
}

@test "--github with no token fails before any request, exit 2" {
	mkorigin
	start_gh ok
	run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 2
	has "set GITHUB_TOKEN or use --token-file"
	[ ! -s "$T/gh.log" ]
	[ -z "$(remote_branches)" ]
}

# ---- the token goes to the API's host and nowhere else ----

@test "a loopback origin over plain http gets no token: the push goes to the API's host" {
	mkorigin
	start_gh ok
	start_thief
	# the work tree's origin, fetch and push, names another server
	git -C "$T/work" remote set-url origin "http://127.0.0.1:$THIEF_PORT/acme/cache.git"
	git -C "$T/work" remote set-url --push origin "http://127.0.0.1:$THIEF_PORT/acme/cache.git"
	GITHUB_TOKEN="$TOKEN" run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 0
	has "opened pull request #1: retrial/fix-test_cache-"
	has "(pushed to $PUSH_URL)"
	# the branch is where the API is; the other server heard nothing
	[[ "$(remote_branches)" == refs/heads/retrial/fix-test_cache-* ]]
	[ ! -s "$T/thief.log" ]
	jqe -s 'any(.path == "/acme/cache.git/git-receive-pack" and .auth == "ok")' "$T/git.log"
}

@test "a push URL rewritten to another host (url.insteadOf) gets no token, exit 2" {
	mkorigin
	start_gh ok
	start_thief
	git config --global "url.http://127.0.0.1:$THIEF_PORT/.insteadOf" "http://127.0.0.1:$GH_PORT/"
	GITHUB_TOKEN="$TOKEN" run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 2
	has "git ls-remote $PUSH_URL: "
	has "nothing was pushed"
	# git did go there, was asked for credentials, and had none to give
	jqe -s 'length > 0 and all(.status == 401 and .authorization == null and .basic == null)' "$T/thief.log"
	! grep -qF "$TOKEN" "$T/thief.log"
	[ -z "$(remote_branches)" ]
}

@test "the credential helper answers only for the API's git host and protocol" {
	mkorigin
	mkshim
	start_gh ok
	PATH="$T/shim:$PATH" GITHUB_TOKEN="$TOKEN" run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 0
	# scoped in git's config to the one URL, and no other helper kept
	grep -qF "[-c] [credential.helper=] [-c] [credential.http://127.0.0.1:$GH_PORT.helper=!" "$GIT_SHIM_LOG"
	helper=$(sed -n "s|.*\[credential\.http://127\.0\.0\.1:$GH_PORT\.helper=!\([^]]*\)\].*|\1|p" "$GIT_SHIM_LOG" | head -1)
	[ -n "$helper" ]
	ask() { printf '%b' "$2" | RETRIAL_GITHUB_TOKEN="$TOKEN" sh -c "$helper $1"; }
	# called directly, as git calls it: the right host gets the token
	run ask get "protocol=http\nhost=127.0.0.1:$GH_PORT\npath=acme/cache.git\n\n"
	[ "$output" = $'username=x-access-token\npassword='"$TOKEN" ]
	# any other host, port or protocol gets nothing
	for q in "protocol=http\nhost=127.0.0.1:1$GH_PORT\n\n" \
	    "protocol=http\nhost=127.0.0.1:${GH_PORT}0\n\n" \
	    "protocol=https\nhost=127.0.0.1:$GH_PORT\n\n" \
	    "protocol=http\nhost=evil.example\n\n" \
	    "protocol=http\nhost=127.0.0.1\n\n" \
	    "host=127.0.0.1:$GH_PORT\n\n" \
	    "protocol=http\n\n" ""; do
		run ask get "$q"
		status_is 0
		[ -z "$output" ]
	done
	# nothing for store or erase
	run ask store "protocol=http\nhost=127.0.0.1:$GH_PORT\n\n"
	[ -z "$output" ]
	run ask erase "protocol=http\nhost=127.0.0.1:$GH_PORT\n\n"
	[ -z "$output" ]
	# nor without the token in its environment
	run sh -c "printf 'protocol=http\nhost=127.0.0.1:$GH_PORT\n\n' | RETRIAL_GITHUB_TOKEN= sh -c '$helper get'"
	[ -z "$output" ]
}

@test "the user's own credential helpers are not asked and store nothing" {
	mkorigin
	start_gh ok
	printf '#!/bin/sh\necho "$@" >>"%s"; cat >>"%s"\n' "$T/helper.log" "$T/helper.log" >"$T/myhelper"
	chmod +x "$T/myhelper"
	git config --global credential.helper store
	git config --global "credential.http://127.0.0.1:$GH_PORT.helper" "$T/myhelper"
	git -C "$T/work" config credential.helper "$T/myhelper"
	GITHUB_TOKEN="$TOKEN" run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 0
	[ -n "$(remote_branches)" ]
	[ ! -e "$T/helper.log" ]
	[ ! -e "$HOME/.git-credentials" ]
}

@test "no hook runs in the git that holds the token" {
	mkorigin
	start_gh ok
	printf '#!/bin/sh\nenv >"%s"\n' "$T/hook.env" >"$T/work/.git/hooks/pre-push"
	chmod +x "$T/work/.git/hooks/pre-push"
	GITHUB_TOKEN="$TOKEN" run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 0
	[ -n "$(remote_branches)" ]
	[ ! -e "$T/hook.env" ]
}

@test "plain-http GITHUB_API_URL to a host that is not loopback is refused before any connection, exit 2" {
	mkorigin
	for u in http://example.invalid http://example.invalid:8080/api/v3 "http://[2001:db8::1]/" \
	    http://10.0.0.1/ http://128.0.0.1/; do
		GITHUB_API_URL=$u GITHUB_TOKEN="$TOKEN" run rt-pr -C "$T/work" --github acme/cache \
		    --body "$T/d.md" "$FX/fixed.jsonl"
		status_is 2
		has "GITHUB_API_URL ${u%/}: plain http is refused for a host that is not loopback (127.0.0.0/8, ::1, localhost)"
		# one line, ours: refused before curl or git saw the URL
		[ "${#lines[@]}" -eq 1 ]
		[ ! -e "$T/d.md" ]
	done
}

@test "GITHUB_API_URL with credentials, a query or an unknown shape is refused, the token unsaid" {
	mkorigin
	GITHUB_API_URL="https://x-access-token:$TOKEN@api.github.com" GITHUB_TOKEN="$TOKEN" \
	    run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 2
	has "GITHUB_API_URL https://***@api.github.com: credentials in the URL are refused"
	hasnt "$TOKEN"
	hasnt "x-access-token"
	GITHUB_API_URL="https://ghe.example.invalid/api/v3?x=1" GITHUB_TOKEN="$TOKEN" \
	    run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 2
	has "a query or fragment is refused"
	GITHUB_API_URL="https://ghe.example.invalid/some/proxy" GITHUB_TOKEN="$TOKEN" \
	    run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 2
	has "cannot tell where git is served for this API"
	GITHUB_API_URL="ftp://ghe.example.invalid/" GITHUB_TOKEN="$TOKEN" \
	    run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 2
	has "GITHUB_API_URL: not an http or https URL"
	run rt-pr -C "$T/work" --github acme/.. "$FX/fixed.jsonl"
	status_is 2
	has "must be OWNER/REPO"
}

@test "loopback by name may be plain http; an Enterprise Server API (HOST/api/v3) pushes to HOST/OWNER/REPO.git" {
	mkorigin
	start_gh ok
	GITHUB_API_URL="http://LocalHost:$GH_PORT/api/v3/" GITHUB_TOKEN="$TOKEN" \
	    run rt-pr -C "$T/work" --github acme/cache "$FX/fixed.jsonl"
	status_is 0
	has "(pushed to http://localhost:$GH_PORT/acme/cache.git)"
	jqe -s 'all(.path | startswith("/api/v3/repos/acme/cache"))' "$T/gh.log"
	jqe -s 'any(.path == "/acme/cache.git/git-receive-pack" and .auth == "ok")' "$T/git.log"
	[ -n "$(remote_branches)" ]
}

@test "QUARANTINE through --github: the branch holds the list and the dossier" {
	mkorigin
	start_gh ok
	GITHUB_TOKEN="$TOKEN" run rt-pr -C "$T/work" --github acme/cache --base main --draft "$FX/quarantine.jsonl"
	status_is 0
	br=$(remote_branches)
	[[ "$br" == refs/heads/retrial/quarantine-test_cache-* ]]
	git --git-dir "$T/origin.git" show "$br:.retrial/quarantine" | grep -q "^test_cache	"
	git --git-dir "$T/origin.git" show "$br:.retrial/dossiers/test_cache.md" >"$T/d.md"
	diff -u "$FX/quarantine.md" "$T/d.md"
	jqe -s 'map(select(.method == "POST"))[0].body.draft == true' "$T/gh.log"
	# --base given: the repository was not asked for its default branch
	jqe -s 'map(select(.method == "GET" and .path == "/repos/acme/cache")) | length == 0' "$T/gh.log"
}

# ---- bad input and faults ----

@test "a patch that does not apply is refused, exit 2, and nothing is written" {
	mkrepo "$T/repo"
	sed -i 's/0.025/0.030/' "$T/repo/test_cache.py"
	git -C "$T/repo" commit -qam "moved on"
	run rt-pr -C "$T/repo" --mbox "$T/fix.mbox" --body "$T/d.md" "$FX/fixed.jsonl"
	status_is 2
	has "the winning patch does not apply to HEAD of $T/repo"
	[ ! -e "$T/fix.mbox" ] && [ ! -e "$T/d.md" ]
}

@test "a patch that leaves the project is refused, exit 2" {
	mkrepo "$T/repo"
	jq -c 'select(.type == "verdict") | .winner.patch |= gsub("a/test_cache.py"; "a/../x.py") | .winner.patch |= gsub("b/test_cache.py"; "b/../x.py")' \
	    "$FX/fixed.jsonl" >"$T/evil.jsonl"
	run rt-pr -C "$T/repo" --mbox "$T/fix.mbox" "$T/evil.jsonl"
	status_is 2
	has "the winning patch is refused"
	[ ! -e "$T/fix.mbox" ]
}

@test "FIXED without a winner's patch is bad input, exit 2" {
	jq -c 'select(.type == "verdict") | .winner.patch = null' "$FX/fixed.jsonl" >"$T/np.jsonl"
	run rt-pr --body - "$T/np.jsonl"
	status_is 2
	has "without a winner's patch"
}

@test "malformed input names the file and line, exit 2" {
	{ head -1 "$FX/fixed.jsonl"; echo '{"type":"verdict",'; } >"$T/bad.jsonl"
	run rt-pr --body - "$T/bad.jsonl"
	status_is 2
	has "$T/bad.jsonl:2: invalid JSON"
	jq -c 'select(.type == "verdict") | del(.baseline)' "$FX/fixed.jsonl" >"$T/nb.jsonl"
	run rt-pr --body - "$T/nb.jsonl"
	status_is 2
	has "nb.jsonl:1: verdict record: field \"baseline\" is missing"
	jq -c 'select(.type == "verdict") | .baseline.failures = 41' "$FX/fixed.jsonl" >"$T/over.jsonl"
	run rt-pr --body - "$T/over.jsonl"
	status_is 2
	has "41 failures in 40 trials"
}

@test "input without a verdict record is an error, exit 2" {
	grep '"type":"lane"' "$FX/fixed.jsonl" >"$T/lanes.jsonl"
	run rt-pr --body - "$T/lanes.jsonl"
	status_is 2
	has "no verdict record"
}

@test "a quarantine name with blanks (a jest ID) is listed whole and rt-retry -q reads it; a TAB is refused" {
	mkrepo "$T/repo"
	id="__tests__/cart.test.js::cart discount HALF halves the sum"
	jq -c --arg id "$id" '.test = $id' "$FX/quarantine.jsonl" >"$T/q.jsonl"
	rt-pr -C "$T/repo" --mbox "$T/q.mbox" "$T/q.jsonl"
	git clone -q "$T/repo" "$T/clone"
	git -C "$T/clone" am -q "$T/q.mbox"
	[ "$(grep -v '^#' "$T/clone/.retrial/quarantine" | cut -f1)" = "$id" ]
	# listed once: a second run adds no line
	rt-pr -C "$T/clone" --mbox "$T/again.mbox" "$T/q.jsonl" || true
	! grep -q '^+++ b/.retrial/quarantine$' "$T/again.mbox"
	# rt-retry quarantines exactly that case, not "__tests__/cart.test.js::cart"
	cd "$T/clone"
	printf '%s\n' "$id" "__tests__/cart.test.js::cart" >"$T/cases"
	run rt-retry -p none -q .retrial/quarantine -f "$T/cases" --cmd 'exit 1'
	status_is 1
	jqe --arg id "$id" 'select(.type == "group") | .quarantined == [$id]' <<<"$output"
	# a TAB or a control character cannot go on the list
	jq -c '.test = "a\ttest"' "$FX/quarantine.jsonl" >"$T/t.jsonl"
	run rt-pr -C "$T/repo" --mbox "$T/t.mbox" "$T/t.jsonl"
	status_is 2
	has "has a TAB or control characters"
	has "name the test with --test NAME"
	rt-pr -C "$T/repo" --mbox "$T/t.mbox" --test a_test "$T/t.jsonl"
}

@test "a guard rule overruled by rt-verify --allow is printed in the dossier" {
	jq -c '.allowed_rules = ["expected-value-changed"] |
		.lanes[0].overruled = [{"rule": "expected-value-changed", "reason": "t.py:4: assert x == 3"}]' \
		"$FX/fixed.jsonl" > "$T/allowed.jsonl"
	run rt-pr --body - "$T/allowed.jsonl"
	status_is 0
	has "Guard rules overruled by the user (rt-verify --allow):** expected-value-changed for"
	has "t.py:4: assert x == 3"
	# without an override, no such line
	run rt-pr --body - "$FX/fixed.jsonl"
	status_is 0
	hasnt "overruled by the user"
}

# ---- the subject, the evidence, and the dossier a reviewer can rerun ----

@test "the subject stays within 72 columns; the whole sentence opens the body" {
	mkrepo "$T/repo"
	rt-pr -C "$T/repo" --mbox "$T/a.mbox" "$FX/methods.jsonl"
	git clone -q "$T/repo" "$T/clone"
	git -C "$T/clone" am -q "$T/a.mbox"
	run git -C "$T/clone" log -1 --format=%s
	[ "$output" = "Fix flaky test_cache: 65/200 → 0/29 failures" ]
	run git -C "$T/clone" log -1 --format=%b
	has "Fix flaky test_cache: 65/200 failed before, 0/29 (≤9.9% at 95%"
	# a long name is shortened with an ellipsis, never past 72 columns
	name="tests/integration/test_cache_warmup.py::TestCacheWarmup::test_reads_fresh_value_after_warmup"
	rt-pr -C "$T/repo" --test "$name" --mbox "$T/b.mbox" "$FX/fixed.jsonl"
	git clone -q "$T/repo" "$T/clone2"
	git -C "$T/clone2" am -q "$T/b.mbox"
	s=$(git -C "$T/clone2" log -1 --format=%s)
	[ "$(printf '%s' "$s" | wc -m)" -le 72 ]
	[[ "$s" == "Fix flaky tests/integration/test_cache_"*"…: 12/40 → 0/30 failures" ]]
	git -C "$T/clone2" log -1 --format=%b | grep -qF "test_reads_fresh_value_after_warmup"
}

@test "the subject names the test by its ID, not the command: the one test the command selects, or the order record's victim" {
	mkrepo "$T/repo"
	subject_of() {
		rt-pr -C "$T/repo" --mbox "$T/$1.mbox" "$T/$1.jsonl"
		rm -rf "$T/c-$1"
		git clone -q "$T/repo" "$T/c-$1"
		git -C "$T/c-$1" am -q "$T/$1.mbox"
		git -C "$T/c-$1" log -1 --format=%s
	}
	jq -c 'if .type == "verdict" then del(.test) | .command = "/usr/bin/python3 -m pytest -p random_order tests/test_x.py::test_y" else . end' \
	    "$FX/fixed.jsonl" >"$T/node.jsonl"
	# the counts are the baseline's and the winner's confirmation's
	[ "$(subject_of node)" = "Fix flaky tests/test_x.py::test_y: 12/40 → 0/30 failures" ]
	jq -c 'if .type == "verdict" then del(.test) | .command = "go test -json -shuffle=on -run ^TestLabels$ ./..." else . end' \
	    "$FX/fixed.jsonl" >"$T/go.jsonl"
	[ "$(subject_of go)" = "Fix flaky TestLabels: 12/40 → 0/30 failures" ]
	jq -c 'if .type == "verdict" then del(.test) | .command = "pytest -p random_order tests" | .winner.order = {"victim": "tests/test_reg.py::test_lookup"} else . end' \
	    "$FX/fixed.jsonl" >"$T/victim.jsonl"
	[ "$(subject_of victim)" = "Fix flaky tests/test_reg.py::test_lookup: 12/40 → 0/30 failures" ]
}

@test "#N in record text cannot link an issue, like @mentions" {
	jq -c 'if .type == "verdict" then .winner.explanation = "Same race as #12 and GH #3; see @alice." else . end' \
	    "$FX/fixed.jsonl" >"$T/n.jsonl"
	run rt-pr --body - "$T/n.jsonl"
	status_is 0
	has $'#\u200b12 and GH #\u200b3; see @\u200balice.'
	! grep -E '#[0-9]' <<<"$output"
	# a heading's '#' and words like C# are left alone
	has "## The cause"
}

@test "the evidence is committed: measure, hypotheses raced, verdict, dossier" {
	mkrepo "$T/repo"
	rt-pr -C "$T/repo" --mbox "$T/fix.mbox" --body "$T/d.md" "$FX/fixed.jsonl"
	git clone -q "$T/repo" "$T/clone"
	git -C "$T/clone" am -q "$T/fix.mbox"
	ev="$T/clone/.retrial/evidence/test_cache"
	# the measure: the verdict's baseline, as rt-verify reads it
	jqe -s 'length == 1 and .[0].type == "measure" and .[0].trials == 40 and .[0].failures == 12
	    and .[0].command == "python3 test_cache.py"' "$ev/measure.json"
	# the hypotheses: every lane; only the winner's patch is in the record
	jqe -s 'map(.id) == ["h1", "h2", "h3", "h4"] and all(.type == "hypothesis")' "$ev/hypotheses.jsonl"
	jq -r 'select(.id == "h1") | .patch' "$ev/hypotheses.jsonl" >"$T/p1"
	jq -r 'select(.type == "verdict") | .winner.patch' "$FX/fixed.jsonl" | cmp - "$T/p1"
	jqe -s 'map(select(.id != "h1")) | all(.patch == null and (.note | test("does not carry")))' \
	    "$ev/hypotheses.jsonl"
	# the verdict, the record itself; the dossier as shipped, and it says what is missing
	jq -cS 'select(.type == "verdict")' "$FX/fixed.jsonl" | cmp - <(jq -cS . "$ev/verdict.jsonl")
	diff -u "$T/d.md" "$ev/dossier.md"
	grep -q "the 3 other hypotheses are recorded without theirs" "$ev/dossier.md"
	# paths in the dossier are relative to the repository's top
	! grep -q "$T" "$ev/dossier.md"
	# and in a subdirectory project, under that directory
	mkdir -p "$T/r2/sub/proj" && cp "$EX/timing/test_cache.py" "$T/r2/sub/proj/"
	git -C "$T/r2" init -q && git -C "$T/r2" add . && git -C "$T/r2" commit -qm x
	rt-pr -C "$T/r2/sub/proj" --mbox "$T/sub.mbox" --body "$T/sub.md" "$FX/fixed.jsonl"
	grep -q '^+++ b/sub/proj/.retrial/evidence/test_cache/measure.json$' "$T/sub.mbox"
	grep -qx "git checkout HEAD^ -- sub/proj/test_cache.py" "$T/sub.md"
	grep -q "^rt-verify -C sub/proj .* sub/proj/.retrial/evidence/test_cache/measure.json" "$T/sub.md"
}

@test "the Reproduce block runs from a clean clone of the pull request's branch" {
	# a real project, a real race: rt-verify on the pool fixture, in a
	# repository whose origin is a local bare one
	git init -q --bare "$T/origin.git"
	git clone -q "$T/origin.git" "$T/work" 2>/dev/null
	cp -p "$RT_TOP"/t/fixtures/verify/pool/* "$T/work/"
	git -C "$T/work" add . && git -C "$T/work" commit -qm "the pool" && git -C "$T/work" push -q origin main
	(cd "$T/work" && rt-verify -C . -n 30 -N 40 -j 2 --seed 42 --test test_pool \
	    --cmd ./test_pool.sh "$RT_TOP/t/fixtures/verify/pool.jsonl") >"$T/v.jsonl" 2>/dev/null
	jqe 'select(.type == "verdict") | .verdict == "FIXED" and .winner.id == "h-fix"' "$T/v.jsonl"
	start_gh ok
	GITHUB_TOKEN="$TOKEN" rt-pr -C "$T/work" --github acme/pool "$T/v.jsonl"
	br=$(remote_branches)
	[ -n "$br" ]
	# a reviewer's clone of the branch: nothing else on disk
	git clone -q -b "${br#refs/heads/}" "$T/origin.git" "$T/review"
	jq -js 'map(select(.method == "POST"))[0].body.body' "$T/gh.log" >"$T/body.md"
	sed -n '/^```sh$/,/^```$/p' "$T/body.md" | sed '1d;$d' >"$T/reproduce.sh"
	[ -s "$T/reproduce.sh" ]
	! grep -q "$T\|/home/\|< hypotheses.jsonl" "$T/reproduce.sh"
	(cd "$T/review" && sh -e "$T/reproduce.sh") >"$T/repro.out" 2>"$T/repro.err"
	# the rerun reaches the same verdict with the same winner
	# (the committed baseline is the detect evidence; the original runs
	# again alongside the lanes, seed-paired)
	jqe 'select(.type == "verdict") | .verdict == "FIXED" and .winner.id == "h-fix"
	    and .baseline.input_trials == 40 and .baseline.trials >= 40' "$T/review/verdict.jsonl"
	# and leaves the fix in place
	[ -z "$(git -C "$T/review" status --porcelain --untracked-files=no)" ]
}

@test "the Reproduce block keeps rt-verify's options, drops its paths, and runs nothing else of the record's" {
	jq -c --arg r "rt-verify -C '/home/dev/my proj' --seed 7 -n 30 --cmd 'python3 -c '\\''print(1)'\\''' < hypotheses.jsonl" \
	    'select(.type == "verdict") | .reproduce = [$r, "rt-plan -r 0.1 -c 0.95", "rm -rf ~", "rt-plan -r 0.1; touch x"]' \
	    "$FX/methods.jsonl" >"$T/r1.jsonl"
	run rt-pr --body - "$T/r1.jsonl"
	status_is 0
	has "rt-verify -C . --seed 7 -n 30 --cmd 'python3 -c '\\''print(1)'\\''' .retrial/evidence/test_cache/measure.json .retrial/evidence/test_cache/hypotheses.jsonl > verdict.jsonl"
	has $'\nrt-plan -r 0.1 -c 0.95\n'
	hasnt "/home/dev"
	hasnt "rm -rf"
	hasnt "touch x"
	# the -- ARGV form reads its records on standard input
	jq -c --arg r "rt-verify -C /home/dev/x --seed 7 -- ./t.sh 'a b' < hypotheses.jsonl" \
	    'select(.type == "verdict") | .reproduce = [$r]' "$FX/methods.jsonl" >"$T/r2.jsonl"
	run rt-pr --body - "$T/r2.jsonl"
	has "cat .retrial/evidence/test_cache/measure.json .retrial/evidence/test_cache/hypotheses.jsonl | rt-verify -C . --seed 7 -- ./t.sh 'a b' > verdict.jsonl"
}
