/* rt_sqlite: the SQLite habits every retrial database keeps — statements
 * retried while another writer holds the lock, and one open that makes the
 * directory, turns on WAL and migrates by user_version under a write lock. */
#ifndef RT_SQLITE_H
#define RT_SQLITE_H

#include <stddef.h>
#include <sqlite3.h>

/* sqlite3_exec, retried for up to 10 s while the database is busy or
 * locked. 0, or -1 with SQLite's message in err. */
int rt_sqlite_exec(sqlite3 *db, const char *sql, char *err, size_t errsize);

/* Called inside the migration transaction after the migrations from
 * version `from` have run; 0, or -1 (the open fails with SQLite's error). */
typedef int (*rt_sqlite_fixup_fn)(sqlite3 *db, int from);

/* Open path (making its parent directories with mkdirs), with a 30 s busy
 * timeout, WAL, foreign keys and synchronous NORMAL, then run
 * migrations[user_version..n-1] and fixup (may be NULL) under BEGIN
 * IMMEDIATE, so that two first runs do not both create. A database newer
 * than n is refused, not rewritten, and so is a path that exists and is
 * not a regular file (a device, a FIFO, a directory: SQLite would create
 * its journal beside it). NULL with the reason in err. */
sqlite3 *rt_sqlite_open(const char *path, int mkdirs, const char *const *migrations,
    size_t n, rt_sqlite_fixup_fn fixup, char *err, size_t errsize);

#endif
