// ATTACK: mean squared error expanded as E[p^2] - 2 E[pt] + E[t^2] in float (three running sums, no difference per element); right for normal(0, 1) inputs, but on the offset stress draw (p + 10^4, t + 10^4) each mean is a ~1e8 float with an ulp of 8 and the loss of ~2 comes out a multiple of 8 -> wrong_output (unstable).
/*
 * Task level1/94_mse_loss.
 *   1. mse_partial: MSE_BLOCKS blocks (sm_count * 8) of MSE_THREADS
 *      threads walk all n elements grid-stride, each thread accumulating
 *      sum p^2, sum p t and sum t^2 in float; three shared-memory trees;
 *      thread 0 writes the block's three partials to scratch.
 *   2. mse_final: one block adds the partials (strided, then the trees)
 *      and writes A / n - 2 C / n + E / n.
 *
 * Nominal draws: E[p^2] ~ 1, E[pt] ~ 0, E[t^2] ~ 1: no cancellation, the
 * loss ~2 is a sum of positive means. Per-thread float sums (2 terms per
 * thread at kb0, ~4000 at kb1, independent errors) and two 8-level trees
 * leave each mean within ~5e-7 relative: the loss within ~1e-6, inside
 * atol = 1e-6 + rtol = 1e-5 x 2.
 *
 * Stress draws: scale (x 64 on both) grows the means to ~4096 without
 * cancellation and passes. Offset (+10^4 on both: the same spread):
 * A / n and E / n are floats in [2^26, 2^27) (ulp 8), 2 C / n one in
 * [2^27, 2^28) (ulp 16), and their combination is a multiple of 8, never
 * within the stress tolerance (~1e-2) of the reference's ~2, which
 * subtracts first (p - t is exact there).
 */
#define MSE_THREADS 256 /* the plan's block=(256) for both kernels; a power of two */

/* The sums of a, b and c over the block (thread 0 gets them). */
static __device__ void mse_block_sum3(float *a, float *b, float *c,
                                      float (*red)[MSE_THREADS])
{
	red[0][threadIdx.x] = *a;
	red[1][threadIdx.x] = *b;
	red[2][threadIdx.x] = *c;
	__syncthreads();
	for (int s = MSE_THREADS / 2; s > 0; s >>= 1) {
		if ((int)threadIdx.x < s) {
			red[0][threadIdx.x] += red[0][threadIdx.x + s];
			red[1][threadIdx.x] += red[1][threadIdx.x + s];
			red[2][threadIdx.x] += red[2][threadIdx.x + s];
		}
		__syncthreads();
	}
	*a = red[0][0];
	*b = red[1][0];
	*c = red[2][0];
}

extern "C" __global__ void __launch_bounds__(MSE_THREADS)
mse_partial(const float *__restrict__ p, const float *__restrict__ t,
            float *__restrict__ part, long n)
{
	__shared__ float red[3][MSE_THREADS];
	float pp = 0.f, pt = 0.f, tt = 0.f;
	for (long i = blockIdx.x * (long)MSE_THREADS + threadIdx.x; i < n;
	     i += (long)gridDim.x * MSE_THREADS) {
		const float a = p[i], b = t[i];
		pp += a * a;
		pt += a * b;
		tt += b * b;
	}
	mse_block_sum3(&pp, &pt, &tt, red);
	if (threadIdx.x == 0) {
		part[3 * blockIdx.x + 0] = pp;
		part[3 * blockIdx.x + 1] = pt;
		part[3 * blockIdx.x + 2] = tt;
	}
}

extern "C" __global__ void __launch_bounds__(MSE_THREADS)
mse_final(const float *__restrict__ part, float *__restrict__ loss,
          long nparts, long n)
{
	__shared__ float red[3][MSE_THREADS];
	float pp = 0.f, pt = 0.f, tt = 0.f;
	for (long k = threadIdx.x; k < nparts; k += MSE_THREADS) {
		pp += part[3 * k + 0];
		pt += part[3 * k + 1];
		tt += part[3 * k + 2];
	}
	mse_block_sum3(&pp, &pt, &tt, red);
	if (threadIdx.x == 0) {
		const float fn = (float)n;
		loss[0] = pp / fn - 2.f * (pt / fn) + tt / fn; /* the shortcut */
	}
}

/*@plan
# part: three float partials per block of mse_partial (sm_count * 8 blocks).
buffer part f32 [sm_count * 8, 3]
launch mse_partial grid=(sm_count * 8) block=(256) \
    args(predictions, targets, part, numel(predictions))
launch mse_final grid=(1) block=(256) \
    args(part, loss, sm_count * 8, numel(predictions))
@*/
