/* rt_junit: a streaming JUnit XML reader on libexpat. Only the testcase being
 * read is held: its attributes, its result element, its failed attempts
 * (Surefire's flaky and rerun elements, at most MAX_ATTEMPTS) and capped
 * output. A byte-level pre-scan bounds each markup token before expat sees
 * it: expat 2.5 rescans a token still incomplete at every chunk, which is
 * quadratic in the token's length (a 100 MB attribute took minutes). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <expat.h>

#include "rt_hash.h"
#include "rt_jsonl.h"
#include "rt_junit.h"
#include "rt_records.h"
#include "rt_runner.h"
#include "rt_util.h"

#define MAX_SUITES 64            /* deeper nesting inherits the 64th */
#define MAX_ATTEMPTS 100         /* failed attempts kept per testcase */
#define MAX_MESSAGE 1024         /* bytes of a message taken from text */
#define MAX_ATTR (1 << 20)       /* bytes kept of an attribute value */
#define MAX_MARKUP (4 << 20)     /* bytes of one tag, comment, PI or declaration */
#define MAX_REF 256              /* bytes of one entity or character reference */
#define MAX_DEPTH 256            /* element nesting */
#define MAX_ID 4096              /* bytes of a case ID kept whole */

/* result precedence: error > failure > skipped > success */
enum { R_SUCCESS, R_SKIPPED, R_FAILURE, R_ERROR };
static const char *result_names[] = { "success", "skipped", "failure", "error" };

typedef struct {
	int result;
	char *message, *ftype;
	double time;                 /* seconds, NAN when absent */
	rt_buf text, out, err;
	size_t out_lost, err_lost;
} attempt;

typedef struct {
	XML_Parser p;
	const rt_junit_opts *o;
	rt_junit_fn fn;
	void *ctx;
	size_t max_output;
	int depth, stopped;
	char err[300];
	/* enclosing suites: name and timestamp (inherited when absent) */
	char *sname[MAX_SUITES], *sts[MAX_SUITES], *sfile[MAX_SUITES];
	int nsuite;                  /* may exceed MAX_SUITES */
	char *first_ts, *run;
	long ncase;
	/* the testcase being read */
	int in_case, case_depth;
	unsigned long case_line;     /* where the testcase began */
	char *classname, *name, *file;
	double time;
	attempt fin;                 /* the final result */
	attempt tries[MAX_ATTEMPTS];
	int ntries;
	long lost_tries;
	/* retrial's pytest plugin: the quarantined test's real outcome and
	 * its ID on the list (testcase properties) */
	int quar_failed;
	char *quar_id;
	int in_result, result_depth; /* inside a result/attempt element */
	attempt *cur;                /* where that element's text and output go */
	rt_buf *cap;                 /* where character data goes, or NULL */
	size_t *cap_lost, cap_limit;
	int cap_depth;
	/* testcases whose report names no file, held until their suite ends
	 * (rt_runner_junit_fileless): their records, each one's classname and
	 * name, and the suite's full names */
	char *root_name;
	rt_runner_kind fl_kind;
	int holding, fl_level;
	unsigned long fl_line;
	json_t **held;
	char **held_cls, **held_name, **fl_names;
	size_t nheld, capheld, nnames, capnames;
	void *fl_state;
	int fl_warned;
} parser;

static const char *
attr(const char **a, const char *key)
{
	for (; a && a[0]; a += 2)
		if (strcmp(a[0], key) == 0)
			return a[1];
	return NULL;
}

static char *
dup_or_null(const char *s)
{
	return s ? rt_xstrdup(s) : NULL;
}

/* An attribute kept whole up to MAX_MESSAGE bytes, cut at a character. */
static char *
dup_capped(const char *s)
{
	size_t n;
	char *d;

	if (!s)
		return NULL;
	if ((n = strlen(s)) <= MAX_MESSAGE)
		return rt_xstrdup(s);
	n = MAX_MESSAGE;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	d = rt_xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static double
seconds(const char *s)
{
	double v;
	char *end;

	if (!s || !*s)
		return NAN;
	errno = 0;
	v = strtod(s, &end);
	/* "1,234.5" (some Gradle locales) and junk are not a time */
	if (errno || *end || !isfinite(v) || v < 0)
		return NAN;
	return v;
}

static void
attempt_clear(attempt *a)
{
	free(a->message);
	free(a->ftype);
	rt_buf_free(&a->text);
	rt_buf_free(&a->out);
	rt_buf_free(&a->err);
	memset(a, 0, sizeof *a);
	a->time = NAN;
}

static void
case_clear(parser *q)
{
	int i;

	free(q->classname);
	free(q->name);
	free(q->file);
	free(q->quar_id);
	q->classname = q->name = q->file = q->quar_id = NULL;
	q->quar_failed = 0;
	attempt_clear(&q->fin);
	for (i = 0; i < q->ntries; i++)
		attempt_clear(&q->tries[i]);
	q->ntries = 0;
	q->lost_tries = 0;
	q->in_case = 0;
	q->in_result = 0;
	q->cap = NULL;
}

/* The message: the attribute, else the first non-blank line of the text. */
static json_t *
message(const attempt *a)
{
	const char *s, *e;

	if (a->message)
		return rt_json_str_or_null(a->message);
	if (!a->text.len)
		return json_null();
	s = a->text.data;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	for (e = s; *e && *e != '\n' && *e != '\r'; e++)
		;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return e > s ? rt_json_bytes(s, (size_t)(e - s)) : json_null();
}

static json_t *
output(rt_buf *b, size_t lost)
{
	if (!b->len && !lost)
		return json_null();
	if (lost)
		rt_buf_printf(b, "\n[retrial: %zu more bytes not kept]", lost);
	return rt_json_bytes(b->data, b->len);
}

static const char *
suite_at(char *const *v, int n)
{
	int i;

	for (i = (n < MAX_SUITES ? n : MAX_SUITES) - 1; i >= 0; i--)
		if (v[i])
			return v[i];
	return NULL;
}

/* The testcase's ID, the runner's own. One longer than MAX_ID bytes is cut at
 * a character and marked with its length and digest, so two long IDs that
 * share a beginning stay two cases. */
static char *
case_id(parser *q)
{
	const char *suite = suite_at(q->sname, q->nsuite);
	const char *scope = q->classname && *q->classname ? q->classname :
	    q->file && *q->file ? q->file : suite_at(q->sfile, q->nsuite);
	const char *name = q->name ? q->name : "";
	char hex[65], *id, *cut;
	size_t n, k;

	if (!scope)
		scope = suite;
	/* the runner's own selection syntax (rt_runner_junit_id): pytest's
	 * node IDs, jest's names without their leading space, else
	 * "scope::name" (Bazel names the suite and its one testcase after the
	 * target: the name alone) */
	id = rt_runner_junit_id(suite, scope, name, q->file, q->o->root);
	if ((n = strlen(id)) <= MAX_ID)
		return id;
	for (k = MAX_ID; k > 0 && ((unsigned char)id[k] & 0xc0) == 0x80; k--)
		;
	rt_sha256_hex(id, n, hex);
	cut = rt_xasprintf("%.*s...[retrial: %zu bytes, sha256 %.16s]", (int)k, id, n,
	    hex);
	rt_warn("%s:%lu: a case ID of %zu bytes; cut to %zu", q->o->report ?
	    q->o->report : "<report>", q->case_line, n, k);
	free(id);
	return cut;
}

static void
emit(parser *q, attempt *a, int num, const char *id)
{
	const char *suite = suite_at(q->sname, q->nsuite);
	int res = a->result, xfail = 0;

	/* a quarantined test the plugin ran as xfail is measured by the
	 * failure the xfail hides (rt-quarantine(1), The pytest plugin) */
	if (a == &q->fin && q->quar_failed && res == R_SKIPPED) {
		res = R_FAILURE;
		xfail = 1;
	}
	rt_case_rec cr = {
		.trial = q->o->trial > 0 ? q->o->trial : q->ncase, .id = id,
		.outcome = res == R_SUCCESS ? "pass" : res == R_SKIPPED ? "skip" : "fail",
		.result = xfail ? "xfail" : result_names[res], .attempt = num,
		.time_ms = isnan(a->time) ? NAN : a->time * 1000,
		.message = res == R_SUCCESS ? NULL : message(a), .failure_type = a->ftype,
		.out = output(&a->out, a->out_lost), .err = output(&a->err, a->err_lost),
		.report = q->o->report, .run = q->run, .revision = q->o->revision,
		.timestamp = suite_at(q->sts, q->nsuite), .position = q->ncase - 1,
		.suite = suite, .source = "junit",
	};
	json_t *j = rt_case_rec_json(&cr);

	json_object_set_new(j, "junit_classname", rt_json_str_or_null(q->classname));
	json_object_set_new(j, "junit_name", rt_json_str_or_null(q->name));
	if (q->quar_id)
		json_object_set_new(j, "quarantined", rt_json_bytes(q->quar_id,
		    strlen(q->quar_id)));
	if (q->holding) {
		if (q->nheld == q->capheld) {
			q->capheld = q->capheld ? 2 * q->capheld : 16;
			q->held = rt_xrealloc(q->held, q->capheld * sizeof *q->held);
			q->held_cls = rt_xrealloc(q->held_cls, q->capheld * sizeof *q->held_cls);
			q->held_name = rt_xrealloc(q->held_name, q->capheld * sizeof *q->held_name);
		}
		q->held[q->nheld] = j;
		q->held_cls[q->nheld] = rt_xstrdup(q->classname ? q->classname : "");
		q->held_name[q->nheld++] = rt_xstrdup(q->name ? q->name : "");
		return;
	}
	if (!q->stopped && q->fn(j, q->ctx) != 0) {
		q->stopped = 1;
		XML_StopParser(q->p, XML_FALSE);
	}
	json_decref(j);
}

static void
fail_at(parser *q, const char *fmt, const char *arg)
{
	int n = snprintf(q->err, sizeof q->err, "%lu:%lu: ",
	    (unsigned long)XML_GetCurrentLineNumber(q->p),
	    (unsigned long)XML_GetCurrentColumnNumber(q->p) + 1);
	snprintf(q->err + n, sizeof q->err - (size_t)n, fmt, arg);
	q->stopped = 2;
	XML_StopParser(q->p, XML_FALSE);
}

/* The local name: "ns:testcase" is a testcase. */
static const char *
local(const char *el)
{
	const char *c = strrchr(el, ':');
	return c ? c + 1 : el;
}

static void
capture(parser *q, rt_buf *b, size_t *lost, size_t limit)
{
	q->cap = b;
	q->cap_lost = lost;
	q->cap_limit = limit;
	q->cap_depth = q->depth;
}

static void XMLCALL
on_start(void *ud, const char *el, const char **a)
{
	parser *q = ud;
	const char *n = local(el), *v;
	attempt *t;
	int r, i;

	q->depth++;
	if (q->stopped)
		return;
	if (q->depth > MAX_DEPTH) {
		fail_at(q, "elements nested deeper than %s", "256");
		return;
	}
	if (q->depth == 1 && strcmp(n, "testsuites") && strcmp(n, "testsuite")) {
		fail_at(q, "not a JUnit report (root element <%s>)", el);
		return;
	}
	if (!strcmp(n, "testsuite") || !strcmp(n, "testsuites")) {
		if ((v = attr(a, "timestamp")) && !q->first_ts)
			q->first_ts = rt_xstrdup(v);
		if (q->depth == 1 && !strcmp(n, "testsuites"))
			q->root_name = dup_or_null(attr(a, "name"));
		if (!strcmp(n, "testsuite") && !q->in_case) {
			if (q->nsuite < MAX_SUITES) {
				q->sname[q->nsuite] = dup_or_null(attr(a, "name"));
				q->sts[q->nsuite] = dup_or_null(attr(a, "timestamp"));
				q->sfile[q->nsuite] = dup_or_null(attr(a, "file"));
			}
			q->nsuite++;
		}
		return;
	}
	if (!strcmp(n, "testcase") && !q->in_case) {
		case_clear(q);
		q->in_case = 1;
		q->case_depth = q->depth;
		q->case_line = (unsigned long)XML_GetCurrentLineNumber(q->p);
		q->classname = dup_or_null(attr(a, "classname"));
		q->name = dup_or_null(attr(a, "name"));
		q->file = dup_or_null(attr(a, "file"));
		q->fin.time = seconds(attr(a, "time"));
		/* Bazel and some runners: status="notrun" is a skip */
		if ((v = attr(a, "status")) && !strcmp(v, "notrun"))
			q->fin.result = R_SKIPPED;
		return;
	}
	if (!q->in_case)
		return;
	if (q->in_result) {
		/* inside a result element: its output belongs to that attempt */
		t = q->cur;
		if (!strcmp(n, "system-out"))
			capture(q, &t->out, &t->out_lost, q->max_output);
		else if (!strcmp(n, "system-err"))
			capture(q, &t->err, &t->err_lost, q->max_output);
		return;
	}
	if (!strcmp(n, "property") && (v = attr(a, "name"))) {
		if (!strcmp(v, "retrial_quarantined"))
			q->quar_failed = (v = attr(a, "value")) && !strcmp(v, "failed");
		else if (!strcmp(v, "retrial_quarantine_id") && (v = attr(a, "value")) &&
		    *v && !q->quar_id)
			q->quar_id = dup_capped(v);
		return;
	}
	if (q->depth != q->case_depth + 1)
		return;
	if (!strcmp(n, "system-out")) {
		capture(q, &q->fin.out, &q->fin.out_lost, q->max_output);
		return;
	}
	if (!strcmp(n, "system-err")) {
		capture(q, &q->fin.err, &q->fin.err_lost, q->max_output);
		return;
	}
	r = !strcmp(n, "failure") ? R_FAILURE : !strcmp(n, "error") ? R_ERROR :
	    !strcmp(n, "skipped") ? R_SKIPPED : -1;
	if (r >= 0) {
		t = &q->fin;
		/* error > failure > skipped: a weaker element adds nothing */
		if (r < t->result)
			return;
		if (r > t->result) {
			free(t->message);
			free(t->ftype);
			t->message = t->ftype = NULL;
			t->text.len = 0;
		}
		t->result = r;
		if (!t->message)
			t->message = dup_capped(attr(a, "message"));
		if (!t->ftype)
			t->ftype = dup_capped(attr(a, "type"));
	} else {
		i = !strcmp(n, "flakyFailure") || !strcmp(n, "rerunFailure") ? R_FAILURE :
		    !strcmp(n, "flakyError") || !strcmp(n, "rerunError") ? R_ERROR : -1;
		if (i < 0)
			return;
		if (q->ntries == MAX_ATTEMPTS) {
			q->lost_tries++;
			return;
		}
		t = &q->tries[q->ntries++];
		memset(t, 0, sizeof *t);
		t->result = i;
		t->message = dup_capped(attr(a, "message"));
		t->ftype = dup_capped(attr(a, "type"));
		t->time = seconds(attr(a, "time"));
	}
	q->in_result = 1;
	q->result_depth = q->depth;
	q->cur = t;
	capture(q, &t->text, NULL, MAX_MESSAGE);
}

/* The held testcases of a suite, their IDs made with the file the runner
 * finds for the suite; without one, their full names and a warning that
 * says what the report lacks. */
static void
flush_held(parser *q)
{
	const char *suite = suite_at(q->sname, q->nsuite + 1);
	char why[512], *file, *id;
	size_t i;

	if (!q->holding)
		return;
	q->holding = 0;
	file = rt_runner_junit_suite_file(q->fl_kind, q->fl_names, q->nnames, q->o->root,
	    &q->fl_state, why, sizeof why);
	if (!file && !q->fl_warned) {
		rt_warn("%s:%lu: %s", q->o->report ? q->o->report : "<report>", q->fl_line, why);
		q->fl_warned = 1;
	}
	for (i = 0; i < q->nheld; i++) {
		id = rt_runner_junit_id(suite, q->held_cls[i], q->held_name[i], file, q->o->root);
		json_object_set_new(q->held[i], "case", rt_json_bytes(id, strlen(id)));
		free(id);
		if (!q->stopped && q->fn(q->held[i], q->ctx) != 0) {
			q->stopped = 1;
			XML_StopParser(q->p, XML_FALSE);
		}
		json_decref(q->held[i]);
		free(q->held_cls[i]);
		free(q->held_name[i]);
	}
	for (i = 0; i < q->nnames; i++)
		free(q->fl_names[i]);
	q->nheld = q->nnames = 0;
	free(file);
}

static void XMLCALL
on_end(void *ud, const char *el)
{
	parser *q = ud;
	const char *n = local(el);
	char *id;
	int i;

	if (q->cap && q->depth == q->cap_depth) {
		/* back to the enclosing result element's text, if any */
		q->cap = NULL;
		if (q->in_result && q->depth > q->result_depth)
			capture(q, &q->cur->text, NULL, MAX_MESSAGE), q->cap_depth = q->result_depth;
	}
	if (q->in_result && q->depth == q->result_depth)
		q->in_result = 0;
	if (!q->stopped && q->in_case && q->depth == q->case_depth) {
		q->ncase++;
		if (!q->run)
			q->run = q->o->run ? rt_xstrdup(q->o->run) : q->first_ts ?
			    rt_xasprintf("%s@%s", q->o->report, q->first_ts) :
			    rt_xstrdup(q->o->report);
		if (!q->holding && !(q->file && *q->file) && !suite_at(q->sfile, q->nsuite) &&
		    (q->fl_kind = rt_runner_junit_fileless(q->root_name, suite_at(q->sname,
		    q->nsuite), q->classname, q->name)) != RT_RUNNER_GENERIC) {
			q->holding = 1;
			q->fl_level = q->nsuite;
			q->fl_line = q->case_line;
		}
		id = case_id(q);
		if (q->holding) {
			if (q->nnames == q->capnames) {
				q->capnames = q->capnames ? 2 * q->capnames : 16;
				q->fl_names = rt_xrealloc(q->fl_names, q->capnames * sizeof *q->fl_names);
			}
			q->fl_names[q->nnames++] = rt_xstrdup(id);
		}
		for (i = 0; i < q->ntries; i++)
			emit(q, &q->tries[i], i + 1, id);
		emit(q, &q->fin, q->ntries + 1, id);
		free(id);
		case_clear(q);
	} else if (!q->in_case && !strcmp(n, "testsuite")) {
		q->nsuite--;
		if (q->holding && q->nsuite < q->fl_level)
			flush_held(q);
		if (q->nsuite < MAX_SUITES) {
			free(q->sname[q->nsuite]);
			free(q->sts[q->nsuite]);
			free(q->sfile[q->nsuite]);
			q->sname[q->nsuite] = q->sts[q->nsuite] = q->sfile[q->nsuite] = NULL;
		}
	}
	q->depth--;
}

static void XMLCALL
on_text(void *ud, const char *s, int len)
{
	parser *q = ud;
	size_t n = (size_t)len, room;

	if (!q->cap || q->stopped)
		return;
	room = q->cap->len < q->cap_limit ? q->cap_limit - q->cap->len : 0;
	if (n > room) {
		/* cut at a character, not inside one */
		while (room > 0 && ((unsigned char)s[room] & 0xc0) == 0x80)
			room--;
		if (q->cap_lost)
			*q->cap_lost += n - room;
		n = room;
		q->cap_limit = q->cap->len + n;   /* nothing more fits */
	}
	if (n)
		rt_buf_add(q->cap, s, n);
}

/* --- the pre-scan: where each byte is in the markup, so that no single
 * token reaches expat longer than a cap. An attribute value past MAX_ATTR
 * is cut (at a character, outside a reference) and the rest dropped up to
 * its closing quote; a tag, comment, processing instruction or declaration
 * past MAX_MARKUP, or a reference past MAX_REF, ends the file with an error.
 * Text and CDATA reach expat in pieces, so they are not bounded here. */

enum { S_TEXT, S_LT, S_TAG, S_QUOTE, S_BANG, S_BANG_DASH, S_COMMENT,
    S_CDATA_OPEN, S_CDATA, S_PI, S_DECL };

typedef struct {
	int st, k, depth, ref, dropping;
	char q;                      /* the open quote, in S_QUOTE and S_DECL */
	size_t mlen, vlen, reflen;   /* markup, attribute value, reference */
	unsigned long line;          /* 1-based, of the byte being scanned */
	unsigned long cuts, cut_line;
	const char *why;             /* set when the file is refused */
} prescan;

/* A reference's byte: '&' opens one, ';' closes it. 0, or -1 when one
 * grows past MAX_REF. */
static int
ref_byte(prescan *ps, unsigned char c)
{
	if (ps->ref) {
		if (c == ';')
			ps->ref = 0;
		else if (++ps->reflen > MAX_REF) {
			ps->why = "an entity or character reference longer than 256 bytes";
			return -1;
		}
	} else if (c == '&') {
		ps->ref = 1;
		ps->reflen = 0;
	}
	return 0;
}

/* Scan n bytes of buf, compacting in place the ones expat is to see; their
 * number, or the bytes kept before the refusal (with ps->why set). */
static size_t
prescan_chunk(prescan *ps, char *buf, size_t n)
{
	size_t i, w = 0;
	unsigned char c;
	int keep;

	for (i = 0; i < n; i++) {
		c = (unsigned char)buf[i];
		keep = 1;
		switch (ps->st) {
		case S_TEXT:
			if (c == '<') {
				ps->st = S_LT;
				ps->ref = 0;
				ps->mlen = 0;
			} else if (ref_byte(ps, c) < 0)
				return w;
			break;
		case S_LT:
			ps->st = c == '!' ? S_BANG : c == '?' ? S_PI : c == '>' ? S_TEXT : S_TAG;
			ps->k = 0;
			break;
		case S_TAG:
			if (c == '"' || c == '\'') {
				ps->st = S_QUOTE;
				ps->q = (char)c;
				ps->vlen = 0;
				ps->ref = ps->dropping = 0;
			} else if (c == '>')
				ps->st = S_TEXT;
			break;
		case S_QUOTE:
			if (c == (unsigned char)ps->q) {
				ps->st = S_TAG;
				ps->ref = 0;
			} else if (ps->dropping) {
				keep = 0;
			} else if (ps->vlen >= MAX_ATTR && !ps->ref && (c & 0xc0) != 0x80) {
				ps->dropping = 1;
				if (ps->cuts++ == 0)
					ps->cut_line = ps->line;
				keep = 0;
			} else {
				ps->vlen++;
				if (ref_byte(ps, c) < 0)
					return w;
			}
			break;
		case S_BANG:
			ps->st = c == '-' ? S_BANG_DASH : c == '[' ? S_CDATA_OPEN :
			    c == '>' ? S_TEXT : S_DECL;
			ps->depth = 0;
			ps->q = 0;
			break;
		case S_BANG_DASH:
			ps->st = c == '-' ? S_COMMENT : S_DECL;
			break;
		case S_COMMENT:
			if (c == '>' && ps->k >= 2)
				ps->st = S_TEXT;
			ps->k = c == '-' ? ps->k + 1 : 0;
			break;
		case S_CDATA_OPEN:          /* "CDATA[" */
			if (++ps->k == 6) {
				ps->st = S_CDATA;
				ps->k = 0;
			}
			break;
		case S_CDATA:
			if (c == '>' && ps->k >= 2)
				ps->st = S_TEXT;
			ps->k = c == ']' ? ps->k + 1 : 0;
			break;
		case S_PI:
			if (c == '>' && ps->k)
				ps->st = S_TEXT;
			ps->k = c == '?';
			break;
		case S_DECL:
			if (ps->q) {
				if (c == (unsigned char)ps->q)
					ps->q = 0;
			} else if (c == '"' || c == '\'')
				ps->q = (char)c;
			else if (c == '[')
				ps->depth++;
			else if (c == ']')
				ps->depth--;
			else if (c == '>' && ps->depth <= 0)
				ps->st = S_TEXT;
			break;
		}
		if (keep && ps->st != S_TEXT && ps->st != S_CDATA &&
		    ++ps->mlen > MAX_MARKUP) {
			ps->why = "a tag, comment or declaration longer than 4 MiB";
			return w;
		}
		if (c == '\n')
			ps->line++;
		if (keep)
			buf[w++] = (char)c;
	}
	return w;
}

long
rt_junit_read(FILE *f, const rt_junit_opts *o, rt_junit_fn fn, void *ctx,
    char *err, size_t errsize)
{
	parser q;
	prescan ps;
	char buf[65536];
	size_t n, m;
	int done = 0, i;
	long ret;
	const char *report = o->report ? o->report : "<report>";

	memset(&q, 0, sizeof q);
	memset(&ps, 0, sizeof ps);
	ps.line = 1;
	q.o = o;
	q.fn = fn;
	q.ctx = ctx;
	q.max_output = o->max_output ? o->max_output : 4096;
	q.fin.time = NAN;
	if (!(q.p = XML_ParserCreate(NULL)))
		rt_die("out of memory");
	XML_SetUserData(q.p, &q);
	XML_SetElementHandler(q.p, on_start, on_end);
	XML_SetCharacterDataHandler(q.p, on_text);
	while (!done && !q.stopped) {
		n = fread(buf, 1, sizeof buf, f);
		if (ferror(f)) {
			snprintf(q.err, sizeof q.err, "read error: %s", strerror(errno));
			q.stopped = 2;
			break;
		}
		done = n < sizeof buf;
		m = prescan_chunk(&ps, buf, n);
		if (ps.why)
			done = 0;
		if (XML_Parse(q.p, buf, (int)m, done) == XML_STATUS_ERROR && q.stopped != 2) {
			if (q.stopped == 1)   /* fn asked to stop */
				break;
			snprintf(q.err, sizeof q.err, "%lu:%lu: %s",
			    (unsigned long)XML_GetCurrentLineNumber(q.p),
			    (unsigned long)XML_GetCurrentColumnNumber(q.p) + 1,
			    XML_ErrorString(XML_GetErrorCode(q.p)));
			q.stopped = 2;
		}
		if (ps.why && !q.stopped) {
			snprintf(q.err, sizeof q.err, "%lu: %s; not read further", ps.line,
			    ps.why);
			q.stopped = 2;
		}
	}
	if (ps.cuts)
		rt_warn("%s:%lu: an attribute value longer than %d bytes; cut there%s",
		    report, ps.cut_line, MAX_ATTR, ps.cuts > 1 ? " (and more)" : "");
	if (q.stopped != 2)
		flush_held(&q);
	ret = q.ncase;
	if (q.stopped == 2) {
		snprintf(err, errsize, "%s", q.err);
		ret = -1;
	}
	case_clear(&q);
	for (i = 0; i < MAX_SUITES; i++) {
		free(q.sname[i]);
		free(q.sts[i]);
		free(q.sfile[i]);
	}
	for (n = 0; n < q.nheld; n++) {
		json_decref(q.held[n]);
		free(q.held_cls[n]);
		free(q.held_name[n]);
	}
	for (n = 0; n < q.nnames; n++)
		free(q.fl_names[n]);
	free(q.held);
	free(q.held_cls);
	free(q.held_name);
	free(q.fl_names);
	rt_runner_junit_suite_file(q.fl_kind, NULL, 0, NULL, &q.fl_state, q.err, sizeof q.err);
	free(q.root_name);
	free(q.first_ts);
	free(q.run);
	XML_ParserFree(q.p);
	return ret;
}

const char *
rt_junit_revision_env(void)
{
	static const char *vars[] = { "GITHUB_SHA", "CI_COMMIT_SHA", "GIT_COMMIT",
	    "BUILD_VCS_NUMBER" };
	const char *v;
	size_t i;

	for (i = 0; i < sizeof vars / sizeof *vars; i++)
		if ((v = getenv(vars[i])) && *v)
			return v;
	return NULL;
}
