/* rt_quar_issue: a quarantine entry's GitHub issue (rt-quarantine(1),
 * Issues) — opened once, found again by a marker in its body, commented
 * on and closed on release. */
#ifndef RT_QUAR_ISSUE_H
#define RT_QUAR_ISSUE_H

#include "rt_github.h"
#include "rt_quarantine.h"

/* The issue of entry e on repo (OWNER/REPO): the open one whose body holds
 * "<!-- retrial-quarantine: ID -->", else a new one, titled "Quarantined
 * flaky test: ID", with the evidence, owner, dates, the reproduce line
 * (repro, else rt-measure on the runner's selection of the ID) and the
 * marker. Prints "issue: #N URL (opened)" or "(open already, ...)".
 * Its html_url (malloc'd), or NULL with the complaint in *err. */
char *rt_quar_issue_open(rt_gh *g, const char *repo, const rt_quar_entry *e,
    const char *repro, char **err);
/* Put why in one comment on e's issue (found again by
 * "<!-- retrial-release: ID -->" on a rerun) and close the issue.
 * 0, or -1 with the complaint in *err; an issue that is not one of repo's
 * is left alone, with a warning. */
int rt_quar_issue_close(rt_gh *g, const char *repo, const rt_quar_entry *e,
    const char *why, char **err);

#endif
