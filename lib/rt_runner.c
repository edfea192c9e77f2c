/* rt_runner: the table of runners and what every runner shares — finding
 * one in a command, and the dispatchers tools call; each runner's own
 * knowledge is its file under lib/runner/. */
#include <sys/stat.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_runner.h"
#include "rt_util.h"
#include "runner/runner.h"

/* The table, by kind; a new runner is one file, one kind and one line here. */
static const rt_runner *const table[RT_RUNNER_NKINDS] = {
	[RT_RUNNER_GENERIC] = &rt_runner_generic, [RT_RUNNER_PYTEST] = &rt_runner_pytest,
	[RT_RUNNER_UNITTEST] = &rt_runner_unittest, [RT_RUNNER_PYTHON] = &rt_runner_python,
	[RT_RUNNER_GO] = &rt_runner_go, [RT_RUNNER_JEST] = &rt_runner_jest,
	[RT_RUNNER_VITEST] = &rt_runner_vitest, [RT_RUNNER_MOCHA] = &rt_runner_mocha,
	[RT_RUNNER_RSPEC] = &rt_runner_rspec,
	[RT_RUNNER_SCRIPT] = &rt_runner_script,
};

const rt_runner *
rt_runner_builder(const char *rel)
{
	size_t n = strlen(rel), l;
	int k;

	for (k = 0; k < RT_RUNNER_NKINDS; k++) {
		const char *const *e = table[k] ? table[k]->build_ends : NULL;
		for (; e && *e; e++)
			if ((l = strlen(*e)) < n && !strcmp(rel + n - l, *e))
				return table[k];
	}
	return NULL;
}

const rt_runner *
rt_runner_of(rt_runner_kind k)
{
	return (unsigned)k < RT_RUNNER_NKINDS && table[k] ? table[k] : &rt_runner_generic;
}

const rt_runner *
rt_runner_named(const char *name)
{
	size_t i;

	for (i = 0; i < RT_RUNNER_NKINDS; i++)
		if (table[i] && !strcmp(name, table[i]->name))
			return table[i];
	return NULL;
}

const rt_runner *
rt_runner_of_module(const char *module)
{
	size_t i;

	for (i = 0; i < RT_RUNNER_NKINDS; i++)
		if (table[i] && table[i]->modules && rt_rn_word_in(module, table[i]->modules))
			return table[i];
	return NULL;
}

const char *
rt_runner_kind_name(rt_runner_kind k)
{
	return rt_runner_of(k)->name;
}

int
rt_runner_kind_parse(const char *name, rt_runner_kind *k)
{
	const rt_runner *r = rt_runner_named(name);

	if (!r)
		return -1;
	*k = r->kind;
	return 0;
}

const char *
rt_runner_kind_list(void)
{
	static char list[256];
	size_t i, n = 0;

	if (!*list) {
		/* the generic runner last: it is the fallback */
		for (i = 1; i <= RT_RUNNER_NKINDS; i++) {
			const rt_runner *r = table[i % RT_RUNNER_NKINDS];
			if (r)
				n += (size_t)snprintf(list + n, sizeof list - n, "%s%s",
				    n ? ", " : "", r->name);
		}
	}
	return list;
}

/* ---- the helpers of lib/runner/ ---- */

const char *
rt_rn_base(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

int
rt_rn_is_assignment(const char *w)
{
	const char *eq = strchr(w, '=');

	return eq && eq != w && (isalpha((unsigned char)*w) || *w == '_') &&
	    (size_t)(eq - w) < strcspn(w, "/");
}

int
rt_rn_ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

int
rt_rn_word_in(const char *w, const char *const *list)
{
	size_t i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(w, list[i]))
			return 1;
	return 0;
}

int
rt_rn_is_file(const char *dir, const char *rel)
{
	struct stat st;
	char *p = dir && *dir ? rt_xasprintf("%s/%s", dir, rel) : rt_xstrdup(rel);
	int r = stat(p, &st) == 0 && S_ISREG(st.st_mode);

	free(p);
	return r;
}

int
rt_rn_memmem_line(const char *p, size_t len, const char *needle)
{
	size_t m = strlen(needle), i;

	for (i = 0; i + m <= len; i++)
		if (!memcmp(p + i, needle, m))
			return 1;
	return 0;
}

const char *
rt_rn_line_with(const char *text, const char *needle, char *buf, size_t size)
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
	/* the line as a person reads it: a runner's colours (ESC [ ... m,
	 * which mocha and jest print when CI=true) dropped */
	for (len = 0; s < e && len + 1 < size; s++) {
		if (*s == '\033' && s + 1 < e && s[1] == '[') {
			for (s += 2; s < e && !isalpha((unsigned char)*s); s++)
				;
			continue;
		}
		buf[len++] = *s;
	}
	buf[len] = '\0';
	return buf;
}

const char *
rt_rn_find_line(const char *out, const char *err, const char *const *needles,
    char *buf, size_t size)
{
	size_t i;

	for (i = 0; needles[i]; i++)
		if (rt_rn_line_with(err, needles[i], buf, size) ||
		    rt_rn_line_with(out, needles[i], buf, size))
			return buf;
	return NULL;
}

int
rt_rn_say(char *why, size_t size, const char *what, const char *line)
{
	if (line && *line)
		snprintf(why, size, "%s: %s", what, line);
	else
		snprintf(why, size, "%s", what);
	return 1;
}

int
rt_rn_opt_takes_value(const char *o, const char *const *list)
{
	return !strchr(o, '=') && rt_rn_word_in(o, list);
}

void
rt_rn_sel_add(rt_runner_sel *out, size_t *n, size_t max, rt_runner_kind r, rt_sel_kind k,
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

char *
rt_rn_trimmed(const char *s)
{
	const char *e;

	while (*s && isspace((unsigned char)*s))
		s++;
	for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--)
		;
	return rt_xasprintf("%.*s", (int)(e - s), s);
}

int
rt_rn_retry_word(char **w, size_t n, const char *const *opts, char *opt, size_t size)
{
	size_t i, j, k;
	const char *v;

	for (i = 0; i < n; i++)
		for (j = 0; opts && opts[j]; j++) {
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

const char *
rt_rn_outcome_of(const char *status, const char **result)
{
	static const struct { const char *status, *outcome, *result; } map[] = {
		{ "passed", "pass", "success" }, { "focused", "pass", "success" },
		{ "failed", "fail", "failure" }, { "pending", "skip", "skipped" },
		{ "skipped", "skip", "skipped" }, { "todo", "skip", "skipped" },
		{ "disabled", "skip", "skipped" },
	};
	size_t i;

	for (i = 0; status && i < sizeof map / sizeof *map; i++)
		if (!strcmp(status, map[i].status)) {
			*result = map[i].result;
			return map[i].outcome;
		}
	return NULL;
}

void
rt_rn_cap_text(rt_buf *b, size_t limit)
{
	size_t n = limit, lost;

	if (b->len <= limit)
		return;
	while (n > 0 && ((unsigned char)b->data[n] & 0xc0) == 0x80)
		n--;
	lost = b->len - n;
	b->len = n;
	rt_buf_printf(b, "\n[retrial: %zu more bytes not kept]", lost);
}

/* ---- commands ---- */

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

/* The words of a shell command or a copy of an argv (each malloc'd). */
static size_t
cmd_words(const char *shell_cmd, char *const *argv, char **w, size_t max)
{
	size_t n = 0;

	if (shell_cmd)
		return rt_cmd_split(shell_cmd, w, max);
	for (; argv && argv[n] && n < max; n++)
		w[n] = rt_xstrdup(argv[n]);
	return n;
}

void
rt_cmd_locate(char **w, size_t from, size_t to, rt_cmd_loc *loc)
{
	/* wrappers passed over, alone or with the word after them */
	static const char *const pass[] = {
		"env", "nice", "exec", "command", "xvfb-run", "run", "npx", "yarn", "pnpm",
		"bunx", NULL
	};
	static const char *const pass2[] = {
		"timeout", "uv", "poetry", "pipenv", "hatch", "bundle", NULL
	};
	size_t i = from, j, k;
	const char *b;

	memset(loc, 0, sizeof *loc);
	loc->kind = RT_RUNNER_GENERIC;
	while (i < to && rt_rn_is_assignment(w[i]))
		i++;
	while (i < to) {
		b = rt_rn_base(w[i]);
		if (rt_rn_word_in(b, pass) || rt_rn_is_assignment(w[i]) || w[i][0] == '-' ||
		    isdigit((unsigned char)w[i][0]))
			i++;
		else if (rt_rn_word_in(b, pass2) && i + 1 < to)
			i++;
		else
			break;
	}
	if (i >= to)
		return;
	b = rt_rn_base(w[i]);
	loc->target = i;
	loc->args = i + 1;
	for (k = 0; k < RT_RUNNER_NKINDS; k++) {
		const rt_runner *r = table[k];
		if (!r)
			continue;
		if (r->locate) {
			if (r->locate(w, i, to, loc))
				return;
			continue;
		}
		if (!rt_rn_word_in(b, r->words))
			continue;
		if (r->subcommand) {
			if (i + 1 >= to || strcmp(w[i + 1], r->subcommand))
				continue;
			loc->args = i + 2;
		}
		loc->kind = r->kind;
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
	size_t n = cmd_words(shell_cmd, argv, w, sizeof w / sizeof *w), i = 0, seg;
	rt_cmd_loc loc = { RT_RUNNER_GENERIC, 0, 0, 0 };
	rt_runner_kind k = RT_RUNNER_GENERIC;

	while (i < n) {
		for (seg = i; seg < n && strcmp(w[seg], ";"); seg++)
			;
		rt_cmd_locate(w, i, seg, &loc);
		if (loc.kind != RT_RUNNER_GENERIC && (k == RT_RUNNER_GENERIC ||
		    !rt_runner_of(loc.kind)->fallback))
			k = loc.kind;
		if (k != RT_RUNNER_GENERIC && !rt_runner_of(k)->fallback)
			break;
		i = seg + 1;
	}
	for (i = 0; i < n; i++)
		free(w[i]);
	return k;
}

int
rt_runner_not_run(rt_runner_kind k, int code, const char *out, const char *err,
    char *why, size_t size)
{
	const rt_runner *r = rt_runner_of(k);

	return r->not_run ? r->not_run(code, out, err, why, size) : 0;
}

char *
rt_runner_junit_id(const char *suite, const char *classname, const char *name,
    const char *file, const char *dir)
{
	char *cls = rt_rn_trimmed(classname ? classname : ""), *nm = rt_rn_trimmed(name ? name : "");
	char *id = NULL;
	size_t k;

	for (k = 0; k < RT_RUNNER_NKINDS && !id; k++)
		if (table[k] && table[k]->junit_claims && table[k]->junit_id &&
		    table[k]->junit_claims(suite, cls, file))
			id = table[k]->junit_id(cls, nm, file, dir);
	if (!id)
		id = *cls && strcmp(cls, nm) != 0 ? rt_xasprintf("%s::%s", cls, nm) : rt_xstrdup(nm);
	free(cls);
	free(nm);
	return id;
}

rt_runner_kind
rt_runner_junit_fileless(const char *root, const char *suite, const char *classname,
    const char *name)
{
	size_t k;

	for (k = 0; k < RT_RUNNER_NKINDS; k++)
		if (table[k] && table[k]->junit_fileless && table[k]->junit_suite_file &&
		    table[k]->junit_fileless(root, suite, classname, name))
			return (rt_runner_kind)k;
	return RT_RUNNER_GENERIC;
}

char *
rt_runner_junit_suite_file(rt_runner_kind k, char *const *names, size_t n, const char *dir,
    void **state, char *why, size_t size)
{
	const rt_runner *r = rt_runner_of(k);

	*why = '\0';
	return r->junit_suite_file ? r->junit_suite_file(names, n, dir, state, why, size) : NULL;
}

int
rt_runner_hidden_retries(rt_runner_kind k, const char *shell_cmd, char *const *argv,
    char *msg, size_t size)
{
	const rt_runner *r = rt_runner_of(k), *q;
	char *w[512], *sub[64], opt[80];
	const char *env;
	size_t n = cmd_words(shell_cmd, argv, w, sizeof w / sizeof *w), m, i, j;
	const rt_runner *hit = NULL;

	/* the runner's own retry options, then those of any runner whose
	 * option variable the command assigns (PYTEST_ADDOPTS="--reruns 2") */
	if (r->retry_opts && rt_rn_retry_word(w, n, r->retry_opts, opt, sizeof opt))
		hit = r;
	for (j = 0; j < RT_RUNNER_NKINDS && !hit; j++) {
		q = table[j];
		if (!q || !q->retry_var)
			continue;
		if (q != r && rt_rn_retry_word(w, n, q->retry_opts, opt, sizeof opt)) {
			hit = q;    /* tox -e py -- --reruns 2 */
			break;
		}
		for (i = 0; i < n && !hit; i++) {
			size_t vl = strlen(q->retry_var);
			if (strncmp(w[i], q->retry_var, vl) || w[i][vl] != '=')
				continue;
			m = rt_cmd_split(w[i] + vl + 1, sub, sizeof sub / sizeof *sub);
			if (rt_rn_retry_word(sub, m, q->retry_opts, opt, sizeof opt))
				hit = q;
			while (m)
				free(sub[--m]);
		}
	}
	for (i = 0; i < n; i++)
		free(w[i]);
	if (!hit && r->retry_var && (env = getenv(r->retry_var))) {
		m = rt_cmd_split(env, sub, sizeof sub / sizeof *sub);
		if (rt_rn_retry_word(sub, m, r->retry_opts, opt, sizeof opt)) {
			hit = r;
			snprintf(opt + strlen(opt), sizeof opt - strlen(opt), " in $%s", r->retry_var);
		}
		while (m)
			free(sub[--m]);
	}
	if (!hit)
		return 0;
	/* retry_msg: "vitest retries failed tests (%s): a retry" */
	snprintf(msg, size, hit->retry_msg, opt);
	snprintf(msg + strlen(msg), size - strlen(msg), " that passes hides a failure, and "
	    "retrial counts only the final outcome; drop %.*s to measure the real rate",
	    (int)strcspn(opt, " "), opt);
	return 1;
}

const char *
rt_runner_report_kinds(void)
{
	static char text[512];
	const char *what[RT_RUNNER_NKINDS];
	size_t k, n = 0, len;

	if (*text)
		return text;
	for (k = 0; k < RT_RUNNER_NKINDS; k++)
		if (table[k] && table[k]->report_what)
			what[n++] = table[k]->report_what;
	len = (size_t)snprintf(text, sizeof text, "neither JUnit XML (no \"<\")");
	for (k = 0; k < n && len < sizeof text; k++)
		len += (size_t)snprintf(text + len, sizeof text - len, "%s%s",
		    k + 1 == n ? " nor " : ", ", what[k]);
	return text;
}

int
rt_runner_quar_hides(const char *outcome, const char *failure_type)
{
	size_t k;

	if (!outcome || strcmp(outcome, "skip") || !failure_type)
		return 0;
	for (k = 0; k < RT_RUNNER_NKINDS; k++)
		if (table[k] && table[k]->quar_skip && !strcmp(failure_type, table[k]->quar_skip))
			return 1;
	return 0;
}

const rt_seed_opt *
rt_seed_opt_at(size_t i)
{
	const rt_seed_opt *o;
	size_t k;

	for (k = 0; k < RT_RUNNER_NKINDS; k++)
		for (o = table[k] ? table[k]->seeds : NULL; o && o->name; o++)
			if (i-- == 0)
				return o;
	return NULL;
}

const rt_seed_opt *
rt_seed_opt_named(const char *name)
{
	const rt_seed_opt *o;
	size_t i;

	for (i = 0; (o = rt_seed_opt_at(i)); i++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

const char *const *
rt_seed_names(void)
{
	static const char *names[64];
	const rt_seed_opt *o;
	size_t i, j, n = 0;

	if (names[0])
		return names;
	for (i = 0; (o = rt_seed_opt_at(i)) && n + 1 < sizeof names / sizeof *names; i++) {
		for (j = 0; j < n && strcmp(names[j], o->name); j++)
			;
		if (j == n)
			names[n++] = o->name;
	}
	return names;
}

char *
rt_seed_conflict(const char *runner, const char *shell_cmd, char *const *argv)
{
	const rt_seed_opt *pin = rt_seed_opt_named(runner);
	char *w[512], *hit = NULL;
	size_t n, i, j, k, vl;

	if (!pin)
		return NULL;
	n = cmd_words(shell_cmd, argv, w, sizeof w / sizeof *w);
	vl = pin->var ? strlen(pin->var) : 0;
	for (i = 0; i < n && !hit; i++) {
		for (j = 0; pin->conflicts && pin->conflicts[j] && !hit; j++) {
			k = strlen(pin->conflicts[j]);
			if (!strncmp(w[i], pin->conflicts[j], k) && (!w[i][k] || w[i][k] == '='))
				hit = rt_xstrdup(w[i]);
		}
		if (hit)
			break;
		if (vl && !strncmp(w[i], pin->var, vl) && w[i][vl] == '=' &&
		    rt_rn_is_assignment(w[i]))
			hit = rt_xstrdup(w[i]);
		else if (pin->plugin && i + 1 < n && !strcmp(w[i], "-p") &&
		    !strncmp(w[i + 1], "no:", 3) && !strcmp(w[i + 1] + 3, pin->plugin))
			hit = rt_xasprintf("-p %s", w[i + 1]);
		else if (pin->plugin && !strncmp(w[i], "-pno:", 5) && !strcmp(w[i] + 5, pin->plugin))
			hit = rt_xstrdup(w[i]);
	}
	for (i = 0; i < n; i++)
		free(w[i]);
	return hit;
}

size_t
rt_runner_selections(char **w, size_t n, rt_runner_sel *out, size_t max)
{
	size_t i = 0, seg, nseg = 0, k = 0;
	const rt_runner *r;
	rt_cmd_loc L;

	while (i < n) {
		for (seg = i; seg < n && strcmp(w[seg], ";"); seg++)
			;
		rt_cmd_locate(w, i, seg, &L);
		r = rt_runner_of(L.kind);
		if (L.kind == RT_RUNNER_PYTHON)
			/* python FILE.py, python -m MODULE: the file or module */
			rt_rn_sel_add(out, &k, max, RT_RUNNER_PYTHON, L.target > i &&
			    !strcmp(w[L.target - 1], "-m") ? RT_SEL_DOTTED : RT_SEL_PATH,
			    w[L.target], nseg);
		else if (r->selections)
			r->selections(w + L.args, seg - L.args, out, &k, max, nseg);
		else if (L.kind == RT_RUNNER_GENERIC && L.dashdash)
			/* tox -e py -- tests/x.py::t, make test ARGS=...: what follows -- */
			rt_rn_sel_pytest(w + L.dashdash, seg - L.dashdash, out, &k, max, nseg);
		nseg++;
		i = seg + 1;
	}
	return k < max ? k : max;
}

/* "FILE::name" is selectable when FILE is in the tree. */
static int
file_selectable(const char *id, const char *dir, char **missing)
{
	char *f = rt_rn_id_file(id);
	int ok = rt_rn_is_file(dir, f);

	*missing = ok ? NULL : f;
	if (ok)
		free(f);
	return ok;
}

char *
rt_runner_record_id(rt_runner_kind k, const char *name, const char *classname,
    const char *jname, const char *suite, const char *dir, char *why, size_t size)
{
	const rt_runner *r = rt_runner_of(k);

	if (k == RT_RUNNER_GENERIC && suite)
		for (k = 0; k < RT_RUNNER_NKINDS; k++)
			if (table[k] && !strcmp(suite, table[k]->name)) {
				r = table[k];
				break;
			}
	if (r->record_id)
		return r->record_id(name, classname, jname, dir, why, size);
	if (r->file_ids) {
		char *try[1] = { (char *)name };
		return rt_rn_pick_id(r, try, 1, name, file_selectable, "", dir, why, size);
	}
	return rt_xstrdup(name);
}

char *
rt_rn_pick_id(const rt_runner *r, char **try, size_t n, const char *name,
    int (*selectable)(const char *, const char *, char **), const char *what,
    const char *dir, char *why, size_t size)
{
	char *missing = NULL, *last = NULL, *id = NULL;
	size_t i;

	for (i = 0; i < n && !id; i++) {
		if (selectable(try[i], dir, &missing))
			id = rt_xstrdup(try[i]);
		else {
			free(last);
			last = strcmp(try[i], name) ? rt_xasprintf("%s is not a %sfile in the tree "
			    "(%s reads as %s)", missing, what, name, try[i]) :
			    rt_xasprintf("%s is not a %sfile in the tree", missing, what);
		}
		free(missing);
		missing = NULL;
	}
	if (!id)
		snprintf(why, size, "%s cannot select it: %s", r->name, last);
	free(last);
	return id;
}

char *
rt_rn_id_file(const char *id)
{
	const char *c = strstr(id, "::");

	return c ? rt_xasprintf("%.*s", (int)(c - id), id) : rt_xstrdup(id);
}

int
rt_runner_boilerplate(rt_runner_kind k, const char *w, size_t n)
{
	const char *const *b = rt_runner_of(k)->boilerplate;

	for (; b && *b; b++)
		if (strlen(*b) == n && memcmp(*b, w, n) == 0)
			return 1;
	return 0;
}
