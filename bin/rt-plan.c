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
#include "rt_config.h"
#include "rt_jsonl.h"
#include "rt_plan.h"
#include "rt_say.h"
#include "rt_stats.h"
#include "rt_trial.h"
#include "rt_util.h"

#define MAX_LEVELS 32

typedef rt_plan_measure measure;
typedef rt_plan_level level_plan;

static struct {
	int have_rate;
	double rate;
	double levels[MAX_LEVELS];
	int nlevels;
	int have_choose;
	double choose;
	int policy, text, have_basis;
	rt_plan_rules rules;         /* the basis, --target, --survive, --window */
} opt;

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
	rt_plan_measure_read(rec, w, ctx);
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

#define pct(buf, size, v) rt_say_pct(buf, size, v, RT_SAY_NEAR)

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

static level_plan
plan_at(double c, double observed, const measure *m)
{
	return rt_plan_at(&opt.rules, c, observed, m);
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
	json_object_set_new(o, "basis", json_string(opt.rules.have_target ? "target" :
	    rt_plan_basis_name(opt.rules.basis)));
	if (opt.rules.have_target)
		json_object_set_new(o, "target", json_real(opt.rules.target));
	if (opt.rules.basis == RT_PLAN_SPLIT) {
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
	else if (m->found && opt.rules.basis == RT_PLAN_POINT && !opt.rules.have_target)
		json_object_set_new(o, "note", json_string("the measured rate taken "
		    "as known: the confidence leaves out the measurement's own error"));
}

static void
measured_text(const measure *m)
{
	if (!m->found)
		return;
	printf("Measured %s. ", m->say);
}

/* "At a 20.0% failure rate" (with why, when it is not the rate itself);
 * lead is "At" or "planned from". */
static void
rate_text(const level_plan *lp, const measure *m, const char *lead)
{
	char b[600];

	rt_plan_say_rate(b, sizeof b, lead, &opt.rules, lp, m);
	fputs(b, stdout);
}

/* "show it is fixed" or, with --target, "show its rate is below 10.0%" */
static const char *
claim(const level_plan *lp)
{
	static char b[80];

	rt_plan_say_claim(b, sizeof b, &opt.rules, lp);
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
			char sentence[800];

			measured_text(m);
			rt_plan_say_runs(sentence, sizeof sentence, &opt.rules, &lp, m);
			printf("%s.\n", sentence);
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
		if (opt.rules.basis == RT_PLAN_SPLIT && !opt.rules.have_target)
			printf("From the exact one-sided lower bound of the measured rate at "
			    "each level (the error split between the measurement and the "
			    "runs: %s at %s)", pct(b, sizeof b, lp.fix),
			    rt_say_conf(b2, sizeof b2, opt.levels[0]));
		else
			rate_text(&lp, m, "At");
		for (i = 0; i < opt.nlevels; i++) {
			lp = plan_at(opt.levels[i], observed, m);
			if (i == 0)
				printf(", %ld clean run%s in a row %s at %s confidence",
				    lp.runs, lp.runs == 1 ? "" : "s", claim(&lp),
				    rt_say_conf(b, sizeof b, opt.levels[i]));
			else
				printf(", %ld at %s", lp.runs, rt_say_conf(b, sizeof b, opt.levels[i]));
		}
		printf(".\n");
		json_decref(o);
		return;
	}
	lp = plan_at(c, observed, m);
	json_object_set_new(o, "observed_rate", rt_json_real6(observed));
	json_object_set_new(o, "basis", json_string(opt.rules.have_target ? "target" :
	    rt_plan_basis_name(opt.rules.basis)));
	if (opt.rules.have_target)
		json_object_set_new(o, "target", json_real(opt.rules.target));
	json_object_set_new(o, "rate", rt_json_real6(lp.fix));
	levels = json_array();
	for (i = 0; i < opt.nlevels; i++) {
		level_plan li = plan_at(opt.levels[i], observed, m);
		lv = json_object();
		json_object_set_new(lv, "confidence", json_real(opt.levels[i]));
		json_object_set_new(lv, "runs", json_integer(li.runs));
		/* split plans each level from its own bound */
		if (opt.rules.basis == RT_PLAN_SPLIT && !opt.rules.have_target) {
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

static void
policy(double observed, const measure *m)
{
	json_t *o = json_object();
	double c = chosen_level();
	rt_plan_policy p;
	const level_plan *lp = &p.lp;
	long retries, quar;
	char rule[1200], b1[32], b4[32], pq[300], pa[32], where[100];

	rt_plan_policy_at(&opt.rules, c, observed, m, &p);
	retries = p.retry.retries;
	quar = p.quarantine_after;
	rt_say_conf(b1, sizeof b1, c);
	rt_plan_say_survive(pq, sizeof pq, &opt.rules, &p, m, observed);
	rt_say_pct(pa, sizeof pa, p.false_alarm, RT_SAY_UP);
	rt_plan_say_where(where, sizeof where, &opt.rules, lp, m);
	rt_plan_say_rule(rule, sizeof rule, &opt.rules, &p, m, observed);
	if (opt.text) {
		measured_text(m);
		if (p.retry.always) {
			printf("It always fails: no retry budget helps, so quarantine or fix "
			    "it, not retry. ");
		} else {
			printf("Retry a failing run up to %ld time%s: a flaky failure "
			    "survives all %ld attempts with probability %s (target %s). ",
			    retries, retries == 1 ? "" : "s", retries + 1, pq,
			    pct(b4, sizeof b4, opt.rules.survive));
			printf("Quarantine when %ld of the last %ld runs exhaust their "
			    "retries, checked after every run: by flakiness alone that happens "
			    "within any %ld runs with probability at most %s%s. ", quar,
			    opt.rules.window, opt.rules.window, pa, where);
		}
		if (lp->runs == 1)
			printf("After a fix, a single clean run %ss at %s confidence",
			    claim(lp), b1);
		else
			printf("After a fix, %ld clean runs in a row %s at %s confidence",
			    lp->runs, claim(lp), b1);
		if (opt.rules.basis != RT_PLAN_KNOWN || opt.rules.have_target) {
			printf(", ");
			rate_text(lp, m, "planned from");
		}
		printf(".\n");
		json_decref(o);
		return;
	}
	json_object_set_new(o, "type", json_string("policy"));
	json_object_set_new(o, "observed_rate", rt_json_real6(observed));
	add_basis(o, lp);
	if (opt.rules.have_target)      /* the retry side keeps its own basis */
		json_object_set_new(o, "retry_basis", json_string(rt_plan_basis_name(opt.rules.basis)));
	json_object_set_new(o, "confidence", json_real(c));
	json_object_set_new(o, "green_runs_required", json_integer(lp->runs));
	json_object_set_new(o, "retry_budget", p.retry.always ? json_null() : json_integer(retries));
	json_object_set_new(o, "survive", json_real(opt.rules.survive));
	json_object_set_new(o, "quarantine_after", json_integer(quar));
	json_object_set_new(o, "window", json_integer(opt.rules.window));
	json_object_set_new(o, "checked", json_string("after every run"));
	json_object_set_new(o, "false_alarm_bound", json_real(p.false_alarm));
	json_object_set_new(o, "rule", json_string(rule));
	json_object_set_new(o, "fix_rate", rt_json_real6(lp->fix));
	json_object_set_new(o, "retry_rate", rt_json_real6(p.retry.rate));
	json_object_set_new(o, "exhaust_probability", json_real(p.retry.q));
	if (lp->have_iv) {
		json_object_set_new(o, "exhaust_low", json_real(p.retry.qlo));
		json_object_set_new(o, "exhaust_high", json_real(p.retry.qhi));
	}
	if (p.retry.always)
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
	rt_plan_rules_init(&opt.rules);
	rt_config_apply("rt-plan", longopts, &argc, &argv);
	while ((ch = getopt_long(argc, argv, ":b:c:hpr:s:T:tVw:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'b':
			opt.have_basis = 1;
			if (rt_plan_basis_parse(optarg, &opt.rules.basis) < 0)
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
			opt.rules.survive = rt_num_double("--survive", optarg, 0, 1, 1, 1);
			break;
		case 'T':
			opt.rules.have_target = 1;
			opt.rules.target = rt_num_double("--target", optarg, 0, 1, 1, 1);
			break;
		case 't':
			opt.text = 1;
			break;
		case 'V':
			rt_print_version();
			rt_fshut(stdout, "stdout");
			return RT_EXIT_OK;
		case 'w':
			opt.rules.window = rt_num_long("--window", optarg, 1, 1000000);
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
	if (opt.have_rate && opt.have_basis && opt.rules.basis != RT_PLAN_POINT)
		rt_usage_die("--basis %s needs a measure record (an interval), not --rate",
		    rt_plan_basis_name(opt.rules.basis));
	chosen_level();    /* a bad --choose is a usage error before any input */

	if (opt.have_rate) {
		if (opt.rate == 0)
			rt_die("--rate 0: no failure to plan a fix against");
		opt.rules.basis = RT_PLAN_KNOWN;
		observed = opt.rate;
	} else {
		rt_jsonl_loop(argc, argv, NULL, on_record, &m);
		if (!m.found)
			rt_die("%s: no measure record", inputs_name(argc, argv));
		if (m.trials == 0)
			rt_die_at(&m.where, "0 valid trials: no rate to plan from");
		observed = m.rate;
		if (m.failures == 0 && opt.rules.basis != RT_PLAN_ENDS)
			rt_die("no failure observed in %ld trials: nothing to plan a fix "
			    "against (--basis ends plans from the interval's upper end)",
			    m.trials);
		if (opt.rules.basis == RT_PLAN_ENDS && m.ci_low == 0 && m.ci_high == 0)
			rt_die_at(&m.where, "the interval's upper end is 0: nothing to plan from");
	}
	if (opt.policy)
		policy(observed, &m);
	else
		plan(observed, &m);
	rt_fshut(stdout, "stdout");
	return RT_EXIT_OK;
}
