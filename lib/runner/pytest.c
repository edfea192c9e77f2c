/* lib/runner/pytest.c: pytest — its commands, exits, selections, node IDs,
 * JUnit report (--junitxml through PYTEST_ADDOPTS) and reruns. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_util.h"
#include "runner/runner.h"

static const char *const py_not_run[] = { "can't open file", NULL };

static int
not_run(int code, const char *out, const char *err, char *why, size_t size)
{
	static const char *const usage[] = {
		"file or directory not found", "ERROR: usage", "error: unrecognized arguments",
		"ERROR: not found", "ERROR:", "error:", NULL
	};
	static const char *const collect[] = {
		"error during collection", "errors during collection", "ERROR collecting",
		"Interrupted", NULL
	};
	static const char *const none[] = { "no tests ran", "collected 0 items", NULL };
	static const char *const internal[] = { "INTERNALERROR", NULL };
	char line[200];

	switch (code) {
	case 2:
		return rt_rn_say(why, size, "pytest exit 2 (interrupted: the tests did not run)",
		    rt_rn_find_line(out, err, collect, line, sizeof line));
	case 3:
		return rt_rn_say(why, size, "pytest exit 3 (internal error)",
		    rt_rn_find_line(out, err, internal, line, sizeof line));
	case 4:
		return rt_rn_say(why, size, "pytest exit 4 (usage error)",
		    rt_rn_find_line(out, err, usage, line, sizeof line));
	case 5:
		return rt_rn_say(why, size, "pytest exit 5 (no tests collected)",
		    rt_rn_find_line(out, err, none, line, sizeof line));
	}
	if (code != 0 && rt_rn_find_line(out, err, py_not_run, line, sizeof line))
		return rt_rn_say(why, size, "python could not start pytest", line);
	return 0;
}

void
rt_rn_sel_pytest(char **w, size_t n, rt_runner_sel *out, size_t *k, size_t max, size_t seg)
{
	static const char *const val[] = {
		"-k", "-m", "-p", "-c", "-o", "-n", "-W", "-r", "--tb", "--deselect",
		"--ignore", "--ignore-glob", "--rootdir", "--maxfail", "--durations",
		"--junitxml", "--junit-xml", "--basetemp", "--log-level", "--count",
		"--random-order-seed", "--random-order-bucket", "--reruns",
		"--confcutdir", "--import-mode", "--cov", "--cov-report", "--timeout",
		NULL
	};
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(w[i], "-k") && i + 1 < n)
			rt_rn_sel_add(out, k, max, RT_RUNNER_PYTEST, RT_SEL_KEXPR, w[++i], seg);
		else if (!strncmp(w[i], "-k", 2) && w[i][2])
			rt_rn_sel_add(out, k, max, RT_RUNNER_PYTEST, RT_SEL_KEXPR, w[i] + 2, seg);
		else if (w[i][0] == '-') {
			if (rt_rn_opt_takes_value(w[i], val))
				i++;
		} else
			rt_rn_sel_add(out, k, max, RT_RUNNER_PYTEST, strstr(w[i], "::") ?
			    RT_SEL_NODE : RT_SEL_PATH, w[i], seg);
	}
}

static void
selections(char **w, size_t n, rt_runner_sel *out, size_t *k, size_t max, size_t seg)
{
	rt_rn_sel_pytest(w, n, out, k, max, seg);
}

/* A testcase of pytest's JUnit XML: the suite pytest names, or a .py file
 * whose classname is dotted (not a path). */
static int
junit_claims(const char *suite, const char *cls, const char *file)
{
	return (suite && !strcmp(suite, "pytest") && *cls) ||
	    (file && rt_rn_ends_with(file, ".py") && *cls && !strchr(cls, '/'));
}

/* "tests.test_x.TestC" (+ file "tests/test_x.py") -> the node ID
 * "tests/test_x.py::TestC::NAME": the module's path from the file
 * attribute (xunit1), else the longest dotted prefix that is a .py file
 * under dir, else the words before the first capitalised one (xunit2). */
static char *
junit_id(const char *classname, const char *name, const char *file, const char *dir)
{
	rt_buf b = { 0 };
	char *cls = rt_xstrdup(classname), *mod = NULL, *p, *id;
	size_t n = strlen(cls), k;
	const char *rest = NULL;

	if (file && *file && rt_rn_ends_with(file, ".py")) {
		mod = rt_xasprintf("%.*s", (int)(strlen(file) - 3), file);
		for (p = mod; *p; p++)
			if (*p == '/')
				*p = '.';
		k = strlen(mod);
		if (!strncmp(cls, mod, k) && (cls[k] == '.' || !cls[k]))
			rest = cls[k] ? cls + k + 1 : "";
		else
			rest = "";  /* a classname pytest did not derive: trust the file */
		rt_buf_adds(&b, file);
	} else {
		size_t cut = 0;
		for (k = n; k > 0; k--) {
			if (k < n && cls[k] != '.')
				continue;
			mod = rt_xasprintf("%.*s.py", (int)k, cls);
			for (p = mod; *p && p < mod + k; p++)
				if (*p == '.')
					*p = '/';
			if (rt_rn_is_file(dir, mod)) {
				cut = k;
				break;
			}
			free(mod);
			mod = NULL;
		}
		if (!mod) {
			for (k = 0, cut = n; k < n; k++)
				if ((k == 0 || cls[k - 1] == '.') && isupper((unsigned char)cls[k])) {
					cut = k ? k - 1 : 0;
					break;
				}
			mod = rt_xasprintf("%.*s.py", (int)cut, cls);
			for (p = mod; *p && p < mod + cut; p++)
				if (*p == '.')
					*p = '/';
		}
		rest = cls[cut] == '.' ? cls + cut + 1 : cls + cut;
		rt_buf_adds(&b, mod);
	}
	if (*rest) {
		rt_buf_adds(&b, "::");
		for (p = (char *)rest; *p; p++)
			if (*p == '.')
				rt_buf_adds(&b, "::");
			else
				rt_buf_addc(&b, *p);
	}
	rt_buf_adds(&b, "::");
	rt_buf_adds(&b, name);
	id = rt_xstrdup(rt_buf_str(&b));
	rt_buf_free(&b);
	free(mod);
	free(cls);
	return id;
}

/* pytest selects a node ID whose file is a .py file in the tree. */
static int
selectable(const char *id, const char *dir, char **missing)
{
	char *f = rt_rn_id_file(id);
	int ok = rt_rn_ends_with(f, ".py") && rt_rn_is_file(dir, f);

	*missing = ok ? NULL : f;
	if (ok)
		free(f);
	return ok;
}

/* The name as given, then from the dialect's raw names, then the name
 * read as JUnit's "classname::name" (an older rt-junit's "case"). */
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
		try[n++] = rt_runner_junit_id("pytest", classname, jname, NULL, dir);
	if (c && c > name && !memchr(name, '/', (size_t)(c - name))) {
		char *cls = rt_xasprintf("%.*s", (int)(c - name), name);
		try[n++] = rt_runner_junit_id("pytest", cls, c + 2, NULL, dir);
		free(cls);
	}
	id = rt_rn_pick_id(&rt_runner_pytest, try, n, name, selectable, "", dir, why, size);
	for (i = 0; i < n; i++)
		free(try[i]);
	return id;
}

static const char *const words[] = { "pytest", "py.test", NULL };
static const char *const own[] = { "--junitxml", "--junit-xml", NULL };
static const char *const reruns[] = { "--reruns", NULL };

/* pytest's plugins print their seeds and take them in PYTEST_ADDOPTS */
static const char *const ro_printed[] = { "--random-order-seed=", NULL };
static const char *const ro_opts[] = { "--random-order-seed", NULL };
static const char *const rl_printed[] = { "Using --randomly-seed=", NULL };
static const char *const rl_opts[] = { "--randomly-seed", NULL };
static const char *const hy_printed[] = { "@seed(", "--hypothesis-seed=", NULL };
static const char *const hy_opts[] = { "--hypothesis-seed", NULL };
static const rt_seed_opt seeds[] = {
	{ "pytest-random-order", ro_printed, "PYTEST_ADDOPTS", "--random-order-seed=", ro_opts,
	  "random_order", 0 },
	{ "pytest-randomly", rl_printed, "PYTEST_ADDOPTS", "-p randomly --randomly-seed=",
	  rl_opts, "randomly", 0 },
	{ "hypothesis", hy_printed, "PYTEST_ADDOPTS", "--hypothesis-seed=", hy_opts, NULL, 0 },
	{ NULL, NULL, NULL, NULL, NULL, NULL, 0 }
};

/* Words its report prints around every failure (rt_runner.h). */
static const char *const pytest_boilerplate[] = {
	"E", "F", "FAILED", "FAIL", "PASSED", "ERROR", "ERRORS", "FAILURES", "failed",
	"passed", "error", "errors", "test", "tests", "session", "starts", "short",
	"summary", "info", "platform", "rootdir", "collected", "items", "in",
	"Traceback", "most", "recent", "call", "last", "File", "line", "pytest", NULL
};

const rt_runner rt_runner_pytest = {
	.kind = RT_RUNNER_PYTEST,
	.name = "pytest",
	.words = words,
	.modules = words,
	.not_run = not_run,
	.selections = selections,
	.picks = RT_PICK_COLLECT,
	.quar_skip = "pytest.xfail",
	.junit_claims = junit_claims,
	.junit_id = junit_id,
	.record_id = record_id,
	.report_var = "PYTEST_ADDOPTS",
	.report_add = "--junitxml=%s",
	.own_report = own,
	.retry_opts = reruns,
	.retry_var = "PYTEST_ADDOPTS",
	.retry_msg = "pytest-rerunfailures reruns failed tests (%s): a rerun",
	.seeds = seeds,
	.list_mark = "::",
	.list_id = "pytest node ID (FILE::NAME)",
	.boilerplate = pytest_boilerplate,
};
