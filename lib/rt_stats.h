/* rt_stats: the shared math of retrial (libretrial-stats) — Wilson score
 * intervals, exact one-sided bounds, runs needed to claim a fix, retry budgets, the detect verdict,
 * an anytime-valid confidence sequence, and the tests rt-diff-facts and
 * rt-matrix rank evidence with. Pure: no malloc, no I/O, no exit. */
#ifndef RT_STATS_H
#define RT_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes of the functions that can refuse their input. */
enum {
	RT_STATS_OK = 0,
	RT_STATS_EINVAL = -1,    /* an argument is out of its domain */
	RT_STATS_ENOFAIL = -2,   /* p = 0: no failure was observed */
	RT_STATS_EALWAYS = -3,   /* p = 1: it always fails; no budget can work */
	RT_STATS_ERANGE = -4     /* the answer does not fit in a long */
};

#define RT_RETRY_TARGET      0.01  /* default target of rt_retry_budget */
#define RT_FLAKY_THRESHOLD   0.10  /* the rate STABLE is shown below, and a
                                    * steady quarantine candidate above */
#define RT_QUARANTINE_WINDOW 100   /* rt_quarantine_after's window when 0 */
#define RT_CS_PRIOR          0.5   /* rt_cs_interval's a, b when ≤ 0 */

typedef struct {
	double low, high;        /* clamped to [0, 1] ([−1, 1] for a difference) */
	double center;           /* the interval's centre (Wilson: shrunk p) */
	double z;                /* the normal quantile used */
} rt_interval;

/* z for a two-sided confidence level c in (0,1): the inverse normal CDF at
 * (1+c)/2, except that c = 0.95 gives 1.96 exactly. NaN outside (0,1). */
double rt_z_for_confidence(double c);
/* Inverse standard normal CDF (Acklam's rational approximation refined by
 * one Halley step; |error| < 1e-12). NaN outside (0,1). */
double rt_norm_quantile(double p);
/* Standard normal CDF. */
double rt_norm_cdf(double x);

/* Wilson score interval for k failures in n trials at confidence c:
 * centre (p + z²/2n)/(1 + z²/n), half-width z/(1 + z²/n)·√(p(1−p)/n + z²/4n²).
 * n = 0 gives [0, 1]. RT_STATS_EINVAL for k < 0, k > n or c outside (0,1). */
int rt_wilson(long k, long n, double c, rt_interval *out);

/* Exact one-sided (Clopper–Pearson) bounds at confidence c in (0,1), valid
 * at every n: P(rate > bound) ≤ 1 − c for the upper bound, P(rate < bound)
 * ≤ 1 − c for the lower. NaN for k < 0, k > n or c outside (0,1).
 * rt_zero_bound: the upper bound for k = 0, 1 − (1 − c)^(1/n) (n = 0 → 1);
 * 0/40 → 0.0721, 0/29 → 0.0981, 0/1 → 0.95 at c = 0.95.
 * rt_all_bound: the lower bound for k = n, (1 − c)^(1/n) (n = 0 → 0).
 * rt_exact_upper, rt_exact_lower: any k, by bisection on the binomial tail
 * (P(X ≤ k | U) = 1 − c, P(X ≥ k | L) = 1 − c); the two at c' = 1 − (1 − c)/2
 * are the two-sided Clopper–Pearson interval at c. */
double rt_zero_bound(long n, double c);
double rt_all_bound(long n, double c);
double rt_exact_upper(long k, long n, double c);
double rt_exact_lower(long k, long n, double c);

/* Smallest n with (1−p)^n ≤ 1−c: the clean runs that show, at confidence c,
 * that a failure rate p is gone. p = 1 → 1; p = 0 → RT_STATS_ENOFAIL.
 * Exact at integer boundaries (p = 0.5, c = 0.75 gives 2). */
int rt_runs_to_claim(double p, double c, long *runs);

/* rt-plan's default basis (split) for a measured k/n at overall
 * confidence c: each step at 1 − (1 − c)/2, so that P(rate < lo) and, if
 * not, P(the runs all pass) are each at most (1 − c)/2. *step, the
 * measure's exact [*lo, *hi] at it, and (runs may be NULL) the clean runs
 * planned from lo, rt_runs_to_claim's return (RT_STATS_ENOFAIL for k = 0). */
int rt_plan_split(long k, long n, double c, double *step, double *lo, double *hi,
    long *runs);

/* Smallest r ≥ 0 with p^(r+1) ≤ target, target in (0,1) (RT_RETRY_TARGET
 * is the usual 0.01). p = 1 → RT_STATS_EALWAYS; p = 0 → 0. */
int rt_retry_budget(double p, double target, long *retries);

/* Quarantine rule, checked after every run over the last w runs: with q =
 * p^(r+1) the chance that one CI run exhausts its retry budget, quarantine
 * at the smallest m ≥ 1 such that the chance of a false alarm at any of w
 * consecutive checks is at most 1 − c, by the scan bound
 * P(Bin(w, q) ≥ m) + (w − 1)·q·P(Bin(w − 1, q) ≥ m − 1). The bound grows
 * with q, so m planned at the highest q of an interval holds for every q
 * below it. window 0 means RT_QUARANTINE_WINDOW. q = 1 (it always fails)
 * or q = 0 → 1; when no m ≤ w qualifies, m = w + 1 (the window cannot
 * show it). rt_quarantine_false_alarm gives that bound for a rule m of w
 * at q (0 for m > w; NaN for bad arguments). */
int rt_quarantine_after(double q, long window, double c, long *m);
double rt_quarantine_false_alarm(long m, long window, double q);

/* The detect verdict (rt-measure(1)), decided in this order:
 * ERROR (n = 0, or an argument out of its domain); ALWAYS_FAILING (k = n
 * and the exact one-sided lower bound (1 − c)^(1/n) ≥ 1 − threshold: 29/29
 * at c = 0.95, T = 0.10; k = n below that is INCONCLUSIVE); FLAKY
 * (0 < k < n); STABLE (k = 0 and the exact one-sided upper bound
 * 1 − (1 − c)^(1/n) < threshold: 0/29 at the defaults); INCONCLUSIVE
 * (k = 0 otherwise). */
typedef enum {
	RT_VERDICT_ERROR,
	RT_VERDICT_ALWAYS_FAILING,
	RT_VERDICT_FLAKY,
	RT_VERDICT_STABLE,
	RT_VERDICT_INCONCLUSIVE
} rt_verdict;
rt_verdict rt_detect(long k, long n, double threshold, double c);
const char *rt_verdict_name(rt_verdict v);   /* "FLAKY", ... */

/* Anytime-valid confidence sequence for a Bernoulli rate (Robbins' beta-
 * binomial mixture with a Beta(a, b) prior, a = b = 0.5 by default): the set
 * of p whose mixture martingale is below 1/alpha. Valid simultaneously at
 * every n, so it may be checked after every trial. Computed by bisection
 * on each side of k/n; n = 0 gives [0, 1]. a or b ≤ 0 selects RT_CS_PRIOR;
 * out->center is k/n and out->z is 0 (no normal quantile is used). */
int rt_cs_interval(long k, long n, double c, double a, double b, rt_interval *out);

/* Two-sided p-value of Fisher's exact test for the 2×2 table
 * [[a, b], [c, d]] (sum of the probabilities of tables as or less likely,
 * with a relative slack of 1e-7). Log space: counts in the millions work.
 * NaN for a negative count; an empty table gives 1. */
double rt_fisher_exact(long a, long b, long c, long d);

/* Newcombe's hybrid score interval (method 10) for p1 − p2, k1/n1 − k2/n2,
 * from the two Wilson intervals at c; centre = p1 − p2, bounds in [−1, 1].
 * n1 or n2 = 0 gives [−1, 1] with centre 0. */
int rt_newcombe(long k1, long n1, long k2, long n2, double c, rt_interval *out);

/* Mann–Whitney U test, x and y each sorted ascending. Two-sided p-value by
 * the normal approximation with tie and continuity correction; *u (may be
 * NULL) gets U for x; *effect (may be NULL) the common-language effect
 * P(X > Y) + P(X = Y)/2. An empty sample gives p = 1, effect 0.5; unsorted
 * input or a NaN gives NaN. */
double rt_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
    double *u, double *effect);

/* Upper tail P(X ≥ m) of Binomial(n, p); NaN for n < 0 or p outside [0,1]. */
double rt_binom_sf(long m, long n, double p);

/* Benjamini–Hochberg at false discovery rate q in (0,1) over n p-values:
 * the largest p_(i) with p_(i) ≤ q·i/n, so that rejecting every p at or
 * below it keeps the expected share of false discoveries within q (for
 * independent tests). Sorts p in place. −1 when nothing is rejected (or
 * n = 0), NaN for q outside (0,1) or a p-value that is NaN. */
double rt_bh_cutoff(double *p, size_t n, double q);

#ifdef __cplusplus
}
#endif
#endif
