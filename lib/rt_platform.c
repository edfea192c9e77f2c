/* rt_platform: Linux first, POSIX fallbacks; the only file with #ifdef. */
#define _DEFAULT_SOURCE 1
#if defined(__linux__)
#define _GNU_SOURCE 1
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "rt_platform.h"

/* CPUs this process may run on (taskset, cgroup cpusets), like nproc(1). */
int
rt_ncpu(void)
{
	long n;
#if defined(__linux__)
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
#endif
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

double
rt_loadavg1(void)
{
	double l[1];
#if defined(__linux__) || defined(__APPLE__) || defined(__FreeBSD__) || \
    defined(__OpenBSD__) || defined(__NetBSD__)
	if (getloadavg(l, 1) == 1)
		return l[0];
#endif
	(void)l;
	return -1;
}

const char *
rt_hostname(void)
{
	static char buf[256];
	if (!buf[0] && gethostname(buf, sizeof buf - 1) != 0)
		strcpy(buf, "unknown");
	return buf;
}

double
rt_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void
rt_utc_rfc3339(char *buf, unsigned long size)
{
	struct timespec ts;
	struct tm tm;
	char tmp[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(tmp, sizeof tmp, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%03ldZ", tmp, ts.tv_nsec / 1000000L);
}

int
rt_sleep_ms(double ms)
{
	struct timespec ts;

	if (ms <= 0)
		return 0;
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)((ms - (double)ts.tv_sec * 1000) * 1e6);
	return nanosleep(&ts, NULL) == 0 ? 0 : -1;
}

long
rt_peak_rss_kb(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return -1;
#ifdef __APPLE__
	return ru.ru_maxrss / 1024;
#else
	return ru.ru_maxrss;
#endif
}

int
rt_isatty(int fd)
{
	const char *e = getenv("RETRIAL_NO_TTY");
	if (e && *e)
		return 0;
	return isatty(fd);
}

int
rt_term_cols(int fd)
{
#if defined(TIOCGWINSZ)
	struct winsize ws;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
#endif
	(void)fd;
	return 0;
}

char *
rt_self_exe(void)
{
	char buf[4096];
	ssize_t n = -1;

#if defined(__linux__)
	n = readlink("/proc/self/exe", buf, sizeof buf - 1);
#elif defined(__NetBSD__)
	n = readlink("/proc/curproc/exe", buf, sizeof buf - 1);
#endif
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

uint64_t
rt_mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

void
rt_spawn_closefrom(posix_spawn_file_actions_t *fa, int lowfd)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
	/* close_range(2) in the child: one call whatever the limit */
	if (posix_spawn_file_actions_addclosefrom_np(fa, lowfd) == 0)
		return;
#endif
	{
		DIR *d;
		struct dirent *de;
		long fd, max, self;

		/* the descriptors open now: a child opens none of its own before exec */
		if ((d = opendir("/proc/self/fd")) || (d = opendir("/dev/fd"))) {
			self = dirfd(d);
			while ((de = readdir(d))) {
				char *end;
				fd = strtol(de->d_name, &end, 10);
				if (*end || end == de->d_name || fd < lowfd || fd == self)
					continue;
				posix_spawn_file_actions_addclose(fa, (int)fd);
			}
			closedir(d);
			return;
		}
		max = sysconf(_SC_OPEN_MAX);
		if (max < 0 || max > 65536)
			max = 65536;
		for (fd = lowfd; fd < max; fd++)
			if (fcntl((int)fd, F_GETFD) >= 0)
				posix_spawn_file_actions_addclose(fa, (int)fd);
	}
}

void
rt_child_closefrom(int lowfd)
{
	long fd, max;

#if defined(__linux__) && defined(SYS_close_range)
	if (syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0) == 0)
		return;
#endif
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (fd = lowfd; fd < max; fd++)
		close((int)fd);
}

int
rt_child_limit_memory(unsigned long long bytes)
{
	struct rlimit rl;

	rl.rlim_cur = rl.rlim_max = (rlim_t)bytes;
#if defined(__linux__)
	return setrlimit(RLIMIT_DATA, &rl);
#else
	return setrlimit(RLIMIT_AS, &rl);
#endif
}

int
rt_subreaper(void)
{
#if defined(__linux__) && defined(PR_SET_CHILD_SUBREAPER)
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -1;
#else
	return -1;
#endif
}

int
rt_protect_self(void)
{
#if defined(__linux__) && defined(PR_SET_DUMPABLE)
	return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 ? 0 : -1;
#else
	return -1;
#endif
}

rt_procinfo *
rt_proc_list(size_t *n)
{
#if defined(__linux__)
	DIR *d;
	struct dirent *de;
	rt_procinfo *v = NULL, *nv, p;
	size_t cap = 0;
	char path[64], buf[1024], *rp, *end, st;
	long pid, ppid, pgid;
	unsigned long flags;
	ssize_t len;
	int fd;

	*n = 0;
	if (!(d = opendir("/proc")))
		return NULL;
	while ((de = readdir(d))) {
		pid = strtol(de->d_name, &end, 10);
		if (pid <= 0 || *end)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		len = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		/* "pid (comm) S ppid pgrp ...": comm may hold anything, even ") " */
		if (!(rp = strrchr(buf, ')')) ||
		    sscanf(rp + 1, " %c %ld %ld %*d %*d %*d %lu", &st, &ppid, &pgid,
		    &flags) != 4)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			if (!(nv = realloc(v, cap * sizeof *v))) {
				free(v);
				closedir(d);
				return NULL;
			}
			v = nv;
		}
		p.pid = (pid_t)pid;
		p.ppid = (pid_t)ppid;
		p.pgid = (pid_t)pgid;
		/* PF_EXITING (0x4): dying, its environment already unreadable */
		p.zombie = st == 'Z' || st == 'X' || (flags & 0x4);
		v[(*n)++] = p;
	}
	closedir(d);
	if (!v)
		v = malloc(sizeof *v);
	return v;
#else
	*n = 0;
	return NULL;
#endif
}

char *
rt_proc_getenv(pid_t pid, const char *name)
{
#if defined(__linux__)
	char path[64], *buf = NULL, *p, *val = NULL;
	size_t len = 0, cap = 0, nl = strlen(name);
	ssize_t k;
	int fd;

	snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			if (cap > (1u << 22) || !(p = realloc(buf, cap + 1)))
				break;
			buf = p;
		}
		if ((k = read(fd, buf + len, cap - len)) <= 0)
			break;
		len += (size_t)k;
	}
	close(fd);
	if (!buf)
		return NULL;
	buf[len] = '\0';
	for (p = buf; p < buf + len; p += strlen(p) + 1)
		if (strncmp(p, name, nl) == 0 && p[nl] == '=') {
			val = strdup(p + nl + 1);
			break;
		}
	free(buf);
	return val;
#else
	(void)pid;
	(void)name;
	return NULL;
#endif
}

/* --- cgroups (Linux cgroup v2) ----------------------------------------- */

static char *cg_self;            /* our own cgroup's directory */
static char *cg_base;            /* ours below it: retrial-PID */
static int cg_state;             /* 0 unknown, 1 usable, -1 not */

/* "A" "B" "C" joined, malloc'd (NULL when out of memory) */
static char *
cg_join(const char *a, const char *b, const char *c)
{
	size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
	char *s = malloc(n);
	if (s)
		snprintf(s, n, "%s%s%s", a, b, c);
	return s;
}

static int
cg_write(const char *dir, const char *file, const char *text)
{
	char path[4096];
	int fd, ok;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	return close(fd) == 0 && ok ? 0 : -1;
}

static int
cg_move_self(const char *dir)
{
	char pid[32];
	snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	return cg_write(dir, "cgroup.procs", pid);
}

/* rmdir, waiting a little for processes on their way out */
static int
cg_rmdir(const char *dir)
{
	int i;
	for (i = 0; i < 50; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -1;
		rt_sleep_ms(2);
	}
	return -1;
}

/* Remove the directory d and the cgroups in it. */
static void
cg_remove_tree(const char *d)
{
	DIR *dd;
	struct dirent *de;
	char path[4096];

	if ((dd = opendir(d))) {
		while ((de = readdir(dd)))
			if (strncmp(de->d_name, "trial-", 6) == 0) {
				snprintf(path, sizeof path, "%s/%s", d, de->d_name);
				cg_rmdir(path);
			}
		closedir(dd);
	}
	cg_rmdir(d);
}

static void
cg_atexit(void)
{
	if (cg_base)
		cg_remove_tree(cg_base);
}

#if defined(__linux__)
/* Our cgroup v2 directory: the cgroup2 mount plus the "0::" path. */
static char *
cg_find_self(void)
{
	FILE *f;
	char line[4096], rel[4096] = "", mnt[4096] = "", root[4096], fs[64], *dash;
	char *res = NULL;

	if (!(f = fopen("/proc/self/cgroup", "re")))
		return NULL;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "0::", 3) == 0 && sscanf(line + 3, "%4095s", rel) == 1)
			break;
	fclose(f);
	if (!rel[0] || !(f = fopen("/proc/self/mountinfo", "re")))
		return NULL;
	while (fgets(line, sizeof line, f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... - FSTYPE SOURCE OPTS */
		if (!(dash = strstr(line, " - ")) || sscanf(dash + 3, "%63s", fs) != 1 ||
		    strcmp(fs, "cgroup2") != 0)
			continue;
		if (sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) == 2 &&
		    strcmp(root, "/") == 0 && !strchr(mnt, '\\'))
			break;
		mnt[0] = '\0';
	}
	fclose(f);
	if (mnt[0])
		res = cg_join(mnt, strcmp(rel, "/") ? rel : "", "");
	return res;
}

/* Remove what a retrial process killed before its atexit left behind. */
static void
cg_clean_stale(const char *self)
{
	DIR *d;
	struct dirent *de;
	char path[4096], *end;
	long pid;

	if (!(d = opendir(self)))
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "retrial-", 8) != 0)
			continue;
		pid = strtol(de->d_name + 8, &end, 10);
		if (*end || pid <= 0 || pid == (long)getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof path, "%s/%s", self, de->d_name);
		cg_remove_tree(path);
	}
	closedir(d);
}
#endif

static int
cg_init(void)
{
#if defined(__linux__)
	const char *off = getenv("RETRIAL_NO_CGROUP");
	char pid[32];

	if (cg_state)
		return cg_state;
	cg_state = -1;
	if ((off && *off) || !(cg_self = cg_find_self()))
		return -1;
	cg_clean_stale(cg_self);
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	if (!(cg_base = cg_join(cg_self, "/retrial-", pid)))
		return -1;
	if (mkdir(cg_base, 0755) < 0 && errno != EEXIST) {
		free(cg_base);
		cg_base = NULL;
		return -1;
	}
	atexit(cg_atexit);
	/* can we go in and, above all, come back? */
	if (cg_move_self(cg_base) < 0)
		return -1;
	if (cg_move_self(cg_self) < 0)
		return -1;       /* stuck in our own base: no trial cgroup, no kill */
	cg_state = 1;
	return 1;
#else
	return -1;
#endif
}

char *
rt_cgroup_new(const char *name)
{
	char *cg;

	if (cg_init() < 0)
		return NULL;
	if (!(cg = cg_join(cg_base, "/trial-", name)))
		return NULL;
	if (mkdir(cg, 0755) < 0) {
		free(cg);
		return NULL;
	}
	return cg;
}

int
rt_cgroup_enter(const char *cg)
{
	return cg_state == 1 ? cg_move_self(cg) : -1;
}

int
rt_cgroup_leave(void)
{
	return cg_move_self(cg_self);
}

pid_t *
rt_cgroup_procs(const char *cg, size_t *n)
{
	char path[4096];
	FILE *f;
	pid_t *v = NULL, *nv;
	size_t cap = 0;
	long pid;

	*n = 0;
	snprintf(path, sizeof path, "%s/cgroup.procs", cg);
	if (!(f = fopen(path, "re")))
		return NULL;
	while (fscanf(f, "%ld", &pid) == 1) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			if (!(nv = realloc(v, cap * sizeof *v)))
				break;
			v = nv;
		}
		v[(*n)++] = (pid_t)pid;
	}
	fclose(f);
	if (*n == 0) {
		free(v);
		v = NULL;
	}
	return v;
}

int
rt_cgroup_kill(const char *cg)
{
	return cg_write(cg, "cgroup.kill", "1");
}

void
rt_cgroup_free(char *cg)
{
	if (cg)
		cg_rmdir(cg);
	free(cg);
}
