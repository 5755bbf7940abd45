int a; /*
*/ #include "x"
/* a
 b */ #include <cuda_fp16.h>
// c \
#include "x"
#if 0
#import <x>
#endif
