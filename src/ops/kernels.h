/*
 * kernelrl: the launchers of the op families' own CUDA kernels, all in one
 * include. Each family declares its launchers in its private header
 * (ops/<family>/<family>.h); this header only includes them, for the
 * kernels that still include it: reduce/reduce.cu, reduce/reduce2.cu and
 * reduce/scan.cu. New code includes its family's header instead.
 */
#ifndef KRL_OPS_KERNELS_H
#define KRL_OPS_KERNELS_H

#include "ops/conv/conv.h"
#include "ops/eltwise/eltwise.h"
#include "ops/matmul/matmul.h"
#include "ops/norm/norm.h"
#include "ops/reduce/reduce.h"

#endif
