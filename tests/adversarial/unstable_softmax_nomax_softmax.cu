// ATTACK: softmax as exp(x) / sum(exp(x)) without subtracting the row max (one pass over the row saved); right for normal(0, 1) rows, but exp overflows to inf past x = 88.7, which every stress draw reaches (x 64, x + 10^4, spikes x 1024), and inf / inf is NaN -> wrong_output (unstable).
/*
 * Task level1/23_softmax. One block of SMX_THREADS threads per row (a
 * grid-stride loop over rows), each thread summing expf over its strided
 * elements of the row (any length: a row of 393216 at kb1 is 1536 terms
 * per thread), then a shared-memory tree over the block; y = expf(x) / S.
 *
 * Nominal draws: |x| <= ~6.3 even over kb1's 1.6e9 elements, so expf(x)
 * <= ~545 and S <= ~1e6: no overflow, no underflow that matters. The
 * per-thread float sums err by ~1e-6 relative at most and independently,
 * the tree by ~3e-7: far inside rtol = 1e-4. expf and the division are
 * the accurate ones (no __expf, no fast-math).
 *
 * Stress draws: scale (x 64) puts a row's max near 64 x 3.5 = 224 on tiny
 * (every row of 1001 has some x > 1.39, i.e. 64 x > 88.7): expf = inf,
 * S = inf, the max element's output inf / inf = NaN and the others 0,
 * where the reference is finite (~1 at the max). Offset (x + 10^4) makes
 * every expf inf, every output NaN. Spikes (x 1024 on ~1 in 1024) overflow
 * wherever a spike lands on x > 0.087. NaN never passes against a finite
 * reference.
 */
#define SMX_THREADS 256 /* the plan's block=(256); a power of two */

/* The sum of v over the block (every thread gets it). */
static __device__ float smx_block_sum(float v, float *red)
{
	red[threadIdx.x] = v;
	__syncthreads();
	for (int s = SMX_THREADS / 2; s > 0; s >>= 1) {
		if ((int)threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	const float r = red[0];
	__syncthreads(); /* red is reused by the next row */
	return r;
}

extern "C" __global__ void __launch_bounds__(SMX_THREADS)
softmax_nomax(const float *__restrict__ x, float *__restrict__ y, long rows,
              long dim)
{
	__shared__ float red[SMX_THREADS];
	for (long r = blockIdx.x; r < rows; r += gridDim.x) {
		const float *xr = x + r * dim;
		float *yr = y + r * dim;
		float s = 0.f;
		for (long i = threadIdx.x; i < dim; i += SMX_THREADS)
			s += expf(xr[i]); /* no max subtracted: the shortcut */
		const float S = smx_block_sum(s, red);
		for (long i = threadIdx.x; i < dim; i += SMX_THREADS)
			yr[i] = expf(xr[i]) / S;
	}
}

/*@plan
# One block per row (grid-stride over rows beyond 65535; no set has more).
launch softmax_nomax grid=(min(dim(x, 0), 65535)) block=(256) \
    args(x, y, dim(x, 0), dim(x, 1))
@*/
