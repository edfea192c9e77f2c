/* rt_canary: the dynamic canary of rt-verify's guard — place an inverted
 * check of the test under test in a scratch copy, so a lane whose test
 * still passes is shown to test nothing; and where a runner's output says
 * the failing tests are. */
#ifndef RT_CANARY_H
#define RT_CANARY_H

#include <stddef.h>

/* A failing test's location, read from a runner's output. */
typedef struct {
	char file[512];         /* as printed: relative, absolute, or a Go basename */
	long line;              /* 0: unknown */
	char cls[128];          /* the class, "" when none or unknown */
	char test[256];         /* the function: a test or a helper, "" when unknown */
	int raised;             /* 1: where the failure was raised/reported */
} rt_failing_loc;

/* Read failing-test locations from output (stdout+stderr of failing
 * trials): pytest "f.py:NN: AssertionError", "f.py:NN: in name", "FAILED
 * f.py::C::t[p] - msg", "f.py::t FAILED"; unittest "FAIL: t (m.C.t)" and
 * 'File "f.py", line N, in t'; Go "--- FAIL: TestX" and "x_test.go:N:".
 * Fills at most max, duplicates dropped; returns how many were stored. */
size_t rt_failing_locations(const char *output, rt_failing_loc *locs,
    size_t max);

/* The dynamic canary: in dir (a scratch copy with the patch applied, the
 * command's cwd; trusted is the original project, whose parsers read it:
 * never the patched copy's, which a patch could bring), find the test(s) the command runs — from command (shell
 * text, never run) or argv (NULL-terminated), preferring the tests seen
 * failing in evidence (may be NULL) — and invert one assertion in that
 * test's body, or in a helper it calls (one level): the one at the
 * failing location when evidence shows it, else the last. Python
 * "assert X" becomes "assert not (X)", self.assertEqual assertNotEqual
 * (and the other exact inverses); Go "if COND {" guarding a
 * t.Error/Fatal/Fail becomes "if !(COND) {", testify assert/require.X its
 * inverse. Returns 1 with "file:line: <original line>" in what; 0 with
 * the reason it was not placed in what; -1 on an I/O error (errno set). */
int rt_canary_place(const char *dir, const char *trusted, const char *command,
    char *const *argv, const char *evidence, char *what, size_t whatsize);

/* rt_canary_place in exactly the test case_id names (the runner's
 * ID: a pytest node ID "f.py::Class::test", a Go "pkg::TestX/sub"), not
 * in whichever test the command runs; 0 with "case X: no such test in
 * this tree" when the tree has no such test. */
int rt_canary_place_case(const char *dir, const char *trusted,
    const char *case_id, const char *evidence, char *what, size_t whatsize);

#endif
