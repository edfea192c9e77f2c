#!/usr/bin/env bats
# rt-audit: per-case records into the flake history, and the digest.
load helper

# rec CASE OUTCOME RUN REVISION TIMESTAMP [TRIAL [ATTEMPT]]: one per-case
# trial record with the fields rt-junit and rt-collect --junit write.
rec() {
	local result=success
	case $2 in fail) result=failure ;; skip) result=skipped ;; error) result=error ;; esac
	printf '{"type":"trial","trial":%s,"case":"%s","outcome":"%s","result":"%s","attempt":%s,"time_ms":1.5,"message":null,"failure_type":null,"stdout":"","stderr":"","report":"junit/%s.xml","run":"%s","revision":"%s","timestamp":"%s","position":null,"source":"junit"}\n' \
		"${6:-1}" "$1" "$2" "$result" "${7:-1}" "$3" "$3" "$4" "$5"
}

# recs CASE RUN REVISION DATE FAILS TOTAL: TOTAL trials of CASE, the first
# FAILS of them failing.
recs() {
	local i o
	for i in $(seq 1 "$6"); do
		o=pass
		[ "$i" -le "$5" ] && o=fail
		rec "$1" "$o" "$2" "$3" "${4}T03:00:00Z" "$i"
	done
}

H() { echo "$T/audit.db"; }

@test "rt-audit: --help, --version, a bad option and a bad number" {
	run rt-audit --help
	status_is 0
	[ "${lines[0]%% *}" = "usage:" ]
	has "usage: rt-audit"
	run rt-audit --version
	[ "$output" = "rt-audit (retrial) $(sed -n 's/^VERSION *= *//p' "$RT_TOP/Makefile")" ]
	run rt-audit --bogus
	status_is 2
	[ "${lines[0]}" = "rt-audit: --bogus: unknown option" ]
	run rt-audit --top x </dev/null
	status_is 2
	has "rt-audit: --top x"
	run rt-audit --confidence 1.5 </dev/null
	status_is 2
	has "--confidence 1.5"
}

@test "rt-audit: --list-options names every long option, the digest's new ones included" {
	run rt-audit --list-options
	status_is 0
	for o in --annotations --quarantine= --webhook= --webhook-file= --html= --gate; do
		printf '%s\n' "$output" | grep -qx -- "$o"
	done
	! printf '%s\n' "$output" | grep -qx -- --list-options
	# and the generated completion offers them
	grep -q -- '--webhook-file' "$RT_TOP/share/bash-completion/completions/rt-audit"
}

@test "rt-audit: empty input, or no trial record, exits 2 and records no audit" {
	run rt-audit -H "$(H)" </dev/null
	status_is 2
	has "no trial records in the input"
	echo '{"type":"measure","trials":3}' > "$T/m.jsonl"
	run rt-audit -H "$(H)" "$T/m.jsonl"
	status_is 2
	[ "$(sqlite3 "$(H)" 'select count(*) from audits')" = 0 ]
	# skips and errors alone measure nothing either
	{ rec t.a skip n1 aaa 2026-11-01T03:00:00Z; rec t.b error n1 aaa 2026-11-01T03:00:00Z; } > "$T/s.jsonl"
	run rt-audit -H "$(H)" "$T/s.jsonl"
	status_is 2
	has "no pass or failure"
}

@test "rt-audit: two nights; the digest lists the new flaky test with its first revision and date" {
	{ recs t.ok n1 aaa 2026-11-01 0 5; recs t.flaky n1 aaa 2026-11-01 0 5
	  recs t.moved n1 aaa 2026-11-01 0 5; } > "$T/n1.jsonl"
	# t.moved fails on every trial of a new revision: it changed, it is not flaky
	{ recs t.ok n2 bbb 2026-11-02 0 5; recs t.flaky n2 bbb 2026-11-02 2 5
	  recs t.moved n2 bbb 2026-11-02 5 5; } > "$T/n2.jsonl"
	run rt-audit -H "$(H)" "$T/n1.jsonl"
	status_is 0
	has "## Newly flaky (0)"
	run rt-audit -H "$(H)" --json "$T/d.json" --md - "$T/n2.jsonl"
	status_is 0
	has "## Newly flaky (1)"
	has '- `t.flaky`: first flaky on revision bbb, seen 2026-11-02T03:00:00Z (run n2): 2/5 failed (40.0%, 95% Wilson CI 11.7%–77.0%)'
	hasnt '`t.moved`: first flaky'
	jqe '.new_flaky | length == 1' "$T/d.json"
	jqe '.new_flaky[0] | .case == "t.flaky" and .first_revision == "bbb"
		and .first_seen == "2026-11-02T03:00:00Z" and .on_revision.failures == 2
		and .on_revision.trials == 5' "$T/d.json"
	# every listed rate carries its count and interval
	jqe '[.top[].rate | has("ci_low") and has("ci_high") and has("trials")] | all' "$T/d.json"
	jqe '[.top[].case] == ["t.moved", "t.flaky"]' "$T/d.json"
	# the third night it is no longer new; -n 1 keeps the highest rate only
	recs t.flaky n3 ccc 2026-11-03 1 5 > "$T/n3.jsonl"
	run rt-audit -H "$(H)" -n 1 --json "$T/d3.json" --md - "$T/n3.jsonl"
	status_is 0
	has "## Newly flaky (0)"
	jqe '[.top[].case] == ["t.moved"] and .top[0].rate.summary == "5/10 failed (50.0%, 95% Wilson CI 23.6%–76.4%)"' "$T/d3.json"
}

@test "rt-audit: the same report ingested twice counts once" {
	{ recs t.flaky n1 aaa 2026-11-01 2 5; recs t.ok n1 aaa 2026-11-01 0 5; } > "$T/n1.jsonl"
	run rt-audit -H "$(H)" "$T/n1.jsonl"
	status_is 0
	[ "$(sqlite3 "$(H)" 'select count(*) from results')" = 10 ]
	run rt-audit -H "$(H)" "$T/n1.jsonl"
	status_is 2
	has "nothing new: all 10 trial records are already in"
	# within one input too, and next to new records
	recs t.ok n2 aaa 2026-11-02 0 3 > "$T/n2.jsonl"
	cat "$T/n1.jsonl" "$T/n2.jsonl" "$T/n2.jsonl" | rt-audit -H "$(H)" --json "$T/d.json" >/dev/null
	jqe '.ingested == 3 and .duplicates == 13 and .records == 13' "$T/d.json"
	[ "$(sqlite3 "$(H)" "select count(*) from results where case_id = 't.flaky'")" = 5 ]
	jqe '.top[0] | .case == "t.flaky" and .rate.failures == 2 and .rate.trials == 5' "$T/d.json"
}

@test "rt-audit: the same reports read again on later nights, under another GITHUB_SHA each night, count once" {
	# the README's nightly line reads every night's reports each night, and
	# rt-junit stamps them with tonight's revision: 3 reports became 120 records
	mkdir -p "$T/nightly/1" "$T/nightly/2" "$T/nightly/3"
	for i in 1 2 3; do
		sed "s/2026-11-30T02:02:00/2026-11-0${i}T02:00:00/" "$RT_TOP/t/fixtures/junit/gradle.xml" > "$T/nightly/$i/junit.xml"
	done
	n=$(rt-junit "$T/nightly/1/junit.xml" | wc -l)
	for night in 1 2 3; do
		GITHUB_SHA=sha$night rt-junit "$T"/nightly/*/junit.xml | rt-audit -H "$(H)" --json "$T/d$night.json" >/dev/null 2>&1 || :
	done
	[ "$(sqlite3 "$(H)" 'select count(*) from results')" = $((3 * n)) ]
	# the revision is the run's, from its first ingestion: night 1 read all three
	[ "$(sqlite3 "$(H)" 'select group_concat(distinct revision) from results')" = sha1 ]
	[ "$(sqlite3 "$(H)" 'select group_concat(distinct revision) from runs')" = sha1 ]
	jqe '.ingested == 0 and .duplicates == '$((3 * n)) "$T/d2.json" || [ ! -s "$T/d2.json" ]
	jqe '.new_flaky | length == 0' "$T/d1.json"
	# rt-measure --by case counts the revisions by the same rule
	for night in 1 2 3; do GITHUB_SHA=sha$night rt-junit "$T"/nightly/*/junit.xml; done |
	    rt-measure --by case 2>/dev/null | jqe -s 'all(.trials <= 3)'
}

@test "rt-audit: go test -json, jest, mocha and rspec nights with JUnit ones, no --run: each report a run, named by its file and time" {
	F="$RT_TOP/t/fixtures/runners"
	for i in 1 2 3; do
		mkdir -p "$T/nightly/$i"
		sed "s/2026-12-02T/2026-12-0${i}T/g" "$F/go-test.json" > "$T/nightly/$i/go.json"
	done
	cp "$F/jest.json" "$T/nightly/1/jest.json"
	cp "$F/mocha.json" "$T/nightly/2/mocha.json"
	cp "$F/rspec.json" "$T/nightly/3/rspec.json"
	cp "$RT_TOP/t/fixtures/junit/gradle.xml" "$T/nightly/3/junit.xml"
	rt-junit "$T"/nightly/*/* > "$T/r"
	jqe -s 'all(.run | type == "string")' "$T/r"
	jqe -s '[.[] | select(.source == "go test -json") | .run] | unique ==
	    ["'"$T"'/nightly/1/go.json@2026-12-01T02:45:43.457360053Z",
	     "'"$T"'/nightly/2/go.json@2026-12-02T02:45:43.457360053Z",
	     "'"$T"'/nightly/3/go.json@2026-12-03T02:45:43.457360053Z"]' "$T/r"
	# the README's nightly line, every night reading every night's reports
	for night in 1 2 3; do
		GITHUB_SHA=sha$night rt-junit "$T"/nightly/*/* | rt-audit -H "$(H)" --json "$T/d$night.json" >/dev/null 2>"$T/err$night" || :
		! grep -q '"run" missing' "$T/err$night"
	done
	jqe '.ingested > 0' "$T/d1.json"
	[ "$(sqlite3 "$(H)" 'select count(*) from results')" = "$(wc -l < "$T/r")" ]
	[ "$(sqlite3 "$(H)" 'select count(*) from runs')" = 7 ]
}

@test "rt-audit: with no revision on any record the digest says why nothing was judged across runs, and how to give one" {
	F="$RT_TOP/t/fixtures/runners"
	for i in 1 2; do
		sed "s/2026-12-02T/2026-12-0${i}T/g" "$F/go-test.json" > "$T/go$i.json"
	done
	env -u GITHUB_SHA -u CI_COMMIT_SHA -u GIT_COMMIT -u BUILD_VCS_NUMBER rt-junit "$T/go1.json" "$T/go2.json" > "$T/r"
	run rt-audit -H "$(H)" --md - --json "$T/d.json" "$T/r"
	status_is 0
	has "## Newly flaky (0)"
	has "No record names the revision it tested, so each run counts as a revision of its own: FLAKY needs a pass and a failure on one revision"
	has "rt-junit --revision REV or rt-audit --revision REV, or set GITHUB_SHA"
	jqe '.revisions == 0' "$T/d.json"
	rt-audit -H "$(H)" --audit 1 --html "$T/d.html" >/dev/null
	grep -q "No record names the revision" "$T/d.html"
	# with one, the note goes
	run rt-audit -H "$T/b.db" --md - --revision abc "$T/r"
	status_is 0
	hasnt "No record names the revision"
}

@test "rt-audit: no longer flaky needs the anytime rule, not a split at the last failure" {
	# a 5% test's ordinary luck: 3/20, then 0/20 twice. The split at the last
	# failing run (3/20 before, 0/40 since, Newcombe above 0) cleared it on
	# the third night, and re-tested every night such splits clear 30% of
	# constant-rate tests; the anytime rule does not clear it
	recs t.five n1 aaa 2026-11-01 3 20 > "$T/n1.jsonl"
	rt-audit -H "$(H)" "$T/n1.jsonl" >/dev/null 2>&1
	for i in 2 3 4 5; do
		recs t.five n$i aaa 2026-11-0$i 0 20 > "$T/n$i.jsonl"
		run rt-audit -H "$(H)" --json "$T/d$i.json" --md - "$T/n$i.jsonl"
		status_is 0
		has "## No longer flaky (0)"
		jqe '.not_seen_failing[0] | .case == "t.five" and .since.trials == '"$(( (i - 1) * 20 ))" "$T/d$i.json"
	done
	has '- `t.five`: not seen failing since 4 runs (0/80 failed (≤3.7% at 95% confidence)); not yet shown fixed'
	[ "$(sqlite3 "$(H)" "select count(*) from flaky where cleared_audit is null")" = 1 ]
}

@test "rt-audit: a test whose rate fell is no longer flaky from a window that need not start after its last failure" {
	recs t.fixed n1 aaa 2026-11-01 10 20 > "$T/n1.jsonl"
	recs t.fixed n2 bbb 2026-11-02 1 200 > "$T/n2.jsonl"
	recs t.fixed n3 bbb 2026-11-03 0 200 > "$T/n3.jsonl"
	rt-audit -H "$(H)" "$T/n1.jsonl" >/dev/null 2>&1
	run rt-audit -H "$(H)" --json "$T/d2.json" --md - "$T/n2.jsonl"
	has "## No longer flaky (0)"
	run rt-audit -H "$(H)" --json "$T/d3.json" --md - "$T/n3.jsonl"
	status_is 0
	has "## No longer flaky (1)"
	has 'both bounds anytime-valid: a test whose rate never changed is listed with probability at most 5%, however many nights it is checked.'
	# the window starts at n2, which failed once: 1/400 since, at most 2.8%
	# (anytime at 1 − 0.025/2), under half the 17.6% least rate before
	has '- `t.fixed`: since run n2 (2 runs): 1/400 failed, at most 2.8% (anytime), below 8.8%, half the least its rate before could be (10/20 failed, at least 17.6%, anytime)'
	jqe '.no_longer_flaky[0] | .case == "t.fixed" and .since_run == "n2" and .rule == "anytime"
		and .since.failures == 1 and .since.anytime_high < .level and .before.anytime_confidence == 0.975' "$T/d3.json"
	# cleared: not listed again, and failing again makes it new again
	recs t.fixed n4 ccc 2026-11-04 0 5 > "$T/n4.jsonl"
	run rt-audit -H "$(H)" --md - "$T/n4.jsonl"
	has "## No longer flaky (0)"
	hasnt '`t.fixed`: not seen failing'
	recs t.fixed n5 ddd 2026-11-05 1 5 > "$T/n5.jsonl"
	run rt-audit -H "$(H)" --gate "$T/n5.jsonl"
	status_is 1
	has '`t.fixed`: first flaky on revision ddd'
}

@test "rt-audit: rate changes at a false discovery rate across the tests (Benjamini–Hochberg)" {
	# t.drift, 2/40 then 5/20, is one of 21 tests compared tonight: its
	# Newcombe interval (+2.0 to +42.2 points) excludes 0 and was listed, but
	# Fisher's p is too large for 21 tests at 5% FDR; t.jump is listed
	{ recs t.drift n1 aaa 2026-11-01 2 40; recs t.jump n1 aaa 2026-11-01 0 40
	  for c in $(seq 1 19); do recs t.ok$c n1 aaa 2026-11-01 0 40; done; } > "$T/n1.jsonl"
	{ recs t.drift n2 aaa 2026-11-02 5 20; recs t.jump n2 aaa 2026-11-02 15 20
	  for c in $(seq 1 19); do recs t.ok$c n2 aaa 2026-11-02 0 20; done; } > "$T/n2.jsonl"
	rt-audit -H "$(H)" "$T/n1.jsonl" >/dev/null 2>&1
	run rt-audit -H "$(H)" --json "$T/d.json" --md - "$T/n2.jsonl"
	status_is 0
	has "## Rate changes (1)"
	has "Tonight's rate against the history before, by Fisher's exact test, listed at a 5% false discovery rate (Benjamini–Hochberg) over the 21 tests compared tonight."
	has '- `t.jump`: 15/20 failed (75.0%, 95% Wilson CI 53.1%–88.9%) tonight, 0/40 failed (≤7.3% at 95% confidence) before; change +75.0 points, Fisher p = 2.9e-10'
	hasnt '`t.drift`: 5/20 failed'
	jqe '[.rate_changes[].case] == ["t.jump"] and .rate_change_tests == 21 and .rate_change_fdr == 0.05
		and .rate_change_alarms == 1 and .rate_changes[0].p_value < 1e-9' "$T/d.json"
}

@test "rt-audit: --gate exits 1 on a new flaky test, 0 without one" {
	recs t.ok n1 aaa 2026-11-01 0 5 > "$T/n1.jsonl"
	run rt-audit --gate -H "$(H)" "$T/n1.jsonl"
	status_is 0
	recs t.f n2 aaa 2026-11-02 1 5 > "$T/n2.jsonl"
	run rt-audit --gate -H "$(H)" "$T/n2.jsonl"
	status_is 1
	has "## Newly flaky (1)"
	# still flaky the next night, but not new: the gate passes
	recs t.f n3 aaa 2026-11-03 1 5 > "$T/n3.jsonl"
	run rt-audit --gate -H "$(H)" "$T/n3.jsonl"
	status_is 0
}

@test "rt-audit: two audits in parallel lose nothing" {
	recs t.a n1 aaa 2026-11-01 3 300 > "$T/a.jsonl"
	recs t.b n2 aaa 2026-11-01 0 300 > "$T/b.jsonl"
	rt-audit -H "$(H)" "$T/a.jsonl" >"$T/a.out" 2>&1 & pa=$!
	rt-audit -H "$(H)" "$T/b.jsonl" >"$T/b.out" 2>&1 & pb=$!
	wait $pa || { cat "$T/a.out"; return 1; }
	wait $pb || { cat "$T/b.out"; return 1; }
	[ "$(sqlite3 "$(H)" 'select count(*) from results')" = 600 ]
	[ "$(sqlite3 "$(H)" 'select count(*) from audits')" = 2 ]
	[ "$(sqlite3 "$(H)" "select count(*) from results where case_id = 't.a' and failed = 1")" = 3 ]
	[ "$(sqlite3 "$(H)" 'pragma user_version')" = 3 ]
}

@test "rt-audit: quarantine candidates by the rt-plan policy, from the measured rate on single-attempt data" {
	# single-attempt reruns (rt-collect --junit): t.broken passes two nights
	# and fails every trial of the third; t.flaky fails 3 of 10 each night.
	# Counting executions that made r + 1 attempts found none here, ever
	# (the broken test surfaced only once its whole window failed)
	for i in 1 2; do
		{ recs t.broken n$i aaa 2026-11-0$i 0 10; recs t.flaky n$i aaa 2026-11-0$i 3 10; } > "$T/n$i.jsonl"
		run rt-audit -H "$(H)" --md - "$T/n$i.jsonl"
		has "## Quarantine candidates (0)"
	done
	{ recs t.broken n3 bbb 2026-11-03 10 10; recs t.flaky n3 bbb 2026-11-03 3 10; } > "$T/n3.jsonl"
	run rt-audit -H "$(H)" --json "$T/d.json" --md - "$T/n3.jsonl"
	status_is 0
	has "## Quarantine candidates (1)"
	# 10/10 at 1 − 0.05/60 (exact): at least 49.2%; planned at 0/20's 25.1%
	# (anytime, 97.5%): 3 retries, 0.2504^4 = 0.4% per execution; now
	# 0.4921^4 = 5.8%
	has '- `t.broken`: its last run: 10/10 failed, at least 49.2%; 3 retries planned at its rate before (0/20 failed, at most 25.1%, anytime): an execution now exhausts them with chance at least 5.8%, above the 0.4% planned'
	jqe '[.quarantine[].case] == ["t.broken"]' "$T/d.json"
	jqe '.quarantine[0] | .runs == 1 and .retry_budget == 3 and .rate.failures == 10 and .basis.trials == 20
		and .exhaust_low > .exhaust_planned' "$T/d.json"
}

@test "rt-audit: a steady 40% flake becomes a quarantine candidate within its window; a steady 0% test never does" {
	# t.steady fails 2 nights of every 5, one execution a night: its rate
	# never rose, so the rise rule never lists it (12/30 kept failing jobs)
	first=
	for i in $(seq 1 30); do
		case $((i % 5)) in 1|3) o=fail ;; *) o=pass ;; esac
		{ rec t.steady "$o" "n$i" "r$i" "2026-11-01T03:00:00Z"; rec t.ok pass "n$i" "r$i" "2026-11-01T03:00:00Z"; } > "$T/n.jsonl"
		rt-audit -H "$(H)" --json "$T/d.json" --md "$T/d.md" "$T/n.jsonl" >/dev/null
		jqe '[.quarantine[].case] | index("t.ok") == null' "$T/d.json"
		if [ -z "$first" ] && jqe '[.quarantine[].case] == ["t.steady"]' "$T/d.json" 2>/dev/null; then
			first=$i
			grep -q 'its last [0-9]* runs: [0-9]*/[0-9]* failed, at least [0-9.]*% (anytime), above the 10.0% threshold: a steady flake' "$T/d.md"
		fi
	done
	[ -n "$first" ] && [ "$first" -le 30 ]
	jqe '.quarantine[0] | .threshold == 0.1 and .rate.anytime_low > 0.1 and .runs == 30' "$T/d.json"
}

@test "rt-audit: without --run each file is a run of its own, named by its path and first timestamp" {
	rt-collect -n 2 --cmd true > "$T/a.jsonl"
	rt-collect -n 2 --cmd false > "$T/b.jsonl"
	run rt-audit -C -H "$(H)" "$T/a.jsonl" "$T/b.jsonl"
	status_is 0
	[ "$(sqlite3 "$(H)" 'select count(distinct run) from results')" = 2 ]
	first=$(jq -r 'select(.trial == 1) | .started_at' "$T/a.jsonl")
	[ "$(sqlite3 "$(H)" "select count(*) from results where run = '$T/a.jsonl@$first'")" = 2 ]
	# the same file read again is the same run: nothing new
	run rt-audit -C -H "$(H)" "$T/a.jsonl"
	status_is 2
	has "nothing new"
}

@test "rt-audit: one --run over several files is refused unless --same-run says they are one run" {
	rt-collect -n 2 --cmd true > "$T/a.jsonl"
	cp "$T/a.jsonl" "$T/b.jsonl"
	run rt-audit -C -H "$(H)" --run night1 "$T/a.jsonl" "$T/b.jsonl"
	status_is 2
	has "rt-audit: --run night1 given to 2 files: each file's records name their own run; --same-run says the files are one run"
	[ ! -e "$(H)" ] || [ "$(sqlite3 "$(H)" 'select count(*) from audits')" = 0 ]
	run rt-audit -C -H "$(H)" --same-run "$T/a.jsonl"
	status_is 2
	has "rt-audit: --same-run names no run: give --run RUN"
	run rt-audit -C -H "$(H)" --run night1 --same-run --json "$T/d.json" "$T/a.jsonl" "$T/b.jsonl"
	status_is 0
	[ "$(sqlite3 "$(H)" 'select count(distinct run) from results')" = 1 ]
	# one file, or standard input, takes --run alone
	rt-collect -n 2 --cmd true | rt-audit -C -H "$(H)" --run night2 >/dev/null 2>&1
	[ "$(sqlite3 "$(H)" 'select count(distinct run) from results')" = 2 ]
}

@test "rt-audit: HTML escapes case names; -C audits plain rt-collect records by their command" {
	rt-collect -n 6 --cmd '[ $((RETRIAL_TRIAL % 3)) -ne 0 ] && echo "<ok>"' > "$T/c.jsonl"
	run rt-audit -H "$(H)" "$T/c.jsonl"
	status_is 2
	has "6 trial records without \"case\" skipped"
	has 'no trial record with a "case": nothing to audit'
	run rt-audit -C -H "$(H)" < "$T/c.jsonl"
	status_is 2
	has '<stdin>:1: "run" missing (give --run RUN)'
	run rt-audit -C --run night1 -H "$(H)" --html "$T/d.html" "$T/c.jsonl"
	status_is 0
	grep -q '<li><code>\[ $((RETRIAL_TRIAL % 3)) -ne 0 \] &amp;&amp; echo &quot;&lt;ok&gt;&quot;</code>: first flaky on revision (none)' "$T/d.html"
	! grep -q '"<ok>"' "$T/d.html"
}

@test "rt-audit: bad records name file:line; a newer history is refused" {
	{ rec t.a pass n1 aaa 2026-11-01T03:00:00Z; echo '{"type":"trial","case":"t.a","outcome":"maybe","run":"n1"}'; } > "$T/bad.jsonl"
	run rt-audit -H "$(H)" "$T/bad.jsonl"
	status_is 2
	has "rt-audit: $T/bad.jsonl:2: case trial record: field \"outcome\" must be one of pass, fail, skip, error, timeout, ignored, not maybe"
	[ "$(sqlite3 "$(H)" 'select count(*) from results')" = 0 ]
	sqlite3 "$T/new.db" 'pragma user_version = 9'
	rec t.a pass n1 aaa 2026-11-01T03:00:00Z > "$T/ok.jsonl"
	run rt-audit -H "$T/new.db" "$T/ok.jsonl"
	status_is 2
	has "schema version 9 is newer"
}

@test "rt-audit: the installed nightly example, run as cron runs it, writes a digest" {
	make -s -C "$RT_TOP" install DESTDIR="$T/root" PREFIX=/usr/local >/dev/null
	ex="$T/root/usr/local/share/retrial/examples/nightly-audit.sh"
	[ -x "$ex" ]
	head -5 "$ex" | grep -q '/usr/local/share/retrial/examples/nightly-audit.sh tests.list'
	mkdir "$T/app"
	cd "$T/app"
	printf 'kth\t[ $((RETRIAL_TRIAL %% 3)) -ne 0 ]\nok\ttrue\n' > tests.list
	run env -i PATH=/usr/bin:/bin HOME="$T" RUN=night1 sh "$ex" tests.list 12
	status_is 0
	has "## Newly flaky (1)"
	has '4/12 failed (33.3%, 95% Wilson CI 13.8%–61.0%)'
	[ -s audit/night1/digest.md ] && [ -s audit/night1/digest.html ]
	jqe '.ingested == 24 and (.new_flaky | length) == 1' audit/night1/digest.json
	# a second night, gated: still flaky, not new; nothing measured is exit 2
	run env -i PATH=/usr/bin:/bin HOME="$T" RUN=night2 GATE=1 sh "$ex" tests.list 12
	status_is 0
	has "## Newly flaky (0)"
	: > empty.list
	run env -i PATH=/usr/bin:/bin HOME="$T" RUN=night3 sh "$ex" empty.list
	status_is 2
	has "no trial records"
}

@test "rt-audit: the nightly example ingests JUnit reports through rt-junit when it is there" {
	# a stand-in for rt-junit (the real one, when built, comes first on PATH
	# and reads the same reports to the same effect)
	mkdir -p "$T/stub" "$T/junit"
	cat > "$T/stub/rt-junit" <<'SH'
#!/bin/sh
run= rev=
while [ $# -gt 0 ]; do
	case $1 in --run) run=$2; shift 2 ;; --revision) rev=$2; shift 2 ;; --same-run) shift ;; *) break ;; esac
done
i=0
for f; do
	i=$((i + 1)); o=pass; r=success
	grep -q '<failure' "$f" && { o=fail; r=failure; }
	printf '{"type":"trial","trial":%d,"case":"tests.test_x::test_x","outcome":"%s","result":"%s","attempt":1,"run":"%s","revision":"%s","report":"%s","source":"junit"}\n' "$i" "$o" "$r" "$run" "$rev" "$f"
done
SH
	chmod +x "$T/stub/rt-junit"
	cat > "$T/junit/1.xml" <<'XML'
<?xml version="1.0"?>
<testsuite name="pytest" tests="1" failures="0"><testcase classname="tests.test_x" name="test_x" time="0.01"/></testsuite>
XML
	cat > "$T/junit/2.xml" <<'XML'
<?xml version="1.0"?>
<testsuite name="pytest" tests="1" failures="1"><testcase classname="tests.test_x" name="test_x" time="0.01"><failure message="boom">boom</failure></testcase></testsuite>
XML
	cd "$T"
	PATH="$PATH:$T/stub" JUNIT_DIR="$T/junit" RUN=n1 REVISION=abc run "$EX/nightly-audit.sh"
	status_is 0
	has "## Newly flaky (1)"
	has "first flaky on revision abc"
	jqe '.ingested == 2 and .new_flaky[0].first_run == "n1"' audit/n1/digest.json
}

# two nights: t.f is clean the first, flaky the second
nights() {
	{ recs t.ok n1 aaa 2026-11-01 0 5; recs t.f n1 aaa 2026-11-01 0 5; } > "$T/n1.jsonl"
	{ recs t.ok n2 bbb 2026-11-02 0 5; recs t.f n2 bbb 2026-11-02 2 5; } > "$T/n2.jsonl"
	rt-audit -H "$(H)" --md "$T/n1.md" "$T/n1.jsonl" 2>/dev/null
}

@test "rt-audit: a digest that cannot be written (missing directory, full disk) rolls the audit back; the rerun reports the news" {
	nights
	run rt-audit -H "$(H)" --gate --md "$T/nodir/d.md" "$T/n2.jsonl"
	status_is 2
	has "rt-audit: $T/nodir/d.md: No such file or directory; audit 2 rolled back, nothing recorded"
	[ "$(sqlite3 "$(H)" 'select count(*) from audits')" = 1 ]
	[ "$(sqlite3 "$(H)" 'select count(*) from flaky')" = 0 ]
	# the full disk, and a good file next to it: neither is written
	run rt-audit -H "$(H)" --gate --json "$T/d.json" --md /dev/full "$T/n2.jsonl"
	status_is 2
	has "rt-audit: /dev/full: No space left on device; audit 2 rolled back"
	[ ! -e "$T/d.json" ]
	[ -z "$(find "$T" -name '*.tmp*')" ]
	[ "$(sqlite3 "$(H)" 'select count(*) from results')" = 10 ]
	# the rerun still has the news, and the gate still fails
	run rt-audit -H "$(H)" --gate --md - "$T/n2.jsonl"
	status_is 1
	has "## Newly flaky (1)"
	has '- `t.f`: first flaky on revision bbb'
}

@test "rt-audit: standard output is written and checked before the commit: a gone reader rolls back" {
	nights
	# a pipe whose reader is gone: exit 141, the audit rolled back
	run python3 -c 'import os, subprocess, sys
r, w = os.pipe(); os.close(r)
sys.exit(subprocess.run(sys.argv[1:], stdout=w).returncode)' rt-audit -H "$(H)" --gate "$T/n2.jsonl"
	status_is 141
	[ "$(sqlite3 "$(H)" 'select count(*) from audits')" = 1 ]
	run rt-audit -H "$(H)" --gate "$T/n2.jsonl"
	status_is 1
	has "## Newly flaky (1)"
}

@test "rt-audit: --audit N writes the digest of night N again, every form the same" {
	nights
	rt-audit -H "$(H)" --md "$T/n2.md" --html "$T/n2.html" --json "$T/n2.json" "$T/n2.jsonl" 2>/dev/null
	recs t.f n3 ccc 2026-11-03 1 5 > "$T/n3.jsonl"
	rt-audit -H "$(H)" -n 1 -w 2 --confidence 0.9 --md "$T/n3.md" "$T/n3.jsonl" 2>/dev/null
	run rt-audit -H "$(H)" --audit 2 --md "$T/a2.md" --html "$T/a2.html" --json "$T/a2.json"
	status_is 0
	cmp "$T/n2.md" "$T/a2.md"
	cmp "$T/n2.html" "$T/a2.html"
	cmp "$T/n2.json" "$T/a2.json"
	rt-audit -H "$(H)" --audit 1 | cmp - "$T/n1.md"
	# night 3's own window and confidence, not the defaults
	rt-audit -H "$(H)" --audit 3 | cmp - "$T/n3.md"
	grep -q 'last 2 runs' "$T/n3.md"
	# --gate asks whether that night found a newly flaky test
	run rt-audit -H "$(H)" --audit 2 --gate
	status_is 1
	run rt-audit -H "$(H)" --audit 3 --gate
	status_is 0
	# re-rendering records nothing
	[ "$(sqlite3 "$(H)" 'select count(*) from audits')" = 3 ]
}

@test "rt-audit: --audit with a bad N, a missing history or records is a clear error" {
	nights
	run rt-audit -H "$(H)" --audit 9
	status_is 2
	[ "$output" = "rt-audit: --audit 9: no such audit in $(H) (it holds audits 1 to 1)" ]
	run rt-audit -H "$(H)" --audit 0
	status_is 2
	has "rt-audit: --audit 0: must be between 1"
	run rt-audit -H "$(H)" --audit x
	status_is 2
	has "rt-audit: --audit x"
	run rt-audit -H "$(H)" --audit 1 -w 5
	status_is 2
	has "rt-audit: --audit and --window are exclusive"
	run rt-audit -H "$(H)" --audit 1 "$T/n2.jsonl"
	status_is 2
	has "rt-audit: --audit reads no records ($T/n2.jsonl given)"
	run rt-audit -H "$T/none.db" --audit 1
	status_is 2
	has "rt-audit: $T/none.db: No such file or directory"
	[ ! -e "$T/none.db" ]
	# a history from before digests were kept is migrated and says so
	sqlite3 "$(H)" 'alter table runs drop column revision; alter table audits drop column digest; pragma user_version = 1'
	run rt-audit -H "$(H)" --audit 1
	status_is 2
	has "rt-audit: --audit 1: audit 1 in $(H) predates stored digests"
	[ "$(sqlite3 "$(H)" 'pragma user_version')" = 3 ]
}

@test "rt-audit: a history that is a device or a FIFO is refused, with no journal beside it" {
	rec t.a pass n1 aaa 2026-11-01T03:00:00Z > "$T/ok.jsonl"
	mkdir "$T/dev"
	ln -s /dev/null "$T/dev/null"
	run rt-audit -H "$T/dev/null" "$T/ok.jsonl"
	status_is 2
	[ "$output" = "rt-audit: $T/dev/null: not a regular file" ]
	mkfifo "$T/dev/fifo"
	run rt-audit -H "$T/dev/fifo" "$T/ok.jsonl"
	status_is 2
	[ "$output" = "rt-audit: $T/dev/fifo: not a regular file" ]
	run rt-audit -H "$T/dev" "$T/ok.jsonl"
	status_is 2
	has "not a regular file"
	[ "$(ls "$T/dev")" = "$(printf 'fifo\nnull')" ]
	[ ! -e /dev/null-journal ] && [ ! -e /dev/null-wal ]
}

@test "rt-audit: a case name's escape sequences show in the Markdown, text and HTML digests" {
	name=$(printf 't.\033]0;pwned\007evil\033[2J\302\2332J')
	shown='t.␛]0;pwned␇evil␛[2J\u009b2J'
	jq -cn --arg c "$name" '{type: "trial", trial: 1, case: $c, outcome: "pass", run: "r", revision: "a"},
	    {type: "trial", trial: 2, case: $c, outcome: "fail", run: "r", revision: "a"}' > "$T/esc.jsonl"
	rt-audit -H "$(H)" --md "$T/d.md" --html "$T/d.html" --json "$T/d.json" "$T/esc.jsonl" 2>/dev/null
	rt-audit -H "$(H)" --audit 1 > "$T/d.txt"
	for f in "$T/d.md" "$T/d.txt" "$T/d.html"; do
		if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$f" || grep -q "$(printf '\302\233')" "$f"; then
			od -c "$f" | head >&2; return 1
		fi
		grep -qF "$shown" "$f"
	done
	grep -qF -- '- `'"$shown"'`: first flaky on revision a' "$T/d.md"
	jqe --arg c "$name" '.new_flaky[0].case == $c' "$T/d.json"
}

@test "rt-audit: --md /dev/stdout is standard output: a gone reader rolls back, a log opened >> is appended to" {
	nights
	run python3 -c 'import os, subprocess, sys
r, w = os.pipe(); os.close(r)
sys.exit(subprocess.run(sys.argv[1:], stdout=w).returncode)' rt-audit -H "$(H)" --gate --md /dev/stdout "$T/n2.jsonl"
	status_is 141
	[ "$(sqlite3 "$(H)" 'select count(*) from audits')" = 1 ]
	echo "earlier line" > "$T/app.log"
	rt-audit -H "$(H)" --md /dev/stdout "$T/n2.jsonl" >> "$T/app.log" 2>/dev/null
	[ "$(head -n 1 "$T/app.log")" = "earlier line" ]
	grep -q '^## Newly flaky (1)' "$T/app.log"
}

# The loopback GitHub (t/fake-github.py) with issues #1..#N open; its
# requests logged in gh.log.
TOKEN=ghs_auditTOKEN0123456789
start_gh() {
	FAKE_GITHUB_TOKEN="$TOKEN" python3 "$RT_TOP/t/fake-github.py" --log "$T/gh.log" \
	    --mode "$1" --seed-issues "${2:-0}" >"$T/gh.port" 2>"$T/gh.err" 3>&- &
	echo $! >"$T/gh.pid"
	for _ in $(seq 200); do [ -s "$T/gh.port" ] && break; sleep 0.05; done
	export GITHUB_API_URL="http://127.0.0.1:$(head -1 "$T/gh.port")"
	touch "$T/gh.log"
}

@test "rt-audit: --pr-comment N posts the Markdown digest once, and a second night updates the same comment" {
	start_gh ok 7
	export GITHUB_TOKEN="$TOKEN"
	{ recs t.ok n1 aaa 2026-11-01 0 5; recs t.flaky n1 aaa 2026-11-01 0 5; } > "$T/n1.jsonl"
	{ recs t.ok n2 bbb 2026-11-02 0 5; recs t.flaky n2 bbb 2026-11-02 2 5; } > "$T/n2.jsonl"
	run rt-audit -H "$(H)" --md "$T/d1.md" --pr-comment 7 --github acme/cache "$T/n1.jsonl"
	status_is 0
	has "rt-audit: audit 1: posted the comment on acme/cache#7: https://github.example/acme/cache/issues/7#issuecomment-"
	jq -s -e '[.[] | select(.method != "GET")] | length == 1 and .[0].method == "POST"
	    and .[0].path == "/repos/acme/cache/issues/7/comments" and .[0].status == 201' "$T/gh.log"
	# the comment is the digest, with the marker
	jq -s -e --rawfile md "$T/d1.md" '[.[] | select(.method == "POST")][0].body.body
	    == $md + "\n<!-- retrial-audit -->\n"' "$T/gh.log"
	# night 2, from GITHUB_REPOSITORY: the same comment, patched
	run env GITHUB_REPOSITORY=acme/cache rt-audit -H "$(H)" --md "$T/d2.md" --pr-comment 7 "$T/n2.jsonl"
	status_is 0
	has "rt-audit: audit 2: updated the comment on acme/cache#7"
	jq -s -e '[.[] | select(.method != "GET")] | length == 2 and .[0].method == "POST"
	    and .[1].method == "PATCH" and .[1].status == 200
	    and (.[1].path | test("^/repos/acme/cache/issues/comments/[0-9]+$"))' "$T/gh.log"
	grep -q "## Newly flaky (1)" "$T/d2.md"
	curl -sf -H "Authorization: Bearer $TOKEN" \
	    "$GITHUB_API_URL/repos/acme/cache/issues/7/comments" |
	    jq -e --rawfile md "$T/d2.md" 'length == 1 and .[0].body == $md + "\n<!-- retrial-audit -->\n"'
	# --audit N posts a stored night again: the same comment once more
	run rt-audit -H "$(H)" --audit 1 --md /dev/null --pr-comment 7 --github acme/cache
	status_is 0
	has "updated the comment on acme/cache#7"
	[ "$(jq -s '[.[] | select(.method == "POST")] | length' "$T/gh.log")" -eq 1 ]
}

@test "rt-audit: --pr-comment errors: no repository, no token, a GitHub error is one line after the audit is recorded" {
	recs t.ok n1 aaa 2026-11-01 0 5 > "$T/n1.jsonl"
	run env -u GITHUB_REPOSITORY rt-audit -H "$(H)" --pr-comment 7 "$T/n1.jsonl"
	status_is 2
	has "--pr-comment needs --github OWNER/REPO or GITHUB_REPOSITORY"
	run rt-audit -H "$(H)" --github acme/cache "$T/n1.jsonl"
	status_is 2
	has "--github and --token-file are for --pr-comment"
	run rt-audit -H "$(H)" --pr-comment 7 --github acme/cache "$T/n1.jsonl"
	status_is 2
	has "--pr-comment needs a token: set GITHUB_TOKEN or use --token-file"
	[ ! -e "$(H)" ]
	start_gh 401
	printf '%s\n' "$TOKEN" >"$T/tok"
	run rt-audit -H "$(H)" --md /dev/null --pr-comment 7 --github acme/cache --token-file "$T/tok" "$T/n1.jsonl"
	status_is 2
	[ "${#lines[@]}" -eq 1 ]
	has "rt-audit: GitHub: GET /repos/acme/cache/issues/7/comments: HTTP 401: Bad credentials; audit 1 is recorded: rt-audit --audit 1 --pr-comment 7 posts it again"
	hasnt "$TOKEN"
	rt-audit --list-options | grep -qx -- '--pr-comment='
}

# qnights: three nights of t.a (flaky from night 2), tests/test_q.py::test_q
# (quarantined, failing from night 2) and t.ok, and a quarantine list that
# expires in 10 days; night 3's HTML digest in $T/d3.html.
qnights() {
	mkdir -p "$T/.retrial"
	printf 'tests/test_q.py::test_q\towner=@alice\tsince=2026-11-01\texpires=%s\tissue=https://github.com/o/r/issues/7\n' \
		"$(date -u -d '+10 days' +%F)" > "$T/.retrial/quarantine"
	{ recs t.a n1 r1 2026-11-01 0 10; recs tests/test_q.py::test_q n1 r1 2026-11-01 0 10; recs t.ok n1 r1 2026-11-01 0 10; } > "$T/n1.jsonl"
	{ recs t.a n2 r2 2026-11-02 3 10; recs tests/test_q.py::test_q n2 r2 2026-11-02 4 10; recs t.ok n2 r2 2026-11-02 0 10; } > "$T/n2.jsonl"
	{ recs t.a n3 r3 2026-11-03 2 10; recs tests/test_q.py::test_q n3 r3 2026-11-03 1 10; recs t.ok n3 r3 2026-11-03 0 10; } > "$T/n3.jsonl"
	(cd "$T" && rt-audit -H "$(H)" n1.jsonl >/dev/null 2>&1 &&
	    rt-audit -H "$(H)" --html d2.html n2.jsonl 2>/dev/null &&
	    rt-audit -H "$(H)" --html d3.html --json d3.json n3.jsonl 2>/dev/null)
}

# The page's structure, by python3's html.parser: its tables' header
# rows and cells, each <svg>'s <title>, the since-last-night paragraph.
page_facts() {
	python3 - "$1" <<'PY'
import sys, json
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.stack = []; s.tables = []; s.svgs = []; s.since = None; s.text = None; s.href = []
    def handle_starttag(s, t, a):
        a = dict(a)
        if t not in ("rect", "circle", "polyline", "meta"):
            s.stack.append(t)
        if t == "table": s.tables.append({"class": a.get("class"), "rows": []})
        if t == "tr": s.tables[-1]["rows"].append([])
        if t in ("td", "th"): s.tables[-1]["rows"][-1].append(""); s.text = "cell"
        if t == "svg": s.svgs.append(None)
        if t == "title" and "svg" in s.stack: s.text = "title"; s.svgs[-1] = ""
        if t == "p" and a.get("id") == "since-last-night": s.since = ""; s.text = "since"
        if t == "a": s.href.append(a.get("href"))
    def handle_startendtag(s, t, a):
        pass
    def handle_endtag(s, t):
        assert s.stack and s.stack[-1] == t, (t, s.stack)
        s.stack.pop()
        if t in ("td", "th", "title", "p"): s.text = None
    def handle_data(s, d):
        if s.text == "cell": s.tables[-1]["rows"][-1][-1] += d
        elif s.text == "title": s.svgs[-1] += d
        elif s.text == "since": s.since += d
p = P(); p.feed(open(sys.argv[1]).read()); p.close()
assert p.stack == [], p.stack
print(json.dumps({"tables": p.tables, "svgs": p.svgs, "since": p.since, "href": p.href}))
PY
}

@test "rt-audit: the HTML digest parses, with the since-last-night header, a sparkline per test and the quarantine table" {
	qnights
	run page_facts "$T/d2.html"
	status_is 0
	echo "$output" > "$T/f2.json"
	# since last night: the counts the digest computed, against audit 1
	jq -e '.since | test("^Since last night \\(against audit 1, [0-9T:-]+Z\\): 2 newly flaky \\(some quarantined, not gating\\), 0 no longer flaky, 0 rate changes\\.$")' "$T/f2.json"
	# the gating lane: one row and one <svg> per test, its title the nights in words
	jq -e '[.tables[] | select(.class == "nightly") | .rows[1:][] | .[0]] == ["t.a"]' "$T/f2.json"
	jq -e '.svgs | length == 2' "$T/f2.json"
	jq -e '.svgs[0] == "t.a, failure rate by night, 2 nights: 2026-11-01: 0/10 failed (≤25.9% at 95% confidence); 2026-11-02: 3/10 failed (30.0%, 95% Wilson CI 10.7%–60.4%)"' "$T/f2.json"
	# the quarantine table: ID, owner, expires, days left, issue link, the lane's rate
	jq -e --arg exp "$(date -u -d '+10 days' +%F)" '[.tables[] | select(.class == "quarantine") | .rows[1] | .[0:6]] ==
	    [["tests/test_q.py::test_q", "@alice", $exp, "10", "https://github.com/o/r/issues/7", "4/20 failed (20.0%, 95% Wilson CI 8.0%–41.7%)"]]' "$T/f2.json"
	jq -e '.tables[] | select(.class == "quarantine") | .rows[0] == ["ID", "Owner", "Expires", "Days left", "Issue", "Rate in the window", "Nightly"]' "$T/f2.json"
	jq -e '.href == ["https://github.com/o/r/issues/7"]' "$T/f2.json"
	jq -e '.svgs[1] | startswith("tests/test_q.py::test_q, failure rate by night, 2 nights: 2026-11-01: 0/10 failed")' "$T/f2.json"
	# one point and one interval bar per night
	[ "$(grep -o '<svg class="spark".*</svg>' "$T/d2.html" | head -1 | grep -o '<line class="iv"' | wc -l)" -eq 2 ]
	# night 3: three points each; nothing new, so "since last night" says so
	page_facts "$T/d3.html" > "$T/f3.json"
	jq -e '.since | test("against audit 2, .*: 0 newly flaky, 0 no longer flaky, [0-9]+ rate changes?\\.$")' "$T/f3.json"
	jq -e '.svgs[0] | test("3 nights: 2026-11-01: .*; 2026-11-02: .*; 2026-11-03: 2/10 failed \\(20.0%, 95% Wilson CI")' "$T/f3.json"
	# the JSON digest holds the lane and the nights, so --audit N draws them again
	jq -e '.quarantined[0].owner == "@alice" and .quarantined[0].days_left == 10 and .quarantined[0].rate.trials == 30' "$T/d3.json"
	jq -e '[.nightly[] | {case, quarantined, n: (.nights | length)}] == [{"case": "t.a", "quarantined": false, "n": 3}, {"case": "tests/test_q.py::test_q", "quarantined": true, "n": 3}]' "$T/d3.json"
	rt-audit -H "$(H)" --audit 3 --html "$T/a3.html"
	cmp "$T/d3.html" "$T/a3.html"
	# the shared stylesheet
	grep -qF "$(sed -n 3p "$RT_TOP/share/retrial/retrial.css")" "$T/d3.html"
}

@test "rt-audit: the HTML digest renders in headless Chromium with its tables and sparklines" {
	[ -x /usr/bin/chromium ] || skip "no /usr/bin/chromium"
	qnights
	HOME="$T" run /usr/bin/chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$T/d3.html"
	status_is 0
	echo "$output" > "$T/dom.html"
	grep -q '<table class="quarantine">' "$T/dom.html"
	grep -q '<table class="nightly">' "$T/dom.html"
	[ "$(grep -o '<svg class="spark"' "$T/dom.html" | wc -l)" -eq 2 ]
	grep -q 'id="since-last-night"' "$T/dom.html"
}

@test "rt-audit: quarantined tests are a lane that never gates; --quarantine names the list, a malformed one exits 2 naming file:line" {
	mkdir -p "$T/.retrial"
	printf 'tests/test_q.py::test_q\towner=@alice\n' > "$T/.retrial/quarantine"
	recs tests/test_q.py::test_q n1 r1 2026-11-01 0 5 > "$T/n1.jsonl"
	recs tests/test_q.py::test_q n2 r2 2026-11-02 2 5 > "$T/n2.jsonl"
	(cd "$T" && rt-audit -H "$(H)" n1.jsonl >/dev/null 2>&1)
	cd "$T"
	run rt-audit --gate -H "$(H)" n2.jsonl
	status_is 0
	has '2/5 failed (40.0%, 95% Wilson CI 11.7%–77.0%); quarantined, not gating'
	has "| \`tests/test_q.py::test_q\` | @alice | never | no expiry | none | 2/10 failed"
	# a list given by name: an older list's "NAME LINK" line matches too
	printf 'tests/test_q.py::test_q https://github.com/o/r/issues/1\n' > "$T/old"
	rt-audit -H "$T/h2.db" n1.jsonl >/dev/null 2>&1
	run rt-audit --gate -H "$T/h2.db" --quarantine "$T/old" n2.jsonl
	status_is 0
	# without the list the same night gates
	mv "$T/.retrial/quarantine" "$T/q.off"
	rt-audit -H "$T/h4.db" n1.jsonl >/dev/null 2>&1
	run rt-audit --gate -H "$T/h4.db" n2.jsonl
	status_is 1
	# a malformed list stops the audit before it starts
	printf 'ok.test\towner=@a\nbad.test\tnot-a-field\n' > "$T/bad"
	run rt-audit -H "$T/h5.db" --quarantine "$T/bad" n1.jsonl
	status_is 2
	has "$T/bad:2:"
	[ ! -e "$T/h5.db" ] || [ "$(sqlite3 "$T/h5.db" 'select count(*) from audits')" = 0 ]
	run rt-audit -H "$T/h5.db" --quarantine "$T/missing" n1.jsonl
	status_is 2
	has "$T/missing: No such file or directory"
	# --audit N is written as it was: no list then
	run rt-audit -H "$T/h4.db" --audit 1 --quarantine "$T/bad"
	status_is 2
	has "--audit and --quarantine are exclusive"
}

@test "rt-audit: a missing stylesheet is one error naming it, before the audit" {
	recs t.a n1 r1 2026-11-01 0 5 > "$T/n1.jsonl"
	mkdir "$T/noshare"
	RETRIAL_SHAREDIR="$T/noshare" run rt-audit -H "$(H)" --html "$T/d.html" "$T/n1.jsonl"
	status_is 2
	[ "${#lines[@]}" -eq 1 ]
	has "rt-audit: $T/noshare/retrial.css: the HTML stylesheet"
	[ ! -e "$T/d.html" ]
	[ ! -e "$(H)" ] || [ "$(sqlite3 "$(H)" 'select count(*) from audits')" = 0 ]
}

@test "rt-audit: --annotations prints a GitHub ::warning per newly flaky test at the line its parser finds, escaped" {
	command -v python3 >/dev/null || skip "no python3"
	mkdir -p "$T/p/tests" "$T/p/.retrial"
	cat > "$T/p/tests/test_net.py" <<'PY'
import random


def helper():
    return random.random()


def test_fetch():
    assert helper() > 0.3


class TestRetry:
    @staticmethod
    def test_backoff(n=1):
        assert helper() > 0.1
PY
	cp "$T/p/tests/test_net.py" "$T/p/tests/odd,na:me.py"
	printf 'tests/test_net.py::test_quarantined\towner=@q\n' > "$T/p/.retrial/quarantine"
	{
		recs tests/test_net.py::test_fetch n1 r1 2026-11-01 1 4
		recs 'tests/test_net.py::TestRetry::test_backoff[2]' n1 r1 2026-11-01 2 4
		recs 'tests/odd,na:me.py::test_fetch' n1 r1 2026-11-01 1 4
		recs tests/test_net.py::test_renamed n1 r1 2026-11-01 1 4
		recs tests/gone.py::test_x n1 r1 2026-11-01 1 4
		recs tests/test_net.py::test_quarantined n1 r1 2026-11-01 1 4
		recs tests/test_net.py::test_steady n1 r1 2026-11-01 0 4
	} > "$T/n1.jsonl"
	cd "$T/p"
	run rt-audit -H "$(H)" --annotations "$T/n1.jsonl"
	status_is 0
	# stdout holds the annotations only, one per newly flaky test off the list
	[ "${#lines[@]}" -eq 6 ]
	[ "${lines[0]}" = "rt-audit: audit 1: ingested 28 records (0 already there) into $(H)" ]
	# a file that is not in the tree: no file=
	[ "${lines[1]}" = '::warning title=flaky test::tests/gone.py::test_x: 1/4 failed (25.0%25, 95%25 Wilson CI 4.5%25–70.0%25), newly flaky on revision r1' ]
	has '::warning file=tests/odd%2Cna%3Ame.py,line=8,title=flaky test::tests/odd,na:me.py::test_fetch: 1/4 failed (25.0%25, 95%25 Wilson CI 4.5%25–70.0%25), newly flaky on revision r1'
	has '::warning file=tests/test_net.py,line=14,title=flaky test::tests/test_net.py::TestRetry::test_backoff[2]: 2/4 failed (50.0%25, 95%25 Wilson CI 15.0%25–85.0%25), newly flaky on revision r1'
	has '::warning file=tests/test_net.py,line=8,title=flaky test::tests/test_net.py::test_fetch: 1/4 failed'
	# a definition the parser does not find: the file without line=
	has '::warning file=tests/test_net.py,title=flaky test::tests/test_net.py::test_renamed: 1/4 failed'
	hasnt 'test_quarantined'
	hasnt 'test_steady'
	hasnt '# Flake audit'
	# the stored night annotates the same; --md - puts the Markdown first
	run rt-audit -H "$(H)" --audit 1 --annotations --md -
	status_is 0
	[ "${lines[0]}" = "# Flake audit 1, ${lines[0]##*, }" ]
	[ "$(printf '%s\n' "$output" | grep -c '^::warning ')" -eq 5 ]
	# a message's line break and percent are escaped, never a second command
	printf '{"type":"trial","case":"t.x::a\\nb","outcome":"fail","run":"n2","revision":"r2"}\n{"type":"trial","case":"t.x::a\\nb","outcome":"pass","run":"n2","revision":"r2"}\n' > "$T/n2.jsonl"
	run rt-audit -H "$(H)" --annotations "$T/n2.jsonl"
	status_is 0
	has '::warning title=flaky test::t.x::a%0Ab: 1/2 failed'
}

teardown() {
	if [ -n "${SRV_PID:-}" ]; then kill "$SRV_PID" 2>/dev/null || true; fi
	if [ -f "$T/gh.pid" ]; then kill "$(cat "$T/gh.pid")" 2>/dev/null || true; fi
}

# hook_server: a loopback webhook receiver; each POST's path and body are
# one JSON line in $T/hook.log; a path ending in /fail answers 500.
hook_server() {
	python3 - "$T/hook.log" >"$T/port" <<-'PY' &
	import sys, json
	from http.server import BaseHTTPRequestHandler, HTTPServer
	log = open(sys.argv[1], "a")
	class H(BaseHTTPRequestHandler):
	    def log_message(self, *a): pass
	    def do_POST(self):
	        n = int(self.headers.get("Content-Length") or 0)
	        body = self.rfile.read(n).decode()
	        log.write(json.dumps({"path": self.path, "type": self.headers.get("Content-Type"),
	            "body": json.loads(body)}) + "\n")
	        log.flush()
	        fail = self.path.endswith("/fail")
	        self.send_response(500 if fail else 200)
	        self.send_header("Content-Length", "2")
	        self.end_headers()
	        self.wfile.write(b"ok")
	s = HTTPServer(("127.0.0.1", 0), H)
	print(s.server_address[1], flush=True)
	s.serve_forever()
	PY
	SRV_PID=$!
	for _ in $(seq 200); do [ -s "$T/port" ] && break; sleep 0.05; done
	[ -s "$T/port" ]
}

@test "rt-audit: --webhook posts the headline as Slack-style JSON; a failure is one line with the status, the URL's path never shown" {
	hook_server
	port=$(cat "$T/port")
	recs t.ok n1 r1 2026-11-01 0 5 > "$T/n1.jsonl"
	{ recs t.f n2 r2 2026-11-02 2 5; recs t.ok n2 r2 2026-11-02 0 5; } > "$T/n2.jsonl"
	rt-audit -H "$(H)" "$T/n1.jsonl" >/dev/null 2>&1
	printf 'http://127.0.0.1:%s/services/T000/B000/SECRETTOKEN\n' "$port" > "$T/hookurl"
	run rt-audit -H "$(H)" --webhook-file "$T/hookurl" "$T/n2.jsonl"
	status_is 0
	hasnt SECRETTOKEN
	[ "$(wc -l < "$T/hook.log")" -eq 1 ]
	jq -e '.path == "/services/T000/B000/SECRETTOKEN" and .type == "application/json"' "$T/hook.log"
	jq -e '.body | keys == ["text"]' "$T/hook.log"
	jq -e '.body.text | test("^Flake audit 2, [0-9T:-]+Z: 1 newly flaky, 0 no longer flaky, [0-9]+ rate changes?\\.\nNewly flaky: t\\.f: 2/5 failed \\(40\\.0%, 95% Wilson CI 11\\.7%–77\\.0%\\)$")' "$T/hook.log"
	# the environment names it too; --audit N posts a stored night again
	RETRIAL_WEBHOOK_URL="http://localhost:$port/x" run rt-audit -H "$(H)" --audit 2 --md /dev/null
	status_is 0
	[ "$(wc -l < "$T/hook.log")" -eq 2 ]
	tail -1 "$T/hook.log" | jq -e '.path == "/x" and (.body.text | startswith("Flake audit 2, "))'
	# a failing receiver: one line, the status, scheme and host only
	run rt-audit -H "$(H)" --audit 2 --md /dev/null --webhook "http://127.0.0.1:$port/services/SECRETTOKEN/fail"
	status_is 2
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "rt-audit: webhook http://127.0.0.1:$port/...: HTTP 500; audit 2 is recorded: rt-audit --audit 2 --webhook-file FILE posts it again" ]
}

@test "rt-audit: --webhook: a test name's <!channel>, <url|text> and & are Slack text, its line feed and U+202E shown visibly" {
	hook_server
	port=$(cat "$T/port")
	recs t.ok n1 r1 2026-11-01 0 5 > "$T/n1.jsonl"
	rt-audit -H "$(H)" "$T/n1.jsonl" >/dev/null 2>&1
	recs 't.f <!channel> <https://evil.example|docs> & x\nNewly flaky: forged\u202e' n2 r2 2026-11-02 2 5 > "$T/n2.jsonl"
	run rt-audit -H "$(H)" --md /dev/null --webhook "http://127.0.0.1:$port/hook" "$T/n2.jsonl"
	status_is 0
	jq -e '.body.text | split("\n") | length == 2' "$T/hook.log"
	jq -e '.body.text | contains("Newly flaky: t.f &lt;!channel&gt; &lt;https://evil.example|docs&gt; &amp; x␊Newly flaky: forged\\u202e: 2/5 failed")' "$T/hook.log"
	jq -e '.body.text | test("<|>|\u202e") | not' "$T/hook.log"
}

@test "rt-audit: a webhook URL that is plain http to another host, not a URL, or both forms, is refused before the audit" {
	recs t.ok n1 r1 2026-11-01 0 5 > "$T/n1.jsonl"
	run rt-audit -H "$(H)" --webhook http://hooks.example.com/services/SECRETTOKEN "$T/n1.jsonl"
	status_is 2
	has "rt-audit: --webhook http://hooks.example.com/...: plain http is refused for a host that is not loopback"
	hasnt SECRETTOKEN
	[ ! -e "$(H)" ] || [ "$(sqlite3 "$(H)" 'select count(*) from audits')" = 0 ]
	printf 'http://10.0.0.1/SECRETTOKEN\n' > "$T/u"
	run rt-audit -H "$(H)" --webhook-file "$T/u" "$T/n1.jsonl"
	status_is 2
	has "rt-audit: $T/u http://10.0.0.1/...: plain http is refused"
	hasnt SECRETTOKEN
	RETRIAL_WEBHOOK_URL='not a url' run rt-audit -H "$(H)" "$T/n1.jsonl"
	status_is 2
	has "RETRIAL_WEBHOOK_URL: not an http or https URL"
	run rt-audit -H "$(H)" --webhook https://h.example/x --webhook-file "$T/u" "$T/n1.jsonl"
	status_is 2
	has "--webhook and --webhook-file are exclusive"
	run rt-audit -H "$(H)" --webhook 'https://user:pw@h.example/x' "$T/n1.jsonl"
	status_is 2
	has "credentials in the URL are refused"
	hasnt "pw@"
}
