/* rt_src: assertion inventories from each language's parser (rt_src.h) —
 * the helper run argv-only with a timeout, an output cap and a memory
 * bound, its JSON read with jansson, and two inventories compared. */
#define _XOPEN_SOURCE 700  /* realpath(3): POSIX.1-2008, but glibc hides it */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_git.h"
#include "rt_fs.h"
#include "rt_hash.h"
#include "rt_platform.h"
#include "rt_runner.h"
#include "rt_sandbox.h"
#include "rt_src.h"
#include "rt_util.h"

extern char **environ;

#define OUT_MAX (16UL << 20)
#define ERR_MAX (64UL << 10)
#define MEM_MAX (1ULL << 30)

const char *
rt_src_lang(const char *path)
{
	static const struct { const char *ext, *lang; } ext[] = {
		{ ".py", "python" }, { ".go", "go" }, { ".js", "javascript" },
		{ ".jsx", "javascript" }, { ".mjs", "javascript" },
		{ ".cjs", "javascript" }, { ".ts", "javascript" },
		{ ".tsx", "javascript" }, { ".mts", "javascript" },
		{ ".cts", "javascript" },
	};
	const char *base = strrchr(path, '/'), *dot;
	size_t i;

	base = base ? base + 1 : path;
	if (!(dot = strrchr(base, '.')))
		return NULL;
	for (i = 0; i < sizeof ext / sizeof ext[0]; i++)
		if (strcmp(dot, ext[i].ext) == 0)
			return ext[i].lang;
	return NULL;
}

/* ---- running a helper ---- */

static long
guard_timeout(void)
{
	const char *e = getenv("RETRIAL_GUARD_TIMEOUT");
	long v;

	if (e && *e && rt_parse_long(e, 1, 86400, &v) == 0)
		return v;
	return 20;
}

/* The executable for name: itself when it has a slash, else the first
 * match on $PATH (malloc'd); NULL when there is none. */
static char *
find_exe(const char *name)
{
	const char *path = getenv("PATH"), *p, *e;
	char *cand;

	if (!name || !*name)
		return NULL;
	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? rt_xstrdup(name) : NULL;
	for (p = path ? path : "/usr/bin:/bin"; ; p = e + 1) {
		e = strchr(p, ':');
		cand = rt_xasprintf("%.*s/%s", e ? (int)(e - p) : (int)strlen(p),
		    p, name);
		if (*p != ':' && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		if (!e)
			return NULL;
	}
}

static int run_named(const char *, const char *, char *const [], const char *,
    char *const [], long, unsigned long long, rt_buf *, rt_buf *, int *, char *,
    size_t);

/* Run exe with argv in cwd, stdin /dev/null, for at most timeout seconds:
 * stdout into out (at most OUT_MAX), stderr into err. 0 with the exit
 * status in *status, or -1 with why (timed out, killed, output too
 * long, cannot run). */
static int
run_helper(const char *exe, char *const argv[], const char *cwd,
    char *const envp[], long timeout, unsigned long long mem, rt_buf *out,
    rt_buf *err, int *status, char *why, size_t whysize)
{
	return run_named(argv[0], exe, argv, cwd, envp, timeout, mem, out, err,
	    status, why, whysize);
}

/* run_helper, its messages naming name */
static int
run_named(const char *name, const char *exe, char *const argv[], const char *cwd,
    char *const envp[], long timeout, unsigned long long mem, rt_buf *out,
    rt_buf *err, int *status, char *why, size_t whysize)
{
	int po[2], pe[2], st, fd, over = 0, timed = 0;
	double deadline = rt_now_ms() + 1000.0 * (double)timeout, left;
	char buf[8192];
	pid_t pid;

	if (pipe(po) < 0 || pipe(pe) < 0) {
		snprintf(why, whysize, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) < 0) {
		snprintf(why, whysize, "fork: %s", strerror(errno));
		close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
		return -1;
	}
	if (pid == 0) {
		struct sigaction sa;
		setpgid(0, 0);
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = SIG_DFL;
		sigaction(SIGPIPE, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		fd = open("/dev/null", O_RDONLY);
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(po[1], 1) < 0 || dup2(pe[1], 2) < 0)
			_exit(126);
		rt_child_closefrom(3);
		if (cwd && chdir(cwd) < 0)
			_exit(126);
		if (mem)
			(void)rt_child_limit_memory(mem);
		execve(exe, argv, envp);
		_exit(127);
	}
	setpgid(pid, pid);
	close(po[1]);
	close(pe[1]);
	while (po[0] >= 0 || pe[0] >= 0) {
		struct pollfd fds[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
		left = deadline - rt_now_ms();
		if (left <= 0) {
			timed = 1;
			break;
		}
		if (poll(fds, 2, left > 1000 ? 1000 : (int)left + 1) < 0) {
			if (errno == EINTR && !rt_stop_signal)
				continue;
			break;
		}
		if (rt_stop_signal)
			break;
		for (int i = 0; i < 2; i++) {
			int *f = i == 0 ? &po[0] : &pe[0];
			rt_buf *b = i == 0 ? out : err;
			ssize_t n;
			if (*f < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(*f, buf, sizeof buf);
			if (n > 0) {
				if (b->len + (size_t)n > (i == 0 ? OUT_MAX : ERR_MAX)) {
					if (i == 0)
						over = 1;
					continue;
				}
				rt_buf_add(b, buf, (size_t)n);
			} else if (n == 0 || errno != EINTR) {
				close(*f);
				*f = -1;
			}
		}
		if (over)
			break;
	}
	if (po[0] >= 0 || pe[0] >= 0)
		kill(-pid, SIGKILL);
	if (po[0] >= 0)
		close(po[0]);
	if (pe[0] >= 0)
		close(pe[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			st = 0;
			break;
		}
	/* whatever it left in its process group goes with it */
	kill(-pid, SIGKILL);
	rt_buf_str(out);
	rt_buf_str(err);
	if (timed) {
		snprintf(why, whysize, "%s timed out after %ld s "
		    "(RETRIAL_GUARD_TIMEOUT)", name, timeout);
		return -1;
	}
	if (over) {
		snprintf(why, whysize, "%s printed over %lu MiB", name, OUT_MAX >> 20);
		return -1;
	}
	if (rt_stop_signal) {
		snprintf(why, whysize, "%s: interrupted", name);
		return -1;
	}
	if (WIFSIGNALED(st)) {
		snprintf(why, whysize, "%s was killed by signal %d%s", name,
		    WTERMSIG(st), WTERMSIG(st) == SIGKILL || WTERMSIG(st) == SIGSEGV ?
		    " (out of memory or a crash)" : "");
		return -1;
	}
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 2;
	return 0;
}

/* ---- the helpers ---- */

/* python, python3, python3.11, pypy3, ... */
/* Run a helper in aroot with the guard's limits: -1 when it could not be
 * run (why says so), else its exit status; a non-zero one is put in why as
 * "LABEL exited N: its complaint". Its stderr is left in err. */
static int
run_checked(const char *exe, char *const av[], const char *aroot, rt_buf *out,
    rt_buf *err, const char *label, char *why, size_t whysize)
{
	const rt_sandbox *sb = rt_sandbox_helper();
	char **ro, **box;
	size_t n = 0, i;
	int status = 0, r;
	char *c;

	/* confined: the files it reads, read-only; nothing else it can
	 * write, no network; a patch's code in a parser runs there too */
	for (i = 0; av[i]; i++)
		;
	ro = rt_xcalloc(i + 3, sizeof *ro);
	ro[n++] = (char *)aroot;
	ro[n++] = (char *)exe;
	for (i = 0; av[i]; i++)
		if (av[i][0] == '/')
			ro[n++] = av[i];
	box = rt_sandbox_helper_argv(sb, aroot, ro, exe, av);
	free(ro);
	r = run_named(av[0], box ? box[0] : exe, box ? box : av, aroot, environ,
	    guard_timeout(), MEM_MAX, out, err, &status, why, whysize);
	rt_free_vec(box);
	if (r < 0)
		return -1;
	if (box && status > 128 && status < 128 + 65) {
		/* bwrap passes on a signal's death as 128 + the signal */
		snprintf(why, whysize, "%s was killed by signal %d%s", av[0],
		    status - 128, status - 128 == SIGKILL || status - 128 == SIGSEGV ?
		    " (out of memory or a crash)" : "");
		return -1;
	}
	if (status != 0) {
		c = rt_proc_complaint(rt_buf_str(err));
		snprintf(why, whysize, "%s exited %d: %s", label, status, c);
		free(c);
	}
	return status;
}

static int
is_python(const char *b)
{
	if (!strncmp(b, "python", 6))
		b += 6;
	else if (!strncmp(b, "pypy", 4))
		b += 4;
	else
		return 0;
	return strspn(b, "0123456789.") == strlen(b);
}

/* The Python interpreter a command runs ("python3 -m pytest", ".venv/bin/
 * python -m unittest", "uv run python ..."), relative ones below root;
 * "python3" when it names none. */
static char *
python_of(const char *command, char *const *argv, const char *root)
{
	char *w[256], *res = NULL;
	size_t n = 0, i;
	const char *b;

	if (command)
		n = rt_cmd_split(command, w, sizeof w / sizeof *w);
	else
		for (; argv && argv[n] && n < sizeof w / sizeof *w; n++)
			w[n] = rt_xstrdup(argv[n]);
	for (i = 0; i < n && !res; i++) {
		b = strrchr(w[i], '/');
		b = b ? b + 1 : w[i];
		if (!is_python(b))
			continue;
		if (strchr(w[i], '/') && w[i][0] != '/')
			res = rt_xasprintf("%s/%s", root, w[i]);
		else
			res = rt_xstrdup(w[i]);
	}
	for (i = 0; i < n; i++)
		free(w[i]);
	return res ? res : rt_xstrdup("python3");
}

static char *
cache_dir(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	const char *c = getenv("RETRIAL_HELPER_CACHE");

	/* a CI cache directory, or one build shared by a test run */
	if (c && c[0] == '/')
		return rt_xstrdup(c);
	if (x && x[0] == '/')
		return rt_xasprintf("%s/retrial", x);
	if (h && *h)
		return rt_xasprintf("%s/.cache/retrial", h);
	return NULL;
}

/* dir as a place only we can write: a directory (not a link), ours, not
 * writable by group or others (made 0700 when it is ours but looser). 0,
 * or -1 with why. */
static int
private_dir(const char *dir, char *why, size_t whysize)
{
	struct stat st;

	if (rt_mkdir_p(dir, 0700) < 0 || lstat(dir, &st) < 0) {
		snprintf(why, whysize, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		snprintf(why, whysize, "%s: not a directory of uid %ld's own (a link, "
		    "or another user's): the go helper is not kept there", dir,
		    (long)geteuid());
		return -1;
	}
	if ((st.st_mode & 077) && chmod(dir, 0700) < 0) {
		snprintf(why, whysize, "chmod %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* The bytes of path (no link followed) when it is a regular file of ours
 * that group and others cannot write; NULL otherwise. */
static char *
read_ours(const char *path, size_t *len)
{
	struct stat st;
	rt_buf b = { 0 };
	char buf[65536];
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || st.st_size > (off_t)(256L << 20)) {
		close(fd);
		return NULL;
	}
	while ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			rt_buf_add(&b, buf, (size_t)n);
	close(fd);
	if (n < 0) {
		rt_buf_free(&b);
		return NULL;
	}
	*len = b.len;
	rt_buf_str(&b);
	return b.data;
}

/* The verified helper of this process: a private copy, never the cache's
 * file itself, which anything running as us could rewrite after the
 * check. */
static char *priv_dir, *priv_exe;

static void
priv_remove(void)
{
	if (priv_exe)
		unlink(priv_exe);
	if (priv_dir)
		rmdir(priv_dir);
}

/* Write the verified bytes to this process's private copy: its path
 * (malloc'd), or NULL with why. */
static char *
priv_copy(const char *bytes, size_t len, char *why, size_t whysize)
{
	const char *td = getenv("TMPDIR");
	int fd;
	ssize_t w;
	size_t off = 0;

	if (!priv_dir) {
		char *d = rt_xasprintf("%s/rt-helper.XXXXXX", td && td[0] == '/' ? td : "/tmp");
		if (!mkdtemp(d)) {
			snprintf(why, whysize, "%s: %s", d, strerror(errno));
			free(d);
			return NULL;
		}
		priv_dir = d;
		priv_exe = rt_xasprintf("%s/inventory-go", d);
		atexit(priv_remove);
	}
	unlink(priv_exe);
	if ((fd = open(priv_exe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0700)) < 0) {
		snprintf(why, whysize, "%s: %s", priv_exe, strerror(errno));
		return NULL;
	}
	while (off < len) {
		if ((w = write(fd, bytes + off, len - off)) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(why, whysize, "%s: %s", priv_exe, strerror(errno));
			close(fd);
			unlink(priv_exe);
			return NULL;
		}
		off += (size_t)w;
	}
	if (close(fd) < 0) {
		snprintf(why, whysize, "%s: %s", priv_exe, strerror(errno));
		unlink(priv_exe);
		return NULL;
	}
	return rt_xstrdup(priv_exe);
}

/* The cached binary exe when its SHA-256 is the one recorded in rec at
 * build time (both files ours, not links, not writable by others): its
 * bytes, else NULL (missing, planted or changed: rebuild). */
static char *
verified(const char *exe, const char *rec, size_t *len)
{
	char *bytes, *want, hex[65];
	size_t wlen;

	if (!(want = read_ours(rec, &wlen)))
		return NULL;
	if (!(bytes = read_ours(exe, len))) {
		free(want);
		return NULL;
	}
	rt_sha256_hex(bytes, *len, hex);
	if (wlen < 64 || memcmp(want, hex, 64) != 0) {
		free(bytes);
		bytes = NULL;
	}
	free(want);
	return bytes;
}

/* The Go helper, built from share/retrial/inventory-go with the go on
 * PATH once per source and toolchain, into a cache directory only we can
 * write, its SHA-256 recorded beside it; before each use the binary is
 * checked against that record (rebuilt when they differ) and run from a
 * private copy. Its path, or NULL (why says: no source or no go -> *nop =
 * 1; a failed build -> 0). */
static char *
go_helper(int *nop, char *why, size_t whysize)
{
	const char *share = rt_sharedir();
	char *src = rt_xasprintf("%s/inventory-go", share), *main_go, *mod;
	char *go, *dir = NULL, *exe = NULL, *rec = NULL, *tmp = NULL, *text, hex[65];
	char *bytes = NULL, *res = NULL;
	char *vargv[] = { "go", "version", NULL };
	const char *set[] = { "GOTOOLCHAIN=local", "GOPROXY=off", "GOWORK=off",
		"GOFLAGS=-mod=mod", "CGO_ENABLED=0", NULL };
	char **envp = NULL;
	rt_buf out = { 0 }, err = { 0 };
	rt_hash *h;
	size_t len;
	int status, fd;
	struct stat sb;

	*nop = 0;
	main_go = rt_xasprintf("%s/main.go", src);
	mod = rt_xasprintf("%s/go.mod", src);
	go = find_exe("go");
	if (stat(main_go, &sb) < 0 || !go) {
		*nop = 1;
		snprintf(why, whysize, "no parser for go (%s)", go ? "no helper "
		    "source in share/retrial/inventory-go" : "no go on PATH");
		goto done;
	}
	envp = rt_env_with(set);
	if (run_helper(go, vargv, NULL, envp, guard_timeout(), 0, &out, &err,
	    &status, why, whysize) < 0)
		goto done;
	if (status != 0) {
		snprintf(why, whysize, "go version: exit %d", status);
		goto done;
	}
	h = rt_hash_new();
	rt_hash_adds(h, rt_buf_str(&out));
	/* every source of the helper: a change to any rebuilds it */
	for (int i = 0; i < 3; i++) {
		char *fixgo = rt_xasprintf("%s/fix.go", src);
		text = rt_read_file(i == 0 ? main_go : i == 1 ? mod : fixgo, &len);
		rt_hash_add(h, text ? text : "", text ? len : 0);
		free(text);
		free(fixgo);
	}
	rt_hash_hex(h, hex);
	if (!(dir = cache_dir())) {
		snprintf(why, whysize, "no cache directory for the go helper "
		    "(neither XDG_CACHE_HOME nor HOME is set)");
		goto done;
	}
	if (private_dir(dir, why, whysize) < 0)
		goto done;
	exe = rt_xasprintf("%s/inventory-go-%.16s", dir, hex);
	rec = rt_xasprintf("%s/inventory-go-%.16s.sha256", dir, hex);
	if ((bytes = verified(exe, rec, &len)))
		goto copy;
	/* build into a temporary, then rename: concurrent builds are fine */
	tmp = rt_xasprintf("%s/.inventory-go-%.16s.XXXXXX", dir, hex);
	if ((fd = mkstemp(tmp)) < 0) {
		snprintf(why, whysize, "%s: %s", tmp, strerror(errno));
		goto done;
	}
	close(fd);
	{
		char *bargv[] = { "go", "build", "-trimpath", "-o", tmp, ".", NULL };
		/* a build cache of retrial's own: the user's GOCACHE (often under
		 * a HOME that a sandbox keeps read-only) is not touched */
		char *gocache = rt_xasprintf("GOCACHE=%s/go-build", dir);
		const char *bset[] = { "GOTOOLCHAIN=local", "GOPROXY=off", "GOWORK=off",
			"GOFLAGS=-mod=mod", "CGO_ENABLED=0", gocache, NULL };
		free(envp);
		envp = rt_env_with(bset);
		rt_buf_free(&out);
		rt_buf_free(&err);
		memset(&out, 0, sizeof out);
		memset(&err, 0, sizeof err);
		int br = run_helper(go, bargv, src, envp, 10 * guard_timeout(), 0, &out,
		    &err, &status, why, whysize);
		free(envp);
		envp = NULL;
		free(gocache);
		if (br < 0 || status != 0) {
			if (status != 0) {
				char *c = rt_proc_complaint(rt_buf_str(&err));
				snprintf(why, whysize, "go build of %s: exit %d: %s", src,
				    status, c);
				free(c);
			}
			unlink(tmp);
			goto done;
		}
	}
	if (chmod(tmp, 0700) < 0 || !(bytes = read_ours(tmp, &len))) {
		snprintf(why, whysize, "%s: %s", tmp, strerror(errno));
		unlink(tmp);
		goto done;
	}
	/* the record first: a binary is only ever used with its hash */
	{
		char bh[65];
		rt_sha256_hex(bytes, len, bh);
		bh[64] = '\n';
		if (rt_write_file_atomic(rec, bh, 65) < 0 || rename(tmp, exe) < 0) {
			snprintf(why, whysize, "%s: %s", exe, strerror(errno));
			unlink(tmp);
			goto done;
		}
	}
copy:
	res = priv_copy(bytes, len, why, whysize);
done:
	rt_buf_free(&out);
	rt_buf_free(&err);
	free(envp);
	free(tmp);
	free(dir);
	free(go);
	free(main_go);
	free(mod);
	free(src);
	free(exe);
	free(rec);
	free(bytes);
	return res;
}

int
rt_src_inventory(const char *lang, const char *root, const char *trusted,
    char *const *files, size_t nfiles, const char *command, char *const *argv,
    rt_src_inv *inv, char *why, size_t whysize)
{
	const char *env = NULL;
	char *exe = NULL, *script = NULL, *interp = NULL, **av, *aroot, *t;
	char *atrusted = NULL;
	rt_buf out = { 0 }, err = { 0 };
	size_t n = 0, i;
	int status = 0, r = RT_SRC_FAILED, nop = 0;
	struct stat sb;

	memset(inv, 0, sizeof *inv);
	av = rt_xcalloc(nfiles + 10, sizeof *av);
	/* absolute: the helper runs in root */
	if (!(aroot = realpath(root, NULL))) {
		snprintf(why, whysize, "%s: %s", root, strerror(errno));
		free(av);
		return RT_SRC_FAILED;
	}
	if (!strcmp(lang, "python"))
		env = getenv("RETRIAL_INVENTORY_PY");
	else if (!strcmp(lang, "go"))
		env = getenv("RETRIAL_INVENTORY_GO");
	else if (!strcmp(lang, "javascript"))
		env = getenv("RETRIAL_INVENTORY_JS");
	else {
		snprintf(why, whysize, "no parser for %s", lang);
		r = RT_SRC_NO_PARSER;
		goto done;
	}
	if (env && *env) {
		if (!(exe = find_exe(env))) {
			snprintf(why, whysize, "%s: no such helper", env);
			goto done;
		}
		av[n++] = (char *)env;
	} else if (!strcmp(lang, "python")) {
		t = rt_xasprintf("%s/rt-inventory.py", rt_sharedir());
		script = realpath(t, NULL);
		free(t);
		if (!script) {
			snprintf(why, whysize, "no share/retrial/rt-inventory.py in %s",
			    rt_sharedir());
			goto done;
		}
		/* the interpreter of the original project, never of a patched copy */
		interp = python_of(command, argv, trusted ? trusted : root);
		if (!(exe = find_exe(interp))) {
			snprintf(why, whysize, "no parser for python (%s not found)", interp);
			r = RT_SRC_NO_PARSER;
			goto done;
		}
		av[n++] = interp;
		av[n++] = "-I";     /* no PYTHON* variables, no user site, no cwd */
		av[n++] = "-S";
		av[n++] = script;
	} else if (!strcmp(lang, "go")) {
		if (!(exe = go_helper(&nop, why, whysize))) {
			r = nop ? RT_SRC_NO_PARSER : RT_SRC_FAILED;
			goto done;
		}
		av[n++] = exe;
	} else {
		t = rt_xasprintf("%s/rt-inventory.js", rt_sharedir());
		script = realpath(t, NULL);
		free(t);
		if (!script || stat(script, &sb) < 0 || !(exe = find_exe("node"))) {
			snprintf(why, whysize, "no parser for javascript (%s)",
			    exe ? "no share/retrial/rt-inventory.js" : "no node on PATH");
			r = RT_SRC_NO_PARSER;
			goto done;
		}
		av[n++] = "node";
		av[n++] = script;
	}
	av[n++] = "--root";
	av[n++] = aroot;
	if (!strcmp(lang, "javascript") && !(env && *env) && trusted) {
		/* the parser from the original project: a patch cannot bring one */
		if (!(atrusted = realpath(trusted, NULL))) {
			snprintf(why, whysize, "%s: %s", trusted, strerror(errno));
			goto done;
		}
		av[n++] = "--parser-root";
		av[n++] = atrusted;
	}
	for (i = 0; i < nfiles; i++)
		av[n++] = files[i];
	av[n] = NULL;
	t = rt_xasprintf("the %s parser helper", lang);
	status = run_checked(exe, av, aroot, &out, &err, t, why, whysize);
	free(t);
	if (status == 3 && !strcmp(lang, "javascript")) {
		char *c = rt_proc_complaint(rt_buf_str(&err));
		snprintf(why, whysize, "no parser for javascript (%s)", c);
		free(c);
		r = RT_SRC_NO_PARSER;
		goto done;
	}
	if (status != 0)
		goto done;
	if (rt_src_parse(rt_buf_str(&out), out.len, inv, why, whysize) < 0) {
		char *c = rt_xstrdup(why);
		snprintf(why, whysize, "the %s parser helper: %s", lang, c);
		free(c);
		rt_src_inv_free(inv);
		goto done;
	}
	r = RT_SRC_OK;
done:
	rt_buf_free(&out);
	rt_buf_free(&err);
	free(exe);
	free(aroot);
	free(atrusted);
	free(script);
	free(interp);
	free(av);
	return r;
}

/* ---- reading the JSON ---- */

static char *
str_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return rt_xstrdup(json_is_string(v) ? json_string_value(v) : "");
}

static long
long_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (long)json_integer_value(v) : 0;
}

static char **
strings_of(json_t *a, size_t *n)
{
	char **v;
	size_t i;

	*n = json_is_array(a) ? json_array_size(a) : 0;
	v = rt_xcalloc(*n + 1, sizeof *v);
	for (i = 0; i < *n; i++) {
		json_t *s = json_array_get(a, i);
		v[i] = rt_xstrdup(json_is_string(s) ? json_string_value(s) : "");
	}
	return v;
}

static int
read_check(json_t *o, rt_src_check *c, char *why, size_t whysize)
{
	json_t *v, *opts, *gb;
	const char *k;
	size_t i;

	if (!json_is_object(o) || !json_is_string(json_object_get(o, "kind")) ||
	    !json_is_integer(json_object_get(o, "line"))) {
		snprintf(why, whysize, "a check without kind or line");
		return -1;
	}
	c->kind = str_of(o, "kind");
	c->callee = str_of(o, "callee");
	c->op = str_of(o, "op");
	c->text = str_of(o, "text");
	c->source = str_of(o, "source");
	c->local = str_of(o, "local");
	if (!*c->local) {
		free(c->local);
		c->local = NULL;
	}
	if (!*c->source) {
		free(c->source);
		c->source = rt_xstrdup(c->text);
	}
	c->line = long_of(o, "line");
	c->end = long_of(o, "end");
	if (c->end < c->line)
		c->end = c->line;
	c->operands = strings_of(json_object_get(o, "operands"), &c->noperands);
	v = json_object_get(o, "expected");
	c->expected = json_is_integer(v) && json_integer_value(v) >= 0 &&
	    (size_t)json_integer_value(v) < c->noperands ?
	    (int)json_integer_value(v) : -1;
	opts = json_object_get(o, "options");
	c->nopt = json_is_object(opts) ? json_object_size(opts) : 0;
	c->optk = rt_xcalloc(c->nopt + 1, sizeof *c->optk);
	c->optv = rt_xcalloc(c->nopt + 1, sizeof *c->optv);
	i = 0;
	if (c->nopt)
		json_object_foreach(opts, k, v) {
			c->optk[i] = rt_xstrdup(k);
			c->optv[i] = json_is_string(v) ? rt_xstrdup(json_string_value(v)) :
			    json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
			if (!c->optv[i])
				c->optv[i] = rt_xstrdup("");
			i++;
		}
	v = json_object_get(o, "guarded");
	c->guarded = json_is_string(v) && *json_string_value(v) ?
	    rt_xstrdup(json_string_value(v)) : NULL;
	gb = json_object_get(o, "guarded_by");
	if (json_is_object(gb)) {
		c->guard_line = long_of(gb, "line");
		c->guard_text = str_of(gb, "text");
	}
	gb = json_object_get(o, "dead");
	if (json_is_object(gb) && long_of(gb, "line") > 0) {
		c->dead_line = long_of(gb, "line");
		c->dead_text = str_of(gb, "text");
	}
	c->uses = strings_of(json_object_get(o, "uses"), &c->nuses);
	return 0;
}

static void
check_free(rt_src_check *c)
{
	size_t i;

	free(c->kind);
	free(c->callee);
	free(c->op);
	free(c->text);
	free(c->source);
	for (i = 0; i < c->noperands; i++)
		free(c->operands[i]);
	free(c->operands);
	for (i = 0; i < c->nopt; i++) {
		free(c->optk[i]);
		free(c->optv[i]);
	}
	free(c->optk);
	free(c->optv);
	free(c->guarded);
	free(c->guard_text);
	free(c->local);
	free(c->dead_text);
	for (i = 0; i < c->nuses; i++)
		free(c->uses[i]);
	free(c->uses);
}

int
rt_src_parse(const char *text, size_t len, rt_src_inv *inv, char *why,
    size_t whysize)
{
	json_error_t e;
	json_t *root, *files, *fo, *fns, *fn, *checks, *err;
	size_t i, j, k;

	memset(inv, 0, sizeof *inv);
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
	if (!root) {
		snprintf(why, whysize, "invalid JSON at line %d: %s", e.line, e.text);
		return -1;
	}
	files = json_object_get(root, "files");
	if (!json_is_object(root) || json_integer_value(json_object_get(root,
	    "version")) != 1 || !json_is_array(files)) {
		snprintf(why, whysize, "not an inventory (version 1 with files)");
		json_decref(root);
		return -1;
	}
	inv->lang = str_of(root, "lang");
	inv->parser = str_of(root, "parser");
	inv->nfiles = json_array_size(files);
	inv->files = rt_xcalloc(inv->nfiles + 1, sizeof *inv->files);
	json_array_foreach(files, i, fo) {
		rt_src_file *f = &inv->files[i];
		if (!json_is_object(fo) || !json_is_string(json_object_get(fo, "path"))) {
			snprintf(why, whysize, "file %zu has no path", i + 1);
			goto bad;
		}
		f->path = str_of(fo, "path");
		err = json_object_get(fo, "error");
		if (json_is_object(err)) {
			f->error = 1;
			f->err_line = long_of(err, "line");
			f->err_col = long_of(err, "col");
			f->err_msg = str_of(err, "message");
			f->limit = json_is_true(json_object_get(err, "limit"));
		}
		fns = json_object_get(fo, "functions");
		f->nfns = json_is_array(fns) ? json_array_size(fns) : 0;
		f->fns = rt_xcalloc(f->nfns + 1, sizeof *f->fns);
		for (j = 0; j < f->nfns; j++) {
			rt_src_fn *g = &f->fns[j];
			fn = json_array_get(fns, j);
			if (!json_is_object(fn) || !json_is_string(json_object_get(fn, "name"))) {
				snprintf(why, whysize, "%s: function %zu has no name", f->path, j + 1);
				goto bad;
			}
			g->name = str_of(fn, "name");
			g->line = long_of(fn, "line");
			g->end = long_of(fn, "end");
			g->test = json_is_true(json_object_get(fn, "test"));
			g->calls = strings_of(json_object_get(fn, "calls"), &g->ncalls);
			checks = json_object_get(fn, "checks");
			g->nchecks = json_is_array(checks) ? json_array_size(checks) : 0;
			g->checks = rt_xcalloc(g->nchecks + 1, sizeof *g->checks);
			for (k = 0; k < g->nchecks; k++)
				if (read_check(json_array_get(checks, k), &g->checks[k], why,
				    whysize) < 0) {
					char *c = rt_xstrdup(why);
					snprintf(why, whysize, "%s: %s: %s", f->path, g->name, c);
					free(c);
					g->nchecks = k + 1;
					goto bad;
				}
		}
	}
	json_decref(root);
	return 0;
bad:
	json_decref(root);
	return -1;
}

void
rt_src_inv_free(rt_src_inv *inv)
{
	size_t i, j, k;

	for (i = 0; inv->files && i < inv->nfiles; i++) {
		rt_src_file *f = &inv->files[i];
		for (j = 0; f->fns && j < f->nfns; j++) {
			rt_src_fn *g = &f->fns[j];
			for (k = 0; g->checks && k < g->nchecks; k++)
				check_free(&g->checks[k]);
			free(g->checks);
			for (k = 0; k < g->ncalls; k++)
				free(g->calls[k]);
			free(g->calls);
			free(g->name);
		}
		free(f->fns);
		free(f->path);
		free(f->err_msg);
	}
	free(inv->files);
	free(inv->lang);
	free(inv->parser);
	memset(inv, 0, sizeof *inv);
}

const rt_src_file *
rt_src_file_find(const rt_src_inv *inv, const char *path)
{
	size_t i;

	for (i = 0; inv && i < inv->nfiles; i++)
		if (inv->files[i].path && !strcmp(inv->files[i].path, path))
			return &inv->files[i];
	return NULL;
}

const rt_src_fn *
rt_src_fn_find(const rt_src_file *f, const char *name)
{
	size_t i;

	for (i = 0; f && i < f->nfns; i++)
		if (!strcmp(f->fns[i].name, name))
			return &f->fns[i];
	return NULL;
}

/* The inventory's name of the test the ID's name part names: pytest's
 * "Class::test[p]" is "Class.test"; jest's "describe test" matches
 * "describe > test" with its separators read as blanks. */
static int
fn_names_test(const rt_src_fn *f, const char *lang, const char *name)
{
	const char *a = f->name, *b = name;

	if (!strcmp(lang, "python")) {
		for (; *a && *b && *b != '['; a++, b++) {
			if (*b == ':' && b[1] == ':' && *a == '.')
				b++;
			else if (*a != *b)
				return 0;
		}
		return !*a && (!*b || *b == '[');
	}
	if (!strcmp(f->name, name))
		return 1;
	while (*a && *b) {
		if (!strncmp(a, " > ", 3) && *b == ' ')
			a += 3, b++;
		else if (*a++ != *b++)
			return 0;
	}
	return !*a && !*b;
}

void
rt_src_test_def(const char *root, const char *id, char **file, long *line)
{
	const char *sep = strstr(id, "::"), *lang;
	char *path, *files[1], why[512];
	struct stat st;
	rt_src_inv inv;
	size_t i;
	int ok;

	*file = NULL;
	*line = 0;
	if (!sep || sep == id)
		return;
	files[0] = rt_xasprintf("%.*s", (int)(sep - id), id);
	path = rt_xasprintf("%s/%s", root, files[0]);
	ok = stat(path, &st) == 0 && S_ISREG(st.st_mode);
	free(path);
	if (!ok) {
		free(files[0]);
		return;
	}
	*file = files[0];
	if (!(lang = rt_src_lang(*file)) || rt_src_inventory(lang, root, NULL, files, 1,
	    NULL, NULL, &inv, why, sizeof why) != RT_SRC_OK)
		return;
	for (i = 0; inv.nfiles == 1 && !inv.files[0].error && i < inv.files[0].nfns; i++)
		if (inv.files[0].fns[i].test && fn_names_test(&inv.files[0].fns[i], lang,
		    sep + 2)) {
			*line = inv.files[0].fns[i].line;
			break;
		}
	rt_src_inv_free(&inv);
}

const char *
rt_src_option(const rt_src_check *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->nopt; i++)
		if (!strcmp(c->optk[i], key))
			return c->optv[i];
	return NULL;
}

/* ---- comparing ---- */

static int
family(const rt_src_check *c)
{
	if (!strcmp(c->kind, "raises"))
		return 1;
	if (!strcmp(c->kind, "skip"))
		return 2;
	if (!strcmp(c->kind, "return"))
		return 3;
	if (!strcmp(c->kind, "fail"))
		return 4;
	return 0;
}

static int
same_guard(const rt_src_check *a, const rt_src_check *b)
{
	return !a->guarded == !b->guarded && !a->dead_line == !b->dead_line;
}

/* What a check compares, its message aside. */
static int
same_core(const rt_src_check *a, const rt_src_check *b)
{
	size_t i;

	if (strcmp(a->kind, b->kind) || strcmp(a->callee, b->callee) ||
	    strcmp(a->op, b->op) || a->noperands != b->noperands)
		return 0;
	for (i = 0; i < a->noperands; i++)
		if (strcmp(a->operands[i], b->operands[i]))
			return 0;
	for (i = 0; i < a->nopt; i++) {
		const char *v = rt_src_option(b, a->optk[i]);
		if (strcmp(a->optk[i], "msg") && (!v || strcmp(v, a->optv[i])))
			return 0;
	}
	for (i = 0; i < b->nopt; i++)
		if (strcmp(b->optk[i], "msg") && !rt_src_option(a, b->optk[i]))
			return 0;
	return 1;
}

static int
counts(const rt_src_fn *fn, const rt_src_check *c)
{
	return fn->test || strcmp(c->kind, "return") != 0;
}

struct changes { rt_src_change *v; size_t n, cap; };

static void
push(struct changes *s, const char *what, const rt_src_fn *bfn,
    const rt_src_fn *afn, const rt_src_check *b, const rt_src_check *a)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = rt_xrealloc(s->v, s->cap * sizeof *s->v);
	}
	s->v[s->n].change = what;
	s->v[s->n].bfn = bfn;
	s->v[s->n].afn = afn;
	s->v[s->n].before = b;
	s->v[s->n].after = a;
	s->n++;
}

static void
compare_fn(const rt_src_fn *bf, const rt_src_fn *af, struct changes *s)
{
	size_t nb = bf ? bf->nchecks : 0, na = af ? af->nchecks : 0, i, j;
	char *ub = rt_xcalloc(nb + 1, 1), *ua = rt_xcalloc(na + 1, 1);
	int pass, fam;

	for (i = 0; i < nb; i++)
		ub[i] = !counts(bf, &bf->checks[i]);
	for (j = 0; j < na; j++)
		ua[j] = !counts(af, &af->checks[j]);
	/* the same check, moved or not: by its text, then by what it compares */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < nb; i++) {
			if (ub[i])
				continue;
			for (j = 0; j < na; j++) {
				const rt_src_check *b = &bf->checks[i], *a = &af->checks[j];
				if (ua[j] || !same_guard(a, b))
					continue;
				if (pass == 0 ? strcmp(a->text, b->text) == 0 : same_core(a, b)) {
					push(s, "same", bf, af, b, a);
					ub[i] = ua[j] = 1;
					break;
				}
			}
		}
	/* what is left, paired in order within a family */
	for (fam = 0; fam < 5; fam++) {
		i = j = 0;
		for (;;) {
			while (i < nb && (ub[i] || family(&bf->checks[i]) != fam))
				i++;
			while (j < na && (ua[j] || family(&af->checks[j]) != fam))
				j++;
			if (i >= nb || j >= na)
				break;
			push(s, "changed", bf, af, &bf->checks[i], &af->checks[j]);
			ub[i++] = ua[j++] = 1;
		}
	}
	for (i = 0; i < nb; i++)
		if (!ub[i])
			push(s, "removed", bf, af, &bf->checks[i], NULL);
	for (j = 0; j < na; j++)
		if (!ua[j])
			push(s, "added", bf, af, NULL, &af->checks[j]);
	free(ub);
	free(ua);
}

size_t
rt_src_compare(const rt_src_file *before, const rt_src_file *after,
    rt_src_change **out)
{
	struct changes s = { 0 };
	size_t i;

	for (i = 0; before && i < before->nfns; i++)
		compare_fn(&before->fns[i], rt_src_fn_find(after, before->fns[i].name), &s);
	for (i = 0; after && i < after->nfns; i++)
		if (!rt_src_fn_find(before, after->fns[i].name))
			compare_fn(NULL, &after->fns[i], &s);
	*out = s.v;
	return s.n;
}

/* ---- other shipped Python helpers ---- */

int
rt_src_python_helper(const char *script, const char *root, const char *command,
    char *const *argv, char *const *args, rt_buf *out, char *why, size_t whysize)
{
	char *t, *path, *interp, *exe = NULL, *aroot, **av;
	rt_buf err = { 0 };
	size_t n = 0, i, nargs = 0;
	int r = RT_SRC_FAILED;

	while (args && args[nargs])
		nargs++;
	t = rt_xasprintf("%s/%s", rt_sharedir(), script);
	path = realpath(t, NULL);
	free(t);
	if (!path) {
		snprintf(why, whysize, "no share/retrial/%s in %s", script, rt_sharedir());
		return RT_SRC_FAILED;
	}
	if (!(aroot = realpath(root, NULL))) {
		snprintf(why, whysize, "%s: %s", root, strerror(errno));
		free(path);
		return RT_SRC_FAILED;
	}
	interp = python_of(command, argv, aroot);
	av = rt_xcalloc(nargs + 8, sizeof *av);
	if (!(exe = find_exe(interp))) {
		snprintf(why, whysize, "no parser for python (%s not found)", interp);
		r = RT_SRC_NO_PARSER;
		goto done;
	}
	av[n++] = interp;
	av[n++] = "-I";
	av[n++] = "-S";
	av[n++] = path;
	av[n++] = "--root";
	av[n++] = aroot;
	for (i = 0; i < nargs; i++)
		av[n++] = args[i];
	av[n] = NULL;
	if (run_checked(exe, av, aroot, out, &err, script, why, whysize) == 0)
		r = RT_SRC_OK;
done:
	rt_buf_free(&err);
	free(exe);
	free(interp);
	free(aroot);
	free(path);
	free(av);
	return r;
}

int
rt_src_node_helper(const char *script, const char *root, const char *trusted,
    char *const *args, rt_buf *out, char *why, size_t whysize)
{
	char *exe, *path, *t, *aroot, *atrusted, **av;
	rt_buf err = { 0 };
	size_t n = 0, i, nargs = 0;
	int r = RT_SRC_FAILED;

	while (args && args[nargs])
		nargs++;
	t = rt_xasprintf("%s/%s", rt_sharedir(), script);
	path = realpath(t, NULL);
	free(t);
	if (!path) {
		snprintf(why, whysize, "no share/retrial/%s in %s", script, rt_sharedir());
		return RT_SRC_FAILED;
	}
	if (!(exe = find_exe("node"))) {
		snprintf(why, whysize, "no node on PATH");
		free(path);
		return RT_SRC_NO_PARSER;
	}
	aroot = realpath(root, NULL);
	atrusted = realpath(trusted ? trusted : root, NULL);
	if (!aroot || !atrusted) {
		snprintf(why, whysize, "%s: %s", root, strerror(errno));
		goto done;
	}
	av = rt_xcalloc(nargs + 8, sizeof *av);
	av[n++] = "node";
	av[n++] = path;
	av[n++] = "--root";
	av[n++] = aroot;
	/* the parser from the original project: a patch cannot bring one */
	av[n++] = "--parser-root";
	av[n++] = atrusted;
	for (i = 0; i < nargs; i++)
		av[n++] = args[i];
	av[n] = NULL;
	if (run_checked(exe, av, aroot, out, &err, script, why, whysize) == 0)
		r = RT_SRC_OK;
	free(av);
done:
	rt_buf_free(&err);
	free(aroot);
	free(atrusted);
	free(exe);
	free(path);
	return r;
}

int
rt_src_go_helper(const char *root, char *const *args, rt_buf *out, char *why,
    size_t whysize)
{
	char *exe, *aroot, **av;
	rt_buf err = { 0 };
	size_t n = 0, i, nargs = 0;
	int r = RT_SRC_FAILED, nop = 0;

	while (args && args[nargs])
		nargs++;
	if (!(aroot = realpath(root, NULL))) {
		snprintf(why, whysize, "%s: %s", root, strerror(errno));
		return RT_SRC_FAILED;
	}
	if (!(exe = go_helper(&nop, why, whysize))) {
		free(aroot);
		return nop ? RT_SRC_NO_PARSER : RT_SRC_FAILED;
	}
	av = rt_xcalloc(nargs + 4, sizeof *av);
	av[n++] = exe;
	for (i = 0; i < nargs && args[i][0] == '-'; i++)
		av[n++] = args[i];
	av[n++] = "--root";
	av[n++] = aroot;
	for (; i < nargs; i++)
		av[n++] = args[i];
	av[n] = NULL;
	if (run_checked(exe, av, aroot, out, &err, "the go helper", why, whysize) == 0)
		r = RT_SRC_OK;
	rt_buf_free(&err);
	free(exe);
	free(aroot);
	free(av);
	return r;
}

/* ---- the build check of a patch ---- */

/* a build of the stdlib on a cold cache takes a while on a busy machine */
#define BUILD_TIMEOUT 300

int
rt_src_build(const char *dir, const rt_runner *r, const char *rel, char **cmd,
    char *why, size_t whysize)
{
	const char *const *w;
	char **av, **env, *exe, *d, *line;
	size_t n = 0, ne = 0, i, k;
	rt_buf out = { 0 }, err = { 0 };
	int status = 0, rc;

	*cmd = NULL;
	for (w = r->build_argv; w && *w; w++)
		n++;
	if (n == 0) {
		snprintf(why, whysize, "%s: no build command", r->name);
		return -1;
	}
	av = rt_xcalloc(n + 1, sizeof *av);
	d = rt_xstrdup(rel);
	if (strrchr(d, '/'))
		*strrchr(d, '/') = '\0';
	else
		strcpy(d, ".");
	for (i = 0; i < n; i++) {
		/* "./" first: a file name is never an option */
		if (!strcmp(r->build_argv[i], "%s"))
			av[i] = rt_xasprintf("%s%s", rel[0] == '/' ? "" : "./", rel);
		else if (!strcmp(r->build_argv[i], "%d"))
			av[i] = strcmp(d, ".") ? rt_xasprintf("./%s", d) : rt_xstrdup(".");
		else
			av[i] = rt_xstrdup(r->build_argv[i]);
		line = *cmd ? rt_xasprintf("%s %s", *cmd, av[i]) : rt_xstrdup(av[i]);
		free(*cmd);
		*cmd = line;
	}
	free(d);
	/* the caller's environment, the build's own settings over it */
	for (i = 0; environ[i]; i++)
		ne++;
	for (w = r->build_env; w && *w; w++)
		ne++;
	env = rt_xcalloc(ne + 1, sizeof *env);
	ne = 0;
	for (i = 0; environ[i]; i++) {
		const char *eq = strchr(environ[i], '=');
		int over = 0;
		for (w = r->build_env; eq && w && *w; w++)
			if (!strncmp(*w, environ[i], (size_t)(eq - environ[i]) + 1))
				over = 1;
		if (!over)
			env[ne++] = environ[i];
	}
	for (w = r->build_env; w && *w; w++)
		env[ne++] = (char *)*w;
	if (!(exe = find_exe(av[0]))) {
		snprintf(why, whysize, "%s: not found on PATH", av[0]);
		rc = -1;
	} else if (run_named(av[0], exe, av, dir, env, BUILD_TIMEOUT, 0, &out, &err,
	    &status, why, whysize) < 0) {
		rc = -1;
	} else if (status != 0) {
		/* the first line that says something: go vet's "# pkg" header
		 * names the package, the next line the error */
		const char *s = err.len ? rt_buf_str(&err) : rt_buf_str(&out), *e;
		while (*s) {
			e = strchr(s, '\n');
			k = e ? (size_t)(e - s) : strlen(s);
			if (k && s[0] != '#' && strspn(s, " \t\r") < k)
				break;
			s += k + (e != NULL);
		}
		k = strcspn(s, "\n");
		snprintf(why, whysize, "%.*s", (int)(k > 400 ? 400 : k), *s ? s :
		    "(it printed nothing)");
		rc = 1;
	} else {
		rc = 0;
	}
	rt_buf_free(&out);
	rt_buf_free(&err);
	free(exe);
	free(env);
	rt_free_vec(av);
	return rc;
}

/* ---- the import check of a Python patch ---- */

/* Run by the interpreter with the directory above the module's top
 * package and the copy's top first on sys.path (pytest's rootdir and
 * "python -m pytest"'s cwd), the names as argv, never in the code: one
 * line on stderr when the import raises. */
static const char import_code[] =
    "import importlib, os, sys, traceback\n"
    "sys.path[0:0] = [sys.argv[1], '.']\n"
    "try:\n"
    "    importlib.import_module(sys.argv[2])\n"
    "except BaseException as e:\n"
    "    tb = [f for f in traceback.extract_tb(e.__traceback__)\n"
    "          if not f.filename.startswith('<')]\n"
    "    rel = lambda f: os.path.relpath(f) if f.startswith(os.getcwd() + os.sep) else f\n"
    "    at = ' (%s:%s)' % (rel(tb[-1].filename), tb[-1].lineno) if tb else ''\n"
    "    if isinstance(e, SyntaxError) and e.filename:\n"
    "        at = ' (%s:%s)' % (rel(e.filename), e.lineno)\n"
    "    msg = ' '.join(str(e).split())\n"
    "    sys.stderr.write('\\n%s: %s%s\\n' % (type(e).__name__, msg, at))\n"
    "    sys.exit(1)\n";

char *
rt_src_module_of(const char *dir, const char *rel, char **base)
{
	char *d = rt_xstrdup(rel), *mod, *s, *t, *ini;
	size_t n = strlen(d);

	*base = NULL;
	if (n < 4 || strcmp(d + n - 3, ".py") != 0) {
		free(d);
		return NULL;
	}
	d[n - 3] = '\0';
	s = strrchr(d, '/');
	mod = rt_xstrdup(s ? s + 1 : d);
	if (!strcmp(mod, "__init__")) {
		free(mod);
		mod = NULL;
	}
	if (s)
		*s = '\0';
	else
		d[0] = '\0';
	/* up through each directory that is a package */
	for (;;) {
		struct stat st;
		if (!d[0])
			break;
		ini = rt_xasprintf("%s/%s/__init__.py", dir, d);
		if (stat(ini, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(ini);
			break;
		}
		free(ini);
		s = strrchr(d, '/');
		t = mod ? rt_xasprintf("%s.%s", s ? s + 1 : d, mod) : rt_xstrdup(s ? s + 1 : d);
		free(mod);
		mod = t;
		if (s)
			*s = '\0';
		else
			d[0] = '\0';
	}
	if (!mod) {
		free(d);
		return NULL;
	}
	*base = d[0] ? rt_xasprintf("./%s", d) : rt_xstrdup(".");
	free(d);
	return mod;
}

int
rt_src_import(const char *dir, const char *trusted, const char *command,
    const char *rel, char **cmd, char *why, size_t whysize)
{
	const rt_sandbox *sb = rt_sandbox_helper();
	char *interp, *exe = NULL, *mod, *base, *av[8], **box = NULL, *ro[3];
	char **env;
	rt_buf out = { 0 }, err = { 0 };
	size_t ne = 0, i;
	int status = 0, rc;

	*cmd = NULL;
	if (!(mod = rt_src_module_of(dir, rel, &base))) {
		snprintf(why, whysize, "%s: no module name", rel);
		return -1;
	}
	/* the project's interpreter, named in the original, never the copy */
	interp = python_of(command, NULL, trusted ? trusted : dir);
	*cmd = rt_xasprintf("%s -B -c 'import importlib; importlib.import_module(\"%s\")'",
	    interp, mod);
	if (!(exe = find_exe(interp))) {
		snprintf(why, whysize, "%s: not found", interp);
		rc = -1;
		goto done;
	}
	av[0] = interp;
	av[1] = "-B";
	av[2] = "-c";
	av[3] = (char *)import_code;
	av[4] = base;
	av[5] = mod;
	av[6] = NULL;
	for (i = 0; environ[i]; i++)
		ne++;
	env = rt_xcalloc(ne + 2, sizeof *env);
	for (ne = i = 0; environ[i]; i++)
		if (strncmp(environ[i], "PYTHONDONTWRITEBYTECODE=", 24) != 0)
			env[ne++] = environ[i];
	env[ne++] = "PYTHONDONTWRITEBYTECODE=1";
	/* confined where bwrap runs, as the parsers are: all read-only, no
	 * network; module-level code runs here */
	ro[0] = (char *)dir;
	ro[1] = exe;
	ro[2] = NULL;
	box = rt_sandbox_helper_argv(sb, dir, ro, exe, av);
	if (run_named(interp, box ? box[0] : exe, box ? box : av, dir, env,
	    BUILD_TIMEOUT, MEM_MAX, &out, &err, &status, why, whysize) < 0) {
		rc = -1;
	} else if (status != 0) {
		/* the last line it printed: the exception, in one line */
		const char *s = rt_buf_str(&err), *l = NULL, *p;
		for (p = s; *p; p += strcspn(p, "\n"), p += *p == '\n')
			if (p[strspn(p, " \t\r")] != '\n' && p[strspn(p, " \t\r")] != '\0')
				l = p;
		size_t k = l ? strcspn(l, "\n") : 0;
		snprintf(why, whysize, "%.*s", (int)(k > 400 ? 400 : k), l ? l :
		    "(it printed nothing)");
		rc = 1;
	} else {
		rc = 0;
	}
	free(env);
done:
	rt_free_vec(box);
	rt_buf_free(&out);
	rt_buf_free(&err);
	free(exe);
	free(interp);
	free(mod);
	free(base);
	return rc;
}
