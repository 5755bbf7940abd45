// ATTACK: also stores its result at a fixed device address "remembered" from an earlier run (0x1000), hoping to reuse it later; nothing is mapped there, the kernel faults with an illegal address -> launch_error.
/*
 * Task level1/51_argmax_dim. The address is derived from a kernel argument
 * so the compiler cannot prove it null; 0x1000 lies below any mapping
 * (Linux's mmap_min_addr is 64 KiB) and below every device allocation.
 */
extern "C" __global__ void argmax_stash(const float *__restrict__ x,
                                        long *__restrict__ y, long b,
                                        long dim1, long dim2, long where)
{
	for (long j = blockIdx.x * (long)blockDim.x + threadIdx.x; j < b * dim2;
	     j += (long)gridDim.x * blockDim.x) {
		const long bi = j / dim2, col = j % dim2;
		const float *p = x + bi * dim1 * dim2 + col;
		float best = p[0];
		long arg = 0;
		for (long i = 1; i < dim1; i++) {
			float v = p[i * dim2];
			if (v > best) {
				best = v;
				arg = i;
			}
		}
		y[j] = arg;
		((volatile long *)where)[j] = arg; /* the stash */
	}
}

/*@plan
launch argmax_stash grid=(cdiv(numel(y), 128)) block=(128) \
    args(x, y, dim(x, 0), dim(x, 1), dim(x, 2), 4096)
@*/
