#!/usr/bin/env bats
# rt-genome: the flake genome's leaderboard and history.
load helper

FX="$RT_TOP/t/fixtures/verify"

# A genome with the five fixture runs: alpha won 2 of its 3 timing
# hypotheses, beta none of 3 (one neutered), cache 0 of 1 (patch failed).
setup() {
	db="$T/g.db"
	rt-genome -g "$db" --import "$FX/verdicts.jsonl" 2>"$T/import.err"
}

@test "rt-genome: --help and --version" {
	run rt-genome --help
	status_is 0
	has "usage: rt-genome"
	has "--history"
	run rt-genome -V
	status_is 0
	has "(retrial)"
}

@test "rt-genome: usage errors exit 2" {
	run rt-genome -g "$db" --test x
	status_is 2
	has "--test needs --history"
	run rt-genome -g "$db" somefile
	status_is 2
	has "unexpected operand"
	run rt-genome -g "$db" --confidence 2
	status_is 2
	run rt-genome -g "$db" --import --history
	status_is 2
}

@test "rt-genome: a query never creates a database" {
	run rt-genome -g "$T/typo.db"
	status_is 2
	has "no genome here"
	[ ! -e "$T/typo.db" ]
}

@test "rt-genome: --import records verdict records" {
	grep -q "recorded 5 runs" "$T/import.err"
	[ "$(sqlite3 "$db" 'select count(*) from runs')" -eq 5 ]
	[ "$(sqlite3 "$db" 'select count(*) from hypotheses')" -eq 10 ]
	[ "$(sqlite3 "$db" 'select count(*) from confirmations')" -eq 4 ]
}

@test "rt-genome: the leaderboard gives every win rate its interval" {
	run rt-genome -g "$db"
	status_is 0
	has "CAUSE CLASS"
	# Wilson at 95%: 2/3 is 20.8–93.9%, and 0/3 is only bounded above
	echo "$output" | grep -q "^timing  *alpha  *2/3 won (66.7%, 95% Wilson CI 20.7%–93.9%)"
	echo "$output" | grep -q "^timing  *beta  *0/3 won (≤63.2% at 95% confidence)  *1  *0$"
	echo "$output" | grep -q "^timing  *cache  *0/1 won (≤95.0% at 95% confidence)  *0  *1$"
	echo "$output" | grep -q "^order  *rules  *1/1 won"
	hasnt "resource"      # not raced: the gate stopped that run
	hasnt "67%"
}

@test "rt-genome: --json leaderboard records, ranked by the interval's lower bound" {
	rt-genome -g "$db" --json >"$T/out"
	jqe -s 'length == 5 and all(.type == "leaderboard")' "$T/out"
	jqe -s 'map(select(.cause_class == "timing")) | .[0].proposer == "alpha" and .[0].wins == 2 and .[0].hypotheses == 3 and .[0].ci_low == 0.207655 and .[0].ci_high == 0.938510' "$T/out"
	jqe -s 'map(select(.proposer == "beta" and .cause_class == "timing"))[0] | .neutered == 1 and .win_rate == 0 and .summary == "0/3 won (≤63.2% at 95% confidence)"' "$T/out"
	rt-genome -g "$db" --json --class order --confidence 0.9 >"$T/out"
	jqe -s 'length == 2 and all(.cause_class == "order") and all(.confidence == 0.9)' "$T/out"
}

@test "rt-genome: --history shows each project's tests, each test's runs in order" {
	run rt-genome -g "$db" --history
	status_is 0
	has "FIXED"
	has "QUARANTINE"
	# a confirmation's zero failures come with their upper bound
	has "original 12/40 failed (30.0%, 95% Wilson CI 18.0%–45.5%); winner h1 (alpha, timing), on fresh trials 0/29 failed (≤9.9% at 95% confidence)"
	has "original 0/40 failed (≤7.3% at 95% confidence)"
	# a project heading per group, sorted, its tests indented under it
	echo "$output" | grep '^project ' >"$T/heads"
	printf 'project /p/test_cache\nproject /p/test_lock\nproject /p/test_order\n' | diff - "$T/heads"
	echo "$output" | grep -A1 -x 'project /p/test_lock' | tail -1 | grep -qx '  test_lock'
	echo "$output" | grep -A2 -x '  test_lock' | sed -n 2p | grep -q '^    .*ALREADY_STABLE'
	rt-genome -g "$db" --history --test test_cache --json >"$T/out"
	jqe -s 'length == 3 and all(.test == "test_cache") and (map(.verdict) == ["FIXED", "FIXED", "QUARANTINE"])' "$T/out"
	jqe -s '.[2].winner == null and .[2].confirmation == null and .[0].confirmation.trials == 29' "$T/out"
	jqe -s '.[0].confirmation.summary == "0/29 failed (≤9.9% at 95% confidence)"' "$T/out"
}

@test "rt-genome: a confirmation is shown at the confidence and with the method rt-verify used" {
	# a round of two candidates is split to 97.5% (Bonferroni): the
	# confirmation says so, not the run's 95%
	run rt-genome -g "$db" --history --test test_cache
	status_is 0
	has "winner h1 (alpha, timing), on fresh trials 0/36 failed (≤9.8% at 97.5% confidence)"
	hasnt "0/36 failed (≤9.7% at 95%"
	rt-genome -g "$db" -H -t test_cache -j >"$T/out"
	jqe -s '.[1].confirmation | .confidence == 0.975 and .interval == "exact one-sided"
	    and .ci_high == 0.097394 and .trials == 36' "$T/out"
	# a Wilson confirmation that does not name its method gets the label
	jq -c '.lanes[0].status = "tied" | .lanes[1].status = "winner" | .winner.id = "h2"
	    | .confirmations |= [.[1]] | .finished_at = "2026-03-09T10:00:00Z"' \
	    <(sed -n 2p "$FX/verdicts.jsonl") >"$T/wilson.jsonl"
	rt-genome -g "$db" --import "$T/wilson.jsonl" 2>/dev/null
	run rt-genome -g "$db" -H -t test_cache
	has "winner h2 (beta, timing), on fresh trials 3/36 failed (8.3%, 97.5% Wilson CI 2.5%–24.4%)"
}

@test "rt-genome: --import keeps the verdict's own finished_at" {
	[ "$(sqlite3 "$db" "select recorded_at from runs where test = 'test_cache' order by id limit 1")" = "2026-03-01T10:00:00Z" ]
	# without it, the time of the import
	sqlite3 "$db" "select recorded_at from runs where test = 'test_lock'" | grep -Eq '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$'
	jq -c '.finished_at = "yesterday" | .seed = "8"' <(sed -n 1p "$FX/verdicts.jsonl") >"$T/bad"
	run rt-genome -g "$db" --import "$T/bad"
	status_is 2
	has 'bad:1: verdict record: field "finished_at" must be a UTC time like 2026-03-01T10:00:00Z, not yesterday'
}

@test "rt-genome: the table stays aligned for long and non-ASCII names" {
	jq -c '.lanes[0].cause_class = "a_cause_class_far_too_long_for_any_column_at_all"
	    | .lanes[1].model = "modèle-à-accents" | .lanes[1].cause_class = "a_cause_class_far_too_long_for_any_column_at_all"
	    | .seed = "9"' <(sed -n 1p "$FX/verdicts.jsonl") >"$T/long.jsonl"
	rt-genome -g "$db" --import "$T/long.jsonl" 2>/dev/null
	rt-genome -g "$db" >"$T/table"
	grep -q '^a_cause_class_far_too_long_for_…' "$T/table"
	grep -q 'modèle-à-accents' "$T/table"
	# every line, header included, is as wide as every other, in characters
	[ "$(/usr/bin/python3 -c 'import sys; print(len({len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")}))' "$T/table")" -eq 1 ]
}

@test "rt-genome: test names and ids are bound, never pasted into SQL" {
	run rt-genome -g "$db" --history --test "x' OR '1'='1"
	status_is 0
	has "no runs recorded for x' OR '1'='1"
	[ "$(sqlite3 "$db" "select count(*) from hypotheses where hyp_id = 'h''2'")" -eq 1 ]
}

@test "rt-genome: the leaderboard view is open to the sqlite3 CLI" {
	[ "$(sqlite3 "$db" "select wins || '/' || hypotheses from leaderboard where proposer = 'alpha' and cause_class = 'timing'")" = "2/3" ]
}

@test "rt-genome: an old schema is migrated on open, keeping its rows" {
	old="$T/v1.db"
	# schema version 1, as the first release wrote it
	sqlite3 "$old" "CREATE TABLE runs (id INTEGER PRIMARY KEY, recorded_at TEXT NOT NULL, host TEXT, project TEXT NOT NULL, command TEXT NOT NULL, test TEXT NOT NULL, verdict TEXT NOT NULL, confidence REAL, target REAL, seed TEXT, base_trials INTEGER, base_failures INTEGER, base_errors INTEGER, base_rate REAL, base_ci_low REAL, base_ci_high REAL, winner TEXT, baseline_s REAL, tournament_s REAL, confirm_s REAL, total_s REAL, record TEXT NOT NULL);
CREATE TABLE hypotheses (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, hyp_id TEXT NOT NULL, source TEXT, model TEXT, cause_class TEXT, status TEXT NOT NULL, rule TEXT, reason TEXT, trials INTEGER, failures INTEGER, rate REAL, ci_low REAL, ci_high REAL, won INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (run_id, hyp_id));
CREATE TABLE confirmations (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, round INTEGER NOT NULL, hyp_id TEXT NOT NULL, trials INTEGER, failures INTEGER, required_runs INTEGER, passed INTEGER NOT NULL, PRIMARY KEY (run_id, round));
INSERT INTO runs (recorded_at, project, command, test, verdict, base_trials, base_failures, record) VALUES ('2026-01-01T00:00:00.000Z', '/p', './t', 't', 'FIXED', 40, 10, '{}');
INSERT INTO hypotheses VALUES (1, 'h1', 'cache', NULL, 'timing', 'winner', NULL, 'r', 20, 0, 0, 0, 0.2, 1);
PRAGMA user_version = 1;"
	run rt-genome -g "$old"
	status_is 0
	has "1/1 won"
	[ "$(sqlite3 "$old" 'pragma user_version')" -eq 3 ]
	[ "$(sqlite3 "$old" 'select count(*) from runs')" -eq 1 ]
}

@test "rt-genome: schema 2 rows get their digest and confirmations from the stored record" {
	# make the fixture genome look as schema 2 left it
	sqlite3 "$db" "DROP INDEX runs_by_digest; ALTER TABLE runs DROP COLUMN digest;
	    ALTER TABLE confirmations DROP COLUMN confidence; ALTER TABLE confirmations DROP COLUMN interval;
	    ALTER TABLE confirmations DROP COLUMN ci_high; ALTER TABLE confirmations DROP COLUMN summary;
	    PRAGMA user_version = 2;"
	run rt-genome -g "$db" -H -t test_cache
	status_is 0
	has "on fresh trials 0/36 failed (≤9.8% at 97.5% confidence)"
	[ "$(sqlite3 "$db" 'pragma user_version')" -eq 3 ]
	run rt-genome -g "$db" --import "$FX/verdicts.jsonl"
	status_is 0
	has "recorded 0 runs"
	[ "$(sqlite3 "$db" 'select count(*) from runs')" -eq 5 ]
}

@test "rt-genome: a newer schema is refused, not rewritten" {
	sqlite3 "$db" 'PRAGMA user_version = 99'
	run rt-genome -g "$db"
	status_is 2
	has "schema version 99 is newer"
	[ "$(sqlite3 "$db" 'pragma user_version')" -eq 99 ]
}

@test "rt-genome: importing the same verdicts again records nothing twice" {
	run rt-genome -g "$db" --import "$FX/verdicts.jsonl"
	status_is 0
	has "verdicts.jsonl:1: already recorded in $db (same content); skipped"
	has "verdicts.jsonl:5: already recorded"
	has "recorded 0 runs in $db; 5 already there"
	[ "$(sqlite3 "$db" 'select count(*) from runs')" -eq 5 ]
	[ "$(sqlite3 "$db" 'select count(*) from hypotheses')" -eq 10 ]
	# the same content with its keys in another order is the same verdict
	sed -n 3p "$FX/verdicts.jsonl" | jq -cS . >"$T/sorted.jsonl"
	run rt-genome -g "$db" --import - <"$T/sorted.jsonl"
	has "<stdin>:1: already recorded"
	# one changed field is another verdict
	sed -n 3p "$FX/verdicts.jsonl" | jq -c '.seed = "99"' | rt-genome -g "$db" --import 2>"$T/err"
	grep -q "recorded 1 run in" "$T/err"
}

# Each import of a bad record: exit 2, file:line and the field, and nothing
# of its file recorded, although line 1 is a good new verdict.
bad_import() {
	{ sed -n 1p "$FX/verdicts.jsonl" | jq -c '.seed = "fresh"'; jq -c "$1" <(sed -n 1p "$FX/verdicts.jsonl"); } >"$T/bad.jsonl"
	run rt-genome -g "$db" --import "$T/bad.jsonl"
	status_is 2
	has "bad.jsonl:2: $2"
	[ "$(sqlite3 "$db" 'select count(*) from runs')" -eq 5 ]
}

@test "rt-genome: an imported verdict is checked like any record, and its file is one transaction" {
	bad_import '.baseline.failures = 41' 'verdict record: field "baseline.failures" must be at most "trials" (41 failures in 40 trials)'
	bad_import '.lanes[1].failures = -1' 'verdict record: field "lanes[1].failures" must be a whole number >= 0, not -1'
	bad_import '.confirmations[0].trials = -29' 'verdict record: field "confirmations[0].trials" must be a whole number >= 0, not -29'
	bad_import '.confirmations[0].failures = 30' 'verdict record: field "confirmations[0].failures" must be at most "trials" (30 failures in 29 trials)'
	bad_import '.verdict = "BOGUS"' 'verdict record: field "verdict" must be one of FIXED, IMPROVED, QUARANTINE, REGRESSION, ALREADY_STABLE, INCONCLUSIVE_BASELINE, ERROR, not BOGUS'
	bad_import '.confidence = 1.5' 'verdict record: field "confidence" must be between 0 and 1 (exclusive), not 1.5'
	bad_import '.confidence = 0' 'verdict record: field "confidence" must be between 0 and 1 (exclusive), not 0'
	bad_import '.confirmations[0].confidence = 1' 'verdict record: field "confirmations[0].confidence" must be between 0 and 1 (exclusive), not 1'
	bad_import '.baseline.trials = 2.5' 'verdict record: field "baseline.trials" must be a whole number'
	bad_import 'del(.confidence)' 'verdict record: field "confidence" is missing'
	bad_import '.lanes = 3' 'verdict record: field "lanes" must be an array'
	bad_import '.finished_at = "yesterday"' 'verdict record: field "finished_at" must be a UTC time like 2026-03-01T10:00:00Z, not yesterday'
	# files are separate transactions: a good file before a bad one stays
	sed -n 1p "$FX/verdicts.jsonl" | jq -c '.seed = "other"' >"$T/good.jsonl"
	run rt-genome -g "$db" --import "$T/good.jsonl" "$T/bad.jsonl"
	status_is 2
	[ "$(sqlite3 "$db" 'select count(*) from runs')" -eq 6 ]
}

@test "rt-genome: bad import input names the file and line" {
	printf '%s\n' '{"type":"verdict","command":"x"}' >"$T/bad"
	run rt-genome -g "$db" --import "$T/bad"
	status_is 2
	has "bad:1: verdict record: field \"verdict\" is missing"
	[ "$(sqlite3 "$db" 'select count(*) from runs')" -eq 5 ]
}
