// WRONG: the tile loop advances by (blockDim.x / 512) * 512, which is 0 for 256 threads, so it never ends -> verdict timeout.
/*
 * Level 1 problem 89 (cumsum), wrong on purpose.
 *
 * A block-per-row scan whose tile step was meant to be rounded down to a
 * multiple of 512; with 256 threads per block it rounds to 0. The loop keeps
 * scanning and storing the first tile forever (the stores keep it from being
 * optimised away). The judge's watchdog must stop it: timeout, and the
 * runner must come back for the next candidate.
 */

extern "C" __global__ void cumsum_stuck(const float *__restrict__ x,
                                        float *__restrict__ y, long n)
{
	__shared__ float buf[256];
	const float *xr = x + (long)blockIdx.x * n;
	float *yr = y + (long)blockIdx.x * n;
	const long step = (blockDim.x / 512) * 512;
	float carry = 0.f;
	for (long base = 0; base < n; base += step) {
		long e = base + threadIdx.x;
		buf[threadIdx.x] = e < n ? xr[e] : 0.f;
		__syncthreads();
		if (threadIdx.x == 0) {
			for (int i = 0; i < (int)blockDim.x; i++) {
				carry += buf[i];
				buf[i] = carry;
			}
		}
		__syncthreads();
		if (e < n)
			yr[e] = buf[threadIdx.x];
		__syncthreads();
	}
}

/*@plan
launch cumsum_stuck grid=(dim(x, 0)) block=(256) args(x, y, dim(x, 1))
@*/
