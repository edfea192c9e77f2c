/* rt_sandbox: confine a trial to its own directory. Detects once what the
 * system allows (bubblewrap, else a separate unprivileged uid when run as
 * root, else nothing) and builds the argv that runs a trial inside it. */
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
	int caches;                  /* bwrap: a writable cache beside each copy
	                              * (set once the probe has passed) */
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
 * and extra (NULL or an existing directory) writable, and a private /tmp
 * ($TMPDIR=/tmp) with bwrap, and with sb->caches a cache of the copy's own
 * beside it (DIR/../.retrial-cache: $XDG_CACHE_HOME and $GOCACHE, since
 * $HOME is read-only). With path, exec path (argv[0] is replaced);
 * without, search $PATH, exit 127 or 126 when the program cannot run, as
 * the shell does. malloc'd, every string too (rt_free_vec). NULL when
 * sb->kind is RT_SANDBOX_NONE. */
char **rt_sandbox_argv(const rt_sandbox *sb, const char *dir, const char *extra,
    const char *path, char *const *argv);
/* Make the tree at dir writable by the sandbox's trials: with
 * RT_SANDBOX_UID, chown every entry (links themselves) to its uid; else
 * nothing. 0, or -1 with errno. */
int rt_sandbox_own(const rt_sandbox *sb, const char *dir);

#endif
