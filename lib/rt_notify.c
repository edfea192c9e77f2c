/* rt_notify: GitHub workflow commands and chat webhooks (rt_notify.h). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_http.h"
#include "rt_jsonl.h"
#include "rt_notify.h"
#include "rt_util.h"

static void
gh_esc(rt_buf *b, const char *s, int prop)
{
	for (; *s; s++) {
		if (*s == '%')
			rt_buf_adds(b, "%25");
		else if (*s == '\r')
			rt_buf_adds(b, "%0D");
		else if (*s == '\n')
			rt_buf_adds(b, "%0A");
		else if (prop && *s == ':')
			rt_buf_adds(b, "%3A");
		else if (prop && *s == ',')
			rt_buf_adds(b, "%2C");
		else
			rt_buf_addc(b, *s);
	}
}

void
rt_gh_command(rt_buf *b, const char *cmd, const char *const *props, const char *msg)
{
	size_t i;
	int first = 1;

	rt_buf_printf(b, "::%s", cmd);
	for (i = 0; props && props[i]; i += 2) {
		if (!props[i + 1])
			continue;
		rt_buf_printf(b, "%s%s=", first ? " " : ",", props[i]);
		gh_esc(b, props[i + 1], 1);
		first = 0;
	}
	rt_buf_adds(b, "::");
	gh_esc(b, msg, 0);
	rt_buf_addc(b, '\n');
}

void
rt_slack_esc(rt_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			rt_buf_adds(b, "&amp;");
		else if (*s == '<')
			rt_buf_adds(b, "&lt;");
		else if (*s == '>')
			rt_buf_adds(b, "&gt;");
		else
			rt_buf_addc(b, *s);
	}
	rt_buf_str(b);
}

int
rt_webhook_check(const char *url, char **shown, char *err, size_t errsize)
{
	rt_url u;
	int rc = 0;

	*shown = NULL;
	if (rt_url_parse(url, &u) < 0) {
		snprintf(err, errsize, "not an http or https URL");
		return -1;
	}
	*shown = rt_xasprintf("%s://%s%s%s/...", u.scheme, u.host, u.port ? ":" : "",
	    u.port ? u.port : "");
	if (u.userinfo) {
		snprintf(err, errsize, "credentials in the URL are refused");
		rc = -1;
	} else if (strcmp(u.scheme, "https") && !rt_host_is_loopback(u.host)) {
		snprintf(err, errsize, "plain http is refused for a host that is not "
		    "loopback (127.0.0.0/8, ::1, localhost); use https");
		rc = -1;
	}
	rt_url_free(&u);
	return rc;
}

/* The run a message came from, when GitHub Actions names it
 * (GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_SERVER_URL): a line with the
 * repository, a Slack link "<URL|OWNER/REPO run ID>" when the run is
 * known. A value outside what GitHub allows there is left out, so no
 * environment text becomes Slack markup. */
static void
run_line(rt_buf *t)
{
	static const char namech[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-/";
	const char *repo = getenv("GITHUB_REPOSITORY"), *id = getenv("GITHUB_RUN_ID");
	const char *srv = getenv("GITHUB_SERVER_URL");

	if (!repo || !*repo || repo[strspn(repo, namech)] || !strchr(repo, '/'))
		return;
	if (!srv || !*srv)
		srv = "https://github.com";
	if (strncmp(srv, "https://", 8) != 0 || srv[strcspn(srv, "<>| \t\r\n")])
		srv = NULL;
	if (srv && id && *id && !id[strspn(id, "0123456789")])
		rt_buf_printf(t, "\n<%s/%s/actions/runs/%s|%s run %s>", srv, repo, id, repo, id);
	else
		rt_buf_printf(t, "\n%s", repo);
}

int
rt_webhook_post(const char *url, const char *text, char *err, size_t errsize)
{
	static const char *const hdr[] = { "Content-Type: application/json", NULL };
	json_t *j = json_object();
	rt_buf t = { 0 };
	rt_http_req req = { 0 };
	rt_http_resp resp;
	char *body;
	int rc = 0;

	rt_slack_esc(&t, text);
	run_line(&t);
	json_object_set_new(j, "text", rt_json_bytes(t.data, t.len));
	rt_buf_free(&t);
	body = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	req.method = "POST";
	req.url = url;
	req.headers = hdr;
	req.body = body;
	req.body_len = strlen(body);
	req.timeout_s = 30;
	req.max_response = 65536;
	memset(&resp, 0, sizeof resp);
	rt_http_init();
	rt_http_perform(&req, &resp, 1);
	free(body);
	if (resp.status < 200 || resp.status > 299) {
		if (resp.status)
			snprintf(err, errsize, "HTTP %ld", resp.status);
		else
			snprintf(err, errsize, "no response (%s)", resp.error[0] ? resp.error :
			    "unknown error");
		rc = -1;
	}
	rt_http_resp_free(&resp);
	rt_http_cleanup();
	return rc;
}
