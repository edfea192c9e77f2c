/* rt_runner: what retrial knows of each test runner, one file a runner
 * under lib/runner/ (pytest, unittest, python, go, jest, vitest, mocha, rspec,
 * script, generic) behind one struct and one table: how a command names it, which of its
 * exits mean "the test did not run", what a command selects, its test IDs,
 * its per-case report, its retries and its seed. Tools ask the table (or
 * the functions below, which do); none names a runner. */
#ifndef RT_RUNNER_H
#define RT_RUNNER_H

#include <sys/types.h>

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "rt_junit.h"

typedef enum {
	RT_RUNNER_GENERIC,           /* exit status only */
	RT_RUNNER_PYTEST,            /* pytest, py.test, python -m pytest */
	RT_RUNNER_UNITTEST,          /* python -m unittest */
	RT_RUNNER_PYTHON,            /* python FILE.py, python -m MODULE, ./FILE.py */
	RT_RUNNER_GO,                /* go test */
	RT_RUNNER_JEST,              /* jest, npx jest, yarn jest */
	RT_RUNNER_VITEST,            /* vitest, npx vitest */
	RT_RUNNER_MOCHA,             /* mocha, _mocha, npx mocha */
	RT_RUNNER_RSPEC,             /* rspec, bundle exec rspec, ruby -S rspec */
	RT_RUNNER_SCRIPT,            /* sh FILE, bash FILE, node FILE... */
	RT_RUNNER_NKINDS
} rt_runner_kind;

typedef struct rt_runner rt_runner;
struct rt_order_ops;            /* rt_order.h */

/* The adapter's name ("pytest", "generic"...). */
const char *rt_runner_kind_name(rt_runner_kind k);
/* The adapter of a --runner NAME: 0, or -1 when unknown. */
int rt_runner_kind_parse(const char *name, rt_runner_kind *k);
/* Every adapter's name, for the message of an unknown one:
 * "pytest, unittest, python, go, jest, vitest, mocha, rspec, script, generic". */
const char *rt_runner_kind_list(void);

/* Split a command into words as sh(1) would, without running it: quotes
 * and backslashes are undone, and the separators ; && || | & become one
 * word ";". At most max words (malloc'd; free each). The count. */
size_t rt_cmd_split(const char *s, char **w, size_t max);

/* Where the runner stands in words w[from..to) (one segment, no ";"):
 * assignments (VAR=x) and wrappers (env, nice, exec, command, timeout,
 * xvfb-run, uv run, poetry run, pipenv run, hatch run, npx, yarn, pnpm
 * exec) are passed over. kind is the runner found, target the word that
 * names it (python's script or module: "python -m pkg.mod" sets target to
 * "pkg.mod"), args the index of its first own argument. A segment with no
 * runner but a "--" (tox -e py -- tests/x.py) is RT_RUNNER_GENERIC with
 * dashdash set to the index after it; else dashdash is 0. */
typedef struct {
	rt_runner_kind kind;
	size_t target, args, dashdash;
} rt_cmd_loc;
void rt_cmd_locate(char **w, size_t from, size_t to, rt_cmd_loc *loc);

/* The runner a command runs (the first segment that names one), from
 * the shell text or an argv; RT_RUNNER_GENERIC when none. */
rt_runner_kind rt_runner_detect(const char *shell_cmd, char *const *argv);

/* Did the test not run? The runner's own word for it, from its exit code
 * and output: pytest's exits 2-5 (interrupted or collection errors,
 * internal error, usage error such as a missing file, no tests
 * collected); Python's "can't open file" and a test module that cannot be
 * imported; unittest's "NO TESTS RAN"; go test's build and setup
 * failures, "no test files" and "no tests to run" (exit 0 included); jest's
 * "No tests found" and a suite that failed to run. 1 with the reason in
 * why ("pytest exit 4 (usage error): ERROR: file or directory not found:
 * t.py"), else 0. The generic adapter never says so. */
int rt_runner_not_run(rt_runner_kind k, int exit_code, const char *out,
    const char *err, char *why, size_t size);

/* Would the command override a seed pinned for runner (rt_seed_pin's
 * names: pytest-random-order, pytest-randomly, hypothesis, go-shuffle,
 * PYTHONHASHSEED)? The command's own seed option or assignment
 * ("--random-order-seed=$RETRIAL_SEED", "-shuffle=on",
 * "PYTHONHASHSEED=0"), an assignment of the variable the pin goes through
 * (PYTEST_ADDOPTS, GOFLAGS), or "-p no:PLUGIN", which turns the plugin
 * off: that word (malloc'd), else NULL. */
char *rt_seed_conflict(const char *runner, const char *shell_cmd, char *const *argv);

/* Does the command make its runner rerun failed tests itself, hiding the
 * failures from retrial? pytest-rerunfailures' --reruns N (also inside
 * PYTEST_ADDOPTS, in the command or the environment) and vitest's
 * --retry N: neither runner's exit status nor pytest's JUnit XML shows a
 * rerun that passed. 1 with the warning in msg ("pytest-rerunfailures
 * reruns failed tests (--reruns 2): a rerun that passes hides a
 * failure..."), else 0. k is the adapter the tool runs the command
 * with (--runner, else rt_runner_detect's). jest.retryTimes is in a test's source, not the
 * command: jest --json reports every invocation (rt_jest). */
int rt_runner_hidden_retries(rt_runner_kind k, const char *shell_cmd, char *const *argv,
    char *msg, size_t size);

/* A JUnit testcase's canonical ID: the runner's own selection syntax, so
 * the same string selects the test in rt-bisect, rt-verify --case and
 * the runner itself (malloc'd):
 *   pytest (a suite named "pytest", or a file ending in .py): the node ID
 *     "tests/test_x.py::TestC::test_y[p]", the module's path from the
 *     file attribute (xunit1) or from the dotted classname (xunit2: the
 *     longest prefix that is a .py file under dir, else the words before
 *     the first capitalised one);
 *   jest-junit: "FILE::full name" with a file attribute (the full name
 *     from classname and name, whichever templates split it), else the
 *     full name, never with jest-junit's leading space;
 *   everyone else (go-junit-report's "PKG::TestX/sub", Surefire's
 *     "com.x.FooTest::testBar"...): "classname::name", or the name alone
 *     when the classname is empty or the same (Bazel).
 * dir may be NULL (the current directory). */
char *rt_runner_junit_id(const char *suite, const char *classname,
    const char *name, const char *file, const char *dir);

/* The runner that claims a testcase with no file in its report (the
 * junit_fileless hook), RT_RUNNER_GENERIC when none; and that runner's
 * file for a whole suite of such testcases (junit_suite_file). */
rt_runner_kind rt_runner_junit_fileless(const char *root, const char *suite,
    const char *classname, const char *name);
char *rt_runner_junit_suite_file(rt_runner_kind k, char *const *names, size_t n,
    const char *dir, void **state, char *why, size_t size);

/* What a command selects, in each runner's own terms, read from its words
 * (rt_cmd_split's; nothing is run and no tree is looked at). One entry per
 * selection, in order; segment is the index of the ";"-separated segment
 * it came from (a -k applies to the paths of its own segment). text points
 * into w. The option tables (which of a runner's options take a value)
 * live here, so a value is never read as a selection. */
typedef enum {
	RT_SEL_PATH,            /* pytest/unittest/python: a file or directory */
	RT_SEL_NODE,            /* a pytest node ID "f.py::Class::test[p]" */
	RT_SEL_DOTTED,          /* unittest or python -m: "pkg.mod.Class.test" */
	RT_SEL_KEXPR,           /* pytest -k EXPR */
	RT_SEL_DISCOVER,        /* unittest discover: its own search, nothing named */
	RT_SEL_GOPKG,           /* a go test package pattern ("./...", "./pkg") */
	RT_SEL_GORUN            /* go test -run REGEX */
} rt_sel_kind;

/* How a runner's selections are found among a tree's files (rt_canary):
 * the files named, whole, and dotted module names (unittest, python);
 * also the test files under a named directory, node IDs and -k
 * (pytest's collection); package directories' test files and -run (go). */
typedef enum {
	RT_PICK_FILES,
	RT_PICK_COLLECT,
	RT_PICK_PACKAGES
} rt_pick_kind;

typedef struct {
	rt_runner_kind runner;  /* the segment's runner (pytest for a "--" tail) */
	rt_sel_kind kind;
	const char *text;
	size_t segment;
} rt_runner_sel;

/* The selections of words w[0..n): at most max stored in out; the count
 * stored. */
size_t rt_runner_selections(char **w, size_t n, rt_runner_sel *out, size_t max);

/* A test name from a record (rt-junit, rt-collect --junit, an older
 * rt-junit's "classname::name", a dialect's junit_classname and
 * junit_name) as an ID runner k selects, checked against the tree under
 * dir (NULL: the current directory): pytest's node ID, whose file must
 * be a .py file there ("tests.test_x.TestC::test_y" ->
 * "tests/test_x.py::TestC::test_y"); unittest's dotted name, a prefix of
 * it a module file; jest's and vitest's "FILE::name", the file there. A
 * generic runner with suite "pytest" is pytest; go and generic names are
 * taken as they are. The ID (malloc'd), or NULL with the reason in why
 * ("pytest cannot select it: tests/test_gone.py is not a file in the tree
 * (tests.test_gone.TestG::test_x reads as tests/test_gone.py::TestG::test_x)"). */
char *rt_runner_record_id(rt_runner_kind k, const char *name, const char *classname,
    const char *jname, const char *suite, const char *dir, char *why, size_t size);


/* ---- the runner: every duty it has, one struct a runner ---- */

/* A seed a runner (or its plugin) orders or draws tests by, printed so a
 * run can be repeated, and pinned by retrial to repeat it. */
typedef struct {
	const char *name;               /* the seed fact's runner: "pytest-random-order" */
	const char *const *printed;     /* what precedes the digits in the output */
	const char *var, *opt;          /* a pin: var gets opt and the seed (opt ""
	                                 * : the seed is the value); var NULL: none */
	const char *const *conflicts;   /* the command's own options that set it */
	const char *plugin;             /* "-p no:PLUGIN" turns it off */
	int negative;                   /* a seed may be negative (go -shuffle) */
} rt_seed_opt;

struct rt_runner {
	rt_runner_kind kind;
	const char *name;               /* "pytest": --runner NAME, records */
	/* How a command names it: one of words as the command's base name
	 * (then subcommand, if set, as the next word: "go test"), or one of
	 * modules after "python -m". locate, when set, replaces both. */
	const char *const *words;
	const char *subcommand;
	const char *const *modules;
	int (*locate)(char **w, size_t i, size_t to, rt_cmd_loc *loc);
	/* Named only when no other segment of the command names a runner
	 * ("sh setup.sh; pytest" is pytest's). */
	int fallback;
	/* Did the test not run: 1 with the runner's own message in why. */
	int (*not_run)(int code, const char *out, const char *err, char *why, size_t size);
	/* What a command's own words w[0..n) (after the runner) select. */
	void (*selections)(char **w, size_t n, rt_runner_sel *out, size_t *k, size_t max,
	    size_t seg);
	rt_pick_kind picks;             /* how they are found in the tree */
	/* Is a JUnit testcase this runner's (suite name, its file)? Then
	 * junit_id makes the canonical ID from its classname, name and file. */
	int (*junit_claims)(const char *suite, const char *cls, const char *file);
	char *(*junit_id)(const char *cls, const char *name, const char *file, const char *dir);
	/* A testcase whose report names no file (root: the <testsuites>
	 * name, suite: its <testsuite> name): is it this runner's all the
	 * same (jest-junit's default configuration)? Then its ID waits for
	 * junit_suite_file, which names the file of one whole <testsuite>
	 * from the full names of its testcases (trimmed), or NULL with why
	 * (what to configure). state is the runner's over one report; a call
	 * with names NULL frees it. */
	int (*junit_fileless)(const char *root, const char *suite, const char *cls,
	    const char *name);
	char *(*junit_suite_file)(char *const *names, size_t n, const char *dir, void **state,
	    char *why, size_t size);
	/* The ID a record's names give, when the tree under dir lets this
	 * runner select it (NULL with why); NULL hook: the name as it is. */
	char *(*record_id)(const char *name, const char *classname, const char *jname,
	    const char *dir, char *why, size_t size);
	int file_ids;                   /* no record_id: "FILE::name" IDs, selectable
	                                 * when FILE is in the tree (jest, mocha) */
	/* Its per-case report, asked for by retrial: report_var is the
	 * variable the runner reads options from (PYTEST_ADDOPTS, GOFLAGS)
	 * and report_add the option ("--junitxml=%s": %s the report's path);
	 * report_env the variables a configured reporter reads
	 * ("JEST_JUNIT_OUTPUT_FILE=%s"). own_report: options by which a
	 * command names its own report. report_output: the least output kept
	 * of a trial whose report is on stdout. */
	const char *report_var, *report_add;
	const char *const *report_env;
	const char *const *own_report;
	size_t report_output;
	int report_stdout;              /* the report is the trial's stdout */
	const char *no_report;          /* what to do when it wrote none */
	/* A report of its own in JSON: one document (is doc one, and its
	 * records; "attempt" 1..k only for the runner's own retries of one
	 * run, jest.retryTimes; "repeat" 1..N for each judged run of a test
	 * run N times, go test -count=N, each attempt 1), or a stream of one
	 * event a line (is the first line's
	 * object one; then read f on from that line, held in line[0..len),
	 * a malloc'd buffer of cap bytes the reader takes). */
	int (*doc_is_report)(const json_t *doc);
	long (*doc_read)(const json_t *doc, const rt_junit_opts *o, rt_junit_fn fn, void *ctx,
	    char *err, size_t errsize);
	int (*stream_claims)(const json_t *first);
	const char *report_what;        /* "jest --json (no \"testResults\")" */
	long (*stream_read)(FILE *f, char *line, size_t cap, ssize_t len, const rt_junit_opts *o,
	    rt_junit_fn fn, void *ctx, char *err, size_t errsize);
	/* Its options that rerun a failed test in the same run (a rerun that
	 * passes hides a failure), also inside retry_var; retry_msg what to say. */
	const char *const *retry_opts;
	const char *retry_var;
	const char *retry_msg;
	/* Its seeds (NULL-named end), in the order their printed forms are
	 * looked for. */
	const rt_seed_opt *seeds;
	/* Ordered runs (rt_order.h), when its command line cannot set the
	 * order of its tests (go test: source order; rspec and mocha: a
	 * group's tests together); NULL: the order the command names. */
	const struct rt_order_ops *order;
	/* The repair (rt_fix_plan's request "kind") that puts back the state
	 * of every polluter of an order-dependent test at once, several
	 * polluters each alone being one finding (go: "goorder", the
	 * package-level vars by t.Cleanup); NULL: one polluter's reset is
	 * copied into the victim's setup. */
	const char *order_fix;
	/* The failure_type of a skip by which its quarantine plugin reported
	 * a quarantined test's failure (an older retrial_quarantine's xfail:
	 * "pytest.xfail"); a newer one says so in testcase properties, which
	 * rt_junit reads. */
	const char *quar_skip;
	/* Its listing of tests (rt-bisect --collect): each ID holds list_mark
	 * (pytest --collect-only -q: "::"), an ID being a list_id ("pytest
	 * node ID (FILE::NAME)"), and a line of "=" opens a section that lists
	 * none; NULL: every line is an ID. */
	const char *list_mark, *list_id;
	/* Words of its own report that every failure prints, whatever failed
	 * (pytest's "E" prefix, go test's "FAIL", "go", "test"): never a
	 * failure's signature (rt-diff-facts' token). NULL-ended; NULL: none. */
	const char *const *boilerplate;
	/* The build check of a rule's patch (rt_fix; rt-diagnose(1), RULE
	 * PATCHES): the endings of the files its language builds, and the
	 * command that builds or compiles the patched file rel in the
	 * project's scratch copy, run there without a shell: words with "%s"
	 * take rel ("./" before it), "%d" rel's directory; build_env is set
	 * for it (NAME=VALUE). NULL-ended; NULL: its files are not built. */
	const char *const *build_ends;
	const char *const *build_argv;
	const char *const *build_env;
};

/* Is word w (n bytes) boilerplate of runner k? */
int rt_runner_boilerplate(rt_runner_kind k, const char *w, size_t n);

/* The runner whose build check takes file rel (by its ending), or NULL. */
const rt_runner *rt_runner_builder(const char *rel);

/* The runner of kind k (the generic one for an unknown k). */
const rt_runner *rt_runner_of(rt_runner_kind k);
/* The runner of a --runner NAME, or NULL. */
const rt_runner *rt_runner_named(const char *name);
/* The runner python -m MODULE runs, or NULL. */
const rt_runner *rt_runner_of_module(const char *module);
/* "neither JUnit XML (no "<"), jest --json (no "testResults") nor ...":
 * what a report no reader takes is not, every runner's report_what. */
const char *rt_runner_report_kinds(void);
/* Is a quarantined test's record of outcome and failure_type a failure
 * its runner's quarantine plugin reported as a skip (quar_skip)? */
int rt_runner_quar_hides(const char *outcome, const char *failure_type);
/* Every runner's seeds, in table order: the i-th, or NULL past the end. */
const rt_seed_opt *rt_seed_opt_at(size_t i);
/* The seed of a seed fact's runner name ("go-shuffle"), or NULL. */
const rt_seed_opt *rt_seed_opt_named(const char *name);
/* The seeds' names, NULL-terminated, in rt_seed_opt_at's order, each once. */
const char *const *rt_seed_names(void);

#endif
