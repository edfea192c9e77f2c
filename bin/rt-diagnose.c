/* rt-diagnose: competing root-cause hypotheses, each with a patch, for a
 * flaky test — from models over a chat-completions API, a cache, or rules. */
#define _XOPEN_SOURCE 700  /* realpath(3): POSIX.1-2008, but glibc hides it */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "rt_cli.h"
#include "rt_config.h"
#include "rt_fix.h"
#include "rt_hash.h"
#include "rt_src.h"
#include "rt_http.h"
#include "rt_jsonl.h"
#include "rt_records.h"
#include "rt_runner.h"
#include "rt_patch.h"
#include "rt_platform.h"
#include "rt_text.h"
#include "rt_trial.h"
#include "rt_fs.h"
#include "rt_util.h"

#define DEFAULT_BASE "https://api.fireworks.ai/inference/v1"
#define MAX_MODELS 16
#define MAX_TRIES 3              /* per model, for 429 and 5xx */
#define MAX_RETRY_WAIT 60.0      /* longest Retry-After honoured, seconds */
#define MAX_SOURCE (256 * 1024)  /* bytes per --source file */
#define MAX_SOURCES (1024 * 1024)
#define MAX_EXCERPT 2000         /* bytes of stderr per excerpt */
#define MAX_FACTS 20             /* facts shown to a model */
#define MAX_EXPLANATION 600

static const char *usage_text =
"usage: rt-diagnose [-hVv] [-C dir] [-s file]... [-m models] [-t seconds]\n"
"                   [--cache dir] [--key-file file] [--max-response bytes]\n"
"                   [--max-probes n] [--max-tokens n] [--no-cache] [--offline]\n"
"                   [--rules] [--template file] [record-file ...]\n"
"       rt-diagnose --list-rules\n"
"  -C, --project DIR      project root; patch paths are relative to it (default .)\n"
"  -s, --source FILE      a source file the models see and may patch (repeatable)\n"
"  -m, --models LIST      comma-separated model names (default $RETRIAL_MODELS)\n"
"  -t, --timeout S        seconds per request (default 120)\n"
"      --cache DIR        hypothesis cache (default $XDG_CACHE_HOME/retrial)\n"
"      --key-file FILE    read the API key from FILE\n"
"      --list-rules       print each rule's trigger words and exit\n"
"      --max-response N   reject responses larger than N bytes (default 1048576)\n"
"      --max-probes N     delta-debugging probes per rule patch (default 30)\n"
"      --max-tokens N     the answer's token limit asked for (default 4096)\n"
"      --no-cache         neither read nor write the cache\n"
"      --offline          use only the caches (and --rules); never open a socket\n"
"      --rules            add rule-based hypotheses from the evidence\n"
"      --template FILE    the prompt template (default share/retrial/prompt.txt)\n"
"  -v, --verbose          log cache lookups and requests (never the key) to stderr\n"
"  -h, --help             print this help\n"
"  -V, --version          print the version\n";

/* The cause classes (rt-diagnose(1), CAUSE CLASSES). */
static const char *const classes[] = {
	"randomness", "order_dependency", "hash_order", "shared_state", "timing",
	"race_condition", "external_dependency", "resource_leak", "time_of_day",
	"unknown", NULL
};

/* Each model looks through one lens, so N models give N different ideas. */
typedef struct {
	const char *id, *lens;
	const char *classes[3];
} angle;

static const angle angles[] = {
	{ "timing", "timing and concurrency: sleeps used as waits, races between "
	  "threads or processes, timeouts, work that takes a variable time",
	  { "timing", "race_condition", NULL } },
	{ "state", "state that outlives a test or a run: globals, files, caches, "
	  "databases, locks or ports left behind, and the order things run in",
	  { "shared_state", "order_dependency", "resource_leak" } },
	{ "randomness", "nondeterministic inputs: random numbers and their seeds, "
	  "hash and set iteration order, unordered collections, the clock and date",
	  { "randomness", "hash_order", "time_of_day" } },
	{ "environment", "the world outside the process: network, DNS and other "
	  "services, time zone and locale, CPU load, memory, file descriptors",
	  { "external_dependency", "resource_leak", "time_of_day" } },
};
#define NANGLES (sizeof angles / sizeof angles[0])

typedef struct {
	char *rel, *text;
	size_t len;
	char sha[65];
} source;

typedef struct {
	json_t *measure, *diff, *facts, *experiments;
	json_t *order;                    /* the first rt-bisect order record */
	char *trial_command;
	char *fail_stderr, *pass_stderr;  /* the excerpts, from either stream */
	int fail_stream, pass_stream;     /* RT_STDERR, RT_STDOUT */
	long trials, failures, timeouts, errors;  /* from trial records */
	json_t *case_fails;               /* per-case trial records: ID -> failures */
	char *case_file;                  /* the file that held them (not stdin) */
	json_t *case_runs;                /* ID -> trials it passed or failed */
	/* the seed rule judged by the victim: trial -> {runner: seed}, and
	 * ID -> {trial: 1 failed, 0 passed} */
	json_t *trial_seeds, *case_outs;
	/* a failing clock check (the timing rule): its site and the measured
	 * values the failure messages print */
	char *clock_file;
	long clock_line, clock_values, ex_values;
	double clock_max, ex_max;         /* ex_: a diff record's excerpt's */
} evidence;

typedef struct {
	const char *model;
	const angle *ang;
	char key[65];
	int json_mode, tries, done;
	double wait_s;           /* the server's Retry-After before the next try */
	json_t *hyp;
} lane;

static struct {
	const char *project, *cache_opt, *key_file, *models_opt, *template_path;
	double timeout;
	long max_response, max_tokens, max_probes;
	int offline, rules, no_cache, verbose;
} opt = { ".", NULL, NULL, NULL, NULL, 120, 1 << 20, 4096, 30, 0, 0, 0, 0 };

static char *root;          /* realpath of the project */
static source *src;
static size_t nsrc;
static char *api_key;       /* never printed, never stored */
static char *template_text;
static char *user_cache;    /* NULL: no user cache */
static char digest[65];     /* evidence_digest */
static volatile sig_atomic_t got_sig;  /* SIGINT, SIGTERM or SIGHUP, once caught */
static char srckey[65];     /* the sources-only cache key */

static void
on_signal(int s)
{
	got_sig = s;
}

static void
vlog(const char *fmt, ...)
{
	va_list ap;

	if (!opt.verbose)
		return;
	va_start(ap, fmt);
	rt_vwarn(fmt, ap);
	va_end(ap);
}

/* ---- secrets ---------------------------------------------------------- */

/* Is the key one worth looking for in text? A placeholder shorter than
 * MIN_SECRET (the "EMPTY" or "none" a local server takes) would match
 * ordinary words and mangle explanations and patches. */
#define MIN_SECRET 8
static int
key_secret(void)
{
	return api_key && strlen(api_key) >= MIN_SECRET;
}

/* Replace every occurrence of the key in every string of v: a hostile or
 * echoing server must not get the key into a record or the cache. */
static void
redact(json_t *v)
{
	const char *k, *s, *hit;
	json_t *x;
	size_t i, kl;
	rt_buf b = {0};

	if (!key_secret() || !v)
		return;
	kl = strlen(api_key);
	if (json_is_object(v)) {
		json_object_foreach(v, k, x)
			redact(x);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			redact(x);
	} else if (json_is_string(v) && strstr(s = json_string_value(v), api_key)) {
		while ((hit = strstr(s, api_key))) {
			rt_buf_add(&b, s, (size_t)(hit - s));
			rt_buf_adds(&b, "[redacted]");
			s = hit + kl;
		}
		rt_buf_adds(&b, s);
		json_string_set(v, b.data);
		rt_buf_free(&b);
	}
}

static char *
load_key(void)
{
	char *k = NULL;
	size_t n, i;

	if (opt.key_file) {
		if (!(k = rt_read_file(opt.key_file, NULL)))
			rt_die("--key-file %s:", opt.key_file);
	} else if (!(k = rt_secret_take("RETRIAL_API_KEY")) || !*k) {
		free(k);
		if ((k = rt_secret_take("FIREWORKS_API_KEY")) && !*k) {
			free(k);
			k = NULL;
		}
	}
	if (!k)
		return NULL;
	n = strlen(k);
	while (n > 0 && isspace((unsigned char)k[n - 1]))
		k[--n] = '\0';
	for (i = 0; i < n; i++)
		if ((unsigned char)k[i] < 0x20 || k[i] == 0x7f)
			rt_die("the API key contains a control character (a line break?)");
	if (n == 0) {
		free(k);
		return NULL;
	}
	return k;
}

/* ---- small helpers ---------------------------------------------------- */

static const char *
jstr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

static int
jint(json_t *o, const char *k, long *out)
{
	json_t *v = json_object_get(o, k);
	if (json_is_integer(v)) {
		*out = (long)json_integer_value(v);
		return 1;
	}
	/* a real only when it is a whole number a long holds: (long)1e300 is
	 * undefined */
	if (json_is_real(v)) {
		double d = json_real_value(v);
		if (d > -9.0e15 && d < 9.0e15 && d == (double)(long)d) {
			*out = (long)d;
			return 1;
		}
	}
	return 0;
}

static int
jtrue(json_t *o, const char *k)
{
	return json_is_true(json_object_get(o, k));
}

/* Cut s to at most max bytes on a UTF-8 boundary. */
static char *
cut_utf8(const char *s, size_t max, int ellipsis)
{
	size_t n = strlen(s);
	char *r;

	if (n <= max)
		return rt_xstrdup(s);
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	r = rt_xmalloc(max + 4);
	memcpy(r, s, max);
	if (ellipsis)
		memcpy(r + max, "\xE2\x80\xA6", 4);
	else
		r[max] = '\0';
	return r;
}

static char *
lowercase(const char *s)
{
	char *r = rt_xstrdup(s), *p;
	for (p = r; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return r;
}

static int
contains_ci(const char *hay, const char *needle)
{
	char *h = lowercase(hay);
	int r = strstr(h, needle) != NULL;
	free(h);
	return r;
}

static int
mkdir_p(const char *path, mode_t mode)
{
	char *p = rt_xstrdup(path), *s;
	int rc = 0;

	for (s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, mode) < 0 && errno != EEXIST) {
				rc = -1;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return rc;
}

/* ---- cause classes ---------------------------------------------------- */

static const char *
class_norm(const char *s)
{
	static const char *const syn[][2] = {
		{ "race", "race_condition" }, { "concurrency", "race_condition" },
		{ "data_race", "race_condition" }, { "thread_race", "race_condition" },
		{ "order", "order_dependency" }, { "ordering", "order_dependency" },
		{ "test_order", "order_dependency" }, { "order_dependent", "order_dependency" },
		{ "hash", "hash_order" }, { "hash_ordering", "hash_order" },
		{ "hash_randomization", "hash_order" }, { "random", "randomness" },
		{ "nondeterminism", "randomness" }, { "state", "shared_state" },
		{ "global_state", "shared_state" }, { "state_leak", "shared_state" },
		{ "time", "timing" }, { "timeout", "timing" }, { "sleep", "timing" },
		{ "async_wait", "timing" }, { "network", "external_dependency" },
		{ "external", "external_dependency" }, { "io", "external_dependency" },
		{ "environment", "external_dependency" }, { "leak", "resource_leak" },
		{ "resource", "resource_leak" }, { "resources", "resource_leak" },
		{ "clock", "time_of_day" }, { "date", "time_of_day" },
		{ "timezone", "time_of_day" }, { "time_zone", "time_of_day" },
	};
	char buf[64];
	size_t i, n = 0;

	if (!s)
		return "unknown";
	while (isspace((unsigned char)*s))
		s++;
	for (; *s && n + 1 < sizeof buf; s++)
		buf[n++] = (*s == ' ' || *s == '-') ? '_' : (char)tolower((unsigned char)*s);
	while (n > 0 && (buf[n - 1] == '_' || buf[n - 1] == '.'))
		n--;
	buf[n] = '\0';
	for (i = 0; classes[i]; i++)
		if (!strcmp(buf, classes[i]))
			return classes[i];
	for (i = 0; i < sizeof syn / sizeof syn[0]; i++)
		if (!strcmp(buf, syn[i][0]))
			return syn[i][1];
	return "unknown";
}

/* ---- the project and its sources -------------------------------------- */

/* Is rel, once symlinks are resolved as far as it exists, inside root? */
static int
inside_root(const char *rel)
{
	char *p = rt_xasprintf("%s/%s", root, rel), *r, *slash;
	size_t rl = strlen(root);
	int ok = 0;

	for (;;) {
		if ((r = realpath(p, NULL))) {
			ok = strncmp(r, root, rl) == 0 && (r[rl] == '/' || r[rl] == '\0');
			free(r);
			break;
		}
		if (!(slash = strrchr(p, '/')) || slash == p)
			break;
		*slash = '\0';
	}
	free(p);
	return ok;
}

/* Check a relative path by the rules rt_patch applies to every diff. */
static int
path_ok(const char *rel, char *err, size_t errsize)
{
	char *d, **paths;
	size_t np;
	int rc;

	if (strchr(rel, '\n') || strchr(rel, '\r')) {
		snprintf(err, errsize, "unsafe path: has a control character");
		return -1;
	}
	d = rt_xasprintf("--- a/%s\n+++ b/%s\n@@ -0,0 +1 @@\n+x\n", rel, rel);
	rc = rt_patch_paths(d, &paths, &np, err, errsize);
	free(d);
	if (rc == 0)
		rt_patch_paths_free(paths, np);
	return rc;
}

static int
cmp_source(const void *a, const void *b)
{
	return strcmp(((const source *)a)->rel, ((const source *)b)->rel);
}

static void
add_source(const char *arg)
{
	char *cand, *rp, err[256];
	size_t rl = strlen(root), i, total = 0;
	struct stat st;
	source *s;

	/* a relative FILE is looked up in the project first, then here */
	if (arg[0] == '/')
		cand = rt_xstrdup(arg);
	else {
		cand = rt_xasprintf("%s/%s", root, arg);
		if (access(cand, F_OK) < 0) {
			free(cand);
			cand = rt_xstrdup(arg);
		}
	}
	if (!(rp = realpath(cand, NULL)))
		rt_die("--source %s:", arg);
	free(cand);
	if (strncmp(rp, root, rl) != 0 || (rp[rl] != '/' && rp[rl] != '\0'))
		rt_die("--source %s: outside the project directory %s", arg, root);
	if (stat(rp, &st) < 0 || !S_ISREG(st.st_mode))
		rt_die("--source %s: not a regular file", arg);
	if (st.st_size > MAX_SOURCE)
		rt_die("--source %s: larger than %d bytes", arg, MAX_SOURCE);
	if (path_ok(rp + rl + 1, err, sizeof err) < 0)
		rt_die("--source %s: %s", arg, err);
	for (i = 0; i < nsrc; i++) {
		if (!strcmp(src[i].rel, rp + rl + 1)) {
			free(rp);
			return;
		}
		total += src[i].len;
	}
	src = rt_xrealloc(src, (nsrc + 1) * sizeof *src);
	s = &src[nsrc++];
	s->rel = rt_xstrdup(rp + rl + 1);
	if (!(s->text = rt_read_file(rp, &s->len)))
		rt_die("--source %s:", arg);
	free(rp);
	if (memchr(s->text, '\0', s->len))
		rt_die("--source %s: a binary file (it holds NUL bytes)", arg);
	if (total + s->len > MAX_SOURCES)
		rt_die("--source %s: the sources exceed %d bytes in all", arg, MAX_SOURCES);
	rt_sha256_hex(s->text, s->len, s->sha);
}

/* The text of a project file (a source, or read from the project), NULL
 * when it does not exist. */
static char *
project_text(const char *rel)
{
	char *p, *t;
	size_t i;
	struct stat st;

	for (i = 0; i < nsrc; i++)
		if (!strcmp(src[i].rel, rel))
			return rt_xstrdup(src[i].text);
	p = rt_xasprintf("%s/%s", root, rel);
	t = (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= MAX_SOURCES) ?
	    rt_read_file(p, NULL) : NULL;
	free(p);
	return t;
}

/* ---- evidence --------------------------------------------------------- */

/* The failure excerpt of a record: a diff record's "excerpt" with its
 * "stream", else of a trial record's (or an older diff record's) stdout
 * and stderr the stream that holds the failure (rt_failure_stream). */
static void
keep_excerpt(char **dst, int *stream, json_t *rec)
{
	const char *s = jstr(rec, "excerpt"), *out = jstr(rec, "stdout"),
	    *err = jstr(rec, "stderr"), *st = jstr(rec, "stream");
	size_t n, off, len;
	char *t;

	if (*dst || (!s && !out && !err))
		return;
	if (s) {
		*stream = st && !strcmp(st, "stdout") ? RT_STDOUT : RT_STDERR;
		*dst = cut_utf8(s, MAX_EXCERPT, 1);
	} else {
		out = out ? out : "";
		err = err ? err : "";
		*stream = rt_failure_stream(out, strlen(out), err, strlen(err),
		    MAX_EXCERPT, &off, &len);
		s = *stream == RT_STDOUT ? out : err;
		t = rt_xmalloc(len + 1);
		memcpy(t, s + off, len);
		t[len] = '\0';
		*dst = cut_utf8(t, MAX_EXCERPT, 1);
		free(t);
	}
	n = strlen(*dst);
	while (n > 0 && ((*dst)[n - 1] == '\n' || (*dst)[n - 1] == '\r'))
		(*dst)[--n] = '\0';
}

/* The timing rule's evidence from one failure's text (rt-diagnose(1),
 * Rule patches): the measured value a clock check printed (jest's
 * "Received: 25.1" under toBeLessThan, pytest's "E   assert 0.03 < 0.01")
 * and, once, the check's site, the first "PATH:LINE" of a test source
 * that exists in the project (jest's "at Object.toBeLessThan
 * (__tests__/x.test.js:10:37)", pytest's "tests/test_x.py:14:
 * AssertionError"). */
static void
clock_scan(evidence *ev, const char *text, int excerpt)
{
	static const char *const exts[] = { ".js:", ".ts:", ".jsx:", ".tsx:",
		".mjs:", ".cjs:", ".py:", NULL };
	const char *p, *q, *e;
	char *end, *rel, *path, err[200];
	double v;
	long line;
	size_t i;
	struct stat st;
	int jest = strstr(text, "toBeLessThan") != NULL;

	if (!jest && !strstr(text, "assert "))
		return;
	for (p = text; (p = strstr(p, jest ? "Received:" : "assert ")); p++) {
		if (!jest) {
			/* pytest's rewritten assertion: a line "E   assert N < M" */
			for (q = p; q > text && q[-1] == ' '; q--)
				;
			if (q == text || q[-1] != 'E' || (q - 1 > text && q[-2] != '\n'))
				continue;
		}
		q = strchr(p, jest ? ':' : ' ') + 1;
		while (*q == ' ')
			q++;
		errno = 0;
		v = strtod(q, &end);
		if (end == q || errno || !isfinite(v) || v <= 0)
			continue;
		if (!jest && strncmp(end, " <", 2) != 0)
			continue;
		if (excerpt) {
			if (ev->ex_values++ == 0 || v > ev->ex_max)
				ev->ex_max = v;
		} else if (ev->clock_values++ == 0 || v > ev->clock_max) {
			ev->clock_max = v;
		}
	}
	if (ev->clock_file)
		return;
	for (i = 0; exts[i]; i++)
		for (p = text; (p = strstr(p, exts[i])); p++) {
			e = p + strlen(exts[i]);
			if (!isdigit((unsigned char)*e))
				continue;
			for (q = p; q > text && !isspace((unsigned char)q[-1]) &&
			    q[-1] != '(' && q[-1] != '"' && q[-1] != '\''; q--)
				;
			line = strtol(e, &end, 10);
			if (*q == '/' || line < 1 || line > 1000000)
				continue;
			rel = rt_xasprintf("%.*s", (int)(e - 1 - q), q);
			path = rt_xasprintf("%s/%s", root, rel);
			if (!strstr(rel, "node_modules") && strcmp(rel, "") && path_ok(rel, err, sizeof err) == 0 &&
			    stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
				ev->clock_file = rel;
				ev->clock_line = line;
				free(path);
				return;
			}
			free(rel);
			free(path);
		}
}

/* A case's outcome in trial t (the seed rule's victim judgement). */
static void
case_out(evidence *ev, const char *id, json_int_t t, int failed)
{
	char k[32];
	json_t *o = json_object_get(ev->case_outs, id);

	if (!o)
		json_object_set_new(ev->case_outs, id, (o = json_object()));
	snprintf(k, sizeof k, "%lld", (long long)t);
	json_object_set_new(o, k, json_integer(failed));
}

/* The first seed of each runner that trial t's output printed. */
static void
trial_seeds(evidence *ev, json_int_t t, json_t *rec)
{
	static const char *const streams[] = { "stdout", "stderr" };
	char k[32], *v;
	const char *s;
	size_t i, pos;
	rt_seed sd;
	json_t *o = json_object();

	for (i = 0; i < 2; i++)
		if ((s = jstr(rec, streams[i])))
			for (pos = 0; rt_seed_next(s, strlen(s), &pos, &sd); )
				if (!json_object_get(o, sd.runner)) {
					v = rt_xasprintf("%.*s", (int)sd.len, s + sd.off);
					json_object_set_new(o, sd.runner, json_string(v));
					free(v);
				}
	snprintf(k, sizeof k, "%lld", (long long)t);
	if (json_object_size(o))
		json_object_set_new(ev->trial_seeds, k, o);
	else
		json_decref(o);
}

static int
on_record(json_t *rec, const rt_where *w, void *ctx)
{
	evidence *ev = ctx;
	const char *type = rt_rec_str(rec, "type", w), *o;
	json_t *facts, *f, *c;
	size_t i;

	if (!strcmp(type, "measure")) {
		rt_rec_check(RT_REC_MEASURE, rec, w);
		if (!ev->measure)
			ev->measure = json_incref(rec);
	} else if (!strcmp(type, "diff")) {
		if (ev->diff)
			return 0;
		ev->diff = json_incref(rec);
		/* excerpts a diff record may carry, when no trial record is given */
		c = json_object_get(rec, "excerpts");
		keep_excerpt(&ev->fail_stderr, &ev->fail_stream, json_object_get(c, "failing"));
		keep_excerpt(&ev->pass_stderr, &ev->pass_stream, json_object_get(c, "passing"));
		if (jstr(json_object_get(c, "failing"), "excerpt"))
			clock_scan(ev, jstr(json_object_get(c, "failing"), "excerpt"), 1);
		facts = json_object_get(rec, "facts");
		if (facts && !json_is_array(facts))
			rt_die_at(w, "\"facts\" is not an array");
		json_array_foreach(facts, i, f)
			if (json_is_object(f))
				json_array_append(ev->facts, f);
	} else if (!strcmp(type, "fact")) {
		c = json_deep_copy(rec);
		json_object_del(c, "type");
		json_array_append_new(ev->facts, c);
	} else if (!strcmp(type, "experiment")) {
		json_array_append(ev->experiments, rec);
	} else if (!strcmp(type, "order")) {
		rt_rec_str(rec, "victim", w);
		if ((c = json_object_get(rec, "probes")) && !json_is_array(c))
			rt_die_at(w, "\"probes\" is not an array");
		if (!ev->order)
			ev->order = json_incref(rec);
	} else if (!strcmp(type, "trial")) {
		o = rt_rec_str(rec, "outcome", w);
		if (!ev->trial_command && jstr(rec, "command"))
			ev->trial_command = rt_xstrdup(jstr(rec, "command"));
		if (!strcmp(o, "fail") || !strcmp(o, "timeout")) {
			ev->trials++;
			ev->failures++;
			if (!strcmp(o, "timeout"))
				ev->timeouts++;
			keep_excerpt(&ev->fail_stderr, &ev->fail_stream, rec);
			if (!json_is_string(json_object_get(rec, "case"))) {
				if (jstr(rec, "stdout"))
					clock_scan(ev, jstr(rec, "stdout"), 0);
				if (jstr(rec, "stderr"))
					clock_scan(ev, jstr(rec, "stderr"), 0);
			}
		} else if (!strcmp(o, "pass")) {
			ev->trials++;
			keep_excerpt(&ev->pass_stderr, &ev->pass_stream, rec);
		} else if (!strcmp(o, "error")) {
			ev->errors++;
		}
		/* a test case's own record (rt-collect --junit): the victim */
		if (json_is_string(json_object_get(rec, "case"))) {
			const char *id = jstr(rec, "case");
			json_int_t k = json_integer_value(json_object_get(ev->case_fails, id));
			int failed = !strcmp(o, "fail") || !strcmp(o, "timeout");
			if (!ev->case_file && strcmp(w->file, "<stdin>") != 0)
				ev->case_file = rt_xstrdup(w->file);
			if (failed)
				json_object_set_new(ev->case_fails, id, json_integer(k + 1));
			if (failed || !strcmp(o, "pass")) {
				json_int_t n = json_integer_value(json_object_get(ev->case_runs, id));
				json_object_set_new(ev->case_runs, id, json_integer(n + 1));
				if (json_is_integer(json_object_get(rec, "trial")))
					case_out(ev, id, json_integer_value(json_object_get(rec, "trial")), failed);
			}
		} else if (json_is_integer(json_object_get(rec, "trial"))) {
			trial_seeds(ev, json_integer_value(json_object_get(rec, "trial")), rec);
		}
	}
	return 0;
}

static const char *
ev_command(const evidence *ev)
{
	const char *c = NULL;

	if (ev->measure)
		c = jstr(ev->measure, "command");
	if (!c && ev->diff)
		c = jstr(ev->diff, "command");
	if (!c && !ev->trial_command && ev->order)
		c = jstr(ev->order, "command");
	return c ? c : ev->trial_command;
}

/* trials/failures/timeouts/errors: the measurement's, else the diff's,
 * else counted from trial records. 0 when nothing says. */
static int
ev_counts(const evidence *ev, long c[4])
{
	json_t *m = ev->measure ? ev->measure : ev->diff;

	memset(c, 0, 4 * sizeof *c);
	if (m && jint(m, "trials", &c[0])) {
		jint(m, "failures", &c[1]);
		jint(m, "timeouts", &c[2]);
		jint(m, "errors", &c[3]);
		return 1;
	}
	if (ev->trials || ev->errors) {
		c[0] = ev->trials;
		c[1] = ev->failures;
		c[2] = ev->timeouts;
		c[3] = ev->errors;
		return 1;
	}
	return 0;
}

static json_t *
pick(json_t *o, const char *const *keys)
{
	json_t *r = json_object(), *v;

	for (; *keys; keys++)
		if ((v = json_object_get(o, *keys)))
			json_object_set(r, *keys, v);
	return r;
}

/* The evidence as the cache key sees it: what the model is shown, minus
 * what varies without meaning (timestamps, elapsed times, p-value digits). */
static char *order_text(const evidence *ev);
static char *order_sources_text(const evidence *ev);

static json_t *
ev_normalize(const evidence *ev)
{
	static const char *const fk[] = { "kind", "stream", "value", "direction",
	    "in_failures", "failures", "in_successes", "successes", NULL };
	static const char *const ck[] = { "trials", "failures", "timeouts", "errors", NULL };
	static const char *const ek[] = { "name", "perturbation", "probe", "effect",
	    "implicated", "changed", NULL };
	json_t *n = json_object(), *a, *f, *e;
	const char *cmd = ev_command(ev), *tok = ev->diff ? jstr(ev->diff, "token") : NULL;
	long c[4];
	size_t i;

	json_object_set_new(n, "command", cmd ? json_string(cmd) : json_null());
	if (ev_counts(ev, c))
		json_object_set_new(n, "counts", json_pack("{sI sI sI sI}", "trials",
		    (json_int_t)c[0], "failures", (json_int_t)c[1], "timeouts",
		    (json_int_t)c[2], "errors", (json_int_t)c[3]));
	json_object_set_new(n, "token", tok ? json_string(tok) : json_null());
	a = json_array();
	json_array_foreach(ev->facts, i, f)
		json_array_append_new(a, pick(f, fk));
	json_object_set_new(n, "facts", a);
	a = json_array();
	json_array_foreach(ev->experiments, i, f) {
		e = pick(f, ek);
		if (json_is_object(json_object_get(f, "control")))
			json_object_set_new(e, "control", pick(json_object_get(f, "control"), ck));
		if (json_is_object(json_object_get(f, "perturbed")))
			json_object_set_new(e, "perturbed", pick(json_object_get(f, "perturbed"), ck));
		json_array_append_new(a, e);
	}
	json_object_set_new(n, "experiments", a);
	json_object_set_new(n, "fail_excerpt", ev->fail_stderr ? json_string(ev->fail_stderr) : json_null());
	json_object_set_new(n, "pass_excerpt", ev->pass_stderr ? json_string(ev->pass_stderr) : json_null());
	if (ev->order) {   /* as the prompt shows it: the probes and the tests' source */
		char *t = order_text(ev), *st = order_sources_text(ev);
		json_object_set_new(n, "order", json_string(t));
		json_object_set_new(n, "order_sources", rt_json_bytes(st, strlen(st)));
		free(t);
		free(st);
	}
	return n;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* evidence_digest = SHA-256 over the normalized evidence and every source
 * (path and bytes); the sources key = SHA-256 over the sorted content
 * hashes of the sources alone (rt-diagnose(1), CACHE). */
static void
make_digests(const evidence *ev)
{
	json_t *n = ev_normalize(ev);
	char *s = json_dumps(n, JSON_COMPACT | JSON_SORT_KEYS), **shas;
	rt_hash *h = rt_hash_new();
	size_t i;

	rt_hash_adds(h, "retrial-evidence-v1");
	rt_hash_adds(h, s);
	for (i = 0; i < nsrc; i++) {
		rt_hash_adds(h, src[i].rel);
		rt_hash_add(h, src[i].text, src[i].len);
	}
	rt_hash_hex(h, digest);
	free(s);
	json_decref(n);

	shas = rt_xcalloc(nsrc, sizeof *shas);
	for (i = 0; i < nsrc; i++)
		shas[i] = src[i].sha;
	qsort(shas, nsrc, sizeof *shas, cmp_str);
	h = rt_hash_new();
	rt_hash_adds(h, "retrial-sources-v1");
	for (i = 0; i < nsrc; i++)
		rt_hash_adds(h, shas[i]);
	rt_hash_hex(h, srckey);
	free(shas);
}

/* The exact key of one model's answer: the evidence (with the sources), the
 * prompt template, the model and its angle. */
static void
exact_key(const char *model, const angle *a, char out[65])
{
	rt_hash *h = rt_hash_new();

	rt_hash_adds(h, "retrial-hypothesis-v1");
	rt_hash_adds(h, digest);
	rt_hash_adds(h, template_text);
	rt_hash_adds(h, model);
	rt_hash_adds(h, a->id);
	rt_hash_hex(h, out);
}

/* ---- evidence as text ------------------------------------------------- */

/* A measurement as text: its summary, else its counts with their interval
 * (never a bare rate). */
static void
counts_text(rt_buf *b, json_t *m)
{
	long t, f;
	double conf = 0.95;
	const char *s = m ? jstr(m, "summary") : NULL;
	char text[160];

	if (s) {
		rt_buf_adds(b, s);
	} else if (m && jint(m, "trials", &t) && jint(m, "failures", &f) &&
	    t >= 0 && f >= 0 && f <= t) {
		if (json_is_number(json_object_get(m, "confidence")))
			conf = json_number_value(json_object_get(m, "confidence"));
		if (!(conf > 0 && conf < 1))
			conf = 0.95;
		rt_rate_text(text, sizeof text, f, t, conf);
		rt_buf_adds(b, text);
	} else {
		rt_buf_adds(b, "(no counts)");
	}
}

static char *
rate_text(const evidence *ev)
{
	rt_buf b = {0};
	const char *v;
	long c[4];

	if (ev->measure && jstr(ev->measure, "summary")) {
		rt_buf_adds(&b, jstr(ev->measure, "summary"));
		if ((v = jstr(ev->measure, "verdict")))
			rt_buf_printf(&b, "; verdict %s", v);
	} else if (ev_counts(ev, c) && c[0] >= 0 && c[1] >= 0 && c[1] <= c[0]) {
		char text[160];
		rt_rate_text(text, sizeof text, c[1], c[0], 0.95);
		rt_buf_adds(&b, text);
	} else {
		rt_buf_adds(&b, "(no measurement given)");
		return b.data;
	}
	if (ev_counts(ev, c)) {
		if (c[2] > 0)
			rt_buf_printf(&b, "; %ld of the failures were timeouts", c[2]);
		if (c[3] > 0)
			rt_buf_printf(&b, "; %ld trials hit an infrastructure error and are not counted", c[3]);
	}
	return b.data;
}

static void
fact_text(rt_buf *b, json_t *f)
{
	const char *kind = jstr(f, "kind"), *stream = jstr(f, "stream"),
	    *value = jstr(f, "value"), *dir = jstr(f, "direction");
	json_t *vv = json_object_get(f, "value");
	long inf, nf, ins, ns;
	double p;

	if (stream)
		rt_buf_printf(b, "%s ", stream);
	rt_buf_adds(b, kind ? kind : "fact");
	if (value)
		rt_buf_printf(b, " \"%s\"", value);
	else if (json_is_number(vv))
		rt_buf_printf(b, " %g", json_number_value(vv));
	if (dir)
		rt_buf_printf(b, ": %s", dir);
	if (jint(f, "in_failures", &inf) && jint(f, "failures", &nf)) {
		rt_buf_printf(b, " (in %ld of %ld failing runs", inf, nf);
		if (jint(f, "in_successes", &ins) && jint(f, "successes", &ns))
			rt_buf_printf(b, ", %ld of %ld passing runs", ins, ns);
		rt_buf_adds(b, ")");
	}
	if (json_is_number(json_object_get(f, "p"))) {
		p = json_number_value(json_object_get(f, "p"));
		rt_buf_printf(b, ", p = %.2g", p);
	}
}

static char *
facts_text(const evidence *ev)
{
	rt_buf b = {0};
	const char *d;
	json_t *f;
	size_t i;

	json_array_foreach(ev->facts, i, f) {
		if (i == MAX_FACTS) {
			rt_buf_printf(&b, "- (%zu more facts not shown)\n", json_array_size(ev->facts) - i);
			break;
		}
		rt_buf_adds(&b, "- ");
		if ((d = jstr(f, "detail"))) {
			/* rt-diff-facts' detail already gives the counts */
			json_t *c = json_deep_copy(f);
			json_object_del(c, "in_failures");
			fact_text(&b, c);
			json_decref(c);
			rt_buf_printf(&b, "; %s", d);
		} else {
			fact_text(&b, f);
		}
		rt_buf_addc(&b, '\n');
	}
	if (!b.len)
		rt_buf_adds(&b, "(no facts given)\n");
	return b.data;
}

static int
exp_moved(json_t *e)
{
	return jtrue(e, "implicated") || jtrue(e, "changed");
}

static void
exp_text(rt_buf *b, json_t *e)
{
	const char *name = jstr(e, "name"), *probe = jstr(e, "probe"),
	    *effect = jstr(e, "effect"), *note = jstr(e, "note");
	json_t *pert = json_object_get(e, "perturbation");
	char *ps = pert ? json_dumps(pert, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;

	rt_buf_printf(b, "- %s", name ? name : "experiment");
	if (ps)
		rt_buf_printf(b, " %s", ps);
	free(ps);
	if (probe && strcmp(probe, "ok") != 0) {
		rt_buf_printf(b, ": %s\n", probe);
		return;
	}
	rt_buf_adds(b, ": control ");
	counts_text(b, json_object_get(e, "control"));
	rt_buf_adds(b, "; perturbed ");
	counts_text(b, json_object_get(e, "perturbed"));
	if (effect)
		rt_buf_printf(b, "; %s", effect);
	if (note)
		rt_buf_printf(b, " (%s)", note);
	rt_buf_addc(b, '\n');
}

static char *
experiments_text(const evidence *ev)
{
	rt_buf b = {0}, rest = {0};
	json_t *e;
	size_t i;

	json_array_foreach(ev->experiments, i, e)
		if (exp_moved(e))
			exp_text(&b, e);
	json_array_foreach(ev->experiments, i, e)
		if (!exp_moved(e)) {
			const char *n = jstr(e, "name");
			rt_buf_printf(&rest, "%s%s", rest.len ? ", " : "", n ? n : "experiment");
		}
	if (rest.len)
		rt_buf_printf(&b, "- did not separate from the control at this budget: %s\n", rest.data);
	rt_buf_free(&rest);
	if (!b.len)
		rt_buf_adds(&b, "(no experiments given)\n");
	return b.data;
}

static char *
sources_text(void)
{
	rt_buf b = {0};
	size_t i;

	for (i = 0; i < nsrc; i++) {
		rt_buf_printf(&b, "----- FILE: %s -----\n", src[i].rel);
		rt_buf_add(&b, src[i].text, src[i].len);
		if (src[i].len && src[i].text[src[i].len - 1] != '\n')
			rt_buf_addc(&b, '\n');
		rt_buf_printf(&b, "----- END FILE: %s -----\n", src[i].rel);
	}
	if (!b.len)
		rt_buf_adds(&b, "(no source files given)\n");
	return b.data;
}

/* ---- order evidence: an rt-bisect record and the tests it names ------- */

/* How a test body uses a name (rt-diagnose(1), RULES, "order"). */
/* In rising strength: a test that assigns a name and calls it "mutates" it. */
enum { U_CALL, U_READ, U_METHOD, U_ASSIGN };

typedef struct {
	char *name, *use;   /* TestRegistry.registry; self.registry.register() */
	int kind, self;     /* self: reached through self or cls */
} pyuse;

typedef struct {
	const char *id;
	char *file, *cls, *func, *body;
	long line;          /* the def's line in file */
	pyuse *u;
	size_t nu;
} testsrc;

static const char *const py_keywords[] = { "False", "None", "True", "and",
	"as", "assert", "async", "await", "break", "class", "continue", "def",
	"del", "elif", "else", "except", "finally", "for", "from", "global", "if",
	"import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
	"return", "try", "while", "with", "yield", NULL };
static const char *const py_builtins[] = { "abs", "all", "any", "bool",
	"bytes", "callable", "chr", "dict", "dir", "enumerate", "filter", "float",
	"frozenset", "getattr", "hasattr", "hash", "id", "input", "int",
	"isinstance", "issubclass", "iter", "len", "list", "map", "max", "min",
	"next", "object", "open", "ord", "print", "range", "repr", "reversed",
	"round", "set", "setattr", "slice", "sorted", "str", "sum", "super",
	"tuple", "type", "vars", "zip", "Exception", "ValueError", "KeyError",
	"TypeError", "AssertionError", "RuntimeError", "IndexError",
	"AttributeError", "OSError", "StopIteration", "NotImplementedError", NULL };

static int
in_list(const char *const *l, const char *s, size_t n)
{
	for (; *l; l++)
		if (strlen(*l) == n && !strncmp(*l, s, n))
			return 1;
	return 0;
}

static int
id_start(int c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static int
id_char(int c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Map a test ID to its file, class and function: pytest's
 * "tests/test_x.py::TestA::test_b[param]", or unittest's dotted
 * "tests.test_x.TestA.test_b", the longest module prefix that is a file. */
static int
test_locate(const char *id, testsrc *t)
{
	const char *c = strstr(id, "::"), *last;
	char *s, *p, *f, err[256];
	size_t n;

	memset(t, 0, sizeof *t);
	t->id = id;
	if (c) {
		t->file = rt_xasprintf("%.*s", (int)(c - id), id);
		last = strrchr(id, ':') + 1;
		if (last - 2 > c)   /* a class between */
			t->cls = rt_xasprintf("%.*s", (int)(last - 2 - (c + 2)), c + 2);
		n = strcspn(last, "[");
		t->func = rt_xasprintf("%.*s", (int)n, last);
		if (t->cls && strstr(t->cls, "::"))  /* nested: the innermost class */
			memmove(t->cls, strrchr(t->cls, ':') + 1, strlen(strrchr(t->cls, ':')));
		return 0;
	}
	s = rt_xstrdup(id);
	while ((p = strrchr(s, '.'))) {
		*p = '\0';
		f = rt_xasprintf("%s.py", s);
		for (n = 0; f[n]; n++)
			if (f[n] == '.' && strcmp(f + n, ".py") != 0)
				f[n] = '/';
		if (path_ok(f, err, sizeof err) == 0 && inside_root(f) &&
		    (p = project_text(f))) {
			free(p);
			t->file = f;
			c = id + strlen(s) + 1;   /* "Class.func" or "func" */
			if ((last = strrchr(c, '.'))) {
				t->cls = rt_xasprintf("%.*s", (int)(last - c), c);
				t->func = rt_xstrdup(last + 1);
			} else {
				t->func = rt_xstrdup(c);
			}
			free(s);
			return 0;
		}
		free(f);
	}
	free(s);
	return -1;
}

static size_t
indent_of(const char *l)
{
	size_t n = 0;

	while (l[n] == ' ' || l[n] == '\t')
		n++;
	return n;
}

/* The def of func (inside class cls when given) and its body: the lines
 * indented deeper than the def, up to the first that is not. */
static char *
py_body(const char *text, const char *cls, const char *func, long *line)
{
	const char *l = text, *start = NULL, *e;
	size_t ind = 0, ci = 0, n;
	long ln = 1;
	int in_cls = cls == NULL;

	for (; *l; l = *e ? e + 1 : e, ln++) {
		e = strchr(l, '\n');
		if (!e)
			e = l + strlen(l);
		n = indent_of(l);
		if (start) {
			if (l + n == e || l[n] == '#' || n > ind)
				continue;
			break;
		}
		if (l + n == e)
			continue;
		if (cls && in_cls && n <= ci && strncmp(l + n, "@", 1) != 0)
			in_cls = 0;   /* the class ended */
		if (cls && !strncmp(l + n, "class ", 6) && !strncmp(l + n + 6, cls, strlen(cls)) &&
		    !id_char(l[n + 6 + strlen(cls)])) {
			in_cls = 1;
			ci = n;
			continue;
		}
		if (!in_cls)
			continue;
		if (!strncmp(l + n, "async ", 6))
			n += 6;
		if (!strncmp(l + n, "def ", 4) && !strncmp(l + n + 4, func, strlen(func)) &&
		    !id_char(l[n + 4 + strlen(func)])) {
			start = l;
			ind = indent_of(l);
			*line = ln;
		}
	}
	if (!start)
		return NULL;
	n = (size_t)(l - start);
	while (n > 0 && (start[n - 1] == '\n' || start[n - 1] == ' ' || start[n - 1] == '\t'))
		n--;
	return rt_xasprintf("%.*s", (int)n, start);
}

/* Is name assigned at the top level of the file (a module global)? */
static int
py_global(const char *text, const char *name, size_t n)
{
	const char *l;

	for (l = text; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *q = l + n;
		if (strncmp(l, name, n) != 0 || id_char(*q))
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if ((*q == '=' && q[1] != '=') || *q == ':')
			return 1;
	}
	return 0;
}

static const char *
skip_string(const char *p)
{
	char q = *p;
	int triple = p[1] == q && p[2] == q;

	for (p += triple ? 3 : 1; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == q && (!triple || (p[1] == q && p[2] == q))) {
			return p + (triple ? 3 : 1);
		} else if (*p == '\n' && !triple) {
			return p;
		}
	}
	return p;
}

typedef struct {
	char parts[8][64];
	size_t np;
	int kind;
	char text[256];
} chain;

/* The names a test body uses, with how it uses them. Locals (assigned
 * names, parameters, loop and with/except/lambda targets), keywords and
 * builtins are not state; self.x and cls.x are Class.x. */
static void
py_uses(testsrc *t, const char *file_text)
{
	const char *p = t->body, *q;
	char **locals = NULL, prev_kw[16] = "";
	size_t nl = 0, i, k, pass;
	int in_params = 0, depth = 0;

	for (pass = 0; pass < 2; pass++) {
	for (p = t->body, prev_kw[0] = '\0', in_params = 0, depth = 0; *p; ) {
		chain c;
		size_t n;

		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		if (*p == '"' || *p == '\'') {
			p = skip_string(p);
			continue;
		}
		if (in_params) {
			if (*p == '(')
				depth++;
			else if (*p == ')' && --depth == 0)
				in_params = 0;
		}
		if (!id_start(*p) || (p > t->body && (id_char(p[-1]) || p[-1] == '.'))) {
			if (*p == ':' && !strcmp(prev_kw, "lambda"))
				prev_kw[0] = '\0';
			p++;
			continue;
		}
		for (n = 0; id_char(p[n]); n++)
			;
		if (n <= 2 && strchr("rRbBuUfF", *p) && (n == 1 || strchr("rRbBuUfF", p[1])) &&
		    (p[n] == '"' || p[n] == '\'')) {
			p = skip_string(p + n);
			continue;
		}
		if (in_list(py_keywords, p, n)) {
			snprintf(prev_kw, sizeof prev_kw, "%.*s", (int)n, p);
			if (n == 3 && !strncmp(p, "def", 3)) {
				in_params = 1;
				depth = 0;
			}
			p += n;
			continue;
		}
		/* a chain a.b.c */
		memset(&c, 0, sizeof c);
		q = p;
		for (;;) {
			for (n = 0; id_char(q[n]); n++)
				;
			if (c.np < 8)
				snprintf(c.parts[c.np++], sizeof c.parts[0], "%.*s", (int)n, q);
			q += n;
			{
				const char *r = q;
				while (*r == ' ' || *r == '\t')
					r++;
				if (*r == '.' ) {
					r++;
					while (*r == ' ' || *r == '\t')
						r++;
					if (id_start(*r)) {
						q = r;
						continue;
					}
				}
			}
			break;
		}
		snprintf(c.text, sizeof c.text, "%.*s", (int)(q - p), p);
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '(')
			c.kind = U_CALL;
		else if ((*q == '=' && q[1] != '=') || (strchr("+-*/%&|^", *q) && *q &&
		    (q[1] == '=' || (q[1] == *q && q[2] == '='))))
			c.kind = U_ASSIGN;
		else if (*q == '[') {
			const char *r = q;
			int d = 0;
			for (; *r; r++)
				if (*r == '[')
					d++;
				else if (*r == ']' && --d == 0)
					break;
			if (*r)
				r++;
			while (*r == ' ' || *r == '\t')
				r++;
			c.kind = (*r == '=' && r[1] != '=') ? U_ASSIGN : U_READ;
		} else
			c.kind = U_READ;

		if (pass == 0) {
			/* locals: parameters, plain assignments, for/as/lambda targets */
			if (c.np == 1 && strcmp(prev_kw, "global") != 0 &&
			    (in_params || (c.kind == U_ASSIGN && *q == '=') ||
			    !strcmp(prev_kw, "for") || !strcmp(prev_kw, "as") ||
			    !strcmp(prev_kw, "lambda"))) {
				locals = rt_xrealloc(locals, (nl + 1) * sizeof *locals);
				locals[nl++] = rt_xstrdup(c.parts[0]);
			}
		} else if (!in_params) {
			const char *root = c.parts[0];
			char *name = NULL;
			int kind = c.kind, local = 0, self = !strcmp(root, "self") || !strcmp(root, "cls");

			for (i = 0; i < nl; i++)
				if (!strcmp(locals[i], root))
					local = 1;
			if (self && c.np >= 2)
				name = rt_xasprintf("%s.%s", t->cls ? t->cls : root, c.parts[1]);
			else if (self || local || in_list(py_builtins, root, strlen(root)))
				name = NULL;
			else if (py_global(file_text, root, strlen(root)) || c.np == 1)
				name = rt_xstrdup(root);
			else
				name = rt_xasprintf("%s.%s", root, c.parts[1]);
			k = name && (self || !py_global(file_text, root, strlen(root))) ? 2 : 1;
			if (name && c.np > k)   /* something under the name */
				kind = c.kind == U_CALL && c.np == k + 1 ? U_METHOD :
				    c.kind == U_ASSIGN ? U_ASSIGN : U_READ;
			if (name && (!strcmp(prev_kw, "import") || !strcmp(prev_kw, "from"))) {
				free(name);
				name = NULL;
			}
			if (name) {
				t->u = rt_xrealloc(t->u, (t->nu + 1) * sizeof *t->u);
				t->u[t->nu].name = name;
				t->u[t->nu].use = rt_xasprintf("%s%s", c.text,
				    c.kind == U_CALL ? "()" : "");
				t->u[t->nu].self = self;
				t->u[t->nu++].kind = kind;
			}
		}
		if (strcmp(prev_kw, "lambda") != 0 && strcmp(prev_kw, "global") != 0)
			prev_kw[0] = '\0';
		p = q;
	}
	}
	for (i = 0; i < nl; i++)
		free(locals[i]);
	free(locals);
}

/* a JavaScript or TypeScript test file (jest's hooks: rt-fix.js) */
static int
is_js(const char *file)
{
	const char *l = file ? rt_src_lang(file) : NULL;

	return l && !strcmp(l, "javascript");
}

static void
testsrc_load(testsrc *t, const char *id)
{
	char *text, err[256];

	if (test_locate(id, t) < 0 || !t->func)
		return;
	if (path_ok(t->file, err, sizeof err) < 0 || !inside_root(t->file) ||
	    !(text = project_text(t->file)))
		return;
	if ((t->body = py_body(text, t->cls, t->func, &t->line)))
		py_uses(t, text);
	free(text);
}

static void
testsrc_free(testsrc *t)
{
	size_t i;

	for (i = 0; i < t->nu; i++) {
		free(t->u[i].name);
		free(t->u[i].use);
	}
	free(t->u);
	free(t->file);
	free(t->cls);
	free(t->func);
	free(t->body);
}

/* A test's short name: its function, else its ID. */
static const char *
short_name(const testsrc *t)
{
	return t->func ? t->func : t->id;
}

/* name's uses in t, "a(), b" (at most 3) into b, and how: the strongest
 * kind, -1 when t does not use it. by_root: name is a root (a module). */
static int
uses_of(const testsrc *t, const char *name, int by_root, rt_buf *b)
{
	size_t i, j, shown = 0, rl = strlen(name);
	int kind = -1;

	for (i = 0; i < t->nu; i++) {
		const char *nm = t->u[i].name;
		if (by_root ? t->u[i].self || strncmp(nm, name, rl) != 0 ||
		    (nm[rl] && nm[rl] != '.') : strcmp(nm, name) != 0)
			continue;
		if (t->u[i].kind > kind)
			kind = t->u[i].kind;
		for (j = 0; j < i; j++)
			if (!strcmp(t->u[j].use, t->u[i].use))
				break;
		if (j == i && b && shown++ < 3)
			rt_buf_printf(b, "%s%s", shown > 1 ? ", " : "", t->u[i].use);
	}
	return kind;
}

/* The names both tests use that look like shared state: first whole
 * names (Class.attr, module.attr, a module global); when none, the
 * modules or objects both reach into. Returns 1 for the second kind. */
static int
shared_names(const testsrc *a, const testsrc *b, json_t *out)
{
	size_t i, j;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < a->nu; i++) {
			char *nm, *dot;
			int ka, kb;
			if (pass == 1 && a->u[i].self)
				continue;   /* self.assertEqual is no module */
			nm = rt_xstrdup(a->u[i].name);
			if (pass == 1 && (dot = strchr(nm, '.')))
				*dot = '\0';
			for (j = 0; j < json_array_size(out); j++)
				if (!strcmp(json_string_value(json_array_get(out, j)), nm))
					break;
			ka = uses_of(a, nm, pass, NULL);
			kb = uses_of(b, nm, pass, NULL);
			/* a name both only call (a function, a class) is not state */
			if (j == json_array_size(out) && ka >= 0 && kb >= 0 &&
			    (pass == 1 || ka != U_CALL || kb != U_CALL))
				json_array_append_new(out, json_string(nm));
			free(nm);
		}
		if (json_array_size(out))
			return pass;
	}
	return 0;
}

static json_t *
probe_find(json_t *order, const char *role, json_t *tests)
{
	json_t *p, *probes = json_object_get(order, "probes");
	size_t i;

	json_array_foreach(probes, i, p)
		if (jstr(p, "role") && !strcmp(jstr(p, "role"), role) &&
		    json_equal(json_object_get(p, "order"), tests))
			return p;
	return NULL;
}

/* "`a b` failed 3/3", with short names. */
static void
probe_text(rt_buf *b, json_t *p, const char *suffix)
{
	json_t *o = json_object_get(p, "order"), *x;
	long tr = 0, f = 0;
	size_t i;

	rt_buf_addc(b, '`');
	json_array_foreach(o, i, x) {
		const char *s = json_string_value(x), *c;
		if (!s)
			s = "?";
		if ((c = strrchr(s, ':')) || (c = strrchr(s, '.')))
			s = c + 1;
		rt_buf_printf(b, "%s%.*s", i ? " " : "", (int)strcspn(s, "["), s);
	}
	jint(p, "trials", &tr);
	jint(p, "failures", &f);
	rt_buf_printf(b, "`%s failed %ld/%ld", suffix, f, tr);
}

/* The order record as the prompt shows it. */
static char *
order_text(const evidence *ev)
{
	rt_buf b = {0};
	json_t *o = ev->order, *p, *x;
	const char *k;
	size_t i;

	if (!o)
		return rt_xstrdup("(no order record given)\n");
	rt_buf_printf(&b, "Victim: %s; category %s.\n", jstr(o, "victim"),
	    jstr(o, "category") ? jstr(o, "category") : "unknown");
	if (json_array_size(json_object_get(o, "polluter_sets"))) {
		char *s = json_dumps(json_object_get(o, "polluter_sets"), JSON_COMPACT);
		rt_buf_printf(&b, "Polluter sets (each, run first, makes it fail): %s\n", s);
		free(s);
	}
	if (json_array_size(json_object_get(o, "setter_sets"))) {
		char *s = json_dumps(json_object_get(o, "setter_sets"), JSON_COMPACT);
		rt_buf_printf(&b, "State-setter sets (each, run first, makes it pass): %s\n", s);
		free(s);
	}
	json_object_foreach(json_object_get(o, "cleaners"), k, x)
		if (json_array_size(x)) {
			char *s = json_dumps(x, JSON_COMPACT);
			rt_buf_printf(&b, "Cleaners of %s: %s\n", k, s);
			free(s);
		}
	rt_buf_adds(&b, "Probes (ordered runs):\n");
	json_array_foreach(json_object_get(o, "probes"), i, p) {
		if (i == 30) {
			rt_buf_printf(&b, "- (%zu more probes not shown)\n",
			    json_array_size(json_object_get(o, "probes")) - i);
			break;
		}
		rt_buf_printf(&b, "- %s: ", jstr(p, "role") ? jstr(p, "role") : "probe");
		probe_text(&b, p, "");
		rt_buf_printf(&b, ", %s\n", jstr(p, "decision") ? jstr(p, "decision") : "undecided");
	}
	return b.data;
}

/* The tests an order record names: the victim, the first polluter (or
 * setter) set, the first cleaner of that set. */
static size_t
order_tests(const evidence *ev, testsrc ts[8])
{
	json_t *o = ev->order, *set, *x, *cl;
	size_t n = 0, i;
	const char *cat = jstr(o, "category");
	rt_buf key = {0};

	if (!o || !jstr(o, "victim"))
		return 0;
	testsrc_load(&ts[n++], jstr(o, "victim"));
	set = json_array_get(json_object_get(o, cat && !strcmp(cat, "brittle") ?
	    "setter_sets" : "polluter_sets"), 0);
	json_array_foreach(set, i, x)
		if (json_is_string(x) && n < 7) {
			testsrc_load(&ts[n++], json_string_value(x));
			rt_buf_printf(&key, "%s%s", key.len ? " + " : "", json_string_value(x));
		}
	if (key.len && (cl = json_object_get(json_object_get(o, "cleaners"), key.data)) &&
	    json_is_string(json_array_get(cl, 0)))
		testsrc_load(&ts[n++], json_string_value(json_array_get(cl, 0)));
	rt_buf_free(&key);
	return n;
}

static char *
order_sources_text(const evidence *ev)
{
	testsrc ts[8];
	size_t n = order_tests(ev, ts), i;
	rt_buf b = {0};

	if (!ev->order)
		return rt_xstrdup("(no order record given)\n");
	for (i = 0; i < n; i++) {
		if (ts[i].body)
			rt_buf_printf(&b, "----- TEST: %s (%s:%ld) -----\n%s\n----- END TEST -----\n",
			    ts[i].id, ts[i].file, ts[i].line, ts[i].body);
		else
			rt_buf_printf(&b, "----- TEST: %s: its source was not found in the project -----\n",
			    ts[i].id);
		testsrc_free(&ts[i]);
	}
	return b.data;
}

/* ---- rules ------------------------------------------------------------ */

/* A class and its explanation, resting on why (a fact, an experiment or
 * an order record: rt-diagnose(1), "rests_on"); a class named again adds
 * what it rests on to the first naming's. */
static void
add_rule(json_t *rules, const char *cls, const char *fmt, const char *ev, json_t *why)
{
	json_t *r;
	size_t i;
	char *text;

	json_array_foreach(rules, i, r)
		if (!strcmp(jstr(r, "cause_class"), cls)) {
			if (why)
				json_array_append_new(json_object_get(r, "rests_on"),
				    json_deep_copy(why));
			return;
		}
	text = rt_xasprintf(fmt, ev);
	json_array_append_new(rules, json_pack("{s:s, s:s, s:[]}", "cause_class", cls,
	    "explanation", text, "rests_on"));
	if (why)
		json_array_append_new(json_object_get(json_array_get(rules,
		    json_array_size(rules) - 1), "rests_on"), json_deep_copy(why));
	free(text);
}

/* Is fact f machine noise: marked so by rt-diff-facts, or (an older
 * record) of a kind and value that are (rt_fact_noise)? */
static int
fact_noise(json_t *f)
{
	return jtrue(f, "noise") || rt_fact_noise(jstr(f, "kind"), jstr(f, "value"), NULL);
}

/* What a rule rests on: a fact (its kind, value and direction) or an
 * experiment (its name and effect). */
static json_t *
rest_fact(json_t *f)
{
	return json_pack("{s:s, s:s?, s:s?}", "fact", jstr(f, "kind") ? jstr(f, "kind") : "",
	    "value", jstr(f, "value"), "direction", jstr(f, "direction"));
}

/* Rule triggers (rt-diagnose(1), RULES): "a trigger matches whole words,
 * case ignored: the characters either side of it are not letters, digits
 * or underscores, so race never matches inside Traceback; a trigger of
 * several words matches them in order with white space between. In
 * experiments and environment facts an underscore separates words too."
 * Within a scope the first line that matches names the class. */
enum { IN_ORDER, IN_EXPERIMENT, IN_ENV, IN_SIGNAL, IN_WORDS, NSCOPES };
static const char *const scope_name[NSCOPES] = { "order", "experiment", "env", "signal", "word" };

typedef struct {
	int scope;
	const char *cls;
	const char *alt;             /* the class when an experiment stabilises */
	const char *words[20];
} trigger;

static const trigger triggers[] = {
	{ IN_ORDER, "order_dependency", NULL, { "victim", "brittle", NULL } },
	{ IN_EXPERIMENT, "hash_order", NULL, { "hashseed", "pythonhashseed", NULL } },
	{ IN_EXPERIMENT, "external_dependency", NULL,
	  { "nonet", "network", "netns", "offline", NULL } },
	{ IN_EXPERIMENT, "time_of_day", NULL, { "tz", "faketime", "clock", NULL } },
	{ IN_EXPERIMENT, "timing", NULL, { "gap", "slow", NULL } },
	{ IN_EXPERIMENT, "shared_state", "timing", { "parallel", "concurrent",
	  "concurrency", "load", "stress", "jobs", NULL } },
	{ IN_EXPERIMENT, "randomness", NULL, { "seed", "random", NULL } },
	{ IN_EXPERIMENT, "order_dependency", NULL, { "order", "reverse", "shuffle", NULL } },
	{ IN_ENV, "hash_order", NULL, { "pythonhashseed", NULL } },
	{ IN_ENV, "time_of_day", NULL, { "tz", "faketime", "clock", NULL } },
	{ IN_ENV, "randomness", NULL, { "seed", NULL } },
	{ IN_SIGNAL, "resource_leak", NULL, { "9", "kill", "sigkill", "killed", NULL } },
	{ IN_WORDS, "external_dependency", NULL, { "connection refused",
	  "connection reset", "econnrefused", "econnreset", "connectionrefusederror",
	  "connectionreseterror", "unreachable", "name or service not known",
	  "name resolution", "could not resolve", "getaddrinfo", "dns",
	  "service unavailable", "bad gateway", "ssl", "socket", "http error", NULL } },
	{ IN_WORDS, "resource_leak", NULL, { "busy", "locked", "in use", "eaddrinuse",
	  "too many open files", "emfile", "no space left", "enospc",
	  "cannot allocate memory", "out of memory", "memoryerror", "exhausted",
	  "resource temporarily unavailable", NULL } },
	{ IN_WORDS, "timing", NULL, { "timed out", "timeout", "timeouterror",
	  "deadline", NULL } },
	/* a check on a clock-measured value (CLOCK_CHECK below) */
	{ IN_WORDS, "timing", NULL, { "tobelessthan", "tobelessthanorequal",
	  "assertless", "assertlessequal", "performance now", "perf_counter",
	  "monotonic", "elapsed", NULL } },
	{ IN_WORDS, "race_condition", NULL, { "race", "stale",
	  "not ready", "notready", "concurrent modification", "deadlock", NULL } },
};
#define NTRIGGERS (sizeof triggers / sizeof triggers[0])
#define CLOCK_CHECK (&triggers[NTRIGGERS - 2])

static int
word_char(int c, int split_us)
{
	return isalnum((unsigned char)c) || (c == '_' && !split_us);
}

/* Does the phrase w occur in s as whole words (case ignored)? */
static int
has_word(const char *s, const char *w, int split_us)
{
	const char *p, *q, *t;

	for (p = s; *p; p++) {
		if (p > s && word_char(p[-1], split_us))
			continue;
		for (q = p, t = w; *t; t++) {
			if (*t == ' ') {
				if (!isspace((unsigned char)*q))
					break;
				while (isspace((unsigned char)*q))
					q++;
			} else if (tolower((unsigned char)*q) == *t) {
				q++;
			} else {
				break;
			}
		}
		if (!*t && !word_char(*q, split_us))
			return 1;
	}
	return 0;
}

/* The first trigger of scope that text matches, or NULL. */
static const trigger *
match_trigger(int scope, const char *text)
{
	size_t i, j;

	for (i = 0; i < NTRIGGERS; i++) {
		if (triggers[i].scope != scope)
			continue;
		for (j = 0; triggers[i].words[j]; j++)
			if (has_word(text, triggers[i].words[j], scope != IN_WORDS))
				return &triggers[i];
	}
	return NULL;
}

/* --list-rules: "SCOPE CLASS[/ALT]: WORD, WORD", the RULES section's list. */
static void
list_rules(void)
{
	size_t i, j;

	for (i = 0; i < NTRIGGERS; i++) {
		printf("%s %s%s%s:", scope_name[triggers[i].scope], triggers[i].cls,
		    triggers[i].alt ? "/" : "", triggers[i].alt ? triggers[i].alt : "");
		for (j = 0; triggers[i].words[j]; j++)
			printf("%s %s", j ? "," : "", triggers[i].words[j]);
		putchar('\n');
	}
	rt_fshut(stdout, "stdout");
	exit(RT_EXIT_OK);
}

/* The order rule (rt-diagnose(1), RULES): an rt-bisect record whose
 * claim has its confirming probes names the culprit, the shared state
 * and, when a cleaner exists, the reset it performs. */
/* go test: several polluters, each one alone (a set of one), are all
 * restored by one patch, so the detail names every one and the evidence
 * each one's confirming probe. */
static int
go_polluters(json_t *o, json_t *detail, rt_buf *b)
{
	json_t *sets = json_object_get(o, "polluter_sets"), *s, *pair, *conf;
	size_t i;

	if (json_array_size(sets) < 2 ||
	    !rt_runner_of(rt_runner_detect(jstr(o, "command"), NULL))->order_fix)
		return 0;
	json_array_foreach(sets, i, s)
		if (json_array_size(s) != 1)
			return 0;
	if (detail) {
		json_object_set(detail, "polluters", json_object_get(o, "polluters"));
		return 1;
	}
	json_array_foreach(sets, i, s) {
		if (i == 0)
			continue;
		pair = json_deep_copy(s);
		json_array_append_new(pair, json_string(jstr(o, "victim")));
		if ((conf = probe_find(o, "confirm", pair))) {
			probe_text(b, conf, "");
			rt_buf_adds(b, ", ");
		}
		json_decref(pair);
	}
	return 1;
}

static void
rules_order(json_t *rules, const evidence *ev)
{
	json_t *o = ev->order, *set, *pair, *alone, *shared, *detail, *r, *v1, *why;
	const char *cat = o ? jstr(o, "category") : NULL;
	testsrc ts[8];
	size_t n, i;
	int brittle, by_root = 0;
	rt_buf b = {0}, ub = {0};

	if (!o || !cat || !match_trigger(IN_ORDER, cat))
		return;
	brittle = !strcmp(cat, "brittle");
	set = json_array_get(json_object_get(o, brittle ? "setter_sets" : "polluter_sets"), 0);
	if (!json_array_size(set))
		return;
	pair = json_deep_copy(set);
	json_array_append_new(pair, json_string(jstr(o, "victim")));
	v1 = json_pack("[s]", jstr(o, "victim"));
	alone = probe_find(o, "alone", v1);
	json_decref(v1);
	{
		json_t *conf = probe_find(o, "confirm", pair);
		if (!conf || !alone) {   /* no probe, no claim */
			json_decref(pair);
			return;
		}
		probe_text(&b, conf, "");
		rt_buf_adds(&b, ", ");
		if (!brittle)
			(void)go_polluters(o, NULL, &b);
		probe_text(&b, alone, " alone");
		rt_buf_adds(&b, ": ");
	}
	n = order_tests(ev, ts);
	shared = json_array();
	detail = json_pack("{s:s, s:s, s:O, s:O, s:[]}", "victim", jstr(o, "victim"),
	    "category", cat, brittle ? "setters" : "polluters", set, "confirm", pair, "shared");
	if (!brittle)
		(void)go_polluters(o, detail, NULL);
	if (n < 2 || !ts[0].body || !ts[1].body) {
		rt_buf_printf(&b, "%s %s after %s, but the tests' source was not found "
		    "in the project, so the shared state is not named.",
		    short_name(&ts[0]), brittle ? "passes only" : "fails",
		    n > 1 ? short_name(&ts[1]) : "the other test");
	} else if ((by_root = shared_names(&ts[1], &ts[0], shared)), json_array_size(shared) == 0) {
		rt_buf_printf(&b, "%s and %s name no state in common in their bodies; "
		    "the shared state is reached indirectly (a fixture, a helper, a file).",
		    short_name(&ts[1]), short_name(&ts[0]));
	} else {
		const char *nm = json_string_value(json_array_get(shared, 0));
		char *pu;
		int k;

		ub.len = 0;
		k = uses_of(&ts[1], nm, by_root, &ub);
		pu = rt_xstrdup(rt_buf_str(&ub));
		ub.len = 0;
		uses_of(&ts[0], nm, by_root, &ub);
		if (by_root)
			rt_buf_printf(&b, "%s and %s both use %s (%s: %s; %s: %s).",
			    short_name(&ts[1]), short_name(&ts[0]), nm, short_name(&ts[1]),
			    pu, short_name(&ts[0]), rt_buf_str(&ub));
		else
			rt_buf_printf(&b, "%s %s %s (%s), which %s %s (%s).", short_name(&ts[1]),
			    brittle ? "sets" : k >= U_METHOD ? "mutates" :
			    k == U_CALL ? "calls" : "reads", nm, pu, short_name(&ts[0]),
			    brittle ? "needs" : "reads", rt_buf_str(&ub));
		free(pu);
		if (json_array_size(shared) > 1) {
			rt_buf_adds(&b, " Also shared:");
			for (i = 1; i < json_array_size(shared) && i < 4; i++)
				rt_buf_printf(&b, " %s", json_string_value(json_array_get(shared, i)));
			rt_buf_addc(&b, '.');
		}
	}
	json_object_set(detail, "shared", shared);
	/* a cleaner: its confirming probe, and what it calls that resets */
	if (!brittle && n > 2 && (ts[2].body || is_js(ts[2].file))) {
		json_t *ord = json_deep_copy(set), *cp;
		json_array_append_new(ord, json_string(ts[2].id));
		json_array_append_new(ord, json_string(jstr(o, "victim")));
		if ((cp = probe_find(o, "confirm", ord))) {
			rt_buf_printf(&b, " Cleaner %s repairs it (", short_name(&ts[2]));
			probe_text(&b, cp, "");
			rt_buf_adds(&b, ")");
			for (i = 0; i < ts[2].nu; i++)
				if (!ts[2].u[i].self && ts[2].u[i].kind != U_READ &&
				    uses_of(&ts[0], ts[2].u[i].name, 0, NULL) < 0 &&
				    uses_of(&ts[1], ts[2].u[i].name, 0, NULL) < 0)
					break;
			if (i < ts[2].nu)
				rt_buf_printf(&b, ": calling its reset, %s, in %s's setup (or after %s) "
				    "would isolate the test.", ts[2].u[i].use, short_name(&ts[0]),
				    short_name(&ts[1]));
			else
				rt_buf_adds(&b, ": what it does, in the victim's setup, would isolate the test.");
			json_object_set_new(detail, "cleaner", json_string(ts[2].id));
			json_object_set_new(detail, "cleaner_confirm", ord);
		} else {
			json_decref(ord);
		}
	}
	for (i = 0; i < n; i++)
		testsrc_free(&ts[i]);
	why = json_pack("{s:s, s:s, s:s}", "order", "rt-bisect", "victim", jstr(o, "victim"),
	    "category", cat);
	add_rule(rules, "order_dependency", "%s", rt_buf_str(&b), why);
	json_decref(why);
	r = json_array_get(rules, json_array_size(rules) - 1);
	if (r && !strcmp(jstr(r, "cause_class"), "order_dependency") && !json_object_get(r, "order"))
		json_object_set(r, "order", detail);
	json_decref(detail);
	json_decref(shared);
	json_decref(pair);
	rt_buf_free(&b);
	rt_buf_free(&ub);
}

static const char *const word_why[][2] = {
	{ "external_dependency", "a service the test depends on is unavailable or slow." },
	{ "resource_leak", "a lock, port, file or pool is still held or used up." },
	{ "timing", "the test waits for something a fixed time that is sometimes too short." },
	{ "race_condition", "something is read before another activity has finished writing it." },
};

static void
word_rule(json_t *rules, const char *word, const char *ev, json_t *why)
{
	const trigger *t = match_trigger(IN_WORDS, word);
	json_t *r;
	char *e, *fmt;
	size_t i;

	if (!t)
		return;
	for (i = 0; i < sizeof word_why / sizeof word_why[0]; i++)
		if (!strcmp(word_why[i][0], t->cls))
			break;
	e = rt_xasprintf("\"%s\" (%s)", word, ev);
	fmt = rt_xasprintf("Failing runs print %%s: %s", t == CLOCK_CHECK ?
	    "a check bounds a time the test measures on the clock, and the "
	    "machine sometimes takes longer; fake the clock where the test already "
	    "can, else bound it from the measured distribution with a margin "
	    "(which loosens a timing check)." : i < sizeof word_why /
	    sizeof word_why[0] ? word_why[i][1] : "");
	add_rule(rules, t->cls, fmt, e, why);
	/* a clock check: the timing rule's patch (timing_patch) */
	if (t == CLOCK_CHECK)
		json_array_foreach(rules, i, r)
			if (!strcmp(jstr(r, "cause_class"), t->cls))
				json_object_set_new(r, "clock", json_true());
	free(fmt);
	free(e);
}

static void
rules_experiments(json_t *rules, const evidence *ev)
{
	json_t *e, *why;
	size_t i;
	rt_buf b = {0};

	json_array_foreach(ev->experiments, i, e) {
		const char *name = jstr(e, "name"), *effect = jstr(e, "effect"), *cls;
		const trigger *t;
		json_t *pj = json_object_get(e, "perturbation");
		char *p = pj ? json_dumps(pj, JSON_COMPACT | JSON_ENCODE_ANY) : rt_xstrdup("");
		char *what;
		int stab = effect && !strcmp(effect, "stabilises");

		if (!jtrue(e, "implicated")) {
			free(p);
			continue;
		}
		what = rt_xasprintf("%s %s", name ? name : "", p);
		why = json_pack("{s:s, s:s?}", "experiment", name ? name : "", "effect", effect);
		b.len = 0;
		rt_buf_printf(&b, "the %s experiment %s it (control ", name ? name : "perturbation",
		    stab ? "stabilises" : effect ? "destabilises" : "changes");
		counts_text(&b, json_object_get(e, "control"));
		rt_buf_adds(&b, "; perturbed ");
		counts_text(&b, json_object_get(e, "perturbed"));
		rt_buf_adds(&b, ")");
		t = match_trigger(IN_EXPERIMENT, what);
		cls = t ? t->cls : "external_dependency";
		if (!strcmp(cls, "hash_order"))
			add_rule(rules, cls, "Failures follow PYTHONHASHSEED: %s, "
			    "so the outcome depends on hash or set iteration order.", b.data, why);
		else if (!strcmp(cls, "time_of_day"))
			add_rule(rules, cls, "Failures follow the clock or time "
			    "zone: %s.", b.data, why);
		else if (!strcmp(cls, "timing"))
			add_rule(rules, cls, stab ? "Failures vanish when runs are "
			    "spaced out: %s, so something from one run is still in progress "
			    "or held when the next starts." : "Failures change when runs are "
			    "spaced out: %s.", b.data, why);
		else if (t && t->alt)
			add_rule(rules, stab ? t->alt : cls, stab ?
			    "Failures change with parallel load: %s." : "Failures grow when "
			    "runs overlap: %s, so concurrent runs share a file, port or "
			    "other state.", b.data, why);
		else if (!strcmp(cls, "randomness"))
			add_rule(rules, cls, "Failures follow the random seed: %s.", b.data, why);
		else if (!strcmp(cls, "order_dependency"))
			add_rule(rules, cls, "Failures follow the order "
			    "things run in: %s.", b.data, why);
		else if (t)
			add_rule(rules, cls, "Failures change without the "
			    "network: %s, so the test depends on a service outside the process.", b.data, why);
		else
			add_rule(rules, cls, "Failures follow a change of "
			    "environment: %s.", b.data, why);
		json_decref(why);
		free(what);
		free(p);
	}
	rt_buf_free(&b);
}

/* The test that failed most in the per-case records, one that also
 * passed (a flaky case, not one that always fails) first, or NULL. */
static const char *
case_victim(const evidence *ev)
{
	const char *id, *best = NULL;
	json_int_t k = 0, runs;
	json_t *v;
	int flaky, best_flaky = 0;

	json_object_foreach(ev->case_fails, id, v) {
		runs = json_integer_value(json_object_get(ev->case_runs, id));
		flaky = json_integer_value(v) < runs;
		if ((flaky && !best_flaky) || (flaky == best_flaky && json_integer_value(v) > k))
			k = json_integer_value(v), best = id, best_flaky = flaky;
	}
	return best;
}

/* The seed fact of runner judged by the victim's own outcome in each
 * trial (rt-diagnose(1), RULES): the seeds of the trials where its case
 * record failed, passed, and both; 0 when no trial has both a seed and
 * the victim's record. */
static int
victim_seeds(const evidence *ev, const char *runner, const char *victim,
    json_t *side[2], json_t **both)
{
	json_t *outs = json_object_get(ev->case_outs, victim), *o, *x;
	const char *t, *seed;
	size_t i, j;
	int any = 0;

	side[0] = json_array(), side[1] = json_array(), *both = json_array();
	json_object_foreach(ev->trial_seeds, t, o) {
		if (!(seed = jstr(o, runner)) || !(x = json_object_get(outs, t)))
			continue;
		any = 1;
		json_array_foreach(side[json_integer_value(x) ? 1 : 0], i, o)
			if (!strcmp(json_string_value(o), seed))
				break;
		if (i == json_array_size(side[json_integer_value(x) ? 1 : 0]))
			json_array_append_new(side[json_integer_value(x) ? 1 : 0], json_string(seed));
	}
	json_array_foreach(side[1], i, x)
		json_array_foreach(side[0], j, o)
			if (!strcmp(json_string_value(x), json_string_value(o)))
				json_array_append(*both, x);
	return any;
}

/* The rt-bisect line that finds what an order-dependent victim needs
 * (rt-diagnose(1), RULES): the candidates from pytest's collection, or
 * the per-case records (go test); the command runs the IDs given ("$@") in that
 * order, the runner's shuffling off. NULL for a runner it cannot write. */
static char *
bisect_line(const evidence *ev, const char *victim)
{
	const char *cmd = ev_command(ev);
	char *w[256], *run = NULL, *collect = NULL, *line = NULL;
	rt_buf b = {0}, pre = {0}, pkgs = {0};
	rt_runner_sel sel[16];
	rt_cmd_loc loc;
	size_t n, i, k;

	if (!cmd)
		return NULL;
	n = rt_cmd_split(cmd, w, sizeof w / sizeof w[0]);
	for (i = 0; i < n && strcmp(w[i], ";"); i++)
		;
	rt_cmd_locate(w, 0, i, &loc);
	for (i = 0; i < loc.args && i < n; i++) {
		if (pre.len)
			rt_buf_addc(&pre, ' ');
		rt_buf_sh(&pre, w[i]);
	}
	k = rt_runner_selections(w, n, sel, 16);
	if (loc.kind == RT_RUNNER_PYTEST && pre.len) {
		run = rt_xasprintf("%s -p no:randomly -p no:random_order \"$@\"", rt_buf_str(&pre));
		rt_buf_printf(&b, "%s --collect-only -q", rt_buf_str(&pre));
		for (i = 0; i < k; i++)
			if (sel[i].kind == RT_SEL_PATH || sel[i].kind == RT_SEL_NODE) {
				rt_buf_addc(&b, ' ');
				rt_buf_sh(&b, sel[i].text);
			}
		collect = rt_xstrdup(rt_buf_str(&b));
	} else if (loc.kind == RT_RUNNER_GO && pre.len) {
		for (i = 0; i < k; i++)
			if (sel[i].kind == RT_SEL_GOPKG) {
				rt_buf_addc(&pkgs, ' ');
				rt_buf_sh(&pkgs, sel[i].text);
			}
		/* go test's IDs are PKG::TestX: -run takes the names */
		run = rt_xasprintf("IFS=\"|\"; %s -count=1 -run \"^($(echo \"$*\" | "
		    "sed \"s#[^|]*::##g\"))\\$\"%s", rt_buf_str(&pre),
		    pkgs.len ? rt_buf_str(&pkgs) : " .");
	} else if (loc.kind == RT_RUNNER_RSPEC && pre.len) {
		/* rt-bisect's rspec driver runs the IDs in the order given,
		 * over --order, --seed and .rspec alike */
		run = rt_xasprintf("%s \"$@\"", rt_buf_str(&pre));
	}
	if (run && (ev->case_file || collect)) {
		b.len = 0;
		rt_buf_adds(&b, "rt-bisect -v ");
		rt_buf_sh(&b, victim);
		/* every collected test is a candidate (a state-setter may run
		 * after the victim in every failing run); go test lists none */
		if (collect) {
			rt_buf_adds(&b, " --collect ");
			rt_buf_sh(&b, collect);
		} else {
			rt_buf_adds(&b, " --records ");
			rt_buf_sh(&b, ev->case_file);
		}
		rt_buf_adds(&b, " --cmd ");
		rt_buf_sh(&b, run);
		line = rt_xstrdup(rt_buf_str(&b));
	}
	for (i = 0; i < n; i++)
		free(w[i]);
	free(run);
	free(collect);
	rt_buf_free(&b);
	rt_buf_free(&pre);
	rt_buf_free(&pkgs);
	return line;
}

/* The seed fact's rt-matrix line (rt-diff-facts') with the seed it pins,
 * old, put as seed; NULL when the line does not pin old. */
static char *
seed_repin(const char *line, const char *runner, const char *old, const char *seed)
{
	char *pin, *res = NULL;
	const char *at;

	if (!line || !runner || !old || !seed || !*seed ||
	    strspn(seed, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-") !=
	    strlen(seed))
		return NULL;
	pin = rt_xasprintf("--pin-seed %s=%s ", runner, old);
	if ((at = strstr(line, pin)) != NULL)
		res = rt_xasprintf("%.*s--pin-seed %s=%s %s", (int)(at - line), line,
		    runner, seed, at + strlen(pin));
	free(pin);
	return res;
}

/* The seed rule (rt-diagnose(1), RULES): a seed fact of a runner that
 * shuffles the tests, whose failing seeds never also passed, says the
 * order decides the outcome: order_dependency, with the rt-bisect line
 * that finds the tests the victim depends on. */
static void
rules_seed(json_t *rules, const evidence *ev)
{
	json_t *f, *why, *r;
	const char *runner, *victim;
	char *line, *text;
	size_t i;

	json_array_foreach(ev->facts, i, f) {
		json_t *side[2] = { NULL, NULL }, *both = NULL;
		char *judged = NULL, *repro = NULL;
		if (!jstr(f, "kind") || strcmp(jstr(f, "kind"), "seed") != 0 ||
		    !(runner = jstr(f, "runner")) || !strcmp(runner, "hypothesis") ||
		    !strcmp(runner, "PYTHONHASHSEED"))
			continue;
		victim = ev->order ? jstr(ev->order, "victim") : case_victim(ev);
		if (json_array_size(json_object_get(f, "failing")) == 0 ||
		    json_array_size(json_object_get(f, "passing")) == 0 ||
		    json_array_size(json_object_get(f, "both")) > 0) {
			/* the command's outcome mixes the victim with tests that
			 * always fail: judged by the victim's case records */
			int ok = victim && victim_seeds(ev, runner, victim, side, &both) &&
			    json_array_size(side[0]) && json_array_size(side[1]) &&
			    !json_array_size(both);
			if (ok) {
				/* the fact's line pins the first seed the command
				 * failed with: pin one the victim itself failed with */
				const char *vs = json_string_value(json_array_get(side[1], 0));
				repro = seed_repin(jstr(f, "reproduce"), runner, jstr(f, "value"), vs);
				judged = rt_xasprintf("judged by %s's own outcome in the per-case "
				    "records: its seeds failed in %zu and passed in %zu trials, "
				    "none both%s%s%s; ", victim, json_array_size(side[1]),
				    json_array_size(side[0]), repro ? "; a seed it failed with, "
				    "pinned: " : "", repro ? repro : "", repro ? "" : "");
			}
			json_decref(side[0]), json_decref(side[1]), json_decref(both);
			if (!ok)
				continue;
		}
		line = !ev->order && victim ? bisect_line(ev, victim) : NULL;
		text = rt_xasprintf("%s shuffles the tests and no seed both failed and passed "
		    "(%s%s): the order decides the outcome, so a test run before %s leaves or "
		    "takes away state it depends on.%s%s", runner, judged ? judged : "",
		    jstr(f, "detail") ? jstr(f, "detail") : "", victim ? victim : "the failing test",
		    line ? " Find it with: " : ev->order ? "" : " Run rt-bisect on the failing "
		    "test to find it.", line ? line : "");
		why = rest_fact(f);
		json_object_set_new(why, "runner", json_string(runner));
		if (judged)
			json_object_set_new(why, "judged_by", json_string("case"));
		if (repro)
			json_object_set_new(why, "reproduce", json_string(repro));
		free(judged);
		free(repro);
		add_rule(rules, "order_dependency", "%s", text, why);
		r = json_array_get(rules, json_array_size(rules) - 1);
		if (line && !strcmp(jstr(r, "cause_class"), "order_dependency") &&
		    !json_object_get(r, "bisect")) {
			json_object_set_new(r, "bisect", json_string(line));
			rt_warn("order_dependency: find what %s depends on with: %s", victim, line);
		}
		json_decref(why);
		free(text);
		free(line);
	}
}

/* Structural facts (position, environment, timing) first; words, the
 * weakest evidence, last. */
static void
rules_facts(json_t *rules, const evidence *ev, int words)
{
	json_t *f, *why;
	size_t i;
	rt_buf b = {0};
	const char *tok;

	json_array_foreach(ev->facts, i, f) {
		const char *kind = jstr(f, "kind"), *dir = jstr(f, "direction"),
		    *value = jstr(f, "value");
		int failing = dir && (!strcmp(dir, "failure_only") || !strcmp(dir, "failure_more"));

		if (!kind || words != (!strcmp(kind, "token") || !strcmp(kind, "phrase")))
			continue;
		/* "machine noise never makes a cause class" (rt-diagnose(1), RULES) */
		if (fact_noise(f))
			continue;
		why = rest_fact(f);
		b.len = 0;
		fact_text(&b, f);
		rt_buf_str(&b);
		if (!strcmp(kind, "position") && dir) {
			if (!strcmp(dir, "periodic"))
				add_rule(rules, "shared_state", "Failures are periodic (%s): "
				    "state carried from one run into the next, such as a "
				    "counter, pool or file that fills up.", b.data, why);
			else if (!strcmp(dir, "clustered_start"))
				add_rule(rules, "order_dependency", "Failures cluster at the "
				    "start of the series (%s): the first runs meet a cold or "
				    "leftover state the later ones do not.", b.data, why);
			else if (!strcmp(dir, "clustered_end"))
				add_rule(rules, "resource_leak", "Failures cluster at the end "
				    "of the series (%s): something accumulates across runs, "
				    "such as open files, processes or disk space.", b.data, why);
			else if (!strcmp(dir, "overlap"))
				add_rule(rules, "shared_state", "Failures coincide with runs "
				    "that overlap (%s): concurrent runs share a file, port or "
				    "other state.", b.data, why);
		} else if (!strcmp(kind, "env") && value) {
			const trigger *t = match_trigger(IN_ENV, value);
			const char *cls = t ? t->cls : "external_dependency";
			if (!strcmp(cls, "hash_order"))
				add_rule(rules, cls, "Failures follow PYTHONHASHSEED "
				    "(%s): the outcome depends on hash or set iteration order.", b.data, why);
			else if (!strcmp(cls, "time_of_day"))
				add_rule(rules, cls, "Failures follow a clock or time "
				    "zone fact (%s).", b.data, why);
			else if (!strcmp(cls, "randomness"))
				add_rule(rules, cls, "Failures follow the random seed "
				    "(%s).", b.data, why);
			else
				add_rule(rules, cls, "Failures follow an "
				    "environment fact (%s): the test depends on something "
				    "outside its code.", b.data, why);
		} else if (!strcmp(kind, "timeout") && (failing || !dir)) {
			add_rule(rules, "timing", "Some failures are timeouts (%s): a wait "
			    "that never ends, a deadlock, or work slower than the limit.", b.data, why);
		} else if (!strcmp(kind, "signal") && value &&
		    match_trigger(IN_SIGNAL, value)) {
			add_rule(rules, "resource_leak", "Failing runs are killed by "
			    "SIGKILL (%s), often the out-of-memory killer.", b.data, why);
		} else if ((!strcmp(kind, "token") || !strcmp(kind, "phrase")) && failing && value) {
			word_rule(rules, value, b.data, why);
		}
		json_decref(why);
	}
	if (words && ev->diff && (tok = jstr(ev->diff, "token"))) {
		why = json_pack("{s:s}", "token", tok);
		word_rule(rules, tok, "the failing-only token", why);
		json_decref(why);
	}
	rt_buf_free(&b);
}

/* Cause classes named by the evidence alone (rt-diagnose(1), RULES):
 * experiments first (they are interventions), then the facts. */
static json_t *
make_rules(const evidence *ev)
{
	json_t *rules = json_array();

	rules_order(rules, ev);
	rules_seed(rules, ev);
	rules_experiments(rules, ev);
	rules_facts(rules, ev, 0);
	rules_facts(rules, ev, 1);
	if (json_array_size(rules) == 0) {
		json_t *f;
		size_t i, noise = 0;
		char *e;
		json_array_foreach(ev->facts, i, f)
			noise += fact_noise(f);
		e = rt_xasprintf("%zu facts, %zu of them machine noise, %zu experiments",
		    json_array_size(ev->facts), noise, json_array_size(ev->experiments));
		add_rule(rules, "unknown", "No rule matched the evidence (%s); "
		    "experiments that slow, isolate or reorder the runs would say more.", e, NULL);
		free(e);
	}
	return rules;
}

static char *
rules_text(json_t *rules)
{
	rt_buf b = {0};
	json_t *r;
	size_t i;

	json_array_foreach(rules, i, r)
		if (strcmp(jstr(r, "cause_class"), "unknown") != 0)
			rt_buf_printf(&b, "- %s: %s\n", jstr(r, "cause_class"), jstr(r, "explanation"));
	if (!b.len)
		rt_buf_adds(&b, "(no rule matched the evidence)\n");
	return b.data;
}

/* Angles in the order the rules suggest, then the rest. */
static void
order_angles(json_t *rules, const angle *order[NANGLES])
{
	size_t n = 0, i, j, k;
	json_t *r;

	json_array_foreach(rules, i, r)
		for (j = 0; j < NANGLES; j++)
			for (k = 0; k < 3 && angles[j].classes[k]; k++)
				if (!strcmp(angles[j].classes[k], jstr(r, "cause_class"))) {
					size_t m;
					for (m = 0; m < n && order[m] != &angles[j]; m++)
						;
					if (m == n)
						order[n++] = &angles[j];
				}
	for (j = 0; j < NANGLES; j++) {
		size_t m;
		for (m = 0; m < n && order[m] != &angles[j]; m++)
			;
		if (m == n)
			order[n++] = &angles[j];
	}
}

/* ---- the prompt template ---------------------------------------------- */

/* The placeholders (rt-diagnose(1), TEMPLATE FORMAT). */
enum { S_COMMAND, S_RATE, S_FACTS, S_TOKEN, S_FAIL, S_PASS, S_EXPERIMENTS,
	S_SOURCES, S_RULES, S_CLASSES, S_ANGLE, S_FAIL_STREAM, S_PASS_STREAM,
	S_ORDER, S_ORDER_SOURCES, NSLOTS };
static const char *const slot_names[NSLOTS] = { "command", "rate", "facts",
	"token", "fail_excerpt", "pass_excerpt", "experiments", "sources",
	"rules", "classes", "angle", "fail_stream", "pass_stream", "order",
	"order_sources" };
static const char *template_name;

/* Replace {{name}} by its value and drop {{! comments }} (with the line
 * break after a comment that fills its line). NULL values: validate only. */
static char *
fill_template(const char *t, const char *const val[NSLOTS])
{
	rt_buf b = {0};
	const char *p = t, *q, *e;
	size_t i, n;

	while ((q = strstr(p, "{{"))) {
		rt_buf_add(&b, p, (size_t)(q - p));
		if (q[2] == '!') {
			if (!(e = strstr(q + 3, "}}")))
				rt_die("%s: a {{! comment is not closed", template_name);
			p = e + 2;
			if ((q == t || q[-1] == '\n') && *p == '\n')
				p++;
			continue;
		}
		for (n = 0; q[2 + n] == '_' || islower((unsigned char)q[2 + n]); n++)
			;
		if (n == 0 || strncmp(q + 2 + n, "}}", 2) != 0) {
			rt_buf_add(&b, "{{", 2);  /* not a placeholder: literal */
			p = q + 2;
			continue;
		}
		for (i = 0; i < NSLOTS; i++)
			if (strlen(slot_names[i]) == n && !strncmp(q + 2, slot_names[i], n))
				break;
		if (i == NSLOTS) {
			long line = 1;
			for (e = t; e < q; e++)
				line += *e == '\n';
			rt_die("%s:%ld: unknown placeholder {{%.*s}}", template_name, line,
			    (int)n, q + 2);
		}
		if (val[i])
			rt_buf_adds(&b, val[i]);
		p = q + 4 + n;
	}
	rt_buf_adds(&b, p);
	return b.data;
}

static void
load_template(void)
{
	static const char *const none[NSLOTS];
	char *path = opt.template_path ? rt_xstrdup(opt.template_path) :
	    rt_xasprintf("%s/prompt.txt", rt_sharedir());
	size_t n;

	template_name = path;
	if (!(template_text = rt_read_file(path, &n)))
		rt_die("%s:", path);
	if (memchr(template_text, '\0', n))
		rt_die("%s: a binary file", path);
	free(fill_template(template_text, none));
}

/* ---- hypotheses ------------------------------------------------------- */

static json_t *
hyp_new(const char *source, const char *model, const angle *a,
    const char *cls, const char *expl)
{
	json_t *h = json_object();
	rt_buf b = {0};
	const char *p;
	int sp = 0;

	/* one line, whitespace collapsed, at most MAX_EXPLANATION bytes */
	for (p = expl ? expl : ""; *p; p++) {
		if (isspace((unsigned char)*p)) {
			sp = b.len > 0;
			continue;
		}
		if (sp)
			rt_buf_addc(&b, ' ');
		sp = 0;
		rt_buf_addc(&b, *p);
	}
	json_object_set_new(h, "type", json_string("hypothesis"));
	json_object_set_new(h, "id", json_null());
	json_object_set_new(h, "source", json_string(source));
	json_object_set_new(h, "model", model ? json_string(model) : json_null());
	json_object_set_new(h, "angle", a ? json_string(a->id) : json_null());
	json_object_set_new(h, "cause_class", json_string(class_norm(cls)));
	{
		char *c = cut_utf8(rt_buf_str(&b), MAX_EXPLANATION, 1);
		json_object_set_new(h, "explanation", rt_json_bytes(c, strlen(c)));
		free(c);
	}
	json_object_set_new(h, "patch", json_null());
	json_object_set_new(h, "files", json_array());
	json_object_set_new(h, "status", json_string("no_patch"));
	json_object_set_new(h, "evidence_digest", json_string(digest));
	rt_buf_free(&b);
	return h;
}

/* A hypothesis that says why a model gave nothing usable, said on
 * standard error too: "rt-diagnose: model m1 failed: HTTP 500 after 3 tries". */
static json_t *
hyp_fail(const char *source, const char *model, const angle *a,
    const char *status, const char *why)
{
	json_t *h = hyp_new(source, model, a, "unknown", why);

	rt_warn("model %s failed: %s", model ? model : source, why);

	json_object_set_new(h, "status", json_string(status));
	json_object_set_new(h, "error", rt_json_bytes(why, strlen(why)));
	return h;
}

static void
set_status(json_t *h, const char *status, const char *why)
{
	json_object_set_new(h, "status", json_string(status));
	json_object_set_new(h, "patch", json_null());
	json_object_set_new(h, "files", json_array());
	if (why)
		json_object_set_new(h, "error", rt_json_bytes(why, strlen(why)));
	if (why && !*json_string_value(json_object_get(h, "explanation")))
		json_object_set_new(h, "explanation", rt_json_bytes(why, strlen(why)));
}

/* The inside of the first ``` fence, or a copy of s when there is none. */
static char *
strip_fences(const char *s)
{
	const char *a = strstr(s, "```"), *b;
	char *r;

	if (!a)
		return rt_xstrdup(s);
	if (!(a = strchr(a, '\n')))
		return rt_xstrdup(s);
	a++;
	b = strstr(a, "```");
	if (!b)
		b = a + strlen(a);
	r = rt_xmalloc((size_t)(b - a) + 1);
	memcpy(r, a, (size_t)(b - a));
	r[b - a] = '\0';
	return r;
}

static int
looks_like_diff(const char *s)
{
	return strstr(s, "@@") && (!strncmp(s, "--- ", 4) || strstr(s, "\n--- "));
}

/* Apply the patch to copies of the files it touches and diff them again:
 * the result has a/ b/ names, exact counts and no fuzz. NULL when it does
 * not apply (rt-verify(1) then reports patch_failed). */
static char *
canonical(const char *patch, char **paths, size_t np)
{
	const char *t = getenv("TMPDIR");
	char *dir = rt_xasprintf("%s/rt-diagnose.XXXXXX", t && *t ? t : "/tmp");
	char err[512], *f, *old, *new, *d, *slash;
	rt_buf out = {0};
	size_t i;
	int ok = 1;

	if (!mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	for (i = 0; ok && i < np; i++) {
		if (!(old = project_text(paths[i])))
			continue;
		f = rt_xasprintf("%s/%s", dir, paths[i]);
		slash = strrchr(f, '/');
		*slash = '\0';
		if (mkdir_p(f, 0700) < 0)
			ok = 0;
		*slash = '/';
		if (ok && rt_write_file_atomic(f, old, strlen(old)) < 0)
			ok = 0;
		free(f);
		free(old);
	}
	if (ok && rt_patch_apply(dir, patch, err, sizeof err) < 0) {
		vlog("the patch does not apply to the project as it is: %s", err);
		ok = 0;
	}
	for (i = 0; ok && i < np; i++) {
		f = rt_xasprintf("%s/%s", dir, paths[i]);
		old = project_text(paths[i]);
		new = rt_read_file(f, NULL);
		if ((d = rt_patch_from_texts(paths[i], old, new))) {
			rt_buf_adds(&out, d);
			free(d);
		}
		free(f);
		free(old);
		free(new);
	}
	rt_remove_tree(dir);
	free(dir);
	if (!ok) {
		rt_buf_free(&out);
		return NULL;
	}
	rt_buf_str(&out);
	return out.data;
}

/* Check a patch from untrusted text and attach it (rt-diagnose(1),
 * UNTRUSTED OUTPUT): paths inside the project or unsafe_path; a diff we
 * can read or unparseable; a change or no_patch. */
static void
take_patch(json_t *h, const char *raw)
{
	char err[256], **paths, *p = strip_fences(raw), *c;
	size_t np, i;
	json_t *files;

	if (rt_patch_paths(p, &paths, &np, err, sizeof err) < 0) {
		set_status(h, strncmp(err, "unsafe path", 11) ? "unparseable" : "unsafe_path", err);
		free(p);
		return;
	}
	for (i = 0; i < np; i++)
		if (!inside_root(paths[i])) {
			snprintf(err, sizeof err, "unsafe path \"%.80s\": a symbolic link leads outside the project", paths[i]);
			set_status(h, "unsafe_path", err);
			rt_patch_paths_free(paths, np);
			free(p);
			return;
		}
	if ((c = canonical(p, paths, np)) && !*c) {
		set_status(h, "no_patch", "the patch changes nothing");
	} else {
		files = json_array();
		for (i = 0; i < np; i++)
			json_array_append_new(files, json_string(paths[i]));
		json_object_set_new(h, "patch", c ? json_string(c) : rt_json_bytes(p, strlen(p)));
		json_object_set_new(h, "files", files);
		json_object_set_new(h, "status", json_string("ok"));
	}
	free(c);
	rt_patch_paths_free(paths, np);
	free(p);
}

/* A whole replacement file: turn it into a diff against the project. */
static void
take_file(json_t *h, const char *path, const char *content)
{
	char err[256], *old, *body, *d;
	size_t n;

	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (path_ok(path, err, sizeof err) < 0) {
		set_status(h, strncmp(err, "unsafe path", 11) ? "unparseable" : "unsafe_path", err);
		return;
	}
	if (!inside_root(path)) {
		set_status(h, "unsafe_path", "a symbolic link leads outside the project");
		return;
	}
	body = strncmp(content, "```", 3) == 0 ? strip_fences(content) : rt_xstrdup(content);
	old = project_text(path);
	n = strlen(body);
	if (old && n && old[0] && old[strlen(old) - 1] == '\n' && body[n - 1] != '\n') {
		body = rt_xrealloc(body, n + 2);
		memcpy(body + n, "\n", 2);
	}
	d = rt_patch_from_texts(path, old, body);
	if (d)
		take_patch(h, d);
	else
		set_status(h, "no_patch", "the file it gave is the file as it is");
	free(d);
	free(old);
	free(body);
}

/* The answer object a model gave: cause_class, explanation, and a patch
 * (or file and content). */
static json_t *
from_answer(const lane *l, json_t *a)
{
	char *src_name = rt_xasprintf("model:%s", l->model);
	json_t *h = hyp_new(src_name, l->model, l->ang, jstr(a, "cause_class"),
	    jstr(a, "explanation"));
	json_t *pv = json_object_get(a, "patch");
	const char *patch = json_is_string(pv) ? json_string_value(pv) : jstr(a, "diff");
	const char *file = jstr(a, "file"), *content = jstr(a, "content");

	free(src_name);
	if (json_is_object(pv)) {
		file = jstr(pv, "file") ? jstr(pv, "file") : jstr(pv, "path");
		content = jstr(pv, "content");
	}
	if (!file)
		file = jstr(a, "path");
	if (patch && strspn(patch, " \t\r\n") < strlen(patch)) {
		if (looks_like_diff(patch))
			take_patch(h, patch);
		else if (file || nsrc == 1)
			take_file(h, file ? file : src[0].rel, patch);
		else
			set_status(h, "unparseable", "the patch is not a unified diff");
	} else if (file && content) {
		take_file(h, file, content);
	}
	return h;
}

/* The first JSON object in a model's text: all of it, or the first object
 * that parses from a '{' on (prose and fences around it are ignored). */
static json_t *
extract_object(const char *c)
{
	json_error_t e;
	json_t *j;
	const char *p;
	int tries = 0;

	if ((j = json_loads(c, 0, &e)) && json_is_object(j))
		return j;
	json_decref(j);
	for (p = strchr(c, '{'); p && tries < 64; p = strchr(p + 1, '{'), tries++) {
		j = json_loadb(p, strlen(p), JSON_DISABLE_EOF_CHECK, &e);
		if (j && json_is_object(j))
			return j;
		json_decref(j);
	}
	return NULL;
}

/* What the API said went wrong, for the error field (the key redacted on
 * output like everything else). */
static char *
api_message(const char *body)
{
	json_t *j = body ? json_loads(body, 0, NULL) : NULL, *e;
	const char *m = NULL;
	char *r;

	if (j) {
		e = json_object_get(j, "error");
		m = json_is_string(e) ? json_string_value(e) : jstr(e, "message");
		if (!m)
			m = jstr(j, "message");
	}
	r = m ? cut_utf8(m, 200, 1) : NULL;
	json_decref(j);
	return r;
}

static json_t *
parse_response(const lane *l, const char *body)
{
	char *srcname = rt_xasprintf("model:%s", l->model), *msg, *c, *why;
	json_t *j = json_loads(body, 0, NULL), *ch, *h, *a;
	const char *content, *finish, *think;

	if (!j || !json_is_object(j)) {
		h = hyp_fail(srcname, l->model, l->ang, "unparseable", "the response is not a JSON object");
		goto done;
	}
	if (json_object_get(j, "error") && !json_object_get(j, "choices")) {
		msg = api_message(body);
		why = rt_xasprintf("the API answered with an error: %s", msg ? msg : "(no message)");
		h = hyp_fail(srcname, l->model, l->ang, "http_error", why);
		free(why);
		free(msg);
		goto done;
	}
	ch = json_array_get(json_object_get(j, "choices"), 0);
	content = jstr(json_object_get(ch, "message"), "content");
	finish = jstr(ch, "finish_reason");
	if (finish && !strcmp(finish, "length")) {
		h = hyp_fail(srcname, l->model, l->ang, "truncated",
		    "the answer hit the token limit (finish_reason \"length\")");
		goto done;
	}
	if (!content || !*content) {
		h = hyp_fail(srcname, l->model, l->ang, "unparseable", "the response carries no message content");
		goto done;
	}
	/* reasoning models may think aloud first */
	if (!strncmp(content, "<think>", 7) && (think = strstr(content, "</think>")))
		content = think + 8;
	c = rt_xstrdup(content);
	if ((a = extract_object(c))) {
		h = from_answer(l, a);
		json_decref(a);
	} else if (looks_like_diff(c)) {
		h = hyp_new(srcname, l->model, l->ang, "unknown",
		    "The model answered with a bare diff and no explanation.");
		take_patch(h, c);
	} else {
		h = hyp_fail(srcname, l->model, l->ang, "unparseable",
		    "the answer is not the JSON object asked for");
	}
	free(c);
done:
	json_decref(j);
	free(srcname);
	return h;
}

/* ---- the cache (rt-diagnose(1), CACHE) -------------------------------- */

static char *
cache_default(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (opt.cache_opt)
		return rt_xstrdup(opt.cache_opt);
	if (x && x[0] == '/')
		return rt_xasprintf("%s/retrial", x);
	if (home && home[0] == '/')
		return rt_xasprintf("%s/.cache/retrial", home);
	return NULL;
}

static char *
cache_file(const char *dir, const char *kind, const char *key)
{
	return rt_xasprintf("%s/%s/%.2s/%s.jsonl", dir, kind, key, key);
}

/* The hypothesis entries of one cache file; NULL when there are none. */
static json_t *
cache_load(const char *path)
{
	char *text = rt_read_file(path, NULL), *p, *e;
	json_t *a, *j;

	if (!text)
		return NULL;
	a = json_array();
	for (p = text; *p; p = e ? e + 1 : p + strlen(p)) {
		e = strchr(p, '\n');
		if (e)
			*e = '\0';
		if (!*p)
			continue;
		j = json_loads(p, 0, NULL);
		if (j && json_is_object(j) && jstr(j, "type") &&
		    !strcmp(jstr(j, "type"), "hypothesis"))
			json_array_append(a, j);
		else
			vlog("%s: skipping a malformed cache entry", path);
		json_decref(j);
		if (!e)
			break;
	}
	free(text);
	if (json_array_size(a) == 0) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* Look kind/key up in the user's cache, then in the shipped one. */
static json_t *
cache_lookup(const char *kind, const char *key, const char **where)
{
	char *shipped = rt_xasprintf("%s/cache", rt_sharedir()), *f;
	const char *dirs[2] = { user_cache, shipped };
	json_t *a = NULL;
	int i;

	for (i = 0; i < 2 && !a; i++) {
		if (!dirs[i])
			continue;
		f = cache_file(dirs[i], kind, key);
		a = cache_load(f);
		vlog("cache %s %s: %s", kind, f, a ? "hit" : "miss");
		free(f);
		if (a)
			*where = i == 0 ? "user" : "shipped";
	}
	free(shipped);
	return a;
}

static void
cache_write(const char *path, json_t *entries)
{
	rt_buf b = {0};
	char *dir = rt_xstrdup(path), *line;
	json_t *e;
	size_t i;
	static int warned;

	*strrchr(dir, '/') = '\0';
	json_array_foreach(entries, i, e) {
		line = rt_dumps(e);
		rt_buf_adds(&b, line);
		rt_buf_addc(&b, '\n');
		free(line);
	}
	if ((mkdir_p(dir, 0700) < 0 || rt_write_file_atomic(path, b.data, b.len) < 0) &&
	    !warned++)
		rt_warn("cannot write the cache %s:", path);
	rt_buf_free(&b);
	free(dir);
}

/* Keep a usable answer under its exact key and under the sources key. */
static void
cache_store(json_t *h, const char *key)
{
	json_t *entry = json_deep_copy(h), *shas = json_object(), *all, *e;
	char *f;
	size_t i;

	json_object_del(entry, "id");
	json_object_del(entry, "error");
	for (i = 0; i < nsrc; i++)
		json_object_set_new(shas, src[i].rel, json_string(src[i].sha));
	json_object_set_new(entry, "source_sha256", shas);
	redact(entry);
	all = json_array();
	json_array_append(all, entry);
	f = cache_file(user_cache, "hypotheses", key);
	cache_write(f, all);
	free(f);
	json_decref(all);
	if (nsrc > 0) {
		f = cache_file(user_cache, "sources", srckey);
		if (!(all = cache_load(f)))
			all = json_array();
		json_array_foreach(all, i, e)
			if (json_equal(json_object_get(e, "patch"), json_object_get(entry, "patch")))
				break;
		if (i == json_array_size(all)) {
			json_array_append(all, entry);
			cache_write(f, all);
		}
		free(f);
		json_decref(all);
	}
	json_decref(entry);
}

/* A patch cached for the same file contents under other names: rename
 * the files to where those contents are now. */
static char *
rebase_patch(const char *patch, json_t *entry)
{
	json_t *shas = json_object_get(entry, "source_sha256"), *v;
	const char *old, *sha, *p = patch, *e;
	rt_buf b = {0};
	size_t i, n;

	if (!json_is_object(shas))
		return rt_xstrdup(patch);
	while (*p) {
		int done = 0;
		e = strchr(p, '\n');
		n = e ? (size_t)(e - p + 1) : strlen(p);
		if (n > 6 && (!strncmp(p, "--- a/", 6) || !strncmp(p, "+++ b/", 6))) {
			json_object_foreach(shas, old, v) {
				size_t ol = strlen(old);
				if (!(sha = json_string_value(v)) || n < 6 + ol ||
				    strncmp(p + 6, old, ol) != 0 ||
				    (p[6 + ol] != '\n' && p[6 + ol] != '\t' && p[6 + ol] != '\0'))
					continue;
				for (i = 0; i < nsrc; i++)
					if (!strcmp(src[i].sha, sha))
						break;
				if (i == nsrc)
					continue;
				rt_buf_add(&b, p, 6);
				rt_buf_adds(&b, src[i].rel);
				rt_buf_add(&b, p + 6 + ol, n - 6 - ol);
				done = 1;
				break;
			}
		}
		if (!done)
			rt_buf_add(&b, p, n);
		p += n;
	}
	p = rt_xstrdup(rt_buf_str(&b));
	rt_buf_free(&b);
	return (char *)p;
}

static json_t *
from_cache(json_t *entry, int rebase)
{
	const char *id = jstr(entry, "angle"), *patch = jstr(entry, "patch");
	const angle *a = NULL;
	json_t *h;
	char *p;
	size_t i;

	for (i = 0; id && i < NANGLES; i++)
		if (!strcmp(angles[i].id, id))
			a = &angles[i];
	h = hyp_new("cache", jstr(entry, "model"), a, jstr(entry, "cause_class"),
	    jstr(entry, "explanation"));
	if (patch) {
		p = rebase ? rebase_patch(patch, entry) : rt_xstrdup(patch);
		take_patch(h, p);
		free(p);
	}
	return h;
}

/* ---- asking the models ------------------------------------------------ */

static char *
lane_prompt(const lane *l, const char *const val[NSLOTS])
{
	const char *v[NSLOTS];

	memcpy(v, val, sizeof v);
	v[S_ANGLE] = l->ang->lens;
	return fill_template(template_text, v);
}

static char *
request_body(const lane *l, const char *prompt)
{
	json_t *b = json_object(), *msgs = json_array(), *m = json_object();
	char *s;

	json_object_set_new(b, "model", json_string(l->model));
	json_object_set_new(m, "role", json_string("user"));
	json_object_set_new(m, "content", rt_json_bytes(prompt, strlen(prompt)));
	json_array_append_new(msgs, m);
	json_object_set_new(b, "messages", msgs);
	json_object_set_new(b, "max_tokens", json_integer(opt.max_tokens));
	if (l->json_mode)
		json_object_set_new(b, "response_format", json_pack("{s:s}", "type", "json_object"));
	s = rt_dumps(b);
	json_decref(b);
	return s;
}

/* One answer: done (l->hyp set), or 0 to ask again. 429 and 5xx are
 * retried up to MAX_TRIES; a server that refuses response_format is asked
 * again without it. */
static int
settle(lane *l, const rt_http_resp *r)
{
	char *src_name = rt_xasprintf("model:%s", l->model), *msg = NULL, *why = NULL;
	const char *status = "http_error", *patch;

	l->tries++;
	if (r->truncated) {
		status = "truncated";
		why = rt_xasprintf("the response was larger than --max-response (%ld bytes)", opt.max_response);
	} else if (r->timed_out) {
		status = "timeout";
		why = rt_xasprintf("no answer within %g s", opt.timeout);
	} else if (r->status == 0) {
		why = rt_xasprintf("no HTTP response: %s", r->error[0] ? r->error : "unknown error");
	} else if ((r->status == 429 || r->status >= 500) &&
	    r->retry_after_s > MAX_RETRY_WAIT) {
		msg = api_message(r->body);
		why = rt_xasprintf("HTTP %ld and Retry-After %g s (more than %g s)%s%s",
		    r->status, r->retry_after_s, MAX_RETRY_WAIT, msg ? ": " : "", msg ? msg : "");
	} else if (r->status == 429 || r->status >= 500) {
		if (l->tries < MAX_TRIES) {
			l->wait_s = r->retry_after_s > 0 ? r->retry_after_s : 0;
			vlog("model %s: HTTP %ld, will try again%s", l->model, r->status,
			    l->wait_s > 0 ? " after its Retry-After" : "");
			free(src_name);
			return 0;
		}
		msg = api_message(r->body);
		why = rt_xasprintf("HTTP %ld after %d tries%s%s", r->status, l->tries,
		    msg ? ": " : "", msg ? msg : "");
	} else if (r->status == 400 && l->json_mode && r->body &&
	    contains_ci(r->body, "response_format") && l->tries < MAX_TRIES) {
		vlog("model %s: the server refuses response_format; asking without it", l->model);
		l->json_mode = 0;
		free(src_name);
		return 0;
	} else if (r->status < 200 || r->status > 299) {
		msg = api_message(r->body);
		why = rt_xasprintf("HTTP %ld%s%s", r->status, msg ? ": " : "", msg ? msg : "");
	} else if (r->error[0]) {
		why = rt_xasprintf("the transfer failed: %s", r->error);
	}
	if (why) {
		l->hyp = hyp_fail(src_name, l->model, l->ang, status, why);
	} else {
		l->hyp = parse_response(l, r->body ? r->body : "");
		/* redacting a patch would leave one that applies the wrong text */
		patch = jstr(l->hyp, "patch");
		if (patch && key_secret() && strstr(patch, api_key))
			set_status(l->hyp, "no_patch", "the patch holds the API key; it is dropped");
	}
	l->done = 1;
	free(msg);
	free(why);
	free(src_name);
	return 1;
}

static void
ask(lane **ls, size_t n, const char *const val[NSLOTS])
{
	const char *base = getenv("RETRIAL_API_BASE");
	char *url, *auth = NULL, *prompt;
	const char *headers[4];
	rt_http_req *req = rt_xcalloc(n, sizeof *req);
	rt_http_resp *resp = rt_xcalloc(n, sizeof *resp);
	char **bodies = rt_xcalloc(n, sizeof *bodies);
	size_t i, k, blen;
	lane **pend = rt_xcalloc(n, sizeof *pend);
	int round;

	if (!base || !*base)
		base = DEFAULT_BASE;
	if (strncmp(base, "http://", 7) != 0 && strncmp(base, "https://", 8) != 0)
		rt_die("RETRIAL_API_BASE %s: must start with http:// or https://", base);
	blen = strlen(base);
	while (blen > 0 && base[blen - 1] == '/')
		blen--;
	url = rt_xasprintf("%.*s/chat/completions", (int)blen, base);
	headers[0] = "Content-Type: application/json";
	headers[1] = "Accept: application/json";
	headers[2] = api_key ? (auth = rt_xasprintf("Authorization: Bearer %s", api_key)) : NULL;
	headers[3] = NULL;
	rt_http_init();
	for (round = 0; !got_sig; round++) {
		for (i = k = 0; i < n; i++)
			if (!ls[i]->done)
				pend[k++] = ls[i];
		if (k == 0)
			break;
		if (round > 0) {
			/* back off 0.5 s, 1 s, ...; longer when a server said how long */
			double ms = 500.0 * (1 << (round - 1));
			for (i = 0; i < k; i++)
				if (pend[i]->wait_s * 1000.0 > ms)
					ms = pend[i]->wait_s * 1000.0;
			rt_sleep_ms(ms);
			if (got_sig)
				break;
		}
		for (i = 0; i < k; i++) {
			prompt = lane_prompt(pend[i], val);
			bodies[i] = request_body(pend[i], prompt);
			free(prompt);
			req[i].method = "POST";
			req[i].url = url;
			req[i].headers = headers;
			req[i].body = bodies[i];
			req[i].body_len = strlen(bodies[i]);
			req[i].timeout_s = opt.timeout;
			req[i].max_response = (size_t)opt.max_response;
			req[i].verbose = opt.verbose;
			vlog("asking %s (angle %s, try %d): %zu-byte request; headers "
			    "Content-Type, Accept%s", pend[i]->model, pend[i]->ang->id,
			    pend[i]->tries + 1, req[i].body_len,
			    api_key ? ", Authorization (not shown)" : "");
		}
		rt_http_perform(req, resp, k);
		for (i = 0; i < k; i++) {
			/* an answer cut off by the signal is no answer */
			if (!(got_sig && resp[i].status == 0 &&
			    !strcmp(resp[i].error, "interrupted")))
				settle(pend[i], &resp[i]);
			rt_http_resp_free(&resp[i]);
			free(bodies[i]);
			bodies[i] = NULL;
		}
	}
	rt_http_cleanup();
	if (auth) {
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	free(url);
	free(req);
	free(resp);
	free(bodies);
	free(pend);
}

/* ---- main ------------------------------------------------------------- */

static size_t
parse_models(const char *list, char ***out)
{
	char *copy = rt_xstrdup(list ? list : ""), *tok, *save = NULL;
	char **v = NULL;
	size_t n = 0, k;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*tok))
			tok++;
		k = strlen(tok);
		while (k > 0 && isspace((unsigned char)tok[k - 1]))
			tok[--k] = '\0';
		if (k == 0)
			continue;
		if (api_key && !strcmp(tok, api_key))
			rt_usage_die("--models: an entry is the API key; give the key by "
			    "RETRIAL_API_KEY or --key-file, never on the command line");
		if (k > 200 || strspn(tok, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789._:/@+-") != k)
			rt_usage_die("--models: \"%.40s\": not a model name", tok);
		if (n == MAX_MODELS)
			rt_usage_die("--models: at most %d models", MAX_MODELS);
		v = rt_xrealloc(v, (n + 1) * sizeof *v);
		v[n++] = rt_xstrdup(tok);
	}
	free(copy);
	*out = v;
	return n;
}

/* Each model with its angle: the cached answer for this very evidence,
 * else (online) a fresh one, kept in the cache when usable. Appends to out
 * in model order; returns how many came from the cache. */
static size_t
consult_models(char **models, size_t n, const angle *const order[NANGLES],
    const char *const val[NSLOTS], const evidence *ev, json_t *out)
{
	lane *lanes = rt_xcalloc(n, sizeof *lanes), **toask = rt_xcalloc(n, sizeof *toask);
	size_t i, nask = 0, nhit = 0;
	const char *where, *status;
	json_t *hits;

	for (i = 0; i < n; i++) {
		lane *l = &lanes[i];
		l->model = models[i];
		l->ang = order[i % NANGLES];
		l->json_mode = 1;
		exact_key(l->model, l->ang, l->key);
		if (!opt.no_cache && (hits = cache_lookup("hypotheses", l->key, &where))) {
			l->hyp = from_cache(json_array_get(hits, 0), 0);
			nhit++;
			json_decref(hits);
		} else if (!opt.offline) {
			toask[nask++] = l;
		} else {
			rt_warn("--offline: no cached answer of %s (angle %s) for this evidence",
			    l->model, l->ang->id);
		}
	}
	if (nask > 0 && !ev->fail_stderr && !ev->pass_stderr)
		rt_warn("no trial records: the models see no output excerpt%s; "
		    "give the trials too (... | tee trials.jsonl | rt-diff-facts | "
		    "rt-diagnose -s FILE - trials.jsonl)", ev_command(ev) ? "" :
		    " and no command");
	if (nask > 0)
		ask(toask, nask, val);
	for (i = 0; i < nask; i++) {
		if (!toask[i]->hyp)  /* interrupted before it answered */
			continue;
		status = json_string_value(json_object_get(toask[i]->hyp, "status"));
		if (user_cache && !strcmp(status, "ok"))
			cache_store(toask[i]->hyp, toask[i]->key);
	}
	for (i = 0; i < n; i++)
		if (lanes[i].hyp)
			json_array_append_new(out, lanes[i].hyp);
	free(lanes);
	free(toask);
	return nhit;
}

/* ---- rule patches (rt-diagnose(1), RULE PATCHES) ---- */

/* Give rule hypothesis h the planner's answer: its patch (checked by
 * lib/rt_fix: it applies and parses), or no_patch with the reason. The
 * planner's explanation leads; the evidence the rule cited follows. */
static void
take_plan(json_t *h, json_t *plan)
{
	const char *st = jstr(plan, "status");

	if (st && !strcmp(st, "ok")) {
		/* what delta debugging spent goes last: the evidence is cut last
		 * but one */
		const char *note = jstr(plan, "note");
		char *e = rt_xasprintf("%s Evidence: %s%s%s", jstr(plan, "explanation"),
		    jstr(h, "explanation"), note ? " " : "", note ? note : "");
		char *c = cut_utf8(e, MAX_EXPLANATION, 1);
		json_object_set_new(h, "explanation", rt_json_bytes(c, strlen(c)));
		free(c);
		free(e);
		json_object_set(h, "patch", json_object_get(plan, "patch"));
		json_object_set(h, "files", json_object_get(plan, "files"));
		json_object_set_new(h, "status", json_string("ok"));
		json_object_del(h, "reason");
	} else {
		const char *why = jstr(plan, "reason");
		json_object_set_new(h, "status", json_string("no_patch"));
		json_object_set_new(h, "reason", rt_json_bytes(why ? why : "",
		    why ? strlen(why) : 0));
	}
	/* the build check's record: why a patch that parses was not emitted */
	if (json_is_object(json_object_get(plan, "build")))
		json_object_set(h, "build", json_object_get(plan, "build"));
	/* the language the change takes, newer than the module declares */
	if (json_is_string(json_object_get(plan, "needs")))
		json_object_set(h, "needs", json_object_get(plan, "needs"));
}

/* The two references rt-bisect judged its search probes against (its
 * record's "references"), for the probes here to be judged the same way;
 * left unset (the fixed rule) when the record has none or they are not
 * a pair of bounds with the passing one below the failing one. */
static void
order_refs(json_t *order, rt_fix_probe *pr)
{
	json_t *r = json_object_get(order, "references");
	json_t *hi = json_object_get(r, "pass_high"), *lo = json_object_get(r, "fail_low");
	json_t *c = json_object_get(r, "confidence"), *cap = json_object_get(r, "cap");

	if (!json_is_number(hi) || !json_is_number(lo) || !json_is_number(c))
		return;
	if (!(json_number_value(hi) >= 0 && json_number_value(hi) < json_number_value(lo) &&
	    json_number_value(lo) <= 1 && json_number_value(c) > 0 && json_number_value(c) < 1))
		return;
	pr->refs.have = 1;
	pr->refs.pass_hi = json_number_value(hi);
	pr->refs.fail_lo = json_number_value(lo);
	pr->refs.conf = json_number_value(c);
	pr->refs_cap = json_is_integer(cap) && json_integer_value(cap) > 0 &&
	    json_integer_value(cap) <= 10000 ? (long)json_integer_value(cap) : 60;
}

/* The order rule's patch: a setter's or a cleaner's statements run first
 * in the victim, shrunk by delta debugging to those that make it pass
 * (each probe the victim run by the order record's command), else the
 * polluter's state reset in the victim's setup. For a cleaner, a second
 * hypothesis: the same statements in the polluter's teardown (returned,
 * or NULL). */
static json_t *
order_patch(json_t *h, json_t *detail, const evidence *ev)
{
	const char *cat = jstr(detail, "category"), *victim = jstr(detail, "victim");
	const char *helper = NULL, *role = NULL, *fix;
	json_t *req, *plan, *set, *h2 = NULL;

	if (!cat || !victim)
		return NULL;
	if (jstr(detail, "cleaner")) {
		helper = jstr(detail, "cleaner");
		role = "cleaner";
	} else {
		int brittle = !strcmp(cat, "brittle");
		set = json_object_get(detail, brittle ? "setters" : "polluters");
		if (json_array_size(set) == 1 || (!brittle && json_array_size(set) > 1 &&
		    rt_runner_of(rt_runner_detect(jstr(ev->order, "command"),
		    NULL))->order_fix)) {
			helper = json_string_value(json_array_get(set, 0));
			role = brittle ? "setter" : "polluter";
		}
	}
	if (!helper) {
		json_object_set_new(h, "reason", json_string("no single state-setter, "
		    "polluter or cleaner to take a repair from"));
		return NULL;
	}
	set = json_object_get(detail, "shared");
	req = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "kind", "order", "category", cat,
	    "victim", victim, "helper", helper, "role", role, "shared",
	    json_is_array(set) ? json_deep_copy(set) : json_array());
	fix = rt_runner_of(rt_runner_detect(jstr(ev->order, "command"), NULL))->order_fix;
	if (fix) {
		/* go test: the polluter's package-level vars put back by t.Cleanup */
		json_t *g = json_pack("{s:s, s:O, s:s}", "kind", fix, "polluters",
		    json_object_get(detail, "polluters"), "victim", victim);
		if (!strcmp(role, "polluter"))
			plan = rt_fix_plan(root, ev_command(ev), g);
		else
			plan = json_pack("{s:s, s:s}", "status", "no_patch", "reason", "for go "
			    "test, only a polluter's package-level vars are restored (t.Cleanup); "
			    "a setter's or cleaner's statements are not copied");
		json_decref(g);
	} else if (!strcmp(role, "polluter")) {
		/* the reset is checked: the polluter, then the victim, with it */
		json_t *order = json_pack("[s, s]", helper, victim), *v;
		rt_fix_probe pr = { jstr(ev->order, "command"), order, victim,
		    opt.max_probes, 0, &got_sig, { 0, 0, 0, 0 }, 0 };
		order_refs(ev->order, &pr);
		char *what = NULL, *w;
		size_t i;
		json_array_foreach(set, i, v) {
			if (!json_is_string(v))
				continue;
			w = what ? rt_xasprintf("%s, %s", what, json_string_value(v)) :
			    rt_xstrdup(json_string_value(v));
			free(what);
			what = w;
		}
		plan = rt_fix_check(root, ev_command(ev), req, &pr,
		    what ? what : "the polluted state");
		free(what);
		json_decref(order);
		if (json_object_get(plan, "checked"))
			json_object_set(h, "checked", json_object_get(plan, "checked"));
	} else {
		/* the setter's statements make the victim pass alone; the
		 * cleaner's make it pass after its polluter */
		json_t *order = !strcmp(role, "setter") ? json_pack("[s]", victim) :
		    json_deep_copy(json_object_get(detail, "confirm"));
		rt_fix_probe pr = { jstr(ev->order, "command"), order, victim,
		    opt.max_probes, 0, &got_sig, { 0, 0, 0, 0 }, 0 };
		order_refs(ev->order, &pr);
		plan = rt_fix_minimise(root, ev_command(ev), req, &pr);
		json_decref(order);
		if (json_object_get(plan, "minimise"))
			json_object_set(h, "minimise", json_object_get(plan, "minimise"));
		if (!strcmp(role, "cleaner") && !strcmp(jstr(plan, "status"), "ok") &&
		    json_array_size(json_object_get(detail, "polluters")) == 1) {
			json_t *q = json_deep_copy(req), *p2;
			json_object_set(q, "keep", json_object_get(plan, "keep"));
			json_object_set_new(q, "place", json_string("teardown"));
			json_object_set(q, "polluter", json_array_get(json_object_get(detail,
			    "polluters"), 0));
			p2 = rt_fix_plan(root, ev_command(ev), q);
			h2 = hyp_new("rules", NULL, NULL, jstr(h, "cause_class"), jstr(h, "explanation"));
			json_object_set(h2, "order", detail);
			json_object_set(h2, "rests_on", json_object_get(h, "rests_on"));
			json_object_set(h2, "minimise", json_object_get(plan, "minimise"));
			take_plan(h2, p2);
			json_decref(p2);
			json_decref(q);
		}
	}
	take_plan(h, plan);
	json_decref(plan);
	json_decref(req);
	return h2;
}

/* The hash-order rule: each iteration over a set in the sources' code
 * (not their tests), sorted; the rule's hypothesis takes the first
 * candidate site, each further one is a hypothesis of its own. */
static void
hash_patches(json_t *out, json_t *h, const evidence *ev)
{
	json_t *files = json_array(), *req, *plan, *c, *h2;
	char *expl = rt_xstrdup(jstr(h, "explanation"));
	size_t i, used = 0;

	for (i = 0; i < nsrc; i++) {
		const char *lang = rt_src_lang(src[i].rel);
		if (lang && !strcmp(lang, "python"))
			json_array_append_new(files, json_string(src[i].rel));
	}
	if (json_array_size(files) == 0) {
		json_object_set_new(h, "reason", json_string("no Python source given "
		    "(--source) to find the set iteration in"));
		json_decref(files);
		free(expl);
		return;
	}
	req = json_pack("{s:s, s:o}", "kind", "hash", "files", files);
	plan = rt_fix_plan(root, ev_command(ev), req);
	json_array_foreach(json_object_get(plan, "candidates"), i, c) {
		if (strcmp(jstr(c, "status"), "ok") != 0)
			continue;
		if (used++ == 0) {
			take_plan(h, c);
			continue;
		}
		h2 = hyp_new("rules", NULL, NULL, "hash_order", expl);
		json_object_set(h2, "rests_on", json_object_get(h, "rests_on"));
		take_plan(h2, c);
		json_array_append_new(out, h2);
	}
	if (used == 0)
		take_plan(h, json_object_get(plan, "candidates") ?
		    json_array_get(json_object_get(plan, "candidates"), 0) : plan);
	json_decref(plan);
	json_decref(req);
	free(expl);
}

/* The map-order rule for Go: each range over a map with an ordered key in
 * the Go sources' code (not their tests) ranges over the keys sorted, one
 * hypothesis per loop. Go randomises map iteration on every run, so no
 * experiment is needed to suspect it; the tournament decides. */
static void
maprange_patches(json_t *out, const evidence *ev)
{
	json_t *files = json_array(), *req, *plan, *c, *h;
	size_t i;

	for (i = 0; i < nsrc; i++) {
		size_t l = strlen(src[i].rel);
		if (l > 3 && !strcmp(src[i].rel + l - 3, ".go") &&
		    !(l > 8 && !strcmp(src[i].rel + l - 8, "_test.go")) &&
		    strstr(src[i].text, "range "))
			json_array_append_new(files, json_string(src[i].rel));
	}
	if (json_array_size(files) == 0) {
		json_decref(files);
		return;
	}
	req = json_pack("{s:s, s:o}", "kind", "maprange", "files", files);
	plan = rt_fix_plan(root, ev_command(ev), req);
	json_array_foreach(json_object_get(plan, "candidates"), i, c) {
		/* a loop whose patch would not build (the module's language, the
		 * build check) is a hypothesis without one, saying why */
		if (strcmp(jstr(c, "status"), "ok") != 0 && !json_object_get(c, "build") &&
		    !json_object_get(c, "needs"))
			continue;
		h = hyp_new("rules", NULL, NULL, "hash_order", "");
		/* Go randomises every map range: the code itself is the evidence */
		json_object_set_new(h, "rests_on", json_pack("[{s:s?}]", "source", jstr(c, "file")));
		take_plan(h, c);
		json_array_append_new(out, h);
	}
	json_decref(plan);
	json_decref(req);
}

/* The seed rule: each Python test source whose module seeds the random
 * module at import gets a hypothesis that moves the seed into the tests
 * that draw. Sources without one give nothing (no hypothesis, no noise). */
static void
seed_patches(json_t *out, const evidence *ev)
{
	size_t i;

	for (i = 0; i < nsrc; i++) {
		const char *lang = rt_src_lang(src[i].rel);
		json_t *req, *plan, *h;
		if (!lang || strcmp(lang, "python") || !strstr(src[i].text, "seed("))
			continue;
		req = json_pack("{s:s, s:[s]}", "kind", "seed", "files", src[i].rel);
		plan = rt_fix_plan(root, ev_command(ev), req);
		if (!strcmp(jstr(plan, "status"), "ok")) {
			h = hyp_new("rules", NULL, NULL, "randomness", "");
			json_object_set_new(h, "rests_on", json_pack("[{s:s}]", "source", src[i].rel));
			take_plan(h, plan);
			json_array_append_new(out, h);
		}
		json_decref(plan);
		json_decref(req);
	}
}

/* The timing rule's patch: the failing clock check's bound widened from
 * the measured values (rt-fix.py's "timing"), flagged "loosens" so a
 * reader and rt-verify's guard see a timing check loosened. */
static void
timing_patch(json_t *h, evidence *ev)
{
	json_t *req, *plan;

	if (!ev->clock_file) {
		json_object_set_new(h, "reason", json_string("no failure message names "
		    "the clock check's file and line"));
		return;
	}
	/* the trial records' values; a diff record's excerpt repeats one of
	 * them, so it counts only without them */
	if (ev->clock_values == 0) {
		ev->clock_values = ev->ex_values;
		ev->clock_max = ev->ex_max;
	}
	req = json_pack("{s:s, s:s, s:i, s:o, s:i}", "kind", "timing", "file",
	    ev->clock_file, "line", (json_int_t)ev->clock_line, "observed",
	    ev->clock_values ? json_real(ev->clock_max) : json_null(), "values",
	    (json_int_t)ev->clock_values);
	plan = rt_fix_plan(root, ev_command(ev), req);
	take_plan(h, plan);
	if (json_is_object(json_object_get(plan, "loosens")))
		json_object_set(h, "loosens", json_object_get(plan, "loosens"));
	json_decref(plan);
	json_decref(req);
}

/* Does a hypothesis name a cause class (not "unknown"), or carry a patch? */
static int
named_cause(json_t *out)
{
	json_t *h;
	size_t i;

	json_array_foreach(out, i, h)
		if (strcmp(jstr(h, "cause_class"), "unknown") != 0 || jstr(h, "patch"))
			return 1;
	return 0;
}

static void
usage(void)
{
	fputs(usage_text, stdout);
	rt_fshut(stdout, "stdout");
	exit(RT_EXIT_OK);
}

int
main(int argc, char *argv[])
{
	enum { O_CACHE = 256, O_KEYFILE, O_MAXRESP, O_MAXTOK, O_NOCACHE,
		O_OFFLINE, O_RULES, O_TEMPLATE, O_LISTRULES, O_MAXPROBES };
	static const struct option lo[] = {
		{ "project", required_argument, NULL, 'C' },
		{ "source", required_argument, NULL, 's' },
		{ "models", required_argument, NULL, 'm' },
		{ "timeout", required_argument, NULL, 't' },
		{ "cache", required_argument, NULL, O_CACHE },
		{ "key-file", required_argument, NULL, O_KEYFILE },
		{ "list-rules", no_argument, NULL, O_LISTRULES },
		{ "max-response", required_argument, NULL, O_MAXRESP },
		{ "max-probes", required_argument, NULL, O_MAXPROBES },
		{ "max-tokens", required_argument, NULL, O_MAXTOK },
		{ "no-cache", no_argument, NULL, O_NOCACHE },
		{ "offline", no_argument, NULL, O_OFFLINE },
		{ "rules", no_argument, NULL, O_RULES },
		{ "template", required_argument, NULL, O_TEMPLATE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		RT_LIST_OPTIONS_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	char **srcargs = NULL, **models, *v[NSLOTS];
	const char *where, *tok;
	const angle *order[NANGLES] = { NULL };
	const char *const *cv;
	size_t nsrcargs = 0, nmodels, i, j, nhit = 0;
	int c;
	evidence ev = {0};
	rt_jsonl_opts jo = {0};
	json_t *rules, *out, *hits, *r, *h;
	rt_buf cl = {0};
	int rc = RT_EXIT_OK;

	rt_setprogname(argv[0]);
	rt_secret_protect();
	opterr = 0;
	rt_config_apply("rt-diagnose", lo, &argc, &argv);
	while ((c = getopt_long(argc, argv, "C:hm:s:t:Vv", lo, NULL)) != -1) {
		switch (c) {
		case 'C': opt.project = optarg; break;
		case 's':
			srcargs = rt_xrealloc(srcargs, (nsrcargs + 1) * sizeof *srcargs);
			srcargs[nsrcargs++] = optarg;
			break;
		case 'm': opt.models_opt = optarg; break;
		case 't': opt.timeout = rt_num_double("--timeout", optarg, 0, 3600, 1, 0); break;
		case O_CACHE: opt.cache_opt = optarg; break;
		case O_KEYFILE: opt.key_file = optarg; break;
		case O_LISTRULES: list_rules(); break;
		case O_MAXRESP: opt.max_response = rt_num_long("--max-response", optarg, 1024, 1L << 30); break;
		case O_MAXPROBES: opt.max_probes = rt_num_long("--max-probes", optarg, 0, 10000); break;
		case O_MAXTOK: opt.max_tokens = rt_num_long("--max-tokens", optarg, 16, 1L << 20); break;
		case O_NOCACHE: opt.no_cache = 1; break;
		case O_OFFLINE: opt.offline = 1; break;
		case O_RULES: opt.rules = 1; break;
		case O_TEMPLATE: opt.template_path = optarg; break;
		case 'v': opt.verbose = 1; break;
		case RT_OPT_LIST_OPTIONS: return rt_cli_list_options(lo);
		case 'h': usage(); break;
		case 'V': rt_print_version(); rt_fshut(stdout, "stdout"); return RT_EXIT_OK;
		default: rt_bad_option(c, "C:hm:s:t:Vv", argv);
		}
	}
	if (opt.offline && opt.no_cache && !opt.rules)
		rt_usage_die("--offline with --no-cache leaves nothing to answer from; add --rules");
	{
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;  /* no SA_RESTART: waits end early */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		rt_http_stop_on(&got_sig);
	}

	/* the project, its sources, the key, the models, the template */
	if (!(root = realpath(opt.project, NULL)))
		rt_die("-C %s:", opt.project);
	{
		struct stat st;
		if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
			rt_die("-C %s: not a directory", opt.project);
	}
	for (i = 0; i < nsrcargs; i++)
		add_source(srcargs[i]);
	free(srcargs);
	if (nsrc > 1)
		qsort(src, nsrc, sizeof *src, cmp_source);
	api_key = load_key();
	nmodels = parse_models(opt.models_opt ? opt.models_opt : getenv("RETRIAL_MODELS"), &models);
	load_template();
	user_cache = opt.no_cache ? NULL : cache_default();

	/* the evidence */
	ev.facts = json_array();
	ev.experiments = json_array();
	ev.case_fails = json_object();
	ev.case_runs = json_object();
	ev.trial_seeds = json_object();
	ev.case_outs = json_object();
	rt_jsonl_loop(argc - optind, argv + optind, &jo, on_record, &ev);
	if (jo.records == 0)
		rt_warn("no records read: the diagnosis rests on the sources alone");
	make_digests(&ev);
	vlog("evidence digest %s; sources key %s", digest, srckey);
	rules = make_rules(&ev);
	order_angles(rules, order);

	/* the prompt's evidence, the same for every model */
	for (cv = classes; *cv; cv++)
		rt_buf_printf(&cl, "%s%s", cl.len ? ", " : "", *cv);
	tok = ev.diff ? jstr(ev.diff, "token") : NULL;
	v[S_COMMAND] = rt_xstrdup(ev_command(&ev) ? ev_command(&ev) : "(not recorded)");
	v[S_RATE] = rate_text(&ev);
	v[S_FACTS] = facts_text(&ev);
	v[S_TOKEN] = rt_xstrdup(tok ? tok : "(none: no single word is in every failure and no success)");
	v[S_FAIL] = rt_xstrdup(!ev.fail_stderr ? "(no failing trial record given)" :
	    *ev.fail_stderr ? ev.fail_stderr : "(empty)");
	v[S_PASS] = rt_xstrdup(!ev.pass_stderr ? "(no passing trial record given)" :
	    *ev.pass_stderr ? ev.pass_stderr : "(empty)");
	v[S_FAIL_STREAM] = rt_xstrdup(!ev.fail_stderr ? "output" : rt_stream_name(ev.fail_stream));
	v[S_PASS_STREAM] = rt_xstrdup(!ev.pass_stderr ? "output" : rt_stream_name(ev.pass_stream));
	v[S_EXPERIMENTS] = experiments_text(&ev);
	v[S_SOURCES] = sources_text();
	v[S_RULES] = rules_text(rules);
	v[S_CLASSES] = rt_xstrdup(rt_buf_str(&cl));
	v[S_ORDER] = order_text(&ev);
	v[S_ORDER_SOURCES] = order_sources_text(&ev);
	v[S_ANGLE] = NULL;
	rt_buf_free(&cl);

	/* each model: its exact cache entry, else (online) ask it */
	out = json_array();
	nhit = consult_models(models, nmodels, order, (const char *const *)v, &ev, out);

	/* no model to ask: what was cached for these very sources */
	if (!opt.no_cache && nsrc > 0 && (nmodels == 0 || (opt.offline && nhit == 0)) &&
	    (hits = cache_lookup("sources", srckey, &where))) {
		vlog("%zu hypotheses cached for these sources (%s cache)", json_array_size(hits), where);
		json_array_foreach(hits, j, h)
			json_array_append_new(out, from_cache(h, 1));
		json_decref(hits);
	}

	/* rules: asked for, or all there is */
	if (opt.rules || (nmodels == 0 && json_array_size(out) == 0 && !opt.offline)) {
		if (!opt.rules)
			rt_warn("no model configured (RETRIAL_MODELS) and nothing cached: "
			    "rule-based hypotheses only");
		json_array_foreach(rules, j, r) {
			h = hyp_new("rules", NULL, NULL, jstr(r, "cause_class"), jstr(r, "explanation"));
			json_t *h2 = NULL;
			json_object_set(h, "rests_on", json_object_get(r, "rests_on"));
			if (json_object_get(r, "bisect"))
				json_object_set(h, "bisect", json_object_get(r, "bisect"));
			if (json_object_get(r, "order")) {
				json_object_set(h, "order", json_object_get(r, "order"));
				h2 = order_patch(h, json_object_get(r, "order"), &ev);
			}
			json_array_append_new(out, h);
			if (h2)
				json_array_append_new(out, h2);
			if (!strcmp(jstr(h, "cause_class"), "hash_order"))
				hash_patches(out, h, &ev);
			if (!strcmp(jstr(h, "cause_class"), "timing") && json_object_get(r, "clock"))
				timing_patch(h, &ev);
		}
		seed_patches(out, &ev);
		maprange_patches(out, &ev);
	}
	if (got_sig) {
		rt_warn("interrupted by %s: the hypotheses finished so far follow",
		    got_sig == SIGINT ? "SIGINT" : got_sig == SIGHUP ? "SIGHUP" : "SIGTERM");
		rc = rt_signal_status(got_sig);
	} else if (json_array_size(out) > 0 && !named_cause(out)) {
		/* EXIT STATUS: "no hypothesis names a cause" */
		rt_warn("no hypothesis names a cause: %zu written, each unknown%s",
		    json_array_size(out), nmodels ? " or a model's failure" : "");
		rc = RT_EXIT_ERR;
	} else if (json_array_size(out) == 0) {
		char *shipped = rt_xasprintf("%s/cache", rt_sharedir());
		rt_warn("--offline: no cached hypothesis for this evidence%s (looked in %s%s%s); "
		    "run online with RETRIAL_MODELS set, or add --rules",
		    nsrc ? " and these sources" : " (and no --source to look up)",
		    user_cache ? user_cache : "", user_cache ? " and " : "", shipped);
		free(shipped);
		rc = RT_EXIT_ERR;
	}

	json_array_foreach(out, j, h) {
		char id[32];
		snprintf(id, sizeof id, "h%zu", j + 1);
		json_object_set_new(h, "id", json_string(id));
		redact(h);
		rt_emit(stdout, h);
	}
	rt_fshut(stdout, "stdout");

	json_decref(out);
	json_decref(rules);
	json_decref(ev.measure);
	json_decref(ev.diff);
	json_decref(ev.order);
	json_decref(ev.facts);
	json_decref(ev.experiments);
	json_decref(ev.case_fails);
	json_decref(ev.case_runs);
	json_decref(ev.trial_seeds);
	json_decref(ev.case_outs);
	free(ev.case_file);
	free(ev.clock_file);
	free(ev.fail_stderr);
	free(ev.pass_stderr);
	free(ev.trial_command);
	for (i = 0; i < NSLOTS; i++)
		free(v[i]);
	for (i = 0; i < nmodels; i++)
		free(models[i]);
	free(models);
	for (i = 0; i < nsrc; i++) {
		free(src[i].rel);
		free(src[i].text);
	}
	free(src);
	free(root);
	free(template_text);
	free((char *)template_name);
	free(user_cache);
	if (api_key) {
		memset(api_key, 0, strlen(api_key));
		free(api_key);
	}
	return rc;
}
