/* lib/runner/unittest.c: python -m unittest — its exits, its selections
 * (dotted names, files, discover) and its dotted test IDs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_util.h"
#include "runner/runner.h"

static int
not_run(int code, const char *out, const char *err, char *why, size_t size)
{
	static const char *const none[] = { "NO TESTS RAN", "Ran 0 tests", NULL };
	char line[200];

	if (rt_rn_python_not_run(code, out, err, why, size))
		return 1;
	if (code != 0 && (code == 5 || rt_rn_find_line(out, err, none, line, sizeof line)))
		return rt_rn_say(why, size, "unittest ran no tests", code == 5 ? "exit 5" : line);
	return 0;
}

static void
selections(char **w, size_t n, rt_runner_sel *out, size_t *k, size_t max, size_t seg)
{
	static const char *const val[] = { "-k", "-p", "-s", "-t", NULL };
	size_t i;

	for (i = 0; i < n; i++) {
		if (w[i][0] == '-') {
			if (rt_rn_opt_takes_value(w[i], val))
				i++;
		} else if (!strcmp(w[i], "discover")) {
			rt_rn_sel_add(out, k, max, RT_RUNNER_UNITTEST, RT_SEL_DISCOVER, w[i], seg);
			return;
		} else {
			rt_rn_sel_add(out, k, max, RT_RUNNER_UNITTEST, strchr(w[i], '/') ||
			    rt_rn_ends_with(w[i], ".py") ? RT_SEL_PATH : RT_SEL_DOTTED, w[i], seg);
		}
	}
}

/* unittest selects "pkg.mod.Class.test" when a dotted prefix of it is a
 * module file in the tree. */
static int
selectable(const char *id, const char *dir, char **missing)
{
	char *f, *p;
	size_t n, i;
	int ok = 0;

	*missing = NULL;
	if (strstr(id, "::") || strchr(id, '/') || strchr(id, ' ')) {
		*missing = rt_xstrdup(id);
		return 0;
	}
	for (n = strlen(id); n > 0 && !ok; n--) {
		if (id[n] && id[n] != '.')
			continue;
		f = rt_xasprintf("%.*s.py", (int)n, id);
		for (p = f; *p && p < f + n; p++)
			if (*p == '.')
				*p = '/';
		ok = rt_rn_is_file(dir, f);
		free(f);
	}
	if (!ok) {
		for (i = 0; id[i] && id[i] != '.'; i++)
			;
		*missing = rt_xasprintf("%.*s.py", (int)i, id);
	}
	return ok;
}

static char *
record_id(const char *name, const char *classname, const char *jname, const char *dir,
    char *why, size_t size)
{
	char *try[3];
	const char *c = strstr(name, "::");
	size_t n = 0, i;
	char *id;

	try[n++] = rt_xstrdup(name);
	if (classname && *classname && jname && *jname)
		try[n++] = rt_xasprintf("%s.%s", classname, jname);
	if (c && !strstr(c + 2, "::"))
		try[n++] = rt_xasprintf("%.*s.%s", (int)(c - name), name, c + 2);
	id = rt_rn_pick_id(&rt_runner_unittest, try, n, name, selectable, "module ", dir,
	    why, size);
	for (i = 0; i < n; i++)
		free(try[i]);
	return id;
}

static const char *const modules[] = { "unittest", NULL };

/* Words its report prints around every failure (rt_runner.h). */
static const char *const unittest_boilerplate[] = {
	"FAIL", "ERROR", "FAILED", "OK", "Ran", "test", "tests", "in", "failures",
	"errors", "Traceback", "most", "recent", "call", "last", "File", "line",
	"unittest", NULL
};

const rt_runner rt_runner_unittest = {
	.kind = RT_RUNNER_UNITTEST,
	.name = "unittest",
	.modules = modules,
	.not_run = not_run,
	.selections = selections,
	.record_id = record_id,
	.no_report = "unittest writes no per-case report; run the tests through pytest, "
	    "which runs unittest tests too (python3 -m pytest FILE::Class::test), or write "
	    "one to $RETRIAL_JUNIT",
	.boilerplate = unittest_boilerplate,
};
