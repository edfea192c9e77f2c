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

/* gitignore globs: '*' and '?' stop at '/', "**" crosses it, "**" "/" is
 * zero or more directories, '\\' escapes. A pattern is compiled to a list
 * of steps and run as a set of states (a Thompson NFA), so matching a
 * path costs the path's length times the pattern's, whatever the stars:
 * a backtracking matcher took exponential time on "a*a*a*...b". */
/* "**" "/" is two steps: G_DIRS, no directory (on to the step after the
 * next) or some (into G_IN, which ends only with a '/'). */
enum { G_LIT, G_ANY, G_STAR, G_DSTAR, G_DIRS, G_IN };

typedef struct {
	unsigned char *op, *ch;
	size_t n;
	unsigned char *cur, *nxt;  /* state sets: n + 1 flags */
} glob_prog;

static void
glob_compile(const char *p, glob_prog *g)
{
	size_t m = strlen(p) + 1;

	g->op = rt_xmalloc(m + 1);
	g->ch = rt_xmalloc(m + 1);
	g->cur = rt_xmalloc(m + 1);
	g->nxt = rt_xmalloc(m + 1);
	g->n = 0;
	while (*p) {
		g->ch[g->n] = 0;
		if (p[0] == '*' && p[1] == '*' && p[2] == '/') {
			g->op[g->n++] = G_DIRS;
			g->ch[g->n] = 0;
			g->op[g->n] = G_IN;
			p += 3;
		} else if (p[0] == '*' && p[1] == '*') {
			g->op[g->n] = G_DSTAR;
			p += 2;
		} else if (*p == '*' || *p == '?') {
			g->op[g->n] = *p++ == '*' ? G_STAR : G_ANY;
		} else {
			if (*p == '\\' && p[1])
				p++;
			g->op[g->n] = G_LIT;
			g->ch[g->n] = (unsigned char)*p++;
		}
		g->n++;
	}
}

static void
glob_free(glob_prog *g)
{
	free(g->op);
	free(g->ch);
	free(g->cur);
	free(g->nxt);
}

/* Add state i to set, with the states an empty match reaches. */
static void
glob_add(const glob_prog *g, unsigned char *set, size_t i)
{
	while (!set[i]) {
		set[i] = 1;
		if (i == g->n || g->op[i] == G_LIT || g->op[i] == G_ANY || g->op[i] == G_IN)
			break;
		if (g->op[i] == G_DIRS) {
			set[i + 1] = 1;
			i += 2;
		} else {
			i++;
		}
	}
}

/* Does pat match path or one of its directories? A pattern with a '/'
 * before its end is anchored at the top; one without matches at any
 * depth; one ending in '/' matches directories only. Every start (the
 * top, or after each '/' when not anchored) and every end (each '/' and
 * the end) is tried in one pass: a start adds the first state, an end
 * accepts when the last state is live. */
static int
matches(const char *pat, const char *path)
{
	char *p = rt_xstrdup(pat[0] == '/' ? pat + 1 : pat);
	size_t n = strlen(p), i;
	int dir_only = n > 0 && p[n - 1] == '/', anchored, hit = 0, files_only, live;
	const char *s;
	unsigned char c, *t;
	glob_prog g;

	if (dir_only)
		p[--n] = '\0';
	anchored = pat[0] == '/' || strchr(p, '/') != NULL;
	/* GitHub: "docs/ *" (no blank) owns docs/a.md, not docs/build/b.md */
	files_only = n >= 2 && strcmp(p + n - 2, "/*") == 0;
	if (strcmp(pat, "*") == 0) {
		free(p);
		return 1;
	}
	glob_compile(p, &g);
	free(p);
	memset(g.cur, 0, g.n + 1);
	for (s = path; !hit; s++) {
		if (s == path || (!anchored && s[-1] == '/'))
			glob_add(&g, g.cur, 0);
		if ((*s == '/' || *s == '\0') && g.cur[g.n] && (*s ? !files_only : !dir_only))
			hit = 1;
		if (!*s || hit)
			break;
		c = (unsigned char)*s;
		memset(g.nxt, 0, g.n + 1);
		live = 0;
		for (i = 0; i < g.n; i++) {
			if (!g.cur[i])
				continue;
			live = 1;
			switch (g.op[i]) {
			case G_LIT:
				if (c == g.ch[i])
					glob_add(&g, g.nxt, i + 1);
				break;
			case G_ANY:
				if (c != '/')
					glob_add(&g, g.nxt, i + 1);
				break;
			case G_STAR:
				if (c != '/')
					glob_add(&g, g.nxt, i);
				break;
			case G_DSTAR:
				glob_add(&g, g.nxt, i);
				break;
			case G_IN:
				g.nxt[i] = 1;
				if (c == '/')
					glob_add(&g, g.nxt, i + 1);
				break;
			}
		}
		t = g.cur;
		g.cur = g.nxt;
		g.nxt = t;
		/* nothing live and no start to come: no match */
		if (!live && anchored && s > path)
			break;
	}
	glob_free(&g);
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
