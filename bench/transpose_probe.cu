/*
 * bench/transpose_probe: how fast the conv op's layout change runs against
 * other tile orders and the copy rate (GPU; issue 17's channels-last
 * convolutions). Times, on one batch of [nb, nr, nq] -> [nb, nq, nr]
 * transposes of random floats, the median of 20 event-timed runs of:
 *   - copy: cudaMemcpy device to device of the same bytes (the rate);
 *   - op: krl_k_transpose, the conv op's kernel (32 x 32 tiles, blocks
 *     over the tiles of one matrix, row tiles outer, the batch in y);
 *   - rfast: the same tile, tiles ordered with r fastest, so the blocks at
 *     work write whole runs of the output's rows;
 *   - wide: 32 x nr tiles when nr <= 128 (a block moves 32 q-columns of
 *     every r, so each output row is written whole by one block);
 * and checks each result against the op's. Prints one line per variant:
 * ms, GB/s (bytes read plus written) and the fraction of the copy rate.
 *
 *   transpose_probe NB NR NQ     (default: problem 1's x at kb1,
 *                                 128 64 16384)
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/conv/conv.h"

#define TILE 32
#define ROWS 8

/* out[b, q, r] = in[b, r, q]: one 32 x 32 tile per block and batch step,
 * tiles in r-fastest order. */
__global__ void __launch_bounds__(TILE * ROWS)
rfast_kernel(const float *__restrict__ in, float *__restrict__ out,
             int64_t nb, int64_t nr, int64_t nq)
{
	__shared__ float t[TILE][TILE + 1];
	int64_t rt = (nr + TILE - 1) / TILE;
	int64_t r0 = (blockIdx.x % rt) * TILE, q0 = (blockIdx.x / rt) * TILE;
	for (int64_t b = blockIdx.y; b < nb; b += gridDim.y) {
		for (int j = threadIdx.y; j < TILE; j += ROWS) {
			int64_t r = r0 + j, q = q0 + threadIdx.x;
			if (r < nr && q < nq)
				t[j][threadIdx.x] = in[(b * nr + r) * nq + q];
		}
		__syncthreads();
		for (int j = threadIdx.y; j < TILE; j += ROWS) {
			int64_t r = r0 + threadIdx.x, q = q0 + j;
			if (r < nr && q < nq)
				out[(b * nq + q) * nr + r] = t[threadIdx.x][j];
		}
		__syncthreads();
	}
}

/* 32 q-columns of every r (nr <= 128) per block: 256 threads; the tile is
 * [nr][33]. Blocks over (b, q-tile) in one grid-stride loop. */
__global__ void __launch_bounds__(256)
wide_kernel(const float *__restrict__ in, float *__restrict__ out,
            int64_t nb, int64_t nr, int64_t nq)
{
	__shared__ float t[128][TILE + 1];
	const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
	int64_t qt = (nq + TILE - 1) / TILE;
	for (int64_t e = blockIdx.x; e < nb * qt; e += gridDim.x) {
		int64_t b = e / qt, q0 = (e % qt) * TILE;
		for (int r = ty; r < nr; r += 8) {
			int64_t q = q0 + tx;
			if (q < nq)
				t[r][tx] = in[(b * nr + r) * nq + q];
		}
		__syncthreads();
		/* each warp writes rows q0 + ty, q0 + ty + 8, ...: nr floats,
		 * lanes over r */
		for (int j = ty; j < TILE; j += 8) {
			int64_t q = q0 + j;
			if (q < nq)
				for (int r = tx; r < nr; r += 32)
					out[(b * nq + q) * nr + r] = t[r][j];
		}
		__syncthreads();
	}
}

static double median(float *t, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
			float s = t[j];
			t[j] = t[j - 1];
			t[j - 1] = s;
		}
	return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

#define REPS 20
#define CK(x)                                                               \
	do {                                                                \
		cudaError_t e_ = (x);                                       \
		if (e_ != cudaSuccess) {                                    \
			fprintf(stderr, "transpose_probe: %s: %s\n", #x,      \
			        cudaGetErrorString(e_));                    \
			return 1;                                           \
		}                                                           \
	} while (0)

__global__ void fill(float *p, int64_t n)
{
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x)
		p[i] = (float)((i * 2654435761u) % 1000003) * 1e-3f;
}

int main(int argc, char **argv)
{
	int64_t nb = 128, nr = 64, nq = 16384;
	if (argc == 4) {
		nb = atoll(argv[1]);
		nr = atoll(argv[2]);
		nq = atoll(argv[3]);
	} else if (argc != 1) {
		fprintf(stderr, "usage: transpose_probe [NB NR NQ]\n");
		return 2;
	}
	int64_t n = nb * nr * nq;
	size_t bytes = (size_t)n * sizeof(float);
	float *in, *ref, *out;
	CK(cudaMalloc(&in, bytes));
	CK(cudaMalloc(&ref, bytes));
	CK(cudaMalloc(&out, bytes));
	fill<<<1024, 256>>>(in, n);
	cudaEvent_t a, b;
	cudaEventCreate(&a);
	cudaEventCreate(&b);
	int sms = 0;
	cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
	float t[REPS];
	double copy_ms = 0;
	printf("transpose [%lld, %lld, %lld] -> [%lld, %lld, %lld], %.1f MB\n",
	       (long long)nb, (long long)nr, (long long)nq, (long long)nb,
	       (long long)nq, (long long)nr, bytes / 1e6);
	for (int v = 0; v < 4; v++) {
		const char *name[4] = { "copy", "op", "rfast", "wide" };
		if (v == 3 && nr > 128)
			continue;
		float *dst = v == 1 ? ref : out;
		for (int i = -2; i < REPS; i++) {
			cudaEventRecord(a);
			if (v == 0) {
				cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice);
			} else if (v == 1) {
				krl_k_transpose(in, ref, nb, nr, nq, NULL, 0);
			} else if (v == 2) {
				int64_t tiles = ((nr + TILE - 1) / TILE) *
				                ((nq + TILE - 1) / TILE);
				dim3 grid((unsigned)tiles,
				          (unsigned)(nb < 65535 ? nb : 65535));
				rfast_kernel<<<grid, dim3(TILE, ROWS)>>>(in, dst, nb, nr,
				                                         nq);
			} else {
				wide_kernel<<<sms * 8, 256>>>(in, dst, nb, nr, nq);
			}
			cudaEventRecord(b);
			CK(cudaEventSynchronize(b));
			CK(cudaGetLastError());
			if (i >= 0)
				cudaEventElapsedTime(&t[i], a, b);
		}
		double ms = median(t, REPS);
		if (v == 0)
			copy_ms = ms;
		const char *check = "";
		if (v >= 2) {
			/* compare with the op's result, element by element on the
			 * host */
			float *h0 = (float *)malloc(bytes), *h1 = (float *)malloc(bytes);
			if (!h0 || !h1) {
				fprintf(stderr, "transpose_probe: no host memory\n");
				return 1;
			}
			CK(cudaMemcpy(h0, ref, bytes, cudaMemcpyDeviceToHost));
			CK(cudaMemcpy(h1, out, bytes, cudaMemcpyDeviceToHost));
			check = memcmp(h0, h1, bytes) ? "  DIFFERS from op" : "  = op";
			free(h0);
			free(h1);
		}
		printf("%-6s %8.4f ms  %7.1f GB/s  %.3f of copy%s\n", name[v], ms,
		       2.0 * bytes / (ms * 1e-3) / 1e9, copy_ms / ms, check);
	}
	cudaFree(in);
	cudaFree(ref);
	cudaFree(out);
	return 0;
}
