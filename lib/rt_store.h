/* rt_store: the flake genome — a SQLite database of every rt-verify run
 * (project, command, baseline, each hypothesis and its fate, the verdict).
 * Versioned schema migrated on open, WAL, a busy timeout, bound statements. */
#ifndef RT_STORE_H
#define RT_STORE_H

#include <stddef.h>
#include <jansson.h>
#include <sqlite3.h>

/* The schema this build writes (PRAGMA user_version). */
#define RT_STORE_SCHEMA 3

typedef struct rt_store rt_store;

/* $XDG_DATA_HOME/retrial/genome.db, else $HOME/.local/share/retrial/
 * genome.db; malloc'd, NULL when neither variable is set. */
char *rt_store_default_path(void);

/* Open or create the database at path (mkdirs: create missing parent
 * directories first), switch it to WAL with a busy timeout, and migrate
 * it to RT_STORE_SCHEMA in one transaction. NULL with the reason in err;
 * a database newer than this build is refused, never rewritten. */
rt_store *rt_store_open(const char *path, int mkdirs, char *err, size_t errsize);
void rt_store_close(rt_store *s);
int rt_store_version(rt_store *s);
sqlite3 *rt_store_db(rt_store *s);

/* A transaction around several writes (BEGIN IMMEDIATE ... COMMIT);
 * -1 with the reason in err. A failed commit rolls back. */
int rt_store_begin(rt_store *s, char *err, size_t errsize);
int rt_store_commit(rt_store *s, char *err, size_t errsize);
void rt_store_rollback(rt_store *s);

/* Record one rt-verify verdict record (and its lanes and confirmations),
 * inside the caller's transaction or else in one of its own. recorded_at
 * is the record's "finished_at" when it is a string, else now. Returns
 * the run id; 0 when a record with the same content (SHA-256 over its
 * sorted-key JSON, runs.digest) is already there, and nothing is written;
 * or -1 with the reason in err (the caller rolls its transaction back). */
long long rt_store_add_verdict(rt_store *s, json_t *verdict, char *err,
    size_t errsize);

#endif
