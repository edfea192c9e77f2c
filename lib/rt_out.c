/* rt_out: user-named outputs written like a shell redirection: devices and
 * FIFOs in place, symlinks followed, regular files replaced atomically. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_out.h"
#include "rt_util.h"

/* The path a chain of symlinks ends at (malloc'd), which may not exist
 * yet: `> link` creates a dangling link's target. NULL with errno. */
static char *
resolve(const char *path)
{
	char *cur = rt_xstrdup(path), *next, *slash;
	char buf[PATH_MAX];
	struct stat st;
	ssize_t n;
	int hops;

	for (hops = 0; hops < 40; hops++) {
		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode))
			return cur;
		if ((n = readlink(cur, buf, sizeof buf - 1)) < 0) {
			free(cur);
			return NULL;
		}
		buf[n] = '\0';
		if (buf[0] == '/' || !(slash = strrchr(cur, '/')))
			next = rt_xstrdup(buf);
		else
			next = rt_xasprintf("%.*s/%s", (int)(slash - cur), cur, buf);
		free(cur);
		cur = next;
	}
	free(cur);
	errno = ELOOP;
	return NULL;
}

static int
write_all(int fd, const char *data, size_t len)
{
	size_t off = 0;
	ssize_t w;

	while (off < len) {
		w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

/* Write data to a temporary beside path, with old's owner and mode (else
 * 0666 & ~umask), and fsync it; its name in *tmpp (malloc'd). */
static int
stage_tmp(const char *path, const struct stat *old, const char *data, size_t len,
    char **tmpp)
{
	char *tmp = rt_xasprintf("%s.tmpXXXXXX", path);
	int fd = mkstemp(tmp), e;
	mode_t mask;

	if (fd < 0) {
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

int
rt_write_output(const char *path, const char *data, size_t len)
{
	struct stat st;
	char *real;
	int fd, rc, e;

	if (strcmp(path, "-") == 0) {
		/* a gone reader is left to rt_fshut(stdout) at the end (exit
		 * 141), so the other named files are still written */
		if ((fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) &&
		    errno != EPIPE && !rt_stdout_gone())
			return -1;
		return 0;
	}
	if (!(real = resolve(path)))
		return -1;
	if (stat(real, &st) < 0) {
		rc = errno == ENOENT ? replace(real, NULL, data, len) : -1;
	} else if (S_ISREG(st.st_mode)) {
		rc = replace(real, &st, data, len);
	} else {
		/* a device, FIFO or socket: written in place, as `>` would */
		if ((fd = open(real, O_WRONLY | O_NOCTTY | O_CLOEXEC)) < 0) {
			rc = -1;
		} else {
			rc = write_all(fd, data, len);
			e = errno;
			if (close(fd) < 0 && rc == 0)
				rc = -1;
			else
				errno = e;
		}
	}
	e = errno;
	free(real);
	errno = e;
	return rc;
}

FILE *
rt_output_open(const char *path, int flags)
{
	struct flock lk;
	struct stat st;
	char *real;
	int fd, e, reg, how;
	FILE *f;

	if (strcmp(path, "-") == 0)
		return stdout;
	if (!(real = resolve(path)))
		return NULL;
	reg = stat(real, &st) < 0 || S_ISREG(st.st_mode);
	/* never O_TRUNC at open: a locked file must not be emptied by the
	 * writer the lock refuses */
	how = !reg ? O_WRONLY : (flags & RT_OUT_APPEND) ? O_RDWR | O_APPEND : O_WRONLY;
	fd = open(real, how | (reg ? O_CREAT : 0) | O_NOCTTY | O_CLOEXEC, 0666);
	e = errno;
	free(real);
	if (fd < 0) {
		errno = e;
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		if (flags & RT_OUT_LOCK) {
			memset(&lk, 0, sizeof lk);
			lk.l_type = F_WRLCK;
			lk.l_whence = SEEK_SET;
			if (fcntl(fd, F_SETLK, &lk) < 0) {
				e = errno == EACCES ? EAGAIN : errno;
				goto fail;
			}
		}
		if (!(flags & RT_OUT_APPEND) && ftruncate(fd, 0) < 0) {
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
		return bad ? -1 : 0;
	if (fclose(f) != 0)
		bad = 1;
	return bad ? -1 : 0;
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

	/* /dev/stdout, /dev/fd/1 or another link to it: standard output */
	if (strcmp(path, "-") == 0 || (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
	    stat(path, &st) == 0 && fstat(STDOUT_FILENO, &so) == 0 &&
	    st.st_dev == so.st_dev && st.st_ino == so.st_ino)) {
		/* cannot be taken back: written now, and a gone reader is an
		 * error here, before anything is committed */
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
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
