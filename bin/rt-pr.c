/* rt-pr: ship rt-verify's verdict — the evidence dossier (Markdown), a
 * git-am-able mbox, a GitHub pull request, or a quarantine change, with
 * the evidence a reviewer reruns committed beside the fix. */
#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "rt_config.h"
#include "rt_git.h"
#include "rt_github.h"
#include "rt_hash.h"
#include "rt_http.h"
#include "rt_cli.h"
#include "rt_codeowners.h"
#include "rt_jsonl.h"
#include "rt_records.h"
#include "rt_runner.h"
#include "rt_out.h"
#include "rt_patch.h"
#include "rt_quarantine.h"
#include "rt_stats.h"
#include "rt_tmpl.h"
#include "rt_util.h"


#define DEFAULT_QFILE  ".retrial/quarantine"
#define DOSSIER_DIR    ".retrial/dossiers"
#define EVIDENCE_DIR   ".retrial/evidence"
#define DEFAULT_AUTHOR RT_GIT_DEFAULT_AUTHOR
#define TOKEN_ENV      "RETRIAL_GITHUB_TOKEN"

static const char *opt_dir = ".", *opt_mbox, *opt_body, *opt_github;
static const char *opt_base, *opt_tmpl, *opt_author;
static const char *opt_qfile = DEFAULT_QFILE, *opt_test, *opt_token_file;
static int opt_verbose, opt_draft;
/* --allow-path GLOB: dangerous paths the user lets ship (rt_patch_dangerous);
 * g_permitted names the ones the winner's patch touches, for the dossier */
static char **opt_allow_path, *g_permitted;
static size_t opt_nallow_path;

static rt_gh G;                     /* its token scrubbed from every message we print */

/* What an interrupted push leaves behind, said on the way out. */
static char pushed_note[1024];

static void
usage(void)
{
	printf("usage: rt-pr [-v] [-C dir] [-t template] [-q file] [-a author] [--test name]\n"
	    "             [-b body] [-m mbox] [-g owner/repo [--base branch]\n"
	    "             [--token-file file] [--draft]] [--allow-path glob] [verdict-file]\n"
	    "  -b, --body FILE            write the dossier (Markdown) to FILE (- stdout)\n"
	    "  -m, --mbox FILE            write the change as a git-am-able mbox (- stdout)\n"
	    "  -g, --github OWNER/REPO    open a pull request on GitHub\n"
	    "      --base BRANCH          pull request base (the repository's default branch)\n"
	    "      --token-file FILE      read the token from FILE instead of GITHUB_TOKEN\n"
	    "      --draft                open the pull request as a draft\n"
	    "  -C, --directory DIR        the project, in a git work tree (.)\n"
	    "  -t, --template FILE        dossier template (share/retrial/dossier.md.tmpl)\n"
	    "  -q, --quarantine-file PATH quarantine list in the project (" DEFAULT_QFILE ")\n"
	    "      --test NAME            the test's name (the record's \"test\")\n"
	    "      --allow-path GLOB      let the patch touch CI configuration, hooks,\n"
	    "                             .gitmodules or .gitattributes matching GLOB\n"
	    "  -a, --author 'NAME <EMAIL>' author of the change (" DEFAULT_AUTHOR ")\n"
	    "  -v, --verbose              log git commands and HTTP requests to stderr\n"
	    "  -h, --help                 this help\n"
	    "  -V, --version              print the version\n");
}

/* ---- small text helpers ---- */

/* Replace every occurrence of the token with "***" (in place is not
 * possible in general, so a new string). */
static char *
scrub(const char *s)
{
	return rt_gh_scrub(&G, s);
}

/* The first lines of a program's complaint, scrubbed, on one line. */
static char *
complaint(const char *err)
{
	char *s = scrub(err), *c = rt_proc_complaint(s);

	free(s);
	return c;
}

static int
is_blank_or_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* Plain one-line text: control characters become spaces. */
static char *
plain(const char *s)
{
	char *p = rt_xstrdup(s), *q;
	for (q = p; *q; q++)
		if (is_blank_or_ctl((unsigned char)*q))
			*q = ' ';
	return p;
}

/* Inline Markdown from untrusted text: one line, punctuation that could
 * format or inject HTML escaped, @mentions and #N issue references
 * defused with a zero-width space. */
static char *
md(const char *s)
{
	rt_buf b = {0};
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p;
		if (is_blank_or_ctl(c)) {
			rt_buf_addc(&b, ' ');
		} else if ((c == '@' && isalnum(p[1])) || (c == '#' && isdigit(p[1]))) {
			rt_buf_addc(&b, (char)c);
			rt_buf_adds(&b, "\xE2\x80\x8B");
		} else if (strchr("\\`*[]<>|~", c) || (c == '#' && p == (const unsigned char *)s)) {
			rt_buf_addc(&b, '\\');
			rt_buf_addc(&b, (char)c);
		} else if (c == '_' && !(p > (const unsigned char *)s && isalnum(p[-1]) && isalnum(p[1]))) {
			rt_buf_adds(&b, "\\_");
		} else {
			rt_buf_addc(&b, (char)c);
		}
	}
	if (!b.data)
		rt_buf_adds(&b, "");
	return b.data;
}

static size_t
longest_backtick_run(const char *s)
{
	size_t best = 0, run = 0;
	for (; *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

/* A Markdown code span holding s verbatim (on one line). */
static char *
code(const char *s)
{
	char *t = plain(s);
	size_t n = strlen(t), k = longest_backtick_run(t) + 1, i;
	int pad = n > 0 && (t[0] == '`' || t[0] == ' ' || t[n - 1] == '`' || t[n - 1] == ' ');
	rt_buf b = {0};

	if (n == 0) {
		free(t);
		return rt_xstrdup("(empty)");
	}
	for (i = 0; i < k; i++)
		rt_buf_addc(&b, '`');
	if (pad)
		rt_buf_addc(&b, ' ');
	rt_buf_adds(&b, t);
	if (pad)
		rt_buf_addc(&b, ' ');
	for (i = 0; i < k; i++)
		rt_buf_addc(&b, '`');
	free(t);
	return b.data;
}

/* A path component from a test name: [a-z0-9_-], runs of anything else
 * become one '-', at most 48 characters. */
static char *
slugify(const char *s)
{
	rt_buf b = {0};
	int dash = 0;

	for (; *s && b.len < 48; s++) {
		unsigned char c = (unsigned char)*s;
		if (isalnum(c) || c == '_') {
			if (dash && b.len)
				rt_buf_addc(&b, '-');
			dash = 0;
			rt_buf_addc(&b, (char)tolower(c));
		} else {
			dash = 1;
		}
	}
	if (!b.len)
		rt_buf_adds(&b, "test");
	return b.data;
}

/* Is p a safe relative path inside the project? */
static int
safe_relpath(const char *p)
{
	const char *c;

	if (!*p || *p == '/' || strchr(p, '\\'))
		return 0;
	for (c = p; *c; c++)
		if (is_blank_or_ctl((unsigned char)*c))
			return 0;
	for (c = p; c; c = strchr(c, '/')) {
		if (*c == '/')
			c++;
		if (*c == '/' || *c == '\0' || (c[0] == '.' && (c[1] == '/' || c[1] == '\0')) ||
		    (c[0] == '.' && c[1] == '.' && (c[2] == '/' || c[2] == '\0')))
			return 0;
	}
	return 1;
}

static void
on_signal(int sig)
{
	rt_git_cleanup();
	if (pushed_note[0]) {
		ssize_t w = write(2, pushed_note, strlen(pushed_note));
		(void)w;
	}
	_exit(rt_signal_status(sig));
}

/* ---- the verdict record ---- */

/* The interval a record's "interval" names: the one its decision used.
 * rt-pr recomputes it from the counts by the same method. */
enum { M_WILSON, M_ANYTIME, M_EXACT };

typedef struct {
	const char *id, *source, *model, *cause, *status, *reason, *rule;
	long trials, failures;
	int method;
} lane_t;

typedef struct {
	const char *id, *rule;
	long trials, failures, required;
	int passed;          /* 1, 0, or -1 when the record does not say */
	int method;
	double conf;         /* the round's confidence c_m (the record's when absent) */
} conf_t;

typedef struct {
	json_t *rec;
	rt_where where;
	int nrecords;
	const char *verdict, *command, *test;
	double conf, target;
	int has_target, interrupted, b_input;
	long b_trials, b_failures, b_errors;
	lane_t *lanes;
	size_t nlanes;
	conf_t *confs;
	size_t nconfs;
	int has_winner;
	const char *w_id, *w_source, *w_model, *w_cause, *w_expl, *w_patch;
	const char **repro;
	size_t nrepro;
	json_t *timings;
	long long epoch;
	int has_epoch;
} verdict_t;

static int
on_record(json_t *rec, const rt_where *w, void *ctx)
{
	verdict_t *v = ctx;

	if (strcmp(json_string_value(json_object_get(rec, "type")), "verdict") != 0)
		return 0;
	json_decref(v->rec);
	v->rec = json_incref(rec);
	v->where = *w;
	v->nrecords++;
	return 0;
}

static long
count_field(json_t *o, const char *key, const rt_where *w, int required)
{
	long long v = 0;

	if (required)
		return (long)rt_rec_int(o, key, 0, LONG_MAX, w);
	if (rt_rec_opt_int(o, key, w, &v) && v < 0)
		rt_die_at(w, "\"%s\": %lld is negative", key, v);
	return (long)v;
}

static const char *
opt_str(json_t *o, const char *key, const rt_where *w)
{
	const char *s = NULL;
	rt_rec_opt_str(o, key, w, &s);
	return s;
}

/* Days since 1970-01-01 of a Gregorian date (Hinnant's days_from_civil). */
static long long
days_from_civil(long long y, unsigned m, unsigned d)
{
	long long era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long long)doe - 719468;
}

/* RFC 3339 ("2026-11-29T23:59:59.123Z", "...+01:00") to seconds. */
static int
parse_rfc3339(const char *s, long long *out)
{
	int y, mo, d, h, mi, se, n = 0, oh, om;
	long long off = 0;
	const char *p;

	if (sscanf(s, "%4d-%2d-%2d%*1[Tt ]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &n) != 6 || !n)
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
		return -1;
	p = s + n;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	if (*p == 'Z' || *p == 'z')
		p++;
	else if ((*p == '+' || *p == '-') && sscanf(p + 1, "%2d:%2d", &oh, &om) == 2) {
		off = (oh * 3600LL + om * 60LL) * (*p == '-' ? -1 : 1);
		p += 6;
	} else
		return -1;
	if (*p)
		return -1;
	*out = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600LL + mi * 60LL + se - off;
	return 0;
}

static int
interval_method(json_t *o, const char *id, long failures, const rt_where *w)
{
	const char *m = opt_str(o, "interval", w);

	if (!m || strcmp(m, "wilson") == 0)
		return M_WILSON;
	if (strcmp(m, "anytime") == 0)
		return M_ANYTIME;
	if (strcmp(m, "exact one-sided") == 0) {
		if (failures > 0)
			rt_die_at(w, "%s: an exact one-sided interval is for 0 failures, not %ld",
			    id, failures);
		return M_EXACT;
	}
	rt_die_at(w, "%s: \"interval\": unknown method \"%s\" (wilson, anytime, exact one-sided)",
	    id, m);
	return M_WILSON;
}

static void
parse_verdict(verdict_t *v)
{
	json_t *r = v->rec, *o, *a, *e;
	const rt_where *w = &v->where;
	const char *s;
	size_t i;
	long long ep;

	rt_rec_check(RT_REC_VERDICT, r, w);
	v->verdict = rt_rec_str(r, "verdict", w);
	v->command = opt_str(r, "command", w);
	v->test = opt_str(r, "test", w);
	v->conf = 0.95;
	rt_rec_opt_num(r, "confidence", w, &v->conf);
	v->has_target = rt_rec_opt_num(r, "target", w, &v->target);
	if ((o = json_object_get(r, "interrupted")) && json_is_true(o))
		v->interrupted = 1;

	o = json_object_get(r, "baseline");
	v->b_trials = count_field(o, "trials", w, 1);
	v->b_failures = count_field(o, "failures", w, 1);
	v->b_errors = count_field(o, "errors", w, 0);
	v->b_input = (s = opt_str(o, "source", w)) && strcmp(s, "input") == 0;

	a = json_object_get(r, "lanes");
	v->nlanes = json_array_size(a);
	v->lanes = rt_xcalloc(v->nlanes, sizeof *v->lanes);
	for (i = 0; i < v->nlanes; i++) {
		lane_t *l = &v->lanes[i];
		e = json_array_get(a, i);
		l->id = rt_rec_str(e, "id", w);
		l->status = rt_rec_str(e, "status", w);
		l->source = opt_str(e, "source", w);
		l->model = opt_str(e, "model", w);
		l->cause = opt_str(e, "cause_class", w);
		l->reason = opt_str(e, "reason", w);
		l->rule = opt_str(e, "rule", w);
		l->trials = count_field(e, "trials", w, 0);
		l->failures = count_field(e, "failures", w, 0);
		l->method = interval_method(e, l->id, l->failures, w);
	}

	a = json_object_get(r, "confirmations");
	v->nconfs = json_array_size(a);
	v->confs = rt_xcalloc(v->nconfs, sizeof *v->confs);
	for (i = 0; i < v->nconfs; i++) {
		conf_t *c = &v->confs[i];
		e = json_array_get(a, i);
		c->id = rt_rec_str(e, "id", w);
		c->rule = opt_str(e, "rule", w);
		c->trials = count_field(e, "trials", w, 1);
		c->failures = count_field(e, "failures", w, 1);
		c->required = count_field(e, "required_runs", w, 0);
		o = json_object_get(e, "passed");
		c->passed = json_is_boolean(o) ? json_is_true(o) : -1;
		c->method = interval_method(e, c->id, c->failures, w);
		c->conf = v->conf;
		rt_rec_opt_num(e, "confidence", w, &c->conf);
	}

	o = json_object_get(r, "winner");
	if (o && !json_is_null(o)) {
		v->has_winner = 1;
		v->w_id = rt_rec_str(o, "id", w);
		v->w_source = opt_str(o, "source", w);
		v->w_model = opt_str(o, "model", w);
		v->w_cause = opt_str(o, "cause_class", w);
		v->w_expl = opt_str(o, "explanation", w);
		v->w_patch = opt_str(o, "patch", w);
	}

	a = json_object_get(r, "reproduce");
	v->nrepro = json_array_size(a);
	v->repro = rt_xcalloc(v->nrepro, sizeof *v->repro);
	for (i = 0; i < v->nrepro; i++) {
		if (!json_is_string(json_array_get(a, i)))
			rt_die_at(w, "reproduce[%zu]: not a string", i);
		v->repro[i] = json_string_value(json_array_get(a, i));
	}
	o = json_object_get(r, "timings");
	v->timings = json_is_object(o) ? o : NULL;

	/* the change's date: when the verdict was reached, if the record says */
	if (((s = opt_str(r, "finished_at", w)) || (s = opt_str(r, "started_at", w)))) {
		if (parse_rfc3339(s, &ep) < 0)
			rt_die_at(w, "\"%s\": not an RFC 3339 time", s);
		v->epoch = ep;
		v->has_epoch = 1;
	}
}

static const lane_t *
find_lane(const verdict_t *v, const char *id)
{
	size_t i;
	for (i = 0; i < v->nlanes; i++)
		if (strcmp(v->lanes[i].id, id) == 0)
			return &v->lanes[i];
	return NULL;
}

/* The winner's confirmation: the last one that passed, else its last. */
static const conf_t *
winner_conf(const verdict_t *v)
{
	const conf_t *best = NULL;
	size_t i;

	if (!v->has_winner)
		return NULL;
	for (i = 0; i < v->nconfs; i++)
		if (strcmp(v->confs[i].id, v->w_id) == 0 && (!best || best->passed != 1 || v->confs[i].passed == 1))
			best = &v->confs[i];
	return best;
}

/* ---- numbers: always counts, always an interval ---- */

static double g_conf = 0.95;

/* The interval of k/n at confidence c by method m (rt-verify(1), THE
 * RACE and CONFIRMATION):
 *   wilson   Wilson score interval, for a fixed number of trials;
 *   anytime  Robbins' beta-binomial confidence sequence (rt_cs_interval),
 *            valid however often a racing lane was looked at;
 *   exact    0/n only: the one-sided bound 1 - (1 - c)^(1/n). */
static rt_interval
interval(long k, long n, int m, double c)
{
	rt_interval iv;
	int rc;

	if (m == M_EXACT && k == 0 && n > 0) {
		iv.low = 0;
		iv.high = rt_zero_bound(n, c);
		return iv;
	}
	rc = m == M_ANYTIME ? rt_cs_interval(k, n, c, 0, 0, &iv) : rt_wilson(k, n, c, &iv);
	if (rc != RT_STATS_OK)
		rt_die("cannot compute the interval of %ld/%ld at %g", k, n, c);
	return iv;
}

static char *
pct_conf(void)
{
	char b[32];

	rt_say_conf(b, sizeof b, g_conf);
	return rt_xstrdup(b);
}

/* "12/40 failed (30.0%, 95% CI 18.1–45.4%)"; 0 failures: "0/40 failed
 * (≤8.8% at 95% confidence)" — the upper bound, never 0%. The other
 * methods are named as rt-verify names them: "0/17 failed (≤25.4% at 95%
 * confidence, anytime)", "27/100 failed (27.0%, anytime 95% interval
 * 14.2–43.0%)", "0/29 failed (≤9.8% at 95% confidence, exact one-sided)". */
static char *
fmt_rate_m(long k, long n, const char *verb, int m, double c)
{
	char buf[256];
	rt_interval iv;

	if (m == M_ANYTIME && n > 0) {
		iv = interval(k, n, m, c);
		rt_say_count_iv(buf, sizeof buf, k, n, c, verb, &iv, "anytime", NULL);
	} else
		rt_say_count(buf, sizeof buf, k, n, c, verb);
	return rt_xstrdup(buf);
}

static char *
fmt_rate(long k, long n, const char *verb)
{
	return fmt_rate_m(k, n, verb, M_WILSON, g_conf);
}

static char *
fmt_lane(const lane_t *l, const char *verb)
{
	return fmt_rate_m(l->failures, l->trials, verb, l->method, g_conf);
}

static char *
fmt_conf(const conf_t *c, const char *verb)
{
	return fmt_rate_m(c->failures, c->trials, verb, c->method, c->conf);
}

/* The rate column of the table: "40.0% (19.1–64.0%)", "≤16.1%", "—";
 * an anytime interval says so: "≤25.4% (anytime)". */
static char *
fmt_interval(const lane_t *l)
{
	long k = l->failures, n = l->trials;
	char buf[128];
	rt_interval iv;

	if (n == 0)
		return rt_xstrdup("\xE2\x80\x94");
	if (l->method == M_ANYTIME) {
		iv = interval(k, n, l->method, g_conf);
		rt_say_short_iv(buf, sizeof buf, k, n, &iv, "anytime");
	} else
		rt_say_short(buf, sizeof buf, k, n, g_conf);
	return rt_xstrdup(buf);
}

/* ---- the template: a small Mustache subset ---- */

/* ---- the template's names ---- */

/* "`.github/workflows/ci.yml`, CI configuration (--allow-path .github/...)" for
 * each dangerous path the patch touches; NULL when there is none. */
static char *
permitted_paths(char **files, size_t n)
{
	rt_buf b = {0};
	size_t i;
	char *s;

	for (i = 0; i < n; i++) {
		const char *k = rt_patch_danger(files[i]);
		const char *g = rt_patch_allowed(files[i], opt_allow_path, opt_nallow_path);
		char *m1, *m2;
		if (!k || !g)
			continue;
		m1 = md(files[i]);
		m2 = md(g);
		rt_buf_printf(&b, "%s%s, %s (--allow-path %s)", b.len ? "; " : "", m1, k, m2);
		free(m1);
		free(m2);
	}
	s = b.len ? rt_xstrdup(rt_buf_str(&b)) : NULL;
	rt_buf_free(&b);
	return s;
}

/* Every name a template may use (rt-pr(1), TEMPLATE). */
static const char *const known_names[] = {
	"title", "verdict", "is_fixed", "is_improved", "is_quarantine", "test", "command",
	"has_command", "confidence", "z", "target", "has_target", "baseline",
	"baseline_errors", "winner", "id", "source", "cause_class", "explanation", "files",
	"tournament", "confirmation", "lanes", "counts", "interval", "status", "fate",
	"lanes_summary", "confirmations", "has_confirmations", "result", "trials",
	"required", "outcome", "rule", "confirmation_rule", "neutered", "quarantine",
	"file", "dossier", "entry", "reproduce", "has_reproduce", "fence", "timings",
	"branch", "has_anytime", "has_exact", "exact_note", "overrides", "has_overrides",
	"evidence", "evidence_note", "allowed_paths", "has_allowed_paths",
	"changes_checks", "checks_changed", "loosens_timing", "timing_bounds", NULL
};

/* ---- the dossier ---- */

typedef struct {
	const char *name;        /* the test's name (plain) */
	char *slug, *evslug, *branch;
	char *title;             /* the subject: at most 72 columns */
	char *headline;          /* the whole sentence: dossier heading, message body */
	char *qfile, *dossier_path, *entry;   /* QUARANTINE, relative to DIR */
	char *after;             /* the decisive "after" figure */
	char **files;            /* the winner's patch touches these */
	size_t nfiles;
	int fixed, improved, quarantine;
	const char *prefix;      /* DIR relative to the repository's top: "" or "sub/" */
	char *evdir;             /* the evidence, relative to the top */
	char **repro;            /* the Reproduce commands, run from the top */
	size_t nrepro;
	size_t unpatched;        /* hypotheses the evidence holds without a patch */
} ship_t;

static void
jset(json_t *o, const char *k, char *s)
{
	json_object_set_new(o, k, json_string(s));
	free(s);
}

static void
jsetc(json_t *o, const char *k, const char *s)
{
	json_object_set_new(o, k, json_string(s));
}

static char *
fate(const lane_t *l)
{
	char *reason = l->reason ? md(l->reason) : NULL, *s = NULL, *label;

	/* the lane state's word (rt_lane_state), as the board and the record say */
	if (rt_lane_state_of(l->status) == RT_LANE_WINNER)
		label = rt_xasprintf("**%s**", l->status);
	else if (rt_lane_state_of(l->status) == RT_LANE_NEUTERED && l->rule)
		label = rt_xasprintf("%s by the guard's rule %s", l->status, s = code(l->rule));
	else
		label = md(l->status);
	free(s);
	/* "tied — tied with the winner: ..." says it twice */
	if (reason && *reason && strncmp(reason, l->status, strlen(l->status)) == 0)
		s = rt_xstrdup(reason);
	else if (reason && *reason)
		s = rt_xasprintf("%s \xE2\x80\x94 %s", label, reason);
	else
		s = rt_xstrdup(label);
	free(label);
	free(reason);
	return s;
}

/* "4 hypotheses: 1 winner, 2 eliminated, 1 patch_failed": every ended
 * lane state's word (rt_lane_state), in its order. */
static char *
lanes_summary(const verdict_t *v)
{
	rt_buf b = {0};
	size_t i, j, n, other = 0;
	int first = 1;

	rt_buf_printf(&b, "%zu hypothes%s", v->nlanes, v->nlanes == 1 ? "is" : "es");
	for (j = 0; j < RT_LANE_WAITING; j++) {
		for (n = 0, i = 0; i < v->nlanes; i++)
			n += rt_lane_state_of(v->lanes[i].status) == (int)j;
		if (n) {
			rt_buf_printf(&b, "%s%zu %s", first ? ": " : ", ", n,
			    rt_lane_state_word((rt_lane_state)j));
			first = 0;
		}
	}
	for (i = 0; i < v->nlanes; i++) {
		int st = rt_lane_state_of(v->lanes[i].status);
		other += st < 0 || st >= RT_LANE_WAITING;
	}
	if (other)
		rt_buf_printf(&b, "%s%zu other", first ? ": " : ", ", other);
	return b.data;
}

static char *
source_text(const char *source, const char *model)
{
	if (source && model && !strstr(source, model))
		return rt_xasprintf("%s (model %s)", source, model);
	if (source)
		return rt_xstrdup(source);
	if (model)
		return rt_xasprintf("model %s", model);
	return rt_xstrdup("unknown");
}

static int
has_method(const verdict_t *v, int m)
{
	size_t i;

	for (i = 0; i < v->nlanes; i++)
		if (v->lanes[i].method == m && v->lanes[i].trials > 0)
			return 1;
	for (i = 0; i < v->nconfs; i++)
		if (v->confs[i].method == m && v->confs[i].trials > 0)
			return 1;
	return 0;
}

/* The exact one-sided bound beside the Wilson bound of the same 0/n, so a
 * reader comparing with a fixed-n tool sees why the two differ. */
static char *
exact_note(const verdict_t *v)
{
	const conf_t *c = winner_conf(v);
	rt_interval ex, wi;
	char cl[32], e[32], w[32];
	size_t i;

	if (!c || c->method != M_EXACT || c->trials == 0)
		for (i = 0, c = NULL; i < v->nconfs && !c; i++)
			if (v->confs[i].method == M_EXACT && v->confs[i].trials > 0)
				c = &v->confs[i];
	if (!c)   /* exact intervals in lanes only (t/fuzz/verdict) */
		return rt_xstrdup("the exact one-sided bound is what the rule tests; a Wilson "
		    "bound of the same counts is two-sided and looser");
	ex = interval(0, c->trials, M_EXACT, c->conf);
	wi = interval(0, c->trials, M_WILSON, c->conf);
	rt_say_conf(cl, sizeof cl, c->conf);
	rt_say_pct(e, sizeof e, ex.high, RT_SAY_UP);
	rt_say_pct(w, sizeof w, wi.high, RT_SAY_UP);
	return rt_xasprintf("for 0/%ld at %s confidence it is \xE2\x89\xA4%s; the Wilson "
	    "bound of the same counts, \xE2\x89\xA4%s, is two-sided and looser, and is not "
	    "what the rule tests", c->trials, cl, e, w);
}

/* What the committed hypotheses lack, said in the dossier. */
static char *
evidence_note(const verdict_t *v, size_t n)
{
	char *who = n == 1 ? rt_xstrdup(v->has_winner ? "the other hypothesis is" : "the hypothesis is") :
	    rt_xasprintf("the %zu %shypotheses are", n, v->has_winner ? "other " : "");
	char *s = rt_xasprintf("The verdict record keeps %s: %s recorded without %s, so a rerun %s",
	    v->has_winner ? "only the winner's patch" : "no hypothesis's patch", who,
	    n == 1 ? "its patch" : "theirs", v->has_winner ? "races the winner alone" :
	    "races nothing and only rechecks the baseline");

	free(who);
	return s;
}

static json_t *
build_view(const verdict_t *v, const ship_t *S)
{
	json_t *o = json_object(), *a, *e, *w;
	const conf_t *wc = winner_conf(v);
	char *s;
	size_t i, k;
	long neutered = 0;
	rt_buf b = {0};

	/* the title, with the test's name as code */
	s = code(S->name);
	{
		char *pn = plain(S->name), *at = strstr(S->headline, pn), *rest;
		rt_buf tb = {0};
		if (at) {
			rt_buf_add(&tb, S->headline, (size_t)(at - S->headline));
			rt_buf_adds(&tb, s);
			rest = md(at + strlen(pn));
		} else {
			rest = md(S->headline);
		}
		rt_buf_adds(&tb, rest);
		free(rest);
		free(pn);
		jset(o, "title", tb.data);
	}
	jset(o, "test", s);
	jsetc(o, "verdict", v->verdict);
	json_object_set_new(o, "is_fixed", json_boolean(S->fixed));
	json_object_set_new(o, "is_improved", json_boolean(S->improved));
	json_object_set_new(o, "is_quarantine", json_boolean(S->quarantine));
	jset(o, "command", code(v->command ? v->command : ""));
	json_object_set_new(o, "has_command", json_boolean(v->command && *v->command));
	jset(o, "confidence", pct_conf());
	jset(o, "z", rt_xasprintf("%.2f", rt_z_for_confidence(g_conf)));
	if (v->has_target)
		jset(o, "target", rt_xasprintf("%.1f%%", 100 * v->target));
	json_object_set_new(o, "has_target", json_boolean(v->has_target));
	jset(o, "baseline", fmt_rate(v->b_failures, v->b_trials, "failed"));
	if (v->b_errors)
		jset(o, "baseline_errors", rt_xasprintf("%ld infrastructure error%s not counted",
		    v->b_errors, v->b_errors == 1 ? " was" : "s were"));
	if (S->branch)
		jset(o, "branch", code(S->branch));

	if (v->has_winner) {
		const lane_t *l = find_lane(v, v->w_id);
		w = json_object();
		jset(w, "id", md(v->w_id));
		s = source_text(v->w_source, v->w_model);
		jset(w, "source", md(s));
		free(s);
		jset(w, "cause_class", md(v->w_cause ? v->w_cause : "unknown"));
		jset(w, "explanation", md(v->w_expl ? v->w_expl : "(no explanation given)"));
		for (i = 0; i < S->nfiles; i++) {
			s = code(S->files[i]);
			rt_buf_printf(&b, "%s%s", i ? ", " : "", s);
			free(s);
		}
		jset(w, "files", b.data ? b.data : rt_xstrdup("no file"));
		b.data = NULL;
		b.len = b.cap = 0;
		jset(w, "tournament", l ? fmt_lane(l, "failed") :
		    rt_xstrdup("not recorded"));
		if (wc) {
			s = fmt_conf(wc, "failed");
			jset(w, "confirmation", wc->required ?
			    rt_xasprintf("%s on fresh trials, %ld required", s, wc->required) :
			    rt_xasprintf("%s on fresh trials", s));
			free(s);
		} else {
			jsetc(w, "confirmation", "none recorded");
		}
		json_object_set_new(o, "winner", w);
	}

	a = json_array();
	for (i = 0; i < v->nlanes; i++) {
		const lane_t *l = &v->lanes[i];
		e = json_object();
		jset(e, "id", md(l->id));
		s = source_text(l->source, l->model);
		jset(e, "source", md(s));
		free(s);
		jset(e, "cause_class", md(l->cause ? l->cause : "unknown"));
		jset(e, "status", md(l->status));
		jset(e, "counts", l->trials ? rt_xasprintf("%ld/%ld", l->failures, l->trials) :
		    rt_xstrdup("\xE2\x80\x94"));
		jset(e, "interval", fmt_interval(l));
		jset(e, "fate", fate(l));
		json_array_append_new(a, e);
		neutered += strcmp(l->status, "neutered") == 0;
	}
	json_object_set_new(o, "lanes", a);
	{
		/* guard rules the user overruled (rt-verify --allow), for the reviewer */
		rt_buf ob = { 0 };
		json_t *vl = json_object_get(v->rec, "lanes"), *ln, *ov, *x;
		size_t j, k;
		json_array_foreach(vl, j, ln) {
			ov = json_object_get(ln, "overruled");
			json_array_foreach(ov, k, x) {
				const char *r = json_string_value(json_object_get(x, "rule"));
				const char *why = json_string_value(json_object_get(x, "reason"));
				const char *id = json_string_value(json_object_get(ln, "id"));
				char *m1 = md(r ? r : "?"), *m2 = md(why ? why : ""), *m3 = md(id ? id : "?");
				rt_buf_printf(&ob, "%s%s for %s (%s)", ob.len ? "; " : "", m1, m3, m2);
				free(m1);
				free(m2);
				free(m3);
			}
		}
		if (!ob.len) {
			json_array_foreach(json_object_get(v->rec, "allowed_rules"), j, x) {
				char *m1 = md(json_string_value(x) ? json_string_value(x) : "?");
				rt_buf_printf(&ob, "%s%s (fired for no lane)", ob.len ? "; " : "", m1);
				free(m1);
			}
		}
		json_object_set_new(o, "has_allowed_paths", json_boolean(g_permitted != NULL));
		if (g_permitted)
			jsetc(o, "allowed_paths", g_permitted);
		json_object_set_new(o, "has_overrides", json_boolean(ob.len > 0));
		if (ob.len)
			jset(o, "overrides", rt_xstrdup(rt_buf_str(&ob)));
		rt_buf_free(&ob);
	}
	{
		/* a winner that changes the test's own checks, under its own heading */
		json_t *w = json_object_get(v->rec, "winner"), *c, *x;
		rt_buf cb = { 0 }, tb = { 0 };
		size_t j;
		int changes = json_is_true(json_object_get(w, "changes_checks"));

		c = json_object_get(w, "checks");
		json_array_foreach(c, j, x) {
			const char *ch = json_string_value(json_object_get(x, "change"));
			const char *fn = json_string_value(json_object_get(x, "function"));
			json_t *bf = json_object_get(x, "before"), *af = json_object_get(x, "after");
			const char *f = json_string_value(json_object_get(x, "file"));
			const char *bt = json_string_value(json_object_get(bf, "text"));
			const char *at = json_string_value(json_object_get(af, "text"));
			char *m1 = md(f ? f : "?"), *m2 = md(fn ? fn : "?"), *m3 = md(bt ? bt : "");
			char *m4 = md(at ? at : "");
			const char *words = json_string_value(json_object_get(json_object_get(x,
			    "bound"), "words"));
			if (words) {    /* a clock-measured bound widened: its own heading */
				char *m5 = md(words);
				rt_buf_printf(&tb, "- %s in %s (%s): line %lld \"%s\" became line "
				    "%lld \"%s\"\n", m5, m2, m1, (long long)json_integer_value(
				    json_object_get(bf, "line")), m3, (long long)json_integer_value(
				    json_object_get(af, "line")), m4);
				free(m1);
				free(m2);
				free(m3);
				free(m4);
				free(m5);
				continue;
			}
			rt_buf_printf(&cb, "- %s in %s (%s)", ch ? ch : "changed", m2, m1);
			if (bt)
				rt_buf_printf(&cb, ": line %lld \"%s\"", (long long)json_integer_value(
				    json_object_get(bf, "line")), m3);
			if (at)
				rt_buf_printf(&cb, "%s line %lld \"%s\"", bt ? " became" : ":",
				    (long long)json_integer_value(json_object_get(af, "line")), m4);
			rt_buf_addc(&cb, '\n');
			free(m1);
			free(m2);
			free(m3);
			free(m4);
		}
		if (changes && !cb.len && !tb.len)
			rt_buf_adds(&cb, "- the guard did not say which\n");
		json_object_set_new(o, "changes_checks", json_boolean(changes && cb.len));
		if (cb.len)
			jset(o, "checks_changed", rt_xstrdup(rt_buf_str(&cb)));
		json_object_set_new(o, "loosens_timing", json_boolean(tb.len > 0));
		if (tb.len)
			jset(o, "timing_bounds", rt_xstrdup(rt_buf_str(&tb)));
		rt_buf_free(&cb);
		rt_buf_free(&tb);
	}
	json_object_set_new(o, "has_anytime", json_boolean(has_method(v, M_ANYTIME)));
	if (has_method(v, M_EXACT))
		jset(o, "exact_note", exact_note(v));
	json_object_set_new(o, "has_exact", json_boolean(has_method(v, M_EXACT)));
	jset(o, "lanes_summary", lanes_summary(v));
	jset(o, "neutered", rt_xasprintf("%ld", neutered));

	a = json_array();
	for (i = 0; i < v->nconfs; i++) {
		const conf_t *c = &v->confs[i];
		e = json_object();
		jset(e, "id", md(c->id));
		jset(e, "result", fmt_conf(c, "failed"));
		jset(e, "trials", rt_xasprintf("%ld", c->trials));
		jset(e, "required", c->required ? rt_xasprintf("%ld", c->required) :
		    rt_xstrdup("\xE2\x80\x94"));
		jsetc(e, "outcome", c->passed == 1 ? "passed" : c->passed == 0 ? "failed" : "not judged");
		jset(e, "rule", md(c->rule ? c->rule : "not stated"));
		json_array_append_new(a, e);
	}
	json_object_set_new(o, "confirmations", a);
	json_object_set_new(o, "has_confirmations", json_boolean(v->nconfs > 0));
	if (wc && wc->rule)
		jset(o, "confirmation_rule", md(wc->rule));
	else if (v->nconfs && v->confs[0].rule)
		jset(o, "confirmation_rule", md(v->confs[0].rule));
	else
		jsetc(o, "confirmation_rule", "none (no confirmation round ran)");

	if (S->quarantine) {
		e = json_object();
		jset(e, "file", code(S->qfile));
		jset(e, "dossier", code(S->dossier_path));
		jset(e, "entry", code(S->name));
		json_object_set_new(o, "quarantine", e);
	}

	a = json_array();
	for (k = 0, i = 0; i < S->nrepro; i++) {
		e = json_object();
		jset(e, "command", plain(S->repro[i]));
		json_array_append_new(a, e);
		if (longest_backtick_run(S->repro[i]) > k)
			k = longest_backtick_run(S->repro[i]);
	}
	json_object_set_new(o, "reproduce", a);
	json_object_set_new(o, "has_reproduce", json_boolean(S->nrepro > 0));
	jset(o, "evidence", code(S->evdir));
	if (S->unpatched)
		jset(o, "evidence_note", evidence_note(v, S->unpatched));
	for (i = 0; i < (k < 3 ? 3 : k + 1); i++)
		rt_buf_addc(&b, '`');
	jset(o, "fence", b.data);

	if (v->timings) {
		static const char *const keys[] = { "baseline_s", "tournament_s", "confirm_s", "total_s" };
		static const char *const words[] = { "baseline", "tournament", "confirmation", "total" };
		rt_buf t = {0};
		for (i = 0; i < 4; i++) {
			json_t *x = json_object_get(v->timings, keys[i]);
			/* a baseline read from a measure record took no time here */
			if (i == 0 && v->b_input) {
				rt_buf_adds(&t, "baseline from the input measure record");
				continue;
			}
			if (i == 2 && v->nconfs == 0)
				continue;
			if (json_is_number(x))
				rt_buf_printf(&t, "%s%s %.1f s", t.len ? ", " : "", words[i],
				    json_number_value(x));
		}
		if (t.data)
			jset(o, "timings", t.data);
	}
	return o;
}

static char *
render_dossier(const verdict_t *v, const ship_t *S)
{
	char *path = opt_tmpl ? rt_xstrdup(opt_tmpl) :
	    rt_xasprintf("%s/dossier.md.tmpl", rt_sharedir());
	json_t *view = build_view(v, S);
	char *out = rt_tmpl_render_file(path, known_names, "rt-pr(1), TEMPLATE", view);
	size_t n = strlen(out);

	json_decref(view);
	free(path);
	if (n && out[n - 1] != '\n') {
		char *t = rt_xasprintf("%s\n", out);
		free(out);
		out = t;
	}
	return out;
}

/* ---- the commit message ---- */

static size_t
columns(const char *s, size_t n)
{
	size_t c = 0, i;
	for (i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}

/* Append "label text" wrapped at 72 columns; continuation lines are
 * indented, so no line of the message can read as a patch separator. */
static void
wrap(rt_buf *b, const char *label, const char *text)
{
	char *t = plain(text), *word, *save = NULL;
	size_t col = columns(label, strlen(label)), wl;

	rt_buf_adds(b, label);
	for (word = strtok_r(t, " ", &save); word; word = strtok_r(NULL, " ", &save)) {
		wl = columns(word, strlen(word));
		if (col > 2 && col + 1 + wl > 72) {
			rt_buf_adds(b, "\n  ");
			col = 2;
		} else if (col > 0 && b->len && b->data[b->len - 1] != '\n') {
			rt_buf_addc(b, ' ');
			col++;
		}
		rt_buf_adds(b, word);
		col += wl;
	}
	rt_buf_addc(b, '\n');
	free(t);
}

/* The subject: "Fix flaky NAME: 12/40 → 0/30 failures", the name
 * shortened with "…" so that the line stays within 72 columns. */
static char *
subject(const char *verb, const char *name, const char *counts)
{
	char *pn = plain(name), *t;
	size_t fixed = columns(verb, strlen(verb)) + columns(counts, strlen(counts)) + 3, n;

	n = strlen(pn);
	if (fixed + columns(pn, n) > 72) {
		size_t room = fixed + 1 < 72 ? 72 - fixed - 1 : 8;
		for (n = 0; pn[n] && columns(pn, n + 1) <= room; n++)
			;
		while (n && ((unsigned char)pn[n] & 0xC0) == 0x80)
			n--;
		pn[n] = '\0';
		t = rt_xasprintf("%s %s…: %s", verb, pn, counts);
	} else {
		t = rt_xasprintf("%s %s: %s", verb, pn, counts);
	}
	free(pn);
	return t;
}

static char *
commit_message(const verdict_t *v, const ship_t *S)
{
	rt_buf b = {0};
	char *s, *t;
	const lane_t *l;
	const conf_t *wc = winner_conf(v);

	rt_buf_printf(&b, "%s\n\n", S->title);
	wrap(&b, "", S->headline);
	rt_buf_addc(&b, '\n');
	s = pct_conf();
	if (v->has_target)
		t = rt_xasprintf("%s (rt-verify at %s confidence, target residual rate %.1f%%).",
		    v->verdict, s, 100 * v->target);
	else
		t = rt_xasprintf("%s (rt-verify at %s confidence).", v->verdict, s);
	wrap(&b, "Verdict:", t);
	free(s);
	free(t);
	s = fmt_rate(v->b_failures, v->b_trials, "failed");
	t = rt_xasprintf("%s.", s);
	wrap(&b, "Before:", t);
	free(s);
	free(t);
	if (v->has_winner) {
		s = source_text(v->w_source, v->w_model);
		t = rt_xasprintf("%s, hypothesis %s from %s: %s", v->w_cause ? v->w_cause : "unknown",
		    v->w_id, s, v->w_expl ? v->w_expl : "(no explanation given)");
		wrap(&b, "Cause:", t);
		free(s);
		free(t);
		if ((l = find_lane(v, v->w_id))) {
			s = fmt_lane(l, "failed");
			t = rt_xasprintf("%s.", s);
			wrap(&b, "Tournament:", t);
			free(s);
			free(t);
		}
		if (wc) {
			s = fmt_conf(wc, "failed");
			t = wc->required ? rt_xasprintf("%s on fresh trials, %ld required.", s, wc->required) :
			    rt_xasprintf("%s on fresh trials.", s);
			wrap(&b, "Confirmation:", t);
			free(s);
			free(t);
		}
	}
	s = lanes_summary(v);
	t = rt_xasprintf("%s.", s);
	wrap(&b, "", t);
	free(s);
	free(t);
	if (S->quarantine) {
		t = rt_xasprintf("no candidate fix survived, so %s is added to %s; the evidence is in %s.",
		    S->name, S->qfile, S->dossier_path);
		wrap(&b, "Quarantine:", t);
		free(t);
	}
	if (S->nrepro) {
		size_t i;
		rt_buf_printf(&b, "\nEvidence: %s/\nReproduce (from the top of the repository):\n", S->evdir);
		for (i = 0; i < S->nrepro; i++) {
			s = plain(S->repro[i]);
			rt_buf_printf(&b, "  %s\n", s);
			free(s);
		}
	}
	return b.data;
}

/* ---- the change ---- */

/* What rt-pr commits: the winner's patch (paths relative to DIR) and
 * whole files (paths relative to the top) that differ from HEAD's. */
typedef struct {
	char *diff;
	rt_git_file *files;
	size_t nfiles;
} change_t;

/* Add path (relative to DIR) with text, unless HEAD has it so already;
 * both are the change's (or freed) after. */
static void
add_file(rt_repo *r, change_t *C, char *path, char *text)
{
	char *top = rt_xasprintf("%s%s", r->prefix, path), *old = rt_git_head_file(r, top);

	free(path);
	if (old && strcmp(old, text) == 0) {
		free(top);
		free(text);
	} else {
		C->files = rt_xrealloc(C->files, (C->nfiles + 1) * sizeof *C->files);
		C->files[C->nfiles].path = top;
		C->files[C->nfiles++].text = text;
	}
	free(old);
}

/* The owners CODEOWNERS at HEAD gives the test's file (the ID before
 * "::", relative to DIR), or NULL. */
static char *
head_owners(rt_repo *r, const char *name)
{
	static const char *const where[] = { ".github/CODEOWNERS", "CODEOWNERS",
	    "docs/CODEOWNERS" };
	char *text = NULL, *file, *path, err[512], *o = NULL;
	const char *m;
	rt_codeowners co;
	size_t i;

	for (i = 0; i < 3 && !text; i++)
		text = rt_git_head_file(r, where[i]);
	if (!text)
		return NULL;
	if (rt_codeowners_parse(text, where[i - 1], &co, err, sizeof err) < 0)
		rt_die("%s", err);
	file = rt_codeowners_test_file(name);
	path = rt_xasprintf("%s%s", r->prefix, file);
	if ((m = rt_codeowners_match(&co, path)) && *m)
		o = rt_xstrdup(m);
	free(path);
	free(file);
	free(text);
	rt_codeowners_free(&co);
	return o;
}

/* The quarantine change: the list extended (lib/rt_quarantine: owner
 * from CODEOWNERS, since today, expires in 30 days, the reason and rate,
 * the dossier in a comment), the dossier added. */
static void
add_quarantine(rt_repo *r, const verdict_t *v, const ship_t *S, const char *dossier,
    change_t *C)
{
	char *qpath = rt_xasprintf("%s%s", r->prefix, S->qfile);
	char *old_q = rt_git_head_file(r, qpath), err[512], today[11], exp[11], *s;
	rt_quar_list l;
	rt_quar_entry *e;

	if (rt_quar_parse(old_q ? old_q : rt_quar_header, S->qfile, &l, err, sizeof err) < 0)
		rt_die("%s (at HEAD)", err);
	if (!rt_quar_find(&l, S->name)) {
		e = rt_quar_add(&l, S->name);
		rt_quar_today(today);
		rt_quar_date_add(today, 30, exp);
		s = head_owners(r, S->name);
		rt_quar_set(e, &e->owner, s);
		free(s);
		rt_quar_set(e, &e->since, today);
		rt_quar_set(e, &e->expires, exp);
		s = rt_xasprintf("rt-verify: %s, no fix survived", S->after);
		rt_quar_set(e, &e->reason, s);
		free(s);
		s = rt_xasprintf("%ld/%ld", v->b_failures, v->b_trials);
		rt_quar_set(e, &e->rate, v->b_trials > 0 ? s : NULL);
		free(s);
		s = rt_xasprintf("# dossier: %s", S->dossier_path);
		rt_quar_set(e, &e->comment, s);
		free(s);
		add_file(r, C, rt_xstrdup(S->qfile), rt_quar_format(&l));
	}
	rt_quar_free(&l);
	add_file(r, C, rt_xstrdup(S->dossier_path), rt_xstrdup(dossier));
	free(qpath);
	free(old_q);
}

/* ---- the evidence: what a reviewer reruns from a clean clone ---- */

/* The next word of *sp as sh reads it (quotes, backslashes), NULL at the
 * end; an unquoted <, >, |, ; or & is returned as "" with *op set. */
static char *
sh_word(const char **sp, int *op)
{
	const char *p = *sp;
	rt_buf b = {0};

	*op = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p) {
		*sp = p;
		return NULL;
	}
	if (strchr("<>|;&", *p)) {
		*op = 1;
		*sp = p + 1;
		return rt_xstrdup("");
	}
	while (*p && *p != ' ' && *p != '\t' && !strchr("<>|;&", *p)) {
		if (*p == '\'') {
			for (p++; *p && *p != '\''; p++)
				rt_buf_addc(&b, *p);
			if (*p)
				p++;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
					p++;
				rt_buf_addc(&b, *p);
			}
			if (*p)
				p++;
		} else if (*p == '\\' && p[1]) {
			rt_buf_addc(&b, p[1]);
			p += 2;
		} else {
			rt_buf_addc(&b, *p++);
		}
	}
	*sp = p;
	if (!b.data)
		rt_buf_adds(&b, "");
	return b.data;
}

/* rt-verify's options from the record's own command line, without its
 * -C (a path on the author's machine), its operands and redirections;
 * *argv_form when the test command follows "--". NULL: no such line. */
static char *
verify_options(const verdict_t *v, int *argv_form)
{
	rt_buf b = {0};
	const char *p;
	char *w;
	size_t i;
	int op, skip = 0, stop = 0, tail = 0;

	*argv_form = 0;
	for (i = 0; i < v->nrepro; i++)
		if (strncmp(v->repro[i], "rt-verify ", 10) == 0)
			break;
	if (i == v->nrepro)
		return NULL;
	p = v->repro[i] + 10;
	while (!stop && (w = sh_word(&p, &op))) {
		char *q;
		if (op) {
			free(w);
			break;
		}
		if (skip) {
			skip = 0;
		} else if (!tail && (strcmp(w, "-C") == 0 || strcmp(w, "--directory") == 0)) {
			skip = 1;
		} else if (!tail && (strncmp(w, "-C", 2) == 0 || strncmp(w, "--directory=", 12) == 0)) {
			;
		} else {
			q = rt_sh_quote(w);
			rt_buf_printf(&b, " %s", q);
			free(q);
			if (tail)
				;
			else if (strcmp(w, "--") == 0)
				tail = *argv_form = 1;
			else if (strncmp(w, "--cmd=", 6) == 0)
				stop = 1;
			else if (strcmp(w, "--cmd") == 0 && (free(w), w = sh_word(&p, &op)) && !op) {
				q = rt_sh_quote(w);
				rt_buf_printf(&b, " %s", q);
				free(q);
				stop = 1;
			}
		}
		free(w);
	}
	if (!b.data)
		rt_buf_adds(&b, "");
	return b.data;
}

/* The options when the record carries no rt-verify line: from its fields. */
static char *
verify_options_from_fields(const verdict_t *v)
{
	rt_buf b = {0};
	json_t *seed = json_object_get(v->rec, "seed");
	char *q;

	if (!v->command)
		return NULL;
	if (json_is_string(seed))
		rt_buf_printf(&b, " --seed %s", (q = rt_sh_quote(json_string_value(seed))));
	else if (json_is_integer(seed))
		rt_buf_printf(&b, " --seed %s", (q = rt_xasprintf("%lld", (long long)json_integer_value(seed))));
	else
		q = NULL;
	free(q);
	if (v->test) {
		rt_buf_printf(&b, " --test %s", (q = rt_sh_quote(v->test)));
		free(q);
	}
	rt_buf_printf(&b, " --confidence %g", v->conf);
	if (v->has_target)
		rt_buf_printf(&b, " --target %g", v->target);
	rt_buf_printf(&b, " --cmd %s", (q = rt_sh_quote(v->command)));
	free(q);
	return b.data;
}

/* The record's rt-plan line, its words quoted again; NULL for anything
 * else: the block is meant to be run, so nothing else of the record's
 * text goes into it. */
static char *
plan_command(const char *line)
{
	rt_buf b = {0};
	const char *p = line;
	char *w, *q;
	int op;

	if (strncmp(line, "rt-plan ", 8) != 0)
		return NULL;
	while ((w = sh_word(&p, &op))) {
		if (op) {
			free(w);
			rt_buf_free(&b);
			return NULL;
		}
		q = rt_sh_quote(w);
		rt_buf_printf(&b, "%s%s", b.len ? " " : "", q);
		free(q);
		free(w);
	}
	return b.data;
}

static void
add_step(ship_t *S, char *cmd)
{
	S->repro = rt_xrealloc(S->repro, (S->nrepro + 1) * sizeof *S->repro);
	S->repro[S->nrepro++] = cmd;
}

/* The Reproduce block, every path relative to the top of the repository:
 * the tested files as they were before the fix, rt-verify on the committed
 * evidence, the fix back; then the record's other checks (rt-plan). */
static void
plan_reproduce(const verdict_t *v, ship_t *S, int have_hyps)
{
	int argv_form;
	char *opts = verify_options(v, &argv_form), *dir, *files = NULL, *ev, *m, *h, *m2;
	rt_buf fb = {0};
	size_t i;

	if (!opts && !(opts = verify_options_from_fields(v)))
		return;
	for (i = 0; i < S->nfiles; i++) {
		char *f = rt_xasprintf("%s%s", S->prefix, S->files[i]), *q = rt_sh_quote(f);
		rt_buf_printf(&fb, " %s", q);
		free(q);
		free(f);
	}
	files = fb.data;
	if (*S->prefix) {
		char *d = rt_xstrdup(S->prefix);
		d[strlen(d) - 1] = '\0';
		dir = rt_sh_quote(d);
		free(d);
	} else {
		dir = rt_xstrdup(".");
	}
	ev = rt_sh_quote(S->evdir);
	m = rt_xasprintf("%s/measure.json", ev);
	h = have_hyps ? rt_xasprintf(" %s/hypotheses.jsonl", ev) : rt_xstrdup("");
	if (files)
		add_step(S, rt_xasprintf("git checkout HEAD^ --%s", files));
	if (argv_form)
		add_step(S, rt_xasprintf("cat %s%s | rt-verify -C %s%s > verdict.jsonl", m, h, dir, opts));
	else
		add_step(S, rt_xasprintf("rt-verify -C %s%s %s%s > verdict.jsonl", dir, opts, m, h));
	if (files)
		add_step(S, rt_xasprintf("git checkout HEAD --%s", files));
	for (i = 0; i < v->nrepro; i++)
		if ((m2 = plan_command(v->repro[i])))
			add_step(S, m2);
	free(opts);
	free(files);
	free(dir);
	free(ev);
	free(m);
	free(h);
}

/* The verdict's baseline as the measure record rt-verify reads. */
static char *
evidence_measure(const verdict_t *v)
{
	json_t *m = json_object(), *b = json_object_get(v->rec, "baseline");
	char *s, *t;

	json_object_set_new(m, "type", json_string("measure"));
	if (v->command)
		json_object_set_new(m, "command", json_string(v->command));
	if (v->test)
		json_object_set_new(m, "test", json_string(v->test));
	json_object_update(m, b);
	json_object_set_new(m, "type", json_string("measure"));
	s = json_dumps(m, JSON_COMPACT);
	json_decref(m);
	t = rt_xasprintf("%s\n", s);
	free(s);
	return t;
}

/* The hypotheses raced, rebuilt from the verdict's lanes and winner. The
 * record keeps only the winner's patch; the others go with "patch": null,
 * so a rerun races the winner alone. *missing counts them. */
static char *
evidence_hypotheses(const verdict_t *v, size_t *missing)
{
	json_t *lanes = json_object_get(v->rec, "lanes"), *win = json_object_get(v->rec, "winner");
	json_t *l, *h;
	rt_buf b = {0};
	size_t i;
	static const char *const keys[] = { "id", "source", "model", "cause_class", NULL };
	static const char *const wkeys[] = { "explanation", "patch", "files", NULL };

	*missing = 0;
	json_array_foreach(lanes, i, l) {
		const char *id = json_string_value(json_object_get(l, "id"));
		int k, is_w = v->has_winner && id && strcmp(id, v->w_id) == 0;
		char *s;
		h = json_object();
		json_object_set_new(h, "type", json_string("hypothesis"));
		for (k = 0; keys[k]; k++)
			json_object_set(h, keys[k], json_object_get(l, keys[k]) ?
			    json_object_get(l, keys[k]) : json_null());
		for (k = 0; is_w && wkeys[k]; k++)
			if (json_object_get(win, wkeys[k]))
				json_object_set(h, wkeys[k], json_object_get(win, wkeys[k]));
		if (!is_w) {
			json_object_set_new(h, "patch", json_null());
			json_object_set_new(h, "note", json_string("the verdict record does not "
			    "carry this hypothesis's patch"));
			(*missing)++;
		}
		s = json_dumps(h, JSON_COMPACT);
		rt_buf_printf(&b, "%s\n", s);
		free(s);
		json_decref(h);
	}
	return b.data;       /* NULL: no lane */
}

/* The evidence added to the change: measure, hypotheses, verdict, and
 * for a fix its dossier. */
static void
add_evidence(rt_repo *r, const verdict_t *v, const ship_t *S, const char *dossier, change_t *C)
{
	size_t missing;
	char *rec = json_dumps(v->rec, JSON_COMPACT), *h = evidence_hypotheses(v, &missing);
	char *dir = S->evdir + strlen(S->prefix);   /* relative to DIR */

	add_file(r, C, rt_xasprintf("%s/measure.json", dir), evidence_measure(v));
	if (h)
		add_file(r, C, rt_xasprintf("%s/hypotheses.jsonl", dir), h);
	add_file(r, C, rt_xasprintf("%s/verdict.jsonl", dir), rt_xasprintf("%s\n", rec));
	if (!S->quarantine)
		add_file(r, C, rt_xasprintf("%s/dossier.md", dir), rt_xstrdup(dossier));
	free(rec);
}

/* ---- the author and the date ---- */

static long long
change_epoch(const verdict_t *v)
{
	return v->has_epoch ? v->epoch : rt_git_epoch();
}

static void
write_out(const char *path, const char *data)
{
	if (strcmp(path, "-") == 0) {
		/* a gone reader: the other file still gets written */
		(void)fwrite(data, 1, strlen(data), stdout);
		rt_fpart(stdout, "stdout");
		return;
	}
	if (rt_write_output(path, data, strlen(data)) < 0)
		rt_output_die(path);
}

/* ---- GitHub ---- */

/* The API, and where git is served for it: --github pushes to gh_push_url
 * only, never to a git remote, and the credential helper answers for
 * G.git_proto://G.git_host only (gh_api). */
static char *gh_push_url, *gh_helper;

static char *
urlenc(const char *s)
{
	rt_buf b = {0};
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (isalnum(c) || strchr("-._~", c))
			rt_buf_addc(&b, (char)c);
		else
			rt_buf_printf(&b, "%%%02X", c);
	}
	return b.data ? b.data : rt_xstrdup("");
}

static long
gh_call(const char *method, const char *path, json_t *body, json_t **out, char **msg)
{
	return rt_gh_call(&G, method, path, body, out, msg);
}

/* The pull request whose head is branch, if any (open or closed). */
static json_t *
gh_find_pr(const char *owner, const char *repo, const char *branch, int fatal)
{
	char *head = rt_xasprintf("%s:%s", owner, branch), *eh = urlenc(head);
	char *path = rt_xasprintf("/repos/%s/%s/pulls?head=%s&state=all&per_page=10", owner, repo, eh);
	char *msg;
	json_t *j, *pr = NULL;
	long st = gh_call("GET", path, NULL, &j, &msg);

	if (st != 200) {
		if (fatal && st)
			rt_die("GitHub: GET /repos/%s/%s/pulls: HTTP %ld: %s; nothing was pushed",
			    owner, repo, st, msg);
		if (fatal)
			rt_die("GitHub: GET /repos/%s/%s/pulls: %s; nothing was pushed", owner, repo, msg);
	} else if (json_is_array(j) && json_array_size(j) > 0) {
		pr = json_incref(json_array_get(j, 0));
	}
	json_decref(j);
	free(msg);
	free(path);
	free(head);
	free(eh);
	return pr;
}

static void
report_existing(json_t *pr, const char *branch)
{
	json_t *u = json_object_get(pr, "html_url"), *n = json_object_get(pr, "number"),
	    *s = json_object_get(pr, "state");
	char *url = scrub(json_is_string(u) ? json_string_value(u) : "");

	rt_warn("a pull request for %s already exists: #%lld (%s); not opening a second",
	    branch, json_is_integer(n) ? (long long)json_integer_value(n) : 0LL,
	    json_is_string(s) ? json_string_value(s) : "state unknown");
	printf("%s\n", url);
	free(url);
}

/* git, for the push URL only: no credential helper but ours, which is
 * scoped to the push URL's host (git asks it for no other) and checks
 * that host itself; no hooks (they would inherit the token's variable);
 * no prompt. */
static int
gh_git(rt_repo *r, const char *const *env, rt_proc *p, const char *a, const char *b,
    const char *c, const char *d)
{
	return rt_git(r, env, NULL, p, "-c", "credential.helper=", "-c", gh_helper,
	    "-c", "core.hooksPath=/dev/null", a, b, c, d, (char *)NULL);
}

/* The SHA a branch at the push URL points at, or NULL when it does not exist. */
static char *
remote_branch(rt_repo *r, const char *const *env, const char *branch)
{
	rt_proc p;
	char *ref = rt_xasprintf("refs/heads/%s", branch), *sha = NULL, *tab;

	if (gh_git(r, env, &p, "ls-remote", gh_push_url, ref, NULL) < 0)
		rt_die("git ls-remote %s: %s; nothing was pushed", gh_push_url, complaint(p.err.data));
	if (p.out.len && (tab = strchr(p.out.data, '\t'))) {
		*tab = '\0';
		sha = rt_xstrdup(p.out.data);
	}
	rt_proc_free(&p);
	free(ref);
	return sha;
}

static void
ship_github(rt_repo *r, const ship_t *S, const char *commit, const char *dossier)
{
	char owner[256], repo[256], *slash, *base, *m, *existing, *pmsg, *refspec;
	char *envs[4];
	json_t *pr, *j, *body;
	long st;
	rt_proc p;
	int created = 0;

	slash = strchr(opt_github, '/');
	snprintf(owner, sizeof owner, "%.*s", (int)(slash - opt_github), opt_github);
	snprintf(repo, sizeof repo, "%s", slash + 1);
	envs[0] = rt_xasprintf(TOKEN_ENV "=%s", G.token);
	envs[1] = "GIT_TERMINAL_PROMPT=0";
	envs[2] = "GIT_ASKPASS=";
	envs[3] = NULL;

	/* 1. the same verdict shipped before? */
	if ((pr = gh_find_pr(owner, repo, S->branch, 1))) {
		report_existing(pr, S->branch);
		json_decref(pr);
		free(envs[0]);
		return;
	}
	/* 2. the base */
	if (opt_base) {
		base = rt_xstrdup(opt_base);
	} else {
		char *path = rt_xasprintf("/repos/%s/%s", owner, repo);
		st = gh_call("GET", path, NULL, &j, &m);
		if (st != 200 || !json_is_string(json_object_get(j, "default_branch")))
			rt_die("GitHub: GET %s: %s%s; nothing was pushed", path,
			    st ? rt_xasprintf("HTTP %ld: ", st) : "", m);
		base = rt_xstrdup(json_string_value(json_object_get(j, "default_branch")));
		json_decref(j);
		free(m);
		free(path);
	}
	/* 3. the branch */
	existing = remote_branch(r, (const char *const *)envs, S->branch);
	if (existing && strcmp(existing, commit) != 0)
		rt_die("branch %s already exists on %s at %.12s, which is not this change, and no "
		    "pull request uses it; delete it (git push %s --delete %s) and run again",
		    S->branch, gh_push_url, existing, gh_push_url, S->branch);
	if (!existing) {
		refspec = rt_xasprintf("%s:refs/heads/%s", commit, S->branch);
		snprintf(pushed_note, sizeof pushed_note,
		    "%s: interrupted: branch %s was pushed to %s and is left there\n",
		    rt_progname, S->branch, gh_push_url);
		if (gh_git(r, (const char *const *)envs, &p, "push", "--quiet", gh_push_url,
		    refspec) < 0) {
			pushed_note[0] = '\0';
			rt_die("git push %s: %s; nothing was pushed", gh_push_url, complaint(p.err.data));
		}
		rt_proc_free(&p);
		free(refspec);
		created = 1;
	}
	/* 4. the pull request */
	body = json_pack("{s:s, s:s, s:s, s:s, s:b, s:b}", "title", S->title, "head", S->branch,
	    "base", base, "body", dossier, "maintainer_can_modify", 1, "draft", opt_draft);
	{
		char *path = rt_xasprintf("/repos/%s/%s/pulls", owner, repo);
		st = gh_call("POST", path, body, &j, &pmsg);
		free(path);
	}
	json_decref(body);
	if (st == 201 && json_is_object(j)) {
		json_t *u = json_object_get(j, "html_url"), *n = json_object_get(j, "number");
		char *url = scrub(json_is_string(u) ? json_string_value(u) : "");
		pushed_note[0] = '\0';
		rt_warn("opened pull request #%lld: %s into %s (pushed to %s)",
		    json_is_integer(n) ? (long long)json_integer_value(n) : 0LL, S->branch, base,
		    gh_push_url);
		printf("%s\n", url);
		free(url);
		goto done;
	}
	if (st == 422 && strstr(pmsg, "already exists")) {
		pushed_note[0] = '\0';
		if ((pr = gh_find_pr(owner, repo, S->branch, 0))) {
			report_existing(pr, S->branch);
			json_decref(pr);
		} else {
			rt_warn("GitHub says a pull request for %s:%s already exists (%s); not "
			    "opening a second; branch %s is on %s", owner, S->branch, pmsg,
			    S->branch, gh_push_url);
		}
		goto done;
	}
	/* failed halfway: take the branch back, or say exactly what is left */
	{
		char *what = st ? rt_xasprintf("HTTP %ld: %s", st, pmsg) : rt_xstrdup(pmsg);
		char *del = rt_xasprintf(":refs/heads/%s", S->branch);
		rt_warn("GitHub: POST /repos/%s/%s/pulls: %s", owner, repo, what);
		if (!created) {
			rt_warn("branch %s was on %s before this run (at %.12s) and is left as it was; "
			    "no pull request was opened", S->branch, gh_push_url, commit);
		} else if (gh_git(r, (const char *const *)envs, &p, "push", "--quiet", gh_push_url,
		    del) == 0) {
			rt_warn("removed branch %s from %s again; nothing is left behind", S->branch,
			    gh_push_url);
		} else {
			char *why = complaint(p.err.data);
			rt_warn("branch %s is left on %s at %.12s (removing it failed: %s); no pull "
			    "request was opened; remove it with: git push %s --delete %s", S->branch,
			    gh_push_url, commit, why, gh_push_url, S->branch);
			free(why);
		}
		pushed_note[0] = '\0';
		free(what);
		free(del);
		json_decref(j);
		free(pmsg);
		free(base);
		free(existing);
		free(envs[0]);
		exit(RT_EXIT_ERR);
	}
done:
	json_decref(j);
	free(pmsg);
	free(base);
	free(existing);
	free(envs[0]);
}

/* The test a verdict is about, by its ID: --test, the record's "test",
 * the victim of the winner's order record, or the one test the command
 * selects (a pytest node ID, a unittest dotted name, go test -run ^TestX$);
 * else the command. Malloc'd, or NULL. */
static char *
test_name(const verdict_t *v)
{
	json_t *o = json_object_get(json_object_get(v->rec, "winner"), "order");
	const char *victim = json_string_value(json_object_get(o, "victim"));
	char *w[256], *name = NULL;
	rt_runner_sel sel[16];
	size_t n, k, i, one = 0, nsel = 0;

	if (opt_test || v->test)
		return rt_xstrdup(opt_test ? opt_test : v->test);
	if (victim && *victim)
		return rt_xstrdup(victim);
	if (!v->command)
		return NULL;
	n = rt_cmd_split(v->command, w, sizeof w / sizeof w[0]);
	/* the selections that name tests (go test's packages do not) */
	k = rt_runner_selections(w, n, sel, 16);
	for (i = 0; i < k; i++)
		if (sel[i].kind != RT_SEL_GOPKG)
			one = i, nsel++;
	if (nsel == 1 && (sel[one].kind == RT_SEL_NODE || sel[one].kind == RT_SEL_DOTTED)) {
		name = rt_xstrdup(sel[one].text);
	} else if (nsel == 1 && sel[one].kind == RT_SEL_GORUN) {
		const char *r = sel[one].text + (sel[one].text[0] == '^');
		size_t l = strlen(r) - (*r && r[strlen(r) - 1] == '$');
		for (i = 0; i < l && (isalnum((unsigned char)r[i]) || r[i] == '_'); i++)
			;
		if (l > 0 && i == l)
			name = rt_xasprintf("%.*s", (int)l, r);
	}
	for (i = 0; i < n; i++)
		free(w[i]);
	return name ? name : rt_xstrdup(v->command);
}

/* What is shipped and under which name: the subject, the headline, the
 * branch; the winner's files, or the quarantine's list and dossier. */
static void
plan(verdict_t *v, ship_t *S)
{
	char hex[65], *s;

	memset(S, 0, sizeof *S);
	S->fixed = strcmp(v->verdict, "FIXED") == 0;
	S->improved = strcmp(v->verdict, "IMPROVED") == 0;
	S->quarantine = strcmp(v->verdict, "QUARANTINE") == 0;
	if (!S->fixed && !S->improved && !S->quarantine)
		rt_die_at(&v->where, "\"verdict\": unknown verdict %s", v->verdict);
	S->name = test_name(v);
	if (!S->name || !*S->name)
		rt_die_at(&v->where, "the record names no test (\"test\" missing); use --test NAME");
	S->slug = slugify(S->name);
	/* the evidence's directory: the slug, and when the slug lost part of
	 * the name (cut at 48, case, punctuation), the name's hash, so two
	 * tests or commands never share one */
	if (strcmp(S->slug, S->name) == 0) {
		S->evslug = rt_xstrdup(S->slug);
	} else {
		rt_sha256_hex(S->name, strlen(S->name), hex);
		S->evslug = rt_xasprintf("%s-%.8s", S->slug, hex);
	}
	S->prefix = "";
	if (S->fixed || S->improved) {
		char err[256];
		const conf_t *wc;
		const lane_t *l;
		if (!v->has_winner || !v->w_patch || !*v->w_patch)
			rt_die_at(&v->where, "verdict %s without a winner's patch", v->verdict);
		if (rt_patch_paths(v->w_patch, &S->files, &S->nfiles, err, sizeof err) < 0)
			rt_die("the winning patch is refused: %s", err);
		if (rt_patch_dangerous(S->files, S->nfiles, opt_allow_path, opt_nallow_path,
		    err, sizeof err))
			rt_die("the winning patch is refused: %s (--allow-path to permit)", err);
		g_permitted = permitted_paths(S->files, S->nfiles);
		rt_sha256_hex(v->w_patch, strlen(v->w_patch), hex);
		S->branch = rt_xasprintf("retrial/fix-%s-%.8s", S->slug, hex);
		wc = winner_conf(v);
		l = find_lane(v, v->w_id);
		S->after = wc ? fmt_conf(wc, "") : l ? fmt_lane(l, "") : rt_xstrdup("not measured");
		s = plain(S->name);
		S->headline = rt_xasprintf("%s %s: %ld/%ld failed before, %s after",
		    S->fixed ? "Fix flaky" : "Reduce flakiness of", s, v->b_failures, v->b_trials, S->after);
		free(s);
		s = wc ? rt_xasprintf("%ld/%ld → %ld/%ld failures", v->b_failures, v->b_trials,
		    wc->failures, wc->trials) : l ? rt_xasprintf("%ld/%ld → %ld/%ld failures",
		    v->b_failures, v->b_trials, l->failures, l->trials) :
		    rt_xasprintf("%ld/%ld failures before", v->b_failures, v->b_trials);
		S->title = subject(S->fixed ? "Fix flaky" : "Reduce flakiness of", S->name, s);
		free(s);
	} else {
		const char *x;
		for (x = S->name; *x; x++)
			if (is_blank_or_ctl((unsigned char)*x))
				rt_die("test name \"%s\" has a TAB or control characters and cannot go "
				    "on a quarantine list; name the test with --test NAME", S->name);
		if (*S->name == '#')
			rt_die("a test name starting with '#' cannot go on a quarantine list");
		S->qfile = rt_xstrdup(opt_qfile);
		S->dossier_path = rt_xasprintf(DOSSIER_DIR "/%s.md", S->evslug);
		{
			char *rec = json_dumps(v->rec, JSON_COMPACT | JSON_SORT_KEYS);
			rt_sha256_hex(rec, strlen(rec), hex);
			free(rec);
		}
		S->branch = rt_xasprintf("retrial/quarantine-%s-%.8s", S->slug, hex);
		s = plain(S->name);
		S->after = fmt_rate(v->b_failures, v->b_trials, "failed");
		S->headline = rt_xasprintf("Quarantine flaky %s: %s, no fix survived", s, S->after);
		free(s);
		s = rt_xasprintf("%ld/%ld failures, no fix survived", v->b_failures, v->b_trials);
		S->title = subject("Quarantine flaky", S->name, s);
		free(s);
	}
}

/* Where the evidence goes and how it is rerun. */
static void
plan_evidence(const verdict_t *v, ship_t *S)
{
	json_t *lanes = json_object_get(v->rec, "lanes");
	size_t n = json_array_size(lanes);

	S->evdir = rt_xasprintf("%s" EVIDENCE_DIR "/%s", S->prefix, S->evslug);
	S->unpatched = n - (v->has_winner && find_lane(v, v->w_id) ? 1 : 0);
	plan_reproduce(v, S, n > 0);
}

/* The whole change: the winner's patch or the quarantine, then the
 * evidence. Nothing to commit leaves C empty. */
static void
build_change(rt_repo *r, const verdict_t *v, const ship_t *S, const char *dossier, change_t *C)
{
	char *why;

	memset(C, 0, sizeof *C);
	if (S->quarantine) {
		add_quarantine(r, v, S, dossier, C);
	} else {
		/* ship what rt-verify applied: the checked sections only,
		 * never a git header (mode, rename) it did not see */
		char cerr[256], *canon = rt_patch_canonical(v->w_patch, cerr, sizeof cerr);
		if (!canon)
			rt_die("the winning patch is refused: %s", cerr);
		C->diff = *canon && canon[strlen(canon) - 1] != '\n' ?
		    rt_xasprintf("%s\n", canon) : rt_xstrdup(canon);
		free(canon);
		if (rt_git_apply_check(r, C->diff, &why) < 0) {
			rt_warn("the winning patch does not apply to HEAD of %s: %s", opt_dir, why);
			exit(RT_EXIT_ERR);
		}
	}
	add_evidence(r, v, S, dossier, C);
}

/* The API from GITHUB_API_URL (rt_gh_api), the push URL and the
 * credential helper for the host git is served from. Checked before
 * anything is read or sent. */
static void
gh_api(void)
{
	rt_gh_api(&G);
	G.verbose = opt_verbose;
	gh_push_url = rt_xasprintf("%s://%s/%s.git", G.git_proto, G.git_host, opt_github);
	/* git asks this helper for G.git_proto://G.git_host only; it checks
	 * the protocol and host it is asked for all the same, and answers
	 * nothing for any other. The token is in its environment, never argv. */
	gh_helper = rt_xasprintf("credential.%s://%s.helper=!f() { test \"$1\" = get || exit 0; "
	    "p= h=; while IFS= read -r l && test -n \"$l\"; do case $l in "
	    "protocol=*) p=${l#protocol=} ;; host=*) h=${l#host=} ;; esac; done; "
	    "test \"$p\" = '%s' && test \"$h\" = '%s' && test -n \"$" TOKEN_ENV "\" || exit 0; "
	    "echo username=x-access-token; printf 'password=%%s\\n' \"$" TOKEN_ENV "\"; }; f",
	    G.git_proto, G.git_host, G.git_proto, G.git_host);
}

static void
read_verdict(int argc, char *argv[], verdict_t *v)
{
	memset(v, 0, sizeof *v);
	rt_jsonl_loop(argc, argv, NULL, on_record, v);
	if (!v->rec)
		rt_die("%s: no verdict record (type \"verdict\") in the input",
		    argc ? argv[0] : "<stdin>");
	parse_verdict(v);
	g_conf = v->conf;
}

static void
verdict_free(verdict_t *v)
{
	free(v->lanes);
	free(v->confs);
	free(v->repro);
	json_decref(v->rec);
}

static void
ship_free(ship_t *S)
{
	size_t i;

	rt_patch_paths_free(S->files, S->nfiles);
	for (i = 0; i < S->nrepro; i++)
		free(S->repro[i]);
	free(S->repro);
	free(S->slug);
	free(S->evslug);
	free(S->title);
	free(S->headline);
	free(S->branch);
	free(S->qfile);
	free(S->dossier_path);
	free(S->after);
	free(S->evdir);
}

static void
change_free(change_t *C)
{
	size_t i;

	for (i = 0; i < C->nfiles; i++) {
		free(C->files[i].path);
		free(C->files[i].text);
	}
	free(C->files);
	free(C->diff);
}

/* ---- main ---- */

static void
refuse(const verdict_t *v)
{
	char *b = fmt_rate(v->b_failures, v->b_trials, "failed");

	if (v->interrupted)
		rt_warn("the verdict record says the run was interrupted: %s is not final; "
		    "nothing to ship", v->verdict);
	else if (strcmp(v->verdict, "REGRESSION") == 0)
		rt_warn("verdict REGRESSION: the test fails every time (%s); that is a broken "
		    "build, not a flaky test: fix the code, not the test; nothing to ship", b);
	else if (strcmp(v->verdict, "INCONCLUSIVE_BASELINE") == 0)
		rt_warn("verdict INCONCLUSIVE_BASELINE: the baseline (%s) does not show the test "
		    "is flaky; measure longer (rt-measure, rt-plan) before shipping anything", b);
	else if (strcmp(v->verdict, "ALREADY_STABLE") == 0)
		rt_warn("verdict ALREADY_STABLE: the test is stable (%s); nothing to fix", b);
	else if (strcmp(v->verdict, "ERROR") == 0)
		rt_warn("verdict ERROR: the baseline could not run the test (%s, %ld errors); "
		    "nothing to ship", b, v->b_errors);
	else {
		free(b);
		return;
	}
	free(b);
	exit(RT_EXIT_NO);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "allow-path", required_argument, NULL, 'P' },
		{ "author", required_argument, NULL, 'a' },
		{ "base", required_argument, NULL, 'B' },
		{ "body", required_argument, NULL, 'b' },
		{ "directory", required_argument, NULL, 'C' },
		{ "draft", no_argument, NULL, 'D' },
		{ "github", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ "mbox", required_argument, NULL, 'm' },
		{ "quarantine-file", required_argument, NULL, 'q' },
		{ "template", required_argument, NULL, 't' },
		{ "test", required_argument, NULL, 'T' },
		{ "token-file", required_argument, NULL, 'K' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		RT_LIST_OPTIONS_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	verdict_t v;
	ship_t S;
	rt_repo R;
	char *dossier, *msg, *commit = NULL, *aname, *aemail;
	change_t C = {0};
	struct sigaction sa;
	int c;

	rt_setprogname(argv[0]);
	rt_secret_protect();
	opterr = 0;
	rt_config_apply("rt-pr", longopts, &argc, &argv);
	while ((c = getopt_long(argc, argv, "a:b:C:g:hm:q:t:vV", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': opt_author = optarg; break;
		case 'B': opt_base = optarg; break;
		case 'b': opt_body = optarg; break;
		case 'C': opt_dir = optarg; break;
		case 'D': opt_draft = 1; break;
		case 'P':
			opt_allow_path = rt_xrealloc(opt_allow_path,
			    (opt_nallow_path + 1) * sizeof *opt_allow_path);
			opt_allow_path[opt_nallow_path++] = optarg;
			break;
		case 'g': opt_github = optarg; break;
		case RT_OPT_LIST_OPTIONS: return rt_cli_list_options(longopts);
		case 'h': usage(); rt_fshut(stdout, "stdout"); return 0;
		case 'K': opt_token_file = optarg; break;
		case 'm': opt_mbox = optarg; break;
		case 'q': opt_qfile = optarg; break;
		case 't': opt_tmpl = optarg; break;
		case 'T': opt_test = optarg; break;
		case 'v': opt_verbose = 1; break;
		case 'V': rt_print_version(); rt_fshut(stdout, "stdout"); return 0;
		default: rt_bad_option(c, "a:b:C:g:hm:q:t:vV", argv);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		rt_usage_die("one verdict file at most (%d given)", argc);
	if (!opt_mbox && !opt_body && !opt_github)
		rt_usage_die("nothing to do: give --mbox FILE, --body FILE or --github OWNER/REPO");
	if (opt_github) {
		if (!rt_gh_repo_ok(opt_github))
			rt_usage_die("--github %s: must be OWNER/REPO", opt_github);
	} else if (opt_base || opt_token_file || opt_draft) {
		rt_usage_die("--base, --token-file and --draft need --github");
	}
	if (!safe_relpath(opt_qfile))
		rt_usage_die("--quarantine-file %s: must be a relative path inside the project", opt_qfile);
	if (opt_mbox && opt_body && strcmp(opt_mbox, "-") == 0 && strcmp(opt_body, "-") == 0)
		rt_usage_die("--mbox and --body cannot both write to stdout");
	if (opt_github)
		gh_api();
	rt_run_verbose = opt_verbose;
	rt_git_author(opt_author, opt_dir, &aname, &aemail);

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	atexit(rt_git_cleanup);

	memset(&R, 0, sizeof R);
	read_verdict(argc, argv, &v);
	refuse(&v);
	plan(&v, &S);
	if (opt_mbox || opt_github) {
		rt_repo_open(&R, opt_dir);
		if (!R.git)
			rt_die("%s: not in a git work tree: --mbox and --github ship a commit "
			    "(git format-patch of it for --mbox); run git init and commit the project "
			    "first, or write the dossier alone with --body", opt_dir);
		S.prefix = R.prefix;
	}
	plan_evidence(&v, &S);
	dossier = render_dossier(&v, &S);
	msg = commit_message(&v, &S);
	if (R.git) {
		build_change(&R, &v, &S, dossier, &C);
		if (!C.diff && !C.nfiles) {
			rt_warn("%s is already on %s with this dossier and evidence; nothing to ship",
			    S.name, S.qfile);
			opt_mbox = opt_github = NULL;
		}
	}
	if (opt_github)
		rt_gh_token(&G, opt_token_file, "--github");
	if (opt_body)
		write_out(opt_body, dossier);
	if (opt_mbox || opt_github)
		commit = rt_git_commit(&R, C.diff, C.files, C.nfiles, msg, aname, aemail,
		    change_epoch(&v));
	if (opt_mbox) {
		char *mbox = rt_git_format_patch(&R, commit);
		write_out(opt_mbox, mbox);
		free(mbox);
	}
	if (opt_github) {
		rt_http_init();
		ship_github(&R, &S, commit, dossier);
		rt_http_cleanup();
	}
	rt_fshut(stdout, "stdout");
	rt_repo_close(&R);
	verdict_free(&v);
	ship_free(&S);
	change_free(&C);
	free(commit);
	free(aname);
	free(aemail);
	rt_gh_close(&G);
	free(gh_push_url);
	free(gh_helper);
	free(dossier);
	free(msg);
	return 0;
}
