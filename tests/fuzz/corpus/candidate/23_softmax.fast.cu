/*
 * Level 1 problem 23 (softmax over dim 1), fast candidate.
 *
 * The eager reference runs one block per row and reads each row 2-3 times
 * from DRAM (max, sum of exp, then exp/sum on the write pass): at kb1 a row
 * is 1.5 MiB and 4096 rows are 6.4 GB, far beyond L2, so that is >= 3 reads
 * + 1 write = 25.8 GB (PyTorch measured 6.09 ms on an H200).
 *
 * This candidate reads every row from DRAM once. A thread-block cluster of
 * 8 CTAs (one per SM) owns a row; each CTA
 *   1. loads its 1/8 of the row (192 KiB at kb1) into shared memory, keeping
 *      only a running max (the load loop does no other math);
 *   2. block-reduces the max, then rewrites its slice in shared memory as
 *      e = exp(x - m) and block-reduces the sum of e;
 *   3. publishes (m, sum) in shared memory; after a cluster barrier, warp 0
 *      reads the 8 pairs through distributed shared memory and combines
 *      them (in the same order in every CTA, so all 8 agree bit for bit);
 *   4. writes e * exp(m - M) / S from shared memory.
 * Traffic: 1 read + 1 write = 12.9 GB at kb1 (~3.1 ms at the copy roofline)
 * against >= 25.8 GB. Measured on an H200 (L2 flushed): 4.63 ms against
 * 6.19 ms for PyTorch, 1.34x. One CTA per SM cannot overlap its write phase
 * with its next row's reads, so it stays short of the roofline; a
 * persistent, double-issuing version could get closer.
 *
 * Sizes: the shared slice is cdiv(dim, 32) float4s per CTA (smem in the
 * plan), so dim up to ~464k fits in Hopper's 227 KiB. Rows whose length is
 * a multiple of 4 use 16-byte accesses (row starts are then 16-byte
 * aligned); other lengths (the tiny set) take a scalar path. A CTA whose
 * slice is empty (tiny rows) contributes (-inf, 0), which the combine
 * handles. 64-bit offsets (4096 x 393216 = 1.6e9 elements).
 */

/* NVRTC has no <math.h>: spell out infinity. */
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define SMX_CLUSTER 8
#define SMX_THREADS 1024

#define SMX_LOG2E 1.4426950408889634f

/* The (max, sum of exp(x - max)) of a slice, published to the cluster. */
struct smx_ms {
	float m, s;
};

static __device__ __forceinline__ smx_ms smx_combine(smx_ms a, smx_ms b)
{
	smx_ms r;
	r.m = fmaxf(a.m, b.m);
	if (r.m == -INFINITY) { /* both empty */
		r.s = 0.f;
		return r;
	}
	r.s = a.s * exp2f((a.m - r.m) * SMX_LOG2E) +
	      b.s * exp2f((b.m - r.m) * SMX_LOG2E);
	return r;
}

/* Block-wide max or sum; every thread gets the result. */
template <bool MAX>
static __device__ __forceinline__ float smx_block(float v, float *red)
{
	for (int off = 16; off > 0; off >>= 1) {
		float o = __shfl_xor_sync(0xffffffffu, v, off);
		v = MAX ? fmaxf(v, o) : v + o;
	}
	__syncthreads(); /* red may still be read by a previous call */
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = v;
	__syncthreads();
	v = red[threadIdx.x & 31]; /* SMX_THREADS / 32 == 32 */
	for (int off = 16; off > 0; off >>= 1) {
		float o = __shfl_xor_sync(0xffffffffu, v, off);
		v = MAX ? fmaxf(v, o) : v + o;
	}
	return v;
}

extern "C" __global__ void __launch_bounds__(SMX_THREADS, 1)
softmax_cluster(const float *__restrict__ x, float *__restrict__ y, long dim)
{
	extern __shared__ float4 slice4[];
	__shared__ float red[SMX_THREADS / 32];
	__shared__ smx_ms part;  /* this CTA's pair, read by the whole cluster */
	__shared__ smx_ms total; /* the row's pair */

	cg::cluster_group cl = cg::this_cluster();
	const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
	const long row = blockIdx.x / SMX_CLUSTER;
	const long rank = cl.block_rank();

	/* This CTA's slice [begin, end) of the row; chunk is a multiple of 4. */
	const long chunk = 4 * ((dim + 4 * SMX_CLUSTER - 1) / (4 * SMX_CLUSTER));
	const long begin = rank * chunk;
	const long end = min(dim, begin + chunk);
	const int len = end > begin ? (int)(end - begin) : 0;
	const float *src = x + row * dim + begin;
	float *dst = y + row * dim + begin;
	float *slice = reinterpret_cast<float *>(slice4);
	const bool vec = (dim & 3) == 0;

	/* Pass 1: DRAM -> shared memory, keeping only the max (one FMNMX per
	 * element, so the loads are never waiting on math). */
	float m = -INFINITY;
	if (vec) {
		const float4 *src4 = reinterpret_cast<const float4 *>(src);
		const int nv = len / 4;
		for (int i = tid; i < nv; i += 4 * SMX_THREADS) {
			float4 v[4];
#pragma unroll
			for (int u = 0; u < 4; u++) {
				int j = i + u * SMX_THREADS;
				if (j < nv)
					v[u] = __ldcs(src4 + j);
			}
#pragma unroll
			for (int u = 0; u < 4; u++) {
				int j = i + u * SMX_THREADS;
				if (j < nv) {
					slice4[j] = v[u];
					m = fmaxf(m, fmaxf(fmaxf(v[u].x, v[u].y),
					                   fmaxf(v[u].z, v[u].w)));
				}
			}
		}
	} else {
		for (int i = tid; i < len; i += SMX_THREADS) {
			float v = __ldcs(src + i);
			slice[i] = v;
			m = fmaxf(m, v);
		}
	}
	m = smx_block<true>(m, red);

	/* Pass 2 (shared memory only): e = exp(x - m) in place, and its sum.
	 * exp2f(x * log2 e - m * log2 e): one FMA and the fast hardware exp2. */
	float s = 0.f;
	const float mb = m * SMX_LOG2E;
	if (vec) {
		const int nv = len / 4;
		for (int j = tid; j < nv; j += SMX_THREADS) {
			float4 v = slice4[j];
			v.x = exp2f(fmaf(v.x, SMX_LOG2E, -mb));
			v.y = exp2f(fmaf(v.y, SMX_LOG2E, -mb));
			v.z = exp2f(fmaf(v.z, SMX_LOG2E, -mb));
			v.w = exp2f(fmaf(v.w, SMX_LOG2E, -mb));
			slice4[j] = v;
			s += (v.x + v.y) + (v.z + v.w);
		}
	} else {
		for (int i = tid; i < len; i += SMX_THREADS) {
			float e = exp2f(fmaf(slice[i], SMX_LOG2E, -mb));
			slice[i] = e;
			s += e;
		}
	}
	s = smx_block<false>(s, red);
	if (tid == 0) {
		part.m = m;
		part.s = s;
	}

	/* Cluster-wide combine through distributed shared memory, in the same
	 * order in every CTA so all 8 agree bit for bit. */
	cl.sync();
	if (warp == 0) {
		smx_ms q = {-INFINITY, 0.f};
		if (lane < SMX_CLUSTER)
			q = *cl.map_shared_rank(&part, lane);
		for (int off = 16; off > 0; off >>= 1) {
			smx_ms o;
			o.m = __shfl_xor_sync(0xffffffffu, q.m, off);
			o.s = __shfl_xor_sync(0xffffffffu, q.s, off);
			q = smx_combine(q, o);
		}
		if (lane == 0)
			total = q;
	}
	/* Also keeps every CTA alive until the others have read its `part`. */
	cl.sync();

	/* exp(x - M) / S = e * exp(m - M) / S; an empty slice writes nothing. */
	const float scale = len > 0 ? exp2f((m - total.m) * SMX_LOG2E) / total.s : 0.f;

	/* Pass 3: shared memory -> DRAM. */
	if (vec) {
		float4 *dst4 = reinterpret_cast<float4 *>(dst);
		const int nv = len / 4;
		for (int j = tid; j < nv; j += SMX_THREADS) {
			float4 v = slice4[j];
			v.x *= scale;
			v.y *= scale;
			v.z *= scale;
			v.w *= scale;
			__stcs(dst4 + j, v);
		}
	} else {
		for (int i = tid; i < len; i += SMX_THREADS)
			__stcs(dst + i, slice[i] * scale);
	}
}

/*@plan
# One cluster of 8 CTAs per row; each CTA keeps cdiv(dim, 32) float4s.
launch softmax_cluster grid=(8 * dim(x, 0)) block=(1024) \
    smem=(16 * cdiv(dim(x, 1), 32)) cluster=(8) args(x, y, dim(x, 1))
@*/
