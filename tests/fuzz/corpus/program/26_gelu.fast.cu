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
 * Shape as the ReLU candidate, chosen by measurement on an H200: one float4
 * per thread in a plain grid of 256-thread blocks (consecutive blocks cover
 * consecutive 4 KiB) beat persistent grid-stride loops with more float4s per
 * thread and streaming cache hints. Expected: ~1.0x against a reference
 * already at the roofline (PyTorch's gelu measured 3.04 ms at kb1).
 * Tail: the thread after the n / 4 float4s does the last n % 4 elements.
 */

static __device__ __forceinline__ float gelu1(float v)
{
	return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
}

static __device__ __forceinline__ float4 gelu4(float4 v)
{
	v.x = gelu1(v.x);
	v.y = gelu1(v.y);
	v.z = gelu1(v.z);
	v.w = gelu1(v.w);
	return v;
}

extern "C" __global__ void gelu_stream(const float *__restrict__ x,
                                       float *__restrict__ y, long n)
{
	const long n4 = n / 4;
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n4) {
		reinterpret_cast<float4 *>(y)[i] =
			gelu4(reinterpret_cast<const float4 *>(x)[i]);
	} else if (i == n4) {
		/* The scalar tail: at most 3 elements, one thread. */
		for (long t = 4 * n4; t < n; t++)
			y[t] = gelu1(x[t]);
	}
}

/*@plan
# One float4 per thread; cdiv(n, 4) threads cover the tail's thread too.
launch gelu_stream grid=(cdiv(cdiv(numel(x), 4), 256)) block=(256) args(x, y, numel(x))
@*/
