/*
 * kernelrl: the one launch structure of the op family "eltwise", shared by
 * elementwise.cu and eltwise.cu (CUDA only; include it from .cu files).
 *
 * An op is a functor f(a, b) -> y over floats (a unary op ignores b) and
 * a reader says where a and b of element i come from: a alone, a and b at
 * the same index, a float and a bool mask at the same index, or both at
 * their broadcast offsets. ew_run launches it with the structure of
 * PyTorch's vectorized_elementwise_kernel (ATen Loops.cuh /
 * CUDALoops.cuh): 128 threads per block, 4 elements per thread moved with
 * one vector load per input and one vector store, one block per 512
 * elements (no grid-stride loop); the last, partial block runs a strided
 * scalar loop, and misaligned pointers and broadcasts take the scalar
 * kernel (PyTorch's unrolled_elementwise_kernel and the legacy kernel of
 * TensorIterator's OffsetCalculator path: 4 elements a thread, 128
 * apart). The output is float, or a byte (bool) for comparisons. Block
 * offsets are 64-bit.
 */
#ifndef KRL_OPS_ELTWISE_EWLAUNCH_CUH
#define KRL_OPS_ELTWISE_EWLAUNCH_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

#include "ops/eltwise/eltwise.h"
#include "ops/intdiv.cuh"

#define EW_THREADS 128
#define EW_VEC 4
#define EW_BLOCK_WORK (EW_THREADS * EW_VEC)

static inline bool aligned_to(const void *p, uintptr_t bytes)
{
	return ((uintptr_t)p & (bytes - 1)) == 0;
}

/* ==== Readers: the operands of element i ====
 *
 * Loads go through the read-only data cache (__ldg), as the kernels' const
 * __restrict__ operands did before the readers held the pointers; an op
 * may still run in place (y == a): each element is read, then written, by
 * one thread.
 *
 * load(i, x, y) sets the operands of element i. A reader with `vec` also
 * has load4(i, x, y), those of elements i .. i + 3 (i a multiple of 4)
 * with vector loads, and aligned(), whether its pointers allow them. */

/* Unary ops: a[i] (y is 0 and ignored). */
struct rd_unary {
	static constexpr bool vec = true;
	const float *a;
	__device__ void load(int64_t i, float &x, float &y) const
	{
		x = __ldg(a + i);
		y = 0.f;
	}
	__device__ void load4(int64_t i, float4 &x, float4 &y) const
	{
		x = __ldg(reinterpret_cast<const float4 *>(a + i));
		y = make_float4(0.f, 0.f, 0.f, 0.f);
	}
	bool aligned() const { return aligned_to(a, 16); }
};

/* Same-shape binary ops: a[i], b[i]. */
struct rd_same {
	static constexpr bool vec = true;
	const float *a, *b;
	__device__ void load(int64_t i, float &x, float &y) const
	{
		x = __ldg(a + i);
		y = __ldg(b + i);
	}
	__device__ void load4(int64_t i, float4 &x, float4 &y) const
	{
		x = __ldg(reinterpret_cast<const float4 *>(a + i));
		y = __ldg(reinterpret_cast<const float4 *>(b + i));
	}
	bool aligned() const { return aligned_to(a, 16) && aligned_to(b, 16); }
};

/* A float and a bool mask of one shape: a[i], and m[i] as 0 or 1 (4
 * mask bytes a vector load). */
struct rd_mask {
	static constexpr bool vec = true;
	const float *a;
	const unsigned char *m;
	__device__ void load(int64_t i, float &x, float &y) const
	{
		x = __ldg(a + i);
		y = __ldg(m + i) ? 1.f : 0.f;
	}
	__device__ void load4(int64_t i, float4 &x, float4 &y) const
	{
		x = __ldg(reinterpret_cast<const float4 *>(a + i));
		uchar4 v = __ldg(reinterpret_cast<const uchar4 *>(m + i));
		y = make_float4(v.x ? 1.f : 0.f, v.y ? 1.f : 0.f,
		                v.z ? 1.f : 0.f, v.w ? 1.f : 0.f);
	}
	bool aligned() const { return aligned_to(a, 16) && aligned_to(m, 4); }
};

/* The output's dims after merging and each operand's element strides
 * along them (0 where it broadcasts); for 32-bit indices, each dim's
 * divider (bcast_dividers). */
struct Bcast {
	int nd;
	int64_t dim[KRL_MAX_DIM];
	int64_t astride[KRL_MAX_DIM];
	int64_t bstride[KRL_MAX_DIM];
	Div32 div[KRL_MAX_DIM];
};

/* The 32-bit kernels' dividers, one per dim (intdiv.cuh). */
static inline void bcast_dividers(Bcast &g)
{
	for (int k = 0; k < g.nd; k++)
		g.div[k] = div32(g.dim[k]);
}

/* Drops size-1 dims of the output's dims dim[0 .. nd) and merges
 * neighbours both operands walk contiguously (or not at all), outermost
 * first, as TensorIterator coalesces; astride/bstride are the operands'
 * element strides along dim. Returns the output's element count. */
static inline int64_t bcast_merge(Bcast &g, int nd, const int64_t *dim,
                                  const int64_t *astride,
                                  const int64_t *bstride)
{
	int64_t n = 1;
	g.nd = 0;
	for (int i = 0; i < nd; i++) {
		n *= dim[i];
		if (dim[i] == 1)
			continue;
		if (g.nd > 0 &&
		    g.astride[g.nd - 1] == astride[i] * dim[i] &&
		    g.bstride[g.nd - 1] == bstride[i] * dim[i]) {
			g.dim[g.nd - 1] *= dim[i];
			g.astride[g.nd - 1] = astride[i];
			g.bstride[g.nd - 1] = bstride[i];
			continue;
		}
		g.dim[g.nd] = dim[i];
		g.astride[g.nd] = astride[i];
		g.bstride[g.nd] = bstride[i];
		g.nd++;
	}
	return n;
}

/* Whether a's merged strides are those of the contiguous output. */
static inline bool bcast_a_contiguous(const Bcast &g)
{
	int64_t st = 1;
	for (int k = g.nd - 1; k >= 0; k--) {
		if (g.astride[k] != st)
			return false;
		st *= g.dim[k];
	}
	return true;
}

/* An operand element as the op's float: floats as they are, bool bytes
 * as 0 or 1. */
__device__ __forceinline__ float ew_ld(const float *p) { return __ldg(p); }
__device__ __forceinline__ float ew_ld(const unsigned char *p)
{
	return __ldg(p) ? 1.f : 0.f;
}

/* Both operands at their broadcast offsets of output element i, computed
 * by one pass of divisions in index type I (uint32_t when the output has
 * fewer than 2^32 elements, as PyTorch's IntDivider; else int64_t), as
 * TensorIterator's OffsetCalculator does. Scalar kernel only. AC: a is
 * laid out like the output (a one-way broadcast of b to a), so a's
 * element is a[i] and its load is issued before the divisions (on the
 * H200 computing a's offset by division too made mul_bcast/div_bcast
 * 18-40% slower at level 1's kb1 sizes). TB: b's element type (float, a
 * bool byte read as 0 or 1: masked_fill's broadcast mask), or void when
 * the op has no b (a strided read of a alone: eq_scalar on a slice; y is
 * then 0). */
template <typename I, bool AC, typename TB = float>
struct rd_bcast {
	static constexpr bool vec = false;
	static constexpr bool has_b = !std::is_void<TB>::value;
	const float *a;
	const TB *b;
	Bcast g;
	__device__ void load(int64_t i64, float &x, float &y) const
	{
		if constexpr (AC)
			x = __ldg(a + i64);
		I i = (I)i64;
		int64_t oa = 0, ob = 0;
		for (int k = g.nd - 1; k >= 0; k--) {
			I d = (I)g.dim[k];
			I q;
			if constexpr (sizeof(I) == 4)
				q = g.div[k].div(i);
			else
				q = i / d;
			int64_t r = (int64_t)(i - q * d);
			if constexpr (!AC)
				oa += r * g.astride[k];
			if constexpr (has_b)
				ob += r * g.bstride[k];
			i = q;
		}
		if constexpr (!AC)
			x = __ldg(a + oa);
		if constexpr (has_b)
			y = ew_ld(b + ob);
		else
			y = 0.f;
	}
};

/* ==== Writers: float or bool outputs ==== */

__device__ __forceinline__ void ew_store(float *y, int64_t i, float v)
{
	y[i] = v;
}
__device__ __forceinline__ void ew_store(unsigned char *y, int64_t i, float v)
{
	y[i] = v != 0.f;
}
__device__ __forceinline__ void ew_store4(float *y, int64_t i, float4 v)
{
	*reinterpret_cast<float4 *>(y + i) = v;
}
__device__ __forceinline__ void ew_store4(unsigned char *y, int64_t i,
                                          float4 v)
{
	*reinterpret_cast<uchar4 *>(y + i) =
		make_uchar4(v.x != 0.f, v.y != 0.f, v.z != 0.f, v.w != 0.f);
}

/* ==== Kernels ==== */

/* A unary op f(x) as an op of ew_run (b ignored). */
template <typename F>
struct ew_unary {
	F f;
	__device__ float operator()(float a, float) const { return f(a); }
};

/* Readers with aligned vector loads, output y of O (float or bool). */
template <typename F, typename R, typename O>
__global__ void __launch_bounds__(EW_THREADS)
ew_vec_kernel(R rd, O *__restrict__ y, int64_t n, F f)
{
	int64_t base = (int64_t)blockIdx.x * EW_BLOCK_WORK;
	int64_t remaining = n - base;
	if (remaining >= EW_BLOCK_WORK) {
		int64_t i = base + (int64_t)threadIdx.x * EW_VEC;
		float4 va, vb, vy;
		rd.load4(i, va, vb);
		vy.x = f(va.x, vb.x);
		vy.y = f(va.y, vb.y);
		vy.z = f(va.z, vb.z);
		vy.w = f(va.w, vb.w);
		ew_store4(y, i, vy);
		return;
	}
	/* the tail block: strided scalar elements, as PyTorch's unrolled path */
	for (int k = threadIdx.x; k < remaining; k += EW_THREADS) {
		float va, vb;
		rd.load(base + k, va, vb);
		ew_store(y, base + k, f(va, vb));
	}
}

/* 4 elements a thread, 128 apart: misaligned pointers and broadcasts. */
template <typename F, typename R, typename O>
__global__ void __launch_bounds__(EW_THREADS)
ew_scalar_kernel(R rd, O *__restrict__ y, int64_t n, F f)
{
	int64_t base = (int64_t)blockIdx.x * EW_BLOCK_WORK;
	for (int k = 0; k < EW_VEC; k++) {
		int64_t i = base + threadIdx.x + (int64_t)k * EW_THREADS;
		if (i < n) {
			float va, vb;
			rd.load(i, va, vb);
			ew_store(y, i, f(va, vb));
		}
	}
}

/* The one launch of every op of the family: op f over n output elements
 * y (float or bool), operands from reader rd, with the vectorised kernel
 * when rd and y are aligned for it (never for broadcasts), else the
 * scalar one. Returns the cudaError_t of the launch as an int; n <= 0
 * launches nothing. */
template <typename F, typename R, typename O>
static int ew_run(R rd, O *y, int64_t n, F f, cudaStream_t s)
{
	if (n <= 0)
		return 0;
	int64_t blocks = (n + EW_BLOCK_WORK - 1) / EW_BLOCK_WORK;
	if (blocks > 0x7fffffff)
		return (int)cudaErrorInvalidConfiguration;
	if constexpr (R::vec) {
		if (rd.aligned() && aligned_to(y, EW_VEC * sizeof(O))) {
			ew_vec_kernel<F, R, O><<<(unsigned)blocks, EW_THREADS,
			                         0, s>>>(rd, y, n, f);
			return (int)cudaGetLastError();
		}
	}
	ew_scalar_kernel<F, R, O><<<(unsigned)blocks, EW_THREADS, 0, s>>>(
		rd, y, n, f);
	return (int)cudaGetLastError();
}

#endif
