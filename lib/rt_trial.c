/* rt_trial: the trial engine — posix_spawn into a new process group with a
 * scrubbed environment and no descriptor but 0-2, both streams drained
 * through poll(), timeouts, leftovers killed, parallel slots, clean stops. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_jsonl.h"
#include "rt_platform.h"
#include "rt_sandbox.h"
#include "rt_stats.h"
#include "rt_trial.h"
#include "rt_util.h"

extern char **environ;

/* How long to keep reading a trial's pipes after its process exited, for
 * output still held open by a background grandchild. */
#define DRAIN_MS 200.0

static const char *outcome_names[] = { "pass", "fail", "timeout", "error", "ignored", "skip" };

const char *
rt_outcome_name(rt_outcome o)
{
	return (unsigned)o < 6 ? outcome_names[o] : "error";
}

int
rt_outcome_parse(const char *s, rt_outcome *o)
{
	int i;
	for (i = 0; i < 6; i++)
		if (strcmp(s, outcome_names[i]) == 0) {
			*o = (rt_outcome)i;
			return 0;
		}
	return -1;
}

void
rt_trial_opts_init(rt_trial_opts *o)
{
	memset(o, 0, sizeof *o);
	o->max_output = 64 * 1024;
	o->timeout_signal = SIGTERM;
	o->grace_s = 2;
	o->jobs = 1;
	o->error_code[126] = 1;
	o->error_code[127] = 1;
}

int
rt_trial_parse_codes(rt_trial_opts *o, const char *spec)
{
	unsigned char codes[256] = {0};
	char *s = rt_xstrdup(spec), *tok, *save = NULL, *dash;
	long a, b, i;
	int rc = 0;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if ((dash = strchr(tok, '-')) && dash != tok) {
			*dash = '\0';
			if (rt_parse_long(tok, 1, 255, &a) < 0 ||
			    rt_parse_long(dash + 1, 1, 255, &b) < 0 || b < a) {
				rc = -1;
				break;
			}
		} else if (rt_parse_long(tok, 1, 255, &a) == 0) {
			b = a;
		} else {
			rc = -1;
			break;
		}
		for (i = a; i <= b; i++)
			codes[i] = 1;
	}
	free(s);
	if (rc == 0)
		memcpy(o->error_code, codes, sizeof codes);
	return rc;
}

uint64_t
rt_trial_seed(uint64_t seed, long trial)
{
	/* keep it below 2^53 so every JSON reader sees the same number */
	return rt_mix64(seed ^ rt_mix64((uint64_t)trial)) >> 11;
}

/* --- signals ---------------------------------------------------------- */

static volatile sig_atomic_t caught_sig;
static int wake[2] = { -1, -1 };

static void
on_signal(int sig)
{
	int e = errno;
	if (sig != SIGCHLD && !caught_sig)
		caught_sig = rt_stop_signal = sig;
	if (wake[1] >= 0)
		(void)!write(wake[1], "x", 1);
	errno = e;
}

static void
set_flags(int fd)
{
	fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void
wake_init(void)
{
	struct sigaction sa;

	if (wake[0] >= 0)
		return;
	if (pipe(wake) < 0)
		rt_die("pipe:");
	set_flags(wake[0]);
	set_flags(wake[1]);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
}

void
rt_trial_signals_install(void)
{
	struct sigaction sa;

	wake_init();
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a read or write blocked on a FIFO, a stalled pipe or
	 * a terminal returns EINTR, so the stop is seen (rt_die then exits
	 * with the signal's status, not 2) instead of waiting forever */
	sa.sa_flags = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);   /* a closed terminal stops like TERM */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

int
rt_trial_interrupted(void)
{
	return caught_sig;
}

/* --- output capture: head and tail of each stream --------------------- */

typedef struct {
	size_t hcap, rcap;           /* head capacity, ring capacity */
	char *head, *ring;
	size_t hlen, rlen, rpos;     /* ring: bytes held, next write position */
	unsigned long long total;
} capture;

static void
cap_init(capture *c, size_t max)
{
	memset(c, 0, sizeof *c);
	c->hcap = max / 2;
	c->rcap = max - c->hcap;
}

static void
cap_add(capture *c, const char *p, size_t n)
{
	size_t k;

	c->total += n;
	if (c->hlen < c->hcap) {
		k = c->hcap - c->hlen < n ? c->hcap - c->hlen : n;
		if (!c->head)
			c->head = rt_xmalloc(c->hcap);
		memcpy(c->head + c->hlen, p, k);
		c->hlen += k;
		p += k;
		n -= k;
	}
	if (n == 0 || c->rcap == 0)
		return;
	if (!c->ring)
		c->ring = rt_xmalloc(c->rcap);
	if (n >= c->rcap) {          /* only the last rcap bytes survive */
		memcpy(c->ring, p + n - c->rcap, c->rcap);
		c->rpos = 0;
		c->rlen = c->rcap;
		return;
	}
	k = c->rcap - c->rpos < n ? c->rcap - c->rpos : n;
	memcpy(c->ring + c->rpos, p, k);
	memcpy(c->ring, p + k, n - k);
	c->rpos = (c->rpos + n) % c->rcap;
	c->rlen = c->rlen + n > c->rcap ? c->rcap : c->rlen + n;
}

static void
cap_finish(capture *c, rt_capture *out)
{
	rt_buf b = {0};
	unsigned long long kept = c->hlen + c->rlen;
	size_t start;

	rt_buf_add(&b, c->head, c->hlen);
	if (c->total > kept) {
		char mark[96];
		snprintf(mark, sizeof mark, "\n[retrial: %llu bytes omitted]\n",
		    c->total - kept);
		rt_buf_adds(&b, mark);
	}
	if (c->rlen < c->rcap) {
		rt_buf_add(&b, c->ring, c->rlen);
	} else {                     /* full ring: oldest byte at rpos */
		start = c->rpos;
		rt_buf_add(&b, c->ring + start, c->rcap - start);
		rt_buf_add(&b, c->ring, start);
	}
	rt_buf_add(&b, NULL, 0);
	out->data = b.data;
	out->len = b.len;
	out->bytes = c->total;
	out->truncated = c->total > kept;
	free(c->head);
	free(c->ring);
	memset(c, 0, sizeof *c);
}

/* --- the runner -------------------------------------------------------- */

typedef struct job {
	const rt_trial_opts *o;
	void *tag;
	pid_t pid;
	int fd[2];                   /* stdout, stderr read ends; -1 when closed */
	capture cap[2];
	double t_start, deadline, kill_at, drain_until;
	double bg_kill_at, bg_check_at;  /* leftovers: SIGKILL, next look */
	int exited, status, timed_out, killed, bg_pending;
	char id[48];                 /* RETRIAL_TRIAL_ID */
	char *cg;                    /* its own cgroup, or NULL */
	rt_trial_result res;
} job;

struct rt_pool {
	job **run;                   /* running (or draining) */
	int nrun, caprun;
	job **done;                  /* finished, not yet returned */
	int ndone, capdone;
	double t0;
};

static unsigned long serial;     /* numbers every trial of this process */

rt_pool *
rt_pool_new(void)
{
	rt_pool *r = rt_xcalloc(1, sizeof *r);
	wake_init();
	(void)rt_subreaper();
	r->t0 = rt_now_ms();
	return r;
}

int
rt_pool_running(const rt_pool *r)
{
	return r->nrun;
}

static void
push(job ***v, int *n, int *cap, job *j)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*v = rt_xrealloc(*v, (size_t)*cap * sizeof **v);
	}
	(*v)[(*n)++] = j;
}

/* The variable that names a trial's processes, so that one which left its
 * process group (setsid) and was re-parented to us is still known as its. */
#define ID_VAR "RETRIAL_TRIAL_ID"

static int
name_is(const char *entry, size_t len, const char *name)
{
	return strlen(name) == len && strncmp(entry, name, len) == 0;
}

static int
name_in(const char *entry, size_t len, char *const *names)
{
	for (; names && *names; names++)
		if (name_is(entry, len, *names))
			return 1;
	return 0;
}

/* --- credentials ------------------------------------------------------ */

/* Those taken out of our environment: "NAME=value", NULL-terminated. */
static char **secrets;
static size_t nsecrets;

static int
ends_with(const char *s, size_t len, const char *suf)
{
	size_t k = strlen(suf);
	return len >= k && strncasecmp(s + len - k, suf, k) == 0;
}

static int
starts_with(const char *s, size_t len, const char *pre)
{
	size_t k = strlen(pre);
	return len >= k && strncasecmp(s, pre, k) == 0;
}

int
rt_secret_name(const char *name, size_t len)
{
	static const char *const dflt[] = { RT_TRIAL_SCRUB_DEFAULT,
	    "CI_JOB_TOKEN", "NPM_TOKEN" };
	size_t i;

	for (i = 0; i < sizeof dflt / sizeof *dflt; i++)
		if (strlen(dflt[i]) == len && strncasecmp(name, dflt[i], len) == 0)
			return 1;
	for (i = 0; i + 7 <= len; i++)
		if (strncasecmp(name + i, "_SECRET", 7) == 0)
			return 1;
	return ends_with(name, len, "_TOKEN") || ends_with(name, len, "_API_KEY") ||
	    ends_with(name, len, "_PASSWORD") || starts_with(name, len, "AWS_") ||
	    starts_with(name, len, "ACTIONS_ID_TOKEN_");
}

/* Is name listed in $RETRIAL_SCRUB (comma or space separated)? */
static int
in_scrub_list(const char *name, size_t len)
{
	const char *l = getenv("RETRIAL_SCRUB"), *w;
	size_t n;

	while (l && *l) {
		l += strspn(l, ", \t\n");
		w = l;
		l += (n = strcspn(l, ", \t\n"));
		if (n == len && n > 0 && strncmp(w, name, n) == 0)
			return 1;
	}
	return 0;
}

static const char *
secret_value(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < nsecrets; i++)
		if (strncmp(secrets[i], name, len) == 0 && secrets[i][len] == '=')
			return secrets[i] + len + 1;
	return NULL;
}

/* Keep environ entry e (NAME=value), zero its value where the kernel
 * shows it (/proc/PID/environ reads the original block), and unset it. */
static void
take(char *e)
{
	char *eq = strchr(e, '='), *name;

	if (!eq || secret_value(e, (size_t)(eq - e)))
		return;
	secrets = rt_xrealloc(secrets, (nsecrets + 2) * sizeof *secrets);
	secrets[nsecrets++] = rt_xstrdup(e);
	secrets[nsecrets] = NULL;
	name = rt_xasprintf("%.*s", (int)(eq - e), e);
	memset(eq + 1, 0, strlen(eq + 1));
	unsetenv(name);
	free(name);
}

void
rt_secret_protect(void)
{
	size_t n = 0, i, len;
	char **v;

	(void)rt_protect_self();
	/* a copy of the pointers: unsetenv changes environ */
	while (environ[n])
		n++;
	v = rt_xcalloc(n + 1, sizeof *v);
	memcpy(v, environ, n * sizeof *v);
	for (i = 0; i < n; i++) {
		len = strcspn(v[i], "=");
		if (v[i][len] == '=' && (rt_secret_name(v[i], len) ||
		    in_scrub_list(v[i], len)))
			take(v[i]);
	}
	free(v);
}

char *
rt_secret_take(const char *name)
{
	size_t len = strlen(name), i;
	const char *v;

	for (i = 0; environ[i]; i++)
		if (strncmp(environ[i], name, len) == 0 && environ[i][len] == '=') {
			take(environ[i]);
			break;
		}
	v = secret_value(name, len);
	return v ? rt_xstrdup(v) : NULL;
}

/* Is the variable scrubbed: a credential by its name (rt_secret_name),
 * in $RETRIAL_SCRUB or in env_unset, and not kept by name? */
static int
scrubbed(const rt_trial_opts *o, const char *entry, size_t len)
{
	return (rt_secret_name(entry, len) || in_scrub_list(entry, len) ||
	    name_in(entry, len, o->env_unset)) && !name_in(entry, len, o->env_keep);
}

/* The runner's own per-case report, asked for in env[0..k): the variables
 * its configured reporter reads (jest-junit's), each unless already set,
 * else its report option added to the variable it reads options from
 * (after anything --env or a --pin-seed cell put there). The new k. */
static size_t
report_env(const rt_trial_opts *o, char **env, size_t k, long trial)
{
	const rt_runner *r = rt_runner_of(o->runner);
	char *path = rt_xasprintf("%s/trial-%ld.xml", o->junit_dir, trial), *add;
	const char *const *x;
	size_t i, vl;

	for (x = r->report_env; x && *x; x++) {
		vl = strcspn(*x, "=");
		for (i = 0; i < k; i++)
			if (!strncmp(env[i], *x, vl) && env[i][vl] == '=')
				break;
		if (i == k)
			env[k++] = strstr(*x, "%s") ? rt_xasprintf("%.*s%s", (int)(strstr(*x, "%s") - *x),
			    *x, path) : rt_xstrdup(*x);
	}
	if (!r->report_env && r->report_var && r->report_add) {
		add = strstr(r->report_add, "%s") ? rt_xasprintf("%.*s%s%s",
		    (int)(strstr(r->report_add, "%s") - r->report_add), r->report_add, path,
		    strstr(r->report_add, "%s") + 2) : rt_xstrdup(r->report_add);
		vl = strlen(r->report_var);
		for (i = 0; i < k; i++)
			if (!strncmp(env[i], r->report_var, vl) && env[i][vl] == '=')
				break;
		if (i < k) {
			char *old = env[i];
			env[i] = rt_xasprintf("%s%s%s", old, old[vl + 1] ? " " : "", add);
			free(old);
		} else {
			env[k++] = rt_xasprintf("%s=%s", r->report_var, add);
		}
		free(add);
	}
	free(path);
	return k;
}

/* The environment of one trial: ours without the scrubbed variables, with
 * the credentials we took but it keeps by name, and RETRIAL_TRIAL,
 * RETRIAL_SEED, RETRIAL_TRIAL_ID and the extra variables replacing any of
 * the same name. */
static char **
trial_env(const rt_trial_opts *o, long trial, uint64_t seed, const char *id)
{
	size_t n = 0, m = 0, i, k, len;
	char **env;
	char *const *x;
	int skip;

	while (environ[n])
		n++;
	for (x = o->env_extra; x && *x; x++)
		m++;
	for (x = o->env_keep; x && *x; x++)
		m++;
	env = rt_xcalloc(n + m + 17, sizeof *env);   /* 8 for the report's own */
	k = 0;
	for (i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		len = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		skip = name_is(environ[i], len, "RETRIAL_TRIAL") ||
		    name_is(environ[i], len, "RETRIAL_SEED") ||
		    name_is(environ[i], len, ID_VAR) ||
		    (o->junit_dir && name_is(environ[i], len, "RETRIAL_JUNIT")) ||
		    scrubbed(o, environ[i], len);
		for (x = o->env_extra; !skip && x && *x; x++)
			if (!strncmp(*x, environ[i], len) && (*x)[len] == '=')
				skip = 1;
		if (!skip)
			env[k++] = rt_xstrdup(environ[i]);
	}
	for (x = o->env_keep; x && *x; x++) {
		const char *v = secret_value(*x, strlen(*x));
		char *const *y;
		for (y = o->env_extra, skip = !v; !skip && y && *y; y++)
			skip = !strncmp(*y, *x, strlen(*x)) && (*y)[strlen(*x)] == '=';
		if (!skip && !getenv(*x))
			env[k++] = rt_xasprintf("%s=%s", *x, v);
	}
	for (x = o->env_extra; x && *x; x++)
		env[k++] = rt_xstrdup(*x);
	env[k++] = rt_xasprintf("RETRIAL_TRIAL=%ld", trial);
	env[k++] = rt_xasprintf("RETRIAL_SEED=%llu", (unsigned long long)seed);
	env[k++] = rt_xasprintf(ID_VAR "=%s", id);
	if (o->junit_dir)
		env[k++] = rt_xasprintf("RETRIAL_JUNIT=%s/trial-%ld.xml", o->junit_dir, trial);
	if (o->junit_dir && o->cases_auto)
		k = report_env(o, env, k, trial);
	env[k] = NULL;
	return env;
}

static int
do_spawn(job *j, long trial, char *err, size_t errsize)
{
	const rt_trial_opts *o = j->o;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dflt;
	int po[2], pe[2], rc, cwdfd = -1;
	char **env, **argv = NULL, **boxed = NULL;
	size_t na = 0, i;
	char *const *x;

	if (pipe(po) < 0)
		goto syserr;
	if (pipe(pe) < 0) {
		close(po[0]);
		close(po[1]);
		goto syserr;
	}
	set_flags(po[0]);
	set_flags(pe[0]);
	fcntl(po[1], F_SETFD, FD_CLOEXEC);
	fcntl(pe[1], F_SETFD, FD_CLOEXEC);

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	/* the caller's strays and our own evidence files stay out of reach */
	rt_spawn_closefrom(&fa, 3);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGINT);
	sigaddset(&dflt, SIGTERM);
	sigaddset(&dflt, SIGPIPE);
	sigaddset(&dflt, SIGCHLD);
	sigaddset(&dflt, SIGQUIT);
	sigaddset(&dflt, SIGHUP);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dflt);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
	    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

	env = trial_env(o, trial, j->res.seed, j->id);
	if (o->shell_cmd) {
		for (x = o->shell_args; x && *x; x++)
			na++;
		argv = rt_xcalloc(na + 5, sizeof *argv);
		argv[0] = "sh";
		argv[1] = "-c";
		argv[2] = (char *)o->shell_cmd;
		argv[3] = "sh";
		for (i = 0; i < na; i++)
			argv[4 + i] = o->shell_args[i];
	}
	if (o->sandbox)
		boxed = rt_sandbox_argv(o->sandbox, o->cwd, o->junit_dir,
		    o->env_extra, o->shell_cmd ? "/bin/sh" : NULL, o->shell_cmd ? argv : o->argv);
	/* posix_spawn has no portable chdir action: change ours around it */
	if (o->cwd) {
		if ((cwdfd = open(".", O_RDONLY | O_CLOEXEC)) < 0 || chdir(o->cwd) < 0) {
			snprintf(err, errsize, "cannot enter %s: %s", o->cwd, strerror(errno));
			rc = -1;
			goto out;
		}
	}
	if (boxed)
		rc = posix_spawn(&j->pid, boxed[0], &fa, &at, boxed, env);
	else if (o->shell_cmd)
		rc = posix_spawn(&j->pid, "/bin/sh", &fa, &at, argv, env);
	else
		rc = posix_spawnp(&j->pid, o->argv[0], &fa, &at, o->argv, env);
	if (cwdfd >= 0 && fchdir(cwdfd) < 0)
		rt_die("cannot return to the working directory:");
	if (rc != 0) {
		snprintf(err, errsize, "cannot run %s: %s", boxed ? boxed[0] :
		    o->shell_cmd ? "/bin/sh" : o->argv[0], strerror(rc));
		rc = -1;
	}
out:
	if (cwdfd >= 0)
		close(cwdfd);
	free(argv);
	rt_free_vec(boxed);
	rt_free_vec(env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(po[1]);
	close(pe[1]);
	if (rc != 0) {
		close(po[0]);
		close(pe[0]);
		return -1;
	}
	j->fd[0] = po[0];
	j->fd[1] = pe[0];
	return 0;
syserr:
	snprintf(err, errsize, "cannot create a pipe: %s", strerror(errno));
	return -1;
}

int
rt_pool_start(rt_pool *r, const rt_trial_opts *o, long trial, void *tag)
{
	job *j = rt_xcalloc(1, sizeof *j);
	size_t max = o->max_output ? o->max_output : 64 * 1024;
	int rc;

	j->o = o;
	j->tag = tag;
	j->fd[0] = j->fd[1] = -1;
	j->res.trial = trial;
	j->res.exit_code = -1;
	j->res.seed = rt_trial_seed(o->seed, trial);
	j->res.load1 = rt_loadavg1();
	j->res.concurrent = r->nrun;
	j->res.gap_ms = o->gap_ms;
	snprintf(j->id, sizeof j->id, "%ld-%lu", (long)getpid(), ++serial);
	cap_init(&j->cap[0], max);
	cap_init(&j->cap[1], max);
	rt_utc_rfc3339(j->res.started_at, sizeof j->res.started_at);
	j->t_start = rt_now_ms();
	j->res.start_ms = j->t_start - r->t0;
	/* what the trial forks starts in its cgroup, where the system lets us */
	if ((j->cg = rt_cgroup_new(j->id)) && rt_cgroup_enter(j->cg) < 0) {
		rt_cgroup_free(j->cg);
		j->cg = NULL;
	}
	rc = do_spawn(j, trial, j->res.error, sizeof j->res.error);
	if (j->cg && rt_cgroup_leave() < 0)
		rt_die("cannot leave the cgroup of trial %ld:", trial);
	if (rc < 0) {
		rt_cgroup_free(j->cg);
		j->cg = NULL;
		j->res.outcome = RT_ERROR;
		cap_finish(&j->cap[0], &j->res.out);
		cap_finish(&j->cap[1], &j->res.err);
		push(&r->done, &r->ndone, &r->capdone, j);
		return -1;
	}
	j->deadline = o->timeout_s > 0 ? j->t_start + o->timeout_s * 1000 : INFINITY;
	j->kill_at = INFINITY;
	j->drain_until = INFINITY;
	push(&r->run, &r->nrun, &r->caprun, j);
	return 0;
}

static int
matches(const regex_t *re, const rt_trial_result *res)
{
	return regexec(re, res->out.data, 0, NULL, 0) == 0 ||
	    regexec(re, res->err.data, 0, NULL, 0) == 0;
}

static void
classify(job *j)
{
	rt_trial_result *res = &j->res;
	const rt_trial_opts *o = j->o;
	int st = j->status;

	if (WIFEXITED(st)) {
		res->exit_code = WEXITSTATUS(st);
		res->signal = 0;
	} else if (WIFSIGNALED(st)) {
		res->exit_code = -1;
		res->signal = WTERMSIG(st);
	}
	if (j->timed_out) {
		res->outcome = RT_TIMEOUT;
		return;
	}
	/* the runner's own word that the test did not run: an error, never a
	 * failure (nor a pass: go test's "no tests to run" exits 0) */
	if (res->exit_code >= 0 && rt_runner_not_run(o->runner, res->exit_code,
	    res->out.data, res->err.data, res->error, sizeof res->error)) {
		res->outcome = RT_ERROR;
		return;
	}
	if (res->exit_code == 0) {
		res->outcome = RT_PASS;
		return;
	}
	if (res->exit_code > 0 && o->error_code[res->exit_code]) {
		res->outcome = RT_ERROR;
		snprintf(res->error, sizeof res->error,
		    "exit code %d is declared infrastructure", res->exit_code);
		return;
	}
	res->outcome = RT_FAIL;
	if (o->ignore_if && matches(o->ignore_if, res))
		res->outcome = RT_IGNORED;
	else if (o->fail_if && !matches(o->fail_if, res))
		res->outcome = RT_IGNORED;
}

static void
finish(rt_pool *r, int idx)
{
	job *j = r->run[idx];
	int k;

	for (k = 0; k < 2; k++)
		if (j->fd[k] >= 0) {
			close(j->fd[k]);
			j->fd[k] = -1;
		}
	cap_finish(&j->cap[0], &j->res.out);
	cap_finish(&j->cap[1], &j->res.err);
	rt_cgroup_free(j->cg);
	j->cg = NULL;
	classify(j);
	r->run[idx] = r->run[--r->nrun];
	push(&r->done, &r->ndone, &r->capdone, j);
}

static void
drain_fd(job *j, int k)
{
	char buf[65536];
	ssize_t n;

	for (;;) {
		n = read(j->fd[k], buf, sizeof buf);
		if (n > 0) {
			cap_add(&j->cap[k], buf, (size_t)n);
			if ((size_t)n < sizeof buf)
				return;
			continue;
		}
		if (n < 0 && (errno == EINTR))
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		close(j->fd[k]);
		j->fd[k] = -1;
		return;
	}
}

/* Is process p one that job j started? Its group is; an orphan
 * re-parented to us is when it carries j's RETRIAL_TRIAL_ID, or carries
 * none we know and no other trial is running to claim it. A zombie or a
 * dying process is judged the same way: its children are j's too. */
static int
owns(const rt_pool *r, const job *j, const rt_procinfo *p, pid_t me)
{
	char *id;
	int i, mine = 0, other = 0;

	if (p->pgid == j->pid)
		return 1;
	if (p->ppid != me)
		return 0;
	for (i = 0; i < r->nrun; i++)
		if (r->run[i]->pid == p->pid)
			return 0;    /* another trial's main process */
	if ((id = rt_proc_getenv(p->pid, ID_VAR))) {
		mine = strcmp(id, j->id) == 0;
		for (i = 0; !mine && i < r->nrun; i++)
			if (r->run[i] != j && strcmp(id, r->run[i]->id) == 0)
				other = 1;
		free(id);
		if (mine || other)
			return mine;
	}
	/* an orphan of a finished trial, or one that hid its origin */
	if (j->o->keep_background)
		return 0;
	for (i = 0; i < r->nrun; i++)
		if (r->run[i] != j && !r->run[i]->exited)
			return 0;
	return 1;
}

/* Could job j have left anything? Not when its group is empty and we
 * have no child at all (the other trials' main processes are children
 * too, so with -j N this asks the process table): the common case,
 * answered without reading it. WNOWAIT: nothing is reaped here. */
static int
maybe_left(const job *j)
{
	siginfo_t si;

	if (kill(-j->pid, 0) == 0)
		return 1;
	memset(&si, 0, sizeof si);
	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0;
}

static int
by_pid(const void *a, const void *b)
{
	pid_t x = ((const rt_procinfo *)a)->pid, y = ((const rt_procinfo *)b)->pid;
	return (x > y) - (x < y);
}

/* The index of pid in v (sorted by pid), or -1. */
static long
find_pid(const rt_procinfo *v, size_t n, pid_t pid)
{
	rt_procinfo key;
	const rt_procinfo *p;

	key.pid = pid;
	p = bsearch(&key, v, n, sizeof *v, by_pid);
	return p ? (long)(p - v) : -1;
}

/* What job j left running after its main process exited: what it owns
 * (owns(), and every process in its cgroup) and, transitively, every
 * descendant of that, whatever its group or session (a daemon's child is
 * the trial's too). Count the live ones and send them sig unless sig is
 * 0; SIGKILL goes to the whole cgroup at once as well. */
static int
sweep(rt_pool *r, job *j, int sig)
{
	rt_procinfo *v;
	size_t n, i, ncg = 0;
	long *parent, k;
	char *claim;
	pid_t me = getpid(), *cg = j->cg ? rt_cgroup_procs(j->cg, &ncg) : NULL;
	int found = 0, more;

	if (sig == SIGKILL && ncg)
		rt_cgroup_kill(j->cg);
	if (!ncg && !maybe_left(j))
		return 0;
	if (!(v = rt_proc_list(&n))) {
		/* no process table: the group and the cgroup are all we see */
		if (kill(-j->pid, 0) == 0 || ncg) {
			found = ncg ? (int)ncg : 1;
			if (sig)
				kill(-j->pid, sig);
			for (i = 0; sig && i < ncg; i++)
				kill(cg[i], sig);
		}
		free(cg);
		return found;
	}
	qsort(v, n, sizeof *v, by_pid);
	parent = rt_xcalloc(n + 1, sizeof *parent);
	claim = rt_xcalloc(n + 1, 1);
	for (i = 0; i < n; i++) {
		parent[i] = v[i].pid == me ? -1 : find_pid(v, n, v[i].ppid);
		claim[i] = v[i].pid != me && owns(r, j, &v[i], me);
	}
	for (i = 0; i < ncg; i++)
		if ((k = find_pid(v, n, cg[i])) >= 0 && cg[i] != me)
			claim[k] = 1;
	/* down the ppid links, as deep as they go */
	do {
		more = 0;
		for (i = 0; i < n; i++)
			if (!claim[i] && parent[i] >= 0 && claim[parent[i]])
				claim[i] = more = 1;
	} while (more);
	for (i = 0; i < n; i++)
		if (claim[i] && !v[i].zombie) {
			found++;
			if (sig && v[i].pgid != j->pid)
				kill(v[i].pid, sig);
		}
	if (sig)
		kill(-j->pid, sig);
	free(parent);
	free(claim);
	free(cg);
	free(v);
	return found;
}

/* SIGKILL what job j left, again and again until a sweep finds nothing
 * alive: a process forking while it is killed leaves children the last
 * sweep did not see. Bounded, for what cannot be killed (another uid). */
static void
sweep_kill(rt_pool *r, job *j)
{
	int round;

	for (round = 0; round < 100; round++) {
		if (sweep(r, j, SIGKILL) == 0)
			return;
		rt_sleep_ms(round < 10 ? 1 : 10);
	}
}

/* The main process exited: find its leftovers and, unless they are to be
 * kept, send them SIGTERM now and SIGKILL after the grace period. */
static void
exited(rt_pool *r, job *j, int st, double now)
{
	j->exited = 1;
	j->status = st;
	j->res.elapsed_ms = now - j->t_start;
	j->drain_until = now + DRAIN_MS;
	j->res.leftovers = sweep(r, j, 0);
	if (j->res.leftovers == 0 || j->o->keep_background)
		return;
	sweep(r, j, SIGTERM);
	j->bg_pending = 1;
	j->bg_kill_at = now + (j->o->grace_s > 0 ? j->o->grace_s : 2) * 1000;
	j->bg_check_at = now + 5;
}

/* Reap every child: a trial's main process, or an orphan re-parented to
 * us (the subreaper) that ended. Nothing else of ours is a child while
 * trials run. */
static void
reap(rt_pool *r, double now)
{
	int i, st;
	pid_t p;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0)
		for (i = 0; i < r->nrun; i++)
			if (r->run[i]->pid == p && !r->run[i]->exited) {
				exited(r, r->run[i], st, now);
				break;
			}
}

/* Leftovers being killed: done when none is left, SIGKILL after grace. */
static void
enforce_leftovers(rt_pool *r, double now)
{
	int i;
	job *j;

	for (i = 0; i < r->nrun; i++) {
		j = r->run[i];
		if (!j->bg_pending || now < j->bg_check_at)
			continue;
		if (now >= j->bg_kill_at) {
			sweep_kill(r, j);
			j->bg_pending = 0;
		} else if (sweep(r, j, 0) == 0) {
			j->bg_pending = 0;
		} else {
			j->bg_check_at = now + 10;
			continue;
		}
		j->drain_until = now + DRAIN_MS;
	}
}

static void
enforce_timeouts(rt_pool *r, double now)
{
	int i;
	job *j;

	for (i = 0; i < r->nrun; i++) {
		j = r->run[i];
		if (j->exited)
			continue;
		if (!j->timed_out && now >= j->deadline) {
			j->timed_out = 1;
			kill(-j->pid, j->o->timeout_signal ? j->o->timeout_signal : SIGTERM);
			j->kill_at = now + (j->o->grace_s > 0 ? j->o->grace_s : 2) * 1000;
		} else if (j->timed_out && !j->killed && now >= j->kill_at) {
			j->killed = 1;
			kill(-j->pid, SIGKILL);
		}
	}
}

static job *
pop_done(rt_pool *r)
{
	job *j;
	if (r->ndone == 0)
		return NULL;
	j = r->done[0];
	memmove(r->done, r->done + 1, (size_t)(r->ndone - 1) * sizeof *r->done);
	r->ndone--;
	return j;
}

static int
give(job *j, rt_trial_result *res, void **tag)
{
	*res = j->res;
	if (tag)
		*tag = j->tag;
	free(j);
	return 1;
}

int
rt_pool_wait(rt_pool *r, double timeout_ms, rt_trial_result *res, void **tag)
{
	double now = rt_now_ms(), until = timeout_ms < 0 ? INFINITY : now + timeout_ms;
	double next;
	struct pollfd *pf = NULL;
	job **who = NULL;
	int *which = NULL;
	int i, k, n, rc = 0;
	char junk[256];
	job *j;

	if ((j = pop_done(r)))
		return give(j, res, tag);
	if (r->nrun == 0)
		return 0;
	for (;;) {
		if (caught_sig) {
			rc = -1;
			break;
		}
		now = rt_now_ms();
		reap(r, now);
		enforce_timeouts(r, now);
		enforce_leftovers(r, now);
		for (i = 0; i < r->nrun; i++) {
			j = r->run[i];
			if (j->exited && !j->bg_pending &&
			    ((j->fd[0] < 0 && j->fd[1] < 0) || now >= j->drain_until)) {
				finish(r, i);
				i--;
			}
		}
		if ((j = pop_done(r))) {
			rc = give(j, res, tag);
			break;
		}
		if (now >= until) {
			rc = 0;
			break;
		}
		next = until;
		for (i = 0; i < r->nrun; i++) {
			j = r->run[i];
			if (j->exited && !j->bg_pending && j->drain_until < next)
				next = j->drain_until;
			if (j->bg_pending && j->bg_check_at < next)
				next = j->bg_check_at;
			if (!j->exited && !j->timed_out && j->deadline < next)
				next = j->deadline;
			if (!j->exited && j->timed_out && !j->killed && j->kill_at < next)
				next = j->kill_at;
		}
		pf = rt_xrealloc(pf, (size_t)(2 * r->nrun + 1) * sizeof *pf);
		who = rt_xrealloc(who, (size_t)(2 * r->nrun + 1) * sizeof *who);
		which = rt_xrealloc(which, (size_t)(2 * r->nrun + 1) * sizeof *which);
		n = 0;
		pf[n].fd = wake[0];
		pf[n].events = POLLIN;
		who[n++] = NULL;
		for (i = 0; i < r->nrun; i++)
			for (k = 0; k < 2; k++)
				if (r->run[i]->fd[k] >= 0) {
					pf[n].fd = r->run[i]->fd[k];
					pf[n].events = POLLIN;
					who[n] = r->run[i];
					which[n++] = k;
				}
		if (poll(pf, (nfds_t)n, isinf(next) ? -1 :
		    (int)ceil(fmax(0, next - now))) < 0 && errno != EINTR)
			rt_die("poll:");
		for (i = 0; i < n; i++) {
			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (!who[i])
				while (read(wake[0], junk, sizeof junk) > 0)
					;
			else if (who[i]->fd[which[i]] >= 0)
				drain_fd(who[i], which[i]);
		}
	}
	free(pf);
	free(who);
	free(which);
	return rc;
}

void
rt_pool_kill_all(rt_pool *r)
{
	int i, st;
	double until;
	job *j;

	for (i = 0; i < r->nrun; i++)
		if (!r->run[i]->exited) {
			kill(-r->run[i]->pid, SIGTERM);
			r->run[i]->killed = 1;
		}
	until = rt_now_ms() + 1000;
	for (i = 0; i < r->nrun; i++) {
		j = r->run[i];
		while (!j->exited) {
			pid_t p = waitpid(j->pid, &st, WNOHANG);
			if (p == j->pid || (p < 0 && errno != EINTR)) {
				j->exited = 1;
				break;
			}
			if (rt_now_ms() >= until) {
				kill(-j->pid, SIGKILL);
				while (waitpid(j->pid, &st, 0) < 0 && errno == EINTR)
					;
				j->exited = 1;
				break;
			}
			rt_sleep_ms(5);
		}
	}
	/* whatever is left of their groups, and the orphans they left */
	for (i = 0; i < r->nrun; i++)
		if (!r->run[i]->o->keep_background)
			sweep_kill(r, r->run[i]);
	for (i = 0; i < r->nrun; i++)
		if (!r->run[i]->o->keep_background || r->run[i]->killed)
			kill(-r->run[i]->pid, SIGKILL);
	while (waitpid(-1, &st, WNOHANG) > 0)
		;
	for (i = 0; i < r->nrun; i++) {
		j = r->run[i];
		if (j->fd[0] >= 0)
			close(j->fd[0]);
		if (j->fd[1] >= 0)
			close(j->fd[1]);
		free(j->cap[0].head);
		free(j->cap[0].ring);
		free(j->cap[1].head);
		free(j->cap[1].ring);
		rt_cgroup_free(j->cg);
		free(j);
	}
	r->nrun = 0;
}

void
rt_trial_result_free(rt_trial_result *res)
{
	free(res->out.data);
	free(res->err.data);
	res->out.data = res->err.data = NULL;
}

void
rt_pool_free(rt_pool *r)
{
	job *j;

	rt_pool_kill_all(r);
	while ((j = pop_done(r))) {
		rt_trial_result_free(&j->res);
		free(j);
	}
	free(r->run);
	free(r->done);
	free(r);
}

int
rt_run_trials(const rt_trial_opts *o, long first, long count, long stride,
    rt_trial_done_fn fn, void *ctx)
{
	return rt_run_trials_except(o, first, count, stride, NULL, fn, ctx);
}

static int
have_trial(const unsigned char *have, long trial)
{
	return have && have[trial / 8] & (1u << (trial % 8));
}

int
rt_run_trials_except(const rt_trial_opts *o, long first, long count, long stride,
    const unsigned char *have, rt_trial_done_fn fn, void *ctx)
{
	rt_pool *r = rt_pool_new();
	int jobs = o->jobs > 0 ? o->jobs : rt_ncpu();
	double *free_at = rt_xcalloc((size_t)jobs, sizeof *free_at);
	char *busy = rt_xcalloc((size_t)jobs, 1);
	long next = 0;
	int stopping = 0, rc = 0, s, w, act;
	double now, soon;
	rt_trial_result res;
	void *tag;

	now = rt_now_ms();
	for (s = 0; s < jobs; s++)
		free_at[s] = now + o->gap_ms;
	for (;;) {
		if (caught_sig) {
			rc = caught_sig;
			break;
		}
		now = rt_now_ms();
		soon = INFINITY;
		while (next < count && have_trial(have, first + next * stride))
			next++;
		for (s = 0; s < jobs && next < count && !stopping; s++) {
			if (busy[s])
				continue;
			if (free_at[s] > now) {
				if (free_at[s] < soon)
					soon = free_at[s];
				continue;
			}
			busy[s] = 1;
			rt_pool_start(r, o, first + next * stride, (void *)(intptr_t)s);
			next++;
			while (next < count && have_trial(have, first + next * stride))
				next++;
		}
		if (rt_pool_running(r) == 0 && (next >= count || stopping)) {
			/* spawn errors land in the done queue */
			w = rt_pool_wait(r, 0, &res, &tag);
			if (w != 1)
				break;
		} else {
			w = rt_pool_wait(r, isinf(soon) ? -1 : fmax(0, soon - now), &res, &tag);
		}
		if (w < 0) {
			rc = caught_sig;
			break;
		}
		if (w == 0)
			continue;
		s = (int)(intptr_t)tag;
		busy[s] = 0;
		free_at[s] = rt_now_ms() + o->gap_ms;
		act = fn ? fn(&res, ctx) : RT_GO_ON;
		rt_trial_result_free(&res);
		if (act == RT_STOP)
			stopping = 1;
		else if (act == RT_STOP_KILL)
			break;
	}
	rt_pool_free(r);
	free(free_at);
	free(busy);
	return rc;
}

/* --- records ------------------------------------------------------------ */

static int
needs_quote(const char *s)
{
	if (!*s)
		return 1;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789-_./=:,+@%", *s))
			return 1;
	return 0;
}

char *
rt_command_string(const rt_trial_opts *o)
{
	rt_buf b = {0};
	char *const *a;
	const char *p;

	if (o->shell_cmd)
		return rt_xstrdup(o->shell_cmd);
	for (a = o->argv; a && *a; a++) {
		if (a != o->argv)
			rt_buf_addc(&b, ' ');
		if (!needs_quote(*a)) {
			rt_buf_adds(&b, *a);
			continue;
		}
		rt_buf_addc(&b, '\'');
		for (p = *a; *p; p++) {
			if (*p == '\'')
				rt_buf_adds(&b, "'\\''");
			else
				rt_buf_addc(&b, *p);
		}
		rt_buf_addc(&b, '\'');
	}
	rt_buf_add(&b, NULL, 0);
	return b.data;
}

json_t *
rt_trial_json(const rt_trial_result *res, const rt_trial_opts *o, const char *command)
{
	json_t *j = json_object(), *env = json_object();
	char seed[32];
	char *const *x;

	snprintf(seed, sizeof seed, "%llu", (unsigned long long)res->seed);
	json_object_set_new(j, "type", json_string("trial"));
	json_object_set_new(j, "trial", json_integer(res->trial));
	json_object_set_new(j, "outcome", json_string(rt_outcome_name(res->outcome)));
	json_object_set_new(j, "exit_code", res->exit_code >= 0 ?
	    json_integer(res->exit_code) : json_null());
	json_object_set_new(j, "signal", res->signal ? json_integer(res->signal) : json_null());
	json_object_set_new(j, "elapsed_ms", json_real(round(res->elapsed_ms * 1000) / 1000));
	json_object_set_new(j, "started_at", json_string(res->started_at));
	json_object_set_new(j, "gap_ms", json_real(res->gap_ms));
	if (command)
		json_object_set_new(j, "command", json_string(command));
	json_object_set_new(j, "stdout", rt_json_bytes(res->out.data ? res->out.data : "", res->out.len));
	json_object_set_new(j, "stderr", rt_json_bytes(res->err.data ? res->err.data : "", res->err.len));
	json_object_set_new(j, "stdout_bytes", json_integer((json_int_t)res->out.bytes));
	json_object_set_new(j, "stderr_bytes", json_integer((json_int_t)res->err.bytes));
	json_object_set_new(j, "stdout_truncated", json_boolean(res->out.truncated));
	json_object_set_new(j, "stderr_truncated", json_boolean(res->err.truncated));
	json_object_set_new(j, "concurrent", json_integer(res->concurrent));
	json_object_set_new(j, "leftovers", json_integer(res->leftovers));
	json_object_set_new(j, "seed", json_string(seed));
	json_object_set_new(env, "host", json_string(rt_hostname()));
	json_object_set_new(env, "load1", res->load1 >= 0 ?
	    json_real(round(res->load1 * 100) / 100) : json_null());
	json_object_set_new(env, "RETRIAL_SEED", json_string(seed));
	for (x = o ? o->env_extra : NULL; x && *x; x++) {
		const char *eq = strchr(*x, '=');
		if (eq) {
			char *k = rt_xasprintf("%.*s", (int)(eq - *x), *x);
			json_object_set_new(env, k, rt_json_bytes(eq + 1, strlen(eq + 1)));
			free(k);
		}
	}
	json_object_set_new(j, "env", env);
	json_object_set_new(j, "runner", json_string(rt_runner_kind_name(o ? o->runner :
	    RT_RUNNER_GENERIC)));
	if (res->outcome == RT_ERROR && res->error[0])
		json_object_set_new(j, "error", json_string(res->error));
	return j;
}

void
rt_tally_add(rt_tally *t, rt_outcome o)
{
	switch (o) {
	case RT_PASS:
		t->trials++;
		t->passes++;
		break;
	case RT_TIMEOUT:             /* a hang is a failure of the test */
		t->timeouts++;
		t->trials++;
		t->failures++;
		break;
	case RT_FAIL:
		t->trials++;
		t->failures++;
		break;
	case RT_ERROR:
		t->errors++;
		break;
	case RT_IGNORED:
		t->ignored++;
		break;
	case RT_SKIP:
		t->skipped++;
		break;
	}
}

void
rt_error_reason(char *buf, size_t size, long trial, const char *error,
    const char *err_text)
{
	size_t n = 0;

	if (err_text)
		while (err_text[n] && err_text[n] != '\n' && n < 160)
			n++;
	/* a runner's reason that quotes that line already */
	if (n && error) {
		char line[161];
		const char *s = err_text;
		size_t m = n;
		while (m && (*s == ' ' || *s == '\t'))
			s++, m--;
		while (m && (s[m - 1] == ' ' || s[m - 1] == '\t' || s[m - 1] == '\r'))
			m--;
		memcpy(line, s, m);
		line[m] = '\0';
		if (m && strstr(error, line))
			n = 0;
	}
	snprintf(buf, size, "trial %ld: %s%s%.*s", trial,
	    error && *error ? error : "an error", n ? "; stderr: " : "", (int)n,
	    err_text ? err_text : "");
}

int
rt_errors_warning(char *buf, size_t size, const rt_tally *t, const char *reason)
{
	long all = t->trials + t->errors + t->ignored;

	if (t->errors == 0 || t->errors <= t->trials)
		return 0;
	snprintf(buf, size, "WARNING: %ld of %ld trials were errors, not failures "
	    "(the harness could not run them, or they exited with a code declared "
	    "infrastructure)%s%s; the rate covers only %ld valid trial%s: check the "
	    "command", t->errors, all, reason && *reason ? " — first: " : "",
	    reason ? reason : "", t->trials, t->trials == 1 ? "" : "s");
	return 1;
}

void
rt_rate_text(char *buf, size_t size, long k, long n, double conf)
{
	rt_say_count(buf, size, k, n, conf, "failed");
}

json_t *
rt_measure_fields(json_t *obj, const rt_tally *t, double conf, double threshold)
{
	rt_interval ci;
	char text[160];
	long k = t->failures, n = t->trials;
	int exact = n > 0 && (k == 0 || k == n);

	if (!obj)
		obj = json_object();
	rt_rate_interval(k, n, conf, &ci);
	json_object_set_new(obj, "trials", json_integer(n));
	json_object_set_new(obj, "failures", json_integer(k));
	json_object_set_new(obj, "timeouts", json_integer(t->timeouts));
	json_object_set_new(obj, "errors", json_integer(t->errors));
	json_object_set_new(obj, "ignored", json_integer(t->ignored));
	if (t->skipped)
		json_object_set_new(obj, "skipped", json_integer(t->skipped));
	json_object_set_new(obj, "rate", n > 0 ?
	    rt_json_real6((double)k / (double)n) : json_null());
	json_object_set_new(obj, "ci_low", rt_json_real6(ci.low));
	json_object_set_new(obj, "ci_high", rt_json_real6(ci.high));
	json_object_set_new(obj, "interval", json_string(rt_interval_method(k, n)));
	json_object_set_new(obj, "confidence", json_real(conf));
	json_object_set_new(obj, "z", exact ? json_null() : rt_json_real6(ci.z));
	json_object_set_new(obj, "threshold", json_real(threshold));
	json_object_set_new(obj, "verdict", json_string(rt_verdict_name(
	    rt_detect(k, n, threshold, conf))));
	rt_rate_text(text, sizeof text, k, n, conf);
	json_object_set_new(obj, "summary", json_string(text));
	return obj;
}
