#!/usr/bin/env bats
# rt-quarantine: the list (owners, expiry, the older formats), CODEOWNERS,
# the gate over real pytest reports, the pytest plugin, release on proof,
# and five simulated nights of one flaky test from quarantine to release.
load helper

PY=/usr/bin/python3
export PYTHONPATH="$RT_TOP/share/retrial"

# a real pytest project: tests/test_flaky.py::test_flaky fails while the
# file "seed" says flaky (on a night, and in a measured trial unless
# RETRIAL_TRIAL is a multiple of 10), and passes once it says fixed
project() {
	mkdir -p "$1/tests" "$1/.github"
	cat >"$1/tests/test_flaky.py" <<'EOF'
import os

def test_flaky():
    mode = open(os.path.join(os.path.dirname(__file__), "..", "seed")).read().strip()
    trial = int(os.environ.get("RETRIAL_TRIAL", "1"))
    assert mode == "fixed" or trial % 10 == 0, "the cache raced"

def test_steady():
    pass
EOF
	cat >"$1/tests/test_other.py" <<'EOF'
import os

def test_other():
    assert not os.path.exists(os.path.join(os.path.dirname(__file__), "..", "break"))
EOF
	printf '* @lead\n/tests/ @qa\ntests/test_flaky.py @cache-team\n' >"$1/.github/CODEOWNERS"
	echo flaky >"$1/seed"
}

# The loopback GitHub (t/fake-github.py) in MODE, its requests logged in
# gh.log; GITHUB_API_URL points at it. The token it expects is $TOKEN.
TOKEN=ghs_quarantineTOKEN0123456789
start_gh() {
	rm -f "$T/gh.port"
	FAKE_GITHUB_TOKEN="$TOKEN" python3 "$RT_TOP/t/fake-github.py" --log "$T/gh.log" \
	    --mode "$1" ${2:+--seed-issues "$2"} >"$T/gh.port" 2>"$T/gh.err" 3>&- &
	echo $! >"$T/gh.pid"
	for _ in $(seq 200); do [ -s "$T/gh.port" ] && break; sleep 0.05; done
	export GITHUB_API_URL="http://127.0.0.1:$(head -1 "$T/gh.port")"
	touch "$T/gh.log"
}
stop_gh() {
	if [ -f "$T/gh.pid" ]; then kill "$(cat "$T/gh.pid")" 2>/dev/null || true; rm -f "$T/gh.pid"; fi
}
teardown() {
	stop_gh
}
# requests in gh.log matching a jq filter, counted
gh_count() {
	jq -s "[.[] | select($1)] | length" "$T/gh.log"
}

# the marker an entry's issue (KIND quarantine) or release comment carries:
# mark KIND ID [ID as written, "-->" as "--&gt;"]
mark() {
	printf '<!-- retrial-%s: sha256:%s %s -->' "$1" "$(printf %s "$2" | sha256sum | cut -c1-64)" "${3:-$2}"
}

pytest_run() {
	(cd "$1" && "$PY" -m pytest -q -p retrial_quarantine \
	    --junitxml="$2" tests)
}

@test "add by hand: owner from CODEOWNERS (last match wins), since, expires, reason in rt_say's words, rate" {
	project "$T/p"
	cd "$T/p"
	run rt-quarantine add tests/test_flaky.py::test_flaky --rate 12/40 --issue https://example.com/i/7
	status_is 0
	has "added: tests/test_flaky.py::test_flaky"
	today=$(date -u +%F)
	exp=$(date -u -d '+30 days' +%F)
	line=$(grep -v '^#' .retrial/quarantine)
	[ "$line" = "$(printf 'tests/test_flaky.py::test_flaky\towner=@cache-team\tsince=%s\texpires=%s\tissue=https://example.com/i/7\treason=12/40 failed (30.0%%, 95%% Wilson CI 18.0%%–45.5%%)\trate=12/40' "$today" "$exp")" ]
	rt-quarantine add tests/test_other.py::test_other --expires 7d
	grep -q "^tests/test_other.py::test_other	owner=@qa	" .retrial/quarantine
	rt-quarantine add lib/x.py::t --expires 2030-01-31
	grep -q "^lib/x.py::t	owner=@lead	since=$today	expires=2030-01-31	reason=quarantined by hand$" .retrial/quarantine
	run rt-quarantine list --json
	status_is 0
	echo "$output" | head -1 | jqe '.type == "quarantine" and .case == "tests/test_flaky.py::test_flaky"
	    and .owner == "@cache-team" and .days_left == 30 and .rate.failures == 12
	    and .rate.trials == 40 and .issue == "https://example.com/i/7"'
	run rt-quarantine list
	has "owner @qa, since $today, expires $(date -u -d '+7 days' +%F) (7 days left)"
	# a second add keeps the entry as it is
	run rt-quarantine add tests/test_flaky.py::test_flaky --owner @someone
	has "listed already: tests/test_flaky.py::test_flaky"
	grep -q 'owner=@cache-team' .retrial/quarantine
	[ "$(grep -c test_flaky .retrial/quarantine)" -eq 1 ]
}

@test "add --expires before today: exit 2 naming the date, the list untouched; list with no list: one line on stderr, nothing on stdout" {
	cd "$T"
	run rt-quarantine -f q add a.py::t --expires 2020-01-31
	status_is 2
	has "rt-quarantine: --expires 2020-01-31: is before today ($(date -u +%F))"
	[ ! -e q ]
	rt-quarantine -f q list >out 2>err
	[ ! -s out ]
	[ "$(cat err)" = "rt-quarantine: q: no test is quarantined" ]
	rt-quarantine -f q list --json >out 2>err
	[ ! -s out ] && [ ! -s err ]
}

@test "CODEOWNERS: gitignore globs, directories, docs/* one level, the last rule wins; a syntax error names its line" {
	cd "$T"
	printf '*.py @py\n/src/ @src\nsrc/**/deep/ @deep\ndocs/* @docs\nsrc/a?.py @q\n' >CO
	own() { rt-quarantine -f "l$1" add "$2::t" --codeowners CO >/dev/null 2>&1; grep -v '^#' "l$1" | sed -n 's/.*owner=\([^	]*\).*/\1/p'; }
	[ "$(own 1 x/y.py)" = "@py" ]
	[ "$(own 2 src/m/n.py)" = "@src" ]
	[ "$(own 3 src/p/deep/q.py)" = "@deep" ]
	[ "$(own 4 docs/a.md)" = "@docs" ]
	[ "$(own 5 docs/sub/a.md)" = "" ]
	[ "$(own 6 src/ab.py)" = "@q" ]
	[ "$(own 7 other/abc.txt)" = "" ]
	printf '# ok\n*.py @py\nsrc/ not-an-owner\n' >CO
	run rt-quarantine -f l8 add a.py::t --codeowners CO
	status_is 2
	has "rt-quarantine: CO:3: not-an-owner: not an owner"
	[ ! -e l8 ]
	printf '!src/ @x\n' >CO
	run rt-quarantine -f l8 add a.py::t --codeowners CO
	status_is 2
	has "CO:1: !src/: negation"
}

@test "the list: today's rt-pr lines and older 'NAME LINK' lines read; a malformed line exits 2 naming file:line and nothing is rewritten" {
	cd "$T"
	printf '# rt-pr wrote this\ntests/test_a.py::test_x\t# dossier: .retrial/dossiers/x.md\nold_name http://ci/1\n\nweb/cart.test.js::cart > adds up\n' >q
	run rt-quarantine -f q list --json
	status_is 0
	echo "$output" | jq -s -e '[.[].case] == ["tests/test_a.py::test_x", "old_name http://ci/1",
	    "web/cart.test.js::cart > adds up"] and .[0].comment == "# dossier: .retrial/dossiers/x.md"'
	cp q before
	rt-quarantine -f q add new::t --owner @me
	# every line kept byte for byte, the new one appended
	[ "$(head -5 q)" = "$(cat before)" ]
	tail -1 q | grep -q "^new::t	owner=@me	"
	# an entry with fields gets them filled, its comment kept
	rt-quarantine -f q add tests/test_a.py::test_x --owner @o
	grep -q "^tests/test_a.py::test_x	owner=@o	since=.*	# dossier: .retrial/dossiers/x.md$" q
	printf 'a::b\towner=@x\nc::d\towner\n' >bad
	cp bad bad.orig
	for verb in "add e::f --owner @y" "list" "check" "release a::b"; do
		run rt-quarantine -f bad $verb
		status_is 2
		has "rt-quarantine: bad:2: field \"owner\" is not NAME=VALUE"
		cmp bad bad.orig
	done
	printf 'a::b\texpires=31/12/2026\n' >bad2
	run rt-quarantine -f bad2 list
	status_is 2
	has "bad2:1: expires=31/12/2026: not a date (YYYY-MM-DD)"
	printf 'a::b\towner=@x\towner=@y\n' >bad3
	run rt-quarantine -f bad3 check
	status_is 2
	has "bad3:1: owner= given twice"
}

@test "concurrent adds from many jobs lose no entry" {
	cd "$T"
	for i in $(seq 1 16); do
		rt-quarantine -f q add "tests/test_$i.py::test_job $i" --owner @ci >/dev/null &
	done
	wait
	[ "$(grep -c '^tests/test_' q)" -eq 16 ]
	for i in $(seq 1 16); do grep -q "^tests/test_$i.py::test_job $i	" q; done
	# the lock is the list's own: no lock or temporary file is left
	[ -z "$(ls -A | grep -e '^q\.lock$' -e '^q\.tmp')" ]
	# a release by name of a test on no list leaves no list behind
	run rt-quarantine -f none release a::b
	status_is 2
	[ ! -e none ]
}

@test "check: an expired entry and a missing owner warn; exit 1 only with --gate" {
	cd "$T"
	today=$(date -u +%F)
	printf 'old::t\towner=@a\tsince=2020-01-01\texpires=2020-01-31\nnew::t\towner=@b\tsince=%s\texpires=2099-01-01\n' "$today" >q
	run rt-quarantine -f q check
	status_is 0
	has "rt-quarantine: q:1: old::t: expired on 2020-01-31"
	has "2 quarantined: 1 expired, 0 without owner"
	run rt-quarantine -f q check --gate
	status_is 1
	printf 'new::t\towner=@b\tsince=%s\texpires=2099-01-01\n' "$today" >q
	run rt-quarantine -f q check --gate
	status_is 0
	printf 'x::y\tsince=%s\texpires=2099-01-01\n' "$today" >>q
	run rt-quarantine -f q check --gate
	status_is 1
	has "q:2: x::y: no owner (owner=)"
	run rt-quarantine -f q list --json
	echo "$output" | head -1 | jqe '.days_left > 20000'
}

@test "a jest-style name with blanks is quarantined whole, gated from a jest-junit report, released by name" {
	cd "$T"
	J="$RT_TOP/t/fixtures/junit/jest-junit.xml"
	id='cart applies discount'
	rt-quarantine -f q add "$id" --owner @web
	grep -q "^$id	owner=@web	" q
	# the other failure is not on the list
	run rt-quarantine -f q gate "$J"
	status_is 1
	has "quarantined, failed: $id"
	has "failed: server throws on bad input"
	hasnt "failed: cart sums prices"
	rt-quarantine -f q add 'server throws on bad input' --owner @api
	run rt-quarantine -f q gate "$J"
	status_is 0
	has "gate: pass: 0 failed outside the quarantine; 2 quarantined failed, 0 passed"
	# the same ID in an older list's line with no TAB
	printf 'cart applies discount\n' >old
	run rt-quarantine -f old gate "$J"
	status_is 1
	has "quarantined, failed: $id"
	run rt-quarantine -f q release "$id"
	status_is 0
	has "released: $id"
	! grep -q "^$id" q
	grep -q '^server throws on bad input' q
	run rt-quarantine -f q release "$id"
	status_is 2
	has "not on q"
}

@test "gate: exit 1 only for a failure not on the list; go test -json read through the same layer; --records" {
	cd "$T"
	printf 'example.com/m::TestRace\towner=@go\n' >q
	cat >go.json <<'EOF'
{"Action":"run","Package":"example.com/m","Test":"TestRace"}
{"Action":"fail","Package":"example.com/m","Test":"TestRace","Elapsed":0.01}
{"Action":"run","Package":"example.com/m","Test":"TestOK"}
{"Action":"pass","Package":"example.com/m","Test":"TestOK","Elapsed":0.01}
{"Action":"fail","Package":"example.com/m","Elapsed":0.02}
EOF
	run rt-quarantine -f q gate --records rec.jsonl go.json
	status_is 0
	has "quarantined, failed: example.com/m::TestRace"
	has "gate: pass: 0 failed outside the quarantine; 1 quarantined failed, 0 passed"
	jq -s -e 'length == 1 and .[0].type == "trial" and .[0].case == "example.com/m::TestRace"
	    and .[0].outcome == "fail" and .[0].lane == "quarantine"' rec.jsonl
	sed 's/TestOK","Elapsed/TestOK","X/; s/"pass","Package":"example.com\/m","Test":"TestOK"/"fail","Package":"example.com\/m","Test":"TestOK"/' go.json >go2.json
	run rt-quarantine -f q gate go2.json
	status_is 1
	has "failed: example.com/m::TestOK"
	run rt-quarantine -f q gate missing.xml
	status_is 2
	run rt-quarantine -f q gate
	status_is 2
}

@test "the pytest plugin: a quarantined test runs, is in the JUnit report, and does not fail the session" {
	project "$T/p"
	cd "$T/p"
	run pytest_run . r0.xml
	status_is 1
	rt-quarantine add tests/test_flaky.py::test_flaky --reason "12/40 failed" --rate 12/40
	run pytest_run . r1.xml
	status_is 0
	has "1 xfailed"
	grep -q 'name="test_flaky".*<skipped type="pytest.xfail" message="retrial quarantine: 12/40 failed"' r1.xml
	echo fixed >seed
	run pytest_run . r2.xml
	status_is 0
	# a pass is a pass, with the real outcome beside it
	grep -q 'name="test_flaky" time="[0-9.]*"><properties><property name="retrial_quarantine_id" value="tests/test_flaky.py::test_flaky" */><property name="retrial_quarantined" value="passed" */></properties></testcase>' r2.xml
	# the list named by RETRIAL_QUARANTINE; a malformed one stops the session
	printf 'tests/test_other.py::test_other\towner\n' >../other
	touch break
	RETRIAL_QUARANTINE=../other run pytest_run . r3.xml
	[ "$status" -ne 0 ]
	has "other:1: field 'owner' is not NAME=VALUE"
	printf 'tests/test_other.py::test_other\towner=@x\n' >../other
	RETRIAL_QUARANTINE=../other run pytest_run . r3.xml
	status_is 0
}

# a real pytest project in a package: tests/shop/test_cart.py's
# test_cache_race fails on every third trial (RETRIAL_TRIAL), so its counts
# are exact; test_reorder_level in the next module fails on its own
shop() {
	mkdir -p "$1/tests/shop"
	: >"$1/tests/__init__.py"
	: >"$1/tests/shop/__init__.py"
	cat >"$1/tests/shop/test_cart.py" <<'EOF'
import os


def trial():
    return int(os.environ.get("RETRIAL_TRIAL", "1"))


def test_total():
    assert 2 + 2 == 4


def test_cache_race():
    assert trial() % 3 != 0, "the cache raced"


def test_discount():
    assert round(10 * 0.9, 2) == 9.0
EOF
	cat >"$1/tests/shop/test_stock.py" <<'EOF'
def test_stock_count():
    assert len([1, 2, 3]) == 3


def test_reorder_level():
    assert 5 < 3, "reorder level wrong"
EOF
}

@test "the plugin and --case agree: a quarantined flake is measured by the failures its xfail hides; the gate still passes it" {
	shop "$T/s"
	cd "$T/s"
	id=tests/shop/test_cart.py::test_cache_race
	rt-quarantine add "$id" --owner @cache --reason "10/30 failed"
	run rt-collect -n 30 -o trials.jsonl --case "$id" \
	    --cmd "$PY -m pytest -q -p retrial_quarantine tests"
	status_is 0
	run rt-measure --text trials.jsonl
	status_is 0
	[ "$output" = "FLAKY: 10/30 failed (33.3%, 95% Wilson CI 19.2%–51.3%)" ]
	run rt-measure -n 9 --text --case "$id" \
	    --cmd "$PY -m pytest -q -p retrial_quarantine tests"
	status_is 0
	has "FLAKY: 3/9 failed"
	# the report of a failing trial: xfail for pytest, a failure for retrial
	RETRIAL_TRIAL=3 run "$PY" -m pytest -q -p retrial_quarantine --junitxml=r3.xml tests
	status_is 1
	has "1 failed, 3 passed, 1 xfailed"
	rt-junit r3.xml >r3.jsonl
	jqe -s --arg id "$id" '[.[] | select(.case == $id)] | length == 1 and .[0].outcome == "fail"
	    and .[0].result == "xfail" and .[0].quarantined == $id' r3.jsonl
	jqe -s '[.[] | select(.outcome == "fail")] | map(.case) | sort ==
	    ["tests/shop/test_cart.py::test_cache_race", "tests/shop/test_stock.py::test_reorder_level"]' r3.jsonl
	# the gate: the quarantined failure never fails the job, the other does
	run rt-quarantine gate --records q3.jsonl r3.xml
	status_is 1
	has "quarantined, failed: $id"
	has "failed: tests/shop/test_stock.py::test_reorder_level"
	has "gate: FAIL: 1 failed outside the quarantine; 1 quarantined failed, 0 passed"
	jqe -s --arg id "$id" 'length == 1 and .[0].case == $id and .[0].outcome == "fail"' q3.jsonl
	RETRIAL_TRIAL=4 "$PY" -m pytest -q -p retrial_quarantine --junitxml=r4.xml tests || true
	run rt-quarantine gate r4.xml
	status_is 1
	has "quarantined, passed: $id"
}

@test "the plugin under a subdirectory's rootdir: the list at the repository's top, the IDs from there; the gate from the top agrees" {
	mkdir -p "$T/mono/svc"
	cd "$T/mono"
	git init -q .
	shop svc
	printf '[pytest]\ntestpaths = tests\n' >svc/pytest.ini
	rt-quarantine add svc/tests/shop/test_cart.py::test_cache_race --owner @cache
	rt-quarantine add svc/tests/shop/test_stock.py::test_reorder_level --owner @stock
	cd svc
	RETRIAL_TRIAL=3 run "$PY" -m pytest -p retrial_quarantine --junitxml=../r.xml
	status_is 0
	has "rootdir: $T/mono/svc"
	has "retrial quarantine: 2 tests listed"
	has "3 passed, 2 xfailed"
	hasnt "warning"
	cd ..
	grep -q '<property name="retrial_quarantine_id" value="svc/tests/shop/test_cart.py::test_cache_race" */><property name="retrial_quarantined" value="failed" */>' r.xml
	run rt-quarantine gate r.xml
	status_is 0
	has "quarantined, failed: svc/tests/shop/test_cart.py::test_cache_race"
	has "quarantined, failed: svc/tests/shop/test_stock.py::test_reorder_level"
	has "gate: pass: 0 failed outside the quarantine; 2 quarantined failed, 0 passed"
	# an ID from the rootdir is not the repository's: nothing is quarantined
	printf 'tests/shop/test_stock.py::test_reorder_level\towner=@stock\n' >.retrial/quarantine
	cd svc
	run "$PY" -m pytest -q -p retrial_quarantine
	status_is 1
	has "1 failed, 4 passed"
}

@test "the plugin with no list: one warning line, and the session runs as without it" {
	shop "$T/w"
	cd "$T/w"
	git init -q .
	run "$PY" -m pytest -q -p retrial_quarantine tests
	status_is 1
	has "1 failed, 4 passed"
	[ "$(printf '%s\n' "$output" | grep -c 'warning')" -eq 1 ]
	printf '%s\n' "$output" | grep -qxF "retrial quarantine: warning: no quarantine list (.retrial/quarantine in $T/w, or \$RETRIAL_QUARANTINE): nothing is quarantined"
	# under a subdirectory's rootdir it says where it looked
	mkdir sub && mv tests sub/ && printf '[pytest]\n' >sub/pytest.ini
	cd sub
	run "$PY" -m pytest -q -p retrial_quarantine tests
	status_is 1
	[ "$(printf '%s\n' "$output" | grep -c 'retrial quarantine: warning: ')" -eq 1 ]
	has ".retrial/quarantine in $T/w/sub or a directory above it up to $T/w, or"
}

@test "release --history: an anytime bound over the runs since the listing, below the level; a failure is counted, never a restart" {
	cd "$T"
	today=$(date -u +%F)
	printf 'a::t\towner=@a\tsince=%s\texpires=2099-01-01\trate=9/10\nb::t\towner=@b\tsince=%s\n' "$today" "$today" >q
	nights() { # nights FIRST LAST OUTCOME: one run each, one import
		for i in $(seq "$1" "$2"); do
			printf '{"type":"trial","case":"a::t","outcome":"%s","run":"night-%s","timestamp":"%sT01:00:00"}\n' \
			    "$3" "$i" "$today"
		done | rt-audit -H db --json /dev/null >/dev/null
	}
	nights 0 0 fail
	run rt-quarantine -f q release --history db --level 0.3
	status_is 0
	has "kept: a::t: 1/1 failed since $today: ≤100.0% at 95% confidence, checked every night; not below 30.0% ("
	has "kept: b::t: no runs since $today; 14 clean runs in a row show it below 30.0% at 95% confidence"
	more=$(printf '%s\n' "$output" | sed -n 's/^kept: a::t: .*(\([0-9]*\) more clean runs* at least)$/\1/p')
	[ "$more" -gt 2 ]
	nights 1 $((more - 1)) pass
	run rt-quarantine -f q release --history db --level 0.3
	has "kept: a::t: 1/$more failed since $today"
	has "(1 more clean run at least)"
	grep -q '^a::t' q
	# the default level is the one quarantine is for, 10%: not yet
	nights "$more" "$more" pass
	run rt-quarantine -f q release --history db
	has "kept: a::t: 1/$((more + 1)) failed since $today"
	has "not below 10.0%"
	grep -q '^a::t' q
	run rt-quarantine -f q release --history db --level 0.3
	status_is 0
	line="a::t: 1/$((more + 1)) failed since $today: ≤"
	has "released: $line"
	has "at 95% confidence, checked every night; below the 30.0% level quarantine was for"
	! grep -q '^a::t' q
	grep -q '^b::t' q
	# a failure after a clean streak stays in the count: 2 failures need more
	printf 'a::t\towner=@a\tsince=%s\n' "$today" >>q
	nights $((more + 1)) $((more + 1)) fail
	run rt-quarantine -f q release --history db --level 0.3
	has "kept: a::t: 2/$((more + 2)) failed since $today"
	run rt-quarantine -f q release --history db --level 1
	status_is 2
	has "--level 1: must be between 0 and 1"
	run rt-quarantine -f q list --level 0.3
	status_is 2
	has "--level is for release, not list"
}

@test "five nights: flaky, quarantined with its CODEOWNERS owner, runs without failing the suite, measured, fixed, released on the night of proof" {
	project "$T/p"
	cd "$T/p"
	id=tests/test_flaky.py::test_flaky
	nightly() { # nightly N: the suite, its gate, its records into the history
		run pytest_run . "$T/night$1.xml"
		suite=$status
		run rt-quarantine gate --records "$T/q$1.jsonl" "$T/night$1.xml"
		gate=$status
		gate_out=$output
		{ rt-junit "$T/night$1.xml"; cat "$T/q$1.jsonl"; } |
		    rt-audit -H "$T/audit.db" --json "$T/d$1.json" >/dev/null
	}
	# night 1: it goes flaky; nothing is quarantined, so the suite fails
	nightly 1
	[ "$suite" -eq 1 ] && [ "$gate" -eq 1 ]
	[[ "$gate_out" == *"failed: $id"* ]]
	# the morning after: measured, then quarantined with its evidence
	rt-measure -n 20 -o "$T/m.json" -- "$PY" -m pytest -q "$id" >/dev/null
	k=$(jq .failures "$T/m.json") n=$(jq .trials "$T/m.json")
	[ "$k/$n" = 18/20 ]
	# ... with an issue on the loopback GitHub (120 issues there already,
	# so the search for its marker reads two pages)
	start_gh ok 120
	export GITHUB_TOKEN="$TOKEN"
	# the releases below find the repository as a GitHub Actions job has it
	export GITHUB_REPOSITORY=acme/cache
	run rt-quarantine add "$id" --rate "$k/$n" --github acme/cache
	status_is 0
	has "added: $id"
	has "issue: #121 https://github.example/acme/cache/issues/121 (opened)"
	grep -q "^$id	owner=@cache-team	.*	issue=https://github.example/acme/cache/issues/121	reason=18/20 failed (90.0%, 95% Wilson CI 69.8%–97.3%)	rate=18/20$" .retrial/quarantine
	[ "$(gh_count '.method == "POST" and .path == "/repos/acme/cache/issues"')" -eq 1 ]
	[ "$(gh_count '.method == "GET" and .path == "/repos/acme/cache/issues" and .query.state == "open" and .query.per_page == "100"')" -eq 2 ]
	jq -s -e --arg id "$id" --arg mk "$(mark quarantine "$id")" '[.[] | select(.method == "POST")][0] | .auth == "ok" and .status == 201
	    and .body.title == "Quarantined flaky test: \($id)"
	    and (.body.body | contains("\n\($mk)\n")
	        and contains("18/20 failed (90.0%, 95% Wilson CI 69.8%–97.3%)")
	        and contains("@cache-team") and contains("rt-measure -n 20 -- python3 -m pytest -q")
	        and contains("**expires:** 20"))' "$T/gh.log"
	# a rerun opens none; with the entry's issue gone from the list, it is
	# found by its marker, not opened again
	run rt-quarantine add "$id" --rate "$k/$n" --github acme/cache
	status_is 0
	has "listed already: $id"
	sed -i 's|	issue=[^	]*||' .retrial/quarantine
	run rt-quarantine add "$id" --rate "$k/$n" --github acme/cache
	has "issue: #121 https://github.example/acme/cache/issues/121 (open already, found by its marker)"
	grep -q "	issue=https://github.example/acme/cache/issues/121	" .retrial/quarantine
	[ "$(gh_count '.method == "POST"')" -eq 1 ]
	# the proof: its runs since the listing below a level at 90% confidence;
	# 90% here, for five nights (the default 10% takes 50 or more clean
	# nights: bench/release)
	# night 2: still failing, but quarantined: it runs, the suite passes
	nightly 2
	[ "$suite" -eq 0 ] && [ "$gate" -eq 0 ]
	[[ "$gate_out" == *"quarantined, failed: $id"* ]]
	# its rate is still measured: the history has its failure tonight
	[ "$(sqlite3 "$T/audit.db" "SELECT sum(failed), count(failed) FROM results WHERE case_id = '$id'")" = "2|2" ]
	requests=$(gh_count true)
	run rt-quarantine release --history "$T/audit.db" --confidence 0.9 --level 0.9
	has "kept: $id: 2/2 failed since $(date -u +%F): ≤100.0% at 90% confidence"
	# nights 3, 4: fixed; not yet proven
	echo fixed >seed
	for i in 3 4; do
		nightly $i
		[ "$suite" -eq 0 ] && [ "$gate" -eq 0 ]
		[[ "$gate_out" == *"quarantined, passed: $id"* ]]
		run rt-quarantine release --history "$T/audit.db" --confidence 0.9 --level 0.9
		has "kept: $id: 2/$i failed since $(date -u +%F)"
		grep -q "^$id	" .retrial/quarantine
	done
	# nothing released, nothing said to GitHub
	[ "$(gh_count true)" -eq "$requests" ]
	# night 5: the third clean run is the proof
	nightly 5
	run rt-quarantine release --history "$T/audit.db" --confidence 0.9 --level 0.9
	status_is 0
	has "released: $id: 2/5 failed since $(date -u +%F): ≤88.6% at 90% confidence, checked every night; below the 90.0% level quarantine was for"
	has "issue: #121 https://github.example/acme/cache/issues/121 (commented, closed)"
	# one result a night: a quarantined pass that rt-junit read and the
	# gate copied into its lane counts once
	[ "$(sqlite3 "$T/audit.db" "SELECT sum(failed), count(failed) FROM results WHERE case_id = '$id'")" = "2|5" ]
	! grep -q "^$id" .retrial/quarantine
	# the issue: the release's evidence commented, then closed
	jq -s -e --arg mk "$(mark release "$id")" '[.[] | select(.method != "GET")] | .[-2:] as [$c, $p]
	    | $c.path == "/repos/acme/cache/issues/121/comments" and $c.status == 201
	    and ($c.body.body | contains("2/5 failed since") and contains("\n\($mk)\n"))
	    and $p.method == "PATCH" and $p.path == "/repos/acme/cache/issues/121"
	    and $p.body.state == "closed" and $p.status == 200' "$T/gh.log"
	curl -sf -H "Authorization: Bearer $TOKEN" "$GITHUB_API_URL/repos/acme/cache/issues/121" |
	    jq -e '.state == "closed" and .comments == 1'
	unset GITHUB_TOKEN GITHUB_REPOSITORY
	# with it released, a failure would fail the suite again
	echo flaky >seed
	run pytest_run . "$T/night6.xml"
	status_is 1
}

@test "GitHub errors (401, 403, 422, rate limit): one line with the status, exit 2, the token never printed, the list unchanged" {
	cd "$T"
	printf 'x::kept\towner=@a\n' >q
	cp q q.before
	for mode in 401 403 422 ratelimit 429; do
		start_gh "$mode"
		run env GITHUB_TOKEN="$TOKEN" rt-quarantine -f q add --github acme/cache --owner @x a::new
		status_is 2
		[ "${#lines[@]}" -eq 1 ]
		case $mode in
		401) has "rt-quarantine: GitHub: GET /repos/acme/cache/issues: HTTP 401: Bad credentials; q is unchanged" ;;
		403) has "HTTP 403: Resource not accessible by integration" ;;
		422) has "rt-quarantine: GitHub: POST /repos/acme/cache/issues: HTTP 422: Validation Failed; q is unchanged" ;;
		ratelimit) has "HTTP 403: rate limited: API rate limit exceeded" ;;
		429) has "HTTP 429: rate limited:" ;;
		esac
		hasnt "$TOKEN"
		hasnt "added:"
		cmp q q.before
		stop_gh
	done
	# a new list is not left behind either
	start_gh 401
	run env GITHUB_TOKEN="$TOKEN" rt-quarantine -f new add --github acme/cache a::new
	status_is 2
	[ ! -e new ]
	stop_gh
	# release: the list is written only once the issue is closed
	printf 'a::t\towner=@a\tissue=https://github.example/acme/cache/issues/3\n' >q
	cp q q.before
	start_gh 422 3
	run env GITHUB_TOKEN="$TOKEN" rt-quarantine -f q release --github acme/cache a::t
	status_is 2
	[ "${#lines[@]}" -eq 1 ]
	has "GitHub: POST /repos/acme/cache/issues/3/comments: HTTP 422: Validation Failed; q is unchanged"
	hasnt "$TOKEN"
	hasnt "released:"
	cmp q q.before
	stop_gh
	# with --token-file the same; a token in a file is never shown either
	printf '%s\n' "$TOKEN" >tok
	start_gh ratelimit
	run rt-quarantine -f q release --github acme/cache --token-file tok a::t
	status_is 2
	has "rate limited"
	hasnt "$TOKEN"
	cmp q q.before
}

@test "GitHub from the environment: GITHUB_REPOSITORY with GITHUB_TOKEN, --no-github, no token" {
	cd "$T"
	start_gh ok
	GITHUB_REPOSITORY=acme/cache GITHUB_TOKEN="$TOKEN" rt-quarantine -f q add --owner @x 'web/a.test.js::a > b' >out
	grep -q "issue: #1 https://github.example/acme/cache/issues/1 (opened)" out
	grep -q "	issue=https://github.example/acme/cache/issues/1	" q
	GITHUB_REPOSITORY=acme/cache GITHUB_TOKEN="$TOKEN" rt-quarantine -f q add --no-github --owner @x c::d >out
	! grep -q issue out
	# no token: no issues from the environment alone
	GITHUB_REPOSITORY=acme/cache rt-quarantine -f q add --owner @x e::f >out
	! grep -q issue out
	[ "$(gh_count '.method == "POST"')" -eq 1 ]
	run rt-quarantine -f q add --github acme/cache g::h
	status_is 2
	has "--github needs a token: set GITHUB_TOKEN or use --token-file"
	run rt-quarantine -f q add --github acme g::h
	status_is 2
	has "--github acme: must be OWNER/REPO"
	run rt-quarantine -f q list --github acme/cache
	status_is 2
	has "--github is for add and release, not list"
	run rt-quarantine -f q add --token-file x g::h
	status_is 2
	has "--token-file needs --github"
	# released by name: the issue commented and closed
	run env GITHUB_REPOSITORY=acme/cache GITHUB_TOKEN="$TOKEN" rt-quarantine -f q release 'web/a.test.js::a > b'
	status_is 0
	has "issue: #1 https://github.example/acme/cache/issues/1 (commented, closed)"
	jq -s -e '.[-1] | .method == "PATCH" and .body.state == "closed"' "$T/gh.log"
	jq -s -e '[.[] | select(.method == "POST")][-1].body.body | contains("released by name")' "$T/gh.log"
	# an issue elsewhere is left alone, with a warning; the entry is released
	rt-quarantine -f q add --owner @x --issue https://example.com/o/r/issues/9 i::j >/dev/null
	n=$(gh_count true)
	run env GITHUB_TOKEN="$TOKEN" rt-quarantine -f q release --github acme/cache i::j
	status_is 0
	has "i::j: issue https://example.com/o/r/issues/9 is not an issue of acme/cache; left as it is"
	has "released: i::j"
	[ "$(gh_count true)" -eq "$n" ]
}

@test "add --from a verdict with --github: the issue's reproduce line is the verdict's; a jest name's marker is whole" {
	cd "$T"
	start_gh ok
	export GITHUB_TOKEN="$TOKEN"
	run rt-quarantine -f q add --owner @cache --github acme/cache --from "$RT_TOP/t/fixtures/pr/quarantine.jsonl"
	status_is 0
	has "issue: #1 https://github.example/acme/cache/issues/1 (opened)"
	jq -s -e --arg mk "$(mark quarantine test_cache)" '.[-1].body.body | contains("**Reproduce:** `rt-measure -n 40 --cmd '"'"'python3 test_cache.py'"'"' > baseline.jsonl`")
	    and contains("rt-verify: 12/40 failed (30.0%, 95% Wilson CI 18.0%–45.5%), no fix survived")
	    and contains($mk)' "$T/gh.log"
	run rt-quarantine -f q add --owner @web --github acme/cache 'web/cart.test.js::cart --> adds up'
	status_is 0
	jq -s -e --arg mk "$(mark quarantine 'web/cart.test.js::cart --> adds up' 'web/cart.test.js::cart --&gt; adds up')" '.[-1].body | .title == "Quarantined flaky test: web/cart.test.js::cart --> adds up"
	    and (.body | contains($mk))' "$T/gh.log"
	# found again by that marker
	sed -i 's|	issue=[^	]*||' q
	run rt-quarantine -f q add --owner @web --github acme/cache 'web/cart.test.js::cart --> adds up'
	has "(open already, found by its marker)"
	[ "$(gh_count '.method == "POST"')" -eq 2 ]
}

@test "rt-quarantine: usage errors name the option or verb" {
	run rt-quarantine frobnicate
	status_is 2
	has "frobnicate: not a verb"
	run rt-quarantine list --owner @x
	status_is 2
	has "--owner is for add, not list"
	run rt-quarantine add a::b --expires soon
	status_is 2
	has "--expires soon: must be Nd (days) or YYYY-MM-DD"
	run rt-quarantine add a::b --rate 3
	status_is 2
	has "--rate 3: must be FAILURES/TRIALS"
	run rt-quarantine add "#x"
	status_is 2
	has "starting with '#'"
	run rt-quarantine release
	status_is 2
	cd "$T"
	run rt-quarantine release --history nope.db
	status_is 2
	has "rt-quarantine: nope.db: No such file or directory"
	[ ! -e nope.db ]
	rt-quarantine -f q add a::b --owner @x >/dev/null
	run sh -c 'rt-quarantine -f q list >/dev/full'
	status_is 2
	has "write error"
}

@test "rt-retry -q reads the list rt-quarantine writes (fields, blanks in IDs); a malformed one exits 2 naming its line" {
	cd "$T"
	rt-quarantine -f q add 'web/cart.test.js::cart > adds up' --owner @web --rate 3/10 >/dev/null
	printf '%s\n' 'web/cart.test.js::cart > adds up' 'web/cart.test.js::cart' >cases
	run rt-retry -p none -q q -f cases --cmd 'exit 1'
	status_is 1
	echo "$output" | jq -s -e '[.[] | select(.type == "group")][0].quarantined == ["web/cart.test.js::cart > adds up"]'
	echo 'web/cart.test.js::cart' >cases
	rt-quarantine -f q add 'web/cart.test.js::cart' --owner @web >/dev/null
	run rt-retry -p none -q q -f cases --cmd 'exit 1'
	status_is 0
	printf 'x::y\towner=@a\tsince=yesterday\n' >bad
	run rt-retry -p none -q bad -f cases --cmd 'exit 1'
	status_is 2
	has "rt-retry: bad:1: since=yesterday: not a date (YYYY-MM-DD)"
}

@test "add --from: an rt-verify QUARANTINE verdict and an rt-audit digest's quarantine candidates" {
	cd "$T"
	printf 'test_cache @cache\n' >CO
	run rt-quarantine -f q add --codeowners CO --issue https://example.com/i/1 --from "$RT_TOP/t/fixtures/pr/quarantine.jsonl"
	status_is 0
	has "added: test_cache"
	grep -q "^test_cache	owner=@cache	since=.*	issue=https://example.com/i/1	reason=rt-verify: 12/40 failed (30.0%, 95% Wilson CI 18.0%–45.5%), no fix survived	rate=12/40$" q
	# the digest: t.broken passes two nights, then fails every trial
	for n in 1 2 3; do
		k=0; [ $n = 3 ] && k=10
		for i in $(seq 1 10); do
			o=pass; [ "$i" -le "$k" ] && o=fail
			printf '{"type":"trial","trial":%s,"case":"t.broken","outcome":"%s","run":"n%s","revision":"r%s","timestamp":"2026-11-0%sT01:00:00"}\n' "$i" "$o" "$n" "$n" "$n"
		done | rt-audit -H db --json "d$n.json" >/dev/null
	done
	jqe '[.quarantine[].case] == ["t.broken"]' d3.json
	run rt-quarantine -f q add --owner @team --from d1.json
	has "nothing to add"
	run rt-quarantine -f q add --owner @team --from d3.json
	status_is 0
	has "added: t.broken"
	grep -q "^t.broken	owner=@team	.*	reason=rt-audit: 10/10 failed (≥74.1% at 95% confidence) in its latest runs	rate=10/10$" q
	# a verdict that is not QUARANTINE adds nothing
	run rt-quarantine -f q add --from "$RT_TOP/t/fixtures/pr/fixed.jsonl"
	has "nothing to add"
	[ "$(grep -vc '^#' q)" -eq 2 ]
}

# a git identity of the test's own, and a repository r with the list
# committed (a::t proven below 50% by 1/12 in $T/db once night is called)
git_repo() {
	export HOME="$T/home" GIT_CONFIG_NOSYSTEM=1
	mkdir -p "$HOME"
	git config --global user.name "Test User"
	git config --global user.email test@example.invalid
	git config --global init.defaultBranch main
	mkdir -p "$T/r/.retrial" && cd "$T/r" && git init -q
	today=$(date -u +%F)
	printf 'a::t\towner=@a\tsince=%s\texpires=2099-01-01\tissue=https://github.com/acme/cache/issues/7\trate=9/10\nb::t\towner=@b\tsince=%s\n' \
	    "$today" "$today" >.retrial/quarantine
	git add . && git commit -qm list
}
night() { # night N OUTCOME
	printf '{"type":"trial","case":"a::t","outcome":"%s","run":"night-%s","timestamp":"%sT01:00:00"}\n' \
	    "$2" "$1" "$today" | rt-audit -H "$T/db" --json /dev/null >/dev/null
}

@test "release --history --mbox: one commit on HEAD with the evidence, git am applies it in a clone, the user's repo untouched" {
	git_repo
	head=$(git rev-parse HEAD) refs=$(git for-each-ref)
	night 0 fail
	for i in $(seq 1 11); do night "$i" pass; done
	SOURCE_DATE_EPOCH=1700000000 run rt-quarantine release --history "$T/db" --level 0.5 --mbox "$T/m.mbox" \
	    --author 'Rel Ease <rel@example.invalid>'
	status_is 0
	has "released: a::t: 1/12 failed since $today: ≤48.2% at 95% confidence, checked every night; below the 50.0% level quarantine was for"
	has "kept: b::t: no runs since $today"
	has "mbox: $T/m.mbox"
	line=$(printf '%s\n' "$output" | sed -n 's/^released: //p')
	! grep -q '^a::t' .retrial/quarantine
	grep -q '^b::t' .retrial/quarantine
	# the user's HEAD, refs and index are as they were; the list is the one change
	[ "$(git rev-parse HEAD)" = "$head" ]
	[ "$(git for-each-ref)" = "$refs" ]
	git diff --cached --quiet
	[ "$(git status --porcelain)" = " M .retrial/quarantine" ]
	git clone -q "$T/r" "$T/c"
	cd "$T/c"
	git am -q "$T/m.mbox"
	cmp .retrial/quarantine "$T/r/.retrial/quarantine"
	[ "$(git log -1 --format=%s)" = "quarantine: release a::t" ]
	git log -1 --format=%B | grep -qxF "$line"
	git log -1 --format=%B | grep -qxF "Issue: https://github.com/acme/cache/issues/7"
	[ "$(git log -1 --format='%an <%ae> %at')" = "Rel Ease <rel@example.invalid> 1700000000" ]
	[ "$(git show --format= --name-only HEAD)" = ".retrial/quarantine" ]
	[ "$(git rev-parse HEAD~1)" = "$head" ]
}

@test "release ID... --mbox -: the mbox on stdout, the report on stderr; HEAD's list is edited, an uncommitted line stays out" {
	git_repo
	printf 'c::t\towner=@c\n' >>.retrial/quarantine
	rt-quarantine release --mbox - a::t b::t >"$T/m.mbox" 2>"$T/err"
	grep -qx "released: a::t" "$T/err"
	grep -qx "released: b::t" "$T/err"
	head -1 "$T/m.mbox" | grep -q '^From [0-9a-f]\{40\} '
	[ "$(grep -v '^#' .retrial/quarantine)" = "$(printf 'c::t\towner=@c')" ]
	git clone -q "$T/r" "$T/c"
	cd "$T/c"
	git am -q "$T/m.mbox"
	[ "$(git log -1 --format=%s)" = "quarantine: release 2 tests" ]
	git log -1 --format=%B | grep -qF 'a::t: released by name (`rt-quarantine release ID`), without a measured proof.'
	git log -1 --format=%B | grep -qF 'b::t: released by name'
	[ "$(git log -1 --format='%an <%ae>')" = "retrial <retrial@localhost>" ]
	[ -z "$(grep -v '^#' .retrial/quarantine)" ]
}

@test "release --mbox: outside a git work tree exit 2 and the list unchanged; nothing released, no mbox; options of other verbs" {
	export GIT_CEILING_DIRECTORIES="$T"
	mkdir "$T/plain" && cd "$T/plain"
	printf 'a::t\towner=@a\n' >q
	cp q q.before
	run rt-quarantine -f q release --mbox m.mbox a::t
	status_is 2
	has "not in a git work tree: --mbox ships a commit"
	has "q is unchanged"
	cmp q q.before
	[ ! -e m.mbox ]
	git_repo
	night 0 fail
	run rt-quarantine release --history "$T/db" --mbox "$T/none.mbox"
	status_is 0
	has "kept: a::t: 1/1 failed since $today"
	has "no mbox written: nothing released"
	[ ! -e "$T/none.mbox" ]
	run rt-quarantine list --mbox m.mbox
	status_is 2
	has "--mbox is for release, not list"
	run rt-quarantine release --author 'A <a@b>' a::t
	status_is 2
	has "--author needs --mbox"
	run rt-quarantine release --mbox m.mbox --author 'nobody' a::t
	status_is 2
	has "--author nobody: must be 'NAME <EMAIL>'"
	grep -q '^a::t' .retrial/quarantine
}

@test "release --github --mbox: GitHub first, then the list, then the mbox; a GitHub error writes neither" {
	git_repo
	start_gh 422 7
	run env GITHUB_TOKEN="$TOKEN" rt-quarantine release --github acme/cache --mbox "$T/m.mbox" a::t
	status_is 2
	has "GitHub: POST /repos/acme/cache/issues/7/comments: HTTP 422: Validation Failed; .retrial/quarantine is unchanged"
	hasnt "$TOKEN"
	[ ! -e "$T/m.mbox" ]
	[ -z "$(git status --porcelain)" ]
	stop_gh
	start_gh ok 7
	run env GITHUB_TOKEN="$TOKEN" rt-quarantine release --github acme/cache --mbox "$T/m.mbox" a::t
	status_is 0
	has "released: a::t"
	[ "$(gh_count '.method == "PATCH" and .path == "/repos/acme/cache/issues/7"')" -eq 1 ]
	! grep -q '^a::t' .retrial/quarantine
	git clone -q "$T/r" "$T/c"
	cd "$T/c"
	git am -q "$T/m.mbox"
	git log -1 --format=%B | grep -qxF "Issue: https://github.com/acme/cache/issues/7"
	cmp .retrial/quarantine "$T/r/.retrial/quarantine"
}

@test "gate: hostile names (a line feed then ::error, ::add-mask::, ::stop-commands::; U+202E) print visibly; no line starts with ::" {
	cd "$T"
	run rt-quarantine -f q gate "$RT_TOP/t/fixtures/hostile/junit-names.xml"
	status_is 1
	[ "${#lines[@]}" -eq 5 ]
	has "failed: tests/test_a.py::test_x␊::error title=forged::FAIL"
	has "failed: tests/test_a.py::test_z␊::stop-commands::tok"
	has 'failed: tests/test_a.py::test_w\u202egnp.exe'
	! printf '%s\n' "$output" | tr '\r' '\n' | grep -q '^[[:space:]]*::'
	! printf '%s' "$output" | grep -q $'\u202e'
}

@test "issues: a hostile name that embeds another test's marker never has its issue adopted; backticks stay in the code span; the reproduce line is quoted" {
	cd "$T"
	start_gh ok
	export GITHUB_TOKEN="$TOKEN"
	victim=tests/test_a.py::test_victim
	# its name carries the victim's markers, the hashed and the older one
	evil="tests/test_b.py::test_evil $(mark quarantine "$victim") <!-- retrial-quarantine: $victim -->"
	run rt-quarantine -f q add --owner @x --github acme/cache "$evil"
	status_is 0
	has "issue: #1 https://github.example/acme/cache/issues/1 (opened)"
	run rt-quarantine -f q add --owner @x --github acme/cache "$victim"
	status_is 0
	has "issue: #2 https://github.example/acme/cache/issues/2 (opened)"
	hasnt "found by its marker"
	grep -q "^$victim	.*issue=https://github.example/acme/cache/issues/2	" q
	# a backtick run in a name: the span's fence is longer; a quote in a
	# name not a runner's: the reproduce line's CMD comment holds it quoted
	name='web/x.test.js::a ``` b`'"'; touch pwned; '"
	run rt-quarantine -f q add --owner @x --github acme/cache "$name"
	status_is 0
	jq -s -r '.[-1].body.body' "$T/gh.log" >body
	head -1 body | grep -qF '````web/x.test.js::a ``` b`'"'"'; touch pwned; '"'"'```` is quarantined'
	# the reproduce line's code span, read as CommonMark reads one
	repro=$(sed -n 's/^- \*\*Reproduce:\*\* //p' body)
	fence=${repro%%[!\`]*}
	repro=${repro#"$fence"} repro=${repro%"$fence"}
	[[ $repro != " "*" " ]] || repro=${repro:1:-1}
	[[ $repro == "rt-measure -n 20 --cmd CMD "* ]]
	mkdir stub && printf '#!/bin/sh\nexit 0\n' >stub/rt-measure && chmod +x stub/rt-measure
	PATH="$T/stub:$PATH" sh -c "$repro"
	[ ! -e pwned ]
	# a pytest ID with a quote: one argument to pytest
	run rt-quarantine -f q add --owner @x --github acme/cache "tests/test_c.py::test_q[it's]"
	jq -s -r '.[-1].body.body' "$T/gh.log" | grep -qF "rt-measure -n 20 -- python3 -m pytest -q 'tests/test_c.py::test_q[it'\\''s]'"
}

@test "CODEOWNERS: a rule of many stars and a 6 KB path are matched in one pass (the backtracking matcher took minutes)" {
	cd "$T"
	printf '* @lead\n%s @stars\n/src/**/**/**/**/**/**/*.c/ @deep\n' "$(printf 'a*%.0s' $(seq 18))b" >CO
	long=$(printf 'a/%.0s' $(seq 3000))x.py
	timeout 20 rt-quarantine -f l1 add "$(printf 'a%.0s' $(seq 40))::t" --codeowners CO >/dev/null
	grep -q "owner=@lead" l1
	timeout 20 rt-quarantine -f l2 add "$(printf 'a%.0s' $(seq 40))b::t" --codeowners CO >/dev/null
	grep -q "owner=@stars" l2
	timeout 20 rt-quarantine -f l3 add "$long::t" --codeowners CO >/dev/null
	grep -q "owner=@lead" l3
	timeout 20 rt-quarantine -f l4 add "src/$(printf 'd/%.0s' $(seq 3000))x.c/y.c::t" --codeowners CO >/dev/null
	grep -q "owner=@deep" l4
}

@test "a quarantine list that is a symbolic link is edited where it lives; the link stays" {
	cd "$T"
	mkdir shared proj
	rt-quarantine -f shared/q add a.py::t --owner @x >/dev/null
	ln -s ../shared/q proj/q
	(cd proj && rt-quarantine -f q add b.py::t --owner @y >/dev/null)
	[ -L proj/q ]
	grep -q '^b.py::t	owner=@y' shared/q
	grep -q '^a.py::t	owner=@x' shared/q
}

@test "gate: go test -count=4 is four judged runs, not retries: one failed run fails the job; on the list it is quarantined" {
	command -v go >/dev/null 2>&1 || skip "no go"
	export GOCACHE="$BATS_RUN_TMPDIR/gocache" GOPATH="$T/gopath" GOPROXY=off GOTOOLCHAIN=local GOFLAGS=-mod=mod
	cp -R "$RT_TOP/t/fixtures/runners/gorepeat" "$T/g"
	cd "$T/g"
	# TestFirstID fails its second run of four, and go test exits 1
	run sh -c 'go test -count=4 -json ./... > "$1"' sh "$T/go.json"
	status_is 1
	: >"$T/q"
	run rt-quarantine -f "$T/q" gate "$T/go.json"
	status_is 1
	has "failed: example.com/gorepeat/store::TestFirstID (1 of 4 runs)"
	has "gate: FAIL: 1 failed outside the quarantine; 0 quarantined failed, 0 passed"
	hasnt "TestPutGet"
	printf 'example.com/gorepeat/store::TestFirstID\towner=@go\n' >"$T/q"
	run rt-quarantine -f "$T/q" gate "$T/go.json"
	status_is 0
	has "quarantined, failed: example.com/gorepeat/store::TestFirstID"
	has "gate: pass: 0 failed outside the quarantine; 1 quarantined failed, 0 passed"
}

@test "gate: a runner's own retries are attempts of one run: a retry that passes is a flake, Surefire's and jest's alike" {
	: >"$T/q"
	# Surefire: appliesDiscount's <flakyFailure>s then a pass is one run
	# that passed on a rerun; checksOut's <rerunFailure>s all failed
	run rt-quarantine -f "$T/q" gate "$RT_TOP/t/fixtures/junit/surefire-rerun.xml"
	status_is 1
	has "failed: com.example.CartTest::checksOut"
	hasnt "appliesDiscount"
	hasnt "runs)"
	# jest --json under retryTimes: "charges the card" passed its third
	# attempt (a flake); the refund failed both of its attempts
	run rt-quarantine -f "$T/q" gate "$RT_TOP/t/fixtures/runners/jest.json"
	status_is 1
	has "failed: /tmp/jp/__tests__/payment.test.js::a refund reaches the bank"
	hasnt "charges the card"
}

@test "gate: pytest-repeat's --count runs are cases of their own, each judged once, never retries" {
	"$PY" -c 'import pytest_repeat' 2>/dev/null || skip "no pytest-repeat (Debian python3-pytest-repeat)"
	mkdir -p "$T/pr/tests"
	cat >"$T/pr/tests/test_seq.py" <<'PYEOF'
import itertools

_seq = itertools.count(1)

def test_first_id():
    assert next(_seq) != 2, "the second ID is reserved"

def test_ok():
    pass
PYEOF
	cd "$T/pr"
	run "$PY" -m pytest -q -p no:cacheprovider -p no:randomly -p no:random_order --count 4 \
	    --junitxml="$T/pr.xml" tests
	status_is 1
	rt-junit "$T/pr.xml" | jqe -s 'map(select(.case | startswith("tests/test_seq.py::test_first_id"))) |
	    map([.case, .attempt, .outcome]) == [["tests/test_seq.py::test_first_id[1-4]", 1, "pass"],
	      ["tests/test_seq.py::test_first_id[2-4]", 1, "fail"], ["tests/test_seq.py::test_first_id[3-4]", 1, "pass"],
	      ["tests/test_seq.py::test_first_id[4-4]", 1, "pass"]]'
	: >"$T/q"
	run rt-quarantine -f "$T/q" gate "$T/pr.xml"
	status_is 1
	has "failed: tests/test_seq.py::test_first_id[2-4]"
	has "gate: FAIL: 1 failed outside the quarantine"
}
