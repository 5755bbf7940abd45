/*
 * GPU test of the op family "eltwise": every op on random inputs (drawn on
 * the host from a fixed seed), run on the device through krl_op.run and
 * compared with its float64 golden version, on a tiny shape, on a mid-size
 * shape with a partial last block (vectorised path plus scalar tail), and
 * with pointers one float off 16-byte alignment (the scalar kernel). NaN
 * inputs must give NaN where the golden op does. Needs a GPU: skips (exit
 * 77) without one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "krl/ops.h"
#include "gpuoptest.h"
#include "testutil.h"

/* ==== Random inputs ==== */

/* How inputs are drawn: normal(0, 1), normal(0, 12) (reaches softplus's
 * threshold and the saturated tails), |normal| (for sqrt/rsqrt/pow), and
 * normal(0, 1) with every 97th element NaN. */
typedef enum { D_NORMAL, D_WIDE, D_POSITIVE, D_NAN } dist;

#define A0 A(0)
#define A1(k, v) A(1, (k), (double)(v))
#define A2(k0, v0, k1, v1) A(2, (k0), (double)(v0), (k1), (double)(v1))

/* ==== One case ==== */

/*
 * Runs op `name` on x [rows, cols] drawn from dd, on the GPU (x and y
 * placed `off` floats past an aligned allocation) and in golden float64,
 * and checks every element: abs(g - r) <= atol + rtol * abs(r), or both
 * NaN. Runs the GPU op twice, so a second call on the same buffers works.
 */
static void run_case(const char *name, int64_t rows, int64_t cols,
                     krl_attrs a, dist dd, int off, double atol,
                     double rtol)
{
	const krl_op *op = krl_op_find(name);
	assert_non_null(op);
	int64_t n = rows * cols;
	double *hx = malloc((size_t)n * sizeof(double));
	double *hy = malloc((size_t)n * sizeof(double));
	float *fx = malloc((size_t)n * sizeof(float));
	float *got = malloc((size_t)n * sizeof(float));
	assert_non_null(hx);
	assert_non_null(hy);
	assert_non_null(fx);
	assert_non_null(got);
	for (int64_t j = 0; j < n; j++) {
		double v = gpuop_nrand();
		if (dd == D_WIDE)
			v *= 12;
		else if (dd == D_POSITIVE)
			v = fabs(v);
		else if (dd == D_NAN && j % 97 == 5)
			v = NAN;
		fx[j] = (float)v;
		hx[j] = (double)fx[j];
	}
	float *dx = NULL, *dy = NULL;
	CK(cudaMalloc((void **)&dx, (size_t)(n + off) * sizeof(float)));
	CK(cudaMalloc((void **)&dy, (size_t)(n + off) * sizeof(float)));
	CK(cudaMemcpy(dx + off, fx, (size_t)n * sizeof(float),
	              cudaMemcpyHostToDevice));
	CK(cudaMemset(dy, 0xff, (size_t)(n + off) * sizeof(float)));

	krl_tensor tx, ty;
	memset(&tx, 0, sizeof tx);
	tx.dtype = KRL_F32;
	tx.ndim = 2;
	tx.dim[0] = rows;
	tx.dim[1] = cols;
	ty = tx;
	tx.data = hx;
	ty.data = hy;
	char msg[512] = "";
	krl_err r = op->check(&tx, &ty, &a, msg, sizeof msg);
	if (r)
		fprintf(stderr, "%s: check: %s\n", name, msg);
	assert_int_equal(r, KRL_OK);
	assert_int_equal(op->golden(&tx, &ty, &a), KRL_OK);

	krl_tensor gx = tx, gy = ty;
	gx.data = dx + off;
	gy.data = dy + off;
	for (int rep = 0; rep < 2; rep++) {
		krl_diag d;
		memset(&d, 0, sizeof d);
		r = op->run(g_ctx, &gx, &gy, &a, &d);
		KRL_ASSERT_OK(r, &d);
	}
	CK(cudaStreamSynchronize(g_stream));
	CK(cudaMemcpy(got, dy + off, (size_t)n * sizeof(float),
	              cudaMemcpyDeviceToHost));

	int64_t bad = 0, worst = -1;
	double max_abs = 0, max_rel = 0, worst_ex = 0;
	for (int64_t j = 0; j < n; j++) {
		double g = got[j], ref = hy[j];
		if (isnan(ref) || isnan(g)) {
			if (!(isnan(ref) && isnan(g)) && bad++ == 0)
				worst = j;
			continue;
		}
		double e = fabs(g - ref);
		double lim = atol + rtol * fabs(ref);
		if (!(e <= lim)) {
			bad++;
			if (worst < 0 || e - lim > worst_ex) {
				worst = j;
				worst_ex = e - lim;
			}
		}
		if (isfinite(e)) {
			if (e > max_abs)
				max_abs = e;
			if (ref != 0 && e / fabs(ref) > max_rel)
				max_rel = e / fabs(ref);
		}
	}
	printf("%-12s [%lldx%lld]%s %-28s max_abs %.3g max_rel %.3g%s\n",
	       name, (long long)rows, (long long)cols, off ? " +1" : "   ",
	       a.n ? a.key[0] : "", max_abs, max_rel, bad ? "  FAIL" : "");
	if (bad)
		fprintf(stderr, "%s: %lld of %lld elements outside atol=%g "
		        "rtol=%g; worst at %lld: x %.9g, gpu %.9g, golden "
		        "%.9g\n", name, (long long)bad, (long long)n, atol,
		        rtol, (long long)worst, hx[worst], (double)got[worst],
		        hy[worst]);
	cudaFree(dx);
	cudaFree(dy);
	free(hx);
	free(hy);
	free(fx);
	free(got);
	assert_int_equal(bad, 0);
}

/* ==== Tests ==== */

/* One op on the tiny, the mid-size and the misaligned shapes. */
static void all_shapes(const char *name, krl_attrs a, dist dd, double atol,
                       double rtol)
{
	run_case(name, 3, 5, a, dd, 0, atol, rtol);
	run_case(name, 1000, 1003, a, dd, 0, atol, rtol);
	run_case(name, 7, 333, a, dd, 1, atol, rtol);
}

static void test_activations(void **state)
{
	(void)state;
	dist ds[] = { D_NORMAL, D_WIDE, D_NAN };
	for (int i = 0; i < 3; i++) {
		dist dd = ds[i];
		all_shapes("leaky_relu", A1("negative_slope", 0.01), dd, 0,
		           2e-7);
		all_shapes("leaky_relu", A1("negative_slope", -0.3), dd, 0,
		           2e-7);
		all_shapes("sigmoid", A0, dd, 1e-7, 1e-6);
		all_shapes("tanh", A0, dd, 1e-7, 1e-6);
		all_shapes("elu", A1("alpha", 1.0), dd, 1e-7, 1e-6);
		all_shapes("elu", A1("alpha", 0.37), dd, 1e-7, 1e-6);
		all_shapes("selu", A0, dd, 1e-7, 1e-6);
		all_shapes("hardsigmoid", A0, dd, 0, 3e-7);
		all_shapes("softplus", A0, dd, 1e-7, 1e-6);
		all_shapes("softplus", A2("beta", 2.0, "threshold", 5.0), dd,
		           1e-7, 1e-6);
		all_shapes("mish", A0, dd, 1e-7, 1e-6);
		all_shapes("hardtanh", A0, dd, 0, 0);
		all_shapes("hardtanh", A2("min_val", 0.0, "max_val", 6.0), dd,
		           0, 0);
	}
}

static void test_scalar_ops(void **state)
{
	(void)state;
	dist ds[] = { D_NORMAL, D_NAN };
	for (int i = 0; i < 2; i++) {
		/* abs and add_scalar are the norm family's; the softsign and
		 * new-GELU plans use them */
		all_shapes("abs", A0, ds[i], 0, 0);
		all_shapes("add_scalar", A1("alpha", 1.0), ds[i], 0, 1.2e-7);
		/* -0.3f is 1.2e-8 off -0.3: absolute near x = 0.3 */
		all_shapes("add_scalar", A1("alpha", -0.3), ds[i], 3e-8,
		           1.2e-7);
		all_shapes("pow_scalar", A1("exponent", 3.0), ds[i], 0, 2.5e-7);
		all_shapes("pow_scalar", A1("exponent", 2.0), ds[i], 0, 1.2e-7);
		all_shapes("pow_scalar", A1("exponent", 1.0), ds[i], 0, 0);
		all_shapes("pow_scalar", A1("exponent", 0.0), ds[i], 0, 0);
		all_shapes("pow_scalar", A1("exponent", -1.0), ds[i], 0,
		           1.2e-7);
		all_shapes("pow_scalar", A1("exponent", -2.0), ds[i], 0,
		           2.5e-7);
	}
	/* sqrt, rsqrt and powf of negatives are NaN on both sides; keep most
	 * inputs positive so the values are checked */
	all_shapes("pow_scalar", A1("exponent", 0.5), D_POSITIVE, 0, 1.2e-7);
	all_shapes("pow_scalar", A1("exponent", -0.5), D_POSITIVE, 0, 5e-7);
	all_shapes("pow_scalar", A1("exponent", 2.5), D_POSITIVE, 1e-30,
	           1e-6);
	all_shapes("pow_scalar", A1("exponent", 0.5), D_NORMAL, 0, 1.2e-7);
}

int main(void)
{
	g_rng = 0x2545f4914f6cdd1dull;
	krl_test_require_gpu("gpu_ops_eltwise");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_activations),
		cmocka_unit_test(test_scalar_ops),
	};
	return cmocka_run_group_tests(tests, gpuop_setup, gpuop_teardown);
}
