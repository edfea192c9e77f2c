/* rt_say: the one phrasing of counts, rates and intervals (see rt_say.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "rt_say.h"

#define LE "\xe2\x89\xa4" /* ≤ */
#define GE "\xe2\x89\xa5" /* ≥ */
#define DASH "\xe2\x80\x93" /* – */

static double
round_dir(double q, int dir)
{
	/* 1e-9 absorbs the binary noise of v * 100 * 10: a bound of exactly
	 * 7.2% is "7.2%", not "7.3%" */
	if (dir > 0)
		return ceil(q - 1e-9);
	if (dir < 0)
		return floor(q + 1e-9);
	return floor(q + 0.5);
}

void
rt_say_num(char *buf, size_t size, double v, int dir)
{
	double p = v * 100, q, scale;

	if (!(p > 0)) { /* 0; a negative value is no probability, NaN none */
		snprintf(buf, size, "%.1f", p < 0 ? round_dir(p * 10, dir) / 10 : 0.0);
		return;
	}
	if (p > 100)
		p = 100;
	q = round_dir(p * 10, dir);
	if (p >= 0.05 && q > 0) {
		snprintf(buf, size, "%.1f", q / 10);
		return;
	}
	/* never "0.0" for a value that is not 0: two significant digits */
	scale = pow(10, floor(log10(p)) - 1);
	q = round_dir(p / scale, dir);
	if (q < 1)
		q = 1;
	snprintf(buf, size, "%.2g", q * scale);
}

char *
rt_say_pct(char *buf, size_t size, double v, int dir)
{
	char n[32];

	rt_say_num(n, sizeof n, v, dir);
	snprintf(buf, size, "%s%%", n);
	return buf;
}

char *
rt_say_conf(char *buf, size_t size, double conf)
{
	snprintf(buf, size, "%g%%", conf * 100);
	return buf;
}

void
rt_say_range(char *buf, size_t size, double lo, double hi)
{
	char a[32], b[32];

	rt_say_pct(a, sizeof a, lo, RT_SAY_DOWN);
	rt_say_pct(b, sizeof b, hi, RT_SAY_UP);
	snprintf(buf, size, "%s" DASH "%s", a, b);
}

void
rt_say_points(char *buf, size_t size, double v, int dir)
{
	double q = round_dir(v * 1000, dir) / 10;

	snprintf(buf, size, "%+.1f", q == 0 ? 0.0 : q);
}

void
rt_say_interval(long k, long n, double conf, rt_interval *iv)
{
	rt_wilson(k, n, conf, iv);
	if (n > 0 && k == 0)
		iv->low = 0, iv->high = rt_zero_bound(n, conf);
	else if (n > 0 && k == n)
		iv->low = rt_all_bound(n, conf), iv->high = 1;
}

const char *
rt_say_method(long k, long n)
{
	return n > 0 && (k == 0 || k == n) ? "exact one-sided" : "wilson";
}

void
rt_say_short_iv(char *buf, size_t size, long k, long n, const rt_interval *iv,
    const char *method)
{
	char lo[32], hi[32], pt[32], tag[64] = "";

	if (n <= 0) {
		snprintf(buf, size, "no rate");
		return;
	}
	rt_say_pct(lo, sizeof lo, iv->low, RT_SAY_DOWN);
	rt_say_pct(hi, sizeof hi, iv->high, RT_SAY_UP);
	if (method && *method)
		snprintf(tag, sizeof tag, "%s", method);
	if (k == 0)
		snprintf(buf, size, LE "%s%s%s%s", hi, *tag ? " (" : "", tag, *tag ? ")" : "");
	else if (k == n)
		snprintf(buf, size, GE "%s%s%s%s", lo, *tag ? " (" : "", tag, *tag ? ")" : "");
	else {
		rt_say_pct(pt, sizeof pt, (double)k / (double)n, RT_SAY_NEAR);
		snprintf(buf, size, "%s (%s" DASH "%s%s%s)", pt, lo, hi, *tag ? ", " : "", tag);
	}
}

void
rt_say_short(char *buf, size_t size, long k, long n, double conf)
{
	rt_interval iv;

	rt_say_interval(k, n, conf, &iv);
	rt_say_short_iv(buf, size, k, n, &iv, NULL);
}

void
rt_say_count_iv(char *buf, size_t size, long k, long n, double conf,
    const char *verb, const rt_interval *iv, const char *method,
    const char *note)
{
	rt_interval own;
	char lo[32], hi[32], pt[32], cl[32], tag[64] = "", nt[96] = "";
	const char *sp = verb && *verb ? " " : "";

	if (!verb)
		verb = "";
	if (n <= 0) {
		snprintf(buf, size, "0 valid trials (no rate)");
		return;
	}
	if (!iv) {
		rt_say_interval(k, n, conf, &own);
		iv = &own;
	}
	/* the default methods are said in the default words */
	if (method && (!strcmp(method, "wilson") || !strcmp(method, "exact one-sided")))
		method = NULL;
	rt_say_conf(cl, sizeof cl, conf);
	rt_say_pct(lo, sizeof lo, iv->low, RT_SAY_DOWN);
	rt_say_pct(hi, sizeof hi, iv->high, RT_SAY_UP);
	if (method)
		snprintf(tag, sizeof tag, ", %s", method);
	if (k == 0) {
		snprintf(buf, size, "0/%ld%s%s (" LE "%s at %s confidence%s)", n, sp, verb, hi, cl, tag);
		return;
	}
	if (k == n) {
		snprintf(buf, size, "%ld/%ld%s%s (" GE "%s at %s confidence%s)", n, n, sp, verb, lo, cl,
		    tag);
		return;
	}
	rt_say_pct(pt, sizeof pt, (double)k / (double)n, RT_SAY_NEAR);
	if (note && *note)
		snprintf(nt, sizeof nt, ", %s;", note);
	else
		snprintf(nt, sizeof nt, ",");
	snprintf(buf, size, "%ld/%ld%s%s (%s%s %s %s %s %s" DASH "%s)", k, n, sp, verb, pt, nt, cl,
	    method ? method : "Wilson", method ? "interval" : "CI", lo, hi);
}

void
rt_say_count(char *buf, size_t size, long k, long n, double conf, const char *verb)
{
	rt_say_count_iv(buf, size, k, n, conf, verb, NULL, NULL, NULL);
}

void
rt_say_since(char *buf, size_t size, long k, long n, const char *since,
    double high, double conf, const char *verb)
{
	char hi[32], cl[32];

	if (!since)
		since = "it was listed";
	if (n <= 0) {
		snprintf(buf, size, "0 runs since %s (no rate)", since);
		return;
	}
	rt_say_pct(hi, sizeof hi, high, RT_SAY_UP);
	rt_say_conf(cl, sizeof cl, conf);
	snprintf(buf, size, "%ld/%ld %s since %s: " LE "%s at %s confidence, checked every night",
	    k, n, verb, since, hi, cl);
}

static int
rec_num(const json_t *o, const char *k, double *v)
{
	json_t *x = json_object_get(o, k);

	if (!json_is_number(x))
		return 0;
	*v = json_number_value(x);
	return 1;
}

void
rt_say_rec(char *buf, size_t size, const json_t *rec, double conf, const char *verb)
{
	json_t *jk = json_object_get(rec, "failures"), *jn = json_object_get(rec, "trials");
	const char *method = json_string_value(json_object_get(rec, "interval"));
	long k = json_is_integer(jk) ? (long)json_integer_value(jk) : 0;
	long n = json_is_integer(jn) ? (long)json_integer_value(jn) : 0;
	rt_interval iv = { 0, 0, 0, 0 };
	double c;

	if (rec_num(rec, "confidence", &c) && c > 0 && c < 1)
		conf = c;
	if (!method || strcmp(method, "anytime") != 0 || n <= 0) {
		rt_say_count(buf, size, k, n, conf, verb);
		return;
	}
	if (!(rec_num(rec, "cs_low", &iv.low) && rec_num(rec, "cs_high", &iv.high)) &&
	    !(rec_num(rec, "ci_low", &iv.low) && rec_num(rec, "ci_high", &iv.high))) {
		snprintf(buf, size, "%ld/%ld%s%s (anytime interval not recorded)", k, n,
		    verb && *verb ? " " : "", verb ? verb : "");
		return;
	}
	rt_say_count_iv(buf, size, k, n, conf, verb, &iv, "anytime",
	    json_is_true(json_object_get(rec, "rate_biased")) ? "biased by stopping early" : NULL);
}
