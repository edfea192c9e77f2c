/* lib/runner/mocha.c: mocha — its commands, exits, --retries, test IDs
 * (FILE::full title) and per-case report: --reporter json, asked for
 * through MOCHA_OPTIONS, each test's retries into per-attempt records. */
#define _XOPEN_SOURCE 700  /* realpath(3): POSIX.1-2008, but glibc hides it */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "runner/hookorder.h"
#include "runner/runner.h"
#include "rt_order.h"
#include "rt_jsonl.h"
#include "rt_records.h"
#include "rt_util.h"

#define MAX_ATTEMPTS 100         /* failed attempts kept per test, as rt_junit */
#define MAX_MESSAGE 1024         /* bytes of the message line */

typedef struct {
	const rt_junit_opts *o;
	rt_junit_fn fn;
	void *ctx;
	size_t max_output;
	char *root;                  /* where mocha ran, resolved */
	char *run;
	const char *start;           /* stats.start, every record's timestamp */
	long ncase, records;
	int stopped;
} reader;

/* mocha's --reporter json document: {"stats": {...}, "tests": [...], ...}. */
static int
doc_is_report(const json_t *doc)
{
	return json_is_object(doc) && json_is_object(json_object_get(doc, "stats")) &&
	    json_is_array(json_object_get(doc, "tests"));
}

/* mocha names a test file by its absolute path: relative to where mocha
 * ran when that holds it. */
static char *
rel_file(const reader *r, const char *abs)
{
	size_t n = r->root ? strlen(r->root) : 0;

	if (n > 1 && !strncmp(abs, r->root, n) && abs[n] == '/' && abs[n + 1])
		return rt_xstrdup(abs + n + 1);
	return rt_xstrdup(abs);
}

/* "AssertionError: the first line of its message", at most MAX_MESSAGE
 * bytes cut at a character. */
static char *
message_of(const char *name, const char *msg)
{
	size_t n = msg ? strcspn(msg, "\r\n") : 0;
	char *s = name && *name && n ? rt_xasprintf("%s: %.*s", name, (int)n, msg) :
	    name && *name ? rt_xstrdup(name) : rt_xasprintf("%.*s", (int)n, msg ? msg : "");

	if (strlen(s) > MAX_MESSAGE) {
		n = MAX_MESSAGE;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		s[n] = '\0';
	}
	return s;
}

/* The stack (else the message) as the record's stderr, cut to limit bytes
 * at a character, saying how many were not kept. */
static json_t *
failure_text(const char *text, size_t limit)
{
	rt_buf b = { 0 };
	json_t *j;

	if (!text || !*text)
		return json_null();
	rt_buf_adds(&b, text);
	rt_rn_cap_text(&b, limit);
	j = rt_json_bytes(b.data, b.len);
	rt_buf_free(&b);
	return j;
}

typedef struct {
	const char *file, *title;    /* the relative file; the full title */
	const char *outcome, *result;
	long attempt;
	double time_ms;
	const json_t *err;           /* mocha's err object, or NULL */
	const char *message;         /* when err has none */
} rec;

static void
emit(reader *r, const rec *c)
{
	json_t *j;
	char *id = *c->file ? rt_xasprintf("%s::%s", c->file, c->title) : rt_xstrdup(c->title);
	char *msg = NULL;
	const char *ename = json_string_value(json_object_get(c->err, "name"));
	const char *emsg = json_string_value(json_object_get(c->err, "message"));
	const char *stack = json_string_value(json_object_get(c->err, "stack"));

	if (emsg || ename)
		msg = message_of(ename, emsg);
	else if (c->message)
		msg = rt_xstrdup(c->message);
	rt_case_rec cr = {
		.trial = r->o->trial > 0 ? r->o->trial : r->ncase, .id = id,
		.outcome = c->outcome, .result = c->result, .attempt = c->attempt,
		.time_ms = c->time_ms, .message = msg ? rt_json_str_or_null(msg) : NULL,
		.failure_type = ename, .err = failure_text(stack ? stack : emsg, r->max_output),
		.report = r->o->report, .run = r->run, .revision = r->o->revision,
		.timestamp = r->start, .position = r->ncase - 1, .suite = c->file,
		.source = "mocha --reporter json",
	};
	j = rt_case_rec_json(&cr);
	free(id);
	free(msg);
	r->records++;
	if (!r->stopped && r->fn(j, r->ctx) != 0)
		r->stopped = 1;
	json_decref(j);
}

/* Is t (file and full title) among the entries of list? */
static int
listed(const json_t *list, const char *file, const char *full)
{
	const json_t *v;
	const char *f, *t;
	size_t i;

	json_array_foreach(list, i, v) {
		f = json_string_value(json_object_get(v, "file"));
		t = json_string_value(json_object_get(v, "fullTitle"));
		if (t && !strcmp(t, full) && (!f || !file || !strcmp(f, file)))
			return 1;
	}
	return 0;
}

/* A hook's failure: '"before each" hook for "x"' (mocha's own title). */
static int
is_hook(const char *title)
{
	static const char *const hooks[] = {
		"\"before all\" hook", "\"before each\" hook", "\"after all\" hook",
		"\"after each\" hook", NULL
	};
	size_t i;

	for (i = 0; title && hooks[i]; i++)
		if (!strncmp(title, hooks[i], strlen(hooks[i])))
			return 1;
	return 0;
}

/* One entry of tests[]: the attempts mocha retried (each a failure: mocha
 * retries only a failed test), then its final one. */
static int
one_test(reader *r, const json_t *doc, const json_t *t, char *err, size_t errsize,
    const char *where)
{
	const char *full = json_string_value(json_object_get(t, "fullTitle"));
	const char *abs = json_string_value(json_object_get(t, "file"));
	const json_t *e = json_object_get(t, "err"), *retry = json_object_get(t, "currentRetry");
	const json_t *dur = json_object_get(t, "duration");
	int failed = (json_is_object(e) && json_object_size(e) > 0) ||
	    listed(json_object_get(doc, "failures"), abs, full ? full : "");
	long kept = 0, k;
	char *file;
	rec c;

	if (!json_is_object(t) || !full) {
		snprintf(err, errsize, "%s: no \"fullTitle\"", where);
		return -1;
	}
	if (json_is_integer(retry) && json_integer_value(retry) > 0)
		kept = json_integer_value(retry) > MAX_ATTEMPTS ? MAX_ATTEMPTS :
		    (long)json_integer_value(retry);
	/* a report of files mocha was given by name: a test without one
	 * (mocha.run() of suites built in code) is its full title alone */
	file = abs ? rel_file(r, abs) : rt_xstrdup("");
	r->ncase++;
	memset(&c, 0, sizeof c);
	c.file = file;
	c.title = full;
	for (k = 0; k < kept && !r->stopped; k++) {
		c.outcome = "fail";
		c.result = "failure";
		c.attempt = k + 1;
		c.time_ms = NAN;
		c.message = "failed; mocha retried it (--retries or this.retries) and kept no reason";
		emit(r, &c);
	}
	c.attempt = kept + 1;
	c.time_ms = json_is_number(dur) ? json_number_value(dur) : NAN;
	c.message = NULL;
	if (failed) {
		c.outcome = "fail";
		c.result = "failure";
		c.err = e;
		c.message = "failed (mocha gave no message)";
	} else if (listed(json_object_get(doc, "pending"), abs, full)) {
		c.outcome = "skip";
		c.result = "skipped";
	} else {
		c.outcome = "pass";
		c.result = "success";
	}
	if (!r->stopped)
		emit(r, &c);
	free(file);
	return 0;
}

static long
doc_read(const json_t *doc, const rt_junit_opts *o, rt_junit_fn fn,
    void *ctx, char *err, size_t errsize)
{
	reader r;
	const json_t *tests = json_object_get(doc, "tests"), *t;
	const char *start;
	char where[64];
	size_t i;
	long ret = 0;

	if (!doc_is_report(doc)) {
		snprintf(err, errsize, "1: not a mocha --reporter json report (no \"stats\" "
		    "object and \"tests\" array)");
		return -1;
	}
	memset(&r, 0, sizeof r);
	r.o = o;
	r.fn = fn;
	r.ctx = ctx;
	r.max_output = o->max_output ? o->max_output : 4096;
	r.root = realpath(o->root ? o->root : ".", NULL);
	start = json_string_value(json_object_get(json_object_get(doc, "stats"), "start"));
	r.start = start;
	r.run = o->run ? rt_xstrdup(o->run) : start && o->report ?
	    rt_xasprintf("%s@%s", o->report, start) : o->report ? rt_xstrdup(o->report) : NULL;
	json_array_foreach(tests, i, t) {
		snprintf(where, sizeof where, "tests[%zu]", i);
		if (r.stopped || (ret = one_test(&r, doc, t, err, errsize, where)) < 0)
			break;
	}
	/* a hook that failed is in failures[] but not in tests[]: the tests
	 * it guards did not run; the hook is one error record */
	json_array_foreach(json_object_get(doc, "failures"), i, t) {
		const char *title = json_string_value(json_object_get(t, "title"));
		const char *full = json_string_value(json_object_get(t, "fullTitle"));
		const char *abs = json_string_value(json_object_get(t, "file"));
		char *file;
		rec c;

		if (ret < 0 || r.stopped)
			break;
		if (!is_hook(title) || !full)
			continue;
		file = abs ? rel_file(&r, abs) : rt_xstrdup("");
		memset(&c, 0, sizeof c);
		r.ncase++;
		c.file = file;
		c.title = full;
		c.outcome = "error";
		c.result = "error";
		c.attempt = 1;
		c.time_ms = NAN;
		c.err = json_object_get(t, "err");
		c.message = "a hook failed (mocha gave no message)";
		emit(&r, &c);
		free(file);
	}
	free(r.root);
	free(r.run);
	return ret < 0 ? -1 : r.records;
}

/* ---- the command ---- */

/* mocha, _mocha, or node running mocha's own script (node
 * node_modules/mocha/bin/mocha.js, node node_modules/.bin/_mocha). */
static int
locate(char **w, size_t i, size_t to, rt_cmd_loc *loc)
{
	static const char *const words[] = { "mocha", "_mocha", NULL };
	static const char *const scripts[] = { "mocha", "_mocha", "mocha.js", NULL };
	const char *b = rt_rn_base(w[i]);
	size_t j;

	if (!rt_rn_word_in(b, words)) {
		if (strcmp(b, "node") && strcmp(b, "nodejs"))
			return 0;
		for (j = i + 1; j < to && w[j][0] == '-'; j++)
			;
		if (j >= to || !rt_rn_word_in(rt_rn_base(w[j]), scripts) ||
		    (!strcmp(rt_rn_base(w[j]), "mocha.js") && !strstr(w[j], "mocha/bin/")))
			return 0;
		loc->target = j;
		loc->args = j + 1;
	}
	loc->kind = RT_RUNNER_MOCHA;
	return 1;
}

static int
not_run(int code, const char *out, const char *err, char *why, size_t size)
{
	/* mocha 12: 'Error: No test files found: "test/x.js"' (exit 1), after
	 * 'Warning: Cannot find any files matching pattern "test/x.js"', which
	 * it also prints when other files did run: the command names a file
	 * that is not there, as pytest's usage error does */
	static const char *const none[] = { "No test files found", NULL };
	static const char *const gone[] = { "Cannot find any files matching pattern", NULL };
	/* a file that does not load (a syntax error, a require that fails)
	 * stops mocha before any test: " Exception during run: ..." */
	static const char *const load[] = { "Exception during run:", NULL };
	static const char *const cause[] = { "Error: ", "Error [", NULL };
	/* sh: "mocha: not found", exit 127; npx --no-install */
	static const char *const missing[] = {
		"not found", "No such file or directory", "Permission denied", NULL
	};
	static const char *const npx[] = {
		"npx canceled due to missing packages", "could not determine executable",
		NULL
	};
	static const char *const zero[] = { " 0 passing", "\"tests\": 0,", NULL };
	char line[400], why2[160];

	if (rt_rn_find_line(out, err, none, line, sizeof line))
		return rt_rn_say(why, size, "mocha found no test files", line);
	if (rt_rn_find_line(out, err, gone, line, sizeof line))
		return rt_rn_say(why, size, "mocha: a file the command names is not there", line);
	if (rt_rn_find_line(out, err, load, line, sizeof line)) {
		/* the error's own line when the first names only the place */
		if (!strstr(line, "Error") && rt_rn_find_line(NULL, err, cause, why2, sizeof why2))
			snprintf(line + strlen(line), sizeof line - strlen(line), ": %.150s", why2);
		return rt_rn_say(why, size, "mocha: a test file failed to load", line);
	}
	if ((code == 126 || code == 127) &&
	    rt_rn_find_line(NULL, err, missing, line, sizeof line))
		return rt_rn_say(why, size, "mocha could not start", line);
	if (code != 0 && rt_rn_find_line(out, err, npx, line, sizeof line))
		return rt_rn_say(why, size, "mocha could not start", line);
	/* --grep matching nothing, every test pending: exit 0, "0 passing" */
	if (code == 0 && rt_rn_find_line(out, NULL, zero, line, sizeof line))
		return rt_rn_say(why, size, "mocha ran no tests", line);
	return 0;
}

/* mocha's positional words are its spec files (paths or globs). */
static void
selections(char **w, size_t n, rt_runner_sel *out, size_t *k, size_t max, size_t seg)
{
	static const char *const val[] = {
		"--grep", "-g", "--fgrep", "-f", "--reporter", "-R", "--reporter-option",
		"--reporter-options", "-O", "--require", "-r", "--timeout", "-t", "--slow", "-s",
		"--retries", "--config", "--package", "--extension", "--ignore", "--exclude",
		"--file", "--ui", "-u", "--jobs", "-j", "--spec", "--node-option", "-n",
		"--import", "--watch-files", "--watch-ignore", NULL
	};
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(w[i], "--spec") && i + 1 < n)
			rt_rn_sel_add(out, k, max, RT_RUNNER_MOCHA, RT_SEL_PATH, w[++i], seg);
		else if (!strncmp(w[i], "--spec=", 7))
			rt_rn_sel_add(out, k, max, RT_RUNNER_MOCHA, RT_SEL_PATH, w[i] + 7, seg);
		else if (w[i][0] == '-') {
			if (!strcmp(w[i], "--"))
				continue;
			if (rt_rn_opt_takes_value(w[i], val))
				i++;
		} else
			rt_rn_sel_add(out, k, max, RT_RUNNER_MOCHA, RT_SEL_PATH, w[i], seg);
	}
}

/* Ordered runs: mocha runs a suite's tests together, in source order,
 * whatever its command line names; so the command is given a driver spec
 * file that requires the tests' files and runs them one at a time in the
 * order asked, each in views of its own suites (hookorder.c). */
static const rt_hookorder_driver driver = {
	"mocha", "retrial_order.spec.js",
	"// retrial's ordered run (rt-bisect, lib/runner/mocha.c): the tests\n"
	"// order.json names, one at a time in its order, each in a run of views of\n"
	"// its own suites (their hooks run for it); the order they ran, last\n"
	"'use strict';\n"
	"const fs = require('fs');\n"
	"const path = require('path');\n"
	"const order = JSON.parse(fs.readFileSync(path.join(__dirname, 'order.json'), 'utf8'));\n"
	"const cwd = process.cwd();\n"
	"const rel = (f) => (f && f.startsWith(cwd + path.sep) ? f.slice(cwd.length + 1) : f || '');\n"
	"const idOf = (t) => rel(t.file) + '::' + t.fullTitle();\n"
	"const here = describe('retrial order', function () {});\n"
	"const root = here.parent;\n"
	"root.suites.splice(root.suites.indexOf(here), 1);\n"
	"// each file's suites, named by it, not by this driver that requires it\n"
	"const own = (s, file) => {\n"
	"	s.file = file;\n"
	"	s.tests.forEach((t) => { t.file = file; });\n"
	"	s.suites.forEach((c) => own(c, file));\n"
	"};\n"
	"for (const f of [...new Set(order.map((id) => id.slice(0, id.indexOf('::'))))]) {\n"
	"	const abs = path.resolve(f);\n"
	"	const n = root.suites.length;\n"
	"	if (!require.cache[abs]) {\n"
	"		require(abs);\n"
	"		root.suites.slice(n).forEach((s) => own(s, abs));\n"
	"	}\n"
	"}\n"
	"const tests = new Map();\n"
	"const walk = (s) => {\n"
	"	s.tests.forEach((t) => tests.set(idOf(t), t));\n"
	"	s.suites.forEach(walk);\n"
	"};\n"
	"walk(root);\n"
	"const view = (s, child, test) => {\n"
	"	const v = Object.create(s);\n"
	"	v.tests = test ? [test] : [];\n"
	"	v.suites = child ? [child] : [];\n"
	"	v.cleanReferences = () => {};\n"
	"	return v;\n"
	"};\n"
	"const steps = [];\n"
	"for (const id of order) {\n"
	"	const t = tests.get(id);\n"
	"	let v = null;\n"
	"	if (!t)\n"
	"		continue;\n"
	"	for (let s = t.parent, test = t; s; s = s.parent, test = null)\n"
	"		v = s.root ? (v || view(s, null, test)) : view(s, v, test);\n"
	"	steps.push(v);\n"
	"}\n"
	"const ran = [];\n"
	"root.tests = [];\n"
	"root.suites = steps;\n"
	"beforeEach(function () {\n"
	"	ran.push(idOf(this.currentTest));\n"
	"});\n"
	"after(function () {\n"
	"	console.log('\\nretrial-order-ran: ' + JSON.stringify(ran));\n"
	"});\n"
};

static void *
order_open(const char *cwd, const char *victim, char *why, size_t size)
{
	return rt_hookorder_open(&driver, cwd, victim, why, size);
}

static const struct rt_order_ops order = {
	order_open, rt_hookorder_member, rt_hookorder_write, rt_hookorder_map,
	rt_hookorder_ran, rt_hookorder_same, rt_hookorder_selector, rt_hookorder_cwd,
	rt_hookorder_where, rt_hookorder_close,
	"mocha runs a suite's tests together, and the ordered runs' driver cannot be set up",
	"mocha runs a suite's tests together: each probe ran %s, a driver that requires "
	"the tests' files under %s and runs the probe's tests one at a time in its order, "
	"each in views of its own suites (their before and after hooks run for each); the "
	"order mocha started them is the probe's \"ran\"",
};

static const char *const own[] = { "--reporter", "-R", NULL };
static const char *const retries[] = { "--retries", NULL };

/* Words its report prints around every failure (rt_runner.h). */
static const char *const mocha_boilerplate[] = {
	"failing", "passing", "pending", "Error", "mocha", "test", NULL
};

const rt_runner rt_runner_mocha = {
	.kind = RT_RUNNER_MOCHA,
	.name = "mocha",
	.locate = locate,
	.not_run = not_run,
	.selections = selections,
	.file_ids = 1,
	/* MOCHA_OPTIONS: mocha 10.5 and later; output=: 9.1 and later. The
	 * command line wins over it, so a command's own --reporter is refused */
	.report_var = "MOCHA_OPTIONS",
	.report_add = "--reporter json --reporter-option output=%s",
	.own_report = own,
	.no_report = "mocha wrote none; mocha before 10.5 does not read MOCHA_OPTIONS: "
	    "pass --reporter json --reporter-option output=\"$RETRIAL_JUNIT\"",
	.doc_is_report = doc_is_report,
	.report_what = "mocha --reporter json (no \"stats\")",
	.doc_read = doc_read,
	.retry_opts = retries,
	.retry_msg = "mocha retries failed tests (%s): a retry",
	.order = &order,
	.boilerplate = mocha_boilerplate,
};
