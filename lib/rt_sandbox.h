/* rt_sandbox: confine a trial to its own directory. Detects once what the
 * system allows (bubblewrap, as root with an unprivileged uid inside it;
 * else a separate unprivileged uid when run as root; else nothing) and
 * builds the argv that runs a trial, or a parser helper, inside it. */
#ifndef RT_SANDBOX_H
#define RT_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

typedef enum {
	RT_SANDBOX_NONE,             /* unconfined */
	RT_SANDBOX_BWRAP,            /* bwrap: namespaces, read-only root */
	RT_SANDBOX_UID               /* as root: setpriv to an unprivileged uid */
} rt_sandbox_kind;

/* What --sandbox asks for. */
typedef enum { RT_SANDBOX_WANT_AUTO, RT_SANDBOX_WANT_BWRAP, RT_SANDBOX_WANT_NONE } rt_sandbox_want;

typedef struct rt_sandbox {
	rt_sandbox_kind kind;
	int network;                 /* trials may reach the network */
	char prog[4096];             /* bwrap or setpriv, absolute */
	int var_tmp;                 /* /var/tmp exists: a private one too */
	uid_t uid;                   /* RT_SANDBOX_UID: the uid trials run as */
	gid_t gid;
	char why[300];               /* why a stronger kind was not available */
	int caches;                  /* a HOME and TMPDIR of its own beside each
	                              * copy (set once the probe has passed) */
	int drop;                    /* bwrap started by root: the trial drops to
	                              * uid, gid and no groups inside (setpriv) */
	char setpriv[4096];          /* drop: setpriv, absolute */
	const char *share_from;      /* the original project, and the heavy trees */
	char *const *shared;         /* in it (relative) a copy holds as an empty
	                              * directory: bwrap binds them read-only */
} rt_sandbox;

/* Parse "auto", "bwrap" or "none"; -1 if none of them. */
int rt_sandbox_parse(const char *s, rt_sandbox_want *w);
/* Find what works here, running one probe in probe_dir (an existing
 * directory). With RT_SANDBOX_WANT_BWRAP a missing or failing bwrap is an
 * error: -1, the reason in why. Otherwise 0; sb->why says why the kind is
 * weaker than bwrap. $RETRIAL_BWRAP names the bwrap program (default:
 * bwrap on $PATH). network: leave the network shared. */
int rt_sandbox_init(rt_sandbox *sb, rt_sandbox_want want, int network,
    const char *probe_dir);
/* "bwrap", "uid" or "none". */
const char *rt_sandbox_name(const rt_sandbox *sb);
/* The argv running argv in the sandbox with dir (NULL: the current one)
 * and extra (NULL or an existing directory) writable, and with bwrap a
 * private /tmp. With sb->caches the trial has a HOME and TMPDIR of the
 * copy's own beside it (DIR/../.retrial/home and tmp, the XDG directories
 * and $GOCACHE under that HOME, made here, handed to sb->uid when trials
 * drop to it): empty when the lane starts, kept across its trials; a name
 * set in keep ("VAR=value", NULL-terminated, may be NULL: --env) is left
 * as the caller sets it. Each of sb->shared that the copy holds as an
 * empty directory is sb->share_from's, bound there read-only (bwrap).
 * With sb->drop the trial leaves uid 0 inside bwrap
 * through setpriv. With path, exec path (argv[0] is replaced); without,
 * search $PATH, exit 127 or 126 when the program cannot run, as the shell
 * does. malloc'd, every string too (rt_free_vec). NULL when sb->kind is
 * RT_SANDBOX_NONE. */
char **rt_sandbox_argv(const rt_sandbox *sb, const char *dir, const char *extra,
    char *const *keep, const char *path, char *const *argv);
/* 1 when trials run as sb->uid, not as us (RT_SANDBOX_UID, or bwrap
 * started by root): their copies must be handed to that uid and the
 * directories above them readable and searchable (0755). */
int rt_sandbox_drops(const rt_sandbox *sb);
/* The mode for a directory above the copies, in dir: 0755 when the
 * dropped uid must list and search the real one (RT_SANDBOX_UID, or bwrap with dir
 * outside /tmp and /var/tmp, which bwrap rebuilds searchable), else 0700. */
mode_t rt_sandbox_dir_mode(const rt_sandbox *sb, const char *dir);
/* The sandbox for a parser helper (rt_src): bwrap with everything
 * read-only (/tmp and /var/tmp too: a project there, or the links its
 * node_modules holds, read where they are), no network, a private /run
 * (its only scratch, $TMPDIR and $HOME), no capabilities; NONE when bwrap cannot run
 * here ($RETRIAL_BWRAP as for trials). Probed once per process. */
const rt_sandbox *rt_sandbox_helper(void);
/* The argv running path (argv[0] replaced) in the helper sandbox in cwd,
 * with each existing absolute path of ro (NULL-terminated) visible
 * read-only at its own name even under /tmp. malloc'd (rt_free_vec);
 * NULL when sb->kind is not RT_SANDBOX_BWRAP. */
char **rt_sandbox_helper_argv(const rt_sandbox *sb, const char *cwd,
    char *const *ro, const char *path, char *const *argv);
/* Make the tree at dir writable by the sandbox's trials: when they drop
 * to another uid (rt_sandbox_drops), chown every entry (links themselves) to its uid; else
 * nothing. 0, or -1 with errno. */
int rt_sandbox_own(const rt_sandbox *sb, const char *dir);

#endif
