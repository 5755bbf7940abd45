#include <cuda_fp16.h>
 #include "x"
x = a$R"(
)";
\u0041 = 1;
