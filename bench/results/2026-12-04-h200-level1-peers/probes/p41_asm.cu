/*
 * krl-choice: pool.block=256 pool.ept=4 pool.taps=inc fuse=full
 * Task level1/41_max_pool1d, generated at shape set kb1; it serves every shape set.
 * fused 1 op into 1 kernel: 1 pool (block 256, ept 4, inc taps)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: pool
 * Every kernel indexes with 64-bit integers, guards every load and store,
 * and takes its vector path only where a run-time check says sizes allow.
 */

/* NVRTC has no <math.h>: spell out infinity. */
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

/* a / b and a % b for a >= 0, b > 0: 32-bit division when both fit. */
static __device__ __forceinline__ long krl_div(long a, long b)
{
	return ((unsigned long)a | (unsigned long)b) < 0x100000000ul ?
	       (long)((unsigned)a / (unsigned)b) : a / b;
}

static __device__ __forceinline__ long krl_mod(long a, long b)
{
	return ((unsigned long)a | (unsigned long)b) < 0x100000000ul ?
	       (long)((unsigned)a % (unsigned)b) : a % b;
}

/* min and max of 64-bit indices */
static __device__ __forceinline__ long krl_minl(long a, long b)
{
	return a < b ? a : b;
}

static __device__ __forceinline__ long krl_maxl(long a, long b)
{
	return a > b ? a : b;
}

/* max and min that propagate NaN, as torch's do */
static __device__ __forceinline__ float krl_maxf(float a, float b)
{
	return (a > b || a != a) ? a : b;
}

static __device__ __forceinline__ float krl_minf(float a, float b)
{
	return (a < b || a != a) ? a : b;
}
/* k0_pool's outputs, with offsets and coordinates in a plane of type I:
 * int when the plane, widened by a window's reach, fits (the usual case),
 * else long */
template <typename I>
static __device__ __forceinline__ void
k0_pool_walk(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	long a6,
	const float *__restrict__ p_x,
	float *__restrict__ p_y)
{
	/* x is [.., IW] and the output [.., OW], seen as [rows, OW] */
	const long rows = a0, IW = a1, OW = a2;
	const long ksize = a3, stride = a4, pad = a5, dil = a6;
	/* a warp takes 128 consecutive outputs of a row, lane l the outputs l, l + 32, ... */
	const long groups = (OW + 127) / 128; /* per row */
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize * dil;
	if constexpr (sizeof(I) < sizeof(long)) {
		if (IW + reach >= 0x80000000l) {
			/* a huge plane */
			k0_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, p_x, p_y);
			return;
		}
	}
	const I nW = IW; /* the input's size */
	const I st = stride, pd = pad, dl = dil;
	const I kx = (ksize - 1) * dil + 1; /* a window's extent */
	for (long t = (long)blockIdx.x * 256 + threadIdx.x; t < rows * groups * 32;
	     t += (long)gridDim.x * 256) {
		const long row = krl_div(t >> 5, groups);
		const long ow0 = ((t >> 5) - row * groups) * 128 + (t & 31);
		const long xb = row * IW; /* where the plane starts in x */
		#pragma unroll
		for (int e = 0; e < 4; e++) {
			const long ow = ow0 + e * 32;
			if (ow >= OW)
				break;
			const I ws = (I)ow * st - pd; /* window start */
			/* the taps inside the input: the first past the padding, in steps of dl */
			const I wlo = ws >= 0 ? ws : ws + (dl - 1 - ws) / dl * dl;
			const I whi = ws + kx < nW ? ws + kx : nW;
			float m = -INFINITY;
			if (ksize == 8 && dil == 3 && ws >= 0 && ws + 22 <= nW) {
				const float *q = p_x + xb + ws;
				#pragma unroll
				for (int kw = 0; kw < 8; kw++) {
					const float v0 = q[kw * 3];
					asm("max.NaN.f32 %0, %0, %1;" : "+f"(m) : "f"(v0));
				}
			} else if (ksize == 8 && dil == 3) {
				/* the window's 8 taps, those outside the input skipped */
				#pragma unroll
				for (int kw = 0; kw < 8; kw++) {
					const I iw = ws + kw * 3;
					if (iw < 0 || iw >= nW)
						continue;
					const I xw = iw; /* the tap in the plane */
					const long xi = xb + xw;
					const float v0 = p_x[xi];
					if (v0 > m || v0 != v0) /* NaN wins */
						m = v0;
				}
			} else {
				/* another window: the loops */
				for (I xw = wlo; xw < whi; xw += dl) {
					const long xi = xb + xw;
					const float v0 = p_x[xi];
					if (v0 > m || v0 != v0) /* NaN wins */
						m = v0;
				}
			}
			const long o = row * OW + ow;
			p_y[o] = m;
		}
	}
}

/*
 * k0 (pool: 1-d max over windows of x, 4 outputs per thread along the last dim, 256 threads): nodes 2 max_pool.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k0_pool(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	long a6,
	const float *__restrict__ p_x,
	float *__restrict__ p_y)
{
	k0_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, p_x, p_y);
}

/*@plan
launch k0_pool grid=(min(cdiv((batch_size) * (features) * cdiv((lout), 128) * 32, 256), sm_count * 1024)) block=(256) args((batch_size) * (features),
    (sequence_length),
    (lout),
    (kernel_size),
    (stride),
    (padding),
    (dilation),
    x,
    y)
@*/
