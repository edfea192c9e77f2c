/* rt-plan: how many clean runs show a flaky test is fixed, and the CI
 * policy that follows (retry budget, quarantine rule) from a failure rate. */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rt_jsonl.h"
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
} measure;

static struct {
	int have_rate;
	double rate;
	double levels[MAX_LEVELS];
	int nlevels;
	int have_choose;
	double choose;
	int policy, text, upper;
	double target;
	long window;
} opt = { .target = RT_RETRY_TARGET, .window = RT_QUARANTINE_WINDOW };

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: %s [-pt] [-b point|upper] [-c C[,C...]] [--choose C] [-r P]\n"
	    "               [-T T] [-w W] [file]\n"
	    "  -r, --rate P            plan from failure rate P instead of a measure record\n"
	    "  -c, --confidence C,...  confidence level(s) in (0,1) (default 0.95)\n"
	    "      --choose C          the level \"chosen\" reports (default 0.95)\n"
	    "  -b, --basis point|upper plan from the rate or the interval's conservative end\n"
	    "  -p, --policy            print the CI policy: green runs, retries, quarantine\n"
	    "  -T, --target T          chance a flaky failure may survive its retries (0.01)\n"
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
		opt.levels[opt.nlevels++] = rt_num_double("--confidence", tok, 0, 1, 1, 1);
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

	if (strcmp(rt_rec_str(rec, "type", w), "measure") != 0)
		return 0;
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
	/* A record without its interval gets the Wilson interval it implies. */
	rt_wilson(m->failures, m->trials, conf, &ci);
	m->rate = (double)k / (double)n;
	m->ci_low = ci.low;
	m->ci_high = ci.high;
	if (rt_rec_opt_num(rec, "ci_low", w, &m->ci_low) && !(m->ci_low >= 0 && m->ci_low <= 1))
		rt_die_at(w, "\"ci_low\": %g is not a rate", m->ci_low);
	if (rt_rec_opt_num(rec, "ci_high", w, &m->ci_high) && !(m->ci_high >= 0 && m->ci_high <= 1))
		rt_die_at(w, "\"ci_high\": %g is not a rate", m->ci_high);
	if (m->ci_low > m->rate || m->ci_high < m->rate)
		rt_die_at(w, "the interval [%g, %g] does not contain the rate %g",
		    m->ci_low, m->ci_high, m->rate);
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

static char *
pct(char *buf, size_t size, double v)
{
	double p = v * 100;

	if (p == 0 || p >= 0.1)
		snprintf(buf, size, "%.1f%%", p);
	else
		snprintf(buf, size, "%.2g%%", p);
	return buf;
}

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
	snprintf(buf, size, "%g%%", c * 100);
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

static void
add_measure(json_t *o, const measure *m)
{
	if (!m->found)
		return;
	json_object_set_new(o, "trials", json_integer(m->trials));
	json_object_set_new(o, "failures", json_integer(m->failures));
	json_object_set_new(o, "ci_low", rt_json_real6(m->ci_low));
	json_object_set_new(o, "ci_high", rt_json_real6(m->ci_high));
	json_object_set_new(o, "measure_confidence", rt_json_real6(m->conf));
}

static void
zero_note(json_t *o, const measure *m)
{
	if (m->found && m->failures == 0)
		json_object_set_new(o, "note", json_string("no failure observed: "
		    "planned from the interval's upper end, the highest rate the "
		    "trials cannot rule out"));
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

/* "At a 20.0% failure rate" (with why, for the conservative end). */
static void
rate_text(double p, const measure *m, int fix)
{
	char b[32];

	pct(b, sizeof b, p);
	printf("At %s %s failure rate", article(b), b);
	if (!opt.upper || !m->found)
		return;
	if (fix && m->failures == 0)
		printf(" (the high end of the interval: no failure was observed, so "
		    "there is no lower rate to plan against)");
	else
		printf(" (the %s end of the interval, the conservative end %s)",
		    fix ? "low" : "high",
		    fix ? "for claiming a fix" : "for a retry budget");
}

static void
plan(double observed, double fix_rate, const measure *m, const char *basis)
{
	json_t *o = json_object(), *levels, *lv, *ch = NULL;
	double c = chosen_level();
	long n;
	int i;
	char b[32];

	json_object_set_new(o, "type", json_string("plan"));
	if (opt.nlevels == 1) {
		n = runs_for(fix_rate, c);
		if (opt.text) {
			measured_text(m);
			rate_text(fix_rate, m, 1);
			if (n == 1)
				printf(", a single clean run shows it is fixed at %s confidence.\n",
				    conf_text(b, sizeof b, c));
			else
				printf(", %ld clean runs in a row show it is fixed at %s "
				    "confidence.\n", n, conf_text(b, sizeof b, c));
			json_decref(o);
			return;
		}
		json_object_set_new(o, "rate", rt_json_real6(fix_rate));
		json_object_set_new(o, "confidence", json_real(c));
		json_object_set_new(o, "runs", json_integer(n));
		json_object_set_new(o, "basis", json_string(basis));
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
		rate_text(fix_rate, m, 1);
		for (i = 0; i < opt.nlevels; i++) {
			n = runs_for(fix_rate, opt.levels[i]);
			if (i == 0)
				printf(", %ld clean run%s in a row show%s it is fixed at %s "
				    "confidence", n, n == 1 ? "" : "s", n == 1 ? "s" : "",
				    conf_text(b, sizeof b, opt.levels[i]));
			else
				printf(", %ld at %s", n, conf_text(b, sizeof b, opt.levels[i]));
		}
		printf(".\n");
		json_decref(o);
		return;
	}
	json_object_set_new(o, "observed_rate", rt_json_real6(observed));
	json_object_set_new(o, "basis", json_string(basis));
	json_object_set_new(o, "rate", rt_json_real6(fix_rate));
	levels = json_array();
	for (i = 0; i < opt.nlevels; i++) {
		lv = json_object();
		json_object_set_new(lv, "confidence", json_real(opt.levels[i]));
		json_object_set_new(lv, "runs", json_integer(runs_for(fix_rate, opt.levels[i])));
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

static void
policy(double observed, double fix_rate, double retry_rate, const measure *m,
    const char *basis)
{
	json_t *o = json_object();
	double c = chosen_level(), q;
	long green, retries = 0, quar;
	int always;
	char rule[600], b1[32], b2[32], b3[32], b4[32];

	green = runs_for(fix_rate, c);
	switch (rt_retry_budget(retry_rate, opt.target, &retries)) {
	case RT_STATS_OK:
		always = 0;
		break;
	case RT_STATS_EALWAYS:
		always = 1;
		break;
	default:
		rt_die("rate %g: no retry budget reaches --target %g", retry_rate, opt.target);
	}
	/* q: the chance one CI run exhausts its retries by flakiness alone */
	q = always ? 1 : pow(retry_rate, (double)(retries + 1));
	if (rt_quarantine_after(q, opt.window, c, &quar) != RT_STATS_OK)
		rt_die("cannot compute the quarantine rule");
	conf_text(b1, sizeof b1, c);
	if (always)
		snprintf(rule, sizeof rule,
		    "it always fails: no retry budget helps; quarantine after the first "
		    "failing run and fix it; a fix is shown by %ld clean run%s", green,
		    green == 1 ? "" : "s");
	else
		snprintf(rule, sizeof rule,
		    "retry a failing run up to %ld time%s (a flaky failure survives all "
		    "%ld attempts with probability %s, target %s); quarantine when %ld of "
		    "the last %ld runs exhaust their retries (more than the measured "
		    "flakiness explains at %s confidence); a fix is shown by %ld clean "
		    "run%s in a row at %s confidence",
		    retries, retries == 1 ? "" : "s", retries + 1, pct(b2, sizeof b2, q),
		    pct(b3, sizeof b3, opt.target), quar, opt.window, b1, green,
		    green == 1 ? "" : "s", b1);
	if (opt.text) {
		measured_text(m);
		if (always) {
			rate_text(retry_rate, m, 0);
			printf(", it always fails: no retry budget helps, so quarantine or fix "
			    "it, not retry. ");
		} else {
			printf("Retry a failing run up to %ld time%s: ", retries,
			    retries == 1 ? "" : "s");
			pct(b2, sizeof b2, retry_rate);
			printf("at %s %s failure rate", article(b2), b2);
			if (opt.upper && m->found)
				printf(" (the high end of the interval, the conservative end "
				    "for a retry budget)");
			printf(" a flaky failure survives all %ld attempts with probability "
			    "%s (target %s). ", retries + 1, pct(b3, sizeof b3, q),
			    pct(b4, sizeof b4, opt.target));
			printf("Quarantine when %ld of the last %ld runs exhaust their "
			    "retries: more than that flakiness explains at %s confidence. ",
			    quar, opt.window, b1);
		}
		if (green == 1)
			printf("After a fix, a single clean run shows it is fixed at %s "
			    "confidence", b1);
		else
			printf("After a fix, %ld clean runs in a row show it is fixed at "
			    "%s confidence", green, b1);
		if (opt.upper && m->found)
			printf(" (planned from the %s failure rate at the %s end of the "
			    "interval)", pct(b2, sizeof b2, fix_rate),
			    m->failures == 0 ? "high" : "low");
		printf(".\n");
		json_decref(o);
		return;
	}
	json_object_set_new(o, "type", json_string("policy"));
	json_object_set_new(o, "observed_rate", rt_json_real6(observed));
	json_object_set_new(o, "basis", json_string(basis));
	json_object_set_new(o, "confidence", json_real(c));
	json_object_set_new(o, "green_runs_required", json_integer(green));
	json_object_set_new(o, "retry_budget", always ? json_null() : json_integer(retries));
	json_object_set_new(o, "target", json_real(opt.target));
	json_object_set_new(o, "quarantine_after", json_integer(quar));
	json_object_set_new(o, "window", json_integer(opt.window));
	json_object_set_new(o, "rule", json_string(rule));
	json_object_set_new(o, "fix_rate", rt_json_real6(fix_rate));
	json_object_set_new(o, "retry_rate", rt_json_real6(retry_rate));
	json_object_set_new(o, "exhaust_probability", json_real(q));
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
		{ "target", required_argument, NULL, 'T' },
		{ "text", no_argument, NULL, 't' },
		{ "version", no_argument, NULL, 'V' },
		{ "window", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 }
	};
	measure m = {0};
	double observed, fix_rate, retry_rate;
	const char *basis;
	int ch;

	rt_setprogname(argv[0]);
	opterr = 0;
	opt.levels[0] = 0.95, opt.nlevels = 1;
	while ((ch = getopt_long(argc, argv, ":b:c:hpr:T:tVw:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'b':
			if (strcmp(optarg, "point") == 0)
				opt.upper = 0;
			else if (strcmp(optarg, "upper") == 0)
				opt.upper = 1;
			else
				rt_usage_die("--basis %s: must be point or upper", optarg);
			break;
		case 'c':
			parse_levels(optarg);
			break;
		case 'C':
			opt.have_choose = 1;
			opt.choose = rt_num_double("--choose", optarg, 0, 1, 1, 1);
			break;
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
		case 'T':
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
	if (opt.have_rate && opt.upper)
		rt_usage_die("--basis upper needs a measure record (an interval), not --rate");
	chosen_level();    /* a bad --choose is a usage error before any input */

	if (opt.have_rate) {
		if (opt.rate == 0)
			rt_die("--rate 0: no failure to plan a fix against");
		observed = fix_rate = retry_rate = opt.rate;
	} else {
		rt_jsonl_loop(argc, argv, NULL, on_record, &m);
		if (!m.found)
			rt_die("%s: no measure record", inputs_name(argc, argv));
		if (m.trials == 0)
			rt_die_at(&m.where, "0 valid trials: no rate to plan from");
		observed = m.rate;
		/* Conservative ends: a lower failure rate needs more clean runs to
		 * show it is gone (ci_low); a higher one needs more retries
		 * (ci_high). */
		fix_rate = opt.upper ? m.ci_low : m.rate;
		retry_rate = opt.upper ? m.ci_high : m.rate;
		if (m.failures == 0 && !opt.upper)
			rt_die("no failure observed in %ld trials: nothing to plan a fix "
			    "against (--basis upper plans from the interval's upper end)",
			    m.trials);
		if (fix_rate == 0)
			fix_rate = m.ci_high;
		if (fix_rate == 0)
			rt_die_at(&m.where, "the interval's upper end is 0: nothing to plan from");
	}
	basis = opt.upper ? "upper" : "point";
	if (opt.policy)
		policy(observed, fix_rate, retry_rate, &m, basis);
	else
		plan(observed, fix_rate, &m, basis);
	rt_fshut(stdout, "stdout");
	return RT_EXIT_OK;
}
