/* rt-plan: how many clean runs show a flaky test is fixed, and the CI
 * policy that follows (retry budget, quarantine rule) from a failure rate,
 * delivering the stated confidence when that rate was itself measured. */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rt_cli.h"
#include "rt_jsonl.h"
#include "rt_records.h"
#include "rt_stats.h"
#include "rt_trial.h"
#include "rt_util.h"

#define MAX_LEVELS 32

/* The last measure record read. */
typedef struct {
	int found;
	rt_where where;
	long trials, failures;
	double rate, ci_low, ci_high, conf;
	char method[32];             /* its "interval", else "wilson" */
} measure;

/* What rate each question is planned from (rt-plan(1), BASES). */
enum { B_KNOWN, B_POINT, B_ENDS, B_SPLIT };
static const char *const basis_name[] = { "known", "point", "ends", "split" };

static struct {
	int have_rate;
	double rate;
	double levels[MAX_LEVELS];
	int nlevels;
	int have_choose;
	double choose;
	int policy, text, basis, have_basis;
	int have_target;
	double target;               /* --target: the residual rate to show */
	double survive;              /* --survive: chance a failure beats the retries */
	long window;
} opt = { .survive = RT_RETRY_TARGET, .window = RT_QUARANTINE_WINDOW };

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: %s [-pt] [-b split|point|ends] [-c C[,C...]] [--choose C]\n"
	    "               [-r P] [-T T] [-s S] [-w W] [file]\n"
	    "  -r, --rate P            plan from a known failure rate P, not a measure\n"
	    "  -c, --confidence C,...  confidence level(s) in (0,1) (default 0.95)\n"
	    "      --choose C          the level \"chosen\" reports (default 0.95)\n"
	    "  -b, --basis B           split: the measure's exact bounds, the error split\n"
	    "                          between measurement and runs (default); point: the\n"
	    "                          measured rate as if known; ends: the record's interval\n"
	    "  -T, --target T          runs that show the residual rate is below\n"
	    "                          min(T, rate), as rt-verify confirms a fix\n"
	    "  -p, --policy            print the CI policy: green runs, retries, quarantine\n"
	    "  -s, --survive S         chance a flaky failure may survive its retries (0.01)\n"
	    "  -w, --window W          runs the quarantine rule looks back over (100)\n"
	    "  -t, --text              a sentence instead of a JSON record\n"
	    "  -h, --help              this help\n"
	    "  -V, --version           print the version\n", rt_progname);
}

static void
parse_levels(const char *arg)
{
	char *s = rt_xstrdup(arg), *tok, *save = NULL;

	opt.nlevels = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (opt.nlevels == MAX_LEVELS)
			rt_usage_die("--confidence %s: at most %d levels", arg, MAX_LEVELS);
		opt.levels[opt.nlevels++] = rt_num_confidence("--confidence", tok);
	}
	if (opt.nlevels == 0)
		rt_usage_die("--confidence %s: no level given", arg);
	free(s);
}

static int
on_record(json_t *rec, const rt_where *w, void *ctx)
{
	measure *m = ctx;
	long long n, k;
	rt_interval ci;
	double conf = 0.95;
	const char *method;

	if (strcmp(rt_rec_str(rec, "type", w), "measure") != 0)
		return 0;
	rt_rec_check(RT_REC_MEASURE, rec, w);
	n = rt_rec_int(rec, "trials", 0, LONG_MAX, w);
	k = rt_rec_int(rec, "failures", 0, n, w);
	if (rt_rec_opt_num(rec, "confidence", w, &conf) && !(conf > 0 && conf < 1))
		rt_die_at(w, "\"confidence\": %g is not between 0 and 1", conf);
	m->found = 1;
	m->where = *w;
	m->trials = (long)n;
	m->failures = (long)k;
	m->conf = conf;
	if (n == 0)
		return 0;
	/* A record without its interval gets the one rt-measure gives it. */
	rt_wilson(m->failures, m->trials, conf, &ci);
	m->rate = (double)k / (double)n;
	m->ci_low = k == 0 ? 0 : k == n ? rt_all_bound(n, conf) : ci.low;
	m->ci_high = k == 0 ? rt_zero_bound(n, conf) : k == n ? 1 : ci.high;
	snprintf(m->method, sizeof m->method, "%s", rt_interval_method(m->failures, m->trials));
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
	return 0;
}

static const char *
inputs_name(int n, char *const files[])
{
	rt_buf b = {0};
	int i;

	if (n == 0)
		return "<stdin>";
	for (i = 0; i < n; i++) {
		if (i)
			rt_buf_adds(&b, ", ");
		rt_buf_adds(&b, strcmp(files[i], "-") == 0 ? "<stdin>" : files[i]);
	}
	return rt_buf_str(&b);
}

/* A rate at one decimal, through lib/rt_say: bounds rounded outward
 * (dir RT_SAY_UP, RT_SAY_DOWN), never "0.0%" for one that is not 0. */
static char *
pctd(char *buf, size_t size, double v, int dir)
{
	rt_say_pct(buf, size, v, dir);
	return buf;
}
#define pct(buf, size, v) pctd(buf, size, v, RT_SAY_NEAR)

/* "a" or "an" before a percentage: an 8.8%, an 11.0%, an 18.0%, an 80.0%. */
static const char *
article(const char *num)
{
	size_t digits = strspn(num, "0123456789");

	if (num[0] == '8' || (digits == 2 && num[0] == '1' && (num[1] == '1' || num[1] == '8')))
		return "an";
	return "a";
}

static char *
conf_text(char *buf, size_t size, double c)
{
	rt_say_conf(buf, size, c);
	return buf;
}

static long
runs_for(double p, double c)
{
	long n;

	switch (rt_runs_to_claim(p, c, &n)) {
	case RT_STATS_OK:
		return n;
	case RT_STATS_ERANGE:
		rt_die("rate %g: too small to plan for (the runs needed do not fit)", p);
	default:
		rt_die("rate %g: cannot plan a fix for it", p);
	}
}

/* The level "chosen" reports: --choose (one of the levels), else 0.95 when
 * listed, else the highest level. */
static double
chosen_level(void)
{
	double best = opt.levels[0];
	int i;

	for (i = 0; i < opt.nlevels; i++) {
		if (opt.have_choose && fabs(opt.levels[i] - opt.choose) < 1e-12)
			return opt.levels[i];
		if (!opt.have_choose && opt.levels[i] == 0.95)
			return 0.95;
		if (opt.levels[i] > best)
			best = opt.levels[i];
	}
	if (opt.have_choose)
		rt_usage_die("--choose %g: not one of the --confidence levels", opt.choose);
	return best;
}

/* The plan at one confidence c: the rate each question is planned from,
 * and the confidence each step is taken at. */
typedef struct {
	double c, step;              /* overall; each step (split: 1 − (1 − c)/2) */
	double fix, lo, hi;          /* fix: runs planned from; [lo, hi]: the interval */
	int have_iv;                 /* lo, hi exist (not a known rate) */
	long runs;
} level_plan;

static level_plan
plan_at(double c, double observed, const measure *m)
{
	level_plan lp = { c, c, observed, 0, 1, 0, 0 };

	if (opt.basis == B_SPLIT) {
		/* P(rate < lo) ≤ (1 − c)/2 and, if not, P(runs all pass) ≤
		 * (1 − c)/2: together at most 1 − c */
		lp.step = 1 - (1 - c) / 2;
		lp.lo = rt_exact_lower(m->failures, m->trials, lp.step);
		lp.hi = rt_exact_upper(m->failures, m->trials, lp.step);
		lp.have_iv = 1;
		lp.fix = lp.lo;
	} else if (opt.basis != B_KNOWN) {
		lp.lo = m->ci_low, lp.hi = m->ci_high;
		lp.have_iv = 1;
		if (opt.basis == B_ENDS)
			lp.fix = m->ci_low > 0 ? m->ci_low : m->ci_high;
	}
	/* --target: show the residual rate is below min(T, rate), the claim
	 * rt-verify's confirmation makes; a claim about a fixed number, so
	 * the measurement's error does not enter it */
	if (opt.have_target) {
		lp.step = c;
		lp.fix = observed < opt.target ? observed : opt.target;
	}
	if (!(lp.fix > 0))
		rt_die("no rate above 0 to plan a fix against");
	lp.runs = runs_for(lp.fix, lp.step);
	return lp;
}

static void
add_measure(json_t *o, const measure *m)
{
	if (!m->found)
		return;
	json_object_set_new(o, "trials", json_integer(m->trials));
	json_object_set_new(o, "failures", json_integer(m->failures));
	json_object_set_new(o, "ci_low", rt_json_real6(m->ci_low));
	json_object_set_new(o, "ci_high", rt_json_real6(m->ci_high));
	json_object_set_new(o, "interval", json_string(m->method));
	json_object_set_new(o, "measure_confidence", rt_json_real6(m->conf));
}

/* The basis fields: what the rate is, and for split the exact interval. */
static void
add_basis(json_t *o, const level_plan *lp)
{
	json_object_set_new(o, "basis", json_string(opt.have_target ? "target" :
	    basis_name[opt.basis]));
	if (opt.have_target)
		json_object_set_new(o, "target", json_real(opt.target));
	if (opt.basis == B_SPLIT) {
		json_object_set_new(o, "step_confidence", json_real(lp->step));
		json_object_set_new(o, "exact_low", rt_json_real6(lp->lo));
		json_object_set_new(o, "exact_high", rt_json_real6(lp->hi));
	}
}

static void
zero_note(json_t *o, const measure *m)
{
	if (m->found && m->failures == 0)
		json_object_set_new(o, "note", json_string("no failure observed: "
		    "planned from the interval's upper end, the highest rate the "
		    "trials cannot rule out"));
	else if (m->found && opt.basis == B_POINT && !opt.have_target)
		json_object_set_new(o, "note", json_string("the measured rate taken "
		    "as known: the confidence leaves out the measurement's own error"));
}

static void
measured_text(const measure *m)
{
	char buf[200];

	if (!m->found)
		return;
	rt_rate_text(buf, sizeof buf, m->failures, m->trials, m->conf);
	printf("Measured %s. ", buf);
}

/* "At a 20.0% failure rate" (with why, when it is not the rate itself);
 * lead is "At" or "planned from". */
static void
rate_text(const level_plan *lp, const measure *m, const char *lead)
{
	char b[32], c1[32], c2[32];

	pct(b, sizeof b, lp->fix);
	printf("%s %s %s failure rate", lead, article(b), b);
	if (opt.have_target) {
		printf(" (the lower of the %s target and the %s rate)", pct(c1, sizeof c1,
		    opt.target), m->found ? "measured" : "given");
		return;
	}
	if (opt.basis == B_SPLIT)
		printf(" (the exact one-sided %s lower bound of the measured rate: the "
		    "%s error is split between the measurement and the runs)",
		    conf_text(c1, sizeof c1, lp->step), conf_text(c2, sizeof c2, 1 - lp->c));
	else if (opt.basis == B_ENDS && m->failures == 0)
		printf(" (the high end of the interval: no failure was observed, so "
		    "there is no lower rate to plan against)");
	else if (opt.basis == B_ENDS)
		printf(" (the low end of the interval, the conservative end for "
		    "claiming a fix)");
	else if (opt.basis == B_POINT && m->found)
		printf(" (the measured rate taken as known)");
}

/* "show it is fixed" or, with --target, "show its rate is below 10.0%" */
static const char *
claim(const level_plan *lp)
{
	static char b[80];
	char r[32];

	if (!opt.have_target)
		return "show it is fixed";
	snprintf(b, sizeof b, "show its rate is below %s", pctd(r, sizeof r, lp->fix, RT_SAY_UP));
	return b;
}

static void
plan(double observed, const measure *m)
{
	json_t *o = json_object(), *levels, *lv, *ch = NULL;
	double c = chosen_level();
	level_plan lp;
	int i;
	char b[32], b2[32];

	json_object_set_new(o, "type", json_string("plan"));
	if (opt.nlevels == 1) {
		lp = plan_at(c, observed, m);
		if (opt.text) {
			measured_text(m);
			rate_text(&lp, m, "At");
			if (lp.runs == 1)
				printf(", a single clean run %ss at %s confidence.\n", claim(&lp),
				    conf_text(b, sizeof b, c));
			else
				printf(", %ld clean runs in a row %s at %s confidence.\n", lp.runs,
				    claim(&lp), conf_text(b, sizeof b, c));
			json_decref(o);
			return;
		}
		json_object_set_new(o, "rate", rt_json_real6(lp.fix));
		json_object_set_new(o, "confidence", json_real(c));
		json_object_set_new(o, "runs", json_integer(lp.runs));
		add_basis(o, &lp);
		if (m->found)
			json_object_set_new(o, "observed_rate", rt_json_real6(observed));
		add_measure(o, m);
		zero_note(o, m);
		rt_emit(stdout, o);
		json_decref(o);
		return;
	}
	if (opt.text) {
		measured_text(m);
		lp = plan_at(opt.levels[0], observed, m);
		if (opt.basis == B_SPLIT && !opt.have_target)
			printf("From the exact one-sided lower bound of the measured rate at "
			    "each level (the error split between the measurement and the "
			    "runs: %s at %s)", pct(b, sizeof b, lp.fix),
			    conf_text(b2, sizeof b2, opt.levels[0]));
		else
			rate_text(&lp, m, "At");
		for (i = 0; i < opt.nlevels; i++) {
			lp = plan_at(opt.levels[i], observed, m);
			if (i == 0)
				printf(", %ld clean run%s in a row %s at %s confidence",
				    lp.runs, lp.runs == 1 ? "" : "s", claim(&lp),
				    conf_text(b, sizeof b, opt.levels[i]));
			else
				printf(", %ld at %s", lp.runs, conf_text(b, sizeof b, opt.levels[i]));
		}
		printf(".\n");
		json_decref(o);
		return;
	}
	lp = plan_at(c, observed, m);
	json_object_set_new(o, "observed_rate", rt_json_real6(observed));
	json_object_set_new(o, "basis", json_string(opt.have_target ? "target" :
	    basis_name[opt.basis]));
	if (opt.have_target)
		json_object_set_new(o, "target", json_real(opt.target));
	json_object_set_new(o, "rate", rt_json_real6(lp.fix));
	levels = json_array();
	for (i = 0; i < opt.nlevels; i++) {
		level_plan li = plan_at(opt.levels[i], observed, m);
		lv = json_object();
		json_object_set_new(lv, "confidence", json_real(opt.levels[i]));
		json_object_set_new(lv, "runs", json_integer(li.runs));
		/* split plans each level from its own bound */
		if (opt.basis == B_SPLIT && !opt.have_target) {
			json_object_set_new(lv, "rate", rt_json_real6(li.fix));
			json_object_set_new(lv, "step_confidence", json_real(li.step));
		}
		json_array_append_new(levels, lv);
		if (!ch && opt.levels[i] == c)
			ch = json_deep_copy(lv);
	}
	json_object_set_new(o, "levels", levels);
	json_object_set_new(o, "chosen", ch);
	add_measure(o, m);
	zero_note(o, m);
	rt_emit(stdout, o);
	json_decref(o);
}

/* The interval a policy's probabilities range over: "the exact 95%
 * interval" (split), or the measure record's. */
static char *
iv_name(char *buf, size_t size, const level_plan *lp, const measure *m)
{
	char c[32];

	if (opt.basis == B_SPLIT)
		snprintf(buf, size, "the rate's exact %s interval", conf_text(c, sizeof c, lp->c));
	else
		snprintf(buf, size, "the measured %s interval", conf_text(c, sizeof c, m->conf));
	return buf;
}

/* What a flaky failure's chance of surviving every retry is, never without
 * its interval: "0.8% at the known rate", or "<0.01% at the measured 20.0%,
 * at most 0.7% over the rate's exact 95% interval (5.7–43.7%)". */
static char *
survive_text(char *buf, size_t size, double q, double qlo, double qhi,
    const level_plan *lp, const measure *m, double observed)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], iv[64];

	if (!lp->have_iv) {
		snprintf(buf, size, "%s at the %s rate, taken as known", pct(a, sizeof a, q),
		    pct(b, sizeof b, observed));
		return buf;
	}
	iv_name(iv, sizeof iv, lp, m);
	snprintf(buf, size, "%s at the measured %s, %s\xe2\x80\x93%s over %s (%s\xe2\x80\x93%s)",
	    pct(a, sizeof a, q), pct(b, sizeof b, observed),
	    pctd(c, sizeof c, qlo, RT_SAY_DOWN), pctd(d, sizeof d, qhi, RT_SAY_UP), iv,
	    pctd(e, sizeof e, lp->lo, RT_SAY_DOWN), pctd(f, sizeof f, lp->hi, RT_SAY_UP));
	return buf;
}

static void
policy(double observed, const measure *m)
{
	json_t *o = json_object();
	double c = chosen_level(), retry_rate, q, qlo, qhi, qplan, alarm;
	long retries = 0, quar;
	int always;
	level_plan lp = plan_at(c, observed, m);
	char rule[1200], b1[32], b2[64], b3[32], b4[32], pq[300], pa[32], where[100];

	/* retries and the quarantine rule hold at the interval's high end, so
	 * at every rate inside it; point and known plan from the rate itself */
	retry_rate = opt.basis == B_SPLIT || opt.basis == B_ENDS ? lp.hi : observed;
	switch (rt_retry_budget(retry_rate, opt.survive, &retries)) {
	case RT_STATS_OK:
		always = 0;
		break;
	case RT_STATS_EALWAYS:
		always = 1;
		break;
	default:
		rt_die("rate %g: no retry budget reaches --survive %g", retry_rate, opt.survive);
	}
	/* q: the chance one CI run exhausts its retries by flakiness alone */
	q = always ? 1 : pow(observed, (double)(retries + 1));
	qlo = always ? 1 : pow(lp.lo, (double)(retries + 1));
	qhi = always ? 1 : pow(lp.hi, (double)(retries + 1));
	qplan = always ? 1 : pow(retry_rate, (double)(retries + 1));
	/* split: the rule at the step confidence, so that with the interval's
	 * own error a false alarm stays within 1 − c */
	if (rt_quarantine_after(qplan, opt.window, opt.basis == B_SPLIT ? lp.step : c,
	    &quar) != RT_STATS_OK)
		rt_die("cannot compute the quarantine rule");
	alarm = rt_quarantine_false_alarm(quar, opt.window, qplan);
	conf_text(b1, sizeof b1, c);
	survive_text(pq, sizeof pq, q, qlo, qhi, &lp, m, observed);
	pctd(pa, sizeof pa, alarm, RT_SAY_UP);
	/* the interval the false-alarm bound holds over */
	if (lp.have_iv && opt.basis != B_POINT)
		snprintf(where, sizeof where, " at any rate in %s", iv_name(b2, sizeof b2, &lp, m));
	else if (lp.have_iv)
		snprintf(where, sizeof where, " at the measured rate, taken as known");
	else
		snprintf(where, sizeof where, " at the known rate");
	if (always)
		snprintf(rule, sizeof rule,
		    "it always fails: no retry budget helps; quarantine after the first "
		    "failing run and fix it; a fix is shown by %ld clean run%s", lp.runs,
		    lp.runs == 1 ? "" : "s");
	else
		snprintf(rule, sizeof rule,
		    "retry a failing run up to %ld time%s (a flaky failure survives all "
		    "%ld attempts with probability %s; target %s); quarantine when %ld of "
		    "the last %ld runs exhaust their retries, checked after every run (by "
		    "flakiness alone that happens within any %ld runs with probability at "
		    "most %s%s); a fix is shown by %ld clean run%s in a row at %s confidence",
		    retries, retries == 1 ? "" : "s", retries + 1, pq,
		    pct(b3, sizeof b3, opt.survive), quar, opt.window, opt.window, pa,
		    where, lp.runs, lp.runs == 1 ? "" : "s", b1);
	if (opt.text) {
		measured_text(m);
		if (always) {
			printf("It always fails: no retry budget helps, so quarantine or fix "
			    "it, not retry. ");
		} else {
			printf("Retry a failing run up to %ld time%s: a flaky failure "
			    "survives all %ld attempts with probability %s (target %s). ",
			    retries, retries == 1 ? "" : "s", retries + 1, pq,
			    pct(b4, sizeof b4, opt.survive));
			printf("Quarantine when %ld of the last %ld runs exhaust their "
			    "retries, checked after every run: by flakiness alone that happens "
			    "within any %ld runs with probability at most %s%s. ", quar,
			    opt.window, opt.window, pa, where);
		}
		if (lp.runs == 1)
			printf("After a fix, a single clean run %ss at %s confidence",
			    claim(&lp), b1);
		else
			printf("After a fix, %ld clean runs in a row %s at %s confidence",
			    lp.runs, claim(&lp), b1);
		if (opt.basis != B_KNOWN || opt.have_target) {
			printf(", ");
			rate_text(&lp, m, "planned from");
		}
		printf(".\n");
		json_decref(o);
		return;
	}
	json_object_set_new(o, "type", json_string("policy"));
	json_object_set_new(o, "observed_rate", rt_json_real6(observed));
	add_basis(o, &lp);
	if (opt.have_target)      /* the retry side keeps its own basis */
		json_object_set_new(o, "retry_basis", json_string(basis_name[opt.basis]));
	json_object_set_new(o, "confidence", json_real(c));
	json_object_set_new(o, "green_runs_required", json_integer(lp.runs));
	json_object_set_new(o, "retry_budget", always ? json_null() : json_integer(retries));
	json_object_set_new(o, "survive", json_real(opt.survive));
	json_object_set_new(o, "quarantine_after", json_integer(quar));
	json_object_set_new(o, "window", json_integer(opt.window));
	json_object_set_new(o, "checked", json_string("after every run"));
	json_object_set_new(o, "false_alarm_bound", json_real(alarm));
	json_object_set_new(o, "rule", json_string(rule));
	json_object_set_new(o, "fix_rate", rt_json_real6(lp.fix));
	json_object_set_new(o, "retry_rate", rt_json_real6(retry_rate));
	json_object_set_new(o, "exhaust_probability", json_real(q));
	if (lp.have_iv) {
		json_object_set_new(o, "exhaust_low", json_real(qlo));
		json_object_set_new(o, "exhaust_high", json_real(qhi));
	}
	if (always)
		json_object_set_new(o, "note", json_string("it always fails: quarantine or "
		    "fix it, not retry; no retry budget can make it pass"));
	else
		zero_note(o, m);
	add_measure(o, m);
	rt_emit(stdout, o);
	json_decref(o);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "basis", required_argument, NULL, 'b' },
		{ "confidence", required_argument, NULL, 'c' },
		{ "choose", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "policy", no_argument, NULL, 'p' },
		{ "rate", required_argument, NULL, 'r' },
		{ "survive", required_argument, NULL, 's' },
		{ "target", required_argument, NULL, 'T' },
		{ "text", no_argument, NULL, 't' },
		{ "version", no_argument, NULL, 'V' },
		{ "window", required_argument, NULL, 'w' },
		RT_LIST_OPTIONS_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	measure m = {0};
	double observed;
	int ch;

	rt_setprogname(argv[0]);
	opterr = 0;
	opt.levels[0] = 0.95, opt.nlevels = 1;
	opt.basis = B_SPLIT;
	while ((ch = getopt_long(argc, argv, ":b:c:hpr:s:T:tVw:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'b':
			opt.have_basis = 1;
			if (strcmp(optarg, "point") == 0)
				opt.basis = B_POINT;
			else if (strcmp(optarg, "ends") == 0 || strcmp(optarg, "upper") == 0)
				opt.basis = B_ENDS;   /* "upper": its old name */
			else if (strcmp(optarg, "split") == 0)
				opt.basis = B_SPLIT;
			else
				rt_usage_die("--basis %s: must be split, point or ends", optarg);
			break;
		case 'c':
			parse_levels(optarg);
			break;
		case 'C':
			opt.have_choose = 1;
			opt.choose = rt_num_double("--choose", optarg, 0, 1, 1, 1);
			break;
		case RT_OPT_LIST_OPTIONS: return rt_cli_list_options(longopts);
		case 'h':
			usage(stdout);
			rt_fshut(stdout, "stdout");
			return RT_EXIT_OK;
		case 'p':
			opt.policy = 1;
			break;
		case 'r':
			opt.have_rate = 1;
			opt.rate = rt_num_double("--rate", optarg, 0, 1, 0, 0);
			break;
		case 's':
			opt.survive = rt_num_double("--survive", optarg, 0, 1, 1, 1);
			break;
		case 'T':
			opt.have_target = 1;
			opt.target = rt_num_double("--target", optarg, 0, 1, 1, 1);
			break;
		case 't':
			opt.text = 1;
			break;
		case 'V':
			rt_print_version();
			rt_fshut(stdout, "stdout");
			return RT_EXIT_OK;
		case 'w':
			opt.window = rt_num_long("--window", optarg, 1, 1000000);
			break;
		case ':':
			rt_usage_die("%s: needs a value", argv[optind - 1]);
		default:
			if (optopt)
				rt_usage_die("-%c: unknown option", optopt);
			rt_usage_die("%s: unknown option", argv[optind - 1]);
		}
	}
	argc -= optind, argv += optind;
	if (opt.have_rate && argc > 0)
		rt_usage_die("--rate and a measure input are exclusive");
	if (opt.have_rate && opt.have_basis && opt.basis != B_POINT)
		rt_usage_die("--basis %s needs a measure record (an interval), not --rate",
		    basis_name[opt.basis]);
	chosen_level();    /* a bad --choose is a usage error before any input */

	if (opt.have_rate) {
		if (opt.rate == 0)
			rt_die("--rate 0: no failure to plan a fix against");
		opt.basis = B_KNOWN;
		observed = opt.rate;
	} else {
		rt_jsonl_loop(argc, argv, NULL, on_record, &m);
		if (!m.found)
			rt_die("%s: no measure record", inputs_name(argc, argv));
		if (m.trials == 0)
			rt_die_at(&m.where, "0 valid trials: no rate to plan from");
		observed = m.rate;
		if (m.failures == 0 && opt.basis != B_ENDS)
			rt_die("no failure observed in %ld trials: nothing to plan a fix "
			    "against (--basis ends plans from the interval's upper end)",
			    m.trials);
		if (opt.basis == B_ENDS && m.ci_low == 0 && m.ci_high == 0)
			rt_die_at(&m.where, "the interval's upper end is 0: nothing to plan from");
	}
	if (opt.policy)
		policy(observed, &m);
	else
		plan(observed, &m);
	rt_fshut(stdout, "stdout");
	return RT_EXIT_OK;
}
