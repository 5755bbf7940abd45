#include <cstdint>
extern "C" __global__ void all(const float4 *__restrict__ a, float *b, int c, int32_t d, unsigned e, unsigned int f, uint32_t g, long h, long long i, int64_t j, ptrdiff_t k, unsigned long l, unsigned long long m, uint64_t n, size_t o, float p, double q, const int *const r) {}
template <int N> __global__ void t(float *x) {}
extern "C" { __global__ void inner(float *y, short bad) {} }
extern "C" __global__ void unnamed(float *, int) {}
/*@plan
buffer s f32 [numel(x)]
derived w f32 [4]
init
  call copy(x) -> w
end
launch all grid=(1, 1, 1) block=(32, 2, 1) smem=49152 cluster=(1) args(x, y, -1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 1.5, 2.5, w)
call relu(x) -> y
@*/
