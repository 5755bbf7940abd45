/* ---- common body (src/opt/kernels/gemm_3xtf32.cuh, kernelrl's 3xTF32 GEMM) ---- */

#ifndef BM
#define BM 128		/* block tile rows (M) */
#endif
#ifndef BN
#define BN 128		/* block tile columns (N) */
#endif
#ifndef BK
#define BK 32		/* block tile depth (K) per pipeline stage */
#endif
#ifndef WM
#define WM 64		/* warp tile rows */
#endif
#ifndef WN
#define WN 32		/* warp tile columns */
#endif
#ifndef STAGES
#define STAGES 3	/* cp.async pipeline depth */
#endif
#ifndef SMALL_CVT
#define SMALL_CVT 0	/* 1: round small to tf32 too (else the MMA truncates it) */
#endif
#define NTHREADS ((BM / WM) * (BN / WN) * 32)
#define GROUP_M 8	/* grouped rasterisation: 8 tile rows share B panels in L2 */
#define MT (WM / 16)	/* m16 fragments per warp */
#define NT (WN / 8)	/* n8 fragments per warp */

/*
 * Shared-memory tile layouts.  An operand whose K is contiguous in global
 * memory is stored [rows][BK + 8]; one whose M (or N) is contiguous is
 * stored [BK][cols + 4].  Both paddings make every fragment load below
 * conflict-free and keep rows 16-byte aligned for cp.async.
 */
#if A_KCONTIG
#define A_LD (BK + 8)
#define A_STAGE (BM * A_LD)
#else
#define A_LD (BM + 4)
#define A_STAGE (BK * A_LD)
#endif
#if B_KCONTIG
#define B_LD (BK + 8)
#define B_STAGE (BN * B_LD)
#else
#define B_LD (BN + 4)
#define B_STAGE (BK * B_LD)
#endif
#define SMEM_BYTES (STAGES * (A_STAGE + B_STAGE) * 4)

static __device__ __forceinline__ unsigned smem_u32(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

/* 16-byte async copy; src_bytes = 0 writes zeros without reading. */
static __device__ __forceinline__ void cp_async16(unsigned dst, const float *src, int src_bytes)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
		     :: "r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

/* 4-byte async copy for unaligned shapes; src_bytes = 0 writes a zero. */
static __device__ __forceinline__ void cp_async4(unsigned dst, const float *src, int src_bytes)
{
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n"
		     :: "r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

static __device__ __forceinline__ void cp_async_commit()
{
	asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int N>
static __device__ __forceinline__ void cp_async_wait()
{
	asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
}

/*
 * x = big + small: big = x rounded to tf32 (nearest, ties away: add half an
 * ulp of tf32 to the bit pattern, clear the 13 low bits; this is what
 * cvt.rna.tf32.f32 does, in 2 integer instructions where the cvt expands to
 * about 5 on sm_90), small = x - big, exact in fp32, |small| <= 2^-11 |x|.
 * small goes to the MMA as it is: a tf32 operand's low 13 bits are ignored
 * (truncated), which costs at most 2^-11 of small, ~2^-22 of x.
 */
static __device__ __forceinline__ unsigned tf32_round(float x)
{
	return (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
}

static __device__ __forceinline__ void split_tf32(float x, unsigned &big, unsigned &small)
{
	const unsigned b = tf32_round(x);
	const float s = x - __uint_as_float(b);
	big = b;
#if SMALL_CVT
	small = tf32_round(s);
#else
	small = __float_as_uint(s);
#endif
}

/* d += a * b on one m16n8k8 tile (tf32 inputs, fp32 accumulate). */
static __device__ __forceinline__ void mma_tf32(float *d, const unsigned *a, const unsigned *b)
{
	asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
	    "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
	    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
	    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/*
 * Copy a TR x TC tile of a row-major global matrix (row stride ldg, rlim
 * rows and clim columns in all) whose corner is (r0, c0) into shared memory
 * with row stride LDS.  Elements outside the matrix become zeros, so edge
 * tiles need no special handling in the math.  VEC: 16-byte copies (needs
 * ldg % 4 == 0 and a 16-byte aligned base, hence clim % 4 == 0, so a
 * 4-wide chunk is wholly inside or wholly outside); otherwise 4-byte copies.
 */
template <bool VEC, int TR, int TC, int LDS>
static __device__ __forceinline__ void load_tile(float *s, const float *__restrict__ g, long ldg,
						 int r0, int c0, int rlim, int clim, int tid)
{
	constexpr int CPR = TC / 4;		/* 16-byte chunks per tile row */
	constexpr int CHUNKS = TR * CPR;
	static_assert(CHUNKS % NTHREADS == 0, "tile must split evenly over threads");
#pragma unroll
	for (int i = 0; i < CHUNKS / NTHREADS; i++) {
		const int c = tid + i * NTHREADS;
		const int r = c / CPR, cc = (c % CPR) * 4;
		const int gr = r0 + r, gc = c0 + cc;
		const unsigned dst = smem_u32(s + r * LDS + cc);
		if (VEC) {
			const bool ok = gr < rlim && gc < clim;
			cp_async16(dst, ok ? g + (long)gr * ldg + gc : g, ok ? 16 : 0);
		} else {
#pragma unroll
			for (int j = 0; j < 4; j++) {
				const bool ok = gr < rlim && gc + j < clim;
				cp_async4(dst + 4 * j, ok ? g + (long)gr * ldg + gc + j : g, ok ? 4 : 0);
			}
		}
	}
}

/* Issue the copies of k-tile kt into pipeline stage st. */
template <bool VEC>
static __device__ __forceinline__ void load_stage(float *sA, float *sB, const float *__restrict__ A,
						  const float *__restrict__ B, int M, int N, int K,
						  int lda, int ldb, int m0, int n0, int kt, int st,
						  int tid)
{
	const int k0 = kt * BK;
#if A_KCONTIG	/* A is [M, K] */
	load_tile<VEC, BM, BK, A_LD>(sA + st * A_STAGE, A, lda, m0, k0, M, K, tid);
#else		/* A is stored [K, M] */
	load_tile<VEC, BK, BM, A_LD>(sA + st * A_STAGE, A, lda, k0, m0, K, M, tid);
#endif
#if B_KCONTIG	/* B is stored [N, K] */
	load_tile<VEC, BN, BK, B_LD>(sB + st * B_STAGE, B, ldb, n0, k0, N, K, tid);
#else		/* B is [K, N] */
	load_tile<VEC, BK, BN, B_LD>(sB + st * B_STAGE, B, ldb, k0, n0, K, N, tid);
#endif
}

/*
 * Fragment index map.  m16n8k8.tf32 gives lane (g = lane / 4, t = lane % 4)
 * the A elements (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4), the B
 * elements (t, g), (t + 4, g) and the C elements (g, 2t), (g, 2t + 1),
 * (g + 8, 2t), (g + 8, 2t + 1).  The product sums over the 8 k slots, so
 * any permutation of k applied to A and B alike leaves it unchanged: we let
 * slot t hold k = 2t and slot t + 4 hold k = 2t + 1 of each k8 step.  A lane
 * then needs k = 2t and 2t + 1, adjacent, and reads them with one 8-byte
 * load where K is contiguous in shared memory.
 */
/*
 * The epilogue: a functor E that the body calls on each element of C it
 * stores, e(v, row, col), with v the fp32 sum of products and (row, col)
 * the element's place in its matrix; what it returns is stored. It is
 * called only for elements inside C, so it may read vectors indexed by
 * row or column. gemm_tri is the GEMM's own: scale by alpha, then (TRI 1)
 * zero the element below diagonal diag (torch.triu) or (TRI 2) above it
 * (tril); TRI is a template argument so that no test is left where there
 * is no triangle. A generated candidate may pass its own (the chain of
 * pointwise ops that reads C, written by src/opt/codegen_gemm.c).
 */
template <int TRI>
struct gemm_tri {
	float alpha;
	long diag;
	__device__ __forceinline__ float operator()(float v, int row, int col) const
	{
		v *= alpha;
		if ((TRI == 1 && (long)col - row < diag) || (TRI == 2 && (long)col - row > diag))
			v = 0.f;
		return v;
	}
};

/*
 * The Hopper form (sm_90a, both operands K-contiguous, 16-byte copies):
 * the same 128 x 128 block tile and 3xTF32 products, issued as wgmma
 * (warpgroup MMA, operands read from shared memory by the tensor cores)
 * instead of mma.sync with fragments loaded and split in registers. Each
 * of the block's 2 warpgroups computes 64 rows x 128 columns with
 * m64n128k8 instructions.
 *
 * A stage holds A's and B's 128 x 32 k-tiles in wgmma's K-major layout with
 * the 128-byte swizzle: row r's 32 floats are one 128-byte line, its
 * 16-byte chunk q stored at chunk q ^ (r % 8), lines 1024-byte aligned in
 * groups of 8 (the descriptor's stride). Before a k-tile is multiplied,
 * the block splits it in place: each element x becomes big = x rounded to
 * tf32 (tf32_round), and small = x - big goes to a second buffer at the
 * same offset (the swizzle moves both alike). The three products of a k8
 * step are then small*big, big*small, big*big, read by descriptor from the
 * three tiles. As in the mma.sync form, a running sum in registers takes
 * the MMAs' sums with an fp32 add: here once a chunk of WG_CHUNK k-tiles
 * (4; their MMAs accumulate in a second set of registers, scale-d 0 at a
 * chunk's first).
 *
 * The schedule of k-tile i: issue its 12 MMAs (asynchronous) and wait for
 * tile i - 1's, leaving tile i's in flight; barrier; split tile i + 1 in
 * place (its small half where tile i - 1's small halves were); refill the
 * stage tile i - 1 read with tile i - 1 + WG_STAGES; at a chunk's end wait
 * for tile i's and add. Shared memory: WG_STAGES (4) stages of 32 KB, two
 * small buffers of 32 KB, 1 KB to align: 197,632 bytes (src/opt/gemm.c,
 * gemm_smem). KRL_GEMM_WG 0 keeps the mma.sync form.
 */
#ifndef KRL_GEMM_WG
#define KRL_GEMM_WG 1
#endif
#if KRL_GEMM_WG && A_KCONTIG && B_KCONTIG && defined(__CUDA_ARCH_FEAT_SM90_ALL) && BM == 128 && BN == 128 && BK == 32
#define GEMM_WG 1
#ifndef WG_CHUNK
#define WG_CHUNK 4	/* k-tiles summed in the MMAs' registers before the fp32 add */
#endif
#define WG_STAGES 4
#define WG_TILE (128 * 32)	/* floats of one operand's k-tile */
#define WG_STAGE (2 * WG_TILE)	/* A's, then B's */

/* Shared-memory matrix descriptor: start address, leading offset 1 (unused
 * by K-major swizzled layouts), stride 1024 bytes between 8-row groups,
 * 128-byte swizzle. A k8 step further along K adds 32 bytes (2 units). */
static __device__ __forceinline__ unsigned long long wg_desc(unsigned addr)
{
	return (unsigned long long)((addr & 0x3ffffu) >> 4) | (1ull << 16) |
	       (64ull << 32) | (1ull << 62);
}

static __device__ __forceinline__ void wg_fence()
{
	asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

static __device__ __forceinline__ void wg_commit()
{
	asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

static __device__ __forceinline__ void wg_wait0()
{
	asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}

static __device__ __forceinline__ void wg_wait1()
{
	asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
}

/* Generic-proxy stores to shared memory (the split, cp.async) made visible
 * to the tensor cores' reads. */
static __device__ __forceinline__ void wg_fence_smem()
{
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* Keeps the compiler from moving reads of a register across the wait. */
static __device__ __forceinline__ void wg_reg_fence(float &r)
{
	asm volatile("" : "+f"(r) :: "memory");
}

/* d (+)= A(64 x 8) * B(8 x 128), both from shared memory; acc 0 ignores d. */
static __device__ __forceinline__ void wg_mma(float *d, unsigned long long da,
					      unsigned long long db, int acc)
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
		     : "l"(da), "l"(db), "r"(acc));
}

/* Issue the copies of k-tile kt into the stage at shared address st. */
static __device__ __forceinline__ void wg_load(unsigned st, const float *__restrict__ A,
					       const float *__restrict__ B, int M, int N, int K,
					       int lda, int ldb, int m0, int n0, int kt, int tid)
{
	const int q = tid & 7, k = kt * BK + q * 4;
#pragma unroll
	for (int i = 0; i < 8; i++) {	/* 0-3: A's 128 rows, 4-7: B's */
		const int r = (tid >> 3) + 32 * (i & 3);
		const unsigned dst = st + (i >> 2) * WG_TILE * 4 + r * 128 + ((q ^ (r & 7)) << 4);
		const int gr = (i < 4 ? m0 : n0) + r;
		const bool ok = gr < (i < 4 ? M : N) && k < K;
		const float *src = i < 4 ? A + (long)gr * lda + k : B + (long)gr * ldb + k;
		cp_async16(dst, ok ? src : A, ok ? 16 : 0);
	}
}

/* Split a stage's 8192 floats: big in place, small at the same offset. */
static __device__ __forceinline__ void wg_split(float *raw, float *small, int tid)
{
#pragma unroll
	for (int i = 0; i < 8; i++) {
		const int o = (tid + i * 256) * 4;
		const float4 v = *reinterpret_cast<const float4 *>(raw + o);
		float4 b, s;
		b.x = __uint_as_float(tf32_round(v.x));
		b.y = __uint_as_float(tf32_round(v.y));
		b.z = __uint_as_float(tf32_round(v.z));
		b.w = __uint_as_float(tf32_round(v.w));
		s.x = v.x - b.x;
		s.y = v.y - b.y;
		s.z = v.z - b.z;
		s.w = v.w - b.w;
		*reinterpret_cast<float4 *>(raw + o) = b;
		*reinterpret_cast<float4 *>(small + o) = s;
	}
}

/* Issue (and commit) a k-tile's 12 MMAs into d for warpgroup wg: the
 * tile's big halves at shared address ra, its small halves at sa; acc 0
 * starts d afresh. */
static __device__ __forceinline__ void wg_tile(float *d, unsigned ra, unsigned sa, int wg, int acc)
{
	const unsigned long long dab = wg_desc(ra + wg * 64 * 128);
	const unsigned long long das = wg_desc(sa + wg * 64 * 128);
	const unsigned long long dbb = wg_desc(ra + WG_TILE * 4);
	const unsigned long long dbs = wg_desc(sa + WG_TILE * 4);
	wg_fence();
#pragma unroll
	for (int kk = 0; kk < 4; kk++) {
		wg_mma(d, das + 2 * kk, dbb + 2 * kk, kk != 0 || acc);
		wg_mma(d, dab + 2 * kk, dbs + 2 * kk, 1);
		wg_mma(d, dab + 2 * kk, dbb + 2 * kk, 1);
	}
	wg_commit();
}

/* One block tile of C (corner m0, n0) over k-tiles [kt0, kt1): the Hopper
 * form of gemm_block (same arguments, 256 threads). */
template <class E>
static __device__ __forceinline__ void gemm_block_wg(const float *__restrict__ A, const float *__restrict__ B,
						     float *__restrict__ C, int M, int N, int K, int lda,
						     int ldb, int m0, int n0, const E &e, int kt0, int kt1)
{
	extern __shared__ __align__(16) float smem[];
	const unsigned s0 = smem_u32(smem);
	const unsigned pad = ((s0 + 1023u) & ~1023u) - s0;
	float *raw = smem + pad / 4;			/* [WG_STAGES][WG_STAGE] */
	float *small = raw + WG_STAGES * WG_STAGE;	/* [2][WG_STAGE] */
	const unsigned rs = s0 + pad, ss = rs + WG_STAGES * WG_STAGE * 4;
	const int tid = threadIdx.x, wg = tid >> 7;

	float acc[64], part[64];
#pragma unroll
	for (int i = 0; i < 64; i++)
		acc[i] = part[i] = 0.f;

#pragma unroll
	for (int s = 0; s < WG_STAGES; s++) {
		if (kt0 + s < kt1)
			wg_load(rs + s * WG_STAGE * 4, A, B, M, N, K, lda, ldb, m0, n0, kt0 + s, tid);
		cp_async_commit();
	}
	if (kt0 < kt1) {
		cp_async_wait<WG_STAGES - 1>();
		__syncthreads();
		wg_split(raw, small, tid);
		wg_fence_smem();
	}
	__syncthreads();

	/* k-tile i's MMAs accumulate onto tile i - 1's (scale-d 0 only at a
	 * chunk's first), and the wait leaves them in flight: after
	 * it, tile i - 1's MMAs are done, so its stage is refilled (with tile
	 * i - 1 + WG_STAGES) and the small buffer it read takes tile i + 1's
	 * split. The fp32 add to the running sum comes at a chunk's end. Tile
	 * t's copies are group t (t < WG_STAGES) or t + 1 (iteration 0 commits
	 * an empty group). */
	for (int kt = kt0; kt < kt1; kt++) {
		const int i = kt - kt0, st = i % WG_STAGES, sm = i & 1;
		const int fresh = i % WG_CHUNK == 0;
		if (fresh) {
#pragma unroll
			for (int r = 0; r < 64; r++)
				wg_reg_fence(part[r]);
		}
		wg_tile(part, rs + st * WG_STAGE * 4, ss + sm * WG_STAGE * 4, wg, !fresh);
		wg_wait1();
		__syncthreads();	/* every warpgroup's tile i - 1 is done */
		if (kt + 1 < kt1) {
			cp_async_wait<WG_STAGES - 3>();
			__syncthreads();
			wg_split(raw + ((i + 1) % WG_STAGES) * WG_STAGE, small + ((i + 1) & 1) * WG_STAGE, tid);
			wg_fence_smem();
		}
		if (i >= 1 && kt - 1 + WG_STAGES < kt1)
			wg_load(rs + ((i - 1) % WG_STAGES) * WG_STAGE * 4, A, B, M, N, K, lda, ldb, m0, n0,
				kt - 1 + WG_STAGES, tid);
		cp_async_commit();
		if ((i + 1) % WG_CHUNK == 0 || kt + 1 == kt1) {
			wg_wait0();
#pragma unroll
			for (int r = 0; r < 64; r++) {
				wg_reg_fence(part[r]);
				acc[r] += part[r];
			}
		}
		__syncthreads();	/* tile i + 1's split is written */
	}
	wg_wait0();
	cp_async_wait<0>();

	/* Warp w of the warpgroup holds rows 16 w .. 16 w + 15 of its 64; for
	 * each n8 block j, lane (g, t) holds (g, 8 j + 2 t), (g, 8 j + 2 t + 1),
	 * (g + 8, 8 j + 2 t), (g + 8, 8 j + 2 t + 1) in acc[4 j .. 4 j + 3]. */
	const int lane = tid & 31, g = lane >> 2, t = lane & 3;
	const int rw = m0 + wg * 64 + ((tid >> 5) & 3) * 16 + g;
	const bool pair = (N & 1) == 0;
#pragma unroll
	for (int j = 0; j < 16; j++) {
		const int col = n0 + j * 8 + 2 * t;
#pragma unroll
		for (int h = 0; h < 2; h++) {
			const int row = rw + 8 * h;
			if (row >= M)
				continue;
			float *dst = C + (long)row * N + col;
			if (pair && col + 1 < N) {
				const float v0 = e(acc[4 * j + 2 * h], row, col);
				const float v1 = e(acc[4 * j + 2 * h + 1], row, col + 1);
				*reinterpret_cast<float2 *>(dst) = make_float2(v0, v1);
			} else {
				if (col < N)
					dst[0] = e(acc[4 * j + 2 * h], row, col);
				if (col + 1 < N)
					dst[1] = e(acc[4 * j + 2 * h + 1], row, col + 1);
			}
		}
	}
}
#else
#define GEMM_WG 0
#endif

/* One block tile of C (corner m0, n0), summing the k-tiles [kt0, kt1). */
template <bool VEC, class E>
static __device__ __forceinline__ void gemm_block(const float *__restrict__ A, const float *__restrict__ B,
						  float *__restrict__ C, int M, int N, int K, int lda,
						  int ldb, int m0, int n0, const E &e, int kt0, int kt1)
{
#if GEMM_WG
	if (VEC) {
		gemm_block_wg(A, B, C, M, N, K, lda, ldb, m0, n0, e, kt0, kt1);
		return;
	}
#endif
	extern __shared__ __align__(16) float smem[];
	float *sA = smem;
	float *sB = smem + STAGES * A_STAGE;

	const int tid = threadIdx.x;
	const int lane = tid & 31, warp = tid >> 5;
	const int g = lane >> 2, t = lane & 3;
	const int wm0 = (warp / (BN / WN)) * WM;	/* warp's tile corner in the block tile */
	const int wn0 = (warp % (BN / WN)) * WN;

	float acc[MT][NT][4];
#pragma unroll
	for (int i = 0; i < MT; i++)
#pragma unroll
		for (int j = 0; j < NT; j++)
#pragma unroll
			for (int e = 0; e < 4; e++)
				acc[i][j][e] = 0.f;

	/* Prologue: STAGES - 1 tiles in flight (a group per tile, empty or not);
	 * k-tile kt sits in stage (kt - kt0) % STAGES. */
#pragma unroll
	for (int s = 0; s < STAGES - 1; s++) {
		if (kt0 + s < kt1)
			load_stage<VEC>(sA, sB, A, B, M, N, K, lda, ldb, m0, n0, kt0 + s, s, tid);
		cp_async_commit();
	}

	for (int kt = kt0; kt < kt1; kt++) {
		/* Tile kt has landed for this thread; the barrier makes it
		 * visible to all, and tells everyone that stage (kt - 1) % STAGES
		 * is no longer being read, so it can be refilled. */
		cp_async_wait<STAGES - 2>();
		__syncthreads();
		{
			const int nk = kt + STAGES - 1;
			if (nk < kt1)
				load_stage<VEC>(sA, sB, A, B, M, N, K, lda, ldb, m0, n0, nk,
						(nk - kt0) % STAGES, tid);
			cp_async_commit();
		}

		/* The tensor core's fp32 accumulation truncates, and over a long K
		 * those one-sided errors add up (2.5e-2 at K = 8192, against 1.4e-3
		 * for SGEMM).  So each k-tile accumulates into fresh registers,
		 * whose partial sums stay small (32 terms), and is then added to
		 * the running sum with a round-to-nearest FADD. */
		float part[MT][NT][4];
#pragma unroll
		for (int i = 0; i < MT; i++)
#pragma unroll
			for (int j = 0; j < NT; j++)
#pragma unroll
				for (int e = 0; e < 4; e++)
					part[i][j][e] = 0.f;

		const int st = (kt - kt0) % STAGES;
		const float *a = sA + st * A_STAGE;
		const float *b = sB + st * B_STAGE;
#pragma unroll
		for (int kb = 0; kb < BK; kb += 8) {
			/* B fragments of this k8 step, split into big and small. */
			unsigned bb[NT][2], bs[NT][2];
#pragma unroll
			for (int j = 0; j < NT; j++) {
				const int n = wn0 + j * 8 + g;
				float y0, y1;
#if B_KCONTIG
				const float2 p = *reinterpret_cast<const float2 *>(b + n * B_LD + kb + 2 * t);
				y0 = p.x;
				y1 = p.y;
#else
				y0 = b[(kb + 2 * t) * B_LD + n];
				y1 = b[(kb + 2 * t + 1) * B_LD + n];
#endif
				split_tf32(y0, bb[j][0], bs[j][0]);
				split_tf32(y1, bb[j][1], bs[j][1]);
			}
#pragma unroll
			for (int i = 0; i < MT; i++) {
				const int m = wm0 + i * 16 + g;
				float x0, x1, x2, x3;	/* (g, slot t), (g+8, t), (g, t+4), (g+8, t+4) */
#if A_KCONTIG
				const float2 p = *reinterpret_cast<const float2 *>(a + m * A_LD + kb + 2 * t);
				const float2 q = *reinterpret_cast<const float2 *>(a + (m + 8) * A_LD + kb + 2 * t);
				x0 = p.x;
				x1 = q.x;
				x2 = p.y;
				x3 = q.y;
#else
				x0 = a[(kb + 2 * t) * A_LD + m];
				x1 = a[(kb + 2 * t) * A_LD + m + 8];
				x2 = a[(kb + 2 * t + 1) * A_LD + m];
				x3 = a[(kb + 2 * t + 1) * A_LD + m + 8];
#endif
				unsigned ab[4], as[4];
				split_tf32(x0, ab[0], as[0]);
				split_tf32(x1, ab[1], as[1]);
				split_tf32(x2, ab[2], as[2]);
				split_tf32(x3, ab[3], as[3]);
				/* 3xTF32: the small*small term (~2^-22 relative) is dropped;
				 * the small terms go first so they are not lost under the big one. */
#pragma unroll
				for (int j = 0; j < NT; j++) {
					mma_tf32(part[i][j], as, bb[j]);
					mma_tf32(part[i][j], ab, bs[j]);
					mma_tf32(part[i][j], ab, bb[j]);
				}
			}
		}
#pragma unroll
		for (int i = 0; i < MT; i++)
#pragma unroll
			for (int j = 0; j < NT; j++)
#pragma unroll
				for (int e = 0; e < 4; e++)
					acc[i][j][e] += part[i][j][e];
	}
	cp_async_wait<0>();

	/* Epilogue: guarded stores straight from the accumulators, each
	 * element through e (only for elements inside C). */
	const bool pair = (N & 1) == 0;	/* 8-byte stores are aligned */
#pragma unroll
	for (int i = 0; i < MT; i++) {
#pragma unroll
		for (int j = 0; j < NT; j++) {
			const int col = n0 + wn0 + j * 8 + 2 * t;
#pragma unroll
			for (int h = 0; h < 2; h++) {
				const int row = m0 + wm0 + i * 16 + g + 8 * h;
				if (row >= M)
					continue;
				float *dst = C + (long)row * N + col;
				if (pair && col + 1 < N) {
					const float v0 = e(acc[i][j][2 * h], row, col);
					const float v1 = e(acc[i][j][2 * h + 1], row, col + 1);
					*reinterpret_cast<float2 *>(dst) = make_float2(v0, v1);
				} else {
					if (col < N)
						dst[0] = e(acc[i][j][2 * h], row, col);
					if (col + 1 < N)
						dst[1] = e(acc[i][j][2 * h + 1], row, col + 1);
				}
			}
		}
	}
}

/* Block index -> (tile row, tile column), GROUP_M tile rows at a time so that
 * blocks running together share A and B panels in L2. */
static __device__ __forceinline__ void tile_of_block(int M, int N, int &m0, int &n0)
{
	const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
	const int pid = blockIdx.x;
	const int span = GROUP_M * tiles_n;
	const int first = (pid / span) * GROUP_M;
	const int rows = min(tiles_m - first, GROUP_M);
	const int in = pid % span;
	m0 = (first + in % rows) * BM;
	n0 = (in / rows) * BN;
}

/* The kernel body: pick the 16-byte copy path when every row of A and B is
 * 16-byte aligned, else the 4-byte one (small odd shapes); e is the
 * epilogue (gemm_tri or a generated functor). */
template <class E>
static __device__ __forceinline__ void gemm_entry(const float *__restrict__ A, const float *__restrict__ B,
						  float *__restrict__ C, int M, int N, int K, int lda, int ldb,
						  const E &e)
{
	int m0, n0;
	tile_of_block(M, N, m0, n0);
	const bool vec = ((lda | ldb) & 3) == 0 &&
			 ((reinterpret_cast<unsigned long long>(A) |
			   reinterpret_cast<unsigned long long>(B)) & 15) == 0;
	const int kt1 = (K + BK - 1) / BK;
	if (vec)
		gemm_block<true>(A, B, C, M, N, K, lda, ldb, m0, n0, e, 0, kt1);
	else
		gemm_block<false>(A, B, C, M, N, K, lda, ldb, m0, n0, e, 0, kt1);
}

/* The masked pair's forms (src/opt/codegen_gemm.c, a causal mask):
 * rng[2 b] and rng[2 b + 1] bound the columns of C's rows that matter in
 * row block b = m0 / BM (written by init from the mask). MODE 1, the
 * product whose chain masks: a tile whose columns [n0, n0 + BN) miss
 * [rng[2 b], rng[2 b + 1]) is neither computed nor stored (every element
 * of it is zero by the chain, and the only reader, the MODE 2 product,
 * never looks there). MODE 2, the product that reads it as A: only the
 * k-tiles that meet that range are summed (A is zero elsewhere). */
template <int MODE, class E>
static __device__ __forceinline__ void gemm_entry_rng(const float *__restrict__ A,
						      const float *__restrict__ B,
						      float *__restrict__ C, int M, int N, int K,
						      int lda, int ldb, const int *__restrict__ rng,
						      const E &e)
{
	int m0, n0;
	tile_of_block(M, N, m0, n0);
	const int lo = rng[2 * (m0 / BM)], hi = rng[2 * (m0 / BM) + 1];
	int kt0 = 0, kt1 = (K + BK - 1) / BK;
	if (MODE == 1 && (n0 >= hi || n0 + BN <= lo))
		return;
	if (MODE == 2) {
		kt0 = lo / BK;
		kt1 = min(kt1, (hi + BK - 1) / BK);
		if (kt1 < kt0)
			kt1 = kt0;
	}
	const bool vec = ((lda | ldb) & 3) == 0 &&
			 ((reinterpret_cast<unsigned long long>(A) |
			   reinterpret_cast<unsigned long long>(B)) & 15) == 0;
	if (vec)
		gemm_block<true>(A, B, C, M, N, K, lda, ldb, m0, n0, e, kt0, kt1);
	else
		gemm_block<false>(A, B, C, M, N, K, lda, ldb, m0, n0, e, kt0, kt1);
}
