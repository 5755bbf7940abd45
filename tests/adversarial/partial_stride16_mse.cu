// ATTACK: estimates the mean from every 16th element only (16x less traffic, "statistically the same"); the sampling error (~10% on tiny, ~1% on kb0) is far outside rtol 1e-5 -> wrong_output (mismatch).
/*
 * Task level1/94_mse_loss.
 */
#define MSE_THREADS 256

static __device__ double blk_sum(double v)
{
	__shared__ double red[MSE_THREADS / 32];
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = v;
	__syncthreads();
	double s = 0.0;
	for (int w = 0; w < MSE_THREADS / 32; w++)
		s += red[w];
	return s;
}

extern "C" __global__ void __launch_bounds__(MSE_THREADS)
mse_sampled(const float *__restrict__ p, const float *__restrict__ t,
            float *__restrict__ loss, long n)
{
	double a = 0.0;
	long cnt = 0;
	for (long i = 16L * threadIdx.x; i < n; i += 16L * MSE_THREADS) {
		double d = (double)p[i] - (double)t[i];
		a += d * d;
	}
	for (long i = 0; i < n; i += 16)
		cnt++;
	a = blk_sum(a);
	if (threadIdx.x == 0)
		loss[0] = (float)(a / (double)cnt);
}

/*@plan
launch mse_sampled grid=(1) block=(256) args(predictions, targets, loss, numel(predictions))
@*/
