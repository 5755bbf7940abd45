/* Helpers shared by the GPU op tests (tests/ops/gpu_ops*.c): the stream
 * and op context every case runs on, the host random numbers inputs are
 * drawn from, and the shape and attribute builders. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuoptest.h"
#include "testutil.h"

cudaStream_t g_stream;
krl_opctx *g_ctx;
uint64_t g_rng = 0x9e3779b97f4a7c15ull;

double gpuop_urand(void)
{
	g_rng ^= g_rng << 13;
	g_rng ^= g_rng >> 7;
	g_rng ^= g_rng << 17;
	return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0);
}

double gpuop_nrand(void)
{
	double u = gpuop_urand(), v = gpuop_urand();
	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

int gpuop_setup(void **state)
{
	(void)state;
	if (cudaStreamCreate(&g_stream) != cudaSuccess)
		return -1;
	krl_diag d;
	memset(&d, 0, sizeof d);
	krl_err r = krl_opctx_create(g_stream, &g_ctx, &d);
	if (r) {
		fprintf(stderr, "krl_opctx_create: %s\n", d.msg);
		return -1;
	}
	return 0;
}

int gpuop_teardown(void **state)
{
	(void)state;
	krl_opctx_free(g_ctx);
	cudaStreamDestroy(g_stream);
	return 0;
}

shape S(int ndim, ...)
{
	shape s;
	memset(&s, 0, sizeof s);
	s.ndim = ndim;
	va_list ap;
	va_start(ap, ndim);
	for (int i = 0; i < ndim; i++)
		s.dim[i] = va_arg(ap, int64_t);
	va_end(ap);
	return s;
}

int64_t numel(const shape *s)
{
	int64_t n = 1;
	for (int i = 0; i < s->ndim; i++)
		n *= s->dim[i];
	return n;
}

int gpuop_algo_sweep(const char *op, const krl_tensor *in, krl_tensor *out,
                     int64_t n_out, krl_attrs base, double rel)
{
	const krl_op *o = krl_op_find(op);
	float *ref = malloc((size_t)n_out * sizeof(float));
	float *got = malloc((size_t)n_out * sizeof(float));
	int ran = 0, over = 0;
	assert_non_null(o);
	assert_non_null(ref);
	assert_non_null(got);
	assert_true(base.n < KRL_MAX_ATTR);
	double scale = 0;
	for (int k = 0; k <= 7; k++) {
		krl_attrs a = base;
		a.key[a.n] = "algo";
		a.val[a.n] = k;
		a.n++;
		krl_diag d;
		memset(&d, 0, sizeof d);
		char msg[512] = "";
		assert_int_equal(o->check(in, out, &a, msg, sizeof msg), KRL_OK);
		CK(cudaMemsetAsync(out->data, 0xff, (size_t)n_out * sizeof(float),
		                   g_stream));
		krl_err r = o->run(g_ctx, in, out, &a, &d);
		if (k == 0)
			KRL_ASSERT_OK(r, &d);
		if (r == KRL_EUNSUPPORTED) {
			printf("%s algo=%d: %s\n", op, k, d.msg);
			assert_non_null(strstr(d.msg, "algo counts from 0"));
			over = 1;
			continue;
		}
		KRL_ASSERT_OK(r, &d);
		assert_false(over); /* usable ones come first */
		CK(cudaStreamSynchronize(g_stream));
		CK(cudaMemcpy(k ? got : ref, out->data,
		              (size_t)n_out * sizeof(float),
		              cudaMemcpyDeviceToHost));
		ran++;
		if (k == 0) {
			for (int64_t i = 0; i < n_out; i++)
				scale = fmax(scale, fabs(ref[i]));
			assert_true(scale > 0 && isfinite(scale));
			continue;
		}
		double worst = 0;
		for (int64_t i = 0; i < n_out; i++) {
			double e = fabs((double)got[i] - ref[i]);
			worst = isnan(e) ? INFINITY : fmax(worst, e);
		}
		printf("%s algo=%d: max |difference from algo 0| %.3g (output max "
		       "%.3g)\n", op, k, worst, scale);
		assert_true(worst <= rel * scale);
	}
	free(ref);
	free(got);
	return ran;
}

ten gpuop_ten(krl_dtype dt, int dd, int64_t hi, int ndim, ...)
{
	ten s;
	memset(&s, 0, sizeof s);
	s.dt = dt;
	s.dd = dd;
	s.hi = hi;
	s.ndim = ndim;
	va_list ap;
	va_start(ap, ndim);
	for (int i = 0; i < ndim; i++)
		s.dim[i] = va_arg(ap, int64_t);
	va_end(ap);
	return s;
}

int64_t ten_numel(const ten *s)
{
	int64_t n = 1;
	for (int i = 0; i < s->ndim; i++)
		n *= s->dim[i];
	return n;
}

size_t esize(krl_dtype t)
{
	return t == KRL_I64 ? 8 : t == KRL_BOOL ? 1 : 4;
}

krl_tensor host_tensor(const ten *s, void *data)
{
	krl_tensor t;
	memset(&t, 0, sizeof t);
	t.data = data;
	t.dtype = s->dt;
	t.ndim = s->ndim;
	memcpy(t.dim, s->dim, sizeof s->dim);
	return t;
}

double as_double(const void *p, int64_t j, krl_dtype dt)
{
	if (dt == KRL_I64)
		return (double)((const int64_t *)p)[j];
	if (dt == KRL_BOOL)
		return (double)((const unsigned char *)p)[j];
	return (double)((const float *)p)[j];
}
