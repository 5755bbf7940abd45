// WRONG: broadcasts the extra bias [Cout, 1, 1] over the wrong dim (channel taken as the flat index mod Cout, i.e. as if y were channels-last) -> verdict wrong_output (mismatch).
/*
 * Level 2 problem 1 (Conv2D_ReLU_BiasAdd), wrong on purpose.
 *
 * The fast candidate's plan (cuDNN conv without bias, then one fused
 * in-place pass), but the fused kernel is a flat grid-stride loop that
 * derives the channel as i % Cout, the channels-last (NHWC) rule, where y
 * is NCHW and the channel is (i / (OH * OW)) % Cout. Both b and bias are
 * read at that wrong channel. With bias ~ normal(0, 1) and b ~ +-0.04,
 * most elements get another channel's bias, off by ~1 against atol 1e-2 +
 * rtol 1e-2, on every set (tiny: Cout = 5, planes of 63). The judge must
 * report wrong_output (mismatch).
 */

extern "C" __global__ void bias_relu_bias_flat(float *__restrict__ y, const float *__restrict__ b,
					       const float *__restrict__ bias, long n, int C)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x) {
		const int c = (int)(i % C);	/* BUG: NHWC channel rule on an NCHW tensor */
		float v = y[i] + b[c];
		v = v != v ? v : (v > 0.f ? v : 0.f);
		y[i] = v + bias[c];
	}
}

/*@plan
call conv(x, w) -> y
launch bias_relu_bias_flat grid=(sm_count * 16) block=(256) args(y, b, bias, numel(y), dim(y, 1))
@*/
