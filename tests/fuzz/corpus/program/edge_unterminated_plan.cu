extern "C" __global__ void k(float *y) {}
/*@plan
launch k grid=(1) block=(1) args(y)
