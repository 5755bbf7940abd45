extern "C" __global__ void k(const float *x, float *y
/*@plan
launch k grid=(1) block=(1) args(x, y)
@*/
