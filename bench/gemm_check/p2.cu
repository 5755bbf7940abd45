/* Problem 2 candidate, compiled as its own translation unit. */
#include "../../examples/level1/2_matmul.fast.cu"
#include "launch.cuh"
LAUNCHER(launch_p2, matmul_3xtf32)
