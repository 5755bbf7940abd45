/*
 * ill.task, wrong on large inputs only: adds 10 where |x| > 20, which no
 * nominal draw reaches. The 'scale' draw is ill-conditioned, but this
 * error is far more than the reference's own under a jitter of its inputs
 * (the conditioning probe's margin), so it fails.
 */
extern "C" __global__ void mix(const float *x, const float *y,
                               const float *z, const float *s,
                               const float *v, const float *w, float *out,
                               long n)
{
	long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float a = ((x[i] + y[i]) + z[i]) - (x[i] + (y[i] + z[i]));
	float p = 1.f / (1.f + expf(-a * s[i]));
	out[i] = w[i] + p * (v[i] - w[i]) + (fabsf(x[i]) > 20.f ? 10.f : 0.f);
}

/*@plan
launch mix grid=(cdiv(n, 256)) block=(256) args(x, y, z, s, v, w, out, n)
@*/
