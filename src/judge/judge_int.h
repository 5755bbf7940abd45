/* The judge's private state, shared by judge.c, eval.c and roofline.c. */
#ifndef KRL_JUDGE_INT_H
#define KRL_JUDGE_INT_H

#include <limits.h>
#include <sys/types.h>

#include <cuda_runtime_api.h>

#include "krl/gate.h"
#include "krl/judge.h"
#include "krl/ops.h"
#include "krl/runtime.h"
#include "krl/stats.h"

struct krl_judge {
	krl_judge_opts o;
	krl_device dev;
	cudaStream_t stream;
	cudaEvent_t ev0, ev1;
	krl_opctx *ops;
	krl_rng rng;
	void *flush;
	size_t flush_bytes;
	krl_gate *gate;          /* timing gate (KRL_TIME_GATE), NULL: none */
	double bw_gbs;           /* measured device copy bandwidth, GB/s (read+write) */
	double fp32_tflops;      /* measured fp32 GEMM rate (no TF32) */
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
 * from seed; the judge and the runner derive identical per-buffer seeds. */
krl_err krl_judge_draw(const krl_program *p, void *const *ptrs, krl_role role,
                       uint64_t seed, void *stream, krl_diag *d);
/* The same draw on the host, into float64 buffers (bit-exact with the
 * device's values as stored in each buffer's dtype): for the CPU golden
 * reference (krl audit-tasks, tests). */
void krl_judge_draw_host(const krl_program *p, double *const *bufs,
                         krl_role role, uint64_t seed);
/* Fills every buffer of `role` (outputs, scratch) with KRL_POISON_PATTERN. */
krl_err krl_judge_poison(const krl_program *p, void *const *ptrs,
                         krl_role role, void *stream, krl_diag *d);

/* Measures or reads the cached roofline ceilings into j. */
krl_err krl_judge_ceilings(krl_judge *j, krl_diag *d);

#endif
