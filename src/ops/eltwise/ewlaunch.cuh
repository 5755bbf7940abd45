/*
 * kernelrl: the one launch structure of the op family "eltwise", shared by
 * elementwise.cu and eltwise.cu (CUDA only; include it from .cu files).
 *
 * An op is a functor f(a, b) -> y over floats (a unary op ignores b) and
 * a reader says where b comes from: none, the same index, or a broadcast
 * offset. ew_run launches it with the structure of PyTorch's
 * vectorized_elementwise_kernel (ATen Loops.cuh / CUDALoops.cuh): 128
 * threads per block, 4 floats per thread moved with one 16-byte load per
 * input and one 16-byte store, one block per 512 elements (no grid-stride
 * loop); the last, partial block runs a strided scalar loop, and
 * misaligned pointers and broadcasts take the scalar kernel (PyTorch's
 * unrolled_elementwise_kernel: 4 elements a thread, 128 apart). Block
 * offsets are 64-bit.
 */
#ifndef KRL_OPS_ELTWISE_EWLAUNCH_CUH
#define KRL_OPS_ELTWISE_EWLAUNCH_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "ops/eltwise/eltwise.h"

#define EW_THREADS 128
#define EW_VEC 4
#define EW_BLOCK_WORK (EW_THREADS * EW_VEC)

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

/* A unary op f(x) as an op of ew_run (b ignored). */
template <typename F>
struct ew_unary {
	F f;
	__device__ float operator()(float a, float) const { return f(a); }
};

/* Same-shape ops (B is b_none or b_same) on 16-byte aligned pointers. */
template <typename F, typename B>
__global__ void __launch_bounds__(EW_THREADS)
ew_vec_kernel(const float *__restrict__ a, const float *__restrict__ b,
              float *__restrict__ y, int64_t n, F f, B rb)
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
		vy.x = f(va.x, vb.x);
		vy.y = f(va.y, vb.y);
		vy.z = f(va.z, vb.z);
		vy.w = f(va.w, vb.w);
		*reinterpret_cast<float4 *>(y + i) = vy;
		return;
	}
	/* the tail block: strided scalar elements, as PyTorch's unrolled path */
	for (int k = threadIdx.x; k < remaining; k += EW_THREADS) {
		int64_t i = base + k;
		y[i] = f(a[i], rb(b, i));
	}
}

/* 4 elements a thread, 128 apart: misaligned pointers and broadcasts. */
template <typename F, typename B>
__global__ void __launch_bounds__(EW_THREADS)
ew_scalar_kernel(const float *__restrict__ a, const float *__restrict__ b,
                 float *__restrict__ y, int64_t n, F f, B rb)
{
	int64_t base = (int64_t)blockIdx.x * EW_BLOCK_WORK;
	for (int k = 0; k < EW_VEC; k++) {
		int64_t i = base + threadIdx.x + (int64_t)k * EW_THREADS;
		if (i < n)
			y[i] = f(a[i], rb(b, i));
	}
}

static inline bool aligned16(const void *p)
{
	return ((uintptr_t)p & 15) == 0;
}

/* The one launch of every op of the family: op f over n elements of a
 * (and b through rb) into y, with the vectorised kernel when VEC and the
 * pointers are 16-byte aligned, else the scalar one. Returns the
 * cudaError_t of the launch as an int; n <= 0 launches nothing. */
template <typename F, typename B, bool VEC>
static int ew_run(const float *a, const float *b, float *y, int64_t n, F f,
                  B rb, cudaStream_t s)
{
	if (n <= 0)
		return 0;
	int64_t blocks = (n + EW_BLOCK_WORK - 1) / EW_BLOCK_WORK;
	if (blocks > 0x7fffffff)
		return (int)cudaErrorInvalidConfiguration;
	if constexpr (VEC) {
		if (aligned16(a) && aligned16(y) && (!B::reads || aligned16(b))) {
			ew_vec_kernel<F, B><<<(unsigned)blocks, EW_THREADS, 0,
			                      s>>>(a, b, y, n, f, rb);
			return (int)cudaGetLastError();
		}
	}
	ew_scalar_kernel<F, B><<<(unsigned)blocks, EW_THREADS, 0, s>>>(
		a, b, y, n, f, rb);
	return (int)cudaGetLastError();
}

#endif
