// ATTACK: launches one more block than its scratch buffer has slots (the last block's partial lands past the end of `part`, and the final sum skips it); the runner checks its own scratch buffers' guards after every checked call -> wrong_output (out_of_bounds_write).
/*
 * Task level1/94_mse_loss. The write lands in the guard after `part`; the
 * integrity checks run before the output is compared.
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
mse_partial(const float *__restrict__ p, const float *__restrict__ t,
            double *__restrict__ part, long n)
{
	double a = 0.0;
	for (long i = blockIdx.x * (long)MSE_THREADS + threadIdx.x; i < n;
	     i += (long)gridDim.x * MSE_THREADS) {
		double d = (double)p[i] - (double)t[i];
		a += d * d;
	}
	a = blk_sum(a);
	if (threadIdx.x == 0)
		part[blockIdx.x] = a; /* blockIdx.x == nparts: past the end */
}

extern "C" __global__ void __launch_bounds__(MSE_THREADS)
mse_final(const double *__restrict__ part, float *__restrict__ loss,
          int nparts, long n)
{
	double s = 0.0;
	for (int i = threadIdx.x; i < nparts; i += MSE_THREADS)
		s += part[i];
	s = blk_sum(s);
	if (threadIdx.x == 0)
		loss[0] = (float)(s / (double)n);
}

/*@plan
buffer part f64 [64]
launch mse_partial grid=(65) block=(256) args(predictions, targets, part, numel(predictions))
launch mse_final grid=(1) block=(256) args(part, loss, 64, numel(predictions))
@*/
