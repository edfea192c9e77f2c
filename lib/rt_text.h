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

/* The tokenizer: words are runs of ASCII letters, digits, '_' and bytes
 * ≥ 0x80, masked as by rt_text_mask (a digit run inside a word becomes
 * <num>: "pid1234" is "pid<num>"); everything else separates words. */
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
