/* rt-diff-facts: what is true only when the test fails — words, exit codes,
 * timing, position and environment that separate failing from passing trials. */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rt_cli.h"
#include "rt_config.h"
#include "rt_jsonl.h"
#include "rt_records.h"
#include "rt_runner.h"
#include "rt_stats.h"
#include "rt_text.h"
#include "rt_util.h"

#define ALPHA 0.05         /* a fact short of full coverage needs p ≤ ALPHA */
#define SKEW 0.25          /* failure_more/success_more: rates differ by ≥ this */
#define RES_CAP 65536      /* reservoir per group for timing and position */
#define ENV_MAX_VALUES 64  /* an env key with more values is seed-like: dropped */
#define PERIOD_MAX (1LL << 40)
#define NONE ((size_t)-1)
#define CHUNK (4 << 20)    /* input is cut into stretches of about this size */
#define JOBS_MAX 64
/* High-entropy output (random names, addresses) makes every token new.
 * A stretch holds at most WORDS_MAX distinct words and PAIRS_MAX pairs,
 * the whole twice as many; a full table forgets the words seen in one
 * record only (compact), and when that frees little, new words are
 * dropped. Both are counted: rt-diff-facts(1), "tokens_capped". */
#define WORDS_MAX (1 << 18)
#define PAIRS_MAX (1 << 19)

/* Per token, env value, exit code or signal: records holding it. */
typedef struct {
	long nf, ns;
	long seen;         /* serial of the last record counted: once per record */
} count;

typedef struct {
	long records, distinct;
	int dropped;
} envkey;

/* Uniform sample of at most RES_CAP values (Algorithm R, fixed seed so
 * that the output is reproducible); exact while n ≤ RES_CAP. */
typedef struct {
	double *v;
	size_t n, cap;
	long seen;
	uint64_t rng;
} reservoir;

/* One trial record's place in the sequence, replayed in input order. */
typedef struct {
	long long trial;
	double el;
	long ord;                /* the record's ordinal within its stretch */
	unsigned char fail, has_trial, has_el;
} event;

/* The command, and of one failing and one passing trial (the lowest
 * trial number of each; input order breaks ties) the tails of both
 * streams and the failure excerpt of the stream that holds the failure,
 * for rt-diagnose. */
#define EXCERPT_MAX 2000
enum { X_ERR, X_OUT, X_EXCERPT };
typedef struct {
	char *cmd;
	char *ex[2][3];          /* [0] passing, [1] failing; X_* */
	size_t exlen[2][3];
	int stream[2];           /* RT_STDERR or RT_STDOUT */
	long long exkey[2], extrial[2];
	int has[2], hastrial[2];
} sample;

/* A seed a runner printed in one trial record (rt_seed_next). */
#define SEED_LIST_MAX 50   /* seed values listed per side */
typedef struct {
	int runner;              /* index in rt_seed_names() */
	int stream;              /* -1: the environment */
	int fail;
	char *value;
} seedrec;

/* The seeds of each runner and side: all counted, the first SEED_KEEP
 * kept, so that memory does not grow with the number of trials. */
#define SEED_KEEP 4096
#define RUNNERS_MAX 8
typedef struct {
	seedrec *v;
	size_t n, cap;
	long cnt[RUNNERS_MAX][2], kept[RUNNERS_MAX][2];
} seedv;

/* What one stretch of whole lines adds up to. Stretches are tallied in
 * parallel and merged in input order, so the result does not depend on
 * how many run at once. */
typedef struct {
	const char *data;
	size_t len;
	int lenient;
	rt_strtab *words;    /* tag byte + text -> count; tags below */
	rt_strtab *pairs;    /* tag + word id + word id -> count */
	rt_strtab *envkeys;  /* name -> envkey */
	long serial, ordinal, lines;
	long errors, timeouts, conc_f, conc_s, skipped;
	long dropped;        /* words and pairs forgotten or dropped (the caps) */
	size_t *remap;       /* compact: old word id -> new */
	size_t capremap;
	int saturated;       /* compact frees too little: drop new words */
	event *ev;
	size_t nev, capev;
	long bad_line;       /* the first fatal line (within the stretch), or 0 */
	char msg[320];
	sample smp;          /* the command and the excerpts */
	seedv seeds;         /* in input order */
} part;

typedef struct {
	rt_strtab *words, *pairs, *envkeys;
	long ordinal;
	long F, S, errors, timeouts, conc_f, conc_s, skipped, timed_f, timed_s;
	long long *ftrials;
	size_t nft, capft;
	reservoir tf, ts, pf, ps;
	/* periodicity: the gcd of failing trial numbers, and for each of its
	 * divisors ≥ 2 the passing trials at its multiples */
	int have_g, period_off;
	long long g, *div, *pre;
	long *divcnt;
	size_t ndiv, npre, cappre;
	int lenient, jobs;
	size_t chunk;
	size_t *map;         /* merge: stretch word id -> word id */
	size_t capmap;
	sample smp;
	seedv seeds;
	int token_stream;    /* of the token picked, or -1 */
	long dropped;        /* words and pairs forgotten or dropped (the caps) */
	size_t *remap;
	size_t capremap;
	int saturated;
} ctx;

/* TAG_MSG and TAG_LINE keys go on with the stream ('e' or 'o') and the
 * failure line's score ('1'..'3'): a runner's failure message, and a word
 * on a failure line. */
enum { TAG_ERR = 'e', TAG_OUT = 'o', TAG_EXIT = 'x', TAG_SIG = 's', TAG_ENV = 'v',
	TAG_MSG = 'm', TAG_LINE = 'l' };
#define MSG_MAX 200        /* bytes of a failure message kept as a token */
/* In the order that breaks ties: what a whole error line cannot say first. */
enum { K_POSITION, K_ENV, K_TIMING, K_TOKEN, K_PHRASE, K_EXIT, K_SIGNAL, K_TIMEOUT,
	K_SEED };
static const char *const kind_name[] = { "position", "env", "timing", "token",
    "phrase", "exit_code", "signal", "timeout", "seed" };

typedef struct {
	int kind, stream;        /* stream: 0 stderr, 1 stdout, -1 none */
	char *value;
	size_t vlen;
	const char *dir;
	long a, c;               /* in failures, in successes */
	double p, cover, other;  /* share of its side covered, of the other side */
	int err;
	char *detail;
} fact;

static void
usage(FILE *f)
{
	fprintf(f, "usage: rt-diff-facts [--jsonl] [--lenient] [-j N] [--top N] [file ...]\n"
	    "  --jsonl      one {\"type\":\"fact\"} record per line instead of one diff record\n"
	    "  --lenient    skip malformed lines and trial records, counted in \"skipped\"\n"
	    "  -j, --jobs N read with N threads (default: the CPUs, at most 8)\n"
	    "  -n, --top N  keep the N strongest facts (default 20; 0 keeps all)\n"
	    "  -h, --help   this text\n"
	    "  -V, --version the version\n");
}

static uint64_t
splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void
res_add(reservoir *r, double x)
{
	uint64_t j;

	r->seen++;
	if (r->n < RES_CAP) {
		if (r->n == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 64;
			r->v = rt_xrealloc(r->v, r->cap * sizeof *r->v);
		}
		r->v[r->n++] = x;
		return;
	}
	j = splitmix(&r->rng) % (uint64_t)r->seen;
	if (j < RES_CAP)
		r->v[j] = x;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static double
median(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
bump(count *k, long serial, int fail)
{
	if (k->seen == serial)
		return;
	k->seen = serial;
	if (fail)
		k->nf++;
	else
		k->ns++;
}

/* The id of key in t, added when t holds fewer than max keys; NONE, and
 * one more dropped, when it is new and t is full. */
static size_t
put_capped(rt_strtab *t, const void *key, size_t len, size_t max, long *dropped)
{
	size_t id;

	if (rt_strtab_count(t) < max)
		return rt_strtab_put(t, key, len, NULL);
	if ((id = rt_strtab_find(t, key, len)) == NONE)
		(*dropped)++;
	return id;
}

/* Forget what no fact can use, when a table is full: words of the text
 * (not exit codes, signals or env values) seen in one record only, and
 * pairs seen in one record or holding a forgotten word. Word ids change:
 * *remap gives each old id's new one, or NONE. The number forgotten; when
 * that is under a quarter, *saturated is set (drop new words instead). */
static long
compact(rt_strtab **words, rt_strtab **pairs, size_t **remap, size_t *cap,
    int *saturated)
{
	rt_strtab *nw = rt_strtab_new(sizeof(count)), *np = rt_strtab_new(sizeof(count));
	size_t i, n = rt_strtab_count(*words), m = rt_strtab_count(*pairs), len, id;
	const char *key;
	const count *k;
	unsigned char pk[9];
	uint32_t a, b;
	long gone = 0;

	if (n > *cap) {
		*cap = n;
		*remap = rt_xrealloc(*remap, n * sizeof **remap);
	}
	for (i = 0; i < n; i++) {
		key = rt_strtab_key(*words, i, &len);
		k = rt_strtab_val(*words, i);
		(*remap)[i] = NONE;
		if (k->nf + k->ns <= 1 && key[0] != TAG_EXIT && key[0] != TAG_SIG &&
		    key[0] != TAG_ENV) {
			gone++;
			continue;
		}
		id = rt_strtab_put(nw, key, len, NULL);
		memcpy(rt_strtab_val(nw, id), k, sizeof *k);
		(*remap)[i] = id;
	}
	for (i = 0; i < m; i++) {
		key = rt_strtab_key(*pairs, i, NULL);
		k = rt_strtab_val(*pairs, i);
		memcpy(&a, key + 1, 4);
		memcpy(&b, key + 5, 4);
		if (k->nf + k->ns <= 1 || (*remap)[a] == NONE || (*remap)[b] == NONE) {
			gone++;
			continue;
		}
		a = (uint32_t)(*remap)[a], b = (uint32_t)(*remap)[b];
		pk[0] = (unsigned char)key[0];
		memcpy(pk + 1, &a, 4);
		memcpy(pk + 5, &b, 4);
		id = rt_strtab_put(np, pk, sizeof pk, NULL);
		memcpy(rt_strtab_val(np, id), k, sizeof *k);
	}
	if ((size_t)gone < (n + m) / 4)
		*saturated = 1;
	rt_strtab_free(*words);
	rt_strtab_free(*pairs);
	*words = nw;
	*pairs = np;
	return gone;
}

static void
bump_key(part *c, const void *key, size_t len, int fail)
{
	size_t id = put_capped(c->words, key, len, WORDS_MAX, &c->dropped);

	if (id != NONE)
		bump(rt_strtab_val(c->words, id), c->serial, fail);
}

/* Words and word pairs of one stream of one record, each counted once. */
static void
scan_text(part *c, const char *s, size_t n, char tag, int fail)
{
	rt_tok t;
	char key[RT_TOK_MAX + 16];
	unsigned char pk[9];
	size_t id, pid, prev = NONE;
	uint32_t a, b;
	int prevpure = 0;

	rt_tok_init(&t, s, n);
	key[0] = tag;
	pk[0] = (unsigned char)tag;
	while (rt_tok_next(&t)) {
		memcpy(key + 1, t.tok, t.len);
		if (!c->saturated && (rt_strtab_count(c->words) >= WORDS_MAX ||
		    rt_strtab_count(c->pairs) >= PAIRS_MAX)) {
			c->dropped += compact(&c->words, &c->pairs, &c->remap, &c->capremap,
			    &c->saturated);
			if (prev != NONE)
				prev = c->remap[prev];
		}
		id = put_capped(c->words, key, t.len + 1, WORDS_MAX, &c->dropped);
		if (id != NONE)
			bump(rt_strtab_val(c->words, id), c->serial, fail);
		if (prev != NONE && id != NONE && !t.newline && !(prevpure && t.pure)) {
			a = (uint32_t)prev, b = (uint32_t)id;
			memcpy(pk + 1, &a, 4);
			memcpy(pk + 5, &b, 4);
			pid = put_capped(c->pairs, pk, sizeof pk, PAIRS_MAX, &c->dropped);
			if (pid != NONE)
				bump(rt_strtab_val(c->pairs, pid), c->serial, fail);
		}
		prev = id;
		prevpure = t.pure;
	}
}

/* An env value as text: strings as they are, other JSON compact. */
static char *
env_text(json_t *v, size_t *len)
{
	char *s;

	if (json_is_string(v)) {
		*len = json_string_length(v);
		s = rt_xmalloc(*len + 1);
		memcpy(s, json_string_value(v), *len + 1);
		return s;
	}
	if (json_is_real(v))
		s = rt_xasprintf("%.12g", json_real_value(v));
	else if (!(s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY)))
		rt_die("out of memory");
	*len = strlen(s);
	return s;
}

static void
scan_env(part *c, json_t *env, int fail)
{
	const char *name;
	json_t *v;
	size_t nlen, vlen, id;
	envkey *ek;
	char *val;
	rt_buf key = {0};
	int created;

	json_object_foreach(env, name, v) {
		nlen = strlen(name);
		ek = rt_strtab_val(c->envkeys, rt_strtab_put(c->envkeys, name, nlen, NULL));
		ek->records++;
		if (ek->dropped)
			continue;
		val = env_text(v, &vlen);
		key.len = 0;
		rt_buf_addc(&key, TAG_ENV);
		rt_buf_add(&key, name, nlen + 1);
		rt_buf_add(&key, val, vlen);
		free(val);
		id = rt_strtab_put(c->words, key.data, key.len, &created);
		if (created && ++ek->distinct > ENV_MAX_VALUES) {
			ek->dropped = 1;
			continue;
		}
		bump(rt_strtab_val(c->words, id), c->serial, fail);
	}
	rt_buf_free(&key);
}

static long long
gcd(long long a, long long b)
{
	while (b) {
		long long t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static void
period_count(ctx *c, long long t)
{
	size_t i;

	for (i = 0; i < c->ndiv; i++)
		if (t % c->div[i] == 0)
			c->divcnt[i]++;
}

/* A passing trial: count it at the multiples of every candidate period,
 * or keep its number until the first failure gives the candidates. */
static void
period_pass(ctx *c, long long t)
{
	if (c->period_off)
		return;
	if (c->have_g) {
		period_count(c, t);
		return;
	}
	if (c->npre == c->cappre) {
		c->cappre = c->cappre ? c->cappre * 2 : 256;
		c->pre = rt_xrealloc(c->pre, c->cappre * sizeof *c->pre);
	}
	c->pre[c->npre++] = t;
}

static void
period_fail(ctx *c, long long t)
{
	long long d, q;
	size_t i, j;

	if (c->period_off || t == 0)
		return;
	if (!c->have_g) {
		c->have_g = 1;
		c->g = t;
		if (t > PERIOD_MAX) {
			c->period_off = 1;
		} else {
			/* divisors ≥ 2 of the first failing trial, ascending */
			size_t cap = 64, nhi = 0;
			long long *hi = rt_xmalloc(cap * sizeof *hi);
			c->div = rt_xmalloc(cap * sizeof *c->div);
			for (d = 1; d * d <= t; d++) {
				if (t % d)
					continue;
				q = t / d;
				if (c->ndiv + 1 >= cap || nhi + 1 >= cap) {
					cap *= 2;
					c->div = rt_xrealloc(c->div, cap * sizeof *c->div);
					hi = rt_xrealloc(hi, cap * sizeof *hi);
				}
				if (d >= 2)
					c->div[c->ndiv++] = d;
				if (q != d)
					hi[nhi++] = q;
			}
			c->div = rt_xrealloc(c->div, (c->ndiv + nhi + 1) * sizeof *c->div);
			while (nhi > 0)
				c->div[c->ndiv++] = hi[--nhi];
			free(hi);
			c->divcnt = rt_xcalloc(c->ndiv + 1, sizeof *c->divcnt);
			for (i = 0; i < c->npre; i++)
				period_count(c, c->pre[i]);
			c->period_off = c->ndiv == 0;
		}
		free(c->pre);
		c->pre = NULL;
		c->npre = 0;
		return;
	}
	c->g = gcd(c->g, t);
	for (i = j = 0; i < c->ndiv; i++) {
		if (c->g % c->div[i] == 0) {
			c->div[j] = c->div[i];
			c->divcnt[j++] = c->divcnt[i];
		}
	}
	c->ndiv = j;
	if (c->ndiv == 0)
		c->period_off = 1;
}

static int
opt_int(json_t *rec, const char *key, long long min, long long *out, int *has)
{
	json_t *v = json_object_get(rec, key);

	*has = 0;
	if (!v || json_is_null(v))
		return 0;
	if (rt_json_whole(v, out) < 0)
		return -1;
	*has = 1;
	return *out < min ? -1 : 0;
}

static int
opt_text(json_t *rec, const char *key, const char **s, size_t *n)
{
	json_t *v = json_object_get(rec, key);

	*s = "";
	*n = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -1;
	*s = json_string_value(v);
	*n = json_string_length(v);
	return 0;
}

/* The last EXCERPT_MAX bytes of a stream, starting on a character. */
static char *
tail_dup(const char *s, size_t n, size_t *len)
{
	const char *p = s;
	char *d;

	if (n > EXCERPT_MAX) {
		p = s + n - EXCERPT_MAX;
		while (p < s + n && ((unsigned char)*p & 0xC0) == 0x80)
			p++;
		n = (size_t)(s + n - p);
	}
	d = rt_xmalloc(n + 1);
	if (n)
		memcpy(d, p, n);
	d[n] = '\0';
	*len = n;
	return d;
}

static void
sample_clear(sample *m, int side)
{
	int x;

	for (x = 0; x < 3; x++) {
		free(m->ex[side][x]);
		m->ex[side][x] = NULL;
		m->exlen[side][x] = 0;
	}
}

/* Keep a trial's streams when it is the lowest-numbered of its side. */
static void
sample_take(sample *m, int fail, long long key, int has_trial, long long trial,
    const char *out, size_t nout, const char *err, size_t nerr)
{
	size_t off, len;
	int st;

	if (m->has[fail] && key >= m->exkey[fail])
		return;
	sample_clear(m, fail);
	st = rt_failure_stream(out, nout, err, nerr, EXCERPT_MAX, &off, &len);
	m->ex[fail][X_ERR] = tail_dup(err, nerr, &m->exlen[fail][X_ERR]);
	m->ex[fail][X_OUT] = tail_dup(out, nout, &m->exlen[fail][X_OUT]);
	m->ex[fail][X_EXCERPT] = tail_dup((st == RT_STDOUT ? out : err) + off, len,
	    &m->exlen[fail][X_EXCERPT]);
	m->stream[fail] = st;
	m->exkey[fail] = key;
	m->extrial[fail] = trial;
	m->hastrial[fail] = has_trial;
	m->has[fail] = 1;
}

/* Fold a later stretch's sample into an earlier one's. */
static void
sample_merge(sample *into, sample *from)
{
	int k, x;

	if (!into->cmd && from->cmd) {
		into->cmd = from->cmd;
		from->cmd = NULL;
	}
	for (k = 0; k < 2; k++) {
		if (!from->has[k] || (into->has[k] && from->exkey[k] >= into->exkey[k]))
			continue;
		sample_clear(into, k);
		for (x = 0; x < 3; x++) {
			into->ex[k][x] = from->ex[k][x];
			into->exlen[k][x] = from->exlen[k][x];
			from->ex[k][x] = NULL;
		}
		into->stream[k] = from->stream[k];
		into->exkey[k] = from->exkey[k];
		into->extrial[k] = from->extrial[k];
		into->hastrial[k] = from->hastrial[k];
		into->has[k] = 1;
	}
}

static void
sample_free(sample *m)
{
	free(m->cmd);
	sample_clear(m, 0);
	sample_clear(m, 1);
	memset(m, 0, sizeof *m);
}

static int
runner_index(const char *name)
{
	int i;

	for (i = 0; rt_seed_names()[i]; i++)
		if (strcmp(rt_seed_names()[i], name) == 0)
			return i;
	return -1;
}

static void
seed_add(seedv *sv, int runner, int stream, int fail, const char *v, size_t n)
{
	seedrec *r;

	if (runner < 0 || runner >= RUNNERS_MAX)
		return;
	sv->cnt[runner][fail]++;
	if (sv->kept[runner][fail] >= SEED_KEEP)
		return;
	sv->kept[runner][fail]++;
	if (sv->n == sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 64;
		sv->v = rt_xrealloc(sv->v, sv->cap * sizeof *sv->v);
	}
	r = &sv->v[sv->n++];
	r->runner = runner;
	r->stream = stream;
	r->fail = fail;
	r->value = rt_xmalloc(n + 1);
	memcpy(r->value, v, n);
	r->value[n] = '\0';
}

static void
seedv_free(seedv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i].value);
	free(sv->v);
	memset(sv, 0, sizeof *sv);
}

/* The seeds one record printed (the first of each runner) and the
 * PYTHONHASHSEED of its environment. */
static void
scan_seeds(part *c, const char *out, size_t nout, const char *err, size_t nerr,
    json_t *env, int fail)
{
	unsigned seen = 0;
	const char *s;
	size_t n, pos;
	rt_seed sd;
	json_t *v;
	char *t;
	int st, r;

	for (st = 0; st < 2; st++) {
		s = st == RT_STDOUT ? out : err;
		n = st == RT_STDOUT ? nout : nerr;
		for (pos = 0; rt_seed_next(s, n, &pos, &sd); ) {
			r = runner_index(sd.runner);
			if (r < 0 || (seen & (1u << r)))
				continue;
			seen |= 1u << r;
			seed_add(&c->seeds, r, st, fail, s + sd.off, sd.len);
		}
	}
	v = env && json_is_object(env) ? json_object_get(env, "PYTHONHASHSEED") : NULL;
	if (v && !json_is_null(v) && !json_is_array(v) && !json_is_object(v)) {
		t = env_text(v, &n);
		seed_add(&c->seeds, runner_index("PYTHONHASHSEED"), -1, fail, t, n);
		free(t);
	}
}

/* The runner's failure messages and the words of its failure lines in
 * one stream of one record, each counted once. */
static void
scan_failures(part *c, const char *s, size_t n, int stream, int fail)
{
	rt_failure_line fl;
	rt_buf key = {0}, line = {0};
	size_t pos = 0, len;
	char hdr[3];
	rt_tok t;

	hdr[1] = stream == RT_STDOUT ? TAG_OUT : TAG_ERR;
	while (rt_failure_line_next(s, n, &pos, &fl)) {
		if (fl.score < 2)
			continue;
		hdr[2] = (char)('0' + fl.score);
		if (fl.mlen) {
			key.len = 0;
			hdr[0] = TAG_MSG;
			rt_buf_add(&key, hdr, 3);
			rt_text_mask(s + fl.moff, fl.mlen, &key);
			len = key.len;
			while (len > 3 && (key.data[len - 1] == ' ' || key.data[len - 1] == '\t'))
				len--;
			if (len > 3 + MSG_MAX) {
				len = 3 + MSG_MAX;
				while (len > 3 && ((unsigned char)key.data[len] & 0xC0) == 0x80)
					len--;
			}
			if (len > 3)
				bump_key(c, key.data, len, fail);
		}
		rt_tok_init(&t, s + fl.off, fl.len);
		hdr[0] = TAG_LINE;
		while (rt_tok_next(&t)) {
			line.len = 0;
			rt_buf_add(&line, hdr, 3);
			rt_buf_add(&line, t.tok, t.len);
			bump_key(c, line.data, line.len, fail);
		}
	}
	rt_buf_free(&key);
	rt_buf_free(&line);
}

static const char *
scan_record(part *c, json_t *rec)
{
	const char *outcome, *err, *out;
	size_t nerr, nout;
	long long trial, code, sig, conc;
	int has_trial, has_code, has_sig, has_conc, has_el, fail, timeout = 0;
	double el = 0;
	json_t *v, *env;
	event *e;
	char key[32];

#define BAD(fmt, k) return (snprintf(c->msg, sizeof c->msg, fmt, k), c->msg)
	if (strcmp(json_string_value(json_object_get(rec, "type")), "trial") != 0)
		return NULL;
	/* a test case's outcome inside a trial (rt-collect --junit writes them
	 * before the trial's own record): the trial is counted once, by its own */
	if (json_is_string(json_object_get(rec, "case")) && !json_object_get(rec, "exit_code"))
		return NULL;
	if (rt_rec_validate(rt_rec_kind(rec), rec, NULL, 0, c->msg, sizeof c->msg) < 0)
		return c->msg;
	v = json_object_get(rec, "outcome");
	if (!v || json_is_null(v))
		BAD("\"%s\" missing", "outcome");
	if (!json_is_string(v))
		BAD("\"%s\": not a string", "outcome");
	outcome = json_string_value(v);
	if (strcmp(outcome, "pass") == 0)
		fail = 0;
	else if (strcmp(outcome, "fail") == 0)
		fail = 1;
	else if (strcmp(outcome, "timeout") == 0)
		fail = timeout = 1;
	else if (strcmp(outcome, "error") == 0 || strcmp(outcome, "ignored") == 0)
		fail = -1;
	else
		BAD("\"%s\": not pass, fail, timeout, error or ignored", "outcome");

	if (opt_int(rec, "trial", 0, &trial, &has_trial) < 0)
		BAD("\"%s\": not a whole number ≥ 0", "trial");
	if (opt_int(rec, "exit_code", LLONG_MIN, &code, &has_code) < 0)
		BAD("\"%s\": not a whole number", "exit_code");
	if (opt_int(rec, "signal", 1, &sig, &has_sig) < 0)
		BAD("\"%s\": not a signal number", "signal");
	if (opt_int(rec, "concurrent", 0, &conc, &has_conc) < 0)
		BAD("\"%s\": not a whole number ≥ 0", "concurrent");
	v = json_object_get(rec, "elapsed_ms");
	has_el = v && !json_is_null(v);
	if (has_el && (!json_is_number(v) || !isfinite(el = json_number_value(v)) || el < 0))
		BAD("\"%s\": not a number ≥ 0", "elapsed_ms");
	if (opt_text(rec, "stderr", &err, &nerr) < 0)
		BAD("\"%s\": not a string", "stderr");
	if (opt_text(rec, "stdout", &out, &nout) < 0)
		BAD("\"%s\": not a string", "stdout");
	env = json_object_get(rec, "env");
	if (env && !json_is_null(env) && !json_is_object(env))
		BAD("\"%s\": not an object", "env");
#undef BAD

	c->ordinal++;
	v = json_object_get(rec, "command");
	if (!c->smp.cmd && json_is_string(v))
		c->smp.cmd = rt_xstrdup(json_string_value(v));
	if (fail < 0) {
		c->errors++;
		return NULL;
	}
	sample_take(&c->smp, fail, has_trial ? trial : LLONG_MAX, has_trial,
	    has_trial ? trial : 0, out, nout, err, nerr);
	c->serial++;
	if (c->nev == c->capev) {
		c->capev = c->capev ? c->capev * 2 : 256;
		c->ev = rt_xrealloc(c->ev, c->capev * sizeof *c->ev);
	}
	e = &c->ev[c->nev++];
	e->trial = has_trial ? trial : 0;
	e->has_trial = (unsigned char)has_trial;
	e->ord = c->ordinal;
	e->fail = (unsigned char)fail;
	e->has_el = (unsigned char)has_el;
	e->el = el;
	c->timeouts += timeout;
	if (has_code) {
		key[0] = TAG_EXIT;
		snprintf(key + 1, sizeof key - 1, "%lld", code);
		bump_key(c, key, strlen(key), fail);
	}
	if (has_sig) {
		key[0] = TAG_SIG;
		snprintf(key + 1, sizeof key - 1, "%lld", sig);
		bump_key(c, key, strlen(key), fail);
	}
	if (has_conc && conc > 0) {
		if (fail)
			c->conc_f++;
		else
			c->conc_s++;
	}
	scan_text(c, err, nerr, TAG_ERR, fail);
	scan_text(c, out, nout, TAG_OUT, fail);
	scan_failures(c, err, nerr, RT_STDERR, fail);
	scan_failures(c, out, nout, RT_STDOUT, fail);
	scan_seeds(c, out, nout, err, nerr, env, fail);
	if (env && json_is_object(env))
		scan_env(c, env, fail);
	return NULL;
}

static int
blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return 0;
	return 1;
}

/* Tally the lines of one stretch, as rt_jsonl_loop reads them: a line is
 * cut at '\n', trailing CRs and LFs dropped, blank lines skipped. Under
 * --lenient malformed lines are counted; else the first one stops it. */
static void *
part_run(void *arg)
{
	part *c = arg;
	const char *s = c->data, *end = s + c->len, *line, *nl;
	const char *why;
	size_t n;
	json_t *rec, *type;
	json_error_t err;

	while (s < end) {
		line = s;
		nl = memchr(s, '\n', (size_t)(end - s));
		n = (size_t)((nl ? nl : end) - s);
		s = nl ? nl + 1 : end;
		c->lines++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			n--;
		if (blank(line, n))
			continue;
		why = NULL;
		if (!(rec = json_loadb(line, n, JSON_ALLOW_NUL, &err))) {
			snprintf(c->msg, sizeof c->msg, "invalid JSON: %s (column %d)",
			    err.text, err.column);
			why = c->msg;
		} else if (!json_is_object(rec)) {
			why = "not a JSON object";
		} else if (!(type = json_object_get(rec, "type")) || !json_is_string(type)) {
			why = "\"type\" missing";
		} else {
			why = scan_record(c, rec);
		}
		json_decref(rec);
		if (!why)
			continue;
		if (!c->lenient) {
			if (why != c->msg)
				snprintf(c->msg, sizeof c->msg, "%s", why);
			c->bad_line = c->lines;
			break;
		}
		c->skipped++;
	}
	return NULL;
}

static void
part_reset(part *p, const char *data, size_t len, int lenient)
{
	if (!p->words) {
		p->words = rt_strtab_new(sizeof(count));
		p->pairs = rt_strtab_new(sizeof(count));
		p->envkeys = rt_strtab_new(sizeof(envkey));
	} else {
		rt_strtab_clear(p->words);
		rt_strtab_clear(p->pairs);
		rt_strtab_clear(p->envkeys);
	}
	p->data = data;
	p->len = len;
	p->lenient = lenient;
	p->serial = p->ordinal = p->lines = 0;
	p->errors = p->timeouts = p->conc_f = p->conc_s = p->skipped = 0;
	p->dropped = 0;
	p->saturated = 0;
	p->nev = 0;
	p->bad_line = 0;
	sample_free(&p->smp);
	seedv_free(&p->seeds);
}

static void
part_free(part *p)
{
	rt_strtab_free(p->words);
	rt_strtab_free(p->pairs);
	rt_strtab_free(p->envkeys);
	free(p->ev);
	free(p->remap);
	sample_free(&p->smp);
	seedv_free(&p->seeds);
}

static void
add_counts(rt_strtab *t, size_t id, const count *k)
{
	count *m = rt_strtab_val(t, id);

	m->nf += k->nf;
	m->ns += k->ns;
}

/* Add a stretch to the whole, in input order: its counts by key, and its
 * trials replayed one by one (trial numbers, reservoirs, periodicity). */
static void
merge(ctx *c, part *p, const char *file, long *line)
{
	size_t i, n = rt_strtab_count(p->words), len, nlen, id;
	const char *key;
	unsigned char pk[9];
	uint32_t a, b;
	envkey *ek, *pek;
	int created;
	long long trial;
	const event *e;

	if (p->bad_line) {
		rt_where w = { file, *line + p->bad_line };
		rt_die_at(&w, "%s", p->msg);
	}
	*line += p->lines;
	for (i = 0; i < rt_strtab_count(p->envkeys); i++) {
		key = rt_strtab_key(p->envkeys, i, &len);
		pek = rt_strtab_val(p->envkeys, i);
		ek = rt_strtab_val(c->envkeys, rt_strtab_put(c->envkeys, key, len, NULL));
		ek->records += pek->records;
		ek->dropped |= pek->dropped;
	}
	if (!c->saturated && (rt_strtab_count(c->words) + n > 2 * WORDS_MAX ||
	    rt_strtab_count(c->pairs) + rt_strtab_count(p->pairs) > 2 * PAIRS_MAX))
		c->dropped += compact(&c->words, &c->pairs, &c->remap, &c->capremap, &c->saturated);
	if (n > c->capmap) {
		c->capmap = n;
		c->map = rt_xrealloc(c->map, n * sizeof *c->map);
	}
	for (i = 0; i < n; i++) {
		key = rt_strtab_key(p->words, i, &len);
		c->map[i] = NONE;
		if (key[0] == TAG_ENV) {
			nlen = strlen(key + 1);
			ek = rt_strtab_val(c->envkeys, rt_strtab_find(c->envkeys, key + 1, nlen));
			if (ek->dropped)
				continue;
			id = rt_strtab_put(c->words, key, len, &created);
			if (created && ++ek->distinct > ENV_MAX_VALUES) {
				ek->dropped = 1;
				continue;
			}
		} else if ((id = put_capped(c->words, key, len, 2 * WORDS_MAX, &c->dropped)) == NONE) {
			continue;
		}
		add_counts(c->words, id, rt_strtab_val(p->words, i));
		c->map[i] = id;
	}
	for (i = 0; i < rt_strtab_count(p->pairs); i++) {
		key = rt_strtab_key(p->pairs, i, NULL);
		memcpy(&a, key + 1, 4);
		memcpy(&b, key + 5, 4);
		if (c->map[a] == NONE || c->map[b] == NONE) {
			c->dropped++;
			continue;
		}
		a = (uint32_t)c->map[a], b = (uint32_t)c->map[b];
		pk[0] = (unsigned char)key[0];
		memcpy(pk + 1, &a, 4);
		memcpy(pk + 5, &b, 4);
		if ((id = put_capped(c->pairs, pk, sizeof pk, 2 * PAIRS_MAX, &c->dropped)) != NONE)
			add_counts(c->pairs, id, rt_strtab_val(p->pairs, i));
	}
	sample_merge(&c->smp, &p->smp);
	for (i = 0; i < p->seeds.n; i++) {
		/* moved: the stretch's list is emptied below */
		seedrec *r = &p->seeds.v[i];
		seed_add(&c->seeds, r->runner, r->stream, r->fail, r->value, strlen(r->value));
	}
	for (i = 0; i < RUNNERS_MAX; i++) {
		/* the kept ones were counted as they were added */
		c->seeds.cnt[i][0] += p->seeds.cnt[i][0] - p->seeds.kept[i][0];
		c->seeds.cnt[i][1] += p->seeds.cnt[i][1] - p->seeds.kept[i][1];
	}
	seedv_free(&p->seeds);
	c->errors += p->errors;
	c->timeouts += p->timeouts;
	c->conc_f += p->conc_f;
	c->conc_s += p->conc_s;
	c->skipped += p->skipped;
	c->dropped += p->dropped;
	for (i = 0; i < p->nev; i++) {
		e = &p->ev[i];
		trial = e->has_trial ? e->trial : c->ordinal + e->ord;
		if (e->fail) {
			c->F++;
			if (c->nft == c->capft) {
				c->capft = c->capft ? c->capft * 2 : 64;
				c->ftrials = rt_xrealloc(c->ftrials, c->capft * sizeof *c->ftrials);
			}
			c->ftrials[c->nft++] = trial;
			res_add(&c->pf, (double)trial);
			period_fail(c, trial);
		} else {
			c->S++;
			res_add(&c->ps, (double)trial);
			period_pass(c, trial);
		}
		if (e->has_el) {
			res_add(e->fail ? &c->tf : &c->ts, e->el);
			if (e->fail)
				c->timed_f++;
			else
				c->timed_s++;
		}
	}
	c->ordinal += p->ordinal;
}

typedef struct {
	FILE *f;
	const char *name;
	int eof;
	rt_buf carry;
} input;

static void
reserve(rt_buf *b, size_t n)
{
	if (b->cap >= n)
		return;
	b->cap = b->cap ? b->cap : 4096;
	while (b->cap < n)
		b->cap *= 2;
	b->data = rt_xrealloc(b->data, b->cap);
}

/* The next stretch of whole lines, about c->chunk bytes (more when a line
 * is longer): 1, or 0 at the end of the input. */
static int
fill(const ctx *c, input *in, rt_buf *out)
{
	size_t want = c->chunk, got, i;

	out->len = 0;
	reserve(out, in->carry.len + want);
	if (in->carry.len)
		memcpy(out->data, in->carry.data, in->carry.len);
	out->len = in->carry.len;
	in->carry.len = 0;
	for (;;) {
		while (out->len < want && !in->eof) {
			reserve(out, want);
			got = fread(out->data + out->len, 1, want - out->len, in->f);
			out->len += got;
			if (got == 0 || out->len < want) {
				if (ferror(in->f))
					rt_die("%s: read error:", in->name);
				in->eof = feof(in->f);
			}
		}
		if (in->eof)
			return out->len > 0;
		for (i = out->len; i > 0 && out->data[i - 1] != '\n'; i--)
			;
		if (i > 0) {
			rt_buf_add(&in->carry, out->data + i, out->len - i);
			out->len = i;
			return 1;
		}
		want *= 2;      /* one line longer than a stretch */
	}
}

/* One file: stretches tallied c->jobs at a time, merged in order. */
static void
run_input(ctx *c, FILE *f, const char *name, part *pv, rt_buf *bufs, pthread_t *th)
{
	input in = { f, name, 0, { 0 } };
	long line = 0;
	int nb, i, started[JOBS_MAX];

	for (;;) {
		for (nb = 0; nb < c->jobs && fill(c, &in, &bufs[nb]); nb++)
			part_reset(&pv[nb], bufs[nb].data, bufs[nb].len, c->lenient);
		if (nb == 0)
			break;
		for (i = 1; i < nb; i++)
			started[i] = pthread_create(&th[i], NULL, part_run, &pv[i]) == 0;
		part_run(&pv[0]);
		for (i = 1; i < nb; i++) {
			if (started[i])
				pthread_join(th[i], NULL);
			else
				part_run(&pv[i]);
		}
		for (i = 0; i < nb; i++)
			merge(c, &pv[i], name, &line);
		if (nb < c->jobs)
			break;
	}
	rt_buf_free(&in.carry);
}

static void
run_all(ctx *c, int nfiles, char *const files[])
{
	part *pv = rt_xcalloc((size_t)c->jobs, sizeof *pv);
	rt_buf *bufs = rt_xcalloc((size_t)c->jobs, sizeof *bufs);
	pthread_t *th = rt_xcalloc((size_t)c->jobs, sizeof *th);
	FILE *f;
	int i;

	if (nfiles == 0)
		run_input(c, stdin, "<stdin>", pv, bufs, th);
	for (i = 0; i < nfiles; i++) {
		if (strcmp(files[i], "-") == 0) {
			run_input(c, stdin, "<stdin>", pv, bufs, th);
			continue;
		}
		if (!(f = fopen(files[i], "re")))
			rt_die("%s:", files[i]);
		run_input(c, f, files[i], pv, bufs, th);
		fclose(f);
	}
	for (i = 0; i < c->jobs; i++) {
		part_free(&pv[i]);
		rt_buf_free(&bufs[i]);
	}
	free(pv), free(bufs), free(th);
}

/* ---- facts ---- */

typedef struct {
	fact *v;
	size_t n, cap;
} factv;

static fact *
add_fact(factv *fv, int kind, int stream, const char *dir, long a, long c, double p)
{
	fact *f;

	if (fv->n == fv->cap) {
		fv->cap = fv->cap ? fv->cap * 2 : 64;
		fv->v = rt_xrealloc(fv->v, fv->cap * sizeof *fv->v);
	}
	f = &fv->v[fv->n++];
	memset(f, 0, sizeof *f);
	f->kind = kind;
	f->stream = stream;
	f->dir = dir;
	f->a = a;
	f->c = c;
	f->p = isnan(p) ? 1 : p;
	/* 10 significant digits, so that mirror-image tables rank and print
	 * the same p despite rounding in the last bits */
	if (f->p > 0) {
		char buf[32];
		snprintf(buf, sizeof buf, "%.9e", f->p);
		f->p = strtod(buf, NULL);
	}
	return f;
}

/* The rule for a count: in failures only, in successes only, or clearly
 * more in one (rates apart by ≥ SKEW at p ≤ ALPHA). Failure-only and
 * success-only facts need p ≤ ALPHA unless they cover every run of their side. */
static const char *
classify(long a, long F, long c, long S, double *p)
{
	double rf, rs;

	if (F == 0 || S == 0 || (a == 0 && c == 0))
		return NULL;
	rf = (double)a / F, rs = (double)c / S;
	if (c == 0 || a == 0 || fabs(rf - rs) >= SKEW)
		*p = rt_fisher_exact(a, F - a, c, S - c);
	else
		return NULL;
	if (c == 0)
		return a == F || *p <= ALPHA ? "failure_only" : NULL;
	if (a == 0)
		return c == S || *p <= ALPHA ? "success_only" : NULL;
	if (*p > ALPHA)
		return NULL;
	return rf > rs ? "failure_more" : "success_more";
}

static void
cover(fact *f, long F, long S)
{
	double rf = F ? (double)f->a / F : 0, rs = S ? (double)f->c / S : 0;
	int succ = strncmp(f->dir, "success", 7) == 0;

	f->cover = succ ? rs : rf;
	/* only clusters and timing compare all runs: nothing on the other side */
	f->other = f->kind == K_TIMING || (f->kind == K_POSITION && f->dir[0] == 'c') ?
	    0 : succ ? rf : rs;
}

static char *
runs_detail(const char *what, long a, long F, long c, long S)
{
	return rt_xasprintf("%s %ld/%ld failing and %ld/%ld passing runs", what, a, F, c, S);
}

static void
set_value(fact *f, const char *s, size_t n)
{
	f->value = rt_xmalloc(n + 1);
	memcpy(f->value, s, n);
	f->value[n] = '\0';
	f->vlen = n;
}

static void
word_facts(ctx *c, factv *fv)
{
	size_t i, n = rt_strtab_count(c->words), len;
	const char *key, *dir;
	count *k;
	fact *f;
	double p = 1;
	char *q;

	for (i = 0; i < n; i++) {
		key = rt_strtab_key(c->words, i, &len);
		k = rt_strtab_val(c->words, i);
		if (key[0] == TAG_ENV)
			continue;               /* env_facts */
		if ((key[0] == TAG_ERR || key[0] == TAG_OUT) &&
		    (strcmp(key + 1, RT_MASK_NUM) == 0 || strcmp(key + 1, RT_MASK_HEX) == 0 ||
		    strcmp(key + 1, RT_MASK_UUID) == 0 || strcmp(key + 1, RT_MASK_TIME) == 0 ||
		    strcmp(key + 1, RT_MASK_TMP) == 0))
			continue;               /* a bare placeholder says nothing */
		if (!(dir = classify(k->nf, c->F, k->ns, c->S, &p)))
			continue;
		switch (key[0]) {
		case TAG_ERR:
		case TAG_OUT:
			f = add_fact(fv, K_TOKEN, key[0] == TAG_OUT, dir, k->nf, k->ns, p);
			set_value(f, key + 1, len - 1);
			f->err = rt_text_errorish(f->value, f->vlen);
			break;
		case TAG_EXIT:
			if (dir[0] == 's' && strcmp(key + 1, "0") == 0)
				break;          /* passing runs exit 0: no news */
			f = add_fact(fv, K_EXIT, -1, dir, k->nf, k->ns, p);
			set_value(f, key + 1, len - 1);
			q = rt_xasprintf("exit code %s in", f->value);
			f->detail = runs_detail(q, k->nf, c->F, k->ns, c->S);
			free(q);
			break;
		case TAG_SIG:
			f = add_fact(fv, K_SIGNAL, -1, dir, k->nf, k->ns, p);
			set_value(f, key + 1, len - 1);
			q = rt_xasprintf("killed by signal %s in", f->value);
			f->detail = runs_detail(q, k->nf, c->F, k->ns, c->S);
			free(q);
			break;
		}
	}
}

/* Word pairs; a pair with the same counts as one of its words is in
 * exactly the same runs (a pair implies both words), so it adds nothing. */
static void
phrase_facts(ctx *c, factv *fv)
{
	size_t i, n = rt_strtab_count(c->pairs), l1, l2;
	const unsigned char *key;
	const char *w1, *w2, *dir;
	count *k, *k1, *k2;
	uint32_t a, b;
	fact *f;
	double p = 1;
	int e1, e2;

	for (i = 0; i < n; i++) {
		key = (const unsigned char *)rt_strtab_key(c->pairs, i, NULL);
		k = rt_strtab_val(c->pairs, i);
		memcpy(&a, key + 1, 4);
		memcpy(&b, key + 5, 4);
		k1 = rt_strtab_val(c->words, a);
		k2 = rt_strtab_val(c->words, b);
		if ((k->nf == k1->nf && k->ns == k1->ns) || (k->nf == k2->nf && k->ns == k2->ns))
			continue;
		if (!(dir = classify(k->nf, c->F, k->ns, c->S, &p)))
			continue;
		w1 = rt_strtab_key(c->words, a, &l1) + 1;
		w2 = rt_strtab_key(c->words, b, &l2) + 1;
		f = add_fact(fv, K_PHRASE, key[0] == TAG_OUT, dir, k->nf, k->ns, p);
		f->value = rt_xasprintf("%s %s", w1, w2);
		f->vlen = l1 + l2 - 1;
		e1 = rt_text_errorish(w1, l1 - 1);
		e2 = rt_text_errorish(w2, l2 - 1);
		f->err = e1 > e2 ? e1 : e2;
	}
}

static void
env_facts(ctx *c, factv *fv)
{
	size_t i, n = rt_strtab_count(c->words), len, nlen;
	const char *key, *dir;
	count *k;
	envkey *ek;
	fact *f;
	double p = 1;
	char *q;

	for (i = 0; i < n; i++) {
		key = rt_strtab_key(c->words, i, &len);
		if (key[0] != TAG_ENV)
			continue;
		nlen = strlen(key + 1);
		ek = rt_strtab_val(c->envkeys, rt_strtab_find(c->envkeys, key + 1, nlen));
		/* seed-like: a new value in every run */
		if (ek->dropped || (ek->records >= 2 && ek->distinct == ek->records))
			continue;
		k = rt_strtab_val(c->words, i);
		if (!(dir = classify(k->nf, c->F, k->ns, c->S, &p)))
			continue;
		f = add_fact(fv, K_ENV, -1, dir, k->nf, k->ns, p);
		f->vlen = len - 1;
		f->value = rt_xmalloc(len);
		memcpy(f->value, key + 1, len - 1);
		f->value[nlen] = '=';
		f->value[len - 1] = '\0';
		q = rt_xasprintf("%s in", f->value);
		f->detail = runs_detail(q, k->nf, c->F, k->ns, c->S);
		free(q);
	}
}

static const char *
ordinal_suffix(long long k)
{
	if (k % 100 >= 11 && k % 100 <= 13)
		return "th";
	return k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
}

static const char *
sample_note(const reservoir *a, const reservoir *b)
{
	return a->seen > RES_CAP || b->seen > RES_CAP ? ", from samples of 65536" : "";
}

static void
other_facts(ctx *c, factv *fv)
{
	double p = 1, effect, mf, ms;
	const char *dir;
	fact *f;
	long cnt;

	if (c->F == 0 || c->S == 0)
		return;
	if ((dir = classify(c->timeouts, c->F, 0, c->S, &p))) {
		f = add_fact(fv, K_TIMEOUT, -1, dir, c->timeouts, 0, p);
		set_value(f, "timeout", 7);
		f->detail = rt_xasprintf("%ld/%ld failing runs timed out", c->timeouts, c->F);
	}
	if ((dir = classify(c->conc_f, c->F, c->conc_s, c->S, &p)) && dir[0] == 'f') {
		f = add_fact(fv, K_POSITION, -1, "overlap", c->conc_f, c->conc_s, p);
		set_value(f, "concurrent", 10);
		f->detail = runs_detail("overlap with another trial in", c->conc_f, c->F,
		    c->conc_s, c->S);
	}
	/* periodic: every failure at a multiple of k = gcd ≥ 2, at least 3 of
	 * them, and passing trials at the other positions */
	if (c->have_g && !c->period_off && c->ndiv > 0 && c->F >= 3 && c->g >= 2 &&
	    c->div[c->ndiv - 1] == c->g && (cnt = c->divcnt[c->ndiv - 1]) < c->S) {
		p = rt_fisher_exact(c->F, 0, cnt, c->S - cnt);
		f = add_fact(fv, K_POSITION, -1, "periodic", c->F, cnt, p);
		f->value = rt_xasprintf("every %lld%s trial", c->g, ordinal_suffix(c->g));
		f->vlen = strlen(f->value);
		f->detail = rt_xasprintf("all %ld failures at trials divisible by %lld; "
		    "%ld/%ld passing runs were too", c->F, c->g, cnt, c->S);
	}
	if (c->pf.n >= 2 && c->ps.n >= 2) {
		qsort(c->pf.v, c->pf.n, sizeof *c->pf.v, cmp_double);
		qsort(c->ps.v, c->ps.n, sizeof *c->ps.v, cmp_double);
		p = rt_mann_whitney(c->pf.v, c->pf.n, c->ps.v, c->ps.n, NULL, &effect);
		if (p <= ALPHA && effect != 0.5) {
			mf = median(c->pf.v, c->pf.n), ms = median(c->ps.v, c->ps.n);
			f = add_fact(fv, K_POSITION, -1, effect < 0.5 ? "clustered_start" :
			    "clustered_end", c->F, c->S, p);
			set_value(f, effect < 0.5 ? "start" : "end", effect < 0.5 ? 5 : 3);
			f->detail = rt_xasprintf("median failing trial %.15g, median passing trial "
			    "%.15g (Mann-Whitney%s)", mf, ms, sample_note(&c->pf, &c->ps));
		}
	}
	if (c->tf.n >= 2 && c->ts.n >= 2) {
		qsort(c->tf.v, c->tf.n, sizeof *c->tf.v, cmp_double);
		qsort(c->ts.v, c->ts.n, sizeof *c->ts.v, cmp_double);
		p = rt_mann_whitney(c->tf.v, c->tf.n, c->ts.v, c->ts.n, NULL, &effect);
		if (p <= ALPHA && effect != 0.5) {
			mf = median(c->tf.v, c->tf.n), ms = median(c->ts.v, c->ts.n);
			f = add_fact(fv, K_TIMING, -1, effect < 0.5 ? "faster_when_failing" :
			    "slower_when_failing", c->timed_f, c->timed_s, p);
			set_value(f, "elapsed_ms", 10);
			if (ms > 0)
				f->detail = rt_xasprintf("median %.6g ms failing vs %.6g ms passing "
				    "(x%.3g%s)", mf, ms, mf / ms, sample_note(&c->tf, &c->ts));
			else
				f->detail = rt_xasprintf("median %.6g ms failing vs %.6g ms passing%s",
				    mf, ms, sample_note(&c->tf, &c->ts));
		}
	}
}

/* p ascending (p underflows to 0 when the evidence is overwhelming), then
 * coverage of its side, then presence on the other side, then kind,
 * error-likeness, length, bytes. */
static int
cmp_fact(const void *x, const void *y)
{
	const fact *a = x, *b = y;
	int r;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	if (a->cover != b->cover)
		return a->cover > b->cover ? -1 : 1;
	if (a->other != b->other)
		return a->other < b->other ? -1 : 1;
	if ((a->dir[0] == 's') != (b->dir[0] == 's'))
		return a->dir[0] == 's' ? 1 : -1;
	if (a->kind != b->kind)
		return a->kind - b->kind;
	if (a->stream != b->stream)
		return a->stream - b->stream;
	if (a->err != b->err)
		return b->err - a->err;
	if (a->vlen != b->vlen)
		return a->vlen > b->vlen ? -1 : 1;
	if ((r = memcmp(a->value, b->value, a->vlen)))
		return r;
	return strcmp(a->dir, b->dir);
}

/* The token: what is in every failure and in no success, in this order
 * of preference (rt-diff-facts(1), THE TOKEN): a runner's failure message,
 * a word on a failure line, any word; within each, the more specific
 * failure line, then the more error-like, the longer, stderr before
 * stdout, the lower bytes. Null when there is none. */
static json_t *
pick_token(ctx *c)
{
	size_t i, n = rt_strtab_count(c->words), len, blen = 0, wl;
	const char *key, *best = NULL;
	char wkey[RT_TOK_MAX + 16];
	count *k, *w;
	int tier, btier = 0, sc, bsc = 0, e, berr = 0, st, bst = 0, r;
	rt_runner_kind runner;

	c->token_stream = -1;
	if (c->F == 0 || c->S == 0)
		return json_null();
	/* the runner's own words are in every failure whatever failed */
	runner = rt_runner_detect(c->smp.cmd, NULL);
	for (i = 0; i < n; i++) {
		key = rt_strtab_key(c->words, i, &len);
		k = rt_strtab_val(c->words, i);
		if (k->nf != c->F || k->ns != 0)
			continue;
		if (key[0] == TAG_MSG) {
			tier = 3;
		} else if (key[0] == TAG_LINE) {
			/* the word must be in no success at all, not only off its lines */
			wl = len - 3;
			if (strchr(key + 3, '<') || wl > RT_TOK_MAX)
				continue;
			wkey[0] = key[1];
			memcpy(wkey + 1, key + 3, wl);
			w = rt_strtab_val(c->words, rt_strtab_find(c->words, wkey, wl + 1));
			if (!w || w->ns != 0)
				continue;
			tier = 2;
		} else if ((key[0] == TAG_ERR || key[0] == TAG_OUT) && !strchr(key + 1, '<')) {
			tier = 1;
		} else {
			continue;
		}
		st = (tier == 1 ? key[0] : key[1]) == TAG_OUT;
		sc = tier == 1 ? 0 : key[2] - '0';
		key += tier == 1 ? 1 : 3;
		len -= tier == 1 ? 1 : 3;
		if (tier < 3 && rt_runner_boilerplate(runner, key, len))
			continue;
		e = rt_text_errorish(key, len);
		if (best) {
			r = tier != btier ? tier - btier : sc != bsc ? sc - bsc :
			    e != berr ? e - berr : len != blen ? (len > blen ? 1 : -1) :
			    st != bst ? bst - st : -strcmp(key, best);
			if (r <= 0)
				continue;
		}
		best = key, blen = len, btier = tier, bsc = sc, berr = e, bst = st;
	}
	if (!best)
		return json_null();
	c->token_stream = bst;
	return rt_json_bytes(best, blen);
}

static json_t *
fact_json(const fact *f, const ctx *c, int typed)
{
	json_t *j = json_object();
	char *d = NULL;

	if (typed)
		json_object_set_new(j, "type", json_string("fact"));
	json_object_set_new(j, "kind", json_string(kind_name[f->kind]));
	json_object_set_new(j, "stream", f->stream < 0 ? json_null() :
	    json_string(f->stream ? "stdout" : "stderr"));
	json_object_set_new(j, "value", rt_json_bytes(f->value, f->vlen));
	json_object_set_new(j, "direction", json_string(f->dir));
	json_object_set_new(j, "in_failures", json_integer(f->a));
	json_object_set_new(j, "failures", json_integer(c->F));
	json_object_set_new(j, "in_successes", json_integer(f->c));
	json_object_set_new(j, "successes", json_integer(c->S));
	json_object_set_new(j, "p", json_real(f->p));
	/* machine noise: shown, but no cause class rests on it (NOISE) */
	if (rt_fact_noise(kind_name[f->kind], f->value, NULL))
		json_object_set_new(j, "noise", json_true());
	if (!f->detail) {
		char *what = rt_xasprintf("\"%s\" in the %s of", f->value,
		    f->stream ? "stdout" : "stderr");
		d = runs_detail(what, f->a, c->F, f->c, c->S);
		free(what);
	}
	json_object_set_new(j, "detail", rt_json_bytes(f->detail ? f->detail : d,
	    strlen(f->detail ? f->detail : d)));
	free(d);
	return j;
}

static int
listed(json_t *a, const char *v)
{
	size_t i;
	json_t *x;

	json_array_foreach(a, i, x)
		if (strcmp(json_string_value(x), v) == 0)
			return 1;
	return 0;
}

/* The command without its word w (as written, between blanks), so that
 * rt-matrix --pin-seed takes it: malloc'd, or NULL when w is not written
 * so (quoted) or the command would be empty. */
static char *
drop_word(const char *cmd, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = cmd; (p = strstr(p, w)); p++) {
		if ((p > cmd && p[-1] != ' ' && p[-1] != '\t') ||
		    (p[n] && p[n] != ' ' && p[n] != '\t'))
			continue;
		while (p > cmd && (p[-1] == ' ' || p[-1] == '\t'))
			p--, n++;
		if (p == cmd && !p[n])
			return NULL;
		return rt_xasprintf("%.*s%s", (int)(p - cmd), cmd, p + n);
	}
	return NULL;
}

/* One "seed" fact per runner that printed seeds: which seeds failed and
 * which passed (distinct values in input order, at most SEED_LIST_MAX a
 * side), values in both, and the rt-matrix run that pins the first
 * failing seed. Not ranked: a seed is evidence to rerun, not a statistic. */
static void
seed_facts(ctx *c, json_t *facts, int typed)
{
	const char *runner, *first, *var;
	char *conflict, *cmd;
	json_t *j, *side[2], *both;
	long cnt[2];
	size_t i;
	int r, st, trunc;
	char *val;
	rt_buf b = {0};

	for (r = 0; rt_seed_names()[r]; r++) {
		runner = rt_seed_names()[r];
		side[0] = json_array(), side[1] = json_array(), both = json_array();
		cnt[0] = r < RUNNERS_MAX ? c->seeds.cnt[r][0] : 0;
		cnt[1] = r < RUNNERS_MAX ? c->seeds.cnt[r][1] : 0;
		st = -2;
		trunc = r < RUNNERS_MAX && (c->seeds.kept[r][0] < cnt[0] ||
		    c->seeds.kept[r][1] < cnt[1]);
		for (i = 0; i < c->seeds.n; i++) {
			seedrec *e = &c->seeds.v[i];
			if (e->runner != r)
				continue;
			if (st == -2)
				st = e->stream;
			if (listed(side[e->fail], e->value))
				continue;
			if (json_array_size(side[e->fail]) == SEED_LIST_MAX)
				trunc = 1;
			else
				json_array_append_new(side[e->fail], json_string(e->value));
		}
		for (i = 0; i < json_array_size(side[1]); i++) {
			first = json_string_value(json_array_get(side[1], i));
			if (listed(side[0], first))
				json_array_append_new(both, json_string(first));
		}
		if (cnt[0] + cnt[1] == 0) {
			json_decref(side[0]), json_decref(side[1]), json_decref(both);
			continue;
		}
		j = json_object();
		if (typed)
			json_object_set_new(j, "type", json_string("fact"));
		json_object_set_new(j, "kind", json_string("seed"));
		json_object_set_new(j, "stream", st < 0 ? json_null() :
		    json_string(rt_stream_name(st)));
		json_object_set_new(j, "runner", json_string(runner));
		first = json_array_size(side[1]) ? json_string_value(json_array_get(side[1], 0)) : NULL;
		json_object_set_new(j, "value", first ? json_string(first) : json_null());
		json_object_set_new(j, "in_failures", json_integer(cnt[1]));
		json_object_set_new(j, "failures", json_integer(c->F));
		json_object_set_new(j, "in_successes", json_integer(cnt[0]));
		json_object_set_new(j, "successes", json_integer(c->S));
		json_object_set_new(j, "failing", side[1]);
		json_object_set_new(j, "passing", side[0]);
		json_object_set_new(j, "both", both);
		json_object_set_new(j, "truncated", json_boolean(trunc));
		b.len = 0;
		val = NULL;
		/* a command that sets the seed itself would override the pin,
		 * and rt-matrix refuses it: the line pins it without that word */
		conflict = c->smp.cmd ? rt_seed_conflict(runner, c->smp.cmd, NULL) : NULL;
		cmd = conflict ? drop_word(c->smp.cmd, conflict) : c->smp.cmd ?
		    rt_xstrdup(c->smp.cmd) : NULL;
		if (first && cmd && rt_seed_pin(runner, first, NULL, &var, &val) == 0) {
			rt_buf_printf(&b, "rt-matrix -n 20 --pin-seed %s=%s --cmd ", runner, first);
			rt_buf_sh(&b, cmd);
			json_object_set_new(j, "reproduce", json_string(rt_buf_str(&b)));
			b.len = 0;
			rt_buf_printf(&b, "%s printed a seed in %ld/%ld failing and %ld/%ld "
			    "passing runs; %s=%s pins failing seed %s",
			    runner, cnt[1], c->F, cnt[0], c->S, var, val, first);
			if (conflict)
				rt_buf_printf(&b, " (the command's own \"%s\" taken out)", conflict);
		} else {
			json_object_set_new(j, "reproduce", json_null());
			rt_buf_printf(&b, "%s printed a seed in %ld/%ld failing and %ld/%ld "
			    "passing runs", runner, cnt[1], c->F, cnt[0], c->S);
		}
		free(val);
		free(conflict);
		free(cmd);
		if (json_array_size(both))
			rt_buf_printf(&b, "; %zu seeds both failed and passed: the seed "
			    "alone does not decide the outcome", json_array_size(both));
		json_object_set_new(j, "detail", json_string(rt_buf_str(&b)));
		json_array_append_new(facts, j);
	}
	rt_buf_free(&b);
}

static json_t *
code_list(ctx *c, int failing)
{
	size_t i, n = rt_strtab_count(c->words), m = 0;
	long long *v = NULL;
	const char *key;
	count *k;
	json_t *a = json_array();

	for (i = 0; i < n; i++) {
		key = rt_strtab_key(c->words, i, NULL);
		k = rt_strtab_val(c->words, i);
		if (key[0] != TAG_EXIT || (failing ? k->nf : k->ns) == 0)
			continue;
		v = rt_xrealloc(v, (m + 1) * sizeof *v);
		v[m++] = strtoll(key + 1, NULL, 10);
	}
	if (m)
		qsort(v, m, sizeof *v, cmp_ll);
	for (i = 0; i < m; i++)
		json_array_append_new(a, json_integer(v[i]));
	free(v);
	return a;
}

static json_t *
excerpts_json(const sample *m)
{
	json_t *o = json_object(), *e;
	static const char *const side[2] = { "passing", "failing" };
	int k;

	for (k = 1; k >= 0; k--) {
		if (!m->has[k]) {
			json_object_set_new(o, side[k], json_null());
			continue;
		}
		e = json_object();
		json_object_set_new(e, "trial", m->hastrial[k] ? json_integer(m->extrial[k]) : json_null());
		json_object_set_new(e, "stderr", rt_json_bytes(m->ex[k][X_ERR], m->exlen[k][X_ERR]));
		json_object_set_new(e, "stdout", rt_json_bytes(m->ex[k][X_OUT], m->exlen[k][X_OUT]));
		json_object_set_new(e, "stream", json_string(rt_stream_name(m->stream[k])));
		json_object_set_new(e, "excerpt", rt_json_bytes(m->ex[k][X_EXCERPT],
		    m->exlen[k][X_EXCERPT]));
		json_object_set_new(o, side[k], e);
	}
	return o;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "jsonl", no_argument, NULL, 'J' },
		{ "lenient", no_argument, NULL, 'L' },
		{ "top", required_argument, NULL, 'n' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		RT_LIST_OPTIONS_LONGOPT,
		{ NULL, 0, NULL, 0 }
	};
	ctx c;
	factv fv = {0};
	json_t *out, *facts, *ft;
	long top = 20;
	int ch, jsonl = 0;
	size_t i, nout;
	long ncpu;
	const char *env;
	rt_tok tk;

	rt_setprogname(argv[0]);
	memset(&c, 0, sizeof c);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	c.jobs = ncpu < 1 ? 1 : ncpu > 8 ? 8 : (int)ncpu;
	c.chunk = CHUNK;
	if ((env = getenv("RT_DIFF_FACTS_CHUNK")) && *env)
		c.chunk = (size_t)rt_num_long("RT_DIFF_FACTS_CHUNK", env, 1, 1L << 30);
	opterr = 0;
	rt_config_apply("rt-diff-facts", longopts, &argc, &argv);
	while ((ch = getopt_long(argc, argv, "hj:n:V", longopts, NULL)) != -1) {
		switch (ch) {
		case 'J':
			jsonl = 1;
			break;
		case 'L':
			c.lenient = 1;
			break;
		case 'j':
			c.jobs = (int)rt_num_long("--jobs", optarg, 1, JOBS_MAX);
			break;
		case 'n':
			top = rt_num_long("--top", optarg, 0, 100000000);
			break;
		case RT_OPT_LIST_OPTIONS: return rt_cli_list_options(longopts);
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			rt_print_version();
			return 0;
		default:
			rt_bad_option(ch, "hj:n:V", argv);
		}
	}
	c.words = rt_strtab_new(sizeof(count));
	c.pairs = rt_strtab_new(sizeof(count));
	c.envkeys = rt_strtab_new(sizeof(envkey));
	c.tf.rng = 1, c.ts.rng = 2, c.pf.rng = 3, c.ps.rng = 4;

	/* before any thread: jansson's hash seed and the tokenizer's tables */
	json_object_seed(0);
	rt_tok_init(&tk, "", 0);
	run_all(&c, argc - optind, argv + optind);

	word_facts(&c, &fv);
	phrase_facts(&c, &fv);
	env_facts(&c, &fv);
	other_facts(&c, &fv);
	for (i = 0; i < fv.n; i++)
		cover(&fv.v[i], c.F, c.S);
	if (fv.n)
		qsort(fv.v, fv.n, sizeof *fv.v, cmp_fact);
	nout = top == 0 || (size_t)top > fv.n ? fv.n : (size_t)top;

	if (jsonl) {
		for (i = 0; i < nout; i++) {
			out = fact_json(&fv.v[i], &c, 1);
			rt_emit(stdout, out);
			json_decref(out);
		}
		facts = json_array();
		seed_facts(&c, facts, 1);
		json_array_foreach(facts, i, out)
			rt_emit(stdout, out);
		json_decref(facts);
	} else {
		out = json_object();
		json_object_set_new(out, "type", json_string("diff"));
		json_object_set_new(out, "trials", json_integer(c.F + c.S));
		json_object_set_new(out, "failures", json_integer(c.F));
		json_object_set_new(out, "errors", json_integer(c.errors));
		if (c.lenient)
			json_object_set_new(out, "skipped", json_integer(c.skipped));
		if (c.dropped) {
			json_object_set_new(out, "tokens_capped", json_true());
			json_object_set_new(out, "tokens_dropped", json_integer(c.dropped));
		}
		json_object_set_new(out, "exit_codes_on_failure", code_list(&c, 1));
		json_object_set_new(out, "exit_codes_on_success", code_list(&c, 0));
		if (c.nft)
			qsort(c.ftrials, c.nft, sizeof *c.ftrials, cmp_ll);
		ft = json_array();
		for (i = 0; i < c.nft; i++)
			json_array_append_new(ft, json_integer(c.ftrials[i]));
		json_object_set_new(out, "failure_trials", ft);
		json_object_set_new(out, "token", pick_token(&c));
		json_object_set_new(out, "token_stream", c.token_stream < 0 ? json_null() :
		    json_string(rt_stream_name(c.token_stream)));
		json_object_set_new(out, "command", c.smp.cmd ? json_string(c.smp.cmd) : json_null());
		json_object_set_new(out, "excerpts", excerpts_json(&c.smp));
		facts = json_array();
		for (i = 0; i < nout; i++)
			json_array_append_new(facts, fact_json(&fv.v[i], &c, 0));
		seed_facts(&c, facts, 0);
		json_object_set_new(out, "facts", facts);
		rt_emit(stdout, out);
		json_decref(out);
	}
	for (i = 0; i < fv.n; i++) {
		free(fv.v[i].value);
		free(fv.v[i].detail);
	}
	free(fv.v);
	free(c.ftrials);
	sample_free(&c.smp);
	seedv_free(&c.seeds);
	free(c.tf.v), free(c.ts.v), free(c.pf.v), free(c.ps.v);
	free(c.div), free(c.divcnt), free(c.pre), free(c.map), free(c.remap);
	rt_strtab_free(c.words);
	rt_strtab_free(c.pairs);
	rt_strtab_free(c.envkeys);
	rt_fshut(stdout, "stdout");
	return 0;
}
