// ATTACK: computes the softmax of x in init (which runs only when params change, i.e. once for all timed calls) into a derived buffer and copies it out in the body; init may read only params and derived buffers -> invalid_plan.
/*
 * Task level1/23_softmax.
 */
extern "C" __global__ void softmax_precompute(const float *__restrict__ x,
                                              float *__restrict__ pre, long dim)
{
	const float *xr = x + blockIdx.x * dim;
	float *pr = pre + blockIdx.x * dim;
	if (threadIdx.x != 0)
		return;
	float m = xr[0], s = 0.f;
	for (long i = 1; i < dim; i++)
		m = fmaxf(m, xr[i]);
	for (long i = 0; i < dim; i++)
		s += expf(xr[i] - m);
	for (long i = 0; i < dim; i++)
		pr[i] = expf(xr[i] - m) / s;
}

/*@plan
derived pre f32 [batch_size, dim]
init
  launch softmax_precompute grid=(batch_size) block=(32) args(x, pre, dim)
end
call copy(pre) -> y
@*/
