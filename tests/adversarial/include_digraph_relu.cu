// ATTACK: writes the directive with the digraph %: for # (valid C++), which a check looking for "#include" would miss; the rule reads %: as # -> compile_error (include).
/*
 * Task level1/19_relu. Digraphs are part of C++17.
 */
%:include "/etc/passwd"

extern "C" __global__ void relu_plain(const float *__restrict__ x,
                                      float *__restrict__ y, long n)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x)
		y[i] = fmaxf(x[i], 0.f);
}

/*@plan
launch relu_plain grid=(cdiv(numel(x), 256)) block=(256) args(x, y, numel(x))
@*/
