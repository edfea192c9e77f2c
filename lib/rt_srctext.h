/* rt_srctext: a source file as the text rules and the canary read it —
 * its language by name, its lines with comments stripped, its functions
 * by indentation (Python) or gofmt layout (Go) — and the guard's text
 * rules, for what no parser reads (shell, bats, JavaScript without a
 * parser, languages without a helper; never Python or Go). Private to
 * lib/ (rt_guard, rt_canary); the parsers' view of a test is rt_src. */
#ifndef RT_SRCTEXT_H
#define RT_SRCTEXT_H

#include <stddef.h>

#include "rt_guard.h"
#include "rt_src.h"
#include "rt_util.h"

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

/* ---- a patched file, as the guard reads the diff ---- */

enum { RT_ST_CTX, RT_ST_ADD, RT_ST_DEL };

struct rt_st_dline {
	int kind;
	long ln;        /* in the new file for RT_ST_ADD, the old one for RT_ST_DEL */
	int hunk;
	char *text;
};

struct rt_st_file {
	char *path;             /* the judged path (new side, or old if deleted) */
	int lang, test;
	struct rt_st_dline *l;
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

/* The files of a patch, and where a rule that fires writes its verdict. */
struct rt_st_diff {
	struct rt_st_file *f;
	size_t nf;
	rt_guard_result *res;
};

/* Is f judged by the text rules (not parsed, and neither Python nor Go)? */
int rt_st_text_judged(const struct rt_st_file *f);

/* The text rules (rt_guard.h names them), over the files the text rules
 * judge: 1 when rule fires (d->res says why), else 0. rt_st_patterns
 * serves early-exit, skip, or-true and if-0. */
int rt_st_patterns(struct rt_st_diff *d, const char *rule);
int rt_st_early_return(struct rt_st_diff *d, const char *rule);
int rt_st_tautology(struct rt_st_diff *d, const char *rule);
int rt_st_weakened(struct rt_st_diff *d, const char *rule);
int rt_st_removed(struct rt_st_diff *d, const char *rule);
int rt_st_call_removed(struct rt_st_diff *d, const char *rule);
size_t rt_st_expected_lines(struct rt_st_file *f, char *used, long *pd, long *pa);
int rt_st_timing_widened(const char *d, const char *a, char *from, char *to,
    size_t size);

/* Shared with the rules over inventories. */
int rt_st_test_by_content(const struct rt_st_text *t, int lang);
int rt_st_is_assert_at(const struct rt_st_text *t, size_t i, int lang);
char *rt_st_squash(const char *s);
char *rt_st_literal_shape(const char *s);
int rt_st_truthy_literal(const char *s);
int rt_st_falsy_literal(const char *s);
int rt_st_self_compare(const char *expr);
int rt_st_inert(const char *c);
void rt_st_how_removed(rt_buf *why, struct rt_st_file *f, int hunk,
    const char *code, long ln);

#endif
