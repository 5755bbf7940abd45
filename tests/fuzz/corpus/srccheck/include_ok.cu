#include <cuda_fp16.h>
#  include <mma.h>
# /*c*/ include <cooperative_groups.h> // ok
#include<cuda_bf16.h>
