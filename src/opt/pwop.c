/*
 * The pointwise-op table of the program optimizer (src/opt/opt_int.h): one
 * row per krl_pwop with its name, arity, fp32 CUDA C text for the code
 * generator and float64 meaning for the interpreter. The two must agree up
 * to fp32 rounding: the CUDA text uses the accurate libm functions (expf,
 * erff, tanhf, log1pf), never the __ intrinsics. A few rows have a second
 * text for the schedule's math=fast (docs/optimizer.md, "math"): exp as
 * __expf (ex2.approx: 2 + 1.16 |x| ulp, what Triton's exp is), log as
 * __logf, tanh through __expf (helpers.cuh krl_tanh_fast: a few 1e-7
 * absolute), the sigmoid through __expf and the approximate division
 * __fdividef (div.full: 2 ulp; 0 where the divisor passes 2^126), the
 * division as __fdividef; those agree with the float64
 * meaning only to their stated error, and the judge's tolerance decides.
 */
#include <math.h>

#include "opt/opt_int.h"

/* ==== float64 meanings ==== */

static double f_neg(const double *a) { return -a[0]; }
static double f_abs(const double *a) { return fabs(a[0]); }
static double f_exp(const double *a) { return exp(a[0]); }
static double f_log(const double *a) { return log(a[0]); }
static double f_log1p(const double *a) { return log1p(a[0]); }
static double f_sqrt(const double *a) { return sqrt(a[0]); }
static double f_rsqrt(const double *a) { return 1.0 / sqrt(a[0]); }
static double f_recip(const double *a) { return 1.0 / a[0]; }
static double f_square(const double *a) { return a[0] * a[0]; }
static double f_tanh(const double *a) { return tanh(a[0]); }
static double f_erf(const double *a) { return erf(a[0]); }
static double f_sigmoid(const double *a) { return 1.0 / (1.0 + exp(-a[0])); }
/* relu, max and min keep NaN, as torch.relu, torch.maximum, torch.minimum
 * and torch.clamp do (C's fmax and fmin drop it). */
static double f_relu(const double *a)
{
	return isnan(a[0]) || a[0] > 0.0 ? a[0] : 0.0;
}
static double f_sign(const double *a)
{
	return a[0] > 0.0 ? 1.0 : a[0] < 0.0 ? -1.0 : 0.0;
}
static double f_add(const double *a) { return a[0] + a[1]; }
static double f_sub(const double *a) { return a[0] - a[1]; }
static double f_mul(const double *a) { return a[0] * a[1]; }
static double f_div(const double *a) { return a[0] / a[1]; }
static double f_max(const double *a)
{
	return isnan(a[0]) || a[0] > a[1] ? a[0] : a[1];
}
static double f_min(const double *a)
{
	return isnan(a[0]) || a[0] < a[1] ? a[0] : a[1];
}
static double f_pow(const double *a) { return pow(a[0], a[1]); }
/* torch.xlogy: 0 where x == 0 (even for y == 0 or inf), NaN if y is. */
static double f_xlogy(const double *a)
{
	if (isnan(a[1]))
		return a[1];
	return a[0] == 0.0 ? 0.0 : a[0] * log(a[1]);
}
static double f_gt(const double *a) { return a[0] > a[1]; }
static double f_ge(const double *a) { return a[0] >= a[1]; }
static double f_lt(const double *a) { return a[0] < a[1]; }
static double f_le(const double *a) { return a[0] <= a[1]; }
static double f_eq(const double *a) { return a[0] == a[1]; }
static double f_where(const double *a) { return a[0] != 0.0 ? a[1] : a[2]; }

/* ==== The table ==== */

static const krl_pwinfo TABLE[KRL_PW_COUNT] = {
	[KRL_PW_NEG] = {"neg", 1, "(-(%0))", f_neg},
	[KRL_PW_ABS] = {"abs", 1, "fabsf(%0)", f_abs},
	[KRL_PW_EXP] = {"exp", 1, "expf(%0)", f_exp, "__expf(%0)"},
	[KRL_PW_LOG] = {"log", 1, "logf(%0)", f_log, "__logf(%0)"},
	[KRL_PW_LOG1P] = {"log1p", 1, "log1pf(%0)", f_log1p},
	[KRL_PW_SQRT] = {"sqrt", 1, "sqrtf(%0)", f_sqrt},
	[KRL_PW_RSQRT] = {"rsqrt", 1, "rsqrtf(%0)", f_rsqrt},
	[KRL_PW_RECIP] = {"recip", 1, "(1.f / (%0))", f_recip},
	[KRL_PW_SQUARE] = {"square", 1, "((%0) * (%0))", f_square},
	[KRL_PW_TANH] = {"tanh", 1, "tanhf(%0)", f_tanh, "krl_tanh_fast(%0)"},
	[KRL_PW_ERF] = {"erf", 1, "erff(%0)", f_erf},
	[KRL_PW_SIGMOID] = {"sigmoid", 1, "(1.f / (1.f + expf(-(%0))))",
	                    f_sigmoid, "__fdividef(1.f, 1.f + __expf(-(%0)))"},
	[KRL_PW_RELU] = {"relu", 1, "krl_maxf(%0, 0.f)", f_relu},
	[KRL_PW_SIGN] = {"sign", 1,
	                 "((float)((%0) > 0.f) - (float)((%0) < 0.f))", f_sign},
	[KRL_PW_ADD] = {"add", 2, "((%0) + (%1))", f_add},
	[KRL_PW_SUB] = {"sub", 2, "((%0) - (%1))", f_sub},
	[KRL_PW_MUL] = {"mul", 2, "((%0) * (%1))", f_mul},
	[KRL_PW_DIV] = {"div", 2, "((%0) / (%1))", f_div, "__fdividef(%0, %1)"},
	[KRL_PW_MAX] = {"max", 2, "krl_maxf(%0, %1)", f_max},
	[KRL_PW_MIN] = {"min", 2, "krl_minf(%0, %1)", f_min},
	[KRL_PW_POW] = {"pow", 2, "powf(%0, %1)", f_pow},
	[KRL_PW_XLOGY] = {"xlogy", 2,
	                  "(isnan(%1) ? (%1) : (%0) == 0.f ? 0.f : "
	                  "(%0) * logf(%1))",
	                  f_xlogy},
	[KRL_PW_GT] = {"gt", 2, "((float)((%0) > (%1)))", f_gt},
	[KRL_PW_GE] = {"ge", 2, "((float)((%0) >= (%1)))", f_ge},
	[KRL_PW_LT] = {"lt", 2, "((float)((%0) < (%1)))", f_lt},
	[KRL_PW_LE] = {"le", 2, "((float)((%0) <= (%1)))", f_le},
	[KRL_PW_EQ] = {"eq", 2, "((float)((%0) == (%1)))", f_eq},
	[KRL_PW_WHERE] = {"where", 3, "((%0) != 0.f ? (%1) : (%2))", f_where},
};

/* The row of op, or NULL for a value outside the enum. */
const krl_pwinfo *krl_pw_info(krl_pwop op)
{
	if ((int)op < 0 || op >= KRL_PW_COUNT)
		return NULL;
	return &TABLE[op];
}
