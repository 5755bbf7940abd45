/*
 * kernelrl: the layout changes of the cuDNN convolutions under
 * `layout=nhwc` (docs/ops-conv.md, "Layout"): x to channels-last before
 * cuDNN, w to cuDNN's NHWC filter format, y back to channels-first after
 * it, the bias (if any) added on the way back. Each is a batch of matrix
 * transposes in [nb, nr, nq] -> out [nb, nq, nr]; the index math is in
 * conv_layout.h, shared with the CPU tests.
 *
 * Three kernels, chosen by krl_tr_path (conv_layout.h says when each
 * serves and how fast it measured). The classic shared-memory transpose,
 * for any batch: a block moves one
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

/* The float4 tiles (KRL_TR_TILE4): a grid-stride loop over (b, tile),
 * tiles of a matrix r-fastest. */
__global__ void __launch_bounds__(KRL_TR4_THREADS)
transpose4_kernel(const float *__restrict__ in, float *__restrict__ out,
                  int64_t nb, int64_t nr, int64_t nq,
                  const float *__restrict__ add)
{
	__shared__ float tile[KRL_TR4_R][KRL_TR4_Q + 1];
	const int64_t per = krl_tr4_tiles(nr, nq);
	for (int64_t e = blockIdx.x; e < nb * per; e += gridDim.x) {
		int64_t b = e / per, r0, q0;
		krl_tr4_tile(e % per, nr, &r0, &q0);
		krl_tr4_load(in, tile, b, r0, q0, threadIdx.x, nr, nq);
		__syncthreads();
		krl_tr4_store(out, tile, add, b, r0, q0, threadIdx.x, nr, nq);
		/* the tile is refilled for the next e */
		__syncthreads();
	}
}

/* A thread per (b, q) (KRL_TR_PERQ), in a grid-stride loop. */
__global__ void __launch_bounds__(KRL_TR_PERQ_THREADS)
transpose_perq_kernel(const float *__restrict__ in, float *__restrict__ out,
                      int64_t nb, int64_t nr, int64_t nq,
                      const float *__restrict__ add)
{
	for (int64_t e = blockIdx.x * (int64_t)KRL_TR_PERQ_THREADS +
	                 threadIdx.x;
	     e < nb * nq; e += (int64_t)gridDim.x * KRL_TR_PERQ_THREADS)
		krl_trq_step(in, out, add, e, nr, nq);
}

/* Blocks for a grid-stride kernel with `items` blocks' worth of work:
 * 8 resident blocks per multiprocessor at most. */
static unsigned stride_grid(int64_t items)
{
	int dev = 0, sms = 132;
	if (cudaGetDevice(&dev) != cudaSuccess ||
	    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) !=
	            cudaSuccess)
		sms = 132;
	int64_t cap = (int64_t)sms * 8;
	return (unsigned)(items < cap ? (items > 0 ? items : 1) : cap);
}

extern "C" int krl_k_transpose(const float *in, float *out, int64_t nb,
                               int64_t nr, int64_t nq, const float *add,
                               void *stream)
{
	if (nb <= 0 || nr <= 0 || nq <= 0)
		return 0;
	int aligned = (((uintptr_t)in | (uintptr_t)out) & 15) == 0;
	switch (krl_tr_path(nr, nq, aligned)) {
	case KRL_TR_TILE4:
		transpose4_kernel<<<stride_grid(nb * krl_tr4_tiles(nr, nq)),
		                    KRL_TR4_THREADS, 0, (cudaStream_t)stream>>>(
			in, out, nb, nr, nq, add);
		return (int)cudaGetLastError();
	case KRL_TR_PERQ:
		transpose_perq_kernel<<<stride_grid((nb * nq +
		                                     KRL_TR_PERQ_THREADS - 1) /
		                                    KRL_TR_PERQ_THREADS),
		                        KRL_TR_PERQ_THREADS, 0,
		                        (cudaStream_t)stream>>>(in, out, nb, nr, nq,
		                                                add);
		return (int)cudaGetLastError();
	default:
		break;
	}
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
