/* acc = sum over k of x[m][k] w[n][k] for the thread's (m, n), in float64: x [M, K],
 * w [N, K] as a Linear's weight. 16 x 16 outputs a block, k-tiles of 32
 * through shared memory, one output a thread. Slow (tens of ms at level
 * 2's kb1) and exact to float64's rounding: a check of the reference, not
 * a candidate to time. */
#define G64_T 16
#define G64_K 32
static __device__ __forceinline__ void gemm64_tile(const float *__restrict__ x,
                                                   const float *__restrict__ w,
                                                   long M, long N, long K,
                                                   double *acc_out)
{
	__shared__ float xs[G64_T][G64_K + 1], ws[G64_T][G64_K + 1];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const long m0 = (long)blockIdx.y * G64_T, n0 = (long)blockIdx.x * G64_T;
	double acc = 0;
	for (long k0 = 0; k0 < K; k0 += G64_K) {
		for (int i = ty * G64_T + tx; i < G64_T * G64_K; i += G64_T * G64_T) {
			const int r = i / G64_K, c = i % G64_K;
			const long kk = k0 + c;
			xs[r][c] = m0 + r < M && kk < K ? x[(m0 + r) * K + kk] : 0.f;
			ws[r][c] = n0 + r < N && kk < K ? w[(n0 + r) * K + kk] : 0.f;
		}
		__syncthreads();
		for (int c = 0; c < G64_K; c++)
			acc += (double)xs[ty][c] * (double)ws[tx][c];
		__syncthreads();
	}
	*acc_out = acc;
}

/* The thread's output (m, n) of a 16 x 16 launch and its float64 dot
 * product into *acc; whether (m, n) is inside [M, N]. */
static __device__ __forceinline__ bool gemm64_out(const float *__restrict__ x,
                                                  const float *__restrict__ w,
                                                  long M, long N, long K,
                                                  double *acc, long *m,
                                                  long *n)
{
	gemm64_tile(x, w, M, N, K, acc);
	*m = (long)blockIdx.y * G64_T + threadIdx.y;
	*n = (long)blockIdx.x * G64_T + threadIdx.x;
	return *m < M && *n < N;
}

/* t = x w^T + b into a float64 buffer [M, N], for a kernel after it. */
extern "C" __global__ void __launch_bounds__(256)
gemm64_bias(const float *__restrict__ x, const float *__restrict__ w,
            const float *__restrict__ b, double *__restrict__ t, long M,
            long N, long K)
{
	double acc;
	gemm64_tile(x, w, M, N, K, &acc);
	const long m = (long)blockIdx.y * G64_T + threadIdx.y;
	const long n = (long)blockIdx.x * G64_T + threadIdx.x;
	if (m < M && n < N)
		t[m * N + n] = acc + (double)b[n];
}

/* GELU (erf form, torch's default) in float64. */
static __device__ __forceinline__ double gelu64(double v)
{
	return 0.5 * v * (1.0 + erf(v * 0.70710678118654752440));
}
