/* rt_gotest: the `go test -json` reader — test2json events into per-test
 * trial records shaped like rt_junit's. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <jansson.h>

#include "rt_gotest.h"
#include "rt_jest.h"
#include "rt_jsonl.h"
#include "rt_util.h"

typedef struct {
	char *pkg, *test;            /* test NULL: the package itself */
	long attempts, position;
	int running;                 /* started, not yet ended */
	int failed;                  /* (a package) one of its tests failed */
	rt_buf out;
	size_t lost;
	char *message;               /* the first "file_test.go:N: msg" line */
} entry;

typedef struct {
	entry **v;
	size_t n, cap;
	size_t *slot;                /* open addressing: index + 1, 0 empty */
	size_t nslot;
	const rt_junit_opts *o;
	rt_junit_fn fn;
	void *ctx;
	long records, runs;
	int stopped;
} reader;

static uint64_t
hash2(const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *a; a++)
		h = (h ^ (unsigned char)*a) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (; b && *b; b++)
		h = (h ^ (unsigned char)*b) * 1099511628211ULL;
	return h;
}

static int
same(const entry *e, const char *pkg, const char *test)
{
	return !strcmp(e->pkg, pkg) && (test ? e->test && !strcmp(e->test, test) : !e->test);
}

static void
rehash(reader *r)
{
	size_t i, k;

	free(r->slot);
	r->nslot = r->nslot ? r->nslot * 2 : 64;
	r->slot = rt_xcalloc(r->nslot, sizeof *r->slot);
	for (i = 0; i < r->n; i++) {
		k = hash2(r->v[i]->pkg, r->v[i]->test) & (r->nslot - 1);
		while (r->slot[k])
			k = (k + 1) & (r->nslot - 1);
		r->slot[k] = i + 1;
	}
}

static entry *
find(reader *r, const char *pkg, const char *test, int create)
{
	size_t k;
	entry *e;

	if (r->nslot) {
		k = hash2(pkg, test) & (r->nslot - 1);
		for (; r->slot[k]; k = (k + 1) & (r->nslot - 1))
			if (same(r->v[r->slot[k] - 1], pkg, test))
				return r->v[r->slot[k] - 1];
	}
	if (!create)
		return NULL;
	e = rt_xcalloc(1, sizeof *e);
	e->pkg = rt_xstrdup(pkg);
	e->test = test ? rt_xstrdup(test) : NULL;
	e->position = -1;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->v = rt_xrealloc(r->v, r->cap * sizeof *r->v);
	}
	r->v[r->n++] = e;
	if (r->n * 2 > r->nslot)
		rehash(r);
	else {
		k = hash2(pkg, test) & (r->nslot - 1);
		while (r->slot[k])
			k = (k + 1) & (r->nslot - 1);
		r->slot[k] = r->n;
	}
	return e;
}

/* "    calc_test.go:17: Add(0, 0) = 0, want 1" -> the text after "N: " */
static void
note_message(entry *e, const char *line)
{
	const char *p = line, *c, *end;

	if (e->message)
		return;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!strncmp(p, "panic: ", 7)) {
		for (end = p; *end && *end != '\n'; end++)
			;
		e->message = rt_xasprintf("%.*s", (int)(end - p), p);
		return;
	}
	if (!(c = strstr(p, ".go:")) || c > p + 200)
		return;
	for (c += 4; isdigit((unsigned char)*c); c++)
		;
	if (*c != ':')
		return;
	for (c++; *c == ' '; c++)
		;
	for (end = c; *end && *end != '\n'; end++)
		;
	if (end > c)
		e->message = rt_xasprintf("%.*s", (int)(end - c), c);
}

static void
add_output(reader *r, entry *e, const char *s)
{
	size_t max = r->o->max_output ? r->o->max_output : 4096, n = strlen(s), room;

	/* the runner's own framing lines say nothing the record does not */
	if (!strncmp(s, "=== RUN", 7) || !strncmp(s, "=== PAUSE", 9) ||
	    !strncmp(s, "=== CONT", 8))
		return;
	if (e->test)
		note_message(e, s);
	room = e->out.len < max ? max - e->out.len : 0;
	if (n > room) {
		e->lost += n - room;
		n = room;
	}
	rt_buf_add(&e->out, s, n);
}

static json_t *
str_or_null(const char *s)
{
	return s ? rt_json_bytes(s, strlen(s)) : json_null();
}

static void
emit(reader *r, entry *e, const char *outcome, const char *result, double elapsed,
    const char *time, const char *message)
{
	json_t *j = json_object();
	char *id = e->test ? rt_xasprintf("%s::%s", e->pkg, e->test) : rt_xstrdup(e->pkg);

	e->attempts++;
	json_object_set_new(j, "type", json_string("trial"));
	json_object_set_new(j, "trial", json_integer(r->o->trial > 0 ? r->o->trial :
	    r->records + 1));
	json_object_set_new(j, "case", rt_json_bytes(id, strlen(id)));
	json_object_set_new(j, "outcome", json_string(outcome));
	json_object_set_new(j, "result", json_string(result));
	json_object_set_new(j, "attempt", json_integer(e->attempts));
	json_object_set_new(j, "time_ms", isnan(elapsed) ? json_null() :
	    rt_json_real6(elapsed * 1000));
	json_object_set_new(j, "message", !strcmp(outcome, "pass") ? json_null() :
	    str_or_null(message ? message : e->message));
	json_object_set_new(j, "failure_type", json_null());
	if (e->lost)
		rt_buf_printf(&e->out, "\n[retrial: %zu more bytes not kept]", e->lost);
	json_object_set_new(j, "stdout", e->out.len ? rt_json_bytes(e->out.data, e->out.len) :
	    json_null());
	json_object_set_new(j, "stderr", json_null());
	json_object_set_new(j, "report", str_or_null(r->o->report));
	json_object_set_new(j, "run", str_or_null(r->o->run));
	json_object_set_new(j, "revision", str_or_null(r->o->revision));
	json_object_set_new(j, "timestamp", str_or_null(time));
	json_object_set_new(j, "position", json_integer(e->position >= 0 ? e->position :
	    r->runs));
	json_object_set_new(j, "suite", str_or_null(e->pkg));
	json_object_set_new(j, "source", json_string("go test -json"));
	if (e->test) {
		json_object_set_new(j, "go_package", str_or_null(e->pkg));
		json_object_set_new(j, "go_test", str_or_null(e->test));
	}
	free(id);
	r->records++;
	e->out.len = 0;
	e->lost = 0;
	free(e->message);
	e->message = NULL;
	e->running = 0;
	if (!r->stopped && r->fn(j, r->ctx) != 0)
		r->stopped = 1;
	json_decref(j);
}

/* The tests of pkg still running when it ended: failures when it failed
 * (a panic or -timeout ends them all), else they never ran to the end. */
static int
end_package(reader *r, entry *pe, const char *action, const char *time)
{
	size_t i;
	int ended = 0, failed = !strcmp(action, "fail");

	for (i = 0; i < r->n; i++) {
		entry *e = r->v[i];
		if (!e->test || !e->running || strcmp(e->pkg, pe->pkg))
			continue;
		emit(r, e, failed ? "fail" : "error", failed ? "failure" : "error", NAN, time,
		    failed ? "the test did not finish (its package failed: a panic or -timeout)" :
		    "the test did not finish");
		ended++;
	}
	return ended;
}

static void
event(reader *r, json_t *ev)
{
	const char *action = json_string_value(json_object_get(ev, "Action"));
	const char *pkg = json_string_value(json_object_get(ev, "Package"));
	const char *test = json_string_value(json_object_get(ev, "Test"));
	const char *time = json_string_value(json_object_get(ev, "Time"));
	const char *out = json_string_value(json_object_get(ev, "Output"));
	json_t *el = json_object_get(ev, "Elapsed");
	double elapsed = json_is_number(el) ? json_number_value(el) : NAN;
	entry *e, *pe;

	if (!action || !pkg)
		return;
	if (test && !*test)
		test = NULL;
	e = find(r, pkg, test, 1);
	if (!strcmp(action, "run") && test) {
		e->running = 1;
		e->position = r->runs++;
		e->out.len = 0;
	} else if (!strcmp(action, "output") && out) {
		add_output(r, e, out);
	} else if (!strcmp(action, "pass") || !strcmp(action, "fail") ||
	    !strcmp(action, "skip")) {
		if (test) {
			emit(r, e, !strcmp(action, "pass") ? "pass" : !strcmp(action, "fail") ?
			    "fail" : "skip", !strcmp(action, "pass") ? "success" :
			    !strcmp(action, "fail") ? "failure" : "skipped", elapsed, time, NULL);
			if (!strcmp(action, "fail"))
				find(r, pkg, NULL, 1)->failed = 1;
			return;
		}
		pe = e;
		if (end_package(r, pe, action, time) == 0 && !strcmp(action, "fail") &&
		    !pe->failed) {
			const char *why = pe->out.len && strstr(rt_buf_str(&pe->out), "[build failed]") ?
			    "the package did not build" : pe->out.len &&
			    strstr(rt_buf_str(&pe->out), "[setup failed]") ? "the package's setup failed" :
			    "the package failed with no test failing";
			emit(r, pe, "error", "error", elapsed, time, why);
		}
		pe->out.len = 0;
		pe->lost = 0;
		pe->failed = 0;
	}
}

/* The events of f, after line[0..len) when len >= 0 (a first line read
 * already; line and cap are getline's, freed here). */
static long
gotest_lines(FILE *f, char *line, size_t cap, ssize_t len, const rt_junit_opts *o,
    rt_junit_fn fn, void *ctx, char *err, size_t errsize)
{
	reader r = { 0 };
	size_t i;
	long events = 0, lineno = 0;
	int have = len >= 0;

	r.o = o;
	r.fn = fn;
	r.ctx = ctx;
	while (!r.stopped && (have || (len = getline(&line, &cap, f)) >= 0)) {
		json_t *ev;
		json_error_t je;
		have = 0;
		lineno++;
		if (len > 5 && !strncmp(line, "FAIL\t", 5)) {
			/* go 1.19 prints a package that did not build as plain text:
			 * "FAIL\tPKG [build failed]" */
			char *pkg = line + 5, *sp = strchr(pkg, ' ');
			if (sp && (!strncmp(sp, " [build failed]", 15) ||
			    !strncmp(sp, " [setup failed]", 15))) {
				entry *pe;
				*sp = '\0';
				pe = find(&r, pkg, NULL, 1);
				events++;
				emit(&r, pe, "error", "error", NAN, NULL, sp[2] == 'b' ?
				    "the package did not build" : "the package's setup failed");
			}
			continue;
		}
		if (len == 0 || line[0] != '{')
			continue;
		if (!(ev = json_loadb(line, (size_t)len, JSON_ALLOW_NUL, &je)))
			continue;
		if (json_is_object(ev) && json_object_get(ev, "Action")) {
			events++;
			event(&r, ev);
		}
		json_decref(ev);
	}
	free(line);
	/* the stream ended with tests still running: the process was killed */
	for (i = 0; i < r.n && !r.stopped; i++)
		if (r.v[i]->test && r.v[i]->running)
			emit(&r, r.v[i], "fail", "failure", NAN, NULL,
			    "the test did not finish (the stream ended)");
	for (i = 0; i < r.n; i++) {
		free(r.v[i]->pkg);
		free(r.v[i]->test);
		free(r.v[i]->message);
		rt_buf_free(&r.v[i]->out);
		free(r.v[i]);
	}
	free(r.v);
	free(r.slot);
	if (!events) {
		snprintf(err, errsize, "%ld: neither JUnit XML (no \"<\"), jest --json (no "
		    "\"testResults\") nor go test -json (no {\"Action\":...} line)", lineno);
		return -1;
	}
	return r.records;
}

long
rt_gotest_read(FILE *f, const rt_junit_opts *o, rt_junit_fn fn, void *ctx,
    char *err, size_t errsize)
{
	return gotest_lines(f, NULL, 0, -1, o, fn, ctx, err, errsize);
}

/* Append f's bytes to b up to the end of a line (stop_at_nl) or of f;
 * -1 when b would pass RT_JEST_MAX. */
static int
read_into(FILE *f, rt_buf *b, int stop_at_nl)
{
	char chunk[65536];
	size_t n;
	int c;

	if (stop_at_nl) {
		while ((c = getc(f)) != EOF) {
			if (b->len >= RT_JEST_MAX)
				return -1;
			rt_buf_addc(b, (char)c);
			if (c == '\n')
				break;
		}
		return 0;
	}
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b->len + n > RT_JEST_MAX)
			return -1;
		rt_buf_add(b, chunk, n);
	}
	return 0;
}

/* A report that starts with "{": go test -json is one event a line, jest
 * --json one document (one line as jest writes it). A whole first line
 * tells them apart; else the document is read whole, at most RT_JEST_MAX. */
static long
brace_read(FILE *f, const rt_junit_opts *o, rt_junit_fn fn, void *ctx,
    char *err, size_t errsize)
{
	rt_buf b = { 0 };
	json_t *doc;
	json_error_t je;
	FILE *m;
	long r;

	if (read_into(f, &b, 1) < 0)
		goto big;
	doc = json_loadb(b.data, b.len, 0, &je);
	if (json_is_object(doc) && json_object_get(doc, "Action") && !rt_jest_is_report(doc)) {
		json_decref(doc);
		/* the first event: gotest_lines owns the line from here */
		return gotest_lines(f, b.data, b.cap, (ssize_t)b.len, o, fn, ctx, err, errsize);
	}
	if (!rt_jest_is_report(doc)) {
		json_decref(doc);
		if (read_into(f, &b, 0) < 0)
			goto big;
		doc = json_loadb(b.data, b.len, 0, &je);
	}
	if (rt_jest_is_report(doc)) {
		r = rt_jest_read_doc(doc, o, fn, ctx, err, errsize);
		json_decref(doc);
		rt_buf_free(&b);
		return r;
	}
	json_decref(doc);
	if (!doc && b.len >= 14 && strstr(rt_buf_str(&b), "\"testResults\"")) {
		/* a jest report cut short (the runner was killed) or damaged */
		snprintf(err, errsize, "%d:%d: jest --json report: %s", je.line, je.column, je.text);
		rt_buf_free(&b);
		return -1;
	}
	if (!(m = fmemopen(b.data, b.len, "r")))
		rt_die("fmemopen:");
	r = gotest_lines(m, NULL, 0, -1, o, fn, ctx, err, errsize);
	fclose(m);
	rt_buf_free(&b);
	return r;
big:
	rt_buf_free(&b);
	snprintf(err, errsize, "1: larger than %zu MiB, the most retrial reads of one "
	    "jest --json document", RT_JEST_MAX >> 20);
	return -1;
}

long
rt_cases_read(FILE *f, const rt_junit_opts *o, rt_junit_fn fn, void *ctx,
    char *err, size_t errsize)
{
	int c;

	while ((c = getc(f)) != EOF && isspace(c))
		;
	if (c == EOF && ferror(f)) {   /* a stop signal ended the read */
		snprintf(err, errsize, "1:1: %s", strerror(errno));
		return -1;
	}
	if (c == EOF || c == '<') {
		if (c != EOF)
			ungetc(c, f);
		return rt_junit_read(f, o, fn, ctx, err, errsize);
	}
	ungetc(c, f);
	if (c == '{')
		return brace_read(f, o, fn, ctx, err, errsize);
	return rt_gotest_read(f, o, fn, ctx, err, errsize);
}
