/* rt_github: the GitHub REST API as rt-pr, rt-quarantine and rt-audit
 * use it — where the API is, the token, one call, issues and comments
 * found by a marker in their body. The token is never in a message. */
#ifndef RT_GITHUB_H
#define RT_GITHUB_H

#include <jansson.h>

#define RT_GH_API "https://api.github.com"

typedef struct {
	char *api;          /* SCHEME://HOST[:PORT][/api/v3], no trailing '/' */
	char *git_proto;    /* where git is served for this API: "https" or "http" */
	char *git_host;     /* HOST[:PORT] */
	char *token;        /* zeroed and freed by rt_gh_close */
	int verbose;        /* log method, URL and status to stderr */
} rt_gh;

/* The API from GITHUB_API_URL (else RT_GH_API), and where git is served
 * for it:
 *   https://api.github.com            git at https://github.com/OWNER/REPO.git
 *   https://api.SUB.ghe.com           git at https://SUB.ghe.com/...
 *   https://HOST[:PORT]/api/v3        git at https://HOST[:PORT]/... (Enterprise Server)
 *   SCHEME://HOST[:PORT]              git at the same origin (a loopback test server)
 * Plain http only to a loopback host; no credentials, query or fragment in
 * the URL. Dies naming GITHUB_API_URL otherwise. */
void rt_gh_api(rt_gh *g);
/* The token from token_file (not NULL) or GITHUB_TOKEN (rt_secret_take),
 * trailing blanks cut; dies "WHO needs a token: set GITHUB_TOKEN or use
 * --token-file" when there is none. */
void rt_gh_token(rt_gh *g, const char *token_file, const char *who);
/* Both: a client ready for rt_gh_call. rt_http_init is the caller's. */
void rt_gh_open(rt_gh *g, const char *token_file, const char *who, int verbose);
/* Zero the token's bytes, free everything. */
void rt_gh_close(rt_gh *g);

/* s with every occurrence of the token replaced by "***" (malloc'd). */
char *rt_gh_scrub(const rt_gh *g, const char *s);
/* Is s OWNER/REPO (letters, digits, "-_.", one '/', neither part "." or "..")? */
int rt_gh_repo_ok(const char *s);

/* One call: path ("/repos/O/R/issues?state=open") under the API, body
 * (may be NULL) sent as JSON. Returns the HTTP status (0: no answer), the
 * parsed answer in *out (may be NULL; json_decref it), and in *msg
 * (malloc'd, scrubbed, one line) GitHub's message and its errors'
 * messages, "rate limited: ..." for a 403 or 429 with
 * X-RateLimit-Remaining: 0, the transport's error, or "HTTP N". */
long rt_gh_call(rt_gh *g, const char *method, const char *path, json_t *body,
    json_t **out, char **msg);
/* The one-line complaint about a failed call, malloc'd:
 * "GitHub: POST /repos/o/r/issues: HTTP 422: Validation Failed". */
char *rt_gh_failed(const char *method, const char *path, long status, const char *msg);

/* The first object of the list at path (a GET answering a JSON array;
 * "?per_page=100&page=N" is added, pages read until a short one) whose
 * "body" holds marker as a whole line (a marker with text around it on
 * its line, as a name quoted in a body has, is not one). 1 with it in
 * *found (json_decref it), 0 when none has it, -1 with rt_gh_failed's
 * line in *err (malloc'd). */
int rt_gh_find_marker(rt_gh *g, const char *path, const char *marker, json_t **found,
    char **err);
/* The same for any of markers (NULL-terminated), in one pass. */
int rt_gh_find_markers(rt_gh *g, const char *path, const char *const *markers,
    json_t **found, char **err);
/* The comment on issue or pull request number of repo (OWNER/REPO) that
 * holds marker gets body (PATCH), else a new one is posted (POST); body
 * must hold marker. 1 updated, 0 created, both with the comment in *out
 * (may be NULL); -1 with the complaint in *err. */
int rt_gh_upsert_comment(rt_gh *g, const char *repo, long number, const char *marker,
    const char *body, json_t **out, char **err);
/* The number N of an issue URL ".../OWNER/REPO/issues/N" (or /pull/N)
 * whose OWNER/REPO is repo, else -1. */
long rt_gh_issue_number(const char *url, const char *repo);

#endif
