/* rt_http: libcurl easy handles driven by one multi handle. */
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <curl/curl.h>

#include "rt_http.h"
#include "rt_util.h"

static volatile sig_atomic_t *stop_flag;

void
rt_http_stop_on(volatile sig_atomic_t *flag)
{
	stop_flag = flag;
}

typedef struct {
	rt_http_resp *resp;
	int done;
	size_t max;
	rt_buf body;
} sink;

static size_t
on_body(char *p, size_t size, size_t nmemb, void *ud)
{
	sink *s = ud;
	size_t n = size * nmemb;

	if (s->body.len + n > s->max) {
		s->resp->truncated = 1;
		return 0; /* abort the transfer */
	}
	rt_buf_add(&s->body, p, n);
	return n;
}

static size_t
on_header(char *p, size_t size, size_t nmemb, void *ud)
{
	sink *s = ud;
	size_t n = size * nmemb, k;

	if (n > 12 && strncasecmp(p, "retry-after:", 12) == 0) {
		char tmp[32];
		size_t m = n - 12 < sizeof tmp - 1 ? n - 12 : sizeof tmp - 1;
		double v;
		char *end;
		memcpy(tmp, p + 12, m);
		tmp[m] = '\0';
		v = strtod(tmp, &end);
		if (end != tmp && v >= 0 && v < 86400)
			s->resp->retry_after_s = v;  /* the HTTP-date form is ignored */
	}
	if (n > 22 && strncasecmp(p, "x-ratelimit-remaining:", 22) == 0) {
		char tmp[32];
		size_t m = n - 22 < sizeof tmp - 1 ? n - 22 : sizeof tmp - 1;
		long v;
		char *end;
		memcpy(tmp, p + 22, m);
		tmp[m] = '\0';
		v = strtol(tmp, &end, 10);
		if (end != tmp && v >= 0)
			s->resp->ratelimit_remaining = v;
	}
	if (n > 9 && strncasecmp(p, "location:", 9) == 0) {
		const char *v = p + 9;
		while (*v == ' ' || *v == '\t')
			v++;
		k = n - (size_t)(v - p);
		while (k > 0 && (v[k - 1] == '\r' || v[k - 1] == '\n'))
			k--;
		free(s->resp->location);
		s->resp->location = rt_xmalloc(k + 1);
		memcpy(s->resp->location, v, k);
		s->resp->location[k] = '\0';
	}
	return n;
}

/* -v logging: the URL with any user:password@ part masked. */
static void
log_url(const char *dir, const char *what, const char *url, const char *tail)
{
	const char *host = strstr(url, "://"), *at, *slash;

	if (host) {
		host += 3;
		slash = host + strcspn(host, "/?#");
		at = memchr(host, '@', (size_t)(slash - host));
		if (at) {
			fprintf(stderr, "%s: %s %s %.*s***@%s%s\n", rt_progname, dir, what,
			    (int)(host - url), url, at + 1, tail);
			return;
		}
	}
	fprintf(stderr, "%s: %s %s %s%s\n", rt_progname, dir, what, url, tail);
}

void
rt_http_init(void)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
		rt_die("libcurl: global init failed");
}

void
rt_http_cleanup(void)
{
	curl_global_cleanup();
}

int
rt_http_perform(const rt_http_req *req, rt_http_resp *resp, size_t n)
{
	CURLM *m = curl_multi_init();
	CURL **h = rt_xcalloc(n, sizeof *h);
	struct curl_slist **hl = rt_xcalloc(n, sizeof *hl);
	sink *s = rt_xcalloc(n, sizeof *s);
	size_t i, j;
	int running = 0, rc = 0, left;
	CURLMsg *msg;

	if (!m)
		rt_die("libcurl: cannot create a multi handle");
	for (i = 0; i < n; i++) {
		memset(&resp[i], 0, sizeof resp[i]);
		s[i].resp = &resp[i];
		resp[i].retry_after_s = -1;
		resp[i].ratelimit_remaining = -1;
		s[i].max = req[i].max_response ? req[i].max_response : 8u << 20;
		if (!(h[i] = curl_easy_init()))
			rt_die("libcurl: cannot create a handle");
		curl_easy_setopt(h[i], CURLOPT_URL, req[i].url);
		curl_easy_setopt(h[i], CURLOPT_CUSTOMREQUEST, req[i].method ? req[i].method : "GET");
		if (req[i].body) {
			curl_easy_setopt(h[i], CURLOPT_POSTFIELDS, req[i].body);
			curl_easy_setopt(h[i], CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req[i].body_len);
		}
		for (j = 0; req[i].headers && req[i].headers[j]; j++)
			hl[i] = curl_slist_append(hl[i], req[i].headers[j]);
		curl_easy_setopt(h[i], CURLOPT_HTTPHEADER, hl[i]);
		curl_easy_setopt(h[i], CURLOPT_WRITEFUNCTION, on_body);
		curl_easy_setopt(h[i], CURLOPT_WRITEDATA, &s[i]);
		curl_easy_setopt(h[i], CURLOPT_HEADERFUNCTION, on_header);
		curl_easy_setopt(h[i], CURLOPT_HEADERDATA, &s[i]);
		curl_easy_setopt(h[i], CURLOPT_TIMEOUT_MS,
		    (long)((req[i].timeout_s > 0 ? req[i].timeout_s : 60) * 1000));
		curl_easy_setopt(h[i], CURLOPT_CONNECTTIMEOUT_MS, 15000L);
		curl_easy_setopt(h[i], CURLOPT_SSL_VERIFYPEER, 1L);
		curl_easy_setopt(h[i], CURLOPT_SSL_VERIFYHOST, 2L);
		curl_easy_setopt(h[i], CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(h[i], CURLOPT_USERAGENT, "retrial/" RT_VERSION);
		curl_easy_setopt(h[i], CURLOPT_PRIVATE, (void *)&s[i]);
		curl_easy_setopt(h[i], CURLOPT_PROTOCOLS_STR, "http,https");
		/* a redirect is an answer, never followed: it would carry the
		 * Authorization header to wherever a server points */
		curl_easy_setopt(h[i], CURLOPT_FOLLOWLOCATION, 0L);
		curl_multi_add_handle(m, h[i]);
		if (req[i].verbose)
			log_url(">", req[i].method ? req[i].method : "GET", req[i].url, "");
	}
	do {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			break;
		if (stop_flag && *stop_flag)
			break;  /* after one last pass that takes in what has arrived */
		if (running)
			curl_multi_poll(m, NULL, 0, 1000, NULL);
	} while (running);
	while ((msg = curl_multi_info_read(m, &left))) {
		sink *sk;
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&sk);
		sk->done = 1;
		if (msg->data.result != CURLE_OK) {
			if (msg->data.result == CURLE_OPERATION_TIMEDOUT)
				sk->resp->timed_out = 1;
			if (!(msg->data.result == CURLE_WRITE_ERROR && sk->resp->truncated))
				snprintf(sk->resp->error, sizeof sk->resp->error, "%s",
				    curl_easy_strerror(msg->data.result));
		}
		curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &sk->resp->status);
	}
	for (i = 0; i < n; i++) {
		if (!s[i].done) {
			resp[i].status = 0;
			snprintf(resp[i].error, sizeof resp[i].error, "interrupted");
		}
		rt_buf_add(&s[i].body, NULL, 0);
		resp[i].body = s[i].body.data;
		resp[i].body_len = s[i].body.len;
		if (resp[i].status == 0 && !resp[i].error[0])
			snprintf(resp[i].error, sizeof resp[i].error, "no response");
		if (resp[i].status == 0 || resp[i].error[0] || resp[i].truncated)
			rc = -1;
		if (req[i].verbose)
		{
			char st[24];
			snprintf(st, sizeof st, "%ld", resp[i].status);
			log_url("<", st, req[i].url, resp[i].error[0] ? " (error)" : "");
		}
		curl_multi_remove_handle(m, h[i]);
		curl_easy_cleanup(h[i]);
		curl_slist_free_all(hl[i]);
	}
	curl_multi_cleanup(m);
	free(h);
	free(hl);
	free(s);
	return rc;
}

void
rt_http_resp_free(rt_http_resp *r)
{
	free(r->body);
	free(r->location);
	r->body = r->location = NULL;
}

void
rt_url_free(rt_url *u)
{
	free(u->scheme);
	free(u->host);
	free(u->port);
	free(u->path);
	memset(u, 0, sizeof *u);
}

/* One part of h as a malloc'd string (NULL when absent). */
static char *
url_part(CURLU *h, CURLUPart what)
{
	char *v = NULL, *r;

	if (curl_url_get(h, what, &v, 0) != CURLUE_OK || !v)
		return NULL;
	r = rt_xstrdup(v);
	curl_free(v);
	return r;
}

int
rt_url_parse(const char *s, rt_url *u)
{
	CURLU *h = curl_url();
	char *x;
	size_t n;

	memset(u, 0, sizeof *u);
	if (!h)
		rt_die("libcurl: cannot create a URL handle");
	if (curl_url_set(h, CURLUPART_URL, s, 0) != CURLUE_OK ||
	    !(u->scheme = url_part(h, CURLUPART_SCHEME)) ||
	    (strcmp(u->scheme, "http") != 0 && strcmp(u->scheme, "https") != 0) ||
	    !(u->host = url_part(h, CURLUPART_HOST)) || !*u->host) {
		curl_url_cleanup(h);
		rt_url_free(u);
		return -1;
	}
	for (x = u->host; *x; x++)  /* host names are case-insensitive: one spelling */
		*x = (char)tolower((unsigned char)*x);
	u->port = url_part(h, CURLUPART_PORT);
	u->path = url_part(h, CURLUPART_PATH);
	if (!u->path)
		u->path = rt_xstrdup("");
	for (n = strlen(u->path); n > 0 && u->path[n - 1] == '/'; )
		u->path[--n] = '\0';
	if ((x = url_part(h, CURLUPART_USER)) || (x = url_part(h, CURLUPART_PASSWORD)) ||
	    (x = url_part(h, CURLUPART_OPTIONS))) {
		u->userinfo = 1;
		free(x);
	}
	if ((x = url_part(h, CURLUPART_QUERY)) || (x = url_part(h, CURLUPART_FRAGMENT))) {
		u->query = 1;
		free(x);
	}
	curl_url_cleanup(h);
	return 0;
}

int
rt_host_is_loopback(const char *host)
{
	struct in_addr a4;
	struct in6_addr a6;
	char buf[64];
	size_t n = strlen(host);

	if (strcasecmp(host, "localhost") == 0)
		return 1;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (n > 2 && n < sizeof buf && host[0] == '[' && host[n - 1] == ']') {
		memcpy(buf, host + 1, n - 2);
		buf[n - 2] = '\0';
		return inet_pton(AF_INET6, buf, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
	}
	return 0;
}
