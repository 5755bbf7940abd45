/*
 * Device helpers of the code generator's candidates (src/opt/codegen.c,
 * emit_helpers), embedded at build time. Each section starts at its
 * marker line and runs to the next one; a candidate gets the sections its
 * kernels need, copied as they are (the markers are not copied).
 */
/*@helper inf@*/
/* NVRTC has no <math.h>: spell out infinity. */
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
/*@helper half@*/
#include <cuda_fp16.h>
#include <cuda_bf16.h>
/*@helper div@*/

/* a / b and a % b for b > 0: where both fit in 32 bits (every index of a
 * tensor under 2^32 elements), a shift or a mask where b is a power of
 * two (most of KernelBench's extents; b is the same for every thread),
 * else 32-bit division (a ~20-instruction sequence); otherwise C's 64-bit
 * division (a negative a rounds toward 0), out of line: inlined at every
 * call, ptxas's 64-bit sequence made level 2's 60's map kernel 884 PTX
 * instructions where 321 do without it, and 11% slower (H100,
 * 2026-12-07: map 1.210 -> 1.075 ms, row kernel 0.594 -> 0.534, with
 * the 32-bit paths alone). */
static __device__ __noinline__ long krl_div64(long a, long b)
{
	return a / b;
}

static __device__ __noinline__ long krl_mod64(long a, long b)
{
	return a % b;
}

static __device__ __forceinline__ long krl_div(long a, long b)
{
	if (((unsigned long)a | (unsigned long)b) < 0x100000000ul) {
		const unsigned x = (unsigned)a, y = (unsigned)b;
		return (y & (y - 1)) == 0 ? (long)(x >> (__ffs((int)y) - 1)) :
		                            (long)(x / y);
	}
	return krl_div64(a, b);
}

static __device__ __forceinline__ long krl_mod(long a, long b)
{
	if (((unsigned long)a | (unsigned long)b) < 0x100000000ul) {
		const unsigned x = (unsigned)a, y = (unsigned)b;
		return (long)((y & (y - 1)) == 0 ? x & (y - 1) : x % y);
	}
	return krl_mod64(a, b);
}
/*@helper minmax@*/

/* min and max of 64-bit indices */
static __device__ __forceinline__ long krl_minl(long a, long b)
{
	return a < b ? a : b;
}

static __device__ __forceinline__ long krl_maxl(long a, long b)
{
	return a > b ? a : b;
}
/*@helper nanminmax@*/

/* max and min that propagate NaN, as torch's do (its max pooling too):
 * PTX's max.NaN and min.NaN from sm_80 */
static __device__ __forceinline__ float krl_maxf(float a, float b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	float r; /* one instruction where the compare-and-select took three */
	asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
	return r;
#else
	return (a > b || a != a) ? a : b;
#endif
}

static __device__ __forceinline__ float krl_minf(float a, float b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	float r;
	asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
	return r;
#else
	return (a < b || a != a) ? a : b;
#endif
}
/*@helper argbetter@*/

/* Whether (v, i) beats the best (bv, bi) of an argmax (argmin): NaN
 * is the extreme, ties go to the smaller index (the first, as torch). */
static __device__ __forceinline__ bool krl_amax_better(float v, long long i,
                                                       float bv, long long bi)
{
	if (v != v)
		return bv == bv || i < bi;
	if (bv != bv)
		return false;
	return v > bv || (v == bv && i < bi);
}

static __device__ __forceinline__ bool krl_amin_better(float v, long long i,
                                                       float bv, long long bi)
{
	if (v != v)
		return bv == bv || i < bi;
	if (bv != bv)
		return false;
	return v < bv || (v == bv && i < bi);
}
/*@helper warp@*/

/* Warp reductions; xor shuffles give every lane the same result. Over
 * aligned groups of w lanes (a power of two) with w: a warp-strategy row
 * kernel's rows of few elements, several a warp. The loops stay unrolled
 * with w a run-time value (a test a step); with the default, the code is
 * the whole warp's as before. */
static __device__ __forceinline__ double krl_warp_sum(double v, int w = 32)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		if (off < w)
			v += __shfl_xor_sync(0xffffffffu, v, off);
	return v;
}

static __device__ __forceinline__ double krl_warp_prod(double v, int w = 32)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		if (off < w)
			v *= __shfl_xor_sync(0xffffffffu, v, off);
	return v;
}

static __device__ __forceinline__ float krl_warp_max(float v, int w = 32)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		if (off < w)
			v = krl_maxf(v, __shfl_xor_sync(0xffffffffu, v, off));
	return v;
}

static __device__ __forceinline__ float krl_warp_min(float v, int w = 32)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		if (off < w)
			v = krl_minf(v, __shfl_xor_sync(0xffffffffu, v, off));
	return v;
}

/* Lanes a row of n elements takes in a warp-strategy row kernel: a
 * float4 a lane at least, between 4 (the peeled path's head and tail
 * take up to 3 lanes) and 32. */
static __device__ __forceinline__ int krl_row_lanes(long n)
{
	/* two float4s a lane: one a lane (16 lanes for rows of 64) left
	 * level 2's 34 (layer norm over rows of 64) issue-bound, its row
	 * kernel 1.504 ms on the H100 against 1.147 with two and 1.254 with
	 * four (2026-12-07) */
	int w = 4;
	while (w < 32 && (long)w * 8 < n)
		w <<= 1;
	return w;
}
/*@helper warparg@*/

static __device__ __forceinline__ void krl_warp_amax(float &v, long long &i,
                                                     int w = 32)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1) {
		if (off >= w)
			continue;
		float ov = __shfl_xor_sync(0xffffffffu, v, off);
		long long oi = __shfl_xor_sync(0xffffffffu, i, off);
		if (krl_amax_better(ov, oi, v, i)) {
			v = ov;
			i = oi;
		}
	}
}

static __device__ __forceinline__ void krl_warp_amin(float &v, long long &i,
                                                     int w = 32)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1) {
		if (off >= w)
			continue;
		float ov = __shfl_xor_sync(0xffffffffu, v, off);
		long long oi = __shfl_xor_sync(0xffffffffu, i, off);
		if (krl_amin_better(ov, oi, v, i)) {
			v = ov;
			i = oi;
		}
	}
}
/*@helper block@*/

/* Block reductions (blockDim.x a multiple of 32): every thread gets
 * the result. The first barrier lets a previous call finish reading
 * the shared slots. */
#define KRL_BLOCK_RED(NAME, T, ID, WARP)                               \
	static __device__ __forceinline__ T NAME(T v)                   \
	{                                                               \
		__shared__ T sh[32];                                      \
		v = WARP(v);                                              \
		__syncthreads();                                          \
		if ((threadIdx.x & 31) == 0)                              \
			sh[threadIdx.x >> 5] = v;                          \
		__syncthreads();                                          \
		v = (int)(threadIdx.x & 31) < (int)(blockDim.x >> 5) ?     \
		    sh[threadIdx.x & 31] : (ID);                          \
		return WARP(v);                                           \
	}
KRL_BLOCK_RED(krl_block_sum, double, 0.0, krl_warp_sum)
KRL_BLOCK_RED(krl_block_prod, double, 1.0, krl_warp_prod)
KRL_BLOCK_RED(krl_block_max, float, -INFINITY, krl_warp_max)
KRL_BLOCK_RED(krl_block_min, float, INFINITY, krl_warp_min)
/*@helper blockarg@*/

#define KRL_BLOCK_ARG(NAME, WARP, ID)                                  \
	static __device__ __forceinline__ void NAME(float &v, long long &i) \
	{                                                               \
		__shared__ float shv[32];                                 \
		__shared__ long long shi[32];                             \
		WARP(v, i);                                               \
		__syncthreads();                                          \
		if ((threadIdx.x & 31) == 0) {                            \
			shv[threadIdx.x >> 5] = v;                         \
			shi[threadIdx.x >> 5] = i;                         \
		}                                                         \
		__syncthreads();                                          \
		if ((int)(threadIdx.x & 31) < (int)(blockDim.x >> 5)) {    \
			v = shv[threadIdx.x & 31];                         \
			i = shi[threadIdx.x & 31];                         \
		} else {                                                  \
			v = (ID);                                          \
			i = 0x4000000000000000ll;                          \
		}                                                         \
		WARP(v, i);                                               \
	}
KRL_BLOCK_ARG(krl_block_amax, krl_warp_amax, -INFINITY)
KRL_BLOCK_ARG(krl_block_amin, krl_warp_amin, INFINITY)
/*@helper tail@*/

/* Tails (docs/optimizer.md section 3, "Tails"): whether this block is the
 * last of the nblk blocks of its group to get here, so that it may read
 * what they all wrote and write the group's outputs, the work of a kernel
 * that no longer runs. Every thread of the block calls it. Each thread's
 * writes are made visible device-wide before the block takes its ticket
 * (*ticket, zeroed by krl_tail_zero at the plan's start); the last block
 * leaves the ticket at 0 again for the next kernel that shares it, and
 * reads the others' writes after a fence, through loads that do not keep
 * lines in L1 (volatile). */
static __device__ __forceinline__ bool krl_tail_last(int *ticket, long nblk)
{
	__shared__ int krl_last;
	__threadfence();
	__syncthreads();
	if (threadIdx.x == 0 && threadIdx.y == 0) {
		const int t = atomicAdd(ticket, 1);
		krl_last = (long)t == nblk - 1;
		if (krl_last)
			*ticket = 0;
	}
	__syncthreads();
	const bool last = krl_last != 0;
	if (last)
		__threadfence();
	return last;
}

/* The tickets of the plan's tails, zeroed at its start. */
extern "C" __global__ void __launch_bounds__(256)
krl_tail_zero(int *__restrict__ t, long n)
{
	for (long i = (long)blockIdx.x * 256 + threadIdx.x; i < n;
	     i += (long)gridDim.x * 256)
		t[i] = 0;
}
/*@helper fastmath@*/

/* tanh under math=fast: (1 - t) / (1 + t) with t = e^(-2 |x|) from the
 * SFU's exp (__expf) and an approximate division, the sign copied from x:
 * an absolute error of a few 1e-7 (relative, near 0, more: 1 - t cancels),
 * 1 exactly where t underflows, NaN kept. About 8 instructions against
 * tanhf's 20-odd. */
static __device__ __forceinline__ float krl_tanh_fast(float x)
{
	const float t = __expf(-2.f * fabsf(x));
	return copysignf(__fdividef(1.f - t, 1.f + t), x);
}
