/* lib/runner/go.c: go test — its commands, exits and selections, and its
 * per-case report: `go test -json` (test2json events, asked for through
 * GOFLAGS) read into per-test trial records shaped like rt_junit's. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <jansson.h>

#include "runner/runner.h"
#include "rt_jsonl.h"
#include "rt_order.h"
#include "rt_records.h"
#include "runner/goorder.h"
#include "rt_util.h"

typedef struct {
	char *pkg, *test;            /* test NULL: the package itself */
	long repeats, position;      /* runs so far (-count=N), where it ran */
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
	char *run;                   /* REPORT@TIME of its first event, as
	                              * rt_junit names a report's run */
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

static void
emit(reader *r, entry *e, const char *outcome, const char *result, double elapsed,
    const char *time, const char *message)
{
	json_t *j;
	char *id = e->test ? rt_xasprintf("%s::%s", e->pkg, e->test) : rt_xstrdup(e->pkg);

	/* -count=N runs each test N times, each judged: repeat 1..N of its own,
	 * never retries (go test has none), so every one is attempt 1 */
	e->repeats++;
	if (e->lost)
		rt_buf_printf(&e->out, "\n[retrial: %zu more bytes not kept]", e->lost);
	{
		const char *m = message ? message : e->message;
		rt_case_rec cr = {
			.trial = r->o->trial > 0 ? r->o->trial : r->records + 1, .id = id,
			.outcome = outcome, .result = result, .attempt = 1,
			.repeat = e->repeats, .time_ms = isnan(elapsed) ? NAN : elapsed * 1000,
			.message = m ? rt_json_str_or_null(m) : NULL,
			.out = e->out.len ? rt_json_bytes(e->out.data, e->out.len) : NULL,
			.report = r->o->report, .run = r->o->run ? r->o->run : r->run ?
			    r->run : r->o->report, .revision = r->o->revision,
			.timestamp = time, .position = e->position >= 0 ? e->position : r->runs,
			.suite = e->pkg, .source = "go test -json",
		};
		j = rt_case_rec_json(&cr);
	}
	if (e->test) {
		json_object_set_new(j, "go_package", rt_json_str_or_null(e->pkg));
		json_object_set_new(j, "go_test", rt_json_str_or_null(e->test));
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
	if (!r->run && time && r->o->report)
		r->run = rt_xasprintf("%s@%s", r->o->report, time);
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

/* The longest line of a go test -json stream kept (RT_GO_LINE_MAX, for
 * the tests, lowers it): test2json writes one output chunk an event, so a
 * longer line is a test printing without newlines, not an event to keep. */
#define GO_LINE_MAX ((size_t)16 << 20)

/* getline with a bound: at most max bytes of a line are kept, the rest is
 * read past without being held; *cut says it was. */
static ssize_t
bounded_getline(char **line, size_t *cap, FILE *f, size_t max, int *cut)
{
	size_t n = 0;
	int c;

	*cut = 0;
	flockfile(f);
	while ((c = getc_unlocked(f)) != EOF) {
		if (n + 2 > *cap) {
			*cap = *cap ? *cap * 2 : 256;
			if (*cap > max + 2)
				*cap = max + 2;
			*line = rt_xrealloc(*line, *cap);
		}
		if (n < max)
			(*line)[n++] = (char)c;
		else
			*cut = 1;
		if (c == '\n')
			break;
	}
	funlockfile(f);
	if (c == EOF && n == 0 && !*cut)
		return -1;
	if (*line)
		(*line)[n] = '\0';
	return (ssize_t)n;
}

static size_t
go_line_max(void)
{
	const char *env = getenv("RT_GO_LINE_MAX");

	return env && *env ? (size_t)rt_num_long("RT_GO_LINE_MAX", env, 64,
	    1L << 30) : GO_LINE_MAX;
}

/* The events of f, after line[0..len) when len >= 0 (a first line read
 * already; line and cap are getline's, freed here). A line longer than
 * go_line_max() is cut there, with a warning, and passed over. */
static long
stream_read(FILE *f, char *line, size_t cap, ssize_t len, const rt_junit_opts *o,
    rt_junit_fn fn, void *ctx, char *err, size_t errsize)
{
	reader r = { 0 };
	size_t i;
	long events = 0, lineno = 0;
	int have = len >= 0, cut = 0;
	size_t max = go_line_max();

	r.o = o;
	r.fn = fn;
	r.ctx = ctx;
	while (!r.stopped && (have || (len = bounded_getline(&line, &cap, f, max,
	    &cut)) >= 0)) {
		json_t *ev;
		json_error_t je;
		have = 0;
		lineno++;
		if (cut) {
			rt_warn("%s:%ld: line longer than %zu MiB, cut", o && o->report ?
			    o->report : "-", lineno, max >> 20 ? max >> 20 : 1);
			continue;
		}
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
	free(r.run);
	if (!events) {
		snprintf(err, errsize, "%ld: %s", lineno, rt_runner_report_kinds());
		return -1;
	}
	return r.records;
}



/* ---- the command ---- */

/* Did any test run: a "--- PASS/FAIL/SKIP" or "=== RUN" line, a -json
 * "run" event, or an "ok" package line that does not say it ran none. */
static int
go_ran_tests(const char *out)
{
	const char *p;

	if (!out)
		return 0;
	if (strstr(out, "--- ") || strstr(out, "=== RUN") || strstr(out, "\"Action\":\"run\""))
		return 1;
	for (p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len > 3 && !strncmp(p, "ok ", 3) &&
		    !rt_rn_memmem_line(p, len, "[no test"))
			return 1;
	}
	return 0;
}

static int
not_run(int code, const char *out, const char *err, char *why, size_t size)
{
	static const char *const build[] = {
		"[build failed]", "[setup failed]", "build failed", "setup failed", NULL
	};
	static const char *const none[] = {
		"no test files", "no tests to run", "matched no packages", NULL
	};
	static const char *const setup[] = {
		"cannot find main module", "go.mod file not found", "no required module",
		"cannot find package", "is not in std", "directory not found", "no Go files",
		"flag provided but not defined", "failed to initialize build cache",
		"build cache is required", NULL
	};
	char line[200];

	if (rt_rn_find_line(out, err, build, line, sizeof line))
		return rt_rn_say(why, size, "go test: the package did not build", line);
	if (code != 0 && rt_rn_find_line(out, err, setup, line, sizeof line))
		return rt_rn_say(why, size, "go test did not run the tests", line);
	/* "testing: warning: no tests to run" is an exit 0 */
	if (rt_rn_find_line(out, err, none, line, sizeof line) && !go_ran_tests(out))
		return rt_rn_say(why, size, "go test ran no tests", line);
	return 0;
}

static void
selections(char **w, size_t n, rt_runner_sel *out, size_t *k, size_t max, size_t seg)
{
	static const char *const val[] = {
		"-count", "-timeout", "-tags", "-p", "-parallel", "-cpu", "-bench",
		"-coverprofile", "-o", "-exec", "-skip", "-shuffle", NULL
	};
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(w[i], "-run") && i + 1 < n)
			rt_rn_sel_add(out, k, max, RT_RUNNER_GO, RT_SEL_GORUN, w[++i], seg);
		else if (!strncmp(w[i], "-run=", 5))
			rt_rn_sel_add(out, k, max, RT_RUNNER_GO, RT_SEL_GORUN, w[i] + 5, seg);
		else if (w[i][0] == '-') {
			if (rt_rn_opt_takes_value(w[i], val))
				i++;
		} else
			rt_rn_sel_add(out, k, max, RT_RUNNER_GO, RT_SEL_GOPKG, w[i], seg);
	}
}

/* A test2json event: an object with "Action". */
static int
stream_claims(const json_t *first)
{
	return json_is_object(first) && json_object_get(first, "Action") != NULL;
}

/* ---- ordered runs: go test runs a package's tests in source order ---- */

static void *
order_open(const char *cwd, const char *victim, char *why, size_t size)
{
	rt_goorder *g = rt_xcalloc(1, sizeof *g);

	if (rt_goorder_open(g, cwd, victim, why, size) < 0) {
		rt_goorder_close(g);
		free(g);
		return NULL;
	}
	return g;
}

static int
order_member(const void *h, const char *id, char *why, size_t size)
{
	return rt_goorder_member(h, id, why, size);
}

static int
order_write(const void *h, char *const *order, char *why, size_t size)
{
	return rt_goorder_write(h, order, why, size);
}

static void
order_map(const void *h, rt_case_set *set)
{
	rt_goorder_map(h, set);
}

static json_t *
order_ran(const void *h, const char *out)
{
	return rt_goorder_ran(h, out);
}

static const char *
order_selector(const void *h)
{
	return ((const rt_goorder *)h)->driver_id;
}

static const char *
order_cwd(const void *h)
{
	return ((const rt_goorder *)h)->cwd;
}

static const char *
order_where(const void *h)
{
	return ((const rt_goorder *)h)->importpath;
}

static void
order_close(void *h)
{
	rt_goorder_close(h);
	free(h);
}

static const struct rt_order_ops order = {
	order_open, order_member, order_write, order_map, order_ran, rt_goorder_same,
	order_selector, order_cwd, order_where, order_close,
	"go test runs tests in source order, and the ordered runs' driver cannot be set up",
	"go test runs a package's tests in source order: each probe ran %s (" RT_GOORDER_FILE
	" in a scratch copy of the package %s), whose subtests call the tests in the "
	"probe's order; the order go test reported is the probe's \"ran\"",
};

static const char *const words[] = { "go", NULL };
static const char *const own[] = { "-json", "--json", NULL };

/* go test -shuffle prints "-test.shuffle N" and takes -shuffle=N in GOFLAGS */
static const char *const sh_printed[] = { "-test.shuffle ", NULL };
static const char *const sh_opts[] = { "-shuffle", "--shuffle", "-test.shuffle", NULL };
static const rt_seed_opt seeds[] = {
	{ "go-shuffle", sh_printed, "GOFLAGS", "-shuffle=", sh_opts, NULL, 1 },
	{ NULL, NULL, NULL, NULL, NULL, NULL, 0 }
};

/* Words its report prints around every failure (rt_runner.h). */
static const char *const go_boilerplate[] = {
	"FAIL", "PASS", "RUN", "PAUSE", "CONT", "SKIP", "ok", "go", "test", "exit",
	"status", "panic", "goroutine", "running", "testing", NULL
};

/* The build check of a patch (rt_runner.h): go vet of the package, which
 * type-checks it at the language version of go.mod's go line; modules
 * from the module cache only, with the toolchain installed, no cgo. */
static const char *const build_ends[] = { ".go", NULL };
static const char *const build_argv[] = { "go", "vet", "%d", NULL };
static const char *const build_env[] = {
	"GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local", "GOWORK=off",
	"CGO_ENABLED=0", NULL
};

const rt_runner rt_runner_go = {
	.kind = RT_RUNNER_GO,
	.name = "go",
	.words = words,
	.subcommand = "test",
	.not_run = not_run,
	.selections = selections,
	.picks = RT_PICK_PACKAGES,
	.report_var = "GOFLAGS",
	.report_add = "-json",
	.own_report = own,
	.report_output = (size_t)16 << 20,
	.stream_claims = stream_claims,
	.order = &order,
	.order_fix = "goorder",
	.report_what = "go test -json (no {\"Action\":...} line)",
	.stream_read = stream_read,
	.report_stdout = 1,
	.seeds = seeds,
	.boilerplate = go_boilerplate,
	.build_ends = build_ends,
	.build_argv = build_argv,
	.build_env = build_env,
};
