/* lib/runner/rspec.c: RSpec — its commands (rspec, bundle exec rspec,
 * ruby -S rspec), exits, IDs ("FILE::full description") and per-case
 * report: rspec --format json, asked for through SPEC_OPTS. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "runner/hookorder.h"
#include "runner/runner.h"
#include "rt_order.h"
#include "rt_jsonl.h"
#include "rt_records.h"
#include "rt_hash.h"
#include "rt_util.h"

#define MAX_MESSAGE 1024         /* bytes of the message line */

typedef struct {
	const rt_junit_opts *o;
	rt_junit_fn fn;
	void *ctx;
	size_t max_output;
	char *cwd;
	const json_t *seed;
	long ncase, records;
	int stopped;
	char *run;                   /* REPORT@ its seed and summary's hash */
} reader;

/* rspec --format json: {"version", "seed"?, "examples": [...], "summary",
 * "summary_line"}. */
static int
doc_is_report(const json_t *doc)
{
	return json_is_object(doc) && json_is_array(json_object_get(doc, "examples")) &&
	    json_is_object(json_object_get(doc, "summary"));
}

/* A path as rspec prints it ("./spec/x_spec.rb", or absolute): relative to
 * the current directory, without the leading "./" (malloc'd). */
static char *
rel_file(const char *cwd, const char *p)
{
	size_t n = cwd ? strlen(cwd) : 0;

	while (p[0] == '.' && p[1] == '/')
		p += 2;
	if (n > 1 && !strncmp(p, cwd, n) && p[n] == '/' && p[n + 1])
		p += n + 1;
	return rt_xstrdup(p);
}

/* The first non-blank line of s (at most MAX_MESSAGE bytes), or NULL. */
static char *
first_line(const char *s)
{
	const char *e;
	size_t n;

	if (!s)
		return NULL;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	for (e = s; *e && *e != '\n' && *e != '\r'; e++)
		;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e == s)
		return NULL;
	n = (size_t)(e - s);
	if (n > MAX_MESSAGE) {
		n = MAX_MESSAGE;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	return rt_xasprintf("%.*s", (int)n, s);
}

/* A backtrace line of rspec's or Ruby's own (what rspec's default
 * backtrace_exclusion_patterns hide): /gems/, lib/ruby/, bin/. */
static int
library_line(const char *l)
{
	return strstr(l, "/gems/") || strstr(l, "/lib/ruby/") || strstr(l, "/rubygems") ||
	    strstr(l, "/bin/") || strstr(l, "lib/rspec/");
}

/* The failure as rspec prints it: "CLASS:", the message, then the
 * backtrace lines of the project ("# ./spec/x_spec.rb:3:in ..."), every
 * line when none is. */
static void
failure_text(rt_buf *b, const reader *r, const json_t *ex)
{
	const char *cls = json_string_value(json_object_get(ex, "class"));
	const char *msg = json_string_value(json_object_get(ex, "message"));
	const json_t *bt = json_object_get(ex, "backtrace"), *v;
	size_t i, n = r->cwd ? strlen(r->cwd) : 0, kept = 0;
	int pass;

	if (cls)
		rt_buf_printf(b, "%s:\n", cls);
	if (msg) {
		while (*msg == '\n')
			msg++;
		rt_buf_adds(b, msg);
		if (*msg && msg[strlen(msg) - 1] != '\n')
			rt_buf_addc(b, '\n');
	}
	for (pass = 0; pass < 2 && !kept; pass++)
		json_array_foreach(bt, i, v) {
			const char *l = json_string_value(v);
			if (!l || (pass == 0 && library_line(l)))
				continue;
			if (n > 1 && !strncmp(l, r->cwd, n) && l[n] == '/')
				rt_buf_printf(b, "# ./%s\n", l + n + 1);
			else
				rt_buf_printf(b, "# %s\n", l);
			kept++;
		}
}

typedef struct {
	const char *file, *name;     /* the relative file; the full description or NULL */
	const char *example;         /* rspec's example ID "spec/x_spec.rb[1:2]", or NULL */
	const char *outcome, *result;
	double time_ms;
	const char *message, *type;
	const rt_buf *text;
} rec;

static void
emit(reader *r, const rec *c)
{
	char *id = c->name ? rt_xasprintf("%s::%s", c->file, c->name) : rt_xstrdup(c->file);
	const char *run = r->o->run ? r->o->run : r->run ? r->run : r->o->report;

	rt_case_rec cr = {
		.trial = r->o->trial > 0 ? r->o->trial : r->ncase, .id = id,
		.outcome = c->outcome, .result = c->result, .attempt = 1,
		.time_ms = c->time_ms, .message = c->message ? rt_json_str_or_null(c->message) : NULL,
		.failure_type = c->type,
		/* rspec prints a failure's text to standard output */
		.out = c->text && c->text->len ? rt_json_bytes(c->text->data, c->text->len) : NULL,
		.report = r->o->report, .run = run, .revision = r->o->revision,
		.position = r->ncase - 1, .suite = c->file, .source = "rspec --format json",
	};
	json_t *j = rt_case_rec_json(&cr);
	json_object_set_new(j, "rspec_file", rt_json_str_or_null(c->file));
	if (c->name)
		json_object_set_new(j, "rspec_name", rt_json_str_or_null(c->name));
	if (c->example)
		json_object_set_new(j, "rspec_id", rt_json_str_or_null(c->example));
	/* the seed of --order rand: rspec --seed N runs the same order again */
	json_object_set_new(j, "rspec_seed", json_is_integer(r->seed) ?
	    json_integer(json_integer_value(r->seed)) : json_null());
	free(id);
	r->records++;
	if (!r->stopped && r->fn(j, r->ctx) != 0)
		r->stopped = 1;
	json_decref(j);
}

static int
one_example(reader *r, const json_t *e, size_t i, char *err, size_t errsize)
{
	const char *status = json_string_value(json_object_get(e, "status")), *result;
	const char *outcome = rt_rn_outcome_of(status, &result);
	const char *full = json_string_value(json_object_get(e, "full_description"));
	const char *path = json_string_value(json_object_get(e, "file_path"));
	const char *eid = json_string_value(json_object_get(e, "id"));
	const json_t *rt = json_object_get(e, "run_time");
	const json_t *ex = json_object_get(e, "exception");
	char *file, *example, *msg = NULL;
	rt_buf text = { 0 };
	rec c;

	if (!full)
		full = json_string_value(json_object_get(e, "description"));
	if (!json_is_object(e) || !full || !path || !*path) {
		snprintf(err, errsize, "examples[%zu]: no \"%s\"", i,
		    !json_is_object(e) || !full ? "full_description" : "file_path");
		return -1;
	}
	if (!outcome) {
		snprintf(err, errsize, "examples[%zu]: \"status\": %s%s%s is not an rspec "
		    "status", i, status ? "\"" : "", status ? status : "missing",
		    status ? "\"" : "");
		return -1;
	}
	file = rel_file(r->cwd, path);
	example = eid ? rel_file(r->cwd, eid) : NULL;
	r->ncase++;
	memset(&c, 0, sizeof c);
	c.file = file;
	c.name = full;
	c.example = example;
	c.outcome = outcome;
	c.result = result;
	c.time_ms = json_is_number(rt) ? json_number_value(rt) * 1000 : NAN;
	if (json_is_object(ex)) {
		failure_text(&text, r, ex);
		rt_rn_cap_text(&text, r->max_output);
		msg = first_line(json_string_value(json_object_get(ex, "message")));
		c.type = json_string_value(json_object_get(ex, "class"));
	}
	if (!strcmp(outcome, "skip"))
		c.message = json_string_value(json_object_get(e, "pending_message"));
	else
		c.message = msg ? msg : !strcmp(outcome, "fail") ?
		    "failed (rspec gave no message)" : NULL;
	c.text = &text;
	emit(r, &c);
	rt_buf_free(&text);
	free(msg);
	free(example);
	free(file);
	return 0;
}

/* "An error occurred while loading ./spec/x_spec.rb." and its reason: the
 * file did not run, one error record with the file as its case. */
static void
load_errors(reader *r, const json_t *doc)
{
	static const char lead[] = "An error occurred while loading ";
	const json_t *msgs = json_object_get(doc, "messages"), *v;
	size_t i;

	json_array_foreach(msgs, i, v) {
		const char *m = json_string_value(v), *p, *e, *why, *cls;
		char *path, *file, *line, *reason = NULL;
		rec c;

		if (r->stopped || !m || !(p = strstr(m, lead)))
			continue;
		p += sizeof lead - 1;
		for (e = p; *e && *e != '\n' && !(*e == '.' && strchr(" \n", e[1])); e++)
			;
		path = rt_xasprintf("%.*s", (int)(e - p), p);
		file = rel_file(r->cwd, path);
		/* the reason: the line after the error class ("LoadError:") */
		if ((why = strstr(e, "Error:\n")) || (why = strstr(e, "Exception:\n"))) {
			for (cls = why; cls > e && cls[-1] != '\n'; cls--)
				;
			line = first_line(strchr(why, '\n') + 1);
			reason = rt_xasprintf("%.*s: %s", (int)(strchr(cls, ':') - cls), cls,
			    line ? line : "");
			free(line);
		}
		r->ncase++;
		memset(&c, 0, sizeof c);
		c.file = file;
		c.outcome = "error";
		c.result = "error";
		c.time_ms = NAN;
		c.message = reason ? reason : "the spec file could not be loaded";
		emit(r, &c);
		free(reason);
		free(file);
		free(path);
	}
}

static long
doc_read(const json_t *doc, const rt_junit_opts *o, rt_junit_fn fn,
    void *ctx, char *err, size_t errsize)
{
	reader r;
	const json_t *e;
	size_t i;
	long ret = 0;

	if (!doc_is_report(doc)) {
		snprintf(err, errsize, "1: not an rspec --format json report (no \"examples\" "
		    "array and \"summary\" object)");
		return -1;
	}
	memset(&r, 0, sizeof r);
	r.o = o;
	r.fn = fn;
	r.ctx = ctx;
	r.max_output = o->max_output ? o->max_output : 4096;
	r.cwd = getcwd(NULL, 0);
	r.seed = json_object_get(doc, "seed");
	/* rspec writes no time: the run is named by what differs between two
	 * runs of one suite, its seed and summary (duration to 10^-8 s) */
	if (o->report) {
		json_t *id = json_pack("{sOsO}", "seed", r.seed ? r.seed : json_null(),
		    "summary", json_object_get(doc, "summary"));
		char *s = id ? json_dumps(id, JSON_COMPACT | JSON_SORT_KEYS) : NULL, h[65];
		rt_sha256_hex(s ? s : "", s ? strlen(s) : 0, h);
		r.run = rt_xasprintf("%s@%.16s", o->report, h);
		free(s);
		json_decref(id);
	}
	json_array_foreach(json_object_get(doc, "examples"), i, e) {
		if (r.stopped)
			break;
		if ((ret = one_example(&r, e, i, err, errsize)) < 0)
			break;
	}
	if (ret == 0)
		load_errors(&r, doc);
	free(r.cwd);
	free(r.run);
	return ret < 0 ? -1 : r.records;
}

/* ---- the command ---- */

/* rspec, bin/rspec, or ruby -S rspec (bundle exec is a wrapper). */
static int
locate(char **w, size_t i, size_t to, rt_cmd_loc *loc)
{
	const char *b = rt_rn_base(w[i]);

	if (!strcmp(b, "rspec")) {
		loc->kind = RT_RUNNER_RSPEC;
		return 1;
	}
	if ((!strcmp(b, "ruby") || !strncmp(b, "ruby3", 5) || !strncmp(b, "ruby2", 5)) &&
	    i + 2 < to && !strcmp(w[i + 1], "-S") && !strcmp(rt_rn_base(w[i + 2]), "rspec")) {
		loc->kind = RT_RUNNER_RSPEC;
		loc->target = i + 2;
		loc->args = i + 3;
		return 1;
	}
	return 0;
}

/* rspec's summary line "12 examples, 3 failures[, 1 pending][, N errors
 * occurred outside of examples]": the number of examples, or -1. */
static long
examples_run(const char *out, const char *err)
{
	static const char *const summary[] = { " examples, ", " example, ", NULL };
	char line[200];
	char *end;
	long n;

	if (!rt_rn_find_line(out, err, summary, line, sizeof line))
		return -1;
	n = strtol(line, &end, 10);
	return end == line ? -1 : n;
}

static int
not_run(int code, const char *out, const char *err, char *why, size_t size)
{
	static const char *const loading[] = { "An error occurred while loading", NULL };
	static const char *const none[] = {
		"No examples found.", "All examples were filtered out", NULL
	};
	/* sh: "sh: 1: rspec: not found" (dash), "rspec: command not found"
	 * (bash), exit 127; bundler: "bundler: command not found: rspec" */
	static const char *const missing[] = {
		"command not found", "not found", "No such file or directory",
		"Permission denied", "Could not find", NULL
	};
	char line[200];
	long n = examples_run(out, err);

	/* no summary line: rspec never got to run */
	if (n < 0 && code != 0 && rt_rn_find_line(NULL, err, missing, line, sizeof line))
		return rt_rn_say(why, size, "rspec could not start", line);
	/* a spec file that cannot load: rspec runs no example at all */
	if (rt_rn_find_line(out, err, loading, line, sizeof line) && n <= 0)
		return rt_rn_say(why, size, "rspec could not load a spec file", line);
	if (n == 0 && rt_rn_find_line(out, err, none, line, sizeof line))
		return rt_rn_say(why, size, "rspec found no examples", line);
	if (n == 0)
		return rt_rn_say(why, size, "rspec ran no examples", NULL);
	return 0;
}

/* rspec_junit_formatter: a testcase whose file is Ruby. */
static int
junit_claims(const char *suite, const char *cls, const char *file)
{
	(void)suite;
	(void)cls;
	return file && rt_rn_ends_with(file, ".rb");
}

/* rspec_junit_formatter writes the full description as the name and
 * "./spec/x_spec.rb" as the file: "FILE::full description". */
static char *
junit_id(const char *cls, const char *nm, const char *file, const char *dir)
{
	(void)cls;
	(void)dir;
	while (file[0] == '.' && file[1] == '/')
		file += 2;
	return rt_xasprintf("%s::%s", file, nm);
}

static int
selectable(const char *id, const char *dir, char **missing)
{
	char *f = rt_rn_id_file(id);
	int ok = strstr(id, "::") && rt_rn_is_file(dir, f);

	*missing = ok ? NULL : f;
	if (ok)
		free(f);
	return ok;
}

static char *
record_id(const char *name, const char *classname, const char *jname, const char *dir,
    char *why, size_t size)
{
	char *try[1];
	char *id;

	(void)classname;
	(void)jname;
	try[0] = rel_file(NULL, name);
	id = rt_rn_pick_id(&rt_runner_rspec, try, 1, name, selectable, "", dir, why, size);
	free(try[0]);
	return id;
}

/* Ordered runs: rspec runs a group's examples together, in the defined
 * (or a random) order, whatever its command line names; so the command is
 * given a driver spec file that loads the examples' files and runs them
 * one at a time in the order asked, each in a run of its own top group
 * (hookorder.c). */
static const rt_hookorder_driver driver = {
	"rspec", "retrial_order_spec.rb",
	"# retrial's ordered run (rt-bisect, lib/runner/rspec.c): the examples\n"
	"# order.json names, one at a time in its order, each in its own run of\n"
	"# its top group (its before(:context) hooks run for it); the order they\n"
	"# ran, last\n"
	"require \"json\"\n"
	"order = JSON.parse(File.read(File.join(__dir__, \"order.json\")))\n"
	"id_of = ->(m) { m[:file_path].to_s.sub(%r{\\A\\./}, \"\") + \"::\" + m[:full_description].to_s }\n"
	"wanted = order.to_h { |id| [id, true] }\n"
	"ran = []\n"
	"RSpec.configure do |c|\n"
	"  c.define_derived_metadata { |m| m[:retrial_order] = true if wanted.key?(id_of.(m)) }\n"
	"  c.filter_run_including retrial_order: true\n"
	"  c.before(:example) { |ex| ran << id_of.(ex.metadata) }\n"
	"  c.after(:suite) { $stdout.puts \"\\nretrial-order-ran: #{JSON.generate(ran)}\" }\n"
	"end\n"
	"order.map { |id| id[/\\A(.*?)::/, 1] }.uniq.each { |f| load File.expand_path(f) }\n"
	"step = Struct.new(:top, :example) do\n"
	"  def descendants\n"
	"    []\n"
	"  end\n"
	"\n"
	"  def run(reporter)\n"
	"    top.descendants.each do |g|\n"
	"      RSpec.world.filtered_examples[g] = g.equal?(example.example_group) ? [example] : []\n"
	"      g.remove_instance_variable(:@descendant_filtered_examples) if\n"
	"        g.instance_variable_defined?(:@descendant_filtered_examples)\n"
	"    end\n"
	"    top.run(reporter)\n"
	"  end\n"
	"end\n"
	"ordering = Object.new\n"
	"ordering.define_singleton_method(:used?) { false }\n"
	"ordering.define_singleton_method(:order) do |items|\n"
	"  next items unless items.all? { |g| g.respond_to?(:top_level?) && g.top_level? }\n"
	"  by_id = {}\n"
	"  items.each do |top|\n"
	"    top.descendants.each do |g|\n"
	"      RSpec.world.filtered_examples[g].each { |e| by_id[id_of.(e.metadata)] ||= [top, e] }\n"
	"    end\n"
	"  end\n"
	"  order.filter_map { |id| by_id[id] && step.new(*by_id[id]) }\n"
	"end\n"
	"# over --order, --seed, .rspec and a spec_helper's config.order alike\n"
	"reg = RSpec.configuration.ordering_registry\n"
	"%i[global random defined recently_modified].each { |k| reg.register(k, ordering) }\n"
};

static void *
order_open(const char *cwd, const char *victim, char *why, size_t size)
{
	return rt_hookorder_open(&driver, cwd, victim, why, size);
}

static const struct rt_order_ops order = {
	order_open, rt_hookorder_member, rt_hookorder_write, rt_hookorder_map,
	rt_hookorder_ran, rt_hookorder_same, rt_hookorder_selector, rt_hookorder_cwd,
	rt_hookorder_where, rt_hookorder_close,
	"rspec runs a group's examples together, and the ordered runs' driver cannot be "
	"set up",
	"rspec runs a group's examples together: each probe ran %s, a driver that loads "
	"the examples' files under %s and runs the probe's examples one at a time in its "
	"order, each in a run of its own top group (its before(:context) hooks run for "
	"each); the order rspec started them is the probe's \"ran\"",
};

/* --out FILE: the command writes a report of its own */
static const char *const rspec_own[] = { "--out", "-o", NULL };

/* rspec prints "Randomized with seed N" and takes --seed N in SPEC_OPTS,
 * which wins over the command's own --seed and --order and .rspec's */
static const char *const seed_printed[] = { "Randomized with seed ", NULL };
static const rt_seed_opt seeds[] = {
	{ "rspec", seed_printed, "SPEC_OPTS", "--seed ", NULL, NULL, 0 },
	{ NULL, NULL, NULL, NULL, NULL, NULL, 0 }
};

/* Words its report prints around every failure (rt_runner.h). */
static const char *const rspec_boilerplate[] = {
	"Failures", "Failure", "Error", "Failed", "examples", "example", "failures",
	"failure", "Finished", "seconds", "rspec", "expected", "got", "Randomized",
	"seed", NULL
};

const rt_runner rt_runner_rspec = {
	.kind = RT_RUNNER_RSPEC,
	.name = "rspec",
	.locate = locate,
	.not_run = not_run,
	.junit_claims = junit_claims,
	.junit_id = junit_id,
	.record_id = record_id,
	/* SPEC_OPTS's formatters replace the command's own: the progress
	 * formatter keeps the console output, on stdout as before */
	.report_var = "SPEC_OPTS",
	.report_add = "--format progress --format json --out '%s'",
	.own_report = rspec_own,
	.no_report = "rspec wrote none; retrial adds --format json --out to SPEC_OPTS "
	    "unless the command names an --out of its own: a command that does, or sets "
	    "SPEC_OPTS itself, must pass --format json --out \"$RETRIAL_JUNIT\"",
	.doc_is_report = doc_is_report,
	.report_what = "rspec --format json (no \"examples\")",
	.doc_read = doc_read,
	.seeds = seeds,
	.order = &order,
	.boilerplate = rspec_boilerplate,
};
