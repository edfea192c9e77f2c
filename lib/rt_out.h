/* rt_out: the files a user names for output (-o, --junit, --facts...),
 * written the way a shell redirection writes them, never replaced blindly. */
#ifndef RT_OUT_H
#define RT_OUT_H

#include <stddef.h>
#include <stdio.h>

/* Write a whole result to path:
 *   "-", /dev/stdout, /dev/stderr, /dev/stdin, /dev/fd/N, /proc/self/fd/N
 *                           descriptor 0, 1, 2 or N, as the shell reads
 *                           these names: written through a dup of it (one
 *                           open file, so a `>>` log is appended to), never
 *                           truncated or renamed; N must be a descriptor the
 *                           tool was given (open, no FD_CLOEXEC), not one of
 *                           its own; "-" and 1 go through stdout's buffer;
 *   a symlink               opened by the kernel (fs.protected_symlinks
 *                           applies; nothing is followed in user space) and
 *                           its target written in place, truncated if
 *                           regular, as `> link` does; the link stays;
 *   a character device, FIFO, socket or block device
 *                           opened O_WRONLY and written in place, never
 *                           truncated or replaced (/dev/null stays a device);
 *   a regular file (lstat), or none
 *                           replaced atomically: a temporary beside it,
 *                           fsync, rename; an existing file keeps its mode.
 * A regular file another process holds the RT_OUT_LOCK of (it is streaming
 * records into it) is not written: -1 with errno EAGAIN.
 * A gone reader of stdout is not an error here: rt_fshut(stdout) at the
 * end reports it (exit 141), after the other outputs are written.
 * Internal files (caches, scratch copies) use rt_write_file_atomic, which
 * never follows a symlink. 0, or -1 with errno set. */
int rt_write_output(const char *path, const char *data, size_t len);

/* Streaming outputs (records written as they happen, so a reader can follow
 * them): open path as `> path` (or `>> path` with RT_OUT_APPEND) would,
 * with the same rules, except that a regular file is written in place and
 * the kernel opens every path (a symlink too). A descriptor name is never
 * truncated; /dev/stdout is stdout itself unless RT_OUT_APPEND.
 * RT_OUT_LOCK takes a write lock (fcntl F_SETLK) on a regular file, named
 * or behind a descriptor, before anything is truncated; when another
 * process holds it, NULL with errno EAGAIN. With RT_OUT_APPEND a regular
 * file is opened read-write, so the caller can read what is there through
 * fileno() without closing another descriptor (which would drop the lock).
 * "-" returns stdout, unlocked. */
enum { RT_OUT_APPEND = 1, RT_OUT_LOCK = 2 };
FILE *rt_output_open(const char *path, int flags);
/* Flush, check and close (stdout is flushed, not closed; its gone reader
 * is left to rt_fshut). 0, or -1. */
int rt_output_close(FILE *f);
/* After rt_write_output or rt_output_open failed: die naming path, with
 * "another process (pid N) is writing it (locked)" for a lock, else
 * strerror (exit 2). */
_Noreturn void rt_output_die(const char *path);
/* The descriptor a name stands for ("-" and /dev/stdout 1, /dev/fd/N N),
 * or -1 for a path. */
int rt_output_fd(const char *path);

/* Staged outputs, for a tool that must not commit what an output failed to
 * carry (rt-audit's history). rt_output_stage_new writes data now where it
 * can still be taken back: to a temporary beside a regular file (or none),
 * fsync'ed; where it cannot (standard output, a device, a FIFO, a link) it
 * writes in place as rt_write_output does and checks it; standard output
 * ("-", or a name of it such as /dev/stdout) through stdout, a gone reader
 * included (EPIPE). NULL with errno when the data did not get
 * there. After the commit, rt_output_publish renames the temporary into
 * place (0, or -1 with errno); rt_output_discard removes it. Both free
 * the stage. */
typedef struct rt_output_stage rt_output_stage;
rt_output_stage *rt_output_stage_new(const char *path, const char *data, size_t len);
int rt_output_publish(rt_output_stage *s);
void rt_output_discard(rt_output_stage *s);

#endif
