// WRONG: puts every output row of every (n, c) plane on gridDim.y (batch * out_channels * OH = 131072 at kb0, 2097152 at kb1), past the device's 65535 -> verdict invalid_plan (plan).
/*
 * Level 2 problem 2 (ConvTranspose2d_BiasAdd_Clamp_Scaling_Clamp_Divide),
 * wrong on purpose.
 *
 * Arithmetic right (cuDNN transposed conv without bias, then the fused
 * bias + clamp + scale chain in place), but the fused kernel is laid out
 * as one block row per output row: grid = (cdiv(OW, 128), N * Cout * OH).
 * That works on the tiny set (2 * 5 * 10 = 100 rows) and nowhere else:
 * gridDim.y may be at most 65535, and kb0 needs 128 * 16 * 64 = 131072,
 * kb1 128 * 64 * 256 = 2097152. The judge validates the plan on every set
 * before the GPU and must report invalid_plan (reason plan) naming the
 * launch. (The fix is the fast candidate's flat grid on x, up to 2^31 - 1.)
 */

static __device__ __forceinline__ float clamp01(float v)
{
	return v < 0.f ? 0.f : (v > 1.f ? 1.f : v);
}

extern "C" __global__ void bias_clamp_rows(float *__restrict__ y, const float *__restrict__ b,
					   const float *__restrict__ bias, int OH, int OW, int C)
{
	const long row = blockIdx.y;			/* (n * C + c) * OH + oh */
	const int c = (int)((row / OH) % C);
	const int ow = blockIdx.x * blockDim.x + threadIdx.x;
	if (ow >= OW)
		return;
	float *p = y + row * OW + ow;
	float v = *p + b[c];
	v = v + bias[c];
	v = clamp01(v);
	v = v * 2.f;
	v = clamp01(v);
	*p = v * 0.5f;
}

/*@plan
call conv_transpose(x, w) -> y stride=stride padding=padding output_padding=output_padding
launch bias_clamp_rows grid=(cdiv(dim(y, 3), 128), dim(y, 0) * dim(y, 1) * dim(y, 2)) block=(128) \
	args(y, b, bias, dim(y, 2), dim(y, 3), dim(y, 1))
@*/
