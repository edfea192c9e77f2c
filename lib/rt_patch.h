/* rt_patch: unified diffs from untrusted text (model output, caches) —
 * check that every path stays inside the project, build a diff from a whole
 * replacement file, and apply a diff inside a sandbox directory. */
#ifndef RT_PATCH_H
#define RT_PATCH_H

#include <stddef.h>

/* List the files a unified diff touches (the "b/" side, prefix stripped).
 * Fails (-1, reason in err) on an absolute path, a ".." component, a
 * backslash or NUL, an empty diff, or a diff with no hunk. */
int rt_patch_paths(const char *diff, char ***paths, size_t *npaths,
    char *err, size_t errsize);
void rt_patch_paths_free(char **paths, size_t npaths);

/* A unified diff (a/relpath, b/relpath, -p1 style) turning old_text into
 * new_text; NULL when they are identical. relpath must pass the checks
 * above. Runs diff(1) without a shell on temporary files. */
char *rt_patch_from_texts(const char *relpath, const char *old_text,
    const char *new_text);

/* Apply diff inside dir (patch -p1 --batch --forward, no shell, no
 * backup files) after checking its paths. 0, or -1 with the reason. */
int rt_patch_apply(const char *dir, const char *diff, char *err, size_t errsize);

/* The diff as patch(1) is given it by rt_patch_apply: only the checked
 * file sections, a/ b/ names, recounted hunks, nothing else (no git
 * headers, modes, renames). NULL with the reason when it does not parse. */
char *rt_patch_canonical(const char *diff, char *err, size_t errsize);

/* Is dir/rel free of symbolic links that lead outside dir, and not a link
 * itself (as far as it exists)? 1 yes, 0 no. */
int rt_patch_path_inside(const char *dir, const char *rel);

/* What kind of file shipping must not touch without permission: "CI
 * configuration", "git submodules", "git attributes" or "git hooks" (see
 * rt-verify(1), DANGEROUS PATHS); NULL for an ordinary path. */
const char *rt_patch_danger(const char *path);

/* Refuse a patch touching a dangerous path that no allow glob (fnmatch(3),
 * no flags, against the whole relative path) permits: 1 with the reason
 * in why ("touches CI configuration .github/workflows/x.yml"), else 0. */
int rt_patch_dangerous(char *const *paths, size_t n, char *const *allow,
    size_t nallow, char *why, size_t whysize);

/* The first allow glob that matches path, or NULL. */
const char *rt_patch_allowed(const char *path, char *const *allow, size_t nallow);

#endif
