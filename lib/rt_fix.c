/* rt_fix: rule patches planned by share/retrial/rt-fix.py, turned into a
 * diff and checked (applies with patch --fuzz=0, parses) before they are
 * emitted. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_cases.h"
#include "rt_ddmin.h"
#include "rt_fix.h"
#include "rt_fs.h"
#include "rt_patch.h"
#include "rt_runner.h"
#include "rt_sandbox.h"
#include "rt_src.h"
#include "rt_trial.h"
#include "rt_util.h"

static json_t *
no_patch(const char *fmt, const char *a, const char *b)
{
	char buf[1200];

	snprintf(buf, sizeof buf, fmt, a, b ? b : "");
	return json_pack("{s:s, s:s}", "status", "no_patch", "reason", buf);
}

/* Does the diff apply to old (patch --fuzz=0 in a scratch directory), and
 * does the result parse? NULL when it does, else the reason (malloc'd). */
static char *
check_patch(const char *root, const char *command, const char *rel,
    const char *old, size_t oldlen, const char *diff)
{
	const char *tmp = getenv("TMPDIR");
	char *dir, *path, *res = NULL, err[512], why[1024];
	char *files[1];
	rt_src_inv inv;
	FILE *f;
	int r;

	dir = rt_xasprintf("%s/rt-fix-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		res = rt_xasprintf("a scratch directory: %s", strerror(errno));
		free(dir);
		return res;
	}
	path = rt_xasprintf("%s/%s", dir, rel);
	if (rt_mkdir_parents(path, 0700) < 0 || !(f = fopen(path, "wb")) ||
	    fwrite(old, 1, oldlen, f) != oldlen || fclose(f) != 0) {
		res = rt_xasprintf("%s: cannot copy to a scratch directory", rel);
		goto done;
	}
	if (rt_patch_apply(dir, diff, err, sizeof err) < 0) {
		res = rt_xasprintf("the patch does not apply (patch --fuzz=0): %s", err);
		goto done;
	}
	files[0] = (char *)rel;
	r = rt_src_inventory(rt_src_lang(rel) ? rt_src_lang(rel) : "python", dir, root,
	    files, 1, command, NULL, &inv, why, sizeof why);
	if (r != RT_SRC_OK) {
		res = rt_xasprintf("the patched file could not be parsed: %s", why);
		goto done;
	}
	if (inv.nfiles > 0 && inv.files[0].error)
		res = rt_xasprintf("the patched file does not parse: %s:%ld: %s", rel,
		    inv.files[0].err_line, inv.files[0].err_msg ? inv.files[0].err_msg : "");
	rt_src_inv_free(&inv);
done:
	rt_remove_tree(dir);
	free(path);
	free(dir);
	return res;
}

/* The build check's copy leaves out the scratch directory and the heavy
 * trees at the project's top that no build check reads (a build check
 * type-checks or byte-compiles; Go's modules come from its module cache,
 * a vendor directory being kept) */
typedef struct {
	struct stat st[6];
	int n;
} build_skips;

static int
build_skip(const struct stat *st, void *ctx)
{
	const build_skips *b = ctx;

	for (int i = 0; i < b->n; i++)
		if (st->st_dev == b->st[i].st_dev && st->st_ino == b->st[i].st_ino)
			return 1;
	return 0;
}

/* Does the project build with the patch? The build check of the runner
 * whose language rel is in (rt_runner_builder), run in a scratch copy of
 * the whole project with the patch applied. NULL when it builds or no
 * runner builds rel, else the reason (malloc'd); *build is the check's
 * record, {"ok", "command", "first_line"} (NULL when none ran). */
static char *
build_patch(const char *root, const char *command, const char *rel, const char *diff,
    json_t **build)
{
	const rt_runner *r = rt_runner_builder(rel);
	const char *tmp = getenv("TMPDIR");
	char *dir, *copy, *cmd = NULL, *res = NULL, err[512], why[512] = "";
	struct stat st;
	int rc;

	*build = NULL;
	if (!r)
		return NULL;
	dir = rt_xasprintf("%s/rt-build-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		res = rt_xasprintf("a scratch directory: %s", strerror(errno));
		free(dir);
		return res;
	}
	copy = rt_xasprintf("%s/p", dir);
	static const char *const heavy[] = { "node_modules", ".venv", "venv", ".tox", ".git" };
	build_skips bs = { .n = 0 };
	for (size_t i = 0; i < sizeof heavy / sizeof *heavy; i++) {
		char *h = rt_xasprintf("%s/%s", root, heavy[i]);
		if (lstat(h, &bs.st[bs.n]) == 0 && S_ISDIR(bs.st[bs.n].st_mode))
			bs.n++;
		free(h);
	}
	if (stat(dir, &st) < 0)
		snprintf(err, sizeof err, "%s: %s", dir, strerror(errno));
	else
		bs.st[bs.n++] = st;
	if (bs.n == 0 || !S_ISDIR(bs.st[bs.n - 1].st_mode) ||
	    rt_copy_tree(root, copy, build_skip, &bs, err, sizeof err) < 0) {
		res = rt_xasprintf("the project could not be copied for the build check: %s", err);
		goto done;
	}
	if (rt_patch_apply(copy, diff, err, sizeof err) < 0) {
		res = rt_xasprintf("the patch does not apply (patch --fuzz=0): %s", err);
		goto done;
	}
	rc = rt_src_build(copy, r, rel, &cmd, why, sizeof why);
	*build = json_pack("{s:b, s:s?, s:s}", "ok", rc == 0, "command", cmd,
	    "first_line", why);
	if (rc < 0)
		res = rt_xasprintf("the build check (%s) could not run: %s", cmd ? cmd : r->name, why);
	else if (rc > 0)
		res = rt_xasprintf("the patched project does not build (%s): %s", cmd, why);
	else if (rt_src_lang(rel) && !strcmp(rt_src_lang(rel), "python")) {
		/* built means it imports too: a NameError at import time or a
		 * bad relative import byte-compiles */
		char *icmd = NULL;
		why[0] = '\0';
		rc = rt_src_import(copy, root, command, rel, &icmd, why, sizeof why);
		json_object_set_new(*build, "import", json_pack("{s:b, s:s?, s:s}", "ok",
		    rc == 0, "command", icmd, "first_line", why));
		if (rc < 0)
			res = rt_xasprintf("the import check (%s) could not run: %s",
			    icmd ? icmd : "python", why);
		else if (rc > 0)
			res = rt_xasprintf("the patched module does not import (%s): %s",
			    icmd, why);
		free(icmd);
	}
done:
	rt_remove_tree(dir);
	free(cmd);
	free(copy);
	free(dir);
	return res;
}

/* One planned change (file, source, explanation), as a checked patch or
 * no_patch with the reason. */
static json_t *
checked(const char *root, const char *command, json_t *o)
{
	const char *rel, *src, *expl;
	char *old = NULL, *diff = NULL, *bad = NULL, *opath;
	size_t oldlen = 0;
	json_t *res, *build = NULL;
	const char *st = json_string_value(json_object_get(o, "status"));
	const char *why = json_string_value(json_object_get(o, "reason"));

	if (!st || strcmp(st, "ok") != 0) {
		/* "needs": the language the change takes, newer than the module's */
		res = no_patch("%s%s", why ? why : "the fix planner gave no reason", NULL);
		if (json_is_string(json_object_get(o, "needs")))
			json_object_set(res, "needs", json_object_get(o, "needs"));
		return res;
	}
	rel = json_string_value(json_object_get(o, "file"));
	src = json_string_value(json_object_get(o, "source"));
	expl = json_string_value(json_object_get(o, "explanation"));
	if (!rel || !src || !expl) {
		return no_patch("the fix planner's answer lacks file, source or explanation%s%s",
		    "", NULL);
	}
	opath = rt_xasprintf("%s/%s", root, rel);
	if (!rt_patch_path_inside(root, rel) || !(old = rt_read_file(opath, &oldlen))) {
		res = no_patch("%s: cannot read it in the project%s", rel, NULL);
		free(opath);
		return res;
	}
	free(opath);
	if (!(diff = rt_patch_from_texts(rel, old, src)))
		res = no_patch("%s: the planned change changes nothing%s", rel, NULL);
	else if ((bad = check_patch(root, command, rel, old, oldlen, diff)))
		res = no_patch("%s%s", bad, NULL);
	else if ((bad = build_patch(root, command, rel, diff, &build)))
		res = no_patch("%s%s", bad, NULL);
	else {
		res = json_pack("{s:s, s:s, s:[s], s:s}", "status", "ok", "patch", diff,
		    "files", rel, "explanation", expl);
		if (json_is_array(json_object_get(o, "statements")))
			json_object_set(res, "statements", json_object_get(o, "statements"));
		if (json_is_object(json_object_get(o, "loosens")))
			json_object_set(res, "loosens", json_object_get(o, "loosens"));
	}
	if (build)
		json_object_set_new(res, "build", build);
	free(bad);
	free(diff);
	free(old);
	return res;
}

/* An order request whose victim is in a JavaScript or TypeScript file
 * (jest's "FILE::describe test"): rt-fix.js plans it. */
static int
is_js_order(json_t *req)
{
	const char *k = json_string_value(json_object_get(req, "kind"));
	const char *v = json_string_value(json_object_get(req, "victim")), *c;
	const char *lang;
	char *f;
	int r;

	if (!k || strcmp(k, "order") != 0 || !v || !(c = strstr(v, "::")))
		return 0;
	f = rt_xasprintf("%.*s", (int)(c - v), v);
	lang = rt_src_lang(f);
	r = lang && !strcmp(lang, "javascript");
	free(f);
	return r;
}

json_t *
rt_fix_plan(const char *root, const char *command, json_t *req)
{
	char *text = json_dumps(req, JSON_COMPACT), *args[2], why[1024];
	const char *status;
	rt_buf out = { 0 };
	json_error_t je;
	json_t *o, *res;
	int r;

	if (json_is_string(json_object_get(req, "kind")) &&
	    !strcmp(json_string_value(json_object_get(req, "kind")), "maprange")) {
		/* Go: go/parser in the inventory helper's binary */
		json_t *files = json_object_get(req, "files"), *f;
		size_t i, k = 0;
		char **av = rt_xcalloc(json_array_size(files) + 2, sizeof *av);
		av[k++] = "--fix-maprange";
		json_array_foreach(files, i, f)
			if (json_is_string(f))
				av[k++] = (char *)json_string_value(f);
		av[k] = NULL;
		r = rt_src_go_helper(root, av, &out, why, sizeof why);
		free(av);
	} else if (json_is_string(json_object_get(req, "kind")) &&
	    !strcmp(json_string_value(json_object_get(req, "kind")), "goorder")) {
		/* Go: each polluter's package-level vars restored by a t.Cleanup
		 * ("polluters", else the one "polluter"), the victim last */
		json_t *ps = json_object_get(req, "polluters"), *x;
		size_t i, k = 0, np = json_is_array(ps) ? json_array_size(ps) : 1;
		char **av = rt_xcalloc(np + 3, sizeof *av);
		av[k++] = "--fix-order";
		if (json_is_array(ps))
			json_array_foreach(ps, i, x)
				av[k++] = (char *)json_string_value(x);
		else
			av[k++] = (char *)json_string_value(json_object_get(req, "polluter"));
		av[k++] = (char *)json_string_value(json_object_get(req, "victim"));
		for (i = 1; i < k; i++)
			if (k < 3 || !av[i] || av[i][0] == '-') {
				free(av);
				free(text);
				return no_patch("the Go order rule needs a polluter and a victim%s%s",
				    "", NULL);
			}
		r = rt_src_go_helper(root, av, &out, why, sizeof why);
		free(av);
	} else if (is_js_order(req)) {
		/* jest: the hooks read with the project's own parser */
		args[0] = text;
		args[1] = NULL;
		r = rt_src_node_helper("rt-fix.js", root, root, args, &out, why, sizeof why);
	} else {
		args[0] = text;
		args[1] = NULL;
		r = rt_src_python_helper("rt-fix.py", root, command, NULL, args, &out, why,
		    sizeof why);
	}
	free(text);
	if (r != RT_SRC_OK) {
		rt_buf_free(&out);
		return no_patch("the fix planner failed: %s%s", why, NULL);
	}
	o = json_loadb(out.data ? out.data : "", out.len, 0, &je);
	rt_buf_free(&out);
	if (!json_is_object(o)) {
		json_decref(o);
		return no_patch("the fix planner printed no JSON object: %s%s",
		    je.text, NULL);
	}
	status = json_string_value(json_object_get(o, "status"));
	if (!status || strcmp(status, "ok") != 0) {
		const char *why2 = json_string_value(json_object_get(o, "reason"));
		res = no_patch("%s%s", why2 ? why2 : "the fix planner gave no reason", NULL);
		json_decref(o);
		return res;
	}
	if (json_is_array(json_object_get(o, "candidates"))) {
		json_t *c, *arr = json_array();
		size_t i;
		json_array_foreach(json_object_get(o, "candidates"), i, c)
			json_array_append_new(arr, checked(root, command, c));
		res = json_pack("{s:s, s:o}", "status", "ok", "candidates", arr);
	} else {
		res = checked(root, command, o);
	}
	json_decref(o);
	return res;
}

/* ---- delta debugging over a setter's or cleaner's statements ---- */

/* A probe is judged by lib/rt_ddmin's rule (rt-diagnose(1), Rule
 * patches). With the order record's two references (rt-bisect's
 * "references"), as rt-bisect judges its search probes: a pass once the
 * anytime interval of the victim's failures lies below the failing
 * reference's lower bound, decided failing once above the passing one's
 * upper bound, undecided at the references' cap. Without them, the fixed
 * rule: a pass after PROBE_PASSES passing trials in a row, decided failing
 * after RT_DDMIN_FAIL_DECIDED failing ones from its start, undecided at
 * the first outcome unlike those before; a check (rt_fix_check) then
 * runs PROBE_TRIALS trials and needs every one to pass. */
#define PROBE_TRIALS 3
#define PROBE_PASSES 8

typedef struct {
	const char *root, *command;
	json_t *req;
	const rt_fix_probe *p;
	char *scratch, *copy, *name;     /* scratch/copy/<name>: the project's copy */
	char *outer;                     /* scratch/copy */
	dev_t dev;
	ino_t ino;
	rt_sandbox sb;
	rt_trial_opts o;
	char **tests;
	int by_case;
	long trials, trialno;
	char reason[400];                /* the last probe's failure, in words */
	/* one probe */
	long passes, ran;
	int verdict;                     /* rt_ddmin_step's once it decided */
	int all;                         /* a check: run every trial */
	long undecided;                  /* probes with passing and failing trials */
	rt_cases_dir jd;
} mini;

static int
mini_skip(const struct stat *st, void *ctx)
{
	mini *m = ctx;

	if (m->p->stop && *m->p->stop)
		return -1;
	return st->st_dev == m->dev && st->st_ino == m->ino;
}

/* The trials a probe runs at most: with the order record's references,
 * their cap; else PROBE_PASSES (a check: PROBE_TRIALS), or --trials. */
static long
mini_cap(const mini *m)
{
	if (m->p->refs.have)
		return m->p->refs_cap > 0 ? m->p->refs_cap : 60;
	return m->p->trials > 0 ? m->p->trials : m->all ? PROBE_TRIALS : PROBE_PASSES;
}

/* After a trial: go on, or stop with the probe judged (lib/rt_ddmin's
 * rule, the one rt-bisect's search probes use). A check without
 * references runs every trial. */
static int
mini_next(mini *m)
{
	int v;

	if (m->all && !m->p->refs.have)
		return RT_GO_ON;
	v = rt_ddmin_step(&m->p->refs, m->ran - m->passes, m->ran, mini_cap(m));
	if (v == RT_DDMIN_MORE)
		return RT_GO_ON;
	m->verdict = v;
	return RT_STOP;
}

static int
mini_trial(const rt_trial_result *res, void *ctx)
{
	mini *m = ctx;
	rt_outcome oc = res->outcome;
	rt_case_set set;
	char why[400] = "";

	if (m->by_case) {
		memset(&set, 0, sizeof set);
		if (rt_cases_trial(&m->jd, &m->o, res, NULL, NULL, &set) < 0) {
			if (oc != RT_ERROR && oc != RT_TIMEOUT)
				oc = RT_ERROR;
			snprintf(why, sizeof why, "%s", set.error);
		} else if (oc != RT_ERROR && oc != RT_TIMEOUT) {
			oc = rt_cases_judge(&set, m->p->victim, res->trial, why, sizeof why);
		}
		rt_case_set_free(&set);
	}
	m->ran++;
	m->trials++;
	if (oc == RT_PASS) {
		m->passes++;
		return mini_next(m);
	}
	if (!why[0])
		rt_error_reason(why, sizeof why, res->trial, res->error, res->err.data);
	/* the probe's first failure says why */
	if (m->ran - m->passes == 1)
		snprintf(m->reason, sizeof m->reason, "%s %s in trial %ld%s%.300s",
	    m->p->victim, oc == RT_FAIL ? "failed" : oc == RT_TIMEOUT ? "timed out" :
	    "did not run", res->trial, why[0] && oc != RT_FAIL ? ": " : "",
	    oc != RT_FAIL ? why : "");
	return mini_next(m);
}

/* The planner's patch for the statements idx[0..n), in a fresh copy,
 * the probe's tests run: 1 the victim passed every trial, 0 it failed
 * every one (or the patch could not be made), 2 some of each (rt_ddmin's
 * undecided), -1 stop. */
static int mini_run(mini *m, const char *patch);

static int
mini_probe(const size_t *idx, size_t n, void *ctx)
{
	mini *m = ctx;
	json_t *req = json_deep_copy(m->req), *keep = json_array(), *plan;
	size_t i;
	int r;

	for (i = 0; i < n; i++)
		json_array_append_new(keep, json_integer((json_int_t)idx[i]));
	json_object_set_new(req, "keep", keep);
	plan = rt_fix_plan(m->root, m->command, req);
	json_decref(req);
	if (strcmp(json_string_value(json_object_get(plan, "status")), "ok") != 0) {
		snprintf(m->reason, sizeof m->reason, "%s",
		    json_string_value(json_object_get(plan, "reason")));
		json_decref(plan);
		return 0;
	}
	r = mini_run(m, json_string_value(json_object_get(plan, "patch")));
	json_decref(plan);
	if (r == 2)
		m->undecided++;
	return r;
}

/* patch applied in a fresh copy, the probe's tests run: 1 the victim
 * passed (every trial, or as the references judge), 0 decided failing
 * (or the patch could not be made), 2 undecided, -1 stop. */
static int
mini_run(mini *m, const char *patch)
{
	char err[512], *jdir = NULL;
	int sig, r = 0;

	m->passes = m->ran = 0;
	m->verdict = 2;
	rt_remove_tree(m->copy);
	if (rt_copy_tree(m->root, m->copy, mini_skip, m, err, sizeof err) < 0) {
		if (m->p->stop && *m->p->stop)
			return -1;
		snprintf(m->reason, sizeof m->reason, "cannot copy the project: %.300s", err);
		return -1;
	}
	if (rt_patch_apply(m->copy, patch, err, sizeof err) < 0) {
		snprintf(m->reason, sizeof m->reason, "the patch does not apply: %.300s", err);
		return 0;
	}
	if (rt_sandbox_own(&m->sb, m->copy) < 0) {
		snprintf(m->reason, sizeof m->reason, "cannot hand the copy to the "
		    "sandbox's uid: %s", strerror(errno));
		return -1;
	}
	m->o.cwd = m->copy;
	m->o.junit_dir = NULL;
	if (m->by_case) {
		jdir = rt_xasprintf("%s/junit.XXXXXX", m->scratch);
		if (!mkdtemp(jdir) || rt_cases_dir_open(&m->jd, jdir) < 0 ||
		    rt_sandbox_own(&m->sb, jdir) < 0) {
			snprintf(m->reason, sizeof m->reason, "%s: %s", jdir, strerror(errno));
			free(jdir);
			return -1;
		}
		m->o.junit_dir = jdir;
	}
	sig = rt_run_trials(&m->o, m->trialno + 1, mini_cap(m), 1, mini_trial, m);
	m->trialno += m->ran;
	if (jdir) {
		rt_cases_dir_close(&m->jd);
		rt_remove_tree(jdir);
		free(jdir);
	}
	if (sig || (m->p->stop && *m->p->stop))
		r = -1;
	else if (m->ran == 0)
		r = 0;
	else if (m->all && !m->p->refs.have)
		r = m->passes == m->ran;
	else
		r = m->verdict;
	return r;
}

/* The record's command with the tests where it takes them: '{}' (the
 * argv form's word) or "$@" (--cmd's), else at its end. */
static char *
probe_command(const char *cmd)
{
	const char *b = strstr(cmd, "'{}'");
	size_t k = 4;

	if (!b && (b = strstr(cmd, " {}")) && (b[3] == '\0' || b[3] == ' ')) {
		b++;
		k = 2;
	}
	if (b)
		return rt_xasprintf("%.*s\"$@\"%s", (int)(b - cmd), cmd, b + k);
	if (strstr(cmd, "$@") || strstr(cmd, "$*"))
		return rt_xstrdup(cmd);
	return rt_xasprintf("%s \"$@\"", cmd);
}

static json_t *
mini_record(const mini *m, size_t k, size_t of, const rt_ddmin_opts *d, long probes)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:b, s:s, s:I}", "statements", (json_int_t)k,
	    "of", (json_int_t)of, "probes", (json_int_t)probes, "trials",
	    (json_int_t)m->trials, "minimal", d ? d->minimal : 0, "judged_by",
	    m->by_case ? "case" : "exit", "undecided", (json_int_t)m->undecided);
}

/* The scratch copy's place, the sandbox and the command the probes share;
 * NULL, else a no_patch with the reason (mini_close it either way). */
static json_t *
mini_open(mini *m, const char *root, const char *command, json_t *req,
    const rt_fix_probe *p)
{
	const char *tmp = getenv("TMPDIR"), *slash;
	json_t *res, *t;
	char why[400];
	struct stat st;
	size_t i;

	memset(m, 0, sizeof *m);
	m->root = root;
	m->command = command;
	m->req = req;
	m->p = p;
	m->scratch = rt_xasprintf("%s/rt-diagnose-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(m->scratch)) {
		res = no_patch("a scratch directory: %s%s", strerror(errno), NULL);
		return res;
	}
	if (stat(m->scratch, &st) == 0) {
		m->dev = st.st_dev;
		m->ino = st.st_ino;
	}
	slash = strrchr(root, '/');
	m->name = rt_xstrdup(slash && slash[1] ? slash + 1 : "project");
	m->outer = rt_xasprintf("%s/copy", m->scratch);
	m->copy = rt_xasprintf("%s/%s", m->outer, m->name);
	/* every probe confined to its copy, as the tournament's trials are */
	if (rt_sandbox_init(&m->sb, RT_SANDBOX_WANT_AUTO, 0, m->scratch) < 0 ||
	    chmod(m->scratch, rt_sandbox_dir_mode(&m->sb, m->scratch)) < 0 ||
	    mkdir(m->outer, rt_sandbox_dir_mode(&m->sb, m->scratch)) < 0) {
		res = no_patch("the probes' sandbox: %s%s", m->sb.why[0] ? m->sb.why :
		    strerror(errno), NULL);
		return res;
	}
	if (m->sb.kind == RT_SANDBOX_NONE)
		rt_warn("warning: delta debugging's probes run unconfined (%s)", m->sb.why);
	rt_trial_opts_init(&m->o);
	m->o.shell_cmd = probe_command(p->command);
	m->tests = rt_xcalloc(json_array_size(p->order) + 1, sizeof *m->tests);
	json_array_foreach(p->order, i, t)
		m->tests[i] = (char *)json_string_value(t);
	m->o.shell_args = m->tests;
	m->o.runner = rt_runner_detect(m->o.shell_cmd, NULL);
	m->o.timeout_s = 600;
	m->o.jobs = 1;
	m->o.sandbox = &m->sb;
	m->by_case = rt_cases_auto(&m->o, why, sizeof why) == 0;

	return NULL;
}

/* How the probes were judged, in words (the note and rt-diagnose(1)). */
static char *
rule_words(const mini *m)
{
	const rt_ddmin_refs *r = &m->p->refs;

	if (r->have)
		return rt_xasprintf("each probe judged by the victim's %s against the order "
		    "record's two references, as rt-bisect judges its probes: a pass once "
		    "its anytime %g%% interval lies below %.1f%%, a failure once above "
		    "%.1f%%, undecided after %ld trials", m->by_case ? "own case" :
		    "exit status", 100 * r->conf, 100 * r->fail_lo, 100 * r->pass_hi,
		    mini_cap(m));
	return rt_xasprintf("each probe judged by the victim's %s: a pass after %ld "
	    "passing trials, decided failing after %d failing ones; the order record "
	    "carried no references", m->by_case ? "own case" : "exit status",
	    mini_cap(m), RT_DDMIN_FAIL_DECIDED);
}

static void
mini_close(mini *m)
{
	if (m->scratch)
		rt_remove_tree(m->scratch);
	free(m->outer);
	free(m->copy);
	free(m->name);
	free(m->scratch);
	free(m->tests);
	free((char *)m->o.shell_cmd);
}

json_t *
rt_fix_minimise(const char *root, const char *command, json_t *req, const rt_fix_probe *p)
{
	json_t *all, *res = NULL, *keep;
	rt_ddmin_opts d = { 0 };
	size_t of, k, i, *idx = NULL;
	const char *role = json_string_value(json_object_get(req, "role"));
	mini m;
	int r;

	all = rt_fix_plan(root, command, req);
	if (strcmp(json_string_value(json_object_get(all, "status")), "ok") != 0 ||
	    !json_array_size(json_object_get(all, "statements")))
		return all;
	of = json_array_size(json_object_get(all, "statements"));
	if (!p->command || !json_array_size(p->order)) {
		json_decref(all);
		return no_patch("the order record names no command to run the victim "
		    "with, so the %s's statements cannot be narrowed down%s",
		    role ? role : "helper", NULL);
	}
	if (p->max_probes < 1) {
		json_decref(all);
		res = no_patch("the delta-debugging budget (--max-probes %s) ran out before "
		    "a subset of the statements was seen to make the victim pass%s", "0", NULL);
		return res;
	}
	if ((res = mini_open(&m, root, command, req, p)) != NULL)
		goto done;
	/* all the statements first: ddmin starts from a passing set */
	idx = rt_xcalloc(of, sizeof *idx);
	for (i = 0; i < of; i++)
		idx[i] = i;
	r = mini_probe(idx, of, &m);
	if (r != 1) {
		char n[32];
		snprintf(n, sizeof n, "%zu", of);
		res = r < 0 && m.reason[0] ? no_patch("the probes could not run: %s%s",
		    m.reason, NULL) : r < 0 ? no_patch("interrupted%s%s", "", NULL) :
		    no_patch("with all %s of its statements run first, the victim still does "
		    "not pass: %s", n, m.reason);
		json_object_set_new(res, "minimise", mini_record(&m, 0, of, NULL, 1));
		goto done;
	}
	d.max_probes = p->max_probes - 1;
	k = rt_ddmin(of, mini_probe, &m, &d, idx);
	if (d.stopped && (!p->stop || !*p->stop) && m.reason[0]) {
		res = no_patch("the probes could not run: %s%s", m.reason, NULL);
		json_object_set_new(res, "minimise", mini_record(&m, k, of, &d, d.probes + 1));
		goto done;
	}
	keep = json_array();
	for (i = 0; i < k; i++)
		json_array_append_new(keep, json_integer((json_int_t)idx[i]));
	{
		json_t *q = json_deep_copy(req);
		json_object_set(q, "keep", keep);
		res = rt_fix_plan(root, command, q);
		json_decref(q);
	}
	json_object_set_new(res, "keep", keep);
	json_object_set_new(res, "minimise", mini_record(&m, k, of, &d, d.probes + 1));
	{
		char *rule = rule_words(&m);
		char *u = rt_xasprintf("; not shown 1-minimal: %ld of the subsets one "
		    "smaller were undecided (%s)", d.undecided, rule);
		free(rule);
		char *e = rt_xasprintf("Delta debugging kept %zu of the %zu statements "
		    "(%ld probes, %ld trials%s).", k, of, d.probes + 1, m.trials,
		    d.minimal ? "" : d.budget_out || d.stopped ? "; the budget ran out "
		    "before the subset was 1-minimal" : u);
		free(u);
		json_object_set_new(res, "note", json_string(e));
		free(e);
	}
done:
	json_decref(all);
	mini_close(&m);
	free(idx);
	return res;
}

json_t *
rt_fix_check(const char *root, const char *command, json_t *req, const rt_fix_probe *p,
    const char *what)
{
	json_t *plan, *res;
	const char *polluter = json_string_value(json_object_get(req, "helper"));
	mini m;
	int r;

	plan = rt_fix_plan(root, command, req);
	if (strcmp(json_string_value(json_object_get(plan, "status")), "ok") != 0)
		return plan;
	if (p->max_probes < 1) {
		json_object_set_new(plan, "checked", json_pack("{s:i, s:i}", "trials", 0,
		    "failures", 0));
		json_object_set_new(plan, "note", json_string("Not checked: --max-probes 0 "
		    "allows no probe, so the patch was not run."));
		return plan;
	}
	if (!p->command || !json_array_size(p->order)) {
		json_decref(plan);
		return no_patch("the order record names no command to run the victim "
		    "with, so the reset of %s cannot be checked%s", what, NULL);
	}
	if ((res = mini_open(&m, root, command, req, p)) != NULL) {
		json_decref(plan);
		mini_close(&m);
		return res;
	}
	m.all = 1;
	r = mini_run(&m, json_string_value(json_object_get(plan, "patch")));
	if (r < 0 || m.ran == 0) {
		res = m.reason[0] && (!p->stop || !*p->stop) ?
		    no_patch("the check could not run: %s%s", m.reason, NULL) :
		    no_patch("interrupted%s%s", "", NULL);
	} else if (p->refs.have ? r != 1 : m.passes < m.ran) {
		char n[64];
		snprintf(n, sizeof n, "%ld/%ld", m.ran - m.passes, m.ran);
		char *e = r == 2 ? rt_xasprintf("the reset of %s was not shown to make %s "
		    "pass after %s: %s failed, undecided (%s)", what, p->victim, polluter ?
		    polluter : "its polluter", n, m.reason[0] ? m.reason : "no failure") :
		    rt_xasprintf("the reset of %s did not make %s pass after "
		    "%s: %s failed (%s)", what, p->victim, polluter ? polluter :
		    "its polluter", n, m.reason);
		res = json_pack("{s:s, s:s}", "status", "no_patch", "reason", e);
		free(e);
	} else {
		char *rule = p->refs.have ? rule_words(&m) : NULL;
		char *e = rt_xasprintf("Checked: with the patch, %s passed after %s in "
		    "%ld of %ld trials%s%s%s.", p->victim, polluter ? polluter : "its polluter",
		    m.passes, m.ran, rule ? " (" : "", rule ? rule : "", rule ? ")" : "");
		free(rule);
		res = plan;
		plan = NULL;
		json_object_set_new(res, "note", json_string(e));
		free(e);
	}
	if (res)
		json_object_set_new(res, "checked", json_pack("{s:I, s:I, s:s}", "trials",
		    (json_int_t)m.ran, "failures", (json_int_t)(m.ran - m.passes),
		    "judged_by", m.by_case ? "case" : "exit"));
	json_decref(plan);
	mini_close(&m);
	return res;
}
