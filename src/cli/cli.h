/* The krl command-line tool: one function per subcommand. */
#ifndef KRL_CLI_H
#define KRL_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "krl/judge.h"
#include "krl/optimize.h"
#include "krl/policy.h"
#include "krl/suite.h"

int krl_cmd_tasks(int argc, char **argv);
int krl_cmd_show(int argc, char **argv);
int krl_cmd_eval(int argc, char **argv);
int krl_cmd_check(int argc, char **argv);
int krl_cmd_batch(int argc, char **argv);
int krl_cmd_optimize(int argc, char **argv);
int krl_cmd_export_rollouts(int argc, char **argv);
int krl_cmd_export_sft(int argc, char **argv);
int krl_cmd_audit_tasks(int argc, char **argv);
int krl_cmd_time_ref(int argc, char **argv);
int krl_cmd_train(int argc, char **argv);
int krl_cmd_report(int argc, char **argv);
int krl_cmd_serve(int argc, char **argv);
int krl_cmd_export(int argc, char **argv);

/* Consumes the judge option s (with its value v, which may be NULL) into o:
 * returns how many arguments it used (1 or 2), 0 when s is not a judge
 * option, -1 after printing an error. --shapes keeps pointers into
 * sets_buf. */
int krl_cli_judge_option(const char *s, const char *v, krl_judge_opts *o,
                         char *sets_buf, size_t cap);
/* Splits the comma-separated shape set list v (a --shapes value) into
 * sets[0..max): copies v into buf[cap] and points the names into it.
 * Returns the count, or -1 after printing "<cmd>: ..." when v does not fit
 * buf or names more than max sets (neither is ever cut). */
int krl_cli_shape_list(const char *cmd, const char *v, char *buf, size_t cap,
                       const char **sets, int max);
extern const char krl_cli_judge_usage[];
/* Prints krl_cli_judge_usage with n options renamed: rename[2i] is an
 * option ("--budget"), rename[2i + 1] the text shown for it instead
 * ("--time-budget SECONDS"), or NULL to leave its line out. */
void krl_cli_print_judge_usage(FILE *f, const char *const *rename, int n);

/* ==== The builtin search (src/cli/search.c) ==== */

/* Optimizes task ref (an id or a .task path) with the builtin search: the
 * program optimizer for shape set o->shapes, judged by j, stored in st,
 * with policy pol (updated when o->learn). *summary as
 * krl_optimize_builtin gives it (caller decrefs). A task the optimizer
 * cannot lower is KRL_EUNSUPPORTED with the op named in d. */
krl_err krl_cli_search(const krl_suite *s, const char *ref, krl_judge *j,
                       krl_store *st, krl_policy *pol,
                       const krl_builtin_opts *o, json_t **summary,
                       krl_diag *d);
/* --round0 V of krl optimize and krl train (cmd names the command):
 * "fixed" (the default) or "policy" into o->round0_policy; -1 with a
 * message on stderr for any other V. */
int krl_cli_round0(const char *cmd, const char *v, krl_builtin_opts *o);
/* The results table: one row per problem; sum NULL prints error. */
void krl_cli_table_header(FILE *f);
void krl_cli_table_row(FILE *f, const char *problem, const json_t *sum,
                       const char *error);
/* Appends one JSON line to path: problem, shapes, timing (the judge's
 * timing mode), ref_ms, best_ms, speedup, ci_low, ci_high, roofline,
 * verdict, evaluations, commit, date, and where sum has them the GPU it
 * was measured on (gpu, gpu_uuid, device) (sum NULL: nulls, 0
 * evaluations, and error as the verdict). */
krl_err krl_cli_results_line(const char *path, const char *problem,
                             const char *shapes, const char *timing,
                             const json_t *sum,
                             const char *error, krl_diag *d);
/* ==== Judge workers (src/cli/workers.c, docs/workers.md) ==== */

/* The CUDA devices visible (CUDA_VISIBLE_DEVICES applied), counted in a
 * child process so that the caller may still fork workers that use CUDA;
 * -1 when the count could not be had. */
int krl_cli_device_count(void);
/* One worker's work: called in worker w's process with k = -1 once first
 * (open its judge and store into *wctx; a non-zero return, with why,
 * ends the worker and leaves its share to the others), then for each
 * problem k it takes (*sum:
 * the outcome as JSON text, malloc'd, or NULL; why: the error, "" when
 * none; returns 0 or the error code), and with k = -2 last (close). */
typedef int (*krl_cli_worker_fn)(void *ctx, int w, int k, void **wctx,
                                 char **sum, char *why, size_t nwhy);
/* Called in the parent for problem k, in the problems' order, with the
 * outcome its worker sent (sum may be NULL; why "" when none). */
typedef void (*krl_cli_report_fn)(void *rctx, int k, int err,
                                  const char *sum, const char *why);
/* A judge worker's own judge and store (the worker context of krl
 * optimize's and krl train's pools). */
typedef struct krl_cli_judge_worker {
	krl_judge *j;
	krl_store *st;
} krl_cli_judge_worker;
/* The setup and teardown steps of a krl_cli_worker_fn whose workers each
 * judge on their own device: k = -1 opens worker w's judge on device
 * jo->device + w % ndev and its connection to store db into *wctx (why
 * says which worker and device failed), k = -2 closes them. Returns 1
 * with *rc set for those, 0 for a problem (k >= 0), left to the caller. */
int krl_cli_judge_worker_step(const krl_judge_opts *jo, int ndev,
                              const char *db, int w, int k, void **wctx,
                              char *why, size_t nwhy, int *rc);
/* Runs ntasks problems on nworkers child processes (fork; the caller must
 * not have initialised CUDA), each taking the next problem when it is
 * free, and reports every problem once, in order, as outcomes arrive; a
 * worker that dies leaves its problem reported failed, with why; problems
 * left when no worker is (every setup failed) are reported failed with
 * the last setup's reason. Fails only when the pool itself cannot run (no
 * pipe, no fork). */
krl_err krl_cli_workers_run(int nworkers, int ntasks, krl_cli_worker_fn run,
                            void *ctx, krl_cli_report_fn report, void *rctx,
                            krl_diag *d);

/* `git rev-parse HEAD` in the current folder, or "unknown" (static). */
const char *krl_cli_commit(void);
/* The current UTC time, ISO 8601 ("2026-11-29T18:04:05Z"). */
void krl_cli_date(char buf[32]);

/* Exit codes. */
enum { KRL_EXIT_OK = 0, KRL_EXIT_VERDICT = 1, KRL_EXIT_USAGE = 2,
       KRL_EXIT_ERROR = 3 };

#endif
