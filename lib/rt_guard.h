/* rt_guard: the neutering guard of rt-verify — decide from a unified diff
 * and the files before and after it whether a patch makes a test pass by
 * not testing, and place the dynamic canary in the test the command runs.
 * Fails closed: what it cannot decide is disqualified. */
#ifndef RT_GUARD_H
#define RT_GUARD_H

#include <stddef.h>

/* The rules, in the order they are checked; the first that fires (and is
 * not allowed) names the disqualification. A test file whose language has
 * a parser here (Python's ast, Go's go/parser, a JavaScript parser of the
 * project's) is judged on its assertion inventory (rt_src.h): the checks
 * of each test function, before and after the patch; a Python or Go test
 * whose helper fails is guard-undecided, never judged by text. Other files
 * (shell, bats, JavaScript without a parser, languages without a helper)
 * are judged by the text rules of rt_srctext.
 *   early-exit              adds a successful exit (sys.exit(0), exit 0, os._exit, ...)
 *   early-return            adds a return in a test before its assertions
 *   skip                    adds a skip or an xfail/ignore marker
 *   or-true                 adds "|| true" (or "|| :", set +e)
 *   if-0                    adds dead code around the test (#if 0, if False:, ...)
 *   tautology               adds an assertion that cannot fail (assert True, x == x)
 *   assertion-swallowed     puts an assertion under a try/except (or suppress,
 *                           recover) that swallows it
 *   expected-value-changed  the patch changes nothing but literals in assertions/expectations
 *                           (a widened bound of a value a clock measures is not one:
 *                           it races, recorded as timing-bound-loosened)
 *   assertion-weakened      a check demands less: an operand replaced by its
 *                           len/str/type/bool/keys, == loosened to >=, in or
 *                           truthiness, a tolerance or places widened, a
 *                           matcher weakened (toEqual -> toBeDefined)
 *   raises-removed          an exception expectation removed (pytest.raises,
 *                           assertRaises, Go if err == nil { t.Fatal }, toThrow)
 *   assertion-removed       a test file loses assertions (deleted, commented out,
 *                           pass, a test function deleted)
 *   call-removed            a call the original assertions depended on is gone
 *   canary                  (dynamic) the test still passes with an assertion inverted
 *   guard-undecided         the guard could not read or parse what it must judge
 *                           (a parser helper crashed, timed out, printed no
 *                           inventory; a file past the parser's limits)
 *   patch-failed            the patched test does not parse ("FILE:LINE: MESSAGE")
 * A file is a test file by its name or by its content (rt_guard_is_test_text). */
extern const char *const rt_guard_rules[];

/* 1 when name is one of rt_guard_rules, else 0. */
int rt_guard_rule_known(const char *name);

#define RT_GUARD_REASON 1024
#define RT_GUARD_MAXOVER 16

typedef struct {
	const char *rule;               /* one of rt_guard_rules */
	char reason[RT_GUARD_REASON];
} rt_guard_hit;

typedef struct {
	const char *rule;       /* NULL: nothing disqualifies; else one of rt_guard_rules */
	char reason[RT_GUARD_REASON];   /* the evidence: quoted line(s) at file:line */
	/* rules named in the allow-list that fired, first hit of each, in
	 * rule order: recorded, not disqualifying */
	rt_guard_hit overruled[RT_GUARD_MAXOVER];
	size_t noverruled;
	/* how the tests were read: "python ast (python3 3.11)", "go/parser (go1.19)",
	 * "text rules (no parser for javascript)", ... ("; "-joined per language) */
	char guard[256];
	/* 1 when the patch changes a check of a test (its inventory differs:
	 * a check added, removed or changed), with the differences in checks as
	 * a JSON array (text, "" when none or unknown) */
	int changes_checks;
	char checks[RT_GUARD_REASON * 4];
} rt_guard_result;

/* Judge diff, already applied: before_dir holds the untouched project,
 * after_dir a copy with the patch applied. Returns 0 when no rule fires,
 * 1 when one does (res->rule and res->reason say which and why).
 * Same as rt_guard_check_allow with an empty allow-list. */
int rt_guard_check(const char *diff, const char *before_dir,
    const char *after_dir, rt_guard_result *res);

/* The same with per-rule overrides: a rule named in allow[0..nallow) does
 * not disqualify; when it fires its reason goes to res->overruled[] and
 * checking goes on. Returns 1 when a rule not allowed fires, 0 when none
 * does, -1 when allow names an unknown rule (res->reason says which; check
 * names with rt_guard_rule_known first). */
int rt_guard_check_allow(const char *diff, const char *before_dir,
    const char *after_dir, char *const *allow, size_t nallow,
    rt_guard_result *res);

/* rt_guard_check_allow, reading Python tests with the interpreter the
 * test command runs (command: shell text, or argv; both NULL: python3). */
int rt_guard_check_cmd(const char *diff, const char *before_dir,
    const char *after_dir, char *const *allow, size_t nallow,
    const char *command, char *const *argv, rt_guard_result *res);

/* Is relpath a test file by its name (test_*.py, *_test.go, *.bats,
 * tests/..., ...)? */
int rt_guard_is_test_path(const char *relpath);

/* Is text (the contents of relpath) a test file by its content: a
 * "def test*", a unittest.TestCase subclass, self.assert*, an assert at a
 * script's top level, "func TestX(t *testing.T)", jest test(/it( with
 * expect(, a bats @test, TEST(/@Test? 1 or 0. */
int rt_guard_is_test_text(const char *relpath, const char *text);

#endif
