/*
 * kernelrl: the op family "matmul" (docs/ops-matmul.md): the GEMM
 * (cuBLASLt, gemm.c) and the ops around it that KernelBench's matmul
 * problems run in eager PyTorch.
 *
 *   gemm    a [..., M, K], b [(...,) K, N] -> c [..., M, N]   torch.matmul
 *   linear  x [..., K], w [N, K], b [N] -> y [..., N]   nn.Linear (bias)
 *   diag  v [n] -> y [n + |d|, n + |d|]   torch.diag(v, diagonal=d)
 *   triu  x [..., R, C] -> y (same)       torch.triu(x, diagonal=k)
 *   tril  x [..., R, C] -> y (same)       torch.tril(x, diagonal=k)
 *
 * This file holds each op's shape check, its float64 golden version and
 * the table; it is CPU-only (the fuzzers compile it with -DKRL_OPS_NO_GPU)
 * and names the GPU drivers of run.c, gemm.c and linear.c through
 * KRL_RUNFN.
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
static const char *const k_diagonal[] = { "diagonal", NULL };

static krl_err check_diagonal(const char *op, const krl_attrs *a, char *msg,
                              size_t cap)
{
	krl_err r = krl_ops_check_keys(op, k_diagonal, a, msg, cap);
	if (r)
		return r;
	double v = krl_attrs_get(a, "diagonal", 0);
	if (!isfinite(v) || v != floor(v) || fabs(v) > MAX_DIAGONAL)
		return krl_ops_fail(msg, cap, "%s: diagonal=%g must be an integer of "
		            "magnitude at most 2^52", op, v);
	return KRL_OK;
}

static int64_t diagonal_of(const krl_attrs *a)
{
	return (int64_t)krl_attrs_get(a, "diagonal", 0);
}

/* ==== gemm ==== */

static const char *const k_gemm[] = { "ta", "tb", "alpha", "algo", NULL };

static krl_err check_gemm(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *at, char *msg, size_t cap)
{
	const char *op = "gemm";
	const krl_tensor *a = &in[0], *b = &in[1], *c = &out[0];
	char sa[KRL_SHAPE_CAP], sb[KRL_SHAPE_CAP], sc[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_gemm, at, msg, cap)) ||
	    (r = krl_ops_need_flag(op, at, "ta", msg, cap)) ||
	    (r = krl_ops_need_flag(op, at, "tb", msg, cap)) ||
	    (r = krl_ops_need_finite(op, at, "alpha", msg, cap)) ||
	    (r = krl_ops_need_algo(op, at, msg, cap)) ||
	    (r = krl_ops_need_f32(op, msg, cap, "a", a, "b", b, "c", c, NULL)))
		return r;
	if (a->ndim < 2)
		return krl_ops_fail(msg, cap, "%s: a is %s but must have at least 2 "
		            "dims", op, KRL_SHAPE(a, sa));
	if (b->ndim < 2)
		return krl_ops_fail(msg, cap, "%s: b is %s but must have at least 2 "
		            "dims", op, KRL_SHAPE(b, sb));
	int ta = krl_attrs_get(at, "ta", 0) != 0;
	int tb = krl_attrs_get(at, "tb", 0) != 0;
	int na = a->ndim, nb = b->ndim;
	int64_t m = ta ? a->dim[na - 1] : a->dim[na - 2];
	int64_t ka = ta ? a->dim[na - 2] : a->dim[na - 1];
	int64_t kb = tb ? b->dim[nb - 1] : b->dim[nb - 2];
	int64_t n = tb ? b->dim[nb - 2] : b->dim[nb - 1];
	if (ka != kb)
		return krl_ops_fail(msg, cap, "%s: a is %s%s but b is %s%s: inner "
		            "dimensions differ (%lld vs %lld)", op, KRL_SHAPE(a, sa),
		            ta ? " (ta=1)" : "", KRL_SHAPE(b, sb),
		            tb ? " (tb=1)" : "", (long long)ka, (long long)kb);
	if (nb > 2) {
		if (nb != na)
			return krl_ops_fail(msg, cap, "%s: a is %s but b is %s: b must "
			            "have the same batch dims as a, or none", op,
			            KRL_SHAPE(a, sa), KRL_SHAPE(b, sb));
		for (int i = 0; i < na - 2; i++)
			if (a->dim[i] != b->dim[i])
				return krl_ops_fail(msg, cap, "%s: a is %s but b is %s: "
				            "batch dim %d differs", op,
				            KRL_SHAPE(a, sa), KRL_SHAPE(b, sb), i);
	}
	int ok = c->ndim == na && c->dim[na - 2] == m && c->dim[na - 1] == n;
	for (int i = 0; ok && i < na - 2; i++)
		ok = c->dim[i] == a->dim[i];
	if (!ok) {
		krl_tensor want = *a;
		want.dim[na - 2] = m;
		want.dim[na - 1] = n;
		char sw[KRL_SHAPE_CAP];
		return krl_ops_fail(msg, cap, "%s: c is %s but a %s @ b %s gives %s", op,
		            KRL_SHAPE(c, sc), KRL_SHAPE(a, sa), KRL_SHAPE(b, sb),
		            KRL_SHAPE(&want, sw));
	}
	return KRL_OK;
}

/* c[b] = alpha * op(a[b]) @ op(b[b or 0]) in double. */
static krl_err golden_gemm(const krl_tensor *in, const krl_tensor *out,
                           const krl_attrs *a)
{
	const krl_tensor *ta_ = &in[0], *tb_ = &in[1];
	int ta = krl_attrs_get(a, "ta", 0) != 0;
	int tb = krl_attrs_get(a, "tb", 0) != 0;
	double alpha = krl_attrs_get(a, "alpha", 1);
	int na = ta_->ndim, nb = tb_->ndim;
	int64_t m = ta ? ta_->dim[na - 1] : ta_->dim[na - 2];
	int64_t k = ta ? ta_->dim[na - 2] : ta_->dim[na - 1];
	int64_t n = tb ? tb_->dim[nb - 2] : tb_->dim[nb - 1];
	int64_t batch = krl_ops_prod(ta_, 0, na - 2);
	const double *pa = D(ta_), *pb = D(tb_);
	double *pc = D(&out[0]);
	for (int64_t q = 0; q < batch; q++) {
		const double *A = pa + q * m * k;
		const double *B = pb + (nb > 2 ? q * k * n : 0);
		double *C = pc + q * m * n;
		for (int64_t i = 0; i < m; i++)
			for (int64_t j = 0; j < n; j++) {
				double s = 0;
				for (int64_t l = 0; l < k; l++) {
					double x = ta ? A[l * m + i] : A[i * k + l];
					double y = tb ? B[j * k + l] : B[l * n + j];
					s += x * y;
				}
				C[i * n + j] = alpha * s;
			}
	}
	return KRL_OK;
}

/* ==== linear ==== */

static const char *const k_linear[] = { "algo", NULL };

/* x [..., K] (rank >= 2), w [N, K], b [N] -> y [..., N], all f32; `algo`
 * as gemm's. A 1-D x is refused: PyTorch runs it as mv then add, two
 * other kernels. */
static krl_err check_linear(const krl_tensor *in, const krl_tensor *out,
                            const krl_attrs *at, char *msg, size_t cap)
{
	const char *op = "linear";
	const krl_tensor *x = &in[0], *w = &in[1], *b = &in[2], *y = &out[0];
	char sx[KRL_SHAPE_CAP], sw[KRL_SHAPE_CAP], sb[KRL_SHAPE_CAP];
	char sy[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_linear, at, msg, cap)) ||
	    (r = krl_ops_need_algo(op, at, msg, cap)) ||
	    (r = krl_ops_need_f32(op, msg, cap, "x", x, "w", w, "b", b, "y", y,
	                          NULL)))
		return r;
	if (x->ndim < 2)
		return krl_ops_fail(msg, cap, "%s: x is %s but must have at least 2 "
		            "dims [..., in_features] (PyTorch runs a 1-D input as "
		            "mv + add, not addmm)", op, KRL_SHAPE(x, sx));
	if (w->ndim != 2)
		return krl_ops_fail(msg, cap, "%s: w is %s but must be [out_features, "
		            "in_features] (2 dims)", op, KRL_SHAPE(w, sw));
	int64_t k = x->dim[x->ndim - 1], n = w->dim[0];
	if (w->dim[1] != k)
		return krl_ops_fail(msg, cap, "%s: x is %s but w is %s: x's last dim "
		            "(%lld) must equal w's in_features (dim 1, %lld)", op,
		            KRL_SHAPE(x, sx), KRL_SHAPE(w, sw), (long long)k,
		            (long long)w->dim[1]);
	if (b->ndim != 1 || b->dim[0] != n)
		return krl_ops_fail(msg, cap, "%s: b is %s but w is %s: b must be "
		            "[%lld] (w's out_features)", op, KRL_SHAPE(b, sb),
		            KRL_SHAPE(w, sw), (long long)n);
	krl_tensor want = *x;
	want.dim[x->ndim - 1] = n;
	if (!krl_ops_same_shape(y, &want)) {
		char sv[KRL_SHAPE_CAP];
		return krl_ops_fail(msg, cap, "%s: y is %s but x %s @ w^T (w %s) "
		            "gives %s", op, KRL_SHAPE(y, sy), KRL_SHAPE(x, sx),
		            KRL_SHAPE(w, sw), KRL_SHAPE(&want, sv));
	}
	return KRL_OK;
}

/* y[i, j] = sum_l x[i, l] * w[j, l] + b[j] in double, x's leading dims as
 * rows i. */
static krl_err golden_linear(const krl_tensor *in, const krl_tensor *out,
                             const krl_attrs *a)
{
	(void)a;
	const krl_tensor *x = &in[0];
	int64_t m = krl_ops_prod(x, 0, x->ndim - 1);
	int64_t k = x->dim[x->ndim - 1], n = in[1].dim[0];
	const double *px = D(x), *pw = D(&in[1]), *pb = D(&in[2]);
	double *py = D(&out[0]);
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			double s = 0;
			for (int64_t l = 0; l < k; l++)
				s += px[i * k + l] * pw[j * k + l];
			py[i * n + j] = s + pb[j];
		}
	return KRL_OK;
}

/* ==== diag ==== */

/* v must be a vector (torch.diag of a matrix, which extracts a diagonal,
 * is not this op); y is the square [n + |d|, n + |d|]. */
/* Deliberate twin: the check prologue is the same shape as other ops' checks
 * (keys, dtypes, then shapes) by design; the shared steps are helpers,
 * the names and messages are this op's own. */
static krl_err check_diag(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "diag";
	const krl_tensor *v = &in[0], *y = &out[0];
	char sv[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = check_diagonal(op, a, msg, cap)) ||
	    (r = krl_ops_need_f32(op, msg, cap, "v", v, "y", y, NULL)))
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
/* Deliberate twin: check_tri's prologue is check_diag's shape (diagonal,
 * dtypes, then shapes); the names and messages differ. */
static krl_err check_tri(const char *op, const krl_tensor *in,
                         const krl_tensor *out, const krl_attrs *a,
                         char *msg, size_t cap)
{
	const krl_tensor *x = &in[0], *y = &out[0];
	char sx[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = check_diagonal(op, a, msg, cap)))
		return r;
	/* f32, or bool (torch.tril(torch.ones(T, T, dtype=bool))) */
	if (x->dtype == KRL_BOOL && y->dtype != KRL_BOOL)
		return krl_ops_fail(msg, cap, "%s: x is bool, so y must be bool, "
		            "not %s", op, krl_dtype_name(y->dtype));
	if (x->dtype != KRL_BOOL &&
	    (r = krl_ops_need_f32(op, msg, cap, "x", x, "y", y, NULL)))
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

/* ==== Sequential sums (krl_op.seq_len) ==== */

/* cuBLASLt's fp32 kernels sum an output's K products in order. */
static int64_t seq_gemm(const krl_tensor *in, const krl_tensor *out,
                        const krl_attrs *a)
{
	(void)out;
	const krl_tensor *x = &in[0];
	int ta = krl_attrs_get(a, "ta", 0) != 0;
	return ta ? x->dim[x->ndim - 2] : x->dim[x->ndim - 1];
}

static int64_t seq_linear(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a)
{
	(void)out;
	(void)a;
	return in[0].dim[in[0].ndim - 1];
}

/* ==== Table ==== */

/* Table rows: one declaration per op, the same shape by design (a row is
 * the op's name, arity, attribute keys, caps and doc; duplicates lists them
 * as twins, deliberately). */

KRL_OP_SEQ(gemm, 2, 1, k_gemm, "matmul",
       KRL_OPCAP_LIBRARY | KRL_OPCAP_ALGO | KRL_OPCAP_EPILOGUE, NULL, seq_gemm,
       "c = alpha * op(a) @ op(b), batched over leading dims (b may have "
       "none); true fp32 through cuBLASLt");
KRL_OP_SEQ(linear, 3, 1, k_linear, "matmul",
       KRL_OPCAP_LIBRARY | KRL_OPCAP_ALGO | KRL_OPCAP_EPILOGUE, NULL, seq_linear,
       "y = x @ w^T + b (nn.Linear with bias): x [..., K] (leading "
       "dims as rows), w [N, K], b [N], y [..., N]; true fp32, one "
       "cuBLASLt matmul with its bias epilogue (addmm)");
KRL_OP(diag, 1, 1, k_diagonal, "matmul", KRL_OPCAP_LIBRARY, NULL,
       "y = torch.diag(v, diagonal): the vector v on the given diagonal of "
       "a square zero matrix [n + |diagonal|, n + |diagonal|]");
KRL_OP(triu, 1, 1, k_diagonal, "matmul", KRL_OPCAP_LIBRARY, NULL,
       "y = torch.triu(x, diagonal): x where column - row >= diagonal, "
       "else 0, over the last two dims (x, y f32 or bool)");
KRL_OP(tril, 1, 1, k_diagonal, "matmul", KRL_OPCAP_LIBRARY, NULL,
       "y = torch.tril(x, diagonal): x where column - row <= diagonal, "
       "else 0, over the last two dims (x, y f32 or bool)");

static const krl_op *const ops[] = { &op_gemm, &op_linear, &op_diag,
                                     &op_triu, &op_tril, NULL };

const krl_op_family krl_family_matmul = {
	"matmul", ops, KRL_RUNFN(krl_matmul_state_free),
};
