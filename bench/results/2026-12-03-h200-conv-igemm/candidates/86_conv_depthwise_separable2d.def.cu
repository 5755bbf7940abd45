/*
 * krl-choice: lib.algo=0 lib.layout=nchw conv.impl=lib
 * Task level1/86_conv_depthwise_separable2d, generated at shape set kb1; it serves every shape set.
 * fused 2 ops into 2 kernels: 2 library
 *
 * Written by kernelrl's code generator (docs/optimizer.md). Kernels, in
 * the order the plan runs them:
 *   k0: library
 *   k1: library
 * Every kernel indexes with 64-bit integers, guards every load and store,
 * and takes its vector path only where a run-time check says sizes allow.
 */

/* NVRTC has no <math.h>: spell out infinity. */
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

/*@plan
buffer t4 f32 [(batch_size), (in_channels), (oh), (ow)]
# k0: library call (node 4)
call conv(x, wd) -> t4 stride=stride padding=padding dilation=dilation groups=in_channels
# k1: library call (node 5)
call conv(t4, wp) -> y
@*/
