/* rt_records: the record types of retrial(7), RECORDS, as one table — each
 * field's name, JSON type(s), whether it is required — and the one
 * validator every tool calls, so a bad record reads the same everywhere. */
#ifndef RT_RECORDS_H
#define RT_RECORDS_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "rt_jsonl.h"

typedef enum {
	RT_REC_UNKNOWN = 0,
	RT_REC_TRIAL,           /* a command's trial (rt-collect) */
	RT_REC_CASE_TRIAL,      /* a test case's trial: a trial with "case" */
	RT_REC_MEASURE,
	RT_REC_PLAN,
	RT_REC_POLICY,
	RT_REC_DIFF,
	RT_REC_HYPOTHESIS,
	RT_REC_LANE,
	RT_REC_VERDICT,
	RT_REC_ORDER,
	RT_REC_ATTEMPT,
	RT_REC_GROUP,
	RT_REC_AUDIT,
	RT_REC_NKINDS
} rt_rec_kind_t;

/* JSON types a field may hold (a mask). */
enum {
	RT_J_STR = 1, RT_J_INT = 2, RT_J_REAL = 4, RT_J_NUM = RT_J_INT | RT_J_REAL,
	RT_J_BOOL = 8, RT_J_NULL = 16, RT_J_ARR = 32, RT_J_OBJ = 64,
	RT_J_ANY = 127
};

/* Field flags. An optional field may also be null (absent); a required one
 * only when RT_J_NULL is among its types. */
enum {
	RT_F_REQ = 1,           /* must be present */
	RT_F_COUNT = 2,         /* a whole number >= 0 */
	RT_F_PROB = 4,          /* a number in [0, 1] */
	RT_F_CONF = 8,          /* a number in (0, 1) */
	RT_F_UTC = 16           /* a UTC time like 2026-03-01T10:00:00Z */
};

struct rt_schema;
typedef struct {
	const char *name;
	unsigned types;
	unsigned flags;
	const char *const *values;      /* NULL, or the strings allowed */
	const struct rt_schema *sub;    /* an object's fields, or an array's
	                                 * elements' (each then an object) */
} rt_field;

typedef struct rt_schema {
	const char *name;               /* "verdict", "lane", "confirmation" */
	const rt_field *fields;         /* ends with a NULL name */
} rt_schema;

/* The record's type: "type", with a trial that has "case" a case trial. */
rt_rec_kind_t rt_rec_kind(const json_t *rec);
/* The kind's name as in messages ("verdict", "case trial"), and its schema. */
const char *rt_rec_kind_name(rt_rec_kind_t kind);
const rt_schema *rt_rec_schema(rt_rec_kind_t kind);
/* The kind of a "type" name (the case trial has none of its own). */
rt_rec_kind_t rt_rec_kind_of(const char *type);

/* Check rec against kind's schema. 0 when it holds; else -1 with err set to
 * the first problem, "FILE:LINE: verdict record: field "lanes" must be an
 * array" (without "FILE:LINE: " when file is NULL). Fields the schema does
 * not name are allowed. */
int rt_rec_validate(rt_rec_kind_t kind, const json_t *rec, const char *file,
    size_t line, char *err, size_t errlen);
/* The same, dying with "tool: MESSAGE" (exit 2) when the record is bad. */
void rt_rec_check(rt_rec_kind_t kind, const json_t *rec, const rt_where *w);

/* Every field of every schema, one "KIND FIELD" a line (nested fields as
 * "verdict lanes[].id"): what retrial(7) must document. */
void rt_rec_list_fields(FILE *out);

/* The revision a case trial counts under, one rule for every tool that
 * judges FLAKY ("a pass and a failure on one revision": rt-measure --by
 * case, rt-audit): "rev:R" for its revision R; without one "run:N" for
 * its run N, since a run tests one revision while two runs may not; "" for
 * a record with neither. Malloc'd. */
char *rt_rec_rev_key(const char *revision, const char *run);

/* One test case's execution: the fields of its "trial" record. */
typedef struct {
	long trial;                  /* the trial (rt-collect's number, or the case's index) */
	const char *id;              /* the case: the runner's canonical ID */
	const char *outcome;         /* pass, fail, skip, error */
	const char *result;          /* the report's own word: success, failure... */
	long attempt;                /* the runner's own retry within one run (1...) */
	long repeat;                 /* a repeat of the whole run (go test -count); 0: none */
	double time_ms;              /* NAN: null */
	json_t *message;             /* taken; NULL or a pass: null */
	const char *failure_type;
	json_t *out, *err;           /* stdout and stderr, taken; NULL: null */
	const char *report, *run, *revision, *timestamp;
	long position;
	const char *suite, *source;  /* source: "junit", "go test -json"... */
} rt_case_rec;

/* The "trial" record of one test case's execution, in the schema's field
 * order: the one writer every report reader (rt_junit and each runner's)
 * goes through; the reader adds its own fields after (junit_classname,
 * go_test, jest_file...). */
json_t *rt_case_rec_json(const rt_case_rec *c);

/* A lane's state (rt-verify(1), LANE STATES): one word each, the same on
 * rt-verify's board, in the lane and verdict records, in rt-report's
 * autopsy and in rt-pr's dossier. A lane ends in one of the first eight;
 * waiting and racing are the board's, for a lane that has not ended. */
typedef enum {
	RT_LANE_WINNER,         /* confirmed best */
	RT_LANE_SURVIVED,       /* shown better than the original */
	RT_LANE_TIED,           /* as good as the winner, not chosen */
	RT_LANE_ELIMINATED,     /* shown no better, or could not run */
	RT_LANE_UNDECIDED,      /* its budget spent before its numbers decided */
	RT_LANE_NEUTERED,       /* disqualified by the neutering guard */
	RT_LANE_PATCH_FAILED,   /* its patch did not apply */
	RT_LANE_NOT_RACED,      /* no patch, or no race (the original) */
	RT_LANE_WAITING,
	RT_LANE_RACING,
	RT_LANE_NSTATES
} rt_lane_state;

/* The word of state s ("patch_failed"). */
const char *rt_lane_state_word(rt_lane_state s);
/* The state a word names, or -1. */
int rt_lane_state_of(const char *word);

/* Is a fact of this kind and value ("env", "load1=21.97") machine noise,
 * which no cause class rests on alone (rt-diff-facts(1), NOISE)? The
 * machine's state (load averages, free memory, process IDs, uptime, the
 * wall-clock hour) and the trial's own duration (kind "timing"), which a
 * failing run changes by stopping early or printing its traceback. 1 with
 * why set to the reason, else 0; why may be NULL. */
int rt_fact_noise(const char *kind, const char *value, const char **why);

#endif
