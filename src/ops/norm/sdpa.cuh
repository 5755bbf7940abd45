/*
 * kernelrl: the kernels of sdpa (sdpa.cu has their launchers and says
 * what they do). Device code only, so that tests/ops/sdpa_sim.cpp runs
 * them on the CPU stand-in (tests/opt/cudasim.h) as well; it defines
 * SDPA_DYN_SMEM, the dynamic shared memory a block sees.
 */
#ifndef KRL_OPS_NORM_SDPA_CUH
#define KRL_OPS_NORM_SDPA_CUH

#ifndef SDPA_DYN_SMEM
#define SDPA_DYN_SMEM(name) extern __shared__ float4 name[]
#endif

/* relu that keeps a NaN (fmaxf would drop it), masked -inf to 0 */
static __device__ __forceinline__ float relu_of(float x)
{
	return x != x ? x : fmaxf(x, 0.f);
}

/* ==== rows: the general kernel ==== */

#define SD_THREADS 256
#define SD_BK 64
#define SD_DC 32

template <int BQ>
static size_t rows_smem(int64_t ev)
{
	return sizeof(float) * (size_t)(BQ * ev + BQ * SD_DC +
	                                SD_BK * (SD_DC + 1) + BQ * SD_BK +
	                                3 * BQ);
}

template <int BQ>
__global__ void __launch_bounds__(SD_THREADS)
sdpa_rows(const float *__restrict__ q, const float *__restrict__ k,
          const float *__restrict__ v, float *__restrict__ o, int64_t l,
          int64_t s, int64_t e, int64_t ev, float scale, int causal,
          int relu)
{
	constexpr int TPR = SD_THREADS / BQ;   /* threads per score row */
	constexpr int CPT = SD_BK / TPR;       /* score columns per thread */
	SDPA_DYN_SMEM(smem4);
	float *Os = reinterpret_cast<float *>(smem4);
	float *Qs = Os + BQ * ev;
	float *Ks = Qs + BQ * SD_DC;
	float *Ss = Ks + SD_BK * (SD_DC + 1);  /* 16-byte aligned: see below */
	float *Ms = Ss + BQ * SD_BK;
	float *Ls = Ms + BQ;
	float *As = Ls + BQ;
	int tid = threadIdx.x;
	int64_t head = blockIdx.y;
	int64_t q0 = (int64_t)blockIdx.x * BQ;
	const float *qh = q + head * l * e;
	const float *kh = k + head * s * e;
	const float *vh = v + head * s * ev;
	float *oh = o + head * l * ev;
	/* with the mask, no key after the block's last query counts */
	int64_t kend = causal && q0 + BQ < s ? q0 + BQ : s;
	for (int64_t i = tid; i < BQ * ev; i += SD_THREADS)
		Os[i] = 0.f;
	if (tid < BQ) {
		Ms[tid] = -INFINITY;
		Ls[tid] = relu ? 1.f : 0.f;
	}
	int my_r = tid / TPR, my_c = tid % TPR;
	int warp = tid / 32, lane = tid % 32;
	__syncthreads();
	for (int64_t kt = 0; kt < kend; kt += SD_BK) {
		float acc[CPT];
#pragma unroll
		for (int i = 0; i < CPT; i++)
			acc[i] = 0.f;
		for (int64_t d0 = 0; d0 < e; d0 += SD_DC) {
			for (int idx = tid; idx < BQ * SD_DC; idx += SD_THREADS) {
				int rr = idx / SD_DC, dd = idx % SD_DC;
				int64_t qi = q0 + rr, d = d0 + dd;
				Qs[idx] = qi < l && d < e ? qh[qi * e + d] : 0.f;
			}
			for (int idx = tid; idx < SD_BK * SD_DC;
			     idx += SD_THREADS) {
				int cc = idx / SD_DC, dd = idx % SD_DC;
				int64_t kj = kt + cc, d = d0 + dd;
				Ks[cc * (SD_DC + 1) + dd] =
					kj < s && d < e ? kh[kj * e + d] : 0.f;
			}
			__syncthreads();
#pragma unroll 8
			for (int dd = 0; dd < SD_DC; dd++) {
				float qv = Qs[my_r * SD_DC + dd];
#pragma unroll
				for (int i = 0; i < CPT; i++)
					acc[i] += qv * Ks[(my_c + TPR * i) *
					                  (SD_DC + 1) + dd];
			}
			__syncthreads();
		}
#pragma unroll
		for (int i = 0; i < CPT; i++) {
			int cc = my_c + TPR * i;
			int64_t kj = kt + cc;
			int ok = kj < s && !(causal && kj > q0 + my_r);
			Ss[my_r * SD_BK + cc] = ok ? acc[i] * scale : -INFINITY;
		}
		__syncthreads();
		/* one warp per row, two columns per lane: the online softmax,
		 * or the ReLU (no rescaling, no sum) */
		for (int rr = warp; rr < BQ; rr += SD_THREADS / 32) {
			float s0 = Ss[rr * SD_BK + lane];
			float s1 = Ss[rr * SD_BK + lane + 32];
			if (relu) {
				Ss[rr * SD_BK + lane] = relu_of(s0);
				Ss[rr * SD_BK + lane + 32] = relu_of(s1);
				if (lane == 0)
					As[rr] = 1.f;
				continue;
			}
			float mx = fmaxf(s0, s1);
			for (int off = 16; off > 0; off >>= 1)
				mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx,
				                               off));
			float m_old = Ms[rr];
			/* key 0 is every row's (the mask keeps it), so after the
			 * first tile m_new is finite */
			float m_new = fmaxf(m_old, mx);
			float p0 = expf(s0 - m_new), p1 = expf(s1 - m_new);
			float sum = p0 + p1;
			for (int off = 16; off > 0; off >>= 1)
				sum += __shfl_xor_sync(0xffffffffu, sum, off);
			Ss[rr * SD_BK + lane] = p0;
			Ss[rr * SD_BK + lane + 32] = p1;
			if (lane == 0) {
				float alpha = expf(m_old - m_new);
				As[rr] = alpha;
				Ms[rr] = m_new;
				Ls[rr] = Ls[rr] * alpha + sum;
			}
		}
		__syncthreads();
		/* O = O * alpha + P V; P rows read as float4 (broadcast) */
		for (int64_t cv = tid; cv < ev; cv += SD_THREADS) {
			float ov[BQ];
#pragma unroll
			for (int rr = 0; rr < BQ; rr++)
				ov[rr] = Os[rr * ev + cv] * As[rr];
			for (int j = 0; j < SD_BK; j += 4) {
				int64_t kj = kt + j;
				float v0 = kj < s ? vh[kj * ev + cv] : 0.f;
				float v1 = kj + 1 < s ? vh[(kj + 1) * ev + cv] : 0.f;
				float v2 = kj + 2 < s ? vh[(kj + 2) * ev + cv] : 0.f;
				float v3 = kj + 3 < s ? vh[(kj + 3) * ev + cv] : 0.f;
#pragma unroll
				for (int rr = 0; rr < BQ; rr++) {
					float4 p = *reinterpret_cast<const float4 *>(
						&Ss[rr * SD_BK + j]);
					ov[rr] += p.x * v0 + p.y * v1 + p.z * v2 +
					          p.w * v3;
				}
			}
#pragma unroll
			for (int rr = 0; rr < BQ; rr++)
				Os[rr * ev + cv] = ov[rr];
		}
		__syncthreads();
	}
	for (int64_t idx = tid; idx < BQ * ev; idx += SD_THREADS) {
		int64_t rr = idx / ev, cv = idx % ev, qi = q0 + rr;
		if (qi < l)
			oh[qi * ev + cv] = Os[idx] / Ls[rr];
	}
}

/* ==== tiled: register-blocked, for rows of at most 128 floats ====
 *
 * Thread t is (ty, tx) = (t / 16, t % 16): score rows 4 ty .. 4 ty + 3 of
 * the block's 64 and key columns 4 tx .. 4 tx + 3 of the step's 64, so a
 * row's 16 threads are one half of a warp (the row max and sum are four
 * shuffles). Shared memory, in floats:
 *   Qs [D][64]   the block's queries, transposed (loaded once);
 *   Ks [D][64]   the step's keys, transposed;
 *   Vs [64][DV]  the step's values as they lie;
 *   Ps [64][68]  the step's probabilities (row stride 68: the two
 *                halves of a warp read rows 4 apart, 16 banks apart).
 * D and DV are the embedding dims rounded up to 32 (q, k and v's columns
 * beyond e and ev read as zeros). A thread's output columns are DV / 16:
 * float4 groups at 64 g + 4 tx and, when DV is an odd multiple of 32, a
 * float2 at 64 (DV / 64) + 2 tx.
 */

#define TL_BQ 64
#define TL_BK 64
#define TL_PS (TL_BK + 4)
#define TL_THREADS 256
#define TL_LOG2E 1.4426950408889634f
/* tl_load_t stages 64 rows, the query block's and the key step's */
static_assert(TL_BQ == 64 && TL_BK == 64, "tile sizes");

template <int D, int DV>
static size_t tiled_smem(void)
{
	return sizeof(float) *
	       (size_t)(D * TL_BQ + D * TL_BK + TL_BK * DV + TL_BQ * TL_PS);
}

/* A thread's output columns in a row of DV floats (DV / 16 of them):
 * NF4 float4 groups at 64 g + 4 tx, then, when DV is an odd multiple of
 * 32, a float2 at 64 NF4 + 2 tx. */
template <int DV>
struct tl_cols {
	static constexpr int NF4 = DV / 64;
	static constexpr int F2 = (DV % 64) != 0;
	static constexpr int CW = DV / 16;
};

/* Rows r0 .. r0 + 63 of src [n, e] stored transposed into dst [D][64]
 * (zeros past row n and column e), read as float4s: a warp's 32 lanes
 * take 32 consecutive rows, so the transposed stores hit 32 banks. Q once
 * a block (TL_BQ rows), K each step (TL_BK: the same 64). */
template <int D>
static __device__ __forceinline__ void
tl_load_t(float *dst, const float *__restrict__ src, int r0, int n, int e,
          int tid)
{
	for (int idx = tid; idx < 64 * (D / 4); idx += TL_THREADS) {
		int r = idx % 64, c4 = idx / 64;
		float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
		if (r0 + r < n && 4 * c4 < e)
			x = *reinterpret_cast<const float4 *>(
				&src[(int64_t)(r0 + r) * e + 4 * c4]);
		dst[(4 * c4 + 0) * 64 + r] = x.x;
		dst[(4 * c4 + 1) * 64 + r] = x.y;
		dst[(4 * c4 + 2) * 64 + r] = x.z;
		dst[(4 * c4 + 3) * 64 + r] = x.w;
	}
}

template <int D, int DV>
__global__ void __launch_bounds__(TL_THREADS, 2)
sdpa_tiled(const float *__restrict__ q, const float *__restrict__ k,
           const float *__restrict__ v, float *__restrict__ o, int l,
           int s, int e, int ev, float scale, int causal, int relu)
{
	typedef tl_cols<DV> C;
	SDPA_DYN_SMEM(smem4);
	float *Qs = reinterpret_cast<float *>(smem4);
	float *Ks = Qs + D * TL_BQ;
	float *Vs = Ks + D * TL_BK;
	float *Ps = Vs + TL_BK * DV;
	int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
	int64_t head = blockIdx.x;
	/* the latest queries first: under the mask they have the most keys */
	int q0 = (gridDim.y - 1 - blockIdx.y) * TL_BQ;
	const float *qh = q + head * l * e;
	const float *kh = k + head * s * e;
	const float *vh = v + head * s * ev;
	float *oh = o + head * l * ev;
	int kend = causal && q0 + TL_BQ < s ? q0 + TL_BQ : s;
	/* softmax in base 2: exp(x * scale - m) = exp2(x * scale log2 e - m') */
	float sc = relu ? scale : scale * TL_LOG2E;

	tl_load_t<D>(Qs, qh, q0, l, e, tid);
	float ov[4][C::CW];
	float m[4], lsum[4];
#pragma unroll
	for (int i = 0; i < 4; i++) {
		m[i] = -INFINITY;
		lsum[i] = 0.f;
#pragma unroll
		for (int c = 0; c < C::CW; c++)
			ov[i][c] = 0.f;
	}
	for (int kt = 0; kt < kend; kt += TL_BK) {
		__syncthreads();     /* the last step is done with Ks, Vs, Ps */
		tl_load_t<D>(Ks, kh, kt, s, e, tid);
		for (int idx = tid; idx < TL_BK * (DV / 4); idx += TL_THREADS) {
			int c = idx / (DV / 4), j4 = idx % (DV / 4);
			int kj = kt + c;
			float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
			if (kj < s && 4 * j4 < ev)
				x = *reinterpret_cast<const float4 *>(
					&vh[(int64_t)kj * ev + 4 * j4]);
			*reinterpret_cast<float4 *>(&Vs[c * DV + 4 * j4]) = x;
		}
		__syncthreads();
		float acc[4][4];
#pragma unroll
		for (int i = 0; i < 4; i++)
#pragma unroll
			for (int j = 0; j < 4; j++)
				acc[i][j] = 0.f;
#pragma unroll 8
		for (int d = 0; d < D; d++) {
			float4 a = *reinterpret_cast<const float4 *>(
				&Qs[d * TL_BQ + 4 * ty]);
			float4 b = *reinterpret_cast<const float4 *>(
				&Ks[d * TL_BK + 4 * tx]);
			float av[4] = { a.x, a.y, a.z, a.w };
			float bv[4] = { b.x, b.y, b.z, b.w };
#pragma unroll
			for (int i = 0; i < 4; i++)
#pragma unroll
				for (int j = 0; j < 4; j++)
					acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
		}
#pragma unroll
		for (int i = 0; i < 4; i++) {
			int qi = q0 + 4 * ty + i;
			float x[4];
#pragma unroll
			for (int j = 0; j < 4; j++) {
				int kj = kt + 4 * tx + j;
				int ok = kj < s && !(causal && kj > qi);
				x[j] = ok ? acc[i][j] * sc : -INFINITY;
			}
			float p[4];
			if (relu) {
#pragma unroll
				for (int j = 0; j < 4; j++)
					p[j] = relu_of(x[j]);
			} else {
				float mx = fmaxf(fmaxf(x[0], x[1]), fmaxf(x[2], x[3]));
#pragma unroll
				for (int off = 8; off > 0; off >>= 1)
					mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx,
					                               off));
				/* key 0 is every row's: finite after the first
				 * step */
				float m_new = fmaxf(m[i], mx);
				float alpha = exp2f(m[i] - m_new);
				float sum = 0.f;
#pragma unroll
				for (int j = 0; j < 4; j++) {
					p[j] = exp2f(x[j] - m_new);
					sum += p[j];
				}
#pragma unroll
				for (int off = 8; off > 0; off >>= 1)
					sum += __shfl_xor_sync(0xffffffffu, sum, off);
				m[i] = m_new;
				lsum[i] = lsum[i] * alpha + sum;
#pragma unroll
				for (int c = 0; c < C::CW; c++)
					ov[i][c] *= alpha;
			}
			*reinterpret_cast<float4 *>(
				&Ps[(4 * ty + i) * TL_PS + 4 * tx]) =
				make_float4(p[0], p[1], p[2], p[3]);
		}
		__syncthreads();
#pragma unroll 2
		for (int kk = 0; kk < TL_BK; kk += 4) {
			float pr[4][4];
#pragma unroll
			for (int i = 0; i < 4; i++) {
				float4 x = *reinterpret_cast<const float4 *>(
					&Ps[(4 * ty + i) * TL_PS + kk]);
				pr[i][0] = x.x;
				pr[i][1] = x.y;
				pr[i][2] = x.z;
				pr[i][3] = x.w;
			}
#pragma unroll
			for (int u = 0; u < 4; u++) {
				const float *vr = &Vs[(kk + u) * DV];
				float vv[C::CW];
#pragma unroll
				for (int g = 0; g < C::NF4; g++) {
					float4 x = *reinterpret_cast<const float4 *>(
						&vr[64 * g + 4 * tx]);
					vv[4 * g + 0] = x.x;
					vv[4 * g + 1] = x.y;
					vv[4 * g + 2] = x.z;
					vv[4 * g + 3] = x.w;
				}
				if (C::F2) {
					float2 x = *reinterpret_cast<const float2 *>(
						&vr[64 * C::NF4 + 2 * tx]);
					vv[4 * C::NF4] = x.x;
					vv[4 * C::NF4 + 1] = x.y;
				}
#pragma unroll
				for (int i = 0; i < 4; i++)
#pragma unroll
					for (int c = 0; c < C::CW; c++)
						ov[i][c] = fmaf(pr[i][u], vv[c],
						                ov[i][c]);
			}
		}
	}
#pragma unroll
	for (int i = 0; i < 4; i++) {
		int qi = q0 + 4 * ty + i;
		if (qi >= l)
			continue;
		float inv = relu ? 1.f : 1.f / lsum[i];
		float *orow = &oh[(int64_t)qi * ev];
#pragma unroll
		for (int g = 0; g < C::NF4; g++) {
			int c0 = 64 * g + 4 * tx;
			if (c0 < ev)
				*reinterpret_cast<float4 *>(&orow[c0]) = make_float4(
					ov[i][4 * g] * inv, ov[i][4 * g + 1] * inv,
					ov[i][4 * g + 2] * inv, ov[i][4 * g + 3] * inv);
		}
		if (C::F2) {
			int c0 = 64 * C::NF4 + 2 * tx;
			if (c0 < ev)
				*reinterpret_cast<float2 *>(&orow[c0]) = make_float2(
					ov[i][4 * C::NF4] * inv,
					ov[i][4 * C::NF4 + 1] * inv);
		}
	}
}

/* ==== thread: a thread owns whole query rows, for heads of at most 64 ====
 *
 * Thread t of the block's 128 owns query rows q0 + R t .. q0 + R t + R - 1
 * (adjacent, so that under the mask they see almost the same keys): their
 * queries, pre-scaled by scale log2 e (softmax) or scale (relu), and their
 * R output rows of DV floats stay in registers. The block walks the keys
 * 32 at a time; a tile lies in shared memory as in global memory, keys
 * [32][D] then values [32][DV], and every lane of a warp reads the same
 * key: broadcast float4 loads, no transposition, no bank arithmetic.
 *
 * A thread takes keys four at a time (a group): R x 4 independent dot
 * products, the row's max over the four, a rescale of its sum and output
 * only when the max grows (a few times a row after its first keys), then
 * p = exp2(score - m), l += p and o += p v. No shuffles: nothing of a row
 * lives in another thread.
 *
 * Two tile buffers, one barrier a tile. A thread's share of the next tile
 * (PF float4 pieces) passes through one float4 register: piece g is
 * loaded from global memory after group g's dot products and stored to
 * the other buffer after its o += p v, so each load has half a group of
 * FMAs to arrive. (Staging the whole share at once would hold 4 PF
 * registers through the tile, which two rows of 32 + 32 floats do not
 * leave: ptxas spilled them, and queries with them.) Since the stores sit
 * in the group loop, every thread runs every group of a tile, its masked
 * keys included: lost work only in the tiles the causal mask cuts.
 *
 * D and DV are e and ev rounded up to 32; q, k and v's columns past e and
 * ev read as zeros. R x (D + DV) floats of state: R = 2 at D = DV = 32,
 * else 1 (two rows at D = 64 would hold 256 floats). Every instantiation
 * sits at the 168-register cap of three blocks an SM, without spills on
 * CUDA 13.0's ptxas; equivalent spellings of the index arithmetic in
 * th_piece or of the loop bounds made it spill 4 to 96 bytes, so
 * tests/ops/test_sdpa_sim.c fails on a spill (docs/ops-norm.md).
 */

#define TH_THREADS 128
#define TH_BK 32
/* three blocks an SM: at most 168 registers a thread */
#define TH_MIN_BLOCKS 3

template <int D, int DV>
struct th_cfg {
	static constexpr int TILE = TH_BK * (D + DV);       /* floats */
	static constexpr int PK = TH_BK * D / 4 / TH_THREADS;  /* pieces of */
	static constexpr int PV = TH_BK * DV / 4 / TH_THREADS; /* a thread */
	static constexpr int PF = PK + PV;
	static_assert(TH_BK * D / 4 % TH_THREADS == 0 &&
	              TH_BK * DV / 4 % TH_THREADS == 0 && PF <= TH_BK / 4,
	              "whole pieces, at most one a group");
};

template <int D, int DV>
static size_t thread_smem(void)
{
	return sizeof(float) * (size_t)(2 * th_cfg<D, DV>::TILE);
}

/* Piece i of this thread's share of the tile at key kt, the buffer's
 * float4 tid + 128 i: below PK, float4 f = tid + 128 i of the keys
 * [32][D]; from PK on, piece i - PK of the values [32][DV] (128 float4s
 * span 128 / (DV / 4) keys). Zeros past key s and column e / ev. */
template <int D, int DV>
static __device__ __forceinline__ float4
th_piece(const float *__restrict__ k, const float *__restrict__ v, int kt,
         int s, int e, int ev, int tid, int i)
{
	typedef th_cfg<D, DV> C;
	int64_t h0 = (int64_t)blockIdx.x * s;   /* the head's first key */
	float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
	if (i < C::PK) {
		int f = i * TH_THREADS + tid;
		int row = kt + f / (D / 4), col = 4 * (f % (D / 4));
		if (row < s && col < e)
			x = *reinterpret_cast<const float4 *>(
				&k[(h0 + row) * e + col]);
	} else {
		i -= C::PK;
		int row = kt + i * (TH_THREADS / (DV / 4)) + tid / (DV / 4);
		int col = 4 * (tid % (DV / 4));
		if (row < s && col < ev)
			x = *reinterpret_cast<const float4 *>(
				&v[(h0 + row) * ev + col]);
	}
	return x;
}

template <int D, int DV, int R>
__global__ void __launch_bounds__(TH_THREADS, TH_MIN_BLOCKS)
sdpa_thread(const float *__restrict__ q, const float *__restrict__ k,
            const float *__restrict__ v, float *__restrict__ o, int l,
            int s, int e, int ev, float scale, int causal, int relu)
{
	typedef th_cfg<D, DV> C;
	constexpr int BQ = TH_THREADS * R;
	static_assert(D % 32 == 0 && DV % 32 == 0, "widths");
	SDPA_DYN_SMEM(smem4);
	float4 *buf4 = smem4;
	float *buf0 = reinterpret_cast<float *>(smem4);
	int tid = threadIdx.x;
	int64_t head = blockIdx.x;
	/* the latest queries first: under the mask they have the most keys */
	int q0 = (gridDim.y - 1 - blockIdx.y) * BQ;
	int row0 = q0 + R * tid;
	/* the keys the block needs; the keys all this thread's rows see */
	int kend = causal && q0 + BQ < s ? q0 + BQ : s;
	int mlim = causal && row0 + 1 < s ? row0 + 1 : s;
	float sc = relu ? scale : scale * TL_LOG2E;

	float qr[R][D];
#pragma unroll
	for (int r = 0; r < R; r++) {
		int ok = row0 + r < l;
		const float *qrow = q + (head * l + (ok ? row0 + r : 0)) * e;
#pragma unroll
		for (int c4 = 0; c4 < D / 4; c4++) {
			float4 x = make_float4(0.f, 0.f, 0.f, 0.f);
			if (ok && 4 * c4 < e)
				x = *reinterpret_cast<const float4 *>(&qrow[4 * c4]);
			qr[r][4 * c4 + 0] = x.x * sc;
			qr[r][4 * c4 + 1] = x.y * sc;
			qr[r][4 * c4 + 2] = x.z * sc;
			qr[r][4 * c4 + 3] = x.w * sc;
		}
	}
	float ov[R][DV], m[R], lsum[R];
#pragma unroll
	for (int r = 0; r < R; r++) {
		m[r] = -INFINITY;
		lsum[r] = 0.f;
#pragma unroll
		for (int c = 0; c < DV; c++)
			ov[r][c] = 0.f;
	}

#pragma unroll
	for (int i = 0; i < C::PF; i++)
		buf4[tid + i * TH_THREADS] =
			th_piece<D, DV>(k, v, 0, s, e, ev, tid, i);
	__syncthreads();
	for (int kt = 0, b = 0; kt < kend; kt += TH_BK, b ^= 1) {
		const float *Ks = buf0 + b * C::TILE;
		const float *Vs = Ks + TH_BK * D;
		float4 *nb4 = buf4 + (b ^ 1) * (C::TILE / 4);
		int more = kt + TH_BK < kend;
		/* the same count for every thread (a full tile but the last) */
		int ng = ((kend - kt < TH_BK ? kend - kt : TH_BK) + 3) / 4;
		float4 pf = make_float4(0.f, 0.f, 0.f, 0.f);
		for (int g = 0; g < ng; g++) {
			int jj = 4 * g;
			float sv[R][4];
#pragma unroll
			for (int r = 0; r < R; r++)
#pragma unroll
				for (int j = 0; j < 4; j++)
					sv[r][j] = 0.f;
#pragma unroll
			for (int d4 = 0; d4 < D / 4; d4++) {
#pragma unroll
				for (int j = 0; j < 4; j++) {
					float4 x = *reinterpret_cast<const float4 *>(
						&Ks[(jj + j) * D + 4 * d4]);
					float kx[4] = { x.x, x.y, x.z, x.w };
#pragma unroll
					for (int r = 0; r < R; r++)
#pragma unroll
						for (int u = 0; u < 4; u++)
							sv[r][j] = fmaf(qr[r][4 * d4 + u],
							                kx[u], sv[r][j]);
				}
			}
			if (more && g < C::PF)
				pf = th_piece<D, DV>(k, v, kt + TH_BK, s, e, ev,
				                     tid, g);
			/* past s, or (causal) past a row: only in a row's last
			 * tile or two */
			int kj = kt + jj;
			if (kj + 4 > mlim) {
#pragma unroll
				for (int r = 0; r < R; r++)
#pragma unroll
					for (int j = 0; j < 4; j++)
						if (kj + j >= s ||
						    (causal && kj + j > row0 + r))
							sv[r][j] = -INFINITY;
			}
			if (relu) {
#pragma unroll
				for (int r = 0; r < R; r++)
#pragma unroll
					for (int j = 0; j < 4; j++)
						sv[r][j] = relu_of(sv[r][j]);
			} else {
#pragma unroll
				for (int r = 0; r < R; r++) {
					float mx = fmaxf(fmaxf(sv[r][0], sv[r][1]),
					                 fmaxf(sv[r][2], sv[r][3]));
					/* key 0, in every row's first group, is
					 * every row's: m is finite from then on,
					 * and a group the mask hides adds zeros */
					if (mx > m[r]) {
						float alpha = exp2f(m[r] - mx);
						m[r] = mx;
						lsum[r] *= alpha;
#pragma unroll
						for (int c = 0; c < DV; c++)
							ov[r][c] *= alpha;
					}
#pragma unroll
					for (int j = 0; j < 4; j++) {
						sv[r][j] = exp2f(sv[r][j] - m[r]);
						lsum[r] += sv[r][j];
					}
				}
			}
#pragma unroll
			for (int j = 0; j < 4; j++) {
				const float *vr = &Vs[(jj + j) * DV];
#pragma unroll
				for (int c4 = 0; c4 < DV / 4; c4++) {
					float4 x = *reinterpret_cast<const float4 *>(
						&vr[4 * c4]);
#pragma unroll
					for (int r = 0; r < R; r++) {
						ov[r][4 * c4 + 0] = fmaf(sv[r][j], x.x,
						                         ov[r][4 * c4 + 0]);
						ov[r][4 * c4 + 1] = fmaf(sv[r][j], x.y,
						                         ov[r][4 * c4 + 1]);
						ov[r][4 * c4 + 2] = fmaf(sv[r][j], x.z,
						                         ov[r][4 * c4 + 2]);
						ov[r][4 * c4 + 3] = fmaf(sv[r][j], x.w,
						                         ov[r][4 * c4 + 3]);
					}
				}
			}
			if (more && g < C::PF)
				nb4[tid + g * TH_THREADS] = pf;
		}
		/* the other buffer was last read before the previous barrier */
		__syncthreads();
	}
#pragma unroll
	for (int r = 0; r < R; r++) {
		if (row0 + r >= l)
			continue;
		float inv = relu ? 1.f : 1.f / lsum[r];
		float *orow = o + (head * l + row0 + r) * ev;
#pragma unroll
		for (int c4 = 0; c4 < DV / 4; c4++)
			if (4 * c4 < ev)
				*reinterpret_cast<float4 *>(&orow[4 * c4]) =
					make_float4(ov[r][4 * c4] * inv,
					            ov[r][4 * c4 + 1] * inv,
					            ov[r][4 * c4 + 2] * inv,
					            ov[r][4 * c4 + 3] * inv);
	}
}

/* ==== short: a warp a query row, for sequences of a few queries ==== */

/* One warp owns one query row of one head: lane t holds the row's
 * columns t, t + 32, ... (N of them: e and ev up to 32 N), so that every
 * load is a coalesced 128-byte line. For each key the warp sums the dot
 * product with a butterfly (every lane gets the score), then takes the
 * online softmax's step or relu's weight, the same on every lane, and
 * adds weight x value to its columns. Nothing goes through shared memory
 * and nothing is padded: level 3's 28 runs attention over its batch of 2
 * (1,576 heads of 2 queries and 2 keys), where the rows kernel's blocks
 * of 32 queries x 64 keys did 1/512 useful work. For L of at most
 * SH_MAX_L and S of at most SH_MAX_S: past them the warp's serial walk
 * over the keys loses to the block kernels. */

#define SH_THREADS 128
#define SH_MAX_L 8
#define SH_MAX_S 256

template <int N>
__global__ void __launch_bounds__(SH_THREADS)
sdpa_short(const float *__restrict__ q, const float *__restrict__ k,
           const float *__restrict__ v, float *__restrict__ o, int64_t rows,
           int l, int s, int e, int ev, float scale, int causal, int relu)
{
	int64_t row = (int64_t)blockIdx.x * (SH_THREADS / 32) +
	              threadIdx.x / 32;
	if (row >= rows)
		return;   /* the whole warp: no shuffle sees an exited lane */
	int lane = threadIdx.x % 32;
	int64_t head = row / l;
	int i = (int)(row % l);
	const float *qr = q + row * e;
	const float *kh = k + head * s * e;
	const float *vh = v + head * s * ev;
	float qv[N], acc[N];
#pragma unroll
	for (int t = 0; t < N; t++) {
		int d = lane + 32 * t;
		qv[t] = d < e ? qr[d] : 0.f;
		acc[t] = 0.f;
	}
	float m = -INFINITY, lsum = relu ? 1.f : 0.f;
	int send = causal && i + 1 < s ? i + 1 : s;
	for (int j = 0; j < send; j++) {
		float dot = 0.f;
#pragma unroll
		for (int t = 0; t < N; t++) {
			int d = lane + 32 * t;
			if (d < e)
				dot = fmaf(qv[t], kh[(int64_t)j * e + d], dot);
		}
#pragma unroll
		for (int off = 16; off > 0; off >>= 1)
			dot += __shfl_xor_sync(0xffffffffu, dot, off);
		float x = dot * scale, w;
		if (relu) {
			w = relu_of(x);
		} else {
			float mn = fmaxf(m, x);
			float corr = expf(m - mn);
			w = expf(x - mn);
			lsum = fmaf(lsum, corr, w);
#pragma unroll
			for (int t = 0; t < N; t++)
				acc[t] *= corr;
			m = mn;
		}
#pragma unroll
		for (int t = 0; t < N; t++) {
			int d = lane + 32 * t;
			if (d < ev)
				acc[t] = fmaf(w, vh[(int64_t)j * ev + d], acc[t]);
		}
	}
	float inv = relu ? 1.f : 1.f / lsum;
#pragma unroll
	for (int t = 0; t < N; t++) {
		int d = lane + 32 * t;
		if (d < ev)
			o[row * ev + d] = acc[t] * inv;
	}
}

#endif
