/*
 * kernelrl: private declarations of the op family "norm" (family.c, run.c,
 * softmax.cu, layernorm.cu, norm.cu, sdpa.cu; docs/ops-norm.md).
 *
 * The launchers (krl_k_softmax, krl_k_layernorm, krl_kn_*) enqueue their
 * kernels on `stream` (a cudaStream_t) and return the cudaError_t of the
 * first failing call as an int, 0 on success; run.c turns it into
 * KRL_ECUDA. Sizes are int64.
 */
#ifndef KRL_OPS_NORM_H
#define KRL_OPS_NORM_H

#include <stdint.h>

#include "krl/opgeom.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest embedding dim of q and v that sdpa accepts (its output rows live
 * in shared memory). */
#define KRL_SDPA_MAX_DIM 2048

#ifndef __CUDACC__
#include "ops/ops_int.h"

/* The number of trailing dims layernorm normalises: attribute `axes`, else
 * the rank of w (in[1]). */
int krl_norm_ln_axes(const krl_attrs *a, const krl_tensor *in);

/* sdpa's `scale` attribute, 1/sqrt(E) when absent. */
double krl_norm_sdpa_scale(const krl_tensor *q, const krl_attrs *a);
/* sdpa's `causal` and `relu` attributes (0 when absent). */
int krl_norm_sdpa_flag(const krl_attrs *a, const char *key);

/* GPU drivers (run.c). */
KRL_RUN(softmax); KRL_RUN(log_softmax); KRL_RUN(layernorm);
KRL_RUN(batchnorm); KRL_RUN(instancenorm); KRL_RUN(groupnorm);
KRL_RUN(vector_norm); KRL_RUN(nll_loss); KRL_RUN(sdpa);

/* Frees the family's state in a krl_opctx (batchnorm.c): batchnorm's
 * counter and running statistics, its cuDNN descriptors. */
void krl_norm_state_free(void *state);
#endif

/* ==== Softmax (softmax.cu) ==== */

int krl_k_softmax(const float *x, float *y, int64_t outer, int64_t r,
                  int64_t inner, int log_, void *stream);

/* ==== LayerNorm (layernorm.cu) ==== */

int krl_k_layernorm(const float *x, const float *w, const float *b,
                    float *y, int64_t rows, int64_t n, float eps,
                    void *stream);

/* ==== Launchers (norm.cu) ==== */

/* Batch statistics of x viewed as [n, c, m] per channel, then
 * y = (x - mean) * rstd * w + b (w, b may be NULL: 1 and 0). scratch
 * (scratch_bytes, device) holds the statistics and the per-block partials:
 * at least KRL_BN_SCRATCH_FLOATS(c) floats; more lets a channel spread
 * over more blocks. sm_count sizes the grid. Instance norm is the n = 1
 * case with c = N * C. */
int krl_kn_batchnorm(const float *x, const float *w, const float *b,
                     float *y, int64_t n, int64_t c, int64_t m, float eps,
                     int sm_count, void *scratch, int64_t scratch_bytes,
                     void *stream);

/* Floats of scratch krl_kn_batchnorm needs for c channels: mean and
 * inverse std (2 c, padded to 256 bytes) and one 16-byte partial per
 * channel. */
#define KRL_BN_SCRATCH_FLOATS(c) (2 * (c) + 64 + 4 * (c))

/* ==== Channels-last batch norm and the batch counter (bn1d.cu) ==== */

/* counter[0] += 1 (int64, device): num_batches_tracked.add_(1). */
int krl_kn_bn_count(int64_t *counter, void *stream);

/* Training-mode batch norm of a channels-last x [rows, c] (PyTorch's
 * BatchNorm1d kernels): y = w * (x - mean) * invstd + b with biased batch
 * statistics (w, b may be NULL: 1 and 0); the running statistics rmean
 * and rvar [c] (device) move by `momentum` towards the batch's mean and
 * unbiased var. scratch (scratch_bytes, device) holds the statistics,
 * semaphores and staged partials: at least KRL_BNCL_SCRATCH_MIN(c)
 * bytes; less than the full row split needs shrinks the split. */
int krl_kn_batchnorm_cl(const float *x, const float *w, const float *b,
                        float *y, int64_t rows, int64_t c, float eps,
                        float momentum, float *rmean, float *rvar,
                        void *scratch, int64_t scratch_bytes, void *stream);

#define KRL_BNCL_SCRATCH_MIN(c) ((2 * (c) * 4 + 255) / 256 * 256)

/* Group norm of x [n, c, m] with g groups; scratch holds 2 * n * g floats
 * when m == 1 (PyTorch's GroupNorm1dForward: row moments, then one
 * elementwise (x - mean) * rstd * w + b), else 2 * n * g + 2 * n * c
 * (row moments, per-(n, c) a and b, y = a * x + b). */
int krl_kn_groupnorm(const float *x, const float *w, const float *b,
                     float *y, int64_t n, int64_t c, int64_t m, int64_t g,
                     float eps, float *scratch, void *stream);

/* y[o] = sqrt(sum_j x[o * r + j]^2) for o < rows. scratch (scratch_bytes)
 * holds the semaphores and partials when a row is split over blocks. */
int krl_kn_vector_norm(const float *x, float *y, int64_t rows, int64_t r,
                       int sm_count, void *scratch, int64_t scratch_bytes,
                       void *stream);

/* loss = -mean of logp[i * c + t[i]] over t[i] != KRL_NLL_IGNORE (NaN when
 * a target is out of range, or when no target counts). */
int krl_kn_nll_loss(const float *logp, const int64_t *t, float *loss,
                    int64_t n, int64_t c, void *stream);

/* o = softmax(q k^T * scale) v for bh independent heads (sdpa.cu); q
 * [bh, l, e], k [bh, s, e], v [bh, s, ev], o [bh, l, ev]. causal: key j
 * hidden from query i where j > i; relu: relu(q k^T * scale) v instead
 * (hidden keys add nothing). */
int krl_kn_sdpa(const float *q, const float *k, const float *v, float *o,
                int64_t bh, int64_t l, int64_t s, int64_t e, int64_t ev,
                float scale, int causal, int relu, void *stream);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* In the family's kernel launchers, which return a cudaError_t as an
 * int: returns the error of a failed runtime call. */
#define TRY(call)                                                          \
	do {                                                               \
		cudaError_t e_ = (call);                                   \
		if (e_ != cudaSuccess)                                     \
			return (int)e_;                                    \
	} while (0)
#endif

#endif
