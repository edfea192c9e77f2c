/* rt_site: the flake history as a static site — index.html, one page per
 * test under t/ named by a hash of its ID, and the shared retrial.css. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_fs.h"
#include "rt_hash.h"
#include "rt_md.h"
#include "rt_say.h"
#include "rt_site.h"

#define MARKER ".retrial-site"
#define MAX_MESSAGES 20

/* Record text (cleaned, cut at RT_MD_MAX) as HTML text. */
static void
esc(rt_buf *b, const char *s)
{
	char *c = rt_md_clean(s ? s : "");

	rt_html_esc(b, c, strlen(c));
	free(c);
}

void
rt_site_page_name(const char *id, char out[32])
{
	char hex[65];

	rt_sha256_hex(id, strlen(id), hex);
	snprintf(out, 32, "t/%.16s.html", hex);
}

/* a night: the date its run started (else of the audit that read it) */
static const char q_nights[] =
    "SELECT night, sum(k), sum(n) FROM (SELECT substr(coalesce(u.first_ts, a.at),"
    "  1, 10) AS night, sum(r.failed) AS k, count(r.failed) AS n"
    " FROM results r JOIN runs u ON u.run = r.run JOIN audits a ON a.id = u.audit_id"
    " WHERE r.case_id = ?1 AND r.failed IS NOT NULL AND (?3 <= 0 OR r.run IN"
    "  (SELECT run FROM runs ORDER BY audit_id DESC, first_ts DESC, run DESC"
    "  LIMIT ?3)) GROUP BY r.run)"
    " GROUP BY night ORDER BY night DESC LIMIT ?2";

sqlite3_stmt *
rt_site_nights_prep(sqlite3 *db, long max, long window)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, q_nights, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 2, max < 0 ? -1 : max);
	sqlite3_bind_int64(st, 3, window);
	return st;
}

int
rt_site_night(sqlite3_stmt *st, const char *id, rt_site_nights *v)
{
	size_t cap = 0, i, j;
	int rc;
	char *t;
	long x;

	memset(v, 0, sizeof *v);
	sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (v->len == cap) {
			cap = cap ? 2 * cap : 16;
			v->night = rt_xrealloc(v->night, cap * sizeof *v->night);
			v->k = rt_xrealloc(v->k, cap * sizeof *v->k);
			v->n = rt_xrealloc(v->n, cap * sizeof *v->n);
		}
		v->night[v->len] = rt_xstrdup((const char *)sqlite3_column_text(st, 0));
		v->k[v->len] = (long)sqlite3_column_int64(st, 1);
		v->n[v->len] = (long)sqlite3_column_int64(st, 2);
		v->len++;
	}
	sqlite3_reset(st);
	/* newest first from SQL (the LIMIT keeps the last), drawn oldest first */
	for (i = 0, j = v->len; i < j--; i++) {
		t = v->night[i], v->night[i] = v->night[j], v->night[j] = t;
		x = v->k[i], v->k[i] = v->k[j], v->k[j] = x;
		x = v->n[i], v->n[i] = v->n[j], v->n[j] = x;
	}
	return rc == SQLITE_DONE ? 0 : -1;
}

void
rt_site_nights_free(rt_site_nights *v)
{
	size_t i;

	for (i = 0; i < v->len; i++)
		free(v->night[i]);
	free(v->night);
	free(v->k);
	free(v->n);
	memset(v, 0, sizeof *v);
}

#define SP_STEP 14.0
#define SP_H 40.0
#define SP_Y(p) (3 + (1 - (p)) * (SP_H - 6))
void
rt_site_spark(rt_buf *b, const char *id, size_t nn, const char *const *label,
    const long *k, const long *n, double conf)
{
	double w = (nn ? (double)nn : 1) * SP_STEP + 6, x;
	rt_interval iv;
	char s[160];
	size_t i;

	rt_buf_printf(b, "<svg class=\"spark\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 "
	    "%.0f %.0f\" role=\"img\"><title>", w, SP_H, w, SP_H);
	esc(b, id);
	rt_buf_printf(b, ", failure rate by night, %zu night%s: ", nn, nn == 1 ? "" : "s");
	for (i = 0; i < nn; i++) {
		rt_say_count(s, sizeof s, k[i], n[i], conf, "failed");
		rt_buf_adds(b, i ? "; " : "");
		esc(b, label[i]);
		rt_buf_adds(b, ": ");
		esc(b, s);
	}
	rt_buf_adds(b, nn ? "</title>" : "no nights</title>");
	rt_buf_printf(b, "<line class=\"grid\" x1=\"0\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\"/>",
	    SP_Y(0), w, SP_Y(0));
	for (i = 0; i < nn; i++) {
		if (n[i] <= 0)
			continue;
		rt_say_interval(k[i], n[i], conf, &iv);
		x = 3 + SP_STEP * (i + 0.5);
		rt_buf_printf(b, "<line class=\"iv\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\"/><circle class=\"pt%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"/>",
		    x, SP_Y(iv.high), x, SP_Y(iv.low), k[i] ? "" : " zero", x,
		    SP_Y((double)k[i] / n[i]));
	}
	rt_buf_adds(b, "</svg>");
}
#undef SP_Y

static void
head(rt_buf *b, const char *title, const char *up)
{
	rt_buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
	esc(b, title);
	rt_buf_printf(b, "</title>\n<link rel=\"stylesheet\" href=\"%sretrial.css\">\n"
	    "</head>\n<body>\n<main class=\"site\">\n", up);
}

/* A click on a heading sorts by its column (data-v), again reverses it;
 * without script the rows stay in the order written. */
static const char sort_js[] =
    "<script>\n"
    "document.querySelectorAll('table.sortable th[data-sort]').forEach(function (th) {\n"
    "  th.tabIndex = 0;\n"
    "  th.addEventListener('click', function () {\n"
    "    var t = th.closest('table'), tb = t.tBodies[0], i = th.cellIndex;\n"
    "    var num = th.dataset.sort === 'num', dir = th.dataset.dir === 'desc' ? 1 : -1;\n"
    "    th.dataset.dir = dir < 0 ? 'desc' : 'asc';\n"
    "    var rows = Array.prototype.slice.call(tb.rows);\n"
    "    rows.sort(function (a, b) {\n"
    "      var x = a.cells[i].dataset.v, y = b.cells[i].dataset.v;\n"
    "      if (num) { x = +x; y = +y; }\n"
    "      return x < y ? -dir : x > y ? dir : 0;\n"
    "    });\n"
    "    rows.forEach(function (r) { tb.appendChild(r); });\n"
    "  });\n"
    "});\n"
    "</script>\n";

static int
put(const char *tmp, const char *name, rt_buf *b, char *err, size_t errsize)
{
	char *path = rt_xasprintf("%s/%s", tmp, name);
	const char *s = rt_buf_str(b);
	size_t len = b->len, off = 0;
	ssize_t w;
	int fd, rc = -1;

	/* O_EXCL: two IDs whose names collide fail, never share a page */
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644)) < 0)
		goto out;
	while (off < len) {
		if ((w = write(fd, s + off, len - off)) < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			goto out;
		}
		off += (size_t)w;
	}
	rc = close(fd);
out:
	if (rc < 0)
		snprintf(err, errsize, "%s: %s", path, strerror(errno));
	free(path);
	b->len = 0;
	return rc;
}

static int
dbfail(sqlite3 *db, char *err, size_t errsize)
{
	snprintf(err, errsize, "history: %s", sqlite3_errmsg(db));
	return -1;
}

typedef struct {
	sqlite3_stmt *nights, *msgs, *runs;
} stmts;

static const char *
owner_of(const rt_site_opts *o, const char *id, rt_quar_entry *e, char **own)
{
	char *f;
	const char *m;

	*own = NULL;
	if (e && e->owner && *e->owner)
		return e->owner;
	if (!o->owners)
		return NULL;
	f = rt_codeowners_test_file(id);
	m = f ? rt_codeowners_match(o->owners, f[0] == '/' ? f + 1 : f) : NULL;
	if (m && *m)
		*own = rt_xstrdup(m);
	free(f);
	return *own;
}

static int
is_repo_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '-' || c == '_' || c == '.';
}

/* A run's CI page: the action names its runs
 * "github:OWNER/REPO:RUN_ID.ATTEMPT:JOB" (share/retrial/github-action.sh);
 * a run named by an https address is that address. */
static char *
run_link(const rt_site_opts *o, const char *run)
{
	const char *p = run + 7, *slash = NULL, *q;
	long id = 0, att = 0;

	if (!strncmp(run, "https://", 8))
		return rt_xstrdup(run);
	if (strncmp(run, "github:", 7))
		return NULL;
	for (q = p; *q && *q != ':'; q++) {
		if (*q == '/' && !slash)
			slash = q;
		else if (!is_repo_char((unsigned char)*q))
			return NULL;
	}
	if (!slash || slash == p || q == slash + 1 || *q != ':')
		return NULL;
	if (sscanf(q + 1, "%9ld.%4ld:", &id, &att) != 2 || id <= 0 || att <= 0)
		return NULL;
	return rt_xasprintf("%s/%.*s/actions/runs/%ld/attempts/%ld",
	    o->server ? o->server : "https://github.com", (int)(q - p), p, id, att);
}

static int
test_page(sqlite3 *db, stmts *st, const rt_site_opts *o, const char *tmp, const char *id,
    const char *page, long k, long n, char *err, size_t errsize)
{
	rt_buf b = { 0 };
	char s[200], *own, *link;
	rt_site_nights nv;
	size_t i;
	rt_quar_entry *e = o->q ? rt_quar_find(o->q, id) : NULL;
	const char *owner = owner_of(o, id, e, &own);
	int rc;

	head(&b, id, "../");
	rt_buf_adds(&b, "<p><a href=\"../index.html\">All tests</a></p>\n<h1 class=\"id\"><code>");
	rt_html_id(&b, id);
	rt_buf_adds(&b, "</code></h1>\n<dl class=\"facts\">\n<dt>Failure rate</dt><dd>");
	rt_say_count(s, sizeof s, k, n, o->conf, "failed");
	esc(&b, s);
	rt_buf_printf(&b, " in the last %ld runs</dd>\n<dt>Owner</dt><dd>", o->window);
	esc(&b, owner ? owner : "none");
	rt_buf_adds(&b, "</dd>\n<dt>Quarantine</dt><dd>");
	if (e) {
		rt_buf_adds(&b, "quarantined");
		if (e->since) {
			rt_buf_adds(&b, " since ");
			esc(&b, e->since);
		}
		if (e->expires) {
			rt_buf_adds(&b, ", expires ");
			esc(&b, e->expires);
		}
		if (e->issue) {
			rt_buf_adds(&b, "; issue ");
			if (!strncmp(e->issue, "https://", 8)) {
				rt_buf_adds(&b, "<a href=\"");
				esc(&b, e->issue);
				rt_buf_adds(&b, "\">");
				esc(&b, e->issue);
				rt_buf_adds(&b, "</a>");
			} else {
				esc(&b, e->issue);
			}
		}
		if (e->reason) {
			rt_buf_adds(&b, "; reason: ");
			esc(&b, e->reason);
		}
	} else {
		rt_buf_adds(&b, o->q ? "not quarantined" : "no quarantine list given");
	}
	free(own);
	rt_buf_adds(&b, "</dd>\n</dl>\n");

	if (rt_site_night(st->nights, id, &nv) < 0) {
		rt_site_nights_free(&nv);
		rt_buf_free(&b);
		return dbfail(db, err, errsize);
	}
	rt_buf_printf(&b, "<h2>Nightly failure rate, last %zu night%s</h2>\n", nv.len,
	    nv.len == 1 ? "" : "s");
	rt_buf_adds(&b, "<p>A point per night at its failure rate, the bar its "
	    "interval, on a scale from 0 to 100%.</p>\n<figure>");
	rt_site_spark(&b, id, nv.len, (const char *const *)nv.night, nv.k, nv.n, o->conf);
	rt_buf_adds(&b, "</figure>\n<table class=\"nights\">\n<thead><tr><th>Night</th>"
	    "<th class=\"rate\">Failure rate</th></tr></thead>\n<tbody>\n");
	for (i = nv.len; i-- > 0;) {
		rt_buf_adds(&b, "<tr><td>");
		esc(&b, nv.night[i]);
		rt_buf_adds(&b, "</td><td class=\"rate\">");
		rt_say_count(s, sizeof s, nv.k[i], nv.n[i], o->conf, "failed");
		esc(&b, s);
		rt_buf_adds(&b, "</td></tr>\n");
	}
	rt_site_nights_free(&nv);
	rt_buf_adds(&b, "</tbody>\n</table>\n");

	/* failure messages, counted */
	rt_buf_adds(&b, "<h2>Failure messages</h2>\n");
	sqlite3_bind_text(st->msgs, 1, id, -1, SQLITE_STATIC);
	for (i = 0; (rc = sqlite3_step(st->msgs)) == SQLITE_ROW; i++) {
		const char *ft = (const char *)sqlite3_column_text(st->msgs, 0);
		const char *m = (const char *)sqlite3_column_text(st->msgs, 1);
		long c = (long)sqlite3_column_int64(st->msgs, 2);
		if (!i)
			rt_buf_printf(&b, "<p>The %d most frequent, of the failures in the "
			    "history.</p>\n<table class=\"msgs\">\n<thead><tr><th>Failures</th>"
			    "<th class=\"id\">Message</th></tr></thead>\n<tbody>\n", MAX_MESSAGES);
		rt_buf_printf(&b, "<tr><td>%ld</td><td class=\"id\">", c);
		if (ft && *ft) {
			rt_buf_adds(&b, "<code>");
			esc(&b, ft);
			rt_buf_adds(&b, "</code> ");
		}
		esc(&b, m && *m ? m : "(no message)");
		rt_buf_adds(&b, "</td></tr>\n");
	}
	sqlite3_reset(st->msgs);
	rt_buf_adds(&b, i ? "</tbody>\n</table>\n" : "<p>No failure in the history.</p>\n");

	/* the CI runs */
	rt_buf_printf(&b, "<h2>Runs, last %ld</h2>\n<table class=\"runs\">\n<thead><tr>"
	    "<th class=\"id\">Run</th><th>Revision</th><th>Started</th><th class=\"rate\">"
	    "Failed</th></tr></thead>\n<tbody>\n", o->window);
	sqlite3_bind_text(st->runs, 1, id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st->runs)) == SQLITE_ROW) {
		const char *run = (const char *)sqlite3_column_text(st->runs, 0);
		const char *rev = (const char *)sqlite3_column_text(st->runs, 3);
		const char *ts = (const char *)sqlite3_column_text(st->runs, 4);
		rt_buf_adds(&b, "<tr><td class=\"id\">");
		if ((link = run_link(o, run))) {
			rt_buf_adds(&b, "<a href=\"");
			esc(&b, link);
			rt_buf_adds(&b, "\">");
		}
		rt_html_id(&b, run);
		rt_buf_adds(&b, link ? "</a>" : "");
		free(link);
		rt_buf_adds(&b, "</td><td><code>");
		esc(&b, rev ? rev : "");
		rt_buf_adds(&b, "</code></td><td>");
		esc(&b, ts ? ts : "");
		rt_buf_printf(&b, "</td><td class=\"rate\">%lld/%lld</td></tr>\n",
		    sqlite3_column_int64(st->runs, 1), sqlite3_column_int64(st->runs, 2));
	}
	sqlite3_reset(st->runs);
	rt_buf_adds(&b, "</tbody>\n</table>\n</main>\n</body>\n</html>\n");
	if (rc != SQLITE_DONE) {
		rt_buf_free(&b);
		return dbfail(db, err, errsize);
	}
	rc = put(tmp, page, &b, err, errsize);
	rt_buf_free(&b);
	return rc;
}

static const char q_index[] =
    "WITH w(run) AS (SELECT run FROM runs ORDER BY audit_id DESC, first_ts DESC,"
    "  run DESC LIMIT ?1)"
    " SELECT case_id, sum(failed), count(failed),"
    "  count(DISTINCT CASE WHEN failed THEN run END)"
    " FROM results WHERE run IN w AND failed IS NOT NULL GROUP BY case_id"
    " ORDER BY CAST(sum(failed) AS REAL) / count(failed) DESC, count(failed) DESC,"
    "  case_id";
static const char q_msgs[] =
    "SELECT coalesce(failure_type, ''), coalesce(message, ''), count(*) FROM results"
    " WHERE case_id = ?1 AND failed = 1 GROUP BY 1, 2 ORDER BY 3 DESC, 2 LIMIT ?2";
static const char q_runs[] =
    "SELECT r.run, sum(r.failed), count(r.failed), u.revision, u.first_ts"
    " FROM results r JOIN runs u ON u.run = r.run"
    " WHERE r.case_id = ?1 AND r.failed IS NOT NULL GROUP BY r.run"
    " ORDER BY u.audit_id DESC, u.first_ts DESC, r.run DESC LIMIT ?2";

static int
build(sqlite3 *db, const char *tmp, const rt_site_opts *o, char *err, size_t errsize)
{
	sqlite3_stmt *idx = NULL;
	stmts st = { 0 };
	rt_buf b = { 0 };
	char s[200], page[32], conf[16], *own, *path;
	long ntests = 0;
	int rc = -1, step;

	if (sqlite3_prepare_v2(db, q_index, -1, &idx, NULL) != SQLITE_OK ||
	    !(st.nights = rt_site_nights_prep(db, o->nights, 0)) ||
	    sqlite3_prepare_v2(db, q_msgs, -1, &st.msgs, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, q_runs, -1, &st.runs, NULL) != SQLITE_OK) {
		dbfail(db, err, errsize);
		goto out;
	}
	sqlite3_bind_int64(idx, 1, o->window);
	sqlite3_bind_int(st.msgs, 2, MAX_MESSAGES);
	sqlite3_bind_int64(st.runs, 2, o->window);
	path = rt_xasprintf("%s/t", tmp);
	step = mkdir(path, 0755);
	free(path);
	if (step < 0) {
		snprintf(err, errsize, "%s/t: %s", tmp, strerror(errno));
		goto out;
	}
	b.len = 0;
	rt_buf_adds(&b, rt_html_css());
	if (put(tmp, "retrial.css", &b, err, errsize) < 0 || put(tmp, MARKER, &b, err, errsize) < 0)
		goto out;

	rt_say_conf(conf, sizeof conf, o->conf);
	head(&b, "Flake history", "");
	rt_buf_printf(&b, "<h1>Flake history</h1>\n<p>Each test's failure rate over the "
	    "last %ld runs, with its %s interval; sorted by rate, highest first. Click a "
	    "column heading to sort by it.</p>\n<table class=\"sortable tests\">\n<thead><tr>"
	    "<th class=\"id\" data-sort=\"text\">Test</th>"
	    "<th class=\"rate\" data-sort=\"num\">Failure rate</th>"
	    "<th data-sort=\"text\">Owner</th>"
	    "<th data-sort=\"num\">Runs failed</th>"
	    "<th data-sort=\"text\">Quarantine</th></tr></thead>\n<tbody>\n", o->window, conf);
	while ((step = sqlite3_step(idx)) == SQLITE_ROW) {
		const char *id = (const char *)sqlite3_column_text(idx, 0);
		long k = (long)sqlite3_column_int64(idx, 1), n = (long)sqlite3_column_int64(idx, 2);
		long runs = (long)sqlite3_column_int64(idx, 3);
		rt_quar_entry *e = o->q ? rt_quar_find(o->q, id) : NULL;
		const char *owner = owner_of(o, id, e, &own);

		rt_site_page_name(id, page);
		rt_buf_adds(&b, "<tr><td class=\"id\" data-v=\"");
		esc(&b, id);
		rt_buf_printf(&b, "\"><a href=\"%s\"><code>", page);
		rt_html_id(&b, id);
		rt_buf_printf(&b, "</code></a></td><td class=\"rate\" data-v=\"%.6f\">",
		    n ? (double)k / n : 0.0);
		rt_say_count(s, sizeof s, k, n, o->conf, "failed");
		esc(&b, s);
		rt_buf_adds(&b, "</td><td data-v=\"");
		esc(&b, owner ? owner : "");
		rt_buf_adds(&b, "\">");
		esc(&b, owner ? owner : "none");
		rt_buf_printf(&b, "</td><td data-v=\"%ld\">%ld</td><td data-v=\"%s\">%s</td></tr>\n",
		    runs, runs, e ? "1" : "0", e ? "quarantined" : "");
		free(own);
		ntests++;
		if (test_page(db, &st, o, tmp, id, page, k, n, err, errsize) < 0)
			goto out;
	}
	if (step != SQLITE_DONE) {
		dbfail(db, err, errsize);
		goto out;
	}
	rt_buf_adds(&b, "</tbody>\n</table>\n");
	if (!ntests)
		rt_buf_printf(&b, "<p>No test has a pass or a failure in the last %ld runs.</p>\n",
		    o->window);
	rt_buf_adds(&b, "</main>\n");
	rt_buf_adds(&b, sort_js);
	rt_buf_adds(&b, "</body>\n</html>\n");
	rc = put(tmp, "index.html", &b, err, errsize);
out:
	rt_buf_free(&b);
	sqlite3_finalize(idx);
	sqlite3_finalize(st.nights);
	sqlite3_finalize(st.msgs);
	sqlite3_finalize(st.runs);
	return rc;
}

int
rt_site_check(const char *dir, char *err, size_t errsize)
{
	struct stat sb;
	struct dirent *de;
	DIR *d;
	char *m;
	int empty = 1, site;

	if (lstat(dir, &sb) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errsize, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(err, errsize, "%s: not a directory", dir);
		return -1;
	}
	m = rt_xasprintf("%s/" MARKER, dir);
	site = lstat(m, &sb) == 0 && S_ISREG(sb.st_mode);
	free(m);
	if (site)
		return 0;
	if (!(d = opendir(dir))) {
		snprintf(err, errsize, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while (empty && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = 0;
	closedir(d);
	if (!empty) {
		snprintf(err, errsize, "%s: not empty and not a site rt-audit wrote (no "
		    MARKER "): nothing replaced", dir);
		return -1;
	}
	return 0;
}

int
rt_site_write(sqlite3 *db, const char *dir, const rt_site_opts *o, char *err,
    size_t errsize)
{
	char *base = rt_xstrdup(dir), *tmp, *old = NULL;
	size_t len = strlen(base);
	int rc = -1;

	while (len > 1 && base[len - 1] == '/')
		base[--len] = '\0';
	if (rt_site_check(base, err, errsize) < 0) {
		free(base);
		return -1;
	}
	tmp = rt_xasprintf("%s.rt-site.XXXXXX", base);
	if (!mkdtemp(tmp) || chmod(tmp, 0755) < 0) {
		snprintf(err, errsize, "%s: %s", tmp, strerror(errno));
		free(tmp);
		free(base);
		return -1;
	}
	if (build(db, tmp, o, err, errsize) < 0)
		goto out;
	/* an empty directory or none is replaced by one rename; a site before
	 * this one is moved aside first (rename cannot replace a full one) */
	if (rename(tmp, base) == 0) {
		rc = 0;
		goto out;
	}
	if (errno != EEXIST && errno != ENOTEMPTY) {
		snprintf(err, errsize, "%s: %s", base, strerror(errno));
		goto out;
	}
	old = rt_xasprintf("%s.rt-old.XXXXXX", base);
	if (!mkdtemp(old) || rmdir(old) < 0 || rename(base, old) < 0) {
		snprintf(err, errsize, "%s: %s", base, strerror(errno));
		goto out;
	}
	if (rename(tmp, base) < 0) {
		snprintf(err, errsize, "%s: %s", base, strerror(errno));
		(void)rename(old, base);
		goto out;
	}
	rt_remove_tree(old);
	rc = 0;
out:
	if (rc < 0)
		rt_remove_tree(tmp);
	free(old);
	free(tmp);
	free(base);
	return rc;
}
