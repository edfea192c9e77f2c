/* rt_junit: JUnit XML reports (pytest, Surefire/Failsafe, Gradle, jest-junit,
 * mocha, go-junit-report, Bazel) read with libexpat as a stream, one "trial"
 * record per test execution, memory bounded by one testcase. */
#ifndef RT_JUNIT_H
#define RT_JUNIT_H

#include <stdio.h>
#include <jansson.h>

typedef struct {
	const char *report;     /* the file's path: the "report" field, and messages */
	const char *run;        /* the "run" field; NULL: report, "@" and the
	                         * first testsuite timestamp when there is one */
	const char *revision;   /* the "revision" field; NULL: null */
	size_t max_output;      /* bytes kept of each system-out/err (0: 4096) */
	long trial;             /* > 0: every record's "trial" (rt-collect's trial
	                         * number); 0: the testcase's 1-based index */
	const char *root;       /* where the tests ran, for pytest's module paths
	                         * (rt_runner_junit_id); NULL: the current directory */
} rt_junit_opts;

/* Called once per record (json_decref'd after); non-zero stops the parse. */
typedef int (*rt_junit_fn)(json_t *rec, void *ctx);

/* Read a report from f. Returns the number of testcases read, or -1 with
 * "LINE:COLUMN: reason" in err (an XML error from expat, or a root element
 * that is not <testsuites> or <testsuite>). Records of the testcases before
 * an error have been handed to fn already. */
long rt_junit_read(FILE *f, const rt_junit_opts *o, rt_junit_fn fn, void *ctx,
    char *err, size_t errsize);

/* The revision from the CI environment: GITHUB_SHA, CI_COMMIT_SHA,
 * GIT_COMMIT, BUILD_VCS_NUMBER, the first set and non-empty; else NULL. */
const char *rt_junit_revision_env(void);

#endif
