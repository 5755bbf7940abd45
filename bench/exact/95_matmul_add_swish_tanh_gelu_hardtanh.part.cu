/*
 * Level 2's 95 (y = hardtanh(gelu(tanh(swish(x w^T + b + add_value))), -1,
 * 1)) computed in float64 and rounded once: not a fast candidate, a check
 * of the task's tolerance (bench/exact/README.md).
 */

extern "C" __global__ void __launch_bounds__(256)
k95_fp64(const float *__restrict__ x, const float *__restrict__ w,
         const float *__restrict__ b,
         const float *__restrict__ add_value, float *__restrict__ y,
         long M, long N, long K)
{
	double acc;
	long m, n;
	if (gemm64_out(x, w, M, N, K, &acc, &m, &n)) {
		double v = acc + (double)b[n] + (double)add_value[n];
		v = tanh(v / (1.0 + exp(-v)));
		v = gelu64(v);
		y[m * N + n] = (float)(v < -1 ? -1 : v > 1 ? 1 : v);
	}
}
/*@plan
launch k95_fp64 grid=(cdiv(out_features, 16), cdiv(batch_size, 16)) block=(16, 16) args(x, w, b, add_value, y, batch_size, out_features, in_features)
@*/
