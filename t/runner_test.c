/* runner_test: drive lib/rt_runner on captured runner output for
 * t/37-jest.bats.
 *   runner_test junit-id SUITE CLASSNAME NAME [FILE]   the canonical ID
 *   runner_test not-run KIND CODE OUT ERR              the reason, if not run
 *   runner_test retries CMD                            the hidden-retries warning
 *   runner_test select CMD                             the command's selections
 * Exit 0 an ID / not run / a warning, 1 none, 2 error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_runner.h"
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
	char why[400];

	rt_setprogname("runner_test");
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "junit-id")) {
		char *id = rt_runner_junit_id(*argv[2] ? argv[2] : NULL, argv[3], argv[4],
		    argc == 6 ? argv[5] : NULL, NULL);
		printf("%s\n", id);
		free(id);
		return 0;
	}
	if (argc == 6 && !strcmp(argv[1], "not-run")) {
		rt_runner_kind k;
		char *out = slurp(argv[4]), *err = slurp(argv[5]);
		int r;
		if (rt_runner_kind_parse(argv[2], &k) < 0)
			rt_die("%s: unknown runner", argv[2]);
		r = rt_runner_not_run(k, (int)rt_num_long("CODE", argv[3], 0, 255), out, err,
		    why, sizeof why);
		if (r)
			printf("%s\n", why);
		free(out);
		free(err);
		return r ? 0 : 1;
	}
	if (argc == 3 && !strcmp(argv[1], "retries")) {
		if (!rt_runner_hidden_retries(rt_runner_detect(argv[2], NULL), argv[2], NULL,
		    why, sizeof why))
			return 1;
		printf("%s\n", why);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "select")) {
		static const char *const kinds[] = { "path", "node", "dotted", "k",
			"discover", "gopkg", "gorun" };
		char *w[256];
		rt_runner_sel sel[64];
		size_t nw = rt_cmd_split(argv[2], w, 256), ns, i;

		ns = rt_runner_selections(w, nw, sel, 64);
		for (i = 0; i < ns; i++)
			printf("%zu %s %s %s\n", sel[i].segment,
			    rt_runner_kind_name(sel[i].runner), kinds[sel[i].kind], sel[i].text);
		for (i = 0; i < nw; i++)
			free(w[i]);
		rt_fshut(stdout, "stdout");
		return ns ? 0 : 1;
	}
	fprintf(stderr, "usage: runner_test junit-id SUITE CLASSNAME NAME [FILE] | "
	    "not-run KIND CODE OUT ERR | retries CMD | select CMD\n");
	return 2;
}
