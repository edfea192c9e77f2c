/* rt_goorder: ordered runs for go test — a driver test in a scratch copy
 * of the module calls the named tests in order, as t.Run subtests. */
#define _XOPEN_SOURCE 700  /* realpath(3): POSIX.1-2008, but glibc hides it */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_fs.h"
#include "rt_git.h"
#include "runner/goorder.h"
#include "rt_util.h"

/* Run go with args in dir (through sh's cd, the words never parsed by a
 * shell): its stdout (malloc'd), or NULL with the reason in why. */
static char *
go_in(const char *dir, char *const *args, char *why, size_t size)
{
	char *argv[16];
	rt_proc p;
	size_t n = 0;
	char *r, *c;

	argv[n++] = "sh";
	argv[n++] = "-c";
	argv[n++] = "cd -- \"$1\" && shift && exec \"$@\"";
	argv[n++] = "sh";
	argv[n++] = (char *)dir;
	argv[n++] = "go";
	for (; *args && n < 15; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	memset(&p, 0, sizeof p);
	if (rt_run(argv, NULL, NULL, 0, &p) < 0) {
		c = rt_proc_complaint(rt_buf_str(&p.err));
		snprintf(why, size, "go %s in %s: exit %d%s%s", argv[6], dir, p.status, *c ? ": " : "", c);
		free(c);
		rt_proc_free(&p);
		return NULL;
	}
	r = rt_xstrdup(rt_buf_str(&p.out));
	rt_proc_free(&p);
	return r;
}

/* "PKG::TestX/sub" -> "TestX" (into buf); *pkg (may be NULL) the PKG part
 * or "" (malloc'd). */
static const char *
func_of(const char *id, char *buf, size_t size, char **pkg)
{
	const char *s = strstr(id, "::"), *e;
	const char *name = id;

	while (s && strstr(s + 2, "::"))
		s = strstr(s + 2, "::");
	if (s)
		name = s + 2;
	if (pkg)
		*pkg = s ? strndup(id, (size_t)(s - id)) : rt_xstrdup("");
	e = strchr(name, '/');
	snprintf(buf, size, "%.*s", (int)(e ? (size_t)(e - name) : strlen(name)), name);
	return buf;
}

static int
is_ident(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

/* The test functions a file declares: "func TestX(NAME *testing.T)" at the
 * start of a line, appended to *v. */
static void
scan_tests(const char *path, char ***v, size_t *n)
{
	char *text = rt_read_file(path, NULL), *line, *next, *e;

	if (!text)
		return;
	for (line = text; line; line = next) {
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		if (strncmp(line, "func Test", 9) != 0)
			continue;
		line += 5;
		if (!(e = strchr(line, '(')) || !strstr(e, "*testing.T)"))
			continue;
		*e = '\0';
		if (!is_ident(line) || !strcmp(line, RT_GOORDER_TEST))
			continue;
		*v = rt_xrealloc(*v, (*n + 1) * sizeof **v);
		(*v)[(*n)++] = rt_xstrdup(line);
	}
	free(text);
}

static int
has(char **v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

static void
free_names(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void
drop_pkg(rt_goorder *t)
{
	free(t->pkgdir);
	free(t->importpath);
	free(t->name);
	free_names(t->intern, t->nintern);
	free_names(t->extern_, t->nextern);
}

/* One go list line: DIR \t IMPORTPATH \t NAME \t TESTFILES \t XTESTFILES,
 * the files separated by "|". */
static void
take_pkg(rt_goorder *g, char *line)
{
	char *f[5], *p, *file, *next;
	int i, k;

	for (i = 0, p = line; i < 5; i++) {
		f[i] = p;
		if (i < 4) {
			if (!(p = strchr(p, '\t')))
				return;
			*p++ = '\0';
		}
	}
	g->pkgdir = rt_xstrdup(f[0]);
	g->importpath = rt_xstrdup(f[1]);
	g->name = rt_xstrdup(f[2]);
	for (k = 3; k < 5; k++)
		for (file = f[k]; file && *file; file = next) {
			char *path;
			if ((next = strchr(file, '|')))
				*next++ = '\0';
			if (!strcmp(file, RT_GOORDER_FILE))
				continue;
			path = rt_xasprintf("%s/%s", g->pkgdir, file);
			if (k == 3)
				scan_tests(path, &g->intern, &g->nintern);
			else
				scan_tests(path, &g->extern_, &g->nextern);
			free(path);
		}
}

int
rt_goorder_open(rt_goorder *g, const char *cwd, const char *victim, char *why,
    size_t size)
{
	char *envargs[] = { "env", "GOMOD", NULL };
	char *listargs[] = { "list", "-e", "-f", "{{.Dir}}\t{{.ImportPath}}\t{{.Name}}\t"
	    "{{join .TestGoFiles \"|\"}}\t{{join .XTestGoFiles \"|\"}}", NULL, NULL };
	char rcwd[PATH_MAX], rroot[PATH_MAX], fn[256], err[300];
	char *gomod, *root, *base, *pkg = NULL, *out = NULL, *line, *next;
	const char *tmpdir = getenv("TMPDIR");
	size_t n, found = 0;

	memset(g, 0, sizeof *g);
	if (!realpath(cwd ? cwd : ".", rcwd)) {
		snprintf(why, size, "%s: %s", cwd ? cwd : ".", strerror(errno));
		return -1;
	}
	if (!(gomod = go_in(rcwd, envargs, why, size)))
		return -1;
	n = strlen(gomod);
	while (n > 0 && gomod[n - 1] == '\n')
		gomod[--n] = '\0';
	/* GOPATH mode (no go.mod): the directory alone */
	root = n && strcmp(gomod, "/dev/null") ? rt_xstrdup(gomod) : NULL;
	if (root && strrchr(root, '/'))
		*strrchr(root, '/') = '\0';
	free(gomod);
	if (!root)
		root = rt_xstrdup(rcwd);
	if (!realpath(root, rroot) || strncmp(rcwd, rroot, strlen(rroot)) != 0) {
		snprintf(why, size, "%s: not inside its module %s", rcwd, root);
		free(root);
		return -1;
	}
	free(root);
	g->tmp = rt_xasprintf("%s/rt-goorder.XXXXXX", tmpdir && *tmpdir == '/' ?
	    tmpdir : "/tmp");
	if (!mkdtemp(g->tmp)) {
		snprintf(why, size, "%s: %s", g->tmp, strerror(errno));
		free(g->tmp);
		g->tmp = NULL;
		return -1;
	}
	base = strrchr(rroot, '/');
	g->copied = rt_xasprintf("%s/%s", g->tmp, base && base[1] ? base + 1 : "module");
	if (rt_copy_tree(rroot, g->copied, NULL, NULL, err, sizeof err) < 0) {
		snprintf(why, size, "copying %s: %s", rroot, err);
		return -1;
	}
	g->cwd = rt_xasprintf("%s%s", g->copied, rcwd + strlen(rroot));
	func_of(victim, fn, sizeof fn, &pkg);
	listargs[4] = *pkg ? pkg : "./...";
	out = go_in(g->cwd, listargs, why, size);
	if (!out) {
		free(pkg);
		return -1;
	}
	for (line = out; line && *line; line = next) {
		rt_goorder t;
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		memset(&t, 0, sizeof t);
		take_pkg(&t, line);
		if (t.pkgdir && (has(t.intern, t.nintern, fn) || has(t.extern_, t.nextern, fn))) {
			if (found++) {
				snprintf(why, size, "%s: declared in more than one package under "
				    "%s (%s and %s): give it as PKG::%s", fn, rcwd, g->importpath,
				    t.importpath, fn);
				drop_pkg(&t);
				free(out);
				free(pkg);
				return -1;
			}
			g->pkgdir = t.pkgdir, g->importpath = t.importpath, g->name = t.name;
			g->intern = t.intern, g->nintern = t.nintern;
			g->extern_ = t.extern_, g->nextern = t.nextern;
		} else
			drop_pkg(&t);
	}
	free(out);
	if (!found) {
		snprintf(why, size, "%s: no _test.go file of %s declares func %s(*testing.T)",
		    victim, *pkg ? pkg : "the packages under the command's directory", fn);
		free(pkg);
		return -1;
	}
	g->driver_id = *pkg ? rt_xasprintf("%s::%s", pkg, RT_GOORDER_TEST) :
	    rt_xstrdup(RT_GOORDER_TEST);
	free(pkg);
	return 0;
}

int
rt_goorder_member(const rt_goorder *g, const char *id, char *why, size_t size)
{
	char fn[256], *pkg;
	int ok = 1;

	func_of(id, fn, sizeof fn, &pkg);
	if (*pkg && strcmp(pkg, g->importpath)) {
		snprintf(why, size, "in package %s, not the victim's %s: go test runs each "
		    "package in its own process, so no order of the two is asked for",
		    pkg, g->importpath);
		ok = 0;
	} else if (!has(g->intern, g->nintern, fn) && !has(g->extern_, g->nextern, fn)) {
		snprintf(why, size, "no _test.go file of %s declares func %s(*testing.T)",
		    g->importpath, fn);
		ok = 0;
	}
	free(pkg);
	return ok;
}

/* The driver: package NAME when every test is NAME's own, else package
 * NAME_test with NAME imported (an external test package sees the
 * exported names of NAME's _test.go files). Plain Go 1.7: no generics. */
int
rt_goorder_write(const rt_goorder *g, char *const *order, char *why, size_t size)
{
	rt_buf b = { 0 };
	char fn[256], *path;
	size_t i;
	int ext = 0, in = 0, r;

	for (i = 0; order[i]; i++) {
		func_of(order[i], fn, sizeof fn, NULL);
		if (has(g->extern_, g->nextern, fn))
			ext = 1;
		else
			in = 1;
	}
	rt_buf_adds(&b, "// Code generated by rt-bisect for an ordered run; DO NOT EDIT.\n\n");
	rt_buf_printf(&b, "package %s%s\n\nimport (\n\t\"testing\"\n", g->name,
	    ext ? "_test" : "");
	if (ext && in)
		rt_buf_printf(&b, "\n\tretrialpkg \"%s\"\n", g->importpath);
	rt_buf_printf(&b, ")\n\nfunc %s(t *testing.T) {\n", RT_GOORDER_TEST);
	for (i = 0; order[i]; i++) {
		func_of(order[i], fn, sizeof fn, NULL);
		rt_buf_printf(&b, "\tt.Run(\"%s\", %s%s)\n", fn,
		    ext && !has(g->extern_, g->nextern, fn) ? "retrialpkg." : "", fn);
	}
	rt_buf_adds(&b, "}\n");
	path = rt_xasprintf("%s/%s", g->pkgdir, RT_GOORDER_FILE);
	r = rt_write_file_atomic(path, rt_buf_str(&b), b.len);
	if (r < 0)
		snprintf(why, size, "%s: %s", path, strerror(errno));
	free(path);
	rt_buf_free(&b);
	return r < 0 ? -1 : 0;
}

void
rt_goorder_map(const rt_goorder *g, rt_case_set *set)
{
	char *pre = rt_xasprintf("%s::%s/", g->importpath, RT_GOORDER_TEST);
	char *own = rt_xasprintf("%s::%s", g->importpath, RT_GOORDER_TEST);
	size_t i, k, n = strlen(pre);

	for (i = k = 0; i < set->n; i++) {
		rt_case_out c = set->v[i];
		if (!strcmp(c.id, own)) {
			free(c.id);
			free(c.message);
			continue;
		}
		if (!strncmp(c.id, pre, n)) {
			char *id = rt_xasprintf("%s::%s", g->importpath, c.id + n);
			free(c.id);
			c.id = id;
		}
		set->v[k++] = c;
	}
	set->n = k;
	free(pre);
	free(own);
}

json_t *
rt_goorder_ran(const rt_goorder *g, const char *out)
{
	json_t *ran = json_array(), *ev;
	const char *line = out, *e, *act, *test, *pkg;
	size_t plen = strlen(RT_GOORDER_TEST);
	int prefixed = strstr(g->driver_id, "::") != NULL;

	for (; line && *line; line = e ? e + 1 : NULL) {
		e = strchr(line, '\n');
		if (*line != '{')
			continue;
		ev = json_loadb(line, e ? (size_t)(e - line) : strlen(line), 0, NULL);
		act = json_string_value(json_object_get(ev, "Action"));
		test = json_string_value(json_object_get(ev, "Test"));
		pkg = json_string_value(json_object_get(ev, "Package"));
		if (act && test && !strcmp(act, "run")) {
			const char *name = NULL;
			if (!strncmp(test, RT_GOORDER_TEST, plen) && test[plen] == '/')
				name = test + plen + 1;
			else if (strcmp(test, RT_GOORDER_TEST))
				name = test;
			if (name && !strchr(name, '/')) {
				char *id = prefixed ? rt_xasprintf("%s::%s", pkg ? pkg :
				    g->importpath, name) : rt_xstrdup(name);
				json_array_append_new(ran, json_string(id));
				free(id);
			}
		}
		json_decref(ev);
	}
	return ran;
}

int
rt_goorder_same(json_t *ran, char *const *order)
{
	size_t n = 0, i, m = json_array_size(ran);
	char a[256], b[256];
	char *pa, *pb;

	while (order[n])
		n++;
	if (n == 0 || m == 0 || m % n)
		return 0;
	for (i = 0; i < m; i++) {
		func_of(json_string_value(json_array_get(ran, i)), a, sizeof a, &pa);
		func_of(order[i % n], b, sizeof b, &pb);
		int same = !strcmp(a, b) && (!*pa || !*pb || !strcmp(pa, pb));
		free(pa);
		free(pb);
		if (!same)
			return 0;
	}
	return 1;
}

void
rt_goorder_close(rt_goorder *g)
{
	if (g->tmp)
		rt_remove_tree(g->tmp);
	free(g->tmp);
	free(g->cwd);
	free(g->pkgdir);
	free(g->importpath);
	free(g->name);
	free(g->driver_id);
	free(g->copied);
	free_names(g->intern, g->nintern);
	free_names(g->extern_, g->nextern);
	memset(g, 0, sizeof *g);
}
