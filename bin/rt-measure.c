/* rt-measure: rerun a command (or read trial records) and print its failure
 * rate with its interval (Wilson; exact one-sided at 0/n and n/n; after
 * --until, the anytime one its stopping rule used), the trial counts and a
 * verdict. */
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_cases.h"
#include "rt_cli.h"
#include "rt_config.h"
#include "rt_jsonl.h"
#include "rt_records.h"
#include "rt_out.h"
#include "rt_platform.h"
#include "rt_stats.h"
#include "rt_text.h"
#include "rt_trial.h"
#include "rt_util.h"

enum {
	OPT_FACTS = RT_OPT_TOOL_BASE, OPT_UNTIL, OPT_CONF, OPT_THRESH, OPT_GATE,
	OPT_TEXT, OPT_LENIENT, OPT_BY, OPT_CASE
};

static const struct option longopts[] = {
	RT_TRIAL_LONGOPTS,
	{ "trials", required_argument, NULL, 'n' },
	{ "out", required_argument, NULL, 'o' },
	{ "facts", required_argument, NULL, OPT_FACTS },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "confidence", required_argument, NULL, OPT_CONF },
	{ "threshold", required_argument, NULL, OPT_THRESH },
	{ "gate", no_argument, NULL, OPT_GATE },
	{ "text", no_argument, NULL, OPT_TEXT },
	{ "lenient", no_argument, NULL, OPT_LENIENT },
	{ "by", required_argument, NULL, OPT_BY },
	{ "case", required_argument, NULL, OPT_CASE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	RT_LIST_OPTIONS_LONGOPT,
	{ NULL, 0, NULL, 0 }
};

static void
usage(FILE *f)
{
	fprintf(f,
"usage: rt-measure [-n N] [-j N] [--until verdict|width:W] [--confidence C]\n"
"                  [--threshold T] [--gate] [--text] [-o FILE] [--facts FILE]\n"
"                  [--case ID] [trial options] (--cmd \"CMD\" | -- ARGV...)\n"
"       rt-measure [--by case | --case ID] [options] [trial-record-file ...]\n"
"Measure a failure rate with its interval and a verdict.\n"
"  -n, --trials N         trials to run (default 20; the cap with --until)\n"
"      --until RULE       stop early: \"verdict\" (once the verdict is decided) or\n"
"                         \"width:W\" (interval narrower than W), anytime-valid\n"
"      --confidence C     confidence level (default 0.95)\n"
"      --threshold T      STABLE needs the one-sided upper bound below T,\n"
"                         ALWAYS_FAILING the lower bound above 1 - T (0.10)\n"
"      --gate             exit 1 unless the verdict is STABLE\n"
"      --text             print one human line instead of JSON\n"
"  -o, --out FILE         also write the record to FILE (atomically)\n"
"      --facts FILE       also keep every trial record in FILE\n"
"      --lenient          skip malformed input lines (counted) instead of failing\n"
"      --by case          one record per test case (records carrying \"case\"):\n"
"                         FLAKY needs a pass and a failure on one revision\n"
"      --case ID          judge each trial by that test case's own outcome (the\n"
"                         runner's ID; pytest and go test are asked for their\n"
"                         report); reading records, that case's records only\n");
	rt_trial_cli_usage(f);
	fprintf(f,
"  -h, --help             this text\n"
"  -V, --version          the version\n");
}

/* One test case of --by case, kept small (about 100 bytes besides its
 * name) so a suite of 100k cases streams through: its tally, and passes
 * and failures per revision, since FLAKY needs both on one revision. The
 * first revision is inline; revisions are ids into one shared table. */
typedef struct {
	uint32_t rev;                /* id in measure.revs ("" without one) */
	uint32_t passes, failures;
} crev;

typedef struct {
	rt_tally t;
	crev rev0;                   /* the first revision, when nrevs > 0 */
	crev *more;                  /* the others */
	uint32_t nrevs;
} tcase;

typedef struct {
	rt_trial_cli *cli;
	rt_tally tally;
	double conf, threshold, width;
	int until;                   /* 0 none, 1 verdict, 2 width */
	FILE *facts;
	const char *factsname;
	rt_progress prog;
	long done;
	const char *stopped;
	char stop_reason[200];
	long decided_at;             /* valid trials when --until decided */
	char reason[400];            /* the first error's, for the warning */
	const char *command;         /* from records, when reading them */
	char *command_owned;
	/* records carrying "case" (rt-junit, rt-collect --junit, rt-retry's
	 * attempts): one tally for them all, or one per case with --by case */
	rt_tally case_tally;
	int by_case;
	long unstable;               /* cases neither STABLE nor SKIPPED */
	rt_strtab *cases;            /* name -> tcase */
	rt_strtab *revs;             /* the revisions of the cases, interned */
	size_t ncases;
	/* reading records: (trial, seed) pairs seen, to drop duplicates */
	uint64_t *seen;
	size_t nseen, capseen;
	long duplicates;
	double gap_ms;               /* the records' gap_ms; NAN when they differ */
	int have_gap;
	long max_concurrent;
	/* --case ID: the judged case; running trials, their reports' directory */
	const char *judge;
	rt_cases_dir jdir;
	long noreport, badreport;
} measure;

/* --until: decide with the anytime-valid confidence sequence, so checking
 * after every trial does not inflate the error rate (rt_stats(3)). */
static int
decided(measure *m)
{
	rt_tally *t = &m->tally;
	rt_interval cs;

	if (t->trials == 0)
		return 0;
	rt_cs_interval(t->failures, t->trials, m->conf, 0.5, 0.5, &cs);
	if (m->until == 1) {
		if (t->failures > 0 && t->passes > 0) {
			snprintf(m->stop_reason, sizeof m->stop_reason,
			    "FLAKY: the same command both passed and failed (after %ld trials)", t->trials);
			return 1;
		}
		if (t->failures == 0 && cs.high < m->threshold) {
			snprintf(m->stop_reason, sizeof m->stop_reason,
			    "STABLE: anytime-valid upper bound %.4g below %g after %ld trials",
			    cs.high, m->threshold, t->trials);
			return 1;
		}
		/* the mirror of STABLE, on the same anytime sequence */
		if (t->passes == 0 && cs.low >= 1 - m->threshold) {
			snprintf(m->stop_reason, sizeof m->stop_reason,
			    "ALWAYS_FAILING: anytime-valid lower bound %.4g at or above 1 - %g "
			    "after %ld trials", cs.low, m->threshold, t->trials);
			return 1;
		}
		return 0;
	}
	if (cs.high - cs.low <= m->width) {
		snprintf(m->stop_reason, sizeof m->stop_reason,
		    "anytime-valid interval %.4g-%.4g is narrower than %g after %ld trials",
		    cs.low, cs.high, m->width, t->trials);
		return 1;
	}
	return 0;
}

/* --until chose n by looking at the data, so a fixed-n interval no longer
 * holds (a Wilson "95%" covers 83-86% of the time at 0.5-5% after
 * --until verdict): the interval is the anytime-valid confidence sequence
 * the stopping rule used, valid at whatever n the rule stopped, and the
 * point rate, biased by where it stopped, says so. */
static void
anytime_fields(json_t *rec, const measure *m)
{
	const rt_tally *t = &m->tally;
	long k = t->failures, n = t->trials;
	char text[240];
	rt_interval cs;

	rt_cs_interval(k, n, m->conf, 0.5, 0.5, &cs);
	json_object_set_new(rec, "ci_low", rt_json_real6(cs.low));
	json_object_set_new(rec, "ci_high", rt_json_real6(cs.high));
	json_object_set_new(rec, "interval", json_string("anytime"));
	json_object_set_new(rec, "z", json_null());
	json_object_set_new(rec, "rate_biased", json_boolean(m->stopped != NULL));
	if (n <= 0)
		return;
	rt_say_count_iv(text, sizeof text, k, n, m->conf, "failed", &cs, "anytime",
	    m->stopped ? "biased by stopping early" : NULL);
	json_object_set_new(rec, "summary", json_string(text));
}

static int
on_trial(const rt_trial_result *res, void *ctx)
{
	measure *m = ctx;
	json_t *rec;
	rt_case_set set;
	rt_trial_result judged;
	rt_outcome exit_outcome = res->outcome;

	memset(&set, 0, sizeof set);
	if (m->judge) {
		/* --case: that test's own outcome, as rt-collect --case judges it,
		 * unless the command's says it could not run or ran out of time */
		judged = *res;
		if (rt_cases_trial(&m->jdir, &m->cli->o, res, NULL, NULL, &set) < 0) {
			if (!strncmp(set.error, "no JUnit report", 15) && !set.refused) {
				if (m->noreport++ == 0)
					rt_warn("trial %ld: %s", res->trial, set.error);
			} else {
				m->badreport++;
				rt_warn("trial %ld: %s", res->trial, set.error);
			}
		}
		if (res->outcome != RT_ERROR && res->outcome != RT_TIMEOUT) {
			judged.outcome = rt_cases_judge(&set, m->judge, res->trial, judged.error,
			    sizeof judged.error);
			if (judged.outcome != RT_ERROR)
				judged.error[0] = '\0';
		}
		res = &judged;
	}
	rt_tally_add(&m->tally, res->outcome);
	m->done++;
	if (m->facts) {
		rec = rt_trial_json(res, &m->cli->o, m->cli->command);
		if (m->judge) {
			json_object_set_new(rec, "case_judged", json_string(m->judge));
			json_object_set_new(rec, "exit_outcome", json_string(rt_outcome_name(exit_outcome)));
			json_object_set_new(rec, "others_failed", rt_cases_others_failed(&set, m->judge));
		}
		if (rt_emit_try(m->facts, rec) < 0)
			rt_fpart(m->facts, m->factsname);
		json_decref(rec);
	}
	rt_case_set_free(&set);
	rt_progress_update(&m->prog, m->done, m->tally.failures, m->tally.trials,
	    m->conf, NULL);
	if (res->outcome == RT_ERROR && !m->reason[0])
		rt_error_reason(m->reason, sizeof m->reason, res->trial, res->error,
		    res->err.data);
	if (m->until && !m->stopped && decided(m)) {
		m->stopped = m->until == 1 ? "verdict" : "width";
		m->decided_at = m->tally.trials;
		return RT_STOP;
	}
	return RT_GO_ON;
}

/* A trial number and seed seen before: the same trial counted twice. */
static int
seen_key(measure *m, uint64_t key)
{
	size_t i, mask;
	uint64_t *old;
	size_t oldcap;

	if (m->nseen * 2 >= m->capseen) {
		old = m->seen;
		oldcap = m->capseen;
		m->capseen = oldcap ? oldcap * 2 : 1024;
		m->seen = rt_xcalloc(m->capseen, sizeof *m->seen);
		m->nseen = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i]) {
				size_t j = old[i] & (m->capseen - 1);
				while (m->seen[j])
					j = (j + 1) & (m->capseen - 1);
				m->seen[j] = old[i];
				m->nseen++;
			}
		free(old);
	}
	mask = m->capseen - 1;
	for (i = key & mask; m->seen[i]; i = (i + 1) & mask)
		if (m->seen[i] == key)
			return 1;
	m->seen[i] = key;
	m->nseen++;
	return 0;
}

static int
seen_before(measure *m, uint64_t trial, const char *seed)
{
	return seen_key(m, rt_mix64(strtoull(seed, NULL, 10) ^ rt_mix64(trial)) | 1);
}

static uint64_t
str_hash(const char *s, uint64_t h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return rt_mix64(h ^ 0xff);
}

/* The case named by len bytes of name, created empty when new; valid
 * until the next case_get. */
static tcase *
case_get(measure *m, const char *name, size_t len)
{
	if (!m->cases) {
		m->cases = rt_strtab_new(sizeof(tcase));
		m->revs = rt_strtab_new(0);
	}
	return rt_strtab_val(m->cases, rt_strtab_put(m->cases, name, len, NULL));
}

static void
case_add(measure *m, tcase *c, const char *rev, rt_outcome o)
{
	uint32_t id, i;
	crev *r = NULL;

	rt_tally_add(&c->t, o);
	if (o != RT_PASS && o != RT_FAIL && o != RT_TIMEOUT)
		return;
	id = (uint32_t)rt_strtab_put(m->revs, rev, strlen(rev), NULL);
	for (i = 0; i < c->nrevs; i++) {
		r = i == 0 ? &c->rev0 : &c->more[i - 1];
		if (r->rev == id)
			break;
	}
	if (i == c->nrevs) {
		if (i > 0) {
			c->more = rt_xrealloc(c->more, i * sizeof *c->more);
			r = &c->more[i - 1];
		} else {
			r = &c->rev0;
		}
		r->rev = id;
		r->passes = r->failures = 0;
		c->nrevs++;
	}
	if (o == RT_PASS)
		r->passes++;
	else
		r->failures++;
}

/* A record carrying "case": drop a duplicate (the same run, case, trial,
 * repeat and attempt, as when a shard's file is given twice), then count.
 * Each repeat (go test -count=N) and each attempt is one trial of the case. */
static void
on_case_record(measure *m, json_t *rec, const rt_where *w, const char *name,
    rt_outcome o)
{
	const char *run = NULL, *rev = NULL;
	long long trial = 0, attempt = 0, repeat = 1;
	int has_run, has_trial;
	uint64_t key;
	char num[64], *revkey;

	has_run = rt_rec_opt_str(rec, "run", w, &run);
	has_trial = rt_rec_opt_int(rec, "trial", w, &trial);
	rt_rec_opt_int(rec, "attempt", w, &attempt);
	rt_rec_opt_int(rec, "repeat", w, &repeat);
	if (has_run || has_trial) {
		snprintf(num, sizeof num, "%lld/%lld/%lld", trial, repeat, attempt);
		key = str_hash(num, str_hash(name, str_hash(run ? run : "",
		    1469598103934665603ULL))) | 1;
		if (seen_key(m, key)) {
			if (m->duplicates++ == 0)
				rt_warn("%s:%ld: case %s, run %s, trial %lld, repeat %lld, attempt "
				    "%lld was already counted: dropping repeated records (the same "
				    "shard or file given twice?)", w->file, w->line, name,
				    run ? run : "(none)", trial, repeat, attempt);
			return;
		}
	}
	rt_tally_add(&m->case_tally, o);
	if (!m->by_case)
		return;
	if (!rt_rec_opt_str(rec, "revision", w, &rev))
		rev = NULL;
	revkey = rt_rec_rev_key(rev, run);
	case_add(m, case_get(m, name, strlen(name)), revkey, o);
	free(revkey);
}

static int
on_record(json_t *rec, const rt_where *w, void *ctx)
{
	measure *m = ctx;
	const char *type = json_string_value(json_object_get(rec, "type"));
	const char *oc, *cmd, *seed, *err, *errtext;
	long long trial = 0, conc;
	double gap;
	rt_outcome o;

	int attempt_rec = strcmp(type, "attempt") == 0;
	const char *name;

	if (strcmp(type, "trial") != 0 && !attempt_rec)
		return 0;
	rt_rec_check(rt_rec_kind(rec), rec, w);
	oc = rt_rec_str(rec, "outcome", w);
	/* rt-retry's cancelled attempts never ran: kept apart like skips */
	if (attempt_rec && strcmp(oc, "cancelled") == 0)
		o = RT_SKIP;
	else if (rt_outcome_parse(oc, &o) < 0)
		rt_die_at(w, "\"outcome\": unknown value \"%s\"", oc);
	if (rt_rec_opt_name(rec, "case", w, &name)) {
		/* --case ID: that case's records only, counted as --by case does */
		if (!m->judge || strcmp(name, m->judge) == 0)
			on_case_record(m, rec, w, name, o);
		return 0;
	}
	if (m->by_case || attempt_rec)
		return 0;
	seed = json_string_value(json_object_get(rec, "seed"));
	/* trials are numbered from 1, as every other reader expects */
	if (json_object_get(rec, "trial") && !json_is_null(json_object_get(rec, "trial")))
		trial = rt_rec_int(rec, "trial", 1, LLONG_MAX, w);
	if (trial > 0 && seed && seen_before(m, (uint64_t)trial, seed)) {
		if (m->duplicates++ == 0)
			rt_warn("%s:%ld: trial %lld with seed %s was already counted: dropping "
			    "repeated trials (the same shard or file given twice?)", w->file,
			    w->line, trial, seed);
		return 0;
	}
	rt_tally_add(&m->tally, o);
	if (o == RT_ERROR && !m->reason[0]) {
		if (!rt_rec_opt_str(rec, "error", w, &err))
			err = NULL;
		if (!rt_rec_opt_str(rec, "stderr", w, &errtext))
			errtext = NULL;
		rt_error_reason(m->reason, sizeof m->reason, (long)trial, err, errtext);
	}
	if (rt_rec_opt_num(rec, "gap_ms", w, &gap)) {
		if (!m->have_gap)
			m->gap_ms = gap;
		else if (m->gap_ms != gap)
			m->gap_ms = NAN;
		m->have_gap = 1;
	}
	if (rt_rec_opt_int(rec, "concurrent", w, &conc) && conc > m->max_concurrent)
		m->max_concurrent = (long)conc;
	if (!m->command && rt_rec_opt_str(rec, "command", w, &cmd))
		m->command = m->command_owned = rt_xstrdup(cmd);
	return 0;
}

/* "STABLE: 0/53 failed (≤5.5% at 95% confidence, below the 10% threshold)":
 * a verdict that rests on the threshold names it. */
static void
print_text(FILE *f, json_t *rec, double threshold)
{
	const char *verdict = json_string_value(json_object_get(rec, "verdict"));
	const char *summary = json_string_value(json_object_get(rec, "summary"));
	long k = (long)json_integer_value(json_object_get(rec, "failures"));
	long n = (long)json_integer_value(json_object_get(rec, "trials"));
	size_t len = strlen(summary);
	char clause[96] = "";
	rt_tally t;

	if (n > 0 && k == 0)
		snprintf(clause, sizeof clause, "%s the %g%% threshold",
		    strcmp(verdict, "STABLE") == 0 ? "below" : "not below", threshold * 100);
	else if (n > 0 && k == n)
		snprintf(clause, sizeof clause, "%s the %g%% that the %g%% threshold asks for",
		    strcmp(verdict, "ALWAYS_FAILING") == 0 ? "at least" : "short of",
		    (1 - threshold) * 100, threshold * 100);
	t.errors = (long)json_integer_value(json_object_get(rec, "errors"));
	t.ignored = (long)json_integer_value(json_object_get(rec, "ignored"));
	/* the summary ends in ")": the clause goes inside it */
	if (clause[0] && len > 0 && summary[len - 1] == ')')
		fprintf(f, "%s: %.*s, %s)", verdict, (int)(len - 1), summary, clause);
	else
		fprintf(f, "%s: %s", verdict, summary);
	if (t.errors || t.ignored)
		fprintf(f, "; %ld errors and %ld ignored not counted", t.errors, t.ignored);
	fputc('\n', f);
}

/* Left-justify in w columns, counting UTF-8 characters, not bytes. */
static void
pad(FILE *f, const char *s, int w)
{
	const char *p;

	fputs(s, f);
	for (p = s; *p; p++)
		w -= ((unsigned char)*p & 0xc0) != 0x80;
	while (w-- > 0)
		fputc(' ', f);
}

/* A case's place in the output, and what it is sorted by. */
typedef struct {
	size_t id;
	char verdict[24];
	double rate, low, high;
	const char *name;
} corder;

static int
case_cmp(const void *a, const void *b)
{
	const corder *x = a, *y = b;
	int fx = strcmp(x->verdict, "FLAKY") == 0, fy = strcmp(y->verdict, "FLAKY") == 0;

	if (fx != fy)
		return fy - fx;
	if (x->rate != y->rate)
		return x->rate < y->rate ? 1 : -1;
	/* at the same rate, the surer one (the higher lower bound) first */
	if (x->low != y->low)
		return x->low < y->low ? 1 : -1;
	if (x->high != y->high)
		return x->high < y->high ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The measure record of one case. "FLAKY needs a pass and a failure on
 * the same revision": a case that passed on one revision and failed on
 * another, never both on one, changed; it is "CHANGED", never FLAKY. */
static json_t *
case_record(measure *m, size_t id)
{
	tcase *c = rt_strtab_val(m->cases, id);
	const crev *r;
	size_t len, both = 0;
	const char *name = rt_strtab_key(m->cases, id, &len);
	char line[600];
	json_t *rec = json_object();
	uint32_t j;

	json_object_set_new(rec, "type", json_string("measure"));
	json_object_set_new(rec, "case", rt_json_bytes(name, len));
	rt_measure_fields(rec, &c->t, m->conf, m->threshold);
	for (j = 0; j < c->nrevs; j++) {
		r = j == 0 ? &c->rev0 : &c->more[j - 1];
		both += r->passes > 0 && r->failures > 0;
	}
	json_object_set_new(rec, "revisions", json_integer((json_int_t)c->nrevs));
	json_object_set_new(rec, "flaky_revisions", json_integer((json_int_t)both));
	if (c->t.passes > 0 && c->t.failures > 0 && both == 0) {
		json_object_set_new(rec, "verdict", json_string("CHANGED"));
		snprintf(line, sizeof line, "%s; passed and failed only on different "
		    "revisions (%u)", json_string_value(json_object_get(rec, "summary")),
		    (unsigned)c->nrevs);
		json_object_set_new(rec, "summary", json_string(line));
	}
	/* never ran: not an error of the test */
	if (c->t.trials == 0 && c->t.errors == 0 && c->t.skipped > 0)
		json_object_set_new(rec, "verdict", json_string("SKIPPED"));
	return rec;
}

/* --by case: one measure record per case, flaky first, then by rate, lower
 * and upper bound. Each record is made, written and freed in turn (made
 * once more after the sort), so memory holds the counts, never the
 * records. Returns the valid trials. */
static long
write_cases(measure *m, int text, FILE *f)
{
	size_t n = m->cases ? rt_strtab_count(m->cases) : 0, i;
	corder *v = rt_xcalloc(n + 1, sizeof *v);
	const tcase *c;
	long valid = 0;
	json_t *rec;
	char *vis;

	for (i = 0; i < n; i++) {
		c = rt_strtab_val(m->cases, i);
		rec = case_record(m, i);
		v[i].id = i;
		v[i].name = rt_strtab_key(m->cases, i, NULL);
		snprintf(v[i].verdict, sizeof v[i].verdict, "%s",
		    json_string_value(json_object_get(rec, "verdict")));
		m->unstable += strcmp(v[i].verdict, "STABLE") && strcmp(v[i].verdict, "SKIPPED");
		v[i].rate = c->t.trials ? (double)c->t.failures / (double)c->t.trials : -1;
		v[i].low = json_number_value(json_object_get(rec, "ci_low"));
		v[i].high = json_number_value(json_object_get(rec, "ci_high"));
		valid += c->t.trials;
		json_decref(rec);
	}
	qsort(v, n, sizeof *v, case_cmp);
	if (text && n)
		fprintf(f, "%-16s%-52s%s\n", "VERDICT", "FAILED (INTERVAL)", "CASE");
	for (i = 0; i < n; i++) {
		rec = case_record(m, v[i].id);
		c = rt_strtab_val(m->cases, v[i].id);
		if (text) {
			const char *sum = json_string_value(json_object_get(rec, "summary"));
			pad(f, v[i].verdict, 16);
			pad(f, sum, 52);
			vis = rt_visible(v[i].name);
			fputs(vis, f);
			free(vis);
			if (c->t.errors || c->t.skipped || c->t.ignored)
				fprintf(f, "  (%ld errors, %ld skipped, %ld ignored not counted)",
				    c->t.errors, c->t.skipped, c->t.ignored);
			fputc('\n', f);
		} else if (rt_emit_try(f, rec) < 0) {
			rt_die("stdout: write error:");
		}
		json_decref(rec);
	}
	if (text && n) {
		/* the suite: counts of verdicts, and what STABLE claims per case */
		static const char *const order[] = { "FLAKY", "ALWAYS_FAILING",
			"INSUFFICIENT_DATA", "STABLE", "SKIPPED", NULL };
		size_t k, j, cnt, other = n;
		char thr[32];

		fprintf(f, "suite: %zu case%s", n, n == 1 ? "" : "s");
		for (k = 0; order[k]; k++) {
			for (cnt = 0, j = 0; j < n; j++)
				cnt += !strcmp(v[j].verdict, order[k]);
			other -= cnt;
			if (cnt)
				fprintf(f, ", %zu %s", cnt, order[k]);
		}
		if (other)
			fprintf(f, ", %zu other", other);
		snprintf(thr, sizeof thr, "%g%%", 100 * m->threshold);
		fprintf(f, "; STABLE means a rate below %s at %g%% confidence for that "
		    "case alone, not a claim that none of them is flaky\n", thr, 100 * m->conf);
	}
	for (i = 0; i < n; i++)
		free(((tcase *)rt_strtab_val(m->cases, i))->more);
	free(v);
	rt_strtab_free(m->cases);
	rt_strtab_free(m->revs);
	m->cases = m->revs = NULL;
	return valid;
}

int
main(int argc, char *argv[])
{
	rt_trial_cli cli;
	measure m;
	rt_jsonl_opts jo = {0};
	long n = 20;
	const char *out = NULL, *facts = NULL;
	int gate = 0, text = 0, ch, sig = 0, have_cmd;
	double t0;
	json_t *rec;
	char *s, msg[800];
	rt_verdict v;
	int broken = 0;

	rt_setprogname(argv[0]);
	rt_secret_protect();
	rt_trial_cli_init(&cli);
	memset(&m, 0, sizeof m);
	m.conf = 0.95;
	m.threshold = RT_FLAKY_THRESHOLD;
	opterr = 0;
	rt_config_apply("rt-measure", longopts, &argc, &argv);
	while ((ch = getopt_long(argc, argv, RT_TRIAL_SHORTOPTS "n:o:hV", longopts, NULL)) != -1) {
		if (rt_trial_cli_opt(&cli, ch, optarg))
			continue;
		switch (ch) {
		case 'n':
			n = rt_num_long("-n", optarg, 1, 100000000);
			break;
		case 'o':
			out = optarg;
			break;
		case OPT_FACTS:
			facts = optarg;
			break;
		case OPT_UNTIL:
			if (strcmp(optarg, "verdict") == 0)
				m.until = 1;
			else if (strncmp(optarg, "width:", 6) == 0) {
				m.until = 2;
				m.width = rt_num_double("--until width", optarg + 6, 0, 1, 1, 0);
			} else
				rt_usage_die("--until %s: want \"verdict\" or \"width:W\"", optarg);
			break;
		case OPT_CONF:
			m.conf = rt_num_confidence("--confidence", optarg);
			break;
		case OPT_THRESH:
			m.threshold = rt_num_double("--threshold", optarg, 0, 1, 1, 1);
			break;
		case OPT_GATE:
			gate = 1;
			break;
		case OPT_TEXT:
			text = 1;
			break;
		case OPT_LENIENT:
			jo.lenient = 1;
			break;
		case RT_OPT_LIST_OPTIONS: return rt_cli_list_options(longopts);
		case OPT_BY:
			if (strcmp(optarg, "case") != 0)
				rt_usage_die("--by %s: want \"case\"", optarg);
			m.by_case = 1;
			break;
		case OPT_CASE:
			if (!*optarg)
				rt_usage_die("--case: empty ID");
			m.judge = optarg;
			break;
		case 'h':
			usage(stdout);
			rt_trial_cli_free(&cli);
			rt_fshut(stdout, "stdout");
			return 0;
		case 'V':
			rt_trial_cli_free(&cli);
			rt_print_version();
			return 0;
		default:
			rt_bad_option(ch, RT_TRIAL_SHORTOPTS "n:o:hV", argv);
		}
	}
	have_cmd = (cli.cmd != NULL) || (optind < argc && strcmp(argv[optind - 1], "--") == 0);
	if (have_cmd)
		rt_trial_cli_finish(&cli, argc, argv, optind, 1);
	if (have_cmd && m.by_case)
		rt_usage_die("--by case reads records; it runs no command");
	if (m.judge && m.by_case)
		rt_usage_die("--case ID measures one case; --by case measures every one");
	/* reading records, --case ID is --by case for that one case */
	if (m.judge && !have_cmd)
		m.by_case = 1;
	if (out && m.by_case && m.judge)
		rt_usage_die("--case reading records writes its record to standard output; "
		    "-o is for a command's record");
	if (out && m.by_case)
		rt_usage_die("--by case writes one record per case to standard output; "
		    "-o is for one record");
	m.cli = &cli;
	t0 = rt_now_ms();

	if (have_cmd) {
		if (facts) {
			if (!(m.facts = rt_output_open(facts, RT_OUT_LOCK)))
				rt_output_die(facts);
			m.factsname = facts;
		}
		char *jdir = NULL;
		if (m.judge) {
			/* the runner's report of every case, in a private directory */
			char why[200];
			jdir = rt_cases_dir_make(&m.jdir);
			cli.o.junit_dir = jdir;
			(void)rt_cases_auto(&cli.o, why, sizeof why);
		}
		rt_trial_signals_install();
		rt_progress_init(&m.prog, n);
		sig = rt_run_trials(&cli.o, 1, n, 1, on_trial, &m);
		rt_progress_clear(&m.prog);
		if (jdir) {
			/* and reports of trials stopped before they were read */
			rt_cases_dir_remove(&m.jdir, jdir);
			jdir = NULL;
			if (m.noreport || m.badreport)
				rt_warn("%ld of %ld trials wrote no JUnit report, %ld an unreadable one",
				    m.noreport, m.done, m.badreport);
			cli.o.junit_dir = NULL;
		}
		if (m.facts && rt_output_close(m.facts) != 0)
			rt_die("%s: write error:", facts);
		m.command = cli.command;
	} else {
		if (m.until || facts)
			rt_usage_die("--until and --facts need a command to run");
		rt_jsonl_loop(argc - optind, argv + optind, &jo, on_record, &m);
	}
	if (m.by_case) {
		long valid;
		if ((m.ncases = m.cases ? rt_strtab_count(m.cases) : 0) == 0 && m.judge)
			rt_die("%s: no records of case %s (%ld record%s read): nothing was "
			    "measured", argc > optind ? argv[optind] : "<stdin>", m.judge,
			    jo.records, jo.records == 1 ? "" : "s");
		if (m.ncases == 0)
			rt_die("%s: no records carrying \"case\" (%ld record%s read): nothing "
			    "was measured", argc > optind ? argv[optind] : "<stdin>", jo.records,
			    jo.records == 1 ? "" : "s");
		valid = write_cases(&m, text, stdout);
		free(m.seen);
		rt_trial_cli_free(&cli);
		if (m.duplicates)
			rt_warn("%ld repeated record%s dropped", m.duplicates,
			    m.duplicates == 1 ? "" : "s");
		rt_fshut(stdout, "stdout");
		if (valid == 0) {
			rt_warn("%zu case%s read but no valid trial (only skips, errors or "
			    "ignored): nothing was measured", m.ncases, m.ncases == 1 ? "" : "s");
			return RT_EXIT_ERR;
		}
		return gate && m.unstable ? RT_EXIT_NO : RT_EXIT_OK;
	}
	/* only per-case records (rt-junit, rt-retry's attempts): one rate over
	 * them all; when a command's own trials are there too, those count */
	if (!have_cmd && m.tally.trials + m.tally.errors + m.tally.ignored +
	    m.tally.skipped == 0 && m.case_tally.trials + m.case_tally.errors +
	    m.case_tally.ignored + m.case_tally.skipped > 0) {
		m.tally = m.case_tally;
		rt_warn("the records are per test case: one rate over all of them "
		    "(--by case gives one per case)");
	}

	rec = json_object();
	json_object_set_new(rec, "type", json_string("measure"));
	json_object_set_new(rec, "command", m.command ? json_string(m.command) : json_null());
	if (m.judge)
		json_object_set_new(rec, "case", json_string(m.judge));
	rt_measure_fields(rec, &m.tally, m.conf, m.threshold);
	if (have_cmd) {
		json_object_set_new(rec, "gap_ms", json_real(cli.o.gap_ms));
		json_object_set_new(rec, "jobs", json_integer(cli.o.jobs));
		{
			char sd[32];
			snprintf(sd, sizeof sd, "%llu", (unsigned long long)cli.o.seed);
			json_object_set_new(rec, "seed", json_string(sd));
		}
	} else {
		json_object_set_new(rec, "gap_ms", m.have_gap && !isnan(m.gap_ms) ?
		    json_real(m.gap_ms) : json_null());
		json_object_set_new(rec, "jobs", jo.records ?
		    json_integer(m.max_concurrent + 1) : json_null());
		json_object_set_new(rec, "records", json_integer(jo.records));
		if (m.duplicates)
			json_object_set_new(rec, "duplicates", json_integer(m.duplicates));
		/* "skipped" is the malformed lines here, unless tests were skipped */
		if (jo.lenient) {
			json_object_set_new(rec, "malformed", json_integer(jo.skipped));
			if (!m.tally.skipped)
				json_object_set_new(rec, "skipped", json_integer(jo.skipped));
		}
	}
	json_object_set_new(rec, "elapsed_s", rt_json_real6((rt_now_ms() - t0) / 1000));
	json_object_set_new(rec, "interrupted", json_boolean(sig != 0));
	json_object_set_new(rec, "stopped", json_string(sig ? "interrupted" :
	    m.stopped ? m.stopped : "budget"));
	if (m.until)
		anytime_fields(rec, &m);
	if (m.until && !sig) {
		rt_interval cs;
		size_t l;
		long k;
		rt_cs_interval(m.tally.failures, m.tally.trials, m.conf, 0.5, 0.5, &cs);
		if (!m.stopped)
			snprintf(m.stop_reason, sizeof m.stop_reason, "the cap of %ld trials "
			    "came before the %s (anytime-valid interval %.4g-%.4g)", n,
			    m.until == 1 ? "verdict was decided" : "interval was narrow enough",
			    cs.low, cs.high);
		else if (m.tally.trials > m.decided_at) {
			l = strlen(m.stop_reason);
			k = m.tally.trials - m.decided_at;
			snprintf(m.stop_reason + l, sizeof m.stop_reason - l, "; %ld "
			    "trial%s already running then finished and %s counted", k, k == 1 ? "" : "s",
			    k == 1 ? "is" : "are");
		}
		json_object_set_new(rec, "stop_reason", json_string(m.stop_reason));
		json_object_set_new(rec, "cs_low", rt_json_real6(cs.low));
		json_object_set_new(rec, "cs_high", rt_json_real6(cs.high));
	}
	if (rt_errors_warning(msg, sizeof msg, &m.tally, m.reason)) {
		rt_warn("%s", msg);
		json_object_set_new(rec, "warning", json_string(msg));
	}
	if (!have_cmd && jo.records == 0)
		rt_warn("no records in the input: nothing was measured");
	else if (!have_cmd && m.tally.trials + m.tally.errors + m.tally.ignored +
	    m.tally.skipped == 0)
		rt_warn("no trial records in the input (%ld record%s of other types): "
		    "nothing was measured", jo.records, jo.records == 1 ? "" : "s");

	if (out) {
		s = rt_dumps(rec);
		s = rt_xrealloc(s, strlen(s) + 2);
		strcat(s, "\n");
		if (rt_write_output(out, s, strlen(s)) < 0)
			rt_output_die(out);
		free(s);
	}
	if (text)
		print_text(stdout, rec, m.threshold);
	else if (rt_emit_try(stdout, rec) < 0) {
		if (errno != EPIPE)
			rt_die("stdout: write error:");
		broken = 1;
	}
	v = rt_detect(m.tally.failures, m.tally.trials, m.threshold, m.conf);
	json_decref(rec);
	free(m.command_owned);
	rt_trial_cli_free(&cli);
	free(m.seen);
	if (!broken)
		rt_fshut(stdout, "stdout");
	if (sig)
		return rt_signal_status(sig);
	if (broken)
		return RT_EXIT_PIPE;
	/* records read, none a valid trial: nothing was measured */
	if (!have_cmd && jo.records > 0 && m.tally.trials == 0) {
		rt_warn("%ld record%s read, 0 valid trials: nothing was measured",
		    jo.records, jo.records == 1 ? "" : "s");
		return RT_EXIT_ERR;
	}
	if (gate && v != RT_VERDICT_STABLE)
		return RT_EXIT_NO;
	return RT_EXIT_OK;
}
