/* rt_race: the tournament's decision rules — the paired discordant-pair
 * comparison, lane budgets and the confirmation round. Pure math. */
#include <math.h>

#include "rt_race.h"

void
rt_race_add(rt_race_pairs *p, int orig_failed, int lane_failed)
{
	p->pairs++;
	if (orig_failed && lane_failed)
		p->both++;
	else if (lane_failed)
		p->lane_only++;
	else if (orig_failed)
		p->base_only++;
}

rt_race_state
rt_race_decide(const rt_race_pairs *p, double c, rt_interval *q)
{
	rt_interval iv;
	long d = p->lane_only + p->base_only;

	if (rt_cs_interval(p->lane_only, d, c, 0, 0, &iv) != RT_STATS_OK) {
		iv.low = 0;
		iv.high = 1;
	}
	if (q)
		*q = iv;
	if (d > 0 && iv.high < 0.5)
		return RT_RACE_BETTER;
	if (d > 0 && iv.low >= RT_RACE_FUTILE_Q)
		return RT_RACE_FUTILE;
	return RT_RACE_OPEN;
}

long
rt_race_min_discordant(double c)
{
	static double last_c = -1;      /* the budget asks after every pair */
	static long last_m;
	rt_interval iv;
	long m;

	if (c == last_c)
		return last_m;
	for (m = 1; m < 1000; m++)
		if (rt_cs_interval(0, m, c, 0, 0, &iv) == RT_STATS_OK && iv.high < 0.5)
			break;
	last_c = c;
	last_m = m;
	return m;
}

long
rt_race_budget(long k0, long n0, double c)
{
	long m = rt_race_min_discordant(c);
	double b;

	if (k0 <= 0 || n0 <= 0)
		return RT_RACE_MAX_BUDGET;
	b = ceil(2.5 * (double)m * (double)n0 / (double)k0);
	if (b < 2 * m)
		b = 2 * m;
	return b > RT_RACE_MAX_BUDGET ? RT_RACE_MAX_BUDGET : (long)b;
}

long
rt_race_more_pairs(const rt_race_pairs *p, double c)
{
	long d = p->lane_only + p->base_only, m;
	double share, rate;
	rt_interval iv;

	if (p->pairs == 0)
		return 0;
	if (d == 0)     /* no discordant pair yet: one in about `pairs` at best */
		return rt_race_min_discordant(c) * p->pairs;
	share = (double)p->lane_only / (double)d;
	rate = (double)d / (double)p->pairs;
	if (share >= 0.45)
		return 0;
	for (m = d + 1; m < 100000; m++) {
		if (rt_cs_interval(lround(share * (double)m), m, c, 0, 0, &iv) ==
		    RT_STATS_OK && iv.high < 0.5)
			return (long)ceil((double)(m - d) / rate);
	}
	return 0;
}

double
rt_confirm_level(double c, long rounds)
{
	return rounds > 1 ? 1 - (1 - c) / (double)rounds : c;
}

int
rt_confirm_runs(long k0, long n0, double target, double cm, double *pref,
    long *runs)
{
	double p;

	if (n0 <= 0 || k0 < 0 || k0 > n0 || !(target > 0 && target < 1))
		return RT_STATS_EINVAL;
	p = (double)k0 / (double)n0;
	if (k0 == 0 || p > target)
		p = target;
	*pref = p;
	return rt_runs_to_claim(p, cm, runs);
}
