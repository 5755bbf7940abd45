/*
 * kernelrl: GPU drivers of the op family "norm" (family.c): tensors to
 * the launchers of softmax.cu, layernorm.cu and norm.cu, on the context's
 * stream (batchnorm's, with its backend choice and state, is in
 * batchnorm.c). Shapes and attributes have passed check(). Statistics and
 * partials go to the context's scratch after the reduction semaphores of
 * reduce.cu (which must stay zero), so no op allocates.
 */
#include <math.h>

#include "ops/norm/norm.h"
#include "ops/ops_int.h"
#include "runtime/cudacheck.h"

#define F(t) ((float *)(t)->data)

/* ==== softmax, log_softmax (softmax.cu), layernorm (layernorm.cu) ==== */

static krl_err softmax(krl_opctx *c, const krl_tensor *in,
                       const krl_tensor *out, const krl_attrs *a, int log_,
                       krl_diag *d)
{
	krl_rlayout l = krl_ops_layout(&in[0], krl_ops_dim(a, in[0].ndim));
	CUDA_TRY(d, krl_k_softmax(F(&in[0]), F(&out[0]), l.outer, l.r,
	                           l.inner, log_, c->stream));
	return KRL_OK;
}

KRL_RUN(softmax) { return softmax(c, in, out, a, 0, d); }
KRL_RUN(log_softmax) { return softmax(c, in, out, a, 1, d); }

KRL_RUN(layernorm)
{
	const krl_tensor *x = &in[0];
	int k = krl_norm_ln_axes(a, in);
	int64_t n = krl_ops_prod(x, x->ndim - k, x->ndim);
	int64_t rows = krl_ops_prod(x, 0, x->ndim - k);
	float eps = (float)krl_attrs_get(a, "eps", 1e-5);
	CUDA_TRY(d, krl_k_layernorm(F(x), F(&in[1]), F(&in[2]), F(&out[0]),
	                             rows, n, eps, c->stream));
	return KRL_OK;
}


/* The part of the scratch this family may use: after reduce.cu's
 * semaphores. */
static float *scratch(krl_opctx *c, int64_t *bytes)
{
	*bytes = (int64_t)c->scratch_bytes - KRL_REDUCE_SEM_BYTES;
	return (float *)((char *)c->scratch + KRL_REDUCE_SEM_BYTES);
}

/* KRL_EUNSUPPORTED when `floats` do not fit in the scratch. */
static krl_err need_scratch(krl_opctx *c, const char *op, int64_t floats,
                            krl_diag *d)
{
	int64_t bytes;
	scratch(c, &bytes);
	if (floats * (int64_t)sizeof(float) <= bytes)
		return KRL_OK;
	return krl_diag_set(d, KRL_EUNSUPPORTED, (krl_pos){0},
	                    "%s: needs %lld bytes of scratch, the context has "
	                    "%lld", op, (long long)(floats * 4),
	                    (long long)bytes);
}

/* ==== Normalisations ==== */

/* PyTorch's instance_norm: batch norm of x seen as [1, N * C, ...]. */
KRL_RUN(instancenorm)
{
	const krl_tensor *x = &in[0];
	int64_t nc = x->dim[0] * x->dim[1], m = krl_ops_prod(x, 2, x->ndim);
	int64_t bytes;
	krl_err r = need_scratch(c, "instancenorm", KRL_BN_SCRATCH_FLOATS(nc),
	                         d);
	if (r)
		return r;
	float *s = scratch(c, &bytes);
	CUDA_TRY(d, krl_kn_batchnorm(F(x), NULL, NULL, F(&out[0]), 1, nc, m,
	                              (float)krl_attrs_get(a, "eps", 1e-5),
	                              c->sm_count, s, bytes, c->stream));
	return KRL_OK;
}

KRL_RUN(groupnorm)
{
	const krl_tensor *x = &in[0];
	int64_t n = x->dim[0], ch = x->dim[1], m = krl_ops_prod(x, 2, x->ndim);
	int64_t g = (int64_t)krl_attrs_get(a, "groups", 1), bytes;
	/* one element per (n, c): GroupNorm1dForward keeps no a, b */
	int64_t need = 2 * n * g + (m == 1 ? 0 : 2 * n * ch);
	float *s = scratch(c, &bytes);
	if (need * (int64_t)sizeof(float) > bytes) {
		/* PyTorch allocates mean and rstd [N, G] per call; ours go to
		 * the context's temporary buffer when the scratch is short */
		void *t = NULL;
		krl_err r = krl_opctx_temp(c, (size_t)need * sizeof(float), &t,
		                           "groupnorm: its statistics", d);
		if (r)
			return r;
		s = t;
	}
	CUDA_TRY(d, krl_kn_groupnorm(F(x), F(&in[1]), F(&in[2]), F(&out[0]),
	                              n, ch, m, g,
	                              (float)krl_attrs_get(a, "eps", 1e-5),
	                              s, c->stream));
	return KRL_OK;
}

KRL_RUN(vector_norm)
{
	const krl_tensor *x = &in[0];
	int64_t n = krl_tensor_numel(x), r = n, bytes;
	if (!isnan(krl_attrs_get(a, "dim", NAN)))
		r = x->dim[krl_ops_dim(a, x->ndim)];
	float *s = scratch(c, &bytes);
	CUDA_TRY(d, krl_kn_vector_norm(F(x), F(&out[0]), n / r, r,
	                                c->sm_count, s, bytes, c->stream));
	return KRL_OK;
}

/* ==== Losses and attention ==== */

KRL_RUN(nll_loss)
{
	CUDA_TRY(d, krl_kn_nll_loss(F(&in[0]), (const int64_t *)in[1].data,
	                             F(&out[0]), in[0].dim[0], in[0].dim[1],
	                             c->stream));
	return KRL_OK;
}

KRL_RUN(sdpa)
{
	const krl_tensor *q = &in[0], *k = &in[1], *v = &in[2];
	int nd = q->ndim;
	CUDA_TRY(d, krl_kn_sdpa(F(q), F(k), F(v), F(&out[0]),
	                         krl_ops_prod(q, 0, nd - 2), q->dim[nd - 2],
	                         k->dim[nd - 2], q->dim[nd - 1],
	                         v->dim[nd - 1],
	                         (float)krl_norm_sdpa_scale(q, a),
	                         krl_norm_sdpa_flag(a, "causal"),
	                         krl_norm_sdpa_flag(a, "relu"), c->stream));
	return KRL_OK;
}
