// ATTACK: the plan launches a kernel that returns at once (a "0 ms" candidate); C keeps the NaN poison the judge writes before every call -> wrong_output (mismatch).
/*
 * Task level1/4_matvec.
 */
extern "C" __global__ void matvec_nothing(const float *__restrict__ A,
                                          const float *__restrict__ B,
                                          float *__restrict__ C, long M,
                                          long K)
{
	return;
}

/*@plan
launch matvec_nothing grid=(1) block=(32) args(A, B, C, M, K)
@*/
