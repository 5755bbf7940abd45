// WRONG: rounds the element count up to whole float4s and stores the last one in full, writing up to 3 floats past the end of y when numel % 4 != 0 (tiny) -> verdict wrong_output (reason out_of_bounds_write).
/*
 * Level 1 problem 19 (ReLU), wrong on purpose.
 *
 * A vectorised ReLU that covers cdiv(n, 4) float4s instead of n / 4 plus a
 * scalar tail. Every element of y gets the right value, but on the tiny set
 * (3003 elements) the last store also writes y[3003], one float into the
 * judge's guard region after the output. (The matching read of x[3003] is
 * past the input too, but reads are harmless here.) The judge must report
 * wrong_output with the reason out_of_bounds_write.
 */

extern "C" __global__ void relu_rounded_up(const float4 *__restrict__ x,
                                           float4 *__restrict__ y, long n4)
{
	for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n4;
	     i += (long)gridDim.x * blockDim.x) {
		float4 v = x[i];
		v.x = fmaxf(v.x, 0.f);
		v.y = fmaxf(v.y, 0.f);
		v.z = fmaxf(v.z, 0.f);
		v.w = fmaxf(v.w, 0.f);
		y[i] = v;
	}
}

/*@plan
launch relu_rounded_up grid=(sm_count * 8) block=(256) args(x, y, cdiv(numel(x), 4))
@*/
