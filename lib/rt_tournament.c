/* rt_tournament: rt-verify's orchestration over injected trials — the
 * baseline, the paired race, ties, confirmation and the verdict. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_jsonl.h"
#include "rt_patch.h"
#include "rt_platform.h"
#include "rt_records.h"
#include "rt_say.h"
#include "rt_tournament.h"
#include "rt_util.h"

/* a lane state's one word (rt_lane_state) */
#define W(s) rt_lane_state_word(RT_LANE_##s)

typedef void (*decide_fn)(rt_tour *T, rt_tour_lane *l, int final);

static void
event(rt_tour *T, const char *name, json_t *fields)
{
	if (T->ops->event)
		T->ops->event(T->ctx, name, fields ? fields : json_object());
	else
		json_decref(fields);
}

static void
draw(rt_tour *T, int force)
{
	if (T->ops->draw)
		T->ops->draw(T->ctx, force);
}

static double
elapsed_s(double since_ms)
{
	return (rt_now_ms() - since_ms) / 1000;
}

void
rt_tour_init(rt_tour *T)
{
	memset(T, 0, sizeof *T);
	T->conf = 0.95;
	T->target = 0.10;
	T->n0 = 40;
	T->nmax = 100;
	T->confirms = 2;
	T->jobs = 1;
	T->wait_ms = -1;
}

rt_tour_lane *
rt_tour_add(rt_tour *T, const rt_hyp *h)
{
	rt_tour_lane *l = rt_xcalloc(1, sizeof *l);

	l->hyp = h->rec;
	l->id = h->id;
	l->source = h->source;
	l->model = h->model;
	l->cause = h->cause;
	l->explanation = h->explanation;
	l->patch = h->patch;
	l->hstatus = h->status;
	l->index = h->index;
	l->anytime = 1;
	T->lanes = rt_xrealloc(T->lanes, (T->nlanes + 1) * sizeof *T->lanes);
	T->lanes[T->nlanes++] = l;
	return l;
}

static void
lane_free(rt_tour_lane *l)
{
	free(l->oc);
	free(l->vs);
	json_decref(l->canary_rec);
	json_decref(l->overruled);
	json_decref(l->checks);
	json_decref(l->confirm);
	json_decref(l->failure_lines);
	rt_patch_paths_free(l->files, l->nfiles);
}

void
rt_tour_free(rt_tour *T)
{
	size_t i;

	for (i = 0; i < T->nlanes; i++) {
		lane_free(T->lanes[i]);
		free(T->lanes[i]);
	}
	for (i = 0; i < (size_t)T->nrounds; i++) {
		lane_free(T->rounds[i]);
		free(T->rounds[i]);
	}
	lane_free(&T->base);
	free(T->lanes);
	free(T->cand);
	json_decref(T->confs);
	T->lanes = NULL;
	T->cand = NULL;
	T->confs = NULL;
	T->nlanes = 0;
	T->nrounds = 0;
}

/* ---- words ---- */

const char *
rt_tour_laneiv(char *buf, size_t size, const rt_tour_lane *l)
{
	char h[32];

	if (l->t.trials > 0 && l->t.failures == 0) {
		rt_say_pct(h, sizeof h, l->iv.high, RT_SAY_UP);
		snprintf(buf, size, "≤%s", h);
	} else
		rt_say_range(buf, size, l->iv.low, l->iv.high);
	return buf;
}

/* The lane's own summary, with the interval its decisions used. */
static void
lane_summary(const rt_tour *T, const rt_tour_lane *l, char *buf, size_t size)
{
	if (l->t.trials == 0) {
		snprintf(buf, size, l->t.errors ? "no valid trial (%ld errors)" : "not run",
		    l->t.errors);
		return;
	}
	if (l->anytime)
		rt_say_count_iv(buf, size, l->t.failures, l->t.trials, T->conf, "failed", &l->iv,
		    "anytime", NULL);
	else
		rt_say_count(buf, size, l->t.failures, l->t.trials, T->conf, "failed");
}

static json_t *
jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *
rt_tour_lane_json(const rt_tour *T, const rt_tour_lane *l, int with_type)
{
	json_t *o = json_object();
	char sum[200];

	if (with_type)
		json_object_set_new(o, "type", json_string("lane"));
	json_object_set_new(o, "id", json_string(l->id));
	json_object_set_new(o, "source", jstr_or_null(l->source));
	json_object_set_new(o, "model", jstr_or_null(l->model));
	json_object_set_new(o, "cause_class", jstr_or_null(l->cause));
	json_object_set_new(o, "status", json_string(l->status ? l->status : W(NOT_RACED)));
	json_object_set_new(o, "reason", json_string(l->reason));
	json_object_set_new(o, "rule", jstr_or_null(l->rule));
	json_object_set_new(o, "trials", json_integer(l->t.trials));
	json_object_set_new(o, "failures", json_integer(l->t.failures));
	json_object_set_new(o, "errors", json_integer(l->t.errors));
	json_object_set_new(o, "rate", l->t.trials > 0 ?
	    rt_json_real6((double)l->t.failures / (double)l->t.trials) : json_null());
	json_object_set_new(o, "ci_low", rt_json_real6(l->t.trials ? l->iv.low : 0));
	json_object_set_new(o, "ci_high", rt_json_real6(l->t.trials ? l->iv.high : 1));
	json_object_set_new(o, "interval", json_string("anytime"));
	lane_summary(T, l, sum, sizeof sum);
	json_object_set_new(o, "summary", json_string(sum));
	if (l->failure_lines)
		json_object_set(o, "failure_lines", l->failure_lines);
	if (l->rp.pairs > 0 || l->better)
		json_object_set_new(o, "pairs", json_pack("{s:I,s:I,s:I,s:I,s:o,s:o,s:s}",
		    "pairs", (json_int_t)l->rp.pairs, "original_only",
		    (json_int_t)l->rp.base_only, "lane_only", (json_int_t)l->rp.lane_only,
		    "both", (json_int_t)l->rp.both, "share_low", rt_json_real6(l->q.low),
		    "share_high", rt_json_real6(l->q.high), "interval", "anytime"));
	if (l->limit > 0 && l->raced)
		json_object_set_new(o, "budget", json_integer(l->limit));
	if (l->more > 0)
		json_object_set_new(o, "more_trials", json_integer(l->more));
	if (l->canary_rec)
		json_object_set_new(o, "canary", json_deep_copy(l->canary_rec));
	if (l->overruled)
		json_object_set_new(o, "overruled", json_deep_copy(l->overruled));
	if (l->guard[0])
		json_object_set_new(o, "guard", json_string(l->guard));
	if (l->dir || l->raced) {
		json_object_set_new(o, "changes_checks", json_boolean(l->changes_checks));
		if (l->checks)
			json_object_set_new(o, "checks", json_deep_copy(l->checks));
		json_object_set_new(o, "diff_lines", json_integer(l->diff_lines));
	}
	return o;
}

json_t *
rt_tour_baseline_json(const rt_tour *T)
{
	json_t *o = rt_measure_fields(NULL, &T->base.t, T->conf, T->target);
	long k = T->base.t.failures, n = T->base.t.trials;
	rt_interval cs;
	char text[240];

	/* the baseline's n is chosen by the data (extended until it fails,
	 * raced as long as the lanes run), so a fixed-n interval does not hold
	 * (a Wilson "95%" covers 92-94% at 2-10%): the anytime-valid one, in
	 * rt-measure --until's words */
	if (n > 0) {
		rt_cs_interval(k, n, T->conf, 0.5, 0.5, &cs);
		json_object_set_new(o, "ci_low", rt_json_real6(cs.low));
		json_object_set_new(o, "ci_high", rt_json_real6(cs.high));
		json_object_set_new(o, "interval", json_string("anytime"));
		json_object_set_new(o, "z", json_null());
		rt_say_count_iv(text, sizeof text, k, n, T->conf, "failed", &cs, "anytime",
		    NULL);
		json_object_set_new(o, "summary", json_string(text));
	}
	json_object_set_new(o, "source", json_string(!T->have_input ? "measured" :
	    T->base.t.trials > T->base_input ? "input+measured" : "input"));
	json_object_set_new(o, "input_trials", json_integer(T->base_input));
	/* lane trial i is paired with the original's trial of the same
	 * RETRIAL_SEED: measured ones when the original was measured here,
	 * else run alongside the lanes (a measure record has no seeds) */
	json_object_set_new(o, "pairing", json_string(T->have_input ?
	    "seed (the original run alongside; the measure record is detect evidence only)" :
	    "seed"));
	return o;
}

void
rt_tour_finish(rt_tour *T, rt_tour_lane *l, rt_lane_state st, const char *fmt, ...)
{
	va_list ap;

	l->done = 1;
	l->status = rt_lane_state_word(st);
	va_start(ap, fmt);
	vsnprintf(l->reason, sizeof l->reason, fmt, ap);
	va_end(ap);
	if (T->ops->finished)
		T->ops->finished(T->ctx, T, l);
}

/* ---- running trials ---- */

/* During the race the original runs alongside the lanes: as many valid
 * trials as the furthest open lane has started, so every lane trial has an
 * original trial to be paired with. */
static long
base_need(const rt_tour *T)
{
	size_t i;
	long need = 0;

	for (i = 0; i < T->nlanes; i++) {
		const rt_tour_lane *l = T->lanes[i];
		if (l->raced && !l->done && l->t.trials + l->inflight > need)
			need = l->t.trials + l->inflight;
	}
	return need;
}

static int
startable(const rt_tour *T, const rt_tour_lane *l)
{
	if (l == &T->base && T->racing) {
		/* the live trials only: a measure record's are not paired */
		long need = base_need(T), live = l->t.trials - T->base_input,
		    bad = l->t.errors + l->t.ignored - T->base_input_errors;
		return live + l->inflight < need && bad + l->inflight < need + 3;
	}
	if (l->canary && (l->t.passes >= RT_TOUR_CANARY_K || l->t.failures >= RT_TOUR_CANARY_K ||
	    l->t.passes + l->t.failures + l->inflight >= 2 * RT_TOUR_CANARY_K - 1))
		return 0;
	return !l->done && l->t.trials + l->inflight < l->limit &&
	    l->t.errors + l->t.ignored + l->inflight < l->limit;
}

/* Keep a trial's outcome by its number, and extend the lane's run of valid
 * outcomes as far as every earlier trial has ended. */
static void
record_outcome(rt_tour_lane *l, long trial, rt_outcome o)
{
	if (trial >= l->ocap) {
		long n = l->ocap ? l->ocap : 64;
		while (n <= trial)
			n *= 2;
		l->oc = rt_xrealloc(l->oc, (size_t)n);
		memset(l->oc + l->ocap, 0, (size_t)(n - l->ocap));
		l->ocap = n;
	}
	l->oc[trial] = o == RT_PASS ? 'p' : o == RT_FAIL || o == RT_TIMEOUT ? 'f' : 'e';
	if (l->scan == 0)
		l->scan = 1;
	while (l->scan < l->ocap && l->oc[l->scan]) {
		if (l->oc[l->scan] != 'e') {
			if (l->nv == l->vcap) {
				l->vcap = l->vcap ? 2 * l->vcap : 64;
				l->vs = rt_xrealloc(l->vs, (size_t)l->vcap);
			}
			l->vs[l->nv++] = l->oc[l->scan] == 'f';
		}
		l->scan++;
	}
}

/* A trial's end: counted, its interval, its event, the decision. */
static void
trial_done(rt_tour *T, const rt_tour_result *r, decide_fn decide, const char *label)
{
	rt_tour_lane *l = r->lane;
	json_t *ev;

	l->inflight--;
	if (l->done && l != &T->base)
		return;
	rt_tally_add(&l->t, r->outcome);
	record_outcome(l, r->trial, r->outcome);
	if (r->outcome == RT_ERROR && !l->first_error[0])
		snprintf(l->first_error, sizeof l->first_error, "%s",
		    r->error && r->error[0] ? r->error : "infrastructure error");
	if (l->anytime)
		rt_cs_interval(l->t.failures, l->t.trials, T->conf, 0, 0, &l->iv);
	else if (l->cm > 0 && l->t.failures == 0 && l->t.trials > 0) {
		l->iv.low = 0;
		l->iv.high = rt_zero_bound(l->t.trials, l->cm);
	} else if (l->cm > 0)
		rt_wilson(l->t.failures, l->t.trials, l->cm, &l->iv);
	else
		rt_wilson(l->t.failures, l->t.trials, T->conf, &l->iv);
	if (T->ops->event) {
		ev = json_object();
		json_object_set_new(ev, "lane", json_string(label ? label : l->id));
		json_object_set_new(ev, "trial", json_integer(r->trial));
		json_object_set_new(ev, "outcome", json_string(rt_outcome_name(r->outcome)));
		json_object_set_new(ev, "trials", json_integer(l->t.trials));
		json_object_set_new(ev, "failures", json_integer(l->t.failures));
		json_object_set_new(ev, "errors", json_integer(l->t.errors));
		json_object_set_new(ev, "ci_low", rt_json_real6(l->iv.low));
		json_object_set_new(ev, "ci_high", rt_json_real6(l->iv.high));
		event(T, "trial", ev);
	}
	if (decide)
		decide(T, l, 0);
}

/* Run trials for the lanes until none may start another, sharing the -j
 * slots: each free slot goes to the lane with the fewest trials started.
 * decide (may be NULL) sees each lane after each of its results and once
 * more at the end (final). Returns 0, or -1 when interrupted. */
static int
run_lanes(rt_tour *T, rt_tour_lane **ls, size_t n, decide_fn decide, const char *label)
{
	const rt_tour_ops *op = T->ops;
	rt_tour_result r;
	rt_tour_lane *best;
	size_t i;
	long trial;
	int rc;

	for (;;) {
		while (!rt_trial_interrupted() && (op->run || op->running(T->ctx) < T->jobs)) {
			best = NULL;
			for (i = 0; i < n; i++)
				if (startable(T, ls[i]) && (!best || ls[i]->started < best->started))
					best = ls[i];
			if (!best)
				break;
			trial = best->next_trial++;
			if (op->run) {
				best->started++;
				best->inflight++;
				best->raced = 1;
				r.lane = best;
				r.trial = trial;
				r.error = NULL;
				r.outcome = op->run(T->ctx, best, trial);
				trial_done(T, &r, decide, label);
				draw(T, 0);
				continue;
			}
			if (op->start(T->ctx, best, trial) < 0)
				break;
			best->started++;
			best->inflight++;
			best->raced = 1;
		}
		if (rt_trial_interrupted())
			return -1;
		if (op->run)
			break;
		rc = op->wait(T->ctx, T->wait_ms, &r);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			if (op->running(T->ctx) == 0) {
				for (i = 0; i < n; i++)
					if (startable(T, ls[i]))
						break;
				if (i == n)
					break;
			}
			draw(T, 0);
			continue;
		}
		trial_done(T, &r, decide, label);
		draw(T, 0);
	}
	for (i = 0; i < n; i++)
		if (decide && !ls[i]->done)
			decide(T, ls[i], 1);
	for (i = 0; i < n; i++)
		ls[i]->done = 1;
	draw(T, 0);
	return 0;
}

int
rt_tour_run_lanes(rt_tour *T, rt_tour_lane **ls, size_t n, const char *label)
{
	return run_lanes(T, ls, n, NULL, label);
}

/* ---- the race ---- */

long
rt_tour_budget(const rt_tour *T)
{
	return T->nmax_given ? T->nmax : rt_race_budget(T->base.t.failures, T->base.t.trials,
	    T->conf);
}

/* "of 57 pairs with the original, 9 differed: the original alone failed 9,
 * the lane alone 0; the lane's share 0/9 (anytime interval 0.0–32.4%)" */
static void
pairs_text(const rt_tour *T, const rt_tour_lane *l, char *buf, size_t size)
{
	long d = l->rp.lane_only + l->rp.base_only;
	char iv[64];

	rt_say_range(iv, sizeof iv, l->q.low, l->q.high);
	snprintf(buf, size, "of %ld trials paired with the original's, %ld differed: "
	    "the original alone failed %ld, the lane alone %ld; the lane's share %ld/%ld "
	    "(%g%% anytime interval %s)", l->rp.pairs, d, l->rp.base_only,
	    l->rp.lane_only, l->rp.lane_only, d, 100 * T->conf, iv);
}

/* After each result of a racing lane (and of the original, which decides
 * every open lane again). Trial i of the lane is paired with trial i of the
 * original; with q the lane's share of the pairs where exactly one failed,
 * checked after every pair with the anytime-valid sequence at c:
 *   q's upper bound < 1/2          survived: significantly better
 *   q's lower bound ≥ 1/3          eliminated: fails at least about half as
 *                                  often as the original
 *   lo > hi of a survived lane     eliminated: above a survivor (the lanes'
 *                                  own anytime intervals)
 *   budget spent                   eliminated: undecided, with an estimate of
 *                                  the trials that would likely decide
 * A lane whose trials are mostly infrastructure errors is eliminated too. */
static void
decide_race(rt_tour *T, rt_tour_lane *l, int final)
{
	char a[40], c[40], pt[400];
	long k = l->t.failures, n = l->t.trials;
	size_t i;
	rt_race_state st;

	if (l == &T->base) {
		long budget = rt_tour_budget(T);
		if (final)
			return;
		for (i = 0; i < T->nlanes; i++)
			if (T->lanes[i]->raced && !T->lanes[i]->done) {
				T->lanes[i]->limit = budget;
				decide_race(T, T->lanes[i], 0);
			}
		return;
	}
	if (n > 0)
		rt_tour_laneiv(a, sizeof a, l);
	if (l->t.errors >= 3 && l->t.errors > n) {
		rt_tour_finish(T, l, RT_LANE_ELIMINATED, "the patched command could not run: %ld of "
		    "%ld trials were errors (%s)", l->t.errors, l->t.errors + n +
		    l->t.ignored, l->first_error);
		return;
	}
	while (l->paired < l->nv && l->paired < T->base.nv) {
		rt_race_add(&l->rp, T->base.vs[l->paired], l->vs[l->paired]);
		l->paired++;
	}
	st = rt_race_decide(&l->rp, T->conf, &l->q);
	if (T->mutate_every_lane_better && n > 0)
		st = RT_RACE_BETTER;
	pairs_text(T, l, pt, sizeof pt);
	if (st == RT_RACE_BETTER) {
		l->better = 1;
		rt_tour_finish(T, l, RT_LANE_SURVIVED, "%ld/%ld failed (interval %s); %s: below 1/2, "
		    "so it fails less often than the original", k, n, a, pt);
		return;
	}
	if (st == RT_RACE_FUTILE) {
		rt_tour_finish(T, l, RT_LANE_ELIMINATED, "%ld/%ld failed (interval %s); %s: at least "
		    "1/3, so it fails at least about half as often as the original", k, n,
		    a, pt);
		return;
	}
	for (i = 0; n > 0 && i < T->nlanes; i++) {
		rt_tour_lane *s = T->lanes[i];
		if (s != l && s->better && l->iv.low > s->iv.high) {
			rt_tour_finish(T, l, RT_LANE_ELIMINATED, "%ld/%ld failed, interval %s lies above "
			    "%s's %s, which beat the original", k, n, a, s->id,
			    rt_tour_laneiv(c, sizeof c, s));
			return;
		}
	}
	if (final || (!startable(T, l) && l->inflight == 0 && l->paired >= l->nv)) {
		if (n == 0) {
			rt_tour_finish(T, l, RT_LANE_ELIMINATED, "no valid trial (%ld errors: %s)",
			    l->t.errors, l->first_error[0] ? l->first_error : "none");
			return;
		}
		l->more = rt_race_more_pairs(&l->rp, T->conf);
		if (l->more > 0)
			rt_tour_finish(T, l, RT_LANE_UNDECIDED, "undecided after its budget of %ld "
			    "trials: %ld/%ld failed (interval %s); %s; about %ld more trials of "
			    "the lane and as many of the original would likely decide "
			    "(--max-trials %ld)", l->limit, k, n, a, pt, l->more, n + l->more);
		else
			rt_tour_finish(T, l, RT_LANE_UNDECIDED, "undecided after its budget of %ld "
			    "trials: %ld/%ld failed (interval %s); %s; more trials are unlikely "
			    "to show it better", l->limit, k, n, a, pt);
	}
}

/* ---- the phases ---- */

static void
stop_at_failure(rt_tour *T, rt_tour_lane *l, int final)
{
	(void)T;
	if (!final && l->t.failures > 0)
		l->done = 1;
}

static int
place(rt_tour *T, rt_tour_lane *l, const char *what, const char *patch)
{
	return T->ops->place ? T->ops->place(T->ctx, l, what, patch) : 0;
}

/* 1. The baseline: the input's counts, or n0 trials, extended while none
 * failed until one does or 0/n shows < 1%. */
static int
measure_baseline(rt_tour *T)
{
	rt_tour_lane *b = &T->base;
	rt_tour_lane *one[1] = { b };

	b->id = "baseline";
	b->limit = T->n0;
	b->next_trial = 1;
	if (T->have_input) {
		b->t = T->input;
		b->done = 1;
		/* A measure record gives counts, not trials with seeds: it is the
		 * detect gate's evidence and the budgets' rate, never a side of a
		 * pair. The original runs alongside the lanes from trial 1, each
		 * of its trials with the seed of the lane trials it is paired
		 * with. */
		T->fresh = 1;
		T->base_input = b->t.trials;
		T->base_input_errors = b->t.errors + b->t.ignored;
	} else {
		if (place(T, b, "baseline", NULL) < 0)
			return -1;
		T->phase = "measuring the original";
		if (run_lanes(T, one, 1, NULL, "baseline") < 0)
			return -1;
		if (b->t.failures == 0 && b->t.trials > 0) {
			/* no failure yet: a flake of a few percent often hides in 40
			 * trials, so go on until one shows or 0/n shows < 1% */
			long cap;
			if (rt_runs_to_claim(0.01, T->conf, &cap) == RT_STATS_OK && cap > b->limit) {
				b->limit = cap;
				b->done = 0;
				T->phase = "measuring the original: no failure yet";
				if (run_lanes(T, one, 1, stop_at_failure, "baseline") < 0)
					return -1;
			}
		}
		T->fresh = b->next_trial;
	}
	rt_wilson(b->t.failures, b->t.trials, T->conf, &b->iv);
	T->L0 = b->iv.low;
	T->U0 = b->iv.high;
	return 0;
}

/* 2. Each hypothesis' lane: a patch, then the runner's copy, patch and
 * guard. Disqualified lanes are reported at once. */
static int
prepare_lanes(rt_tour *T)
{
	size_t i;
	rt_tour_lane *l;

	for (i = 0; i < T->nlanes; i++) {
		l = T->lanes[i];
		if (rt_trial_interrupted())
			return -1;
		if (!l->patch || !*l->patch) {
			l->rule = NULL;
			rt_tour_finish(T, l, RT_LANE_NOT_RACED, "the hypothesis has no patch (status %s)",
			    l->hstatus);
			continue;
		}
		if (strcmp(l->hstatus, "ok") != 0) {
			rt_tour_finish(T, l, RT_LANE_NOT_RACED, "the hypothesis' status is %s", l->hstatus);
			continue;
		}
		if (T->ops->prepare && T->ops->prepare(T->ctx, T, l) < 0)
			return -1;
		if (l->done)
			continue;
		l->limit = rt_tour_budget(T);
		l->next_trial = 1;
	}
	return 0;
}

/* 3. The race: every prepared lane paired with the original, run on. */
static int
race(rt_tour *T)
{
	rt_tour_lane **racing = rt_xcalloc(T->nlanes + 2, sizeof *racing);
	size_t i, nr = 0;
	int rc;

	for (i = 0; i < T->nlanes; i++)
		if (!T->lanes[i]->done)
			racing[nr++] = T->lanes[i];
	event(T, "race_started", json_pack("{s:I,s:f,s:f}", "lanes", (json_int_t)nr,
	    "original_ci_low", T->L0, "original_ci_high", T->U0));
	if (nr > 0) {
		/* the original runs on with the lanes, from a place of its own */
		if (place(T, &T->base, "baseline", NULL) < 0) {
			free(racing);
			return -1;
		}
		if (T->base.next_trial < T->fresh)
			T->base.next_trial = T->fresh;
		racing[nr++] = &T->base;
		T->racing = 1;
	}
	rc = run_lanes(T, racing, nr, decide_race, NULL);
	T->racing = 0;
	free(racing);
	rt_wilson(T->base.t.failures, T->base.t.trials, T->conf, &T->base.iv);
	T->L0 = T->base.iv.low;
	T->U0 = T->base.iv.high;
	/* confirmation trials are numbered past every trial run so far */
	for (i = 0; i < T->nlanes; i++)
		if (T->lanes[i]->next_trial > T->fresh)
			T->fresh = T->lanes[i]->next_trial;
	if (T->base.next_trial > T->fresh)
		T->fresh = T->base.next_trial;
	return rc;
}

static double
lane_rate(const rt_tour_lane *l)
{
	return (double)l->t.failures / (double)l->t.trials;
}

/* The statistical order: the lowest observed rate, then the more valid
 * trials (the same rate, a tighter interval), then the input order. */
static int
cand_cmp(const void *pa, const void *pb)
{
	const rt_tour_lane *a = *(rt_tour_lane *const *)pa, *b = *(rt_tour_lane *const *)pb;
	double ra = lane_rate(a), rb = lane_rate(b);

	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (a->t.trials != b->t.trials)
		return a->t.trials > b->t.trials ? -1 : 1;
	return a->index - b->index;
}

/* Between two lanes that passed confirmation, the one that changes no
 * check of the test, then the smaller diff, then the statistical order:
 * a tie never favours a weaker test. 1 when a is preferred to b. */
static int
preferred(const rt_tour_lane *a, const rt_tour_lane *b)
{
	if (a->changes_checks != b->changes_checks)
		return a->changes_checks < b->changes_checks;
	if (a->diff_lines != b->diff_lines)
		return a->diff_lines < b->diff_lines;
	return cand_cmp(&a, &b) < 0;
}

/* Order the candidates for confirmation in the statistical order. How
 * many are tied with the best (intervals overlapping its). */
static size_t
order_candidates(rt_tour_lane **cand, size_t n)
{
	size_t k = 1;

	if (n == 0)
		return 0;
	qsort(cand, n, sizeof *cand, cand_cmp);
	while (k < n && !(cand[k]->iv.low > cand[0]->iv.high ||
	    cand[0]->iv.low > cand[k]->iv.high))
		k++;
	return k;
}

/* A tie at the lowest observed rate — the race stops a lane once it is
 * shown better, so a real fix and a partial fix can both stand at 0/8 —
 * is broken by more trials of the lanes that share that rate, one at a
 * time, until one rate is lowest or each has as many valid trials as a
 * confirmation needs. These trials order the confirmation; they are never
 * counted in it, which runs on fresh trials. */
static int
break_ties(rt_tour *T)
{
	rt_tour_lane **ls = rt_xcalloc(T->ncand + 1, sizeof *ls);
	long before, after;
	size_t i, j, n;

	for (;;) {
		order_candidates(T->cand, T->ncand);
		for (i = n = 0; i < T->ncand &&
		    lane_rate(T->cand[i]) == lane_rate(T->cand[0]); i++)
			if (T->cand[i]->t.trials < T->required)
				ls[n++] = T->cand[i];
		if (i < 2 || n == 0)
			break;
		for (j = before = 0; j < n; j++) {
			ls[j]->done = 0;
			ls[j]->limit = ls[j]->t.trials + 1;
			before += ls[j]->t.trials;
		}
		if (run_lanes(T, ls, n, NULL, NULL) < 0) {
			free(ls);
			return -1;
		}
		for (j = after = 0; j < n; j++)
			after += ls[j]->t.trials;
		if (after == before)    /* only errors: nothing more to learn */
			break;
	}
	free(ls);
	return 0;
}

/* One confirmation round: the candidate on n never-seen trials in a fresh
 * place. FIXED needs 0 failures in n = runs_to_claim(p_ref, c_m). */
static int
confirm(rt_tour *T, rt_tour_lane *c, int round, const char *split)
{
	rt_tour_lane *cp = rt_xcalloc(1, sizeof *cp);   /* kept for the board */
	rt_tour_lane *one[1] = { cp };
	char sum[200], rule[400], a[16], b[16];
	json_t *o;
	rt_interval w, d;
	int passed, improved;
	long required = T->required;
	double cm = T->cm, pref = T->pref;

	if (T->nrounds < (int)(sizeof T->rounds / sizeof T->rounds[0]))
		T->rounds[T->nrounds++] = cp;
	cp->id = c->id;
	cp->user = c->user;
	cp->cm = cm;
	if (place(T, cp, "confirm", c->patch) < 0)
		return -1;
	cp->limit = required;
	cp->next_trial = T->fresh;
	event(T, "confirmation_started", json_pack("{s:s,s:i,s:I,s:I}", "id", c->id,
	    "round", round, "required_runs", (json_int_t)required,
	    "first_trial", (json_int_t)T->fresh));
	if (run_lanes(T, one, 1, NULL, "confirm") < 0)
		return -1;
	T->fresh = cp->next_trial;
	if (T->ops->unplace)
		T->ops->unplace(T->ctx, cp);
	passed = cp->t.failures == 0 && cp->t.trials >= required;
	rt_newcombe(T->base.t.failures, T->base.t.trials, cp->t.failures, cp->t.trials, cm, &d);
	improved = cp->t.trials > 0 && d.low > 0;
	o = json_object();
	json_object_set_new(o, "id", json_string(c->id));
	json_object_set_new(o, "round", json_integer(round));
	json_object_set_new(o, "trials", json_integer(cp->t.trials));
	json_object_set_new(o, "failures", json_integer(cp->t.failures));
	json_object_set_new(o, "errors", json_integer(cp->t.errors));
	json_object_set_new(o, "rate", cp->t.trials ? rt_json_real6((double)cp->t.failures /
	    (double)cp->t.trials) : json_null());
	rt_say_num(a, sizeof a, pref, RT_SAY_NEAR);
	snprintf(b, sizeof b, "%g", cm);
	if (cp->t.failures == 0 && cp->t.trials > 0) {
		/* what 0/n proves, exactly and one-sided: the rule's own bound */
		double hi = rt_zero_bound(cp->t.trials, cm);
		json_object_set_new(o, "ci_low", json_real(0));
		json_object_set_new(o, "ci_high", rt_json_real6(hi));
		json_object_set_new(o, "interval", json_string("exact one-sided"));
		rt_say_count(sum, sizeof sum, 0, cp->t.trials, cm, "failed");
	} else {
		rt_wilson(cp->t.failures, cp->t.trials, cm, &w);
		json_object_set_new(o, "ci_low", rt_json_real6(w.low));
		json_object_set_new(o, "ci_high", rt_json_real6(w.high));
		json_object_set_new(o, "interval", json_string("wilson"));
		if (cp->t.trials == 0)
			snprintf(sum, sizeof sum, "no valid trial (%ld errors)", cp->t.errors);
		else
			rt_say_count(sum, sizeof sum, cp->t.failures, cp->t.trials, cm, "failed");
	}
	snprintf(rule, sizeof rule, "0 failures in n = runs_to_claim(%s%%, %s) = %ld "
	    "fresh trials (rt-plan -r %g -c %s); p_ref = min(target, original rate)%s",
	    a, b, required, pref, b, split);
	json_object_set_new(o, "required_runs", json_integer(required));
	json_object_set_new(o, "reference_rate", rt_json_real6(pref));
	json_object_set_new(o, "confidence", rt_json_real6(cm));
	json_object_set_new(o, "passed", json_boolean(passed));
	json_object_set_new(o, "improved", json_boolean(improved));
	json_object_set_new(o, "difference", json_pack("{s:o,s:o,s:o,s:s}",
	    "estimate", rt_json_real6(d.center), "ci_low", rt_json_real6(d.low),
	    "ci_high", rt_json_real6(d.high), "method", "newcombe"));
	json_object_set_new(o, "rule", json_string(rule));
	json_object_set_new(o, "summary", json_string(sum));
	cp->status = passed ? "passed" : "failed";
	c->confirm = o;
	json_array_append(T->confs, o);
	event(T, passed ? "winner_confirmed" : "confirmation_failed", json_deep_copy(o));
	return 0;
}

/* 4. The candidates confirmed in the statistical order, at most
 * T->confirms rounds, each at c_m = 1 − (1 − c)/m: a false FIXED needs some
 * round to pass a lane whose rate is not below p_ref, at most (1 − c)/m a
 * round, so at most 1 − c whichever passed lane is then chosen. The first
 * to pass wins, unless it changes the test's checks: then the next tied
 * lanes that change none get the rounds left, and one that passes is
 * preferred (preferred()). The preference never picks a lane to confirm
 * ahead of a lower rate, so a small partial fix cannot keep a real fix
 * with a bigger diff out of confirmation. */
static int
confirmation(rt_tour *T)
{
	size_t i, m, rounds = 0;
	double p0;
	char split[80] = "";
	rt_tour_lane *improved = NULL;

	T->cand = rt_xcalloc(T->nlanes + 1, sizeof *T->cand);
	for (i = 0; i < T->nlanes; i++)
		if (T->lanes[i]->better)
			T->cand[T->ncand++] = T->lanes[i];
	if (T->ncand == 0) {
		T->verdict = "QUARANTINE";
		return 0;
	}
	m = T->ncand < (size_t)T->confirms ? T->ncand : (size_t)T->confirms;
	p0 = (double)T->base.t.failures / (double)T->base.t.trials;
	T->cm = rt_confirm_level(T->conf, (long)m);
	if (m > 1)
		snprintf(split, sizeof split, "; %g%% confidence split over %zu rounds",
		    100 * T->conf, m);
	if (rt_confirm_runs(T->base.t.failures, T->base.t.trials, T->target, T->cm, &T->pref,
	    &T->required) != RT_STATS_OK)
		rt_die("cannot size the confirmation for a rate of %g", p0);
	if (break_ties(T) < 0)
		return -1;
	T->ntied = order_candidates(T->cand, T->ncand);
	for (i = 0; i < T->ncand && rounds < m; i++) {
		rt_tour_lane *c = T->cand[i];
		/* after a pass, only a lane the data cannot tell from the winner
		 * (the same observed rate) that the preference would choose */
		if (T->winner && (i >= T->ntied || lane_rate(c) != lane_rate(T->winner) ||
		    !preferred(c, T->winner)))
			continue;
		if (confirm(T, c, (int)++rounds, split) < 0)
			return -1;
		if (json_is_true(json_object_get(c->confirm, "passed"))) {
			if (!T->winner || preferred(c, T->winner))
				T->winner = c;
		} else if (!improved && json_is_true(json_object_get(c->confirm, "improved")))
			improved = c;
	}
	T->verdict = T->winner ? "FIXED" : improved ? "IMPROVED" : "QUARANTINE";
	if (!T->winner)
		T->winner = improved;
	return 0;
}

/* The final statuses: the winner, ties, failed confirmations. */
static void
final_statuses(rt_tour *T)
{
	rt_tour_lane *winner = T->winner;
	char a[40], b[40];
	size_t i;

	for (i = 0; i < T->ncand; i++) {
		rt_tour_lane *l = T->cand[i];
		const char *cs = l->confirm ? json_string_value(json_object_get(l->confirm,
		    "summary")) : NULL;
		if (l == winner) {
			l->status = W(WINNER);
			snprintf(l->reason, sizeof l->reason, "%s among the lanes better than "
			    "the original (%ld/%ld failed, interval %s)%s; confirmation: %s",
			    i >= T->ntied ? "the best confirmed" : T->ntied > 1 ? "first of the lanes "
			    "tied with the lowest rate" : "the lowest rate",
			    l->t.failures, l->t.trials, rt_tour_laneiv(a, sizeof a, l), i >= T->ntied ||
			    T->ntied < 2 ? "" : l->changes_checks ? " (every tied lane changes "
			    "the test's checks; among those that passed confirmation, the smallest diff "
			    "first)" : " (it changes no check of the test; among those that passed "
			    "confirmation, the smallest diff first)", cs);
		} else if (l->confirm && json_is_true(json_object_get(l->confirm, "passed"))) {
			l->status = W(TIED);
			snprintf(l->reason, sizeof l->reason, "tied with the winner %s: it "
			    "passed its confirmation too (%s), but %s", winner->id, cs,
			    l->changes_checks && !winner->changes_checks ? "it changes the "
			    "test's checks, the winner does not" : l->diff_lines >
			    winner->diff_lines ? "its diff is larger" : "ordered after it");
		} else if (l->confirm) {
			l->status = W(ELIMINATED);
			snprintf(l->reason, sizeof l->reason, "failed its confirmation: %s "
			    "(FIXED needs 0 of %ld)", cs, T->required);
		} else if (winner && !(l->iv.low > winner->iv.high ||
		    winner->iv.low > l->iv.high)) {
			l->status = W(TIED);
			snprintf(l->reason, sizeof l->reason, "tied with the winner %s: "
			    "%ld/%ld failed, interval %s overlaps %s's %s; %s", winner->id,
			    l->t.failures, l->t.trials, rt_tour_laneiv(a, sizeof a, l), winner->id,
			    rt_tour_laneiv(b, sizeof b, winner), l->changes_checks &&
			    !winner->changes_checks ? "it changes the test's checks, the "
			    "winner does not" : l->diff_lines > winner->diff_lines ?
			    "its diff is larger" : "ordered after it");
		} else if (winner) {
			snprintf(l->reason, sizeof l->reason, "better than the original, but "
			    "its interval %s lies above the winner %s's %s", rt_tour_laneiv(a,
			    sizeof a, l), winner->id, rt_tour_laneiv(b, sizeof b, winner));
		} else {
			snprintf(l->reason + strlen(l->reason), sizeof l->reason -
			    strlen(l->reason), "; not confirmed (only %ld round%s allowed)",
			    T->confirms, T->confirms == 1 ? "" : "s");
		}
	}
}

/* The verdict's one line. */
static void
summarize(rt_tour *T, const char *bs)
{
	const char *verdict = T->verdict;
	size_t i;

	if (!strcmp(verdict, "FIXED") || !strcmp(verdict, "IMPROVED"))
		snprintf(T->summary, sizeof T->summary, "%s by %s: on fresh trials %s; the "
		    "original %s", verdict, T->winner->id, json_string_value(json_object_get(
		    T->winner->confirm, "summary")), bs);
	else if (!strcmp(verdict, "QUARANTINE")) {
		size_t nraced = 0, nneut = 0, nfail = 0;
		long more = 0;
		char why[300];
		for (i = 0; i < T->nlanes; i++) {
			const rt_tour_lane *l = T->lanes[i];
			nraced += l->raced;
			nneut += l->status && !strcmp(l->status, W(NEUTERED));
			nfail += l->status && !strcmp(l->status, W(PATCH_FAILED));
			if (l->more > more)
				more = l->more;
		}
		if (T->nlanes == 0)
			snprintf(why, sizeof why, "the input held no hypothesis to race");
		else if (nraced == 0)
			snprintf(why, sizeof why, "no patch could be raced (%zu "
			    "disqualified by the guard, %zu did not apply, %zu without a "
			    "usable patch)", nneut, nfail, T->nlanes - nneut - nfail);
		else if (T->ncand)
			snprintf(why, sizeof why, "no patch held up on fresh trials");
		else if (more > 0)
			snprintf(why, sizeof why, "no patch was shown better than the "
			    "original within its budget; about %ld more trials a lane would "
			    "likely decide (--max-trials)", more);
		else
			snprintf(why, sizeof why, "no patch was significantly better than "
			    "the original");
		snprintf(T->summary, sizeof T->summary, "QUARANTINE: %s; the original %s", why, bs);
	} else if (!strcmp(verdict, "ERROR"))
		snprintf(T->summary, sizeof T->summary, "ERROR: the original command could not "
		    "run: %ld valid trials, %ld errors (%.400s)", T->base.t.trials,
		    T->base.t.errors, T->base.first_error[0] ? T->base.first_error :
		    "no trial ran");
	else
		snprintf(T->summary, sizeof T->summary, "%s: the original %s", verdict, bs);
}

int
rt_tour_run(rt_tour *T)
{
	double tp;
	size_t i;
	json_t *base;
	const char *bs;

	/* 1. the baseline and the detect gate */
	tp = rt_now_ms();
	if (measure_baseline(T) < 0)
		return -1;
	T->t_base = elapsed_s(tp);
	base = rt_tour_baseline_json(T);
	T->gate = rt_detect(T->base.t.failures, T->base.t.trials, T->target, T->conf);
	event(T, "baseline", json_deep_copy(base));
	/* --race-failing: an original that fails every trial (an ordered
	 * "polluter victim" pair) is raced like a flaky one */
	if (T->race_failing && T->base.t.trials > 0 && T->base.t.failures == T->base.t.trials)
		T->gate = RT_VERDICT_FLAKY;
	T->confs = json_array();
	if (T->gate != RT_VERDICT_FLAKY) {
		T->verdict = T->gate == RT_VERDICT_ALWAYS_FAILING ? "REGRESSION" :
		    T->gate == RT_VERDICT_STABLE ? "ALREADY_STABLE" :
		    T->gate == RT_VERDICT_INCONCLUSIVE ? "INCONCLUSIVE_BASELINE" : "ERROR";
		bs = json_string_value(json_object_get(base, "summary"));
		for (i = 0; i < T->nlanes; i++)
			rt_tour_finish(T, T->lanes[i], RT_LANE_NOT_RACED, "the original is %s (%s): "
			    "nothing to race", rt_verdict_name(T->gate), bs);
		summarize(T, bs);
		json_decref(base);
		return 0;
	}
	json_decref(base);

	/* 2-3. the lanes, their patches and the guard, and the race */
	tp = rt_now_ms();
	T->phase = "the tournament";
	if (prepare_lanes(T) < 0 || race(T) < 0)
		return -1;
	T->t_race = elapsed_s(tp);
	draw(T, 1);

	/* 4. the winner, confirmed on fresh trials */
	tp = rt_now_ms();
	T->phase = "confirmation";
	if (confirmation(T) < 0)
		return -1;
	T->t_conf = elapsed_s(tp);
	final_statuses(T);
	base = rt_tour_baseline_json(T);
	summarize(T, json_string_value(json_object_get(base, "summary")));
	json_decref(base);
	return 0;
}
