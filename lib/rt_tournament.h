/* rt_tournament: rt-verify's orchestration (rt-verify(1) THE TOURNAMENT) —
 * the baseline and its extension, the lanes, the paired race, ties,
 * confirmation and the verdict — over injected trials, so the same code
 * runs rt-verify's processes and bench/stopping-rules' Bernoulli stubs. */
#ifndef RT_TOURNAMENT_H
#define RT_TOURNAMENT_H

#include <stddef.h>
#include <jansson.h>

#include "rt_records.h"

#include "rt_hyp.h"
#include "rt_race.h"
#include "rt_stats.h"
#include "rt_trial.h"

/* A canary probe stops at this many failures (live) or passes (neutered). */
#define RT_TOUR_CANARY_K 3

typedef struct rt_tour_lane {
	const char *id, *source, *model, *cause, *explanation, *patch;
	const char *hstatus;         /* the hypothesis' own status */
	json_t *hyp;
	char **files;
	size_t nfiles;
	int index;                   /* order in the input */
	const void *user;            /* the trial runner's (a confirmation round inherits it) */
	/* where its trials run: the runner's */
	char *dir;                   /* its copy */
	rt_trial_opts o;
	int owned;                   /* its copy is the sandbox uid's */
	rt_tally t;
	long started, inflight, limit, next_trial;
	int done, better, anytime, raced;
	const char *status, *rule;
	char reason[800];
	char first_error[640];
	json_t *failure_lines;       /* [{line, count}]: its failures' first lines
	                              * (the runner's), set by the trial runner */
	rt_interval iv;
	double cm;                   /* a confirmation round's confidence, or 0 */
	json_t *confirm;             /* its confirmation round, if it had one */
	/* the paired race: outcomes by trial number (0 pending, 'p', 'f', 'e'),
	 * then the valid ones in trial order (1 failed), paired index by index
	 * with the original's */
	unsigned char *oc, *vs;
	long ocap, scan, nv, vcap, paired, more;
	rt_race_pairs rp;
	rt_interval q;
	int canary;                  /* a canary probe: stops at RT_TOUR_CANARY_K either way */
	json_t *canary_rec;          /* what the canary found */
	json_t *overruled;           /* rules --allow overruled for this lane */
	int changes_checks;          /* its patch changes a test's checks (the guard's inventories) */
	json_t *checks;              /* those changes, or NULL */
	long diff_lines;             /* lines its patch adds or removes */
	char guard[256];             /* how the guard read the tests */
} rt_tour_lane;

typedef struct rt_tour rt_tour;

/* One trial's end, as the runner reports it. */
typedef struct {
	rt_tour_lane *lane;
	long trial;
	rt_outcome outcome;
	const char *error;           /* an error's reason, or NULL */
} rt_tour_result;

/* What the tournament is given. Either run (one trial, synchronously), or
 * start + wait + running (trials in parallel, T->jobs at a time). Every
 * other hook may be NULL. */
typedef struct {
	rt_outcome (*run)(void *ctx, rt_tour_lane *l, long trial);
	/* start trial number `trial` of l: 0, or -1 when it could not start
	 * because of an interruption */
	int (*start)(void *ctx, rt_tour_lane *l, long trial);
	/* a trial's end, waiting up to ms (-1: as long as it takes): 1 with r
	 * set (valid until the next wait), 0 none yet, -1 interrupted */
	int (*wait)(void *ctx, int ms, rt_tour_result *r);
	int (*running)(void *ctx);
	/* give l a place to run ("baseline", or "confirm" with patch
	 * applied): 0, or -1 when interrupted; unplace removes it */
	int (*place)(void *ctx, rt_tour_lane *l, const char *what, const char *patch);
	void (*unplace)(void *ctx, rt_tour_lane *l);
	/* a raceable lane's patch applied and guarded (and its canary run):
	 * it may end the lane with rt_tour_finish; 0, or -1 when interrupted */
	int (*prepare)(void *ctx, rt_tour *T, rt_tour_lane *l);
	/* l has ended (status and reason set): its record */
	void (*finished)(void *ctx, rt_tour *T, rt_tour_lane *l);
	/* an event (fields are the callee's) and the board */
	void (*event)(void *ctx, const char *name, json_t *fields);
	void (*draw)(void *ctx, int force);
} rt_tour_ops;

struct rt_tour {
	/* configuration (rt_tour_init sets rt-verify's defaults) */
	double conf, target;
	long n0, nmax, confirms;
	int nmax_given, race_failing, jobs, wait_ms;
	int mutate_every_lane_better;   /* test hook: the race declares every lane better */
	const rt_tour_ops *ops;
	void *ctx;
	int have_input;              /* input: the baseline's counts from a measure record */
	rt_tally input;
	/* the lanes */
	rt_tour_lane **lanes;
	size_t nlanes;
	rt_tour_lane base;
	/* state */
	double L0, U0;               /* the baseline's interval */
	long fresh;                  /* next never-used trial number */
	int racing;                  /* the race is on: the baseline runs with the lanes */
	long base_input;             /* baseline trials that came from a record */
	long base_input_errors;      /* its errors and ignored trials */
	const char *phase;
	rt_tour_lane *rounds[100];   /* the confirmation rounds, for the board */
	int nrounds;
	/* the outcome */
	rt_verdict gate;
	const char *verdict;
	rt_tour_lane *winner;
	rt_tour_lane **cand;         /* better than the original, in confirmation order */
	size_t ncand, ntied;
	long required;               /* a confirmation's clean runs, or 0 */
	double pref, cm;
	json_t *confs;               /* the confirmation rounds */
	char summary[600];
	double t_base, t_race, t_conf;   /* seconds */
};

void rt_tour_init(rt_tour *T);
/* A lane for the hypothesis (its strings are borrowed). */
rt_tour_lane *rt_tour_add(rt_tour *T, const rt_hyp *h);
/* The whole tournament: T->verdict and the rest of the outcome set, 0; or
 * -1 when interrupted. */
int rt_tour_run(rt_tour *T);
void rt_tour_free(rt_tour *T);

/* Run trials of ls until none may start another (a canary probe). */
int rt_tour_run_lanes(rt_tour *T, rt_tour_lane **ls, size_t n, const char *label);
/* End l in state st (its status the state's word) with a reason. */
void rt_tour_finish(rt_tour *T, rt_tour_lane *l, rt_lane_state st,
    const char *fmt, ...);
/* The lane budget: --max-trials, or rt_race_budget of the baseline. */
long rt_tour_budget(const rt_tour *T);

/* The lane record's fields ("type": "lane" with with_type). */
json_t *rt_tour_lane_json(const rt_tour *T, const rt_tour_lane *l, int with_type);
/* The baseline's measure fields, saying where its trials came from. */
json_t *rt_tour_baseline_json(const rt_tour *T);
/* A lane's interval for reasons and the board: "≤28.0%" for 0/n. */
const char *rt_tour_laneiv(char *buf, size_t size, const rt_tour_lane *l);

#endif
