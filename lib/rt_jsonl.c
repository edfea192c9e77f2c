/* rt_jsonl: the shared JSON Lines loop and record helpers. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_jsonl.h"
#include "rt_records.h"
#include "rt_util.h"

#define RT_DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(12))

void
rt_die_at(const rt_where *w, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s:%ld: ", rt_progname, w->file, w->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(RT_EXIT_ERR);
}

static int
loop_stream(FILE *f, const char *name, rt_jsonl_opts *o, rt_record_fn fn,
    void *ctx)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	rt_where w = { name, 0 };
	json_error_t err;
	json_t *rec, *type;
	int rc = 0;
	const char *why;
	char msg[256];

	while ((n = getline(&line, &cap, f)) != -1) {
		w.line++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (strspn(line, " \t") == (size_t)n)
			continue;
		why = NULL;
		rec = NULL;
		if (o->max_line && (size_t)n > o->max_line) {
			snprintf(msg, sizeof msg, "line longer than %zu bytes", o->max_line);
			why = msg;
		} else if (!(rec = json_loadb(line, (size_t)n, JSON_ALLOW_NUL, &err))) {
			snprintf(msg, sizeof msg, "invalid JSON: %s (column %d)", err.text, err.column);
			why = msg;
		} else if (!json_is_object(rec)) {
			why = "not a JSON object";
		} else if (!(type = json_object_get(rec, "type")) || !json_is_string(type)) {
			why = "\"type\" missing";
		}
		if (why) {
			json_decref(rec);
			if (!o->lenient) {
				free(line);
				rt_die_at(&w, "%s", why);
			}
			o->skipped++;
			continue;
		}
		o->records++;
		rc = fn(rec, &w, ctx);
		json_decref(rec);
		if (rc)
			break;
	}
	if (!rc && ferror(f)) {
		free(line);
		rt_die("%s: read error:", name);
	}
	free(line);
	return rc;
}

int
rt_jsonl_loop(int nfiles, char *const files[], rt_jsonl_opts *opts,
    rt_record_fn fn, void *ctx)
{
	rt_jsonl_opts dflt = {0};
	int i, rc = 0;
	FILE *f;

	if (!opts)
		opts = &dflt;
	if (nfiles == 0)
		return loop_stream(stdin, "<stdin>", opts, fn, ctx);
	for (i = 0; i < nfiles && !rc; i++) {
		if (strcmp(files[i], "-") == 0) {
			rc = loop_stream(stdin, "<stdin>", opts, fn, ctx);
			continue;
		}
		if (!(f = fopen(files[i], "re")))
			rt_die("%s:", files[i]);
		rc = loop_stream(f, files[i], opts, fn, ctx);
		fclose(f);
	}
	return rc;
}

const char *
rt_rec_str(json_t *rec, const char *key, const rt_where *w)
{
	json_t *v = json_object_get(rec, key);

	if (!v || json_is_null(v))
		rt_die_at(w, "\"%s\" missing", key);
	if (!json_is_string(v))
		rt_die_at(w, "\"%s\": not a string", key);
	return json_string_value(v);
}

int
rt_rec_opt_str(json_t *rec, const char *key, const rt_where *w, const char **out)
{
	json_t *v = json_object_get(rec, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		rt_die_at(w, "\"%s\": not a string", key);
	*out = json_string_value(v);
	return 1;
}

int
rt_rec_opt_name(json_t *rec, const char *key, const rt_where *w, const char **out)
{
	json_t *v = json_object_get(rec, key);

	if (!rt_rec_opt_str(rec, key, w, out))
		return 0;
	if (strlen(*out) != json_string_length(v))
		rt_die_at(w, "\"%s\": a NUL byte (\\u0000) inside; refused, as it "
		    "would merge two names", key);
	return 1;
}

int
rt_rec_opt_num(json_t *rec, const char *key, const rt_where *w, double *out)
{
	json_t *v = json_object_get(rec, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_number(v))
		rt_die_at(w, "\"%s\": not a number", key);
	*out = json_number_value(v);
	return 1;
}

int
rt_rec_opt_int(json_t *rec, const char *key, const rt_where *w, long long *out)
{
	json_t *v = json_object_get(rec, key);
	double d;

	if (!v || json_is_null(v))
		return 0;
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 1;
	}
	if (json_is_real(v)) {
		d = json_real_value(v);
		if (d == floor(d) && fabs(d) < 9e15) {
			*out = (long long)d;
			return 1;
		}
	}
	rt_die_at(w, "\"%s\": not a whole number", key);
}

double
rt_rec_num(json_t *rec, const char *key, double min, double max, const rt_where *w)
{
	double v;

	if (!rt_rec_opt_num(rec, key, w, &v))
		rt_die_at(w, "\"%s\" missing", key);
	if (v < min || v > max)
		rt_die_at(w, "\"%s\": %g is out of range [%g, %g]", key, v, min, max);
	return v;
}

long long
rt_rec_int(json_t *rec, const char *key, long long min, long long max, const rt_where *w)
{
	long long v;

	if (!rt_rec_opt_int(rec, key, w, &v))
		rt_die_at(w, "\"%s\" missing", key);
	if (v < min || v > max)
		rt_die_at(w, "\"%s\": %lld is out of range [%lld, %lld]", key, v, min, max);
	return v;
}

/* With RETRIAL_CHECK_RECORDS set (t/06-records.bats), every record of a
 * type retrial(7) lists is validated before it is written (every writer
 * goes through rt_dumps): a writer that breaks the schema is a bug, and
 * says so rather than ship the record. */
static void
check_written(const json_t *rec)
{
	const char *e = getenv("RETRIAL_CHECK_RECORDS");
	rt_rec_kind_t k;
	char err[600];

	if (!e || !*e || !strcmp(e, "0") || !(k = rt_rec_kind(rec)))
		return;
	if (rt_rec_validate(k, rec, NULL, 0, err, sizeof err) < 0)
		rt_die("bug: writing a bad record: %s", err);
}

char *
rt_dumps(json_t *rec)
{
	char *s;

	check_written(rec);
	if (!(s = json_dumps(rec, RT_DUMP_FLAGS)))
		rt_die("cannot encode a record as JSON");
	return s;
}

int
rt_emit_try(FILE *out, json_t *rec)
{
	char *s = rt_dumps(rec);
	size_t n = strlen(s);
	int bad;

	/* one fwrite of line+newline, then flush: a line is whole or absent */
	s = rt_xrealloc(s, n + 2);
	s[n] = '\n';
	bad = fwrite(s, 1, n + 1, out) != n + 1;
	free(s);
	if (bad || fflush(out) != 0)
		return -1;
	return 0;
}

void
rt_emit(FILE *out, json_t *rec)
{
	if (rt_emit_try(out, rec) < 0)
		rt_write_failed(out, out == stdout ? "stdout" : "output");
}

json_t *
rt_json_str_or_null(const char *s)
{
	return s ? rt_json_bytes(s, strlen(s)) : json_null();
}

json_t *
rt_json_bytes(const char *s, size_t n)
{
	size_t len;
	char *fixed = rt_utf8_repair(s, n, &len, NULL);
	json_t *j = json_stringn_nocheck(fixed, len);

	free(fixed);
	if (!j)
		rt_die("out of memory");
	return j;
}

json_t *
rt_json_real6(double v)
{
	if (!isfinite(v))
		return json_null();
	return json_real(round(v * 1e6) / 1e6);
}

int
rt_json_whole(const json_t *v, long long *out)
{
	double d;

	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	if (!json_is_real(v))
		return -1;
	d = json_real_value(v);
	if (d != floor(d) || !(fabs(d) < 9e15))
		return -1;
	*out = (long long)d;
	return 0;
}
