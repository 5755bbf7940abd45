/*
 * Level 2's 64 (y = gelu(gelu(leaky(leaky(logsumexp(x w^T + b, dim 1))))), leaky slope 0.01) computed in float64 and rounded once: not a
 * fast candidate, a check of the task's tolerance (bench/exact/README.md).
 */

static __device__ double leaky64(double v)
{
	return v > 0 ? v : 0.01 * v;
}

/* A thread per row: logsumexp over the row (max first), then the chain. */
extern "C" __global__ void __launch_bounds__(256)
k64_row64(const double *__restrict__ t, float *__restrict__ y, long M, long N)
{
	const long m = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (m >= M)
		return;
	const double *r = t + m * N;
	double mx = r[0], s = 0;
	for (long n = 1; n < N; n++)
		mx = r[n] > mx ? r[n] : mx;
	for (long n = 0; n < N; n++)
		s += exp(r[n] - mx);
	const double l = mx + log(s);
	y[m] = (float)gelu64(gelu64(leaky64(leaky64(l))));
}
/*@plan
buffer t f64 [batch_size, out_features]
launch gemm64_bias grid=(cdiv(out_features, 16), cdiv(batch_size, 16)) block=(16, 16) args(x, w, b, t, batch_size, out_features, in_features)
launch k64_row64 grid=(cdiv(batch_size, 256)) block=(256) args(t, y, batch_size, out_features)
@*/
