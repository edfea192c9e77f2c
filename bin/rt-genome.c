/* rt-genome: query the flake genome rt-verify records — who proposes the
 * fixes that win, per cause class, with intervals; each test's history. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_jsonl.h"
#include "rt_stats.h"
#include "rt_store.h"
#include "rt_util.h"

enum { OPT_CONF = 1000, OPT_IMPORT, OPT_CLASS };

static struct {
	double conf;
	int json, history, import;
	const char *test, *cls;
	char *path;
	rt_store *store;
	long imported;
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
"  -H, --history          each test's runs, oldest first, instead of the leaderboard\n"
"  -t, --test NAME        with --history: only this test\n"
"      --import           record verdict records (from rt-verify) read from the\n"
"                         files or stdin\n"
"  -j, --json             JSON records instead of a table\n"
"  -h, --help             this text\n"
"  -V, --version          the version\n", f);
}

/* "2/3 won (66.7%, 95% CI 20.8–93.9%)" or "0/5 won (≤43.4% at 95% confidence)" */
static void
won_text(char *buf, size_t size, long k, long n, const rt_interval *iv)
{
	int lvl = (int)lround(G.conf * 100);

	if (n == 0)
		snprintf(buf, size, "0/0 won (no hypothesis raced)");
	else if (k == 0)
		snprintf(buf, size, "0/%ld won (≤%.1f%% at %d%% confidence)", n,
		    100 * iv->high, lvl);
	else
		snprintf(buf, size, "%ld/%ld won (%.1f%%, %d%% CI %.1f–%.1f%%)", k, n,
		    100.0 * (double)k / (double)n, lvl, 100 * iv->low, 100 * iv->high);
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

/* Print s padded to width columns (UTF-8 continuation bytes take none). */
static void
padded(const char *s, int width)
{
	int cols = 0;
	const char *p;

	for (p = s; *p; p++)
		cols += ((unsigned char)*p & 0xC0) != 0x80;
	fputs(s, stdout);
	for (; cols < width; cols++)
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
	int rc;

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
		rt_wilson(r->wins, r->n, G.conf, &r->iv);
	}
	if (rc != SQLITE_DONE)
		sqldie("leaderboard");
	sqlite3_finalize(st);
	qsort(rows, n, sizeof *rows, row_cmp);
	if (!G.json && n > 0)
		printf("%-14s %-18s %-38s %8s %12s\n", "CAUSE CLASS", "PROPOSER",
		    "WON", "NEUTERED", "PATCH FAILED");
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
			padded(r->cls, 14);
			putchar(' ');
			padded(r->who, 18);
			putchar(' ');
			padded(text, 38);
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

static void
history(void)
{
	static const char *const sql =
	    "SELECT r.id, r.recorded_at, r.test, r.project, r.verdict,"
	    " r.base_trials, r.base_failures, r.base_rate, r.base_ci_low,"
	    " r.base_ci_high, r.winner, h.source, h.model, h.cause_class,"
	    " (SELECT c.trials FROM confirmations c WHERE c.run_id = r.id AND"
	    "  c.hyp_id = r.winner ORDER BY c.round DESC LIMIT 1),"
	    " (SELECT c.failures FROM confirmations c WHERE c.run_id = r.id AND"
	    "  c.hyp_id = r.winner ORDER BY c.round DESC LIMIT 1),"
	    " (SELECT count(*) FROM hypotheses x WHERE x.run_id = r.id),"
	    " r.confidence"
	    " FROM runs r LEFT JOIN hypotheses h ON h.run_id = r.id AND h.hyp_id = r.winner"
	    " WHERE (?1 IS NULL OR r.test = ?1)"
	    " ORDER BY r.test, r.recorded_at, r.id";
	sqlite3_stmt *st;
	const char *last = NULL;
	char *lastbuf = NULL, base[160], conf[160];
	long runs = 0, k, n;
	rt_interval iv;
	int rc;

	if (sqlite3_prepare_v2(rt_store_db(G.store), sql, -1, &st, NULL) != SQLITE_OK)
		sqldie("history");
	if (G.test)
		sqlite3_bind_text(st, 1, G.test, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *test = col_text(st, 2), *winner = col_text(st, 10);
		double c = sqlite3_column_type(st, 17) == SQLITE_NULL ? G.conf :
		    sqlite3_column_double(st, 17);
		runs++;
		k = (long)sqlite3_column_int64(st, 6);
		n = (long)sqlite3_column_int64(st, 5);
		rt_wilson(k, n, c, &iv);
		if (n == 0)
			snprintf(base, sizeof base, "0 valid trials");
		else if (k == 0)
			snprintf(base, sizeof base, "0/%ld failed (≤%.1f%% at %g%% confidence)",
			    n, 100 * iv.high, 100 * c);
		else
			snprintf(base, sizeof base, "%ld/%ld failed (%.1f%%, %g%% CI %.1f–%.1f%%)",
			    k, n, 100.0 * (double)k / (double)n, 100 * c, 100 * iv.low,
			    100 * iv.high);
		conf[0] = '\0';
		if (sqlite3_column_type(st, 14) != SQLITE_NULL) {
			long ck = (long)sqlite3_column_int64(st, 15);
			long cn = (long)sqlite3_column_int64(st, 14);
			rt_interval ci;
			/* zero failures with what they prove: the exact one-sided
			 * bound 1 − (1 − c)^(1/n), the confirmation rule's own */
			if (cn == 0)
				snprintf(conf, sizeof conf, "no valid trial on fresh trials");
			else if (ck == 0)
				snprintf(conf, sizeof conf, "0/%ld failed on fresh trials (≤%.1f%% "
				    "at %g%% confidence)", cn, 100 * (1 - pow(1 - c,
				    1.0 / (double)cn)), 100 * c);
			else {
				rt_wilson(ck, cn, c, &ci);
				snprintf(conf, sizeof conf, "%ld/%ld failed on fresh trials (%.1f%%, "
				    "%g%% CI %.1f–%.1f%%)", ck, cn, 100.0 * (double)ck / (double)cn,
				    100 * c, 100 * ci.low, 100 * ci.high);
			}
		}
		if (G.json) {
			json_t *o = json_object();
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
			set_str(o, "winner_source", col_text(st, 11));
			set_str(o, "winner_model", col_text(st, 12));
			set_str(o, "cause_class", col_text(st, 13));
			if (conf[0])
				json_object_set_new(o, "confirmation", json_pack("{s:I,s:I,s:s}",
				    "trials", (json_int_t)sqlite3_column_int64(st, 14),
				    "failures", (json_int_t)sqlite3_column_int64(st, 15),
				    "summary", conf));
			else
				json_object_set_new(o, "confirmation", json_null());
			json_object_set_new(o, "hypotheses", json_integer(sqlite3_column_int64(st, 16)));
			rt_emit(stdout, o);
			json_decref(o);
			continue;
		}
		if (!last || strcmp(last, test) != 0) {
			printf("%s%s  (%s)\n", last ? "\n" : "", test, col_text(st, 3));
			free(lastbuf);
			last = lastbuf = rt_xstrdup(test);
		}
		printf("  %-24s %-21s original %s", col_text(st, 1), col_text(st, 4), base);
		if (winner)
			printf("; winner %s (%s, %s), %s", winner,
			    col_text(st, 12) ? col_text(st, 12) : col_text(st, 11) ?
			    col_text(st, 11) : "?", col_text(st, 13) ? col_text(st, 13) :
			    "unknown", conf[0] ? conf : "unconfirmed");
		printf("; %lld hypothes%s\n", (long long)sqlite3_column_int64(st, 16),
		    sqlite3_column_int64(st, 16) == 1 ? "is" : "es");
	}
	if (rc != SQLITE_DONE)
		sqldie("history");
	sqlite3_finalize(st);
	free(lastbuf);
	if (!G.json && runs == 0)
		printf("no runs recorded%s%s in %s\n", G.test ? " for " : "",
		    G.test ? G.test : "", G.path);
}

static int
on_verdict(json_t *rec, const rt_where *w, void *ctx)
{
	char err[512];

	(void)ctx;
	if (strcmp(json_string_value(json_object_get(rec, "type")), "verdict") != 0)
		return 0;
	rt_rec_str(rec, "verdict", w);
	rt_rec_str(rec, "command", w);
	if (rt_store_add_verdict(G.store, rec, err, sizeof err) < 0)
		rt_die_at(w, "%s", err);
	G.imported++;
	return 0;
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
		{ NULL, 0, NULL, 0 }
	};
	const char *gopt = NULL;
	char err[512];
	struct stat st;
	int opt;

	rt_setprogname(argv[0]);
	G.conf = 0.95;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "g:Ht:jhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'g':
			gopt = optarg;
			break;
		case OPT_CONF:
			G.conf = rt_num_double("--confidence", optarg, 0, 1, 1, 1);
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
		rt_jsonl_loop(argc - optind, argv + optind, NULL, on_verdict, NULL);
		fprintf(stderr, "%s: recorded %ld run%s in %s\n", rt_progname, G.imported,
		    G.imported == 1 ? "" : "s", G.path);
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
