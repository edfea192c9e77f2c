/* rt-pr: ship rt-verify's verdict — the evidence dossier (Markdown), a
 * git-am-able mbox, a GitHub pull request, or a quarantine change. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "rt_hash.h"
#include "rt_http.h"
#include "rt_jsonl.h"
#include "rt_patch.h"
#include "rt_stats.h"
#include "rt_util.h"

extern char **environ;

#define DEFAULT_QFILE  ".retrial/quarantine"
#define DOSSIER_DIR    ".retrial/dossiers"
#define DEFAULT_AUTHOR "retrial <retrial@localhost>"
#define GH_API         "https://api.github.com"
#define TOKEN_ENV      "RETRIAL_GITHUB_TOKEN"
#define MAX_DEPTH      32

static const char *opt_dir = ".", *opt_mbox, *opt_body, *opt_github;
static const char *opt_remote = "origin", *opt_base, *opt_tmpl, *opt_author;
static const char *opt_qfile = DEFAULT_QFILE, *opt_test, *opt_token_file;
static int opt_verbose, opt_draft;
/* --allow-path GLOB: dangerous paths the user lets ship (rt_patch_dangerous);
 * g_permitted names the ones the winner's patch touches, for the dossier */
static char **opt_allow_path, *g_permitted;
static size_t opt_nallow_path;

static char *gh_token;              /* scrubbed from every message we print */

/* What a temporary index and an interrupted push leave to clean up. */
static char tmp_dir[PATH_MAX], tmp_index[PATH_MAX + 16];
static char pushed_note[1024];

static void
usage(void)
{
	printf("usage: rt-pr [-v] [-C dir] [-t template] [-q file] [-a author] [--test name]\n"
	    "             [-b body] [-m mbox] [-g owner/repo [-r remote] [--base branch]\n"
	    "             [--token-file file] [--draft]] [--allow-path glob] [verdict-file]\n"
	    "  -b, --body FILE            write the dossier (Markdown) to FILE (- stdout)\n"
	    "  -m, --mbox FILE            write the change as a git-am-able mbox (- stdout)\n"
	    "  -g, --github OWNER/REPO    open a pull request on GitHub\n"
	    "  -r, --remote NAME          git remote to push the branch to (origin)\n"
	    "      --base BRANCH          pull request base (the repository's default branch)\n"
	    "      --token-file FILE      read the token from FILE instead of GITHUB_TOKEN\n"
	    "      --draft                open the pull request as a draft\n"
	    "  -C, --directory DIR        the project, in a git work tree (.)\n"
	    "  -t, --template FILE        dossier template (share/retrial/dossier.md.tmpl)\n"
	    "  -q, --quarantine-file PATH quarantine list in the project (" DEFAULT_QFILE ")\n"
	    "      --test NAME            the test's name (the record's \"test\")\n"
	    "      --allow-path GLOB      let the patch touch CI configuration, hooks,\n"
	    "                             .gitmodules or .gitattributes matching GLOB\n"
	    "  -a, --author 'NAME <EMAIL>' author of the change (" DEFAULT_AUTHOR ")\n"
	    "  -v, --verbose              log git commands and HTTP requests to stderr\n"
	    "  -h, --help                 this help\n"
	    "  -V, --version              print the version\n");
}

/* ---- small text helpers ---- */

static char *
chomp(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		s[--n] = '\0';
	return s;
}

/* Replace every occurrence of the token with "***" (in place is not
 * possible in general, so a new string). */
static char *
scrub(const char *s)
{
	rt_buf b = {0};
	size_t tl = gh_token ? strlen(gh_token) : 0;
	const char *p;

	if (!s)
		return rt_xstrdup("");
	if (tl == 0)
		return rt_xstrdup(s);
	while ((p = strstr(s, gh_token))) {
		rt_buf_add(&b, s, (size_t)(p - s));
		rt_buf_adds(&b, "***");
		s = p + tl;
	}
	rt_buf_adds(&b, s);
	return b.data;
}

/* The first lines of a program's complaint, scrubbed, on one line. */
static char *
complaint(const char *err)
{
	rt_buf b = {0};
	char *s = scrub(err), *line, *save = NULL;
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

static int
is_blank_or_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* Plain one-line text: control characters become spaces. */
static char *
plain(const char *s)
{
	char *p = rt_xstrdup(s), *q;
	for (q = p; *q; q++)
		if (is_blank_or_ctl((unsigned char)*q))
			*q = ' ';
	return p;
}

/* Inline Markdown from untrusted text: one line, punctuation that could
 * format or inject HTML escaped, @mentions defused with a zero-width
 * space. */
static char *
md(const char *s)
{
	rt_buf b = {0};
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		unsigned char c = *p;
		if (is_blank_or_ctl(c)) {
			rt_buf_addc(&b, ' ');
		} else if (strchr("\\`*[]<>|~", c) || (c == '#' && p == (const unsigned char *)s)) {
			rt_buf_addc(&b, '\\');
			rt_buf_addc(&b, (char)c);
		} else if (c == '_' && !(p > (const unsigned char *)s && isalnum(p[-1]) && isalnum(p[1]))) {
			rt_buf_adds(&b, "\\_");
		} else if (c == '@' && isalnum(p[1])) {
			rt_buf_adds(&b, "@\xE2\x80\x8B");
		} else {
			rt_buf_addc(&b, (char)c);
		}
	}
	if (!b.data)
		rt_buf_adds(&b, "");
	return b.data;
}

static size_t
longest_backtick_run(const char *s)
{
	size_t best = 0, run = 0;
	for (; *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

/* A Markdown code span holding s verbatim (on one line). */
static char *
code(const char *s)
{
	char *t = plain(s);
	size_t n = strlen(t), k = longest_backtick_run(t) + 1, i;
	int pad = n > 0 && (t[0] == '`' || t[0] == ' ' || t[n - 1] == '`' || t[n - 1] == ' ');
	rt_buf b = {0};

	if (n == 0) {
		free(t);
		return rt_xstrdup("(empty)");
	}
	for (i = 0; i < k; i++)
		rt_buf_addc(&b, '`');
	if (pad)
		rt_buf_addc(&b, ' ');
	rt_buf_adds(&b, t);
	if (pad)
		rt_buf_addc(&b, ' ');
	for (i = 0; i < k; i++)
		rt_buf_addc(&b, '`');
	free(t);
	return b.data;
}

/* A path component from a test name: [a-z0-9_-], runs of anything else
 * become one '-', at most 48 characters. */
static char *
slugify(const char *s)
{
	rt_buf b = {0};
	int dash = 0;

	for (; *s && b.len < 48; s++) {
		unsigned char c = (unsigned char)*s;
		if (isalnum(c) || c == '_') {
			if (dash && b.len)
				rt_buf_addc(&b, '-');
			dash = 0;
			rt_buf_addc(&b, (char)tolower(c));
		} else {
			dash = 1;
		}
	}
	if (!b.len)
		rt_buf_adds(&b, "test");
	return b.data;
}

/* Is p a safe relative path inside the project? */
static int
safe_relpath(const char *p)
{
	const char *c;

	if (!*p || *p == '/' || strchr(p, '\\'))
		return 0;
	for (c = p; *c; c++)
		if (is_blank_or_ctl((unsigned char)*c))
			return 0;
	for (c = p; c; c = strchr(c, '/')) {
		if (*c == '/')
			c++;
		if (*c == '/' || *c == '\0' || (c[0] == '.' && (c[1] == '/' || c[1] == '\0')) ||
		    (c[0] == '.' && c[1] == '.' && (c[2] == '/' || c[2] == '\0')))
			return 0;
	}
	return 1;
}

/* ---- running programs (posix_spawnp, argv only) ---- */

typedef struct {
	rt_buf out, err;
	int status;          /* exit status; 128+N after signal N; -1: not started */
} proc_t;

/* environ with "NAME=value" entries of set replacing their namesakes. */
static char **
make_env(const char *const *set)
{
	size_t n, k = 0, i, j, m = 0;
	char **env;

	for (n = 0; environ[n]; n++)
		;
	while (set && set[k])
		k++;
	env = rt_xcalloc(n + k + 1, sizeof *env);
	for (i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t nl = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		int replaced = 0;
		for (j = 0; j < k; j++)
			if (strncmp(set[j], environ[i], nl) == 0 && set[j][nl] == '=')
				replaced = 1;
		if (!replaced)
			env[m++] = environ[i];
	}
	for (j = 0; j < k; j++)
		env[m++] = (char *)set[j];
	env[m] = NULL;
	return env;
}

static void
cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFD);
	if (fl < 0 || fcntl(fd, F_SETFD, fl | FD_CLOEXEC) < 0)
		rt_die("fcntl:");
}

/* Run argv with in on its stdin; collect stdout and stderr. 0 when it
 * exited 0, else -1. */
static int
run(char *const argv[], const char *const *envset, const char *in, size_t inlen, proc_t *p)
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
	if (opt_verbose) {
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
	env = make_env(envset);
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

static void
proc_free(proc_t *p)
{
	rt_buf_free(&p->out);
	rt_buf_free(&p->err);
}

/* ---- the repository ---- */

typedef struct {
	int git;             /* DIR is inside a git work tree */
	char *top;           /* its top directory */
	char *prefix;        /* DIR relative to top: "" or "sub/dir/" */
	char *head;          /* the commit HEAD names */
	int indexed;         /* tmp_index holds HEAD's tree */
} repo_t;

/* git -C <top or DIR> args..., with envset added to the environment. */
static int
git(repo_t *r, const char *const *envset, const char *in, proc_t *p, ...)
{
	const char *argv[64];
	const char *a;
	va_list ap;
	int n = 0, rc;

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = r->top ? r->top : opt_dir;
	va_start(ap, p);
	while ((a = va_arg(ap, const char *)) && n < 62)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	rc = run((char *const *)argv, envset, in, in ? strlen(in) : 0, p);
	return rc;
}

static void
repo_open(repo_t *r)
{
	proc_t p;
	struct stat st;

	memset(r, 0, sizeof *r);
	if (stat(opt_dir, &st) < 0)
		rt_die("%s:", opt_dir);
	if (!S_ISDIR(st.st_mode))
		rt_die("%s: not a directory", opt_dir);
	/* asked of DIR itself: the prefix, then the top */
	if (git(r, NULL, NULL, &p, "rev-parse", "--show-prefix", (char *)NULL) < 0) {
		proc_free(&p);
		return;
	}
	r->git = 1;
	r->prefix = rt_xstrdup(chomp(p.out.data));
	proc_free(&p);
	if (git(r, NULL, NULL, &p, "rev-parse", "--show-toplevel", (char *)NULL) < 0)
		rt_die("%s: git rev-parse --show-toplevel: %s", opt_dir, complaint(p.err.data));
	r->top = rt_xstrdup(chomp(p.out.data));
	proc_free(&p);
	if (git(r, NULL, NULL, &p, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", (char *)NULL) < 0)
		rt_die("%s: the repository has no commit to build on (HEAD)", opt_dir);
	r->head = rt_xstrdup(chomp(p.out.data));
	proc_free(&p);
}

static void
cleanup_tmp(void)
{
	char lock[PATH_MAX + 32];

	if (tmp_index[0]) {
		unlink(tmp_index);
		snprintf(lock, sizeof lock, "%s.lock", tmp_index);
		unlink(lock);
	}
	if (tmp_dir[0])
		rmdir(tmp_dir);
}

static void
on_signal(int sig)
{
	cleanup_tmp();
	if (pushed_note[0]) {
		ssize_t w = write(2, pushed_note, strlen(pushed_note));
		(void)w;
	}
	_exit(sig == SIGINT ? RT_EXIT_INT : RT_EXIT_TERM);
}

/* A temporary index holding HEAD's tree: the user's index and work tree
 * are never touched. */
static const char *const *
index_env(repo_t *r)
{
	static char var[PATH_MAX + 64];
	static const char *env[2];
	proc_t p;
	const char *tmp = getenv("TMPDIR");

	if (!r->indexed) {
		snprintf(tmp_dir, sizeof tmp_dir, "%s/rt-pr.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(tmp_dir)) {
			tmp_dir[0] = '\0';
			rt_die("mkdtemp:");
		}
		snprintf(tmp_index, sizeof tmp_index, "%s/index", tmp_dir);
		snprintf(var, sizeof var, "GIT_INDEX_FILE=%s", tmp_index);
		env[0] = var;
		env[1] = NULL;
		if (git(r, env, NULL, &p, "read-tree", r->head, (char *)NULL) < 0)
			rt_die("git read-tree %s: %s", r->head, complaint(p.err.data));
		proc_free(&p);
		r->indexed = 1;
	}
	return env;
}

/* The file at HEAD:path, or NULL when there is none. */
static char *
head_file(repo_t *r, const char *path)
{
	proc_t p;
	char *spec, *out;

	if (git(r, NULL, NULL, &p, "ls-tree", r->head, "--", path, (char *)NULL) < 0)
		rt_die("git ls-tree: %s", complaint(p.err.data));
	if (p.out.len == 0) {
		proc_free(&p);
		return NULL;
	}
	if (strncmp(p.out.data, "100", 3) != 0)
		rt_die("%s: not a regular file in HEAD", path);
	proc_free(&p);
	spec = rt_xasprintf("%s:%s", r->head, path);
	if (git(r, NULL, NULL, &p, "cat-file", "blob", spec, (char *)NULL) < 0)
		rt_die("git cat-file %s: %s", spec, complaint(p.err.data));
	free(spec);
	out = p.out.data;
	rt_buf_free(&p.err);
	return out;
}

/* Check that diff applies to HEAD (git) or to DIR (patch --dry-run). */
static int
apply_check(repo_t *r, const char *diff, char **why)
{
	proc_t p;
	int rc;

	if (r->git) {
		rc = git(r, index_env(r), diff, &p, "apply", "--cached", "--check",
		    "--whitespace=nowarn", "-", (char *)NULL);
	} else {
		char *argv[] = { "patch", "-d", (char *)opt_dir, "-p1", "--fuzz=0", "--dry-run", "--batch",
		    "--forward", "--silent", NULL };
		rc = run(argv, NULL, diff, strlen(diff), &p);
		if (rc < 0 && p.out.len)
			rt_buf_adds(&p.err, p.out.data);
	}
	if (rc < 0)
		*why = complaint(p.err.data);
	proc_free(&p);
	return rc;
}

/* ---- the verdict record ---- */

/* The interval a record's "interval" names: the one its decision used.
 * rt-pr recomputes it from the counts by the same method. */
enum { M_WILSON, M_ANYTIME, M_EXACT };

typedef struct {
	const char *id, *source, *model, *cause, *status, *reason, *rule;
	long trials, failures;
	int method;
} lane_t;

typedef struct {
	const char *id, *rule;
	long trials, failures, required;
	int passed;          /* 1, 0, or -1 when the record does not say */
	int method;
	double conf;         /* the round's confidence c_m (the record's when absent) */
} conf_t;

typedef struct {
	json_t *rec;
	rt_where where;
	int nrecords;
	const char *verdict, *command, *test;
	double conf, target;
	int has_target, interrupted, b_input;
	long b_trials, b_failures, b_errors;
	lane_t *lanes;
	size_t nlanes;
	conf_t *confs;
	size_t nconfs;
	int has_winner;
	const char *w_id, *w_source, *w_model, *w_cause, *w_expl, *w_patch;
	const char **repro;
	size_t nrepro;
	json_t *timings;
	long long epoch;
	int has_epoch;
} verdict_t;

static int
on_record(json_t *rec, const rt_where *w, void *ctx)
{
	verdict_t *v = ctx;

	if (strcmp(json_string_value(json_object_get(rec, "type")), "verdict") != 0)
		return 0;
	json_decref(v->rec);
	v->rec = json_incref(rec);
	v->where = *w;
	v->nrecords++;
	return 0;
}

static long
count_field(json_t *o, const char *key, const rt_where *w, int required)
{
	long long v = 0;

	if (required)
		return (long)rt_rec_int(o, key, 0, LONG_MAX, w);
	if (rt_rec_opt_int(o, key, w, &v) && v < 0)
		rt_die_at(w, "\"%s\": %lld is negative", key, v);
	return (long)v;
}

static const char *
opt_str(json_t *o, const char *key, const rt_where *w)
{
	const char *s = NULL;
	rt_rec_opt_str(o, key, w, &s);
	return s;
}

/* Days since 1970-01-01 of a Gregorian date (Hinnant's days_from_civil). */
static long long
days_from_civil(long long y, unsigned m, unsigned d)
{
	long long era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long long)doe - 719468;
}

/* RFC 3339 ("2026-11-29T23:59:59.123Z", "...+01:00") to seconds. */
static int
parse_rfc3339(const char *s, long long *out)
{
	int y, mo, d, h, mi, se, n = 0, oh, om;
	long long off = 0;
	const char *p;

	if (sscanf(s, "%4d-%2d-%2d%*1[Tt ]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &n) != 6 || !n)
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
		return -1;
	p = s + n;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	if (*p == 'Z' || *p == 'z')
		p++;
	else if ((*p == '+' || *p == '-') && sscanf(p + 1, "%2d:%2d", &oh, &om) == 2) {
		off = (oh * 3600LL + om * 60LL) * (*p == '-' ? -1 : 1);
		p += 6;
	} else
		return -1;
	if (*p)
		return -1;
	*out = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600LL + mi * 60LL + se - off;
	return 0;
}

static int
interval_method(json_t *o, const char *id, long failures, const rt_where *w)
{
	const char *m = opt_str(o, "interval", w);

	if (!m || strcmp(m, "wilson") == 0)
		return M_WILSON;
	if (strcmp(m, "anytime") == 0)
		return M_ANYTIME;
	if (strcmp(m, "exact one-sided") == 0) {
		if (failures > 0)
			rt_die_at(w, "%s: an exact one-sided interval is for 0 failures, not %ld",
			    id, failures);
		return M_EXACT;
	}
	rt_die_at(w, "%s: \"interval\": unknown method \"%s\" (wilson, anytime, exact one-sided)",
	    id, m);
	return M_WILSON;
}

static void
parse_verdict(verdict_t *v)
{
	json_t *r = v->rec, *o, *a, *e;
	const rt_where *w = &v->where;
	const char *s;
	size_t i;
	long long ep;

	v->verdict = rt_rec_str(r, "verdict", w);
	v->command = opt_str(r, "command", w);
	v->test = opt_str(r, "test", w);
	v->conf = 0.95;
	if (rt_rec_opt_num(r, "confidence", w, &v->conf) && !(v->conf > 0 && v->conf < 1))
		rt_die_at(w, "\"confidence\": %g is not between 0 and 1", v->conf);
	v->has_target = rt_rec_opt_num(r, "target", w, &v->target);
	if (v->has_target && !(v->target >= 0 && v->target <= 1))
		rt_die_at(w, "\"target\": %g is not between 0 and 1", v->target);
	if ((o = json_object_get(r, "interrupted")) && json_is_true(o))
		v->interrupted = 1;

	o = json_object_get(r, "baseline");
	if (!json_is_object(o))
		rt_die_at(w, "\"baseline\" missing or not an object");
	v->b_trials = count_field(o, "trials", w, 1);
	v->b_failures = count_field(o, "failures", w, 1);
	v->b_errors = count_field(o, "errors", w, 0);
	v->b_input = (s = opt_str(o, "source", w)) && strcmp(s, "input") == 0;
	if (v->b_failures > v->b_trials)
		rt_die_at(w, "baseline: %ld failures in %ld trials", v->b_failures, v->b_trials);

	a = json_object_get(r, "lanes");
	if (a && !json_is_array(a) && !json_is_null(a))
		rt_die_at(w, "\"lanes\": not an array");
	v->nlanes = json_is_array(a) ? json_array_size(a) : 0;
	v->lanes = rt_xcalloc(v->nlanes, sizeof *v->lanes);
	for (i = 0; i < v->nlanes; i++) {
		lane_t *l = &v->lanes[i];
		e = json_array_get(a, i);
		if (!json_is_object(e))
			rt_die_at(w, "lanes[%zu]: not an object", i);
		l->id = rt_rec_str(e, "id", w);
		l->status = rt_rec_str(e, "status", w);
		l->source = opt_str(e, "source", w);
		l->model = opt_str(e, "model", w);
		l->cause = opt_str(e, "cause_class", w);
		l->reason = opt_str(e, "reason", w);
		l->rule = opt_str(e, "rule", w);
		l->trials = count_field(e, "trials", w, 0);
		l->failures = count_field(e, "failures", w, 0);
		if (l->failures > l->trials)
			rt_die_at(w, "lane %s: %ld failures in %ld trials", l->id, l->failures, l->trials);
		l->method = interval_method(e, l->id, l->failures, w);
	}

	a = json_object_get(r, "confirmations");
	if (a && !json_is_array(a) && !json_is_null(a))
		rt_die_at(w, "\"confirmations\": not an array");
	v->nconfs = json_is_array(a) ? json_array_size(a) : 0;
	v->confs = rt_xcalloc(v->nconfs, sizeof *v->confs);
	for (i = 0; i < v->nconfs; i++) {
		conf_t *c = &v->confs[i];
		e = json_array_get(a, i);
		if (!json_is_object(e))
			rt_die_at(w, "confirmations[%zu]: not an object", i);
		c->id = rt_rec_str(e, "id", w);
		c->rule = opt_str(e, "rule", w);
		c->trials = count_field(e, "trials", w, 1);
		c->failures = count_field(e, "failures", w, 1);
		c->required = count_field(e, "required_runs", w, 0);
		if (c->failures > c->trials)
			rt_die_at(w, "confirmation %s: %ld failures in %ld trials", c->id, c->failures, c->trials);
		o = json_object_get(e, "passed");
		c->passed = json_is_boolean(o) ? json_is_true(o) : -1;
		c->method = interval_method(e, c->id, c->failures, w);
		c->conf = v->conf;
		if (rt_rec_opt_num(e, "confidence", w, &c->conf) && !(c->conf > 0 && c->conf < 1))
			rt_die_at(w, "confirmation %s: \"confidence\": %g is not between 0 and 1",
			    c->id, c->conf);
	}

	o = json_object_get(r, "winner");
	if (o && !json_is_null(o)) {
		if (!json_is_object(o))
			rt_die_at(w, "\"winner\": not an object");
		v->has_winner = 1;
		v->w_id = rt_rec_str(o, "id", w);
		v->w_source = opt_str(o, "source", w);
		v->w_model = opt_str(o, "model", w);
		v->w_cause = opt_str(o, "cause_class", w);
		v->w_expl = opt_str(o, "explanation", w);
		v->w_patch = opt_str(o, "patch", w);
	}

	a = json_object_get(r, "reproduce");
	if (a && !json_is_array(a) && !json_is_null(a))
		rt_die_at(w, "\"reproduce\": not an array");
	v->nrepro = json_is_array(a) ? json_array_size(a) : 0;
	v->repro = rt_xcalloc(v->nrepro, sizeof *v->repro);
	for (i = 0; i < v->nrepro; i++) {
		if (!json_is_string(json_array_get(a, i)))
			rt_die_at(w, "reproduce[%zu]: not a string", i);
		v->repro[i] = json_string_value(json_array_get(a, i));
	}
	o = json_object_get(r, "timings");
	v->timings = json_is_object(o) ? o : NULL;

	/* the change's date: when the verdict was reached, if the record says */
	if (((s = opt_str(r, "finished_at", w)) || (s = opt_str(r, "started_at", w)))) {
		if (parse_rfc3339(s, &ep) < 0)
			rt_die_at(w, "\"%s\": not an RFC 3339 time", s);
		v->epoch = ep;
		v->has_epoch = 1;
	}
}

static const lane_t *
find_lane(const verdict_t *v, const char *id)
{
	size_t i;
	for (i = 0; i < v->nlanes; i++)
		if (strcmp(v->lanes[i].id, id) == 0)
			return &v->lanes[i];
	return NULL;
}

/* The winner's confirmation: the last one that passed, else its last. */
static const conf_t *
winner_conf(const verdict_t *v)
{
	const conf_t *best = NULL;
	size_t i;

	if (!v->has_winner)
		return NULL;
	for (i = 0; i < v->nconfs; i++)
		if (strcmp(v->confs[i].id, v->w_id) == 0 && (!best || best->passed != 1 || v->confs[i].passed == 1))
			best = &v->confs[i];
	return best;
}

/* ---- numbers: always counts, always an interval ---- */

static double g_conf = 0.95;

/* The interval of k/n at confidence c by method m (rt-verify(1), THE
 * RACE and CONFIRMATION):
 *   wilson   Wilson score interval, for a fixed number of trials;
 *   anytime  Robbins' beta-binomial confidence sequence (rt_cs_interval),
 *            valid however often a racing lane was looked at;
 *   exact    0/n only: the one-sided bound 1 - (1 - c)^(1/n). */
static rt_interval
interval(long k, long n, int m, double c)
{
	rt_interval iv;
	int rc;

	if (m == M_EXACT && k == 0 && n > 0) {
		iv.low = 0;
		iv.high = 1 - pow(1 - c, 1.0 / (double)n);
		return iv;
	}
	rc = m == M_ANYTIME ? rt_cs_interval(k, n, c, 0, 0, &iv) : rt_wilson(k, n, c, &iv);
	if (rc != RT_STATS_OK)
		rt_die("cannot compute the interval of %ld/%ld at %g", k, n, c);
	return iv;
}

static char *
pct_conf(void)
{
	return rt_xasprintf("%g%%", g_conf * 100);
}

/* "12/40 failed (30.0%, 95% CI 18.1–45.4%)"; 0 failures: "0/40 failed
 * (≤8.8% at 95% confidence)" — the upper bound, never 0%. The other
 * methods are named as rt-verify names them: "0/17 failed (≤25.4% at 95%
 * confidence, anytime)", "27/100 failed (27.0%, anytime 95% interval
 * 14.2–43.0%)", "0/29 failed (≤9.8% at 95% confidence, exact one-sided)". */
static char *
fmt_rate_m(long k, long n, const char *verb, int m, double c)
{
	const char *sp = *verb ? " " : "";
	const char *tag = m == M_ANYTIME ? ", anytime" : m == M_EXACT ? ", exact one-sided" : "";
	rt_interval iv;

	if (n == 0)
		return rt_xasprintf("0/0%s%s (no valid trials)", sp, verb);
	iv = interval(k, n, m, c);
	if (k == 0)
		return rt_xasprintf("0/%ld%s%s (\xE2\x89\xA4%.1f%% at %g%% confidence%s)", n, sp, verb,
		    100 * iv.high, 100 * c, tag);
	if (m == M_ANYTIME)
		return rt_xasprintf("%ld/%ld%s%s (%.1f%%, anytime %g%% interval %.1f\xE2\x80\x93%.1f%%)",
		    k, n, sp, verb, 100.0 * (double)k / (double)n, 100 * c, 100 * iv.low, 100 * iv.high);
	return rt_xasprintf("%ld/%ld%s%s (%.1f%%, %g%% CI %.1f\xE2\x80\x93%.1f%%)", k, n, sp, verb,
	    100.0 * (double)k / (double)n, 100 * c, 100 * iv.low, 100 * iv.high);
}

static char *
fmt_rate(long k, long n, const char *verb)
{
	return fmt_rate_m(k, n, verb, M_WILSON, g_conf);
}

static char *
fmt_lane(const lane_t *l, const char *verb)
{
	return fmt_rate_m(l->failures, l->trials, verb, l->method, g_conf);
}

static char *
fmt_conf(const conf_t *c, const char *verb)
{
	return fmt_rate_m(c->failures, c->trials, verb, c->method, c->conf);
}

/* The rate column of the table: "40.0% (19.1–64.0%)", "≤16.1%", "—";
 * an anytime interval says so: "≤25.4% (anytime)". */
static char *
fmt_interval(const lane_t *l)
{
	long k = l->failures, n = l->trials;
	const char *tag = l->method == M_ANYTIME ? ", anytime" : "";
	rt_interval iv;

	if (n == 0)
		return rt_xstrdup("\xE2\x80\x94");
	iv = interval(k, n, l->method, g_conf);
	if (k == 0)
		return rt_xasprintf("\xE2\x89\xA4%.1f%%%s", 100 * iv.high,
		    l->method == M_ANYTIME ? " (anytime)" : "");
	return rt_xasprintf("%.1f%% (%.1f\xE2\x80\x93%.1f%%%s)", 100.0 * (double)k / (double)n,
	    100 * iv.low, 100 * iv.high, tag);
}

/* ---- the template: a small Mustache subset ---- */

enum { T_TEXT, T_VAR, T_SEC, T_INV, T_END, T_COMMENT };

typedef struct {
	int kind;
	const char *s;       /* text, or the name */
	size_t len;
	size_t match;        /* T_SEC/T_INV: the index of its T_END */
} tok_t;

typedef struct {
	tok_t *t;
	size_t n, cap;
	char *src;
} tmpl_t;

/* "`.github/workflows/ci.yml`, CI configuration (--allow-path .github/...)" for
 * each dangerous path the patch touches; NULL when there is none. */
static char *
permitted_paths(char **files, size_t n)
{
	rt_buf b = {0};
	size_t i;
	char *s;

	for (i = 0; i < n; i++) {
		const char *k = rt_patch_danger(files[i]);
		const char *g = rt_patch_allowed(files[i], opt_allow_path, opt_nallow_path);
		char *m1, *m2;
		if (!k || !g)
			continue;
		m1 = md(files[i]);
		m2 = md(g);
		rt_buf_printf(&b, "%s%s, %s (--allow-path %s)", b.len ? "; " : "", m1, k, m2);
		free(m1);
		free(m2);
	}
	s = b.len ? rt_xstrdup(rt_buf_str(&b)) : NULL;
	rt_buf_free(&b);
	return s;
}

/* Every name a template may use (rt-pr(1), TEMPLATE). */
static const char *const known_names[] = {
	"title", "verdict", "is_fixed", "is_improved", "is_quarantine", "test", "command",
	"has_command", "confidence", "z", "target", "has_target", "baseline",
	"baseline_errors", "winner", "id", "source", "cause_class", "explanation", "files",
	"tournament", "confirmation", "lanes", "counts", "interval", "status", "fate",
	"lanes_summary", "confirmations", "has_confirmations", "result", "trials",
	"required", "outcome", "rule", "confirmation_rule", "neutered", "quarantine",
	"file", "dossier", "entry", "reproduce", "has_reproduce", "fence", "timings",
	"branch", "has_anytime", "has_exact", "exact_note", "overrides", "has_overrides",
	"allowed_paths", "has_allowed_paths",
	NULL
};

static int
known_name(const char *s, size_t len)
{
	size_t i, k;
	const char *seg = s, *dot;

	if (len == 1 && *s == '.')
		return 1;
	while (seg < s + len) {
		dot = memchr(seg, '.', (size_t)(s + len - seg));
		k = dot ? (size_t)(dot - seg) : (size_t)(s + len - seg);
		for (i = 0; known_names[i]; i++)
			if (strlen(known_names[i]) == k && memcmp(known_names[i], seg, k) == 0)
				break;
		if (!known_names[i])
			return 0;
		seg += k + 1;
	}
	return 1;
}

static void
tok_add(tmpl_t *T, int kind, const char *s, size_t len)
{
	if (kind == T_TEXT && len == 0)
		return;
	if (T->n == T->cap) {
		T->cap = T->cap ? 2 * T->cap : 64;
		T->t = rt_xrealloc(T->t, T->cap * sizeof *T->t);
	}
	T->t[T->n].kind = kind;
	T->t[T->n].s = s;
	T->t[T->n].len = len;
	T->t[T->n].match = 0;
	T->n++;
}

static long
line_of(const char *src, const char *p)
{
	long n = 1;
	for (; src < p; src++)
		n += *src == '\n';
	return n;
}

static void
tmpl_parse(tmpl_t *T, char *src, const char *file)
{
	const char *p = src, *o, *c, *name, *end, *ls, *q;
	size_t stack[MAX_DEPTH];
	int depth = 0, kind, standalone;

	T->src = src;
	while (*p) {
		if (!(o = strstr(p, "{{"))) {
			tok_add(T, T_TEXT, p, strlen(p));
			break;
		}
		if (!(c = strstr(o + 2, "}}")))
			rt_die("%s:%ld: \"{{\" without \"}}\"", file, line_of(src, o));
		switch (o[2]) {
		case '#': kind = T_SEC; break;
		case '^': kind = T_INV; break;
		case '/': kind = T_END; break;
		case '!': kind = T_COMMENT; break;
		default: kind = T_VAR; break;
		}
		name = o + 2 + (kind != T_VAR);
		while (name < c && (*name == ' ' || *name == '\t'))
			name++;
		end = c;
		while (end > name && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (kind != T_COMMENT) {
			const char *x;
			if (end == name)
				rt_die("%s:%ld: empty placeholder", file, line_of(src, o));
			for (x = name; x < end; x++)
				if (!isalnum((unsigned char)*x) && *x != '_' && *x != '.')
					rt_die("%s:%ld: bad placeholder \"%.*s\"", file, line_of(src, o),
					    (int)(c + 2 - o), o);
			if (!known_name(name, (size_t)(end - name)))
				rt_die("%s:%ld: unknown placeholder {{%.*s}} (see rt-pr(1), TEMPLATE)",
				    file, line_of(src, o), (int)(end - name), name);
		}
		/* a section, end or comment tag alone on its line takes the line with it */
		standalone = 0;
		ls = o;
		if (kind != T_VAR) {
			standalone = 1;
			while (ls > src && ls[-1] != '\n') {
				if (ls[-1] != ' ' && ls[-1] != '\t')
					standalone = 0;
				ls--;
			}
			q = c + 2;
			while (*q == ' ' || *q == '\t' || *q == '\r')
				q++;
			if (*q != '\n' && *q != '\0')
				standalone = 0;
		}
		if (standalone) {
			tok_add(T, T_TEXT, p, (size_t)(ls - p));
			p = *q ? q + 1 : q;
		} else {
			tok_add(T, T_TEXT, p, (size_t)(o - p));
			p = c + 2;
		}
		tok_add(T, kind, name, (size_t)(end - name));
		if (kind == T_SEC || kind == T_INV) {
			if (depth == MAX_DEPTH)
				rt_die("%s:%ld: sections nested too deeply", file, line_of(src, o));
			stack[depth++] = T->n - 1;
		} else if (kind == T_END) {
			tok_t *open;
			if (!depth)
				rt_die("%s:%ld: {{/%.*s}} closes nothing", file, line_of(src, o),
				    (int)(end - name), name);
			open = &T->t[stack[--depth]];
			if (open->len != (size_t)(end - name) || memcmp(open->s, name, open->len) != 0)
				rt_die("%s:%ld: {{/%.*s}} closes {{#%.*s}}", file, line_of(src, o),
				    (int)(end - name), name, (int)open->len, open->s);
			open->match = T->n - 1;
		}
	}
	if (depth)
		rt_die("%s: {{#%.*s}} is never closed", file, (int)T->t[stack[depth - 1]].len,
		    T->t[stack[depth - 1]].s);
}

static json_t *
lookup(json_t **stack, int depth, const char *name, size_t len)
{
	char seg[128];
	const char *s = name, *dot;
	json_t *v = NULL;
	size_t k;
	int i, first = 1;

	if (len == 1 && *name == '.')
		return stack[depth - 1];
	while (s < name + len) {
		dot = memchr(s, '.', (size_t)(name + len - s));
		k = dot ? (size_t)(dot - s) : (size_t)(name + len - s);
		if (k >= sizeof seg)
			return NULL;
		memcpy(seg, s, k);
		seg[k] = '\0';
		if (first) {
			for (i = depth - 1; i >= 0; i--)
				if (json_is_object(stack[i]) && (v = json_object_get(stack[i], seg)))
					break;
			first = 0;
		} else {
			v = json_is_object(v) ? json_object_get(v, seg) : NULL;
		}
		if (!v)
			return NULL;
		s += k + 1;
	}
	return v;
}

static int
truthy(json_t *v)
{
	if (!v || json_is_null(v) || json_is_false(v))
		return 0;
	if (json_is_array(v))
		return json_array_size(v) > 0;
	if (json_is_string(v))
		return json_string_length(v) > 0;
	return 1;
}

static void
render(const tmpl_t *T, size_t from, size_t to, json_t **stack, int depth, rt_buf *out)
{
	size_t i, j;
	json_t *v;

	for (i = from; i < to; i++) {
		const tok_t *t = &T->t[i];
		switch (t->kind) {
		case T_TEXT:
			rt_buf_add(out, t->s, t->len);
			break;
		case T_VAR:
			v = lookup(stack, depth, t->s, t->len);
			if (json_is_string(v))
				rt_buf_add(out, json_string_value(v), json_string_length(v));
			else if (json_is_integer(v))
				rt_buf_printf(out, "%lld", (long long)json_integer_value(v));
			else if (json_is_real(v))
				rt_buf_printf(out, "%g", json_real_value(v));
			else if (json_is_boolean(v))
				rt_buf_adds(out, json_is_true(v) ? "true" : "false");
			break;
		case T_SEC:
			v = lookup(stack, depth, t->s, t->len);
			if (json_is_array(v) || json_is_object(v)) {
				if (depth >= MAX_DEPTH)
					rt_die("template: sections nested too deeply");
			}
			if (json_is_array(v)) {
				for (j = 0; j < json_array_size(v); j++) {
					stack[depth] = json_array_get(v, j);
					render(T, i + 1, t->match, stack, depth + 1, out);
				}
			} else if (json_is_object(v)) {
				stack[depth] = v;
				render(T, i + 1, t->match, stack, depth + 1, out);
			} else if (truthy(v)) {
				render(T, i + 1, t->match, stack, depth, out);
			}
			i = t->match;
			break;
		case T_INV:
			v = lookup(stack, depth, t->s, t->len);
			if (!truthy(v))
				render(T, i + 1, t->match, stack, depth, out);
			i = t->match;
			break;
		default:
			break;
		}
	}
}

/* ---- the dossier ---- */

typedef struct {
	const char *name;        /* the test's name (plain) */
	char *slug, *title, *branch;
	char *qfile, *dossier_path, *entry;   /* QUARANTINE, relative to DIR */
	char *after;             /* the decisive "after" figure */
	char **files;            /* the winner's patch touches these */
	size_t nfiles;
	int fixed, improved, quarantine;
} ship_t;

static void
jset(json_t *o, const char *k, char *s)
{
	json_object_set_new(o, k, json_string(s));
	free(s);
}

static void
jsetc(json_t *o, const char *k, const char *s)
{
	json_object_set_new(o, k, json_string(s));
}

static char *
fate(const lane_t *l)
{
	char *reason = l->reason ? md(l->reason) : NULL, *s = NULL, *label;

	if (strcmp(l->status, "winner") == 0)
		label = rt_xstrdup("**winner**");
	else if (strcmp(l->status, "neutered") == 0)
		label = l->rule ? rt_xasprintf("disqualified by the neutering guard, rule %s",
		    s = code(l->rule)) : rt_xstrdup("disqualified by the neutering guard");
	else if (strcmp(l->status, "patch_failed") == 0)
		label = rt_xstrdup("patch failed");
	else if (strcmp(l->status, "not_raced") == 0)
		label = rt_xstrdup("not raced");
	else
		label = md(l->status);
	free(s);
	/* "tied — tied with the winner: ..." says it twice */
	if (reason && *reason && strncmp(reason, l->status, strlen(l->status)) == 0)
		s = rt_xstrdup(reason);
	else if (reason && *reason)
		s = rt_xasprintf("%s \xE2\x80\x94 %s", label, reason);
	else
		s = rt_xstrdup(label);
	free(label);
	free(reason);
	return s;
}

static const char *const status_order[] = {
	"winner", "survived", "tied", "eliminated", "neutered", "patch_failed", "not_raced", NULL
};
static const char *const status_words[] = {
	"winner", "survived", "tied", "eliminated", "disqualified by the neutering guard",
	"patch failed", "not raced", NULL
};

/* "4 hypotheses: 1 winner, 2 eliminated, 1 patch failed". */
static char *
lanes_summary(const verdict_t *v)
{
	rt_buf b = {0};
	size_t i, j, n, other = 0;
	int first = 1;

	rt_buf_printf(&b, "%zu hypothes%s", v->nlanes, v->nlanes == 1 ? "is" : "es");
	for (j = 0; status_order[j]; j++) {
		for (n = 0, i = 0; i < v->nlanes; i++)
			n += strcmp(v->lanes[i].status, status_order[j]) == 0;
		if (n) {
			rt_buf_printf(&b, "%s%zu %s", first ? ": " : ", ", n, status_words[j]);
			first = 0;
		}
	}
	for (i = 0; i < v->nlanes; i++) {
		for (j = 0; status_order[j]; j++)
			if (strcmp(v->lanes[i].status, status_order[j]) == 0)
				break;
		other += !status_order[j];
	}
	if (other)
		rt_buf_printf(&b, "%s%zu other", first ? ": " : ", ", other);
	return b.data;
}

static char *
source_text(const char *source, const char *model)
{
	if (source && model && !strstr(source, model))
		return rt_xasprintf("%s (model %s)", source, model);
	if (source)
		return rt_xstrdup(source);
	if (model)
		return rt_xasprintf("model %s", model);
	return rt_xstrdup("unknown");
}

static int
has_method(const verdict_t *v, int m)
{
	size_t i;

	for (i = 0; i < v->nlanes; i++)
		if (v->lanes[i].method == m && v->lanes[i].trials > 0)
			return 1;
	for (i = 0; i < v->nconfs; i++)
		if (v->confs[i].method == m && v->confs[i].trials > 0)
			return 1;
	return 0;
}

/* The exact one-sided bound beside the Wilson bound of the same 0/n, so a
 * reader comparing with a fixed-n tool sees why the two differ. */
static char *
exact_note(const verdict_t *v)
{
	const conf_t *c = winner_conf(v);
	rt_interval ex, wi;
	size_t i;

	if (!c || c->method != M_EXACT || c->trials == 0)
		for (i = 0, c = NULL; i < v->nconfs && !c; i++)
			if (v->confs[i].method == M_EXACT && v->confs[i].trials > 0)
				c = &v->confs[i];
	if (!c)   /* exact intervals in lanes only (t/fuzz/verdict) */
		return rt_xstrdup("the exact one-sided bound is what the rule tests; a Wilson "
		    "bound of the same counts is two-sided and looser");
	ex = interval(0, c->trials, M_EXACT, c->conf);
	wi = interval(0, c->trials, M_WILSON, c->conf);
	return rt_xasprintf("for 0/%ld at %g%% confidence it is \xE2\x89\xA4%.1f%%; the Wilson "
	    "bound of the same counts, \xE2\x89\xA4%.1f%%, is two-sided and looser, and is not "
	    "what the rule tests", c->trials, 100 * c->conf, 100 * ex.high, 100 * wi.high);
}

static json_t *
build_view(const verdict_t *v, const ship_t *S)
{
	json_t *o = json_object(), *a, *e, *w;
	const conf_t *wc = winner_conf(v);
	char *s;
	size_t i, k;
	long neutered = 0;
	rt_buf b = {0};

	/* the title, with the test's name as code */
	s = code(S->name);
	{
		char *pn = plain(S->name), *at = strstr(S->title, pn), *rest;
		rt_buf tb = {0};
		if (at) {
			rt_buf_add(&tb, S->title, (size_t)(at - S->title));
			rt_buf_adds(&tb, s);
			rest = md(at + strlen(pn));
		} else {
			rest = md(S->title);
		}
		rt_buf_adds(&tb, rest);
		free(rest);
		free(pn);
		jset(o, "title", tb.data);
	}
	jset(o, "test", s);
	jsetc(o, "verdict", v->verdict);
	json_object_set_new(o, "is_fixed", json_boolean(S->fixed));
	json_object_set_new(o, "is_improved", json_boolean(S->improved));
	json_object_set_new(o, "is_quarantine", json_boolean(S->quarantine));
	jset(o, "command", code(v->command ? v->command : ""));
	json_object_set_new(o, "has_command", json_boolean(v->command && *v->command));
	jset(o, "confidence", pct_conf());
	jset(o, "z", rt_xasprintf("%.2f", rt_z_for_confidence(g_conf)));
	if (v->has_target)
		jset(o, "target", rt_xasprintf("%.1f%%", 100 * v->target));
	json_object_set_new(o, "has_target", json_boolean(v->has_target));
	jset(o, "baseline", fmt_rate(v->b_failures, v->b_trials, "failed"));
	if (v->b_errors)
		jset(o, "baseline_errors", rt_xasprintf("%ld infrastructure error%s not counted",
		    v->b_errors, v->b_errors == 1 ? " was" : "s were"));
	if (S->branch)
		jset(o, "branch", code(S->branch));

	if (v->has_winner) {
		const lane_t *l = find_lane(v, v->w_id);
		w = json_object();
		jset(w, "id", md(v->w_id));
		s = source_text(v->w_source, v->w_model);
		jset(w, "source", md(s));
		free(s);
		jset(w, "cause_class", md(v->w_cause ? v->w_cause : "unknown"));
		jset(w, "explanation", md(v->w_expl ? v->w_expl : "(no explanation given)"));
		for (i = 0; i < S->nfiles; i++) {
			s = code(S->files[i]);
			rt_buf_printf(&b, "%s%s", i ? ", " : "", s);
			free(s);
		}
		jset(w, "files", b.data ? b.data : rt_xstrdup("no file"));
		b.data = NULL;
		b.len = b.cap = 0;
		jset(w, "tournament", l ? fmt_lane(l, "failed") :
		    rt_xstrdup("not recorded"));
		if (wc) {
			s = fmt_conf(wc, "failed");
			jset(w, "confirmation", wc->required ?
			    rt_xasprintf("%s on fresh trials, %ld required", s, wc->required) :
			    rt_xasprintf("%s on fresh trials", s));
			free(s);
		} else {
			jsetc(w, "confirmation", "none recorded");
		}
		json_object_set_new(o, "winner", w);
	}

	a = json_array();
	for (i = 0; i < v->nlanes; i++) {
		const lane_t *l = &v->lanes[i];
		e = json_object();
		jset(e, "id", md(l->id));
		s = source_text(l->source, l->model);
		jset(e, "source", md(s));
		free(s);
		jset(e, "cause_class", md(l->cause ? l->cause : "unknown"));
		jset(e, "status", md(l->status));
		jset(e, "counts", l->trials ? rt_xasprintf("%ld/%ld", l->failures, l->trials) :
		    rt_xstrdup("\xE2\x80\x94"));
		jset(e, "interval", fmt_interval(l));
		jset(e, "fate", fate(l));
		json_array_append_new(a, e);
		neutered += strcmp(l->status, "neutered") == 0;
	}
	json_object_set_new(o, "lanes", a);
	{
		/* guard rules the user overruled (rt-verify --allow), for the reviewer */
		rt_buf ob = { 0 };
		json_t *vl = json_object_get(v->rec, "lanes"), *ln, *ov, *x;
		size_t j, k;
		json_array_foreach(vl, j, ln) {
			ov = json_object_get(ln, "overruled");
			json_array_foreach(ov, k, x) {
				const char *r = json_string_value(json_object_get(x, "rule"));
				const char *why = json_string_value(json_object_get(x, "reason"));
				const char *id = json_string_value(json_object_get(ln, "id"));
				char *m1 = md(r ? r : "?"), *m2 = md(why ? why : ""), *m3 = md(id ? id : "?");
				rt_buf_printf(&ob, "%s%s for %s (%s)", ob.len ? "; " : "", m1, m3, m2);
				free(m1);
				free(m2);
				free(m3);
			}
		}
		if (!ob.len) {
			json_array_foreach(json_object_get(v->rec, "allowed_rules"), j, x) {
				char *m1 = md(json_string_value(x) ? json_string_value(x) : "?");
				rt_buf_printf(&ob, "%s%s (fired for no lane)", ob.len ? "; " : "", m1);
				free(m1);
			}
		}
		json_object_set_new(o, "has_allowed_paths", json_boolean(g_permitted != NULL));
		if (g_permitted)
			jsetc(o, "allowed_paths", g_permitted);
		json_object_set_new(o, "has_overrides", json_boolean(ob.len > 0));
		if (ob.len)
			jset(o, "overrides", rt_xstrdup(rt_buf_str(&ob)));
		rt_buf_free(&ob);
	}
	json_object_set_new(o, "has_anytime", json_boolean(has_method(v, M_ANYTIME)));
	if (has_method(v, M_EXACT))
		jset(o, "exact_note", exact_note(v));
	json_object_set_new(o, "has_exact", json_boolean(has_method(v, M_EXACT)));
	jset(o, "lanes_summary", lanes_summary(v));
	jset(o, "neutered", rt_xasprintf("%ld", neutered));

	a = json_array();
	for (i = 0; i < v->nconfs; i++) {
		const conf_t *c = &v->confs[i];
		e = json_object();
		jset(e, "id", md(c->id));
		jset(e, "result", fmt_conf(c, "failed"));
		jset(e, "trials", rt_xasprintf("%ld", c->trials));
		jset(e, "required", c->required ? rt_xasprintf("%ld", c->required) :
		    rt_xstrdup("\xE2\x80\x94"));
		jsetc(e, "outcome", c->passed == 1 ? "passed" : c->passed == 0 ? "failed" : "not judged");
		jset(e, "rule", md(c->rule ? c->rule : "not stated"));
		json_array_append_new(a, e);
	}
	json_object_set_new(o, "confirmations", a);
	json_object_set_new(o, "has_confirmations", json_boolean(v->nconfs > 0));
	if (wc && wc->rule)
		jset(o, "confirmation_rule", md(wc->rule));
	else if (v->nconfs && v->confs[0].rule)
		jset(o, "confirmation_rule", md(v->confs[0].rule));
	else
		jsetc(o, "confirmation_rule", "none (no confirmation round ran)");

	if (S->quarantine) {
		e = json_object();
		jset(e, "file", code(S->qfile));
		jset(e, "dossier", code(S->dossier_path));
		jset(e, "entry", code(S->name));
		json_object_set_new(o, "quarantine", e);
	}

	a = json_array();
	for (k = 0, i = 0; i < v->nrepro; i++) {
		e = json_object();
		jset(e, "command", plain(v->repro[i]));
		json_array_append_new(a, e);
		if (longest_backtick_run(v->repro[i]) > k)
			k = longest_backtick_run(v->repro[i]);
	}
	json_object_set_new(o, "reproduce", a);
	json_object_set_new(o, "has_reproduce", json_boolean(v->nrepro > 0));
	for (i = 0; i < (k < 3 ? 3 : k + 1); i++)
		rt_buf_addc(&b, '`');
	jset(o, "fence", b.data);

	if (v->timings) {
		static const char *const keys[] = { "baseline_s", "tournament_s", "confirm_s", "total_s" };
		static const char *const words[] = { "baseline", "tournament", "confirmation", "total" };
		rt_buf t = {0};
		for (i = 0; i < 4; i++) {
			json_t *x = json_object_get(v->timings, keys[i]);
			/* a baseline read from a measure record took no time here */
			if (i == 0 && v->b_input) {
				rt_buf_adds(&t, "baseline from the input measure record");
				continue;
			}
			if (i == 2 && v->nconfs == 0)
				continue;
			if (json_is_number(x))
				rt_buf_printf(&t, "%s%s %.1f s", t.len ? ", " : "", words[i],
				    json_number_value(x));
		}
		if (t.data)
			jset(o, "timings", t.data);
	}
	return o;
}

static char *
render_dossier(const verdict_t *v, const ship_t *S)
{
	char *path = opt_tmpl ? rt_xstrdup(opt_tmpl) :
	    rt_xasprintf("%s/dossier.md.tmpl", rt_sharedir());
	char *src = rt_read_file(path, NULL);
	tmpl_t T = {0};
	json_t *view, *stack[MAX_DEPTH + 1];
	rt_buf out = {0};

	if (!src)
		rt_die("%s:", path);
	tmpl_parse(&T, src, path);
	view = build_view(v, S);
	stack[0] = view;
	render(&T, 0, T.n, stack, 1, &out);
	json_decref(view);
	free(T.t);
	free(src);
	free(path);
	if (!out.data)
		rt_buf_adds(&out, "");
	if (out.len && out.data[out.len - 1] != '\n')
		rt_buf_addc(&out, '\n');
	return out.data;
}

/* ---- the commit message ---- */

static size_t
columns(const char *s, size_t n)
{
	size_t c = 0, i;
	for (i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xC0) != 0x80;
	return c;
}

/* Append "label text" wrapped at 72 columns; continuation lines are
 * indented, so no line of the message can read as a patch separator. */
static void
wrap(rt_buf *b, const char *label, const char *text)
{
	char *t = plain(text), *word, *save = NULL;
	size_t col = columns(label, strlen(label)), wl;

	rt_buf_adds(b, label);
	for (word = strtok_r(t, " ", &save); word; word = strtok_r(NULL, " ", &save)) {
		wl = columns(word, strlen(word));
		if (col > 2 && col + 1 + wl > 72) {
			rt_buf_adds(b, "\n  ");
			col = 2;
		} else if (col > 0 && b->len && b->data[b->len - 1] != '\n') {
			rt_buf_addc(b, ' ');
			col++;
		}
		rt_buf_adds(b, word);
		col += wl;
	}
	rt_buf_addc(b, '\n');
	free(t);
}

static char *
commit_message(const verdict_t *v, const ship_t *S)
{
	rt_buf b = {0};
	char *s, *t;
	const lane_t *l;
	const conf_t *wc = winner_conf(v);

	rt_buf_printf(&b, "%s\n\n", S->title);
	s = pct_conf();
	if (v->has_target)
		t = rt_xasprintf("%s (rt-verify at %s confidence, target residual rate %.1f%%).",
		    v->verdict, s, 100 * v->target);
	else
		t = rt_xasprintf("%s (rt-verify at %s confidence).", v->verdict, s);
	wrap(&b, "Verdict:", t);
	free(s);
	free(t);
	s = fmt_rate(v->b_failures, v->b_trials, "failed");
	t = rt_xasprintf("%s.", s);
	wrap(&b, "Before:", t);
	free(s);
	free(t);
	if (v->has_winner) {
		s = source_text(v->w_source, v->w_model);
		t = rt_xasprintf("%s, hypothesis %s from %s: %s", v->w_cause ? v->w_cause : "unknown",
		    v->w_id, s, v->w_expl ? v->w_expl : "(no explanation given)");
		wrap(&b, "Cause:", t);
		free(s);
		free(t);
		if ((l = find_lane(v, v->w_id))) {
			s = fmt_lane(l, "failed");
			t = rt_xasprintf("%s.", s);
			wrap(&b, "Tournament:", t);
			free(s);
			free(t);
		}
		if (wc) {
			s = fmt_conf(wc, "failed");
			t = wc->required ? rt_xasprintf("%s on fresh trials, %ld required.", s, wc->required) :
			    rt_xasprintf("%s on fresh trials.", s);
			wrap(&b, "Confirmation:", t);
			free(s);
			free(t);
		}
	}
	s = lanes_summary(v);
	t = rt_xasprintf("%s.", s);
	wrap(&b, "", t);
	free(s);
	free(t);
	if (S->quarantine) {
		t = rt_xasprintf("no candidate fix survived, so %s is added to %s; the evidence is in %s.",
		    S->name, S->qfile, S->dossier_path);
		wrap(&b, "Quarantine:", t);
		free(t);
	}
	if (v->nrepro) {
		size_t i;
		rt_buf_adds(&b, "\nReproduce:\n");
		for (i = 0; i < v->nrepro; i++) {
			s = plain(v->repro[i]);
			rt_buf_printf(&b, "  %s\n", s);
			free(s);
		}
	}
	return b.data;
}

/* ---- diffs ---- */

typedef struct {
	const char *s;
	size_t len;          /* with its '\n', if it has one */
} line_t;

static line_t *
split_lines(const char *s, size_t *n)
{
	line_t *l = NULL;
	size_t cap = 0;
	const char *nl;

	*n = 0;
	while (s && *s) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 32;
			l = rt_xrealloc(l, cap * sizeof *l);
		}
		nl = strchr(s, '\n');
		l[*n].s = s;
		l[*n].len = nl ? (size_t)(nl - s) + 1 : strlen(s);
		s += l[*n].len;
		(*n)++;
	}
	return l;
}

static void
diff_line(rt_buf *b, char mark, const line_t *l)
{
	rt_buf_addc(b, mark);
	rt_buf_add(b, l->s, l->len);
	if (l->len == 0 || l->s[l->len - 1] != '\n')
		rt_buf_adds(b, "\n\\ No newline at end of file\n");
}

static int
same_line(const line_t *a, const line_t *b)
{
	return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

/* A git-style diff turning old (NULL: the file is new) into new_text:
 * one hunk between the common head and tail, with 3 lines of context. */
static void
file_diff(rt_buf *b, const char *path, const char *old, const char *new_text)
{
	line_t *o, *n;
	size_t no, nn, pre = 0, suf = 0, cs, ce_o, ce_n, i;

	if (old && strcmp(old, new_text) == 0)
		return;
	o = split_lines(old, &no);
	n = split_lines(new_text, &nn);
	rt_buf_printf(b, "diff --git a/%s b/%s\n", path, path);
	if (!old) {
		rt_buf_printf(b, "new file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%zu @@\n",
		    path, nn);
		for (i = 0; i < nn; i++)
			diff_line(b, '+', &n[i]);
		free(n);
		return;
	}
	while (pre < no && pre < nn && same_line(&o[pre], &n[pre]))
		pre++;
	while (suf < no - pre && suf < nn - pre && same_line(&o[no - 1 - suf], &n[nn - 1 - suf]))
		suf++;
	cs = pre > 3 ? pre - 3 : 0;
	ce_o = no - suf + (suf > 3 ? 3 : suf);
	ce_n = nn - suf + (suf > 3 ? 3 : suf);
	rt_buf_printf(b, "--- a/%s\n+++ b/%s\n@@ -%zu,%zu +%zu,%zu @@\n", path, path,
	    ce_o - cs ? cs + 1 : cs, ce_o - cs, ce_n - cs ? cs + 1 : cs, ce_n - cs);
	for (i = cs; i < pre; i++)
		diff_line(b, ' ', &o[i]);
	for (i = pre; i < no - suf; i++)
		diff_line(b, '-', &o[i]);
	for (i = pre; i < nn - suf; i++)
		diff_line(b, '+', &n[i]);
	for (i = no - suf; i < ce_o; i++)
		diff_line(b, ' ', &o[i]);
	free(o);
	free(n);
}

/* The patch with prefix put before every path: the project may be a
 * subdirectory of its repository. Hunk bodies are copied untouched. */
static char *
prefix_patch(const char *diff, const char *prefix)
{
	rt_buf b = {0};
	line_t *l;
	size_t n, i;
	long old_left = 0, new_left = 0;

	if (!*prefix)
		return rt_xstrdup(diff);
	l = split_lines(diff, &n);
	for (i = 0; i < n; i++) {
		const char *s = l[i].s;
		size_t len = l[i].len;
		if (old_left > 0 || new_left > 0) {
			if (*s == ' ') {
				old_left--;
				new_left--;
			} else if (*s == '-') {
				old_left--;
			} else if (*s == '+') {
				new_left--;
			}
			rt_buf_add(&b, s, len);
			continue;
		}
		if (strncmp(s, "@@ -", 4) == 0) {
			long a = 0, bb = 1, c = 0, d = 1;
			char *e;
			a = strtol(s + 4, &e, 10);
			if (*e == ',')
				bb = strtol(e + 1, &e, 10);
			if (strncmp(e, " +", 2) == 0) {
				c = strtol(e + 2, &e, 10);
				if (*e == ',')
					d = strtol(e + 1, &e, 10);
			}
			(void)a;
			(void)c;
			old_left = bb;
			new_left = d;
			rt_buf_add(&b, s, len);
		} else if (strncmp(s, "--- a/", 6) == 0 || strncmp(s, "+++ b/", 6) == 0) {
			rt_buf_add(&b, s, 6);
			rt_buf_adds(&b, prefix);
			rt_buf_add(&b, s + 6, len - 6);
		} else if (strncmp(s, "diff --git a/", 13) == 0) {
			const char *bp = strstr(s + 13, " b/");
			if (bp && bp < s + len) {
				rt_buf_adds(&b, "diff --git a/");
				rt_buf_adds(&b, prefix);
				rt_buf_add(&b, s + 13, (size_t)(bp + 3 - (s + 13)));
				rt_buf_adds(&b, prefix);
				rt_buf_add(&b, bp + 3, len - (size_t)(bp + 3 - s));
			} else {
				rt_buf_add(&b, s, len);
			}
		} else if (strncmp(s, "rename from ", 12) == 0 || strncmp(s, "copy from ", 10) == 0 ||
		    strncmp(s, "rename to ", 10) == 0 || strncmp(s, "copy to ", 8) == 0) {
			const char *sp = strchr(strchr(s, ' ') + 1, ' ') + 1;
			rt_buf_add(&b, s, (size_t)(sp - s));
			rt_buf_adds(&b, prefix);
			rt_buf_add(&b, sp, len - (size_t)(sp - s));
		} else {
			rt_buf_add(&b, s, len);
		}
	}
	free(l);
	if (!b.data)
		rt_buf_adds(&b, "");
	return b.data;
}

/* The quarantine list's test name on a line: its first field (as
 * rt-retry(1) reads it); blank and '#' lines name none. */
static int
listed(const char *list, const char *name)
{
	line_t *l;
	size_t n, i, k, nl = strlen(name);
	int hit = 0;

	l = split_lines(list, &n);
	for (i = 0; i < n && !hit; i++) {
		const char *s = l[i].s;
		if (l[i].len == 0 || *s == '#')
			continue;
		for (k = 0; k < l[i].len && !strchr(" \t\r\n", s[k]); k++)
			;
		hit = k == nl && memcmp(s, name, nl) == 0;
	}
	free(l);
	return hit;
}

static const char quarantine_header[] =
    "# Quarantined flaky tests, one per line: the test's name, then (after a TAB)\n"
    "# a comment naming its evidence dossier. Blank lines and lines starting\n"
    "# with '#' are ignored. Written by rt-pr(1); rt-pr(1), QUARANTINE, shows\n"
    "# how CI reads it.\n";

/* The quarantine change: the list extended, the dossier added. */
static char *
quarantine_diff(repo_t *r, const ship_t *S, const char *dossier)
{
	char *qpath = rt_xasprintf("%s%s", r->git ? r->prefix : "", S->qfile);
	char *dpath = rt_xasprintf("%s%s", r->git ? r->prefix : "", S->dossier_path);
	char *old_q, *old_d, *new_q;
	rt_buf b = {0}, q = {0};

	if (r->git) {
		old_q = head_file(r, qpath);
		old_d = head_file(r, dpath);
	} else {
		char *p = rt_xasprintf("%s/%s", opt_dir, S->qfile);
		if (!(old_q = rt_read_file(p, NULL)) && errno != ENOENT)
			rt_die("%s:", p);
		free(p);
		p = rt_xasprintf("%s/%s", opt_dir, S->dossier_path);
		if (!(old_d = rt_read_file(p, NULL)) && errno != ENOENT)
			rt_die("%s:", p);
		free(p);
	}
	if (old_q) {
		rt_buf_adds(&q, old_q);
		if (q.len && q.data[q.len - 1] != '\n')
			rt_buf_addc(&q, '\n');
	} else {
		rt_buf_adds(&q, quarantine_header);
	}
	if (!old_q || !listed(old_q, S->name))
		rt_buf_printf(&q, "%s\t# dossier: %s\n", S->name, S->dossier_path);
	new_q = q.data;
	if (!old_q || !listed(old_q, S->name))
		file_diff(&b, qpath, old_q, new_q);
	file_diff(&b, dpath, old_d, dossier);
	free(qpath);
	free(dpath);
	free(old_q);
	free(old_d);
	free(new_q);
	return b.data;       /* NULL: nothing to change */
}

/* ---- dates and the mbox ---- */

static long long
change_epoch(const verdict_t *v)
{
	const char *e = getenv("SOURCE_DATE_EPOCH");
	long n;

	if (v->has_epoch)
		return v->epoch;
	if (e && rt_parse_long(e, 0, LONG_MAX, &n) == 0)
		return n;
	return (long long)time(NULL);
}

static void
rfc2822_date(long long epoch, char *buf, size_t size)
{
	time_t t = (time_t)epoch;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, size, "%a, %d %b %Y %H:%M:%S +0000", &tm);
}

/* "Subject: [PATCH] title", RFC 2047 Q-encoded and folded when the title
 * is not plain ASCII (as git format-patch writes it). */
static void
add_subject(rt_buf *b, const char *title)
{
	const unsigned char *p;
	size_t wl = 0, k, e, i;
	int ascii = 1;

	for (p = (const unsigned char *)title; *p; p++)
		if (*p >= 0x80 || is_blank_or_ctl(*p))
			ascii = 0;
	if (ascii) {
		rt_buf_printf(b, "Subject: [PATCH] %s\n", title);
		return;
	}
	rt_buf_adds(b, "Subject: [PATCH] =?UTF-8?q?");
	wl = 17 + 10;
	for (p = (const unsigned char *)title; *p; p += k) {
		k = 1;
		if (*p >= 0xC0)
			while (k < 4 && (p[k] & 0xC0) == 0x80)
				k++;
		for (e = 0, i = 0; i < k; i++)
			e += isalnum(p[i]) || strchr("!*+-/", p[i]) ? 1 : 3;
		if (wl + e + 2 > 75) {
			rt_buf_adds(b, "?=\n =?UTF-8?q?");
			wl = 1 + 10;
		}
		for (i = 0; i < k; i++) {
			if (p[i] && (isalnum(p[i]) || strchr("!*+-/", p[i])))
				rt_buf_addc(b, (char)p[i]);
			else
				rt_buf_printf(b, "=%02X", is_blank_or_ctl(p[i]) ? 0x20 : p[i]);
		}
		wl += e;
	}
	rt_buf_adds(b, "?=\n");
}

/* Notes between "---" and the diff are ignored by git am; keep any line
 * that could look like a patch or a new message from reading as one. */
static void
add_notes(rt_buf *b, const char *text)
{
	line_t *l;
	size_t n, i;
	static const char *const risky[] = { "diff ", "--- ", "---\n", "+++ ", "Index: ", "From ", "@@", NULL };

	l = split_lines(text, &n);
	for (i = 0; i < n; i++) {
		size_t j;
		for (j = 0; risky[j]; j++)
			if (l[i].len >= strlen(risky[j]) && strncmp(l[i].s, risky[j], strlen(risky[j])) == 0)
				break;
		if (risky[j])
			rt_buf_addc(b, ' ');
		rt_buf_add(b, l[i].s, l[i].len);
	}
	free(l);
}

static void
parse_author(const char *a, char **name, char **email)
{
	const char *lt = strchr(a, '<'), *gt = strrchr(a, '>');
	const char *c;
	size_t nl;

	for (c = a; *c; c++)
		if (is_blank_or_ctl((unsigned char)*c))
			rt_usage_die("--author: control characters are not allowed");
	if (!lt || !gt || gt < lt || gt[1] != '\0' || lt == a)
		rt_usage_die("--author %s: must be 'NAME <EMAIL>'", a);
	nl = (size_t)(lt - a);
	while (nl > 0 && a[nl - 1] == ' ')
		nl--;
	if (nl == 0 || gt == lt + 1)
		rt_usage_die("--author %s: must be 'NAME <EMAIL>'", a);
	*name = rt_xmalloc(nl + 1);
	memcpy(*name, a, nl);
	(*name)[nl] = '\0';
	*email = rt_xmalloc((size_t)(gt - lt));
	memcpy(*email, lt + 1, (size_t)(gt - lt - 1));
	(*email)[gt - lt - 1] = '\0';
}

static char *
make_mbox(const char *author, long long epoch, const char *title, const char *msg,
    const char *notes, const char *diff)
{
	rt_buf b = {0};
	char hex[65], date[64];
	const char *body = strchr(msg, '\n');

	rt_sha256_hex(diff, strlen(diff), hex);
	hex[40] = '\0';
	rfc2822_date(epoch, date, sizeof date);
	rt_buf_printf(&b, "From %s Mon Sep 17 00:00:00 2001\n", hex);
	rt_buf_printf(&b, "From: %s\n", author);
	rt_buf_printf(&b, "Date: %s\n", date);
	add_subject(&b, title);
	rt_buf_adds(&b, "MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"
	    "Content-Transfer-Encoding: 8bit\n\n");
	/* the message's body: everything after the subject line and its blank */
	body = body ? body + 1 : "";
	while (*body == '\n')
		body++;
	rt_buf_adds(&b, body);
	rt_buf_adds(&b, "---\n");
	if (notes) {
		rt_buf_adds(&b, "\n");
		add_notes(&b, notes);
		rt_buf_adds(&b, "\n");
	}
	rt_buf_adds(&b, diff);
	if (b.data[b.len - 1] != '\n')
		rt_buf_addc(&b, '\n');
	rt_buf_adds(&b, "-- \nrt-pr (retrial)\n\n");
	return b.data;
}

static void
write_out(const char *path, const char *data, const char *what)
{
	if (strcmp(path, "-") == 0) {
		if (fwrite(data, 1, strlen(data), stdout) != strlen(data))
			rt_die("stdout: write error:");
		return;
	}
	if (rt_write_file_atomic(path, data, strlen(data)) < 0)
		rt_die("%s: cannot write the %s:", path, what);
}

/* ---- GitHub ---- */

static char *gh_base_url;

static char *
urlenc(const char *s)
{
	rt_buf b = {0};
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (isalnum(c) || strchr("-._~", c))
			rt_buf_addc(&b, (char)c);
		else
			rt_buf_printf(&b, "%%%02X", c);
	}
	return b.data ? b.data : rt_xstrdup("");
}

/* One API call: the HTTP status (0: no answer), the parsed body in *out
 * (may be NULL), and in *msg GitHub's message or the transport error. */
static long
gh_call(const char *method, const char *path, json_t *body, json_t **out, char **msg)
{
	rt_http_req q;
	rt_http_resp r;
	char *url = rt_xasprintf("%s%s", gh_base_url, path);
	char *auth = rt_xasprintf("Authorization: Bearer %s", gh_token);
	const char *hdr[] = { "Accept: application/vnd.github+json", auth,
		"X-GitHub-Api-Version: 2022-11-28", "Content-Type: application/json", NULL };
	char *data = body ? rt_dumps(body) : NULL;
	json_t *j = NULL, *m, *errs, *e;
	rt_buf mb = {0};
	size_t i;
	volatile char *z;

	memset(&q, 0, sizeof q);
	q.method = method;
	q.url = url;
	q.headers = hdr;
	q.body = data;
	q.body_len = data ? strlen(data) : 0;
	q.timeout_s = 60;
	q.verbose = opt_verbose;
	rt_http_perform(&q, &r, 1);
	for (z = auth; *z; z++)
		*z = 0;
	free(auth);
	free(data);
	free(url);
	if (r.body && r.body_len)
		j = json_loadb(r.body, r.body_len, 0, NULL);
	if (r.status == 0) {
		rt_buf_adds(&mb, r.error[0] ? r.error : "no response");
	} else if (json_is_object(j)) {
		if (json_is_string(m = json_object_get(j, "message")))
			rt_buf_adds(&mb, json_string_value(m));
		errs = json_object_get(j, "errors");
		for (i = 0; json_is_array(errs) && i < json_array_size(errs); i++) {
			e = json_array_get(errs, i);
			if (json_is_object(e) && json_is_string(m = json_object_get(e, "message")))
				rt_buf_printf(&mb, "%s%s", mb.len ? ": " : "", json_string_value(m));
		}
	}
	if (!mb.data)
		rt_buf_printf(&mb, "HTTP %ld", r.status);
	*msg = scrub(mb.data);
	rt_buf_free(&mb);
	rt_http_resp_free(&r);
	*out = j;
	return r.status;
}

/* The pull request whose head is branch, if any (open or closed). */
static json_t *
gh_find_pr(const char *owner, const char *repo, const char *branch, int fatal)
{
	char *head = rt_xasprintf("%s:%s", owner, branch), *eh = urlenc(head);
	char *path = rt_xasprintf("/repos/%s/%s/pulls?head=%s&state=all&per_page=10", owner, repo, eh);
	char *msg;
	json_t *j, *pr = NULL;
	long st = gh_call("GET", path, NULL, &j, &msg);

	if (st != 200) {
		if (fatal && st)
			rt_die("GitHub: GET /repos/%s/%s/pulls: HTTP %ld: %s; nothing was pushed",
			    owner, repo, st, msg);
		if (fatal)
			rt_die("GitHub: GET /repos/%s/%s/pulls: %s; nothing was pushed", owner, repo, msg);
	} else if (json_is_array(j) && json_array_size(j) > 0) {
		pr = json_incref(json_array_get(j, 0));
	}
	json_decref(j);
	free(msg);
	free(path);
	free(head);
	free(eh);
	return pr;
}

static void
report_existing(json_t *pr, const char *branch)
{
	json_t *u = json_object_get(pr, "html_url"), *n = json_object_get(pr, "number"),
	    *s = json_object_get(pr, "state");
	char *url = scrub(json_is_string(u) ? json_string_value(u) : "");

	rt_warn("a pull request for %s already exists: #%lld (%s); not opening a second",
	    branch, json_is_integer(n) ? (long long)json_integer_value(n) : 0LL,
	    json_is_string(s) ? json_string_value(s) : "state unknown");
	printf("%s\n", url);
	free(url);
}

/* The SHA a remote branch points at, or NULL when it does not exist. */
static char *
remote_branch(repo_t *r, const char *const *env, const char *helper, const char *branch)
{
	proc_t p;
	char *ref = rt_xasprintf("refs/heads/%s", branch), *sha = NULL, *tab;

	if (git(r, env, NULL, &p, "-c", "credential.helper=", "-c", helper, "ls-remote",
	    opt_remote, ref, (char *)NULL) < 0)
		rt_die("git ls-remote %s: %s; nothing was pushed", opt_remote, complaint(p.err.data));
	if (p.out.len && (tab = strchr(p.out.data, '\t'))) {
		*tab = '\0';
		sha = rt_xstrdup(p.out.data);
	}
	proc_free(&p);
	free(ref);
	return sha;
}

/* Build the change as a commit object on HEAD with plumbing and a
 * temporary index; no ref, index or file of the user's changes. */
static char *
build_commit(repo_t *r, const char *diff, const char *msg, const char *aname,
    const char *aemail, long long epoch)
{
	const char *const *ienv = index_env(r);
	char *tree, *commit, *date = rt_xasprintf("%lld +0000", epoch);
	char *e[8];
	proc_t p;
	int i;

	if (git(r, ienv, diff, &p, "apply", "--cached", "--whitespace=nowarn", "-", (char *)NULL) < 0)
		rt_die("git apply --cached: %s", complaint(p.err.data));
	proc_free(&p);
	if (git(r, ienv, NULL, &p, "write-tree", (char *)NULL) < 0)
		rt_die("git write-tree: %s", complaint(p.err.data));
	tree = rt_xstrdup(chomp(p.out.data));
	proc_free(&p);
	e[0] = rt_xasprintf("GIT_AUTHOR_NAME=%s", aname);
	e[1] = rt_xasprintf("GIT_AUTHOR_EMAIL=%s", aemail);
	e[2] = rt_xasprintf("GIT_AUTHOR_DATE=%s", date);
	e[3] = rt_xasprintf("GIT_COMMITTER_NAME=%s", aname);
	e[4] = rt_xasprintf("GIT_COMMITTER_EMAIL=%s", aemail);
	e[5] = rt_xasprintf("GIT_COMMITTER_DATE=%s", date);
	e[6] = NULL;
	if (git(r, (const char *const *)e, msg, &p, "commit-tree", tree, "-p", r->head, (char *)NULL) < 0)
		rt_die("git commit-tree: %s", complaint(p.err.data));
	commit = rt_xstrdup(chomp(p.out.data));
	proc_free(&p);
	for (i = 0; e[i]; i++)
		free(e[i]);
	free(tree);
	free(date);
	return commit;
}

static void
ship_github(repo_t *r, const verdict_t *v, const ship_t *S, const char *diff,
    const char *msg, const char *dossier, const char *aname, const char *aemail)
{
	char owner[256], repo[256], *slash, *base, *m, *commit, *existing, *pmsg, *refspec;
	char *envs[3];
	const char *helper = "credential.helper=!f() { test \"$1\" = get || exit 0; "
	    "echo username=x-access-token; printf 'password=%s\\n' \"$" TOKEN_ENV "\"; }; f";
	json_t *pr, *j, *body;
	long st;
	proc_t p;
	int created = 0;

	slash = strchr(opt_github, '/');
	snprintf(owner, sizeof owner, "%.*s", (int)(slash - opt_github), opt_github);
	snprintf(repo, sizeof repo, "%s", slash + 1);
	envs[0] = rt_xasprintf(TOKEN_ENV "=%s", gh_token);
	envs[1] = "GIT_TERMINAL_PROMPT=0";
	envs[2] = NULL;

	if (git(r, NULL, NULL, &p, "remote", "get-url", opt_remote, (char *)NULL) < 0)
		rt_die("%s: no git remote named %s (use --remote)", opt_dir, opt_remote);
	proc_free(&p);

	/* 1. the same verdict shipped before? */
	if ((pr = gh_find_pr(owner, repo, S->branch, 1))) {
		report_existing(pr, S->branch);
		json_decref(pr);
		free(envs[0]);
		return;
	}
	/* 2. the base */
	if (opt_base) {
		base = rt_xstrdup(opt_base);
	} else {
		char *path = rt_xasprintf("/repos/%s/%s", owner, repo);
		st = gh_call("GET", path, NULL, &j, &m);
		if (st != 200 || !json_is_string(json_object_get(j, "default_branch")))
			rt_die("GitHub: GET %s: %s%s; nothing was pushed", path,
			    st ? rt_xasprintf("HTTP %ld: ", st) : "", m);
		base = rt_xstrdup(json_string_value(json_object_get(j, "default_branch")));
		json_decref(j);
		free(m);
		free(path);
	}
	/* 3. the commit, 4. the branch */
	commit = build_commit(r, diff, msg, aname, aemail, change_epoch(v));
	existing = remote_branch(r, (const char *const *)envs, helper, S->branch);
	if (existing && strcmp(existing, commit) != 0)
		rt_die("branch %s already exists on %s at %.12s, which is not this change, and no "
		    "pull request uses it; delete it (git push %s --delete %s) and run again",
		    S->branch, opt_remote, existing, opt_remote, S->branch);
	if (!existing) {
		refspec = rt_xasprintf("%s:refs/heads/%s", commit, S->branch);
		snprintf(pushed_note, sizeof pushed_note,
		    "%s: interrupted: branch %s was pushed to %s and is left there\n",
		    rt_progname, S->branch, opt_remote);
		if (git(r, (const char *const *)envs, NULL, &p, "-c", "credential.helper=", "-c", helper,
		    "push", "--quiet", opt_remote, refspec, (char *)NULL) < 0) {
			pushed_note[0] = '\0';
			rt_die("git push %s: %s; nothing was pushed", opt_remote, complaint(p.err.data));
		}
		proc_free(&p);
		free(refspec);
		created = 1;
	}
	/* 5. the pull request */
	body = json_pack("{s:s, s:s, s:s, s:s, s:b, s:b}", "title", S->title, "head", S->branch,
	    "base", base, "body", dossier, "maintainer_can_modify", 1, "draft", opt_draft);
	{
		char *path = rt_xasprintf("/repos/%s/%s/pulls", owner, repo);
		st = gh_call("POST", path, body, &j, &pmsg);
		free(path);
	}
	json_decref(body);
	if (st == 201 && json_is_object(j)) {
		json_t *u = json_object_get(j, "html_url"), *n = json_object_get(j, "number");
		char *url = scrub(json_is_string(u) ? json_string_value(u) : "");
		pushed_note[0] = '\0';
		rt_warn("opened pull request #%lld: %s into %s",
		    json_is_integer(n) ? (long long)json_integer_value(n) : 0LL, S->branch, base);
		printf("%s\n", url);
		free(url);
		goto done;
	}
	if (st == 422 && strstr(pmsg, "already exists")) {
		pushed_note[0] = '\0';
		if ((pr = gh_find_pr(owner, repo, S->branch, 0))) {
			report_existing(pr, S->branch);
			json_decref(pr);
		} else {
			rt_warn("GitHub says a pull request for %s:%s already exists (%s); not "
			    "opening a second; branch %s is on %s", owner, S->branch, pmsg,
			    S->branch, opt_remote);
		}
		goto done;
	}
	/* failed halfway: take the branch back, or say exactly what is left */
	{
		char *what = st ? rt_xasprintf("HTTP %ld: %s", st, pmsg) : rt_xstrdup(pmsg);
		char *del = rt_xasprintf(":refs/heads/%s", S->branch);
		rt_warn("GitHub: POST /repos/%s/%s/pulls: %s", owner, repo, what);
		if (!created) {
			rt_warn("branch %s was on %s before this run (at %.12s) and is left as it was; "
			    "no pull request was opened", S->branch, opt_remote, commit);
		} else if (git(r, (const char *const *)envs, NULL, &p, "-c", "credential.helper=", "-c",
		    helper, "push", "--quiet", opt_remote, del, (char *)NULL) == 0) {
			rt_warn("removed branch %s from %s again; nothing is left behind", S->branch,
			    opt_remote);
		} else {
			char *why = complaint(p.err.data);
			rt_warn("branch %s is left on %s at %.12s (removing it failed: %s); no pull "
			    "request was opened; remove it with: git push %s --delete %s", S->branch,
			    opt_remote, commit, why, opt_remote, S->branch);
			free(why);
		}
		pushed_note[0] = '\0';
		free(what);
		free(del);
		json_decref(j);
		free(pmsg);
		free(base);
		free(commit);
		free(existing);
		free(envs[0]);
		exit(RT_EXIT_ERR);
	}
done:
	json_decref(j);
	free(pmsg);
	free(base);
	free(commit);
	free(existing);
	free(envs[0]);
}

static char *
read_token(void)
{
	char *t;
	size_t n;
	const char *e;

	if (opt_token_file) {
		if (!(t = rt_read_file(opt_token_file, &n)))
			rt_die("%s:", opt_token_file);
	} else {
		if (!(e = getenv("GITHUB_TOKEN")) || !*e)
			rt_die("--github needs a token: set GITHUB_TOKEN or use --token-file");
		t = rt_xstrdup(e);
	}
	n = strlen(t);
	while (n > 0 && isspace((unsigned char)t[n - 1]))
		t[--n] = '\0';
	if (!n || strpbrk(t, "\r\n"))
		rt_die("%s: not a token", opt_token_file ? opt_token_file : "GITHUB_TOKEN");
	return t;
}

/* ---- main ---- */

/* git config retrial.author in DIR, if set. */
static char *
config_author(void)
{
	repo_t r;
	proc_t p;
	char *a = NULL;

	memset(&r, 0, sizeof r);
	if (git(&r, NULL, NULL, &p, "config", "--get", "retrial.author", (char *)NULL) == 0 &&
	    *chomp(p.out.data))
		a = rt_xstrdup(p.out.data);
	proc_free(&p);
	return a;
}

static void
refuse(const verdict_t *v)
{
	char *b = fmt_rate(v->b_failures, v->b_trials, "failed");

	if (v->interrupted)
		rt_warn("the verdict record says the run was interrupted: %s is not final; "
		    "nothing to ship", v->verdict);
	else if (strcmp(v->verdict, "REGRESSION") == 0)
		rt_warn("verdict REGRESSION: the test fails every time (%s); that is a broken "
		    "build, not a flaky test: fix the code, not the test; nothing to ship", b);
	else if (strcmp(v->verdict, "INCONCLUSIVE_BASELINE") == 0)
		rt_warn("verdict INCONCLUSIVE_BASELINE: the baseline (%s) does not show the test "
		    "is flaky; measure longer (rt-measure, rt-plan) before shipping anything", b);
	else if (strcmp(v->verdict, "ALREADY_STABLE") == 0)
		rt_warn("verdict ALREADY_STABLE: the test is stable (%s); nothing to fix", b);
	else if (strcmp(v->verdict, "ERROR") == 0)
		rt_warn("verdict ERROR: the baseline could not run the test (%s, %ld errors); "
		    "nothing to ship", b, v->b_errors);
	else {
		free(b);
		return;
	}
	free(b);
	exit(RT_EXIT_NO);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "allow-path", required_argument, NULL, 'P' },
		{ "author", required_argument, NULL, 'a' },
		{ "base", required_argument, NULL, 'B' },
		{ "body", required_argument, NULL, 'b' },
		{ "directory", required_argument, NULL, 'C' },
		{ "draft", no_argument, NULL, 'D' },
		{ "github", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ "mbox", required_argument, NULL, 'm' },
		{ "quarantine-file", required_argument, NULL, 'q' },
		{ "remote", required_argument, NULL, 'r' },
		{ "template", required_argument, NULL, 't' },
		{ "test", required_argument, NULL, 'T' },
		{ "token-file", required_argument, NULL, 'K' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	verdict_t v;
	ship_t S;
	repo_t R;
	char *dossier = NULL, *msg, *diff = NULL, *aname, *aemail, *why, *s, hex[65];
	char *author;
	struct sigaction sa;
	const char *e;
	int c;

	rt_setprogname(argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "a:b:C:g:hm:q:r:t:vV", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': opt_author = optarg; break;
		case 'B': opt_base = optarg; break;
		case 'b': opt_body = optarg; break;
		case 'C': opt_dir = optarg; break;
		case 'D': opt_draft = 1; break;
		case 'P':
			opt_allow_path = rt_xrealloc(opt_allow_path,
			    (opt_nallow_path + 1) * sizeof *opt_allow_path);
			opt_allow_path[opt_nallow_path++] = optarg;
			break;
		case 'g': opt_github = optarg; break;
		case 'h': usage(); rt_fshut(stdout, "stdout"); return 0;
		case 'K': opt_token_file = optarg; break;
		case 'm': opt_mbox = optarg; break;
		case 'q': opt_qfile = optarg; break;
		case 'r': opt_remote = optarg; break;
		case 't': opt_tmpl = optarg; break;
		case 'T': opt_test = optarg; break;
		case 'v': opt_verbose = 1; break;
		case 'V': rt_print_version(); rt_fshut(stdout, "stdout"); return 0;
		default: rt_bad_option(c, "a:b:C:g:hm:q:r:t:vV", argv);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		rt_usage_die("one verdict file at most (%d given)", argc);
	if (!opt_mbox && !opt_body && !opt_github)
		rt_usage_die("nothing to do: give --mbox FILE, --body FILE or --github OWNER/REPO");
	if (opt_github) {
		const char *sl = strchr(opt_github, '/'), *x;
		if (!sl || sl == opt_github || !sl[1] || strchr(sl + 1, '/') || strlen(opt_github) > 200)
			rt_usage_die("--github %s: must be OWNER/REPO", opt_github);
		for (x = opt_github; *x; x++)
			if (!isalnum((unsigned char)*x) && !strchr("-_./", *x))
				rt_usage_die("--github %s: must be OWNER/REPO", opt_github);
	} else if (opt_base || opt_token_file || opt_draft || strcmp(opt_remote, "origin") != 0) {
		rt_usage_die("--remote, --base, --token-file and --draft need --github");
	}
	if (!safe_relpath(opt_qfile))
		rt_usage_die("--quarantine-file %s: must be a relative path inside the project", opt_qfile);
	if (opt_mbox && opt_body && strcmp(opt_mbox, "-") == 0 && strcmp(opt_body, "-") == 0)
		rt_usage_die("--mbox and --body cannot both write to stdout");
	author = opt_author ? rt_xstrdup(opt_author) : config_author();
	parse_author(author ? author : DEFAULT_AUTHOR, &aname, &aemail);

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	atexit(cleanup_tmp);

	/* the record */
	memset(&v, 0, sizeof v);
	memset(&R, 0, sizeof R);
	rt_jsonl_loop(argc, argv, NULL, on_record, &v);
	if (!v.rec)
		rt_die("%s: no verdict record (type \"verdict\") in the input",
		    argc ? argv[0] : "<stdin>");
	parse_verdict(&v);
	g_conf = v.conf;
	refuse(&v);
	memset(&S, 0, sizeof S);
	S.fixed = strcmp(v.verdict, "FIXED") == 0;
	S.improved = strcmp(v.verdict, "IMPROVED") == 0;
	S.quarantine = strcmp(v.verdict, "QUARANTINE") == 0;
	if (!S.fixed && !S.improved && !S.quarantine)
		rt_die_at(&v.where, "\"verdict\": unknown verdict %s", v.verdict);
	S.name = opt_test ? opt_test : v.test ? v.test : v.command;
	if (!S.name || !*S.name)
		rt_die_at(&v.where, "the record names no test (\"test\" missing); use --test NAME");
	S.slug = slugify(S.name);

	/* the change: the winner's patch, or the quarantine */
	if (S.fixed || S.improved) {
		char err[256];
		const conf_t *wc;
		const lane_t *l;
		if (!v.has_winner || !v.w_patch || !*v.w_patch)
			rt_die_at(&v.where, "verdict %s without a winner's patch", v.verdict);
		if (rt_patch_paths(v.w_patch, &S.files, &S.nfiles, err, sizeof err) < 0)
			rt_die("the winning patch is refused: %s", err);
		if (rt_patch_dangerous(S.files, S.nfiles, opt_allow_path, opt_nallow_path,
		    err, sizeof err))
			rt_die("the winning patch is refused: %s (--allow-path to permit)", err);
		g_permitted = permitted_paths(S.files, S.nfiles);
		rt_sha256_hex(v.w_patch, strlen(v.w_patch), hex);
		S.branch = rt_xasprintf("retrial/fix-%s-%.8s", S.slug, hex);
		wc = winner_conf(&v);
		l = find_lane(&v, v.w_id);
		S.after = wc ? fmt_conf(wc, "") : l ? fmt_lane(l, "") : rt_xstrdup("not measured");
		s = plain(S.name);
		S.title = rt_xasprintf("%s %s: %ld/%ld failed before, %s after",
		    S.fixed ? "Fix flaky" : "Reduce flakiness of", s, v.b_failures, v.b_trials, S.after);
		free(s);
	} else {
		const char *x;
		for (x = S.name; *x; x++)
			if (is_blank_or_ctl((unsigned char)*x) || *x == ' ')
				rt_die("test name \"%s\" has blanks or control characters and cannot go on "
				    "a quarantine list; name the test with --test NAME", S.name);
		if (*S.name == '#')
			rt_die("a test name starting with '#' cannot go on a quarantine list");
		S.qfile = rt_xstrdup(opt_qfile);
		S.dossier_path = rt_xasprintf(DOSSIER_DIR "/%s.md", S.slug);
		{
			char *rec = json_dumps(v.rec, JSON_COMPACT | JSON_SORT_KEYS);
			rt_sha256_hex(rec, strlen(rec), hex);
			free(rec);
		}
		S.branch = rt_xasprintf("retrial/quarantine-%s-%.8s", S.slug, hex);
		s = plain(S.name);
		S.after = fmt_rate(v.b_failures, v.b_trials, "failed");
		S.title = rt_xasprintf("Quarantine flaky %s: %s, no fix survived", s, S.after);
		free(s);
	}
	dossier = render_dossier(&v, &S);
	msg = commit_message(&v, &S);

	if (opt_mbox || opt_github) {
		repo_open(&R);
		if (opt_github && !R.git)
			rt_die("%s: --github needs a git work tree", opt_dir);
		if (S.quarantine) {
			if (!(diff = quarantine_diff(&R, &S, dossier))) {
				rt_warn("%s is already on %s with this dossier; nothing to ship", S.name, S.qfile);
				opt_mbox = opt_github = NULL;
			}
		} else {
			/* ship what rt-verify applied: the checked sections only,
			 * never a git header (mode, rename) it did not see */
			char cerr[256], *canon = rt_patch_canonical(v.w_patch, cerr, sizeof cerr);
			if (!canon)
				rt_die("the winning patch is refused: %s", cerr);
			diff = prefix_patch(canon, R.git ? R.prefix : "");
			free(canon);
			if (!*diff || diff[strlen(diff) - 1] != '\n') {
				s = rt_xasprintf("%s\n", diff);
				free(diff);
				diff = s;
			}
		}
		if (diff && apply_check(&R, diff, &why) < 0) {
			rt_warn("the %s does not apply to %s of %s: %s", S.quarantine ?
			    "quarantine change" : "winning patch", R.git ? "HEAD" : "the files",
			    opt_dir, why);
			exit(RT_EXIT_ERR);
		}
	}
	if (opt_github) {
		gh_token = read_token();
		e = getenv("GITHUB_API_URL");
		gh_base_url = rt_xstrdup(e && *e ? e : GH_API);
		while (*gh_base_url && gh_base_url[strlen(gh_base_url) - 1] == '/')
			gh_base_url[strlen(gh_base_url) - 1] = '\0';
	}
	if (opt_body)
		write_out(opt_body, dossier, "dossier");
	if (opt_mbox) {
		char *mbox = make_mbox(author ? author : DEFAULT_AUTHOR, change_epoch(&v), S.title,
		    msg, S.quarantine ? NULL : dossier, diff);
		write_out(opt_mbox, mbox, "mbox");
		free(mbox);
	}
	if (opt_github) {
		rt_http_init();
		ship_github(&R, &v, &S, diff, msg, dossier, aname, aemail);
		rt_http_cleanup();
	}
	rt_fshut(stdout, "stdout");
	if (R.git) {
		free(R.top);
		free(R.prefix);
		free(R.head);
	}
	free(v.lanes);
	free(v.confs);
	free(v.repro);
	json_decref(v.rec);
	rt_patch_paths_free(S.files, S.nfiles);
	free(S.slug);
	free(S.title);
	free(S.branch);
	free(S.qfile);
	free(S.dossier_path);
	free(S.after);
	free(author);
	free(aname);
	free(aemail);
	free(gh_token);
	free(gh_base_url);
	free(dossier);
	free(msg);
	free(diff);
	return 0;
}
