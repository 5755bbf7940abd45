/*
 * kernelrl: private declarations of the op library (src/ops/), shared by
 * every op family (docs/ops.md).
 *
 * registry.c gathers the families' descriptors; check.c holds the helpers
 * their shape checks share; opctx.c the per-stream context their GPU
 * drivers run in, with one state slot per family. Each family's own ops
 * (table, checks, float64 golden versions, GPU drivers, kernels) live in
 * src/ops/<family>/ with a private header there. Nothing here is visible
 * outside src/ops/, and nothing here is CUDA: the fuzzers compile the
 * families' tables without GPU code.
 */
#ifndef KRL_OPS_INT_H
#define KRL_OPS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "krl/ops.h"

/* ==== Sizes, shapes and attributes (check.c) ==== */

/* Product of t->dim[lo..hi); 1 for an empty range. */
int64_t krl_ops_prod(const krl_tensor *t, int lo, int hi);

/* Room for any shape as krl_ops_shape writes it: KRL_MAX_DIM int64 dims,
 * each at most 20 characters and a separator, and the brackets. */
#define KRL_SHAPE_CAP (KRL_MAX_DIM * 22 + 3)

/* Writes "[2, 3, 4]" (or "[]") into buf and returns buf. A shape that does
 * not fit cap ends in "...]" rather than being cut silently; a buffer of
 * KRL_SHAPE_CAP bytes always fits. */
const char *krl_ops_shape(const krl_tensor *t, char *buf, size_t cap);

/* A tensor seen as [outer, r, inner] around dimension `dim`. */
typedef struct krl_rlayout {
	int64_t outer, r, inner;
} krl_rlayout;

krl_rlayout krl_ops_layout(const krl_tensor *t, int dim);

/* The normalised (non-negative) `dim` attribute for a tensor of rank ndim,
 * or -1 when it is absent, not an integer or out of range (check() has
 * already rejected those for ops that run). */
int krl_ops_dim(const krl_attrs *a, int ndim);

/* 1 when attribute key is present. */
int krl_ops_attr_has(const krl_attrs *a, const char *key);

/* ==== Check helpers (check.c), for every family's checks ==== */

/* Formats a shape into a local char array (of KRL_SHAPE_CAP bytes). */
#define KRL_SHAPE(t, buf) krl_ops_shape((t), (buf), sizeof(buf))

/* printf into msg (when not NULL); returns KRL_EINVAL. */
krl_err krl_ops_fail(char *msg, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* 1 when x and y have the same rank and dims. */
int krl_ops_same_shape(const krl_tensor *x, const krl_tensor *y);
/* Rejects attributes not in names (NULL-terminated), saying which exist. */
krl_err krl_ops_check_keys(const char *op, const char *const *names,
                           const krl_attrs *a, char *msg, size_t cap);
/* t's dtype must be want ("op: what must be f32, not i64"). */
krl_err krl_ops_need_dtype(const char *op, const char *what,
                           const krl_tensor *t, krl_dtype want, char *msg,
                           size_t cap);
/* Each named tensor must be f32: pairs (const char *what, const
 * krl_tensor *t) ended by NULL; the first that is not fails as
 * krl_ops_need_dtype says. */
krl_err krl_ops_need_f32(const char *op, char *msg, size_t cap, ...);
/* An optional 0/1 attribute. */
krl_err krl_ops_need_flag(const char *op, const krl_attrs *a, const char *key,
                          char *msg, size_t cap);
/* An optional word-valued attribute (krl_attr_words(key)): its value,
 * the word's index, must be one of the list's (default 0); the message
 * lists them ("allowed: 0 = nchw, 1 = nhwc, ..."). */
krl_err krl_ops_need_word(const char *op, const krl_attrs *a, const char *key,
                          char *msg, size_t cap);
/* An optional attribute that must be finite (default 0). */
krl_err krl_ops_need_finite(const char *op, const krl_attrs *a,
                            const char *key, char *msg, size_t cap);
/* The optional `algo` attribute of the library-backed ops (gemm, conv):
 * which of the library's usable configurations, in its heuristic's order,
 * to run; 0 (the default) is the first, the eager reference's choice. An
 * integer from 0 to KRL_OPS_MAX_ALGO. */
#define KRL_OPS_MAX_ALGO 7
krl_err krl_ops_need_algo(const char *op, const krl_attrs *a, char *msg,
                          size_t cap);
/* The required `dim` attribute: an integer in [-ndim, ndim) of x. */
krl_err krl_ops_need_dim(const char *op, const krl_tensor *x,
                         const krl_attrs *a, char *msg, size_t cap);
/* x -> y, both f32 and of one shape, attribute keys from `keys`. */
krl_err krl_ops_check_unary(const char *op, const char *const *keys,
                            const krl_tensor *in, const krl_tensor *out,
                            const krl_attrs *a, char *msg, size_t cap);
/* a, b -> y, all f32 and of one shape (no broadcasting). */
krl_err krl_ops_check_binary(const char *op, const char *const *keys,
                             const krl_tensor *in, const krl_tensor *out,
                             const krl_attrs *a, char *msg, size_t cap);

/* ==== Op tables ====
 *
 * Each family's family.c defines its ops with KRL_OP beside their checks
 * (static check_NAME) and golden versions (static golden_NAME), lists them
 * in one NULL-terminated table and exports the table in its descriptor
 * krl_family_NAME. The GPU drivers (krl_run_NAME, declared with KRL_RUN in
 * the family's header) live in the family's run.c; tables name them
 * through KRL_RUNFN so that a build without GPU code (the fuzzers:
 * -DKRL_OPS_NO_GPU) compiles the tables alone. */
#ifdef KRL_OPS_NO_GPU
#define KRL_RUNFN(f) NULL
#else
#define KRL_RUNFN(f) f
#endif

/* static const krl_op op_NAME: NAME takes nin inputs and nout outputs,
 * the attribute keys `keys`, belongs to family `fam` (a string) with
 * capabilities `caps` (KRL_OPCAP_*); no_stress is krl_op's (NULL for most
 * ops); doc its one-line semantics. */
#define KRL_OP(nm, nin, nout, keys, fam, caps, no_stress, doc)             \
	KRL_OP_SEQ(nm, nin, nout, keys, fam, caps, no_stress, NULL, doc)
/* An op whose GPU run sums long runs in order: seq is its krl_op.seq_len. */
#define KRL_OP_SEQ(nm, nin, nout, keys, fam, caps, no_stress, seq, doc)    \
	KRL_OP_LIB(nm, nin, nout, keys, fam, caps, no_stress, seq, NULL, doc)
/* ... and tf32 its krl_op.tf32 (a library call that may take TF32). */
#define KRL_OP_LIB(nm, nin, nout, keys, fam, caps, no_stress, seq, tf32, \
                   doc)                                                 \
	static const krl_op op_##nm = { #nm, nin, nout, keys, doc,         \
	                                check_##nm,                        \
	                                KRL_RUNFN(krl_run_##nm),           \
	                                golden_##nm, no_stress, fam, caps, \
	                                seq, tf32 }

/* The GPU driver of op NAME. */
#define KRL_RUN(name) \
	krl_err krl_run_##name(krl_opctx *c, const krl_tensor *in,             \
	                       const krl_tensor *out, const krl_attrs *a,      \
	                       krl_diag *d)

/* The families (registry.c lists them): matmul/ (gemm, linear, diag,
 * triu, tril), eltwise/ (activations, arithmetic, copy), reduce/ (reductions,
 * scans, pooling), norm/ (softmax, norms, losses, attention), conv/ (cuDNN
 * convolutions), shape/ (pad, roll, index_select, permute), rnn/ (cuDNN
 * LSTM and GRU). */
extern const krl_op_family krl_family_matmul;
extern const krl_op_family krl_family_eltwise;
extern const krl_op_family krl_family_reduce;
extern const krl_op_family krl_family_norm;
extern const krl_op_family krl_family_conv;
extern const krl_op_family krl_family_shape;
extern const krl_op_family krl_family_rnn;

/* The one cuDNN handle of opctx c, bound to c's stream: the conv family's
 * (conv/run.c; made on first use, freed with the conv family's state),
 * shared with every family that calls cuDNN (the norm family's
 * batchnorm), so that a context holds one handle. *h is a cudnnHandle_t;
 * NULL on error. */
krl_err krl_ops_cudnn_handle(krl_opctx *c, void **h, krl_diag *d);

/* f's index in the registry (its state slot in a krl_opctx), or -1. */
int krl_ops_family_slot(const krl_op_family *f);

/* ==== Per-stream context (opctx.c) ==== */

/* Most families the registry may list (slots in a krl_opctx). */
#define KRL_OPS_MAX_FAMILIES 16

struct krl_opctx {
	void *stream;             /* cudaStream_t, borrowed */
	int device;
	int sm_count;
	void *lt;                 /* cublasLtHandle_t */
	void *workspace;          /* device, for cuBLASLt */
	size_t workspace_bytes;
	void *scratch;            /* device, for multi-block reductions */
	size_t scratch_bytes;
	void *temp;               /* device, grown on demand: krl_opctx_temp */
	size_t temp_bytes;
	int no_tf32;              /* krl_opctx_set_tf32(c, 0): strict fp32 */
	/* One slot per family (krl_ops_family_slot), NULL until the
	 * family's drivers make their state (the matmul family's GEMM plan
	 * cache, the conv family's cuDNN handle and plans); krl_opctx_free
	 * frees each with its family's state_free. */
	void *family_state[KRL_OPS_MAX_FAMILIES];
};

/* The state slot of family f in c (never NULL for a registered family). */
void **krl_opctx_slot(krl_opctx *c, const krl_op_family *f);

/*
 * Makes device buffer *buf (of *have bytes) at least `bytes` long; what
 * names it in messages ("conv: the cuDNN workspace"). Growing frees the
 * old buffer (cudaFree waits for the device, so work queued on it is done)
 * and allocates anew, which a graph capture cannot do: then KRL_ECUDA
 * saying to run the plan once before capturing it. KRL_ENOMEM when the
 * device has no room (the buffer is then empty, *have 0, and the next call
 * that needs it grows it again); KRL_ECUDA on other CUDA errors.
 */
krl_err krl_opctx_grow(krl_opctx *c, void **buf, size_t *have, size_t bytes,
                       const char *what, krl_diag *d);

/* c's temporary buffer, at least `bytes` long (krl_opctx_grow), for an
 * op whose temporaries can outgrow the fixed scratch (logsumexp's x - max,
 * groupnorm's per-row statistics). Ops on one stream run one at a time,
 * so one buffer serves them all; its contents do not survive the call. */
krl_err krl_opctx_temp(krl_opctx *c, size_t bytes, void **out,
                       const char *what, krl_diag *d);

/* CUDA runtime errors: CUDA_TRY (runtime/cudacheck.h, krl_cuda_fail), in
 * the GPU drivers only; the kernel launchers return a cudaError_t as an
 * int, which CUDA_TRY takes as it is. cuBLASLt's statuses: */

/* Records "file:line: expr: cuBLAS's error string" in d and returns
 * KRL_ECUBLAS when st (a cublasStatus_t) is not CUBLAS_STATUS_SUCCESS. */
krl_err krl_ops_cublas_fail(int st, const char *expr, const char *file,
                            int line, krl_diag *d);
#define KRL_CUBLAS_TRY(call, d)                                            \
	do {                                                               \
		int krl_s_ = (int)(call);                                  \
		if (krl_s_ != 0)                                           \
			return krl_ops_cublas_fail(krl_s_, #call, __FILE__,\
			                           __LINE__, (d));         \
	} while (0)

/* Bytes of the context's scratch (reduction partials, CUB temporaries) and
 * of the cuBLASLt workspace (PyTorch's default on Hopper). */
#define KRL_OPS_SCRATCH_BYTES ((size_t)32 << 20)
#define KRL_OPS_WORKSPACE_BYTES ((size_t)32 << 20)

/* The scratch starts with the semaphores of the multi-block reductions
 * (reduce/reduce.cu, reduce2.cu), zeroed once by the context and left zero
 * by every call; what follows is free for any op's temporaries (partials,
 * CUB, the norms' statistics). */
#define KRL_REDUCE_SEM_BYTES (1 << 20)

#endif
