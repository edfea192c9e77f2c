/* rt-junit: read JUnit XML reports and write one "trial" record per test
 * execution, so per-test rates come from the reports every CI already keeps. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_config.h"
#include "rt_jsonl.h"
#include "rt_cases.h"
#include "rt_junit.h"
#include "rt_trial.h"
#include "rt_util.h"

enum { OPT_RUN = 1000, OPT_REVISION, OPT_MAXOUT, OPT_SAME_RUN };

static const struct option longopts[] = {
	{ "run", required_argument, NULL, OPT_RUN },
	{ "same-run", no_argument, NULL, OPT_SAME_RUN },
	{ "revision", required_argument, NULL, OPT_REVISION },
	{ "max-output", required_argument, NULL, OPT_MAXOUT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	RT_LIST_OPTIONS_LONGOPT,
	{ NULL, 0, NULL, 0 }
};

static void
usage(FILE *f)
{
	fprintf(f,
"usage: rt-junit [--run ID [--same-run]] [--revision SHA] [--max-output BYTES]\n"
"                [REPORT ...]\n"
"Read JUnit XML reports (or go test -json output) and write one \"trial\"\n"
"record per test execution.\n"
"      --run ID           the run the reports belong to (default: each file a\n"
"                         run of its own, named by the file and its testsuite\n"
"                         timestamp)\n"
"      --same-run         the several reports given are one run: --run names it\n"
"      --revision SHA     the revision tested (default: $GITHUB_SHA, $CI_COMMIT_SHA,\n"
"                         $GIT_COMMIT or $BUILD_VCS_NUMBER)\n"
"      --max-output BYTES system-out/system-err bytes kept per record (4096)\n"
"  -h, --help             this text\n"
"  -V, --version          the version\n");
}

static int
on_rec(json_t *rec, void *ctx)
{
	(void)ctx;
	if (rt_emit_try(stdout, rec) < 0)
		rt_die("stdout: write error:");
	return 0;
}

int
main(int argc, char *argv[])
{
	rt_junit_opts o;
	char err[400];
	const char *path;
	FILE *f;
	int ch, i, bad = 0, same_run = 0;

	rt_setprogname(argv[0]);
	memset(&o, 0, sizeof o);
	opterr = 0;
	rt_config_apply("rt-junit", longopts, &argc, &argv);
	while ((ch = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_RUN:
			o.run = optarg;
			break;
		case OPT_REVISION:
			o.revision = optarg;
			break;
		case OPT_SAME_RUN:
			same_run = 1;
			break;
		case OPT_MAXOUT:
			o.max_output = (size_t)rt_num_long("--max-output", optarg, 1, 1L << 30);
			break;
		case RT_OPT_LIST_OPTIONS: return rt_cli_list_options(longopts);
		case 'h':
			usage(stdout);
			rt_fshut(stdout, "stdout");
			return 0;
		case 'V':
			rt_print_version();
			return 0;
		default:
			rt_bad_option(ch, "hV", argv);
		}
	}
	/* one --run over many reports would make a month of nights one run */
	if (o.run && argc - optind > 1 && !same_run)
		rt_usage_die("--run %s given to %d reports: each report is a run of its "
		    "own by default; --same-run says they are one run", o.run, argc - optind);
	if (same_run && !o.run)
		rt_usage_die("--same-run names no run: give --run ID");
	if (!o.revision)
		o.revision = rt_junit_revision_env();
	/* a FIFO named here is fine input, but TERM, INT and HUP must end a
	 * read that waits on it, with the records so far written */
	rt_trial_signals_install();
	for (i = optind; (i < argc || i == optind) && !rt_trial_interrupted(); i++) {
		path = i < argc ? argv[i] : "-";
		if (strcmp(path, "-") == 0) {
			f = stdin;
			o.report = "<stdin>";
		} else if (!(f = fopen(path, "re"))) {
			if (rt_trial_interrupted())
				break;
			rt_warn("%s: %s", path, strerror(errno));
			bad = 1;
			continue;
		} else
			o.report = path;
		if (rt_cases_read(f, &o, on_rec, NULL, err, sizeof err) < 0 &&
		    !rt_trial_interrupted()) {
			rt_warn("%s:%s", o.report, err);
			bad = 1;
		}
		if (f != stdin)
			fclose(f);
	}
	rt_fshut(stdout, "stdout");
	if (rt_trial_interrupted())
		return rt_signal_status(rt_trial_interrupted());
	return bad ? RT_EXIT_ERR : RT_EXIT_OK;
}
