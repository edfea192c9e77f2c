/* rt_config: .retrial.yml, parsed by libyaml, as options in front of the
 * command line's. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "rt_config.h"
#include "rt_util.h"

#define CONFIG_NAME ".retrial.yml"
#define OPT_PRINT_CONFIG 998

/* The top-level keys: which tools take each, under which option ("*":
 * every tool with an option of that name taking a value). */
static const struct {
	const char *key, *tools, *opt;
	int path;       /* a relative value is from the file's directory */
} shared[] = {
	{ "confidence", "*", "confidence", 0 },
	{ "threshold", " rt-measure rt-matrix ", "threshold", 0 },
	{ "runner", "*", "runner", 0 },
	{ "timeout", " rt-collect rt-measure rt-matrix rt-verify rt-retry ", "timeout", 0 },
	{ "trials", " rt-collect rt-measure rt-matrix ", "trials", 0 },
	{ "history", " rt-audit rt-quarantine ", "history", 1 },
	{ "quarantine", " rt-audit rt-retry ", "quarantine", 1 },
	{ "quarantine", " rt-quarantine ", "file", 1 },
	{ "quarantine", " rt-pr ", "quarantine-file", 1 },
	{ "codeowners", " rt-quarantine ", "codeowners", 1 },
	{ "retries", " rt-retry ", "retries", 0 },
};

/* Never from a file in the repository: where a token or a secret URL is
 * sent or read from, what runs instead of the tests, and the switches that
 * take a patch's checks or its sandbox away. */
static const char *const denied[] = {
	"github", "token-file", "key-file", "webhook", "webhook-file",
	"models", "network", "sandbox", "allow", "allow-path", "no-canary",
	"race-failing", "cmd", "print-config", "list-options", "help",
	"version", NULL
};

typedef struct {
	char *opt;      /* the tool's long option */
	char *value;    /* NULL for a flag */
	char *where;    /* FILE:LINE */
} cfg_val;

static int is_denied(const char *opt)
{
	for (size_t i = 0; denied[i]; i++)
		if (strcmp(denied[i], opt) == 0)
			return 1;
	return 0;
}

static const struct option *find_opt(const struct option *lo, const char *name)
{
	for (; lo->name; lo++)
		if (strcmp(lo->name, name) == 0)
			return lo;
	return NULL;
}

/* Is there a .git in dir? */
static int has_git(const char *dir)
{
	struct stat st;
	char *p = rt_xasprintf("%s/.git", strcmp(dir, "/") ? dir : "");
	int r = stat(p, &st) == 0;
	free(p);
	return r;
}

/* dir's parent, in place; 0 at / */
static int up(char *dir)
{
	char *slash = strrchr(dir, '/');
	if (!slash || strcmp(dir, "/") == 0)
		return 0;
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	return 1;
}

/* The config file's path (malloc'd), or NULL: $RETRIAL_CONFIG, else the
 * first .retrial.yml from the working directory up to the repository's
 * root (the directory with .git), or outside a repository the working
 * directory's own only, so a file in a shared directory above (/tmp)
 * configures nobody. One another user could have written is passed over
 * with a warning. */
static char *config_path(void)
{
	const char *env = getenv("RETRIAL_CONFIG");
	if (env)
		return *env ? rt_xstrdup(env) : NULL;
	char dir[PATH_MAX], top[PATH_MAX];
	if (!getcwd(dir, sizeof dir))
		return NULL;
	/* the repository's root, if any */
	memcpy(top, dir, sizeof top);
	int inrepo = 0;
	do
		if (has_git(top)) {
			inrepo = 1;
			break;
		}
	while (up(top));
	for (;;) {
		struct stat st;
		char *p = rt_xasprintf("%s/%s", strcmp(dir, "/") ? dir : "", CONFIG_NAME);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			if ((st.st_uid == getuid() || st.st_uid == 0) && !(st.st_mode & S_IWOTH))
				return p;
			rt_warn("%s: not read: owned by another user or writable by all", p);
		}
		free(p);
		if (!inrepo || strcmp(dir, top) == 0 || !up(dir))
			return NULL;
	}
}

static const char *scalar(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static _Noreturn void bad(const char *path, yaml_node_t *n, const char *fmt, const char *arg)
{
	char *msg = rt_xasprintf(fmt, arg);
	rt_die("%s:%lu: %s", path, n ? (unsigned long)n->start_mark.line + 1 : 1UL, msg);
}

/* Add opt=value from node v (a scalar) for this tool, unless it has one. */
static void add(cfg_val **vals, size_t *n, const struct option *o,
    yaml_node_t *v, const char *key, const char *path, int ispath)
{
	const char *s = scalar(v);
	if (!s)
		bad(path, v, "%s: expected one value, not a list or a mapping", key);
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*vals)[i].opt, o->name) == 0) {
			/* the tool's own section comes later and wins */
			free((*vals)[i].value), free((*vals)[i].where);
			memmove(*vals + i, *vals + i + 1, (*n - i - 1) * sizeof **vals);
			(*n)--;
			break;
		}
	char *value = NULL;
	if (o->has_arg == no_argument) {
		if (strcmp(s, "true") == 0)
			value = NULL;
		else if (strcmp(s, "false") == 0)
			return;
		else
			bad(path, v, "%s: a switch: true or false", key);
	} else if (ispath && *s && *s != '/' && *s != ':' && strrchr(path, '/')) {
		value = rt_xasprintf("%.*s/%s", (int)(strrchr(path, '/') - path), path, s);
	} else {
		value = rt_xstrdup(s);
	}
	*vals = rt_xrealloc(*vals, (*n + 1) * sizeof **vals);
	(*vals)[*n].opt = rt_xstrdup(o->name);
	(*vals)[*n].value = value;
	(*vals)[*n].where = rt_xasprintf("%s:%lu", path, (unsigned long)v->start_mark.line + 1);
	(*n)++;
}

static int known_shared(const char *key)
{
	for (size_t i = 0; i < sizeof shared / sizeof *shared; i++)
		if (strcmp(shared[i].key, key) == 0)
			return 1;
	return 0;
}

static void read_config(const char *path, const char *tool,
    const struct option *lo, cfg_val **vals, size_t *n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		rt_die("%s:", path);
	yaml_parser_t parser;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&parser))
		rt_die("%s: cannot start the YAML parser", path);
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		unsigned long line = (unsigned long)parser.problem_mark.line + 1;
		char *msg = rt_xasprintf("%s:%lu: %s%s%s", path, line,
		    parser.problem ? parser.problem : "not YAML",
		    parser.context ? ", " : "", parser.context ? parser.context : "");
		rt_die("%s", msg);
	}
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (root && root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0)
		root = NULL;
	if (root && root->type != YAML_MAPPING_NODE)
		bad(path, root, "%s", "expected a mapping of keys to values");
	/* two passes: the shared keys, then the tool's section, which wins */
	for (int pass = 0; root && pass < 2; pass++) {
		for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
		    p < root->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(&doc, p->key);
			yaml_node_t *v = yaml_document_get_node(&doc, p->value);
			const char *key = scalar(k);
			if (!key)
				bad(path, k, "%s", "a key must be a word");
			if (strncmp(key, "rt-", 3) == 0) {
				if (!v || v->type != YAML_MAPPING_NODE)
					bad(path, v, "%s: expected a mapping of the tool's options", key);
				if (pass == 0 || strcmp(key, tool) != 0)
					continue;
				for (yaml_node_pair_t *q = v->data.mapping.pairs.start;
				    q < v->data.mapping.pairs.top; q++) {
					yaml_node_t *k2 = yaml_document_get_node(&doc, q->key);
					yaml_node_t *v2 = yaml_document_get_node(&doc, q->value);
					const char *opt = scalar(k2);
					if (!opt)
						bad(path, k2, "%s", "a key must be a word");
					if (is_denied(opt))
						bad(path, k2, "%s: not taken from a file in the repository; give it on the command line", opt);
					const struct option *o = find_opt(lo, opt);
					if (!o)
						bad(path, k2, "%s", rt_xasprintf("%s: %s has no option --%s", opt, tool, opt));
					add(vals, n, o, v2, opt, path, 0);
				}
				continue;
			}
			if (!known_shared(key))
				bad(path, k, "%s: unknown key (retrial(7), CONFIGURATION)", key);
			if (pass == 1)
				continue;
			for (size_t i = 0; i < sizeof shared / sizeof *shared; i++) {
				if (strcmp(shared[i].key, key) != 0)
					continue;
				if (strcmp(shared[i].tools, "*") != 0) {
					char *word = rt_xasprintf(" %s ", tool);
					int has = strstr(shared[i].tools, word) != NULL;
					free(word);
					if (!has)
						continue;
				}
				const struct option *o = find_opt(lo, shared[i].opt);
				if (o && o->has_arg == required_argument)
					add(vals, n, o, v, key, path, shared[i].path);
			}
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	fclose(f);
}

/* The option an argument names (NULL if none), and whether it carries its
 * value inline (--x=v, -xv); getopt_long's unique-prefix rule included. */
static const struct option *cli_opt(const struct option *lo, const char *a, int *inline_val)
{
	*inline_val = 0;
	if (a[0] != '-' || a[1] == '\0')
		return NULL;
	if (a[1] == '-') {
		const char *name = a + 2;
		size_t len = strcspn(name, "=");
		*inline_val = name[len] == '=';
		const struct option *hit = NULL;
		for (const struct option *o = lo; o->name; o++) {
			if (strncmp(o->name, name, len) != 0)
				continue;
			if (strlen(o->name) == len)
				return o;
			if (hit)
				return NULL;
			hit = o;
		}
		return hit;
	}
	for (const struct option *o = lo; o->name; o++)
		if (o->flag == NULL && o->val == (unsigned char)a[1] && o->val < 128) {
			*inline_val = a[2] != '\0';
			return o;
		}
	return NULL;
}

static int config_args;

int rt_config_args(void)
{
	return config_args;
}

void rt_config_apply(const char *tool, const struct option *lo, int *argc, char ***argv)
{
	int ac = *argc;
	char **av = *argv;
	int print = 0;
	for (int i = 1; i < ac && strcmp(av[i], "--") != 0; i++) {
		if (strcmp(av[i], "--print-config") == 0)
			print = 1;
		/* help and the version whatever the file holds */
		if (!print && (strcmp(av[i], "--help") == 0 || strcmp(av[i], "-h") == 0 ||
		    strcmp(av[i], "--version") == 0 || strcmp(av[i], "-V") == 0 ||
		    strcmp(av[i], "--list-options") == 0))
			return;
	}
	char *path = config_path();
	cfg_val *vals = NULL;
	size_t n = 0;
	if (path)
		read_config(path, tool, lo, &vals, &n);
	if (print) {
		/* what the command line gives, then the file's values it leaves */
		char **given = rt_xcalloc((size_t)ac + 1, sizeof *given);
		size_t ng = 0;
		for (int i = 1; i < ac && strcmp(av[i], "--") != 0; i++) {
			int inl;
			const struct option *o = cli_opt(lo, av[i], &inl);
			if (!o || o->val == OPT_PRINT_CONFIG)
				continue;
			const char *v = NULL;
			if (o->has_arg == required_argument)
				v = inl ? (av[i][1] == '-' ? strchr(av[i], '=') + 1 : av[i] + 2)
				    : (i + 1 < ac ? av[++i] : "");
			printf("%s%s%s\tcommand line\n", o->name, v ? "=" : "", v ? v : "");
			given[ng++] = (char *)o->name;
		}
		for (size_t j = 0; j < n; j++) {
			int over = 0;
			for (size_t g = 0; g < ng; g++)
				over |= strcmp(given[g], vals[j].opt) == 0;
			printf("%s%s%s\t%s%s\n", vals[j].opt, vals[j].value ? "=" : "",
			    vals[j].value ? vals[j].value : "", vals[j].where,
			    over ? " (the command line wins)" : "");
		}
		if (!path)
			printf("# no config file (" CONFIG_NAME " up to the repository's root, or $RETRIAL_CONFIG)\n");
		free(given);
		rt_fshut(stdout, "standard output");
		exit(RT_EXIT_OK);
	}
	free(path);
	if (n == 0) {
		free(vals);
		return;
	}
	char **nav = rt_xcalloc((size_t)ac + n + 1, sizeof *nav);
	nav[0] = av[0];
	for (size_t j = 0; j < n; j++) {
		nav[j + 1] = vals[j].value
		    ? rt_xasprintf("--%s=%s", vals[j].opt, vals[j].value)
		    : rt_xasprintf("--%s", vals[j].opt);
		free(vals[j].opt), free(vals[j].value), free(vals[j].where);
	}
	for (int i = 1; i < ac; i++)
		nav[n + (size_t)i] = av[i];
	free(vals);
	config_args = (int)n;
	*argc = ac + (int)n;
	*argv = nav;
}
