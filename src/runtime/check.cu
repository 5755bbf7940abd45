/*
 * The judge's trusted device kernels (include/krl/check.h): drawing inputs
 * from (seed, index), pattern fill and check of guard regions and poisoned
 * outputs, exact byte comparison, and the tolerance comparison of an output
 * against the reference.
 *
 * Every kernel is grid-stride with int64 indices (tensors reach 2^31
 * elements and more). Results that come back to the host are reduced per
 * block and merged on the device into a small struct, which is then copied
 * back with one synchronous copy. The CUDA runtime API is used throughout;
 * every call is checked, and so is every launch (cudaGetLastError).
 */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <cuda_runtime.h>

#include "krl/check.h"
#include "runtime/cudacheck.h"
#include "runtime/rng.h"

#define THREADS 256
#define MAX_BLOCKS 1024

static const krl_pos no_pos = { 0 };

/* ==== Errors ==== */

/* Checks the launch just made (configuration errors, no device) the way
 * CUDA_CHECK (runtime/cudacheck.h) checks a call: sets r, jumps to out. */
#define LAUNCH_CHECK(kernel) CUDA_CHECK(d, (kernel, cudaGetLastError()))

static unsigned grid_for(int64_t work)
{
	int64_t b = (work + THREADS - 1) / THREADS;
	return (unsigned)(b < 1 ? 1 : b > MAX_BLOCKS ? MAX_BLOCKS : b);
}

/* ==== Random fill ==== */

template <krl_dtype T>
static __device__ __forceinline__ void store(void *dst, int64_t i, double v)
{
	if (T == KRL_F32)
		((float *)dst)[i] = (float)v;
	else if (T == KRL_F64)
		((double *)dst)[i] = v;
	else if (T == KRL_F16)
		((uint16_t *)dst)[i] = krl_d2h(v);
	else if (T == KRL_BF16)
		((uint16_t *)dst)[i] = krl_d2bf(v);
	else if (T == KRL_I32)
		((int32_t *)dst)[i] = krl_d2i32(v);
	else if (T == KRL_I64)
		((int64_t *)dst)[i] = krl_d2i64(v);
	else
		((uint8_t *)dst)[i] = v != 0;
}

/* Element i of a float buffer of dtype T, as a double (exact). */
template <krl_dtype T>
static __device__ __forceinline__ double load_f(const void *p, int64_t i)
{
	if (T == KRL_F32)
		return (double)((const float *)p)[i];
	if (T == KRL_F64)
		return ((const double *)p)[i];
	if (T == KRL_F16)
		return krl_h2d(((const uint16_t *)p)[i]);
	return krl_bf2d(((const uint16_t *)p)[i]);
}

/* Stores normal value a + b z. For f32 normal(0, 1), the usual case, it
 * skips the round trip through double: fma(1, z, 0) rounded to float is
 * z + 0.0f (a -0 becomes +0 in both), and the conversions were most of
 * the draw's time. */
template <krl_dtype T>
static __device__ __forceinline__ void store_normal(void *dst, int64_t i,
                                                    float z, double a,
                                                    double b)
{
	if (T == KRL_F32 && a == 0.0 && b == 1.0)
		((float *)dst)[i] = z + 0.0f;
	else
		store<T>(dst, i, fma(b, (double)z, a));
}

template <krl_dtype T>
static __global__ void
fill_random_kernel(void *dst, int64_t n, krl_dist dist, uint64_t seed)
{
	double a = dist.a, b = dist.b;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (dist.kind == KRL_DIST_NORMAL) {
		/* A thread per pair: one Box-Muller transform fills both. */
		for (int64_t p = tid; 2 * p < n; p += stride) {
			float z0, z1;
			krl_normal_pair(seed, (uint64_t)p, &z0, &z1);
			store_normal<T>(dst, 2 * p, z0, a, b);
			if (2 * p + 1 < n)
				store_normal<T>(dst, 2 * p + 1, z1, a, b);
		}
		return;
	}
	for (int64_t i = tid; i < n; i += stride)
		store<T>(dst, i, krl_draw_raw(dist, seed, i));
}

krl_err krl_fill_random(void *dst, krl_dtype t, int64_t n, krl_dist dist,
                        uint64_t seed, void *stream, krl_diag *d)
{
	krl_err r = KRL_OK;
	cudaStream_t s = (cudaStream_t)stream;
	size_t size = krl_dtype_size(t);
	unsigned grid = grid_for(n);

	if (size == 0)
		return krl_diag_set(d, KRL_EUNSUPPORTED, no_pos,
		                    "krl_fill_random: unknown dtype %d", (int)t);
	if (dist.kind < KRL_DIST_NORMAL || dist.kind > KRL_DIST_LAST)
		return krl_diag_set(d, KRL_EINVAL, no_pos,
		                    "krl_fill_random: no distribution given");
	if (n < 0 || (n > 0 && !dst) || (uintptr_t)dst % size)
		return krl_diag_set(d, KRL_EINVAL, no_pos,
		                    "krl_fill_random: bad buffer (%p, %lld "
		                    "elements)", dst, (long long)n);
	if (n == 0)
		return KRL_OK;

	switch (t) {
#define FILL_CASE(T)                                                         \
	case T:                                                              \
		LAUNCH_CHECK((fill_random_kernel<T><<<grid, THREADS, 0, s>>>( \
			dst, n, dist, seed)));          \
		break;
	FILL_CASE(KRL_F32)
	FILL_CASE(KRL_F16)
	FILL_CASE(KRL_BF16)
	FILL_CASE(KRL_I32)
	FILL_CASE(KRL_I64)
	FILL_CASE(KRL_BOOL)
	FILL_CASE(KRL_F64)
#undef FILL_CASE
	default:
		break;
	}
out:
	return r;
}

/* ==== Stress transforms ==== */

template <krl_dtype T>
static __global__ void stress_kernel(void *dst, int64_t n, int kind,
                                     double v, uint64_t seed)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride)
		store<T>(dst, i, krl_stress_value(T, kind, v, seed, i, n,
		                                  load_f<T>(dst, i)));
}

krl_err krl_stress_apply(void *dst, krl_dtype t, int64_t n, int kind,
                         double v, uint64_t seed, void *stream, krl_diag *d)
{
	krl_err r = KRL_OK;
	cudaStream_t s = (cudaStream_t)stream;
	unsigned grid = grid_for(n);
	if (n < 0 || (n > 0 && !dst) || kind < 0 || kind > KRL_JITTER_KIND)
		return krl_diag_set(d, KRL_EINVAL, no_pos,
		                    "krl_stress_apply: bad buffer or kind");
	if (n == 0)
		return KRL_OK;
	switch (t) {
#define STRESS_CASE(T)                                                       \
	case T:                                                              \
		LAUNCH_CHECK((stress_kernel<T><<<grid, THREADS, 0, s>>>(dst, n, \
			kind, v, seed)));                                    \
		break;
	STRESS_CASE(KRL_F32)
	STRESS_CASE(KRL_F16)
	STRESS_CASE(KRL_BF16)
	STRESS_CASE(KRL_F64)
#undef STRESS_CASE
	default:
		return krl_diag_set(d, KRL_EINVAL, no_pos,
		                    "krl_stress_apply: %s is not a float dtype",
		                    krl_dtype_name(t));
	}
out:
	return r;
}

/* ==== Byte ranges: pattern fill, pattern check, byte diff ==== */

/*
 * A byte range [p, p + bytes) is walked as: `head` bytes up to the first
 * 16-byte boundary, `nvec` aligned 16-byte chunks, `tail` bytes. Byte o of
 * the pattern (offset o from the start of the range) is the pattern's byte
 * o % 4 in little-endian order.
 */
typedef struct span {
	int head, tail;
	int64_t nvec;
} span;

static span split(const void *p, size_t bytes)
{
	span r;
	size_t head = (16 - (uintptr_t)p % 16) % 16;
	if (head > bytes)
		head = bytes;
	r.head = (int)head;
	r.nvec = (int64_t)((bytes - head) / 16);
	r.tail = (int)(bytes - head - (size_t)r.nvec * 16);
	return r;
}

static __device__ __forceinline__ uint8_t pattern_byte(uint32_t pat, uint64_t o)
{
	return (uint8_t)(pat >> (8 * (o % 4)));
}

/* The pattern as one little-endian word starting at offset o. */
static __host__ __device__ __forceinline__ uint32_t pattern_word(uint32_t pat,
                                                                 uint64_t o)
{
	unsigned r = 8 * (unsigned)(o % 4);
	return r ? (pat >> r) | (pat << (32 - r)) : pat;
}

static __global__ void fill_pattern_kernel(uint8_t *p, span sp, uint32_t pat)
{
	int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	uint32_t w = pattern_word(pat, (uint64_t)sp.head);
	uint4 v = make_uint4(w, w, w, w);
	uint4 *vec = (uint4 *)(p + sp.head);
	for (int64_t i = tid; i < sp.nvec; i += stride)
		vec[i] = v;
	if (tid < sp.head)
		p[tid] = pattern_byte(pat, (uint64_t)tid);
	if (tid < sp.tail) {
		uint64_t o = (uint64_t)sp.head + (uint64_t)sp.nvec * 16 +
		             (uint64_t)tid;
		p[o] = pattern_byte(pat, o);
	}
}

krl_err krl_fill_pattern(void *dst, size_t bytes, uint32_t pattern,
                         void *stream, krl_diag *d)
{
	krl_err r = KRL_OK;
	cudaStream_t s = (cudaStream_t)stream;
	span sp = split(dst, bytes);

	if (bytes == 0)
		return KRL_OK;
	if (!dst)
		return krl_diag_set(d, KRL_EINVAL, no_pos,
		                    "krl_fill_pattern: dst is NULL");
	LAUNCH_CHECK((fill_pattern_kernel<<<grid_for(sp.nvec), THREADS, 0, s>>>(
		(uint8_t *)dst, sp, pattern)));
out:
	return r;
}

typedef struct diff_result {
	unsigned long long count;
	unsigned long long first; /* ~0 when none */
} diff_result;

/* ==== Result scratch ==== */

/* The device memory every check reduces into, and the pinned host memory
 * its result comes back in: allocated once per process and reused under a
 * lock, so that no check allocates or frees memory inside the judge's
 * timing loop, where every timed pair is verified. (With a
 * cudaMallocAsync/cudaFreeAsync per check, the stream-ordered pool,
 * trimmed back at every synchronisation, was a suspect for the judge's
 * timed reference calls reading ~0.7 us slower than the runner's at kb0.)
 * scratch_get returns with the lock held; scratch_put releases it. */
#define SCRATCH_BYTES ((size_t)128 << 10)
static pthread_mutex_t g_scr_lock = PTHREAD_MUTEX_INITIALIZER;
static void *g_scr_dev, *g_scr_host;

static_assert(sizeof(diff_result) <= SCRATCH_BYTES, "diff_result fits");

static krl_err scratch_get(void **dev, void **host, krl_diag *d)
{
	krl_err r = KRL_OK;
	pthread_mutex_lock(&g_scr_lock);
	if (!g_scr_dev)
		CUDA_CHECK(d, cudaMalloc(&g_scr_dev, SCRATCH_BYTES));
	if (!g_scr_host)
		CUDA_CHECK(d, cudaHostAlloc(&g_scr_host, SCRATCH_BYTES,
		                            cudaHostAllocDefault));
	*dev = g_scr_dev;
	*host = g_scr_host;
	return KRL_OK;
out:
	pthread_mutex_unlock(&g_scr_lock);
	return r;
}

static void scratch_put(void)
{
	pthread_mutex_unlock(&g_scr_lock);
}

/* Differing bytes of two words: count, and the lowest differing byte's
 * offset (base + 0..3) folded into *first. */
static __device__ __forceinline__ void diff_word(uint32_t x, uint32_t y,
                                                 uint64_t base,
                                                 unsigned long long *count,
                                                 unsigned long long *first)
{
	uint32_t ne = __vcmpne4(x, y); /* 0xff in each differing byte */
	if (!ne)
		return;
	*count += (unsigned)__popc(ne) / 8;
	uint64_t o = base + (unsigned)(__ffs(ne) - 1) / 8;
	if (o < *first)
		*first = o;
}

/* Block-reduces (count, first) and merges them into *res. */
static __device__ void
merge_diff(unsigned long long count, unsigned long long first,
           diff_result *res)
{
	__shared__ unsigned long long s_count[THREADS / 32];
	__shared__ unsigned long long s_first[THREADS / 32];
	for (int off = 16; off > 0; off /= 2) {
		count += __shfl_down_sync(0xffffffffu, count, off);
		unsigned long long f =
			__shfl_down_sync(0xffffffffu, first, off);
		first = f < first ? f : first;
	}
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	if (lane == 0) {
		s_count[warp] = count;
		s_first[warp] = first;
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		for (int w = 1; w < THREADS / 32; w++) {
			count += s_count[w];
			first = s_first[w] < first ? s_first[w] : first;
		}
		if (count) {
			atomicAdd(&res->count, count);
			atomicMin(&res->first, first);
		}
	}
}

/*
 * Compares a's bytes with b's, or with the pattern when b is NULL. When b
 * is given, a and b have the same alignment modulo 16 (the caller checks),
 * so one split serves both.
 */
static __global__ void diff_kernel(const uint8_t *a, const uint8_t *b, span sp,
                                   uint32_t pat, diff_result *res)
{
	int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	unsigned long long count = 0, first = ~0ULL;
	uint32_t w = pattern_word(pat, (uint64_t)sp.head);
	const uint4 *va = (const uint4 *)(a + sp.head);
	const uint4 *vb = b ? (const uint4 *)(b + sp.head) : NULL;
	for (int64_t i = tid; i < sp.nvec; i += stride) {
		uint4 x = va[i];
		uint4 y = vb ? vb[i] : make_uint4(w, w, w, w);
		uint64_t base = (uint64_t)sp.head + (uint64_t)i * 16;
		diff_word(x.x, y.x, base, &count, &first);
		diff_word(x.y, y.y, base + 4, &count, &first);
		diff_word(x.z, y.z, base + 8, &count, &first);
		diff_word(x.w, y.w, base + 12, &count, &first);
	}
	/* head and tail bytes, one per thread of the first 16 */
	uint64_t o[2] = { (uint64_t)tid,
	                  (uint64_t)sp.head + (uint64_t)sp.nvec * 16 +
	                          (uint64_t)tid };
	int have[2] = { tid < sp.head, tid < sp.tail };
	for (int k = 0; k < 2; k++) {
		if (!have[k])
			continue;
		uint8_t y = b ? b[o[k]] : pattern_byte(pat, o[k]);
		if (a[o[k]] != y) {
			count++;
			first = o[k] < first ? o[k] : first;
		}
	}
	merge_diff(count, first, res);
}

/* Byte-by-byte comparison for two buffers of different alignment. */
static __global__ void diff_bytes_kernel(const uint8_t *a, const uint8_t *b,
                                         uint64_t bytes, diff_result *res)
{
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	unsigned long long count = 0, first = ~0ULL;
	for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	     i < bytes; i += stride) {
		if (a[i] != b[i]) {
			count++;
			first = i < first ? i : first;
		}
	}
	merge_diff(count, first, res);
}

/* Runs the diff of a against b (or the pattern when b is NULL), waits, and
 * returns the count and first offset. */
static krl_err run_diff(const void *a, const void *b, size_t bytes,
                        uint32_t pat, int64_t *count, int64_t *first,
                        cudaStream_t s, const char *fn, krl_diag *d)
{
	krl_err r = KRL_OK;
	diff_result *dres = NULL, *hres = NULL;
	span sp = split(a, bytes);
	int same_phase = !b || (uintptr_t)a % 16 == (uintptr_t)b % 16;

	if (count)
		*count = 0;
	if (first)
		*first = -1;
	if (bytes == 0)
		return KRL_OK;
	if (!a)
		return krl_diag_set(d, KRL_EINVAL, no_pos, "%s: NULL buffer",
		                    fn);

	if ((r = scratch_get((void **)&dres, (void **)&hres, d)) != KRL_OK)
		return r;
	CUDA_CHECK(d, cudaMemsetAsync(&dres->count, 0, sizeof dres->count, s));
	CUDA_CHECK(d, cudaMemsetAsync(&dres->first, 0xff, sizeof dres->first,
	                              s));
	if (same_phase)
		LAUNCH_CHECK((diff_kernel<<<grid_for(sp.nvec), THREADS, 0, s>>>(
			(const uint8_t *)a, (const uint8_t *)b, sp, pat, dres)));
	else
		LAUNCH_CHECK((diff_bytes_kernel<<<grid_for((int64_t)bytes),
		                                  THREADS, 0, s>>>(
			(const uint8_t *)a, (const uint8_t *)b, bytes, dres)));
	CUDA_CHECK(d, cudaMemcpyAsync(hres, dres, sizeof *hres,
	                              cudaMemcpyDeviceToHost, s));
	CUDA_CHECK(d, cudaStreamSynchronize(s));
	if (count)
		*count = (int64_t)hres->count;
	if (first)
		*first = hres->count ? (int64_t)hres->first : -1;
out:
	scratch_put();
	return r;
}

krl_err krl_check_pattern(const void *dst, size_t bytes, uint32_t pattern,
                          int64_t *count, int64_t *first, void *stream,
                          krl_diag *d)
{
	return run_diff(dst, NULL, bytes, pattern, count, first,
	                (cudaStream_t)stream, "krl_check_pattern", d);
}

krl_err krl_count_diff(const void *a, const void *b, size_t bytes,
                       int64_t *count, int64_t *first, void *stream,
                       krl_diag *d)
{
	if (bytes > 0 && (!a || !b))
		return krl_diag_set(d, KRL_EINVAL, no_pos,
		                    "krl_count_diff: NULL buffer");
	return run_diff(a, b, bytes, 0, count, first, (cudaStream_t)stream,
	                "krl_count_diff", d);
}

/* ==== Tolerance comparison ==== */

enum { CAND_MEM, CAND_ZERO, CAND_CONST };

/* One block's (or the whole grid's) findings. worst is LLONG_MAX until an
 * element is seen; excess orders elements, ties going to the lower index. */
typedef struct cmp_part {
	double excess, cv, rv, max_abs, max_rel, sum_sq;
	long long worst;
	unsigned long long bad, nonfinite;
} cmp_part;

typedef struct cmp_dev {
	unsigned int ticket;
	cmp_part total;
	cmp_part part[MAX_BLOCKS];
} cmp_dev;
static_assert(sizeof(cmp_dev) <= SCRATCH_BYTES, "cmp_dev fits the scratch");

static __device__ __forceinline__ void part_init(cmp_part *p)
{
	p->excess = -INFINITY;
	p->cv = p->rv = 0;
	p->max_abs = p->max_rel = p->sum_sq = 0;
	p->worst = LLONG_MAX;
	p->bad = p->nonfinite = 0;
}

static __device__ __forceinline__ void
part_merge(cmp_part *a, const cmp_part *b)
{
	if (b->excess > a->excess ||
	    (b->excess == a->excess && b->worst < a->worst)) {
		a->excess = b->excess;
		a->worst = b->worst;
		a->cv = b->cv;
		a->rv = b->rv;
	}
	a->max_abs = fmax(a->max_abs, b->max_abs);
	a->max_rel = fmax(a->max_rel, b->max_rel);
	a->sum_sq += b->sum_sq;
	a->bad += b->bad;
	a->nonfinite += b->nonfinite;
}

/* Folds element i with excess e into p (the grid-stride order visits a
 * thread's indices in increasing order, so ">" keeps the lowest on ties). */
static __device__ __forceinline__ void
part_see(cmp_part *p, int64_t i, double e,
         double cv, double rv)
{
	if (e > p->excess || p->worst == LLONG_MAX) {
		p->excess = e;
		p->worst = i;
		p->cv = cv;
		p->rv = rv;
	}
}

template <krl_dtype T>
static __device__ __forceinline__ int64_t load_i(const void *p, int64_t i)
{
	if (T == KRL_I32)
		return ((const int32_t *)p)[i];
	if (T == KRL_I64)
		return ((const int64_t *)p)[i];
	return ((const uint8_t *)p)[i] != 0;
}

/* Reads another block's part past this SM's L1 (which is not coherent
 * with other SMs' writes). */
static __device__ __forceinline__ cmp_part load_part(const cmp_part *p)
{
	cmp_part q;
	q.excess = __ldcg(&p->excess);
	q.cv = __ldcg(&p->cv);
	q.rv = __ldcg(&p->rv);
	q.max_abs = __ldcg(&p->max_abs);
	q.max_rel = __ldcg(&p->max_rel);
	q.sum_sq = __ldcg(&p->sum_sq);
	q.worst = __ldcg(&p->worst);
	q.bad = __ldcg(&p->bad);
	q.nonfinite = __ldcg(&p->nonfinite);
	return q;
}

/* Block-reduces *p in shared memory; the last block to finish merges every
 * block's part into res->total (threadfence reduction). */
static __device__ void finish_compare(cmp_part *p, cmp_dev *res)
{
	__shared__ cmp_part sh[THREADS];
	__shared__ bool last;
	sh[threadIdx.x] = *p;
	__syncthreads();
	for (int w = THREADS / 2; w > 0; w /= 2) {
		if ((int)threadIdx.x < w)
			part_merge(&sh[threadIdx.x], &sh[threadIdx.x + w]);
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		res->part[blockIdx.x] = sh[0];
		__threadfence();
		last = atomicAdd(&res->ticket, 1u) == gridDim.x - 1;
	}
	__syncthreads();
	if (!last)
		return;
	__threadfence();
	cmp_part acc;
	part_init(&acc);
	for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
		cmp_part q = load_part(&res->part[b]);
		part_merge(&acc, &q);
	}
	sh[threadIdx.x] = acc;
	__syncthreads();
	for (int w = THREADS / 2; w > 0; w /= 2) {
		if ((int)threadIdx.x < w)
			part_merge(&sh[threadIdx.x], &sh[threadIdx.x + w]);
		__syncthreads();
	}
	if (threadIdx.x == 0)
		res->total = sh[0];
}

template <krl_dtype T>
static __global__ void
compare_float_kernel(const void *c, int mode, double cconst,
                     const void *r, int64_t n, double atol,
                     double rtol, cmp_dev *res)
{
	cmp_part p;
	part_init(&p);
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride) {
		double rv = load_f<T>(r, i);
		double cv = mode == CAND_MEM ? load_f<T>(c, i)
		            : mode == CAND_CONST ? cconst : 0.0;
		double e;
		if (isfinite(rv) && isfinite(cv)) {
			double diff = fabs(cv - rv);
			double tol = atol + rtol * fabs(rv);
			e = diff - tol;
			p.bad += !(diff <= tol);
			p.max_abs = fmax(p.max_abs, diff);
			p.sum_sq += diff * diff;
			if (rv != 0)
				p.max_rel = fmax(p.max_rel, diff / fabs(rv));
		} else if (isfinite(rv)) {
			/* a NaN or Inf where the reference is finite */
			e = INFINITY;
			p.bad++;
			p.nonfinite++;
		} else {
			int pass = isnan(rv) ? isnan(cv) : cv == rv;
			e = pass ? -INFINITY : INFINITY;
			p.bad += !pass;
		}
		part_see(&p, i, e, cv, rv);
	}
	finish_compare(&p, res);
}

template <krl_dtype T>
static __global__ void
compare_int_kernel(const void *c, int mode, int cconst_ok,
                   int64_t cconst, const void *r, int64_t n,
                   cmp_dev *res)
{
	cmp_part p;
	part_init(&p);
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride) {
		int64_t ri = load_i<T>(r, i);
		int64_t ci = mode == CAND_MEM ? load_i<T>(c, i)
		             : mode == CAND_CONST ? cconst : 0;
		int equal = ci == ri && (mode != CAND_CONST || cconst_ok);
		double rv = (double)ri, cv = (double)ci;
		double diff = fabs(cv - rv);
		if (!equal && diff < 1)
			diff = 1; /* int64 values past 2^53 round together */
		p.bad += !equal;
		p.max_abs = fmax(p.max_abs, diff);
		p.sum_sq += diff * diff;
		if (ri != 0)
			p.max_rel = fmax(p.max_rel, diff / fabs(rv));
		part_see(&p, i, equal ? 0.0 : diff, cv, rv);
	}
	finish_compare(&p, res);
}

krl_err krl_compare(const void *c, const double *c_const, const void *ref,
                    krl_dtype t, int64_t n, double atol, double rtol,
                    krl_cmp *out, void *stream, krl_diag *d)
{
	krl_err r = KRL_OK;
	cudaStream_t s = (cudaStream_t)stream;
	size_t size = krl_dtype_size(t);
	int mode = c_const ? CAND_CONST : c ? CAND_MEM : CAND_ZERO;
	double cconst = c_const ? *c_const : 0;
	unsigned grid = grid_for(n);
	cmp_dev *dres = NULL;
	cmp_part *total = NULL;
	int is_float = t == KRL_F32 || t == KRL_F16 || t == KRL_BF16 ||
	               t == KRL_F64;
	/* an integer constant candidate: exact when integral and in range */
	int cconst_ok = cconst == floor(cconst) && fabs(cconst) < 9.2e18;
	int64_t cconst_i = cconst_ok ? (int64_t)cconst : 0;
	if (t == KRL_BOOL && mode == CAND_CONST) {
		cconst_ok = 1;
		cconst_i = cconst != 0;
	}

	if (!out)
		return krl_diag_set(d, KRL_EINVAL, no_pos,
		                    "krl_compare: out is NULL");
	memset(out, 0, sizeof *out);
	out->worst = -1;
	if (size == 0)
		return krl_diag_set(d, KRL_EUNSUPPORTED, no_pos,
		                    "krl_compare: unknown dtype %d", (int)t);
	if (n < 0 || (n > 0 && (!ref || (mode == CAND_MEM && !c))) ||
	    (uintptr_t)ref % size || (mode == CAND_MEM && (uintptr_t)c % size))
		return krl_diag_set(d, KRL_EINVAL, no_pos,
		                    "krl_compare: bad buffers or count");
	if (!(atol >= 0) || !(rtol >= 0) || isinf(atol) || isinf(rtol))
		return krl_diag_set(d, KRL_EINVAL, no_pos,
		                    "krl_compare: tolerances must be finite and "
		                    ">= 0 (atol %g, rtol %g)", atol, rtol);
	if (n == 0)
		return KRL_OK;

	if ((r = scratch_get((void **)&dres, (void **)&total, d)) != KRL_OK)
		return r;
	CUDA_CHECK(d, cudaMemsetAsync(&dres->ticket, 0, sizeof dres->ticket,
	                              s));
	switch (t) {
#define FLOAT_CASE(T)                                                        \
	case T:                                                              \
		LAUNCH_CHECK((compare_float_kernel<T><<<grid, THREADS, 0, s>>>( \
			c, mode, cconst, ref, n, atol, rtol, dres)));          \
		break;
#define INT_CASE(T)                                                          \
	case T:                                                              \
		LAUNCH_CHECK((compare_int_kernel<T><<<grid, THREADS, 0, s>>>(   \
			c, mode, cconst_ok, cconst_i, ref, n, dres)));         \
		break;
	FLOAT_CASE(KRL_F32)
	FLOAT_CASE(KRL_F16)
	FLOAT_CASE(KRL_BF16)
	FLOAT_CASE(KRL_F64)
	INT_CASE(KRL_I32)
	INT_CASE(KRL_I64)
	INT_CASE(KRL_BOOL)
#undef FLOAT_CASE
#undef INT_CASE
	default:
		break;
	}
	CUDA_CHECK(d, cudaMemcpyAsync(total, &dres->total, sizeof *total,
	                              cudaMemcpyDeviceToHost, s));
	CUDA_CHECK(d, cudaStreamSynchronize(s));
	out->n = n;
	out->bad = (int64_t)total->bad;
	out->nonfinite = is_float ? (int64_t)total->nonfinite : 0;
	out->worst = total->worst;
	out->max_abs = total->max_abs;
	out->max_rel = total->max_rel;
	out->sum_sq = total->sum_sq;
	out->cand_at_worst = total->cv;
	out->ref_at_worst = total->rv;
out:
	scratch_put();
	return r;
}

/* ==== Single elements and L2 ==== */

krl_err krl_read_element(const void *src, krl_dtype t, int64_t i, double *out,
                         void *stream, krl_diag *d)
{
	krl_err r = KRL_OK;
	cudaStream_t s = (cudaStream_t)stream;
	size_t size = krl_dtype_size(t);
	unsigned char b[8] = { 0 };

	if (size == 0)
		return krl_diag_set(d, KRL_EUNSUPPORTED, no_pos,
		                    "krl_read_element: unknown dtype %d", (int)t);
	if (!src || i < 0 || !out)
		return krl_diag_set(d, KRL_EINVAL, no_pos,
		                    "krl_read_element: bad buffer or index %lld",
		                    (long long)i);
	const unsigned char *at = (const unsigned char *)src + (size_t)i * size;
	CUDA_CHECK(d, cudaMemcpyAsync(b, at, size, cudaMemcpyDeviceToHost, s));
	CUDA_CHECK(d, cudaStreamSynchronize(s));
	switch (t) {
	case KRL_F32: { float f; memcpy(&f, b, 4); *out = f; break; }
	case KRL_F16: *out = krl_h2d((uint16_t)(b[0] | b[1] << 8)); break;
	case KRL_BF16: *out = krl_bf2d((uint16_t)(b[0] | b[1] << 8)); break;
	case KRL_I32: { int32_t v; memcpy(&v, b, 4); *out = v; break; }
	case KRL_I64: { int64_t v; memcpy(&v, b, 8); *out = (double)v; break; }
	case KRL_F64: memcpy(out, b, 8); break;
	default: *out = b[0] != 0; break;
	}
out:
	return r;
}

krl_err krl_flush_l2(void *scratch, size_t bytes, void *stream, krl_diag *d)
{
	krl_err r = KRL_OK;
	if (bytes == 0)
		return KRL_OK;
	if (!scratch)
		return krl_diag_set(d, KRL_EINVAL, no_pos,
		                    "krl_flush_l2: scratch is NULL");
	CUDA_CHECK(d, cudaMemsetAsync(scratch, 0, bytes, (cudaStream_t)stream));
out:
	return r;
}

/* ==== Read bandwidth (the roofline's memory ceiling) ==== */

/* Reads the n 16-byte words of src once, as `streams` (1 or 2) runs side
 * by side (one: src[0, n); two: src[0, n / 2) and src[n / 2, n), as a
 * kernel reading two inputs does). */
template <int STREAMS>
__global__ void __launch_bounds__(1024) k_stream_read(const uint4 *__restrict__ src, int64_t n,
                              uint32_t *sink)
{
	uint32_t acc = 0;
	const int64_t m = n / STREAMS;   /* words a stream */
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	/* eight 16-byte loads in flight per thread (four left the H200's
	 * reductions at up to 1.04 of the rate measured) */
	constexpr int PER = 8 / STREAMS;
	for (; i + (PER - 1) * stride < m; i += PER * stride) {
		uint4 a[8];
		#pragma unroll
		for (int k = 0; k < 8; k++)
			a[k] = src[(k / PER) * m + i + (k % PER) * stride];
		#pragma unroll
		for (int k = 0; k < 8; k++)
			acc ^= a[k].x ^ a[k].y ^ a[k].z ^ a[k].w;
	}
	for (; i < m; i += stride)
		#pragma unroll
		for (int s = 0; s < STREAMS; s++) {
			uint4 a = src[s * m + i];
			acc ^= a.x ^ a.y ^ a.z ^ a.w;
		}
	for (int o = 16; o > 0; o >>= 1)
		acc ^= __shfl_xor_sync(0xffffffffu, acc, o);
	if ((threadIdx.x & 31) == 0)
		atomicXor(&sink[blockIdx.x], acc);
}

krl_err krl_stream_read(const void *src, size_t bytes, int streams,
                        int block, uint32_t *sink, void *stream, krl_diag *d)
{
	krl_err r = KRL_OK;
	if (!src || !sink || bytes % 32 || (streams != 1 && streams != 2) ||
	    (block != 256 && block != 1024))
		return krl_diag_set(d, KRL_EINVAL, no_pos, "krl_stream_read: "
		                    "needs a source, a sink, a multiple of 32 "
		                    "bytes, 1 or 2 streams and blocks of 256 or "
		                    "1024 threads");
	int dev = 0, sms = 0;
	CUDA_CHECK(d, cudaGetDevice(&dev));
	CUDA_CHECK(d, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
	                                     dev));
	{
		/* a resident grid: 2048 threads per multiprocessor (8 blocks of
		 * 256 or 2 of 1024), at most 2048 blocks */
		int per = 2048 / block;
		int blocks = sms * per < 2048 ? sms * per : 2048;
		cudaStream_t s = (cudaStream_t)stream;
		if (streams == 2)
			k_stream_read<2><<<blocks, block, 0, s>>>(
				(const uint4 *)src, (int64_t)(bytes / 16), sink);
		else
			k_stream_read<1><<<blocks, block, 0, s>>>(
				(const uint4 *)src, (int64_t)(bytes / 16), sink);
		CUDA_CHECK(d, cudaGetLastError());
	}
out:
	return r;
}
