/* rt-verify: race every hypothesis' patch in its own copy of the project on
 * fresh reruns, disqualify patches that stop testing, confirm the winner.
 * The tournament itself is lib/rt_tournament's; this file runs its trials
 * as processes in copies, guards the patches, draws the board and writes
 * the records. */
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
#include "rt_config.h"
#include "rt_guard.h"
#include "rt_hyp.h"
#include "rt_jsonl.h"
#include "rt_out.h"
#include "rt_patch.h"
#include "rt_platform.h"
#include "rt_sandbox.h"
#include "rt_say.h"
#include "rt_stats.h"
#include "rt_store.h"
#include "rt_tournament.h"
#include "rt_trial.h"
#include "rt_fs.h"
#include "rt_text.h"
#include "runner/runner.h"
#include "rt_util.h"

enum {
	OPT_CONF = RT_OPT_TOOL_BASE, OPT_TARGET, OPT_ISOLATE, OPT_KEEP,
	OPT_GENOME, OPT_NO_GENOME, OPT_EVENTS, OPT_BOARD, OPT_NO_CANARY,
	OPT_TEST, OPT_CASE, OPT_CONFIRMS, OPT_ALLOW, OPT_ALLOW_PATH, OPT_RACE_FAILING,
	OPT_SANDBOX, OPT_NETWORK
};

typedef rt_tour_lane lane;

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
	int copy_each, keep, no_genome, board_forced, canary;
	char **allow;                /* --allow RULE, NULL-terminated */
	size_t nallow;
	char **allow_path;           /* --allow-path GLOB, NULL-terminated */
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
	rt_tour T;                   /* the tournament (its options too) */
	rt_hyp_set hs;               /* the input */
	char *project;               /* absolute */
	const char *pname;           /* its last component: every copy's name */
	char *tmp;                   /* our temp root */
	dev_t tmp_dev;
	ino_t tmp_ino;
	rt_pool *runner;
	ttag *inflight;
	rt_trial_result res;         /* the last trial's result, until the next wait */
	int have_res;
	FILE *events;
	double t0;
	int board_live, board_end, board_lines;
	double board_at;
	int ncopies;
	long copied;                 /* entries copied by the current copy */
	int warned_big;
	long canary_trials;          /* trials every canary spent */
	rt_buf evidence;             /* stdout and stderr of failing baseline trials */
	int nevidence;
	int sandbox_warned;          /* said that the sandbox changes the test */
	char **heavy;                /* heavy trees shared, not copied (relative,
	                              * NULL-terminated) */
	dev_t *heavy_dev;
	ino_t *heavy_ino;
	int nheavy;
} V;


/* A project this large is probably not the test's project (-C defaults to
 * the current directory): say so once. */
#define BIG_PROJECT 10000
#define CANARY_K RT_TOUR_CANARY_K
/* A lane record keeps this many distinct failure lines, each this long. */
#define FAIL_LINES 5
#define FAIL_LINE_MAX 200

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


static double
elapsed_s(double since_ms)
{
	return (rt_now_ms() - since_ms) / 1000;
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
		rt_tour_laneiv(iv, sizeof iv, l);
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
	if (V.T.base.t.trials || V.T.base.started)
		board_line(&b, "baseline", "original", &V.T.base,
		    V.T.racing ? "running with the lanes" : V.T.have_input ?
		    (V.T.base.t.trials > V.T.base_input ? "from input, extended" : "from input") :
		    V.T.base.done ? "measured" : "measuring");
	for (i = 0; i < V.T.nlanes; i++) {
		lane *l = V.T.lanes[i];
		if (l->status && l->rule)
			snprintf(st, sizeof st, "%s (%s)", l->status, l->rule);
		else
			snprintf(st, sizeof st, "%s", l->status ? l->status :
			    rt_lane_state_word(l->raced && !l->done ? RT_LANE_RACING :
			    RT_LANE_WAITING));
		board_line(&b, l->id, l->cause, l, st);
	}
	for (i = 0; i < (size_t)V.T.nrounds; i++) {
		lane *r = V.T.rounds[i];
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
		fprintf(stderr, "%s: %s\n%s", rt_progname, V.T.phase, b.data);
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
	for (i = 0; i <= V.T.nlanes; i++) {
		rt_buf b = { 0 };
		char *p;
		if (i < V.T.nlanes)
			rt_buf_printf(&b, "  %s: %s", V.T.lanes[i]->id, V.T.lanes[i]->reason);
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
	int i;

	(void)ctx;
	if (rt_trial_interrupted())
		return -1;
	if (++V.copied > BIG_PROJECT && !V.warned_big) {
		V.warned_big = 1;
		rt_warn("warning: the project %s holds more than %d files, and every "
		    "lane copies all of it; -C names the project (default: the current "
		    "directory)", V.project, BIG_PROJECT);
	}
	for (i = 0; i < V.nheavy; i++)
		if (S_ISDIR(st->st_mode) && st->st_dev == V.heavy_dev[i] &&
		    st->st_ino == V.heavy_ino[i])
			return 1;
	return st->st_dev == V.tmp_dev && st->st_ino == V.tmp_ino;
}

/* Trees a test only reads, shared with every copy, never copied (issue
 * 33): with bwrap an empty directory in the copy where the sandbox binds
 * the original's read-only; unconfined a symbolic link to it. With the uid
 * sandbox they are copied: the original is not that uid's to read. They
 * are found at any depth down to HEAVY_DEPTH names (packages/a/node_modules,
 * services/api/.venv), never inside one another, never through a link;
 * past HEAVY_MAX of them the rest are copied as before. */
static const char *const heavy_names[] = { "node_modules", ".venv", "venv",
    "vendor" };
#define HEAVY_DEPTH 6
#define HEAVY_MAX 256

static void
share_add(const char *rel, const struct stat *st)
{
	if (V.nheavy % 16 == 0) {
		V.heavy = rt_xrealloc(V.heavy, (V.nheavy + 17) * sizeof *V.heavy);
		V.heavy_dev = rt_xrealloc(V.heavy_dev, (V.nheavy + 16) * sizeof *V.heavy_dev);
		V.heavy_ino = rt_xrealloc(V.heavy_ino, (V.nheavy + 16) * sizeof *V.heavy_ino);
	}
	V.heavy[V.nheavy] = rt_xstrdup(rel);
	V.heavy_dev[V.nheavy] = st->st_dev;
	V.heavy_ino[V.nheavy++] = st->st_ino;
	V.heavy[V.nheavy] = NULL;
}

static int
heavy_name(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof heavy_names / sizeof *heavy_names; i++)
		if (!strcmp(name, heavy_names[i]))
			return 1;
	return 0;
}

/* Walk the directory open at fd (rel: its name in the project, "" at the
 * top, depth names deep), taking the heavy trees in it. fd is closed. */
static void
share_walk(int fd, const char *rel, int depth)
{
	struct dirent *e;
	struct stat st;
	DIR *dp;
	char *r;
	int cfd;

	if (!(dp = fdopendir(fd))) {
		close(fd);
		return;
	}
	while (V.nheavy < HEAVY_MAX && (e = readdir(dp))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd(dp), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode) ||
		    (st.st_dev == V.tmp_dev && st.st_ino == V.tmp_ino))
			continue;
		r = *rel ? rt_xasprintf("%s/%s", rel, e->d_name) : rt_xstrdup(e->d_name);
		if (heavy_name(e->d_name))
			share_add(r, &st);
		else if (!strcmp(e->d_name, ".git")) {
			/* only its objects: refs, the index and HEAD are
			 * what a test's git commands may write */
			free(r);
			r = *rel ? rt_xasprintf("%s/.git/objects", rel) : rt_xstrdup(".git/objects");
			if (fstatat(dirfd(dp), ".git/objects", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISDIR(st.st_mode))
				share_add(r, &st);
		} else if (depth + 1 < HEAVY_DEPTH &&
		    (cfd = openat(dirfd(dp), e->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
			share_walk(cfd, r, depth + 1);
		free(r);
	}
	closedir(dp);
}

static void
share_scan(void)
{
	int fd;

	V.heavy = rt_xcalloc(1, sizeof *V.heavy);
	V.sb.share_from = V.project;
	V.sb.shared = V.heavy;
	if (V.sb.kind == RT_SANDBOX_UID || getenv("RETRIAL_COPY_HEAVY"))
		return;
	if ((fd = open(V.project, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0)
		share_walk(fd, "", 0);
	V.sb.shared = V.heavy;
}

/* In a new copy of the project, each heavy tree's stand-in. */
static int
share_place(const char *dir, char *err, size_t errsize)
{
	char *p, *o;
	int i, rc = 0;

	for (i = 0; rc == 0 && i < V.nheavy; i++) {
		p = rt_xasprintf("%s/%s", dir, V.heavy[i]);
		o = rt_xasprintf("%s/%s", V.project, V.heavy[i]);
		if ((V.sb.kind == RT_SANDBOX_BWRAP ? mkdir(p, 0755) : symlink(o, p)) < 0) {
			snprintf(err, errsize, "%s: %s", p, strerror(errno));
			rc = -1;
		}
		free(o);
		free(p);
	}
	return rc;
}

/* A patch that touches a heavy tree gets a real copy of that tree. */
static void
share_unshare(const char *dir, char *const *paths, size_t np)
{
	char err[512], *p, *o;
	size_t j, n;
	int i;

	for (i = 0; i < V.nheavy; i++) {
		n = strlen(V.heavy[i]);
		for (j = 0; j < np; j++)
			if (!strncmp(paths[j], V.heavy[i], n) && paths[j][n] == '/')
				break;
		if (j == np)
			continue;
		p = rt_xasprintf("%s/%s", dir, V.heavy[i]);
		o = rt_xasprintf("%s/%s", V.project, V.heavy[i]);
		errno = 0;
		if ((unlink(p) < 0 && rmdir(p) < 0) ||
		    rt_copy_tree(o, p, NULL, NULL, err, sizeof err) < 0)
			rt_die("cannot copy %s for a patch that touches it: %s", o,
			    errno ? strerror(errno) : err);
		free(o);
		free(p);
	}
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

	if (mkdir(outer, rt_sandbox_dir_mode(&V.sb, V.tmp)) < 0) {
		snprintf(err, errsize, "mkdir %s: %s", outer, strerror(errno));
		free(outer);
		return NULL;
	}
	dir = rt_xasprintf("%s/%s", outer, V.pname);
	free(outer);
	V.copied = 0;
	if (rt_copy_tree(src, dir, copy_skip, NULL, err, errsize) < 0 ||
	    (src == V.project && share_place(dir, err, errsize) < 0)) {
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
		rt_pool_kill_all(V.runner);
		rt_pool_free(V.runner);
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

/* The tournament's runner: trials as processes in the lane's copy (or a
 * copy of it per trial), sandboxed, with -j slots. */
static int
start_trial(void *ctx, lane *l, long trial)
{
	ttag *t = rt_xcalloc(1, sizeof *t);
	char err[512];

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
			return -1;
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
	rt_pool_start(V.runner, &t->o, trial, t);
	(void)ctx;
	return 0;
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

/* The first line of a failed trial that says the most (rt_failure_line:
 * the message before where and which, the stream rt_failure_stream
 * picks), else its stream's first line, cut at FAIL_LINE_MAX bytes
 * (rt_rn_cap_text) with control bytes as '?'. malloc'd. */
static char *
failure_line(const rt_trial_result *res)
{
	const char *s = res->err.data ? res->err.data : "";
	size_t n = res->err.len, pos = 0, off = 0, len = 0, i;
	rt_failure_line fl;
	int best = 0;
	rt_buf b = { 0 };
	char *out;

	if (rt_failure_stream(res->out.data ? res->out.data : "", res->out.len,
	    s, n, 4096, &off, &len) == RT_STDOUT) {
		s = res->out.data;
		n = res->out.len;
	}
	off = len = 0;
	while (rt_failure_line_next(s, n, &pos, &fl))
		if (fl.score > best) {
			best = fl.score;
			off = fl.off;
			len = fl.len;
			if (best == 3)
				break;
		}
	if (!best)
		for (pos = 0; pos < n; pos = off + len + 1) {
			off = pos;
			len = strcspn(s + pos, "\n");
			if (len > 0 || off + len >= n)
				break;
		}
	while (len > 0 && (s[off] == ' ' || s[off] == '\t'))
		off++, len--;
	if (len == 0)
		rt_buf_printf(&b, "exit %d", res->exit_code);
	else
		rt_buf_add(&b, s + off, len);
	rt_rn_cap_text(&b, FAIL_LINE_MAX);
	out = rt_xstrdup(rt_buf_str(&b));
	rt_buf_free(&b);
	for (i = 0; out[i]; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = '?';
	return out;
}

/* Count line among l's failure lines (FAIL_LINES distinct ones kept). */
static void
note_failure(lane *l, const char *line)
{
	json_t *e;
	size_t i;

	if (!l->failure_lines)
		l->failure_lines = json_array();
	json_array_foreach(l->failure_lines, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "line")), line)) {
			json_object_set_new(e, "count", json_integer(
			    json_integer_value(json_object_get(e, "count")) + 1));
			return;
		}
	if (json_array_size(l->failure_lines) < FAIL_LINES)
		json_array_append_new(l->failure_lines, json_pack("{s:s,s:i}",
		    "line", line, "count", 1));
}

/* Does the sandbox change the test? The original's trials here (all in
 * the sandbox) against the input measure's, by Fisher's exact test
 * (two-sided, rt_fisher_exact): said at once when p < 0.001 after any of
 * its trials (5 at least), else at the end (final) when p < 1 − the
 * confidence. Once, with the sandboxed failures' top lines and the way
 * out. */
static void
sandbox_check(int final)
{
	const rt_tally *in = &V.T.input;
	long ki, ni, ks, ns;
	double p, alpha = final ? 1 - V.T.conf : 0.001;
	char a[160], b[160];
	json_t *e, *top = NULL;
	size_t i;
	rt_buf w = { 0 };

	if (V.sandbox_warned || !V.T.have_input || V.sb.kind == RT_SANDBOX_NONE)
		return;
	ki = in->failures;
	ni = in->failures + in->passes;
	ks = V.T.base.t.failures - in->failures;
	ns = V.T.base.t.failures + V.T.base.t.passes - ni;
	if (ns < 5 || ni < 1)
		return;
	if ((p = rt_fisher_exact(ki, ni - ki, ks, ns - ks)) >= alpha)
		return;
	V.sandbox_warned = 1;
	rt_say_count(a, sizeof a, ks, ns, V.T.conf, "failed");
	rt_say_count(b, sizeof b, ki, ni, V.T.conf, "failed");
	rt_buf_printf(&w, "warning: the sandbox (%s) changes the test: the original "
	    "in it %s, against %s in the input measure (Fisher's exact test, "
	    "two-sided p = %.2g < %g)", rt_sandbox_name(&V.sb), a, b, p, alpha);
	json_array_foreach(V.T.base.failure_lines, i, e)
		if (!top || json_integer_value(json_object_get(e, "count")) >
		    json_integer_value(json_object_get(top, "count")))
			top = e;
	if (top) {
		rt_buf_adds(&w, "; its failures begin:");
		json_array_foreach(V.T.base.failure_lines, i, e)
			rt_buf_printf(&w, "\n  %lld× %s",
			    (long long)json_integer_value(json_object_get(e, "count")),
			    json_string_value(json_object_get(e, "line")));
	}
	rt_buf_printf(&w, "\n  run the trials as the measure did: --env VAR=value "
	    "for what the test reads%s, or --sandbox none (unconfined)",
	    V.network ? "" : ", --network if it needs the network");
	rt_warn("%s", rt_buf_str(&w));
	event("sandbox_changes_test", json_pack("{s:I,s:I,s:I,s:I,s:f}",
	    "input_failures", (json_int_t)ki, "input_trials", (json_int_t)ni,
	    "failures", (json_int_t)ks, "trials", (json_int_t)ns, "p", p));
	rt_buf_free(&w);
}

/* A trial's end: judged (--case), its per-trial copy gone, a failing
 * baseline trial's output kept as the canary's evidence. */
static int
wait_trial(void *ctx, int ms, rt_tour_result *r)
{
	void *tagp;
	ttag *t;
	int rc;

	(void)ctx;
	if (V.have_res)
		rt_trial_result_free(&V.res);
	V.have_res = 0;
	sandbox_check(0);    /* the original's trials so far, its lines with them */
	rc = rt_pool_wait(V.runner, ms, &V.res, &tagp);
	if (rc <= 0)
		return rc;
	V.have_res = 1;
	t = tagp;
	unlink_tag(t);
	judge_trial(t, &V.res);
	if (t->dir) {
		if (!V.keep)
			remove_copy(t->dir);
		free(t->dir);
	}
	if (V.res.outcome == RT_FAIL) {
		char *fl = failure_line(&V.res);
		note_failure(t->l, fl);
		free(fl);
	}
	if (t->l == &V.T.base && V.res.outcome == RT_FAIL && V.nevidence < 3 &&
	    V.evidence.len < 65536) {
		V.nevidence++;
		rt_buf_add(&V.evidence, V.res.out.data, V.res.out.len);
		rt_buf_addc(&V.evidence, '\n');
		rt_buf_add(&V.evidence, V.res.err.data, V.res.err.len);
		rt_buf_addc(&V.evidence, '\n');
	}
	r->lane = t->l;
	r->trial = V.res.trial;
	r->outcome = V.res.outcome;
	r->error = V.res.error;
	free(t);
	return 1;
}

static int
running(void *ctx)
{
	(void)ctx;
	return rt_pool_running(V.runner);
}

/* The baseline's copy (made once), or a confirmation's, with the patch. */
static int
place_lane(void *ctx, lane *l, const char *what, const char *patch)
{
	char err[512], **paths;
	size_t np;

	(void)ctx;
	if (!l->dir && !(l->dir = new_copy(what)))
		return -1;
	if (patch && rt_patch_paths(patch, &paths, &np, err, sizeof err) == 0) {
		share_unshare(l->dir, paths, np);
		rt_patch_paths_free(paths, np);
	}
	if (patch && rt_patch_apply(l->dir, patch, err, sizeof err) < 0)
		rt_die("%s: the patch no longer applies for its confirmation: %s", l->id, err);
	l->o = V.cli.o;
	l->o.cwd = l->dir;
	return 0;
}

static void
unplace_lane(void *ctx, lane *l)
{
	(void)ctx;
	if (!V.keep)
		remove_copy(l->dir);
	free(l->dir);
	l->dir = NULL;
}

static void
draw(void *ctx, int force)
{
	(void)ctx;
	board_draw(force);
}

static void
tour_event(void *ctx, const char *name, json_t *fields)
{
	(void)ctx;
	event(name, fields);
}

/* A lane has ended: its record on stdout, as it happens. */
static void
lane_finished(void *ctx, rt_tour *T, lane *l)
{
	json_t *rec = rt_tour_lane_json(T, l, 1);
	const char *status = l->status;
	char name[40];

	(void)ctx;
	(void)rt_emit_try(stdout, rec);
	rt_fpart(stdout, "stdout");
	/* lane_STATE: lane_survived, lane_undecided... */
	snprintf(name, sizeof name, "lane_%s", status);
	event(name, json_deep_copy(rec));
	json_decref(rec);
}

/* ---- the guard ---- */

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
		return rt_canary_place_case(cdir, V.project, V.judge,
		    V.evidence.len ? rt_buf_str(&V.evidence) : NULL, what, size);
	return rt_canary_place(cdir, V.project, V.cli.cmd, V.cli.cmd ? NULL : V.cli.argv,
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
		if (rt_tour_run_lanes(&V.T, one, 1, "canary") < 0) {
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
				rt_tour_finish(&V.T, l, RT_LANE_NEUTERED, "canary: the test still passes with "
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

/* A lane ready to race: its patch checked (rt_hyp) and applied to a copy,
 * the guard's rules and the canary passed. */
static int
prepare_lane(void *ctx, rt_tour *T, lane *l)
{
	char err[512];
	char **paths;
	size_t np;
	rt_guard_result g;
	int c;

	(void)ctx;
	c = rt_hyp_patch_check(l->patch, V.allow_path, V.nallow_path, &paths, &np,
	    err, sizeof err);
	l->files = paths;
	l->nfiles = np;
	if (c == RT_HYP_REFUSED) {
		rt_tour_finish(T, l, RT_LANE_PATCH_FAILED, "the patch is refused: %s", err);
		return 0;
	}
	if (c == RT_HYP_DANGEROUS) {
		rt_tour_finish(T, l, RT_LANE_PATCH_FAILED, "refused: %s (--allow-path to permit)", err);
		return 0;
	}
	if (!(l->dir = new_copy("lane")))
		return -1;
	share_unshare(l->dir, paths, np);
	if (rt_patch_apply(l->dir, l->patch, err, sizeof err) < 0) {
		rt_tour_finish(T, l, RT_LANE_PATCH_FAILED, "the patch does not apply: %s", err);
		return 0;
	}
	l->diff_lines = rt_hyp_diff_lines(l->patch);
	if (guard_check(l, &g)) {
		/* the patched test does not parse: the patch failed */
		if (!strcmp(g.rule, "patch-failed")) {
			rt_tour_finish(T, l, RT_LANE_PATCH_FAILED, "%s", g.reason);
			return 0;
		}
		l->rule = g.rule;
		rt_tour_finish(T, l, RT_LANE_NEUTERED, "%s: %s", g.rule, g.reason);
		return 0;
	}
	if (V.canary && run_canary(l) < 0)
		return -1;
	l->o = V.cli.o;
	l->o.cwd = l->dir;
	return 0;
}

static const rt_tour_ops ops = {
	.start = start_trial, .wait = wait_trial, .running = running,
	.place = place_lane, .unplace = unplace_lane, .prepare = prepare_lane,
	.finished = lane_finished, .event = tour_event, .draw = draw,
};

/* The options that change how a trial runs, each one shell word: without
 * them a rerun is not the same run (issue 33). A credential's value (by
 * its name, rt_secret_name) is left to the shell: --env NAME="$NAME". */
static void
trial_options(rt_buf *b)
{
	size_t i, n;

	for (i = 0; i < V.cli.nenv; i++) {
		n = strcspn(V.cli.env[i], "=");
		rt_buf_adds(b, " --env ");
		if (rt_secret_name(V.cli.env[i], n) && n > 0 &&
		    strspn(V.cli.env[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		    "0123456789_") == n)
			rt_buf_printf(b, "%.*s=\"$%.*s\"", (int)n, V.cli.env[i], (int)n,
			    V.cli.env[i]);
		else
			rt_buf_sh(b, V.cli.env[i]);
	}
	for (i = 0; i < V.cli.nunset; i++) {
		rt_buf_adds(b, " --unset-env ");
		rt_buf_sh(b, V.cli.unset[i]);
	}
	for (i = 0; i < V.cli.nkeep; i++) {
		rt_buf_adds(b, " --keep-env ");
		rt_buf_sh(b, V.cli.keep[i]);
	}
	if (V.sandbox_want != RT_SANDBOX_WANT_AUTO)
		rt_buf_printf(b, " --sandbox %s", V.sandbox_want == RT_SANDBOX_WANT_NONE ?
		    "none" : "bwrap");
	if (V.cli.runner_given)
		rt_buf_printf(b, " --runner %s", rt_runner_kind_name(V.cli.o.runner));
	if (V.judge) {
		rt_buf_adds(b, " --case ");
		rt_buf_sh(b, V.judge);
	}
}

static json_t *
reproduce(double pref, double cm)
{
	json_t *a = json_array();
	rt_buf b = { 0 };
	char *q;
	int i;

	q = rt_sh_quote(V.project);
	rt_buf_printf(&b, "rt-verify -C %s --seed %llu -n %ld -N %ld --confidence %g "
	    "--target %g --confirmations %ld%s", q, (unsigned long long)V.cli.o.seed,
	    V.T.n0, V.T.nmax, V.T.conf, V.T.target, V.T.confirms, V.copy_each ? " --isolate copy" : "");
	free(q);
	if (V.cli.o.timeout_s > 0)
		rt_buf_printf(&b, " --timeout %g", V.cli.o.timeout_s);
	if (V.network)
		rt_buf_adds(&b, " --network");
	trial_options(&b);
	if (V.cli.cmd) {
		q = rt_sh_quote(V.cli.cmd);
		rt_buf_printf(&b, " --cmd %s", q);
		free(q);
		for (i = 0; i < V.ninfiles; i++) {
			q = rt_sh_quote(V.infiles[i]);
			rt_buf_printf(&b, " %s", q);
			free(q);
		}
		if (V.ninfiles == 0)
			rt_buf_adds(&b, " < hypotheses.jsonl");
	} else {
		rt_buf_adds(&b, " --");
		for (i = 0; V.cli.argv[i]; i++) {
			q = rt_sh_quote(V.cli.argv[i]);
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

/* ---- the steps of main ---- */

static void
parse_options(int argc, char *argv[])
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
	int opt;

	rt_trial_cli_init(&V.cli);
	rt_tour_init(&V.T);
	V.canary = 1;
	opterr = 0;
	rt_config_apply("rt-verify", longopts, &argc, &argv);
	while ((opt = getopt_long(argc, argv, RT_TRIAL_SHORTOPTS "C:n:N:hV",
	    longopts, NULL)) != -1) {
		if (rt_trial_cli_opt(&V.cli, opt, optarg))
			continue;
		switch (opt) {
		case 'C':
			V.dir_opt = optarg;
			break;
		case 'n':
			V.T.n0 = rt_num_long("-n", optarg, 1, 100000000);
			break;
		case 'N':
			V.T.nmax = rt_num_long("-N", optarg, 1, 100000000);
			V.T.nmax_given = 1;
			break;
		case OPT_CONF:
			V.T.conf = rt_num_confidence("--confidence", optarg);
			break;
		case OPT_TARGET:
			V.T.target = rt_num_double("--target", optarg, 0, 1, 1, 1);
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
			V.T.confirms = rt_num_long("--confirmations", optarg, 1, 100);
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
		case RT_OPT_LIST_OPTIONS: exit(rt_cli_list_options(longopts));
		case OPT_RACE_FAILING:
			V.T.race_failing = 1;
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
			exit(0);
		case 'V':
			rt_print_version();
			rt_fshut(stdout, "stdout");
			exit(0);
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
	V.T.jobs = V.cli.o.jobs > 1 ? V.cli.o.jobs : 1;
	if (V.judge) {
		/* pytest and go test are asked for their report by retrial; any
		 * other command writes $RETRIAL_JUNIT itself */
		char why[200];
		(void)rt_cases_auto(&V.cli.o, why, sizeof why);
	}
	if (!V.cli.seed_given)
		V.cli.o.seed &= (1ULL << 53) - 1;   /* printable, and reusable via --seed */
}

/* The project: absolute, a directory, and not / or $HOME. */
static void
find_project(void)
{
	V.project = abs_dir(V.dir_opt ? V.dir_opt : ".", 0);
	check_project();
	V.pname = strrchr(V.project, '/') + 1;
	if (!*V.pname)
		V.pname = "project";


}

/* A lane for each hypothesis, in input order; a measure record is the
 * baseline's counts. */
static void
read_input(void)
{
	size_t i;

	V.hs.judge = V.judge;
	rt_hyp_read(V.ninfiles, V.infiles, &V.hs);
	for (i = 0; i < V.hs.n; i++)
		rt_tour_add(&V.T, V.hs.hyps[i]);
	if (V.hs.measure) {
		V.T.have_input = 1;
		rt_hyp_measure_tally(V.hs.measure, &V.T.input);
	}
}

/* The events file, our temp root, the sandbox, the runner and the board. */
static void
set_up(void)
{
	const char *td;
	char tmpl[4096], a[40];
	struct stat st;

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
	}
	/* the copies below are the dropped uid's: it must reach them */
	if (chmod(V.tmp, rt_sandbox_dir_mode(&V.sb, V.tmp)) < 0)
		rt_die("chmod %s:", V.tmp);
	V.cli.o.sandbox = &V.sb;
	share_scan();
	V.runner = rt_pool_new();
	V.board_live = rt_isatty(2) && !isatty(1);
	V.board_end = V.board_forced || (rt_isatty(2) && isatty(1));
	event("start", json_pack("{s:s,s:s,s:I,s:s,s:f,s:f,s:s,s:b}", "command", V.cli.command,
	    "project", V.project, "hypotheses", (json_int_t)V.T.nlanes, "seed",
	    (snprintf(a, sizeof a, "%llu", (unsigned long long)V.cli.o.seed), a),
	    "confidence", V.T.conf, "target", V.T.target, "sandbox", rt_sandbox_name(&V.sb),
	    "network", V.sb.network));
	V.T.ops = &ops;
	V.T.wait_ms = V.board_live ? 200 : -1;
}

/* The verdict record: the tournament's outcome, and how to reproduce it. */
static json_t *
verdict_record(void)
{
	const rt_tour *T = &V.T;
	const lane *winner = T->winner;
	json_t *v = json_object(), *lanes = json_array(), *w;
	char a[40];
	size_t i;

	for (i = 0; i < T->nlanes; i++)
		json_array_append_new(lanes, rt_tour_lane_json(T, T->lanes[i], 0));
	json_object_set_new(v, "type", json_string("verdict"));
	json_object_set_new(v, "verdict", json_string(T->verdict));
	json_object_set_new(v, "command", json_string(V.cli.command));
	json_object_set_new(v, "project", json_string(V.project));
	json_object_set_new(v, "test", json_string(V.test ? V.test : V.judge ? V.judge :
	    V.cli.command));
	json_object_set_new(v, "case", V.judge ? json_string(V.judge) : json_null());
	json_object_set_new(v, "confidence", json_real(T->conf));
	json_object_set_new(v, "target", json_real(T->target));
	snprintf(a, sizeof a, "%llu", (unsigned long long)V.cli.o.seed);
	json_object_set_new(v, "seed", json_string(a));
	json_object_set_new(v, "baseline", rt_tour_baseline_json(T));
	json_object_set_new(v, "lanes", lanes);
	json_object_set_new(v, "confirmations", json_incref(T->confs));
	if (winner) {
		w = json_object();
		json_object_set_new(w, "id", json_string(winner->id));
		json_object_set_new(w, "source", winner->source ? json_string(winner->source) :
		    json_null());
		json_object_set_new(w, "model", winner->model ? json_string(winner->model) :
		    json_null());
		json_object_set_new(w, "cause_class", winner->cause ? json_string(winner->cause) :
		    json_null());
		json_object_set_new(w, "explanation", winner->explanation ?
		    json_string(winner->explanation) : json_null());
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
	if (T->required > 0)
		json_object_set_new(v, "rule", json_string(json_string_value(json_object_get(
		    json_array_get(T->confs, 0), "rule"))));
	json_object_set_new(v, "summary", json_string(T->summary));
	json_object_set_new(v, "timings", json_pack("{s:o,s:o,s:o,s:o}",
	    "baseline_s", rt_json_real6(T->t_base), "tournament_s", rt_json_real6(T->t_race),
	    "confirm_s", rt_json_real6(T->t_conf), "total_s", rt_json_real6(elapsed_s(V.t0))));
	json_object_set_new(v, "reproduce", reproduce(T->pref, T->cm));
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
	return v;
}

/* The verdict into the genome database: 0, or 2 on a failure. */
static int
record_genome(json_t *v)
{
	char err[512], *gpath;
	rt_store *s;
	int rc = 0;

	if (V.no_genome)
		return 0;
	gpath = V.genome ? rt_xstrdup(V.genome) : rt_store_default_path();
	if (!gpath) {
		rt_warn("no genome: set XDG_DATA_HOME or HOME, or give --genome or --no-genome");
		return 2;
	}
	if (!(s = rt_store_open(gpath, !V.genome, err, sizeof err)) ||
	    rt_store_add_verdict(s, v, err, sizeof err) < 0) {
		rt_warn("genome: %s", err);
		rc = 2;
	}
	rt_store_close(s);
	free(gpath);
	return rc;
}

static int
interrupted(void)
{
	int sig = rt_trial_interrupted();

	event("interrupted", json_pack("{s:i}", "signal", sig));
	/* the trials end now; the board so far is what the run learnt */
	if (V.runner)
		rt_pool_kill_all(V.runner);
	V.board_end = 1;
	if (!V.board_live)
		V.T.phase = "interrupted, the board so far";
	board_draw(1);
	if (V.events)
		(void)rt_output_close(V.events);
	V.events = NULL;
	rt_warn("interrupted: no verdict");
	cleanup();
	fflush(stdout);
	return rt_signal_status(sig ? sig : SIGINT);
}

/* ---- main ---- */

int
main(int argc, char *argv[])
{
	json_t *v;
	const char *verdict;
	int exitcode;

	rt_setprogname(argv[0]);
	rt_secret_protect();
	parse_options(argc, argv);
	find_project();
	read_input();
	set_up();
	if (rt_tour_run(&V.T) < 0)
		return interrupted();
	sandbox_check(1);

	v = verdict_record();
	verdict = V.T.verdict;
	V.T.phase = "the verdict";
	board_draw(1);
	board_reasons(V.T.summary);
	(void)rt_emit_try(stdout, v);   /* a gone reader: --events and the genome still complete */
	rt_fpart(stdout, "stdout");
	event("verdict", json_pack("{s:s,s:o}", "verdict", verdict, "winner",
	    V.T.winner ? json_string(V.T.winner->id) : json_null()));
	exitcode = !strcmp(verdict, "FIXED") || !strcmp(verdict, "IMPROVED") ? 0 :
	    !strcmp(verdict, "ERROR") ? 2 : 1;
	if (record_genome(v))
		exitcode = 2;
	json_decref(v);
	if (V.events && rt_output_close(V.events) != 0)
		rt_die("%s: write error:", V.events_path);
	V.events = NULL;
	rt_fshut(stdout, "stdout");
	return exitcode;
}
