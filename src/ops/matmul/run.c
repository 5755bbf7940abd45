/*
 * kernelrl: GPU drivers of the op family "matmul" (docs/ops-matmul.md):
 * each maps the op's tensors to a launcher of matmul.cu on the context's
 * stream and turns a launch error into KRL_ECUDA with the place it
 * happened. Shapes and attributes are assumed to have passed the op's
 * check (family.c).
 */
#include "ops/matmul/matmul.h"
#include "ops/ops_int.h"
#include "runtime/cudacheck.h"

#define F(t) ((float *)(t)->data)

/* The `diagonal` attribute (check() made it an integer, |k| <= 2^52). */
static int64_t diagonal_of(const krl_attrs *a)
{
	return (int64_t)krl_attrs_get(a, "diagonal", 0);
}

/* torch.diag(v, k): a zero fill of y, then v onto the k-th diagonal. */
KRL_RUN(diag)
{
	CUDA_TRY(d, krl_k_diag(F(&in[0]), F(&out[0]), in[0].dim[0],
	                        diagonal_of(a), c->stream));
	return KRL_OK;
}

/* One masking pass over x seen as [batch, rows, cols]. */
static krl_err tri(krl_opctx *c, const krl_tensor *in, const krl_tensor *out,
                   const krl_attrs *a, int upper, krl_diag *d)
{
	const krl_tensor *x = &in[0];
	int64_t rows = x->dim[x->ndim - 2], cols = x->dim[x->ndim - 1];
	int64_t batch = krl_ops_prod(x, 0, x->ndim - 2);
	CUDA_TRY(d, krl_k_triu_tril(x->data, out[0].data,
	                             krl_dtype_size(x->dtype), batch, rows,
	                             cols, diagonal_of(a), upper, c->stream));
	return KRL_OK;
}

KRL_RUN(triu) { return tri(c, in, out, a, 1, d); }
KRL_RUN(tril) { return tri(c, in, out, a, 0, d); }
