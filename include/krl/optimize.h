/*
 * kernelrl: the contrastive RL loop (docs/rl.md), CUDA-L1's method: rounds
 * of G proposals from one prompt that shows earlier candidates of the task
 * with their measured speedups; every proposal is judged, rewarded and
 * stored; group-relative advantages are stored for export to an RL
 * trainer. A run is addressed by name in the store and resumes where it
 * stopped (kill -9 included) without losing or repeating a committed
 * evaluation. Two policies drive it: an LLM behind an OpenAI-compatible
 * server (krl_optimize_llm), and the builtin program optimizer with its
 * learned preferences (krl_optimize_builtin, docs/optimizer.md).
 */
#ifndef KRL_OPTIMIZE_H
#define KRL_OPTIMIZE_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "krl/error.h"
#include "krl/lang.h"
#include "krl/llm.h"
#include "krl/opt.h"
#include "krl/policy.h"
#include "krl/rl.h"
#include "krl/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Anything that turns a candidate file into a verdict record: the judge
 * (krl_judge_evaluator), or in CPU tests a stand-in that replays recorded
 * verdicts. */
typedef struct krl_evaluator {
	void *ctx;
	krl_err (*eval)(void *ctx, const krl_task *t, const char *cand_path,
	                json_t **record, krl_diag *d);
	const char *name;        /* for reports: "judge", "replay stand-in" */
	/* Optional (NULL: none): told the texts of candidates about to be
	 * evaluated, so it can prepare them together (the judge compiles
	 * them in parallel). Must not change any verdict. */
	void (*prefetch)(void *ctx, const char *const *texts, int n);
} krl_evaluator;

struct krl_judge;
/* An evaluator backed by a judge (borrowed). */
krl_evaluator krl_judge_evaluator(struct krl_judge *j);

/* The paper's stages that generate data (the third, supervised
 * fine-tuning, happens in the trainer on `krl export-sft` output). */
typedef enum krl_stage {
	KRL_STAGE_RL,            /* contrastive RL: exemplars with speedups, speedup rewards */
	KRL_STAGE_SELFSUP        /* self-supervised: no exemplars, reward 1 for correct */
} krl_stage;

typedef struct krl_optimize_opts {
	const char *run_name;    /* NULL: "<task id>/<stage>" */
	const char *policy;      /* recorded with every evaluation; NULL: "llm" */
	krl_stage stage;
	int rounds;              /* 0: 4 */
	int group;               /* proposals per prompt (G); 0: 4 */
	krl_exemplar_opts exemplars;
	krl_reward_opts reward;
	const char *template_dir;/* NULL: the source tree's templates/ */
	const char *shapes;      /* named in the prompt ("kb1"); NULL: "kb1" */
	const char *timing;      /* the judge's timing mode ("graph"); NULL or
	                            "stream": stream. Part of the run's identity
	                            only when not stream */
	const char *work_dir;    /* candidate files go here; NULL: "krl-candidates" */
	uint64_t seed;           /* exemplar sampling; 0: 1 */
	int progress;            /* live status line on stderr */
} krl_optimize_opts;

/*
 * Runs (or resumes) the LLM policy's contrastive loop on task t. Every
 * evaluation is committed to st before the next begins. *summary (caller
 * decrefs) holds the run's totals and best candidate. Returns an error only
 * when the loop itself cannot go on (store, judge or server failure after
 * retries); what a model answers never stops it.
 */
krl_err krl_optimize_llm(const krl_task *t, krl_llm *llm,
                         const krl_evaluator *ev, krl_store *st,
                         const krl_optimize_opts *o, json_t **summary,
                         krl_diag *d);

/* ==== The builtin policy's search (docs/optimizer.md, section 5) ==== */

/* Anything that names a task's decisions and writes the candidate of a
 * choice: the program optimizer (krl_opt_generator), or in CPU tests a
 * small stand-in space. The candidate text must hold the line
 * krl_choice_format writes, so that a stored candidate says which choice
 * made it. */
typedef struct krl_generator {
	void *ctx;
	const krl_space *space;  /* borrowed; lives as long as ctx */
	krl_features features;   /* the task's features for the policy */
	/* *text: the candidate file; *what: one line saying what it does;
	 * both malloc'd, the caller frees. An error means this choice makes no
	 * candidate (it is recorded as "no_candidate" and penalised), except
	 * KRL_ENOMEM, which stops the search. */
	krl_err (*generate)(void *ctx, const krl_choice *c, char **text,
	                    char **what, krl_diag *d);
	const char *name;        /* for reports: "opt", "stand-in space" */
} krl_generator;

/* The program optimizer o (borrowed, must outlive the generator). */
krl_generator krl_opt_generator(const krl_opt *o);

typedef struct krl_builtin_opts {
	const char *run_name;    /* NULL: "<task>/builtin/<shapes>/b<budget>/<w>"
	                            with w the policy's fingerprint (8 digits) */
	int budget;              /* evaluations in all, round 0 included; 0: 32 */
	int group;               /* proposals per round after round 0 (G); 0: 4 */
	int mutate;              /* decisions redrawn per proposal; 0: 2 */
	int tries;               /* draws per proposal to find one not evaluated
	                            yet in the run; 0: 48 */
	krl_exemplar_opts exemplars;
	int run_exemplars;       /* 1: exemplars from this run only (a fair
	                            comparison of policies in one store); 0: the
	                            task's correct candidates of every run */
	krl_reward_opts reward;
	int learn;               /* update the policy after each group */
	double lr;               /* learning rate; 0: 0.1 */
	double max_norm;         /* L2 clip of one group's update; 0: 1 */
	const char *shapes;      /* the shape set optimized for, recorded;
	                            NULL: "kb1" */
	const char *timing;      /* the judge's timing mode for this task
	                            ("graph"); NULL or "stream": stream. Part
	                            of the run's name and identity only when
	                            not stream (older runs keep theirs) */
	const char *work_dir;    /* candidate files; NULL: "krl-candidates" */
	uint64_t seed;           /* proposals and exemplar draws; 0: 1 */
	int patience;            /* stop ("converged") after a round r >= patience
	                            when the best speedup of rounds 0..r is not
	                            above (1 + min_gain) times that of rounds
	                            0..r - patience; 0: never (use the budget) */
	double min_gain;         /* relative; 0: 0.01 */
	int progress;            /* live status line on stderr */
	int round0_policy;       /* 1: round 0 is a round of G drawn from the
	                            policy (its first member the policy's mode
	                            unless it is uniform), with no fixed choices
	                            and no rescue: what the weights alone find
	                            (krl train --eval --round0 policy); part of
	                            the run's identity and default name only
	                            when on. 0: the fixed choices */
} krl_builtin_opts;

/*
 * Runs (or resumes) the builtin policy's search on task t: round 0
 * evaluates the default choice (every option 0) and, when the space offers
 * it, "fuse=ref" (the task's reference plan itself, unchanged, so that
 * every search holds a measured candidate as fast as the reference); each
 * later round draws
 * exemplars from the task's correct candidates in the store (bucketed by
 * speedup, sampled with a temperature), reads their choices back from
 * their text, and makes G proposals, each an exemplar's choice with
 * o->mutate decisions redrawn from the policy. A proposal already
 * evaluated in the run (the same choice, or the same candidate text apart
 * from its krl-choice line: knobs the candidate does not use) is drawn
 * again without spending budget; after o->tries draws the search stops
 * early ("exhausted": the space is used up); with o->patience it also stops
 * when the best speedup has not grown for that many rounds ("converged").
 * Every evaluation is committed to st
 * before the next; with o->learn the policy takes a gradient step (GRPO
 * advantages, docs/rl.md) after each group, and a resumed run replays the
 * committed steps, so pol ends as if nothing had stopped. pol is updated
 * in place (the caller saves it when it wants the learning kept).
 *
 * *summary (caller decrefs): run, task, shapes, policy, weights, ref_ms,
 * best_ms, speedup, ci_low, ci_high, roofline, verdict, evaluations,
 * correct, best_candidate (file), best_hash, what, verdicts, resumed,
 * exhausted; ref_ms, best_ms, speedup, ci_low, ci_high and roofline are
 * null when no candidate was correct, and verdict is then the most
 * frequent one. Returns an error only when the search itself cannot go
 * on (store, evaluator or generator out of memory).
 */
krl_err krl_optimize_builtin(const krl_task *t, const krl_generator *gen,
                             krl_policy *pol, const krl_evaluator *ev,
                             krl_store *st, const krl_builtin_opts *o,
                             json_t **summary, krl_diag *d);

/* The best speedup among the `ok` evaluations of the first n of run
 * run_name (in commit order, which is slot order in a search), NAN in
 * *best when none is; KRL_ENOTFOUND when the store has no such run. A
 * builtin search's first n evaluations are those of a search of budget n
 * with the same options and seed (tests/rl/test_search.c, budget_prefix):
 * `krl train --eval --at`. */
krl_err krl_run_best_within(krl_store *st, const char *run_name, int n,
                            double *best, krl_diag *d);

/* Writes the supervised fine-tuning set: one JSON line (task, prompt,
 * completion, candidate source, speedup, policy) per distinct correct
 * candidate with speedup >= min_speedup, its best evaluation, over one run
 * or all (run_name NULL) -- runs of several models or policies make the
 * paper's data-augmentation set. *n is the number of lines. */
krl_err krl_export_sft(krl_store *st, const char *run_name, double min_speedup,
                       FILE *f, int64_t *n, krl_diag *d);

/* Writes the run's evaluations as JSON lines (prompt, completion, reward,
 * advantage, verdict, speedup, task, run, slot) to f; run_name NULL: all
 * runs. Returns the number of lines in *n. */
krl_err krl_export_rollouts(krl_store *st, const char *run_name, FILE *f,
                            int64_t *n, krl_diag *d);

#ifdef __cplusplus
}
#endif
#endif
