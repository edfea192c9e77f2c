/* rt-bisect: find the tests an order-dependent test depends on — polluters
 * that make it fail, state-setters that make it pass, cleaners that undo a
 * polluter — by group testing over ordered runs judged by interval probes. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_cases.h"
#include "rt_cli.h"
#include "rt_config.h"
#include "rt_ddmin.h"
#include "rt_order.h"
#include "rt_jsonl.h"
#include "rt_records.h"
#include "rt_out.h"
#include "rt_platform.h"
#include "rt_stats.h"
#include "rt_text.h"
#include "rt_trial.h"
#include "rt_util.h"

enum {
	OPT_COLLECT = RT_OPT_TOOL_BASE, OPT_RECORDS, OPT_CONF, OPT_THRESH,
	OPT_MAXTRIALS, OPT_FIRST, OPT_NOCLEAN, OPT_BEFORE, OPT_LINEAR, OPT_TEXT
};

static const struct option longopts[] = {
	RT_TRIAL_LONGOPTS,
	{ "victim", required_argument, NULL, 'v' },
	{ "tests", required_argument, NULL, 'f' },
	{ "collect", required_argument, NULL, OPT_COLLECT },
	{ "records", required_argument, NULL, OPT_RECORDS },
	{ "before", no_argument, NULL, OPT_BEFORE },
	{ "trials", required_argument, NULL, 'n' },
	{ "max-trials", required_argument, NULL, OPT_MAXTRIALS },
	{ "confidence", required_argument, NULL, OPT_CONF },
	{ "threshold", required_argument, NULL, OPT_THRESH },
	{ "first", no_argument, NULL, OPT_FIRST },
	{ "no-cleaners", no_argument, NULL, OPT_NOCLEAN },
	{ "linear", no_argument, NULL, OPT_LINEAR },
	{ "text", no_argument, NULL, OPT_TEXT },
	{ "out", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	RT_LIST_OPTIONS_LONGOPT,
	{ NULL, 0, NULL, 0 }
};
#define SHORTOPTS RT_TRIAL_SHORTOPTS "v:f:n:o:hV"

static void
usage(FILE *f)
{
	fprintf(f,
"usage: rt-bisect -v ID (-f FILE | --collect CMD | --records FILE) [--before]\n"
"                 [-n N] [--max-trials N] [--confidence C] [--threshold T]\n"
"                 [--first] [--no-cleaners] [--linear] [--text] [-o FILE]\n"
"                 [trial options] (--cmd \"CMD\" | -- ARGV... [{}] [ARGV...])\n"
"Find the polluters, state-setters and cleaners of an order-dependent test.\n"
"  -v, --victim ID        the test that fails (or passes) depending on order\n"
"  -f, --tests FILE       the candidate tests, one ID per line\n"
"      --collect CMD      the candidates from a collect command's output\n"
"      --records FILE     the candidates from per-case trial records: the cases\n"
"                         before the victim in a run where it failed\n"
"      --before           keep only the candidates listed before the victim\n"
"  -n, --trials N         most trials in one probe (default 60)\n"
"      --max-trials N     most trials in all (default 2000)\n"
"      --confidence C     confidence of every interval (default 0.95)\n"
"      --threshold T      \"reliably\" passing: upper bound below T; failing:\n"
"                         lower bound at or above 1 - T (default 0.10)\n"
"      --first            stop at the first minimal set (default: all singles)\n"
"      --no-cleaners      do not look for cleaners\n"
"      --linear           probe every candidate in its own pair (for comparison)\n"
"      --text             print a summary instead of the JSON record\n"
"  -o, --out FILE         also write the record to FILE (atomically)\n"
"  The IDs go to the command as separate words: in place of {} in ARGV (or at\n"
"  its end), or as the positional parameters of --cmd (\"$@\").\n");
	rt_trial_cli_usage(f);
	fprintf(f,
"  -h, --help             this text\n"
"  -V, --version          the version\n");
}

typedef enum { D_PASS, D_FAIL, D_UNDECIDED, D_MIXED, D_STOPPED, D_ERROR } decision;
static const char *const dname[] = { "pass", "fail", "undecided", "mixed", "stopped",
    "error" };

typedef struct {
	char **v;
	int n, cap;
} list;

typedef struct {
	uint64_t key;
	decision d;
} memo;

static struct {
	rt_trial_cli cli;
	const char *victim;
	char **ids;                  /* candidates, in order */
	int nids;
	double conf, threshold;
	long cap, max_trials, used, trialno;
	int first, noclean, linear, sig, budget_out, stop;
	double pass_hi, fail_lo;     /* the two reference intervals' inner bounds */
	decision target;             /* what a dependency does: D_FAIL or D_PASS */
	json_t *probes, *notes, *dropped;
	int ids_safe;                /* the IDs follow the command's own "--" */
	memo *memo;
	size_t nmemo, capmemo;
	rt_cases_dir jdir;           /* the private report directory */
	char *jdirname;
	int by_exit;                 /* no per-case report: judged by exit status */
	int noisy;                   /* the victim alone is noisy: probes run to the cap */
	long undecided;              /* search probes that stayed undecided or errors */
	const char *what;            /* the claim searched for */
	json_t *incon;               /* its inconclusive entries */
	rt_progress prog;
	long plan_probes, plan_trials; /* the plan, for the ETA and the record */
	long plan_show, plan_not;    /* trials of a probe that shows it, that does not */
	char *victim_own;            /* the victim's runnable ID, when mapped */
	const char *phase;
	char reason[400];
	rt_order *ord;               /* the runner's ordered runs (rt_order), or NULL */
} B;

static void
ladd(list *l, char *s)
{
	if (l->n + 2 > l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->v = rt_xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
	}
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
}

static void
note(const char *fmt, ...)
{
	va_list ap;
	char buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	json_array_append_new(B.notes, json_string(buf));
}

/* The private report directory goes, with any report a trial killed
 * before it was read left in it. */
static void
jdir_cleanup(void)
{
	rt_cases_dir_remove(&B.jdir, B.jdirname);
	B.jdirname = NULL;
	rt_order_close(B.ord);
	B.ord = NULL;
}

/* --- candidates --- */

/* Does the command put the IDs after its own "--"? A runner (pytest,
 * unittest, any getopt or argparse one) then takes them as operands,
 * whatever they look like; elsewhere an ID like --basetemp=DIR is an
 * option to it. */
static int
ids_after_dashdash(void)
{
	int k;

	for (k = 0; B.cli.argv && B.cli.argv[k]; k++) {
		if (strcmp(B.cli.argv[k], "{}") == 0)
			return 0;
		if (strcmp(B.cli.argv[k], "--") == 0)
			return 1;
	}
	return 0;
}

#define OPTION_REASON "it starts with '-', so the runner would take it as an " \
	"option (give the command as -- ARGV with its own -- before {} to pass it)"

/* A candidate left out: named in the record's "dropped" with where it
 * came from and why, and on stderr unless quiet. */
static void
drop(const char *src, long line, const char *id, const char *reason, int quiet)
{
	json_t *o = json_object();
	char *v;

	json_object_set_new(o, "id", json_string(id));
	json_object_set_new(o, "source", json_string(src));
	if (line > 0)
		json_object_set_new(o, "line", json_integer(line));
	json_object_set_new(o, "reason", json_string(reason));
	json_array_append_new(B.dropped, o);
	if (quiet)
		return;
	v = rt_visible(id);
	if (line > 0)
		rt_warn("%s:%ld: %s: left out: %s", src, line, v, reason);
	else
		rt_warn("%s: %s: left out: %s", src, v, reason);
	free(v);
}

/* Why a line of a collect command's output is not an ID, or NULL. A test
 * runner's own summary ("40 tests collected in 0.05s", "no tests ran")
 * is no ID at all (quiet): it is not named. */
static const char *
not_an_id(const char *s, int *quiet)
{
	*quiet = 0;
	if (*s >= '0' && *s <= '9' && strchr(s, ' ')) {
		*quiet = strstr(s, " collected") || strstr(s, " passed") ||
		    strstr(s, " deselected");
		return "a count and words: a runner's summary line";
	}
	if (strncmp(s, "no tests ran", 12) == 0) {
		*quiet = 1;
		return "a runner's summary line";
	}
	if (*s == ' ' || *s == '\t')
		return "indented: runner output, not an ID";
	if (*s == '=')
		return "it starts with '=': a runner's section rule";
	if (*s == '#')
		return "it starts with '#': a comment";
	return NULL;
}

/* One ID a line. A list (-f) skips blank lines and '#' comments only; a
 * collect command's output also the lines not_an_id names. */
static void
add_lines(list *l, char *text, const char *src, int collect)
{
	char *line, *next;
	const char *why;
	long lineno = 0;
	size_t n;
	int quiet, section = 0;
	char msg[200];
	/* the runner's listing (pytest's collection: node IDs, then its
	 * sections, the warnings summary and "-- Docs:", and its count line) */
	const rt_runner *r = collect ? rt_runner_of((rt_runner_kind)(collect - 1)) : NULL;
	int listing = r && r->list_mark;

	for (line = text; line; line = next) {
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		lineno++;
		n = strlen(line);
		while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
			line[--n] = '\0';
		if (!*line || (!collect && *line == '#'))
			continue;
		if (collect && (why = not_an_id(line, &quiet))) {
			if (*line == '=')
				section = 1;
			if (!quiet)
				drop(src, lineno, line, why, 0);
			continue;
		}
		if (listing && section) {
			snprintf(msg, sizeof msg, "in a section of %s's report after the "
			    "collection (a warnings summary): not a collected test", r->name);
			drop(src, lineno, line, msg, 0);
			continue;
		}
		if (listing && !strstr(line, r->list_mark)) {
			snprintf(msg, sizeof msg, "not a %s: a warning's FILE:LINE or other "
			    "runner output", r->list_id);
			drop(src, lineno, line, msg, 0);
			continue;
		}
		ladd(l, rt_xstrdup(line));
	}
}

/* Text for a person, line by line, each indented and with its control
 * characters made visible. */
static char *
visible_lines(const char *s)
{
	rt_buf b = { 0 };
	char *r, *v, *line;
	const char *e;
	size_t n;

	while (*s) {
		e = strchr(s, '\n');
		n = e ? (size_t)(e - s) : strlen(s);
		line = rt_xmalloc(n + 1);
		memcpy(line, s, n);
		line[n] = '\0';
		v = rt_visible(line);
		rt_buf_adds(&b, "\n  ");
		rt_buf_adds(&b, v);
		free(v);
		free(line);
		s += e ? n + 1 : n;
	}
	r = rt_xstrdup(rt_buf_str(&b));
	rt_buf_free(&b);
	return r;
}

static int
collect_done(const rt_trial_result *res, void *ctx)
{
	char **out = ctx;

	if (res->outcome != RT_PASS) {
		char why[400];
		const char *said = res->err.data && *res->err.data ? res->err.data :
		    res->out.data ? res->out.data : "";
		size_t n = strlen(said);
		char *v;
		if (res->outcome == RT_ERROR)
			rt_error_reason(why, sizeof why, 1, res->error, NULL);
		else
			snprintf(why, sizeof why, "exit %d", res->exit_code);
		/* what the command said: its stderr (pytest's collection errors
		 * go to stdout, so that when stderr is empty), the last 2000 bytes */
		while (n > 0 && (said[n - 1] == '\n' || said[n - 1] == '\r'))
			n--;
		if (n > 2000)
			said += n - 2000, n = 2000;
		{
			char *t = rt_xmalloc(n + 1);
			memcpy(t, said, n);
			t[n] = '\0';
			v = visible_lines(t);
			free(t);
		}
		rt_die("--collect: the command failed (%s)%s%s", why, *v ? "; it said:" : "", v);
	}
	*out = rt_xstrdup(res->out.data ? res->out.data : "");
	return RT_GO_ON;
}

static void
from_collect(list *l, const char *cmd)
{
	rt_trial_opts o = B.cli.o;
	char *text = NULL;

	o.shell_cmd = cmd;
	o.shell_args = NULL;
	o.argv = NULL;
	o.jobs = 1;
	o.gap_ms = 0;
	o.fail_if = o.ignore_if = NULL;
	o.junit_dir = NULL;
	o.cases_auto = 0;
	o.max_output = (size_t)256 << 20;
	if (rt_run_trials(&o, 0, 1, 1, collect_done, &text) != 0 || !text)
		exit(RT_EXIT_INT);
	add_lines(l, text, "--collect", 1 + (int)rt_runner_detect(cmd, NULL));
	free(text);
}

typedef struct {
	char *run, *name, *id;       /* id: the runnable ID, NULL when unmappable */
	char *why;                   /* why it is not runnable */
	long long pos;
	long line;
	int failed;
} casrec;

typedef struct {
	casrec *v;
	size_t n, cap;
} cases;

/* A record's name as an ID the runner selects (rt_runner_record_id: an
 * older rt-junit's "tests.test_x.TestC::test_y" becomes pytest's
 * "tests/test_x.py::TestC::test_y"), checked against the tree. */
static char *
runnable(const char *name, const char *cls, const char *jname, const char *suite,
    char **why)
{
	char buf[1200], *id;

	/* an option-like name is refused as such, unless it goes after the
	 * command's own -- (read_candidates) */
	if (*name == '-' && !B.ids_safe) {
		*why = NULL;
		return rt_xstrdup(name);
	}
	id = rt_runner_record_id(B.cli.o.runner, name, cls, jname, suite, B.cli.o.cwd,
	    buf, sizeof buf);
	*why = id ? NULL : rt_xstrdup(buf);
	return id;
}

static int
on_case(json_t *rec, const rt_where *w, void *ctx)
{
	cases *c = ctx;
	const char *type = json_string_value(json_object_get(rec, "type"));
	const char *name, *oc, *cls = NULL, *jname = NULL, *suite = NULL;
	json_t *run;
	long long pos;
	rt_outcome o;

	if (strcmp(type, "trial") != 0 || !json_object_get(rec, "case"))
		return 0;
	rt_rec_check(rt_rec_kind(rec), rec, w);
	name = rt_rec_str(rec, "case", w);
	oc = rt_rec_str(rec, "outcome", w);
	if (rt_outcome_parse(oc, &o) < 0)
		rt_die_at(w, "\"outcome\": unknown value \"%s\"", oc);
	pos = rt_rec_int(rec, "position", 0, (long long)1 << 40, w);
	(void)rt_rec_opt_name(rec, "junit_classname", w, &cls);
	(void)rt_rec_opt_name(rec, "junit_name", w, &jname);
	(void)rt_rec_opt_str(rec, "suite", w, &suite);
	run = json_object_get(rec, "run");
	if (!run)
		run = json_object_get(rec, "trial");
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->v = rt_xrealloc(c->v, c->cap * sizeof *c->v);
	}
	c->v[c->n].run = run ? json_dumps(run, JSON_ENCODE_ANY | JSON_COMPACT) : rt_xstrdup("");
	c->v[c->n].name = rt_xstrdup(name);
	c->v[c->n].id = runnable(name, cls, jname, suite, &c->v[c->n].why);
	c->v[c->n].pos = pos;
	c->v[c->n].line = w->line;
	c->v[c->n].failed = o == RT_FAIL || o == RT_TIMEOUT;
	c->n++;
	return 0;
}

static int
by_pos(const void *a, const void *b)
{
	const casrec *x = a, *y = b;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

static int
by_name(const void *a, const void *b)
{
	const casrec *x = a, *y = b;
	return strcmp(x->name, y->name);
}

/* The order of a run where the victim failed (else of the first run with
 * the victim): the cases before it, each as the ID the runner selects. A
 * name that maps to no runnable ID is named and left out: passed on, it
 * would make every probe a usage error. */
static void
from_records(list *l, const char *file)
{
	cases c = { 0 };
	rt_jsonl_opts jo = { 0 };
	char *files[1], *vid, *vwhy, *ex = NULL;
	const char *run = NULL;
	long long vpos = 0;
	size_t i, j;
	int failed = 0, mapped = 0, dup;
	casrec *sel;
	size_t nsel = 0;
	int ordered = rt_order_needed(rt_runner_of(B.cli.o.runner));

	files[0] = (char *)file;
	rt_jsonl_loop(1, files, &jo, on_case, &c);
	/* the victim by its own name or by its runnable ID, in either form */
	vid = runnable(B.victim, NULL, NULL, NULL, &vwhy);
	for (i = 0; i < c.n; i++)
		if ((!strcmp(c.v[i].name, B.victim) || (c.v[i].id && vid &&
		    !strcmp(c.v[i].id, vid))) && (!run || (c.v[i].failed && !failed))) {
			run = c.v[i].run;
			vpos = c.v[i].pos;
			failed = c.v[i].failed;
			if (!vid && c.v[i].id)
				vid = rt_xstrdup(c.v[i].id);
		}
	if (!run)
		rt_die("%s: no case record for the victim %s", file, B.victim);
	if (!vid)
		rt_die("-v %s: %s", B.victim, vwhy);
	if (strcmp(vid, B.victim)) {
		note("the victim %s runs as %s, the ID %s selects", B.victim, vid,
		    rt_runner_kind_name(B.cli.o.runner));
		B.victim = B.victim_own = vid;
	} else
		free(vid);
	free(vwhy);
	if (!failed)
		note("%s: the victim failed in no recorded run; its first run's order is used", file);
	sel = rt_xcalloc(c.n ? c.n : 1, sizeof *sel);
	for (i = 0; i < c.n; i++)
		if (strcmp(c.v[i].run, run) == 0 && c.v[i].pos < vpos)
			sel[nsel++] = c.v[i];
	qsort(sel, nsel, sizeof *sel, by_pos);
	if (ordered && failed) {
		/* ordered runs' probes can run any order (rt_order, the runner's driver): the cases
		 * before the victim in every run where it failed, each run's
		 * polluter among them */
		size_t first = nsel, k, fails = 0;
		for (k = 0; k < c.n; k++) {
			if (!c.v[k].failed || strcmp(c.v[k].run, run) == 0 ||
			    !(!strcmp(c.v[k].name, B.victim) || (c.v[k].id &&
			    !strcmp(c.v[k].id, B.victim))))
				continue;
			fails++;
			for (i = 0; i < c.n; i++)
				if (nsel < c.n && !strcmp(c.v[i].run, c.v[k].run) &&
				    c.v[i].pos < c.v[k].pos)
					sel[nsel++] = c.v[i];
		}
		qsort(sel + first, nsel - first, sizeof *sel, by_name);
		if (fails)
			note("%s: the cases before the victim in the %zu runs where it failed, "
			    "that run's first", file, fails + 1);
	}
	for (i = 0; i < nsel; i++) {
		/* a case recorded once per attempt runs once */
		for (dup = 0, j = 0; j < i && !dup; j++)
			dup = !strcmp(sel[j].name, sel[i].name);
		if (dup)
			continue;
		if (!sel[i].id) {
			drop(file, sel[i].line, sel[i].name, sel[i].why, 0);
			continue;
		}
		if (strcmp(sel[i].id, sel[i].name) && !mapped++)
			ex = rt_xasprintf("%s runs as %s", sel[i].name, sel[i].id);
		ladd(l, rt_xstrdup(sel[i].id));
	}
	if (mapped)
		note("%s: %d name%s mapped to the IDs %s selects (%s)", file, mapped,
		    mapped == 1 ? "" : "s", rt_runner_kind_name(B.cli.o.runner), ex);
	free(ex);
	free(sel);
	for (i = 0; i < c.n; i++) {
		free(c.v[i].run);
		free(c.v[i].name);
		free(c.v[i].id);
		free(c.v[i].why);
	}
	free(c.v);
}

/* --- the plan --- */

/* Trials a probe whose victim fails at rate r takes to be judged by
 * judge's rule against the references [hi, lo]: the first n at which the
 * anytime interval of round(r n) failures in n lies above hi (fail) or
 * below lo (pass); the probe's cap when none does. */
static long
trials_to_decide(double r, int fail, double hi, double lo)
{
	rt_interval cs;
	long n;

	for (n = 1; n < B.cap; n++) {
		rt_cs_interval((long)(r * (double)n + 0.5), n, B.conf, 0.5, 0.5, &cs);
		if (fail ? cs.low > hi : cs.high < lo)
			return n;
	}
	return B.cap;
}

/* The plan the ETA is computed from, never the --max-trials cap: base
 * trials (classification, spent or to come), then the search's probes
 * for one dependency among the candidates, each probe's trials from the
 * search's own numbers — ra, the victim's failure rate alone, rf after
 * the full order, judged against the references hi and lo. Group
 * testing probes both halves at each of ceil(log2 N) levels (one half
 * shows the dependency, one does not; --first, expected, half of the
 * second ones), --linear every pair (--first: half of them); then the confirming probe and, for a
 * polluter, the probe of its cleaners. */
static void
plan(long base, long base_probes, double ra, double rf, double hi, double lo)
{
	int pol = B.target != D_PASS;
	long show = trials_to_decide(rf, pol, hi, lo), not = trials_to_decide(ra, !pol, hi, lo);
	long lv = 0, nshow, nnot;

	while ((1L << lv) < B.nids && lv < 62)
		lv++;
	if (B.linear) {
		nnot = B.first ? (B.nids - 1) / 2 : B.nids - 1;
		nshow = 1;
	} else {
		/* --first stops after the half that shows it: 1.5 probes a level */
		nshow = lv;
		nnot = B.first ? lv / 2 : lv;
	}
	nshow++;                     /* the confirming probe */
	if (pol && !B.noclean)
		nshow++;                 /* the cleaners' probe: it still fails */
	B.plan_show = show;
	B.plan_not = not;
	B.plan_probes = base_probes + nshow + nnot;
	B.plan_trials = base + nshow * show + nnot * not;
	if (B.plan_trials > B.max_trials)
		B.plan_trials = B.max_trials;
}

/* The plan before any probe: a victim that passes alone and fails after
 * the full order, each decided in as few trials as the threshold allows. */
static void
plan_first(void)
{
	rt_interval a, f;
	long n;

	for (n = 1; n < B.cap; n++) {
		rt_cs_interval(0, n, B.conf, 0.5, 0.5, &a);
		if (a.high < B.threshold)
			break;
	}
	rt_cs_interval(0, n, B.conf, 0.5, 0.5, &a);
	rt_cs_interval(n, n, B.conf, 0.5, 0.5, &f);
	B.target = D_FAIL;
	B.pass_hi = a.high;
	B.fail_lo = f.low;
	plan(2 * n, 2, 0, 1, a.high, f.low);
}

/* The progress total: the plan, or one more probe past it once it is
 * overrun (more dependencies than one, undecided probes extended). */
static void
progress(long k, long n, const char *extra)
{
	long total = B.plan_trials;

	if (total <= B.used)
		total = B.used + (B.plan_not > 0 ? B.plan_not : 1);
	if (total > B.max_trials)
		total = B.max_trials;
	B.prog.total = total;
	rt_progress_update(&B.prog, B.used, k, n, B.conf, extra);
}

/* --- probes --- */

typedef struct {
	rt_tally t;
	int classify;                /* 0 search, 1 classify, 2 full order, 3 to the cap */
	decision d;
	json_t *others;              /* the other tests that failed in the probe */
	int alone;                   /* the victim alone: runs to the cap when mixed */
	char reason[400];            /* the first error trial's reason */
	char *const *order;          /* the order asked for */
	json_t *ran;                 /* ordered runs: the order the runner really used */
} probe_ctx;

/* The classify rule is rt-measure's --until verdict: both outcomes seen is
 * "mixed"; none failed with the anytime upper bound below T is "pass"; none
 * passed with the lower bound at or above 1 - T is "fail". A search probe
 * is judged against the two references: "fail" once its anytime interval
 * lies above the passing reference's upper bound, "pass" once it lies below
 * the failing reference's lower bound. */
static decision
judge(const rt_tally *t, int classify)
{
	rt_interval cs;

	if (t->trials == 0)
		return D_UNDECIDED;
	rt_cs_interval(t->failures, t->trials, B.conf, 0.5, 0.5, &cs);
	if (classify) {
		if (t->failures > 0 && t->passes > 0)
			return classify == 2 ? D_UNDECIDED : D_MIXED;
		if (t->failures == 0 && cs.high < B.threshold)
			return D_PASS;
		if (t->passes == 0 && cs.low >= 1 - B.threshold)
			return D_FAIL;
		return D_UNDECIDED;
	}
	{
		/* lib/rt_ddmin's rule, the one rt-diagnose's probes use too */
		rt_ddmin_refs r = { 1, B.pass_hi, B.fail_lo, B.conf };
		int v = rt_ddmin_step(&r, t->failures, t->trials, LONG_MAX);
		return v == 1 ? D_PASS : v == 0 ? D_FAIL : D_UNDECIDED;
	}
}

static json_t *strings(char *const *v);

/* The victim's own outcome in the trial: from the runner's report of
 * every case (rt_cases), never from the command's exit status, unless
 * the runner gives no report (then the probes say so: "judged_by"). */
static rt_outcome
victim_outcome(const rt_trial_result *res, probe_ctx *p, char *why, size_t size)
{
	rt_case_set set;
	rt_outcome oc;
	json_t *others, *x;
	size_t i, j;

	memset(&set, 0, sizeof set);
	why[0] = '\0';
	if (rt_cases_trial(&B.jdir, &B.cli.o, res, NULL, NULL, &set) < 0) {
		if (!B.cli.o.cases_auto && !set.refused &&
		    !strncmp(set.error, "no JUnit report", 15)) {
			if (!B.by_exit++)
				note("the command wrote no per-case report to $RETRIAL_JUNIT and "
				    "%s has no report option retrial can add: the probes are "
				    "judged by the command's exit status",
				    rt_runner_kind_name(B.cli.o.runner));
			rt_case_set_free(&set);
			return res->outcome;
		}
		if (res->outcome == RT_ERROR || res->outcome == RT_TIMEOUT) {
			rt_case_set_free(&set);
			return res->outcome;
		}
		{
			char *m = rt_xasprintf("trial %ld: %s", res->trial, set.error);
			snprintf(why, size, "%s", m);
			free(m);
		}
		rt_case_set_free(&set);
		return RT_ERROR;
	}
	if (B.ord) {
		/* the order the runner really used: another is an error, never
		 * evidence */
		json_t *ran = rt_order_ran(B.ord, res->out.data);
		rt_order_map(B.ord, &set);
		if (!rt_order_same(B.ord, ran, p->order) && res->outcome != RT_ERROR &&
		    res->outcome != RT_TIMEOUT) {
			char *got = json_dumps(ran, JSON_COMPACT);
			json_t *want = strings(p->order);
			char *asked = json_dumps(want, JSON_COMPACT);
			snprintf(why, size, "trial %ld: the runner ran %s, not the order asked "
			    "for %s", res->trial, got, asked);
			free(got);
			free(asked);
			json_decref(want);
			json_decref(p->ran);
			p->ran = ran;
			rt_case_set_free(&set);
			return RT_ERROR;
		}
		if (!p->ran)
			p->ran = ran;
		else
			json_decref(ran);
	}
	if (res->outcome == RT_ERROR || res->outcome == RT_TIMEOUT)
		oc = res->outcome;
	else
		oc = rt_cases_judge(&set, B.victim, res->trial, why, size);
	others = rt_cases_others_failed(&set, B.victim);
	json_array_foreach(others, i, x) {
		int dup = 0;
		json_t *y;
		json_array_foreach(p->others, j, y)
			dup |= json_equal(x, y);
		if (!dup)
			json_array_append(p->others, x);
	}
	json_decref(others);
	rt_case_set_free(&set);
	return oc;
}

static int
on_trial(const rt_trial_result *res, void *ctx)
{
	probe_ctx *p = ctx;
	char extra[160], why[400];
	rt_outcome oc = victim_outcome(res, p, why, sizeof why);

	rt_tally_add(&p->t, oc);
	B.used++;
	if (oc == RT_ERROR && !p->reason[0]) {
		if (why[0])
			snprintf(p->reason, sizeof p->reason, "%s", why);
		else
			rt_error_reason(p->reason, sizeof p->reason, res->trial, res->error,
			    res->err.data);
	}
	if (oc == RT_ERROR && !B.reason[0])
		snprintf(B.reason, sizeof B.reason, "%s", p->reason);
	snprintf(extra, sizeof extra, "probe %zu \xc2\xb7 %s", json_array_size(B.probes) + 1,
	    B.phase);
	progress(p->t.failures, p->t.trials, extra);
	/* the victim did not run: three times with no judged trial is an
	 * error probe, never a failure */
	if (p->t.trials == 0 && p->t.errors >= 3)
		return RT_STOP;
	if (p->classify == 3)
		return RT_GO_ON;
	p->d = judge(&p->t, p->classify);
	/* the victim alone both passed and failed: its own rate is measured
	 * to the probe's cap, for the two-sample comparison */
	if (p->d == D_MIXED && p->alone) {
		p->classify = 3;
		/* the victim alone and the full order now run to the cap */
		plan(2 * B.cap, 2, 0, 1, B.pass_hi, B.fail_lo);
		return RT_GO_ON;
	}
	if (p->d != D_UNDECIDED)
		return RT_STOP;
	return RT_GO_ON;
}

static uint64_t
order_key(char *const *order)
{
	uint64_t h = 1469598103934665603ULL;
	const unsigned char *s;

	for (; *order; order++) {
		for (s = (const unsigned char *)*order; *s; s++)
			h = (h ^ *s) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL;
	}
	return rt_mix64(h);
}

static json_t *
strings(char *const *v)
{
	json_t *a = json_array();

	for (; v && *v; v++)
		json_array_append_new(a, json_string(*v));
	return a;
}

/* Run the ordered list (its last element the victim) until the rule
 * decides or the probe's cap; record it in "probes". */
static decision
probe(char *const *order, const char *role, int classify, int fresh)
{
	rt_trial_opts o = B.cli.o;
	list argv = { 0 };
	char *driver[2] = { NULL, NULL };
	char *const *ids = order;
	probe_ctx p;
	rt_interval cs;
	json_t *rec, *iv;
	long count, before;
	uint64_t key = order_key(order);
	size_t i;
	int k;

	if (B.sig || B.budget_out)
		return D_STOPPED;
	if (!classify && !fresh)
		for (i = 0; i < B.nmemo; i++)
			if (B.memo[i].key == key)
				return B.memo[i].d;
	if (B.used >= B.max_trials) {
		B.budget_out = 1;
		return D_STOPPED;
	}
	if (B.ord) {
		char why[400];
		/* the runner cannot run the tests in this order: its driver runs them in
		 * this one, and the command is given the driver's ID */
		if (rt_order_write(B.ord, order, why, sizeof why) < 0)
			rt_die("the ordered run's driver: %s", why);
		driver[0] = (char *)rt_order_selector(B.ord);
		o.cwd = rt_order_cwd(B.ord);
	}
	if (B.cli.cmd) {
		o.shell_args = B.ord ? driver : order;
	} else {
		int braces = 0;
		if (B.ord)
			ids = driver;
		for (k = 0; B.cli.argv[k]; k++)
			if (strcmp(B.cli.argv[k], "{}") == 0) {
				for (i = 0; ids[i]; i++)
					ladd(&argv, ids[i]);
				braces = 1;
			} else
				ladd(&argv, B.cli.argv[k]);
		if (!braces)
			for (i = 0; ids[i]; i++)
				ladd(&argv, ids[i]);
		o.argv = argv.v;
	}
	memset(&p, 0, sizeof p);
	p.classify = classify;
	p.d = D_UNDECIDED;
	p.others = json_array();
	p.alone = strcmp(role, "alone") == 0;
	p.order = order;
	count = B.cap;
	if (count > B.max_trials - B.used)
		count = B.max_trials - B.used;
	before = B.used;
	B.sig = rt_run_trials(&o, B.trialno + 1, count, 1, on_trial, &p);
	B.trialno += B.used - before;
	free(argv.v);
	if (p.t.trials == 0 && p.t.errors > 0 && classify)
		rt_die("the command could not run: %s", p.reason);
	if (p.t.trials == 0 && p.t.errors > 0)
		p.d = D_ERROR;
	else if (classify == 3)
		p.d = judge(&p.t, 1);
	if (p.d == D_UNDECIDED && !B.sig && B.used >= B.max_trials)
		B.budget_out = 1;
	if (p.d == D_UNDECIDED && classify && p.t.failures > 0 && p.t.passes > 0)
		p.d = D_MIXED;
	rt_cs_interval(p.t.failures, p.t.trials, B.conf, 0.5, 0.5, &cs);
	rec = json_object();
	json_object_set_new(rec, "order", strings(order));
	if (p.ran)
		json_object_set_new(rec, "ran", p.ran);
	json_object_set_new(rec, "role", json_string(role));
	json_object_set_new(rec, "trials", json_integer(p.t.trials));
	json_object_set_new(rec, "failures", json_integer(p.t.failures));
	if (p.t.errors || p.t.ignored) {
		json_object_set_new(rec, "errors", json_integer(p.t.errors));
		json_object_set_new(rec, "ignored", json_integer(p.t.ignored));
	}
	iv = json_array();
	json_array_append_new(iv, rt_json_real6(cs.low));
	json_array_append_new(iv, rt_json_real6(cs.high));
	json_object_set_new(rec, "interval", iv);
	if (B.sig)
		p.d = D_STOPPED;
	json_object_set_new(rec, "decision", json_string(dname[p.d]));
	json_object_set_new(rec, "others_failed", p.others);
	if (p.reason[0])
		json_object_set_new(rec, "error", json_string(p.reason));
	if (p.d == D_ERROR)
		note("probe %zu: the victim did not run, so the probe is an error, not a "
		    "failure: %s", json_array_size(B.probes) + 1, p.reason);
	json_array_append_new(B.probes, rec);
	if (!classify && p.d != D_STOPPED) {
		if (B.nmemo == B.capmemo) {
			B.capmemo = B.capmemo ? B.capmemo * 2 : 64;
			B.memo = rt_xrealloc(B.memo, B.capmemo * sizeof *B.memo);
		}
		B.memo[B.nmemo].key = key;
		B.memo[B.nmemo++].d = p.d;
	}
	return p.d;
}

/* A probe of prefix + the candidates idx[0..n) + the victim: does it show
 * the dependency (target)? */
static int
shows(const list *prefix, const int *idx, int n, decision target, const char *role,
    int fresh)
{
	list order = { 0 };
	int i;
	decision d;

	for (i = 0; i < prefix->n; i++)
		ladd(&order, prefix->v[i]);
	for (i = 0; i < n; i++)
		ladd(&order, B.ids[idx[i]]);
	ladd(&order, (char *)B.victim);
	d = probe(order.v, role, 0, fresh);
	free(order.v);
	if (d == D_UNDECIDED || d == D_ERROR)
		B.undecided++;
	return d == target;
}

/* Tests a probe could not decide on (it stayed undecided to its cap, or
 * the victim did not run): never read as a pass, they are reported in
 * "inconclusive" with the probe. */
static void
undecided(const int *idx, int n, const char *reason)
{
	json_t *c = json_object(), *t = json_array();
	int j;

	for (j = 0; j < n; j++)
		json_array_append_new(t, json_string(B.ids[idx[j]]));
	json_object_set_new(c, "claim", json_string(B.what));
	json_object_set_new(c, "tests", t);
	json_object_set_new(c, "reason", json_string(reason));
	json_object_set_new(c, "probe", json_integer((json_int_t)json_array_size(B.probes) - 1));
	json_array_append_new(B.incon, c);
}

typedef struct {
	int *idx;
	int n;
} set;

typedef struct {
	set *v;
	int n, cap;
} sets;

static void
sets_add(sets *s, const int *idx, int n)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->v = rt_xrealloc(s->v, (size_t)s->cap * sizeof *s->v);
	}
	s->v[s->n].idx = rt_xmalloc((size_t)(n ? n : 1) * sizeof(int));
	memcpy(s->v[s->n].idx, idx, (size_t)n * sizeof(int));
	s->v[s->n++].n = n;
}

/* ddmin (Zeller and Hildebrandt): a 1-minimal subset of g[0..n), which is
 * known to show the dependency. Returns its size, g rewritten in place. */
static int
ddmin(const list *prefix, int *g, int n, decision target)
{
	int parts = 2, i, j, lo, hi, m, *sub = rt_xmalloc((size_t)n * sizeof(int));
	int reduced;

	while (n >= 2 && !B.sig && !B.budget_out) {
		reduced = 0;
		for (i = 0; i < parts && !reduced; i++) {
			lo = (int)((long)n * i / parts);
			hi = (int)((long)n * (i + 1) / parts);
			if (shows(prefix, g + lo, hi - lo, target, "ddmin", 0)) {
				memmove(g, g + lo, (size_t)(hi - lo) * sizeof(int));
				n = hi - lo;
				parts = 2;
				reduced = 1;
			}
		}
		for (i = 0; i < parts && !reduced && parts > 2; i++) {
			lo = (int)((long)n * i / parts);
			hi = (int)((long)n * (i + 1) / parts);
			for (m = 0, j = 0; j < n; j++)
				if (j < lo || j >= hi)
					sub[m++] = g[j];
			if (shows(prefix, sub, m, target, "ddmin", 0)) {
				memcpy(g, sub, (size_t)m * sizeof(int));
				n = m;
				parts = parts - 1 > 2 ? parts - 1 : 2;
				reduced = 1;
			}
		}
		if (!reduced) {
			if (parts >= n)
				break;
			parts = parts * 2 < n ? parts * 2 : n;
		}
	}
	free(sub);
	return n;
}

/* Group testing: g[0..n) is known to show the dependency. Split it in
 * halves and probe each; a half that shows it is split again down to one
 * test. When neither half does, the dependency needs tests from both:
 * ddmin finds a minimal set. */
static void
find(const list *prefix, int *g, int n, decision target, sets *out)
{
	int h = n / 2, a, b = 0;

	if (B.sig || B.budget_out || B.stop)
		return;
	if (n == 1) {
		sets_add(out, g, 1);
		if (B.first)
			B.stop = 1;
		return;
	}
	long u0 = B.undecided, ua, ub;

	a = shows(prefix, g, h, target, "search", 0);
	ua = B.undecided - u0;
	if (ua && !B.sig && !B.budget_out)
		undecided(g, h, "the probe of these tests stayed undecided: they "
		    "were not searched further, and none is cleared");
	if (a)
		find(prefix, g, h, target, out);
	if (B.stop || B.sig || B.budget_out)
		return;
	u0 = B.undecided;
	b = shows(prefix, g + h, n - h, target, "search", 0);
	ub = B.undecided - u0;
	if (ub && !B.sig && !B.budget_out)
		undecided(g + h, n - h, "the probe of these tests stayed undecided: "
		    "they were not searched further, and none is cleared");
	if (b)
		find(prefix, g + h, n - h, target, out);
	/* neither half alone: a set that needs both, unless a half was
	 * undecided (then it may hold the dependency on its own) */
	if (!a && !b && !ua && !ub && !B.sig && !B.budget_out) {
		int *c = rt_xmalloc((size_t)n * sizeof(int)), m;
		memcpy(c, g, (size_t)n * sizeof(int));
		u0 = B.undecided;
		m = ddmin(prefix, c, n, target);
		if (!B.sig && !B.budget_out && B.undecided > u0)
			undecided(c, m, "a probe of a subset stayed undecided, so the "
			    "set is not shown minimal: no claim");
		else if (!B.sig && !B.budget_out) {
			sets_add(out, c, m);
			if (B.first)
				B.stop = 1;
		}
		free(c);
	}
}

/* What iDFlakies does: every candidate in its own pair with the victim. */
static void
scan(const list *prefix, int *g, int n, decision target, sets *out)
{
	int i;

	long u0;

	for (i = 0; i < n && !B.sig && !B.budget_out && !B.stop; i++) {
		u0 = B.undecided;
		if (shows(prefix, g + i, 1, target, "search", 0)) {
			sets_add(out, g + i, 1);
			if (B.first)
				B.stop = 1;
		} else if (B.undecided > u0 && !B.sig && !B.budget_out)
			undecided(g + i, 1, "its pair's probe stayed undecided: not cleared");
	}
}

/* Search g for what shows target after prefix; confirm each set found by
 * a fresh probe. Confirmed sets go to *ok; contradicted ones are noted. */
static void
search(const list *prefix, int *g, int n, decision target, const char *what,
    sets *ok, json_t *inconclusive)
{
	sets found = { 0 };
	int i;

	B.stop = 0;
	B.what = what;
	B.incon = inconclusive;
	if (B.linear)
		scan(prefix, g, n, target, &found);
	else
		find(prefix, g, n, target, &found);
	for (i = 0; i < found.n; i++) {
		long u0 = B.undecided;
		if (shows(prefix, found.v[i].idx, found.v[i].n, target, "confirm", 1))
			sets_add(ok, found.v[i].idx, found.v[i].n);
		else if (!B.sig && !B.budget_out)
			undecided(found.v[i].idx, found.v[i].n, B.undecided > u0 ?
			    "found by search, but its confirmation stayed undecided" :
			    "found by search, but contradicted by its confirmation");
		free(found.v[i].idx);
	}
	free(found.v);
}

/* A probe's failure rate. */
static double
rate_of(json_t *p)
{
	long n = (long)json_integer_value(json_object_get(p, "trials"));

	return n ? (double)json_integer_value(json_object_get(p, "failures")) / (double)n : 0;
}

static void
interval_of(json_t *p, rt_interval *iv)
{
	rt_cs_interval((long)json_integer_value(json_object_get(p, "failures")),
	    (long)json_integer_value(json_object_get(p, "trials")), B.conf, 0.5, 0.5, iv);
}

/* The victim alone both passed and failed. The full order runs to the
 * cap too, and the two rates are compared by a two-sample anytime-valid
 * rule: each probe's anytime confidence sequence at 1 - (1 - C)/2, so
 * both hold at once with confidence C; disjoint, the rates differ. The
 * search then judges every probe against the two: a noisy victim. */
static decision
classify_noisy(char *const *full_order, json_t *pa, const char **category)
{
	double c2 = 1 - (1 - B.conf) / 2;
	long ka, na, kf, nf;
	rt_interval ia, ifu;
	json_t *pf;
	decision full;

	B.phase = "the full order";
	full = probe(full_order, "full", 3, 1);
	pf = json_array_get(B.probes, json_array_size(B.probes) - 1);
	ka = (long)json_integer_value(json_object_get(pa, "failures"));
	na = (long)json_integer_value(json_object_get(pa, "trials"));
	kf = (long)json_integer_value(json_object_get(pf, "failures"));
	nf = (long)json_integer_value(json_object_get(pf, "trials"));
	if (full == D_STOPPED) {
		*category = "unknown";
		return D_UNDECIDED;
	}
	rt_cs_interval(ka, na, c2, 0.5, 0.5, &ia);
	rt_cs_interval(kf, nf, c2, 0.5, 0.5, &ifu);
	if (ifu.low > ia.high || ifu.high < ia.low) {
		int pol = ifu.low > ia.high;
		B.noisy = 1;
		B.pass_hi = pol ? ia.high : ifu.high;
		B.fail_lo = pol ? ifu.low : ia.low;
		*category = pol ? "victim" : "brittle";
		note("the victim is noisy on its own (alone it failed %ld of %ld times) "
		    "but %s after the full order (%ld of %ld; the two anytime %g%% "
		    "sequences are disjoint): it is searched against its own rate",
		    ka, na, pol ? "fails more" : "fails less", kf, nf, c2 * 100);
		return pol ? D_FAIL : D_PASS;
	}
	*category = "nod";
	note("the victim alone both passed and failed (%ld of %ld), and after the "
	    "full order (%ld of %ld) it cannot be told from that: its flakiness does "
	    "not need another test, so no polluter or setter is claimed", ka, na, kf, nf);
	return D_UNDECIDED;
}

/* Classify: the victim alone, then the full order. Returns the
 * dependency to search for (D_FAIL: polluters, D_PASS: state-setters),
 * with the two references set, or D_UNDECIDED when there is none. */
static decision
classify(char *const *full_order, const char **category)
{
	char *alone_order[2] = { (char *)B.victim, NULL };
	decision alone, full;
	rt_interval ia, ifu;
	json_t *pa, *pf;
	long long k, n;

	B.phase = "the victim alone";
	alone = probe(alone_order, "alone", 1, 1);
	pa = json_array_get(B.probes, 0);
	if (alone == D_MIXED)
		return classify_noisy(full_order, pa, category);
	if (alone == D_UNDECIDED)
		note("the victim alone neither passed nor failed reliably within %ld trials", B.cap);
	if (alone != D_PASS && alone != D_FAIL)
		return D_UNDECIDED;
	/* the full order is not cut short when mixed: a noisy order that
	 * still stands apart from the victim alone can be searched */
	B.phase = "the full order";
	full = probe(full_order, "full", 2, 1);
	pf = json_array_get(B.probes, 1);
	if (full == D_STOPPED)
		return D_UNDECIDED;
	interval_of(pa, &ia);
	interval_of(pf, &ifu);
	if (full == alone) {
		note("the full order of %d test%s %s like the victim alone: no order "
		    "dependence shown", B.nids, B.nids == 1 ? "" : "s",
		    alone == D_PASS ? "passes" : "fails");
		return D_UNDECIDED;
	}
	if (full != D_FAIL && full != D_PASS) {
		if ((alone == D_PASS && !(ifu.low > ia.high)) ||
		    (alone == D_FAIL && !(ifu.high < ia.low))) {
			note("the full order does not %s reliably enough to tell it from the "
			    "victim alone, so it was not searched", alone == D_PASS ? "fail" : "pass");
			return D_UNDECIDED;
		}
		k = (long long)json_integer_value(json_object_get(pf, "failures"));
		n = (long long)json_integer_value(json_object_get(pf, "trials"));
		note("the full order %s only %lld of %lld times: it is noisy, so "
		    "probes take more trials and may stay undecided",
		    alone == D_PASS ? "failed" : "passed", alone == D_PASS ? k : n - k, n);
	}
	B.pass_hi = alone == D_PASS ? ia.high : ifu.high;
	B.fail_lo = alone == D_PASS ? ifu.low : ia.low;
	*category = alone == D_PASS ? "victim" : "brittle";
	return alone == D_PASS ? D_FAIL : D_PASS;
}

/* --- the record --- */

static json_t *
set_json(const set *s)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < s->n; i++)
		json_array_append_new(a, json_string(B.ids[s->idx[i]]));
	return a;
}

static char *
set_key(const set *s)
{
	rt_buf b = { 0 };
	char *r;
	int i;

	for (i = 0; i < s->n; i++) {
		if (i)
			rt_buf_adds(&b, " + ");
		rt_buf_adds(&b, B.ids[s->idx[i]]);
	}
	r = rt_xstrdup(rt_buf_str(&b));
	rt_buf_free(&b);
	return r;
}

static void
union_json(json_t *flat, json_t *grouped, const sets *s)
{
	int i, j;
	size_t k;
	json_t *x;

	for (i = 0; i < s->n; i++) {
		json_array_append_new(grouped, set_json(&s->v[i]));
		for (j = 0; j < s->v[i].n; j++) {
			const char *id = B.ids[s->v[i].idx[j]];
			int dup = 0;
			json_array_foreach(flat, k, x)
				if (strcmp(json_string_value(x), id) == 0)
					dup = 1;
			if (!dup)
				json_array_append_new(flat, json_string(id));
		}
	}
}

/* "4/4 failed (≥47.2% at 95% confidence, anytime)": the interval the
 * probe was judged by, through lib/rt_say. */
static const char *
probe_counts(json_t *p, char *buf, size_t size)
{
	json_t *iv = json_object_get(p, "interval");
	rt_interval cs = { json_number_value(json_array_get(iv, 0)),
	    json_number_value(json_array_get(iv, 1)), 0, 0 };

	rt_say_count_iv(buf, size, (long)json_integer_value(json_object_get(p, "failures")),
	    (long)json_integer_value(json_object_get(p, "trials")), B.conf, "failed", &cs,
	    "anytime", NULL);
	return buf;
}

/* The confirming probe of an order: the last one with that order. */
static json_t *
probe_of(json_t *order)
{
	size_t i = json_array_size(B.probes);
	json_t *p;

	while (i-- > 0) {
		p = json_array_get(B.probes, i);
		if (json_equal(json_object_get(p, "order"), order))
			return p;
	}
	return NULL;
}

/* Record text (a test ID, a note naming one) for a person: before, s
 * with its control characters made visible, after. */
static void
put_visible(FILE *f, const char *before, const char *s, const char *after)
{
	char *v = rt_visible(s);

	fprintf(f, "%s%s%s", before, v, after);
	free(v);
}

static void
print_claims(FILE *f, json_t *rec, const char *key, const char *label)
{
	json_t *sets_ = json_object_get(rec, key), *s, *order, *p;
	size_t i, j;
	char buf[200];

	json_array_foreach(sets_, i, s) {
		order = json_deep_copy(s);
		json_array_append_new(order, json_string(B.victim));
		p = probe_of(order);
		fprintf(f, "%s:", label);
		for (j = 0; j < json_array_size(s); j++)
			put_visible(f, " ", json_string_value(json_array_get(s, j)), "");
		if (p)
			fprintf(f, " (then the victim: %s)", probe_counts(p, buf, sizeof buf));
		fputc('\n', f);
		json_decref(order);
	}
}

static void
print_text(FILE *f, json_t *rec)
{
	const char *cat = json_string_value(json_object_get(rec, "category"));
	json_t *p = json_array_get(B.probes, 0), *x, *cl;
	const char *key;
	size_t i;
	char buf[200];

	put_visible(f, "", B.victim, ": ");
	fputs(cat, f);
	if (p)
		fprintf(f, " (alone: %s)", probe_counts(p, buf, sizeof buf));
	fputc('\n', f);
	print_claims(f, rec, "polluter_sets", "polluter");
	print_claims(f, rec, "setter_sets", "state-setter");
	json_object_foreach(json_object_get(rec, "cleaners"), key, cl)
		json_array_foreach(cl, i, x) {
			put_visible(f, "cleaner of ", key, ": ");
			put_visible(f, "", json_string_value(x), "\n");
		}
	json_array_foreach(json_object_get(rec, "inconclusive"), i, x) {
		size_t j;
		fprintf(f, "inconclusive (%s):", json_string_value(json_object_get(x, "claim")));
		for (j = 0; j < json_array_size(json_object_get(x, "tests")); j++)
			put_visible(f, " ", json_string_value(json_array_get(
			    json_object_get(x, "tests"), j)), "");
		put_visible(f, ": ", json_string_value(json_object_get(x, "reason")), "\n");
	}
	json_array_foreach(B.dropped, i, x) {
		put_visible(f, "left out: ", json_string_value(json_object_get(x, "id")), " (");
		put_visible(f, "", json_string_value(json_object_get(x, "reason")), ")\n");
	}
	json_array_foreach(B.notes, i, x)
		put_visible(f, "note: ", json_string_value(x), "\n");
	fprintf(f, "%zu probes, %ld trials, %.1f s%s\n", json_array_size(B.probes),
	    (long)json_integer_value(json_object_get(rec, "trials")),
	    json_real_value(json_object_get(rec, "elapsed_s")),
	    json_is_true(json_object_get(rec, "interrupted")) ? ", interrupted" : "");
}

/* Cleaners of the polluter set p: among the candidates in no polluter
 * set, those that make "p, cleaner, victim" pass; into clean[key of p]. */
static void
cleaners_of(const set *p, const sets *found, json_t *clean, json_t *incon)
{
	list pre = { 0 };
	sets cleaners = { 0 };
	int *rest = rt_xmalloc((size_t)B.nids * sizeof(int)), nrest = 0, i, j, s, in;
	json_t *cl = json_array(), *cs;
	char *key = set_key(p), *ck;

	for (j = 0; j < p->n; j++)
		ladd(&pre, B.ids[p->idx[j]]);
	for (j = 0; j < B.nids; j++) {
		for (in = 0, s = 0; s < found->n; s++)
			for (i = 0; i < found->v[s].n; i++)
				in |= found->v[s].idx[i] == j;
		if (!in)
			rest[nrest++] = j;
	}
	B.phase = "cleaners";
	if (nrest > 0 && shows(&pre, rest, nrest, D_PASS, "cleaners", 0))
		search(&pre, rest, nrest, D_PASS, "cleaner", &cleaners, incon);
	else if (nrest > 0 && !B.sig && !B.budget_out)
		note("no cleaner of %s: the other %d tests, run between it and the "
		    "victim, did not make the victim pass reliably", key, nrest);
	for (s = 0; s < cleaners.n; s++) {
		cs = set_json(&cleaners.v[s]);
		if (cleaners.v[s].n == 1)
			json_array_append(cl, json_array_get(cs, 0));
		else {
			ck = set_key(&cleaners.v[s]);
			note("the cleaners %s of %s work only together", ck, key);
			free(ck);
		}
		json_decref(cs);
		free(cleaners.v[s].idx);
	}
	json_object_set_new(clean, key, cl);
	free(cleaners.v);
	free(key);
	free(rest);
	free(pre.v);
}

static void
read_candidates(const char *file, const char *collect, const char *records, int before)
{
	list l = { 0 };
	int i, seen = 0, after = 0;
	char *text;
	const char *src = file ? file : collect ? "--collect" : records;

	if (file) {
		if (!(text = rt_read_file(file, NULL)))
			rt_die("%s:", file);
		add_lines(&l, text, file, 0);
		free(text);
	} else if (collect)
		from_collect(&l, collect);
	else
		from_records(&l, records);
	B.ids = rt_xcalloc((size_t)l.n + 1, sizeof *B.ids);
	for (i = 0; i < l.n; i++) {
		if (strcmp(l.v[i], B.victim) == 0) {
			seen = 1;
			free(l.v[i]);
			continue;
		}
		if (before && seen) {
			drop(src, 0, l.v[i], "listed after the victim (--before)", 1);
			after++;
			free(l.v[i]);
			continue;
		}
		{
			int k, dup = 0;
			for (k = 0; k < B.nids && !dup; k++)
				dup = strcmp(B.ids[k], l.v[i]) == 0;
			if (dup) {
				drop(src, 0, l.v[i], "listed twice: it runs once", 0);
				free(l.v[i]);
				continue;
			}
		}
		if (*l.v[i] == '-' && !B.ids_safe) {
			drop(src, 0, l.v[i], OPTION_REASON, 0);
			free(l.v[i]);
			continue;
		}
		if (*l.v[i] == '-')
			note("%s starts with '-': it goes after the command's own --, as "
			    "an operand, never an option", l.v[i]);
		B.ids[B.nids++] = l.v[i];
	}
	free(l.v);
	if (before && !seen)
		rt_die("--before: the victim %s is not among the candidates", B.victim);
	if (after)
		rt_warn("--before: %d candidate%s listed after the victim left out (the "
		    "record's \"dropped\" names them)", after, after == 1 ? "" : "s");
	if (B.nids == 0)
		rt_die("no candidate tests besides the victim");
}

/* A runner whose command line cannot set the order of its tests (go test,
 * rspec, mocha: rt_order): every probe runs the runner's driver, which runs
 * the tests in the probe's order. Candidates it cannot run beside the
 * victim are left out. */
static void
ordered_runs(void)
{
	char why[600];
	int i, k;

	const rt_runner *r = rt_runner_of(B.cli.o.runner);

	if (!(B.ord = rt_order_open(r, B.cli.o.cwd, B.victim, why, sizeof why)))
		rt_die("%s: %s", rt_order_cannot(r), why);
	for (i = k = 0; i < B.nids; i++) {
		if (!rt_order_member(B.ord, B.ids[i], why, sizeof why)) {
			drop("candidates", 0, B.ids[i], why, 0);
			free(B.ids[i]);
			continue;
		}
		B.ids[k++] = B.ids[i];
	}
	B.nids = k;
	B.ids[k] = NULL;
	if (B.nids == 0)
		rt_die("no candidate tests besides the victim that its ordered runs can "
		    "run (%s)", rt_order_where(B.ord));
	note(rt_order_how(B.ord), rt_order_selector(B.ord), rt_order_where(B.ord));
}

int
main(int argc, char *argv[])
{
	const char *file = NULL, *collect = NULL, *records = NULL, *out = NULL;
	const char *category = "unknown";
	int text = 0, before = 0, ch, i, nsrc, broken = 0, *all;
	double t0;
	list empty = { 0 }, order = { 0 };
	sets found = { 0 };
	json_t *rec, *pflat, *pset, *sflat, *sset, *clean, *incon;

	rt_setprogname(argv[0]);
	rt_secret_protect();
	rt_trial_cli_init(&B.cli);
	B.conf = 0.95;
	B.threshold = 0.10;
	B.cap = 60;
	B.max_trials = 2000;
	opterr = 0;
	rt_config_apply("rt-bisect", longopts, &argc, &argv);
	while ((ch = getopt_long(argc, argv, SHORTOPTS, longopts, NULL)) != -1) {
		if (rt_trial_cli_opt(&B.cli, ch, optarg))
			continue;
		switch (ch) {
		case 'v':
			B.victim = optarg;
			break;
		case 'f':
			file = optarg;
			break;
		case OPT_COLLECT:
			collect = optarg;
			break;
		case OPT_RECORDS:
			records = optarg;
			break;
		case OPT_BEFORE:
			before = 1;
			break;
		case 'n':
			B.cap = rt_num_long("-n", optarg, 1, 100000000);
			break;
		case OPT_MAXTRIALS:
			B.max_trials = rt_num_long("--max-trials", optarg, 1, 1000000000);
			break;
		case OPT_CONF:
			B.conf = rt_num_double("--confidence", optarg, 0, 1, 1, 1);
			break;
		case OPT_THRESH:
			B.threshold = rt_num_double("--threshold", optarg, 0, 0.5, 1, 1);
			break;
		case OPT_FIRST:
			B.first = 1;
			break;
		case OPT_NOCLEAN:
			B.noclean = 1;
			break;
		case OPT_LINEAR:
			B.linear = 1;
			break;
		case OPT_TEXT:
			text = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case RT_OPT_LIST_OPTIONS: return rt_cli_list_options(longopts);
		case 'h':
			usage(stdout);
			rt_trial_cli_free(&B.cli);
			rt_fshut(stdout, "stdout");
			return 0;
		case 'V':
			rt_trial_cli_free(&B.cli);
			rt_print_version();
			return 0;
		default:
			rt_bad_option(ch, SHORTOPTS, argv);
		}
	}
	if (!B.victim)
		rt_usage_die("no victim: give -v ID");
	if (!*B.victim)
		rt_usage_die("-v: empty test ID");
	nsrc = (file != NULL) + (collect != NULL) + (records != NULL);
	if (nsrc != 1)
		rt_usage_die(nsrc ? "-f, --collect and --records are exclusive" :
		    "no candidates: give -f FILE, --collect CMD or --records FILE");
	if (records && before)
		rt_usage_die("--records already keeps the cases before the victim; --before is for -f and --collect");
	rt_trial_cli_finish(&B.cli, argc, argv, optind, 1);
	B.ids_safe = ids_after_dashdash();
	{
		/* the victim's own outcome: pytest and go test are asked for
		 * their report of every case; any other command may write
		 * $RETRIAL_JUNIT itself, else its exit status judges */
		char why[200];
		(void)rt_cases_auto(&B.cli.o, why, sizeof why);
		B.jdirname = rt_cases_dir_make(&B.jdir);
		B.cli.o.junit_dir = B.jdirname;
		atexit(jdir_cleanup);
	}
	if (*B.victim == '-' && !B.ids_safe)
		rt_usage_die("-v %s: %s", B.victim, OPTION_REASON);
	B.probes = json_array();
	B.notes = json_array();
	B.dropped = json_array();
	t0 = rt_now_ms();
	rt_trial_signals_install();
	read_candidates(file, collect, records, before);
	if (rt_order_needed(rt_runner_of(B.cli.o.runner)))
		ordered_runs();
	plan_first();
	rt_progress_init(&B.prog, B.plan_trials);

	pflat = json_array(), pset = json_array(), sflat = json_array(), sset = json_array();
	clean = json_object(), incon = json_array();
	all = rt_xmalloc((size_t)B.nids * sizeof(int));
	for (i = 0; i < B.nids; i++)
		all[i] = i;

	for (i = 0; i < B.nids; i++)
		ladd(&order, B.ids[i]);
	ladd(&order, (char *)B.victim);
	B.target = classify(order.v, &category);
	if (B.target != D_UNDECIDED) {
		int pol = B.target == D_FAIL;
		json_t *pa = json_array_get(B.probes, 0), *pf = json_array_get(B.probes, 1);
		plan(B.used, (long)json_array_size(B.probes), rate_of(pa), rate_of(pf),
		    B.pass_hi, B.fail_lo);
		B.phase = pol ? "polluters" : "state-setters";
		search(&empty, all, B.nids, B.target, pol ? "polluter" : "setter", &found, incon);
		union_json(pol ? pflat : sflat, pol ? pset : sset, &found);
		if (found.n == 0 && !B.sig && !B.budget_out)
			note("no %s was confirmed: the tests that made the full order %s act "
			    "only in ways the probes did not reproduce (state across processes?)",
			    pol ? "polluter" : "state-setter", pol ? "fail" : "pass");
		for (i = 0; pol && !B.noclean && i < found.n; i++)
			cleaners_of(&found.v[i], &found, clean, incon);
	}
	else {
		B.plan_probes = (long)json_array_size(B.probes);
		B.plan_trials = B.used;
	}
	if (B.budget_out)
		note("the budget of %ld trials ran out before the search finished: "
		    "what is claimed is confirmed, but more may exist", B.max_trials);
	if (B.stop && B.first)
		note("--first: the search stopped at the first minimal set");

	rt_progress_clear(&B.prog);
	rec = json_object();
	json_object_set_new(rec, "type", json_string("order"));
	json_object_set_new(rec, "victim", json_string(B.victim));
	json_object_set_new(rec, "command", json_string(B.cli.command));
	json_object_set_new(rec, "category", json_string(category));
	json_object_set_new(rec, "candidates", json_integer(B.nids));
	json_object_set_new(rec, "dropped", B.dropped);
	json_object_set_new(rec, "polluters", pflat);
	json_object_set_new(rec, "polluter_sets", pset);
	json_object_set_new(rec, "setters", sflat);
	json_object_set_new(rec, "setter_sets", sset);
	json_object_set_new(rec, "cleaners", clean);
	json_object_set_new(rec, "inconclusive", incon);
	json_object_set_new(rec, "notes", B.notes);
	json_object_set_new(rec, "probes", B.probes);
	/* the two references the search probes were judged against (and
	 * rt-diagnose's delta-debugging probes are) */
	if (B.target != D_UNDECIDED)
		json_object_set_new(rec, "references", json_pack("{s:o, s:o, s:o, s:I}",
		    "pass_high", rt_json_real6(B.pass_hi), "fail_low", rt_json_real6(B.fail_lo),
		    "confidence", rt_json_real6(B.conf), "cap", (json_int_t)B.cap));
	json_object_set_new(rec, "trials", json_integer(B.used));
	json_object_set_new(rec, "plan", json_pack("{s:I,s:I,s:I,s:I}", "probes",
	    (json_int_t)B.plan_probes, "trials", (json_int_t)B.plan_trials, "showing",
	    (json_int_t)B.plan_show, "not_showing", (json_int_t)B.plan_not));
	json_object_set_new(rec, "confidence", rt_json_real6(B.conf));
	json_object_set_new(rec, "threshold", rt_json_real6(B.threshold));
	json_object_set_new(rec, "budget_exhausted", json_boolean(B.budget_out));
	json_object_set_new(rec, "elapsed_s", rt_json_real6((rt_now_ms() - t0) / 1000));
	json_object_set_new(rec, "interrupted", json_boolean(B.sig != 0));
	if (out) {
		char *s = rt_dumps(rec);
		s = rt_xrealloc(s, strlen(s) + 2);
		strcat(s, "\n");
		if (rt_write_output(out, s, strlen(s)) < 0)
			rt_output_die(out);
		free(s);
	}
	if (text)
		print_text(stdout, rec);
	else if (rt_emit_try(stdout, rec) < 0) {
		if (errno != EPIPE)
			rt_die("stdout: write error:");
		broken = 1;
	}
	for (i = 0; i < found.n; i++)
		free(found.v[i].idx);
	free(found.v);
	free(all);
	free(order.v);
	for (i = 0; i < B.nids; i++)
		free(B.ids[i]);
	free(B.ids);
	free(B.memo);
	free(B.victim_own);
	json_decref(rec);
	rt_trial_cli_free(&B.cli);
	if (B.sig)
		return rt_signal_status(B.sig);
	if (broken)
		return RT_EXIT_PIPE;
	rt_fshut(stdout, "stdout");
	return RT_EXIT_OK;
}
