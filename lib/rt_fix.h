/* rt_fix: a rule's patch from the evidence (rt-diagnose --rules). The
 * change is planned by share/retrial/rt-fix.py, which reads the test with
 * Python's own parser; here it becomes a unified diff and is checked before
 * anyone sees it: it applies with patch --fuzz=0 to a scratch copy of the
 * file, and the patched file parses. */
#ifndef RT_FIX_H
#define RT_FIX_H

#include <jansson.h>

/* Plan the patch req asks for (rt-fix.py's REQUEST: {"kind": "seed",
 * "files": [...]} or {"kind": "order", ...}) on the project in root, with
 * the interpreter command names (NULL: python3). A new object:
 *   {"status": "ok", "patch": DIFF, "files": [REL], "explanation": TEXT}
 *   {"status": "no_patch", "reason": TEXT}
 * or, for a request with several candidate sites ("hash"),
 *   {"status": "ok", "candidates": [each of those]}
 * never a diff that does not apply or parse. */
json_t *rt_fix_plan(const char *root, const char *command, json_t *req);

#endif
