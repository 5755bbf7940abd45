/*
 * kernelrl: the index math of the conv family's layout changes
 * (`layout=nhwc`, docs/ops-conv.md "Layout"), as inline functions that the
 * transpose kernel (conv_layout.cu), the cuDNN driver (run.c) and the
 * CPU tests (tests/ops/test_golden_conv.c) share: the tests check the very
 * arithmetic the GPU runs. Plain C and CUDA; nothing else included.
 *
 * Every layout change the family makes is a batch of matrix transposes,
 * in [nb, nr, nq] -> out [nb, nq, nr], both packed:
 *
 *   x  [N, C, s...]      -> [N, s..., C]      nb = N, nr = C,  nq = prod(s)
 *   w  [K, C/g, k...]    -> [K, k..., C/g]    nb = K, nr = C/g, nq = prod(k)
 *   y' [N, s..., C]      -> y [N, C, s...]    nb = N, nr = prod(s), nq = C
 *
 * (x and y channels-last, w as cuDNN's NHWC filter format KRSC; a
 * transposed convolution's w [Cin, Cout/g, k...] the same way, its first
 * dim playing K.)
 */
#ifndef KRL_OPS_CONV_LAYOUT_H
#define KRL_OPS_CONV_LAYOUT_H

#include <stdint.h>

#ifdef __CUDACC__
#define KRL_HD __host__ __device__
#else
#define KRL_HD
#endif

/* The memory layouts of the `layout` attribute (its words, in order:
 * krl_attr_words("layout")). NHWC_Y runs as NHWC but leaves y
 * channels-last in the output buffer, [N, s..., C] in memory under the
 * output's NCHW dims: for a generated kernel that reads it so (the
 * optimizer's `lib.layout=nhwc_y`), never a task's output. NHWC_XY is
 * NHWC_Y with x already channels-last in its buffer (a generated kernel
 * wrote it so: the optimizer's `lib.layout=nhwc_xy`), never a task's
 * input. */
enum { KRL_LAYOUT_NCHW = 0, KRL_LAYOUT_NHWC = 1, KRL_LAYOUT_NHWC_Y = 2,
       KRL_LAYOUT_NHWC_XY = 3 };

/* The memory orders of w (the `w_layout` attribute's words, in order):
 * as its dims say, [A, B, k...], or cuDNN's channels-last filter format
 * [A, k..., B] (what layout=nhwc transposes it to on every call; a
 * candidate may keep such a copy in a derived buffer instead). */
enum { KRL_WLAYOUT_KCRS = 0, KRL_WLAYOUT_KRSC = 1 };

/* Whether layout word index v leaves y channels-last in the output
 * buffer (NHWC_Y, NHWC_XY). */
static inline KRL_HD int krl_layout_keeps_y(double v)
{
	return v == KRL_LAYOUT_NHWC_Y || v == KRL_LAYOUT_NHWC_XY;
}

/* The transpose kernel's tile: KRL_TR_TILE x KRL_TR_TILE elements moved
 * by a block of KRL_TR_TILE x KRL_TR_ROWS threads, each thread moving
 * KRL_TR_TILE / KRL_TR_ROWS elements in and as many out. */
#define KRL_TR_TILE 32
#define KRL_TR_ROWS 8

/* The tiles covering one [nr, nq] matrix. */
static inline KRL_HD int64_t krl_tr_tiles(int64_t nr, int64_t nq)
{
	return ((nr + KRL_TR_TILE - 1) / KRL_TR_TILE) *
	       ((nq + KRL_TR_TILE - 1) / KRL_TR_TILE);
}

/* The first row r0 and column q0 of tile t (tiles in row-major order). */
static inline KRL_HD void krl_tr_tile(int64_t t, int64_t nq, int64_t *r0,
                                      int64_t *q0)
{
	int64_t per_row = (nq + KRL_TR_TILE - 1) / KRL_TR_TILE;
	*r0 = t / per_row * KRL_TR_TILE;
	*q0 = t % per_row * KRL_TR_TILE;
}

/* Where element (b, r, q) is in the input [nb, nr, nq] ... */
static inline KRL_HD int64_t krl_tr_src(int64_t b, int64_t r, int64_t q,
                                        int64_t nr, int64_t nq)
{
	return (b * nr + r) * nq + q;
}

/* ... and in the output [nb, nq, nr]. */
static inline KRL_HD int64_t krl_tr_dst(int64_t b, int64_t r, int64_t q,
                                        int64_t nr, int64_t nq)
{
	return (b * nq + q) * nr + r;
}

/* The load step of thread (tx, ty) of the block on tile (r0, q0) of
 * matrix b: its elements of rows r0 + ty, r0 + ty + KRL_TR_ROWS, ... and
 * column q0 + tx of the input (consecutive threads, consecutive
 * addresses) into the tile, row j of the tile holding row r0 + j. */
static inline KRL_HD void krl_tr_load(const float *in,
                                      float (*tile)[KRL_TR_TILE + 1],
                                      int64_t b, int64_t r0, int64_t q0,
                                      int tx, int ty, int64_t nr,
                                      int64_t nq)
{
	for (int j = ty; j < KRL_TR_TILE; j += KRL_TR_ROWS) {
		int64_t r = r0 + j, q = q0 + tx;
		if (r < nr && q < nq)
			tile[j][tx] = in[krl_tr_src(b, r, q, nr, nq)];
	}
}

/* The store step, once every thread of the block has loaded: thread
 * (tx, ty) writes rows q0 + ty, q0 + ty + KRL_TR_ROWS, ... and column
 * r0 + tx of the output (consecutive threads, consecutive addresses),
 * reading the tile down a column, plus add[q] when add is not NULL. */
static inline KRL_HD void krl_tr_store(float *out,
                                       float (*tile)[KRL_TR_TILE + 1],
                                       const float *add, int64_t b,
                                       int64_t r0, int64_t q0, int tx,
                                       int ty, int64_t nr, int64_t nq)
{
	for (int j = ty; j < KRL_TR_TILE; j += KRL_TR_ROWS) {
		int64_t r = r0 + tx, q = q0 + j;
		if (r < nr && q < nq) {
			float v = tile[tx][j];
			if (add)
				v += add[q];
			out[krl_tr_dst(b, r, q, nr, nq)] = v;
		}
	}
}

/*
 * The kernels. transpose_kernel above (the classic one: 32 x 32 tiles,
 * scalar accesses) moves any batch, but at ~0.38 of the copy rate on the
 * H200 for a convolution's x (bench/transpose_probe: its tiles are small,
 * and two blocks far apart in time write the halves of each output row).
 * Two more serve most batches (bench/results/2026-12-02-h200-transpose/):
 * - KRL_TR_TILE4: tiles of KRL_TR4_R x KRL_TR4_Q through shared memory
 *   with 16-byte accesses both ways, tiles r-fastest (a block writes on
 *   where the previous one stopped); nr and nq multiples of 4 and both
 *   tensors 16-byte aligned: 0.85-0.87 of the copy rate on x of 64 and
 *   256 channels.
 * - KRL_TR_PERQ: a thread per (b, q) that reads its nr (at most
 *   KRL_TR_PERQ_MAX) rows and writes them as one run: few channels, where
 *   a 32-row tile would be mostly empty (0.25 of the copy rate on 3
 *   channels, against 0.06; 0.48 on 8, against 0.14).
 */
enum { KRL_TR_CLASSIC = 0, KRL_TR_TILE4 = 1, KRL_TR_PERQ = 2 };

#define KRL_TR4_R 64		/* float4 tile: rows (r) */
#define KRL_TR4_Q 64		/* float4 tile: columns (q) */
#define KRL_TR4_THREADS 256	/* its block */
#define KRL_TR_PERQ_MAX 16	/* most rows a per-q thread moves */
#define KRL_TR_PERQ_THREADS 256

/* The kernel for a batch of [nr, nq] matrices; aligned: both tensors
 * start on a 16-byte boundary. */
static inline KRL_HD int krl_tr_path(int64_t nr, int64_t nq, int aligned)
{
	if (nr <= KRL_TR_PERQ_MAX)
		return KRL_TR_PERQ;
	if (aligned && nr % 4 == 0 && nq % 4 == 0)
		return KRL_TR_TILE4;
	return KRL_TR_CLASSIC;
}

/* Four consecutive floats, 16-byte aligned: one vector access on the
 * GPU, four scalar ones on the host (the CPU tests). */
static inline KRL_HD void krl_tr_ld4(const float *p, float *v)
{
#ifdef __CUDACC__
	float4 t = *reinterpret_cast<const float4 *>(p);
	v[0] = t.x;
	v[1] = t.y;
	v[2] = t.z;
	v[3] = t.w;
#else
	for (int i = 0; i < 4; i++)
		v[i] = p[i];
#endif
}

static inline KRL_HD void krl_tr_st4(float *p, float a, float b, float c,
                                     float d)
{
#ifdef __CUDACC__
	*reinterpret_cast<float4 *>(p) = make_float4(a, b, c, d);
#else
	p[0] = a;
	p[1] = b;
	p[2] = c;
	p[3] = d;
#endif
}

/* The float4 tiles of one [nr, nq] matrix, and the corner of tile t
 * (r-tiles fastest). */
static inline KRL_HD int64_t krl_tr4_tiles(int64_t nr, int64_t nq)
{
	return ((nr + KRL_TR4_R - 1) / KRL_TR4_R) *
	       ((nq + KRL_TR4_Q - 1) / KRL_TR4_Q);
}

static inline KRL_HD void krl_tr4_tile(int64_t t, int64_t nr, int64_t *r0,
                                       int64_t *q0)
{
	int64_t rt = (nr + KRL_TR4_R - 1) / KRL_TR4_R;
	*r0 = t % rt * KRL_TR4_R;
	*q0 = t / rt * KRL_TR4_Q;
}

/* The float4 tile's load step for thread tid (of KRL_TR4_THREADS): each
 * warp step moves 4 rows x 8 float4s (128-byte runs of the input), lane
 * l taking row l / 8 and float4 l % 8; zeros outside the matrix. The
 * tile's rows are KRL_TR4_Q + 1 long, so the scalar shared stores of a
 * step hit 32 banks. */
static inline KRL_HD void krl_tr4_load(const float *in,
                                       float (*tile)[KRL_TR4_Q + 1],
                                       int64_t b, int64_t r0, int64_t q0,
                                       int tid, int64_t nr, int64_t nq)
{
	const int lane = tid & 31, warp = tid >> 5;
	const int steps = KRL_TR4_R * KRL_TR4_Q / 128, warps =
		KRL_TR4_THREADS / 32;
	for (int w = warp; w < steps; w += warps) {
		int rr = w % (KRL_TR4_R / 4) * 4 + (lane >> 3);
		int qq = w / (KRL_TR4_R / 4) * 32 + (lane & 7) * 4;
		int64_t r = r0 + rr, q = q0 + qq;
		float v[4] = { 0.f, 0.f, 0.f, 0.f };
		if (r < nr && q < nq)
			krl_tr_ld4(in + krl_tr_src(b, r, q, nr, nq), v);
		for (int i = 0; i < 4; i++)
			tile[rr][qq + i] = v[i];
	}
}

/* Its store step: each warp step writes 4 output rows (q) x 8 float4s
 * (32 consecutive r), lane l taking row l / 8 and float4 l % 8, plus
 * add[q] when add is not NULL. */
static inline KRL_HD void krl_tr4_store(float *out,
                                        float (*tile)[KRL_TR4_Q + 1],
                                        const float *add, int64_t b,
                                        int64_t r0, int64_t q0, int tid,
                                        int64_t nr, int64_t nq)
{
	const int lane = tid & 31, warp = tid >> 5;
	const int steps = KRL_TR4_R * KRL_TR4_Q / 128, warps =
		KRL_TR4_THREADS / 32;
	for (int w = warp; w < steps; w += warps) {
		int rr = w % (KRL_TR4_R / 32) * 32 + (lane & 7) * 4;
		int qq = w / (KRL_TR4_R / 32) * 4 + (lane >> 3);
		int64_t r = r0 + rr, q = q0 + qq;
		if (r >= nr || q >= nq)
			continue;
		float v[4];
		for (int i = 0; i < 4; i++) {
			v[i] = tile[rr + i][qq];
			if (add)
				v[i] += add[q];
		}
		krl_tr_st4(out + krl_tr_dst(b, r, q, nr, nq), v[0], v[1], v[2],
		           v[3]);
	}
}

/* The per-q kernel's step e (0 <= e < nb nq): matrix b = e / nq, column
 * q = e % nq; its nr loads first (one per row: consecutive threads,
 * consecutive addresses), then one run of nr floats out. */
static inline KRL_HD void krl_trq_step(const float *in, float *out,
                                       const float *add, int64_t e,
                                       int64_t nr, int64_t nq)
{
	int64_t b, q;
	if (((uint64_t)e | (uint64_t)nq) < 0x100000000ull) {
		b = (int64_t)((uint32_t)e / (uint32_t)nq);
		q = (int64_t)((uint32_t)e % (uint32_t)nq);
	} else {
		b = e / nq;
		q = e % nq;
	}
	float v[KRL_TR_PERQ_MAX] = { 0.f };
	for (int r = 0; r < KRL_TR_PERQ_MAX; r++)
		if (r < nr)
			v[r] = in[krl_tr_src(b, r, q, nr, nq)];
	for (int r = 0; r < KRL_TR_PERQ_MAX; r++)
		if (r < nr)
			out[krl_tr_dst(b, r, q, nr, nq)] = add ? v[r] + add[q]
			                                       : v[r];
}

/* The transpose that takes the channels of tensor [d0, d1, s...] (nd
 * dims) last: nb = d0, nr = d1, nq = prod(s). Its inverse swaps nr and
 * nq. */
static inline KRL_HD void krl_tr_channels_last(const int64_t *dim,
                                               int nd, int64_t *nb,
                                               int64_t *nr, int64_t *nq)
{
	*nb = dim[0];
	*nr = dim[1];
	*nq = 1;
	for (int i = 2; i < nd; i++)
		*nq *= dim[i];
}

/* The strides, in elements, of tensor [d0, d1, s...] (nd dims) stored in
 * `layout`: packed for KRL_LAYOUT_NCHW; for KRL_LAYOUT_NHWC the order in
 * memory is d0, s..., d1 (d1 contiguous), which is where
 * krl_tr_channels_last puts each element. */
static inline KRL_HD void krl_layout_strides(const int *dim, int nd,
                                             int layout, int64_t *st)
{
	st[nd - 1] = 1;
	if (layout != KRL_LAYOUT_NHWC || nd < 3) {
		for (int i = nd - 2; i >= 0; i--)
			st[i] = st[i + 1] * dim[i + 1];
		return;
	}
	st[1] = 1;
	st[nd - 1] = dim[1];
	for (int i = nd - 2; i >= 2; i--)
		st[i] = st[i + 1] * dim[i + 1];
	st[0] = st[2] * dim[2];
}

#endif
