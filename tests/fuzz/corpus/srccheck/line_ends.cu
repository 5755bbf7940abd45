#include <cuda_fp16.h>
#define X 1 \
 + 2
int a;int b;
#define Y \ 
