/* rt_out: the files a user names for output (-o, --junit, --facts...),
 * written the way a shell redirection writes them, never replaced blindly. */
#ifndef RT_OUT_H
#define RT_OUT_H

#include <stddef.h>
#include <stdio.h>

/* Write a whole result to path:
 *   "-"                     standard output;
 *   a symlink               followed (a chain, up to 40), same rules at the end;
 *   a character device, FIFO, socket or block device
 *                           opened O_WRONLY and written in place, never
 *                           truncated or replaced (/dev/null stays a device);
 *   a regular file, or none replaced atomically: a temporary beside it,
 *                           fsync, rename; an existing file keeps its mode.
 * A gone reader of stdout is not an error here: rt_fshut(stdout) at the
 * end reports it (exit 141), after the other outputs are written.
 * Internal files (caches, scratch copies) use rt_write_file_atomic, which
 * never follows a symlink. 0, or -1 with errno set. */
int rt_write_output(const char *path, const char *data, size_t len);

/* Streaming outputs (records written as they happen, so a reader can follow
 * them): open path as `> path` (or `>> path` with RT_OUT_APPEND) would,
 * with the same rules, except that a regular file is written in place.
 * RT_OUT_LOCK takes a write lock (fcntl F_SETLK) on a regular file before
 * anything is truncated; when another process holds it, NULL with errno
 * EAGAIN. With RT_OUT_APPEND a regular file is opened read-write, so the
 * caller can read what is there through fileno() without closing another
 * descriptor (which would drop the lock). "-" returns stdout. */
enum { RT_OUT_APPEND = 1, RT_OUT_LOCK = 2 };
FILE *rt_output_open(const char *path, int flags);
/* Flush, check and close (stdout is flushed, not closed). 0, or -1. */
int rt_output_close(FILE *f);

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
