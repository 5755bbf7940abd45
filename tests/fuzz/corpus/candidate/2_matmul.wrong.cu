// WRONG: a type error (a float is assigned to a float4 without conversion) -> verdict compile_error.
/*
 * Level 1 problem 2 (matmul), wrong on purpose.
 *
 * A naive one-thread-per-output GEMM that meant to read A four floats at a
 * time but indexes the float pointer directly: `float4 a = A[...]` has no
 * conversion from float, so NVRTC rejects the file. The judge must report
 * compile_error with the compiler's message.
 */

extern "C" __global__ void matmul_naive(const float *__restrict__ A,
                                        const float *__restrict__ B,
                                        float *__restrict__ C, long M, long K,
                                        long N)
{
	long row = (long)blockIdx.y * blockDim.y + threadIdx.y;
	long col = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= M || col >= N)
		return;
	float acc = 0.f;
	for (long k = 0; k + 4 <= K; k += 4) {
		float4 a = A[row * K + k];
		acc += a.x * B[(k + 0) * N + col] + a.y * B[(k + 1) * N + col] +
		       a.z * B[(k + 2) * N + col] + a.w * B[(k + 3) * N + col];
	}
	C[row * N + col] = acc;
}

/*@plan
launch matmul_naive grid=(cdiv(dim(B, 1), 16), cdiv(dim(A, 0), 16)) block=(16, 16) \
    args(A, B, C, dim(A, 0), dim(A, 1), dim(B, 1))
@*/
