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
 * NCHW: no layout change on either side; an image of y holds YK >= K
 * channels, so y may be a slice of a cat along the channels (the cat
 * written in place, src/opt/cgcat.c). The epilogue e(v, z, k, p) is
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
	int YK;		/* channels of an image of y: K, or the channels of
			   the cat whose slice y is (y then points at the
			   slice's first channel of image 0) */
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
 * chunks; the gather form's over its position tiles' k-tiles in turn) in
 * STG stages: load(i, stage) issues step i's copies into a stage, step(i,
 * stage) computes on one whose copies have landed. Loads are issued in
 * the order of i. */
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
		step(i, i % STG);
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

/* Reductions in an epilogue (halo_red_entry over the output channels,
 * conv_red_entry over the positions): OP RED_SUM, RED_MIN or RED_MAX; min
 * and max are the helpers' krl_minf and krl_maxf (they propagate NaN, as
 * torch's do; codegen_conv.c asks for them with the body). */
constexpr int RED_SUM = 0, RED_MIN = 1, RED_MAX = 2;

template <int OP>
static __device__ __forceinline__ float red_id()
{
	return OP == RED_SUM ? 0.f : OP == RED_MIN ? INFINITY : -INFINITY;
}

template <int OP>
static __device__ __forceinline__ float red_comb(float a, float b)
{
	return OP == RED_SUM ? a + b : OP == RED_MIN ? krl_minf(a, b) : krl_maxf(a, b);
}

/*
 * One block: output channels m0 .. m0 + BM - 1 at the positions of U
 * position tiles of BN of image z, tiles tile0 .. tile0 + U - 1 (those in
 * the image), one after another through one pipeline: the k-tiles of the
 * next tile load while this one's last are multiplied and its outputs
 * stored, so a short K (87's 72 taps: 3 k-tiles) does not leave every
 * tile's gather exposed. Warps tile a (BM, BN) tile WM x WN; lane (g =
 * lane / 4, t = lane % 4) holds the m16n8k8 fragments: A (g, t), (g + 8,
 * t), (g, t + 4), (g + 8, t + 4); B (t, g), (t + 4, g); C (g, 2t), (g, 2t
 * + 1), (g + 8, 2t), (g + 8, 2t + 1). The sum over a k8 step does not
 * depend on which k each slot holds as long as A and B agree, so slot t
 * holds k = 2t and slot t + 4 holds k = 2t + 1: a lane reads its two A
 * values with one 8-byte load.
 */
template <int BM, int BN, int WM, int WN, int T, int R, int S, bool PAD, bool BIAS, int U, class E,
	  int OP = -1>
static __device__ __forceinline__ void conv_block(const float *__restrict__ x, const float *__restrict__ w,
						  const float *__restrict__ cb, float *__restrict__ y,
						  const geo &q, int z, int m0, int tile0, const E &e,
						  int blk = 0, int nblk = 0)
{
	typedef tile<BM, BN> L;
	constexpr int MT = WM / 16, NT = WN / 8;
	constexpr int RS = R * S, TRS = T * RS;
	constexpr int ROWS = NTH / BN;		/* B rows a pass of the block fills */
	static_assert((BM / WM) * (BN / WN) * 32 == NTH, "8 warps");
	static_assert(NTH % BN == 0 && BN % 32 == 0 && BK % ROWS == 0 && BK / ROWS <= 32,
		      "B tile split: a warp's lanes in one row");
	static_assert(U >= 1, "a tile at least");
	IG_DYN_SMEM(smem);
	float *sA = smem;
	float *sB = smem + STAGES * L::A_STAGE;

	const int tid = threadIdx.x;
	const int lane = tid & 31, warp = tid >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int wm0 = (warp / (BN / WN)) * WM;
	const int wn0 = (warp % (BN / WN)) * WN;

	const int P = q.OD * q.OH * q.OW, KD = q.C * TRS;
	const int KT = (KD + BK - 1) / BK;
	const int nu = min(U, (P + BN - 1) / BN - tile0);	/* tiles this block walks */
	const long DHW = (long)q.D * q.H * q.W;
	const float *xz = x + (long)z * q.C * DHW;

	/* this thread's column of B in tile u: position (tile0 + u) BN + j,
	 * where its taps start (they may lie outside x with padding: used
	 * only where a tap's bounds check passes). The loads run through the
	 * tiles in order, so the column is worked out once a tile. */
	const int j = tid % BN, jrow = tid / BN;
	int cu = -1, i0d = 0, i0h = 0, i0w = 0;
	bool pv = false;
	const float *xp = xz;
	auto column = [&](int u) {
		if (u == cu)
			return;
		cu = u;
		const int p = (tile0 + u) * BN + j;
		pv = p < P;
		int od = 0, oh = 0, ow = 0;
		if (pv) {
			ow = p % q.OW;
			const int r2 = p / q.OW;
			oh = r2 % q.OH;
			od = r2 / q.OH;
		}
		i0d = od * q.sd - q.pd, i0h = oh * q.sh - q.ph, i0w = ow * q.sw - q.pw;
		xp = xz + (((long)i0d * q.H + i0h) * q.W + i0w);
	};

	/* A's copies: 16 bytes where every row of w is (KD % 4 == 0, aligned) */
	const bool avec = (KD & 3) == 0 && (reinterpret_cast<unsigned long long>(w) & 15) == 0;

	auto load = [&](int s, int st) {
		const int u = U == 1 ? 0 : s / KT;
		const int k0 = (s - u * KT) * BK;
		column(u);
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

	/* Epilogue of tile u: each element through e, pairs of positions
	 * stored as 8 bytes where P is even (then every pair is aligned). */
	const bool pair = (P & 1) == 0;
	float *yz = y + (long)z * q.YK * P;
	float acc[MT][NT][4] = {};
	/* OP >= 0: the reduction over the block's positions of each row, a
	 * thread's columns folded here (then its lanes', warps', below); O
	 * names a valid op where OP < 0 leaves this code unused */
	constexpr int O = OP < 0 ? RED_SUM : OP;
	float rs[MT][2];
#pragma unroll
	for (int i = 0; i < MT; i++)
		rs[i][0] = rs[i][1] = red_id<O>();
	auto store_tile = [&](int u) {
		const int n0 = (tile0 + u) * BN;
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
					if (OP >= 0) {
						/* e only at positions in y */
						if (col < P)
							rs[i][h] = red_comb<O>(rs[i][h], e(acc[i][jj][2 * h] + bias, z, k, col));
						if (col + 1 < P)
							rs[i][h] = red_comb<O>(rs[i][h],
									       e(acc[i][jj][2 * h + 1] + bias, z, k, col + 1));
						continue;
					}
					store_pair(yz + (long)k * P + col, acc[i][jj][2 * h] + bias,
						   acc[i][jj][2 * h + 1] + bias, e, z, k, col,
						   pair && col + 1 < P, col < P, col + 1 < P);
				}
			}
		}
	};

	pipeline<STAGES>(nu * KT, load, [&](int s, int st) {
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
		/* a tile's last k-tile: its outputs stored, the sums cleared
		 * for the next (registers only: the stages are not touched) */
		const int u = U == 1 ? 0 : s / KT;
		if (s - u * KT == KT - 1) {
			store_tile(u);
			if (U > 1) {
#pragma unroll
				for (int i = 0; i < MT; i++)
#pragma unroll
					for (int jj = 0; jj < NT; jj++)
#pragma unroll
						for (int c = 0; c < 4; c++)
							acc[i][jj][c] = 0.f;
			}
		}
	});
	if (OP < 0)
		return;
	/* the reduction: the 4 lanes of a row (t), then the block's warps
	 * along the positions through the stages' memory (the copies have
	 * landed: pipeline waits for them all), into y = the partials
	 * [nimg][nblk][K] at (z, blk) */
	constexpr int NWN = BN / WN;
#pragma unroll
	for (int i = 0; i < MT; i++)
#pragma unroll
		for (int h = 0; h < 2; h++) {
			rs[i][h] = red_comb<O>(rs[i][h], __shfl_xor_sync(0xffffffffu, rs[i][h], 1));
			rs[i][h] = red_comb<O>(rs[i][h], __shfl_xor_sync(0xffffffffu, rs[i][h], 2));
		}
	__syncthreads();
	float *red = smem;	/* [NWN][BM] */
	if (t == 0)
#pragma unroll
		for (int i = 0; i < MT; i++)
#pragma unroll
			for (int h = 0; h < 2; h++)
				red[(wn0 / WN) * BM + wm0 + i * 16 + g + 8 * h] = rs[i][h];
	__syncthreads();
	for (int m = tid; m < BM; m += NTH) {
		if (m0 + m >= q.K)
			continue;
		float v = red[m];
#pragma unroll
		for (int c = 1; c < NWN; c++)
			v = red_comb<O>(v, red[c * BM + m]);
		y[((long)z * nblk + blk) * q.K + m0 + m] = v;
	}
}

/* The kernel body: blockIdx.x over (channel tile, U position tiles), the
 * channel tiles fastest (the blocks of one position tile read the same x);
 * blockIdx.y over images (striding past 65535). */
template <int BM, int BN, int WM, int WN, int T, int R, int S, bool PAD, bool BIAS, int U, class E>
static __device__ __forceinline__ void conv_entry(const float *__restrict__ x, const float *__restrict__ w,
						  const float *__restrict__ cb, float *__restrict__ y,
						  const geo &q, int nimg, const E &e)
{
	const int tm = (q.K + BM - 1) / BM;
	const int m0 = (blockIdx.x % tm) * BM, tile0 = (blockIdx.x / tm) * U;
	for (int z = blockIdx.y; z < nimg; z += gridDim.y) {
		conv_block<BM, BN, WM, WN, T, R, S, PAD, BIAS, U>(x, w, cb, y, q, z, m0, tile0, e);
		if (z + gridDim.y < nimg)
			__syncthreads(); /* the next image refills the stages */
	}
}


/* conv_entry with a reduction over the positions in the epilogue
 * (src/opt/codegen_conv.c, cg_conv_red): each block writes
 * the OP over its positions of e(y[z, k, p], z, k, p) for its channels
 * into part [nimg][nblk][K] (nblk = the grid's position blocks, blk its
 * own), y never formed; red_finish folds the blocks. Deterministic: no
 * atomics, the same order every call. */
template <int BM, int BN, int WM, int WN, int T, int R, int S, bool PAD, bool BIAS, int U, int OP, class E>
static __device__ __forceinline__ void conv_red_entry(const float *__restrict__ x, const float *__restrict__ w,
						      const float *__restrict__ cb, float *__restrict__ part,
						      const geo &q, int nimg, const E &e)
{
	const int tm = (q.K + BM - 1) / BM;
	const int P = q.OD * q.OH * q.OW;
	const int nblk = ((P + BN - 1) / BN + U - 1) / U;
	const int m0 = (blockIdx.x % tm) * BM, blk = blockIdx.x / tm, tile0 = blk * U;
	for (int z = blockIdx.y; z < nimg; z += gridDim.y) {
		conv_block<BM, BN, WM, WN, T, R, S, PAD, BIAS, U, E, OP>(x, w, cb, part, q, z, m0, tile0, e,
									 blk, nblk);
		if (z + gridDim.y < nimg)
			__syncthreads();
	}
}

/* r[z, k] = the OP over b of part[z][b][k]: thread i of the grid takes
 * (z, k) = (i / K, i % K). */
template <int OP>
static __device__ __forceinline__ void red_finish(const float *__restrict__ part, float *__restrict__ r,
						  int nimg, int nblk, int K)
{
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (long)nimg * K)
		return;
	const long z = i / K, k = i - z * K;
	const float *pz = part + z * nblk * K + k;
	float v = red_id<OP>();
	for (int b = 0; b < nblk; b++)
		v = red_comb<OP>(v, pz[(long)b * K]);
	r[i] = v;
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
 * The sums of one block's tile: output channels m0 .. m0 + BM - 1 at rows
 * oh0 .. oh0 + H_TH - 1, columns ow0 .. ow0 + H_TW - 1 of image z, into acc
 * (cleared by the caller). Warps 2 (channels) x 4 (rows): warp (wm, wr)
 * computes WM = BM / 2 channels of output row oh0 + wr, its 32 columns as 4
 * n8 tiles. Positions outside y are computed from the window's zeros. The
 * stages are left as the last chunk's: a caller that runs it again
 * synchronises the block first.
 */
template <int BM, int R, int S, bool PAD>
static __device__ __forceinline__ void halo_acc(const float *__restrict__ x, const float *__restrict__ w,
						const geo &q, int z, int m0, int oh0, int ow0,
						float (&acc)[BM / 32][H_TW / 8][4])
{
	typedef htile<BM, R, S> L;
	constexpr int WM = BM / 2, NT = H_TW / 8, RS = L::RS;
	constexpr int MT = WM / 16;
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

	pipeline<H_STAGES>((q.C + H_CK - 1) / H_CK, load, [&](int, int st) {
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
}

/*
 * One block: halo_acc's tile, stored through the epilogue. Positions
 * outside y are not stored.
 */
template <int BM, int R, int S, bool PAD, bool BIAS, class E>
static __device__ __forceinline__ void halo_block(const float *__restrict__ x, const float *__restrict__ w,
						  const float *__restrict__ cb, float *__restrict__ y,
						  const geo &q, int z, int m0, int oh0, int ow0, const E &e)
{
	constexpr int WM = BM / 2, MT = WM / 16, NT = H_TW / 8;
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int wm0 = (warp >> 2) * WM, wr = warp & 3;
	float acc[MT][NT][4] = {};
	halo_acc<BM, R, S, PAD>(x, w, q, z, m0, oh0, ow0, acc);

	/* Epilogue: as conv_block's, position p = oh OW + ow; pairs of columns
	 * stored as 8 bytes where OW is even (ow is even, so p is) */
	const int oh = oh0 + wr;
	if (oh >= q.OH)
		return;
	const int P = q.OH * q.OW;
	const bool pair = (q.OW & 1) == 0;
	float *yz = y + (long)z * q.YK * P;
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

/*
 * A reduction over the output channels in the halo form's epilogue
 * (src/opt/codegen_conv.c, cg_conv_red): r[z, p] = the OP over
 * k of e(y[z, k, p], z, k, p), written to r [N, P] instead of y (never
 * formed). OP: RED_SUM, RED_MIN, RED_MAX (min and max propagate NaN, as
 * torch's do). A block takes every channel tile of its rows x columns in
 * turn (the grid has no channel tiles), so the reduction ends in it: a
 * thread folds its channels, the 8 lanes that share a column fold theirs
 * by shuffles, the two warps of a row through shared memory.
 */
template <int BM, int R, int S, bool PAD, bool BIAS, int OP, class E>
static __device__ __forceinline__ void halo_red_block(const float *__restrict__ x, const float *__restrict__ w,
						      const float *__restrict__ cb, float *__restrict__ r,
						      const geo &q, int z, int oh0, int ow0, const E &e)
{
	constexpr int WM = BM / 2, MT = WM / 16, NT = H_TW / 8;
	__shared__ float part[H_TH][H_TW];
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int wm0 = (warp >> 2) * WM, wr = warp & 3;
	const int oh = oh0 + wr;
	const bool rowok = oh < q.OH;
	float rv[NT][2];
#pragma unroll
	for (int jj = 0; jj < NT; jj++)
		rv[jj][0] = rv[jj][1] = red_id<OP>();
	for (int m0 = 0; m0 < q.K; m0 += BM) {
		if (m0)
			__syncthreads(); /* the stages may still be read */
		float acc[MT][NT][4] = {};
		halo_acc<BM, R, S, PAD>(x, w, q, z, m0, oh0, ow0, acc);
#pragma unroll
		for (int i = 0; i < MT; i++) {
#pragma unroll
			for (int h = 0; h < 2; h++) {
				const int k = m0 + wm0 + i * 16 + g + 8 * h;
				if (k >= q.K || !rowok)
					continue;
				const float bias = BIAS ? cb[k] : 0.f;
#pragma unroll
				for (int jj = 0; jj < NT; jj++) {
					const int ow = ow0 + jj * 8 + 2 * t, p = oh * q.OW + ow;
					/* e only at positions in y (it may load per position) */
					if (ow < q.OW)
						rv[jj][0] = red_comb<OP>(rv[jj][0], e(acc[i][jj][2 * h] + bias, z, k, p));
					if (ow + 1 < q.OW)
						rv[jj][1] = red_comb<OP>(rv[jj][1], e(acc[i][jj][2 * h + 1] + bias, z, k, p + 1));
				}
			}
		}
	}
	/* the 8 lanes of a column (g), then the row's two warps */
#pragma unroll
	for (int jj = 0; jj < NT; jj++)
#pragma unroll
		for (int c = 0; c < 2; c++)
#pragma unroll
			for (int m = 4; m < 32; m <<= 1)
				rv[jj][c] = red_comb<OP>(rv[jj][c], __shfl_xor_sync(0xffffffffu, rv[jj][c], m));
	if (wm0 && g == 0)
#pragma unroll
		for (int jj = 0; jj < NT; jj++) {
			part[wr][jj * 8 + 2 * t] = rv[jj][0];
			part[wr][jj * 8 + 2 * t + 1] = rv[jj][1];
		}
	__syncthreads();
	if (!wm0 && g == 0 && rowok) {
		const long P = (long)q.OH * q.OW;
		float *rz = r + (long)z * P + (long)oh * q.OW;
#pragma unroll
		for (int jj = 0; jj < NT; jj++) {
			const int ow = ow0 + jj * 8 + 2 * t;
			if (ow < q.OW)
				rz[ow] = red_comb<OP>(rv[jj][0], part[wr][jj * 8 + 2 * t]);
			if (ow + 1 < q.OW)
				rz[ow + 1] = red_comb<OP>(rv[jj][1], part[wr][jj * 8 + 2 * t + 1]);
		}
	}
}

/* Its kernel body: blockIdx.x over (column tile, row tile), blockIdx.y
 * over images as halo_entry. */
template <int BM, int R, int S, bool PAD, bool BIAS, int OP, class E>
static __device__ __forceinline__ void halo_red_entry(const float *__restrict__ x, const float *__restrict__ w,
						      const float *__restrict__ cb, float *__restrict__ r,
						      const geo &q, int nimg, const E &e)
{
	const int tw = (q.OW + H_TW - 1) / H_TW;
	const int ow0 = (blockIdx.x % tw) * H_TW, oh0 = (blockIdx.x / tw) * H_TH;
	for (int z = blockIdx.y; z < nimg; z += gridDim.y) {
		halo_red_block<BM, R, S, PAD, BIAS, OP>(x, w, cb, r, q, z, oh0, ow0, e);
		if (z + gridDim.y < nimg)
			__syncthreads();
	}
}

/*
 * The Hopper form of the halo convolution (wgmma: TF32 products from shared
 * memory, the warpgroup's MMA; conv.impl=wgmma), for the geometry of
 * halo_block (2-d, stride 1, dilation 1) over 8 input channels or more,
 * with 17 output channels or more. TF32's
 * wgmma takes both operands K-major from shared memory, so the k order of
 * a chunk is again (tap, channel), but the stages hold the layout the
 * tensor cores read, without swizzle: "core matrices" of 8 rows x 4 k
 * (16 bytes a row, 128 contiguous bytes), a k8 step two of them.
 *
 * - A, the weights: packed once per param draw (wpack, called by the
 *   candidate's init) so that the stage of (channel tile, chunk of 8 input
 *   channels) is one contiguous block: cell (tap, channel half h, row m) of
 *   16 bytes at ((tap 2 + h) BM + m) 16, channels 4 h .. 4 h + 3 of the
 *   chunk in it, rounded to TF32 there (cvt.rna, as the other forms do);
 *   rows past K and channels past C are zeros. A stage's copy is 16-byte
 *   cp.async, coalesced, conflict-free.
 * - B, x's window: channels-last within the chunk, cell (h, window row,
 *   window column) at ((h HH + row) HW + col) 16. An output row's 128
 *   positions at tap (r, s) are the window's cells (row + r, s .. s + 127):
 *   consecutive 16-byte cells, so B of every tap is a descriptor into the
 *   one window (start at the tap's shift, 128 bytes between groups of 8
 *   positions, HH HW 16 bytes between the channel halves). x is copied 4
 *   bytes at a time, a warp's lanes 8 columns x 4 channels (128 contiguous
 *   bytes of the stage, 4 32-byte runs of x), and once landed each thread
 *   rounds the elements it copied to TF32 in place (wgmma would drop their
 *   low 13 bits: a bias toward zero).
 *
 * A block: BM (64 or 128) output channels x TH rows x 128 columns of one
 * image; two warpgroups, each 64 channels x 2 rows (BM 128: TH 2, the
 * warpgroups split the channels; BM 64: TH 4, they split the rows): per
 * chunk and tap, a warpgroup issues one m64n128k8 per row into that row's
 * 64 accumulators. W_STAGES stages, the copies two chunks ahead, one
 * chunk's MMAs left in flight (the stage a refill takes was read two
 * chunks ago). Accumulators as the 3xTF32 GEMM's Hopper form: warp w of
 * the warpgroup holds channels 16 w .. 16 w + 15 of its 64; for each n8
 * block j, lane (g, t) holds (g, 8 j + 2 t), (g, 8 j + 2 t + 1), (g + 8,
 * 8 j + 2 t), (g + 8, 8 j + 2 t + 1) in acc[4 j .. 4 j + 3].
 *
 * Without sm_90a (the CPU stand-in, other GPUs), or with KRL_CONV_WG 0,
 * the same stages feed m16n8k8 mma.sync fragments into the same
 * accumulators: the packing, the window, the pipeline and the epilogue
 * are the same code.
 */
#ifndef KRL_CONV_WG
#define KRL_CONV_WG 1
#endif
constexpr int W_CK = 8;		/* input channels a chunk: one k8 step a tap */
constexpr int W_NW = 128;	/* output columns a block: one MMA's N */
constexpr int W_STAGES = 4;

template <int BM, int R, int S>
struct wtile {
	static constexpr int RS = R * S;
	static constexpr int TH = BM == 128 ? 2 : 4;	/* output rows a block */
	static constexpr int HH = TH + R - 1, HW = W_NW + S - 1;
	static constexpr int A_STAGE = RS * W_CK * BM;	/* floats */
	static constexpr int X_STAGE = W_CK * HH * HW;
	static constexpr int STAGE = A_STAGE + X_STAGE;
	static constexpr int SMEM = W_STAGES * STAGE * 4;
};

/* Element i of the packed weight wp [cdiv(K, BM)][cdiv(C, 8)][RS][2][BM][4]
 * from w [K][C][RS]. */
template <int BM, int RS>
static __device__ __forceinline__ void wpack(const float *__restrict__ w, float *__restrict__ wp, int K,
					     int C, long i)
{
	const int c4 = (int)(i & 3);
	long r = i >> 2;
	const int m = (int)(r % BM);
	r /= BM;
	const int h = (int)(r & 1);
	r >>= 1;
	const int tap = (int)(r % RS);
	r /= RS;
	const int nch = (C + W_CK - 1) / W_CK;
	const int ch = (int)(r % nch);
	const long k = (r / nch) * BM + m;
	const int c = ch * W_CK + h * 4 + c4;
	wp[i] = k < K && c < C ? __uint_as_float(tf32_round(w[(k * C + c) * RS + tap])) : 0.f;
}

#if KRL_CONV_WG && defined(__CUDA_ARCH_FEAT_SM90_ALL) && !defined(KRL_CUDASIM_H)
#define IG_WGMMA 1
/* A no-swizzle K-major descriptor: start, lbo bytes between the two core
 * matrices of a k8 step (along K), 128 bytes between groups of 8 rows. */
static __device__ __forceinline__ unsigned long long wdesc(unsigned addr, unsigned lbo)
{
	return (unsigned long long)((addr & 0x3ffffu) >> 4) | ((unsigned long long)(lbo >> 4) << 16) |
	       (8ull << 32);
}

static __device__ __forceinline__ void wmma(float *d, unsigned long long da, unsigned long long db)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
		     "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
		     "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1;\n}\n"
		     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
		       "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
		       "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
		       "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
		       "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
		       "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
		       "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
		       "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
		     : "l"(da), "l"(db), "n"(1));
}
#endif

/* The stages' landed copies made visible to the tensor cores' reads (the
 * generic proxy's writes to the async proxy's), before the barrier. */
static __device__ __forceinline__ void w_fence_smem()
{
#ifdef IG_WGMMA
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

/*
 * One block: output channels mt BM .. mt BM + BM - 1 at rows oh0 .. oh0 +
 * U TH - 1 (U row tiles of TH, those in y, one after another), columns
 * ow0 .. ow0 + 127 of image z, from the packed weight wp. Positions
 * outside y are computed from the window's zeros, not stored.
 */
template <int BM, int R, int S, bool PAD, bool BIAS, int U, class E>
static __device__ __forceinline__ void wgh_block(const float *__restrict__ x, const float *__restrict__ wp,
						 const float *__restrict__ cb, float *__restrict__ y,
						 const geo &q, int z, int mt, int oh0, int ow0, const E &e)
{
	typedef wtile<BM, R, S> L;
	constexpr int HH = L::HH, HW = L::HW;
	constexpr int MG = BM / 64;		/* the warpgroups' channel groups */
	constexpr int CB = (HW + 7) / 8;	/* 8-column blocks of a window row */
	static_assert(BM == 64 || BM == 128, "one or two 64-channel groups");
	static_assert(L::SMEM <= 227 * 1024, "the stages fit a block's shared memory");
	IG_DYN_SMEM(smem);
	const int tid = threadIdx.x, lane = tid & 31, wg = tid >> 7;
	const int mg = wg % MG, rb = (wg / MG) * 2;	/* channel group, first row */
	const int nch = (q.C + W_CK - 1) / W_CK;
	const long HWin = (long)q.H * q.W;
	const float *xz = x + (long)z * q.C * HWin;
	const float *wt = wp + (long)mt * nch * L::A_STAGE;
	const int iw0 = ow0 - q.pw;
	const int nu = min(U, (q.OH - oh0 + L::TH - 1) / L::TH);	/* row tiles in y */
	const int n = nu * nch;

	/* window slot sl of this warp (sl from tid / 32, NTH / 32 apart): its
	 * cells (half and row hr, column col) for this lane, column lane / 4
	 * of an 8-column block; 0 past the window's columns */
	auto wslot = [&](int sl, int &hr, int &col) {
		hr = sl / CB;
		col = (sl % CB) * 8 + (lane >> 2);
		return col < HW;
	};

	auto load = [&](int sidx, int st) {
		const int u = U == 1 ? 0 : sidx / nch, ch = sidx - u * nch;
		const int ih0 = oh0 + u * L::TH - q.ph;
		float *a = smem + st * L::STAGE;
		const float *src = wt + (long)ch * L::A_STAGE;
		for (int i = tid * 4; i < L::A_STAGE; i += NTH * 4)
			cp16(a + i, src + i, true);
		/* the window: warp slots (half, row, 8-column block), a lane's
		 * column lane / 4 of the block and channel lane % 4 of the half */
		float *xs = a + L::A_STAGE;
		const int c0 = ch * W_CK + (lane & 3);
		for (int sl = tid >> 5; sl < 2 * HH * CB; sl += NTH / 32) {
			int hr, col;
			if (!wslot(sl, hr, col))
				continue;
			const int row = hr % HH, h = hr / HH, c = c0 + h * 4;
			const int ih = ih0 + row, iw = iw0 + col;
			bool ok = c < q.C;
			if (PAD)
				ok = ok && (unsigned)ih < (unsigned)q.H && (unsigned)iw < (unsigned)q.W;
			else
				ok = ok && ih < q.H && iw < q.W;
			cp4(xs + ((hr * HW + col) << 2) + (lane & 3), ok ? xz + c * HWin + (long)ih * q.W + iw : xz,
			    ok);
		}
	};

	/* the window's elements this thread copied into stage st, once
	 * landed, rounded to TF32 in place (cvt.rna's rule, as the other forms
	 * round x): the tensor cores would drop their low 13 bits, a bias
	 * that a mean over many outputs accumulates (level 2's 67) */
	auto round_window = [&](int st) {
		float *xs = smem + st * L::STAGE + L::A_STAGE;
		for (int sl = tid >> 5; sl < 2 * HH * CB; sl += NTH / 32) {
			int hr, col;
			if (wslot(sl, hr, col)) {
				float *p = xs + ((hr * HW + col) << 2) + (lane & 3);
				*p = __uint_as_float(tf32_round(*p));
			}
		}
	};

	float acc[2][64];
#pragma unroll
	for (int r2 = 0; r2 < 2; r2++)
#pragma unroll
		for (int i = 0; i < 64; i++)
			acc[r2][i] = 0.f;

	/* row tile u's outputs through the epilogue, its sums cleared */
	const int w4 = (tid >> 5) & 3, g = lane >> 2, t = lane & 3;
	const int P = q.OH * q.OW;
	const bool pair = (q.OW & 1) == 0;
	float *yz = y + (long)z * q.YK * P;
	auto store_tile = [&](int u) {
#pragma unroll
		for (int r2 = 0; r2 < 2; r2++) {
			const int oh = oh0 + u * L::TH + rb + r2;
#pragma unroll
			for (int h = 0; h < 2; h++) {
				const int k = mt * BM + mg * 64 + w4 * 16 + g + 8 * h;
				if (oh >= q.OH || k >= q.K)
					continue;
				const float bias = BIAS ? cb[k] : 0.f;
#pragma unroll
				for (int j = 0; j < 16; j++) {
					const int ow = ow0 + j * 8 + 2 * t, p = oh * q.OW + ow;
					store_pair(yz + (long)k * P + p, acc[r2][4 * j + 2 * h] + bias,
						   acc[r2][4 * j + 2 * h + 1] + bias, e, z, k, p,
						   pair && ow + 1 < q.OW, ow < q.OW, ow + 1 < q.OW);
				}
			}
#pragma unroll
			for (int i = 0; i < 64; i++)
				acc[r2][i] = 0.f;
		}
	};

	/* chunk i's copies are group i, issued at iteration i - 2 into stage
	 * i % W_STAGES, which chunk i - 4 had: its MMAs, issued at iteration
	 * i - 4, were waited for (wait_group 1) at the end of iteration i - 3,
	 * before iteration i - 2's barrier */
#pragma unroll
	for (int s = 0; s < W_STAGES - 2; s++) {
		if (s < n)
			load(s, s);
		commit();
	}
	for (int i = 0; i < n; i++) {
		const int st = i % W_STAGES;
		wait<W_STAGES - 3>();
		round_window(st);
		w_fence_smem();
		__syncthreads();
		if (i + W_STAGES - 2 < n)
			load(i + W_STAGES - 2, (i + W_STAGES - 2) % W_STAGES);
		commit();
		const float *a = smem + st * L::STAGE + mg * 64 * 4;
		const float *xs = smem + st * L::STAGE + L::A_STAGE + rb * HW * 4;
#ifdef IG_WGMMA
		const unsigned sa = (unsigned)__cvta_generic_to_shared(a);
		const unsigned sx = (unsigned)__cvta_generic_to_shared(xs);
		asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
		for (int r = 0; r < R; r++)
#pragma unroll
			for (int s = 0; s < S; s++) {
				const unsigned long long da = wdesc(sa + (r * S + s) * 2 * BM * 16, BM * 16);
#pragma unroll
				for (int r2 = 0; r2 < 2; r2++)
					wmma(acc[r2], da, wdesc(sx + ((r2 + r) * HW + s) * 16, HH * HW * 16));
			}
		asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
		asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
#else
		/* warp w4 of the warpgroup: channels 16 w4 + g (+ 8) of its
		 * 64; slots t and t + 4 of a k8 step are the two halves'
		 * channel t */
#pragma unroll
		for (int r = 0; r < R; r++)
#pragma unroll
			for (int s = 0; s < S; s++) {
				const float *at = a + ((r * S + s) * 2 * BM + w4 * 16 + g) * 4 + t;
				const unsigned af[4] = { __float_as_uint(at[0]), __float_as_uint(at[32]),
							 __float_as_uint(at[BM * 4]), __float_as_uint(at[BM * 4 + 32]) };
#pragma unroll
				for (int r2 = 0; r2 < 2; r2++) {
					const float *b = xs + (((r2 + r) * HW + s + g) << 2) + t;
#pragma unroll
					for (int j = 0; j < 16; j++) {
						const unsigned bf[2] = { __float_as_uint(b[j * 32]),
									 __float_as_uint(b[j * 32 + HH * HW * 4]) };
						mma_tf32(&acc[r2][4 * j], af, bf);
					}
				}
			}
#endif
		/* a row tile's last chunk: its MMAs done, its outputs stored
		 * (registers only: the stages are not touched) */
		const int u = U == 1 ? 0 : i / nch;
		if (i - u * nch == nch - 1) {
#ifdef IG_WGMMA
			asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
			/* no read of the sums moves above the wait */
#pragma unroll
			for (int r2 = 0; r2 < 2; r2++)
#pragma unroll
				for (int c = 0; c < 64; c++)
					asm volatile("" : "+f"(acc[r2][c]) :: "memory");
#endif
			store_tile(u);
		}
	}
	wait<0>();
}

/* The Hopper halo kernel's body: blockIdx.x over (channel tile, column
 * tile, row block of U row tiles), channel tiles fastest; blockIdx.y over
 * images. A block walks its U row tiles through one pipeline (the next
 * tile's chunks load while this one's last are multiplied): with few
 * input channels (8: one chunk a tile) the pipeline runs over the tiles. */
template <int BM, int R, int S, bool PAD, bool BIAS, int U, class E>
static __device__ __forceinline__ void wgh_entry(const float *__restrict__ x, const float *__restrict__ wp,
						 const float *__restrict__ cb, float *__restrict__ y,
						 const geo &q, int nimg, const E &e)
{
	const int tm = (q.K + BM - 1) / BM, tw = (q.OW + W_NW - 1) / W_NW;
	const int mt = blockIdx.x % tm;
	const int ow0 = (blockIdx.x / tm % tw) * W_NW, oh0 = (blockIdx.x / tm / tw) * wtile<BM, R, S>::TH * U;
	if (oh0 >= q.OH)
		return;
	for (int z = blockIdx.y; z < nimg; z += gridDim.y) {
		wgh_block<BM, R, S, PAD, BIAS, U>(x, wp, cb, y, q, z, mt, oh0, ow0, e);
		if (z + gridDim.y < nimg)
			__syncthreads();
	}
}

} /* namespace igemm */
