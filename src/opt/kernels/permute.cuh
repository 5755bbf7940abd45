/* ---- kernelrl's permute copy (src/opt/kernels/permute.cuh) ---- */

/*
 * y = x.permute(p).contiguous() for 4-byte elements, the dims that stay
 * adjacent merged by the code generator (src/opt/codegen_perm.c): y has
 * M dims sz[0 .. M-1] and is contiguous; st[j] is x's stride of y's dim
 * j (the stride of the x dims it merges). Two forms:
 *
 * - `inner`: x's last dim is y's last (st[M-1] = 1), so a row of y is a
 *   run of x. A thread copies 4 elements at a time (float4) where the
 *   row's length D is a multiple of 4 and both pointers 16-byte aligned
 *   (every other stride of x is then a multiple of D), else one; vectors
 *   are numbered along y, a grid-stride loop over them, so a warp's loads
 *   and stores are runs. A vector's row is split into coordinates by
 *   multiply-high division (dividers set up once a thread) where the
 *   element count fits 31 bits, by 64-bit division beyond.
 *
 * - `tile`: x's last dim is y's dim JL < M-1, y's last dim is x's dim of
 *   stride st[M-1]. A block (32 x 8 threads) moves a 32 x 32 tile through
 *   shared memory: read along x's last dim, written along y's last, both
 *   coalesced; the other dims' coordinates (blockIdx.y, a stride loop
 *   past 65535) are split once a tile. With PIPE (perm.impl=pipe) a
 *   block's next tile is loaded into registers while the current one is
 *   stored from shared memory, so the loop's loads and stores overlap
 *   (a block walks many small tiles: 49's states permute, 49,152 slices
 *   of 64 x 16 over at most 2048 blocks).
 *
 * Either form writes every element of y once and reads every element of
 * x once (a permutation is a bijection); nothing is computed.
 */
namespace perm {

constexpr int TILE = 32;
constexpr int TROWS = 8;	/* a tile's rows a pass: blockDim.y */
constexpr int STEPS = 8;	/* vectors a thread in `inner` (the grid) */

/* n / d for n < 2^31 by a multiply-high: s = ceil(log2 d), m = floor(2^32
 * (2^s - d) / d) + 1, so n / d = (mulhi(n, m) + n) >> s. */
struct udiv {
	unsigned d, m;
	int s;
	__device__ __forceinline__ void set(unsigned dd)
	{
		d = dd;
		s = 0;
		while (s < 32 && (1ull << s) < dd)
			s++;
		m = (unsigned)((((1ull << 32) * ((1ull << s) - dd)) / dd) + 1);
	}
	__device__ __forceinline__ unsigned div(unsigned n) const
	{
		return (__umulhi(n, m) + n) >> s;
	}
};

/* The run of 4 (VEC) or 1 element(s) at element e0 of y, its row split
 * by the dividers (32-bit path). */
template <int M, int VEC>
static __device__ __forceinline__ void inner_run32(const float *__restrict__ x,
						   float *__restrict__ y,
						   const udiv *dv,
						   const unsigned *st,
						   unsigned v)
{
	unsigned row = dv[M - 1].div(v);	/* dv[M-1]: D / VEC */
	unsigned col = v - row * dv[M - 1].d;
	unsigned off = col * VEC;
#pragma unroll
	for (int j = M - 2; j >= 0; j--) {
		unsigned q = j ? dv[j].div(row) : 0;
		unsigned c = j ? row - q * dv[j].d : row;
		off += c * st[j];
		row = q;
	}
	if (VEC == 4)
		reinterpret_cast<float4 *>(y)[v] =
			*reinterpret_cast<const float4 *>(x + off);
	else
		y[v] = x[off];
}

template <int M, int VEC>
static __device__ void inner32(const float *__restrict__ x,
			       float *__restrict__ y, const long *sz,
			       const long *st, unsigned nv)
{
	udiv dv[M];
	unsigned s32[M];
#pragma unroll
	for (int j = 0; j < M; j++) {
		dv[j].set((unsigned)(j == M - 1 ? sz[j] / VEC : sz[j]));
		s32[j] = (unsigned)st[j];
	}
	for (unsigned v = blockIdx.x * blockDim.x + threadIdx.x; v < nv;
	     v += gridDim.x * blockDim.x)
		inner_run32<M, VEC>(x, y, dv, s32, v);
}

/* Past 31 bits: 64-bit division, one element at a time. */
template <int M>
static __device__ void inner64(const float *__restrict__ x,
			       float *__restrict__ y, const long *sz,
			       const long *st, long n)
{
	for (long e = (long)blockIdx.x * blockDim.x + threadIdx.x; e < n;
	     e += (long)gridDim.x * blockDim.x) {
		long r = e, off = 0;
#pragma unroll
		for (int j = M - 1; j >= 0; j--) {
			long q = j ? r / sz[j] : 0;
			off += (j ? r - q * sz[j] : r) * st[j];
			r = q;
		}
		y[e] = x[off];
	}
}

/* The `inner` form: sz, st as in the file's comment, st[M-1] = 1. */
template <int M>
static __device__ void inner(const float *__restrict__ x,
			     float *__restrict__ y, const long *sz,
			     const long *st)
{
	long n = 1;
#pragma unroll
	for (int j = 0; j < M; j++)
		n *= sz[j];
	if (n <= 0)
		return;
	if (n > 0x7fffffffL) {
		inner64<M>(x, y, sz, st, n);
		return;
	}
	const long D = sz[M - 1];
	if (D % 4 == 0 && !((unsigned long)x & 15) && !((unsigned long)y & 15))
		inner32<M, 4>(x, y, sz, st, (unsigned)(n / 4));
	else
		inner32<M, 1>(x, y, sz, st, (unsigned)n);
}

/* The `tile` form: x's last dim is y's dim JL (< M - 1); PIPE: the next
 * tile's loads in flight while this one is stored. */
template <int M, int JL, bool PIPE = false>
static __device__ void tile(const float *__restrict__ x,
			   float *__restrict__ y, const long *sz,
			   const long *st)
{
	__shared__ float t[TILE][TILE + 1];
	long ost[M];
	ost[M - 1] = 1;
#pragma unroll
	for (int j = M - 2; j >= 0; j--)
		ost[j] = ost[j + 1] * sz[j + 1];
	const long U = sz[JL], V = sz[M - 1], sa = st[M - 1], su = ost[JL];
	long rest = 1;
#pragma unroll
	for (int j = 0; j < M - 1; j++)
		if (j != JL)
			rest *= sz[j];
	/* block and slice indices in 32 bits where they fit (a 64-bit
	 * division is ~70 instructions, and a tile moves only 1024 elements:
	 * 49's 49,152 slices of 64 x 16 ran at 0.63 TB/s so on the H100) */
	const unsigned ntu = (unsigned)((U + TILE - 1) / TILE);
	const long u0 = (long)(blockIdx.x % ntu) * TILE;
	const long v0 = (long)(blockIdx.x / ntu) * TILE;
	const int tx = threadIdx.x, ty = threadIdx.y;
	bool small = rest < 0x7fffffffL;
#pragma unroll
	for (int j = 0; j < M - 1; j++)
		small = small && sz[j] < 0x7fffffffL;
	/* where slice z starts in x and in y */
	auto slice = [&](long z, long &xo, long &yo) {
		long r = z;
		xo = 0;
		yo = 0;
#pragma unroll
		for (int j = M - 2; j >= 0; j--) {
			if (j == JL)
				continue;
			long q, c;
			if (small) {
				const unsigned d = (unsigned)sz[j];
				const unsigned qq = (unsigned)r / d;
				q = qq;
				c = (long)((unsigned)r - qq * d);
			} else {
				q = r / sz[j];
				c = r - q * sz[j];
			}
			xo += c * st[j];
			yo += c * ost[j];
			r = q;
		}
	};
	/* the tile's element of row k of this thread, from the slice at xo
	 * (0 past the slice's edges: never stored, store checks them) */
	auto load = [&](long xo, int k) {
		long u = u0 + tx, v = v0 + ty + k;
		return u < U && v < V ? x[xo + v * sa + u] : 0.f;
	};
	/* the tile, out of shared memory into the slice at yo */
	auto store = [&](long yo) {
#pragma unroll
		for (int k = 0; k < TILE; k += TROWS) {
			long u = u0 + ty + k, v = v0 + tx;
			if (u < U && v < V)
				y[yo + u * su + v] = t[tx][ty + k];
		}
	};
	if (PIPE) {
		constexpr int NR = TILE / TROWS;
		long z = blockIdx.y, xo, yo;
		if (z >= rest)
			return;
		slice(z, xo, yo);
		float rv[NR];
#pragma unroll
		for (int k = 0; k < NR; k++)
			rv[k] = load(xo, k * TROWS);
		for (;;) {
#pragma unroll
			for (int k = 0; k < NR; k++)
				t[ty + k * TROWS][tx] = rv[k];
			__syncthreads();
			/* the next slice's tile, loaded while this one goes out */
			const long zn = z + gridDim.y;
			long xn = 0, yn = 0;
			if (zn < rest) {
				slice(zn, xn, yn);
#pragma unroll
				for (int k = 0; k < NR; k++)
					rv[k] = load(xn, k * TROWS);
			}
			store(yo);
			__syncthreads();
			if (zn >= rest)
				break;
			z = zn;
			xo = xn;
			yo = yn;
		}
		return;
	}
	for (long z = blockIdx.y; z < rest; z += gridDim.y) {
		long xo, yo;
		slice(z, xo, yo);
#pragma unroll
		for (int k = 0; k < TILE; k += TROWS)
			t[ty + k][tx] = load(xo, k);
		__syncthreads();
		store(yo);
		__syncthreads();
	}
}

} /* namespace perm */
