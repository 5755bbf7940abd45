/*
 * ill.task, unstable: the two-way softmax as exp(a) / (exp(a) + exp(b))
 * without the max shift. Right on nominal draws; on the 'scale' draw the
 * logits reach ~1e4, exp overflows and the weight is inf / inf = NaN. The
 * draw is ill-conditioned, but NaN where the reference is finite fails it.
 */
extern "C" __global__ void mix(const float *x, const float *y,
                               const float *z, const float *s,
                               const float *v, const float *w, float *out,
                               long n)
{
	long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float a = ((x[i] + y[i]) + z[i]) * s[i];
	float b = (x[i] + (y[i] + z[i])) * s[i];
	float p = expf(a) / (expf(a) + expf(b));
	out[i] = w[i] + p * (v[i] - w[i]);
}

/*@plan
launch mix grid=(cdiv(n, 256)) block=(256) args(x, y, z, s, v, w, out, n)
@*/
