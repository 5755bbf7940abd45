/*
 * Level 2 problem 14 (Gemm_Divide_Sum_Scaling), fast candidate:
 *     y[m] = 1.5 * sum_n ((x @ w^T)[m, n] / 2)
 * x [M, K], w [H, K] (no bias), y [M, 1]; strict fp32 tier.
 *
 * Algebra: sum_n sum_k x[m, k] w[n, k] = sum_k x[m, k] c[k] with
 * c[k] = sum_n w[n, k], the column sums of w. c depends on the param only,
 * so `init` computes it once per param draw into a `derived` buffer, and
 * the body is a GEMV: y[m] = 0.75 * x[m, :] . c.
 *
 * Why it is faster: the reference runs an M x H x K SGEMM (1024 x 8192 x
 * 8192 = 137 GFLOP at kb1, ~2.7 ms), a scale pass over the [M, H] product,
 * the row sum and a scale. The body here reads x once (32 MB at kb1, plus
 * c, 64 KB) in one kernel: ~10-15 us. Estimate ~200x at kb1; at kb0 (128 x
 * 10 -> 20) the reference is four launches (~12 us) and this one (~3 us),
 * ~3x.
 *
 * Numerics: exact in the limit; rounding differs from the reference's
 * (fp32 GEMM, then fp32 sums), so everything is kept in double: c is
 * summed in double and stored as f64, the dot product accumulates x * c in
 * double, and only y is rounded to float. The error is then ~1e-16
 * relative, far inside the reference's own ~1.5e-2 (atol 0.15 at y ~6000
 * rms): the distance to the reference is the reference's error.
 * (Summing in fp32 would add ~2e-4 per c[k] and ~1e-2 per y, still
 * passing, but with less margin.)
 *
 * Kernels:
 *   colsum (init): blocks of 32 x 8 threads; threadIdx.x picks the column
 *     (coalesced across a warp), threadIdx.y strides the rows; the 8
 *     partial sums meet in shared memory.
 *   rowdot (body): one 256-thread block per row of x; 16-byte loads when
 *     K % 4 == 0 (rows and c then 16-byte aligned), scalars otherwise
 *     (tiny: K = 70); double partials reduced by shuffles and shared memory.
 * Any M, K, H; 64-bit row offsets.
 */

#define CS_ROWS 8	/* threadIdx.y extent of colsum: the plan's block=(32, 8) */
#define RD_THREADS 256

extern "C" __global__ void __launch_bounds__(32 * CS_ROWS)
colsum(const float *__restrict__ w, double *__restrict__ c, int H, int K)
{
	__shared__ double part[CS_ROWS][32];
	const int k = blockIdx.x * 32 + threadIdx.x;
	double s = 0.0;
	if (k < K)
		for (long n = threadIdx.y; n < H; n += CS_ROWS)
			s += w[n * K + k];
	part[threadIdx.y][threadIdx.x] = s;
	__syncthreads();
	if (threadIdx.y == 0 && k < K) {
		for (int r = 1; r < CS_ROWS; r++)
			s += part[r][threadIdx.x];
		c[k] = s;
	}
}

extern "C" __global__ void __launch_bounds__(RD_THREADS)
rowdot(const float *__restrict__ x, const double *__restrict__ c,
       float *__restrict__ y, int K, double alpha)
{
	__shared__ double red[RD_THREADS / 32];
	const float *xr = x + (long)blockIdx.x * K;
	double s = 0.0;
	if ((K & 3) == 0) {
		const float4 *x4 = reinterpret_cast<const float4 *>(xr);
		const double2 *c2 = reinterpret_cast<const double2 *>(c);
		for (int j = threadIdx.x; j < K / 4; j += RD_THREADS) {
			const float4 v = __ldcs(x4 + j);	/* x is read once */
			const double2 a = c2[2 * j], b = c2[2 * j + 1];
			s = fma((double)v.x, a.x, s);
			s = fma((double)v.y, a.y, s);
			s = fma((double)v.z, b.x, s);
			s = fma((double)v.w, b.y, s);
		}
	} else {
		for (int j = threadIdx.x; j < K; j += RD_THREADS)
			s = fma((double)xr[j], c[j], s);
	}
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

/*@plan
# c[k] = sum_n w[n, k] once per param draw (double); y = 0.75 * x @ c.
derived csum f64 [dim(w, 1)]
init
  launch colsum grid=(cdiv(dim(w, 1), 32)) block=(32, 8) args(w, csum, dim(w, 0), dim(w, 1))
end
# / 2 then * 1.5: 0.75, exact in binary.
launch rowdot grid=(dim(x, 0)) block=(256) args(x, csum, y, dim(x, 1), 0.75)
@*/
