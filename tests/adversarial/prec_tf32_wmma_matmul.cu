// ATTACK: runs the GEMM on tensor cores in TF32 (wmma m16n16k8, one product per pair, no 3xTF32 correction) for ~8x the fp32 rate; TF32's 10-bit mantissa gives errors ~4e-4*sqrt(K) (~3e-3 at K=47, ~0.025 at K=4096) against atol 2e-3 + rtol 1e-4 -> wrong_output (mismatch).
/*
 * Task level1/2_matmul, C[M, N] = A[M, K] @ B[K, N]. One warp per 16x16
 * tile of C; tiles of A and B are staged in shared memory with zero
 * padding (tiny sizes are not multiples of 16), rounded to TF32.
 */
#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void matmul_tf32(const float *__restrict__ A,
                                       const float *__restrict__ B,
                                       float *__restrict__ C, long M, long K,
                                       long N)
{
	__shared__ __align__(32) float As[16 * 8];
	__shared__ __align__(32) float Bs[8 * 16];
	__shared__ __align__(32) float Cs[16 * 16];
	const long m0 = (long)blockIdx.y * 16, n0 = (long)blockIdx.x * 16;
	const int lane = threadIdx.x;
	wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
	wmma::fill_fragment(acc, 0.f);
	for (long k0 = 0; k0 < K; k0 += 8) {
		for (int e = lane; e < 128; e += 32) {
			long r = m0 + e / 8, k = k0 + e % 8;
			As[e] = r < M && k < K ? A[r * K + k] : 0.f;
			long kk = k0 + e / 16, c = n0 + e % 16;
			Bs[e] = kk < K && c < N ? B[kk * N + c] : 0.f;
		}
		__syncwarp();
		wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32,
		               wmma::row_major> fa;
		wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32,
		               wmma::row_major> fb;
		wmma::load_matrix_sync(fa, As, 8);
		wmma::load_matrix_sync(fb, Bs, 16);
		for (int i = 0; i < fa.num_elements; i++)
			fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
		for (int i = 0; i < fb.num_elements; i++)
			fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
		wmma::mma_sync(acc, fa, fb, acc);
		__syncwarp();
	}
	wmma::store_matrix_sync(Cs, acc, 16, wmma::mem_row_major);
	__syncwarp();
	for (int e = lane; e < 256; e += 32) {
		long r = m0 + e / 16, c = n0 + e % 16;
		if (r < M && c < N)
			C[r * N + c] = Cs[e];
	}
}

/*@plan
launch matmul_tf32 grid=(cdiv(N, 16), cdiv(M, 16)) block=(32) args(A, B, C, M, K, N)
@*/
