/*
 * kernelrl: private declarations of the op library (src/ops/).
 *
 * ops.c owns the registry and every op's shape check; golden.c the float64
 * CPU versions; run.c the GPU drivers of our own kernels (kernels.h), gemm.c
 * the cuBLASLt GEMM and opctx.c the per-stream context they share. Nothing
 * here is visible outside src/ops/.
 */
#ifndef KRL_OPS_INT_H
#define KRL_OPS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "krl/ops.h"

/* ==== Shared helpers (ops.c) ==== */

/* Product of t->dim[lo..hi); 1 for an empty range. */
int64_t krl_ops_prod(const krl_tensor *t, int lo, int hi);

/* Writes "[2, 3, 4]" (or "[]") into buf and returns buf. */
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

/* ==== Check helpers (ops.c), for every family's checks ==== */

/* Formats a shape into a local char array. */
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
/* An optional 0/1 attribute. */
krl_err krl_ops_need_flag(const char *op, const krl_attrs *a, const char *key,
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

/* The number of trailing dims layernorm normalises: attribute `axes`, else
 * the rank of w. */
int krl_ops_ln_axes(const krl_attrs *a, const krl_tensor *in);

/* ==== Per-stream context (opctx.c) ==== */

#define KRL_GEMM_CACHE 32

/* One cached cuBLASLt plan: the problem it solves and what runs it. Opaque
 * cuBLASLt handles are stored as void * so that this header stays free of
 * CUDA includes. */
typedef struct krl_gemm_plan {
	int used;
	int ta, tb;
	int64_t m, n, k, batch;
	int b_batched;
	unsigned align[3];        /* of a, b, c: part of the problem */
	int algo_index;           /* the `algo` attribute: which heuristic result */
	void *op_desc;            /* cublasLtMatmulDesc_t */
	void *la, *lb, *lc;       /* cublasLtMatrixLayout_t */
	unsigned char algo[64];   /* cublasLtMatmulAlgo_t (64 bytes) */
	int has_algo;
	uint64_t hits;
} krl_gemm_plan;

struct krl_opctx {
	void *stream;             /* cudaStream_t, borrowed */
	int device;
	int sm_count;
	void *lt;                 /* cublasLtHandle_t */
	void *workspace;          /* device, for cuBLASLt */
	size_t workspace_bytes;
	void *scratch;            /* device, for multi-block reductions */
	size_t scratch_bytes;
	krl_gemm_plan gemm[KRL_GEMM_CACHE];
	uint64_t gemm_clock;
};

/* Records "file:line: expr: error string" in d and returns KRL_ECUDA when
 * e (a cudaError_t) is not cudaSuccess. */
krl_err krl_ops_cuda_fail(int e, const char *expr, const char *file,
                          int line, krl_diag *d);
#define KRL_CUDA_TRY(call, d)                                              \
	do {                                                               \
		int krl_e_ = (int)(call);                                  \
		if (krl_e_ != 0)                                           \
			return krl_ops_cuda_fail(krl_e_, #call, __FILE__,  \
			                         __LINE__, (d));           \
	} while (0)

/* The same for a cublasStatus_t: KRL_ECUBLAS. */
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

/* ==== Golden CPU ops (golden.c) ==== */

#define KRL_GOLDEN(name) \
	krl_err krl_golden_##name(const krl_tensor *in, const krl_tensor *out, \
	                          const krl_attrs *a)
KRL_GOLDEN(gemm); KRL_GOLDEN(relu); KRL_GOLDEN(gelu); KRL_GOLDEN(add);
KRL_GOLDEN(sub); KRL_GOLDEN(mul); KRL_GOLDEN(div); KRL_GOLDEN(square);
KRL_GOLDEN(scale); KRL_GOLDEN(sum); KRL_GOLDEN(mean); KRL_GOLDEN(max);
KRL_GOLDEN(min); KRL_GOLDEN(argmax); KRL_GOLDEN(argmin); KRL_GOLDEN(softmax);
KRL_GOLDEN(log_softmax); KRL_GOLDEN(layernorm); KRL_GOLDEN(cumsum);
KRL_GOLDEN(copy);

/* ==== GPU ops (run.c, gemm.c) ==== */

#define KRL_RUN(name) \
	krl_err krl_run_##name(krl_opctx *c, const krl_tensor *in,             \
	                       const krl_tensor *out, const krl_attrs *a,      \
	                       krl_diag *d)
KRL_RUN(gemm); KRL_RUN(relu); KRL_RUN(gelu); KRL_RUN(add); KRL_RUN(sub);
KRL_RUN(mul); KRL_RUN(div); KRL_RUN(square); KRL_RUN(scale); KRL_RUN(sum);
KRL_RUN(mean); KRL_RUN(max); KRL_RUN(min); KRL_RUN(argmax); KRL_RUN(argmin);
KRL_RUN(softmax); KRL_RUN(log_softmax); KRL_RUN(layernorm); KRL_RUN(cumsum);
KRL_RUN(copy);

/* ==== Op families ====
 *
 * Ops beyond the first set live in family files src/ops/family_<name>.c:
 * each defines one NULL-terminated table krl_ops_<name>[] of its ops (their
 * checks and golden versions beside it) and puts its GPU drivers in other
 * files. Tables name drivers through KRL_RUNFN so that a build without GPU
 * code (the fuzzers: -DKRL_OPS_NO_GPU) can compile the tables alone. */
#ifdef KRL_OPS_NO_GPU
#define KRL_RUNFN(f) NULL
#else
#define KRL_RUNFN(f) f
#endif

extern const krl_op *const krl_ops_matmul[];   /* family_matmul.c */
extern const krl_op *const krl_ops_eltwise[];  /* family_eltwise.c */
extern const krl_op *const krl_ops_norm[];     /* family_norm.c: norms, losses, attention */
extern const krl_op *const krl_ops_reduce[];   /* family_reduce.c: reductions, pooling, scans */
extern const krl_op *const krl_ops_conv[];     /* family_conv.c: cuDNN convolutions */

/* Frees the cached cuBLASLt descriptors (gemm.c). */
void krl_gemm_cache_free(krl_opctx *c);

#endif
