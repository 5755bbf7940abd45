/*
 * kernelrl: private header of the op family "matmul" (docs/ops-matmul.md).
 *
 * family.c (checks, golden versions, the op table) sees the GPU drivers of
 * run.c and gemm.c through the KRL_RUN prototypes below; the drivers call
 * the kernel launchers of matmul.cu and cuBLASLt. Free of CUDA includes so
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
 * [batch, rows, cols], contiguous; y may be x itself (in place). */
int krl_k_triu_tril(const float *x, float *y, int64_t batch, int64_t rows,
                    int64_t cols, int64_t k, int upper, void *stream);

/* ==== GPU drivers (gemm.c, run.c) ==== */

KRL_RUN(gemm); KRL_RUN(diag); KRL_RUN(triu); KRL_RUN(tril);

/* Frees the family's state in a krl_opctx: the GEMM plan cache (gemm.c). */
void krl_matmul_state_free(void *state);

#ifdef __cplusplus
}
#endif
#endif
