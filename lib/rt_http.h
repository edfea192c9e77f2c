/* rt_http: HTTP requests through libcurl, one at a time or many in
 * parallel (curl multi), TLS verification always on, secrets never logged. */
#ifndef RT_HTTP_H
#define RT_HTTP_H

#include <signal.h>
#include <stddef.h>

typedef struct {
	const char *method;          /* "GET", "POST", "PATCH", ... */
	const char *url;
	const char *const *headers;  /* "Name: value", NULL-terminated; may hold secrets */
	const char *body;            /* may be NULL */
	size_t body_len;
	double timeout_s;            /* whole request; 0: 60 s */
	size_t max_response;         /* larger responses fail with truncated=1 (0: 8 MiB) */
	int verbose;                 /* log method, URL, status to stderr — never headers */
} rt_http_req;

typedef struct {
	long status;                 /* HTTP status, 0 when no response */
	char *body;                  /* NUL-terminated, malloc'd (may be NULL) */
	size_t body_len;
	int truncated;               /* response exceeded max_response */
	int timed_out;
	char error[256];             /* transport error text, "" if none */
	char *location;              /* Location header if any (malloc'd) */
	double retry_after_s;        /* Retry-After in seconds, -1 when absent */
	long ratelimit_remaining;    /* X-RateLimit-Remaining, -1 when absent */
} rt_http_resp;

/* Global init/cleanup (call once per process). */
void rt_http_init(void);
void rt_http_cleanup(void);

/* Perform n requests in parallel (curl multi); resp[i] answers req[i].
 * Returns 0 when every request got some HTTP response, -1 otherwise (see
 * each resp's error). */
int rt_http_perform(const rt_http_req *req, rt_http_resp *resp, size_t n);
void rt_http_resp_free(rt_http_resp *r);

/* From now on, rt_http_perform stops within a second once *flag is
 * nonzero (a signal handler sets it): what has arrived is finished, the
 * rest fail with error "interrupted". NULL: never stop early. */
void rt_http_stop_on(volatile sig_atomic_t *flag);

/* An http or https URL's parts, as libcurl's URL parser (RFC 3986) reads
 * them; every string malloc'd, freed with rt_url_free. */
typedef struct {
	char *scheme;                /* "http" or "https" */
	char *host;                  /* lower case; an IPv6 address keeps its [] */
	char *port;                  /* NULL when the URL names none */
	char *path;                  /* "" or "/...", trailing '/' dropped */
	int userinfo;                /* the URL holds user[:password]@ */
	int query;                   /* the URL holds ?query or #fragment */
} rt_url;

/* 0 when s is an absolute http or https URL, else -1 (u is left empty). */
int rt_url_parse(const char *s, rt_url *u);
void rt_url_free(rt_url *u);

/* Is host (as rt_url has it) loopback: localhost, 127.0.0.0/8 or ::1? */
int rt_host_is_loopback(const char *host);

#endif
