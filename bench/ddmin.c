/* bench/ddmin: delta debugging under noise (issue 34), through the shipped
 * code: lib/rt_ddmin's search (rt_ddmin) and its probe rule
 * (rt_ddmin_step, the rule rt_fix's probes and rt-bisect's search probes
 * use), on simulated trials. Of 8 statements, 1 and 4 are needed; the
 * victim fails 2% of trials with both (and alone), 60% without them
 * (after its polluter). Each run first draws the order record's two
 * references as rt-bisect makes them for such a victim (the victim alone
 * and after the polluter, each run to rt-bisect's cap of 60 trials; their
 * anytime 95% intervals' inner bounds), then probes all 8 statements (as
 * rt_fix_minimise does; no patch unless that probe passes), then ddmin
 * with rt-diagnose's default budget of 30 probes.
 *
 * Gates (exit 1 when one fails): the emitted subset repairs the victim
 * (holds both needed statements) in >= 95% of runs, counting a run with
 * no patch as no repair; "minimal" is claimed for a subset that is not
 * the needed pair in <= 1%. Prints probes and trials a run.
 *
 * usage: ddmin [-q] [--mutate fixed]
 *   -q               2000 runs (make bench's small form), else 20000
 *   --mutate fixed   the fixed rule (no references: a pass after 8
 *                    passing trials, failing after 3 failing ones), which
 *                    judged the probes before; it fails the repair gate
 * DDMIN_MUTATE=fixed does the same from the environment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_ddmin.h"
#include "rt_stats.h"

#define N       8
#define CAP     60     /* rt-bisect's probe cap (its record's references.cap) */
#define BUDGET  30     /* rt-diagnose --max-probes' default */
#define CONF    0.95
#define P_FIXED 0.02
#define P_BROKE 0.60

static unsigned long long rng = 88172645463325252ULL;

static double
uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct {
	rt_ddmin_refs refs;
	long trials;
	long cap;
} sim;

/* one probe: trials until lib/rt_ddmin's rule decides */
static int
probe(const size_t *idx, size_t n, void *ctx)
{
	sim *s = ctx;
	int h1 = 0, h4 = 0, v;
	long f = 0, t = 0;
	size_t k;
	double pf;

	for (k = 0; k < n; k++)
		h1 |= idx[k] == 1, h4 |= idx[k] == 4;
	pf = h1 && h4 ? P_FIXED : P_BROKE;
	do {
		t++;
		s->trials++;
		f += uniform() < pf;
		v = rt_ddmin_step(&s->refs, f, t, s->cap);
	} while (v == RT_DDMIN_MORE);
	return v;
}

static long
binomial(long n, double p)
{
	long k = 0, i;

	for (i = 0; i < n; i++)
		k += uniform() < p;
	return k;
}

int
main(int argc, char **argv)
{
	const char *mut = getenv("DDMIN_MUTATE");
	long runs = 20000, r, emitted = 0, ok = 0, minimal = 0, wrong = 0, probes = 0;
	long undecided = 0, trials = 0;
	int i, fixed;
	size_t all[N], out[N], k, j;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-q"))
			runs = 2000;
		else if (!strcmp(argv[i], "--mutate") && i + 1 < argc)
			mut = argv[++i];
		else {
			fprintf(stderr, "usage: ddmin [-q] [--mutate fixed]\n");
			return 2;
		}
	}
	fixed = mut && !strcmp(mut, "fixed");
	if (mut && *mut && !fixed) {
		fprintf(stderr, "ddmin: --mutate %s: not a mutant (fixed)\n", mut);
		return 2;
	}
	for (j = 0; j < N; j++)
		all[j] = j;
	for (r = 0; r < runs; r++) {
		sim s = { { 0, 0, 0, 0 }, 0, 8 };
		rt_ddmin_opts o = { 0 };
		rt_interval a, f;
		int h1 = 0, h4 = 0;

		if (!fixed) {
			rt_cs_interval(binomial(CAP, P_FIXED), CAP, CONF, 0.5, 0.5, &a);
			rt_cs_interval(binomial(CAP, P_BROKE), CAP, CONF, 0.5, 0.5, &f);
			s.trials += 2 * CAP;
			if (a.high < f.low) {
				s.refs.have = 1;
				s.refs.pass_hi = a.high;
				s.refs.fail_lo = f.low;
				s.refs.conf = CONF;
				s.cap = CAP;
			}
		}
		if (probe(all, N, &s) == 1) {
			emitted++;
			o.max_probes = BUDGET - 1;
			k = rt_ddmin(N, probe, &s, &o, out);
			for (j = 0; j < k; j++)
				h1 |= out[j] == 1, h4 |= out[j] == 4;
			ok += h1 && h4;
			minimal += o.minimal;
			wrong += o.minimal && !(k == 2 && h1 && h4);
			probes += o.probes + 1;
			undecided += o.undecided;
		} else
			probes++;
		trials += s.trials;
	}
	printf("ddmin under noise (%s): %ld runs; a patch %.2f%%, repairs the victim "
	    "%.2f%% (gate >= 95%%); called minimal %.2f%%, wrongly %.2f%% (gate <= 1%%); "
	    "%.1f probes, %.1f undecided, %.0f trials a run\n",
	    fixed ? "the fixed rule" : "judged against the references", runs,
	    100.0 * (double)emitted / (double)runs, 100.0 * (double)ok / (double)runs,
	    100.0 * (double)minimal / (double)runs, 100.0 * (double)wrong / (double)runs,
	    (double)probes / (double)runs, (double)undecided / (double)runs,
	    (double)trials / (double)runs);
	return (double)ok / (double)runs >= 0.95 && (double)wrong / (double)runs <= 0.01 ? 0 : 1;
}
