// WRONG: caches the column sums of w in a __device__ array on the first call and never recomputes them, though params are redrawn for every correctness seed -> verdict wrong_output (mismatch).
/*
 * Level 2 problem 14 (Gemm_Divide_Sum_Scaling), wrong on purpose.
 *
 * The fast candidate's algebra (y = 0.75 * x @ colsum(w)), but instead of
 * an `init` statement writing a `derived` buffer (recomputed whenever the
 * params change), the column sums are computed lazily inside the body and
 * kept in a __device__ global with a "ready" flag: the first call fills
 * it, every later call skips the work. Correct on the first call; the
 * judge draws new params for every correctness seed, so from the second
 * seed on y is computed against the first seed's w and is off by the
 * order of y itself (~6000 at kb1, ~5-50 at tiny) against atol 0.15. It is
 * a cache across calls, keyed on nothing: the judge must report
 * wrong_output (mismatch), not unstable (the extra nominal draw after a
 * failed stress draw fails too).
 */

#define CS_CAP (1 << 15)	/* columns the cache can hold: kb1's K = 8192 fits */
#define RD_THREADS 256

__device__ double g_csum[CS_CAP];
__device__ int g_ready;

/* One thread per column; skipped entirely once g_ready is set. */
extern "C" __global__ void colsum_once(const float *__restrict__ w, int H, int K)
{
	const int k = blockIdx.x * blockDim.x + threadIdx.x;
	if (g_ready || k >= K || k >= CS_CAP)
		return;
	double s = 0.0;
	for (long n = 0; n < H; n++)
		s += w[n * K + k];
	g_csum[k] = s;
}

extern "C" __global__ void __launch_bounds__(RD_THREADS)
rowdot_cached(const float *__restrict__ x, float *__restrict__ y, int K, double alpha)
{
	__shared__ double red[RD_THREADS / 32];
	const float *xr = x + (long)blockIdx.x * K;
	double s = 0.0;
	for (int j = threadIdx.x; j < K && j < CS_CAP; j += RD_THREADS)
		s = fma((double)xr[j], g_csum[j], s);
	for (int off = 16; off > 0; off >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, off);
	if ((threadIdx.x & 31) == 0)
		red[threadIdx.x >> 5] = s;
	__syncthreads();
	if (threadIdx.x == 0) {
		double t = 0.0;
		for (int i = 0; i < RD_THREADS / 32; i++)
			t += red[i];
		y[blockIdx.x] = (float)(alpha * t);
	}
}

/* After the first call's rowdot: later calls skip colsum_once. */
extern "C" __global__ void mark_ready(void)
{
	g_ready = 1;
}

/*@plan
launch colsum_once grid=(cdiv(dim(w, 1), 256)) block=(256) args(w, dim(w, 0), dim(w, 1))
launch rowdot_cached grid=(dim(x, 0)) block=(256) args(x, y, dim(x, 1), 0.75)
launch mark_ready grid=(1) block=(1) args()
@*/
