/* lib/runner/hookorder.h: ordered runs through a driver the runner loads
 * as its one test file (rspec, mocha): it loads the named tests' files,
 * keeps only those tests, sorts them by the order asked as far as their
 * groups let it, and prints the order they really ran (rt_order_ops). */
#ifndef RT_HOOKORDER_H
#define RT_HOOKORDER_H

#include <stddef.h>
#include <jansson.h>

#include "rt_cases.h"

/* What the driver's line starts with: then the IDs run, a JSON array. */
#define RT_HOOKORDER_MARK "retrial-order-ran: "

/* A runner's driver: its file name and text; the text reads the order
 * (a JSON array of "FILE::name" IDs) from order.json beside it. */
typedef struct {
	const char *runner;     /* "rspec" */
	const char *file;       /* "retrial_order_spec.rb" */
	const char *text;
} rt_hookorder_driver;

/* The driver in a directory of its own, for tests "FILE::name" with FILE
 * under cwd (NULL: the current directory). NULL with why. */
void *rt_hookorder_open(const rt_hookorder_driver *d, const char *cwd, const char *victim,
    char *why, size_t size);
int rt_hookorder_member(const void *h, const char *id, char *why, size_t size);
int rt_hookorder_write(const void *h, char *const *order, char *why, size_t size);
void rt_hookorder_map(const void *h, rt_case_set *set);
json_t *rt_hookorder_ran(const void *h, const char *out);
int rt_hookorder_same(json_t *ran, char *const *order);
const char *rt_hookorder_selector(const void *h);
const char *rt_hookorder_cwd(const void *h);
const char *rt_hookorder_where(const void *h);
void rt_hookorder_close(void *h);

#endif
