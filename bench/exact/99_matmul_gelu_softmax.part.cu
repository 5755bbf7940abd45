/*
 * Level 2's 99 (y = softmax(gelu(x w^T + b), dim 1)) computed in float64 and rounded once: not a
 * fast candidate, a check of the task's tolerance (bench/exact/README.md).
 */

/* A thread per row: the softmax of the row's GELUs (max first). */
extern "C" __global__ void __launch_bounds__(256)
k99_row64(const double *__restrict__ t, float *__restrict__ y, long M, long N)
{
	const long m = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (m >= M)
		return;
	const double *r = t + m * N;
	double mx = gelu64(r[0]), s = 0;
	for (long n = 1; n < N; n++) {
		const double g = gelu64(r[n]);
		mx = g > mx ? g : mx;
	}
	for (long n = 0; n < N; n++)
		s += exp(gelu64(r[n]) - mx);
	for (long n = 0; n < N; n++)
		y[m * N + n] = (float)(exp(gelu64(r[n]) - mx) / s);
}
/*@plan
buffer t f64 [batch_size, out_features]
launch gemm64_bias grid=(cdiv(out_features, 16), cdiv(batch_size, 16)) block=(16, 16) args(x, w, b, t, batch_size, out_features, in_features)
launch k99_row64 grid=(cdiv(batch_size, 256)) block=(256) args(t, y, batch_size, out_features)
@*/
