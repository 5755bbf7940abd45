// ATTACK: instance-norm statistics in one pass of float sum(x) and sum(x*x) per (sample, channel) plane, var = E[x^2] - E[x]^2 (clamped at 0); right for normal(0, 1) planes, but on the offset stress draw (x + 10^4) both terms are ~1e8 floats with an ulp of 8, and the rounding and float-sum errors of E[x^2] (units to tens) replace a variance of ~1 -> wrong_output (unstable).
/*
 * Task level1/34_instancenorm (no affine, eps = 1e-5, biased variance).
 * One block of IN_THREADS threads per plane of dim1 * dim2 elements (a
 * grid-stride loop over the batch_size * features planes): float s and q
 * per thread over its strided elements, two shared-memory trees,
 * mean = S / n, var = max(Q / n - mean^2, 0), rstd = 1 / sqrtf(var + eps),
 * then y = (x - mean) * rstd over the plane.
 *
 * Nominal draws: no cancellation (E[x]^2 ~ 1 / n). At kb1 (planes of
 * 262144) each thread adds 1024 squares (~1e-6 relative, independent
 * between threads), the tree ~2e-7: rstd within ~2e-7, |y| <= ~6 within
 * ~1e-6: inside atol = 1e-5, rtol = 1e-4 (a CPU emulation of this order
 * of operations: worst element at 0.003 of the tolerance on tiny, kb0 and
 * hidden sizes).
 *
 * Stress draws: scale and spikes pass (no cancellation). Offset
 * (x + 10^4): Q / n is a float in [2^26, 2^27) (ulp 8) whose rounding
 * and float-sum errors are units to tens, so var = Q / n - mean^2 comes
 * out anywhere in about [-20, 30] (a CPU emulation of this order of
 * operations, tiny and kb0 planes) instead of ~1 (clamped to 0: rstd =
 * 316). A plane passes only if var lands within a few percent of its true
 * value; every output of a plane that misses is off by O(1) or more
 * against a tolerance of ~0.1 (atol x 4 x the growth of |x|, ~2500 on
 * tiny). Tiny has 15 planes, kb0 1024: all would have to land.
 */
#define IN_THREADS 256 /* the plan's block=(256); a power of two */

/* The sums of a and b over the block (every thread gets them). */
static __device__ void in_block_sum2(float *a, float *b, float *ra, float *rb)
{
	ra[threadIdx.x] = *a;
	rb[threadIdx.x] = *b;
	__syncthreads();
	for (int s = IN_THREADS / 2; s > 0; s >>= 1) {
		if ((int)threadIdx.x < s) {
			ra[threadIdx.x] += ra[threadIdx.x + s];
			rb[threadIdx.x] += rb[threadIdx.x + s];
		}
		__syncthreads();
	}
	*a = ra[0];
	*b = rb[0];
	__syncthreads(); /* ra, rb are reused by the next plane */
}

extern "C" __global__ void __launch_bounds__(IN_THREADS)
instancenorm_onepass(const float *__restrict__ x, float *__restrict__ y,
                     long planes, long len, float eps)
{
	__shared__ float ra[IN_THREADS], rb[IN_THREADS];
	for (long r = blockIdx.x; r < planes; r += gridDim.x) {
		const float *xr = x + r * len;
		float *yr = y + r * len;
		float s = 0.f, q = 0.f;
		for (long i = threadIdx.x; i < len; i += IN_THREADS) {
			const float v = xr[i];
			s += v;
			q += v * v;
		}
		in_block_sum2(&s, &q, ra, rb);
		const float n = (float)len;
		const float mean = s / n;
		float var = q / n - mean * mean; /* the shortcut */
		if (var < 0.f)
			var = 0.f;
		const float rstd = 1.f / sqrtf(var + eps);
		for (long i = threadIdx.x; i < len; i += IN_THREADS)
			yr[i] = (xr[i] - mean) * rstd;
	}
}

/*@plan
# One block per (sample, channel) plane; grid-stride beyond 65535 planes.
launch instancenorm_onepass \
    grid=(min(dim(x, 0) * dim(x, 1), 65535)) block=(256) \
    args(x, y, dim(x, 0) * dim(x, 1), dim(x, 2) * dim(x, 3), eps)
@*/
