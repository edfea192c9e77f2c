/* rt_stats: the shared math of retrial (libretrial-stats). Pure: no malloc,
 * no I/O, no exit; results by return value and out-parameters. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "rt_stats.h"

#define SQRT2     1.41421356237309504880
#define SQRT2PI   2.50662827463100050242
/* Two doubles this close (relatively) are the same integer boundary. */
#define INT_TOL   1e-9

static int
in_open01(double x)
{
	return x > 0.0 && x < 1.0;
}

double
rt_norm_cdf(double x)
{
	return 0.5 * erfc(-x / SQRT2);
}

/* Acklam's rational approximation (relative error 1.15e-9), then one step
 * of Halley's method on Φ(x) − p, which brings it to machine precision. */
double
rt_norm_quantile(double p)
{
	static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
	    -2.759285104469687e+02, 1.383577518672690e+02,
	    -3.066479806614716e+01, 2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
	    -1.556989798598866e+02, 6.680131188771972e+01,
	    -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
	    -2.400758277161838e+00, -2.549732539343734e+00,
	    4.374664141464968e+00, 2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01,
	    2.445134137142996e+00, 3.754408661907416e+00 };
	const double plow = 0.02425, phigh = 1 - 0.02425;
	double q, r, x, e, u;

	if (!in_open01(p))
		return NAN;
	if (p < plow) {
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else if (p <= phigh) {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	} else {
		q = sqrt(-2 * log1p(-p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	/* Halley: e = Φ(x) − p, computed on the tail it is accurate in. */
	if (x < 0)
		e = 0.5 * erfc(-x / SQRT2) - p;
	else
		e = (1 - p) - 0.5 * erfc(x / SQRT2);
	u = e * SQRT2PI * exp(x * x / 2);
	x = x - u / (1 + x * u / 2);
	return x;
}

double
rt_z_for_confidence(double c)
{
	if (!in_open01(c))
		return NAN;
	/* The conventional 1.96, so 95% intervals match every textbook. */
	if (c == 0.95)
		return 1.96;
	return rt_norm_quantile((1 + c) / 2);
}

static void
wilson_z(long k, long n, double z, rt_interval *out)
{
	double p, z2, denom, centre, half;

	out->z = z;
	if (n == 0) {
		out->low = 0, out->high = 1, out->center = 0.5;
		return;
	}
	p = (double)k / (double)n;
	z2 = z * z;
	denom = 1 + z2 / n;
	/* centre (p + z²/2n)/(1 + z²/n),
	 * half-width z/(1 + z²/n)·√(p(1−p)/n + z²/4n²) */
	centre = (p + z2 / (2.0 * n)) / denom;
	half = z / denom * sqrt(p * (1 - p) / n + z2 / (4.0 * n * (double)n));
	out->center = centre;
	out->low = k == 0 ? 0 : fmax(0, centre - half);
	out->high = k == n ? 1 : fmin(1, centre + half);
}

int
rt_wilson(long k, long n, double c, rt_interval *out)
{
	if (k < 0 || n < 0 || k > n || !in_open01(c) || out == NULL)
		return RT_STATS_EINVAL;
	wilson_z(k, n, rt_z_for_confidence(c), out);
	return RT_STATS_OK;
}

/* The smallest integer ≥ x, except that x within a relative INT_TOL of an
 * integer is that integer: log(0.25)/log(0.5) must give 2, not 3. */
static double
ceil_tol(double x)
{
	double r = nearbyint(x);

	if (fabs(x - r) <= INT_TOL * fmax(1, fabs(x)))
		return r;
	return ceil(x);
}

int
rt_runs_to_claim(double p, double c, long *runs)
{
	double x;

	if (!(p >= 0 && p <= 1) || !in_open01(c) || runs == NULL)
		return RT_STATS_EINVAL;
	if (p == 0)
		return RT_STATS_ENOFAIL;
	if (p == 1) {
		*runs = 1;
		return RT_STATS_OK;
	}
	/* smallest n with (1−p)^n ≤ 1−c: n = ⌈log(1−c)/log(1−p)⌉ */
	x = ceil_tol(log1p(-c) / log1p(-p));
	if (x < 1)
		x = 1;
	if (!(x <= (double)LONG_MAX / 2))
		return RT_STATS_ERANGE;
	*runs = (long)x;
	return RT_STATS_OK;
}

int
rt_plan_split(long k, long n, double c, double *step, double *lo, double *hi, long *runs)
{
	long r;

	if (n <= 0 || k < 0 || k > n || !in_open01(c))
		return RT_STATS_EINVAL;
	*step = 1 - (1 - c) / 2;
	*lo = rt_exact_lower(k, n, *step);
	*hi = rt_exact_upper(k, n, *step);
	return rt_runs_to_claim(*lo, *step, runs ? runs : &r);
}

int
rt_retry_budget(double p, double target, long *retries)
{
	double x;

	if (!(p >= 0 && p <= 1) || !in_open01(target) || retries == NULL)
		return RT_STATS_EINVAL;
	if (p == 1)
		return RT_STATS_EALWAYS;
	if (p == 0) {
		*retries = 0;
		return RT_STATS_OK;
	}
	/* smallest r ≥ 0 with p^(r+1) ≤ target: r + 1 = ⌈log t / log p⌉ */
	x = ceil_tol(log(target) / log(p)) - 1;
	if (x < 0)
		x = 0;
	if (!(x <= (double)LONG_MAX / 2))
		return RT_STATS_ERANGE;
	*retries = (long)x;
	return RT_STATS_OK;
}

static double
lchoose(double n, double k)
{
	return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
}

/* Sum the Binomial(n, p) pmf from i in steps of di (±1) while in [0, n],
 * stopping once the terms, shrinking away from the mode, are negligible. */
static double
binom_sum(long i, long di, long n, double lp, double lq, double mode)
{
	double sum = 0, t;

	for (; i >= 0 && i <= n; i += di) {
		t = exp(lchoose(n, i) + i * lp + (n - i) * lq);
		sum += t;
		if ((di > 0 ? i > mode : i < mode) && t <= sum * DBL_EPSILON * 0.25)
			break;
	}
	return sum;
}

double
rt_binom_sf(long m, long n, double p)
{
	double lp, lq, mode;

	if (n < 0 || !(p >= 0 && p <= 1))
		return NAN;
	if (m <= 0)
		return 1;
	if (m > n)
		return 0;
	if (p == 0)
		return 0;
	if (p == 1)
		return 1;
	lp = log(p), lq = log1p(-p);
	mode = (n + 1) * p;
	/* Sum the side away from the mode: the upper tail directly, or one
	 * minus the lower tail when m is below the mode. */
	if (m >= mode)
		return fmin(1, binom_sum(m, 1, n, lp, lq, mode));
	return fmax(0, 1 - binom_sum(m - 1, -1, n, lp, lq, mode));
}

/* The chance that a rule "m or more of the last w runs" fires by chance at
 * one of w consecutive checks (one after every run), runs exhausted
 * independently with probability q. Bounded, as in scan statistics, by
 * the first check plus, for each later one, the chance that it is the run
 * just added that takes the window to m:
 * P(Bin(w, q) ≥ m) + (w − 1)·q·P(Bin(w − 1, q) ≥ m − 1). */
static double
scan_bound(long m, long w, double q)
{
	return fmin(1, rt_binom_sf(m, w, q) + (double)(w - 1) * q *
	    rt_binom_sf(m - 1, w - 1, q));
}

double
rt_quarantine_false_alarm(long m, long window, double q)
{
	if (!(q >= 0 && q <= 1) || window < 0 || m < 1)
		return NAN;
	if (window == 0)
		window = RT_QUARANTINE_WINDOW;
	if (m > window)
		return 0;
	return scan_bound(m, window, q);
}

double
rt_zero_bound(long n, double c)
{
	if (n < 0 || !in_open01(c))
		return NAN;
	if (n == 0)
		return 1;
	/* 1 − (1 − c)^(1/n), without cancellation for large n */
	return -expm1(log1p(-c) / (double)n);
}

double
rt_all_bound(long n, double c)
{
	if (n < 0 || !in_open01(c))
		return NAN;
	if (n == 0)
		return 0;
	return exp(log1p(-c) / (double)n);
}

/* Bisect for the p where f(p) = P(X ≥ m | p), increasing in p, crosses
 * want; keep the end of the bracket on the conservative side. */
static double
solve_sf(long m, long n, double want, int upper)
{
	double lo = 0, hi = 1, mid;
	int i;

	for (i = 0; i < 200; i++) {
		mid = lo + (hi - lo) / 2;
		if (mid <= lo || mid >= hi)
			break;
		if (rt_binom_sf(m, n, mid) < want)
			lo = mid;
		else
			hi = mid;
	}
	return upper ? hi : lo;
}

double
rt_exact_upper(long k, long n, double c)
{
	if (k < 0 || n < 0 || k > n || !in_open01(c))
		return NAN;
	if (k == n)
		return 1;
	if (k == 0)
		return rt_zero_bound(n, c);
	/* the p with P(X ≤ k | p) = 1 − c, i.e. P(X ≥ k + 1 | p) = c */
	return solve_sf(k + 1, n, c, 1);
}

double
rt_exact_lower(long k, long n, double c)
{
	if (k < 0 || n < 0 || k > n || !in_open01(c))
		return NAN;
	if (k == 0)
		return 0;
	if (k == n)
		return rt_all_bound(n, c);
	/* the p with P(X ≥ k | p) = 1 − c */
	return solve_sf(k, n, 1 - c, 0);
}

int
rt_quarantine_after(double q, long window, double c, long *m)
{
	long lo, hi, mid;

	if (!(q >= 0 && q <= 1) || window < 0 || !in_open01(c) || m == NULL)
		return RT_STATS_EINVAL;
	if (window == 0)
		window = RT_QUARANTINE_WINDOW;
	/* It always fails: the first exhausted run is already evidence. */
	if (q == 1 || q == 0) {
		*m = 1;
		return RT_STATS_OK;
	}
	/* smallest m ≥ 1 whose false-alarm bound over w checks is ≤ 1 − c;
	 * the bound falls as m grows, and m = w + 1 (never) always qualifies */
	lo = 1, hi = window + 1;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (scan_bound(mid, window, q) <= 1 - c)
			hi = mid;
		else
			lo = mid + 1;
	}
	*m = lo;
	return RT_STATS_OK;
}

rt_verdict
rt_detect(long k, long n, double threshold, double c)
{
	if (n <= 0 || k < 0 || k > n || !in_open01(c) || isnan(threshold))
		return RT_VERDICT_ERROR;
	/* ALWAYS_FAILING mirrors STABLE: the exact one-sided bound on the
	 * pass rate, 1 − (1 − c)^(1/n), below the threshold */
	if (k == n)
		return rt_all_bound(n, c) >= 1 - threshold ?
		    RT_VERDICT_ALWAYS_FAILING : RT_VERDICT_INCONCLUSIVE;
	if (k > 0)
		return RT_VERDICT_FLAKY;
	return rt_zero_bound(n, c) < threshold ? RT_VERDICT_STABLE :
	    RT_VERDICT_INCONCLUSIVE;
}

const char *
rt_verdict_name(rt_verdict v)
{
	switch (v) {
	case RT_VERDICT_ERROR:          return "ERROR";
	case RT_VERDICT_ALWAYS_FAILING: return "ALWAYS_FAILING";
	case RT_VERDICT_FLAKY:          return "FLAKY";
	case RT_VERDICT_STABLE:         return "STABLE";
	case RT_VERDICT_INCONCLUSIVE:   return "INCONCLUSIVE";
	}
	return "ERROR";
}

/* log M_n(p) − log(1/α) for Robbins' beta-binomial mixture:
 * M_n(p) = B(a+k, b+n−k)/B(a,b) / (p^k (1−p)^(n−k)). */
static double
cs_excess(double p, long k, long n, double lmix, double lthresh)
{
	double l = lmix;

	if (k > 0)
		l -= k * log(p);
	if (n - k > 0)
		l -= (n - k) * log1p(-p);
	return l - lthresh;
}

static double
lbeta(double a, double b)
{
	return lgamma(a) + lgamma(b) - lgamma(a + b);
}

int
rt_cs_interval(long k, long n, double c, double a, double b, rt_interval *out)
{
	double lmix, lthresh, phat, lo, hi, mid;
	int i;

	if (k < 0 || n < 0 || k > n || !in_open01(c) || out == NULL ||
	    isnan(a) || isnan(b) || isinf(a) || isinf(b))
		return RT_STATS_EINVAL;
	if (a <= 0)
		a = RT_CS_PRIOR;
	if (b <= 0)
		b = RT_CS_PRIOR;
	out->z = 0;
	if (n == 0) {
		out->low = 0, out->high = 1, out->center = 0.5;
		return RT_STATS_OK;
	}
	phat = (double)k / (double)n;
	out->center = phat;
	lmix = lbeta(a + k, b + (n - k)) - lbeta(a, b);
	lthresh = -log1p(-c);    /* log(1/α), α = 1 − c */
	/* log M_n is convex in p with its minimum (≤ 0 < log 1/α) at k/n, so
	 * the set is an interval around k/n: bisect each side. Keep the outer
	 * end of the last bracket so the interval never shrinks. */
	if (k == 0 || cs_excess(0, k, n, lmix, lthresh) < 0)
		out->low = 0;
	else {
		lo = 0, hi = phat;
		for (i = 0; i < 200 && hi - lo > 0; i++) {
			mid = lo + (hi - lo) / 2;
			if (mid <= lo || mid >= hi)
				break;
			if (cs_excess(mid, k, n, lmix, lthresh) < 0)
				hi = mid;
			else
				lo = mid;
		}
		out->low = lo;
	}
	if (k == n || cs_excess(1, k, n, lmix, lthresh) < 0)
		out->high = 1;
	else {
		lo = phat, hi = 1;
		for (i = 0; i < 200 && hi - lo > 0; i++) {
			mid = lo + (hi - lo) / 2;
			if (mid <= lo || mid >= hi)
				break;
			if (cs_excess(mid, k, n, lmix, lthresh) < 0)
				lo = mid;
			else
				hi = mid;
		}
		out->high = hi;
	}
	return RT_STATS_OK;
}

double
rt_fisher_exact(long a, long b, long c, long d)
{
	double r1, r2, c1, n, lnorm, lobs, lp, sum = 0;
	long x, xmin, xmax;

	if (a < 0 || b < 0 || c < 0 || d < 0)
		return NAN;
	r1 = (double)a + b, r2 = (double)c + d, c1 = (double)a + c;
	n = r1 + r2;
	if (n == 0)
		return 1;
	/* P(x) = C(r1, x) C(r2, c1 − x) / C(n, c1), x over the table support */
	lnorm = lchoose(n, c1);
	lobs = lchoose(r1, a) + lchoose(r2, c1 - a) - lnorm;
	xmin = (long)fmax(0, c1 - r2);
	xmax = (long)fmin(r1, c1);
	for (x = xmin; x <= xmax; x++) {
		lp = lchoose(r1, x) + lchoose(r2, c1 - x) - lnorm;
		/* "as or less likely", with a relative slack of 1e-7 */
		if (lp <= lobs + 1e-7)
			sum += exp(lp);
	}
	return fmin(1, sum);
}

int
rt_newcombe(long k1, long n1, long k2, long n2, double c, rt_interval *out)
{
	rt_interval w1, w2;
	double p1, p2, d;

	if (out == NULL || rt_wilson(k1, n1, c, &w1) != RT_STATS_OK ||
	    rt_wilson(k2, n2, c, &w2) != RT_STATS_OK)
		return RT_STATS_EINVAL;
	out->z = w1.z;
	if (n1 == 0 || n2 == 0) {
		out->low = -1, out->high = 1, out->center = 0;
		return RT_STATS_OK;
	}
	p1 = (double)k1 / n1, p2 = (double)k2 / n2;
	d = p1 - p2;
	/* method 10: L = d − √((p1−l1)² + (u2−p2)²), U = d + √((u1−p1)² + (p2−l2)²) */
	out->center = d;
	out->low = fmax(-1, d - hypot(p1 - w1.low, w2.high - p2));
	out->high = fmin(1, d + hypot(w1.high - p1, p2 - w2.low));
	return RT_STATS_OK;
}

static int
sorted(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (isnan(v[i]) || (i > 0 && v[i] < v[i - 1]))
			return 0;
	return 1;
}

double
rt_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
    double *u, double *effect)
{
	double r1 = 0, ties = 0, pos = 1, t, avg, ux, mean, var, n, z, nxny;
	size_t i = 0, j = 0, tx, ty;
	double v;

	if ((nx > 0 && x == NULL) || (ny > 0 && y == NULL) ||
	    !sorted(x, nx) || !sorted(y, ny)) {
		if (u)
			*u = NAN;
		if (effect)
			*effect = NAN;
		return NAN;
	}
	if (nx == 0 || ny == 0) {
		if (u)
			*u = 0;
		if (effect)
			*effect = 0.5;
		return 1;
	}
	/* Merge: each run of equal values across both samples shares the
	 * average of the ranks it spans. */
	while (i < nx || j < ny) {
		if (j >= ny || (i < nx && x[i] <= y[j]))
			v = x[i];
		else
			v = y[j];
		for (tx = 0; i < nx && x[i] == v; i++)
			tx++;
		for (ty = 0; j < ny && y[j] == v; j++)
			ty++;
		t = (double)(tx + ty);
		avg = pos + (t - 1) / 2;
		r1 += avg * tx;
		ties += t * t * t - t;
		pos += t;
	}
	nxny = (double)nx * (double)ny;
	ux = r1 - (double)nx * (nx + 1) / 2;
	if (u)
		*u = ux;
	if (effect)
		*effect = ux / nxny;
	n = (double)nx + ny;
	mean = nxny / 2;
	var = nxny / 12 * ((n + 1) - ties / (n * (n - 1)));
	if (!(var > 0))
		return 1;
	/* normal approximation with continuity correction */
	z = (fabs(ux - mean) - 0.5) / sqrt(var);
	if (z <= 0)
		return 1;
	return fmin(1, erfc(z / SQRT2));
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
rt_bh_cutoff(double *p, size_t n, double q)
{
	double cut = -1;
	size_t i;

	if (!in_open01(q))
		return NAN;
	for (i = 0; i < n; i++)
		if (isnan(p[i]))
			return NAN;
	qsort(p, n, sizeof *p, dbl_cmp);
	/* step up: the largest i with p_(i) ≤ q·i/n */
	for (i = n; i > 0; i--)
		if (p[i - 1] <= q * (double)i / (double)n) {
			cut = p[i - 1];
			break;
		}
	return cut;
}
