/* lib/runner/python.c: python itself — python FILE.py, python -m MODULE
 * (the module's runner when one claims it: pytest, unittest), ./FILE.py —
 * and the Python exits that mean the test did not start. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_util.h"
#include "runner/runner.h"

/* "python3.11 -X dev -m pkg.mod", "pypy3 t.py", "./t.py" */
static int
locate(char **w, size_t i, size_t to, rt_cmd_loc *loc)
{
	const char *b = rt_rn_base(w[i]);
	const rt_runner *m;
	size_t j;

	if (rt_rn_ends_with(b, ".py")) {
		loc->kind = RT_RUNNER_PYTHON;
		return 1;
	}
	if (strncmp(b, "python", 6) && strncmp(b, "pypy", 4))
		return 0;
	for (j = i + 1; j < to && w[j][0] == '-' && strcmp(w[j], "-m"); j++)
		if ((!strcmp(w[j], "-X") || !strcmp(w[j], "-W")) && j + 1 < to)
			j++;
	if (j + 1 < to && !strcmp(w[j], "-m")) {
		loc->target = j + 1;
		loc->args = j + 2;
		m = rt_runner_of_module(w[j + 1]);
		loc->kind = m ? m->kind : RT_RUNNER_PYTHON;
	} else if (j < to) {
		loc->kind = RT_RUNNER_PYTHON;
		loc->target = j;
		loc->args = j + 1;
	}
	return 1;
}

int
rt_rn_python_not_run(int code, const char *out, const char *err, char *why, size_t size)
{
	static const char *const nofile[] = { "can't open file", NULL };
	static const char *const import[] = {
		"Failed to import test module", "ImportError while importing test module", NULL
	};
	static const char *const nomod[] = { "No module named", NULL };
	char line[200];

	if (code == 0)
		return 0;
	if (rt_rn_find_line(out, err, nofile, line, sizeof line))
		return rt_rn_say(why, size, "python could not open the test file", line);
	if (rt_rn_find_line(out, err, import, line, sizeof line))
		return rt_rn_say(why, size, "the test module could not be imported", line);
	/* python -m MODULE with no such module: "No module named X" at exit 1,
	 * before any of the test's code ran */
	if (code == 1 && err && !strstr(err, "Traceback") &&
	    rt_rn_find_line(NULL, err, nomod, line, sizeof line))
		return rt_rn_say(why, size, "python could not find the module", line);
	return 0;
}

/* Python's hash seed: the trial's environment carries it */
static const rt_seed_opt seeds[] = {
	{ "PYTHONHASHSEED", NULL, "PYTHONHASHSEED", "", NULL, NULL, 0 },
	{ NULL, NULL, NULL, NULL, NULL, NULL, 0 }
};

/* Words its report prints around every failure (rt_runner.h). */
static const char *const python_boilerplate[] = {
	"Traceback", "most", "recent", "call", "last", "File", "line", "python",
	"python3", NULL
};

/* The build check of a patch (rt_runner.h): the file byte-compiles. */
static const char *const build_ends[] = { ".py", NULL };
static const char *const build_argv[] = { "python3", "-m", "py_compile", "%s", NULL };
static const char *const build_env[] = { "PYTHONDONTWRITEBYTECODE=1", NULL };

const rt_runner rt_runner_python = {
	.kind = RT_RUNNER_PYTHON,
	.name = "python",
	.locate = locate,
	.not_run = rt_rn_python_not_run,
	.no_report = "unittest writes no per-case report; run the tests through pytest, "
	    "which runs unittest tests too (python3 -m pytest FILE::Class::test), or write "
	    "one to $RETRIAL_JUNIT",
	.seeds = seeds,
	.boilerplate = python_boilerplate,
	.build_ends = build_ends,
	.build_argv = build_argv,
	.build_env = build_env,
};
