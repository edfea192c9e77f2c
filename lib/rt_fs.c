/* rt_fs: copy and remove directory trees without following links. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_fs.h"
#include "rt_util.h"

int
rt_copy_file(const char *src, const char *dst, mode_t mode)
{
	char buf[65536];
	int in, out, e;
	ssize_t n, w, off;

	if ((in = open(src, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if ((out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode | 0600)) < 0) {
		e = errno;
		close(in);
		errno = e;
		return -1;
	}
	while ((n = read(in, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		for (off = 0; off < n; off += w)
			if ((w = write(out, buf + off, (size_t)(n - off))) < 0) {
				if (errno == EINTR) {
					w = 0;
					continue;
				}
				goto fail;
			}
	}
	close(in);
	if (fchmod(out, mode) < 0 || close(out) < 0)
		return -1;
	return 0;
fail:
	e = errno;
	close(in);
	close(out);
	errno = e;
	return -1;
}

int
rt_copy_tree(const char *src, const char *dst, rt_copy_skip_fn skip, void *ctx,
    char *err, size_t errsize)
{
	DIR *d;
	struct dirent *de;
	struct stat st;
	char *s, *t, lnk[4096];
	ssize_t n;
	int rc = 0, sk;

	if (lstat(src, &st) < 0 || mkdir(dst, (st.st_mode & 07777) | 0700) < 0) {
		snprintf(err, errsize, "%s: %s", lstat(src, &st) < 0 ? src : dst, strerror(errno));
		return -1;
	}
	if (!(d = opendir(src))) {
		snprintf(err, errsize, "%s: %s", src, strerror(errno));
		return -1;
	}
	while (rc == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		s = rt_xasprintf("%s/%s", src, de->d_name);
		t = rt_xasprintf("%s/%s", dst, de->d_name);
		if (lstat(s, &st) < 0) {
			snprintf(err, errsize, "%s: %s", s, strerror(errno));
			rc = -1;
		} else if (skip && (sk = skip(&st, ctx)) != 0) {
			if (sk < 0) {
				snprintf(err, errsize, "interrupted");
				rc = -1;
			}
		} else if (S_ISDIR(st.st_mode)) {
			rc = rt_copy_tree(s, t, skip, ctx, err, errsize);
		} else if (S_ISREG(st.st_mode)) {
			if (rt_copy_file(s, t, st.st_mode & 07777) < 0) {
				snprintf(err, errsize, "%s: %s", t, strerror(errno));
				rc = -1;
			}
		} else if (S_ISLNK(st.st_mode)) {
			if ((n = readlink(s, lnk, sizeof lnk - 1)) < 0) {
				snprintf(err, errsize, "%s: %s", s, strerror(errno));
				rc = -1;
			} else {
				lnk[n] = '\0';
				if (symlink(lnk, t) < 0) {
					snprintf(err, errsize, "%s: %s", t, strerror(errno));
					rc = -1;
				}
			}
		}
		free(s);
		free(t);
	}
	closedir(d);
	return rc;
}

/* Remove name under the directory dfd. Directories are opened with
 * O_NOFOLLOW and walked by descriptor, so a link swapped in while we work
 * is unlinked, never followed. */
static void
remove_at(int dfd, const char *name)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlinkat(dfd, name, 0);
		return;
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES &&
	    fchmodat(dfd, name, (st.st_mode & 07777) | 0700, AT_SYMLINK_NOFOLLOW) == 0)
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		unlinkat(dfd, name, 0);      /* became a link or a file meanwhile */
		return;
	}
	if (!(d = fdopendir(fd))) {
		close(fd);
		unlinkat(dfd, name, AT_REMOVEDIR);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		remove_at(dirfd(d), de->d_name);
	}
	closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

void
rt_remove_tree(const char *path)
{
	remove_at(AT_FDCWD, path);
}


int
rt_mkdir_p(const char *path, mode_t mode)
{
	char *p = rt_xstrdup(path), *s, c;
	struct stat st;
	int e;

	for (s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		c = *s;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			e = errno;
			free(p);
			errno = e;
			return -1;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	if (stat(path, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

int
rt_mkdir_parents(const char *path, mode_t mode)
{
	char *p = rt_xstrdup(path), *s;

	for (s = p + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(p, mode) != 0 && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	free(p);
	return 0;
}

char *
rt_data_path(const char *name)
{
	const char *x = getenv("XDG_DATA_HOME"), *h = getenv("HOME");

	if (x && *x == '/')
		return rt_xasprintf("%s/retrial/%s", x, name);
	if (h && *h)
		return rt_xasprintf("%s/.local/share/retrial/%s", h, name);
	return NULL;
}
