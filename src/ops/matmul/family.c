/*
 * kernelrl: the op family "matmul" (src/ops/ops_int.h, "Op families";
 * docs/ops-matmul.md): the ops around GEMM that KernelBench's matmul
 * problems run in eager PyTorch besides the GEMM itself.
 *
 *   diag  v [n] -> y [n + |d|, n + |d|]   torch.diag(v, diagonal=d)
 *   triu  x [..., R, C] -> y (same)       torch.triu(x, diagonal=k)
 *   tril  x [..., R, C] -> y (same)       torch.tril(x, diagonal=k)
 *
 * This file holds each op's shape check, its float64 golden version and
 * the table; it is CPU-only (the fuzzers compile it with -DKRL_OPS_NO_GPU)
 * and names the GPU drivers of run_matmul.c through KRL_RUNFN.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ops/matmul/matmul.h"
#include "ops/ops_int.h"

#define D(t) ((double *)(t)->data)

/* Largest |diagonal| accepted: keeps n + |d| and row/column arithmetic
 * far from int64 overflow and exact in a double. */
#define MAX_DIAGONAL 4503599627370496.0   /* 2^52 */

/* ==== Check helpers ==== */

/* Rejects any attribute but `diagonal`, and a `diagonal` that is not an
 * integer of at most 2^52 in magnitude. */
static krl_err check_diagonal(const char *op, const krl_attrs *a, char *msg,
                              size_t cap)
{
	for (int i = 0; a && i < a->n; i++)
		if (!a->key[i] || strcmp(a->key[i], "diagonal") != 0)
			return krl_ops_fail(msg, cap, "%s: unknown attribute '%s' "
			            "(allowed: diagonal)", op,
			            a->key[i] ? a->key[i] : "");
	double v = krl_attrs_get(a, "diagonal", 0);
	if (!isfinite(v) || v != floor(v) || fabs(v) > MAX_DIAGONAL)
		return krl_ops_fail(msg, cap, "%s: diagonal=%g must be an integer of "
		            "magnitude at most 2^52", op, v);
	return KRL_OK;
}

static krl_err need_f32(const char *op, const char *what,
                        const krl_tensor *t, char *msg, size_t cap)
{
	if (t->dtype == KRL_F32)
		return KRL_OK;
	return krl_ops_fail(msg, cap, "%s: %s must be f32, not %s", op, what,
	            krl_dtype_name(t->dtype));
}

static int64_t diagonal_of(const krl_attrs *a)
{
	return (int64_t)krl_attrs_get(a, "diagonal", 0);
}

/* ==== diag ==== */

static const char *const k_diagonal[] = { "diagonal", NULL };

/* v must be a vector (torch.diag of a matrix, which extracts a diagonal,
 * is not this op); y is the square [n + |d|, n + |d|]. */
static krl_err check_diag(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "diag";
	const krl_tensor *v = &in[0], *y = &out[0];
	char sv[160], sy[160];
	krl_err r;
	if ((r = check_diagonal(op, a, msg, cap)) ||
	    (r = need_f32(op, "v", v, msg, cap)) ||
	    (r = need_f32(op, "y", y, msg, cap)))
		return r;
	if (v->ndim != 1)
		return krl_ops_fail(msg, cap, "%s: v is %s but must be a vector (1 dim): "
		            "this op builds a diagonal matrix from a vector", op,
		            KRL_SHAPE(v, sv));
	int64_t d = diagonal_of(a);
	int64_t sz = v->dim[0] + (d < 0 ? -d : d);
	if (y->ndim != 2 || y->dim[0] != sz || y->dim[1] != sz)
		return krl_ops_fail(msg, cap, "%s: v is %s and diagonal=%lld, so y must "
		            "be [%lld, %lld], not %s", op, KRL_SHAPE(v, sv),
		            (long long)d, (long long)sz, (long long)sz,
		            KRL_SHAPE(y, sy));
	return KRL_OK;
}

/* Zeros everywhere, v[i] at row i - min(d, 0), column i + max(d, 0). */
static krl_err golden_diag(const krl_tensor *in, const krl_tensor *out,
                           const krl_attrs *a)
{
	int64_t n = in[0].dim[0], d = diagonal_of(a);
	int64_t sz = out[0].dim[0];
	double *y = D(&out[0]);
	for (int64_t i = 0; i < sz * sz; i++)
		y[i] = 0.0;
	int64_t r0 = d < 0 ? -d : 0, c0 = d > 0 ? d : 0;
	for (int64_t i = 0; i < n; i++)
		y[(r0 + i) * sz + c0 + i] = D(&in[0])[i];
	return KRL_OK;
}

/* ==== triu, tril ==== */

/* x -> y, f32, rank >= 2, same shape. */
static krl_err check_tri(const char *op, const krl_tensor *in,
                         const krl_tensor *out, const krl_attrs *a,
                         char *msg, size_t cap)
{
	const krl_tensor *x = &in[0], *y = &out[0];
	char sx[160], sy[160];
	krl_err r;
	if ((r = check_diagonal(op, a, msg, cap)) ||
	    (r = need_f32(op, "x", x, msg, cap)) ||
	    (r = need_f32(op, "y", y, msg, cap)))
		return r;
	if (x->ndim < 2)
		return krl_ops_fail(msg, cap, "%s: x is %s but must have at least 2 dims "
		            "(a matrix or a batch of matrices)", op,
		            KRL_SHAPE(x, sx));
	int same = x->ndim == y->ndim;
	for (int i = 0; same && i < x->ndim; i++)
		same = x->dim[i] == y->dim[i];
	if (!same)
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: shapes must be "
		            "equal", op, KRL_SHAPE(x, sx), KRL_SHAPE(y, sy));
	return KRL_OK;
}

static krl_err check_triu(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	return check_tri("triu", in, out, a, msg, cap);
}

static krl_err check_tril(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	return check_tri("tril", in, out, a, msg, cap);
}

/* y[b, i, j] = x[b, i, j] where j - i >= k (triu) or j - i <= k (tril),
 * else 0. */
static void golden_tri(const krl_tensor *in, const krl_tensor *out,
                       const krl_attrs *a, int upper)
{
	const krl_tensor *x = &in[0];
	int64_t rows = x->dim[x->ndim - 2], cols = x->dim[x->ndim - 1];
	int64_t batch = krl_ops_prod(x, 0, x->ndim - 2);
	int64_t k = diagonal_of(a);
	const double *px = D(x);
	double *py = D(&out[0]);
	for (int64_t b = 0; b < batch; b++)
		for (int64_t i = 0; i < rows; i++)
			for (int64_t j = 0; j < cols; j++) {
				int64_t at = (b * rows + i) * cols + j;
				int keep = upper ? j - i >= k : j - i <= k;
				py[at] = keep ? px[at] : 0.0;
			}
}

static krl_err golden_triu(const krl_tensor *in, const krl_tensor *out,
                           const krl_attrs *a)
{
	golden_tri(in, out, a, 1);
	return KRL_OK;
}

static krl_err golden_tril(const krl_tensor *in, const krl_tensor *out,
                           const krl_attrs *a)
{
	golden_tri(in, out, a, 0);
	return KRL_OK;
}

/* ==== Table ==== */

static const krl_op op_diag = {
	"diag", 1, 1, k_diagonal,
	"y = torch.diag(v, diagonal): the vector v on the given diagonal of a "
	"square zero matrix [n + |diagonal|, n + |diagonal|]",
	check_diag, KRL_RUNFN(krl_run_diag), golden_diag, NULL,
	"matmul", KRL_OPCAP_LIBRARY,
};

static const krl_op op_triu = {
	"triu", 1, 1, k_diagonal,
	"y = torch.triu(x, diagonal): x where column - row >= diagonal, else "
	"0, over the last two dims",
	check_triu, KRL_RUNFN(krl_run_triu), golden_triu, NULL,
	"matmul", KRL_OPCAP_LIBRARY,
};

static const krl_op op_tril = {
	"tril", 1, 1, k_diagonal,
	"y = torch.tril(x, diagonal): x where column - row <= diagonal, else "
	"0, over the last two dims",
	check_tril, KRL_RUNFN(krl_run_tril), golden_tril, NULL,
	"matmul", KRL_OPCAP_LIBRARY,
};

const krl_op *const krl_ops_matmul[] = { &op_diag, &op_triu, &op_tril,
                                         NULL };
