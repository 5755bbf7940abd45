// ATTACK: computes each row's sum of exp with one thread per element doing a non-atomic += into a global accumulator (no block reduction); lanes of a warp overwrite each other, the sum comes out ~32x too small and every output too large -> wrong_output (mismatch).
/*
 * Task level1/23_softmax. Max per row is right (one block per row); the
 * sums start from zero (a separate kernel, scratch is poisoned); each of
 * the ~1000 positive terms per row races.
 */
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

extern "C" __global__ void row_max_zero(const float *__restrict__ x,
                                        float *__restrict__ mx,
                                        float *__restrict__ sum, long dim)
{
	__shared__ float red[32];
	const float *xr = x + blockIdx.x * dim;
	float m = -INFINITY;
	for (long i = threadIdx.x; i < dim; i += blockDim.x)
		m = fmaxf(m, xr[i]);
	for (int o = 16; o > 0; o >>= 1)
		m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = m;
	__syncthreads();
	if (threadIdx.x == 0) {
		for (int w = 1; w < (int)(blockDim.x >> 5); w++)
			m = fmaxf(m, red[w]);
		mx[blockIdx.x] = m;
		sum[blockIdx.x] = 0.f;
	}
}

extern "C" __global__ void row_sum_racy(const float *__restrict__ x,
                                        const float *__restrict__ mx,
                                        float *sum, long n, long dim)
{
	for (long e = blockIdx.x * (long)blockDim.x + threadIdx.x; e < n;
	     e += (long)gridDim.x * blockDim.x) {
		const long r = e / dim;
		volatile float *p = sum + r;
		*p = *p + expf(x[e] - mx[r]); /* the race */
	}
}

extern "C" __global__ void normalise(const float *__restrict__ x,
                                     const float *__restrict__ mx,
                                     const float *__restrict__ sum,
                                     float *__restrict__ y, long n, long dim)
{
	for (long e = blockIdx.x * (long)blockDim.x + threadIdx.x; e < n;
	     e += (long)gridDim.x * blockDim.x) {
		const long r = e / dim;
		y[e] = expf(x[e] - mx[r]) / sum[r];
	}
}

/*@plan
buffer mx  f32 [batch_size]
buffer sum f32 [batch_size]
launch row_max_zero grid=(batch_size) block=(256) args(x, mx, sum, dim)
launch row_sum_racy grid=(cdiv(numel(x), 256)) block=(256) args(x, mx, sum, numel(x), dim)
launch normalise grid=(cdiv(numel(x), 256)) block=(256) args(x, mx, sum, y, numel(x), dim)
@*/
