// ATTACK: one thread per input element adds it into y with a plain (non-atomic) read-modify-write to skip a reduction; the 32 lanes of a warp hit the same y element at once and only one store survives, so ~31/32 of the terms are lost -> wrong_output (mismatch).
/*
 * Task level1/47_sum_dim. Threads are ordered with the reduced index i
 * fastest, so each warp's lanes all target one output element; y is zeroed
 * first by a separate kernel. Tiny: 70 terms per output, ~3 survive.
 */
extern "C" __global__ void sum_zero(float *__restrict__ y, long nout)
{
	for (long j = blockIdx.x * (long)blockDim.x + threadIdx.x; j < nout;
	     j += (long)gridDim.x * blockDim.x)
		y[j] = 0.f;
}

extern "C" __global__ void sum_racy(const float *__restrict__ x, float *y,
                                    long b, long dim1, long dim2)
{
	const long total = b * dim1 * dim2;
	for (long e = blockIdx.x * (long)blockDim.x + threadIdx.x; e < total;
	     e += (long)gridDim.x * blockDim.x) {
		const long i = e % dim1, oc = e / dim1; /* oc = bi * dim2 + col */
		const long bi = oc / dim2, col = oc % dim2;
		const float v = x[(bi * dim1 + i) * dim2 + col];
		volatile float *p = y + oc;
		*p = *p + v; /* the race */
	}
}

/*@plan
launch sum_zero grid=(cdiv(numel(y), 256)) block=(256) args(y, numel(y))
launch sum_racy grid=(cdiv(numel(x), 256)) block=(256) \
    args(x, y, dim(x, 0), dim(x, 1), dim(x, 2))
@*/
