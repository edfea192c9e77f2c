/* rt_hyp: rt-verify's input records — hypotheses and the measure record —
 * read and checked, and the checks a patch meets before it is applied. */
#include <stdlib.h>
#include <string.h>

#include "rt_hyp.h"
#include "rt_records.h"
#include "rt_jsonl.h"
#include "rt_patch.h"
#include "rt_util.h"

static void
read_measure(json_t *rec, const rt_where *w, rt_hyp_set *s)
{
	static const char *const counts[] = { "timeouts", "errors", "ignored" };
	long long n = rt_rec_int(rec, "trials", 0, 1000000000, w), v;
	size_t i;

	rt_rec_int(rec, "failures", 0, n, w);
	for (i = 0; i < sizeof counts / sizeof counts[0]; i++)
		if (rt_rec_opt_int(rec, counts[i], w, &v) && (v < 0 || v > 1000000000))
			rt_die_at(w, "\"%s\": %lld is out of range [0, 1000000000]",
			    counts[i], v);
	if (s->judge) {
		const char *mc = NULL;
		if (!rt_rec_opt_str(rec, "case", w, &mc))
			rt_die_at(w, "a measure record without \"case\": the command's rate, "
			    "not case %s's (rt-measure --case %s gives it)", s->judge, s->judge);
		if (strcmp(mc, s->judge) != 0)
			rt_die_at(w, "a measure record of case %s, not of the judged case %s",
			    mc, s->judge);
	}
	json_decref(s->measure);
	s->measure = json_incref(rec);
}

static const char *
opt_str(json_t *rec, const char *key, const rt_where *w, const char *dflt)
{
	const char *v = dflt;

	rt_rec_opt_str(rec, key, w, &v);
	return v;
}

static int
on_record(json_t *rec, const rt_where *w, void *ctx)
{
	rt_hyp_set *s = ctx;
	const char *type = json_string_value(json_object_get(rec, "type"));
	rt_hyp *h;
	size_t i;
	json_t *files, *f;

	if (!strcmp(type, "measure")) {
		rt_rec_check(RT_REC_MEASURE, rec, w);
		read_measure(rec, w, s);
		return 0;
	}
	if (strcmp(type, "hypothesis") != 0)
		return 0;
	rt_rec_check(RT_REC_HYPOTHESIS, rec, w);
	h = rt_xcalloc(1, sizeof *h);
	h->rec = json_incref(rec);
	s->hyps = rt_xrealloc(s->hyps, (s->n + 1) * sizeof *s->hyps);
	s->hyps[s->n++] = h;   /* the set's before any check can exit */
	h->index = (int)s->n - 1;
	h->id = rt_rec_str(rec, "id", w);
	if (!*h->id)
		rt_die_at(w, "\"id\": empty");
	for (i = 0; i + 1 < s->n; i++)
		if (!strcmp(s->hyps[i]->id, h->id))
			rt_die_at(w, "duplicate hypothesis id \"%s\"", h->id);
	h->source = opt_str(rec, "source", w, NULL);
	h->model = opt_str(rec, "model", w, NULL);
	h->cause = opt_str(rec, "cause_class", w, NULL);
	h->explanation = opt_str(rec, "explanation", w, NULL);
	h->patch = opt_str(rec, "patch", w, NULL);
	h->status = opt_str(rec, "status", w, "ok");
	files = json_object_get(rec, "files");
	if (files && !json_is_array(files) && !json_is_null(files))
		rt_die_at(w, "\"files\": not an array");
	json_array_foreach(files, i, f)
		if (!json_is_string(f))
			rt_die_at(w, "\"files\": not an array of strings");
	return 0;
}

void
rt_hyp_read(int nfiles, char **files, rt_hyp_set *s)
{
	rt_jsonl_loop(nfiles, files, NULL, on_record, s);
}

void
rt_hyp_set_free(rt_hyp_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		json_decref(s->hyps[i]->rec);
		free(s->hyps[i]);
	}
	free(s->hyps);
	json_decref(s->measure);
	s->hyps = NULL;
	s->n = 0;
	s->measure = NULL;
}

void
rt_hyp_measure_tally(json_t *m, rt_tally *t)
{
	long long v;
	rt_where w = { "<input>", 0 };

	memset(t, 0, sizeof *t);
	t->trials = (long)rt_rec_int(m, "trials", 0, 1000000000, &w);
	t->failures = (long)rt_rec_int(m, "failures", 0, t->trials, &w);
	if (rt_rec_opt_int(m, "timeouts", &w, &v))
		t->timeouts = (long)v;
	if (rt_rec_opt_int(m, "errors", &w, &v))
		t->errors = (long)v;
	if (rt_rec_opt_int(m, "ignored", &w, &v))
		t->ignored = (long)v;
	t->passes = t->trials - t->failures;
}

int
rt_hyp_patch_check(const char *patch, char *const *allow_path, size_t nallow,
    char ***paths, size_t *np, char *err, size_t errsize)
{
	*paths = NULL;
	*np = 0;
	if (rt_patch_paths(patch, paths, np, err, errsize) < 0)
		return RT_HYP_REFUSED;
	if (rt_patch_dangerous(*paths, *np, allow_path, nallow, err, errsize))
		return RT_HYP_DANGEROUS;
	return RT_HYP_OK;
}

long
rt_hyp_diff_lines(const char *d)
{
	long n = 0;
	const char *p = d;

	while (p && *p) {
		if ((*p == '+' && strncmp(p, "+++ ", 4)) || (*p == '-' && strncmp(p, "--- ", 4)))
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}
