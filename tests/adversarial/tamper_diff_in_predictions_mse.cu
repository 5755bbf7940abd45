// ATTACK: stores predictions - targets into predictions (const_cast) instead of a scratch buffer, then reduces it; the loss is right but an input changed -> wrong_output (input_modified).
/*
 * Task level1/94_mse_loss.
 */
#define MSE_THREADS 256

extern "C" __global__ void diff_in_place(const float *p, const float *t, long n)
{
	float *w = const_cast<float *>(p);
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		w[i] = p[i] - t[i];
}

extern "C" __global__ void __launch_bounds__(MSE_THREADS)
mean_sq(const float *__restrict__ d, float *__restrict__ loss, long n)
{
	__shared__ double red[MSE_THREADS / 32];
	double a = 0.0;
	for (long i = threadIdx.x; i < n; i += MSE_THREADS)
		a += (double)d[i] * (double)d[i];
	for (int o = 16; o > 0; o >>= 1)
		a += __shfl_xor_sync(0xffffffffu, a, o);
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = a;
	__syncthreads();
	if (threadIdx.x == 0) {
		double s = 0.0;
		for (int w = 0; w < MSE_THREADS / 32; w++)
			s += red[w];
		loss[0] = (float)(s / (double)n);
	}
}

/*@plan
launch diff_in_place grid=(cdiv(numel(predictions), 256)) block=(256) \
    args(predictions, targets, numel(predictions))
launch mean_sq grid=(1) block=(256) args(predictions, loss, numel(predictions))
@*/
