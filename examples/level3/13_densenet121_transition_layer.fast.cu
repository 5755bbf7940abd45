/*
 * Level 3 problem 13 (DenseNet121TransitionLayer), fast candidate:
 *     y = avg_pool2d(conv1x1(relu(batchnorm(x))), 2, 2)      (training-mode BN)
 * x [N, Cin, H, W], w [Cout, Cin, 1, 1], y [N, Cout, H/2, W/2]; tf32 tier.
 *
 * The reference runs PyTorch's four ops in order: batch norm (statistics
 * and normalisation), relu in place, the 1x1 convolution over the full
 * resolution, then the 2x2 average pool: at kb1 (128 x 32 x 256 x 256,
 * Cout 64) it moves ~10.5 GiB (BN 3, relu 2, conv 1 + 2, pool 2 + 0.5).
 *
 * Here the pool comes before the convolution. A 1x1 convolution without
 * bias is the same linear map at every pixel and a 2x2 average is a linear
 * combination of pixels, so the two commute exactly (up to rounding):
 *     avg_pool(conv1x1(z)) = conv1x1(avg_pool(z)).
 * relu must stay before the pool (it is not linear), so one kernel reads
 * the normalised tensor once, applies relu to each of a window's 4 values
 * and writes their average: 1 GiB read, 0.25 GiB written. The convolution
 * then runs on a quarter of the pixels and writes y directly (0.25 GiB in,
 * 0.5 GiB out). About 4.3 GiB in all against ~10.5: measured 1.43x at
 * kb1 on the H200 (graph timing, 2026-12-02; batch norm's statistics and
 * normalisation, ~3 GiB through cuDNN, now dominate).
 *
 * Numerics: the average is summed in PyTorch's order, ((a + b) + c) + d,
 * then divided by 4 (exact, a power of two); relu keeps NaN as torch.relu
 * does. The convolution is cuDNN's TF32 either way, now over averaged
 * inputs: the difference from the reference's order is TF32 rounding of
 * the same size (~1e-3 relative), inside the task's atol/rtol 1e-2.
 * Floor-mode windows: an odd last row or column (tiny: width 13) is
 * never read, as avg_pool2d(kernel 2, stride 2) drops it.
 */

extern "C" __global__ void relu_avgpool2(const float *__restrict__ x, float *__restrict__ y,
					 long planes, long H, long W, long OH, long OW)
{
	const long n = planes * OH * OW;
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x) {
		const long ow = i % OW;
		const long t = i / OW;
		const long oh = t % OH;
		const long p = t / OH;
		const float *r = x + (p * H + 2 * oh) * W + 2 * ow;
		float v[4] = { r[0], r[1], r[W], r[W + 1] };
		for (int k = 0; k < 4; k++)
			v[k] = v[k] != v[k] ? v[k] : (v[k] > 0.f ? v[k] : 0.f);
		y[i] = (((v[0] + v[1]) + v[2]) + v[3]) / 4.f;
	}
}

/*@plan
buffer t1 f32 [batch_size, num_input_features, height, width]
buffer p f32 [batch_size, num_input_features, oh1, ow1]
call batchnorm(x, bn1_w, bn1_b) -> t1 eps=eps
launch relu_avgpool2 grid=(sm_count * 16) block=(256) args(t1, p, batch_size * num_input_features, height, width, oh1, ow1)
call conv(p, l1_w) -> y
@*/
