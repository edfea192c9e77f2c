/* rt_patch: unified diffs from untrusted text — a lenient parser that checks
 * every path, rebuilds a canonical diff, and runs diff(1)/patch(1) without a
 * shell. */
#define _XOPEN_SOURCE 700  /* realpath(3): POSIX.1-2008, but glibc hides it */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_patch.h"
#include "rt_platform.h"
#include "rt_util.h"

extern char **environ;

#define MAX_PATH_LEN 1024

/* One file section of a diff: the paths (NULL for /dev/null) and its hunks
 * rebuilt with headers that match their lines. */
typedef struct {
	char *oldp, *newp;
	rt_buf hunks;
	int nhunks;
} pfile;

typedef struct {
	pfile *f;
	size_t n;
} pdiff;

static void
pdiff_free(pdiff *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->f[i].oldp);
		free(d->f[i].newp);
		rt_buf_free(&d->f[i].hunks);
	}
	free(d->f);
	d->f = NULL;
	d->n = 0;
}

/* Copy at most 60 bytes of untrusted text into an error message, printable. */
static void
quote(char *dst, size_t size, const char *s, size_t n)
{
	size_t i, j = 0;

	if (size == 0)
		return;
	for (i = 0; i < n && s[i] && j + 4 < size && i < 60; i++)
		dst[j++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (i < n && s[i] && j + 4 < size)
		dst[j++] = '.', dst[j++] = '.', dst[j++] = '.';
	dst[j] = '\0';
}

/* The rules every path obeys (rt-diagnose(1), UNTRUSTED OUTPUT): relative,
 * no "." or ".." component, no empty component, no ".git" component, no
 * backslash or control character. Messages start "unsafe path" so callers
 * can tell a hostile path from a malformed diff. */
static int
check_path(const char *p, size_t n, char *err, size_t errsize)
{
	char q[80];
	const char *why = NULL;
	size_t i, start;

	quote(q, sizeof q, p, n);
	if (n == 0)
		why = "empty";
	else if (n > MAX_PATH_LEN)
		why = "too long";
	else if (p[0] == '/')
		why = "absolute";
	for (i = 0; !why && i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c < 0x20 || c == 0x7f)
			why = "has a control character";
		else if (c == '\\')
			why = "has a backslash";
	}
	for (start = 0; !why && start <= n; ) {
		const char *c = p + start;
		size_t len = 0;
		while (start + len < n && p[start + len] != '/')
			len++;
		if (len == 0)
			why = "has an empty component";
		else if (len == 1 && c[0] == '.')
			why = "has a . component";
		else if (len == 2 && c[0] == '.' && c[1] == '.')
			why = "has a .. component";
		else if (len == 4 && strncasecmp(c, ".git", 4) == 0)
			why = "is inside .git";
		start += len + 1;
	}
	if (why) {
		snprintf(err, errsize, "unsafe path \"%s\": %s", q, why);
		return -1;
	}
	return 0;
}

/* Parse the name on a "--- " or "+++ " line: up to the first tab or blank
 * (what follows is a timestamp), one leading "a/" or "b/" stripped. *out
 * is NULL for /dev/null. */
static int
header_path(const char *s, size_t n, char **out, char *err, size_t errsize)
{
	size_t k = 0;
	char q[80];

	*out = NULL;
	while (k < n && s[k] != '\t' && s[k] != ' ' && s[k] != '\r')
		k++;
	if (k == 9 && strncmp(s, "/dev/null", 9) == 0)
		return 0;
	if (k > 0 && s[0] == '"') {
		quote(q, sizeof q, s, k);
		snprintf(err, errsize, "unsafe path %s: quoted names are not supported", q);
		return -1;
	}
	if (k > 0 && s[0] == '/')
		return check_path(s, k, err, errsize);
	if (k > 2 && (s[0] == 'a' || s[0] == 'b') && s[1] == '/') {
		s += 2;
		k -= 2;
	}
	while (k > 2 && s[0] == '.' && s[1] == '/') {
		s += 2;
		k -= 2;
	}
	if (check_path(s, k, err, errsize) < 0)
		return -1;
	*out = rt_xmalloc(k + 1);
	memcpy(*out, s, k);
	(*out)[k] = '\0';
	return 0;
}

/* Lines outside hunks that patch(1) or git-apply could act on by themselves
 * (renames, copies, symlinks, binary patches, Index: names): their paths
 * get the same checks, and the ones we cannot vet are refused. */
static int
check_extended(const char *s, size_t n, char *err, size_t errsize)
{
	static const char *named[] = { "diff --git ", "rename from ", "rename to ",
	    "copy from ", "copy to ", "Index: ", "*** ", NULL };
	size_t i, k, a, b;
	char *p;

	if ((n >= 16 && strncmp(s, "GIT binary patch", 16) == 0) ||
	    (n >= 13 && strncmp(s, "Binary files ", 13) == 0)) {
		snprintf(err, errsize, "binary patches are not supported");
		return -1;
	}
	/* patch(1) only ever sees the rebuilt sections, which cannot rename
	 * or copy; git apply (rt-pr ships with it) would act on these lines,
	 * so a diff holding them is refused rather than shipped unverified. */
	if ((n >= 12 && strncmp(s, "rename from ", 12) == 0) ||
	    (n >= 10 && strncmp(s, "rename to ", 10) == 0) ||
	    (n >= 10 && strncmp(s, "copy from ", 10) == 0) ||
	    (n >= 8 && strncmp(s, "copy to ", 8) == 0)) {
		snprintf(err, errsize, "renames and copies are not supported");
		return -1;
	}
	if ((n >= 9 && strncmp(s, "new file ", 9) == 0) || (n >= 9 && strncmp(s, "new mode ", 9) == 0) ||
	    (n >= 12 && strncmp(s, "deleted file", 12) == 0)) {
		for (k = 0; k + 6 <= n; k++)
			if (strncmp(s + k, "120000", 6) == 0) {
				snprintf(err, errsize, "unsafe path: symbolic links are not supported");
				return -1;
			}
		return 0;
	}
	for (i = 0; named[i]; i++) {
		size_t l = strlen(named[i]);
		if (n < l || strncmp(s, named[i], l) != 0)
			continue;
		/* every blank-separated word after the keyword is a candidate path */
		for (a = l; a < n; a = b) {
			while (a < n && (s[a] == ' ' || s[a] == '\t'))
				a++;
			b = a;
			while (b < n && s[b] != ' ' && s[b] != '\t' && s[b] != '\r')
				b++;
			if (b == a)
				break;
			if (s[a] == '/' && !(b - a == 9 && strncmp(s + a, "/dev/null", 9) == 0))
				return check_path(s + a, b - a, err, errsize);
			for (k = a; k + 1 < b; k++)
				if (s[k] == '.' && s[k + 1] == '.' &&
				    (k == a || s[k - 1] == '/') && (k + 2 == b || s[k + 2] == '/')) {
					p = rt_xmalloc(b - a + 1);
					memcpy(p, s + a, b - a);
					p[b - a] = '\0';
					check_path(p, b - a, err, errsize);
					free(p);
					return -1;
				}
			if (named[i][0] == '*')
				break; /* "*** name<TAB>date" */
		}
		return 0;
	}
	return 0;
}

typedef struct {
	const char *s;
	size_t n;
} line;

/* Split text into lines (without the '\n'). */
static line *
split_lines(const char *text, size_t *nl)
{
	size_t cap = 16, n = 0;
	line *v = rt_xmalloc(cap * sizeof *v);
	const char *p = text, *e;

	while (*p) {
		e = strchr(p, '\n');
		if (n == cap)
			v = rt_xrealloc(v, (cap *= 2) * sizeof *v);
		v[n].s = p;
		v[n].n = e ? (size_t)(e - p) : strlen(p);
		n++;
		if (!e)
			break;
		p = e + 1;
	}
	*nl = n;
	return v;
}

static int
starts(const line *l, const char *pfx)
{
	size_t k = strlen(pfx);
	return l->n >= k && strncmp(l->s, pfx, k) == 0;
}

/* "@@ -a[,b] +c[,d] @@": the numbers, each -1 when absent (models often
 * write a bare "@@"; patch(1) finds the place from the context anyway). */
static void
hunk_header(const line *l, long v[4])
{
	const char *s = l->s + 2, *end = l->s + l->n;
	char *q;
	int i;

	for (i = 0; i < 4; i++)
		v[i] = -1;
	while (s < end && *s == ' ')
		s++;
	if (s < end && *s == '-') {
		v[0] = strtol(s + 1, &q, 10);
		s = q;
		if (s < end && *s == ',') {
			v[1] = strtol(s + 1, &q, 10);
			s = q;
		}
	}
	while (s < end && *s == ' ')
		s++;
	if (s < end && *s == '+') {
		v[2] = strtol(s + 1, &q, 10);
		s = q;
		if (s < end && *s == ',') {
			v[3] = strtol(s + 1, &q, 10);
			s = q;
		}
	}
	if (v[0] >= 0 && v[1] < 0)
		v[1] = 1;
	if (v[2] >= 0 && v[3] < 0)
		v[3] = 1;
}

static int
is_file_header(const line *ls, size_t nl, size_t i)
{
	return i + 1 < nl && starts(&ls[i], "--- ") && starts(&ls[i + 1], "+++ ");
}

/* Read one hunk starting at ls[*i] (its @@ line) into f->hunks with its
 * counts recomputed: models miscount, so the hunk runs as far as its lines
 * do (to the next @@, file header or other text) whatever the header says.
 * A blank line inside a hunk is an empty context line whose space was lost;
 * blank lines at its end are not part of it. */
static int
read_hunk(const line *ls, size_t nl, size_t *i, pfile *f, char *err, size_t errsize)
{
	long v[4], nold = 0, nnew = 0;
	size_t j = *i + 1, pending = 0;
	rt_buf body = {0};

	hunk_header(&ls[*i], v);
	for (; j < nl; j++) {
		const line *l = &ls[j];
		char c = l->n ? l->s[0] : '\n';

		if (l->n == 0 || (l->n == 1 && l->s[0] == '\r')) {
			pending++;
			continue;
		}
		if ((c != ' ' && c != '-' && c != '+' && c != '\\') ||
		    is_file_header(ls, nl, j))
			break;
		for (; pending; pending--) {
			rt_buf_adds(&body, " \n");
			nold++;
			nnew++;
		}
		if (c == ' ' || c == '-')
			nold++;
		if (c == ' ' || c == '+')
			nnew++;
		rt_buf_add(&body, l->s, l->n);
		rt_buf_addc(&body, '\n');
	}
	if (nold == 0 && nnew == 0) {
		rt_buf_free(&body);
		snprintf(err, errsize, "empty hunk");
		return -1;
	}
	if (v[0] < 0)
		v[0] = nold ? 1 : 0;
	if (v[2] < 0)
		v[2] = nnew ? 1 : 0;
	rt_buf_printf(&f->hunks, "@@ -%ld,%ld +%ld,%ld @@\n", v[0], nold, v[2], nnew);
	rt_buf_add(&f->hunks, body.data, body.len);
	rt_buf_free(&body);
	f->nhunks++;
	*i = j - pending;
	return 0;
}

static int
parse(const char *diff, pdiff *d, char *err, size_t errsize)
{
	size_t nl, i = 0, cap = 0;
	line *ls;
	pfile *f;

	memset(d, 0, sizeof *d);
	if (!diff || !*diff) {
		snprintf(err, errsize, "empty diff");
		return -1;
	}
	ls = split_lines(diff, &nl);
	while (i < nl) {
		if (!is_file_header(ls, nl, i)) {
			if (check_extended(ls[i].s, ls[i].n, err, errsize) < 0)
				goto fail;
			i++;
			continue;
		}
		if (d->n == cap)
			d->f = rt_xrealloc(d->f, (cap = cap ? 2 * cap : 4) * sizeof *d->f);
		f = &d->f[d->n++];
		memset(f, 0, sizeof *f);
		if (header_path(ls[i].s + 4, ls[i].n - 4, &f->oldp, err, errsize) < 0 ||
		    header_path(ls[i + 1].s + 4, ls[i + 1].n - 4, &f->newp, err, errsize) < 0)
			goto fail;
		if (!f->oldp && !f->newp) {
			snprintf(err, errsize, "a file section names /dev/null on both sides");
			goto fail;
		}
		if (f->oldp && f->newp && strcmp(f->oldp, f->newp) != 0) {
			snprintf(err, errsize, "renames are not supported (old and new names differ)");
			goto fail;
		}
		i += 2;
		while (i < nl && starts(&ls[i], "@@"))
			if (read_hunk(ls, nl, &i, f, err, errsize) < 0)
				goto fail;
		if (f->nhunks == 0) {
			snprintf(err, errsize, "a file section has no hunk");
			goto fail;
		}
	}
	free(ls);
	if (d->n == 0) {
		snprintf(err, errsize, "no file header (--- a/PATH, +++ b/PATH) and hunk found");
		return -1;
	}
	return 0;
fail:
	free(ls);
	pdiff_free(d);
	return -1;
}

int
rt_patch_paths(const char *diff, char ***paths, size_t *npaths, char *err,
    size_t errsize)
{
	pdiff d;
	size_t i, j, n = 0;
	char **v;

	*paths = NULL;
	*npaths = 0;
	if (parse(diff, &d, err, errsize) < 0)
		return -1;
	v = rt_xcalloc(d.n, sizeof *v);
	for (i = 0; i < d.n; i++) {
		const char *p = d.f[i].newp ? d.f[i].newp : d.f[i].oldp;
		for (j = 0; j < n && strcmp(v[j], p) != 0; j++)
			;
		if (j == n)
			v[n++] = rt_xstrdup(p);
	}
	pdiff_free(&d);
	*paths = v;
	*npaths = n;
	return 0;
}

void
rt_patch_paths_free(char **paths, size_t npaths)
{
	size_t i;

	for (i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
}

/* The environment for diff and patch: the caller's, without what changes
 * their behaviour (POSIXLY_CORRECT changes how patch picks file names),
 * and in the C locale so messages are predictable. */
static char **
child_env(void)
{
	size_t n = 0, i, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = rt_xcalloc(n + 2, sizeof *env);
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "POSIXLY_CORRECT=", 16) != 0 &&
		    strncmp(environ[i], "LC_ALL=", 7) != 0 &&
		    strncmp(environ[i], "LANGUAGE=", 9) != 0 &&
		    strncmp(environ[i], "PATCH_", 6) != 0 &&
		    strncmp(environ[i], "SIMPLE_BACKUP_SUFFIX=", 21) != 0 &&
		    strncmp(environ[i], "VERSION_CONTROL=", 16) != 0)
			env[k++] = environ[i];
	env[k++] = "LC_ALL=C";
	env[k] = NULL;
	return env;
}

/* Run argv (PATH search, no shell) with stdin from in_fd and stdout and
 * stderr to out_fd (-1: /dev/null). Returns the exit status, or -1. */
static int
run(char *const argv[], int in_fd, int out_fd)
{
	posix_spawn_file_actions_t fa;
	char **env = child_env();
	pid_t pid;
	int st, rc, devnull = -1;

	if (out_fd < 0 && (out_fd = devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
		free(env);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	if (in_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
	else
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	posix_spawn_file_actions_adddup2(&fa, out_fd, 2);
	rt_spawn_closefrom(&fa, 3);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	if (devnull >= 0)
		close(devnull);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *
tmpdir_base(void)
{
	const char *t = getenv("TMPDIR");
	return rt_xasprintf("%s/rt-patch.XXXXXX", t && *t ? t : "/tmp");
}

static int
write_all(int fd, const char *s, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = write(fd, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static int
write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600), rc;

	if (fd < 0)
		return -1;
	rc = write_all(fd, s, strlen(s));
	if (close(fd) < 0)
		rc = -1;
	return rc;
}

char *
rt_patch_from_texts(const char *relpath, const char *old_text,
    const char *new_text)
{
	char err[256], *dir, *oldf, *newf, *la, *lb, *argv[9];
	rt_buf out = {0};
	char tmp[65536];
	int rc = -1, pfd[2];
	ssize_t r;
	posix_spawn_file_actions_t fa;
	char **env;
	pid_t pid;
	int st;

	if (check_path(relpath, strlen(relpath), err, sizeof err) < 0)
		return NULL;
	if ((!old_text && !new_text) ||
	    (old_text && new_text && strcmp(old_text, new_text) == 0))
		return NULL;
	dir = tmpdir_base();
	if (!mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	oldf = rt_xasprintf("%s/old", dir);
	newf = rt_xasprintf("%s/new", dir);
	la = old_text ? rt_xasprintf("a/%s", relpath) : rt_xstrdup("/dev/null");
	lb = new_text ? rt_xasprintf("b/%s", relpath) : rt_xstrdup("/dev/null");
	if (write_file(oldf, old_text ? old_text : "") < 0 ||
	    write_file(newf, new_text ? new_text : "") < 0 || pipe(pfd) < 0)
		goto done;
	fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
	fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
	argv[0] = "diff"; argv[1] = "-u"; argv[2] = "-L"; argv[3] = la;
	argv[4] = "-L"; argv[5] = lb; argv[6] = oldf; argv[7] = newf; argv[8] = NULL;
	env = child_env();
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addclose(&fa, pfd[0]);
	rt_spawn_closefrom(&fa, 3);
	st = posix_spawnp(&pid, "diff", &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	close(pfd[1]);
	if (st != 0) {
		close(pfd[0]);
		goto done;
	}
	while ((r = read(pfd[0], tmp, sizeof tmp)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		rt_buf_add(&out, tmp, (size_t)r);
	}
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			goto done;
	/* diff(1): 0 identical, 1 different, 2 trouble */
	if (WIFEXITED(st) && WEXITSTATUS(st) == 1 && out.len > 0)
		rc = 0;
done:
	unlink(oldf);
	unlink(newf);
	rmdir(dir);
	free(oldf);
	free(newf);
	free(la);
	free(lb);
	free(dir);
	if (rc < 0) {
		rt_buf_free(&out);
		return NULL;
	}
	return out.data;
}

/* The first lines of patch(1)'s output that say what went wrong. */
static void
patch_reason(const char *out, int status, char *err, size_t errsize)
{
	rt_buf b = {0};
	const char *p = out, *e;
	int lines = 0;

	while (p && *p && lines < 4) {
		size_t n;
		e = strchr(p, '\n');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n && strncmp(p, "patching file", 13) != 0 && strncmp(p, "checking file", 13) != 0) {
			if (b.len)
				rt_buf_adds(&b, "; ");
			rt_buf_add(&b, p, n);
			lines++;
		}
		p = e ? e + 1 : NULL;
	}
	if (b.len)
		snprintf(err, errsize, "patch: %s", b.data);
	else
		snprintf(err, errsize, "patch: exit status %d", status);
	rt_buf_free(&b);
}

/* The canonical text of parsed sections: a/ and b/ names, recounted hunks. */
static char *
canon_text(const pdiff *d)
{
	rt_buf canon = {0};
	size_t i;

	for (i = 0; i < d->n; i++) {
		if (d->f[i].oldp)
			rt_buf_printf(&canon, "--- a/%s\n", d->f[i].oldp);
		else
			rt_buf_adds(&canon, "--- /dev/null\n");
		if (d->f[i].newp)
			rt_buf_printf(&canon, "+++ b/%s\n", d->f[i].newp);
		else
			rt_buf_adds(&canon, "+++ /dev/null\n");
		rt_buf_add(&canon, d->f[i].hunks.data, d->f[i].hunks.len);
	}
	rt_buf_str(&canon);
	return canon.data;
}

char *
rt_patch_canonical(const char *diff, char *err, size_t errsize)
{
	pdiff d;
	char *c;

	if (parse(diff, &d, err, errsize) < 0)
		return NULL;
	c = canon_text(&d);
	pdiff_free(&d);
	return c;
}

int
rt_patch_path_inside(const char *dir, const char *rel)
{
	char *rd = realpath(dir, NULL), *p, *r;
	size_t rl, k;
	struct stat st;
	int ok = 1;

	if (!rd)
		return 0;
	rl = strlen(rd);
	p = rt_xasprintf("%s/%s", dir, rel);
	k = strlen(dir) + 1;
	/* each existing prefix of rel, shortest first */
	while (ok) {
		size_t e = k;
		char save;
		while (p[e] && p[e] != '/')
			e++;
		save = p[e];
		p[e] = '\0';
		if (lstat(p, &st) < 0) {
			p[e] = save;
			break;  /* the rest does not exist yet: patch creates it here */
		}
		if (S_ISLNK(st.st_mode)) {
			/* the file itself a link, or a link that leads out */
			if (!save || !(r = realpath(p, NULL)))
				ok = 0;
			else {
				ok = strncmp(r, rd, rl) == 0 && (r[rl] == '/' || r[rl] == '\0');
				free(r);
			}
		}
		p[e] = save;
		if (!save)
			break;
		k = e + 1;
	}
	free(p);
	free(rd);
	return ok;
}

int
rt_patch_apply(const char *dir, const char *diff, char *err, size_t errsize)
{
	pdiff d;
	char *canon_buf = NULL;
	char *tdir, *inf = NULL, *outf = NULL, *out;
	char *argv[] = { "patch", "-p1", "--fuzz=0", "--batch", "--forward",
	    "--no-backup-if-mismatch", "--reject-file=-", "-d", (char *)dir, NULL };
	size_t i;
	int in_fd = -1, out_fd = -1, rc = -1, st;
	struct stat sb;

	if (stat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		snprintf(err, errsize, "%s: not a directory", dir);
		return -1;
	}
	if (parse(diff, &d, err, errsize) < 0)
		return -1;
	/* no path may go through a symbolic link that leads out of dir, nor
	 * be a link itself: not every patch(1) refuses to follow them */
	for (i = 0; i < d.n; i++) {
		const char *p = d.f[i].newp ? d.f[i].newp : d.f[i].oldp;
		if (!rt_patch_path_inside(dir, p) ||
		    (d.f[i].oldp && !rt_patch_path_inside(dir, d.f[i].oldp))) {
			char q[80];
			quote(q, sizeof q, p, strlen(p));
			snprintf(err, errsize, "unsafe path \"%s\": it is a symbolic link, "
			    "or goes through one that leads outside the directory", q);
			pdiff_free(&d);
			return -1;
		}
	}
	/* patch(1) only ever sees what was checked: the file sections we
	 * parsed, under a/ and b/ names, with recounted hunks. */
	canon_buf = canon_text(&d);
	pdiff_free(&d);
	tdir = tmpdir_base();
	if (!mkdtemp(tdir)) {
		snprintf(err, errsize, "mkdtemp: %s", strerror(errno));
		free(tdir);
		free(canon_buf);
		return -1;
	}
	inf = rt_xasprintf("%s/diff", tdir);
	outf = rt_xasprintf("%s/out", tdir);
	if (write_file(inf, canon_buf) < 0 ||
	    (in_fd = open(inf, O_RDONLY | O_CLOEXEC)) < 0 ||
	    (out_fd = open(outf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
		snprintf(err, errsize, "%s: %s", tdir, strerror(errno));
		goto done;
	}
	st = run(argv, in_fd, out_fd);
	if (st < 0) {
		snprintf(err, errsize, "cannot run patch: %s", strerror(errno));
		goto done;
	}
	if (st == 0) {
		rc = 0;
		goto done;
	}
	out = rt_read_file(outf, NULL);
	patch_reason(out, st, err, errsize);
	free(out);
done:
	if (in_fd >= 0)
		close(in_fd);
	if (out_fd >= 0)
		close(out_fd);
	unlink(inf);
	unlink(outf);
	rmdir(tdir);
	free(inf);
	free(outf);
	free(tdir);
	free(canon_buf);
	return rc;
}

/* Paths whose change runs code outside the test (CI, hooks) or changes
 * what git fetches and how it checks files out (rt-verify(1), DANGEROUS
 * PATHS). A "dir/" entry matches the first component; a plain name
 * matches the last one, in any directory. Case-insensitive, for
 * case-insensitive file systems. */
static const struct {
	const char *name, *kind;
} danger[] = {
	{ ".github/", "CI configuration" },
	{ ".gitlab/", "CI configuration" },
	{ ".circleci/", "CI configuration" },
	{ ".buildkite/", "CI configuration" },
	{ ".gitlab-ci.yml", "CI configuration" },
	{ "Jenkinsfile", "CI configuration" },
	{ ".travis.yml", "CI configuration" },
	{ "azure-pipelines.yml", "CI configuration" },
	{ "bitbucket-pipelines.yml", "CI configuration" },
	{ ".drone.yml", "CI configuration" },
	{ "appveyor.yml", "CI configuration" },
	{ ".gitmodules", "git submodules" },
	{ ".gitattributes", "git attributes" },
	{ ".husky/", "git hooks" },
	{ ".githooks/", "git hooks" },
	/* pre-commit runs these hooks on every contributor's commit and in
	 * pre-commit.ci: a hook under another name */
	{ ".pre-commit-config.yaml", "git hooks" },
	{ NULL, NULL }
};

const char *
rt_patch_danger(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i, k;

	base = base ? base + 1 : path;
	for (i = 0; danger[i].name; i++) {
		k = strlen(danger[i].name);
		if (danger[i].name[k - 1] == '/') {
			if (strncasecmp(path, danger[i].name, k) == 0)
				return danger[i].kind;
		} else if (strcasecmp(base, danger[i].name) == 0)
			return danger[i].kind;
	}
	return NULL;
}

const char *
rt_patch_allowed(const char *path, char *const *allow, size_t nallow)
{
	size_t i;

	for (i = 0; i < nallow; i++)
		if (fnmatch(allow[i], path, 0) == 0)
			return allow[i];
	return NULL;
}

int
rt_patch_dangerous(char *const *paths, size_t n, char *const *allow,
    size_t nallow, char *why, size_t whysize)
{
	size_t i;
	const char *kind;
	char q[80];

	for (i = 0; i < n; i++) {
		if (!(kind = rt_patch_danger(paths[i])) ||
		    rt_patch_allowed(paths[i], allow, nallow))
			continue;
		quote(q, sizeof q, paths[i], strlen(paths[i]));
		snprintf(why, whysize, "touches %s %s", kind, q);
		return 1;
	}
	return 0;
}
