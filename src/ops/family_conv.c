/* The op family "conv" (src/ops/ops_int.h, "Op families"): none yet. */
#include "ops/ops_int.h"

const krl_op *const krl_ops_conv[] = { NULL };
