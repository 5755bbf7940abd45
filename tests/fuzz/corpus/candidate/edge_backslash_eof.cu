extern "C" __global__ void k(float *y) {}
/*@plan
launch k \