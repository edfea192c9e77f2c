/* lib/runner/script.c: a script run by its interpreter (sh, bash, dash,
 * zsh, ksh, node) — retrial knows its exit status, and that a script that
 * is not there did not run: the interpreter's own word about the script. */
#include <string.h>

#include "runner/runner.h"

static const char *const script_words[] = {
	"sh", "bash", "dash", "zsh", "ksh", "mksh", "node", "nodejs", NULL
};

/* Options of sh and node that take the next word; "-c" and node's
 * "-e"/"-p" run text, not a script. */
static const char *const takes_value[] = {
	"-o", "+o", "-O", "+O", "-r", "--require", "--import", "--loader",
	"--experimental-loader", "--env-file", "--input-type", "--conditions", "-C", NULL
};
static const char *const runs_text[] = {
	"-c", "-e", "-p", "--eval", "--print", "-", "--", NULL
};

static int
locate(char **w, size_t i, size_t to, rt_cmd_loc *loc)
{
	size_t j;

	if (!rt_rn_word_in(rt_rn_base(w[i]), script_words))
		return 0;
	for (j = i + 1; j < to && w[j][0] == '-' && w[j][1]; j++) {
		if (rt_rn_word_in(w[j], runs_text) || (w[j][1] != '-' && strchr(w[j], 'c') &&
		    strcmp(w[j], "-C")))
			return 0;       /* sh -c TEXT, sh -ec TEXT, node -e TEXT */
		if (rt_rn_opt_takes_value(w[j], takes_value))
			j++;
	}
	if (j >= to)
		return 0;               /* reading stdin: nothing to miss */
	loc->kind = RT_RUNNER_SCRIPT;
	loc->target = j;
	loc->args = j + 1;
	return 1;
}

/* The interpreter's words that it could not open the script itself:
 *   dash: "sh: 0: cannot open fixed.sh: No such file" (line 0: before
 *     reading a line; older dash "Can't open fixed.sh"), exit 2 or 127;
 *   bash: "bash: fixed.sh: No such file or directory", exit 127;
 *   zsh: "zsh: no such file or directory: fixed.sh", exit 127;
 *   node: "Error: Cannot find module '/abs/fixed.js'" with an empty
 *     requireStack, exit 1 ("Require stack:" names the file of a require
 *     that failed inside the script, which ran: a real failure).
 * A command missing inside a script is the script's own message
 * ("fixed.sh: 1: foo: not found"), never one of these. */
static int
not_run(int code, const char *out, const char *err, char *why, size_t size)
{
	static const char *const cannot[] = {
		": 0: cannot open ", ": 0: Can't open ", ": no such file or directory: ",
		": can't open input file: ", NULL
	};
	char line[300];
	const char *c;
	size_t i;

	(void)out;
	if (code == 0 || !err)
		return 0;
	for (i = 0; cannot[i]; i++)
		if (rt_rn_line_with(err, cannot[i], line, sizeof line) &&
		    strstr(line, cannot[i]) - line == (long)strcspn(line, ":"))
			return rt_rn_say(why, size, "the script did not run", line);
	/* bash: "bash: FILE: No such file or directory", three fields exactly */
	if (rt_rn_line_with(err, ": No such file or directory", line, sizeof line) &&
	    (c = strchr(line, ':')) && (c = strchr(c + 1, ':')) &&
	    !strcmp(c, ": No such file or directory") &&
	    rt_rn_word_in(rt_rn_base(strtok(line, ":")), script_words)) {
		rt_rn_line_with(err, ": No such file or directory", line, sizeof line);
		return rt_rn_say(why, size, "the script did not run", line);
	}
	if (rt_rn_line_with(err, "Error: Cannot find module", line, sizeof line) &&
	    strstr(err, "requireStack: []") && !strstr(err, "Require stack:"))
		return rt_rn_say(why, size, "the script did not run", line);
	return 0;
}

/* The build check of a patch (rt_runner.h): node parses the script. */
static const char *const build_ends[] = { ".js", ".cjs", ".mjs", NULL };
static const char *const build_argv[] = { "node", "--check", "%s", NULL };

const rt_runner rt_runner_script = {
	.kind = RT_RUNNER_SCRIPT,
	.name = "script",
	.fallback = 1,
	.locate = locate,
	.not_run = not_run,
	.build_ends = build_ends,
	.build_argv = build_argv,
};
