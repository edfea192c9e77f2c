/* rt_cli: the trial options every running tool shares (rt-collect,
 * rt-measure, rt-matrix, rt-verify, rt-retry) — parsed in one place so
 * they mean the same everywhere — and the one-line terminal progress. */
#ifndef RT_CLI_H
#define RT_CLI_H

#include <getopt.h>
#include <stdio.h>
#include "rt_trial.h"

/* Option codes above the ASCII range for long-only options. */
enum {
	RT_OPT_GAP = 1000, RT_OPT_TIMEOUT_SIG, RT_OPT_GRACE, RT_OPT_MAXOUT,
	RT_OPT_SEED, RT_OPT_ERRCODES, RT_OPT_FAILIF, RT_OPT_IGNOREIF, RT_OPT_ENV,
	RT_OPT_UNSET_ENV, RT_OPT_KEEP_ENV, RT_OPT_KEEP_BG, RT_OPT_RUNNER,
	RT_OPT_TOOL_BASE = 1100,     /* tools number their own options from here */
	RT_OPT_LIST_OPTIONS = 999    /* the hidden --list-options */
};

/* The hidden --list-options, which make turns into shell completion: put
 * RT_LIST_OPTIONS_LONGOPT in a tool's struct option array and
 *	case RT_OPT_LIST_OPTIONS: return rt_cli_list_options(longopts);
 * in its option switch. */
#define RT_LIST_OPTIONS_LONGOPT \
	{ "list-options", no_argument, NULL, RT_OPT_LIST_OPTIONS }
/* Print "--name" (no_argument) or "--name=" (takes a value), one a line,
 * for every entry of a getopt_long array but --list-options itself;
 * flush stdout; return the exit status (0, or 2 when stdout fails). */
int rt_cli_list_options(const struct option *lo);

/* Put inside a tool's struct option array. */
#define RT_TRIAL_LONGOPTS \
	{ "cmd", required_argument, NULL, 'c' }, \
	{ "jobs", required_argument, NULL, 'j' }, \
	{ "timeout", required_argument, NULL, 't' }, \
	{ "gap-ms", required_argument, NULL, RT_OPT_GAP }, \
	{ "timeout-signal", required_argument, NULL, RT_OPT_TIMEOUT_SIG }, \
	{ "grace", required_argument, NULL, RT_OPT_GRACE }, \
	{ "max-output", required_argument, NULL, RT_OPT_MAXOUT }, \
	{ "seed", required_argument, NULL, RT_OPT_SEED }, \
	{ "error-codes", required_argument, NULL, RT_OPT_ERRCODES }, \
	{ "fail-if", required_argument, NULL, RT_OPT_FAILIF }, \
	{ "ignore-if", required_argument, NULL, RT_OPT_IGNOREIF }, \
	{ "env", required_argument, NULL, RT_OPT_ENV }, \
	{ "unset-env", required_argument, NULL, RT_OPT_UNSET_ENV }, \
	{ "keep-env", required_argument, NULL, RT_OPT_KEEP_ENV }, \
	{ "keep-background", no_argument, NULL, RT_OPT_KEEP_BG }, \
	{ "runner", required_argument, NULL, RT_OPT_RUNNER }
/* Their short letters, for the getopt string. */
#define RT_TRIAL_SHORTOPTS "c:j:t:"

typedef struct {
	rt_trial_opts o;
	const char *cmd;             /* --cmd */
	char **argv;                 /* -- ARGV */
	char **env;                  /* --env VAR=value, NULL-terminated */
	size_t nenv;
	char **unset, **keep;        /* --unset-env, --keep-env NAME, NULL-terminated */
	size_t nunset, nkeep;
	regex_t fail_re, ignore_re;
	int has_fail_re, has_ignore_re, seed_given, runner_given;
	char *command;               /* the command as text, for records */
} rt_trial_cli;

void rt_trial_cli_init(rt_trial_cli *c);
/* Handle one option if it is a shared trial option: 1 if handled, else 0. */
int rt_trial_cli_opt(rt_trial_cli *c, int opt, const char *arg);
/* After getopt: take "-- ARGV" (argv[optind..]) if any, check that exactly
 * one of --cmd and ARGV is given (need_cmd) or at most one (!need_cmd);
 * without --runner, the runner is the one the command names.
 * Returns 1 when a command was given. */
int rt_trial_cli_finish(rt_trial_cli *c, int argc, char **argv, int optind,
    int need_cmd);
void rt_trial_cli_free(rt_trial_cli *c);
/* The option lines for --help. */
void rt_trial_cli_usage(FILE *f);
/* Signal by name or number ("TERM", "SIGQUIT", "9"); -1 when unknown. */
int rt_signal_parse(const char *s);

/* A one-line progress display on stderr, only when stderr is a terminal. */
typedef struct {
	int on;
	double t0;
	long total;
} rt_progress;
void rt_progress_init(rt_progress *p, long total);
/* "12/40 trials · 3 failed · 95% CI 2.1–25.9% · ETA 8s" */
void rt_progress_update(rt_progress *p, long done, long k, long n, double conf,
    const char *extra);
void rt_progress_clear(rt_progress *p);

#endif
