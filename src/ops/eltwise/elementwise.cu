/*
 * kernelrl: the arithmetic kernels of the op family "eltwise": relu, gelu,
 * square, scale, the same-shape add, sub, mul, div, xlogy and smooth_l1,
 * and div/mul with b broadcast (div_bcast, mul_bcast).
 *
 * Same-shape ops have the structure of PyTorch's
 * vectorized_elementwise_kernel (ATen Loops.cuh / CUDALoops.cuh): 128
 * threads per block, 4 floats per thread moved with one 16-byte load per
 * input and one 16-byte store, one block per 512 elements (no grid-stride
 * loop); the last, partial block and misaligned pointers take the scalar
 * path (PyTorch's unrolled_elementwise_kernel). Broadcasts take that
 * scalar kernel too, with b read at its broadcast offset, which is
 * TensorIterator's legacy unrolled kernel (4 elements a thread, 128
 * threads, offsets by division, 32-bit index arithmetic below 2^32
 * elements). Block offsets are 64-bit so tensors beyond 2^31 elements
 * work.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "ops/eltwise/eltwise.h"

#define EW_THREADS 128
#define EW_VEC 4
#define EW_BLOCK_WORK (EW_THREADS * EW_VEC)

template <krl_ew_op OP>
__device__ __forceinline__ float ew_apply(float a, float b, float alpha)
{
	switch (OP) {
	case KRL_EW_RELU:
		/* max(x, 0) that keeps NaN, like at::clamp_min / relu */
		return a != a ? a : (a > 0.f ? a : 0.f);
	case KRL_EW_GELU:
		return 0.5f * a * (1.f + erff(a * 0.70710678118654752440f));
	case KRL_EW_GELU_TANH: {
		const float k = 0.79788456080286535588f; /* sqrt(2/pi) */
		float inner = k * (a + 0.044715f * a * a * a);
		return 0.5f * a * (1.f + tanhf(inner));
	}
	case KRL_EW_SQUARE:
		return a * a;
	case KRL_EW_SCALE:
		return alpha * a;
	case KRL_EW_ADD:
		return a + b;
	case KRL_EW_SUB:
		return a - b;
	case KRL_EW_MUL:
		return a * b;
	case KRL_EW_DIV:
		return a / b;
	case KRL_EW_XLOGY:
		/* torch.xlogy: NaN b propagates, else 0 where a == 0 */
		if (b != b)
			return b;
		return a == 0.f ? 0.f : a * logf(b);
	case KRL_EW_SMOOTH_L1: {
		/* smooth_l1_loss's elementwise part; alpha is beta */
		float z = fabsf(a - b);
		return z < alpha ? 0.5f * z * z / alpha : z - 0.5f * alpha;
	}
	}
	return 0.f;
}

/* ==== How a kernel reads b ====
 *
 * A reader gives b's element for a's element i; `reads` says whether the
 * op has a b at all. */

/* Unary ops: no b (0 is passed and ignored). */
struct b_none {
	static const bool reads = false;
	__device__ float operator()(const float *, int64_t) const
	{
		return 0.f;
	}
};

/* Same-shape binary ops: b[i]. */
struct b_same {
	static const bool reads = true;
	__device__ float operator()(const float *b, int64_t i) const
	{
		return b[i];
	}
};

/* a's dims after merging and b's strides along them (0 where b
 * broadcasts). */
struct Bcast {
	int nd;
	int64_t dim[KRL_MAX_DIM];
	int64_t bstride[KRL_MAX_DIM];
};

/* b broadcast to a: b at the offset of a's element i, computed by
 * division in index type I (uint32_t when a has fewer than 2^32
 * elements, as PyTorch's IntDivider; else int64_t). */
template <typename I>
struct b_bcast {
	static const bool reads = true;
	Bcast g;
	__device__ float operator()(const float *b, int64_t i64) const
	{
		I i = (I)i64;
		int64_t off = 0;
		for (int k = g.nd - 1; k >= 0; k--) {
			I d = (I)g.dim[k];
			I q = i / d;
			off += (int64_t)(i - q * d) * g.bstride[k];
			i = q;
		}
		return b[off];
	}
};

/* ==== Kernels ==== */

/* Same-shape ops (B is b_none or b_same) on 16-byte aligned pointers. */
template <krl_ew_op OP, typename B>
__global__ void __launch_bounds__(EW_THREADS)
ew_vec_kernel(const float *__restrict__ a, const float *__restrict__ b,
              float *__restrict__ y, int64_t n, float alpha, B rb)
{
	int64_t base = (int64_t)blockIdx.x * EW_BLOCK_WORK;
	int64_t remaining = n - base;
	if (remaining >= EW_BLOCK_WORK) {
		int64_t i = base + (int64_t)threadIdx.x * EW_VEC;
		float4 va = *reinterpret_cast<const float4 *>(a + i);
		float4 vb = make_float4(0.f, 0.f, 0.f, 0.f);
		if (B::reads)
			vb = *reinterpret_cast<const float4 *>(b + i);
		float4 vy;
		vy.x = ew_apply<OP>(va.x, vb.x, alpha);
		vy.y = ew_apply<OP>(va.y, vb.y, alpha);
		vy.z = ew_apply<OP>(va.z, vb.z, alpha);
		vy.w = ew_apply<OP>(va.w, vb.w, alpha);
		*reinterpret_cast<float4 *>(y + i) = vy;
		return;
	}
	/* the tail block: strided scalar elements, as PyTorch's unrolled path */
	for (int k = threadIdx.x; k < remaining; k += EW_THREADS) {
		int64_t i = base + k;
		y[i] = ew_apply<OP>(a[i], rb(b, i), alpha);
	}
}

/* 4 elements a thread, 128 apart: misaligned pointers and broadcasts. */
template <krl_ew_op OP, typename B>
__global__ void __launch_bounds__(EW_THREADS)
ew_scalar_kernel(const float *__restrict__ a, const float *__restrict__ b,
                 float *__restrict__ y, int64_t n, float alpha, B rb)
{
	int64_t base = (int64_t)blockIdx.x * EW_BLOCK_WORK;
	for (int k = 0; k < EW_VEC; k++) {
		int64_t i = base + threadIdx.x + (int64_t)k * EW_THREADS;
		if (i < n)
			y[i] = ew_apply<OP>(a[i], rb(b, i), alpha);
	}
}

static bool aligned16(const void *p)
{
	return ((uintptr_t)p & 15) == 0;
}

/* The one launch of every op of this file: the vectorised kernel when
 * VEC and the pointers are 16-byte aligned, else the scalar one. */
template <krl_ew_op OP, typename B, bool VEC>
static int ew_run(const float *a, const float *b, float *y, int64_t n,
                  float alpha, B rb, cudaStream_t s)
{
	if (n <= 0)
		return 0;
	int64_t blocks = (n + EW_BLOCK_WORK - 1) / EW_BLOCK_WORK;
	if (blocks > 0x7fffffff)
		return (int)cudaErrorInvalidConfiguration;
	if constexpr (VEC) {
		if (aligned16(a) && aligned16(y) && (!B::reads || aligned16(b))) {
			ew_vec_kernel<OP, B><<<(unsigned)blocks, EW_THREADS, 0,
			                       s>>>(a, b, y, n, alpha, rb);
			return (int)cudaGetLastError();
		}
	}
	ew_scalar_kernel<OP, B><<<(unsigned)blocks, EW_THREADS, 0, s>>>(
		a, b, y, n, alpha, rb);
	return (int)cudaGetLastError();
}

/* A same-shape op, unary or binary. */
template <krl_ew_op OP, bool BINARY>
static int ew_launch(const float *a, const float *b, float *y, int64_t n,
                     float alpha, cudaStream_t s)
{
	if constexpr (BINARY)
		return ew_run<OP, b_same, true>(a, b, y, n, alpha, b_same(), s);
	else
		return ew_run<OP, b_none, true>(a, b, y, n, alpha, b_none(), s);
}

extern "C" int krl_k_elementwise(krl_ew_op op, const float *a,
                                 const float *b, float *y, int64_t n,
                                 float alpha, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	switch (op) {
#define EW_CASE(O, BINARY) \
	case O:            \
		return ew_launch<O, BINARY>(a, b, y, n, alpha, s);
	EW_CASE(KRL_EW_RELU, false) EW_CASE(KRL_EW_GELU, false)
	EW_CASE(KRL_EW_GELU_TANH, false) EW_CASE(KRL_EW_SQUARE, false)
	EW_CASE(KRL_EW_SCALE, false) EW_CASE(KRL_EW_ADD, true)
	EW_CASE(KRL_EW_SUB, true) EW_CASE(KRL_EW_MUL, true)
	EW_CASE(KRL_EW_DIV, true) EW_CASE(KRL_EW_XLOGY, true)
	EW_CASE(KRL_EW_SMOOTH_L1, true)
#undef EW_CASE
	}
	return (int)cudaErrorInvalidValue;
}

/* A broadcast op on the scalar kernel with b's reader; I as b_bcast. */
template <krl_ew_op OP, typename I>
static int ew_bcast(const float *a, const float *b, float *y, int64_t n,
                    const Bcast &g, cudaStream_t s)
{
	b_bcast<I> rb;
	rb.g = g;
	return ew_run<OP, b_bcast<I>, false>(a, b, y, n, 0.f, rb, s);
}

extern "C" int krl_k_broadcast(krl_ew_op op, const float *a,
                               const float *b, float *y, int nd,
                               const int64_t *dim, const int64_t *bstride,
                               void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	Bcast g;
	int64_t n = 1;
	g.nd = 0;
	/* drop size-1 dims, merge neighbours b walks contiguously (or not
	 * at all), outermost first, as TensorIterator coalesces */
	for (int i = 0; i < nd; i++) {
		n *= dim[i];
		if (dim[i] == 1)
			continue;
		if (g.nd > 0 &&
		    g.bstride[g.nd - 1] == bstride[i] * dim[i]) {
			g.dim[g.nd - 1] *= dim[i];
			g.bstride[g.nd - 1] = bstride[i];
			continue;
		}
		g.dim[g.nd] = dim[i];
		g.bstride[g.nd] = bstride[i];
		g.nd++;
	}
	bool small = n <= 0xffffffffLL;
	switch (op) {
	case KRL_EW_DIV:
		return small ? ew_bcast<KRL_EW_DIV, uint32_t>(a, b, y, n, g, s)
		             : ew_bcast<KRL_EW_DIV, int64_t>(a, b, y, n, g, s);
	case KRL_EW_MUL:
		return small ? ew_bcast<KRL_EW_MUL, uint32_t>(a, b, y, n, g, s)
		             : ew_bcast<KRL_EW_MUL, int64_t>(a, b, y, n, g, s);
	default:
		return (int)cudaErrorInvalidValue;
	}
}
