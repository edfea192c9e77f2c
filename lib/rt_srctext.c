/* rt_srctext: source files as lines, languages and functions (see
 * rt_srctext.h). */
#include <ctype.h>
#include <regex.h>
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
