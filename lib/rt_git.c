/* rt_git: git as the tools' plumbing (rt_git.h) — posix_spawnp with argv
 * only, and a temporary index so the user's own never changes. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rt_git.h"
#include "rt_util.h"

extern char **environ;

int rt_run_verbose;

/* What the temporary index leaves to clean up. */
static char tmp_dir[PATH_MAX], tmp_index[PATH_MAX + 16];

static char *
chomp(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		s[--n] = '\0';
	return s;
}

static void
cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFD);
	if (fl < 0 || fcntl(fd, F_SETFD, fl | FD_CLOEXEC) < 0)
		rt_die("fcntl:");
}

int
rt_run(char *const argv[], const char *const *envset, const char *in, size_t inlen, rt_proc *p)
{
	int pin[2], pout[2], perr[2], rc, st, i;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t def;
	pid_t pid;
	char **env;
	size_t off = 0;
	char buf[8192];

	memset(p, 0, sizeof *p);
	if (rt_run_verbose) {
		fprintf(stderr, "%s: +", rt_progname);
		for (i = 0; argv[i]; i++)
			fprintf(stderr, " %s", argv[i]);
		fputc('\n', stderr);
	}
	if (pipe(pin) < 0 || pipe(pout) < 0 || pipe(perr) < 0)
		rt_die("pipe:");
	cloexec(pin[1]);
	cloexec(pout[0]);
	cloexec(perr[0]);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pin[0], 0);
	posix_spawn_file_actions_adddup2(&fa, pout[1], 1);
	posix_spawn_file_actions_adddup2(&fa, perr[1], 2);
	posix_spawn_file_actions_addclose(&fa, pin[0]);
	posix_spawn_file_actions_addclose(&fa, pout[1]);
	posix_spawn_file_actions_addclose(&fa, perr[1]);
	/* we ignore SIGPIPE; the child must not inherit that */
	posix_spawnattr_init(&at);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF);
	env = rt_env_with(envset);
	rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	free(env);
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	if (rc != 0) {
		close(pin[1]);
		close(pout[0]);
		close(perr[0]);
		p->status = -1;
		rt_buf_printf(&p->err, "%s: %s", argv[0], strerror(rc));
		return -1;
	}
	if (!in || inlen == 0) {
		close(pin[1]);
		pin[1] = -1;
	} else if (fcntl(pin[1], F_SETFL, O_NONBLOCK) < 0) {
		rt_die("fcntl:");
	}
	while (pout[0] >= 0 || perr[0] >= 0 || pin[1] >= 0) {
		struct pollfd fds[3] = {
			{ pout[0], POLLIN, 0 }, { perr[0], POLLIN, 0 }, { pin[1], POLLOUT, 0 }
		};
		if (poll(fds, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			rt_die("poll:");
		}
		for (i = 0; i < 2; i++) {
			int *fd = i == 0 ? &pout[0] : &perr[0];
			ssize_t n;
			if (*fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(*fd, buf, sizeof buf);
			if (n > 0)
				rt_buf_add(i == 0 ? &p->out : &p->err, buf, (size_t)n);
			else if (n == 0 || errno != EINTR) {
				close(*fd);
				*fd = -1;
			}
		}
		if (pin[1] >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t w = write(pin[1], in + off, inlen - off);
			if (w > 0)
				off += (size_t)w;
			if ((w < 0 && errno != EAGAIN && errno != EINTR) || off == inlen) {
				close(pin[1]);
				pin[1] = -1;
			}
		}
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			rt_die("waitpid:");
	p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	rt_buf_str(&p->out);
	rt_buf_str(&p->err);
	return p->status == 0 ? 0 : -1;
}

void
rt_proc_free(rt_proc *p)
{
	rt_buf_free(&p->out);
	rt_buf_free(&p->err);
}

char *
rt_proc_complaint(const char *err)
{
	rt_buf b = {0};
	char *s = rt_xstrdup(err ? err : ""), *line, *save = NULL;
	int n = 0;

	for (line = strtok_r(s, "\n", &save); line && n < 3; line = strtok_r(NULL, "\n", &save)) {
		chomp(line);
		if (!*line)
			continue;
		if (n++)
			rt_buf_adds(&b, "; ");
		rt_buf_adds(&b, line);
	}
	free(s);
	if (!b.data)
		rt_buf_adds(&b, "no message");
	return b.data;
}

/* ---- the repository ---- */

int
rt_git(const rt_repo *r, const char *const *envset, const char *in, rt_proc *p, ...)
{
	const char *argv[64];
	const char *a;
	va_list ap;
	int n = 0;

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = r->top ? r->top : r->dir ? r->dir : ".";
	va_start(ap, p);
	while ((a = va_arg(ap, const char *)) && n < 62)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	return rt_run((char *const *)argv, envset, in, in ? strlen(in) : 0, p);
}

void
rt_repo_open(rt_repo *r, const char *dir)
{
	rt_proc p;
	struct stat st;

	memset(r, 0, sizeof *r);
	r->dir = dir;
	if (stat(dir, &st) < 0)
		rt_die("%s:", dir);
	if (!S_ISDIR(st.st_mode))
		rt_die("%s: not a directory", dir);
	/* asked of dir itself: the prefix, then the top */
	if (rt_git(r, NULL, NULL, &p, "rev-parse", "--show-prefix", (char *)NULL) < 0) {
		rt_proc_free(&p);
		return;
	}
	r->git = 1;
	r->prefix = rt_xstrdup(chomp(p.out.data));
	rt_proc_free(&p);
	if (rt_git(r, NULL, NULL, &p, "rev-parse", "--show-toplevel", (char *)NULL) < 0)
		rt_die("%s: git rev-parse --show-toplevel: %s", dir, rt_proc_complaint(p.err.data));
	r->top = rt_xstrdup(chomp(p.out.data));
	rt_proc_free(&p);
	if (rt_git(r, NULL, NULL, &p, "rev-parse", "--verify", "--quiet", "HEAD^{commit}",
	    (char *)NULL) < 0)
		rt_die("%s: the repository has no commit to build on (HEAD)", dir);
	r->head = rt_xstrdup(chomp(p.out.data));
	rt_proc_free(&p);
}

char *
rt_git_config(const char *dir, const char *key)
{
	rt_repo r;
	rt_proc p;
	char *v = NULL;

	memset(&r, 0, sizeof r);
	r.dir = dir;
	if (rt_git(&r, NULL, NULL, &p, "config", "--get", key, (char *)NULL) == 0 &&
	    *chomp(p.out.data))
		v = rt_xstrdup(p.out.data);
	rt_proc_free(&p);
	return v;
}

void
rt_repo_close(rt_repo *r)
{
	free(r->top);
	free(r->prefix);
	free(r->head);
	memset(r, 0, sizeof *r);
}

void
rt_git_cleanup(void)
{
	char lock[PATH_MAX + 32];
	size_t n;

	if (tmp_index[0]) {
		unlink(tmp_index);
		/* snprintf is not async-signal-safe: build "index.lock" by hand */
		n = strlen(tmp_index);
		memcpy(lock, tmp_index, n);
		memcpy(lock + n, ".lock", 6);
		unlink(lock);
	}
	if (tmp_dir[0])
		rmdir(tmp_dir);
}

const char *const *
rt_git_index_env(rt_repo *r)
{
	static char var[PATH_MAX + 64];
	static const char *env[2];
	rt_proc p;
	const char *tmp = getenv("TMPDIR");

	if (!r->indexed) {
		snprintf(tmp_dir, sizeof tmp_dir, "%s/rt-git.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(tmp_dir)) {
			tmp_dir[0] = '\0';
			rt_die("mkdtemp:");
		}
		snprintf(tmp_index, sizeof tmp_index, "%s/index", tmp_dir);
		snprintf(var, sizeof var, "GIT_INDEX_FILE=%s", tmp_index);
		env[0] = var;
		env[1] = NULL;
		if (rt_git(r, env, NULL, &p, "read-tree", r->head, (char *)NULL) < 0)
			rt_die("git read-tree %s: %s", r->head, rt_proc_complaint(p.err.data));
		rt_proc_free(&p);
		r->indexed = 1;
	}
	return env;
}

char *
rt_git_head_file(rt_repo *r, const char *path)
{
	rt_proc p;
	char *spec, *out;

	if (rt_git(r, NULL, NULL, &p, "ls-tree", r->head, "--", path, (char *)NULL) < 0)
		rt_die("git ls-tree: %s", rt_proc_complaint(p.err.data));
	if (p.out.len == 0) {
		rt_proc_free(&p);
		return NULL;
	}
	if (strncmp(p.out.data, "100", 3) != 0)
		rt_die("%s: not a regular file in HEAD", path);
	rt_proc_free(&p);
	spec = rt_xasprintf("%s:%s", r->head, path);
	if (rt_git(r, NULL, NULL, &p, "cat-file", "blob", spec, (char *)NULL) < 0)
		rt_die("git cat-file %s: %s", spec, rt_proc_complaint(p.err.data));
	free(spec);
	out = p.out.data;
	rt_buf_free(&p.err);
	return out;
}

/* git apply --cached [--directory=PREFIX] EXTRA -, on the temporary index. */
static int
apply(rt_repo *r, const char *diff, const char *extra, rt_proc *p)
{
	char *dir = rt_xasprintf("--directory=%s", r->prefix ? r->prefix : "");
	int rc;

	if (r->prefix && *r->prefix)
		rc = rt_git(r, rt_git_index_env(r), diff, p, "apply", "--cached", dir, extra,
		    "--whitespace=nowarn", "-", (char *)NULL);
	else
		rc = rt_git(r, rt_git_index_env(r), diff, p, "apply", "--cached", extra,
		    "--whitespace=nowarn", "-", (char *)NULL);
	free(dir);
	return rc;
}

int
rt_git_apply_check(rt_repo *r, const char *diff, char **why)
{
	rt_proc p;
	int rc = apply(r, diff, "--check", &p);

	if (rc < 0)
		*why = rt_proc_complaint(p.err.data);
	rt_proc_free(&p);
	return rc;
}

char *
rt_git_commit(rt_repo *r, const char *diff, const rt_git_file *files, size_t nfiles,
    const char *msg, const char *aname, const char *aemail, long long epoch)
{
	const char *const *ienv = rt_git_index_env(r);
	char *tree, *commit, *date = rt_xasprintf("%lld +0000", epoch);
	char *e[8];
	rt_proc p;
	size_t k;
	int i;

	if (diff && apply(r, diff, "--whitespace=nowarn", &p) < 0)
		rt_die("git apply --cached: %s", rt_proc_complaint(p.err.data));
	if (diff)
		rt_proc_free(&p);
	for (k = 0; k < nfiles; k++) {
		char *info;
		if (rt_git(r, NULL, files[k].text, &p, "hash-object", "-w", "--stdin", (char *)NULL) < 0)
			rt_die("git hash-object: %s", rt_proc_complaint(p.err.data));
		info = rt_xasprintf("100644,%s,%s", chomp(p.out.data), files[k].path);
		rt_proc_free(&p);
		if (rt_git(r, ienv, NULL, &p, "update-index", "--add", "--cacheinfo", info,
		    (char *)NULL) < 0)
			rt_die("git update-index %s: %s", files[k].path, rt_proc_complaint(p.err.data));
		rt_proc_free(&p);
		free(info);
	}
	if (rt_git(r, ienv, NULL, &p, "write-tree", (char *)NULL) < 0)
		rt_die("git write-tree: %s", rt_proc_complaint(p.err.data));
	tree = rt_xstrdup(chomp(p.out.data));
	rt_proc_free(&p);
	e[0] = rt_xasprintf("GIT_AUTHOR_NAME=%s", aname);
	e[1] = rt_xasprintf("GIT_AUTHOR_EMAIL=%s", aemail);
	e[2] = rt_xasprintf("GIT_AUTHOR_DATE=%s", date);
	e[3] = rt_xasprintf("GIT_COMMITTER_NAME=%s", aname);
	e[4] = rt_xasprintf("GIT_COMMITTER_EMAIL=%s", aemail);
	e[5] = rt_xasprintf("GIT_COMMITTER_DATE=%s", date);
	e[6] = NULL;
	if (rt_git(r, (const char *const *)e, msg, &p, "commit-tree", tree, "-p", r->head, (char *)NULL) < 0)
		rt_die("git commit-tree: %s", rt_proc_complaint(p.err.data));
	commit = rt_xstrdup(chomp(p.out.data));
	rt_proc_free(&p);
	for (i = 0; e[i]; i++)
		free(e[i]);
	free(tree);
	free(date);
	return commit;
}

char *
rt_git_format_patch(rt_repo *r, const char *commit)
{
	rt_proc p;
	char *range = rt_xasprintf("%s^..%s", commit, commit);

	if (rt_git(r, NULL, NULL, &p, "-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false",
	    "-c", "format.signature=", "-c", "format.headers=", "-c", "format.coverLetter=false",
	    "format-patch", "--stdout", "--no-numbered", "--no-signature", "--no-to", "--no-cc",
	    "--no-thread", "--no-relative", "--no-notes", "--encode-email-headers", range,
	    (char *)NULL) < 0)
		rt_die("git format-patch %s: %s", range, rt_proc_complaint(p.err.data));
	free(range);
	rt_buf_free(&p.err);
	return p.out.data;
}

void
rt_git_author(const char *a, const char *dir, char **name, char **email)
{
	char *cfg = a ? NULL : rt_git_config(dir, "retrial.author");
	const char *s = a ? a : cfg ? cfg : RT_GIT_DEFAULT_AUTHOR, *lt, *gt, *c;
	size_t nl;

	for (c = s; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			rt_usage_die("--author: control characters are not allowed");
	lt = strchr(s, '<');
	gt = strrchr(s, '>');
	if (!lt || !gt || gt < lt || gt[1] != '\0' || lt == s)
		rt_usage_die("--author %s: must be 'NAME <EMAIL>'", s);
	nl = (size_t)(lt - s);
	while (nl > 0 && s[nl - 1] == ' ')
		nl--;
	if (nl == 0 || gt == lt + 1)
		rt_usage_die("--author %s: must be 'NAME <EMAIL>'", s);
	*name = rt_xasprintf("%.*s", (int)nl, s);
	*email = rt_xasprintf("%.*s", (int)(gt - lt - 1), lt + 1);
	free(cfg);
}

long long
rt_git_epoch(void)
{
	const char *e = getenv("SOURCE_DATE_EPOCH");
	long n;

	if (e && rt_parse_long(e, 0, LONG_MAX, &n) == 0)
		return n;
	return (long long)time(NULL);
}
