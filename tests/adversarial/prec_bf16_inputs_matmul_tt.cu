// ATTACK: rounds both operands to bf16 before an fp32-accumulated dot product (what a bf16 tensor-core GEMM does); 8-bit mantissas give errors ~1.6e-3*sqrt(K) (~0.01 at K=47) against atol 2e-3 + rtol 1e-4 -> wrong_output (mismatch).
/*
 * Task level1/18_matmul_tt, C[M, N] = A[K, M]^T @ B[N, K]^T. One thread
 * per element of C.
 */
#include <cuda_bf16.h>

static __device__ __forceinline__ float bf(float v)
{
	return __bfloat162float(__float2bfloat16(v));
}

extern "C" __global__ void matmul_tt_bf16(const float *__restrict__ A,
                                          const float *__restrict__ B,
                                          float *__restrict__ C, long M,
                                          long K, long N)
{
	for (long e = blockIdx.x * (long)blockDim.x + threadIdx.x; e < M * N;
	     e += (long)gridDim.x * blockDim.x) {
		const long m = e / N, c = e % N;
		float s = 0.f;
		for (long k = 0; k < K; k++)
			s = fmaf(bf(A[k * M + m]), bf(B[c * K + k]), s);
		C[e] = s;
	}
}

/*@plan
launch matmul_tt_bf16 grid=(min(cdiv(M * N, 256), sm_count * 64)) block=(256) args(A, B, C, M, K, N)
@*/
