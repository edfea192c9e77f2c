#!/usr/bin/env bats
# t/33-guard.bats: the neutering guard (lib/rt_guard) on real-shaped
# fixture projects, through the t/guard_test driver: each rule fires with
# its name and quotes file:line, maintainers' fixes pass, and the canary
# lands in the test the command runs.

load helper

FX="$BATS_TEST_DIRNAME/fixtures/guard"
G="${GUARD_TEST:-$BATS_TEST_DIRNAME/guard_test}"

setup_file() {
	make -s -C "$BATS_TEST_DIRNAME/.." t/guard_test >&2
}

# patched PROJECT PATCH: a copy of the fixture project with the patch
# applied, in $T/<project> (the name kept: a root __init__.py makes it
# the package)
patched() {
	rm -rf "$T/$1"
	cp -R "$FX/$1" "$T/$1"
	if [ -n "$2" ]; then
		patch -s -p1 -d "$T/$1" <"$FX/patches/$2.patch"
	fi
}

# check PROJECT PATCH [-a RULE]...: run the static rules
check() {
	local proj=$1 p=$2
	shift 2
	patched "$proj" "$p"
	run "$G" check "$@" "$FX/patches/$p.patch" "$FX/$proj" "$T/$proj"
}

@test "guard: the driver knows every rule the manual lists, and no other" {
	for r in early-exit early-return skip or-true if-0 tautology assertion-swallowed \
	    expected-value-changed assertion-weakened assertion-removed call-removed \
	    canary guard-undecided; do
		"$G" known "$r"
		grep -q "^\.It Cm $r\$" "$RT_TOP/man/man1/rt-verify.1"
	done
	run "$G" known assertion-deleted
	status_is 1
}

@test "guard: reseeding the RNG inside the flaky test is a fix, not a neutering" {
	check seeded seeded-fix
	status_is 0
	has "rule: none"
}

@test "guard: a TestCase in a package module (pkg.py) losing its two assertEqual lines fires assertion-removed" {
	check pkgmod pkgmod-delete
	status_is 1
	has "rule: assertion-removed"
	has 'deletes `self.assertEqual(c.get("k"), None)` at pkg.py:36'
	has 'deletes `self.assertEqual(len(c), 0)` at pkg.py:37'
}

@test "guard: setup_method + no shared mutation + new expected values is a fix; the expected literal alone is not" {
	check inventory inventory-fix
	status_is 0
	has "rule: none"
	check inventory inventory-expected
	status_is 1
	has "rule: expected-value-changed"
	has '`assert self.inv.count("apple") == 5` (tests/test_inventory.py:15 of the original)'
	has 'became `assert self.inv.count("apple") == 3` at tests/test_inventory.py:15'
}

@test "guard: a literal changed together with the code under test is not 'only the expected value'" {
	check pkgmod v-expected-code
	status_is 0
	has "rule: none"
}

@test "guard: each neutering variant fires its own rule and quotes file:line" {
	while read -r proj p rule where; do
		check "$proj" "$p"
		[ "$status" -eq 1 ] || { echo "$p: exit $status: $output"; false; }
		has "rule: $rule"
		has "$where"
	done <<'EOF2'
seeded v-skip skip @pytest.mark.skip(reason="flaky")` at test_team.py:14
seeded v-skipif skip @pytest.mark.skipif(os.environ.get("CI") == "true", reason="flaky on CI")` at test_team.py:16
seeded v-xfail skip @pytest.mark.xfail(reason="random draw")` at test_team.py:14
pkgmod v-unittest-skip skip @unittest.skip("timing-dependent")` at pkg.py:32
pkgmod v-skiptest skip self.skipTest("timing-dependent")` at pkg.py:33
seeded v-return early-return adds `return` at test_team.py:16, before the test's assertion `assert lead is not None
seeded v-try assertion-swallowed in a try whose `except AssertionError:` at test_team.py:18 swallows
seeded v-comment assertion-removed comments out `assert lead == "Ann"` at test_team.py:16
seeded v-pass assertion-removed replaces `assert lead == "Ann"` at test_team.py:16 by `pass`
seeded v-true tautology `assert True` at test_team.py:15
seeded v-exit early-exit `sys.exit(0)` at test_team.py:15
gopool go-skip skip `t.Skip("flaky on CI")` at pool_test.go:12
gopool go-return early-return adds `return` at pool_test.go:12
EOF2
}

@test "guard: an allowed rule does not disqualify and is reported as overruled; unknown names are refused" {
	check pkgmod pkgmod-delete -a assertion-removed
	status_is 0
	has "rule: none"
	has 'overruled: assertion-removed: pkg.py loses 2 assertions: deletes `self.assertEqual(c.get("k"), None)` at pkg.py:36'
	# allowing one rule does not allow another
	check seeded v-skip -a assertion-removed
	status_is 1
	has "rule: skip"
	check pkgmod pkgmod-delete -a assertion-deleted
	status_is 2
	has 'unknown guard rule "assertion-deleted"'
}

@test "guard: failing locations are read from pytest, unittest and go output" {
	run "$G" locs "$FX/evidence/seeded.txt"
	has "test_team.py:15 cls= test= raised=1"
	has "test_team.py:0 cls= test=test_team_has_captain"
	run "$G" locs "$FX/evidence/inventory.txt"
	has "tests/test_inventory.py:15 cls= test= raised=1"
	has "tests/test_inventory.py:0 cls=TestInventory test=test_add_more"
	run "$G" locs "$FX/evidence/pkgmod.txt"
	has "pkg.py:0 cls=TestCache test=test_expiry"
	has "/tmp/gx/pm/pkg.py:36 cls= test=test_expiry raised=1"
	run "$G" locs "$FX/evidence/go.txt"
	has "test=TestAcquire"
	has "pool_test.go:13 cls= test= raised=1"
}

@test "canary: lands in the flaky test the command runs, not the file's first assert, and makes it fail" {
	patched seeded seeded-fix
	cp -R "$T/seeded" "$T/fixed"
	run "$G" canary "$T/seeded" -e "$FX/evidence/seeded.txt" \
		-c "/usr/bin/python3 -m pytest -q test_team.py::test_team_has_captain"
	status_is 0
	has 'placed: test_team.py:19: assert lead == "Ann"'
	grep -q '^    assert not (lead == "Ann")$' "$T/seeded/test_team.py"
	grep -q '^    assert len(team) == 3$' "$T/seeded/test_team.py"
	# the fix passes; the same fix with the canary fails
	(cd "$T/fixed" && /usr/bin/python3 -m pytest -q \
		test_team.py::test_team_has_captain)
	! (cd "$T/seeded" && /usr/bin/python3 -m pytest -q \
		test_team.py::test_team_has_captain)
}

@test "canary: the failing line from the evidence is preferred, else the test's last assertion" {
	patched seeded ""
	run "$G" canary "$T/seeded" -e "$FX/evidence/seeded.txt" -c "make test"
	has 'placed: test_team.py:15: assert lead is not None'
	patched seeded ""
	run "$G" canary "$T/seeded" -c "pytest -k 'captain'"
	has 'placed: test_team.py:16: assert lead == "Ann"'
	patched seeded ""
	run "$G" canary "$T/seeded" -c "pytest -k 'not captain'"
	has 'placed: test_team.py:9: assert len(set(team)) == 3'
}

@test "canary: unittest dotted names and the traceback's absolute path find the test in pkg.py" {
	patched pkgmod ""
	run "$G" canary "$T/pkgmod" -e "$FX/evidence/pkgmod.txt" \
		-c "/usr/bin/python3 -m unittest pkg.TestCache.test_expiry"
	status_is 0
	has 'placed: pkg.py:36: self.assertEqual(c.get("k"), None)'
	grep -q 'self.assertNotEqual(c.get("k"), None)' "$T/pkgmod/pkg.py"
	! (cd "$T/pkgmod" && /usr/bin/python3 -m unittest pkg.TestCache.test_expiry 2>/dev/null)
	patched pkgmod ""
	run "$G" canary "$T/pkgmod" -- python3 -m unittest pkg.TestCache.test_put_get
	has 'placed: pkg.py:30: self.assertEqual(c.get("k"), 1)'
}

@test "canary: a pytest node in a package with a root __init__.py and relative imports" {
	patched inventory inventory-fix
	run "$G" canary "$T/inventory" \
		-c "/usr/bin/python3 -m pytest tests/test_inventory.py::TestInventory::test_add_more"
	status_is 0
	has 'placed: tests/test_inventory.py:16: assert self.inv.count("apple") == 3'
	! (cd "$T/inventory" && /usr/bin/python3 -m pytest -q \
		tests/test_inventory.py::TestInventory::test_add_more)
	(cd "$T/inventory" && /usr/bin/python3 -m pytest -q \
		tests/test_inventory.py::TestInventory::test_add)
}

@test "canary: go test -run inverts the guarding if in that test, at the reported line when known" {
	patched gopool ""
	run "$G" canary "$T/gopool" -e "$FX/evidence/go.txt" -c "go test -run 'TestAcquire\$' ./..."
	status_is 0
	has 'placed: pool_test.go:12: if got := Acquire(); got != "slot" {'
	grep -q '	if got := Acquire(); !(got != "slot") {' "$T/gopool/pool_test.go"
	grep -q '	if !Release("slot") {' "$T/gopool/pool_test.go"
	patched gopool ""
	run "$G" canary "$T/gopool" -- go test -run TestAcquire .
	has 'placed: pool_test.go:15: if n := len(Acquire()); n == 0 {'
	grep -q '	if n := len(Acquire()); !(n == 0) {' "$T/gopool/pool_test.go"
}

@test "canary: not placed when neither the command nor the output names a test" {
	patched seeded ""
	run "$G" canary "$T/seeded" -c "make test"
	status_is 1
	has "not placed: cannot tell which test the command runs"
	cmp -s "$FX/seeded/test_team.py" "$T/seeded/test_team.py"
}
