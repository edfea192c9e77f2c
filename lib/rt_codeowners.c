/* rt_codeowners: CODEOWNERS parsed and matched as GitHub does ("Order is
 * important; the last matching pattern takes the most precedence"). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_codeowners.h"
#include "rt_util.h"

static int
bad(char *err, size_t size, const char *path, long line, const char *fmt, const char *arg)
{
	int n = snprintf(err, size, "%s:%ld: ", path, line);

	if (n >= 0 && (size_t)n < size)
		snprintf(err + n, size - (size_t)n, fmt, arg);
	return -1;
}

static int
owner_ok(const char *o)
{
	const char *at = strchr(o, '@'), *p;
	int slash = 0;

	if (*o == '@') {
		if (!o[1])
			return 0;
		for (p = o + 1; *p; p++) {
			if (*p == '/' && !slash && p > o + 1 && p[1])
				slash = 1;
			else if (!isalnum((unsigned char)*p) && !strchr("-_.", *p))
				return 0;
		}
		return 1;
	}
	return at && at > o && strchr(at + 1, '.') && !strchr(at + 1, '@');
}

int
rt_codeowners_parse(const char *text, const char *path, rt_codeowners *c, char *err,
    size_t errsize)
{
	const char *s = text, *nl;
	char *line, *p, *pat, *o, *save;
	long no = 0;
	rt_buf owners;

	memset(c, 0, sizeof *c);
	for (; *s; s = nl ? nl + 1 : s + strlen(s)) {
		nl = strchr(s, '\n');
		line = rt_xasprintf("%.*s", (int)(nl ? nl - s : (ptrdiff_t)strlen(s)), s);
		no++;
		/* an unescaped '#' starts a comment */
		for (p = line; *p; p++) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '#') {
				*p = '\0';
				break;
			}
		}
		if (!(pat = strtok_r(line, " \t\r", &save))) {
			free(line);
			continue;
		}
		if (*pat == '!' || strchr(pat, '[')) {
			bad(err, errsize, path, no, *pat == '!' ? "%s: negation ('!') is not "
			    "supported in CODEOWNERS" : "%s: character ranges ('[') are not "
			    "supported in CODEOWNERS", pat);
			free(line);
			rt_codeowners_free(c);
			return -1;
		}
		memset(&owners, 0, sizeof owners);
		rt_buf_adds(&owners, "");
		while ((o = strtok_r(NULL, " \t\r", &save))) {
			if (!owner_ok(o)) {
				bad(err, errsize, path, no, "%s: not an owner (@user, @org/team or "
				    "an e-mail address)", o);
				free(owners.data);
				free(line);
				rt_codeowners_free(c);
				return -1;
			}
			if (owners.len)
				rt_buf_addc(&owners, ' ');
			rt_buf_adds(&owners, o);
		}
		c->r = rt_xrealloc(c->r, (c->n + 1) * sizeof *c->r);
		c->r[c->n].pattern = rt_xstrdup(pat);
		c->r[c->n].owners = owners.data;
		c->r[c->n++].line = no;
		free(line);
	}
	return 0;
}

void
rt_codeowners_free(rt_codeowners *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free(c->r[i].pattern);
		free(c->r[i].owners);
	}
	free(c->r);
	memset(c, 0, sizeof *c);
}

/* gitignore globs: '*' and '?' stop at '/', "**" crosses it, '\' escapes. */
static int
glob(const char *p, const char *s)
{
	for (; *p; p++, s++) {
		if (p[0] == '*' && p[1] == '*') {
			p += 2;
			if (*p == '/') {         /* "**" "/": zero or more directories */
				p++;
				for (;; s++) {
					if (glob(p, s))
						return 1;
					s = strchr(s, '/');
					if (!s)
						return 0;
				}
			}
			for (;; s++) {
				if (glob(p, s))
					return 1;
				if (!*s)
					return 0;
			}
		}
		if (*p == '*') {
			for (;; s++) {
				if (glob(p + 1, s))
					return 1;
				if (!*s || *s == '/')
					return 0;
			}
		}
		if (!*s)
			return 0;
		if (*p == '?') {
			if (*s == '/')
				return 0;
			continue;
		}
		if (*p == '\\' && p[1])
			p++;
		if (*p != *s)
			return 0;
	}
	return *s == '\0';
}

/* Does pat match path or one of its directories? A pattern with a '/'
 * before its end is anchored at the top; one without matches at any
 * depth; one ending in '/' matches directories only. */
static int
matches(const char *pat, const char *path)
{
	char *p = rt_xstrdup(pat[0] == '/' ? pat + 1 : pat), *q;
	size_t n = strlen(p);
	int dir_only = n > 0 && p[n - 1] == '/', anchored, hit = 0, files_only;
	const char *s, *end;

	if (dir_only)
		p[--n] = '\0';
	anchored = pat[0] == '/' || strchr(p, '/') != NULL;
	/* GitHub: "docs/ *" (no blank) owns docs/a.md, not docs/build/b.md */
	files_only = n >= 2 && strcmp(p + n - 2, "/*") == 0;
	if (strcmp(pat, "*") == 0) {
		free(p);
		return 1;
	}
	for (s = path; s && !hit; s = anchored ? NULL : (s = strchr(s, '/')) ? s + 1 : NULL) {
		/* s and each of its directory prefixes */
		for (end = s; !hit; end++) {
			if (*end == '/' || *end == '\0') {
				if (*end ? !files_only : !dir_only) {
					q = rt_xasprintf("%.*s", (int)(end - s), s);
					hit = glob(p, q);
					free(q);
				}
				if (!*end)
					break;
			}
		}
	}
	free(p);
	return hit;
}

const char *
rt_codeowners_match(const rt_codeowners *c, const char *path)
{
	size_t i = c->n;

	while (path[0] == '.' && path[1] == '/')
		path += 2;
	while (i-- > 0)
		if (matches(c->r[i].pattern, path))
			return c->r[i].owners;
	return NULL;
}

char *
rt_codeowners_find(const char *top)
{
	static const char *const where[] = { ".github/CODEOWNERS", "CODEOWNERS",
	    "docs/CODEOWNERS" };
	struct stat st;
	char *p;
	size_t i;

	for (i = 0; i < 3; i++) {
		p = rt_xasprintf("%s/%s", top, where[i]);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
			return p;
		free(p);
	}
	return NULL;
}

char *
rt_codeowners_test_file(const char *id)
{
	const char *sep = strstr(id, "::");

	return sep ? rt_xasprintf("%.*s", (int)(sep - id), id) : rt_xstrdup(id);
}
