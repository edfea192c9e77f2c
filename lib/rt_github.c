/* rt_github: GitHub REST calls over rt_http, with the token kept out of
 * every message, and issues and comments found by a marker. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "rt_github.h"
#include "rt_http.h"
#include "rt_jsonl.h"
#include "rt_trial.h"
#include "rt_util.h"

void
rt_gh_api(rt_gh *g)
{
	const char *e = getenv("GITHUB_API_URL"), *api = e && *e ? e : RT_GH_API, *x, *ghost;
	char *hp, *shown;
	size_t n;
	rt_url u;

	if (rt_url_parse(api, &u) < 0)
		rt_die("GITHUB_API_URL: not an http or https URL");
	hp = u.port ? rt_xasprintf("%s:%s", u.host, u.port) : rt_xstrdup(u.host);
	shown = rt_xasprintf("%s://%s%s%s", u.scheme, u.userinfo ? "***@" : "", hp, u.path);
	if (u.userinfo)
		rt_die("GITHUB_API_URL %s: credentials in the URL are refused (the token goes in "
		    "GITHUB_TOKEN or --token-file)", shown);
	if (u.query)
		rt_die("GITHUB_API_URL %s: a query or fragment is refused", shown);
	for (x = hp; *x; x++)
		if (!isalnum((unsigned char)*x) && !strchr(".-:[]", *x))
			rt_die("GITHUB_API_URL %s: not a host name or address", shown);
	if (strcmp(u.scheme, "http") == 0 && !rt_host_is_loopback(u.host))
		rt_die("GITHUB_API_URL %s: plain http is refused for a host that is not loopback "
		    "(127.0.0.0/8, ::1, localhost): the token would travel in clear; use https",
		    shown);
	n = strlen(u.host);
	if (!*u.path && (strcasecmp(u.host, "api.github.com") == 0 ||
	    (strncasecmp(u.host, "api.", 4) == 0 && n > 12 && strcasecmp(u.host + n - 8, ".ghe.com") == 0)))
		ghost = u.host + 4;
	else if (!*u.path || strcasecmp(u.path, "/api/v3") == 0)
		ghost = u.host;
	else
		rt_die("GITHUB_API_URL %s: cannot tell where git is served for this API: expected "
		    "https://api.github.com, https://HOST/api/v3 (GitHub Enterprise Server) or a "
		    "loopback test server's http://127.0.0.1:PORT", shown);
	free(g->api);
	free(g->git_proto);
	free(g->git_host);
	g->api = rt_xasprintf("%s://%s%s", u.scheme, hp, u.path);
	g->git_proto = rt_xstrdup(u.scheme);
	g->git_host = u.port ? rt_xasprintf("%s:%s", ghost, u.port) : rt_xstrdup(ghost);
	free(hp);
	free(shown);
	rt_url_free(&u);
}

static void
zero(char *s)
{
	volatile char *z;

	for (z = s; z && *z; z++)
		*z = 0;
}

void
rt_gh_token(rt_gh *g, const char *token_file, const char *who)
{
	char *t;
	size_t n;

	if (token_file) {
		if (!(t = rt_read_file(token_file, &n)))
			rt_die("%s:", token_file);
	} else {
		if (!(t = rt_secret_take("GITHUB_TOKEN")) || !*t)
			rt_die("%s needs a token: set GITHUB_TOKEN or use --token-file", who);
	}
	n = strlen(t);
	while (n > 0 && isspace((unsigned char)t[n - 1]))
		t[--n] = '\0';
	if (!n || strpbrk(t, "\r\n")) {
		zero(t);
		rt_die("%s: not a token", token_file ? token_file : "GITHUB_TOKEN");
	}
	if (g->token) {
		zero(g->token);
		free(g->token);
	}
	g->token = t;
}

void
rt_gh_open(rt_gh *g, const char *token_file, const char *who, int verbose)
{
	memset(g, 0, sizeof *g);
	g->verbose = verbose;
	rt_gh_api(g);
	rt_gh_token(g, token_file, who);
}

void
rt_gh_close(rt_gh *g)
{
	zero(g->token);
	free(g->token);
	free(g->api);
	free(g->git_proto);
	free(g->git_host);
	memset(g, 0, sizeof *g);
}

char *
rt_gh_scrub(const rt_gh *g, const char *s)
{
	rt_buf b = {0};
	size_t tl = g && g->token ? strlen(g->token) : 0;
	const char *p;

	if (!s)
		return rt_xstrdup("");
	if (tl == 0)
		return rt_xstrdup(s);
	while ((p = strstr(s, g->token))) {
		rt_buf_add(&b, s, (size_t)(p - s));
		rt_buf_adds(&b, "***");
		s = p + tl;
	}
	rt_buf_adds(&b, s);
	return b.data;
}

int
rt_gh_repo_ok(const char *s)
{
	const char *sl = strchr(s, '/'), *x;

	if (!sl || sl == s || !sl[1] || strchr(sl + 1, '/') || strlen(s) > 200 ||
	    strcmp(sl + 1, ".") == 0 || strcmp(sl + 1, "..") == 0 ||
	    strncmp(s, "./", 2) == 0 || strncmp(s, "../", 3) == 0)
		return 0;
	for (x = s; *x; x++)
		if (!isalnum((unsigned char)*x) && !strchr("-_./", *x))
			return 0;
	return 1;
}

long
rt_gh_call(rt_gh *g, const char *method, const char *path, json_t *body, json_t **out,
    char **msg)
{
	rt_http_req q;
	rt_http_resp r;
	char *url = rt_xasprintf("%s%s", g->api, path);
	char *auth = rt_xasprintf("Authorization: Bearer %s", g->token ? g->token : "");
	const char *hdr[] = { "Accept: application/vnd.github+json", auth,
		"X-GitHub-Api-Version: 2022-11-28", "Content-Type: application/json", NULL };
	char *data = body ? rt_dumps(body) : NULL, *s;
	json_t *j = NULL, *m, *errs, *e;
	rt_buf mb = {0};
	size_t i;
	long st;

	memset(&q, 0, sizeof q);
	q.method = method;
	q.url = url;
	q.headers = hdr;
	q.body = data;
	q.body_len = data ? strlen(data) : 0;
	q.timeout_s = 60;
	q.verbose = g->verbose;
	rt_http_perform(&q, &r, 1);
	zero(auth);
	free(auth);
	free(data);
	free(url);
	if (r.body && r.body_len)
		j = json_loadb(r.body, r.body_len, 0, NULL);
	/* GitHub's rate limit: 403 or 429 with no requests left */
	if ((r.status == 403 || r.status == 429) && r.ratelimit_remaining == 0)
		rt_buf_adds(&mb, "rate limited");
	if (r.status == 0) {
		rt_buf_adds(&mb, r.error[0] ? r.error : "no response");
	} else if (json_is_object(j)) {
		if (json_is_string(m = json_object_get(j, "message")))
			rt_buf_printf(&mb, "%s%s", mb.len ? ": " : "", json_string_value(m));
		errs = json_object_get(j, "errors");
		for (i = 0; json_is_array(errs) && i < json_array_size(errs); i++) {
			e = json_array_get(errs, i);
			if (json_is_object(e) && json_is_string(m = json_object_get(e, "message")))
				rt_buf_printf(&mb, "%s%s", mb.len ? ": " : "", json_string_value(m));
		}
	}
	if (!mb.data)
		rt_buf_printf(&mb, "HTTP %ld", r.status);
	/* one line: what a server says is shown, never obeyed */
	for (s = mb.data; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
	*msg = rt_gh_scrub(g, mb.data);
	rt_buf_free(&mb);
	st = r.status;
	rt_http_resp_free(&r);
	*out = j;
	return st;
}

char *
rt_gh_failed(const char *method, const char *path, long status, const char *msg)
{
	const char *q = strchr(path, '?');
	int n = q ? (int)(q - path) : (int)strlen(path);

	if (status)
		return rt_xasprintf("GitHub: %s %.*s: HTTP %ld: %s", method, n, path, status, msg);
	return rt_xasprintf("GitHub: %s %.*s: %s", method, n, path, msg);
}

/* Does marker fill a whole line of body (a CR before the LF allowed)? */
static int
has_line(const char *body, const char *marker)
{
	size_t n = strlen(marker);
	const char *p;

	for (p = body; (p = strstr(p, marker)); p++)
		if ((p == body || p[-1] == '\n') && (!p[n] || p[n] == '\n' ||
		    (p[n] == '\r' && (!p[n + 1] || p[n + 1] == '\n'))))
			return 1;
	return 0;
}

int
rt_gh_find_marker(rt_gh *g, const char *path, const char *marker, json_t **found,
    char **err)
{
	const char *m[2] = { marker, NULL };

	return rt_gh_find_markers(g, path, m, found, err);
}

int
rt_gh_find_markers(rt_gh *g, const char *path, const char *const *markers, json_t **found,
    char **err)
{
	const char *sep = strchr(path, '?') ? "&" : "?";
	long page, st;
	size_t i, k, n;
	json_t *j, *o, *b;
	char *p, *msg;

	*found = NULL;
	*err = NULL;
	for (page = 1; page <= 1000; page++) {
		p = rt_xasprintf("%s%sper_page=100&page=%ld", path, sep, page);
		st = rt_gh_call(g, "GET", p, NULL, &j, &msg);
		if (st != 200 || !json_is_array(j)) {
			if (st == 200)
				*err = rt_gh_failed("GET", p, st, "not a JSON array");
			else
				*err = rt_gh_failed("GET", p, st, msg);
			json_decref(j);
			free(msg);
			free(p);
			return -1;
		}
		free(msg);
		free(p);
		n = json_array_size(j);
		for (i = 0; i < n; i++) {
			o = json_array_get(j, i);
			b = json_object_get(o, "body");
			for (k = 0; json_is_string(b) && markers[k]; k++) {
				if (has_line(json_string_value(b), markers[k])) {
					*found = json_incref(o);
					json_decref(j);
					return 1;
				}
			}
		}
		json_decref(j);
		if (n < 100)
			break;
	}
	return 0;
}

int
rt_gh_upsert_comment(rt_gh *g, const char *repo, long number, const char *marker,
    const char *body, json_t **out, char **err)
{
	char *path = rt_xasprintf("/repos/%s/issues/%ld/comments", repo, number), *msg, *p;
	json_t *c, *id, *req, *j;
	long st;
	int upd;

	if (out)
		*out = NULL;
	if (rt_gh_find_marker(g, path, marker, &c, err) < 0) {
		free(path);
		return -1;
	}
	req = json_object();
	json_object_set_new(req, "body", rt_json_bytes(body, strlen(body)));
	if (c && json_is_integer(id = json_object_get(c, "id"))) {
		p = rt_xasprintf("/repos/%s/issues/comments/%lld", repo,
		    (long long)json_integer_value(id));
		st = rt_gh_call(g, "PATCH", p, req, &j, &msg);
		upd = 1;
	} else {
		p = rt_xstrdup(path);
		st = rt_gh_call(g, "POST", p, req, &j, &msg);
		upd = 0;
	}
	json_decref(c);
	json_decref(req);
	if (st != (upd ? 200 : 201)) {
		*err = rt_gh_failed(upd ? "PATCH" : "POST", p, st, msg);
		json_decref(j);
		upd = -1;
	} else if (out) {
		*out = j;
	} else {
		json_decref(j);
	}
	free(msg);
	free(p);
	free(path);
	return upd;
}

long
rt_gh_issue_number(const char *url, const char *repo)
{
	const char *p = url ? strrchr(url, '/') : NULL, *kind;
	size_t rl = strlen(repo), kl;
	long n;

	if (!p || p == url || rt_parse_long(p + 1, 1, 1L << 40, &n) < 0)
		return -1;
	/* back over "/issues" or "/pull" to "/OWNER/REPO" */
	for (kind = p - 1; kind > url && *kind != '/'; kind--)
		;
	kl = (size_t)(p - kind);
	if (!((kl == 7 && strncmp(kind, "/issues", 7) == 0) || (kl == 5 && strncmp(kind, "/pull", 5) == 0)))
		return -1;
	if ((size_t)(kind - url) < rl + 1 || strncasecmp(kind - rl, repo, rl) != 0 ||
	    kind[-(long)rl - 1] != '/')
		return -1;
	return n;
}
