/*
 * krl-choice: rule.conv_bias=on row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nchw conv.impl=igemm
 * Task level2/27_conv3d_hardswish_groupnorm_mean, generated at shape set kb1; it serves every shape set.
 * fused 20 ops into 3 kernels: 1 conv (implicit GEMM, TF32, epilogue: 6 ops), 2 row (block 256, regs)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: conv (implicit GEMM, TF32)
 *   k1: none (its map went into the GEMM epilogue before it)
 *   k2: row
 *   k3: row
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

/* ==== implicit-GEMM convolution body ==== */
/* ---- kernelrl's implicit-GEMM convolution (src/opt/kernels/conv_igemm.cuh) ---- */

/*
 * A forward convolution (groups 1) on NCHW tensors as one GEMM per image z
 * on the tensor cores (TF32 products, fp32 sums):
 *
 *     y[z, k, p] = sum over q of w[k, q] * xcol[z, q, p]
 *
 * with k the output channel (the GEMM's M), p the output position (od, oh,
 * ow) flattened (N = OD OH OW) and q the tap (c, t, r, s) flattened
 * (K = C T R S): w is read as it lies ([K_out, C T R S], row-major) and
 * xcol is never formed; each k-tile of it is gathered from x into shared
 * memory (cp.async, zeros where a tap falls in the padding). y's rows are
 * the output channels of one image, so the tile is stored straight into
 * NCHW: no layout change on either side. The epilogue e(v, z, k, p) is
 * applied to each element before its one store (a generated functor: the
 * pointwise chain that reads the convolution, src/opt/codegen_conv.c).
 *
 * The kernel sizes T, R, S are template constants (a task's kernel size is
 * fixed in every shape set), so the tap index divides by constants.
 * PAD: some padding, so taps are checked against x's bounds (without it
 * every tap of an output position is inside x).
 *
 * Under tests/opt/cudasim.h (the CPU stand-in) the asynchronous copies are
 * plain ones and the MMA is computed from the warp's fragments, so the
 * tiling, the gather, the fragment maps and the epilogue run on the CPU.
 */
namespace igemm {

constexpr int BK = 32;		/* taps per k-tile */
constexpr int STAGES = 3;	/* cp.async pipeline depth */
constexpr int NTH = 256;	/* threads per block */

/* Shared memory of a (BM, BN) tile: A [BM][BK + 8], B [BK][BN + 4] per stage. */
template <int BM, int BN>
struct tile {
	static constexpr int A_LD = BK + 8, B_LD = BN + 4;
	static constexpr int A_STAGE = BM * A_LD, B_STAGE = BK * B_LD;
	static constexpr int SMEM = STAGES * (A_STAGE + B_STAGE) * 4;
};

static __device__ __forceinline__ unsigned tf32_round(float x)
{
	return (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
}

#ifdef KRL_CUDASIM_H

#define IG_DYN_SMEM(name) static float name[57344]
static inline void cp16(float *dst, const float *src, bool ok)
{
	for (int i = 0; i < 4; i++)
		dst[i] = ok ? src[i] : 0.f;
}
static inline void cp4(float *dst, const float *src, bool ok)
{
	*dst = ok ? *src : 0.f;
}
static inline void commit() {}
template <int N>
static inline void wait() {}

/* The warp's m16n8k8 product from every lane's fragments: each lane posts
 * its own, the warp meets (a shuffle), each lane sums its four outputs
 * (operands truncated to tf32 as the tensor core does), the warp meets
 * again before the slots are reused. */
static unsigned mma_slot[NTH / 32][32][6];
static inline void mma_tf32(float *d, const unsigned *a, const unsigned *b)
{
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	for (int i = 0; i < 4; i++)
		mma_slot[warp][lane][i] = a[i];
	mma_slot[warp][lane][4] = b[0];
	mma_slot[warp][lane][5] = b[1];
	__shfl_sync(0xffffffffu, 0, 0);
	const int g = lane >> 2, t = lane & 3;
	auto f = [](unsigned u) {
		u &= 0xffffe000u;
		float v;
		memcpy(&v, &u, sizeof v);
		return v;
	};
	for (int kk = 0; kk < 8; kk++) {
		const unsigned *as = mma_slot[warp][g * 4 + kk % 4];
		const float a0 = f(as[kk < 4 ? 0 : 2]), a1 = f(as[kk < 4 ? 1 : 3]);
		const float b0 = f(mma_slot[warp][(2 * t) * 4 + kk % 4][kk < 4 ? 4 : 5]);
		const float b1 = f(mma_slot[warp][(2 * t + 1) * 4 + kk % 4][kk < 4 ? 4 : 5]);
		d[0] += a0 * b0;
		d[1] += a0 * b1;
		d[2] += a1 * b0;
		d[3] += a1 * b1;
	}
	__shfl_sync(0xffffffffu, 0, 0);
}

#else

#define IG_DYN_SMEM(name) extern __shared__ __align__(16) float name[]
static __device__ __forceinline__ void cp16(float *dst, const float *src, bool ok)
{
	const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
		     :: "r"(d), "l"(src), "r"(ok ? 16 : 0) : "memory");
}
static __device__ __forceinline__ void cp4(float *dst, const float *src, bool ok)
{
	const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n"
		     :: "r"(d), "l"(src), "r"(ok ? 4 : 0) : "memory");
}
static __device__ __forceinline__ void commit()
{
	asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
static __device__ __forceinline__ void wait()
{
	asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
}
/* d += a * b on one m16n8k8 tile (tf32 inputs, fp32 accumulate). */
static __device__ __forceinline__ void mma_tf32(float *d, const unsigned *a, const unsigned *b)
{
	asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
	    "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
	    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
	    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

#endif

/* The geometry: x [N, C, D, H, W], w [K, C, T, R, S], y [N, K, OD, OH, OW]
 * (2-d and 1-d convolutions have leading size-1 spatial dims). */
struct geo {
	int C, D, H, W, K, OD, OH, OW;
	int sd, sh, sw, pd, ph, pw, dd, dh, dw;
};

/* The identity epilogue: the convolution alone. */
struct ident {
	__device__ __forceinline__ float operator()(float v, int z, int k, int p) const
	{
		(void)z;
		(void)k;
		(void)p;
		return v;
	}
};

/*
 * One block: output channels m0 .. m0 + BM - 1 at positions n0 .. n0 + BN
 * - 1 of image z. Warps tile it WM x WN; lane (g = lane / 4, t = lane % 4)
 * holds the m16n8k8 fragments: A (g, t), (g + 8, t), (g, t + 4), (g + 8,
 * t + 4); B (t, g), (t + 4, g); C (g, 2t), (g, 2t + 1), (g + 8, 2t), (g +
 * 8, 2t + 1). The sum over a k8 step does not depend on which k each slot
 * holds as long as A and B agree, so slot t holds k = 2t and slot t + 4
 * holds k = 2t + 1: a lane reads its two A values with one 8-byte load.
 */
template <int BM, int BN, int WM, int WN, int T, int R, int S, bool PAD, bool BIAS, class E>
static __device__ __forceinline__ void conv_block(const float *__restrict__ x, const float *__restrict__ w,
						  const float *__restrict__ cb, float *__restrict__ y,
						  const geo &q, int z, int m0, int n0, const E &e)
{
	typedef tile<BM, BN> L;
	constexpr int MT = WM / 16, NT = WN / 8;
	constexpr int RS = R * S, TRS = T * RS;
	constexpr int ROWS = NTH / BN;		/* B rows a pass of the block fills */
	static_assert((BM / WM) * (BN / WN) * 32 == NTH, "8 warps");
	static_assert(NTH % BN == 0 && BN % 32 == 0 && BK % ROWS == 0 && BK / ROWS <= 32,
		      "B tile split: a warp's lanes in one row");
	IG_DYN_SMEM(smem);
	float *sA = smem;
	float *sB = smem + STAGES * L::A_STAGE;

	const int tid = threadIdx.x;
	const int lane = tid & 31, warp = tid >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int wm0 = (warp / (BN / WN)) * WM;
	const int wn0 = (warp % (BN / WN)) * WN;

	const int P = q.OD * q.OH * q.OW, KD = q.C * TRS;
	const long DHW = (long)q.D * q.H * q.W;

	/* this thread's column of B: position n0 + j, and where its taps start */
	const int j = tid % BN, jrow = tid / BN;
	const int p = n0 + j;
	const bool pv = p < P;
	int od = 0, oh = 0, ow = 0;
	if (pv) {
		ow = p % q.OW;
		const int r2 = p / q.OW;
		oh = r2 % q.OH;
		od = r2 / q.OH;
	}
	const int i0d = od * q.sd - q.pd, i0h = oh * q.sh - q.ph, i0w = ow * q.sw - q.pw;
	const float *xz = x + (long)z * q.C * DHW;
	/* its first tap (may lie outside x with padding: used only where a
	 * tap's bounds check passes) */
	const float *xp = xz + (((long)i0d * q.H + i0h) * q.W + i0w);

	/* A's copies: 16 bytes where every row of w is (KD % 4 == 0, aligned) */
	const bool avec = (KD & 3) == 0 && (reinterpret_cast<unsigned long long>(w) & 15) == 0;

	auto load = [&](int kt, int st) {
		const int k0 = kt * BK;
		float *a = sA + st * L::A_STAGE;
		if (avec) {
			for (int c = tid; c < BM * (BK / 4); c += NTH) {
				const int r = c / (BK / 4), cc = (c % (BK / 4)) * 4;
				const int gr = m0 + r, gc = k0 + cc;
				const bool ok = gr < q.K && gc < KD;
				cp16(a + r * L::A_LD + cc, ok ? w + (long)gr * KD + gc : w, ok);
			}
		} else {
			for (int c = tid; c < BM * BK; c += NTH) {
				const int r = c / BK, cc = c % BK;
				const int gr = m0 + r, gc = k0 + cc;
				const bool ok = gr < q.K && gc < KD;
				cp4(a + r * L::A_LD + cc, ok ? w + (long)gr * KD + gc : w, ok);
			}
		}
		/* B: this thread's column at rows jrow, jrow + ROWS, ... of the
		 * k-tile. A warp's lanes share jrow, so a row's tap is the same
		 * for the whole warp: lane i works out row i's (its offset in
		 * x and, with padding, its d, h, w steps packed 10 bits each)
		 * and the warp reads them by shuffles, instead of every lane
		 * dividing for every row. */
		float *b = sB + st * L::B_STAGE + j;
		int toff = 0, tstep = 0;
		{
			const int kd = k0 + jrow + (lane % (BK / ROWS)) * ROWS;
			const int c = kd / TRS, rest = kd - c * TRS;
			const int tt = rest / RS, rr = (rest - tt * RS) / S, ss = rest - tt * RS - rr * S;
			toff = c * (int)DHW + (tt * q.dd * q.H + rr * q.dh) * q.W + ss * q.dw;
			tstep = (tt * q.dd) | (rr * q.dh) << 10 | (ss * q.dw) << 20;
			if (kd >= KD)
				toff = -1 - 0x7fffffff; /* INT_MIN: no such tap */
		}
#pragma unroll
		for (int i = 0; i < BK / ROWS; i++) {
			const int row = jrow + i * ROWS;
			const int off = __shfl_sync(0xffffffffu, toff, i);
			bool ok = pv && off != -1 - 0x7fffffff;
			if (PAD) {
				const int ts = __shfl_sync(0xffffffffu, tstep, i);
				const int id = i0d + (ts & 1023), ih = i0h + ((ts >> 10) & 1023),
					  iw = i0w + ((ts >> 20) & 1023);
				ok = ok && (unsigned)id < (unsigned)q.D && (unsigned)ih < (unsigned)q.H &&
				     (unsigned)iw < (unsigned)q.W;
			}
			cp4(b + row * L::B_LD, ok ? xp + off : xz, ok);
		}
	};

	float acc[MT][NT][4];
#pragma unroll
	for (int i = 0; i < MT; i++)
#pragma unroll
		for (int jj = 0; jj < NT; jj++)
#pragma unroll
			for (int v = 0; v < 4; v++)
				acc[i][jj][v] = 0.f;

	const int ktiles = (KD + BK - 1) / BK;
#pragma unroll
	for (int s = 0; s < STAGES - 1; s++) {
		if (s < ktiles)
			load(s, s);
		commit();
	}
	for (int kt = 0; kt < ktiles; kt++) {
		wait<STAGES - 2>();
		__syncthreads();
		{
			const int nk = kt + STAGES - 1;
			if (nk < ktiles)
				load(nk, nk % STAGES);
			commit();
		}
		const int st = kt % STAGES;
		const float *a = sA + st * L::A_STAGE;
		const float *b = sB + st * L::B_STAGE;
#pragma unroll
		for (int kb = 0; kb < BK; kb += 8) {
			unsigned bf[NT][2];
#pragma unroll
			for (int jj = 0; jj < NT; jj++) {
				const int n = wn0 + jj * 8 + g;
				bf[jj][0] = tf32_round(b[(kb + 2 * t) * L::B_LD + n]);
				bf[jj][1] = tf32_round(b[(kb + 2 * t + 1) * L::B_LD + n]);
			}
#pragma unroll
			for (int i = 0; i < MT; i++) {
				const int m = wm0 + i * 16 + g;
				const float2 u = *reinterpret_cast<const float2 *>(a + m * L::A_LD + kb + 2 * t);
				const float2 v = *reinterpret_cast<const float2 *>(a + (m + 8) * L::A_LD + kb + 2 * t);
				const unsigned af[4] = { tf32_round(u.x), tf32_round(v.x), tf32_round(u.y),
							 tf32_round(v.y) };
#pragma unroll
				for (int jj = 0; jj < NT; jj++)
					mma_tf32(acc[i][jj], af, bf[jj]);
			}
		}
	}
	wait<0>();

	/* Epilogue: each element through e, pairs of positions stored as 8 bytes
	 * where P is even (then every pair is aligned). */
	const bool pair = (P & 1) == 0;
	float *yz = y + (long)z * q.K * P;
#pragma unroll
	for (int i = 0; i < MT; i++) {
#pragma unroll
		for (int h = 0; h < 2; h++) {
			const int k = m0 + wm0 + i * 16 + g + 8 * h;
			if (k >= q.K)
				continue;
			const float bias = BIAS ? cb[k] : 0.f;
#pragma unroll
			for (int jj = 0; jj < NT; jj++) {
				const int col = n0 + wn0 + jj * 8 + 2 * t;
				float *dst = yz + (long)k * P + col;
				const float v0 = acc[i][jj][2 * h] + bias, v1 = acc[i][jj][2 * h + 1] + bias;
				if (pair && col + 1 < P) {
					*reinterpret_cast<float2 *>(dst) = make_float2(e(v0, z, k, col), e(v1, z, k, col + 1));
				} else {
					if (col < P)
						dst[0] = e(v0, z, k, col);
					if (col + 1 < P)
						dst[1] = e(v1, z, k, col + 1);
				}
			}
		}
	}
}

/* The kernel body: blockIdx.x over (channel tile, position tile), the
 * channel tiles fastest (the blocks of one position tile read the same x);
 * blockIdx.y over images (striding past 65535). */
template <int BM, int BN, int WM, int WN, int T, int R, int S, bool PAD, bool BIAS, class E>
static __device__ __forceinline__ void conv_entry(const float *__restrict__ x, const float *__restrict__ w,
						  const float *__restrict__ cb, float *__restrict__ y,
						  const geo &q, int nimg, const E &e)
{
	const int tm = (q.K + BM - 1) / BM;
	const int m0 = (blockIdx.x % tm) * BM, n0 = (blockIdx.x / tm) * BN;
	for (int z = blockIdx.y; z < nimg; z += gridDim.y) {
		conv_block<BM, BN, WM, WN, T, R, S, PAD, BIAS>(x, w, cb, y, q, z, m0, n0, e);
		if (z + gridDim.y < nimg)
			__syncthreads(); /* the next image refills the stages */
	}
}

} /* namespace igemm */

/*
 * k0 (conv, implicit GEMM on the tensor cores: TF32 products, fp32 sums):
 * node 6 (conv), tiles of 16 output channels x 128 positions.
 * Its epilogue (k0_conv_epi):
 *   node 8 add
 *   node 12 add
 *   node 13 max
 *   node 14 min
 *   node 15 mul
 *   node 16 div
 * writes t16.
 */
struct k0_conv_epi {
	long ep_n;
	long ep_m;
	const float *__restrict__ p_b;
	__device__ __forceinline__ float operator()(float ep_acc, int ep_z, int ep_row, int ep_col) const
	{
		const float ep_v = ep_acc;
		const float v1 = p_b[(ep_row)];
		const float v2 = ((ep_v) + (v1));
		const float v3 = 3.000000000e+00f;
		const float v4 = ((v2) + (v3));
		const float v5 = 0.000000000e+00f;
		const float v6 = krl_maxf(v4, v5);
		const float v7 = 6.000000000e+00f;
		const float v8 = krl_minf(v6, v7);
		const float v9 = ((v2) * (v8));
		const float v10 = ((v9) / (v7));
		return v10;
	}
};

extern "C" __global__ void __launch_bounds__(256, 2)
k0_conv(const float *__restrict__ x, const float *__restrict__ w,
	const float *__restrict__ cb, float *__restrict__ y, int nimg,
	int C, int D, int H, int W, int K, int OD, int OH, int OW,
	int sd, int sh, int sw, int pd, int ph, int pw, int dd, int dh,
	int dw,
	const float *__restrict__ p_b)
{
	const igemm::geo q = {C, D, H, W, K, OD, OH, OW, sd, sh, sw, pd, ph, pw, dd, dh, dw};
	const long P = (long)OD * OH * OW;
	(void)P;
	const k0_conv_epi e = {P, K, p_b};
	igemm::conv_entry<16, 128, 16, 16, 4, 4, 4, false, false>(x, w, cb, y, q, nimg, e);
}

/*
 * k2 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 17 view, 18 sum, 20 mul, 21 sub, 22 square, 23 sum, 25 mul, 27 add, 28 rsqrt.
 * Writes: t20 t28.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_row(long a0,
	long a1,
	const float *__restrict__ p_t16,
	double c3,
	float *__restrict__ p_t20,
	double c5,
	float *__restrict__ p_t28)
{
	const float v23 = (float)c3;
	const float v29 = (float)c3;
	const float v31 = (float)c5;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		const float v11 = p_t16[(rb + 0)];
		/* pass 1 */
		double acc12 = 0.0;
		double acc13 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w14 = *reinterpret_cast<const float4 *>(p_t16 + (rb + r));
				{
					/* shifted by the row's first value: no cancellation in the variance */
					const float d0 = w14.x - v11;
					const float d1 = w14.y - v11;
					const float d2 = w14.z - v11;
					const float d3 = w14.w - v11;
					acc12 += (double)((d0 + d1) + (d2 + d3));
					acc13 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
				}
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v15 = p_t16[(rb + r)];
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v15 - v11;
						acc12 += (double)d0;
						acc13 += (double)(d0 * d0);
					}
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v16 = p_t16[(rb + r)];
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v16 - v11;
						acc12 += (double)d0;
						acc13 += (double)(d0 * d0);
					}
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w17 = *reinterpret_cast<const float4 *>(p_t16 + (rb + r));
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = w17.x - v11;
						const float d1 = w17.y - v11;
						const float d2 = w17.z - v11;
						const float d3 = w17.w - v11;
						acc12 += (double)((d0 + d1) + (d2 + d3));
						acc13 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v18 = p_t16[(rb + r)];
					const float v19 = p_t16[(rb + (r + 256))];
					const float v20 = p_t16[(rb + (r + 512))];
					const float v21 = p_t16[(rb + (r + 768))];
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v18 - v11;
						const float d1 = v19 - v11;
						const float d2 = v20 - v11;
						const float d3 = v21 - v11;
						acc12 += (double)((d0 + d1) + (d2 + d3));
						acc13 += (double)((d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3));
					}
				}
				for (; r < a1; r += 256) {
					const float v22 = p_t16[(rb + r)];
					{
						/* shifted by the row's first value: no cancellation in the variance */
						const float d0 = v22 - v11;
						acc12 += (double)d0;
						acc13 += (double)(d0 * d0);
					}
				}
			}
		}
		acc12 = krl_block_sum(acc12);
		acc13 = krl_block_sum(acc13);
		const float r24 = (float)(acc12 + (double)a1 * (double)v11);
		const float m26 = r24 * v23;
		const double dm27 = (double)m26 - (double)v11;
		const float r25 = (float)fmax(acc13 - 2.0 * dm27 * acc12 + (double)a1 * dm27 * dm27, 0.0);
		/* the outputs of the row shape */
		const float v28 = ((r24) * (v23));
		const float v30 = ((r25) * (v29));
		const float v32 = ((v30) + (v31));
		const float v33 = rsqrtf(v32);
		if (lid == 0) {
			p_t20[o] = v28;
			p_t28[o] = v33;
		}
	}
}

/*
 * k3 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 17 view, 21 sub, 29 mul, 30 view, 31 view, 32 view, 33 mul, 34 add, 35 view, 36 sum, 38 mul.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_row(long a0,
	long a1,
	const float *__restrict__ p_t16,
	long a3,
	const float *__restrict__ p_t20,
	const float *__restrict__ p_t28,
	long a6,
	long a7,
	const float *__restrict__ p_gn_w,
	const float *__restrict__ p_gn_b,
	double c10,
	float *__restrict__ p_y)
{
	const float v153 = (float)c10;
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a3 % 4 == 0 && a1 % 4 == 0;
	const bool peel = a3 % 4 == 0;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		/* pass 1 */
		double acc34 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w35 = *reinterpret_cast<const float4 *>(p_t16 + (rb + r));
				const float v36 = p_t20[(krl_div((rb + r), a3))];
				const float v37 = ((w35.x) - (v36));
				const float v38 = p_t28[(krl_div((rb + r), a3))];
				const float v39 = ((v37) * (v38));
				const float v40 = p_gn_w[(krl_mod(krl_div((rb + r), a6), a7))];
				const float v41 = ((v39) * (v40));
				const float v42 = p_gn_b[(krl_mod(krl_div((rb + r), a6), a7))];
				const float v43 = ((v41) + (v42));
				const float v44 = ((w35.y) - (v36));
				const float v45 = ((v44) * (v38));
				const float v46 = p_gn_w[(krl_mod(krl_div((rb + (r + 1)), a6), a7))];
				const float v47 = ((v45) * (v46));
				const float v48 = p_gn_b[(krl_mod(krl_div((rb + (r + 1)), a6), a7))];
				const float v49 = ((v47) + (v48));
				const float v50 = ((w35.z) - (v36));
				const float v51 = ((v50) * (v38));
				const float v52 = p_gn_w[(krl_mod(krl_div((rb + (r + 2)), a6), a7))];
				const float v53 = ((v51) * (v52));
				const float v54 = p_gn_b[(krl_mod(krl_div((rb + (r + 2)), a6), a7))];
				const float v55 = ((v53) + (v54));
				const float v56 = ((w35.w) - (v36));
				const float v57 = ((v56) * (v38));
				const float v58 = p_gn_w[(krl_mod(krl_div((rb + (r + 3)), a6), a7))];
				const float v59 = ((v57) * (v58));
				const float v60 = p_gn_b[(krl_mod(krl_div((rb + (r + 3)), a6), a7))];
				const float v61 = ((v59) + (v60));
				acc34 += (double)((v43 + v49) + (v55 + v61));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v62 = p_t16[(rb + r)];
					const float v63 = p_t20[(krl_div((rb + r), a3))];
					const float v64 = ((v62) - (v63));
					const float v65 = p_t28[(krl_div((rb + r), a3))];
					const float v66 = ((v64) * (v65));
					const float v67 = p_gn_w[(krl_mod(krl_div((rb + r), a6), a7))];
					const float v68 = ((v66) * (v67));
					const float v69 = p_gn_b[(krl_mod(krl_div((rb + r), a6), a7))];
					const float v70 = ((v68) + (v69));
					acc34 += (double)v70;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v71 = p_t16[(rb + r)];
					const float v72 = p_t20[(krl_div((rb + r), a3))];
					const float v73 = ((v71) - (v72));
					const float v74 = p_t28[(krl_div((rb + r), a3))];
					const float v75 = ((v73) * (v74));
					const float v76 = p_gn_w[(krl_mod(krl_div((rb + r), a6), a7))];
					const float v77 = ((v75) * (v76));
					const float v78 = p_gn_b[(krl_mod(krl_div((rb + r), a6), a7))];
					const float v79 = ((v77) + (v78));
					acc34 += (double)v79;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w80 = *reinterpret_cast<const float4 *>(p_t16 + (rb + r));
					const float v81 = p_t20[(krl_div((rb + r), a3))];
					const float v82 = ((w80.x) - (v81));
					const float v83 = p_t28[(krl_div((rb + r), a3))];
					const float v84 = ((v82) * (v83));
					const float v85 = p_gn_w[(krl_mod(krl_div((rb + r), a6), a7))];
					const float v86 = ((v84) * (v85));
					const float v87 = p_gn_b[(krl_mod(krl_div((rb + r), a6), a7))];
					const float v88 = ((v86) + (v87));
					const float v89 = ((w80.y) - (v81));
					const float v90 = ((v89) * (v83));
					const float v91 = p_gn_w[(krl_mod(krl_div((rb + (r + 1)), a6), a7))];
					const float v92 = ((v90) * (v91));
					const float v93 = p_gn_b[(krl_mod(krl_div((rb + (r + 1)), a6), a7))];
					const float v94 = ((v92) + (v93));
					const float v95 = ((w80.z) - (v81));
					const float v96 = ((v95) * (v83));
					const float v97 = p_gn_w[(krl_mod(krl_div((rb + (r + 2)), a6), a7))];
					const float v98 = ((v96) * (v97));
					const float v99 = p_gn_b[(krl_mod(krl_div((rb + (r + 2)), a6), a7))];
					const float v100 = ((v98) + (v99));
					const float v101 = ((w80.w) - (v81));
					const float v102 = ((v101) * (v83));
					const float v103 = p_gn_w[(krl_mod(krl_div((rb + (r + 3)), a6), a7))];
					const float v104 = ((v102) * (v103));
					const float v105 = p_gn_b[(krl_mod(krl_div((rb + (r + 3)), a6), a7))];
					const float v106 = ((v104) + (v105));
					acc34 += (double)((v88 + v94) + (v100 + v106));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v107 = p_t16[(rb + r)];
					const float v108 = p_t20[(krl_div((rb + r), a3))];
					const float v109 = ((v107) - (v108));
					const float v110 = p_t28[(krl_div((rb + r), a3))];
					const float v111 = ((v109) * (v110));
					const float v112 = p_gn_w[(krl_mod(krl_div((rb + r), a6), a7))];
					const float v113 = ((v111) * (v112));
					const float v114 = p_gn_b[(krl_mod(krl_div((rb + r), a6), a7))];
					const float v115 = ((v113) + (v114));
					const float v116 = p_t16[(rb + (r + 256))];
					const float v117 = p_t20[(krl_div((rb + (r + 256)), a3))];
					const float v118 = ((v116) - (v117));
					const float v119 = p_t28[(krl_div((rb + (r + 256)), a3))];
					const float v120 = ((v118) * (v119));
					const float v121 = p_gn_w[(krl_mod(krl_div((rb + (r + 256)), a6), a7))];
					const float v122 = ((v120) * (v121));
					const float v123 = p_gn_b[(krl_mod(krl_div((rb + (r + 256)), a6), a7))];
					const float v124 = ((v122) + (v123));
					const float v125 = p_t16[(rb + (r + 512))];
					const float v126 = p_t20[(krl_div((rb + (r + 512)), a3))];
					const float v127 = ((v125) - (v126));
					const float v128 = p_t28[(krl_div((rb + (r + 512)), a3))];
					const float v129 = ((v127) * (v128));
					const float v130 = p_gn_w[(krl_mod(krl_div((rb + (r + 512)), a6), a7))];
					const float v131 = ((v129) * (v130));
					const float v132 = p_gn_b[(krl_mod(krl_div((rb + (r + 512)), a6), a7))];
					const float v133 = ((v131) + (v132));
					const float v134 = p_t16[(rb + (r + 768))];
					const float v135 = p_t20[(krl_div((rb + (r + 768)), a3))];
					const float v136 = ((v134) - (v135));
					const float v137 = p_t28[(krl_div((rb + (r + 768)), a3))];
					const float v138 = ((v136) * (v137));
					const float v139 = p_gn_w[(krl_mod(krl_div((rb + (r + 768)), a6), a7))];
					const float v140 = ((v138) * (v139));
					const float v141 = p_gn_b[(krl_mod(krl_div((rb + (r + 768)), a6), a7))];
					const float v142 = ((v140) + (v141));
					acc34 += (double)((v115 + v124) + (v133 + v142));
				}
				for (; r < a1; r += 256) {
					const float v143 = p_t16[(rb + r)];
					const float v144 = p_t20[(krl_div((rb + r), a3))];
					const float v145 = ((v143) - (v144));
					const float v146 = p_t28[(krl_div((rb + r), a3))];
					const float v147 = ((v145) * (v146));
					const float v148 = p_gn_w[(krl_mod(krl_div((rb + r), a6), a7))];
					const float v149 = ((v147) * (v148));
					const float v150 = p_gn_b[(krl_mod(krl_div((rb + r), a6), a7))];
					const float v151 = ((v149) + (v150));
					acc34 += (double)v151;
				}
			}
		}
		const float r152 = (float)krl_block_sum(acc34);
		/* the outputs of the row shape */
		const float v154 = ((r152) * (v153));
		if (lid == 0) {
			p_y[o] = v154;
		}
	}
}

/*@plan
buffer t16 f32 [(batch_size), (out_channels), (od), (oh), (ow)]
buffer t20 f32 [(batch_size), (num_groups), (1)]
buffer t28 f32 [(batch_size), (num_groups), (1)]
# k0: node 6 as the implicit-GEMM convolution
launch k0_conv grid=(cdiv((out_channels), 16) * cdiv((od) * (oh) * (ow), 128), min((batch_size), 65535)) block=(256) \
    smem=58368 args(x, w, x, t16, (batch_size), (in_channels), (depth), (height), (width), (out_channels), (od), (oh), (ow), 1, 1, 1, 0, 0, 0, 1, 1, 1, b)
launch k2_row grid=(min((batch_size) * (num_groups), sm_count * 32)) block=(256) args((batch_size) * (num_groups),
    ((out_channels / num_groups) * ((od * oh) * ow)),
    t16,
    (1.0 / ((out_channels / num_groups) * ((od * oh) * ow))),
    t20,
    (eps),
    t28)
launch k3_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (od * oh * ow),
    t16,
    ((out_channels / num_groups) * ((od * oh) * ow)),
    t20,
    t28,
    (od) * (oh) * (ow),
    (out_channels),
    gn_w,
    gn_b,
    (1.0 / (od * oh * ow)),
    y)
@*/
