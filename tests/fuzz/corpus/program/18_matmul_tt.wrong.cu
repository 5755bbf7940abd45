// WRONG: the plan asks for 2048 threads per block (the device limit is 1024) -> verdict invalid_plan.
/*
 * Level 1 problem 18 (C = A^T @ B^T), wrong on purpose.
 *
 * The kernel itself is a correct naive GEMM on transposed operands
 * (A is [K, M], B is [N, K]), but the plan launches it with block=(2048),
 * which no CUDA device allows. The plan check must reject it before
 * anything runs: invalid_plan, pointing at the launch statement.
 */

extern "C" __global__ void matmul_tt_naive(const float *__restrict__ A,
                                           const float *__restrict__ B,
                                           float *__restrict__ C, long M,
                                           long K, long N)
{
	long o = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (o >= M * N)
		return;
	long i = o / N, j = o % N;
	float acc = 0.f;
	for (long k = 0; k < K; k++)
		acc += A[k * M + i] * B[j * K + k];
	C[o] = acc;
}

/*@plan
launch matmul_tt_naive grid=(cdiv(dim(A, 1) * dim(B, 0), 2048)) block=(2048) \
    args(A, B, C, dim(A, 1), dim(A, 0), dim(B, 0))
@*/
