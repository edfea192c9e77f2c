/* rt_quarantine: the quarantine list (.retrial/quarantine) that rt-pr,
 * rt-retry -q and rt-quarantine share — parsed, looked up and rewritten
 * atomically under a lock. */
#ifndef RT_QUARANTINE_H
#define RT_QUARANTINE_H

#include <stddef.h>

#define RT_QUAR_DEFAULT ".retrial/quarantine"

/* One line: an entry, or (id NULL) a blank or '#' line kept verbatim.
 * An entry is the test's canonical ID (any characters but TAB and
 * newline), then TAB-separated fields NAME=VALUE, then optionally a
 * comment starting with '#' (rt-pr's "# dossier: PATH"). A line with no
 * TAB is an older list's: the whole line, else its first blank-separated
 * word ("NAME LINK"), names the test. */
typedef struct {
	char *raw;           /* the line as read; NULL once changed or new */
	char *id;
	int tab;             /* the ID ended at a TAB */
	char *owner, *since, *expires, *issue, *reason, *rate;
	char *extra;         /* unknown NAME=VALUE fields, TAB-joined, kept */
	char *comment;       /* "# ..." or NULL */
	long line;
} rt_quar_entry;

typedef struct {
	rt_quar_entry *e;
	size_t n;
} rt_quar_list;

/* Parse text (path names the place in messages). 0, or -1 with
 * "PATH:LINE: reason" in err: a field that is not NAME=VALUE, a field
 * given twice, an empty ID, a since or expires that is not YYYY-MM-DD, a
 * rate that is not FAILURES/TRIALS. */
int rt_quar_parse(const char *text, const char *path, rt_quar_list *l,
    char *err, size_t errsize);
/* Read and parse path; a missing file is an empty list when missing_ok.
 * Dies (exit 2) naming file:line on a malformed line. */
void rt_quar_load(const char *path, int missing_ok, rt_quar_list *l);
void rt_quar_free(rt_quar_list *l);
/* The entry naming id: exactly, else an older line's first word. */
rt_quar_entry *rt_quar_find(rt_quar_list *l, const char *id);
/* Does e name id exactly (2), by an older line's first word (1), or not (0)? */
int rt_quar_match(const rt_quar_entry *e, const char *id);
/* A new entry at the end (fields NULL), its ID copied. */
rt_quar_entry *rt_quar_add(rt_quar_list *l, const char *id);
/* Remove the entry e of l. */
void rt_quar_remove(rt_quar_list *l, rt_quar_entry *e);
/* Set a field (NULL clears); TAB and newline in v become blanks. */
void rt_quar_set(rt_quar_entry *e, char **field, const char *v);
/* The list as text: unchanged lines verbatim, the others formatted. */
char *rt_quar_format(const rt_quar_list *l);
/* Can id go on a list? NULL, or why not. */
const char *rt_quar_bad_id(const char *id);
/* "FAILURES/TRIALS" into *k, *n: 0, or -1. */
int rt_quar_rate(const char *s, long *k, long *n);

/* Edit the list at path under an exclusive fcntl lock on the list itself
 * (created when missing; one renamed over it while waiting is locked
 * anew): read it (malformed: die, nothing written), call fn,
 * and when fn returns > 0 write the result atomically (temp + rename).
 * Returns fn's value. header is written at the top of a new list. */
typedef int (*rt_quar_edit_fn)(rt_quar_list *l, void *ctx);
int rt_quar_edit(const char *path, const char *header, rt_quar_edit_fn fn, void *ctx);

/* Dates as the list keeps them, YYYY-MM-DD: today (UTC), days since
 * 1970-01-01 of a valid date, a date plus days. */
void rt_quar_today(char out[11]);
long rt_quar_days(const char *date);
void rt_quar_date_add(const char *date, long days, char out[11]);

/* The header of a list rt-quarantine or rt-pr starts. */
extern const char rt_quar_header[];

#endif
