/* rt_race: the tournament's decision rules (rt-verify(1)) — a paired,
 * anytime-valid comparison of a patched lane with the original, the lane
 * budget, and the confirmation round — shared by rt-verify and bench/. */
#ifndef RT_RACE_H
#define RT_RACE_H

#include "rt_stats.h"

/* The lane's i-th valid trial is paired with the original's i-th; only the
 * discordant pairs (one failed, the other passed) speak. If the lane is no
 * better than the original (p_lane ≥ p_orig), a discordant pair is the
 * lane's failure with probability q ≥ 1/2, whatever the pairs' joint law. */
typedef struct {
	long pairs;        /* pairs compared */
	long lane_only;    /* the lane failed, the original passed */
	long base_only;    /* the original failed, the lane passed */
	long both;         /* both failed */
} rt_race_pairs;

typedef enum {
	RT_RACE_OPEN,      /* undecided: run another pair */
	RT_RACE_BETTER,    /* the lane fails less often than the original */
	RT_RACE_FUTILE     /* the lane fails at least half as often as the original */
} rt_race_state;

/* The futility line: q ≥ 1/3 means p_lane ≳ p_orig/2 (for small rates). */
#define RT_RACE_FUTILE_Q (1.0 / 3.0)

void rt_race_add(rt_race_pairs *p, int orig_failed, int lane_failed);

/* The rule, checked after every pair with the anytime-valid confidence
 * sequence (rt_cs_interval) for q over the discordant pairs at c:
 *   upper bound < 1/2             BETTER
 *   lower bound ≥ RT_RACE_FUTILE_Q FUTILE
 *   otherwise                     OPEN
 * q (may be NULL) receives the sequence's interval. */
rt_race_state rt_race_decide(const rt_race_pairs *p, double c, rt_interval *q);

/* Discordant pairs, all the original's, that a perfect fix needs to be
 * BETTER at c (7 at 0.95). */
long rt_race_min_discordant(double c);

/* The lane budget in pairs when the original failed k0 of n0: enough for a
 * perfect fix to show itself on nearly every run, 2.5 m / p̂ with
 * m = rt_race_min_discordant(c) and p̂ = k0/n0, at least 2m and at most
 * RT_RACE_MAX_BUDGET. k0 = 0 gives the maximum. */
#define RT_RACE_MAX_BUDGET 10000
long rt_race_budget(long k0, long n0, double c);

/* When a budget ran out undecided: about how many more pairs would likely
 * decide at the rates seen (the discordant share and the discordance rate
 * held fixed); 0 when no number is likely to make the lane BETTER. */
long rt_race_more_pairs(const rt_race_pairs *p, double c);

/* The confirmation round: with m candidates confirmed, each round runs at
 * c_m = 1 − (1 − c)/m, so a false FIXED stays within 1 − c. */
double rt_confirm_level(double c, long rounds);

/* Clean fresh runs FIXED needs: runs_to_claim(p_ref, c_m) with
 * p_ref = min(target, k0/n0) — what `rt-plan --target T` prints. */
int rt_confirm_runs(long k0, long n0, double target, double cm, double *pref,
    long *runs);

#endif
