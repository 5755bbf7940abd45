/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv row.block=256 fuse=full lib.algo=0 lib.layout=nhwc_y map.cl=chan8
 * Task level2/36_convtranspose2d_min_sum_gelu_add, generated at shape set kb1; it serves every shape set.
 * fused 10 ops into 4 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 2 row (block 256, regs; 1 over a channels-last y in its memory order), 1 library (layout nhwc)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: row
 *   k3: map
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

/* max and min that propagate NaN, as torch's do */
static __device__ __forceinline__ float krl_maxf(float a, float b)
{
	return (a > b || a != a) ? a : b;
}

static __device__ __forceinline__ float krl_minf(float a, float b)
{
	return (a < b || a != a) ? a : b;
}

/* Warp reductions; xor shuffles give every lane the same result. */
static __device__ __forceinline__ double krl_warp_sum(double v)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, off);
	return v;
}

static __device__ __forceinline__ double krl_warp_prod(double v)
{
	for (int off = 16; off > 0; off >>= 1)
		v *= __shfl_xor_sync(0xffffffffu, v, off);
	return v;
}

static __device__ __forceinline__ float krl_warp_max(float v)
{
	for (int off = 16; off > 0; off >>= 1)
		v = krl_maxf(v, __shfl_xor_sync(0xffffffffu, v, off));
	return v;
}

static __device__ __forceinline__ float krl_warp_min(float v)
{
	for (int off = 16; off > 0; off >>= 1)
		v = krl_minf(v, __shfl_xor_sync(0xffffffffu, v, off));
	return v;
}

/*
 * k1 (row: a warp per row, 256 threads, rows re-read, 1 pass; rows of C contiguous in a channels-last input, one per position): nodes 6 view, 7 add, 8 min.
 * Writes: t8.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_row(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t5,
	const float *__restrict__ p_b,
	float *__restrict__ p_t8,
	long a6)
{
	const int tid = threadIdx.x;
	const int lid = tid & 31;
	const long wpb = 8; /* warps (rows) per block */
	for (long op = (long)blockIdx.x * wpb + (tid >> 5); op < a6; op += (long)gridDim.x * wpb) {
		const long o = op / a2, c = op % a2;
		const long rb = o * a1 * a2 + c;
		const long pb = op * a1;
		/* pass 1 */
		float acc0 = INFINITY;
		{
			long r = lid;
			for (; r + 96 < a1; r += 128) {
				const float v1 = p_t5[(pb + r)];
				const float v2 = p_b[(r)];
				const float v3 = ((v1) + (v2));
				const float v4 = p_t5[(pb + (r + 32))];
				const float v5 = p_b[((r + 32))];
				const float v6 = ((v4) + (v5));
				const float v7 = p_t5[(pb + (r + 64))];
				const float v8 = p_b[((r + 64))];
				const float v9 = ((v7) + (v8));
				const float v10 = p_t5[(pb + (r + 96))];
				const float v11 = p_b[((r + 96))];
				const float v12 = ((v10) + (v11));
				acc0 = krl_minf(acc0, krl_minf(krl_minf(v3, v6), krl_minf(v9, v12)));
			}
			for (; r < a1; r += 32) {
				const float v13 = p_t5[(pb + r)];
				const float v14 = p_b[(r)];
				const float v15 = ((v13) + (v14));
				acc0 = krl_minf(acc0, v15);
			}
		}
		const float r16 = krl_warp_min(acc0);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_t8[(o * a2 + c)] = r16;
		}
	}
}

/*
 * k2 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 9 sum, 13 div, 14 erf, 15 add, 16 mul, 17 mul.
 * Writes: t17.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t8,
	double c4,
	float *__restrict__ p_t17)
{
	__shared__ double krl_cd[8][33];
	const float v24 = 5.000000000e-01f;
	const float v26 = 1.000000000e+00f;
	const float v27 = (float)c4;
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long ncb = (a2 + 31) / 32;
	for (long blk = blockIdx.x; blk < a0 * ncb; blk += gridDim.x) {
		const long o = blk / ncb;
		const long cc = (blk % ncb) * 32 + tx;
		const bool valid = cc < a2;
		/* past the last column: compute the last one's values (in bounds), store nothing */
		const long c = valid ? cc : a2 - 1;
		const long rb = o * a1 * a2 + c;
		/* pass 1 */
		double acc17 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v18 = p_t8[(rb + r * a2)];
				const float v19 = p_t8[(rb + (r + 8) * a2)];
				const float v20 = p_t8[(rb + (r + 16) * a2)];
				const float v21 = p_t8[(rb + (r + 24) * a2)];
				acc17 += (double)((v18 + v19) + (v20 + v21));
			}
			for (; r < a1; r += 8) {
				const float v22 = p_t8[(rb + r * a2)];
				acc17 += (double)v22;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc17;
		__syncthreads();
		acc17 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc17 += krl_cd[k][tx];
		const float r23 = (float)acc17;
		/* the outputs of the row shape */
		const float v25 = ((v24) * (r23));
		const float v28 = ((r23) / (v27));
		const float v29 = erff(v28);
		const float v30 = ((v26) + (v29));
		const float v31 = ((v25) * (v30));
		if (valid && ty == 0) {
			p_t17[(o * a2 + c)] = v31;
		}
	}
}

/*
 * k3 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 18 add.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_map(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t17,
	long a4,
	const float *__restrict__ p_bias,
	float *__restrict__ p_y)
{
	const int tid = threadIdx.x;
	const long nv = (a1 % 4 == 0) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 256; base < nv;
	     base += (long)gridDim.x * 256) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w32 = *reinterpret_cast<const float4 *>(p_t17 + (krl_mod(i, a1) + krl_div(i, a2) * a1));
				const float v33 = p_bias[(krl_mod(krl_div(i, a1), a4))];
				const float v34 = ((w32.x) + (v33));
				const float v35 = ((w32.y) + (v33));
				const float v36 = ((w32.z) + (v33));
				const float v37 = ((w32.w) + (v33));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v34, v35, v36, v37);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v38 = p_t17[(krl_mod(i, a1) + krl_div(i, a2) * a1)];
		const float v39 = p_bias[(krl_mod(krl_div(i, a1), a4))];
		const float v40 = ((v38) + (v39));
		p_y[i] = v40;
	}
}

/*@plan
buffer t5 f32 [(batch_size), (out_channels), (oh), (ow)]
buffer t8 f32 [(batch_size), (1), (oh), (ow)]
buffer t17 f32 [(batch_size), (1), (1), (ow)]
# k0: library call (node 5)
call conv_transpose(x, w) -> t5 stride=stride padding=padding output_padding=output_padding layout=nhwc_y
launch k1_row grid=(min(cdiv((batch_size) * (oh) * (ow), 8), sm_count * 32)) block=(256) args((batch_size),
    (out_channels),
    (oh) * (ow),
    t5,
    b,
    t8,
    (batch_size) * (oh) * (ow))
launch k2_col grid=(min(((batch_size)) * cdiv((ow), 32), sm_count * 32)) block=(32, 8) args((batch_size),
    (oh),
    (ow),
    t8,
    (sqrt(2.0)),
    t17)
launch k3_map grid=(cdiv((batch_size) * (bias_c) * (ow), 1024)) block=(256) args((batch_size) * (bias_c) * (ow),
    (ow),
    (bias_c) * (ow),
    t17,
    (bias_c),
    bias,
    y)
@*/
