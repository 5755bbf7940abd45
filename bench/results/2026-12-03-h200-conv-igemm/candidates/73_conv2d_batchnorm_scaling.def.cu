/*
 * krl-choice: map.block=256 map.vec=4 map.ept=1 map.grid=cdiv row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8 conv.impl=lib
 * Task level2/73_conv2d_batchnorm_scaling, generated at shape set kb1; it serves every shape set.
 * fused 15 ops into 6 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 4 row (block 256, regs), 1 library
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: row
 *   k2: row
 *   k3: row
 *   k4: row
 *   k5: map
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

/*
 * k1 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 7 sum.
 * Writes: t7.
 */
extern "C" __global__ void __launch_bounds__(256)
k1_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	float *__restrict__ p_t7)
{
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		/* pass 1 */
		double acc0 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w1 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				acc0 += (double)((w1.x + w1.y) + (w1.z + w1.w));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v2 = p_t6[(rb + r)];
					acc0 += (double)v2;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v3 = p_t6[(rb + r)];
					acc0 += (double)v3;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w4 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					acc0 += (double)((w4.x + w4.y) + (w4.z + w4.w));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v5 = p_t6[(rb + r)];
					const float v6 = p_t6[(rb + (r + 256))];
					const float v7 = p_t6[(rb + (r + 512))];
					const float v8 = p_t6[(rb + (r + 768))];
					acc0 += (double)((v5 + v6) + (v7 + v8));
				}
				for (; r < a1; r += 256) {
					const float v9 = p_t6[(rb + r)];
					acc0 += (double)v9;
				}
			}
		}
		const float r10 = (float)krl_block_sum(acc0);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_t7[o] = r10;
		}
	}
}

/*
 * k2 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 8 sum, 10 mul.
 * Writes: t10.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t7,
	double c4,
	float *__restrict__ p_t10)
{
	__shared__ double krl_cd[8][33];
	const float v18 = (float)c4;
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
		double acc11 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v12 = p_t7[(rb + r * a2)];
				const float v13 = p_t7[(rb + (r + 8) * a2)];
				const float v14 = p_t7[(rb + (r + 16) * a2)];
				const float v15 = p_t7[(rb + (r + 24) * a2)];
				acc11 += (double)((v12 + v13) + (v14 + v15));
			}
			for (; r < a1; r += 8) {
				const float v16 = p_t7[(rb + r * a2)];
				acc11 += (double)v16;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc11;
		__syncthreads();
		acc11 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc11 += krl_cd[k][tx];
		const float r17 = (float)acc11;
		/* the outputs of the row shape */
		const float v19 = ((r17) * (v18));
		if (valid && ty == 0) {
			p_t10[(o * a2 + c)] = v19;
		}
	}
}

/*
 * k3 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 11 sub, 12 square, 13 sum.
 * Writes: t13.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	long a3,
	const float *__restrict__ p_t10,
	float *__restrict__ p_t13)
{
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = a1 % 4 == 0;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		/* pass 1 */
		double acc20 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w21 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v22 = p_t10[(krl_mod(krl_div((rb + r), a1), a3))];
				const float v23 = ((w21.x) - (v22));
				const float v24 = ((v23) * (v23));
				const float v25 = ((w21.y) - (v22));
				const float v26 = ((v25) * (v25));
				const float v27 = ((w21.z) - (v22));
				const float v28 = ((v27) * (v27));
				const float v29 = ((w21.w) - (v22));
				const float v30 = ((v29) * (v29));
				acc20 += (double)((v24 + v26) + (v28 + v30));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v31 = p_t6[(rb + r)];
					const float v32 = p_t10[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v33 = ((v31) - (v32));
					const float v34 = ((v33) * (v33));
					acc20 += (double)v34;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v35 = p_t6[(rb + r)];
					const float v36 = p_t10[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v37 = ((v35) - (v36));
					const float v38 = ((v37) * (v37));
					acc20 += (double)v38;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w39 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v40 = p_t10[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v41 = ((w39.x) - (v40));
					const float v42 = ((v41) * (v41));
					const float v43 = ((w39.y) - (v40));
					const float v44 = ((v43) * (v43));
					const float v45 = ((w39.z) - (v40));
					const float v46 = ((v45) * (v45));
					const float v47 = ((w39.w) - (v40));
					const float v48 = ((v47) * (v47));
					acc20 += (double)((v42 + v44) + (v46 + v48));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v49 = p_t6[(rb + r)];
					const float v50 = p_t10[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v51 = ((v49) - (v50));
					const float v52 = ((v51) * (v51));
					const float v53 = p_t6[(rb + (r + 256))];
					const float v54 = p_t10[(krl_mod(krl_div((rb + (r + 256)), a1), a3))];
					const float v55 = ((v53) - (v54));
					const float v56 = ((v55) * (v55));
					const float v57 = p_t6[(rb + (r + 512))];
					const float v58 = p_t10[(krl_mod(krl_div((rb + (r + 512)), a1), a3))];
					const float v59 = ((v57) - (v58));
					const float v60 = ((v59) * (v59));
					const float v61 = p_t6[(rb + (r + 768))];
					const float v62 = p_t10[(krl_mod(krl_div((rb + (r + 768)), a1), a3))];
					const float v63 = ((v61) - (v62));
					const float v64 = ((v63) * (v63));
					acc20 += (double)((v52 + v56) + (v60 + v64));
				}
				for (; r < a1; r += 256) {
					const float v65 = p_t6[(rb + r)];
					const float v66 = p_t10[(krl_mod(krl_div((rb + r), a1), a3))];
					const float v67 = ((v65) - (v66));
					const float v68 = ((v67) * (v67));
					acc20 += (double)v68;
				}
			}
		}
		const float r69 = (float)krl_block_sum(acc20);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_t13[o] = r69;
		}
	}
}

/*
 * k4 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 14 sum, 16 mul, 18 add, 19 rsqrt.
 * Writes: t19.
 */
extern "C" __global__ void __launch_bounds__(256)
k4_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t13,
	double c4,
	double c5,
	float *__restrict__ p_t19)
{
	__shared__ double krl_cd[8][33];
	const float v77 = (float)c4;
	const float v79 = (float)c5;
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
		double acc70 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v71 = p_t13[(rb + r * a2)];
				const float v72 = p_t13[(rb + (r + 8) * a2)];
				const float v73 = p_t13[(rb + (r + 16) * a2)];
				const float v74 = p_t13[(rb + (r + 24) * a2)];
				acc70 += (double)((v71 + v72) + (v73 + v74));
			}
			for (; r < a1; r += 8) {
				const float v75 = p_t13[(rb + r * a2)];
				acc70 += (double)v75;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc70;
		__syncthreads();
		acc70 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc70 += krl_cd[k][tx];
		const float r76 = (float)acc70;
		/* the outputs of the row shape */
		const float v78 = ((r76) * (v77));
		const float v80 = ((v78) + (v79));
		const float v81 = rsqrtf(v80);
		if (valid && ty == 0) {
			p_t19[(o * a2 + c)] = v81;
		}
	}
}

/*
 * k5 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 11 sub, 20 mul, 21 view, 22 view, 23 mul, 24 add, 26 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k5_map(long a0,
	const float *__restrict__ p_t6,
	long a2,
	long a3,
	const float *__restrict__ p_t10,
	const float *__restrict__ p_t19,
	const float *__restrict__ p_bn_w,
	const float *__restrict__ p_bn_b,
	float *__restrict__ p_y)
{
	const float v91 = 2.000000000e+00f;
	const int tid = threadIdx.x;
	const long nv = (a2 % 4 == 0) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 256; base < nv;
	     base += (long)gridDim.x * 256) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w82 = *reinterpret_cast<const float4 *>(p_t6 + i);
				const float v83 = p_t10[(krl_mod(krl_div(i, a2), a3))];
				const float v84 = ((w82.x) - (v83));
				const float v85 = p_t19[(krl_mod(krl_div(i, a2), a3))];
				const float v86 = ((v84) * (v85));
				const float v87 = p_bn_w[(krl_mod(krl_div(i, a2), a3))];
				const float v88 = ((v86) * (v87));
				const float v89 = p_bn_b[(krl_mod(krl_div(i, a2), a3))];
				const float v90 = ((v88) + (v89));
				const float v92 = ((v90) * (v91));
				const float v93 = ((w82.y) - (v83));
				const float v94 = ((v93) * (v85));
				const float v95 = p_bn_w[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v96 = ((v94) * (v95));
				const float v97 = p_bn_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v98 = ((v96) + (v97));
				const float v99 = ((v98) * (v91));
				const float v100 = ((w82.z) - (v83));
				const float v101 = ((v100) * (v85));
				const float v102 = p_bn_w[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v103 = ((v101) * (v102));
				const float v104 = p_bn_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v105 = ((v103) + (v104));
				const float v106 = ((v105) * (v91));
				const float v107 = ((w82.w) - (v83));
				const float v108 = ((v107) * (v85));
				const float v109 = p_bn_w[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v110 = ((v108) * (v109));
				const float v111 = p_bn_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v112 = ((v110) + (v111));
				const float v113 = ((v112) * (v91));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v92, v99, v106, v113);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v114 = p_t6[i];
		const float v115 = p_t10[(krl_mod(krl_div(i, a2), a3))];
		const float v116 = ((v114) - (v115));
		const float v117 = p_t19[(krl_mod(krl_div(i, a2), a3))];
		const float v118 = ((v116) * (v117));
		const float v119 = p_bn_w[(krl_mod(krl_div(i, a2), a3))];
		const float v120 = ((v118) * (v119));
		const float v121 = p_bn_b[(krl_mod(krl_div(i, a2), a3))];
		const float v122 = ((v120) + (v121));
		const float v123 = ((v122) * (v91));
		p_y[i] = v123;
	}
}

/*@plan
buffer t6 f32 [(batch_size), (out_channels), (oh), (ow)]
buffer t7 f32 [(batch_size), (out_channels), (1), (1)]
buffer t10 f32 [(1), (out_channels), (1), (1)]
buffer t13 f32 [(batch_size), (out_channels), (1), (1)]
buffer t19 f32 [(1), (out_channels), (1), (1)]
# k0: library call (node 6)
call conv_bias(x, w, b) -> t6
launch k1_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (oh) * (ow),
    t6,
    t7)
launch k2_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t7,
    (1.0 / (batch_size * (oh * ow))),
    t10)
launch k3_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (oh) * (ow),
    t6,
    (out_channels),
    t10,
    t13)
launch k4_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t13,
    (1.0 / (batch_size * (oh * ow))),
    (eps),
    t19)
launch k5_map grid=(cdiv((batch_size) * (out_channels) * (oh) * (ow), 1024)) block=(256) args((batch_size) * (out_channels) * (oh) * (ow),
    t6,
    (oh) * (ow),
    (out_channels),
    t10,
    t19,
    bn_w,
    bn_b,
    y)
@*/
