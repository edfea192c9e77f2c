/* rt_guard: the neutering guard — static rules over a unified diff and the
 * files it touches, and the assertion canary placed in the test the
 * command runs. Fails closed. */
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rt_guard.h"
#include "rt_runner.h"
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

enum { K_CTX, K_ADD, K_DEL };

struct dline {
	int kind;
	long ln;        /* in the new file for K_ADD, the old one for K_DEL */
	int hunk;
	char *text;
};


struct dfile {
	char *path;             /* the judged path (new side, or old if deleted) */
	int lang, test;
	struct dline *l;
	size_t n, cap;
	struct rt_st_text before, after;
	int nhunks;
	int bexists, aexists;
	/* read by the language's parser: both inventories, their differences */
	int parsed;
	const rt_src_file *bi, *ai;
	rt_src_change *ch;
	size_t nch;
};

#define NLANG 3
static const char *const src_langs[NLANG] = { "python", "go", "javascript" };

struct guard {
	struct dfile *f;
	size_t nf;
	rt_guard_result *res;
	const char *command;
	char *const *argv;
	rt_src_inv inv[NLANG][2];       /* per language: the original, the patched */
};

/* Text rules judge only what no parser reads: shell, JavaScript without a
 * parser, languages without a helper. A Python or Go file is its parser's
 * (a test file's inventory) or not judged statically at all. */
static int
text_judged(const struct dfile *f)
{
	return !f->parsed && !(f->lang & (RT_L_PY | RT_L_GO));
}

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

/* ---- comments ---- */




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
add_dline(struct dfile *f, int kind, long ln, int hunk, const char *text, size_t n)
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
	struct dfile *f = NULL;
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
				add_dline(f, K_CTX, newln, hunk, p + (n > 0), n ? n - 1 : 0);
				oldln++, newln++, remold--, remnew--;
			} else if (*p == '-') {
				add_dline(f, K_DEL, oldln, hunk, p + 1, n - 1);
				oldln++, remold--;
			} else if (*p == '+') {
				add_dline(f, K_ADD, newln, hunk, p + 1, n - 1);
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
				fire(g->res, "guard-undecided", "the patch renames %s to %s",
				    oldp, newp);
				free(oldp);
				free(newp);
				return -1;
			}
			if (g->nf == cap) {
				cap = cap ? cap * 2 : 8;
				g->f = rt_xrealloc(g->f, cap * sizeof *g->f);
			}
			f = &g->f[g->nf++];
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
				fire(g->res, "guard-undecided", "a hunk comes before any file header");
				return -1;
			}
			b = d = 1;
			if (sscanf(p, "@@ -%ld,%ld +%ld,%ld @@", &a, &b, &c, &d) != 4) {
				b = d = 1;
				if (sscanf(p, "@@ -%ld +%ld,%ld @@", &a, &c, &d) != 3 &&
				    sscanf(p, "@@ -%ld,%ld +%ld @@", &a, &b, &c) != 3 &&
				    sscanf(p, "@@ -%ld +%ld @@", &a, &c) != 2) {
					fire(g->res, "guard-undecided", "unreadable hunk header in %s",
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
			fire(g->res, "guard-undecided", "the patch changes a binary file");
			return -1;
		}
		if (!e)
			break;
		p = e + 1;
	}
	if (g->nf == 0) {
		fire(g->res, "guard-undecided", "the patch names no file");
		return -1;
	}
	for (n = 0; n < g->nf; n++)
		if (g->f[n].nhunks == 0) {
			fire(g->res, "guard-undecided", "the patch has no hunk for %s",
			    g->f[n].path);
			return -1;
		}
	return 0;
}


static int
load_side(struct guard *g, struct dfile *f, const char *dir, struct rt_st_text *t,
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
		fire(g->res, "guard-undecided", "cannot read the %s %s: %s",
		    side, f->path, strerror(errno));
		return -1;
	}
	if (memchr(s, '\0', len)) {
		free(s);
		fire(g->res, "guard-undecided", "%s is not text", f->path);
		return -1;
	}
	rt_st_text_load(t, s, f->lang);
	free(s);
	return 0;
}

/* ---- pattern rules on added lines ---- */

#define B "(^|[^A-Za-z0-9_])"
#define BD "(^|[^A-Za-z0-9_.])"
#define S "[[:space:]]*"
#define SHSEP "(^|[;&|({[:space:]])"
#define SHEND "[[:space:]]*($|[;&|)}])"

static struct pat {
	const char *rule;
	int langs, test_only;
	const char *re;
	const char *what;
	regex_t rx;
	int ok;
	int final_ok;   /* not when it is the script's kept final exit */
} pats[] = {
	{ "early-exit", RT_L_ANY, 0, B "sys\\.exit" S "\\(" S "(0|None|False)?" S "\\)", "a successful sys.exit", {0}, 0, 0 },
	{ "early-exit", RT_L_ANY, 0, B "os\\._exit" S "\\(", "os._exit", {0}, 0, 0 },
	{ "early-exit", RT_L_PY | RT_L_RB | RT_L_C | RT_L_OTHER, 0, BD "(exit|quit|_exit|_Exit|quick_exit)" S "\\(" S "(0|EXIT_SUCCESS)?" S "\\)", "a successful exit()", {0}, 0, 0 },
	{ "early-exit", RT_L_ANY, 0, "raise" S "SystemExit(" S "\\(" S "(0|None|False)?" S "\\))?" S "$", "raise SystemExit", {0}, 0, 0 },
	{ "early-exit", RT_L_ANY, 0, "os\\.Exit" S "\\(" S "0" S "\\)", "os.Exit(0)", {0}, 0, 0 },
	{ "early-exit", RT_L_ANY, 0, "process\\.exit" S "\\(" S "0?" S "\\)", "process.exit", {0}, 0, 0 },
	{ "early-exit", RT_L_ANY, 0, "System\\.exit" S "\\(" S "0" S "\\)", "System.exit(0)", {0}, 0, 0 },
	{ "early-exit", RT_L_ANY, 0, "process::exit" S "\\(" S "0" S "\\)", "process::exit(0)", {0}, 0, 0 },
	{ "early-exit", RT_L_SH, 0, SHSEP "exit([[:space:]]+0)?" SHEND, "a successful shell exit", {0}, 0, 1 },
	{ "early-exit", RT_L_SH, 1, SHSEP "return([[:space:]]+0)?" SHEND, "a successful shell return", {0}, 0, 0 },
	{ "skip", RT_L_ANY, 0, "pytest\\.(skip|xfail|importorskip)" S "\\(", "a pytest skip", {0}, 0, 0 },
	{ "skip", RT_L_ANY, 0, "@pytest\\.mark\\.(skip|skipif|xfail)", "a pytest skip marker", {0}, 0, 0 },
	{ "skip", RT_L_ANY, 0, "@(unittest\\.)?(skip|skipIf|skipUnless|expectedFailure)([^A-Za-z0-9_]|$)", "a unittest skip decorator", {0}, 0, 0 },
	{ "skip", RT_L_ANY, 0, "raise" S "(unittest\\.)?SkipTest", "raise SkipTest", {0}, 0, 0 },
	{ "skip", RT_L_ANY, 0, "\\.skipTest" S "\\(", "skipTest", {0}, 0, 0 },
	{ "skip", RT_L_ANY, 0, "\\.(Skip|SkipNow|Skipf)" S "\\(", "a Go t.Skip", {0}, 0, 0 },
	{ "skip", RT_L_ANY, 0, "GTEST_SKIP", "GTEST_SKIP", {0}, 0, 0 },
	{ "skip", RT_L_ANY, 0, B "DISABLED_", "a DISABLED_ test name", {0}, 0, 0 },
	{ "skip", RT_L_ANY, 0, "@(Ignore|Disabled)([^A-Za-z0-9_]|$)", "an @Ignore/@Disabled annotation", {0}, 0, 0 },
	{ "skip", RT_L_ANY, 0, B "(it|describe|test|context)\\.(skip|todo)" S "\\(", "a .skip test", {0}, 0, 0 },
	{ "skip", RT_L_JS | RT_L_RB, 0, B "x(it|describe|test)" S "\\(", "an x-disabled test", {0}, 0, 0 },
	{ "skip", RT_L_RS | RT_L_OTHER, 0, "#\\[ignore", "#[ignore]", {0}, 0, 0 },
	{ "skip", RT_L_SH, 0, "^[[:space:]]*skip([[:space:]]|$)", "a bats skip", {0}, 0, 0 },
	{ "skip", RT_L_RB, 0, B "skip" S "(\\(|\"|'|$)", "a skip", {0}, 0, 0 },
	{ "or-true", RT_L_ANY, 0, "\\|\\|" S "(true|:)" SHEND, "|| true", {0}, 0, 0 },
	{ "or-true", RT_L_SH, 0, SHSEP "set[[:space:]]+\\+e", "set +e", {0}, 0, 0 },
	{ "if-0", RT_L_ANY, 0, "^[[:space:]]*#[[:space:]]*if[[:space:]]+(0|false|FALSE)([^A-Za-z0-9_]|$)", "#if 0", {0}, 0, 0 },
	{ "if-0", RT_L_PY, 0, "^[[:space:]]*(el)?if[[:space:]]+(False|0|None)" S ":", "if False:", {0}, 0, 0 },
	{ "if-0", RT_L_PY, 0, "^[[:space:]]*while[[:space:]]+(False|0)" S ":", "while False:", {0}, 0, 0 },
	{ "if-0", RT_L_C | RT_L_JS | RT_L_JAVA, 0, B "if" S "\\(" S "(false|0)" S "\\)", "if (false)", {0}, 0, 0 },
	{ "if-0", RT_L_ANY, 0, "(and|&&)" S "(False|false|0)" S "(:|\\)|\\{|$|;)", "a condition made false", {0}, 0, 0 },
	{ "if-0", RT_L_GO | RT_L_SH | RT_L_RS | RT_L_RB, 0, "^[[:space:]]*if[[:space:]]+false" S "(\\{|;|$|[[:space:]]then)", "if false", {0}, 0, 0 },
};

static int
pats_compile(rt_guard_result *res)
{
	static int done;
	size_t i;
	char msg[128];
	int rc;

	if (done)
		return 0;
	for (i = 0; i < sizeof pats / sizeof pats[0]; i++) {
		rc = regcomp(&pats[i].rx, pats[i].re, REG_EXTENDED | REG_NOSUB);
		if (rc != 0) {
			regerror(rc, &pats[i].rx, msg, sizeof msg);
			fire(res, "guard-undecided", "internal pattern %zu: %s", i, msg);
			return -1;
		}
		pats[i].ok = 1;
	}
	done = 1;
	return 0;
}

/* A lone "exit" or "exit 0" statement. */
static int
is_lone_exit(const char *code)
{
	while (*code == ' ' || *code == '\t')
		code++;
	if (strncmp(code, "exit", 4) != 0)
		return 0;
	code += 4;
	while (*code == ' ' || *code == '\t')
		code++;
	if (*code == '0')
		code++;
	while (*code == ' ' || *code == '\t' || *code == ';')
		code++;
	return *code == '\0';
}


/* A shell script's final "exit 0", re-added by a patch that rewrites the
 * script's end, is not an early exit: it is the last statement of the
 * patched script and the original ended with the same statement, so
 * nothing is skipped and no status is newly masked. An exit anywhere else,
 * or one the original did not end with (it would mask the status of the
 * last command), still fires. */
static int
kept_final_exit(const struct dfile *f, long ln)
{
	size_t i;

	if (!is_lone_exit(f->after.code[ln - 1]))
		return 0;
	for (i = (size_t)ln; i < f->after.n; i++)
		if (!rt_st_is_blank(f->after.code[i]))
			return 0;
	for (i = f->before.n; i > 0; i--)
		if (!rt_st_is_blank(f->before.code[i - 1]))
			return is_lone_exit(f->before.code[i - 1]);
	return 0;
}

static int
rule_patterns(struct guard *g, const char *rule)
{
	size_t i, j, k;
	struct dfile *f;
	const char *code;
	char q[96];

	for (k = 0; k < sizeof pats / sizeof pats[0]; k++) {
		if (strcmp(pats[k].rule, rule) != 0)
			continue;
		for (i = 0; i < g->nf; i++) {
			f = &g->f[i];
			if (!(pats[k].langs & f->lang) || (pats[k].test_only && !f->test) ||
			    !text_judged(f))
				continue;
			for (j = 0; j < f->n; j++) {
				if (f->l[j].kind != K_ADD)
					continue;
				if (f->l[j].ln < 1 || (size_t)f->l[j].ln > f->after.n)
					continue;
				code = f->after.code[f->l[j].ln - 1];
				if (regexec(&pats[k].rx, code, 0, NULL, 0) == 0 &&
				    !(pats[k].final_ok && kept_final_exit(f, f->l[j].ln)))
					return fire(g->res, rule, "adds %s: `%s` at %s:%ld",
					    pats[k].what, rt_st_quote_line(code, q, sizeof q),
					    f->path, f->l[j].ln);
			}
		}
	}
	return 0;
}

/* ---- assertions ---- */

static int
has_word(const char *s, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = s; (p = strstr(p, w)); p++)
		if ((p == s || !rt_st_is_ident(p[-1])) && !rt_st_is_ident(p[n]))
			return 1;
	return 0;
}



static int
is_assert_code(const char *c, int lang)
{
	if (strstr(c, "assert") || strstr(c, "Assert") || strstr(c, "ASSERT") ||
	    strstr(c, "EXPECT_") || strstr(c, "expect(") || strstr(c, "expect ") ||
	    has_word(c, "CHECK") || has_word(c, "REQUIRE") || strstr(c, ".should"))
		return 1;
	if (rt_st_is_failure_line(c, lang))
		return 1;
	if ((lang & RT_L_SH) && rt_st_matches(c, "^[[:space:]]*(\\[|\\[\\[|test)[[:space:]]|\\|\\|" S "(false|fail)([[:space:]]|$|;)"))
		return 1;
	return 0;
}


/* Line i (0-based) of t an assertion: an assertion call, a failure report,
 * or an "if" whose body (the next lines, deeper) reports a failure. */
static int
is_assert_at(const struct rt_st_text *t, size_t i, int lang)
{
	const char *c = t->code[i];
	size_t j, in, seen = 0;

	if (is_assert_code(c, lang))
		return 1;
	if (!rt_st_matches(c, "^[[:space:]]*(if|elif|unless)[[:space:](]"))
		return 0;
	in = rt_st_indent_of(c);
	for (j = i + 1; j < t->n && seen < 4; j++) {
		if (!t->code[j][0])
			continue;
		if (rt_st_indent_of(t->code[j]) <= in && !rt_st_matches(t->code[j], "^[[:space:]]*(then|\\{)"))
			break;
		if (rt_st_is_failure_line(t->code[j], lang))
			return 1;
		seen++;
	}
	return 0;
}

/* The whitespace-free form of a line, for "is this the same line". */
static char *
squash(const char *s)
{
	char *o = rt_xmalloc(strlen(s) + 1), *p = o;

	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			*p++ = *s;
	*p = '\0';
	return o;
}

/* Literals (strings without interpolation, numbers, true/false/null)
 * replaced by placeholders, whitespace dropped. */
static char *
literal_shape(const char *s)
{
	char *o = rt_xmalloc(2 * strlen(s) + 2), *p = o;
	const char *e;
	char q;
	size_t n;
	int interp;

	while (*s) {
		if (isspace((unsigned char)*s)) {
			s++;
		} else if (*s == '"' || *s == '\'') {
			q = *s;
			for (e = s + 1; *e && *e != q; e++)
				if (*e == '\\' && e[1])
					e++;
			interp = 0;
			if (q == '"' && memchr(s, '$', (size_t)(e - s)))
				interp = 1;
			if (q == '"' && memchr(s, '{', (size_t)(e - s)))
				interp = 1;
			n = (size_t)(e - s) + (*e ? 1 : 0);
			if (interp) {
				memcpy(p, s, n);
				p += n;
			} else {
				*p++ = 'S';
			}
			s += n;
		} else if (isdigit((unsigned char)*s) && (p == o || !rt_st_is_ident(p[-1]))) {
			while (isalnum((unsigned char)*s) || *s == '.' || *s == '_')
				s++;
			*p++ = 'N';
		} else if (rt_st_is_ident(*s)) {
			for (e = s; rt_st_is_ident(*e); e++)
				;
			n = (size_t)(e - s);
			if ((n == 4 && (!strncmp(s, "True", 4) || !strncmp(s, "true", 4) ||
			    !strncmp(s, "None", 4) || !strncmp(s, "null", 4) ||
			    !strncmp(s, "NULL", 4))) || (n == 5 && (!strncmp(s, "False", 5) ||
			    !strncmp(s, "false", 5))) || (n == 3 && !strncmp(s, "nil", 3)) ||
			    (n == 7 && !strncmp(s, "nullptr", 7))) {
				*p++ = 'L';
			} else {
				memcpy(p, s, n);
				p += n;
			}
			s = e;
		} else {
			*p++ = *s++;
		}
	}
	*p = '\0';
	return o;
}

/* How much an assertion demands: 3 equality, 2 an order, membership,
 * inequality or closeness, 1 mere truthiness. */
static int
strength(const char *c, int lang)
{
	if (strstr(c, "NotEqual") || strstr(c, "_NE") || strstr(c, "!=") ||
	    strstr(c, " is not ") || strstr(c, "-ne ") || strstr(c, "IsNot") ||
	    strstr(c, "not.to"))
		return 2;
	if (strstr(c, "==") || strstr(c, "Equal") || strstr(c, "_EQ") ||
	    strstr(c, "toBe(") || strstr(c, "toEqual") || strstr(c, "assertIs(") ||
	    has_word(c, "is") || strstr(c, "-eq ") || strstr(c, "Same"))
		return 3;
	if ((lang & RT_L_SH) && (strstr(c, " = ") || strstr(c, " == ")))
		return 3;
	if (strstr(c, "-lt ") || strstr(c, "-gt ") || strstr(c, "-le ") ||
	    strstr(c, "-ge ") || has_word(c, "in") || strstr(c, "Contain") ||
	    strstr(c, "Less") || strstr(c, "Greater") || strstr(c, "_LT") ||
	    strstr(c, "_GT") || strstr(c, "_LE") || strstr(c, "_GE") ||
	    strstr(c, "pprox") || strstr(c, "Almost") || strstr(c, "Near") ||
	    strstr(c, "CloseTo") || strstr(c, "Match") || strstr(c, "Regex") ||
	    strstr(c, "startswith") || strstr(c, "endswith") || strstr(c, "In("))
		return 2;
	if (!(lang & RT_L_SH) && (strchr(c, '<') || strchr(c, '>')))
		return 2;
	return 1;
}

/* Split s (after an opening paren) into top-level comma-separated args up
 * to the matching ')'; returns the number (at most max), *end after ')'. */
static int
split_args(const char *s, char args[][160], int max, const char **end)
{
	int depth = 0, n = 0;
	size_t len = 0;
	char q = 0;

	for (; *s; s++) {
		if (q) {
			if (*s == '\\' && s[1]) {
				if (len < 158)
					args[n][len++] = *s;
				s++;
			} else if (*s == q) {
				q = 0;
			}
		} else if (*s == '"' || *s == '\'') {
			q = *s;
		} else if (*s == '(' || *s == '[' || *s == '{') {
			depth++;
		} else if (*s == ')' || *s == ']' || *s == '}') {
			if (depth == 0) {
				args[n][len] = '\0';
				if (end)
					*end = s + 1;
				return len > 0 || n > 0 ? n + 1 : 0;
			}
			depth--;
		} else if (*s == ',' && depth == 0) {
			args[n][len] = '\0';
			if (n + 1 >= max)
				return -1;
			n++;
			len = 0;
			continue;
		}
		if (len < 158)
			args[n][len++] = *s;
	}
	return -1;
}


static int
truthy_literal(const char *s)
{
	static const char *const t[] = {
		"True", "true", "TRUE", "!0", "!false", "not False", "not None",
		"not 0", "(True)", "(true)", NULL
	};
	size_t i, n = strlen(s);

	for (i = 0; t[i]; i++)
		if (strcmp(s, t[i]) == 0)
			return 1;
	if (n > 0 && strspn(s, "0123456789") == n && strspn(s, "0") != n)
		return 1;
	if (n > 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0])
		return 1;
	return 0;
}

static int
falsy_literal(const char *s)
{
	static const char *const f[] = {
		"False", "false", "FALSE", "0", "nil", "None", "NULL", "nullptr", NULL
	};
	size_t i;

	for (i = 0; f[i]; i++)
		if (strcmp(s, f[i]) == 0)
			return 1;
	return 0;
}

/* "A op A" at the top level, op one that holds for equal sides. */
static int
self_compare(const char *expr)
{
	static const char *const ops[] = { "===", "==", " is ", ">=", "<=", NULL };
	const char *p;
	char a[256], b[256];
	size_t i, n;
	int r;

	for (i = 0; ops[i]; i++) {
		if (!(p = strstr(expr, ops[i])))
			continue;
		n = (size_t)(p - expr);
		if (n >= sizeof a || strlen(p + strlen(ops[i])) >= sizeof b)
			return 0;
		memcpy(a, expr, n);
		a[n] = '\0';
		snprintf(b, sizeof b, "%s", p + strlen(ops[i]));
		rt_st_trim(a);
		rt_st_trim(b);
		if (!*a)
			continue;
		{
			char *sa = squash(a), *sb = squash(b);
			r = strcmp(sa, sb) == 0;
			free(sa);
			free(sb);
		}
		if (r)
			return 1;
		if (truthy_literal(a) && truthy_literal(b) && strcmp(a, b) == 0)
			return 1;
	}
	return 0;
}

/* Can this assertion line fail? 1 when it cannot. */
static int
tautology(const char *c, int lang)
{
	char args[4][160], expr[512], name[64];
	const char *p, *q, *end;
	size_t n;
	int na;

	/* assert EXPR [, msg] (Python) */
	if ((lang & RT_L_PY) && rt_st_matches(c, "^[[:space:]]*assert([[:space:](]|$)")) {
		p = strstr(c, "assert") + 6;
		while (isspace((unsigned char)*p))
			p++;
		snprintf(expr, sizeof expr, "(%s)", p);
		na = split_args(expr + 1, args, 4, NULL);
		if (na >= 1) {
			rt_st_trim(args[0]);
			if (truthy_literal(args[0]) || self_compare(args[0]))
				return 1;
			n = strlen(args[0]);
			if ((n > 8 && strcmp(args[0] + n - 8, " or True") == 0) ||
			    (n > 5 && strcmp(args[0] + n - 5, " or 1") == 0))
				return 1;
			if (args[0][0] == '(' && args[0][strlen(args[0]) - 1] == ')') {
				args[0][strlen(args[0]) - 1] = '\0';
				if (truthy_literal(args[0] + 1) || self_compare(args[0] + 1))
					return 1;
			}
		}
	}
	/* shell: [ A op A ], [ literal ], test ... */
	if (lang & RT_L_SH) {
		const char *b = strstr(c, "[ ");
		char tok[3][160];
		int nt = 0;

		if (!b && (b = strstr(c, "test ")))
			b += 3;
		if (b) {
			p = b + 2;
			while (nt < 3) {
				while (*p == ' ')
					p++;
				if (!*p || *p == ']')
					break;
				q = p;
				while (*q && *q != ' ')
					q++;
				n = (size_t)(q - p);
				if (n >= 160)
					break;
				memcpy(tok[nt], p, n);
				tok[nt][n] = '\0';
				nt++;
				p = q;
			}
			while (*p == ' ')
				p++;
			if (*p == ']' || *p == '\0' || *p == ';' || *p == '|' || *p == '&') {
				if (nt == 1 && !strchr(tok[0], '$') && tok[0][0] != '-')
					return 1;
				if (nt == 3 && (!strcmp(tok[1], "=") || !strcmp(tok[1], "==") ||
				    !strcmp(tok[1], "-eq") || !strcmp(tok[1], "-le") ||
				    !strcmp(tok[1], "-ge")) && strcmp(tok[0], tok[2]) == 0)
					return 1;
			}
		}
	}
	/* NAME(args): assertTrue(True), EXPECT_TRUE(true), EXPECT_EQ(x, x),
	 * assert(1), expect(x).toBe(x) */
	for (p = c; *p; p++) {
		if (!rt_st_is_ident(*p) || (p > c && rt_st_is_ident(p[-1])))
			continue;
		for (q = p; rt_st_is_ident(*q); q++)
			;
		n = (size_t)(q - p);
		if (n == 0 || n >= sizeof name)
			continue;
		memcpy(name, p, n);
		name[n] = '\0';
		while (*q == ' ')
			q++;
		if (*q != '(')
			continue;
		if (!(strstr(name, "assert") || strstr(name, "Assert") ||
		    strstr(name, "ASSERT") || strstr(name, "EXPECT") ||
		    !strcmp(name, "CHECK") || !strcmp(name, "REQUIRE") ||
		    !strcmp(name, "expect") || !strcmp(name, "ok")))
			continue;
		na = split_args(q + 1, args, 4, &end);
		if (na <= 0)
			continue;
		for (int i = 0; i < na; i++)
			rt_st_trim(args[i]);
		if (na >= 2 && (!strcmp(args[0], "t") || !strcmp(args[0], "self"))) {
			memmove(args[0], args[1], sizeof args[0] * 3);
			na--;
		}
		if (!strcmp(name, "expect")) {
			const char *m = end;
			char b2[4][160];
			int nb;

			if (strncmp(m, ".toBeTruthy()", 13) == 0 && truthy_literal(args[0]))
				return 1;
			if (strncmp(m, ".toBe(", 6) == 0 || strncmp(m, ".toEqual(", 9) == 0 ||
			    strncmp(m, ".toStrictEqual(", 15) == 0) {
				nb = split_args(strchr(m, '(') + 1, b2, 4, NULL);
				if (nb == 1) {
					char *sa, *sb;
					int r;
					rt_st_trim(b2[0]);
					sa = squash(args[0]);
					sb = squash(b2[0]);
					r = strcmp(sa, sb) == 0;
					free(sa);
					free(sb);
					if (r)
						return 1;
				}
			}
			continue;
		}
		if (strstr(name, "Not") || strstr(name, "NOT") || strstr(name, "_NE"))
			continue;
		if (strstr(name, "False") || strstr(name, "FALSE")) {
			if (falsy_literal(args[0]))
				return 1;
			continue;
		}
		if (strstr(name, "Equal") || strstr(name, "_EQ") || strstr(name, "Same") ||
		    strstr(name, "_STREQ") || !strcmp(name, "assertIs")) {
			if (na >= 2) {
				char *sa = squash(args[0]), *sb = squash(args[1]);
				int r = strcmp(sa, sb) == 0;
				free(sa);
				free(sb);
				if (r)
					return 1;
			}
			continue;
		}
		if (na == 1 || strstr(name, "True") || strstr(name, "TRUE")) {
			if (truthy_literal(args[0]) || self_compare(args[0]))
				return 1;
		}
	}
	return 0;
}

static int
rule_tautology(struct guard *g, const char *rule)
{
	size_t i, j;
	struct dfile *f;
	const char *c;
	char q[96];

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		if (!f->test || f->parsed)
			continue;
		for (j = 0; j < f->n; j++) {
			if (f->l[j].kind != K_ADD || f->l[j].ln < 1 ||
			    (size_t)f->l[j].ln > f->after.n)
				continue;
			c = f->after.code[f->l[j].ln - 1];
			if (is_assert_code(c, f->lang) && tautology(c, f->lang))
				return fire(g->res, rule,
				    "adds an assertion that cannot fail: `%s` at %s:%ld",
				    rt_st_quote_line(c, q, sizeof q), f->path, f->l[j].ln);
		}
	}
	return 0;
}

/* ---- pairing removed and added assertions ---- */

struct pair { const char *del, *add; long dln, aln; };

/* The assertion lines a hunk removes and adds, with lines that merely
 * moved or were re-indented cancelled out. */
static void
hunk_asserts(struct dfile *f, int hunk, const char **del, long *dln, size_t *nd,
    const char **add, long *aln, size_t *na, size_t max)
{
	size_t j, a, b;
	char *sa, *sb;
	int same;

	*nd = *na = 0;
	for (j = 0; j < f->n; j++) {
		struct dline *l = &f->l[j];
		if (l->hunk != hunk || l->ln < 1)
			continue;
		if (l->kind == K_DEL && (size_t)l->ln <= f->before.n &&
		    is_assert_at(&f->before, (size_t)l->ln - 1, f->lang) && *nd < max) {
			dln[*nd] = l->ln;
			del[(*nd)++] = f->before.code[l->ln - 1];
		} else if (l->kind == K_ADD && (size_t)l->ln <= f->after.n &&
		    is_assert_at(&f->after, (size_t)l->ln - 1, f->lang) && *na < max) {
			aln[*na] = l->ln;
			add[(*na)++] = f->after.code[l->ln - 1];
		}
	}
	for (a = 0; a < *nd; a++) {
		for (b = 0; b < *na; b++) {
			sa = squash(del[a]);
			sb = squash(add[b]);
			same = strcmp(sa, sb) == 0;
			free(sa);
			free(sb);
			if (!same)
				continue;
			memmove(&del[a], &del[a + 1], (*nd - a - 1) * sizeof *del);
			memmove(&dln[a], &dln[a + 1], (*nd - a - 1) * sizeof *dln);
			memmove(&add[b], &add[b + 1], (*na - b - 1) * sizeof *add);
			memmove(&aln[b], &aln[b + 1], (*na - b - 1) * sizeof *aln);
			(*nd)--, (*na)--, a--;
			break;
		}
	}
}

#define MAXA 256

static int
rule_weakened(struct guard *g, const char *rule)
{
	const char *del[MAXA], *add[MAXA];
	long dln[MAXA], aln[MAXA];
	size_t i, j, nd, na, k;
	int h;
	struct dfile *f;
	char q1[96], q2[96];

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		if (!f->test || f->parsed)
			continue;
		for (j = 0, h = 0; j < f->n; j++) {
			if (f->l[j].hunk == h)
				continue;
			h = f->l[j].hunk;
			hunk_asserts(f, h, del, dln, &nd, add, aln, &na, MAXA);
			for (k = 0; k < nd && k < na; k++)
				if (strength(add[k], f->lang) < strength(del[k], f->lang))
					return fire(g->res, rule,
					    "weakens an assertion: `%s` (%s:%ld of the original) "
					    "became `%s` at %s:%ld",
					    rt_st_quote_line(del[k], q1, sizeof q1), f->path, dln[k],
					    rt_st_quote_line(add[k], q2, sizeof q2), f->path, aln[k]);
		}
	}
	return 0;
}

/* ---- the call under test ---- */

static int
boring_call(const char *n, int lang)
{
	static const char *const common[] = {
		"if", "while", "for", "switch", "return", "sizeof", "print", "printf",
		"len", "str", "int", "float", "bool", "list", "dict", "set", "tuple",
		"repr", "type", "isinstance", "sorted", "range", "abs", "min", "max",
		"any", "all", "not", "and", "or", "in", "is", "format", "string",
		"strip", "lower", "upper", "decode", "encode", "join", "split",
		"Sprintf", "Printf", "String", "TrimSpace", "defined", "catch",
		"function", "def", "func", "lambda", "elif", "else", "with", "except",
		"append", "get", "keys", "values", "items", NULL
	};
	static const char *const sh[] = {
		"echo", "printf", "cat", "grep", "sed", "awk", "tr", "cut", "head",
		"tail", "wc", "sort", "uniq", "true", "false", "test", "[", "date",
		"sleep", "expr", "basename", "dirname", "env", "mktemp", "rm", "ls",
		"mkdir", "pwd", NULL
	};
	size_t i;

	for (i = 0; common[i]; i++)
		if (!strcmp(n, common[i]))
			return 1;
	if (lang & RT_L_SH)
		for (i = 0; sh[i]; i++)
			if (!strcmp(n, sh[i]))
				return 1;
	if (strstr(n, "assert") || strstr(n, "Assert") || strstr(n, "ASSERT") ||
	    strstr(n, "EXPECT") || strstr(n, "expect") || strstr(n, "Error") ||
	    strstr(n, "Fatal") || strstr(n, "CHECK") || strstr(n, "REQUIRE") ||
	    !strncmp(n, "to", 2) || strstr(n, "Fail") || strstr(n, "fail"))
		return 1;
	return 0;
}

struct names { char **v; size_t n, cap; };

static void
names_add(struct names *s, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strlen(s->v[i]) == n && !strncmp(s->v[i], p, n))
			return;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = rt_xrealloc(s->v, s->cap * sizeof *s->v);
	}
	s->v[s->n] = rt_xmalloc(n + 1);
	memcpy(s->v[s->n], p, n);
	s->v[s->n][n] = '\0';
	s->n++;
}

static void
names_free(struct names *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

/* Calls on a line: NAME( for most languages (the last component of a
 * dotted name), the command words of $( ) and backquotes for the shell. */
static void
calls_in(const char *c, int lang, struct names *out)
{
	const char *p, *q, *w;
	char buf[128];
	size_t n;

	if (lang & RT_L_SH) {
		for (p = c; *p; p++) {
			if (!((p[0] == '$' && p[1] == '(' && p[2] != '(') || p[0] == '`'))
				continue;
			p += p[0] == '$' ? 2 : 1;
			while (*p == ' ')
				p++;
			for (q = p; *q && !strchr(" \t)`;|&", *q); q++)
				;
			n = (size_t)(q - p);
			if (n > 0 && n < sizeof buf) {
				memcpy(buf, p, n);
				buf[n] = '\0';
				if (!boring_call(buf, lang) && !strchr(buf, '='))
					names_add(out, p, n);
			}
			if (!*q)
				break;
			p = q;
		}
		return;
	}
	for (p = c; *p; p++) {
		if (!rt_st_is_ident(*p) || (p > c && (rt_st_is_ident(p[-1]) || p[-1] == '.')))
			continue;
		for (q = p; rt_st_is_ident(*q) || (*q == '.' && rt_st_is_ident(q[1])); q++)
			;
		w = q;
		while (w > p && w[-1] != '.')
			w--;
		n = (size_t)(q - w);
		while (*q == ' ')
			q++;
		if (*q != '(' || n == 0 || n >= sizeof buf) {
			p = q - 1 > p ? q - 1 : p;
			continue;
		}
		/* a definition is not a call */
		if ((p >= c + 4 && !strncmp(p - 4, "def ", 4)) ||
		    (p >= c + 5 && !strncmp(p - 5, "func ", 5)) ||
		    (p >= c + 9 && !strncmp(p - 9, "function ", 9)))
			continue;
		memcpy(buf, w, n);
		buf[n] = '\0';
		if (!boring_call(buf, lang) && !isdigit((unsigned char)buf[0]))
			names_add(out, w, n);
	}
}

/* Variables an assertion line reads. */
static void
vars_in(const char *c, int lang, struct names *out)
{
	const char *p, *q;

	for (p = c; *p; p++) {
		if (lang & RT_L_SH) {
			if (*p != '$')
				continue;
			p++;
			if (*p == '{')
				p++;
		} else if (!rt_st_is_ident(*p) || (p > c && (rt_st_is_ident(p[-1]) || p[-1] == '.'))) {
			continue;
		}
		for (q = p; rt_st_is_ident(*q); q++)
			;
		if (q > p && !isdigit((unsigned char)*p))
			names_add(out, p, (size_t)(q - p));
		if (!*q)
			break;
		p = q;
	}
}

/* "name = ..." / "name := ..." / "type name = ..." / "name=$(...)":
 * the assigned name and where its right-hand side starts. */
static const char *
assignment(const char *c, int lang, char *name, size_t size)
{
	const char *p = c, *eq = NULL, *s;
	size_t n;

	while (*p && !eq) {
		if (*p == '=' && p[1] != '=' && (p == c || !strchr("=!<>+-*/%&|^:", p[-1])))
			eq = p;
		else if (*p == ':' && p[1] == '=')
			eq = p + 1;
		else if (*p == '(' || *p == '"' || *p == '\'' || *p == '[')
			return NULL;
		else
			p++;
	}
	if (!eq)
		return NULL;
	s = eq[-1] == ':' ? eq - 1 : eq;
	while (s > c && isspace((unsigned char)s[-1]))
		s--;
	if ((lang & RT_L_SH) && s != (eq[-1] == ':' ? eq - 1 : eq))
		return NULL;
	p = s;
	while (p > c && rt_st_is_ident(p[-1]))
		p--;
	n = (size_t)(s - p);
	if (n == 0 || n >= size || isdigit((unsigned char)*p))
		return NULL;
	memcpy(name, p, n);
	name[n] = '\0';
	return eq + 1;
}

static int
calls_name(const struct rt_st_text *t, const char *name, int lang)
{
	struct names s = { 0 };
	size_t i, j;
	int found = 0;

	for (i = 0; i < t->n && !found; i++) {
		if (lang & RT_L_SH) {
			const char *p, *c = t->code[i];
			size_t n = strlen(name);
			for (p = c; (p = strstr(p, name)); p++)
				if ((p == c || strchr(" \t($`;|&{", p[-1])) &&
				    (p[n] == '\0' || strchr(" \t)`;|&}", p[n]))) {
					found = 1;
					break;
				}
			continue;
		}
		calls_in(t->code[i], lang, &s);
		for (j = 0; j < s.n; j++)
			if (!strcmp(s.v[j], name))
				found = 1;
		names_free(&s);
		memset(&s, 0, sizeof s);
	}
	return found;
}

static int
rule_call_removed(struct guard *g, const char *rule)
{
	size_t i, j, k;
	struct dfile *f;
	struct names vars, calls;
	char name[128];
	const char *rhs;
	int r = 0;

	for (i = 0; i < g->nf && !r; i++) {
		f = &g->f[i];
		if (!f->test || !text_judged(f))
			continue;
		memset(&vars, 0, sizeof vars);
		memset(&calls, 0, sizeof calls);
		for (j = 0; j < f->before.n; j++)
			if (is_assert_at(&f->before, j, f->lang)) {
				vars_in(f->before.code[j], f->lang, &vars);
				calls_in(f->before.code[j], f->lang, &calls);
			}
		for (j = 0; j < f->before.n; j++) {
			if (is_assert_at(&f->before, j, f->lang))
				continue;
			if (!(rhs = assignment(f->before.code[j], f->lang, name, sizeof name)))
				continue;
			for (k = 0; k < vars.n; k++)
				if (!strcmp(vars.v[k], name))
					calls_in(rhs, f->lang, &calls);
		}
		for (k = 0; k < calls.n && !r; k++)
			if (calls_name(&f->before, calls.v[k], f->lang) &&
			    !calls_name(&f->after, calls.v[k], f->lang))
				r = fire(g->res, rule,
				    "%s no longer calls %s%s, which its assertions checked",
				    f->path, calls.v[k], (f->lang & RT_L_SH) ? "" : "()");
		names_free(&vars);
		names_free(&calls);
	}
	return r;
}

/* ---- functions and test files by content ---- */

/* Patterns compiled once, by index. */
enum {
	RX_PY_DEFTEST, RX_PY_TESTCASE, RX_PY_SELFASSERT, RX_PY_TOPASSERT,
	RX_GO_TEST, RX_JS_TEST, RX_JS_EXPECT, RX_SH_TEST, RX_C_TEST,
	RX_PY_RETURN, RX_GO_RETURN, RX_JS_RETURN, RX_PY_EXCEPT, RX_PY_SUPPRESS,
	RX_N
};
static const char *const rx_src[RX_N] = {
	"^[[:space:]]*(async[[:space:]]+)?def[[:space:]]+test",
	"^[[:space:]]*class[[:space:]]+[A-Za-z_0-9]+[[:space:]]*\\(.*TestCase",
	"self\\.assert[A-Z_][A-Za-z_]*[[:space:]]*\\(",
	"^assert([[:space:](]|$)",
	"^func[[:space:]]+Test[A-Za-z0-9_]*[[:space:]]*\\([[:space:]]*[A-Za-z_][A-Za-z0-9_]*[[:space:]]+\\*testing\\.T[[:space:]]*\\)",
	"(^|[^A-Za-z0-9_.$])(test|it)[[:space:]]*\\(",
	"(^|[^A-Za-z0-9_.$])expect[[:space:]]*\\(",
	"^[[:space:]]*@test[[:space:]]",
	"^[[:space:]]*(TEST|TEST_F|TEST_P)[[:space:]]*\\(|@Test([^A-Za-z0-9_]|$)",
	"^[[:space:]]*return[[:space:]]*(None)?[[:space:]]*$",
	"^[[:space:]]*return[[:space:]]*$",
	"^[[:space:]]*return[[:space:]]*;?[[:space:]]*$",
	"^[[:space:]]*except([[:space:]]|:|\\()",
	"^[[:space:]]*with[[:space:]].*suppress[[:space:]]*\\(",
};
static regex_t rx_c[RX_N];
static int rx_done;

static int
rx(int id, const char *s)
{
	int i;

	if (!rx_done) {
		for (i = 0; i < RX_N; i++)
			if (regcomp(&rx_c[i], rx_src[i], REG_EXTENDED | REG_NOSUB) != 0)
				rt_die("rt_guard: internal pattern %d does not compile", i);
		rx_done = 1;
	}
	return regexec(&rx_c[id], s, 0, NULL, 0) == 0;
}

static int
test_by_content(const struct rt_st_text *t, int lang)
{
	size_t i;
	int test = 0, expect = 0;

	for (i = 0; i < t->n; i++) {
		const char *c = t->code[i];
		if (!*c)
			continue;
		if ((lang & (RT_L_PY | RT_L_RB)) && strstr(c, "def") && rx(RX_PY_DEFTEST, c))
			return 1;
		if ((lang & RT_L_PY) && ((strstr(c, "TestCase") && rx(RX_PY_TESTCASE, c)) ||
		    (strstr(c, "self.assert") && rx(RX_PY_SELFASSERT, c)) ||
		    (c[0] == 'a' && rx(RX_PY_TOPASSERT, c))))
			return 1;
		if ((lang & RT_L_GO) && !strncmp(c, "func", 4) && rx(RX_GO_TEST, c))
			return 1;
		if (lang & RT_L_JS) {
			test |= rx(RX_JS_TEST, c);
			expect |= rx(RX_JS_EXPECT, c);
			if (test && expect)
				return 1;
		}
		if ((lang & RT_L_SH) && rx(RX_SH_TEST, c))
			return 1;
		if ((lang & (RT_L_C | RT_L_JAVA)) && rx(RX_C_TEST, c))
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
	r = test_by_content(&t, lang);
	rt_st_text_free(&t);
	return r;
}









/* ---- early-return, assertion-swallowed ---- */

static int
is_return_line(const char *c, int lang)
{
	if (lang & RT_L_PY)
		return rx(RX_PY_RETURN, c);
	if (lang & RT_L_GO)
		return rx(RX_GO_RETURN, c);
	if (lang & RT_L_JS)
		return rx(RX_JS_RETURN, c);
	return 0;
}

/* A return added inside a test function, with an assertion after it in
 * the same body: the assertions below it no longer run. A return right
 * after a failure report (t.Fatalf; return) skips nothing. */
static int
rule_early_return(struct guard *g, const char *rule)
{
	size_t i, j, k;
	struct dfile *f;
	struct rt_st_fns fs;
	struct rt_st_fn *fn;
	long ln, prev;
	char q1[96], q2[96];
	int r = 0;

	for (i = 0; i < g->nf && !r; i++) {
		f = &g->f[i];
		if (!f->test || f->parsed || !(f->lang & (RT_L_PY | RT_L_GO | RT_L_JS)))
			continue;
		rt_st_functions(&f->after, f->lang, &fs);
		for (j = 0; j < f->n && !r; j++) {
			ln = f->l[j].ln;
			if (f->l[j].kind != K_ADD || ln < 1 || (size_t)ln > f->after.n ||
			    !is_return_line(f->after.code[ln - 1], f->lang))
				continue;
			for (prev = ln - 1; prev >= 1 && rt_st_is_blank(f->after.code[prev - 1]); prev--)
				;
			if (prev >= 1 && rt_st_is_failure_line(f->after.code[prev - 1], f->lang))
				continue;
			fn = rt_st_fn_at(&fs, ln);
			if ((f->lang & (RT_L_PY | RT_L_GO)) && (!fn || !fn->test))
				continue;
			for (k = (size_t)ln; k < (fn ? (size_t)fn->end : f->after.n); k++)
				if (is_assert_at(&f->after, k, f->lang)) {
					r = fire(g->res, rule, "adds `%s` at %s:%ld, before the "
					    "test's assertion `%s` at %s:%zu",
					    rt_st_quote_line(f->after.code[ln - 1], q1, sizeof q1), f->path,
					    ln, rt_st_quote_line(f->after.code[k], q2, sizeof q2), f->path,
					    k + 1);
					break;
				}
		}
		free(fs.v);
	}
	return r;
}

/* Does an except clause catch an assertion: bare, AssertionError,
 * Exception or BaseException? */
static int
catches_assertion(const char *c)
{
	const char *p = rt_st_skip_space(c) + 6;

	p = rt_st_skip_space(p);
	return *p == ':' || has_word(p, "AssertionError") || has_word(p, "Exception") ||
	    has_word(p, "BaseException");
}

/* Lines (0-based, exclusive end) deeper than line i's indentation. */
static size_t
block_end(const struct rt_st_text *t, size_t i)
{
	size_t in = rt_st_indent_of(t->code[i]), k, end = i + 1;

	for (k = i + 1; k < t->n; k++) {
		if (rt_st_is_blank(t->code[k]))
			continue;
		if (rt_st_indent_of(t->code[k]) <= in)
			break;
		end = k + 1;
	}
	return end;
}

static int
reraises(const struct rt_st_text *t, size_t from, size_t to)
{
	size_t k;

	for (k = from; k < to; k++)
		if (has_word(t->code[k], "raise") || strstr(t->code[k], "fail(") ||
		    strstr(t->code[k], "sys.exit("))
			return 1;
	return 0;
}

/* An added except clause (or "with suppress(...)") that swallows an
 * assertion failure of its block. */
static int
rule_swallowed(struct guard *g, const char *rule)
{
	size_t i, j, k, a, e;
	struct dfile *f;
	const struct rt_st_text *t;
	const char *c;
	long ln, tl;
	char q1[96], q2[96];

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		if (!f->test || f->parsed || !(f->lang & RT_L_PY))
			continue;
		t = &f->after;
		for (j = 0; j < f->n; j++) {
			ln = f->l[j].ln;
			if (f->l[j].kind != K_ADD || ln < 1 || (size_t)ln > t->n)
				continue;
			c = t->code[ln - 1];
			if (rx(RX_PY_EXCEPT, c) && catches_assertion(c)) {
				e = block_end(t, (size_t)ln - 1);
				if (reraises(t, (size_t)ln, e))
					continue;
				/* the try at the same indentation above it */
				for (tl = ln - 1; tl >= 1; tl--) {
					if (rt_st_is_blank(t->code[tl - 1]))
						continue;
					if (rt_st_indent_of(t->code[tl - 1]) < rt_st_indent_of(c))
						break;
					if (rt_st_indent_of(t->code[tl - 1]) == rt_st_indent_of(c) &&
					    !strncmp(rt_st_skip_space(t->code[tl - 1]), "try", 3) &&
					    !rt_st_is_ident(rt_st_skip_space(t->code[tl - 1])[3]))
						break;
				}
				if (tl < 1 || strncmp(rt_st_skip_space(t->code[tl - 1]), "try", 3) != 0)
					continue;
				for (a = (size_t)tl; a < (size_t)ln - 1; a++)
					if (is_assert_at(t, a, f->lang))
						return fire(g->res, rule, "wraps `%s` at %s:%zu in a try "
						    "whose `%s` at %s:%ld swallows the failure",
						    rt_st_quote_line(t->code[a], q1, sizeof q1), f->path, a + 1,
						    rt_st_quote_line(c, q2, sizeof q2), f->path, ln);
			} else if (rx(RX_PY_SUPPRESS, c) && (has_word(c, "AssertionError") ||
			    has_word(c, "Exception") || has_word(c, "BaseException"))) {
				e = block_end(t, (size_t)ln - 1);
				for (k = (size_t)ln; k < e; k++)
					if (is_assert_at(t, k, f->lang))
						return fire(g->res, rule, "wraps `%s` at %s:%zu in `%s` "
						    "at %s:%ld, which swallows the failure",
						    rt_st_quote_line(t->code[k], q1, sizeof q1), f->path, k + 1,
						    rt_st_quote_line(c, q2, sizeof q2), f->path, ln);
			}
		}
	}
	return 0;
}

/* ---- expected-value-changed: literals alone ---- */

/* The first identifier of a line, for "expected = ..." variables. */
static int
expect_var(const char *c, char *name, size_t size)
{
	char *eq;

	rt_st_copy_ident(rt_st_skip_space(c), name, size);
	if (!*name || !(strstr(name, "expect") || strstr(name, "Expect") ||
	    strstr(name, "want") || strstr(name, "Want") || strstr(name, "golden")))
		return 0;
	eq = strchr(c, '=');
	return eq && eq[1] != '=';
}

static int
inert(const char *c)
{
	c = rt_st_skip_space(c);
	return !*c || !strcmp(c, "pass") || !strcmp(c, "...");
}

static int tolerance_widened(const rt_src_check *b, const rt_src_check *a,
    char *what, size_t size);
static int is_check_kind(const rt_src_check *c);
static const char *qc(const rt_src_check *c, char *buf, size_t size);

/* Do two operands (or option values) differ only in their literals? */
static int
literals_only(const char *b, const char *a)
{
	char *sb = literal_shape(b), *sa = literal_shape(a);
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
inv_literal_pairs(const struct dfile *f, const rt_src_change **first)
{
	const rt_src_change *c;
	const rt_src_check *b, *a;
	char w[300];
	size_t i, k;
	int n = 0;

	for (i = 0; i < f->nch; i++) {
		c = &f->ch[i];
		if (!strcmp(c->change, "same"))
			continue;
		b = c->before;
		a = c->after;
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
in_changed_check(const struct dfile *f, int side, long ln)
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
	size_t i, j, k, npairs = 0;
	struct dfile *f, *pf = NULL, *ff = NULL;
	const rt_src_change *first = NULL, *fc;
	const char *d, *a;
	char *s1, *s2, n1[64], n2[64], q1[96], q2[96];
	char **used;
	long pd = 0, pa = 0;
	int other = 0, same, isexp, np;

	used = rt_xcalloc(g->nf, sizeof *used);
	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
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
		for (j = 0; j < f->n; j++) {
			if (f->l[j].kind != K_DEL || used[i][j] || f->l[j].ln < 1 ||
			    (size_t)f->l[j].ln > f->before.n)
				continue;
			d = f->before.code[f->l[j].ln - 1];
			for (k = 0; k < f->n; k++) {
				if (f->l[k].kind != K_ADD || used[i][k] ||
				    f->l[k].hunk != f->l[j].hunk || f->l[k].ln < 1 ||
				    (size_t)f->l[k].ln > f->after.n)
					continue;
				a = f->after.code[f->l[k].ln - 1];
				s1 = squash(d);
				s2 = squash(a);
				same = strcmp(s1, s2) == 0;
				free(s1);
				free(s2);
				if (same) {             /* moved or re-indented */
					used[i][j] = used[i][k] = 1;
					break;
				}
				if (!f->test || !text_judged(f))
					continue;
				isexp = (is_assert_at(&f->before, (size_t)f->l[j].ln - 1, f->lang) &&
				    is_assert_at(&f->after, (size_t)f->l[k].ln - 1, f->lang)) ||
				    (expect_var(d, n1, sizeof n1) && expect_var(a, n2, sizeof n2) &&
				    !strcmp(n1, n2));
				if (!isexp)
					continue;
				s1 = literal_shape(d);
				s2 = literal_shape(a);
				same = strcmp(s1, s2) == 0;
				free(s1);
				free(s2);
				if (!same)
					continue;
				used[i][j] = used[i][k] = 1;
				if (npairs++ == 0 || !pf) {
					pf = f;
					pd = f->l[j].ln;
					pa = f->l[k].ln;
				}
				break;
			}
		}
	}
	for (i = 0; i < g->nf && !other; i++) {
		f = &g->f[i];
		for (j = 0; j < f->n && !other; j++) {
			const struct rt_st_text *t = f->l[j].kind == K_ADD ? &f->after : &f->before;
			if (f->l[j].kind == K_CTX || used[i][j])
				continue;
			if (f->parsed && in_changed_check(f, f->l[j].kind == K_ADD, f->l[j].ln))
				continue;
			if (f->l[j].ln < 1 || (size_t)f->l[j].ln > t->n ||
			    !inert(t->code[f->l[j].ln - 1]))
				other = 1;
		}
	}
	for (i = 0; i < g->nf; i++)
		free(used[i]);
	free(used);
	if (npairs == 0 || other)
		return 0;
	if (first)
		return fire(g->res, rule, "changes nothing but the expected value: `%s` "
		    "(%s:%ld of the original) became `%s` at %s:%ld%s",
		    qc(first->before, q1, sizeof q1), ff->path, first->before->line,
		    qc(first->after, q2, sizeof q2), ff->path, first->after->line,
		    npairs > 1 ? ", and likewise elsewhere" : "");
	return fire(g->res, rule, "changes nothing but the expected value: `%s` "
	    "(%s:%ld of the original) became `%s` at %s:%ld%s",
	    rt_st_quote_line(pf->before.code[pd - 1], q1, sizeof q1), pf->path, pd,
	    rt_st_quote_line(pf->after.code[pa - 1], q2, sizeof q2), pf->path, pa,
	    npairs > 1 ? ", and likewise elsewhere" : "");
}

/* ---- assertion-removed, quoting each line ---- */

/* Say how a hunk disposed of a removed assertion: commented it out, put a
 * placeholder in its place, or deleted it. */
static void
how_removed(rt_buf *why, struct dfile *f, int hunk, const char *code, long ln)
{
	size_t j;
	char *sq = squash(code), *sl, q[96];
	const char *raw, *c, *ph = NULL;
	int commented = 0;

	for (j = 0; j < f->n && !commented && !ph; j++) {
		if (f->l[j].kind != K_ADD || f->l[j].hunk != hunk || f->l[j].ln < 1 ||
		    (size_t)f->l[j].ln > f->after.n)
			continue;
		raw = f->after.line[f->l[j].ln - 1];
		c = rt_st_skip_space(f->after.code[f->l[j].ln - 1]);
		sl = squash(raw);
		if (!*c && *sq && strstr(sl, sq))
			commented = 1;
		else if (!strcmp(c, "pass") || !strcmp(c, "True") || !strcmp(c, "...") ||
		    !strcmp(c, "None"))
			ph = c;
		free(sl);
	}
	free(sq);
	rt_st_quote_line(code, q, sizeof q);
	if (commented)
		rt_buf_printf(why, "comments out `%s` at %s:%ld", q, f->path, ln);
	else if (ph)
		rt_buf_printf(why, "replaces `%s` at %s:%ld by `%s`", q, f->path, ln, ph);
	else
		rt_buf_printf(why, "deletes `%s` at %s:%ld", q, f->path, ln);
}

static int
rule_removed(struct guard *g, const char *rule)
{
	const char *del[MAXA], *add[MAXA];
	long dln[MAXA], aln[MAXA];
	size_t i, j, k, nd, na, tdel, tadd, nq;
	int h;
	struct dfile *f;
	rt_buf why = { 0 };

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		if (!f->test || f->parsed)
			continue;
		tdel = tadd = nq = 0;
		rt_buf_free(&why);
		memset(&why, 0, sizeof why);
		for (j = 0, h = 0; j < f->n; j++) {
			if (f->l[j].hunk == h)
				continue;
			h = f->l[j].hunk;
			hunk_asserts(f, h, del, dln, &nd, add, aln, &na, MAXA);
			tdel += nd;
			tadd += na;
			for (k = nd > na ? na : nd; k < nd; k++, nq++) {
				if (nq == 6) {
					rt_buf_adds(&why, ", ...");
					continue;
				}
				if (nq > 6)
					continue;
				if (nq)
					rt_buf_adds(&why, ", ");
				how_removed(&why, f, h, del[k], dln[k]);
			}
		}
		if (tdel > tadd) {
			fire(g->res, rule, "%s loses %zu assertion%s: %s (lines of the original)",
			    f->path, tdel - tadd, tdel - tadd == 1 ? "" : "s",
			    why.len ? rt_buf_str(&why) : "moved between hunks");
			rt_buf_free(&why);
			return 1;
		}
	}
	rt_buf_free(&why);
	return 0;
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
 * patched test does not parse) fired in g->res. */
static int
load_inventories(struct guard *g, const char *before_dir, const char *after_dir,
    rt_guard_result *res)
{
	char **files, why[RT_GUARD_REASON - 128], *hp;
	size_t i, l, n, k;
	int side, r, any_text = 0;
	struct dfile *f;

	files = rt_xcalloc(g->nf + 1, sizeof *files);
	for (l = 0; l < NLANG; l++) {
		for (n = 0, i = 0; i < g->nf; i++)
			n += g->f[i].test && rt_src_lang(g->f[i].path) &&
			    !strcmp(rt_src_lang(g->f[i].path), src_langs[l]);
		if (n == 0)
			continue;
		for (side = 0; side < 2; side++) {
			for (n = 0, i = 0; i < g->nf; i++) {
				f = &g->f[i];
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
				return fire(g->res, "guard-undecided", "%s", why), -1;
			}
			if (r == RT_SRC_NO_PARSER) {
				char t[64];
				snprintf(t, sizeof t, "text rules (no parser for %s)", src_langs[l]);
				guard_add(res, t);
				break;
			}
			if (r != RT_SRC_OK) {
				free(files);
				return fire(g->res, "guard-undecided", "%s", why), -1;
			}
			if (side == 1) {
				const char *ps = g->inv[l][1].parser && *g->inv[l][1].parser ?
				    g->inv[l][1].parser : g->inv[l][0].parser;
				guard_add(res, ps && *ps ? ps : src_langs[l]);
				for (i = 0; i < g->nf; i++) {
					f = &g->f[i];
					if (!f->test || !rt_src_lang(f->path) ||
					    strcmp(rt_src_lang(f->path), src_langs[l]))
						continue;
					hp = helper_path(f->path);
					f->bi = rt_src_file_find(&g->inv[l][0], hp);
					f->ai = rt_src_file_find(&g->inv[l][1], hp);
					free(hp);
					if ((f->bexists && !f->bi) || (f->aexists && !f->ai)) {
						free(files);
						return fire(g->res, "guard-undecided", "the %s parser "
						    "helper did not report %s", src_langs[l], f->path), -1;
					}
					if (f->bi && f->bi->error) {
						free(files);
						return fire(g->res, "guard-undecided", "the original %s "
						    "cannot be read by the %s parser: %s:%ld: %s", f->path,
						    src_langs[l], f->path, f->bi->err_line,
						    f->bi->err_msg), -1;
					}
					if (f->ai && f->ai->error) {
						free(files);
						if (f->ai->limit)
							return fire(g->res, "guard-undecided", "the patched "
							    "%s is past the %s parser's limits: %s", f->path,
							    src_langs[l], f->ai->err_msg), -1;
						return fire(g->res, "patch-failed", "the patched test "
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
	for (i = 0; i < g->nf; i++)
		if (g->f[i].test && !g->f[i].parsed) {
			const char *sl = rt_src_lang(g->f[i].path);
			if (!sl && !any_text) {
				char t[64];
				snprintf(t, sizeof t, "text rules (%s)",
				    (g->f[i].lang & RT_L_SH) ? "shell" : "no parser for this language");
				guard_add(res, t);
				any_text = 1;
			}
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
counterpart(const struct dfile *f, const rt_src_check *c, int side)
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
	struct dfile *f;
	const rt_src_change *c;
	char q[96];

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		for (j = 0; f->parsed && j < f->nch; j++) {
			c = &f->ch[j];
			if (strcmp(c->change, "added") || strcmp(c->after->kind, "skip"))
				continue;
			if (c->bfn)
				return fire(g->res, rule, "adds a skip: `%s` at %s:%ld to %s "
				    "(%s:%ld of the original)", qc(c->after, q, sizeof q),
				    f->path, c->after->line, fn_name(c), f->path, c->bfn->line);
			return fire(g->res, rule, "adds a skip: `%s` at %s:%ld to %s, "
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
	struct dfile *f;
	const rt_src_change *c;
	const rt_src_check *r, *x, *orig;
	char q1[96], q2[96];
	int inside;

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
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
					return fire(g->res, rule, "adds `%s` at %s:%ld, before the "
					    "test's assertion `%s` at %s:%ld (%s:%ld of the original)",
					    qc(r, q1, sizeof q1), f->path, r->line, qc(x, q2, sizeof q2),
					    f->path, x->line, f->path, orig->line);
				return fire(g->res, rule, "adds `%s` at %s:%ld, before the "
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

	if (truthy_literal(s))
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
			return falsy_literal(c->operands[0]);
		if (!strcmp(op, "not") && c->noperands >= 1)
			return truthy_literal(c->operands[0]);
		return 0;
	}
	if (!strcmp(c->kind, "assert")) {
		if (c->noperands == 2 && (!strcmp(op, "==") || !strcmp(op, "is") ||
		    !strcmp(op, ">=") || !strcmp(op, "<=")))
			return !strcmp(c->operands[0], c->operands[1]);
		if (!strcmp(op, "truthy") && c->noperands >= 1)
			return truthy_operand(c->operands[0]) || self_compare(c->operands[0]);
		if (!strcmp(op, "not") && c->noperands >= 1)
			return falsy_literal(c->operands[0]);
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
			return falsy_literal(c->operands[a]);
		if (strstr(m, "True") || !strcmp(m, "toBeTruthy") || !strcmp(m, "toBeDefined"))
			return truthy_operand(c->operands[a]) || self_compare(c->operands[a]);
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
	struct dfile *f;
	const rt_src_change *c;
	char q1[96], q2[96];

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		for (j = 0; f->parsed && j < f->nch; j++) {
			c = &f->ch[j];
			if (!c->after || !strcmp(c->change, "same") || !inv_cannot_fail(c->after))
				continue;
			if (c->before)
				return fire(g->res, rule, "adds an assertion that cannot fail: "
				    "`%s` at %s:%ld, in place of `%s` at %s:%ld of the original",
				    qc(c->after, q1, sizeof q1), f->path, c->after->line,
				    qc(c->before, q2, sizeof q2), f->path, c->before->line);
			return fire(g->res, rule, "adds an assertion that cannot fail: `%s` "
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
	struct dfile *f;
	const rt_src_change *c;
	const rt_src_check *a;
	char q1[96], q2[96], orig[600];

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
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
				return fire(g->res, rule, "wraps `%s` at %s:%ld (%s) in a try "
				    "whose `%s` at %s:%ld swallows the failure",
				    qc(a, q1, sizeof q1), f->path, a->line, orig,
				    rt_st_quote_line(a->guard_text, q2, sizeof q2), f->path, a->guard_line);
			if (a->guard_line)
				return fire(g->res, rule, "wraps `%s` at %s:%ld (%s) in `%s` at "
				    "%s:%ld, which swallows the failure", qc(a, q1, sizeof q1),
				    f->path, a->line, orig, rt_st_quote_line(a->guard_text, q2, sizeof q2),
				    f->path, a->guard_line);
			return fire(g->res, rule, "puts `%s` at %s:%ld (%s) under a %s that "
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
			return falsy_literal(c->operands[0]);
		if (!strcmp(op, "not") && c->noperands >= 1)
			return truthy_literal(c->operands[0]);
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

static const char *const strength_word[] = { "", "truthiness", "an order or membership", "equality" };

static int
inv_weakened(struct guard *g, const char *rule)
{
	size_t i, j, x, y;
	struct dfile *f;
	const rt_src_change *c;
	const rt_src_check *b, *a;
	char q1[96], q2[96], what[300];
	int sb, sa, hit;

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
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
				return fire(g->res, rule, "weakens a check (%s): %s:%ld `%s` "
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
	struct dfile *f;
	const rt_src_change *c;
	char q[96];

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		for (j = 0; f->parsed && j < f->nch; j++) {
			c = &f->ch[j];
			if (strcmp(c->change, "removed") || strcmp(c->before->kind, "raises"))
				continue;
			if (c->afn)
				return fire(g->res, rule, "removes the exception expectation "
				    "`%s` at %s:%ld of the original from %s, which expects none "
				    "at %s:%ld-%ld", qc(c->before, q, sizeof q), f->path,
				    c->before->line, fn_name(c), f->path, c->afn->line, c->afn->end);
			return fire(g->res, rule, "removes the exception expectation `%s` "
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
moved_to_helper(const struct dfile *f, const rt_src_change *c)
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
	struct dfile *f;
	const rt_src_change *c, *first;
	rt_buf why = { 0 };
	int hunk;

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
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
				if (f->l[k].kind == K_DEL && f->l[k].ln == c->before->line)
					hunk = f->l[k].hunk;
			if (hunk && c->before->line <= (long)f->before.n)
				how_removed(&why, f, hunk, f->before.code[c->before->line - 1],
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
			fire(g->res, rule, "%s loses %zu assertion%s: %s (lines of the "
			    "original), from %s (%s:%ld of the patched file)", f->path, n,
			    n == 1 ? "" : "s", rt_buf_str(&why), fn_name(first), f->path,
			    first->afn->line);
		else
			fire(g->res, rule, "%s loses %zu assertion%s: %s (lines of the "
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
	struct dfile *f;
	const rt_src_change *c;
	char q[96];

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		for (j = 0; f->parsed && j < f->nch; j++) {
			c = &f->ch[j];
			if (!c->after || !c->afn || !c->afn->test || !strcmp(c->change, "same") ||
			    !successful_exit(c->after) || (c->before && successful_exit(c->before)))
				continue;
			return fire(g->res, rule, "adds a successful exit: `%s` at %s:%ld, "
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
	struct dfile *f;
	const rt_src_change *c;
	const rt_src_check *a;
	char q1[96], q2[96], orig[600];

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
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
			return fire(g->res, rule, "puts `%s` at %s:%ld (%s) under `%s` at "
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
	struct dfile *f;
	const rt_src_change *c;
	const rt_src_check *b;
	char q[96];

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		for (j = 0; f->parsed && f->ai && j < f->nch; j++) {
			c = &f->ch[j];
			b = c->before;
			if (!b || !c->bfn || !c->bfn->test || !c->afn || !is_check_kind(b))
				continue;
			for (k = 0; k < b->nuses; k++)
				if (file_calls(f->bi, b->uses[k]) && !file_calls(f->ai, b->uses[k]))
					return fire(g->res, rule, "%s no longer calls %s(), whose "
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
	return inv_skip(g, rule) || rule_patterns(g, rule);
}

static int
rule_exit(struct guard *g, const char *rule)
{
	return inv_early_exit(g, rule) || rule_patterns(g, rule);
}

static int
rule_if0(struct guard *g, const char *rule)
{
	return inv_dead(g, rule) || rule_patterns(g, rule);
}

static int
rule_calls(struct guard *g, const char *rule)
{
	return inv_call_removed(g, rule) || rule_call_removed(g, rule);
}

static int
rule_return(struct guard *g, const char *rule)
{
	return inv_early_return(g, rule) || rule_early_return(g, rule);
}

static int
rule_taut(struct guard *g, const char *rule)
{
	return inv_tautology(g, rule) || rule_tautology(g, rule);
}

static int
rule_swallow(struct guard *g, const char *rule)
{
	return inv_swallowed(g, rule) || rule_swallowed(g, rule);
}

static int
rule_weaken(struct guard *g, const char *rule)
{
	return inv_weakened(g, rule) || rule_weakened(g, rule);
}

static int
rule_remove(struct guard *g, const char *rule)
{
	return inv_removed(g, rule) || rule_removed(g, rule);
}

/* ---- what the patch does to the tests' checks ---- */

static json_t *
side_json(const rt_src_check *c)
{
	return c ? json_pack("{s:I,s:s}", "line", (json_int_t)c->line, "text",
	    c->source && *c->source ? c->source : c->text) : json_null();
}

/* res->changes_checks and res->checks: the inventories' differences, and
 * for the test files read by text rules the assertion lines changed. */
static void
record_changes(struct guard *g, rt_guard_result *res)
{
	json_t *arr = json_array(), *o;
	size_t i, j;
	struct dfile *f;
	char *s;
	int full = 0;

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		if (!f->test)
			continue;
		for (j = 0; f->parsed && j < f->nch; j++) {
			const rt_src_change *c = &f->ch[j];
			const char *what = c->change;
			char w[300];
			if (!strcmp(what, "same"))
				continue;
			res->changes_checks = 1;
			if (!strcmp(what, "changed") && is_check_kind(c->before) &&
			    is_check_kind(c->after) &&
			    (check_strength(c->after) < check_strength(c->before) ||
			    tolerance_widened(c->before, c->after, w, sizeof w)))
				what = "weakened";
			o = json_pack("{s:s,s:s,s:s,s:o,s:o}", "file", f->path, "function",
			    fn_name(c), "change", what, "before", side_json(c->before),
			    "after", side_json(c->after));
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
		for (j = 0; !f->parsed && j < f->n; j++) {
			const struct rt_st_text *t = f->l[j].kind == K_ADD ? &f->after : &f->before;
			long ln = f->l[j].ln;
			if (f->l[j].kind == K_CTX || ln < 1 || (size_t)ln > t->n ||
			    !is_assert_at(t, (size_t)ln - 1, f->lang))
				continue;
			res->changes_checks = 1;
			o = json_pack("{s:s,s:s,s:s}", "file", f->path, "function", "",
			    "change", f->l[j].kind == K_ADD ? "added" : "removed");
			json_object_set_new(o, f->l[j].kind == K_ADD ? "before" : "after",
			    json_null());
			json_object_set_new(o, f->l[j].kind == K_ADD ? "after" : "before",
			    json_pack("{s:I,s:s}", "line", (json_int_t)ln, "text",
			    rt_st_skip_space(t->line[ln - 1])));
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
	{ "or-true", rule_patterns },
	{ "if-0", rule_if0 },
	{ "tautology", rule_taut },
	{ "assertion-swallowed", rule_swallow },
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
	g.res = scratch;
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
	if (pats_compile(scratch) < 0 || parse_diff(&g, diff) < 0)
		goto undecided;
	for (i = 0; i < g.nf; i++) {
		struct dfile *f = &g.f[i];
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
		    test_by_content(&f->before, f->lang) ||
		    test_by_content(&f->after, f->lang);
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
	for (i = 0; i < g.nf; i++) {
		for (j = 0; j < g.f[i].n; j++)
			free(g.f[i].l[j].text);
		free(g.f[i].l);
		free(g.f[i].path);
		free(g.f[i].ch);
		rt_st_text_free(&g.f[i].before);
		rt_st_text_free(&g.f[i].after);
	}
	free(g.f);
	for (i = 0; i < NLANG; i++)
		for (j = 0; j < 2; j++)
			rt_src_inv_free(&g.inv[i][j]);
	free(scratch);
	return r;
}

