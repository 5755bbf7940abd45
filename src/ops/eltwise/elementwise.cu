/*
 * kernelrl: the arithmetic kernels of the op family "eltwise": relu, gelu,
 * square, scale, the same-shape add, sub, mul, div, xlogy and smooth_l1,
 * and the broadcast ops: div/mul with b broadcast (div_bcast, mul_bcast)
 * and add, sub, minimum with both operands broadcast (add_bcast,
 * sub_bcast, minimum_bcast).
 *
 * Each op is a case of ew_apply, launched by the family's one launch
 * structure (ewlaunch.cuh, shared with eltwise.cu): same-shape ops that of
 * PyTorch's vectorized_elementwise_kernel (ATen Loops.cuh /
 * CUDALoops.cuh), 128 threads per block, one float4 per input and per
 * output a thread, one block per 512 elements, the last block and
 * misaligned pointers on the scalar path (unrolled_elementwise_kernel).
 * Broadcasts (where an operand really broadcasts; equal shapes take the
 * same-shape path, as TensorIterator finds them contiguous) take the
 * scalar kernel with a and b read at their broadcast
 * offsets, which is TensorIterator's legacy unrolled kernel with its
 * OffsetCalculator (4 elements a thread, 128 threads, every operand's
 * offset from one pass of divisions, 32-bit index arithmetic below 2^32
 * elements).
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "ops/eltwise/eltwise.h"
#include "ops/eltwise/ewlaunch.cuh"

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
	case KRL_EW_MIN:
		/* torch.minimum: a NaN operand is the result */
		if (a != a)
			return a;
		if (b != b)
			return b;
		return fminf(a, b);
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

/* ew_apply<OP> as an op of ew_run. */
template <krl_ew_op OP>
struct ew_op {
	float alpha;
	__device__ float operator()(float a, float b) const
	{
		return ew_apply<OP>(a, b, alpha);
	}
};

/* A same-shape op, unary or binary. */
template <krl_ew_op OP, bool BINARY>
static int ew_launch(const float *a, const float *b, float *y, int64_t n,
                     float alpha, cudaStream_t s)
{
	if constexpr (BINARY)
		return ew_run(rd_same{a, b}, y, n, ew_op<OP>{alpha}, s);
	else
		return ew_run(rd_unary{a}, y, n, ew_op<OP>{alpha}, s);
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
	EW_CASE(KRL_EW_SMOOTH_L1, true) EW_CASE(KRL_EW_MIN, true)
#undef EW_CASE
	}
	return (int)cudaErrorInvalidValue;
}

/* A broadcast op: the scalar kernel with both operands at their
 * broadcast offsets (I and AC as rd_bcast's). */
template <krl_ew_op OP, typename I, bool AC>
static int ew_bcast(const float *a, const float *b, float *y, int64_t n,
                    const Bcast &g, cudaStream_t s)
{
	rd_bcast<I, AC> rd;
	rd.a = a;
	rd.b = b;
	rd.g = g;
	return ew_run(rd, y, n, ew_op<OP>{0.f}, s);
}

template <krl_ew_op OP>
static int ew_bcast_n(const float *a, const float *b, float *y, int64_t n,
                      const Bcast &g, cudaStream_t s)
{
	/* a contiguous like the output: its strides are the dims' products */
	bool ac = bcast_a_contiguous(g);
	if (n <= 0xffffffffLL)
		return ac ? ew_bcast<OP, uint32_t, true>(a, b, y, n, g, s)
		          : ew_bcast<OP, uint32_t, false>(a, b, y, n, g, s);
	return ac ? ew_bcast<OP, int64_t, true>(a, b, y, n, g, s)
	          : ew_bcast<OP, int64_t, false>(a, b, y, n, g, s);
}

extern "C" int krl_k_broadcast(krl_ew_op op, const float *a,
                               const float *b, float *y, int nd,
                               const int64_t *dim, const int64_t *astride,
                               const int64_t *bstride, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	Bcast g;
	int64_t n = bcast_merge(g, nd, dim, astride, bstride);
	/* nothing broadcasts after all (equal shapes, or one element):
	 * TensorIterator sees contiguous operands and runs the vectorised
	 * kernel */
	if (g.nd == 0 || (g.nd == 1 && g.astride[0] == 1 && g.bstride[0] == 1)) {
		switch (op) {
		case KRL_EW_DIV: case KRL_EW_MUL: case KRL_EW_ADD:
		case KRL_EW_SUB: case KRL_EW_MIN:
			return krl_k_elementwise(op, a, b, y, n, 0.f, stream);
		default:
			return (int)cudaErrorInvalidValue;
		}
	}
	if (n <= 0xffffffffLL)
		bcast_dividers(g); /* the 32-bit kernels divide by multiplying */
	switch (op) {
	case KRL_EW_DIV:
		return ew_bcast_n<KRL_EW_DIV>(a, b, y, n, g, s);
	case KRL_EW_MUL:
		return ew_bcast_n<KRL_EW_MUL>(a, b, y, n, g, s);
	case KRL_EW_ADD:
		return ew_bcast_n<KRL_EW_ADD>(a, b, y, n, g, s);
	case KRL_EW_SUB:
		return ew_bcast_n<KRL_EW_SUB>(a, b, y, n, g, s);
	case KRL_EW_MIN:
		return ew_bcast_n<KRL_EW_MIN>(a, b, y, n, g, s);
	default:
		return (int)cudaErrorInvalidValue;
	}
}
