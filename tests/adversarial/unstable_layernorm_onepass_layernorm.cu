// ATTACK: layernorm statistics in one pass of float sum(x) and sum(x*x), var = E[x^2] - E[x]^2 (clamped at 0), saving the second read of each row; right for normal(0, 1) rows, but on the offset stress draw (x + 10^4) both terms are ~1e8 floats with an ulp of 8, and the rounding and float-sum errors of E[x^2] (units to thousands) replace a variance of ~1 -> wrong_output (unstable).
/*
 * Task level1/40_layernorm. One block of LN_THREADS threads per row (a
 * grid-stride loop over rows): each thread accumulates s = sum x and
 * q = sum x^2 over its strided elements of the row in float, two
 * shared-memory trees give S and Q, mean = S / n, var = max(Q / n -
 * mean^2, 0), rstd = 1 / sqrtf(var + eps); then, after the statistics,
 * y = (x - mean) * rstd * w + b over the row (w, b indexed by the
 * position in the row). n = numel(w) = features * dim1 * dim2.
 *
 * Nominal draws: E[x^2] ~ 1 and E[x]^2 ~ 1 / n: no cancellation. At kb0
 * (rows of 4,194,304) each thread adds 16384 squares in float (error
 * ~eps sqrt(K / 3) ~ 4e-6 relative, independent between the 256 threads:
 * ~3e-7 of Q), the tree adds ~2e-7: var within ~5e-7 relative, rstd
 * ~3e-7, so |y| errs by ~1e-6 where w * xhat ~ 3.5: inside atol = 1e-5
 * (and far inside rtol = 1e-4 for large |y|). 1 / sqrtf is correctly
 * rounded (no rsqrtf, no bit tricks). A CPU emulation of this order of
 * operations (FMA where nvcc contracts) against a float64 reference: the
 * worst element at 0.12 of the tolerance on kb0, 0.01 on tiny and hidden
 * sizes.
 *
 * Stress draws: scale (x 64) and spikes (x 1024) grow E[x^2] without
 * cancellation and pass. Offset (x + 10^4): Q / n is a float in
 * [2^26, 2^27), whose ulp is 8, and the float sums behind it err by
 * units (tiny) to thousands (kb0: 4M terms of 1e8), so var = Q / n -
 * mean^2 (with or without FMA contraction) comes out anywhere in about
 * [-20, 20] on tiny and ~3300 on kb0 (a CPU emulation of this order of
 * operations: 7.6 .. 14 on tiny's 3 rows, 3280 .. 3312 on kb0's) instead of
 * ~1 (clamped to 0: rstd = 316). A row passes only if var lands within a
 * few percent of its true value; every output of a row that misses is off
 * by O(1) or more against a tolerance of ~0.1 (atol x 4 x the growth of
 * |x|, ~2500 on tiny).
 */
#define LN_THREADS 256 /* the plan's block=(256); a power of two */

/* The sums of a and b over the block (every thread gets them). */
static __device__ void ln_block_sum2(float *a, float *b, float *ra, float *rb)
{
	ra[threadIdx.x] = *a;
	rb[threadIdx.x] = *b;
	__syncthreads();
	for (int s = LN_THREADS / 2; s > 0; s >>= 1) {
		if ((int)threadIdx.x < s) {
			ra[threadIdx.x] += ra[threadIdx.x + s];
			rb[threadIdx.x] += rb[threadIdx.x + s];
		}
		__syncthreads();
	}
	*a = ra[0];
	*b = rb[0];
	__syncthreads(); /* ra, rb are reused by the next row */
}

extern "C" __global__ void __launch_bounds__(LN_THREADS)
layernorm_onepass(const float *__restrict__ x, const float *__restrict__ w,
                  const float *__restrict__ b, float *__restrict__ y,
                  long rows, long len, float eps)
{
	__shared__ float ra[LN_THREADS], rb[LN_THREADS];
	for (long r = blockIdx.x; r < rows; r += gridDim.x) {
		const float *xr = x + r * len;
		float *yr = y + r * len;
		float s = 0.f, q = 0.f;
		for (long i = threadIdx.x; i < len; i += LN_THREADS) {
			const float v = xr[i];
			s += v;
			q += v * v;
		}
		ln_block_sum2(&s, &q, ra, rb);
		const float n = (float)len;
		const float mean = s / n;
		float var = q / n - mean * mean; /* the shortcut */
		if (var < 0.f)
			var = 0.f;
		const float rstd = 1.f / sqrtf(var + eps);
		for (long i = threadIdx.x; i < len; i += LN_THREADS)
			yr[i] = (xr[i] - mean) * rstd * w[i] + b[i];
	}
}

/*@plan
# One block per row of numel(w) elements (grid-stride beyond 65535 rows).
launch layernorm_onepass grid=(min(dim(x, 0), 65535)) block=(256) \
    args(x, w, b, y, dim(x, 0), numel(w), eps)
@*/
