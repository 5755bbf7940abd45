/*
 * kernelrl: the judge (docs/judge.md). It compiles a candidate, runs it in a
 * separate runner process on inputs drawn on the device from seeds, checks
 * every output element against the eager reference on several fresh seeds
 * and shape sets, rejects degenerate outputs, and times candidate and
 * reference interleaved with the L2 flushed and fresh inputs before every
 * call. Every evaluation ends in one verdict record (JSON).
 */
#ifndef KRL_JUDGE_H
#define KRL_JUDGE_H

#include <jansson.h>
#include <stdio.h>
#include <stdint.h>

#include "krl/error.h"
#include "krl/lang.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum krl_verdict {
	KRL_V_OK,
	KRL_V_COMPILE_ERROR,
	KRL_V_INVALID_PLAN,
	KRL_V_LAUNCH_ERROR,
	KRL_V_TIMEOUT,
	KRL_V_WRONG_OUTPUT,
	KRL_V_DEGENERATE_OUTPUT,
	KRL_V_COUNT
} krl_verdict;

const char *krl_verdict_name(krl_verdict v);
/* Returns 0 and sets *out for a verdict name, else -1. */
int krl_verdict_parse(const char *z, krl_verdict *out);

#define KRL_JUDGE_MAX_SETS 12

/*
 * How timed calls are issued (docs/judge.md, "Graph timing"):
 * - KRL_TIMING_AUTO (0, the default of a zeroed krl_judge_opts): chosen
 *   per task by krl_judge_timing_for: stream for levels 1 and 2, graph for
 *   level 3;
 * - KRL_TIMING_STREAM: each side's plan is enqueued op by op on its stream;
 * - KRL_TIMING_GRAPH: each side's plan is captured once in a CUDA graph
 *   (after an uncaptured run) and every timed call replays it.
 * Both sides are always timed in the same mode.
 */
typedef enum krl_timing_mode {
	KRL_TIMING_AUTO = 0,
	KRL_TIMING_STREAM,
	KRL_TIMING_GRAPH,
	KRL_TIMING_COUNT
} krl_timing_mode;

/* "stream", "graph", "auto". */
const char *krl_timing_name(krl_timing_mode m);
/* Returns 0 and sets *out for a mode name, else -1. */
int krl_timing_parse(const char *z, krl_timing_mode *out);
/* The mode task t is timed in under option m: m itself unless it is
 * KRL_TIMING_AUTO, which is the per-task choice point: graph for the
 * level-3 tasks (id "level3/..."), whose whole networks launch hundreds
 * of calls, stream for everything else. Never returns AUTO. */
krl_timing_mode krl_judge_timing_for(krl_timing_mode m, const krl_task *t);

typedef struct krl_judge_opts {
	const char *sets[KRL_JUDGE_MAX_SETS]; /* correctness shape sets */
	int nsets;                /* 0: {"kb1"} */
	const char *time_set;     /* timing shape set; NULL: the last of sets */
	int seeds;                /* correctness seeds per set (>= 5; 0: 5) */
	int hidden;               /* hidden shape sets drawn per evaluation from
	                           * the task's tiny set (0: 1; negative: none) */
	double rse_target;        /* stop timing when both RSEs <= this (0.01) */
	double time_budget_s;     /* max seconds of timing loop (0: 20) */
	int min_pairs;            /* at least this many timed pairs (0: 20) */
	int max_pairs;            /* at most (0: 2000) */
	int warmup;               /* untimed calls per side before timing (0: 3) */
	double call_timeout_s;    /* a runner request taking longer is a hang (0: 10) */
	/* The judge's own randomness: 0 (the default) draws every seed and
	 * choice from getrandom(2), so a candidate can predict none of them;
	 * any other value makes them reproducible (and so predictable): for
	 * debugging only. */
	uint64_t seed;
	int no_stress;            /* skip the stress draws (docs/judge.md) */
	/* Compiler limits (krl_nvrtc_set_limits, process-wide: the judge's
	 * compiles and krl_judge_precompile's alike); 0: the defaults, 30 s
	 * and 4096 MiB. */
	double compile_timeout_s;
	unsigned long long compile_memory_mib;
	int no_timing;            /* check correctness only */
	krl_timing_mode timing;   /* how timed calls are issued (0: stream) */
	const char *runner_path;  /* the krl binary; NULL: $KRL_RUNNER or /proc/self/exe */
	const char *cache_dir;    /* NULL: krl_cache_dir() */
	int device;               /* CUDA device ordinal */
	int verbose;              /* progress lines on stderr */
} krl_judge_opts;

typedef struct krl_judge krl_judge;

/* Opens the device, measures (or reads cached) roofline ceilings. Fails
 * with KRL_ENODEVICE on a machine without a GPU. Free with
 * krl_judge_free. */
krl_err krl_judge_create(const krl_judge_opts *o, krl_judge **out,
                         krl_diag *d);
void krl_judge_free(krl_judge *j);
/* The GPU j measures on: its name, its UUID (hex) and its ordinal among
 * the visible devices (the pointers live as long as j). */
void krl_judge_gpu(const krl_judge *j, const char **name, const char **uuid,
                   int *ordinal);

/*
 * Evaluates the candidate file at cand_path on task t. Always produces a
 * record when it returns KRL_OK, whatever the verdict; returns an error
 * only when the judge itself fails (device lost, out of host memory).
 * The caller owns *record (json_decref).
 */
krl_err krl_judge_eval(krl_judge *j, const krl_task *t, const char *cand_path,
                       json_t **record, krl_diag *d);

/* Options of krl_judge_check (krl check). */
typedef struct krl_check_opts {
	const char *arch;         /* NULL: "sm_90a" */
	const char *sets[KRL_JUDGE_MAX_SETS]; /* shape sets to validate */
	int nsets;                /* 0: every shape set of the task */
	const char *cache_dir;    /* NULL: krl_cache_dir() */
	int no_cache;             /* compile without the cache */
} krl_check_opts;

/*
 * What the judge does before the GPU, on any machine (no device needed):
 * parse the candidate at cand_path, validate its plan on the shape sets,
 * apply the include rule and compile its device code in the compiler
 * sandbox for o->arch, under the limits of krl_nvrtc_set_limits. The same
 * code runs at the start of krl_judge_eval. On KRL_OK *record (caller
 * json_decref's) says {task, candidate, arch, sets, verdict (ok,
 * invalid_plan, compile_error), message, failure {reason: parse, plan,
 * include, compile_timeout, compile_resources, nvrtc}, compile {ms,
 * cached, arch, key (the NVRTC cache key), sandbox, log}, check_seconds};
 * other codes when kernelrl
 * itself fails (file unreadable, no memory, no compiler process).
 */
krl_err krl_judge_check(const krl_task *t, const char *cand_path,
                        const krl_check_opts *o, json_t **record,
                        krl_diag *d);

/* Compiles the device code of n candidate files (their texts; NULL
 * entries skipped) with NVRTC on up to `threads` CPU threads at once
 * (0: one fewer than the cores), into the judge's compile cache, so that
 * their evaluations find the cubin there. Compile errors are left for the
 * evaluation to report. Returns how many compiled. */
int krl_judge_precompile(krl_judge *j, const char *const *texts, int n,
                         int threads);

/* Times the task's eager reference alone on shape set `set` with the
 * judge's protocol (fresh inputs and a flushed L2 before each of `reps`
 * timed calls, events on the stream, 3 warm-up calls), in the judge's
 * timing mode (o.timing, resolved for t): a record {task, set, ref_ms
 * {median, mean, min, rse, n}, bytes, flops, roofline, timing_mode, and
 * in graph mode graph {nodes, capture_ms}}. Used to compare the reference
 * with PyTorch eager and PyTorch's CUDA-graph replay
 * (bench/ref_vs_torch.py). A plan that cannot be captured is
 * KRL_EUNSUPPORTED naming the statement and why. */
krl_err krl_judge_time_reference(krl_judge *j, const krl_task *t,
                                 const char *set, int reps, json_t **rec,
                                 krl_diag *d);

/* The judge's stress draws for task t on program p (docs/judge.md): one
 * line per kind with the inputs it changes and how, or why it is skipped
 * (for `krl show`). */
void krl_stress_print(FILE *f, const krl_task *t, const krl_program *p);

/* Prints a short human summary of a record to f. */
void krl_record_print(FILE *f, const json_t *record);

/*
 * The degenerate-output audit of one task on one shape set, on the CPU:
 * the reference output computed with the float64 golden ops on inputs
 * drawn as the judge draws them (seed), and for each output whether an
 * all-zero, constant or input-copy output would pass the task's tolerance.
 * Appends one object per output to rows: {task, set, output, flag (null or
 * "all zero", "constant", "a copy of an input"), declared, max_abs}.
 * KRL_EUNSUPPORTED when the set holds more than max_elements elements or
 * declares more than 16 * max_elements flops (the golden ops are slow).
 */
krl_err krl_audit_task(const krl_task *t, const char *set,
                       int64_t max_elements, uint64_t seed, json_t *rows,
                       krl_diag *d);

/* The runner process's main loop (the CLI runs it as `krl __runner FD
 * DEVICE`): fd is its socket to the judge, device the CUDA ordinal.
 * Returns the process exit status. */
int krl_runner_main(int fd, int device);

#ifdef __cplusplus
}
#endif
#endif
