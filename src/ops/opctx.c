/*
 * kernelrl: the per-stream context of the GPU ops: the stream, the
 * device's SM count, the cuBLASLt handle and workspace, a scratch buffer
 * for multi-block reductions and CUB, and one state slot per op family.
 *
 * The device buffers are allocated once here, so that running an op never
 * allocates device memory (ops can be captured into CUDA graphs); a
 * family's slot holds host-side state its drivers create on first use (the
 * GEMM plan cache, the cuDNN handle and plans) and is freed here with the
 * context, through the family's state_free.
 */
#include <stdlib.h>

#include <cublasLt.h>
#include <cuda_runtime.h>

#include "ops/ops_int.h"
#include "runtime/cudacheck.h"

static const krl_pos nopos = { 0, 0, 0 };

krl_err krl_ops_cublas_fail(int st, const char *expr, const char *file,
                            int line, krl_diag *d)
{
	return krl_diag_set(d, KRL_ECUBLAS, nopos, "%s:%d: %s: %s", file, line,
	                    expr, cublasLtGetStatusString((cublasStatus_t)st));
}

/* Allocates everything on the current device; on failure frees what was
 * made and leaves *out NULL. */
static krl_err ctx_init(krl_opctx *c, krl_diag *d)
{
	CUDA_TRY(d, cudaGetDevice(&c->device));
	CUDA_TRY(d, cudaDeviceGetAttribute(&c->sm_count,
	             cudaDevAttrMultiProcessorCount, c->device));
	cublasLtHandle_t lt = NULL;
	KRL_CUBLAS_TRY(cublasLtCreate(&lt), d);
	c->lt = lt;
	c->workspace_bytes = KRL_OPS_WORKSPACE_BYTES;
	CUDA_TRY(d, cudaMalloc(&c->workspace, c->workspace_bytes));
	c->scratch_bytes = KRL_OPS_SCRATCH_BYTES;
	CUDA_TRY(d, cudaMalloc(&c->scratch, c->scratch_bytes));
	/* the reduction semaphores start at zero and are left at zero */
	CUDA_TRY(d, cudaMemset(c->scratch, 0, KRL_REDUCE_SEM_BYTES));
	return KRL_OK;
}

krl_err krl_opctx_create(void *stream, krl_opctx **out, krl_diag *d)
{
	*out = NULL;
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n < 1)
		return krl_diag_set(d, KRL_ENODEVICE, nopos,
		                    "ops: no CUDA device for the op library (%s)",
		                    e != cudaSuccess ? cudaGetErrorString(e)
		                                     : "no device found");
	krl_opctx *c = calloc(1, sizeof *c);
	if (!c)
		return krl_diag_set(d, KRL_ENOMEM, nopos,
		                    "ops: out of host memory");
	c->stream = stream;
	krl_err r = ctx_init(c, d);
	if (r) {
		krl_opctx_free(c);
		return r;
	}
	*out = c;
	return KRL_OK;
}

void krl_opctx_set_tf32(krl_opctx *c, int allow)
{
	if (c)
		c->no_tf32 = !allow;
}

void **krl_opctx_slot(krl_opctx *c, const krl_op_family *f)
{
	int i = krl_ops_family_slot(f);
	return i >= 0 && i < KRL_OPS_MAX_FAMILIES ? &c->family_state[i] : NULL;
}

krl_err krl_opctx_grow(krl_opctx *c, void **buf, size_t *have, size_t bytes,
                       const char *what, krl_diag *d)
{
	if (bytes <= *have)
		return KRL_OK;
	enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
	CUDA_TRY(d, cudaStreamIsCapturing((cudaStream_t)c->stream, &cs));
	if (cs != cudaStreamCaptureStatusNone)
		return krl_diag_set(d, KRL_ECUDA, nopos, "%s must grow to %zu "
		                    "bytes during a graph capture; run the plan "
		                    "once before capturing it", what, bytes);
	CUDA_TRY(d, cudaFree(*buf));
	*buf = NULL;
	*have = 0;
	cudaError_t e = cudaMalloc(buf, bytes);
	if (e == cudaErrorMemoryAllocation) {
		(void)cudaGetLastError();
		*buf = NULL;
		return krl_diag_set(d, KRL_ENOMEM, nopos, "%s: no device memory "
		                    "for %zu bytes", what, bytes);
	}
	CUDA_TRY(d, e);
	*have = bytes;
	return KRL_OK;
}

krl_err krl_opctx_temp(krl_opctx *c, size_t bytes, void **out,
                       const char *what, krl_diag *d)
{
	krl_err r = krl_opctx_grow(c, &c->temp, &c->temp_bytes, bytes, what, d);
	*out = r ? NULL : c->temp;
	return r;
}

/* Each family's state first (it may hold cuBLASLt descriptors or cuDNN
 * objects of this device), then the context's own. */
void krl_opctx_free(krl_opctx *c)
{
	if (!c)
		return;
	int nf = 0;
	const krl_op_family *const *f = krl_op_families(&nf);
	for (int i = 0; i < nf && i < KRL_OPS_MAX_FAMILIES; i++)
		if (c->family_state[i] && f[i]->state_free)
			f[i]->state_free(c->family_state[i]);
	if (c->lt)
		cublasLtDestroy((cublasLtHandle_t)c->lt);
	cudaFree(c->workspace);
	cudaFree(c->scratch);
	cudaFree(c->temp);
	free(c);
}
