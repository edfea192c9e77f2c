/*
 * rt_say: the one phrasing of counts, rates and intervals.
 *
 * Every tool that prints a rate prints it through here, so one record
 * gives the same words everywhere:
 *
 *   12/40 failed (30.0%, 95% Wilson CI 18.0%–45.5%)
 *   0/40 failed (≤7.3% at 95% confidence)            exact one-sided
 *   29/29 failed (≥90.1% at 95% confidence)          exact one-sided
 *   1/7 failed (14.3%, biased by stopping; 95% anytime interval 0.3%–76.5%)
 *
 * A bound is rounded outward at the printed precision (an upper bound up,
 * a lower bound down), so the printed claim is never stronger than the
 * one computed: 0/2000 failed is "≤0.2%", not "≤0.1%" (an 86.5% claim).
 * A point estimate is rounded to nearest. A non-zero value is never
 * printed as "0.0%": below 0.05% it gets two significant digits.
 */
#ifndef RT_SAY_H
#define RT_SAY_H

#include <stddef.h>

#include "rt_stats.h"

/* rounding directions */
#define RT_SAY_NEAR 0
#define RT_SAY_UP 1    /* an upper bound */
#define RT_SAY_DOWN -1 /* a lower bound */

/* v, a probability, as a percentage: "7.2%" (one decimal), "0.012%" for a
 * non-zero value below 0.05%, rounded in direction dir. Returns buf. */
char *rt_say_pct(char *buf, size_t size, double v, int dir);
/* The same without the "%" sign: "7.2", "0.012". */
void rt_say_num(char *buf, size_t size, double v, int dir);
/* A confidence level: "95%", "97.5%". Returns buf. */
char *rt_say_conf(char *buf, size_t size, double conf);
/* A two-sided interval rounded outward: "18.1%–45.5%". */
void rt_say_range(char *buf, size_t size, double lo, double hi);
/* A difference in percentage points, signed: "+20.0" (dir as above). */
void rt_say_points(char *buf, size_t size, double v, int dir);

/* The interval that goes with k/n: Wilson, or the exact one-sided bound
 * for 0/n and n/n. */
void rt_say_interval(long k, long n, double conf, rt_interval *iv);
/* Its method's name, as records carry it: "exact one-sided" for 0/n and
 * n/n (n > 0), else "wilson". */
const char *rt_say_method(long k, long n);

/* The short form, for tables and reasons: "≤7.3%" for 0/n, "≥90.1%" for
 * n/n, else "30.0% (18.0%–45.5%)". "no rate" for n = 0. */
void rt_say_short(char *buf, size_t size, long k, long n, double conf);

/* The full phrase with its verb ("failed", "won"): see the top. "0 valid
 * trials (no rate)" for n <= 0. */
void rt_say_count(char *buf, size_t size, long k, long n, double conf,
    const char *verb);

/* The full phrase with an interval computed elsewhere and its method's
 * name ("anytime"): "1/7 failed (14.3%, biased by stopping; 95% anytime
 * interval 0.3%–76.5%)"; 0/n gives "0/40 failed (≤9.1% at 95% confidence,
 * anytime)" and n/n "(≥…, anytime)". note ("biased by stopping") may be
 * NULL. A NULL iv is rt_say_count's interval; a NULL method, "wilson" or
 * "exact one-sided" (a record's names) are said in rt_say_count's words,
 * with iv's numbers (a record's own). */
void rt_say_count_iv(char *buf, size_t size, long k, long n, double conf,
    const char *verb, const rt_interval *iv, const char *method,
    const char *note);
/* The short form of the same: "≤9.1% (anytime)", "30.0% (15.2%–50.1%,
 * anytime)". */
void rt_say_short_iv(char *buf, size_t size, long k, long n,
    const rt_interval *iv, const char *method);

/* An upper bound that holds at every look, as a release states it:
 * "0/212 failed since 2026-12-01: ≤1.4% at 95% confidence, checked every
 * night" (high rounded up); since NULL reads "since it was listed"; n = 0,
 * "0 runs since 2026-12-01 (no rate)". */
void rt_say_since(char *buf, size_t size, long k, long n, const char *since,
    double high, double conf, const char *verb);

/* A record's counts in the words above, the one rule every tool keeps
 * for a record (a measure, a lane, a confirmation, a baseline): trials,
 * failures and confidence from the record (conf when it has none); a
 * fixed-n interval ("wilson", "exact one-sided" or none named) is said
 * from the counts; an "anytime" one as recorded (cs_low/cs_high, else
 * ci_low/ci_high), with "biased by stopping early" when rate_biased.
 * "k/n failed (anytime interval not recorded)" when it is missing; "0
 * valid trials (no rate)" for none. */
struct json_t;
void rt_say_rec(char *buf, size_t size, const struct json_t *rec, double conf,
    const char *verb);
#endif
