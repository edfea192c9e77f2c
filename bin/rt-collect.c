/* rt-collect: run a test command many times and write one evidence record
 * per trial (exit, signal, output, timing, environment) as each ends. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_cli.h"
#include "rt_config.h"
#include "rt_jsonl.h"
#include "rt_out.h"
#include "rt_cases.h"
#include "rt_junit.h"
#include "rt_runner.h"
#include "rt_platform.h"
#include "rt_stats.h"
#include "rt_trial.h"
#include "rt_util.h"

enum { OPT_OUT = RT_OPT_TOOL_BASE, OPT_RESUME, OPT_SHARD, OPT_JUNIT, OPT_CASE };

static const struct option longopts[] = {
	RT_TRIAL_LONGOPTS,
	{ "trials", required_argument, NULL, 'n' },
	{ "out", required_argument, NULL, 'o' },
	{ "resume", no_argument, NULL, OPT_RESUME },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "junit", no_argument, NULL, OPT_JUNIT },
	{ "case", required_argument, NULL, OPT_CASE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	RT_LIST_OPTIONS_LONGOPT,
	{ NULL, 0, NULL, 0 }
};

static void
usage(FILE *f)
{
	fprintf(f,
"usage: rt-collect [-j N] [-n N] [--gap-ms MS] [--timeout S] [-o FILE [--resume]]\n"
"                  [--shard K/N] [--junit] [--case ID] [trial options]\n"
"                  (--cmd \"CMD\" | -- ARGV...)\n"
"Run the command N times (trials 1..N) and write one \"trial\" record per trial.\n"
"  -n, --trials N         trials in the whole experiment (default 20)\n"
"  -o, --out FILE         write the records to FILE instead of stdout\n"
"      --resume           continue the numbering of an existing --out FILE\n"
"      --shard K/N        run only trials K, K+N, K+2N... (K from 1 to N)\n"
"      --junit            one record per test case before each trial's record, from\n"
"                         the report retrial asks the runner for (retrial(7)\n"
"                         RUNNERS), else the one the command writes to $RETRIAL_JUNIT\n"
"      --case ID          judge each trial by that test case's own outcome (the\n"
"                         runner's ID); implies --junit\n");
	rt_trial_cli_usage(f);
	fprintf(f,
"  -h, --help             this text\n"
"  -V, --version          the version\n");
}

typedef struct {
	int fd;                      /* output */
	const char *outname;
	rt_trial_cli *cli;
	rt_tally tally;
	rt_progress prog;
	double conf;
	int broken;                  /* the reader went away */
	long done;
	char reason[400];            /* the first error's, for the warning */
	rt_cases_dir jdir;           /* --junit: the private directory */
	const char *judge;           /* --case ID */
	long noreport, badreport;    /* --junit: trials without a readable report */
	char noauto[200];            /* --junit: why retrial could not ask the runner */
	int cut;                     /* a case record could not be written */
	long crash_after;            /* the test hook's N, or 0 */
} collect;

/* One write(2) per record, so a kill -9 leaves only whole lines. A write
 * blocked on a stalled reader ends with EINTR when a stop signal came. */
static int
write_line(int fd, json_t *rec)
{
	char *s = rt_dumps(rec);
	size_t n = strlen(s), off = 0;
	ssize_t w;

	s = rt_xrealloc(s, n + 2);
	s[n++] = '\n';
	while (off < n) {
		w = write(fd, s + off, n - off);
		if (w < 0 && errno == EINTR && !rt_trial_interrupted())
			continue;
		if (w <= 0) {
			free(s);
			return -1;
		}
		off += (size_t)w;
	}
	free(s);
	return 0;
}

static int
on_case(json_t *rec, void *ctx)
{
	collect *c = ctx;

	if (write_line(c->fd, rec) < 0) {
		if (errno == EPIPE || errno == EINTR) {
			c->broken = errno == EPIPE;
			c->cut = 1;
			return -1;
		}
		rt_die("%s: write error:", c->outname);
	}
	return 0;
}

/* --junit: the trial's report, one record per test case, then the report
 * goes (rt_cases_trial: opened inside the private directory, never
 * through a link nor blocking, only a regular file). With --case, set
 * holds every case's outcome. -1 when the reader went away or a stop
 * signal interrupted the writing. */
static int
junit_records(collect *c, const rt_trial_result *res, rt_case_set *set)
{
	/* what to do, when retrial could not ask the runner for its report */
	const char *sep = c->noauto[0] ? " (" : "", *end = c->noauto[0] ? ")" : "";

	if (rt_cases_trial(&c->jdir, &c->cli->o, res, on_case, c, set) < 0 && !c->cut) {
		if (set->refused) {
			c->badreport++;
			rt_warn("trial %ld: %s", res->trial, set->error);
		} else if (!strncmp(set->error, "no JUnit report", 15)) {
			if (c->noreport++ == 0)
				rt_warn("trial %ld: %s%s%s%s", res->trial, set->error, sep,
				    c->noauto, end);
		} else {
			c->badreport++;
			rt_warn("trial %ld: %s%s%s%s", res->trial, set->error, sep, c->noauto, end);
		}
	}
	return c->cut ? -1 : 0;
}

static int
on_trial(const rt_trial_result *res, void *ctx)
{
	collect *c = ctx;
	json_t *rec;

	/* a trial and its cases are one unit: the cases first, the trial's
	 * own record last, so a file holding the trial record holds all its
	 * cases, and --resume drops cases whose trial record never came */
	rt_case_set set;
	rt_trial_result judged = *res;
	rt_outcome exit_outcome = res->outcome;

	memset(&set, 0, sizeof set);
	if (c->cli->o.junit_dir && junit_records(c, res, &set) < 0) {
		rt_case_set_free(&set);
		return RT_STOP_KILL;
	}
	if (c->crash_after == res->trial)
		raise(SIGKILL);
	/* --case: that test's own outcome, unless the command's says it
	 * could not run or ran out of time */
	if (c->judge && res->outcome != RT_ERROR && res->outcome != RT_TIMEOUT) {
		judged.outcome = rt_cases_judge(&set, c->judge, res->trial, judged.error,
		    sizeof judged.error);
		if (judged.outcome != RT_ERROR)
			judged.error[0] = '\0';
	}
	res = &judged;
	rec = rt_trial_json(res, &c->cli->o, c->cli->command);
	if (c->judge) {
		json_object_set_new(rec, "case_judged", json_string(c->judge));
		json_object_set_new(rec, "exit_outcome", json_string(rt_outcome_name(exit_outcome)));
		json_object_set_new(rec, "others_failed", rt_cases_others_failed(&set, c->judge));
	}
	rt_case_set_free(&set);
	if (write_line(c->fd, rec) < 0) {
		json_decref(rec);
		if (errno == EPIPE || errno == EINTR) {
			c->broken = errno == EPIPE;
			return RT_STOP_KILL;
		}
		rt_die("%s: write error:", c->outname);
	}
	json_decref(rec);
	if (res->outcome == RT_ERROR && !c->reason[0])
		rt_error_reason(c->reason, sizeof c->reason, res->trial, res->error,
		    res->err.data);
	rt_tally_add(&c->tally, res->outcome);
	c->done++;
	rt_progress_update(&c->prog, c->done, c->tally.failures, c->tally.trials,
	    c->conf, NULL);
	return RT_GO_ON;
}

/* --resume: mark the trials the file already has (with -j N they end out of
 * order, so a crash can leave holes below the highest number); a torn last
 * line (a crash mid-write) is cut off with a warning, and so are the case
 * records (--junit) at the end whose trial record never came: that trial
 * is run again, so none of its cases is counted twice. Trials of another
 * command are refused: they belong to a different experiment. */
static void
resume_scan(int fd, const char *path, const char *command, long n,
    unsigned char *have)
{
	size_t len, i, start, keep, pend_at = 0;
	rt_buf b = {0};
	char *data, tmp[65536];
	long line = 0, t, last = 0, pend = 0, pend_trial = 0, pend_line = 0;
	ssize_t r;
	off_t at = 0;
	json_t *rec, *jt, *jc;

	/* through the locked descriptor: closing any other one on this file
	 * would drop the lock */
	while ((r = pread(fd, tmp, sizeof tmp, at)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			rt_die("%s:", path);
		rt_buf_add(&b, tmp, (size_t)r);
		at += r;
	}
	if (!b.data)
		return;
	data = b.data;
	len = b.len;
	keep = 0;
	for (start = 0, i = 0; i < len; i++) {
		if (data[i] != '\n')
			continue;
		line++;
		rec = json_loadb(data + start, i - start, 0, NULL);
		jt = rec ? json_object_get(rec, "trial") : NULL;
		if (!json_is_object(rec) || !json_is_integer(jt) ||
		    json_integer_value(jt) < 1)
			rt_die("%s:%ld: not a trial record; refusing to resume", path, line);
		t = (long)json_integer_value(jt);
		if (json_object_get(rec, "case")) {
			/* a case record: its trial's record comes after it (or,
			 * in files of earlier versions, right before it) */
			if (!pend && t == last)
				;
			else if (pend && t != pend_trial)
				rt_die("%s:%ld: case records of trial %ld with no trial record "
				    "(from line %ld); refusing to resume", path, line, pend_trial,
				    pend_line);
			else if (!pend++) {
				pend_trial = t;
				pend_line = line;
				pend_at = start;
			}
		} else {
			jc = json_object_get(rec, "command");
			if (json_is_string(jc) && strcmp(json_string_value(jc), command) != 0)
				rt_die("%s:%ld: a trial of another command (\"%s\"); refusing to "
				    "resume", path, line, json_string_value(jc));
			if (pend && pend_trial != t)
				rt_die("%s:%ld: case records of trial %ld with no trial record "
				    "(from line %ld); refusing to resume", path, line, pend_trial,
				    pend_line);
			if (t <= n)
				have[t / 8] |= (unsigned char)(1u << (t % 8));
			last = t;
			pend = 0;
		}
		json_decref(rec);
		start = i + 1;
		keep = start;
	}
	if (keep < len)
		rt_warn("%s:%ld: dropping a torn last line (%zu bytes)", path, line + 1,
		    len - keep);
	if (pend) {
		rt_warn("%s:%ld: dropping %ld case records of trial %ld, whose trial "
		    "record is missing (a crash); it runs again", path, pend_line, pend,
		    pend_trial);
		keep = pend_at;
	}
	if (keep < len && ftruncate(fd, (off_t)keep) < 0)
		rt_die("%s: cannot drop the torn line:", path);
	free(data);
}

int
main(int argc, char *argv[])
{
	rt_trial_cli cli;
	collect c;
	long n = 20, shard_k = 1, shard_n = 1, count, todo, t;
	unsigned char *have = NULL;
	char msg[800];
	const char *out = NULL;
	FILE *outf = NULL;
	int resume = 0, junit = 0, nocases = 0, ch, sig;
	const char *judge = NULL;
	char *jdir = NULL;
	char *slash;
	const char *e;

	rt_setprogname(argv[0]);
	rt_secret_protect();
	rt_trial_cli_init(&cli);
	opterr = 0;
	rt_config_apply("rt-collect", longopts, &argc, &argv);
	while ((ch = getopt_long(argc, argv, RT_TRIAL_SHORTOPTS "n:o:hV", longopts, NULL)) != -1) {
		if (rt_trial_cli_opt(&cli, ch, optarg))
			continue;
		switch (ch) {
		case 'n':
			n = rt_num_long("-n", optarg, 1, 100000000);
			break;
		case 'o':
			out = optarg;
			break;
		case OPT_RESUME:
			resume = 1;
			break;
		case OPT_SHARD:
			if (!(slash = strchr(optarg, '/')))
				rt_usage_die("--shard %s: want K/N, like 2/4", optarg);
			*slash = '\0';
			shard_n = rt_num_long("--shard N", slash + 1, 1, 1000000);
			shard_k = rt_num_long("--shard K", optarg, 1, shard_n);
			break;
		case RT_OPT_LIST_OPTIONS: return rt_cli_list_options(longopts);
		case OPT_JUNIT:
			junit = 1;
			break;
		case OPT_CASE:
			if (!*optarg)
				rt_usage_die("--case: empty ID");
			judge = optarg;
			junit = 1;
			break;
		case 'h':
			usage(stdout);
			rt_trial_cli_free(&cli);
			rt_fshut(stdout, "stdout");
			return 0;
		case 'V':
			rt_trial_cli_free(&cli);
			rt_print_version();
			return 0;
		default:
			rt_bad_option(ch, RT_TRIAL_SHORTOPTS "n:o:hV", argv);
		}
	}
	rt_trial_cli_finish(&cli, argc, argv, optind, 1);
	if (resume && (!out || rt_output_fd(out) >= 0))
		rt_usage_die("--resume needs --out FILE (a file it reads back, not a descriptor)");

	memset(&c, 0, sizeof c);
	c.cli = &cli;
	c.judge = judge;
	/* --junit and --case: the runner is asked for its report (pytest's
	 * --junitxml, go test's -json, jest-junit's file) unless the command
	 * names its own; any other command writes $RETRIAL_JUNIT itself */
	if (junit && (rt_cases_auto(&cli.o, c.noauto, sizeof c.noauto) == 0 ||
	    rt_runner_of(cli.o.runner)->no_report))
		c.noauto[0] = '\0';    /* asked, or the runner's no_report says it */
	c.conf = 0.95;
	c.outname = out && strcmp(out, "-") != 0 ? out : "stdout";
	count = shard_k > n ? 0 : (n - shard_k) / shard_n + 1;
	todo = count;
	/* one writer per file: the lock comes before any truncation or scan */
	if (out && !(outf = rt_output_open(out, RT_OUT_LOCK |
	    (resume ? RT_OUT_APPEND : 0))))
		rt_output_die(out);
	c.fd = outf ? fileno(outf) : 1;
	if (resume) {
		have = rt_xcalloc((size_t)n / 8 + 1, 1);
		if (c.fd != 1)
			resume_scan(c.fd, out, cli.command, n, have);
		for (t = shard_k; t <= n; t += shard_n)
			if (have[t / 8] & (1u << (t % 8)))
				todo--;
	}
	if (junit) {
		jdir = rt_cases_dir_make(&c.jdir);
		cli.o.junit_dir = jdir;
	}
	/* a test hook (t/01-rt-collect.bats): die by SIGKILL after trial N's
	 * case records, before its trial record, as a crash would */
	if ((e = getenv("RETRIAL_TEST_CRASH_AFTER_CASES")) && *e)
		c.crash_after = rt_num_long("RETRIAL_TEST_CRASH_AFTER_CASES", e, 1,
		    100000000);
	rt_trial_signals_install();
	/* this shard's trials: shard_k, shard_k + shard_n, ... up to n,
	 * skipping those a resumed file already has */
	rt_progress_init(&c.prog, todo);
	sig = rt_run_trials_except(&cli.o, shard_k, count, shard_n, have, on_trial, &c);
	if (!sig)
		sig = rt_trial_interrupted();
	free(have);
	rt_progress_clear(&c.prog);
	if (outf && rt_output_close(outf) < 0)
		rt_die("%s:", out);
	if (rt_errors_warning(msg, sizeof msg, &c.tally, c.reason))
		rt_warn("%s", msg);
	if (jdir) {
		/* and reports of trials killed before they were read */
		rt_cases_dir_remove(&c.jdir, jdir);
		jdir = NULL;
		if (c.done > 0 && c.noreport + c.badreport == c.done && !sig && !c.broken) {
			/* --junit asked for test cases: none at all is a failure,
			 * not a run to measure */
			rt_warn("--junit: none of the %ld trials wrote a readable per-case "
			    "report at $RETRIAL_JUNIT%s%s%s", c.done, c.noauto[0] ? " (" : "",
			    c.noauto, c.noauto[0] ? ")" : "");
			nocases = 1;
		} else if (c.noreport || c.badreport)
			rt_warn("%ld of %ld trials wrote no JUnit report, %ld an unreadable one: "
			    "their test cases are missing", c.noreport, c.done, c.badreport);
	}
	rt_trial_cli_free(&cli);
	if (sig)
		return rt_signal_status(sig);
	return c.broken ? RT_EXIT_PIPE : nocases ? RT_EXIT_ERR : RT_EXIT_OK;
}
