/* rt_site: the flake history as a static site (rt-audit --html-dir) — an
 * index of tests and one page per test, written to a directory at once. */
#ifndef RT_SITE_H
#define RT_SITE_H
#include <stddef.h>
#include <sqlite3.h>
#include "rt_codeowners.h"
#include "rt_quarantine.h"
#include "rt_util.h"

typedef struct {
	double conf;                 /* every interval's confidence */
	long window;                 /* the last W runs for the index's rates */
	long nights;                 /* the last N nights on a test's page */
	rt_quar_list *q;             /* the quarantine list, or NULL */
	const rt_codeowners *owners; /* CODEOWNERS, or NULL */
	const char *server;          /* GitHub's address for run links */
} rt_site_opts;

/* Can dir take a site: missing, an empty directory, or a site written
 * before (it holds ".retrial-site")? 0, or -1 with the reason in err. */
int rt_site_check(const char *dir, char *err, size_t errsize);

/* Write the site of the history db to dir: built in a temporary directory
 * beside it, then put in place of the old one by rename. 0, or -1 with
 * the reason in err (nothing in dir changed then). */
int rt_site_write(sqlite3 *db, const char *dir, const rt_site_opts *o,
    char *err, size_t errsize);

/* A test's nights: each the date its runs started (else the date of the
 * audit that read them), with the failures k of its trials n. */
typedef struct {
	size_t len;
	char **night;                /* "YYYY-MM-DD", oldest first */
	long *k, *n;
} rt_site_nights;

/* The query rt_site_night reads through: a test's last max nights (all,
 * when max < 0), of the last window runs (all, when window <= 0). NULL
 * on a database error. */
sqlite3_stmt *rt_site_nights_prep(sqlite3 *db, long max, long window);

/* id's nights through st, oldest first, into v (freed by
 * rt_site_nights_free). 0, or -1 on a database error. */
int rt_site_night(sqlite3_stmt *st, const char *id, rt_site_nights *v);
void rt_site_nights_free(rt_site_nights *v);

/* One test's nightly rates as an SVG sparkline: a point per night at its
 * rate k[i]/n[i], its interval a vertical bar, on a fixed 0–100% scale;
 * label[i] names the night in the <title>. */
void rt_site_spark(rt_buf *b, const char *id, size_t nn, const char *const *label,
    const long *k, const long *n, double conf);

/* The file name of id's page: "t/" and the first 16 hex digits of its
 * SHA-256, ".html" (never the ID itself). */
void rt_site_page_name(const char *id, char out[32]);
#endif
