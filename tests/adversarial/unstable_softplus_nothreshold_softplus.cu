// ATTACK: softplus as log1p(exp(x)) with no threshold (PyTorch returns x where x > 20), one branch fewer; right for normal(0, 1) inputs, but exp overflows to inf past x = 88.7, which every stress draw reaches (x 64, x + 10^4, spikes x 1024), and the output is inf where the reference is x -> wrong_output (unstable).
/*
 * Task level1/29_softplus. A grid-stride loop, one element per thread per
 * step (any size; no vector loads, so no tail to handle).
 *
 * Nominal draws: |x| <= ~6.3 (kb1's 1.6e9 elements), y in [~2e-3, ~6.3]:
 * log1pf(expf(x)) is within a few ulp (the task's own tolerance note),
 * inside atol = 1e-7, rtol = 1e-5. Below the threshold it is what PyTorch
 * computes; above it (never reached here) PyTorch's y = x differs from
 * log1p(exp(x)) by < 2e-9 until exp overflows.
 *
 * Stress draws: scale (x 64): on tiny (3003 elements) some x > 1.39, i.e.
 * 64 x > 88.7, where expf = inf and log1pf(inf) = inf against a reference
 * of ~89..250; offset (x + 10^4): every output is inf; spikes (x 1024): a
 * spike on x > 0.087 overflows. Inf never passes against a finite
 * reference.
 */
extern "C" __global__ void softplus_nothreshold(const float *__restrict__ x,
                                                float *__restrict__ y, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		y[i] = log1pf(expf(x[i])); /* no x > 20 branch: the shortcut */
}

/*@plan
launch softplus_nothreshold grid=(min(cdiv(numel(x), 256), sm_count * 32)) \
    block=(256) args(x, y, numel(x))
@*/
