extern "C" __global__ void k(const float *x, float *y, long n) {}
/*@plan
launch k grid=(1) block=(1) args(x, y, 1)
@*/
/*@plan
@*/
