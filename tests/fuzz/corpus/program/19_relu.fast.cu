/*
 * Level 1 problem 19 (ReLU), fast candidate.
 *
 * Pure streaming: x is read once and y written once (12.9 GB at kb1), so
 * the kernel can at best reach the ~4.2 TB/s copy roofline, ~3.0 ms. Measured
 * on an H200 (harness, L2 flushed): one 16-byte load and store per thread in
 * a plain, non-persistent grid of 256-thread blocks ran at 3.02 ms, PyTorch's
 * relu at 3.04 ms; persistent grid-stride variants with 4-8 float4s per
 * thread were slower (3.1-3.4 ms: each block's addresses are spread over the
 * whole tensor), and __ldcs/__stcs streaming hints cost another ~5%. So this
 * is the simplest shape that keeps every DRAM page busy: consecutive blocks
 * cover consecutive 4 KiB.
 * Expected: ~1.0x against an eager reference that is already at the
 * roofline; more if the reference is not.
 *
 * Tail: cudaMalloc'd buffers are 256-byte aligned, so the n / 4 float4s are
 * aligned; the thread right after them does the last n % 4 elements.
 * 64-bit indices (n = 1.6e9 at kb1).
 */

static __device__ __forceinline__ float4 relu4(float4 v)
{
	v.x = fmaxf(v.x, 0.f);
	v.y = fmaxf(v.y, 0.f);
	v.z = fmaxf(v.z, 0.f);
	v.w = fmaxf(v.w, 0.f);
	return v;
}

extern "C" __global__ void relu_stream(const float *__restrict__ x,
                                       float *__restrict__ y, long n)
{
	const long n4 = n / 4;
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n4) {
		reinterpret_cast<float4 *>(y)[i] =
			relu4(reinterpret_cast<const float4 *>(x)[i]);
	} else if (i == n4) {
		/* The scalar tail: at most 3 elements, one thread. */
		for (long t = 4 * n4; t < n; t++)
			y[t] = fmaxf(x[t], 0.f);
	}
}

/*@plan
# One float4 per thread; cdiv(n, 4) threads cover the tail's thread too.
launch relu_stream grid=(cdiv(cdiv(numel(x), 4), 256)) block=(256) args(x, y, numel(x))
@*/
