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
 *   - reg4r, reg4q, reg4w, reg4wq, reg4t: 4 x 4 per thread through
 *     registers, float4 both ways, tiles 64 x 64 r-fastest, q-fastest,
 *     32 x 128 r-fastest and q-fastest, 128 x 32 q-fastest (nr and nq
 *     multiples of 4);
 *   - sm64, sm32x128, sm64x128, sm128: shared-memory tiles of 64 x 64,
 *     32 x 128, 64 x 128 and 128 x 128 with float4 both ways, r-fastest
 *     (nr and nq multiples of 4);
 *   - chan8, chan16, chan32: a thread per r with 8, 16 or 32 consecutive
 *     q, blocks of 1024 consecutive r (the generator's channels-last map
 *     kernel's structure at 8; nq a multiple of 4);
 *   - perq: a thread per q with every r (nr <= 32);
 *   - sm64u, sm32x128u, sm64x128u, sm128u: the shared-memory tiles with
 *     every load of a tile issued before the first shared store;
 *   - sm256x32, sm256x64, sm512x32, sm128x32: long tiles in r (runs of
 *     1-2 KB written per output row), shared memory as sm64;
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


/* Register 4 x 4: a thread moves rows r..r+3 x columns q..q+3 with four
 * float4 loads (rows of the input) and four float4 stores (rows of the
 * output), transposing in registers; no shared memory. A warp is 8 r-groups
 * x 4 q-groups (32 r x 16 q: 64-byte runs read, 128-byte runs written);
 * the block's WR x WQ warps make a (32 WR) x (16 WQ) tile; tiles r-fastest
 * (RFAST) or q-fastest, blocks in a grid-stride loop. Needs nr and nq
 * multiples of 4 (whole float4s at every edge). */
template <int WR, int WQ, bool RFAST>
__global__ void __launch_bounds__(256)
reg4_kernel(const float *__restrict__ in, float *__restrict__ out,
            int64_t nb, int64_t nr, int64_t nq)
{
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int rg = lane & 7, qg = lane >> 3;
	const int wr = warp % WR, wq = warp / WR;
	const int64_t RT = 32 * WR, QT = 16 * WQ;
	const int64_t rt = (nr + RT - 1) / RT, qt = (nq + QT - 1) / QT;
	for (int64_t e = blockIdx.x; e < nb * rt * qt; e += gridDim.x) {
		int64_t b = e / (rt * qt), t = e % (rt * qt);
		int64_t ti = RFAST ? t % rt : t / qt, tj = RFAST ? t / rt : t % qt;
		int64_t r = ti * RT + wr * 32 + rg * 4, q = tj * QT + wq * 16 + qg * 4;
		if (r >= nr || q >= nq)
			continue;
		const float *src = in + (b * nr + r) * nq + q;
		float4 v[4];
#pragma unroll
		for (int i = 0; i < 4; i++)
			v[i] = *reinterpret_cast<const float4 *>(src + i * nq);
		float *dst = out + (b * nq + q) * nr + r;
		*reinterpret_cast<float4 *>(dst) = make_float4(v[0].x, v[1].x, v[2].x, v[3].x);
		*reinterpret_cast<float4 *>(dst + nr) = make_float4(v[0].y, v[1].y, v[2].y, v[3].y);
		*reinterpret_cast<float4 *>(dst + 2 * nr) = make_float4(v[0].z, v[1].z, v[2].z, v[3].z);
		*reinterpret_cast<float4 *>(dst + 3 * nr) = make_float4(v[0].w, v[1].w, v[2].w, v[3].w);
	}
}

/* Shared-memory tile of RT x QT with float4 global accesses both ways: the
 * load step's warp covers 8 rows x 16 columns (lane: row l % 8, float4 l / 8),
 * the store step's 4 output rows x 32 (lane: row l / 8, float4 l % 8), and
 * the tile's rows are QT + 1 floats long, so both steps' scalar shared
 * accesses hit 32 banks. Tiles r-fastest, grid-stride loop, 256 threads.
 * Needs nr and nq multiples of 4. */
template <int RT, int QT>
__global__ void __launch_bounds__(256)
smem4_kernel(const float *__restrict__ in, float *__restrict__ out,
             int64_t nb, int64_t nr, int64_t nq)
{
	extern __shared__ float tsm[];
	float (*t)[QT + 1] = reinterpret_cast<float (*)[QT + 1]>(tsm);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int64_t rt = (nr + RT - 1) / RT, qt = (nq + QT - 1) / QT;
	for (int64_t e = blockIdx.x; e < nb * rt * qt; e += gridDim.x) {
		int64_t b = e / (rt * qt), tt = e % (rt * qt);
		int64_t r0 = (tt % rt) * RT, q0 = (tt / rt) * QT;
		/* load: RT x QT/4 float4s, 4 rows x 8 float4s a warp step */
		for (int c = warp * 32; c < RT * QT / 4; c += 256) {
			int rr = (c / 32) % (RT / 4) * 4 + (lane >> 3);
			int qq = ((c / 32) / (RT / 4)) * 32 + (lane & 7) * 4;
			int64_t r = r0 + rr, q = q0 + qq;
			float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
			if (r < nr && q < nq)
				v = *reinterpret_cast<const float4 *>(in + (b * nr + r) * nq + q);
			t[rr][qq] = v.x;
			t[rr][qq + 1] = v.y;
			t[rr][qq + 2] = v.z;
			t[rr][qq + 3] = v.w;
		}
		__syncthreads();
		/* store: QT x RT/4 float4s, 4 rows x 8 float4s a warp step */
		for (int c = warp * 32; c < QT * RT / 4; c += 256) {
			int rr = ((c / 32) % (RT / 32)) * 32 + (lane & 7) * 4;
			int qq = ((c / 32) / (RT / 32)) * 4 + (lane >> 3);
			int64_t r = r0 + rr, q = q0 + qq;
			if (r < nr && q < nq)
				*reinterpret_cast<float4 *>(out + (b * nq + q) * nr + r) =
					make_float4(t[rr][qq], t[rr + 1][qq], t[rr + 2][qq], t[rr + 3][qq]);
		}
		__syncthreads();
	}
}

/* A thread per input row position r with CW consecutive q (CW / 4 float4
 * loads, CW scalar stores to CW output rows); a block's 1024 threads take
 * 1024 consecutive r of one q-group, so each output row is written in
 * 4 KB runs; blocks over (b, q-group, r-block), r-blocks fastest. The
 * structure of the generator's channels-last map kernel at CW = 8. Needs
 * nq a multiple of 4. */
template <int CW>
__global__ void __launch_bounds__(1024)
chan_kernel(const float *__restrict__ in, float *__restrict__ out,
            int64_t nb, int64_t nr, int64_t nq)
{
	const int64_t rb = (nr + 1023) / 1024, qg = (nq + CW - 1) / CW;
	for (int64_t e = blockIdx.x; e < nb * qg * rb; e += gridDim.x) {
		int64_t r = (e % rb) * 1024 + threadIdx.x;
		int64_t q0 = (e / rb) % qg * CW, b = e / (rb * qg);
		if (r >= nr)
			continue;
		float v[CW];
		const float *src = in + (b * nr + r) * nq + q0;
#pragma unroll
		for (int j = 0; j < CW; j += 4) {
			if (q0 + j < nq) {
				float4 t = *reinterpret_cast<const float4 *>(src + j);
				v[j] = t.x;
				v[j + 1] = t.y;
				v[j + 2] = t.z;
				v[j + 3] = t.w;
			}
		}
#pragma unroll
		for (int j = 0; j < CW; j++)
			if (q0 + j < nq)
				out[(b * nq + q0 + j) * nr + r] = v[j];
	}
}

/* A thread per q with every r (nr <= 32): nr loads of consecutive q (one
 * per row, coalesced), then nr consecutive floats written; a warp writes
 * 32 nr contiguous floats. Blocks of 256 over (b, q), q fastest. */
__global__ void __launch_bounds__(256)
perq_kernel(const float *__restrict__ in, float *__restrict__ out,
            int64_t nb, int64_t nr, int64_t nq)
{
	for (int64_t e = blockIdx.x * 256ll + threadIdx.x; e < nb * nq;
	     e += (int64_t)gridDim.x * 256) {
		int64_t b = e / nq, q = e % nq;
		float v[32];
#pragma unroll
		for (int r = 0; r < 32; r++)
			if (r < nr)
				v[r] = in[(b * nr + r) * nq + q];
#pragma unroll
		for (int r = 0; r < 32; r++)
			if (r < nr)
				out[(b * nq + q) * nr + r] = v[r];
	}
}

/* smem4_kernel with every load of a tile issued before the first shared
 * store (RT * QT / 1024 float4s a thread in registers), so that a thread
 * has that many reads in flight. */
template <int RT, int QT>
__global__ void __launch_bounds__(256)
smem4u_kernel(const float *__restrict__ in, float *__restrict__ out,
              int64_t nb, int64_t nr, int64_t nq)
{
	constexpr int PER = RT * QT / 1024;
	extern __shared__ float tsm[];
	float (*t)[QT + 1] = reinterpret_cast<float (*)[QT + 1]>(tsm);
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	const int64_t rt = (nr + RT - 1) / RT, qt = (nq + QT - 1) / QT;
	for (int64_t e = blockIdx.x; e < nb * rt * qt; e += gridDim.x) {
		int64_t b = e / (rt * qt), tt = e % (rt * qt);
		int64_t r0 = (tt % rt) * RT, q0 = (tt / rt) * QT;
		float4 v[PER];
#pragma unroll
		for (int k = 0; k < PER; k++) {
			const int c = warp * 32 + k * 256;
			int rr = (c / 32) % (RT / 4) * 4 + (lane >> 3);
			int qq = ((c / 32) / (RT / 4)) * 32 + (lane & 7) * 4;
			int64_t r = r0 + rr, q = q0 + qq;
			v[k] = make_float4(0.f, 0.f, 0.f, 0.f);
			if (r < nr && q < nq)
				v[k] = *reinterpret_cast<const float4 *>(in + (b * nr + r) * nq + q);
		}
#pragma unroll
		for (int k = 0; k < PER; k++) {
			const int c = warp * 32 + k * 256;
			int rr = (c / 32) % (RT / 4) * 4 + (lane >> 3);
			int qq = ((c / 32) / (RT / 4)) * 32 + (lane & 7) * 4;
			t[rr][qq] = v[k].x;
			t[rr][qq + 1] = v[k].y;
			t[rr][qq + 2] = v[k].z;
			t[rr][qq + 3] = v[k].w;
		}
		__syncthreads();
#pragma unroll
		for (int k = 0; k < PER; k++) {
			const int c = warp * 32 + k * 256;
			int rr = ((c / 32) % (RT / 32)) * 32 + (lane & 7) * 4;
			int qq = ((c / 32) / (RT / 32)) * 4 + (lane >> 3);
			int64_t r = r0 + rr, q = q0 + qq;
			if (r < nr && q < nq)
				*reinterpret_cast<float4 *>(out + (b * nq + q) * nr + r) =
					make_float4(t[rr][qq], t[rr + 1][qq], t[rr + 2][qq], t[rr + 3][qq]);
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
	const int vec4 = nr % 4 == 0 && nq % 4 == 0;
	CK(cudaFuncSetAttribute(smem4_kernel<128, 128>,
	                        cudaFuncAttributeMaxDynamicSharedMemorySize,
	                        128 * 129 * 4));
	CK(cudaFuncSetAttribute(smem4u_kernel<128, 128>,
	                        cudaFuncAttributeMaxDynamicSharedMemorySize,
	                        128 * 129 * 4));
	CK(cudaFuncSetAttribute(smem4_kernel<256, 64>,
	                        cudaFuncAttributeMaxDynamicSharedMemorySize,
	                        256 * 65 * 4));
	CK(cudaFuncSetAttribute(smem4_kernel<512, 32>,
	                        cudaFuncAttributeMaxDynamicSharedMemorySize,
	                        512 * 33 * 4));
	for (int v = 0; v < 25; v++) {
		const char *name[25] = { "copy", "op", "rfast", "wide", "reg4r",
		                         "reg4q", "reg4w", "sm64", "sm32x128",
		                         "reg4wq", "reg4t", "sm64x128", "sm128",
		                         "chan8", "chan16", "chan32", "perq",
		                         "sm64u", "sm32x128u", "sm64x128u",
		                         "sm128u", "sm256x32", "sm256x64",
		                         "sm512x32", "sm128x32" };
		if ((v == 3 && nr > 128) || (v >= 4 && v != 16 && !vec4) ||
		    (v == 16 && nr > 32))
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
			} else if (v == 3) {
				wide_kernel<<<sms * 8, 256>>>(in, dst, nb, nr, nq);
			} else if (v == 4) {
				reg4_kernel<2, 4, true><<<sms * 8, 256>>>(in, dst, nb, nr, nq);
			} else if (v == 5) {
				reg4_kernel<2, 4, false><<<sms * 8, 256>>>(in, dst, nb, nr, nq);
			} else if (v == 6) {
				reg4_kernel<1, 8, true><<<sms * 8, 256>>>(in, dst, nb, nr, nq);
			} else if (v == 7) {
				smem4_kernel<64, 64><<<sms * 8, 256, 64 * 65 * 4>>>(in, dst, nb, nr, nq);
			} else if (v == 8) {
				smem4_kernel<32, 128><<<sms * 6, 256, 32 * 129 * 4>>>(in, dst, nb, nr, nq);
			} else if (v == 9) {
				reg4_kernel<1, 8, false><<<sms * 8, 256>>>(in, dst, nb, nr, nq);
			} else if (v == 10) {
				reg4_kernel<4, 2, false><<<sms * 8, 256>>>(in, dst, nb, nr, nq);
			} else if (v == 11) {
				smem4_kernel<64, 128><<<sms * 3, 256, 64 * 129 * 4>>>(in, dst, nb, nr, nq);
			} else if (v == 12) {
				smem4_kernel<128, 128><<<sms * 3, 256, 128 * 129 * 4>>>(in, dst, nb, nr, nq);
			} else if (v == 13) {
				chan_kernel<8><<<sms * 2, 1024>>>(in, dst, nb, nr, nq);
			} else if (v == 14) {
				chan_kernel<16><<<sms * 2, 1024>>>(in, dst, nb, nr, nq);
			} else if (v == 15) {
				chan_kernel<32><<<sms * 1, 1024>>>(in, dst, nb, nr, nq);
			} else if (v == 16) {
				perq_kernel<<<sms * 8, 256>>>(in, dst, nb, nr, nq);
			} else if (v == 17) {
				smem4u_kernel<64, 64><<<sms * 8, 256, 64 * 65 * 4>>>(in, dst, nb, nr, nq);
			} else if (v == 18) {
				smem4u_kernel<32, 128><<<sms * 8, 256, 32 * 129 * 4>>>(in, dst, nb, nr, nq);
			} else if (v == 19) {
				smem4u_kernel<64, 128><<<sms * 6, 256, 64 * 129 * 4>>>(in, dst, nb, nr, nq);
			} else if (v == 20) {
				smem4u_kernel<128, 128><<<sms * 3, 256, 128 * 129 * 4>>>(in, dst, nb, nr, nq);
			} else if (v == 21) {
				smem4_kernel<256, 32><<<sms * 6, 256, 256 * 33 * 4>>>(in, dst, nb, nr, nq);
			} else if (v == 22) {
				smem4_kernel<256, 64><<<sms * 3, 256, 256 * 65 * 4>>>(in, dst, nb, nr, nq);
			} else if (v == 23) {
				smem4_kernel<512, 32><<<sms * 3, 256, 512 * 33 * 4>>>(in, dst, nb, nr, nq);
			} else {
				smem4_kernel<128, 32><<<sms * 8, 256, 128 * 33 * 4>>>(in, dst, nb, nr, nq);
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
