/*
 * Level 1 problem 19 (ReLU), fast candidate.
 *
 * Pure streaming: x is read once and y written once. Two shapes, chosen in
 * the plan by the tensor's size:
 * - 4 Mi elements and more (kb1: 12.9 GB moved, ~3.0 ms): the eager
 *   kernel's shape, 128-thread blocks and one 16-byte load and store per
 *   thread. The reference already runs there at the copy roofline
 *   (1.02 of a device-to-device cudaMemcpy's rate), and so does this
 *   shape: 1.0005-1.0014 against it. Everything else measured was slower
 *   (bench/results/2026-11-30-h200-issue2): 2 or 4 float4s per thread
 *   0.99 and 0.95, 256-1024 threads 0.96-0.997, 64 threads 0.79, L2
 *   prefetch hints 0.96-0.97, Hopper's bulk copies (cp.async.bulk through
 *   shared memory) 0.90-0.93.
 * - under 4 Mi elements (kb0: 1 MB, one ~4.4 us call, of which an empty
 *   kernel of 512 blocks already takes 2.9 us): 512-thread blocks, two
 *   float4s per thread, so 64 blocks instead of 512 and fewer block
 *   launches: 1.037-1.055 at kb0 over three evaluations.
 * Expected: ~1.00x at kb1, ~1.04x at kb0.
 *
 * max(x, 0) keeps NaN, as torch.relu does. 64-bit offsets (n = 1.6e9 at
 * kb1); cudaMalloc'd buffers are 256-byte aligned, so the float4s of full
 * blocks are aligned. The last, partial block (the tiny set has 3003
 * elements) is done with scalars.
 */

static __device__ __forceinline__ float relu1(float v)
{
	return v != v ? v : (v > 0.f ? v : 0.f);
}

static __device__ __forceinline__ float4 relu4(float4 v)
{
	v.x = relu1(v.x);
	v.y = relu1(v.y);
	v.z = relu1(v.z);
	v.w = relu1(v.w);
	return v;
}

/* u float4s per thread (1 or 2), blockDim.x * 4 * u elements per block */
extern "C" __global__ void relu_stream(const float *__restrict__ x,
                                       float *__restrict__ y, long n, long u)
{
	const long per_block = (long)blockDim.x * 4 * u;
	const long base = (long)blockIdx.x * per_block;
	const long rem = n - base;
	if (rem >= per_block) {
		const long i = base + threadIdx.x * 4;
		const long step = (long)blockDim.x * 4;
		if (u == 1) {
			float4 v = *reinterpret_cast<const float4 *>(x + i);
			*reinterpret_cast<float4 *>(y + i) = relu4(v);
		} else {
			float4 a = *reinterpret_cast<const float4 *>(x + i);
			float4 b = *reinterpret_cast<const float4 *>(x + i + step);
			*reinterpret_cast<float4 *>(y + i) = relu4(a);
			*reinterpret_cast<float4 *>(y + i + step) = relu4(b);
		}
		return;
	}
	for (long t = threadIdx.x; t < rem; t += blockDim.x)
		y[base + t] = relu1(x[base + t]);
}

/*@plan
# small = min(1, 4194304 / numel(x)): 1 under 4 Mi elements, else 0.
# Large: 128 threads x 1 float4 (512 elements a block); small: 512 x 2
# (4096 elements a block).
launch relu_stream grid=(cdiv(numel(x), 512 + 3584 * min(1, 4194304 / numel(x)))) \
    block=(128 + 384 * min(1, 4194304 / numel(x))) \
    args(x, y, numel(x), 1 + min(1, 4194304 / numel(x)))
@*/
