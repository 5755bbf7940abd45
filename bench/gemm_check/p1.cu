/* Problem 1 candidate, compiled as its own translation unit. */
#include "../../examples/level1/1_square_matmul.fast.cu"
#include "launch.cuh"
LAUNCHER(launch_p1, square_matmul_3xtf32)
