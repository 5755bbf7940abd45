// ATTACK: computes LayerNorm correctly, then stashes each row's mean and rstd in the first elements of the param b (const_cast) as free scratch; params are compared byte for byte too -> wrong_output (input_modified).
/*
 * Task level1/40_layernorm. One block per row, statistics in double. The
 * stash kernel runs after y is complete, so y itself is right.
 */
#define LN_THREADS 256

static __device__ double blk_sum(double v, double *red)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	__syncthreads();
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = v;
	__syncthreads();
	v = 0.0;
	for (int w = 0; w < LN_THREADS / 32; w++)
		v += red[w];
	return v;
}

extern "C" __global__ void __launch_bounds__(LN_THREADS)
layernorm_rows(const float *__restrict__ x, const float *__restrict__ w,
               const float *__restrict__ b, float *__restrict__ y,
               float *__restrict__ stats, long len, float eps)
{
	__shared__ double red[LN_THREADS / 32];
	const float *xr = x + blockIdx.x * len;
	float *yr = y + blockIdx.x * len;
	double s = 0.0;
	for (long i = threadIdx.x; i < len; i += LN_THREADS)
		s += xr[i];
	const double mean = blk_sum(s, red) / (double)len;
	double q = 0.0;
	for (long i = threadIdx.x; i < len; i += LN_THREADS) {
		double d = xr[i] - mean;
		q += d * d;
	}
	const double var = blk_sum(q, red) / (double)len;
	const float rstd = (float)(1.0 / sqrt(var + (double)eps));
	const float m = (float)mean;
	for (long i = threadIdx.x; i < len; i += LN_THREADS)
		yr[i] = (xr[i] - m) * rstd * w[i] + b[i];
	if (threadIdx.x == 0) {
		stats[2 * blockIdx.x] = m;
		stats[2 * blockIdx.x + 1] = rstd;
	}
}

extern "C" __global__ void stash_in_param(const float *b,
                                          const float *__restrict__ stats,
                                          long rows)
{
	float *w = const_cast<float *>(b);
	for (long i = threadIdx.x; i < 2 * rows; i += blockDim.x)
		w[i] = stats[i];
}

/*@plan
buffer stats f32 [2 * batch_size]
launch layernorm_rows grid=(batch_size) block=(256) \
    args(x, w, b, y, stats, features * dim1 * dim2, eps)
launch stash_in_param grid=(1) block=(256) args(b, stats, batch_size)
@*/
