/* rt_guard: the neutering guard of rt-verify — decide from a unified diff
 * and the files before and after it whether a patch makes a test pass by
 * not testing. Fails closed: what it cannot decide is disqualified. */
#ifndef RT_GUARD_H
#define RT_GUARD_H

#include <stddef.h>

/* The rules, in the order they are checked; the first that fires names
 * the disqualification:
 *   early-exit              adds a successful exit (sys.exit(0), exit 0, os._exit, ...)
 *   skip                    adds a skip or an xfail/ignore marker
 *   or-true                 adds "|| true" (or "|| :", set +e)
 *   if-0                    adds dead code around the test (#if 0, if False:, ...)
 *   tautology               adds an assertion that cannot fail (assert True, x == x)
 *   expected-value-changed  changes only a literal in an assertion or expectation
 *   assertion-weakened      replaces an assertion by a weaker one (== by truthiness)
 *   assertion-removed       a test file loses assertions
 *   call-removed            a call the original assertions depended on is gone
 *   canary                  (dynamic) the test still passes with an assertion inverted
 *   guard-undecided         the guard could not read or parse what it must judge */
extern const char *const rt_guard_rules[];

typedef struct {
	const char *rule;       /* NULL: nothing found; else one of rt_guard_rules */
	char reason[640];       /* one sentence naming the evidence, file and line */
} rt_guard_result;

/* Judge diff, already applied: before_dir holds the untouched project,
 * after_dir a copy with the patch applied. Returns 0 when no rule fires,
 * 1 when one does (res->rule and res->reason say which and why). */
int rt_guard_check(const char *diff, const char *before_dir,
    const char *after_dir, rt_guard_result *res);

/* Is relpath a test file by its name (test_*.py, *_test.go, *.bats,
 * tests/..., ...)? */
int rt_guard_is_test_path(const char *relpath);

/* The dynamic canary, for Python: in dir (a scratch copy with the patch
 * applied), rewrite the first one-line "assert EXPR" of the first test
 * file in files[] ending in .py into "assert not (EXPR)". Returns 1 with
 * "file:line: assert ..." in what, 0 when there is nothing to invert,
 * -1 on an I/O error (errno set). */
int rt_guard_canary(const char *dir, char *const files[], size_t nfiles,
    char *what, size_t whatsize);

#endif
