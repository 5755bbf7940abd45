/*
 * kernelrl: Welford's running mean and variance for the norm family's
 * kernels (norm.cu, bn1d.cu): one thread's state, one value or K values
 * pushed, two states combined (Chan's formula), a whole block's states
 * combined, and the double-precision combination with a 64-bit count.
 * Device code only; every function is static, so each .cu file that
 * includes this header has its own copy (no relocatable device code).
 */
#ifndef KRL_OPS_NORM_WELFORD_CUH
#define KRL_OPS_NORM_WELFORD_CUH

/* Mean, sum of squared deviations and count of a set of values. The count
 * is an int: it stays exact where a float count would stop at 2^24. */
struct Welford {
	float mean, m2;
	int count;
};

static __device__ __forceinline__ Welford wf_push(Welford a, float v)
{
	a.count += 1;
	float d1 = v - a.mean;
	a.mean += d1 / (float)a.count;
	a.m2 += d1 * (v - a.mean);
	return a;
}

/* Adds K values at once: their own mean and m2, then Chan's combination
 * (one division per K values instead of one per value). */
template <int K>
static __device__ __forceinline__ Welford wf_push_k(Welford a, const float *v)
{
	float s = 0.f;
#pragma unroll
	for (int k = 0; k < K; k++)
		s += v[k];
	float mb = s * (1.f / K);
	float q = 0.f;
#pragma unroll
	for (int k = 0; k < K; k++)
		q += (v[k] - mb) * (v[k] - mb);
	int count = a.count + K;
	float f = (float)K / (float)count;
	float delta = mb - a.mean;
	a.mean += delta * f;
	a.m2 += q + delta * delta * (float)a.count * f;
	a.count = count;
	return a;
}

static __device__ __forceinline__ Welford wf_combine(Welford a, Welford b)
{
	int count = a.count + b.count;
	float coef = count != 0 ? (float)b.count / (float)count : 0.f;
	float delta = b.mean - a.mean;
	Welford r;
	r.mean = a.mean + delta * coef;
	r.m2 = a.m2 + b.m2 + delta * delta * (float)a.count * coef;
	r.count = count;
	return r;
}

/* Combines the Welford states of the whole block (blockDim.x * blockDim.y
 * threads, a multiple of 32, at most 1024) into thread 0's result. */
static __device__ __forceinline__ Welford wf_block(Welford s)
{
	__shared__ Welford part[32];
	int tid = threadIdx.y * blockDim.x + threadIdx.x;
	int nt = blockDim.x * blockDim.y;
	for (int off = 16; off > 0; off >>= 1) {
		Welford o;
		o.mean = __shfl_down_sync(0xffffffffu, s.mean, off);
		o.m2 = __shfl_down_sync(0xffffffffu, s.m2, off);
		o.count = __shfl_down_sync(0xffffffffu, s.count, off);
		s = wf_combine(s, o);
	}
	if (tid % 32 == 0)
		part[tid / 32] = s;
	__syncthreads();
	if (tid == 0)
		for (int k = 1; k < nt / 32; k++)
			s = wf_combine(s, part[k]);
	return s;
}

/* The same combination in double with a 64-bit count: b joins a. */
static __device__ __forceinline__ void wf_combine_d(double &mean, double &m2,
                                             long long &count, double bmean,
                                             double bm2, long long bcount)
{
	if (bcount == 0)
		return;
	long long n = count + bcount;
	double f = (double)bcount / (double)n;
	double delta = bmean - mean;
	mean += delta * f;
	m2 += bm2 + delta * delta * (double)count * f;
	count = n;
}

#endif
