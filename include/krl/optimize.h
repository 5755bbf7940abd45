/*
 * kernelrl: the contrastive RL loop (docs/rl.md), CUDA-L1's method: rounds
 * of G proposals from one prompt that shows earlier candidates of the task
 * with their measured speedups; every proposal is judged, rewarded and
 * stored; group-relative advantages are stored for export to an RL
 * trainer. A run is addressed by name in the store and resumes where it
 * stopped (kill -9 included) without losing or repeating a committed
 * evaluation.
 */
#ifndef KRL_OPTIMIZE_H
#define KRL_OPTIMIZE_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "krl/error.h"
#include "krl/lang.h"
#include "krl/llm.h"
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
