#!/usr/bin/env bats
# rt-bisect: polluters, state-setters and cleaners of order-dependent tests.
load helper

F="$RT_TOP/t/fixtures/bisect"
STUB="$F/stub.sh"
PYTEST="/usr/bin/python3 -m pytest -q -p no:cacheprovider -p no:random_order"
export PYTHONDONTWRITEBYTECODE=1
# no pytest plugin is autoloaded: the probes run real pytest with its
# ordering plugins off anyway, and loading the others (pytest-rerunfailures
# imports pkg_resources) took a fifth of every trial's CPU; no test here
# asks for a plugin
export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1

# Every claim in the record $1 is backed by a "confirm" probe of its own
# order with the right decision, and the victim alone by the "alone" probe.
claims_confirmed() {
	jqe '
	  . as $r | ($r.victim) as $v
	  | [ $r.probes[] | select(.role == "confirm") ] as $c
	  | def has($o; $d): any($c[]; .order == $o and .decision == $d);
	  ($r.probes[0].role == "alone")
	  and ([ $r.polluter_sets[] | has(. + [$v]; "fail") ] | all)
	  and ([ $r.setter_sets[] | has(. + [$v]; "pass") ] | all)
	  and ([ $r.cleaners | to_entries[] | (.key | split(" + ")) as $p
	         | .value[] | has($p + [.] + [$v]; "pass") ] | all)
	  and (if ($r.polluters | length) > 0 then $r.probes[0].decision == "pass" else true end)
	  and (if ($r.setters | length) > 0 then $r.probes[0].decision == "fail" else true end)
	  and ($r.trials == ([ $r.probes[].trials + (.errors // 0) + (.ignored // 0) ] | add))' "$1"
}

# --- usage and exit codes ---

@test "rt-bisect: --help prints the synopsis and exits 0" {
	run rt-bisect --help
	status_is 0
	has "usage: rt-bisect -v ID"
	has "--max-trials"
	has "{}"
}

@test "rt-bisect: --version" {
	run rt-bisect --version
	status_is 0
	has "rt-bisect (retrial)"
}

@test "rt-bisect: the victim, the candidates and the command are required" {
	seq -f 't%02g' 1 5 > "$T/list"
	run rt-bisect -f "$T/list" -- "$STUB" t01 t05 {}
	status_is 2
	has "no victim"
	run rt-bisect -v t05 -- "$STUB" t01 t05 {}
	status_is 2
	has "no candidates"
	run rt-bisect -v t05 -f "$T/list" --collect 'cat list' -- "$STUB" t01 t05 {}
	status_is 2
	has "exclusive"
	run rt-bisect -v t05 -f "$T/list"
	status_is 2
	has "no command"
	run rt-bisect -v t05 -f "$T/list" --threshold 0.7 -- "$STUB" t01 t05 {}
	status_is 2
	has "--threshold 0.7"
	echo t05 > "$T/only"
	run rt-bisect -v t05 -f "$T/only" -- "$STUB" t01 t05 {}
	status_is 2
	has "no candidate tests besides the victim"
}

# --- the engine, on a stand-in runner ---

@test "rt-bisect: one polluter among 100, found in few probes and confirmed by its pair" {
	seq -f 't%03g' 1 100 > "$T/list"
	run rt-bisect -v t050 -f "$T/list" -o "$T/rec" -- "$STUB" t037 t050 {}
	status_is 0
	jqe '.type == "order" and .category == "victim" and .polluters == ["t037"]
	    and .polluter_sets == [["t037"]] and .setters == [] and .cleaners == {"t037": []}
	    and .candidates == 99 and .interrupted == false' "$T/rec"
	claims_confirmed "$T/rec"
	# the full order fails, the victim alone passes, each reliably
	jqe '.probes[1].role == "full" and .probes[1].decision == "fail"
	    and .probes[1].failures == .probes[1].trials' "$T/rec"
	# deterministic probes decide in a few trials; the search in few probes
	jqe '[.probes[] | select(.role == "search") | .trials] | max <= 3' "$T/rec"
	jqe '[.probes[] | select(.role == "search")] | length < 20' "$T/rec"
}

@test "rt-bisect: --linear probes every pair and finds the same polluter with more probes" {
	seq -f 't%03g' 1 100 > "$T/list"
	rt-bisect -v t050 -f "$T/list" -- "$STUB" t037 t050 {} > "$T/bin"
	rt-bisect --linear -v t050 -f "$T/list" -- "$STUB" t037 t050 {} > "$T/lin"
	jqe '.polluters == ["t037"]' "$T/lin"
	claims_confirmed "$T/lin"
	b=$(jq '.probes | length' "$T/bin")
	l=$(jq '.probes | length' "$T/lin")
	[ "$l" -gt $((b * 3)) ]
}

@test "rt-bisect: --cmd gets the IDs as positional parameters, never as shell text" {
	printf '%s\n' 't1' '$(touch pwned)' 't3;touch pwned2' 'victim' > "$T/list"
	cd "$T"
	run rt-bisect -v victim -f "$T/list" --cmd "$STUB 't3;touch pwned2' victim \"\$@\""
	status_is 0
	[ ! -e pwned ] && [ ! -e pwned2 ]
	echo "$output" > rec
	jqe '.polluters == ["t3;touch pwned2"] and .category == "victim"' rec
	claims_confirmed rec
}

@test "rt-bisect: a cleaner between the polluter and the victim is found and confirmed" {
	# fails iff p ran before v with no c between them
	cat > "$T/runner" <<-'EOS'
	#!/bin/sh
	for id do
		case $id in p) dirty=1 ;; c) dirty= ;; v) exit ${dirty:-0} ;; esac
	done
	EOS
	chmod +x "$T/runner"
	printf '%s\n' c a p b d v > "$T/list"
	run rt-bisect -v v -f "$T/list" -- "$T/runner" {}
	status_is 0
	echo "$output" > "$T/rec"
	jqe '.category == "victim" and .polluters == ["p"] and .cleaners == {"p": ["c"]}' "$T/rec"
	claims_confirmed "$T/rec"
}

@test "rt-bisect: a brittle test: the state-setter, confirmed, and no cleaner search" {
	cat > "$T/runner" <<-'EOS'
	#!/bin/sh
	for id do
		case $id in s) set=1 ;; v) [ -n "$set" ] && exit 0; exit 1 ;; esac
	done
	EOS
	chmod +x "$T/runner"
	seq -f 't%02g' 1 30 | sed 's/^t22$/s/' > "$T/list"
	run rt-bisect -v v -f "$T/list" -- "$T/runner" {}
	status_is 0
	echo "$output" > "$T/rec"
	jqe '.category == "brittle" and .setters == ["s"] and .setter_sets == [["s"]]
	    and .polluters == [] and .cleaners == {} and .probes[0].decision == "fail"
	    and .probes[1].decision == "pass"' "$T/rec"
	claims_confirmed "$T/rec"
}

@test "rt-bisect: a noisy polluter: the full order fails often, probes are extended, p is found" {
	# after p the victim fails on 7 seeds in 10
	cat > "$T/runner" <<-'EOS'
	#!/bin/sh
	for id do
		case $id in
		p) dirty=1 ;;
		v) [ -n "$dirty" ] && [ $((RETRIAL_SEED % 10)) -lt 7 ] && exit 1; exit 0 ;;
		esac
	done
	EOS
	chmod +x "$T/runner"
	seq -f 't%02g' 1 20 | sed 's/^t07$/p/' > "$T/list"
	run rt-bisect -v v -f "$T/list" --seed 3 --no-cleaners -- "$T/runner" {}
	status_is 0
	echo "$output" > "$T/rec"
	jqe '.category == "victim" and .polluters == ["p"] and .probes[1].decision == "mixed"
	    and any(.notes[]; test("noisy"))' "$T/rec"
	claims_confirmed "$T/rec"
	# some probe needed more trials than a clear one, and mixed outcomes
	jqe 'any(.probes[2:][]; .failures > 0 and .failures < .trials)' "$T/rec"
}

@test "rt-bisect: a confirmation that contradicts the search is inconclusive, not a claim" {
	# "p v" fails the first two times it runs, then never again
	cat > "$T/runner" <<-EOS
	#!/bin/sh
	if [ "\$*" = "p v" ]; then
		echo x >> "$T/pairs"
		[ \$(wc -l < "$T/pairs") -le 2 ] && exit 1
		exit 0
	fi
	for id do
		case \$id in p) dirty=1 ;; v) exit \${dirty:-0} ;; esac
	done
	EOS
	chmod +x "$T/runner"
	printf '%s\n' a p b v > "$T/list"
	run rt-bisect -v v -f "$T/list" --no-cleaners -- "$T/runner" {}
	status_is 0
	echo "$output" > "$T/rec"
	jqe '.category == "victim" and .polluters == [] and .polluter_sets == []
	    and .inconclusive[0].claim == "polluter" and .inconclusive[0].tests == ["p"]
	    and .probes[.inconclusive[0].probe].role == "confirm"
	    and .probes[.inconclusive[0].probe].decision == "pass"' "$T/rec"
}

@test "rt-bisect: --first stops at the first polluter; the default finds them all" {
	cat > "$T/runner" <<-'EOS'
	#!/bin/sh
	for id do
		case $id in p1|p2) dirty=1 ;; v) exit ${dirty:-0} ;; esac
	done
	EOS
	chmod +x "$T/runner"
	seq -f 't%02g' 1 20 | sed 's/^t05$/p1/; s/^t15$/p2/' > "$T/list"
	rt-bisect -v v -f "$T/list" --no-cleaners -- "$T/runner" {} > "$T/all"
	jqe '.polluters == ["p1", "p2"] and .cleaners == {}' "$T/all"
	claims_confirmed "$T/all"
	rt-bisect -v v -f "$T/list" --first --no-cleaners -- "$T/runner" {} > "$T/first"
	jqe '(.polluters | length) == 1 and any(.notes[]; test("--first"))' "$T/first"
}

@test "rt-bisect: the budget bounds the search and nothing unconfirmed is claimed" {
	seq -f 't%03g' 1 100 > "$T/list"
	run rt-bisect -v t050 -f "$T/list" --max-trials 40 -- "$STUB" t037 t050 {}
	status_is 0
	echo "$output" > "$T/rec"
	jqe '.budget_exhausted == true and .trials <= 40 and .polluters == []
	    and any(.notes[]; test("budget of 40 trials"))' "$T/rec"
}

@test "rt-bisect: no order dependence is said, and nothing is claimed" {
	seq -f 't%02g' 1 10 > "$T/list"
	run rt-bisect -v t05 -f "$T/list" -- "$STUB" nobody t05 {}
	status_is 0
	echo "$output" > "$T/rec"
	jqe '.category == "unknown" and .polluters == [] and .setters == []
	    and any(.notes[]; test("no order dependence shown"))
	    and ([.probes[].role] == ["alone", "full"])' "$T/rec"
}

@test "rt-bisect: --collect reads one ID a line and skips the summary" {
	printf '%s\n' a b p v > "$T/ids"
	cat > "$T/collect" <<-EOS
	#!/bin/sh
	cat "$T/ids"
	echo
	echo "4 tests collected in 0.01s"
	EOS
	chmod +x "$T/collect"
	run rt-bisect -v v --collect "$T/collect" -- "$STUB" p v {}
	status_is 0
	echo "$output" > "$T/rec"
	jqe '.candidates == 3 and .polluters == ["p"]' "$T/rec"
	run rt-bisect -v v --collect false -- "$STUB" p v {}
	status_is 2
	has "--collect: the command failed"
	# what a failing collect command said is shown
	run rt-bisect -v v --collect "echo 'no module named conftest' >&2; exit 1" -- "$STUB" p v {}
	status_is 2
	has "--collect: the command failed (exit 1); it said:"
	has "  no module named conftest"
	# pytest's collection error goes to stdout: shown when stderr is empty
	cd "$F/broken"
	run rt-bisect -v v --collect "$PYTEST --collect-only tests/test_gone.py" -- $PYTEST {}
	status_is 2
	has "pytest exit 4 (usage error)"
	has "  ERROR: file or directory not found: tests/test_gone.py"
}

@test "rt-bisect: --records takes the cases before the victim in a failing run" {
	{
	for c in a p v b; do
		echo '{"type":"trial","trial":1,"run":1,"case":"'$c'","outcome":"pass","position":'$(echo "a p v b" | tr ' ' '\n' | grep -n "^$c\$" | cut -d: -f1)'}'
	done
	for c in p b a v; do
		o=pass; [ $c = v ] && o=fail
		echo '{"type":"trial","trial":2,"run":2,"case":"'$c'","outcome":"'$o'","position":'$(echo "p b a v" | tr ' ' '\n' | grep -n "^$c\$" | cut -d: -f1)'}'
	done
	} > "$T/cases.jsonl"
	run rt-bisect -v v --records "$T/cases.jsonl" -- "$STUB" p v {}
	status_is 0
	echo "$output" > "$T/rec"
	jqe '.candidates == 3 and .probes[1].order == ["p", "b", "a", "v"] and .polluters == ["p"]' "$T/rec"
	run rt-bisect -v nobody --records "$T/cases.jsonl" -- "$STUB" p v {}
	status_is 2
	has "no case record for the victim nobody"
}

@test "rt-bisect: SIGINT stops it with exit 130 and a partial record" {
	printf '%s\n' a b v > "$T/list"
	cat > "$T/slow" <<-EOS
	#!/bin/sh
	touch "$T/started"
	exec sleep 30
	EOS
	chmod +x "$T/slow"
	rt-bisect -v v -f "$T/list" -- "$T/slow" {} > "$T/rec" &
	pid=$!
	while [ ! -e "$T/started" ]; do sleep 0.1; done
	kill -INT "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 130 ]
	jqe '.interrupted == true and .category == "unknown" and .probes[0].decision == "stopped"' "$T/rec"
}

@test "rt-bisect: --text names the polluter with its probe's counts and interval" {
	seq -f 't%03g' 1 20 > "$T/list"
	run rt-bisect --text -v t010 -f "$T/list" -- "$STUB" t004 t010 {}
	status_is 0
	has "t010: victim (alone: 0/"
	has "polluter: t004 (then the victim: "
	has "failed (≥"
	has "at 95% confidence, anytime))"
}

@test "rt-bisect: no candidate is left out silently: -f keeps every line but comments, --collect names each line it skips" {
	printf '%s\n' t01 ' t02 indented' '=t03' '# a comment' '1 plus 1 is 2' t06 '' \
	    '-t07' t08 '#t09' '10 tests collected in 0.01s' '--x=1' t12 t13 t14 > "$T/list"
	run rt-bisect -v t14 -f "$T/list" -o "$T/rec" -- "$STUB" t08 t14 {}
	status_is 0
	# the three shapes the collect filter used to drop from a list are candidates
	jqe '.candidates == 9 and .polluters == ["t08"]' "$T/rec"
	jqe 'any(.probes[]; .role == "full" and (.order | index(" t02 indented") and index("=t03")
	    and index("1 plus 1 is 2") and index("10 tests collected in 0.01s")))' "$T/rec"
	has "rt-bisect: $T/list: -t07: left out: it starts with '-', so the runner would take it as an option"
	has "rt-bisect: $T/list: --x=1: left out:"
	jqe '[.dropped[].id] == ["-t07", "--x=1"] and ([.dropped[].source] | unique) == ["'"$T/list"'"]' "$T/rec"
	# --collect: every skipped line is named with its line and reason, but the summary
	printf '#!/bin/sh\ncat "%s"\n' "$T/list" > "$T/collect"
	chmod +x "$T/collect"
	run rt-bisect -v t14 --collect "$T/collect" -o "$T/rec" --text -- "$STUB" t08 t14 {}
	status_is 0
	has "rt-bisect: --collect:2:  t02 indented: left out: indented: runner output, not an ID"
	has "rt-bisect: --collect:3: =t03: left out: it starts with '=': a runner's section rule"
	has "rt-bisect: --collect:4: # a comment: left out: it starts with '#': a comment"
	has "rt-bisect: --collect:5: 1 plus 1 is 2: left out: a count and words"
	has "rt-bisect: --collect: -t07: left out: it starts with '-'"
	has "left out: --x=1 (it starts with '-'"
	hasnt "10 tests collected in 0.01s: left out"
	jqe '.candidates == 5 and (.dropped | length) == 7 and ([.dropped[] | select(.line) | .line] == [2, 3, 4, 5, 10])' "$T/rec"
	# --before: what follows the victim is in the record, counted on stderr
	printf '%s\n' a p v b c > "$T/list2"
	run rt-bisect -v v --before -f "$T/list2" -o "$T/rec" -- "$STUB" p v {}
	status_is 0
	has "--before: 2 candidates listed after the victim left out"
	jqe '[.dropped[].id] == ["b", "c"] and .dropped[0].reason == "listed after the victim (--before)"' "$T/rec"
}

@test "rt-bisect: a victim that starts with '-' is refused unless the command has its own --" {
	printf '%s\n' a p > "$T/list"
	run rt-bisect -v --basetemp=x -f "$T/list" -- "$STUB" p v {}
	status_is 2
	has "rt-bisect: -v --basetemp=x: it starts with '-', so the runner would take it as an option"
	run rt-bisect -v -v -f "$T/list" --cmd "$STUB"' p -v "$@"'
	status_is 2
	has "rt-bisect: -v -v: it starts with '-'"
	# with the command's own -- before {}, the stub sees it as an operand
	printf '#!/bin/sh\n[ "$1" = -- ] || exit 9\nshift\nexec "%s" p -v "$@"\n' "$STUB" > "$T/runner"
	chmod +x "$T/runner"
	run rt-bisect -v -v -f "$T/list" -o "$T/rec" -- "$T/runner" -- {}
	status_is 0
	jqe '.polluters == ["p"] and .dropped == []' "$T/rec"
}

# --- real projects: pytest and unittest ---

@test "rt-bisect: pytest, a 40-test class: the one polluter of the shared registry" {
	cd "$F/registry"
	run rt-bisect --threshold 0.3 --seed 1 -o "$T/rec" \
	    -v tests/test_registry.py::TestRegistry::test_default_names \
	    --collect "$PYTEST --collect-only" -- $PYTEST {}
	status_is 0
	p=tests/test_registry.py::TestRegistry::test_register_csv
	jqe --arg p "$p" '.category == "victim" and .candidates == 39
	    and .polluters == [$p] and .polluter_sets == [[$p]]
	    and .setters == [] and .cleaners == {($p): []}' "$T/rec"
	claims_confirmed "$T/rec"
}

@test "rt-bisect: pytest, a brittle test and the state-setter that fills its dict" {
	cd "$F/settings"
	run rt-bisect --threshold 0.3 --seed 1 -o "$T/rec" \
	    -v tests/test_config.py::test_connection_url \
	    --collect "$PYTEST --collect-only" -- $PYTEST {}
	status_is 0
	s=tests/test_config.py::test_load_settings
	jqe --arg s "$s" '.category == "brittle" and .setters == [$s]
	    and .setter_sets == [[$s]] and .polluters == [] and .cleaners == {}' "$T/rec"
	claims_confirmed "$T/rec"
}

@test "rt-bisect: unittest, a polluter of a module cache and the test that cleans it" {
	cd "$F/pricing"
	run rt-bisect --threshold 0.3 --seed 1 -o "$T/rec" \
	    -v tests.test_cache.PriceCacheTest.test_list_price -f tests.txt \
	    -- /usr/bin/python3 -m unittest {}
	status_is 0
	t=tests.test_cache.PriceCacheTest
	jqe --arg p "$t.test_discount_price" --arg c "$t.test_clear_empties" '
	    .category == "victim" and .polluters == [$p] and .cleaners == {($p): [$c]}' "$T/rec"
	claims_confirmed "$T/rec"
}

@test "rt-bisect: pytest, two polluters that must both run first: a minimal set of 2" {
	cd "$F/flags"
	run rt-bisect --threshold 0.3 --seed 1 --no-cleaners -o "$T/rec" \
	    -v tests/test_flags.py::test_legacy_banner \
	    --collect "$PYTEST --collect-only" -- $PYTEST {}
	status_is 0
	a=tests/test_flags.py::test_enable_beta
	b=tests/test_flags.py::test_strict_mode
	jqe --arg a "$a" --arg b "$b" '.category == "victim"
	    and .polluter_sets == [[$a, $b]] and .polluters == [$a, $b]' "$T/rec"
	claims_confirmed "$T/rec"
	# neither alone pollutes: ddmin probed each without the other
	jqe --arg a "$a" --arg b "$b" --arg v "$(jq -r .victim "$T/rec")" '
	    any(.probes[]; .order == [$a, $v] and .decision == "pass")
	    and any(.probes[]; .order == [$b, $v] and .decision == "pass")' "$T/rec"
}

@test "rt-bisect: pytest, a test flaky on its own is NOD and no polluter is claimed" {
	cd "$F/nod"
	# 20 trials a probe show it both passing and failing, alone and after
	# the others (10/20 and 13/20 at seed 1), as well as the default 60
	run rt-bisect -n 20 --threshold 0.3 --seed 1 -o "$T/rec" \
	    -v tests/test_sample.py::test_sample_is_small \
	    --collect "$PYTEST --collect-only" -- $PYTEST {}
	status_is 0
	jqe '.category == "nod" and .polluters == [] and .setters == [] and .cleaners == {}
	    and .probes[0].decision == "mixed" and .probes[0].failures > 0
	    and .probes[0].failures < .probes[0].trials' "$T/rec"
}

@test "rt-bisect: pytest, a JUnit case named --basetemp=DIR is refused, and DIR keeps its file" {
	# the attacker's shape: a case record whose name is a pytest option
	# that empties DIR (pytest removes --basetemp when a test asks tmp_path)
	mkdir "$T/keep"
	echo precious > "$T/keep/file"
	cd "$F/tmpfiles"
	e=tests/test_export.py
	i=0
	for c in $e::test_write_report "--basetemp=$T/keep" $e::test_switch_to_csv \
	    $e::test_row_count $e::test_export_is_json; do
		i=$((i + 1)); o=pass
		[ $i = 5 ] && o=fail
		jq -cn --arg c "$c" --arg o "$o" --argjson i $i \
		    '{type: "trial", trial: 1, run: "n1", case: $c, outcome: $o, position: $i, source: "junit"}'
	done > "$T/cases.jsonl"
	run rt-bisect --threshold 0.3 --seed 1 --no-cleaners -o "$T/rec" \
	    -v $e::test_export_is_json --records "$T/cases.jsonl" -- $PYTEST {}
	status_is 0
	has "rt-bisect: $T/cases.jsonl: --basetemp=$T/keep: left out: it starts with '-', so the runner would take it as an option"
	[ "$(cat "$T/keep/file")" = precious ]
	jqe --arg p $e::test_switch_to_csv --arg d "--basetemp=$T/keep" '
	    .category == "victim" and .polluters == [$p] and .candidates == 3
	    and .dropped[0].id == $d and (.dropped[0].reason | startswith("it starts with"))
	    and ([.probes[].order[] | select(startswith("-"))] == [])' "$T/rec"
	# after the command's own --, pytest takes it as a path it cannot find
	printf '%s\n' $e::test_write_report "--basetemp=$T/keep" $e::test_export_is_json > "$T/ids"
	run rt-bisect --threshold 0.3 --seed 1 --error-codes 4 -v $e::test_export_is_json \
	    -f "$T/ids" -- $PYTEST -- {}
	status_is 2
	has "file or directory not found: --basetemp=$T/keep"
	hasnt "left out"
	[ "$(cat "$T/keep/file")" = precious ]
	[ -z "$(find "$F/tmpfiles" -name __pycache__)" ]
}

@test "rt-bisect: --text shows the escape sequences in test IDs, never sends them" {
	p=$(printf 'p\033]0;pwned\007\033[2J\302\2332J')
	printf '%s\n' a "$p" b v > "$T/list"
	rt-bisect --text -v v -f "$T/list" -- "$STUB" "$p" v {} > "$T/out"
	if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$T/out" || grep -q "$(printf '\302\233')" "$T/out"; then
		od -c "$T/out" | head >&2; return 1
	fi
	grep -qF 'polluter: p␛]0;pwned␇␛[2J\u009b2J (then the victim: ' "$T/out"
	[ -z "$(grep -F 'left out' "$T/out")" ]
}

@test "rt-bisect: pytest, tests that fail on their own next to the real polluter: only the polluter is named" {
	cd "$F/broken"
	c=tests/test_cart.py::TestCart
	run rt-bisect --threshold 0.3 --seed 1 --no-cleaners -o "$T/rec" \
	    -v $c::test_total_is_sum --collect "$PYTEST --collect-only" -- $PYTEST {}
	status_is 0
	jqe --arg p $c::test_add_coupon '.category == "victim" and .polluters == [$p]
	    and .polluter_sets == [[$p]] and .setters == []' "$T/rec"
	claims_confirmed "$T/rec"
	# collect's warnings summary (FILE:LINE, the warning, "-- Docs:") is
	# no test: each line named, none a candidate
	jqe '.candidates == 6 and ([.dropped[].id] | index("tests/test_cart.py:8"))
	    and ([.probes[].order[] | select(contains("::") | not)] == [])
	    and any(.dropped[]; .id == "tests/test_cart.py:8" and .line == 10
	        and (.reason | test("not a collected test")))' "$T/rec"
	has "rt-bisect: --collect:10: tests/test_cart.py:8: left out:"
	# the tests that fail alone failed in probes, were recorded, and the
	# victim's own outcome judged those probes
	jqe --arg r $c::test_tax_rate --arg t $c::test_tax_table '
	    (.probes[1].others_failed | sort) == [$r, $t]
	    and any(.probes[]; (.others_failed | index($r)) and .decision == "pass")' "$T/rec"
}

@test "rt-bisect: pytest, a victim the runner never reports did not run: an error, never a failure" {
	cd "$F/broken"
	c=tests/test_cart.py::TestCart
	printf '%s\n' $c::test_add_coupon $c::test_names > "$T/ids"
	run rt-bisect --seed 1 -v $c::test_gone -f "$T/ids" \
	    --cmd "$PYTEST tests/test_cart.py"
	status_is 2
	has "case $c::test_gone did not run in trial 1 (the runner reported 7 cases)"
}

@test "rt-bisect: an undecided probe is never read as a pass: its tests are inconclusive, nothing else is claimed" {
	# after p the victim fails on half the seeds; probes of 25 trials
	# cannot always tell that from the victim alone
	cat > "$T/runner" <<-'EOS'
	#!/bin/sh
	for id do
		case $id in
		p) dirty=1 ;;
		v) [ -n "$dirty" ] && [ $((RETRIAL_SEED % 10)) -lt 5 ] && exit 1; exit 0 ;;
		esac
	done
	EOS
	chmod +x "$T/runner"
	seq -f 't%02g' 1 8 | sed 's/^t03$/p/' > "$T/list"
	for seed in 3 4; do
		run rt-bisect -v v -f "$T/list" --seed $seed --threshold 0.3 --no-cleaners \
		    -n 25 -- "$T/runner" {}
		status_is 0
		echo "$output" > "$T/rec"
		# nothing but p could ever be claimed; here the probe holding p
		# stayed undecided, so p is inconclusive and no set is claimed
		jqe '.category == "victim" and .polluters == [] and .polluter_sets == []
		    and (.inconclusive | length) == 1
		    and (.inconclusive[0].tests | index("p"))
		    and (.inconclusive[0].reason | test("undecided"))
		    and .probes[.inconclusive[0].probe].decision == "undecided"' "$T/rec"
	done
	run rt-bisect -v v -f "$T/list" --seed 4 --threshold 0.3 --no-cleaners -n 25 --text \
	    -- "$T/runner" {}
	has "inconclusive (polluter): t01 t02 p t04: the probe of these tests stayed undecided"
}

@test "rt-bisect: pytest, a victim failing 2% alone and 60% after its polluter is a victim, with that polluter" {
	cd "$F/noisy"
	p=tests/test_rates.py::test_warm_cache
	run rt-bisect --threshold 0.3 --seed 2 --no-cleaners -o "$T/rec" \
	    -v tests/test_rates.py::test_convert_rate --collect "$PYTEST --collect-only" -- $PYTEST {}
	status_is 0
	jqe --arg p $p '.category == "victim" and .polluters == [$p]
	    and .probes[0].decision == "mixed" and .probes[0].failures > 0
	    and .probes[0].trials == 60 and .probes[1].trials == 60
	    and any(.notes[]; test("noisy on its own"))
	    and any(.probes[]; .role == "confirm" and .order == [$p, "tests/test_rates.py::test_convert_rate"]
	        and .decision == "fail")' "$T/rec"
}

@test "rt-bisect: --records with an older rt-junit's dotted names: mapped to pytest node IDs, the real polluter found, a deleted test named and left out" {
	# records/old.jsonl: an older rt-junit's records of two real pytest
	# runs of broken/ (run1.xml, run2.xml) with a test file since deleted,
	# tests/test_basket.py; case is JUnit's "classname::name"
	cd "$F/broken"
	c=tests/test_cart.py::TestCart
	run rt-bisect --threshold 0.3 --seed 1 --no-cleaners -o "$T/rec" \
	    -v tests.test_cart.TestCart::test_total_is_sum --records "$F/records/old.jsonl" -- $PYTEST {}
	status_is 0
	jqe --arg p $c::test_add_coupon --arg v $c::test_total_is_sum '
	    .category == "victim" and .victim == $v and .polluters == [$p]
	    and .candidates == 6 and ([.probes[].order[] | select(startswith("tests/test_cart.py::") | not)] == [])
	    and all(.probes[]; (.errors // 0) == 0)' "$T/rec"
	claims_confirmed "$T/rec"
	# the run where the victim failed (run1), its cases before the victim
	jqe --arg c $c '.probes[1].order == ([
	    "test_item_count", "test_add_coupon", "test_tax_rate", "test_names",
	    "test_tax_table", "test_prices", "test_total_is_sum"] | map($c + "::" + .))' "$T/rec"
	# the deleted test is named, where it was read and why, and never run
	has "rt-bisect: $F/records/old.jsonl:8: tests.test_basket.TestBasket::test_old_total: left out: pytest cannot select it: tests/test_basket.py is not a file in the tree"
	jqe '.dropped == [{"id": "tests.test_basket.TestBasket::test_old_total",
	    "source": "'"$F/records/old.jsonl"'", "line": 8,
	    "reason": "pytest cannot select it: tests/test_basket.py is not a file in the tree (tests.test_basket.TestBasket::test_old_total reads as tests/test_basket.py::TestBasket::test_old_total)"}]
	    and any(.notes[]; test("6 names mapped to the IDs pytest selects"))' "$T/rec"
}

@test "rt-bisect: --records: a dialect's junit_classname/junit_name, today's rt-junit records and a canonical victim select the same tests" {
	cd "$F/broken"
	c=tests/test_cart.py::TestCart
	# a dialect whose case is a display name: the raw JUnit names map
	jq -c '(.case | split("::")) as $s | .junit_classname = $s[0] | .junit_name = $s[1]
	    | .case = "\($s[1]) (\($s[0]))"' "$F/records/old.jsonl" > "$T/dialect.jsonl"
	# today's rt-junit, on the real report: node IDs, the deleted file's too
	rt-junit "$F/records/run2.xml" "$F/records/run1.xml" > "$T/new.jsonl"
	for r in "$T/dialect.jsonl" "$T/new.jsonl"; do
		run rt-bisect --threshold 0.3 --seed 1 --no-cleaners -o "$T/rec" \
		    -v $c::test_total_is_sum --records "$r" -- $PYTEST {}
		status_is 0
		jqe --arg p $c::test_add_coupon '.polluters == [$p] and .candidates == 6
		    and (.dropped | length) == 1 and (.dropped[0].reason | test("tests/test_basket.py is not a file"))' "$T/rec"
		has "left out: pytest cannot select it"
	done
	# a victim no test in the tree is: an error naming it, no probe run
	run rt-bisect -v tests.test_basket.TestBasket::test_old_total --records "$F/records/old.jsonl" -- $PYTEST {}
	status_is 2
	has "rt-bisect: -v tests.test_basket.TestBasket::test_old_total: pytest cannot select it: tests/test_basket.py is not a file in the tree"
}

@test "rt-bisect: the plan: expected probes and trials from the search's own numbers, never the --max-trials cap" {
	seq -f 't%03g' 1 100 > "$T/list"
	for o in "" --linear; do
		# shellcheck disable=SC2086
		rt-bisect $o --max-trials 100000 -v t050 -f "$T/list" -- "$STUB" t037 t050 {} > "$T/rec"
		# deterministic probes: the plan is what the search then spends
		jqe '.plan.trials < 100000 and .plan.showing == 2 and .plan.not_showing == 2
		    and (.plan.probes - (.probes | length) | fabs) <= 2
		    and (.plan.trials - .trials | fabs) <= 8' "$T/rec"
	done
	jqe '.plan.probes == 103 and .plan.trials == .trials' "$T/rec"
	# a plan never passes the cap
	rt-bisect --max-trials 120 -v t050 -f "$T/list" -- "$STUB" t037 t050 {} > "$T/rec"
	jqe '.plan.trials == 120' "$T/rec"
}

@test "rt-bisect: progress on a terminal counts to the plan: its total is the record's plan, not the cap" {
	command -v script >/dev/null || skip "script(1) not installed"
	seq -f 't%03g' 1 100 > "$T/list"
	RETRIAL_NO_TTY= script -qec "rt-bisect --max-trials 100000 -v t050 -f '$T/list' -o '$T/rec' -- '$STUB' t037 t050 {} >/dev/null" "$T/typescript" >/dev/null
	tr '\r' '\n' < "$T/typescript" | grep -o '[0-9]*/[0-9]* trials' > "$T/totals"
	plan=$(jq .plan.trials "$T/rec")
	[ "$plan" -lt 1000 ]
	# the first line already counts to the plan, and so does the last
	[ "$(head -1 "$T/totals")" = "1/$plan trials" ]
	[ "$(tail -1 "$T/totals" | cut -d/ -f2)" = "$plan trials" ]
	! grep -q '/100000 trials' "$T/totals"
	grep -q 'ETA' "$T/typescript"
}

@test "rt-bisect: the Go example of rt-bisect(1) on real go test: a bare test name is its package's case, and the polluter is found" {
	command -v go >/dev/null || skip "go not installed"
	mkdir -p "$T/g/store" && cd "$T/g"
	export GOCACHE="$BATS_RUN_TMPDIR/gocache" GOFLAGS=-mod=mod GOPATH="$T/gopath"
	printf 'module example.com/g\n\ngo 1.19\n' >go.mod
	printf 'package store\n\nvar Cache = map[string]int{}\n' >store/store.go
	cat >store/store_test.go <<'GO'
package store

import "testing"

func TestFill(t *testing.T) { Cache["a"] = 1 }

func TestOther(t *testing.T) {}

func TestCacheEmpty(t *testing.T) {
	if len(Cache) != 0 {
		t.Fatal("cache not empty")
	}
}
GO
	# the page's commands, as it gives them
	go test -list . ./store | grep '^Test' > tests.txt
	run rt-bisect -v TestCacheEmpty -f tests.txt \
	    --cmd 'IFS="|"; go test -count=1 -shuffle=off -run "^($*)$" ./store'
	status_is 0
	echo "$output" | grep '^{' | tail -n 1 | jqe '.victim == "TestCacheEmpty" and .polluters == ["TestFill"]'
}

@test "rt-bisect (go test): a probe whose real order differs from the one asked for is an error, never evidence" {
	command -v go >/dev/null || skip "go not installed"
	cp -R "$RT_TOP/t/fixtures/fix/goshuffle" "$T/g" && cd "$T/g"
	export GOCACHE="$BATS_RUN_TMPDIR/gocache" GOFLAGS=-mod=mod GOPROXY=off GOPATH="$T/gopath"
	# a go that runs the driver's subtests in reverse (once per driver)
	mkdir "$T/fake"
	real=$(command -v go)
	cat >"$T/fake/go" <<SH
#!/bin/sh
f=zz_retrial_order_test.go
if [ "\$1" = test ] && [ -f \$f ] && ! grep -q reversed \$f; then
	{ grep -v 't.Run(' \$f | sed '\$d'; grep 't.Run(' \$f | sed -n '1!G;h;\$p'; echo '}'; echo '// reversed'; } >\$f.new && mv \$f.new \$f
fi
exec "$real" "\$@"
SH
	chmod +x "$T/fake/go"
	printf '%s\n' TestSmallBurst TestShortWindow TestDefaultRate >tests.txt
	PATH="$T/fake:$PATH" run rt-bisect -n 20 --threshold 0.3 -v TestDefaultRate -f tests.txt \
	    --cmd 'IFS="|"; go test -count=1 -run "^($*)$" .'
	status_is 2
	has 'the runner ran ["TestDefaultRate","TestShortWindow","TestSmallBurst"], not the order asked for ["TestSmallBurst","TestShortWindow","TestDefaultRate"]'
	# the real go: the polluters after the victim in the source are found
	run rt-bisect -n 20 --threshold 0.3 -v TestDefaultRate -f tests.txt -o "$T/rec" \
	    --cmd 'IFS="|"; go test -count=1 -run "^($*)$" .'
	status_is 0
	jqe '.polluters == ["TestSmallBurst", "TestShortWindow"] and .probes[1].ran ==
	    ["TestSmallBurst", "TestShortWindow", "TestDefaultRate"]' "$T/rec"
	[ ! -e zz_retrial_order_test.go ]
}

@test "rt-bisect (go test): a candidate in another package is left out, and a victim no package declares is an error" {
	command -v go >/dev/null || skip "go not installed"
	cp -R "$RT_TOP/t/fixtures/fix/goshuffle" "$T/g" && cd "$T/g"
	export GOCACHE="$BATS_RUN_TMPDIR/gocache" GOFLAGS=-mod=mod GOPROXY=off GOPATH="$T/gopath"
	printf '%s\n' example.invalid/other::TestX example.invalid/ratelimit::TestSmallBurst >tests.txt
	run rt-bisect -n 20 --threshold 0.3 -v example.invalid/ratelimit::TestDefaultRate -f tests.txt -o "$T/rec" \
	    --cmd 'IFS="|"; go test -count=1 -run "^($(echo "$*" | sed "s#[^|]*::##g"))\$" .'
	status_is 0
	has "go test runs each package in its own process"
	jqe '.polluters == ["example.invalid/ratelimit::TestSmallBurst"]' "$T/rec"
	run rt-bisect -v TestGone -f tests.txt --cmd 'go test -run "$1" .'
	status_is 2
	has "no _test.go file of the packages under the command's directory declares func TestGone(*testing.T)"
}

# --- rspec: ordered runs through a driver spec file ---

# a project whose polluter (b_setter_spec.rb) rspec defines after its
# victim (a_flag_spec.rb), the victim's own group holding an innocent
# example, under .rspec's --order rand
rspec_order_proj() {
	command -v rspec >/dev/null 2>&1 || skip "no rspec: apt-get install ruby-rspec"
	mkdir -p "$T/rb/spec" && cd "$T/rb"
	printf -- '--order rand\n' >.rspec
	cat >spec/a_flag_spec.rb <<'RB'
RSpec.describe "Flag" do
  it "is off at first" do
    expect($retrial_flag).to be_nil
  end

  it "reads the default" do
    expect(1 + 1).to eq(2)
  end
end
RB
	cat >spec/b_setter_spec.rb <<'RB'
RSpec.describe "Setter" do
  it "adds" do
    expect(2 + 2).to eq(4)
  end

  it "turns the flag on" do
    $retrial_flag = true
  end
end
RB
	cat >spec/c_other_spec.rb <<'RB'
RSpec.describe "Other" do
  it "counts" do
    expect([1, 2].size).to eq(2)
  end
end
RB
	printf '%s\n' 'spec/a_flag_spec.rb::Flag reads the default' 'spec/b_setter_spec.rb::Setter adds' \
	    'spec/b_setter_spec.rb::Setter turns the flag on' 'spec/c_other_spec.rb::Other counts' >tests.txt
}

@test "rt-bisect (rspec): each probe runs its examples in its order, across and within groups; the polluter defined after the victim is found" {
	rspec_order_proj
	run rt-bisect -n 10 --threshold 0.4 -v 'spec/a_flag_spec.rb::Flag is off at first' -f tests.txt \
	    -o "$T/rec" -- rspec {}
	status_is 0
	has "rspec runs a group's examples together: each probe ran"
	jqe '.polluters == ["spec/b_setter_spec.rb::Setter turns the flag on"]' "$T/rec"
	# every probe ran exactly its order: the full one puts an example of
	# the victim's group first and the victim after two other groups
	jqe '[.probes[] | .ran == .order] | all' "$T/rec"
	jqe '.probes[] | select(.role == "full") | .ran == ["spec/a_flag_spec.rb::Flag reads the default",
	    "spec/b_setter_spec.rb::Setter adds", "spec/b_setter_spec.rb::Setter turns the flag on",
	    "spec/c_other_spec.rb::Other counts", "spec/a_flag_spec.rb::Flag is off at first"] and .failures == .trials' "$T/rec"
	claims_confirmed "$T/rec"
	# the driver's directory is gone; the project holds nothing new
	! ls "$TMPDIR"/rt-rspecorder.* 2>/dev/null
	[ "$(ls -A spec)" = "$(printf 'a_flag_spec.rb\nb_setter_spec.rb\nc_other_spec.rb')" ]
}

@test "rt-bisect (rspec): a probe whose real order differs from the one asked for is an error, never evidence" {
	rspec_order_proj
	# an rspec that runs the driver's examples in reverse
	mkdir "$T/fake"
	real=$(command -v rspec)
	cat >"$T/fake/rspec" <<SH
#!/bin/sh
d=\$(mktemp -d "$T/rev.XXXXXX")
cp "\$1" "\$d/" && jq -c reverse "\$(dirname "\$1")/order.json" >"\$d/order.json"
f="\$d/\$(basename "\$1")"
shift
exec "$real" "\$f" "\$@"
SH
	chmod +x "$T/fake/rspec"
	PATH="$T/fake:$PATH" run rt-bisect -n 10 --threshold 0.4 -v 'spec/a_flag_spec.rb::Flag is off at first' \
	    -f tests.txt -- rspec {}
	status_is 2
	has 'the runner ran ["spec/a_flag_spec.rb::Flag is off at first"'
	has 'not the order asked for'
	# a candidate that is no FILE::name in the tree is left out by name
	printf '%s\n' 'spec/gone_spec.rb::Gone x' 'spec/b_setter_spec.rb::Setter turns the flag on' >two.txt
	run rt-bisect -n 10 --threshold 0.4 -v 'spec/a_flag_spec.rb::Flag is off at first' -f two.txt \
	    -o "$T/rec" -- rspec {}
	status_is 0
	jqe '.polluters == ["spec/b_setter_spec.rb::Setter turns the flag on"]' "$T/rec"
	jqe '.dropped | any(.id == "spec/gone_spec.rb::Gone x")' "$T/rec"
}
