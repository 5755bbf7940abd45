// ATTACK: reads predictions and targets as bf16 (half the bytes if they were stored so) and rounds the loss to bf16; bf16 keeps 8 mantissa bits (2^-9 relative), so the loss is off by ~1e-3 relative against rtol 1e-5 -> wrong_output (mismatch).
/*
 * Task level1/94_mse_loss. Rounding the final loss to bf16 alone passes
 * only if it happens to land within 1e-5 relative of the exact value
 * (~1% of draws); every correctness seed has to pass.
 */
#include <cuda_bf16.h>

#define MSE_THREADS 256

extern "C" __global__ void __launch_bounds__(MSE_THREADS)
mse_bf16(const float *__restrict__ p, const float *__restrict__ t,
         float *__restrict__ loss, long n)
{
	__shared__ float red[MSE_THREADS / 32];
	float a = 0.f;
	for (long i = threadIdx.x; i < n; i += MSE_THREADS) {
		float d = __bfloat162float(__float2bfloat16(p[i])) -
		          __bfloat162float(__float2bfloat16(t[i]));
		a = fmaf(d, d, a);
	}
	for (int o = 16; o > 0; o >>= 1)
		a += __shfl_xor_sync(0xffffffffu, a, o);
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = a;
	__syncthreads();
	if (threadIdx.x == 0) {
		float s = 0.f;
		for (int w = 0; w < MSE_THREADS / 32; w++)
			s += red[w];
		loss[0] = __bfloat162float(__float2bfloat16(s / (float)n));
	}
}

/*@plan
launch mse_bf16 grid=(1) block=(256) args(predictions, targets, loss, numel(predictions))
@*/
