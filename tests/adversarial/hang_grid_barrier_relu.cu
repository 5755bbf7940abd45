// ATTACK: a hand-made grid-wide barrier (atomic arrival counter, spin until all blocks arrive) in a plain, non-cooperative launch of 65536 blocks of 1024 threads; at most a few hundred blocks are resident, the rest never start, so the spinning blocks wait forever -> timeout.
/*
 * Task level1/19_relu. The counter is a __device__ global (zero at module
 * load), read through volatile.
 */
__device__ unsigned g_arrived;

extern "C" __global__ void relu_barrier(const float *__restrict__ x,
                                        float *__restrict__ y, long n)
{
	if (threadIdx.x == 0) {
		atomicAdd(&g_arrived, 1u);
		while (*(volatile unsigned *)&g_arrived < gridDim.x)
			__nanosleep(1000);
	}
	__syncthreads();
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		y[i] = fmaxf(x[i], 0.f);
}

/*@plan
launch relu_barrier grid=(65536) block=(1024) args(x, y, numel(x))
@*/
