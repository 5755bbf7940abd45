/*
 * kernelrl: private header of the op family "matmul" (docs/ops-matmul.md).
 *
 * family.c (checks, golden versions, the op table) sees the GPU drivers of
 * run.c, gemm.c and linear.c through the KRL_RUN prototypes below; the
 * drivers call the kernel launchers of matmul.cu and cuBLASLt, the last
 * through the one cuBLASLt engine of gemm.c (krl_matmul_lt). Free of CUDA includes so
 * that the CPU-only fuzzer build can include it.
 */
#ifndef KRL_OPS_MATMUL_H
#define KRL_OPS_MATMUL_H

#include <stdint.h>

#include "ops/ops_int.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== Kernels (matmul.cu) ====
 *
 * Each launcher enqueues its kernel(s) on `stream` (a cudaStream_t) and
 * returns the cudaError_t of the last launch (cudaGetLastError right after
 * each launch, the first failure wins) as an int, 0 on success. Sizes are
 * int64; empty tensors launch nothing. */

/* y = diag(v, offset) as torch.diag materialises it: y [sz, sz] with
 * sz = n + |offset|, first filled with zeros over all sz * sz elements,
 * then v copied onto the offset-th diagonal. */
int krl_k_diag(const float *v, float *y, int64_t n, int64_t offset,
               void *stream);

/* y = triu(x, k) (upper != 0) or tril(x, k) over x viewed as
 * [batch, rows, cols], contiguous; y may be x itself (in place).
 * Elements of esize bytes: 4 (f32) or 1 (bool); others are
 * cudaErrorInvalidValue. */
int krl_k_triu_tril(const void *x, void *y, size_t esize, int64_t batch,
                    int64_t rows, int64_t cols, int64_t k, int upper,
                    void *stream);

/* y[i, j] = b[j] over y [rows, cols] (contiguous): the copy of a bias
 * expanded to [rows, cols] that PyTorch's addmm runs before a GEMM with
 * beta = 1 when it does not take cuBLASLt's bias epilogue. The structure
 * of launch_legacy_kernel<128, 2> with an offset calculator (a stride-0
 * input): 128 threads, 2 elements per thread 128 apart, scalar loads and
 * stores. */
int krl_k_bias_rows(const float *b, float *y, int64_t rows, int64_t cols,
                    void *stream);

/* ==== The cuBLASLt engine (gemm.c) ====
 *
 * One row-major product c = alpha * op(a) @ op(b) (+ bias) (+ beta * c) as
 * one cublasLtMatmul, CUBLAS_COMPUTE_32F (true fp32), the heuristic's
 * algo-th algorithm, through the context's handle and workspace, its
 * descriptors and algorithm cached in the matmul family's slot of the
 * context (per problem, alignments included). a is [batch, m, k] ([batch,
 * k, m] with ta), b [batch or none, k, n] ([.., n, k] with tb), c [batch,
 * m, n]; all contiguous f32. */
typedef struct krl_lt_gemm {
	const char *op;           /* the calling op, for messages */
	int ta, tb;
	int64_t m, n, k, batch;   /* all >= 1; batch <= 2^31 - 1 */
	int b_batched;            /* 0: one b for every batch */
	int algo;                 /* 0 .. KRL_OPS_MAX_ALGO */
	const void *a, *b;
	const void *bias;         /* [n], by CUBLASLT_EPILOGUE_BIAS; NULL: none */
	void *c;
	float alpha, beta;        /* beta 1: accumulate into c */
	size_t ws_cap;            /* the most workspace the heuristic may
	                             choose an algorithm for; 0: the context's
	                             whole workspace */
} krl_lt_gemm;

/* PyTorch's cuBLASLt workspace, which addmm's bias-epilogue path
 * (gemm_and_bias) offers the heuristic: CUBLASLT_WORKSPACE_SIZE's default,
 * 1024 KiB, capped by the cuBLAS workspace it is unified with (32 MiB on
 * Hopper), so 1 MiB. With our 32 MiB the heuristic's first choice differs
 * for skinny problems: a [8, 1280] x [1280, 256] linear took ~68 us on the
 * H200 where PyTorch's whole RNN step (level 3's 34) takes ~15 us. */
#define KRL_LINEAR_LT_WORKSPACE ((size_t)1 << 20)

/* Runs g on c's stream. KRL_ECUBLAS when cuBLASLt fails or offers no
 * algorithm, KRL_ENOMEM. g->algo = K takes the heuristic's K-th result,
 * or its last where it offers fewer (a plan tuned at one shape runs at any
 * other). Messages start with g->op. */
krl_err krl_matmul_lt(krl_opctx *c, const krl_lt_gemm *g, krl_diag *d);

/* ==== GPU drivers (gemm.c, linear.c, run.c) ==== */

KRL_RUN(gemm); KRL_RUN(linear); KRL_RUN(diag); KRL_RUN(triu); KRL_RUN(tril);

/* Frees the family's state in a krl_opctx: the cuBLASLt plan cache
 * (gemm.c) that gemm and linear share. */
void krl_matmul_state_free(void *state);

#ifdef __cplusplus
}
#endif
#endif
