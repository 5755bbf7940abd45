// ATTACK: log-softmax as x - log(sum(exp(x))) without the max shift (no max pass); right for normal(0, 1) rows, but sum(exp(x)) overflows to inf once some x > 88.7, which every stress draw reaches (x 64, x + 10^4, spikes x 1024), and every output of the row becomes -inf -> wrong_output (unstable).
/*
 * Task level1/24_log_softmax. One block of LSM_THREADS threads per row (a
 * grid-stride loop over rows), each thread summing expf over its strided
 * elements of the row (any length), a shared-memory tree over the block,
 * then y = x - logf(S).
 *
 * Nominal draws: |x| <= ~6.3, so S <= ~1e6 at kb1 (393216 terms of mean
 * e^0.5): no overflow. The float sums are within ~1e-6 relative (per-
 * thread errors independent, tree ~3e-7), so logf(S) within ~1e-6
 * absolute, and y = x - logf(S) rounds to an ulp of |y| (~1e-6 at
 * |y| ~ 13): inside atol = 2e-5.
 *
 * Stress draws: scale (x 64): every tiny row of 1001 holds some x > 1.39,
 * i.e. 64 x > 88.7, so expf = inf, S = inf and the whole row is -inf where
 * the reference is finite; offset (x + 10^4): every expf is inf; spikes
 * (x 1024): a spike on x > 0.087 overflows. -inf passes only against
 * -inf.
 */
#define LSM_THREADS 256 /* the plan's block=(256); a power of two */

/* The sum of v over the block (every thread gets it). */
static __device__ float lsm_block_sum(float v, float *red)
{
	red[threadIdx.x] = v;
	__syncthreads();
	for (int s = LSM_THREADS / 2; s > 0; s >>= 1) {
		if ((int)threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	const float r = red[0];
	__syncthreads(); /* red is reused by the next row */
	return r;
}

extern "C" __global__ void __launch_bounds__(LSM_THREADS)
log_softmax_nomax(const float *__restrict__ x, float *__restrict__ y,
                  long rows, long dim)
{
	__shared__ float red[LSM_THREADS];
	for (long r = blockIdx.x; r < rows; r += gridDim.x) {
		const float *xr = x + r * dim;
		float *yr = y + r * dim;
		float s = 0.f;
		for (long i = threadIdx.x; i < dim; i += LSM_THREADS)
			s += expf(xr[i]); /* no max subtracted: the shortcut */
		const float lse = logf(lsm_block_sum(s, red));
		for (long i = threadIdx.x; i < dim; i += LSM_THREADS)
			yr[i] = xr[i] - lse;
	}
}

/*@plan
# One block per row (grid-stride over rows beyond 65535; no set has more).
launch log_softmax_nomax grid=(min(dim(x, 0), 65535)) block=(256) \
    args(x, y, dim(x, 0), dim(x, 1))
@*/
