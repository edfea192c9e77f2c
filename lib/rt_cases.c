/* rt_cases: per-case outcomes of a trial from the runner's own report. */
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_cases.h"
#include "rt_runner.h"
#include "rt_util.h"

/* Does the command name a report option of its own: one of its runner's
 * (the generic runner: any runner's)? */
static int
own_report(const rt_trial_opts *o)
{
	const rt_runner *r = rt_runner_of(o->runner);
	char *w[512];
	size_t n = 0, i, j, k;
	int hit = 0, q;

	if (o->shell_cmd)
		n = rt_cmd_split(o->shell_cmd, w, sizeof w / sizeof *w);
	else
		for (; o->argv && o->argv[n] && n < sizeof w / sizeof *w; n++)
			w[n] = rt_xstrdup(o->argv[n]);
	for (q = 0; q < RT_RUNNER_NKINDS && !hit; q++) {
		const rt_runner *x = rt_runner_of((rt_runner_kind)q);
		if (r->own_report && x != r)
			continue;
		for (i = 0; i < n && !hit; i++)
			for (j = 0; x->own_report && x->own_report[j] && !hit; j++) {
				k = strlen(x->own_report[j]);
				hit = !strncmp(w[i], x->own_report[j], k) && (!w[i][k] || w[i][k] == '=');
			}
	}
	for (i = 0; i < n; i++)
		free(w[i]);
	return hit;
}

int
rt_cases_auto(rt_trial_opts *o, char *why, size_t size)
{
	const rt_runner *r = rt_runner_of(o->runner);

	if (own_report(o)) {
		if (r->report_stdout)
			snprintf(why, size, "the command names its own report option: %s test "
			    "must write its %s report to stdout", r->name, r->report_add);
		else
			snprintf(why, size, "the command names its own report option: it must "
			    "write the report to $RETRIAL_JUNIT");
		return -1;
	}
	if (!r->report_var && !r->report_env) {
		snprintf(why, size, "%s has no report option retrial can add: the command "
		    "must write a JUnit report to $RETRIAL_JUNIT", r->name);
		return -1;
	}
	if (o->max_output < r->report_output)
		o->max_output = r->report_output;
	o->cases_auto = 1;
	return 0;
}

int
rt_cases_dir_open(rt_cases_dir *d, const char *path)
{
	d->path = path;
	d->fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return d->fd < 0 ? -1 : 0;
}

void
rt_cases_dir_close(rt_cases_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

char *
rt_cases_dir_make(rt_cases_dir *d)
{
	const char *tmp = getenv("TMPDIR");
	char *path = rt_xasprintf("%s/retrial-junit-XXXXXX", tmp && *tmp ? tmp : "/tmp");

	if (!mkdtemp(path) || rt_cases_dir_open(d, path) < 0)
		rt_die("%s:", path);
	return path;
}

void
rt_cases_dir_remove(rt_cases_dir *d, char *path)
{
	struct dirent *e;
	DIR *dir;
	int fd;

	if (!path)
		return;
	if (d->fd >= 0 && (fd = dup(d->fd)) >= 0 && (dir = fdopendir(fd))) {
		while ((e = readdir(dir)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
			    unlinkat(d->fd, e->d_name, 0) < 0 && errno == EISDIR)
				unlinkat(d->fd, e->d_name, AT_REMOVEDIR);
		closedir(dir);
	}
	rt_cases_dir_close(d);
	if (rmdir(path) < 0)
		rt_warn("%s:", path);
	free(path);
}

static const char *
not_regular(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISCHR(m) ?
	    "a character device" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ?
	    "a socket" : S_ISLNK(m) ? "a symbolic link" : "not a file";
}

typedef struct {
	rt_case_set *set;
	rt_junit_fn fn;
	void *ctx;
} tee;

static int
on_rec(json_t *rec, void *ctx)
{
	tee *t = ctx;
	const char *id = json_string_value(json_object_get(rec, "case"));
	const char *oc = json_string_value(json_object_get(rec, "outcome"));
	const char *msg = json_string_value(json_object_get(rec, "message"));
	json_t *rj = json_object_get(rec, "repeat");
	long rep = json_is_integer(rj) && json_integer_value(rj) > 0 &&
	    json_integer_value(rj) <= 1000000 ? (long)json_integer_value(rj) : 1;
	rt_case_set *s = t->set;
	rt_case_out *c;
	rt_outcome o = RT_ERROR;
	size_t i;

	if (s && id && oc) {
		rt_outcome_parse(oc, &o);
		for (i = 0; i < s->n && strcmp(s->v[i].id, id); i++)
			;
		if (i == s->n) {
			if (s->n == s->cap) {
				s->cap = s->cap ? 2 * s->cap : 32;
				s->v = rt_xrealloc(s->v, s->cap * sizeof *s->v);
			}
			memset(&s->v[i], 0, sizeof s->v[i]);
			s->v[i].id = rt_xstrdup(id);
			s->v[i].repeat = rep;
			s->n++;
		}
		c = &s->v[i];
		/* a new repeat: the one before ended with its last attempt */
		if (c->attempts && rep != c->repeat &&
		    (c->outcome == RT_FAIL || c->outcome == RT_TIMEOUT))
			c->failed_repeats++;
		c->repeat = rep;
		c->outcome = o;
		c->attempts++;
		/* the message of a failed repeat is kept past later passes */
		if (!c->failed_repeats || (o != RT_PASS && o != RT_SKIP)) {
			free(c->message);
			c->message = msg ? rt_xstrdup(msg) : NULL;
		}
	}
	return t->fn ? t->fn(rec, t->ctx) : 0;
}

long
rt_cases_trial(rt_cases_dir *d, const rt_trial_opts *o, const rt_trial_result *res,
    rt_junit_fn fn, void *ctx, rt_case_set *set)
{
	char name[48], run[32], err[400], *path;
	rt_case_set scratch;
	rt_junit_opts jo;
	struct stat st;
	tee t;
	FILE *f = NULL;
	long r;
	int fd;

	if (!set) {
		memset(&scratch, 0, sizeof scratch);
		set = &scratch;
	}
	set->error[0] = '\0';
	set->refused = 0;
	t.set = set == &scratch ? NULL : set;
	t.fn = fn;
	t.ctx = ctx;
	snprintf(name, sizeof name, "trial-%ld.xml", res->trial);
	path = rt_xasprintf("%s/%s", d->path, name);
	memset(&jo, 0, sizeof jo);
	/* the trials of one collection (its shards too: one --seed) are one
	 * run of one checkout, so FLAKY may be judged across them without a
	 * revision (rt_rec_rev_key); the trial number tells them apart */
	snprintf(run, sizeof run, "seed:%llu", (unsigned long long)o->seed);
	jo.run = run;
	jo.trial = res->trial;
	jo.revision = rt_junit_revision_env();
	jo.root = o->cwd;
	if ((fd = openat(d->fd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW |
	    O_NOCTTY | O_CLOEXEC)) < 0) {
		int e = errno;
		if (e == ELOOP) {
			set->refused = 1;
			snprintf(set->error, sizeof set->error, "%.300s: junit report is a symbolic "
			    "link, not a regular file; not read", path);
			unlinkat(d->fd, name, 0);
			free(path);
			return -1;
		}
		/* go test -json writes to stdout */
		if (rt_runner_of(o->runner)->report_stdout && res->out.data && res->out.len &&
		    (f = fmemopen(res->out.data, res->out.len, "r"))) {
			jo.report = "<stdout>";
			r = rt_cases_read(f, &jo, on_rec, &t, err, sizeof err);
			fclose(f);
			free(path);
			if (r < 0)
				snprintf(set->error, sizeof set->error, "stdout:%.380s", err);
			if (set == &scratch)
				rt_case_set_free(&scratch);
			return r;
		}
		snprintf(set->error, sizeof set->error, "no JUnit report at $RETRIAL_JUNIT (%s)%s%s",
		    strerror(e), rt_runner_of(o->runner)->no_report ? ": " : "",
		    rt_runner_of(o->runner)->no_report ? rt_runner_of(o->runner)->no_report : "");
		free(path);
		return -1;
	}
	if (fstat(fd, &st) < 0)
		st.st_mode = 0;
	if (!S_ISREG(st.st_mode)) {
		set->refused = 1;
		snprintf(set->error, sizeof set->error, "%.300s: junit report is %s, not a regular "
		    "file; not read", path, not_regular(st.st_mode));
		close(fd);
		unlinkat(d->fd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
		free(path);
		return -1;
	}
	if (!(f = fdopen(fd, "r")))
		rt_die("%s:", path);
	jo.report = path;
	r = rt_cases_read(f, &jo, on_rec, &t, err, sizeof err);
	fclose(f);
	if (r < 0)
		snprintf(set->error, sizeof set->error, "%.200s:%.190s", path, err);
	unlinkat(d->fd, name, 0);
	free(path);
	if (set == &scratch)
		rt_case_set_free(&scratch);
	return r;
}

/* Case i of set is id: the same ID, or, for a bare name (no "::"), the
 * one case whose ID is PKG::name (go test -json names a case by its
 * package; go test -run, go test -list and a Go user name it bare). */
static int
case_is(const rt_case_set *set, size_t i, const char *id)
{
	size_t n = strlen(id), m, j, hits = 0;

	if (strcmp(set->v[i].id, id) == 0)
		return 1;
	if (strstr(id, "::"))
		return 0;
	m = strlen(set->v[i].id);
	if (m < n + 2 || strcmp(set->v[i].id + m - n, id) != 0 ||
	    memcmp(set->v[i].id + m - n - 2, "::", 2) != 0)
		return 0;
	/* one package's only: an exact ID, or the name in two packages, is not it */
	for (j = 0; j < set->n; j++) {
		const char *o = set->v[j].id;
		size_t k = strlen(o);
		if (strcmp(o, id) == 0)
			return 0;
		if (k >= n + 2 && strcmp(o + k - n, id) == 0 && memcmp(o + k - n - 2, "::", 2) == 0)
			hits++;
	}
	return hits == 1;
}

/* Its outcome in the trial: a failure when any repeat's last attempt
 * failed (each repeat is judged), else its last attempt's. */
static rt_outcome
final_outcome(const rt_case_out *c)
{
	return c->failed_repeats && c->outcome != RT_TIMEOUT ? RT_FAIL : c->outcome;
}

rt_outcome
rt_cases_judge(const rt_case_set *set, const char *id, long trial, char *why, size_t size)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		if (!case_is(set, i, id))
			continue;
		if (final_outcome(&set->v[i]) != set->v[i].outcome)
			return final_outcome(&set->v[i]);
		if (set->v[i].outcome == RT_SKIP) {
			snprintf(why, size, "case %s was skipped in trial %ld", id, trial);
			return RT_ERROR;
		}
		if (set->v[i].outcome == RT_ERROR)
			snprintf(why, size, "case %s did not run in trial %ld: %s", id, trial,
			    set->v[i].message ? set->v[i].message : "an error");
		return set->v[i].outcome;
	}
	if (set->error[0])
		snprintf(why, size, "case %s: no outcome in trial %ld: %s", id, trial, set->error);
	else
		snprintf(why, size, "case %s did not run in trial %ld (the runner reported "
		    "%zu case%s)", id, trial, set->n, set->n == 1 ? "" : "s");
	return RT_ERROR;
}

json_t *
rt_cases_others_failed(const rt_case_set *set, const char *id)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < set->n; i++)
		if (final_outcome(&set->v[i]) == RT_FAIL && (!id || !case_is(set, i, id)))
			json_array_append_new(a, json_string(set->v[i].id));
	return a;
}

void
rt_case_set_free(rt_case_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		free(set->v[i].id);
		free(set->v[i].message);
	}
	free(set->v);
	set->v = NULL;
	set->n = set->cap = 0;
}

/* ---- reports of any kind ---- */

/* Append f's bytes to b up to the end of a line (stop_at_nl) or of f;
 * -1 when b would pass RT_REPORT_MAX. */
static int
read_into(FILE *f, rt_buf *b, int stop_at_nl)
{
	char chunk[65536];
	size_t n;
	int c;

	if (stop_at_nl) {
		while ((c = getc(f)) != EOF) {
			if (b->len >= RT_REPORT_MAX)
				return -1;
			rt_buf_addc(b, (char)c);
			if (c == '\n')
				break;
		}
		return 0;
	}
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b->len + n > RT_REPORT_MAX)
			return -1;
		rt_buf_add(b, chunk, n);
	}
	return 0;
}

/* The runner whose report doc is, or NULL. */
static const rt_runner *
doc_runner(const json_t *doc)
{
	const rt_runner *r;
	int k;

	for (k = 0; k < RT_RUNNER_NKINDS; k++)
		if ((r = rt_runner_of((rt_runner_kind)k))->doc_is_report && r->doc_is_report(doc))
			return r;
	return NULL;
}

/* The runner whose event stream starts with the object first, or NULL. */
static const rt_runner *
stream_runner(const json_t *first)
{
	const rt_runner *r;
	int k;

	for (k = 0; k < RT_RUNNER_NKINDS; k++)
		if ((r = rt_runner_of((rt_runner_kind)k))->stream_claims && r->stream_claims(first))
			return r;
	return NULL;
}

/* A report that starts with "{": an event stream is one event a line, a
 * document (jest --json) one JSON value (one line as jest writes it). A
 * whole first line tells them apart; else the document is read whole, at
 * most RT_REPORT_MAX. */
static long
brace_read(FILE *f, const rt_junit_opts *o, rt_junit_fn fn, void *ctx,
    char *err, size_t errsize)
{
	rt_buf b = { 0 };
	const rt_runner *r, *go = NULL;
	json_t *doc;
	json_error_t je;
	FILE *m;
	long n;
	int k;

	if (read_into(f, &b, 1) < 0)
		goto big;
	doc = json_loadb(b.data, b.len, 0, &je);
	if (!doc_runner(doc) && (r = stream_runner(doc))) {
		json_decref(doc);
		/* the first event: the stream reader owns the line from here */
		return r->stream_read(f, b.data, b.cap, (ssize_t)b.len, o, fn, ctx, err, errsize);
	}
	if (!doc_runner(doc)) {
		json_decref(doc);
		if (read_into(f, &b, 0) < 0)
			goto big;
		doc = json_loadb(b.data, b.len, 0, &je);
	}
	if ((r = doc_runner(doc))) {
		n = r->doc_read(doc, o, fn, ctx, err, errsize);
		json_decref(doc);
		rt_buf_free(&b);
		return n;
	}
	json_decref(doc);
	if (!doc && b.len >= 14 && strstr(rt_buf_str(&b), "\"testResults\"")) {
		/* a jest report cut short (the runner was killed) or damaged */
		snprintf(err, errsize, "%d:%d: jest --json report: %s", je.line, je.column, je.text);
		rt_buf_free(&b);
		return -1;
	}
	/* lines that are not events (a build error on the same stream) before
	 * the first event: the stream reader passes over them */
	for (k = 0; k < RT_RUNNER_NKINDS && !go; k++)
		if (rt_runner_of((rt_runner_kind)k)->stream_read)
			go = rt_runner_of((rt_runner_kind)k);
	if (!(m = fmemopen(b.data, b.len, "r")))
		rt_die("fmemopen:");
	n = go->stream_read(m, NULL, 0, -1, o, fn, ctx, err, errsize);
	fclose(m);
	rt_buf_free(&b);
	return n;
big:
	rt_buf_free(&b);
	snprintf(err, errsize, "1: larger than %zu MiB, the most retrial reads of one "
	    "JSON report document", RT_REPORT_MAX >> 20);
	return -1;
}

long
rt_cases_read(FILE *f, const rt_junit_opts *o, rt_junit_fn fn, void *ctx,
    char *err, size_t errsize)
{
	const rt_runner *r;
	int c, k;

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
	for (k = 0; k < RT_RUNNER_NKINDS; k++)
		if ((r = rt_runner_of((rt_runner_kind)k))->stream_read)
			return r->stream_read(f, NULL, 0, -1, o, fn, ctx, err, errsize);
	snprintf(err, errsize, "1: %s", rt_runner_report_kinds());
	return -1;
}
