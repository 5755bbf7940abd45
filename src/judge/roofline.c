/*
 * Roofline ceilings: the device's measured copy bandwidth (bytes read plus
 * bytes written per second, device to device) and fp32 GEMM rate (cuBLASLt,
 * true fp32). Measured once per device and cached in
 * <cache>/ceilings-<device uuid>.json; delete the file to measure again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/judge_int.h"
#include "krl/check.h"
#include "runtime/cudacheck.h"
#include "util/fs.h"

#define COPY_BYTES ((size_t)1 << 30)
#define GEMM_N 8192

/* Median of the timed repetitions of one measurement, in ms. */
static double median3(double *t, int n)
{
	return krl_quantile(t, n, 0.5);
}

static krl_err measure(krl_judge *j, krl_diag *d)
{
	krl_err r = KRL_OK;
	void *a = NULL, *b = NULL, *c = NULL;
	double t[5];
	CUDA_CHECK(d, cudaMalloc(&a, COPY_BYTES));
	CUDA_CHECK(d, cudaMalloc(&b, COPY_BYTES));
	cudaMemsetAsync(a, 1, COPY_BYTES, j->stream);
	for (int i = -1; i < 5; i++) {
		float ms;
		cudaEventRecord(j->ev0, j->stream);
		cudaMemcpyAsync(b, a, COPY_BYTES, cudaMemcpyDeviceToDevice, j->stream);
		cudaEventRecord(j->ev1, j->stream);
		CUDA_CHECK(d, cudaEventSynchronize(j->ev1)); /* the copy */
		cudaEventElapsedTime(&ms, j->ev0, j->ev1);
		if (i >= 0)
			t[i] = ms;
	}
	j->bw_gbs = 2.0 * COPY_BYTES / (median3(t, 5) * 1e-3) / 1e9;

	/* fp32 GEMM on random data through the same op the references use. */
	const krl_op *gemm = krl_op_find("gemm");
	size_t mat = (size_t)GEMM_N * GEMM_N * sizeof(float);
	krl_tensor in[2], out[1];
	krl_attrs at = {0};
	krl_dist nd = {KRL_DIST_NORMAL, 0, 1};
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
	j->fp32_tflops = 2.0 * GEMM_N * GEMM_N * (double)GEMM_N /
	                 (median3(t, 3) * 1e-3) / 1e12;
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
		j->bw_gbs = json_number_value(json_object_get(c, "copy_gbs"));
		j->fp32_tflops = json_number_value(json_object_get(c, "fp32_tflops"));
		json_decref(c);
		if (j->bw_gbs > 0 && j->fp32_tflops > 0)
			return KRL_OK;
	}
	krl_err r = measure(j, d);
	if (r != KRL_OK)
		return r;
	c = json_pack("{s:s, s:f, s:f}", "device", j->dev.name, "copy_gbs",
	              j->bw_gbs, "fp32_tflops", j->fp32_tflops);
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
