extern "C" __global__ void k(const float *x, float *y, long n) {}
/*@plan
launch k \
 grid=(1) \
 block=(32) args(x, \
 y, numel(x))\
@*/
