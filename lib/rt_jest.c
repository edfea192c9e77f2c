/* rt_jest: the jest --json reader — each test's invocations and retry
 * reasons into per-attempt trial records shaped like rt_junit's. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "rt_jest.h"
#include "rt_jsonl.h"
#include "rt_util.h"

#define MAX_ATTEMPTS 100         /* failed attempts kept per test, as rt_junit */
#define MAX_MESSAGE 1024         /* bytes of the message line */

typedef struct {
	const rt_junit_opts *o;
	rt_junit_fn fn;
	void *ctx;
	size_t max_output;
	char *cwd;
	char *run;
	long ncase, records;
	int stopped;
} reader;

int
rt_jest_is_report(const json_t *doc)
{
	return json_is_object(doc) && json_is_array(json_object_get(doc, "testResults"));
}

static json_t *
str_or_null(const char *s)
{
	return s ? rt_json_bytes(s, strlen(s)) : json_null();
}

/* jest's milliseconds since the epoch as "2026-01-02T03:04:05.678Z"; NULL
 * when v is not a time. */
static char *
iso_ms(const json_t *v)
{
	double ms = json_is_number(v) ? json_number_value(v) : NAN;
	time_t s;
	struct tm tm;
	char buf[40];

	if (!isfinite(ms) || ms < 0 || ms > 253402300799000.0)
		return NULL;
	s = (time_t)(ms / 1000);
	if (!gmtime_r(&s, &tm) || !strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm))
		return NULL;
	return rt_xasprintf("%s.%03dZ", buf, (int)fmod(ms, 1000));
}

/* s without terminal colour sequences (ESC [ ... letter), which jest puts
 * in its messages when FORCE_COLOR is set. */
static void
add_plain(rt_buf *b, const char *s)
{
	while (*s) {
		if (*s == '\x1b' && s[1] == '[') {
			for (s += 2; *s && !isalpha((unsigned char)*s); s++)
				;
			if (*s)
				s++;
			continue;
		}
		rt_buf_addc(b, *s++);
	}
}

/* Cut b to limit bytes at a character, saying how many were not kept. */
static void
cap_text(rt_buf *b, size_t limit)
{
	size_t n = limit, lost;

	if (b->len <= limit)
		return;
	while (n > 0 && ((unsigned char)b->data[n] & 0xc0) == 0x80)
		n--;
	lost = b->len - n;
	b->len = n;
	rt_buf_printf(b, "\n[retrial: %zu more bytes not kept]", lost);
}

/* The first non-blank line of text, without jest's "●" bullet; after
 * "Test suite failed to run" the next line too, which says why. */
static char *
first_line(const char *text)
{
	rt_buf b = { 0 };
	const char *s = text, *e;
	char *r;
	int lines = 0;

	while (*s && lines < 2) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		if (!strncmp(s, "\xe2\x97\x8f ", 4))
			s += 4;
		for (e = s; *e && *e != '\n' && *e != '\r'; e++)
			;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (e == s)
			break;
		if (lines++)
			rt_buf_adds(&b, ": ");
		rt_buf_add(&b, s, (size_t)(e - s));
		if (strncmp(s, "Test suite failed to run", 24) != 0)
			break;
		s = e;
	}
	if (!b.len) {
		rt_buf_free(&b);
		return NULL;
	}
	if (b.len > MAX_MESSAGE) {
		b.len = MAX_MESSAGE;
		while (b.len > 0 && ((unsigned char)b.data[b.len] & 0xc0) == 0x80)
			b.len--;
	}
	r = rt_xstrdup(rt_buf_str(&b));
	rt_buf_free(&b);
	return r;
}

/* "TypeError: x is not a function" -> "TypeError"; NULL when the message
 * does not start with an error class. */
static char *
error_type(const char *msg)
{
	size_t n = 0;

	if (!msg || !(isalpha((unsigned char)*msg) || *msg == '_' || *msg == '$'))
		return NULL;
	while (isalnum((unsigned char)msg[n]) || msg[n] == '_' || msg[n] == '$' || msg[n] == '.')
		n++;
	if (msg[n] != ':' || !((n >= 5 && !strncmp(msg + n - 5, "Error", 5)) ||
	    (n >= 9 && !strncmp(msg + n - 9, "Exception", 9))))
		return NULL;
	return rt_xasprintf("%.*s", (int)n, msg);
}

/* jest names a test file by its absolute path: relative to the current
 * directory when that holds it. */
static char *
rel_file(const reader *r, const char *abs)
{
	size_t n = r->cwd ? strlen(r->cwd) : 0;

	if (n > 1 && !strncmp(abs, r->cwd, n) && abs[n] == '/' && abs[n + 1])
		return rt_xstrdup(abs + n + 1);
	return rt_xstrdup(abs);
}

typedef struct {
	const char *file, *name;     /* the relative file; the full name or NULL */
	const char *outcome, *result;
	long attempt;
	double time_ms;
	const char *text;            /* the failure text, or NULL */
	const char *message;         /* when there is no text */
	const char *timestamp;
} rec;

static void
emit(reader *r, const rec *c)
{
	json_t *j = json_object();
	char *id = c->name ? rt_xasprintf("%s::%s", c->file, c->name) : rt_xstrdup(c->file);
	char *msg = NULL, *type = NULL;
	rt_buf text = { 0 };

	if (c->text) {
		add_plain(&text, c->text);
		msg = first_line(rt_buf_str(&text));
		type = error_type(msg);
		cap_text(&text, r->max_output);
	}
	if (!msg && c->message)
		msg = rt_xstrdup(c->message);
	json_object_set_new(j, "type", json_string("trial"));
	json_object_set_new(j, "trial", json_integer(r->o->trial > 0 ? r->o->trial : r->ncase));
	json_object_set_new(j, "case", rt_json_bytes(id, strlen(id)));
	json_object_set_new(j, "outcome", json_string(c->outcome));
	json_object_set_new(j, "result", json_string(c->result));
	json_object_set_new(j, "attempt", json_integer(c->attempt));
	json_object_set_new(j, "time_ms", isnan(c->time_ms) ? json_null() :
	    rt_json_real6(c->time_ms));
	json_object_set_new(j, "message", !strcmp(c->outcome, "pass") ? json_null() :
	    str_or_null(msg));
	json_object_set_new(j, "failure_type", str_or_null(type));
	json_object_set_new(j, "stdout", json_null());
	/* jest prints a failure's text to standard error */
	json_object_set_new(j, "stderr", text.len ? rt_json_bytes(text.data, text.len) :
	    json_null());
	json_object_set_new(j, "report", str_or_null(r->o->report));
	json_object_set_new(j, "run", str_or_null(r->run));
	json_object_set_new(j, "revision", str_or_null(r->o->revision));
	json_object_set_new(j, "timestamp", str_or_null(c->timestamp));
	json_object_set_new(j, "position", json_integer(r->ncase - 1));
	json_object_set_new(j, "suite", str_or_null(c->file));
	json_object_set_new(j, "source", json_string("jest --json"));
	json_object_set_new(j, "jest_file", str_or_null(c->file));
	if (c->name)
		json_object_set_new(j, "jest_name", str_or_null(c->name));
	free(id);
	free(msg);
	free(type);
	rt_buf_free(&text);
	r->records++;
	if (!r->stopped && r->fn(j, r->ctx) != 0)
		r->stopped = 1;
	json_decref(j);
}

/* ancestorTitles and title joined by " ": jest's own -t syntax. */
static char *
full_name(const json_t *a)
{
	const json_t *anc = json_object_get(a, "ancestorTitles"), *v;
	const char *title = json_string_value(json_object_get(a, "title"));
	const char *full = json_string_value(json_object_get(a, "fullName"));
	rt_buf b = { 0 };
	char *s;
	size_t i;

	if (!title)
		return full ? rt_xstrdup(full) : NULL;
	json_array_foreach(anc, i, v) {
		if (!json_is_string(v))
			continue;
		rt_buf_adds(&b, json_string_value(v));
		rt_buf_addc(&b, ' ');
	}
	rt_buf_adds(&b, title);
	s = rt_xstrdup(rt_buf_str(&b));
	rt_buf_free(&b);
	return s;
}

/* jest's status -> outcome and result; NULL for one jest does not have. */
static const char *
outcome_of(const char *status, const char **result)
{
	static const struct { const char *status, *outcome, *result; } map[] = {
		{ "passed", "pass", "success" }, { "focused", "pass", "success" },
		{ "failed", "fail", "failure" }, { "pending", "skip", "skipped" },
		{ "skipped", "skip", "skipped" }, { "todo", "skip", "skipped" },
		{ "disabled", "skip", "skipped" },
	};
	size_t i;

	for (i = 0; status && i < sizeof map / sizeof *map; i++)
		if (!strcmp(status, map[i].status)) {
			*result = map[i].result;
			return map[i].outcome;
		}
	return NULL;
}

/* One assertionResults entry: its failed attempts, then its final one. */
static int
one_test(reader *r, const char *file, const json_t *a, const char *file_ts,
    char *err, size_t errsize, const char *where)
{
	const char *status = json_string_value(json_object_get(a, "status")), *result;
	const char *outcome = outcome_of(status, &result);
	const json_t *inv = json_object_get(a, "invocations");
	const json_t *reasons = json_object_get(a, "retryReasons");
	const json_t *fails = json_object_get(a, "failureMessages"), *v;
	const json_t *dur = json_object_get(a, "duration");
	char *name = full_name(a), *ts;
	rt_buf text = { 0 };
	long n = 1, k, kept;
	size_t i;
	rec c;

	if (!json_is_object(a) || !name) {
		snprintf(err, errsize, "%s: no \"title\"", where);
		free(name);
		return -1;
	}
	if (!outcome) {
		snprintf(err, errsize, "%s: \"status\": %s%s%s is not a jest status", where,
		    status ? "\"" : "", status ? status : "missing", status ? "\"" : "");
		free(name);
		return -1;
	}
	if (json_is_integer(inv) && json_integer_value(inv) > 1)
		n = json_integer_value(inv) > MAX_ATTEMPTS + 1 ? MAX_ATTEMPTS + 1 :
		    (long)json_integer_value(inv);
	ts = iso_ms(json_object_get(a, "startAt"));
	r->ncase++;
	memset(&c, 0, sizeof c);
	c.file = file;
	c.name = name;
	c.timestamp = ts ? ts : file_ts;
	/* jest retries a test only after it failed: every invocation before
	 * the last one is a failure, its reason kept with logErrorsBeforeRetry */
	kept = n - 1;
	for (k = 0; k < kept && !r->stopped; k++) {
		v = json_array_get(reasons, (size_t)k);
		c.outcome = "fail";
		c.result = "failure";
		c.attempt = k + 1;
		c.time_ms = NAN;
		c.text = json_string_value(v);
		c.message = "failed; jest retried it (jest.retryTimes) and kept no reason "
		    "(logErrorsBeforeRetry keeps one)";
		emit(r, &c);
	}
	json_array_foreach(fails, i, v) {
		if (!json_is_string(v))
			continue;
		if (text.len)
			rt_buf_addc(&text, '\n');
		rt_buf_adds(&text, json_string_value(v));
	}
	c.outcome = outcome;
	c.result = result;
	c.attempt = kept + 1;
	c.time_ms = json_is_number(dur) ? json_number_value(dur) : NAN;
	c.text = text.len ? rt_buf_str(&text) : NULL;
	c.message = !strcmp(outcome, "fail") ? "failed (jest gave no message)" : NULL;
	if (!r->stopped)
		emit(r, &c);
	rt_buf_free(&text);
	free(name);
	free(ts);
	return 0;
}

long
rt_jest_read_doc(const json_t *doc, const rt_junit_opts *o, rt_junit_fn fn,
    void *ctx, char *err, size_t errsize)
{
	reader r;
	const json_t *results = json_object_get(doc, "testResults"), *tr, *as, *a;
	size_t i, k;
	long ret = 0;
	char where[80], *ts;

	if (!rt_jest_is_report(doc)) {
		snprintf(err, errsize, "1: not a jest --json report (no \"testResults\" array)");
		return -1;
	}
	memset(&r, 0, sizeof r);
	r.o = o;
	r.fn = fn;
	r.ctx = ctx;
	r.max_output = o->max_output ? o->max_output : 4096;
	r.cwd = getcwd(NULL, 0);
	ts = iso_ms(json_object_get(doc, "startTime"));
	r.run = o->run ? rt_xstrdup(o->run) : ts && o->report ?
	    rt_xasprintf("%s@%s", o->report, ts) : o->report ? rt_xstrdup(o->report) : NULL;
	free(ts);
	json_array_foreach(results, i, tr) {
		const char *name = json_string_value(json_object_get(tr, "name"));
		const char *status = json_string_value(json_object_get(tr, "status"));
		const char *message = json_string_value(json_object_get(tr, "message"));
		char *file, *fts;
		int failed = 0;

		if (r.stopped)
			break;
		if (!json_is_object(tr) || !name || !*name) {
			snprintf(err, errsize, "testResults[%zu]: no \"name\" (the test file)", i);
			ret = -1;
			break;
		}
		file = rel_file(&r, name);
		fts = iso_ms(json_object_get(tr, "startTime"));
		as = json_object_get(tr, "assertionResults");
		json_array_foreach(as, k, a) {
			snprintf(where, sizeof where, "testResults[%zu].assertionResults[%zu]", i, k);
			if (one_test(&r, file, a, fts, err, errsize, where) < 0) {
				ret = -1;
				break;
			}
			if (!strcmp(json_string_value(json_object_get(a, "status")), "failed"))
				failed = 1;
			if (r.stopped)
				break;
		}
		/* the file failed with none of its tests failing: it did not run
		 * (a syntax error, a module that is not there), or a hook or the
		 * code around the tests threw */
		if (ret == 0 && !r.stopped && status && !strcmp(status, "failed") && !failed) {
			rec c;
			memset(&c, 0, sizeof c);
			r.ncase++;
			c.file = file;
			c.outcome = "error";
			c.result = "error";
			c.attempt = 1;
			c.time_ms = NAN;
			c.text = message && *message ? message : NULL;
			c.message = "the test file failed with no test failing (jest gave no message)";
			c.timestamp = fts;
			emit(&r, &c);
		}
		free(file);
		free(fts);
		if (ret < 0)
			break;
	}
	free(r.cwd);
	free(r.run);
	return ret < 0 ? -1 : r.records;
}
