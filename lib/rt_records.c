/* rt_records: one schema table per record type of retrial(7), RECORDS, and
 * the one validator every tool calls, so a bad record reads the same. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rt_records.h"
#include "rt_util.h"

#define S   RT_J_STR
#define I   RT_J_INT
#define N   RT_J_NUM
#define B   RT_J_BOOL
#define Z   RT_J_NULL
#define A   RT_J_ARR
#define O   RT_J_OBJ
#define ANY RT_J_ANY
#define REQ RT_F_REQ
#define CNT RT_F_COUNT
#define PRB RT_F_PROB
#define CNF RT_F_CONF
#define UTC RT_F_UTC
#define END { NULL, 0, 0, NULL, NULL }

static const char *const trial_outcomes[] = { "pass", "fail", "timeout", "error",
	"ignored", NULL };
static const char *const case_outcomes[] = { "pass", "fail", "skip", "error",
	"timeout", "ignored", NULL };
static const char *const measure_verdicts[] = { "FLAKY", "STABLE", "ALWAYS_FAILING",
	"INCONCLUSIVE", "ERROR", "CHANGED", "SKIPPED", NULL };
static const char *const verdicts[] = { "FIXED", "IMPROVED", "QUARANTINE",
	"REGRESSION", "ALREADY_STABLE", "INCONCLUSIVE_BASELINE", "ERROR", NULL };
/* rt_lane_state's words: a lane's record holds an ended one */
static const char *const lane_statuses[] = { "winner", "survived", "tied", "eliminated",
	"undecided", "neutered", "patch_failed", "not_raced", NULL };
static const char *const lane_board[] = { "waiting", "racing" };
static const char *const attempt_outcomes[] = { "pass", "fail", "timeout", "error",
	"cancelled", NULL };

/* The measure fields, also a verdict's baseline. */
#define MEASURE_FIELDS \
	{ "command", S, 0, NULL, NULL }, \
	{ "trials", I, REQ | CNT, NULL, NULL }, \
	{ "failures", I, REQ | CNT, NULL, NULL }, \
	{ "timeouts", I, CNT, NULL, NULL }, \
	{ "errors", I, CNT, NULL, NULL }, \
	{ "ignored", I, CNT, NULL, NULL }, \
	{ "rate", N, PRB, NULL, NULL }, \
	{ "ci_low", N, PRB, NULL, NULL }, \
	{ "ci_high", N, PRB, NULL, NULL }, \
	{ "cs_low", N, PRB, NULL, NULL }, \
	{ "cs_high", N, PRB, NULL, NULL }, \
	{ "rate_biased", B, 0, NULL, NULL }, \
	{ "interval", S, 0, NULL, NULL }, \
	{ "confidence", N, CNF, NULL, NULL }, \
	{ "z", N, 0, NULL, NULL }, \
	{ "threshold", N, PRB, NULL, NULL }, \
	{ "verdict", S, 0, measure_verdicts, NULL }, \
	{ "summary", S, 0, NULL, NULL }, \
	{ "gap_ms", N, 0, NULL, NULL }, \
	{ "jobs", I, CNT, NULL, NULL }, \
	{ "seed", S | I, 0, NULL, NULL }, \
	{ "elapsed_s", N, 0, NULL, NULL }, \
	{ "interrupted", B, 0, NULL, NULL }, \
	{ "stopped", S, 0, NULL, NULL }, \
	{ "stop_reason", S, 0, NULL, NULL }, \
	{ "warning", S, 0, NULL, NULL }, \
	{ "records", I, CNT, NULL, NULL }, \
	{ "skipped", I, CNT, NULL, NULL }, \
	{ "duplicates", I, CNT, NULL, NULL }

static const rt_field trial_f[] = {
	{ "trial", I, CNT, NULL, NULL },
	{ "outcome", S, REQ, trial_outcomes, NULL },
	{ "exit_code", I, 0, NULL, NULL },
	{ "signal", I | S, 0, NULL, NULL },
	{ "elapsed_ms", N, 0, NULL, NULL },
	{ "started_at", S, 0, NULL, NULL },
	{ "gap_ms", N, 0, NULL, NULL },
	{ "command", S, 0, NULL, NULL },
	{ "stdout", S, 0, NULL, NULL },
	{ "stderr", S, 0, NULL, NULL },
	{ "stdout_bytes", I, CNT, NULL, NULL },
	{ "stderr_bytes", I, CNT, NULL, NULL },
	{ "stdout_truncated", B, 0, NULL, NULL },
	{ "stderr_truncated", B, 0, NULL, NULL },
	{ "concurrent", I, CNT, NULL, NULL },
	{ "leftovers", I | A, 0, NULL, NULL },
	{ "seed", S | I, 0, NULL, NULL },
	{ "env", O, 0, NULL, NULL },
	{ "error", S, 0, NULL, NULL },
	{ "runner", S, 0, NULL, NULL },
	END
};

static const rt_field case_trial_f[] = {
	{ "trial", I, CNT, NULL, NULL },
	{ "case", S, REQ, NULL, NULL },
	{ "outcome", S, REQ, case_outcomes, NULL },
	{ "result", S, 0, NULL, NULL },
	{ "attempt", I, CNT, NULL, NULL },
	{ "repeat", I, CNT, NULL, NULL },
	{ "time_ms", N, 0, NULL, NULL },
	{ "message", S, 0, NULL, NULL },
	{ "failure_type", S, 0, NULL, NULL },
	{ "stdout", S, 0, NULL, NULL },
	{ "stderr", S, 0, NULL, NULL },
	{ "report", S, 0, NULL, NULL },
	{ "run", S | I, 0, NULL, NULL },
	{ "revision", S, 0, NULL, NULL },
	{ "timestamp", S, 0, NULL, NULL },
	{ "position", I, CNT, NULL, NULL },
	{ "suite", S, 0, NULL, NULL },
	{ "source", S, 0, NULL, NULL },
	{ "junit_classname", S, 0, NULL, NULL },
	{ "junit_name", S, 0, NULL, NULL },
	{ "quarantined", S, 0, NULL, NULL },
	END
};

static const rt_field measure_f[] = {
	MEASURE_FIELDS,
	{ "case", S, 0, NULL, NULL },
	{ "revisions", ANY, 0, NULL, NULL },
	{ "flaky_revisions", ANY, 0, NULL, NULL },
	END
};

#define FROM_MEASURE \
	{ "trials", I, CNT, NULL, NULL }, \
	{ "failures", I, CNT, NULL, NULL }, \
	{ "ci_low", N, PRB, NULL, NULL }, \
	{ "ci_high", N, PRB, NULL, NULL }, \
	{ "interval", S, 0, NULL, NULL }, \
	{ "measure_confidence", N, CNF, NULL, NULL }, \
	{ "observed_rate", N, PRB, NULL, NULL }, \
	{ "basis", S, 0, NULL, NULL }, \
	{ "step_confidence", N, CNF, NULL, NULL }, \
	{ "exact_low", N, PRB, NULL, NULL }, \
	{ "exact_high", N, PRB, NULL, NULL }, \
	{ "note", S, 0, NULL, NULL }

static const rt_field plan_f[] = {
	{ "rate", N, PRB, NULL, NULL },
	{ "confidence", N, CNF, NULL, NULL },
	{ "runs", I, CNT, NULL, NULL },
	{ "levels", A, 0, NULL, NULL },
	{ "chosen", ANY, 0, NULL, NULL },
	FROM_MEASURE,
	END
};

static const rt_field policy_f[] = {
	{ "confidence", N, CNF, NULL, NULL },
	{ "green_runs_required", I, CNT, NULL, NULL },
	{ "retry_budget", I, CNT, NULL, NULL },
	{ "target", N, PRB, NULL, NULL },
	{ "survive", N, PRB, NULL, NULL },
	{ "quarantine_after", I, CNT, NULL, NULL },
	{ "window", I, CNT, NULL, NULL },
	{ "checked", S, 0, NULL, NULL },
	{ "false_alarm_bound", N, PRB, NULL, NULL },
	{ "rule", S, 0, NULL, NULL },
	{ "fix_rate", N, PRB, NULL, NULL },
	{ "retry_rate", N, PRB, NULL, NULL },
	{ "exhaust_probability", N, PRB, NULL, NULL },
	{ "exhaust_low", N, PRB, NULL, NULL },
	{ "exhaust_high", N, PRB, NULL, NULL },
	FROM_MEASURE,
	END
};

static const rt_field diff_f[] = {
	{ "trials", I, REQ | CNT, NULL, NULL },
	{ "failures", I, REQ | CNT, NULL, NULL },
	{ "errors", I, CNT, NULL, NULL },
	{ "skipped", I, CNT, NULL, NULL },
	{ "tokens_capped", B, 0, NULL, NULL },
	{ "tokens_dropped", I, CNT, NULL, NULL },
	{ "exit_codes_on_failure", A, 0, NULL, NULL },
	{ "exit_codes_on_success", A, 0, NULL, NULL },
	{ "failure_trials", A, 0, NULL, NULL },
	{ "token", S, 0, NULL, NULL },
	{ "token_stream", S, 0, NULL, NULL },
	{ "command", S, 0, NULL, NULL },
	{ "excerpts", O, 0, NULL, NULL },
	{ "facts", A, 0, NULL, NULL },
	END
};

static const char *const judged_by_values[] = { "case", "exit", NULL };

/* what delta debugging spent on a rule patch (rt-diagnose(1), RULE PATCHES) */
static const rt_field minimise_f[] = {
	{ "statements", I, REQ | CNT, NULL, NULL },
	{ "of", I, REQ | CNT, NULL, NULL },
	{ "probes", I, REQ | CNT, NULL, NULL },
	{ "trials", I, REQ | CNT, NULL, NULL },
	{ "minimal", B, 0, NULL, NULL },
	{ "judged_by", S, 0, judged_by_values, NULL },
	END
};
static const rt_schema minimise_s = { "minimise", minimise_f };

/* a polluter's reset, run once after the polluter: the trials and how
 * many the victim failed (rt-diagnose(1), RULE PATCHES) */
static const rt_field checked_f[] = {
	{ "trials", I, REQ | CNT, NULL, NULL },
	{ "failures", I, REQ | CNT, NULL, NULL },
	{ "judged_by", S, 0, judged_by_values, NULL },
	END
};
static const rt_schema checked_s = { "checked", checked_f };

static const rt_field hypothesis_f[] = {
	{ "id", S, REQ, NULL, NULL },
	{ "source", S, 0, NULL, NULL },
	{ "model", S, 0, NULL, NULL },
	{ "angle", S, 0, NULL, NULL },
	{ "cause_class", S, 0, NULL, NULL },
	{ "explanation", S, 0, NULL, NULL },
	{ "patch", S, 0, NULL, NULL },
	{ "files", A, 0, NULL, NULL },
	{ "status", S, 0, NULL, NULL },
	{ "error", S, 0, NULL, NULL },
	{ "evidence_digest", S, 0, NULL, NULL },
	{ "minimise", O, 0, NULL, &minimise_s },
	{ "checked", O, 0, NULL, &checked_s },
	END
};

static const rt_field lane_f[] = {
	{ "id", S, REQ, NULL, NULL },
	{ "source", S, 0, NULL, NULL },
	{ "model", S, 0, NULL, NULL },
	{ "cause_class", S, 0, NULL, NULL },
	{ "status", S, REQ, lane_statuses, NULL },
	{ "reason", S, 0, NULL, NULL },
	{ "rule", S, 0, NULL, NULL },
	{ "trials", I, REQ | CNT, NULL, NULL },
	{ "failures", I, REQ | CNT, NULL, NULL },
	{ "errors", I, CNT, NULL, NULL },
	{ "rate", N, PRB, NULL, NULL },
	{ "ci_low", N, PRB, NULL, NULL },
	{ "ci_high", N, PRB, NULL, NULL },
	{ "interval", S, 0, NULL, NULL },
	{ "summary", S, 0, NULL, NULL },
	{ "failure_lines", A, 0, NULL, NULL },
	END
};
static const rt_schema lane_s = { "lane", lane_f };

static const rt_field baseline_f[] = {
	MEASURE_FIELDS,
	{ "source", S, 0, NULL, NULL },
	END
};
static const rt_schema baseline_s = { "baseline", baseline_f };

static const rt_field confirmation_f[] = {
	{ "id", S, 0, NULL, NULL },
	{ "round", I, CNT, NULL, NULL },
	{ "trials", I, REQ | CNT, NULL, NULL },
	{ "failures", I, REQ | CNT, NULL, NULL },
	{ "errors", I, CNT, NULL, NULL },
	{ "rate", N, PRB, NULL, NULL },
	{ "ci_low", N, PRB, NULL, NULL },
	{ "ci_high", N, PRB, NULL, NULL },
	{ "interval", S, 0, NULL, NULL },
	{ "required_runs", I, CNT, NULL, NULL },
	{ "reference_rate", N, PRB, NULL, NULL },
	{ "confidence", N, CNF, NULL, NULL },
	{ "passed", B, 0, NULL, NULL },
	{ "improved", B, 0, NULL, NULL },
	{ "difference", ANY, 0, NULL, NULL },
	{ "rule", S, 0, NULL, NULL },
	{ "summary", S, 0, NULL, NULL },
	END
};
static const rt_schema confirmation_s = { "confirmation", confirmation_f };

static const rt_field winner_f[] = {
	{ "id", S, REQ, NULL, NULL },
	{ "source", S, 0, NULL, NULL },
	{ "model", S, 0, NULL, NULL },
	{ "cause_class", S, 0, NULL, NULL },
	{ "explanation", S, 0, NULL, NULL },
	{ "patch", S, 0, NULL, NULL },
	{ "files", A, 0, NULL, NULL },
	END
};
static const rt_schema winner_s = { "winner", winner_f };

static const rt_field timings_f[] = {
	{ "baseline_s", N, 0, NULL, NULL },
	{ "tournament_s", N, 0, NULL, NULL },
	{ "confirm_s", N, 0, NULL, NULL },
	{ "total_s", N, 0, NULL, NULL },
	END
};
static const rt_schema timings_s = { "timings", timings_f };

static const rt_field verdict_f[] = {
	{ "verdict", S, REQ, verdicts, NULL },
	{ "command", S, REQ, NULL, NULL },
	{ "project", S, 0, NULL, NULL },
	{ "test", S, 0, NULL, NULL },
	{ "case", S, 0, NULL, NULL },
	{ "confidence", N, REQ | CNF, NULL, NULL },
	{ "target", N, PRB, NULL, NULL },
	{ "seed", S | I, 0, NULL, NULL },
	{ "baseline", O, REQ, NULL, &baseline_s },
	{ "lanes", A, REQ, NULL, &lane_s },
	{ "confirmations", A, 0, NULL, &confirmation_s },
	{ "winner", O, 0, NULL, &winner_s },
	{ "rule", S, 0, NULL, NULL },
	{ "summary", S, 0, NULL, NULL },
	{ "timings", O, 0, NULL, &timings_s },
	{ "finished_at", S, UTC, NULL, NULL },
	{ "reproduce", A, 0, NULL, NULL },
	{ "interrupted", B, 0, NULL, NULL },
	{ "sandbox", S, 0, NULL, NULL },
	{ "network", ANY, 0, NULL, NULL },
	{ "allowed_rules", A, 0, NULL, NULL },
	{ "allowed_paths", A, 0, NULL, NULL },
	END
};

static const rt_field order_f[] = {
	{ "victim", S, REQ, NULL, NULL },
	{ "command", S, 0, NULL, NULL },
	{ "category", S, 0, NULL, NULL },
	{ "candidates", ANY, 0, NULL, NULL },
	{ "dropped", A, 0, NULL, NULL },
	{ "polluters", A, 0, NULL, NULL },
	{ "polluter_sets", A, 0, NULL, NULL },
	{ "setters", A, 0, NULL, NULL },
	{ "setter_sets", A, 0, NULL, NULL },
	{ "cleaners", O | A, 0, NULL, NULL },
	{ "inconclusive", A, 0, NULL, NULL },
	{ "notes", A, 0, NULL, NULL },
	{ "probes", A | I, 0, NULL, NULL },
	{ "trials", I, CNT, NULL, NULL },
	{ "plan", O, 0, NULL, NULL },
	{ "confidence", N, CNF, NULL, NULL },
	{ "threshold", N, PRB, NULL, NULL },
	{ "budget_exhausted", B, 0, NULL, NULL },
	{ "elapsed_s", N, 0, NULL, NULL },
	{ "interrupted", B, 0, NULL, NULL },
	END
};

static const rt_field attempt_f[] = {
	{ "case", S, REQ, NULL, NULL },
	{ "attempt", I, REQ | CNT, NULL, NULL },
	{ "round", I, CNT, NULL, NULL },
	{ "outcome", S, REQ, attempt_outcomes, NULL },
	{ "cancel_reason", S, 0, NULL, NULL },
	{ "quarantined", B, 0, NULL, NULL },
	{ "spent", ANY, 0, NULL, NULL },
	{ "exit_code", I, 0, NULL, NULL },
	{ "signal", I | S, 0, NULL, NULL },
	{ "elapsed_ms", N, 0, NULL, NULL },
	{ "started_at", S, 0, NULL, NULL },
	{ "command", S, 0, NULL, NULL },
	END
};

static const rt_field group_f[] = {
	{ "policy", S, 0, NULL, NULL },
	{ "retries", I, CNT, NULL, NULL },
	{ "budget", O, 0, NULL, NULL },
	{ "stop_on_failure", B, 0, NULL, NULL },
	{ "command", S, 0, NULL, NULL },
	{ "result", S, 0, NULL, NULL },
	{ "summary", S, 0, NULL, NULL },
	{ "totals", O, 0, NULL, NULL },
	{ "quarantined", A, 0, NULL, NULL },
	{ "cases", A, 0, NULL, NULL },
	{ "rounds", I, CNT, NULL, NULL },
	{ "attempts", I, CNT, NULL, NULL },
	{ "executed", I, CNT, NULL, NULL },
	{ "stopped", ANY, 0, NULL, NULL },
	{ "blocked_by", ANY, 0, NULL, NULL },
	{ "ceiling", ANY, 0, NULL, NULL },
	{ "circuit_breaker", ANY, 0, NULL, NULL },
	{ "interrupted", B, 0, NULL, NULL },
	END
};

static const rt_field audit_f[] = {
	{ "audit", ANY, 0, NULL, NULL },
	{ "at", S, 0, NULL, NULL },
	{ "history", ANY, 0, NULL, NULL },
	{ "read", I, CNT, NULL, NULL },
	{ "ingested", I, CNT, NULL, NULL },
	{ "duplicates", I, CNT, NULL, NULL },
	{ "without_case", I, CNT, NULL, NULL },
	{ "runs", ANY, 0, NULL, NULL },
	{ "cases", ANY, 0, NULL, NULL },
	{ "records", I, CNT, NULL, NULL },
	{ "confidence", N, CNF, NULL, NULL },
	{ "window", ANY, 0, NULL, NULL },
	{ "new_flaky", A, 0, NULL, NULL },
	{ "no_longer_flaky", A, 0, NULL, NULL },
	{ "not_seen_failing", A, 0, NULL, NULL },
	{ "rate_changes", A, 0, NULL, NULL },
	{ "rate_change_tests", I, CNT, NULL, NULL },
	{ "rate_change_alarms", I, CNT, NULL, NULL },
	{ "rate_change_fdr", N, PRB, NULL, NULL },
	{ "rate_change_method", S, 0, NULL, NULL },
	{ "top", A, 0, NULL, NULL },
	{ "quarantine", A, 0, NULL, NULL },
	END
};

static const rt_schema schemas[RT_REC_NKINDS] = {
	[RT_REC_TRIAL] = { "trial", trial_f },
	[RT_REC_CASE_TRIAL] = { "case trial", case_trial_f },
	[RT_REC_MEASURE] = { "measure", measure_f },
	[RT_REC_PLAN] = { "plan", plan_f },
	[RT_REC_POLICY] = { "policy", policy_f },
	[RT_REC_DIFF] = { "diff", diff_f },
	[RT_REC_HYPOTHESIS] = { "hypothesis", hypothesis_f },
	[RT_REC_LANE] = { "lane", lane_f },
	[RT_REC_VERDICT] = { "verdict", verdict_f },
	[RT_REC_ORDER] = { "order", order_f },
	[RT_REC_ATTEMPT] = { "attempt", attempt_f },
	[RT_REC_GROUP] = { "group", group_f },
	[RT_REC_AUDIT] = { "audit", audit_f },
};

rt_rec_kind_t
rt_rec_kind_of(const char *type)
{
	int k;

	if (!type)
		return RT_REC_UNKNOWN;
	for (k = 1; k < RT_REC_NKINDS; k++)
		if (k != RT_REC_CASE_TRIAL && !strcmp(schemas[k].name, type))
			return (rt_rec_kind_t)k;
	return RT_REC_UNKNOWN;
}

rt_rec_kind_t
rt_rec_kind(const json_t *rec)
{
	rt_rec_kind_t k = rt_rec_kind_of(json_string_value(json_object_get(rec, "type")));

	if (k == RT_REC_TRIAL && json_object_get(rec, "case") &&
	    !json_is_null(json_object_get(rec, "case")))
		return RT_REC_CASE_TRIAL;
	return k;
}

const char *
rt_lane_state_word(rt_lane_state s)
{
	if (s < RT_LANE_WAITING)
		return lane_statuses[s];
	return lane_board[s < RT_LANE_NSTATES ? s - RT_LANE_WAITING : 0];
}

int
rt_lane_state_of(const char *word)
{
	int s;

	for (s = 0; word && s < RT_LANE_NSTATES; s++)
		if (!strcmp(word, rt_lane_state_word((rt_lane_state)s)))
			return s;
	return -1;
}

const char *
rt_rec_kind_name(rt_rec_kind_t kind)
{
	return kind > 0 && kind < RT_REC_NKINDS ? schemas[kind].name : "unknown";
}

const rt_schema *
rt_rec_schema(rt_rec_kind_t kind)
{
	return kind > 0 && kind < RT_REC_NKINDS ? &schemas[kind] : NULL;
}

/* ---- checking ---- */

typedef struct {
	char *err;
	size_t errlen;
	const char *file;
	size_t line;
	const char *kind;
} ctx_t;

static int
fail(ctx_t *c, const char *path, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (c->file)
		snprintf(c->err, c->errlen, "%s:%zu: %s record: field \"%s\" %s", c->file,
		    c->line, c->kind, path, msg);
	else
		snprintf(c->err, c->errlen, "%s record: field \"%s\" %s", c->kind, path, msg);
	return -1;
}

static void
type_words(unsigned t, char *buf, size_t n)
{
	static const struct { unsigned bit; const char *w; } words[] = {
		{ RT_J_STR, "a string" }, { RT_J_NUM, "a number" }, { RT_J_INT, "a whole number" },
		{ RT_J_BOOL, "true or false" }, { RT_J_ARR, "an array" },
		{ RT_J_OBJ, "an object" }, { RT_J_NULL, "null" },
	};
	size_t i, k = 0, m = 0;
	const char *w[8];

	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		if ((t & words[i].bit) == words[i].bit) {
			w[m++] = words[i].w;
			t &= ~words[i].bit;
		}
	}
	buf[0] = '\0';
	for (i = 0; i < m; i++)
		k += (size_t)snprintf(buf + k, k < n ? n - k : 0, "%s%s", i == 0 ? "" :
		    i + 1 == m ? " or " : ", ", w[i]);
}

static unsigned
type_of(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING: return RT_J_STR;
	case JSON_INTEGER: return RT_J_INT;
	case JSON_REAL: return RT_J_REAL;
	case JSON_TRUE: case JSON_FALSE: return RT_J_BOOL;
	case JSON_NULL: return RT_J_NULL;
	case JSON_ARRAY: return RT_J_ARR;
	case JSON_OBJECT: return RT_J_OBJ;
	}
	return 0;
}

static int
utc_time(const char *s)
{
	static const char pat[] = "dddd-dd-ddTdd:dd:dd";
	size_t i;

	for (i = 0; pat[i]; i++)
		if (pat[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != pat[i])
			return 0;
	if (s[i] == '.' && isdigit((unsigned char)s[i + 1]))
		for (i++; isdigit((unsigned char)s[i]); i++)
			;
	return s[i] == 'Z' && s[i + 1] == '\0';
}

static int check_object(ctx_t *c, const rt_schema *s, const json_t *o, const char *pre);

static int
check_field(ctx_t *c, const rt_field *f, const json_t *v, const char *path)
{
	unsigned t = type_of(v), want = f->types;
	char words[120];
	size_t i;

	/* a whole number written as a real (40.0) is still a count */
	if (t == RT_J_REAL && (want & RT_J_INT) && !(want & RT_J_REAL)) {
		long long n;
		if (rt_json_whole(v, &n) == 0)
			t = RT_J_INT;
	}
	if (!(t & want)) {
		type_words(want, words, sizeof words);
		return fail(c, path, "must be %s", words);
	}
	if (t & RT_J_NUM) {
		double d = json_number_value(v);
		if ((f->flags & RT_F_COUNT) && d < 0)
			return fail(c, path, "must be a whole number >= 0, not %g", d);
		if ((f->flags & RT_F_PROB) && !(d >= 0 && d <= 1))
			return fail(c, path, "must be between 0 and 1, not %g", d);
		if ((f->flags & RT_F_CONF) && !(d > 0 && d < 1))
			return fail(c, path, "must be between 0 and 1 (exclusive), not %g", d);
	}
	if (t == RT_J_STR) {
		const char *s = json_string_value(v);
		if ((f->flags & RT_F_UTC) && !utc_time(s))
			return fail(c, path, "must be a UTC time like 2026-03-01T10:00:00Z, not %s", s);
		if (f->values) {
			char list[300];
			size_t k = 0;
			for (i = 0; f->values[i]; i++)
				if (!strcmp(f->values[i], s))
					break;
			if (f->values[i])
				return 0;
			list[0] = '\0';
			for (i = 0; f->values[i]; i++)
				k += (size_t)snprintf(list + k, k < sizeof list ? sizeof list - k : 0,
				    "%s%s", i ? ", " : "", f->values[i]);
			return fail(c, path, "must be one of %s, not %s", list, s);
		}
	}
	if (f->sub && t == RT_J_OBJ)
		return check_object(c, f->sub, v, path);
	if (f->sub && t == RT_J_ARR) {
		const json_t *e;
		char p[280];
		json_array_foreach(v, i, e) {
			snprintf(p, sizeof p, "%s[%zu]", path, i);
			if (!json_is_object(e))
				return fail(c, p, "must be an object");
			if (check_object(c, f->sub, e, p) < 0)
				return -1;
		}
	}
	return 0;
}

static int
check_object(ctx_t *c, const rt_schema *s, const json_t *o, const char *pre)
{
	const rt_field *f;
	const json_t *v, *t, *k;
	char path[200];

	for (f = s->fields; f->name; f++) {
		snprintf(path, sizeof path, "%s%s%s", pre, *pre ? "." : "", f->name);
		/* a measured 0.0 is a value: only absence is missing */
		if (!(v = json_object_get(o, f->name))) {
			if (f->flags & RT_F_REQ)
				return fail(c, path, "is missing");
			continue;
		}
		if (json_is_null(v) && !(f->flags & RT_F_REQ))
			continue;
		if (check_field(c, f, v, path) < 0)
			return -1;
	}
	/* failures are counted among the trials, and an interval is ordered */
	t = json_object_get(o, "trials");
	k = json_object_get(o, "failures");
	if (json_is_number(t) && json_is_number(k) &&
	    json_number_value(k) > json_number_value(t)) {
		snprintf(path, sizeof path, "%s%sfailures", pre, *pre ? "." : "");
		return fail(c, path, "must be at most \"trials\" (%g failures in %g trials)",
		    json_number_value(k), json_number_value(t));
	}
	t = json_object_get(o, "ci_low");
	k = json_object_get(o, "ci_high");
	if (json_is_number(t) && json_is_number(k) &&
	    json_number_value(t) > json_number_value(k)) {
		snprintf(path, sizeof path, "%s%sci_low", pre, *pre ? "." : "");
		return fail(c, path, "must be at most \"ci_high\" (%g > %g)",
		    json_number_value(t), json_number_value(k));
	}
	return 0;
}

int
rt_rec_validate(rt_rec_kind_t kind, const json_t *rec, const char *file,
    size_t line, char *err, size_t errlen)
{
	ctx_t c = { err, errlen, file, line, rt_rec_kind_name(kind) };
	const rt_schema *s = rt_rec_schema(kind);

	if (errlen)
		err[0] = '\0';
	if (!s) {
		if (file)
			snprintf(err, errlen, "%s:%zu: not a record of a known type", file, line);
		else
			snprintf(err, errlen, "not a record of a known type");
		return -1;
	}
	if (!json_is_object(rec)) {
		if (file)
			snprintf(err, errlen, "%s:%zu: %s record: not an object", file, line, s->name);
		else
			snprintf(err, errlen, "%s record: not an object", s->name);
		return -1;
	}
	return check_object(&c, s, rec, "");
}

void
rt_rec_check(rt_rec_kind_t kind, const json_t *rec, const rt_where *w)
{
	char err[600];

	if (rt_rec_validate(kind, rec, w ? w->file : NULL, w ? (size_t)w->line : 0, err,
	    sizeof err) < 0)
		rt_die("%s", err);
}

static void
list_fields(FILE *out, const char *kind, const rt_schema *s, const char *pre)
{
	const rt_field *f;
	char p[200];

	for (f = s->fields; f->name; f++) {
		fprintf(out, "%s %s%s\n", kind, pre, f->name);
		if (f->sub) {
			snprintf(p, sizeof p, "%s%s%s.", pre, f->name, f->types & RT_J_ARR ? "[]" : "");
			list_fields(out, kind, f->sub, p);
		}
	}
}

void
rt_rec_list_fields(FILE *out)
{
	int k;

	for (k = 1; k < RT_REC_NKINDS; k++)
		list_fields(out, schemas[k].name, &schemas[k], "");
}

char *
rt_rec_rev_key(const char *revision, const char *run)
{
	return revision ? rt_xasprintf("rev:%s", revision) :
	    run ? rt_xasprintf("run:%s", run) : rt_xstrdup("");
}

json_t *
rt_case_rec_json(const rt_case_rec *c)
{
	json_t *j = json_object();
	int pass = !strcmp(c->outcome, "pass");

	json_object_set_new(j, "type", json_string("trial"));
	json_object_set_new(j, "trial", json_integer(c->trial));
	json_object_set_new(j, "case", rt_json_str_or_null(c->id));
	json_object_set_new(j, "outcome", json_string(c->outcome));
	json_object_set_new(j, "result", json_string(c->result));
	json_object_set_new(j, "attempt", json_integer(c->attempt));
	if (c->repeat > 0)
		json_object_set_new(j, "repeat", json_integer(c->repeat));
	json_object_set_new(j, "time_ms", isnan(c->time_ms) ? json_null() :
	    rt_json_real6(c->time_ms));
	if (pass && c->message)
		json_decref(c->message);
	json_object_set_new(j, "message", !pass && c->message ? c->message : json_null());
	json_object_set_new(j, "failure_type", rt_json_str_or_null(c->failure_type));
	json_object_set_new(j, "stdout", c->out ? c->out : json_null());
	json_object_set_new(j, "stderr", c->err ? c->err : json_null());
	json_object_set_new(j, "report", rt_json_str_or_null(c->report));
	json_object_set_new(j, "run", rt_json_str_or_null(c->run));
	json_object_set_new(j, "revision", rt_json_str_or_null(c->revision));
	json_object_set_new(j, "timestamp", rt_json_str_or_null(c->timestamp));
	json_object_set_new(j, "position", json_integer(c->position));
	json_object_set_new(j, "suite", rt_json_str_or_null(c->suite));
	json_object_set_new(j, "source", json_string(c->source));
	return j;
}

int
rt_fact_noise(const char *kind, const char *value, const char **why)
{
	/* environment keys that say how busy the machine was, not what the
	 * test ran with */
	static const char *const machine[] = { "load1", "load5", "load15", "loadavg",
		"load", "memfree", "mem_free", "free_mem", "free_memory", "memavailable",
		"mem_available", "pid", "ppid", "uptime", "hour", "minute", "time_of_day",
		"wallclock", NULL };
	const char *const *m;
	size_t n;

	if (!kind)
		return 0;
	if (!strcmp(kind, "timing")) {
		if (why)
			*why = "the trial's own duration mirrors its outcome: a failing run "
			    "stops at its first failed check or spends time on its report";
		return 1;
	}
	if (strcmp(kind, "env") != 0 || !value)
		return 0;
	n = strcspn(value, "=");
	for (m = machine; *m; m++)
		if (strlen(*m) == n && !strncasecmp(value, *m, n)) {
			if (why)
				*why = "the machine's state (load, memory, process IDs, the "
				    "hour) is not something the test's code sets";
			return 1;
		}
	return 0;
}
