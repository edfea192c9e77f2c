/* rt_quarantine: the quarantine list — one test a line, its canonical ID,
 * then TAB-separated NAME=VALUE fields (rt-quarantine(1), THE LIST). */
#define _XOPEN_SOURCE 700  /* realpath(3): POSIX.1-2008, but glibc hides it */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "rt_fs.h"
#include "rt_quarantine.h"
#include "rt_util.h"

const char rt_quar_header[] =
    "# Quarantined flaky tests, one per line: the test's ID, then TAB-separated\n"
    "# fields owner=, since=, expires=, issue=, reason=, rate= (and a '#'\n"
    "# comment). Blank lines and lines starting with '#' are ignored.\n"
    "# Written by rt-quarantine(1) and rt-pr(1); rt-quarantine(1) shows how\n"
    "# CI reads it.\n";

/* Dates: days since 1970-01-01 and back (H. Hinnant's civil algorithms). */

static long
days_from_civil(int y, int m, int d)
{
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void
civil_from_days(long z, char out[11])
{
	long era, doe, yoe, y, doy, mp, d, m;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp + (mp < 10 ? 3 : -9);
	y += m <= 2;
	if (y < 0 || y > 9999)
		y = y < 0 ? 0 : 9999;
	snprintf(out, 11, "%04u-%02u-%02u", (unsigned)y % 10000u, (unsigned)m % 100u,
	    (unsigned)d % 100u);
}

long
rt_quar_days(const char *s)
{
	return days_from_civil(atoi(s), atoi(s + 5), atoi(s + 8));
}

void
rt_quar_today(char out[11])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	civil_from_days(days_from_civil(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday), out);
}

void
rt_quar_date_add(const char *date, long days, char out[11])
{
	civil_from_days(rt_quar_days(date) + days, out);
}

static int
seterr(char *err, size_t size, const char *path, long line, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(err, size, "%s:%ld: ", path, line);
	if (n < 0 || (size_t)n >= size)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, size - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int
is_date(const char *s)
{
	int i;

	for (i = 0; i < 10; i++)
		if (i == 4 || i == 7 ? s[i] != '-' : !isdigit((unsigned char)s[i]))
			return 0;
	return s[10] == '\0' && strcmp(s + 5, "13") < 0 && strncmp(s + 5, "00", 2) &&
	    strncmp(s + 8, "32", 2) < 0 && strncmp(s + 8, "00", 2);
}

int
rt_quar_rate(const char *s, long *k, long *n)
{
	const char *slash = strchr(s, '/');
	char *a;
	int rc;

	if (!slash)
		return -1;
	a = rt_xasprintf("%.*s", (int)(slash - s), s);
	rc = rt_parse_long(a, 0, 1L << 40, k) < 0 || rt_parse_long(slash + 1, 1, 1L << 40, n) < 0 ||
	    *k > *n ? -1 : 0;
	free(a);
	return rc;
}

const char *
rt_quar_bad_id(const char *id)
{
	const char *p;

	if (!*id)
		return "an empty test ID";
	if (*id == '#')
		return "a test ID starting with '#'";
	for (p = id; *p; p++)
		if (*p == '\t' || *p == '\n' || *p == '\r')
			return "a test ID with a TAB or a line break";
	if (*id == ' ' || p[-1] == ' ')
		return "a test ID with blanks at either end";
	return NULL;
}

static char **
field_of(rt_quar_entry *e, const char *name, size_t len)
{
	static const char *const names[] = { "owner", "since", "expires", "issue",
	    "reason", "rate" };
	char **f[] = { &e->owner, &e->since, &e->expires, &e->issue, &e->reason, &e->rate };
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return f[i];
	return NULL;
}

static int
parse_line(char *s, rt_quar_entry *e, const char *path, char *err, size_t errsize)
{
	char *tab = strchr(s, '\t'), *f, *next, *eq, **slot;
	size_t n;

	e->tab = tab != NULL;
	if (tab)
		*tab = '\0';
	for (n = strlen(s); n > 0 && s[n - 1] == ' '; n--)
		s[n - 1] = '\0';
	e->id = rt_xstrdup(s);
	for (f = tab ? tab + 1 : NULL; f; f = next) {
		next = NULL;
		f += strspn(f, " ");
		if (*f == '#') {
			e->comment = rt_xstrdup(f);
			break;
		}
		if ((next = strchr(f, '\t')))
			*next++ = '\0';
		for (n = strlen(f); n > 0 && f[n - 1] == ' '; n--)
			f[n - 1] = '\0';
		if (!*f)
			continue;
		for (eq = f; *eq && (islower((unsigned char)*eq) || *eq == '_' || *eq == '-'); eq++)
			;
		if (*eq != '=' || eq == f)
			return seterr(err, errsize, path, e->line, "field \"%s\" is not NAME=VALUE "
			    "(a comment starts with '#')", f);
		if ((slot = field_of(e, f, (size_t)(eq - f)))) {
			if (*slot)
				return seterr(err, errsize, path, e->line, "%.*s= given twice",
				    (int)(eq - f), f);
			*slot = rt_xstrdup(eq + 1);
		} else {
			char *x = e->extra ? rt_xasprintf("%s\t%s", e->extra, f) : rt_xstrdup(f);
			free(e->extra);
			e->extra = x;
		}
	}
	if (!*e->id)
		return seterr(err, errsize, path, e->line, "no test ID before the TAB");
	if (e->since && !is_date(e->since))
		return seterr(err, errsize, path, e->line, "since=%s: not a date (YYYY-MM-DD)", e->since);
	if (e->expires && !is_date(e->expires))
		return seterr(err, errsize, path, e->line, "expires=%s: not a date (YYYY-MM-DD)",
		    e->expires);
	if (e->rate) {
		long k, nn;
		if (rt_quar_rate(e->rate, &k, &nn) < 0)
			return seterr(err, errsize, path, e->line, "rate=%s: not FAILURES/TRIALS",
			    e->rate);
	}
	return 0;
}

static void
entry_free(rt_quar_entry *e)
{
	free(e->raw);
	free(e->id);
	free(e->owner);
	free(e->since);
	free(e->expires);
	free(e->issue);
	free(e->reason);
	free(e->rate);
	free(e->extra);
	free(e->comment);
}

int
rt_quar_parse(const char *text, const char *path, rt_quar_list *l, char *err, size_t errsize)
{
	const char *s = text, *nl;
	rt_quar_entry *e;
	char *line;
	long no = 0;
	int rc = 0;

	memset(l, 0, sizeof *l);
	while (*s && rc == 0) {
		nl = strchr(s, '\n');
		line = rt_xasprintf("%.*s", (int)(nl ? nl - s : (ptrdiff_t)strlen(s)), s);
		s = nl ? nl + 1 : s + strlen(s);
		no++;
		l->e = rt_xrealloc(l->e, (l->n + 1) * sizeof *l->e);
		e = &l->e[l->n++];
		memset(e, 0, sizeof *e);
		e->raw = line;
		e->line = no;
		{
			char *work = rt_xstrdup(line), *p;
			size_t n = strlen(work);
			if (n && work[n - 1] == '\r')
				work[n - 1] = '\0';
			p = work + strspn(work, " \t");
			if (*p && *p != '#')
				rc = parse_line(p, e, path, err, errsize);
			free(work);
		}
	}
	if (rc < 0)
		rt_quar_free(l);
	return rc;
}

void
rt_quar_free(rt_quar_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		entry_free(&l->e[i]);
	free(l->e);
	memset(l, 0, sizeof *l);
}

void
rt_quar_load(const char *path, int missing_ok, rt_quar_list *l)
{
	char err[512], *text = rt_read_file(path, NULL);

	memset(l, 0, sizeof *l);
	if (!text) {
		if (errno == ENOENT && missing_ok)
			return;
		rt_die("%s:", path);
	}
	if (rt_quar_parse(text, path, l, err, sizeof err) < 0)
		rt_die("%s", err);
	free(text);
}

int
rt_quar_match(const rt_quar_entry *e, const char *id)
{
	size_t n;

	if (!e->id)
		return 0;
	if (strcmp(e->id, id) == 0)
		return 2;
	n = strcspn(e->id, " ");
	if (!e->tab && e->id[n] && strlen(id) == n && memcmp(e->id, id, n) == 0)
		return 1;
	return 0;
}

rt_quar_entry *
rt_quar_find(rt_quar_list *l, const char *id)
{
	size_t i;
	rt_quar_entry *old = NULL;

	for (i = 0; i < l->n; i++) {
		int m = rt_quar_match(&l->e[i], id);
		if (m == 2)
			return &l->e[i];
		if (m == 1 && !old)
			old = &l->e[i];
	}
	return old;
}

rt_quar_entry *
rt_quar_add(rt_quar_list *l, const char *id)
{
	rt_quar_entry *e;

	l->e = rt_xrealloc(l->e, (l->n + 1) * sizeof *l->e);
	e = &l->e[l->n++];
	memset(e, 0, sizeof *e);
	e->id = rt_xstrdup(id);
	e->tab = 1;
	return e;
}

void
rt_quar_remove(rt_quar_list *l, rt_quar_entry *e)
{
	size_t i = (size_t)(e - l->e);

	entry_free(e);
	memmove(&l->e[i], &l->e[i + 1], (l->n - i - 1) * sizeof *l->e);
	l->n--;
}

void
rt_quar_set(rt_quar_entry *e, char **field, const char *v)
{
	char *p;

	free(*field);
	*field = v ? rt_xstrdup(v) : NULL;
	for (p = *field; p && *p; p++)
		if (*p == '\t' || *p == '\n' || *p == '\r')
			*p = ' ';
	free(e->raw);
	e->raw = NULL;
}

char *
rt_quar_format(const rt_quar_list *l)
{
	static const char *const names[] = { "owner", "since", "expires", "issue",
	    "reason", "rate" };
	rt_buf b = {0};
	size_t i, j;

	rt_buf_adds(&b, "");
	for (i = 0; i < l->n; i++) {
		const rt_quar_entry *e = &l->e[i];
		const char *v[] = { e->owner, e->since, e->expires, e->issue, e->reason, e->rate };
		if (e->raw) {
			rt_buf_printf(&b, "%s\n", e->raw);
			continue;
		}
		rt_buf_adds(&b, e->id);
		for (j = 0; j < sizeof v / sizeof v[0]; j++)
			if (v[j])
				rt_buf_printf(&b, "\t%s=%s", names[j], v[j]);
		if (e->extra)
			rt_buf_printf(&b, "\t%s", e->extra);
		if (e->comment)
			rt_buf_printf(&b, "\t%s", e->comment);
		rt_buf_addc(&b, '\n');
	}
	return b.data;
}

int
rt_quar_edit(const char *path, const char *header, rt_quar_edit_fn fn, void *ctx)
{
	/* a list that is a symbolic link (or under one) is edited where it
	 * lives: renaming the new text over the link would put a copy of
	 * its target into the project and cut the link */
	char *real = realpath(path, NULL);
	const char *at = real ? real : path;
	char *text, *out, err[512];
	struct flock lk;
	struct stat fst, pst;
	rt_quar_list l;
	int fd, rc, created;

	if (rt_mkdir_parents(at, 0777) < 0)
		rt_die("%s:", path);
	/* lock the list itself; one renamed over it while we waited is
	 * another job's edit, so lock the new one (no lock file is left in
	 * the project) */
	for (;;) {
		created = 0;
		if ((fd = open(at, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) >= 0)
			created = 1;
		else if (errno != EEXIST || (fd = open(at, O_RDWR | O_CLOEXEC)) < 0)
			rt_die("%s:", path);
		memset(&lk, 0, sizeof lk);
		lk.l_type = F_WRLCK;
		lk.l_whence = SEEK_SET;
		while (fcntl(fd, F_SETLKW, &lk) < 0)
			if (errno != EINTR || rt_stop_signal)
				rt_die("%s: lock:", path);
		if (fstat(fd, &fst) < 0)
			rt_die("%s:", path);
		if (stat(at, &pst) == 0 && pst.st_ino == fst.st_ino && pst.st_dev == fst.st_dev)
			break;
		close(fd);
	}
	/* read under the lock, so an edit by another job is never lost; from
	 * fd, since closing any other descriptor of the file would drop an
	 * fcntl lock */
	{
		rt_buf b = {0};
		char chunk[8192];
		ssize_t n;
		rt_buf_adds(&b, "");
		while ((n = read(fd, chunk, sizeof chunk)) != 0) {
			if (n < 0) {
				if (errno == EINTR && !rt_stop_signal)
					continue;
				rt_die("%s:", path);
			}
			rt_buf_add(&b, chunk, (size_t)n);
		}
		text = b.data;
	}
	if (created || (!*text && header)) {
		free(text);
		text = rt_xstrdup(header ? header : "");
	}
	if (rt_quar_parse(text, path, &l, err, sizeof err) < 0) {
		if (created)
			unlink(at);
		rt_die("%s", err);
	}
	if ((rc = fn(&l, ctx)) > 0) {
		out = rt_quar_format(&l);
		if (rt_write_file_atomic(at, out, strlen(out)) < 0)
			rt_die("%s:", path);
		free(out);
	} else if (created) {
		unlink(at);     /* nothing to keep: no empty list left behind */
	}
	free(text);
	rt_quar_free(&l);
	close(fd);
	free(real);
	return rc;
}
