/* The judge's private state, shared by judge.c, eval.c and roofline.c. */
#ifndef KRL_JUDGE_INT_H
#define KRL_JUDGE_INT_H

#include <limits.h>
#include <sys/types.h>

#include <cuda_runtime_api.h>

#include "krl/gate.h"
#include "krl/nvrtc.h"
#include "krl/judge.h"
#include "krl/ops.h"
#include "krl/runtime.h"
#include "krl/stats.h"

/* The secret of an evaluation's draws (draw.c). */
#define KRL_JUDGE_KEY_BYTES 32
/* At most this many inputs of one task change in a stress draw. */
#define KRL_STRESS_MAX_BUFS 32

/* One input's change in a stress draw: kind with value v (stress.c). */
typedef struct krl_stress_op {
	int buf;                 /* task buffer index (an input) */
	krl_stress_kind kind;
	double v;                /* scale factor, offset, or spike factor */
} krl_stress_op;

/* A stress draw: the inputs it changes. n == 0: a nominal draw. */
typedef struct krl_stress {
	krl_stress_kind kind;
	int n;
	krl_stress_op ops[KRL_STRESS_MAX_BUFS];
} krl_stress;

/* The device's measured roofline ceilings (src/judge/roofline.c). */
typedef struct krl_ceilings {
	double copy_gbs;         /* cudaMemcpy D2D, GB/s read plus written */
	double read_gbs;         /* a read-only streaming kernel, GB/s */
	double fp32_tflops;      /* cuBLASLt fp32 GEMM (no TF32) */
	double tf32_tflops;      /* cuBLASLt TF32 tensor-core GEMM */
} krl_ceilings;

/* A problem's floor: the longer of bytes over the fastest measured memory
 * rate (gbs) and flops over the fastest rate its tier allows (tflops: a
 * tf32 task TF32's, an fp32 task the larger of fp32's and a third of
 * TF32's, the 3xTF32 rate), in ms; bound "memory" or "compute". */
typedef struct krl_floor {
	double ms, gbs, tflops;
	const char *bound;
} krl_floor;
krl_floor krl_roofline_floor(const krl_ceilings *c, double bytes,
                             double flops, int tf32);

struct krl_judge {
	krl_judge_opts o;
	krl_device dev;
	cudaStream_t stream;
	cudaEvent_t ev0, ev1;
	krl_opctx *ops;
	krl_rng rng;             /* only with o.seed set (reproducible mode) */
	unsigned char key[KRL_JUDGE_KEY_BYTES]; /* this evaluation's draw key */
	void *flush;
	size_t flush_bytes;
	krl_gate *gate;          /* timing gate (KRL_TIME_GATE), NULL: none */
	krl_ceilings ceil;       /* the roofline's measured ceilings */
	char runner_path[PATH_MAX];
	char cache_dir[PATH_MAX];
	pid_t pid;               /* runner process, -1 when none */
	int fd;                  /* socket to the runner */
	int runner_starts;       /* how many runners this judge started */
};

/* The timing gate both processes hold when $KRL_TIME_GATE is set and not
 * "0" (include/krl/gate.h); NULL otherwise. */
krl_gate *krl_judge_gate_from_env(void);

/* Starts a runner if none is alive. */
krl_err krl_judge_runner_ensure(krl_judge *j, krl_diag *d);
/* Sends req (consumed) and waits up to timeout_ms for the answer. On a
 * timeout or a dead runner the runner is killed and reaped, and the error
 * (KRL_ETIMEOUT, KRL_ERUNNER) says what happened (signal, exit status). */
krl_err krl_judge_runner_call(krl_judge *j, json_t *req, int timeout_ms,
                              json_t **rep, krl_diag *d);
/* Kills and reaps the runner (if any). */
void krl_judge_runner_kill(krl_judge *j);

/* Draws every task buffer of `role` (inputs or params) of p into ptrs
 * from seed under key (KRL_JUDGE_KEY_BYTES; NULL: all zero), then applies
 * the stress draw s to the inputs it names (s NULL or s->n == 0: none);
 * the judge and the runner derive identical per-buffer seeds. */
krl_err krl_judge_draw(const krl_program *p, void *const *ptrs, krl_role role,
                       uint64_t seed, const unsigned char *key,
                       const krl_stress *s, void *stream, krl_diag *d);
/* The same draw on the host, into float64 buffers (bit-exact with the
 * device's values as stored in each buffer's dtype): for the CPU golden
 * reference (krl audit-tasks, tests). */
void krl_judge_draw_host(const krl_program *p, double *const *bufs,
                         krl_role role, uint64_t seed,
                         const unsigned char *key, const krl_stress *s);

/*
 * The stress draw of `kind` for program p of task t (stress.c): the
 * float inputs drawn from a continuous distribution that neither a
 * `stress` statement of the task nor an op of its reference (krl_op's
 * no_stress) excludes, each with its value (scale x64, offset 1000 spreads
 * of its distribution, spikes x1024). Returns s->n; when it is 0, *why
 * (may be NULL) says why, or is NULL when the task simply has no such
 * input.
 */
int krl_stress_resolve(const krl_task *t, const krl_program *p,
                       krl_stress_kind kind, krl_stress *s,
                       const char **why);
/*
 * The relative jitter of the conditioning probe (eval.c) for reference
 * program p: 2^-20, or 2^-24 sqrt(K) where the longest run of additions
 * in order behind an output of its library calls (krl_op.seq_len: a
 * GEMM's K, a convolution's Cin / groups times its taps) is K > 256 terms;
 * a reordered sum of K terms moves by about that much; at least 2^-11,
 * TF32's rounding, where p's tier is tf32 and a call multiplies in TF32
 * (krl_op.tf32: the convolutions but depthwise ones). *seq (may be NULL)
 * gets K (0 when no call says).
 */
double krl_stress_jitter(const krl_program *p, int64_t *seq);

/* The judge's random 64-bit values: getrandom(2) (unpredictable), or
 * splitmix64 from o.seed when that is set (reproducible, and so
 * predictable: for debugging only). */
uint64_t krl_judge_rand(krl_judge *j);
/* Fills every buffer of `role` (outputs, scratch) with KRL_POISON_PATTERN. */
krl_err krl_judge_poison(const krl_program *p, void *const *ptrs,
                         krl_role role, void *stream, krl_diag *d);

/* Sets rec's verdict, message (printf-style, made valid UTF-8) and
 * failure detail (consumed; may be NULL). Returns 1 (the evaluation's
 * "stop" code). */
int krl_judge_verdict(json_t *rec, krl_verdict v, json_t *detail,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * The candidate half of what the judge does before the GPU (precheck.c),
 * shared by krl_judge_eval and krl_judge_check:
 * krl_judge_read_candidate reads and parses the file at path once (the
 * text then goes to NVRTC and to the runner as it is);
 * krl_judge_compile_candidate compiles it for arch in the sandbox,
 * recording rec.compile {ms, cached, arch, sandbox, log}.
 * Both return 0 on success, 1 after setting rec's verdict (invalid_plan;
 * compile_error with failure.reason "include", "compile_timeout",
 * "compile_resources" or "nvrtc"), or -1 with *err and d set when
 * kernelrl itself failed (the file cannot be read, no memory, no compiler
 * process).
 */
int krl_judge_read_candidate(json_t *rec, const char *path,
                             krl_candidate **cand, krl_err *err,
                             krl_diag *d);
/* Resolves the reference (rp) and the candidate's plan (cp) on shape set
 * ss named `name` (NULL ss: the task has no such set, an error): 0 with
 * both set (the caller frees them, also on failure), 1 after an
 * invalid_plan verdict (reason plan), -1 when the reference itself does
 * not resolve or memory ran out. */
int krl_judge_build_set(json_t *rec, const krl_task *t,
                        const krl_candidate *cand, const krl_shapeset *ss,
                        const char *name, const krl_limits *lim,
                        krl_program **rp, krl_program **cp, krl_err *err,
                        krl_diag *d);
int krl_judge_compile_candidate(json_t *rec, const krl_candidate *cand,
                                const char *arch, const char *cache_dir,
                                krl_cubin **cubin, krl_err *err,
                                krl_diag *d);

/* Measures or reads the cached roofline ceilings into j. */
krl_err krl_judge_ceilings(krl_judge *j, krl_diag *d);

#endif
