/* rt_hyp: rt-verify's input — hypothesis records (one lane each) and the
 * measure record that may stand for the baseline — and the checks a
 * hypothesis' patch meets before any copy is made. */
#ifndef RT_HYP_H
#define RT_HYP_H

#include <stddef.h>
#include <jansson.h>

#include "rt_trial.h"

typedef struct {
	const char *id, *source, *model, *cause, *explanation, *patch;
	const char *status;          /* the hypothesis' own status ("ok" if absent) */
	json_t *rec;                 /* the record (its strings live here) */
	int index;                   /* order in the input */
} rt_hyp;

typedef struct {
	rt_hyp **hyps;
	size_t n;
	json_t *measure;             /* the last measure record, or NULL */
	const char *judge;           /* --case ID: a measure record must be that case's */
} rt_hyp_set;

/* Read every record of the files (none: stdin) into s; other types are
 * skipped. A bad record exits 2 naming file:line and the field. */
void rt_hyp_read(int nfiles, char **files, rt_hyp_set *s);
void rt_hyp_set_free(rt_hyp_set *s);

/* The measure record's counts (already checked by rt_hyp_read). */
void rt_hyp_measure_tally(json_t *measure, rt_tally *t);

/* The patch's checks before it is applied: the paths it touches (into
 * *paths, to free with rt_patch_paths_free), and none of them CI
 * configuration, hooks, .gitmodules or .gitattributes unless allow_path
 * matches. 0, or RT_HYP_REFUSED / RT_HYP_DANGEROUS with err saying why. */
enum { RT_HYP_OK, RT_HYP_REFUSED, RT_HYP_DANGEROUS };
int rt_hyp_patch_check(const char *patch, char *const *allow_path, size_t nallow,
    char ***paths, size_t *np, char *err, size_t errsize);

/* Lines a unified diff adds or removes (not its headers). */
long rt_hyp_diff_lines(const char *patch);

#endif
