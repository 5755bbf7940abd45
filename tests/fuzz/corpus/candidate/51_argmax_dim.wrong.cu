// WRONG: float4 loads from x + 1 (column 0 handled apart, the rest "vectorised"), a misaligned 16-byte access on every shape -> verdict launch_error (misaligned address).
/*
 * Level 1 problem 51 (argmax over dim 1), wrong on purpose.
 *
 * Each thread owns 4 neighbouring columns and loads them as one float4.
 * Column 0 is meant to be handled separately, so the vector loads start at
 * x + 1 + 4 * t: 4 bytes past a 16-byte boundary, whatever dim2 is. The
 * first load faults with CUDA_ERROR_MISALIGNED_ADDRESS: launch_error.
 */

extern "C" __global__ void argmax_vec4(const float *__restrict__ x,
                                       long long *__restrict__ y, long dim1,
                                       long dim2)
{
	long c4 = (long)blockIdx.x * blockDim.x + threadIdx.x; /* column group */
	long b = blockIdx.y;
	long col = 1 + 4 * c4;
	if (col + 3 >= dim2)
		return;
	const float *base = x + b * dim1 * dim2 + col;
	float4 best = *reinterpret_cast<const float4 *>(base);
	long long bi[4] = {0, 0, 0, 0};
	for (long i = 1; i < dim1; i++) {
		float4 v = *reinterpret_cast<const float4 *>(base + i * dim2);
		if (v.x > best.x) { best.x = v.x; bi[0] = i; }
		if (v.y > best.y) { best.y = v.y; bi[1] = i; }
		if (v.z > best.z) { best.z = v.z; bi[2] = i; }
		if (v.w > best.w) { best.w = v.w; bi[3] = i; }
	}
	for (int k = 0; k < 4; k++)
		y[b * dim2 + col + k] = bi[k];
}

/*@plan
launch argmax_vec4 grid=(cdiv(dim(x, 2), 1024), dim(x, 0)) block=(256) \
    args(x, y, dim(x, 1), dim(x, 2))
@*/
