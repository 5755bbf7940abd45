#include "x.h"
#include </etc/passwd>
#include <../etc/passwd>
#include <cuda/../../x>
#define H <cuda_fp16.h>
#include H
#include <cuda_fp16.h> junk
