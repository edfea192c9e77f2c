/* rt_util: the one voice for errors, checked allocation, checked numbers,
 * growable buffers and UTF-8 repair shared by every retrial tool. */
#ifndef RT_UTIL_H
#define RT_UTIL_H

#include <stddef.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>

/* Exit codes, the same in every tool (retrial(7), EXIT STATUS). */
enum {
	RT_EXIT_OK = 0,      /* success */
	RT_EXIT_NO = 1,      /* a negative answer from a predicate or gate */
	RT_EXIT_ERR = 2,     /* usage error or failure */
	RT_EXIT_HUP = 129,   /* stopped by SIGHUP (terminal or session closed) */
	RT_EXIT_INT = 130,   /* stopped by SIGINT */
	RT_EXIT_PIPE = 141,  /* standard output's reader went away (SIGPIPE) */
	RT_EXIT_TERM = 143   /* stopped by SIGTERM */
};
/* The exit status after a stopping signal: 128 + sig (129, 130, 143). */
int rt_signal_status(int sig);

extern const char *rt_progname;
/* Also ignores SIGPIPE, so in every tool a closed output is a write error,
 * files named by options are still completed, and rt_fshut(stdout) ends
 * the tool with RT_EXIT_PIPE. */
void rt_setprogname(const char *argv0);
/* Where share/retrial is: $RETRIAL_SHAREDIR, else the installed
 * $(PREFIX)/share/retrial when it exists, else ../share/retrial next to
 * the program (a build tree). */
const char *rt_sharedir(void);
/* "rt-x retrial 0.1.0" to stdout, for --version. */
void rt_print_version(void);

/* The stopping signal caught by a handler installed without SA_RESTART
 * (rt_trial_signals_install), or 0. */
extern volatile sig_atomic_t rt_stop_signal;
/* Print "progname: message"; a trailing ':' in fmt appends strerror(errno).
 * A call failed by EINTR after a stopping signal exits
 * rt_signal_status(rt_stop_signal) instead, without a message. */
_Noreturn void rt_die(const char *fmt, ...);
_Noreturn void rt_usage_die(const char *fmt, ...); /* same, then "try --help" */
/* After getopt_long returned '?' or ':' (with opterr = 0): one line that
 * names the option ("--bogus: unknown option", "-n: missing value"), then
 * "Try '... --help'", exit 2. */
_Noreturn void rt_bad_option(int ch, const char *optstring, char *const argv[]);
void rt_warn(const char *fmt, ...);
void rt_vwarn(const char *fmt, va_list ap);

void *rt_xmalloc(size_t n);
void *rt_xcalloc(size_t nmemb, size_t size);
/* environ with the "NAME=value" entries of set (NULL-terminated) replacing
 * their namesakes: a malloc'd array of pointers into environ and set (free
 * the array only; set must outlive it). */
char **rt_env_with(const char *const *set);
void *rt_xrealloc(void *p, size_t n);
char *rt_xstrdup(const char *s);
char *rt_xasprintf(const char *fmt, ...);
/* Free a NULL-terminated vector of malloc'd strings and the vector. */
void rt_free_vec(char **v);

/* Checked numbers: "what" names the option ("-n", "--confidence"). Each
 * dies with e.g. "rt-plan: --confidence 1.5: must be between 0 and 1
 * (exclusive)". */
long rt_num_long(const char *what, const char *s, long min, long max);
/* min/max inclusive unless the matching excl flag is set. */
double rt_num_double(const char *what, const char *s, double min, double max,
    int excl_min, int excl_max);
/* A confidence level from the command line (--confidence): at least
 * RT_CONF_MIN and below 1. Below 0.5 an interval is narrower than a coin
 * toss and a gate passes on 2 runs; a level near 1 only asks for more
 * runs, so it is the user's to choose. Dies naming the value otherwise. */
#define RT_CONF_MIN 0.5
double rt_num_confidence(const char *what, const char *s);
/* Parse without dying: 0 on success, -1 on error. */
int rt_parse_long(const char *s, long min, long max, long *out);
int rt_parse_double(const char *s, double *out);

/* Flush and check a stream; a write error (full disk) dies, exit 2. When
 * f is stdout and its reader went away (EPIPE, `| head -1`) it exits
 * RT_EXIT_PIPE (141, as if killed by SIGPIPE) without a message. */
void rt_fshut(FILE *f, const char *name);
/* Flush and check a stream mid-run. Like rt_fshut, except that a gone
 * reader of stdout is let be, so the tool can complete the files named by
 * its options; rt_fshut(stdout) at the end then exits RT_EXIT_PIPE. */
void rt_fpart(FILE *f, const char *name);
/* Is standard output a pipe or socket whose reader went away? */
int rt_stdout_gone(void);
/* After a failed write to f: exit RT_EXIT_PIPE when f is stdout and its
 * reader went away, else die "name: write error: ...". */
_Noreturn void rt_write_failed(FILE *f, const char *name);

/* A growable byte buffer. */
typedef struct {
	char *data;
	size_t len, cap;
} rt_buf;
void rt_buf_add(rt_buf *b, const void *p, size_t n);
void rt_buf_addc(rt_buf *b, char c);
void rt_buf_adds(rt_buf *b, const char *s);
void rt_buf_printf(rt_buf *b, const char *fmt, ...);
const char *rt_buf_str(rt_buf *b); /* NUL-terminated view */
void rt_buf_free(rt_buf *b);

/* s as one sh(1) word, for a command line a person may paste: bare when
 * every byte is in [A-Za-z0-9_./=:,+@%-] (and s is not empty), else in
 * single quotes with each ' written '\''. rt_buf_sh appends it;
 * rt_sh_quote returns it malloc'd. Every reproduce line goes through it. */
void rt_buf_sh(rt_buf *b, const char *s);
char *rt_sh_quote(const char *s);

/* Copy n bytes into a valid UTF-8 string: each byte of an invalid sequence
 * becomes U+FFFD; NUL bytes are kept (JSON writes them as \u0000). Returns
 * a malloc'd buffer, its length in *outlen, the number of replaced bytes in
 * *nbad (may be NULL). */
char *rt_utf8_repair(const char *s, size_t n, size_t *outlen, size_t *nbad);

/* Read a whole file into memory (NUL-terminated); NULL with errno set. */
char *rt_read_file(const char *path, size_t *len);
/* Write atomically: to a temporary beside path (rt_tmp_beside), fsync,
 * rename. 0 or -1 (errno). */
int rt_write_file_atomic(const char *path, const char *data, size_t len);
/* A mkstemp template for a temporary beside path, "PATH.rt-tmp.PID.XXXXXX"
 * (malloc'd), after rt_tmp_sweep(path). */
char *rt_tmp_beside(const char *path);
/* Remove the temporaries beside path a killed run left: those named
 * "PATH.rt-tmp.PID.XXXXXX", regular files of this user, whose PID is no
 * longer a process. Never another name, user or a live writer's. */
void rt_tmp_sweep(const char *path);

#endif
