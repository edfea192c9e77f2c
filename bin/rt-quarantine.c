/* rt-quarantine: the quarantine list and its lifecycle — add (by hand or
 * from a verdict or an audit), list, check, gate a run's reports, release.
 * Past 800 lines because each verb's rules (add's sources, release's
 * proof and its mbox, the gate's outcomes) are its own; the list,
 * CODEOWNERS, the issues and the git commit live in lib/. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "rt_audit_store.h"
#include "rt_cli.h"
#include "rt_codeowners.h"
#include "rt_config.h"
#include "rt_git.h"
#include "rt_github.h"
#include "rt_cases.h"
#include "rt_http.h"
#include "rt_jsonl.h"
#include "rt_junit.h"
#include "rt_out.h"
#include "rt_plan.h"
#include "rt_text.h"
#include "rt_quar_issue.h"
#include "rt_quarantine.h"
#include "rt_say.h"
#include "rt_stats.h"
#include "rt_trial.h"
#include "rt_util.h"

enum { OPT_OWNER = 1000, OPT_EXPIRES, OPT_ISSUE, OPT_REASON, OPT_RATE, OPT_FROM,
	OPT_CODEOWNERS, OPT_JSON, OPT_GATE, OPT_HISTORY, OPT_CONF, OPT_RECORDS,
	OPT_GITHUB, OPT_TOKEN_FILE, OPT_NO_GITHUB, OPT_MBOX, OPT_AUTHOR, OPT_LEVEL };

static const struct option longopts[] = {
	{ "file", required_argument, NULL, 'f' },
	{ "owner", required_argument, NULL, OPT_OWNER },
	{ "expires", required_argument, NULL, OPT_EXPIRES },
	{ "issue", required_argument, NULL, OPT_ISSUE },
	{ "reason", required_argument, NULL, OPT_REASON },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "codeowners", required_argument, NULL, OPT_CODEOWNERS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "gate", no_argument, NULL, OPT_GATE },
	{ "history", required_argument, NULL, OPT_HISTORY },
	{ "confidence", required_argument, NULL, OPT_CONF },
	{ "level", required_argument, NULL, OPT_LEVEL },
	{ "records", required_argument, NULL, OPT_RECORDS },
	{ "github", required_argument, NULL, OPT_GITHUB },
	{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
	{ "no-github", no_argument, NULL, OPT_NO_GITHUB },
	{ "mbox", required_argument, NULL, OPT_MBOX },
	{ "author", required_argument, NULL, OPT_AUTHOR },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	RT_LIST_OPTIONS_LONGOPT,
	{ NULL, 0, NULL, 0 }
};

static struct {
	const char *file, *owner, *expires, *issue, *reason, *rate, *from;
	const char *codeowners, *history, *records, *github, *token_file;
	const char *mbox, *author;
	int json, gate, have_conf, no_github, have_level;
	double conf, level;
	char today[11];
} opt = { .conf = 0.95, .level = RT_PLAN_LEVEL };
/* which options the command line gave (not .retrial.yml), by OPT_ - OPT_OWNER */
static char cli[OPT_LEVEL - OPT_OWNER + 1];

static void
usage(FILE *f)
{
	fputs("usage: rt-quarantine [-f LIST] add [--owner O] [--expires 30d|DATE] [--issue URL]\n"
	    "                     [--reason TEXT] [--rate K/N] [--codeowners FILE] [github] ID\n"
	    "       rt-quarantine [-f LIST] add [options] --from FILE\n"
	    "       rt-quarantine [-f LIST] list [--json]\n"
	    "       rt-quarantine [-f LIST] check [--gate]\n"
	    "       rt-quarantine [-f LIST] release [mbox] [github] ID...\n"
	    "       rt-quarantine [-f LIST] release --history DB [--confidence C] [--level L]\n"
	    "                     [mbox] [github] [ID...]\n"
	    "       rt-quarantine [-f LIST] gate [--records FILE] REPORT...\n"
	    "  github: [--github OWNER/REPO [--token-file FILE] | --no-github]\n"
	    "  mbox:   [--mbox FILE [--author 'NAME <EMAIL>']]\n", f);
	if (f != stdout)
		return;
	fputs("  -f, --file LIST        the list ($RETRIAL_QUARANTINE, else " RT_QUAR_DEFAULT ")\n"
	    "      --owner O          the owner (default: CODEOWNERS for the test's file)\n"
	    "      --expires 30d|DATE days from today, or YYYY-MM-DD (default 30d)\n"
	    "      --issue URL        the linked issue\n"
	    "      --reason TEXT      the evidence (default: the rate in rt_say's words)\n"
	    "      --rate K/N         the measured rate: K failures in N runs\n"
	    "      --from FILE        rt-verify QUARANTINE verdicts or rt-audit --json\n"
	    "                         digests (- for stdin): each is added\n"
	    "      --codeowners FILE  CODEOWNERS (default .github/CODEOWNERS, CODEOWNERS,\n"
	    "                         docs/CODEOWNERS)\n"
	    "      --json             list: one \"quarantine\" record a line\n"
	    "      --gate             check: exit 1 on an expired entry or one without owner\n"
	    "      --history DB       release: the rt-audit history holding the runs\n"
	    "      --confidence C     release: the proof's confidence (0.95)\n"
	    "      --level L          release: the rate to show it is below (0.10)\n"
	    "      --records FILE     gate: the quarantined cases' trial records\n"
	    "      --github OWNER/REPO add: open an issue per new entry; release: comment\n"
	    "                         on it and close it (default $GITHUB_REPOSITORY when\n"
	    "                         GITHUB_TOKEN is set)\n"
	    "      --token-file FILE  the token, instead of GITHUB_TOKEN\n"
	    "      --no-github        no issues, whatever the environment says\n"
	    "      --mbox FILE        release: also write the list edit as one commit on\n"
	    "                         HEAD, a git-am-able mbox (- stdout) with the evidence\n"
	    "      --author 'NAME <EMAIL>' the mbox commit's author (git config\n"
	    "                         retrial.author, else " RT_GIT_DEFAULT_AUTHOR ")\n"
	    "  -h, --help             this help\n"
	    "  -V, --version          print the version\n", f);
}

/* --expires: "30d" from today, or a date. */
static void
expiry(char out[11])
{
	const char *s = opt.expires ? opt.expires : "30d";
	size_t n = strlen(s);
	rt_quar_list l;
	char *line, err[300];

	if (n > 1 && s[n - 1] == 'd') {
		char *num = rt_xasprintf("%.*s", (int)(n - 1), s);
		long d = rt_num_long("--expires", num, 1, 36500);
		free(num);
		rt_quar_date_add(opt.today, d, out);
		return;
	}
	/* a date, checked as the list checks its own */
	line = rt_xasprintf("x\texpires=%s\n", s);
	if (rt_quar_parse(line, "--expires", &l, err, sizeof err) < 0)
		rt_usage_die("--expires %s: must be Nd (days) or YYYY-MM-DD", s);
	rt_quar_free(&l);
	free(line);
	/* an entry that has expired already would fail the next check */
	if (rt_quar_days(s) < rt_quar_days(opt.today))
		rt_usage_die("--expires %s: is before today (%s)", s, opt.today);
	snprintf(out, 11, "%s", s);
}

static rt_gh G;
static const char *gh_repo;     /* OWNER/REPO, or NULL: no issues */

/* ---- add ---- */

typedef struct {
	char *id, *reason, *rate, *owner;
	char *repro;                /* the verdict's first reproduce line */
} cand;

typedef struct {
	cand *c;
	size_t n;
} cands;

static void
cand_push(cands *cs, const char *id, long k, long n, double conf, const char *who,
    const char *tail)
{
	char say[256];
	cand *c;

	cs->c = rt_xrealloc(cs->c, (cs->n + 1) * sizeof *cs->c);
	c = &cs->c[cs->n++];
	memset(c, 0, sizeof *c);
	c->id = rt_xstrdup(id);
	if (n > 0) {
		rt_say_count(say, sizeof say, k, n, conf, "failed");
		c->rate = rt_xasprintf("%ld/%ld", k, n);
		c->reason = rt_xasprintf("%s%s%s%s", who ? who : "", who ? ": " : "", say,
		    tail ? tail : "");
	}
}

static int
from_record(json_t *rec, const rt_where *w, void *ctx)
{
	cands *cs = ctx;
	const char *type = json_string_value(json_object_get(rec, "type")), *id, *bad;
	json_t *o, *q, *rt;
	double conf = 0.95;
	size_t i;
	long long k, n;

	rt_rec_opt_num(rec, "confidence", w, &conf);
	if (!(conf > 0 && conf < 1))
		rt_die_at(w, "\"confidence\": %g is not between 0 and 1", conf);
	if (strcmp(type, "verdict") == 0) {
		if (strcmp(rt_rec_str(rec, "verdict", w), "QUARANTINE") != 0)
			return 0;
		if (!rt_rec_opt_name(rec, "test", w, &id))
			rt_die_at(w, "a QUARANTINE verdict without \"test\": add it by hand, "
			    "rt-quarantine add ID");
		if (!json_is_object(o = json_object_get(rec, "baseline")))
			rt_die_at(w, "\"baseline\" missing or not an object");
		n = rt_rec_int(o, "trials", 0, LONG_MAX, w);
		k = rt_rec_int(o, "failures", 0, n, w);
		if ((bad = rt_quar_bad_id(id)))
			rt_die_at(w, "\"%s\": %s cannot go on the list", id, bad);
		cand_push(cs, id, (long)k, (long)n, conf, "rt-verify", ", no fix survived");
		o = json_object_get(rec, "reproduce");
		if (json_is_string(json_array_get(o, 0)))
			cs->c[cs->n - 1].repro = rt_xstrdup(json_string_value(json_array_get(o, 0)));
	} else if (strcmp(type, "audit") == 0) {
		q = json_object_get(rec, "quarantine");
		for (i = 0; i < json_array_size(q); i++) {
			o = json_array_get(q, i);
			if (!rt_rec_opt_name(o, "case", w, &id))
				rt_die_at(w, "quarantine[%zu]: \"case\" missing", i);
			if (!json_is_object(rt = json_object_get(o, "rate")))
				rt_die_at(w, "quarantine[%zu]: \"rate\" missing", i);
			n = rt_rec_int(rt, "trials", 1, LONG_MAX, w);
			k = rt_rec_int(rt, "failures", 0, n, w);
			if ((bad = rt_quar_bad_id(id))) {
				rt_warn("%s:%ld: \"%s\": %s cannot go on the list", w->file,
				    w->line, id, bad);
				continue;
			}
			cand_push(cs, id, (long)k, (long)n, conf, "rt-audit", " in its latest runs");
		}
	}
	return 0;
}

static rt_codeowners g_co;
static const char *g_co_path;

static void
load_codeowners(void)
{
	char *path = opt.codeowners ? rt_xstrdup(opt.codeowners) : rt_codeowners_find(".");
	char *text, err[512];

	if (!path)
		return;
	if (!(text = rt_read_file(path, NULL)))
		rt_die("%s:", path);
	if (rt_codeowners_parse(text, path, &g_co, err, sizeof err) < 0)
		rt_die("%s", err);
	free(text);
	g_co_path = path;
}

typedef struct {
	cands *cs;
	char expires[11];
	rt_buf out;         /* what was done, printed once the list is written */
	char *err;          /* a GitHub error: nothing is written */
} add_ctx;

static int
add_edit(rt_quar_list *l, void *vctx)
{
	add_ctx *a = vctx;
	rt_quar_entry *e;
	size_t i;
	int changed = 0;

	for (i = 0; i < a->cs->n; i++) {
		cand *c = &a->cs->c[i];
		const char *reason = opt.reason ? opt.reason : c->reason;
		if ((e = rt_quar_find(l, c->id))) {
			/* listed already: fill in what it lacks, keep what it has */
			if (!e->tab || rt_quar_match(e, c->id) != 2) {
				rt_buf_printf(&a->out, "listed already (an older line, kept as it is): "
				    "%s\n", c->id);
				continue;
			}
			rt_buf_printf(&a->out, "listed already: %s\n", c->id);
		} else {
			e = rt_quar_add(l, c->id);
			rt_quar_set(e, &e->since, opt.today);
			rt_buf_printf(&a->out, "added: %s\n", c->id);
		}
#define FILL(f, v) do { if (!e->f && (v)) { rt_quar_set(e, &e->f, v); changed = 1; } } while (0)
		FILL(owner, c->owner);
		FILL(since, opt.today);
		FILL(expires, a->expires);
		FILL(issue, opt.issue);
		FILL(reason, reason);
		FILL(rate, c->rate);
#undef FILL
		/* the issue before the list: a failure leaves the list as it was,
		 * and a rerun finds the issue by its marker */
		if (gh_repo && !e->issue) {
			char *url = rt_quar_issue_open(&G, gh_repo, e, c->repro, &a->err);
			if (!url)
				return -1;
			rt_quar_set(e, &e->issue, url);
			free(url);
		}
		changed = 1;
		if (!e->owner)
			rt_warn("%s: no owner (give --owner, or a CODEOWNERS rule for its file)",
			    c->id);
	}
	return changed;
}

static int
do_add(int argc, char **argv)
{
	cands cs = {0};
	add_ctx a;
	const char *bad;
	char *file;
	long k = 0, n = 0;
	size_t i;

	if (opt.from && argc > 0)
		rt_usage_die("add: --from FILE and an ID are exclusive");
	if (!opt.from && argc != 1)
		rt_usage_die("add: name one test ID (or --from FILE)");
	if (opt.rate && opt.from)
		rt_usage_die("add: --rate is for a test added by hand, not --from");
	expiry(a.expires);
	if (opt.from) {
		char *files[] = { (char *)opt.from };
		rt_jsonl_loop(1, files, NULL, from_record, &cs);
		if (!cs.n) {
			printf("nothing to add: no QUARANTINE verdict or quarantine candidate in %s\n",
			    opt.from);
			rt_fshut(stdout, "stdout");
			return 0;
		}
	} else {
		if ((bad = rt_quar_bad_id(argv[0])))
			rt_usage_die("add: \"%s\": %s cannot go on the list", argv[0], bad);
		if (opt.rate && rt_quar_rate(opt.rate, &k, &n) < 0)
			rt_usage_die("--rate %s: must be FAILURES/TRIALS, as 12/40", opt.rate);
		cand_push(&cs, argv[0], k, n, opt.have_conf ? opt.conf : 0.95, NULL, NULL);
		if (!opt.reason && !opt.rate)
			cs.c[0].reason = rt_xstrdup("quarantined by hand");
	}
	if (!opt.owner)
		load_codeowners();
	for (i = 0; i < cs.n; i++) {
		const char *o;
		file = rt_codeowners_test_file(cs.c[i].id);
		o = opt.owner ? opt.owner : rt_codeowners_match(&g_co, file);
		if (o && *o) {
			cs.c[i].owner = rt_xstrdup(o);
			/* several owners: one field, the blanks kept */
		}
		free(file);
	}
	a.cs = &cs;
	memset(&a.out, 0, sizeof a.out);
	a.err = NULL;
	if (rt_quar_edit(opt.file, rt_quar_header, add_edit, &a) < 0)
		rt_die("%s; %s is unchanged", a.err, opt.file);
	if (a.out.data)
		fputs(a.out.data, stdout);
	rt_buf_free(&a.out);
	for (i = 0; i < cs.n; i++) {
		free(cs.c[i].id);
		free(cs.c[i].reason);
		free(cs.c[i].rate);
		free(cs.c[i].owner);
		free(cs.c[i].repro);
	}
	free(cs.c);
	rt_codeowners_free(&g_co);
	free((char *)g_co_path);
	rt_fshut(stdout, "stdout");
	return 0;
}

/* ---- list and check ---- */

static json_t *
str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *
entry_json(const rt_quar_entry *e)
{
	json_t *o = json_object(), *r = json_null();
	long k, n;

	json_object_set_new(o, "type", json_string("quarantine"));
	json_object_set_new(o, "case", rt_json_bytes(e->id, strlen(e->id)));
	json_object_set_new(o, "owner", str_or_null(e->owner));
	json_object_set_new(o, "since", str_or_null(e->since));
	json_object_set_new(o, "expires", str_or_null(e->expires));
	json_object_set_new(o, "days_left", e->expires ?
	    json_integer(rt_quar_days(e->expires) - rt_quar_days(opt.today)) : json_null());
	json_object_set_new(o, "issue", str_or_null(e->issue));
	json_object_set_new(o, "reason", e->reason ? rt_json_bytes(e->reason,
	    strlen(e->reason)) : json_null());
	if (e->rate && rt_quar_rate(e->rate, &k, &n) == 0) {
		r = json_object();
		json_object_set_new(r, "failures", json_integer(k));
		json_object_set_new(r, "trials", json_integer(n));
		json_object_set_new(r, "rate", rt_json_real6((double)k / (double)n));
	}
	json_object_set_new(o, "rate", r);
	json_object_set_new(o, "comment", e->comment ? rt_json_bytes(e->comment,
	    strlen(e->comment)) : json_null());
	json_object_set_new(o, "line", json_integer(e->line));
	return o;
}

static int
do_list(int argc, char **argv)
{
	rt_quar_list l;
	size_t i;

	(void)argv;
	if (argc)
		rt_usage_die("list: no operands");
	rt_quar_load(opt.file, 1, &l);
	for (i = 0; i < l.n && l.e[i].id == NULL; i++)
		;
	/* say so on a terminal's stderr, so a script reading stdout gets nothing */
	if (i == l.n && !opt.json)
		rt_warn("%s: no test is quarantined", opt.file);
	for (i = 0; i < l.n; i++) {
		const rt_quar_entry *e = &l.e[i];
		if (!e->id)
			continue;
		if (opt.json) {
			json_t *o = entry_json(e);
			rt_emit(stdout, o);
			json_decref(o);
			continue;
		}
		printf("%s\n", e->id);
		printf("  owner %s", e->owner ? e->owner : "(none)");
		if (e->since)
			printf(", since %s", e->since);
		if (e->expires) {
			long left = rt_quar_days(e->expires) - rt_quar_days(opt.today);
			printf(", expires %s (%s%ld day%s %s)", e->expires, "", left < 0 ? -left : left,
			    left == 1 || left == -1 ? "" : "s", left < 0 ? "ago" : "left");
		}
		putchar('\n');
		if (e->issue)
			printf("  issue %s\n", e->issue);
		if (e->reason)
			printf("  reason %s\n", e->reason);
		if (e->comment)
			printf("  %s\n", e->comment);
	}
	rt_quar_free(&l);
	rt_fshut(stdout, "stdout");
	return 0;
}

static int
do_check(int argc, char **argv)
{
	rt_quar_list l;
	size_t i, n = 0;
	long expired = 0, unowned = 0, noexp = 0;

	(void)argv;
	if (argc)
		rt_usage_die("check: no operands");
	rt_quar_load(opt.file, 1, &l);
	for (i = 0; i < l.n; i++) {
		const rt_quar_entry *e = &l.e[i];
		if (!e->id)
			continue;
		n++;
		if (e->expires && rt_quar_days(e->expires) < rt_quar_days(opt.today)) {
			rt_warn("%s:%ld: %s: expired on %s", opt.file, e->line, e->id, e->expires);
			expired++;
		}
		if (!e->expires) {
			rt_warn("%s:%ld: %s: no expiry (expires=)", opt.file, e->line, e->id);
			noexp++;
		}
		if (!e->owner || !*e->owner) {
			rt_warn("%s:%ld: %s: no owner (owner=)", opt.file, e->line, e->id);
			unowned++;
		}
	}
	printf("%zu quarantined: %ld expired, %ld without owner, %ld without expiry\n",
	    n, expired, unowned, noexp);
	rt_quar_free(&l);
	rt_fshut(stdout, "stdout");
	return opt.gate && (expired || unowned || noexp) ? RT_EXIT_NO : RT_EXIT_OK;
}

/* ---- release ---- */

typedef struct {
	char **ids;
	char **why;        /* each release's evidence, for its issue */
	size_t n;
	int by_name;       /* release named IDs without proof */
	const char *missing;  /* a named ID not on the list */
	char *err;         /* a GitHub error: nothing is written */
} rel_ctx;

/* The runs of id in the history since the date (all of them without
 * one), each counted once, and how many of them failed (ran and failed
 * at least once): the start is the listing, never the latest failure
 * (rt-quarantine(1), release). -1 with err on a SQLite error. */
static int
since_runs(sqlite3 *db, const char *id, const char *since, long *runs, long *failed,
    char *err, size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	*runs = *failed = 0;
	if (sqlite3_prepare_v2(db, "SELECT count(*), coalesce(sum(f), 0) FROM (SELECT max(r.failed) AS f"
	    " FROM results r JOIN runs u ON u.run = r.run"
	    " WHERE r.case_id = ?1 AND r.failed IS NOT NULL"
	    " AND (?2 IS NULL OR u.first_ts IS NULL OR substr(u.first_ts, 1, 10) >= ?2)"
	    " GROUP BY r.run)", -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errsize, "%s", sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
	if (since)
		sqlite3_bind_text(st, 2, since, -1, SQLITE_TRANSIENT);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*runs = sqlite3_column_int64(st, 0);
		*failed = sqlite3_column_int64(st, 1);
	}
	if (rc != SQLITE_ROW) {
		snprintf(err, errsize, "%s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static int
rel_edit(rt_quar_list *l, void *vctx)
{
	rel_ctx *r = vctx;
	rt_quar_entry *e;
	size_t i;
	int changed = 0;

	for (i = 0; i < r->n; i++)
		if (!rt_quar_find(l, r->ids[i]) && r->by_name) {
			r->missing = r->ids[i];
			return 0;     /* nothing is written */
		}
	/* every issue commented and closed before the list is written: a
	 * failure leaves the list as it was, and a rerun updates the same
	 * comment and closes again */
	for (i = 0; gh_repo && i < r->n; i++)
		if ((e = rt_quar_find(l, r->ids[i])) && e->issue &&
		    rt_quar_issue_close(&G, gh_repo, e, r->why[i], &r->err) < 0)
			return -1;
	for (i = 0; i < r->n; i++) {
		if (!(e = rt_quar_find(l, r->ids[i])))
			continue;
		rt_quar_remove(l, e);
		changed = 1;
	}
	return changed;
}

/* --mbox: the release as one commit on HEAD, built before anything is
 * written (a git failure leaves the list and the issues as they were),
 * written after the list. The released entries are removed from the
 * list as HEAD has it, as rt-pr builds its quarantine change, so an
 * uncommitted edit of the list stays out of the commit. */
static rt_repo R;
static char *R_path;           /* the list, relative to R.top */
static FILE *rep;              /* the report: stdout, stderr when the mbox is */

static void
mbox_signal(int sig)
{
	rt_git_cleanup();
	_exit(rt_signal_status(sig));
}

static void
mbox_repo(void)
{
	char *d = rt_xstrdup(opt.file), *b = rt_xstrdup(opt.file);
	char *dir = dirname(d);
	struct sigaction sa;

	/* the temporary index goes, however the run ends */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = mbox_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	atexit(rt_git_cleanup);
	rt_repo_open(&R, dir);
	R.dir = NULL;             /* dir is d's; R.top names the repository */
	if (!R.git)
		rt_die("%s: not in a git work tree: --mbox ships a commit (git format-patch of "
		    "it); %s is unchanged", dir, opt.file);
	R_path = rt_xasprintf("%s%s", R.prefix, basename(b));
	free(d);
	free(b);
}

static char *
mbox_build(const rel_ctx *r, rt_quar_list *now)
{
	char *old = rt_git_head_file(&R, R_path), *msg, *commit, *mbox, *name, *email;
	char err[512];
	rt_quar_list h;
	rt_quar_entry *e;
	rt_git_file f;
	rt_buf b = {0};
	size_t i, n = 0;

	if (rt_quar_parse(old ? old : "", R_path, &h, err, sizeof err) < 0)
		rt_die("%s (at HEAD)", err);
	for (i = 0; i < r->n; i++) {
		if (!(e = rt_quar_find(&h, r->ids[i]))) {
			rt_warn("%s: not on %s at HEAD: the mbox leaves it out", r->ids[i], R_path);
			continue;
		}
		rt_quar_remove(&h, e);
		/* the evidence as released: prints it; a release by name, its ID first */
		rt_buf_printf(&b, "%s%s%s%s\n", n++ ? "\n" : "", r->by_name ? r->ids[i] : "",
		    r->by_name ? ": " : "", r->why[i]);
		if ((e = rt_quar_find(now, r->ids[i])) && e->issue)
			rt_buf_printf(&b, "Issue: %s\n", e->issue);
	}
	if (!n) {
		fprintf(rep, "no mbox written: nothing released is on %s at HEAD\n", R_path);
		rt_quar_free(&h);
		free(old);
		return NULL;
	}
	if (n == 1)
		msg = rt_xasprintf("quarantine: release %s\n\n%s", r->ids[0], b.data);
	else
		msg = rt_xasprintf("quarantine: release %zu tests\n\n%s", n, b.data);
	f.path = R_path;
	f.text = rt_quar_format(&h);
	rt_git_author(opt.author, R.top, &name, &email);
	commit = rt_git_commit(&R, NULL, &f, 1, msg, name, email, rt_git_epoch());
	mbox = rt_git_format_patch(&R, commit);
	free(commit);
	free(f.text);
	free(msg);
	free(name);
	free(email);
	rt_buf_free(&b);
	rt_quar_free(&h);
	free(old);
	return mbox;
}

static void
mbox_write(char *mbox)
{
	if (rt_write_output(opt.mbox, mbox, strlen(mbox)) < 0)
		rt_output_die(opt.mbox);
	fprintf(rep, "mbox: %s (git am %s)\n", opt.mbox, opt.mbox);
	free(mbox);
}

static int
do_release(int argc, char **argv)
{
	rel_ctx r = { NULL, NULL, 0, 0, NULL, NULL };
	rt_quar_list l;
	sqlite3 *db;
	char err[512], say[256], lv[32], *mbox = NULL;
	size_t i;
	int k;

	rep = opt.mbox && rt_output_fd(opt.mbox) == 1 ? stderr : stdout;
	if (!opt.history) {
		if (argc == 0)
			rt_usage_die("release: name the IDs to release, or give --history DB");
		if (opt.mbox)
			mbox_repo();
		r.ids = argv;
		r.n = (size_t)argc;
		r.by_name = 1;
		r.why = rt_xcalloc(r.n + 1, sizeof *r.why);
		for (i = 0; i < r.n; i++)
			r.why[i] = rt_xstrdup("released by name (`rt-quarantine release ID`), "
			    "without a measured proof.");
		if (opt.mbox) {
			rt_quar_load(opt.file, 1, &l);
			for (k = 0; k < argc; k++)
				if (!rt_quar_find(&l, argv[k]))
					rt_die("release: %s: not on %s", argv[k], opt.file);
			mbox = mbox_build(&r, &l);
			rt_quar_free(&l);
		}
		if (rt_quar_edit(opt.file, NULL, rel_edit, &r) < 0)
			rt_die("%s; %s is unchanged", r.err, opt.file);
		rt_free_vec(r.why);
		if (r.missing)
			rt_die("release: %s: not on %s", r.missing, opt.file);
		for (k = 0; k < argc; k++)
			fprintf(rep, "released: %s\n", argv[k]);
		if (mbox)
			mbox_write(mbox);
		rt_fshut(stdout, "stdout");
		return 0;
	}
	if (opt.mbox)
		mbox_repo();
	rt_quar_load(opt.file, 1, &l);
	for (k = 0; k < argc; k++)
		if (!rt_quar_find(&l, argv[k]))
			rt_die("release: %s: not on %s", argv[k], opt.file);
	/* a history that is not there is an error, never a new empty one */
	if (access(opt.history, R_OK) < 0)
		rt_die("%s:", opt.history);
	if (!(db = rt_audit_open(opt.history, 0, err, sizeof err)))
		rt_die("%s", err);
	rt_say_pct(lv, sizeof lv, opt.level, RT_SAY_NEAR);
	r.ids = rt_xcalloc(l.n + 1, sizeof *r.ids);
	r.why = rt_xcalloc(l.n + 1, sizeof *r.why);
	for (i = 0; i < l.n; i++) {
		const rt_quar_entry *e = &l.e[i];
		long kf, n, more;
		rt_interval cs;
		int named = argc == 0;

		if (!e->id)
			continue;
		for (k = 0; k < argc && !named; k++)
			named = rt_quar_match(e, argv[k]) > 0;
		if (!named)
			continue;
		if (since_runs(db, e->id, e->since, &n, &kf, err, sizeof err) < 0)
			rt_die("%s: %s", opt.history, err);
		if (rt_plan_release(kf, n, opt.level, opt.conf, &cs, &more)) {
			rt_say_since(say, sizeof say, kf, n, e->since, cs.high, opt.conf, "failed");
			r.why[r.n] = rt_xasprintf("%s: %s; below the %s level quarantine was for",
			    e->id, say, lv);
			r.ids[r.n++] = e->id;
		} else if (n == 0) {
			fprintf(rep, "kept: %s: no runs since %s; %ld clean runs in a row show it "
			    "below %s at %g%% confidence\n", e->id, e->since ? e->since : "it was listed",
			    more, lv, opt.conf * 100);
		} else {
			rt_say_since(say, sizeof say, kf, n, e->since, cs.high, opt.conf, "failed");
			if (more < 0)
				fprintf(rep, "kept: %s: %s; not below %s\n", e->id, say, lv);
			else
				fprintf(rep, "kept: %s: %s; not below %s (%ld more clean run%s at "
				    "least)\n", e->id, say, lv, more, more == 1 ? "" : "s");
		}
	}
	if (r.n && opt.mbox)
		mbox = mbox_build(&r, &l);
	else if (opt.mbox)
		fprintf(rep, "no mbox written: nothing released\n");
	if (r.n && rt_quar_edit(opt.file, NULL, rel_edit, &r) < 0)
		rt_die("%s; %s is unchanged", r.err, opt.file);
	for (i = 0; i < r.n; i++)
		fprintf(rep, "released: %s\n", r.why[i]);
	if (mbox)
		mbox_write(mbox);
	sqlite3_close(db);
	rt_free_vec(r.why);
	free(r.ids);
	rt_quar_free(&l);
	rt_fshut(stdout, "stdout");
	return 0;
}

/* ---- gate ---- */

/* A case's runs in the reports: one a repeat (go test -count=N runs a
 * test N times, each judged), each with its attempts (a runner's own
 * retries: jest.retryTimes, pytest-rerunfailures, Surefire's reruns). */
typedef struct seen {
	struct seen *next;
	char *id;
	int pass, fail, quarantined;
	unsigned char *rep;          /* repeat k: 1 a pass, 2 a failure among its attempts */
	size_t nrep;
} seen;

typedef struct {
	rt_quar_list *l;
	seen *tab[4096];
	seen **order;
	size_t n;
	FILE *records;
	const char *report;
} gate_ctx;

static seen *
lookup(gate_ctx *g, const char *id)
{
	uint32_t h = 2166136261u;
	const unsigned char *p;
	seen *s;

	for (p = (const unsigned char *)id; *p; p++)
		h = (h ^ *p) * 16777619u;
	for (s = g->tab[h % 4096]; s; s = s->next)
		if (strcmp(s->id, id) == 0)
			return s;
	s = rt_xcalloc(1, sizeof *s);
	s->id = rt_xstrdup(id);
	s->quarantined = rt_quar_find(g->l, id) != NULL;
	s->next = g->tab[h % 4096];
	g->tab[h % 4096] = s;
	g->order = rt_xrealloc(g->order, (g->n + 1) * sizeof *g->order);
	g->order[g->n++] = s;
	return s;
}

static int
gate_rec(json_t *rec, void *vctx)
{
	gate_ctx *g = vctx;
	const char *id = json_string_value(json_object_get(rec, "case"));
	const char *out = json_string_value(json_object_get(rec, "outcome"));
	const char *ft = json_string_value(json_object_get(rec, "failure_type"));
	const char *qid = json_string_value(json_object_get(rec, "quarantined"));
	json_t *rj = json_object_get(rec, "repeat");
	json_int_t r = json_is_integer(rj) && json_integer_value(rj) > 0 ?
	    json_integer_value(rj) : 1;
	seen *s;

	if (!id || !out)
		return 0;
	/* a test the pytest plugin quarantined is quarantined, by its ID on
	 * the list (a run under a subdirectory's rootdir names it otherwise) */
	if (qid && *qid) {
		json_object_set_new(rec, "case", json_string(qid));
		id = json_string_value(json_object_get(rec, "case"));
	}
	if (r > 1000000)
		rt_die("%s: case %s: repeat %lld: more than a million runs of one test",
		    g->report, id, (long long)r);
	s = lookup(g, id);
	if (qid && *qid)
		s->quarantined = 1;
	/* an older plugin's xfail: a quarantined test's failure reported as
	 * a skip of the runner's own type */
	if (s->quarantined && rt_runner_quar_hides(out, ft)) {
		out = "fail";
		json_object_set_new(rec, "outcome", json_string("fail"));
		json_object_set_new(rec, "result", json_string("xfail"));
	}
	if ((size_t)r > s->nrep) {
		s->rep = rt_xrealloc(s->rep, (size_t)r);
		memset(s->rep + s->nrep, 0, (size_t)r - s->nrep);
		s->nrep = (size_t)r;
	}
	if (strcmp(out, "pass") == 0)
		s->pass = 1, s->rep[r - 1] |= 1;
	else if (strcmp(out, "fail") == 0 || strcmp(out, "error") == 0 ||
	    strcmp(out, "timeout") == 0)
		s->fail = 1, s->rep[r - 1] |= 2;
	if (s->quarantined && g->records) {
		json_object_set_new(rec, "lane", json_string("quarantine"));
		if (rt_emit_try(g->records, rec) < 0)
			rt_die("%s: write error:", opt.records);
	}
	return 0;
}

static int
do_gate(int argc, char **argv)
{
	gate_ctx g;
	rt_quar_list l;
	rt_junit_opts o;
	char err[400];
	FILE *f;
	long bad = 0, qf = 0, qp = 0;
	size_t i;
	int k;

	if (argc == 0)
		rt_usage_die("gate: name the reports (JUnit XML, go test -json)");
	rt_quar_load(opt.file, 1, &l);
	memset(&g, 0, sizeof g);
	g.l = &l;
	if (opt.records && !(g.records = fopen(opt.records, "we")))
		rt_die("%s:", opt.records);
	memset(&o, 0, sizeof o);
	o.revision = rt_junit_revision_env();
	for (k = 0; k < argc; k++) {
		if (!(f = strcmp(argv[k], "-") ? fopen(argv[k], "re") : stdin))
			rt_die("%s:", argv[k]);
		o.report = f == stdin ? "<stdin>" : argv[k];
		g.report = o.report;
		if (rt_cases_read(f, &o, gate_rec, &g, err, sizeof err) < 0)
			rt_die("%s:%s", o.report, err);
		if (f != stdin)
			fclose(f);
	}
	if (g.records)
		rt_fshut(g.records, opt.records);
	for (i = 0; i < g.n; i++) {
		seen *s = g.order[i];
		/* failed: one of its runs failed and never passed (a pass on a
		 * retry is a flake; a pass in another repeat is not: each repeat
		 * is judged) */
		size_t j, runs = 0, failed = 0;
		for (j = 0; j < s->nrep; j++) {
			runs += s->rep[j] != 0;
			failed += s->rep[j] == 2;
		}
		/* a name is shown, never acted on: its line feeds and controls
		 * made visible (rt_visible), so no line of the job log that
		 * comes from a name starts a workflow command ("::error") */
		char *v = rt_visible(s->id);
		if (s->quarantined && (s->fail || s->pass)) {
			printf("quarantined, %s: %s\n", s->fail ? "failed" : "passed", v);
			s->fail ? qf++ : qp++;
		} else if (!s->quarantined && failed) {
			if (runs > 1)
				printf("failed: %s (%zu of %zu runs)\n", v, failed, runs);
			else
				printf("failed: %s\n", v);
			bad++;
		}
		free(v);
	}
	printf("gate: %s: %ld failed outside the quarantine; %ld quarantined failed, "
	    "%ld passed\n", bad ? "FAIL" : "pass", bad, qf, qp);
	for (i = 0; i < g.n; i++) {
		free(g.order[i]->id);
		free(g.order[i]->rep);
		free(g.order[i]);
	}
	free(g.order);
	rt_fshut(stdout, "stdout");
	rt_quar_free(&l);
	return bad ? RT_EXIT_NO : RT_EXIT_OK;
}

static void
github_close(void)
{
	rt_gh_close(&G);
	rt_http_cleanup();
}

/* --github, else GITHUB_REPOSITORY when GITHUB_TOKEN is set (a GitHub
 * Actions job that hands the step its token), unless --no-github. */
static void
github_open(void)
{
	const char *tok = getenv("GITHUB_TOKEN"), *env = getenv("GITHUB_REPOSITORY");

	if (opt.github)
		gh_repo = opt.github;
	else if (!opt.no_github && tok && *tok && env && *env)
		gh_repo = env;
	if (!gh_repo)
		return;
	if (!rt_gh_repo_ok(gh_repo))
		rt_usage_die("%s %s: must be OWNER/REPO", opt.github ? "--github" : "GITHUB_REPOSITORY",
		    gh_repo);
	rt_secret_protect();
	rt_http_init();
	rt_gh_open(&G, opt.token_file, "--github", 0);
	atexit(github_close);
}

int
main(int argc, char *argv[])
{
	static const char *const verbs[] = { "add", "list", "check", "release", "gate" };
	const char *verb, *env;
	int ch, v;

	rt_setprogname(argv[0]);
	opterr = 0;
	rt_config_apply("rt-quarantine", longopts, &argc, &argv);
	while ((ch = getopt_long(argc, argv, "f:hV", longopts, NULL)) != -1) {
		/* the file's values come first, one word each */
		if (ch >= OPT_OWNER && ch <= OPT_LEVEL && optind > rt_config_args() + 1)
			cli[ch - OPT_OWNER] = 1;
		switch (ch) {
		case 'f': opt.file = optarg; break;
		case OPT_OWNER: opt.owner = optarg; break;
		case OPT_EXPIRES: opt.expires = optarg; break;
		case OPT_ISSUE: opt.issue = optarg; break;
		case OPT_REASON: opt.reason = optarg; break;
		case OPT_RATE: opt.rate = optarg; break;
		case OPT_FROM: opt.from = optarg; break;
		case OPT_CODEOWNERS: opt.codeowners = optarg; break;
		case OPT_JSON: opt.json = 1; break;
		case OPT_GATE: opt.gate = 1; break;
		case OPT_HISTORY: opt.history = optarg; break;
		case OPT_RECORDS: opt.records = optarg; break;
		case OPT_GITHUB: opt.github = optarg; break;
		case OPT_TOKEN_FILE: opt.token_file = optarg; break;
		case OPT_NO_GITHUB: opt.no_github = 1; break;
		case OPT_MBOX: opt.mbox = optarg; break;
		case OPT_AUTHOR: opt.author = optarg; break;
		case OPT_LEVEL:
			opt.level = rt_num_double("--level", optarg, 0, 1, 1, 1);
			opt.have_level = 1;
			break;
		case OPT_CONF:
			opt.conf = rt_num_confidence("--confidence", optarg);
			opt.have_conf = 1;
			break;
		case RT_OPT_LIST_OPTIONS: return rt_cli_list_options(longopts);
		case 'h':
			usage(stdout);
			rt_fshut(stdout, "stdout");
			return 0;
		case 'V':
			rt_print_version();
			return 0;
		default:
			rt_bad_option(ch, "f:hV", argv);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return RT_EXIT_ERR;
	}
	verb = argv[optind++];
	for (v = 0; v < 5 && strcmp(verb, verbs[v]); v++)
		;
	if (v == 5)
		rt_usage_die("%s: not a verb (add, list, check, release, gate)", verb);
	/* an option another verb takes is refused by name when the command
	 * line gives it; .retrial.yml's (history:, codeowners:, confidence:)
	 * are for the verbs that take them, and the others leave them */
#define ONLY(cond, o, name, verbname) do { if ((cond) && cli[(o) - OPT_OWNER]) \
	rt_usage_die("%s is for %s, not %s", name, verbname, verb); } while (0)
	ONLY(v != 0, OPT_OWNER, "--owner", "add");
	ONLY(v != 0, OPT_EXPIRES, "--expires", "add");
	ONLY(v != 0, OPT_ISSUE, "--issue", "add");
	ONLY(v != 0, OPT_REASON, "--reason", "add");
	ONLY(v != 0, OPT_RATE, "--rate", "add");
	ONLY(v != 0, OPT_FROM, "--from", "add");
	ONLY(v != 0, OPT_CODEOWNERS, "--codeowners", "add");
	ONLY(v != 1, OPT_JSON, "--json", "list");
	ONLY(v != 2, OPT_GATE, "--gate", "check");
	ONLY(v != 3, OPT_HISTORY, "--history", "release");
	ONLY(v != 3, OPT_LEVEL, "--level", "release");
	ONLY(v != 3 && v != 0, OPT_CONF, "--confidence", "add and release");
	ONLY(v != 4, OPT_RECORDS, "--records", "gate");
	ONLY(v != 0 && v != 3, OPT_GITHUB, "--github", "add and release");
	ONLY(v != 0 && v != 3, OPT_NO_GITHUB, "--no-github", "add and release");
	ONLY(v != 3, OPT_MBOX, "--mbox", "release");
	ONLY(v != 3, OPT_AUTHOR, "--author", "release");
#undef ONLY
	if (opt.github && opt.no_github)
		rt_usage_die("--github and --no-github are exclusive");
	if (opt.token_file && !opt.github)
		rt_usage_die("--token-file needs --github");
	if (opt.author && !opt.mbox)
		rt_usage_die("--author needs --mbox");
	if (v == 0 || v == 3)
		github_open();
	if (!opt.file)
		opt.file = (env = getenv("RETRIAL_QUARANTINE")) && *env ? env : RT_QUAR_DEFAULT;
	rt_quar_today(opt.today);
	argc -= optind;
	argv += optind;
	switch (v) {
	case 0: return do_add(argc, argv);
	case 1: return do_list(argc, argv);
	case 2: return do_check(argc, argv);
	case 3: return do_release(argc, argv);
	default: return do_gate(argc, argv);
	}
}
