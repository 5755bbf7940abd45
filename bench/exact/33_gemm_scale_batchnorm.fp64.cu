/*
 * Level 2's 33 (y = batchnorm((x w^T + b) * scale), the batch norm in training mode over the batch) computed in float64 and rounded once: not a
 * fast candidate, a check of the task's tolerance (bench/exact/README.md).
 */
/* t[m][n] = sum over k of x[m][k] w[n][k] (+ b[n]), in float64: x [M, K],
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


extern "C" __global__ void __launch_bounds__(256)
k33_gemm64(const float *__restrict__ x, const float *__restrict__ w,
           const float *__restrict__ b, double *__restrict__ t, long M, long N,
           long K)
{
	double acc;
	gemm64_tile(x, w, M, N, K, &acc);
	const long m = (long)blockIdx.y * G64_T + threadIdx.y;
	const long n = (long)blockIdx.x * G64_T + threadIdx.x;
	if (m < M && n < N)
		t[m * N + n] = acc + (double)b[n];
}

/* A thread per column: the scaled column's mean and variance over the
 * batch in two passes, then the normalisation. */
extern "C" __global__ void __launch_bounds__(256)
k33_bn64(const double *__restrict__ t, const float *__restrict__ scale,
         const float *__restrict__ bn_w, const float *__restrict__ bn_b,
         float *__restrict__ y, long M, long N, double eps)
{
	const long n = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (n >= N)
		return;
	const double sc = scale[n];
	double s = 0, q = 0;
	for (long m = 0; m < M; m++)
		s += t[m * N + n] * sc;
	const double mean = s / (double)M;
	for (long m = 0; m < M; m++) {
		const double d = t[m * N + n] * sc - mean;
		q += d * d;
	}
	const double inv = 1.0 / sqrt(q / (double)M + eps);
	for (long m = 0; m < M; m++)
		y[m * N + n] = (float)((t[m * N + n] * sc - mean) * inv *
		                       (double)bn_w[n] + (double)bn_b[n]);
}
/*@plan
buffer t f64 [batch_size, out_features]
launch k33_gemm64 grid=(cdiv(out_features, 16), cdiv(batch_size, 16)) block=(16, 16) args(x, w, b, t, batch_size, out_features, in_features)
launch k33_bn64 grid=(cdiv(out_features, 256)) block=(256) args(t, scale, bn_w, bn_b, y, batch_size, out_features, eps)
@*/
