/* rt_platform: Linux first, POSIX fallbacks; the only file with #ifdef. */
#define _DEFAULT_SOURCE 1
#if defined(__linux__)
#define _GNU_SOURCE 1
#include <sched.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
