/* rt-genome: query the flake genome rt-verify records — who proposes the
 * fixes that win, per cause class, with intervals; each test's history. */
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_cli.h"
#include "rt_config.h"
#include "rt_jsonl.h"
#include "rt_records.h"
#include "rt_stats.h"
#include "rt_store.h"
#include "rt_util.h"

enum { OPT_CONF = 1000, OPT_IMPORT, OPT_CLASS };

#define MAX_COL 32               /* widest class or proposer column */
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))

static struct {
	double conf;
	int json, history, import;
	const char *test, *cls;
	char *path;
	rt_store *store;
	long imported, skipped;
} G;

static void
usage(FILE *f)
{
	fputs(
"usage: rt-genome [-g FILE] [--confidence C] [--class CLASS] [--json]\n"
"       rt-genome [-g FILE] --history [--test NAME] [--json]\n"
"       rt-genome [-g FILE] --import [verdict-file ...]\n"
"Query the flake genome: the leaderboard of who proposes winning fixes per\n"
"cause class, with intervals, or each test's history across runs.\n"
"  -g, --genome FILE      the database (default $XDG_DATA_HOME/retrial/genome.db)\n"
"      --confidence C     confidence level of the intervals (default 0.95)\n"
"      --class CLASS      only this cause class\n"
"  -H, --history          each project's tests and their runs, oldest first,\n"
"                         instead of the leaderboard\n"
"  -t, --test NAME        with --history: only this test\n"
"      --import           record verdict records (from rt-verify) read from the\n"
"                         files or stdin: checked, one transaction per file,\n"
"                         those already recorded skipped\n"
"  -j, --json             JSON records instead of a table\n"
"  -h, --help             this text\n"
"  -V, --version          the version\n", f);
}

/* "2/3 won (66.7%, 95% CI 20.8%–93.9%)" or "0/5 won (≤45.1% at 95%
 * confidence)": the exact one-sided bound for 0/n and n/n, as every tool */
static void
won_text(char *buf, size_t size, long k, long n, const rt_interval *iv)
{
	(void)iv;
	if (n == 0)
		snprintf(buf, size, "0/0 won (no hypothesis raced)");
	else
		rt_rate_phrase(buf, size, k, n, G.conf, "won");
}

static const char *
col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? (const char *)s : NULL;
}

static void
set_str(json_t *o, const char *k, const char *v)
{
	json_object_set_new(o, k, v ? json_string(v) : json_null());
}

static void
sqldie(const char *what)
{
	rt_die("%s: %s: %s", G.path, what, sqlite3_errmsg(rt_store_db(G.store)));
}

/* Display columns of UTF-8 text: one per character (continuation bytes
 * take none). */
static int
cols(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* Print s in exactly width columns: padded, or cut to width - 1 columns
 * and an ellipsis, so a long class or model name cannot shift the table. */
static void
cell(const char *s, int width)
{
	int n = 0;
	const char *p;

	if (cols(s) <= width) {
		fputs(s, stdout);
		n = cols(s);
	} else {
		for (p = s; *p; p++) {
			if (((unsigned char)*p & 0xC0) != 0x80 && ++n > width - 1)
				break;
			putchar(*p);
		}
		fputs("…", stdout);
		n = width;
	}
	for (; n < width; n++)
		putchar(' ');
}

struct row {
	char *cls, *who, *model, *source;
	long n, wins, neutered, failed;
	rt_interval iv;
};

static int
row_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	int c = strcmp(a->cls, b->cls);

	if (c)
		return c;
	/* rank by what the data can show: the interval's lower bound first */
	if (a->iv.low != b->iv.low)
		return a->iv.low > b->iv.low ? -1 : 1;
	if (a->wins != b->wins)
		return a->wins > b->wins ? -1 : 1;
	return strcmp(a->who, b->who);
}

static void
leaderboard(void)
{
	static const char *const sql =
	    "SELECT coalesce(h.cause_class, 'unknown'),"
	    " coalesce(h.model, h.source, 'unknown'), h.model, h.source,"
	    " count(*), sum(h.won), sum(h.status = 'neutered'),"
	    " sum(h.status = 'patch_failed')"
	    " FROM hypotheses h"
	    " WHERE h.status != 'not_raced' AND (?1 IS NULL OR h.cause_class = ?1)"
	    " GROUP BY 1, 2";
	sqlite3_stmt *st;
	struct row *rows = NULL;
	size_t n = 0, i;
	char text[128];
	int rc, wc = 11, wp = 8, ww = 3;

	if (sqlite3_prepare_v2(rt_store_db(G.store), sql, -1, &st, NULL) != SQLITE_OK)
		sqldie("leaderboard");
	if (G.cls)
		sqlite3_bind_text(st, 1, G.cls, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct row *r;
		rows = rt_xrealloc(rows, (n + 1) * sizeof *rows);
		r = &rows[n++];
		r->cls = rt_xstrdup(col_text(st, 0));
		r->who = rt_xstrdup(col_text(st, 1));
		r->model = col_text(st, 2) ? rt_xstrdup(col_text(st, 2)) : NULL;
		r->source = col_text(st, 3) ? rt_xstrdup(col_text(st, 3)) : NULL;
		r->n = (long)sqlite3_column_int64(st, 4);
		r->wins = (long)sqlite3_column_int64(st, 5);
		r->neutered = (long)sqlite3_column_int64(st, 6);
		r->failed = (long)sqlite3_column_int64(st, 7);
		rt_rate_interval(r->wins, r->n, G.conf, &r->iv);
	}
	if (rc != SQLITE_DONE)
		sqldie("leaderboard");
	sqlite3_finalize(st);
	qsort(rows, n, sizeof *rows, row_cmp);
	/* columns as wide as their widest entry, up to MAX_COL */
	for (i = 0; i < n; i++) {
		won_text(text, sizeof text, rows[i].wins, rows[i].n, &rows[i].iv);
		wc = MAX(wc, MIN(cols(rows[i].cls), MAX_COL));
		wp = MAX(wp, MIN(cols(rows[i].who), MAX_COL));
		ww = MAX(ww, cols(text));
	}
	if (!G.json && n > 0) {
		cell("CAUSE CLASS", wc);
		putchar(' ');
		cell("PROPOSER", wp);
		putchar(' ');
		cell("WON", ww);
		printf(" %8s %12s\n", "NEUTERED", "PATCH FAILED");
	}
	for (i = 0; i < n; i++) {
		struct row *r = &rows[i];
		won_text(text, sizeof text, r->wins, r->n, &r->iv);
		if (G.json) {
			json_t *o = json_object();
			json_object_set_new(o, "type", json_string("leaderboard"));
			set_str(o, "cause_class", r->cls);
			set_str(o, "proposer", r->who);
			set_str(o, "model", r->model);
			set_str(o, "source", r->source);
			json_object_set_new(o, "hypotheses", json_integer(r->n));
			json_object_set_new(o, "wins", json_integer(r->wins));
			json_object_set_new(o, "win_rate", rt_json_real6((double)r->wins /
			    (double)r->n));
			json_object_set_new(o, "ci_low", rt_json_real6(r->iv.low));
			json_object_set_new(o, "ci_high", rt_json_real6(r->iv.high));
			json_object_set_new(o, "confidence", json_real(G.conf));
			json_object_set_new(o, "neutered", json_integer(r->neutered));
			json_object_set_new(o, "patch_failed", json_integer(r->failed));
			json_object_set_new(o, "summary", json_string(text));
			rt_emit(stdout, o);
			json_decref(o);
		} else {
			cell(r->cls, wc);
			putchar(' ');
			cell(r->who, wp);
			putchar(' ');
			cell(text, ww);
			printf(" %8ld %12ld\n", r->neutered, r->failed);
		}
		free(r->cls);
		free(r->who);
		free(r->model);
		free(r->source);
	}
	if (!G.json && n == 0)
		printf("no raced hypotheses recorded in %s\n", G.path);
	free(rows);
}

/* A confirmation as rt-verify stated it, at its own confidence (a round
 * of two candidates is split, e.g. 97.5%), with its interval method:
 * "0/36 failed (≤9.7% at 97.5% confidence, exact one-sided)". */
static void
confirmation_text(char *buf, size_t size, sqlite3_stmt *st)
{
	const char *sum = col_text(st, 16), *method = col_text(st, 14);
	size_t n;

	/* a fixed-n interval is recomputed from the counts, so these are the
	 * words every tool gives them (lib/rt_say); an anytime one is as
	 * rt-verify recorded it */
	if (!method || strcmp(method, "anytime")) {
		/* the confirmation's own confidence, else its run's (rt-pr and
		 * rt-report take the same) */
		int col = sqlite3_column_type(st, 13) != SQLITE_NULL ? 13 :
		    sqlite3_column_type(st, 18) != SQLITE_NULL ? 18 : -1;
		if (col >= 0) {
			rt_say_count(buf, size, (long)sqlite3_column_int64(st, 12),
			    (long)sqlite3_column_int64(st, 11), sqlite3_column_double(st, col),
			    "failed");
			return;
		}
	}
	if (!sum || !*sum) {
		/* recorded before rt-verify stated it: the counts, no interval */
		snprintf(buf, size, "%lld/%lld failed (interval not recorded)",
		    (long long)sqlite3_column_int64(st, 12),
		    (long long)sqlite3_column_int64(st, 11));
		return;
	}
	n = strlen(sum);
	if (!method || strstr(sum, method))
		snprintf(buf, size, "%s", sum);
	else if (n > 0 && sum[n - 1] == ')')
		snprintf(buf, size, "%.*s, %s)", (int)(n - 1), sum, method);
	else
		snprintf(buf, size, "%s (%s)", sum, method);
}

/* Each project's tests, each test's runs oldest first. */
static void
history(void)
{
	static const char *const sql =
	    "SELECT r.id, r.recorded_at, r.test, r.project, r.verdict,"
	    " r.base_trials, r.base_failures, r.winner, h.source, h.model,"
	    " h.cause_class, c.trials, c.failures, c.confidence, c.interval,"
	    " c.ci_high, c.summary,"
	    " (SELECT count(*) FROM hypotheses x WHERE x.run_id = r.id),"
	    " r.confidence"
	    " FROM runs r"
	    " LEFT JOIN hypotheses h ON h.run_id = r.id AND h.hyp_id = r.winner"
	    " LEFT JOIN confirmations c ON c.run_id = r.id AND c.round ="
	    "  (SELECT max(y.round) FROM confirmations y WHERE y.run_id = r.id"
	    "   AND y.hyp_id = r.winner)"
	    " WHERE (?1 IS NULL OR r.test = ?1)"
	    " ORDER BY r.project, r.test, r.recorded_at, r.id";
	sqlite3_stmt *st;
	char *lastproj = NULL, *lasttest = NULL, base[160], conf[256];
	long runs = 0, k, n;
	rt_interval iv;
	int rc;

	if (sqlite3_prepare_v2(rt_store_db(G.store), sql, -1, &st, NULL) != SQLITE_OK)
		sqldie("history");
	if (G.test)
		sqlite3_bind_text(st, 1, G.test, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *test = col_text(st, 2), *winner = col_text(st, 7);
		const char *proj = col_text(st, 3) ? col_text(st, 3) : "";
		double c = sqlite3_column_type(st, 18) == SQLITE_NULL ? G.conf :
		    sqlite3_column_double(st, 18);
		int confirmed = sqlite3_column_type(st, 11) != SQLITE_NULL;
		runs++;
		k = (long)sqlite3_column_int64(st, 6);
		n = (long)sqlite3_column_int64(st, 5);
		rt_rate_interval(k, n, c, &iv);
		if (n == 0)
			snprintf(base, sizeof base, "0 valid trials");
		else
			rt_rate_text(base, sizeof base, k, n, c);
		if (confirmed)
			confirmation_text(conf, sizeof conf, st);
		if (G.json) {
			json_t *o = json_object(), *cf;
			json_object_set_new(o, "type", json_string("history"));
			set_str(o, "test", test);
			set_str(o, "project", col_text(st, 3));
			json_object_set_new(o, "run", json_integer(sqlite3_column_int64(st, 0)));
			set_str(o, "recorded_at", col_text(st, 1));
			set_str(o, "verdict", col_text(st, 4));
			json_object_set_new(o, "baseline", json_pack("{s:I,s:I,s:o,s:o,s:o,s:s}",
			    "trials", (json_int_t)n, "failures", (json_int_t)k,
			    "rate", n ? rt_json_real6((double)k / (double)n) : json_null(),
			    "ci_low", rt_json_real6(iv.low), "ci_high", rt_json_real6(iv.high),
			    "summary", base));
			set_str(o, "winner", winner);
			set_str(o, "winner_source", col_text(st, 8));
			set_str(o, "winner_model", col_text(st, 9));
			set_str(o, "cause_class", col_text(st, 10));
			if (confirmed) {
				cf = json_pack("{s:I,s:I}",
				    "trials", (json_int_t)sqlite3_column_int64(st, 11),
				    "failures", (json_int_t)sqlite3_column_int64(st, 12));
				json_object_set_new(cf, "confidence", sqlite3_column_type(st, 13) ==
				    SQLITE_NULL ? json_null() : json_real(sqlite3_column_double(st, 13)));
				set_str(cf, "interval", col_text(st, 14));
				json_object_set_new(cf, "ci_high", sqlite3_column_type(st, 15) ==
				    SQLITE_NULL ? json_null() : rt_json_real6(sqlite3_column_double(st, 15)));
				json_object_set_new(cf, "summary", json_string(conf));
				json_object_set_new(o, "confirmation", cf);
			} else {
				json_object_set_new(o, "confirmation", json_null());
			}
			json_object_set_new(o, "hypotheses", json_integer(sqlite3_column_int64(st, 17)));
			rt_emit(stdout, o);
			json_decref(o);
			continue;
		}
		if (!lastproj || strcmp(lastproj, proj) != 0) {
			printf("%sproject %s\n", lastproj ? "\n" : "", *proj ? proj : "(none)");
			free(lastproj);
			lastproj = rt_xstrdup(proj);
			free(lasttest);
			lasttest = NULL;
		}
		if (!lasttest || strcmp(lasttest, test) != 0) {
			printf("  %s\n", test);
			free(lasttest);
			lasttest = rt_xstrdup(test);
		}
		printf("    %-24s %-21s original %s", col_text(st, 1), col_text(st, 4), base);
		if (winner)
			printf("; winner %s (%s, %s), %s%s", winner,
			    col_text(st, 9) ? col_text(st, 9) : col_text(st, 8) ?
			    col_text(st, 8) : "?", col_text(st, 10) ? col_text(st, 10) :
			    "unknown", confirmed ? "on fresh trials " : "unconfirmed",
			    confirmed ? conf : "");
		printf("; %lld hypothes%s\n", (long long)sqlite3_column_int64(st, 17),
		    sqlite3_column_int64(st, 17) == 1 ? "is" : "es");
	}
	if (rc != SQLITE_DONE)
		sqldie("history");
	sqlite3_finalize(st);
	free(lastproj);
	free(lasttest);
	if (!G.json && runs == 0)
		printf("no runs recorded%s%s in %s\n", G.test ? " for " : "",
		    G.test ? G.test : "", G.path);
}

/* ---- import ------------------------------------------------------------ */

/* A verdict record is checked like any record before anything of its
 * file is written (rt-genome(1), IMPORT): by lib/rt_records' schema. */
static void
check_verdict(json_t *rec, const rt_where *w)
{
	rt_rec_check(RT_REC_VERDICT, rec, w);
}

/* One file's verdicts, checked, kept until the file has been read whole. */
struct pending {
	json_t **rec;
	long *line;
	size_t n;
};

static int
on_verdict(json_t *rec, const rt_where *w, void *ctx)
{
	struct pending *p = ctx;

	if (strcmp(json_string_value(json_object_get(rec, "type")), "verdict") != 0)
		return 0;
	check_verdict(rec, w);
	p->rec = rt_xrealloc(p->rec, (p->n + 1) * sizeof *p->rec);
	p->line = rt_xrealloc(p->line, (p->n + 1) * sizeof *p->line);
	p->rec[p->n] = json_incref(rec);
	p->line[p->n++] = w->line;
	return 0;
}

/* Import one file (NULL: stdin) in one transaction: a bad record leaves
 * nothing of its file behind; a verdict already there is skipped. */
static void
import_file(char *file)
{
	struct pending p = { NULL, NULL, 0 };
	rt_where w = { file ? file : "<stdin>", 0 };
	char err[512];
	long long id;
	size_t i;

	if (file && !strcmp(file, "-"))
		w.file = "<stdin>";
	rt_jsonl_loop(file ? 1 : 0, file ? &file : NULL, NULL, on_verdict, &p);
	if (rt_store_begin(G.store, err, sizeof err) < 0)
		rt_die("%s: %s", G.path, err);
	for (i = 0; i < p.n; i++) {
		w.line = p.line[i];
		if ((id = rt_store_add_verdict(G.store, p.rec[i], err, sizeof err)) < 0) {
			rt_store_rollback(G.store);
			rt_die_at(&w, "%s: %s", G.path, err);
		}
		if (id == 0) {
			rt_warn("%s:%ld: already recorded in %s (same content); skipped",
			    w.file, w.line, G.path);
			G.skipped++;
		} else {
			G.imported++;
		}
	}
	if (rt_store_commit(G.store, err, sizeof err) < 0)
		rt_die("%s: %s", G.path, err);
	for (i = 0; i < p.n; i++)
		json_decref(p.rec[i]);
	free(p.rec);
	free(p.line);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "genome", required_argument, NULL, 'g' },
		{ "confidence", required_argument, NULL, OPT_CONF },
		{ "class", required_argument, NULL, OPT_CLASS },
		{ "history", no_argument, NULL, 'H' },
		{ "test", required_argument, NULL, 't' },
		{ "import", no_argument, NULL, OPT_IMPORT },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		RT_LIST_OPTIONS_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	const char *gopt = NULL;
	char err[512];
	struct stat st;
	int opt;

	rt_setprogname(argv[0]);
	G.conf = 0.95;
	opterr = 0;
	rt_config_apply("rt-genome", longopts, &argc, &argv);
	while ((opt = getopt_long(argc, argv, "g:Ht:jhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'g':
			gopt = optarg;
			break;
		case OPT_CONF:
			G.conf = rt_num_confidence("--confidence", optarg);
			break;
		case OPT_CLASS:
			G.cls = optarg;
			break;
		case 'H':
			G.history = 1;
			break;
		case 't':
			G.test = optarg;
			break;
		case OPT_IMPORT:
			G.import = 1;
			break;
		case 'j':
			G.json = 1;
			break;
		case RT_OPT_LIST_OPTIONS: return rt_cli_list_options(longopts);
		case 'h':
			usage(stdout);
			rt_fshut(stdout, "stdout");
			return 0;
		case 'V':
			rt_print_version();
			rt_fshut(stdout, "stdout");
			return 0;
		default:
			rt_bad_option(opt, "g:Ht:jhV", argv);
		}
	}
	if (G.import && G.history)
		rt_usage_die("--import and --history are exclusive");
	if (G.test && !G.history)
		rt_usage_die("--test needs --history");
	if (optind < argc && !G.import)
		rt_usage_die("%s: unexpected operand (files are read only with --import)",
		    argv[optind]);
	G.path = gopt ? rt_xstrdup(gopt) : rt_store_default_path();
	if (!G.path)
		rt_die("no genome: set XDG_DATA_HOME or HOME, or give --genome");
	/* a query never creates a database: a mistyped name is an error */
	if (!G.import && stat(G.path, &st) < 0)
		rt_die("%s: no genome here (rt-verify records one):", G.path);
	if (!(G.store = rt_store_open(G.path, G.import && !gopt, err, sizeof err)))
		rt_die("%s", err);
	if (G.import) {
		if (optind == argc)
			import_file(NULL);
		for (; optind < argc; optind++)
			import_file(argv[optind]);
		fprintf(stderr, "%s: recorded %ld run%s in %s", rt_progname, G.imported,
		    G.imported == 1 ? "" : "s", G.path);
		if (G.skipped)
			fprintf(stderr, "; %ld already there", G.skipped);
		fputc('\n', stderr);
	} else if (G.history) {
		history();
	} else {
		leaderboard();
	}
	rt_store_close(G.store);
	free(G.path);
	rt_fshut(stdout, "stdout");
	return 0;
}
