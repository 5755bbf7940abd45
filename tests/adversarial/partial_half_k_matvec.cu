// ATTACK: reads only the first half of each row of A and doubles the partial dot product ("half the traffic"); the missing half is a sum of ~K/2 random terms (error ~sqrt(K/2), >= 22 on tiny), far outside atol 5e-2 -> wrong_output (mismatch).
/*
 * Task level1/4_matvec. One warp per output row.
 */
extern "C" __global__ void matvec_half(const float *__restrict__ A,
                                       const float *__restrict__ B,
                                       float *__restrict__ C, long M, long K)
{
	const long row = blockIdx.x * (long)(blockDim.x / 32) + threadIdx.x / 32;
	const int lane = threadIdx.x & 31;
	if (row >= M)
		return;
	float s = 0.f;
	for (long k = lane; k < K / 2; k += 32)
		s = fmaf(A[row * K + k], B[k], s);
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	if (lane == 0)
		C[row] = 2.f * s;
}

/*@plan
launch matvec_half grid=(cdiv(M, 8)) block=(256) args(A, B, C, M, K)
@*/
