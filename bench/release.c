/* bench/release: rt-quarantine's release rule (lib/rt_plan's
 * rt_plan_release, the code rt-quarantine release runs) checked every night
 * for 365 nights, computed exactly by dynamic programming over the runs'
 * failure counts (no sampling): P(release | the rate unchanged at the level)
 * and P(release | still failing 2–10% at or above the level), each gated at
 * 5%; exit 1 when a cell is over. Each night is one run.
 * usage: release [-q] [--mutate anchor|old]
 *   -q                 fewer cells (make bench's small form, BENCH_SMALL=1)
 *   --mutate anchor    the same anytime bound, counted from the latest
 *                      failure (a clean streak), not from the listing
 *   --mutate old       the rule before issue 35: a clean streak since the
 *                      latest failure reaching rt-plan's runs for the listing
 * Either mutant fails the gate (exit 1); RELEASE_MUTATE=anchor|old does the
 * same from the environment. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_plan.h"
#include "rt_say.h"
#include "rt_stats.h"
#include "rt_util.h"

#define NIGHTS 365
#define CONF   0.95
#define GATE   0.05

enum { NEW, ANCHOR, OLD };
static int mutate = NEW;

/* the largest failure count released after t runs, or -1 */
static long kmax[NIGHTS + 1];

static void
thresholds(double level)
{
	rt_interval cs;
	long t, k = -1, more;

	for (t = 1; t <= NIGHTS; t++) {
		while (k + 1 <= t && rt_plan_release(k + 1, t, level, CONF, &cs, &more))
			k++;
		kmax[t] = k;
	}
}

/* P(released within NIGHTS) for a test failing each run with q: the new
 * rule, the count since the listing, exact over k. */
static double
p_since(double q)
{
	static double d[NIGHTS + 2], e[NIGHTS + 2];
	double rel = 0;
	long t, k;

	memset(d, 0, sizeof d);
	d[0] = 1;
	for (t = 1; t <= NIGHTS; t++) {
		e[0] = d[0] * (1 - q);
		for (k = 1; k <= t; k++)
			e[k] = d[k] * (1 - q) + d[k - 1] * q;
		for (k = 0; k <= t; k++) {
			if (k <= kmax[t]) {
				rel += e[k];
				e[k] = 0;
			}
			d[k] = e[k];
		}
	}
	return rel;
}

/* P(a clean streak of need runs within NIGHTS), the anchored rules, exact
 * over the streak's length. */
static double
p_streak(double q, long need)
{
	static double d[NIGHTS + 2], e[NIGHTS + 2];
	double rel = 0, fail;
	long t, s;

	if (need > NIGHTS)
		return 0;
	memset(d, 0, sizeof d);
	d[0] = 1;
	for (t = 1; t <= NIGHTS; t++) {
		fail = 0;
		for (s = 0; s < need; s++)
			fail += d[s] * q;
		for (s = need; s >= 1; s--)
			e[s] = d[s - 1] * (1 - q);
		e[0] = fail;
		rel += e[need];
		e[need] = 0;
		memcpy(d, e, sizeof d);
	}
	return rel;
}

/* P(release within NIGHTS) of a test listed at round(p_list * n) of n,
 * failing at q since, released at level. */
static double
p_release(double p_list, long n, double q, double level)
{
	rt_interval cs;
	double step, lo, hi;
	long kl, need, more;

	switch (mutate) {
	case ANCHOR:
		if (rt_plan_release(0, 0, level, CONF, &cs, &more))
			return 1;
		return more < 0 ? 0 : p_streak(q, more);
	case OLD:
		kl = lround(p_list * (double)n);
		if (kl < 1)
			kl = 1;
		if (rt_plan_split(kl, n, CONF, &step, &lo, &hi, &need) != RT_STATS_OK)
			return 0;
		return p_streak(q, need);
	}
	return p_since(q);
}

static const long sizes_all[] = { 20, 40, 100, 200 }, sizes_q[] = { 20, 200 };

/* One table: rows of (listed, now, level); the worst cell returned. */
static double
table(const char *title, const double (*rows)[3], size_t nrows, const long *sizes,
    size_t nsizes)
{
	char a[32], b[32], c[32], v[32];
	double worst = 0, p;
	size_t i, j;

	printf("%s\n%-8s %-8s %-8s", title, "listed", "now", "level");
	for (j = 0; j < nsizes; j++)
		printf(" %7s%-3ld", "n=", sizes[j]);
	printf("\n");
	for (i = 0; i < nrows; i++) {
		if (mutate == NEW)
			thresholds(rows[i][2]);
		rt_say_pct(a, sizeof a, rows[i][0], RT_SAY_NEAR);
		rt_say_pct(b, sizeof b, rows[i][1], RT_SAY_NEAR);
		rt_say_pct(c, sizeof c, rows[i][2], RT_SAY_NEAR);
		printf("%-8s %-8s %-8s", a, b, c);
		for (j = 0; j < nsizes; j++) {
			p = p_release(rows[i][0], sizes[j], rows[i][1], rows[i][2]);
			rt_say_pct(v, sizeof v, p, RT_SAY_NEAR);
			printf(" %9s%s", v, p > GATE ? "!" : " ");
			if (p > worst)
				worst = p;
		}
		printf("\n");
	}
	return worst;
}

int
main(int argc, char **argv)
{
	/* unchanged: listed, now and the level all the same rate; and at the
	 * default level, rates at or above it */
	static const double same_all[][3] = {
		{ .01, .01, .01 }, { .02, .02, .02 }, { .05, .05, .05 }, { .10, .10, .10 },
		{ .20, .20, .20 }, { .30, .30, .30 }, { .50, .50, .50 },
		{ .20, .20, RT_PLAN_LEVEL }, { .50, .50, RT_PLAN_LEVEL },
	}, same_q[][3] = {
		{ .01, .01, .01 }, { .10, .10, .10 }, { .50, .50, .50 }, { .50, .50, RT_PLAN_LEVEL },
	};
	/* still failing: listed high (18/20, 8/40 and the like), now 2–10% */
	static const double still_all[][3] = {
		{ .90, .10, RT_PLAN_LEVEL }, { .20, .10, RT_PLAN_LEVEL }, { .90, .05, .05 },
		{ .20, .05, .05 }, { .90, .02, .02 }, { .20, .02, .02 }, { .20, .10, .02 },
	}, still_q[][3] = {
		{ .90, .10, RT_PLAN_LEVEL }, { .20, .02, .02 },
	};
	static const struct option lo[] = {
		{ "mutate", required_argument, NULL, 'm' }, { NULL, 0, NULL, 0 } };
	const char *m = getenv("RELEASE_MUTATE");
	double w1, w2;
	char a[32], b[32];
	int ch, quick = 0;
	rt_interval cs;
	long more;
	size_t i;

	while ((ch = getopt_long(argc, argv, "q", lo, NULL)) != -1) {
		if (ch == 'q')
			quick = 1;
		else if (ch == 'm')
			m = optarg;
		else {
			fprintf(stderr, "usage: release [-q] [--mutate anchor|old]\n");
			return 2;
		}
	}
	if (m && *m) {
		if (!strcmp(m, "anchor"))
			mutate = ANCHOR;
		else if (!strcmp(m, "old"))
			mutate = OLD;
		else {
			fprintf(stderr, "release: --mutate %s: want anchor or old\n", m);
			return 2;
		}
		printf("MUTANT: %s\n", m);
	}
	printf("P(released within %d nightly checks), %g%% confidence; gate %g%% a cell (! over)\n",
	    NIGHTS, CONF * 100, GATE * 100);
	w1 = quick ? table("== unchanged: the rate at or above the level", same_q, 4, sizes_q, 2)
	    : table("== unchanged: the rate at or above the level", same_all, 9, sizes_all, 4);
	w2 = quick ? table("== still failing 2-10%, at or above the level", still_q, 2, sizes_q, 2)
	    : table("== still failing 2-10%, at or above the level", still_all, 7, sizes_all, 4);
	/* not gated: what the rule costs a fixed test (no failure since) */
	printf("== a fixed test: clean runs until released\n");
	for (i = 0; i < 5; i++) {
		static const double lv[] = { .01, .02, .05, .10, .20 };

		rt_plan_release(0, 0, lv[i], CONF, &cs, &more);
		rt_say_pct(a, sizeof a, lv[i], RT_SAY_NEAR);
		printf("level %-6s %ld nights\n", a, more);
	}
	rt_say_pct(a, sizeof a, w1, RT_SAY_NEAR);
	rt_say_pct(b, sizeof b, w2, RT_SAY_NEAR);
	if (w1 > GATE || w2 > GATE) {
		printf("BROKEN: worst cell %s unchanged, %s still failing (gate 5%%)\n", a, b);
		return 1;
	}
	printf("ok: worst cell %s unchanged, %s still failing (gate 5%%)\n", a, b);
	return 0;
}
