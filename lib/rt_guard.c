/* rt_guard: the neutering guard's static rules — over the assertion
 * inventories (rt_src) of the test files a unified diff touches; what no
 * parser reads goes to the text rules of rt_srctext. Fails closed. */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rt_guard.h"
#include "rt_src.h"
#include "rt_srctext.h"
#include "rt_util.h"

const char *const rt_guard_rules[] = {
	"early-exit", "early-return", "skip", "or-true", "if-0", "tautology",
	"assertion-swallowed", "expected-value-changed", "assertion-weakened",
	"raises-removed", "assertion-removed", "call-removed", "canary",
	"guard-undecided", "patch-failed", NULL
};

int
rt_guard_rule_known(const char *name)
{
	size_t i;

	for (i = 0; name && rt_guard_rules[i]; i++)
		if (strcmp(name, rt_guard_rules[i]) == 0)
			return 1;
	return 0;
}

#define NLANG 3
static const char *const src_langs[NLANG] = { "python", "go", "javascript" };

struct guard {
	struct rt_st_diff d;    /* the files, and the verdict (f, nf, res) */
	const char *command;
	char *const *argv;
	rt_src_inv inv[NLANG][2];       /* per language: the original, the patched */
};

static int
fire(rt_guard_result *res, const char *rule, const char *fmt, ...)
{
	va_list ap;

	res->rule = rule;
	va_start(ap, fmt);
	vsnprintf(res->reason, sizeof res->reason, fmt, ap);
	va_end(ap);
	return 1;
}



/* ---- languages and test files ---- */


int
rt_guard_is_test_path(const char *relpath)
{
	static const char *const dirs[] = {
		"test", "tests", "t", "spec", "specs", "__tests__", "testing",
		"testdata", "e2e", NULL
	};
	const char *base = strrchr(relpath, '/'), *p, *q, *dot;
	size_t i, n;

	base = base ? base + 1 : relpath;
	/* a directory named like a test directory anywhere on the path */
	for (p = relpath; p < base; p = q + 1) {
		q = strchr(p, '/');
		if (!q || q >= base)
			break;
		n = (size_t)(q - p);
		for (i = 0; dirs[i]; i++)
			if (strlen(dirs[i]) == n && strncmp(p, dirs[i], n) == 0)
				return 1;
	}
	if (strncmp(base, "test", 4) == 0 || strncmp(base, "Test", 4) == 0)
		return 1;
	if (strcmp(base, "conftest.py") == 0)
		return 1;
	dot = strrchr(base, '.');
	n = dot ? (size_t)(dot - base) : strlen(base);
	if (dot && strcmp(dot, ".bats") == 0)
		return 1;
	/* *_test.go, *_spec.rb, foo.test.js, FooTest.java, FooTests.cs */
	for (p = base; p < base + n; p++) {
		if ((*p == '_' || *p == '.' || *p == '-') &&
		    (strncmp(p + 1, "test", 4) == 0 || strncmp(p + 1, "spec", 4) == 0))
			return 1;
		if (strncmp(p, "Test", 4) == 0 && (p + 4 == base + n ||
		    (p[4] == 's' && p + 5 == base + n)))
			return 1;
	}
	return 0;
}

int
rt_guard_is_test_text(const char *relpath, const char *text)
{
	struct rt_st_text t;
	int lang, r;
	const char *nl;
	char first[256];

	if (!text)
		return 0;
	nl = strchr(text, '\n');
	snprintf(first, sizeof first, "%.*s", nl ? (int)(nl - text) : 255, text);
	lang = rt_st_lang_of(relpath, first);
	rt_st_text_load(&t, text, lang);
	r = rt_st_test_by_content(&t, lang);
	rt_st_text_free(&t);
	return r;
}

/* ---- the diff ---- */

static char *
diff_path(const char *s, const char *prefix)
{
	size_t n = strcspn(s, "\t");
	char *p;

	while (n > 0 && s[n - 1] == ' ')
		n--;
	p = rt_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	if (strncmp(p, prefix, 2) == 0)
		memmove(p, p + 2, n - 1);
	return p;
}

static void
add_dline(struct rt_st_file *f, int kind, long ln, int hunk, const char *text, size_t n)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 32;
		f->l = rt_xrealloc(f->l, f->cap * sizeof *f->l);
	}
	f->l[f->n].kind = kind;
	f->l[f->n].ln = ln;
	f->l[f->n].hunk = hunk;
	f->l[f->n].text = rt_xmalloc(n + 1);
	memcpy(f->l[f->n].text, text, n);
	f->l[f->n].text[n] = '\0';
	f->n++;
}

/* Parse a unified diff into files and their changed lines. 0, or -1 with
 * the reason in res (guard-undecided). */
static int
parse_diff(struct guard *g, const char *diff)
{
	const char *p = diff, *e, *nl;
	size_t n, cap = 0;
	struct rt_st_file *f = NULL;
	long oldln = 0, newln = 0, remold = 0, remnew = 0, a, b, c, d;
	char *oldp, *newp;
	int hunk = 0;

	while (*p) {
		e = strchr(p, '\n');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (remold > 0 || remnew > 0) {
			if (n == 0 || *p == ' ') {
				add_dline(f, RT_ST_CTX, newln, hunk, p + (n > 0), n ? n - 1 : 0);
				oldln++, newln++, remold--, remnew--;
			} else if (*p == '-') {
				add_dline(f, RT_ST_DEL, oldln, hunk, p + 1, n - 1);
				oldln++, remold--;
			} else if (*p == '+') {
				add_dline(f, RT_ST_ADD, newln, hunk, p + 1, n - 1);
				newln++, remnew--;
			} else if (*p != '\\') {
				remold = remnew = 0;
				continue;   /* re-read this line outside the hunk */
			}
		} else if (strncmp(p, "--- ", 4) == 0 && e &&
		    strncmp(e + 1, "+++ ", 4) == 0) {
			char *l1 = rt_xmalloc(n + 1), *l2;
			size_t m;

			memcpy(l1, p, n);
			l1[n] = '\0';
			nl = strchr(e + 1, '\n');
			m = nl ? (size_t)(nl - (e + 1)) : strlen(e + 1);
			if (m > 0 && e[m] == '\r')
				m--;
			l2 = rt_xmalloc(m + 1);
			memcpy(l2, e + 1, m);
			l2[m] = '\0';
			oldp = diff_path(l1 + 4, "a/");
			newp = diff_path(l2 + 4, "b/");
			free(l1);
			free(l2);
			if (strcmp(oldp, "/dev/null") != 0 && strcmp(newp, "/dev/null") != 0 &&
			    strcmp(oldp, newp) != 0) {
				fire(g->d.res, "guard-undecided", "the patch renames %s to %s",
				    oldp, newp);
				free(oldp);
				free(newp);
				return -1;
			}
			if (g->d.nf == cap) {
				cap = cap ? cap * 2 : 8;
				g->d.f = rt_xrealloc(g->d.f, cap * sizeof *g->d.f);
			}
			f = &g->d.f[g->d.nf++];
			memset(f, 0, sizeof *f);
			if (strcmp(newp, "/dev/null") == 0) {
				f->path = oldp;
				free(newp);
			} else {
				f->path = newp;
				free(oldp);
			}
			if (!nl)
				break;
			p = nl + 1;
			continue;
		} else if (strncmp(p, "@@ ", 3) == 0) {
			if (!f) {
				fire(g->d.res, "guard-undecided", "a hunk comes before any file header");
				return -1;
			}
			b = d = 1;
			if (sscanf(p, "@@ -%ld,%ld +%ld,%ld @@", &a, &b, &c, &d) != 4) {
				b = d = 1;
				if (sscanf(p, "@@ -%ld +%ld,%ld @@", &a, &c, &d) != 3 &&
				    sscanf(p, "@@ -%ld,%ld +%ld @@", &a, &b, &c) != 3 &&
				    sscanf(p, "@@ -%ld +%ld @@", &a, &c) != 2) {
					fire(g->d.res, "guard-undecided", "unreadable hunk header in %s",
					    f->path);
					return -1;
				}
			}
			oldln = a > 0 ? a : 1;
			newln = c > 0 ? c : 1;
			remold = b;
			remnew = d;
			f->nhunks++;
			hunk++;
		} else if (strncmp(p, "Binary files ", 13) == 0 ||
		    strncmp(p, "GIT binary patch", 16) == 0) {
			fire(g->d.res, "guard-undecided", "the patch changes a binary file");
			return -1;
		}
		if (!e)
			break;
		p = e + 1;
	}
	if (g->d.nf == 0) {
		fire(g->d.res, "guard-undecided", "the patch names no file");
		return -1;
	}
	for (n = 0; n < g->d.nf; n++)
		if (g->d.f[n].nhunks == 0) {
			fire(g->d.res, "guard-undecided", "the patch has no hunk for %s",
			    g->d.f[n].path);
			return -1;
		}
	return 0;
}


static int
load_side(struct guard *g, struct rt_st_file *f, const char *dir, struct rt_st_text *t,
    const char *side, int *exists)
{
	char *path = rt_xasprintf("%s/%s", dir, f->path), *s;
	size_t len;

	s = rt_read_file(path, &len);
	free(path);
	*exists = s != NULL;
	if (!s) {
		if (errno == ENOENT) {
			rt_st_text_load(t, "", f->lang);
			return 0;
		}
		fire(g->d.res, "guard-undecided", "cannot read the %s %s: %s",
		    side, f->path, strerror(errno));
		return -1;
	}
	if (memchr(s, '\0', len)) {
		free(s);
		fire(g->d.res, "guard-undecided", "%s is not text", f->path);
		return -1;
	}
	rt_st_text_load(t, s, f->lang);
	free(s);
	return 0;
}

static int tolerance_widened(const rt_src_check *b, const rt_src_check *a,
    char *what, size_t size);
static int is_check_kind(const rt_src_check *c);
static int timing_widened(const rt_src_check *b, const rt_src_check *a,
    char *from, char *to, size_t size, const char **unit);
static const char *qc(const rt_src_check *c, char *buf, size_t size);

/* Do two operands (or option values) differ only in their literals? */
static int
literals_only(const char *b, const char *a)
{
	char *sb = rt_st_literal_shape(b), *sa = rt_st_literal_shape(a);
	int r = strcmp(sb, sa) == 0;

	free(sb);
	free(sa);
	return r;
}

/* The checks of parsed file f that the patch changes, when each differs
 * from the original in literals alone (the same kind, callee, operator,
 * operands and options otherwise, no tolerance widened): their number,
 * the first in *first; -1 when some change of a check is more than that. */
static int
inv_literal_pairs(const struct rt_st_file *f, const rt_src_change **first)
{
	const rt_src_change *c;
	const rt_src_check *b, *a;
	char w[300], fr[64], to[64];
	const char *unit;
	size_t i, k;
	int n = 0;

	for (i = 0; i < f->nch; i++) {
		c = &f->ch[i];
		if (!strcmp(c->change, "same"))
			continue;
		b = c->before;
		a = c->after;
		if (!strcmp(c->change, "changed") &&
		    timing_widened(b, a, fr, to, sizeof fr, &unit))
			continue;
		if (strcmp(c->change, "changed") || !is_check_kind(b) || !is_check_kind(a) ||
		    strcmp(b->kind, a->kind) || strcmp(b->callee, a->callee) ||
		    strcmp(b->op, a->op) || b->noperands != a->noperands ||
		    b->nopt != a->nopt || tolerance_widened(b, a, w, sizeof w))
			return -1;
		for (k = 0; k < b->noperands; k++)
			if (!literals_only(b->operands[k], a->operands[k]))
				return -1;
		for (k = 0; k < b->nopt; k++) {
			const char *v = rt_src_option(a, b->optk[k]);
			if (!v || (strcmp(b->optk[k], "msg") && !literals_only(b->optv[k], v)))
				return -1;
		}
		if (!n++)
			*first = c;
	}
	return n;
}

/* Is line ln of the original (side 0) or the patched file (1) inside a
 * check that changed? */
static int
in_changed_check(const struct rt_st_file *f, int side, long ln)
{
	const rt_src_check *c;
	size_t i;

	for (i = 0; i < f->nch; i++) {
		if (strcmp(f->ch[i].change, "changed"))
			continue;
		c = side ? f->ch[i].after : f->ch[i].before;
		if (c->line <= ln && ln <= c->end)
			return 1;
	}
	return 0;
}

/* "The expected value changed" only when that is all the patch does:
 * every changed code line is one side of a check (for a parsed file, a
 * check of its inventory; for the text rules, an assertion line or an
 * expected/want variable) whose literals alone differ. A patch that also
 * changes the setup, a fixture, module state or the code under test is
 * judged by the race, not here. */
static int
rule_expected(struct guard *g, const char *rule)
{
	size_t i, j, npairs = 0;
	struct rt_st_file *f, *pf = NULL, *ff = NULL;
	const rt_src_change *first = NULL, *fc;
	char q1[96], q2[96];
	char **used;
	long pd = 0, pa = 0, d0 = 0, a0 = 0;
	int other = 0, np;

	used = rt_xcalloc(g->d.nf, sizeof *used);
	for (i = 0; i < g->d.nf; i++) {
		f = &g->d.f[i];
		used[i] = rt_xcalloc(f->n + 1, 1);
		if (f->parsed) {
			fc = NULL;
			np = inv_literal_pairs(f, &fc);
			if (np < 0)
				other = 1;
			else if (np > 0 && !first)
				first = fc, ff = f;
			if (np > 0)
				npairs += (size_t)np;
		}
		np = (int)rt_st_expected_lines(f, used[i], &d0, &a0);
		if (np > 0 && !pf)
			pf = f, pd = d0, pa = a0;
		npairs += (size_t)np;
	}
	for (i = 0; i < g->d.nf && !other; i++) {
		f = &g->d.f[i];
		for (j = 0; j < f->n && !other; j++) {
			const struct rt_st_text *t = f->l[j].kind == RT_ST_ADD ? &f->after : &f->before;
			if (f->l[j].kind == RT_ST_CTX || used[i][j])
				continue;
			if (f->parsed && in_changed_check(f, f->l[j].kind == RT_ST_ADD, f->l[j].ln))
				continue;
			if (f->l[j].ln < 1 || (size_t)f->l[j].ln > t->n ||
			    !rt_st_inert(t->code[f->l[j].ln - 1]))
				other = 1;
		}
	}
	for (i = 0; i < g->d.nf; i++)
		free(used[i]);
	free(used);
	if (npairs == 0 || other)
		return 0;
	if (first)
		return fire(g->d.res, rule, "changes nothing but the expected value: `%s` "
		    "(%s:%ld of the original) became `%s` at %s:%ld%s",
		    qc(first->before, q1, sizeof q1), ff->path, first->before->line,
		    qc(first->after, q2, sizeof q2), ff->path, first->after->line,
		    npairs > 1 ? ", and likewise elsewhere" : "");
	return fire(g->d.res, rule, "changes nothing but the expected value: `%s` "
	    "(%s:%ld of the original) became `%s` at %s:%ld%s",
	    rt_st_quote_line(pf->before.code[pd - 1], q1, sizeof q1), pf->path, pd,
	    rt_st_quote_line(pf->after.code[pa - 1], q2, sizeof q2), pf->path, pa,
	    npairs > 1 ? ", and likewise elsewhere" : "");
}

/* ---- inventories: the tests as the language's parser reads them ---- */

/* The file's path as the helper is given it (never an option). */
static char *
helper_path(const char *p)
{
	return *p == '-' ? rt_xasprintf("./%s", p) : rt_xstrdup(p);
}

static void
guard_add(rt_guard_result *res, const char *what)
{
	size_t n = strlen(res->guard);

	if (strstr(res->guard, what))
		return;
	snprintf(res->guard + n, sizeof res->guard - n, "%s%s", n ? "; " : "", what);
}

/* Read the test files of each language with its helper, both sides, and
 * compare. -1 with guard-undecided (a helper failed, the original does
 * not parse, a file is over the parser's limits) or patch-failed (the
 * patched test does not parse) fired in g->d.res. */
static int
load_inventories(struct guard *g, const char *before_dir, const char *after_dir,
    rt_guard_result *res)
{
	char **files, why[RT_GUARD_REASON - 128], *hp;
	size_t i, l, n, k;
	int side, r;
	struct rt_st_file *f;

	files = rt_xcalloc(g->d.nf + 1, sizeof *files);
	for (l = 0; l < NLANG; l++) {
		for (n = 0, i = 0; i < g->d.nf; i++)
			n += g->d.f[i].test && rt_src_lang(g->d.f[i].path) &&
			    !strcmp(rt_src_lang(g->d.f[i].path), src_langs[l]);
		if (n == 0)
			continue;
		for (side = 0; side < 2; side++) {
			for (n = 0, i = 0; i < g->d.nf; i++) {
				f = &g->d.f[i];
				if (f->test && rt_src_lang(f->path) &&
				    !strcmp(rt_src_lang(f->path), src_langs[l]) &&
				    (side ? f->aexists : f->bexists))
					files[n++] = helper_path(f->path);
			}
			r = RT_SRC_OK;
			if (n > 0)      /* else the file is on one side only */
				r = rt_src_inventory(src_langs[l], side ? after_dir : before_dir,
				    before_dir, files, n, g->command, g->argv, &g->inv[l][side],
				    why, sizeof why);
			for (k = 0; k < n; k++)
				free(files[k]);
			if (r == RT_SRC_NO_PARSER && strcmp(src_langs[l], "javascript")) {
				/* Python and Go are never judged by text */
				free(files);
				return fire(g->d.res, "guard-undecided", "%s", why), -1;
			}
			if (r == RT_SRC_NO_PARSER) {
				char t[64];
				snprintf(t, sizeof t, "text rules (no parser for %s)", src_langs[l]);
				guard_add(res, t);
				break;
			}
			if (r != RT_SRC_OK) {
				free(files);
				return fire(g->d.res, "guard-undecided", "%s", why), -1;
			}
			if (side == 1) {
				const char *ps = g->inv[l][1].parser && *g->inv[l][1].parser ?
				    g->inv[l][1].parser : g->inv[l][0].parser;
				guard_add(res, ps && *ps ? ps : src_langs[l]);
				for (i = 0; i < g->d.nf; i++) {
					f = &g->d.f[i];
					if (!f->test || !rt_src_lang(f->path) ||
					    strcmp(rt_src_lang(f->path), src_langs[l]))
						continue;
					hp = helper_path(f->path);
					f->bi = rt_src_file_find(&g->inv[l][0], hp);
					f->ai = rt_src_file_find(&g->inv[l][1], hp);
					free(hp);
					if ((f->bexists && !f->bi) || (f->aexists && !f->ai)) {
						free(files);
						return fire(g->d.res, "guard-undecided", "the %s parser "
						    "helper did not report %s", src_langs[l], f->path), -1;
					}
					if (f->bi && f->bi->error) {
						free(files);
						return fire(g->d.res, "guard-undecided", "the original %s "
						    "cannot be read by the %s parser: %s:%ld: %s", f->path,
						    src_langs[l], f->path, f->bi->err_line,
						    f->bi->err_msg), -1;
					}
					if (f->ai && f->ai->error) {
						free(files);
						if (f->ai->limit)
							return fire(g->d.res, "guard-undecided", "the patched "
							    "%s is past the %s parser's limits: %s", f->path,
							    src_langs[l], f->ai->err_msg), -1;
						return fire(g->d.res, "patch-failed", "the patched test "
						    "does not parse: %s:%ld: %s", f->path,
						    f->ai->err_line, f->ai->err_msg), -1;
					}
					f->parsed = 1;
					f->nch = rt_src_compare(f->bi, f->ai, &f->ch);
				}
			}
		}
	}
	free(files);
	for (i = 0; i < g->d.nf; i++)
		if (g->d.f[i].test && !g->d.f[i].parsed && !rt_src_lang(g->d.f[i].path)) {
			static const struct { int lang; const char *name; } names[] = {
				{ RT_L_SH, "shell" }, { RT_L_C, "c" }, { RT_L_JAVA, "java" },
				{ RT_L_RB, "ruby" }, { RT_L_RS, "rust" }, { RT_L_JS, "javascript" },
			};
			const char *nm = "this language";
			char t[64];
			for (k = 0; k < sizeof names / sizeof names[0]; k++)
				if (g->d.f[i].lang & names[k].lang)
					nm = names[k].name;
			snprintf(t, sizeof t, "text rules (no parser for %s)", nm);
			guard_add(res, t);
		}
	if (!res->guard[0])
		guard_add(res, "no test file in the patch");
	return 0;
}

/* The check as written, for a reason. */
static const char *
qc(const rt_src_check *c, char *buf, size_t size)
{
	return rt_st_quote_line(c->source && *c->source ? c->source : c->text, buf, size);
}

static const char *
fn_name(const rt_src_change *c)
{
	return c->afn ? c->afn->name : c->bfn ? c->bfn->name : "?";
}

/* Where the original's check is on the patched side, or the reverse:
 * the counterpart of check c (side 0: c is the original's). */
static const rt_src_check *
counterpart(const struct rt_st_file *f, const rt_src_check *c, int side)
{
	size_t i;

	for (i = 0; i < f->nch; i++)
		if ((side ? f->ch[i].after : f->ch[i].before) == c)
			return side ? f->ch[i].before : f->ch[i].after;
	return NULL;
}

static int
is_check_kind(const rt_src_check *c)
{
	return !strcmp(c->kind, "assert") || !strcmp(c->kind, "call") ||
	    !strcmp(c->kind, "expect") || !strcmp(c->kind, "fail_branch") ||
	    !strcmp(c->kind, "fail") || !strcmp(c->kind, "raises");
}

static int
inv_skip(struct guard *g, const char *rule)
{
	size_t i, j;
	struct rt_st_file *f;
	const rt_src_change *c;
	char q[96];

	for (i = 0; i < g->d.nf; i++) {
		f = &g->d.f[i];
		for (j = 0; f->parsed && j < f->nch; j++) {
			c = &f->ch[j];
			if (strcmp(c->change, "added") || strcmp(c->after->kind, "skip"))
				continue;
			if (c->bfn)
				return fire(g->d.res, rule, "adds a skip: `%s` at %s:%ld to %s "
				    "(%s:%ld of the original)", qc(c->after, q, sizeof q),
				    f->path, c->after->line, fn_name(c), f->path, c->bfn->line);
			return fire(g->d.res, rule, "adds a skip: `%s` at %s:%ld to %s, "
			    "which the original (%s) does not have", qc(c->after, q, sizeof q),
			    f->path, c->after->line, fn_name(c), f->path);
		}
	}
	return 0;
}

/* A return (or exit) added to a test before one of its checks; one in a
 * failure branch (t.Fatalf; return) skips nothing. */
static int
inv_early_return(struct guard *g, const char *rule)
{
	size_t i, j, k, m;
	struct rt_st_file *f;
	const rt_src_change *c;
	const rt_src_check *r, *x, *orig;
	char q1[96], q2[96];
	int inside;

	for (i = 0; i < g->d.nf; i++) {
		f = &g->d.f[i];
		for (j = 0; f->parsed && j < f->nch; j++) {
			c = &f->ch[j];
			if (!c->after || !c->afn || !c->afn->test ||
			    strcmp(c->after->kind, "return") || !strcmp(c->change, "same"))
				continue;
			r = c->after;
			for (inside = 0, m = 0; m < c->afn->nchecks; m++) {
				x = &c->afn->checks[m];
				if (x != r && (!strcmp(x->kind, "fail_branch") ||
				    !strcmp(x->kind, "raises")) && x->line < r->line &&
				    r->line <= x->end)
					inside = 1;
				if (x != r && !strcmp(x->kind, "fail") && x->end + 1 == r->line)
					inside = 1;
			}
			if (inside)
				continue;
			for (k = 0; k < c->afn->nchecks; k++) {
				x = &c->afn->checks[k];
				if (!is_check_kind(x) || x->line <= r->end)
					continue;
				orig = counterpart(f, x, 1);
				if (orig)
					return fire(g->d.res, rule, "adds `%s` at %s:%ld, before the "
					    "test's assertion `%s` at %s:%ld (%s:%ld of the original)",
					    qc(r, q1, sizeof q1), f->path, r->line, qc(x, q2, sizeof q2),
					    f->path, x->line, f->path, orig->line);
				return fire(g->d.res, rule, "adds `%s` at %s:%ld, before the "
				    "test's assertion `%s` at %s:%ld (new; %s starts at %s:%ld "
				    "of the original)", qc(r, q1, sizeof q1), f->path, r->line,
				    qc(x, q2, sizeof q2), f->path, x->line, fn_name(c), f->path,
				    c->bfn ? c->bfn->line : 0L);
			}
		}
	}
	return 0;
}

static int
truthy_operand(const char *s)
{
	size_t n = strlen(s);

	if (rt_st_truthy_literal(s))
		return 1;
	/* a non-empty tuple, list or dict literal of constants */
	return n > 2 && strchr("([{", s[0]) && strchr(")]}", s[n - 1]) &&
	    !strpbrk(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_");
}

/* A check that cannot fail. */
static int
inv_cannot_fail(const rt_src_check *c)
{
	const char *m = strrchr(c->callee, '.');
	const char *op = c->op;

	m = m ? m + 1 : c->callee;
	/* a failure branch whose condition never holds: if x != x, if false */
	if (!strcmp(c->kind, "fail_branch")) {
		if (c->noperands == 2 && (!strcmp(op, "!=") || !strcmp(op, "<") ||
		    !strcmp(op, ">")))
			return !strcmp(c->operands[0], c->operands[1]);
		if (!strcmp(op, "truthy") && c->noperands >= 1)
			return rt_st_falsy_literal(c->operands[0]);
		if (!strcmp(op, "not") && c->noperands >= 1)
			return rt_st_truthy_literal(c->operands[0]);
		return 0;
	}
	if (!strcmp(c->kind, "assert")) {
		if (c->noperands == 2 && (!strcmp(op, "==") || !strcmp(op, "is") ||
		    !strcmp(op, ">=") || !strcmp(op, "<=")))
			return !strcmp(c->operands[0], c->operands[1]);
		if (!strcmp(op, "truthy") && c->noperands >= 1)
			return truthy_operand(c->operands[0]) || rt_st_self_compare(c->operands[0]);
		if (!strcmp(op, "not") && c->noperands >= 1)
			return rt_st_falsy_literal(c->operands[0]);
		return 0;
	}
	if (!strcmp(c->kind, "call") || !strcmp(c->kind, "expect")) {
		size_t a = 0;
		/* testify's t, the receiver of expect(x) is operand 0 */
		if (c->noperands > 1 && !strcmp(c->operands[0], "t"))
			a = 1;
		if (c->noperands <= a)
			return 0;
		if (strstr(m, "Not") || strstr(c->callee, "not."))
			return 0;
		if (strstr(m, "False") || !strcmp(m, "toBeFalsy"))
			return rt_st_falsy_literal(c->operands[a]);
		if (strstr(m, "True") || !strcmp(m, "toBeTruthy") || !strcmp(m, "toBeDefined"))
			return truthy_operand(c->operands[a]) || rt_st_self_compare(c->operands[a]);
		if ((strstr(m, "Equal") || !strcmp(m, "assertIs") || !strcmp(m, "toBe") ||
		    strstr(m, "Same")) && c->noperands >= a + 2)
			return !strcmp(c->operands[a], c->operands[a + 1]);
	}
	return 0;
}

static int
inv_tautology(struct guard *g, const char *rule)
{
	size_t i, j;
	struct rt_st_file *f;
	const rt_src_change *c;
	char q1[96], q2[96];

	for (i = 0; i < g->d.nf; i++) {
		f = &g->d.f[i];
		for (j = 0; f->parsed && j < f->nch; j++) {
			c = &f->ch[j];
			if (!c->after || !strcmp(c->change, "same") || !inv_cannot_fail(c->after))
				continue;
			if (c->before)
				return fire(g->d.res, rule, "adds an assertion that cannot fail: "
				    "`%s` at %s:%ld, in place of `%s` at %s:%ld of the original",
				    qc(c->after, q1, sizeof q1), f->path, c->after->line,
				    qc(c->before, q2, sizeof q2), f->path, c->before->line);
			return fire(g->d.res, rule, "adds an assertion that cannot fail: `%s` "
			    "at %s:%ld, to %s (%s:%ld of the original)",
			    qc(c->after, q1, sizeof q1), f->path, c->after->line, fn_name(c),
			    f->path, c->bfn ? c->bfn->line : 0L);
		}
	}
	return 0;
}

static int
inv_swallowed(struct guard *g, const char *rule)
{
	size_t i, j;
	struct rt_st_file *f;
	const rt_src_change *c;
	const rt_src_check *a;
	char q1[96], q2[96], orig[600];

	for (i = 0; i < g->d.nf; i++) {
		f = &g->d.f[i];
		for (j = 0; f->parsed && j < f->nch; j++) {
			c = &f->ch[j];
			a = c->after;
			if (!a || !a->guarded || !is_check_kind(a) ||
			    (c->before && c->before->guarded))
				continue;
			if (c->before)
				snprintf(orig, sizeof orig, "%s:%ld of the original", f->path,
				    c->before->line);
			else
				snprintf(orig, sizeof orig, "new; %s is at %s:%ld of the "
				    "original", fn_name(c), f->path, c->bfn ? c->bfn->line : 0L);
			if (!strcmp(a->guarded, "try") && a->guard_line)
				return fire(g->d.res, rule, "wraps `%s` at %s:%ld (%s) in a try "
				    "whose `%s` at %s:%ld swallows the failure",
				    qc(a, q1, sizeof q1), f->path, a->line, orig,
				    rt_st_quote_line(a->guard_text, q2, sizeof q2), f->path, a->guard_line);
			if (a->guard_line)
				return fire(g->d.res, rule, "wraps `%s` at %s:%ld (%s) in `%s` at "
				    "%s:%ld, which swallows the failure", qc(a, q1, sizeof q1),
				    f->path, a->line, orig, rt_st_quote_line(a->guard_text, q2, sizeof q2),
				    f->path, a->guard_line);
			return fire(g->d.res, rule, "puts `%s` at %s:%ld (%s) under a %s that "
			    "swallows the failure", qc(a, q1, sizeof q1), f->path, a->line,
			    orig, !strcmp(a->guarded, "recover") ? "deferred recover()" :
			    a->guarded);
		}
	}
	return 0;
}

/* ---- how much a check demands ---- */

/* 3 equality, 2 an order, membership, inequality or closeness, 1 mere
 * truthiness, presence or type. */
static int
expr_strength(const char *e)
{
	return strstr(e, "==") || strstr(e, "!=") || strstr(e, "Equal(") ||
	    strstr(e, "equal(") ? 3 : 1;
}

static int
check_strength(const rt_src_check *c)
{
	const char *op = c->op, *m = strrchr(c->callee, '.');
	const char *last = c->noperands ? c->operands[c->noperands - 1] : "";
	int neg = !strncmp(c->callee, "not.", 4) || strstr(c->callee, ".not.") ||
	    (!strcmp(c->kind, "expect") && !strcmp(op, "not"));
	size_t i;
	int s;

	m = m ? m + 1 : c->callee;
	/* a failure branch whose condition never holds: if x != x, if false */
	if (!strcmp(c->kind, "fail_branch")) {
		if (c->noperands == 2 && (!strcmp(op, "!=") || !strcmp(op, "<") ||
		    !strcmp(op, ">")))
			return !strcmp(c->operands[0], c->operands[1]);
		if (!strcmp(op, "truthy") && c->noperands >= 1)
			return rt_st_falsy_literal(c->operands[0]);
		if (!strcmp(op, "not") && c->noperands >= 1)
			return rt_st_truthy_literal(c->operands[0]);
		return 0;
	}
	if (!strcmp(c->kind, "assert")) {
		if (!strcmp(op, "==") || !strcmp(op, "is"))
			return 3;
		if (!strcmp(op, "is not"))
			return !strcmp(last, "None") ? 1 : 2;
		if (!strcmp(op, "truthy") || !strcmp(op, "not") || !*op)
			return c->noperands ? expr_strength(c->operands[0]) : 1;
		return 2;
	}
	if (!strcmp(c->kind, "fail_branch")) {      /* the failure's condition */
		if (!strcmp(op, "!="))
			return 3;
		if (!strcmp(op, "==") && (!strcmp(last, "nil") || !strcmp(last, "null")))
			return 1;
		if (!strcmp(op, "truthy") || !strcmp(op, "not") || !*op)
			return c->noperands ? expr_strength(c->operands[0]) : 1;
		return 2;
	}
	if (!strcmp(c->kind, "expect")) {
		if (!strcmp(m, "toBeDefined") || !strcmp(m, "toBeTruthy") ||
		    !strcmp(m, "toBeFalsy") || !strcmp(m, "toBeInstanceOf") ||
		    !strcmp(m, "toHaveBeenCalled") || !strcmp(m, "toBeTrue"))
			return 1;
		if (!strcmp(m, "toEqual") || !strcmp(m, "toBe") ||
		    !strcmp(m, "toStrictEqual") || !strcmp(m, "toBeNull") ||
		    !strcmp(m, "toBeUndefined") || !strcmp(m, "toMatchObject") ||
		    !strncmp(m, "toMatchSnapshot", 15) || !strncmp(m, "toMatchInline", 13) ||
		    !strcmp(m, "toHaveBeenCalledWith") || !strcmp(m, "toBeNaN"))
			return neg ? (!strcmp(m, "toBeNull") || !strcmp(m, "toBeUndefined") ? 1 : 2) : 3;
		return 2;
	}
	if (!strcmp(c->kind, "call")) {
		if (strstr(m, "IsNotNone") || strstr(m, "NotNil") || strstr(m, "NotEmpty") ||
		    strstr(m, "NotZero") || strstr(m, "IsInstance") || !strcmp(m, "Error") ||
		    !strcmp(m, "assert_called") || strstr(m, "Implements"))
			return 1;
		if (strstr(m, "True") || strstr(m, "False") || strstr(m, "Truthy")) {
			for (s = 1, i = 0; i < c->noperands; i++)
				if (expr_strength(c->operands[i]) > s)
					s = expr_strength(c->operands[i]);
			return s;
		}
		if (strstr(m, "Not"))
			return 2;
		if ((strstr(m, "Equal") || strstr(m, "equal")) && !strstr(m, "Almost") &&
		    !strstr(m, "Greater") && !strstr(m, "Less"))
			return 3;
		if (!strcmp(m, "assertIs") || strstr(m, "IsNone") || !strcmp(m, "Nil") ||
		    !strcmp(m, "NoError") || strstr(m, "Same") || strstr(m, "Exactly") ||
		    strstr(m, "called_with") || strstr(m, "called_once_with"))
			return 3;
		return 2;
	}
	return 2;
}

/* Is a (normalised) x of the patched check a projection of b (the
 * original's operand): len(b), str(b)[:n], type(b), bool(b), repr(b),
 * isinstance(b, ...), b.keys()? The projection's name in what. */
static int
projection(const char *a, const char *b, char *what, size_t size)
{
	static const char *const fns[] = { "len(", "str(", "type(", "bool(", "repr(",
		"isinstance(", "id(", "hash(", "reflect.TypeOf(", "typeof ", NULL };
	size_t nb = strlen(b), i, nf;

	if (!*b || !strcmp(a, b))
		return 0;
	for (i = 0; fns[i]; i++) {
		nf = strlen(fns[i]);
		if (strncmp(a, fns[i], nf) || strncmp(a + nf, b, nb))
			continue;
		if (a[nf + nb] == ')' || (a[nf + nb] == ',' && !strcmp(fns[i], "isinstance(")) ||
		    (!strcmp(fns[i], "typeof ") && !a[nf + nb])) {
			snprintf(what, size, "%s replaced by %s", b, a);
			return 1;
		}
	}
	if (!strncmp(a, b, nb) && (!strcmp(a + nb, ".keys()") || !strcmp(a + nb, ".length") ||
	    !strncmp(a + nb, "[:", 2) || !strcmp(a + nb, ".size()") ||
	    !strcmp(a + nb, ".length()"))) {
		snprintf(what, size, "%s replaced by %s", b, a);
		return 1;
	}
	if (!strncmp(a, "list(", 5) && !strncmp(a + 5, b, nb) && !strcmp(a + 5 + nb, ".keys())")) {
		snprintf(what, size, "%s replaced by %s", b, a);
		return 1;
	}
	return 0;
}

static int
num_of(const char *s, double *v)
{
	return s && rt_parse_double(s, v) == 0;
}

/* A tolerance widened: places fewer (assertAlmostEqual's default 7),
 * delta, rel or abs bigger. */
static int
tolerance_widened(const rt_src_check *b, const rt_src_check *a, char *what,
    size_t size)
{
	static const char *const keys[] = { "delta", "rel", "abs", NULL };
	const char *pb = rt_src_option(b, "places"), *pa = rt_src_option(a, "places");
	double vb, va;
	size_t i;

	if (!pb && strstr(b->callee, "AlmostEqual"))
		pb = "7";
	if (!pa && strstr(a->callee, "AlmostEqual") && !rt_src_option(a, "delta"))
		pa = "7";
	if (num_of(pb, &vb) && num_of(pa, &va) && va < vb) {
		snprintf(what, size, "places %s widened to %s", pb, pa);
		return 1;
	}
	for (i = 0; keys[i]; i++) {
		const char *ob = rt_src_option(b, keys[i]), *oa = rt_src_option(a, keys[i]);
		if (num_of(ob, &vb) && num_of(oa, &va) && va > vb) {
			snprintf(what, size, "%s %s widened to %s", keys[i], ob, oa);
			return 1;
		}
		/* a tolerance where the original's closeness had none */
		if (!ob && oa && (strstr(b->callee, "Almost") || strstr(b->text, "approx(") ||
		    strstr(b->text, "isclose(") || strstr(b->callee, "allclose")) &&
		    strcmp(keys[i], "delta")) {
			snprintf(what, size, "%s=%s added to the original's closeness", keys[i], oa);
			return 1;
		}
	}
	return 0;
}

/* ---- timing bounds: a clock-measured value whose bound is widened ---- */

/* The clocks a compared value may be measured by (rt-verify(1), GUARD:
 * "a check whose compared value a clock measures"). */
static const char *const clocks[] = {
	"performance.now", "Date.now", "process.hrtime", "process.hrtime.bigint",
	"time.time", "time.monotonic", "time.perf_counter", "time.time_ns",
	"time.monotonic_ns", "time.perf_counter_ns", "time.Since", "time.Now",
	"time.Until", NULL
};

static int
is_clock(const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; clocks[i]; i++)
		if (!strcmp(name, clocks[i]))
			return 1;
	/* time.Now().Sub(start), t0.Sub(...) after a clock read */
	return n > 4 && !strcmp(name + n - 4, ".Sub") && strstr(name, "time.Now");
}

/* Is operand s of check c measured by a clock: every call whose value the
 * check compares is a clock read (directly or through a name the test
 * assigned), or, with no such calls listed, s reads a clock itself? */
static int
clock_measured(const rt_src_check *c, const char *s)
{
	size_t i, n;

	for (i = 0; i < c->nuses; i++)
		if (!is_clock(c->uses[i]))
			return 0;
	if (c->nuses)
		return 1;
	for (i = 0; clocks[i]; i++) {
		n = strlen(clocks[i]);
		if (strstr(s, clocks[i]) && strstr(s, clocks[i])[n] == '(')
			return 1;
	}
	return 0;
}

/* A bound's number and its unit: "50 * time.Millisecond" (Go), "0.05"
 * (Python's seconds), "10" (JavaScript's milliseconds). */
static int
bound_of(const char *s, const rt_src_check *c, double *v, char *num, size_t nsize,
    const char **unit)
{
	static const struct { const char *go, *unit; } units[] = {
		{ "time.Nanosecond", "ns" }, { "time.Microsecond", "µs" },
		{ "time.Millisecond", "ms" }, { "time.Second", "s" },
		{ "time.Minute", "min" }, { "time.Hour", "h" }, { NULL, NULL }
	};
	char *end;
	const char *p;
	size_t i;

	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno || !isfinite(*v))
		return 0;
	snprintf(num, nsize, "%.*s", (int)(end - s), s);
	for (p = end; *p == ' '; p++)
		;
	*unit = "";
	if (*p == '*') {
		for (p++; *p == ' '; p++)
			;
		for (i = 0; units[i].go && strcmp(p, units[i].go); i++)
			;
		if (!units[i].go)
			return 0;
		*unit = units[i].unit;
		return 1;
	}
	if (*p)
		return 0;
	for (i = 0; i < c->nuses; i++)
		if (strstr(c->uses[i], "_ns") || strstr(c->uses[i], "hrtime"))
			return 1;
	if (!strcmp(c->kind, "fail_branch"))
		*unit = "ns";           /* a bare time.Duration */
	else if (!strcmp(c->kind, "expect") || strstr(c->text, "performance.now") ||
	    strstr(c->text, "Date.now"))
		*unit = "ms";
	else if (c->nuses && !strncmp(c->uses[0], "time.", 5))
		*unit = "s";
	return 1;
}

/* Does the check demand value < bound (1, an upper bound) or value >
 * bound (-1) with the bound at operand k (of two)? 0: neither. */
static int
bound_side(const rt_src_check *c, size_t k)
{
	const char *m = strrchr(c->callee, '.'), *op = c->op;
	int up;

	m = m ? m + 1 : c->callee;
	if (strstr(c->callee, "not.") || !strcmp(op, "not"))
		return 0;
	if (!strcmp(c->kind, "expect")) {
		if (k != 1)
			return 0;
		return !strncmp(m, "toBeLessThan", 12) ? 1 :
		    !strncmp(m, "toBeGreaterThan", 15) ? -1 : 0;
	}
	if (!strcmp(c->kind, "call")) {
		up = strstr(m, "Less") ? 1 : strstr(m, "Greater") ? -1 : 0;
		return k + 1 == c->noperands ? up : -up;
	}
	if (strcmp(c->kind, "assert") && strcmp(c->kind, "fail_branch"))
		return 0;
	up = !strcmp(op, "<") || !strcmp(op, "<=") ? 1 :
	    !strcmp(op, ">") || !strcmp(op, ">=") ? -1 : 0;
	if (!strcmp(c->kind, "fail_branch"))
		up = -up;       /* the condition is the failure's */
	return k == 1 ? up : -up;
}

/* A check whose compared value a clock measures, its bound alone changed
 * and widened (a larger upper bound, a smaller lower one): 1 with the
 * bounds as written in from/to and their unit. Such a change is not
 * neutering: the test still fails when the code really is slow. */
static int
timing_widened(const rt_src_check *b, const rt_src_check *a, char *from,
    char *to, size_t size, const char **unit)
{
	size_t k, bk = 0, nd = 0;
	double vb, va;
	const char *ub, *ua;
	int side;

	if (!is_check_kind(b) || !is_check_kind(a) || strcmp(b->kind, a->kind) ||
	    strcmp(b->callee, a->callee) || strcmp(b->op, a->op) ||
	    b->noperands != a->noperands || b->noperands < 2 || b->nopt != a->nopt)
		return 0;
	for (k = 0; k < b->noperands; k++)
		if (strcmp(b->operands[k], a->operands[k]))
			bk = k, nd++;
	if (nd != 1 || !literals_only(b->operands[bk], a->operands[bk]))
		return 0;
	for (k = 0; k < b->noperands; k++)
		if (k != bk && !(clock_measured(b, b->operands[k]) &&
		    clock_measured(a, a->operands[k])))
			return 0;
	if (b->noperands != 2 && strcmp(b->kind, "call"))
		return 0;
	side = bound_side(b, bk);
	if (!side || !bound_of(b->operands[bk], b, &vb, from, size, &ub) ||
	    !bound_of(a->operands[bk], a, &va, to, size, &ua) || strcmp(ub, ua))
		return 0;
	*unit = ub;
	return side > 0 ? va > vb : va < vb;
}

static const char *const strength_word[] = { "", "truthiness", "an order or membership", "equality" };

static int
inv_weakened(struct guard *g, const char *rule)
{
	size_t i, j, x, y;
	struct rt_st_file *f;
	const rt_src_change *c;
	const rt_src_check *b, *a;
	char q1[96], q2[96], what[300];
	int sb, sa, hit;

	for (i = 0; i < g->d.nf; i++) {
		f = &g->d.f[i];
		for (j = 0; f->parsed && j < f->nch; j++) {
			c = &f->ch[j];
			if (strcmp(c->change, "changed"))
				continue;
			b = c->before;
			a = c->after;
			hit = 0;
			if (!strcmp(b->kind, "raises")) {
				if (a->noperands && (!strcmp(a->operands[0], "Exception") ||
				    !strcmp(a->operands[0], "BaseException")) && b->noperands &&
				    strcmp(b->operands[0], a->operands[0])) {
					snprintf(what, sizeof what, "the expected %s widened to %s",
					    b->operands[0], a->operands[0]);
					hit = 1;
				}
			} else if (is_check_kind(b) && is_check_kind(a)) {
				sb = check_strength(b);
				sa = check_strength(a);
				if (sa < sb) {
					snprintf(what, sizeof what, "%s loosened to %s",
					    strength_word[sb], strength_word[sa]);
					if (*a->op && *b->op && strcmp(a->op, b->op))
						snprintf(what, sizeof what, "%s (%s) loosened to %s (%s)",
						    strength_word[sb], b->op, strength_word[sa], a->op);
					else if (strcmp(a->callee, b->callee))
						snprintf(what, sizeof what, "%s weakened to %s",
						    *b->callee ? b->callee : b->op,
						    *a->callee ? a->callee : a->op);
					hit = 1;
				}
				for (x = 0; !hit && x < a->noperands; x++)
					for (y = 0; !hit && y < b->noperands; y++)
						hit = projection(a->operands[x], b->operands[y], what,
						    sizeof what);
				if (!hit)
					hit = tolerance_widened(b, a, what, sizeof what);
			}
			if (hit)
				return fire(g->d.res, rule, "weakens a check (%s): %s:%ld `%s` "
				    "became %s:%ld `%s`", what, f->path, b->line,
				    qc(b, q1, sizeof q1), f->path, a->line, qc(a, q2, sizeof q2));
		}
	}
	return 0;
}

static int
inv_raises(struct guard *g, const char *rule)
{
	size_t i, j;
	struct rt_st_file *f;
	const rt_src_change *c;
	char q[96];

	for (i = 0; i < g->d.nf; i++) {
		f = &g->d.f[i];
		for (j = 0; f->parsed && j < f->nch; j++) {
			c = &f->ch[j];
			if (strcmp(c->change, "removed") || strcmp(c->before->kind, "raises"))
				continue;
			if (c->afn)
				return fire(g->d.res, rule, "removes the exception expectation "
				    "`%s` at %s:%ld of the original from %s, which expects none "
				    "at %s:%ld-%ld", qc(c->before, q, sizeof q), f->path,
				    c->before->line, fn_name(c), f->path, c->afn->line, c->afn->end);
			return fire(g->d.res, rule, "removes the exception expectation `%s` "
			    "at %s:%ld of the original with %s, which the patched %s does not "
			    "have", qc(c->before, q, sizeof q), f->path, c->before->line,
			    fn_name(c), f->path);
		}
	}
	return 0;
}

/* Did check c (removed from its function) move to a helper that the
 * patched function calls? */
static int
moved_to_helper(const struct rt_st_file *f, const rt_src_change *c)
{
	size_t i, k;
	const char *fnm, *cl, *dot;

	if (!c->afn)
		return 0;
	for (i = 0; i < f->nch; i++) {
		const rt_src_change *d = &f->ch[i];
		if (strcmp(d->change, "added") || d->afn == c->afn ||
		    strcmp(d->after->text, c->before->text))
			continue;
		fnm = strrchr(d->afn->name, '.');
		fnm = fnm ? fnm + 1 : d->afn->name;
		for (k = 0; k < c->afn->ncalls; k++) {
			cl = c->afn->calls[k];
			dot = strrchr(cl, '.');
			if (!strcmp(dot ? dot + 1 : cl, fnm))
				return 1;
		}
	}
	return 0;
}

static int
inv_removed(struct guard *g, const char *rule)
{
	size_t i, j, k, n;
	struct rt_st_file *f;
	const rt_src_change *c, *first;
	rt_buf why = { 0 };
	int hunk;

	for (i = 0; i < g->d.nf; i++) {
		f = &g->d.f[i];
		for (n = 0, first = NULL, j = 0; f->parsed && j < f->nch; j++) {
			c = &f->ch[j];
			if (strcmp(c->change, "removed") || !is_check_kind(c->before) ||
			    !strcmp(c->before->kind, "raises") || moved_to_helper(f, c))
				continue;
			if (!first)
				first = c;
			if (n == 6)
				rt_buf_adds(&why, ", ...");
			if (n++ >= 6)
				continue;
			if (n > 1)
				rt_buf_adds(&why, ", ");
			for (hunk = 0, k = 0; k < f->n; k++)
				if (f->l[k].kind == RT_ST_DEL && f->l[k].ln == c->before->line)
					hunk = f->l[k].hunk;
			if (hunk && c->before->line <= (long)f->before.n)
				rt_st_how_removed(&why, f, hunk, f->before.code[c->before->line - 1],
				    c->before->line);
			else {
				char q[96];
				rt_buf_printf(&why, "drops `%s` at %s:%ld", qc(c->before, q, sizeof q),
				    f->path, c->before->line);
			}
		}
		if (!n)
			continue;
		if (first->afn)
			fire(g->d.res, rule, "%s loses %zu assertion%s: %s (lines of the "
			    "original), from %s (%s:%ld of the patched file)", f->path, n,
			    n == 1 ? "" : "s", rt_buf_str(&why), fn_name(first), f->path,
			    first->afn->line);
		else
			fire(g->d.res, rule, "%s loses %zu assertion%s: %s (lines of the "
			    "original), with %s (%s:%ld of the original) deleted", f->path, n,
			    n == 1 ? "" : "s", rt_buf_str(&why), fn_name(first), f->path,
			    first->bfn ? first->bfn->line : 0L);
		rt_buf_free(&why);
		return 1;
	}
	rt_buf_free(&why);
	return 0;
}

/* An exit (sys.exit, os._exit, os.Exit, raise SystemExit, ...) that ends
 * the test successfully: no status, or 0, None, False. */
static int
successful_exit(const rt_src_check *c)
{
	static const char *const exits[] = {
		"sys.exit", "os._exit", "exit", "quit", "SystemExit", "os.Exit",
		"runtime.Goexit", "process.exit", NULL
	};
	const char *a = c->noperands ? c->operands[0] : "";
	size_t i;

	for (i = 0; exits[i] && strcmp(c->callee, exits[i]); i++)
		;
	if (strcmp(c->kind, "return") || !exits[i])
		return 0;
	return !*a || !strcmp(a, "0") || !strcmp(a, "None") || !strcmp(a, "False") ||
	    !strcmp(a, "EXIT_SUCCESS") || !strcmp(c->callee, "runtime.Goexit");
}

/* A successful exit added to a test, anywhere in it. */
static int
inv_early_exit(struct guard *g, const char *rule)
{
	size_t i, j;
	struct rt_st_file *f;
	const rt_src_change *c;
	char q[96];

	for (i = 0; i < g->d.nf; i++) {
		f = &g->d.f[i];
		for (j = 0; f->parsed && j < f->nch; j++) {
			c = &f->ch[j];
			if (!c->after || !c->afn || !c->afn->test || !strcmp(c->change, "same") ||
			    !successful_exit(c->after) || (c->before && successful_exit(c->before)))
				continue;
			return fire(g->d.res, rule, "adds a successful exit: `%s` at %s:%ld, "
			    "in %s (%s:%ld of the original)", qc(c->after, q, sizeof q),
			    f->path, c->after->line, fn_name(c), f->path,
			    c->bfn ? c->bfn->line : 0L);
		}
	}
	return 0;
}

/* A check put under a branch that never runs (if False:, if 0 and ...,
 * Go's if false {). */
static int
inv_dead(struct guard *g, const char *rule)
{
	size_t i, j;
	struct rt_st_file *f;
	const rt_src_change *c;
	const rt_src_check *a;
	char q1[96], q2[96], orig[600];

	for (i = 0; i < g->d.nf; i++) {
		f = &g->d.f[i];
		for (j = 0; f->parsed && j < f->nch; j++) {
			c = &f->ch[j];
			a = c->after;
			if (!a || !a->dead_line || !is_check_kind(a) ||
			    (c->before && c->before->dead_line))
				continue;
			if (c->before)
				snprintf(orig, sizeof orig, "%s:%ld of the original", f->path,
				    c->before->line);
			else
				snprintf(orig, sizeof orig, "new; %s is at %s:%ld of the "
				    "original", fn_name(c), f->path, c->bfn ? c->bfn->line : 0L);
			return fire(g->d.res, rule, "puts `%s` at %s:%ld (%s) under `%s` at "
			    "%s:%ld, which never runs", qc(a, q1, sizeof q1), f->path, a->line,
			    orig, rt_st_quote_line(a->dead_text ? a->dead_text : "", q2,
			    sizeof q2), f->path, a->dead_line);
		}
	}
	return 0;
}

/* The last component of a dotted name. */
static const char *
base_name(const char *s)
{
	const char *d = strrchr(s, '.');

	return d ? d + 1 : s;
}

/* Does any function of file f call name (by its last component)? */
static int
file_calls(const rt_src_file *f, const char *name)
{
	size_t i, k;

	for (i = 0; f && i < f->nfns; i++)
		for (k = 0; k < f->fns[i].ncalls; k++)
			if (!strcmp(base_name(f->fns[i].calls[k]), base_name(name)))
				return 1;
	return 0;
}

/* A call whose value a check of the original compares (its "uses") that
 * the patched file no longer makes: the check now compares something
 * else than the code under test. */
static int
inv_call_removed(struct guard *g, const char *rule)
{
	size_t i, j, k;
	struct rt_st_file *f;
	const rt_src_change *c;
	const rt_src_check *b;
	char q[96];

	for (i = 0; i < g->d.nf; i++) {
		f = &g->d.f[i];
		for (j = 0; f->parsed && f->ai && j < f->nch; j++) {
			c = &f->ch[j];
			b = c->before;
			if (!b || !c->bfn || !c->bfn->test || !c->afn || !is_check_kind(b))
				continue;
			for (k = 0; k < b->nuses; k++)
				if (file_calls(f->bi, b->uses[k]) && !file_calls(f->ai, b->uses[k]))
					return fire(g->d.res, rule, "%s no longer calls %s(), whose "
					    "value `%s` at %s:%ld of the original checked (%s, %s:%ld "
					    "of the patched file)", f->path, b->uses[k],
					    qc(b, q, sizeof q), f->path, b->line, fn_name(c), f->path,
					    c->afn->line);
		}
	}
	return 0;
}

/* ---- the rules: the inventory's for parsed files, text for the rest ---- */

static int
rule_skip(struct guard *g, const char *rule)
{
	return inv_skip(g, rule) || rt_st_patterns(&g->d, rule);
}

static int
rule_exit(struct guard *g, const char *rule)
{
	return inv_early_exit(g, rule) || rt_st_patterns(&g->d, rule);
}

static int
rule_if0(struct guard *g, const char *rule)
{
	return inv_dead(g, rule) || rt_st_patterns(&g->d, rule);
}

static int
rule_calls(struct guard *g, const char *rule)
{
	return inv_call_removed(g, rule) || rt_st_call_removed(&g->d, rule);
}

static int
rule_return(struct guard *g, const char *rule)
{
	return inv_early_return(g, rule) || rt_st_early_return(&g->d, rule);
}

static int
rule_taut(struct guard *g, const char *rule)
{
	return inv_tautology(g, rule) || rt_st_tautology(&g->d, rule);
}

static int
rule_text(struct guard *g, const char *rule)
{
	return rt_st_patterns(&g->d, rule);
}

static int
rule_weaken(struct guard *g, const char *rule)
{
	return inv_weakened(g, rule) || rt_st_weakened(&g->d, rule);
}

static int
rule_remove(struct guard *g, const char *rule)
{
	return inv_removed(g, rule) || rt_st_removed(&g->d, rule);
}

/* ---- what the patch does to the tests' checks ---- */

static json_t *
side_json(const rt_src_check *c)
{
	return c ? json_pack("{s:I,s:s}", "line", (json_int_t)c->line, "text",
	    c->source && *c->source ? c->source : c->text) : json_null();
}

/* The added line of f's hunk that widens the timing bound of removed line
 * j (rt_st_timing_widened), or f->n. */
static size_t
text_timing_pair(const struct rt_st_file *f, size_t j, char *from, char *to,
    size_t size)
{
	size_t k;

	for (k = 0; k < f->n; k++)
		if (f->l[k].kind == RT_ST_ADD && f->l[k].hunk == f->l[j].hunk &&
		    f->l[k].ln >= 1 && (size_t)f->l[k].ln <= f->after.n &&
		    f->l[j].ln >= 1 && (size_t)f->l[j].ln <= f->before.n &&
		    rt_st_timing_widened(f->before.code[f->l[j].ln - 1],
		    f->after.code[f->l[k].ln - 1], from, to, size))
			return k;
	return f->n;
}

/* res->changes_checks and res->checks: the inventories' differences, and
 * for the test files read by text rules the assertion lines changed. */
static void
record_changes(struct guard *g, rt_guard_result *res)
{
	json_t *arr = json_array(), *o;
	size_t i, j;
	struct rt_st_file *f;
	char *s, *done, fr[64], to[64];
	int full = 0;

	for (i = 0; i < g->d.nf; i++) {
		f = &g->d.f[i];
		if (!f->test)
			continue;
		for (j = 0; f->parsed && j < f->nch; j++) {
			const rt_src_change *c = &f->ch[j];
			const char *what = c->change, *unit = "";
			char w[300], fr[64], to[64];
			int timing;
			if (!strcmp(what, "same"))
				continue;
			res->changes_checks = 1;
			timing = !strcmp(what, "changed") &&
			    timing_widened(c->before, c->after, fr, to, sizeof fr, &unit);
			if (timing)
				what = "timing-bound-loosened";
			else if (!strcmp(what, "changed") && is_check_kind(c->before) &&
			    is_check_kind(c->after) &&
			    (check_strength(c->after) < check_strength(c->before) ||
			    tolerance_widened(c->before, c->after, w, sizeof w)))
				what = "weakened";
			o = json_pack("{s:s,s:s,s:s,s:o,s:o}", "file", f->path, "function",
			    fn_name(c), "change", what, "before", side_json(c->before),
			    "after", side_json(c->after));
			if (timing && o)
				json_object_set_new(o, "bound", json_pack("{s:s,s:s,s:s,s:s+++++++}",
				    "before", fr, "after", to, "unit", unit, "words",
				    "loosens a timing bound from ", fr, *unit ? " " : "", unit,
				    " to ", to, *unit ? " " : "", unit));
			if (!full && o) {
				json_array_append(arr, o);
				s = json_dumps(arr, JSON_COMPACT);
				if (!s || strlen(s) >= sizeof res->checks) {
					json_array_remove(arr, json_array_size(arr) - 1);
					full = 1;
				}
				free(s);
			}
			json_decref(o);
		}
		done = f->parsed ? NULL : rt_xcalloc(f->n + 1, 1);
		for (j = 0; !f->parsed && j < f->n; j++) {
			const struct rt_st_text *t = f->l[j].kind == RT_ST_ADD ? &f->after : &f->before;
			long ln = f->l[j].ln;
			size_t k = f->n;
			if (f->l[j].kind == RT_ST_CTX || done[j] || ln < 1 || (size_t)ln > t->n ||
			    !rt_st_is_assert_at(t, (size_t)ln - 1, f->lang))
				continue;
			res->changes_checks = 1;
			if (f->l[j].kind == RT_ST_DEL)
				k = text_timing_pair(f, j, fr, to, sizeof fr);
			if (k < f->n) {
				const char *line = t->line[ln - 1], *unit =
				    strstr(line, "performance.now(") || strstr(line, "Date.now(") ? "ms" :
				    strstr(line, "time.") && f->lang == RT_L_PY ? "s" : "";
				done[k] = 1;
				o = json_pack("{s:s,s:s,s:s,s:{s:I,s:s},s:{s:I,s:s},s:{s:s,s:s,s:s,s:s+++++++}}",
				    "file", f->path, "function", "", "change", "timing-bound-loosened",
				    "before", "line", (json_int_t)ln, "text", rt_st_skip_space(line),
				    "after", "line", (json_int_t)f->l[k].ln, "text",
				    rt_st_skip_space(f->after.line[f->l[k].ln - 1]), "bound",
				    "before", fr, "after", to, "unit", unit, "words",
				    "loosens a timing bound from ", fr, *unit ? " " : "", unit,
				    " to ", to, *unit ? " " : "", unit);
			} else {
				o = json_pack("{s:s,s:s,s:s}", "file", f->path, "function", "",
				    "change", f->l[j].kind == RT_ST_ADD ? "added" : "removed");
				json_object_set_new(o, f->l[j].kind == RT_ST_ADD ? "before" : "after",
				    json_null());
				json_object_set_new(o, f->l[j].kind == RT_ST_ADD ? "after" : "before",
				    json_pack("{s:I,s:s}", "line", (json_int_t)ln, "text",
				    rt_st_skip_space(t->line[ln - 1])));
			}
			if (!full) {
				json_array_append(arr, o);
				s = json_dumps(arr, JSON_COMPACT);
				if (!s || strlen(s) >= sizeof res->checks) {
					json_array_remove(arr, json_array_size(arr) - 1);
					full = 1;
				}
				free(s);
			}
			json_decref(o);
		}
		free(done);
	}
	s = json_array_size(arr) ? json_dumps(arr, JSON_COMPACT) : NULL;
	snprintf(res->checks, sizeof res->checks, "%s", s ? s : "");
	free(s);
	json_decref(arr);
}

/* ---- the entry point ---- */

typedef int (*rule_fn)(struct guard *, const char *);

static const struct { const char *rule; rule_fn fn; } rule_order[] = {
	{ "early-exit", rule_exit },
	{ "early-return", rule_return },
	{ "skip", rule_skip },
	{ "or-true", rule_text },
	{ "if-0", rule_if0 },
	{ "tautology", rule_taut },
	{ "assertion-swallowed", inv_swallowed },
	{ "expected-value-changed", rule_expected },
	{ "assertion-weakened", rule_weaken },
	{ "raises-removed", inv_raises },
	{ "assertion-removed", rule_remove },
	{ "call-removed", rule_calls },
};

static int
allowed(const char *rule, char *const *allow, size_t nallow)
{
	size_t i;

	for (i = 0; i < nallow; i++)
		if (allow[i] && !strcmp(allow[i], rule))
			return 1;
	return 0;
}

/* What fired in scratch: overruled when allowed (0), else the verdict (1). */
static int
settle(const rt_guard_result *scratch, char *const *allow, size_t nallow,
    rt_guard_result *res)
{
	rt_guard_hit *h;

	if (allowed(scratch->rule, allow, nallow)) {
		if (res->noverruled < RT_GUARD_MAXOVER) {
			h = &res->overruled[res->noverruled++];
			h->rule = scratch->rule;
			snprintf(h->reason, sizeof h->reason, "%s", scratch->reason);
		}
		return 0;
	}
	res->rule = scratch->rule;
	snprintf(res->reason, sizeof res->reason, "%s", scratch->reason);
	return 1;
}

int
rt_guard_check(const char *diff, const char *before_dir, const char *after_dir,
    rt_guard_result *res)
{
	return rt_guard_check_allow(diff, before_dir, after_dir, NULL, 0, res);
}

int
rt_guard_check_allow(const char *diff, const char *before_dir,
    const char *after_dir, char *const *allow, size_t nallow,
    rt_guard_result *res)
{
	return rt_guard_check_cmd(diff, before_dir, after_dir, allow, nallow, NULL,
	    NULL, res);
}

int
rt_guard_check_cmd(const char *diff, const char *before_dir,
    const char *after_dir, char *const *allow, size_t nallow,
    const char *command, char *const *argv, rt_guard_result *res)
{
	rt_guard_result *scratch = rt_xcalloc(1, sizeof *scratch);
	struct guard g;
	size_t i, j;
	int r = 0;

	memset(res, 0, sizeof *res);
	memset(&g, 0, sizeof g);
	g.d.res = scratch;
	g.command = command;
	g.argv = argv;
	for (i = 0; i < nallow; i++)
		if (!rt_guard_rule_known(allow[i])) {
			snprintf(res->reason, sizeof res->reason, "unknown guard rule \"%s\"",
			    allow[i] ? allow[i] : "(null)");
			free(scratch);
			return -1;
		}
	if (!diff || !*diff) {
		fire(scratch, "guard-undecided", "the patch is empty");
		goto undecided;
	}
	if (parse_diff(&g, diff) < 0)
		goto undecided;
	for (i = 0; i < g.d.nf; i++) {
		struct rt_st_file *f = &g.d.f[i];
		if (!rt_st_safe_relpath(f->path)) {
			fire(scratch, "guard-undecided", "unsafe path %s", f->path);
			goto undecided;
		}
		f->lang = RT_L_OTHER;
		if (load_side(&g, f, before_dir, &f->before, "original", &f->bexists) < 0 ||
		    load_side(&g, f, after_dir, &f->after, "patched", &f->aexists) < 0)
			goto undecided;
		f->lang = rt_st_lang_of(f->path, f->before.n ? f->before.line[0] :
		    f->after.n ? f->after.line[0] : NULL);
		if (f->lang != RT_L_OTHER) {
			/* reload with the language's comment syntax */
			struct rt_st_text t;
			for (j = 0; j < 2; j++) {
				struct rt_st_text *side = j ? &f->after : &f->before;
				rt_buf b = { 0 };
				size_t k;
				for (k = 0; k < side->n; k++) {
					rt_buf_adds(&b, side->line[k]);
					rt_buf_addc(&b, '\n');
				}
				rt_st_text_load(&t, b.len ? rt_buf_str(&b) : "", f->lang);
				rt_buf_free(&b);
				rt_st_text_free(side);
				*side = t;
			}
		}
		/* a test file by its name, or by what it holds before or after */
		f->test = rt_guard_is_test_path(f->path) ||
		    rt_st_test_by_content(&f->before, f->lang) ||
		    rt_st_test_by_content(&f->after, f->lang);
	}
	if (load_inventories(&g, before_dir, after_dir, res) < 0)
		goto undecided;
	record_changes(&g, res);
	for (i = 0; i < sizeof rule_order / sizeof rule_order[0] && !r; i++) {
		scratch->rule = NULL;
		if (rule_order[i].fn(&g, rule_order[i].rule))
			r = settle(scratch, allow, nallow, res);
	}
	goto done;
undecided:
	r = settle(scratch, allow, nallow, res);
done:
	for (i = 0; i < g.d.nf; i++) {
		for (j = 0; j < g.d.f[i].n; j++)
			free(g.d.f[i].l[j].text);
		free(g.d.f[i].l);
		free(g.d.f[i].path);
		free(g.d.f[i].ch);
		rt_st_text_free(&g.d.f[i].before);
		rt_st_text_free(&g.d.f[i].after);
	}
	free(g.d.f);
	for (i = 0; i < NLANG; i++)
		for (j = 0; j < 2; j++)
			rt_src_inv_free(&g.inv[i][j]);
	free(scratch);
	return r;
}

