/* rt_srctext: source files as lines, languages and functions (see
 * rt_srctext.h). */
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_srctext.h"
#include "rt_util.h"

#define B RT_ST_B
#define S RT_ST_S

static int
go_test_signature(const char *code)
{
	static regex_t rx;
	static int done;

	if (!done) {
		if (regcomp(&rx, RT_ST_GO_TEST, REG_EXTENDED | REG_NOSUB) != 0)
			rt_die("rt_srctext: internal pattern does not compile");
		done = 1;
	}
	return regexec(&rx, code, 0, NULL, 0) == 0;
}

/* Shorten a source line for a reason: trimmed, at most 80 bytes. */
const char *
rt_st_quote_line(const char *s, char *buf, size_t size)
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

int
rt_st_is_ident(int c)
{
	return isalnum((unsigned char)c) || c == '_';
}

int
rt_st_lang_of(const char *path, const char *first_line)
{
	static const struct { const char *ext; int lang; } ext[] = {
		{ ".py", RT_L_PY }, { ".sh", RT_L_SH }, { ".bash", RT_L_SH }, { ".bats", RT_L_SH },
		{ ".ksh", RT_L_SH }, { ".zsh", RT_L_SH }, { ".c", RT_L_C }, { ".h", RT_L_C },
		{ ".cc", RT_L_C }, { ".cpp", RT_L_C }, { ".cxx", RT_L_C }, { ".hpp", RT_L_C },
		{ ".hh", RT_L_C }, { ".m", RT_L_C }, { ".go", RT_L_GO }, { ".js", RT_L_JS },
		{ ".ts", RT_L_JS }, { ".jsx", RT_L_JS }, { ".tsx", RT_L_JS }, { ".mjs", RT_L_JS },
		{ ".cjs", RT_L_JS }, { ".java", RT_L_JAVA }, { ".kt", RT_L_JAVA },
		{ ".scala", RT_L_JAVA }, { ".cs", RT_L_JAVA }, { ".rb", RT_L_RB }, { ".rs", RT_L_RS },
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
			return RT_L_PY;
		if (strstr(first_line, "sh"))
			return RT_L_SH;
		if (strstr(first_line, "ruby"))
			return RT_L_RB;
		if (strstr(first_line, "node"))
			return RT_L_JS;
	}
	return RT_L_OTHER;
}

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
		if (*p == '"' || (*p == '\'' && lang != RT_L_RS && lang != RT_L_C &&
		    lang != RT_L_GO && lang != RT_L_JAVA)) {
			q = *p;
			continue;
		}
		if ((lang & (RT_L_PY | RT_L_SH | RT_L_RB)) && *p == '#' &&
		    (p == s || p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			break;
		}
		if ((lang & (RT_L_C | RT_L_GO | RT_L_JS | RT_L_JAVA | RT_L_RS | RT_L_OTHER)) &&
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

void
rt_st_text_load(struct rt_st_text *t, const char *s, int lang)
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

void
rt_st_text_free(struct rt_st_text *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		free(t->line[i]);
		free(t->code[i]);
	}
	free(t->line);
	free(t->code);
}

int
rt_st_safe_relpath(const char *p)
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

int
rt_st_is_blank(const char *code)
{
	while (*code == ' ' || *code == '\t' || *code == '\r')
		code++;
	return *code == '\0';
}

int
rt_st_matches(const char *s, const char *re)
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
int
rt_st_is_failure_line(const char *c, int lang)
{
	if (rt_st_matches(c, "[A-Za-z_][A-Za-z0-9_]*\\.(Error|Errorf|Fatal|Fatalf|Fail|FailNow)" S "\\("))
		return 1;
	if (rt_st_matches(c, B "(exit|return)([[:space:]]+|" S "\\(" S ")[1-9]"))
		return 1;
	if ((lang & (RT_L_PY | RT_L_RB)) && rt_st_matches(c, "^[[:space:]]*raise([[:space:]]|$)"))
		return 1;
	if (rt_st_matches(c, "(pytest|self)\\.fail" S "\\(|sys\\.exit" S "\\(" S "[1-9]|" B "abort" S "\\(|panic" S "\\("))
		return 1;
	return 0;
}

size_t
rt_st_indent_of(const char *s)
{
	size_t n = 0;

	for (; *s == ' ' || *s == '\t'; s++)
		n += *s == '\t' ? 8 : 1;
	return n;
}

void
rt_st_trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
}

static struct rt_st_fn *
fns_push(struct rt_st_fns *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = rt_xrealloc(s->v, s->cap * sizeof *s->v);
	}
	memset(&s->v[s->n], 0, sizeof *s->v);
	return &s->v[s->n++];
}

const char *
rt_st_skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

size_t
rt_st_copy_ident(const char *p, char *out, size_t size)
{
	size_t n = 0;

	while (rt_st_is_ident(p[n]) && n + 1 < size) {
		out[n] = p[n];
		n++;
	}
	out[n] = '\0';
	return n;
}

/* Python: every def, its class, its body by indentation. */
static void
py_functions(const struct rt_st_text *t, struct rt_st_fns *out)
{
	struct { size_t indent; char name[128]; } cls[32];
	int ncls = 0, depth;
	size_t i, j, k, in;
	const char *c, *p;
	struct rt_st_fn *f;

	for (i = 0; i < t->n; i++) {
		c = t->code[i];
		if (rt_st_is_blank(c))
			continue;
		in = rt_st_indent_of(c);
		while (ncls > 0 && in <= cls[ncls - 1].indent)
			ncls--;
		p = rt_st_skip_space(c);
		if (!strncmp(p, "class ", 6)) {
			if (ncls < 32) {
				cls[ncls].indent = in;
				rt_st_copy_ident(rt_st_skip_space(p + 6), cls[ncls].name, sizeof cls[0].name);
				ncls++;
			}
			continue;
		}
		if (!strncmp(p, "async ", 6))
			p = rt_st_skip_space(p + 6);
		if (strncmp(p, "def ", 4) != 0)
			continue;
		f = fns_push(out);
		rt_st_copy_ident(rt_st_skip_space(p + 4), f->name, sizeof f->name);
		if (ncls > 0)
			snprintf(f->cls, sizeof f->cls, "%s", cls[ncls - 1].name);
		f->def = (long)i + 1;
		/* the signature may span lines; the body follows its ':' */
		for (depth = 0, j = i; j < t->n; j++) {
			for (p = t->code[j]; *p; p++)
				depth += (*p == '(' || *p == '[') - (*p == ')' || *p == ']');
			if (depth <= 0)
				break;
		}
		if (j >= t->n)
			j = t->n - 1;
		f->start = (long)j + 2;
		f->end = (long)j + 1;
		for (k = j + 1; k < t->n; k++) {
			if (rt_st_is_blank(t->code[k]))
				continue;
			if (rt_st_indent_of(t->code[k]) <= in)
				break;
			f->end = (long)k + 1;
		}
		f->test = strncmp(f->name, "test", 4) == 0;
	}
}

/* Go (gofmt): "func Name(" at the start of a line to the next "}" there. */
static void
go_functions(const struct rt_st_text *t, struct rt_st_fns *out)
{
	size_t i, j;
	const char *p;
	struct rt_st_fn *f;
	int depth;

	for (i = 0; i < t->n; i++) {
		p = t->code[i];
		if (strncmp(p, "func ", 5) != 0)
			continue;
		p = rt_st_skip_space(p + 5);
		if (*p == '(') {
			for (depth = 0; *p; p++) {
				depth += (*p == '(') - (*p == ')');
				if (depth == 0)
					break;
			}
			if (*p)
				p = rt_st_skip_space(p + 1);
		}
		f = fns_push(out);
		rt_st_copy_ident(p, f->name, sizeof f->name);
		f->def = (long)i + 1;
		f->start = (long)i + 2;
		f->end = (long)i + 1;
		for (j = i + 1; j < t->n; j++) {
			if (!strcmp(t->code[j], "}"))
				break;
			f->end = (long)j + 1;
		}
		f->test = !strncmp(f->name, "Test", 4) && go_test_signature(t->code[i]);
	}
}

void
rt_st_functions(const struct rt_st_text *t, int lang, struct rt_st_fns *out)
{
	memset(out, 0, sizeof *out);
	if (lang & RT_L_PY)
		py_functions(t, out);
	else if (lang & RT_L_GO)
		go_functions(t, out);
}

/* The innermost function whose body holds line ln (1-based). */
struct rt_st_fn *
rt_st_fn_at(struct rt_st_fns *s, long ln)
{
	struct rt_st_fn *best = NULL;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].def <= ln && ln <= s->v[i].end &&
		    (!best || s->v[i].def > best->def))
			best = &s->v[i];
	return best;
}

/* ---- the text rules: what no parser reads (shell, bats, JavaScript
 * without a parser, languages without a helper) ---- */

int
rt_st_text_judged(const struct rt_st_file *f)
{
	return !f->parsed && !(f->lang & (RT_L_PY | RT_L_GO));
}

/* The patterns (exits, dead code, || true) and the removed call also read
 * a JavaScript file its parser read, whose inventory has no exits, dead
 * branches or calls checked; its skips are the inventory's. */
static int
beside_parser(const struct rt_st_file *f, const char *rule)
{
	return !(f->lang & (RT_L_PY | RT_L_GO)) &&
	    (!f->parsed || strcmp(rule, "skip") != 0);
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
/* ---- pattern rules on added lines ---- */

#define BD "(^|[^A-Za-z0-9_.])"
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
	{ "early-exit", RT_L_RB | RT_L_C | RT_L_OTHER, 0, BD "(exit|quit|_exit|_Exit|quick_exit)" S "\\(" S "(0|EXIT_SUCCESS)?" S "\\)", "a successful exit()", {0}, 0, 0 },
	{ "early-exit", RT_L_ANY, 0, "process\\.exit" S "\\(" S "0?" S "\\)", "process.exit", {0}, 0, 0 },
	{ "early-exit", RT_L_ANY, 0, "System\\.exit" S "\\(" S "0" S "\\)", "System.exit(0)", {0}, 0, 0 },
	{ "early-exit", RT_L_ANY, 0, "process::exit" S "\\(" S "0" S "\\)", "process::exit(0)", {0}, 0, 0 },
	{ "early-exit", RT_L_SH, 0, SHSEP "exit([[:space:]]+0)?" SHEND, "a successful shell exit", {0}, 0, 1 },
	{ "early-exit", RT_L_SH, 1, SHSEP "return([[:space:]]+0)?" SHEND, "a successful shell return", {0}, 0, 0 },
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
	{ "if-0", RT_L_C | RT_L_JS | RT_L_JAVA, 0, B "if" S "\\(" S "(false|0)" S "\\)", "if (false)", {0}, 0, 0 },
	{ "if-0", RT_L_ANY, 0, "(and|&&)" S "(False|false|0)" S "(:|\\)|\\{|$|;)", "a condition made false", {0}, 0, 0 },
	{ "if-0", RT_L_SH | RT_L_RS | RT_L_RB, 0, "^[[:space:]]*if[[:space:]]+false" S "(\\{|;|$|[[:space:]]then)", "if false", {0}, 0, 0 },
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
kept_final_exit(const struct rt_st_file *f, long ln)
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

int
rt_st_patterns(struct rt_st_diff *g, const char *rule)
{
	size_t i, j, k;
	struct rt_st_file *f;
	const char *code;
	char q[96];

	if (pats_compile(g->res) < 0)
		return 1;
	for (k = 0; k < sizeof pats / sizeof pats[0]; k++) {
		if (strcmp(pats[k].rule, rule) != 0)
			continue;
		for (i = 0; i < g->nf; i++) {
			f = &g->f[i];
			if (!(pats[k].langs & f->lang) || (pats[k].test_only && !f->test) ||
			    !beside_parser(f, rule))
				continue;
			for (j = 0; j < f->n; j++) {
				if (f->l[j].kind != RT_ST_ADD)
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
int
rt_st_is_assert_at(const struct rt_st_text *t, size_t i, int lang)
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
char *
rt_st_squash(const char *s)
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
char *
rt_st_literal_shape(const char *s)
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
			e = s;
			while (isalnum((unsigned char)*s) || *s == '.' || *s == '_') {
				/* an exponent's sign is the number's: 1e-9 */
				if ((*s == 'e' || *s == 'E') && (s[1] == '-' || s[1] == '+') &&
				    isdigit((unsigned char)s[2]) && !(e[0] == '0' &&
				    (e[1] == 'x' || e[1] == 'X')))
					s++;
				s++;
			}
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


int
rt_st_truthy_literal(const char *s)
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

int
rt_st_falsy_literal(const char *s)
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
int
rt_st_self_compare(const char *expr)
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
			char *sa = rt_st_squash(a), *sb = rt_st_squash(b);
			r = strcmp(sa, sb) == 0;
			free(sa);
			free(sb);
		}
		if (r)
			return 1;
		if (rt_st_truthy_literal(a) && rt_st_truthy_literal(b) && strcmp(a, b) == 0)
			return 1;
	}
	return 0;
}

/* Can this assertion line fail? 1 when it cannot. */
static int
tautology(const char *c, int lang)
{
	char args[4][160], name[64];
	const char *p, *q, *end;
	size_t n;
	int na;

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

			if (strncmp(m, ".toBeTruthy()", 13) == 0 && rt_st_truthy_literal(args[0]))
				return 1;
			if (strncmp(m, ".toBe(", 6) == 0 || strncmp(m, ".toEqual(", 9) == 0 ||
			    strncmp(m, ".toStrictEqual(", 15) == 0) {
				nb = split_args(strchr(m, '(') + 1, b2, 4, NULL);
				if (nb == 1) {
					char *sa, *sb;
					int r;
					rt_st_trim(b2[0]);
					sa = rt_st_squash(args[0]);
					sb = rt_st_squash(b2[0]);
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
			if (rt_st_falsy_literal(args[0]))
				return 1;
			continue;
		}
		if (strstr(name, "Equal") || strstr(name, "_EQ") || strstr(name, "Same") ||
		    strstr(name, "_STREQ") || !strcmp(name, "assertIs")) {
			if (na >= 2) {
				char *sa = rt_st_squash(args[0]), *sb = rt_st_squash(args[1]);
				int r = strcmp(sa, sb) == 0;
				free(sa);
				free(sb);
				if (r)
					return 1;
			}
			continue;
		}
		if (na == 1 || strstr(name, "True") || strstr(name, "TRUE")) {
			if (rt_st_truthy_literal(args[0]) || rt_st_self_compare(args[0]))
				return 1;
		}
	}
	return 0;
}

int
rt_st_tautology(struct rt_st_diff *g, const char *rule)
{
	size_t i, j;
	struct rt_st_file *f;
	const char *c;
	char q[96];

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		if (!f->test || !rt_st_text_judged(f))
			continue;
		for (j = 0; j < f->n; j++) {
			if (f->l[j].kind != RT_ST_ADD || f->l[j].ln < 1 ||
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
hunk_asserts(struct rt_st_file *f, int hunk, const char **del, long *dln, size_t *nd,
    const char **add, long *aln, size_t *na, size_t max)
{
	size_t j, a, b;
	char *sa, *sb;
	int same;

	*nd = *na = 0;
	for (j = 0; j < f->n; j++) {
		struct rt_st_dline *l = &f->l[j];
		if (l->hunk != hunk || l->ln < 1)
			continue;
		if (l->kind == RT_ST_DEL && (size_t)l->ln <= f->before.n &&
		    rt_st_is_assert_at(&f->before, (size_t)l->ln - 1, f->lang) && *nd < max) {
			dln[*nd] = l->ln;
			del[(*nd)++] = f->before.code[l->ln - 1];
		} else if (l->kind == RT_ST_ADD && (size_t)l->ln <= f->after.n &&
		    rt_st_is_assert_at(&f->after, (size_t)l->ln - 1, f->lang) && *na < max) {
			aln[*na] = l->ln;
			add[(*na)++] = f->after.code[l->ln - 1];
		}
	}
	for (a = 0; a < *nd; a++) {
		for (b = 0; b < *na; b++) {
			sa = rt_st_squash(del[a]);
			sb = rt_st_squash(add[b]);
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

int
rt_st_weakened(struct rt_st_diff *g, const char *rule)
{
	const char *del[MAXA], *add[MAXA];
	long dln[MAXA], aln[MAXA];
	size_t i, j, nd, na, k;
	int h;
	struct rt_st_file *f;
	char q1[96], q2[96];

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		if (!f->test || !rt_st_text_judged(f))
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

int
rt_st_call_removed(struct rt_st_diff *g, const char *rule)
{
	size_t i, j, k;
	struct rt_st_file *f;
	struct names vars, calls;
	char name[128];
	const char *rhs;
	int r = 0;

	for (i = 0; i < g->nf && !r; i++) {
		f = &g->f[i];
		if (!f->test || !beside_parser(f, rule))
			continue;
		memset(&vars, 0, sizeof vars);
		memset(&calls, 0, sizeof calls);
		for (j = 0; j < f->before.n; j++)
			if (rt_st_is_assert_at(&f->before, j, f->lang)) {
				vars_in(f->before.code[j], f->lang, &vars);
				calls_in(f->before.code[j], f->lang, &calls);
			}
		for (j = 0; j < f->before.n; j++) {
			if (rt_st_is_assert_at(&f->before, j, f->lang))
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

/* Patterns compiled once, by index (the Python and Go ones tell a test
 * file by its content: which files the parsers read). */
enum {
	RX_PY_DEFTEST, RX_PY_TESTCASE, RX_PY_SELFASSERT, RX_PY_TOPASSERT,
	RX_GO_TEST, RX_JS_TEST, RX_JS_EXPECT, RX_SH_TEST, RX_C_TEST,
	RX_JS_RETURN, RX_N
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
	"^[[:space:]]*return[[:space:]]*;?[[:space:]]*$",
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

int
rt_st_test_by_content(const struct rt_st_text *t, int lang)
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










/* ---- early-return (JavaScript without a parser) ---- */

static int
is_return_line(const char *c, int lang)
{
	return (lang & RT_L_JS) && rx(RX_JS_RETURN, c);
}

/* A return added inside a test function, with an assertion after it in
 * the same body: the assertions below it no longer run. A return right
 * after a failure report (t.Fatalf; return) skips nothing. */
int
rt_st_early_return(struct rt_st_diff *g, const char *rule)
{
	size_t i, j, k;
	struct rt_st_file *f;
	struct rt_st_fns fs;
	struct rt_st_fn *fn;
	long ln, prev;
	char q1[96], q2[96];
	int r = 0;

	for (i = 0; i < g->nf && !r; i++) {
		f = &g->f[i];
		if (!f->test || !rt_st_text_judged(f) || !(f->lang & RT_L_JS))
			continue;
		rt_st_functions(&f->after, f->lang, &fs);
		for (j = 0; j < f->n && !r; j++) {
			ln = f->l[j].ln;
			if (f->l[j].kind != RT_ST_ADD || ln < 1 || (size_t)ln > f->after.n ||
			    !is_return_line(f->after.code[ln - 1], f->lang))
				continue;
			for (prev = ln - 1; prev >= 1 && rt_st_is_blank(f->after.code[prev - 1]); prev--)
				;
			if (prev >= 1 && rt_st_is_failure_line(f->after.code[prev - 1], f->lang))
				continue;
			fn = rt_st_fn_at(&fs, ln);
			for (k = (size_t)ln; k < (fn ? (size_t)fn->end : f->after.n); k++)
				if (rt_st_is_assert_at(&f->after, k, f->lang)) {
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

/* ---- timing bounds, by text ---- */

/* The text rules' timing bound: lines d and a are the same upper bound on
 * a value read from a clock on the line itself
 * (`expect(performance.now() - t0).toBeLessThan(10)`, `.to.be.below(N)`,
 * `assert.ok(Date.now() - t0 < N)`, `assert time.monotonic() - t0 < N`)
 * but for that bound, which a grows. The bounds as written in from, to.
 * What the text cannot place (a name assigned from a clock, a lower bound)
 * stays with the other rules. */
int
rt_st_timing_widened(const char *d, const char *a, char *from, char *to, size_t size)
{
	static const char *const clocks[] = {
		"performance.now(", "Date.now(", "process.hrtime(", "time.time(",
		"time.monotonic(", "time.perf_counter(", "time.Since(", NULL
	};
	static const char *const uppers[] = {
		"toBeLessThan(", "toBeLessThanOrEqual(", "below(", "lessThan(",
		"most(", "< ", "<= ", NULL
	};
	const char *cd, *p, *q, *bd = NULL, *ba = NULL;
	char *sd, *sa, *ed, *ea;
	double vd, va;
	size_t i, n;
	int same;

	if (strstr(d, ".not.") || strstr(a, ".not."))
		return 0;
	for (i = 0, cd = NULL; clocks[i] && !cd; i++)
		cd = strstr(d, clocks[i]);
	if (!cd)
		return 0;
	sd = rt_st_literal_shape(d);
	sa = rt_st_literal_shape(a);
	same = strcmp(sd, sa) == 0;
	free(sd);
	free(sa);
	if (!same)
		return 0;
	/* the first differing byte is the bound's, after the clock and an
	 * upper-bound word, and the rest of the lines agree past the numbers */
	for (n = 0; d[n] && d[n] == a[n]; n++)
		;
	while (n > 0 && (isdigit((unsigned char)d[n - 1]) || d[n - 1] == '.'))
		n--;
	if ((size_t)(cd - d) >= n)
		return 0;
	for (i = 0; uppers[i]; i++) {
		size_t m = strlen(uppers[i]);
		for (p = d; (q = strstr(p, uppers[i])) && (size_t)(q - d) + m <= n; p = q + 1)
			if ((size_t)(q - d) + m == n || ((size_t)(q - d) + m < n &&
			    d[(size_t)(q - d) + m] == ' ' && (size_t)(q - d) + m + 1 == n))
				bd = d + n, ba = a + n;
	}
	if (!bd)
		return 0;
	errno = 0;
	vd = strtod(bd, &ed);
	va = strtod(ba, &ea);
	if (ed == bd || ea == ba || errno || strcmp(ed, ea) || !(va > vd))
		return 0;
	snprintf(from, size, "%.*s", (int)(ed - bd), bd);
	snprintf(to, size, "%.*s", (int)(ea - ba), ba);
	return 1;
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

int
rt_st_inert(const char *c)
{
	c = rt_st_skip_space(c);
	return !*c || !strcmp(c, "pass") || !strcmp(c, "...");
}

/* Pair the lines a patch changes in f for expected-value-changed: a
 * removed line and an added one of a hunk that are the same but for
 * blanks (moved or re-indented), and, in a test file the text rules judge,
 * an assertion (or expected/want variable) whose literals alone differ.
 * Paired lines are marked in used (by index into f->l). The number of
 * literal pairs, the first one's lines in *pd and *pa. */
size_t
rt_st_expected_lines(struct rt_st_file *f, char *used, long *pd, long *pa)
{
	size_t j, k, npairs = 0;
	const char *d, *a;
	char *s1, *s2, n1[64], n2[64];
	int same, isexp;

	for (j = 0; j < f->n; j++) {
		if (f->l[j].kind != RT_ST_DEL || used[j] || f->l[j].ln < 1 ||
		    (size_t)f->l[j].ln > f->before.n)
			continue;
		d = f->before.code[f->l[j].ln - 1];
		for (k = 0; k < f->n; k++) {
			if (f->l[k].kind != RT_ST_ADD || used[k] ||
			    f->l[k].hunk != f->l[j].hunk || f->l[k].ln < 1 ||
			    (size_t)f->l[k].ln > f->after.n)
				continue;
			a = f->after.code[f->l[k].ln - 1];
			s1 = rt_st_squash(d);
			s2 = rt_st_squash(a);
			same = strcmp(s1, s2) == 0;
			free(s1);
			free(s2);
			if (same) {             /* moved or re-indented */
				used[j] = used[k] = 1;
				break;
			}
			if (!f->test || !rt_st_text_judged(f))
				continue;
			isexp = (rt_st_is_assert_at(&f->before, (size_t)f->l[j].ln - 1, f->lang) &&
			    rt_st_is_assert_at(&f->after, (size_t)f->l[k].ln - 1, f->lang)) ||
			    (expect_var(d, n1, sizeof n1) && expect_var(a, n2, sizeof n2) &&
			    !strcmp(n1, n2));
			if (!isexp)
				continue;
			s1 = rt_st_literal_shape(d);
			s2 = rt_st_literal_shape(a);
			same = strcmp(s1, s2) == 0;
			free(s1);
			free(s2);
			if (!same)
				continue;
			used[j] = used[k] = 1;
			/* a widened timing bound is accounted for, not an expected value */
			if (rt_st_timing_widened(d, a, n1, n2, sizeof n1))
				break;
			if (npairs++ == 0) {
				*pd = f->l[j].ln;
				*pa = f->l[k].ln;
			}
			break;
		}
	}
	return npairs;
}

/* ---- assertion-removed, quoting each line ---- */

/* Say how a hunk disposed of a removed assertion: commented it out, put a
 * placeholder in its place, or deleted it. */
void
rt_st_how_removed(rt_buf *why, struct rt_st_file *f, int hunk, const char *code, long ln)
{
	size_t j;
	char *sq = rt_st_squash(code), *sl, q[96];
	const char *raw, *c, *ph = NULL;
	int commented = 0;

	for (j = 0; j < f->n && !commented && !ph; j++) {
		if (f->l[j].kind != RT_ST_ADD || f->l[j].hunk != hunk || f->l[j].ln < 1 ||
		    (size_t)f->l[j].ln > f->after.n)
			continue;
		raw = f->after.line[f->l[j].ln - 1];
		c = rt_st_skip_space(f->after.code[f->l[j].ln - 1]);
		sl = rt_st_squash(raw);
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

int
rt_st_removed(struct rt_st_diff *g, const char *rule)
{
	const char *del[MAXA], *add[MAXA];
	long dln[MAXA], aln[MAXA];
	size_t i, j, k, nd, na, tdel, tadd, nq;
	int h;
	struct rt_st_file *f;
	rt_buf why = { 0 };

	for (i = 0; i < g->nf; i++) {
		f = &g->f[i];
		if (!f->test || !rt_st_text_judged(f))
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
				rt_st_how_removed(&why, f, h, del[k], dln[k]);
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
