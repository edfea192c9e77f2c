/* rt_store: the flake genome — a SQLite database of every rt-verify run
 * (project, command, baseline, each hypothesis and its fate, the verdict).
 * Versioned schema migrated on open, WAL, a busy timeout, bound statements. */
#ifndef RT_STORE_H
#define RT_STORE_H

#include <stddef.h>
#include <jansson.h>
#include <sqlite3.h>

/* The schema this build writes (PRAGMA user_version). */
#define RT_STORE_SCHEMA 2

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

/* Record one rt-verify verdict record (and its lanes and confirmations)
 * in one transaction. Returns the run id, or -1 with the reason in err. */
long long rt_store_add_verdict(rt_store *s, json_t *verdict, char *err,
    size_t errsize);

#endif
