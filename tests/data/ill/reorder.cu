/*
 * ill.task, correct: both sums in one order, so the logit is exactly 0
 * and the weight 1/2 (the reference's logit is a rounding difference).
 * Right on every nominal draw; on the 'scale' draw it misses the
 * per-element tolerance where the reference's rounding differs, by as
 * much as the reference itself moves when its inputs are jittered: ok.
 */
extern "C" __global__ void mix(const float *x, const float *y,
                               const float *z, const float *s,
                               const float *v, const float *w, float *out,
                               long n)
{
	long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float t = (x[i] + y[i]) + z[i];
	float u = (t - t) * s[i];
	float p = 1.f / (1.f + expf(-u));
	out[i] = w[i] + p * (v[i] - w[i]);
}

/*@plan
launch mix grid=(cdiv(n, 256)) block=(256) args(x, y, z, s, v, w, out, n)
@*/
