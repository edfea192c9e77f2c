/* lib/runner/hookorder.c: ordered runs through a driver the runner loads
 * as its one test file (rspec, mocha; hookorder.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_fs.h"
#include "runner/hookorder.h"
#include "runner/runner.h"
#include "rt_util.h"

typedef struct {
	const rt_hookorder_driver *d;
	char *tmp, *driver, *orderfile, *cwd;
} hook;

void *
rt_hookorder_open(const rt_hookorder_driver *d, const char *cwd, const char *victim,
    char *why, size_t size)
{
	const char *tmpdir = getenv("TMPDIR");
	hook *h;

	if (!rt_hookorder_member(&(hook){ .d = d, .cwd = (char *)cwd }, victim, why, size))
		return NULL;
	h = rt_xcalloc(1, sizeof *h);
	h->d = d;
	h->cwd = cwd ? rt_xstrdup(cwd) : NULL;
	h->tmp = rt_xasprintf("%s/rt-%sorder.XXXXXX", tmpdir && *tmpdir == '/' ? tmpdir :
	    "/tmp", d->runner);
	if (!mkdtemp(h->tmp)) {
		snprintf(why, size, "%s: %s", h->tmp, strerror(errno));
		free(h->tmp);
		h->tmp = NULL;
		rt_hookorder_close(h);
		return NULL;
	}
	h->driver = rt_xasprintf("%s/%s", h->tmp, d->file);
	h->orderfile = rt_xasprintf("%s/order.json", h->tmp);
	if (rt_write_file_atomic(h->driver, d->text, strlen(d->text)) < 0) {
		snprintf(why, size, "%s: %s", h->driver, strerror(errno));
		rt_hookorder_close(h);
		return NULL;
	}
	return h;
}

/* "FILE::name", FILE a file under the command's directory */
int
rt_hookorder_member(const void *vh, const char *id, char *why, size_t size)
{
	const hook *h = vh;
	char *f = rt_rn_id_file(id);
	int ok = strstr(id, "::") && *f && rt_rn_is_file(h->cwd, f);

	if (!ok)
		snprintf(why, size, "%s selects a test as FILE::name, FILE a file under %s: "
		    "%s is not one", h->d->runner, h->cwd ? h->cwd : "the command's directory",
		    id);
	free(f);
	return ok;
}

int
rt_hookorder_write(const void *vh, char *const *order, char *why, size_t size)
{
	const hook *h = vh;
	json_t *a = json_array();
	char *s;
	size_t i;
	int rc;

	for (i = 0; order[i]; i++)
		json_array_append_new(a, json_string(order[i]));
	s = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	rc = rt_write_file_atomic(h->orderfile, s, strlen(s));
	if (rc < 0)
		snprintf(why, size, "%s: %s", h->orderfile, strerror(errno));
	free(s);
	return rc < 0 ? -1 : 0;
}

/* the driver's cases are the tests' own: nothing to rename */
void
rt_hookorder_map(const void *h, rt_case_set *set)
{
	(void)h;
	(void)set;
}

/* The driver's last RT_HOOKORDER_MARK line: the IDs in the order the
 * runner started them; none, an empty array. */
json_t *
rt_hookorder_ran(const void *h, const char *out)
{
	const char *p, *last = NULL, *e;
	size_t n = strlen(RT_HOOKORDER_MARK);
	json_t *ran = NULL;

	(void)h;
	for (p = out; p && (p = strstr(p, RT_HOOKORDER_MARK)); p += n)
		if (p == out || p[-1] == '\n')
			last = p + n;
	if (last) {
		e = strchr(last, '\n');
		ran = json_loadb(last, e ? (size_t)(e - last) : strlen(last), 0, NULL);
	}
	if (!json_is_array(ran)) {
		json_decref(ran);
		ran = json_array();
	}
	return ran;
}

int
rt_hookorder_same(json_t *ran, char *const *order)
{
	size_t i;

	for (i = 0; order[i]; i++)
		if (i >= json_array_size(ran) || !json_is_string(json_array_get(ran, i)) ||
		    strcmp(json_string_value(json_array_get(ran, i)), order[i]))
			return 0;
	return i > 0 && i == json_array_size(ran);
}

const char *
rt_hookorder_selector(const void *h)
{
	return ((const hook *)h)->driver;
}

const char *
rt_hookorder_cwd(const void *h)
{
	return ((const hook *)h)->cwd;
}

const char *
rt_hookorder_where(const void *h)
{
	return ((const hook *)h)->cwd ? ((const hook *)h)->cwd : ".";
}

void
rt_hookorder_close(void *vh)
{
	hook *h = vh;

	if (!h)
		return;
	if (h->tmp)
		rt_remove_tree(h->tmp);
	free(h->tmp);
	free(h->driver);
	free(h->orderfile);
	free(h->cwd);
	free(h);
}
