/* rt_platform: what POSIX leaves open or systems do differently, behind
 * one header, so no tool needs an #ifdef. */
#ifndef RT_PLATFORM_H
#define RT_PLATFORM_H

#include <spawn.h>
#include <stdint.h>
#include <sys/types.h>

/* Online CPUs, at least 1. */
int rt_ncpu(void);
/* 1-minute load average, or -1 when the system does not say. */
double rt_loadavg1(void);
/* Host name (static buffer). */
const char *rt_hostname(void);
/* Monotonic clock in milliseconds (fractional). */
double rt_now_ms(void);
/* Current UTC time as RFC 3339 with milliseconds into buf (>= 32 bytes). */
void rt_utc_rfc3339(char *buf, unsigned long size);
/* Sleep ms milliseconds, returning early (-1) when a signal arrives. */
int rt_sleep_ms(double ms);
/* Peak resident set size of this process in KiB, or -1. */
long rt_peak_rss_kb(void);
/* Is fd a terminal? (isatty, but never when RETRIAL_NO_TTY is set) */
int rt_isatty(int fd);
/* Columns of the terminal on fd, 0 when unknown. */
int rt_term_cols(int fd);
/* The running program's absolute path (malloc'd), or NULL when the
 * system does not say. */
char *rt_self_exe(void);
/* Add to fa a close of every descriptor from lowfd up, run in the child
 * before exec (closefrom or close_range where the system has it, else one
 * close per descriptor open now). */
void rt_spawn_closefrom(posix_spawn_file_actions_t *fa, int lowfd);
/* Make this process the reaper of its orphaned descendants (Linux
 * PR_SET_CHILD_SUBREAPER), so a daemon that left its trial's process group
 * and session is re-parented to us, not to init. 0, or -1 where the system
 * has none. */
int rt_subreaper(void);
/* A process as the system shows it. */
typedef struct {
	pid_t pid, ppid, pgid;
	int zombie;                  /* a zombie, or already exiting */
} rt_procinfo;
/* Every process the system shows (Linux: /proc), malloc'd, the count in
 * *n; NULL where the system does not say. */
rt_procinfo *rt_proc_list(size_t *n);
/* The value of name in process pid's environment as it was exec'd
 * (malloc'd), or NULL when absent or unreadable. */
char *rt_proc_getenv(pid_t pid, const char *name);
/* Keep other processes of our uid out of this one (Linux
 * PR_SET_DUMPABLE 0): no /proc/PID/environ, mem or ptrace for them, and
 * no core dump. Root (CAP_SYS_PTRACE) still gets in. 0, or -1 where the
 * system has none. */
int rt_protect_self(void);
/* A cgroup of its own for each trial (Linux cgroup v2, where this
 * process may make cgroups below its own and move itself; not when
 * RETRIAL_NO_CGROUP is set): rt_cgroup_new makes one named name below a
 * directory of this process's and returns its path (malloc'd), or NULL.
 * A child spawned between rt_cgroup_enter (this process moves into cg)
 * and rt_cgroup_leave (back; -1 if it cannot, and then nothing may write
 * cg's cgroup.kill) starts there, and so does all it forks. */
char *rt_cgroup_new(const char *name);
int rt_cgroup_enter(const char *cg);
int rt_cgroup_leave(void);
/* The processes in cg (malloc'd, count in *n; NULL when none or unreadable). */
pid_t *rt_cgroup_procs(const char *cg, size_t *n);
/* SIGKILL to every process in cg at once (cgroup.kill); 0 or -1. */
int rt_cgroup_kill(const char *cg);
/* Remove cg once its processes are gone, and free the path. */
void rt_cgroup_free(char *cg);
/* In a child between fork and exec: close every descriptor from lowfd up
 * (close_range where the system has it), and bound the memory it may
 * take to bytes (Linux RLIMIT_DATA, which counts every private writable
 * mapping since 4.7 yet not the address space Go and V8 reserve; else
 * RLIMIT_AS). 0, or -1 where the limit cannot be set. */
void rt_child_closefrom(int lowfd);
int rt_child_limit_memory(unsigned long long bytes);
/* splitmix64: a seed mixer so trial seeds differ in every bit. */
uint64_t rt_mix64(uint64_t x);

#endif
