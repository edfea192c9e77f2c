/* rt_util: errors, allocation, numbers, buffers and UTF-8 repair. */
#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_platform.h"
#include "rt_util.h"

extern char **environ;

const char *rt_progname = "retrial";
static const char *rt_argv0 = "";

void
rt_setprogname(const char *argv0)
{
	const char *s = strrchr(argv0, '/');
	struct sigaction sa;

	rt_progname = s ? s + 1 : argv0;
	rt_argv0 = argv0;
	/* a closed pipe is a write error we handle (rt_fshut), not a death
	 * that would leave --junit or -o half written */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
}

int
rt_signal_status(int sig)
{
	return 128 + sig;
}

void
rt_print_version(void)
{
	printf("%s (retrial) %s\n", rt_progname, RT_VERSION);
}

const char *
rt_sharedir(void)
{
	static char *dir;
	const char *e = getenv("RETRIAL_SHAREDIR"), *slash;
	char *exe, *cand;
	struct stat st;

	if (dir)
		return dir;
	if (e && *e)
		return dir = rt_xstrdup(e);
	/* next to the program first (a build tree, or $(PREFIX)/bin beside
	 * $(PREFIX)/share), then the configured install directory */
	exe = rt_self_exe();
	if (!exe && strchr(rt_argv0, '/'))
		exe = rt_xstrdup(rt_argv0);
	if (exe && (slash = strrchr(exe, '/'))) {
		cand = rt_xasprintf("%.*s/../share/retrial", (int)(slash - exe), exe);
		if (stat(cand, &st) == 0 && S_ISDIR(st.st_mode)) {
			free(exe);
			return dir = cand;
		}
		free(cand);
	}
	free(exe);
	return dir = rt_xstrdup(RT_SHAREDIR);
}

void
rt_vwarn(const char *fmt, va_list ap)
{
	int saved = errno;
	size_t n = strlen(fmt);

	fprintf(stderr, "%s: ", rt_progname);
	vfprintf(stderr, fmt, ap);
	if (n > 0 && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(saved));
	fputc('\n', stderr);
}

void
rt_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rt_vwarn(fmt, ap);
	va_end(ap);
}

volatile sig_atomic_t rt_stop_signal;

void
rt_die(const char *fmt, ...)
{
	va_list ap;

	if (errno == EINTR && rt_stop_signal)
		exit(rt_signal_status(rt_stop_signal));
	va_start(ap, fmt);
	rt_vwarn(fmt, ap);
	va_end(ap);
	exit(RT_EXIT_ERR);
}

void
rt_usage_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rt_vwarn(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", rt_progname);
	exit(RT_EXIT_ERR);
}

void
rt_bad_option(int ch, const char *optstring, char *const argv[])
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	size_t n = strcspn(arg, "=");

	if (strncmp(arg, "--", 2) == 0 && n > 2) {
		if (optopt == 0)
			rt_usage_die("%.*s: unknown option", (int)n, arg);
		if (arg[n] == '=')
			rt_usage_die("%.*s: takes no value", (int)n, arg);
		rt_usage_die("%s: missing value", arg);
	}
	if (ch == ':' || (optopt && optopt != ':' && strchr(optstring, optopt)))
		rt_usage_die("-%c: missing value", optopt);
	rt_usage_die("-%c: unknown option", optopt ? optopt : '?');
}

void *
rt_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		rt_die("out of memory");
	return p;
}

void *
rt_xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		rt_die("out of memory");
	return p;
}

void *
rt_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		rt_die("out of memory");
	return p;
}

char *
rt_xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		rt_die("out of memory");
	return p;
}

char *
rt_xasprintf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		rt_die("vsnprintf:");
	p = rt_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void
rt_free_vec(char **v)
{
	char **p;

	for (p = v; p && *p; p++)
		free(*p);
	free(v);
}

int
rt_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int
rt_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

long
rt_num_long(const char *what, const char *s, long min, long max)
{
	long v;

	if (rt_parse_long(s, LONG_MIN, LONG_MAX, &v) < 0) {
		char *end;
		errno = 0;
		(void)strtol(s, &end, 10);
		if (errno == ERANGE && *s && !*end)
			rt_usage_die("%s %s: must be between %ld and %ld", what, s, min, max);
		rt_usage_die("%s %s: not a whole number", what, s);
	}
	if (v < min || v > max)
		rt_usage_die("%s %s: must be between %ld and %ld", what, s, min, max);
	return v;
}

double
rt_num_double(const char *what, const char *s, double min, double max,
    int excl_min, int excl_max)
{
	double v;

	if (rt_parse_double(s, &v) < 0)
		rt_usage_die("%s %s: not a number", what, s);
	if ((excl_min ? v <= min : v < min) || (excl_max ? v >= max : v > max)) {
		const char *how = excl_min && excl_max ? " (exclusive)" :
		    excl_min ? " (exclusive of the lower end)" :
		    excl_max ? " (exclusive of the upper end)" : "";
		rt_usage_die("%s %s: must be between %g and %g%s", what, s,
		    min, max, how);
	}
	return v;
}

int
rt_stdout_gone(void)
{
	struct pollfd p = { .fd = 1, .events = POLLOUT };
	struct stat st;

	if (fstat(1, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return 0;
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

void
rt_write_failed(FILE *f, const char *name)
{
	int e = errno;

	if (f == stdout && (e == EPIPE || rt_stdout_gone()))
		exit(RT_EXIT_PIPE);
	errno = e;
	rt_die("%s: write error:", name);
}

void
rt_fpart(FILE *f, const char *name)
{
	if ((fflush(f) != 0 || ferror(f)) &&
	    !(f == stdout && (errno == EPIPE || rt_stdout_gone())))
		rt_die("%s: write error:", name);
}

double
rt_num_confidence(const char *what, const char *s)
{
	double v = rt_num_double(what, s, 0, 1, 1, 1);

	if (v < RT_CONF_MIN)
		rt_usage_die("%s %s: too low to decide anything; want %g or more "
		    "(and below 1)", what, s, RT_CONF_MIN);
	return v;
}

void
rt_fshut(FILE *f, const char *name)
{
	int bad = fflush(f) != 0 || ferror(f);
	if (bad)
		rt_write_failed(f, name);
}

void
rt_buf_add(rt_buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		while (cap < b->len + n + 1)
			cap *= 2;
		b->data = rt_xrealloc(b->data, cap);
		b->cap = cap;
	}
	if (!p) {                    /* reserve only */
		b->data[b->len] = '\0';
		return;
	}
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
rt_buf_addc(rt_buf *b, char c)
{
	rt_buf_add(b, &c, 1);
}

void
rt_buf_adds(rt_buf *b, const char *s)
{
	rt_buf_add(b, s, strlen(s));
}

void
rt_buf_printf(rt_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	rt_buf_add(b, NULL, 0);
	if (b->len + (size_t)n + 1 > b->cap) {
		b->cap = b->len + (size_t)n + 1;
		b->data = rt_xrealloc(b->data, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

const char *
rt_buf_str(rt_buf *b)
{
	if (!b->data)
		rt_buf_add(b, NULL, 0);
	return b->data;
}

void
rt_buf_free(rt_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void
rt_buf_sh(rt_buf *b, const char *s)
{
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_./=:,+@%-") == strlen(s)) {
		rt_buf_adds(b, s);
		return;
	}
	rt_buf_addc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			rt_buf_adds(b, "'\\''");
		else
			rt_buf_addc(b, *s);
	}
	rt_buf_addc(b, '\'');
}

char *
rt_sh_quote(const char *s)
{
	rt_buf b = { 0 };

	rt_buf_sh(&b, s);
	rt_buf_str(&b);
	return b.data;
}

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 when it is invalid. */
static size_t
utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
	else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
	else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
	else return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

char *
rt_utf8_repair(const char *s, size_t n, size_t *outlen, size_t *nbad)
{
	const unsigned char *u = (const unsigned char *)s;
	rt_buf b = {0};
	size_t i = 0, bad = 0, run = 0, k;

	rt_buf_add(&b, NULL, n + 1);
	while (i < n) {
		k = utf8_seq(u + i, n - i);
		if (k == 0) {
			rt_buf_add(&b, "\xEF\xBF\xBD", 3);
			bad++;
			i++;
			continue;
		}
		/* copy a run of valid bytes at once */
		run = i;
		while (i < n && (k = utf8_seq(u + i, n - i)) != 0)
			i += k;
		rt_buf_add(&b, s + run, i - run);
	}
	if (outlen)
		*outlen = b.len;
	if (nbad)
		*nbad = bad;
	return b.data;
}

char *
rt_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rbe");
	rt_buf b = {0};
	char tmp[65536];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		rt_buf_add(&b, tmp, n);
	if (ferror(f)) {
		int e = errno;
		fclose(f);
		rt_buf_free(&b);
		errno = e;
		return NULL;
	}
	fclose(f);
	rt_buf_add(&b, NULL, 0);
	if (len)
		*len = b.len;
	return b.data;
}

/* "PATH.rt-tmp.PID.XXXXXX": the name says whose a temporary is, so a later
 * run can remove one a killed run left (rt_tmp_sweep). */
#define TMP_MARK ".rt-tmp."

static int
tmp_name_pid(const char *name, const char *base, long *pid)
{
	size_t bl = strlen(base), ml = strlen(TMP_MARK);
	const char *p;
	char *end;
	int k;

	if (strncmp(name, base, bl) || strncmp(name + bl, TMP_MARK, ml))
		return 0;
	p = name + bl + ml;
	if (*p < '1' || *p > '9')
		return 0;
	errno = 0;
	*pid = strtol(p, &end, 10);
	if (errno || *end != '.' || *pid <= 0)
		return 0;
	for (k = 1; k <= 6; k++)
		if (!(end[k] >= 'a' && end[k] <= 'z') && !(end[k] >= 'A' && end[k] <= 'Z') &&
		    !(end[k] >= '0' && end[k] <= '9'))
			return 0;
	return end[7] == '\0';
}

void
rt_tmp_sweep(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? rt_xasprintf("%.*s", (int)(slash - path + 1), path) :
	    rt_xstrdup(".");
	const char *base = slash ? slash + 1 : path;
	struct dirent *de;
	struct stat st;
	DIR *d;
	long pid;
	int fd;

	if (!*base || !(d = opendir(dir))) {
		free(dir);
		return;
	}
	fd = dirfd(d);
	while ((de = readdir(d))) {
		/* ours only: our name pattern, a regular file of our user, and
		 * the process named in it gone (a live one is still writing) */
		if (!tmp_name_pid(de->d_name, base, &pid) || pid == (long)getpid() ||
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		(void)unlinkat(fd, de->d_name, 0);
	}
	closedir(d);
	free(dir);
}

char *
rt_tmp_beside(const char *path)
{
	rt_tmp_sweep(path);
	return rt_xasprintf("%s" TMP_MARK "%ld.XXXXXX", path, (long)getpid());
}

int
rt_write_file_atomic(const char *path, const char *data, size_t len)
{
	char *tmp = rt_tmp_beside(path);
	int fd = mkstemp(tmp), e;
	size_t off = 0;
	ssize_t w;

	if (fd < 0) {
		free(tmp);
		return -1;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	while (off < len) {
		w = write(fd, data + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		off += (size_t)w;
	}
	if (fchmod(fd, 0644) < 0 || fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		fd = -1;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	errno = e;
	return -1;
}

char **
rt_env_with(const char *const *set)
{
	size_t n, k = 0, i, j, m = 0, nl;
	char **env;
	int replaced;

	for (n = 0; environ[n]; n++)
		;
	while (set && set[k])
		k++;
	env = rt_xcalloc(n + k + 1, sizeof *env);
	for (i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		nl = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		for (replaced = 0, j = 0; j < k; j++)
			replaced |= strncmp(set[j], environ[i], nl) == 0 && set[j][nl] == '=';
		if (!replaced)
			env[m++] = environ[i];
	}
	for (j = 0; j < k; j++)
		env[m++] = (char *)set[j];
	env[m] = NULL;
	return env;
}
