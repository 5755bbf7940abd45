extern "C" __global__ void k(const float *x, float *y, long n) {}
/*@plan
launch k grid=(99999999999999999999, 4294967296, 0) block=(1025) smem=9223372036854775807 cluster=(3) cooperative args(x, y, 9223372036854775807 * 2)
@*/
