/* rt_sqlite: retried statements and the open-and-migrate sequence shared by
 * the genome (rt_store) and the audit history (rt_audit_store). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_fs.h"
#include "rt_platform.h"
#include "rt_sqlite.h"

int
rt_sqlite_exec(sqlite3 *db, const char *sql, char *err, size_t errsize)
{
	char *msg = NULL;
	int rc, i;

	for (i = 0; i < 400; i++) {
		rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
		if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
			break;
		sqlite3_free(msg);
		msg = NULL;
		rt_sleep_ms(25);
	}
	if (rc != SQLITE_OK) {
		if (err && errsize)
			snprintf(err, errsize, "%s", msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int
user_version(sqlite3 *db, int *v)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

sqlite3 *
rt_sqlite_open(const char *path, int mkdirs, const char *const *migrations,
    size_t n, rt_sqlite_fixup_fn fixup, char *err, size_t errsize)
{
	sqlite3 *db = NULL;
	struct stat st;
	int v = 0, rc;
	size_t i;

	/* SQLite keeps a journal and a WAL beside the database: a device or
	 * a FIFO would grow /dev/null-journal next to it */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errsize, "%s: not a regular file", path);
		return NULL;
	}
	if (mkdirs && rt_mkdir_parents(path, 0700) < 0) {
		snprintf(err, errsize, "%s: cannot create its directory: %s", path,
		    strerror(errno));
		return NULL;
	}
	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errsize, "%s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 30000);
	if (rt_sqlite_exec(db, "PRAGMA journal_mode = WAL", err, errsize) < 0 ||
	    rt_sqlite_exec(db, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL",
	    err, errsize) < 0)
		goto fail;
	/* migrate under the write lock, so two first runs do not both create */
	if (rt_sqlite_exec(db, "BEGIN IMMEDIATE", err, errsize) < 0)
		goto fail;
	if (user_version(db, &v) < 0) {
		snprintf(err, errsize, "%s: %s", path, sqlite3_errmsg(db));
		goto rollback;
	}
	if (v > (int)n) {
		snprintf(err, errsize, "%s: schema version %d is newer than this retrial's %d",
		    path, v, (int)n);
		goto rollback;
	}
	for (i = (size_t)v; i < n; i++)
		if (rt_sqlite_exec(db, migrations[i], err, errsize) < 0)
			goto rollback;
	if (fixup && fixup(db, v) < 0) {
		snprintf(err, errsize, "%s: %s", path, sqlite3_errmsg(db));
		goto rollback;
	}
	if (rt_sqlite_exec(db, "COMMIT", err, errsize) < 0)
		goto rollback;
	return db;
rollback:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
fail:
	sqlite3_close(db);
	return NULL;
}
