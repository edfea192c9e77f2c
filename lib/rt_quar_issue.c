/* rt_quar_issue: a quarantine entry's issue through rt_github. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rt_github.h"
#include "rt_hash.h"
#include "rt_jsonl.h"
#include "rt_md.h"
#include "rt_quar_issue.h"
#include "rt_quarantine.h"
#include "rt_util.h"

/* The marker an entry's issue (kind "quarantine") or release comment
 * carries on a line of its own: "<!-- retrial-KIND: sha256:HEX ID -->",
 * HEX the SHA-256 of the ID's bytes. "-->" in an ID would end the HTML
 * comment, so it is written "--&gt;"; the hash keeps "a-->" and
 * "a--&gt;" apart. rt_gh_find_marker matches a whole line only, and an ID
 * has no line feed, so a name that embeds another test's marker (in the
 * title, or in the body's code span) never matches it. */
static char *
marker(const char *kind, const char *id, int legacy)
{
	rt_buf b = {0};
	const char *p;
	char hex[65];

	rt_buf_printf(&b, "<!-- retrial-%s: ", kind);
	if (!legacy) {
		rt_sha256_hex(id, strlen(id), hex);
		rt_buf_printf(&b, "sha256:%s ", hex);
	}
	for (p = id; *p; p++) {
		if (strncmp(p, "-->", 3) == 0) {
			rt_buf_adds(&b, "--&gt;");
			p += 2;
		} else {
			rt_buf_addc(&b, *p);
		}
	}
	rt_buf_adds(&b, " -->");
	return b.data;
}

/* Markers before the hash ("<!-- retrial-KIND: ID -->") are still found,
 * but only for an ID the old form wrote unambiguously. */
static int
legacy_ok(const char *id)
{
	return !strstr(id, "-->") && !strstr(id, "--&gt;");
}

/* How to measure the test again: the verdict's own line, else rt-measure
 * on the runner's selection of the ID (a pytest node ID, a go test
 * "PKG::TestX"), else on the command that selects it. */
static char *
reproduce(const char *id, const char *given, const char *rate)
{
	const char *sep = strstr(id, "::");
	long k, n = 0;
	char *q, *r, *file;

	if (given)
		return rt_xstrdup(given);
	if (!rate || rt_quar_rate(rate, &k, &n) < 0 || n < 20)
		n = 20;
	q = rt_sh_quote(id);
	if (sep && sep - id > 3 && strncmp(sep - 3, ".py", 3) == 0) {
		r = rt_xasprintf("rt-measure -n %ld -- python3 -m pytest -q %s", n, q);
	} else if (sep && strncmp(sep + 2, "Test", 4) == 0 && !strchr(sep + 2, ' ')) {
		char *run = rt_xasprintf("^%s$", sep + 2), *rq = rt_sh_quote(run);
		file = rt_xasprintf("%.*s", (int)(sep - id), id);
		free(q);
		q = rt_sh_quote(file);
		r = rt_xasprintf("rt-measure -n %ld -- go test -count=1 -run %s %s", n, rq, q);
		free(file);
		free(run);
		free(rq);
	} else {
		r = rt_xasprintf("rt-measure -n %ld --cmd CMD  # CMD: the command that runs %s", n, q);
	}
	free(q);
	return r;
}

char *
rt_quar_issue_open(rt_gh *G, const char *gh_repo, const rt_quar_entry *e,
    const char *repro_given, char **err)
{
	char *mk = marker("quarantine", e->id, 0), *path, *msg, *body, *title, *repro, *url = NULL;
	char *old = legacy_ok(e->id) ? marker("quarantine", e->id, 1) : NULL;
	const char *mks[3] = { mk, old, NULL };
	json_t *found, *j, *req, *u, *num;
	rt_buf bb = {0};
	long st;
	int rc;

	path = rt_xasprintf("/repos/%s/issues?state=open", gh_repo);
	rc = rt_gh_find_markers(G, path, mks, &found, err);
	free(path);
	free(old);
	if (rc < 0) {
		free(mk);
		return NULL;
	}
	if (rc > 0) {
		u = json_object_get(found, "html_url");
		num = json_object_get(found, "number");
		if (json_is_string(u)) {
			url = rt_xstrdup(json_string_value(u));
			printf("issue: #%lld %s (open already, found by its marker)\n",
			    json_is_integer(num) ? (long long)json_integer_value(num) : 0LL, url);
		}
		json_decref(found);
		if (url) {
			free(mk);
			return url;
		}
	}
	repro = reproduce(e->id, repro_given, e->rate);
	title = rt_xasprintf("Quarantined flaky test: %s", e->id);
	if (strlen(title) > 250) {
		/* GitHub takes 256 characters; cut at a UTF-8 character */
		size_t cut = 250;
		while (cut > 0 && ((unsigned char)title[cut] & 0xc0) == 0x80)
			cut--;
		title = rt_xrealloc(title, cut + 4);
		memcpy(title + cut, "\xe2\x80\xa6", 4);
	}
	/* the ID and the reproduce line as code spans fenced by their content
	 * (rt_md_code), so a backtick in a name cannot end them */
	rt_md_code(&bb, e->id);
	rt_buf_adds(&bb, " is quarantined: it keeps running in a lane that does not gate, "
	    "and its failure rate keeps being measured.\n\n- **Evidence:** ");
	rt_buf_adds(&bb, e->reason ? e->reason : "not recorded");
	rt_buf_printf(&bb, "\n- **Owner:** %s\n- **Since:** %s; **expires:** %s\n"
	    "- **Reproduce:** ",
	    e->owner ? e->owner : "none (give --owner, or a CODEOWNERS rule for its file)",
	    e->since ? e->since : "unknown", e->expires ? e->expires : "never");
	rt_md_code(&bb, repro);
	rt_buf_printf(&bb, "\n\n`rt-quarantine release --history DB` releases it once its clean "
	    "runs since it was listed reach the number rt-plan plans from its rate, and closes "
	    "this issue.\n\n%s\n", mk);
	body = bb.data;
	/* an ID is any bytes but TAB and newline: repaired as JSON wants them */
	req = json_object();
	json_object_set_new(req, "title", rt_json_bytes(title, strlen(title)));
	json_object_set_new(req, "body", rt_json_bytes(body, strlen(body)));
	path = rt_xasprintf("/repos/%s/issues", gh_repo);
	st = rt_gh_call(G, "POST", path, req, &j, &msg);
	if (st == 201 && json_is_string(u = json_object_get(j, "html_url"))) {
		num = json_object_get(j, "number");
		url = rt_xstrdup(json_string_value(u));
		printf("issue: #%lld %s (opened)\n",
		    json_is_integer(num) ? (long long)json_integer_value(num) : 0LL, url);
	} else {
		*err = rt_gh_failed("POST", path, st, st == 201 ? "no html_url in the answer" : msg);
	}
	json_decref(j);
	json_decref(req);
	free(msg);
	free(path);
	free(body);
	free(title);
	free(repro);
	free(mk);
	return url;
}

int
rt_quar_issue_close(rt_gh *G, const char *gh_repo, const rt_quar_entry *e, const char *why,
    char **err)
{
	long num = rt_gh_issue_number(e->issue, gh_repo), st;
	char *mk, *body, *path, *msg;
	json_t *req, *j;
	int rc = 0;

	if (num < 0) {
		rt_warn("%s: issue %s is not an issue of %s; left as it is", e->id, e->issue,
		    gh_repo);
		return 0;
	}
	mk = marker("release", e->id, 0);
	body = rt_xasprintf("Released from quarantine: %s\n\n%s\n", why, mk);
	if (rt_gh_upsert_comment(G, gh_repo, num, mk, body, NULL, err) < 0) {
		rc = -1;
		goto out;
	}
	req = json_pack("{s:s, s:s}", "state", "closed", "state_reason", "completed");
	path = rt_xasprintf("/repos/%s/issues/%ld", gh_repo, num);
	st = rt_gh_call(G, "PATCH", path, req, &j, &msg);
	if (st != 200) {
		*err = rt_gh_failed("PATCH", path, st, msg);
		rc = -1;
	} else {
		printf("issue: #%ld %s (commented, closed)\n", num, e->issue);
	}
	json_decref(j);
	json_decref(req);
	free(msg);
	free(path);
out:
	free(mk);
	free(body);
	return rc;
}

