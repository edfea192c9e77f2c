/* rt_srctext: a source file as the text rules and the canary read it —
 * its language by name, its lines with comments stripped, its functions
 * by indentation (Python) or gofmt layout (Go). Private to lib/ (rt_guard,
 * rt_canary); the parsers' view of a test is rt_src. */
#ifndef RT_SRCTEXT_H
#define RT_SRCTEXT_H

#include <stddef.h>

enum {
	RT_L_PY = 1, RT_L_SH = 2, RT_L_C = 4, RT_L_GO = 8, RT_L_JS = 16, RT_L_JAVA = 32,
	RT_L_RB = 64, RT_L_RS = 128, RT_L_OTHER = 256, RT_L_ANY = 511
};

/* A file's text split into lines, with comments stripped for matching. */
struct rt_st_text {
	char **line, **code;
	size_t n;
};

struct rt_st_fn {
	char name[128], cls[128];
	long def, start, end;   /* 1-based: the definition, first and last body line */
	int test;
};
struct rt_st_fns { struct rt_st_fn *v; size_t n, cap; };

/* regex fragments: a word boundary, blank space */
#define RT_ST_B "(^|[^A-Za-z0-9_])"
#define RT_ST_S "[[:space:]]*"
/* a Go test's signature: func TestX(t *testing.T) */
#define RT_ST_GO_TEST "^func[[:space:]]+Test[A-Za-z0-9_]*[[:space:]]*\\([[:space:]]*[A-Za-z_][A-Za-z0-9_]*[[:space:]]+\\*testing\\.T[[:space:]]*\\)"

const char *rt_st_quote_line(const char *s, char *buf, size_t size);
int rt_st_is_ident(int c);
int rt_st_lang_of(const char *path, const char *first_line);
void rt_st_text_load(struct rt_st_text *t, const char *s, int lang);
void rt_st_text_free(struct rt_st_text *t);
int rt_st_safe_relpath(const char *p);
int rt_st_is_blank(const char *code);
int rt_st_matches(const char *s, const char *re);
int rt_st_is_failure_line(const char *c, int lang);
size_t rt_st_indent_of(const char *s);
void rt_st_trim(char *s);
const char *rt_st_skip_space(const char *p);
size_t rt_st_copy_ident(const char *p, char *out, size_t size);
void rt_st_functions(const struct rt_st_text *t, int lang, struct rt_st_fns *out);
struct rt_st_fn *rt_st_fn_at(struct rt_st_fns *s, long ln);

#endif
