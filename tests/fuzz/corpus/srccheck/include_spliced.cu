#inc\
lude "x.h"
%:include <cuda_fp16.h>
#include <cuda_\
fp16.h>
