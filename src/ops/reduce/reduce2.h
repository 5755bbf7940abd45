/*
 * kernelrl: the former name of the "reduce" family's private header,
 * kept only because reduce2.cu and scan.cu (being merged into reduce.cu
 * elsewhere) still include it; include ops/reduce/reduce.h instead.
 */
#ifndef KRL_OPS_REDUCE2_H
#define KRL_OPS_REDUCE2_H

#include "ops/reduce/reduce.h"

#endif
