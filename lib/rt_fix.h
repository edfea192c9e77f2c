/* rt_fix: a rule's patch from the evidence (rt-diagnose --rules). The
 * change is planned by share/retrial/rt-fix.py, which reads the test with
 * Python's own parser; here it becomes a unified diff and is checked before
 * anyone sees it: it applies with patch --fuzz=0 to a scratch copy of the
 * file, and the patched file parses. */
#ifndef RT_FIX_H
#define RT_FIX_H

#include <signal.h>
#include <jansson.h>

#include "rt_ddmin.h"

/* Plan the patch req asks for (rt-fix.py's REQUEST: {"kind": "seed",
 * "files": [...]} or {"kind": "order", ...}; the Go helper's {"kind":
 * "maprange", "files": [...]} or {"kind": "goorder", "polluter": ID,
 * "victim": ID}) on the project in root, with
 * the interpreter command names (NULL: python3). A new object:
 *   {"status": "ok", "patch": DIFF, "files": [REL], "explanation": TEXT}
 *   {"status": "no_patch", "reason": TEXT}
 * or, for a request with several candidate sites ("hash"),
 *   {"status": "ok", "candidates": [each of those]}
 * never a diff that does not apply or parse. */
json_t *rt_fix_plan(const char *root, const char *command, json_t *req);

/* How delta debugging probes a subset of a setter's or cleaner's
 * statements: the patch that runs them applied in a scratch copy of the
 * project, then the tests of order run by the order record's command
 * (the IDs where it has '{}' or "$@", else at its end), sandboxed, in up
 * to trials trials; the subset makes the victim pass when the victim's
 * own outcome (the runner's per-case report, else the command's exit
 * where the runner gives none) is a pass in every one. */
typedef struct {
	const char *command;         /* the order record's command */
	json_t *order;               /* the tests a probe runs, the victim last */
	const char *victim;          /* whose outcome judges it */
	long max_probes;             /* --max-probes */
	long trials;                 /* per probe (0: 3) */
	volatile sig_atomic_t *stop; /* non-NULL: a signal caught, stop probing */
	rt_ddmin_refs refs;          /* the order record's references (have: 0,
	                              * the fixed rule), and refs_cap the trials a
	                              * probe judged by them runs at most */
	long refs_cap;
} rt_fix_probe;

/* rt_fix_plan of an order request whose role is setter or cleaner, its
 * statements shrunk by ddmin (lib/rt_ddmin) to a 1-minimal subset that
 * makes the victim pass. The answer has "minimise": {"statements": K,
 * "of": M, "probes": P, "trials": T, "minimal": BOOL, "judged_by":
 * "case"|"exit"}, the subset's indices in "keep" and a sentence saying
 * so in "note"; no_patch (with
 * "minimise" when probes ran) when no subset made it pass, the budget ran
 * out first, or the probes could not run. */
json_t *rt_fix_minimise(const char *root, const char *command, json_t *req,
    const rt_fix_probe *p);

/* rt_fix_plan of a polluter's order request (its state reset in the
 * victim), the patch then checked by one probe: p's order (the polluter,
 * then the victim) run in p->trials trials (0: 3) of every one; "ok" with
 * "checked": {"trials": T, "failures": 0, "judged_by": "case"|"exit"} and
 * a "note" when the victim passed in each, else no_patch saying how many
 * failed (what names the state reset). --max-probes 0 (p->max_probes < 1):
 * "ok" unchecked, "checked" {"trials": 0, "failures": 0}, and the note
 * says so. */
json_t *rt_fix_check(const char *root, const char *command, json_t *req,
    const rt_fix_probe *p, const char *what);

#endif
