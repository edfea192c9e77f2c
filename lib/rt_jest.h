/* rt_jest: jest's --json report (one JSON document: testResults[] of
 * assertionResults[]) read into "trial" records shaped like rt_junit's,
 * one per attempt of each test, with the case ID "FILE::full name". */
#ifndef RT_JEST_H
#define RT_JEST_H

#include <jansson.h>

#include "rt_junit.h"

/* The most of one jest --json document retrial reads (256 MiB). */
#define RT_JEST_MAX ((size_t)256 << 20)

/* Is doc a jest --json report (an object with a "testResults" array)? */
int rt_jest_is_report(const json_t *doc);

/* Records from a parsed report. A test jest ran n times (invocations,
 * jest.retryTimes) is n records: attempts 1..n-1 failed (the message from
 * its retryReasons when jest kept them), attempt n the final status; at
 * most 100 failed attempts are kept a test. A test file that failed with
 * none of its tests failing (a syntax error, a throwing hook, no tests) is
 * one record with the file as the case and outcome "error". FILE is
 * relative to the current directory when that is a prefix of jest's
 * absolute path, else absolute. Returns the number of records, or -1 with
 * "testResults[N]...: reason" in err when the document is not a report;
 * the records before that have been handed to fn. */
long rt_jest_read_doc(const json_t *doc, const rt_junit_opts *o, rt_junit_fn fn,
    void *ctx, char *err, size_t errsize);

#endif
