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
 * optimizer's `lib.layout=nhwc_y`), never a task's output. */
enum { KRL_LAYOUT_NCHW = 0, KRL_LAYOUT_NHWC = 1, KRL_LAYOUT_NHWC_Y = 2 };

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
