/*
 * kernelrl: private declarations of the op family "conv" (docs/ops-conv.md).
 *
 * family_conv.c owns the ops' table, their checks and float64 golden
 * versions, and the geometry every part shares (krl_conv_geom_get);
 * run_conv.c the GPU drivers through cuDNN. Nothing here is visible outside
 * src/ops/.
 */
#ifndef KRL_OPS_CONV_H
#define KRL_OPS_CONV_H

#include <stdint.h>

#include "ops/conv/conv_layout.h"
#include "krl/opgeom.h"
#include "ops/ops_int.h"


/* GPU drivers (run_conv.c): y = conv(x, w) [+ b] through cuDNN. */
KRL_RUN(conv); KRL_RUN(conv_bias); KRL_RUN(conv_transpose);
KRL_RUN(conv_transpose_bias);

#endif
