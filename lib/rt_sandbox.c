/* rt_sandbox: bubblewrap (user, mount, pid, network, IPC and UTS
 * namespaces, a read-only root, no capabilities; as root, setpriv to nobody
 * inside), else setpriv to nobody when run as root, else none; one probe at
 * start decides. */
#define _XOPEN_SOURCE 700  /* realpath(3): POSIX.1-2008, but glibc hides it */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_platform.h"
#include "rt_sandbox.h"
#include "rt_util.h"

extern char **environ;

#define NOBODY 65534

int
rt_sandbox_parse(const char *s, rt_sandbox_want *w)
{
	if (!strcmp(s, "auto"))
		*w = RT_SANDBOX_WANT_AUTO;
	else if (!strcmp(s, "bwrap"))
		*w = RT_SANDBOX_WANT_BWRAP;
	else if (!strcmp(s, "none"))
		*w = RT_SANDBOX_WANT_NONE;
	else
		return -1;
	return 0;
}

const char *
rt_sandbox_name(const rt_sandbox *sb)
{
	return sb->kind == RT_SANDBOX_BWRAP ? "bwrap" : sb->kind == RT_SANDBOX_UID ?
	    "uid" : "none";
}

/* prog as given when it holds a slash, else the first executable of that
 * name on $PATH. */
static int
find_prog(const char *prog, char *out, size_t size)
{
	const char *p = getenv("PATH"), *e;
	size_t n;

	if (strchr(prog, '/')) {
		snprintf(out, size, "%s", prog);
		return access(out, X_OK);
	}
	for (p = p && *p ? p : "/usr/bin:/bin"; ; p = e + 1) {
		e = strchr(p, ':');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n > 0 && (size_t)snprintf(out, size, "%.*s/%s", (int)n, p, prog) < size &&
		    access(out, X_OK) == 0)
			return 0;
		if (!e)
			return -1;
	}
}

typedef struct {
	char **v;
	size_t n, cap;
} vec;

static void
add(vec *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? 2 * a->cap : 64;
		a->v = rt_xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n++] = rt_xstrdup(s);
	a->v[a->n] = NULL;
}

/* The command itself: path with argv's arguments, or argv through
 * sh -c 'exec "$@"', whose "not found" (127) and "cannot execute" (126)
 * are the trial engine's errors, where the sandbox's own exec failure
 * would be an ordinary exit 1. */
static void
add_cmd(vec *a, const char *path, char *const *argv)
{
	char *const *x;

	if (path) {
		add(a, path);
	} else {
		add(a, "/bin/sh");
		add(a, "-c");
		add(a, "exec \"$@\"");
		add(a, "sh");
		add(a, argv[0]);
	}
	for (x = argv + 1; *x; x++)
		add(a, *x);
}

/* A trial's own HOME and the lane's caches (issue 33), beside the copy in
 * the directory rt-verify keeps for the lane (DIR/../.retrial), never
 * inside the project: HOME (with $XDG_CONFIG_HOME, $XDG_DATA_HOME and
 * $XDG_STATE_HOME under it) is a new empty directory for every trial, since
 * a lane's trials run side by side and a test that writes ~/.tool-config
 * would read its neighbour's; $XDG_CACHE_HOME (~/.cache links to it),
 * $GOCACHE and $TMPDIR (where jest keeps its transform cache) are the
 * lane's, empty when it starts and kept across its trials, as a runner's
 * caches are made to be shared. The original and every lane start alike;
 * the real $HOME stays out of reach. */
static const char *const home_env[][2] = {
	{ "HOME", "" },
	{ "XDG_CONFIG_HOME", "/.config" },
	{ "XDG_DATA_HOME", "/.local/share" },
	{ "XDG_STATE_HOME", "/.local/state" },
};
static const char *const lane_env[][2] = {
	{ "XDG_CACHE_HOME", "cache" },
	{ "GOCACHE", "cache/go-build" },
	{ "TMPDIR", "tmp" },
};

/* Is name set in keep (--env: "VAR=value")? */
static int
kept(char *const *keep, const char *name)
{
	size_t n = strlen(name);

	for (; keep && *keep; keep++)
		if (!strncmp(*keep, name, n) && (*keep)[n] == '=')
			return 1;
	return 0;
}

/* mkdir p (existing is fine), the dropped uid's when trials drop to it */
static int
own_dir(const rt_sandbox *sb, const char *p)
{
	if (mkdir(p, 0700) < 0 && errno != EEXIST)
		return -1;
	if (rt_sandbox_drops(sb) && (lchown(p, sb->uid, sb->gid) < 0 || chmod(p, 0700) < 0))
		return -1;
	return 0;
}

/* The lane's directory (DIR/../.retrial) with its caches and a new HOME
 * in *home; NULL when they cannot be made. */
static char *
lane_home(const rt_sandbox *sb, const char *d, char **home)
{
	static const char *const sub[] = { "", "/cache", "/tmp", "/home" };
	static const char *const hsub[] = { "/.config", "/.local", "/.local/share",
	    "/.local/state" };
	char *slash = strrchr(d, '/'), *c, *p, *h;
	size_t i;

	if (!slash || slash == d)
		return NULL;
	c = rt_xasprintf("%.*s/.retrial", (int)(slash - d), d);
	for (i = 0; i < sizeof sub / sizeof *sub; i++) {
		p = rt_xasprintf("%s%s", c, sub[i]);
		if (own_dir(sb, p) < 0) {
			free(p);
			goto fail;
		}
		free(p);
	}
	h = rt_xasprintf("%s/home/XXXXXX", c);
	if (!mkdtemp(h) || own_dir(sb, h) < 0) {
		free(h);
		goto fail;
	}
	for (i = 0; i < sizeof hsub / sizeof *hsub; i++) {
		p = rt_xasprintf("%s%s", h, hsub[i]);
		if (own_dir(sb, p) < 0) {
			free(p);
			free(h);
			goto fail;
		}
		free(p);
	}
	p = rt_xasprintf("%s/.cache", h);
	if (symlink("../../cache", p) == 0 && rt_sandbox_drops(sb))
		(void)lchown(p, sb->uid, sb->gid);
	free(p);
	*home = h;
	return c;
fail:
	free(c);
	return NULL;
}

/* One variable: bwrap's --setenv, or (env) env(1)'s VAR=value. */
static void
add_env(vec *a, int env, const char *name, const char *dir, const char *sub)
{
	char *v = rt_xasprintf(env ? "%s=%s%s" : "%.0s%s%s", name, dir, sub);

	if (!env) {
		add(a, "--setenv");
		add(a, name);
	}
	add(a, v);
	free(v);
}

/* Go's module cache as the caller's go would find it ($GOMODCACHE, else
 * the first $GOPATH's pkg/mod, else ~/go/pkg/mod), when it is a directory
 * (its real path: a bind's source);
 * malloc'd, or NULL. */
#define GOMOD_IN_SANDBOX "/run/retrial-gomodcache"
static char *
go_modcache(void)
{
	const char *v = getenv("GOMODCACHE"), *home = getenv("HOME");
	struct stat st;
	char *p;

	if (v && *v)
		p = rt_xstrdup(v);
	else if ((v = getenv("GOPATH")) && *v)
		p = rt_xasprintf("%.*s/pkg/mod", (int)strcspn(v, ":"), v);
	else if (home && *home == '/')
		p = rt_xasprintf("%s/go/pkg/mod", home);
	else
		return NULL;
	if (*p != '/' || stat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
		free(p);
		return NULL;
	}
	char *r = realpath(p, NULL);
	free(p);
	return r;
}

/* The trial's HOME and the lane's caches as bwrap options (a bind and
 * --setenv), or (env) as env(1)'s operands. Names in keep are left as the
 * caller sets them. */
static void
add_home(const rt_sandbox *sb, vec *a, const char *d, char *const *keep, int env)
{
	char *h = NULL, *c = lane_home(sb, d, &h), *cs;
	size_t i;

	if (!c)
		return;
	if (!env) {
		add(a, "--bind");
		add(a, c);
		add(a, c);
	}
	for (i = 0; i < sizeof home_env / sizeof *home_env; i++)
		if (!kept(keep, home_env[i][0]))
			add_env(a, env, home_env[i][0], h, home_env[i][1]);
	cs = rt_xasprintf("%s/", c);
	for (i = 0; i < sizeof lane_env / sizeof *lane_env; i++)
		if (!kept(keep, lane_env[i][0]))
			add_env(a, env, lane_env[i][0], cs, lane_env[i][1]);
	free(cs);
	/* the trial's HOME is new, so Go would look for its modules under it
	 * and, with no network, find none: the real module cache, read-only
	 * like the rest of / */
	if (!kept(keep, "GOMODCACHE") && (cs = go_modcache()) != NULL) {
		if (!env) {
			/* bound in the sandbox's own /run, where a dropped
			 * uid reaches it (not under root's 0700 HOME, nor a
			 * /tmp the sandbox replaces) */
			add(a, "--ro-bind");
			add(a, cs);
			add(a, GOMOD_IN_SANDBOX);
			free(cs);
			cs = rt_xstrdup(GOMOD_IN_SANDBOX);
		}
		add_env(a, env, "GOMODCACHE", cs, "");
		free(cs);
	}
	free(h);
	free(c);
}

/* setpriv to sb's uid and gid, no groups, nothing regained by exec: root
 * in a user namespace is still uid 0 to every file and socket outside, so
 * root's trials are nobody's */
static void
add_drop(const rt_sandbox *sb, vec *a)
{
	char *u;

	add(a, sb->setpriv);
	u = rt_xasprintf("--reuid=%ld", (long)sb->uid);
	add(a, u);
	free(u);
	u = rt_xasprintf("--regid=%ld", (long)sb->gid);
	add(a, u);
	free(u);
	add(a, "--clear-groups");
	add(a, "--inh-caps=-all");
	add(a, "--no-new-privs");
	add(a, "--");
}

/* What every bwrap sandbox has: its own pid, IPC, UTS (and without the
 * network, network: abstract sockets too) namespaces, no capabilities, /
 * read-only, private /dev, /proc, /tmp, /var/tmp and /run (no socket
 * there from outside). */
static void
add_common(const rt_sandbox *sb, vec *a, int network, int helper)
{
	char r[PATH_MAX];

	add(a, sb->prog);
	if (!sb->drop)
		add(a, "--unshare-user-try");
	add(a, "--unshare-pid");      /* no ancestor's /proc/PID to read */
	add(a, "--unshare-ipc");
	add(a, "--unshare-uts");
	if (!network)
		add(a, "--unshare-net");
	add(a, "--cap-drop");         /* bwrap run by root keeps them otherwise */
	add(a, "ALL");
	if (sb->drop) {
		/* setpriv's, to drop them all with root */
		add(a, "--cap-add");
		add(a, "CAP_SETUID");
		add(a, "--cap-add");
		add(a, "CAP_SETGID");
	}
	add(a, "--die-with-parent");  /* a timeout's signal ends all of it */
	add(a, "--new-session");      /* no TIOCSTI into our terminal */
	add(a, "--ro-bind");
	add(a, "/");
	add(a, "/");
	add(a, "--dev");
	add(a, "/dev");
	add(a, "--proc");
	add(a, "/proc");
	/* a helper reads what it parses where it is, /tmp included (a project
	 * or its node_modules' links there), read-only like the rest; its
	 * scratch is its private /run */
	if (!helper) {
		/* sticky and everyone's, as the real ones: a dropped uid writes them */
		add(a, "--perms");
		add(a, "1777");
		add(a, "--tmpfs");
		add(a, "/tmp");
	}
	if (sb->var_tmp && !helper) {
		add(a, "--perms");
		add(a, "1777");
		add(a, "--tmpfs");
		add(a, "/var/tmp");
	}
	add(a, "--tmpfs");
	add(a, "/run");
	/* a resolver's configuration that lives in /run (systemd-resolved) */
	if (network && realpath("/etc/resolv.conf", r) && !strncmp(r, "/run/", 5)) {
		add(a, "--ro-bind");
		add(a, r);
		add(a, r);
	}
}

/* For a dropped uid: every directory above path searchable and readable
 * in the sandbox (Python lists the directory above a package to import
 * it: a package-relative import needs it; each holds nothing but the
 * copies). Those under its fresh /tmp are made by bwrap with the modes of
 * the real ones (mkdtemp's 0700), which would lock nobody out of its own
 * copy; one that exists already is left as it is. */
static void
add_reach(const rt_sandbox *sb, vec *a, const char *path)
{
	char *p, *s;

	if (!sb->drop || path[0] != '/')
		return;
	p = rt_xstrdup(path);
	for (s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		add(a, "--perms");
		add(a, "0755");
		add(a, "--dir");
		add(a, p);
		*s = '/';
	}
	free(p);
}

/* A heavy tree a test only reads (node_modules, .venv, ...): the copy
 * holds an empty directory in its place, where the original's is bound
 * read-only, never copied. One the patch touched is a real copy (not
 * empty), left alone. */
static void
add_shared(const rt_sandbox *sb, vec *a, const char *d)
{
	char *const *x;
	char *p, *o, r[PATH_MAX];
	struct dirent *e;
	DIR *dp;
	int empty;

	for (x = sb->shared; sb->share_from && x && *x; x++) {
		p = rt_xasprintf("%s/%s", d, *x);
		empty = 0;
		if ((dp = opendir(p))) {
			empty = 1;
			while (empty && (e = readdir(dp)))
				empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
			closedir(dp);
		}
		o = rt_xasprintf("%s/%s", sb->share_from, *x);
		if (empty && realpath(o, r)) {
			add(a, "--ro-bind");
			add(a, r);
			add(a, p);
		}
		free(o);
		free(p);
	}
}

char **
rt_sandbox_argv(const rt_sandbox *sb, const char *dir, const char *extra,
    char *const *keep, const char *path, char *const *argv)
{
	vec a = { 0 };
	char d[PATH_MAX], x[PATH_MAX], *u;

	if (sb->kind == RT_SANDBOX_NONE)
		return NULL;
	/* the real names: a bind follows no link we did not mean */
	if (!realpath(dir ? dir : ".", d))
		snprintf(d, sizeof d, "%s", dir ? dir : ".");
	if (sb->kind == RT_SANDBOX_UID) {
		add(&a, sb->prog);
		u = rt_xasprintf("--reuid=%ld", (long)sb->uid);
		add(&a, u);
		free(u);
		u = rt_xasprintf("--regid=%ld", (long)sb->gid);
		add(&a, u);
		free(u);
		add(&a, "--clear-groups");
		add(&a, "--");
		if (sb->caches) {
			add(&a, "/usr/bin/env");
			add_home(sb, &a, d, keep, 1);
		}
		add_cmd(&a, path, argv);
		return a.v;
	}
	add_common(sb, &a, sb->network, 0);
	add_reach(sb, &a, d);
	add(&a, "--bind");
	add(&a, d);
	add(&a, d);
	if (extra && realpath(extra, x) && strcmp(x, d) != 0) {
		add_reach(sb, &a, x);
		add(&a, "--bind");
		add(&a, x);
		add(&a, x);
	}
	add_shared(sb, &a, d);
	add(&a, "--chdir");
	add(&a, d);
	if (!kept(keep, "TMPDIR")) {
		add(&a, "--setenv");
		add(&a, "TMPDIR");
		add(&a, "/tmp");
	}
	if (sb->caches)
		add_home(sb, &a, d, keep, 0);
	add(&a, "--");
	if (sb->drop)
		add_drop(sb, &a);
	add_cmd(&a, path, argv);
	return a.v;
}

/* Run the sandbox's probe (sh -c :) in dir: 0 when it exits 0, else -1
 * with the first line it wrote, or how it ended, in why. */
static int run_probe(rt_sandbox *sb, char **argv);

static int
probe(rt_sandbox *sb, const char *dir)
{
	static char *const colon[] = { "sh", "-c", ":", NULL };

	return run_probe(sb, rt_sandbox_argv(sb, dir, NULL, NULL, "/bin/sh", colon));
}

/* Run argv (a probe; freed): 0 when it exits 0, else -1 as probe says. */
static int
run_probe(rt_sandbox *sb, char **argv)
{
	posix_spawn_file_actions_t fa;
	char buf[sizeof sb->why], *nl;
	int pe[2], rc, st;
	ssize_t n;
	size_t len = 0;
	pid_t pid;

	if (pipe(pe) < 0) {
		rt_free_vec(argv);
		snprintf(sb->why, sizeof sb->why, "pipe: %s", strerror(errno));
		return -1;
	}
	fcntl(pe[0], F_SETFD, FD_CLOEXEC);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	rt_spawn_closefrom(&fa, 3);
	rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pe[1]);
	if (rc != 0) {
		snprintf(sb->why, sizeof sb->why, "cannot run %s: %s", argv[0], strerror(rc));
		close(pe[0]);
		rt_free_vec(argv);
		return -1;
	}
	while (len + 1 < sizeof buf &&
	    ((n = read(pe[0], buf + len, sizeof buf - 1 - len)) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			len += (size_t)n;
	buf[len] = '\0';
	close(pe[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			st = -1;
			break;
		}
	if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		rt_free_vec(argv);
		return 0;
	}
	if ((nl = strchr(buf, '\n')))
		*nl = '\0';
	if (*buf)
		snprintf(sb->why, sizeof sb->why, "%s", buf);
	else if (st != -1 && WIFEXITED(st))
		snprintf(sb->why, sizeof sb->why, "%s exits %d", argv[0], WEXITSTATUS(st));
	else
		snprintf(sb->why, sizeof sb->why, "%s was killed", argv[0]);
	rt_free_vec(argv);
	return -1;
}

int
rt_sandbox_init(rt_sandbox *sb, rt_sandbox_want want, int network, const char *probe_dir)
{
	const char *b = getenv("RETRIAL_BWRAP");
	char why[sizeof sb->why];
	struct stat st;

	memset(sb, 0, sizeof *sb);
	sb->network = network;
	if (want == RT_SANDBOX_WANT_NONE) {
		sb->network = 1;
		snprintf(sb->why, sizeof sb->why, "--sandbox none");
		return 0;
	}
	sb->var_tmp = stat("/var/tmp", &st) == 0 && S_ISDIR(st.st_mode);
	if (!b || !*b)
		b = "bwrap";
	if (find_prog(b, sb->prog, sizeof sb->prog) < 0) {
		snprintf(sb->why, sizeof sb->why, "%s: not found (Debian: apt-get install "
		    "bubblewrap)", b);
	} else {
		sb->kind = RT_SANDBOX_BWRAP;
		if (geteuid() == 0) {
			/* root's trials are nobody's, or bwrap is not used */
			if (find_prog("setpriv", sb->setpriv, sizeof sb->setpriv) < 0) {
				snprintf(sb->why, sizeof sb->why, "no setpriv to leave uid 0");
				goto nobwrap;
			}
			sb->drop = 1;
			sb->uid = NOBODY;
			sb->gid = NOBODY;
		}
		if (probe(sb, probe_dir) == 0) {
			sb->caches = 1;
			return 0;
		}
nobwrap:
		sb->kind = RT_SANDBOX_NONE;
		sb->drop = 0;
		snprintf(why, sizeof why, "%.100s cannot run here: %.180s", sb->prog, sb->why);
		memcpy(sb->why, why, sizeof why);
	}
	if (want == RT_SANDBOX_WANT_BWRAP)
		return -1;
	/* root without namespaces: at least not root */
	if (geteuid() == 0 && find_prog("setpriv", sb->prog, sizeof sb->prog) == 0) {
		sb->kind = RT_SANDBOX_UID;
		sb->uid = NOBODY;
		sb->gid = NOBODY;
		sb->network = 1;
		memcpy(why, sb->why, sizeof why);
		if (probe(sb, probe_dir) == 0) {
			memcpy(sb->why, why, sizeof why);
			sb->caches = access("/usr/bin/env", X_OK) == 0;
			return 0;
		}
		sb->kind = RT_SANDBOX_NONE;
	}
	sb->network = 1;
	return 0;
}

/* chown the tree at dirfd/name (not following links), depth first */
static int
own_at(int dirfd, const char *name, uid_t uid, gid_t gid, int depth)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int fd, rc = 0;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (S_ISDIR(st.st_mode)) {
		if (depth > 256) {
			errno = ELOOP;
			return -1;
		}
		if ((fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			return -1;
		if (!(d = fdopendir(fd))) {
			close(fd);
			return -1;
		}
		while (rc == 0 && (e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				rc = own_at(fd, e->d_name, uid, gid, depth + 1);
		closedir(d);
		if (rc < 0)
			return -1;
	}
	return fchownat(dirfd, name, uid, gid, AT_SYMLINK_NOFOLLOW);
}

int
rt_sandbox_drops(const rt_sandbox *sb)
{
	return sb->kind == RT_SANDBOX_UID || (sb->kind == RT_SANDBOX_BWRAP && sb->drop);
}

mode_t
rt_sandbox_dir_mode(const rt_sandbox *sb, const char *dir)
{
	char r[PATH_MAX];

	if (sb->kind == RT_SANDBOX_UID)
		return 0755;
	if (!rt_sandbox_drops(sb))
		return 0700;
	if (!realpath(dir, r))
		snprintf(r, sizeof r, "%s", dir);
	if (!strncmp(r, "/tmp/", 5) || (sb->var_tmp && !strncmp(r, "/var/tmp/", 9)))
		return 0700;
	return 0755;
}

int
rt_sandbox_own(const rt_sandbox *sb, const char *dir)
{
	if (!rt_sandbox_drops(sb))
		return 0;
	return own_at(AT_FDCWD, dir, sb->uid, sb->gid, 0);
}

char **
rt_sandbox_helper_argv(const rt_sandbox *sb, const char *cwd, char *const *ro,
    const char *path, char *const *argv)
{
	vec a = { 0 };
	char r[PATH_MAX];
	struct stat st;

	if (sb->kind != RT_SANDBOX_BWRAP)
		return NULL;
	add_common(sb, &a, 0, 1);
	for (; ro && *ro; ro++)
		if ((*ro)[0] == '/' && realpath(*ro, r) && stat(r, &st) == 0 &&
		    strcmp(r, "/") != 0) {
			add(&a, "--ro-bind");
			add(&a, r);
			add(&a, r);
		}
	if (cwd) {
		add(&a, "--chdir");
		add(&a, cwd);
	}
	add(&a, "--setenv");
	add(&a, "TMPDIR");
	add(&a, "/run");
	add(&a, "--setenv");
	add(&a, "HOME");
	add(&a, "/run");
	add(&a, "--");
	add_cmd(&a, path, argv);
	return a.v;
}

const rt_sandbox *
rt_sandbox_helper(void)
{
	static rt_sandbox sb;
	static int done;
	static char *const colon[] = { "sh", "-c", ":", NULL };
	const char *b = getenv("RETRIAL_BWRAP");
	struct stat st;

	if (done)
		return &sb;
	done = 1;
	memset(&sb, 0, sizeof sb);
	sb.var_tmp = stat("/var/tmp", &st) == 0 && S_ISDIR(st.st_mode);
	if (find_prog(b && *b ? b : "bwrap", sb.prog, sizeof sb.prog) < 0)
		return &sb;
	sb.kind = RT_SANDBOX_BWRAP;
	if (run_probe(&sb, rt_sandbox_helper_argv(&sb, "/", NULL, "/bin/sh", colon)) < 0)
		sb.kind = RT_SANDBOX_NONE;
	return &sb;
}
