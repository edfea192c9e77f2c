/* rt_notify: results where people look — GitHub workflow commands
 * (::warning annotations) and chat webhooks (Slack-compatible JSON). */
#ifndef RT_NOTIFY_H
#define RT_NOTIFY_H

#include <stddef.h>
#include "rt_util.h"

/* One workflow command line, "::CMD k1=v1,k2=v2::MESSAGE\n", escaped as
 * GitHub reads it: in the message % CR LF as %25 %0D %0A, in a property
 * value also ':' and ',' as %3A and %2C. props is NULL or NAME, VALUE
 * pairs ending in NULL; a NULL value leaves its property out. */
void rt_gh_command(rt_buf *b, const char *cmd, const char *const *props,
    const char *msg);

/* A webhook URL is a secret (Slack's carries its token in the path):
 * accepted when https, or http to a loopback host (127.0.0.0/8, ::1,
 * localhost), with no credentials in it. *shown (malloc'd, also on
 * failure when the URL parses, else NULL) is what messages may say of
 * it: "SCHEME://HOST[:PORT]/...". 0, or -1 with the reason in err. */
int rt_webhook_check(const char *url, char **shown, char *err, size_t errsize);

/* Plain text as Slack mrkdwn reads it: & < > as &amp; &lt; &gt;, so a
 * "<!channel>" or "<https://x|text>" in a test name is shown, never acted
 * on (Slack's "Escaping text": only these three). Appends. */
void rt_slack_esc(rt_buf *b, const char *s);

/* POST {"text": text} to url through rt_http, text plain (rt_slack_esc
 * is applied here), then, in a GitHub Actions job, a line naming
 * $GITHUB_REPOSITORY with a link to the run ($GITHUB_SERVER_URL, else
 * https://github.com, /OWNER/REPO/actions/runs/$GITHUB_RUN_ID). 0 on a
 * 2xx answer, else -1 with "HTTP 500" or "no response (...)" in err
 * (never the URL). */
int rt_webhook_post(const char *url, const char *text, char *err, size_t errsize);

#endif
