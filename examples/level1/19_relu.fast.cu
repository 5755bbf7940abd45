/*
 * Level 1 problem 19 (ReLU), fast candidate.
 *
 * Pure streaming: x is read once and y written once (12.9 GB at kb1), so
 * the kernel can at best reach the ~4.2 TB/s copy roofline, ~3.0 ms. The
 * shape is PyTorch's vectorized elementwise kernel, which the eager
 * reference also uses: 128-thread blocks, one 16-byte load and store per
 * thread, one block per 512 consecutive elements, the last partial block
 * scalar. Measured on an H200 (harness, L2 flushed,
 * bench/results/2026-11-30-h200-checks): 0.9995 [0.9991, 1.0006] at kb1,
 * and 0.9992-1.002 over eleven evaluations since. The reference runs at 1.02
 * of a device-to-device cudaMemcpy's rate, and nothing measured beats it
 * (bench/results/2026-11-30-h200-issue2): 2 or 4 float4s per thread 0.99
 * and 0.95, 256-1024 threads 0.96-0.997, 64 threads 0.79, L2 prefetch
 * hints 0.96-0.97, Hopper's bulk copies through shared memory
 * (cp.async.bulk, 2-8 stages) 0.90-0.93; persistent grid-stride variants
 * with 4-8 float4s per thread were slower (3.1-3.4 ms), and __ldcs/__stcs
 * streaming hints cost ~5%. At kb0 (1 MB, one ~4.4 us call, of which an
 * empty 512-block kernel takes 2.9 us) the reference judged against itself
 * reads 0.96-1.05 and kernels of its shape 0.98-1.08; no variant was
 * reliably faster (docs/judge.md, tiny calls). Expected: ~1.0x against a
 * reference already at the roofline.
 *
 * max(x, 0) keeps NaN, as torch.relu does. 64-bit offsets (n = 1.6e9 at
 * kb1); cudaMalloc'd buffers are 256-byte aligned, so the float4s of full
 * blocks are aligned.
 */

static __device__ __forceinline__ float relu1(float v)
{
	return v != v ? v : (v > 0.f ? v : 0.f);
}

extern "C" __global__ void relu_stream(const float *__restrict__ x,
                                       float *__restrict__ y, long n)
{
	const long base = (long)blockIdx.x * blockDim.x * 4;
	const long rem = n - base;
	if (rem >= (long)blockDim.x * 4) {
		const long i = base + threadIdx.x * 4;
		float4 v = *reinterpret_cast<const float4 *>(x + i);
		v.x = relu1(v.x);
		v.y = relu1(v.y);
		v.z = relu1(v.z);
		v.w = relu1(v.w);
		*reinterpret_cast<float4 *>(y + i) = v;
		return;
	}
	/* the last, partial block: strided scalars */
	for (long t = threadIdx.x; t < rem; t += blockDim.x)
		y[base + t] = relu1(x[base + t]);
}

/*@plan
# 128 threads, 4 elements each: one block per 512 elements.
launch relu_stream grid=(cdiv(numel(x), 512)) block=(128) args(x, y, numel(x))
@*/
