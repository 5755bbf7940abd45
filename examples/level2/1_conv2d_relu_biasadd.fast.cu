/*
 * Level 2 problem 1 (Conv2D_ReLU_BiasAdd), fast candidate:
 *     y = relu(conv2d(x, w) + b[c]) + bias[c]
 * x [N, Cin, H, W], w [Cout, Cin, 3, 3], b [Cout], bias [Cout, 1, 1],
 * y [N, Cout, OH, OW]; TF32 tier (cuDNN's TF32 convolution, as PyTorch).
 *
 * The reference runs the convolution and then three memory-bound passes
 * over y: the conv bias add (cudnnAddTensor), relu and the broadcast add
 * of the extra bias. Here the convolution stays in the library (`conv`,
 * the same cuDNN engine choice, without its bias), and one kernel applies
 * the whole chain in place: each element of y is read and written once.
 *
 * Why it is faster: at kb1 y is 128 x 128 x 126 x 126 floats = 1.04 GB, so
 * each pass moves ~2.1 GB (~0.5 ms at ~4 TB/s); the convolution (240
 * GFLOP TF32) takes ~1.5-2 ms. Two passes saved of ~3.5 ms: estimate
 * ~1.3-1.4x at kb1; at kb0 (8 MB outputs) the same two launches of ~5 us
 * each on a ~30 us call, ~1.3x.
 *
 * Numerics: the same fp32 operations in the same order as the reference
 * (v + b, relu keeping NaN, + bias), so given cuDNN's output the chain is
 * bit-exact.
 *
 * Kernel: one block of 256 threads per 1024-element chunk of one (n, c)
 * plane, so the channel is fixed per block (no per-element division).
 * Planes whose size is a multiple of 4 (kb0: 30 x 30, kb1: 126 x 126) use
 * 16-byte accesses, aligned since every plane then starts at a multiple of
 * 16 bytes; others (tiny: 7 x 9) strided scalars. 64-bit plane offsets
 * (numel(y) = 2.6e8 at kb1; hidden sets are smaller).
 */

#define EW_CHUNK 1024	/* elements per block: the plan's cdiv(..., 1024) */
#define EW_THREADS 256

static __device__ __forceinline__ float chain(float v, float bc, float bb)
{
	v = v + bc;			/* conv bias */
	v = v != v ? v : (v > 0.f ? v : 0.f);	/* relu, NaN kept */
	return v + bb;			/* extra bias, broadcast over (H, W) */
}

extern "C" __global__ void __launch_bounds__(EW_THREADS)
bias_relu_bias(float *__restrict__ y, const float *__restrict__ b,
	       const float *__restrict__ bias, long plane, int C, long chunks)
{
	const long p = blockIdx.x / chunks;		/* plane = n * C + c */
	const long base = (blockIdx.x - p * chunks) * EW_CHUNK;
	const int c = (int)(p % C);
	const float bc = b[c], bb = bias[c];
	float *yp = y + p * plane;

	if ((plane & 3) == 0) {
		const long i = base + threadIdx.x * 4;
		if (i < plane) {
			float4 v = *reinterpret_cast<float4 *>(yp + i);
			v.x = chain(v.x, bc, bb);
			v.y = chain(v.y, bc, bb);
			v.z = chain(v.z, bc, bb);
			v.w = chain(v.w, bc, bb);
			*reinterpret_cast<float4 *>(yp + i) = v;
		}
	} else {
#pragma unroll
		for (int k = 0; k < EW_CHUNK / EW_THREADS; k++) {
			const long i = base + threadIdx.x + k * EW_THREADS;
			if (i < plane)
				yp[i] = chain(yp[i], bc, bb);
		}
	}
}

/*@plan
# conv without bias straight into y (cuDNN, as the reference's conv_bias minus its bias pass),
# then bias + relu + bias in one in-place pass: one block per 1024 elements of each (n, c) plane.
call conv(x, w) -> y
launch bias_relu_bias grid=(dim(y, 0) * dim(y, 1) * cdiv(dim(y, 2) * dim(y, 3), 1024)) block=(256) \
	args(y, b, bias, dim(y, 2) * dim(y, 3), dim(y, 1), cdiv(dim(y, 2) * dim(y, 3), 1024))
@*/
