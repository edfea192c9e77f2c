/* t/stats_test: checks every function of libretrial-stats against values
 * computed independently (python3 math/fractions, exact where possible). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rt_stats.h"

static int npass, nfail;

static void
ok(int cond, const char *what)
{
	if (cond)
		npass++;
	else
		nfail++;
	printf("%sok %d - %s\n", cond ? "" : "not ", npass + nfail, what);
}

static void
near(double got, double want, double tol, const char *what)
{
	int good = fabs(got - want) <= tol;

	ok(good, what);
	if (!good)
		printf("#   got %.12g, want %.12g (±%g)\n", got, want, tol);
}

static void
eql(long got, long want, const char *what)
{
	ok(got == want, what);
	if (got != want)
		printf("#   got %ld, want %ld\n", got, want);
}

static void
t_normal(void)
{
	/* python3: statistics.NormalDist().inv_cdf / .cdf */
	near(rt_z_for_confidence(0.95), 1.96, 0, "z(0.95) is exactly 1.96");
	near(rt_z_for_confidence(0.9), 1.644853626951, 1e-11, "z(0.9) = 1.6449");
	near(rt_z_for_confidence(0.99), 2.575829303549, 1e-11, "z(0.99) = 2.5758");
	near(rt_z_for_confidence(0.8), 1.281551565545, 1e-11, "z(0.8)");
	near(rt_z_for_confidence(0.999), 3.290526731492, 1e-11, "z(0.999)");
	near(rt_z_for_confidence(0.5), 0.674489750196, 1e-11, "z(0.5)");
	ok(isnan(rt_z_for_confidence(0)), "z(0) is NaN");
	ok(isnan(rt_z_for_confidence(1)), "z(1) is NaN");
	ok(isnan(rt_z_for_confidence(1.5)), "z(1.5) is NaN");
	ok(isnan(rt_z_for_confidence(NAN)), "z(NaN) is NaN");
	near(rt_norm_quantile(1e-10), -6.36134090240406, 1e-11, "quantile(1e-10)");
	near(rt_norm_quantile(0.001), -3.09023230616781, 1e-12, "quantile(0.001)");
	near(rt_norm_quantile(0.3), -0.52440051270804, 1e-12, "quantile(0.3)");
	near(rt_norm_quantile(0.975), 1.95996398454005, 1e-12, "quantile(0.975)");
	near(rt_norm_quantile(0.999999), 4.75342430881709, 1e-9, "quantile(0.999999)");
	near(rt_norm_quantile(0.5), 0, 1e-15, "quantile(0.5) = 0");
	ok(isnan(rt_norm_quantile(0)) && isnan(rt_norm_quantile(1)), "quantile(0), quantile(1) are NaN");
	near(rt_norm_cdf(-3), 0.001349898031630, 1e-15, "cdf(-3)");
	near(rt_norm_cdf(0), 0.5, 0, "cdf(0)");
	near(rt_norm_cdf(1.5), 0.933192798731142, 1e-15, "cdf(1.5)");
	near(rt_norm_cdf(rt_norm_quantile(0.123)), 0.123, 1e-14, "cdf(quantile(p)) = p");
}

static void
t_wilson(void)
{
	rt_interval w;

	/* python3: the formula with z = 1.96 (ref.py) */
	eql(rt_wilson(40, 200, 0.95, &w), RT_STATS_OK, "wilson 40/200 ok");
	near(w.low, 0.1504512074, 1e-9, "wilson 40/200 low 0.1505");
	near(w.high, 0.2608563961, 1e-9, "wilson 40/200 high 0.2609");
	near(w.center, 0.2056538018, 1e-9, "wilson 40/200 centre");
	near(w.z, 1.96, 0, "wilson reports z 1.96");
	rt_wilson(8, 16, 0.95, &w);
	near(w.low, 0.2799923761, 1e-9, "wilson 8/16 low 0.28");
	near(w.high, 0.7200076239, 1e-9, "wilson 8/16 high 0.72");
	rt_wilson(0, 40, 0.95, &w);
	ok(w.low == 0, "wilson 0/40 low is 0");
	near(w.high, 0.0876245393, 1e-9, "wilson 0/40 upper 0.0876");
	rt_wilson(0, 14, 0.95, &w);
	near(w.high, 0.2153170119, 1e-9, "wilson 0/14 upper 0.2153");
	rt_wilson(0, 1, 0.95, &w);
	ok(w.high > 0 && w.low == 0, "wilson 0/1: upper never 0");
	rt_wilson(12, 40, 0.95, &w);
	near(w.low, 0.1807467092, 1e-9, "wilson 12/40 low");
	near(w.high, 0.4543031065, 1e-9, "wilson 12/40 high");
	rt_wilson(12, 40, 0.9, &w);
	near(w.low, 0.1966328916, 1e-9, "wilson 12/40 at 90% low");
	near(w.high, 0.4287084879, 1e-9, "wilson 12/40 at 90% high");
	near(w.z, 1.644853626951, 1e-11, "wilson 90% reports z 1.6449");
	rt_wilson(12, 40, 0.99, &w);
	near(w.low, 0.1532774709, 1e-9, "wilson 12/40 at 99% low");
	near(w.high, 0.5036318145, 1e-9, "wilson 12/40 at 99% high");
	rt_wilson(1, 1, 0.95, &w);
	ok(w.high == 1, "wilson 1/1 high is exactly 1");
	near(w.low, 0.2065432915, 1e-9, "wilson 1/1 low");
	rt_wilson(24, 24, 0.95, &w);
	ok(w.high == 1 && w.low > 0.8 && w.low < 0.9, "wilson k = n");
	eql(rt_wilson(0, 0, 0.95, &w), RT_STATS_OK, "wilson n = 0 ok");
	ok(w.low == 0 && w.high == 1, "wilson n = 0 is [0, 1]");
	eql(rt_wilson(5, 4, 0.95, &w), RT_STATS_EINVAL, "wilson k > n refused");
	eql(rt_wilson(-1, 4, 0.95, &w), RT_STATS_EINVAL, "wilson k < 0 refused");
	eql(rt_wilson(1, 4, 1, &w), RT_STATS_EINVAL, "wilson c = 1 refused");
	eql(rt_wilson(1, 4, 0, &w), RT_STATS_EINVAL, "wilson c = 0 refused");
	eql(rt_wilson(1, 4, 1.5, &w), RT_STATS_EINVAL, "wilson c = 1.5 refused");
	eql(rt_wilson(1, 4, NAN, &w), RT_STATS_EINVAL, "wilson c = NaN refused");
}

static void
t_runs(void)
{
	long r = -7;

	/* python3: smallest n with (1-p)^n <= 1-c over exact decimal Fractions */
	rt_runs_to_claim(0.2, 0.95, &r), eql(r, 14, "runs(0.2, 0.95) = 14");
	rt_runs_to_claim(0.2, 0.9, &r), eql(r, 11, "runs(0.2, 0.9) = 11");
	rt_runs_to_claim(0.2, 0.99, &r), eql(r, 21, "runs(0.2, 0.99) = 21");
	rt_runs_to_claim(0.5, 0.75, &r), eql(r, 2, "runs(0.5, 0.75) = 2 exactly (boundary)");
	rt_runs_to_claim(0.5, 0.875, &r), eql(r, 3, "runs(0.5, 0.875) = 3 (boundary)");
	rt_runs_to_claim(0.9, 0.99, &r), eql(r, 2, "runs(0.9, 0.99) = 2 (boundary)");
	rt_runs_to_claim(0.1, 0.19, &r), eql(r, 2, "runs(0.1, 0.19) = 2 (boundary)");
	rt_runs_to_claim(0.75, 0.9375, &r), eql(r, 2, "runs(0.75, 0.9375) = 2 (boundary)");
	rt_runs_to_claim(0.5, 0.5, &r), eql(r, 1, "runs(0.5, 0.5) = 1");
	rt_runs_to_claim(0.1, 0.99, &r), eql(r, 44, "runs(0.1, 0.99) = 44");
	rt_runs_to_claim(0.3, 0.95, &r), eql(r, 9, "runs(0.3, 0.95) = 9");
	rt_runs_to_claim(0.01, 0.95, &r), eql(r, 299, "runs(0.01, 0.95) = 299");
	rt_runs_to_claim(0.001, 0.95, &r), eql(r, 2995, "runs(0.001, 0.95) = 2995");
	{
		/* rt-plan's split basis: rt-plan prints the same for these measures */
		double st, lo, hi;
		eql(rt_plan_split(9, 10, 0.95, &st, &lo, &hi, &r), RT_STATS_OK, "split 9/10 ok");
		eql(r, 5, "split 9/10 at 95%: 5 runs");
		near(st, 0.975, 1e-12, "split step at 95% is 97.5%");
		near(lo, 0.554984, 1e-6, "split 9/10: exact low 0.554984");
		near(hi, 0.997471, 1e-6, "split 9/10: exact high 0.997471");
		rt_plan_split(18, 20, 0.9, &st, &lo, &hi, &r), eql(r, 3, "split 18/20 at 90%: 3 runs");
		eql(rt_plan_split(0, 10, 0.95, &st, &lo, &hi, NULL), RT_STATS_ENOFAIL, "split 0/10: nothing failed");
		eql(rt_plan_split(1, 0, 0.95, &st, &lo, &hi, NULL), RT_STATS_EINVAL, "split n = 0 refused");
	}
	eql(rt_runs_to_claim(1, 0.95, &r), RT_STATS_OK, "runs(1) ok");
	eql(r, 1, "runs(1, 0.95) = 1");
	r = -7;
	eql(rt_runs_to_claim(0, 0.95, &r), RT_STATS_ENOFAIL, "runs(0) is ENOFAIL");
	eql(r, -7, "runs(0) leaves *runs alone");
	eql(rt_runs_to_claim(0.2, 1, &r), RT_STATS_EINVAL, "runs c = 1 refused");
	eql(rt_runs_to_claim(0.2, 0, &r), RT_STATS_EINVAL, "runs c = 0 refused");
	eql(rt_runs_to_claim(1.2, 0.95, &r), RT_STATS_EINVAL, "runs p = 1.2 refused");
	eql(rt_runs_to_claim(-0.1, 0.95, &r), RT_STATS_EINVAL, "runs p < 0 refused");
	eql(rt_runs_to_claim(1e-300, 0.95, &r), RT_STATS_ERANGE, "runs p = 1e-300 out of range");
}

static void
t_retry(void)
{
	long r = -7, m = -7;

	/* python3: smallest r >= 0 with p^(r+1) <= t over decimal Fractions */
	rt_retry_budget(0.2, 0.01, &r), eql(r, 2, "retry(0.2) = 2");
	rt_retry_budget(0.2, RT_RETRY_TARGET, &r), eql(r, 2, "retry(0.2, default) = 2");
	rt_retry_budget(0.1, 0.01, &r), eql(r, 1, "retry(0.1, 0.01) = 1 (boundary)");
	rt_retry_budget(0.5, 0.125, &r), eql(r, 2, "retry(0.5, 0.125) = 2 (boundary)");
	rt_retry_budget(0.2, 0.04, &r), eql(r, 1, "retry(0.2, 0.04) = 1 (boundary)");
	rt_retry_budget(0.01, 0.01, &r), eql(r, 0, "retry(0.01, 0.01) = 0");
	rt_retry_budget(0.02, 0.01, &r), eql(r, 1, "retry(0.02, 0.01) = 1");
	rt_retry_budget(0.5, 0.01, &r), eql(r, 6, "retry(0.5) = 6");
	rt_retry_budget(0.3, 0.001, &r), eql(r, 5, "retry(0.3, 0.001) = 5");
	rt_retry_budget(0.9, 0.01, &r), eql(r, 43, "retry(0.9) = 43");
	rt_retry_budget(0, 0.01, &r), eql(r, 0, "retry(0) = 0");
	r = -7;
	eql(rt_retry_budget(1, 0.01, &r), RT_STATS_EALWAYS, "retry(1) is EALWAYS");
	eql(r, -7, "retry(1) leaves *retries alone");
	eql(rt_retry_budget(0.2, 0, &r), RT_STATS_EINVAL, "retry target 0 refused");
	eql(rt_retry_budget(0.2, 1, &r), RT_STATS_EINVAL, "retry target 1 refused");
	eql(rt_retry_budget(2, 0.01, &r), RT_STATS_EINVAL, "retry p = 2 refused");

	/* python3: exact binomial sums over Fractions */
	near(rt_binom_sf(3, 10, 0.2), 0.3222004736, 1e-12, "binom_sf(3, 10, 0.2)");
	near(rt_binom_sf(1, 100, 0.008), 0.552114280596921, 1e-12, "binom_sf(1, 100, 0.008)");
	near(rt_binom_sf(2, 100, 0.008), 0.190916119787987, 1e-12, "binom_sf(2, 100, 0.008)");
	near(rt_binom_sf(4, 100, 0.008), 0.00874314000954762, 1e-14, "binom_sf(4, 100, 0.008)");
	near(rt_binom_sf(5, 100, 0.01), 0.00343232158775452, 1e-14, "binom_sf(5, 100, 0.01)");
	ok(rt_binom_sf(0, 10, 0.3) == 1 && rt_binom_sf(-2, 10, 0.3) == 1, "binom_sf(m <= 0) = 1");
	ok(rt_binom_sf(11, 10, 0.3) == 0, "binom_sf(m > n) = 0");
	ok(rt_binom_sf(1, 10, 0) == 0 && rt_binom_sf(10, 10, 1) == 1, "binom_sf p = 0, 1");
	ok(isnan(rt_binom_sf(1, -1, 0.3)) && isnan(rt_binom_sf(1, 10, 1.3)), "binom_sf bad input is NaN");
	near(rt_binom_sf(500, 1000000, 0.0005), 0.50595160685, 1e-7, "binom_sf(500, 1e6, 0.0005), large n");

	/* python3: smallest m with sf(m, w, q) + (w-1) q sf(m-1, w-1, q) <= 0.05,
	 * the false-alarm bound over w checks, one after every run */
	rt_quarantine_after(0.008, 100, 0.95, &m), eql(m, 4, "quarantine(q 0.2^3, 100) = 4");
	near(rt_quarantine_false_alarm(4, 100, 0.008), 0.0448493065961, 1e-10,
	    "false alarm of 4 in 100 at q 0.008 = 0.0448");
	ok(rt_quarantine_false_alarm(3, 100, 0.008) > 0.05, "3 in 100 at q 0.008 is over 5%");
	ok(rt_quarantine_false_alarm(11, 10, 0.5) == 0, "false alarm of m > w is 0");
	ok(isnan(rt_quarantine_false_alarm(0, 10, 0.5)), "false alarm of m = 0 is NaN");
	rt_quarantine_after(0.01, 100, 0.95, &m), eql(m, 5, "quarantine(q 0.01, 100) = 5");
	rt_quarantine_after(0.01, 0, 0.95, &m), eql(m, 5, "quarantine window 0 means 100");
	rt_quarantine_after(0.5, 20, 0.95, &m), eql(m, 17, "quarantine(q 0.5, 20) = 17");
	rt_quarantine_after(1, 100, 0.95, &m), eql(m, 1, "quarantine(q 1) = 1");
	rt_quarantine_after(0, 100, 0.95, &m), eql(m, 1, "quarantine(q 0) = 1");
	rt_quarantine_after(0.999, 10, 0.95, &m), eql(m, 11, "quarantine beyond the window = w + 1");
	eql(rt_quarantine_after(0.01, -1, 0.95, &m), RT_STATS_EINVAL, "quarantine window < 0 refused");
	eql(rt_quarantine_after(0.01, 100, 1, &m), RT_STATS_EINVAL, "quarantine c = 1 refused");
}

static void
t_detect(void)
{
	eql(rt_detect(0, 0, 0.1, 0.95), RT_VERDICT_ERROR, "detect 0/0 ERROR");
	/* ALWAYS_FAILING mirrors STABLE: 0.05^(1/29) = 0.90186 >= 0.9, 0.05^(1/28) = 0.89853 */
	eql(rt_detect(28, 28, 0.1, 0.95), RT_VERDICT_INCONCLUSIVE, "detect 28/28 INCONCLUSIVE");
	eql(rt_detect(29, 29, 0.1, 0.95), RT_VERDICT_ALWAYS_FAILING, "detect 29/29 ALWAYS_FAILING");
	eql(rt_detect(24, 24, 0.1, 0.95), RT_VERDICT_INCONCLUSIVE, "detect 24/24 INCONCLUSIVE (a 90% flake does it 8% of the time)");
	eql(rt_detect(1, 40, 0.1, 0.95), RT_VERDICT_FLAKY, "detect 1/40 FLAKY");
	eql(rt_detect(39, 40, 0.1, 0.95), RT_VERDICT_FLAKY, "detect 39/40 FLAKY");
	eql(rt_detect(0, 29, 0.1, 0.95), RT_VERDICT_STABLE, "detect 0/29 T=0.1 STABLE (bound 0.0981)");
	eql(rt_detect(0, 28, 0.1, 0.95), RT_VERDICT_INCONCLUSIVE, "detect 0/28 T=0.1 INCONCLUSIVE (bound 0.1015)");
	eql(rt_detect(0, 40, 0.08, 0.95), RT_VERDICT_STABLE, "detect 0/40 T=0.08 STABLE (bound 0.0722)");
	eql(rt_detect(0, 40, 0.07, 0.95), RT_VERDICT_INCONCLUSIVE, "detect 0/40 T=0.07 INCONCLUSIVE");
	eql(rt_detect(0, 4, 0.5, 0.95), RT_VERDICT_INCONCLUSIVE, "detect 0/4 T=0.5 INCONCLUSIVE (bound 0.527)");
	eql(rt_detect(0, 5, 0.5, 0.95), RT_VERDICT_STABLE, "detect 0/5 T=0.5 STABLE (bound 0.451)");
	eql(rt_detect(0, 20, 0.1, 0.95), RT_VERDICT_INCONCLUSIVE, "detect 0/20 INCONCLUSIVE (bound 0.139)");
	eql(rt_detect(0, 20, 0.1, 1.5), RT_VERDICT_ERROR, "detect bad confidence ERROR");
	eql(rt_detect(3, 2, 0.1, 0.95), RT_VERDICT_ERROR, "detect k > n ERROR");
	ok(strcmp(rt_verdict_name(RT_VERDICT_FLAKY), "FLAKY") == 0 &&
	    strcmp(rt_verdict_name(RT_VERDICT_ALWAYS_FAILING), "ALWAYS_FAILING") == 0 &&
	    strcmp(rt_verdict_name(RT_VERDICT_STABLE), "STABLE") == 0 &&
	    strcmp(rt_verdict_name(RT_VERDICT_INCONCLUSIVE), "INCONCLUSIVE") == 0 &&
	    strcmp(rt_verdict_name(RT_VERDICT_ERROR), "ERROR") == 0, "verdict names");
}

/* python3: 1 - 0.05**(1/n); Clopper-Pearson by bisection on the exact
 * binomial tail (math.comb), 12/40 agreeing with published tables */
static void
t_exact(void)
{
	near(rt_zero_bound(1, 0.95), 0.95, 1e-12, "zero bound 0/1 = 95.0%");
	near(rt_zero_bound(40, 0.95), 0.0721575245055, 1e-12, "zero bound 0/40 = 7.2%");
	near(rt_zero_bound(29, 0.95), 0.0981446276773, 1e-12, "zero bound 0/29 = 9.8%");
	near(rt_zero_bound(28, 0.95), 0.1014657355727, 1e-12, "zero bound 0/28 = 10.1%");
	near(rt_zero_bound(53, 0.95), 0.0549554884652, 1e-12, "zero bound 0/53 = 5.5%");
	near(rt_zero_bound(1000000000, 0.95), 2.99573227e-9, 1e-16, "zero bound 0/1e9, no cancellation");
	ok(rt_zero_bound(0, 0.95) == 1, "zero bound 0/0 = 1");
	ok(isnan(rt_zero_bound(-1, 0.95)) && isnan(rt_zero_bound(5, 1)), "zero bound bad input NaN");
	near(rt_all_bound(29, 0.95), 0.9018553723227, 1e-12, "all bound 29/29 = 90.2%");
	ok(rt_all_bound(0, 0.95) == 0, "all bound 0/0 = 0");
	near(rt_exact_lower(12, 40, 0.975), 0.165627204393, 1e-9, "exact lower 12/40 at 97.5%");
	near(rt_exact_upper(12, 40, 0.975), 0.465316285254, 1e-9, "exact upper 12/40 at 97.5%");
	near(rt_exact_lower(8, 40, 0.975), 0.0905224094, 1e-9, "exact lower 8/40 at 97.5%");
	near(rt_exact_upper(8, 40, 0.975), 0.3564780187, 1e-9, "exact upper 8/40 at 97.5%");
	near(rt_exact_lower(1, 11, 0.975), 0.00229897221381, 1e-11, "exact lower 1/11 at 97.5%");
	ok(rt_exact_upper(0, 40, 0.95) == rt_zero_bound(40, 0.95), "exact upper 0/n is the zero bound");
	ok(rt_exact_lower(0, 40, 0.95) == 0 && rt_exact_upper(40, 40, 0.95) == 1, "exact 0 and 1 ends");
	ok(rt_exact_lower(40, 40, 0.95) == rt_all_bound(40, 0.95), "exact lower n/n is the all bound");
	ok(isnan(rt_exact_lower(5, 4, 0.95)) && isnan(rt_exact_upper(1, 4, 0)), "exact bad input NaN");
}

static void
t_cs(void)
{
	static const long kn[][2] = { { 40, 200 }, { 8, 16 }, { 0, 40 }, { 12, 40 },
	    { 1, 3 }, { 24, 24 }, { 1000, 10000 } };
	rt_interval w, s;
	size_t i;
	char what[80];

	/* python3: a grid scan of log M_n(p) < log(1/alpha), step 5e-6 */
	rt_cs_interval(40, 200, 0.95, 0.5, 0.5, &s);
	near(s.low, 0.115645, 1e-5, "cs 40/200 low");
	near(s.high, 0.3074, 1e-5, "cs 40/200 high");
	near(s.center, 0.2, 1e-15, "cs centre is k/n");
	rt_cs_interval(8, 16, 0.95, 0, 0, &s);
	near(s.low, 0.16874, 1e-5, "cs 8/16 low (default prior)");
	near(s.high, 0.83126, 1e-5, "cs 8/16 high");
	rt_cs_interval(0, 40, 0.95, 0.5, 0.5, &s);
	ok(s.low == 0, "cs 0/40 low is 0");
	near(s.high, 0.126625, 1e-5, "cs 0/40 high");
	rt_cs_interval(12, 40, 0.9, 0.5, 0.5, &s);
	near(s.low, 0.123115, 1e-5, "cs 12/40 at 90% low");
	near(s.high, 0.53149, 1e-5, "cs 12/40 at 90% high");
	rt_cs_interval(1000, 10000, 0.95, 0.5, 0.5, &s);
	near(s.low, 0.08855, 1e-5, "cs 1000/10000 low");
	near(s.high, 0.112285, 1e-5, "cs 1000/10000 high");
	rt_cs_interval(24, 24, 0.95, 0.5, 0.5, &s);
	ok(s.high == 1, "cs 24/24 high is 1");
	near(s.low, 0.806465, 1e-5, "cs 24/24 low");
	for (i = 0; i < sizeof kn / sizeof kn[0]; i++) {
		rt_wilson(kn[i][0], kn[i][1], 0.95, &w);
		rt_cs_interval(kn[i][0], kn[i][1], 0.95, 0.5, 0.5, &s);
		snprintf(what, sizeof what, "cs %ld/%ld contains the Wilson interval",
		    kn[i][0], kn[i][1]);
		ok(s.low <= w.low && s.high >= w.high, what);
	}
	eql(rt_cs_interval(0, 0, 0.95, 0.5, 0.5, &s), RT_STATS_OK, "cs n = 0 ok");
	ok(s.low == 0 && s.high == 1, "cs n = 0 is [0, 1]");
	eql(rt_cs_interval(5, 4, 0.95, 0.5, 0.5, &s), RT_STATS_EINVAL, "cs k > n refused");
	eql(rt_cs_interval(1, 4, 1, 0.5, 0.5, &s), RT_STATS_EINVAL, "cs c = 1 refused");
	eql(rt_cs_interval(1, 4, 0.95, NAN, 0.5, &s), RT_STATS_EINVAL, "cs a = NaN refused");
}

static void
t_fisher(void)
{
	/* python3: exact Fractions over the hypergeometric support */
	near(rt_fisher_exact(3, 1, 1, 3), 0.485714285714286, 1e-12, "fisher [[3,1],[1,3]] = 0.4857");
	near(rt_fisher_exact(1, 9, 11, 3), 0.00275945618522008, 1e-13, "fisher [[1,9],[11,3]]");
	near(rt_fisher_exact(0, 5, 5, 0), 0.00793650793650794, 1e-13, "fisher [[0,5],[5,0]]");
	near(rt_fisher_exact(12, 48, 0, 60), 0.000265460966648085, 1e-14, "fisher [[12,48],[0,60]]");
	near(rt_fisher_exact(7, 2, 3, 8), 0.0697785186949274, 1e-12, "fisher [[7,2],[3,8]]");
	near(rt_fisher_exact(10, 10, 10, 10), 1, 1e-12, "fisher balanced = 1");
	near(rt_fisher_exact(0, 0, 0, 0), 1, 0, "fisher empty table = 1");
	near(rt_fisher_exact(5, 0, 0, 0), 1, 1e-12, "fisher one cell = 1");
	ok(isnan(rt_fisher_exact(-1, 2, 3, 4)), "fisher negative count is NaN");
	/* python3: log space with math.lgamma and math.fsum */
	near(rt_fisher_exact(1000000, 1000000, 1000000, 1000000), 1, 1e-6, "fisher millions, balanced");
	near(rt_fisher_exact(1000000, 1003000, 1003000, 1000000), 0.00272871, 2e-6,
	    "fisher millions, 0.15% apart");
	near(rt_fisher_exact(500000, 1500000, 1500000, 500000), 0, 1e-300, "fisher millions, far apart");
}

static void
t_newcombe(void)
{
	rt_interval d;

	/* Newcombe (1998) example: 56/70 − 48/80, 95% CI 0.0524 to 0.3339 */
	eql(rt_newcombe(56, 70, 48, 80, 0.95, &d), RT_STATS_OK, "newcombe ok");
	near(d.low, 0.0524287134, 1e-9, "newcombe 56/70 vs 48/80 low 0.0524");
	near(d.high, 0.3338749349, 1e-9, "newcombe 56/70 vs 48/80 high 0.3339");
	near(d.center, 0.2, 1e-12, "newcombe centre = p1 − p2");
	rt_newcombe(9, 10, 3, 10, 0.95, &d);
	near(d.low, 0.1705147419, 1e-9, "newcombe 9/10 vs 3/10 low");
	near(d.high, 0.8090199764, 1e-9, "newcombe 9/10 vs 3/10 high");
	rt_newcombe(5, 56, 0, 29, 0.95, &d);
	near(d.low, -0.0381408590, 1e-9, "newcombe 5/56 vs 0/29 low");
	near(d.high, 0.1925623986, 1e-9, "newcombe 5/56 vs 0/29 high");
	rt_newcombe(0, 0, 3, 10, 0.95, &d);
	ok(d.low == -1 && d.high == 1, "newcombe n1 = 0 is [−1, 1]");
	eql(rt_newcombe(11, 10, 3, 10, 0.95, &d), RT_STATS_EINVAL, "newcombe k1 > n1 refused");
	eql(rt_newcombe(1, 10, 3, 10, 2, &d), RT_STATS_EINVAL, "newcombe c = 2 refused");
}

static void
t_mann_whitney(void)
{
	double x1[] = { 1, 2, 3, 4, 5 }, y1[] = { 3, 4, 5, 6, 7, 8 };
	double x2[] = { 10, 11, 12, 13, 14, 15, 16, 17 }, y2[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	double x3[] = { 1, 1, 2, 2, 3 }, y3[] = { 1, 2, 2, 3, 3, 3, 4 };
	double same[] = { 2, 2, 2 }, unsorted[] = { 3, 1 };
	double u, e, p;

	/* python3: U by pairwise counting, normal approximation with tie and
	 * continuity correction (as R's wilcox.test(correct = TRUE)) */
	p = rt_mann_whitney(x1, 5, y1, 6, &u, &e);
	near(u, 4.5, 0, "mw U with ties = 4.5");
	near(e, 0.15, 1e-15, "mw effect 0.15");
	near(p, 0.0660154315212309, 1e-12, "mw p with ties");
	p = rt_mann_whitney(x2, 8, y2, 8, &u, &e);
	near(u, 64, 0, "mw separated U = 64");
	near(e, 1, 0, "mw separated effect 1");
	near(p, 0.000939105699117, 1e-12, "mw separated p");
	p = rt_mann_whitney(y2, 8, x2, 8, &u, NULL);
	near(u, 0, 0, "mw reversed U = 0");
	near(p, 0.000939105699117, 1e-12, "mw reversed p is the same");
	p = rt_mann_whitney(x3, 5, y3, 7, &u, &e);
	near(u, 9.5, 0, "mw heavy ties U = 9.5");
	near(e, 0.2714285714285714, 1e-15, "mw heavy ties effect");
	near(p, 0.20317391758508574, 1e-12, "mw heavy ties p");
	p = rt_mann_whitney(same, 3, same, 3, &u, &e);
	ok(p == 1 && e == 0.5, "mw all tied: p 1, effect 0.5");
	p = rt_mann_whitney(x1, 0, y1, 6, &u, &e);
	ok(p == 1 && e == 0.5, "mw empty sample: p 1, effect 0.5");
	ok(isnan(rt_mann_whitney(unsorted, 2, y1, 6, NULL, NULL)), "mw unsorted input is NaN");
}

/* Benjamini–Hochberg by hand: sorted p against q·i/n, step up. */
static void
t_bh(void)
{
	double a[] = { 0.01, 0.04, 0.03, 0.005 };
	double b[] = { 0.02, 0.9, 0.03 };      /* 0.02 > 0.05/3, yet rejected */
	double c[] = { 0.5, 0.2 };
	double d[] = { 0.01, NAN };

	near(rt_bh_cutoff(a, 4, 0.05), 0.04, 0, "bh all four at 0.05");
	ok(a[0] == 0.005 && a[3] == 0.04, "bh sorts in place");
	near(rt_bh_cutoff(b, 3, 0.05), 0.03, 0, "bh step-up: 0.03 <= 2/3 q carries 0.02");
	near(rt_bh_cutoff(c, 2, 0.05), -1, 0, "bh none: -1");
	near(rt_bh_cutoff(c, 0, 0.05), -1, 0, "bh n = 0: -1");
	ok(isnan(rt_bh_cutoff(c, 2, 1)), "bh q = 1 is NaN");
	ok(isnan(rt_bh_cutoff(d, 2, 0.05)), "bh a NaN p-value is NaN");
}

int
main(void)
{
	t_normal();
	t_wilson();
	t_runs();
	t_retry();
	t_detect();
	t_exact();
	t_cs();
	t_fisher();
	t_newcombe();
	t_mann_whitney();
	t_bh();
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail != 0;
}
