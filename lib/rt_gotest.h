/* rt_gotest: `go test -json` (test2json events) read as a stream, one
 * "trial" record per test execution — subtests included — in the same
 * shape as rt_junit's, with the case ID "PKG::TestName/sub". */
#ifndef RT_GOTEST_H
#define RT_GOTEST_H

#include <stdio.h>

#include "rt_junit.h"

/* Read test2json events from f (lines that are not JSON objects, such as
 * a build error on the same stream, are passed over). A test that ends
 * pass, fail or skip is one record ("outcome" pass, fail or skip,
 * "attempt" counting its runs under -count); a test that started but
 * never ended (a panic, -timeout) is a failure when its package failed;
 * a package that failed with no test of its own failing (a build or
 * setup failure, also go 1.19's plain "FAIL\tPKG [build failed]" line) is
 * one record with the package as the case and outcome
 * "error". Returns the number of records, or -1 with "LINE: reason" in
 * err when f holds no test2json event at all. */
long rt_gotest_read(FILE *f, const rt_junit_opts *o, rt_junit_fn fn, void *ctx,
    char *err, size_t errsize);

/* A test report of any kind: JUnit XML (rt_junit_read) when its first
 * non-blank character is "<"; jest --json (rt_jest_read_doc) when it is one
 * JSON object with "testResults", read whole up to RT_JEST_MAX bytes
 * (past that an error); else go test -json output. */
long rt_cases_read(FILE *f, const rt_junit_opts *o, rt_junit_fn fn, void *ctx,
    char *err, size_t errsize);

#endif
