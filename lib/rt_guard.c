/* rt_guard: the neutering guard — static rules over a unified diff and the
 * files it touches, and the Python assertion canary. Fails closed. */
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_guard.h"
#include "rt_util.h"

const char *const rt_guard_rules[] = {
	"early-exit", "skip", "or-true", "if-0", "tautology",
	"expected-value-changed", "assertion-weakened", "assertion-removed",
	"call-removed", "canary", "guard-undecided", NULL
};

enum {
	L_PY = 1, L_SH = 2, L_C = 4, L_GO = 8, L_JS = 16, L_JAVA = 32,
	L_RB = 64, L_RS = 128, L_OTHER = 256, L_ANY = 511
};
enum { K_CTX, K_ADD, K_DEL };

struct dline {
	int kind;
	long ln;        /* in the new file for K_ADD, the old one for K_DEL */
	int hunk;
	char *text;
};

/* A file's text split into lines, with comments stripped for matching. */
struct text {
	char **line, **code;
	size_t n;
};

struct dfile {
	char *path;             /* the judged path (new side, or old if deleted) */
	int lang, test;
	struct dline *l;
	size_t n, cap;
	struct text before, after;
	int nhunks;
};

struct guard {
	struct dfile *f;
	size_t nf;
	rt_guard_result *res;
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

/* Shorten a source line for a reason: trimmed, at most 80 bytes. */
static const char *
quote_line(const char *s, char *buf, size_t size)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	if (n > 80) {
		snprintf(buf, size, "%.77s...", s);
	} else {
		snprintf(buf, size, "%.*s", (int)n, s);
	}
	return buf;
}

static int
is_ident(int c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* ---- languages and test files ---- */

static int
lang_of(const char *path, const char *first_line)
{
	static const struct { const char *ext; int lang; } ext[] = {
		{ ".py", L_PY }, { ".sh", L_SH }, { ".bash", L_SH }, { ".bats", L_SH },
		{ ".ksh", L_SH }, { ".zsh", L_SH }, { ".c", L_C }, { ".h", L_C },
		{ ".cc", L_C }, { ".cpp", L_C }, { ".cxx", L_C }, { ".hpp", L_C },
		{ ".hh", L_C }, { ".m", L_C }, { ".go", L_GO }, { ".js", L_JS },
		{ ".ts", L_JS }, { ".jsx", L_JS }, { ".tsx", L_JS }, { ".mjs", L_JS },
		{ ".cjs", L_JS }, { ".java", L_JAVA }, { ".kt", L_JAVA },
		{ ".scala", L_JAVA }, { ".cs", L_JAVA }, { ".rb", L_RB }, { ".rs", L_RS },
	};
	const char *base = strrchr(path, '/'), *dot;
	size_t i;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (dot)
		for (i = 0; i < sizeof ext / sizeof ext[0]; i++)
			if (strcmp(dot, ext[i].ext) == 0)
				return ext[i].lang;
	if (first_line && strncmp(first_line, "#!", 2) == 0) {
		if (strstr(first_line, "python"))
			return L_PY;
		if (strstr(first_line, "sh"))
			return L_SH;
		if (strstr(first_line, "ruby"))
			return L_RB;
		if (strstr(first_line, "node"))
			return L_JS;
	}
	return L_OTHER;
}

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

/* Cut a comment off a copy of line: # for Python/shell/Ruby (at the start
 * or after blank space, outside quotes), // for the C family. */
static char *
strip_comment(const char *line, int lang)
{
	char *s = rt_xstrdup(line), *p;
	char q = 0;
	size_t n;

	for (p = s; *p; p++) {
		if (q) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == q)
				q = 0;
			continue;
		}
		if (*p == '"' || (*p == '\'' && lang != L_RS && lang != L_C &&
		    lang != L_GO && lang != L_JAVA)) {
			q = *p;
			continue;
		}
		if ((lang & (L_PY | L_SH | L_RB)) && *p == '#' &&
		    (p == s || p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			break;
		}
		if ((lang & (L_C | L_GO | L_JS | L_JAVA | L_RS | L_OTHER)) &&
		    *p == '/' && p[1] == '/') {
			*p = '\0';
			break;
		}
	}
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static void
text_load(struct text *t, const char *s, int lang)
{
	const char *p = s, *e;
	size_t cap = 0;
	char *ln;
	size_t n;

	memset(t, 0, sizeof *t);
	while (s && *p) {
		e = strchr(p, '\n');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		ln = rt_xmalloc(n + 1);
		memcpy(ln, p, n);
		ln[n] = '\0';
		if (t->n == cap) {
			cap = cap ? cap * 2 : 64;
			t->line = rt_xrealloc(t->line, cap * sizeof *t->line);
			t->code = rt_xrealloc(t->code, cap * sizeof *t->code);
		}
		t->line[t->n] = ln;
		t->code[t->n] = strip_comment(ln, lang);
		t->n++;
		if (!e)
			break;
		p = e + 1;
	}
}

static void
text_free(struct text *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->line[i]);
		free(t->code[i]);
	}
	free(t->line);
	free(t->code);
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
safe_relpath(const char *p)
{
	const char *s;

	if (!*p || *p == '/' || strchr(p, '\\'))
		return 0;
	for (s = p; *s; ) {
		if (s[0] == '.' && s[1] == '.' && (s[2] == '/' || s[2] == '\0'))
			return 0;
		s = strchr(s, '/');
		if (!s)
			break;
		s++;
	}
	return 1;
}

static int
load_side(struct guard *g, struct dfile *f, const char *dir, struct text *t,
    const char *side)
{
	char *path = rt_xasprintf("%s/%s", dir, f->path), *s;
	size_t len;

	s = rt_read_file(path, &len);
	free(path);
	if (!s) {
		if (errno == ENOENT) {
			text_load(t, "", f->lang);
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
	text_load(t, s, f->lang);
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
	{ "early-exit", L_ANY, 0, B "sys\\.exit" S "\\(" S "(0|None|False)?" S "\\)", "a successful sys.exit", {0}, 0, 0 },
	{ "early-exit", L_ANY, 0, B "os\\._exit" S "\\(", "os._exit", {0}, 0, 0 },
	{ "early-exit", L_PY | L_RB | L_C | L_OTHER, 0, BD "(exit|quit|_exit|_Exit|quick_exit)" S "\\(" S "(0|EXIT_SUCCESS)?" S "\\)", "a successful exit()", {0}, 0, 0 },
	{ "early-exit", L_ANY, 0, "raise" S "SystemExit(" S "\\(" S "(0|None|False)?" S "\\))?" S "$", "raise SystemExit", {0}, 0, 0 },
	{ "early-exit", L_ANY, 0, "os\\.Exit" S "\\(" S "0" S "\\)", "os.Exit(0)", {0}, 0, 0 },
	{ "early-exit", L_ANY, 0, "process\\.exit" S "\\(" S "0?" S "\\)", "process.exit", {0}, 0, 0 },
	{ "early-exit", L_ANY, 0, "System\\.exit" S "\\(" S "0" S "\\)", "System.exit(0)", {0}, 0, 0 },
	{ "early-exit", L_ANY, 0, "process::exit" S "\\(" S "0" S "\\)", "process::exit(0)", {0}, 0, 0 },
	{ "early-exit", L_SH, 0, SHSEP "exit([[:space:]]+0)?" SHEND, "a successful shell exit", {0}, 0, 1 },
	{ "early-exit", L_SH, 1, SHSEP "return([[:space:]]+0)?" SHEND, "a successful shell return", {0}, 0, 0 },
	{ "early-exit", L_PY, 1, "^[[:space:]]*return" S "(None)?" S "$", "a bare return in a test", {0}, 0, 0 },
	{ "skip", L_ANY, 0, "pytest\\.(skip|xfail|importorskip)" S "\\(", "a pytest skip", {0}, 0, 0 },
	{ "skip", L_ANY, 0, "@pytest\\.mark\\.(skip|skipif|xfail)", "a pytest skip marker", {0}, 0, 0 },
	{ "skip", L_ANY, 0, "@(unittest\\.)?(skip|skipIf|skipUnless|expectedFailure)([^A-Za-z0-9_]|$)", "a unittest skip decorator", {0}, 0, 0 },
	{ "skip", L_ANY, 0, "raise" S "(unittest\\.)?SkipTest", "raise SkipTest", {0}, 0, 0 },
	{ "skip", L_ANY, 0, "\\.skipTest" S "\\(", "skipTest", {0}, 0, 0 },
	{ "skip", L_ANY, 0, "\\.(Skip|SkipNow|Skipf)" S "\\(", "a Go t.Skip", {0}, 0, 0 },
	{ "skip", L_ANY, 0, "GTEST_SKIP", "GTEST_SKIP", {0}, 0, 0 },
	{ "skip", L_ANY, 0, B "DISABLED_", "a DISABLED_ test name", {0}, 0, 0 },
	{ "skip", L_ANY, 0, "@(Ignore|Disabled)([^A-Za-z0-9_]|$)", "an @Ignore/@Disabled annotation", {0}, 0, 0 },
	{ "skip", L_ANY, 0, B "(it|describe|test|context)\\.(skip|todo)" S "\\(", "a .skip test", {0}, 0, 0 },
	{ "skip", L_JS | L_RB, 0, B "x(it|describe|test)" S "\\(", "an x-disabled test", {0}, 0, 0 },
	{ "skip", L_RS | L_OTHER, 0, "#\\[ignore", "#[ignore]", {0}, 0, 0 },
	{ "skip", L_SH, 0, "^[[:space:]]*skip([[:space:]]|$)", "a bats skip", {0}, 0, 0 },
	{ "skip", L_RB, 0, B "skip" S "(\\(|\"|'|$)", "a skip", {0}, 0, 0 },
	{ "or-true", L_ANY, 0, "\\|\\|" S "(true|:)" SHEND, "|| true", {0}, 0, 0 },
	{ "or-true", L_SH, 0, SHSEP "set[[:space:]]+\\+e", "set +e", {0}, 0, 0 },
	{ "if-0", L_ANY, 0, "^[[:space:]]*#[[:space:]]*if[[:space:]]+(0|false|FALSE)([^A-Za-z0-9_]|$)", "#if 0", {0}, 0, 0 },
	{ "if-0", L_PY, 0, "^[[:space:]]*(el)?if[[:space:]]+(False|0|None)" S ":", "if False:", {0}, 0, 0 },
	{ "if-0", L_PY, 0, "^[[:space:]]*while[[:space:]]+(False|0)" S ":", "while False:", {0}, 0, 0 },
	{ "if-0", L_C | L_JS | L_JAVA, 0, B "if" S "\\(" S "(false|0)" S "\\)", "if (false)", {0}, 0, 0 },
	{ "if-0", L_ANY, 0, "(and|&&)" S "(False|false|0)" S "(:|\\)|\\{|$|;)", "a condition made false", {0}, 0, 0 },
	{ "if-0", L_GO | L_SH | L_RS | L_RB, 0, "^[[:space:]]*if[[:space:]]+false" S "(\\{|;|$|[[:space:]]then)", "if false", {0}, 0, 0 },
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

static int
is_blank(const char *code)
{
	while (*code == ' ' || *code == '\t' || *code == '\r')
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
		if (!is_blank(f->after.code[i]))
			return 0;
	for (i = f->before.n; i > 0; i--)
		if (!is_blank(f->before.code[i - 1]))
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
			if (!(pats[k].langs & f->lang) || (pats[k].test_only && !f->test))
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
					    pats[k].what, quote_line(code, q, sizeof q),
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
		if ((p == s || !is_ident(p[-1])) && !is_ident(p[n]))
			return 1;
	return 0;
}

static int
matches(const char *s, const char *re)
{
	regex_t rx;
	int r;

	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) != 0)
		return 0;
	r = regexec(&rx, s, 0, NULL, 0) == 0;
	regfree(&rx);
	return r;
}

/* A line that reports a failure: the body of an if that is an assertion. */
static int
is_failure_line(const char *c, int lang)
{
	if (matches(c, "[A-Za-z_][A-Za-z0-9_]*\\.(Error|Errorf|Fatal|Fatalf|Fail|FailNow)" S "\\("))
		return 1;
	if (matches(c, B "(exit|return)([[:space:]]+|" S "\\(" S ")[1-9]"))
		return 1;
	if ((lang & (L_PY | L_RB)) && matches(c, "^[[:space:]]*raise([[:space:]]|$)"))
		return 1;
	if (matches(c, "(pytest|self)\\.fail" S "\\(|sys\\.exit" S "\\(" S "[1-9]|" B "abort" S "\\(|panic" S "\\("))
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
	if (is_failure_line(c, lang))
		return 1;
	if ((lang & L_SH) && matches(c, "^[[:space:]]*(\\[|\\[\\[|test)[[:space:]]|\\|\\|" S "(false|fail)([[:space:]]|$|;)"))
		return 1;
	return 0;
}

static size_t
indent_of(const char *s)
{
	size_t n = 0;

	for (; *s == ' ' || *s == '\t'; s++)
		n += *s == '\t' ? 8 : 1;
	return n;
}

/* Line i (0-based) of t an assertion: an assertion call, a failure report,
 * or an "if" whose body (the next lines, deeper) reports a failure. */
static int
is_assert_at(const struct text *t, size_t i, int lang)
{
	const char *c = t->code[i];
	size_t j, in, seen = 0;

	if (is_assert_code(c, lang))
		return 1;
	if (!matches(c, "^[[:space:]]*(if|elif|unless)[[:space:](]"))
		return 0;
	in = indent_of(c);
	for (j = i + 1; j < t->n && seen < 4; j++) {
		if (!t->code[j][0])
			continue;
		if (indent_of(t->code[j]) <= in && !matches(t->code[j], "^[[:space:]]*(then|\\{)"))
			break;
		if (is_failure_line(t->code[j], lang))
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
		} else if (isdigit((unsigned char)*s) && (p == o || !is_ident(p[-1]))) {
			while (isalnum((unsigned char)*s) || *s == '.' || *s == '_')
				s++;
			*p++ = 'N';
		} else if (is_ident(*s)) {
			for (e = s; is_ident(*e); e++)
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
	if ((lang & L_SH) && (strstr(c, " = ") || strstr(c, " == ")))
		return 3;
	if (strstr(c, "-lt ") || strstr(c, "-gt ") || strstr(c, "-le ") ||
	    strstr(c, "-ge ") || has_word(c, "in") || strstr(c, "Contain") ||
	    strstr(c, "Less") || strstr(c, "Greater") || strstr(c, "_LT") ||
	    strstr(c, "_GT") || strstr(c, "_LE") || strstr(c, "_GE") ||
	    strstr(c, "pprox") || strstr(c, "Almost") || strstr(c, "Near") ||
	    strstr(c, "CloseTo") || strstr(c, "Match") || strstr(c, "Regex") ||
	    strstr(c, "startswith") || strstr(c, "endswith") || strstr(c, "In("))
		return 2;
	if (!(lang & L_SH) && (strchr(c, '<') || strchr(c, '>')))
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

static void
trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
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
		trim(a);
		trim(b);
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
	if ((lang & L_PY) && matches(c, "^[[:space:]]*assert([[:space:](]|$)")) {
		p = strstr(c, "assert") + 6;
		while (isspace((unsigned char)*p))
			p++;
		snprintf(expr, sizeof expr, "(%s)", p);
		na = split_args(expr + 1, args, 4, NULL);
		if (na >= 1) {
			trim(args[0]);
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
	if (lang & L_SH) {
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
		if (!is_ident(*p) || (p > c && is_ident(p[-1])))
			continue;
		for (q = p; is_ident(*q); q++)
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
			trim(args[i]);
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
					trim(b2[0]);
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
rule_tautology(struct guard *g)
{
	size_t i, j;
	struct dfile *f;
	const char *c;
	char q[96];

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		if (!f->test)
			continue;
		for (j = 0; j < f->n; j++) {
			if (f->l[j].kind != K_ADD || f->l[j].ln < 1 ||
			    (size_t)f->l[j].ln > f->after.n)
				continue;
			c = f->after.code[f->l[j].ln - 1];
			if (is_assert_code(c, f->lang) && tautology(c, f->lang))
				return fire(g->res, "tautology",
				    "adds an assertion that cannot fail: `%s` at %s:%ld",
				    quote_line(c, q, sizeof q), f->path, f->l[j].ln);
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
rule_pairs(struct guard *g, const char *rule)
{
	const char *del[MAXA], *add[MAXA];
	long dln[MAXA], aln[MAXA];
	size_t i, j, nd, na, k, tdel, tadd;
	int h;
	struct dfile *f;
	char q1[96], q2[96];

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		if (!f->test)
			continue;
		tdel = tadd = 0;
		for (j = 0, h = 0; j < f->n; j++) {
			if (f->l[j].hunk == h)
				continue;
			h = f->l[j].hunk;
			hunk_asserts(f, h, del, dln, &nd, add, aln, &na, MAXA);
			tdel += nd;
			tadd += na;
			for (k = 0; k < nd && k < na; k++) {
				if (!strcmp(rule, "expected-value-changed")) {
					char *s1 = literal_shape(del[k]), *s2 = literal_shape(add[k]);
					int same = strcmp(s1, s2) == 0;
					free(s1);
					free(s2);
					if (same)
						return fire(g->res, rule,
						    "changes only the expected value: `%s` became `%s` at %s:%ld",
						    quote_line(del[k], q1, sizeof q1),
						    quote_line(add[k], q2, sizeof q2), f->path, aln[k]);
				} else if (!strcmp(rule, "assertion-weakened") &&
				    strength(add[k], f->lang) < strength(del[k], f->lang)) {
					return fire(g->res, rule,
					    "weakens an assertion: `%s` became `%s` at %s:%ld",
					    quote_line(del[k], q1, sizeof q1),
					    quote_line(add[k], q2, sizeof q2), f->path, aln[k]);
				}
			}
			if (!strcmp(rule, "assertion-removed") && nd > na)
				return fire(g->res, rule,
				    "removes %zu assertion%s from %s, the first `%s` (line %ld)",
				    nd - na, nd - na == 1 ? "" : "s", f->path,
				    quote_line(del[na], q1, sizeof q1), dln[na]);
		}
		if (!strcmp(rule, "assertion-removed") && tdel > tadd)
			return fire(g->res, rule, "removes %zu assertion%s from %s",
			    tdel - tadd, tdel - tadd == 1 ? "" : "s", f->path);
	}
	return 0;
}

/* Expectation variables (expected = 3, want := "x") changed only in a
 * literal count as a changed expected value too. */
static int
rule_expect_vars(struct guard *g)
{
	size_t i, j, k;
	struct dfile *f;
	char n1[64], n2[64], q1[96], q2[96];

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		if (!f->test)
			continue;
		for (j = 0; j < f->n; j++) {
			const char *d, *p;
			size_t m;
			if (f->l[j].kind != K_DEL || (size_t)f->l[j].ln > f->before.n)
				continue;
			d = f->before.code[f->l[j].ln - 1];
			for (p = d; isspace((unsigned char)*p); p++)
				;
			for (m = 0; is_ident(p[m]) && m < sizeof n1 - 1; m++)
				n1[m] = p[m];
			n1[m] = '\0';
			if (!m || !(strstr(n1, "expect") || strstr(n1, "Expect") ||
			    strstr(n1, "want") || strstr(n1, "Want") || strstr(n1, "golden")))
				continue;
			for (k = 0; k < f->n; k++) {
				const char *a;
				size_t m2;
				char *s1, *s2;
				int same;
				if (f->l[k].kind != K_ADD || f->l[k].hunk != f->l[j].hunk ||
				    (size_t)f->l[k].ln > f->after.n)
					continue;
				a = f->after.code[f->l[k].ln - 1];
				for (p = a; isspace((unsigned char)*p); p++)
					;
				for (m2 = 0; is_ident(p[m2]) && m2 < sizeof n2 - 1; m2++)
					n2[m2] = p[m2];
				n2[m2] = '\0';
				if (strcmp(n1, n2) != 0)
					continue;
				s1 = literal_shape(d);
				s2 = literal_shape(a);
				same = strcmp(s1, s2) == 0;
				free(s1);
				free(s2);
				if (same)
					return fire(g->res, "expected-value-changed",
					    "changes only the expected value: `%s` became `%s` at %s:%ld",
					    quote_line(d, q1, sizeof q1), quote_line(a, q2, sizeof q2),
					    f->path, f->l[k].ln);
			}
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
	if (lang & L_SH)
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

	if (lang & L_SH) {
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
		if (!is_ident(*p) || (p > c && (is_ident(p[-1]) || p[-1] == '.')))
			continue;
		for (q = p; is_ident(*q) || (*q == '.' && is_ident(q[1])); q++)
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
		if (lang & L_SH) {
			if (*p != '$')
				continue;
			p++;
			if (*p == '{')
				p++;
		} else if (!is_ident(*p) || (p > c && (is_ident(p[-1]) || p[-1] == '.'))) {
			continue;
		}
		for (q = p; is_ident(*q); q++)
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
	if ((lang & L_SH) && s != (eq[-1] == ':' ? eq - 1 : eq))
		return NULL;
	p = s;
	while (p > c && is_ident(p[-1]))
		p--;
	n = (size_t)(s - p);
	if (n == 0 || n >= size || isdigit((unsigned char)*p))
		return NULL;
	memcpy(name, p, n);
	name[n] = '\0';
	return eq + 1;
}

static int
calls_name(const struct text *t, const char *name, int lang)
{
	struct names s = { 0 };
	size_t i, j;
	int found = 0;

	for (i = 0; i < t->n && !found; i++) {
		if (lang & L_SH) {
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
rule_call_removed(struct guard *g)
{
	size_t i, j, k;
	struct dfile *f;
	struct names vars, calls;
	char name[128];
	const char *rhs;
	int r = 0;

	for (i = 0; i < g->nf && !r; i++) {
		f = &g->f[i];
		if (!f->test)
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
				r = fire(g->res, "call-removed",
				    "%s no longer calls %s%s, which its assertions checked",
				    f->path, calls.v[k], (f->lang & L_SH) ? "" : "()");
		names_free(&vars);
		names_free(&calls);
	}
	return r;
}

/* ---- the entry point ---- */

int
rt_guard_check(const char *diff, const char *before_dir, const char *after_dir,
    rt_guard_result *res)
{
	struct guard g = { NULL, 0, res };
	size_t i, j;
	int r = 1;

	memset(res, 0, sizeof *res);
	if (!diff || !*diff) {
		fire(res, "guard-undecided", "the patch is empty");
		return 1;
	}
	if (pats_compile(res) < 0)
		return 1;
	if (parse_diff(&g, diff) < 0)
		goto done;
	for (i = 0; i < g.nf; i++) {
		struct dfile *f = &g.f[i];
		if (!safe_relpath(f->path)) {
			fire(res, "guard-undecided", "unsafe path %s", f->path);
			goto done;
		}
		f->lang = L_OTHER;
		if (load_side(&g, f, before_dir, &f->before, "original") < 0 ||
		    load_side(&g, f, after_dir, &f->after, "patched") < 0)
			goto done;
		f->lang = lang_of(f->path, f->before.n ? f->before.line[0] :
		    f->after.n ? f->after.line[0] : NULL);
		if (f->lang != L_OTHER) {
			/* reload with the language's comment syntax */
			struct text t;
			for (j = 0; j < 2; j++) {
				struct text *side = j ? &f->after : &f->before;
				rt_buf b = { 0 };
				size_t k;
				for (k = 0; k < side->n; k++) {
					rt_buf_adds(&b, side->line[k]);
					rt_buf_addc(&b, '\n');
				}
				text_load(&t, b.len ? rt_buf_str(&b) : "", f->lang);
				rt_buf_free(&b);
				text_free(side);
				*side = t;
			}
		}
		f->test = rt_guard_is_test_path(f->path);
	}
	if (rule_patterns(&g, "early-exit") || rule_patterns(&g, "skip") ||
	    rule_patterns(&g, "or-true") || rule_patterns(&g, "if-0") ||
	    rule_tautology(&g) || rule_pairs(&g, "expected-value-changed") ||
	    rule_expect_vars(&g) || rule_pairs(&g, "assertion-weakened") ||
	    rule_pairs(&g, "assertion-removed") || rule_call_removed(&g))
		goto done;
	r = 0;
done:
	for (i = 0; i < g.nf; i++) {
		for (j = 0; j < g.f[i].n; j++)
			free(g.f[i].l[j].text);
		free(g.f[i].l);
		free(g.f[i].path);
		text_free(&g.f[i].before);
		text_free(&g.f[i].after);
	}
	free(g.f);
	return r;
}

/* ---- the canary ---- */

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
	trim(expr);
	trim(msg);
	return *expr != '\0';
}

int
rt_guard_canary(const char *dir, char *const files[], size_t nfiles,
    char *what, size_t whatsize)
{
	size_t i, n, len, indent;
	char *path, *s, *p, *e, *line;
	char expr[1024], msg[1024];
	rt_buf out = { 0 };
	long ln;
	int rc;

	for (i = 0; i < nfiles; i++) {
		n = strlen(files[i]);
		if (n < 3 || strcmp(files[i] + n - 3, ".py") != 0 ||
		    !rt_guard_is_test_path(files[i]) || !safe_relpath(files[i]))
			continue;
		path = rt_xasprintf("%s/%s", dir, files[i]);
		if (!(s = rt_read_file(path, &len))) {
			free(path);
			if (errno == ENOENT)
				continue;
			return -1;
		}
		for (p = s, ln = 1; *p; ln++) {
			e = strchr(p, '\n');
			n = e ? (size_t)(e - p) : strlen(p);
			line = rt_xmalloc(n + 1);
			memcpy(line, p, n);
			line[n] = '\0';
			if (one_line_assert(line, &indent, expr, msg, sizeof expr)) {
				rt_buf_add(&out, s, (size_t)(p - s));
				rt_buf_add(&out, line, indent);
				rt_buf_printf(&out, "assert not (%s)%s%s", expr,
				    *msg ? ", " : "", msg);
				rt_buf_adds(&out, e ? e : "");
				snprintf(what, whatsize, "%s:%ld: assert %s", files[i], ln, expr);
				rc = rt_write_file_atomic(path, out.data, out.len);
				rt_buf_free(&out);
				free(line);
				free(s);
				free(path);
				return rc < 0 ? -1 : 1;
			}
			free(line);
			if (!e)
				break;
			p = e + 1;
		}
		free(s);
		free(path);
	}
	return 0;
}
