/* rt_ddmin: delta debugging's ddmin over item indices, with a memo so no
 * subset is probed twice and a budget of probes. */
#include <stdlib.h>
#include <string.h>

#include "rt_ddmin.h"
#include "rt_stats.h"
#include "rt_util.h"

typedef struct {
	unsigned char **seen;        /* each probed subset as n flags */
	int *said;
	size_t nseen, cap, n;
	rt_ddmin_fn fn;
	void *ctx;
	rt_ddmin_opts *o;
} dd;

/* 1 has it, 0 not, -1 stop (budget or callback). */
static int
test(dd *d, const size_t *idx, size_t k)
{
	unsigned char *key = rt_xcalloc(d->n ? d->n : 1, 1);
	size_t i;
	int r;

	for (i = 0; i < k; i++)
		key[idx[i]] = 1;
	for (i = 0; i < d->nseen; i++)
		if (!memcmp(d->seen[i], key, d->n)) {
			free(key);
			return d->said[i] == 1;
		}
	if (d->o->probes >= d->o->max_probes) {
		d->o->budget_out = 1;
		free(key);
		return -1;
	}
	d->o->probes++;
	if ((r = d->fn(idx, k, d->ctx)) < 0) {
		d->o->stopped = 1;
		free(key);
		return -1;
	}
	if (d->nseen == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 16;
		d->seen = rt_xrealloc(d->seen, d->cap * sizeof *d->seen);
		d->said = rt_xrealloc(d->said, d->cap * sizeof *d->said);
	}
	d->seen[d->nseen] = key;
	d->said[d->nseen++] = r;
	return r == 1;
}

/* What the probe of c without its i-th item said: 0, 1, 2, or -1 when
 * it was never probed. The empty set is taken to lack the property. */
static int
said_without(const dd *d, const size_t *c, size_t nc, size_t i)
{
	unsigned char *key;
	size_t j;
	int r = -1;

	if (nc == 1)
		return 0;
	key = rt_xcalloc(d->n ? d->n : 1, 1);
	for (j = 0; j < nc; j++)
		if (j != i)
			key[c[j]] = 1;
	for (j = 0; j < d->nseen && r < 0; j++)
		if (!memcmp(d->seen[j], key, d->n))
			r = d->said[j];
	free(key);
	return r;
}

/* ddmin(c, g): split c into g parts; a part that has the property is the
 * new c (g = 2); else a complement that has it is (g = max(g - 1, 2));
 * else, while g < |c|, twice the granularity; at g = |c| c is 1-minimal. */
size_t
rt_ddmin(size_t n, rt_ddmin_fn fn, void *ctx, rt_ddmin_opts *o, size_t *out)
{
	dd d = { NULL, NULL, 0, 0, n, fn, ctx, o };
	size_t *c = rt_xcalloc(n ? n : 1, sizeof *c), *t = rt_xcalloc(n ? n : 1, sizeof *t);
	size_t nc = n, g = 2, i, j, k, lo, hi, nt;
	int r = 0, found;

	o->probes = 0;
	o->minimal = o->budget_out = o->stopped = 0;
	o->undecided = 0;
	for (i = 0; i < n; i++)
		c[i] = i;
	while (nc >= 2) {
		found = 0;
		if (g > nc)
			g = nc;
		/* the parts */
		for (k = 0; k < g && !found; k++) {
			lo = k * nc / g;
			hi = (k + 1) * nc / g;
			for (nt = 0, j = lo; j < hi; j++)
				t[nt++] = c[j];
			if ((r = test(&d, t, nt)) < 0)
				goto done;
			if (r) {
				memcpy(c, t, nt * sizeof *c);
				nc = nt;
				g = 2;
				found = 1;
			}
		}
		/* the complements (with two parts, the parts themselves) */
		for (k = 0; g > 2 && k < g && !found; k++) {
			lo = k * nc / g;
			hi = (k + 1) * nc / g;
			for (nt = 0, j = 0; j < nc; j++)
				if (j < lo || j >= hi)
					t[nt++] = c[j];
			if ((r = test(&d, t, nt)) < 0)
				goto done;
			if (r) {
				memcpy(c, t, nt * sizeof *c);
				nc = nt;
				g = g - 1 > 2 ? g - 1 : 2;
				found = 1;
			}
		}
		if (found)
			continue;
		if (g >= nc)
			break;
		g = 2 * g < nc ? 2 * g : nc;
	}
	/* "minimal" only when every one-smaller subset was decided lacking */
	o->minimal = 1;
	for (i = 0; i < nc; i++)
		if (said_without(&d, c, nc, i) != 0) {
			o->minimal = 0;
			o->undecided++;
		}
done:
	memcpy(out, c, nc * sizeof *out);
	for (i = 0; i < d.nseen; i++)
		free(d.seen[i]);
	free(d.seen);
	free(d.said);
	free(c);
	free(t);
	return nc;
}

int
rt_ddmin_step(const rt_ddmin_refs *r, long failures, long trials, long cap)
{
	rt_interval cs;

	if (trials <= 0)
		return RT_DDMIN_MORE;
	if (r && r->have) {
		rt_cs_interval(failures, trials, r->conf, 0.5, 0.5, &cs);
		if (cs.high < r->fail_lo)
			return 1;
		if (cs.low > r->pass_hi)
			return 0;
		return trials >= cap ? 2 : RT_DDMIN_MORE;
	}
	if (failures == 0)
		return trials >= cap ? 1 : RT_DDMIN_MORE;
	if (failures == trials)
		return trials >= RT_DDMIN_FAIL_DECIDED || trials >= cap ? 0 : RT_DDMIN_MORE;
	return 2;
}
