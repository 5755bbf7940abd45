/*
 * Level 1 problem 26 (GELU, exact erf form), fast candidate.
 *
 * y = 0.5 x (1 + erf(x / sqrt 2)) with the full-precision erff (a few ulp),
 * not the tanh approximation (which is off by up to 4.7e-4 and fails the
 * task's tolerance). erff costs ~25 instructions per element, ~1.5 ms of
 * issue for 1.6e9 elements, under the ~3.0 ms that the 12.9 GB of traffic
 * take at the copy roofline, so the kernel is bandwidth bound when enough
 * blocks are in flight to cover the math.
 *
 * Shape as the ReLU candidate (PyTorch's vectorized elementwise kernel,
 * which the eager reference also uses): 128-thread blocks, one float4 per
 * thread, one block per 512 elements, the last partial block scalar.
 * Measured on an H200 (harness, L2 flushed,
 * bench/results/2026-11-30-h200-issue2): 1.0014-1.0019 at kb1 over three
 * evaluations, each interval above 1 by 0.1%, and 0.9997-1.0003 in three
 * more; at kb0 (one ~4.5 us call) 0.957-1.096 over 15 evaluations. Every other shape measured was slower at
 * kb1 (2 float4s per thread 0.995, 256 threads x 2 0.963, L2 prefetch hints
 * 0.970, bulk copies through shared memory 0.895) and none was reliably
 * faster at kb0 (512 x 2 0.88-1.07, 1024 x 1 0.98-1.06), where the
 * reference judged against itself reads 0.96-1.05. Expected: ~1.0x
 * against a reference already at the roofline (PyTorch's gelu measured
 * 3.04 ms at kb1).
 */

static __device__ __forceinline__ float gelu1(float v)
{
	return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
}

extern "C" __global__ void gelu_stream(const float *__restrict__ x,
                                       float *__restrict__ y, long n)
{
	const long base = (long)blockIdx.x * blockDim.x * 4;
	const long rem = n - base;
	if (rem >= (long)blockDim.x * 4) {
		const long i = base + threadIdx.x * 4;
		float4 v = *reinterpret_cast<const float4 *>(x + i);
		v.x = gelu1(v.x);
		v.y = gelu1(v.y);
		v.z = gelu1(v.z);
		v.w = gelu1(v.w);
		*reinterpret_cast<float4 *>(y + i) = v;
		return;
	}
	/* the last, partial block: strided scalars */
	for (long t = threadIdx.x; t < rem; t += blockDim.x)
		y[base + t] = gelu1(x[base + t]);
}

/*@plan
# 128 threads, 4 elements each: one block per 512 elements.
launch gelu_stream grid=(cdiv(numel(x), 512)) block=(128) args(x, y, numel(x))
@*/
