// WRONG: the tiled kernel assumes N is a multiple of 16 (grid = N / 16, K loop over N / 16 tiles), so the tiny set (N = 70) leaves the last rows/columns unwritten and drops the K tail -> verdict wrong_output.
/*
 * Level 1 problem 1 (square matmul), wrong on purpose.
 *
 * A plain 16 x 16 shared-memory tiled GEMM. It is correct when N is a
 * multiple of 16 (kb0, kb1), but the plan rounds the grid down and the
 * kernel has no bounds checks, so on the tiny set (N = 70) outputs 64..69
 * keep the judge's poison and the others miss k = 64..69. The judge must
 * report wrong_output (on the tiny set).
 */

#define TILE 16

extern "C" __global__ void matmul_tiled16(const float *__restrict__ A,
                                          const float *__restrict__ B,
                                          float *__restrict__ C, long N)
{
	__shared__ float As[TILE][TILE], Bs[TILE][TILE];
	const long row = (long)blockIdx.y * TILE + threadIdx.y;
	const long col = (long)blockIdx.x * TILE + threadIdx.x;
	float acc = 0.f;
	for (long k0 = 0; k0 < N / TILE * TILE; k0 += TILE) {
		As[threadIdx.y][threadIdx.x] = A[row * N + k0 + threadIdx.x];
		Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * N + col];
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
		__syncthreads();
	}
	C[row * N + col] = acc;
}

/*@plan
launch matmul_tiled16 grid=(dim(A, 0) / 16, dim(A, 0) / 16) block=(16, 16) \
    args(A, B, C, dim(A, 0))
@*/
