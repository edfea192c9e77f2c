/* rt_tmpl: a small Mustache subset (rt_tmpl.h): parse once, checking
 * every name against the caller's list, then render a jansson view. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rt_tmpl.h"
#include "rt_util.h"

#define MAX_DEPTH 32

enum { T_TEXT, T_VAR, T_SEC, T_INV, T_END, T_COMMENT };

typedef struct {
	int kind;
	const char *s;       /* text, or the name */
	size_t len;
	size_t match;        /* T_SEC/T_INV: the index of its T_END */
} tok_t;

struct rt_tmpl {
	tok_t *t;
	size_t n, cap;
	char *src;
	const char *const *names;
	const char *doc;
};

static int
known_name(const char *const *known_names, const char *s, size_t len)
{
	size_t i, k;
	const char *seg = s, *dot;

	if (len == 1 && *s == '.')
		return 1;
	while (seg < s + len) {
		dot = memchr(seg, '.', (size_t)(s + len - seg));
		k = dot ? (size_t)(dot - seg) : (size_t)(s + len - seg);
		for (i = 0; known_names[i]; i++)
			if (strlen(known_names[i]) == k && memcmp(known_names[i], seg, k) == 0)
				break;
		if (!known_names[i])
			return 0;
		seg += k + 1;
	}
	return 1;
}

static void
tok_add(rt_tmpl *T, int kind, const char *s, size_t len)
{
	if (kind == T_TEXT && len == 0)
		return;
	if (T->n == T->cap) {
		T->cap = T->cap ? 2 * T->cap : 64;
		T->t = rt_xrealloc(T->t, T->cap * sizeof *T->t);
	}
	T->t[T->n].kind = kind;
	T->t[T->n].s = s;
	T->t[T->n].len = len;
	T->t[T->n].match = 0;
	T->n++;
}

static long
line_of(const char *src, const char *p)
{
	long n = 1;
	for (; src < p; src++)
		n += *src == '\n';
	return n;
}

static void
parse(rt_tmpl *T, char *src, const char *file)
{
	const char *p = src, *o, *c, *name, *end, *ls, *q;
	size_t stack[MAX_DEPTH];
	int depth = 0, kind, standalone;

	T->src = src;
	while (*p) {
		if (!(o = strstr(p, "{{"))) {
			tok_add(T, T_TEXT, p, strlen(p));
			break;
		}
		if (!(c = strstr(o + 2, "}}")))
			rt_die("%s:%ld: \"{{\" without \"}}\"", file, line_of(src, o));
		switch (o[2]) {
		case '#': kind = T_SEC; break;
		case '^': kind = T_INV; break;
		case '/': kind = T_END; break;
		case '!': kind = T_COMMENT; break;
		default: kind = T_VAR; break;
		}
		name = o + 2 + (kind != T_VAR);
		while (name < c && (*name == ' ' || *name == '\t'))
			name++;
		end = c;
		while (end > name && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (kind != T_COMMENT) {
			const char *x;
			if (end == name)
				rt_die("%s:%ld: empty placeholder", file, line_of(src, o));
			for (x = name; x < end; x++)
				if (!isalnum((unsigned char)*x) && *x != '_' && *x != '.')
					rt_die("%s:%ld: bad placeholder \"%.*s\"", file, line_of(src, o),
					    (int)(c + 2 - o), o);
			if (!known_name(T->names, name, (size_t)(end - name)))
				rt_die("%s:%ld: unknown placeholder {{%.*s}} (see %s)",
				    file, line_of(src, o), (int)(end - name), name, T->doc);
		}
		/* a section, end or comment tag alone on its line takes the line with it */
		standalone = 0;
		ls = o;
		if (kind != T_VAR) {
			standalone = 1;
			while (ls > src && ls[-1] != '\n') {
				if (ls[-1] != ' ' && ls[-1] != '\t')
					standalone = 0;
				ls--;
			}
			q = c + 2;
			while (*q == ' ' || *q == '\t' || *q == '\r')
				q++;
			if (*q != '\n' && *q != '\0')
				standalone = 0;
		}
		if (standalone) {
			tok_add(T, T_TEXT, p, (size_t)(ls - p));
			p = *q ? q + 1 : q;
		} else {
			tok_add(T, T_TEXT, p, (size_t)(o - p));
			p = c + 2;
		}
		tok_add(T, kind, name, (size_t)(end - name));
		if (kind == T_SEC || kind == T_INV) {
			if (depth == MAX_DEPTH)
				rt_die("%s:%ld: sections nested too deeply", file, line_of(src, o));
			stack[depth++] = T->n - 1;
		} else if (kind == T_END) {
			tok_t *open;
			if (!depth)
				rt_die("%s:%ld: {{/%.*s}} closes nothing", file, line_of(src, o),
				    (int)(end - name), name);
			open = &T->t[stack[--depth]];
			if (open->len != (size_t)(end - name) || memcmp(open->s, name, open->len) != 0)
				rt_die("%s:%ld: {{/%.*s}} closes {{#%.*s}}", file, line_of(src, o),
				    (int)(end - name), name, (int)open->len, open->s);
			open->match = T->n - 1;
		}
	}
	if (depth)
		rt_die("%s: {{#%.*s}} is never closed", file, (int)T->t[stack[depth - 1]].len,
		    T->t[stack[depth - 1]].s);
}

static json_t *
lookup(json_t **stack, int depth, const char *name, size_t len)
{
	char seg[128];
	const char *s = name, *dot;
	json_t *v = NULL;
	size_t k;
	int i, first = 1;

	if (len == 1 && *name == '.')
		return stack[depth - 1];
	while (s < name + len) {
		dot = memchr(s, '.', (size_t)(name + len - s));
		k = dot ? (size_t)(dot - s) : (size_t)(name + len - s);
		if (k >= sizeof seg)
			return NULL;
		memcpy(seg, s, k);
		seg[k] = '\0';
		if (first) {
			for (i = depth - 1; i >= 0; i--)
				if (json_is_object(stack[i]) && (v = json_object_get(stack[i], seg)))
					break;
			first = 0;
		} else {
			v = json_is_object(v) ? json_object_get(v, seg) : NULL;
		}
		if (!v)
			return NULL;
		s += k + 1;
	}
	return v;
}

static int
truthy(json_t *v)
{
	if (!v || json_is_null(v) || json_is_false(v))
		return 0;
	if (json_is_array(v))
		return json_array_size(v) > 0;
	if (json_is_string(v))
		return json_string_length(v) > 0;
	return 1;
}

static void
render(const rt_tmpl *T, size_t from, size_t to, json_t **stack, int depth, rt_buf *out)
{
	size_t i, j;
	json_t *v;

	for (i = from; i < to; i++) {
		const tok_t *t = &T->t[i];
		switch (t->kind) {
		case T_TEXT:
			rt_buf_add(out, t->s, t->len);
			break;
		case T_VAR:
			v = lookup(stack, depth, t->s, t->len);
			if (json_is_string(v))
				rt_buf_add(out, json_string_value(v), json_string_length(v));
			else if (json_is_integer(v))
				rt_buf_printf(out, "%lld", (long long)json_integer_value(v));
			else if (json_is_real(v))
				rt_buf_printf(out, "%g", json_real_value(v));
			else if (json_is_boolean(v))
				rt_buf_adds(out, json_is_true(v) ? "true" : "false");
			break;
		case T_SEC:
			v = lookup(stack, depth, t->s, t->len);
			if (json_is_array(v) || json_is_object(v)) {
				if (depth >= MAX_DEPTH)
					rt_die("template: sections nested too deeply");
			}
			if (json_is_array(v)) {
				for (j = 0; j < json_array_size(v); j++) {
					stack[depth] = json_array_get(v, j);
					render(T, i + 1, t->match, stack, depth + 1, out);
				}
			} else if (json_is_object(v)) {
				stack[depth] = v;
				render(T, i + 1, t->match, stack, depth + 1, out);
			} else if (truthy(v)) {
				render(T, i + 1, t->match, stack, depth, out);
			}
			i = t->match;
			break;
		case T_INV:
			v = lookup(stack, depth, t->s, t->len);
			if (!truthy(v))
				render(T, i + 1, t->match, stack, depth, out);
			i = t->match;
			break;
		default:
			break;
		}
	}
}

rt_tmpl *
rt_tmpl_parse(const char *src, const char *file, const char *const *names, const char *doc)
{
	rt_tmpl *T = rt_xcalloc(1, sizeof *T);

	T->names = names;
	T->doc = doc;
	parse(T, rt_xstrdup(src), file);
	return T;
}

char *
rt_tmpl_render(const rt_tmpl *T, json_t *view)
{
	json_t *stack[MAX_DEPTH + 1];
	rt_buf out = {0};

	stack[0] = view;
	render(T, 0, T->n, stack, 1, &out);
	if (!out.data)
		rt_buf_adds(&out, "");
	return out.data;
}

void
rt_tmpl_free(rt_tmpl *T)
{
	if (!T)
		return;
	free(T->t);
	free(T->src);
	free(T);
}

char *
rt_tmpl_render_file(const char *path, const char *const *names, const char *doc, json_t *view)
{
	char *src = rt_read_file(path, NULL), *out;
	rt_tmpl *T;

	if (!src)
		rt_die("%s:", path);
	T = rt_tmpl_parse(src, path, names, doc);
	out = rt_tmpl_render(T, view);
	rt_tmpl_free(T);
	free(src);
	return out;
}
