/*
 * kernelrl: sdpa, the fused attention of the op family "norm"
 * (docs/ops-norm.md): o = softmax(mask(q k^T * scale)) v, or with `relu`
 * o = relu(mask(q k^T * scale)) v (level 3's 50), the mask `causal`
 * hiding key j from query i where j > i. Nothing of size L x S is
 * written: a block keeps its query rows' outputs on chip while it walks
 * the keys, and the softmax is the online one (a running max and sum per
 * row, the output rescaled by exp(m_old - m_new) when the max grows).
 * Plain fp32 FMAs (no tensor cores): the strict fp32 tier.
 *
 * Four kernels:
 *   - thread (sdpa_thread): q, k and v rows of at most 32 floats (the
 *     kernel takes 64; at 64 it lost to the tiled one on the H100), at
 *     least 128 queries and 64 keys. Each of a block's 128 threads owns
 *     one or two whole query rows (their queries and outputs in
 *     registers) and reads every key and value as a broadcast from
 *     shared memory, so that its issue slots go to FMAs rather than to
 *     the shuffles, exponentials and P tile of the tiled kernel, which at
 *     E = 32 reaches a third of the FMA peak (docs/ops-norm.md).
 *   - tiled (sdpa_tiled): 64 query rows x 64 keys a step, 256 threads
 *     each holding a 4 x 4 block of scores and 4 rows of the output in
 *     registers; Q and K stored transposed in shared memory so that a
 *     thread's operands are two 16-byte loads per 16 FMAs. For q, k and
 *     v rows of at most 128 floats and at least 64 queries: the heads
 *     above 32 floats, and 64 to 127 queries (or fewer than 64 keys).
 *   - short (sdpa_short): at most 8 queries and 256 keys a head, rows
 *     of at most 128 floats (level 3's 28, whose sequences are its batch
 *     of 2): a warp a query row, lanes over the columns, no shared
 *     memory; the block kernels' tiles would be mostly padding.
 *   - rows (sdpa_rows): the general one (embedding dims up to
 *     KRL_SDPA_MAX_DIM, any alignment, 9 to 63 queries, or a few
 *     queries over more than 256 keys): 32 or 16 query rows a block,
 *     their outputs in shared memory.
 * The first two want rows a multiple of 4 floats and 16-byte aligned
 * tensors. With `causal`, key tiles wholly above a block's last query are
 * skipped (half the work of a square causal attention), and the thread
 * and tiled kernels start the blocks of the latest queries (the most
 * keys) first.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "ops/norm/norm.h"
#include "ops/norm/sdpa.cuh"

#define GRID_MAX 0x7fffffffLL

template <int N>
static int short_launch(const float *q, const float *k, const float *v,
                        float *o, int64_t bh, int64_t l, int64_t s,
                        int64_t e, int64_t ev, float scale, int causal,
                        int relu, cudaStream_t st)
{
	int64_t rows = bh * l, per = SH_THREADS / 32;
	int64_t blocks = (rows + per - 1) / per;
	if (blocks > GRID_MAX)
		return (int)cudaErrorInvalidConfiguration;
	sdpa_short<N><<<(unsigned)blocks, SH_THREADS, 0, st>>>(
		q, k, v, o, rows, (int)l, (int)s, (int)e, (int)ev, scale,
		causal, relu);
	return (int)cudaGetLastError();
}

template <int BQ>
static int rows_launch(const float *q, const float *k, const float *v,
                       float *o, int64_t bh, int64_t l, int64_t s,
                       int64_t e, int64_t ev, float scale, int causal,
                       int relu, cudaStream_t st)
{
	size_t smem = rows_smem<BQ>(ev);
	int dev = 0, optin = 0;
	TRY(cudaGetDevice(&dev));
	TRY(cudaDeviceGetAttribute(&optin,
	                           cudaDevAttrMaxSharedMemoryPerBlockOptin,
	                           dev));
	if (smem > (size_t)optin)
		return (int)cudaErrorInvalidConfiguration;
	TRY(cudaFuncSetAttribute(sdpa_rows<BQ>,
	                         cudaFuncAttributeMaxDynamicSharedMemorySize,
	                         (int)smem));
	int64_t tiles = (l + BQ - 1) / BQ;
	if (tiles > GRID_MAX || bh > 65535)
		return (int)cudaErrorInvalidConfiguration;
	sdpa_rows<BQ><<<dim3((unsigned)tiles, (unsigned)bh), SD_THREADS,
	                smem, st>>>(q, k, v, o, l, s, e, ev, scale, causal,
	                            relu);
	return (int)cudaGetLastError();
}

template <int D, int DV>
static int tiled_launch(const float *q, const float *k, const float *v,
                        float *o, int64_t bh, int64_t l, int64_t s,
                        int64_t e, int64_t ev, float scale, int causal,
                        int relu, cudaStream_t st)
{
	size_t smem = tiled_smem<D, DV>();
	TRY(cudaFuncSetAttribute(sdpa_tiled<D, DV>,
	                         cudaFuncAttributeMaxDynamicSharedMemorySize,
	                         (int)smem));
	int64_t tiles = (l + TL_BQ - 1) / TL_BQ;
	sdpa_tiled<D, DV><<<dim3((unsigned)bh, (unsigned)tiles), TL_THREADS,
	                    smem, st>>>(q, k, v, o, (int)l, (int)s, (int)e,
	                                (int)ev, scale, causal, relu);
	return (int)cudaGetLastError();
}

template <int D, int DV, int R>
static int thread_launch(const float *q, const float *k, const float *v,
                         float *o, int64_t bh, int64_t l, int64_t s,
                         int64_t e, int64_t ev, float scale, int causal,
                         int relu, cudaStream_t st)
{
	size_t smem = thread_smem<D, DV>();
	TRY(cudaFuncSetAttribute(sdpa_thread<D, DV, R>,
	                         cudaFuncAttributeMaxDynamicSharedMemorySize,
	                         (int)smem));
	int64_t tiles = (l + TH_THREADS * R - 1) / (TH_THREADS * R);
	sdpa_thread<D, DV, R><<<dim3((unsigned)bh, (unsigned)tiles),
	                        TH_THREADS, smem, st>>>(q, k, v, o, (int)l,
	                                                (int)s, (int)e, (int)ev,
	                                                scale, causal, relu);
	return (int)cudaGetLastError();
}

/* D and DV: e and ev rounded up to 32. The dispatch below takes heads
 * of at most 32 floats only: at 64 (level 3's 50) the kernel, one row a
 * thread, ran 1.28 ms where sdpa_tiled ran about 0.98 (H100, 2026-12-06,
 * bench/results/2026-12-06-h100-sdpa-thread); the wider instantiations
 * stay for that comparison and are checked on the CPU stand-in. */
static int thread_dispatch(const float *q, const float *k, const float *v,
                           float *o, int64_t bh, int64_t l, int64_t s,
                           int64_t e, int64_t ev, float scale, int causal,
                           int relu, cudaStream_t st)
{
	int d = (int)((e + 31) / 32), dv = (int)((ev + 31) / 32);
#define TH_CASE(a, b, r)                                                   \
	if (d == (a) / 32 && dv == (b) / 32)                                   \
		return thread_launch<a, b, r>(q, k, v, o, bh, l, s, e, ev,     \
		                              scale, causal, relu, st);
	TH_CASE(32, 32, 2) TH_CASE(32, 64, 1) TH_CASE(64, 32, 1)
	TH_CASE(64, 64, 1)
#undef TH_CASE
	return (int)cudaErrorInvalidConfiguration;
}

/* D and DV: e and ev rounded up to 32 (each at most 128). */
static int tiled_dispatch(const float *q, const float *k, const float *v,
                          float *o, int64_t bh, int64_t l, int64_t s,
                          int64_t e, int64_t ev, float scale, int causal,
                          int relu, cudaStream_t st)
{
	int d = (int)((e + 31) / 32), dv = (int)((ev + 31) / 32);
#define TL_CASE(a, b)                                                      \
	if (d == (a) / 32 && dv == (b) / 32)                                   \
		return tiled_launch<a, b>(q, k, v, o, bh, l, s, e, ev, scale,  \
		                          causal, relu, st);
#define TL_ROW(a) TL_CASE(a, 32) TL_CASE(a, 64) TL_CASE(a, 96) TL_CASE(a, 128)
	TL_ROW(32) TL_ROW(64) TL_ROW(96) TL_ROW(128)
#undef TL_ROW
#undef TL_CASE
	return (int)cudaErrorInvalidConfiguration;
}

static int aligned16(const void *p)
{
	return ((uintptr_t)p & 15) == 0;
}

extern "C" int krl_kn_sdpa(const float *q, const float *k, const float *v,
                           float *o, int64_t bh, int64_t l, int64_t s,
                           int64_t e, int64_t ev, float scale, int causal,
                           int relu, void *stream)
{
	cudaStream_t st = (cudaStream_t)stream;
	if (bh * l * ev == 0)
		return 0;
	/* the register kernels: float4 rows, int indices, a y grid of
	 * query tiles (at most 65535; the thread kernel's tiles are 128 or
	 * 256 queries, the tiled kernel's 64) */
	int vec = e % 4 == 0 && ev % 4 == 0 && aligned16(q) && aligned16(k) &&
	          aligned16(v) && aligned16(o) && bh <= GRID_MAX &&
	          l < GRID_MAX && s < GRID_MAX;
	/* a few queries a head (28's attention over its batch of 2): a
	 * warp a query row; widths rounded up to 32, 64 or 128 */
	if (l <= SH_MAX_L && s <= SH_MAX_S && e <= 128 && ev <= 128) {
		int64_t w = e > ev ? e : ev;
		if (w <= 32)
			return short_launch<1>(q, k, v, o, bh, l, s, e, ev,
			                       scale, causal, relu, st);
		if (w <= 64)
			return short_launch<2>(q, k, v, o, bh, l, s, e, ev,
			                       scale, causal, relu, st);
		return short_launch<4>(q, k, v, o, bh, l, s, e, ev, scale,
		                       causal, relu, st);
	}
	if (vec && l >= 128 && s >= 64 && e <= 32 && ev <= 32 &&
	    (l + TH_THREADS - 1) / TH_THREADS <= 65535)
		return thread_dispatch(q, k, v, o, bh, l, s, e, ev, scale,
		                       causal, relu, st);
	if (vec && l >= TL_BQ && e <= 128 && ev <= 128 &&
	    (l + TL_BQ - 1) / TL_BQ <= 65535)
		return tiled_dispatch(q, k, v, o, bh, l, s, e, ev, scale, causal,
		                      relu, st);
	/* Ss starts BQ * (ev + SD_DC) + SD_BK * (SD_DC + 1) floats in:
	 * a multiple of 4 (BQ is), so its float4 reads are aligned */
	if (ev <= 1024)
		return rows_launch<32>(q, k, v, o, bh, l, s, e, ev, scale,
		                       causal, relu, st);
	return rows_launch<16>(q, k, v, o, bh, l, s, e, ev, scale, causal,
	                       relu, st);
}
