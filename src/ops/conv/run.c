/*
 * kernelrl: the GPU drivers of the op family "conv", as PyTorch eager runs
 * nn.ConvNd / ConvTransposeNd on float tensors with its defaults
 * (cudnn.benchmark off, allow_tf32 on; docs/ops-conv.md):
 *
 * - depthwise convolutions (not transposed, groups == Cin > 1) do not go to
 *   cuDNN: PyTorch's _select_conv_backend sends fp32 NCHW ones to its own
 *   conv_depthwise2d / conv_depthwise3d kernels, ours in depthwise.cu;
 * - everything else goes to cuDNN through its backend (graph) API, as
 *   PyTorch's Conv_v8.cpp does by default: one operation graph holding a
 *   convolution-forward operation (conv) or a backward-data operation with
 *   x as dy and y as dx (conv_transpose: the gradient of a convolution with
 *   respect to its input is the transposed convolution; the filter keeps
 *   PyTorch's ConvTranspose layout [Cin, Cout / groups, k...], the groups
 *   implied by the channel counts); packed NCHW / NCDHW tensors, 1D as 2D
 *   with a unit height; compute type float;
 * - the engine is the first config of cuDNN's heuristics in mode INSTANT,
 *   less those whose engine down-converts its inputs (TF32 tensor-core
 *   engines stay: allow_tf32), that builds into a plan, gets its workspace
 *   and runs; when none does, the same over the FALLBACK mode's configs
 *   (PyTorch's get_configs_from_heuristics / try_configs). The `algo`
 *   attribute K (the optimizer's choice; the eager reference never sets
 *   it) takes the K-th such usable config instead, counting from 0 over
 *   INSTANT's list then FALLBACK's; on the legacy path, the K-th usable
 *   algorithm of the _v7 heuristics. A depthwise convolution (own kernel,
 *   one algorithm) ignores it. The whole batch
 *   is one plan: with the backend API PyTorch leaves large tensors to cuDNN;
 * - the bias, if any, is added afterwards (cudnnAddTensor), as PyTorch adds
 *   it after the convolution;
 * - `layout=nhwc` (the optimizer's choice; never the reference's) runs the
 *   same cuDNN call on channels-last tensors: x is transposed to
 *   [N, s..., C] and w to cuDNN's NHWC filter format [K, k..., C/g] in a
 *   second buffer of the entry (conv_layout.cu; w on every call, since
 *   params may change between calls), cuDNN runs with NHWC strides (legacy
 *   path: NHWC strides and the NHWC filter format) into a channels-last y,
 *   which is transposed back with the bias added on the way. `algo` then
 *   counts the engines of the NHWC problem. A problem cuDNN cannot run in
 *   NHWC is KRL_EUNSUPPORTED naming the op. Depthwise convolutions ignore
 *   the layout (their kernel reads NCHW);
 * - `layout=nhwc_y` (the optimizer's, for a convolution without bias whose
 *   output only its generated kernels read) runs as nhwc but cuDNN writes
 *   y channels-last straight into the output buffer: no transpose back;
 *   the reader indexes it so. Depthwise convolutions refuse it;
 * - `layout=nhwc_xy` (the optimizer's, where a generated kernel wrote x
 *   channels-last too) runs as nhwc_y with cuDNN reading x's buffer as
 *   it is: only w is transposed. Depthwise convolutions refuse it;
 * - `w_layout=krsc` (with any of the three: the optimizer's derived copy
 *   of w, transposed in the plan's init) has cuDNN read w as it is: no
 *   transpose of w. Depthwise convolutions refuse it;
 * - KRL_CUDNN_V7=1 in the environment selects the legacy path instead
 *   (PyTorch's TORCH_CUDNN_V8_API_DISABLED=1): cudnnConvolutionForward /
 *   BackwardData with the first algorithm of the _v7 heuristics whose
 *   workspace can be allocated, batches over 2^31 - 1 elements split into
 *   chunks of 256 Mi elements per tensor.
 *
 * The family's state lives in its slot of the op context (opctx.c,
 * krl_opctx_slot), made on the first convolution that needs cuDNN and
 * freed with the context (krl_conv_state_free): a cuDNN handle, a
 * workspace that grows to the largest size a plan asked for, a buffer for
 * the channels-last copies that grows to the largest call made with
 * layout=nhwc, and the plan cache. An opctx is used by one thread at a
 * time, so its state needs no lock.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cudnn.h>

#include "ops/conv/conv.h"
#include "runtime/cudacheck.h"

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

/* The same inside a function that cleans up at its label `fail` with the
 * result in `r`. */
#define CUDNN_GO(call, d)                                                  \
	do {                                                               \
		cudnnStatus_t krl_st_ = (call);                            \
		if (krl_st_ != CUDNN_STATUS_SUCCESS) {                     \
			r = cudnn_fail(krl_st_, #call, __FILE__, __LINE__, \
			               (d));                               \
			goto fail;                                         \
		}                                                          \
	} while (0)

/* d's message, for a new message that quotes it (d may be NULL). */
#define DMSG(d) ((d) ? (d)->msg : "")

/* ==== Plans and the per-context table ==== */

/* Plans kept per context. A network calls many distinct convolutions in
 * turn (DenseNet201: ~100 shapes), and a plan rebuilt on every call costs
 * milliseconds of cuDNN planning (level-3 7, 15 and 16 ran 20-33x slower
 * than PyTorch eager with 32) and cannot happen inside a CUDA-graph
 * capture; PyTorch keeps every shape's plan. */
#define CONV_CACHE 1024

enum { API_V7 = 0, API_V8 = 1 };

/* The problem a plan solves, as cuDNN sees it (4 or 5 dims; batch is the
 * chunk's on the legacy path). Zeroed before filling so that memcmp
 * compares it. */
typedef struct conv_key {
	int api, transposed, nd;
	int xdim[5], wdim[5], ydim[5];
	int pad[3], stride[3], dil[3];
	int groups;
	int align[3];        /* backend path: byte alignment of x, w, y */
	int algo;            /* the `algo` attribute: usable configs skipped */
	int layout;          /* the `layout` attribute: KRL_LAYOUT_NCHW or
	                        KRL_LAYOUT_NHWC (x, w and y all in it) */
	int strict;          /* no TF32 (krl_opctx_set_tf32(c, 0): a task of
	                        precision fp32, cudnn.allow_tf32 = False) */
} conv_key;

typedef struct conv_plan {
	int used;
	uint64_t hash;       /* key_hash(&key): compared before the key */
	conv_key key;
	/* legacy path */
	cudnnTensorDescriptor_t xd, yd;
	cudnnFilterDescriptor_t wd;
	cudnnConvolutionDescriptor_t cd;
	int algo;            /* cudnnConvolutionFwdAlgo_t or BwdDataAlgo_t */
	/* backend path: tensors x, w, y, the convolution, the operation, its
	 * graph, the chosen engine config and the plan built from it */
	cudnnBackendDescriptor_t bt[3], bconv, bop, bgraph, bcfg, bplan;
	size_t ws_bytes;
	uint64_t last;
} conv_plan;

typedef struct conv_ctx {
	cudnnHandle_t h;
	cudnnTensorDescriptor_t bd, byd;   /* bias add: [1, C, 1...], y */
	void *ws;                  /* device workspace, grown on demand */
	size_t ws_bytes;
	void *lay;                 /* layout=nhwc: the channels-last x, w and
	                              y, grown on demand */
	size_t lay_bytes;
	conv_plan plan[CONV_CACHE];
	int nplan;                 /* plan[0..nplan) have been used */
	uint64_t clock;
} conv_ctx;

static void plan_free(conv_plan *p);

/* Destroys tensor descriptor d unless it is NULL (never made). */
static void td_destroy(cudnnTensorDescriptor_t d)
{
	if (d)
		cudnnDestroyTensorDescriptor(d);
}

/* Frees an entry: its plans, device buffers, descriptors and handle. */
static void ctx_destroy(conv_ctx *e)
{
	for (int i = 0; i < CONV_CACHE; i++)
		plan_free(&e->plan[i]);
	cudaFree(e->ws);
	cudaFree(e->lay);
	td_destroy(e->bd);
	td_destroy(e->byd);
	if (e->h)
		cudnnDestroy(e->h);
	free(e);
}

void krl_conv_state_free(void *state)
{
	ctx_destroy(state);
}

/* A new entry with its cuDNN handle and bias descriptors, or NULL. */
static krl_err ctx_create(conv_ctx **out, krl_diag *d)
{
	krl_err r = KRL_OK;
	conv_ctx *e = calloc(1, sizeof *e);
	*out = NULL;
	if (!e)
		return krl_diag_set(d, KRL_ENOMEM, nopos,
		                    "conv: out of host memory");
	CUDNN_GO(cudnnCreate(&e->h), d);
	CUDNN_GO(cudnnCreateTensorDescriptor(&e->bd), d);
	CUDNN_GO(cudnnCreateTensorDescriptor(&e->byd), d);
	*out = e;
	return KRL_OK;
fail:
	ctx_destroy(e);
	return r;
}

/* The conv family's state in opctx c, made on first use. */
static krl_err conv_ctx_get(krl_opctx *c, conv_ctx **out, krl_diag *d)
{
	void **slot = krl_opctx_slot(c, &krl_family_conv);
	krl_err r = KRL_OK;
	if (!*slot) {
		conv_ctx *e = NULL;
		if ((r = ctx_create(&e, d)) != KRL_OK) {
			*out = NULL;
			return r;
		}
		*slot = e;
	}
	*out = *slot;
	return KRL_OK;
}

krl_err krl_ops_cudnn_handle(krl_opctx *c, void **h, krl_diag *d)
{
	conv_ctx *e = NULL;
	krl_err r = conv_ctx_get(c, &e, d);
	*h = NULL;
	if (r)
		return r;
	CUDNN_TRY(cudnnSetStream(e->h, (cudaStream_t)c->stream), d);
	*h = e->h;
	return KRL_OK;
}

static void be_destroy(cudnnBackendDescriptor_t *b)
{
	if (*b)
		cudnnBackendDestroyDescriptor(*b);
	*b = NULL;
}

static void plan_free(conv_plan *p)
{
	td_destroy(p->xd);
	td_destroy(p->yd);
	if (p->wd)
		cudnnDestroyFilterDescriptor(p->wd);
	if (p->cd)
		cudnnDestroyConvolutionDescriptor(p->cd);
	be_destroy(&p->bplan);
	be_destroy(&p->bcfg);
	be_destroy(&p->bgraph);
	be_destroy(&p->bop);
	be_destroy(&p->bconv);
	for (int i = 0; i < 3; i++)
		be_destroy(&p->bt[i]);
	memset(p, 0, sizeof *p);
}

/* The cuDNN workspace, at least `bytes` long (krl_opctx_grow). On KRL_ENOMEM
 * the caller tries the next engine or algorithm, as PyTorch does when its
 * workspace allocation fails. */
static krl_err ws_reserve(conv_ctx *e, krl_opctx *c, size_t bytes,
                          krl_diag *d)
{
	return krl_opctx_grow(c, &e->ws, &e->ws_bytes, bytes,
	                      "conv: the cuDNN workspace", d);
}

static void packed_strides(const int *dim, int nd, int *stride)
{
	stride[nd - 1] = 1;
	for (int i = nd - 2; i >= 0; i--)
		stride[i] = stride[i + 1] * dim[i + 1];
}

/* "convolution" or "transposed convolution", for messages. */
static const char *conv_kind(const conv_key *k)
{
	return k->transposed ? "transposed convolution" : "convolution";
}

/* The error of a problem cuDNN does not run on channels-last tensors:
 * KRL_EUNSUPPORTED naming op and why (a candidate that asks for it fails;
 * the optimizer learns to avoid it). `why` may be d's own message. */
static krl_err nhwc_unsupported(const char *op, const conv_key *k,
                                const char *why, krl_diag *d)
{
	char buf[sizeof d->msg];
	snprintf(buf, sizeof buf, "%s", why);
	return krl_diag_set(d, KRL_EUNSUPPORTED, nopos, "%s: layout=nhwc: "
	                    "cuDNN does not run this %s on channels-last "
	                    "tensors: %s", op, conv_kind(k), buf);
}

/* When algo=K found fewer than K + 1 usable engine configs or algorithms
 * (`usable` of them, as `offers` cuDNN's list of `noun`s): with
 * layout=nhwc and none usable at all, that cuDNN does not run this on
 * channels-last tensors (nhwc_why); with K > 0, how many there are.
 * KRL_OK otherwise: the caller says that none runs at all. */
static krl_err none_usable(const char *op, const conv_key *k, int usable,
                           const char *offers, const char *noun,
                           const char *nhwc_why, krl_diag *d)
{
	int nhwc = k->layout == KRL_LAYOUT_NHWC;
	if (nhwc && usable == 0)
		return nhwc_unsupported(op, k, nhwc_why, d);
	if (k->algo > 0)
		return krl_diag_set(d, KRL_EUNSUPPORTED, nopos, "conv: algo=%d, but "
		                    "%s %d usable %s%s for this %s%s (algo counts "
		                    "from 0)", k->algo, offers, usable, noun,
		                    usable == 1 ? "" : "s", conv_kind(k),
		                    nhwc ? " with layout=nhwc" : "");
	return KRL_OK;
}

/* PyTorch's getAlignment (Conv_v8.cpp): the largest power of two up to
 * 32 that divides the address. Part of the key: an engine chosen for
 * 16-byte-aligned tensors may use vector loads a less aligned one cannot. */
static int ptr_align(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	int al = 1;
	while (al < 32 && a % (uintptr_t)(2 * al) == 0)
		al *= 2;
	return al;
}

/* ==== Backend (graph) API path ==== */

/* The unique ids of x, w and y in a plan's variant pack. */
static const int64_t k_uid[3] = { 'x', 'w', 'y' };

/* A finalized tensor descriptor: float, dims stored in `layout`
 * (KRL_LAYOUT_NHWC: channels last, by strides), id uid. */
static krl_err be_tensor(cudnnBackendDescriptor_t *t, const int *dim,
                         int nd, int layout, int64_t uid, int64_t align,
                         krl_diag *d)
{
	int64_t dims[5], st[5];
	cudnnDataType_t dt = CUDNN_DATA_FLOAT;
	bool virt = false;
	for (int i = 0; i < nd; i++)
		dims[i] = dim[i];
	krl_layout_strides(dim, nd, layout, st);
	CUDNN_TRY(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR,
	          t), d);
	CUDNN_TRY(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_DATA_TYPE,
	          CUDNN_TYPE_DATA_TYPE, 1, &dt), d);
	CUDNN_TRY(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_DIMENSIONS,
	          CUDNN_TYPE_INT64, nd, dims), d);
	CUDNN_TRY(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_STRIDES,
	          CUDNN_TYPE_INT64, nd, st), d);
	CUDNN_TRY(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_UNIQUE_ID,
	          CUDNN_TYPE_INT64, 1, &uid), d);
	CUDNN_TRY(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT,
	          CUDNN_TYPE_INT64, 1, &align), d);
	CUDNN_TRY(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_IS_VIRTUAL,
	          CUDNN_TYPE_BOOLEAN, 1, &virt), d);
	CUDNN_TRY(cudnnBackendFinalize(*t), d);
	return KRL_OK;
}

/* The plan's tensors, convolution, operation and operation graph. */
static krl_err be_graph(cudnnHandle_t h, conv_plan *p, krl_diag *d)
{
	const conv_key *k = &p->key;
	int64_t nsp = k->nd - 2, pad[3], str[3], dil[3];
	for (int i = 0; i < nsp; i++) {
		pad[i] = k->pad[i];
		str[i] = k->stride[i];
		dil[i] = k->dil[i];
	}
	krl_err r;
	if ((r = be_tensor(&p->bt[0], k->xdim, k->nd, k->layout, k_uid[0],
	                   k->align[0], d)) ||
	    (r = be_tensor(&p->bt[1], k->wdim, k->nd, k->layout, k_uid[1],
	                   k->align[1], d)) ||
	    (r = be_tensor(&p->bt[2], k->ydim, k->nd, k->layout, k_uid[2],
	                   k->align[2], d)))
		return r;

	cudnnDataType_t ct = CUDNN_DATA_FLOAT;
	cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
	CUDNN_TRY(cudnnBackendCreateDescriptor(
	          CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &p->bconv), d);
	CUDNN_TRY(cudnnBackendSetAttribute(p->bconv,
	          CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1,
	          &ct), d);
	CUDNN_TRY(cudnnBackendSetAttribute(p->bconv,
	          CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE,
	          1, &mode), d);
	CUDNN_TRY(cudnnBackendSetAttribute(p->bconv,
	          CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1,
	          &nsp), d);
	CUDNN_TRY(cudnnBackendSetAttribute(p->bconv,
	          CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, nsp,
	          pad), d);
	CUDNN_TRY(cudnnBackendSetAttribute(p->bconv,
	          CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, nsp,
	          pad), d);
	CUDNN_TRY(cudnnBackendSetAttribute(p->bconv,
	          CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, nsp,
	          str), d);
	CUDNN_TRY(cudnnBackendSetAttribute(p->bconv,
	          CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, nsp, dil),
	          d);
	CUDNN_TRY(cudnnBackendFinalize(p->bconv), d);

	/* The operation's attribute names: forward, or backward data of the
	 * conv mapping y to x (dy is our x, dx is our y). */
	static const cudnnBackendAttributeName_t fwd_attr[6] = {
		CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
		CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
		CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
		CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
		CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
		CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
	};
	static const cudnnBackendAttributeName_t bwd_attr[6] = {
		CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
		CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
		CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
		CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
		CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
		CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA,
	};
	const cudnnBackendAttributeName_t *at = k->transposed ? bwd_attr
	                                                      : fwd_attr;
	float alpha = 1.f, beta = 0.f;
	CUDNN_TRY(cudnnBackendCreateDescriptor(k->transposed
	          ? CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR
	          : CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
	          &p->bop), d);
	for (int i = 0; i < 3; i++)
		CUDNN_TRY(cudnnBackendSetAttribute(p->bop, at[i],
		          CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &p->bt[i]), d);
	CUDNN_TRY(cudnnBackendSetAttribute(p->bop, at[3],
	          CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &p->bconv), d);
	CUDNN_TRY(cudnnBackendSetAttribute(p->bop, at[4], CUDNN_TYPE_FLOAT, 1,
	          &alpha), d);
	CUDNN_TRY(cudnnBackendSetAttribute(p->bop, at[5], CUDNN_TYPE_FLOAT, 1,
	          &beta), d);
	CUDNN_TRY(cudnnBackendFinalize(p->bop), d);

	CUDNN_TRY(cudnnBackendCreateDescriptor(
	          CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &p->bgraph), d);
	CUDNN_TRY(cudnnBackendSetAttribute(p->bgraph,
	          CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
	          1, &p->bop), d);
	CUDNN_TRY(cudnnBackendSetAttribute(p->bgraph,
	          CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h),
	          d);
	CUDNN_TRY(cudnnBackendFinalize(p->bgraph), d);
	return KRL_OK;
}

/* 1 when the engine of config cfg carries numerical note `want`
 * (cudnn_frontend's hasNumericalNote: a config whose engine cannot be read
 * counts as without it). */
static int has_note(cudnnBackendDescriptor_t cfg,
                    cudnnBackendNumericalNote_t want)
{
	cudnnBackendDescriptor_t eng = NULL;
	cudnnBackendNumericalNote_t note[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
	int64_t n = 0;
	int found = 0;
	if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR,
	                                 &eng) != CUDNN_STATUS_SUCCESS)
		return 0;
	if (cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE,
	                             CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n,
	                             &eng) == CUDNN_STATUS_SUCCESS &&
	    cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
	                             CUDNN_TYPE_NUMERICAL_NOTE,
	                             CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n,
	                             note) == CUDNN_STATUS_SUCCESS)
		for (int64_t i = 0; i < n && i < CUDNN_NUMERICAL_NOTE_TYPE_COUNT;
		     i++)
			if (note[i] == want)
				found = 1;
	cudnnBackendDestroyDescriptor(eng);
	return found;
}

/*
 * The engine configs cuDNN's heuristics in `mode` give for graph gr, in
 * their order, less those that down-convert their inputs and, when
 * strict, those on tensor cores (TF32 for fp32 data): PyTorch's
 * filterEngineConfigs with deterministic off and allow_tf32 on (TF32
 * tensor-core engines stay) or off. On success *out holds *n_out configs,
 * each for the caller to destroy, in an array for it to free (NULL when
 * none).
 */
static krl_err be_configs(cudnnBackendDescriptor_t gr, int strict,
                          cudnnBackendHeurMode_t mode,
                          cudnnBackendDescriptor_t **out, int *n_out,
                          krl_diag *d)
{
	cudnnBackendDescriptor_t heur = NULL, *cfg = NULL;
	int64_t count = 0, got = 0;
	int n = 0;
	krl_err r = KRL_OK;
	*out = NULL;
	*n_out = 0;
	CUDNN_GO(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR,
	         &heur), d);
	CUDNN_GO(cudnnBackendSetAttribute(heur,
	         CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
	         CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &gr), d);
	CUDNN_GO(cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE,
	         CUDNN_TYPE_HEUR_MODE, 1, &mode), d);
	CUDNN_GO(cudnnBackendFinalize(heur), d);
	CUDNN_GO(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
	         CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, NULL), d);
	if (count <= 0)
		goto fail;
	cfg = calloc((size_t)count, sizeof *cfg);
	if (!cfg) {
		r = krl_diag_set(d, KRL_ENOMEM, nopos,
		                 "conv: out of host memory");
		goto fail;
	}
	for (int64_t i = 0; i < count; i++)
		CUDNN_GO(cudnnBackendCreateDescriptor(
		         CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg[i]), d);
	CUDNN_GO(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
	         CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got, cfg), d);
	for (int64_t i = 0; i < count; i++) {
		if (i < got &&
		    !has_note(cfg[i], CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) &&
		    !(strict &&
		      has_note(cfg[i], CUDNN_NUMERICAL_NOTE_TENSOR_CORE)))
			cfg[n++] = cfg[i];
		else
			cudnnBackendDestroyDescriptor(cfg[i]);
	}
	*out = cfg;
	*n_out = n;
	cfg = NULL;
fail:
	if (cfg) {
		for (int64_t i = 0; i < count; i++)
			if (cfg[i])
				cudnnBackendDestroyDescriptor(cfg[i]);
		free(cfg);
	}
	if (heur)
		cudnnBackendDestroyDescriptor(heur);
	return r;
}

/* An execution plan for engine config cfg and its workspace size; on
 * failure (the engine does not take this problem) nothing is kept. */
static cudnnStatus_t be_plan(cudnnHandle_t h, cudnnBackendDescriptor_t cfg,
                             cudnnBackendDescriptor_t *out, int64_t *ws)
{
	cudnnBackendDescriptor_t plan = NULL;
	int64_t got = 0;
	*ws = 0;
	cudnnStatus_t st = cudnnBackendCreateDescriptor(
		CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan);
	if (st == CUDNN_STATUS_SUCCESS)
		st = cudnnBackendSetAttribute(plan,
			CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1,
			&h);
	if (st == CUDNN_STATUS_SUCCESS)
		st = cudnnBackendSetAttribute(plan,
			CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
			CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg);
	if (st == CUDNN_STATUS_SUCCESS)
		st = cudnnBackendFinalize(plan);
	if (st == CUDNN_STATUS_SUCCESS)
		st = cudnnBackendGetAttribute(plan,
			CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
			CUDNN_TYPE_INT64, 1, &got, ws);
	if (st == CUDNN_STATUS_SUCCESS && *ws < 0)
		st = CUDNN_STATUS_BAD_PARAM;
	if (st != CUDNN_STATUS_SUCCESS && plan) {
		cudnnBackendDestroyDescriptor(plan);
		plan = NULL;
	}
	*out = plan;
	return st;
}

/* Runs plan on x, w, y (ptr, in k_uid's order) with workspace ws. */
static cudnnStatus_t be_execute(cudnnHandle_t h,
                                cudnnBackendDescriptor_t plan, void *ws,
                                void *const ptr[3])
{
	cudnnBackendDescriptor_t vp = NULL;
	cudnnStatus_t st = cudnnBackendCreateDescriptor(
		CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp);
	if (st == CUDNN_STATUS_SUCCESS)
		st = cudnnBackendSetAttribute(vp,
			CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3,
			k_uid);
	if (st == CUDNN_STATUS_SUCCESS)
		st = cudnnBackendSetAttribute(vp,
			CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
			CUDNN_TYPE_VOID_PTR, 3, ptr);
	if (st == CUDNN_STATUS_SUCCESS)
		st = cudnnBackendSetAttribute(vp,
			CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR,
			1, &ws);
	if (st == CUDNN_STATUS_SUCCESS)
		st = cudnnBackendFinalize(vp);
	if (st == CUDNN_STATUS_SUCCESS)
		st = cudnnBackendExecute(h, plan, vp);
	if (vp)
		cudnnBackendDestroyDescriptor(vp);
	return st;
}

/* PyTorch's try_configs: the first of the n configs that builds into a
 * plan, gets its workspace and runs on ptr becomes p's (*done = 1; the
 * output is then computed); the others are skipped. The config taken is
 * moved out of cfg. */
static krl_err be_try(conv_ctx *e, krl_opctx *c, conv_plan *p,
                      cudnnBackendDescriptor_t *cfg, int n,
                      void *const ptr[3], int *skip, int *done, krl_diag *d)
{
	*done = 0;
	for (int i = 0; i < n; i++) {
		cudnnBackendDescriptor_t plan = NULL;
		int64_t ws = 0;
		if (be_plan(e->h, cfg[i], &plan, &ws) != CUDNN_STATUS_SUCCESS)
			continue;
		krl_err r = ws_reserve(e, c, (size_t)ws, d);
		int ran = r == KRL_OK &&
		          be_execute(e->h, plan, e->ws, ptr) == CUDNN_STATUS_SUCCESS;
		if (ran && *skip > 0) {
			/* usable, but `algo` asks for a later one (its output
			 * is overwritten by the one taken) */
			(*skip)--;
			cudnnBackendDestroyDescriptor(plan);
			continue;
		}
		if (ran) {
			p->bplan = plan;
			p->bcfg = cfg[i];
			cfg[i] = NULL;
			p->ws_bytes = (size_t)ws;
			*done = 1;
			return KRL_OK;
		}
		cudnnBackendDestroyDescriptor(plan);
		if (r != KRL_OK && r != KRL_ENOMEM)
			return r;
		/* a failed launch must not be reported by the next check */
		(void)cudaGetLastError();
	}
	return KRL_OK;
}

/* Builds a backend plan for p->key, running it on ptr to choose it (so
 * the call's convolution is done on success): heuristics mode INSTANT,
 * then FALLBACK, as PyTorch's run_single_conv without benchmark mode. op
 * names the op in messages. */
static krl_err be_build(conv_ctx *e, krl_opctx *c, conv_plan *p,
                        void *const ptr[3], const char *op, krl_diag *d)
{
	static const cudnnBackendHeurMode_t modes[2] = {
		CUDNN_HEUR_MODE_INSTANT, CUDNN_HEUR_MODE_FALLBACK,
	};
	int nhwc = p->key.layout == KRL_LAYOUT_NHWC;
	krl_err r = be_graph(e->h, p, d), first = KRL_OK;
	int skip = p->key.algo;
	if (r == KRL_ECUDA && nhwc)
		return nhwc_unsupported(op, &p->key, DMSG(d), d);
	if (r)
		return r;
	for (int m = 0; m < 2; m++) {
		cudnnBackendDescriptor_t *cfg = NULL;
		int n = 0, done = 0;
		r = be_configs(p->bgraph, p->key.strict, modes[m], &cfg, &n, d);
		if (r == KRL_ECUDA && nhwc)
			r = nhwc_unsupported(op, &p->key, DMSG(d), d);
		if (r == KRL_OK)
			r = be_try(e, c, p, cfg, n, ptr, &skip, &done, d);
		for (int i = 0; i < n; i++)
			if (cfg[i])
				cudnnBackendDestroyDescriptor(cfg[i]);
		free(cfg);
		if (done)
			return KRL_OK;
		if (r && !first)
			first = r;
	}
	if (first)
		return first;
	if ((r = none_usable(op, &p->key, p->key.algo - skip, "cuDNN has",
	                     "engine config", "no engine config of heuristics "
	                     "modes instant and fallback builds, gets its "
	                     "workspace and runs", d)) != KRL_OK)
		return r;
	return krl_diag_set(d, KRL_ECUDA, nopos, "conv: cuDNN has no engine "
	                    "that runs this %s (heuristics modes instant and "
	                    "fallback; none whose workspace fits in device "
	                    "memory)", conv_kind(&p->key));
}

/* ==== Legacy (_v7) path ==== */

/* A failed _v7 heuristics query (status st of call `what`): cuDNN's error,
 * or under layout=nhwc the op's KRL_EUNSUPPORTED quoting it. */
static krl_err v7_query_fail(cudnnStatus_t st, const char *what,
                             const char *op, const conv_plan *p,
                             krl_diag *d)
{
	krl_err r = cudnn_fail(st, what, __FILE__, __LINE__, d);
	if (p->key.layout == KRL_LAYOUT_NHWC)
		return nhwc_unsupported(op, &p->key, DMSG(d), d);
	return r;
}

/* Chooses the algorithm of a plan whose descriptors are set: the first
 * result of the heuristics with status success whose workspace (the larger
 * of the reported and the queried size) can be allocated. op names the op
 * in messages. */
/* One entry of the _v7 heuristics' list, forward or backward data alike. */
typedef struct v7_cand {
	cudnnStatus_t status;
	int algo;
	cudnnMathType_t math;
	size_t memory;
} v7_cand;

#define V7_MAX_CANDS                                                       \
	((int)CUDNN_CONVOLUTION_FWD_ALGO_COUNT >                            \
	         (int)CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT                  \
	 ? (int)CUDNN_CONVOLUTION_FWD_ALGO_COUNT                             \
	 : (int)CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT)

/* The heuristics' list for p's problem into cand (*got entries). The
 * transposed convolution is the backward data of the conv mapping y to x:
 * dy is our x, dx is our y. The two branches are deliberate twins:
 * cuDNN's forward and backward-data perf structs are distinct types, so
 * each branch queries and copies into v7_cand on its own. */
static krl_err v7_candidates(cudnnHandle_t h, const conv_plan *p,
                             const char *op, v7_cand *cand, int *got,
                             krl_diag *d)
{
	cudnnStatus_t st;
	*got = 0;
	if (!p->key.transposed) {
		cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
		st = cudnnGetConvolutionForwardAlgorithm_v7(h, p->xd, p->wd,
			p->cd, p->yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, got, perf);
		if (st != CUDNN_STATUS_SUCCESS)
			return v7_query_fail(st, "cudnnGetConvolutionForward"
			                     "Algorithm_v7", op, p, d);
		for (int i = 0; i < *got; i++)
			cand[i] = (v7_cand){ perf[i].status, (int)perf[i].algo,
			                     perf[i].mathType, perf[i].memory };
	} else {
		cudnnConvolutionBwdDataAlgoPerf_t
			perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
		st = cudnnGetConvolutionBackwardDataAlgorithm_v7(h, p->wd,
			p->xd, p->cd, p->yd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT,
			got, perf);
		if (st != CUDNN_STATUS_SUCCESS)
			return v7_query_fail(st, "cudnnGetConvolutionBackwardData"
			                     "Algorithm_v7", op, p, d);
		for (int i = 0; i < *got; i++)
			cand[i] = (v7_cand){ perf[i].status, (int)perf[i].algo,
			                     perf[i].mathType, perf[i].memory };
	}
	return KRL_OK;
}

/* The workspace cuDNN reports for algorithm algo of p's problem. */
static cudnnStatus_t v7_ws_size(cudnnHandle_t h, const conv_plan *p,
                                int algo, size_t *sz)
{
	if (!p->key.transposed)
		return cudnnGetConvolutionForwardWorkspaceSize(h, p->xd, p->wd,
			p->cd, p->yd, (cudnnConvolutionFwdAlgo_t)algo, sz);
	return cudnnGetConvolutionBackwardDataWorkspaceSize(h, p->wd, p->xd,
		p->cd, p->yd, (cudnnConvolutionBwdDataAlgo_t)algo, sz);
}

static krl_err choose_algo(conv_ctx *e, krl_opctx *c, conv_plan *p,
                           const char *op, krl_diag *d)
{
	cudnnHandle_t h = e->h;
	int skip = p->key.algo;
	v7_cand cand[V7_MAX_CANDS];
	int got = 0;
	krl_err r = v7_candidates(h, p, op, cand, &got, d);
	if (r)
		return r;
	for (int i = 0; i < got; i++) {
		if (cand[i].status != CUDNN_STATUS_SUCCESS)
			continue;
		/* strict: FMA math whatever the heuristics' entry says, as
		 * PyTorch's v7 path with allow_tf32 off */
		CUDNN_TRY(cudnnSetConvolutionMathType(p->cd, p->key.strict ?
		          CUDNN_FMA_MATH : cand[i].math), d);
		size_t sz = 0;
		if (v7_ws_size(h, p, cand[i].algo, &sz) != CUDNN_STATUS_SUCCESS)
			continue;
		if (cand[i].memory > sz)
			sz = cand[i].memory;
		r = ws_reserve(e, c, sz, d);
		if (r == KRL_ENOMEM)
			continue;
		if (r)
			return r;
		if (skip > 0) {
			skip--;
			continue;
		}
		p->algo = cand[i].algo;
		p->ws_bytes = sz;
		return KRL_OK;
	}
	r = none_usable(op, &p->key, p->key.algo - skip,
	                        "cuDNN's _v7 heuristics offer", "algorithm",
	                        "no algorithm of the _v7 heuristics has status "
	                        "success and a workspace that fits in device "
	                        "memory", d);
	if (r != KRL_OK)
		return r;
	return krl_diag_set(d, KRL_ECUDA, nopos, "conv: cuDNN offers no "
	                    "algorithm for this %s (or none whose workspace "
	                    "fits in device memory)", conv_kind(&p->key));
}

/* The strides of a legacy tensor descriptor of dims dim in `layout`
 * (within int: one chunk has at most 2^31 - 1 elements). */
static void v7_strides(const int *dim, int nd, int layout, int *st)
{
	int64_t st64[5];
	krl_layout_strides(dim, nd, layout, st64);
	for (int i = 0; i < nd; i++)
		st[i] = (int)st64[i];
}

/* Sets a new legacy plan's descriptors from its key: x and y by strides
 * (channels last under layout=nhwc), w in the filter format of the
 * layout. */
static krl_err v7_describe(conv_plan *p, krl_diag *d)
{
	const conv_key *k = &p->key;
	int st[5];
	CUDNN_TRY(cudnnCreateTensorDescriptor(&p->xd), d);
	CUDNN_TRY(cudnnCreateTensorDescriptor(&p->yd), d);
	CUDNN_TRY(cudnnCreateFilterDescriptor(&p->wd), d);
	CUDNN_TRY(cudnnCreateConvolutionDescriptor(&p->cd), d);
	v7_strides(k->xdim, k->nd, k->layout, st);
	CUDNN_TRY(cudnnSetTensorNdDescriptor(p->xd, CUDNN_DATA_FLOAT, k->nd,
	                                     k->xdim, st), d);
	v7_strides(k->ydim, k->nd, k->layout, st);
	CUDNN_TRY(cudnnSetTensorNdDescriptor(p->yd, CUDNN_DATA_FLOAT, k->nd,
	                                     k->ydim, st), d);
	/* dims in the order K, C, k... whatever the format; NHWC stores
	 * them as K, k..., C */
	CUDNN_TRY(cudnnSetFilterNdDescriptor(p->wd, CUDNN_DATA_FLOAT,
	          k->layout == KRL_LAYOUT_NHWC ? CUDNN_TENSOR_NHWC
	                                       : CUDNN_TENSOR_NCHW,
	          k->nd, k->wdim), d);
	CUDNN_TRY(cudnnSetConvolutionNdDescriptor(p->cd, k->nd - 2, k->pad,
	          k->stride, k->dil, CUDNN_CROSS_CORRELATION,
	          CUDNN_DATA_FLOAT), d);
	CUDNN_TRY(cudnnSetConvolutionGroupCount(p->cd, k->groups), d);
	/* what PyTorch's v7 path sets for float before asking the
	 * heuristics (FMA without allow_tf32); the chosen algorithm's math
	 * type replaces it, FMA again when strict */
	CUDNN_TRY(cudnnSetConvolutionMathType(p->cd, k->strict ? CUDNN_FMA_MATH
	          : CUDNN_DEFAULT_MATH), d);
	return KRL_OK;
}

/* Sets a new legacy plan's descriptors and chooses its algorithm. */
static krl_err v7_build(conv_ctx *e, krl_opctx *c, conv_plan *p,
                        const char *op, krl_diag *d)
{
	krl_err r = v7_describe(p, d);
	if (r == KRL_ECUDA && p->key.layout == KRL_LAYOUT_NHWC)
		return nhwc_unsupported(op, &p->key, DMSG(d), d);
	if (r)
		return r;
	return choose_algo(e, c, p, op, d);
}

/* ==== Plan cache ==== */

/* FNV-1a over the key's bytes (zeroed padding included, as memcmp). */
static uint64_t key_hash(const conv_key *k)
{
	const unsigned char *b = (const unsigned char *)k;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < sizeof *k; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

/* The cached plan for key k, built on a miss (evicting the least recently
 * used). A backend plan is chosen by running it on ptr (x, w, y): *ran
 * says the convolution of this call is then done. On failure nothing is
 * cached. op names the op in messages. */
static krl_err plan_get(conv_ctx *e, krl_opctx *c, const conv_key *k,
                        void *const ptr[3], const char *op,
                        conv_plan **out, int *ran, krl_diag *d)
{
	uint64_t h = key_hash(k);
	*ran = 0;
	for (int i = 0; i < e->nplan; i++) {
		conv_plan *p = &e->plan[i];
		if (p->used && p->hash == h &&
		    memcmp(&p->key, k, sizeof *k) == 0) {
			p->last = ++e->clock;
			*out = p;
			return KRL_OK;
		}
	}
	/* a never-used slot while there is one, else the least recently
	 * used (or one freed by a failed build) */
	conv_plan *lru = NULL;
	if (e->nplan < CONV_CACHE) {
		lru = &e->plan[e->nplan++];
	} else {
		lru = &e->plan[0];
		for (int i = 1; i < CONV_CACHE && lru->used; i++)
			if (!e->plan[i].used || e->plan[i].last < lru->last)
				lru = &e->plan[i];
	}
	plan_free(lru);
	lru->key = *k;
	lru->hash = h;
	krl_err r = k->api == API_V8 ? be_build(e, c, lru, ptr, op, d)
	                             : v7_build(e, c, lru, op, d);
	if (r) {
		plan_free(lru);
		return r;
	}
	*ran = k->api == API_V8;
	lru->used = 1;
	lru->last = ++e->clock;
	*out = lru;
	return KRL_OK;
}

/* Runs a cached plan on ptr (x, w, y). */
static krl_err run_plan(conv_ctx *e, krl_opctx *c, const conv_plan *p,
                        void *const ptr[3], krl_diag *d)
{
	/* the workspace may have been emptied by a failed growth since */
	krl_err r = ws_reserve(e, c, p->ws_bytes, d);
	if (r == KRL_ENOMEM)
		return krl_diag_set(d, KRL_ECUDA, nopos, "conv: no device "
		                    "memory for a %zu-byte cuDNN workspace",
		                    p->ws_bytes);
	if (r)
		return r;
	if (p->key.api == API_V8) {
		CUDNN_TRY(be_execute(e->h, p->bplan, e->ws, ptr), d);
		return KRL_OK;
	}
	const float one = 1.f, zero = 0.f;
	if (!p->key.transposed)
		CUDNN_TRY(cudnnConvolutionForward(e->h, &one, p->xd, ptr[0],
		          p->wd, ptr[1], p->cd, (cudnnConvolutionFwdAlgo_t)p->algo,
		          e->ws, p->ws_bytes, &zero, p->yd, ptr[2]), d);
	else
		CUDNN_TRY(cudnnConvolutionBackwardData(e->h, &one, p->wd,
		          ptr[1], p->xd, ptr[0], p->cd,
		          (cudnnConvolutionBwdDataAlgo_t)p->algo, e->ws,
		          p->ws_bytes, &zero, p->yd, ptr[2]), d);
	return KRL_OK;
}

/* ==== Channels-last copies (layout=nhwc) ==== */

/* Bytes from the start of a copy to the next one: a multiple of 256, so
 * every copy is as aligned as cudaMalloc's memory (the plan's key holds
 * the alignments). */
static size_t lay_span(int64_t elems)
{
	return ((size_t)elems * sizeof(float) + 255) / 256 * 256;
}

/* Reserves the entry's channels-last buffer for the call (x unless xt is
 * NULL: layout=nhwc_xy, where x's buffer is channels-last already; w
 * unless wt is NULL: w_layout=krsc, a candidate's derived copy; and y
 * unless yt is NULL: layout=nhwc_y or nhwc_xy, where cuDNN writes the
 * output buffer) and transposes x and w into it (w on every call: a param
 * may change between calls, so a converted copy cannot be kept here);
 * *xt, *wt, *yt are set to the copies. The transposes run on the
 * context's stream, before cuDNN. */
static krl_err nhwc_in(conv_ctx *e, krl_opctx *c, const char *op,
                       const krl_tensor *in, const krl_tensor *out,
                       float **xt, float **wt, float **yt, krl_diag *d)
{
	size_t xs = xt ? lay_span(krl_tensor_numel(&in[0])) : 0;
	size_t ws = wt ? lay_span(krl_tensor_numel(&in[1])) : 0;
	size_t need = xs + ws + (yt ? lay_span(krl_tensor_numel(&out[0])) : 0);
	krl_err r = krl_opctx_grow(c, &e->lay, &e->lay_bytes, need,
	                           "conv: the buffer of the channels-last "
	                           "copies", d);
	if (r == KRL_ENOMEM)
		return krl_diag_set(d, KRL_ECUDA, nopos, "%s: layout=nhwc: no "
		                    "device memory for the channels-last copies "
		                    "of x, w and y (%zu bytes)", op, need);
	if (r)
		return r;
	char *base = e->lay;
	if (xt)
		*xt = (float *)base;
	if (wt)
		*wt = (float *)(base + xs);
	if (yt)
		*yt = (float *)(base + xs + ws);
	int64_t nb, nr, nq;
	for (int i = 0; i < 2; i++) {
		float **to = i ? wt : xt;
		if (!to)
			continue;
		krl_tr_channels_last(in[i].dim, in[i].ndim, &nb, &nr, &nq);
		CUDA_TRY(d, krl_k_transpose(in[i].data, *to, nb, nr, nq, NULL,
		                             c->stream));
	}
	return KRL_OK;
}

/* y = the channels-last yt transposed back, plus b[channel] when b is not
 * NULL. */
static krl_err nhwc_out(krl_opctx *c, const float *yt, const krl_tensor *y,
                        const float *b, krl_diag *d)
{
	int64_t nb, nr, nq;
	krl_tr_channels_last(y->dim, y->ndim, &nb, &nr, &nq);
	/* yt is [nb, nq, nr]: transpose its last two dims */
	CUDA_TRY(d, krl_k_transpose(yt, y->data, nb, nq, nr, b, c->stream));
	return KRL_OK;
}

/* ==== Driver ==== */

/* The key of a chunk of `batch` samples of the call with geometry g whose
 * x, w and y are at ptr, stored in `layout`. */
static void make_key(const krl_conv_geom *g, const krl_tensor *w,
                     int64_t batch, int api, int algo, int layout, int strict,
                     void *const ptr[3], conv_key *k)
{
	memset(k, 0, sizeof *k);
	k->api = api;
	k->strict = strict;
	k->algo = algo;
	k->layout = layout;
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
	if (api == API_V8)
		for (int i = 0; i < 3; i++)
			k->align[i] = ptr_align(ptr[i]);
}

/* y[n, c, ...] += b[c] over n samples whose per-sample dims (C, s...) are
 * k->ydim[1..nd), in chunks of at most 2^31 - 1 elements (the legacy
 * descriptors' limit). */
static krl_err bias_add(conv_ctx *e, const conv_key *k, int64_t n,
                        const float *b, float *y, krl_diag *d)
{
	const float one = 1.f;
	int bdim[5] = { 1, k->ydim[1], 1, 1, 1 }, ydim[5], st[5];
	packed_strides(bdim, k->nd, st);
	CUDNN_TRY(cudnnSetTensorNdDescriptor(e->bd, CUDNN_DATA_FLOAT, k->nd,
	                                     bdim, st), d);
	int64_t per = 1;
	for (int i = 1; i < k->nd; i++)
		per *= k->ydim[i];
	int64_t chunk = INT_MAX / per;
	memcpy(ydim, k->ydim, sizeof ydim);
	ydim[0] = 0;
	for (int64_t n0 = 0; n0 < n; n0 += chunk) {
		int64_t nb = n - n0 < chunk ? n - n0 : chunk;
		if (ydim[0] != (int)nb) {
			ydim[0] = (int)nb;
			packed_strides(ydim, k->nd, st);
			CUDNN_TRY(cudnnSetTensorNdDescriptor(e->byd,
			          CUDNN_DATA_FLOAT, k->nd, ydim, st), d);
		}
		CUDNN_TRY(cudnnAddTensor(e->h, &one, e->bd, b, &one, e->byd,
		                         y + n0 * per), d);
	}
	return KRL_OK;
}

/* KRL_CUDNN_V7=1: the legacy path (TORCH_CUDNN_V8_API_DISABLED=1's
 * counterpart), read on every call so that a test can switch it. */
static int use_v7(void)
{
	const char *z = getenv("KRL_CUDNN_V7");
	return z && *z && strcmp(z, "0") != 0;
}

/* A depthwise convolution through depthwise.cu, in batch chunks whose x
 * and y fit in 32-bit indices (PyTorch refuses larger tensors there; one
 * sample always fits, the check says so). */
static krl_err run_depthwise(krl_opctx *c, const krl_conv_geom *g,
                             const krl_tensor *in, const krl_tensor *out,
                             int bias, krl_diag *d)
{
	krl_dwconv k;
	memset(&k, 0, sizeof k);
	k.nsp = g->nsp == 3 ? 3 : 2;
	int off = k.nsp - g->nsp;
	k.cin = (int)g->cin;
	k.cout = (int)g->cout;
	for (int i = 0; i < k.nsp; i++) {
		k.in[i] = k.out[i] = k.k[i] = 1;
		k.stride[i] = k.dil[i] = 1;
	}
	for (int i = 0; i < g->nsp; i++) {
		k.in[off + i] = (int)g->in[i];
		k.out[off + i] = (int)g->out[i];
		k.k[off + i] = (int)g->k[i];
		k.stride[off + i] = (int)g->stride[i];
		k.pad[off + i] = (int)g->pad[i];
		k.dil[off + i] = (int)g->dil[i];
	}
	int64_t xin = krl_ops_prod(&in[0], 1, in[0].ndim);
	int64_t yin = krl_ops_prod(&out[0], 1, out[0].ndim);
	int64_t chunk = INT_MAX / (xin > yin ? xin : yin);
	const float *x = in[0].data, *w = in[1].data;
	const float *b = bias ? in[2].data : NULL;
	float *y = out[0].data;
	for (int64_t n0 = 0; n0 < g->n; n0 += chunk) {
		k.n = (int)(g->n - n0 < chunk ? g->n - n0 : chunk);
		CUDA_TRY(d, krl_k_conv_depthwise(&k, x + n0 * xin, w, b,
		                                  y + n0 * yin, c->stream));
	}
	return KRL_OK;
}

/* The four ops. Depthwise convolutions run our kernels; the others run
 * cuDNN, the whole batch as one backend plan, or (legacy path) in chunks
 * when a tensor exceeds 2^31 - 1 elements (PyTorch's
 * split_batch_dim_to_32bit_out with its 256 Mi work size); the bias is
 * added once the convolution is done. With layout=nhwc cuDNN runs on
 * channels-last copies of x, w and y (nhwc_in, nhwc_out), the bias added
 * as y is transposed back. */
static krl_err run_conv_any(krl_opctx *c, const char *op, int transposed,
                            int bias, const krl_tensor *in,
                            const krl_tensor *out, const krl_attrs *a,
                            krl_diag *d)
{
	krl_conv_geom g;
	krl_conv_geom_get(transposed, in, a, &g);
	if (krl_conv_is_depthwise(&g)) {
		/* its kernel reads and writes NCHW: it cannot leave y
		 * channels-last, nor read x so */
		double lw = krl_attrs_get(a, "layout", KRL_LAYOUT_NCHW);
		if (krl_layout_keeps_y(lw) ||
		    krl_attrs_get(a, "w_layout", KRL_WLAYOUT_KCRS) ==
		    KRL_WLAYOUT_KRSC)
			return krl_diag_set(d, KRL_EUNSUPPORTED, nopos, "%s: "
			                    "layout=%s: a depthwise convolution "
			                    "(groups = Cin = %lld) runs kernelrl's NCHW "
			                    "kernel", op, krl_layout_keeps_y(lw) ?
			                    lw == KRL_LAYOUT_NHWC_XY ? "nhwc_xy" :
			                    "nhwc_y" : "nhwc with w_layout=krsc",
			                    (long long)g.cin);
		return run_depthwise(c, &g, in, out, bias, d);
	}
	if (g.n > INT_MAX)
		return krl_diag_set(d, KRL_ECUDA, nopos, "conv: a batch of %lld "
		                    "samples is more than cuDNN takes",
		                    (long long)g.n);
	conv_ctx *e = NULL;
	krl_err r = conv_ctx_get(c, &e, d);
	if (r)
		return r;
	CUDNN_TRY(cudnnSetStream(e->h, (cudaStream_t)c->stream), d);
	int api = use_v7() ? API_V7 : API_V8;
	double lw = krl_attrs_get(a, "layout", KRL_LAYOUT_NCHW);
	int keep_y = krl_layout_keeps_y(lw); /* y stays channels-last */
	int given_x = lw == KRL_LAYOUT_NHWC_XY; /* x is channels-last */
	int given_w = krl_attrs_get(a, "w_layout", KRL_WLAYOUT_KCRS) ==
	              KRL_WLAYOUT_KRSC; /* w is in the NHWC filter format */
	int layout = lw == KRL_LAYOUT_NHWC || keep_y ? KRL_LAYOUT_NHWC
	                                             : KRL_LAYOUT_NCHW;
	int64_t xin = krl_ops_prod(&in[0], 1, in[0].ndim);
	int64_t yin = krl_ops_prod(&out[0], 1, out[0].ndim);
	int64_t chunk = g.n;
	if (api == API_V7 && (g.n * xin > INT_MAX || g.n * yin > INT_MAX)) {
		int64_t inner = xin > yin ? xin : yin;
		chunk = ((int64_t)256 << 20) / inner;
		if (chunk < 1)
			chunk = 1;
	}
	float *x = in[0].data, *w = in[1].data, *y = out[0].data;
	/* layout=nhwc_y, nhwc_xy: y is the output buffer itself,
	 * channels-last (the ops with a bias refuse them at check time);
	 * nhwc_xy: so is x, the input buffer itself */
	if (layout == KRL_LAYOUT_NHWC &&
	    (r = nhwc_in(e, c, op, in, out, given_x ? NULL : &x,
	                 given_w ? NULL : &w, keep_y ? NULL : &y, d)))
		return r;
	conv_key k;
	memset(&k, 0, sizeof k);
	for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
		int64_t nb = g.n - n0 < chunk ? g.n - n0 : chunk;
		/* channels-last keeps the batch outermost: a chunk of samples
		 * is contiguous in either layout */
		void *const ptr[3] = { x + n0 * xin, w, y + n0 * yin };
		make_key(&g, &in[1], nb, api, (int)krl_attrs_get(a, "algo", 0),
		         layout, c->no_tf32, ptr, &k);
		conv_plan *p = NULL;
		int ran = 0;
		if ((r = plan_get(e, c, &k, ptr, op, &p, &ran, d)) ||
		    (!ran && (r = run_plan(e, c, p, ptr, d))))
			return r;
	}
	if (keep_y)
		return KRL_OK;
	if (layout == KRL_LAYOUT_NHWC)
		return nhwc_out(c, y, &out[0], bias ? in[2].data : NULL, d);
	if (bias)
		return bias_add(e, &k, g.n, in[2].data, y, d);
	return KRL_OK;
}

KRL_RUN(conv) { return run_conv_any(c, "conv", 0, 0, in, out, a, d); }
KRL_RUN(conv_bias)
{
	return run_conv_any(c, "conv_bias", 0, 1, in, out, a, d);
}
KRL_RUN(conv_transpose)
{
	return run_conv_any(c, "conv_transpose", 1, 0, in, out, a, d);
}
KRL_RUN(conv_transpose_bias)
{
	return run_conv_any(c, "conv_transpose_bias", 1, 1, in, out, a, d);
}
