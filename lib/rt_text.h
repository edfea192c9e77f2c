/* rt_text: test output as comparable words — masking of the parts that vary
 * from run to run, a hand-written tokenizer, and a string-keyed hash table. */
#ifndef RT_TEXT_H
#define RT_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include "rt_util.h"

/* Placeholders for run-varying parts. '<' never occurs in a word, so a
 * token holding one is always recognisably masked. */
#define RT_MASK_NUM  "<num>"    /* 42, 3.14, 127.0.0.1, 1e-5 */
#define RT_MASK_HEX  "<hex>"    /* 0x7ffd1234, and hex words ≥ 8 with a digit */
#define RT_MASK_UUID "<uuid>"   /* 8-4-4-4-12 hex digits */
#define RT_MASK_TIME "<time>"   /* 2026-11-29T23:59:59.123Z, 2026-11-29, 23:59:59 */
#define RT_MASK_TMP  "<tmp>"    /* /tmp/..., /var/tmp/..., /var/folders/..., /dev/shm/... */

/* Longest token kept, in bytes; longer words are cut at a UTF-8 boundary. */
#define RT_TOK_MAX 64

/* Copy n bytes of s to out with every run-varying part replaced by its
 * placeholder and ANSI colour sequences (ESC [ ... letter) removed; all
 * other bytes are kept as they are. Appends; out stays NUL-terminated. */
void rt_text_mask(const char *s, size_t n, rt_buf *out);

/* Text from a record (a test name, a line of output) for a person to
 * read, on a terminal or in Markdown and HTML, with nothing in it acted
 * on: invalid UTF-8 repaired (U+FFFD, so a lone 0x9b byte is no CSI),
 * each C0 control and DEL shown as its Control Picture (ESC as U+241B
 * "\u241b", BEL "\u2407", CR "\u240d", LF "\u240a", NUL "\u2400", DEL
 * "\u2421") and each C1 control U+0080-U+009F as the text "\u009b".
 * With RT_VIS_LINES, line feeds and tabs are kept (a block of output).
 * Appends n bytes of s to b. Every tool prints record text for a person
 * through it. */
enum { RT_VIS_LINES = 1 };
void rt_text_visible(rt_buf *b, const char *s, size_t n, int flags);
/* The same for a NUL-terminated string, one line, malloc'd. */
char *rt_visible(const char *s);

/* The tokenizer: words are runs of ASCII letters, digits, '_' and bytes
 * ≥ 0x80, masked as by rt_text_mask (a digit run inside a word becomes
 * <num>: "pid1234" is "pid<num>"); everything else separates words.
 * A quoted literal is one token, quotes included: '...' or "..." on one
 * line, opened after a non-word byte, closed before one, at most
 * RT_TOK_MAX - 2 bytes inside and at least one word byte among them.
 * Inside it only times, UUIDs, hex words and temporary paths are masked,
 * so 'ab-cd1' stays 'ab-cd1'. rt_text_mask keeps such literals alike. */
typedef struct {
	const char *s;
	size_t n, i;
	char tok[RT_TOK_MAX + 8];   /* the current token, NUL-terminated */
	size_t len;
	int masked;                 /* tok contains a placeholder */
	int pure;                   /* tok is nothing but one placeholder */
	int newline;                /* a line break lies between it and the last token */
} rt_tok;

void rt_tok_init(rt_tok *t, const char *s, size_t n);
/* Next token into t->tok: 1, or 0 at the end of the text. */
int rt_tok_next(rt_tok *t);

/* 1 when a word looks like an error word: ALLCAPS (two or more letters,
 * none lower-case) or containing error, fail, fatal, stale, timeout,
 * exception, panic, abort, denied, refused, mismatch, exhaust, invalid,
 * corrupt, deadlock, busy, ... (case-insensitive). 2 when both. */
int rt_text_errorish(const char *w, size_t n);

/* Failure lines of common test runners, each one line, scored by how
 * much it says:
 *   3  the message: pytest "E   assert ...", a Python exception line
 *      "AssertionError: 'a' != ''", Go "    x_test.go:12: got 1", "panic: ..."
 *   2  where and which: pytest "x.py:8: AssertionError" and "FAILED node -
 *      msg", Go "--- FAIL: TestX", other "file:line: text" lines
 *   1  context: pytest's "E" continuation lines and "=== FAILURES ===",
 *      unittest "FAIL: test_x (...)", "File \"...\", line N, in test_x",
 *      "Traceback (most recent call last):"
 * msg/mlen: the message the line carries (score 2 and 3), else mlen 0. */
typedef struct {
	size_t off, len;     /* the line, without its line break */
	size_t moff, mlen;   /* the message within s */
	int score;
} rt_failure_line;

/* The next failure line of s at or after *pos (advanced past it): 1, or
 * 0 when there is none. */
int rt_failure_line_next(const char *s, size_t n, size_t *pos, rt_failure_line *fl);

/* The failure excerpt of one stream in at most max bytes: from three
 * lines before its first failure line on, keeping its best line. Returns
 * the best score (0: no failure line; then the last max bytes). */
int rt_failure_excerpt(const char *s, size_t n, size_t max, size_t *off, size_t *len);

/* Which of a trial's two streams holds the failure, with its excerpt
 * (*off, *len within that stream): the one with the more specific
 * failure lines, stderr on a tie; without any, the one with text,
 * stderr first. */
enum { RT_STDERR = 0, RT_STDOUT = 1 };
int rt_failure_stream(const char *out, size_t nout, const char *err, size_t nerr,
    size_t max, size_t *off, size_t *len);
const char *rt_stream_name(int stream);

/* Seeds that test runners print so that a run can be repeated, as each
 * runner's file in lib/runner/ lists them (rt_seed_opt):
 *   pytest-random-order  "Using --random-order-seed=N"
 *   pytest-randomly      "Using --randomly-seed=N"
 *   hypothesis           "@seed(N)", "--hypothesis-seed=N"
 *   go-shuffle           "-test.shuffle N" (go test -shuffle)
 * and PYTHONHASHSEED, which a trial's environment carries. The seed is
 * the digits as printed (a leading '-' kept), never masked. */
typedef struct {
	const char *runner;
	size_t off, len;     /* the seed within s */
} rt_seed;

/* The next seed in s at or after *pos (advanced past it): 1, or 0. */
int rt_seed_next(const char *s, size_t n, size_t *pos, rt_seed *sd);

/* How to make a runner use a seed: the variable and its value (any
 * previous value of the variable, prev, may be NULL, kept in front).
 * pytest plugins take PYTEST_ADDOPTS, go test GOFLAGS. -1 when the
 * runner is unknown or the seed is not digits. *val is allocated. */
int rt_seed_pin(const char *runner, const char *seed, const char *prev,
    const char **var, char **val);
/* The runner names rt_seed_pin knows: rt_seed_names() (rt_runner.h). */

/* A hash table from byte strings (any bytes, any length) to fixed-size
 * values, zeroed when created. Entries get dense ids 0, 1, 2, ... in
 * insertion order and are never removed; memory grows with the number of
 * distinct keys only. Value pointers move when the table grows: re-fetch
 * them with rt_strtab_val after any rt_strtab_put. */
typedef struct rt_strtab rt_strtab;

rt_strtab *rt_strtab_new(size_t valsize);
void rt_strtab_free(rt_strtab *t);
/* Forget every key, keeping the memory for reuse. */
void rt_strtab_clear(rt_strtab *t);
/* The id of key, adding it (value zeroed) when absent; *created (may be
 * NULL) says which. */
size_t rt_strtab_put(rt_strtab *t, const void *key, size_t len, int *created);
/* The id of key, or (size_t)-1 when absent. */
size_t rt_strtab_find(const rt_strtab *t, const void *key, size_t len);
void *rt_strtab_val(const rt_strtab *t, size_t id);
/* The key of an id (NUL-terminated after len bytes). */
const char *rt_strtab_key(const rt_strtab *t, size_t id, size_t *len);
size_t rt_strtab_count(const rt_strtab *t);
/* Bytes held by the table (keys, values, index), for reports. */
size_t rt_strtab_bytes(const rt_strtab *t);

/* The 64-bit hash the table uses. */
uint64_t rt_text_hash(const void *key, size_t len);

#endif
