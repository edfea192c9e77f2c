/* rt_store: the flake genome in SQLite — migrations, WAL, busy timeout,
 * and the one writer (a verdict record, in one transaction). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_hash.h"
#include "rt_platform.h"
#include "rt_records.h"
#include "rt_sqlite.h"
#include "rt_store.h"
#include "rt_fs.h"
#include "rt_util.h"

struct rt_store {
	sqlite3 *db;
	int version;
};

/* Migration i takes the schema from version i to i + 1. Append only:
 * never edit a migration that has shipped. */
static const char *const migrations[] = {
	/* 0 -> 1: runs, hypotheses, confirmations */
	"CREATE TABLE runs ("
	" id INTEGER PRIMARY KEY,"
	" recorded_at TEXT NOT NULL,"
	" host TEXT,"
	" project TEXT NOT NULL,"
	" command TEXT NOT NULL,"
	" test TEXT NOT NULL,"
	" verdict TEXT NOT NULL,"
	" confidence REAL,"
	" target REAL,"
	" seed TEXT,"
	" base_trials INTEGER,"
	" base_failures INTEGER,"
	" base_errors INTEGER,"
	" base_rate REAL,"
	" base_ci_low REAL,"
	" base_ci_high REAL,"
	" winner TEXT,"
	" baseline_s REAL, tournament_s REAL, confirm_s REAL, total_s REAL,"
	" record TEXT NOT NULL);"
	"CREATE TABLE hypotheses ("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" hyp_id TEXT NOT NULL,"
	" source TEXT, model TEXT, cause_class TEXT,"
	" status TEXT NOT NULL, rule TEXT, reason TEXT,"
	" trials INTEGER, failures INTEGER, rate REAL, ci_low REAL, ci_high REAL,"
	" won INTEGER NOT NULL DEFAULT 0,"
	" PRIMARY KEY (run_id, hyp_id));"
	"CREATE TABLE confirmations ("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" round INTEGER NOT NULL,"
	" hyp_id TEXT NOT NULL,"
	" trials INTEGER, failures INTEGER, required_runs INTEGER,"
	" passed INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, round));"
	"PRAGMA user_version = 1;",
	/* 1 -> 2: indexes for the queries, and the leaderboard as a view for
	 * the sqlite3 CLI (who proposes, what class, how often it won) */
	"CREATE INDEX runs_by_test ON runs(test, recorded_at);"
	"CREATE INDEX hypotheses_by_class ON hypotheses(cause_class, model);"
	"CREATE VIEW leaderboard AS"
	" SELECT coalesce(h.cause_class, 'unknown') AS cause_class,"
	"  coalesce(h.model, h.source, 'unknown') AS proposer,"
	"  count(*) AS hypotheses, sum(h.won) AS wins,"
	"  sum(h.status = 'neutered') AS neutered,"
	"  sum(h.status = 'patch_failed') AS patch_failed"
	" FROM hypotheses h JOIN runs r ON r.id = h.run_id"
	" WHERE h.status != 'not_raced'"
	" GROUP BY 1, 2;"
	"PRAGMA user_version = 2;",
	/* 2 -> 3: each run's content digest, so an import is idempotent, and
	 * each confirmation as rt-verify stated it (its own confidence,
	 * interval method, bound and summary); backfill_v3 fills old rows */
	"ALTER TABLE runs ADD COLUMN digest TEXT;"
	"CREATE UNIQUE INDEX runs_by_digest ON runs(digest);"
	"ALTER TABLE confirmations ADD COLUMN confidence REAL;"
	"ALTER TABLE confirmations ADD COLUMN interval TEXT;"
	"ALTER TABLE confirmations ADD COLUMN ci_high REAL;"
	"ALTER TABLE confirmations ADD COLUMN summary TEXT;"
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
rt_store_default_path(void)
{
	return rt_data_path("genome.db");
}

/* Run SQL without results, retrying while another writer holds the lock
 * (the busy handler does not cover every statement, e.g. journal_mode). */
static int bind_json(sqlite3_stmt *st, int i, json_t *v);
static int step_done(sqlite3_stmt *st);

/* The content digest: SHA-256 over the record with its keys sorted. */
static void
verdict_digest(json_t *v, char out[65])
{
	char *c = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);

	rt_sha256_hex(c ? c : "", c ? strlen(c) : 0, out);
	free(c);
}

/* Rows recorded before schema 3 get what their stored record holds: the
 * digest (left NULL on a second copy of the same record, which the unique
 * index would refuse) and each confirmation's own statement. */
static int
backfill_v3(sqlite3 *db)
{
	sqlite3_stmt *sel = NULL, *dig = NULL, *cf = NULL;
	json_t *v, *c;
	char hex[65];
	size_t i;
	int rc = -1;

	if (sqlite3_prepare_v2(db, "SELECT id, record FROM runs", -1, &sel, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE runs SET digest = ?2 WHERE id = ?1", -1, &dig,
	    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE confirmations SET confidence = ?3, interval = ?4,"
	    " ci_high = ?5, summary = ?6 WHERE run_id = ?1 AND round = ?2", -1, &cf,
	    NULL) != SQLITE_OK)
		goto out;
	while (sqlite3_step(sel) == SQLITE_ROW) {
		const char *rec = (const char *)sqlite3_column_text(sel, 1);
		sqlite3_int64 id = sqlite3_column_int64(sel, 0);
		if (!rec || !(v = json_loads(rec, 0, NULL)))
			continue;
		if (json_object_size(v) > 0) {
			verdict_digest(v, hex);
			sqlite3_bind_int64(dig, 1, id);
			sqlite3_bind_text(dig, 2, hex, -1, SQLITE_TRANSIENT);
			sqlite3_step(dig);          /* a duplicate keeps NULL */
			sqlite3_reset(dig);
		}
		json_array_foreach(json_object_get(v, "confirmations"), i, c) {
			sqlite3_bind_int64(cf, 1, id);
			sqlite3_bind_int64(cf, 2, (sqlite3_int64)i + 1);
			bind_json(cf, 3, json_object_get(c, "confidence"));
			bind_json(cf, 4, json_object_get(c, "interval"));
			bind_json(cf, 5, json_object_get(c, "ci_high"));
			bind_json(cf, 6, json_object_get(c, "summary"));
			if (step_done(cf) < 0) {
				json_decref(v);
				goto out;
			}
		}
		json_decref(v);
	}
	rc = 0;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(dig);
	sqlite3_finalize(cf);
	return rc;
}

/* Rows of a database older than schema 3 are backfilled once. */
static int
store_fixup(sqlite3 *db, int from)
{
	return from < 3 ? backfill_v3(db) : 0;
}

rt_store *
rt_store_open(const char *path, int mkdirs, char *err, size_t errsize)
{
	rt_store *s;
	size_t n = sizeof migrations / sizeof migrations[0];
	sqlite3 *db = rt_sqlite_open(path, mkdirs, migrations, n, store_fixup, err, errsize);

	if (!db)
		return NULL;
	s = rt_xcalloc(1, sizeof *s);
	s->db = db;
	s->version = (int)n;
	return s;
}

void
rt_store_close(rt_store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s);
}

int
rt_store_version(rt_store *s)
{
	return s->version;
}

sqlite3 *
rt_store_db(rt_store *s)
{
	return s->db;
}

int
rt_store_begin(rt_store *s, char *err, size_t errsize)
{
	return rt_sqlite_exec(s->db, "BEGIN IMMEDIATE", err, errsize);
}

int
rt_store_commit(rt_store *s, char *err, size_t errsize)
{
	if (rt_sqlite_exec(s->db, "COMMIT", err, errsize) < 0) {
		rt_store_rollback(s);
		return -1;
	}
	return 0;
}

void
rt_store_rollback(rt_store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Bind a JSON value: strings as text, integers, reals, booleans as 0/1,
 * absent or null as NULL. */
static int
bind_json(sqlite3_stmt *st, int i, json_t *v)
{
	if (!v || json_is_null(v))
		return sqlite3_bind_null(st, i);
	if (json_is_string(v))
		return sqlite3_bind_text(st, i, json_string_value(v),
		    (int)json_string_length(v), SQLITE_TRANSIENT);
	if (json_is_integer(v))
		return sqlite3_bind_int64(st, i, json_integer_value(v));
	if (json_is_real(v))
		return sqlite3_bind_double(st, i, json_real_value(v));
	if (json_is_boolean(v))
		return sqlite3_bind_int(st, i, json_is_true(v));
	return sqlite3_bind_null(st, i);
}

static json_t *
path_get(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);
	return b && v ? json_object_get(v, b) : v;
}

static int
step_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

long long
rt_store_add_verdict(rt_store *s, json_t *v, char *err, size_t errsize)
{
	static const char *const run_sql =
	    "INSERT INTO runs (recorded_at, host, project, command, test, verdict,"
	    " confidence, target, seed, base_trials, base_failures, base_errors,"
	    " base_rate, base_ci_low, base_ci_high, winner, baseline_s,"
	    " tournament_s, confirm_s, total_s, record, digest)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
	    " ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)";
	static const char *const hyp_sql =
	    "INSERT INTO hypotheses (run_id, hyp_id, source, model, cause_class,"
	    " status, rule, reason, trials, failures, rate, ci_low, ci_high, won)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";
	static const char *const conf_sql =
	    "INSERT INTO confirmations (run_id, round, hyp_id, trials, failures,"
	    " required_runs, passed, confidence, interval, ci_high, summary)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
	sqlite3_stmt *run = NULL, *hyp = NULL, *conf = NULL, *dup = NULL;
	json_t *lanes, *l, *confs, *c, *fin;
	char now[40], hex[65], *record = NULL;
	const char *verdict;
	long long id = -1;
	size_t i;
	int won, fixed, own;

	if (rt_rec_validate(RT_REC_VERDICT, v, NULL, 0, err, errsize) < 0)
		return -1;
	verdict = json_string_value(json_object_get(v, "verdict"));
	fixed = !strcmp(verdict, "FIXED") || !strcmp(verdict, "IMPROVED");
	verdict_digest(v, hex);
	/* inside the caller's transaction, or in one of our own */
	own = sqlite3_get_autocommit(s->db);
	if (own && rt_store_begin(s, err, errsize) < 0)
		return -1;
	if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM runs WHERE digest = ?1", -1, &dup,
	    NULL) != SQLITE_OK)
		goto sqlfail;
	sqlite3_bind_text(dup, 1, hex, -1, SQLITE_STATIC);
	switch (sqlite3_step(dup)) {
	case SQLITE_ROW:
		sqlite3_finalize(dup);
		if (own)
			rt_store_rollback(s);
		return 0;
	case SQLITE_DONE:
		break;
	default:
		goto sqlfail;
	}
	if (sqlite3_prepare_v2(s->db, run_sql, -1, &run, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, hyp_sql, -1, &hyp, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, conf_sql, -1, &conf, NULL) != SQLITE_OK)
		goto sqlfail;
	/* the run's own time when the record carries it, else now */
	if (json_is_string(fin = json_object_get(v, "finished_at")))
		snprintf(now, sizeof now, "%s", json_string_value(fin));
	else
		rt_utc_rfc3339(now, sizeof now);
	record = json_dumps(v, JSON_COMPACT);
	sqlite3_bind_text(run, 1, now, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(run, 2, rt_hostname(), -1, SQLITE_TRANSIENT);
	bind_json(run, 3, json_object_get(v, "project"));
	if (!json_object_get(v, "project") || json_is_null(json_object_get(v, "project")))
		sqlite3_bind_text(run, 3, "", 0, SQLITE_STATIC);
	bind_json(run, 4, json_object_get(v, "command"));
	bind_json(run, 5, json_object_get(v, "test"));
	if (!json_is_string(json_object_get(v, "test")))
		bind_json(run, 5, json_object_get(v, "command"));
	bind_json(run, 6, json_object_get(v, "verdict"));
	bind_json(run, 7, json_object_get(v, "confidence"));
	bind_json(run, 8, json_object_get(v, "target"));
	bind_json(run, 9, json_object_get(v, "seed"));
	bind_json(run, 10, path_get(v, "baseline", "trials"));
	bind_json(run, 11, path_get(v, "baseline", "failures"));
	bind_json(run, 12, path_get(v, "baseline", "errors"));
	bind_json(run, 13, path_get(v, "baseline", "rate"));
	bind_json(run, 14, path_get(v, "baseline", "ci_low"));
	bind_json(run, 15, path_get(v, "baseline", "ci_high"));
	bind_json(run, 16, path_get(v, "winner", "id"));
	bind_json(run, 17, path_get(v, "timings", "baseline_s"));
	bind_json(run, 18, path_get(v, "timings", "tournament_s"));
	bind_json(run, 19, path_get(v, "timings", "confirm_s"));
	bind_json(run, 20, path_get(v, "timings", "total_s"));
	sqlite3_bind_text(run, 21, record ? record : "{}", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(run, 22, hex, -1, SQLITE_TRANSIENT);
	if (step_done(run) < 0)
		goto sqlfail;
	id = sqlite3_last_insert_rowid(s->db);
	lanes = json_object_get(v, "lanes");
	json_array_foreach(lanes, i, l) {
		if (!json_is_string(json_object_get(l, "id")))
			continue;
		won = fixed && json_is_string(json_object_get(l, "status")) &&
		    !strcmp(json_string_value(json_object_get(l, "status")), "winner");
		sqlite3_bind_int64(hyp, 1, id);
		bind_json(hyp, 2, json_object_get(l, "id"));
		bind_json(hyp, 3, json_object_get(l, "source"));
		bind_json(hyp, 4, json_object_get(l, "model"));
		bind_json(hyp, 5, json_object_get(l, "cause_class"));
		bind_json(hyp, 6, json_object_get(l, "status"));
		if (!json_is_string(json_object_get(l, "status")))
			sqlite3_bind_text(hyp, 6, "unknown", -1, SQLITE_STATIC);
		bind_json(hyp, 7, json_object_get(l, "rule"));
		bind_json(hyp, 8, json_object_get(l, "reason"));
		bind_json(hyp, 9, json_object_get(l, "trials"));
		bind_json(hyp, 10, json_object_get(l, "failures"));
		bind_json(hyp, 11, json_object_get(l, "rate"));
		bind_json(hyp, 12, json_object_get(l, "ci_low"));
		bind_json(hyp, 13, json_object_get(l, "ci_high"));
		sqlite3_bind_int(hyp, 14, won);
		if (step_done(hyp) < 0)
			goto sqlfail;
	}
	confs = json_object_get(v, "confirmations");
	json_array_foreach(confs, i, c) {
		sqlite3_bind_int64(conf, 1, id);
		sqlite3_bind_int64(conf, 2, (sqlite3_int64)i + 1);
		bind_json(conf, 3, json_object_get(c, "id"));
		if (!json_is_string(json_object_get(c, "id")))
			sqlite3_bind_text(conf, 3, "", 0, SQLITE_STATIC);
		bind_json(conf, 4, json_object_get(c, "trials"));
		bind_json(conf, 5, json_object_get(c, "failures"));
		bind_json(conf, 6, json_object_get(c, "required_runs"));
		sqlite3_bind_int(conf, 7, json_is_true(json_object_get(c, "passed")));
		bind_json(conf, 8, json_object_get(c, "confidence"));
		bind_json(conf, 9, json_object_get(c, "interval"));
		bind_json(conf, 10, json_object_get(c, "ci_high"));
		bind_json(conf, 11, json_object_get(c, "summary"));
		if (step_done(conf) < 0)
			goto sqlfail;
	}
	sqlite3_finalize(dup);
	sqlite3_finalize(run);
	sqlite3_finalize(hyp);
	sqlite3_finalize(conf);
	free(record);
	if (own && rt_store_commit(s, err, errsize) < 0)
		return -1;
	return id;
sqlfail:
	seterr(err, errsize, "%s", sqlite3_errmsg(s->db));
	sqlite3_finalize(dup);
	sqlite3_finalize(run);
	sqlite3_finalize(hyp);
	sqlite3_finalize(conf);
	free(record);
	if (own)
		rt_store_rollback(s);
	return -1;
}
