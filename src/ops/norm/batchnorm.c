/*
 * kernelrl: the GPU driver of `batchnorm` (training mode, batch
 * statistics) and the norm family's state in an op context.
 *
 * The backend is chosen by PyTorch's rule (_select_batch_norm_backend,
 * then batch_norm_choose_impl; docs/ops-norm.md):
 * - cuDNN when x has 3 to 5 dims, N <= 880801, fewer than 2^31 - 1
 *   elements and eps >= CUDNN_BN_MIN_EPSILON:
 *   cudnnBatchNormalizationForwardTrainingEx, mode
 *   CUDNN_BATCHNORM_SPATIAL, ops CUDNN_BATCHNORM_OPS_BN, packed NCHW /
 *   NCDHW descriptors (a 3-D x as [N, C, L, 1]), scale/bias/stats
 *   descriptor [1, C, 1, ...], running mean and var updated with factor
 *   0.1 (PyTorch's momentum), saveMean and saveInvVariance in the scratch
 *   (PyTorch allocates them per call);
 * - otherwise PyTorch's native kernels: the channels-last ones (bn1d.cu)
 *   when x is also channels-last contiguous (one element per (n, c), as a
 *   2-D [N, C] x, or one channel) and fits 32-bit indexing; the NCHW
 *   ones (norm.cu) else.
 * Every call first launches the counter kernel (num_batches_tracked += 1,
 * which nn.BatchNorm's forward runs before the norm).
 *
 * The running statistics and the counter are side effects no output
 * shows; they live in the family's state (krl_opctx_slot): one device
 * buffer, grown (never during a graph capture) to the largest C seen,
 * the counter first, running mean (starts at 0) and var (starts at 1).
 * The cuDNN handle is the context's one (krl_ops_cudnn_handle, shared
 * with the conv family).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <cudnn.h>

#include "ops/norm/norm.h"
#include "ops/ops_int.h"
#include "runtime/cudacheck.h"

static const krl_pos nopos = { 0, 0, 0 };

/* nn.BatchNorm's default momentum: the running stats' update factor. */
#define BN_MOMENTUM 0.1

/* PyTorch's largest training batch for cuDNN's batch norm. */
#define BN_CUDNN_MAX_N 880801

typedef struct norm_state {
	void *dev;        /* int64 counter, then running mean and var */
	size_t bytes;
	int64_t chan;     /* channels the running stats hold */
	cudnnTensorDescriptor_t xd, sd;
} norm_state;

void krl_norm_state_free(void *state)
{
	norm_state *s = state;
	if (!s)
		return;
	if (s->xd)
		cudnnDestroyTensorDescriptor(s->xd);
	if (s->sd)
		cudnnDestroyTensorDescriptor(s->sd);
	cudaFree(s->dev);
	free(s);
}

static krl_err cudnn_fail(cudnnStatus_t st, const char *expr, krl_diag *d)
{
	return krl_diag_set(d, KRL_ECUDA, nopos, "batchnorm: %s: %s", expr,
	                    cudnnGetErrorString(st));
}

#define CUDNN_TRY(call, d)                                                 \
	do {                                                               \
		cudnnStatus_t krl_st_ = (call);                            \
		if (krl_st_ != CUDNN_STATUS_SUCCESS)                       \
			return cudnn_fail(krl_st_, #call, d);              \
	} while (0)

/* The family's state in c, made on first use, with running statistics
 * for at least ch channels. */
static krl_err state_get(krl_opctx *c, int64_t ch, norm_state **out,
                         krl_diag *d)
{
	void **slot = krl_opctx_slot(c, &krl_family_norm);
	*out = NULL;
	if (!*slot) {
		norm_state *s = calloc(1, sizeof *s);
		if (!s)
			return krl_diag_set(d, KRL_ENOMEM, nopos,
			                    "batchnorm: out of host memory");
		*slot = s;
	}
	norm_state *s = *slot;
	if (ch > s->chan) {
		enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
		CUDA_TRY(d, cudaStreamIsCapturing((cudaStream_t)c->stream,
		                                  &cs));
		if (cs != cudaStreamCaptureStatusNone)
			return krl_diag_set(d, KRL_ECUDA, nopos, "batchnorm: "
			                    "its running statistics must grow to "
			                    "%lld channels during a graph "
			                    "capture; run the plan once before "
			                    "capturing it", (long long)ch);
		size_t bytes = 256 + 2 * (size_t)ch * sizeof(float);
		float *h = malloc((size_t)ch * 2 * sizeof(float));
		if (!h)
			return krl_diag_set(d, KRL_ENOMEM, nopos,
			                    "batchnorm: out of host memory");
		for (int64_t i = 0; i < ch; i++) {
			h[i] = 0.f;
			h[ch + i] = 1.f;
		}
		CUDA_TRY(d, cudaFree(s->dev));
		s->dev = NULL;
		s->bytes = 0;
		s->chan = 0;
		cudaError_t e = cudaMalloc(&s->dev, bytes);
		if (e == cudaSuccess)
			e = cudaMemset(s->dev, 0, 256);
		if (e == cudaSuccess)
			e = cudaMemcpy((char *)s->dev + 256, h,
			               2 * (size_t)ch * sizeof(float),
			               cudaMemcpyHostToDevice);
		free(h);
		if (e != cudaSuccess) {
			cudaFree(s->dev);
			s->dev = NULL;
			return krl_cuda_fail(d, e, "batchnorm running stats",
			                     __FILE__, __LINE__);
		}
		s->bytes = bytes;
		s->chan = ch;
	}
	*out = s;
	return KRL_OK;
}

static int64_t *counter(norm_state *s)
{
	return (int64_t *)s->dev;
}

static float *run_mean(norm_state *s)
{
	return (float *)((char *)s->dev + 256);
}

static float *run_var(norm_state *s)
{
	return run_mean(s) + s->chan;
}

enum { BN_CUDNN, BN_CL, BN_NCHW };

/* PyTorch's choice for x (contiguous, f32, weight and bias present). */
static int backend(const krl_tensor *x, double eps)
{
	int64_t n = krl_tensor_numel(x), m = krl_ops_prod(x, 2, x->ndim);
	if (x->ndim >= 3 && x->ndim <= 5 && x->dim[0] <= BN_CUDNN_MAX_N &&
	    n < INT32_MAX && eps >= CUDNN_BN_MIN_EPSILON)
		return BN_CUDNN;
	if ((m == 1 || (x->dim[1] == 1 && x->ndim >= 4 && x->ndim <= 5)) &&
	    n <= INT32_MAX)
		return BN_CL;
	return BN_NCHW;
}

/* The scratch after reduce.cu's semaphores (which must stay zero). */
static void *scratch(krl_opctx *c, int64_t *bytes)
{
	*bytes = (int64_t)c->scratch_bytes - KRL_REDUCE_SEM_BYTES;
	return (char *)c->scratch + KRL_REDUCE_SEM_BYTES;
}

/* cudnnBatchNormalizationForwardTrainingEx as PyTorch's cudnn_batch_norm
 * calls it. */
static krl_err run_cudnn(krl_opctx *c, norm_state *s, const krl_tensor *x,
                         const krl_tensor *in, const krl_tensor *y,
                         double eps, krl_diag *d)
{
	void *hv = NULL;
	krl_err r = krl_ops_cudnn_handle(c, &hv, d);
	if (r)
		return r;
	cudnnHandle_t h = hv;
	if (!s->xd)
		CUDNN_TRY(cudnnCreateTensorDescriptor(&s->xd), d);
	if (!s->sd)
		CUDNN_TRY(cudnnCreateTensorDescriptor(&s->sd), d);
	int nd = x->ndim < 4 ? 4 : x->ndim;
	int dim[5], st[5], sdim[5], sst[5];
	for (int i = 0; i < nd; i++) {
		dim[i] = i < x->ndim ? (int)x->dim[i] : 1;
		sdim[i] = i == 1 ? dim[1] : 1;
	}
	st[nd - 1] = 1;
	sst[nd - 1] = 1;
	for (int i = nd - 2; i >= 0; i--) {
		st[i] = st[i + 1] * dim[i + 1];
		sst[i] = sst[i + 1] * sdim[i + 1];
	}
	CUDNN_TRY(cudnnSetTensorNdDescriptor(s->xd, CUDNN_DATA_FLOAT, nd, dim,
	                                     st), d);
	CUDNN_TRY(cudnnSetTensorNdDescriptor(s->sd, CUDNN_DATA_FLOAT, nd,
	                                     sdim, sst), d);
	cudnnBatchNormMode_t mode = CUDNN_BATCHNORM_SPATIAL;
	cudnnBatchNormOps_t ops = CUDNN_BATCHNORM_OPS_BN;
	size_t ws = 0, rs = 0;
	CUDNN_TRY(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
		h, mode, ops, s->xd, s->xd, s->xd, s->sd, NULL, &ws), d);
	CUDNN_TRY(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
		h, mode, ops, NULL, s->xd, &rs), d);
	/* scratch: saveMean, saveInvVariance, reserve space, workspace */
	int64_t have;
	char *p = scratch(c, &have);
	int64_t stat = ((int64_t)dim[1] * 2 * 4 + 255) / 256 * 256;
	int64_t rsp = ((int64_t)rs + 255) / 256 * 256;
	if (stat + rsp + (int64_t)ws > have)
		return krl_diag_set(d, KRL_EUNSUPPORTED, nopos,
		                    "batchnorm: cuDNN needs %lld bytes of "
		                    "scratch, the context has %lld",
		                    (long long)(stat + rsp + (int64_t)ws),
		                    (long long)have);
	float *save_mean = (float *)p, *save_inv = save_mean + dim[1];
	void *reserve = rs ? p + stat : NULL, *work = ws ? p + stat + rsp : NULL;
	const float one = 1.f, zero = 0.f;
	CUDNN_TRY(cudnnBatchNormalizationForwardTrainingEx(
		h, mode, ops, &one, &zero, s->xd, x->data, NULL, NULL, s->xd,
		y->data, s->sd, in[1].data, in[2].data, BN_MOMENTUM,
		run_mean(s), run_var(s), eps, save_mean, save_inv, NULL,
		work, ws, reserve, rs), d);
	return KRL_OK;
}

KRL_RUN(batchnorm)
{
	const krl_tensor *x = &in[0];
	int64_t n = x->dim[0], ch = x->dim[1], m = krl_ops_prod(x, 2, x->ndim);
	double eps = krl_attrs_get(a, "eps", 1e-5);
	norm_state *s = NULL;
	krl_err r = state_get(c, ch, &s, d);
	if (r)
		return r;
	CUDA_TRY(d, krl_kn_bn_count(counter(s), c->stream));
	int64_t bytes;
	void *sp = scratch(c, &bytes);
	switch (backend(x, eps)) {
	case BN_CUDNN:
		return run_cudnn(c, s, x, in, &out[0], eps, d);
	case BN_CL: {
		/* [N, C] with one element per (n, c), or one channel of
		 * N * spatial rows */
		int64_t rows = m == 1 ? n : n * m, cc = m == 1 ? ch : 1;
		if (KRL_BNCL_SCRATCH_MIN(cc) > bytes)
			break;
		CUDA_TRY(d, krl_kn_batchnorm_cl(
			x->data, in[1].data, in[2].data, out[0].data, rows,
			cc, (float)eps, (float)BN_MOMENTUM, run_mean(s),
			run_var(s), sp, bytes, c->stream));
		return KRL_OK;
	}
	default:
		break;
	}
	if ((int64_t)KRL_BN_SCRATCH_FLOATS(ch) * 4 > bytes)
		return krl_diag_set(d, KRL_EUNSUPPORTED, nopos,
		                    "batchnorm: needs %lld bytes of scratch, "
		                    "the context has %lld",
		                    (long long)KRL_BN_SCRATCH_FLOATS(ch) * 4,
		                    (long long)bytes);
	CUDA_TRY(d, krl_kn_batchnorm(x->data, in[1].data, in[2].data,
	                              out[0].data, n, ch, m, (float)eps,
	                              c->sm_count, sp, bytes, c->stream));
	return KRL_OK;
}
