/*
 * rt_plan: rt-plan's rules, the one home of every number rt-plan states —
 * the clean runs that show a fix, the retry budget, the quarantine rule —
 * and their words, so rt-plan, rt-retry and rt-report say the same thing.
 *
 * The default basis is split (rt-plan(1), BASES): the error 1 − c is split
 * between the measurement and the runs, the fix planned from the rate's
 * exact one-sided (1 − (1 − c)/2) lower bound and the retries from its
 * upper bound.
 */
#ifndef RT_PLAN_H
#define RT_PLAN_H

#include <stddef.h>

#include <jansson.h>

#include "rt_jsonl.h"
#include "rt_stats.h"

/* What rate each question is planned from. */
typedef enum { RT_PLAN_KNOWN, RT_PLAN_POINT, RT_PLAN_ENDS, RT_PLAN_SPLIT } rt_plan_basis;
#define RT_PLAN_DEFAULT_BASIS RT_PLAN_SPLIT
#define RT_PLAN_DEFAULT_CONF  0.95

/* "known", "point", "ends", "split" */
const char *rt_plan_basis_name(rt_plan_basis b);
/* split, point, ends (or "upper", its old name): 0, else -1. */
int rt_plan_basis_parse(const char *s, rt_plan_basis *b);

/* The rules a plan is made by: the basis, --target, --survive, --window. */
typedef struct {
	rt_plan_basis basis;
	int have_target;
	double target;               /* the residual rate to show (--target) */
	double survive;              /* chance a failure beats the retries */
	long window;                 /* runs the quarantine rule looks back over */
} rt_plan_rules;
/* rt-plan's defaults */
void rt_plan_rules_init(rt_plan_rules *r);

/* A measure record: n, k and its interval (the record's own, else the
 * one rt-measure gives it). */
typedef struct {
	int found;
	rt_where where;
	long trials, failures;
	double rate, ci_low, ci_high, conf;
	char method[32];             /* its "interval", else "wilson" */
	char say[256];               /* its counts in lib/rt_say's words */
} rt_plan_measure;

/* Read a measure record into m (any other type: 0, m untouched), its
 * counts said by rt_say_rec; bad fields die naming w. */
int rt_plan_measure_read(json_t *rec, const rt_where *w, rt_plan_measure *m);
/* k/n at conf, with rt-measure's interval. */
void rt_plan_measure_set(rt_plan_measure *m, long k, long n, double conf);

/* The plan at one confidence c. */
typedef struct {
	double c, step;              /* overall; each step (split: 1 − (1 − c)/2) */
	double fix, lo, hi;          /* fix: runs planned from; [lo, hi]: the interval */
	int have_iv;                 /* lo, hi exist (not a known rate) */
	long runs;
	int anytime;                 /* split from a measure that stopped early:
	                              * lo, hi are the anytime interval at step */
} rt_plan_level;

/* The interval and the rate the fix is planned from, without the runs
 * (fix may be 0). */
rt_plan_level rt_plan_interval(const rt_plan_rules *r, double c, double observed,
    const rt_plan_measure *m);
/* The plan at c into *lp: 0, else -1 when no rate above 0 is left to
 * plan against, or rt_runs_to_claim's error. */
int rt_plan_try(const rt_plan_rules *r, double c, double observed,
    const rt_plan_measure *m, rt_plan_level *lp);
/* The same, dying with rt-plan's messages. */
rt_plan_level rt_plan_at(const rt_plan_rules *r, double c, double observed,
    const rt_plan_measure *m);

/* The retry budget: the smallest r with p^(r+1) ≤ survive, p the
 * interval's high end (split, ends) or the rate itself (point, known). */
typedef struct {
	double rate;                 /* p */
	long retries;                /* when !always */
	int always;                  /* it always fails: no budget helps */
	double q, qlo, qhi;          /* chance a run exhausts its retries at the
	                              * observed rate and over [lo, hi] */
} rt_plan_retry;
/* 0, else -1 when no budget reaches survive (rt_retry_budget's error). */
int rt_plan_retry_at(const rt_plan_rules *r, const rt_plan_level *lp,
    double observed, rt_plan_retry *out);

/* The whole policy at c. */
typedef struct {
	rt_plan_level lp;
	rt_plan_retry retry;
	long quarantine_after;
	double false_alarm;          /* bound on a flaky-alone quarantine */
} rt_plan_policy;
/* 0, else -1 when no plan, budget or rule can be computed. */
int rt_plan_policy_try(const rt_plan_rules *r, double c, double observed,
    const rt_plan_measure *m, rt_plan_policy *p);
/* The same, dying with rt-plan's messages. */
void rt_plan_policy_at(const rt_plan_rules *r, double c, double observed,
    const rt_plan_measure *m, rt_plan_policy *p);

/* ---- release on proof (rt-quarantine(1) release) ---- */

/* The level a quarantined test's rate is shown below to release it when
 * none is named: the rate quarantine is for, rt-measure's STABLE
 * threshold, not the lower bound the test was listed at. */
#define RT_PLAN_LEVEL RT_FLAKY_THRESHOLD

/* "Release when an anytime-valid bound over the runs since the entry's
 * start puts its rate below the level": k failing runs of n since the
 * start (its since date, never its latest failure, so that looking every
 * night cannot wait for a lucky streak), the confidence sequence at c
 * (rt_cs_interval, as rt-measure --until) into *cs. 1 when its upper
 * bound, as rt_say prints it (rounded up), is below level; else 0 with
 * *more the clean runs that would still be needed (-1: over 10^6). */
int rt_plan_release(long k, long n, double level, double c, rt_interval *cs,
    long *more);

/* ---- the words ---- */

/* Why the fix is planned from lp->fix, in parentheses with a leading
 * blank, or "" (known rate): " (the exact one-sided 97.5% lower bound of
 * the measured rate: the 5% error is split between the measurement and
 * the runs)". */
void rt_plan_say_basis(char *buf, size_t size, const rt_plan_rules *r,
    const rt_plan_level *lp, const rt_plan_measure *m);
/* lead ("At", "planned from") + "a 9.1% failure rate" + the basis words. */
void rt_plan_say_rate(char *buf, size_t size, const char *lead,
    const rt_plan_rules *r, const rt_plan_level *lp, const rt_plan_measure *m);
/* "show it is fixed", or with a target "show its rate is below 10.0%" */
void rt_plan_say_claim(char *buf, size_t size, const rt_plan_rules *r,
    const rt_plan_level *lp);
/* rt-plan --text's sentence for one level, without its period: "At a
 * 9.1% failure rate (...), 39 clean runs in a row show it is fixed at 95%
 * confidence". */
void rt_plan_say_runs(char *buf, size_t size, const rt_plan_rules *r,
    const rt_plan_level *lp, const rt_plan_measure *m);
/* The rate a retry budget holds at, by its basis: "at any rate up to
 * 35.7%, the exact one-sided 97.5% upper bound of the measured rate"
 * (split; step the step confidence), "at any rate up to 34.8%, the top of
 * the measured 95% interval" (ends; conf the measure's), "at the measured
 * rate 20.0%, taken as known" (point), "at the known rate 20.0%". */
void rt_plan_say_retry_basis(char *buf, size_t size, rt_plan_basis b, double rate,
    double step, double conf);
/* The interval the policy holds over: "the rate's exact 95% interval"
 * (split) or "the measured 95% interval". */
void rt_plan_say_iv(char *buf, size_t size, const rt_plan_rules *r,
    const rt_plan_level *lp, const rt_plan_measure *m);
/* A flaky failure's chance to survive every retry, with its interval:
 * "0.032% at the measured 20.0%, 0.0006%–0.6% over the rate's exact 95%
 * interval (9.0%–35.7%)". */
void rt_plan_say_survive(char *buf, size_t size, const rt_plan_rules *r,
    const rt_plan_policy *p, const rt_plan_measure *m, double observed);
/* Where the quarantine's false-alarm bound holds: " at any rate in the
 * rate's exact 95% interval", " at the measured rate, taken as known". */
void rt_plan_say_where(char *buf, size_t size, const rt_plan_rules *r,
    const rt_plan_level *lp, const rt_plan_measure *m);
/* The policy's "rule", one sentence. */
void rt_plan_say_rule(char *buf, size_t size, const rt_plan_rules *r,
    const rt_plan_policy *p, const rt_plan_measure *m, double observed);

#endif
