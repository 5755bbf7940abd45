/*
 * Roofline ceilings and floors (docs/judge.md, "Roofline"). The ceilings
 * are measured once per device and cached in
 * <cache>/ceilings-<device uuid>.json (delete the file to measure again):
 *   - copy_gbs: cudaMemcpy device to device, bytes read plus written per s;
 *   - read_gbs: a read-only streaming kernel (krl_stream_read), the fastest
 *     of one stream and two, blocks of 256 and of 1024 threads;
 *   - fp32_tflops: cuBLASLt's true fp32 GEMM (SIMT), 8192^3, random data;
 *   - tf32_tflops: cuBLASLt's TF32 tensor-core GEMM, the same product.
 * A problem's floor is its declared bytes over the fastest memory rate
 * measured, or its flops over the fastest rate its precision tier allows,
 * whichever is longer: a tf32 task may use TF32 tensor cores; an fp32 task
 * may use them only as 3xTF32 (three TF32 products per fp32-accurate one),
 * so its rate is the larger of the fp32 GEMM and a third of TF32's. A
 * candidate's time over its floor is then at most 1 unless the ceiling is
 * wrong, which gpu_eval tests.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cublasLt.h>

#include "judge/judge_int.h"
#include "krl/check.h"
#include "runtime/cudacheck.h"
#include "util/fs.h"

#define COPY_BYTES ((size_t)1 << 30)
#define BIG_BYTES ((size_t)8 << 30)
#define GEMM_N 8192

/* Median of the timed repetitions of one measurement, in ms. */
static double median3(double *t, int n)
{
	return krl_quantile(t, n, 0.5);
}

/* The fastest of them: a memory ceiling is the best rate the device
 * reached, not its typical one (medians left reductions at up to 1.04 of
 * the ceiling on the H200). */
static double fastest(const double *t, int n)
{
	double m = t[0];
	for (int i = 1; i < n; i++)
		m = fmin(m, t[i]);
	return m;
}

/* The measurement method; a cached file of another is measured again. */
#define METHOD 5

#define LT_TRY(call)                                                          \
	do {                                                                  \
		cublasStatus_t st_ = (call);                                  \
		if (st_ != CUBLAS_STATUS_SUCCESS) {                           \
			r = krl_diag_set(d, KRL_ECUDA, (krl_pos){0},          \
			                 "roofline: %s failed (cuBLAS status "  \
			                 "%d)", #call, (int)st_);              \
			goto out;                                             \
		}                                                             \
	} while (0)

/* The TF32 tensor-core rate: cuBLASLt's best heuristic algorithm for
 * C = A B, GEMM_N square, CUBLAS_COMPUTE_32F_FAST_TF32, on a, b (random)
 * into c; the median of three timed products after one warm-up. */
static krl_err tf32_rate(krl_judge *j, void *a, void *b, void *c,
                         double *tflops, krl_diag *d)
{
	krl_err r = KRL_OK;
	cublasLtHandle_t lt = NULL;
	cublasLtMatmulDesc_t op = NULL;
	cublasLtMatrixLayout_t l = NULL;
	cublasLtMatmulPreference_t pref = NULL;
	cublasLtMatmulHeuristicResult_t h;
	void *ws = NULL;
	size_t wsb = (size_t)32 << 20;
	float one = 1, zero = 0;
	double t[3];
	int got = 0;
	CUDA_CHECK(d, cudaMalloc(&ws, wsb));
	LT_TRY(cublasLtCreate(&lt));
	LT_TRY(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F_FAST_TF32,
	                                CUDA_R_32F));
	LT_TRY(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, GEMM_N, GEMM_N,
	                                  GEMM_N));
	LT_TRY(cublasLtMatmulPreferenceCreate(&pref));
	LT_TRY(cublasLtMatmulPreferenceSetAttribute(pref,
		CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsb, sizeof wsb));
	LT_TRY(cublasLtMatmulAlgoGetHeuristic(lt, op, l, l, l, l, pref, 1, &h,
	                                      &got));
	if (got < 1) {
		r = krl_diag_set(d, KRL_ECUDA, (krl_pos){0}, "roofline: cuBLASLt "
		                 "offers no TF32 algorithm for %d^3", GEMM_N);
		goto out;
	}
	for (int i = -1; i < 3; i++) {
		float ms;
		cudaEventRecord(j->ev0, j->stream);
		LT_TRY(cublasLtMatmul(lt, op, &one, a, l, b, l, &zero, c, l, c, l,
		                      &h.algo, ws, wsb, j->stream));
		cudaEventRecord(j->ev1, j->stream);
		CUDA_CHECK(d, cudaEventSynchronize(j->ev1)); /* the GEMM */
		cudaEventElapsedTime(&ms, j->ev0, j->ev1);
		if (i >= 0)
			t[i] = ms;
	}
	*tflops = 2.0 * GEMM_N * GEMM_N * (double)GEMM_N /
	          (median3(t, 3) * 1e-3) / 1e12;
out:
	if (pref)
		cublasLtMatmulPreferenceDestroy(pref);
	if (l)
		cublasLtMatrixLayoutDestroy(l);
	if (op)
		cublasLtMatmulDescDestroy(op);
	if (lt)
		cublasLtDestroy(lt);
	cudaFree(ws);
	return r;
}

krl_floor krl_roofline_floor(const krl_ceilings *c, double bytes,
                             double flops, int tf32)
{
	krl_floor f;
	f.gbs = fmax(c->copy_gbs, c->read_gbs);
	f.tflops = tf32 ? fmax(c->tf32_tflops, c->fp32_tflops)
	                : fmax(c->fp32_tflops, c->tf32_tflops / 3);
	double mem = f.gbs > 0 ? bytes / (f.gbs * 1e9) : 0;
	double cmp = f.tflops > 0 ? flops / (f.tflops * 1e12) : 0;
	f.ms = fmax(mem, cmp) * 1e3;
	f.bound = mem >= cmp ? "memory" : "compute";
	return f;
}

static krl_err measure(krl_judge *j, krl_diag *d)
{
	krl_err r = KRL_OK;
	void *a = NULL, *b = NULL, *c = NULL;
	double t[5];
	/* the memory rates over BIG_BYTES where the device has room for it
	 * four times over, else COPY_BYTES: a call's launch and its last
	 * wave are a smaller part of a longer one (over 1 GiB, 94 and 96,
	 * which read 8 GiB, read 1.02 of the rate) */
	size_t mb = COPY_BYTES, fb = 0, tb = 0;
	if (cudaMemGetInfo(&fb, &tb) == cudaSuccess && fb >= 4 * BIG_BYTES)
		mb = BIG_BYTES;
	CUDA_CHECK(d, cudaMalloc(&a, mb));
	CUDA_CHECK(d, cudaMalloc(&b, mb));
	cudaMemsetAsync(a, 1, mb, j->stream);
	for (int i = -1; i < 5; i++) {
		float ms;
		cudaEventRecord(j->ev0, j->stream);
		cudaMemcpyAsync(b, a, mb, cudaMemcpyDeviceToDevice, j->stream);
		cudaEventRecord(j->ev1, j->stream);
		CUDA_CHECK(d, cudaEventSynchronize(j->ev1)); /* the copy */
		cudaEventElapsedTime(&ms, j->ev0, j->ev1);
		if (i >= 0)
			t[i] = ms;
	}
	j->ceil.copy_gbs = 2.0 * mb / (fastest(t, 5) * 1e-3) / 1e9;
	CUDA_CHECK(d, cudaMalloc(&c, 2048 * sizeof(uint32_t)));
	CUDA_CHECK(d, cudaMemsetAsync(c, 0, 2048 * sizeof(uint32_t), j->stream));
	/* one stream and two, in blocks of 256 and of 1024 threads: the
	 * fastest (94 and 96's reductions, two inputs read by blocks of
	 * 1024, reached 1.0003-1.0013 of the fastest of the 256-thread
	 * ones on the H200) */
	j->ceil.read_gbs = 0;
	for (int cfg = 0; cfg < 4; cfg++) {
		int streams = 1 + cfg % 2, block = cfg < 2 ? 256 : 1024;
		for (int i = -1; i < 5; i++) {
			float ms;
			cudaEventRecord(j->ev0, j->stream);
			if ((r = krl_stream_read(a, mb, streams, block, c,
			                         j->stream, d)))
				goto out;
			cudaEventRecord(j->ev1, j->stream);
			CUDA_CHECK(d, cudaEventSynchronize(j->ev1)); /* the read */
			cudaEventElapsedTime(&ms, j->ev0, j->ev1);
			if (i >= 0)
				t[i] = ms;
		}
		j->ceil.read_gbs = fmax(j->ceil.read_gbs, mb /
		                        (fastest(t, 5) * 1e-3) / 1e9);
	}
	cudaFree(c);
	c = NULL;

	/* fp32 GEMM on random data through the same op the references use. */
	const krl_op *gemm = krl_op_find("gemm");
	size_t mat = (size_t)GEMM_N * GEMM_N * sizeof(float);
	krl_tensor in[2], out[1];
	krl_attrs at = {0};
	krl_dist nd = { .kind = KRL_DIST_NORMAL, .a = 0, .b = 1 };
	cudaFree(b);
	b = NULL;
	CUDA_CHECK(d, cudaMalloc(&b, mat));
	CUDA_CHECK(d, cudaMalloc(&c, mat));
	if ((r = krl_fill_random(a, KRL_F32, (int64_t)GEMM_N * GEMM_N, nd, 1,
	                         j->stream, d)) != KRL_OK ||
	    (r = krl_fill_random(b, KRL_F32, (int64_t)GEMM_N * GEMM_N, nd, 2,
	                         j->stream, d)) != KRL_OK)
		goto out;
	for (int k = 0; k < 3; k++) {
		krl_tensor *tt = k < 2 ? &in[k] : &out[0];
		tt->data = k == 0 ? a : k == 1 ? b : c;
		tt->dtype = KRL_F32;
		tt->ndim = 2;
		tt->dim[0] = tt->dim[1] = GEMM_N;
	}
	for (int i = -1; i < 3; i++) {
		float ms;
		cudaEventRecord(j->ev0, j->stream);
		if ((r = gemm->run(j->ops, in, out, &at, d)) != KRL_OK)
			goto out;
		cudaEventRecord(j->ev1, j->stream);
		CUDA_CHECK(d, cudaEventSynchronize(j->ev1)); /* the GEMM */
		cudaEventElapsedTime(&ms, j->ev0, j->ev1);
		if (i >= 0)
			t[i] = ms;
	}
	j->ceil.fp32_tflops = 2.0 * GEMM_N * GEMM_N * (double)GEMM_N /
	                      (median3(t, 3) * 1e-3) / 1e12;
	r = tf32_rate(j, a, b, c, &j->ceil.tf32_tflops, d);
out:
	cudaFree(a);
	cudaFree(b);
	cudaFree(c);
	return r;
}

krl_err krl_judge_ceilings(krl_judge *j, krl_diag *d)
{
	char path[PATH_MAX + 64]; /* fits: cache_dir is shorter than PATH_MAX */
	snprintf(path, sizeof path, "%s/ceilings-%s.json", j->cache_dir,
	         j->dev.uuid);
	json_error_t je;
	json_t *c = json_load_file(path, 0, &je);
	if (c) {
		krl_ceilings *k = &j->ceil;
		k->copy_gbs = json_number_value(json_object_get(c, "copy_gbs"));
		k->read_gbs = json_number_value(json_object_get(c, "read_gbs"));
		k->fp32_tflops = json_number_value(json_object_get(c, "fp32_tflops"));
		k->tf32_tflops = json_number_value(json_object_get(c, "tf32_tflops"));
		int method = (int)json_integer_value(json_object_get(c, "method"));
		json_decref(c);
		/* a file of another method: measure again */
		if (method == METHOD && k->copy_gbs > 0 && k->read_gbs > 0 &&
		    k->fp32_tflops > 0 && k->tf32_tflops > 0)
			return KRL_OK;
	}
	krl_err r = measure(j, d);
	if (r != KRL_OK)
		return r;
	c = json_pack("{s:s, s:i, s:f, s:f, s:f, s:f}", "device", j->dev.name,
	              "method", METHOD,
	              "copy_gbs", j->ceil.copy_gbs, "read_gbs", j->ceil.read_gbs,
	              "fp32_tflops", j->ceil.fp32_tflops, "tf32_tflops",
	              j->ceil.tf32_tflops);
	char tmp[PATH_MAX + 80];
	snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
	/* The cache directory may not exist yet; a failure to cache is not an
	 * error (the next judge measures again). */
	krl_mkdirs(j->cache_dir);
	if (json_dump_file(c, tmp, JSON_INDENT(1)) == 0)
		rename(tmp, path);
	json_decref(c);
	return KRL_OK;
}
