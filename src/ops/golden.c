/*
 * kernelrl: float64 CPU golden versions of every op (docs/ops.md).
 *
 * These are the references the GPU ops are tested against: plain loops in
 * double precision, written for obviousness rather than speed. Tensors hold
 * host doubles (i64 outputs too). Each function assumes the op's check()
 * accepted the shapes and attributes; none can fail except gemm, which
 * returns KRL_OK always as well (the krl_err return is for the interface).
 */
#include <math.h>
#include <string.h>

#include "ops/ops_int.h"

#define D(t) ((double *)(t)->data)

/* ==== GEMM ==== */

/* c[b] = alpha * op(a[b]) @ op(b[b or 0]) in double. */
KRL_GOLDEN(gemm)
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

/* ==== Elementwise ==== */

static double gelu_erf(double x)
{
	return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}

static double gelu_tanh(double x)
{
	const double k = sqrt(2.0 / M_PI);
	return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
}

KRL_GOLDEN(relu)
{
	int64_t n = krl_tensor_numel(&in[0]);
	for (int64_t i = 0; i < n; i++) {
		double x = D(&in[0])[i];
		D(&out[0])[i] = isnan(x) ? x : (x > 0 ? x : 0.0);
	}
	return KRL_OK;
}

KRL_GOLDEN(gelu)
{
	int64_t n = krl_tensor_numel(&in[0]);
	int tanh_ = krl_attrs_get(a, "tanh", 0) != 0;
	for (int64_t i = 0; i < n; i++) {
		double x = D(&in[0])[i];
		D(&out[0])[i] = tanh_ ? gelu_tanh(x) : gelu_erf(x);
	}
	return KRL_OK;
}

KRL_GOLDEN(square)
{
	int64_t n = krl_tensor_numel(&in[0]);
	for (int64_t i = 0; i < n; i++)
		D(&out[0])[i] = D(&in[0])[i] * D(&in[0])[i];
	return KRL_OK;
}

KRL_GOLDEN(scale)
{
	int64_t n = krl_tensor_numel(&in[0]);
	double alpha = krl_attrs_get(a, "alpha", 1);
	for (int64_t i = 0; i < n; i++)
		D(&out[0])[i] = alpha * D(&in[0])[i];
	return KRL_OK;
}

KRL_GOLDEN(copy)
{
	memmove(out[0].data, in[0].data,
	        (size_t)krl_tensor_numel(&in[0]) * sizeof(double));
	return KRL_OK;
}

#define BINARY_GOLDEN(name, expr)                                          \
	KRL_GOLDEN(name)                                                   \
	{                                                                  \
		int64_t n = krl_tensor_numel(&in[0]);                      \
		const double *x = D(&in[0]), *y = D(&in[1]);               \
		for (int64_t i = 0; i < n; i++)                            \
			D(&out[0])[i] = (expr);                            \
		return KRL_OK;                                             \
	}
BINARY_GOLDEN(add, x[i] + y[i])
BINARY_GOLDEN(sub, x[i] - y[i])
BINARY_GOLDEN(mul, x[i] * y[i])
BINARY_GOLDEN(div, x[i] / y[i])

/* ==== Reductions over one dim ==== */

typedef enum { R_SUM, R_MEAN, R_MAX, R_MIN, R_ARGMAX, R_ARGMIN } rkind;

/* Reduces x viewed as [outer, r, inner] into y [outer, inner]. max/min
 * propagate NaN and arg* pick the first NaN, as PyTorch does; otherwise
 * arg* keep the first index of the extreme value. */
static void reduce(const krl_tensor *x, const krl_tensor *y, int dim,
                   rkind k)
{
	krl_rlayout l = krl_ops_layout(x, dim);
	const double *px = D(x);
	double *py = D(y);
	for (int64_t o = 0; o < l.outer; o++)
		for (int64_t i = 0; i < l.inner; i++) {
			const double *p = px + o * l.r * l.inner + i;
			double acc = p[0];
			int64_t at = 0;
			if (k == R_SUM || k == R_MEAN) {
				acc = 0;
				for (int64_t j = 0; j < l.r; j++)
					acc += p[j * l.inner];
				if (k == R_MEAN)
					acc /= (double)l.r;
			} else {
				int want_max = k == R_MAX || k == R_ARGMAX;
				for (int64_t j = 1; j < l.r && !isnan(acc); j++) {
					double v = p[j * l.inner];
					if (isnan(v) || (want_max ? v > acc : v < acc)) {
						acc = v;
						at = j;
					}
				}
				if (k == R_ARGMAX || k == R_ARGMIN)
					acc = (double)at;
			}
			py[o * l.inner + i] = acc;
		}
}

#define REDUCE_GOLDEN(name, kind)                                          \
	KRL_GOLDEN(name)                                                   \
	{                                                                  \
		reduce(&in[0], &out[0], krl_ops_dim(a, in[0].ndim), kind); \
		return KRL_OK;                                             \
	}
REDUCE_GOLDEN(sum, R_SUM)
REDUCE_GOLDEN(max, R_MAX)
REDUCE_GOLDEN(min, R_MIN)
REDUCE_GOLDEN(argmax, R_ARGMAX)
REDUCE_GOLDEN(argmin, R_ARGMIN)

KRL_GOLDEN(mean)
{
	if (!isnan(krl_attrs_get(a, "dim", NAN))) {
		reduce(&in[0], &out[0], krl_ops_dim(a, in[0].ndim), R_MEAN);
		return KRL_OK;
	}
	int64_t n = krl_tensor_numel(&in[0]);
	double s = 0;
	for (int64_t i = 0; i < n; i++)
		s += D(&in[0])[i];
	D(&out[0])[0] = s / (double)n;
	return KRL_OK;
}

/* ==== Along one dim: softmax, log_softmax, cumsum ==== */

static void softmax(const krl_tensor *x, const krl_tensor *y, int dim,
                    int log_)
{
	krl_rlayout l = krl_ops_layout(x, dim);
	for (int64_t o = 0; o < l.outer; o++)
		for (int64_t i = 0; i < l.inner; i++) {
			int64_t base = o * l.r * l.inner + i;
			const double *p = D(x) + base;
			double *q = D(y) + base;
			double mx = -INFINITY, s = 0;
			for (int64_t j = 0; j < l.r; j++)
				mx = fmax(mx, p[j * l.inner]);
			for (int64_t j = 0; j < l.r; j++)
				s += exp(p[j * l.inner] - mx);
			for (int64_t j = 0; j < l.r; j++)
				q[j * l.inner] = log_ ? p[j * l.inner] - mx - log(s)
				                      : exp(p[j * l.inner] - mx) / s;
		}
}

KRL_GOLDEN(softmax)
{
	softmax(&in[0], &out[0], krl_ops_dim(a, in[0].ndim), 0);
	return KRL_OK;
}

KRL_GOLDEN(log_softmax)
{
	softmax(&in[0], &out[0], krl_ops_dim(a, in[0].ndim), 1);
	return KRL_OK;
}

KRL_GOLDEN(cumsum)
{
	krl_rlayout l = krl_ops_layout(&in[0], krl_ops_dim(a, in[0].ndim));
	for (int64_t o = 0; o < l.outer; o++)
		for (int64_t i = 0; i < l.inner; i++) {
			int64_t base = o * l.r * l.inner + i;
			double s = 0;
			for (int64_t j = 0; j < l.r; j++) {
				s += D(&in[0])[base + j * l.inner];
				D(&out[0])[base + j * l.inner] = s;
			}
		}
	return KRL_OK;
}

/* ==== LayerNorm ==== */

/* Normalises each row of the trailing `axes` dims with the biased
 * variance (two passes: mean, then centred squares), then w and b. */
KRL_GOLDEN(layernorm)
{
	const krl_tensor *x = &in[0];
	int k = krl_ops_ln_axes(a, in);
	double eps = krl_attrs_get(a, "eps", 1e-5);
	int64_t n = krl_ops_prod(x, x->ndim - k, x->ndim);
	int64_t rows = krl_ops_prod(x, 0, x->ndim - k);
	const double *w = D(&in[1]), *b = D(&in[2]);
	for (int64_t r = 0; r < rows; r++) {
		const double *p = D(x) + r * n;
		double *q = D(&out[0]) + r * n;
		double mean = 0, var = 0;
		for (int64_t j = 0; j < n; j++)
			mean += p[j];
		mean /= (double)n;
		for (int64_t j = 0; j < n; j++)
			var += (p[j] - mean) * (p[j] - mean);
		var /= (double)n;
		double rstd = 1.0 / sqrt(var + eps);
		for (int64_t j = 0; j < n; j++)
			q[j] = (p[j] - mean) * rstd * w[j] + b[j];
	}
	return KRL_OK;
}
