/* rt_git: git as the tools' plumbing — programs run without a shell, the
 * repository a directory is in, and commits and mboxes built on a
 * temporary index, so the user's index, work tree and refs never change. */
#ifndef RT_GIT_H
#define RT_GIT_H

#include <stddef.h>

#include "rt_util.h"

/* A finished program: its output, its complaints, its status. */
typedef struct {
	rt_buf out, err;
	int status;          /* exit status; 128+N after signal N; -1: not started */
} rt_proc;

/* When set, rt_run prints "PROG: + argv..." to stderr before each run. */
extern int rt_run_verbose;

/* Run argv (looked up on PATH, never through a shell) with in (inlen
 * bytes, may be NULL) on its stdin and envset ("NAME=value" entries,
 * NULL-terminated, may be NULL) replacing their namesakes in the
 * environment; collect stdout and stderr in p. 0 when it exited 0, else
 * -1 (p->status says why). Free p with rt_proc_free either way. */
int rt_run(char *const argv[], const char *const *envset, const char *in, size_t inlen,
    rt_proc *p);
void rt_proc_free(rt_proc *p);

/* The first three non-blank lines of a program's stderr, on one line. */
char *rt_proc_complaint(const char *err);

typedef struct {
	const char *dir;     /* the directory asked about */
	int git;             /* dir is inside a git work tree */
	char *top;           /* its top directory */
	char *prefix;        /* dir relative to top: "" or "sub/dir/" */
	char *head;          /* the commit HEAD names */
	int indexed;         /* the temporary index holds HEAD's tree */
} rt_repo;

/* Find the repository dir is in. Not a directory, or a repository without
 * a commit, dies; not in a git work tree leaves r->git 0. */
void rt_repo_open(rt_repo *r, const char *dir);
void rt_repo_close(rt_repo *r);

/* git -C <top, or dir before rt_repo_open> ARGS... (NULL-terminated),
 * with envset added to the environment and in on stdin; as rt_run. */
int rt_git(const rt_repo *r, const char *const *envset, const char *in, rt_proc *p, ...);

/* git config --get key, asked in dir (no repository needed): the value,
 * or NULL when it is unset or empty. */
char *rt_git_config(const char *dir, const char *key);

/* The environment naming the temporary index (GIT_INDEX_FILE), made and
 * filled with HEAD's tree on first use. */
const char *const *rt_git_index_env(rt_repo *r);

/* The file at HEAD:path (relative to top), or NULL when there is none. */
char *rt_git_head_file(rt_repo *r, const char *path);

/* 0 when diff (a -p1 diff, paths relative to dir: git apply --directory
 * adds the prefix) applies to HEAD; else -1 and *why (malloc'd) says why. */
int rt_git_apply_check(rt_repo *r, const char *diff, char **why);

/* A whole file a commit writes: path relative to top, mode 100644. */
typedef struct {
	char *path;
	char *text;
} rt_git_file;

/* The commit (its hex name, malloc'd) on HEAD of diff (as for
 * rt_git_apply_check; may be NULL) and the nfiles files (stored as blobs
 * with git hash-object), with message msg, authored and committed by
 * name <email> at epoch (UTC): a commit object only, made on the
 * temporary index; no ref moves. Dies when git fails. */
char *rt_git_commit(rt_repo *r, const char *diff, const rt_git_file *files, size_t nfiles,
    const char *msg, const char *name, const char *email, long long epoch);

/* git format-patch of that one commit, as an mbox for git am (malloc'd):
 * the user's format.* and diff.* settings that would change its shape
 * (prefixes, signature, recipients, numbering) are overridden. */
char *rt_git_format_patch(rt_repo *r, const char *commit);

/* The author a tool's commit carries when none is given. */
#define RT_GIT_DEFAULT_AUTHOR "retrial <retrial@localhost>"

/* The author of a commit a tool ships: a ('NAME <EMAIL>', from --author),
 * else git config retrial.author asked in dir, else RT_GIT_DEFAULT_AUTHOR,
 * split into *name and *email (malloc'd). A malformed one, or one with a
 * control character, is a usage error naming --author (exit 2). */
void rt_git_author(const char *a, const char *dir, char **name, char **email);

/* The date a tool's commit carries: SOURCE_DATE_EPOCH when it is a
 * number, else now. */
long long rt_git_epoch(void);

/* Remove the temporary index; safe in a signal handler and at exit. */
void rt_git_cleanup(void);

#endif
