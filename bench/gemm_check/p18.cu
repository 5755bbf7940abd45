/* Problem 18 candidate, compiled as its own translation unit. */
#include "../../examples/level1/18_matmul_tt.fast.cu"
#include "launch.cuh"
LAUNCHER(launch_p18, matmul_tt_3xtf32)
