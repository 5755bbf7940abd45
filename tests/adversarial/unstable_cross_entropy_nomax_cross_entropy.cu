// ATTACK: cross entropy with each row's logsumexp computed as log(sum(exp(p))) without the max shift (no max pass); right for normal(0, 1) logits, but a row holding a logit above 88.7 (every stress draw: p x 64, p + 10^4, spikes x 1024) sums to inf and the mean loss is inf -> wrong_output (unstable).
/*
 * Task level1/95_cross_entropy: loss = mean over the rows r with
 * targets[r] != -100 (PyTorch's ignore_index; this task draws targets in
 * [0, 10)) of logsumexp(predictions[r, :]) - predictions[r, targets[r]].
 * A target outside [0, num_classes) gives NaN (PyTorch asserts).
 *   1. ce_rows: one block of CE_THREADS threads per row (a grid-stride
 *      loop over rows), each thread summing expf over its strided logits
 *      of the row (any number of classes), a shared-memory tree, then
 *      thread 0 writes the row's loss and weight (1, or 0 if ignored) to
 *      scratch.
 *   2. ce_mean: one block of CE_THREADS threads sums the row losses and
 *      weights (strided, then a tree) and writes sum / count.
 *
 * Nominal draws: |p| <= ~6, so a row's sum is at most ~4096 x e^6 at kb1:
 * no overflow. Row losses (~2.8 at kb0, ~8.8 at kb1) come out within a
 * few 1e-7 relative (float sums of <= 16 terms per thread, an 8-level
 * tree, logf within an ulp); the mean of up to 32768 of them (<= 128 per
 * thread, then the tree) within ~1e-6 relative: inside rtol = 1e-5.
 *
 * Stress draws (the logits only; targets are integers and stay): scale
 * (x 64): on tiny (33 rows of 70) some row has a logit above 1.39, so
 * 64 p > 88.7, expf = inf, that row's loss is inf and so is the mean, where
 * the reference is finite; offset (p + 10^4): every expf is inf; spikes:
 * a spike on p > 0.087 overflows. Inf passes only against the same Inf.
 */
#define CE_THREADS 256 /* the plan's block=(256) for both kernels; a power of two */

/* The sums of a and b over the block (every thread gets them). */
static __device__ void ce_block_sum2(float *a, float *b, float *ra, float *rb)
{
	ra[threadIdx.x] = *a;
	rb[threadIdx.x] = *b;
	__syncthreads();
	for (int s = CE_THREADS / 2; s > 0; s >>= 1) {
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

extern "C" __global__ void __launch_bounds__(CE_THREADS)
ce_rows(const float *__restrict__ p, const long long *__restrict__ target,
        float *__restrict__ rowloss, float *__restrict__ rowweight,
        long rows, long classes)
{
	__shared__ float ra[CE_THREADS], rb[CE_THREADS];
	for (long r = blockIdx.x; r < rows; r += gridDim.x) {
		const float *pr = p + r * classes;
		float s = 0.f, unused = 0.f;
		for (long i = threadIdx.x; i < classes; i += CE_THREADS)
			s += expf(pr[i]); /* no max subtracted: the shortcut */
		ce_block_sum2(&s, &unused, ra, rb);
		if (threadIdx.x == 0) {
			const long long t = target[r];
			float loss, weight = 1.f;
			if (t == -100) {
				loss = 0.f;
				weight = 0.f;
			} else if (t < 0 || t >= classes) {
				loss = __int_as_float(0x7fc00000); /* NaN */
			} else {
				loss = logf(s) - pr[t];
			}
			rowloss[r] = loss;
			rowweight[r] = weight;
		}
	}
}

extern "C" __global__ void __launch_bounds__(CE_THREADS)
ce_mean(const float *__restrict__ rowloss,
        const float *__restrict__ rowweight, float *__restrict__ loss,
        long rows)
{
	__shared__ float ra[CE_THREADS], rb[CE_THREADS];
	float s = 0.f, c = 0.f;
	for (long r = threadIdx.x; r < rows; r += CE_THREADS) {
		s += rowloss[r];
		c += rowweight[r];
	}
	ce_block_sum2(&s, &c, ra, rb);
	if (threadIdx.x == 0)
		loss[0] = s / c; /* 0 / 0 = NaN when every target is ignored */
}

/*@plan
buffer rowloss   f32 [batch_size]
buffer rowweight f32 [batch_size]
# One block per row (grid-stride over rows beyond 65535), then one block.
launch ce_rows grid=(min(dim(predictions, 0), 65535)) block=(256) \
    args(predictions, targets, rowloss, rowweight, dim(predictions, 0), \
         dim(predictions, 1))
launch ce_mean grid=(1) block=(256) \
    args(rowloss, rowweight, loss, dim(predictions, 0))
@*/
