/* rt_fs: copying and removing directory trees (the isolated project copies
 * of rt-verify, the scratch copies of rt-diagnose), never following links. */
#ifndef RT_FS_H
#define RT_FS_H

#include <stddef.h>
#include <sys/stat.h>

/* Decide for each entry: 0 copy it, 1 leave it out, -1 stop (err says
 * "interrupted"). */
typedef int (*rt_copy_skip_fn)(const struct stat *st, void *ctx);

/* Copy the file src to dst (which must not exist) with mode. 0 or -1 (errno). */
int rt_copy_file(const char *src, const char *dst, mode_t mode);
/* Copy the tree at src to dst (which must not exist): directories, regular
 * files with their modes, symbolic links as links; other kinds of file are
 * left out. skip may be NULL. 0, or -1 with the reason in err. */
int rt_copy_tree(const char *src, const char *dst, rt_copy_skip_fn skip,
    void *ctx, char *err, size_t errsize);
/* Remove a tree without following symbolic links; best effort. */
void rt_remove_tree(const char *path);
/* Create the directory path and its missing parents with mode, like
 * mkdir -p; directories that exist are fine. 0, or -1 with errno (ENOTDIR
 * when path exists and is not a directory). */
int rt_mkdir_p(const char *path, mode_t mode);
/* Make every missing parent directory of the file path with mode. 0, or
 * -1 with errno set. */
int rt_mkdir_parents(const char *path, mode_t mode);
/* Where retrial keeps its data file name: $XDG_DATA_HOME/retrial/NAME (an
 * absolute XDG_DATA_HOME only), else $HOME/.local/share/retrial/NAME; NULL
 * when neither is set. */
char *rt_data_path(const char *name);

#endif
