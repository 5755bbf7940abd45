/* Helpers shared by the GPU op tests (tests/ops/gpu_ops*.c): the stream
 * and op context every case runs on, the host random numbers inputs are
 * drawn from, and the shape and attribute builders. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpuoptest.h"

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

krl_attrs A(int n, ...)
{
	krl_attrs a;
	memset(&a, 0, sizeof a);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		a.key[i] = va_arg(ap, const char *);
		a.val[i] = va_arg(ap, double);
	}
	va_end(ap);
	a.n = n;
	return a;
}
