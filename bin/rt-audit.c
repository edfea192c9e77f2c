/* rt-audit: the nightly flake audit — ingest a night's per-case trial
 * records into a SQLite history and write a digest of what changed. Past
 * 800 lines because the digest's rules (each valid when read every night)
 * and its Markdown/HTML renderings (the quarantined lane's table, the
 * nightly sparklines), old audits' included, are its own; annotations
 * and webhooks are lib/rt_notify's, test definitions lib/rt_src's. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "rt_audit_store.h"
#include "rt_config.h"
#include "rt_hash.h"
#include "rt_notify.h"
#include "rt_cli.h"
#include "rt_codeowners.h"
#include "rt_github.h"
#include "rt_http.h"
#include "rt_jsonl.h"
#include "rt_records.h"
#include "rt_src.h"
#include "rt_md.h"
#include "rt_out.h"
#include "rt_quarantine.h"
#include "rt_site.h"
#include "rt_stats.h"
#include "rt_text.h"
#include "rt_trial.h"
#include "rt_util.h"

enum { OPT_MD = 1100, OPT_HTML, OPT_JSON, OPT_REVISION, OPT_CONF, OPT_AUDIT, OPT_SAME_RUN };
/* --pr-comment and its GitHub options (rt_github) */
enum { OPT_PR_COMMENT = 1150, OPT_GITHUB, OPT_TOKEN_FILE };
/* the digest's lanes and where it goes (issue 21) */
enum { OPT_QUARANTINE = 1200, OPT_ANNOTATIONS, OPT_WEBHOOK, OPT_WEBHOOK_FILE };
/* the history as a static site (issue 36) */
enum { OPT_HTML_DIR = 1250 };

static struct {
	const char *history, *run, *revision;
	const char *md, *html, *json, *html_dir;
	int command_case, gate, same_run;
	long top, window;
	double conf;
	sqlite3 *db;
	rt_audit_writer *w;
	long long audit, rerender;
	const char *tuned;      /* an option --audit N does not take */
	char at[32];
	char *dfile, *drun;     /* a file's default run, from its first record */
	long read, ingested, duplicates, counted, nocase, other;
	const char *qfile;      /* the quarantine list, or NULL */
	rt_quar_list q;
	int annotations;
	char *webhook;          /* a secret: never printed but scrubbed */
	char *webhook_shown;
} G;

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: rt-audit [-gC] [-H FILE] [-r RUN [--same-run]] [--revision REV] [-n N]\n"
	    "                [-w W] [--confidence C] [--md FILE] [--html FILE] [--json FILE]\n"
	    "                [--pr-comment N [--github OWNER/REPO] [--token-file FILE]]\n"
	    "                [--html-dir DIR] [--quarantine FILE] [--annotations]\n"
	    "                [--webhook URL | --webhook-file FILE] [file ...]\n"
	    "       rt-audit --audit N [-g] [-H FILE] [--md FILE] [--html FILE] [--json FILE]\n"
	    "                [--html-dir DIR]\n"
	    "                [--annotations] [--webhook URL | --webhook-file FILE]\n"
	    "Ingest per-case trial records (rt-junit, rt-collect --junit) into the flake\n"
	    "history and write the digest: new flaky tests, tests no longer flaky, rate\n"
	    "changes, the top rates and quarantine candidates.\n"
	    "  -H, --history FILE      the history (default $XDG_DATA_HOME/retrial/audit.db)\n"
	    "  -r, --run RUN           the run of records that name none (default: each\n"
	    "                          file a run of its own, named by path and first time)\n"
	    "      --same-run          the several files given are one run (with --run)\n"
	    "      --revision REV      the revision of records that name none\n"
	    "  -C, --command-case      a record without \"case\" is the case of its command\n"
	    "  -n, --top N             list the N highest rates (10)\n"
	    "  -w, --window W          the last W runs for rates and quarantine (30)\n"
	    "      --confidence C      for every interval (0.95)\n"
	    "      --md FILE           write the Markdown digest to FILE (- stdout)\n"
	    "      --html FILE         write the HTML digest to FILE\n"
	    "      --json FILE         write the digest as one JSON record to FILE\n"
	    "      --html-dir DIR      write the history as a static site to DIR: an\n"
	    "                          index of tests and a page for each\n"
	    "      --quarantine FILE   the quarantine list: its tests a lane that never\n"
	    "                          gates ($RETRIAL_QUARANTINE, else " RT_QUAR_DEFAULT "\n"
	    "                          when it exists)\n"
	    "      --annotations       print a GitHub ::warning for each newly flaky test\n"
	    "                          at its definition (no Markdown on stdout then)\n"
	    "      --webhook URL       post the headline as Slack-style JSON to URL\n"
	    "                          (else $RETRIAL_WEBHOOK_URL); https, or http to\n"
	    "                          a loopback host\n"
	    "      --webhook-file FILE read the webhook URL from FILE\n"
	    "  -a, --audit N           write the digest of stored audit N again\n"
	    "      --pr-comment N      put the Markdown digest in one comment on pull\n"
	    "                          request (or issue) N, updated on later nights\n"
	    "      --github OWNER/REPO its repository (default $GITHUB_REPOSITORY)\n"
	    "      --token-file FILE   the token, instead of GITHUB_TOKEN\n"
	    "  -g, --gate              exit 1 when a test is newly flaky\n"
	    "  -h, --help              print this help\n"
	    "  -V, --version           print the version\n");
}

/* SQLite's page cache in KiB: the audit's memory, with the digest's */
#define RT_AUDIT_CACHE_KIB "1024"

static void
die_db(const char *what)
{
	rt_die("%s: %s: %s", G.history, what, sqlite3_errmsg(G.db));
}

static sqlite3_stmt *
prep(const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(G.db, sql, -1, &st, NULL) != SQLITE_OK)
		die_db("prepare");
	return st;
}

static void
exec(const char *sql)
{
	char err[512];

	if (rt_audit_exec(G.db, sql, err, sizeof err) < 0)
		rt_die("%s: %s", G.history, err);
}

static const char *
col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* ---- ingest ---- */

static const char *const outcomes[] = {
	"pass", "fail", "skip", "error", "timeout", "ignored", NULL
};

/* Without --run, each file is a run of its own, named as rt-junit names
 * a report's: its path, "@" and its first record's timestamp (or
 * started_at), so the same file read again is the same run. Standard
 * input, or a first record without either, has none. */
static const char *
default_run(json_t *rec, const rt_where *w)
{
	const char *ts;

	if (!strcmp(w->file, "<stdin>"))
		return NULL;
	if (G.dfile && !strcmp(G.dfile, w->file))
		return G.drun;
	free(G.dfile);
	free(G.drun);
	G.dfile = rt_xstrdup(w->file);
	G.drun = NULL;
	if (rt_rec_opt_str(rec, "timestamp", w, &ts) || rt_rec_opt_str(rec, "started_at", w, &ts))
		G.drun = rt_xasprintf("%s@%s", w->file, ts);
	return G.drun;
}

static int
ingest(json_t *rec, const rt_where *w, void *ctx)
{
	rt_audit_rec r;
	const char *cmd = NULL;
	json_t *copy;
	char digest[65], err[512], *s;
	double num;
	int i, rc;

	(void)ctx;
	if (strcmp(json_string_value(json_object_get(rec, "type")), "trial") != 0) {
		G.other++;
		return 0;
	}
	G.read++;
	rt_rec_check(rt_rec_kind(rec), rec, w);
	memset(&r, 0, sizeof r);
	r.outcome = rt_rec_str(rec, "outcome", w);
	for (i = 0; outcomes[i] && strcmp(outcomes[i], r.outcome); i++)
		;
	if (!outcomes[i])
		rt_die_at(w, "\"outcome\" %s: not one of pass, fail, skip, error, "
		    "timeout, ignored", r.outcome);
	if (!rt_rec_opt_name(rec, "case", w, &r.case_id)) {
		rt_rec_opt_str(rec, "command", w, &cmd);
		if (!G.command_case || !cmd) {
			G.nocase++;
			return 0;
		}
		r.case_id = cmd;
	}
	copy = json_deep_copy(rec);
	if (!rt_rec_opt_str(rec, "run", w, &r.run)) {
		if (!G.run && !(r.run = default_run(rec, w)))
			rt_die_at(w, "\"run\" missing (give --run RUN)");
		if (G.run)
			r.run = G.run;
		json_object_set_new(copy, "run", json_string(r.run));
	}
	if (!rt_rec_opt_str(rec, "revision", w, &r.revision))
		r.revision = G.revision;
	if (!rt_rec_opt_str(rec, "timestamp", w, &r.timestamp))
		rt_rec_opt_str(rec, "started_at", w, &r.timestamp);
	rt_rec_opt_str(rec, "source", w, &r.source);
	rt_rec_opt_str(rec, "report", w, &r.report);
	rt_rec_opt_str(rec, "message", w, &r.message);
	rt_rec_opt_str(rec, "failure_type", w, &r.failure_type);
	if (!rt_rec_opt_int(rec, "trial", w, &r.trial))
		r.trial = -1;
	if (!rt_rec_opt_int(rec, "attempt", w, &r.attempt))
		r.attempt = -1;
	r.time_ms = -1;
	if (rt_rec_opt_num(rec, "time_ms", w, &num) ||
	    rt_rec_opt_num(rec, "elapsed_ms", w, &num))
		r.time_ms = num;
	/* the content hash: the same report ingested twice counts once, and
	 * so does a case that rt-quarantine gate --records copied into its
	 * lane from a report rt-junit also read (the lane is not content),
	 * or one read again on a later night under that night's GITHUB_SHA:
	 * the revision is the run's (rt_audit_add), not the record's identity */
	json_object_del(copy, "lane");
	if (json_object_get(copy, "revision"))
		json_object_set_new(copy, "revision", json_null());
	s = json_dumps(copy, JSON_COMPACT | JSON_SORT_KEYS);
	rt_sha256_hex(s ? s : "", s ? strlen(s) : 0, digest);
	free(s);
	r.digest = digest;
	rc = rt_audit_add(G.w, &r, err, sizeof err);
	json_decref(copy);
	if (rc < 0)
		rt_die("%s: %s:%ld: %s", G.history, w->file, w->line, err);
	if (rc == 0) {
		G.duplicates++;
	} else {
		G.ingested++;
		if (strcmp(r.outcome, "skip") && strcmp(r.outcome, "error") &&
		    strcmp(r.outcome, "ignored"))
			G.counted++;
	}
	return 0;
}

/* ---- rates ---- */

/* A rate with its count and interval: Wilson, or the exact one-sided
 * bound for 0/n and n/n (rt_rate_text's). */
static json_t *
rate_obj(long k, long n, double *hi)
{
	json_t *o = json_object();
	rt_interval ci;
	char text[160];

	rt_say_interval(k, n, G.conf, &ci);
	json_object_set_new(o, "failures", json_integer(k));
	json_object_set_new(o, "trials", json_integer(n));
	json_object_set_new(o, "rate", n > 0 ? rt_json_real6((double)k / n) : json_null());
	json_object_set_new(o, "ci_low", rt_json_real6(ci.low));
	json_object_set_new(o, "ci_high", rt_json_real6(ci.high));
	json_object_set_new(o, "interval", json_string(rt_interval_method(k, n)));
	rt_rate_text(text, sizeof text, k, n, G.conf);
	json_object_set_new(o, "summary", json_string(text));
	if (hi)
		*hi = ci.high;
	return o;
}

/* ---- the audit ---- */

/* FLAKY: a pass and a failure on the same revision (records without a
 * revision: the same run). A case newly flaky is one not flagged before,
 * or cleared before and flaky again in records ingested since. */
static json_t *
new_flaky(void)
{
	json_t *out = json_array(), *o;
	sqlite3_stmt *q, *ins;
	const char *last = NULL;
	char *prev = NULL;

	q = prep("SELECT r.case_id, min(r.revision), min(coalesce(r.timestamp, a.at)) AS seen,"
	    " sum(r.failed), count(r.failed), min(r.run)"
	    " FROM results r JOIN audits a ON a.id = r.audit_id"
	    " LEFT JOIN flaky f ON f.case_id = r.case_id"
	    " WHERE r.failed IS NOT NULL AND (f.case_id IS NULL OR"
	    "  (f.cleared_audit IS NOT NULL AND r.audit_id > f.cleared_audit))"
	    " GROUP BY r.case_id, r.rev_key"
	    " HAVING sum(r.failed) > 0 AND sum(r.failed) < count(r.failed)"
	    " ORDER BY r.case_id, seen, r.rev_key");
	ins = prep("INSERT OR REPLACE INTO flaky (case_id, first_revision, first_seen,"
	    " first_run, audit_id) VALUES (?1, ?2, ?3, ?4, ?5)");
	while (sqlite3_step(q) == SQLITE_ROW) {
		last = col_text(q, 0);
		if (prev && !strcmp(prev, last))
			continue;        /* the earliest revision only */
		free(prev);
		prev = rt_xstrdup(last);
		o = json_object();
		json_object_set_new(o, "case", json_string(last));
		json_object_set_new(o, "first_revision", col_text(q, 1) ?
		    json_string(col_text(q, 1)) : json_null());
		json_object_set_new(o, "first_seen", json_string(col_text(q, 2)));
		json_object_set_new(o, "first_run", json_string(col_text(q, 5)));
		json_object_set_new(o, "on_revision", rate_obj(sqlite3_column_int64(q, 3),
		    sqlite3_column_int64(q, 4), NULL));
		json_array_append_new(out, o);
		sqlite3_bind_text(ins, 1, last, -1, SQLITE_TRANSIENT);
		sqlite3_bind_value(ins, 2, sqlite3_column_value(q, 1));
		sqlite3_bind_text(ins, 3, col_text(q, 2), -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 4, col_text(q, 5), -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(ins, 5, G.audit);
		if (sqlite3_step(ins) != SQLITE_DONE)
			die_db("flaky");
		sqlite3_reset(ins);
	}
	free(prev);
	sqlite3_finalize(q);
	sqlite3_finalize(ins);
	return out;
}

/* A test's counted records per run, in run order (rt-audit(1)). */
typedef struct {
	long k, n;
	long long audit;
	int in_window;
	char *run;
} runcount;

static size_t
case_runs(const char *c, runcount **out)
{
	static sqlite3_stmt *q;
	runcount *v = NULL;
	size_t nv = 0;

	if (!c) {
		sqlite3_finalize(q);
		q = NULL;
		return 0;
	}
	if (!q)
		q = prep("SELECT r.run, sum(r.failed), count(r.failed), min(u.audit_id),"
		    " r.run IN (SELECT run FROM runs ORDER BY audit_id DESC, first_ts DESC,"
		    "  run DESC LIMIT ?2)"
		    " FROM results r JOIN runs u ON u.run = r.run"
		    " WHERE r.case_id = ?1 AND r.failed IS NOT NULL"
		    " GROUP BY r.run ORDER BY min(u.audit_id), min(u.first_ts), r.run");
	sqlite3_bind_text(q, 1, c, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 2, G.window);
	while (sqlite3_step(q) == SQLITE_ROW) {
		v = rt_xrealloc(v, (nv + 1) * sizeof *v);
		v[nv].run = rt_xstrdup(col_text(q, 0));
		v[nv].k = sqlite3_column_int64(q, 1);
		v[nv].n = sqlite3_column_int64(q, 2);
		v[nv].audit = sqlite3_column_int64(q, 3);
		v[nv].in_window = sqlite3_column_int(q, 4);
		nv++;
	}
	sqlite3_reset(q);
	*out = v;
	return nv;
}

static void
runs_free(runcount *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].run);
	free(v);
}

/* A rate with an anytime-valid bound (rt_cs_interval at c): "low" or
 * "high" names the side the rule uses. */
static json_t *
anytime_obj(long k, long n, double c, int high, double *bound)
{
	json_t *o = rate_obj(k, n, NULL);
	rt_interval cs;

	rt_cs_interval(k, n, c, 0.5, 0.5, &cs);
	*bound = high ? cs.high : cs.low;
	json_object_set_new(o, high ? "anytime_high" : "anytime_low", rt_json_real6(*bound));
	json_object_set_new(o, "anytime_confidence", rt_json_real6(c));
	return o;
}

/* "No longer flaky", a rule that may be checked every night (rt-audit(1)):
 * for a start s among the runs since the audit that flagged it (the j-th
 * such run), the anytime upper bound on the rate from s on, at
 * 1 − (α/2)/(j(j+1)), lies below half the anytime lower bound, at
 * 1 − α/2, on the rate before s. The bounds hold at every n at once and
 * the starts' shares of α/2 sum to α/2, so a test whose rate never
 * changed is listed, over any number of nights, with probability at most
 * α = 1 − C. A flagged test clean in its latest run but not shown so is
 * "not seen failing" (information, not a claim). */
static void
recovered(json_t *gone, json_t *quiet)
{
	sqlite3_stmt *cases, *clear;
	runcount *v;
	size_t nv, i, j, first, last_fail;
	long kb, nb, ka, na, *pk, *pn, sk, sn, since;
	double alpha = 1 - G.conf, lo, hi, cj;
	json_t *o;
	long long flag;

	cases = prep("SELECT case_id, audit_id FROM flaky WHERE cleared_audit IS NULL AND"
	    " audit_id < ?1 ORDER BY case_id");
	clear = prep("UPDATE flaky SET cleared_audit = ?2, cleared_at = ?3"
	    " WHERE case_id = ?1");
	sqlite3_bind_int64(cases, 1, G.audit);
	while (sqlite3_step(cases) == SQLITE_ROW) {
		const char *c = col_text(cases, 0);
		flag = sqlite3_column_int64(cases, 1);
		nv = case_runs(c, &v);
		if (nv == 0 || v[nv - 1].k > 0) {
			runs_free(v, nv);
			continue;        /* it failed in its latest run */
		}
		pk = rt_xcalloc(nv + 1, sizeof *pk);
		pn = rt_xcalloc(nv + 1, sizeof *pn);
		for (i = 0; i < nv; i++)
			pk[i + 1] = pk[i] + v[i].k, pn[i + 1] = pn[i] + v[i].n;
		for (first = 0; first < nv && v[first].audit <= flag; first++)
			;
		o = NULL;
		for (i = first; i < nv && !o; i++) {
			j = i - first + 1;
			kb = pk[i], nb = pn[i];
			ka = pk[nv] - kb, na = pn[nv] - nb;
			if (nb == 0 || na == 0)
				continue;
			cj = 1 - alpha / 2 / ((double)j * (double)(j + 1));
			json_t *before = anytime_obj(kb, nb, 1 - alpha / 2, 0, &lo);
			json_t *after = anytime_obj(ka, na, cj, 1, &hi);
			if (hi < lo / 2) {
				o = json_object();
				json_object_set_new(o, "case", json_string(c));
				json_object_set_new(o, "since_run", json_string(v[i].run));
				json_object_set_new(o, "runs_since", json_integer((json_int_t)(nv - i)));
				json_object_set_new(o, "before", before);
				json_object_set_new(o, "since", after);
				json_object_set_new(o, "level", rt_json_real6(lo / 2));
				json_object_set_new(o, "rule", json_string("anytime"));
			} else {
				json_decref(before);
				json_decref(after);
			}
		}
		if (o) {
			json_array_append_new(gone, o);
			sqlite3_bind_text(clear, 1, c, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(clear, 2, G.audit);
			sqlite3_bind_text(clear, 3, G.at, -1, SQLITE_TRANSIENT);
			if (sqlite3_step(clear) != SQLITE_DONE)
				die_db("flaky");
			sqlite3_reset(clear);
		} else {
			for (last_fail = nv; last_fail > 0 && v[last_fail - 1].k == 0; last_fail--)
				;
			sk = sn = since = 0;
			for (i = last_fail; i < nv; i++)
				sn += v[i].n, since++;
			o = json_object();
			json_object_set_new(o, "case", json_string(c));
			json_object_set_new(o, "runs_since", json_integer(since));
			json_object_set_new(o, "since", rate_obj(sk, sn, NULL));
			json_array_append_new(quiet, o);
		}
		free(pk);
		free(pn);
		runs_free(v, nv);
	}
	sqlite3_finalize(cases);
	sqlite3_finalize(clear);
}

static int
by_abs_change(const void *a, const void *b)
{
	double x = fabs(json_real_value(json_object_get(*(json_t *const *)a, "change")));
	double y = fabs(json_real_value(json_object_get(*(json_t *const *)b, "change")));

	return (x < y) - (x > y);
}

/* Tonight's rate against the history before it, by Fisher's exact test,
 * listed by the Benjamini–Hochberg procedure at a false discovery rate of
 * 1 − C over every test compared tonight: the digest's share of false
 * alarms stays within 1 − C however many tests the suite has. */
static json_t *
rate_changes(json_t *d)
{
	/* one compact row a case tested tonight (issue 31: a JSON object each
	 * held for the cutoff cost about 1 KB a case); objects for the shown */
	struct rc { char *c; long k1, n1, k2, n2; double change; } *v = NULL, t;
	sqlite3_stmt *q;
	json_t *out = json_array(), *o;
	size_t nv = 0, cap = 0, i, shown = 0;
	double *p = NULL, *ps = NULL, cut;

	q = prep("SELECT case_id, sum(failed * (audit_id < ?1)), sum(audit_id < ?1),"
	    " sum(failed * (audit_id = ?1)), sum(audit_id = ?1) FROM results"
	    " WHERE failed IS NOT NULL AND case_id IN"
	    "  (SELECT case_id FROM results WHERE audit_id = ?1)"
	    " GROUP BY case_id ORDER BY case_id");
	sqlite3_bind_int64(q, 1, G.audit);
	while (sqlite3_step(q) == SQLITE_ROW) {
		t.k1 = sqlite3_column_int64(q, 1);
		t.n1 = sqlite3_column_int64(q, 2);
		t.k2 = sqlite3_column_int64(q, 3);
		t.n2 = sqlite3_column_int64(q, 4);
		if (t.n1 == 0 || t.n2 == 0)
			continue;
		if (nv == cap) {
			cap = cap ? 2 * cap : 64;
			v = rt_xrealloc(v, cap * sizeof *v);
			p = rt_xrealloc(p, cap * sizeof *p);
		}
		t.c = rt_xstrdup(col_text(q, 0));
		t.change = (double)t.k2 / t.n2 - (double)t.k1 / t.n1;
		p[nv] = rt_fisher_exact(t.k2, t.n2 - t.k2, t.k1, t.n1 - t.k1);
		v[nv++] = t;
	}
	sqlite3_finalize(q);
	ps = rt_xcalloc(nv + 1, sizeof *ps);
	if (nv)
		memcpy(ps, p, nv * sizeof *p);
	cut = rt_bh_cutoff(ps, nv, 1 - G.conf);
	json_object_set_new(d, "rate_change_tests", json_integer((json_int_t)nv));
	json_object_set_new(d, "rate_change_fdr", rt_json_real6(1 - G.conf));
	json_object_set_new(d, "rate_change_method", json_string("fisher, benjamini-hochberg"));
	for (i = 0; i < nv; i++) {
		if (p[i] <= cut) {
			o = json_object();
			json_object_set_new(o, "case", json_string(v[i].c));
			json_object_set_new(o, "before", rate_obj(v[i].k1, v[i].n1, NULL));
			json_object_set_new(o, "tonight", rate_obj(v[i].k2, v[i].n2, NULL));
			json_object_set_new(o, "change", rt_json_real6(v[i].change));
			json_object_set_new(o, "p_value", json_real(p[i]));
			json_array_append_new(out, o);
			shown++;
		}
		free(v[i].c);
	}
	json_object_set_new(d, "rate_change_alarms", json_integer((json_int_t)shown));
	if (shown > 1) {
		json_t **w = rt_xcalloc(shown, sizeof *w);
		for (i = 0; i < shown; i++)
			w[i] = json_incref(json_array_get(out, i));
		qsort(w, shown, sizeof *w, by_abs_change);
		json_array_clear(out);
		for (i = 0; i < shown; i++)
			if ((long)i < G.top)
				json_array_append_new(out, w[i]);
			else
				json_decref(w[i]);
		free(w);
	}
	free(v);
	free(p);
	free(ps);
	return out;
}

/* The window: the last W runs, by when they were first ingested. */
#define WINDOW_RUNS "(SELECT run FROM runs ORDER BY audit_id DESC, first_ts DESC," \
	" run DESC LIMIT ?1)"

/* A rate with an exact one-sided bound at c: "low" or "high". */
static json_t *
exact_obj(long k, long n, double c, int high, double *bound)
{
	json_t *o = rate_obj(k, n, NULL);

	*bound = high ? rt_exact_upper(k, n, c) : rt_exact_lower(k, n, c);
	json_object_set_new(o, high ? "exact_high" : "exact_low", rt_json_real6(*bound));
	json_object_set_new(o, "exact_confidence", rt_json_real6(c));
	return o;
}

/* A steady flake (rt-audit(1)): its runs in the window fail above the
 * policy's threshold, by the anytime lower bound at 1 − α that the rules
 * above use, so a rate that never rose is a candidate too. A test at or
 * below the threshold is listed with probability at most α however many
 * of its runs are counted. NULL when it is not one. */
static json_t *
steady(const char *c, const runcount *v, size_t nv)
{
	long k = 0, n = 0, runs = 0;
	double lo;
	json_t *o, *rate;
	size_t i;

	for (i = 0; i < nv; i++)
		if (v[i].in_window)
			k += v[i].k, n += v[i].n, runs++;
	if (k == 0)
		return NULL;
	rate = anytime_obj(k, n, G.conf, 0, &lo);
	if (lo <= RT_FLAKY_THRESHOLD) {
		json_decref(rate);
		return NULL;
	}
	o = json_object();
	json_object_set_new(o, "case", json_string(c));
	json_object_set_new(o, "runs", json_integer(runs));
	json_object_set_new(o, "rate", rate);
	json_object_set_new(o, "threshold", rt_json_real6(RT_FLAKY_THRESHOLD));
	return o;
}

/* A quarantine candidate by the rt-plan policy, on single-attempt data
 * (rt-audit(1)): the policy plans r retries at the high end of the rate
 * measured before (anytime-valid at 1 − α/2, so it holds for every
 * split at once), so a run exhausts them with chance at most
 * q = hi^(r+1). A test is a candidate when, for some j ≤ W, its last j
 * runs (in the window, the latest failing) have a rate whose exact lower
 * bound at 1 − α/(2W) lies above hi: each of its executions now exhausts
 * the r retries with chance above q, beyond what the budget was planned
 * for. At a rate that did not change, a night lists a test with
 * probability at most α/2 + W·α/(2W) = α. NULL when it is not one. */
static json_t *
quarantine(const char *c)
{
	runcount *v;
	size_t nv = case_runs(c, &v), j, i;
	long kr = 0, nr = 0, kb, nb, kt, nt, r = 0;
	double alpha = 1 - G.conf, lo, hi, cq = 1 - alpha / 2 / (double)G.window;
	json_t *o = NULL, *recent, *basis;
	int rc;

	if (nv == 0) {
		runs_free(v, nv);
		return NULL;
	}
	for (kt = nt = 0, i = 0; i < nv; i++)
		kt += v[i].k, nt += v[i].n;
	/* a rise needs its latest run failing */
	for (j = 1; j < nv && v[nv - 1].k > 0 && v[nv - j].in_window && !o; j++) {
		kr += v[nv - j].k;
		nr += v[nv - j].n;
		kb = kt - kr, nb = nt - nr;
		if (nb == 0)
			break;
		recent = exact_obj(kr, nr, cq, 0, &lo);
		basis = anytime_obj(kb, nb, 1 - alpha / 2, 1, &hi);
		rc = rt_retry_budget(hi, RT_RETRY_TARGET, &r);
		if (rc == RT_STATS_OK && lo > hi) {
			o = json_object();
			json_object_set_new(o, "case", json_string(c));
			json_object_set_new(o, "runs", json_integer((json_int_t)j));
			json_object_set_new(o, "rate", recent);
			json_object_set_new(o, "basis", basis);
			json_object_set_new(o, "retry_budget", json_integer(r));
			json_object_set_new(o, "exhaust_planned", rt_json_real6(pow(hi, (double)(r + 1))));
			json_object_set_new(o, "exhaust_low", rt_json_real6(pow(lo, (double)(r + 1))));
		} else {
			json_decref(recent);
			json_decref(basis);
		}
	}
	if (!o)
		o = steady(c, v, nv);
	runs_free(v, nv);
	return o;
}

/* The top N by rate over the window (ties: the higher interval), and the
 * quarantine candidates. */
static void
rates(json_t *top, json_t *quar)
{
	sqlite3_stmt *q;
	long k, n;
	json_t *o, *rt;

	q = prep("SELECT case_id, sum(failed), count(failed),"
	    " EXISTS (SELECT 1 FROM flaky f WHERE f.case_id = results.case_id AND"
	    "  f.cleared_audit IS NULL)"
	    " FROM results WHERE failed IS NOT NULL AND run IN " WINDOW_RUNS
	    " GROUP BY case_id HAVING sum(failed) > 0"
	    " ORDER BY sum(failed) * 1.0 / count(failed) DESC, count(failed) DESC, case_id");
	sqlite3_bind_int64(q, 1, G.window);
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *c = col_text(q, 0);
		k = sqlite3_column_int64(q, 1);
		n = sqlite3_column_int64(q, 2);
		if ((long)json_array_size(top) < G.top) {
			rt = rate_obj(k, n, NULL);
			o = json_object();
			json_object_set_new(o, "case", json_string(c));
			json_object_set_new(o, "flaky", json_boolean(sqlite3_column_int(q, 3)));
			json_object_set_new(o, "rate", rt);
			json_array_append_new(top, o);
		}
		if ((o = quarantine(c)))
			json_array_append_new(quar, o);
	}
	sqlite3_finalize(q);
}

static long long
scalar(const char *sql)
{
	sqlite3_stmt *st = prep(sql);
	long long v = 0;

	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* ---- the quarantine lane and the nightly rates ---- */

static const char *jstr(json_t *o, const char *k);

/* The list's entry for case c, or NULL. */
static rt_quar_entry *
quarantined_entry(const char *c)
{
	return G.qfile ? rt_quar_find(&G.q, c) : NULL;
}

/* Mark each item of v whose case is on the quarantine list: its rate is
 * measured, and it never counts for --gate. */
static void
mark_quarantined(json_t *v)
{
	size_t i;
	json_t *o;

	json_array_foreach(v, i, o)
		if (quarantined_entry(jstr(o, "case")))
			json_object_set_new(o, "quarantined", json_true());
}

/* The list's entries as of tonight, each with its test's rate over the
 * window (null when the history holds none of its records). */
static json_t *
quarantine_lane(void)
{
	json_t *out = json_array(), *o;
	sqlite3_stmt *cases, *q;
	char today[11];
	char *c, *first;
	size_t i;
	int m;
	rt_quar_entry *e;

	if (!G.qfile)
		return out;
	memcpy(today, G.at, 10);
	today[10] = '\0';
	/* the cases streamed once an entry, none held (issue 31): the
	 * entry's own ID, else the first case it matches */
	cases = prep("SELECT DISTINCT case_id FROM results ORDER BY case_id");
	q = prep("SELECT sum(failed), count(failed) FROM results WHERE case_id = ?2"
	    " AND failed IS NOT NULL AND run IN " WINDOW_RUNS);
	for (i = 0; i < G.q.n; i++) {
		e = &G.q.e[i];
		if (!e->id)
			continue;
		c = first = NULL;
		while (!c && sqlite3_step(cases) == SQLITE_ROW) {
			m = rt_quar_match(e, col_text(cases, 0));
			if (m == 2)
				c = rt_xstrdup(col_text(cases, 0));
			else if (m && !first)
				first = rt_xstrdup(col_text(cases, 0));
		}
		sqlite3_reset(cases);
		if (c)
			free(first);
		else
			c = first;
		o = json_object();
		json_object_set_new(o, "case", json_string(c ? c : e->id));
		json_object_set_new(o, "in_history", json_boolean(c != NULL));
		json_object_set_new(o, "line", json_integer(e->line));
		json_object_set_new(o, "owner", e->owner ? json_string(e->owner) : json_null());
		json_object_set_new(o, "since", e->since ? json_string(e->since) : json_null());
		json_object_set_new(o, "expires", e->expires ? json_string(e->expires) : json_null());
		json_object_set_new(o, "days_left", e->expires ?
		    json_integer(rt_quar_days(e->expires) - rt_quar_days(today)) : json_null());
		json_object_set_new(o, "issue", e->issue ? json_string(e->issue) : json_null());
		json_object_set_new(o, "rate", json_null());
		if (c) {
			sqlite3_bind_int64(q, 1, G.window);
			sqlite3_bind_text(q, 2, c, -1, SQLITE_TRANSIENT);
			if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int64(q, 1) > 0)
				json_object_set_new(o, "rate", rate_obj(sqlite3_column_int64(q, 0),
				    sqlite3_column_int64(q, 1), NULL));
			sqlite3_reset(q);
		}
		json_array_append_new(out, o);
		free(c);
	}
	sqlite3_finalize(q);
	sqlite3_finalize(cases);
	return out;
}

/* Is c among the cases already in the nightly list? */
static int
nightly_has(json_t *nightly, const char *c)
{
	size_t i;
	json_t *o;

	json_array_foreach(nightly, i, o)
		if (!strcmp(jstr(o, "case"), c))
			return 1;
	return 0;
}

/* Each test the digest names (the top rates, the newly flaky, the
 * candidates, the quarantined), with its rate each night of the window's
 * runs (lib/rt_site's nights: the date a run started): one point per
 * night, its failures of its trials and its interval (rate_obj's). */
static void
nightly_add(json_t *nightly, const char *c)
{
	static sqlite3_stmt *q;
	rt_site_nights v;
	size_t i;
	json_t *o, *nights, *r;
	long k = 0, n = 0;

	if (!nightly) {
		sqlite3_finalize(q);
		q = NULL;
		return;
	}
	if (!*c || nightly_has(nightly, c))
		return;
	if (!q && !(q = rt_site_nights_prep(G.db, -1, G.window)))
		die_db("nights");
	if (rt_site_night(q, c, &v) < 0)
		die_db("nights");
	nights = json_array();
	for (i = 0; i < v.len; i++) {
		k += v.k[i], n += v.n[i];
		r = rate_obj(v.k[i], v.n[i], NULL);
		json_object_set_new(r, "night", json_string(v.night[i]));
		json_array_append_new(nights, r);
	}
	rt_site_nights_free(&v);
	o = json_object();
	json_object_set_new(o, "case", json_string(c));
	json_object_set_new(o, "quarantined", json_boolean(quarantined_entry(c) != NULL));
	json_object_set_new(o, "window_rate", n ? rate_obj(k, n, NULL) : json_null());
	json_object_set_new(o, "nights", nights);
	json_array_append_new(nightly, o);
}

/* The newly flaky get sparklines for the first NIGHTLY_NEW of them only:
 * a first import can flag thousands, and each holds a point per night of
 * the window (issue 31). The rest are counted in "nightly_omitted". The
 * other lists are bounded already (--top, the quarantine list's size). */
#define NIGHTLY_NEW 100

static json_t *
nightly_rates(json_t *d)
{
	static const char *const lists[] = { "new_flaky", "top", "quarantine",
	    "quarantined", NULL };
	json_t *nightly = json_array(), *o;
	size_t i, k, omitted = 0;

	for (k = 0; lists[k]; k++)
		json_array_foreach(json_object_get(d, lists[k]), i, o) {
			if (k == 0 && i >= NIGHTLY_NEW) {
				omitted++;
				continue;
			}
			if (strcmp(lists[k], "quarantined") || json_is_true(json_object_get(o,
			    "in_history")))
				nightly_add(nightly, jstr(o, "case"));
		}
	json_object_set_new(d, "nightly_omitted", json_integer((json_int_t)omitted));
	nightly_add(NULL, NULL);
	return nightly;
}

/* The audit before this one, for "since last night"; null for the first. */
static json_t *
previous_audit(void)
{
	sqlite3_stmt *st = prep("SELECT id, at FROM audits WHERE id < ?1 ORDER BY id DESC LIMIT 1");
	json_t *o = json_null();

	sqlite3_bind_int64(st, 1, G.audit);
	if (sqlite3_step(st) == SQLITE_ROW) {
		o = json_object();
		json_object_set_new(o, "audit", json_integer(sqlite3_column_int64(st, 0)));
		json_object_set_new(o, "at", json_string(col_text(st, 1)));
	}
	sqlite3_finalize(st);
	return o;
}

static json_t *
audit(void)
{
	json_t *d = json_object(), *gone = json_array(), *quiet = json_array();
	json_t *top = json_array(), *quar = json_array();
	sqlite3_stmt *st;

	json_object_set_new(d, "type", json_string("audit"));
	json_object_set_new(d, "audit", json_integer(G.audit));
	json_object_set_new(d, "at", json_string(G.at));
	json_object_set_new(d, "history", json_string(G.history));
	json_object_set_new(d, "read", json_integer(G.read));
	json_object_set_new(d, "ingested", json_integer(G.ingested));
	json_object_set_new(d, "duplicates", json_integer(G.duplicates));
	json_object_set_new(d, "without_case", json_integer(G.nocase));
	json_object_set_new(d, "runs", json_integer(scalar("SELECT count(*) FROM runs")));
	json_object_set_new(d, "cases", json_integer(
	    scalar("SELECT count(DISTINCT case_id) FROM results")));
	json_object_set_new(d, "records", json_integer(scalar("SELECT count(*) FROM results")));
	json_object_set_new(d, "revisions", json_integer(
	    scalar("SELECT count(DISTINCT revision) FROM results")));
	json_object_set_new(d, "confidence", json_real(G.conf));
	json_object_set_new(d, "window", json_integer(G.window));
	st = prep("UPDATE audits SET records = ?2, duplicates = ?3 WHERE id = ?1");
	sqlite3_bind_int64(st, 1, G.audit);
	sqlite3_bind_int64(st, 2, G.ingested);
	sqlite3_bind_int64(st, 3, G.duplicates);
	if (sqlite3_step(st) != SQLITE_DONE)
		die_db("audits");
	sqlite3_finalize(st);
	/* recovered first: a case cleared tonight is not newly flaky tonight */
	recovered(gone, quiet);
	json_object_set_new(d, "new_flaky", new_flaky());
	json_object_set_new(d, "no_longer_flaky", gone);
	json_object_set_new(d, "not_seen_failing", quiet);
	json_object_set_new(d, "rate_changes", rate_changes(d));
	rates(top, quar);
	json_object_set_new(d, "top", top);
	json_object_set_new(d, "quarantine", quar);
	json_object_set_new(d, "previous", previous_audit());
	if (G.qfile)
		json_object_set_new(d, "quarantine_list", json_string(G.qfile));
	json_object_set_new(d, "quarantined", quarantine_lane());
	mark_quarantined(json_object_get(d, "new_flaky"));
	mark_quarantined(top);
	mark_quarantined(quar);
	json_object_set_new(d, "nightly", nightly_rates(d));
	case_runs(NULL, NULL);
	return d;
}

/* ---- the digest ---- */

static const char *
jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static const char *
rsum(json_t *o, const char *k)
{
	return jstr(json_object_get(o, k), "summary");
}


/* "+20.0 points (95% CI +3.1 to +36.4)" */
static const char *
change_text(char *buf, size_t size, json_t *o, double conf)
{
	char a[32], b[32], c[32], cl[32];

	rt_say_points(a, sizeof a, json_number_value(json_object_get(o, "change")), RT_SAY_NEAR);
	rt_say_points(b, sizeof b, json_number_value(json_object_get(o, "change_low")), RT_SAY_DOWN);
	rt_say_points(c, sizeof c, json_number_value(json_object_get(o, "change_high")), RT_SAY_UP);
	rt_say_conf(cl, sizeof cl, conf);
	snprintf(buf, size, "%s points (%s CI %s to %s)", a, cl, b, c);
	return buf;
}

/* A bound at one decimal, rounded outward: an upper bound up, a lower
 * bound down, so the printed claim is never stronger than the one made. */
static const char *
bound(char *buf, size_t size, json_t *o, const char *k, int upper)
{
	rt_say_pct(buf, size, json_number_value(json_object_get(o, k)),
	    upper ? RT_SAY_UP : RT_SAY_DOWN);
	return buf;
}

static const char *
counts(char *buf, size_t size, json_t *r)
{
	snprintf(buf, size, "%lld/%lld failed",
	    (long long)json_integer_value(json_object_get(r, "failures")),
	    (long long)json_integer_value(json_object_get(r, "trials")));
	return buf;
}

/* Record text in HTML: visible (rt_text_visible), then escaped. */
static void
html_esc(rt_buf *b, const char *s)
{
	char *v = rt_visible(s);

	rt_html_esc(b, v, strlen(v));
	free(v);
}

/* One digest, two markups: each item is a case and its line of text. */
typedef struct {
	int html;
	rt_buf b;
} doc;

static void
d_head(doc *d, const char *title, size_t n, const char *none, const char *note)
{
	if (d->html)
		rt_buf_printf(&d->b, "<h2>%s (%zu)</h2>\n", title, n);
	else
		rt_buf_printf(&d->b, "\n## %s (%zu)\n\n", title, n);
	if (note) {
		if (d->html) {
			rt_buf_adds(&d->b, "<p>");
			html_esc(&d->b, note);
			rt_buf_adds(&d->b, "</p>\n");
		} else {
			rt_buf_printf(&d->b, "%s\n\n", note);
		}
	}
	if (!n) {
		if (d->html)
			rt_buf_printf(&d->b, "<p>%s</p>\n", none);
		else
			rt_buf_printf(&d->b, "%s\n", none);
	} else if (d->html) {
		rt_buf_adds(&d->b, "<ul>\n");
	}
}

static void
d_item(doc *d, const char *c, const char *text)
{
	char *v;

	if (d->html) {
		rt_buf_adds(&d->b, "<li><code>");
		html_esc(&d->b, c);
		rt_buf_adds(&d->b, "</code>: ");
		html_esc(&d->b, text);
		rt_buf_adds(&d->b, "</li>\n");
	} else {
		rt_buf_adds(&d->b, "- ");
		rt_md_code(&d->b, c);
		v = rt_visible(text);
		rt_buf_printf(&d->b, ": %s\n", v);
		free(v);
	}
}

static void
d_end(doc *d, size_t n)
{
	if (d->html && n)
		rt_buf_adds(&d->b, "</ul>\n");
}

/* "Since last night": tonight's news against the audit before, in counts. */
static void
d_since(doc *d, json_t *a)
{
	json_t *prev = json_object_get(a, "previous"), *o;
	size_t nf = json_array_size(json_object_get(a, "new_flaky")), i, nq = 0;
	char line[600], when[160];

	json_array_foreach(json_object_get(a, "new_flaky"), i, o)
		if (json_is_true(json_object_get(o, "quarantined")))
			nq++;
	if (json_is_object(prev))
		snprintf(when, sizeof when, " (against audit %lld, %s)",
		    (long long)json_integer_value(json_object_get(prev, "audit")), jstr(prev, "at"));
	else if (prev)
		snprintf(when, sizeof when, " (the history's first audit)");
	else
		when[0] = '\0';
	snprintf(line, sizeof line, "%zu newly flaky%s, %zu no longer flaky, %zu rate "
	    "change%s.", nf, !nq ? "" : nq == nf ? " (quarantined, not gating)" :
	    " (some quarantined, not gating)",
	    json_array_size(json_object_get(a, "no_longer_flaky")),
	    json_array_size(json_object_get(a, "rate_changes")),
	    json_array_size(json_object_get(a, "rate_changes")) == 1 ? "" : "s");
	if (d->html) {
		rt_buf_adds(&d->b, "<p class=\"since\" id=\"since-last-night\"><strong>Since last "
		    "night</strong>");
		html_esc(&d->b, when);
		rt_buf_adds(&d->b, ": ");
		html_esc(&d->b, line);
		rt_buf_adds(&d->b, "</p>\n");
	} else {
		rt_buf_printf(&d->b, "\n**Since last night**%s: %s\n", when, line);
	}
}

/* One test's nightly rates as lib/rt_site's sparkline: a point per night
 * at its rate, its interval a bar (an audit written before the nights
 * has a point per run, labelled with the run). */
static void
svg_spark(rt_buf *b, json_t *t, double conf)
{
	json_t *nights = json_object_get(t, "nights"), *r;
	size_t n = json_array_size(nights), i;
	const char **lbl = rt_xcalloc(n ? n : 1, sizeof *lbl);
	long *k = rt_xcalloc(n ? n : 1, sizeof *k), *tr = rt_xcalloc(n ? n : 1, sizeof *tr);

	json_array_foreach(nights, i, r) {
		lbl[i] = *jstr(r, "night") ? jstr(r, "night") : jstr(r, "run");
		k[i] = (long)json_integer_value(json_object_get(r, "failures"));
		tr[i] = (long)json_integer_value(json_object_get(r, "trials"));
	}
	rt_site_spark(b, jstr(t, "case"), n, lbl, k, tr, conf);
	free(lbl);
	free(k);
	free(tr);
}

static json_t *
nightly_of(json_t *a, const char *c)
{
	size_t i;
	json_t *o;

	json_array_foreach(json_object_get(a, "nightly"), i, o)
		if (!strcmp(jstr(o, "case"), c))
			return o;
	return NULL;
}

/* The tests off the quarantine list, each with its window rate and its
 * sparkline: the gating lane (HTML only; the Markdown has the top rates). */
static void
d_nightly(doc *d, json_t *a, long long window, double conf)
{
	json_t *v = json_object_get(a, "nightly"), *o;
	size_t i, n = 0;

	if (!d->html || !v)
		return;
	json_array_foreach(v, i, o)
		if (!json_is_true(json_object_get(o, "quarantined")))
			n++;
	rt_buf_printf(&d->b, "<h2>Nightly rates, last %lld runs (%zu)</h2>\n", window, n);
	if (!n) {
		rt_buf_adds(&d->b, "<p>No test to show.</p>\n");
		return;
	}
	rt_buf_adds(&d->b, "<p>One point per night (the date a run started) at its "
	    "failure rate over that night's runs, the bar its interval; the scale runs "
	    "from 0 to 100%. Hover a line for its numbers.</p>\n"
	    "<table class=\"nightly\">\n<tr><th class=\"id\">Test</th><th>Nightly</th>"
	    "<th class=\"id\">Rate in the window</th></tr>\n");
	json_array_foreach(v, i, o) {
		if (json_is_true(json_object_get(o, "quarantined")))
			continue;
		rt_buf_adds(&d->b, "<tr><td class=\"id\"><code>");
		html_esc(&d->b, jstr(o, "case"));
		rt_buf_adds(&d->b, "</code></td><td>");
		svg_spark(&d->b, o, conf);
		rt_buf_adds(&d->b, "</td><td class=\"id\">");
		html_esc(&d->b, json_is_object(json_object_get(o, "window_rate")) ?
		    rsum(o, "window_rate") : "no runs in the window");
		rt_buf_adds(&d->b, "</td></tr>\n");
	}
	rt_buf_adds(&d->b, "</table>\n");
	if (json_integer_value(json_object_get(a, "nightly_omitted")) > 0)
		rt_buf_printf(&d->b, "<p>And %lld more newly flaky tests, without a "
		    "sparkline.</p>\n", (long long)json_integer_value(json_object_get(a,
		    "nightly_omitted")));
}

/* Markdown table cell text: a code span whose '|' cannot split the row. */
static void
md_cell(rt_buf *b, const char *s, int code)
{
	rt_buf t = { 0 };
	const char *p;
	char *v;

	if (code) {
		rt_md_code(&t, s);
	} else {
		v = rt_visible(s);
		rt_buf_adds(&t, v);
		free(v);
	}
	for (p = rt_buf_str(&t); *p; p++) {
		if (*p == '|')
			rt_buf_addc(b, '\\');
		rt_buf_addc(b, *p);
	}
	rt_buf_free(&t);
}

/* The quarantine list as of that night: ID, owner, expiry, days left,
 * issue, and the test's rate in the window — measured, never gating. */
static void
d_quarantined(doc *d, json_t *a, long long window, double conf)
{
	json_t *v = json_object_get(a, "quarantined"), *o, *dl, *nt;
	size_t i;
	char days[64], note[300];
	const char *iss;

	if (!v || (!json_object_get(a, "quarantine_list") && !json_array_size(v)))
		return;
	snprintf(note, sizeof note, "From %s. Quarantined tests keep running: their "
	    "rates are measured, over the last %lld runs, and never count for --gate.",
	    jstr(a, "quarantine_list"), window);
	/* a table, not d_head's list */
	if (d->html) {
		rt_buf_printf(&d->b, "<h2>Quarantined, a lane that does not gate (%zu)</h2>\n<p>",
		    json_array_size(v));
		html_esc(&d->b, note);
		rt_buf_adds(&d->b, "</p>\n");
	} else {
		rt_buf_printf(&d->b, "\n## Quarantined, a lane that does not gate (%zu)\n\n%s\n\n",
		    json_array_size(v), note);
	}
	if (!json_array_size(v)) {
		rt_buf_adds(&d->b, d->html ? "<p>The list is empty.</p>\n" : "The list is empty.\n");
		return;
	}
	if (d->html) {
		rt_buf_adds(&d->b, "<table class=\"quarantine\">\n<tr><th class=\"id\">ID</th>"
		    "<th class=\"id\">Owner</th><th>Expires</th><th>Days left</th>"
		    "<th class=\"id\">Issue</th><th class=\"id\">Rate in the window</th>"
		    "<th>Nightly</th></tr>\n");
	} else {
		rt_buf_adds(&d->b, "| ID | Owner | Expires | Days left | Issue | Rate in the "
		    "window |\n|---|---|---|---|---|---|\n");
	}
	json_array_foreach(v, i, o) {
		dl = json_object_get(o, "days_left");
		if (!json_is_integer(dl))
			snprintf(days, sizeof days, "no expiry");
		else if (json_integer_value(dl) < 0)
			snprintf(days, sizeof days, "expired %lld days ago",
			    -(long long)json_integer_value(dl));
		else
			snprintf(days, sizeof days, "%lld", (long long)json_integer_value(dl));
		iss = jstr(o, "issue");
		if (d->html) {
			rt_buf_adds(&d->b, "<tr><td class=\"id\"><code>");
			html_esc(&d->b, jstr(o, "case"));
			rt_buf_adds(&d->b, "</code></td><td class=\"id\">");
			html_esc(&d->b, *jstr(o, "owner") ? jstr(o, "owner") : "none");
			rt_buf_adds(&d->b, "</td><td>");
			html_esc(&d->b, *jstr(o, "expires") ? jstr(o, "expires") : "never");
			rt_buf_printf(&d->b, "</td><td%s>", json_is_integer(dl) &&
			    json_integer_value(dl) < 0 ? " class=\"expired\"" : "");
			html_esc(&d->b, days);
			rt_buf_adds(&d->b, "</td><td class=\"id\">");
			if (!strncmp(iss, "https://", 8) || !strncmp(iss, "http://", 7)) {
				rt_buf_adds(&d->b, "<a href=\"");
				html_esc(&d->b, iss);
				rt_buf_adds(&d->b, "\">");
				html_esc(&d->b, iss);
				rt_buf_adds(&d->b, "</a>");
			} else {
				html_esc(&d->b, *iss ? iss : "none");
			}
			rt_buf_adds(&d->b, "</td><td class=\"id lane\">");
			html_esc(&d->b, json_object_get(o, "rate") && !json_is_null(json_object_get(o,
			    "rate")) ? rsum(o, "rate") : "no runs in the window");
			rt_buf_adds(&d->b, "</td><td>");
			if ((nt = nightly_of(a, jstr(o, "case"))))
				svg_spark(&d->b, nt, conf);
			rt_buf_adds(&d->b, "</td></tr>\n");
		} else {
			rt_buf_adds(&d->b, "| ");
			md_cell(&d->b, jstr(o, "case"), 1);
			rt_buf_adds(&d->b, " | ");
			md_cell(&d->b, *jstr(o, "owner") ? jstr(o, "owner") : "none", 0);
			rt_buf_adds(&d->b, " | ");
			md_cell(&d->b, *jstr(o, "expires") ? jstr(o, "expires") : "never", 0);
			rt_buf_printf(&d->b, " | %s | ", days);
			md_cell(&d->b, *iss ? iss : "none", 0);
			rt_buf_adds(&d->b, " | ");
			md_cell(&d->b, json_object_get(o, "rate") && !json_is_null(json_object_get(o,
			    "rate")) ? rsum(o, "rate") : "no runs in the window", 0);
			rt_buf_adds(&d->b, " |\n");
		}
	}
	if (d->html)
		rt_buf_adds(&d->b, "</table>\n");
}

static void
render(doc *d, json_t *a)
{
	json_t *v, *o;
	size_t i;
	char line[1200], ch[160], note[600];
	/* the audit's own settings, so that --audit N renders it the same */
	double conf = json_number_value(json_object_get(a, "confidence"));
	long long window = json_integer_value(json_object_get(a, "window"));

	snprintf(line, sizeof line, "Flake audit %lld, %s", (long long)json_integer_value(
	    json_object_get(a, "audit")), jstr(a, "at"));
	if (d->html) {
		rt_buf_adds(&d->b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		    "<title>");
		html_esc(&d->b, line);
		rt_buf_adds(&d->b, "</title>\n");
		rt_html_style(&d->b);
		rt_buf_adds(&d->b, "</head>\n<body>\n<main>\n<h1>");
		html_esc(&d->b, line);
		rt_buf_adds(&d->b, "</h1>\n<p>");
	} else {
		rt_buf_printf(&d->b, "# %s\n\n", line);
	}
	snprintf(line, sizeof line, "Ingested %lld new records (%lld already in the "
	    "history); the history holds %lld records of %lld tests over %lld runs.",
	    (long long)json_integer_value(json_object_get(a, "ingested")),
	    (long long)json_integer_value(json_object_get(a, "duplicates")),
	    (long long)json_integer_value(json_object_get(a, "records")),
	    (long long)json_integer_value(json_object_get(a, "cases")),
	    (long long)json_integer_value(json_object_get(a, "runs")));
	if (d->html) {
		html_esc(&d->b, line);
		rt_buf_adds(&d->b, "</p>\n");
	} else {
		rt_buf_printf(&d->b, "%s\n", line);
	}
	d_since(d, a);

	v = json_object_get(a, "new_flaky");
	o = json_object_get(a, "revisions");
	/* "FLAKY needs a pass and a failure on the same revision": say why
	 * nothing could be judged across runs when no record names one */
	d_head(d, "Newly flaky", json_array_size(v), "No test became flaky.",
	    json_is_integer(o) && json_integer_value(o) == 0 ? "No record names the "
	    "revision it tested, so each run counts as a revision of its own: FLAKY "
	    "needs a pass and a failure on one revision, so only a test that passed "
	    "and failed within one run is judged here. Give the revision with "
	    "rt-junit --revision REV or rt-audit --revision REV, or set GITHUB_SHA "
	    "(CI_COMMIT_SHA, GIT_COMMIT) where rt-junit runs." : NULL);
	json_array_foreach(v, i, o) {
		json_t *rev = json_object_get(o, "first_revision");
		snprintf(line, sizeof line, "first flaky on revision %s, seen %s (run %s): %s%s",
		    json_is_string(rev) ? json_string_value(rev) : "(none)",
		    jstr(o, "first_seen"), jstr(o, "first_run"), rsum(o, "on_revision"),
		    json_is_true(json_object_get(o, "quarantined")) ? "; quarantined, not "
		    "gating" : "");
		d_item(d, jstr(o, "case"), line);
	}
	d_end(d, json_array_size(v));

	v = json_object_get(a, "no_longer_flaky");
	snprintf(note, sizeof note, "Listed when the rate since some run after the "
	    "test was flagged lies below half the least its rate before could be, "
	    "both bounds anytime-valid: a test whose rate never changed is listed "
	    "with probability at most %g%%, however many nights it is checked.",
	    (1 - conf) * 100);
	d_head(d, "No longer flaky", json_array_size(v),
	    "No flaky test has shown that it stopped failing.", json_array_size(v) ? note : NULL);
	json_array_foreach(v, i, o) {
		long long s = json_integer_value(json_object_get(o, "runs_since"));
		json_t *be = json_object_get(o, "before"), *si = json_object_get(o, "since");
		if (!json_object_get(o, "rule")) {     /* an audit of an older rule */
			snprintf(line, sizeof line, "%s before, %s in the %lld run%s since; "
			    "change %s", rsum(o, "before"), rsum(o, "since"), s, s == 1 ? "" : "s",
			    change_text(ch, sizeof ch, o, conf));
		} else {
			char c1[64], c2[64], b1[32], b2[32], b3[32];
			snprintf(line, sizeof line, "since run %s (%lld run%s): %s, at most %s "
			    "(anytime), below %s, half the least its rate before could be (%s, "
			    "at least %s, anytime)", jstr(o, "since_run"), s, s == 1 ? "" : "s",
			    counts(c1, sizeof c1, si), bound(b1, sizeof b1, si, "anytime_high", 1),
			    bound(b2, sizeof b2, o, "level", 0), counts(c2, sizeof c2, be),
			    bound(b3, sizeof b3, be, "anytime_low", 0));
		}
		d_item(d, jstr(o, "case"), line);
	}
	d_end(d, json_array_size(v));

	v = json_object_get(a, "not_seen_failing");
	d_head(d, "Not seen failing, not yet shown fixed", json_array_size(v),
	    "None.", NULL);
	json_array_foreach(v, i, o) {
		long long s = json_integer_value(json_object_get(o, "runs_since"));
		if (json_object_get(o, "change_low"))
			snprintf(line, sizeof line, "not seen failing since %lld run%s (%s); too "
			    "few to show it fixed: change %s", s, s == 1 ? "" : "s",
			    rsum(o, "since"), change_text(ch, sizeof ch, o, conf));
		else
			snprintf(line, sizeof line, "not seen failing since %lld run%s (%s); "
			    "not yet shown fixed", s, s == 1 ? "" : "s", rsum(o, "since"));
		d_item(d, jstr(o, "case"), line);
	}
	d_end(d, json_array_size(v));

	v = json_object_get(a, "rate_changes");
	if (json_object_get(a, "rate_change_tests")) {
		long long nt = json_integer_value(json_object_get(a, "rate_change_tests"));
		long long na = json_integer_value(json_object_get(a, "rate_change_alarms"));
		snprintf(note, sizeof note, "Tonight's rate against the history before, by "
		    "Fisher's exact test, listed at a %g%% false discovery rate "
		    "(Benjamini\xe2\x80\x93Hochberg) over the %lld test%s compared tonight%s",
		    json_number_value(json_object_get(a, "rate_change_fdr")) * 100, nt,
		    nt == 1 ? "" : "s", (long long)json_array_size(v) < na ? "" : ".");
		if ((long long)json_array_size(v) < na) {
			size_t l = strlen(note);
			snprintf(note + l, sizeof note - l, "; %lld of %lld shown.",
			    (long long)json_array_size(v), na);
		}
	}
	d_head(d, "Rate changes", json_array_size(v), "No rate change passed the false discovery rate control.",
	    json_object_get(a, "rate_change_tests") ? note : NULL);
	json_array_foreach(v, i, o) {
		if (json_object_get(o, "p_value")) {
			char a1[32];
			rt_say_points(a1, sizeof a1, json_number_value(json_object_get(o, "change")), RT_SAY_NEAR);
			snprintf(line, sizeof line, "%s tonight, %s before; change %s points, "
			    "Fisher p = %.2g", rsum(o, "tonight"), rsum(o, "before"), a1,
			    json_number_value(json_object_get(o, "p_value")));
		} else {
			snprintf(line, sizeof line, "%s tonight, %s before; change %s",
			    rsum(o, "tonight"), rsum(o, "before"), change_text(ch, sizeof ch, o, conf));
		}
		d_item(d, jstr(o, "case"), line);
	}
	d_end(d, json_array_size(v));

	v = json_object_get(a, "top");
	snprintf(ch, sizeof ch, "Highest failure rates, last %lld runs", window);
	d_head(d, ch, json_array_size(v), "No test failed in the window.", NULL);
	json_array_foreach(v, i, o) {
		snprintf(line, sizeof line, "%s%s%s", rsum(o, "rate"),
		    json_is_true(json_object_get(o, "flaky")) ? "; flaky" : "",
		    json_is_true(json_object_get(o, "quarantined")) ? "; quarantined" : "");
		d_item(d, jstr(o, "case"), line);
	}
	d_end(d, json_array_size(v));
	d_nightly(d, a, window, conf);

	v = json_object_get(a, "quarantine");
	d_head(d, "Quarantine candidates", json_array_size(v),
	    "No test meets the quarantine rule.", json_array_size(v) ?
	    "By the rt-plan policy: retries planned at the high end of the rate "
	    "measured before; a candidate's recent runs fail more often than that, "
	    "so its executions exhaust their retries more often than planned, or "
	    "its runs in the window fail above the threshold." : NULL);
	json_array_foreach(v, i, o) {
		json_t *rb = json_object_get(o, "retry_budget");
		if (json_object_get(o, "threshold")) {
			json_t *re = json_object_get(o, "rate");
			long long j = json_integer_value(json_object_get(o, "runs"));
			char c1[64], b1[32], b2[32];
			snprintf(ch, sizeof ch, j == 1 ? "run" : "%lld runs", j);
			snprintf(line, sizeof line, "its last %s: %s, at least %s (anytime), "
			    "above the %s threshold: a steady flake", ch, counts(c1, sizeof c1, re),
			    bound(b1, sizeof b1, re, "anytime_low", 0),
			    bound(b2, sizeof b2, o, "threshold", 0));
		} else if (json_object_get(o, "basis")) {
			json_t *re = json_object_get(o, "rate"), *ba = json_object_get(o, "basis");
			long long j = json_integer_value(json_object_get(o, "runs"));
			long long r = json_integer_value(rb);
			char c1[64], c2[64], b1[32], b2[32], b3[32], b4[32];
			snprintf(ch, sizeof ch, j == 1 ? "run" : "%lld runs", j);
			snprintf(line, sizeof line, "its last %s: %s, at least %s; "
			    "%lld retr%s planned at its rate before (%s, at most %s, anytime): an "
			    "execution now exhausts them with chance at least %s, above the "
			    "%s planned", ch, counts(c1, sizeof c1, re),
			    bound(b1, sizeof b1, re, "exact_low", 0), r, r == 1 ? "y" : "ies",
			    counts(c2, sizeof c2, ba), bound(b2, sizeof b2, ba, "anytime_high", 1),
			    bound(b3, sizeof b3, o, "exhaust_low", 0),
			    bound(b4, sizeof b4, o, "exhaust_planned", 1));
		} else {
			snprintf(line, sizeof line, "%lld of its last %lld runs exhausted their "
			    "retries; the rule quarantines at %lld (retries %s, planned at the "
			    "interval's high end of %s)",
			    (long long)json_integer_value(json_object_get(o, "exhausted")),
			    (long long)json_integer_value(json_object_get(o, "executions")),
			    (long long)json_integer_value(json_object_get(o, "quarantine_after")),
			    json_is_integer(rb) ? (snprintf(ch, sizeof ch, "%lld",
			    (long long)json_integer_value(rb)), ch) : "none help",
			    rsum(o, "rate"));
		}
		d_item(d, jstr(o, "case"), line);
	}
	d_end(d, json_array_size(v));
	d_quarantined(d, a, window, conf);
	if (d->html)
		rt_buf_adds(&d->b, "</main>\n</body></html>\n");
}

/* The digest in each form asked for, in order: files, then standard
 * output (which cannot be taken back) last. Each is rendered only when
 * it is written and freed after (issue 31: the three at once, beside the
 * tree and its stored copy, were the audit's peak). */
enum { OUT_MD, OUT_HTML, OUT_JSON };
typedef struct {
	const char *path;
	int kind;
} output;

static size_t
outputs(output out[3])
{
	size_t n = 0, i;
	output t;

	if (G.md || (!G.html && !G.json && !G.annotations)) {
		out[n].path = G.md ? G.md : "-";
		out[n++].kind = OUT_MD;
	}
	if (G.html) {
		out[n].path = G.html;
		out[n++].kind = OUT_HTML;
	}
	if (G.json) {
		out[n].path = G.json;
		out[n++].kind = OUT_JSON;
	}
	for (i = 0; i + 1 < n; i++)
		if (!strcmp(out[i].path, "-")) {
			t = out[i];
			memmove(out + i, out + i + 1, (n - i - 1) * sizeof *out);
			out[n - 1] = t;
			break;
		}
	return n;
}

/* One form of the digest, to free. */
static char *
output_data(json_t *a, int kind, size_t *len)
{
	doc d;
	char *s;

	if (kind == OUT_JSON) {
		s = rt_dumps(a);
		*len = strlen(s);
		s = rt_xrealloc(s, *len + 2);
		s[(*len)++] = '\n';
		s[*len] = '\0';
		return s;
	}
	memset(&d, 0, sizeof d);
	d.html = kind == OUT_HTML;
	render(&d, a);
	s = rt_xstrdup(rt_buf_str(&d.b));
	rt_buf_free(&d.b);
	*len = strlen(s);
	return s;
}

/* Re-render a stored audit: nothing is committed, so written plainly. */
static void
write_digest(json_t *a)
{
	output out[3];
	size_t n = outputs(out), i, len;
	char *data;

	for (i = 0; i < n; i++) {
		data = output_data(a, out[i].kind, &len);
		if (rt_write_output(out[i].path, data, len) < 0)
			rt_output_die(out[i].path);
		free(data);
	}
}

/* The night's news is committed only once every digest holds it: each is
 * staged (a temporary beside a file, written and checked where it cannot
 * be), then the history commits, then the temporaries are renamed. A
 * digest that cannot be written rolls the audit back, so the rerun
 * reports the same news. */
static void
commit_digest(json_t *a)
{
	rt_output_stage *st[3] = { NULL, NULL, NULL };
	output out[3];
	size_t n = outputs(out), i, k, len;
	char err[512], *j;
	int e = 0;

	j = rt_dumps(a);
	if (rt_audit_set_digest(G.db, G.audit, j, err, sizeof err) < 0)
		rt_die("%s: %s", G.history, err);
	free(j);
	for (i = 0; i < n; i++) {
		j = output_data(a, out[i].kind, &len);
		st[i] = rt_output_stage_new(out[i].path, j, len);
		e = errno;
		free(j);
		if (!st[i])
			break;
	}
	if (i < n) {
		for (k = 0; k < i; k++)
			rt_output_discard(st[k]);
		sqlite3_exec(G.db, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_close(G.db);
		errno = e;
		/* "-" or a name of it (/dev/stdout): its reader went away */
		if (e == EPIPE && rt_stdout_gone())
			rt_write_failed(stdout, "stdout");
		if (e == EAGAIN)   /* another tool streams into it */
			rt_output_die(out[i].path);
		rt_die("%s: %s; audit %lld rolled back, nothing recorded", out[i].path,
		    strerror(e), G.audit);
	}
	if (rt_audit_exec(G.db, "COMMIT", err, sizeof err) < 0) {
		for (k = 0; k < n; k++)
			rt_output_discard(st[k]);
		rt_die("%s: %s", G.history, err);
	}
	for (i = 0; i < n; i++)
		if (rt_output_publish(st[i]) < 0)
			rt_die("%s: %s; audit %lld is recorded: rt-audit --audit %lld "
			    "writes its digest again", out[i].path, strerror(errno),
			    G.audit, G.audit);
}

/* ---- --pr-comment (rt-audit(1), GITHUB) ---- */

#define PR_MARKER "<!-- retrial-audit -->"
/* GitHub refuses a comment body past 65536 characters */
#define PR_MAX 65000

static struct {
	long number;
	const char *repo, *token_file;
	rt_gh gh;
} PR;

/* Before anything is read: the repository, the API and the token. */
static void
pr_open(void)
{
	const char *env = getenv("GITHUB_REPOSITORY");

	if (!PR.number) {
		if (PR.repo || PR.token_file)
			rt_usage_die("--github and --token-file are for --pr-comment");
		return;
	}
	if (!PR.repo && !(env && *env && (PR.repo = env)))
		rt_usage_die("--pr-comment needs --github OWNER/REPO or GITHUB_REPOSITORY");
	if (!rt_gh_repo_ok(PR.repo))
		rt_usage_die("%s %s: must be OWNER/REPO", PR.repo == env ? "GITHUB_REPOSITORY" :
		    "--github", PR.repo);
	rt_http_init();
	rt_gh_open(&PR.gh, PR.token_file, "--pr-comment", 0);
}

/* The one comment holding the marker gets tonight's digest. */
static void
pr_comment(json_t *a, long long audit)
{
	doc d;
	char *body, *err, *cut;
	json_t *c;
	int rc;

	if (!PR.number)
		return;
	memset(&d, 0, sizeof d);
	render(&d, a);
	rt_buf_str(&d.b);
	if (d.b.len > PR_MAX) {
		d.b.data[PR_MAX] = '\0';
		if ((cut = strrchr(d.b.data, '\n')))
			cut[1] = '\0';
		body = rt_xasprintf("%s\n*The digest is cut here, at GitHub's limit for a "
		    "comment: `rt-audit --audit %lld` writes it whole.*\n\n" PR_MARKER "\n",
		    d.b.data, audit);
	} else {
		body = rt_xasprintf("%s\n" PR_MARKER "\n", d.b.data);
	}
	rt_buf_free(&d.b);
	rc = rt_gh_upsert_comment(&PR.gh, PR.repo, PR.number, PR_MARKER, body, &c, &err);
	free(body);
	if (rc < 0)
		rt_die("%s; audit %lld is recorded: rt-audit --audit %lld --pr-comment %ld "
		    "posts it again", err, audit, audit, PR.number);
	fprintf(stderr, "%s: audit %lld: %s the comment on %s#%ld: %s\n", rt_progname, audit,
	    rc ? "updated" : "posted", PR.repo, PR.number,
	    json_is_string(json_object_get(c, "html_url")) ?
	    json_string_value(json_object_get(c, "html_url")) : "");
	json_decref(c);
	rt_gh_close(&PR.gh);
	rt_http_cleanup();
}

/* --annotations: one ::warning per newly flaky test off the quarantine
 * list, at its file and the line of its definition when the language's
 * parser finds it (rt_src_test_def); the message in rt_say's words. */
static void
annotate(json_t *a)
{
	json_t *o, *rev;
	size_t i;
	rt_buf b = { 0 }, m = { 0 };
	char *file, ln[32];
	const char *props[7] = { "file", NULL, "line", NULL, "title", "flaky test", NULL };
	long line;

	json_array_foreach(json_object_get(a, "new_flaky"), i, o) {
		if (json_is_true(json_object_get(o, "quarantined")))
			continue;
		rt_src_test_def(".", jstr(o, "case"), &file, &line);
		snprintf(ln, sizeof ln, "%ld", line);
		props[1] = file;
		props[3] = file && line > 0 ? ln : NULL;
		b.len = m.len = 0;
		rev = json_object_get(o, "first_revision");
		rt_buf_printf(&m, "%s: %s, newly flaky on revision %s", jstr(o, "case"),
		    rsum(o, "on_revision"), json_is_string(rev) ? json_string_value(rev) : "(none)");
		rt_gh_command(&b, "warning", props, rt_buf_str(&m));
		fwrite(b.data, 1, b.len, stdout);
		free(file);
	}
	rt_buf_free(&b);
	rt_buf_free(&m);
}

/* The webhook URL checked before anything is done (rt_webhook_check);
 * messages name it by its scheme and host only. */
static void
webhook_check(const char *from)
{
	char err[256], *v = G.webhook;
	size_t n = strlen(v);

	while (n && (v[n - 1] == '\n' || v[n - 1] == '\r' || v[n - 1] == ' '))
		v[--n] = '\0';
	if (rt_webhook_check(v, &G.webhook_shown, err, sizeof err) < 0) {
		if (G.webhook_shown)
			rt_usage_die("%s %s: %s", from, G.webhook_shown, err);
		rt_usage_die("%s: %s", from, err);
	}
}

/* The digest's headline, as the notification says it: the night's news
 * in counts, then each newly flaky test with its count and interval. */
static char *
headline(json_t *a)
{
	rt_buf b = { 0 };
	json_t *o;
	char *v;
	size_t i, nf = json_array_size(json_object_get(a, "new_flaky"));
	size_t nc = json_array_size(json_object_get(a, "rate_changes"));

	rt_buf_printf(&b, "Flake audit %lld, %s: %zu newly flaky, %zu no longer flaky, "
	    "%zu rate change%s.", (long long)json_integer_value(json_object_get(a, "audit")),
	    jstr(a, "at"), nf, json_array_size(json_object_get(a, "no_longer_flaky")), nc,
	    nc == 1 ? "" : "s");
	json_array_foreach(json_object_get(a, "new_flaky"), i, o) {
		v = rt_visible(jstr(o, "case"));
		rt_buf_printf(&b, "\nNewly flaky: %s: %s%s", v, rsum(o, "on_revision"),
		    json_is_true(json_object_get(o, "quarantined")) ? " (quarantined, not gating)" : "");
		free(v);
	}
	rt_buf_str(&b);
	return b.data;
}

/* --webhook: the headline as {"text": ...} (Slack's incoming webhooks,
 * and the many that read the same shape). A failure is one line with the
 * status; the audit stays recorded, and --audit N posts it again. */
static void
webhook_post(json_t *a)
{
	char *text = headline(a), err[320];
	long long n = json_integer_value(json_object_get(a, "audit"));

	if (rt_webhook_post(G.webhook, text, err, sizeof err) < 0)
		rt_die("webhook %s: %s; audit %lld is recorded: rt-audit --audit %lld "
		    "--webhook-file FILE posts it again", G.webhook_shown, err, n, n);
	free(text);
}

/* --gate counts the newly flaky tests off the quarantine list only: the
 * quarantined lane is measured, never gating. */
static int
gating_new_flaky(json_t *a)
{
	size_t i, n = 0;
	json_t *o;

	json_array_foreach(json_object_get(a, "new_flaky"), i, o)
		if (!json_is_true(json_object_get(o, "quarantined")))
			n++;
	return n > 0;
}

/* --audit N: the digest of audit N as it was written that night. */
/* --html-dir: the history as it is now, owners from the quarantine list
 * or the CODEOWNERS at the top of the working directory */
static void
write_site(void)
{
	rt_site_opts o = { 0 };
	rt_codeowners co = { 0 };
	char err[512], *f, *text;
	const char *srv = getenv("GITHUB_SERVER_URL");

	if (!G.html_dir)
		return;
	o.conf = G.conf;
	o.window = o.nights = G.window;
	o.q = G.qfile ? &G.q : NULL;
	o.server = srv && !strncmp(srv, "https://", 8) ? srv : NULL;
	if ((f = rt_codeowners_find(".")) && (text = rt_read_file(f, NULL))) {
		if (rt_codeowners_parse(text, f, &co, err, sizeof err) == 0)
			o.owners = &co;
		else
			rt_warn("%s (the site names owners from the quarantine list only)", err);
		free(text);
	}
	free(f);
	if (rt_site_write(G.db, G.html_dir, &o, err, sizeof err) < 0)
		rt_die("--html-dir %s", err);
	rt_codeowners_free(&co);
}

static int
rerender(void)
{
	json_error_t je;
	struct stat sb;
	char err[512], *j;
	json_t *a;
	int rc, newflaky;

	if (stat(G.history, &sb) < 0)
		rt_die("%s:", G.history);
	if (!(G.db = rt_audit_open(G.history, 0, err, sizeof err)))
		rt_die("%s", err);
	rc = rt_audit_get_digest(G.db, G.rerender, &j, err, sizeof err);
	if (rc == -1)
		rt_die("%s: %s", G.history, err);
	if (rc == -2) {
		long long lo = scalar("SELECT min(id) FROM audits");
		long long hi = scalar("SELECT max(id) FROM audits");
		sqlite3_close(G.db);
		if (hi == 0)
			rt_die("--audit %lld: %s holds no audit", G.rerender, G.history);
		rt_die("--audit %lld: no such audit in %s (it holds audits %lld to %lld)",
		    G.rerender, G.history, lo, hi);
	}
	if (rc == 1)
		write_site();
	sqlite3_close(G.db);
	if (rc == 0)
		rt_die("--audit %lld: audit %lld in %s predates stored digests (a "
		    "history of schema 1): it cannot be written again", G.rerender,
		    G.rerender, G.history);
	if (!(a = json_loads(j, 0, &je)) || !json_is_object(a))
		rt_die("%s: audit %lld: the stored digest is not JSON: %s", G.history,
		    G.rerender, je.text);
	free(j);
	write_digest(a);
	if (G.annotations)
		annotate(a);
	pr_comment(a, G.rerender);
	if (G.webhook)
		webhook_post(a);
	newflaky = gating_new_flaky(a);
	json_decref(a);
	rt_fshut(stdout, "stdout");
	return G.gate && newflaky ? RT_EXIT_NO : RT_EXIT_OK;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "annotations", no_argument, NULL, OPT_ANNOTATIONS },
		{ "audit", required_argument, NULL, 'a' },
		{ "command-case", no_argument, NULL, 'C' },
		{ "confidence", required_argument, NULL, OPT_CONF },
		{ "gate", no_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ "history", required_argument, NULL, 'H' },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "html-dir", required_argument, NULL, OPT_HTML_DIR },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "md", required_argument, NULL, OPT_MD },
		{ "quarantine", required_argument, NULL, OPT_QUARANTINE },
		{ "revision", required_argument, NULL, OPT_REVISION },
		{ "run", required_argument, NULL, 'r' },
		{ "same-run", no_argument, NULL, OPT_SAME_RUN },
		{ "top", required_argument, NULL, 'n' },
		{ "version", no_argument, NULL, 'V' },
		{ "webhook", required_argument, NULL, OPT_WEBHOOK },
		{ "webhook-file", required_argument, NULL, OPT_WEBHOOK_FILE },
		{ "window", required_argument, NULL, 'w' },
		{ "pr-comment", required_argument, NULL, OPT_PR_COMMENT },
		{ "github", required_argument, NULL, OPT_GITHUB },
		{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
		RT_LIST_OPTIONS_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	const char *shortopts = "a:CgH:hn:r:Vw:";
	rt_jsonl_opts jo = { 0 };
	char err[512], *path = NULL;
	json_t *a;
	time_t now;
	int opt, newflaky, qexplicit = 0;
	const char *env, *webhook = NULL, *webhook_file = NULL;
	struct stat qst;

	rt_setprogname(argv[0]);
	G.top = 10;
	G.window = 30;
	G.conf = 0.95;
	G.qfile = NULL;             /* main may run again (the fuzz harness) */
	G.annotations = 0;
	free(G.webhook);
	free(G.webhook_shown);
	G.webhook = G.webhook_shown = NULL;
	opterr = 0;
	rt_config_apply("rt-audit", longopts, &argc, &argv);
	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			G.rerender = rt_num_long("--audit", optarg, 1, LONG_MAX);
			break;
		case 'C': G.command_case = 1; G.tuned = "-C"; break;
		case 'g': G.gate = 1; break;
		case 'H': G.history = optarg; break;
		case 'n':
			G.top = rt_num_long("--top", optarg, 0, 1000000);
			G.tuned = "--top";
			break;
		case 'r': G.run = optarg; G.tuned = "--run"; break;
		case 'w':
			G.window = rt_num_long("--window", optarg, 1, 1000000);
			G.tuned = "--window";
			break;
		case OPT_CONF:
			G.conf = rt_num_double("--confidence", optarg, 0, 1, 1, 1);
			G.tuned = "--confidence";
			break;
		case OPT_SAME_RUN: G.same_run = 1; G.tuned = "--same-run"; break;
		case OPT_HTML: G.html = optarg; break;
		case OPT_HTML_DIR: G.html_dir = optarg; break;
		case OPT_JSON: G.json = optarg; break;
		case OPT_MD: G.md = optarg; break;
		case OPT_REVISION: G.revision = optarg; G.tuned = "--revision"; break;
		case OPT_PR_COMMENT:
			PR.number = rt_num_long("--pr-comment", optarg, 1, LONG_MAX);
			break;
		case OPT_GITHUB: PR.repo = optarg; break;
		case OPT_TOKEN_FILE: PR.token_file = optarg; break;
		case OPT_ANNOTATIONS: G.annotations = 1; break;
		case OPT_WEBHOOK: webhook = optarg; break;
		case OPT_WEBHOOK_FILE: webhook_file = optarg; break;
		case OPT_QUARANTINE:
			G.qfile = optarg;
			qexplicit = 1;
			G.tuned = "--quarantine";
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
			rt_bad_option(opt, shortopts, argv);
		}
	}
	if (G.run && !*G.run)
		rt_usage_die("--run: empty");
	/* one --run over many files would make a month of nights one run */
	if (G.run && argc - optind > 1 && !G.same_run)
		rt_usage_die("--run %s given to %d files: each file's records name their "
		    "own run; --same-run says the files are one run", G.run, argc - optind);
	if (G.same_run && !G.run)
		rt_usage_die("--same-run names no run: give --run RUN");
	if (G.rerender && G.tuned)
		rt_usage_die("--audit and %s are exclusive: audit %lld is written as "
		    "it was", G.tuned, G.rerender);
	if (G.rerender && optind < argc)
		rt_usage_die("--audit reads no records (%s given)", argv[optind]);
	pr_open();
	if (!G.history && !(G.history = path = rt_audit_default_path()))
		rt_die("no history: set XDG_DATA_HOME or HOME, or give --history");
	if (G.html || G.html_dir)
		(void)rt_html_css();
	/* a DIR the site cannot go to fails before the audit */
	if (G.html_dir && rt_site_check(G.html_dir, err, sizeof err) < 0)
		rt_die("--html-dir %s", err);    /* a missing stylesheet fails before the audit */
	if (webhook && webhook_file)
		rt_usage_die("--webhook and --webhook-file are exclusive");
	if (webhook_file) {
		if (!(G.webhook = rt_read_file(webhook_file, NULL)))
			rt_die("%s:", webhook_file);
		webhook_check(webhook_file);
	} else if (webhook) {
		G.webhook = rt_xstrdup(webhook);
		webhook_check("--webhook");
	} else if ((env = getenv("RETRIAL_WEBHOOK_URL")) && *env) {
		G.webhook = rt_xstrdup(env);
		webhook_check("RETRIAL_WEBHOOK_URL");
	}
	/* the quarantine list is read before the audit starts: a malformed
	 * line stops it (file:line), as rt-quarantine does */
	if (!G.rerender || G.html_dir) {
		if (!qexplicit && (env = getenv("RETRIAL_QUARANTINE")) && *env)
			G.qfile = env;
		else if (!qexplicit && stat(RT_QUAR_DEFAULT, &qst) == 0)
			G.qfile = RT_QUAR_DEFAULT;
		if (G.qfile && !*G.qfile)
			rt_usage_die("--quarantine: empty file name");
		if (G.qfile)
			rt_quar_load(G.qfile, !qexplicit, &G.q);
	}
	if (G.rerender) {
		opt = rerender();
		free(path);
		return opt;
	}
	if (!(G.db = rt_audit_open(G.history, path != NULL, err, sizeof err)))
		rt_die("%s", err);
	/* a page cache of its own size, not the history's (issue 31) */
	exec("PRAGMA cache_size = -" RT_AUDIT_CACHE_KIB);

	/* one audit is one write transaction: concurrent audits queue */
	now = time(NULL);
	strftime(G.at, sizeof G.at, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	exec("BEGIN IMMEDIATE");
	{
		sqlite3_stmt *st = prep("INSERT INTO audits (at) VALUES (?1)");
		sqlite3_bind_text(st, 1, G.at, -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			die_db("audits");
		sqlite3_finalize(st);
		G.audit = sqlite3_last_insert_rowid(G.db);
	}
	if (!(G.w = rt_audit_writer_new(G.db, G.audit, err, sizeof err)))
		rt_die("%s: %s", G.history, err);
	rt_jsonl_loop(argc - optind, argv + optind, &jo, ingest, NULL);
	rt_audit_writer_free(G.w);
	free(G.dfile);
	free(G.drun);
	G.dfile = G.drun = NULL;        /* main may run again (the fuzz harness) */
	if (G.nocase)
		rt_warn("%ld trial record%s without \"case\" skipped (-C takes the "
		    "command as the case)", G.nocase, G.nocase == 1 ? "" : "s");
	/* never a green audit of nothing */
	if (G.counted == 0) {
		exec("ROLLBACK");
		sqlite3_close(G.db);
		if (G.read == 0)
			rt_die("no trial records in the input: nothing to audit");
		if (G.ingested == 0 && G.duplicates == 0)
			rt_die("no trial record with a \"case\": nothing to audit");
		if (G.ingested == 0)
			rt_die("nothing new: all %ld trial record%s already in %s",
			    G.duplicates, G.duplicates == 1 ? " is" : "s are", G.history);
		rt_die("no pass or failure among the %ld new records (skipped, errors "
		    "or ignored only): nothing to audit", G.ingested);
	}
	a = audit();
	commit_digest(a);
	write_site();
	sqlite3_close(G.db);
	if (G.annotations)
		annotate(a);
	pr_comment(a, G.audit);
	if (G.webhook)
		webhook_post(a);
	newflaky = gating_new_flaky(a);
	fprintf(stderr, "%s: audit %lld: ingested %ld record%s (%ld already there) "
	    "into %s\n", rt_progname, G.audit, G.ingested, G.ingested == 1 ? "" : "s",
	    G.duplicates, G.history);
	json_decref(a);
	free(path);
	if (G.qfile)
		rt_quar_free(&G.q);
	rt_fshut(stdout, "stdout");
	return G.gate && newflaky ? RT_EXIT_NO : RT_EXIT_OK;
}
