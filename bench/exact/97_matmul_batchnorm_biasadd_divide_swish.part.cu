/*
 * Level 2's 97 (y = swish((batchnorm(x w^T + b) + bias) / 1.0), the batch
 * norm in training mode over the batch) computed in float64 and rounded
 * once: not a fast candidate, a check of the task's tolerance, the
 * offset stress draw's above all (bench/exact/README.md).
 */

/* A thread per column: the batch's mean and variance in two passes, then
 * the chain, all in float64. */
extern "C" __global__ void __launch_bounds__(256)
k97_chain64(const double *__restrict__ t, const float *__restrict__ bn_w,
            const float *__restrict__ bn_b, const float *__restrict__ bias,
            float *__restrict__ y, long M, long N, double eps)
{
	const long n = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (n >= N)
		return;
	double s = 0, q = 0;
	for (long m = 0; m < M; m++)
		s += t[m * N + n];
	const double mean = s / (double)M;
	for (long m = 0; m < M; m++) {
		const double d = t[m * N + n] - mean;
		q += d * d;
	}
	const double inv = 1.0 / sqrt(q / (double)M + eps);
	for (long m = 0; m < M; m++) {
		const double u = ((t[m * N + n] - mean) * inv * (double)bn_w[n] +
		                  (double)bn_b[n] + (double)bias[0]) / 1.0;
		y[m * N + n] = (float)(u / (1.0 + exp(-u)));
	}
}
/*@plan
buffer t f64 [batch_size, out_features]
launch gemm64_bias grid=(cdiv(out_features, 16), cdiv(batch_size, 16)) block=(16, 16) args(x, w, b, t, batch_size, out_features, in_features)
launch k97_chain64 grid=(cdiv(out_features, 256)) block=(256) args(t, bn_w, bn_b, bias, y, batch_size, out_features, eps)
@*/
