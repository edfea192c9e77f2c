/* bench/stopping-rules: the statistical efficiency of rt-verify's stopping
 * rules, by simulation with fixed seeds, against a fixed budget and naive
 * Wilson peeking. Built and run by bench/stopping-rules.sh. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_stats.h"

/* rt-verify's defaults */
#define CONF    0.95
#define TARGET  0.10
#define N0      40      /* baseline trials */
#define NMAX    100     /* the most trials a lane may run */
#define NFIXED  50      /* the fixed-budget comparison */
#define NMAXN   100     /* naive peeking's cap */

enum { ANYTIME, FIXED50, NAIVE, NRULES };
static const char *const rule_name[] = { "anytime (rt-verify)", "fixed 50", "naive Wilson peek" };
enum { V_FIXED, V_IMPROVED, V_QUARANTINE, V_GATE, NV };

static uint64_t
mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

typedef struct { uint64_t s; } rng;

static double
unif(rng *r)
{
	r->s = mix(r->s);
	return (double)(r->s >> 11) / 9007199254740992.0;
}

static int
trial_fails(rng *r, double p)
{
	return unif(r) < p;
}

/* Intervals depend on (k, n) only: compute each once. */
static rt_interval cs_tab[NMAX + 1][NMAX + 1], wil_tab[NMAXN + 1][NMAXN + 1];

static void
tables(void)
{
	long n, k;

	for (n = 0; n <= NMAX; n++)
		for (k = 0; k <= n; k++)
			rt_cs_interval(k, n, CONF, 0, 0, &cs_tab[n][k]);
	for (n = 0; n <= NMAXN; n++)
		for (k = 0; k <= n; k++)
			rt_wilson(k, n, CONF, &wil_tab[n][k]);
}

/* rt-verify's lane rule, one lane: hi < L0 survives, lo >= L0 is out,
 * the budget ends it. Returns 1 when the lane is significantly better. */
static int
lane_anytime(rng *r, double p1, double L0, long *used)
{
	long n, k = 0;

	for (n = 1; n <= NMAX; n++) {
		k += trial_fails(r, p1);
		if (cs_tab[n][k].high < L0) {
			*used = n;
			return 1;
		}
		if (cs_tab[n][k].low >= L0) {
			*used = n;
			return 0;
		}
	}
	*used = NMAX;
	return 0;
}

static int
lane_fixed(rng *r, double p1, double L0, long *used)
{
	long n, k = 0;
	rt_interval w;

	for (n = 0; n < NFIXED; n++)
		k += trial_fails(r, p1);
	rt_wilson(k, NFIXED, CONF, &w);
	*used = NFIXED;
	return w.high < L0;
}

/* The tempting mistake: the same decisions, but with a plain Wilson
 * interval looked at after every trial. */
static int
lane_naive(rng *r, double p1, double L0, long *used)
{
	long n, k = 0;

	for (n = 1; n <= NMAXN; n++) {
		k += trial_fails(r, p1);
		if (wil_tab[n][k].high < L0) {
			*used = n;
			return 1;
		}
		if (wil_tab[n][k].low >= L0) {
			*used = n;
			return 0;
		}
	}
	*used = NMAXN;
	return 0;
}

typedef struct {
	long reps, raced, selected, v[NV], false_fixed, wrong;
	double lane_trials, confirm_trials, total_trials;
} stat;

static void
simulate(double p0, double p1, long reps, uint64_t seed, stat st[NRULES])
{
	long rep, k0, i, used, kc, need;
	int rule, better, v;
	double L0, pref, p0hat;
	rt_interval w, d;
	rng rb, rl, rc;

	memset(st, 0, sizeof(stat) * NRULES);
	for (rep = 0; rep < reps; rep++) {
		/* the same baseline and the same lane trials for every rule */
		rb.s = mix(seed ^ ((uint64_t)rep << 20) ^ 1);
		for (k0 = 0, i = 0; i < N0; i++)
			k0 += trial_fails(&rb, p0);
		for (rule = 0; rule < NRULES; rule++) {
			stat *s = &st[rule];
			s->reps++;
			if (rt_detect(k0, N0, TARGET, CONF) != RT_VERDICT_FLAKY) {
				s->v[V_GATE]++;
				s->total_trials += N0;
				continue;
			}
			s->raced++;
			rt_wilson(k0, N0, CONF, &w);
			L0 = w.low;
			rl.s = mix(seed ^ ((uint64_t)rep << 20) ^ 2);
			better = rule == ANYTIME ? lane_anytime(&rl, p1, L0, &used) :
			    rule == FIXED50 ? lane_fixed(&rl, p1, L0, &used) :
			    lane_naive(&rl, p1, L0, &used);
			s->lane_trials += (double)used;
			s->total_trials += N0 + (double)used;
			p0hat = (double)k0 / N0;
			pref = p0hat < TARGET ? p0hat : TARGET;
			if (!better) {
				v = V_QUARANTINE;
			} else {
				s->selected++;
				/* one candidate: m = 1, c_m = c */
				rt_runs_to_claim(pref, CONF, &need);
				rc.s = mix(seed ^ ((uint64_t)rep << 20) ^ 3);
				for (kc = 0, i = 0; i < need; i++)
					kc += trial_fails(&rc, p1);
				s->confirm_trials += (double)need;
				s->total_trials += (double)need;
				rt_newcombe(k0, N0, kc, need, CONF, &d);
				v = kc == 0 ? V_FIXED : d.low > 0 ? V_IMPROVED : V_QUARANTINE;
			}
			s->v[v]++;
			/* FIXED claims "rate < p_ref"; it is false when p1 >= p_ref */
			if (v == V_FIXED && p1 >= pref)
				s->false_fixed++;
			/* wrong: a claimed improvement that is not one, or a real
			 * fix lost to QUARANTINE */
			if (p1 >= p0 ? (v == V_FIXED || v == V_IMPROVED) : v == V_QUARANTINE)
				s->wrong++;
		}
	}
}

int
main(int argc, char *argv[])
{
	static const double base[] = { 0.05, 0.20, 0.50 };
	long reps = argc > 1 ? atol(argv[1]) : 20000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20261130;
	stat st[NRULES];
	size_t b, f;
	int rule;
	double worst_ff = 0;

	if (reps <= 0) {
		fprintf(stderr, "usage: stopping-rules [REPS [SEED]]\n");
		return 2;
	}
	tables();
	printf("rt-verify stopping rules: %ld runs per row, seed %llu, baseline %d trials,\n"
	    "confidence %.2f, target %.0f%%, lane cap %d (naive %d), fixed budget %d.\n"
	    "lane = mean trials per raced lane to its decision; confirm and total are\n"
	    "per run (total includes the baseline); verdict shares are of all runs\n"
	    "(gate: the baseline was not FLAKY, no race); wrong = a claimed\n"
	    "improvement that is none, or a real fix lost to QUARANTINE, of raced\n"
	    "runs; false FIXED = FIXED while the fix's rate is not below p_ref, of\n"
	    "all runs; selected = lanes the race called better, of raced runs.\n\n",
	    reps, (unsigned long long)seed, N0, CONF, 100 * TARGET, NMAX, NMAXN, NFIXED);
	printf("| base | fix  | rule                | lane  | confirm | total | selected | FIXED | IMPROVED | QUARANTINE | gate  | wrong | false FIXED |\n");
	printf("|------|------|---------------------|-------|---------|-------|----------|-------|----------|------------|-------|-------|-------------|\n");
	for (b = 0; b < 3; b++) {
		double fixes[3] = { 0.0, 0.02, base[b] };
		for (f = 0; f < 3; f++) {
			simulate(base[b], fixes[f], reps, seed ^ (b * 16 + f) * 0x1000003ULL, st);
			for (rule = 0; rule < NRULES; rule++) {
				stat *s = &st[rule];
				double r = (double)s->reps, rr = s->raced ? (double)s->raced : 1;
				double ff = 100.0 * (double)s->false_fixed / r;
				if (ff > worst_ff)
					worst_ff = ff;
				printf("| %3.0f%% | %-4s | %-19s | %5.1f | %7.1f | %5.1f | %7.1f%% | %4.1f%% | %7.1f%% | %9.1f%% | %4.1f%% | %4.1f%% | %10.2f%% |\n",
				    100 * base[b], f == 2 ? "same" : f == 0 ? "0%" : "2%",
				    rule_name[rule], s->lane_trials / rr,
				    s->confirm_trials / r, s->total_trials / r,
				    100.0 * (double)s->selected / rr,
				    100.0 * (double)s->v[V_FIXED] / r,
				    100.0 * (double)s->v[V_IMPROVED] / r,
				    100.0 * (double)s->v[V_QUARANTINE] / r,
				    100.0 * (double)s->v[V_GATE] / r,
				    100.0 * (double)s->wrong / rr, ff);
			}
		}
	}
	printf("\nworst false FIXED: %.2f%% (must stay at or below %.0f%%)\n", worst_ff,
	    100 * (1 - CONF));
	return worst_ff <= 100 * (1 - CONF) ? 0 : 1;
}
