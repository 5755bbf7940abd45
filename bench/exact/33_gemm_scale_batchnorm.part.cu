/*
 * Level 2's 33 (y = batchnorm((x w^T + b) * scale), the batch norm in training mode over the batch) computed in float64 and rounded once: not a
 * fast candidate, a check of the task's tolerance (bench/exact/README.md).
 */

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
launch gemm64_bias grid=(cdiv(out_features, 16), cdiv(batch_size, 16)) block=(16, 16) args(x, w, b, t, batch_size, out_features, in_features)
launch k33_bn64 grid=(cdiv(out_features, 256)) block=(256) args(t, scale, bn_w, bn_b, y, batch_size, out_features, eps)
@*/
