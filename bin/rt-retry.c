/* rt-retry: run a group of test cases under an explicit retry policy, one
 * "attempt" record per attempt, then one "group" record by latest attempt. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_config.h"
#include "rt_jsonl.h"
#include "rt_out.h"
#include "rt_plan.h"
#include "rt_platform.h"
#include "rt_quarantine.h"
#include "rt_stats.h"
#include "rt_trial.h"
#include "rt_util.h"

enum { POL_NONE, POL_FAILED, POL_WHOLE };
/* An attempt's outcome: the engine's pass/fail/timeout/error, or never run. */
enum { A_PASS, A_FAIL, A_TIMEOUT, A_ERROR, A_CANCELLED };
static const char *aname[] = { "pass", "fail", "timeout", "error", "cancelled" };

#define EARLIER_FAILED "earlier-case-failed"
#define USER_STOP "user-stop"

typedef struct {
	int outcome;
	long round;
	int exit_code, sig;          /* -1 / 0 when none */
	double elapsed_ms;
	const char *cancel;          /* why it was cancelled, else NULL */
	char *out, *err, *error;     /* evidence, kept for failures and errors */
	size_t outlen, errlen;
} attempt;

typedef struct {
	char *name;
	int quarantined;
	attempt *a;
	size_t na, cap;
	long spent;                  /* attempts that reached pass or fail */
	int resolved;                /* user-stop or error: never run again */
	int selected;                /* in the round being run */
} tcase;

static struct {
	int policy, stop_on_failure;
	long retries;                /* R: retries per case */
	char *policy_name;
	rt_trial_cli cli;
	char *shell_text;            /* --cmd with {} made "$1" */
	tcase *c;
	long n;
	long serial;                 /* RETRIAL_TRIAL of the next attempt */
	long maxfail_count;          /* -1: none */
	double maxfail_share;        /* -1: none */
	const char *maxfail_text;
	const char *suite;
	rt_pool *runner;
	rt_progress prog;            /* on a terminal: attempts run so far */
	long done, attempts, failed;
} G;

static int is_failure(int o);

static void
usage(FILE *f)
{
	fputs("usage: rt-retry [-0x] [-p policy] [-r N|auto [--rate P | --measure FILE]\n"
	    "                [--basis split|point|upper] [--target T]] [-f cases] [-q quarantine]\n"
	    "                [--junit FILE] [--suite NAME] [--max-failures N|P%]\n"
	    "                [trial options] (-c CMD | -- ARGV...)\n", f);
	if (f != stdout)
		return;
	fputs(
"  -c, --cmd CMD          run CMD by sh -c once per case; {} is the case (\"$1\")\n"
"  -- ARGV                run ARGV directly; {} in an element is the case\n"
"  -f, --cases FILE       case names, one per line (default stdin)\n"
"  -0, --null             case names end with NUL, not newline (find -print0)\n"
"  -p, --policy P         none, failed-once (default), failed-twice, failed:N,\n"
"                         failed:auto (the budget from a measured rate),\n"
"                         failed (with -r), whole-group-once\n"
"  -r, --retries N|auto   retries per case for the failed policy; auto takes the\n"
"                         budget from a measured rate\n"
"      --rate P           the failure rate for -r auto\n"
"      --measure FILE     a measure (or policy) record for -r auto; without\n"
"                         --rate or --measure, -r auto reads it from stdin\n"
"                         when the cases come from -f FILE\n"
"      --basis B          what rate the budget holds at, as rt-plan's: split (the\n"
"                         rate's exact upper bound, the default), point (the\n"
"                         rate itself) or upper (its interval's top)\n"
"      --target T         chance a flaky case may still exhaust its retries (0.01)\n"
"  -x, --stop-on-failure  cancel the cases behind a failure (they stay retryable)\n"
"  -q, --quarantine FILE  cases whose failures do not fail the group\n"
"      --max-failures L   no retry round when more than L cases (N, or P%)\n"
"                         fail in the first round\n"
"      --junit FILE       write JUnit XML (flaky cases carry <flakyFailure>)\n"
"      --suite NAME       testsuite name and classname in JUnit (rt-retry)\n"
"  -t, --timeout S        per-attempt timeout in seconds (a timeout is a failure)\n"
"      --timeout-signal S signal sent first on timeout (default TERM)\n"
"      --grace S          seconds from that signal to SIGKILL (default 2)\n"
"      --gap-ms MS        rest before each attempt\n"
"      --max-output N     bytes of stdout and of stderr kept, head+tail (64 KiB)\n"
"      --seed S           base of each attempt's RETRIAL_SEED (default random)\n"
"      --error-codes L    exit codes that mean infrastructure error (126,127)\n"
"      --env VAR=VALUE    set a variable in every attempt (repeatable)\n"
"      --unset-env NAME   remove a variable from every attempt (repeatable;\n"
"                         retrial's credentials and $RETRIAL_SCRUB always are)\n"
"      --keep-env NAME    pass a variable removed by default (repeatable)\n"
"      --keep-background  leave running what an attempt left running\n"
"      --runner NAME      whose \"did not run\" exits are errors (rt-collect(1))\n"
"  -h, --help             this help\n"
"  -V, --version          print the version\n", f);
}

/* --- inputs ------------------------------------------------------------ */

static void
parse_policy(const char *s, long *retries, int *needs_r)
{
	*needs_r = 0;
	if (strcmp(s, "none") == 0) {
		G.policy = POL_NONE;
		*retries = 0;
	} else if (strcmp(s, "failed-once") == 0) {
		G.policy = POL_FAILED;
		*retries = 1;
	} else if (strcmp(s, "failed-twice") == 0) {
		G.policy = POL_FAILED;
		*retries = 2;
	} else if (strcmp(s, "failed") == 0) {
		G.policy = POL_FAILED;
		*needs_r = 1;
	} else if (strncmp(s, "failed:", 7) == 0) {
		G.policy = POL_FAILED;
		if (strcmp(s + 7, "auto") == 0)
			*needs_r = 2;
		else
			*retries = rt_num_long("--policy failed:N", s + 7, 0, 1000);
	} else if (strcmp(s, "whole-group-once") == 0) {
		G.policy = POL_WHOLE;
		*retries = 1;
	} else {
		rt_usage_die("--policy %s: want none, failed-once, failed-twice, "
		    "failed:N or whole-group-once", s);
	}
}

/* Where -r auto's budget comes from: a policy record's retry_budget, or
 * the first measure record. */
typedef struct {
	long budget;                 /* from a policy record, else -1 */
	int found;
	rt_plan_measure m;
} budget_src;

static int
on_budget_record(json_t *rec, const rt_where *w, void *ctx)
{
	budget_src *b = ctx;

	if (strcmp(rt_rec_str(rec, "type", w), "policy") == 0) {
		b->budget = (long)rt_rec_int(rec, "retry_budget", 0, 1000, w);
		b->found = 1;
		return 1;
	}
	if (!rt_plan_measure_read(rec, w, &b->m))
		return 0;
	if (b->m.trials == 0)
		rt_die_at(w, "0 valid trials: no rate to budget retries from");
	b->found = 1;
	return 1;
}

/* --retries auto: rt-plan --policy's budget, by its rule and from its
 * default basis (lib/rt_plan): the smallest r with p^(r+1) <= target, p
 * the exact one-sided upper bound of the measured rate (split), the
 * interval's upper end (upper) or the rate itself (point, --rate). */
static long
auto_budget(const char *measure, const char *rate, rt_plan_rules *rules,
    json_t **basis)
{
	budget_src b = { -1, 0, { 0 } };
	char *files[1];
	double observed;
	rt_plan_level lp;
	rt_plan_retry rb;

	if (rate) {
		observed = rt_num_double("--rate", rate, 0, 1, 0, 0);
		if (observed == 0)
			rt_die("--rate 0: no failure to budget retries against");
		rules->basis = RT_PLAN_KNOWN;
	} else {
		files[0] = (char *)measure;
		rt_jsonl_loop(1, files, NULL, on_budget_record, &b);
		if (!b.found)
			rt_die("%s: no measure or policy record to budget retries from",
			    strcmp(measure, "-") == 0 ? "<stdin>" : measure);
		observed = b.m.rate;
		/* 0/n is not a rate of 0: refuse it as rt-plan does */
		if (b.budget < 0 && b.m.failures == 0 && rules->basis != RT_PLAN_ENDS)
			rt_die_at(&b.m.where, "no failure observed in %ld trials: nothing to "
			    "budget retries against (--basis upper budgets from the "
			    "interval's upper end)", b.m.trials);
		if (b.budget < 0 && rules->basis == RT_PLAN_ENDS && b.m.ci_high == 0)
			rt_die_at(&b.m.where, "the interval's upper end is 0: nothing to "
			    "budget retries from");
	}
	*basis = json_object();
	json_object_set_new(*basis, "source", json_string(rate ? "rate" :
	    b.budget >= 0 ? "policy" : "measure"));
	if (b.budget >= 0) {
		json_object_set_new(*basis, "retry_budget", json_integer(b.budget));
		return b.budget;
	}
	lp = rt_plan_interval(rules, RT_PLAN_DEFAULT_CONF, observed, &b.m);
	if (rt_plan_retry_at(rules, &lp, observed, &rb) < 0)
		rt_die("rate %g, target %g: cannot compute a retry budget", rb.rate,
		    rules->survive);
	if (rb.always)
		rt_die("rate %g: the case always fails, so no retry budget can work "
		    "(quarantine it instead)", rb.rate);
	json_object_set_new(*basis, "rate", rt_json_real6(rb.rate));
	json_object_set_new(*basis, "basis", json_string(rt_plan_basis_name(rules->basis)));
	json_object_set_new(*basis, "observed_rate", rt_json_real6(observed));
	if (!rate) {
		json_object_set_new(*basis, "confidence", json_real(lp.c));
		if (rules->basis == RT_PLAN_SPLIT) {
			json_object_set_new(*basis, "step_confidence", json_real(lp.step));
			json_object_set_new(*basis, "exact_low", rt_json_real6(lp.lo));
			json_object_set_new(*basis, "exact_high", rt_json_real6(lp.hi));
		}
		json_object_set_new(*basis, "trials", json_integer(b.m.trials));
		json_object_set_new(*basis, "failures", json_integer(b.m.failures));
		json_object_set_new(*basis, "ci_low", rt_json_real6(b.m.ci_low));
		json_object_set_new(*basis, "ci_high", rt_json_real6(b.m.ci_high));
		json_object_set_new(*basis, "interval", json_string(b.m.method));
		json_object_set_new(*basis, "measure_confidence", json_real(b.m.conf));
		/* the chance a flaky failure exhausts the budget, over the interval */
		json_object_set_new(*basis, "exhaust_low", json_real(rb.qlo));
		json_object_set_new(*basis, "exhaust_high", json_real(rb.qhi));
	}
	json_object_set_new(*basis, "target", rt_json_real6(rules->survive));
	json_object_set_new(*basis, "exhaust_probability", json_real(rb.q));
	json_object_set_new(*basis, "rule", json_string("smallest r with p^(r+1) <= target"));
	return rb.retries;
}

/* One case per line (or per NUL-terminated string with -0), verbatim. */
static void
read_cases(const char *path, int delim)
{
	FILE *f = stdin;
	char *line = NULL;
	size_t cap = 0, cn = 0;
	ssize_t len;
	long i, lineno = 0;

	if (path && strcmp(path, "-") != 0 && !(f = fopen(path, "re")))
		rt_die("%s:", path);
	if (!path)
		path = "<stdin>";
	while ((len = getdelim(&line, &cap, delim, f)) >= 0) {
		lineno++;
		if (len > 0 && line[len - 1] == delim)
			line[--len] = '\0';
		while (delim == '\n' && len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		if (len == 0)
			continue;
		if (strlen(line) != (size_t)len)
			rt_die("%s:%ld: NUL byte in a case name (use -0 for a NUL-separated list)",
			    path, lineno);
		for (i = 0; i < G.n; i++)
			if (strcmp(G.c[i].name, line) == 0)
				rt_die("%s:%ld: duplicate case \"%s\"", path, lineno, line);
		if ((size_t)G.n == cn) {
			cn = cn ? cn * 2 : 16;
			G.c = rt_xrealloc(G.c, cn * sizeof *G.c);
		}
		memset(&G.c[G.n], 0, sizeof *G.c);
		G.c[G.n++].name = rt_xstrdup(line);
	}
	if (ferror(f))
		rt_die("%s:", path);
	free(line);
	if (f != stdin)
		fclose(f);
	if (G.n == 0)
		rt_die("%s: no cases", path);
}

/* The quarantine list (lib/rt_quarantine): an entry names a case by its
 * canonical ID unchanged, blanks included ("a.test.js::cart > adds up"):
 * up to the TAB, else the whole line; a line with no TAB that names no
 * case is read as an older list's "NAME LINK", its first field the name.
 * The default list, .retrial/quarantine, missing is an empty list: a
 * project has none until its first quarantine. */
static void
read_quarantine(const char *path)
{
	rt_quar_list l;
	size_t e;
	long i;
	int hit;

	rt_quar_load(path, strcmp(path, RT_QUAR_DEFAULT) == 0 ||
	    strcmp(path, "./" RT_QUAR_DEFAULT) == 0, &l);
	for (e = 0; e < l.n; e++) {
		for (hit = 0, i = 0; i < G.n; i++)
			if (rt_quar_match(&l.e[e], G.c[i].name) == 2)
				G.c[i].quarantined = hit = 1;
		if (hit || l.e[e].tab)
			continue;
		for (i = 0; i < G.n; i++)
			if (rt_quar_match(&l.e[e], G.c[i].name) == 1)
				G.c[i].quarantined = 1;
	}
	rt_quar_free(&l);
}

/* A word that makes the next one shell text: a shell's -c (sh, bash, ...;
 * any short-option cluster with c) or eval. */
static int
is_shell(const char *w)
{
	static const char *const sh[] = { "sh", "bash", "dash", "zsh", "ksh",
	    "mksh", "ash", "yash", "posh", "busybox", NULL };
	const char *b = strrchr(w, '/');
	int i;

	b = b ? b + 1 : w;
	for (i = 0; sh[i]; i++)
		if (!strcmp(b, sh[i]))
			return 1;
	return 0;
}

static int
is_dash_c(const char *w)
{
	return w[0] == '-' && w[1] != '-' && strchr(w, 'c') &&
	    strspn(w + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") ==
	    strlen(w + 1);
}

#define NESTED_SAFE "pass it as an argument instead: sh -c '... \"$1\" ...' sh {}"

/* "A case name reaches a command only as an argv word": {} in the script
 * of a nested shell (sh -c '... {} ...') or after eval would be parsed as
 * shell again once substituted, so such a command is refused. words[0..n)
 * are one simple command's words, has[k] whether word k holds {}. */
static void
nested_check(char **words, const int *has, size_t n, const char *what)
{
	size_t k, j;
	int shell = 0, ev = 0;

	for (k = 0; k < n; k++) {
		if (has[k] && (ev || (shell && k > 0 && is_dash_c(words[k - 1]))))
			rt_die("%s: {} in the script of a nested shell or after eval "
			    "would run a case name as shell; " NESTED_SAFE, what);
		if (!strcmp(words[k], "eval"))
			ev = 1;
		if (is_shell(words[k]))
			shell = 1;
	}
	for (j = 0; j < n; j++)
		free(words[j]);
}

/* --cmd split into simple commands and words as sh would (quotes
 * removed; a separator outside quotes ends a command), each checked. */
static void
shell_nested_check(const char *cmd)
{
	enum { NONE, SQ, DQ } st = NONE;
	char **w = NULL;
	int *has = NULL;
	size_t n = 0, cap = 0;
	rt_buf b = {0};
	int inword = 0, brace = 0;
	const char *p;

	for (p = cmd;; p++) {
		int end = !*p || (st == NONE && (strchr(" \t\n;&|()`", *p)));
		if (end) {
			if (inword) {
				if (n + 1 >= cap) {
					cap = cap ? cap * 2 : 8;
					w = rt_xrealloc(w, cap * sizeof *w);
					has = rt_xrealloc(has, cap * sizeof *has);
				}
				rt_buf_add(&b, NULL, 0);
				w[n] = rt_xstrdup(rt_buf_str(&b));
				has[n++] = brace;
				b.len = 0;
				inword = brace = 0;
			}
			if (!*p || strchr(";&|()`\n", *p)) {
				nested_check(w, has, n, "--cmd");
				n = 0;
			}
			if (!*p)
				break;
			continue;
		}
		inword = 1;
		if (p[0] == '{' && p[1] == '}') {
			brace = 1;
			rt_buf_adds(&b, "{}");
			p++;
			continue;
		}
		if (st == SQ) {
			if (*p == '\'')
				st = NONE;
			else
				rt_buf_addc(&b, *p);
		} else if (*p == '\\' && p[1]) {
			rt_buf_addc(&b, *++p);
		} else if (*p == '\'' && st == NONE) {
			st = SQ;
		} else if (*p == '"') {
			st = st == DQ ? NONE : DQ;
		} else {
			rt_buf_addc(&b, *p);
		}
	}
	free(w);
	free(has);
	rt_buf_free(&b);
}

/* -- ARGV: the same rule over the command's words. */
static void
argv_nested_check(char **argv)
{
	size_t n = 0, k;
	char **w;
	int *has;

	while (argv[n])
		n++;
	w = rt_xcalloc(n + 1, sizeof *w);
	has = rt_xcalloc(n + 1, sizeof *has);
	for (k = 0; k < n; k++) {
		w[k] = rt_xstrdup(argv[k]);
		has[k] = strstr(argv[k], "{}") != NULL;
	}
	nested_check(w, has, n, "-- ARGV");
	free(w);
	free(has);
}

/* {} in --cmd becomes "$1" — quoted for the context it stands in — and the
 * case is passed as $1, so a case name is never shell text. */
static char *
shell_subst(const char *cmd)
{
	rt_buf b = {0};
	enum { NONE, SQ, DQ } st = NONE;
	const char *p;

	for (p = cmd; *p; p++) {
		if (p[0] == '{' && p[1] == '}') {
			rt_buf_adds(&b, st == NONE ? "\"${1}\"" : st == DQ ? "${1}" :
			    "'\"${1}\"'");
			p++;
			continue;
		}
		rt_buf_addc(&b, *p);
		if (st == SQ) {
			if (*p == '\'')
				st = NONE;
		} else if (*p == '\\' && p[1]) {
			rt_buf_addc(&b, *++p);
		} else if (*p == '\'' && st == NONE) {
			st = SQ;
		} else if (*p == '"') {
			st = st == DQ ? NONE : DQ;
		}
	}
	rt_buf_add(&b, NULL, 0);
	return b.data;
}

/* -- ARGV: {} inside any element becomes the case; without {} anywhere the
 * case is the last argument. */
static char **
argv_subst(char **tmpl, const char *name)
{
	size_t n = 0, i, k = 0;
	int any = 0;
	char **v;
	rt_buf b;
	const char *p;

	while (tmpl[n])
		n++;
	v = rt_xcalloc(n + 2, sizeof *v);
	for (i = 0; i < n; i++) {
		memset(&b, 0, sizeof b);
		for (p = tmpl[i]; *p; p++) {
			if (p[0] == '{' && p[1] == '}') {
				rt_buf_adds(&b, name);
				p++;
				any = 1;
			} else {
				rt_buf_addc(&b, *p);
			}
		}
		rt_buf_add(&b, NULL, 0);
		v[k++] = b.data;
	}
	if (!any)
		v[k++] = rt_xstrdup(name);
	v[k] = NULL;
	return v;
}


/* --- running ----------------------------------------------------------- */

static attempt *
new_attempt(tcase *c, long round)
{
	attempt *a;

	if (c->na == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 4;
		c->a = rt_xrealloc(c->a, c->cap * sizeof *c->a);
	}
	a = &c->a[c->na++];
	memset(a, 0, sizeof *a);
	a->round = round;
	a->exit_code = -1;
	return a;
}

static json_t *
attempt_head(const tcase *c, const attempt *a)
{
	json_t *j = json_object();

	json_object_set_new(j, "type", json_string("attempt"));
	json_object_set_new(j, "case", rt_json_bytes(c->name, strlen(c->name)));
	json_object_set_new(j, "attempt", json_integer((json_int_t)c->na));
	json_object_set_new(j, "round", json_integer(a->round));
	json_object_set_new(j, "outcome", json_string(aname[a->outcome]));
	json_object_set_new(j, "cancel_reason", a->cancel ? json_string(a->cancel) : json_null());
	json_object_set_new(j, "quarantined", json_boolean(c->quarantined));
	json_object_set_new(j, "spent", json_integer(c->spent));
	return j;
}

static void
cancel(tcase *c, long rnd, const char *why, double elapsed_ms, const char *started)
{
	attempt *a = new_attempt(c, rnd);
	json_t *j;
	char now[40];

	a->outcome = A_CANCELLED;
	a->cancel = why;
	a->elapsed_ms = elapsed_ms;
	/* "user-stop resolves it": it is not retried and gets no budget back. */
	if (strcmp(why, USER_STOP) == 0)
		c->resolved = 1;
	if (!started) {
		rt_utc_rfc3339(now, sizeof now);
		started = now;
	}
	j = attempt_head(c, a);
	json_object_set_new(j, "exit_code", json_null());
	json_object_set_new(j, "signal", json_null());
	json_object_set_new(j, "elapsed_ms", json_real(round(elapsed_ms * 1000) / 1000));
	json_object_set_new(j, "started_at", json_string(started));
	json_object_set_new(j, "command", json_string(G.cli.command));
	(void)rt_emit_try(stdout, j);
	rt_fpart(stdout, "stdout");
	json_decref(j);
}

static char *
dupn(const char *s, size_t n)
{
	char *p = rt_xmalloc(n + 1);
	if (n)
		memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* Run one case to its end. Returns the attempt's outcome, or -1 when
 * SIGINT/SIGTERM stopped it (then it is cancelled "user-stop"). */
static int
run_case(tcase *c, long round)
{
	rt_trial_opts o = G.cli.o;
	rt_trial_result res;
	char *args[2] = { c->name, NULL }, **argv = NULL, **env;
	size_t ne = 0, i;
	attempt *a;
	json_t *j, *t, *v;
	const char *k;
	char started[40];
	double t0;
	int rc, out;

	while (G.cli.env[ne])
		ne++;
	env = rt_xcalloc(ne + 4, sizeof *env);
	for (i = 0; i < ne; i++)
		env[i] = rt_xstrdup(G.cli.env[i]);
	env[ne++] = rt_xasprintf("RETRIAL_CASE=%s", c->name);
	env[ne++] = rt_xasprintf("RETRIAL_ROUND=%ld", round);
	env[ne++] = rt_xasprintf("RETRIAL_ATTEMPT=%zu", c->na + 1);
	o.env_extra = env;
	if (G.shell_text) {
		o.shell_cmd = G.shell_text;
		o.shell_args = args;
		o.argv = NULL;
	} else {
		o.shell_cmd = NULL;
		o.argv = argv = argv_subst(G.cli.argv, c->name);
	}
	rt_utc_rfc3339(started, sizeof started);
	t0 = rt_now_ms();
	rt_pool_start(G.runner, &o, ++G.serial, c);
	rc = rt_pool_wait(G.runner, -1, &res, NULL);
	if (rc < 0) {
		rt_pool_kill_all(G.runner);
		cancel(c, round, USER_STOP, rt_now_ms() - t0, started);
		rt_free_vec(env);
		rt_free_vec(argv);
		return -1;
	}
	if (rc == 0)
		rt_die("the trial engine lost a running case (a bug)");
	a = new_attempt(c, round);
	switch (res.outcome) {
	case RT_PASS: out = A_PASS; break;
	case RT_FAIL: out = A_FAIL; break;
	case RT_TIMEOUT: out = A_TIMEOUT; break;
	default: out = A_ERROR; break;
	}
	a->outcome = out;
	a->exit_code = res.exit_code;
	a->sig = res.signal;
	a->elapsed_ms = res.elapsed_ms;
	/* The budget counts only attempts that reached pass or fail. */
	if (out == A_ERROR)
		c->resolved = 1;
	else
		c->spent++;
	if (out != A_PASS) {
		a->out = dupn(res.out.data ? res.out.data : "", res.out.len);
		a->outlen = res.out.len;
		a->err = dupn(res.err.data ? res.err.data : "", res.err.len);
		a->errlen = res.err.len;
		if (out == A_ERROR)
			a->error = rt_xstrdup(res.error[0] ? res.error : "could not run");
	}
	j = attempt_head(c, a);
	t = rt_trial_json(&res, &o, G.cli.command);
	json_object_foreach(t, k, v)
		if (strcmp(k, "type") && strcmp(k, "outcome"))
			json_object_set(j, k, v);
	if (out == A_ERROR && !json_object_get(j, "error"))
		json_object_set_new(j, "error", json_string(a->error));
	(void)rt_emit_try(stdout, j);
	rt_fpart(stdout, "stdout");
	json_decref(j);
	json_decref(t);
	G.done++;
	if (out == A_PASS || is_failure(out)) {
		G.attempts++;
		G.failed += is_failure(out);
	}
	snprintf(started, sizeof started, "round %ld", round);
	rt_progress_update(&G.prog, G.done, G.failed, G.attempts, 0.95, started);
	rt_trial_result_free(&res);
	rt_free_vec(env);
	rt_free_vec(argv);
	return out;
}

/* One round: the selected cases in group order, under the group's normal
 * rules. Returns 1 when SIGINT/SIGTERM stopped it. */
static int
run_round(long round)
{
	long i;
	int stopping = 0, out;

	for (i = 0; i < G.n; i++) {
		tcase *c = &G.c[i];
		if (!c->selected)
			continue;
		if (stopping) {
			cancel(c, round, EARLIER_FAILED, 0, NULL);
			continue;
		}
		if (rt_trial_interrupted()) {
			/* In round 0 a case never reached still gets its one
			 * attempt; later a case keeps its real latest outcome. */
			if (round == 0)
				cancel(c, round, USER_STOP, 0, NULL);
			continue;
		}
		out = run_case(c, round);
		if (out < 0)
			continue;
		if (G.stop_on_failure && out != A_PASS && !c->quarantined)
			stopping = 1;
	}
	return rt_trial_interrupted() != 0;
}

/* --- planning ---------------------------------------------------------- */

static const attempt *
latest(const tcase *c)
{
	return c->na ? &c->a[c->na - 1] : NULL;
}

static int
is_failure(int o)
{
	return o == A_FAIL || o == A_TIMEOUT;
}

/* May c run again under the failed rule? Not passed, not resolved, not a
 * quarantined failure, and budget left (a cancelled case always has it). */
static int
retryable(const tcase *c)
{
	const attempt *a = latest(c);

	if (!a || c->resolved || a->outcome == A_PASS)
		return 0;
	if (c->quarantined && is_failure(a->outcome))
		return 0;
	return c->spent < 1 + G.retries;
}

/* Select the cases of retry round k; 0 when none should run, with *why
 * saying why planning stopped and *blocker the case that stopped it. */
static long
plan(long k, const char **why, const tcase **blocker)
{
	long i, nsel = 0, trigger = 0;

	*blocker = NULL;
	for (i = 0; i < G.n; i++)
		G.c[i].selected = 0;
	if (G.policy == POL_NONE) {
		*why = "settled";
		return 0;
	}
	/* Under stop-on-failure, planning stops once an unresolved case has
	 * exhausted its budget (or hit an infrastructure error): the cases
	 * behind it could only be re-planned behind it forever. */
	if (G.stop_on_failure)
		for (i = 0; i < G.n; i++) {
			const tcase *c = &G.c[i];
			const attempt *a = latest(c);
			if (c->quarantined || !a)
				continue;
			if ((is_failure(a->outcome) && c->spent >= 1 + G.retries) ||
			    a->outcome == A_ERROR) {
				*why = a->outcome == A_ERROR ? "error" : "exhausted";
				*blocker = c;
				return 0;
			}
		}
	for (i = 0; i < G.n; i++)
		if (retryable(&G.c[i]))
			trigger++;
	*why = "settled";
	if (trigger == 0)
		return 0;
	for (i = 0; i < G.n; i++) {
		tcase *c = &G.c[i];
		if (G.policy == POL_WHOLE && k == 1)
			c->selected = !c->resolved;
		else
			c->selected = retryable(c);
		nsel += c->selected;
	}
	return nsel;
}

static long
progress(void)
{
	long i, p = 0;
	for (i = 0; i < G.n; i++)
		p += G.c[i].spent + G.c[i].resolved;
	return p;
}

/* --- results ----------------------------------------------------------- */

/* The latest attempt decides: passed, flaky (passed after a failure),
 * failed, cancelled or error. */
static const char *
as_run(const tcase *c)
{
	const attempt *a = latest(c);
	size_t i;

	switch (a->outcome) {
	case A_PASS:
		for (i = 0; i + 1 < c->na; i++)
			if (is_failure(c->a[i].outcome))
				return "flaky";
		return "passed";
	case A_FAIL:
	case A_TIMEOUT:
		return "failed";
	case A_ERROR:
		return "error";
	}
	return "cancelled";
}

static const char *
result(const tcase *c)
{
	return c->quarantined ? "quarantined" : as_run(c);
}

static void
xml_text(rt_buf *b, const char *s, size_t n, int attr)
{
	size_t len, i;
	char *u = rt_utf8_repair(s, n, &len, NULL);
	unsigned char ch;

	for (i = 0; i < len; i++) {
		ch = (unsigned char)u[i];
		if (ch == '&')
			rt_buf_adds(b, "&amp;");
		else if (ch == '<')
			rt_buf_adds(b, "&lt;");
		else if (ch == '>')
			rt_buf_adds(b, "&gt;");
		else if (ch == '"' && attr)
			rt_buf_adds(b, "&quot;");
		else if ((ch == '\n' || ch == '\t' || ch == '\r') && attr)
			rt_buf_printf(b, "&#%d;", ch);
		else if (ch < 0x20 && ch != '\n' && ch != '\t' && ch != '\r')
			rt_buf_adds(b, "\xef\xbf\xbd");   /* not allowed in XML 1.0 */
		else if (ch == 0xef && i + 2 < len && (unsigned char)u[i + 1] == 0xbf &&
		    ((unsigned char)u[i + 2] == 0xbe || (unsigned char)u[i + 2] == 0xbf)) {
			rt_buf_adds(b, "\xef\xbf\xbd");   /* U+FFFE, U+FFFF */
			i += 2;
		} else
			rt_buf_addc(b, (char)ch);
	}
	free(u);
}

static void
xml_attr(rt_buf *b, const char *name, const char *v)
{
	rt_buf_printf(b, " %s=\"", name);
	xml_text(b, v, strlen(v), 1);
	rt_buf_addc(b, '"');
}

static void
attempt_message(char *buf, size_t size, const attempt *a)
{
	if (a->outcome == A_TIMEOUT)
		snprintf(buf, size, "timed out");
	else if (a->outcome == A_ERROR)
		snprintf(buf, size, "could not run: %s", a->error ? a->error : "error");
	else if (a->sig)
		snprintf(buf, size, "killed by signal %d", a->sig);
	else
		snprintf(buf, size, "exit code %d", a->exit_code);
}

/* Open a Surefire element with its message and type attributes, then
 * "attempt N, round R: what happened" as text (after inner, if any). */
static void
xml_open(rt_buf *b, const char *elem, const attempt *a, size_t idx,
    const char *inner)
{
	char msg[512], hdr[64];

	attempt_message(msg, sizeof msg, a);
	snprintf(hdr, sizeof hdr, "attempt %zu, round %ld: ", idx + 1, a->round);
	rt_buf_printf(b, "    <%s", elem);
	xml_attr(b, "message", msg);
	xml_attr(b, "type", aname[a->outcome]);
	rt_buf_printf(b, ">%s", inner);
	xml_text(b, hdr, strlen(hdr), 0);
	xml_text(b, msg, strlen(msg), 0);
}

/* One Surefire rerun element (<rerunFailure>, <flakyFailure>, <rerunError>):
 * message and type, then <stackTrace>, <system-out>, <system-err>. */
static void
xml_rerun(rt_buf *b, const char *elem, const attempt *a, size_t idx)
{
	xml_open(b, elem, a, idx, "<stackTrace>");
	rt_buf_adds(b, "</stackTrace><system-out>");
	xml_text(b, a->out ? a->out : "", a->outlen, 0);
	rt_buf_adds(b, "</system-out><system-err>");
	xml_text(b, a->err ? a->err : "", a->errlen, 0);
	rt_buf_printf(b, "</system-err></%s>\n", elem);
}

/* A Surefire first-run element (<failure>, <error>): message and type, the
 * "stack trace" (what happened, then stderr) as its text. */
static void
xml_primary(rt_buf *b, const char *elem, const attempt *a, size_t idx)
{
	xml_open(b, elem, a, idx, "");
	rt_buf_adds(b, "\n");
	xml_text(b, a->err ? a->err : "", a->errlen, 0);
	rt_buf_printf(b, "</%s>\n", elem);
}

/* Surefire's report (surefire-test-report-3.0.xsd): one <testsuite> root;
 * in a <testcase>, children in the order failure, rerunFailure,
 * flakyFailure, skipped, error, rerunError, system-out, system-err. */
static void
write_junit(const char *path, double total_s)
{
	rt_buf b = {0};
	long i, failures = 0, errors = 0, skipped = 0, flakes = 0;
	size_t k;
	int first;
	double t;

	for (i = 0; i < G.n; i++) {
		const char *r = result(&G.c[i]);
		failures += strcmp(r, "failed") == 0;
		errors += strcmp(r, "error") == 0;
		skipped += strcmp(r, "cancelled") == 0 || strcmp(r, "quarantined") == 0;
		flakes += strcmp(r, "flaky") == 0;
	}
	rt_buf_adds(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite");
	xml_attr(&b, "name", G.suite);
	rt_buf_printf(&b, " tests=\"%ld\" failures=\"%ld\" errors=\"%ld\" skipped=\"%ld\""
	    " flakes=\"%ld\" time=\"%.3f\">\n", G.n, failures, errors, skipped, flakes,
	    total_s);
	for (i = 0; i < G.n; i++) {
		const tcase *c = &G.c[i];
		const attempt *a = latest(c), *primary = NULL;
		const char *r = result(c), *ar = as_run(c);
		int flaky = strcmp(ar, "flaky") == 0;
		int failed = strcmp(r, "failed") == 0;
		char msg[256];

		for (t = 0, k = 0; k < c->na; k++)
			t += c->a[k].elapsed_ms;
		rt_buf_adds(&b, "  <testcase");
		xml_attr(&b, "name", c->name);
		xml_attr(&b, "classname", G.suite);
		rt_buf_printf(&b, " time=\"%.3f\">\n", t / 1000);
		/* for readers that do not know <flakyFailure> (junitparser) */
		if (flaky && strcmp(r, "flaky") == 0)
			rt_buf_adds(&b, "    <properties><property name=\"retrial.flaky\" "
			    "value=\"true\"/></properties>\n");
		/* Every failed attempt stays as evidence: <flakyFailure> when
		 * the case passed in the end, <failure> then <rerunFailure>
		 * when it failed, <rerunFailure> beside a skip or an error. */
		for (first = 1, k = 0; k < c->na; k++) {
			if (!is_failure(c->a[k].outcome))
				continue;
			if (flaky) {
				xml_rerun(&b, "flakyFailure", &c->a[k], k);
			} else if (failed && first) {
				xml_primary(&b, "failure", &c->a[k], k);
				primary = &c->a[k];
			} else {
				xml_rerun(&b, "rerunFailure", &c->a[k], k);
			}
			first = 0;
		}
		if (c->quarantined) {
			snprintf(msg, sizeof msg, "quarantined; as run: %s", ar);
			rt_buf_adds(&b, "    <skipped");
			xml_attr(&b, "message", msg);
			rt_buf_adds(&b, "/>\n");
		} else if (strcmp(r, "cancelled") == 0) {
			snprintf(msg, sizeof msg, "cancelled: %s", a->cancel);
			rt_buf_adds(&b, "    <skipped");
			xml_attr(&b, "message", msg);
			rt_buf_adds(&b, "/>\n");
		}
		if (strcmp(ar, "error") == 0) {
			if (c->quarantined) {
				xml_rerun(&b, "rerunError", a, c->na - 1);
			} else {
				xml_primary(&b, "error", a, c->na - 1);
				primary = a;
			}
		}
		if (primary) {
			rt_buf_adds(&b, "    <system-out>");
			xml_text(&b, primary->out ? primary->out : "", primary->outlen, 0);
			rt_buf_adds(&b, "</system-out>\n    <system-err>");
			xml_text(&b, primary->err ? primary->err : "", primary->errlen, 0);
			rt_buf_adds(&b, "</system-err>\n");
		}
		rt_buf_adds(&b, "  </testcase>\n");
	}
	rt_buf_adds(&b, "</testsuite>\n");
	if (rt_write_output(path, b.data, b.len) < 0)
		rt_output_die(path);
	rt_buf_free(&b);
}

static json_t *
group_record(long rounds, const char *stopped, const tcase *blocker,
    long round0_failures, int tripped, long ceiling, json_t *basis, int sig,
    int *exit_code)
{
	json_t *g = json_object(), *cases = json_array(), *tot = json_object(),
	    *q = json_array(), *cb;
	long i, attempts = 0, executed = 0, cnt[6] = {0};
	static const char *rn[] = { "passed", "flaky", "failed", "cancelled", "error",
	    "quarantined" };
	int bad = 0, err = 0, r;
	size_t k;
	rt_buf sum = {0};

	for (i = 0; i < G.n; i++) {
		const tcase *c = &G.c[i];
		const attempt *a = latest(c);
		const char *res = result(c), *ar = as_run(c);
		json_t *e = json_object(), *earlier = json_array();

		for (r = 0; r < 6; r++)
			if (strcmp(res, rn[r]) == 0)
				cnt[r]++;
		if (!c->quarantined && strcmp(ar, "error") == 0)
			err = 1;
		else if (!c->quarantined && strcmp(ar, "passed") && strcmp(ar, "flaky"))
			bad = 1;
		for (k = 0; k + 1 < c->na; k++)
			json_array_append_new(earlier, json_string(aname[c->a[k].outcome]));
		attempts += (long)c->na;
		executed += c->spent;
		json_object_set_new(e, "case", rt_json_bytes(c->name, strlen(c->name)));
		json_object_set_new(e, "result", json_string(res));
		json_object_set_new(e, "as_run", json_string(ar));
		json_object_set_new(e, "outcome", json_string(aname[a->outcome]));
		json_object_set_new(e, "attempts", json_integer((json_int_t)c->na));
		json_object_set_new(e, "spent", json_integer(c->spent));
		json_object_set_new(e, "earlier", earlier);
		json_object_set_new(e, "cancel_reason", a->cancel ? json_string(a->cancel) : json_null());
		json_object_set_new(e, "quarantined", json_boolean(c->quarantined));
		json_array_append_new(cases, e);
		if (c->quarantined)
			json_array_append_new(q, rt_json_bytes(c->name, strlen(c->name)));
	}
	json_object_set_new(tot, "cases", json_integer(G.n));
	for (r = 0; r < 6; r++)
		json_object_set_new(tot, rn[r], json_integer(cnt[r]));

	rt_buf_printf(&sum, "%ld case%s:", G.n, G.n == 1 ? "" : "s");
	for (r = 0, k = 0; r < 6; r++)
		if (cnt[r])
			rt_buf_printf(&sum, "%s %ld %s", k++ ? "," : "", cnt[r], rn[r]);
	rt_buf_printf(&sum, " (%ld attempt%s in %ld round%s)", attempts,
	    attempts == 1 ? "" : "s", rounds, rounds == 1 ? "" : "s");

	json_object_set_new(g, "type", json_string("group"));
	json_object_set_new(g, "policy", json_string(G.policy_name));
	json_object_set_new(g, "retries", json_integer(G.retries));
	if (basis)
		json_object_set_new(g, "budget", basis);
	json_object_set_new(g, "stop_on_failure", json_boolean(G.stop_on_failure));
	json_object_set_new(g, "command", json_string(G.cli.command));
	json_object_set_new(g, "result", json_string(sig ? "interrupted" : err ? "error" :
	    bad ? "failed" : "passed"));
	json_object_set_new(g, "summary", json_string(rt_buf_str(&sum)));
	json_object_set_new(g, "totals", tot);
	json_object_set_new(g, "quarantined", q);
	json_object_set_new(g, "cases", cases);
	json_object_set_new(g, "rounds", json_integer(rounds));
	json_object_set_new(g, "attempts", json_integer(attempts));
	json_object_set_new(g, "executed", json_integer(executed));
	json_object_set_new(g, "stopped", json_string(stopped));
	json_object_set_new(g, "blocked_by", blocker ?
	    rt_json_bytes(blocker->name, strlen(blocker->name)) : json_null());
	json_object_set_new(g, "ceiling", json_integer(ceiling));
	cb = json_object();
	json_object_set_new(cb, "max_failures", G.maxfail_text ?
	    json_string(G.maxfail_text) : json_null());
	json_object_set_new(cb, "round0_failures", json_integer(round0_failures));
	json_object_set_new(cb, "tripped", json_boolean(tripped));
	json_object_set_new(g, "circuit_breaker", cb);
	json_object_set_new(g, "interrupted", json_boolean(sig != 0));
	rt_buf_free(&sum);
	*exit_code = sig ? rt_signal_status(sig) :
	    err ? RT_EXIT_ERR : bad ? RT_EXIT_NO : RT_EXIT_OK;
	return g;
}

/* --- main -------------------------------------------------------------- */

enum {
	OPT_RATE = RT_OPT_TOOL_BASE, OPT_MEASURE, OPT_BASIS, OPT_TARGET,
	OPT_JUNIT, OPT_SUITE, OPT_MAXFAIL
};

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "cmd", required_argument, NULL, 'c' },
		{ "cases", required_argument, NULL, 'f' },
		{ "null", no_argument, NULL, '0' },
		{ "policy", required_argument, NULL, 'p' },
		{ "retries", required_argument, NULL, 'r' },
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "measure", required_argument, NULL, OPT_MEASURE },
		{ "basis", required_argument, NULL, OPT_BASIS },
		{ "target", required_argument, NULL, OPT_TARGET },
		{ "stop-on-failure", no_argument, NULL, 'x' },
		{ "quarantine", required_argument, NULL, 'q' },
		{ "max-failures", required_argument, NULL, OPT_MAXFAIL },
		{ "junit", required_argument, NULL, OPT_JUNIT },
		{ "suite", required_argument, NULL, OPT_SUITE },
		{ "timeout", required_argument, NULL, 't' },
		{ "timeout-signal", required_argument, NULL, RT_OPT_TIMEOUT_SIG },
		{ "grace", required_argument, NULL, RT_OPT_GRACE },
		{ "gap-ms", required_argument, NULL, RT_OPT_GAP },
		{ "max-output", required_argument, NULL, RT_OPT_MAXOUT },
		{ "seed", required_argument, NULL, RT_OPT_SEED },
		{ "error-codes", required_argument, NULL, RT_OPT_ERRCODES },
		{ "env", required_argument, NULL, RT_OPT_ENV },
		{ "unset-env", required_argument, NULL, RT_OPT_UNSET_ENV },
		{ "keep-env", required_argument, NULL, RT_OPT_KEEP_ENV },
		{ "keep-background", no_argument, NULL, RT_OPT_KEEP_BG },
		{ "runner", required_argument, NULL, RT_OPT_RUNNER },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		RT_LIST_OPTIONS_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	const char *cases = NULL, *quarantine = NULL, *junit = NULL, *rate = NULL,
	    *measure = NULL, *retries = NULL, *policy = NULL, *stopped, *env;
	const tcase *blocker = NULL;
	rt_plan_rules rules;
	double t0;
	long k, round0_failures = 0, ceiling, before, rounds, i, nsel;
	int opt, needs_r = 0, tripped = 0, sig, code, delim = '\n';
	json_t *basis = NULL, *g;
	size_t len;

	rt_setprogname(argv[0]);
	rt_secret_protect();
	rt_plan_rules_init(&rules);
	rt_trial_cli_init(&G.cli);
	G.maxfail_count = -1;
	G.maxfail_share = -1;
	G.suite = "rt-retry";
	opterr = 0;
	rt_config_apply("rt-retry", longopts, &argc, &argv);
	while ((opt = getopt_long(argc, argv, "+0c:f:hp:q:r:t:Vx", longopts, NULL)) != -1) {
		switch (opt) {
		case '0': delim = '\0'; break;
		case 'f': cases = optarg; break;
		case 'p': policy = optarg; break;
		case 'r': retries = optarg; break;
		case 'q': quarantine = optarg; break;
		case 'x': G.stop_on_failure = 1; break;
		case OPT_RATE: rate = optarg; break;
		case OPT_MEASURE: measure = optarg; break;
		case OPT_BASIS:
			if (rt_plan_basis_parse(optarg, &rules.basis) < 0)
				rt_usage_die("--basis %s: want split, point or upper", optarg);
			break;
		case OPT_TARGET:
			rules.survive = rt_num_double("--target", optarg, 0, 1, 1, 1);
			break;
		case OPT_JUNIT: junit = optarg; break;
		case OPT_SUITE: G.suite = optarg; break;
		case OPT_MAXFAIL:
			G.maxfail_text = optarg;
			len = strlen(optarg);
			if (len > 0 && optarg[len - 1] == '%') {
				char *s = rt_xasprintf("%.*s", (int)len - 1, optarg);
				G.maxfail_share = rt_num_double("--max-failures", s, 0, 100, 0, 0) / 100;
				free(s);
			} else {
				G.maxfail_count = rt_num_long("--max-failures", optarg, 0, 1L << 40);
			}
			break;
		case RT_OPT_LIST_OPTIONS: return rt_cli_list_options(longopts);
		case 'h':
			usage(stdout);
			rt_fshut(stdout, "stdout");
			return 0;
		case 'V':
			rt_print_version();
			rt_fshut(stdout, "stdout");
			return 0;
		default:
			if (opt == '?' || opt == ':' || !rt_trial_cli_opt(&G.cli, opt, optarg))
				rt_bad_option(opt, "0c:f:hp:q:r:t:Vx", argv);
		}
	}
	rt_trial_cli_finish(&G.cli, argc, argv, optind, 1);

	/* The policy and its budget R. */
	if (policy) {
		parse_policy(policy, &G.retries, &needs_r);
		if (retries && needs_r != 1)
			rt_usage_die("--retries goes with --policy failed, not --policy %s", policy);
		if (needs_r == 1 && !retries)
			rt_usage_die("--policy failed needs --retries N|auto");
	} else {
		G.policy = POL_FAILED;
		G.retries = 1;
		needs_r = retries ? 1 : 0;
	}
	if (needs_r == 2 || (retries && strcmp(retries, "auto") == 0)) {
		/* rt-measure ... | rt-retry -r auto -f cases.txt ...: with the
		 * cases in a file, standard input carries the measure record. */
		if (!rate && !measure && cases && strcmp(cases, "-") != 0)
			measure = "-";
		if (!rate == !measure)
			rt_usage_die("--retries auto needs one of --rate P and --measure FILE "
			    "(or the measure record on standard input, with the cases from -f FILE)");
		if (measure && strcmp(measure, "-") == 0 && (!cases || strcmp(cases, "-") == 0))
			rt_usage_die("--measure - and the case list cannot both be standard input");
		G.retries = auto_budget(measure, rate, &rules, &basis);
	} else {
		if (rate || measure)
			rt_usage_die("--rate and --measure go with --retries auto");
		if (retries)
			G.retries = rt_num_long("--retries", retries, 0, 1000);
	}
	G.policy_name = G.policy == POL_NONE ? rt_xstrdup("none") :
	    G.policy == POL_WHOLE ? rt_xstrdup("whole-group-once") :
	    rt_xasprintf("failed:%ld", G.retries);
	if (G.cli.cmd) {
		shell_nested_check(G.cli.cmd);
		G.shell_text = shell_subst(G.cli.cmd);
	} else if (G.cli.argv) {
		argv_nested_check(G.cli.argv);
	}

	read_cases(cases, delim);
	if (quarantine)
		read_quarantine(quarantine);

	/* No correct plan runs more than R × n retry rounds (the man page's
	 * termination argument); RETRIAL_RETRY_CEILING lowers it for tests. */
	ceiling = G.retries * G.n;
	if ((env = getenv("RETRIAL_RETRY_CEILING")) && *env)
		ceiling = rt_num_long("RETRIAL_RETRY_CEILING", env, 0, ceiling);

	rt_trial_signals_install();
	G.runner = rt_pool_new();
	t0 = rt_now_ms();
	rt_progress_init(&G.prog, G.n);

	for (i = 0; i < G.n; i++)
		G.c[i].selected = 1;
	rounds = 1;
	stopped = "settled";
	if (run_round(0)) {
		stopped = "user-stop";
		goto settle;
	}
	for (i = 0; i < G.n; i++)
		round0_failures += !G.c[i].quarantined && is_failure(latest(&G.c[i])->outcome);
	/* "More than a set share of cases fail in round 0": a broken build,
	 * not flakiness. */
	if ((G.maxfail_count >= 0 && round0_failures > G.maxfail_count) ||
	    (G.maxfail_share >= 0 && (double)round0_failures > G.maxfail_share * (double)G.n)) {
		tripped = 1;
		stopped = "circuit-breaker";
		rt_warn("%ld of %ld cases failed in the first round (more than --max-failures %s): "
		    "no retry round", round0_failures, G.n, G.maxfail_text);
		goto settle;
	}
	for (k = 1;; k++) {
		/* "No further round starts" after Ctrl-C, even between rounds. */
		if (rt_trial_interrupted())
			break;
		if ((nsel = plan(k, &stopped, &blocker)) == 0)
			break;
		G.prog.total = G.done + nsel;
		if (k > ceiling) {
			stopped = "ceiling";
			rt_warn("retry round %ld would pass the ceiling of %ld rounds "
			    "(retries %ld x %ld cases) that no correct plan reaches: "
			    "this is a bug in rt-retry; settling the group as it stands",
			    k, ceiling, G.retries, G.n);
			break;
		}
		before = progress();
		rounds++;
		if (run_round(k)) {
			stopped = "user-stop";
			break;
		}
		if (progress() == before) {
			stopped = "no-progress";
			rt_warn("retry round %ld made no progress (no budget spent, no case "
			    "resolved): this is a bug in rt-retry; settling the group", k);
			break;
		}
	}
settle:
	rt_progress_clear(&G.prog);
	rt_pool_free(G.runner);
	sig = rt_trial_interrupted();
	if (sig)
		stopped = "user-stop";
	g = group_record(rounds, stopped, blocker, round0_failures, tripped, ceiling,
	    basis, sig, &code);
	/* a gone reader (| head -1) still gets --junit written in full */
	(void)rt_emit_try(stdout, g);
	rt_fpart(stdout, "stdout");
	json_decref(g);
	if (junit)
		write_junit(junit, (rt_now_ms() - t0) / 1000);
	for (i = 0; i < G.n; i++) {
		size_t a;
		for (a = 0; a < G.c[i].na; a++) {
			free(G.c[i].a[a].out);
			free(G.c[i].a[a].err);
			free(G.c[i].a[a].error);
		}
		free(G.c[i].a);
		free(G.c[i].name);
	}
	free(G.c);
	free(G.shell_text);
	free(G.policy_name);
	rt_trial_cli_free(&G.cli);
	rt_fshut(stdout, "stdout");
	return code;
}
