/* rt_cli: shared trial options and terminal progress. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "rt_cli.h"
#include "rt_platform.h"
#include "rt_util.h"

static const struct { const char *name; int sig; } signals[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
	{ "ABRT", SIGABRT }, { "KILL", SIGKILL }, { "USR1", SIGUSR1 },
	{ "USR2", SIGUSR2 }, { "ALRM", SIGALRM }, { "TERM", SIGTERM },
};

int
rt_signal_parse(const char *s)
{
	long v;
	size_t i;

	if (rt_parse_long(s, 1, 64, &v) == 0)
		return (int)v;
	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	for (i = 0; i < sizeof signals / sizeof signals[0]; i++)
		if (strcasecmp(s, signals[i].name) == 0)
			return signals[i].sig;
	return -1;
}

void
rt_trial_cli_init(rt_trial_cli *c)
{
	memset(c, 0, sizeof *c);
	rt_trial_opts_init(&c->o);
	c->env = rt_xcalloc(1, sizeof *c->env);
	c->unset = rt_xcalloc(1, sizeof *c->unset);
	c->keep = rt_xcalloc(1, sizeof *c->keep);
	c->o.env_unset = c->unset;
	c->o.env_keep = c->keep;
}

static const char varchars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";

/* Append a variable name to a NULL-terminated list. */
static void
add_name(char ***v, size_t *n, const char *what, const char *arg)
{
	if (!*arg || arg[strspn(arg, varchars)])
		rt_usage_die("%s %s: want a variable name", what, arg);
	*v = rt_xrealloc(*v, (*n + 2) * sizeof **v);
	(*v)[(*n)++] = rt_xstrdup(arg);
	(*v)[*n] = NULL;
}

static void
compile(regex_t *re, const char *what, const char *arg)
{
	int rc = regcomp(re, arg, REG_EXTENDED | REG_NOSUB);
	char msg[256];

	if (rc != 0) {
		regerror(rc, re, msg, sizeof msg);
		rt_usage_die("%s %s: %s", what, arg, msg);
	}
}

int
rt_trial_cli_opt(rt_trial_cli *c, int opt, const char *arg)
{
	const char *eq;
	double d;

	switch (opt) {
	case 'c':
		c->cmd = arg;
		return 1;
	case 'j':
		c->o.jobs = (int)rt_num_long("-j", arg, 0, 1024);
		if (c->o.jobs == 0)
			c->o.jobs = rt_ncpu();
		return 1;
	case 't':
		c->o.timeout_s = rt_num_double("--timeout", arg, 0, 86400 * 7, 1, 0);
		return 1;
	case RT_OPT_GAP:
		c->o.gap_ms = rt_num_double("--gap-ms", arg, 0, 86400e3, 0, 0);
		return 1;
	case RT_OPT_TIMEOUT_SIG:
		if ((c->o.timeout_signal = rt_signal_parse(arg)) < 0)
			rt_usage_die("--timeout-signal %s: not a signal name or number", arg);
		return 1;
	case RT_OPT_GRACE:
		c->o.grace_s = rt_num_double("--grace", arg, 0, 3600, 1, 0);
		return 1;
	case RT_OPT_MAXOUT:
		c->o.max_output = (size_t)rt_num_long("--max-output", arg, 2, 1L << 30);
		return 1;
	case RT_OPT_SEED:
		d = (double)rt_num_long("--seed", arg, 0, 9007199254740991L);
		c->o.seed = (uint64_t)d;
		c->seed_given = 1;
		return 1;
	case RT_OPT_ERRCODES:
		if (rt_trial_parse_codes(&c->o, arg) < 0)
			rt_usage_die("--error-codes %s: want codes or ranges from 1 to 255, like 2-5,126", arg);
		return 1;
	case RT_OPT_FAILIF:
		if (c->has_fail_re)
			regfree(&c->fail_re);
		compile(&c->fail_re, "--fail-if", arg);
		c->has_fail_re = 1;
		c->o.fail_if = &c->fail_re;
		return 1;
	case RT_OPT_IGNOREIF:
		if (c->has_ignore_re)
			regfree(&c->ignore_re);
		compile(&c->ignore_re, "--ignore-if", arg);
		c->has_ignore_re = 1;
		c->o.ignore_if = &c->ignore_re;
		return 1;
	case RT_OPT_ENV:
		eq = strchr(arg, '=');
		if (!eq || eq == arg || strspn(arg, varchars) != (size_t)(eq - arg))
			rt_usage_die("--env %s: want VAR=value", arg);
		c->env = rt_xrealloc(c->env, (c->nenv + 2) * sizeof *c->env);
		c->env[c->nenv++] = rt_xstrdup(arg);
		c->env[c->nenv] = NULL;
		c->o.env_extra = c->env;
		return 1;
	case RT_OPT_UNSET_ENV:
		add_name(&c->unset, &c->nunset, "--unset-env", arg);
		c->o.env_unset = c->unset;
		return 1;
	case RT_OPT_KEEP_ENV:
		add_name(&c->keep, &c->nkeep, "--keep-env", arg);
		c->o.env_keep = c->keep;
		return 1;
	case RT_OPT_KEEP_BG:
		c->o.keep_background = 1;
		return 1;
	case RT_OPT_RUNNER:
		if (rt_runner_kind_parse(arg, &c->o.runner) < 0)
			rt_usage_die("--runner %s: unknown runner (want one of: %s)", arg,
			    rt_runner_kind_list());
		c->runner_given = 1;
		return 1;
	}
	return 0;
}

int
rt_trial_cli_finish(rt_trial_cli *c, int argc, char **argv, int optind, int need_cmd)
{
	if (optind < argc && strcmp(argv[optind - 1], "--") == 0) {
		if (c->cmd)
			rt_usage_die("--cmd and -- ARGV are exclusive");
		c->argv = argv + optind;
	} else if (optind < argc && need_cmd) {
		rt_usage_die("%s: unexpected operand (put the command after --, or use --cmd)",
		    argv[optind]);
	}
	if (need_cmd && !c->cmd && !c->argv)
		rt_usage_die("no command: give --cmd \"CMD\" or -- ARGV...");
	if (c->cmd && !*c->cmd)
		rt_usage_die("--cmd: empty command");
	c->o.shell_cmd = c->cmd;
	c->o.argv = c->argv;
	if (!c->runner_given && (c->cmd || c->argv))
		c->o.runner = rt_runner_detect(c->cmd, c->argv);
	if (c->cmd || c->argv) {
		char msg[300];
		if (rt_runner_hidden_retries(c->o.runner, c->cmd, c->argv, msg, sizeof msg))
			rt_warn("%s", msg);
	}
	if (!c->seed_given) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		c->o.seed = rt_mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
		    (uint64_t)getpid()) >> 11;
	}
	if (c->cmd || c->argv)
		c->command = rt_command_string(&c->o);
	return c->cmd || c->argv;
}

void
rt_trial_cli_free(rt_trial_cli *c)
{
	size_t i;

	for (i = 0; i < c->nenv; i++)
		free(c->env[i]);
	free(c->env);
	rt_free_vec(c->unset);
	rt_free_vec(c->keep);
	if (c->has_fail_re)
		regfree(&c->fail_re);
	if (c->has_ignore_re)
		regfree(&c->ignore_re);
	free(c->command);
}

void
rt_trial_cli_usage(FILE *f)
{
	fputs(
"  -c, --cmd CMD          the trial command, run by sh -c (or give -- ARGV)\n"
"  -j, --jobs N           parallel trials (default 1; 0 = one per CPU)\n"
"  -t, --timeout S        per-trial timeout in seconds (a timeout is a failure)\n"
"      --timeout-signal S signal sent first on timeout (default TERM)\n"
"      --grace S          seconds from that signal to SIGKILL (default 2)\n"
"      --gap-ms MS        rest before each trial, the first included\n"
"      --max-output N     bytes of stdout and of stderr kept, head+tail (64 KiB)\n"
"      --seed S           base of each trial's RETRIAL_SEED (default random)\n"
"      --error-codes L    exit codes that mean infrastructure error (126,127)\n"
"      --fail-if RE       count a failure only if its output matches RE\n"
"      --ignore-if RE     set aside failures whose output matches RE\n"
"      --env VAR=VALUE    set a variable in every trial (repeatable)\n"
"      --unset-env NAME   remove a variable from every trial (repeatable;\n"
"                         RETRIAL_API_KEY, FIREWORKS_API_KEY, GITHUB_TOKEN and\n"
"                         the names in $RETRIAL_SCRUB always are)\n"
"      --keep-env NAME    pass a variable removed by default (repeatable)\n"
"      --keep-background  leave running what a trial left running\n"
"      --runner NAME      whose \"the test did not run\" exits are errors: pytest,\n"
"                         unittest, python, go, jest, vitest, script,\n"
"                         generic (default:\n"
"                         the runner the command names)\n", f);
}

void
rt_progress_init(rt_progress *p, long total)
{
	p->on = rt_isatty(2);
	p->t0 = rt_now_ms();
	p->total = total;
}

/* The last " \xc2\xb7 " field separator in s, or NULL. */
static char *
strrstr_sep(char *s)
{
	char *p, *last = NULL;

	for (p = s; (p = strstr(p, " \xc2\xb7 ")); p++)
		last = p;
	return last;
}

void
rt_progress_update(rt_progress *p, long done, long k, long n, double conf,
    const char *extra)
{
	char rate[160], eta[32] = "", line[512];
	double el;
	int cols, w;
	size_t i;
	char *sep;

	if (!p->on)
		return;
	rt_rate_text(rate, sizeof rate, k, n, conf);
	el = (rt_now_ms() - p->t0) / 1000;
	if (done > 0 && p->total > done)
		snprintf(eta, sizeof eta, " \xc2\xb7 ETA %.0fs", el / (double)done *
		    (double)(p->total - done));
	snprintf(line, sizeof line, "%s: %ld/%ld trials \xc2\xb7 %s%s%s%s", rt_progname,
	    done, p->total, rate, eta, extra ? " \xc2\xb7 " : "", extra ? extra : "");
	/* a line wider than the terminal wraps, and \r then clears only its
	 * last row: cut it to the width (counting UTF-8 characters), at the
	 * last whole field so a rate never shows without its interval */
	if ((cols = rt_term_cols(2)) > 1) {
		for (i = 0, w = 0; line[i]; i++)
			if ((line[i] & 0xc0) != 0x80 && ++w == cols)
				break;
		if (line[i]) {
			line[i] = '\0';
			if ((sep = strrstr_sep(line)))
				*sep = '\0';
		}
	}
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
}

void
rt_progress_clear(rt_progress *p)
{
	if (p->on) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

int
rt_cli_list_options(const struct option *lo)
{
	for (; lo->name; lo++)
		if (lo->val != RT_OPT_LIST_OPTIONS || lo->flag)
			printf("--%s%s\n", lo->name, lo->has_arg == no_argument ? "" : "=");
	rt_fshut(stdout, "stdout");
	return 0;
}
