// WRONG: pools before relu (relu(avg) is not avg(relu): a window with mixed signs differs) -> verdict wrong_output (mismatch).
/*
 * Level 3 problem 13 (DenseNet121TransitionLayer), wrong on purpose.
 *
 * The fast candidate's plan (pool moved before the 1x1 convolution, which
 * is exact because both are linear), but with relu moved after the pool
 * too, as if it were linear: relu(average of 4) instead of the average of
 * 4 relus. After batch norm about half the values are negative, so most
 * windows mix signs and differ by ~0.3 of the normalised scale, against
 * atol/rtol 1e-2: the judge must report wrong_output (mismatch).
 */

extern "C" __global__ void avgpool2_relu(const float *__restrict__ x, float *__restrict__ y,
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
		float m = (((r[0] + r[1]) + r[W]) + r[W + 1]) / 4.f;
		y[i] = m > 0.f ? m : 0.f;	/* BUG: relu after the average */
	}
}

/*@plan
buffer t1 f32 [batch_size, num_input_features, height, width]
buffer p f32 [batch_size, num_input_features, oh1, ow1]
call batchnorm(x, bn1_w, bn1_b) -> t1 eps=eps
launch avgpool2_relu grid=(sm_count * 16) block=(256) args(t1, p, batch_size * num_input_features, height, width, oh1, ow1)
call conv(p, l1_w) -> y
@*/
