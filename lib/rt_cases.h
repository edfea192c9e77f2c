/* rt_cases: each test case's own outcome in a trial — the runner asked
 * for its report, the report read safely from the private directory (or,
 * for go test -json, from the trial's stdout), and one case judged. */
#ifndef RT_CASES_H
#define RT_CASES_H

#include <stddef.h>
#include <jansson.h>

#include "rt_junit.h"
#include "rt_trial.h"

/* Ask the runner itself for a report of every case, by its adapter:
 * pytest gets --junitxml=$RETRIAL_JUNIT through PYTEST_ADDOPTS, go test
 * -json through GOFLAGS (read from stdout, so up to 16 MiB of it is
 * kept); unless the command names a report option of its own
 * (--junitxml, -json, --json). Sets o->cases_auto. 0, or -1 with the
 * reason when the runner's report is not to be had that way (then the
 * command must write $RETRIAL_JUNIT itself). */
int rt_cases_auto(rt_trial_opts *o, char *why, size_t size);

/* The most of one JSON report document retrial reads (256 MiB). */
#define RT_REPORT_MAX ((size_t)256 << 20)

/* A test report of any kind: JUnit XML (rt_junit_read) when its first
 * non-blank character is "<"; else JSON, offered to each runner of the
 * table: a stream of one event a line whose first line a runner claims
 * (go test -json), or one document a runner reads (jest --json), read
 * whole up to RT_REPORT_MAX bytes (past that an error). Returns the
 * number of records, or -1 with "LINE: reason" in err. */
long rt_cases_read(FILE *f, const rt_junit_opts *o, rt_junit_fn fn, void *ctx,
    char *err, size_t errsize);

/* The private report directory, held open so a trial cannot swap it. */
typedef struct {
	int fd;
	const char *path;
} rt_cases_dir;
int rt_cases_dir_open(rt_cases_dir *d, const char *path);   /* 0, or -1 */
void rt_cases_dir_close(rt_cases_dir *d);
/* A new private directory (mkdtemp under $TMPDIR, else /tmp), opened in
 * d; its path (malloc'd), for rt_trial_opts.junit_dir. Dies on failure. */
char *rt_cases_dir_make(rt_cases_dir *d);
/* Remove what trials left in it (reports of trials stopped before they
 * were read), close it, remove it (a warning when that fails), and free
 * path. */
void rt_cases_dir_remove(rt_cases_dir *d, char *path);

/* One case's last word in a trial: the last attempt of its last repeat,
 * and how many of its earlier repeats (go test -count=N) ended failed. */
typedef struct {
	char *id;
	rt_outcome outcome;          /* RT_PASS, RT_FAIL, RT_SKIP, RT_ERROR */
	long attempts;
	long repeat;                 /* the repeat outcome is of (1 when none) */
	long failed_repeats;         /* earlier repeats whose last attempt failed */
	char *message;
} rt_case_out;
typedef struct {
	rt_case_out *v;
	size_t n, cap;
	char error[400];             /* why no report was read, else "" */
	int refused;                 /* the report was there but not a regular file */
} rt_case_set;

/* Read trial res's cases: the report $RETRIAL_JUNIT named, opened inside
 * d without following a link or blocking, only a regular file, removed
 * after; with no report, a go test -json stream on its stdout. fn (may be
 * NULL) gets every record, set (may be NULL) every case's final outcome.
 * The number of records, or -1 with the reason in set->error (no report,
 * not a regular file, a corrupt report: records before the corruption
 * were handed to fn). A stop signal ends the reading (-1). */
long rt_cases_trial(rt_cases_dir *d, const rt_trial_opts *o, const rt_trial_result *res,
    rt_junit_fn fn, void *ctx, rt_case_set *set);

/* The judged case's outcome in set (its last attempt; a failure when
 * the last attempt of any of its repeats failed), or, when the
 * runner never reported it, RT_ERROR with "case X did not run in trial N
 * (the runner reported M cases)" in why; a skipped case is RT_ERROR too
 * ("case X was skipped in trial N"): it did not run. */
rt_outcome rt_cases_judge(const rt_case_set *set, const char *id, long trial,
    char *why, size_t size);
/* The other cases that failed in set, as a JSON array of IDs. */
json_t *rt_cases_others_failed(const rt_case_set *set, const char *id);
void rt_case_set_free(rt_case_set *set);

#endif
