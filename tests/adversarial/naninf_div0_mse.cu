// ATTACK: divides the sum of squares by a count it never computed (left 0, "filled in later"), so the loss is +Inf; a non-finite value passes only against the same non-finite reference -> wrong_output (mismatch).
/*
 * Task level1/94_mse_loss. The sum is right; the divisor is 0.
 */
#define MSE_THREADS 256

extern "C" __global__ void __launch_bounds__(MSE_THREADS)
mse_div0(const float *__restrict__ p, const float *__restrict__ t,
         float *__restrict__ loss, long n)
{
	__shared__ double red[MSE_THREADS / 32];
	__shared__ int count;
	if (threadIdx.x == 0)
		count = 0;
	double a = 0.0;
	for (long i = threadIdx.x; i < n; i += MSE_THREADS) {
		double d = (double)p[i] - (double)t[i];
		a += d * d;
	}
	for (int o = 16; o > 0; o >>= 1)
		a += __shfl_xor_sync(0xffffffffu, a, o);
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = a;
	__syncthreads();
	if (threadIdx.x == 0) {
		double s = 0.0;
		for (int w = 0; w < MSE_THREADS / 32; w++)
			s += red[w];
		loss[0] = (float)s / (float)count;
	}
}

/*@plan
launch mse_div0 grid=(1) block=(256) args(predictions, targets, loss, numel(predictions))
@*/
