/* bench/stopping-rules: rt-verify's whole decision procedure on Bernoulli
 * stubs — the detect gate, the paired race with the original run on, the
 * budgets, the split confirmation — calling the shipped rules in lib/
 * (rt_detect, rt_race_*, rt_confirm_*), against the rule it replaced.
 * Built and run by bench/stopping-rules.sh. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_race.h"
#include "rt_stats.h"

/* rt-verify's defaults */
#define CONF     0.95
#define TARGET   0.10
#define N0       40      /* baseline trials before the race */
#define ROUNDS   2       /* --confirmations */
#define MAXLANES 8
#define OLD_NMAX 100     /* the replaced rule's lane cap */

enum { V_FIXED, V_IMPROVED, V_QUARANTINE, V_GATE, NV };

static double weak_conf = 0;    /* WEAKEN=1: confirm at 80%, to show the gate fails */

static uint64_t
mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

typedef struct { uint64_t s; } rng;

static int
fails(rng *r, double p)
{
	r->s = mix(r->s);
	return (double)(r->s >> 11) / 9007199254740992.0 < p;
}

typedef struct {
	double p;
	long n, k, lim;
	int open, better;
	rt_race_pairs rp;
	rt_race_state st;
	rt_interval iv;
} slane;

typedef struct {
	long reps, v[NV], winner_real;   /* winner_real: FIXED by a lane with p <= TARGET/2 */
	double trials;
} stat;

/* The original's sequence, grown on demand (shared by the lanes). */
typedef struct {
	unsigned char *f;
	long n, k, cap;
	rng r;
	double p;
} base_t;

static int
base_at(base_t *b, long i)
{
	while (b->n <= i) {
		if (b->n == b->cap) {
			b->cap = b->cap ? 2 * b->cap : 1024;
			b->f = realloc(b->f, (size_t)b->cap);
		}
		b->f[b->n] = (unsigned char)fails(&b->r, b->p);
		b->k += b->f[b->n++];
	}
	return b->f[i];
}

static int
cand_cmp(const void *pa, const void *pb)
{
	const slane *a = *(slane *const *)pa, *b = *(slane *const *)pb;
	double ra = (double)a->k / (double)a->n, rb = (double)b->k / (double)b->n;

	return ra < rb ? -1 : ra > rb;
}

/* One rt-verify run: the new rules (old = 0) or the replaced ones (old = 1:
 * a fixed 40-trial baseline, the lane's own anytime interval below the
 * baseline's Wilson interval, 100 trials at most). */
static int
run_once(const double *pl, int nl, double p0, uint64_t seed, int old, long *used)
{
	base_t b = { 0 };
	slane L[MAXLANES], *cand[MAXLANES];
	long i, need, m, required, nc = 0, j, stable_cap;
	double pref, cm;
	int open, verdict = V_QUARANTINE, li;
	rt_verdict gate;
	rt_interval wb;
	rng rl, rc;

	b.r.s = mix(seed ^ 1);
	b.p = p0;
	*used = 0;
	for (i = 0; i < N0; i++)
		base_at(&b, i);
	if (!old && b.k == 0 && rt_runs_to_claim(0.01, CONF, &stable_cap) == RT_STATS_OK)
		for (i = N0; i < stable_cap && b.k == 0; i++)
			base_at(&b, i);
	gate = rt_detect(b.k, b.n, TARGET, CONF);
	if (gate != RT_VERDICT_FLAKY) {
		*used = b.n;
		free(b.f);
		return V_GATE;
	}
	rt_wilson(b.k, b.n, CONF, &wb);
	rl.s = mix(seed ^ 2);
	memset(L, 0, sizeof L);
	for (li = 0; li < nl; li++) {
		L[li].p = pl[li];
		L[li].open = 1;
		L[li].lim = old ? OLD_NMAX : rt_race_budget(b.k, b.n, CONF);
	}
	/* lockstep: pair i of every open lane; the original grows with them */
	for (i = 0, open = nl; open > 0; i++) {
		for (li = 0; li < nl; li++) {
			slane *l = &L[li];
			int f;
			if (!l->open)
				continue;
			f = fails(&rl, l->p);
			l->n++;
			l->k += f;
			if (old) {
				rt_cs_interval(l->k, l->n, CONF, 0, 0, &l->iv);
				if (l->iv.high < wb.low)
					l->better = 1, l->open = 0;
				else if (l->iv.low >= wb.low || l->n >= l->lim)
					l->open = 0;
			} else {
				int bf = base_at(&b, i);
				long d0 = l->rp.lane_only + l->rp.base_only;
				rt_race_add(&l->rp, bf, f);
				if (l->rp.lane_only + l->rp.base_only != d0)
					l->st = rt_race_decide(&l->rp, CONF, NULL);
				l->lim = rt_race_budget(b.k, b.n, CONF);
				if (l->st == RT_RACE_BETTER)
					l->better = 1, l->open = 0;
				else if (l->st == RT_RACE_FUTILE || l->n >= l->lim)
					l->open = 0;
			}
			if (!l->open)
				open--;
		}
	}
	for (li = 0; li < nl; li++) {
		*used += L[li].n;
		if (L[li].better)
			cand[nc++] = &L[li];
	}
	*used += old ? N0 : b.n;
	if (nc > 0) {
		qsort(cand, (size_t)nc, sizeof *cand, cand_cmp);
		m = nc < ROUNDS ? nc : ROUNDS;
		cm = rt_confirm_level(weak_conf > 0 ? weak_conf : CONF, m);
		rt_confirm_runs(b.k, old ? N0 : b.n, TARGET, cm, &pref, &required);
		if (old) {
			double p0h = (double)b.k / N0;
			pref = p0h < TARGET ? p0h : TARGET;
			rt_runs_to_claim(pref, cm, &required);
		}
		rc.s = mix(seed ^ 3);
		verdict = V_QUARANTINE;
		for (j = 0; j < m; j++) {
			long k = 0;
			rt_interval d;
			for (need = 0; need < required; need++)
				k += fails(&rc, cand[j]->p);
			*used += required;
			if (k == 0) {
				verdict = V_FIXED;
				if (cand[j]->p <= TARGET / 2)
					verdict = V_FIXED + 10;
				break;
			}
			rt_newcombe(b.k, b.n, k, required, cm, &d);
			if (d.low > 0 && verdict == V_QUARANTINE)
				verdict = V_IMPROVED;
		}
	}
	free(b.f);
	return verdict;
}

static void
simulate(const double *pl, int nl, double p0, long reps, uint64_t seed, int old,
    stat *st)
{
	long rep, used;
	int v;

	memset(st, 0, sizeof *st);
	st->reps = reps;
	for (rep = 0; rep < reps; rep++) {
		v = run_once(pl, nl, p0, mix(seed ^ ((uint64_t)rep << 24)), old, &used);
		if (v >= 10) {
			st->winner_real++;
			v -= 10;
		}
		st->v[v]++;
		st->trials += (double)used;
	}
}

/* "12.3% (11.9–12.8)" with the Wilson 95% interval of the estimate */
static const char *
est(char *buf, size_t size, long k, long n)
{
	rt_interval w;

	rt_wilson(k, n, 0.95, &w);
	if (k == 0)
		snprintf(buf, size, "0/%ld (≤%.2f%%)", n, 100 * (1 - pow(0.05, 1.0 / (double)n)));
	else
		snprintf(buf, size, "%.2f%% (%.2f–%.2f)", 100.0 * (double)k / (double)n,
		    100 * w.low, 100 * w.high);
	return buf;
}

int
main(int argc, char *argv[])
{
	long reps = argc > 1 ? atol(argv[1]) : 20000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 20261130;
	static const double bases[] = { 0.02, 0.05, 0.10, 0.15, 0.30 };
	static const double bnd[] = { 0.15, 0.30, 0.50 };
	char a[64], b[64], c[64];
	stat s, o;
	size_t i;
	int bad = 0, nl;
	const char *w = getenv("WEAKEN");

	if (w && *w == '1')
		weak_conf = 0.80;
	if (reps < 1)
		reps = 1;
	printf("rt-verify's decision procedure on Bernoulli stubs: %ld runs a row, seed "
	    "%llu, confidence %g, target %g, %d baseline trials first, %d confirmation "
	    "rounds at most%s\n\n", reps, (unsigned long long)seed, CONF, TARGET, N0, ROUNDS,
	    weak_conf > 0 ? "; WEAKENED: confirmation at 80%" : "");

	printf("## Power: a real fix (rate 0) and a decoy (the original's rate)\n\n");
	printf("| original | P(FIXED by the fix), now | mean trials, now | P(FIXED by the fix), before | mean trials, before |\n");
	printf("|---|---|---|---|---|\n");
	for (i = 0; i < sizeof bases / sizeof bases[0]; i++) {
		double pl[2] = { 0, bases[i] };
		simulate(pl, 2, bases[i], reps, seed + i, 0, &s);
		simulate(pl, 2, bases[i], reps, seed + i, 1, &o);
		printf("| %.0f%% | %s | %.0f | %s | %.0f |\n", 100 * bases[i],
		    est(a, sizeof a, s.winner_real, reps), s.trials / (double)reps,
		    est(b, sizeof b, o.winner_real, reps), o.trials / (double)reps);
	}

	printf("\n## False FIXED at the boundary: every lane's rate equals the target "
	    "(FIXED claims it is below); must be ≤ 5%%\n\n");
	printf("| original | lanes | P(FIXED) | P(IMPROVED) | mean trials |\n|---|---|---|---|---|\n");
	for (i = 0; i < sizeof bnd / sizeof bnd[0]; i++) {
		for (nl = 1; nl <= 5; nl += 4) {
			double pl[MAXLANES];
			int j;
			rt_interval wi;
			for (j = 0; j < nl; j++)
				pl[j] = TARGET;
			simulate(pl, nl, bnd[i], reps, seed + 100 + i * 10 + (uint64_t)nl, 0, &s);
			rt_wilson(s.v[V_FIXED], reps, 0.95, &wi);
			if (wi.low > 1 - CONF)
				bad = 1;
			printf("| %.0f%% | %d | %s | %s | %.0f |%s\n", 100 * bnd[i], nl,
			    est(a, sizeof a, s.v[V_FIXED], reps),
			    est(b, sizeof b, s.v[V_IMPROVED], reps), s.trials / (double)reps,
			    wi.low > 1 - CONF ? " **over 5%**" : "");
		}
	}

	printf("\n## Between the target and the original: lanes at 15%% and 20%% against 30%%\n\n");
	printf("| lanes | P(FIXED) | P(IMPROVED) | P(QUARANTINE) |\n|---|---|---|---|\n");
	{
		double pl[2] = { 0.15, 0.20 };
		rt_interval wi;
		simulate(pl, 2, 0.30, reps, seed + 500, 0, &s);
		rt_wilson(s.v[V_FIXED], reps, 0.95, &wi);
		if (wi.low > 1 - CONF)
			bad = 1;
		printf("| 15%%, 20%% | %s | %s | %s |\n", est(a, sizeof a, s.v[V_FIXED], reps),
		    est(b, sizeof b, s.v[V_IMPROVED], reps),
		    est(c, sizeof c, s.v[V_QUARANTINE], reps));
	}

	printf("\n## No effect: every lane at the original's rate (a decoy race)\n\n");
	printf("| original | lanes | P(FIXED) | mean trials |\n|---|---|---|---|\n");
	for (i = 0; i < sizeof bnd / sizeof bnd[0]; i++) {
		double pl[5] = { bnd[i], bnd[i], bnd[i], bnd[i], bnd[i] };
		rt_interval wi;
		simulate(pl, 5, bnd[i], reps / 4 > 0 ? reps / 4 : 1, seed + 700 + i, 0, &s);
		rt_wilson(s.v[V_FIXED], s.reps, 0.95, &wi);
		if (wi.low > 1 - CONF)
			bad = 1;
		printf("| %.0f%% | 5 | %s | %.0f |\n", 100 * bnd[i],
		    est(a, sizeof a, s.v[V_FIXED], s.reps), s.trials / (double)s.reps);
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
					rt_verdict vd = rt_detect(k, n, TARGET, CONF);
					pr = exp(lgamma((double)n + 1) - lgamma((double)k + 1) -
					    lgamma((double)(n - k) + 1) + (double)k * log(ps[pi]) +
					    (double)(n - k) * log1p(-ps[pi]));
					if (vd == RT_VERDICT_STABLE)
						st += pr;
					else if (vd == RT_VERDICT_ALWAYS_FAILING)
						af += pr;
				}
				if (st > 1 - CONF || af > 1 - CONF)
					bad = 1;
				printf("| %.0f%% | %ld | %.3g%% | %.3g%% |\n", 100 * ps[pi], n,
				    100 * st, 100 * af);
			}
	}

	/* the quarantine rule: m exhausted runs of the last 100, checked after
	 * every run; simulated over 100 checks at the rate it was planned for */
	printf("\n## The quarantine rule: a false alarm within 100 checks, planned and run "
	    "at the same exhaustion rate q; must be ≤ 5%%\n\n");
	printf("| q | m of 100 | P(false alarm) |\n|---|---|---|\n");
	{
		static const double qs[] = { 0.01, 0.05, 0.2 };
		size_t qi;
		for (qi = 0; qi < 3; qi++) {
			long m, alarms = 0, rep2, t, cnt;
			unsigned char win[199];
			rng rq;
			rt_interval wi;
			rt_quarantine_after(qs[qi], 100, CONF, &m);
			rq.s = mix(seed + 900 + qi);
			for (rep2 = 0; rep2 < reps; rep2++) {
				for (t = 0, cnt = 0; t < 199; t++) {
					win[t] = (unsigned char)fails(&rq, qs[qi]);
					cnt += win[t];
					if (t >= 100)
						cnt -= win[t - 100];
					if (t >= 99 && cnt >= m) {
						alarms++;
						break;
					}
				}
			}
			rt_wilson(alarms, reps, 0.95, &wi);
			if (wi.low > 1 - CONF)
				bad = 1;
			printf("| %g | %ld | %s |\n", qs[qi], m, est(a, sizeof a, alarms, reps));
		}
	}
	printf("\ngate: %s (fails when a false-FIXED, false-verdict or false-alarm "
	    "estimate lies above 5%%)\n", bad ? "FAIL" : "pass");
	return bad;
}
