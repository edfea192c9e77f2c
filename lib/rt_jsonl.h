/* rt_jsonl: the record loop every tool shares — read JSON Lines from files
 * or stdin, parse with jansson, track file:line for messages, write one
 * compact record per line. */
#ifndef RT_JSONL_H
#define RT_JSONL_H

#include <stdio.h>
#include <jansson.h>

typedef struct {
	const char *file;   /* "<stdin>" for standard input */
	long line;
} rt_where;

/* Called once per record (a JSON object with a string "type"). Return 0
 * to go on, non-zero to stop the loop (rt_jsonl_loop returns that value). */
typedef int (*rt_record_fn)(json_t *rec, const rt_where *w, void *ctx);

typedef struct {
	int lenient;        /* skip malformed lines (counted) instead of dying */
	long skipped;       /* out: malformed lines skipped */
	long records;       /* out: records handed to fn */
	size_t max_line;    /* 0: no limit; else longer lines are malformed */
} rt_jsonl_opts;

/* Read every file (nfiles == 0 or "-" means stdin). Malformed input dies
 * with "tool: FILE:LINE: reason" (exit 2) unless opts->lenient. The record
 * is released after fn returns; json_incref it to keep it. */
int rt_jsonl_loop(int nfiles, char *const files[], rt_jsonl_opts *opts,
    rt_record_fn fn, void *ctx);

/* Die with "tool: FILE:LINE: message". */
_Noreturn void rt_die_at(const rt_where *w, const char *fmt, ...);

/* Checked field access; every failure names file:line and the field. */
const char *rt_rec_str(json_t *rec, const char *key, const rt_where *w);
/* Optional fields: 0 when absent or null, 1 when present; wrong types die. */
int rt_rec_opt_str(json_t *rec, const char *key, const rt_where *w, const char **out);
/* The same for a name that keys something (a case ID): a NUL inside dies,
 * since the C string would end there and merge two names. */
int rt_rec_opt_name(json_t *rec, const char *key, const rt_where *w, const char **out);
int rt_rec_opt_num(json_t *rec, const char *key, const rt_where *w, double *out);
int rt_rec_opt_int(json_t *rec, const char *key, const rt_where *w, long long *out);
double rt_rec_num(json_t *rec, const char *key, double min, double max, const rt_where *w);
long long rt_rec_int(json_t *rec, const char *key, long long min, long long max, const rt_where *w);

/* Write rec as one compact line and flush (a line is whole or absent);
 * dies on a write error. Steals no reference. */
void rt_emit(FILE *out, json_t *rec);
/* Same, returning -1 on a write error (errno set) instead of dying. */
int rt_emit_try(FILE *out, json_t *rec);
/* Dump a record to a malloc'd compact string (no newline). */
char *rt_dumps(json_t *rec);

/* A JSON string from arbitrary bytes (repairs invalid UTF-8, see rt_util). */
json_t *rt_json_bytes(const char *s, size_t n);
/* rt_json_bytes of a C string, or null for NULL. */
json_t *rt_json_str_or_null(const char *s);
/* A number rounded to 6 decimals, so rates print as 0.2, not 0.200000000001. */
json_t *rt_json_real6(double v);
/* A JSON number that is a whole number: an integer, or a real with no
 * fraction below 9e15 in magnitude. 0 with *out set, -1 otherwise. */
int rt_json_whole(const json_t *v, long long *out);

#endif
