extern "C" __global__ void ÿþ(float *Ã() {}
/*@plan
launch â‚ grid=(1)
@*/
