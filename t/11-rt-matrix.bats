#!/usr/bin/env bats
# rt-matrix: a control and perturbed measurements side by side.
load helper

# --- usage and exit codes ---

@test "rt-matrix: --help prints the synopsis and exits 0" {
	run rt-matrix --help
	status_is 0
	has "usage: rt-matrix"
	has "--slow MS"
	has "--order-args"
}

@test "rt-matrix: --version" {
	run rt-matrix --version
	status_is 0
	has "rt-matrix"
}

@test "rt-matrix: no command is a usage error" {
	run rt-matrix --slow 10
	status_is 2
	has "no command"
}

@test "rt-matrix: no perturbation is a usage error" {
	run rt-matrix --cmd true
	status_is 2
	has "no perturbation"
}

@test "rt-matrix: bad perturbation values name the option" {
	run rt-matrix --hashseed sometimes --cmd true
	status_is 2
	has "--hashseed sometimes: must be fixed or vary"
	run rt-matrix --order sideways --cmd true
	status_is 2
	has "--order sideways"
	run rt-matrix --slow 0 --cmd true
	status_is 2
	has "--slow 0"
	run rt-matrix --parallel 1 --cmd true
	status_is 2
	has "--parallel 1"
	run rt-matrix --env NOEQUALS --cmd true
	status_is 2
	has "--env NOEQUALS"
	run rt-matrix --env 9X=1 --cmd true
	status_is 2
	run rt-matrix --env RETRIAL_SEED=1 --cmd true
	status_is 2
	has "trial engine"
	run rt-matrix --tz '' --cmd true
	status_is 2
}

@test "rt-matrix: the same perturbation twice, or one the control already has" {
	run rt-matrix --tz UTC --tz UTC --cmd true
	status_is 2
	has "given twice"
	run rt-matrix -j 2 --parallel 2 --cmd true
	status_is 2
	has "already runs -j 2"
	run rt-matrix --gap-ms 100 --slow 50 --cmd true
	status_is 2
	has "already rests"
}

@test "rt-matrix: bad numbers, unknown options and stray operands" {
	run rt-matrix -n 0 --slow 5 --cmd true
	status_is 2
	has "-n 0"
	run rt-matrix --confidence 1.5 --slow 5 --cmd true
	status_is 2
	has "--confidence 1.5"
	run rt-matrix --bogus --slow 5 --cmd true
	status_is 2
	has "--bogus"
	run rt-matrix --slow 5 --cmd true extra
	status_is 2
	has "extra: unexpected operand"
	run rt-matrix --slow 5 -- --order-args a b
	status_is 2
	has "no command before --order-args"
}

# --- behaviour ---

@test "rt-matrix: --slow makes the lingering lock pass: implicated, stabilises" {
	# A lock that lingers by the clock, not by a background sleep: a run
	# finds it held when the last run touched it less than 2 s ago (a
	# busy run touches it too). With 2.5 s between runs every run finds it
	# free whatever the load: rt-matrix rests at least 2.5 s after a trial
	# ends (min_rest_ms below) and the lock was touched before that end.
	# Back to back, each run starts well within 2 s of the one before.
	cat >"$T/test_lock.sh" <<'EOF'
#!/bin/sh
# Takes the work lock; a lock touched less than 2000 ms ago is still held.
now=$(date +%s%N)
now=$((now / 1000000))
if [ -s "$LOCK" ] && [ $((now - $(cat "$LOCK"))) -lt 2000 ]; then
	echo "$now" >"$LOCK"
	echo "lock: BUSY, $LOCK still held by an earlier run" >&2
	exit 1
fi
echo "$now" >"$LOCK"
echo "lock taken"
exit 0
EOF
	chmod +x "$T/test_lock.sh"
	LOCK="$T/lock" run rt-matrix -n 6 --slow 2500 --seed 1 -- "$T/test_lock.sh"
	status_is 0
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 1 ]
	echo "$output" | jqe '.type == "experiment" and .name == "slow" and .cell == "slow:2500"'
	echo "$output" | jqe '.perturbation.gap_ms == 2500 and .probe == "ok"'
	echo "$output" | jqe '.control.trials == 6 and .control.failures == 5 and .control.gap_ms == 0'
	echo "$output" | jqe '.perturbed.trials == 6 and .perturbed.failures == 0 and .perturbed.gap_ms == 2500'
	echo "$output" | jqe '.perturbed.min_rest_ms >= 2500'
	echo "$output" | jqe '.separated and .implicated and .changed and .effect == "stabilises"'
	echo "$output" | jqe '.note == "intervals disjoint" and .control_shared'
	echo "$output" | jqe '.perturbed.ci_high < .control.ci_low'
	echo "$output" | jqe '.difference.method == "newcombe" and .difference.ci_high < 0'
	echo "$output" | jqe '(.difference.estimate + 0.833333 | fabs) < 1e-6'
	echo "$output" | jqe '.seed == "1" and .interrupted == false'
}

@test "rt-matrix: --hashseed fixed sets PYTHONHASHSEED=0 and proves it" {
	unset PYTHONHASHSEED
	run rt-matrix -n 5 --hashseed fixed --facts "$T/f.jsonl" \
		-- python3 "$EX/hashorder/test_order.py"
	status_is 0
	echo "$output" | jqe '.name == "hashseed" and .probe == "ok"'
	echo "$output" | jqe '.probe_detail | contains("PYTHONHASHSEED=0")'
	echo "$output" | jqe '.perturbation.PYTHONHASHSEED == "0" and .perturbed.env.PYTHONHASHSEED == "0"'
	# one hash seed, one iteration order: every trial the same outcome
	echo "$output" | jqe '.perturbed.failures == 0 or .perturbed.failures == 5'
	jq -s -e 'map(select(.cell == "hashseed:fixed")) | length == 5 and
		all(.env.PYTHONHASHSEED == "0")' "$T/f.jsonl" >/dev/null
	jq -s -e 'map(select(.cell == "control")) | length == 5 and
		all(.env.PYTHONHASHSEED == null)' "$T/f.jsonl" >/dev/null
}

@test "rt-matrix: --hashseed vary gives each trial its own value, reproducibly" {
	unset PYTHONHASHSEED
	run rt-matrix -n 6 --seed 42 --hashseed vary -- python3 "$EX/hashorder/test_order.py"
	status_is 0
	first=$output
	echo "$first" | jqe '.probe == "ok" and (.probe_detail | contains("trials 1 and 2"))'
	echo "$first" | jqe '.perturbed.env.PYTHONHASHSEED | length == 6 and (unique | length) > 1'
	run rt-matrix -n 6 --seed 42 --hashseed vary -- python3 "$EX/hashorder/test_order.py"
	status_is 0
	[ "$(echo "$first" | jq -c '[.perturbed.failures, .perturbed.env.PYTHONHASHSEED]')" = \
	  "$(echo "$output" | jq -c '[.perturbed.failures, .perturbed.env.PYTHONHASHSEED]')" ]
}

@test "rt-matrix: --env proves the variable reached the trial" {
	run rt-matrix -n 4 --env FOO=bar --facts "$T/f.jsonl" --cmd 'test "$FOO" = bar'
	status_is 0
	echo "$output" | jqe '.name == "env" and .cell == "env:FOO=bar" and .probe == "ok"'
	echo "$output" | jqe '.probe_detail == "FOO=bar seen in env(1) of a probe trial"'
	echo "$output" | jqe '.control.failures == 4 and .perturbed.failures == 0'
	echo "$output" | jqe '.implicated and .effect == "stabilises" and .perturbed.env.FOO == "bar"'
	jq -s -e 'map(select(.cell == "env:FOO=bar")) | all(.env.FOO == "bar")' "$T/f.jsonl" >/dev/null
}

@test "rt-matrix: overlapping intervals are not separated, never 'no effect'" {
	run rt-matrix -n 4 --env FOO=bar --cmd true
	status_is 0
	echo "$output" | jqe '.separated == false and .implicated == false and .changed == false'
	echo "$output" | jqe '.effect == null and .note == "not separated at this budget"'
	echo "$output" | jqe '.difference.estimate == 0 and .difference.ci_low < 0 and .difference.ci_high > 0'
	hasnt "no effect"
}

@test "rt-matrix: one record per perturbation, one control shared by all" {
	run rt-matrix -n 3 --env A=1 --env B=2 --tz JST-9 --cmd true
	status_is 0
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 3 ]
	echo "$output" | jq -s -e 'map(.cell) == ["env:A=1", "env:B=2", "tz:JST-9"]' >/dev/null
	echo "$output" | jq -s -e 'map(.control) | unique | length == 1' >/dev/null
	echo "$output" | jq -s -e 'all(.control_shared)' >/dev/null
	echo "$output" | jq -s -e '.[2].perturbation.TZ == "JST-9" and .[2].probe == "ok"' >/dev/null
}

@test "rt-matrix: --order reverse over the --order-args list" {
	run rt-matrix -n 4 --order reverse -- sh -c 'test "$1" = a' sh --order-args a b c
	status_is 0
	echo "$output" | jqe '.probe == "ok" and (.probe_detail | contains("c b a"))'
	echo "$output" | jqe '.control.failures == 0 and .perturbed.failures == 4'
	echo "$output" | jqe '.implicated and .effect == "destabilises"'
	echo "$output" | jqe '.perturbed.command | endswith("sh c b a")'
}

@test "rt-matrix: --order shuffle over the operands of --cmd" {
	run rt-matrix -n 4 --seed 9 --order shuffle --facts "$T/f.jsonl" \
		--cmd 'test "$*" = "a b c"' -- a b c
	status_is 0
	echo "$output" | jqe '.probe == "ok" and .control.failures == 0'
	# a shuffle is never the original order
	echo "$output" | jqe '.perturbed.failures == 4'
	jq -s -e 'map(select(.cell == "order:shuffle")) | all(.command | endswith(" a b c") | not)' \
		"$T/f.jsonl" >/dev/null
}

@test "rt-matrix: --parallel proves trials overlapped" {
	run rt-matrix -n 3 --parallel 3 --cmd 'sleep 0.3'
	status_is 0
	echo "$output" | jqe '.name == "parallel" and .perturbation.jobs == 3 and .probe == "ok"'
	echo "$output" | jqe '.perturbed.max_concurrent > 0 and .perturbed.jobs == 3'
	echo "$output" | jqe '.control.max_concurrent == 0 and .control.jobs == 1'
}

@test "rt-matrix: --no-network runs trials where only lo exists" {
	unshare -rn true 2>/dev/null || skip "unshare -rn does not work here"
	run rt-matrix -n 2 --no-network --cmd 'cat /proc/net/dev'
	status_is 0
	echo "$output" | jqe '.probe == "ok" and (.probe_detail | contains("lo only"))'
	echo "$output" | jqe '.perturbed.command | startswith("unshare -rn sh -c")'
	echo "$output" | jqe '.perturbed.env.network != null and .perturbed.failures == 0'
}

@test "rt-matrix: --text prints a table with the shared control" {
	run rt-matrix -n 4 --text --env FOO=bar --order reverse --cmd 'test "$FOO" = bar'
	status_is 0
	has "CHANGED"
	has "control"
	has "env:FOO=bar"
	has "yes: stabilises"
	has "order:reverse"
	has "UNAVAILABLE: the command takes no list"
	has "shared by every row"
	hasnt '"type"'
}

@test "rt-matrix: --facts keeps every trial record with its cell" {
	run rt-matrix -n 3 --env A=1 --tz UTC0 --facts "$T/f.jsonl" --cmd 'echo hi'
	status_is 0
	jq -s -e 'length == 9 and all(.type == "trial") and
		(map(.cell) | unique == ["control", "env:A=1", "tz:UTC0"])' "$T/f.jsonl" >/dev/null
	jq -s -e 'map(select(.cell == "control") | .trial) == [1, 2, 3]' "$T/f.jsonl" >/dev/null
	# paired: trial k has the same seed in every cell
	jq -s -e 'group_by(.trial) | all(map(.seed) | unique | length == 1)' "$T/f.jsonl" >/dev/null
}

@test "rt-matrix: --order on a command without a list is UNAVAILABLE" {
	run rt-matrix -n 2 --order reverse --cmd true
	status_is 0
	echo "$output" | jqe '.probe | startswith("UNAVAILABLE: the command takes no list")'
	echo "$output" | jqe '.perturbed == null and .difference == null'
	echo "$output" | jqe '.implicated == null and .changed == null and .effect == null'
	echo "$output" | jqe '.control.trials == 2'
	run rt-matrix -n 2 --order reverse --cmd true -- same same
	echo "$output" | jqe '.probe | startswith("UNAVAILABLE: reversing leaves the list")'
}

@test "rt-matrix: --no-network without unshare is UNAVAILABLE" {
	mkdir "$T/bin"
	ln -s "$(command -v sh)" "$T/bin/sh"
	PATH="$T/bin" run "$RT_TOP/bin/rt-matrix" -n 2 --no-network --cmd true
	status_is 0
	echo "$output" | jqe '.probe | startswith("UNAVAILABLE: unshare -rn true")'
	echo "$output" | jqe '.perturbed == null and .changed == null'
}

@test "rt-matrix: a variable the control already has, or an unknown zone, is UNAVAILABLE" {
	FOO=bar run rt-matrix -n 2 --env FOO=bar --cmd true
	status_is 0
	echo "$output" | jqe '.probe == "UNAVAILABLE: the control already runs with FOO=bar"'
	unset TZ
	run rt-matrix -n 2 --tz No/Such_Zone --cmd true
	status_is 0
	echo "$output" | jqe '.probe | startswith("UNAVAILABLE: TZ=No/Such_Zone")'
}

@test "rt-matrix: a locale that is not installed is UNAVAILABLE" {
	command -v locale >/dev/null || skip "no locale(1)"
	run rt-matrix -n 2 --locale xx_NO.NOPE --cmd true
	status_is 0
	echo "$output" | jqe '.probe | startswith("UNAVAILABLE: locale xx_NO.NOPE is not installed")'
}

# --- faults ---

@test "rt-matrix: a control with no valid trial exits 2" {
	run rt-matrix -n 2 --env A=1 --cmd 'exit 127'
	status_is 2
	has "no valid trial"
	printf '%s\n' "$output" | grep '^{' | jqe '.perturbed == null and .control.errors == 2 and .changed == null'
}

@test "rt-matrix: SIGTERM writes the finished cells and an interrupted last record" {
	rt-matrix -n 2 --env A=1 --slow 60000 --facts "$T/f.jsonl" --cmd true \
		>"$T/out" 2>"$T/err" &
	pid=$!
	for _ in $(seq 200); do
		[ -s "$T/out" ] && break
		sleep 0.05
	done
	kill -TERM "$pid"
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq 143 ]
	[ "$(wc -l <"$T/out")" -eq 2 ]
	jq -s -e '.[0].cell == "env:A=1" and .[0].interrupted == false and .[0].perturbed.trials == 2' \
		"$T/out" >/dev/null
	jq -s -e '.[1].cell == "slow:60000" and .[1].interrupted == true and .[1].changed == null' \
		"$T/out" >/dev/null
	jq -s -e 'length == 4' "$T/f.jsonl" >/dev/null
}

@test "rt-matrix: write errors exit 2" {
	run sh -c 'rt-matrix -n 2 --env A=1 --cmd true >/dev/full'
	status_is 2
	run rt-matrix -n 2 --env A=1 --facts "$T/no/such/dir/f.jsonl" --cmd true
	status_is 2
	has "$T/no/such/dir/f.jsonl"
}

# --- --pin-seed: rerun a runner's printed seed ---

@test "rt-matrix: --pin-seed names bad runners and seeds" {
	run rt-matrix --pin-seed nose=1 --cmd true
	status_is 2
	has "--pin-seed nose=1: unknown runner nose"
	run rt-matrix --pin-seed pytest-random-order=12x --cmd true
	status_is 2
	has "the seed must be digits"
	run rt-matrix --pin-seed pytest-random-order --cmd true
	status_is 2
	has "must be RUNNER=N"
	run rt-matrix --pin-seed hypothesis=-5 --cmd true
	status_is 2
	run rt-matrix --pin-seed go-shuffle=7 --pin-seed go-shuffle=7 --cmd true
	status_is 2
	has "given twice"
}

@test "rt-matrix: a --pin-seed the command would override is refused, never probed ok" {
	run rt-matrix -n 2 --pin-seed pytest-random-order=7 --cmd 'python3 -m pytest -q --random-order-seed=$RETRIAL_SEED'
	status_is 2
	has 'rt-matrix: --pin-seed pytest-random-order=7: the command'"'"'s own "--random-order-seed=$RETRIAL_SEED" would override the pin: take it out of the command'
	run rt-matrix -n 2 --pin-seed pytest-random-order=7 -- python3 -m pytest -p no:random_order tests
	status_is 2
	has '"-p no:random_order" would override the pin'
	run rt-matrix -n 2 --pin-seed PYTHONHASHSEED=3 --cmd 'PYTHONHASHSEED=0 python3 t.py'
	status_is 2
	has '"PYTHONHASHSEED=0" would override'
	run rt-matrix -n 2 --pin-seed go-shuffle=5 --cmd 'go test -shuffle=on ./...'
	status_is 2
	has '"-shuffle=on" would override'
	run rt-matrix -n 2 --pin-seed pytest-randomly=5 --cmd 'PYTEST_ADDOPTS=-q pytest'
	status_is 2
	has '"PYTEST_ADDOPTS=-q" would override'
	# another runner's seed option is no conflict
	run rt-matrix -n 1 --pin-seed PYTHONHASHSEED=3 --cmd 'true --random-order-seed=1'
	status_is 0
}

@test "rt-matrix: --pin-seed sets the runner's variable, probed like --env" {
	PYTEST_ADDOPTS=-x run rt-matrix -n 1 --seed 3 --facts "$T/f.jsonl" \
	    --pin-seed pytest-randomly=42 --pin-seed go-shuffle=-9 --pin-seed PYTHONHASHSEED=0 \
	    -- sh -c 'echo "$PYTEST_ADDOPTS|$GOFLAGS|$PYTHONHASHSEED"'
	status_is 0
	echo "$output" | jq -s -e '.[0].cell == "seed:pytest-randomly=42" and .[0].probe == "ok" and
	    .[0].perturbation == {runner: "pytest-randomly", seed: "42", PYTEST_ADDOPTS: "-x -p randomly --randomly-seed=42"} and
	    .[1].perturbation.GOFLAGS == "-shuffle=-9" and .[2].perturbation.PYTHONHASHSEED == "0"' >/dev/null
	jqe -s 'map(select(.cell == "seed:pytest-randomly=42"))[0].stdout == "-x -p randomly --randomly-seed=42||\n"' "$T/f.jsonl"
	jqe -s 'map(select(.cell == "seed:go-shuffle=-9"))[0].stdout == "-x|-shuffle=-9|\n"' "$T/f.jsonl"
	jqe -s 'map(select(.cell == "seed:PYTHONHASHSEED=0"))[0].stdout == "-x||0\n"' "$T/f.jsonl"
}

@test "rt-matrix: the seed fact's rt-matrix run reproduces a pytest-random-order failure" {
	cp -R "$BATS_TEST_DIRNAME/fixtures/evidence/pytest-order" "$T/py"
	cd "$T/py"
	rt-collect -n 12 --seed 1 -- /usr/bin/python3 -m pytest -p random_order --random-order . >"$T/py.jsonl"
	rt-diff-facts "$T/py.jsonl" | jq -c '.facts[] | select(.kind == "seed")' >"$T/seed"
	fail_seed=$(jq -r '.failing[0]' "$T/seed")
	pass_seed=$(jq -r '.passing[0]' "$T/seed")
	reproduce=$(jq -r .reproduce "$T/seed")
	[ "$reproduce" = "rt-matrix -n 20 --pin-seed pytest-random-order=$fail_seed --cmd '/usr/bin/python3 -m pytest -p random_order --random-order .'" ]
	# as printed, with fewer trials, and a passing seed beside it
	eval "$reproduce -n 3 --seed 1 --pin-seed pytest-random-order=$pass_seed --facts $T/m.jsonl" >"$T/out"
	jqe -s --arg s "$fail_seed" '.[0].cell == "seed:pytest-random-order=\($s)" and .[0].probe == "ok" and .[0].perturbed.failures == 3 and .[0].perturbed.trials == 3' "$T/out"
	jqe -s '.[1].perturbed.failures == 0 and .[1].perturbed.trials == 3' "$T/out"
	# every pinned trial ran with that seed, and failed the same way
	jqe -s --arg s "$fail_seed" 'map(select(.cell == "seed:pytest-random-order=\($s)")) | length == 3 and all(.stdout | contains("Using --random-order-seed=\($s)\n") and contains("test_empty_at_start - AssertionError"))' "$T/m.jsonl"
}
