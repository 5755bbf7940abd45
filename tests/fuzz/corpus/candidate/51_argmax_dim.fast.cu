/*
 * Level 1 problem 51 (argmax over dim 1 of x[batch, dim1, dim2] -> i64
 * [batch, dim2]), fast candidate.
 *
 * Same layout as the dim-1 sum candidate, which measured at the copy
 * roofline: one kernel, no scratch; a block of 32 x 16 threads owns 32
 * neighbouring columns of one batch; threadIdx.y = r scans rows r, r + 16,
 * ... four at a time (4 independent coalesced 128-byte loads per warp in
 * flight) keeping the best (value, row); the 16 row lanes are then merged
 * through shared memory. Ties go to the smaller row (the first index, as
 * PyTorch), and NaN counts as the maximum (the first NaN wins), as in
 * PyTorch.
 * Traffic is x once (8.6 GB at kb1, ~2.05 ms at the roofline); PyTorch's
 * argmax measured 2.73 ms on an H200, this kernel 2.45 ms: 1.1x (the
 * compare-and-select work, not DRAM, is what keeps it above 2.05 ms).
 */

/* NVRTC has no <math.h>: spell out infinity. */
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

#define AM_TX 32 /* columns per block; the plan's cdiv(dim2, 32) */
#define AM_TY 16 /* row lanes */
#define AM_UNROLL 4

/* True when (v, i) should replace the best (bv, bi): larger, or equal with
 * a smaller index; NaN is larger than everything. */
static __device__ __forceinline__ bool am_better(float v, long i, float bv,
                                                 long bi)
{
	if (v != v)
		return bv == bv || i < bi;
	if (bv != bv)
		return false;
	return v > bv || (v == bv && i < bi);
}

extern "C" __global__ void __launch_bounds__(AM_TX * AM_TY)
argmax_dim1(const float *__restrict__ x, long long *__restrict__ y,
            long dim1, long dim2)
{
	__shared__ float rv[AM_TY][AM_TX + 1];
	__shared__ long ri[AM_TY][AM_TX + 1];
	const long col = (long)blockIdx.x * AM_TX + threadIdx.x;
	const long b = blockIdx.y;
	float bv = -INFINITY;
	long bi = dim1; /* "none yet": any real row wins a tie against it */

	if (col < dim2) {
		const float *p = x + b * dim1 * dim2 + col;
		long i = threadIdx.y;
		for (; i + (AM_UNROLL - 1) * AM_TY < dim1; i += AM_UNROLL * AM_TY) {
			float v[AM_UNROLL];
#pragma unroll
			for (int k = 0; k < AM_UNROLL; k++)
				v[k] = p[(i + k * AM_TY) * dim2];
#pragma unroll
			for (int k = 0; k < AM_UNROLL; k++) {
				if (am_better(v[k], i + k * AM_TY, bv, bi)) {
					bv = v[k];
					bi = i + k * AM_TY;
				}
			}
		}
		for (; i < dim1; i += AM_TY) {
			float v = p[i * dim2];
			if (am_better(v, i, bv, bi)) {
				bv = v;
				bi = i;
			}
		}
	}
	rv[threadIdx.y][threadIdx.x] = bv;
	ri[threadIdx.y][threadIdx.x] = bi;
	__syncthreads();
	if (threadIdx.y == 0 && col < dim2) {
		for (int k = 1; k < AM_TY; k++) {
			if (am_better(rv[k][threadIdx.x], ri[k][threadIdx.x], bv, bi)) {
				bv = rv[k][threadIdx.x];
				bi = ri[k][threadIdx.x];
			}
		}
		y[b * dim2 + col] = bi;
	}
}

/*@plan
launch argmax_dim1 grid=(cdiv(dim(x, 2), 32), dim(x, 0)) block=(32, 16) \
    args(x, y, dim(x, 1), dim(x, 2))
@*/
