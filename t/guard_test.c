/* guard_test: drive lib/rt_guard on fixture directories for t/33-guard.bats.
 *   guard_test check [-a RULE]... [-c COMMAND] DIFF BEFORE AFTER
 *                                     rule, reason, overruled, guard, checks
 *   guard_test canary DIR [-e EVIDENCE] (-c COMMAND | -k CASE_ID | -- ARGV...)
 *   guard_test locs FILE                               failing locations
 *   guard_test known RULE
 * Exit 0 nothing fired / placed, 1 fired / not placed, 2 error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_canary.h"
#include "rt_guard.h"
#include "rt_util.h"

static char *
slurp(const char *path)
{
	size_t len;
	char *s = rt_read_file(path, &len);

	if (!s)
		rt_die("%s:", path);
	return s;
}

int
main(int argc, char *argv[])
{
	rt_setprogname("guard_test");
	if (argc >= 3 && !strcmp(argv[1], "known"))
		return rt_guard_rule_known(argv[2]) ? 0 : 1;
	if (argc == 3 && !strcmp(argv[1], "locs")) {
		rt_failing_loc l[64];
		char *s = slurp(argv[2]);
		size_t i, n = rt_failing_locations(s, l, 64);
		for (i = 0; i < n; i++)
			printf("%s:%ld cls=%s test=%s raised=%d\n", l[i].file, l[i].line,
			    l[i].cls, l[i].test, l[i].raised);
		free(s);
		rt_fshut(stdout, "stdout");
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "check")) {
		char *allow[16];
		size_t na = 0, i;
		int a = 2, r;
		rt_guard_result *res = rt_xcalloc(1, sizeof *res);
		char *diff;
		const char *cmd = NULL;

		while (a + 1 < argc && (!strcmp(argv[a], "-a") || !strcmp(argv[a], "-c")) &&
		    na < 16) {
			if (argv[a][1] == 'c')
				cmd = argv[a + 1];   /* the test command (its python) */
			else
				allow[na++] = argv[a + 1];
			a += 2;
		}
		if (argc - a != 3)
			rt_die("usage: guard_test check [-a RULE]... [-c COMMAND] DIFF BEFORE AFTER");
		diff = slurp(argv[a]);
		r = rt_guard_check_cmd(diff, argv[a + 1], argv[a + 2], allow, na, cmd, NULL,
		    res);
		if (r < 0) {
			printf("error: %s\n", res->reason);
			free(diff);
			free(res);
			rt_fshut(stdout, "stdout");
			return 2;
		}
		printf("rule: %s\nreason: %s\n", res->rule ? res->rule : "none", res->reason);
		for (i = 0; i < res->noverruled; i++)
			printf("overruled: %s: %s\n", res->overruled[i].rule,
			    res->overruled[i].reason);
		printf("guard: %s\nchanges_checks: %d\nchecks: %s\n", res->guard,
		    res->changes_checks, res->checks);
		free(diff);
		free(res);
		rt_fshut(stdout, "stdout");
		return r;
	}
	if (argc >= 4 && !strcmp(argv[1], "canary")) {
		const char *cmd = NULL, *id = NULL;
		char *ev = NULL, **av = NULL, what[1024];
		int a = 3, r;

		while (a < argc) {
			if (!strcmp(argv[a], "-e") && a + 1 < argc) {
				ev = slurp(argv[a + 1]);
				a += 2;
			} else if (!strcmp(argv[a], "-c") && a + 1 < argc) {
				cmd = argv[a + 1];
				a += 2;
			} else if (!strcmp(argv[a], "-k") && a + 1 < argc) {
				id = argv[a + 1];   /* the judged case (rt-verify --case) */
				a += 2;
			} else if (!strcmp(argv[a], "--")) {
				av = argv + a + 1;
				break;
			} else {
				rt_die("canary: %s: unknown argument", argv[a]);
			}
		}
		/* the tree is its own original: its parser is trusted here */
		r = id ? rt_canary_place_case(argv[2], argv[2], id, ev, what, sizeof what) :
		    rt_canary_place(argv[2], argv[2], cmd, av, ev, what, sizeof what);
		if (r < 0)
			rt_die("canary in %s:", argv[2]);
		printf("%s: %s\n", r ? "placed" : "not placed", what);
		free(ev);
		rt_fshut(stdout, "stdout");
		return r ? 0 : 1;
	}
	fprintf(stderr, "usage: guard_test check|canary|locs|known ...\n");
	return 2;
}
