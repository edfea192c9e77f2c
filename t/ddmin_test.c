/* ddmin_test: the lib/rt_ddmin driver of t/22-rt-diagnose-fix.bats. The
 * property of a subset of 0..N-1 is "holds every item of one of the given
 * sets" (each ARG a comma-separated set); prints the subset found, the
 * probes and whether it is 1-minimal.
 *	ddmin_test [-u ITEM] N MAXPROBES SET...      e.g. ddmin_test 8 30 1,4
 * With -u, a subset without the property that lacks ITEM is undecided (2),
 * as a noisy probe says. The noisy-victim bench is bench/ddmin. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_ddmin.h"

static int nsets;
static char **sets;
static long undecided = -1;   /* -u ITEM: a subset lacking it is only undecided */

static int
holds(const size_t *idx, size_t n, void *ctx)
{
	int s, all;
	char *copy, *w, *save;
	size_t i;

	(void)ctx;
	for (s = 0; s < nsets; s++) {
		copy = strdup(sets[s]);
		all = 1;
		for (w = strtok_r(copy, ",", &save); w && all; w = strtok_r(NULL, ",", &save)) {
			size_t want = (size_t)strtoul(w, NULL, 10);
			for (i = 0; i < n && idx[i] != want; i++)
				;
			all = i < n;
		}
		free(copy);
		if (all)
			return 1;
	}
	for (i = 0; i < n && (long)idx[i] != undecided; i++)
		;
	return undecided >= 0 && i == n ? 2 : 0;
}

int
main(int argc, char **argv)
{
	rt_ddmin_opts o = { 0 };
	size_t n, k, i, *out;

	if (argc > 2 && !strcmp(argv[1], "-u")) {
		undecided = strtol(argv[2], NULL, 10);
		argc -= 2;
		argv += 2;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: ddmin_test N MAXPROBES SET...\n");
		return 2;
	}
	n = (size_t)strtoul(argv[1], NULL, 10);
	o.max_probes = strtol(argv[2], NULL, 10);
	nsets = argc - 3;
	sets = argv + 3;
	out = calloc(n ? n : 1, sizeof *out);
	k = rt_ddmin(n, holds, NULL, &o, out);
	for (i = 0; i < k; i++)
		printf("%s%zu", i ? "," : "", out[i]);
	printf(" probes=%ld minimal=%d budget_out=%d", o.probes, o.minimal, o.budget_out);
	if (undecided >= 0)
		printf(" undecided=%ld", o.undecided);
	putchar('\n');
	free(out);
	return 0;
}
