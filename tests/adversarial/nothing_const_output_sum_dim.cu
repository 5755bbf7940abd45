// ATTACK: passes the output y only through a const pointer (hiding the write from the plan, e.g. to dodge output poisoning bookkeeping) and writes it via const_cast; to the plan y is never written -> invalid_plan.
/*
 * Task level1/47_sum_dim. The kernel would compute the right sums.
 */
extern "C" __global__ void sum_dim1_hidden(const float *__restrict__ x,
                                           const float *y, long b, long dim1,
                                           long dim2)
{
	float *out = const_cast<float *>(y);
	for (long j = blockIdx.x * (long)blockDim.x + threadIdx.x; j < b * dim2;
	     j += (long)gridDim.x * blockDim.x) {
		const long bi = j / dim2, col = j % dim2;
		const float *p = x + bi * dim1 * dim2 + col;
		float s = 0.f;
		for (long i = 0; i < dim1; i++)
			s += p[i * dim2];
		out[j] = s;
	}
}

/*@plan
launch sum_dim1_hidden grid=(cdiv(numel(y), 128)) block=(128) \
    args(x, y, dim(x, 0), dim(x, 1), dim(x, 2))
@*/
