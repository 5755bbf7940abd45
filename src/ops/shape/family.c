/*
 * kernelrl: the op family "shape" (docs/ops-shape.md): the data-movement
 * ops of the level-3 networks, pad (F.pad with a constant), roll
 * (torch.roll over the flat tensor, one dim or two), index_select
 * (x[idx] with a 1-D int64 idx along one dim) and permute
 * (x.permute(p).contiguous(), transpose(a, b).contiguous()).
 *
 * This file is CPU code only: the table, every op's check and its float64
 * golden version. The GPU drivers are in run.c (kernels in shape.cu),
 * named here through KRL_RUNFN so that the fuzzers can build the table
 * without GPU code.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/ops_int.h"
#include "ops/shape/shape.h"

#define D(t) ((double *)(t)->data)

/* Largest |value| of an integer attribute (pads, shifts). */
#define BIG_INT 9.0e15

/* An optional integer attribute in [lo, hi]. */
static krl_err need_int(const char *op, const krl_attrs *a, const char *key,
                        double lo, double hi, char *msg, size_t cap)
{
	if (!krl_ops_attr_has(a, key))
		return KRL_OK;
	double v = krl_attrs_get(a, key, 0);
	if (v != floor(v) || v < lo || v > hi)
		return krl_ops_fail(msg, cap, "%s: %s=%g must be an integer in %g .. %g",
		            op, key, v, lo, hi);
	return KRL_OK;
}

/* x and y must have one dtype that the copy kernels move (any sized one). */
static krl_err need_same_dtype(const char *op, const krl_tensor *x,
                               const krl_tensor *y, char *msg, size_t cap)
{
	if (x->dtype != y->dtype || !krl_dtype_size(x->dtype))
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: dtypes must be "
		            "equal", op, krl_dtype_name(x->dtype),
		            krl_dtype_name(y->dtype));
	return KRL_OK;
}

/* The coordinates of flat index k of a tensor of dims dim[0..n). */
static void unflatten(int64_t k, const int64_t *dim, int n, int64_t *c)
{
	for (int i = n - 1; i >= 0; i--) {
		c[i] = dim[i] ? k % dim[i] : 0;
		k = dim[i] ? k / dim[i] : 0;
	}
}

/* The flat index of coordinates c in dims dim[0..n). */
static int64_t flatten(const int64_t *c, const int64_t *dim, int n)
{
	int64_t k = 0;
	for (int i = 0; i < n; i++)
		k = k * dim[i] + c[i];
	return k;
}

/* ==== pad ==== */

static const char *const k_pad[] = { "pad0", "pad1", "pad2", "pad3", "pad4",
	"pad5", "pad6", "pad7", "value", NULL };

void krl_pad_amounts(const krl_attrs *a, int *k, int64_t *before,
                     int64_t *after)
{
	int n = 0;
	while (n < 2 * KRL_PAD_MAX_DIMS && krl_ops_attr_has(a, k_pad[n]))
		n++;
	*k = n / 2;
	for (int i = 0; i < *k; i++) {
		before[i] = (int64_t)krl_attrs_get(a, k_pad[2 * i], 0);
		after[i] = (int64_t)krl_attrs_get(a, k_pad[2 * i + 1], 0);
	}
}

/* pad: x -> y (f32), F.pad(x, (pad0, pad1, pad2, ...), value=value):
 * pad{2i} and pad{2i+1} are the amounts before and after dim ndim-1-i, a
 * list without gaps and of even length, at most 2 * ndim of x long;
 * negative amounts crop (PyTorch's constant_pad_nd allows them, narrowing
 * x first) as long as no dim is cropped by more than its size and none
 * becomes negative; value finite (0 by default). */
static krl_err check_pad(const krl_tensor *in, const krl_tensor *out,
                         const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "pad";
	const krl_tensor *x = &in[0], *y = &out[0];
	char sx[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP], sw[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_pad, a, msg, cap)) ||
	    (r = krl_ops_need_f32(op, msg, cap, "x", x, "y", y, NULL)) ||
	    (r = krl_ops_need_finite(op, a, "value", msg, cap)))
		return r;
	int n = 0;
	for (int i = 0; i < 2 * KRL_PAD_MAX_DIMS; i++) {
		if ((r = need_int(op, a, k_pad[i], -BIG_INT, BIG_INT, msg, cap)))
			return r;
		if (krl_ops_attr_has(a, k_pad[i]))
			n = i + 1;
	}
	for (int i = 0; i < n; i++)
		if (!krl_ops_attr_has(a, k_pad[i]))
			return krl_ops_fail(msg, cap, "%s: %s is given but %s is not: the "
			            "amounts are F.pad's list pad0, pad1, ... without "
			            "gaps", op, k_pad[n - 1], k_pad[i]);
	if (n % 2)
		return krl_ops_fail(msg, cap, "%s: %s has no %s: amounts come in "
		            "(before, after) pairs per dim", op, k_pad[n - 1],
		            k_pad[n]);
	if (n / 2 > x->ndim)
		return krl_ops_fail(msg, cap, "%s: x is %s but pad0 .. %s pad %d dims",
		            op, KRL_SHAPE(x, sx), k_pad[n - 1], n / 2);
	int k;
	int64_t before[KRL_PAD_MAX_DIMS], after[KRL_PAD_MAX_DIMS];
	krl_pad_amounts(a, &k, before, after);
	krl_tensor want = *x;
	for (int i = 0; i < k; i++) {
		int dd = x->ndim - 1 - i;
		want.dim[dd] = x->dim[dd] + before[i] + after[i];
		int64_t crop = (before[i] < 0 ? -before[i] : 0) +
		               (after[i] < 0 ? -after[i] : 0);
		if (crop > x->dim[dd] && want.dim[dd] >= 0)
			return krl_ops_fail(msg, cap, "%s: x is %s: dim %d (padded by "
			            "%lld and %lld) is cropped by %lld, more than "
			            "its size (F.pad narrows x first)", op,
			            KRL_SHAPE(x, sx), dd, (long long)before[i],
			            (long long)after[i], (long long)crop);
		if (want.dim[dd] < 0)
			return krl_ops_fail(msg, cap, "%s: x is %s: dim %d padded by %lld "
			            "and %lld would have a negative size", op,
			            KRL_SHAPE(x, sx), dd, (long long)before[i],
			            (long long)after[i]);
	}
	if (!krl_ops_same_shape(&want, y))
		return krl_ops_fail(msg, cap, "%s: x is %s, so y must be %s, not %s", op,
		            KRL_SHAPE(x, sx), KRL_SHAPE(&want, sw), KRL_SHAPE(y, sy));
	return KRL_OK;
}

/* Each output element: the input element it lies on, else value
 * (rounded to f32, as PyTorch fills a float tensor). */
static krl_err golden_pad(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a)
{
	const krl_tensor *x = &in[0], *y = &out[0];
	int k;
	int64_t before[KRL_PAD_MAX_DIMS], after[KRL_PAD_MAX_DIMS];
	krl_pad_amounts(a, &k, before, after);
	double v = (double)(float)krl_attrs_get(a, "value", 0);
	int64_t n = krl_tensor_numel(y), c[KRL_MAX_DIM];
	for (int64_t e = 0; e < n; e++) {
		unflatten(e, y->dim, y->ndim, c);
		int inside = 1;
		for (int i = 0; i < k; i++) {
			int dd = y->ndim - 1 - i;
			c[dd] -= before[i];
			inside &= c[dd] >= 0 && c[dd] < x->dim[dd];
		}
		D(y)[e] = inside ? D(x)[flatten(c, x->dim, x->ndim)] : v;
	}
	return KRL_OK;
}

/* ==== roll ==== */

static const char *const k_roll[] = { "dim0", "shift0", "dim1", "shift1",
	NULL };

int krl_roll_dim(const krl_attrs *a, const char *key, int ndim)
{
	int d = (int)krl_attrs_get(a, key, 0);
	return d < 0 ? d + ndim : d;
}

/* roll: x -> y of x's shape and dtype, torch.roll(x, shifts, dims) with
 * shifts = (shift0[, shift1]) and dims = (dim0[, dim1]); without dim0, x
 * is rolled as one flat row (torch.roll without dims). Any integer shift
 * (negative or longer than the dim: it wraps). */
static krl_err check_roll(const krl_tensor *in, const krl_tensor *out,
                          const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "roll";
	const krl_tensor *x = &in[0], *y = &out[0];
	char sx[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_roll, a, msg, cap)) ||
	    (r = need_same_dtype(op, x, y, msg, cap)))
		return r;
	if (!krl_ops_attr_has(a, "shift0"))
		return krl_ops_fail(msg, cap, "%s: attribute shift0 is required", op);
	if ((r = need_int(op, a, "shift0", -BIG_INT, BIG_INT, msg, cap)) ||
	    (r = need_int(op, a, "shift1", -BIG_INT, BIG_INT, msg, cap)) ||
	    (r = need_int(op, a, "dim0", -x->ndim, x->ndim - 1, msg, cap)) ||
	    (r = need_int(op, a, "dim1", -x->ndim, x->ndim - 1, msg, cap)))
		return r;
	int has_d1 = krl_ops_attr_has(a, "dim1");
	if (has_d1 != krl_ops_attr_has(a, "shift1"))
		return krl_ops_fail(msg, cap, "%s: %s needs %s: shifts and dims pair up "
		            "as torch.roll's", op, has_d1 ? "dim1" : "shift1",
		            has_d1 ? "shift1" : "dim1");
	if (has_d1 && !krl_ops_attr_has(a, "dim0"))
		return krl_ops_fail(msg, cap, "%s: dim1 needs dim0: shifts and dims "
		            "pair up as torch.roll's", op);
	if (!krl_ops_same_shape(x, y))
		return krl_ops_fail(msg, cap, "%s: x is %s but y is %s: shapes must be "
		            "equal", op, KRL_SHAPE(x, sx), KRL_SHAPE(y, sy));
	return KRL_OK;
}

/* The start of a roll by shift over a dim of size n: y[j] = x[(j + start)
 * % n], start = (n - shift) mod n in [0, n) (0 when n is 0). */
int64_t krl_roll_start(int64_t n, int64_t shift)
{
	if (n <= 0)
		return 0;
	int64_t s = (n - shift % n) % n;
	return s < 0 ? s + n : s;
}

/* y at coordinates c is x at c with each rolled dim advanced by its start
 * (a dim rolled twice advances by both). */
static krl_err golden_roll(const krl_tensor *in, const krl_tensor *out,
                           const krl_attrs *a)
{
	const krl_tensor *x = &in[0];
	int64_t n = krl_tensor_numel(x);
	krl_tensor v = *x;
	int d0 = 0, d1 = -1;
	if (krl_ops_attr_has(a, "dim0")) {
		d0 = krl_roll_dim(a, "dim0", x->ndim);
		if (krl_ops_attr_has(a, "dim1"))
			d1 = krl_roll_dim(a, "dim1", x->ndim);
	} else {
		v.ndim = 1;
		v.dim[0] = n;
	}
	int64_t s0 = krl_roll_start(v.dim[d0],
	                            (int64_t)krl_attrs_get(a, "shift0", 0));
	int64_t s1 = d1 < 0 ? 0 : krl_roll_start(v.dim[d1],
	                            (int64_t)krl_attrs_get(a, "shift1", 0));
	int64_t c[KRL_MAX_DIM];
	for (int64_t e = 0; e < n; e++) {
		unflatten(e, v.dim, v.ndim, c);
		c[d0] = (c[d0] + s0) % v.dim[d0];
		if (d1 >= 0)
			c[d1] = (c[d1] + s1) % v.dim[d1];
		D(&out[0])[e] = D(x)[flatten(c, v.dim, v.ndim)];
	}
	return KRL_OK;
}

/* ==== index_select ==== */

static const char *const k_dim[] = { "dim", NULL };

/* index_select: x (f32), idx (i64, 1-D) -> y (f32), y = x.index_select(dim,
 * idx) = x[..., idx, ...]: x's shape with dim's size replaced by idx's
 * length. The check cannot see idx's values: the golden version fails on
 * an index outside [0, size of dim), the GPU version writes NaN there. */
static krl_err check_index_select(const krl_tensor *in, const krl_tensor *out,
                                  const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "index_select";
	const krl_tensor *x = &in[0], *idx = &in[1], *y = &out[0];
	char sx[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP], sw[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_dim, a, msg, cap)) ||
	    (r = krl_ops_need_f32(op, msg, cap, "x", x, "y", y, NULL)) ||
	    (r = krl_ops_need_dtype(op, "idx", idx, KRL_I64, msg, cap)) ||
	    (r = krl_ops_need_dim(op, x, a, msg, cap)))
		return r;
	if (idx->ndim != 1)
		return krl_ops_fail(msg, cap, "%s: idx is %s but must be 1-D (a "
		            "multi-dim index is a view of a 1-D one)", op,
		            KRL_SHAPE(idx, sx));
	int d = krl_ops_dim(a, x->ndim);
	if (x->dim[d] == 0 && idx->dim[0] > 0)
		return krl_ops_fail(msg, cap, "%s: x is %s: cannot select from dim %d "
		            "of size 0", op, KRL_SHAPE(x, sx), d);
	krl_tensor want = *x;
	want.dim[d] = idx->dim[0];
	if (!krl_ops_same_shape(&want, y))
		return krl_ops_fail(msg, cap, "%s: x is %s and idx has %lld indices, so "
		            "y must be %s, not %s", op, KRL_SHAPE(x, sx),
		            (long long)idx->dim[0], KRL_SHAPE(&want, sw),
		            KRL_SHAPE(y, sy));
	return KRL_OK;
}

/* KRL_EINVAL (nothing written) when an index is not an integer in [0,
 * size of dim), where PyTorch raises. */
static krl_err golden_index_select(const krl_tensor *in, const krl_tensor *out,
                                   const krl_attrs *a)
{
	const krl_tensor *x = &in[0], *idx = &in[1];
	krl_rlayout l = krl_ops_layout(x, krl_ops_dim(a, x->ndim));
	int64_t m = idx->dim[0];
	for (int64_t j = 0; j < m; j++) {
		double v = D(idx)[j];
		if (!(v >= 0 && v < (double)l.r) || v != floor(v))
			return KRL_EINVAL;
	}
	for (int64_t o = 0; o < l.outer; o++)
		for (int64_t j = 0; j < m; j++)
			for (int64_t i = 0; i < l.inner; i++)
				D(&out[0])[(o * m + j) * l.inner + i] =
					D(x)[(o * l.r + (int64_t)D(idx)[j]) *
					     l.inner + i];
	return KRL_OK;
}

/* ==== permute ==== */

static const char *const k_permute[] = { "p0", "p1", "p2", "p3", "p4", "p5",
	"p6", "p7", NULL };

void krl_permute_dims(const krl_attrs *a, int ndim, int *p)
{
	for (int i = 0; i < ndim; i++)
		p[i] = (int)krl_attrs_get(a, k_permute[i], 0);
}

/* permute: x -> y of x's dtype (any sized one), y = x.permute(p0, ...,
 * p{n-1}).contiguous() with n = x's rank (1 .. 8): y's dim i is x's dim
 * p_i, so y[c_0, ..., c_{n-1}] = x at coordinate c_i in dim p_i. Exactly
 * p0 .. p{n-1} are given (no negative dims: a plan spells them out), each
 * of 0 .. n-1 once; y's dims are x's permuted. */
static krl_err check_permute(const krl_tensor *in, const krl_tensor *out,
                             const krl_attrs *a, char *msg, size_t cap)
{
	const char *op = "permute";
	const krl_tensor *x = &in[0], *y = &out[0];
	char sx[KRL_SHAPE_CAP], sy[KRL_SHAPE_CAP], sw[KRL_SHAPE_CAP];
	krl_err r;
	if ((r = krl_ops_check_keys(op, k_permute, a, msg, cap)) ||
	    (r = need_same_dtype(op, x, y, msg, cap)))
		return r;
	int n = x->ndim;
	if (n < 1)
		return krl_ops_fail(msg, cap, "%s: x is a scalar: there is nothing "
		            "to permute", op);
	for (int i = 0; i < KRL_MAX_DIM; i++) {
		int has = krl_ops_attr_has(a, k_permute[i]);
		if (i < n && !has)
			return krl_ops_fail(msg, cap, "%s: x is %s, so p0 .. p%d are "
			            "required and %s is missing", op,
			            KRL_SHAPE(x, sx), n - 1, k_permute[i]);
		if (i >= n && has)
			return krl_ops_fail(msg, cap, "%s: x is %s, so p0 .. p%d are "
			            "given and %s is one too many", op,
			            KRL_SHAPE(x, sx), n - 1, k_permute[i]);
	}
	int seen = 0;
	for (int i = 0; i < n; i++) {
		if ((r = need_int(op, a, k_permute[i], 0, n - 1, msg, cap)))
			return r;
		int d = (int)krl_attrs_get(a, k_permute[i], 0);
		if (seen & (1 << d))
			return krl_ops_fail(msg, cap, "%s: dim %d is named twice (p0 .. "
			            "p%d must name each of x's dims once)", op, d,
			            n - 1);
		seen |= 1 << d;
	}
	int p[KRL_MAX_DIM];
	krl_permute_dims(a, n, p);
	krl_tensor want = *x;
	for (int i = 0; i < n; i++)
		want.dim[i] = x->dim[p[i]];
	if (!krl_ops_same_shape(&want, y))
		return krl_ops_fail(msg, cap, "%s: x is %s, so y must be %s, not %s", op,
		            KRL_SHAPE(x, sx), KRL_SHAPE(&want, sw), KRL_SHAPE(y, sy));
	return KRL_OK;
}

/* Element by element over y: its coordinates c, x's coordinates c' with
 * c'[p_i] = c_i. */
static krl_err golden_permute(const krl_tensor *in, const krl_tensor *out,
                              const krl_attrs *a)
{
	const krl_tensor *x = &in[0], *y = &out[0];
	int n = x->ndim, p[KRL_MAX_DIM];
	krl_permute_dims(a, n, p);
	int64_t m = krl_tensor_numel(y), c[KRL_MAX_DIM], cx[KRL_MAX_DIM];
	for (int64_t e = 0; e < m; e++) {
		unflatten(e, y->dim, n, c);
		for (int i = 0; i < n; i++)
			cx[p[i]] = c[i];
		D(y)[e] = D(x)[flatten(cx, x->dim, n)];
	}
	return KRL_OK;
}

/* ==== Table ==== */

#define SH_OP(nm, ni, no, keys, dc) \
	KRL_OP(nm, ni, no, keys, "shape", KRL_OPCAP_LIBRARY, NULL, dc)

SH_OP(pad, 1, 1, k_pad, "y = F.pad(x, (pad0, pad1, pad2, ...), value=value "
      "(0)): pad{2i}, pad{2i+1} are the amounts before and after the i-th "
      "dim from the last (up to 4 dims; negative crops)");
SH_OP(roll, 1, 1, k_roll, "y = torch.roll(x, (shift0[, shift1]), (dim0[, "
      "dim1])), shifts wrap; without dim0 the flat tensor is rolled (any "
      "dtype)");
SH_OP(index_select, 2, 1, k_dim, "y = x.index_select(dim, idx) = x[..., idx, "
      "...] along dim, idx a 1-D i64 tensor of indices in [0, size)");
SH_OP(permute, 1, 1, k_permute, "y = x.permute(p0, ..., p{n-1}).contiguous() "
      "(also transpose(a, b).contiguous()): y's dim i is x's dim p_i, p0 .. "
      "p{n-1} given for x of rank n (1 .. 8), any dtype");

static const krl_op *const ops[] = {
	&op_pad, &op_roll, &op_index_select, &op_permute, NULL
};

const krl_op_family krl_family_shape = {
	"shape", ops, NULL,
};
