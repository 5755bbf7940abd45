/*
 * kernelrl: GPU drivers of the "shape" family's ops (family.c): each maps
 * the op's tensors to the kernels of shape.cu (and, for pad's fill, the
 * reduce family's fill kernel) on the context's stream, the same launches
 * PyTorch makes, and turns a launch error into KRL_ECUDA with the place it
 * happened. Shapes and attributes are assumed to have passed check().
 */
#include <cuda_runtime.h>

#include "ops/ops_int.h"
#include "ops/reduce/reduce.h"
#include "ops/shape/shape.h"
#include "runtime/cudacheck.h"

#define F(t) ((float *)(t)->data)

/* ==== pad ====
 *
 * constant_pad_nd: with every amount <= 0 the result is a clone of the
 * cropped input, one copy (cudaMemcpyAsync when nothing is cropped);
 * otherwise the output is filled with value (the vectorised fill kernel)
 * and the cropped input copied into the padded output's interior (one
 * strided copy). */
KRL_RUN(pad)
{
	const krl_tensor *x = &in[0], *y = &out[0];
	int k;
	int64_t before[KRL_PAD_MAX_DIMS], after[KRL_PAD_MAX_DIMS];
	krl_pad_amounts(a, &k, before, after);
	int any_pos = 0, any_neg = 0;
	for (int i = 0; i < k; i++) {
		any_pos |= before[i] > 0 || after[i] > 0;
		any_neg |= before[i] < 0 || after[i] < 0;
	}
	int64_t ny = krl_tensor_numel(y);
	if (ny == 0)
		return KRL_OK;
	if (!any_pos && !any_neg) {
		CUDA_TRY(d, cudaMemcpyAsync(y->data, x->data,
		                            (size_t)ny * sizeof(float),
		                            cudaMemcpyDeviceToDevice,
		                            (cudaStream_t)c->stream));
		return KRL_OK;
	}
	if (any_pos)
		CUDA_TRY(d, krl_k_fill(F(y), ny, (float)krl_attrs_get(a, "value", 0),
		                        c->stream));
	/* The box: the unpadded leading dims as one, then the padded ones
	 * (first to last), each the part of x that lands in y. */
	krl_copy_box b;
	b.m = k + 1;
	b.size[0] = krl_ops_prod(x, 0, x->ndim - k);
	b.in_stride[0] = krl_ops_prod(x, x->ndim - k, x->ndim);
	b.out_stride[0] = krl_ops_prod(y, y->ndim - k, y->ndim);
	b.in_off = b.out_off = 0;
	for (int j = 1; j <= k; j++) {
		int dd = x->ndim - k + j - 1, i = k - j;   /* pad pair i */
		int64_t crop_b = before[i] < 0 ? -before[i] : 0;
		int64_t crop_a = after[i] < 0 ? -after[i] : 0;
		b.size[j] = x->dim[dd] - crop_b - crop_a;
		b.in_stride[j] = krl_ops_prod(x, dd + 1, x->ndim);
		b.out_stride[j] = krl_ops_prod(y, dd + 1, y->ndim);
		b.in_off += crop_b * b.in_stride[j];
		b.out_off += (before[i] > 0 ? before[i] : 0) * b.out_stride[j];
		if (b.size[j] <= 0)
			return KRL_OK;   /* nothing of x lands in y */
	}
	CUDA_TRY(d, krl_k_strided_copy(x->data, y->data, &b, sizeof(float),
	                                c->stream));
	return KRL_OK;
}

/* ==== roll ====
 *
 * roll_cuda: one kernel for one dim (or the flat tensor); for two dims
 * PyTorch's roll_common rolls the first dim into a new tensor and rolls
 * that along the second: two kernels, the intermediate in the context's
 * temporary buffer. */

/* x viewed as [outer, size, inner] around dim (the flat row when dim < 0),
 * rolled by shift into y. */
static krl_err roll1(krl_opctx *c, const void *x, void *y,
                     const krl_tensor *t, int dim, int64_t shift, krl_diag *d)
{
	int64_t n = krl_tensor_numel(t), size = n, inner = 1;
	if (dim >= 0) {
		krl_rlayout l = krl_ops_layout(t, dim);
		size = l.r;
		inner = l.inner;
	}
	CUDA_TRY(d, krl_k_roll(x, y, n, size, inner, krl_roll_start(size, shift),
	                        (int)krl_dtype_size(t->dtype), c->stream));
	return KRL_OK;
}

KRL_RUN(roll)
{
	const krl_tensor *x = &in[0];
	int64_t s0 = (int64_t)krl_attrs_get(a, "shift0", 0);
	if (!krl_ops_attr_has(a, "dim0"))
		return roll1(c, x->data, out[0].data, x, -1, s0, d);
	int d0 = krl_roll_dim(a, "dim0", x->ndim);
	if (!krl_ops_attr_has(a, "dim1"))
		return roll1(c, x->data, out[0].data, x, d0, s0, d);
	int64_t n = krl_tensor_numel(x);
	if (n == 0)
		return KRL_OK;
	void *t;
	krl_err r = krl_opctx_temp(c, (size_t)n * krl_dtype_size(x->dtype), &t,
	                           "roll: the tensor rolled along dim0", d);
	if (r)
		return r;
	if ((r = roll1(c, x->data, t, x, d0, s0, d)))
		return r;
	return roll1(c, t, out[0].data, x, krl_roll_dim(a, "dim1", x->ndim),
	             (int64_t)krl_attrs_get(a, "shift1", 0), d);
}

/* ==== index_select ==== */

KRL_RUN(index_select)
{
	krl_rlayout l = krl_ops_layout(&in[0], krl_ops_dim(a, in[0].ndim));
	CUDA_TRY(d, krl_k_index_select(F(&in[0]), (const int64_t *)in[1].data,
	                                F(&out[0]), l.outer, l.r, in[1].dim[0],
	                                l.inner, c->stream));
	return KRL_OK;
}

/* ==== permute ====
 *
 * x.permute(p).contiguous() is copy_ from the permuted view into a new
 * contiguous tensor: one TensorIterator copy over y, the input's offsets
 * through OffsetCalculator (krl_k_strided_copy, which merges the dims that
 * stay adjacent). y's dim i has x's stride of dim p_i; y is contiguous. */
KRL_RUN(permute)
{
	const krl_tensor *x = &in[0], *y = &out[0];
	int n = x->ndim, p[KRL_MAX_DIM];
	krl_permute_dims(a, n, p);
	krl_copy_box b;
	b.m = n;
	b.in_off = b.out_off = 0;
	for (int i = 0; i < n; i++) {
		b.size[i] = y->dim[i];
		b.out_stride[i] = krl_ops_prod(y, i + 1, n);
		b.in_stride[i] = krl_ops_prod(x, p[i] + 1, n);
	}
	CUDA_TRY(d, krl_k_strided_copy(x->data, y->data, &b,
	                                (int)krl_dtype_size(x->dtype), c->stream));
	return KRL_OK;
}
