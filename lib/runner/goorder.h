/* rt_goorder: ordered runs for go test, which runs a package's tests in
 * source order whatever -run says — a generated driver test in a scratch
 * copy of the module calls the named tests in order as subtests, and the
 * order the runner really used is read back from its -json events. */
#ifndef RT_GOORDER_H
#define RT_GOORDER_H

#include <stddef.h>
#include <jansson.h>

#include "rt_cases.h"

/* The driver's test function and file, in the victim's package. */
#define RT_GOORDER_TEST "TestRetrialOrder"
#define RT_GOORDER_FILE "zz_retrial_order_test.go"

typedef struct {
	char *tmp;                   /* the scratch directory (removed at close) */
	char *cwd;                   /* the command's directory in the copy */
	char *pkgdir;                /* the victim's package directory in the copy */
	char *importpath, *name;     /* the package's import path and name */
	char **intern, **extern_;    /* test functions of package NAME, NAME_test */
	size_t nintern, nextern;
	char *driver_id;             /* the ID the command selects the driver by */
	char *copied;                /* the module root that was copied */
} rt_goorder;

/* Copy the module the directory cwd (NULL: the current one) is in to a
 * scratch directory (the user's tree is never written), and find the
 * victim's package there with go list: the package of "PKG::TestX", or
 * for a bare "TestX" the one package under cwd whose _test.go files
 * declare it. 0, or -1 with the reason in why. */
int rt_goorder_open(rt_goorder *g, const char *cwd, const char *victim, char *why,
    size_t size);
/* Can the driver run test id beside the victim? 1, or 0 with the reason in
 * why (another package — go test runs each package in its own process —,
 * or no such test function in the victim's package). */
int rt_goorder_member(const rt_goorder *g, const char *id, char *why, size_t size);
/* Write the driver that runs order (IDs, NULL-terminated) in that order.
 * 0, or -1 with the reason in why. */
int rt_goorder_write(const rt_goorder *g, char *const *order, char *why, size_t size);
/* The driver's subtests renamed to the tests they run ("PKG::TestRetrialOrder/TestA"
 * -> "PKG::TestA"), the driver's own case removed. */
void rt_goorder_map(const rt_goorder *g, rt_case_set *set);
/* The order the runner really used, from the -json events on a trial's
 * stdout: every test it started at the top level or as the driver's
 * subtest, in "run" order, as the IDs of order (a JSON array of names). */
json_t *rt_goorder_ran(const rt_goorder *g, const char *out);
/* Is ran the order asked for (once, or once per -count)? 1 or 0. */
int rt_goorder_same(json_t *ran, char *const *order);
void rt_goorder_close(rt_goorder *g);

#endif
