/* bench/stopping-rules: rt-verify's tournament (lib/rt_tournament, the code
 * rt-verify runs) on Bernoulli stub trials from a seeded PRNG; the false
 * FIXED rate of every cell gated at 5% by its 99% upper bound, and the tie
 * cells' FIXED by the real fix at 99% (not shown below it).
 * usage: stopping-rules [-q] [-r REPS] [-s SEED] [--mutate every-lane-better] */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_hyp.h"
#include "rt_stats.h"
#include "rt_tournament.h"
#include "rt_util.h"

#define MAXLANES 8
#define GATE     0.05    /* false FIXED at most, per cell */
#define GATE_C   0.99    /* judged by this upper bound */
#define POWER    0.99    /* a tie cell: FIXED by the real fix at least */
#define QUICK    200     /* -q: runs a cell (t/32-tournament.bats) */

static int mutate;       /* --mutate every-lane-better: the race's test hook */

static uint64_t
mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

typedef struct {
	uint64_t s;
	double p0;               /* the original's rate */
} sim;

/* One trial: a lane's rate is its user pointer's, the original's p0. */
static rt_outcome
stub_trial(void *ctx, rt_tour_lane *l, long trial)
{
	sim *S = ctx;
	double p = l->user ? *(const double *)l->user : S->p0;

	(void)trial;
	S->s = mix(S->s);
	return (double)(S->s >> 11) / 9007199254740992.0 < p ? RT_FAIL : RT_PASS;
}

static const rt_tour_ops stub_ops = { .run = stub_trial };

typedef struct {
	long reps, fixed, false_fixed, improved, fixed_by_fix;
	double trials;
} cell;

/* One rt-verify run with rt-verify's defaults: lanes at rates pl, the
 * original at p0. A FIXED is false when the winner's true rate is not
 * below min(target, p0), the rate FIXED claims it is below. */
static void
run_once(const double *pl, const long *dl, int nl, double p0, uint64_t seed, cell *c)
{
	static const char *const ids[MAXLANES] = { "lane1", "lane2", "lane3", "lane4",
	    "lane5", "lane6", "lane7", "lane8" };
	rt_hyp h[MAXLANES];
	rt_tour T;
	sim S = { mix(seed), p0 };
	rt_tour_lane *l;
	double used;
	int i;

	rt_tour_init(&T);
	T.ops = &stub_ops;
	T.ctx = &S;
	T.mutate_every_lane_better = mutate;
	memset(h, 0, sizeof h);
	for (i = 0; i < nl; i++) {
		h[i].id = ids[i];
		h[i].patch = "--- a/t\n+++ b/t\n";
		h[i].status = "ok";
		h[i].index = i;
		l = rt_tour_add(&T, &h[i]);
		l->user = &pl[i];
		l->diff_lines = dl ? dl[i] : 2;
	}
	if (rt_tour_run(&T) < 0)
		rt_die("interrupted");
	used = (double)(T.base.t.trials + T.base.t.errors);
	for (i = 0; i < nl; i++)
		used += (double)T.lanes[i]->t.trials;
	for (i = 0; i < T.nrounds; i++)
		used += (double)T.rounds[i]->t.trials;
	c->reps++;
	c->trials += used;
	if (!strcmp(T.verdict, "FIXED")) {
		double p = *(const double *)T.winner->user;
		c->fixed++;
		if (p >= (p0 < T.target ? p0 : T.target))
			c->false_fixed++;
		if (p == 0)
			c->fixed_by_fix++;
	} else if (!strcmp(T.verdict, "IMPROVED"))
		c->improved++;
	rt_tour_free(&T);
}

/* The one-sided 99% bounds of a false FIXED rate k/n: the exact bound
 * for 0/n, else Wilson's (a two-sided 98% interval is two one-sided 99%). */
static double
upper(long k, long n)
{
	rt_interval w;

	if (k == 0)
		return rt_zero_bound(n, GATE_C);
	rt_wilson(k, n, 2 * GATE_C - 1, &w);
	return w.high;
}

static double
lower(long k, long n)
{
	rt_interval w;

	if (k == 0)
		return 0;
	rt_wilson(k, n, 2 * GATE_C - 1, &w);
	return w.low;
}

static char failed[2048];
static int nfailed;

/* Run a cell, print its row, gate its false FIXED: shown ≤ 5% (its 99%
 * upper bound), or, at the boundary (at_level), where the split
 * confirmation spends its whole 5% by design, not shown above 5% (its 99%
 * lower bound). With need_fix, also FIXED by the real fix not shown below
 * 99% (the 99% upper bound of its rate). */
static void
do_cell(const char *kind, const double *pl, const long *dl, int nl, double p0, long reps,
    uint64_t seed, int at_level, int need_fix)
{
	cell c;
	long r;
	double up;
	char name[80], lanes[80] = "";
	int i, bad;

	memset(&c, 0, sizeof c);
	for (r = 0; r < reps; r++)
		run_once(pl, dl, nl, p0, mix(seed ^ ((uint64_t)r << 24)), &c);
	for (i = 0; i < nl; i++)
		snprintf(lanes + strlen(lanes), sizeof lanes - strlen(lanes), "%s%g%%",
		    i ? "," : "", 100 * pl[i]);
	snprintf(name, sizeof name, "%s %g%%", kind, 100 * p0);
	up = at_level ? lower(c.false_fixed, c.reps) : upper(c.false_fixed, c.reps);
	bad = up > GATE;
	if (need_fix && 1 - lower(c.reps - c.fixed_by_fix, c.reps) < POWER)
		bad = 1;
	printf("| %-14s | %-19s | %5.1f%% | %5.1f%% | %ld/%ld | %s%.2f%% | %7.0f | %s |\n",
	    name, lanes, 100.0 * (double)c.fixed_by_fix / (double)c.reps,
	    100.0 * (double)c.improved / (double)c.reps, c.false_fixed, c.reps,
	    at_level ? "≥" : "≤", 100 * up, c.trials / (double)c.reps,
	    bad ? "**FAIL**" : "ok");
	if (bad) {
		snprintf(failed + strlen(failed), sizeof failed - strlen(failed), "%s%s",
		    nfailed ? ", " : "", name);
		nfailed++;
	}
}

static void
usage(FILE *f)
{
	fputs("usage: stopping-rules [-q] [-r REPS] [-s SEED] [--mutate every-lane-better]\n", f);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "reps", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "mutate", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const double low[] = { 0.02, 0.05, 0.10 }, high[] = { 0.15, 0.30, 0.50 };
	static const double power[] = { 0.02, 0.05, 0.10, 0.15, 0.30 };
	long reps = 2000;
	uint64_t seed = 20261130;
	size_t i;
	int opt, bad = 0;

	rt_setprogname(argv[0]);
	while ((opt = getopt_long(argc, argv, "qr:s:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'q':
			reps = QUICK;
			break;
		case 'r':
			reps = rt_num_long("-r", optarg, 1, 100000000);
			break;
		case 's':
			seed = (uint64_t)rt_num_long("-s", optarg, 0, 0x7fffffffffffffffL);
			break;
		case 'm':
			if (strcmp(optarg, "every-lane-better") != 0)
				rt_usage_die("--mutate %s: want every-lane-better", optarg);
			mutate = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	printf("rt-verify's tournament (lib/rt_tournament) on Bernoulli stubs: %ld runs "
	    "a cell, seed %llu, rt-verify's defaults (confidence 0.95, target 0.10, 40 "
	    "baseline trials, 2 confirmation rounds)%s\n", reps, (unsigned long long)seed,
	    mutate ? "; MUTATED: the race declares every lane better" : "");
	printf("gate: false FIXED (the winner's true rate not below min(target, original)) "
	    "≤ 5%% in every cell: its 99%% upper bound ≤ 5%%; at the boundary, where the "
	    "rule spends its 5%% by design, its 99%% lower bound ≤ 5%%; in the tie cells "
	    "also FIXED by the real fix ≥ 99%%: its 99%% upper bound ≥ 99%%\n\n");
	printf("| cell           | lanes               | FIXED by the fix | IMPROVED | "
	    "false FIXED | 99%% bound | mean trials | gate |\n|---|---|---|---|---|---|---|---|\n");
	/* power: a real fix (rate 0) beside a decoy at the original's rate */
	for (i = 0; i < sizeof power / sizeof power[0]; i++) {
		double pl[2] = { 0, power[i] };
		do_cell("power", pl, NULL, 2, power[i], reps, seed + i, 0, 0);
	}
	/* no-op: one patch that changes nothing */
	for (i = 0; i < 3; i++) {
		double pl[1] = { low[i] };
		do_cell("no-op", pl, NULL, 1, low[i], reps, seed + 100 + i, 0, 0);
	}
	for (i = 0; i < 3; i++) {
		double pl[1] = { high[i] };
		do_cell("no-op", pl, NULL, 1, high[i], reps, seed + 110 + i, 0, 0);
	}
	/* boundary: every lane just at the rate FIXED must prove it below,
	 * min(target, original) */
	for (i = 0; i < 3; i++) {
		double pl[5] = { low[i], low[i], low[i], low[i], low[i] };
		do_cell("boundary", pl, NULL, 5, low[i], reps, seed + 200 + i, 1, 0);
	}
	for (i = 0; i < 3; i++) {
		double pl1[1] = { 0.10 }, pl5[5] = { 0.10, 0.10, 0.10, 0.10, 0.10 };
		do_cell("boundary", pl1, NULL, 1, high[i], reps, seed + 210 + i, 1, 0);
		do_cell("boundary×5", pl5, NULL, 5, high[i], reps, seed + 220 + i, 1, 0);
	}
	/* between the target and the original */
	{
		double pl[2] = { 0.15, 0.20 };
		do_cell("between", pl, NULL, 2, 0.30, reps, seed + 500, 0, 0);
	}
	/* tie: a real fix with a 50-line diff, input last, beside four partial
	 * fixes at the target with 5-line diffs (a one-line sleep): the real
	 * fix must win, FIXED in at least 99% of runs */
	for (i = 0; i < 2; i++) {
		static const double p0s[] = { 0.30, 0.50 };
		double pl[5] = { 0.10, 0.10, 0.10, 0.10, 0 };
		long dl[5] = { 5, 5, 5, 5, 50 };
		do_cell("tie", pl, dl, 5, p0s[i], reps, seed + 600 + i, 0, 1);
	}

	/* rt-measure's detect verdicts, exactly: sum of Binom(k; n, p) over the
	 * k that rt_detect calls STABLE (or ALWAYS_FAILING) */
	printf("\n## rt-measure's verdicts at fixed n, exact: false STABLE (threshold 10%%) "
	    "and false ALWAYS_FAILING; must be ≤ 5%%\n\n");
	printf("| true rate | n | P(STABLE) | P(ALWAYS_FAILING) |\n|---|---|---|---|\n");
	{
		static const double ps[] = { 0.15, 0.9 };
		static const long ns[] = { 20, 29, 40, 200 };
		size_t pi, ni;
		for (pi = 0; pi < 2; pi++)
			for (ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
				double st = 0, af = 0, pr;
				long k, n = ns[ni];
				for (k = 0; k <= n; k++) {
					rt_verdict vd = rt_detect(k, n, 0.10, 0.95);
					pr = exp(lgamma((double)n + 1) - lgamma((double)k + 1) -
					    lgamma((double)(n - k) + 1) + (double)k * log(ps[pi]) +
					    (double)(n - k) * log1p(-ps[pi]));
					if (vd == RT_VERDICT_STABLE)
						st += pr;
					else if (vd == RT_VERDICT_ALWAYS_FAILING)
						af += pr;
				}
				if (st > GATE || af > GATE)
					bad = 1;
				printf("| %.0f%% | %ld | %.3g%% | %.3g%% |\n", 100 * ps[pi], n,
				    100 * st, 100 * af);
			}
	}
	if (bad) {
		snprintf(failed + strlen(failed), sizeof failed - strlen(failed), "%s%s",
		    nfailed ? ", " : "", "rt-measure's exact verdicts");
		nfailed++;
	}
	if (nfailed)
		printf("\ngate: FAIL: %s\n", failed);
	else
		printf("\ngate: pass\n");
	rt_fshut(stdout, "stdout");
	return nfailed ? 1 : 0;
}
