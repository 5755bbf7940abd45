/* Helpers shared by the op tests (tests/ops/test_golden*.c). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "optest.h"

/* A tensor over host doubles with the given dims (ndim may be 0). */
krl_tensor optest_tensor(double *data, int ndim, ...)
{
	krl_tensor t;
	memset(&t, 0, sizeof t);
	t.data = data;
	t.dtype = KRL_F32;
	t.ndim = ndim;
	va_list ap;
	va_start(ap, ndim);
	for (int i = 0; i < ndim; i++)
		t.dim[i] = va_arg(ap, int64_t);
	va_end(ap);
	return t;
}

krl_attrs optest_attrs(int n, ...)
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

/* Checks, then runs the golden op (both must succeed). */
void optest_golden(const char *name, const krl_tensor *in,
                   const krl_tensor *out, const krl_attrs *a)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	char msg[512] = "";
	krl_err r = op->check(in, out, a, msg, sizeof msg);
	if (r)
		fprintf(stderr, "%s: check failed: %s\n", name, msg);
	assert_int_equal(r, KRL_OK);
	assert_int_equal(op->golden(in, out, a), KRL_OK);
}

/* check() must fail with a message containing `want`. */
void optest_rejects(const char *name, const krl_tensor *in,
                    const krl_tensor *out, const krl_attrs *a,
                    const char *want)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	char msg[512] = "";
	krl_err r = op->check(in, out, a, msg, sizeof msg);
	if (r != KRL_EINVAL || !strstr(msg, want))
		fprintf(stderr, "%s: expected rejection with \"%s\", got %d "
		        "\"%s\"\n", name, want, r, msg);
	assert_int_equal(r, KRL_EINVAL);
	assert_non_null(strstr(msg, want));
}

void optest_near(const double *got, const double *want, int n, double tol)
{
	for (int i = 0; i < n; i++) {
		if (!(fabs(got[i] - want[i]) <= tol))
			fprintf(stderr, "element %d: got %.17g, want %.17g\n", i,
			        got[i], want[i]);
		assert_true(fabs(got[i] - want[i]) <= tol);
	}
}
