// WRONG: reads the vector through a __device__ pointer that nothing ever sets (it is null), an illegal address on every shape -> verdict launch_error.
/*
 * Level 1 problem 4 (matvec), wrong on purpose.
 *
 * One block per row with a block reduction, which would be correct, but the
 * vector is read through the device global g_vec. Candidates have no host
 * code, so nothing ever assigns it: it stays zero-initialised and the first
 * load faults (CUDA_ERROR_ILLEGAL_ADDRESS). The judge must report
 * launch_error, and the runner process must survive to judge the next
 * candidate (the context is lost after such a fault).
 */

__device__ const float *g_vec; /* meant to point at B; never set */

extern "C" __global__ void matvec_rows(const float *__restrict__ A,
                                       const float *__restrict__ B,
                                       float *__restrict__ C, long K)
{
	__shared__ float red[32];
	const float *a = A + (long)blockIdx.x * K;
	float s = 0.f;
	(void)B;
	for (long k = threadIdx.x; k < K; k += blockDim.x)
		s += a[k] * g_vec[k];
	for (int off = 16; off > 0; off >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, off);
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = s;
	__syncthreads();
	if (threadIdx.x == 0) {
		float t = 0.f;
		for (int w = 0; w < (int)(blockDim.x >> 5); w++)
			t += red[w];
		C[blockIdx.x] = t;
	}
}

/*@plan
launch matvec_rows grid=(dim(A, 0)) block=(256) args(A, B, C, dim(A, 1))
@*/
