/* rt_audit_store: the flake history of rt-audit — a SQLite database of
 * every per-case trial record ingested, the runs, the audits and the tests
 * found flaky. Versioned schema migrated on open, WAL, a busy timeout. */
#ifndef RT_AUDIT_STORE_H
#define RT_AUDIT_STORE_H

#include <stddef.h>
#include <sqlite3.h>

/* The schema this build writes (PRAGMA user_version). */
#define RT_AUDIT_SCHEMA 3

/* $XDG_DATA_HOME/retrial/audit.db, else $HOME/.local/share/retrial/
 * audit.db; malloc'd, NULL when neither variable is set. */
char *rt_audit_default_path(void);

/* Open or create the history at path (mkdirs: create missing parent
 * directories), switch it to WAL with a busy timeout and migrate it to
 * RT_AUDIT_SCHEMA under the write lock. NULL with the reason in err; a
 * history newer than this build is refused, never rewritten. */
sqlite3 *rt_audit_open(const char *path, int mkdirs, char *err, size_t errsize);

/* Run SQL without results, retrying while another writer holds the lock;
 * -1 with the reason in err. */
int rt_audit_exec(sqlite3 *db, const char *sql, char *err, size_t errsize);

/* One per-case record, its fields already checked. */
typedef struct {
	const char *digest;      /* SHA-256 hex of the record's sorted-key JSON */
	const char *run, *case_id, *outcome, *revision, *timestamp;
	const char *source, *report, *message, *failure_type;
	long long trial, attempt;   /* -1: absent */
	double time_ms;             /* < 0: absent */
} rt_audit_rec;

/* The writer: its statements prepared once for a whole ingest. */
typedef struct rt_audit_writer rt_audit_writer;
rt_audit_writer *rt_audit_writer_new(sqlite3 *db, long long audit_id, char *err,
    size_t errsize);
void rt_audit_writer_free(rt_audit_writer *w);

/* Insert a record (inside the caller's transaction): 1 when written, 0
 * when a record with the same digest is already there, -1 with the reason
 * in err. Also records its run (first audit, earliest timestamp, and its
 * revision: the first one given, which every record of the run takes). */
int rt_audit_add(rt_audit_writer *w, const rt_audit_rec *r, char *err,
    size_t errsize);

/* Keep the digest of an audit, its "audit" record as JSON text (inside the
 * audit's transaction). 0, or -1 with the reason in err. */
int rt_audit_set_digest(sqlite3 *db, long long audit_id, const char *json,
    char *err, size_t errsize);
/* The digest kept for an audit, malloc'd in *json: 1; 0 when the audit
 * was written before digests were kept (schema 1); -2 when there is no
 * such audit; -1 with the reason in err. */
int rt_audit_get_digest(sqlite3 *db, long long audit_id, char **json,
    char *err, size_t errsize);

#endif
