/* rt-report: the one-page report — how often it fails, what is true only
 * when it fails, what observation changed, and what it takes to say it is fixed. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_cli.h"
#include "rt_config.h"
#include "rt_fs.h"
#include "rt_jsonl.h"
#include "rt_records.h"
#include "rt_md.h"
#include "rt_out.h"
#include "rt_plan.h"
#include "rt_say.h"
#include "rt_stats.h"
#include "rt_tmpl.h"
#include "rt_trial.h"
#include "rt_util.h"

#define TOP_FACTS    5     /* facts listed, smallest p first */
#define MAX_LISTED   100   /* failing trial numbers listed */
#define TIMELINE_ROW 50    /* cells per row of the timeline */
#define BAND_POINTS  500   /* at most this many points on the narrowing band */
#define MAX_SENTENCES 64   /* sentences an autopsy may draft */
#define MAX_SPOKEN   10    /* and tell */

extern char **environ;

static const char usage_text[] =
    "usage: rt-report [-o DIR] [--html] [-p FILE] [-a FILE] [--autopsy-template FILE]\n"
    "                 [--speak WAV] [file ...]\n"
    "       rt-report -t [-p FILE] [file ...]\n"
    "       rt-report -a - [--autopsy-template FILE] [--speak WAV] [file ...]\n"
    "  -o, --output DIR   write summary.json and report.md into DIR (default .)\n"
    "      --html         also write report.html, one self-contained page\n"
    "  -p, --proof FILE   the measure record of the proof run after the fix\n"
    "  -t, --text         print report.md to stdout and write no files\n"
    "  -a, --autopsy FILE also write a short autopsy of rt-verify's verdict to\n"
    "                     FILE; with -, print only the autopsy to stdout\n"
    "      --autopsy-template FILE\n"
    "                     the autopsy's template (share/retrial/autopsy.txt.tmpl)\n"
    "      --speak WAV    read the autopsy aloud into WAV with espeak-ng\n"
    "  -h, --help         print this help\n"
    "  -V, --version      print the version\n";

/* measure fields, from a measure record, an experiment's control or
 * perturbed, or tallied from trial records */
typedef struct {
	int have;
	long trials, failures, timeouts, errors, ignored;
	double conf;
	int have_rate, have_ci, have_threshold, interrupted;
	double rate, ci_low, ci_high, threshold;
	char *verdict, *command, *stopped;
	char say[256];          /* the record's counts in lib/rt_say's words */
} meas;

/* One per-case measure record (rt-measure --by case). */
typedef struct {
	char *name;
	meas m;
	size_t order;
} casemeas;

typedef struct {
	char *name, *perturbation, *probe, *probe_detail, *method, *effect, *note;
	meas control, perturbed;
	int have_diff;
	double est, lo, hi;
	int implicated, changed;     /* -1 when absent */
} experiment;

typedef struct {
	char *kind, *stream, *value, *direction, *detail;
	long in_f, nf, in_s, ns;
	int have_counts, have_p;
	double p;
	size_t order;
} fact;

typedef struct {
	long trial;
	rt_outcome outcome;
	int have_exit, have_signal;
	long exit_code, sig;
	char *note;                  /* last line of stderr, or the error */
	size_t order;
} trialrec;

typedef struct {
	double conf;
	long runs;
} level;

typedef struct {
	/* counts of records by type, for the header */
	long n_measure, n_plan, n_policy, n_diff, n_fact, n_exp, n_trial, n_other;
	long n_verdict, n_lane, n_order;
	json_t *verdict;             /* rt-verify's last verdict record */
	json_t *lanes;               /* its lane records, an array, or NULL */
	json_t *order;               /* rt-bisect's order record */
	meas m;
	casemeas *cases;             /* per-case measure records */
	size_t ncases;
	/* diff */
	int have_diff, have_ftrials;
	long d_trials, d_failures;
	char *token;
	fact *facts;
	size_t nfacts;
	fact *loose;                 /* "fact" records (rt-diff-facts --jsonl) */
	size_t nloose;
	long *ftrials;
	size_t nftrials;
	/* experiments */
	experiment *exps;
	size_t nexps;
	/* plan */
	level *levels;
	size_t nlevels;
	int have_plan_rate, have_chosen, have_plan_counts;
	long plan_trials, plan_failures;
	double plan_rate;
	char *plan_basis;
	level chosen;
	/* policy */
	int have_policy, have_retry, have_quar, have_green, have_target, have_window;
	long green, retry, quar, window;
	double target, pol_conf, pol_rate;
	int have_pol_conf, have_pol_rate;
	char *rule;
	/* the policy's bases: what its runs and its retries are planned from */
	char *pol_basis, *pol_retry_basis;
	int have_fix_rate, have_retry_rate, have_step, have_mconf;
	double fix_rate, retry_rate, step, mconf;
	int pol_computed;            /* no policy record: rt-plan's default, by lib/rt_plan */
	/* trials */
	trialrec *trials;
	size_t ntrials;
	char *trial_command;
} report;

static char *
xdup_opt(json_t *rec, const char *key, const rt_where *w)
{
	const char *s;

	return rt_rec_opt_str(rec, key, w, &s) ? rt_xstrdup(s) : NULL;
}

static int
opt_bool(json_t *rec, const char *key, const rt_where *w)
{
	json_t *v = json_object_get(rec, key);

	if (!v || json_is_null(v))
		return -1;
	if (!json_is_boolean(v))
		rt_die_at(w, "\"%s\": not true or false", key);
	return json_is_true(v);
}

static long
opt_count(json_t *rec, const char *key, long max, const rt_where *w)
{
	long long v;

	if (!rt_rec_opt_int(rec, key, w, &v))
		return 0;
	if (v < 0 || v > max)
		rt_die_at(w, "\"%s\": %lld is out of range [0, %ld]", key, v, max);
	return (long)v;
}

static double
opt_conf(json_t *rec, const rt_where *w)
{
	double c;

	if (!rt_rec_opt_num(rec, "confidence", w, &c))
		return 0.95;
	if (!(c > 0 && c < 1))
		rt_die_at(w, "\"confidence\": %g must be between 0 and 1 (exclusive)", c);
	return c;
}

static void
meas_free(meas *m)
{
	free(m->verdict);
	free(m->command);
	free(m->stopped);
	memset(m, 0, sizeof *m);
}

/* Read the measure fields of obj; what names it in messages. */
static void
meas_parse(meas *m, json_t *obj, const char *what, const rt_where *w)
{
	if (!json_is_object(obj))
		rt_die_at(w, "\"%s\": not an object", what);
	meas_free(m);
	m->have = 1;
	m->trials = (long)rt_rec_int(obj, "trials", 0, LONG_MAX, w);
	m->failures = (long)rt_rec_int(obj, "failures", 0, m->trials, w);
	m->timeouts = opt_count(obj, "timeouts", m->failures, w);
	m->errors = opt_count(obj, "errors", LONG_MAX, w);
	m->ignored = opt_count(obj, "ignored", LONG_MAX, w);
	m->conf = opt_conf(obj, w);
	rt_say_rec(m->say, sizeof m->say, obj, m->conf, "failed");
	m->have_rate = rt_rec_opt_num(obj, "rate", w, &m->rate);
	if (m->have_rate && !(m->rate >= 0 && m->rate <= 1))
		rt_die_at(w, "\"rate\": %g is out of range [0, 1]", m->rate);
	m->have_ci = rt_rec_opt_num(obj, "ci_low", w, &m->ci_low) &
	    rt_rec_opt_num(obj, "ci_high", w, &m->ci_high);
	if (m->have_ci && !(m->ci_low >= 0 && m->ci_low <= m->ci_high && m->ci_high <= 1))
		rt_die_at(w, "\"ci_low\", \"ci_high\": not an interval within [0, 1]");
	m->have_threshold = rt_rec_opt_num(obj, "threshold", w, &m->threshold);
	m->verdict = xdup_opt(obj, "verdict", w);
	m->command = xdup_opt(obj, "command", w);
	m->stopped = xdup_opt(obj, "stopped", w);
	m->interrupted = opt_bool(obj, "interrupted", w) == 1;
}

/* The interval of m: the record's own, else Wilson's. */
static void
meas_interval(const meas *m, double *lo, double *hi)
{
	rt_interval iv;

	if (m->have_ci) {
		*lo = m->ci_low;
		*hi = m->ci_high;
	} else if (rt_wilson(m->failures, m->trials, m->conf, &iv) == RT_STATS_OK) {
		*lo = iv.low;
		*hi = iv.high;
	} else {
		*lo = 0;
		*hi = 1;
	}
}

static void
parse_fact(fact *f, json_t *o, size_t order, const rt_where *w)
{
	long long a, b, c, d;

	if (!json_is_object(o))
		rt_die_at(w, "\"facts\": an element is not an object");
	memset(f, 0, sizeof *f);
	f->order = order;
	f->kind = rt_xstrdup(rt_rec_str(o, "kind", w));
	f->stream = xdup_opt(o, "stream", w);
	f->value = xdup_opt(o, "value", w);
	f->direction = xdup_opt(o, "direction", w);
	f->detail = xdup_opt(o, "detail", w);
	if (rt_rec_opt_int(o, "in_failures", w, &a) & rt_rec_opt_int(o, "failures", w, &b) &
	    rt_rec_opt_int(o, "in_successes", w, &c) & rt_rec_opt_int(o, "successes", w, &d)) {
		if (a < 0 || b < a || c < 0 || d < c)
			rt_die_at(w, "fact counts: in_failures/failures %lld/%lld, "
			    "in_successes/successes %lld/%lld do not fit", a, b, c, d);
		f->in_f = (long)a, f->nf = (long)b, f->in_s = (long)c, f->ns = (long)d;
		f->have_counts = 1;
	}
	f->have_p = rt_rec_opt_num(o, "p", w, &f->p);
	if (f->have_p && !(f->p >= 0 && f->p <= 1))
		rt_die_at(w, "\"p\": %g is out of range [0, 1]", f->p);
}

static void
fact_free(fact *f)
{
	free(f->kind);
	free(f->stream);
	free(f->value);
	free(f->direction);
	free(f->detail);
}

static void
on_diff(report *r, json_t *rec, const rt_where *w)
{
	json_t *a, *v;
	size_t i;

	for (i = 0; i < r->nfacts; i++)
		fact_free(&r->facts[i]);
	free(r->facts);
	free(r->token);
	free(r->ftrials);
	r->facts = NULL;
	r->nfacts = 0;
	r->ftrials = NULL;
	r->nftrials = 0;
	r->have_diff = 1;
	r->d_trials = (long)rt_rec_int(rec, "trials", 0, LONG_MAX, w);
	r->d_failures = (long)rt_rec_int(rec, "failures", 0, r->d_trials, w);
	r->token = xdup_opt(rec, "token", w);
	a = json_object_get(rec, "facts");
	if (a && !json_is_null(a)) {
		if (!json_is_array(a))
			rt_die_at(w, "\"facts\": not an array");
		r->facts = rt_xcalloc(json_array_size(a), sizeof *r->facts);
		json_array_foreach(a, i, v)
			parse_fact(&r->facts[r->nfacts++], v, i, w);
	}
	a = json_object_get(rec, "failure_trials");
	r->have_ftrials = a && !json_is_null(a);
	if (r->have_ftrials) {
		if (!json_is_array(a))
			rt_die_at(w, "\"failure_trials\": not an array");
		r->ftrials = rt_xcalloc(json_array_size(a), sizeof *r->ftrials);
		json_array_foreach(a, i, v) {
			if (!json_is_integer(v) || json_integer_value(v) < 0)
				rt_die_at(w, "\"failure_trials\": not a list of trial numbers");
			r->ftrials[r->nftrials++] = (long)json_integer_value(v);
		}
	}
}

static void
on_experiment(report *r, json_t *rec, const rt_where *w)
{
	experiment *e;
	json_t *v;

	r->exps = rt_xrealloc(r->exps, (r->nexps + 1) * sizeof *r->exps);
	e = &r->exps[r->nexps++];
	memset(e, 0, sizeof *e);
	e->name = xdup_opt(rec, "name", w);
	if (!e->name)
		e->name = rt_xasprintf("experiment %zu", r->nexps);
	v = json_object_get(rec, "perturbation");
	if (v && !json_is_null(v))
		e->perturbation = rt_dumps(v);
	e->probe = xdup_opt(rec, "probe", w);
	e->probe_detail = xdup_opt(rec, "probe_detail", w);
	if ((v = json_object_get(rec, "control")) && !json_is_null(v))
		meas_parse(&e->control, v, "control", w);
	if ((v = json_object_get(rec, "perturbed")) && !json_is_null(v))
		meas_parse(&e->perturbed, v, "perturbed", w);
	v = json_object_get(rec, "difference");
	if (v && !json_is_null(v)) {
		if (!json_is_object(v))
			rt_die_at(w, "\"difference\": not an object");
		e->have_diff = rt_rec_opt_num(v, "estimate", w, &e->est) &
		    rt_rec_opt_num(v, "ci_low", w, &e->lo) &
		    rt_rec_opt_num(v, "ci_high", w, &e->hi);
		e->method = xdup_opt(v, "method", w);
	}
	e->implicated = opt_bool(rec, "implicated", w);
	e->changed = opt_bool(rec, "changed", w);
	e->effect = xdup_opt(rec, "effect", w);
	e->note = xdup_opt(rec, "note", w);
}

static void
add_level(report *r, double conf, long runs)
{
	r->levels = rt_xrealloc(r->levels, (r->nlevels + 1) * sizeof *r->levels);
	r->levels[r->nlevels].conf = conf;
	r->levels[r->nlevels++].runs = runs;
}

static void
on_plan(report *r, json_t *rec, const rt_where *w)
{
	json_t *a, *v;
	size_t i;
	double p;

	if (rt_rec_opt_num(rec, "rate", w, &p) || rt_rec_opt_num(rec, "observed_rate", w, &p)) {
		if (!(p >= 0 && p <= 1))
			rt_die_at(w, "plan rate %g is out of range [0, 1]", p);
		r->plan_rate = p;
		r->have_plan_rate = 1;
	}
	if (json_object_get(rec, "trials") && json_object_get(rec, "failures")) {
		r->plan_trials = (long)rt_rec_int(rec, "trials", 0, LONG_MAX, w);
		r->plan_failures = (long)rt_rec_int(rec, "failures", 0, r->plan_trials, w);
		r->have_plan_counts = 1;
	}
	if (json_object_get(rec, "basis")) {
		free(r->plan_basis);
		r->plan_basis = xdup_opt(rec, "basis", w);
	}
	a = json_object_get(rec, "levels");
	if (a && !json_is_null(a)) {
		if (!json_is_array(a))
			rt_die_at(w, "\"levels\": not an array");
		json_array_foreach(a, i, v) {
			if (!json_is_object(v))
				rt_die_at(w, "\"levels\": an element is not an object");
			add_level(r, opt_conf(v, w),
			    (long)rt_rec_int(v, "runs", 1, LONG_MAX, w));
		}
	} else if (json_object_get(rec, "runs")) {
		add_level(r, opt_conf(rec, w), (long)rt_rec_int(rec, "runs", 1, LONG_MAX, w));
		r->chosen = r->levels[r->nlevels - 1];
		r->have_chosen = 1;
	}
	v = json_object_get(rec, "chosen");
	if (v && !json_is_null(v)) {
		if (!json_is_object(v))
			rt_die_at(w, "\"chosen\": not an object");
		r->chosen.conf = opt_conf(v, w);
		r->chosen.runs = (long)rt_rec_int(v, "runs", 1, LONG_MAX, w);
		r->have_chosen = 1;
	}
}

static int
opt_long(json_t *rec, const char *key, long min, const rt_where *w, long *out)
{
	long long v;

	if (!rt_rec_opt_int(rec, key, w, &v))
		return 0;
	if (v < min || v > LONG_MAX)
		rt_die_at(w, "\"%s\": %lld is out of range", key, v);
	*out = (long)v;
	return 1;
}

static void
on_policy(report *r, json_t *rec, const rt_where *w)
{
	r->have_policy = 1;
	r->have_green = opt_long(rec, "green_runs_required", 0, w, &r->green);
	r->have_retry = opt_long(rec, "retry_budget", 0, w, &r->retry);
	r->have_quar = opt_long(rec, "quarantine_after", 1, w, &r->quar);
	r->have_window = opt_long(rec, "window", 1, w, &r->window);
	/* "survive" since rt-plan --survive; "target" in older policy records */
	r->have_target = rt_rec_opt_num(rec, "survive", w, &r->target) ||
	    rt_rec_opt_num(rec, "target", w, &r->target);
	if (r->have_target && !(r->target > 0 && r->target < 1))
		rt_die_at(w, "\"target\": %g must be between 0 and 1 (exclusive)", r->target);
	r->have_pol_conf = json_object_get(rec, "confidence") != NULL;
	r->pol_conf = opt_conf(rec, w);
	r->have_pol_rate = rt_rec_opt_num(rec, "observed_rate", w, &r->pol_rate);
	if (r->have_pol_rate && !(r->pol_rate >= 0 && r->pol_rate <= 1))
		rt_die_at(w, "\"observed_rate\": %g is out of range [0, 1]", r->pol_rate);
	free(r->rule);
	r->rule = xdup_opt(rec, "rule", w);
	free(r->pol_basis);
	free(r->pol_retry_basis);
	r->pol_basis = xdup_opt(rec, "basis", w);
	r->pol_retry_basis = xdup_opt(rec, "retry_basis", w);
	r->have_fix_rate = rt_rec_opt_num(rec, "fix_rate", w, &r->fix_rate);
	r->have_retry_rate = rt_rec_opt_num(rec, "retry_rate", w, &r->retry_rate);
	r->have_step = rt_rec_opt_num(rec, "step_confidence", w, &r->step);
	r->have_mconf = rt_rec_opt_num(rec, "measure_confidence", w, &r->mconf);
	if ((r->have_fix_rate && !(r->fix_rate >= 0 && r->fix_rate <= 1)) ||
	    (r->have_retry_rate && !(r->retry_rate >= 0 && r->retry_rate <= 1)))
		rt_die_at(w, "\"fix_rate\", \"retry_rate\": not a rate");
	if ((r->have_step && !(r->step > 0 && r->step < 1)) ||
	    (r->have_mconf && !(r->mconf > 0 && r->mconf < 1)))
		rt_die_at(w, "\"step_confidence\", \"measure_confidence\": not a confidence");
}

/* The last non-empty line of s. */
static char *
last_line(const char *s)
{
	size_t n = strlen(s), end;

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	end = n;
	while (n > 0 && s[n - 1] != '\n')
		n--;
	return end > n ? rt_xasprintf("%.*s", (int)(end - n), s + n) : NULL;
}

static void
on_trial(report *r, json_t *rec, const rt_where *w)
{
	trialrec *t;
	const char *s;
	long long v;

	r->trials = rt_xrealloc(r->trials, (r->ntrials + 1) * sizeof *r->trials);
	t = &r->trials[r->ntrials];
	memset(t, 0, sizeof *t);
	t->order = r->ntrials++;
	t->trial = (long)rt_rec_int(rec, "trial", 0, LONG_MAX, w);
	s = rt_rec_str(rec, "outcome", w);
	if (rt_outcome_parse(s, &t->outcome) < 0)
		rt_die_at(w, "\"outcome\": unknown outcome");
	if ((t->have_exit = rt_rec_opt_int(rec, "exit_code", w, &v)))
		t->exit_code = (long)v;
	if ((t->have_signal = rt_rec_opt_int(rec, "signal", w, &v)))
		t->sig = (long)v;
	if (rt_rec_opt_str(rec, "error", w, &s) || rt_rec_opt_str(rec, "stderr", w, &s))
		t->note = last_line(s);
	if (!r->trial_command && rt_rec_opt_str(rec, "command", w, &s))
		r->trial_command = rt_xstrdup(s);
}

static void on_verdict(report *r, json_t *rec, const rt_where *w);
static void on_lane(report *r, json_t *rec, const rt_where *w);
static void on_order(report *r, json_t *rec, const rt_where *w);

static int
on_record(json_t *rec, const rt_where *w, void *ctx)
{
	report *r = ctx;
	const char *type = json_string_value(json_object_get(rec, "type"));
	rt_rec_kind_t kind = rt_rec_kind(rec);

	if (kind != RT_REC_UNKNOWN)     /* every record type retrial(7) lists */
		rt_rec_check(kind, rec, w);
	if (strcmp(type, "measure") == 0 && json_object_get(rec, "case")) {
		/* rt-measure --by case: one record per case, each its own row */
		casemeas *c;
		r->cases = rt_xrealloc(r->cases, (r->ncases + 1) * sizeof *r->cases);
		c = &r->cases[r->ncases];
		memset(c, 0, sizeof *c);
		c->name = rt_xstrdup(rt_rec_str(rec, "case", w));
		c->order = r->ncases++;
		meas_parse(&c->m, rec, "measure", w);
		r->n_measure++;
	} else if (strcmp(type, "measure") == 0) {
		meas_parse(&r->m, rec, "measure", w);
		r->n_measure++;
	} else if (strcmp(type, "diff") == 0) {
		on_diff(r, rec, w);
		r->n_diff++;
	} else if (strcmp(type, "fact") == 0) {
		r->loose = rt_xrealloc(r->loose, (r->nloose + 1) * sizeof *r->loose);
		parse_fact(&r->loose[r->nloose], rec, r->nloose, w);
		r->nloose++;
		r->n_fact++;
	} else if (strcmp(type, "experiment") == 0) {
		on_experiment(r, rec, w);
		r->n_exp++;
	} else if (strcmp(type, "plan") == 0) {
		on_plan(r, rec, w);
		r->n_plan++;
	} else if (strcmp(type, "policy") == 0) {
		on_policy(r, rec, w);
		r->n_policy++;
	} else if (strcmp(type, "trial") == 0) {
		on_trial(r, rec, w);
		r->n_trial++;
	} else if (strcmp(type, "verdict") == 0) {
		on_verdict(r, rec, w);
		r->n_verdict++;
	} else if (strcmp(type, "lane") == 0) {
		on_lane(r, rec, w);
		r->n_lane++;
	} else if (strcmp(type, "order") == 0) {
		on_order(r, rec, w);
		r->n_order++;
	} else {
		r->n_other++;
	}
	return 0;
}

/* The proof file: its last measure record, else a tally of its trials. */
typedef struct {
	meas m;
	rt_tally t;
	long ntrials;
} proof;

static int
on_proof(json_t *rec, const rt_where *w, void *ctx)
{
	proof *p = ctx;
	const char *type = json_string_value(json_object_get(rec, "type"));
	rt_outcome o;

	if (strcmp(type, "measure") == 0) {
		rt_rec_check(RT_REC_MEASURE, rec, w);
		meas_parse(&p->m, rec, "measure", w);
	} else if (strcmp(type, "trial") == 0) {
		if (rt_outcome_parse(rt_rec_str(rec, "outcome", w), &o) < 0)
			rt_die_at(w, "\"outcome\": unknown outcome");
		rt_tally_add(&p->t, o);
		p->ntrials++;
	}
	return 0;
}

static int
cmp_trial(const void *a, const void *b)
{
	const trialrec *x = a, *y = b;

	if (x->trial != y->trial)
		return x->trial < y->trial ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int
cmp_fact(const void *a, const void *b)
{
	const fact *x = a, *y = b;
	double px = x->have_p ? x->p : 2, py = y->have_p ? y->p : 2;

	if (px != py)
		return px < py ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int
is_failure(rt_outcome o)
{
	return o == RT_FAIL || o == RT_TIMEOUT;
}

/* ---- text helpers ---- */

/* A percentage without its sign, through lib/rt_say: one decimal, never
 * "0.0" for a value that is not 0; pctd rounds a bound outward (dir). */
static const char *
pctd(char *buf, size_t size, double v, int dir)
{
	rt_say_num(buf, size, v, dir);
	return buf;
}
#define pct(buf, size, v) pctd(buf, size, v, RT_SAY_NEAR)

static void
add_rate(rt_buf *b, long k, long n, double conf)
{
	char buf[160];

	rt_rate_text(buf, sizeof buf, k, n, conf);
	rt_buf_adds(b, buf);
}

/* A measure's counts: a record's in its own words (an anytime interval
 * as rt-measure stated it), tallied trials by the fixed-n rule. */
static void
add_meas(rt_buf *b, const meas *m)
{
	if (m->say[0])
		rt_buf_adds(b, m->say);
	else
		add_rate(b, m->failures, m->trials, m->conf);
}

static void
add_list(rt_buf *b, const long *v, size_t n)
{
	size_t i;

	for (i = 0; i < n && i < MAX_LISTED; i++)
		rt_buf_printf(b, "%s%ld", i ? ", " : "", v[i]);
	if (n > MAX_LISTED)
		rt_buf_printf(b, " and %zu more", n - MAX_LISTED);
}

/* ---- the report ---- */

typedef struct {
	rt_buf head, how, cases, facts, observe, fixed;
	rt_buf tb, ta;               /* "What fixed it", before and after the patch */
} sections;

/* The measurement the report is about: the measure record, else a tally
 * of the trial records. */
static void
settle_measure(report *r, meas *m, int *from_trials, rt_tally *tally)
{
	size_t i;

	memset(tally, 0, sizeof *tally);
	for (i = 0; i < r->ntrials; i++)
		rt_tally_add(tally, r->trials[i].outcome);
	*from_trials = 0;
	*m = r->m;
	if (!m->have && r->ntrials > 0) {
		memset(m, 0, sizeof *m);
		m->have = 1;
		m->trials = tally->trials;
		m->failures = tally->failures;
		m->timeouts = tally->timeouts;
		m->errors = tally->errors;
		m->ignored = tally->ignored;
		m->conf = 0.95;
		*from_trials = 1;
	}
}

static void
sec_head(report *r, const meas *m, const proof *pf, rt_buf *b)
{
	const char *cmd = m->command ? m->command : r->trial_command;
	struct { const char *name; long n; } kinds[] = {
		{ "measure", r->n_measure }, { "plan", r->n_plan },
		{ "policy", r->n_policy }, { "diff", r->n_diff },
		{ "fact", r->n_fact }, { "experiment", r->n_exp },
		{ "trial", r->n_trial }, { "lane", r->n_lane },
		{ "verdict", r->n_verdict }, { "order", r->n_order },
		{ "other", r->n_other },
	};
	size_t i;
	int first = 1;

	rt_buf_adds(b, "# retrial report\n\n");
	if (cmd) {
		rt_buf_adds(b, "Command: ");
		rt_md_code(b, cmd);
		rt_buf_adds(b, "\n\n");
	}
	rt_buf_adds(b, "Records read: ");
	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		if (!kinds[i].n)
			continue;
		rt_buf_printf(b, "%s%ld %s", first ? "" : ", ", kinds[i].n, kinds[i].name);
		first = 0;
	}
	if (pf->m.have)
		rt_buf_adds(b, "; a proof measurement");
	rt_buf_adds(b, ".\n");
}

static void
sec_how(report *r, const meas *m, int from_trials, const rt_tally *t, rt_buf *b)
{
	char c1[16];
	rt_verdict v;

	rt_buf_adds(b, "\n## How often\n\n");
	if (r->ncases > 0) {
		size_t i, nflaky = 0;
		for (i = 0; i < r->ncases; i++)
			nflaky += r->cases[i].m.verdict &&
			    strcmp(r->cases[i].m.verdict, "FLAKY") == 0;
		rt_buf_printf(b, "Per case, from %zu per-case measure record%s (rt-measure "
		    "--by case): %zu `FLAKY`; flaky first, then by failure rate. The clean "
		    "runs are rt-plan's default plan for each case at 95%% confidence.\n\n",
		    r->ncases, r->ncases == 1 ? "" : "s", nflaky);
		if (!m->have)
			return;
	}
	if (!m->have) {
		rt_buf_adds(b, "Missing: no measure record given (run rt-measure).\n");
		return;
	}
	add_meas(b, m);
	rt_buf_adds(b, ".\n\n");
	if (from_trials) {
		v = rt_detect(m->failures, m->trials, 0.1, m->conf);
		rt_buf_printf(b, "- Verdict: `%s` (computed from the trial records; "
		    "threshold 10%%; no measure record given).\n", rt_verdict_name(v));
	} else if (m->verdict) {
		rt_buf_adds(b, "- Verdict: ");
		rt_md_code(b, m->verdict);
		if (m->have_threshold)
			rt_buf_printf(b, " (threshold %s%%)", pct(c1, sizeof c1, m->threshold));
		rt_buf_adds(b, ".\n");
	} else {
		rt_buf_adds(b, "- Verdict: none in the measure record.\n");
	}
	if (m->timeouts)
		rt_buf_printf(b, "- %ld of the failures %s.\n", m->timeouts,
		    m->timeouts == 1 ? "was a timeout" : "were timeouts");
	if (m->errors || m->ignored)
		rt_buf_printf(b, "- Not in the rate: %ld infrastructure error%s, %ld ignored.\n",
		    m->errors, m->errors == 1 ? "" : "s", m->ignored);
	if (m->interrupted)
		rt_buf_adds(b, "- The measurement was interrupted before its budget ran out.\n");
	if (r->ntrials > 0) {
		rt_buf_printf(b, "- Trial records: %zu (%ld pass, %ld fail, %ld timeout, "
		    "%ld error, %ld ignored); the timeline and the narrowing interval "
		    "use the %ld valid trial%s.\n", r->ntrials, t->passes,
		    t->failures - t->timeouts, t->timeouts, t->errors, t->ignored,
		    t->trials, t->trials == 1 ? "" : "s");
		if (!from_trials && (t->trials != m->trials || t->failures != m->failures)) {
			rt_buf_printf(b, "- Note: the trial records tally %ld/%ld failed; "
			    "the measure record says %ld/%ld.\n", t->failures, t->trials,
			    m->failures, m->trials);
		}
	}
}

static void
add_fact(rt_buf *b, const fact *f)
{
	static const struct { const char *key, *text; } kinds[] = {
		{ "token", "token" }, { "phrase", "phrase" },
		{ "exit_code", "exit code" }, { "signal", "signal" },
		{ "timeout", "timeout" }, { "timing", "timing" },
		{ "position", "position" }, { "env", "environment" },
	}, dirs[] = {
		{ "failure_only", "only when failing" },
		{ "success_only", "only when passing" },
		{ "failure_more", "more often when failing" },
		{ "success_more", "more often when passing" },
		{ "faster_when_failing", "faster when failing" },
		{ "slower_when_failing", "slower when failing" },
		{ "periodic", "periodic" },
		{ "clustered_start", "clustered at the start" },
		{ "clustered_end", "clustered at the end" },
		{ "overlap", "overlapping" },
	};
	size_t i;
	const char *k = NULL, *d = NULL;

	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(f->kind, kinds[i].key) == 0)
			k = kinds[i].text;
	rt_buf_adds(b, "- ");
	if (f->stream && (strcmp(f->stream, "stderr") == 0 || strcmp(f->stream, "stdout") == 0))
		rt_buf_printf(b, "%s ", f->stream);
	if (k)
		rt_buf_adds(b, k);
	else
		rt_md_code(b, f->kind);
	if (f->value) {
		rt_buf_addc(b, ' ');
		rt_md_code(b, f->value);
	}
	if (f->direction) {
		for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
			if (strcmp(f->direction, dirs[i].key) == 0)
				d = dirs[i].text;
		rt_buf_adds(b, ": ");
		if (d)
			rt_buf_adds(b, d);
		else
			rt_md_code(b, f->direction);
	}
	if (f->have_counts)
		rt_buf_printf(b, "; in %ld/%ld failures and %ld/%ld successes",
		    f->in_f, f->nf, f->in_s, f->ns);
	if (f->have_p)
		rt_buf_printf(b, "; p = %.2g", f->p);
	if (f->detail && *f->detail) {
		rt_buf_adds(b, "; ");
		rt_md_code(b, f->detail);
	}
	rt_buf_adds(b, "\n");
}

static void
sec_facts(report *r, rt_buf *b)
{
	fact *fs = r->have_diff ? r->facts : r->loose;
	size_t nf = r->have_diff ? r->nfacts : r->nloose, i, nfail = 0;
	long *fl = NULL;

	rt_buf_adds(b, "\n## What is true only when it fails\n\n");
	if (!r->have_diff && r->nloose == 0) {
		rt_buf_adds(b, "Missing: no evidence records given (run rt-diff-facts).\n");
	} else {
		if (r->have_diff) {
			rt_buf_printf(b, "From rt-diff-facts over %ld trials, %ld failed.\n\n",
			    r->d_trials, r->d_failures);
			if (r->token) {
				rt_buf_adds(b, "Token: ");
				rt_md_code(b, r->token);
				rt_buf_adds(b, "\n\n");
			} else {
				rt_buf_adds(b, "Token: none (no single token marks the failures).\n\n");
			}
		}
		if (nf == 0) {
			rt_buf_adds(b, "No fact separates failures from successes at this budget.\n");
		} else {
			qsort(fs, nf, sizeof *fs, cmp_fact);
			rt_buf_printf(b, "Top facts (%zu of %zu, smallest p first):\n\n",
			    nf < TOP_FACTS ? nf : TOP_FACTS, nf);
			for (i = 0; i < nf && i < TOP_FACTS; i++)
				add_fact(b, &fs[i]);
		}
	}
	if (r->have_ftrials) {
		rt_buf_printf(b, "\nFailing trials (%zu): ", r->nftrials);
		add_list(b, r->ftrials, r->nftrials);
		rt_buf_adds(b, ".\n");
	} else if (r->ntrials > 0) {
		fl = rt_xcalloc(r->ntrials, sizeof *fl);
		for (i = 0; i < r->ntrials; i++)
			if (is_failure(r->trials[i].outcome))
				fl[nfail++] = r->trials[i].trial;
		rt_buf_printf(b, "\nFailing trials (%zu, from the trial records): ", nfail);
		if (nfail)
			add_list(b, fl, nfail);
		else
			rt_buf_adds(b, "none");
		rt_buf_adds(b, ".\n");
		free(fl);
	}
}

static void
add_side(rt_buf *b, const char *label, const meas *m)
{
	rt_buf_printf(b, "- %s: ", label);
	if (!m->have)
		rt_buf_adds(b, "not in the record");
	else
		add_meas(b, m);
	rt_buf_adds(b, "\n");
}

static void
sec_observe(report *r, rt_buf *b)
{
	size_t i, nimp = 0, nchanged = 0;
	char c1[16], lo[16], hi[16], est[16];
	experiment *e;

	rt_buf_adds(b, "\n## What observation changed\n\n");
	if (r->nexps == 0) {
		rt_buf_adds(b, "Missing: no experiment records given (run rt-matrix).\n");
		return;
	}
	for (i = 0; i < r->nexps; i++) {
		nimp += r->exps[i].implicated == 1;
		nchanged += r->exps[i].changed == 1;
	}
	rt_buf_printf(b, "%zu experiment%s; %zu implicated; observation changed the "
	    "outcome in %zu.\n", r->nexps, r->nexps == 1 ? "" : "s", nimp, nchanged);
	for (i = 0; i < r->nexps; i++) {
		e = &r->exps[i];
		rt_buf_adds(b, "\n### ");
		rt_md_code(b, e->name);
		if (e->perturbation) {
			rt_buf_adds(b, " ");
			rt_md_code(b, e->perturbation);
		}
		rt_buf_adds(b, "\n\n");
		if (e->probe && strcmp(e->probe, "ok") != 0) {
			rt_buf_adds(b, "- Not run: ");
			rt_md_code(b, e->probe);
			rt_buf_adds(b, "\n");
			continue;
		}
		if (e->probe_detail && *e->probe_detail) {
			rt_buf_adds(b, "- Probe: ");
			rt_md_code(b, e->probe_detail);
			rt_buf_adds(b, "\n");
		}
		add_side(b, "control", &e->control);
		add_side(b, "perturbed", &e->perturbed);
		if (e->have_diff) {
			rt_buf_printf(b, "- difference (perturbed − control): %s points, "
			    "%s CI %s to %s points", pct(est, sizeof est, e->est),
			    rt_say_conf(c1, sizeof c1, e->control.have ? e->control.conf : 0.95),
			    pctd(lo, sizeof lo, e->lo, RT_SAY_DOWN), pctd(hi, sizeof hi, e->hi, RT_SAY_UP));
			if (e->method) {
				rt_buf_adds(b, " (");
				rt_md_code(b, e->method);
				rt_buf_adds(b, ")");
			}
			rt_buf_adds(b, "\n");
		}
		if (e->implicated == 1) {
			rt_buf_adds(b, "- Implicated");
			if (e->effect && strcmp(e->effect, "stabilises") == 0)
				rt_buf_adds(b, ": it stabilises the test");
			else if (e->effect && strcmp(e->effect, "destabilises") == 0)
				rt_buf_adds(b, ": it destabilises the test");
			else if (e->effect) {
				rt_buf_adds(b, ": ");
				rt_md_code(b, e->effect);
			}
		} else {
			rt_buf_adds(b, "- Not separated at this budget");
			if (e->have_diff && e->lo <= 0 && e->hi >= 0)
				rt_buf_adds(b, ": the difference interval includes 0");
		}
		if (e->note && *e->note && strcmp(e->note, "not separated at this budget") != 0) {
			rt_buf_adds(b, " (");
			rt_md_code(b, e->note);
			rt_buf_adds(b, ")");
		}
		rt_buf_adds(b, ".\n");
	}
}

/* ---- plan and policy: the numbers of their records, else rt-plan's
 * default rules through lib/rt_plan, never a rule of rt-report's own ---- */

/* m as lib/rt_plan's measure: its counts and its interval */
static void
plan_measure(const meas *m, rt_plan_measure *pm)
{
	memset(pm, 0, sizeof *pm);
	rt_plan_measure_set(pm, m->failures, m->trials, m->conf);
	if (m->have_ci) {
		pm->ci_low = m->ci_low;
		pm->ci_high = m->ci_high;
	}
}

/* rt-plan's default plan of m at c: 0, else -1 (no failure to plan
 * against, as rt-plan refuses 0/n). */
static int
default_plan(const meas *m, double c, rt_plan_level *lp, char *words, size_t size)
{
	rt_plan_rules rules;
	rt_plan_measure pm;

	if (!m->have || m->trials <= 0 || m->failures <= 0)
		return -1;
	rt_plan_rules_init(&rules);
	plan_measure(m, &pm);
	if (rt_plan_try(&rules, c, pm.rate, &pm, lp) != RT_STATS_OK)
		return -1;
	if (words)
		rt_plan_say_runs(words, size, &rules, lp, &pm);
	return 0;
}

/* No policy record: the policy rt-plan --policy gives m by its defaults. */
static void
settle_policy(report *r, const meas *m)
{
	rt_plan_rules rules;
	rt_plan_measure pm;
	rt_plan_policy p;
	char rule[1200];

	if (r->have_policy || !m->have || m->trials <= 0 || m->failures <= 0)
		return;
	rt_plan_rules_init(&rules);
	plan_measure(m, &pm);
	if (rt_plan_policy_try(&rules, RT_PLAN_DEFAULT_CONF, pm.rate, &pm, &p) < 0)
		return;
	rt_plan_say_rule(rule, sizeof rule, &rules, &p, &pm, pm.rate);
	r->have_policy = r->pol_computed = 1;
	r->have_green = 1, r->green = p.lp.runs;
	r->have_retry = !p.retry.always, r->retry = p.retry.retries;
	r->have_quar = 1, r->quar = p.quarantine_after;
	r->have_window = 1, r->window = rules.window;
	r->have_target = 1, r->target = rules.survive;
	r->have_pol_conf = 1, r->pol_conf = p.lp.c;
	r->have_pol_rate = 1, r->pol_rate = pm.rate;
	r->rule = rt_xstrdup(rule);
	r->pol_basis = rt_xstrdup(rt_plan_basis_name(rules.basis));
	r->have_fix_rate = 1, r->fix_rate = p.lp.fix;
	r->have_retry_rate = 1, r->retry_rate = p.retry.rate;
	r->have_step = 1, r->step = p.lp.step;
	r->have_mconf = 1, r->mconf = m->conf;
}

/* The words for the rate the policy's retries hold at ("at any rate up
 * to 46.7%, the exact one-sided 97.5% upper bound of the measured rate"),
 * from its basis and rates; 0 when the record does not say. */
static int
retry_basis_words(const report *r, char *buf, size_t size)
{
	const char *name = r->pol_retry_basis ? r->pol_retry_basis : r->pol_basis;
	rt_plan_basis b;
	double rate;

	if (!name)
		return 0;
	if (strcmp(name, "known") == 0)
		b = RT_PLAN_KNOWN;
	else if (rt_plan_basis_parse(name, &b) < 0)
		return 0;
	if (r->have_retry_rate)
		rate = r->retry_rate;
	else if ((b == RT_PLAN_POINT || b == RT_PLAN_KNOWN) && r->have_pol_rate)
		rate = r->pol_rate;
	else
		return 0;
	rt_plan_say_retry_basis(buf, size, b, rate,
	    r->have_step ? r->step : 1 - (1 - r->pol_conf) / 2,
	    r->have_mconf ? r->mconf : 0.95);
	return 1;
}

/* Green runs the summary names: the policy record's, the plan record's
 * chosen level, else rt-plan's default plan at 95% (the computed policy's). */
static int
green_runs(report *r, const meas *m, long *runs)
{
	rt_plan_level lp;

	if (r->have_green && !r->pol_computed) {
		*runs = r->green;
		return 1;
	}
	if (r->have_chosen) {
		*runs = r->chosen.runs;
		return 1;
	}
	if (default_plan(m, RT_PLAN_DEFAULT_CONF, &lp, NULL, 0) == 0) {
		*runs = lp.runs;
		return 1;
	}
	return 0;
}

/* ---- per-case records: one row each, flaky first, then by rate ---- */

static int
is_flaky(const casemeas *c)
{
	return c->m.verdict && strcmp(c->m.verdict, "FLAKY") == 0;
}

static int
cmp_case(const void *a, const void *b)
{
	const casemeas *x = a, *y = b;
	double rx = x->m.trials > 0 ? (double)x->m.failures / (double)x->m.trials : -1;
	double ry = y->m.trials > 0 ? (double)y->m.failures / (double)y->m.trials : -1;

	if (is_flaky(x) != is_flaky(y))
		return is_flaky(x) ? -1 : 1;
	if (rx != ry)
		return rx > ry ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* A case's failures in its record's words (lib/rt_say's rt_say_rec, as
 * every tool says them), and the clean runs rt-plan's default plan asks
 * of it ("—" without a failure). */
static void
case_words(const casemeas *c, char *failed, size_t fsize, char *runs, size_t rsize)
{
	rt_plan_level lp;

	if (c->m.say[0])
		snprintf(failed, fsize, "%s", c->m.say);
	else
		rt_say_count(failed, fsize, c->m.failures, c->m.trials, c->m.conf, "failed");
	if (default_plan(&c->m, RT_PLAN_DEFAULT_CONF, &lp, NULL, 0) == 0)
		snprintf(runs, rsize, "%ld", lp.runs);
	else
		snprintf(runs, rsize, "\xe2\x80\x94");
}

/* The case name as a code span a table cell keeps whole ("\|" for "|"). */
static void
case_cell(rt_buf *b, const char *name)
{
	rt_buf t = {0};
	size_t i;

	rt_md_code(&t, name);
	for (i = 0; i < t.len; i++) {
		if (t.data[i] == '|')
			rt_buf_addc(b, '\\');
		rt_buf_addc(b, t.data[i]);
	}
	rt_buf_free(&t);
}

static void
sec_cases(report *r, rt_buf *b)
{
	char failed[300], runs[32];
	size_t i;

	if (r->ncases == 0)
		return;
	qsort(r->cases, r->ncases, sizeof *r->cases, cmp_case);
	rt_buf_adds(b, "| case | verdict | failures | clean runs to show a fix |\n"
	    "|---|---|---|---|\n");
	for (i = 0; i < r->ncases; i++) {
		const casemeas *c = &r->cases[i];
		case_words(c, failed, sizeof failed, runs, sizeof runs);
		rt_buf_adds(b, "| ");
		case_cell(b, c->name);
		rt_buf_adds(b, " | ");
		rt_md_code(b, c->m.verdict ? c->m.verdict : "(none)");
		rt_buf_printf(b, " | %s | %s |\n", failed, runs);
	}
}

/* The same table in HTML, cell by cell (a name may hold a "|"). */
static void
html_cases(rt_buf *b, const report *r)
{
	char failed[300], runs[32], *v;
	size_t i;

	if (r->ncases == 0)
		return;
	rt_buf_adds(b, "<table class=\"cases\">\n<tr><th class=\"id\">case</th><th>verdict</th>"
	    "<th>failures</th><th>clean runs to show a fix</th></tr>\n");
	for (i = 0; i < r->ncases; i++) {
		const casemeas *c = &r->cases[i];
		case_words(c, failed, sizeof failed, runs, sizeof runs);
		v = rt_md_clean(c->m.verdict ? c->m.verdict : "(none)");
		/* the ID wraps at its separators only, the verdict never */
		rt_buf_adds(b, "<tr><td class=\"id\"><code>");
		rt_html_id(b, c->name);
		rt_buf_adds(b, "</code></td><td class=\"verdict\"><code>");
		rt_html_esc(b, v, strlen(v));
		rt_buf_adds(b, "</code></td><td>");
		rt_html_esc(b, failed, strlen(failed));
		rt_buf_printf(b, "</td><td>%s</td></tr>\n", runs);
		free(v);
	}
	rt_buf_adds(b, "</table>\n");
}

static json_t *
cases_json(const report *r)
{
	json_t *a = json_array(), *o;
	rt_plan_level lp;
	size_t i;

	for (i = 0; i < r->ncases; i++) {
		const casemeas *c = &r->cases[i];
		int have = c->m.trials > 0;
		o = json_object();
		json_object_set_new(o, "case", json_string(c->name));
		json_object_set_new(o, "verdict", c->m.verdict ? json_string(c->m.verdict) : json_null());
		json_object_set_new(o, "trials", json_integer(c->m.trials));
		json_object_set_new(o, "failures", json_integer(c->m.failures));
		json_object_set_new(o, "rate", have ? rt_json_real6((double)c->m.failures /
		    (double)c->m.trials) : json_null());
		json_object_set_new(o, "green_runs_required",
		    default_plan(&c->m, RT_PLAN_DEFAULT_CONF, &lp, NULL, 0) == 0 ?
		    json_integer(lp.runs) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

/* What 0/n clean runs rule out: the measured rate, with the chance of n
 * clean runs were it still the rate, and whether the interval's lower end
 * is ruled out too (else how many clean runs that would take). */
static void
proof_scope(rt_buf *b, const meas *m, const proof *pf)
{
	char c1[32], c2[32], c3[32];
	double rate, chance;
	long more;

	if (!m->have || m->trials <= 0 || m->failures <= 0)
		return;
	rate = (double)m->failures / m->trials;
	chance = pow(1 - rate, (double)pf->m.trials);
	rt_buf_printf(b, "; were the rate still the measured %s%%, %ld clean runs "
	    "in a row would have a chance of %s%%", pct(c1, sizeof c1, rate),
	    pf->m.trials, pct(c2, sizeof c2, chance));
	if (!m->have_ci || m->ci_low <= 0)
		return;
	if (pow(1 - m->ci_low, (double)pf->m.trials) <= 1 - pf->m.conf)
		rt_buf_printf(b, ", and it rules out the interval's lower end %s%% too",
		    pctd(c3, sizeof c3, m->ci_low, RT_SAY_DOWN));
	else if (rt_runs_to_claim(m->ci_low, pf->m.conf, &more) == RT_STATS_OK)
		rt_buf_printf(b, "; it does not rule out the interval's lower end %s%% "
		    "(that takes %ld clean runs)", pctd(c3, sizeof c3, m->ci_low, RT_SAY_DOWN), more);
}

static void
sec_fixed(report *r, const meas *m, const proof *pf, rt_buf *b)
{
	static const double levels[] = { 0.90, 0.95, 0.99 };
	char c1[16], p1[16], p2[16], words[400];
	rt_plan_level lp;
	long need = 0;
	int have_need = 0;
	size_t i;

	rt_buf_adds(b, "\n## What it takes to say it is fixed\n\n");
	if (r->nlevels > 0) {
		rt_buf_adds(b, "Clean runs needed to show the failure rate is gone, "
		    "from the plan record");
		if (r->have_plan_rate)
			rt_buf_printf(b, " (planned for a failure rate of %s%%",
			    pct(p1, sizeof p1, r->plan_rate));
		if (r->have_plan_rate && r->have_plan_counts)
			rt_buf_printf(b, " from %ld/%ld failed", r->plan_failures,
			    r->plan_trials);
		if (r->have_plan_rate && r->plan_basis) {
			rt_buf_adds(b, ", basis ");
			rt_md_code(b, r->plan_basis);
		}
		rt_buf_adds(b, r->have_plan_rate ? "):\n\n" : ":\n\n");
		rt_buf_adds(b, "| confidence | runs |\n|---|---|\n");
		for (i = 0; i < r->nlevels; i++)
			rt_buf_printf(b, "| %s | %ld |\n",
			    rt_say_conf(c1, sizeof c1, r->levels[i].conf), r->levels[i].runs);
		rt_buf_adds(b, "\n");
	} else if (!m->have && r->ncases > 0) {
		rt_buf_adds(b, "Per case: the clean runs each case needs are in the "
		    "table above (rt-plan's default plan of its record).\n\n");
	} else if (!m->have || m->trials == 0) {
		rt_buf_adds(b, "Missing: no measured rate and no plan record given "
		    "(run rt-measure, then rt-plan).\n\n");
	} else if (m->failures == 0) {
		rt_buf_adds(b, "No failure was observed: ");
		add_rate(b, 0, m->trials, m->conf);
		rt_buf_adds(b, ". No number of clean runs can show a change from "
		    "that; no plan record given.\n\n");
	} else {
		char sentence[800];

		if (default_plan(m, RT_PLAN_DEFAULT_CONF, &lp, sentence, sizeof sentence) == 0)
			rt_buf_printf(b, "Clean runs needed to show the failure rate is gone, "
			    "computed by rt-plan's default rules (no plan record given): "
			    "%s.\n\n", sentence);
		else
			rt_buf_adds(b, "Clean runs needed to show the failure rate is gone, "
			    "computed by rt-plan's default rules (no plan record given):\n\n");
		rt_buf_adds(b, "| confidence | planned from | runs |\n|---|---|---|\n");
		for (i = 0; i < sizeof levels / sizeof levels[0]; i++) {
			rt_buf_printf(b, "| %s | ", rt_say_conf(c1, sizeof c1, levels[i]));
			if (default_plan(m, levels[i], &lp, NULL, 0) == 0)
				rt_buf_printf(b, "%s%%, the exact one-sided %s lower bound | %ld |\n",
				    pct(p1, sizeof p1, lp.fix), rt_say_conf(p2, sizeof p2, lp.step),
				    lp.runs);
			else
				rt_buf_adds(b, "no bound | too many |\n");
		}
		rt_buf_adds(b, "\n");
	}
	if (r->have_policy) {
		if (r->pol_computed)
			rt_buf_adds(b, "- Policy: computed by rt-plan's default rules (no "
			    "policy record given), the numbers `rt-plan --policy` gives.\n");
		if (r->have_green) {
			rt_buf_printf(b, "- Green runs required by the policy: %ld at %s "
			    "confidence", r->green, rt_say_conf(c1, sizeof c1, r->pol_conf));
			if (r->have_fix_rate)
				rt_buf_printf(b, ", planned from a failure rate of %s%%",
				    pct(p1, sizeof p1, r->fix_rate));
			if (r->pol_basis) {
				rt_buf_adds(b, ", basis ");
				rt_md_code(b, r->pol_basis);
			}
			rt_buf_adds(b, ".\n");
		}
		if (r->have_retry) {
			rt_buf_printf(b, "- Retry budget: %ld retr%s per CI run", r->retry,
			    r->retry == 1 ? "y" : "ies");
			if (r->have_target)
				rt_buf_printf(b, ", so a run stays red with chance at most "
				    "%s%% (p^(r+1) ≤ target)", pct(p1, sizeof p1, r->target));
			if (retry_basis_words(r, words, sizeof words))
				rt_buf_printf(b, ", %s", words);
			rt_buf_adds(b, ".\n");
		} else if (r->pol_computed) {
			rt_buf_adds(b, "- Retry budget: none: it always fails, so no retry "
			    "budget helps (quarantine or fix it).\n");
		} else {
			rt_buf_adds(b, "- Retry budget: none in the policy record.\n");
		}
		if (r->have_quar) {
			rt_buf_printf(b, "- Quarantine: after %ld run%s that exhaust the "
			    "retry budget", r->quar, r->quar == 1 ? "" : "s");
			if (r->have_window)
				rt_buf_printf(b, " within a window of %ld runs", r->window);
			rt_buf_adds(b, ".\n");
		} else {
			rt_buf_adds(b, "- Quarantine: none in the policy record.\n");
		}
		if (r->rule && r->pol_computed) {
			/* rt_plan's words, not record text: whole, not a code span */
			rt_buf_printf(b, "- Rule: %s.\n", r->rule);
		} else if (r->rule) {
			rt_buf_adds(b, "- Rule: ");
			rt_md_code(b, r->rule);
			rt_buf_adds(b, "\n");
		}
	} else {
		rt_buf_adds(b, "- Missing: no policy record given (run rt-plan --policy), "
		    "so no retry budget or quarantine rule.\n");
	}
	if (!pf->m.have) {
		rt_buf_adds(b, "- Missing: no proof run given (measure the fixed "
		    "command, then pass it with --proof FILE).\n");
		return;
	}
	rt_buf_adds(b, "- Proof run: ");
	add_meas(b, &pf->m);
	if (r->have_green && !r->pol_computed && fabs(r->pol_conf - pf->m.conf) < 1e-9) {
		need = r->green;
		have_need = 1;
	} else if (r->have_chosen && fabs(r->chosen.conf - pf->m.conf) < 1e-9) {
		need = r->chosen.runs;
		have_need = 1;
	} else {
		for (i = 0; i < r->nlevels; i++)
			if (fabs(r->levels[i].conf - pf->m.conf) < 1e-9) {
				need = r->levels[i].runs;
				have_need = 1;
			}
		if (!have_need && default_plan(m, pf->m.conf, &lp, NULL, 0) == 0) {
			need = lp.runs;
			have_need = 1;
		}
	}
	rt_say_conf(c1, sizeof c1, pf->m.conf);
	if (pf->m.trials == 0)
		rt_buf_adds(b, ": it proves nothing.\n");
	else if (pf->m.failures > 0)
		rt_buf_adds(b, ": it still fails, so it is not fixed.\n");
	else if (have_need && pf->m.trials >= need) {
		rt_buf_printf(b, ": at least the %ld clean runs needed at %s "
		    "confidence", need, c1);
		proof_scope(b, m, pf);
		rt_buf_adds(b, ".\n");
	}
	else if (have_need)
		rt_buf_printf(b, ": fewer than the %ld clean runs needed at %s "
		    "confidence, so not yet enough to say it is fixed.\n", need, c1);
	else
		rt_buf_adds(b, ".\n");
}

static json_t *
jlong_or_null(int have, long v)
{
	return have ? json_integer(v) : json_null();
}

static json_t *
summary_json(report *r, const meas *m, const proof *pf)
{
	json_t *o = json_object();
	double lo, hi;
	long runs = 0;
	size_t i;
	int changed = 0, have_runs;

	json_object_set_new(o, "type", json_string("summary"));
	json_object_set_new(o, "trials", jlong_or_null(m->have, m->trials));
	json_object_set_new(o, "failures", jlong_or_null(m->have, m->failures));
	if (m->have && m->trials > 0) {
		meas_interval(m, &lo, &hi);
		json_object_set_new(o, "rate", rt_json_real6(m->have_rate ? m->rate :
		    (double)m->failures / m->trials));
		json_object_set_new(o, "ci_low", rt_json_real6(lo));
		json_object_set_new(o, "ci_high", rt_json_real6(hi));
	} else {
		json_object_set_new(o, "rate", json_null());
		json_object_set_new(o, "ci_low", json_null());
		json_object_set_new(o, "ci_high", json_null());
	}
	json_object_set_new(o, "confidence", m->have ? rt_json_real6(m->conf) : json_null());
	if (m->verdict)
		json_object_set_new(o, "verdict", json_string(m->verdict));
	else if (m->have && !r->m.have)
		json_object_set_new(o, "verdict", json_string(rt_verdict_name(
		    rt_detect(m->failures, m->trials, 0.1, m->conf))));
	else
		json_object_set_new(o, "verdict", json_null());
	json_object_set_new(o, "token", r->token ? json_string(r->token) : json_null());
	have_runs = green_runs(r, m, &runs);
	json_object_set_new(o, "green_runs_required", jlong_or_null(have_runs, runs));
	json_object_set_new(o, "retry_budget", jlong_or_null(r->have_retry, r->retry));
	json_object_set_new(o, "quarantine_after", jlong_or_null(r->have_quar, r->quar));
	json_object_set_new(o, "proof_trials", jlong_or_null(pf->m.have, pf->m.trials));
	json_object_set_new(o, "proof_failures", jlong_or_null(pf->m.have, pf->m.failures));
	for (i = 0; i < r->nexps; i++)
		changed |= r->exps[i].changed == 1;
	json_object_set_new(o, "observer_changed",
	    r->nexps ? json_boolean(changed) : json_null());
	if (r->ncases > 0)
		json_object_set_new(o, "cases", cases_json(r));
	return o;
}

/* ---- the tournament: rt-verify's lane and verdict records, rt-bisect's
 * order record. Every number printed here is a field of those records,
 * formatted, never recomputed. ---- */

static const char *
jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* 1 when o.key is a number (a measured 0.0 is a number, null is not). */
static int
jnum(json_t *o, const char *key, double *v)
{
	json_t *x = json_object_get(o, key);

	if (!json_is_number(x))
		return 0;
	*v = json_number_value(x);
	return 1;
}

static int
jlong(json_t *o, const char *key, long *v)
{
	long long x;

	if (rt_json_whole(json_object_get(o, key), &x) < 0)
		return 0;
	*v = (long)x;
	return 1;
}

/* A lane, a baseline or a confirmation round: counts that make sense. */
static void
on_lane(report *r, json_t *rec, const rt_where *w)
{
	(void)w;                        /* checked in on_record */
	if (!r->lanes)
		r->lanes = json_array();
	json_array_append(r->lanes, rec);
}

static void
on_verdict(report *r, json_t *rec, const rt_where *w)
{
	(void)w;                        /* checked in on_record */
	json_decref(r->verdict);        /* the last verdict tells the story */
	r->verdict = json_incref(rec);
}

static void
on_order(report *r, json_t *rec, const rt_where *w)
{
	if (!jstr(rec, "victim"))
		rt_die_at(w, "order: \"victim\" missing");
	json_decref(r->order);
	r->order = json_incref(rec);
}

/* The lanes the story is told from: the verdict's (final statuses), else
 * the lane records of a run that printed no verdict. */
static json_t *
story_lanes(report *r)
{
	json_t *l = r->verdict ? json_object_get(r->verdict, "lanes") : NULL;

	return json_is_array(l) ? l : r->lanes;
}

static double
story_conf(report *r, int *have)
{
	double c = 0;

	*have = r->verdict && jnum(r->verdict, "confidence", &c);
	return c;
}

/* "0/15 failed (≤28.0% at 95% confidence, anytime)", "14/56 failed (25.0%,
 * 95% anytime interval 9.9%–46.0%)", "not run": the words every tool uses
 * for these counts (lib/rt_say). spoken: words for the autopsy ("failed 0
 * of 15 trials (≤...)"). */
static void
add_counts(rt_buf *b, json_t *o, int have_conf, double conf, int spoken)
{
	long k = 0, n = 0;
	rt_interval iv = { 0, 0, 0, 0 };
	const char *method = jstr(o, "interval"), *p;
	char say[256];

	jlong(o, "trials", &n);
	jlong(o, "failures", &k);
	if (n == 0) {
		rt_buf_adds(b, spoken ? "was not run" : "not run");
		return;
	}
	if (spoken)
		rt_buf_printf(b, "failed %ld of %ld trials", k, n);
	else
		rt_buf_printf(b, "%ld/%ld failed", k, n);
	/* have_conf 2: the record's own confidence, else conf (a confirmation
	 * without one was made at its verdict's) */
	if (have_conf != 1) {
		double own;
		if (jnum(o, "confidence", &own))
			conf = own, have_conf = 1;
	}
	/* the one rule every tool keeps for a record's counts (lib/rt_say):
	 * a fixed-n interval from the counts, an anytime one as recorded */
	if (have_conf) {
		rt_say_rec(say, sizeof say, o, conf, "");
		p = strstr(say, " (");
		rt_buf_adds(b, p ? p : "");
		return;
	}
	if (!jnum(o, "ci_low", &iv.low) || !jnum(o, "ci_high", &iv.high))
		return;                 /* counts alone: no rate without its interval */
	/* no confidence on record: the interval alone, with its method */
	rt_say_short_iv(say, sizeof say, k, n, &iv, method ? method : "interval");
	rt_buf_printf(b, " (%s)", say);
}

static void
add_joined(rt_buf *b, json_t *arr, size_t max)
{
	size_t i, n = json_array_size(arr);
	json_t *x;

	json_array_foreach(arr, i, x) {
		if (i == max)
			break;
		if (i)
			rt_buf_adds(b, i + 1 == n ? " and " : ", ");
		if (json_is_string(x))
			rt_md_code(b, json_string_value(x));
		else
			rt_buf_adds(b, "(unnamed)");
	}
	if (n > max)
		rt_buf_adds(b, " and others");
}

static const char *
winner_patch(report *r)
{
	json_t *w = r->verdict ? json_object_get(r->verdict, "winner") : NULL;

	return json_is_object(w) ? jstr(w, "patch") : NULL;
}

/* ---- the autopsy: a short spoken-style account of the records alone,
 * rendered by a template (share/retrial/autopsy.txt.tmpl, rt-report(1),
 * AUTOPSY TEMPLATE). Here: which sentences are told, and every number,
 * formatted; the template holds the words. Hesitant about what was
 * eliminated, plain about what was confirmed; every rate with its count
 * and interval; no number that is not a record's (so no counts of lanes:
 * they are named instead). ---- */

/* Every name an autopsy template may use (rt-report(1), AUTOPSY TEMPLATE). */
static const char *const autopsy_names[] = {
	"test", "confidence", "target", "before", "counts", "gate", "called",
	"no_race", "command", "never_raced", "parts", "first", "names",
	"unapplied", "neutered", "one", "unraced", "eliminated", "undecided", "id", "budget",
	"eliminated_others", "tied", "winner", "held", "cause_class",
	"explanation", "confirmations", "passed", "rule", "overruled", "order",
	"victim", "polluters", "name", "category", "trials", "end", "verdict",
	"finished_at", "is_fixed", "is_improved", "is_quarantine", "is_other",
	"is_unconfirmed", "seed", "next",
	"FIXED", "IMPROVED", "QUARANTINE", "REGRESSION", "ALREADY_STABLE",
	"INCONCLUSIVE_BASELINE", "ERROR", NULL
};

/* The verdicts whose plain consequence the template says (rt-verify(1),
 * VERDICTS); the sentences are the template's "next" section. */
static const char *const next_verdicts[] = {
	"FIXED", "IMPROVED", "QUARANTINE", "REGRESSION", "ALREADY_STABLE",
	"INCONCLUSIVE_BASELINE", "ERROR",
};

/* The sentences drafted, in order, each with a priority: 1 must be told,
 * 5 is told only when there is room. A sentence is a value the view gets
 * (obj.key = val, or appended to the list obj) only when it is told. */
typedef struct {
	struct { int prio; json_t *obj; const char *key; json_t *val; } s[MAX_SENTENCES];
	size_t n;
} draft;

static void
offer(draft *d, int prio, json_t *obj, const char *key, json_t *val)
{
	if (d->n == MAX_SENTENCES)
		rt_die("autopsy: more than %d sentences drafted", MAX_SENTENCES);
	d->s[d->n].prio = prio;
	d->s[d->n].obj = obj;
	d->s[d->n].key = key;
	d->s[d->n].val = val;
	d->n++;
}

/* At most MAX_SPOKEN sentences: drop the least important, latest first. */
static void
tell(draft *d)
{
	char keep[MAX_SENTENCES];
	size_t i, left = d->n, at;
	int worst;

	memset(keep, 1, sizeof keep);
	while (left > MAX_SPOKEN) {
		for (worst = 0, at = 0, i = 0; i < d->n; i++)
			if (keep[i] && d->s[i].prio >= worst) {
				worst = d->s[i].prio;
				at = i;
			}
		keep[at] = 0;
		left--;
	}
	for (i = 0; i < d->n; i++) {
		if (!keep[i])
			json_decref(d->s[i].val);
		else if (d->s[i].key)
			json_object_set_new(d->s[i].obj, d->s[i].key, d->s[i].val);
		else
			json_array_append_new(d->s[i].obj, d->s[i].val);
	}
}

/* b's text as a JSON string; b is freed. */
static json_t *
buf_json(rt_buf *b)
{
	json_t *j = json_string(rt_buf_str(b));

	rt_buf_free(b);
	return j;
}

/* add_counts as a JSON string: "14/56 failed (25.0%, ...)", or spoken
 * "failed 0 of 15 trials (at most 28.0% at 95% confidence, anytime)" */
static json_t *
counts_json(json_t *o, int have_conf, double conf, int spoken)
{
	rt_buf b = {0};

	add_counts(&b, o, have_conf, conf, spoken);
	return buf_json(&b);
}

/* "a", "a and b", "a, b and c": lane ids as the records spell them */
static json_t *
name_list(json_t **ls, size_t n)
{
	rt_buf b = {0};
	size_t i;

	for (i = 0; i < n; i++)
		rt_buf_printf(&b, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ",
		    jstr(ls[i], "id"));
	return buf_json(&b);
}

static json_t *
cleaned(const char *s)
{
	char *c = rt_md_clean(s);
	json_t *j = json_string(c);

	free(c);
	return j;
}

/* The first sentence of s, at most max bytes, cut at a blank. */
static char *
first_sentence(const char *s, size_t max)
{
	char *c = rt_md_clean(s), *e;
	size_t n;

	for (e = c; *e; e++)
		if ((*e == '.' || *e == '!' || *e == '?') && (e[1] == ' ' || !e[1]))
			break;
	n = (size_t)(e - c);
	if (n > max) {
		n = max;
		while (n > 0 && c[n] != ' ')
			n--;
	}
	c[n] = '\0';
	return c;
}

static void
add_part(json_t *parts, const char *kind, json_t *names, int one)
{
	json_t *p = json_pack("{s:o, s:b, s:b, s:b, s:b, s:b}", "names", names,
	    "first", json_array_size(parts) == 0, "unapplied", strcmp(kind, "unapplied") == 0,
	    "neutered", strcmp(kind, "neutered") == 0, "unraced", strcmp(kind, "unraced") == 0,
	    "one", one);

	json_array_append_new(parts, p);
}

/* The view the autopsy template renders (rt-report(1), AUTOPSY TEMPLATE). */
static json_t *
autopsy_view(report *r)
{
	json_t *v = r->verdict, *lanes = story_lanes(r), *l, *base, *win, *x, *o, *view, *j;
	json_t **elim, **neutered, **unapplied, **unraced, **tied;
	size_t ne = 0, ns = 0, nu = 0, nr = 0, nt = 0, i, nl = json_array_size(lanes);
	const char *s, *wid = NULL, *test;
	char *c, c1[16], p1[16];
	draft d = { .n = 0 };
	double cf, t;
	int have_conf;
	long n;

	view = json_pack("{s:[], s:[], s:[]}", "eliminated", "tied", "confirmations");
	cf = story_conf(r, &have_conf);
	if (have_conf)
		json_object_set_new(view, "confidence", json_string(rt_say_conf(c1, sizeof c1, cf)));
	if (jnum(v, "target", &t))
		json_object_set_new(view, "target", json_sprintf("%s%%", pct(p1, sizeof p1, t)));
	test = jstr(v, "test") ? jstr(v, "test") : jstr(v, "command");
	if (test)
		json_object_set_new(view, "test", json_string(test));
	base = json_object_get(v, "baseline");
	if (json_is_object(base)) {
		offer(&d, 1, view, "before", json_pack("{s:o}", "counts",
		    counts_json(base, have_conf, cf, 1)));
		j = json_object();
		if ((s = jstr(base, "verdict")) && *s)
			json_object_set_new(j, "called", json_string(s));
		offer(&d, 2, view, "gate", j);
	}
	elim = rt_xcalloc(nl + 1, sizeof *elim);
	neutered = rt_xcalloc(nl + 1, sizeof *neutered);
	unapplied = rt_xcalloc(nl + 1, sizeof *unapplied);
	unraced = rt_xcalloc(nl + 1, sizeof *unraced);
	tied = rt_xcalloc(nl + 1, sizeof *tied);
	win = json_object_get(v, "winner");
	if (json_is_object(win))
		wid = jstr(win, "id");
	json_array_foreach(lanes, i, l) {
		switch (rt_lane_state_of(jstr(l, "status"))) {
		case RT_LANE_ELIMINATED:
		case RT_LANE_UNDECIDED:
			elim[ne++] = l;
			break;
		case RT_LANE_NEUTERED:
			neutered[ns++] = l;
			break;
		case RT_LANE_PATCH_FAILED:
			unapplied[nu++] = l;
			break;
		case RT_LANE_NOT_RACED:
			unraced[nr++] = l;
			break;
		default:
			break;
		}
		s = jstr(l, "status");
		if (strcmp(s, "tied") == 0 || (strcmp(s, "survived") == 0 &&
		    !(wid && strcmp(wid, jstr(l, "id")) == 0)))
			tied[nt++] = l;
	}
	if (nl == 0) {
		offer(&d, 2, view, "no_race", json_true());
		if ((s = jstr(v, "command")))
			offer(&d, 3, view, "command", cleaned(s));
	}
	if (nu || nr || ns) {
		json_t *parts = json_array();
		if (nu)
			add_part(parts, "unapplied", name_list(unapplied, nu), nu == 1);
		if (ns)
			add_part(parts, "neutered", name_list(neutered, ns), ns == 1);
		if (nr)
			add_part(parts, "unraced", name_list(unraced, nr), nr == 1);
		offer(&d, 3, view, "never_raced", json_pack("{s:o}", "parts", parts));
	}
	/* at most two eliminated or undecided lanes in full; the rest by name */
	for (i = 0; i < ne && i < 2; i++) {
		j = json_pack("{s:s, s:o, s:b}", "id", jstr(elim[i], "id"), "counts",
		    counts_json(elim[i], have_conf, cf, 1), "undecided",
		    rt_lane_state_of(jstr(elim[i], "status")) == RT_LANE_UNDECIDED);
		if (jlong(elim[i], "budget", &n))
			json_object_set_new(j, "budget", json_integer(n));
		offer(&d, i == 0 ? 2 : 4, json_object_get(view, "eliminated"), NULL, j);
	}
	if (ne > 2)
		offer(&d, 5, view, "eliminated_others", name_list(elim + 2, ne - 2));
	for (i = 0; i < nt && i < 2; i++)
		offer(&d, i == 0 ? 3 : 5, json_object_get(view, "tied"), NULL,
		    json_pack("{s:s, s:o}", "id", jstr(tied[i], "id"), "counts",
		    counts_json(tied[i], have_conf, cf, 1)));
	if (wid) {
		for (l = NULL, i = 0; i < nl && !l; i++)
			if (strcmp(jstr(json_array_get(lanes, i), "id"), wid) == 0)
				l = json_array_get(lanes, i);
		j = json_pack("{s:s, s:b}", "id", wid, "held", strcmp(jstr(v, "verdict"),
		    "FIXED") == 0);
		if ((s = jstr(win, "cause_class")))
			json_object_set_new(j, "cause_class", json_string(s));
		if (l)
			json_object_set_new(j, "counts", counts_json(l, have_conf, cf, 1));
		offer(&d, 1, view, "winner", j);
		if ((s = jstr(win, "explanation")) && *(c = first_sentence(s, 200))) {
			offer(&d, 4, view, "explanation", json_string(c));
			free(c);
		} else if (s) {
			free(c);
		}
	}
	json_array_foreach(json_object_get(v, "confirmations"), i, x) {
		int passed = json_is_true(json_object_get(x, "passed"));
		const char *id = jstr(x, "id");
		if (!passed && wid && id && strcmp(id, wid) == 0)
			continue;
		j = json_pack("{s:b, s:o}", "passed", passed, "counts", counts_json(x, have_conf ? 2 : 0, cf, 1));
		if (id)
			json_object_set_new(j, "id", json_string(id));
		offer(&d, passed ? 1 : 3, json_object_get(view, "confirmations"), NULL, j);
		if (i >= 2)
			break;
	}
	if ((s = jstr(v, "rule")))
		offer(&d, 2, view, "rule", cleaned(s));
	if (json_array_size(json_object_get(v, "allowed_rules")))
		offer(&d, 4, view, "overruled", json_true());
	if ((o = r->order) && (s = jstr(o, "victim"))) {
		json_t *pol = json_array();
		j = json_pack("{s:s, s:o}", "victim", s, "polluters", pol);
		json_array_foreach(json_object_get(o, "polluters"), i, x) {
			if (i == 3)
				break;
			json_array_append_new(pol, json_pack("{s:s?, s:b}", "name",
			    json_string_value(x), "first", i == 0));
		}
		if ((s = jstr(o, "category")))
			json_object_set_new(j, "category", json_string(s));
		if (jlong(o, "trials", &n))
			json_object_set_new(j, "trials", json_integer(n));
		offer(&d, 2, view, "order", j);
	}
	if (v) {
		s = jstr(v, "verdict");
		j = json_pack("{s:s, s:s?, s:b, s:b, s:b}", "verdict", s, "id", wid,
		    "is_fixed", strcmp(s, "FIXED") == 0 && wid,
		    "is_improved", strcmp(s, "IMPROVED") == 0 && wid,
		    "is_quarantine", strcmp(s, "QUARANTINE") == 0);
		json_object_set_new(j, "is_other", json_boolean(!json_is_true(json_object_get(j,
		    "is_fixed")) && !json_is_true(json_object_get(j, "is_improved")) &&
		    !json_is_true(json_object_get(j, "is_quarantine")) && wid));
		json_object_set_new(j, "is_unconfirmed", json_boolean(!wid &&
		    strcmp(s, "QUARANTINE") != 0));
		if ((s = jstr(v, "finished_at")))
			json_object_set_new(j, "finished_at", json_string(s));
		offer(&d, 1, view, "end", j);
		if ((s = jstr(v, "seed")))
			offer(&d, 5, view, "seed", json_string(s));
		s = jstr(v, "verdict");
		for (i = 0; i < sizeof next_verdicts / sizeof next_verdicts[0]; i++)
			if (strcmp(s, next_verdicts[i]) == 0 &&
			    (wid || (strcmp(s, "FIXED") && strcmp(s, "IMPROVED")))) {
				offer(&d, 3, view, "next", json_pack("{s:b}", s, 1));
				break;
			}
	}
	free(elim);
	free(neutered);
	free(unapplied);
	free(unraced);
	free(tied);
	tell(&d);
	return view;
}

static char *
autopsy_text(report *r, const char *tmpl)
{
	char *path = tmpl ? rt_xstrdup(tmpl) : rt_xasprintf("%s/autopsy.txt.tmpl", rt_sharedir());
	json_t *view = autopsy_view(r);
	char *text = rt_tmpl_render_file(path, autopsy_names, "rt-report(1), AUTOPSY TEMPLATE",
	    view);

	json_decref(view);
	free(path);
	return text;
}

/* ---- "What fixed it", rendered by share/retrial/report-tournament.md.tmpl
 * from a view of those records: here every value is taken from a record
 * and formatted (Markdown-safe); the template holds the words. ---- */

/* Every name the tournament template may use. */
static const char *const tournament_names[] = {
	"before_patch", "after_patch", "has_verdict", "verdict", "summary", "test",
	"confidence", "target", "finished_at", "unfinished", "table", "baseline",
	"source", "counts", "rate", "bound", "interval", "method", "lanes", "id",
	"cause_class", "status", "not_run", "result", "reason", "pairs",
	"original_only", "lane_only", "both", "share", "budget", "more_trials",
	"canary", "placed", "overruled", "rule", "first", "winner", "files",
	"explanation", "has_confirmations", "confirmations", "round",
	"required_runs", "reference_rate", "passed", "improved", "difference",
	"estimate", "low", "high", "decided", "allowed_rules", "order", "victim",
	"category", "polluters", "setters", "cleaners", "probes", "trials", NULL
};

static json_t *
md_str(const char *s)
{
	rt_buf b = {0};

	rt_md_code(&b, s);
	return buf_json(&b);
}

static json_t *
opt_clean(const char *s)
{
	return s ? cleaned(s) : json_null();
}

static json_t *
opt_long_j(json_t *o, const char *key)
{
	long v;

	return jlong(o, key, &v) ? json_integer(v) : json_null();
}

/* "32.1%", or null */
static json_t *
opt_pct(json_t *o, const char *key)
{
	char p[16];
	double d;

	return jnum(o, key, &d) ? json_sprintf("%s%%", pct(p, sizeof p, d)) : json_null();
}

/* "a, b and c" as code spans, at most max of them; null when empty */
static json_t *
joined(json_t *arr, size_t max)
{
	rt_buf b = {0};

	if (!json_array_size(arr))
		return json_null();
	add_joined(&b, arr, max);
	return buf_json(&b);
}

/* A row of the table: "14/56", the rate or a zero's bound, the interval. */
static void
row_fields(json_t *row, json_t *o, int bound, double bconf)
{
	char p1[16], iv[64];
	double lo, hi;
	long k = 0, n = 0;

	jlong(o, "trials", &n);
	jlong(o, "failures", &k);
	json_object_set_new(row, "not_run", json_boolean(n == 0));
	json_object_set_new(row, "counts", json_sprintf("%ld/%ld", k, n));
	/* a zero's bound in the words every tool gives it: exact one-sided at
	 * the lane's confidence for a fixed-n interval, as recorded for an
	 * anytime one */
	if (bound && k == 0 && n > 0 && bconf > 0 && !(jstr(o, "interval") &&
	    strcmp(jstr(o, "interval"), "anytime") == 0))
		hi = rt_zero_bound(n, bconf);
	else if (!(bound && k == 0 && jnum(o, "ci_high", &hi)))
		hi = -1;
	json_object_set_new(row, "bound", hi >= 0 ?
	    json_sprintf("%s%%", pctd(p1, sizeof p1, hi, RT_SAY_UP)) : json_null());
	json_object_set_new(row, "rate", opt_pct(o, "rate"));
	json_object_set_new(row, "interval", jnum(o, "ci_low", &lo) && jnum(o, "ci_high", &hi) ?
	    json_string((rt_say_range(iv, sizeof iv, lo, hi), iv)) : json_null());
	json_object_set_new(row, "method", json_string_nocheck(jstr(o, "interval") ?
	    jstr(o, "interval") : "interval"));
}

/* A lane: its row and its fate. */
static json_t *
lane_view(json_t *l, int have_conf, double conf)
{
	json_t *p = json_object_get(l, "pairs"), *cn = json_object_get(l, "canary"),
	    *ov = json_object_get(l, "overruled"), *x, *j, *list;
	char sh[64];
	double lo, hi;
	long v, v2, v3, v4;
	size_t i;

	j = json_pack("{s:o, s:s, s:o?, s:o, s:o, s:o, s:o}", "id", md_str(jstr(l, "id")),
	    "status", jstr(l, "status"), "cause_class", json_string(jstr(l, "cause_class")),
	    "result", counts_json(l, have_conf, conf, 0), "reason", opt_clean(jstr(l, "reason")),
	    "budget", opt_long_j(l, "budget"), "more_trials", opt_long_j(l, "more_trials"));
	row_fields(j, l, 1, have_conf ? conf : -1);
	if (json_is_object(p) && jlong(p, "pairs", &v) && jlong(p, "original_only", &v2) &&
	    jlong(p, "lane_only", &v3) && jlong(p, "both", &v4))
		json_object_set_new(j, "pairs", json_pack("{s:I, s:I, s:I, s:I, s:o, s:o?}",
		    "pairs", (json_int_t)v, "original_only", (json_int_t)v2, "lane_only", (json_int_t)v3,
		    "both", (json_int_t)v4,
		    "share", jnum(p, "share_low", &lo) && jnum(p, "share_high", &hi) ?
		    json_string((rt_say_range(sh, sizeof sh, lo, hi), sh)) : json_null(), "method", json_string(jstr(p, "interval"))));
	else
		json_object_set_new(j, "pairs", json_null());
	if (json_is_object(cn)) {
		long t, k;
		json_object_set_new(j, "canary", json_pack("{s:b, s:o?, s:o, s:o}", "placed",
		    json_is_true(json_object_get(cn, "placed")), "verdict",
		    json_string(jstr(cn, "verdict")), "counts", jlong(cn, "trials", &t) &&
		    jlong(cn, "failures", &k) ? json_sprintf("%ld/%ld", k, t) : json_null(),
		    "reason", opt_clean(jstr(cn, "reason"))));
	} else {
		json_object_set_new(j, "canary", json_null());
	}
	list = json_array();
	json_array_foreach(ov, i, x)
		json_array_append_new(list, json_pack("{s:o, s:o, s:b}", "rule",
		    md_str(jstr(x, "rule") ? jstr(x, "rule") : "?"), "reason",
		    opt_clean(jstr(x, "reason")), "first", i == 0));
	json_object_set_new(j, "overruled", list);
	return j;
}

static json_t *
tournament_view(report *r)
{
	json_t *v = r->verdict, *lanes = story_lanes(r), *l, *base, *win, *x, *o, *view, *j;
	char c1[16];
	double cf;
	size_t i;
	int have_conf;

	cf = story_conf(r, &have_conf);
	view = json_pack("{s:b, s:b, s:b}", "has_verdict", v != NULL, "unfinished",
	    !v && lanes, "table", lanes || v);
	if (v) {
		json_object_set_new(view, "verdict", md_str(jstr(v, "verdict")));
		json_object_set_new(view, "summary", opt_clean(jstr(v, "summary")));
		json_object_set_new(view, "test", jstr(v, "test") ? md_str(jstr(v, "test")) :
		    json_null());
		if (have_conf)
			json_object_set_new(view, "confidence", json_string(rt_say_conf(c1,
			    sizeof c1, cf)));
		json_object_set_new(view, "target", opt_pct(v, "target"));
		json_object_set_new(view, "finished_at", json_string(jstr(v, "finished_at")));
	}
	base = v ? json_object_get(v, "baseline") : NULL;
	if (json_is_object(base)) {
		j = json_pack("{s:o?}", "source", json_string(jstr(base, "source")));
		row_fields(j, base, 0, -1);
		json_object_set_new(view, "baseline", j);
	}
	j = json_array();
	json_array_foreach(lanes, i, l)
		json_array_append_new(j, lane_view(l, have_conf, cf));
	json_object_set_new(view, "lanes", j);
	win = v ? json_object_get(v, "winner") : NULL;
	if (json_is_object(win))
		json_object_set_new(view, "winner", json_pack("{s:o, s:o?, s:o?, s:o, s:o}",
		    "id", md_str(jstr(win, "id") ? jstr(win, "id") : "?"),
		    "cause_class", json_string(jstr(win, "cause_class")),
		    "source", json_string(jstr(win, "source")),
		    "files", joined(json_object_get(win, "files"), 20),
		    "explanation", opt_clean(jstr(win, "explanation"))));
	j = json_array();
	json_array_foreach(v ? json_object_get(v, "confirmations") : NULL, i, x) {
		double d, lo, hi;
		char p1[16], p2[16], p3[16];
		json_t *c = json_pack("{s:o, s:o, s:o, s:o, s:o, s:b, s:b}",
		    "round", opt_long_j(x, "round"),
		    "id", md_str(jstr(x, "id") ? jstr(x, "id") : "?"),
		    "result", counts_json(x, have_conf ? 2 : 0, cf, 0),
		    "required_runs", opt_long_j(x, "required_runs"),
		    "reference_rate", opt_pct(x, "reference_rate"),
		    "passed", json_is_true(json_object_get(x, "passed")),
		    "improved", json_is_true(json_object_get(x, "improved")));
		o = json_object_get(x, "difference");
		json_object_set_new(c, "difference", json_is_object(o) && jnum(o, "estimate", &d) &&
		    jnum(o, "ci_low", &lo) && jnum(o, "ci_high", &hi) ?
		    json_pack("{s:s, s:s, s:s, s:s}", "estimate", pct(p1, sizeof p1, d),
		    "method", jstr(o, "method") ? jstr(o, "method") : "",
		    "low", pctd(p2, sizeof p2, lo, RT_SAY_DOWN), "high",
		    pctd(p3, sizeof p3, hi, RT_SAY_UP)) : json_null());
		json_array_append_new(j, c);
	}
	json_object_set_new(view, "has_confirmations", json_boolean(json_array_size(j)));
	json_object_set_new(view, "confirmations", j);
	if (v) {
		json_object_set_new(view, "rule", jstr(v, "rule") ? md_str(jstr(v, "rule")) :
		    json_null());
		json_object_set_new(view, "allowed_rules",
		    joined(json_object_get(v, "allowed_rules"), 20));
		json_object_set_new(view, "decided", json_boolean(jstr(v, "rule") ||
		    json_array_size(json_object_get(v, "allowed_rules"))));
	}
	if ((o = r->order))
		json_object_set_new(view, "order", json_pack("{s:o, s:o?, s:o, s:o, s:o, s:o, s:o}",
		    "victim", md_str(jstr(o, "victim")),
		    "category", json_string(jstr(o, "category")),
		    "polluters", joined(json_object_get(o, "polluters"), 10),
		    "setters", joined(json_object_get(o, "setters"), 10),
		    "cleaners", joined(json_object_get(o, "cleaners"), 10),
		    "probes", opt_long_j(o, "probes"), "trials", opt_long_j(o, "trials")));
	return view;
}

/* "What fixed it": tb gets the part before the winner's patch, ta the
 * part after it (the HTML puts the patch and the chart between). */
static void
sec_tournament(report *r, rt_buf *tb, rt_buf *ta)
{
	char *path, *src, *text;
	json_t *view;
	rt_tmpl *t;

	if (!r->verdict && !story_lanes(r) && !r->order)
		return;
	path = rt_xasprintf("%s/report-tournament.md.tmpl", rt_sharedir());
	if (!(src = rt_read_file(path, NULL)))
		rt_die("%s:", path);
	t = rt_tmpl_parse(src, path, tournament_names, "the names at the top of the template");
	view = tournament_view(r);
	json_object_set_new(view, "before_patch", json_true());
	rt_buf_adds(tb, text = rt_tmpl_render(t, view));
	free(text);
	json_object_set_new(view, "before_patch", json_false());
	json_object_set_new(view, "after_patch", json_true());
	rt_buf_adds(ta, text = rt_tmpl_render(t, view));
	free(text);
	json_decref(view);
	rt_tmpl_free(t);
	free(src);
	free(path);
}

/* ---- HTML ---- */

static void
html_text(rt_buf *b, const char *s)
{
	char *c = rt_md_clean(s);

	rt_html_esc(b, c, strlen(c));
	free(c);
}

typedef struct {
	char *label;
	const char *cls;
	long k, n;
	double conf, lo, hi;
} raterow;

static void
add_row(raterow *rows, size_t *nrows, const char *label, const char *name,
    const char *cls, const meas *m)
{
	raterow *x;

	if (!m->have)
		return;
	x = &rows[(*nrows)++];
	x->label = name ? rt_xasprintf("%s %s", label, name) : rt_xstrdup(label);
	x->cls = cls;
	x->k = m->failures;
	x->n = m->trials;
	x->conf = m->conf;
	meas_interval(m, &x->lo, &x->hi);
}

#define RX0 190.0   /* x of 0% on the rate chart */
#define RW  420.0   /* width of 0..100% */

static void
svg_rates(rt_buf *b, report *r, const meas *m, const proof *pf)
{
	raterow *rows = rt_xcalloc(2 * r->nexps + 2, sizeof *rows);
	size_t n = 0, i;
	double y, h, x;
	char *lbl;
	rt_buf t = {0};

	add_row(rows, &n, "measured", NULL, "m", m);
	for (i = 0; i < r->nexps; i++) {
		add_row(rows, &n, "control:", r->exps[i].name, "c", &r->exps[i].control);
		add_row(rows, &n, "perturbed:", r->exps[i].name, "x", &r->exps[i].perturbed);
	}
	add_row(rows, &n, "proof", NULL, "f", &pf->m);
	if (n == 0) {
		free(rows);
		return;
	}
	h = 40 + 24.0 * (double)n;
	rt_buf_adds(b, "<figure>\n<figcaption>Failure rates, each with its interval</figcaption>\n");
	rt_buf_printf(b, "<svg class=\"chart\" viewBox=\"0 0 700 %.0f\" width=\"700\" "
	    "height=\"%.0f\" role=\"img\" aria-label=\"failure rates with intervals\">\n", h, h);
	for (i = 0; i <= 4; i++) {
		x = RX0 + RW * (double)i / 4;
		rt_buf_printf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" "
		    "y2=\"%.0f\"/><text class=\"axis\" x=\"%.1f\" y=\"%.0f\" "
		    "text-anchor=\"middle\">%zu%%</text>\n", x, x, h - 22, x, h - 6, i * 25);
	}
	for (i = 0; i < n; i++) {
		y = 24 + 24.0 * (double)i;
		lbl = rt_md_clean(rows[i].label);
		if (strlen(lbl) > 40) {
			size_t c = 40;
			while (c > 0 && ((unsigned char)lbl[c] & 0xC0) == 0x80)
				c--;
			lbl = rt_xrealloc(lbl, c + 4);
			memcpy(lbl + c, "\xE2\x80\xA6", 4);
		}
		rt_buf_printf(b, "<g class=\"%s\"><title>", rows[i].cls);
		html_text(b, rows[i].label);
		rt_buf_adds(b, ": ");
		rt_buf_free(&t);
		add_rate(&t, rows[i].k, rows[i].n, rows[i].conf);
		html_text(b, rt_buf_str(&t));
		rt_buf_adds(b, "</title>");
		rt_buf_printf(b, "<text class=\"label\" x=\"%.0f\" y=\"%.1f\" "
		    "text-anchor=\"end\">", RX0 - 10, y + 4);
		rt_html_esc(b, lbl, strlen(lbl));
		rt_buf_adds(b, "</text>");
		rt_buf_printf(b, "<line class=\"bar\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\"/>", RX0 + RW * rows[i].lo, y, RX0 + RW * rows[i].hi, y);
		rt_buf_printf(b, "<line class=\"cap\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\"/><line class=\"cap\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\"/>", RX0 + RW * rows[i].lo, y - 5, RX0 + RW * rows[i].lo,
		    y + 5, RX0 + RW * rows[i].hi, y - 5, RX0 + RW * rows[i].hi, y + 5);
		if (rows[i].n > 0)
			rt_buf_printf(b, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>",
			    RX0 + RW * (double)rows[i].k / (double)rows[i].n, y);
		rt_buf_printf(b, "<text class=\"count\" x=\"%.0f\" y=\"%.1f\">%ld/%ld</text>"
		    "</g>\n", RX0 + RW + 12, y + 4, rows[i].k, rows[i].n);
		free(lbl);
		free(rows[i].label);
	}
	rt_buf_adds(b, "</svg>\n</figure>\n");
	rt_buf_free(&t);
	free(rows);
}

static void
svg_timeline(rt_buf *b, report *r)
{
	size_t i, rows;
	double x, y;
	const trialrec *t;

	if (r->ntrials == 0)
		return;
	rows = (r->ntrials + TIMELINE_ROW - 1) / TIMELINE_ROW;
	rt_buf_adds(b, "<figure>\n<figcaption>Trials in order: "
	    "<span class=\"key pass\">pass</span> <span class=\"key fail\">fail</span> "
	    "<span class=\"key timeout\">timeout</span> <span class=\"key error\">error</span> "
	    "<span class=\"key ignored\">ignored</span> (errors and ignored trials are "
	    "not in the rate)</figcaption>\n");
	rt_buf_printf(b, "<svg class=\"timeline\" viewBox=\"0 0 %d %zu\" width=\"%d\" "
	    "height=\"%zu\" role=\"img\" aria-label=\"trial timeline\">\n",
	    TIMELINE_ROW * 13 + 60, rows * 16 + 4, TIMELINE_ROW * 13 + 60, rows * 16 + 4);
	for (i = 0; i < r->ntrials; i++) {
		t = &r->trials[i];
		x = 52 + 13.0 * (double)(i % TIMELINE_ROW);
		y = 2 + 16.0 * (double)(i / TIMELINE_ROW);
		if (i % TIMELINE_ROW == 0)
			rt_buf_printf(b, "<text class=\"axis\" x=\"46\" y=\"%.0f\" "
			    "text-anchor=\"end\">%ld</text>\n", y + 11, t->trial);
		rt_buf_printf(b, "<rect class=\"%s\" x=\"%.0f\" y=\"%.0f\" width=\"11\" "
		    "height=\"14\"><title>trial %ld: %s", rt_outcome_name(t->outcome),
		    x, y, t->trial, rt_outcome_name(t->outcome));
		if (t->have_exit)
			rt_buf_printf(b, ", exit %ld", t->exit_code);
		if (t->have_signal)
			rt_buf_printf(b, ", signal %ld", t->sig);
		if (t->note) {
			rt_buf_adds(b, ": ");
			html_text(b, t->note);
		}
		rt_buf_adds(b, "</title></rect>\n");
	}
	rt_buf_adds(b, "</svg>\n</figure>\n");
}

/* The Wilson interval after each valid trial, in trial-number order. */
static void
svg_band(rt_buf *b, report *r, double conf)
{
	long n = 0, k = 0, step, total = 0;
	size_t i, np = 0;
	double *xs, *lo, *hi, *pt, W = 600, H = 200, X0 = 50, Y0 = 10;
	rt_interval iv;
	char c1[16], rate[160];

	for (i = 0; i < r->ntrials; i++)
		total += r->trials[i].outcome == RT_PASS || is_failure(r->trials[i].outcome);
	if (total == 0)
		return;
	step = total > BAND_POINTS ? (total + BAND_POINTS - 1) / BAND_POINTS : 1;
	xs = rt_xcalloc((size_t)total + 1, sizeof *xs);
	lo = rt_xcalloc((size_t)total + 1, sizeof *lo);
	hi = rt_xcalloc((size_t)total + 1, sizeof *hi);
	pt = rt_xcalloc((size_t)total + 1, sizeof *pt);
	for (i = 0; i < r->ntrials; i++) {
		if (r->trials[i].outcome != RT_PASS && !is_failure(r->trials[i].outcome))
			continue;
		n++;
		k += is_failure(r->trials[i].outcome);
		if (n % step && n != total)
			continue;
		rt_wilson(k, n, conf, &iv);
		xs[np] = X0 + W * (double)n / (double)total;
		lo[np] = Y0 + H * (1 - iv.low);
		hi[np] = Y0 + H * (1 - iv.high);
		pt[np] = Y0 + H * (1 - (double)k / (double)n);
		np++;
	}
	rt_rate_text(rate, sizeof rate, k, n, conf);
	rt_buf_printf(b, "<figure>\n<figcaption>How the %s interval narrowed as "
	    "trials accumulated (Wilson, after each valid trial); at the end: ",
	    rt_say_conf(c1, sizeof c1, conf));
	rt_html_esc(b, rate, strlen(rate));
	rt_buf_adds(b, "</figcaption>\n");
	rt_buf_printf(b, "<svg class=\"chart\" viewBox=\"0 0 700 250\" width=\"700\" "
	    "height=\"250\" role=\"img\" aria-label=\"interval by trial\">\n");
	for (i = 0; i <= 4; i++)
		rt_buf_printf(b, "<line class=\"grid\" x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" "
		    "y2=\"%.1f\"/><text class=\"axis\" x=\"%.0f\" y=\"%.1f\" "
		    "text-anchor=\"end\">%zu%%</text>\n", X0, Y0 + H * (double)i / 4,
		    X0 + W, Y0 + H * (double)i / 4, X0 - 6, Y0 + H * (double)i / 4 + 4,
		    100 - i * 25);
	rt_buf_printf(b, "<text class=\"axis\" x=\"%.0f\" y=\"%.0f\" "
	    "text-anchor=\"middle\">1</text><text class=\"axis\" x=\"%.0f\" "
	    "y=\"%.0f\" text-anchor=\"middle\">%ld valid trials</text>\n",
	    X0 + W / (double)total, Y0 + H + 18, X0 + W, Y0 + H + 18, total);
	rt_buf_adds(b, "<polygon class=\"band\" points=\"");
	for (i = 0; i < np; i++)
		rt_buf_printf(b, "%.1f,%.1f ", xs[i], hi[i]);
	for (i = np; i-- > 0;)
		rt_buf_printf(b, "%.1f,%.1f ", xs[i], lo[i]);
	rt_buf_adds(b, "\"/>\n<polyline class=\"est\" points=\"");
	for (i = 0; i < np; i++)
		rt_buf_printf(b, "%.1f,%.1f ", xs[i], pt[i]);
	rt_buf_adds(b, "\"/>\n</svg>\n</figure>\n");
	free(xs);
	free(lo);
	free(hi);
	free(pt);
}

/* One chart: every lane's interval (and the confirmation rounds')
 * against the baseline's interval (a band) and the target (a line). */
static void
svg_tournament(rt_buf *b, report *r)
{
	json_t *v = r->verdict, *lanes = story_lanes(r), *base, *l, *rows[256];
	const char *cls[256];
	char *lbl[256];
	size_t n = 0, i;
	double y, h, x, lo, hi, d, blo, bhi;
	long k, t;
	rt_buf tt = {0};
	char p1[16];
	int have_conf;
	double cf = story_conf(r, &have_conf);

	base = v ? json_object_get(v, "baseline") : NULL;
	if (json_is_object(base)) {
		rows[n] = base;
		cls[n] = "m";
		lbl[n++] = rt_xstrdup("original (baseline)");
	}
	json_array_foreach(lanes, i, l) {
		if (n >= 200)
			break;
		rows[n] = l;
		cls[n] = strcmp(jstr(l, "status"), "winner") == 0 ? "f" : "x";
		lbl[n++] = rt_xasprintf("%s (%s)", jstr(l, "id"), jstr(l, "status"));
	}
	json_array_foreach(v ? json_object_get(v, "confirmations") : NULL, i, l) {
		if (n >= 250)
			break;
		rows[n] = l;
		cls[n] = json_is_true(json_object_get(l, "passed")) ? "f" : "c";
		lbl[n++] = rt_xasprintf("confirm %s", jstr(l, "id") ? jstr(l, "id") : "?");
	}
	if (n == 0)
		return;
	h = 56 + 24.0 * (double)n;
	rt_buf_adds(b, "<figure>\n<figcaption>The race: each lane's interval against "
	    "the original's (shaded) and the target (dashed)</figcaption>\n");
	rt_buf_printf(b, "<svg class=\"chart tournament\" viewBox=\"0 0 700 %.0f\" "
	    "width=\"700\" height=\"%.0f\" role=\"img\" aria-label=\"lane intervals "
	    "against the baseline and the target\">\n", h, h);
	for (i = 0; i <= 4; i++) {
		x = RX0 + RW * (double)i / 4;
		rt_buf_printf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" "
		    "y2=\"%.0f\"/><text class=\"axis\" x=\"%.1f\" y=\"%.0f\" "
		    "text-anchor=\"middle\">%zu%%</text>\n", x, x, h - 22, x, h - 6, i * 25);
	}
	if (json_is_object(base) && jnum(base, "ci_low", &blo) && jnum(base, "ci_high", &bhi))
		rt_buf_printf(b, "<rect class=\"baseband\" x=\"%.1f\" y=\"10\" width=\"%.1f\" "
		    "height=\"%.0f\"><title>the original's interval</title></rect>\n",
		    RX0 + RW * blo, RW * (bhi - blo) < 1 ? 1 : RW * (bhi - blo), h - 32);
	if (v && jnum(v, "target", &d) && d >= 0 && d <= 1)
		rt_buf_printf(b, "<line class=\"target\" x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" "
		    "y2=\"%.0f\"/><text class=\"target-label\" x=\"%.1f\" y=\"%.0f\">target "
		    "%s%%</text>\n", RX0 + RW * d, RX0 + RW * d, h - 22, RX0 + RW * d + 3,
		    h - 26, pct(p1, sizeof p1, d));
	for (i = 0; i < n; i++) {
		y = 24 + 24.0 * (double)i;
		t = k = 0;
		jlong(rows[i], "trials", &t);
		jlong(rows[i], "failures", &k);
		rt_buf_printf(b, "<g class=\"%s\"><title>", cls[i]);
		html_text(b, lbl[i]);
		rt_buf_adds(b, ": ");
		tt.len = 0;
		add_counts(&tt, rows[i], have_conf && rows[i] != base, cf, 0);
		html_text(b, rt_buf_str(&tt));
		rt_buf_adds(b, "</title>");
		rt_buf_printf(b, "<text class=\"label\" x=\"%.0f\" y=\"%.1f\" "
		    "text-anchor=\"end\">", RX0 - 10, y + 4);
		{
			char *cl = rt_md_clean(lbl[i]);
			if (strlen(cl) > 30) {
				size_t cut = 30;
				while (cut > 0 && ((unsigned char)cl[cut] & 0xC0) == 0x80)
					cut--;
				memcpy(cl + cut, "\xE2\x80\xA6", 4);
			}
			rt_html_esc(b, cl, strlen(cl));
			free(cl);
		}
		rt_buf_adds(b, "</text>");
		if (t > 0 && jnum(rows[i], "ci_low", &lo) && jnum(rows[i], "ci_high", &hi)) {
			rt_buf_printf(b, "<line class=\"bar\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\"/>", RX0 + RW * lo, y, RX0 + RW * hi, y);
			rt_buf_printf(b, "<line class=\"cap\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\"/><line class=\"cap\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\"/>", RX0 + RW * lo, y - 5, RX0 + RW * lo, y + 5,
			    RX0 + RW * hi, y - 5, RX0 + RW * hi, y + 5);
			if (jnum(rows[i], "rate", &d))
				rt_buf_printf(b, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>",
				    RX0 + RW * d, y);
			rt_buf_printf(b, "<text class=\"count\" x=\"%.0f\" y=\"%.1f\">%ld/%ld</text>",
			    RX0 + RW + 12, y + 4, k, t);
		} else {
			rt_buf_printf(b, "<text class=\"count\" x=\"%.0f\" y=\"%.1f\">not run</text>",
			    RX0 + 4, y + 4);
		}
		rt_buf_adds(b, "</g>\n");
		free(lbl[i]);
	}
	rt_buf_adds(b, "</svg>\n</figure>\n");
	rt_buf_free(&tt);
}

static void
build_html(rt_buf *b, report *r, const meas *m, const proof *pf, sections *s)
{
	const char *patch;

	rt_buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n<title>retrial report</title>\n");
	rt_html_style(b);
	rt_buf_adds(b, "</head>\n<body>\n<main>\n");
	rt_md_to_html(b, rt_buf_str(&s->head));
	rt_md_to_html(b, rt_buf_str(&s->how));
	html_cases(b, r);
	svg_rates(b, r, m, pf);
	svg_timeline(b, r);
	svg_band(b, r, m->have ? m->conf : 0.95);
	/* a suite's page (per-case records only): the sections that diagnose
	 * one test get no heading of their own, just a line under the table */
	if (r->ncases > 0 && !m->have && !r->n_diff && !r->n_fact && !r->n_exp) {
		rt_buf_adds(b, "<p class=\"lane\">One test's diagnosis needs its own "
		    "records: what is true only when it fails (rt-diff-facts) and what "
		    "observation changed (rt-matrix).</p>\n");
	} else {
		rt_md_to_html(b, rt_buf_str(&s->facts));
		rt_md_to_html(b, rt_buf_str(&s->observe));
	}
	rt_md_to_html(b, rt_buf_str(&s->tb));
	svg_tournament(b, r);
	if ((patch = winner_patch(r))) {
		rt_buf_adds(b, "<pre class=\"patch\">");
		rt_html_esc(b, patch, strlen(patch));
		rt_buf_adds(b, "</pre>\n");
	}
	rt_md_to_html(b, rt_buf_str(&s->ta));
	rt_md_to_html(b, rt_buf_str(&s->fixed));
	rt_buf_adds(b, "</main>\n</body>\n</html>\n");
}

/* ---- output ---- */

static void
write_out(const char *dir, const char *name, rt_buf *data)
{
	char *path = dir ? rt_xasprintf("%s/%s", dir, name) : rt_xstrdup(name);

	if (rt_write_output(path, rt_buf_str(data), data->len) < 0)
		rt_output_die(path);
	printf("%s\n", path);
	free(path);
}

static void
report_free(report *r)
{
	size_t i;

	meas_free(&r->m);
	for (i = 0; i < r->ncases; i++) {
		free(r->cases[i].name);
		meas_free(&r->cases[i].m);
	}
	free(r->cases);
	for (i = 0; i < r->nfacts; i++)
		fact_free(&r->facts[i]);
	for (i = 0; i < r->nloose; i++)
		fact_free(&r->loose[i]);
	for (i = 0; i < r->nexps; i++) {
		experiment *e = &r->exps[i];
		free(e->name);
		free(e->perturbation);
		free(e->probe);
		free(e->probe_detail);
		free(e->method);
		free(e->effect);
		free(e->note);
		meas_free(&e->control);
		meas_free(&e->perturbed);
	}
	for (i = 0; i < r->ntrials; i++)
		free(r->trials[i].note);
	free(r->facts);
	free(r->loose);
	free(r->exps);
	free(r->trials);
	free(r->ftrials);
	free(r->levels);
	free(r->token);
	free(r->plan_basis);
	free(r->rule);
	free(r->pol_basis);
	free(r->pol_retry_basis);
	free(r->trial_command);
	json_decref(r->verdict);
	json_decref(r->lanes);
	json_decref(r->order);
}

/* --speak: the autopsy read aloud by espeak-ng into a WAV file, run
 * without a shell; any failure is a warning ("no audio"), never an exit. */
static void
speak(const char *wav, const char *text)
{
	const char *tmp = getenv("TMPDIR");
	char *path = rt_xasprintf("%s/rt-report.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	char *argv[] = { "espeak-ng", "-w", (char *)wav, "-f", path, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int fd, st = -1, rc;
	size_t n = strlen(text);
	ssize_t wr;

	if ((fd = mkstemp(path)) < 0) {
		rt_warn("--speak: cannot write the text for espeak-ng: no audio");
		free(path);
		return;
	}
	wr = write(fd, text, n);
	close(fd);
	if (wr < 0 || (size_t)wr != n) {
		rt_warn("--speak: cannot write the text for espeak-ng: no audio");
		unlink(path);
		free(path);
		return;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc == 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	unlink(path);
	free(path);
	if (rc != 0)
		rt_warn("--speak: espeak-ng: %s: no audio", strerror(rc));
	else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		rt_warn("--speak: espeak-ng failed: no audio");
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "output",  required_argument, NULL, 'o' },
		{ "html",    no_argument,       NULL, 'H' },
		{ "proof",   required_argument, NULL, 'p' },
		{ "text",    no_argument,       NULL, 't' },
		{ "autopsy", required_argument, NULL, 'a' },
		{ "autopsy-template", required_argument, NULL, 'A' },
		{ "speak",   required_argument, NULL, 'S' },
		{ "help",    no_argument,       NULL, 'h' },
		{ "version", no_argument,       NULL, 'V' },
		RT_LIST_OPTIONS_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	const char *dir = NULL, *prooffile = NULL, *autopsy = NULL, *wav = NULL, *tmpl = NULL;
	char *story = NULL;
	const char *patch;
	int c, html = 0, text = 0, from_trials;
	report r;
	proof pf;
	meas m;
	rt_tally tally;
	sections s;
	rt_buf md = {0}, out = {0};
	json_t *sum;
	char *line;

	rt_setprogname(argv[0]);
	opterr = 0;
	rt_config_apply("rt-report", longopts, &argc, &argv);
	while ((c = getopt_long(argc, argv, ":a:ho:p:tV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': dir = optarg; break;
		case 'H': html = 1; break;
		case 'p': prooffile = optarg; break;
		case 't': text = 1; break;
		case 'a': autopsy = optarg; break;
		case 'A': tmpl = optarg; break;
		case 'S': wav = optarg; break;
		case RT_OPT_LIST_OPTIONS: return rt_cli_list_options(longopts);
		case 'h': fputs(usage_text, stdout); return rt_fshut(stdout, "stdout"), 0;
		case 'V': rt_print_version(); return rt_fshut(stdout, "stdout"), 0;
		case ':': rt_usage_die("%s: missing value", argv[optind - 1]);
		default:
			if (optopt == 'H' || (optopt && strncmp(argv[optind - 1], "--", 2) == 0))
				rt_usage_die("%s: takes no value", argv[optind - 1]);
			if (optopt)
				rt_usage_die("-%c: unknown option", optopt);
			rt_usage_die("%s: unknown option", argv[optind - 1]);
		}
	}
	if (text && (dir || html))
		rt_usage_die("--text and %s are exclusive", dir ? "--output" : "--html");
	if (dir && !*dir)
		rt_usage_die("--output: empty directory name");
	if (autopsy && strcmp(autopsy, "-") == 0 && (text || dir || html))
		rt_usage_die("--autopsy - and %s are exclusive",
		    text ? "--text" : dir ? "--output" : "--html");
	if ((autopsy && !*autopsy) || (wav && !*wav) || (tmpl && !*tmpl))
		rt_usage_die("%s: empty file name", autopsy && !*autopsy ? "--autopsy" :
		    wav && !*wav ? "--speak" : "--autopsy-template");
	if (tmpl && !autopsy && !wav)
		rt_usage_die("--autopsy-template needs --autopsy or --speak");
	if (html)
		(void)rt_html_css();    /* a missing stylesheet fails before any output */

	memset(&r, 0, sizeof r);
	memset(&pf, 0, sizeof pf);
	rt_jsonl_loop(argc - optind, argv + optind, NULL, on_record, &r);
	if (r.n_measure + r.n_plan + r.n_policy + r.n_diff + r.n_fact + r.n_exp +
	    r.n_trial + r.n_verdict + r.n_lane + r.n_order == 0)
		rt_die("no retrial records in input");
	if ((autopsy || wav) && !r.verdict)
		rt_die("%s: no verdict record in input (rt-verify's last line)",
		    autopsy ? "--autopsy" : "--speak");
	if (prooffile) {
		char *pfiles[1] = { (char *)prooffile };
		rt_jsonl_loop(1, pfiles, NULL, on_proof, &pf);
		if (!pf.m.have && pf.ntrials > 0) {
			pf.m.have = 1;
			pf.m.trials = pf.t.trials;
			pf.m.failures = pf.t.failures;
			pf.m.errors = pf.t.errors;
			pf.m.conf = 0.95;
		}
		if (!pf.m.have)
			rt_die("%s: no measure or trial record for the proof run", prooffile);
	}
	if (r.ntrials > 1)
		qsort(r.trials, r.ntrials, sizeof *r.trials, cmp_trial);
	settle_measure(&r, &m, &from_trials, &tally);
	settle_policy(&r, &m);

	memset(&s, 0, sizeof s);
	sec_head(&r, &m, &pf, &s.head);
	sec_how(&r, &m, from_trials, &tally, &s.how);
	sec_cases(&r, &s.cases);
	sec_facts(&r, &s.facts);
	sec_observe(&r, &s.observe);
	sec_tournament(&r, &s.tb, &s.ta);
	sec_fixed(&r, &m, &pf, &s.fixed);
	rt_buf_adds(&md, rt_buf_str(&s.head));
	rt_buf_adds(&md, rt_buf_str(&s.how));
	rt_buf_adds(&md, rt_buf_str(&s.cases));
	rt_buf_adds(&md, rt_buf_str(&s.facts));
	rt_buf_adds(&md, rt_buf_str(&s.observe));
	rt_buf_adds(&md, rt_buf_str(&s.tb));
	if ((patch = winner_patch(&r)))
		rt_md_fence(&md, patch, "diff");
	rt_buf_adds(&md, rt_buf_str(&s.ta));
	rt_buf_adds(&md, rt_buf_str(&s.fixed));
	if (autopsy || wav)
		story = autopsy_text(&r, tmpl);

	if (autopsy && strcmp(autopsy, "-") == 0) {
		fputs(story, stdout);
	} else if (text) {
		fwrite(md.data, 1, md.len, stdout);
	} else {
		if (dir && rt_mkdir_p(dir, 0777) < 0) {
			struct stat st;
			int e = errno;
			if (stat(dir, &st) == 0)
				rt_die("%s: not a directory", dir);
			errno = e;
			rt_die("%s: cannot create directory:", dir);
		}
		sum = summary_json(&r, &m, &pf);
		line = rt_dumps(sum);
		rt_buf_adds(&out, line);
		rt_buf_addc(&out, '\n');
		free(line);
		json_decref(sum);
		write_out(dir, "summary.json", &out);
		write_out(dir, "report.md", &md);
		if (html) {
			out.len = 0;
			build_html(&out, &r, &m, &pf, &s);
			write_out(dir, "report.html", &out);
		}
		if (autopsy) {
			out.len = 0;
			rt_buf_adds(&out, story);
			write_out(NULL, autopsy, &out);
		}
	}
	if (wav)
		speak(wav, story);
	free(story);
	rt_buf_free(&md);
	rt_buf_free(&out);
	rt_buf_free(&s.head);
	rt_buf_free(&s.how);
	rt_buf_free(&s.cases);
	rt_buf_free(&s.facts);
	rt_buf_free(&s.observe);
	rt_buf_free(&s.fixed);
	rt_buf_free(&s.tb);
	rt_buf_free(&s.ta);
	report_free(&r);
	meas_free(&pf.m);
	rt_fshut(stdout, "stdout");
	return 0;
}
