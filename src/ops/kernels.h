/*
 * kernelrl: launch functions of the op library's own CUDA kernels
 * (elementwise.cu, reduce.cu, softmax.cu, layernorm.cu, scan.cu,
 * depthwise.cu, conv_layout.cu).
 *
 * Each enqueues its kernel(s) on `stream` (a cudaStream_t) and returns the
 * cudaError_t of the launch (cudaGetLastError right after it) as an int, 0
 * on success; the C callers in run.c turn that into KRL_ECUDA with the file
 * and line. Sizes are int64: tensors may exceed 2^31 elements.
 */
#ifndef KRL_OPS_KERNELS_H
#define KRL_OPS_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ==== Elementwise (elementwise.cu) ==== */

typedef enum krl_ew_op {
	KRL_EW_RELU, KRL_EW_GELU, KRL_EW_GELU_TANH, KRL_EW_SQUARE,
	KRL_EW_SCALE, KRL_EW_ADD, KRL_EW_SUB, KRL_EW_MUL, KRL_EW_DIV
} krl_ew_op;

/* y[i] = op(a[i]) or op(a[i], b[i]) (b unused for unary ops); alpha is
 * scale's factor. */
int krl_k_elementwise(krl_ew_op op, const float *a, const float *b,
                      float *y, int64_t n, float alpha, void *stream);

/* ==== Reductions (reduce.cu) ==== */

typedef enum krl_red_op {
	KRL_RED_SUM, KRL_RED_MEAN, KRL_RED_MAX, KRL_RED_MIN, KRL_RED_ARGMAX,
	KRL_RED_ARGMIN
} krl_red_op;

/* Reduces x viewed as [outer, r, inner] over r into y [outer, inner]
 * (float, or int64_t for arg*). scratch (scratch_bytes, zero-initialised
 * once by the context; its semaphores are left zero after every call)
 * holds per-block partials when one output is split over several blocks. */
int krl_k_reduce(krl_red_op op, const float *x, void *y, int64_t outer,
                 int64_t r, int64_t inner, void *scratch,
                 int64_t scratch_bytes, int sm_count, void *stream);

/* Bytes of scratch the semaphores need at the start of it (the rest holds
 * partials). */
#define KRL_REDUCE_SEM_BYTES (1 << 20)

/* ==== Softmax (softmax.cu) ==== */

int krl_k_softmax(const float *x, float *y, int64_t outer, int64_t r,
                  int64_t inner, int log_, void *stream);

/* ==== LayerNorm (layernorm.cu) ==== */

int krl_k_layernorm(const float *x, const float *w, const float *b,
                    float *y, int64_t rows, int64_t n, float eps,
                    void *stream);

/* ==== Cumulative sum (scan.cu) ==== */

/* scratch (scratch_bytes) is CUB's temporary storage when the whole
 * tensor is one scan (outer == inner == 1). */
int krl_k_cumsum(const float *x, float *y, int64_t outer, int64_t r,
                 int64_t inner, void *scratch, int64_t scratch_bytes,
                 void *stream);

/* ==== Depthwise convolution (depthwise.cu) ==== */

/* One depthwise convolution (groups == cin; PyTorch's conv_depthwise2d /
 * conv_depthwise3d): x [n, cin, in...], w [cout, 1, k...] with cout a
 * multiple of cin, y [n, cout, out...], all packed. The spatial arrays hold
 * nsp (2 or 3) entries, (d,) h, w. x and y must have at most 2^31 - 1
 * elements each (the kernels index in 32 bits; callers split the batch). */
typedef struct krl_dwconv {
	int nsp;
	int n, cin, cout;
	int in[3], out[3], k[3], stride[3], pad[3], dil[3];
} krl_dwconv;

/* y = depthwise_conv(x, w), plus b[channel] when b is not NULL. */
int krl_k_conv_depthwise(const krl_dwconv *g, const float *x,
                         const float *w, const float *b, float *y,
                         void *stream);

/* ==== Layout changes of the convolutions (conv_layout.cu) ==== */

/* out[b, q, r] = in[b, r, q] (+ add[q] when add is not NULL) for in
 * [nb, nr, nq] and out [nb, nq, nr], both packed: a batch of matrix
 * transposes (conv_layout.h says which ones the convolutions make). Each
 * matrix must have fewer than 2^31 * 1024 elements (its 32 x 32 tiles are
 * counted in an int). */
int krl_k_transpose(const float *in, float *out, int64_t nb, int64_t nr,
                    int64_t nq, const float *add, void *stream);

#ifdef __cplusplus
}
#endif
#endif
