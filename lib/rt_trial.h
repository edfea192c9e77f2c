/* rt_trial: the trial engine — run a command many times, each trial in its
 * own process group, stdout and stderr drained through pipes and kept head
 * and tail, timeouts with a diagnostic signal then SIGKILL, parallel slots,
 * and a clean stop on SIGINT/SIGTERM/SIGHUP. Also the outcome tally and the
 * measure record every tool prints the same way. A trial gets a scrubbed
 * environment, no descriptor but 0-2, and owns what it started: when its
 * main process exits, whatever it left running is killed. */
#ifndef RT_TRIAL_H
#define RT_TRIAL_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "rt_runner.h"
#include "rt_stats.h"
#include "rt_say.h"
struct rt_sandbox;

typedef enum {
	RT_PASS,      /* exit 0 */
	RT_FAIL,      /* non-zero exit or killed by a signal */
	RT_TIMEOUT,   /* killed by --timeout; counts as a failure */
	RT_ERROR,     /* could not run, or an exit code declared infrastructure */
	RT_IGNORED,   /* a failure set aside by --ignore-if / not matched by --fail-if */
	RT_SKIP       /* a test that did not run (JUnit <skipped>): never a trial */
} rt_outcome;

const char *rt_outcome_name(rt_outcome o);
int rt_outcome_parse(const char *s, rt_outcome *o);   /* 0 or -1 */

typedef struct {
	/* what to run: exactly one of shell_cmd and argv */
	const char *shell_cmd;       /* run as: sh -c CMD sh [shell_args...] */
	char *const *shell_args;     /* positional parameters ($1...), may be NULL */
	char *const *argv;           /* run directly (PATH search), NULL-terminated */
	const char *cwd;             /* directory to run in; NULL: the current one */
	const char *junit_dir;       /* non-NULL: RETRIAL_JUNIT=DIR/trial-N.xml */
	char *const *env_extra;      /* "VAR=value" set in the trial, NULL-terminated */
	char *const *env_unset;      /* names removed from the trial's environment,
	                              * besides RT_TRIAL_SCRUB_DEFAULT and those in
	                              * $RETRIAL_SCRUB; NULL-terminated, may be NULL */
	char *const *env_keep;       /* names kept though scrubbed (NULL-terminated) */
	int keep_background;         /* leave what the trial left running alone */
	size_t max_output;           /* bytes kept per stream, head + tail (0: 64 KiB) */
	double timeout_s;            /* per trial; 0: none */
	int timeout_signal;          /* sent first on timeout (0: SIGTERM) */
	double grace_s;              /* then SIGKILL to the group (0: 2 s) */
	double gap_ms;               /* rest before each trial, the first included */
	int jobs;                    /* parallel trials (rt_run_trials); 0: one per CPU */
	uint64_t seed;               /* RETRIAL_SEED = rt_trial_seed(seed, trial) */
	unsigned char error_code[256]; /* non-zero: that exit code is RT_ERROR */
	const regex_t *fail_if;      /* a failure counts only when output matches */
	const regex_t *ignore_if;    /* a failure whose output matches is set aside */
	rt_runner_kind runner;       /* whose "did not run" exits are errors
	                              * (rt_runner_not_run); GENERIC: none */
	int cases_auto;              /* with junit_dir: the runner is asked for
	                              * its report of every case (rt_cases_auto) */
	const struct rt_sandbox *sandbox; /* non-NULL: run confined (rt_sandbox.h),
	                              * cwd and junit_dir writable */
} rt_trial_opts;

/* The credentials retrial itself uses, never passed to a trial unless
 * kept by name (env_keep), like every name rt_secret_name matches. */
#define RT_TRIAL_SCRUB_DEFAULT "RETRIAL_API_KEY", "FIREWORKS_API_KEY", "GITHUB_TOKEN"

/* Is the variable NAME (its first len bytes) a credential by its name:
 * RT_TRIAL_SCRUB_DEFAULT, *_TOKEN, *_SECRET*, *_API_KEY, *_PASSWORD,
 * AWS_*, ACTIONS_ID_TOKEN_*, CI_JOB_TOKEN, NPM_TOKEN (any case)? */
int rt_secret_name(const char *name, size_t len);
/* First thing in main of every tool that runs trials or holds a token:
 * rt_protect_self, then take every credential (rt_secret_name, and the
 * names in $RETRIAL_SCRUB) out of our environment. Its value is kept in
 * our memory, for the tool (rt_secret_take) and for a trial that keeps
 * it by name, and zeroed in the environment block the kernel shows as
 * /proc/PID/environ, so no trial reads it from its ancestors. */
void rt_secret_protect(void);
/* The value of the credential NAME for the tool's own use (malloc'd), or
 * NULL when unset: taken out of the environment as by rt_secret_protect
 * if it still is there. */
char *rt_secret_take(const char *name);

/* Fill defaults: 64 KiB output, SIGTERM, 2 s grace, jobs 1, exit codes 126
 * and 127 (the shell's "cannot execute" and "not found") as errors. */
void rt_trial_opts_init(rt_trial_opts *o);
/* Parse "2-5,126" into o->error_code (replacing the defaults); -1 if bad. */
int rt_trial_parse_codes(rt_trial_opts *o, const char *spec);

typedef struct {
	char *data;                  /* kept bytes (head, marker, tail), NUL-terminated */
	size_t len;
	unsigned long long bytes;    /* everything the stream produced */
	int truncated;               /* bytes > what was kept */
} rt_capture;

typedef struct {
	long trial;                  /* 1-based trial number */
	rt_outcome outcome;
	int exit_code;               /* -1 when killed by a signal or never run */
	int signal;                  /* terminating signal, 0 when none */
	double elapsed_ms;           /* CLOCK_MONOTONIC, spawn to exit */
	double start_ms;             /* monotonic start, relative to the runner */
	char started_at[40];         /* UTC, RFC 3339 */
	double load1;                /* load average at start, -1 unknown */
	uint64_t seed;               /* the RETRIAL_SEED it got */
	int concurrent;              /* other trials running when it started */
	double gap_ms;
	int leftovers;               /* processes still running when the main
	                              * one exited (its group, and orphans it
	                              * left re-parented to us); killed unless
	                              * keep_background */
	rt_capture out, err;
	char error[640];             /* why it is RT_ERROR, else "" */
} rt_trial_result;

uint64_t rt_trial_seed(uint64_t seed, long trial);

/* Signal handling: SIGINT, SIGTERM and SIGHUP set a flag (and wake the
 * runner); the tool then stops as for SIGTERM and exits
 * rt_signal_status(sig) (130, 143, 129). SIGPIPE is ignored so a closed
 * output is a write error. Call once. */
void rt_trial_signals_install(void);
int rt_trial_interrupted(void);   /* the signal caught, or 0 */

/* The process pool: start trials with any options, wait for them. */
typedef struct rt_pool rt_pool;
rt_pool *rt_pool_new(void);
/* Start one trial now (no gap applied). tag comes back from wait. Returns
 * 0, or -1 if it could not even be attempted (then res is an RT_ERROR and
 * is returned by the next wait like any other). */
int rt_pool_start(rt_pool *r, const rt_trial_opts *o, long trial, void *tag);
int rt_pool_running(const rt_pool *r);
/* Wait for a trial to end, at most timeout_ms (< 0: no limit). Returns 1
 * with *res filled (free with rt_trial_result_free), 0 on timeout or when
 * nothing runs, -1 when interrupted by SIGINT/SIGTERM/SIGHUP. */
int rt_pool_wait(rt_pool *r, double timeout_ms, rt_trial_result *res, void **tag);
/* Kill every running trial's group (SIGTERM, then SIGKILL after grace)
 * and the orphans they left (unless keep_background), reap them, and drop
 * their results. While trials run, the runner reaps every child of the
 * process (waitpid(-1)): start no child of your own to wait for later. */
void rt_pool_kill_all(rt_pool *r);
void rt_pool_free(rt_pool *r);
void rt_trial_result_free(rt_trial_result *res);

/* Return values of an rt_trial_done_fn. */
enum { RT_GO_ON = 0, RT_STOP = 1, RT_STOP_KILL = 2 };
typedef int (*rt_trial_done_fn)(const rt_trial_result *res, void *ctx);

/* Run trials first, first+stride, ... (count of them) with o->jobs slots,
 * each slot resting o->gap_ms before each trial. fn sees each result as it
 * ends; RT_STOP stops starting new ones (running ones finish and are
 * reported), RT_STOP_KILL kills the rest. Returns 0, or the signal number
 * when SIGINT/SIGTERM/SIGHUP stopped it (running trials killed, not reported). */
int rt_run_trials(const rt_trial_opts *o, long first, long count, long stride,
    rt_trial_done_fn fn, void *ctx);

/* The same, skipping every trial number whose bit is set in have
 * (bit t % 8 of have[t / 8]; NULL: none), as --resume needs after a crash
 * left holes (with -j N trials end out of order). */
int rt_run_trials_except(const rt_trial_opts *o, long first, long count,
    long stride, const unsigned char *have, rt_trial_done_fn fn, void *ctx);

/* The trial record (rt-collect(1)): type "trial" and every field. */
json_t *rt_trial_json(const rt_trial_result *res, const rt_trial_opts *o,
    const char *command);
/* The command as one string: the shell text, or argv shell-quoted. */
char *rt_command_string(const rt_trial_opts *o);

/* Counting outcomes. trials (valid) = passes + failures; failures include
 * timeouts; errors, ignored and skipped are kept apart and never in the rate. */
typedef struct {
	long trials, passes, failures, timeouts, errors, ignored, skipped;
} rt_tally;
void rt_tally_add(rt_tally *t, rt_outcome o);

/* Why an error trial was one, for a message: "trial 3: cannot run ./x: No
 * such file or directory", with the first line of its stderr when any. */
void rt_error_reason(char *buf, size_t size, long trial, const char *error,
    const char *err_text);
/* When most trials were errors (errors > valid trials), a loud warning in
 * buf naming the counts and the first error's reason; returns 1. Else 0. */
int rt_errors_warning(char *buf, size_t size, const rt_tally *t,
    const char *reason);

/* The phrasing of rates is lib/rt_say's; these are its older names. */
#define rt_rate_phrase rt_say_count
#define rt_rate_interval rt_say_interval
#define rt_interval_method rt_say_method
/* "12/40 failed (30.0%, 95% Wilson CI 18.0%–45.5%)": rt_say_count's. */
void rt_rate_text(char *buf, size_t size, long k, long n, double conf);

/* The measure fields: trials, failures, timeouts, errors, ignored,
 * skipped (only when some were), rate
 * (null when n = 0), ci_low, ci_high, interval (the method, as
 * rt_interval_method), confidence, z (null for an exact bound), threshold,
 * verdict, summary. Add them to obj (a new object when obj is NULL). */
json_t *rt_measure_fields(json_t *obj, const rt_tally *t, double conf,
    double threshold);

#endif
