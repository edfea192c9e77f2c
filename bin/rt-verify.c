/* rt-verify: race every hypothesis' patch in its own copy of the project on
 * fresh reruns, disqualify patches that stop testing, confirm the winner. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rt_cases.h"
#include "rt_cli.h"
#include "rt_canary.h"
#include "rt_guard.h"
#include "rt_jsonl.h"
#include "rt_records.h"
#include "rt_out.h"
#include "rt_patch.h"
#include "rt_platform.h"
#include "rt_race.h"
#include "rt_sandbox.h"
#include "rt_stats.h"
#include "rt_store.h"
#include "rt_trial.h"
#include "rt_fs.h"
#include "rt_util.h"

enum {
	OPT_CONF = RT_OPT_TOOL_BASE, OPT_TARGET, OPT_ISOLATE, OPT_KEEP,
	OPT_GENOME, OPT_NO_GENOME, OPT_EVENTS, OPT_BOARD, OPT_NO_CANARY,
	OPT_TEST, OPT_CASE, OPT_CONFIRMS, OPT_ALLOW, OPT_ALLOW_PATH, OPT_RACE_FAILING,
	OPT_SANDBOX, OPT_NETWORK
};

typedef struct lane {
	const char *id, *source, *model, *cause, *explanation, *patch;
	const char *hstatus;         /* the hypothesis' own status */
	json_t *hyp;
	char **files;
	size_t nfiles;
	int index;                   /* order in the input */
	char *dir;                   /* its copy (the template with --isolate copy) */
	rt_trial_opts o;
	rt_tally t;
	long started, inflight, limit, next_trial;
	int done, better, anytime, raced;
	int owned;                   /* its copy is the sandbox uid's */
	const char *status, *rule;
	char reason[800];
	char first_error[640];
	rt_interval iv;
	double cm;                   /* a confirmation round's confidence, or 0 */
	json_t *confirm;             /* its confirmation round, if it had one */
	/* the paired race: outcomes by trial number (0 pending, 'p', 'f', 'e'),
	 * then the valid ones in trial order (1 failed), paired index by index
	 * with the original's */
	unsigned char *oc, *vs;
	long ocap, scan, nv, vcap, paired, more;
	rt_race_pairs rp;
	rt_interval q;
	int canary;                  /* a canary probe: stops at CANARY_K either way */
	json_t *canary_rec;          /* what the canary found */
	json_t *overruled;           /* rules --allow overruled for this lane */
	int changes_checks;          /* its patch changes a test's checks (the guard's inventories) */
	json_t *checks;              /* those changes, or NULL */
	long diff_lines;             /* lines its patch adds or removes */
	char guard[256];             /* how the guard read the tests */
} lane;

typedef struct ttag {
	lane *l;
	rt_trial_opts o;
	char *dir;                   /* a per-trial copy, removed after the trial */
	char *jdir;                  /* --case: the trial's private report directory */
	rt_cases_dir jd;
	struct ttag *prev, *next;
} ttag;

static struct {
	/* options */
	double conf, target;
	long n0, nmax, confirms;
	int copy_each, keep, no_genome, board_forced, canary, nmax_given;
	char **allow;                /* --allow RULE, NULL-terminated */
	size_t nallow;
	char **allow_path;           /* --allow-path GLOB, NULL-terminated */
	int race_failing;            /* --race-failing */
	rt_sandbox_want sandbox_want; /* --sandbox */
	int network;                 /* --network */
	rt_sandbox sb;
	size_t nallow_path;
	const char *genome, *events_path, *test, *dir_opt;
	const char *judge;           /* --case ID: every trial judged on that case */
	rt_trial_cli cli;
	char **infiles;
	int ninfiles;
	/* state */
	char *project;               /* absolute */
	const char *pname;           /* its last component: every copy's name */
	char *tmp;                   /* our temp root */
	dev_t tmp_dev;
	ino_t tmp_ino;
	rt_runner *runner;
	ttag *inflight;
	int jobs;
	FILE *events;
	double t0;
	lane **lanes;
	size_t nlanes;
	lane base;
	json_t *measure_in;          /* a measure record from the input */
	double L0, U0;               /* the baseline's interval */
	long fresh;                  /* next never-used trial number */
	int board_live, board_end, board_lines;
	double board_at;
	const char *phase;
	int ncopies;
	lane *rounds[100];           /* the confirmation rounds, for the board */
	int nrounds;
	long copied;                 /* entries copied by the current copy */
	int warned_big;
	int racing;                  /* the race is on: the baseline runs with the lanes */
	long base_input;             /* baseline trials that came from a record */
	long base_input_errors;      /* its errors and ignored trials */
	long canary_trials;          /* trials every canary spent */
	rt_buf evidence;             /* stdout and stderr of failing baseline trials */
	int nevidence;
} V;

/* A project this large is probably not the test's project (-C defaults to
 * the current directory): say so once. */
#define BIG_PROJECT 10000
#define CANARY_K 3

static void
usage(FILE *f)
{
	fputs(
"usage: rt-verify [-C DIR] [-n N] [-N N] [--confidence C] [--target R]\n"
"                 [--isolate process|copy] [--confirmations M] [--keep]\n"
"                 [--genome FILE | --no-genome] [--events FILE] [--board]\n"
"                 [--no-canary] [--allow RULE] [--allow-path GLOB] [--race-failing]\n"
"                 [--test NAME] [--case ID] [--sandbox auto|bwrap|none] [--network]\n"
"                 [trial options]\n"
"                 (--cmd \"CMD\" [hypothesis-file ...] | -- ARGV...)\n"
"Race each hypothesis' patch on fresh reruns and confirm the winner.\n"
"  -C, --dir DIR          the project (default: the current directory)\n"
"  -n, --trials N         baseline trials, unless the input has a measure record\n"
"                         (default 40)\n"
"  -N, --max-trials N     the most trials one lane may run (default: derived\n"
"                         from the original's measured rate)\n"
"      --confidence C     confidence level (default 0.95)\n"
"      --target R         the residual rate FIXED must prove (default 0.10)\n"
"      --isolate MODE     process: a fresh process per trial in the lane's copy\n"
"                         (default); copy: a fresh copy of the project per trial\n"
"      --confirmations M  candidates confirmed at most, winner first (default 2)\n"
"      --keep             keep the copies (their directory is printed)\n"
"      --genome FILE      the genome database (default\n"
"                         $XDG_DATA_HOME/retrial/genome.db)\n"
"      --no-genome        do not record this run\n"
"      --events FILE      write a JSONL event stream to FILE\n"
"      --board            print the lane board on stderr even when not a terminal\n"
"      --no-canary        skip the dynamic assertion canary\n"
"      --allow RULE       overrule one guard rule (repeatable; recorded)\n"
"      --allow-path GLOB  let patches touch CI configuration, hooks, .gitmodules\n"
"                         or .gitattributes matching GLOB (repeatable; recorded)\n"
"      --race-failing     race even when the original fails every trial\n"
"                         (an ordered \"polluter victim\" pair)\n"
"      --test NAME        the test's name in records (default: the command)\n"
"      --case ID          judge every trial (baseline, lanes, canary,\n"
"                         confirmations) by that test case's own outcome (the\n"
"                         runner's ID); the canary goes into that test\n"
"      --sandbox MODE     auto: confine every trial to its copy where the system\n"
"                         allows (default); bwrap: bubblewrap or exit 2;\n"
"                         none: unconfined (recorded, and warned about)\n"
"      --network          let sandboxed trials reach the network (recorded)\n", f);
	rt_trial_cli_usage(f);
	fputs(
"  -h, --help             this text\n"
"  -V, --version          the version\n", f);
}

/* ---- small text helpers ---- */

/* The numbers are lib/rt_say's: a value to nearest, bounds outward. */
static void
pct(char *buf, size_t size, double v)
{
	rt_say_num(buf, size, v, RT_SAY_NEAR);
}

/* "19.1%–51.3%" */
static const char *
ivtext(char *buf, size_t size, double lo, double hi)
{
	rt_say_range(buf, size, lo, hi);
	return buf;
}

/* A lane's interval for reasons and the board: zero failures are given by
 * their upper bound ("≤28.0%"), never as a bare 0. */
static const char *
laneiv(char *buf, size_t size, const lane *l)
{
	char h[32];

	if (l->t.trials > 0 && l->t.failures == 0) {
		rt_say_pct(h, sizeof h, l->iv.high, RT_SAY_UP);
		snprintf(buf, size, "≤%s", h);
	} else
		ivtext(buf, size, l->iv.low, l->iv.high);
	return buf;
}

static double
elapsed_s(double since_ms)
{
	return (rt_now_ms() - since_ms) / 1000;
}

/* The lane's own summary, with the interval its decisions used. */
static void
lane_summary(const lane *l, char *buf, size_t size)
{
	if (l->t.trials == 0) {
		snprintf(buf, size, l->t.errors ? "no valid trial (%ld errors)" : "not run",
		    l->t.errors);
		return;
	}
	if (l->anytime)
		rt_say_count_iv(buf, size, l->t.failures, l->t.trials, V.conf, "failed", &l->iv,
		    "anytime", NULL);
	else
		rt_say_count(buf, size, l->t.failures, l->t.trials, V.conf, "failed");
}

static json_t *
jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *
lane_json(const lane *l, int with_type)
{
	json_t *o = json_object();
	char sum[200];

	if (with_type)
		json_object_set_new(o, "type", json_string("lane"));
	json_object_set_new(o, "id", json_string(l->id));
	json_object_set_new(o, "source", jstr_or_null(l->source));
	json_object_set_new(o, "model", jstr_or_null(l->model));
	json_object_set_new(o, "cause_class", jstr_or_null(l->cause));
	json_object_set_new(o, "status", json_string(l->status ? l->status : "not_raced"));
	json_object_set_new(o, "reason", json_string(l->reason));
	json_object_set_new(o, "rule", jstr_or_null(l->rule));
	json_object_set_new(o, "trials", json_integer(l->t.trials));
	json_object_set_new(o, "failures", json_integer(l->t.failures));
	json_object_set_new(o, "errors", json_integer(l->t.errors));
	json_object_set_new(o, "rate", l->t.trials > 0 ?
	    rt_json_real6((double)l->t.failures / (double)l->t.trials) : json_null());
	json_object_set_new(o, "ci_low", rt_json_real6(l->t.trials ? l->iv.low : 0));
	json_object_set_new(o, "ci_high", rt_json_real6(l->t.trials ? l->iv.high : 1));
	json_object_set_new(o, "interval", json_string("anytime"));
	lane_summary(l, sum, sizeof sum);
	json_object_set_new(o, "summary", json_string(sum));
	if (l->rp.pairs > 0 || l->better)
		json_object_set_new(o, "pairs", json_pack("{s:I,s:I,s:I,s:I,s:o,s:o,s:s}",
		    "pairs", (json_int_t)l->rp.pairs, "original_only",
		    (json_int_t)l->rp.base_only, "lane_only", (json_int_t)l->rp.lane_only,
		    "both", (json_int_t)l->rp.both, "share_low", rt_json_real6(l->q.low),
		    "share_high", rt_json_real6(l->q.high), "interval", "anytime"));
	if (l->limit > 0 && l->raced)
		json_object_set_new(o, "budget", json_integer(l->limit));
	if (l->more > 0)
		json_object_set_new(o, "more_trials", json_integer(l->more));
	if (l->canary_rec)
		json_object_set_new(o, "canary", json_deep_copy(l->canary_rec));
	if (l->overruled)
		json_object_set_new(o, "overruled", json_deep_copy(l->overruled));
	if (l->guard[0])
		json_object_set_new(o, "guard", json_string(l->guard));
	if (l->dir || l->raced) {
		json_object_set_new(o, "changes_checks", json_boolean(l->changes_checks));
		if (l->checks)
			json_object_set_new(o, "checks", json_deep_copy(l->checks));
		json_object_set_new(o, "diff_lines", json_integer(l->diff_lines));
	}
	return o;
}

/* ---- events ---- */

static void
event(const char *name, json_t *fields)
{
	json_t *e;

	if (!V.events) {
		json_decref(fields);
		return;
	}
	e = fields ? fields : json_object();
	json_object_set_new(e, "type", json_string("event"));
	json_object_set_new(e, "event", json_string(name));
	json_object_set_new(e, "t", rt_json_real6(elapsed_s(V.t0)));
	if (rt_emit_try(V.events, e) < 0)
		rt_fpart(V.events, V.events_path);
	json_decref(e);
}

/* ---- the board ---- */

static void
board_line(rt_buf *b, const char *name, const char *cls, const lane *l,
    const char *state)
{
	char iv[40] = "-", nm[24], cl[24];
	size_t i, cols = 0;

	snprintf(nm, sizeof nm, "%s", name);
	snprintf(cl, sizeof cl, "%s", cls ? cls : "-");
	for (i = 0; nm[i]; i++)
		if ((unsigned char)nm[i] < 0x20 || nm[i] == 0x7f)
			nm[i] = '?';
	for (i = 0; cl[i]; i++)
		if ((unsigned char)cl[i] < 0x20 || cl[i] == 0x7f)
			cl[i] = '?';
	if (l->t.trials > 0)
		laneiv(iv, sizeof iv, l);
	/* pad the interval by columns, not bytes: "–" and "≤" are multibyte */
	for (i = 0; iv[i]; i++)
		cols += ((unsigned char)iv[i] & 0xc0) != 0x80;
	rt_buf_printf(b, "  %-16s %-15s %4ld trials %4ld failed  %s%*s %s\n", nm, cl,
	    l->t.trials, l->t.failures, iv, cols < 13 ? (int)(13 - cols) : 0, "", state);
}

static void
board_draw(int force)
{
	rt_buf b = { 0 };
	size_t i;
	int lines = 0;
	const char *p;
	char st[96];

	if (!V.board_live && !(force && V.board_end))
		return;
	if (!force && rt_now_ms() - V.board_at < 100)
		return;
	V.board_at = rt_now_ms();
	if (V.base.t.trials || V.base.started)
		board_line(&b, "baseline", "original", &V.base,
		    V.racing ? "running with the lanes" : V.measure_in ?
		    (V.base.t.trials > V.base_input ? "from input, extended" : "from input") :
		    V.base.done ? "measured" : "measuring");
	for (i = 0; i < V.nlanes; i++) {
		lane *l = V.lanes[i];
		if (l->status && l->rule)
			snprintf(st, sizeof st, "%s (%s)", l->status, l->rule);
		else
			snprintf(st, sizeof st, "%s", l->status ? l->status :
			    l->raced && !l->done ? "racing" : "waiting");
		board_line(&b, l->id, l->cause, l, st);
	}
	for (i = 0; i < (size_t)V.nrounds; i++) {
		lane *r = V.rounds[i];
		if (r->status)
			snprintf(st, sizeof st, "%s", r->status);
		else
			snprintf(st, sizeof st, "confirming: FIXED needs 0 of %ld", r->limit);
		board_line(&b, r->id, "confirmation", r, st);
	}
	for (p = b.data; p && *p; p++)
		lines += *p == '\n';
	if (V.board_live && V.board_lines > 0)
		fprintf(stderr, "\033[%dA", V.board_lines);
	if (V.board_live) {
		for (p = b.data; p && *p; ) {
			const char *e = strchr(p, '\n');
			fprintf(stderr, "\r\033[K%.*s\n", (int)(e - p), p);
			p = e + 1;
		}
		V.board_lines = lines;
	} else if (b.data) {
		fprintf(stderr, "%s: %s\n%s", rt_progname, V.phase, b.data);
	}
	fflush(stderr);
	rt_buf_free(&b);
}

/* Under the last board: why each lane ended as it did, and the verdict.
 * Text from hypotheses and patches is shown with control bytes masked. */
static void
board_reasons(const char *verdict)
{
	size_t i;

	if (!V.board_live && !V.board_end)
		return;
	for (i = 0; i <= V.nlanes; i++) {
		rt_buf b = { 0 };
		char *p;
		if (i < V.nlanes)
			rt_buf_printf(&b, "  %s: %s", V.lanes[i]->id, V.lanes[i]->reason);
		else
			rt_buf_printf(&b, "%s: %s", rt_progname, verdict);
		rt_buf_str(&b);
		for (p = b.data; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		fprintf(stderr, "%s\n", b.data);
		rt_buf_free(&b);
	}
	fflush(stderr);
}

/* ---- copies of the project ---- */

/* Skip our own work directory if it lies inside the project; stop when
 * interrupted. */
static int
copy_skip(const struct stat *st, void *ctx)
{
	(void)ctx;
	if (rt_trial_interrupted())
		return -1;
	if (++V.copied > BIG_PROJECT && !V.warned_big) {
		V.warned_big = 1;
		rt_warn("warning: the project %s holds more than %d files, and every "
		    "lane copies all of it; -C names the project (default: the current "
		    "directory)", V.project, BIG_PROJECT);
	}
	return st->st_dev == V.tmp_dev && st->st_ino == V.tmp_ino;
}

static char *abs_dir(const char *, int);

/* Remove a copy made by copy_named: its inner directory and the outer one. */
static void
remove_copy(const char *dir)
{
	char *outer = rt_xstrdup(dir), *sl = strrchr(outer, '/');

	if (sl)
		*sl = '\0';
	rt_remove_tree(outer);
	free(outer);
}

/* The project is copied whole for every lane: refuse one that is / or holds
 * the home directory, which is never a test's project but is easily the
 * current directory. */
static void
check_project(void)
{
	const char *h = getenv("HOME");
	char *home = h && *h ? abs_dir(h, 1) : NULL;
	size_t n = strlen(V.project);

	if (!strcmp(V.project, "/") || (home && !strncmp(home, V.project, n) &&
	    (home[n] == '\0' || home[n] == '/')))
		rt_die("%s: refusing a project that %s: every lane copies the whole "
		    "project; give -C the test's own directory", V.project,
		    !strcmp(V.project, "/") ? "is /" : "is or contains $HOME");
	free(home);
}

/* Copy src to <tmp>/<what>.<N>/<name>, where name is the project
 * directory's own name: tests that import relative to their package, or
 * read the directory's name, see the layout they see in the original.
 * Returns the inner path; NULL when interrupted, or with err set. */
static char *
copy_named(const char *src, const char *what, long n, char *err, size_t errsize)
{
	char *outer = n >= 0 ? rt_xasprintf("%s/%s.%ld.%d", V.tmp, what, n, V.ncopies++) :
	    rt_xasprintf("%s/%s.%d", V.tmp, what, V.ncopies++);
	char *dir;

	if (mkdir(outer, V.sb.kind == RT_SANDBOX_UID ? 0711 : 0700) < 0) {
		snprintf(err, errsize, "mkdir %s: %s", outer, strerror(errno));
		free(outer);
		return NULL;
	}
	dir = rt_xasprintf("%s/%s", outer, V.pname);
	free(outer);
	V.copied = 0;
	if (rt_copy_tree(src, dir, copy_skip, NULL, err, errsize) < 0) {
		remove_copy(dir);
		free(dir);
		return NULL;
	}
	return dir;
}

/* A fresh copy of the project under our temp root, named for what it is. */
static char *
new_copy(const char *what)
{
	char err[512];
	char *dir = copy_named(V.project, what, -1, err, sizeof err);

	if (!dir && !rt_trial_interrupted())
		rt_die("cannot copy the project: %s", err);
	return dir;
}

static void
cleanup(void)
{
	ttag *t;

	if (V.runner) {
		rt_runner_kill_all(V.runner);
		rt_runner_free(V.runner);
		V.runner = NULL;
	}
	for (t = V.inflight; t; t = t->next)
		if (t->dir && !V.keep)
			remove_copy(t->dir);
	if (V.tmp) {
		if (V.keep)
			fprintf(stderr, "%s: kept the copies in %s\n", rt_progname, V.tmp);
		else
			rt_remove_tree(V.tmp);
		free(V.tmp);
		V.tmp = NULL;
	}
	if (V.board_live && V.board_lines)
		fflush(stderr);
}

/* ---- running trials ---- */

/* During the race the original runs alongside the lanes: as many valid
 * trials as the furthest open lane has started, so every lane trial has an
 * original trial to be paired with. */
static long
base_need(void)
{
	size_t i;
	long need = 0;

	for (i = 0; i < V.nlanes; i++) {
		const lane *l = V.lanes[i];
		if (l->raced && !l->done && l->t.trials + l->inflight > need)
			need = l->t.trials + l->inflight;
	}
	return need;
}

static int
startable(const lane *l)
{
	if (l == &V.base && V.racing) {
		/* the live trials only: a measure record's are not paired */
		long need = base_need(), live = l->t.trials - V.base_input,
		    bad = l->t.errors + l->t.ignored - V.base_input_errors;
		return live + l->inflight < need && bad + l->inflight < need + 3;
	}
	if (l->canary && (l->t.passes >= CANARY_K || l->t.failures >= CANARY_K ||
	    l->t.passes + l->t.failures + l->inflight >= 2 * CANARY_K - 1))
		return 0;
	return !l->done && l->t.trials + l->inflight < l->limit &&
	    l->t.errors + l->t.ignored + l->inflight < l->limit;
}

/* Keep a trial's outcome by its number, and extend the lane's run of valid
 * outcomes as far as every earlier trial has ended. */
static void
record_outcome(lane *l, long trial, rt_outcome o)
{
	if (trial >= l->ocap) {
		long n = l->ocap ? l->ocap : 64;
		while (n <= trial)
			n *= 2;
		l->oc = rt_xrealloc(l->oc, (size_t)n);
		memset(l->oc + l->ocap, 0, (size_t)(n - l->ocap));
		l->ocap = n;
	}
	l->oc[trial] = o == RT_PASS ? 'p' : o == RT_FAIL || o == RT_TIMEOUT ? 'f' : 'e';
	if (l->scan == 0)
		l->scan = 1;
	while (l->scan < l->ocap && l->oc[l->scan]) {
		if (l->oc[l->scan] != 'e') {
			if (l->nv == l->vcap) {
				l->vcap = l->vcap ? 2 * l->vcap : 64;
				l->vs = rt_xrealloc(l->vs, (size_t)l->vcap);
			}
			l->vs[l->nv++] = l->oc[l->scan] == 'f';
		}
		l->scan++;
	}
}

static void
start_trial(lane *l)
{
	ttag *t = rt_xcalloc(1, sizeof *t);
	char err[512];
	long trial = l->next_trial++;

	t->l = l;
	t->o = l->o;
	if (!l->owned && l->o.cwd) {
		if (rt_sandbox_own(&V.sb, l->o.cwd) < 0)
			rt_die("cannot hand %s to the sandbox's uid:", l->o.cwd);
		l->owned = 1;
	}
	if (V.copy_each) {
		t->dir = copy_named(l->dir, "trial", trial, err, sizeof err);
		if (!t->dir) {
			if (!rt_trial_interrupted())
				rt_die("cannot copy %s for a trial: %s", l->dir, err);
			free(t);
			return;
		}
		t->o.cwd = t->dir;
		if (rt_sandbox_own(&V.sb, t->dir) < 0)
			rt_die("cannot hand %s to the sandbox's uid:", t->dir);
	}
	if (V.judge) {
		/* its own report directory: lanes run the same trial numbers */
		t->jdir = rt_xasprintf("%s/junit.XXXXXX", V.tmp);
		if (!mkdtemp(t->jdir) || rt_cases_dir_open(&t->jd, t->jdir) < 0)
			rt_die("%s:", t->jdir);
		if (rt_sandbox_own(&V.sb, t->jdir) < 0)
			rt_die("cannot hand %s to the sandbox's uid:", t->jdir);
		t->o.junit_dir = t->jdir;
	}
	t->next = V.inflight;
	if (V.inflight)
		V.inflight->prev = t;
	V.inflight = t;
	l->started++;
	l->inflight++;
	l->raced = 1;
	rt_runner_start(V.runner, &t->o, trial, t);
}

/* --case: the trial judged by that case's own outcome in the runner's
 * report, unless the command's says it could not run or ran out of time;
 * a case the runner never reported is an error saying so. The report and
 * its directory go. */
static void
judge_trial(ttag *t, rt_trial_result *res)
{
	rt_case_set set;

	if (!t->jdir)
		return;
	memset(&set, 0, sizeof set);
	if (rt_cases_trial(&t->jd, &t->o, res, NULL, NULL, &set) < 0 &&
	    res->outcome != RT_ERROR && res->outcome != RT_TIMEOUT) {
		/* no report at all: say why, not just that the case is missing */
		res->outcome = RT_ERROR;
		snprintf(res->error, sizeof res->error, "%.*s", (int)sizeof res->error - 1, set.error);
	} else if (res->outcome != RT_ERROR && res->outcome != RT_TIMEOUT) {
		res->outcome = rt_cases_judge(&set, V.judge, res->trial, res->error,
		    sizeof res->error);
		if (res->outcome != RT_ERROR)
			res->error[0] = '\0';
	}
	rt_case_set_free(&set);
	rt_cases_dir_close(&t->jd);
	rt_remove_tree(t->jdir);
	free(t->jdir);
	t->jdir = NULL;
}

static void
unlink_tag(ttag *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else
		V.inflight = t->next;
	if (t->next)
		t->next->prev = t->prev;
}

typedef void (*decide_fn)(lane *l, int final);

/* Run trials for the lanes until none may start another, sharing the -j
 * slots: each free slot goes to the lane with the fewest trials started.
 * decide (may be NULL) sees each lane after each of its results and once
 * more at the end (final). Returns 0, or -1 when interrupted. */
static int
run_lanes(lane **ls, size_t n, decide_fn decide, const char *label)
{
	rt_trial_result res;
	void *tagp;
	ttag *t;
	lane *l, *best;
	size_t i;
	int rc;
	json_t *ev;

	for (;;) {
		while (!rt_trial_interrupted() && rt_runner_running(V.runner) < V.jobs) {
			best = NULL;
			for (i = 0; i < n; i++)
				if (startable(ls[i]) && (!best || ls[i]->started < best->started))
					best = ls[i];
			if (!best)
				break;
			start_trial(best);
		}
		if (rt_trial_interrupted())
			return -1;
		rc = rt_runner_wait(V.runner, V.board_live ? 200 : -1, &res, &tagp);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			if (rt_runner_running(V.runner) == 0) {
				for (i = 0; i < n; i++)
					if (startable(ls[i]))
						break;
				if (i == n)
					break;
			}
			board_draw(0);
			continue;
		}
		t = tagp;
		l = t->l;
		unlink_tag(t);
		l->inflight--;
		judge_trial(t, &res);
		if (t->dir) {
			if (!V.keep)
				remove_copy(t->dir);
			free(t->dir);
		}
		if (!l->done || l == &V.base) {
			rt_tally_add(&l->t, res.outcome);
			record_outcome(l, res.trial, res.outcome);
			if (l == &V.base && res.outcome == RT_FAIL && V.nevidence < 3 &&
			    V.evidence.len < 65536) {
				V.nevidence++;
				rt_buf_add(&V.evidence, res.out.data, res.out.len);
				rt_buf_addc(&V.evidence, '\n');
				rt_buf_add(&V.evidence, res.err.data, res.err.len);
				rt_buf_addc(&V.evidence, '\n');
			}
			if (res.outcome == RT_ERROR && !l->first_error[0])
				snprintf(l->first_error, sizeof l->first_error, "%s",
				    res.error[0] ? res.error : "infrastructure error");
			if (l->anytime)
				rt_cs_interval(l->t.failures, l->t.trials, V.conf, 0, 0, &l->iv);
			else if (l->cm > 0 && l->t.failures == 0 && l->t.trials > 0) {
				l->iv.low = 0;
				l->iv.high = rt_zero_bound(l->t.trials, l->cm);
			} else if (l->cm > 0)
				rt_wilson(l->t.failures, l->t.trials, l->cm, &l->iv);
			else
				rt_wilson(l->t.failures, l->t.trials, V.conf, &l->iv);
			ev = json_object();
			json_object_set_new(ev, "lane", json_string(label ? label : l->id));
			json_object_set_new(ev, "trial", json_integer(res.trial));
			json_object_set_new(ev, "outcome", json_string(rt_outcome_name(res.outcome)));
			json_object_set_new(ev, "trials", json_integer(l->t.trials));
			json_object_set_new(ev, "failures", json_integer(l->t.failures));
			json_object_set_new(ev, "errors", json_integer(l->t.errors));
			json_object_set_new(ev, "ci_low", rt_json_real6(l->iv.low));
			json_object_set_new(ev, "ci_high", rt_json_real6(l->iv.high));
			event("trial", ev);
			if (decide)
				decide(l, 0);
		}
		rt_trial_result_free(&res);
		free(t);
		board_draw(0);
	}
	for (i = 0; i < n; i++)
		if (decide && !ls[i]->done)
			decide(ls[i], 1);
	for (i = 0; i < n; i++)
		ls[i]->done = 1;
	board_draw(0);
	return 0;
}

/* ---- the tournament's rules ---- */

static void
finish_lane(lane *l, const char *status, const char *fmt, ...)
{
	va_list ap;
	json_t *rec;

	l->done = 1;
	l->status = status;
	va_start(ap, fmt);
	vsnprintf(l->reason, sizeof l->reason, fmt, ap);
	va_end(ap);
	rec = lane_json(l, 1);
	(void)rt_emit_try(stdout, rec);
	rt_fpart(stdout, "stdout");
	event(!strcmp(status, "survived") ? "lane_survived" :
	    !strcmp(status, "eliminated") ? "lane_eliminated" :
	    !strcmp(status, "neutered") ? "lane_neutered" :
	    !strcmp(status, "patch_failed") ? "lane_patch_failed" : "lane_not_raced",
	    json_deep_copy(rec));
	json_decref(rec);
}

/* The lane's budget of valid trials: --max-trials, or what the original's
 * measured rate asks for (rt_race_budget). */
static long
lane_budget(void)
{
	return V.nmax_given ? V.nmax : rt_race_budget(V.base.t.failures, V.base.t.trials,
	    V.conf);
}

/* "of 57 pairs with the original, 9 differed: the original alone failed 9,
 * the lane alone 0; the lane's share 0/9 (anytime interval 0.0–32.4%)" */
static void
pairs_text(const lane *l, char *buf, size_t size)
{
	long d = l->rp.lane_only + l->rp.base_only;
	char iv[64];

	snprintf(buf, size, "of %ld trials paired with the original's, %ld differed: "
	    "the original alone failed %ld, the lane alone %ld; the lane's share %ld/%ld "
	    "(%g%% anytime interval %s)", l->rp.pairs, d, l->rp.base_only,
	    l->rp.lane_only, l->rp.lane_only, d, 100 * V.conf,
	    ivtext(iv, sizeof iv, l->q.low, l->q.high));
}

/* After each result of a racing lane (and of the original, which decides
 * every open lane again). Trial i of the lane is paired with trial i of the
 * original; with q the lane's share of the pairs where exactly one failed,
 * checked after every pair with the anytime-valid sequence at c:
 *   q's upper bound < 1/2          survived: significantly better
 *   q's lower bound ≥ 1/3          eliminated: fails at least about half as
 *                                  often as the original
 *   lo > hi of a survived lane     eliminated: above a survivor (the lanes'
 *                                  own anytime intervals)
 *   budget spent                   eliminated: undecided, with an estimate of
 *                                  the trials that would likely decide
 * A lane whose trials are mostly infrastructure errors is eliminated too. */
static void
decide_race(lane *l, int final)
{
	char a[40], c[40], pt[400];
	long k = l->t.failures, n = l->t.trials;
	size_t i;
	rt_race_state st;

	if (l == &V.base) {
		long budget = lane_budget();
		if (final)
			return;
		for (i = 0; i < V.nlanes; i++)
			if (V.lanes[i]->raced && !V.lanes[i]->done) {
				V.lanes[i]->limit = budget;
				decide_race(V.lanes[i], 0);
			}
		return;
	}
	if (n > 0)
		laneiv(a, sizeof a, l);
	if (l->t.errors >= 3 && l->t.errors > n) {
		finish_lane(l, "eliminated", "the patched command could not run: %ld of "
		    "%ld trials were errors (%s)", l->t.errors, l->t.errors + n +
		    l->t.ignored, l->first_error);
		return;
	}
	while (l->paired < l->nv && l->paired < V.base.nv) {
		rt_race_add(&l->rp, V.base.vs[l->paired], l->vs[l->paired]);
		l->paired++;
	}
	st = rt_race_decide(&l->rp, V.conf, &l->q);
	pairs_text(l, pt, sizeof pt);
	if (st == RT_RACE_BETTER) {
		l->better = 1;
		finish_lane(l, "survived", "%ld/%ld failed (interval %s); %s: below 1/2, so "
		    "it fails less often than the original", k, n, a, pt);
		return;
	}
	if (st == RT_RACE_FUTILE) {
		finish_lane(l, "eliminated", "%ld/%ld failed (interval %s); %s: at least "
		    "1/3, so it fails at least about half as often as the original", k, n,
		    a, pt);
		return;
	}
	for (i = 0; n > 0 && i < V.nlanes; i++) {
		lane *s = V.lanes[i];
		if (s != l && s->better && l->iv.low > s->iv.high) {
			finish_lane(l, "eliminated", "%ld/%ld failed, interval %s lies above "
			    "%s's %s, which beat the original", k, n, a, s->id,
			    laneiv(c, sizeof c, s));
			return;
		}
	}
	if (final || (!startable(l) && l->inflight == 0 && l->paired >= l->nv)) {
		if (n == 0) {
			finish_lane(l, "eliminated", "no valid trial (%ld errors: %s)",
			    l->t.errors, l->first_error[0] ? l->first_error : "none");
			return;
		}
		l->more = rt_race_more_pairs(&l->rp, V.conf);
		if (l->more > 0)
			finish_lane(l, "eliminated", "undecided after its budget of %ld trials: "
			    "%ld/%ld failed (interval %s); %s; about %ld more trials of the lane "
			    "and as many of the original would likely decide (--max-trials %ld)",
			    l->limit, k, n, a, pt, l->more, n + l->more);
		else
			finish_lane(l, "eliminated", "undecided after its budget of %ld trials: "
			    "%ld/%ld failed (interval %s); %s; more trials are unlikely to show "
			    "it better", l->limit, k, n, a, pt);
	}
}

/* ---- input ---- */

static int
on_record(json_t *rec, const rt_where *w, void *ctx)
{
	const char *type = json_string_value(json_object_get(rec, "type"));
	const char *s;
	lane *l;
	size_t i;
	json_t *files, *f;

	(void)ctx;
	if (!strcmp(type, "measure")) {
		rt_rec_check(RT_REC_MEASURE, rec, w);
		static const char *const counts[] = { "timeouts", "errors", "ignored" };
		long long n = rt_rec_int(rec, "trials", 0, 1000000000, w), v;
		rt_rec_int(rec, "failures", 0, n, w);
		for (i = 0; i < sizeof counts / sizeof counts[0]; i++)
			if (rt_rec_opt_int(rec, counts[i], w, &v) && (v < 0 || v > 1000000000))
				rt_die_at(w, "\"%s\": %lld is out of range [0, 1000000000]",
				    counts[i], v);
		if (V.judge) {
			const char *mc = NULL;
			if (!rt_rec_opt_str(rec, "case", w, &mc))
				rt_die_at(w, "a measure record without \"case\": the command's rate, "
				    "not case %s's (rt-measure --case %s gives it)", V.judge, V.judge);
			if (strcmp(mc, V.judge) != 0)
				rt_die_at(w, "a measure record of case %s, not of the judged case %s",
				    mc, V.judge);
		}
		json_decref(V.measure_in);
		V.measure_in = json_incref(rec);
		return 0;
	}
	if (strcmp(type, "hypothesis") != 0)
		return 0;
	rt_rec_check(RT_REC_HYPOTHESIS, rec, w);
	l = rt_xcalloc(1, sizeof *l);
	l->hyp = json_incref(rec);
	l->id = rt_rec_str(rec, "id", w);
	if (!*l->id)
		rt_die_at(w, "\"id\": empty");
	for (i = 0; i < V.nlanes; i++)
		if (!strcmp(V.lanes[i]->id, l->id))
			rt_die_at(w, "duplicate hypothesis id \"%s\"", l->id);
	s = NULL;
	rt_rec_opt_str(rec, "source", w, &s);
	l->source = s;
	s = NULL;
	rt_rec_opt_str(rec, "model", w, &s);
	l->model = s;
	s = NULL;
	rt_rec_opt_str(rec, "cause_class", w, &s);
	l->cause = s;
	s = NULL;
	rt_rec_opt_str(rec, "explanation", w, &s);
	l->explanation = s;
	s = NULL;
	rt_rec_opt_str(rec, "patch", w, &s);
	l->patch = s;
	s = "ok";
	rt_rec_opt_str(rec, "status", w, &s);
	l->hstatus = s;
	files = json_object_get(rec, "files");
	if (files && !json_is_array(files) && !json_is_null(files))
		rt_die_at(w, "\"files\": not an array");
	json_array_foreach(files, i, f)
		if (!json_is_string(f))
			rt_die_at(w, "\"files\": not an array of strings");
	l->index = (int)V.nlanes;
	l->anytime = 1;
	V.lanes = rt_xrealloc(V.lanes, (V.nlanes + 1) * sizeof *V.lanes);
	V.lanes[V.nlanes++] = l;
	return 0;
}

/* ---- phases ---- */

/* The original's measure fields, saying where its trials came from. */
static json_t *
baseline_json(void)
{
	json_t *o = rt_measure_fields(NULL, &V.base.t, V.conf, V.target);

	json_object_set_new(o, "source", json_string(!V.measure_in ? "measured" :
	    V.base.t.trials > V.base_input ? "input+measured" : "input"));
	json_object_set_new(o, "input_trials", json_integer(V.base_input));
	/* lane trial i is paired with the original's trial of the same
	 * RETRIAL_SEED: measured ones when the original was measured here,
	 * else run alongside the lanes (a measure record has no seeds) */
	json_object_set_new(o, "pairing", json_string(V.measure_in ?
	    "seed (the original run alongside; the measure record is detect evidence only)" :
	    "seed"));
	return o;
}

static void
stop_at_failure(lane *l, int final)
{
	if (!final && l->t.failures > 0)
		l->done = 1;
}

static int
measure_baseline(void)
{
	lane *b = &V.base;
	lane *one[1];

	b->id = "baseline";
	b->o = V.cli.o;
	b->limit = V.n0;
	b->next_trial = 1;
	if (V.measure_in) {
		long long v;
		rt_where w = { "<input>", 0 };
		b->t.trials = (long)rt_rec_int(V.measure_in, "trials", 0, 1000000000, &w);
		b->t.failures = (long)rt_rec_int(V.measure_in, "failures", 0, b->t.trials, &w);
		if (rt_rec_opt_int(V.measure_in, "timeouts", &w, &v))
			b->t.timeouts = (long)v;
		if (rt_rec_opt_int(V.measure_in, "errors", &w, &v))
			b->t.errors = (long)v;
		if (rt_rec_opt_int(V.measure_in, "ignored", &w, &v))
			b->t.ignored = (long)v;
		b->t.passes = b->t.trials - b->t.failures;
		b->done = 1;
		/* A measure record gives counts, not trials with seeds: it is the
		 * detect gate's evidence and the budgets' rate, never a side of a
		 * pair. The original runs alongside the lanes from trial 1, each
		 * of its trials with the seed of the lane trials it is paired
		 * with. */
		V.fresh = 1;
		V.base_input = b->t.trials;
		V.base_input_errors = b->t.errors + b->t.ignored;
		b->next_trial = 1;
	} else {
		if (!(b->dir = new_copy("baseline")))
			return -1;
		b->o.cwd = b->dir;
		V.phase = "measuring the original";
		one[0] = b;
		if (run_lanes(one, 1, NULL, "baseline") < 0)
			return -1;
		if (b->t.failures == 0 && b->t.trials > 0) {
			/* no failure yet: a flake of a few percent often hides in 40
			 * trials, so go on until one shows or 0/n shows < 1% */
			long cap;
			if (rt_runs_to_claim(0.01, V.conf, &cap) == RT_STATS_OK && cap > b->limit) {
				b->limit = cap;
				b->done = 0;
				V.phase = "measuring the original: no failure yet";
				if (run_lanes(one, 1, stop_at_failure, "baseline") < 0)
					return -1;
			}
		}
		V.fresh = b->next_trial;
	}
	rt_wilson(b->t.failures, b->t.trials, V.conf, &b->iv);
	V.L0 = b->iv.low;
	V.U0 = b->iv.high;
	return 0;
}

/* Was rule overruled by --allow? */
static int
allowed(const char *rule)
{
	size_t i;

	for (i = 0; i < V.nallow; i++)
		if (!strcmp(V.allow[i], rule))
			return 1;
	return 0;
}

/* Note a rule that --allow overruled for this lane, with what it saw. */
static void
overrule(lane *l, const char *rule, const char *reason)
{
	if (!l->overruled)
		l->overruled = json_array();
	json_array_append_new(l->overruled, json_pack("{s:s,s:s}", "rule", rule,
	    "reason", reason));
	event("rule_overruled", json_pack("{s:s,s:s,s:s}", "id", l->id, "rule", rule,
	    "reason", reason));
}

/* The static guard, with the rules --allow names overruled. */
static int
guard_check(lane *l, rt_guard_result *g)
{
	size_t i;
	int r = rt_guard_check_cmd(l->patch, V.project, l->dir, V.allow, V.nallow,
	    V.cli.cmd, V.cli.cmd ? NULL : V.cli.argv, g);

	for (i = 0; i < g->noverruled; i++)
		overrule(l, g->overruled[i].rule, g->overruled[i].reason);
	snprintf(l->guard, sizeof l->guard, "%s", g->guard);
	l->changes_checks = g->changes_checks;
	if (g->checks[0]) {
		json_error_t je;
		json_decref(l->checks);
		l->checks = json_loads(g->checks, 0, &je);
	}
	return r != 0;
}

/* Place the canary in a scratch copy of the lane: an assertion of the test
 * under test inverted. 1 placed (what says where), 0 not placed (what says
 * why), -1 on an I/O error. */
static int
place_canary(const char *cdir, const lane *l, char *what, size_t size)
{
	(void)l;
	if (V.judge)
		return rt_canary_place_case(cdir, V.judge,
		    V.evidence.len ? rt_buf_str(&V.evidence) : NULL, what, size);
	return rt_canary_place(cdir, V.cli.cmd, V.cli.cmd ? NULL : V.cli.argv,
	    V.evidence.len ? rt_buf_str(&V.evidence) : NULL, what, size);
}

/* The canary, judged over several trials: the copy with the test's own
 * assertion inverted must fail. It runs until CANARY_K failures (the
 * assertion is live: the lane races) or CANARY_K passes (neutered: the test
 * passes whatever it asserts), at most 2·CANARY_K − 1 valid trials; errors
 * do not count, and a canary whose trials are mostly errors decides nothing.
 * A real canary fails every time, so a live assertion is called neutered
 * only if CANARY_K of at most 5 trials pass by chance. */
static int
run_canary(lane *l)
{
	char *cdir, what[600], err[512];
	int c;
	lane probe;
	lane *one[1] = { &probe };
	json_t *o = json_object();

	if (!(cdir = copy_named(l->dir, "canary", -1, err, sizeof err))) {
		json_decref(o);
		if (rt_trial_interrupted())
			return -1;
		rt_die("cannot copy %s: %s", l->dir, err);
	}
	c = place_canary(cdir, l, what, sizeof what);
	if (c < 0)
		rt_die("canary in %s:", cdir);
	json_object_set_new(o, "placed", json_boolean(c > 0));
	if (c == 0) {
		json_object_set_new(o, "reason", json_string(what));
	} else {
		memset(&probe, 0, sizeof probe);
		probe.id = l->id;
		probe.o = V.cli.o;
		probe.o.cwd = cdir;
		probe.dir = cdir;
		probe.limit = 2 * CANARY_K - 1;
		probe.canary = 1;
		probe.next_trial = 1;
		if (run_lanes(one, 1, NULL, "canary") < 0) {
			json_decref(o);
			return -1;
		}
		V.canary_trials += probe.t.trials + probe.t.errors + probe.t.ignored;
		json_object_set_new(o, "at", json_string(what));
		json_object_set_new(o, "trials", json_integer(probe.t.trials));
		json_object_set_new(o, "failures", json_integer(probe.t.failures));
		json_object_set_new(o, "errors", json_integer(probe.t.errors));
		json_object_set_new(o, "rule", json_string("fails on 3 trials: live; "
		    "passes on 3 of at most 5: neutered"));
		if (probe.t.passes >= CANARY_K) {
			json_object_set_new(o, "verdict", json_string("neutered"));
			if (allowed("canary")) {
				overrule(l, "canary", "the test still passes with its assertion "
				    "inverted");
			} else {
				l->rule = "canary";
				l->canary_rec = o;
				finish_lane(l, "neutered", "canary: the test still passes with "
				    "its assertion inverted (%s): %ld of %ld trials passed",
				    what, probe.t.passes, probe.t.trials);
				o = NULL;
			}
		} else {
			json_object_set_new(o, "verdict", json_string(probe.t.failures >= CANARY_K ?
			    "live" : "undecided"));
		}
	}
	if (o)
		l->canary_rec = o;
	if (!V.keep)
		remove_copy(cdir);
	free(cdir);
	return 0;
}

/* Lines a unified diff adds or removes (not its headers). */
static long
diff_lines(const char *d)
{
	long n = 0;
	const char *p = d;

	while (p && *p) {
		if ((*p == '+' && strncmp(p, "+++ ", 4)) || (*p == '-' && strncmp(p, "--- ", 4)))
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/* Prepare each hypothesis' lane: a patch, a copy it applies to, and a
 * guard that lets it through. Disqualified lanes are reported at once. */
static int
prepare_lanes(void)
{
	size_t i, np;
	char err[512];
	char **paths;
	rt_guard_result g;
	lane *l;

	for (i = 0; i < V.nlanes; i++) {
		l = V.lanes[i];
		if (rt_trial_interrupted())
			return -1;
		if (!l->patch || !*l->patch) {
			l->rule = NULL;
			finish_lane(l, "not_raced", "the hypothesis has no patch (status %s)",
			    l->hstatus);
			continue;
		}
		if (strcmp(l->hstatus, "ok") != 0) {
			finish_lane(l, "not_raced", "the hypothesis' status is %s", l->hstatus);
			continue;
		}
		if (rt_patch_paths(l->patch, &paths, &np, err, sizeof err) < 0) {
			finish_lane(l, "patch_failed", "the patch is refused: %s", err);
			continue;
		}
		l->files = paths;
		l->nfiles = np;
		if (rt_patch_dangerous(paths, np, V.allow_path, V.nallow_path, err, sizeof err)) {
			finish_lane(l, "patch_failed", "refused: %s (--allow-path to permit)", err);
			continue;
		}
		if (!(l->dir = new_copy("lane")))
			return -1;
		if (rt_patch_apply(l->dir, l->patch, err, sizeof err) < 0) {
			finish_lane(l, "patch_failed", "the patch does not apply: %s", err);
			continue;
		}
		l->diff_lines = diff_lines(l->patch);
		if (guard_check(l, &g)) {
			/* the patched test does not parse: the patch failed */
			if (!strcmp(g.rule, "patch-failed")) {
				finish_lane(l, "patch_failed", "%s", g.reason);
				continue;
			}
			l->rule = g.rule;
			finish_lane(l, "neutered", "%s: %s", g.rule, g.reason);
			continue;
		}
		if (V.canary && run_canary(l) < 0)
			return -1;
		if (l->done)
			continue;
		l->o = V.cli.o;
		l->o.cwd = l->dir;
		l->limit = lane_budget();
		l->next_trial = 1;
	}
	return 0;
}

static double
lane_rate(const lane *l)
{
	return (double)l->t.failures / (double)l->t.trials;
}

static int
cand_cmp(const void *pa, const void *pb)
{
	const lane *a = *(lane *const *)pa, *b = *(lane *const *)pb;
	double ra = lane_rate(a), rb = lane_rate(b);
	/* the rate, then the input order: interval widths depend on how many
	 * results had landed when the lane was decided, which -j makes vary */
	if (ra != rb)
		return ra < rb ? -1 : 1;
	return a->index - b->index;
}

/* Among the lanes indistinguishable from the best (intervals overlapping
 * its), a lane that changes no test check first, then the smaller diff,
 * then the rate and the input order: a tie never favours a weaker test. */
static int
tie_cmp(const void *pa, const void *pb)
{
	const lane *a = *(lane *const *)pa, *b = *(lane *const *)pb;

	if (a->changes_checks != b->changes_checks)
		return a->changes_checks - b->changes_checks;
	if (a->diff_lines != b->diff_lines)
		return a->diff_lines < b->diff_lines ? -1 : 1;
	return cand_cmp(pa, pb);
}

/* Order the candidates for confirmation: by rate, then the lanes tied with
 * the best reordered by tie_cmp. How many are tied with the best. */
static size_t
order_candidates(lane **cand, size_t n)
{
	size_t k = 1;

	if (n == 0)
		return 0;
	qsort(cand, n, sizeof *cand, cand_cmp);
	while (k < n && !(cand[k]->iv.low > cand[0]->iv.high ||
	    cand[0]->iv.low > cand[k]->iv.high))
		k++;
	qsort(cand, k, sizeof *cand, tie_cmp);
	return k;
}

/* One confirmation round: the candidate on n never-seen trials in a fresh
 * copy. FIXED needs 0 failures in n = runs_to_claim(p_ref, c_m). */
static int
confirm(lane *c, int round, long required, double cm, double pref, json_t *out,
    const char *split)
{
	lane *cp = rt_xcalloc(1, sizeof *cp);   /* kept for the board */
	lane *one[1] = { cp };
	char err[512], sum[200], rule[400], a[16], b[16];
	json_t *o;
	rt_interval w, d;
	int passed, improved;

	if (V.nrounds < (int)(sizeof V.rounds / sizeof V.rounds[0]))
		V.rounds[V.nrounds++] = cp;
	cp->id = c->id;
	cp->cm = cm;
	if (!(cp->dir = new_copy("confirm")))
		return -1;
	if (rt_patch_apply(cp->dir, c->patch, err, sizeof err) < 0)
		rt_die("%s: the patch no longer applies for its confirmation: %s", c->id, err);
	cp->o = V.cli.o;
	cp->o.cwd = cp->dir;
	cp->limit = required;
	cp->next_trial = V.fresh;
	event("confirmation_started", json_pack("{s:s,s:i,s:I,s:I}", "id", c->id,
	    "round", round, "required_runs", (json_int_t)required,
	    "first_trial", (json_int_t)V.fresh));
	if (run_lanes(one, 1, NULL, "confirm") < 0)
		return -1;
	V.fresh = cp->next_trial;
	if (!V.keep)
		remove_copy(cp->dir);
	free(cp->dir);
	cp->dir = NULL;
	passed = cp->t.failures == 0 && cp->t.trials >= required;
	rt_newcombe(V.base.t.failures, V.base.t.trials, cp->t.failures, cp->t.trials, cm, &d);
	improved = cp->t.trials > 0 && d.low > 0;
	o = json_object();
	json_object_set_new(o, "id", json_string(c->id));
	json_object_set_new(o, "round", json_integer(round));
	json_object_set_new(o, "trials", json_integer(cp->t.trials));
	json_object_set_new(o, "failures", json_integer(cp->t.failures));
	json_object_set_new(o, "errors", json_integer(cp->t.errors));
	json_object_set_new(o, "rate", cp->t.trials ? rt_json_real6((double)cp->t.failures /
	    (double)cp->t.trials) : json_null());
	pct(a, sizeof a, pref);
	snprintf(b, sizeof b, "%g", cm);
	if (cp->t.failures == 0 && cp->t.trials > 0) {
		/* what 0/n proves, exactly and one-sided: the rule's own bound */
		double hi = rt_zero_bound(cp->t.trials, cm);
		json_object_set_new(o, "ci_low", json_real(0));
		json_object_set_new(o, "ci_high", rt_json_real6(hi));
		json_object_set_new(o, "interval", json_string("exact one-sided"));
		rt_say_count(sum, sizeof sum, 0, cp->t.trials, cm, "failed");
	} else {
		rt_wilson(cp->t.failures, cp->t.trials, cm, &w);
		json_object_set_new(o, "ci_low", rt_json_real6(w.low));
		json_object_set_new(o, "ci_high", rt_json_real6(w.high));
		json_object_set_new(o, "interval", json_string("wilson"));
		if (cp->t.trials == 0)
			snprintf(sum, sizeof sum, "no valid trial (%ld errors)", cp->t.errors);
		else
			rt_say_count(sum, sizeof sum, cp->t.failures, cp->t.trials, cm, "failed");
	}
	snprintf(rule, sizeof rule, "0 failures in n = runs_to_claim(%s%%, %s) = %ld "
	    "fresh trials (rt-plan -r %g -c %s); p_ref = min(target, original rate)%s",
	    a, b, required, pref, b, split);
	json_object_set_new(o, "required_runs", json_integer(required));
	json_object_set_new(o, "reference_rate", rt_json_real6(pref));
	json_object_set_new(o, "confidence", rt_json_real6(cm));
	json_object_set_new(o, "passed", json_boolean(passed));
	json_object_set_new(o, "improved", json_boolean(improved));
	json_object_set_new(o, "difference", json_pack("{s:o,s:o,s:o,s:s}",
	    "estimate", rt_json_real6(d.center), "ci_low", rt_json_real6(d.low),
	    "ci_high", rt_json_real6(d.high), "method", "newcombe"));
	json_object_set_new(o, "rule", json_string(rule));
	json_object_set_new(o, "summary", json_string(sum));
	cp->status = passed ? "passed" : "failed";
	c->confirm = o;
	json_array_append(out, o);
	event(passed ? "winner_confirmed" : "confirmation_failed", json_deep_copy(o));
	return 0;
}

static char *
shell_quote(const char *s)
{
	rt_buf b = { 0 };

	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_-./=:,+@%") == strlen(s))
		return rt_xstrdup(s);
	rt_buf_addc(&b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			rt_buf_adds(&b, "'\\''");
		else
			rt_buf_addc(&b, *s);
	}
	rt_buf_addc(&b, '\'');
	rt_buf_str(&b);
	return b.data;
}

static json_t *
reproduce(double pref, double cm)
{
	json_t *a = json_array();
	rt_buf b = { 0 };
	char *q;
	int i;

	q = shell_quote(V.project);
	rt_buf_printf(&b, "rt-verify -C %s --seed %llu -n %ld -N %ld --confidence %g "
	    "--target %g --confirmations %ld%s", q, (unsigned long long)V.cli.o.seed,
	    V.n0, V.nmax, V.conf, V.target, V.confirms, V.copy_each ? " --isolate copy" : "");
	free(q);
	if (V.cli.o.timeout_s > 0)
		rt_buf_printf(&b, " --timeout %g", V.cli.o.timeout_s);
	if (V.network)
		rt_buf_adds(&b, " --network");
	if (V.cli.cmd) {
		q = shell_quote(V.cli.cmd);
		rt_buf_printf(&b, " --cmd %s", q);
		free(q);
		for (i = 0; i < V.ninfiles; i++) {
			q = shell_quote(V.infiles[i]);
			rt_buf_printf(&b, " %s", q);
			free(q);
		}
		if (V.ninfiles == 0)
			rt_buf_adds(&b, " < hypotheses.jsonl");
	} else {
		rt_buf_adds(&b, " --");
		for (i = 0; V.cli.argv[i]; i++) {
			q = shell_quote(V.cli.argv[i]);
			rt_buf_printf(&b, " %s", q);
			free(q);
		}
		rt_buf_adds(&b, " < hypotheses.jsonl");
	}
	json_array_append_new(a, json_string(rt_buf_str(&b)));
	rt_buf_free(&b);
	if (pref > 0) {
		char *s = rt_xasprintf("rt-plan -r %g -c %g", pref, cm);
		json_array_append_new(a, json_string(s));
		free(s);
	}
	return a;
}

/* The absolute, symlink-free name of a directory; with quiet, NULL when
 * it cannot be entered. */
static char *
abs_dir(const char *dir, int quiet)
{
	int here = open(".", O_RDONLY | O_CLOEXEC);
	char *p;

	if (here < 0)
		rt_die("cannot open the current directory:");
	if (chdir(dir) < 0) {
		if (quiet) {
			close(here);
			return NULL;
		}
		rt_die("%s:", dir);
	}
	if (!(p = getcwd(NULL, 0)))
		rt_die("getcwd:");
	if (fchdir(here) < 0)
		rt_die("cannot return to the current directory:");
	close(here);
	return p;
}

/* ---- main ---- */

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		RT_TRIAL_LONGOPTS,
		{ "dir", required_argument, NULL, 'C' },
		{ "trials", required_argument, NULL, 'n' },
		{ "max-trials", required_argument, NULL, 'N' },
		{ "confidence", required_argument, NULL, OPT_CONF },
		{ "target", required_argument, NULL, OPT_TARGET },
		{ "isolate", required_argument, NULL, OPT_ISOLATE },
		{ "confirmations", required_argument, NULL, OPT_CONFIRMS },
		{ "keep", no_argument, NULL, OPT_KEEP },
		{ "genome", required_argument, NULL, OPT_GENOME },
		{ "no-genome", no_argument, NULL, OPT_NO_GENOME },
		{ "events", required_argument, NULL, OPT_EVENTS },
		{ "board", no_argument, NULL, OPT_BOARD },
		{ "no-canary", no_argument, NULL, OPT_NO_CANARY },
		{ "test", required_argument, NULL, OPT_TEST },
		{ "case", required_argument, NULL, OPT_CASE },
		{ "allow", required_argument, NULL, OPT_ALLOW },
		{ "allow-path", required_argument, NULL, OPT_ALLOW_PATH },
		{ "race-failing", no_argument, NULL, OPT_RACE_FAILING },
		{ "sandbox", required_argument, NULL, OPT_SANDBOX },
		{ "network", no_argument, NULL, OPT_NETWORK },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		RT_LIST_OPTIONS_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	int opt, exitcode, sig, rc;
	char tmpl[4096], err[512], split[80] = "", a[40], sum[600], *gpath = NULL;
	const char *td, *verdict = NULL;
	size_t i, ncand = 0, ntied = 0;
	long required = 0;
	double pref = 0, cm = 0, t_base = 0, t_race = 0, t_conf = 0, tp;
	lane **cand = NULL, *winner = NULL;
	rt_verdict gate;
	json_t *confs = NULL, *v, *lanes, *w, *base = NULL;
	struct stat st;

	rt_setprogname(argv[0]);
	rt_secret_protect();
	rt_trial_cli_init(&V.cli);
	V.conf = 0.95;
	V.target = 0.10;
	V.n0 = 40;
	V.nmax = 100;
	V.confirms = 2;
	V.canary = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, RT_TRIAL_SHORTOPTS "C:n:N:hV",
	    longopts, NULL)) != -1) {
		if (rt_trial_cli_opt(&V.cli, opt, optarg))
			continue;
		switch (opt) {
		case 'C':
			V.dir_opt = optarg;
			break;
		case 'n':
			V.n0 = rt_num_long("-n", optarg, 1, 100000000);
			break;
		case 'N':
			V.nmax = rt_num_long("-N", optarg, 1, 100000000);
			V.nmax_given = 1;
			break;
		case OPT_CONF:
			V.conf = rt_num_confidence("--confidence", optarg);
			break;
		case OPT_TARGET:
			V.target = rt_num_double("--target", optarg, 0, 1, 1, 1);
			break;
		case OPT_ISOLATE:
			if (!strcmp(optarg, "copy"))
				V.copy_each = 1;
			else if (!strcmp(optarg, "process"))
				V.copy_each = 0;
			else
				rt_usage_die("--isolate %s: want process or copy", optarg);
			break;
		case OPT_CONFIRMS:
			V.confirms = rt_num_long("--confirmations", optarg, 1, 100);
			break;
		case OPT_KEEP:
			V.keep = 1;
			break;
		case OPT_GENOME:
			V.genome = optarg;
			break;
		case OPT_NO_GENOME:
			V.no_genome = 1;
			break;
		case OPT_EVENTS:
			V.events_path = optarg;
			break;
		case OPT_BOARD:
			V.board_forced = 1;
			break;
		case OPT_NO_CANARY:
			V.canary = 0;
			break;
		case OPT_CASE:
			if (!*optarg)
				rt_usage_die("--case: empty ID");
			V.judge = optarg;
			break;
		case OPT_TEST:
			V.test = optarg;
			break;
		case OPT_ALLOW:
			if (!rt_guard_rule_known(optarg) || !strcmp(optarg, "guard-undecided") ||
			    !strcmp(optarg, "patch-failed"))
				rt_usage_die("--allow %s: not a rule that can be overruled "
				    "(see rt-verify(1) THE GUARD)", optarg);
			V.allow = rt_xrealloc(V.allow, (V.nallow + 2) * sizeof *V.allow);
			V.allow[V.nallow++] = optarg;
			V.allow[V.nallow] = NULL;
			break;
		case RT_OPT_LIST_OPTIONS: return rt_cli_list_options(longopts);
		case OPT_RACE_FAILING:
			V.race_failing = 1;
			break;
		case OPT_SANDBOX:
			if (rt_sandbox_parse(optarg, &V.sandbox_want) < 0)
				rt_usage_die("--sandbox %s: want auto, bwrap or none", optarg);
			break;
		case OPT_NETWORK:
			V.network = 1;
			break;
		case OPT_ALLOW_PATH:
			V.allow_path = rt_xrealloc(V.allow_path,
			    (V.nallow_path + 2) * sizeof *V.allow_path);
			V.allow_path[V.nallow_path++] = optarg;
			V.allow_path[V.nallow_path] = NULL;
			break;
		case 'h':
			usage(stdout);
			rt_fshut(stdout, "stdout");
			return 0;
		case 'V':
			rt_print_version();
			rt_fshut(stdout, "stdout");
			return 0;
		default:
			rt_bad_option(opt, RT_TRIAL_SHORTOPTS "C:n:N:hV", argv);
		}
	}
	if (V.genome && V.no_genome)
		rt_usage_die("--genome and --no-genome are exclusive");
	if (!rt_trial_cli_finish(&V.cli, argc, argv, optind, 0))
		rt_usage_die("no command: give --cmd \"CMD\" or -- ARGV...");
	if (!V.cli.argv) {
		V.infiles = argv + optind;
		V.ninfiles = argc - optind;
	}
	V.jobs = V.cli.o.jobs > 1 ? V.cli.o.jobs : 1;
	if (V.judge) {
		/* pytest and go test are asked for their report by retrial; any
		 * other command writes $RETRIAL_JUNIT itself */
		char why[200];
		(void)rt_cases_auto(&V.cli.o, why, sizeof why);
	}
	if (!V.cli.seed_given)
		V.cli.o.seed &= (1ULL << 53) - 1;   /* printable, and reusable via --seed */

	/* the project: absolute, a directory */
	V.project = abs_dir(V.dir_opt ? V.dir_opt : ".", 0);
	check_project();
	V.pname = strrchr(V.project, '/') + 1;
	if (!*V.pname)
		V.pname = "project";

	rt_jsonl_loop(V.ninfiles, V.infiles, NULL, on_record, NULL);

	if (V.events_path && !(V.events = rt_output_open(V.events_path, RT_OUT_LOCK)))
		rt_output_die(V.events_path);
	V.t0 = rt_now_ms();
	rt_trial_signals_install();
	td = getenv("TMPDIR");
	snprintf(tmpl, sizeof tmpl, "%s/rt-verify.XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(tmpl))
		rt_die("mkdtemp %s:", tmpl);
	V.tmp = rt_xstrdup(tmpl);
	if (stat(V.tmp, &st) == 0) {
		V.tmp_dev = st.st_dev;
		V.tmp_ino = st.st_ino;
	}
	atexit(cleanup);
	/* every trial confined to its copy: patches are the model's code */
	if (rt_sandbox_init(&V.sb, V.sandbox_want, V.network, V.tmp) < 0)
		rt_die("--sandbox bwrap: %s", V.sb.why);
	if (V.sb.kind == RT_SANDBOX_NONE)
		rt_warn("warning: trials run unconfined (%s): a patch's code can write the "
		    "project, $HOME and the network", V.sb.why);
	else if (V.sb.kind == RT_SANDBOX_UID) {
		rt_warn("warning: no bwrap (%s): trials run as uid %ld, with the network "
		    "and each other's copies in reach", V.sb.why, (long)V.sb.uid);
		if (chmod(V.tmp, 0711) < 0)
			rt_die("chmod %s:", V.tmp);
	}
	V.cli.o.sandbox = &V.sb;
	V.runner = rt_runner_new();
	V.board_live = rt_isatty(2) && !isatty(1);
	V.board_end = V.board_forced || (rt_isatty(2) && isatty(1));
	event("start", json_pack("{s:s,s:s,s:I,s:s,s:f,s:f,s:s,s:b}", "command", V.cli.command,
	    "project", V.project, "hypotheses", (json_int_t)V.nlanes, "seed",
	    (snprintf(a, sizeof a, "%llu", (unsigned long long)V.cli.o.seed), a),
	    "confidence", V.conf, "target", V.target, "sandbox", rt_sandbox_name(&V.sb),
	    "network", V.sb.network));

	/* 1. the baseline and the detect gate */
	tp = rt_now_ms();
	if (measure_baseline() < 0)
		goto interrupted;
	t_base = elapsed_s(tp);
	base = baseline_json();
	gate = rt_detect(V.base.t.failures, V.base.t.trials, V.target, V.conf);
	event("baseline", json_deep_copy(base));
	/* --race-failing: an original that fails every trial (an ordered
	 * "polluter victim" pair) is raced like a flaky one */
	if (V.race_failing && V.base.t.trials > 0 && V.base.t.failures == V.base.t.trials)
		gate = RT_VERDICT_FLAKY;
	if (gate != RT_VERDICT_FLAKY) {
		verdict = gate == RT_VERDICT_ALWAYS_FAILING ? "REGRESSION" :
		    gate == RT_VERDICT_STABLE ? "ALREADY_STABLE" :
		    gate == RT_VERDICT_INCONCLUSIVE ? "INCONCLUSIVE_BASELINE" : "ERROR";
		for (i = 0; i < V.nlanes; i++)
			finish_lane(V.lanes[i], "not_raced", "the original is %s (%s): "
			    "nothing to race", rt_verdict_name(gate),
			    json_string_value(json_object_get(base, "summary")));
		confs = json_array();
		goto verdict;
	}

	/* 2-4. copies, patches, the guard, and the race */
	tp = rt_now_ms();
	V.phase = "the tournament";
	if (prepare_lanes() < 0)
		goto interrupted;
	{
		lane **racing = rt_xcalloc(V.nlanes + 2, sizeof *racing);
		size_t nr = 0;
		for (i = 0; i < V.nlanes; i++)
			if (!V.lanes[i]->done)
				racing[nr++] = V.lanes[i];
		event("race_started", json_pack("{s:I,s:f,s:f}", "lanes", (json_int_t)nr,
		    "original_ci_low", V.L0, "original_ci_high", V.U0));
		if (nr > 0) {
			/* the original runs on with the lanes, from a copy of its own */
			if (!V.base.dir) {
				if (!(V.base.dir = new_copy("baseline")))
					goto interrupted;
			}
			V.base.o = V.cli.o;
			V.base.o.cwd = V.base.dir;
			if (V.base.next_trial < V.fresh)
				V.base.next_trial = V.fresh;
			racing[nr++] = &V.base;
			V.racing = 1;
		}
		rc = run_lanes(racing, nr, decide_race, NULL);
		V.racing = 0;
		free(racing);
		rt_wilson(V.base.t.failures, V.base.t.trials, V.conf, &V.base.iv);
		V.L0 = V.base.iv.low;
		V.U0 = V.base.iv.high;
		/* confirmation trials are numbered past every trial run so far */
		for (i = 0; i < V.nlanes; i++)
			if (V.lanes[i]->next_trial > V.fresh)
				V.fresh = V.lanes[i]->next_trial;
		if (V.base.next_trial > V.fresh)
			V.fresh = V.base.next_trial;
		if (rc < 0)
			goto interrupted;
	}
	t_race = elapsed_s(tp);
	json_decref(base);
	base = baseline_json();
	board_draw(1);

	/* 5. the winner, confirmed on fresh trials */
	tp = rt_now_ms();
	V.phase = "confirmation";
	confs = json_array();
	cand = rt_xcalloc(V.nlanes + 1, sizeof *cand);
	for (i = 0; i < V.nlanes; i++)
		if (V.lanes[i]->better)
			cand[ncand++] = V.lanes[i];
	ntied = order_candidates(cand, ncand);
	if (ncand > 0) {
		size_t m = ncand < (size_t)V.confirms ? ncand : (size_t)V.confirms;
		double p0 = (double)V.base.t.failures / (double)V.base.t.trials;
		lane *improved = NULL;

		/* each of the m rounds at c_m = 1 − (1 − c)/m, so that a false
		 * FIXED stays within 1 − c however many rounds run */
		cm = rt_confirm_level(V.conf, (long)m);
		if (m > 1)
			snprintf(split, sizeof split, "; %g%% confidence split over %zu rounds",
			    100 * V.conf, m);
		if (rt_confirm_runs(V.base.t.failures, V.base.t.trials, V.target, cm, &pref,
		    &required) != RT_STATS_OK)
			rt_die("cannot size the confirmation for a rate of %g", p0);
		for (i = 0; i < m && !winner; i++) {
			if (confirm(cand[i], (int)i + 1, required, cm, pref, confs, split) < 0)
				goto interrupted;
			if (json_is_true(json_object_get(cand[i]->confirm, "passed")))
				winner = cand[i];
			else if (!improved && json_is_true(json_object_get(cand[i]->confirm,
			    "improved")))
				improved = cand[i];
		}
		verdict = winner ? "FIXED" : improved ? "IMPROVED" : "QUARANTINE";
		if (!winner)
			winner = improved;
	} else {
		verdict = "QUARANTINE";
	}
	t_conf = elapsed_s(tp);

	/* final statuses: the winner, ties, failed confirmations */
	for (i = 0; i < ncand; i++) {
		lane *l = cand[i];
		const char *cs = l->confirm ? json_string_value(json_object_get(l->confirm,
		    "summary")) : NULL;
		if (l == winner) {
			l->status = "winner";
			snprintf(l->reason, sizeof l->reason, "%s among the lanes better than "
			    "the original (%ld/%ld failed, interval %s)%s; confirmation: %s",
			    i > 0 ? "the best confirmed" : ntied > 1 ? "first of the lanes tied "
			    "with the lowest rate" : "the lowest rate",
			    l->t.failures, l->t.trials, laneiv(a, sizeof a, l), i > 0 ||
			    ntied < 2 ? "" : l->changes_checks ? " (every tied lane changes the "
			    "test's checks; the smallest diff first)" : " (it changes no check "
			    "of the test; the smallest diff first)", cs);
		} else if (l->confirm) {
			l->status = "eliminated";
			snprintf(l->reason, sizeof l->reason, "failed its confirmation: %s "
			    "(FIXED needs 0 of %ld)", cs, required);
		} else if (winner && !(l->iv.low > winner->iv.high ||
		    winner->iv.low > l->iv.high)) {
			char b[40];
			l->status = "tied";
			snprintf(l->reason, sizeof l->reason, "tied with the winner %s: "
			    "%ld/%ld failed, interval %s overlaps %s's %s; %s", winner->id,
			    l->t.failures, l->t.trials, laneiv(a, sizeof a, l), winner->id,
			    laneiv(b, sizeof b, winner), l->changes_checks &&
			    !winner->changes_checks ? "it changes the test's checks, the "
			    "winner does not" : l->diff_lines > winner->diff_lines ?
			    "its diff is larger" : "ordered after it");
		} else if (winner) {
			char b[40];
			snprintf(l->reason, sizeof l->reason, "better than the original, but "
			    "its interval %s lies above the winner %s's %s", laneiv(a,
			    sizeof a, l), winner->id, laneiv(b, sizeof b, winner));
		} else {
			snprintf(l->reason + strlen(l->reason), sizeof l->reason -
			    strlen(l->reason), "; not confirmed (only %ld round%s allowed)",
			    V.confirms, V.confirms == 1 ? "" : "s");
		}
	}

verdict:
	lanes = json_array();
	for (i = 0; i < V.nlanes; i++)
		json_array_append_new(lanes, lane_json(V.lanes[i], 0));
	v = json_object();
	json_object_set_new(v, "type", json_string("verdict"));
	json_object_set_new(v, "verdict", json_string(verdict));
	json_object_set_new(v, "command", json_string(V.cli.command));
	json_object_set_new(v, "project", json_string(V.project));
	json_object_set_new(v, "test", json_string(V.test ? V.test : V.judge ? V.judge :
	    V.cli.command));
	json_object_set_new(v, "case", V.judge ? json_string(V.judge) : json_null());
	json_object_set_new(v, "confidence", json_real(V.conf));
	json_object_set_new(v, "target", json_real(V.target));
	snprintf(a, sizeof a, "%llu", (unsigned long long)V.cli.o.seed);
	json_object_set_new(v, "seed", json_string(a));
	json_object_set_new(v, "baseline", base);
	json_object_set_new(v, "lanes", lanes);
	json_object_set_new(v, "confirmations", confs);
	if (winner) {
		w = json_object();
		json_object_set_new(w, "id", json_string(winner->id));
		json_object_set_new(w, "source", jstr_or_null(winner->source));
		json_object_set_new(w, "model", jstr_or_null(winner->model));
		json_object_set_new(w, "cause_class", jstr_or_null(winner->cause));
		json_object_set_new(w, "explanation", jstr_or_null(winner->explanation));
		json_object_set_new(w, "patch", json_string(winner->patch));
		json_object_set_new(w, "files", json_deep_copy(json_object_get(winner->hyp,
		    "files") ? json_object_get(winner->hyp, "files") : json_array()));
		json_object_set_new(w, "changes_checks", json_boolean(winner->changes_checks));
		if (winner->changes_checks)
			json_object_set_new(w, "checks", winner->checks ?
			    json_deep_copy(winner->checks) : json_array());
		json_object_set_new(v, "winner", w);
	} else {
		json_object_set_new(v, "winner", json_null());
	}
	if (required > 0)
		json_object_set_new(v, "rule", json_string(json_string_value(json_object_get(
		    json_array_get(confs, 0), "rule"))));
	{
		const char *bs = json_string_value(json_object_get(base, "summary"));
		if (!strcmp(verdict, "FIXED") || !strcmp(verdict, "IMPROVED"))
			snprintf(sum, sizeof sum, "%s by %s: on fresh trials %s; the original %s",
			    verdict, winner->id, json_string_value(json_object_get(
			    winner->confirm, "summary")), bs);
		else if (!strcmp(verdict, "QUARANTINE")) {
			size_t nraced = 0, nneut = 0, nfail = 0;
			long more = 0;
			char why[300];
			for (i = 0; i < V.nlanes; i++) {
				const lane *l = V.lanes[i];
				nraced += l->raced;
				nneut += l->status && !strcmp(l->status, "neutered");
				nfail += l->status && !strcmp(l->status, "patch_failed");
				if (l->more > more)
					more = l->more;
			}
			if (V.nlanes == 0)
				snprintf(why, sizeof why, "the input held no hypothesis to race");
			else if (nraced == 0)
				snprintf(why, sizeof why, "no patch could be raced (%zu "
				    "disqualified by the guard, %zu did not apply, %zu without a "
				    "usable patch)", nneut, nfail, V.nlanes - nneut - nfail);
			else if (ncand)
				snprintf(why, sizeof why, "no patch held up on fresh trials");
			else if (more > 0)
				snprintf(why, sizeof why, "no patch was shown better than the "
				    "original within its budget; about %ld more trials a lane would "
				    "likely decide (--max-trials)", more);
			else
				snprintf(why, sizeof why, "no patch was significantly better than "
				    "the original");
			snprintf(sum, sizeof sum, "QUARANTINE: %s; the original %s", why, bs);
		}
		else if (!strcmp(verdict, "ERROR"))
			snprintf(sum, sizeof sum, "ERROR: the original command could not run: "
			    "%ld valid trials, %ld errors (%.400s)", V.base.t.trials, V.base.t.errors,
			    V.base.first_error[0] ? V.base.first_error : "no trial ran");
		else
			snprintf(sum, sizeof sum, "%s: the original %s", verdict, bs);
		json_object_set_new(v, "summary", json_string(sum));
	}
	json_object_set_new(v, "timings", json_pack("{s:o,s:o,s:o,s:o}",
	    "baseline_s", rt_json_real6(t_base), "tournament_s", rt_json_real6(t_race),
	    "confirm_s", rt_json_real6(t_conf), "total_s", rt_json_real6(elapsed_s(V.t0))));
	json_object_set_new(v, "reproduce", reproduce(pref, cm));
	json_object_set_new(v, "interrupted", json_false());
	{
		char ts[40];
		time_t now = time(NULL);
		struct tm tmv;
		strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tmv));
		json_object_set_new(v, "finished_at", json_string(ts));
	}
	if (V.nallow) {
		json_t *al = json_array();
		for (i = 0; i < V.nallow; i++)
			json_array_append_new(al, json_string(V.allow[i]));
		json_object_set_new(v, "allowed_rules", al);
	}
	if (V.nallow_path) {
		json_t *al = json_array();
		for (i = 0; i < V.nallow_path; i++)
			json_array_append_new(al, json_string(V.allow_path[i]));
		json_object_set_new(v, "allowed_paths", al);
	}
	json_object_set_new(v, "canary_trials", json_integer(V.canary_trials));
	json_object_set_new(v, "sandbox", json_string(rt_sandbox_name(&V.sb)));
	json_object_set_new(v, "network", json_boolean(V.sb.network));
	V.phase = "the verdict";
	board_draw(1);
	board_reasons(sum);
	(void)rt_emit_try(stdout, v);   /* a gone reader: --events and the genome still complete */
	rt_fpart(stdout, "stdout");
	event("verdict", json_pack("{s:s,s:o}", "verdict", verdict, "winner",
	    winner ? json_string(winner->id) : json_null()));
	exitcode = !strcmp(verdict, "FIXED") || !strcmp(verdict, "IMPROVED") ? 0 :
	    !strcmp(verdict, "ERROR") ? 2 : 1;

	/* the genome */
	if (!V.no_genome) {
		rt_store *s;
		gpath = V.genome ? rt_xstrdup(V.genome) : rt_store_default_path();
		if (!gpath) {
			rt_warn("no genome: set XDG_DATA_HOME or HOME, or give --genome or --no-genome");
			exitcode = 2;
		} else if (!(s = rt_store_open(gpath, !V.genome, err, sizeof err)) ||
		    rt_store_add_verdict(s, v, err, sizeof err) < 0) {
			rt_warn("genome: %s", err);
			rt_store_close(s);
			exitcode = 2;
		} else {
			rt_store_close(s);
		}
		free(gpath);
	}
	json_decref(v);
	if (V.events && rt_output_close(V.events) != 0)
		rt_die("%s: write error:", V.events_path);
	V.events = NULL;
	free(cand);
	rt_fshut(stdout, "stdout");
	return exitcode;

interrupted:
	json_decref(base);
	json_decref(confs);
	free(cand);
	sig = rt_trial_interrupted();
	event("interrupted", json_pack("{s:i}", "signal", sig));
	if (V.events)
		(void)rt_output_close(V.events);
	V.events = NULL;
	rt_warn("interrupted: no verdict");
	cleanup();
	fflush(stdout);
	return rt_signal_status(sig ? sig : SIGINT);
}
