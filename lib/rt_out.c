/* rt_out: user-named outputs written like a shell redirection: descriptor
 * names to the descriptor, devices, FIFOs and symlinks' targets in place,
 * plain regular files replaced atomically, one writer per regular file. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_out.h"
#include "rt_util.h"

/* the holder of the lock that refused the last open, for rt_output_die */
static long lock_holder;

int
rt_output_fd(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
	const char *p;
	long n;
	size_t i;

	if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (strcmp(path, "/dev/stdin") == 0)
		return 0;
	if (strcmp(path, "/dev/stderr") == 0)
		return 2;
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		if (strncmp(path, dirs[i], strlen(dirs[i])) != 0)
			continue;
		p = path + strlen(dirs[i]);
		/* digits only, as the shell reads them: "/dev/fd/3x" is a path */
		if (strspn(p, "0123456789") != strlen(p) || rt_parse_long(p, 0, 65535, &n) < 0)
			return -1;
		return (int)n;
	}
	return -1;
}

/* The descriptor a name stands for, checked: open, and handed to this
 * process rather than opened by it. After exec only descriptors without
 * FD_CLOEXEC survive, and every one this toolkit opens has it, so
 * /dev/fd/N never writes into the tool's own database or scratch file. */
static int
given_fd(const char *path)
{
	int fd = rt_output_fd(path), fl;

	if ((fl = fcntl(fd, F_GETFD)) < 0)
		return -1;
	if (fl & FD_CLOEXEC) {
		errno = EBADF;
		return -1;
	}
	return fd;
}

/* Does another process hold a lock on fd's regular file? Tested with
 * F_GETLK, which takes nothing: a lock this process holds on the same file
 * (its own --facts) is neither a conflict nor converted. */
static int
locked_by_other(int fd)
{
	struct flock lk;
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	memset(&lk, 0, sizeof lk);
	lk.l_type = F_WRLCK;
	lk.l_whence = SEEK_SET;
	if (fcntl(fd, F_GETLK, &lk) < 0 || lk.l_type == F_UNLCK)
		return 0;
	lock_holder = (long)lk.l_pid;
	errno = EAGAIN;
	return 1;
}

/* Take the write lock on fd's regular file, or -1 with errno EAGAIN when
 * another process holds it. */
static int
lock(int fd)
{
	struct flock lk;
	struct stat st;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	memset(&lk, 0, sizeof lk);
	lk.l_type = F_WRLCK;
	lk.l_whence = SEEK_SET;
	if (fcntl(fd, F_SETLK, &lk) == 0)
		return 0;
	if (errno != EACCES && errno != EAGAIN)
		return -1;
	if (!locked_by_other(fd))
		lock_holder = -1;
	errno = EAGAIN;
	return -1;
}

static int
write_all(int fd, const char *data, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	size_t off = 0;
	ssize_t w;

	while (off < len) {
		w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		/* an inherited descriptor may be non-blocking: wait, not fail */
		if (w < 0 && errno == EAGAIN && poll(&p, 1, -1) >= 0)
			continue;
		if (w < 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

static int
write_close(int fd, const char *data, size_t len)
{
	int rc = write_all(fd, data, len), e = errno;

	if (close(fd) < 0 && rc == 0)
		return -1;
	errno = e;
	return rc;
}

/* Write data to a temporary beside path, with old's owner and mode (else
 * 0666 & ~umask), and fsync it; its name in *tmpp (malloc'd). A record
 * file another tool is streaming into is refused (EAGAIN). */
static int
stage_tmp(const char *path, const struct stat *old, const char *data, size_t len,
    char **tmpp)
{
	char *tmp = rt_tmp_beside(path);
	int fd, e;
	mode_t mask;

	if (old && (fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) >= 0) {
		e = locked_by_other(fd);
		close(fd);
		if (e) {
			free(tmp);
			errno = EAGAIN;
			return -1;
		}
	}
	if ((fd = mkstemp(tmp)) < 0) {
		free(tmp);
		return -1;
	}
	if (old) {
		(void)!fchown(fd, old->st_uid, old->st_gid);
		mask = old->st_mode & 07777;
	} else {
		mask = umask(0);
		umask(mask);
		mask = 0666 & ~mask;
	}
	if (write_all(fd, data, len) < 0 || fchmod(fd, mask) < 0 || fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	*tmpp = tmp;
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

/* Replace path atomically: a temporary beside it, fsync, rename. */
static int
replace(const char *path, const struct stat *old, const char *data, size_t len)
{
	char *tmp;
	int e;

	if (stage_tmp(path, old, data, len, &tmp) < 0)
		return -1;
	if (rename(tmp, path) < 0) {
		e = errno;
		unlink(tmp);
		free(tmp);
		errno = e;
		return -1;
	}
	free(tmp);
	return 0;
}

/* A whole result to a descriptor name: appended where the shell's `>>`
 * put it, at its offset otherwise; never truncated, never renamed. */
static int
write_fd(const char *path, const char *data, size_t len)
{
	int fd = given_fd(path);

	if (fd < 0 || locked_by_other(fd))
		return -1;
	if (fd == 1) {
		/* through stdout's own buffer, after what the tool printed;
		 * a gone reader is left to rt_fshut(stdout) at the end (exit
		 * 141), so the other named files are still written */
		if ((fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) &&
		    errno != EPIPE && !rt_stdout_gone())
			return -1;
		return 0;
	}
	if (fd == 2)
		fflush(stderr);
	if ((fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return -1;
	return write_close(fd, data, len);
}

int
rt_write_output(const char *path, const char *data, size_t len)
{
	struct stat st;
	int fd;

	lock_holder = 0;
	if (rt_output_fd(path) >= 0)
		return write_fd(path, data, len);
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? replace(path, NULL, data, len) : -1;
	if (S_ISREG(st.st_mode))
		return replace(path, &st, data, len);
	if (S_ISLNK(st.st_mode)) {
		/* the kernel follows the link (fs.protected_symlinks applies)
		 * and the target is written in place, as `> link` does; a
		 * dangling link gets its target created */
		if ((fd = open(path, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC, 0666)) < 0)
			return -1;
		if (locked_by_other(fd) || (fstat(fd, &st) == 0 &&
		    S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0)) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		return write_close(fd, data, len);
	}
	/* a device, FIFO or socket: written in place, as `>` would; O_NOFOLLOW
	 * in case a link took its place since lstat */
	if ((fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC)) < 0)
		return -1;
	return write_close(fd, data, len);
}

FILE *
rt_output_open(const char *path, int flags)
{
	struct stat st;
	int fd, e, reg, how;
	FILE *f;

	lock_holder = 0;
	if (rt_output_fd(path) >= 0) {
		if ((fd = given_fd(path)) < 0)
			return NULL;
		if ((flags & RT_OUT_LOCK) && lock(fd) < 0)
			return NULL;
		/* stdout itself, so records and what the tool prints share
		 * one buffer and arrive whole and in order; a dup where the
		 * caller reads it back (RT_OUT_APPEND) */
		if (fd == 1 && !(flags & RT_OUT_APPEND))
			return stdout;
		if ((fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
			return NULL;
	} else {
		/* opened by the kernel, links and all; only the choice of
		 * mode looks first */
		reg = stat(path, &st) < 0 || S_ISREG(st.st_mode);
		how = !reg ? O_WRONLY : (flags & RT_OUT_APPEND) ? O_RDWR | O_APPEND : O_WRONLY;
		if ((fd = open(path, how | O_CREAT | O_NOCTTY | O_CLOEXEC, 0666)) < 0)
			return NULL;
		/* never O_TRUNC at open: a locked file must not be emptied by
		 * the writer the lock refuses */
		if ((flags & RT_OUT_LOCK) && lock(fd) < 0) {
			e = errno;
			goto fail;
		}
		if (!(flags & RT_OUT_APPEND) && fstat(fd, &st) == 0 &&
		    S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) {
			e = errno;
			goto fail;
		}
	}
	if (!(f = fdopen(fd, (flags & RT_OUT_APPEND) ? "a" : "w"))) {
		e = errno;
		goto fail;
	}
	return f;
fail:
	close(fd);
	errno = e;
	return NULL;
}

int
rt_output_close(FILE *f)
{
	int bad = fflush(f) != 0 || ferror(f);

	if (f == stdout)
		/* a gone reader: rt_fshut(stdout) at the end says so (141) */
		return bad && errno != EPIPE && !rt_stdout_gone() ? -1 : 0;
	if (fclose(f) != 0)
		bad = 1;
	return bad ? -1 : 0;
}

void
rt_output_die(const char *path)
{
	if (lock_holder > 0)
		rt_die("%s: another process (pid %ld) is writing it (locked); "
		    "refusing to write it too", path, lock_holder);
	if (lock_holder < 0)
		rt_die("%s: another process is writing it (locked); "
		    "refusing to write it too", path);
	rt_die("%s:", path);
}

struct rt_output_stage {
	char *tmp, *path;       /* NULL: already written in place */
};

rt_output_stage *
rt_output_stage_new(const char *path, const char *data, size_t len)
{
	rt_output_stage *s = rt_xcalloc(1, sizeof *s);
	struct stat st, so;
	int e, missing;

	/* "-", /dev/stdout, /dev/fd/1, or a link to standard output */
	lock_holder = 0;
	if (rt_output_fd(path) == 1 || (rt_output_fd(path) < 0 && lstat(path, &st) == 0 &&
	    S_ISLNK(st.st_mode) && stat(path, &st) == 0 && fstat(STDOUT_FILENO, &so) == 0 &&
	    st.st_dev == so.st_dev && st.st_ino == so.st_ino)) {
		/* cannot be taken back: written now, and a gone reader is an
		 * error here, before anything is committed */
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
			goto fail;
		return s;
	}
	if (rt_output_fd(path) >= 0) {
		/* another descriptor name: written in place now */
		if (rt_write_output(path, data, len) < 0)
			goto fail;
		return s;
	}
	if ((missing = lstat(path, &st) < 0) && errno != ENOENT)
		goto fail;
	if (missing || S_ISREG(st.st_mode)) {
		if (stage_tmp(path, missing ? NULL : &st, data, len, &s->tmp) < 0)
			goto fail;
		s->path = rt_xstrdup(path);
		return s;
	}
	/* a link, device, FIFO: the redirection rules, written now */
	if (rt_write_output(path, data, len) < 0)
		goto fail;
	return s;
fail:
	e = errno;
	free(s);
	errno = e;
	return NULL;
}

int
rt_output_publish(rt_output_stage *s)
{
	int rc = 0, e = 0;

	if (!s)
		return 0;
	if (s->tmp && rename(s->tmp, s->path) < 0) {
		e = errno;
		unlink(s->tmp);
		rc = -1;
	}
	free(s->tmp);
	free(s->path);
	free(s);
	errno = e;
	return rc;
}

void
rt_output_discard(rt_output_stage *s)
{
	if (!s)
		return;
	if (s->tmp)
		unlink(s->tmp);
	free(s->tmp);
	free(s->path);
	free(s);
}
