/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv row.strategy=auto row.block=256 row.cache=regs pool.block=256 pool.ept=1 pool.taps=inc fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8
 * Task level2/38_convtranspose3d_avgpool_clamp_softmax_multiply, generated at shape set kb1; it serves every shape set.
 * fused 11 ops into 4 kernels: 1 map (block 256, vec 4, ept 1, cdiv), 1 row (block 256, regs), 1 pool (block 256, ept 1, inc taps), 1 library
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: pool
 *   k1: library
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
	long a7,
	const float *__restrict__ p_x,
	float *__restrict__ p_t5)
{
	/* x is [.., IT, IH, IW] and the output [.., OT, OH, OW], seen as [rows, OW] */
	const long rows = a0, IT = a1, IH = a2, IW = a3, OT = a4, OH = a5, OW = a6;
	const long ksize = a7, stride = a7, pad = 0;
	const long plane = IT * IH * IW; /* elements of an input plane */
	/* a warp takes 32 consecutive outputs of a row, lane l the outputs l, l + 32, ... */
	const long groups = (OW + 31) / 32; /* per row */
	/* how far a window reaches past the input */
	const long reach = 2 * pad + stride + ksize;
	if constexpr (sizeof(I) < sizeof(long)) {
		if ((IT + reach) * (IH + reach) * (IW + reach) >= 0x80000000l) {
			/* a huge plane */
			k0_pool_walk<long>(a0, a1, a2, a3, a4, a5, a6, a7, p_x, p_t5);
			return;
		}
	}
	const I nT = IT, nH = IH, nW = IW; /* the input's sizes */
	const I st = stride, pd = pad;
	const I kx = ksize; /* a window's extent */
	const I tstep = nH * nW; /* from a tap plane to the next */
	const I hstep = nW; /* from a tap row to the next */
	for (long t = (long)blockIdx.x * 256 + threadIdx.x; t < rows * groups * 32;
	     t += (long)gridDim.x * 256) {
		const long row = krl_div(t >> 5, groups);
		const long ow0 = ((t >> 5) - row * groups) * 32 + (t & 31);
		const long rh = krl_div(row, OH);
		const I oh = row - rh * OH;
		const long pl = krl_div(rh, OT); /* the plane */
		const I ot = rh - pl * OT;
		const long xb = pl * plane; /* where the plane starts in x */
		const I ts = ot * st - pd; /* window start */
		const I tp = ts + kx < nT + pd ? ts + kx : nT + pd; /* end in the padded input */
		const I tlo = ts > 0 ? ts : 0, thi = tp < nT ? tp : nT;
		const I hs = oh * st - pd; /* window start */
		const I hp = hs + kx < nH + pd ? hs + kx : nH + pd; /* end in the padded input */
		const I hlo = hs > 0 ? hs : 0, hhi = hp < nH ? hp : nH;
		const long ow = ow0;
		if (ow >= OW)
			continue;
		const I ws = (I)ow * st - pd; /* window start */
		const I wp = ws + kx < nW + pd ? ws + kx : nW + pd; /* end in the padded input */
		const I wlo = ws > 0 ? ws : 0, whi = wp < nW ? wp : nW;
		float sum = 0.f;
		for (I xt = tlo * (nH * nW); xt < thi * (nH * nW); xt += tstep) {
			for (I xh = xt + hlo * nW; xh < xt + hhi * nW; xh += hstep) {
				for (I xw = xh + wlo; xw < xh + whi; xw++) {
					const long xi = xb + xw;
					const float v0 = p_x[xi];
					sum += v0;
				}
			}
		}
		/* the divisor: the window in the padded input (count_include_pad) */
		const float div = (float)((tp - ts) * (hp - hs) * (wp - ws));
		const float mean = tlo < thi && hlo < hhi && wlo < whi ? sum / div : 0.f;
		const long o = row * OW + ow;
		p_t5[o] = mean;
	}
}

/*
 * k0 (pool: 3-d mean over windows of x, 1 output per thread along the last dim, 256 threads): nodes 5 avg_pool.
 * Writes: t5.
 */
extern "C" __global__ void __launch_bounds__(256)
k0_pool(long a0,
	long a1,
	long a2,
	long a3,
	long a4,
	long a5,
	long a6,
	long a7,
	const float *__restrict__ p_x,
	float *__restrict__ p_t5)
{
	k0_pool_walk<int>(a0, a1, a2, a3, a4, a5, a6, a7, p_x, p_t5);
}

/*
 * k2 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 7 view, 8 add, 11 max, 12 min, 13 view, 14 max, 15 sub, 16 exp, 17 sum.
 * Writes: t14 t17.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_row(long a0,
	long a1,
	const float *__restrict__ p_t6,
	long a3,
	long a4,
	const float *__restrict__ p_b,
	float *__restrict__ p_t14,
	float *__restrict__ p_t17)
{
	const float v6 = 0.000000000e+00f;
	const float v8 = 1.000000000e+00f;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		const float v4 = p_b[(krl_mod(krl_div(rb, a3), a4))];
		/* pass 1 */
		float acc1 = -INFINITY;
		double acc2 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w3 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
				const float v5 = ((w3.x) + (v4));
				const float v7 = krl_maxf(v5, v6);
				const float v9 = krl_minf(v7, v8);
				const float v10 = ((w3.y) + (v4));
				const float v11 = krl_maxf(v10, v6);
				const float v12 = krl_minf(v11, v8);
				const float v13 = ((w3.z) + (v4));
				const float v14 = krl_maxf(v13, v6);
				const float v15 = krl_minf(v14, v8);
				const float v16 = ((w3.w) + (v4));
				const float v17 = krl_maxf(v16, v6);
				const float v18 = krl_minf(v17, v8);
				{
					/* online: the running sum follows the running max */
					const float mn = krl_maxf(acc1, krl_maxf(krl_maxf(v9, v12), krl_maxf(v15, v18)));
					if (mn != acc1) {
						acc2 *= (double)expf(acc1 - mn);
						acc1 = mn;
					}
					if (acc1 != -INFINITY)
						acc2 += (double)((expf(v9 - acc1) + expf(v12 - acc1)) + (expf(v15 - acc1) + expf(v18 - acc1)));
				}
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v19 = p_t6[(rb + r)];
					const float v20 = ((v19) + (v4));
					const float v21 = krl_maxf(v20, v6);
					const float v22 = krl_minf(v21, v8);
					{
						/* online: the running sum follows the running max */
						const float mn = krl_maxf(acc1, v22);
						if (mn != acc1) {
							acc2 *= (double)expf(acc1 - mn);
							acc1 = mn;
						}
						if (acc1 != -INFINITY)
							acc2 += (double)expf(v22 - acc1);
					}
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v23 = p_t6[(rb + r)];
					const float v24 = ((v23) + (v4));
					const float v25 = krl_maxf(v24, v6);
					const float v26 = krl_minf(v25, v8);
					{
						/* online: the running sum follows the running max */
						const float mn = krl_maxf(acc1, v26);
						if (mn != acc1) {
							acc2 *= (double)expf(acc1 - mn);
							acc1 = mn;
						}
						if (acc1 != -INFINITY)
							acc2 += (double)expf(v26 - acc1);
					}
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w27 = *reinterpret_cast<const float4 *>(p_t6 + (rb + r));
					const float v28 = ((w27.x) + (v4));
					const float v29 = krl_maxf(v28, v6);
					const float v30 = krl_minf(v29, v8);
					const float v31 = ((w27.y) + (v4));
					const float v32 = krl_maxf(v31, v6);
					const float v33 = krl_minf(v32, v8);
					const float v34 = ((w27.z) + (v4));
					const float v35 = krl_maxf(v34, v6);
					const float v36 = krl_minf(v35, v8);
					const float v37 = ((w27.w) + (v4));
					const float v38 = krl_maxf(v37, v6);
					const float v39 = krl_minf(v38, v8);
					{
						/* online: the running sum follows the running max */
						const float mn = krl_maxf(acc1, krl_maxf(krl_maxf(v30, v33), krl_maxf(v36, v39)));
						if (mn != acc1) {
							acc2 *= (double)expf(acc1 - mn);
							acc1 = mn;
						}
						if (acc1 != -INFINITY)
							acc2 += (double)((expf(v30 - acc1) + expf(v33 - acc1)) + (expf(v36 - acc1) + expf(v39 - acc1)));
					}
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v40 = p_t6[(rb + r)];
					const float v41 = ((v40) + (v4));
					const float v42 = krl_maxf(v41, v6);
					const float v43 = krl_minf(v42, v8);
					const float v44 = p_t6[(rb + (r + 256))];
					const float v45 = ((v44) + (v4));
					const float v46 = krl_maxf(v45, v6);
					const float v47 = krl_minf(v46, v8);
					const float v48 = p_t6[(rb + (r + 512))];
					const float v49 = ((v48) + (v4));
					const float v50 = krl_maxf(v49, v6);
					const float v51 = krl_minf(v50, v8);
					const float v52 = p_t6[(rb + (r + 768))];
					const float v53 = ((v52) + (v4));
					const float v54 = krl_maxf(v53, v6);
					const float v55 = krl_minf(v54, v8);
					{
						/* online: the running sum follows the running max */
						const float mn = krl_maxf(acc1, krl_maxf(krl_maxf(v43, v47), krl_maxf(v51, v55)));
						if (mn != acc1) {
							acc2 *= (double)expf(acc1 - mn);
							acc1 = mn;
						}
						if (acc1 != -INFINITY)
							acc2 += (double)((expf(v43 - acc1) + expf(v47 - acc1)) + (expf(v51 - acc1) + expf(v55 - acc1)));
					}
				}
				for (; r < a1; r += 256) {
					const float v56 = p_t6[(rb + r)];
					const float v57 = ((v56) + (v4));
					const float v58 = krl_maxf(v57, v6);
					const float v59 = krl_minf(v58, v8);
					{
						/* online: the running sum follows the running max */
						const float mn = krl_maxf(acc1, v59);
						if (mn != acc1) {
							acc2 *= (double)expf(acc1 - mn);
							acc1 = mn;
						}
						if (acc1 != -INFINITY)
							acc2 += (double)expf(v59 - acc1);
					}
				}
			}
		}
		const float r60 = krl_block_max(acc1);
		acc2 = acc1 == -INFINITY ? 0.0 : acc2 * (double)expf(acc1 - r60);
		const float r61 = (float)krl_block_sum(acc2);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_t14[o] = r60;
			p_t17[o] = r61;
		}
	}
}

/*
 * k3 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 7 view, 8 add, 11 max, 12 min, 13 view, 15 sub, 16 exp, 18 div, 19 view, 20 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_map(long a0,
	const float *__restrict__ p_t6,
	long a2,
	long a3,
	const float *__restrict__ p_b,
	long a5,
	const float *__restrict__ p_t14,
	const float *__restrict__ p_t17,
	const float *__restrict__ p_scale,
	float *__restrict__ p_y)
{
	const float v65 = 0.000000000e+00f;
	const float v67 = 1.000000000e+00f;
	const int tid = threadIdx.x;
	const long nv = (a5 % 4 == 0 && a2 % 4 == 0) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 256; base < nv;
	     base += (long)gridDim.x * 256) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w62 = *reinterpret_cast<const float4 *>(p_t6 + i);
				const float v63 = p_b[(krl_mod(krl_div(i, a2), a3))];
				const float v64 = ((w62.x) + (v63));
				const float v66 = krl_maxf(v64, v65);
				const float v68 = krl_minf(v66, v67);
				const float v69 = p_t14[(krl_div(i, a5))];
				const float v70 = ((v68) - (v69));
				const float v71 = expf(v70);
				const float v72 = p_t17[(krl_div(i, a5))];
				const float v73 = ((v71) / (v72));
				const float v74 = p_scale[(krl_mod(krl_div(i, a2), a3))];
				const float v75 = ((v73) * (v74));
				const float v76 = p_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v77 = ((w62.y) + (v76));
				const float v78 = krl_maxf(v77, v65);
				const float v79 = krl_minf(v78, v67);
				const float v80 = ((v79) - (v69));
				const float v81 = expf(v80);
				const float v82 = ((v81) / (v72));
				const float v83 = ((v82) * (v74));
				const float v84 = p_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v85 = ((w62.z) + (v84));
				const float v86 = krl_maxf(v85, v65);
				const float v87 = krl_minf(v86, v67);
				const float v88 = ((v87) - (v69));
				const float v89 = expf(v88);
				const float v90 = ((v89) / (v72));
				const float v91 = ((v90) * (v74));
				const float v92 = p_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v93 = ((w62.w) + (v92));
				const float v94 = krl_maxf(v93, v65);
				const float v95 = krl_minf(v94, v67);
				const float v96 = ((v95) - (v69));
				const float v97 = expf(v96);
				const float v98 = ((v97) / (v72));
				const float v99 = ((v98) * (v74));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v75, v83, v91, v99);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v100 = p_t6[i];
		const float v101 = p_b[(krl_mod(krl_div(i, a2), a3))];
		const float v102 = ((v100) + (v101));
		const float v103 = krl_maxf(v102, v65);
		const float v104 = krl_minf(v103, v67);
		const float v105 = p_t14[(krl_div(i, a5))];
		const float v106 = ((v104) - (v105));
		const float v107 = expf(v106);
		const float v108 = p_t17[(krl_div(i, a5))];
		const float v109 = ((v107) / (v108));
		const float v110 = p_scale[(krl_mod(krl_div(i, a2), a3))];
		const float v111 = ((v109) * (v110));
		p_y[i] = v111;
	}
}

/*@plan
buffer t5 f32 [(batch_size), (in_channels), (pd), (ph), (pw)]
buffer t6 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t14 f32 [(batch_size), (out_channels), (1)]
buffer t17 f32 [(batch_size), (out_channels), (1)]
launch k0_pool grid=(min(cdiv((batch_size) * (in_channels) * (pd) * (ph) * cdiv((pw), 32) * 32, 256), sm_count * 1024)) block=(256) args((batch_size) * (in_channels) * (pd) * (ph),
    (depth),
    (height),
    (width),
    (pd),
    (ph),
    (pw),
    (pool_kernel_size),
    x,
    t5)
# k1: library call (node 6)
call conv_transpose(t5, w) -> t6 stride=stride padding=padding output_padding=output_padding
launch k2_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (od * oh * ow),
    t6,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    t14,
    t17)
launch k3_map grid=(cdiv((batch_size) * (out_channels) * (od) * (oh) * (ow), 1024)) block=(256) args((batch_size) * (out_channels) * (od) * (oh) * (ow),
    t6,
    (od) * (oh) * (ow),
    (out_channels),
    b,
    (od * oh * ow),
    t14,
    t17,
    scale,
    y)
@*/
