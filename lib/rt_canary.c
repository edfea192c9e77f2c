/* rt_canary: the dynamic canary of rt-verify — in a scratch copy of a
 * lane, invert one of the judged test's own checks, so a test that still
 * passes is shown not to test (rt_canary.h); and the failing tests'
 * locations in a runner's output, which say where to place it. */
#include <sys/stat.h>
#include <sys/types.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_canary.h"
#include "rt_runner.h"
#include "rt_src.h"
#include "rt_srctext.h"
#include "rt_util.h"


/* A one-line "assert EXPR[, msg]": balanced brackets and quotes, no
 * continuation. Fills expr and msg (msg may be empty). */
static int
one_line_assert(const char *line, size_t *indent, char *expr, char *msg, size_t size)
{
	const char *p = line, *e, *comma = NULL;
	int depth = 0;
	char q = 0;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	*indent = (size_t)(p - line);
	if (strncmp(p, "assert", 6) != 0 || !(p[6] == ' ' || p[6] == '('))
		return 0;
	p += 6;
	while (*p == ' ')
		p++;
	for (e = p; *e; e++) {
		if (q) {
			if (*e == '\\' && e[1])
				e++;
			else if (*e == q)
				q = 0;
		} else if (*e == '"' || *e == '\'') {
			q = *e;
		} else if (*e == '(' || *e == '[' || *e == '{') {
			depth++;
		} else if (*e == ')' || *e == ']' || *e == '}') {
			depth--;
		} else if (*e == ',' && depth == 0 && !comma) {
			comma = e;
		} else if (*e == '#' && depth == 0) {
			break;
		}
	}
	if (q || depth != 0)
		return 0;
	n = strlen(p);
	while (n > 0 && isspace((unsigned char)p[n - 1]))
		n--;
	if (n == 0 || p[n - 1] == '\\' || p[n - 1] == ':')
		return 0;
	if (comma) {
		snprintf(expr, size, "%.*s", (int)(comma - p), p);
		snprintf(msg, size, "%.*s", (int)(p + n - comma - 1), comma + 1);
	} else {
		snprintf(expr, size, "%.*s", (int)n, p);
		msg[0] = '\0';
	}
	rt_st_trim(expr);
	rt_st_trim(msg);
	return *expr != '\0';
}

/* ---- failing locations in a runner's output ---- */

static void
loc_add(rt_failing_loc *locs, size_t *n, size_t max, const char *file, size_t flen,
    long line, const char *cls, size_t clen, const char *test, size_t tlen, int raised)
{
	rt_failing_loc l;
	size_t i;

	memset(&l, 0, sizeof l);
	snprintf(l.file, sizeof l.file, "%.*s", (int)flen, file ? file : "");
	snprintf(l.cls, sizeof l.cls, "%.*s", (int)clen, cls ? cls : "");
	snprintf(l.test, sizeof l.test, "%.*s", (int)tlen, test ? test : "");
	l.line = line;
	l.raised = raised;
	for (i = 0; i < *n; i++)
		if (!strcmp(locs[i].file, l.file) && locs[i].line == l.line &&
		    !strcmp(locs[i].cls, l.cls) && !strcmp(locs[i].test, l.test)) {
			locs[i].raised |= raised;
			return;
		}
	if (*n < max)
		locs[(*n)++] = l;
}

/* A pytest node id "f.py::C::t[p]" (up to a blank or " - "). */
static void
loc_node(rt_failing_loc *locs, size_t *n, size_t max, const char *p, size_t len)
{
	const char *e = p + len, *c1, *last = NULL, *prev = NULL, *q;
	size_t tl;

	c1 = strstr(p, "::");
	if (!c1 || c1 >= e)
		return;
	for (q = c1; q && q < e; q = strstr(q + 2, "::")) {
		prev = last;
		last = q;
	}
	tl = strcspn(last + 2, "[ ");
	if (last + 2 + tl > e)
		tl = (size_t)(e - last - 2);
	loc_add(locs, n, max, p, (size_t)(c1 - p), 0,
	    prev ? prev + 2 : NULL, prev ? (size_t)(last - prev - 2) : 0,
	    last + 2, tl, 0);
}

/* A block of frames ends: unless one is marked, its deepest frame with a
 * line is where the failure was raised. */
static void
mark_raised(rt_failing_loc *locs, size_t first, size_t n)
{
	size_t k, last = n;

	for (k = first; k < n; k++) {
		if (locs[k].line > 0 && locs[k].raised)
			return;
		if (locs[k].line > 0)
			last = k;
	}
	if (last < n)
		locs[last].raised = 1;
}

size_t
rt_failing_locations(const char *out, rt_failing_loc *locs, size_t max)
{
	const char *p = out, *e, *q, *r;
	size_t n = 0, first = 0, len;
	long ln;
	char buf[600];

	if (!out)
		return 0;
	for (;;) {
		e = strchr(p, '\n');
		len = e ? (size_t)(e - p) : strlen(p);
		if (len > 0 && p[len - 1] == '\r')
			len--;
		snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), p);
		q = rt_st_skip_space(buf);
		if (!strncmp(buf, "___", 3) || !strncmp(buf, "===", 3) ||
		    !strncmp(buf, "---", 3) || !strncmp(buf, "Traceback (most recent", 22) ||
		    !strncmp(buf, "FAIL: ", 6) || !strncmp(buf, "ERROR: ", 7)) {
			/* a block ends: its deepest frame is where it was raised */
			mark_raised(locs, first, n);
			first = n;
		}
		if (!strncmp(q, "File \"", 6) && (r = strchr(q + 6, '"')) &&
		    sscanf(r, "\", line %ld, in", &ln) == 1) {
			const char *fn = strstr(r, ", in ");
			fn = fn ? fn + 5 : "";
			loc_add(locs, &n, max, q + 6, (size_t)(r - q - 6), ln, NULL, 0,
			    fn, strcspn(fn, " \t"), 0);
		} else if ((!strncmp(buf, "FAIL: ", 6) || !strncmp(buf, "ERROR: ", 7)) &&
		    (r = strchr(buf, '('))) {
			/* unittest: "FAIL: test_x (pkg.mod.Class.test_x)" */
			char mod[512], *dot, *cls;
			const char *name = buf + (buf[0] == 'F' ? 6 : 7);
			size_t nl = strcspn(name, " ("), ml = strcspn(r + 1, ")");
			snprintf(mod, sizeof mod, "%.*s", (int)ml, r + 1);
			dot = strrchr(mod, '.');
			if (dot && strlen(dot + 1) == nl && !strncmp(dot + 1, name, nl))
				*dot = '\0';
			cls = strrchr(mod, '.');
			if (cls) {
				char cb[128];
				snprintf(cb, sizeof cb, "%.127s", cls + 1);
				*cls = '\0';
				for (dot = mod; *dot; dot++)
					if (*dot == '.')
						*dot = '/';
				strncat(mod, ".py", sizeof mod - strlen(mod) - 1);
				loc_add(locs, &n, max, mod, strlen(mod), 0, cb, strlen(cb),
				    name, nl, 0);
			} else {
				loc_add(locs, &n, max, NULL, 0, 0, mod, strlen(mod), name, nl, 0);
			}
		} else if (!strncmp(q, "--- FAIL: ", 10)) {
			r = q + 10;
			loc_add(locs, &n, max, NULL, 0, 0, NULL, 0, r, strcspn(r, " /("), 0);
		} else if (!strncmp(buf, "FAILED ", 7)) {
			r = buf + 7;
			loc_node(locs, &n, max, r, strcspn(r, " "));
		} else if (buf[0] != ' ' && (r = strstr(buf, " FAILED")) &&
		    (size_t)(r - buf) == strcspn(buf, " ") && strstr(buf, "::") &&
		    strstr(buf, "::") < r) {
			loc_node(locs, &n, max, buf, (size_t)(r - buf));
		} else if ((r = strstr(q, "_test.go:")) && q != buf &&
		    sscanf(r + 9, "%ld:", &ln) == 1) {
			loc_add(locs, &n, max, q, (size_t)(r + 8 - q), ln, NULL, 0, NULL, 0, 1);
		} else if (buf[0] != ' ' && (r = strstr(buf, ".py:")) &&
		    (size_t)(r - buf) < strcspn(buf, " ") && isdigit((unsigned char)r[4]) &&
		    sscanf(r + 4, "%ld", &ln) == 1 && r[4 + strspn(r + 4, "0123456789")] == ':') {
			/* pytest: "f.py:12: AssertionError", "f.py:6: in test_x", "f.py:6: " */
			const char *rest = rt_st_skip_space(r + 5 + strspn(r + 4, "0123456789"));
			if (!strncmp(rest, "in ", 3))
				loc_add(locs, &n, max, buf, (size_t)(r + 3 - buf), ln, NULL, 0,
				    rest + 3, strcspn(rest + 3, " "), 0);
			else
				loc_add(locs, &n, max, buf, (size_t)(r + 3 - buf), ln, NULL, 0,
				    NULL, 0, *rest != '\0');
		}
		if (!e)
			break;
		p = e + 1;
	}
	mark_raised(locs, first, n);
	return n;
}

/* ---- the canary: find the test the command runs ---- */

struct src {
	char *rel;
	int lang, loaded, ok;
	struct rt_st_text t;
	struct rt_st_fns fns;
	int inv_state;          /* 0 not read, 1 read, -1 no inventory */
	rt_src_inv inv;         /* the parser's checks, for statements over lines */
};

/* The tree the canary works in (for the parser helper), and how far the
 * statement inverted last extends: invert_line's multi-line assert
 * replaces its first line and blanks the rest (line numbers kept). */
static const char *canary_dir;
static const char *canary_trusted;  /* the original project: the parsers' */
static long span_end;

struct tree {
	const char *dir;
	struct src *v;
	size_t n, cap;
};

static void
tree_walk(struct tree *tr, const char *rel, int depth)
{
	static const char *const skip[] = {
		"node_modules", "__pycache__", "venv", "site-packages", "vendor", NULL
	};
	char *path = rel ? rt_xasprintf("%s/%s", tr->dir, rel) : rt_xstrdup(tr->dir);
	DIR *d = opendir(path);
	struct dirent *de;
	struct stat st;
	size_t i, n;
	char *sub, *full;

	free(path);
	if (!d)
		return;
	while ((de = readdir(d)) && tr->n < 5000) {
		if (de->d_name[0] == '.')
			continue;
		for (i = 0; skip[i] && strcmp(skip[i], de->d_name); i++)
			;
		if (skip[i])
			continue;
		sub = rel ? rt_xasprintf("%s/%s", rel, de->d_name) : rt_xstrdup(de->d_name);
		full = rt_xasprintf("%s/%s", tr->dir, sub);
		if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode) && depth < 12) {
			tree_walk(tr, sub, depth + 1);
		} else if (S_ISREG(st.st_mode) && (n = strlen(sub)) > 3 &&
		    (!strcmp(sub + n - 3, ".py") || (n > 8 && !strcmp(sub + n - 8, "_test.go")))) {
			if (tr->n == tr->cap) {
				tr->cap = tr->cap ? tr->cap * 2 : 64;
				tr->v = rt_xrealloc(tr->v, tr->cap * sizeof *tr->v);
			}
			memset(&tr->v[tr->n], 0, sizeof tr->v[0]);
			tr->v[tr->n].rel = sub;
			tr->v[tr->n].lang = rt_st_lang_of(sub, NULL);
			tr->n++;
			sub = NULL;
		}
		free(sub);
		free(full);
	}
	closedir(d);
}

static struct src *
src_load(struct tree *tr, struct src *s)
{
	char *path, *data;
	size_t len;

	if (!s)
		return NULL;
	if (!s->loaded) {
		s->loaded = 1;
		path = rt_xasprintf("%s/%s", tr->dir, s->rel);
		data = rt_read_file(path, &len);
		free(path);
		if (!data || memchr(data, '\0', len)) {
			free(data);
			return NULL;
		}
		rt_st_text_load(&s->t, data, s->lang);
		free(data);
		rt_st_functions(&s->t, s->lang, &s->fns);
		s->ok = 1;
	}
	return s->ok ? s : NULL;
}

/* The file a runner printed (relative, absolute from another copy, a Go
 * basename, a module path): exact, else the longest suffix on a path
 * component boundary. */
static struct src *
tree_find(struct tree *tr, const char *printed)
{
	struct src *best = NULL;
	size_t i, n, m, bestn = 0;
	const char *p = printed;

	while (!strncmp(p, "./", 2))
		p += 2;
	n = strlen(p);
	if (!n)
		return NULL;
	for (i = 0; i < tr->n; i++) {
		const char *r = tr->v[i].rel;
		m = strlen(r);
		if (!strcmp(r, p))
			return src_load(tr, &tr->v[i]);
		if (n > m && p[n - m - 1] == '/' && !strcmp(p + n - m, r) && m > bestn) {
			best = &tr->v[i];
			bestn = m;
		} else if (m > n && r[m - n - 1] == '/' && !strcmp(r + m - n, p) && !best) {
			best = &tr->v[i];
		}
	}
	return src_load(tr, best);
}

struct pick {
	struct src *s;
	struct rt_st_fn *fn;          /* NULL: the module level of a script */
};

struct picks { struct pick *v; size_t n, cap; };

static void
pick_add(struct picks *ps, struct src *s, struct rt_st_fn *fn)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		if (ps->v[i].s == s && ps->v[i].fn == fn)
			return;
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 16;
		ps->v = rt_xrealloc(ps->v, ps->cap * sizeof *ps->v);
	}
	ps->v[ps->n].s = s;
	ps->v[ps->n].fn = fn;
	ps->n++;
}

/* Tests of s named name (params stripped) in class cls ("" any, NULL:
 * every test of the file); a script without test functions is one test. */
static void
pick_tests(struct picks *ps, struct src *s, const char *cls, const char *name)
{
	size_t i, n0 = ps->n, nl = name ? strcspn(name, "[") : 0;
	struct rt_st_fn *f;

	if (!s)
		return;
	for (i = 0; i < s->fns.n; i++) {
		f = &s->fns.v[i];
		if (name) {
			if (strlen(f->name) != nl || strncmp(f->name, name, nl) != 0)
				continue;
			if (cls && *cls && strcmp(f->cls, cls) != 0)
				continue;
		} else if (cls && *cls) {
			if (!f->test || strcmp(f->cls, cls) != 0)
				continue;
		} else if (!f->test) {
			continue;
		}
		pick_add(ps, s, f);
	}
	if (ps->n == n0 && !name && !(cls && *cls))
		pick_add(ps, s, NULL);
}

static int
pytest_named(const char *rel)
{
	const char *b = strrchr(rel, '/');
	size_t n;

	b = b ? b + 1 : rel;
	n = strlen(b);
	return (!strncmp(b, "test_", 5) || (n > 8 && !strcmp(b + n - 8, "_test.py"))) &&
	    n > 3 && !strcmp(b + n - 3, ".py");
}

/* -k EXPR: the test (or class) names holding one of its words, the words
 * after "not" excepted. */
static void
pick_k(struct tree *tr, struct picks *ps, const char *expr, struct picks *files)
{
	char *w[32], word[128];
	size_t nw = 0, i, j, k;
	const char *p = expr;
	int neg = 0, isneg[32];
	struct src *s;

	while (*p && nw < 32) {
		if (!rt_st_is_ident(*p)) {
			p++;
			continue;
		}
		rt_st_copy_ident(p, word, sizeof word);
		p += strlen(word);
		if (!strcmp(word, "not")) {
			neg = 1;
			continue;
		}
		if (!strcmp(word, "and") || !strcmp(word, "or"))
			continue;
		isneg[nw] = neg;
		neg = 0;
		w[nw++] = rt_xstrdup(word);
	}
	for (i = 0; i < tr->n; i++) {
		if (files->n) {
			for (k = 0; k < files->n && files->v[k].s != &tr->v[i]; k++)
				;
			if (k == files->n)
				continue;
		} else if (!pytest_named(tr->v[i].rel)) {
			continue;
		}
		if (!(s = src_load(tr, &tr->v[i])))
			continue;
		for (j = 0; j < s->fns.n; j++) {
			int in = 0, out = 0, anypos = 0;
			if (!s->fns.v[j].test)
				continue;
			for (k = 0; k < nw; k++) {
				int m = strstr(s->fns.v[j].name, w[k]) || strstr(s->fns.v[j].cls, w[k]);
				anypos |= !isneg[k];
				if (m && isneg[k])
					out = 1;
				else if (m)
					in = 1;
			}
			if (!out && (in || !anypos))
				pick_add(ps, s, &s->fns.v[j]);
		}
	}
	for (k = 0; k < nw; k++)
		free(w[k]);
}

/* pytest's selections of one segment: node IDs picked, paths (files, or
 * the test files under a directory) filtered by -k. */
static void
sel_pytest(struct tree *tr, struct picks *ps, const rt_runner_sel *sel, size_t n)
{
	struct picks files = { 0 };
	const char *k = NULL;
	size_t i, j, len;
	char file[512];

	for (i = 0; i < n; i++) {
		const char *w = sel[i].text;
		if (sel[i].kind == RT_SEL_KEXPR) {
			k = w;
		} else if (sel[i].kind == RT_SEL_NODE) {
			const char *c1 = strstr(w, "::"), *last = c1, *prev = NULL, *q;
			for (q = c1; q; q = strstr(q + 2, "::")) {
				prev = last == q ? prev : last;
				last = q;
			}
			snprintf(file, sizeof file, "%.*s", (int)(c1 - w), w);
			if (last == c1) {
				/* "f.py::Class" or "f.py::test" */
				struct src *s = tree_find(tr, file);
				size_t n0 = ps->n;
				pick_tests(ps, s, "", last + 2);
				if (ps->n == n0)
					pick_tests(ps, s, last + 2, NULL);
			} else {
				char cls[128];
				snprintf(cls, sizeof cls, "%.*s", (int)(last - prev - 2), prev + 2);
				pick_tests(ps, tree_find(tr, file), cls, last + 2);
			}
		} else if (sel[i].kind == RT_SEL_PATH) {
			len = strlen(w);
			while (len > 1 && w[len - 1] == '/')
				len--;
			if (len > 3 && !strncmp(w + len - 3, ".py", 3)) {
				struct src *s = tree_find(tr, w);
				if (s)
					pick_add(&files, s, NULL);
			} else {
				/* a directory: the test files under it */
				const char *d = w;
				while (!strncmp(d, "./", 2))
					d += 2;
				len = strlen(d);
				while (len > 0 && d[len - 1] == '/')
					len--;
				for (j = 0; j < tr->n; j++)
					if (pytest_named(tr->v[j].rel) && (len == 0 || (len == 1 && *d == '.') ||
					    (!strncmp(tr->v[j].rel, d, len) && tr->v[j].rel[len] == '/')) &&
					    src_load(tr, &tr->v[j]))
						pick_add(&files, &tr->v[j], NULL);
			}
		}
	}
	if (k)
		pick_k(tr, ps, k, &files);
	else
		for (i = 0; i < files.n; i++)
			pick_tests(ps, files.v[i].s, NULL, NULL);
	free(files.v);
}

/* "pkg.mod.Class.test_x": the longest prefix that is a module file. */
static void
cmd_dotted(struct tree *tr, struct picks *ps, const char *name)
{
	char path[512], *parts[32], *copy = rt_xstrdup(name), *p;
	size_t np = 0, i, k;
	struct src *s = NULL;

	for (p = strtok(copy, "."); p && np < 32; p = strtok(NULL, "."))
		parts[np++] = p;
	for (k = np; k > 0 && !s; k--) {
		path[0] = '\0';
		for (i = 0; i < k; i++)
			snprintf(path + strlen(path), sizeof path - strlen(path), "%s%s",
			    i ? "/" : "", parts[i]);
		snprintf(path + strlen(path), sizeof path - strlen(path), ".py");
		for (i = 0; i < tr->n; i++)
			if (!strcmp(tr->v[i].rel, path))
				s = src_load(tr, &tr->v[i]);
		if (s)
			break;
	}
	if (s) {
		if (k + 2 <= np)
			pick_tests(ps, s, parts[k], parts[k + 1]);
		else if (k + 1 == np) {
			size_t n0 = ps->n;
			pick_tests(ps, s, parts[k], NULL);
			if (ps->n == n0)
				pick_tests(ps, s, "", parts[k]);
		} else
			pick_tests(ps, s, NULL, NULL);
	}
	free(copy);
}

/* go test's selections of one segment: the test functions of the packages
 * named (all when none), filtered by -run. */
static void
sel_go(struct tree *tr, struct picks *ps, const rt_runner_sel *sel, size_t n)
{
	const char *run = NULL, *pkg[16];
	size_t npkg = 0, i, j, k, len;
	regex_t re;
	int hasre;
	struct src *s;

	for (i = 0; i < n; i++)
		if (sel[i].kind == RT_SEL_GORUN)
			run = sel[i].text;
		else if (sel[i].kind == RT_SEL_GOPKG && npkg < 16)
			pkg[npkg++] = sel[i].text;
	hasre = run && regcomp(&re, run, REG_EXTENDED | REG_NOSUB) == 0;
	for (i = 0; i < tr->n; i++) {
		if (!(tr->v[i].lang & RT_L_GO))
			continue;
		for (k = 0; k < npkg; k++) {
			const char *d = pkg[k];
			int rec;
			while (!strncmp(d, "./", 2))
				d += 2;
			len = strlen(d);
			rec = len >= 3 && !strcmp(d + len - 3, "...");
			if (rec)
				len -= 3;
			while (len > 0 && (d[len - 1] == '/' || d[len - 1] == '.'))
				len--;
			if (len == 0 ? (rec || !strchr(tr->v[i].rel, '/')) :
			    !strncmp(tr->v[i].rel, d, len) && tr->v[i].rel[len] == '/' &&
			    (rec || !strchr(tr->v[i].rel + len + 1, '/')))
				break;
		}
		if (npkg && k == npkg)
			continue;
		if (!(s = src_load(tr, &tr->v[i])))
			continue;
		for (j = 0; j < s->fns.n; j++)
			if (s->fns.v[j].test && (!run || (hasre ?
			    regexec(&re, s->fns.v[j].name, 0, NULL, 0) == 0 :
			    !strcmp(s->fns.v[j].name, run))))
				pick_add(ps, s, &s->fns.v[j]);
	}
	if (hasre)
		regfree(&re);
}

/* The tests a command runs, as far as its words say: rt_runner_selections
 * reads the runner's options, this finds the selections in the tree. */
static void
command_tests(struct tree *tr, struct picks *ps, char **w, size_t n)
{
	rt_runner_sel sel[256];
	size_t ns = rt_runner_selections(w, n, sel, 256), i = 0, j;
	rt_pick_kind pk;

	while (i < ns) {
		for (j = i; j < ns && sel[j].segment == sel[i].segment; j++)
			;
		pk = rt_runner_of(sel[i].runner)->picks;
		if (pk == RT_PICK_PACKAGES) {
			sel_go(tr, ps, sel + i, j - i);
		} else if (pk == RT_PICK_COLLECT) {
			sel_pytest(tr, ps, sel + i, j - i);
		} else {
			/* unittest, python: files whole, dotted names resolved */
			size_t k;
			for (k = i; k < j; k++) {
				if (sel[k].kind == RT_SEL_DISCOVER)
					break;
				if (sel[k].kind == RT_SEL_DOTTED)
					cmd_dotted(tr, ps, sel[k].text);
				else if (sel[k].kind == RT_SEL_PATH)
					pick_tests(ps, tree_find(tr, sel[k].text), NULL, NULL);
			}
		}
		i = j;
	}
}

/* ---- the canary: invert one assertion ---- */

static const char *const py_inverse[][2] = {
	{ "assertEqual", "assertNotEqual" }, { "assertNotEqual", "assertEqual" },
	{ "assertEquals", "assertNotEqual" }, { "assertTrue", "assertFalse" },
	{ "assertFalse", "assertTrue" }, { "assertIn", "assertNotIn" },
	{ "assertNotIn", "assertIn" }, { "assertIs", "assertIsNot" },
	{ "assertIsNot", "assertIs" }, { "assertIsNone", "assertIsNotNone" },
	{ "assertIsNotNone", "assertIsNone" }, { "assertIsInstance", "assertNotIsInstance" },
	{ "assertNotIsInstance", "assertIsInstance" },
	{ "assertAlmostEqual", "assertNotAlmostEqual" },
	{ "assertNotAlmostEqual", "assertAlmostEqual" }, { "assertRegex", "assertNotRegex" },
	{ "assertNotRegex", "assertRegex" }, { "assertGreater", "assertLessEqual" },
	{ "assertLessEqual", "assertGreater" }, { "assertGreaterEqual", "assertLess" },
	{ "assertLess", "assertGreaterEqual" }, { "assertListEqual", "assertNotEqual" },
	{ "assertDictEqual", "assertNotEqual" }, { "assertTupleEqual", "assertNotEqual" },
	{ "assertSetEqual", "assertNotEqual" }, { "assertMultiLineEqual", "assertNotEqual" },
	{ NULL, NULL }
};

static const char *const go_inverse[][2] = {
	{ "Equal", "NotEqual" }, { "NotEqual", "Equal" }, { "EqualValues", "NotEqualValues" },
	{ "NotEqualValues", "EqualValues" }, { "True", "False" }, { "False", "True" },
	{ "Nil", "NotNil" }, { "NotNil", "Nil" }, { "NoError", "Error" }, { "Error", "NoError" },
	{ "Contains", "NotContains" }, { "NotContains", "Contains" }, { "Empty", "NotEmpty" },
	{ "NotEmpty", "Empty" }, { "Zero", "NotZero" }, { "NotZero", "Zero" },
	{ "Same", "NotSame" }, { "NotSame", "Same" }, { "Regexp", "NotRegexp" },
	{ "NotRegexp", "Regexp" }, { NULL, NULL }
};

/* Rename the method called at prefix (e.g. "self.") on the line through
 * table. */
static int
rename_call(const char *raw, const char *prefix, const char *const (*table)[2],
    rt_buf *out)
{
	const char *p = raw, *q;
	char name[64];
	size_t i, n;

	while ((p = strstr(p, prefix))) {
		if (p > raw && rt_st_is_ident(p[-1])) {
			p++;
			continue;
		}
		q = p + strlen(prefix);
		n = rt_st_copy_ident(q, name, sizeof name);
		if (n && *rt_st_skip_space(q + n) == '(')
			for (i = 0; table[i][0]; i++)
				if (!strcmp(name, table[i][0])) {
					rt_buf_add(out, raw, (size_t)(q - raw));
					rt_buf_adds(out, table[i][1]);
					rt_buf_adds(out, q + n);
					return 1;
				}
		p = q;
	}
	return 0;
}

/* Line i of s inverted into out: 1, or 0 when it is no invertible
 * assertion. */
/* s as the language's parser reads it (read once), or NULL: no parser
 * here, or not Python or Go (the text alone then). */
static const rt_src_inv *
src_inventory(struct src *s)
{
	char *files[1], why[400];
	const char *lang = s->lang & RT_L_PY ? "python" : s->lang & RT_L_GO ? "go" : NULL;

	if (s->inv_state == 0) {
		files[0] = s->rel;
		s->inv_state = lang && canary_dir && rt_src_inventory(lang, canary_dir,
		    canary_trusted, files, 1, NULL, NULL, &s->inv, why, sizeof why) ==
		    RT_SRC_OK ? 1 : -1;
	}
	return s->inv_state > 0 ? &s->inv : NULL;
}

/* The parser's function of s a text function names (Class.method, or
 * the name), or NULL. */
static const rt_src_fn *
inv_fn(struct src *s, const struct rt_st_fn *fn)
{
	const rt_src_inv *inv = src_inventory(s);
	char name[300];
	size_t i, j;

	if (!inv || !fn)
		return NULL;
	if (*fn->cls)
		snprintf(name, sizeof name, "%s.%s", fn->cls, fn->name);
	else
		snprintf(name, sizeof name, "%s", fn->name);
	for (i = 0; i < inv->nfiles; i++)
		for (j = 0; j < inv->files[i].nfns; j++)
			if (!strcmp(inv->files[i].fns[j].name, name))
				return &inv->files[i].fns[j];
	return NULL;
}

/* The parser's assert statement that starts at line ln of s and spans
 * more lines, or NULL (no inventory: the text rules alone). */
static const rt_src_check *
py_assert_at(struct src *s, long ln)
{
	const rt_src_inv *inv = src_inventory(s);
	size_t i, j, k;

	if (!inv)
		return NULL;
	for (i = 0; i < inv->nfiles; i++)
		for (j = 0; j < inv->files[i].nfns; j++)
			for (k = 0; k < inv->files[i].fns[j].nchecks; k++) {
				const rt_src_check *c = &inv->files[i].fns[j].checks[k];
				if (c->line == ln && c->end > ln && c->source &&
				    !strcmp(c->kind, "assert"))
					return c;
			}
	return NULL;
}

static int
invert_line(const struct src *s, size_t i, rt_buf *out)
{
	const char *raw = s->t.line[i], *c = s->t.code[i], *p, *semi;
	char expr[1024], msg[1024];
	size_t indent, k, n, in;
	int depth, fails;
	char q;

	if (s->lang & RT_L_PY) {
		const rt_src_check *ck;
		if (one_line_assert(c, &indent, expr, msg, sizeof expr)) {
			rt_buf_add(out, c, indent);
			rt_buf_printf(out, "assert not (%s)%s%s", expr, *msg ? ", " : "", msg);
			return 1;
		}
		/* an assert over several lines, as the parser reads it */
		if (!strncmp(rt_st_skip_space(c), "assert", 6) &&
		    (ck = py_assert_at((struct src *)s, (long)i + 1)) &&
		    one_line_assert(ck->source, &n, expr, msg, sizeof expr)) {
			rt_buf_add(out, c, (size_t)(rt_st_skip_space(c) - c));
			rt_buf_printf(out, "assert not (%s)%s%s", expr, *msg ? ", " : "", msg);
			span_end = ck->end;
			return 1;
		}
		return rename_call(raw, "self.", py_inverse, out);
	}
	if (!(s->lang & RT_L_GO))
		return 0;
	if (rename_call(raw, "assert.", go_inverse, out) ||
	    rename_call(raw, "require.", go_inverse, out))
		return 1;
	p = rt_st_skip_space(c);
	n = strlen(c);
	if (strncmp(p, "if ", 3) != 0 || n < 2 || c[n - 1] != '{')
		return 0;
	/* the block must report a failure */
	in = rt_st_indent_of(c);
	for (fails = 0, k = i + 1; k < s->t.n && !fails; k++) {
		if (rt_st_indent_of(s->t.code[k]) <= in && !rt_st_is_blank(s->t.code[k]))
			break;
		fails = rt_st_is_failure_line(s->t.code[k], RT_L_GO);
	}
	if (!fails)
		return 0;
	/* "if INIT; COND {": the condition follows the top-level ';' */
	p += 3;
	for (semi = NULL, depth = 0, q = 0, k = 0; p[k] && &p[k] < c + n - 1; k++) {
		if (q) {
			if (p[k] == '\\' && p[k + 1])
				k++;
			else if (p[k] == q)
				q = 0;
		} else if (p[k] == '"' || p[k] == '`' || p[k] == '\'') {
			q = p[k];
		} else if (strchr("([{", p[k])) {
			depth++;
		} else if (strchr(")]}", p[k])) {
			depth--;
		} else if (p[k] == ';' && depth == 0) {
			semi = &p[k];
		}
	}
	{
		const char *cond = semi ? rt_st_skip_space(semi + 1) : p;
		size_t cl = (size_t)(c + n - 1 - cond);
		while (cl > 0 && isspace((unsigned char)cond[cl - 1]))
			cl--;
		rt_buf_add(out, c, (size_t)(cond - c));
		rt_buf_printf(out, "!(%.*s) {", (int)cl, cond);
	}
	return 1;
}

/* The line to invert for a location: itself, or for a Go failure report
 * the "if" that guards it. -1 when neither. */
static long
invertible_at(const struct src *s, long ln, rt_buf *out)
{
	long k;

	if (ln < 1 || (size_t)ln > s->t.n)
		return -1;
	out->len = 0;
	span_end = 0;
	if (invert_line(s, (size_t)ln - 1, out))
		return ln;
	if ((s->lang & RT_L_GO) && rt_st_is_failure_line(s->t.code[ln - 1], RT_L_GO))
		for (k = ln - 1; k >= 1; k--) {
			if (rt_st_is_blank(s->t.code[k - 1]))
				continue;
			if (rt_st_indent_of(s->t.code[k - 1]) < rt_st_indent_of(s->t.code[ln - 1])) {
				out->len = 0;
				return invert_line(s, (size_t)k - 1, out) ? k : -1;
			}
		}
	return -1;
}

/* The body of a pick: [*from, *to] 1-based; the module level of a
 * script is every line outside a function. */
static void
pick_span(const struct pick *p, long *from, long *to)
{
	if (p->fn) {
		*from = p->fn->start;
		*to = p->fn->end;
	} else {
		*from = 1;
		*to = (long)p->s->t.n;
	}
}

static int
in_some_fn(const struct src *s, long ln)
{
	size_t i;

	for (i = 0; i < s->fns.n; i++)
		if (s->fns.v[i].def <= ln && ln <= s->fns.v[i].end)
			return 1;
	return 0;
}

/* The last invertible line of a body (for the module level, outside
 * functions); 0 when none. */
static long
last_invertible(const struct pick *p, rt_buf *out)
{
	long from, to, ln;
	const rt_src_fn *ifn = inv_fn(p->s, p->fn);
	size_t k;

	/* the test's own checks, as its parser lists them, the last first;
	 * not one in a helper defined inside the test that it never calls */
	for (k = ifn ? ifn->nchecks : 0; k > 0; k--) {
		const rt_src_check *c = &ifn->checks[k - 1];
		size_t j;
		if (strcmp(c->kind, "assert") && strcmp(c->kind, "call") &&
		    strcmp(c->kind, "fail_branch"))
			continue;
		if (c->local) {
			const char *base = strrchr(c->local, '.');
			base = base ? base + 1 : c->local;
			for (j = 0; j < ifn->ncalls && strcmp(ifn->calls[j], base); j++)
				;
			if (j == ifn->ncalls)
				continue;
		}
		if (invertible_at(p->s, c->line, out) == c->line)
			return c->line;
	}
	pick_span(p, &from, &to);
	for (ln = to; ln >= from; ln--) {
		if (!p->fn && in_some_fn(p->s, ln))
			continue;
		if (invertible_at(p->s, ln, out) == ln)
			return ln;
	}
	return 0;
}

/* Helpers the body calls, defined in the same file: name( or self.name(. */
static struct rt_st_fn *
called_helper(const struct pick *p, size_t nth)
{
	long from, to, ln;
	size_t i, seen = 0;
	const char *c, *q;
	struct rt_st_fn *f;

	pick_span(p, &from, &to);
	for (ln = from; ln <= to; ln++) {
		c = p->s->t.code[ln - 1];
		for (i = 0; i < p->s->fns.n; i++) {
			f = &p->s->fns.v[i];
			if (f == p->fn || f->test)
				continue;
			for (q = c; (q = strstr(q, f->name)); q++)
				if ((q == c || !rt_st_is_ident(q[-1])) &&
				    *rt_st_skip_space(q + strlen(f->name)) == '(') {
					if (seen++ == nth)
						return f;
					break;
				}
		}
	}
	return NULL;
}

static void
pick_label(const struct pick *p, char *buf, size_t size)
{
	if (!p->fn)
		snprintf(buf, size, "%s", p->s->rel);
	else if (*p->fn->cls)
		snprintf(buf, size, "%s::%s::%s", p->s->rel, p->fn->cls, p->fn->name);
	else
		snprintf(buf, size, "%s::%s", p->s->rel, p->fn->name);
}

/* Evidence locations inside the body of fn (or any line of s when fn is
 * NULL and whole is set). */
static long
evidence_line(const struct pick *p, const struct rt_st_fn *fn, struct tree *tr,
    const rt_failing_loc *locs, size_t nloc, rt_buf *out)
{
	size_t i;
	int pass;
	long r;
	struct src *s;

	for (pass = 1; pass >= 0; pass--)       /* raised first */
		for (i = nloc; i > 0; i--) {
			const rt_failing_loc *l = &locs[i - 1];
			if (l->line < 1 || l->raised != pass || !(s = tree_find(tr, l->file)) ||
			    s != p->s)
				continue;
			if (fn ? (l->line < fn->def || l->line > fn->end) :
			    in_some_fn(s, l->line))
				continue;
			if ((r = invertible_at(s, l->line, out)) > 0)
				return r;
		}
	return 0;
}

static int
place(struct tree *tr, struct pick *p, long ln, rt_buf *newline, char *what,
    size_t whatsize)
{
	char *path = rt_xasprintf("%s/%s", tr->dir, p->s->rel), *data, q[200];
	size_t len, off = 0;
	long k;
	const char *e;
	rt_buf out = { 0 };
	int rc;

	if (!(data = rt_read_file(path, &len))) {
		free(path);
		return -1;
	}
	for (k = 1; k < ln && (e = memchr(data + off, '\n', len - off)); k++)
		off = (size_t)(e - data) + 1;
	e = memchr(data + off, '\n', len - off);
	rt_buf_add(&out, data, off);
	rt_buf_add(&out, newline->data, newline->len);
	/* a statement over several lines: the rest of it blanked */
	for (k = ln; k < span_end && e; k++) {
		rt_buf_addc(&out, '\n');
		e = memchr(e + 1, '\n', len - (size_t)(e + 1 - data));
	}
	span_end = 0;
	if (e && e > data + off && e[-1] == '\r')
		e--;
	if (e)
		rt_buf_add(&out, e, len - (size_t)(e - data));
	rc = rt_write_file_atomic(path, out.data, out.len);
	snprintf(what, whatsize, "%s:%ld: %s", p->s->rel, ln,
	    rt_st_quote_line(p->s->t.line[ln - 1], q, sizeof q));
	rt_buf_free(&out);
	free(data);
	free(path);
	return rc < 0 ? -1 : 1;
}

/* The test a case ID names (the runner's own ID, rt_runner(3)): a pytest
 * node ID "f.py::Class::test[p]" as pytest would select it; a unittest
 * dotted name "pkg.mod.Class.test" (its longest prefix that is a module
 * file); a Go
 * "pkg::TestX/sub" the func TestX in the _test.go files of the package's
 * directory (a suffix of pkg), else of any directory. */
static void
case_tests(struct tree *tr, struct picks *ps, const char *id)
{
	const char *sep = strstr(id, "::");
	char *w = rt_xstrdup(id), name[256], dirn[512];
	size_t i, n0 = ps->n, dl, pl;
	int pass;

	if (sep && sep > id && (size_t)(sep - id) >= 3 && !strncmp(sep - 3, ".py", 3)) {
		rt_runner_sel one = { .kind = RT_SEL_NODE, .text = w };
		sel_pytest(tr, ps, &one, 1);
	} else if (!sep && strchr(id, '.') && !strchr(id, '/') && !strchr(id, ' ')) {
		/* a unittest ID "pkg.mod.Class.test": the longest module prefix */
		cmd_dotted(tr, ps, id);
	} else if (sep && !strncmp(sep + 2, "Test", 4)) {
		pl = (size_t)(sep - id);
		snprintf(name, sizeof name, "%.*s", (int)strcspn(sep + 2, "/"), sep + 2);
		for (pass = 0; pass < 2 && ps->n == n0; pass++)
			for (i = 0; i < tr->n; i++) {
				const char *rel = tr->v[i].rel, *b = strrchr(rel, '/');
				size_t rl = strlen(rel);
				if (!(tr->v[i].lang & RT_L_GO) || rl < 8 || strcmp(rel + rl - 8, "_test.go"))
					continue;
				dl = b ? (size_t)(b - rel) : 0;
				snprintf(dirn, sizeof dirn, "%.*s", (int)dl, rel);
				/* the package's directory: its import path ends in it */
				if (pass == 0 && dl && !(pl == dl && !strncmp(id, dirn, dl)) &&
				    !(pl > dl && id[pl - dl - 1] == '/' && !strncmp(id + pl - dl, dirn, dl)))
					continue;
				pick_tests(ps, src_load(tr, &tr->v[i]), NULL, name);
			}
	}
	free(w);
}

/* ---- the canary through the parser's inventory: jest and vitest ---- */

/* A JavaScript test file (rt_src_lang's javascript)? */
static int
is_js_file(const char *path, size_t len)
{
	static const char *const ext[] = { ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs",
		".mts", ".cts", NULL };
	size_t i, n;

	for (i = 0; ext[i]; i++) {
		n = strlen(ext[i]);
		if (len > n && !strncmp(path + len - n, ext[i], n))
			return 1;
	}
	return 0;
}

/* jest's full name of an inventory function: "describe > test" is the
 * helper's, "describe test" jest's (its ancestor titles and title, joined
 * by blanks) */
static int
jest_name_is(const char *inv, const char *full)
{
	while (*inv && *full) {
		if (!strncmp(inv, " > ", 3)) {
			if (*full != ' ')
				return 0;
			inv += 3;
			full++;
			continue;
		}
		if (*inv++ != *full++)
			return 0;
	}
	return !*inv && !*full;
}

/* Invert the matcher of an expect check on lines [c->line, c->end] of
 * file: ".toEqual(" becomes ".not.toEqual(", ".not.toEqual(" ".toEqual(";
 * the last matcher named on those lines. 1 placed, 0 not (why in what),
 * -1 on an I/O error. */
static int
invert_expect(const char *dir, const char *rel, const rt_src_check *c, char *what,
    size_t whatsize)
{
	char *path = rt_xasprintf("%s/%s", dir, rel), *data, *lines, *at = NULL, *p;
	const char *m = c->callee ? c->callee : "";
	char pat[160], q[96];
	size_t len, i, off = 0, from = 0, to = 0;
	long ln = 1;
	int neg = !strncmp(m, "not.", 4), rc = 0;
	rt_buf out = { 0 };

	if (!(data = rt_read_file(path, &len))) {
		free(path);
		return -1;
	}
	/* the byte range of the check's lines */
	{
		long last = c->end > c->line ? c->end : c->line;
		for (i = 0; i < len && ln < c->line; i++)
			if (data[i] == '\n')
				ln++;
		from = i;
		for (; i < len; i++)
			if (data[i] == '\n' && ln++ == last)
				break;
		to = i;
	}
	snprintf(pat, sizeof pat, ".%s(", m);
	lines = rt_xasprintf("%.*s", (int)(to - from), data + from);
	for (p = lines; (p = strstr(p, pat)); p++)
		at = p;
	if (!at || !*m) {
		snprintf(what, whatsize, "%s:%ld: no matcher %s to invert", rel, c->line, m);
		goto done;
	}
	off = from + (size_t)(at - lines);
	rt_buf_add(&out, data, off);
	if (neg) {
		rt_buf_addc(&out, '.');
		rt_buf_adds(&out, m + 4);
		rt_buf_add(&out, data + off + 1 + strlen(m), len - off - 1 - strlen(m));
	} else {
		rt_buf_adds(&out, ".not");
		rt_buf_add(&out, data + off, len - off);
	}
	if (rt_write_file_atomic(path, out.data, out.len) < 0) {
		rc = -1;
		goto done;
	}
	snprintf(what, whatsize, "%s:%ld: %s", rel, c->line, rt_st_quote_line(
	    c->source ? c->source : c->text ? c->text : "", q, sizeof q));
	rc = 1;
done:
	rt_buf_free(&out);
	free(lines);
	free(data);
	free(path);
	return rc;
}

/* The jest canary: in the test case_id names ("FILE::full name"), the
 * check at the failing line the evidence names, else its last expect,
 * inverted; read with the project's own JavaScript parser (rt_src). */
static int
jest_canary(const char *dir, const char *trusted, const char *case_id,
    const char *evidence, char *what, size_t whatsize)
{
	const char *sep = strstr(case_id, "::");
	char *rel = rt_xasprintf("%.*s", (int)(sep - case_id), case_id), *files[1];
	char why[400];
	rt_src_inv inv;
	const rt_src_fn *fn = NULL;
	const rt_src_check *pick = NULL;
	rt_failing_loc locs[64];
	size_t i, j, nloc;
	int r;

	files[0] = rel;
	/* the parser from the original project, never the patched copy's */
	r = rt_src_inventory("javascript", dir, trusted, files, 1, NULL, NULL, &inv,
	    why, sizeof why);
	if (r != RT_SRC_OK) {
		snprintf(what, whatsize, "case %s: %s", case_id, why);
		free(rel);
		return 0;
	}
	for (i = 0; i < inv.nfiles && !fn; i++)
		for (j = 0; j < inv.files[i].nfns && !fn; j++)
			if (inv.files[i].fns[j].test &&
			    jest_name_is(inv.files[i].fns[j].name, sep + 2))
				fn = &inv.files[i].fns[j];
	if (!fn) {
		snprintf(what, whatsize, "case %s: no such test in this tree", case_id);
		r = 0;
		goto done;
	}
	nloc = rt_failing_locations(evidence, locs, sizeof locs / sizeof locs[0]);
	for (i = 0; i < fn->nchecks; i++) {
		const rt_src_check *c = &fn->checks[i];
		if (strcmp(c->kind, "expect"))
			continue;
		for (j = 0; j < nloc; j++)
			if (locs[j].line >= c->line && locs[j].line <= (c->end > c->line ?
			    c->end : c->line) && strstr(locs[j].file, rel))
				break;
		if (j < nloc) {
			pick = c;
			break;
		}
		pick = c;       /* else the last */
	}
	if (!pick) {
		snprintf(what, whatsize, "no invertible assertion found in %s", case_id);
		r = 0;
		goto done;
	}
	r = invert_expect(dir, rel, pick, what, whatsize);
done:
	rt_src_inv_free(&inv);
	free(rel);
	return r;
}

static int canary_place(const char *dir, const char *trusted,
    const char *command, char *const *argv, const char *case_id,
    const char *evidence, char *what, size_t whatsize);

int
rt_canary_place(const char *dir, const char *trusted, const char *command,
    char *const *argv, const char *evidence, char *what, size_t whatsize)
{
	return canary_place(dir, trusted, command, argv, NULL, evidence, what,
	    whatsize);
}

int
rt_canary_place_case(const char *dir, const char *trusted, const char *case_id,
    const char *evidence, char *what, size_t whatsize)
{
	return canary_place(dir, trusted, NULL, NULL, case_id, evidence, what,
	    whatsize);
}

static int
canary_place(const char *dir, const char *trusted, const char *command,
    char *const *argv, const char *case_id, const char *evidence, char *what,
    size_t whatsize)
{
	struct tree tr = { dir, NULL, 0, 0 };
	struct picks fromcmd = { 0 }, fromev = { 0 }, both = { 0 }, *use;
	rt_failing_loc locs[64];
	size_t nloc, i, j, nw = 0;
	char *w[256], label[400];
	rt_buf nl = { 0 };
	struct src *s;
	struct rt_st_fn *f, *h;
	long ln = 0;
	int rc = 0;

	snprintf(what, whatsize, "no test found");
	canary_dir = dir;
	canary_trusted = trusted;
	span_end = 0;
	tree_walk(&tr, NULL, 0);
	if (argv)
		for (; argv[nw] && nw < 255; nw++)
			w[nw] = rt_xstrdup(argv[nw]);
	else if (command)
		nw = rt_cmd_split(command, w, 256);
	if (case_id && strstr(case_id, "::") &&
	    is_js_file(case_id, (size_t)(strstr(case_id, "::") - case_id))) {
		rc = jest_canary(dir, trusted, case_id, evidence, what, whatsize);
		goto done;
	}
	if (case_id) {
		/* the judged test, exactly: the evidence only says where in it */
		case_tests(&tr, &fromcmd, case_id);
		if (fromcmd.n == 0) {
			snprintf(what, whatsize, "case %s: no such test in this tree", case_id);
			goto done;
		}
	} else {
		command_tests(&tr, &fromcmd, w, nw);
	}
	nloc = rt_failing_locations(evidence, locs, sizeof locs / sizeof locs[0]);
	for (i = 0; i < nloc; i++) {
		const rt_failing_loc *l = &locs[i];
		if (l->line > 0) {
			if (!(s = tree_find(&tr, l->file)))
				continue;
			f = rt_st_fn_at(&s->fns, l->line);
			while (f && !f->test) {
				/* a helper: the test is an earlier frame; an outer def? */
				struct rt_st_fn *outer = NULL;
				for (j = 0; j < s->fns.n; j++)
					if (&s->fns.v[j] != f && s->fns.v[j].def < f->def &&
					    s->fns.v[j].end >= f->end &&
					    (!outer || s->fns.v[j].def > outer->def))
						outer = &s->fns.v[j];
				f = outer;
			}
			if (f)
				pick_add(&fromev, s, f);
			else if (!rt_st_fn_at(&s->fns, l->line))
				pick_add(&fromev, s, NULL);
		} else if (*l->test) {
			if (*l->file) {
				pick_tests(&fromev, tree_find(&tr, l->file), l->cls, l->test);
			} else {
				for (j = 0; j < tr.n; j++)
					if ((s = src_load(&tr, &tr.v[j])))
						pick_tests(&fromev, s, l->cls, l->test);
			}
		}
	}
	for (i = 0; i < fromev.n; i++)
		for (j = 0; j < fromcmd.n; j++)
			if (fromev.v[i].s == fromcmd.v[j].s && fromev.v[i].fn == fromcmd.v[j].fn)
				pick_add(&both, fromev.v[i].s, fromev.v[i].fn);
	use = case_id ? &fromcmd : both.n ? &both : fromev.n ? &fromev : &fromcmd;
	if (use->n == 0) {
		snprintf(what, whatsize, "cannot tell which test the command runs%s",
		    nloc ? " (the failing output names none in this tree)" :
		    " and there is no failing output naming one");
		goto done;
	}
	for (i = 0; i < use->n && !ln; i++) {
		struct pick *p = &use->v[i], hp;
		/* 1. where the evidence says it failed, in the body or a helper */
		if ((ln = evidence_line(p, p->fn, &tr, locs, nloc, &nl)) > 0)
			break;
		for (j = 0; p->fn && (h = called_helper(p, j)) && !ln; j++)
			ln = evidence_line(p, h, &tr, locs, nloc, &nl);
		if (ln > 0)
			break;
		/* 2. the last assertion of the body, 3. of a helper it calls */
		if ((ln = last_invertible(p, &nl)) > 0)
			break;
		for (j = 0; p->fn && (h = called_helper(p, j)) && !ln; j++) {
			hp.s = p->s;
			hp.fn = h;
			ln = last_invertible(&hp, &nl);
		}
	}
	if (ln > 0) {
		rc = place(&tr, &use->v[i < use->n ? i : use->n - 1], ln, &nl, what, whatsize);
	} else {
		pick_label(&use->v[0], label, sizeof label);
		snprintf(what, whatsize, "no invertible assertion found in %s%s", label,
		    use->n > 1 ? " or the other tests the command runs" : "");
	}
done:
	for (i = 0; i < nw; i++)
		free(w[i]);
	for (i = 0; i < tr.n; i++) {
		free(tr.v[i].rel);
		if (tr.v[i].ok) {
			rt_st_text_free(&tr.v[i].t);
			if (tr.v[i].inv_state > 0)
				rt_src_inv_free(&tr.v[i].inv);
			free(tr.v[i].fns.v);
		}
	}
	free(tr.v);
	free(fromcmd.v);
	free(fromev.v);
	free(both.v);
	rt_buf_free(&nl);
	return rc;
}
