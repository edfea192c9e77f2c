/* rt_order: ordered runs, for a runner whose command line cannot set the
 * order of the tests it runs (go test: a package's tests in source order,
 * whatever -run says) — the runner's own driver in a scratch copy, where
 * one selection runs the tests named in the order named, and the order the
 * runner really used read back from its report. rt-bisect's probes. */
#ifndef RT_ORDER_H
#define RT_ORDER_H

#include <stddef.h>
#include <jansson.h>

#include "rt_cases.h"
#include "rt_runner.h"

/* What a runner gives for ordered runs (struct rt_runner's order). */
struct rt_order_ops {
	void *(*open)(const char *cwd, const char *victim, char *why, size_t size);
	int (*member)(const void *h, const char *id, char *why, size_t size);
	int (*write)(const void *h, char *const *order, char *why, size_t size);
	void (*map)(const void *h, rt_case_set *set);
	json_t *(*ran)(const void *h, const char *out);
	int (*same)(json_t *ran, char *const *order);
	const char *(*selector)(const void *h);  /* the ID the command is given */
	const char *(*cwd)(const void *h);       /* where the command runs */
	const char *(*where)(const void *h);     /* "the package P" */
	void (*close)(void *h);
	const char *cannot;     /* "go test runs tests in source order, and ..." */
	const char *how;        /* the note: selector, then where */
};

typedef struct rt_order rt_order;

/* Does runner r need (and have) ordered runs? */
int rt_order_needed(const rt_runner *r);
/* Set up r's ordered runs for the victim's tests, from the command's
 * directory cwd (NULL: the current one). NULL with the reason in why. */
rt_order *rt_order_open(const rt_runner *r, const char *cwd, const char *victim,
    char *why, size_t size);
/* Can test id run in the victim's ordered runs? 1, or 0 with why. */
int rt_order_member(const rt_order *o, const char *id, char *why, size_t size);
/* Make the selector run order (IDs, NULL-terminated). 0, or -1 with why. */
int rt_order_write(const rt_order *o, char *const *order, char *why, size_t size);
/* The driver's cases renamed to the tests they ran, the driver's own gone. */
void rt_order_map(const rt_order *o, rt_case_set *set);
/* The order the runner really used (a JSON array of IDs), from its stdout. */
json_t *rt_order_ran(const rt_order *o, const char *out);
int rt_order_same(const rt_order *o, json_t *ran, char *const *order);
const char *rt_order_selector(const rt_order *o);
const char *rt_order_cwd(const rt_order *o);
const char *rt_order_where(const rt_order *o);
/* The runner's words for why it needs them, and how they run. */
const char *rt_order_cannot(const rt_runner *r);
const char *rt_order_how(const rt_order *o);
void rt_order_close(rt_order *o);

#endif
