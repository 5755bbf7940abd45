/*
 * Level 2's 76 (y = relu(x w^T + bias)) computed in float64 and rounded
 * once: not a fast candidate, a check of the task's tolerance. If the
 * judge rejects this against its fp32 reference (cuBLASLt), the
 * reference's own rounding is past the task's atol, and a correct fp32
 * GEMM in another order can fail too (bench/exact/README.md).
 */

extern "C" __global__ void __launch_bounds__(256)
k76_fp64(const float *__restrict__ x, const float *__restrict__ w,
         const float *__restrict__ bias, float *__restrict__ y, long M, long N,
         long K)
{
	double acc;
	long m, n;
	if (gemm64_out(x, w, M, N, K, &acc, &m, &n)) {
		const double v = acc + (double)bias[n];
		y[m * N + n] = (float)(v > 0 ? v : 0);
	}
}
/*@plan
launch k76_fp64 grid=(cdiv(out_features, 16), cdiv(batch_size, 16)) block=(16, 16) args(x, w, bias, y, batch_size, out_features, in_features)
@*/
