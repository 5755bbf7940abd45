/*
 * krl-choice: rule.conv_bias=on map.block=256 map.vec=4 map.ept=1 map.grid=cdiv row.strategy=auto row.block=256 row.cache=regs fuse=full lib.algo=0 lib.layout=nchw map.cl=chan8 conv.impl=igemm
 * Task level2/52_conv2d_activation_batchnorm, generated at shape set kb1; it serves every shape set.
 * fused 21 ops into 6 kernels: 1 conv (implicit GEMM, TF32, epilogue: 7 ops), 1 map (block 256, vec 4, ept 1, cdiv), 4 row (block 256, regs)
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: conv (implicit GEMM, TF32)
 *   k1: none (its map went into the GEMM epilogue before it)
 *   k2: row
 *   k3: row
 *   k4: row
 *   k5: row
 *   k6: map
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

/* The cp.async pipeline both forms run over n steps (k-tiles, channel
 * chunks) in STG stages: load(i, stage) issues step i's copies into a
 * stage, step(stage) computes on one whose copies have landed. */
template <int STG, class LD, class ST>
static __device__ __forceinline__ void pipeline(int n, const LD &load, const ST &step)
{
#pragma unroll
	for (int s = 0; s < STG - 1; s++) {
		if (s < n)
			load(s, s);
		commit();
	}
	for (int i = 0; i < n; i++) {
		wait<STG - 2>();
		__syncthreads();
		const int nk = i + STG - 1;
		if (nk < n)
			load(nk, nk % STG);
		commit();
		step(i % STG);
	}
	wait<0>();
}

/* Two neighbouring outputs of channel k at positions p, p + 1 through the
 * epilogue: one 8-byte store where vec (both in y, the pair aligned), else
 * those of the two in y (ok0, ok1). */
template <class E>
static __device__ __forceinline__ void store_pair(float *dst, float v0, float v1, const E &e, int z, int k,
						  int p, bool vec, bool ok0, bool ok1)
{
	if (vec) {
		*reinterpret_cast<float2 *>(dst) = make_float2(e(v0, z, k, p), e(v1, z, k, p + 1));
		return;
	}
	if (ok0)
		dst[0] = e(v0, z, k, p);
	if (ok1)
		dst[1] = e(v1, z, k, p + 1);
}

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

	float acc[MT][NT][4] = {};
	pipeline<STAGES>((KD + BK - 1) / BK, load, [&](int st) {
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
	});

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
				store_pair(yz + (long)k * P + col, acc[i][jj][2 * h] + bias, acc[i][jj][2 * h + 1] + bias,
					   e, z, k, col, pair && col + 1 < P, col < P, col + 1 < P);
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


/*
 * The halo form, for a 2-d convolution of stride 1 and dilation 1 over many
 * input channels. The gather above fetches every x element once per tap
 * (R S times, 4 bytes a copy); here a block of BM output channels x H_TH
 * rows x H_TW columns of output loads, per chunk of H_CK input channels,
 * the (H_TH + R - 1) x (H_TW + S - 1) window of x those positions read (its
 * halo) once, and every tap reads its B fragments from that window at its
 * own (r, s) shift. The k order within a chunk is (tap, channel): one k8
 * step is the chunk's 8 channels at one tap, so A is w's rows as they lie
 * ([K][C R S]: channel c's taps are R S apart), copied 16 bytes at a time.
 *
 * Fragments as above, with slot t holding channel t and slot t + 4 channel
 * t + 4 of the chunk. Bank-conflict-free reads by construction of the
 * strides: A's row stride A_LD makes (g A_LD + t R S) mod 32 distinct over
 * the warp's (g, t); the window's channel stride X_CS is 8 or 24 mod 32, so
 * (t X_CS + g) is.
 */
constexpr int H_CK = 8;		/* input channels per chunk */
constexpr int H_TH = 4;		/* output rows per block: one a warp column */
constexpr int H_TW = 32;	/* output columns per block: 4 n8 tiles */
constexpr int H_STAGES = 2;	/* measured: 2 stages and 2 blocks an SM beat 3 and 1 */

static __host__ __device__ constexpr bool a_ld_ok(int ld, int rs)
{
	unsigned seen = 0;
	for (int g = 0; g < 8; g++)
		for (int t = 0; t < 4; t++) {
			const unsigned b = 1u << ((g * ld + t * rs) & 31);
			if (seen & b)
				return false;
			seen |= b;
		}
	return true;
}
/* A's row stride: the least multiple of 4 (16-byte copies) from kc whose
 * fragment reads are conflict-free, or kc rounded up to 4 if none is
 * within 128 */
static __host__ __device__ constexpr int a_ld(int kc, int rs)
{
	const int base = (kc + 3) / 4 * 4;
	for (int ld = base; ld < base + 128; ld += 4)
		if (a_ld_ok(ld, rs))
			return ld;
	return base;
}
/* the window's channel stride: at least n floats, 8 or 24 mod 32 */
static __host__ __device__ constexpr int x_cs(int n)
{
	while (n % 32 != 8 && n % 32 != 24)
		n++;
	return n;
}

template <int BM, int R, int S>
struct htile {
	static constexpr int RS = R * S, KC = H_CK * RS;
	static constexpr int A_LD = a_ld(KC, RS);
	static constexpr int HH = H_TH + R - 1, HW = H_TW + S - 1;
	static constexpr int X_CS = x_cs(HH * HW);
	static constexpr int A_STAGE = BM * A_LD, X_STAGE = H_CK * X_CS;
	static constexpr int SMEM = H_STAGES * (A_STAGE + X_STAGE) * 4;
};

/*
 * One block: output channels m0 .. m0 + BM - 1 at rows oh0 .. oh0 + H_TH -
 * 1, columns ow0 .. ow0 + H_TW - 1 of image z. Warps 2 (channels) x 4
 * (rows): warp (wm, wr) computes WM = BM / 2 channels of output row oh0 +
 * wr, its 32 columns as 4 n8 tiles. Positions outside y are computed from
 * the window's zeros and not stored.
 */
template <int BM, int R, int S, bool PAD, bool BIAS, class E>
static __device__ __forceinline__ void halo_block(const float *__restrict__ x, const float *__restrict__ w,
						  const float *__restrict__ cb, float *__restrict__ y,
						  const geo &q, int z, int m0, int oh0, int ow0, const E &e)
{
	typedef htile<BM, R, S> L;
	constexpr int WM = BM / 2, MT = WM / 16, NT = H_TW / 8, RS = L::RS;
	constexpr int XN = H_CK * L::HH * L::HW;	/* window elements a chunk */
	static_assert(BM % 32 == 0 && NT * 8 == H_TW && H_TH * 2 * 32 == NTH, "8 warps, 2 x 4");
	IG_DYN_SMEM(smem);
	float *sA = smem;
	float *sX = smem + H_STAGES * L::A_STAGE;

	const int tid = threadIdx.x;
	const int lane = tid & 31, warp = tid >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int wm0 = (warp >> 2) * WM, wr = warp & 3;

	const int KD = q.C * RS;
	const long HWin = (long)q.H * q.W;
	const float *xz = x + (long)z * q.C * HWin;
	const int ih0 = oh0 - q.ph, iw0 = ow0 - q.pw;
	const bool avec = (KD & 3) == 0 && (reinterpret_cast<unsigned long long>(w) & 15) == 0;

	auto load = [&](int ch, int st) {
		const int c0 = ch * H_CK, k0 = c0 * RS;
		float *a = sA + st * L::A_STAGE;
		if (avec) {
			for (int c = tid; c < BM * (L::KC / 4); c += NTH) {
				const int r = c / (L::KC / 4), cc = (c % (L::KC / 4)) * 4;
				const int gr = m0 + r, gc = k0 + cc;
				const bool ok = gr < q.K && gc < KD;
				cp16(a + r * L::A_LD + cc, ok ? w + (long)gr * KD + gc : w, ok);
			}
		} else {
			for (int c = tid; c < BM * L::KC; c += NTH) {
				const int r = c / L::KC, cc = c % L::KC;
				const int gr = m0 + r, gc = k0 + cc;
				const bool ok = gr < q.K && gc < KD;
				cp4(a + r * L::A_LD + cc, ok ? w + (long)gr * KD + gc : w, ok);
			}
		}
		float *xs = sX + st * L::X_STAGE;
		for (int i = tid; i < XN; i += NTH) {
			const int c = i / (L::HH * L::HW), rest = i - c * (L::HH * L::HW);
			const int row = rest / L::HW, col = rest - row * L::HW;
			const int ih = ih0 + row, iw = iw0 + col;
			bool ok = c0 + c < q.C;
			if (PAD)
				ok = ok && (unsigned)ih < (unsigned)q.H && (unsigned)iw < (unsigned)q.W;
			else
				ok = ok && ih < q.H && iw < q.W;
			cp4(xs + c * L::X_CS + row * L::HW + col,
			    ok ? xz + (c0 + c) * HWin + (long)ih * q.W + iw : xz, ok);
		}
	};

	float acc[MT][NT][4] = {};
	pipeline<H_STAGES>((q.C + H_CK - 1) / H_CK, load, [&](int st) {
		const float *a = sA + st * L::A_STAGE + (wm0 + g) * L::A_LD + t * RS;
		const float *xb = sX + st * L::X_STAGE + t * L::X_CS + wr * L::HW + g;
#pragma unroll
		for (int r = 0; r < R; r++) {
#pragma unroll
			for (int s = 0; s < S; s++) {
				unsigned bf[NT][2];
#pragma unroll
				for (int jj = 0; jj < NT; jj++) {
					const float *b = xb + r * L::HW + s + jj * 8;
					bf[jj][0] = tf32_round(b[0]);
					bf[jj][1] = tf32_round(b[4 * L::X_CS]);
				}
#pragma unroll
				for (int i = 0; i < MT; i++) {
					const float *ai = a + i * 16 * L::A_LD + r * S + s;
					const unsigned af[4] = { tf32_round(ai[0]), tf32_round(ai[8 * L::A_LD]),
								 tf32_round(ai[4 * RS]),
								 tf32_round(ai[8 * L::A_LD + 4 * RS]) };
#pragma unroll
					for (int jj = 0; jj < NT; jj++)
						mma_tf32(acc[i][jj], af, bf[jj]);
				}
			}
		}
	});

	/* Epilogue: as conv_block's, position p = oh OW + ow; pairs of columns
	 * stored as 8 bytes where OW is even (ow is even, so p is) */
	const int oh = oh0 + wr;
	if (oh >= q.OH)
		return;
	const int P = q.OH * q.OW;
	const bool pair = (q.OW & 1) == 0;
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
				const int ow = ow0 + jj * 8 + 2 * t, p = oh * q.OW + ow;
				store_pair(yz + (long)k * P + p, acc[i][jj][2 * h] + bias, acc[i][jj][2 * h + 1] + bias,
					   e, z, k, p, pair && ow + 1 < q.OW, ow < q.OW, ow + 1 < q.OW);
			}
		}
	}
}

/* The halo kernel's body: blockIdx.x over (channel tile, column tile, row
 * tile), channel tiles fastest; blockIdx.y over images as conv_entry. */
template <int BM, int R, int S, bool PAD, bool BIAS, class E>
static __device__ __forceinline__ void halo_entry(const float *__restrict__ x, const float *__restrict__ w,
						  const float *__restrict__ cb, float *__restrict__ y,
						  const geo &q, int nimg, const E &e)
{
	const int tm = (q.K + BM - 1) / BM, tw = (q.OW + H_TW - 1) / H_TW;
	const int m0 = (blockIdx.x % tm) * BM;
	const int ow0 = (blockIdx.x / tm % tw) * H_TW, oh0 = (blockIdx.x / tm / tw) * H_TH;
	for (int z = blockIdx.y; z < nimg; z += gridDim.y) {
		halo_block<BM, R, S, PAD, BIAS>(x, w, cb, y, q, z, m0, oh0, ow0, e);
		if (z + gridDim.y < nimg)
			__syncthreads();
	}
}

} /* namespace igemm */

/*
 * k0 (conv, implicit GEMM on the tensor cores: TF32 products, fp32 sums):
 * node 6 (conv), tiles of 128 output channels x 4 rows x 32 columns,
 * x read once a tile through its window (the halo form).
 * Its epilogue (k0_conv_epi):
 *   node 8 add
 *   node 10 gt
 *   node 11 exp
 *   node 12 log1p
 *   node 13 where
 *   node 14 tanh
 *   node 15 mul
 * writes t15.
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
		const float v3 = 2.000000000e+01f;
		const float v4 = ((float)((v2) > (v3)));
		const float v5 = expf(v2);
		const float v6 = log1pf(v5);
		const float v7 = ((v4) != 0.f ? (v2) : (v6));
		const float v8 = tanhf(v7);
		const float v9 = ((v8) * (v2));
		return v9;
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
	igemm::halo_entry<128, 3, 3, false, false>(x, w, cb, y, q, nimg, e);
}

/*
 * k2 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 16 sum.
 * Writes: t16.
 */
extern "C" __global__ void __launch_bounds__(256)
k2_row(long a0,
	long a1,
	const float *__restrict__ p_t15,
	float *__restrict__ p_t16)
{
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		/* pass 1 */
		double acc10 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w11 = *reinterpret_cast<const float4 *>(p_t15 + (rb + r));
				acc10 += (double)((w11.x + w11.y) + (w11.z + w11.w));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v12 = p_t15[(rb + r)];
					acc10 += (double)v12;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v13 = p_t15[(rb + r)];
					acc10 += (double)v13;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w14 = *reinterpret_cast<const float4 *>(p_t15 + (rb + r));
					acc10 += (double)((w14.x + w14.y) + (w14.z + w14.w));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v15 = p_t15[(rb + r)];
					const float v16 = p_t15[(rb + (r + 256))];
					const float v17 = p_t15[(rb + (r + 512))];
					const float v18 = p_t15[(rb + (r + 768))];
					acc10 += (double)((v15 + v16) + (v17 + v18));
				}
				for (; r < a1; r += 256) {
					const float v19 = p_t15[(rb + r)];
					acc10 += (double)v19;
				}
			}
		}
		const float r20 = (float)krl_block_sum(acc10);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_t16[o] = r20;
		}
	}
}

/*
 * k3 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 17 sum, 19 mul.
 * Writes: t19.
 */
extern "C" __global__ void __launch_bounds__(256)
k3_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t16,
	double c4,
	float *__restrict__ p_t19)
{
	__shared__ double krl_cd[8][33];
	const float v28 = (float)c4;
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
		double acc21 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v22 = p_t16[(rb + r * a2)];
				const float v23 = p_t16[(rb + (r + 8) * a2)];
				const float v24 = p_t16[(rb + (r + 16) * a2)];
				const float v25 = p_t16[(rb + (r + 24) * a2)];
				acc21 += (double)((v22 + v23) + (v24 + v25));
			}
			for (; r < a1; r += 8) {
				const float v26 = p_t16[(rb + r * a2)];
				acc21 += (double)v26;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc21;
		__syncthreads();
		acc21 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc21 += krl_cd[k][tx];
		const float r27 = (float)acc21;
		/* the outputs of the row shape */
		const float v29 = ((r27) * (v28));
		if (valid && ty == 0) {
			p_t19[(o * a2 + c)] = v29;
		}
	}
}

/*
 * k4 (row: a block per row, 256 threads, rows re-read, 1 pass): nodes 20 sub, 21 square, 22 sum.
 * Writes: t22.
 */
extern "C" __global__ void __launch_bounds__(256)
k4_row(long a0,
	long a1,
	const float *__restrict__ p_t15,
	long a3,
	const float *__restrict__ p_t19,
	float *__restrict__ p_t22)
{
	const int tid = threadIdx.x;
	const int lid = tid;
	/* float4 paths when rows start 16-byte aligned, or after a peeled head */
	const bool vec = a1 % 4 == 0;
	const bool peel = true;
	for (long o = blockIdx.x; o < a0; o += gridDim.x) {
		const long rb = o * a1;
		const float v32 = p_t19[(krl_mod(krl_div(rb, a1), a3))];
		/* pass 1 */
		double acc30 = 0.0;
		if (vec) {
			#pragma unroll 4
			for (long r = (long)lid * 4; r < a1; r += (long)256 * 4) {
				const float4 w31 = *reinterpret_cast<const float4 *>(p_t15 + (rb + r));
				const float v33 = ((w31.x) - (v32));
				const float v34 = ((v33) * (v33));
				const float v35 = ((w31.y) - (v32));
				const float v36 = ((v35) * (v35));
				const float v37 = ((w31.z) - (v32));
				const float v38 = ((v37) * (v37));
				const float v39 = ((w31.w) - (v32));
				const float v40 = ((v39) * (v39));
				acc30 += (double)((v34 + v36) + (v38 + v40));
			}
		} else if (peel) {
			{
				const long h = min((long)((4 - ((rb + 0) & 3)) & 3), a1 - 0);
				const long t = (a1 - 0 - h) & 3;
				if (lid < h) {
					const long r = 0 + lid;
					const float v41 = p_t15[(rb + r)];
					const float v42 = ((v41) - (v32));
					const float v43 = ((v42) * (v42));
					acc30 += (double)v43;
				}
				if (lid < t) {
					const long r = a1 - t + lid;
					const float v44 = p_t15[(rb + r)];
					const float v45 = ((v44) - (v32));
					const float v46 = ((v45) * (v45));
					acc30 += (double)v46;
				}
				#pragma unroll 4
				for (long r = h + (long)lid * 4; r < a1 - t; r += (long)256 * 4) {
					const float4 w47 = *reinterpret_cast<const float4 *>(p_t15 + (rb + r));
					const float v48 = ((w47.x) - (v32));
					const float v49 = ((v48) * (v48));
					const float v50 = ((w47.y) - (v32));
					const float v51 = ((v50) * (v50));
					const float v52 = ((w47.z) - (v32));
					const float v53 = ((v52) * (v52));
					const float v54 = ((w47.w) - (v32));
					const float v55 = ((v54) * (v54));
					acc30 += (double)((v49 + v51) + (v53 + v55));
				}
			}
		} else {
			{
				long r = lid;
				for (; r + 768 < a1; r += 1024) {
					const float v56 = p_t15[(rb + r)];
					const float v57 = ((v56) - (v32));
					const float v58 = ((v57) * (v57));
					const float v59 = p_t15[(rb + (r + 256))];
					const float v60 = ((v59) - (v32));
					const float v61 = ((v60) * (v60));
					const float v62 = p_t15[(rb + (r + 512))];
					const float v63 = ((v62) - (v32));
					const float v64 = ((v63) * (v63));
					const float v65 = p_t15[(rb + (r + 768))];
					const float v66 = ((v65) - (v32));
					const float v67 = ((v66) * (v66));
					acc30 += (double)((v58 + v61) + (v64 + v67));
				}
				for (; r < a1; r += 256) {
					const float v68 = p_t15[(rb + r)];
					const float v69 = ((v68) - (v32));
					const float v70 = ((v69) * (v69));
					acc30 += (double)v70;
				}
			}
		}
		const float r71 = (float)krl_block_sum(acc30);
		/* the outputs of the row shape */
		if (lid == 0) {
			p_t22[o] = r71;
		}
	}
}

/*
 * k5 (row over a middle axis: 32 columns x 8 rows of threads per block, 1 pass): nodes 23 sum, 25 mul, 27 add, 28 rsqrt.
 * Writes: t28.
 */
extern "C" __global__ void __launch_bounds__(256)
k5_col(long a0,
	long a1,
	long a2,
	const float *__restrict__ p_t22,
	double c4,
	double c5,
	float *__restrict__ p_t28)
{
	__shared__ double krl_cd[8][33];
	const float v79 = (float)c4;
	const float v81 = (float)c5;
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
		double acc72 = 0.0;
		{
			long r = ty;
			for (; r + 24 < a1; r += 32) {
				const float v73 = p_t22[(rb + r * a2)];
				const float v74 = p_t22[(rb + (r + 8) * a2)];
				const float v75 = p_t22[(rb + (r + 16) * a2)];
				const float v76 = p_t22[(rb + (r + 24) * a2)];
				acc72 += (double)((v73 + v74) + (v75 + v76));
			}
			for (; r < a1; r += 8) {
				const float v77 = p_t22[(rb + r * a2)];
				acc72 += (double)v77;
			}
		}
		__syncthreads(); /* the slots may still be read */
		krl_cd[ty][tx] = acc72;
		__syncthreads();
		acc72 = krl_cd[0][tx];
		for (int k = 1; k < 8; k++)
			acc72 += krl_cd[k][tx];
		const float r78 = (float)acc72;
		/* the outputs of the row shape */
		const float v80 = ((r78) * (v79));
		const float v82 = ((v80) + (v81));
		const float v83 = rsqrtf(v82);
		if (valid && ty == 0) {
			p_t28[(o * a2 + c)] = v83;
		}
	}
}

/*
 * k6 (map: 256 threads, 4-wide vectors, 1 per thread, cdiv grid): nodes 20 sub, 29 mul, 30 view, 31 view, 32 mul, 33 add.
 * Writes: y.
 */
extern "C" __global__ void __launch_bounds__(256)
k6_map(long a0,
	const float *__restrict__ p_t15,
	long a2,
	long a3,
	const float *__restrict__ p_t19,
	const float *__restrict__ p_t28,
	const float *__restrict__ p_bn_w,
	const float *__restrict__ p_bn_b,
	float *__restrict__ p_y)
{
	const int tid = threadIdx.x;
	const long nv = (a2 % 4 == 0) ? a0 / 4 : 0;
	for (long base = (long)blockIdx.x * 256; base < nv;
	     base += (long)gridDim.x * 256) {
		{
			const long s = base + tid;
			if (s < nv) {
				const long i = s * 4;
				const float4 w84 = *reinterpret_cast<const float4 *>(p_t15 + i);
				const float v85 = p_t19[(krl_mod(krl_div(i, a2), a3))];
				const float v86 = ((w84.x) - (v85));
				const float v87 = p_t28[(krl_mod(krl_div(i, a2), a3))];
				const float v88 = ((v86) * (v87));
				const float v89 = p_bn_w[(krl_mod(krl_div(i, a2), a3))];
				const float v90 = ((v88) * (v89));
				const float v91 = p_bn_b[(krl_mod(krl_div(i, a2), a3))];
				const float v92 = ((v90) + (v91));
				const float v93 = ((w84.y) - (v85));
				const float v94 = ((v93) * (v87));
				const float v95 = p_bn_w[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v96 = ((v94) * (v95));
				const float v97 = p_bn_b[(krl_mod(krl_div((i + 1), a2), a3))];
				const float v98 = ((v96) + (v97));
				const float v99 = ((w84.z) - (v85));
				const float v100 = ((v99) * (v87));
				const float v101 = p_bn_w[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v102 = ((v100) * (v101));
				const float v103 = p_bn_b[(krl_mod(krl_div((i + 2), a2), a3))];
				const float v104 = ((v102) + (v103));
				const float v105 = ((w84.w) - (v85));
				const float v106 = ((v105) * (v87));
				const float v107 = p_bn_w[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v108 = ((v106) * (v107));
				const float v109 = p_bn_b[(krl_mod(krl_div((i + 3), a2), a3))];
				const float v110 = ((v108) + (v109));
				*reinterpret_cast<float4 *>(p_y + i) = make_float4(v92, v98, v104, v110);
			}
		}
	}
	/* the tail, and everything when the vector path does not apply */
	for (long i = nv * 4 + (long)blockIdx.x * 256 + tid; i < a0;
	     i += (long)gridDim.x * 256) {
		const float v111 = p_t15[i];
		const float v112 = p_t19[(krl_mod(krl_div(i, a2), a3))];
		const float v113 = ((v111) - (v112));
		const float v114 = p_t28[(krl_mod(krl_div(i, a2), a3))];
		const float v115 = ((v113) * (v114));
		const float v116 = p_bn_w[(krl_mod(krl_div(i, a2), a3))];
		const float v117 = ((v115) * (v116));
		const float v118 = p_bn_b[(krl_mod(krl_div(i, a2), a3))];
		const float v119 = ((v117) + (v118));
		p_y[i] = v119;
	}
}

/*@plan
buffer t15 f32 [(batch_size), (out_channels), (oh), (ow)]
buffer t16 f32 [(batch_size), (out_channels), (1), (1)]
buffer t19 f32 [(1), (out_channels), (1), (1)]
buffer t22 f32 [(batch_size), (out_channels), (1), (1)]
buffer t28 f32 [(1), (out_channels), (1), (1)]
# k0: node 6 as the implicit-GEMM convolution
launch k0_conv grid=(cdiv((out_channels), 128) * cdiv((ow), 32) * cdiv((oh), 4), min((batch_size), 65535)) block=(256) \
    smem=91648 args(x, w, x, t15, (batch_size), (in_channels), 1, (height), (width), (out_channels), 1, (oh), (ow), 1, 1, 1, 0, 0, 0, 1, 1, 1, b)
launch k2_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (oh) * (ow),
    t15,
    t16)
launch k3_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t16,
    (1.0 / (batch_size * (oh * ow))),
    t19)
launch k4_row grid=(min((batch_size) * (out_channels), sm_count * 32)) block=(256) args((batch_size) * (out_channels),
    (oh) * (ow),
    t15,
    (out_channels),
    t19,
    t22)
launch k5_col grid=(min((1) * cdiv((out_channels), 32), sm_count * 32)) block=(32, 8) args(1,
    (batch_size),
    (out_channels),
    t22,
    (1.0 / (batch_size * (oh * ow))),
    (eps),
    t28)
launch k6_map grid=(cdiv((batch_size) * (out_channels) * (oh) * (ow), 1024)) block=(256) args((batch_size) * (out_channels) * (oh) * (ow),
    t15,
    (oh) * (ow),
    (out_channels),
    t19,
    t28,
    bn_w,
    bn_b,
    y)
@*/
