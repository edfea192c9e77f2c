/* lib/runner/runner.h: what the runner files share — the line finders and
 * word tests lib/rt_runner.c implements for them (private to lib/). */
#ifndef RT_RUNNER_PRIVATE_H
#define RT_RUNNER_PRIVATE_H

#include <stddef.h>

#include "rt_runner.h"
#include "rt_util.h"

/* The runners, one file each under lib/runner/ (the table in rt_runner.c). */
extern const rt_runner rt_runner_generic, rt_runner_pytest, rt_runner_unittest,
    rt_runner_python, rt_runner_go, rt_runner_jest, rt_runner_vitest, rt_runner_mocha,
    rt_runner_rspec, rt_runner_script;

const char *rt_rn_base(const char *path);                  /* after the last '/' */
int rt_rn_ends_with(const char *s, const char *suf);
int rt_rn_is_assignment(const char *w);                    /* VAR=value */
int rt_rn_is_file(const char *dir, const char *rel);       /* a regular file */
int rt_rn_word_in(const char *w, const char *const *list); /* w among list (NULL-ended) */
/* Does the line p[0..len) hold needle? */
int rt_rn_memmem_line(const char *p, size_t len, const char *needle);
/* The first line of text holding needle (NULL: none), into buf, trimmed. */
const char *rt_rn_line_with(const char *text, const char *needle, char *buf, size_t size);
/* The first of needles found in err, then in out. */
const char *rt_rn_find_line(const char *out, const char *err, const char *const *needles,
    char *buf, size_t size);
/* why = "what: line" (or "what"); returns 1. */
int rt_rn_say(char *why, size_t size, const char *what, const char *line);
/* Does option o (without "=") take the next word as its value? */
int rt_rn_opt_takes_value(const char *o, const char *const *list);
/* Append one selection to out[*n] (counting past max). */
void rt_rn_sel_add(rt_runner_sel *out, size_t *n, size_t max, rt_runner_kind r,
    rt_sel_kind k, const char *text, size_t seg);
/* The selections of pytest's own words (also for a "--" tail). */
void rt_rn_sel_pytest(char **w, size_t n, rt_runner_sel *out, size_t *k, size_t max,
    size_t seg);
/* s without leading and trailing blanks (malloc'd). */
char *rt_rn_trimmed(const char *s);
/* "--reruns 2", "--retry=3" among w[0..n): the first of opts written with
 * a count that is not 0, as "OPT N" in opt. */
int rt_rn_retry_word(char **w, size_t n, const char *const *opts, char *opt, size_t size);
/* The first of try[0..n) that selectable finds in the tree under dir
 * (malloc'd), else NULL with "NAME cannot select it: F is not a WHATfile
 * in the tree (NAME reads as TRY)" in why. */
char *rt_rn_pick_id(const rt_runner *r, char **try, size_t n, const char *name,
    int (*selectable)(const char *id, const char *dir, char **missing), const char *what,
    const char *dir, char *why, size_t size);
/* The file an ID names: its part before the first "::" (malloc'd). */
char *rt_rn_id_file(const char *id);
/* Python's own "did not start" exits (a file it cannot open, a module it
 * cannot import or find), for every Python runner. */
int rt_rn_python_not_run(int code, const char *out, const char *err, char *why, size_t size);
/* A JSON report's status word (jest's, rspec's: passed, focused, failed,
 * pending, skipped, todo, disabled) -> outcome, with the result in
 * *result; NULL for any other word. */
const char *rt_rn_outcome_of(const char *status, const char **result);
/* Cut b to limit bytes at a character, saying how many were not kept. */
void rt_rn_cap_text(rt_buf *b, size_t limit);

#endif
