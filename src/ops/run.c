/*
 * kernelrl: the GPU implementations of every op except gemm (gemm.c):
 * each maps the op's tensors to one of our kernels (kernels.h) on the
 * context's stream and turns a launch error into KRL_ECUDA with the place
 * it happened. Shapes and attributes are assumed to have passed check().
 */
#include <math.h>

#include <cuda_runtime.h>

#include "ops/kernels.h"
#include "ops/ops_int.h"

#define F(t) ((float *)(t)->data)

/* ==== Elementwise ==== */

static krl_err ew(krl_opctx *c, krl_ew_op op, const krl_tensor *in,
                  const krl_tensor *out, int binary, float alpha,
                  krl_diag *d)
{
	KRL_CUDA_TRY(krl_k_elementwise(op, F(&in[0]), binary ? F(&in[1]) : NULL,
	                               F(&out[0]), krl_tensor_numel(&out[0]),
	                               alpha, c->stream), d);
	return KRL_OK;
}

KRL_RUN(relu) { return ew(c, KRL_EW_RELU, in, out, 0, 1.f, d); }
KRL_RUN(square) { return ew(c, KRL_EW_SQUARE, in, out, 0, 1.f, d); }
KRL_RUN(add) { return ew(c, KRL_EW_ADD, in, out, 1, 1.f, d); }
KRL_RUN(sub) { return ew(c, KRL_EW_SUB, in, out, 1, 1.f, d); }
KRL_RUN(mul) { return ew(c, KRL_EW_MUL, in, out, 1, 1.f, d); }
KRL_RUN(div) { return ew(c, KRL_EW_DIV, in, out, 1, 1.f, d); }

KRL_RUN(gelu)
{
	int t = krl_attrs_get(a, "tanh", 0) != 0;
	return ew(c, t ? KRL_EW_GELU_TANH : KRL_EW_GELU, in, out, 0, 1.f, d);
}

KRL_RUN(scale)
{
	return ew(c, KRL_EW_SCALE, in, out, 0,
	          (float)krl_attrs_get(a, "alpha", 1), d);
}

/* A contiguous device-to-device copy, as copy_ of same-dtype contiguous
 * tensors is in PyTorch. */
KRL_RUN(copy)
{
	static const size_t size[KRL_DTYPE_COUNT] = {
		[KRL_F32] = 4, [KRL_F16] = 2, [KRL_BF16] = 2, [KRL_I32] = 4,
		[KRL_I64] = 8, [KRL_BOOL] = 1,
	};
	size_t bytes = (size_t)krl_tensor_numel(&in[0]) * size[in[0].dtype];
	if (bytes == 0 || in[0].data == out[0].data)
		return KRL_OK;
	KRL_CUDA_TRY(cudaMemcpyAsync(out[0].data, in[0].data, bytes,
	                             cudaMemcpyDeviceToDevice,
	                             (cudaStream_t)c->stream), d);
	return KRL_OK;
}

/* ==== Reductions ==== */

static krl_err reduce(krl_opctx *c, krl_red_op op, const krl_tensor *in,
                      const krl_tensor *out, const krl_attrs *a,
                      krl_diag *d)
{
	krl_rlayout l;
	int dim = krl_ops_dim(a, in[0].ndim);
	if (dim < 0) {
		/* mean of all elements */
		l.outer = 1;
		l.r = krl_tensor_numel(&in[0]);
		l.inner = 1;
	} else {
		l = krl_ops_layout(&in[0], dim);
	}
	KRL_CUDA_TRY(krl_k_reduce(op, F(&in[0]), out[0].data, l.outer, l.r,
	                          l.inner, c->scratch,
	                          (int64_t)c->scratch_bytes, c->sm_count,
	                          c->stream), d);
	return KRL_OK;
}

KRL_RUN(sum) { return reduce(c, KRL_RED_SUM, in, out, a, d); }
KRL_RUN(mean) { return reduce(c, KRL_RED_MEAN, in, out, a, d); }
KRL_RUN(max) { return reduce(c, KRL_RED_MAX, in, out, a, d); }
KRL_RUN(min) { return reduce(c, KRL_RED_MIN, in, out, a, d); }
KRL_RUN(argmax) { return reduce(c, KRL_RED_ARGMAX, in, out, a, d); }
KRL_RUN(argmin) { return reduce(c, KRL_RED_ARGMIN, in, out, a, d); }

/* ==== Along a dim ==== */

static krl_err softmax(krl_opctx *c, const krl_tensor *in,
                       const krl_tensor *out, const krl_attrs *a, int log_,
                       krl_diag *d)
{
	krl_rlayout l = krl_ops_layout(&in[0], krl_ops_dim(a, in[0].ndim));
	KRL_CUDA_TRY(krl_k_softmax(F(&in[0]), F(&out[0]), l.outer, l.r,
	                           l.inner, log_, c->stream), d);
	return KRL_OK;
}

KRL_RUN(softmax) { return softmax(c, in, out, a, 0, d); }
KRL_RUN(log_softmax) { return softmax(c, in, out, a, 1, d); }

/* CUB's temporaries go after the reduction semaphores, which must stay
 * zero. */
KRL_RUN(cumsum)
{
	krl_rlayout l = krl_ops_layout(&in[0], krl_ops_dim(a, in[0].ndim));
	char *tmp = (char *)c->scratch + KRL_REDUCE_SEM_BYTES;
	int64_t tmp_bytes = (int64_t)c->scratch_bytes - KRL_REDUCE_SEM_BYTES;
	KRL_CUDA_TRY(krl_k_cumsum(F(&in[0]), F(&out[0]), l.outer, l.r, l.inner,
	                          tmp, tmp_bytes, c->stream), d);
	return KRL_OK;
}

KRL_RUN(layernorm)
{
	const krl_tensor *x = &in[0];
	int k = krl_ops_ln_axes(a, in);
	int64_t n = krl_ops_prod(x, x->ndim - k, x->ndim);
	int64_t rows = krl_ops_prod(x, 0, x->ndim - k);
	float eps = (float)krl_attrs_get(a, "eps", 1e-5);
	KRL_CUDA_TRY(krl_k_layernorm(F(x), F(&in[1]), F(&in[2]), F(&out[0]),
	                             rows, n, eps, c->stream), d);
	return KRL_OK;
}
