/* rt_plan: rt-plan's rules and their words (runs to show a fix, retry
 * budget, quarantine rule), shared by rt-plan, rt-retry and rt-report. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_plan.h"
#include "rt_records.h"
#include "rt_say.h"
#include "rt_stats.h"
#include "rt_util.h"

static const char *const basis_names[] = { "known", "point", "ends", "split" };

const char *
rt_plan_basis_name(rt_plan_basis b)
{
	return basis_names[b];
}

int
rt_plan_basis_parse(const char *s, rt_plan_basis *b)
{
	if (strcmp(s, "point") == 0)
		*b = RT_PLAN_POINT;
	else if (strcmp(s, "ends") == 0 || strcmp(s, "upper") == 0)
		*b = RT_PLAN_ENDS;    /* "upper": its old name */
	else if (strcmp(s, "split") == 0)
		*b = RT_PLAN_SPLIT;
	else
		return -1;
	return 0;
}

void
rt_plan_rules_init(rt_plan_rules *r)
{
	memset(r, 0, sizeof *r);
	r->basis = RT_PLAN_DEFAULT_BASIS;
	r->survive = RT_RETRY_TARGET;
	r->window = RT_QUARANTINE_WINDOW;
}

void
rt_plan_measure_set(rt_plan_measure *m, long k, long n, double conf)
{
	rt_interval ci;

	m->found = 1;
	m->trials = n;
	m->failures = k;
	m->conf = conf;
	if (n == 0)
		return;
	rt_wilson(k, n, conf, &ci);
	m->rate = (double)k / (double)n;
	m->ci_low = k == 0 ? 0 : k == n ? rt_all_bound(n, conf) : ci.low;
	m->ci_high = k == 0 ? rt_zero_bound(n, conf) : k == n ? 1 : ci.high;
	snprintf(m->method, sizeof m->method, "%s", rt_say_method(k, n));
	rt_say_count(m->say, sizeof m->say, k, n, conf, "failed");
}

int
rt_plan_measure_read(json_t *rec, const rt_where *w, rt_plan_measure *m)
{
	long long n, k;
	double conf = 0.95;
	const char *method;

	if (strcmp(rt_rec_str(rec, "type", w), "measure") != 0)
		return 0;
	rt_rec_check(RT_REC_MEASURE, rec, w);
	n = rt_rec_int(rec, "trials", 0, LONG_MAX, w);
	k = rt_rec_int(rec, "failures", 0, n, w);
	if (rt_rec_opt_num(rec, "confidence", w, &conf) && !(conf > 0 && conf < 1))
		rt_die_at(w, "\"confidence\": %g is not between 0 and 1", conf);
	memset(m, 0, sizeof *m);
	m->where = *w;
	/* a record without its interval gets the one rt-measure gives it */
	rt_plan_measure_set(m, (long)k, (long)n, conf);
	rt_say_rec(m->say, sizeof m->say, rec, conf, "failed");
	if (n == 0)
		return 1;
	if (rt_rec_opt_num(rec, "ci_low", w, &m->ci_low) && !(m->ci_low >= 0 && m->ci_low <= 1))
		rt_die_at(w, "\"ci_low\": %g is not a rate", m->ci_low);
	if (rt_rec_opt_num(rec, "ci_high", w, &m->ci_high) && !(m->ci_high >= 0 && m->ci_high <= 1))
		rt_die_at(w, "\"ci_high\": %g is not a rate", m->ci_high);
	if (m->ci_low > m->rate || m->ci_high < m->rate)
		rt_die_at(w, "the interval [%g, %g] does not contain the rate %g",
		    m->ci_low, m->ci_high, m->rate);
	/* an old record with ci_low/ci_high but no "interval" was Wilson's */
	if (rt_rec_opt_str(rec, "interval", w, &method))
		snprintf(m->method, sizeof m->method, "%s", method);
	else if (json_object_get(rec, "ci_high"))
		snprintf(m->method, sizeof m->method, "wilson");
	return 1;
}

rt_plan_level
rt_plan_interval(const rt_plan_rules *r, double c, double observed,
    const rt_plan_measure *m)
{
	rt_plan_level lp = { c, c, observed, 0, 1, 0, 0, 0 };

	if (r->basis == RT_PLAN_SPLIT) {
		/* P(rate < lo) ≤ (1 − c)/2 and, if not, P(runs all pass) ≤
		 * (1 − c)/2: together at most 1 − c */
		(void)rt_plan_split(m->failures, m->trials, c, &lp.step, &lp.lo, &lp.hi, NULL);
		if (!strcmp(m->method, "anytime") && m->trials > 0) {
			/* a measure that stopped early (rt-measure --until): the
			 * fixed-n exact bounds do not hold under its stopping rule;
			 * the anytime interval (rt-measure's own, at the step's
			 * level) does, however often it looked */
			rt_interval cs;
			if (rt_cs_interval(m->failures, m->trials, lp.step, 0.5, 0.5, &cs) ==
			    RT_STATS_OK) {
				lp.lo = cs.low, lp.hi = cs.high;
				lp.anytime = 1;
			}
		}
		lp.have_iv = 1;
		lp.fix = lp.lo;
	} else if (r->basis != RT_PLAN_KNOWN) {
		lp.lo = m->ci_low, lp.hi = m->ci_high;
		lp.have_iv = 1;
		if (r->basis == RT_PLAN_ENDS)
			lp.fix = m->ci_low > 0 ? m->ci_low : m->ci_high;
	}
	/* --target: show the residual rate is below min(T, rate), the claim
	 * rt-verify's confirmation makes; a claim about a fixed number, so
	 * the measurement's error does not enter it */
	if (r->have_target) {
		lp.step = c;
		lp.fix = observed < r->target ? observed : r->target;
	}
	return lp;
}

int
rt_plan_try(const rt_plan_rules *r, double c, double observed, const rt_plan_measure *m,
    rt_plan_level *lp)
{
	*lp = rt_plan_interval(r, c, observed, m);
	if (!(lp->fix > 0))
		return -1;
	return rt_runs_to_claim(lp->fix, lp->step, &lp->runs);
}

rt_plan_level
rt_plan_at(const rt_plan_rules *r, double c, double observed, const rt_plan_measure *m)
{
	rt_plan_level lp;

	switch (rt_plan_try(r, c, observed, m, &lp)) {
	case RT_STATS_OK:
		break;
	case -1:
		rt_die("no rate above 0 to plan a fix against");
	case RT_STATS_ERANGE:
		rt_die("rate %g: too small to plan for (the runs needed do not fit)", lp.fix);
	default:
		rt_die("rate %g: cannot plan a fix for it", lp.fix);
	}
	return lp;
}

int
rt_plan_retry_at(const rt_plan_rules *r, const rt_plan_level *lp, double observed,
    rt_plan_retry *out)
{
	double e;

	memset(out, 0, sizeof *out);
	/* retries hold at the interval's high end, so at every rate inside
	 * it; point and known plan from the rate itself */
	out->rate = r->basis == RT_PLAN_SPLIT || r->basis == RT_PLAN_ENDS ? lp->hi : observed;
	switch (rt_retry_budget(out->rate, r->survive, &out->retries)) {
	case RT_STATS_OK:
		break;
	case RT_STATS_EALWAYS:
		out->always = 1;
		break;
	default:
		return -1;
	}
	/* q: the chance one CI run exhausts its retries by flakiness alone */
	e = (double)(out->retries + 1);
	out->q = out->always ? 1 : pow(observed, e);
	out->qlo = out->always ? 1 : pow(lp->lo, e);
	out->qhi = out->always ? 1 : pow(lp->hi, e);
	return 0;
}

/* The quarantine rule for a plan and its budget. */
static int
quarantine(const rt_plan_rules *r, double c, rt_plan_policy *p)
{
	double qplan = p->retry.always ? 1 :
	    pow(p->retry.rate, (double)(p->retry.retries + 1));

	/* split: the rule at the step confidence, so that with the interval's
	 * own error a false alarm stays within 1 − c */
	if (rt_quarantine_after(qplan, r->window, r->basis == RT_PLAN_SPLIT ? p->lp.step : c,
	    &p->quarantine_after) != RT_STATS_OK)
		return -1;
	p->false_alarm = rt_quarantine_false_alarm(p->quarantine_after, r->window, qplan);
	return 0;
}

int
rt_plan_policy_try(const rt_plan_rules *r, double c, double observed,
    const rt_plan_measure *m, rt_plan_policy *p)
{
	if (rt_plan_try(r, c, observed, m, &p->lp) != RT_STATS_OK ||
	    rt_plan_retry_at(r, &p->lp, observed, &p->retry) < 0)
		return -1;
	return quarantine(r, c, p);
}

void
rt_plan_policy_at(const rt_plan_rules *r, double c, double observed,
    const rt_plan_measure *m, rt_plan_policy *p)
{
	p->lp = rt_plan_at(r, c, observed, m);
	if (rt_plan_retry_at(r, &p->lp, observed, &p->retry) < 0)
		rt_die("rate %g: no retry budget reaches --survive %g", p->retry.rate,
		    r->survive);
	if (quarantine(r, c, p) < 0)
		rt_die("cannot compute the quarantine rule");
}

/* ---- the words ---- */

#define pct(buf, size, v) rt_say_pct(buf, size, v, RT_SAY_NEAR)

/* "a" or "an" before a percentage: an 8.8%, an 11.0%, an 18.0%, an 80.0%. */
static const char *
article(const char *num)
{
	size_t digits = strspn(num, "0123456789");

	if (num[0] == '8' || (digits == 2 && num[0] == '1' && (num[1] == '1' || num[1] == '8')))
		return "an";
	return "a";
}

void
rt_plan_say_basis(char *buf, size_t size, const rt_plan_rules *r,
    const rt_plan_level *lp, const rt_plan_measure *m)
{
	char c1[32], c2[32];

	if (r->have_target)
		snprintf(buf, size, " (the lower of the %s target and the %s rate)",
		    pct(c1, sizeof c1, r->target), m->found ? "measured" : "given");
	else if (r->basis == RT_PLAN_SPLIT)
		snprintf(buf, size, " (the %s %s lower bound of the measured "
		    "rate: the %s error is split between the measurement and the runs)",
		    lp->anytime ? "anytime" : "exact one-sided",
		    rt_say_conf(c1, sizeof c1, lp->step), rt_say_conf(c2, sizeof c2, 1 - lp->c));
	else if (r->basis == RT_PLAN_ENDS && m->failures == 0)
		snprintf(buf, size, " (the high end of the interval: no failure was "
		    "observed, so there is no lower rate to plan against)");
	else if (r->basis == RT_PLAN_ENDS)
		snprintf(buf, size, " (the low end of the interval, the conservative end "
		    "for claiming a fix)");
	else if (r->basis == RT_PLAN_POINT && m->found)
		snprintf(buf, size, " (the measured rate taken as known)");
	else
		snprintf(buf, size, "%s", "");
}

void
rt_plan_say_rate(char *buf, size_t size, const char *lead, const rt_plan_rules *r,
    const rt_plan_level *lp, const rt_plan_measure *m)
{
	char b[32], why[400];

	pct(b, sizeof b, lp->fix);
	rt_plan_say_basis(why, sizeof why, r, lp, m);
	snprintf(buf, size, "%s %s %s failure rate%s", lead, article(b), b, why);
}

void
rt_plan_say_claim(char *buf, size_t size, const rt_plan_rules *r, const rt_plan_level *lp)
{
	char b[32];

	if (!r->have_target)
		snprintf(buf, size, "show it is fixed");
	else
		snprintf(buf, size, "show its rate is below %s",
		    rt_say_pct(b, sizeof b, lp->fix, RT_SAY_UP));
}

void
rt_plan_say_runs(char *buf, size_t size, const rt_plan_rules *r,
    const rt_plan_level *lp, const rt_plan_measure *m)
{
	char rate[600], cl[80], c[32];

	rt_plan_say_rate(rate, sizeof rate, "At", r, lp, m);
	rt_plan_say_claim(cl, sizeof cl, r, lp);
	rt_say_conf(c, sizeof c, lp->c);
	if (lp->runs == 1)
		snprintf(buf, size, "%s, a single clean run %ss at %s confidence", rate, cl, c);
	else
		snprintf(buf, size, "%s, %ld clean runs in a row %s at %s confidence", rate,
		    lp->runs, cl, c);
}

void
rt_plan_say_retry_basis(char *buf, size_t size, rt_plan_basis b, double rate,
    double step, double conf)
{
	char p[32], c[32];

	switch (b) {
	case RT_PLAN_SPLIT:
		snprintf(buf, size, "at any rate up to %s, the exact one-sided %s upper "
		    "bound of the measured rate", rt_say_pct(p, sizeof p, rate, RT_SAY_UP),
		    rt_say_conf(c, sizeof c, step));
		break;
	case RT_PLAN_ENDS:
		snprintf(buf, size, "at any rate up to %s, the top of the measured %s "
		    "interval", rt_say_pct(p, sizeof p, rate, RT_SAY_UP), rt_say_conf(c, sizeof c, conf));
		break;
	case RT_PLAN_POINT:
		snprintf(buf, size, "at the measured rate %s, taken as known", pct(p, sizeof p, rate));
		break;
	default:
		snprintf(buf, size, "at the known rate %s", pct(p, sizeof p, rate));
	}
}

void
rt_plan_say_iv(char *buf, size_t size, const rt_plan_rules *r,
    const rt_plan_level *lp, const rt_plan_measure *m)
{
	char c[32];

	if (r->basis == RT_PLAN_SPLIT)
		snprintf(buf, size, "the rate's %s %s interval", lp->anytime ? "anytime" : "exact",
		    rt_say_conf(c, sizeof c, lp->c));
	else
		snprintf(buf, size, "the measured %s interval", rt_say_conf(c, sizeof c, m->conf));
}

void
rt_plan_say_survive(char *buf, size_t size, const rt_plan_rules *r,
    const rt_plan_policy *p, const rt_plan_measure *m, double observed)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], iv[64];
	const rt_plan_level *lp = &p->lp;

	if (!lp->have_iv) {
		snprintf(buf, size, "%s at the %s rate, taken as known",
		    pct(a, sizeof a, p->retry.q), pct(b, sizeof b, observed));
		return;
	}
	rt_plan_say_iv(iv, sizeof iv, r, lp, m);
	snprintf(buf, size, "%s at the measured %s, %s\xe2\x80\x93%s over %s (%s\xe2\x80\x93%s)",
	    pct(a, sizeof a, p->retry.q), pct(b, sizeof b, observed),
	    rt_say_pct(c, sizeof c, p->retry.qlo, RT_SAY_DOWN),
	    rt_say_pct(d, sizeof d, p->retry.qhi, RT_SAY_UP), iv,
	    rt_say_pct(e, sizeof e, lp->lo, RT_SAY_DOWN), rt_say_pct(f, sizeof f, lp->hi, RT_SAY_UP));
}

void
rt_plan_say_where(char *buf, size_t size, const rt_plan_rules *r,
    const rt_plan_level *lp, const rt_plan_measure *m)
{
	char iv[64];

	if (lp->have_iv && r->basis != RT_PLAN_POINT) {
		rt_plan_say_iv(iv, sizeof iv, r, lp, m);
		snprintf(buf, size, " at any rate in %s", iv);
	} else if (lp->have_iv) {
		snprintf(buf, size, " at the measured rate, taken as known");
	} else {
		snprintf(buf, size, " at the known rate");
	}
}

void
rt_plan_say_rule(char *buf, size_t size, const rt_plan_rules *r,
    const rt_plan_policy *p, const rt_plan_measure *m, double observed)
{
	char b1[32], b3[32], pq[300], pa[32], where[100];
	long runs = p->lp.runs, retries = p->retry.retries;

	rt_say_conf(b1, sizeof b1, p->lp.c);
	if (p->retry.always) {
		snprintf(buf, size,
		    "it always fails: no retry budget helps; quarantine after the first "
		    "failing run and fix it; a fix is shown by %ld clean run%s", runs,
		    runs == 1 ? "" : "s");
		return;
	}
	rt_plan_say_survive(pq, sizeof pq, r, p, m, observed);
	rt_say_pct(pa, sizeof pa, p->false_alarm, RT_SAY_UP);
	rt_plan_say_where(where, sizeof where, r, &p->lp, m);
	snprintf(buf, size,
	    "retry a failing run up to %ld time%s (a flaky failure survives all "
	    "%ld attempts with probability %s; target %s); quarantine when %ld of "
	    "the last %ld runs exhaust their retries, checked after every run (by "
	    "flakiness alone that happens within any %ld runs with probability at "
	    "most %s%s); a fix is shown by %ld clean run%s in a row at %s confidence",
	    retries, retries == 1 ? "" : "s", retries + 1, pq,
	    pct(b3, sizeof b3, r->survive), p->quarantine_after, r->window, r->window, pa,
	    where, runs, runs == 1 ? "" : "s", b1);
}

/* the rule on the bound as said: "≤10.0%" is never a release at 10% */
static int
below(long k, long n, double level, double c, rt_interval *cs)
{
	char num[32];

	if (n <= 0 || rt_cs_interval(k, n, c, 0, 0, cs) != RT_STATS_OK)
		return 0;
	rt_say_num(num, sizeof num, cs->high, RT_SAY_UP);
	return strtod(num, NULL) / 100 < level;
}

int
rt_plan_release(long k, long n, double level, double c, rt_interval *cs,
    long *more)
{
	rt_interval t;
	long lo = 0, hi = 1;

	if (below(k, n, level, c, cs))
		return 1;
	if (n <= 0)
		cs->low = 0, cs->high = 1, cs->center = 0, cs->z = 0;
	/* the bound falls as clean runs are added: find the first m */
	while (!below(k, n + hi, level, c, &t))
		if ((hi *= 2) > 1000000) {
			*more = -1;
			return 0;
		}
	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;

		if (below(k, n + mid, level, c, &t))
			hi = mid;
		else
			lo = mid;
	}
	*more = hi;
	return 0;
}
