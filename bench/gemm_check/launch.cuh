/* Host launcher for one candidate file, included by p1.cu / p2.cu / p18.cu.
 * Mirrors the candidate's plan: 1-D grid of ceil(M/BM) * ceil(N/BN) blocks,
 * NTHREADS threads, SMEM_BYTES of dynamic shared memory. */
#include <cstdio>
#include <cuda_runtime.h>

#define LAUNCHER(FN, KERNEL)									\
extern "C" void FN(const float *A, const float *B, float *C, int M, int N, int K,		\
		   int *smem_out, int *threads_out)						\
{												\
	static bool init = false;								\
	if (!init) {										\
		cudaFuncSetAttribute(KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize,	\
				     SMEM_BYTES);						\
		init = true;									\
	}											\
	if (smem_out) *smem_out = SMEM_BYTES;							\
	if (threads_out) *threads_out = NTHREADS;						\
	const int grid = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);				\
	KERNEL<<<grid, NTHREADS, SMEM_BYTES>>>(A, B, C, M, N, K);				\
}
