/*
 * kernelrl: GPU drivers of the "reduce" family's ops (family.c): each
 * maps the op's tensors to a kernel of reduce.cu, reduce2.cu or scan.cu on
 * the context's stream and turns a launch error into KRL_ECUDA with the place it
 * happened. Shapes and attributes are assumed to have passed check().
 *
 * logsumexp is PyTorch's composite of nine kernels, the reductions of
 * reduce.cu and the elementwise kernels of the eltwise family
 * (ops/eltwise/eltwise.h); its temporaries (x - max is as large as x) live
 * in the family's state: one device buffer in the context's slot, grown
 * to the largest call outside graph captures, freed with the context.
 */
#include <math.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "ops/eltwise/eltwise.h"
#include "ops/ops_int.h"
#include "ops/reduce/reduce.h"
#include "runtime/cudacheck.h"


#define F(t) ((float *)(t)->data)

/* Bytes per element of t, for the copy kernels. */
static int esize(const krl_tensor *t)
{
	return (int)krl_dtype_size(t->dtype);
}

/* ==== Reductions over one dim (reduce.cu) ==== */

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
	CUDA_TRY(d, krl_k_reduce(op, F(&in[0]), out[0].data, l.outer, l.r,
	                          l.inner, c->scratch,
	                          (int64_t)c->scratch_bytes, c->sm_count,
	                          c->stream));
	return KRL_OK;
}

KRL_RUN(sum) { return reduce(c, KRL_RED_SUM, in, out, a, d); }
KRL_RUN(mean) { return reduce(c, KRL_RED_MEAN, in, out, a, d); }
KRL_RUN(max) { return reduce(c, KRL_RED_MAX, in, out, a, d); }
KRL_RUN(min) { return reduce(c, KRL_RED_MIN, in, out, a, d); }
KRL_RUN(argmax) { return reduce(c, KRL_RED_ARGMAX, in, out, a, d); }
KRL_RUN(argmin) { return reduce(c, KRL_RED_ARGMIN, in, out, a, d); }

/* ==== cumsum (scan.cu) ==== */

/* CUB's temporaries go after the reduction semaphores, which must stay
 * zero. */
KRL_RUN(cumsum)
{
	krl_rlayout l = krl_ops_layout(&in[0], krl_ops_dim(a, in[0].ndim));
	char *tmp = (char *)c->scratch + KRL_REDUCE_SEM_BYTES;
	int64_t tmp_bytes = (int64_t)c->scratch_bytes - KRL_REDUCE_SEM_BYTES;
	CUDA_TRY(d, krl_k_cumsum(F(&in[0]), F(&out[0]), l.outer, l.r, l.inner,
	                          tmp, tmp_bytes, c->stream));
	return KRL_OK;
}

/* ==== Pooling ==== */

static krl_err pool(krl_opctx *c, const krl_tensor *in,
                    const krl_tensor *out, const krl_attrs *a, int rank,
                    int avg, krl_diag *d)
{
	krl_pool g;
	krl_pool_geom(a, in[0].dim, in[0].ndim, rank, avg, &g);
	if (krl_tensor_numel(&out[0]) == 0)
		return KRL_OK;
	if (avg && rank < 3)
		CUDA_TRY(d, krl_k_avg_pool2d(F(&in[0]), F(&out[0]), &g,
		                              c->stream));
	else if (avg)
		CUDA_TRY(d, krl_k_avg_pool3d(F(&in[0]), F(&out[0]), &g,
		                              c->stream));
	else if (rank < 3)
		CUDA_TRY(d, krl_k_max_pool2d(F(&in[0]), F(&out[0]),
		                              (int64_t *)out[1].data, &g,
		                              c->stream));
	else
		CUDA_TRY(d, krl_k_max_pool3d(F(&in[0]), F(&out[0]),
		                              (int64_t *)out[1].data, &g,
		                              c->stream));
	return KRL_OK;
}

KRL_RUN(max_pool1d) { return pool(c, in, out, a, 1, 0, d); }
KRL_RUN(max_pool2d) { return pool(c, in, out, a, 2, 0, d); }
KRL_RUN(max_pool3d) { return pool(c, in, out, a, 3, 0, d); }
KRL_RUN(avg_pool1d) { return pool(c, in, out, a, 1, 1, d); }
KRL_RUN(avg_pool2d) { return pool(c, in, out, a, 2, 1, d); }
KRL_RUN(avg_pool3d) { return pool(c, in, out, a, 3, 1, d); }

/* ==== prod, cumprod ==== */

KRL_RUN(prod)
{
	krl_rlayout l = krl_ops_layout(&in[0], krl_ops_dim(a, in[0].ndim));
	CUDA_TRY(d, krl_k_prod(F(&in[0]), F(&out[0]), l.outer, l.r, l.inner,
	                        c->scratch, (int64_t)c->scratch_bytes,
	                        c->sm_count, c->stream));
	return KRL_OK;
}

/* CUB's temporaries go after the reduction semaphores, which must stay
 * zero. */
KRL_RUN(cumprod)
{
	krl_rlayout l = krl_ops_layout(&in[0], krl_ops_dim(a, in[0].ndim));
	char *tmp = (char *)c->scratch + KRL_REDUCE_SEM_BYTES;
	int64_t tmp_bytes = (int64_t)c->scratch_bytes - KRL_REDUCE_SEM_BYTES;
	CUDA_TRY(d, krl_k_cumprod(F(&in[0]), F(&out[0]), l.outer, l.r,
	                           l.inner, tmp, tmp_bytes, c->stream));
	return KRL_OK;
}

/* ==== Copies ==== */

KRL_RUN(flip)
{
	krl_rlayout l = krl_ops_layout(&in[0], krl_ops_dim(a, in[0].ndim));
	CUDA_TRY(d, krl_k_gather_dim(in[0].data, out[0].data, l.outer, l.r,
	                              l.r, l.inner, l.r - 1, -1,
	                              esize(&in[0]), c->stream));
	return KRL_OK;
}

KRL_RUN(narrow)
{
	int dim = krl_ops_dim(a, in[0].ndim);
	krl_rlayout l = krl_ops_layout(&in[0], dim);
	int64_t start = (int64_t)krl_attrs_get(a, "start", 0);
	CUDA_TRY(d, krl_k_gather_dim(in[0].data, out[0].data, l.outer, l.r,
	                              out[0].dim[dim], l.inner, start, 1,
	                              esize(&in[0]), c->stream));
	return KRL_OK;
}

KRL_RUN(cat)
{
	int dim = krl_ops_dim(a, in[0].ndim);
	krl_rlayout l = krl_ops_layout(&in[0], dim);
	int nin = a->nin > 2 ? a->nin : 2;
	if (nin > 2) {
		const void *x[KRL_MAX_CALL_IN];
		int64_t r[KRL_MAX_CALL_IN];
		for (int q = 0; q < nin; q++) {
			x[q] = in[q].data;
			r[q] = in[q].dim[dim];
		}
		CUDA_TRY(d, krl_k_catn(x, r, nin, out[0].data, l.outer, l.inner,
		                        esize(&in[0]), c->sm_count, c->stream));
		return KRL_OK;
	}
	CUDA_TRY(d, krl_k_cat2(in[0].data, in[1].data, out[0].data, l.outer,
	                        l.r, in[1].dim[dim], l.inner,
	                        esize(&in[0]), c->sm_count, c->stream));
	return KRL_OK;
}

KRL_RUN(fill)
{
	(void)in;
	if (out[0].dtype == KRL_BOOL)
		CUDA_TRY(d, krl_k_fill_bool((unsigned char *)out[0].data,
		                             krl_tensor_numel(&out[0]),
		                             krl_attrs_get(a, "value", 0) != 0,
		                             c->stream));
	else
		CUDA_TRY(d, krl_k_fill(F(&out[0]), krl_tensor_numel(&out[0]),
		                        (float)krl_attrs_get(a, "value", 0),
		                        c->stream));
	return KRL_OK;
}

KRL_RUN(mul_mask)
{
	(void)a;
	CUDA_TRY(d, krl_k_mul_mask(F(&in[0]),
	                            (const unsigned char *)in[1].data,
	                            F(&out[0]), krl_tensor_numel(&out[0]),
	                            c->stream));
	return KRL_OK;
}

/* ==== logsumexp ==== */

/* n elements of esize bytes, rounded up to 256 bytes (so that every
 * temporary is as aligned as cudaMalloc's memory). */
static size_t span256(int64_t n, size_t esize)
{
	return ((size_t)n * esize + 255) & ~(size_t)255;
}

/* torch.logsumexp(x, dim) as logsumexp_out_impl runs it, nine kernels:
 *   maxes = amax(x, dim, keepdim)            reduce (max)
 *   maxes.masked_fill_(maxes.abs() == inf, 0) abs, == inf (bool), masked_fill
 *   t = x - maxes                            broadcast sub into a temporary
 *   t.exp_()                                 exp in place
 *   y = sum(t, dim)                          reduce (sum)
 *   y.log_().add_(maxes)                     log, add in place
 * so a row of -inf gives log(0) + 0 = -inf and a row holding +inf gives
 * +inf, as PyTorch's. Temporaries: t (x's size), maxes, |maxes| (y's
 * size, float) and the mask (y's size, bool). */
KRL_RUN(logsumexp)
{
	krl_rlayout l = krl_ops_layout(&in[0], krl_ops_dim(a, in[0].ndim));
	int64_t nx = krl_tensor_numel(&in[0]), ny = l.outer * l.inner;
	if (nx == 0)
		return KRL_OK;
	size_t ot = 0, om = ot + span256(nx, 4), oa = om + span256(ny, 4);
	size_t ok = oa + span256(ny, 4), bytes = ok + span256(ny, 1);
	void *buf = NULL;
	krl_err r = krl_opctx_temp(c, bytes, &buf, "logsumexp: its temporaries",
	                           d);
	if (r)
		return r;
	float *t = (float *)((char *)buf + ot);
	float *maxes = (float *)((char *)buf + om);
	float *absm = (float *)((char *)buf + oa);
	unsigned char *inf = (unsigned char *)buf + ok;
	float *y = F(&out[0]);
	/* x [outer, r, inner] and maxes [outer, 1, inner] over t's dims */
	int64_t dim[3] = { l.outer, l.r, l.inner };
	int64_t sx[3] = { l.r * l.inner, l.inner, 1 };
	int64_t sm[3] = { l.inner, 0, 1 };
	CUDA_TRY(d, krl_k_reduce(KRL_RED_MAX, F(&in[0]), maxes, l.outer, l.r,
	                          l.inner, c->scratch,
	                          (int64_t)c->scratch_bytes, c->sm_count,
	                          c->stream));
	CUDA_TRY(d, krl_k_eltwise(KRL_ELT_ABS, maxes, absm, ny, 0.f, 0.f,
	                           c->stream));
	CUDA_TRY(d, krl_k_eq_scalar(absm, inf, ny, INFINITY, c->stream));
	CUDA_TRY(d, krl_k_masked(KRL_MASK_FILL, maxes, inf, maxes, ny, 0.f,
	                          c->stream));
	CUDA_TRY(d, krl_k_broadcast(KRL_EW_SUB, F(&in[0]), maxes, t, 3, dim,
	                             sx, sm, c->stream));
	CUDA_TRY(d, krl_k_eltwise(KRL_ELT_EXP, t, t, nx, 0.f, 0.f,
	                           c->stream));
	CUDA_TRY(d, krl_k_reduce(KRL_RED_SUM, t, y, l.outer, l.r, l.inner,
	                          c->scratch, (int64_t)c->scratch_bytes,
	                          c->sm_count, c->stream));
	CUDA_TRY(d, krl_k_eltwise(KRL_ELT_LOG, y, y, ny, 0.f, 0.f,
	                           c->stream));
	CUDA_TRY(d, krl_k_elementwise(KRL_EW_ADD, y, maxes, y, ny, 0.f,
	                               c->stream));
	return KRL_OK;
}
