/* rt_ddmin: delta debugging's ddmin (Zeller and Hildebrandt, "Simplifying
 * and Isolating Failure-Inducing Input", TSE 2002): a 1-minimal subset of
 * n items that still has a property, each probe of a subset a callback. */
#ifndef RT_DDMIN_H
#define RT_DDMIN_H

#include <stddef.h>

/* Does the subset idx[0..n) (ascending) have the property? 1 yes, 0 no
 * (decided: seen to lack it), 2 not seen to have it but not decided (a
 * noisy probe: searched on as 0, but no ground for "minimal"), -1 stop
 * (interrupted). */
typedef int (*rt_ddmin_fn)(const size_t *idx, size_t n, void *ctx);

typedef struct {
	long max_probes;             /* most calls of the callback in all */
	long probes;                 /* out: the calls made (a subset is probed once) */
	int minimal;                 /* out: 1-minimal: every subset one smaller
	                              * than the one found was decided lacking (0) */
	long undecided;              /* out: of those, the ones probed 2 */
	int budget_out;              /* out: max_probes ran out first */
	int stopped;                 /* out: the callback said stop */
} rt_ddmin_opts;

/* Shrink the items 0..n-1, which the caller has seen have the property
 * (that probe is not counted here): the subset found, ascending, in out
 * (room for n), its size returned. The empty set is taken not to have
 * it. Cut short by the budget or a stop, the smallest subset seen to
 * have the property so far. */
size_t rt_ddmin(size_t n, rt_ddmin_fn fn, void *ctx, rt_ddmin_opts *o, size_t *out);

/* How one probe's trials are judged, the rule rt-bisect's search probes
 * and rt_fix's delta-debugging probes share. With the two references of
 * an order record (rt-bisect's "references": the passing reference's
 * anytime upper bound, the failing one's lower bound), a probe is a pass
 * once the anytime interval (rt_cs_interval at conf) of its failures lies
 * below fail_lo, a failure once it lies above pass_hi, and undecided at
 * cap trials. Without references (have == 0) the fixed rule: a pass after
 * cap passing trials in a row, decided failing after RT_DDMIN_FAIL_DECIDED
 * failing ones from its start, undecided at the first outcome unlike the
 * ones before. */
typedef struct {
	int have;                    /* the references are set */
	double pass_hi, fail_lo;     /* the references' inner bounds */
	double conf;                 /* the intervals' confidence */
} rt_ddmin_refs;

#define RT_DDMIN_FAIL_DECIDED 3
#define RT_DDMIN_MORE 3

/* After a probe's trials so far (failures of trials): 1 pass, 0 failing,
 * 2 undecided (each final), or RT_DDMIN_MORE: run another trial. */
int rt_ddmin_step(const rt_ddmin_refs *r, long failures, long trials, long cap);

#endif
