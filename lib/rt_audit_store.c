/* rt_audit_store: rt-audit's history in SQLite — migrations, WAL, busy
 * timeout, and the one writer (a per-case record, deduplicated by digest). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_audit_store.h"
#include "rt_sqlite.h"
#include "rt_platform.h"
#include "rt_records.h"
#include "rt_fs.h"
#include "rt_util.h"

/* Migration i takes the schema from version i to i + 1. Append only:
 * never edit a migration that has shipped. The schema is rt-audit(1)'s
 * HISTORY section; keep the two in step. */
static const char *const migrations[] = {
	/* 0 -> 1: audits, runs, results, flaky */
	"CREATE TABLE audits ("
	" id INTEGER PRIMARY KEY,"
	" at TEXT NOT NULL,"
	" records INTEGER NOT NULL DEFAULT 0,"
	" duplicates INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE runs ("
	" run TEXT PRIMARY KEY,"
	" audit_id INTEGER NOT NULL REFERENCES audits(id),"
	" first_ts TEXT);"
	"CREATE TABLE results ("
	" digest TEXT PRIMARY KEY,"
	" audit_id INTEGER NOT NULL REFERENCES audits(id),"
	" run TEXT NOT NULL REFERENCES runs(run),"
	" trial INTEGER,"
	" case_id TEXT NOT NULL,"
	" outcome TEXT NOT NULL,"
	" failed INTEGER,"
	" attempt INTEGER,"
	" revision TEXT,"
	" rev_key TEXT NOT NULL,"
	" timestamp TEXT,"
	" time_ms REAL,"
	" source TEXT, report TEXT, message TEXT, failure_type TEXT);"
	"CREATE INDEX results_by_case ON results(case_id, rev_key);"
	"CREATE INDEX results_by_run ON results(run, case_id);"
	"CREATE TABLE flaky ("
	" case_id TEXT PRIMARY KEY,"
	" first_revision TEXT,"
	" first_seen TEXT,"
	" first_run TEXT,"
	" audit_id INTEGER NOT NULL REFERENCES audits(id),"
	" cleared_audit INTEGER REFERENCES audits(id),"
	" cleared_at TEXT);"
	"PRAGMA user_version = 1;",
	/* 1 -> 2: each audit's digest, the "audit" record (rt-audit --audit N) */
	"ALTER TABLE audits ADD COLUMN digest TEXT;"
	"PRAGMA user_version = 2;",
	/* 2 -> 3: a run's revision, from its first ingestion (issue 35) */
	"ALTER TABLE runs ADD COLUMN revision TEXT;"
	"UPDATE runs SET revision = (SELECT min(revision) FROM results"
	" WHERE results.run = runs.run);"
	"PRAGMA user_version = 3;",
};

static void
seterr(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (!err || !size)
		return;
	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
}

char *
rt_audit_default_path(void)
{
	return rt_data_path("audit.db");
}

/* The busy handler does not cover every statement (journal_mode, BEGIN
 * IMMEDIATE under WAL recovery), so retry those here. */
int
rt_audit_exec(sqlite3 *db, const char *sql, char *err, size_t errsize)
{
	return rt_sqlite_exec(db, sql, err, errsize);
}

sqlite3 *
rt_audit_open(const char *path, int mkdirs, char *err, size_t errsize)
{
	return rt_sqlite_open(path, mkdirs, migrations,
	    sizeof migrations / sizeof migrations[0], NULL, err, errsize);
}

static void
bind_opt(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int
step_done(sqlite3_stmt *st, sqlite3 *db, char *err, size_t errsize)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return 0;
	seterr(err, errsize, "%s", sqlite3_errmsg(db));
	return -1;
}

struct rt_audit_writer {
	sqlite3 *db;
	long long audit;
	sqlite3_stmt *run, *first, *ins, *rev, *setrev;
	char *last_run, *last_rev;  /* the run of the last record, its revision */
	int have_last;
};

void
rt_audit_writer_free(rt_audit_writer *w)
{
	if (!w)
		return;
	sqlite3_finalize(w->run);
	sqlite3_finalize(w->first);
	sqlite3_finalize(w->ins);
	sqlite3_finalize(w->rev);
	sqlite3_finalize(w->setrev);
	free(w->last_run);
	free(w->last_rev);
	free(w);
}

rt_audit_writer *
rt_audit_writer_new(sqlite3 *db, long long audit_id, char *err, size_t errsize)
{
	rt_audit_writer *w = rt_xcalloc(1, sizeof *w);

	w->db = db;
	w->audit = audit_id;
	if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO results (digest, audit_id,"
	    " run, trial, case_id, outcome, failed, attempt, revision, rev_key,"
	    " timestamp, time_ms, source, report, message, failure_type) VALUES"
	    " (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
	    -1, &w->ins, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO runs (run, audit_id, first_ts,"
	    " revision) VALUES (?1, ?2, ?3, ?4)", -1, &w->run, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE runs SET revision = ?2 WHERE run = ?1 AND"
	    " revision IS NULL AND ?2 IS NOT NULL", -1, &w->setrev, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT revision FROM runs WHERE run = ?1", -1,
	    &w->rev, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE runs SET first_ts = ?2 WHERE run = ?1 AND"
	    " ?2 IS NOT NULL AND (first_ts IS NULL OR first_ts > ?2)", -1, &w->first,
	    NULL) != SQLITE_OK) {
		seterr(err, errsize, "%s", sqlite3_errmsg(db));
		rt_audit_writer_free(w);
		return NULL;
	}
	return w;
}

/* "The revision is a property of the run": the revision its first
 * ingestion gave it (or the first one given since), whatever later
 * readings of the same report say (GITHUB_SHA is tonight's, not the
 * report's). Records of a run arrive together, so the last is kept. */
static int
run_revision(rt_audit_writer *w, const rt_audit_rec *r, const char **rev, char *err,
    size_t errsize)
{
	int rc;

	if (w->have_last && !strcmp(w->last_run, r->run) && (w->last_rev || !r->revision)) {
		*rev = w->last_rev;
		return 0;
	}
	sqlite3_bind_text(w->setrev, 1, r->run, -1, SQLITE_TRANSIENT);
	bind_opt(w->setrev, 2, r->revision);
	if (step_done(w->setrev, w->db, err, errsize) < 0)
		return -1;
	sqlite3_bind_text(w->rev, 1, r->run, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(w->rev);
	free(w->last_run);
	free(w->last_rev);
	w->last_run = rt_xstrdup(r->run);
	w->last_rev = rc == SQLITE_ROW && sqlite3_column_type(w->rev, 0) != SQLITE_NULL ?
	    rt_xstrdup((const char *)sqlite3_column_text(w->rev, 0)) : NULL;
	sqlite3_reset(w->rev);
	if (rc != SQLITE_ROW) {
		w->have_last = 0;
		seterr(err, errsize, "%s", sqlite3_errmsg(w->db));
		return -1;
	}
	w->have_last = 1;
	*rev = w->last_rev;
	return 0;
}

int
rt_audit_add(rt_audit_writer *w, const rt_audit_rec *r, char *err, size_t errsize)
{
	sqlite3_stmt *run = w->run, *first = w->first, *ins = w->ins;
	sqlite3 *db = w->db;
	const char *rev = NULL;
	int failed, rc = -1;
	char *key = NULL;

	/* timeouts count as failures; errors, skips and ignored trials never
	 * enter a rate */
	if (!strcmp(r->outcome, "pass"))
		failed = 0;
	else if (!strcmp(r->outcome, "fail") || !strcmp(r->outcome, "timeout"))
		failed = 1;
	else
		failed = -1;
	sqlite3_clear_bindings(run);
	sqlite3_clear_bindings(ins);
	sqlite3_clear_bindings(first);
	sqlite3_bind_text(run, 1, r->run, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(run, 2, w->audit);
	bind_opt(run, 3, r->timestamp);
	bind_opt(run, 4, r->revision);
	if (step_done(run, db, err, errsize) < 0 || run_revision(w, r, &rev, err,
	    errsize) < 0)
		goto out;
	key = rt_rec_rev_key(rev, r->run);
	sqlite3_bind_text(ins, 1, r->digest, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(ins, 2, w->audit);
	sqlite3_bind_text(ins, 3, r->run, -1, SQLITE_TRANSIENT);
	if (r->trial >= 0)
		sqlite3_bind_int64(ins, 4, r->trial);
	sqlite3_bind_text(ins, 5, r->case_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(ins, 6, r->outcome, -1, SQLITE_TRANSIENT);
	if (failed >= 0)
		sqlite3_bind_int(ins, 7, failed);
	if (r->attempt >= 0)
		sqlite3_bind_int64(ins, 8, r->attempt);
	bind_opt(ins, 9, rev);
	sqlite3_bind_text(ins, 10, key, -1, SQLITE_TRANSIENT);
	bind_opt(ins, 11, r->timestamp);
	if (r->time_ms >= 0)
		sqlite3_bind_double(ins, 12, r->time_ms);
	bind_opt(ins, 13, r->source);
	bind_opt(ins, 14, r->report);
	bind_opt(ins, 15, r->message);
	bind_opt(ins, 16, r->failure_type);
	if (step_done(ins, db, err, errsize) < 0)
		goto out;
	if (sqlite3_changes(db) == 0) {
		rc = 0;
		goto out;
	}
	sqlite3_bind_text(first, 1, r->run, -1, SQLITE_TRANSIENT);
	bind_opt(first, 2, r->timestamp);
	if (step_done(first, db, err, errsize) < 0)
		goto out;
	rc = 1;
out:
	free(key);
	return rc;
}

int
rt_audit_set_digest(sqlite3 *db, long long audit_id, const char *json, char *err,
    size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "UPDATE audits SET digest = ?2 WHERE id = ?1", -1,
	    &st, NULL) != SQLITE_OK) {
		seterr(err, errsize, "%s", sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_int64(st, 1, audit_id);
	sqlite3_bind_text(st, 2, json, -1, SQLITE_STATIC);
	rc = step_done(st, db, err, errsize);
	sqlite3_finalize(st);
	return rc;
}

int
rt_audit_get_digest(sqlite3 *db, long long audit_id, char **json, char *err,
    size_t errsize)
{
	sqlite3_stmt *st;
	int rc;

	*json = NULL;
	if (sqlite3_prepare_v2(db, "SELECT digest FROM audits WHERE id = ?1", -1, &st,
	    NULL) != SQLITE_OK) {
		seterr(err, errsize, "%s", sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_int64(st, 1, audit_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
			rc = 0;
		} else {
			*json = rt_xstrdup((const char *)sqlite3_column_text(st, 0));
			rc = 1;
		}
	} else if (rc == SQLITE_DONE) {
		rc = -2;
	} else {
		seterr(err, errsize, "%s", sqlite3_errmsg(db));
		rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}
