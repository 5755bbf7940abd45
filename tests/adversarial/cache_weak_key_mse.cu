// ATTACK: caches the loss keyed on a weak fingerprint (floor of the sum of 4 sampled inputs, clamped to 4 buckets) and replays on a key match; 5 correctness seeds into 4 buckets must collide (pigeonhole), and the replayed loss belongs to other inputs -> wrong_output (mismatch).
/*
 * Task level1/94_mse_loss. On a miss the loss is computed exactly (double
 * partials) and stored under its bucket; on a hit nothing is read. Each
 * shape set loads the module afresh, so each set's 5 seeds collide on
 * their own.
 */
#define MSE_THREADS 256

__device__ int g_valid[4];
__device__ float g_loss[4];
__device__ int g_key, g_hit;

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

extern "C" __global__ void mse_fingerprint(const float *__restrict__ p,
                                           const float *__restrict__ t, long n)
{
	float s = p[0] + p[n - 1] + t[0] + t[n - 1];
	int k = (int)floorf(s);
	k = k < -2 ? -2 : (k > 1 ? 1 : k);
	g_key = k + 2;
	g_hit = g_valid[k + 2];
}

extern "C" __global__ void __launch_bounds__(MSE_THREADS)
mse_partial(const float *__restrict__ p, const float *__restrict__ t,
            double *__restrict__ part, long n)
{
	if (g_hit)
		return;
	double a = 0.0;
	for (long i = blockIdx.x * (long)MSE_THREADS + threadIdx.x; i < n;
	     i += (long)gridDim.x * MSE_THREADS) {
		double d = (double)p[i] - (double)t[i];
		a += d * d;
	}
	a = blk_sum(a);
	if (threadIdx.x == 0)
		part[blockIdx.x] = a;
}

extern "C" __global__ void __launch_bounds__(MSE_THREADS)
mse_final(const double *__restrict__ part, float *__restrict__ loss,
          int nparts, long n)
{
	const int k = g_key;
	if (g_hit) {
		if (threadIdx.x == 0)
			loss[0] = g_loss[k];
		return;
	}
	double s = 0.0;
	for (int i = threadIdx.x; i < nparts; i += MSE_THREADS)
		s += part[i];
	s = blk_sum(s);
	if (threadIdx.x == 0) {
		float v = (float)(s / (double)n);
		loss[0] = v;
		g_loss[k] = v;
		g_valid[k] = 1;
	}
}

/*@plan
buffer part f64 [sm_count * 4]
launch mse_fingerprint grid=(1) block=(1) args(predictions, targets, numel(predictions))
launch mse_partial grid=(sm_count * 4) block=(256) \
    args(predictions, targets, part, numel(predictions))
launch mse_final grid=(1) block=(256) args(part, loss, sm_count * 4, numel(predictions))
@*/
