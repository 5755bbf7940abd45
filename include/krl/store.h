/*
 * kernelrl: the store (docs/store.md): one SQLite database in WAL mode
 * holding runs, content-addressed candidates and every evaluation with its
 * prompt, completion, verdict record and RL bookkeeping. Each evaluation is
 * committed in its own transaction, so a run killed at any moment (kill -9
 * included) resumes without losing or repeating a committed evaluation:
 * proposals are addressed by a slot key ("r2/g0/k3") unique within a run.
 *
 * Strings returned in rows are owned by the row; free with
 * krl_eval_row_clear. Functions return KRL_EIO with the SQLite message on
 * database errors.
 */
#ifndef KRL_STORE_H
#define KRL_STORE_H

#include <stdint.h>

#include "krl/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct krl_store krl_store;

/* Opens (creating if needed) the database at path, WAL mode, schema
 * applied. Free with krl_store_close. */
krl_err krl_store_open(const char *path, krl_store **out, krl_diag *d);
void krl_store_close(krl_store *s);

/* ==== Candidates (content-addressed) ==== */

/* Stores source (idempotent); hash = hex SHA-256 of the bytes. */
krl_err krl_store_put_candidate(krl_store *s, const char *source, size_t len,
                                char hash[65], krl_diag *d);
/* The source of a stored candidate (caller frees), KRL_ENOTFOUND if none. */
krl_err krl_store_get_candidate(krl_store *s, const char *hash, char **source,
                                krl_diag *d);

/* ==== Runs ==== */

/* Finds the run called name, or creates it with config (a JSON text).
 * *resumed is 1 when it existed. An existing run whose stored config
 * differs from config is KRL_EINVAL (resume with the same options). */
krl_err krl_store_run_begin(krl_store *s, const char *name, const char *config,
                            int64_t *run_id, int *resumed, krl_diag *d);
/* status: "running", "done", "failed". */
krl_err krl_store_run_status(krl_store *s, int64_t run_id, const char *status,
                             krl_diag *d);
/* The run's id by name (KRL_ENOTFOUND if none). */
krl_err krl_store_run_find(krl_store *s, const char *name, int64_t *run_id,
                           krl_diag *d);

/* ==== Evaluations ==== */

typedef struct krl_eval_row {
	int64_t id;              /* set by the store */
	int64_t run_id;
	char slot[64];           /* unique within the run: "r2/g0/k3" */
	int round, group, member;
	char task[128];
	char cand_hash[65];      /* "" when no candidate could be extracted */
	char verdict[32];        /* a judge verdict, or "no_candidate" */
	double speedup;          /* 0 unless verdict is ok */
	double ci_low, ci_high;
	double reward;           /* normalised, clipped (see krl/rl.h) */
	double advantage;        /* group-relative; set when the group is complete */
	int has_advantage;
	char *record;            /* the judge's JSON record, or NULL */
	char *prompt;            /* the user prompt sent */
	char *completion;        /* the model's answer */
	char *policy;            /* "llm:<model>", "builtin", ... */
	int prompt_tokens, completion_tokens;
} krl_eval_row;

void krl_eval_row_clear(krl_eval_row *r);

/* 1 in *has when the run already has a committed evaluation at slot. */
krl_err krl_store_has_slot(krl_store *s, int64_t run_id, const char *slot,
                           int *has, krl_diag *d);
/* Commits one evaluation (one transaction); sets row->id. Adding a slot
 * that exists is KRL_EINVAL. */
krl_err krl_store_add_eval(krl_store *s, krl_eval_row *row, krl_diag *d);
/* Sets the advantage of evaluation id. */
krl_err krl_store_set_advantage(krl_store *s, int64_t id, double advantage,
                                krl_diag *d);
/* Calls fn for each evaluation of run_id (all runs when run_id is 0) in id
 * order; fn returning non-zero stops (the store then returns KRL_OK). */
krl_err krl_store_foreach_eval(krl_store *s, int64_t run_id,
                               int (*fn)(const krl_eval_row *row, void *ctx),
                               void *ctx, krl_diag *d);
/* Count of committed evaluations of a run. */
krl_err krl_store_count_evals(krl_store *s, int64_t run_id, int64_t *n,
                              krl_diag *d);

/* ==== Exemplar pools ==== */

typedef struct krl_exemplar {
	char hash[65];
	double score;            /* best speedup this candidate reached on the task */
	char *source;
} krl_exemplar;

/* Every distinct correct (verdict ok) candidate of task across all runs,
 * with its best speedup, best first. Caller frees with
 * krl_exemplars_free. */
krl_err krl_store_exemplars(krl_store *s, const char *task, krl_exemplar **out,
                            int *n, krl_diag *d);
void krl_exemplars_free(krl_exemplar *ex, int n);

#ifdef __cplusplus
}
#endif
#endif
