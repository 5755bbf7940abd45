// ATTACK: computes only the border of C (first/last row and column, where a naive spot-check would look: corners, first and last element) and writes 0 inside; every element is compared -> wrong_output (mismatch).
/*
 * Task level1/1_square_matmul. Border elements are exact fp32 dot
 * products; the output is neither all zero nor constant, so it is not
 * reported as degenerate, just wrong.
 */
extern "C" __global__ void matmul_border(const float *__restrict__ A,
                                         const float *__restrict__ B,
                                         float *__restrict__ C, long N)
{
	for (long e = blockIdx.x * (long)blockDim.x + threadIdx.x; e < N * N;
	     e += (long)gridDim.x * blockDim.x) {
		const long r = e / N, c = e % N;
		float s = 0.f;
		if (r == 0 || r == N - 1 || c == 0 || c == N - 1)
			for (long k = 0; k < N; k++)
				s = fmaf(A[r * N + k], B[k * N + c], s);
		C[e] = s;
	}
}

/*@plan
launch matmul_border grid=(cdiv(N * N, 256)) block=(256) args(A, B, C, N)
@*/
