/*
 * kernelrl: the layout changes of the cuDNN convolutions under
 * `layout=nhwc` (docs/ops-conv.md, "Layout"): x to channels-last before
 * cuDNN, w to cuDNN's NHWC filter format, y back to channels-first after
 * it, the bias (if any) added on the way back. Each is a batch of matrix
 * transposes in [nb, nr, nq] -> out [nb, nq, nr]; the index math is in
 * conv_layout.h, shared with the CPU tests.
 *
 * The kernel is the classic shared-memory transpose: a block moves one
 * 32 x 32 tile, reading it along q (coalesced in the input) into shared
 * memory and writing it along r (coalesced in the output); the tile has a
 * padding column so that the column-wise reads of shared memory hit 32
 * different banks. Exact: a copy, plus one fp32 add per element when a
 * bias is given (the same add cudnnAddTensor makes on the NCHW path).
 * 64-bit offsets; the blocks walk the batch in a grid-stride loop.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "ops/conv/conv_layout.h"
#include "ops/conv/conv.h"

#define TR_MAX_GRID_Y 65535

/* Blocks: x over the tiles of one matrix, y (strided) over the batch;
 * threads KRL_TR_TILE x KRL_TR_ROWS. out[b, q, r] = in[b, r, q] (+ add[q]).
 * The two steps of each tile are conv_layout.h's, which the CPU tests run
 * thread by thread. */
__global__ void __launch_bounds__(KRL_TR_TILE * KRL_TR_ROWS)
transpose_kernel(const float *__restrict__ in, float *__restrict__ out,
                 int64_t nb, int64_t nr, int64_t nq,
                 const float *__restrict__ add)
{
	__shared__ float tile[KRL_TR_TILE][KRL_TR_TILE + 1];
	int64_t r0, q0;
	krl_tr_tile(blockIdx.x, nq, &r0, &q0);
	for (int64_t b = blockIdx.y; b < nb; b += gridDim.y) {
		krl_tr_load(in, tile, b, r0, q0, threadIdx.x, threadIdx.y, nr,
		            nq);
		__syncthreads();
		krl_tr_store(out, tile, add, b, r0, q0, threadIdx.x, threadIdx.y,
		             nr, nq);
		/* the tile is refilled for the next b */
		__syncthreads();
	}
}

extern "C" int krl_k_transpose(const float *in, float *out, int64_t nb,
                               int64_t nr, int64_t nq, const float *add,
                               void *stream)
{
	if (nb <= 0 || nr <= 0 || nq <= 0)
		return 0;
	int64_t tiles = krl_tr_tiles(nr, nq);
	if (tiles > 0x7fffffff)
		return (int)cudaErrorInvalidValue;
	dim3 grid((unsigned)tiles,
	          (unsigned)(nb < TR_MAX_GRID_Y ? nb : TR_MAX_GRID_Y));
	dim3 block(KRL_TR_TILE, KRL_TR_ROWS);
	transpose_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(
		in, out, nb, nr, nq, add);
	return (int)cudaGetLastError();
}
