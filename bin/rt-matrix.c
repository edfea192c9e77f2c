/* rt-matrix: a control measurement and perturbed ones side by side (slower,
 * more parallel, another hash seed, TZ, locale, VAR=value, no network, a
 * reordered list, a runner's seed pinned), each perturbation probed first,
 * one record per cell. */
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "rt_cli.h"
#include "rt_config.h"
#include "rt_runner.h"
#include "rt_jsonl.h"
#include "rt_out.h"
#include "rt_platform.h"
#include "rt_stats.h"
#include "rt_text.h"
#include "rt_say.h"
#include "rt_trial.h"
#include "rt_util.h"

#define MAX_CELLS 64

enum kind {
	K_CONTROL, K_SLOW, K_PARALLEL, K_HASHSEED, K_TZ, K_LOCALE, K_ENV,
	K_NONET, K_ORDER, K_SEED
};
static const char *const kind_name[] = {
	"control", "slow", "parallel", "hashseed", "tz", "locale", "env",
	"no-network", "order", "seed"
};
enum { ORD_NONE, ORD_REVERSE, ORD_SHUFFLE };

typedef struct {
	char **v;
	size_t n, cap;
} strv;

typedef struct {
	rt_tally t;
	long ended;               /* trials that ended, errors included */
	double elapsed_s;
	int sig;                  /* SIGINT/SIGTERM that stopped it, or 0 */
	int measured;             /* it ran (possibly interrupted) */
	int max_concurrent;
	double min_rest_ms;       /* shortest rest before a trial in its slot */
	double load_sum;
	long load_n;
	char *command;            /* trial 1's command */
} measurement;

typedef struct {
	enum kind kind;
	char *id;                 /* "slow:2000": the "cell" of its trial records */
	json_t *pert;             /* the "perturbation" object */
	double gap_ms;
	int jobs;
	char *var, *val;          /* one fixed VAR=value */
	int vary;                 /* PYTHONHASHSEED varied per trial */
	int order;
	int nonet;
	int available;            /* the probe passed (or is still to come) */
	char probe[512];          /* "ok" or "UNAVAILABLE: reason" */
	char detail[512];         /* what the probe saw */
	measurement m;
} cell;

typedef struct {
	rt_trial_opts o;
	strv argv, env, args;
	int busy;
	double ready_at;          /* rt_now_ms() when it may start again */
	double last_end;          /* engine time its last trial ended */
} slot;

static struct {
	rt_trial_cli cli;         /* the shared trial options; cli.o the base */
	long n;
	int jobs;
	double conf, threshold;
	uint64_t seed;
	const char *cmd;          /* --cmd, or NULL */
	char **head;              /* ARGV before the list */
	int nhead;
	char **list;              /* the list: --cmd operands or --order-args words */
	int nlist, haslist;
	const char *facts_path;
	FILE *facts;
	int text;
	int sig;                  /* SIGINT/SIGTERM that stopped the run */
	cell control;
	cell cells[MAX_CELLS];
	int ncells;
} M;

static void
usage(FILE *f)
{
	fputs(
"usage: rt-matrix [-n N] [--confidence C] [--threshold T] [--facts FILE] [--text]\n"
"                 [--slow MS] [--parallel N] [--hashseed fixed|vary] [--tz ZONE]\n"
"                 [--locale L] [--env VAR=value] [--no-network]\n"
"                 [--order reverse|shuffle] [--pin-seed RUNNER=N] [trial options]\n"
"                 (--cmd \"CMD\" [-- ITEM...] | -- ARGV... [--order-args ITEM...])\n"
"Measure a control and perturbed runs side by side, one record per perturbation.\n"
"  -n, --trials N         trials per cell (default 20)\n"
"      --confidence C     confidence of every interval (default 0.95)\n"
"      --threshold T      STABLE needs the upper bound below T (default 0.10)\n"
"      --facts FILE       keep every trial record, with its \"cell\", in FILE\n"
"      --text             a table for people instead of JSON records\n"
"Perturbations (each a cell of its own; at least one):\n"
"      --slow MS          rest MS milliseconds before each trial\n"
"      --parallel N       run N trials at once (more load)\n"
"      --hashseed fixed|vary  PYTHONHASHSEED=0, or another value each trial\n"
"      --tz ZONE          TZ=ZONE\n"
"      --locale L         LC_ALL=L\n"
"      --env VAR=VALUE    any variable (repeatable, one cell each)\n"
"      --no-network       each trial in a private network namespace (unshare -rn)\n"
"      --order reverse|shuffle  reorder the command's list (--cmd operands, or\n"
"                         the ARGV words after --order-args)\n"
"      --pin-seed RUNNER=N  every trial with the seed N of RUNNER: pytest-random-order,\n"
"                         pytest-randomly, hypothesis (PYTEST_ADDOPTS), go-shuffle\n"
"                         (GOFLAGS), rspec (SPEC_OPTS), PYTHONHASHSEED\n"
"                         (repeatable, one cell each)\n"
"Trial options (the control's, and every cell's unless it changes them):\n"
"  -c, --cmd CMD          the trial command, run by sh -c (or give -- ARGV)\n"
"  -j, --jobs N           parallel trials (default 1; 0 = one per CPU)\n"
"  -t, --timeout S        per-trial timeout in seconds (a timeout is a failure)\n"
"      --timeout-signal S signal sent first on timeout (default TERM)\n"
"      --grace S          seconds from that signal to SIGKILL (default 2)\n"
"      --gap-ms MS        rest before each trial, the first included (default 0)\n"
"      --max-output N     bytes of stdout and of stderr kept, head+tail (64 KiB)\n"
"      --seed S           base of each trial's RETRIAL_SEED (default random)\n"
"      --error-codes L    exit codes that mean infrastructure error (126,127)\n"
"      --fail-if RE       count a failure only if its output matches RE\n"
"      --ignore-if RE     set aside failures whose output matches RE\n"
"      --unset-env NAME   remove a variable from every trial (repeatable;\n"
"                         retrial's credentials and $RETRIAL_SCRUB always are)\n"
"      --keep-env NAME    pass a variable removed by default (repeatable)\n"
"      --keep-background  leave running what a trial left running\n"
"  -h, --help             this text\n"
"  -V, --version          the version\n", f);
}

static void
sv_add(strv *s, const char *x)
{
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->v = rt_xrealloc(s->v, s->cap * sizeof *s->v);
	}
	s->v[s->n++] = rt_xstrdup(x);
	s->v[s->n] = NULL;
}

static void
sv_free(strv *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

static int
valid_name(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

static cell *
add_cell(enum kind k, const char *optname, const char *value, const char *idval)
{
	cell *c;
	int i;

	if (M.ncells == MAX_CELLS)
		rt_usage_die("at most %d perturbations", MAX_CELLS);
	c = &M.cells[M.ncells];
	memset(c, 0, sizeof *c);
	c->kind = k;
	c->id = idval ? rt_xasprintf("%s:%s", kind_name[k], idval) :
	    rt_xstrdup(kind_name[k]);
	for (i = 0; i < M.ncells; i++)
		if (strcmp(M.cells[i].id, c->id) == 0)
			rt_usage_die("%s%s%s: given twice", optname,
			    value ? " " : "", value ? value : "");
	c->pert = json_object();
	c->available = 1;
	M.ncells++;
	return c;
}

static void
set_var(cell *c, const char *var, const char *val)
{
	c->var = rt_xstrdup(var);
	c->val = rt_xstrdup(val);
}

/* PYTHONHASHSEED for a trial of --hashseed vary: 1..4294967295 (0 would
 * turn randomisation off, which is what "fixed" means). */
static unsigned long
hash_value(long trial)
{
	return (unsigned long)(rt_mix64(rt_trial_seed(M.seed, trial) ^
	    0x5059544855ULL) % 4294967295ULL) + 1;
}

static int
list_same(char **a, char **b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(a[i], b[i]) != 0)
			return 0;
	return 1;
}

/* The list as a trial gets it: reversed, or shuffled by the trial's seed
 * (never left as it was, so every shuffled trial is a perturbed one). */
static void
order_items(const cell *c, long trial, strv *out)
{
	char **p;
	int i, j, tries;
	uint64_t x;

	if (M.nlist == 0)
		return;
	p = rt_xmalloc(M.nlist * sizeof *p);
	for (i = 0; i < M.nlist; i++)
		p[i] = M.list[i];
	if (c->order == ORD_REVERSE) {
		for (i = 0; i < M.nlist; i++)
			p[i] = M.list[M.nlist - 1 - i];
	} else if (c->order == ORD_SHUFFLE) {
		x = rt_trial_seed(M.seed, trial) ^ 0x53485546ULL;
		for (tries = 0; tries < 64 && list_same(p, M.list, M.nlist); tries++)
			for (i = M.nlist - 1; i > 0; i--) {
				char *t;
				x = rt_mix64(x);
				j = (int)(x % (uint64_t)(i + 1));
				t = p[i], p[i] = p[j], p[j] = t;
			}
	}
	for (i = 0; i < M.nlist; i++)
		sv_add(out, p[i]);
	free(p);
}

static void
base_opts(rt_trial_opts *o, const cell *c)
{
	*o = M.cli.o;
	o->shell_cmd = NULL;
	o->shell_args = NULL;
	o->argv = NULL;
	o->env_extra = NULL;
	o->jobs = c->jobs;
	o->gap_ms = c->gap_ms;
}

/* The options of one trial of cell c, their strings owned by s. */
static void
build_trial(const cell *c, long trial, slot *s)
{
	strv items = { 0 };
	size_t i;
	int k;

	sv_free(&s->argv);
	sv_free(&s->env);
	sv_free(&s->args);
	base_opts(&s->o, c);
	order_items(c, trial, &items);
	if (M.cmd && !c->nonet) {
		s->o.shell_cmd = M.cmd;
		for (i = 0; i < items.n; i++)
			sv_add(&s->args, items.v[i]);
		s->o.shell_args = s->args.v;
	} else {
		if (c->nonet) {
			sv_add(&s->argv, "unshare");
			sv_add(&s->argv, "-rn");
		}
		if (M.cmd) {
			sv_add(&s->argv, "sh");
			sv_add(&s->argv, "-c");
			sv_add(&s->argv, M.cmd);
			sv_add(&s->argv, "sh");
		} else
			for (k = 0; k < M.nhead; k++)
				sv_add(&s->argv, M.head[k]);
		for (i = 0; i < items.n; i++)
			sv_add(&s->argv, items.v[i]);
		s->o.argv = s->argv.v;
	}
	sv_free(&items);
	if (c->var) {
		char *kv = rt_xasprintf("%s=%s", c->var, c->val);
		sv_add(&s->env, kv);
		free(kv);
	} else if (c->vary) {
		char *kv = rt_xasprintf("PYTHONHASHSEED=%lu", hash_value(trial));
		sv_add(&s->env, kv);
		free(kv);
	}
	s->o.env_extra = s->env.v;
}

/* The command as text: with --cmd and a list, as the argv that runs
 * (sh -c CMD sh ITEM...), so the order each trial got is on record. */
static char *
command_text(const rt_trial_opts *o)
{
	rt_trial_opts t;
	strv v = { 0 };
	char *const *x;
	char *s;

	if (!o->shell_cmd || !o->shell_args || !o->shell_args[0])
		return rt_command_string(o);
	t = *o;
	sv_add(&v, "sh");
	sv_add(&v, "-c");
	sv_add(&v, o->shell_cmd);
	sv_add(&v, "sh");
	for (x = o->shell_args; *x; x++)
		sv_add(&v, *x);
	t.shell_cmd = NULL;
	t.shell_args = NULL;
	t.argv = v.v;
	s = rt_command_string(&t);
	sv_free(&v);
	return s;
}

static void
slot_free(slot *s)
{
	sv_free(&s->argv);
	sv_free(&s->env);
	sv_free(&s->args);
}

/* ---- probes ---- */

/* Run one probe trial to its end. 0, or -1 when SIGINT/SIGTERM came. */
static int
probe_run(const rt_trial_opts *o, rt_trial_result *res)
{
	rt_pool *r = rt_pool_new();
	void *tag;
	int rc;

	rt_pool_start(r, o, 1, NULL);
	while ((rc = rt_pool_wait(r, 1000, res, &tag)) == 0)
		if (!rt_pool_running(r))
			break;
	if (rc < 0)
		rt_pool_kill_all(r);
	rt_pool_free(r);
	if (rc == 0) {
		memset(res, 0, sizeof *res);
		res->outcome = RT_ERROR;
		snprintf(res->error, sizeof res->error,
		    "the trial engine reported no result");
	}
	return rc < 0 ? -1 : 0;
}

/* Why a probe trial did not pass, in a few words. */
static void
probe_why(const rt_trial_result *res, char *buf, size_t n)
{
	const char *e;
	size_t len;

	if (res->outcome == RT_ERROR && res->error[0])
		snprintf(buf, n, "%.*s", (int)(n > 0 ? n - 1 : 0), res->error);
	else if (res->outcome == RT_TIMEOUT)
		snprintf(buf, n, "timed out");
	else if (res->signal)
		snprintf(buf, n, "killed by signal %d", res->signal);
	else {
		e = res->err.data ? res->err.data : "";
		len = strcspn(e, "\n");
		if (len > 160)
			len = 160;
		snprintf(buf, n, "exit %d%s%.*s", res->exit_code,
		    len ? ": " : "", (int)len, e);
	}
}

/* Is "line" a whole line of text? */
static int
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while (p && *p) {
		if (strncmp(p, line, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
			return 1;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

static void
unavailable(cell *c, const char *fmt, ...)
{
	va_list ap;
	char why[400];

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	snprintf(c->probe, sizeof c->probe, "UNAVAILABLE: %s", why);
	c->available = 0;
}

/* Run `env` (argv, no shell) with the options trial `trial` of c gets and
 * check that the variable arrives with its value. -1 when interrupted. */
static int
probe_env(cell *c, long trial, const char *var, const char *val)
{
	slot s = { 0 };
	char *const envargv[] = { "env", NULL };
	rt_trial_result res;
	char *line, why[300];
	int rc, ok;

	build_trial(c, trial, &s);
	s.o.shell_cmd = NULL;
	s.o.shell_args = NULL;
	s.o.argv = envargv;
	rc = probe_run(&s.o, &res);
	slot_free(&s);
	if (rc < 0)
		return -1;
	line = rt_xasprintf("%s=%s", var, val);
	ok = res.outcome == RT_PASS && res.out.data && has_line(res.out.data, line);
	if (res.outcome != RT_PASS) {
		probe_why(&res, why, sizeof why);
		unavailable(c, "env(1) could not show the trial environment: %s", why);
	} else if (!ok)
		unavailable(c, "%s is not in the trial environment", line);
	free(line);
	rt_trial_result_free(&res);
	return 0;
}

/* Is a TZ value one the C library can use: a zoneinfo file or a POSIX
 * rule ("EST5EDT", "<+03>-3")? An unknown zone silently acts as UTC. */
static int
tz_known(const char *z)
{
	const char *dir = getenv("TZDIR");
	char *path;
	size_t i;
	int ok;

	if (*z == ':')
		z++;
	if (*z == '\0' || strstr(z, ".."))
		return 0;
	if (*z == '/')
		return access(z, R_OK) == 0;
	if (*z == '<')
		return 1;
	for (i = 0; (z[i] >= 'A' && z[i] <= 'Z') || (z[i] >= 'a' && z[i] <= 'z'); i++)
		;
	if (i >= 3 && (z[i] == '+' || z[i] == '-' || (z[i] >= '0' && z[i] <= '9')))
		return 1;
	path = rt_xasprintf("%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", z);
	ok = access(path, R_OK) == 0;
	free(path);
	return ok;
}

static int
probe_locale(cell *c)
{
	slot s = { 0 };
	char *const largv[] = { "locale", NULL };
	rt_trial_result res;
	int rc;

	build_trial(c, 1, &s);
	s.o.shell_cmd = NULL;
	s.o.shell_args = NULL;
	s.o.argv = largv;
	rc = probe_run(&s.o, &res);
	slot_free(&s);
	if (rc < 0)
		return -1;
	if (res.outcome == RT_ERROR)
		snprintf(c->detail, sizeof c->detail,
		    "LC_ALL=%s seen in env(1) of a probe trial; locale(1) did not run, "
		    "so the locale's existence is unchecked", c->val);
	else if (res.err.data && strstr(res.err.data, "Cannot set"))
		unavailable(c, "locale %s is not installed (locale(1): cannot set it)",
		    c->val);
	else
		snprintf(c->detail, sizeof c->detail,
		    "LC_ALL=%s seen in env(1) of a probe trial, and locale(1) accepts it",
		    c->val);
	rt_trial_result_free(&res);
	return 0;
}

/* unshare -rn true must pass, and inside the namespace /proc/net/dev must
 * list the loopback device only. */
static int
probe_nonet(cell *c)
{
	rt_trial_opts o;
	char *const t1[] = { "unshare", "-rn", "true", NULL };
	char *const t2[] = { "unshare", "-rn", "cat", "/proc/net/dev", NULL };
	rt_trial_result res;
	char why[300], other[200] = "";
	const char *p;
	int lo = 0;

	base_opts(&o, c);
	o.argv = t1;
	if (probe_run(&o, &res) < 0)
		return -1;
	if (res.outcome != RT_PASS) {
		probe_why(&res, why, sizeof why);
		unavailable(c, "unshare -rn true: %s", why);
		rt_trial_result_free(&res);
		return 0;
	}
	rt_trial_result_free(&res);
	o.argv = t2;
	if (probe_run(&o, &res) < 0)
		return -1;
	if (res.outcome != RT_PASS) {
		probe_why(&res, why, sizeof why);
		unavailable(c, "unshare -rn cat /proc/net/dev: %s", why);
		rt_trial_result_free(&res);
		return 0;
	}
	/* lines "  name: counters"; the two header lines have no ':' first */
	for (p = res.out.data; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		size_t sp = strspn(p, " "), len = strcspn(p + sp, ":\n");
		if (p[sp + len] != ':')
			continue;
		if (len == 2 && strncmp(p + sp, "lo", 2) == 0)
			lo = 1;
		else if (strlen(other) + len + 2 < sizeof other)
			snprintf(other + strlen(other), sizeof other - strlen(other),
			    "%s%.*s", *other ? " " : "", (int)len, p + sp);
	}
	if (*other)
		unavailable(c, "the namespace has devices besides lo: %s", other);
	else if (!lo)
		unavailable(c, "/proc/net/dev in the namespace lists no devices");
	else
		snprintf(c->detail, sizeof c->detail,
		    "unshare -rn true passed; inside the namespace /proc/net/dev "
		    "lists lo only");
	rt_trial_result_free(&res);
	return 0;
}

/* Words joined by spaces, cut with "..." to fit. */
static void
join_words(char *const *w, size_t n, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		size_t wl = strlen(w[i]);
		if (len + wl + 5 >= size) {
			snprintf(buf + len, size - len, "%s...", len ? " " : "");
			return;
		}
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
		    len ? " " : "", w[i]);
	}
}

/* Run printf over the reordered list through the same path the command
 * takes (sh -c with "$@", or argv) and check the order that arrives. */
static int
probe_order(cell *c)
{
	slot s = { 0 };
	strv want = { 0 }, pv = { 0 };
	rt_trial_result res;
	rt_buf expect = { 0 };
	char why[300];
	size_t i;
	int rc;

	if (!M.haslist || M.nlist == 0) {
		unavailable(c, "the command takes no list (give one after "
		    "--order-args, or as operands of --cmd)");
		return 0;
	}
	if (M.nlist < 2) {
		unavailable(c, "a list of one item cannot be reordered");
		return 0;
	}
	order_items(c, 1, &want);
	if (list_same(want.v, M.list, M.nlist)) {
		unavailable(c, "%s leaves the list as it is (its items are the same "
		    "in either order)", c->order == ORD_REVERSE ? "reversing" : "shuffling");
		sv_free(&want);
		return 0;
	}
	build_trial(c, 1, &s);
	if (s.o.shell_cmd) {
		s.o.shell_cmd = "printf '%s\\n' \"$@\"";
	} else {
		sv_add(&pv, "printf");
		sv_add(&pv, "%s\\n");
		for (i = 0; i < want.n; i++)
			sv_add(&pv, want.v[i]);
		s.o.argv = pv.v;
	}
	rc = probe_run(&s.o, &res);
	slot_free(&s);
	sv_free(&pv);
	if (rc < 0) {
		sv_free(&want);
		return -1;
	}
	for (i = 0; i < want.n; i++) {
		rt_buf_adds(&expect, want.v[i]);
		rt_buf_addc(&expect, '\n');
	}
	if (res.outcome != RT_PASS) {
		probe_why(&res, why, sizeof why);
		unavailable(c, "printf(1) over the list: %s", why);
	} else if (!res.out.data || strcmp(res.out.data, rt_buf_str(&expect)) != 0)
		unavailable(c, "the list did not arrive in the new order");
	else {
		char was[200], now[200];
		join_words(M.list, (size_t)M.nlist, was, sizeof was);
		join_words(want.v, want.n, now, sizeof now);
		snprintf(c->detail, sizeof c->detail, "%s: trial 1 gets %s "
		    "(was %s)", c->order == ORD_SHUFFLE ? "a new shuffle each trial" :
		    "reversed", now, was);
	}
	rt_buf_free(&expect);
	sv_free(&want);
	rt_trial_result_free(&res);
	return 0;
}

/* The probes that can run before measuring. -1 when interrupted. */
static int
probe_before(cell *c)
{
	const char *cur;

	switch (c->kind) {
	case K_HASHSEED:
		if (!c->vary) {
			if ((cur = getenv("PYTHONHASHSEED")) && strcmp(cur, "0") == 0) {
				unavailable(c, "the control already runs with PYTHONHASHSEED=0");
				return 0;
			}
			if (probe_env(c, 1, "PYTHONHASHSEED", "0") < 0)
				return -1;
			snprintf(c->detail, sizeof c->detail,
			    "PYTHONHASHSEED=0 seen in env(1) of a probe trial");
		} else {
			char a[24], b[24];
			snprintf(a, sizeof a, "%lu", hash_value(1));
			snprintf(b, sizeof b, "%lu", hash_value(2));
			if (probe_env(c, 1, "PYTHONHASHSEED", a) < 0)
				return -1;
			if (c->available && probe_env(c, 2, "PYTHONHASHSEED", b) < 0)
				return -1;
			if (c->available && strcmp(a, b) == 0)
				unavailable(c, "trials 1 and 2 got the same PYTHONHASHSEED");
			snprintf(c->detail, sizeof c->detail,
			    "env(1) of probe trials 1 and 2 shows PYTHONHASHSEED=%s and =%s",
			    a, b);
		}
		break;
	case K_TZ:
	case K_LOCALE:
	case K_ENV:
	case K_SEED:
		if ((cur = getenv(c->var)) && strcmp(cur, c->val) == 0) {
			unavailable(c, "the control already runs with %s=%s", c->var, c->val);
			return 0;
		}
		if (c->kind == K_TZ && !tz_known(c->val)) {
			unavailable(c, "TZ=%s is neither a zoneinfo zone nor a POSIX TZ "
			    "rule (it would act as UTC)", c->val);
			return 0;
		}
		if (probe_env(c, 1, c->var, c->val) < 0)
			return -1;
		if (!c->available)
			return 0;
		if (c->kind == K_LOCALE)
			return probe_locale(c);
		snprintf(c->detail, sizeof c->detail,
		    "%s=%s seen in env(1) of a probe trial", c->var, c->val);
		break;
	case K_NONET:
		return probe_nonet(c);
	case K_ORDER:
		return probe_order(c);
	default:
		break;
	}
	return 0;
}

/* The probes that need the measurement: the rests kept, the overlap seen. */
static void
probe_after(cell *c)
{
	const measurement *m = &c->m;

	if (c->kind == K_SLOW || c->kind == K_PARALLEL)
		snprintf(c->probe, sizeof c->probe, "ok");
	if (c->kind == K_SLOW) {
		if (m->ended == 0)
			unavailable(c, "no trial ran");
		else if (m->min_rest_ms < c->gap_ms - 0.5)
			unavailable(c, "a trial started %.1f ms after the previous one in "
			    "its slot ended, less than %g ms", m->min_rest_ms, c->gap_ms);
		else
			snprintf(c->detail, sizeof c->detail,
			    "every trial rested at least %.1f ms (asked %g ms) before it "
			    "started", m->min_rest_ms, c->gap_ms);
	} else if (c->kind == K_PARALLEL) {
		if (m->max_concurrent == 0)
			unavailable(c, "no trial started while another was running "
			    "(the trials may be too short to overlap)");
		else
			snprintf(c->detail, sizeof c->detail,
			    "up to %d other trials were running when a trial started",
			    m->max_concurrent);
	}
}

/* ---- measuring ---- */

static void
record_trial(cell *c, slot *s, const rt_trial_result *res)
{
	measurement *m = &c->m;
	double rest;

	rt_tally_add(&m->t, res->outcome);
	m->ended++;
	if (res->concurrent > m->max_concurrent)
		m->max_concurrent = res->concurrent;
	/* the engine's clock: start_ms counts from the runner's creation */
	rest = res->start_ms - s->last_end;
	s->last_end = res->start_ms + res->elapsed_ms;
	if (m->ended == 1 || rest < m->min_rest_ms)
		m->min_rest_ms = rest;
	if (res->load1 >= 0) {
		m->load_sum += res->load1;
		m->load_n++;
	}
	if (M.facts) {
		char *cmd = command_text(&s->o);
		json_t *j = rt_trial_json(res, &s->o, cmd);
		json_object_set_new(j, "cell", json_string(c->id));
		rt_emit(M.facts, j);
		json_decref(j);
		free(cmd);
	}
}

/* Run M.n trials of cell c in c->jobs slots, each slot resting
 * c->gap_ms before each trial. Returns the signal that stopped it, or 0. */
static int
measure(cell *c)
{
	measurement *m = &c->m;
	slot *sl = rt_xcalloc(c->jobs, sizeof *sl);
	rt_pool *r = rt_pool_new();
	double t0 = rt_now_ms(), now, wait_ms;
	long next = 1, outstanding = 0;
	rt_trial_result res;
	rt_progress prog;
	void *tag;
	int i, rc;

	m->measured = 1;
	rt_progress_init(&prog, M.n);
	rt_progress_update(&prog, 0, 0, 0, M.conf, c->id);
	for (i = 0; i < c->jobs; i++)
		sl[i].ready_at = t0 + c->gap_ms;
	while (m->ended < M.n && !rt_trial_interrupted()) {
		now = rt_now_ms();
		wait_ms = -1;
		for (i = 0; i < c->jobs && next <= M.n; i++) {
			if (sl[i].busy)
				continue;
			if (now >= sl[i].ready_at) {
				build_trial(c, next, &sl[i]);
				if (next == 1)
					m->command = command_text(&sl[i].o);
				sl[i].busy = 1;
				rt_pool_start(r, &sl[i].o, next, &sl[i]);
				next++;
				outstanding++;
			} else if (wait_ms < 0 || sl[i].ready_at - now < wait_ms)
				wait_ms = sl[i].ready_at - now;
		}
		if (outstanding == 0) {
			/* short naps, so a signal is seen soon */
			rt_sleep_ms(wait_ms > 100 ? 100 : wait_ms);
			continue;
		}
		rc = rt_pool_wait(r, wait_ms, &res, &tag);
		if (rc < 0)
			break;
		if (rc == 0) {
			if (wait_ms < 0 && !rt_pool_running(r))
				rt_die("the trial engine lost %ld running trials",
				    outstanding);
			continue;
		}
		outstanding--;
		record_trial(c, tag, &res);
		rt_trial_result_free(&res);
		((slot *)tag)->busy = 0;
		((slot *)tag)->ready_at = rt_now_ms() + c->gap_ms;
		rt_progress_update(&prog, m->ended, m->t.failures, m->t.trials,
		    M.conf, c->id);
	}
	if ((m->sig = rt_trial_interrupted()) != 0)
		rt_pool_kill_all(r);
	rt_pool_free(r);
	for (i = 0; i < c->jobs; i++)
		slot_free(&sl[i]);
	free(sl);
	m->elapsed_s = (rt_now_ms() - t0) / 1000;
	rt_progress_clear(&prog);
	return m->sig;
}

/* ---- records ---- */

static json_t *
env_facts(const cell *c)
{
	const measurement *m = &c->m;
	json_t *e = json_object();
	long t;

	json_object_set_new(e, "host", json_string(rt_hostname()));
	json_object_set_new(e, "load1", m->load_n ?
	    rt_json_real6(m->load_sum / m->load_n) : json_null());
	if (c->var)
		json_object_set_new(e, c->var, json_string(c->val));
	if (c->vary) {
		json_t *a = json_array();
		for (t = 1; t <= m->ended && t <= M.n; t++) {
			char v[24];
			snprintf(v, sizeof v, "%lu", hash_value(t));
			json_array_append_new(a, json_string(v));
		}
		json_object_set_new(e, "PYTHONHASHSEED", a);
	}
	if (c->nonet)
		json_object_set_new(e, "network", json_string("private namespace, lo only"));
	return e;
}

/* The measure fields (rt-measure(1)) of one cell, without "type". */
static json_t *
measure_json(const cell *c)
{
	const measurement *m = &c->m;
	json_t *o = json_object();

	json_object_set_new(o, "command", json_string(m->command ? m->command : ""));
	rt_measure_fields(o, &m->t, M.conf, M.threshold);
	json_object_set_new(o, "gap_ms", rt_json_real6(c->gap_ms));
	json_object_set_new(o, "jobs", json_integer(c->jobs));
	json_object_set_new(o, "elapsed_s", rt_json_real6(m->elapsed_s));
	json_object_set_new(o, "interrupted", json_boolean(m->sig != 0));
	json_object_set_new(o, "stopped", json_string(m->sig ? "interrupted" : "budget"));
	json_object_set_new(o, "max_concurrent", json_integer(m->max_concurrent));
	if (c->gap_ms > 0 && m->ended > 0)
		json_object_set_new(o, "min_rest_ms", rt_json_real6(m->min_rest_ms));
	json_object_set_new(o, "env", env_facts(c));
	return o;
}

typedef struct {
	int judged;               /* both measured, not interrupted, n > 0 */
	int separated, stabilises;
	double est, lo, hi;
	int have_diff;
	char note[200];
} judgement;

/* "implicated" only when the Wilson intervals are disjoint; overlapping
 * intervals are "not separated at this budget", never "no effect". */
static void
judge(const cell *c, judgement *j)
{
	const rt_tally *tc = &M.control.m.t, *tp = &c->m.t;
	rt_interval wc, wp, d;

	memset(j, 0, sizeof *j);
	if (!c->available) {
		snprintf(j->note, sizeof j->note, "not measured: the perturbation "
		    "could not be shown to take effect");
		return;
	}
	if (!c->m.measured) {
		snprintf(j->note, sizeof j->note, "%s", M.sig ?
		    "interrupted before this cell was measured: not judged" :
		    "not measured: the control had no valid trial");
		return;
	}
	if (tc->trials > 0 && tp->trials > 0 &&
	    rt_newcombe(tp->failures, tp->trials, tc->failures, tc->trials,
	    M.conf, &d) == RT_STATS_OK) {
		j->have_diff = 1;
		j->est = (double)tp->failures / tp->trials -
		    (double)tc->failures / tc->trials;
		j->lo = d.low;
		j->hi = d.high;
	}
	if (c->m.sig) {
		snprintf(j->note, sizeof j->note, "interrupted after %ld of %ld "
		    "trials: not judged", c->m.ended, M.n);
		return;
	}
	j->judged = 1;
	if (tc->trials == 0 || tp->trials == 0) {
		snprintf(j->note, sizeof j->note, "no valid trial in the %s "
		    "measurement: not separated at this budget",
		    tc->trials == 0 ? "control" : "perturbed");
		return;
	}
	rt_wilson(tc->failures, tc->trials, M.conf, &wc);
	rt_wilson(tp->failures, tp->trials, M.conf, &wp);
	if (wp.high < wc.low || wp.low > wc.high) {
		j->separated = 1;
		j->stabilises = wp.high < wc.low;
		snprintf(j->note, sizeof j->note, "intervals disjoint");
	} else
		snprintf(j->note, sizeof j->note, "not separated at this budget");
}

static json_t *
experiment_json(const cell *c, const judgement *j)
{
	json_t *r = json_object(), *d;

	json_object_set_new(r, "type", json_string("experiment"));
	json_object_set_new(r, "name", json_string(kind_name[c->kind]));
	json_object_set_new(r, "cell", json_string(c->id));
	json_object_set_new(r, "perturbation", json_incref(c->pert));
	json_object_set_new(r, "probe", json_string(c->probe[0] ? c->probe :
	    "not run"));
	json_object_set_new(r, "probe_detail", c->detail[0] && c->available ?
	    json_string(c->detail) : json_null());
	json_object_set_new(r, "control", M.control.m.measured ?
	    measure_json(&M.control) : json_null());
	json_object_set_new(r, "control_shared", json_true());
	json_object_set_new(r, "perturbed", c->available && c->m.measured ?
	    measure_json(c) : json_null());
	if (j->have_diff) {
		d = json_object();
		json_object_set_new(d, "estimate", rt_json_real6(j->est));
		json_object_set_new(d, "ci_low", rt_json_real6(j->lo));
		json_object_set_new(d, "ci_high", rt_json_real6(j->hi));
		json_object_set_new(d, "confidence", rt_json_real6(M.conf));
		json_object_set_new(d, "method", json_string("newcombe"));
		json_object_set_new(r, "difference", d);
	} else
		json_object_set_new(r, "difference", json_null());
	if (j->judged) {
		json_object_set_new(r, "separated", json_boolean(j->separated));
		json_object_set_new(r, "implicated", json_boolean(j->separated));
		json_object_set_new(r, "effect", j->separated ? json_string(
		    j->stabilises ? "stabilises" : "destabilises") : json_null());
		json_object_set_new(r, "changed", json_boolean(j->separated));
	} else {
		json_object_set_new(r, "separated", json_null());
		json_object_set_new(r, "implicated", json_null());
		json_object_set_new(r, "effect", json_null());
		json_object_set_new(r, "changed", json_null());
	}
	json_object_set_new(r, "note", json_string(j->note));
	{
		char sd[32];
		snprintf(sd, sizeof sd, "%llu", (unsigned long long)M.seed);
		json_object_set_new(r, "seed", json_string(sd));
	}
	json_object_set_new(r, "interrupted", json_boolean(M.sig != 0));
	return r;
}

static void
rate_text(const measurement *m, char *buf, size_t n)
{
	rt_rate_text(buf, n, m->t.failures, m->t.trials, M.conf);
	if (m->t.errors)
		snprintf(buf + strlen(buf), n - strlen(buf), ", %ld errors", m->t.errors);
	if (m->sig)
		snprintf(buf + strlen(buf), n - strlen(buf), " (interrupted)");
}

static void
text_header(void)
{
	char rate[200];

	printf("%-24s %-6s %-22s %-28s %s\n", "CELL", "PROBE", "CHANGED",
	    "DIFFERENCE (pts)", "FAILED");
	rate_text(&M.control.m, rate, sizeof rate);
	printf("%-24s %-6s %-22s %-28s %s\n", "control", "-", "-", "-", rate);
}

static void
text_row(const cell *c, const judgement *j)
{
	char rate[200], diff[64] = "-", changed[40] = "-";
	const char *ok = strcmp(c->probe, "ok") == 0 ? "ok" : "-";

	if (!c->available) {
		printf("%-24s %s\n", c->id, c->probe);
		return;
	}
	if (!c->m.measured) {
		printf("%-24s %-6s %s\n", c->id, ok, j->note);
		return;
	}
	rate_text(&c->m, rate, sizeof rate);
	if (j->have_diff) {
		/* the interval's ends rounded outward (lib/rt_say) */
		char e[16], lo[16], hi[16];
		rt_say_points(e, sizeof e, j->est, RT_SAY_NEAR);
		rt_say_points(lo, sizeof lo, j->lo, RT_SAY_DOWN);
		rt_say_points(hi, sizeof hi, j->hi, RT_SAY_UP);
		snprintf(diff, sizeof diff, "%s (%s to %s)", e, lo, hi);
	}
	if (j->judged)
		snprintf(changed, sizeof changed, "%s", j->separated ?
		    (j->stabilises ? "yes: stabilises" : "yes: destabilises") :
		    "not separated");
	else
		snprintf(changed, sizeof changed, "interrupted");
	printf("%-24s %-6s %-22s %-28s %s\n", c->id, ok, changed, diff, rate);
}

static void
emit(const cell *c)
{
	judgement j;
	json_t *r;

	judge(c, &j);
	if (M.text) {
		text_row(c, &j);
		rt_fpart(stdout, "stdout");
		return;
	}
	r = experiment_json(c, &j);
	(void)rt_emit_try(stdout, r);
	rt_fpart(stdout, "stdout");
	json_decref(r);
}

static _Noreturn void
finish(int sig)
{
	if (M.text && sig)
		printf("interrupted by %s\n", sig == SIGINT ? "SIGINT" :
		    sig == SIGHUP ? "SIGHUP" : "SIGTERM");
	else if (M.text)
		printf("The control was measured once (gap %g ms, -j %d) and is shared "
		    "by every row. Intervals: Wilson at %g%%; difference = perturbed - "
		    "control, Newcombe.\n", M.cli.o.gap_ms, M.jobs, 100 * M.conf);
	if (M.facts) {
		if (rt_output_close(M.facts) != 0)
			rt_die("%s: write error:", M.facts_path);
	}
	rt_fshut(stdout, "stdout");
	if (sig)
		exit(rt_signal_status(sig));
	if (M.control.m.measured && M.control.m.t.trials == 0) {
		rt_warn("control: no valid trial (%ld errors): nothing to compare",
		    M.control.m.t.errors);
		exit(RT_EXIT_ERR);
	}
	exit(RT_EXIT_OK);
}

/* Interrupted: the cell underway gets the last record, "interrupted":true. */
static _Noreturn void
interrupted(cell *c)
{
	M.sig = rt_trial_interrupted() ? rt_trial_interrupted() : SIGINT;
	if (c->m.measured && c->m.ended > 0)
		probe_after(c);
	else if (c->available && !c->probe[0])
		snprintf(c->probe, sizeof c->probe, "not run: interrupted");
	emit(c);
	finish(M.sig);
}

/* ---- options ---- */

enum {
	O_THRESHOLD = RT_OPT_TOOL_BASE, O_CONF, O_FACTS, O_TEXT, O_SLOW,
	O_PARALLEL, O_HASHSEED, O_TZ, O_LOCALE, O_NONET, O_ORDER, O_PINSEED
};

static const struct option longopts[] = {
	RT_TRIAL_LONGOPTS,
	{ "trials", required_argument, NULL, 'n' },
	{ "confidence", required_argument, NULL, O_CONF },
	{ "threshold", required_argument, NULL, O_THRESHOLD },
	{ "facts", required_argument, NULL, O_FACTS },
	{ "text", no_argument, NULL, O_TEXT },
	{ "slow", required_argument, NULL, O_SLOW },
	{ "parallel", required_argument, NULL, O_PARALLEL },
	{ "hashseed", required_argument, NULL, O_HASHSEED },
	{ "tz", required_argument, NULL, O_TZ },
	{ "locale", required_argument, NULL, O_LOCALE },
	{ "no-network", no_argument, NULL, O_NONET },
	{ "order", required_argument, NULL, O_ORDER },
	{ "pin-seed", required_argument, NULL, O_PINSEED },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	RT_LIST_OPTIONS_LONGOPT,
	{ NULL, 0, NULL, 0 }
};

static void
perturbation(int opt, const char *arg)
{
	cell *c;
	const char *eq;
	char *var;

	switch (opt) {
	case O_SLOW: {
		double ms = rt_num_double("--slow", arg, 0, 86400000, 1, 0);
		char v[32];
		snprintf(v, sizeof v, "%g", ms);
		c = add_cell(K_SLOW, "--slow", arg, v);
		c->gap_ms = ms;
		json_object_set_new(c->pert, "gap_ms", rt_json_real6(ms));
		break;
	}
	case O_PARALLEL: {
		long j = rt_num_long("--parallel", arg, 2, 1024);
		char v[24];
		snprintf(v, sizeof v, "%ld", j);
		c = add_cell(K_PARALLEL, "--parallel", arg, v);
		c->jobs = (int)j;
		json_object_set_new(c->pert, "jobs", json_integer(j));
		break;
	}
	case O_HASHSEED:
		if (strcmp(arg, "fixed") != 0 && strcmp(arg, "vary") != 0)
			rt_usage_die("--hashseed %s: must be fixed or vary", arg);
		c = add_cell(K_HASHSEED, "--hashseed", arg, arg);
		if (*arg == 'f')
			set_var(c, "PYTHONHASHSEED", "0");
		else
			c->vary = 1;
		json_object_set_new(c->pert, "PYTHONHASHSEED", json_string(
		    c->vary ? "varied per trial" : "0"));
		break;
	case O_TZ:
		if (!*arg)
			rt_usage_die("--tz: empty zone");
		c = add_cell(K_TZ, "--tz", arg, arg);
		set_var(c, "TZ", arg);
		json_object_set_new(c->pert, "TZ", json_string(arg));
		break;
	case O_LOCALE:
		if (!*arg)
			rt_usage_die("--locale: empty locale");
		c = add_cell(K_LOCALE, "--locale", arg, arg);
		set_var(c, "LC_ALL", arg);
		json_object_set_new(c->pert, "LC_ALL", json_string(arg));
		break;
	case RT_OPT_ENV:
		eq = strchr(arg, '=');
		if (!eq || !valid_name(arg, (size_t)(eq - arg)))
			rt_usage_die("--env %s: must be VAR=value with VAR a "
			    "variable name", arg);
		if (strncmp(arg, "RETRIAL_", 8) == 0)
			rt_usage_die("--env %s: RETRIAL_ variables belong to the "
			    "trial engine", arg);
		c = add_cell(K_ENV, "--env", arg, arg);
		var = rt_xasprintf("%.*s", (int)(eq - arg), arg);
		set_var(c, var, eq + 1);
		free(var);
		json_object_set_new(c->pert, c->var, json_string(c->val));
		break;
	case O_NONET:
		c = add_cell(K_NONET, "--no-network", NULL, NULL);
		c->nonet = 1;
		json_object_set_new(c->pert, "network", json_string("none"));
		json_object_set_new(c->pert, "via", json_string("unshare -rn"));
		break;
	case O_ORDER:
		if (strcmp(arg, "reverse") != 0 && strcmp(arg, "shuffle") != 0)
			rt_usage_die("--order %s: must be reverse or shuffle", arg);
		c = add_cell(K_ORDER, "--order", arg, arg);
		c->order = *arg == 'r' ? ORD_REVERSE : ORD_SHUFFLE;
		json_object_set_new(c->pert, "order", json_string(arg));
		break;
	case O_PINSEED: {
		/* the runner's own option through the variable it reads, so that
		 * --cmd and ARGV commands alike get it (rt_seed_pin) */
		const char *pvar, *const *r;
		char *runner, *val;
		int rc;

		if (!(eq = strchr(arg, '=')))
			rt_usage_die("--pin-seed %s: must be RUNNER=N", arg);
		runner = rt_xasprintf("%.*s", (int)(eq - arg), arg);
		for (r = rt_seed_names(); *r && strcmp(*r, runner) != 0; r++)
			;
		if (!*r) {
			rt_buf names = { 0 };
			for (r = rt_seed_names(); *r; r++)
				rt_buf_printf(&names, "%s%s", r == rt_seed_names() ? "" : ", ", *r);
			rt_usage_die("--pin-seed %s: unknown runner %s (%s)", arg, runner,
			    rt_buf_str(&names));
		}
		rc = rt_seed_pin(runner, eq + 1, NULL, &pvar, &val);
		if (rc < 0)
			rt_usage_die("--pin-seed %s: the seed must be digits", arg);
		free(val);
		rt_seed_pin(runner, eq + 1, getenv(pvar), &pvar, &val);
		c = add_cell(K_SEED, "--pin-seed", arg, arg);
		set_var(c, pvar, val);
		json_object_set_new(c->pert, "runner", json_string(runner));
		json_object_set_new(c->pert, "seed", json_string(eq + 1));
		json_object_set_new(c->pert, pvar, json_string(val));
		free(val);
		free(runner);
		break;
	}
	}
}

static void
parse(int argc, char *argv[])
{
	int opt, i, cut;

	rt_trial_cli_init(&M.cli);
	M.n = 20;
	M.conf = 0.95;
	M.threshold = 0.1;
	opterr = 0;
	/* '+': stop at the first operand, so ARGV's own options stay its own */
	rt_config_apply("rt-matrix", longopts, &argc, &argv);
	while ((opt = getopt_long(argc, argv, "+" RT_TRIAL_SHORTOPTS "hn:V",
	    longopts, NULL)) != -1) {
		/* --env is a perturbation here, not a variable of every trial */
		if (opt != RT_OPT_ENV && rt_trial_cli_opt(&M.cli, opt, optarg))
			continue;
		switch (opt) {
		case RT_OPT_LIST_OPTIONS: exit(rt_cli_list_options(longopts));
		case 'h':
			usage(stdout);
			rt_fshut(stdout, "stdout");
			exit(RT_EXIT_OK);
		case 'n':
			M.n = rt_num_long("-n", optarg, 1, 1000000);
			break;
		case 'V':
			rt_print_version();
			rt_fshut(stdout, "stdout");
			exit(RT_EXIT_OK);
		case O_CONF:
			M.conf = rt_num_confidence("--confidence", optarg);
			break;
		case O_THRESHOLD:
			M.threshold = rt_num_double("--threshold", optarg, 0, 1, 1, 1);
			break;
		case O_FACTS:
			M.facts_path = optarg;
			break;
		case O_TEXT:
			M.text = 1;
			break;
		case O_SLOW: case O_PARALLEL: case O_HASHSEED: case O_TZ:
		case O_LOCALE: case RT_OPT_ENV: case O_NONET: case O_ORDER:
		case O_PINSEED:
			perturbation(opt, optarg);
			break;
		default:
			rt_bad_option(opt, RT_TRIAL_SHORTOPTS "hn:V", argv);
		}
	}
	M.cmd = M.cli.cmd;
	if (optind < argc && strcmp(argv[optind - 1], "--") != 0)
		rt_usage_die("%s: unexpected operand (put the command after --, "
		    "or use --cmd)", argv[optind]);
	if (M.cmd) {
		/* operands after -- are the shell's "$@": the list */
		M.list = argv + optind;
		M.nlist = argc - optind;
		M.haslist = M.nlist > 0;
		rt_trial_cli_finish(&M.cli, optind, argv, optind, 1);
	} else {
		cut = argc;
		for (i = optind; i < argc; i++)
			if (strcmp(argv[i], "--order-args") == 0) {
				cut = i;
				M.list = argv + i + 1;
				M.nlist = argc - i - 1;
				M.haslist = 1;
				argv[i] = NULL;
				break;
			}
		if (cut == optind && optind < argc)
			rt_usage_die("no command before --order-args");
		rt_trial_cli_finish(&M.cli, cut, argv, optind, 1);
		M.head = argv + optind;
		M.nhead = cut - optind;
	}
	M.jobs = M.cli.o.jobs;
	M.seed = M.cli.o.seed;
	/* a pin the command would override is refused, never reported "ok" */
	for (i = 0; i < M.ncells; i++) {
		cell *c = &M.cells[i];
		const char *runner, *seed;
		char *w;
		if (c->kind != K_SEED)
			continue;
		runner = json_string_value(json_object_get(c->pert, "runner"));
		seed = json_string_value(json_object_get(c->pert, "seed"));
		if (runner && (w = rt_seed_conflict(runner, M.cli.cmd, M.cli.argv)))
			rt_usage_die("--pin-seed %s=%s: the command's own \"%s\" would override "
			    "the pin: take it out of the command", runner, seed ? seed : "", w);
	}
	if (M.ncells == 0)
		rt_usage_die("no perturbation: give one or more of --slow, "
		    "--parallel, --hashseed, --tz, --locale, --env, --no-network, --order, "
		    "--pin-seed");
	for (i = 0; i < M.ncells; i++) {
		cell *c = &M.cells[i];
		if (c->kind == K_SLOW && c->gap_ms <= M.cli.o.gap_ms)
			rt_usage_die("--slow %g: the control already rests %g ms "
			    "(--gap-ms)", c->gap_ms, M.cli.o.gap_ms);
		if (c->kind != K_SLOW)
			c->gap_ms = M.cli.o.gap_ms;
		if (c->kind != K_PARALLEL)
			c->jobs = M.jobs;
		else if (c->jobs == M.jobs)
			rt_usage_die("--parallel %d: the control already runs -j %d",
			    c->jobs, M.jobs);
	}
	M.control.kind = K_CONTROL;
	M.control.id = rt_xstrdup("control");
	M.control.jobs = M.jobs;
	M.control.gap_ms = M.cli.o.gap_ms;
	M.control.available = 1;
}

int
main(int argc, char *argv[])
{
	int i;

	rt_setprogname(argv[0]);
	rt_secret_protect();
	parse(argc, argv);
	if (M.facts_path && !(M.facts = rt_output_open(M.facts_path, RT_OUT_LOCK)))
		rt_output_die(M.facts_path);
	rt_trial_signals_install();

	for (i = 0; i < M.ncells; i++) {
		cell *c = &M.cells[i];
		if (probe_before(c) < 0)
			interrupted(c);
		/* slow and parallel are proven by the trials themselves */
		if (c->available && !c->probe[0] && c->kind != K_SLOW &&
		    c->kind != K_PARALLEL)
			snprintf(c->probe, sizeof c->probe, "ok");
	}
	if (measure(&M.control))
		interrupted(&M.cells[0]);
	if (M.text)
		text_header();
	for (i = 0; i < M.ncells; i++) {
		cell *c = &M.cells[i];
		if (c->available && M.control.m.t.trials > 0) {
			if (measure(c))
				interrupted(c);
			probe_after(c);
		}
		emit(c);
	}
	finish(0);
}
