/* rt_codeowners: GitHub's CODEOWNERS file — gitignore-style patterns, each
 * with its owners, the last matching pattern winning. */
#ifndef RT_CODEOWNERS_H
#define RT_CODEOWNERS_H

#include <stddef.h>

typedef struct {
	char *pattern;
	char *owners;        /* blank-separated, "" for a pattern with none */
	long line;
} rt_codeowners_rule;

typedef struct {
	rt_codeowners_rule *r;
	size_t n;
} rt_codeowners;

/* Parse text. 0, or -1 with "PATH:LINE: reason" in err for a syntax
 * error GitHub also rejects: an owner that is not @user, @org/team or an
 * e-mail address, a '!' negation, a '[' range (unsupported there). */
int rt_codeowners_parse(const char *text, const char *path, rt_codeowners *c,
    char *err, size_t errsize);
void rt_codeowners_free(rt_codeowners *c);
/* The owners of the file path (relative to the repository's top, no
 * leading "/"): the last matching rule's, or NULL. */
const char *rt_codeowners_match(const rt_codeowners *c, const char *path);
/* Where GitHub looks: .github/CODEOWNERS, CODEOWNERS, docs/CODEOWNERS
 * under top; the first that exists (malloc'd) or NULL. */
char *rt_codeowners_find(const char *top);
/* The file part of a test ID: the text before "::" (pytest, go, jest). */
char *rt_codeowners_test_file(const char *id);

#endif
