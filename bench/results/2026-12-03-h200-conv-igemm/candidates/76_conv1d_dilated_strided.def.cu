/*
 * krl-choice: lib.algo=0 lib.layout=nchw conv.impl=lib
 * Task level1/76_conv1d_dilated_strided, generated at shape set kb1; it serves every shape set.
 * fused 1 op into 1 kernel: 1 library
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 * Every kernel indexes with 64-bit integers, guards every load and store,
 * and takes its vector path only where a run-time check says sizes allow.
 */

/* NVRTC has no <math.h>: spell out infinity. */
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

/*@plan
# k0: library call (node 3)
call conv(x, w) -> y stride=stride dilation=dilation
@*/
