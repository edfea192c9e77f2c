/* lib/runner/jest.c: jest and vitest — their commands, exits, JUnit IDs
 * (jest-junit) and per-case report: jest --json, each test's invocations
 * and retry reasons into per-attempt trial records shaped like rt_junit's. */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "runner/runner.h"
#include "rt_jsonl.h"
#include "rt_records.h"
#include "rt_src.h"
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

static int
doc_is_report(const json_t *doc)
{
	return json_is_object(doc) && json_is_array(json_object_get(doc, "testResults"));
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
	json_t *j;
	char *id = c->name ? rt_xasprintf("%s::%s", c->file, c->name) : rt_xstrdup(c->file);
	char *msg = NULL, *type = NULL;
	rt_buf text = { 0 };

	if (c->text) {
		add_plain(&text, c->text);
		msg = first_line(rt_buf_str(&text));
		type = error_type(msg);
		rt_rn_cap_text(&text, r->max_output);
	}
	if (!msg && c->message)
		msg = rt_xstrdup(c->message);
	rt_case_rec cr = {
		.trial = r->o->trial > 0 ? r->o->trial : r->ncase, .id = id,
		.outcome = c->outcome, .result = c->result, .attempt = c->attempt,
		.time_ms = c->time_ms, .message = msg ? rt_json_str_or_null(msg) : NULL,
		.failure_type = type,
		/* jest prints a failure's text to standard error */
		.err = text.len ? rt_json_bytes(text.data, text.len) : NULL,
		.report = r->o->report, .run = r->run, .revision = r->o->revision,
		.timestamp = c->timestamp, .position = r->ncase - 1, .suite = c->file,
		.source = "jest --json",
	};
	j = rt_case_rec_json(&cr);
	json_object_set_new(j, "jest_file", rt_json_str_or_null(c->file));
	if (c->name)
		json_object_set_new(j, "jest_name", rt_json_str_or_null(c->name));
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

/* One assertionResults entry: its failed attempts, then its final one. */
static int
one_test(reader *r, const char *file, const json_t *a, const char *file_ts,
    char *err, size_t errsize, const char *where)
{
	const char *status = json_string_value(json_object_get(a, "status")), *result;
	const char *outcome = rt_rn_outcome_of(status, &result);
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

static long
doc_read(const json_t *doc, const rt_junit_opts *o, rt_junit_fn fn,
    void *ctx, char *err, size_t errsize)
{
	reader r;
	const json_t *results = json_object_get(doc, "testResults"), *tr, *as, *a;
	size_t i, k;
	long ret = 0;
	char where[80], *ts;

	if (!doc_is_report(doc)) {
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

/* ---- the command ---- */

/* jest's summary line "Tests:       1 failed, 6 passed, 7 total": did a
 * test fail, and did any pass or fail at all? */
static void
jest_summary(const char *out, const char *err, int *failed, int *ran)
{
	static const char *const tests[] = { "Tests:", NULL };
	char line[200];

	*failed = *ran = 0;
	if (!rt_rn_find_line(out, err, tests, line, sizeof line))
		return;
	*failed = strstr(line, " failed") != NULL;
	*ran = *failed || strstr(line, " passed") != NULL;
}

/* "FAIL __tests__/x.test.js: Jest encountered an unexpected token": the
 * file and the line after "Test suite failed to run". */
static const char *
suite_failure(const char *out, const char *err, char *buf, size_t size)
{
	const char *text = err && strstr(err, "Test suite failed to run") ? err : out;
	const char *p = strstr(text, "Test suite failed to run"), *s, *e;
	char file[160];

	file[0] = '\0';
	if (rt_rn_line_with(text, "FAIL ", file, sizeof file) && strncmp(file, "FAIL ", 5))
		file[0] = '\0';
	for (s = p; *s && *s != '\n'; s++)
		;
	while (*s && isspace((unsigned char)*s))
		s++;
	for (e = s; *e && *e != '\n'; e++)
		;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	snprintf(buf, size, "%s%s%.*s", file, *file && e > s ? ": " : "", (int)(e - s), s);
	return buf;
}

/* jest's message when it refuses its configuration: "● Validation
 * Error:" and the line that says what, or an "Error: ..." line at the
 * start of a line and the indented one after it ("Error: Could not
 * resolve a module for a custom reporter. Module name: x.test.ts"). */
static const char *
config_error(const char *err, char *buf, size_t size)
{
	const char *p = NULL, *s, *e;
	rt_buf b = { 0 };
	int lines;

	if (!err)
		return NULL;
	if ((s = strstr(err, "Validation Error:")))
		p = s;
	for (s = err; !p && s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
		if (!strncmp(s, "Error: ", 7) || !strncmp(s, "TypeError: ", 11) ||
		    !strncmp(s, "SyntaxError: ", 13))
			p = s;
	if (!p)
		return NULL;
	for (lines = 0; lines < 2 && *p; lines++) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		for (e = p; *e && *e != '\n'; e++)
			;
		if (lines && !strncmp(p, "at ", 3))
			break;
		if (lines)
			rt_buf_addc(&b, ' ');
		rt_buf_add(&b, p, (size_t)(e - p));
		p = e;
	}
	snprintf(buf, size, "%s", rt_buf_str(&b));
	rt_buf_free(&b);
	return buf;
}

static int
not_run_as(const char *name, int code, const char *out, const char *err,
    char *why, size_t size)
{
	/* jest: "No tests found, exiting with code 1" (also with code 0 under
	 * --passWithNoTests); vitest: "No test files found, exiting with code 1" */
	static const char *const none[] = {
		"No tests found", "No test files found", "No test suite found", NULL
	};
	static const char *const failed[] = { "Test suite failed to run", NULL };
	/* sh: "sh: 1: jest: not found" (dash), "jest: command not found" (bash),
	 * exit 127; npx --no-install: "npx canceled due to missing packages" */
	static const char *const missing[] = {
		"not found", "No such file or directory", "Permission denied", NULL
	};
	static const char *const npx[] = {
		"npx canceled due to missing packages", "could not determine executable",
		"Cannot find module", NULL
	};
	char line[200];
	char what[64];
	int tfailed, tran;

	if (rt_rn_find_line(out, err, none, line, sizeof line)) {
		snprintf(what, sizeof what, "%s found no tests", name);
		return rt_rn_say(why, size, what, line);
	}
	jest_summary(out, err, &tfailed, &tran);
	/* -t matching nothing: exit 0, "Tests: 7 skipped, 7 total" */
	if (code == 0) {
		if (rt_rn_line_with(err, "Tests:", line, sizeof line) && !tran) {
			snprintf(what, sizeof what, "%s ran no tests (every one skipped)", name);
			return rt_rn_say(why, size, what, line);
		}
		return 0;
	}
	if ((code == 126 || code == 127) &&
	    rt_rn_find_line(NULL, err, missing, line, sizeof line)) {
		snprintf(what, sizeof what, "%s could not start", name);
		return rt_rn_say(why, size, what, line);
	}
	/* a file that failed to run, with no test failing elsewhere (the
	 * summary says so; the "✕" marks are printed only for one file) */
	if (rt_rn_find_line(out, err, failed, line, sizeof line) && !tfailed &&
	    !(err && strstr(err, "\xe2\x9c\x95")) && !(out && strstr(out, "\xe2\x9c\x95"))) {
		snprintf(what, sizeof what, "%s: a test suite failed to run", name);
		return rt_rn_say(why, size, what, suite_failure(out, err, line, sizeof line));
	}
	if (rt_rn_find_line(out, err, npx, line, sizeof line) && !tran) {
		snprintf(what, sizeof what, "%s could not start", name);
		return rt_rn_say(why, size, what, line);
	}
	/* no test summary and jest's own error: its configuration or its
	 * command line was refused before any test ran ("--reporters=x
	 * FILE" takes FILE as a reporter) */
	if (!rt_rn_line_with(err, "Tests:", line, sizeof line) &&
	    !rt_rn_line_with(out, "Tests:", line, sizeof line) && config_error(err, line,
	    sizeof line)) {
		snprintf(what, sizeof what, "%s ran no test", name);
		return rt_rn_say(why, size, what, line);
	}
	return 0;
}

static int
jest_not_run(int code, const char *out, const char *err, char *why, size_t size)
{
	return not_run_as("jest", code, out, err, why, size);
}

static int
vitest_not_run(int code, const char *out, const char *err, char *why, size_t size)
{
	return not_run_as("vitest", code, out, err, why, size);
}

/* A jest-junit testcase: one with a JavaScript or TypeScript file. */
static int
junit_claims(const char *suite, const char *cls, const char *file)
{
	static const char *const ext[] = { ".js", ".ts", ".jsx", ".tsx", ".mjs", ".cjs", NULL };
	size_t i;

	(void)suite;
	(void)cls;
	for (i = 0; file && *file && ext[i]; i++)
		if (rt_rn_ends_with(file, ext[i]))
			return 1;
	return 0;
}

/* jest-junit: "FILE::full name". Its default templates put the full name
 * in both classname and name ("cart adds up", with a leading space for a
 * test outside any describe); classNameTemplate "{classname}" and
 * titleTemplate "{title}" split it ("cart" + "adds up"), and a
 * classname with a "/" is the file. */
static char *
junit_id(const char *cls, const char *nm, const char *file, const char *dir)
{
	size_t c = strlen(cls), n = strlen(nm);

	(void)dir;
	if (!c || strchr(cls, '/') || !strcmp(cls, nm) || (n > c && !strncmp(nm, cls, c) &&
	    nm[c] == ' '))
		return rt_xasprintf("%s::%s", file, nm);
	if (c > n && !strcmp(cls + c - n, nm) && cls[c - n - 1] == ' ')
		return rt_xasprintf("%s::%s", file, cls);
	return rt_xasprintf("%s::%s %s", file, cls, nm);
}

/* jest-junit's default configuration names no test file: its
 * <testsuites> is "jest tests" (its suiteName), each <testsuite> one test
 * file named after its first test's outermost describe ("{title}"), and
 * classname and name the full name. */
static int
junit_fileless(const char *root, const char *suite, const char *cls, const char *name)
{
	(void)suite;
	(void)cls;
	(void)name;
	return root && !strcmp(root, "jest tests");
}

#define MAX_TEST_FILES 4096

typedef struct {
	char **files;            /* jest's test files under dir */
	size_t nfiles;
	rt_src_inv inv;          /* their tests, read by the parser */
	int ok;
	char why[400];
} tree;

static int
is_js(const char *f)
{
	static const char *const ext[] = { ".js", ".ts", ".jsx", ".tsx", ".mjs", ".cjs", NULL };
	size_t i;

	for (i = 0; ext[i]; i++)
		if (rt_rn_ends_with(f, ext[i]))
			return 1;
	return 0;
}

/* jest's default testMatch: a script under __tests__, or FILE.test.js
 * and FILE.spec.js; node_modules and dot directories are not searched. */
static void
find_tests(tree *t, const char *dir, const char *rel, int in_tests, int depth)
{
	DIR *d;
	struct dirent *e;
	char *path = rel ? rt_xasprintf("%s/%s", dir, rel) : rt_xstrdup(dir);
	char *sub;

	if (depth > 32 || !(d = opendir(path))) {
		free(path);
		return;
	}
	while ((e = readdir(d)) && t->nfiles < MAX_TEST_FILES) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "node_modules"))
			continue;
		sub = rel ? rt_xasprintf("%s/%s", rel, e->d_name) : rt_xstrdup(e->d_name);
		if (is_js(e->d_name) && (in_tests || strstr(e->d_name, ".test.") ||
		    strstr(e->d_name, ".spec.")) && rt_rn_is_file(dir, sub)) {
			t->files = rt_xrealloc(t->files, (t->nfiles + 1) * sizeof *t->files);
			t->files[t->nfiles++] = sub;
			continue;
		}
		if (!is_js(e->d_name))
			find_tests(t, dir, sub, in_tests || !strcmp(e->d_name, "__tests__"), depth + 1);
		free(sub);
	}
	closedir(d);
	free(path);
}

/* Does the parsed file hold a test whose full name is name? The parser
 * names it "describe > test"; jest joins them with " ". */
static int
file_has(const rt_src_file *f, const char *name)
{
	rt_buf b = { 0 };
	const char *s;
	size_t i;
	int hit = 0;

	for (i = 0; i < f->nfns && !hit; i++) {
		if (!f->fns[i].test)
			continue;
		b.len = 0;
		for (s = f->fns[i].name; *s; s++)
			if (!strncmp(s, " > ", 3)) {
				rt_buf_addc(&b, ' ');
				s += 2;
			} else
				rt_buf_addc(&b, *s);
		hit = !strcmp(rt_buf_str(&b), name);
	}
	rt_buf_free(&b);
	return hit;
}

static const char fileless_fix[] = "set JEST_JUNIT_ADD_FILE_ATTRIBUTE=true (addFileAttribute "
    "in jest-junit's config) so each testcase names its file";

/* The one test file under dir whose tests hold all of names: jest-junit
 * writes one <testsuite> a file, every test of it (todo and skipped too). */
static char *
junit_suite_file(char *const *names, size_t n, const char *dir, void **state, char *why,
    size_t size)
{
	tree *t = *state;
	const char *root = dir && *dir ? dir : ".";
	const rt_src_file *f, *hit = NULL;
	size_t i, k, m, hm = 0, nhit = 0;

	if (!names) {
		if (t) {
			for (i = 0; i < t->nfiles; i++)
				free(t->files[i]);
			free(t->files);
			if (t->ok)
				rt_src_inv_free(&t->inv);
			free(t);
		}
		*state = NULL;
		return NULL;
	}
	if (!t) {
		t = *state = rt_xcalloc(1, sizeof *t);
		find_tests(t, root, NULL, 0, 0);
		if (!t->nfiles)
			snprintf(t->why, sizeof t->why, "no jest test file under %s", root);
		else
			t->ok = rt_src_inventory("javascript", root, NULL, t->files, t->nfiles,
			    NULL, NULL, &t->inv, t->why, sizeof t->why) == RT_SRC_OK;
	}
	if (!t->ok) {
		snprintf(why, size, "jest-junit wrote no test file (its default configuration), "
		    "and retrial cannot read the tests in the tree (%s): %s", t->why, fileless_fix);
		return NULL;
	}
	for (k = 0; k < t->inv.nfiles; k++) {
		f = &t->inv.files[k];
		for (i = 0; i < n && file_has(f, names[i]); i++)
			;
		if (i == n && n) {
			/* the file with these tests and no other first */
			for (i = 0, m = 0; i < f->nfns; i++)
				m += f->fns[i].test != 0;
			if (!hit || (m == n && hm != n)) {
				hit = f;
				hm = m;
				nhit = 1;
			} else if ((m == n) == (hm == n))
				nhit++;
		}
	}
	if (nhit == 1)
		return rt_xstrdup(hit->path);
	snprintf(why, size, "jest-junit wrote no test file (its default configuration), and "
	    "%s test file under %s holds the tests of this suite (\"%s\"...): %s",
	    nhit ? "more than one" : "no", root, n ? names[0] : "", fileless_fix);
	return NULL;
}

static const char *const jest_words[] = { "jest", NULL };
static const char *const vitest_words[] = { "vitest", NULL };
/* a configured jest-junit reporter writes where these say (with the test
 * file, so the IDs are FILE::full name) */
static const char *const jest_env[] = {
	"JEST_JUNIT_OUTPUT_FILE=%s", "JEST_JUNIT_ADD_FILE_ATTRIBUTE=true", NULL
};
static const char *const jest_own[] = { "--json", NULL };
static const char *const vitest_own[] = { "--reporters", "--reporter", "--json", NULL };
static const char *const vitest_retry[] = { "--retry", NULL };

/* Words its report prints around every failure (rt_runner.h). */
static const char *const jest_boilerplate[] = {
	"FAIL", "PASS", "\u25cf", "Tests", "Test", "Suites", "Snapshots", "Time",
	"Ran", "all", "test", "suites", "failed", "passed", "total", "expect",
	"Expected", "Received", "jest", NULL
};

const rt_runner rt_runner_jest = {
	.kind = RT_RUNNER_JEST,
	.name = "jest",
	.words = jest_words,
	.not_run = jest_not_run,
	.junit_claims = junit_claims,
	.junit_id = junit_id,
	.junit_fileless = junit_fileless,
	.junit_suite_file = junit_suite_file,
	.file_ids = 1,
	.report_env = jest_env,
	.own_report = jest_own,
	.no_report = "jest wrote none; configure the jest-junit reporter "
	    "(--reporters=default --reporters=jest-junit: retrial sets "
	    "JEST_JUNIT_OUTPUT_FILE) or pass --json --outputFile=\"$RETRIAL_JUNIT\"",
	.doc_is_report = doc_is_report,
	.report_what = "jest --json (no \"testResults\")",
	.doc_read = doc_read,
	.boilerplate = jest_boilerplate,
};

const rt_runner rt_runner_vitest = {
	.kind = RT_RUNNER_VITEST,
	.name = "vitest",
	.words = vitest_words,
	.not_run = vitest_not_run,
	.file_ids = 1,
	.own_report = vitest_own,
	.retry_opts = vitest_retry,
	.retry_msg = "vitest retries failed tests (%s): a retry",
	.boilerplate = jest_boilerplate,
};
