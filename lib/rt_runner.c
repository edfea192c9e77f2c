/* rt_runner: the runner adapters — finding a runner in a command and
 * reading "the test did not run" from its exit and output. */
#include <sys/stat.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_runner.h"
#include "rt_util.h"

static const char *const names[] = {
	[RT_RUNNER_GENERIC] = "generic", [RT_RUNNER_PYTEST] = "pytest",
	[RT_RUNNER_UNITTEST] = "unittest", [RT_RUNNER_PYTHON] = "python",
	[RT_RUNNER_GO] = "go", [RT_RUNNER_JEST] = "jest", [RT_RUNNER_VITEST] = "vitest",
};

const char *
rt_runner_kind_name(rt_runner_kind k)
{
	return (unsigned)k < sizeof names / sizeof *names ? names[k] : "generic";
}

int
rt_runner_kind_parse(const char *name, rt_runner_kind *k)
{
	size_t i;

	for (i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(name, names[i])) {
			*k = (rt_runner_kind)i;
			return 0;
		}
	return -1;
}

const char *
rt_runner_kind_list(void)
{
	return "pytest, unittest, python, go, jest, vitest, generic";
}

size_t
rt_cmd_split(const char *s, char **w, size_t max)
{
	rt_buf b = { 0 };
	size_t n = 0;
	int in = 0;
	char q;

	while (*s && n < max) {
		if (isspace((unsigned char)*s) || strchr(";&|", *s)) {
			if (in) {
				w[n++] = rt_xstrdup(rt_buf_str(&b));
				b.len = 0;
				in = 0;
			}
			if (strchr(";&|", *s) && n < max) {
				w[n++] = rt_xstrdup(";");
				while (s[1] && strchr(";&|", s[1]))
					s++;
			}
			s++;
			continue;
		}
		in = 1;
		if (*s == '\'' || *s == '"') {
			q = *s++;
			while (*s && *s != q) {
				if (q == '"' && *s == '\\' && s[1])
					s++;
				rt_buf_addc(&b, *s++);
			}
			if (*s)
				s++;
		} else if (*s == '\\' && s[1]) {
			rt_buf_addc(&b, s[1]);
			s += 2;
		} else {
			rt_buf_addc(&b, *s++);
		}
	}
	if (in && n < max)
		w[n++] = rt_xstrdup(rt_buf_str(&b));
	rt_buf_free(&b);
	return n;
}

static const char *
base_name(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

static int
is_assignment(const char *w)
{
	const char *eq = strchr(w, '=');

	return eq && eq != w && (isalpha((unsigned char)*w) || *w == '_') &&
	    (size_t)(eq - w) < strcspn(w, "/");
}

static int
ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

void
rt_cmd_locate(char **w, size_t from, size_t to, rt_cmd_loc *loc)
{
	size_t i = from, j;
	const char *b;

	memset(loc, 0, sizeof *loc);
	loc->kind = RT_RUNNER_GENERIC;
	while (i < to && is_assignment(w[i]))
		i++;
	while (i < to) {
		b = base_name(w[i]);
		if (!strcmp(b, "env") || !strcmp(b, "nice") || !strcmp(b, "exec") ||
		    !strcmp(b, "command") || !strcmp(b, "xvfb-run") ||
		    is_assignment(w[i]) || w[i][0] == '-' ||
		    isdigit((unsigned char)w[i][0]) || !strcmp(b, "run") ||
		    !strcmp(b, "npx") || !strcmp(b, "yarn") || !strcmp(b, "pnpm") ||
		    !strcmp(b, "bunx") || !strcmp(b, "exec"))
			i++;
		else if ((!strcmp(b, "timeout") || !strcmp(b, "uv") ||
		    !strcmp(b, "poetry") || !strcmp(b, "pipenv") || !strcmp(b, "hatch")) &&
		    i + 1 < to)
			i++;
		else
			break;
	}
	if (i >= to)
		return;
	b = base_name(w[i]);
	loc->target = i;
	loc->args = i + 1;
	if (!strcmp(b, "pytest") || !strcmp(b, "py.test")) {
		loc->kind = RT_RUNNER_PYTEST;
		return;
	}
	if (!strcmp(b, "go") && i + 1 < to && !strcmp(w[i + 1], "test")) {
		loc->kind = RT_RUNNER_GO;
		loc->args = i + 2;
		return;
	}
	if (!strcmp(b, "jest") || !strcmp(b, "vitest")) {
		loc->kind = *b == 'j' ? RT_RUNNER_JEST : RT_RUNNER_VITEST;
		return;
	}
	if (!strncmp(b, "python", 6) || !strncmp(b, "pypy", 4)) {
		for (j = i + 1; j < to && w[j][0] == '-' && strcmp(w[j], "-m"); j++)
			if ((!strcmp(w[j], "-X") || !strcmp(w[j], "-W")) && j + 1 < to)
				j++;
		if (j + 1 < to && !strcmp(w[j], "-m")) {
			loc->target = j + 1;
			loc->args = j + 2;
			if (!strcmp(w[j + 1], "pytest") || !strcmp(w[j + 1], "py.test"))
				loc->kind = RT_RUNNER_PYTEST;
			else if (!strcmp(w[j + 1], "unittest"))
				loc->kind = RT_RUNNER_UNITTEST;
			else
				loc->kind = RT_RUNNER_PYTHON;
		} else if (j < to) {
			loc->kind = RT_RUNNER_PYTHON;
			loc->target = j;
			loc->args = j + 1;
		}
		return;
	}
	if (ends_with(b, ".py")) {
		loc->kind = RT_RUNNER_PYTHON;
		return;
	}
	for (j = i; j < to && strcmp(w[j], "--"); j++)
		;
	if (j < to)
		loc->dashdash = j + 1;
}

rt_runner_kind
rt_runner_detect(const char *shell_cmd, char *const *argv)
{
	char *w[256];
	size_t n = 0, i = 0, seg;
	rt_cmd_loc loc = { RT_RUNNER_GENERIC, 0, 0, 0 };

	if (shell_cmd)
		n = rt_cmd_split(shell_cmd, w, sizeof w / sizeof *w);
	else
		for (; argv && argv[n] && n < sizeof w / sizeof *w; n++)
			w[n] = rt_xstrdup(argv[n]);
	while (i < n) {
		for (seg = i; seg < n && strcmp(w[seg], ";"); seg++)
			;
		rt_cmd_locate(w, i, seg, &loc);
		if (loc.kind != RT_RUNNER_GENERIC)
			break;
		i = seg + 1;
	}
	for (i = 0; i < n; i++)
		free(w[i]);
	return loc.kind;
}

/* Does the line p[0..len) hold needle? */
static int
memmem_line(const char *p, size_t len, const char *needle)
{
	size_t m = strlen(needle), i;

	for (i = 0; i + m <= len; i++)
		if (!memcmp(p + i, needle, m))
			return 1;
	return 0;
}

/* The first line of text holding needle (NULL: none), into buf, trimmed. */
static const char *
line_with(const char *text, const char *needle, char *buf, size_t size)
{
	const char *p, *s, *e;
	size_t len;

	if (!text || !(p = strstr(text, needle)))
		return NULL;
	for (s = p; s > text && s[-1] != '\n'; s--)
		;
	for (e = p; *e && *e != '\n'; e++)
		;
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	len = (size_t)(e - s);
	if (len >= size)
		len = size - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return buf;
}

/* The first of needles found in err, then in out. */
static const char *
find_line(const char *out, const char *err, const char *const *needles,
    char *buf, size_t size)
{
	size_t i;

	for (i = 0; needles[i]; i++)
		if (line_with(err, needles[i], buf, size) || line_with(out, needles[i], buf, size))
			return buf;
	return NULL;
}

static int
say(char *why, size_t size, const char *what, const char *line)
{
	if (line && *line)
		snprintf(why, size, "%s: %s", what, line);
	else
		snprintf(why, size, "%s", what);
	return 1;
}

static const char *const py_not_run[] = { "can't open file", NULL };
static const char *const py_import[] = {
	"Failed to import test module", "ImportError while importing test module", NULL
};

static int
pytest_not_run(int code, const char *out, const char *err, char *why, size_t size)
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
		return say(why, size, "pytest exit 2 (interrupted: the tests did not run)",
		    find_line(out, err, collect, line, sizeof line));
	case 3:
		return say(why, size, "pytest exit 3 (internal error)",
		    find_line(out, err, internal, line, sizeof line));
	case 4:
		return say(why, size, "pytest exit 4 (usage error)",
		    find_line(out, err, usage, line, sizeof line));
	case 5:
		return say(why, size, "pytest exit 5 (no tests collected)",
		    find_line(out, err, none, line, sizeof line));
	}
	if (code != 0 && find_line(out, err, py_not_run, line, sizeof line))
		return say(why, size, "python could not start pytest", line);
	return 0;
}

static int
python_not_run(rt_runner_kind k, int code, const char *out, const char *err,
    char *why, size_t size)
{
	static const char *const none[] = { "NO TESTS RAN", "Ran 0 tests", NULL };
	static const char *const nomod[] = { "No module named", NULL };
	char line[200];

	if (code == 0)
		return 0;
	if (find_line(out, err, py_not_run, line, sizeof line))
		return say(why, size, "python could not open the test file", line);
	if (find_line(out, err, py_import, line, sizeof line))
		return say(why, size, "the test module could not be imported", line);
	if (k == RT_RUNNER_UNITTEST && (code == 5 || find_line(out, err, none, line, sizeof line)))
		return say(why, size, "unittest ran no tests", code == 5 ? "exit 5" : line);
	/* python -m MODULE with no such module: "No module named X" at exit 1,
	 * before any of the test's code ran */
	if (code == 1 && err && !strstr(err, "Traceback") &&
	    find_line(NULL, err, nomod, line, sizeof line))
		return say(why, size, "python could not find the module", line);
	return 0;
}

/* Did any test run: a "--- PASS/FAIL/SKIP" or "=== RUN" line, a -json
 * "run" event, or an "ok" package line that does not say it ran none. */
static int
go_ran_tests(const char *out)
{
	const char *p;

	if (!out)
		return 0;
	if (strstr(out, "--- ") || strstr(out, "=== RUN") || strstr(out, "\"Action\":\"run\""))
		return 1;
	for (p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len > 3 && !strncmp(p, "ok ", 3) &&
		    !memmem_line(p, len, "[no test"))
			return 1;
	}
	return 0;
}

static int
go_not_run(int code, const char *out, const char *err, char *why, size_t size)
{
	static const char *const build[] = {
		"[build failed]", "[setup failed]", "build failed", "setup failed", NULL
	};
	static const char *const none[] = {
		"no test files", "no tests to run", "matched no packages", NULL
	};
	static const char *const setup[] = {
		"cannot find main module", "go.mod file not found", "no required module",
		"cannot find package", "is not in std", "directory not found", "no Go files",
		"flag provided but not defined", "failed to initialize build cache",
		"build cache is required", NULL
	};
	char line[200];

	if (find_line(out, err, build, line, sizeof line))
		return say(why, size, "go test: the package did not build", line);
	if (code != 0 && find_line(out, err, setup, line, sizeof line))
		return say(why, size, "go test did not run the tests", line);
	/* "testing: warning: no tests to run" is an exit 0 */
	if (find_line(out, err, none, line, sizeof line) && !go_ran_tests(out))
		return say(why, size, "go test ran no tests", line);
	return 0;
}

/* jest's summary line "Tests:       1 failed, 6 passed, 7 total": did a
 * test fail, and did any pass or fail at all? */
static void
jest_summary(const char *out, const char *err, int *failed, int *ran)
{
	static const char *const tests[] = { "Tests:", NULL };
	char line[200];

	*failed = *ran = 0;
	if (!find_line(out, err, tests, line, sizeof line))
		return;
	*failed = strstr(line, " failed") != NULL;
	*ran = *failed || strstr(line, " passed") != NULL;
}

/* "FAIL __tests__/x.test.js: Jest encountered an unexpected token": the
 * file and the line after "Test suite failed to run". */
static const char *
suite_failure(const char *out, const char *err, char *buf, size_t size)
{
	const char *text = err && strstr(err, "Test suite failed to run") ? err : out;
	const char *p = strstr(text, "Test suite failed to run"), *s, *e;
	char file[160];

	file[0] = '\0';
	if (line_with(text, "FAIL ", file, sizeof file) && strncmp(file, "FAIL ", 5))
		file[0] = '\0';
	for (s = p; *s && *s != '\n'; s++)
		;
	while (*s && isspace((unsigned char)*s))
		s++;
	for (e = s; *e && *e != '\n'; e++)
		;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	snprintf(buf, size, "%s%s%.*s", file, *file && e > s ? ": " : "", (int)(e - s), s);
	return buf;
}

static int
jest_not_run(rt_runner_kind k, int code, const char *out, const char *err,
    char *why, size_t size)
{
	/* jest: "No tests found, exiting with code 1" (also with code 0 under
	 * --passWithNoTests); vitest: "No test files found, exiting with code 1" */
	static const char *const none[] = {
		"No tests found", "No test files found", "No test suite found", NULL
	};
	static const char *const failed[] = { "Test suite failed to run", NULL };
	/* sh: "sh: 1: jest: not found" (dash), "jest: command not found" (bash),
	 * exit 127; npx --no-install: "npx canceled due to missing packages" */
	static const char *const missing[] = {
		"not found", "No such file or directory", "Permission denied", NULL
	};
	static const char *const npx[] = {
		"npx canceled due to missing packages", "could not determine executable",
		"Cannot find module", NULL
	};
	char line[200];
	const char *name = k == RT_RUNNER_JEST ? "jest" : "vitest";
	char what[64];
	int tfailed, tran;

	if (find_line(out, err, none, line, sizeof line)) {
		snprintf(what, sizeof what, "%s found no tests", name);
		return say(why, size, what, line);
	}
	jest_summary(out, err, &tfailed, &tran);
	/* -t matching nothing: exit 0, "Tests: 7 skipped, 7 total" */
	if (code == 0) {
		if (line_with(err, "Tests:", line, sizeof line) && !tran) {
			snprintf(what, sizeof what, "%s ran no tests (every one skipped)", name);
			return say(why, size, what, line);
		}
		return 0;
	}
	if ((code == 126 || code == 127) && find_line(NULL, err, missing, line, sizeof line)) {
		snprintf(what, sizeof what, "%s could not start", name);
		return say(why, size, what, line);
	}
	/* a file that failed to run, with no test failing elsewhere (the
	 * summary says so; the "✕" marks are printed only for one file) */
	if (find_line(out, err, failed, line, sizeof line) && !tfailed &&
	    !(err && strstr(err, "\xe2\x9c\x95")) && !(out && strstr(out, "\xe2\x9c\x95"))) {
		snprintf(what, sizeof what, "%s: a test suite failed to run", name);
		return say(why, size, what, suite_failure(out, err, line, sizeof line));
	}
	if (find_line(out, err, npx, line, sizeof line) && !tran) {
		snprintf(what, sizeof what, "%s could not start", name);
		return say(why, size, what, line);
	}
	return 0;
}

int
rt_runner_not_run(rt_runner_kind k, int code, const char *out, const char *err,
    char *why, size_t size)
{
	switch (k) {
	case RT_RUNNER_PYTEST:
		return pytest_not_run(code, out, err, why, size);
	case RT_RUNNER_UNITTEST:
	case RT_RUNNER_PYTHON:
		return python_not_run(k, code, out, err, why, size);
	case RT_RUNNER_GO:
		return go_not_run(code, out, err, why, size);
	case RT_RUNNER_JEST:
	case RT_RUNNER_VITEST:
		return jest_not_run(k, code, out, err, why, size);
	case RT_RUNNER_GENERIC:
		break;
	}
	return 0;
}

/* s without leading and trailing blanks (malloc'd). */
static char *
trimmed(const char *s)
{
	const char *e;

	while (*s && isspace((unsigned char)*s))
		s++;
	for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--)
		;
	return rt_xasprintf("%.*s", (int)(e - s), s);
}

static int
is_file(const char *dir, const char *rel)
{
	struct stat st;
	char *p = dir && *dir ? rt_xasprintf("%s/%s", dir, rel) : rt_xstrdup(rel);
	int r = stat(p, &st) == 0 && S_ISREG(st.st_mode);

	free(p);
	return r;
}

/* pytest: "tests.test_x.TestC" (+ file "tests/test_x.py") -> the node ID
 * "tests/test_x.py::TestC::NAME". */
static char *
pytest_id(const char *classname, const char *name, const char *file, const char *dir)
{
	rt_buf b = { 0 };
	char *cls = rt_xstrdup(classname), *mod = NULL, *p, *id;
	size_t n = strlen(cls), k;
	const char *rest = NULL;

	if (file && *file && ends_with(file, ".py")) {
		/* the module's dotted name is the file's path without .py */
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
		/* the longest dotted prefix that is a file, else up to the first
		 * capitalised word (pytest collects classes named Test*) */
		size_t cut = 0;
		for (k = n; k > 0; k--) {
			if (k < n && cls[k] != '.')
				continue;
			mod = rt_xasprintf("%.*s.py", (int)k, cls);
			for (p = mod; *p && p < mod + k; p++)
				if (*p == '.')
					*p = '/';
			if (is_file(dir, mod)) {
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

/* jest-junit: "FILE::full name". Its default templates put the full name
 * in both classname and name ("cart adds up", with a leading space for a
 * test outside any describe); classNameTemplate "{classname}" and
 * titleTemplate "{title}" split it ("cart" + "adds up"), and a
 * classname with a "/" is the file. */
static char *
jest_id(const char *file, const char *cls, const char *nm)
{
	size_t c = strlen(cls), n = strlen(nm);

	if (!c || strchr(cls, '/') || !strcmp(cls, nm) || (n > c && !strncmp(nm, cls, c) &&
	    nm[c] == ' '))
		return rt_xasprintf("%s::%s", file, nm);
	if (c > n && !strcmp(cls + c - n, nm) && cls[c - n - 1] == ' ')
		return rt_xasprintf("%s::%s", file, cls);
	return rt_xasprintf("%s::%s %s", file, cls, nm);
}

char *
rt_runner_junit_id(const char *suite, const char *classname, const char *name,
    const char *file, const char *dir)
{
	char *cls = trimmed(classname ? classname : ""), *nm = trimmed(name ? name : "");
	char *id;

	if ((suite && !strcmp(suite, "pytest") && *cls) ||
	    (file && ends_with(file, ".py") && *cls && !strchr(cls, '/')))
		id = pytest_id(cls, nm, file, dir);
	else if (file && *file && (ends_with(file, ".js") || ends_with(file, ".ts") ||
	    ends_with(file, ".jsx") || ends_with(file, ".tsx") || ends_with(file, ".mjs") ||
	    ends_with(file, ".cjs")))
		id = jest_id(file, cls, nm);
	else if (*cls && strcmp(cls, nm) != 0)
		id = rt_xasprintf("%s::%s", cls, nm);
	else
		id = rt_xstrdup(nm);
	free(cls);
	free(nm);
	return id;
}

/* "--reruns 2", "--reruns=2", "--retry 3" among w[0..n): the option as
 * written, when its count is not 0 (vitest's only under vitest). */
static int
retry_word(char **w, size_t n, int vitest, char *opt, size_t size)
{
	static const char *const opts[] = { "--reruns", "--retry" };
	size_t i, j, k;
	const char *v;

	for (i = 0; i < n; i++)
		for (j = 0; j < sizeof opts / sizeof *opts; j++) {
			if (j == 1 && !vitest)
				continue;
			k = strlen(opts[j]);
			if (strncmp(w[i], opts[j], k) || (w[i][k] && w[i][k] != '='))
				continue;
			v = w[i][k] == '=' ? w[i] + k + 1 : i + 1 < n ? w[i + 1] : "";
			if (!*v || strspn(v, "0") == strlen(v))
				continue;
			snprintf(opt, size, "%s %s", opts[j], v);
			return 1;
		}
	return 0;
}

int
rt_runner_hidden_retries(rt_runner_kind k, const char *shell_cmd, char *const *argv,
    char *msg, size_t size)
{
	char *w[512], *sub[64], opt[80];
	const char *env = getenv("PYTEST_ADDOPTS");
	size_t n = 0, m, i;
	int vitest = k == RT_RUNNER_VITEST, hit;

	if (shell_cmd)
		n = rt_cmd_split(shell_cmd, w, sizeof w / sizeof *w);
	else
		for (; argv && argv[n] && n < sizeof w / sizeof *w; n++)
			w[n] = rt_xstrdup(argv[n]);
	hit = retry_word(w, n, vitest, opt, sizeof opt);
	/* PYTEST_ADDOPTS="--reruns 2" pytest ...: the assignment's words */
	for (i = 0; i < n && !hit; i++)
		if (!strncmp(w[i], "PYTEST_ADDOPTS=", 15)) {
			m = rt_cmd_split(w[i] + 15, sub, sizeof sub / sizeof *sub);
			hit = retry_word(sub, m, 0, opt, sizeof opt);
			while (m)
				free(sub[--m]);
		}
	for (i = 0; i < n; i++)
		free(w[i]);
	if (!hit && env && k == RT_RUNNER_PYTEST) {
		m = rt_cmd_split(env, sub, sizeof sub / sizeof *sub);
		if ((hit = retry_word(sub, m, 0, opt, sizeof opt)))
			snprintf(opt + strlen(opt), sizeof opt - strlen(opt), " in $PYTEST_ADDOPTS");
		while (m)
			free(sub[--m]);
	}
	if (!hit)
		return 0;
	if (!strncmp(opt, "--reruns", 8))
		snprintf(msg, size, "pytest-rerunfailures reruns failed tests (%s): a rerun "
		    "that passes hides a failure, and retrial counts only the final outcome; "
		    "drop --reruns to measure the real rate", opt);
	else
		snprintf(msg, size, "vitest retries failed tests (%s): a retry that passes "
		    "hides a failure, and retrial counts only the final outcome; drop --retry "
		    "to measure the real rate", opt);
	return 1;
}

char *
rt_seed_conflict(const char *runner, const char *shell_cmd, char *const *argv)
{
	static const struct {
		const char *runner, *opt, *var, *plugin;
	} pins[] = {
		{ "pytest-random-order", "--random-order-seed", "PYTEST_ADDOPTS", "random_order" },
		{ "pytest-randomly", "--randomly-seed", "PYTEST_ADDOPTS", "randomly" },
		{ "hypothesis", "--hypothesis-seed", "PYTEST_ADDOPTS", NULL },
		{ "go-shuffle", "-shuffle", "GOFLAGS", NULL },
		{ "go-shuffle", "--shuffle", "GOFLAGS", NULL },
		{ "go-shuffle", "-test.shuffle", "GOFLAGS", NULL },
		{ "PYTHONHASHSEED", NULL, "PYTHONHASHSEED", NULL },
	};
	char *w[512], *hit = NULL;
	size_t n = 0, i, j, k;

	if (shell_cmd)
		n = rt_cmd_split(shell_cmd, w, sizeof w / sizeof *w);
	else
		for (; argv && argv[n] && n < sizeof w / sizeof *w; n++)
			w[n] = rt_xstrdup(argv[n]);
	for (i = 0; i < n && !hit; i++)
		for (j = 0; j < sizeof pins / sizeof *pins && !hit; j++) {
			if (strcmp(pins[j].runner, runner))
				continue;
			k = pins[j].opt ? strlen(pins[j].opt) : 0;
			if ((k && !strncmp(w[i], pins[j].opt, k) && (!w[i][k] || w[i][k] == '=')) ||
			    (!strncmp(w[i], pins[j].var, strlen(pins[j].var)) &&
			    w[i][strlen(pins[j].var)] == '=' && is_assignment(w[i])))
				hit = rt_xstrdup(w[i]);
			else if (pins[j].plugin && i + 1 < n && !strcmp(w[i], "-p") &&
			    !strncmp(w[i + 1], "no:", 3) && !strcmp(w[i + 1] + 3, pins[j].plugin))
				hit = rt_xasprintf("-p %s", w[i + 1]);
			else if (pins[j].plugin && !strncmp(w[i], "-pno:", 5) &&
			    !strcmp(w[i] + 5, pins[j].plugin))
				hit = rt_xstrdup(w[i]);
		}
	for (i = 0; i < n; i++)
		free(w[i]);
	return hit;
}

/* ---- what a command selects ---- */

static int
opt_takes_value(const char *o, const char *const *list)
{
	size_t i;

	if (strchr(o, '='))
		return 0;
	for (i = 0; list[i]; i++)
		if (!strcmp(o, list[i]))
			return 1;
	return 0;
}

static void
sel_add(rt_runner_sel *out, size_t *n, size_t max, rt_runner_kind r, rt_sel_kind k,
    const char *text, size_t seg)
{
	if (*n < max) {
		out[*n].runner = r;
		out[*n].kind = k;
		out[*n].text = text;
		out[*n].segment = seg;
	}
	(*n)++;
}

static void
sel_pytest(char **w, size_t n, rt_runner_sel *out, size_t *k, size_t max, size_t seg)
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
			sel_add(out, k, max, RT_RUNNER_PYTEST, RT_SEL_KEXPR, w[++i], seg);
		else if (!strncmp(w[i], "-k", 2) && w[i][2])
			sel_add(out, k, max, RT_RUNNER_PYTEST, RT_SEL_KEXPR, w[i] + 2, seg);
		else if (w[i][0] == '-') {
			if (opt_takes_value(w[i], val))
				i++;
		} else
			sel_add(out, k, max, RT_RUNNER_PYTEST, strstr(w[i], "::") ?
			    RT_SEL_NODE : RT_SEL_PATH, w[i], seg);
	}
}

static void
sel_unittest(char **w, size_t n, rt_runner_sel *out, size_t *k, size_t max, size_t seg)
{
	static const char *const val[] = { "-k", "-p", "-s", "-t", NULL };
	size_t i;

	for (i = 0; i < n; i++) {
		if (w[i][0] == '-') {
			if (opt_takes_value(w[i], val))
				i++;
		} else if (!strcmp(w[i], "discover")) {
			sel_add(out, k, max, RT_RUNNER_UNITTEST, RT_SEL_DISCOVER, w[i], seg);
			return;
		} else {
			sel_add(out, k, max, RT_RUNNER_UNITTEST, strchr(w[i], '/') ||
			    ends_with(w[i], ".py") ? RT_SEL_PATH : RT_SEL_DOTTED, w[i], seg);
		}
	}
}

static void
sel_go(char **w, size_t n, rt_runner_sel *out, size_t *k, size_t max, size_t seg)
{
	static const char *const val[] = {
		"-count", "-timeout", "-tags", "-p", "-parallel", "-cpu", "-bench",
		"-coverprofile", "-o", "-exec", "-skip", "-shuffle", NULL
	};
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(w[i], "-run") && i + 1 < n)
			sel_add(out, k, max, RT_RUNNER_GO, RT_SEL_GORUN, w[++i], seg);
		else if (!strncmp(w[i], "-run=", 5))
			sel_add(out, k, max, RT_RUNNER_GO, RT_SEL_GORUN, w[i] + 5, seg);
		else if (w[i][0] == '-') {
			if (opt_takes_value(w[i], val))
				i++;
		} else
			sel_add(out, k, max, RT_RUNNER_GO, RT_SEL_GOPKG, w[i], seg);
	}
}

size_t
rt_runner_selections(char **w, size_t n, rt_runner_sel *out, size_t max)
{
	size_t i = 0, seg, nseg = 0, k = 0;
	rt_cmd_loc L;

	while (i < n) {
		for (seg = i; seg < n && strcmp(w[seg], ";"); seg++)
			;
		rt_cmd_locate(w, i, seg, &L);
		switch (L.kind) {
		case RT_RUNNER_PYTEST:
			sel_pytest(w + L.args, seg - L.args, out, &k, max, nseg);
			break;
		case RT_RUNNER_UNITTEST:
			sel_unittest(w + L.args, seg - L.args, out, &k, max, nseg);
			break;
		case RT_RUNNER_GO:
			sel_go(w + L.args, seg - L.args, out, &k, max, nseg);
			break;
		case RT_RUNNER_PYTHON:
			sel_add(out, &k, max, RT_RUNNER_PYTHON, L.target > i &&
			    !strcmp(w[L.target - 1], "-m") ? RT_SEL_DOTTED : RT_SEL_PATH,
			    w[L.target], nseg);
			break;
		default:
			/* tox -e py -- tests/x.py::t, make test ARGS=...: what follows -- */
			if (L.dashdash)
				sel_pytest(w + L.dashdash, seg - L.dashdash, out, &k, max, nseg);
			break;
		}
		nseg++;
		i = seg + 1;
	}
	return k < max ? k : max;
}

/* The file a runner's ID names: its part before the first "::". */
static char *
id_file(const char *id)
{
	const char *c = strstr(id, "::");

	return c ? rt_xasprintf("%.*s", (int)(c - id), id) : rt_xstrdup(id);
}

/* Can runner k select id, as far as the tree under dir shows? pytest: the
 * file before the first "::" is a .py file; unittest: a dotted prefix of
 * the name is a module file; jest and vitest: the file is there. 1, or 0
 * with the file that is missing in *missing (malloc'd). */
static int
selectable(rt_runner_kind k, const char *id, const char *dir, char **missing)
{
	char *f, *p;
	size_t n, i;
	int ok = 0;

	*missing = NULL;
	if (k == RT_RUNNER_UNITTEST) {
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
			ok = is_file(dir, f);
			free(f);
		}
		if (!ok) {
			for (i = 0; id[i] && id[i] != '.'; i++)
				;
			*missing = rt_xasprintf("%.*s.py", (int)i, id);
		}
		return ok;
	}
	f = id_file(id);
	ok = (k == RT_RUNNER_PYTEST ? ends_with(f, ".py") : 1) && is_file(dir, f);
	if (!ok)
		*missing = f;
	else
		free(f);
	return ok;
}

char *
rt_runner_record_id(rt_runner_kind k, const char *name, const char *classname,
    const char *jname, const char *suite, const char *dir, char *why, size_t size)
{
	char *try[3] = { NULL, NULL, NULL }, *missing = NULL, *last = NULL, *id = NULL;
	const char *c;
	size_t i, n = 0;

	if (k == RT_RUNNER_GENERIC && suite && !strcmp(suite, "pytest"))
		k = RT_RUNNER_PYTEST;
	if (k != RT_RUNNER_PYTEST && k != RT_RUNNER_UNITTEST && k != RT_RUNNER_JEST &&
	    k != RT_RUNNER_VITEST)
		return rt_xstrdup(name);
	/* the name as given, then from the dialect's raw names, then the name
	 * read as JUnit's "classname::name" (an older rt-junit's "case") */
	try[n++] = rt_xstrdup(name);
	c = strstr(name, "::");
	if (k == RT_RUNNER_PYTEST) {
		if (classname && *classname && jname && *jname)
			try[n++] = rt_runner_junit_id("pytest", classname, jname, NULL, dir);
		if (c && c > name && !memchr(name, '/', (size_t)(c - name))) {
			char *cls = rt_xasprintf("%.*s", (int)(c - name), name);
			try[n++] = rt_runner_junit_id("pytest", cls, c + 2, NULL, dir);
			free(cls);
		}
	} else if (k == RT_RUNNER_UNITTEST) {
		if (classname && *classname && jname && *jname)
			try[n++] = rt_xasprintf("%s.%s", classname, jname);
		if (c && !strstr(c + 2, "::"))
			try[n++] = rt_xasprintf("%.*s.%s", (int)(c - name), name, c + 2);
	}
	for (i = 0; i < n && !id; i++) {
		if (selectable(k, try[i], dir, &missing))
			id = rt_xstrdup(try[i]);
		else {
			free(last);
			last = strcmp(try[i], name) ? rt_xasprintf("%s is not a %sfile in the tree "
			    "(%s reads as %s)", missing, k == RT_RUNNER_UNITTEST ? "module " : "",
			    name, try[i]) : rt_xasprintf("%s is not a %sfile in the tree", missing,
			    k == RT_RUNNER_UNITTEST ? "module " : "");
		}
		free(missing);
	}
	if (!id)
		snprintf(why, size, "%s cannot select it: %s", names[k], last);
	for (i = 0; i < n; i++)
		free(try[i]);
	free(last);
	return id;
}
