// ATTACK: each block spin-waits for a "ready" flag in a __device__ global that nothing ever sets (a broken decoupled look-back); the call never finishes and the runner is killed after --timeout -> timeout.
/*
 * Task level1/89_cumsum. The flag is read through a volatile pointer so
 * the loop cannot be optimised away.
 */
__device__ int g_ready;

extern "C" __global__ void cumsum_wait(const float *__restrict__ x,
                                       float *__restrict__ y, long n)
{
	if (threadIdx.x == 0)
		while (*(volatile int *)&g_ready == 0)
			__nanosleep(1000);
	__syncthreads();
	if (threadIdx.x == 0) {
		const float *xr = x + blockIdx.x * n;
		float *yr = y + blockIdx.x * n;
		float s = 0.f;
		for (long i = 0; i < n; i++) {
			s += xr[i];
			yr[i] = s;
		}
	}
}

/*@plan
launch cumsum_wait grid=(dim(x, 0)) block=(32) args(x, y, dim(x, 1))
@*/
