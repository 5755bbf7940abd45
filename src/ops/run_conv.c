/*
 * kernelrl: the GPU drivers of the op family "conv" through cuDNN, as
 * PyTorch eager runs nn.ConvNd / ConvTransposeNd on float tensors with its
 * defaults (docs/ops-conv.md):
 *
 * - conv is cudnnConvolutionForward, conv_transpose is
 *   cudnnConvolutionBackwardData (the gradient of a convolution with
 *   respect to its input is the transposed convolution; the filter keeps
 *   PyTorch's ConvTranspose layout [Cin, Cout / groups, k...]); the bias, if
 *   any, is added afterwards (cudnnAddTensor), as PyTorch adds it;
 * - NCHW / NCDHW packed tensors, 1D as 2D with a unit height;
 * - compute type float, math type CUDNN_DEFAULT_MATH (TF32 allowed:
 *   torch.backends.cudnn.allow_tf32 defaults to true), then the math type
 *   the chosen algorithm reports;
 * - the algorithm is the first one cuDNN's heuristics (the _v7 queries)
 *   rank whose status is success and whose workspace can be allocated, as
 *   PyTorch chooses without benchmark mode; the choice and descriptors are
 *   cached per problem;
 * - batches whose tensors exceed 2^31 - 1 elements run in chunks of at
 *   most 256 Mi elements per tensor, as PyTorch splits them.
 *
 * The op context (opctx.c) has no room for cuDNN state and is shared code,
 * so this file keeps its own side table: one entry per krl_opctx (found by
 * pointer and device, under a mutex) holding a cuDNN handle, a workspace
 * that grows to the largest size an algorithm asked for, and the plan
 * cache. Entries are never freed before the process exits: a freed and
 * re-created opctx at the same address on the same device reuses the
 * entry (the handle and workspace belong to the device's primary context,
 * which outlives it). An opctx is used by one thread at a time, so an
 * entry needs no lock once found.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cudnn.h>

#include "ops/conv.h"

static const krl_pos nopos = { 0, 0, 0 };

/* ==== Errors ==== */

/* Records "file:line: expr: cuDNN's error string" and returns KRL_ECUDA. */
static krl_err cudnn_fail(cudnnStatus_t st, const char *expr,
                          const char *file, int line, krl_diag *d)
{
	return krl_diag_set(d, KRL_ECUDA, nopos, "%s:%d: %s: %s", file, line,
	                    expr, cudnnGetErrorString(st));
}

#define CUDNN_TRY(call, d)                                                 \
	do {                                                               \
		cudnnStatus_t krl_st_ = (call);                            \
		if (krl_st_ != CUDNN_STATUS_SUCCESS)                       \
			return cudnn_fail(krl_st_, #call, __FILE__,        \
			                  __LINE__, (d));                  \
	} while (0)

/* ==== Plans and the per-context table ==== */

#define CONV_CACHE 32

/* The problem a plan solves, as cuDNN sees it (4 or 5 dims; batch is the
 * chunk's). Zeroed before filling so that memcmp compares it. */
typedef struct conv_key {
	int transposed, nd;
	int xdim[5], wdim[5], ydim[5];
	int pad[3], stride[3], dil[3];
	int groups;
} conv_key;

typedef struct conv_plan {
	int used;
	conv_key key;
	cudnnTensorDescriptor_t xd, yd, bd;   /* bd: [1, Cout, 1, ...] */
	cudnnFilterDescriptor_t wd;
	cudnnConvolutionDescriptor_t cd;
	int algo;            /* cudnnConvolutionFwdAlgo_t or BwdDataAlgo_t */
	size_t ws_bytes;
	uint64_t last;
} conv_plan;

typedef struct conv_ctx {
	struct conv_ctx *next;
	const krl_opctx *owner;
	int device;
	cudnnHandle_t h;
	void *ws;                  /* device workspace, grown on demand */
	size_t ws_bytes;
	conv_plan plan[CONV_CACHE];
	uint64_t clock;
} conv_ctx;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static conv_ctx *g_ctxs;

/* The entry of opctx c, created (with its cuDNN handle) on first use. */
static krl_err conv_ctx_get(krl_opctx *c, conv_ctx **out, krl_diag *d)
{
	krl_err r = KRL_OK;
	pthread_mutex_lock(&g_lock);
	conv_ctx *e = g_ctxs;
	while (e && !(e->owner == c && e->device == c->device))
		e = e->next;
	if (!e) {
		e = calloc(1, sizeof *e);
		if (!e) {
			r = krl_diag_set(d, KRL_ENOMEM, nopos,
			                 "conv: out of host memory");
			goto done;
		}
		cudnnStatus_t st = cudnnCreate(&e->h);
		if (st != CUDNN_STATUS_SUCCESS) {
			free(e);
			e = NULL;
			r = cudnn_fail(st, "cudnnCreate(&e->h)", __FILE__,
			               __LINE__, d);
			goto done;
		}
		e->owner = c;
		e->device = c->device;
		e->next = g_ctxs;
		g_ctxs = e;
	}
done:
	pthread_mutex_unlock(&g_lock);
	*out = e;
	return r;
}

static void plan_free(conv_plan *p)
{
	if (p->xd)
		cudnnDestroyTensorDescriptor(p->xd);
	if (p->yd)
		cudnnDestroyTensorDescriptor(p->yd);
	if (p->bd)
		cudnnDestroyTensorDescriptor(p->bd);
	if (p->wd)
		cudnnDestroyFilterDescriptor(p->wd);
	if (p->cd)
		cudnnDestroyConvolutionDescriptor(p->cd);
	memset(p, 0, sizeof *p);
}

/* Makes the workspace at least `bytes` long. Returns KRL_OK, KRL_ENOMEM
 * when the device has no room (the caller tries the next algorithm, as
 * PyTorch does when its workspace allocation fails), or KRL_ECUDA. Growing
 * frees the old buffer (cudaFree waits for the device, so work already
 * queued on it is finished) and is refused while the stream is being
 * captured into a graph. */
static krl_err ws_reserve(conv_ctx *e, krl_opctx *c, size_t bytes,
                          krl_diag *d)
{
	if (bytes <= e->ws_bytes)
		return KRL_OK;
	enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
	KRL_CUDA_TRY(cudaStreamIsCapturing((cudaStream_t)c->stream, &cs), d);
	if (cs != cudaStreamCaptureStatusNone)
		return krl_diag_set(d, KRL_ECUDA, nopos, "conv: the cuDNN "
		                    "workspace must grow to %zu bytes during a "
		                    "graph capture; run the plan once before "
		                    "capturing it", bytes);
	KRL_CUDA_TRY(cudaFree(e->ws), d);
	e->ws = NULL;
	e->ws_bytes = 0;
	cudaError_t ce = cudaMalloc(&e->ws, bytes);
	if (ce == cudaErrorMemoryAllocation) {
		(void)cudaGetLastError();
		e->ws = NULL;
		return KRL_ENOMEM;
	}
	KRL_CUDA_TRY(ce, d);
	e->ws_bytes = bytes;
	return KRL_OK;
}

static void packed_strides(const int *dim, int nd, int *stride)
{
	stride[nd - 1] = 1;
	for (int i = nd - 2; i >= 0; i--)
		stride[i] = stride[i + 1] * dim[i + 1];
}

/* Chooses the algorithm of a plan whose descriptors are set: the first
 * result of the heuristics with status success whose workspace (the larger
 * of the reported and the queried size) can be allocated. */
static krl_err choose_algo(conv_ctx *e, krl_opctx *c, conv_plan *p,
                           krl_diag *d)
{
	cudnnHandle_t h = e->h;
	if (!p->key.transposed) {
		cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
		int got = 0;
		CUDNN_TRY(cudnnGetConvolutionForwardAlgorithm_v7(h, p->xd, p->wd,
		          p->cd, p->yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got,
		          perf), d);
		for (int i = 0; i < got; i++) {
			if (perf[i].status != CUDNN_STATUS_SUCCESS)
				continue;
			CUDNN_TRY(cudnnSetConvolutionMathType(p->cd,
			          perf[i].mathType), d);
			size_t sz = 0;
			if (cudnnGetConvolutionForwardWorkspaceSize(h, p->xd,
			    p->wd, p->cd, p->yd, perf[i].algo, &sz) !=
			    CUDNN_STATUS_SUCCESS)
				continue;
			if (perf[i].memory > sz)
				sz = perf[i].memory;
			krl_err r = ws_reserve(e, c, sz, d);
			if (r == KRL_ENOMEM)
				continue;
			if (r)
				return r;
			p->algo = (int)perf[i].algo;
			p->ws_bytes = sz;
			return KRL_OK;
		}
	} else {
		cudnnConvolutionBwdDataAlgoPerf_t
			perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
		int got = 0;
		/* backward data of the conv mapping y to x: dy is our x, dx
		 * is our y */
		CUDNN_TRY(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, p->wd,
		          p->xd, p->cd, p->yd,
		          CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, perf), d);
		for (int i = 0; i < got; i++) {
			if (perf[i].status != CUDNN_STATUS_SUCCESS)
				continue;
			CUDNN_TRY(cudnnSetConvolutionMathType(p->cd,
			          perf[i].mathType), d);
			size_t sz = 0;
			if (cudnnGetConvolutionBackwardDataWorkspaceSize(h, p->wd,
			    p->xd, p->cd, p->yd, perf[i].algo, &sz) !=
			    CUDNN_STATUS_SUCCESS)
				continue;
			if (perf[i].memory > sz)
				sz = perf[i].memory;
			krl_err r = ws_reserve(e, c, sz, d);
			if (r == KRL_ENOMEM)
				continue;
			if (r)
				return r;
			p->algo = (int)perf[i].algo;
			p->ws_bytes = sz;
			return KRL_OK;
		}
	}
	return krl_diag_set(d, KRL_ECUDA, nopos, "conv: cuDNN offers no "
	                    "algorithm for this %s (or none whose workspace "
	                    "fits in device memory)",
	                    p->key.transposed ? "transposed convolution"
	                                      : "convolution");
}

/* Sets a new plan's descriptors from its key and chooses its algorithm. */
static krl_err plan_build(conv_ctx *e, krl_opctx *c, conv_plan *p,
                          krl_diag *d)
{
	const conv_key *k = &p->key;
	int st[5];
	CUDNN_TRY(cudnnCreateTensorDescriptor(&p->xd), d);
	CUDNN_TRY(cudnnCreateTensorDescriptor(&p->yd), d);
	CUDNN_TRY(cudnnCreateTensorDescriptor(&p->bd), d);
	CUDNN_TRY(cudnnCreateFilterDescriptor(&p->wd), d);
	CUDNN_TRY(cudnnCreateConvolutionDescriptor(&p->cd), d);
	packed_strides(k->xdim, k->nd, st);
	CUDNN_TRY(cudnnSetTensorNdDescriptor(p->xd, CUDNN_DATA_FLOAT, k->nd,
	                                     k->xdim, st), d);
	packed_strides(k->ydim, k->nd, st);
	CUDNN_TRY(cudnnSetTensorNdDescriptor(p->yd, CUDNN_DATA_FLOAT, k->nd,
	                                     k->ydim, st), d);
	int bdim[5] = { 1, k->ydim[1], 1, 1, 1 };
	packed_strides(bdim, k->nd, st);
	CUDNN_TRY(cudnnSetTensorNdDescriptor(p->bd, CUDNN_DATA_FLOAT, k->nd,
	                                     bdim, st), d);
	CUDNN_TRY(cudnnSetFilterNdDescriptor(p->wd, CUDNN_DATA_FLOAT,
	                                     CUDNN_TENSOR_NCHW, k->nd,
	                                     k->wdim), d);
	CUDNN_TRY(cudnnSetConvolutionNdDescriptor(p->cd, k->nd - 2, k->pad,
	          k->stride, k->dil, CUDNN_CROSS_CORRELATION,
	          CUDNN_DATA_FLOAT), d);
	CUDNN_TRY(cudnnSetConvolutionGroupCount(p->cd, k->groups), d);
	/* what PyTorch sets for float with allow_tf32 before asking the
	 * heuristics; the chosen algorithm's math type replaces it */
	CUDNN_TRY(cudnnSetConvolutionMathType(p->cd, CUDNN_DEFAULT_MATH), d);
	return choose_algo(e, c, p, d);
}

/* The cached plan for key k, built on a miss (evicting the least recently
 * used). On failure nothing is cached. */
static krl_err plan_get(conv_ctx *e, krl_opctx *c, const conv_key *k,
                        conv_plan **out, krl_diag *d)
{
	conv_plan *lru = &e->plan[0];
	for (int i = 0; i < CONV_CACHE; i++) {
		conv_plan *p = &e->plan[i];
		if (p->used && memcmp(&p->key, k, sizeof *k) == 0) {
			p->last = ++e->clock;
			*out = p;
			return KRL_OK;
		}
		if (!p->used || (lru->used && p->last < lru->last))
			lru = p;
	}
	plan_free(lru);
	lru->key = *k;
	krl_err r = plan_build(e, c, lru, d);
	if (r) {
		plan_free(lru);
		return r;
	}
	lru->used = 1;
	lru->last = ++e->clock;
	*out = lru;
	return KRL_OK;
}

/* ==== Driver ==== */

/* The key of a chunk of `batch` samples of the call with geometry g. */
static void make_key(const krl_conv_geom *g, const krl_tensor *w,
                     int64_t batch, conv_key *k)
{
	memset(k, 0, sizeof *k);
	k->transposed = g->transposed;
	/* 1D runs as 2D with a unit height, as PyTorch's view4d */
	int nsp = g->nsp == 1 ? 2 : g->nsp, off = nsp - g->nsp;
	k->nd = nsp + 2;
	k->xdim[0] = k->ydim[0] = (int)batch;
	k->xdim[1] = (int)g->cin;
	k->ydim[1] = (int)g->cout;
	k->wdim[0] = (int)w->dim[0];
	k->wdim[1] = (int)w->dim[1];
	for (int i = 0; i < nsp; i++) {
		k->xdim[2 + i] = k->ydim[2 + i] = k->wdim[2 + i] = 1;
		k->pad[i] = 0;
		k->stride[i] = k->dil[i] = 1;
	}
	for (int i = 0; i < g->nsp; i++) {
		k->xdim[2 + off + i] = (int)g->in[i];
		k->ydim[2 + off + i] = (int)g->out[i];
		k->wdim[2 + off + i] = (int)g->k[i];
		k->pad[off + i] = (int)g->pad[i];
		k->stride[off + i] = (int)g->stride[i];
		k->dil[off + i] = (int)g->dil[i];
	}
	k->groups = (int)g->groups;
}

/* Runs one chunk: y = conv(x, w) or conv_transpose(x, w), then + b. */
static krl_err run_chunk(conv_ctx *e, krl_opctx *c, const conv_plan *p,
                         const float *x, const float *w, const float *b,
                         float *y, krl_diag *d)
{
	const float one = 1.f, zero = 0.f;
	if (!p->key.transposed)
		CUDNN_TRY(cudnnConvolutionForward(e->h, &one, p->xd, x, p->wd, w,
		          p->cd, (cudnnConvolutionFwdAlgo_t)p->algo, e->ws,
		          p->ws_bytes, &zero, p->yd, y), d);
	else
		CUDNN_TRY(cudnnConvolutionBackwardData(e->h, &one, p->wd, w,
		          p->xd, x, p->cd,
		          (cudnnConvolutionBwdDataAlgo_t)p->algo, e->ws,
		          p->ws_bytes, &zero, p->yd, y), d);
	if (b)
		CUDNN_TRY(cudnnAddTensor(e->h, &one, p->bd, b, &one, p->yd, y),
		          d);
	return KRL_OK;
}

/* The four ops: split the batch when a tensor exceeds 2^31 - 1 elements
 * (PyTorch's split_batch_dim_to_32bit_out with its 256 Mi work size),
 * then run each chunk through its cached plan. */
static krl_err run_conv_any(krl_opctx *c, int transposed, int bias,
                            const krl_tensor *in, const krl_tensor *out,
                            const krl_attrs *a, krl_diag *d)
{
	krl_conv_geom g;
	krl_conv_geom_get(transposed, in, a, &g);
	conv_ctx *e = NULL;
	krl_err r = conv_ctx_get(c, &e, d);
	if (r)
		return r;
	CUDNN_TRY(cudnnSetStream(e->h, (cudaStream_t)c->stream), d);
	int64_t xin = krl_ops_prod(&in[0], 1, in[0].ndim);
	int64_t yin = krl_ops_prod(&out[0], 1, out[0].ndim);
	int64_t chunk = g.n;
	if (g.n * xin > INT_MAX || g.n * yin > INT_MAX) {
		int64_t inner = xin > yin ? xin : yin;
		chunk = ((int64_t)256 << 20) / inner;
		if (chunk < 1)
			chunk = 1;
	}
	const float *x = in[0].data, *w = in[1].data;
	const float *b = bias ? in[2].data : NULL;
	float *y = out[0].data;
	for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
		int64_t nb = g.n - n0 < chunk ? g.n - n0 : chunk;
		conv_key k;
		make_key(&g, &in[1], nb, &k);
		conv_plan *p = NULL;
		if ((r = plan_get(e, c, &k, &p, d)) ||
		    (r = run_chunk(e, c, p, x + n0 * xin, w, b, y + n0 * yin,
		                   d)))
			return r;
	}
	return KRL_OK;
}

KRL_RUN(conv) { return run_conv_any(c, 0, 0, in, out, a, d); }
KRL_RUN(conv_bias) { return run_conv_any(c, 0, 1, in, out, a, d); }
KRL_RUN(conv_transpose) { return run_conv_any(c, 1, 0, in, out, a, d); }
KRL_RUN(conv_transpose_bias)
{
	return run_conv_any(c, 1, 1, in, out, a, d);
}
