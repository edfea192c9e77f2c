/* rt_src: the assertion inventories of test files, read by each language's
 * own parser through a helper (share/retrial/rt-inventory.py, the Go
 * helper built from share/retrial/inventory-go, rt-inventory.js), and the
 * differences between the inventories of the original and a patched file. */
#ifndef RT_SRC_H
#define RT_SRC_H

#include <stddef.h>
#include "rt_runner.h"
#include "rt_util.h"

/* One check a test makes (retrial(7), INVENTORY): kind is assert, call,
 * fail, fail_branch, raises, expect, skip or return. */
typedef struct {
	char *kind, *callee, *op;
	char *text;             /* normalised, one line: what is compared */
	char *source;           /* as written, one line: what is quoted */
	long line, end;
	char **operands;
	size_t noperands;
	int expected;           /* index into operands, -1 when unknown */
	char **optk, **optv;    /* options: places, delta, rel, abs, msg */
	size_t nopt;
	char *guarded;          /* NULL, "try", "suppress" or "recover" */
	long guard_line;        /* the swallowing handler, 0 when unknown */
	char *guard_text;
	char *local;            /* in a helper defined inside the test: its name */
	long dead_line;         /* under a branch that never runs (if False:), */
	char *dead_text;        /* that branch's line and text; 0, NULL when live */
	char **uses;            /* the calls whose values it compares */
	size_t nuses;
} rt_src_check;

typedef struct {
	char *name;             /* Class.method, TestX, "describe > test" */
	long line, end;
	int test;
	char **calls;
	size_t ncalls;
	rt_src_check *checks;
	size_t nchecks;
} rt_src_fn;

typedef struct {
	char *path;
	int error;              /* 1: the parser refused it */
	int limit;              /* 1: refused for its size or nesting */
	long err_line, err_col;
	char *err_msg;
	rt_src_fn *fns;
	size_t nfns;
} rt_src_file;

typedef struct {
	char *lang, *parser;
	rt_src_file *files;
	size_t nfiles;
} rt_src_inv;

/* The language whose helper reads path ("python", "go", "javascript"), or
 * NULL. */
const char *rt_src_lang(const char *path);

enum { RT_SRC_OK = 0, RT_SRC_FAILED = -1, RT_SRC_NO_PARSER = 1 };

/* Run lang's helper on files[0..nfiles) (relative to root, the helper's
 * cwd) and read its inventory into inv. The helper runs without a shell,
 * stdin /dev/null, for at most $RETRIAL_GUARD_TIMEOUT seconds (20), its
 * output capped at 16 MiB and its memory bounded. Python runs with the
 * interpreter command (shell text) or argv names, else python3; Go's
 * helper is built once with the go on PATH into $XDG_CACHE_HOME/retrial
 * (a directory only we can write), checked against the SHA-256 recorded
 * at its build before each use and run from a private copy. Where bwrap
 * runs, every helper runs in rt_sandbox_helper's sandbox: read-only, no
 * network, a private /tmp its only scratch.
 * $RETRIAL_INVENTORY_PY, _GO, _JS name a helper command instead.
 * trusted (may be NULL: root) is the original project: the interpreter
 * and the JavaScript parser come from there, never from a patched copy,
 * so a patch cannot bring the code that judges it.
 * RT_SRC_OK; RT_SRC_NO_PARSER when the language has no parser here (why
 * says so); RT_SRC_FAILED with the helper's message in why. */
int rt_src_inventory(const char *lang, const char *root, const char *trusted,
    char *const *files, size_t nfiles, const char *command, char *const *argv,
    rt_src_inv *inv, char *why, size_t whysize);

/* Read a helper's JSON (the schema of retrial(7)) into inv. 0, or -1
 * with the reason in why. */
int rt_src_parse(const char *json, size_t len, rt_src_inv *inv, char *why,
    size_t whysize);
void rt_src_inv_free(rt_src_inv *inv);

const rt_src_file *rt_src_file_find(const rt_src_inv *inv, const char *path);
const rt_src_fn *rt_src_fn_find(const rt_src_file *f, const char *name);

/* A difference between the original and the patched inventory of a file:
 * a check removed (after NULL), added (before NULL) or changed (or the
 * same check on both sides, for the line it moved to); bfn/afn
 * the function on each side (NULL when it is not there). Checks equal by
 * their normalised text (or by what they compare, the message aside) and
 * their guard are the same check wherever they moved; what is left is
 * paired in source order within a family (checks, raises, skips,
 * returns, failures). A non-test function's returns are not checks. */
typedef struct {
	const char *change;     /* "removed", "added", "changed", or "same" */
	const rt_src_fn *bfn, *afn;
	const rt_src_check *before, *after;
} rt_src_change;

/* The differences of before and after (either may be NULL: the file is
 * new or deleted), malloc'd in *out; the count. */
size_t rt_src_compare(const rt_src_file *before, const rt_src_file *after,
    rt_src_change **out);

/* Where the test ID (a runner's "FILE::name": pytest's
 * "f.py::Class::test[p]", jest's "f.test.js::describe test") is defined,
 * relative to root: its file when that is a regular file there (malloc'd
 * into *file, else NULL), and the line of its definition read by the
 * language's parser (rt_src_inventory) into *line, else 0. */
void rt_src_test_def(const char *root, const char *id, char **file, long *line);

/* The value of option key of c, or NULL. */
const char *rt_src_option(const rt_src_check *c, const char *key);

/* Run share/retrial/SCRIPT (another Python helper, rt-fix.py) with the
 * project's interpreter as rt_src_inventory runs rt-inventory.py: in root,
 * "-I -S SCRIPT --root ROOT ARGS...", no shell, bounded in time, output
 * and memory; its stdout in out. RT_SRC_OK, RT_SRC_NO_PARSER (no
 * interpreter) or RT_SRC_FAILED, with the reason in why. */
int rt_src_python_helper(const char *script, const char *root, const char *command,
    char *const *argv, char *const *args, rt_buf *out, char *why, size_t whysize);

/* Run share/retrial/SCRIPT (rt-fix.js) with node as rt_src_inventory runs
 * rt-inventory.js: "node SCRIPT --root ROOT --parser-root TRUSTED ARGS...",
 * in root, no shell, bounded and confined; the parser it loads is the one
 * installed in trusted (NULL: root), the original project. */
int rt_src_node_helper(const char *script, const char *root, const char *trusted,
    char *const *args, rt_buf *out, char *why, size_t whysize);

/* Run the Go helper (built and cached as rt_src_inventory builds it) with
 * its leading option words from args, then "--root ROOT", then the rest
 * (files): rt-diagnose's map-order rule is "--fix-maprange FILE...". */
int rt_src_go_helper(const char *root, char *const *args, rt_buf *out, char *why,
    size_t whysize);

/* The build check of a rule's patch: runner r's build command
 * (rt_runner.h build_argv, build_env) for the patched file rel, run in
 * dir (the project's scratch copy with the patch applied) with no shell.
 * The command as words joined by spaces in *cmd (malloc'd). 0 it built,
 * 1 it did not (why: the first line it printed), -1 it could not be run
 * (why says so). */
int rt_src_build(const char *dir, const rt_runner *r, const char *rel, char **cmd,
    char *why, size_t whysize);

/* The module a Python file rel is imported as, below dir: its name with
 * each enclosing package's (a directory with __init__.py), malloc'd, and
 * in *base the directory above the top package ("./tests", "."); NULL
 * when rel is not a .py file. */
char *rt_src_module_of(const char *dir, const char *rel, char **base);

/* The import check of a patched Python file: the project's interpreter
 * (named in command, relative ones below trusted, else python3) imports
 * rel's module in dir with -B, the directory above its top package and
 * dir first on sys.path, argv only, bounded in time and memory and, where
 * bwrap runs, confined read-only without network as the parsers are.
 * The command in words in *cmd (malloc'd). 0 it imported, 1 it raised
 * (why: the exception in one line), -1 it could not be run. */
int rt_src_import(const char *dir, const char *trusted, const char *command,
    const char *rel, char **cmd, char *why, size_t whysize);

#endif
