/*
 * kernelrl: private declarations of the op family "shape" (family.c,
 * run.c, shape.cu; docs/ops-shape.md): the data-movement ops of the
 * level-3 networks, pad (F.pad constant), roll (torch.roll),
 * index_select (x[idx] along one dim) and permute (a permuted copy).
 *
 * Each kernel launcher enqueues on `stream` (a cudaStream_t) and returns
 * the cudaError_t of its launch as an int, 0 on success; the drivers turn
 * it into KRL_ECUDA with the file and line. Sizes are int64.
 */
#ifndef KRL_OPS_SHAPE_H
#define KRL_OPS_SHAPE_H

#include <stdint.h>

#include "ops/ops_int.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most dims pad may pad (attributes pad0 .. pad7, F.pad's list). */
#define KRL_PAD_MAX_DIMS 4

/* F.pad's list from pad's attributes (family.c): k padded dims (pad0 ..
 * pad{2k-1} given), before[i] and after[i] the amounts of dim
 * ndim - 1 - i (pad{2i}, pad{2i+1}; negative: cropped). Check() has
 * accepted the attributes. */
void krl_pad_amounts(const krl_attrs *a, int *k, int64_t *before,
                     int64_t *after);

/* The start of a roll by shift over a dim of size n (family.c): y[j] =
 * x[(j + start) % n], start = (n - shift) mod n in [0, n); 0 when n is 0. */
int64_t krl_roll_start(int64_t n, int64_t shift);

/* A dim attribute of roll (dim0, dim1) normalised to [0, ndim) (family.c);
 * check() has accepted it in [-ndim, ndim). */
int krl_roll_dim(const krl_attrs *a, const char *key, int ndim);

/* The permutation of permute's attributes p0 .. p{ndim-1} into p
 * (family.c); check() has accepted them. */
void krl_permute_dims(const krl_attrs *a, int ndim, int *p);

/* Most dims of a strided copy (krl_k_strided_copy): pad's outer dim and
 * one per padded dim (5), permute's one per dim of x (8). */
#define KRL_COPY_MAX_DIMS KRL_MAX_DIM

/* A copy of a box of m dims: element (c_0, ..., c_{m-1}) of the box is
 * read at x + in_off + sum c_i * in_stride[i] and written at y + out_off +
 * sum c_i * out_stride[i] (strides and offsets in elements). */
typedef struct krl_copy_box {
	int m;
	int64_t size[KRL_COPY_MAX_DIMS];
	int64_t in_stride[KRL_COPY_MAX_DIMS], out_stride[KRL_COPY_MAX_DIMS];
	int64_t in_off, out_off;
} krl_copy_box;

/* Copies box b of x into y (esize bytes per element: 1, 2, 4 or 8):
 * PyTorch's legacy elementwise copy through OffsetCalculators (128
 * threads, 2 elements a thread, 4 for 1- and 2-byte elements), 32-bit
 * indices where they fit. */
int krl_k_strided_copy(const void *x, void *y, const krl_copy_box *b,
                       int esize, void *stream);

/* y = x rolled along the middle dim of [outer, size, inner] so that
 * y[.., j, ..] = x[.., (j + start) % size, ..]: roll_cuda_kernel's
 * structure, 512-thread blocks, one thread per element in a grid-stride
 * loop, 64-bit index arithmetic. n = outer * size * inner. */
int krl_k_roll(const void *x, void *y, int64_t n, int64_t size,
               int64_t inner, int64_t start, int esize, void *stream);

/* y [outer, nidx, inner] = x [outer, rx, inner] at idx[j] along the middle
 * dim (idx: int64, nidx of them): index_kernel's structure, 128 threads, 4
 * elements a thread. An index outside [0, rx) reads nothing and writes NaN
 * into its output elements. */
int krl_k_index_select(const float *x, const int64_t *idx, float *y,
                       int64_t outer, int64_t rx, int64_t nidx, int64_t inner,
                       void *stream);

/* ==== GPU drivers (run.c) ==== */

KRL_RUN(pad); KRL_RUN(roll); KRL_RUN(index_select); KRL_RUN(permute);

#ifdef __cplusplus
}
#endif
#endif
