/* ddmin_test: the lib/rt_ddmin driver of t/22-rt-diagnose-fix.bats. The
 * property of a subset of 0..N-1 is "holds every item of one of the given
 * sets" (each ARG a comma-separated set); prints the subset found, the
 * probes and whether it is 1-minimal.
 *	ddmin_test [-u ITEM] N MAXPROBES SET...      e.g. ddmin_test 8 30 1,4
 * With -u, a subset without the property that lacks ITEM is undecided (2),
 * as a noisy probe says.
 *	ddmin_test -noise RUNS
 * the noisy-victim bench of issue 34: of 8 statements 1 and 4 are needed;
 * the victim fails 60% of trials without both, 2% with them; each probe
 * judged as rt_fix judges one (a pass after 8 passing trials, decided
 * failing after 3 failing ones, else undecided), a budget of 29 probes.
 * Prints how often the subset found repairs the victim and is called
 * minimal, and the mean probes and trials. */
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

static unsigned long long rng = 88172645463325252ULL;
static long noise_trials;

static double
uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (rng >> 11) * (1.0 / 9007199254740992.0);
}

static int
noisy(const size_t *idx, size_t n, void *ctx)
{
	int has1 = 0, has4 = 0, pass = 0, fail = 0;
	double pf;
	size_t k;

	(void)ctx;
	for (k = 0; k < n; k++)
		has1 |= idx[k] == 1, has4 |= idx[k] == 4;
	pf = has1 && has4 ? 0.02 : 0.60;
	while (pass < 8 && !(pass == 0 && fail >= 3) && !(pass && fail)) {
		noise_trials++;
		if (uniform() < pf)
			fail++;
		else
			pass++;
	}
	return fail == 0 ? 1 : pass == 0 ? 0 : 2;
}

static int
bench(long runs)
{
	long r, ok = 0, minimal = 0, wrong = 0, probes = 0;
	size_t out[8], k, i;

	for (r = 0; r < runs; r++) {
		rt_ddmin_opts o = { 0 };
		int h1 = 0, h4 = 0;
		o.max_probes = 29;
		k = rt_ddmin(8, noisy, NULL, &o, out);
		for (i = 0; i < k; i++)
			h1 |= out[i] == 1, h4 |= out[i] == 4;
		ok += h1 && h4;
		minimal += o.minimal;
		wrong += o.minimal && !(h1 && h4);
		probes += o.probes;
	}
	printf("runs=%ld repairs=%.4f minimal=%.4f minimal_wrong=%.4f probes=%.1f trials=%.1f\n",
	    runs, (double)ok / runs, (double)minimal / runs, (double)wrong / runs,
	    (double)probes / runs, (double)noise_trials / runs);
	return 0;
}

int
main(int argc, char **argv)
{
	rt_ddmin_opts o = { 0 };
	size_t n, k, i, *out;

	if (argc == 3 && !strcmp(argv[1], "-noise"))
		return bench(strtol(argv[2], NULL, 10));
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
