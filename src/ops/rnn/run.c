/*
 * kernelrl: the GPU drivers of the "rnn" family's ops (lstm, gru,
 * rnn_tanh) and the family's state in an op context.
 *
 * Each call is what PyTorch's _cudnn_rnn does for nn.LSTM / nn.GRU /
 * nn.RNN on a
 * module in training mode (docs/ops-rnn.md):
 * - a batch_first x is first copied to seq-major [T, B, I] (PyTorch's
 *   input.transpose(0, 1).contiguous(): the shape family's strided copy,
 *   the elementwise copy kernel PyTorch runs);
 * - one cudnnRNNForward(CUDNN_FWD_MODE_TRAINING) with an RNN descriptor
 *   set by cudnnSetRNNDescriptor_v8(CUDNN_RNN_ALGO_STANDARD, CUDNN_LSTM or
 *   CUDNN_GRU, CUDNN_RNN_DOUBLE_BIAS, uni- or bidirectional,
 *   CUDNN_LINEAR_INPUT, float data and math precision, CUDNN_DEFAULT_MATH
 *   (PyTorch's cudnn.allow_tf32 default, so cuDNN may use TF32;
 *   rnn_tanh: CUDNN_FMA_MATH, no TF32, since it stands for fp32
 *   nn.Linear steps, which PyTorch runs without TF32), projSize
 *   = hiddenSize, no dropout, CUDNN_RNN_PADDED_IO_ENABLED), data
 *   descriptors CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED with every
 *   sequence T long (PyTorch's descriptors for an unpacked input), h/c
 *   descriptors [layers * dirs, B, H] (no c descriptor for GRU, as
 *   PyTorch passes none), no device sequence lengths, a workspace and a
 *   reserve space of cudnnGetRNNTempSpaceSizes' sizes.
 *
 * The `recurrence` attribute (the optimizer's; rnn.h's KRL_REC_*) picks
 * another algorithm (CUDNN_RNN_ALGO_PERSIST_STATIC, or its _SMALL_H
 * form: the recurrence in one persistent kernel per layer that keeps the
 * recurrent weights on chip, rather than kernels per step) and/or the
 * inference forward mode (no reserve space: the same outputs). cuDNN
 * refuses a configuration its algorithm does not support (fp32 sizes
 * beyond a persistent kernel's, say): the call fails with cuDNN's status,
 * which the judge records as a launch error.
 *
 * The copy of x, the workspace and the reserve space share the context's
 * growable temporary (krl_opctx_temp; PyTorch allocates them from its
 * caching allocator per call). The descriptors, sizes and the checked
 * weight layout are cached per shape in the family's state slot, so a
 * repeated call makes no cuDNN query and allocates nothing: the second
 * and later calls of a shape can be captured into a CUDA graph.
 *
 * The weight layout check: before the first call of a shape, cuDNN's
 * weight space size must be w's bytes and cudnnGetRNNWeightParams must
 * place every matrix and bias of every pseudo-layer where rnn.h's layout
 * (which the golden versions read) says, else the call fails saying which.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cudnn.h>

#include "ops/ops_int.h"
#include "ops/rnn/rnn.h"
#include "ops/shape/shape.h"
#include "runtime/cudacheck.h"

static const krl_pos nopos = { 0, 0, 0 };

/* Shapes whose descriptors a context keeps (least recently used evicted). */
#define RNN_PLANS 8

/* Alignment of the pieces of the temporary buffer. */
#define RNN_ALIGN 256

typedef struct rnn_plan {
	int used;
	krl_rnn_geom g;
	uint64_t stamp;            /* last use, for eviction */
	cudnnRNNDescriptor_t rd;
	cudnnDropoutDescriptor_t dd;
	cudnnRNNDataDescriptor_t xd, yd;
	cudnnTensorDescriptor_t hd;
	size_t wbytes, ws, rs;     /* weight space, workspace, reserve */
} rnn_plan;

typedef struct rnn_state {
	rnn_plan plan[RNN_PLANS];
	uint64_t clock;
} rnn_state;

static void plan_free(rnn_plan *p)
{
	if (p->rd)
		cudnnDestroyRNNDescriptor(p->rd);
	if (p->dd)
		cudnnDestroyDropoutDescriptor(p->dd);
	if (p->xd)
		cudnnDestroyRNNDataDescriptor(p->xd);
	if (p->yd)
		cudnnDestroyRNNDataDescriptor(p->yd);
	if (p->hd)
		cudnnDestroyTensorDescriptor(p->hd);
	memset(p, 0, sizeof *p);
}

void krl_rnn_state_free(void *state)
{
	rnn_state *s = state;
	if (!s)
		return;
	for (int i = 0; i < RNN_PLANS; i++)
		plan_free(&s->plan[i]);
	free(s);
}

static krl_err cudnn_fail(const char *op, cudnnStatus_t st, const char *expr,
                          const char *file, int line, krl_diag *d)
{
	return krl_diag_set(d, KRL_ECUDA, nopos, "%s:%d: %s: %s: %s", file,
	                    line, op, expr, cudnnGetErrorString(st));
}

#define CUDNN_TRY(op, call, d)                                             \
	do {                                                               \
		cudnnStatus_t krl_st_ = (call);                            \
		if (krl_st_ != CUDNN_STATUS_SUCCESS)                       \
			return cudnn_fail(op, krl_st_, #call, __FILE__,    \
			                  __LINE__, d);                    \
	} while (0)

static int same_geom(const krl_rnn_geom *a, const krl_rnn_geom *b)
{
	return a->gates == b->gates && a->T == b->T && a->B == b->B &&
	       a->I == b->I && a->H == b->H && a->layers == b->layers &&
	       a->dirs == b->dirs && a->batch_first == b->batch_first &&
	       a->rec == b->rec;
}

/* cuDNN's algorithm and forward mode of recurrence rec (KRL_REC_*). */
static cudnnRNNAlgo_t rec_algo(int rec)
{
	return rec == KRL_REC_PERSIST ? CUDNN_RNN_ALGO_PERSIST_STATIC :
	       rec == KRL_REC_SMALL_H ? CUDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H :
	       CUDNN_RNN_ALGO_STANDARD;
}

static cudnnForwardMode_t rec_mode(int rec)
{
	return rec == KRL_REC_STANDARD ? CUDNN_FWD_MODE_TRAINING
	                               : CUDNN_FWD_MODE_INFERENCE;
}

/* Where cuDNN puts each matrix and bias of w (device pointer, only its
 * address is used) against rnn.h's layout; KRL_EUNSUPPORTED naming the
 * first difference. */
static krl_err check_layout(const char *op, cudnnHandle_t h, rnn_plan *p,
                            const void *w, krl_diag *d)
{
	const krl_rnn_geom *g = &p->g;
	size_t want = (size_t)krl_rnn_weight_count(g) * sizeof(float);
	if (p->wbytes != want)
		return krl_diag_set(d, KRL_EUNSUPPORTED, nopos, "%s: cuDNN's "
		                    "weight space is %zu bytes but the layout "
		                    "of docs/ops-rnn.md (which the golden reads) "
		                    "has %zu", op, p->wbytes, want);
	cudnnTensorDescriptor_t md = NULL, bd = NULL;
	cudnnStatus_t st = cudnnCreateTensorDescriptor(&md);
	if (st == CUDNN_STATUS_SUCCESS)
		st = cudnnCreateTensorDescriptor(&bd);
	krl_err r = KRL_OK;
	if (st != CUDNN_STATUS_SUCCESS)
		r = cudnn_fail(op, st, "cudnnCreateTensorDescriptor", __FILE__,
		               __LINE__, d);
	for (int q = 0; !r && q < g->layers * g->dirs; q++) {
		int64_t in = krl_rnn_layer_in(g, q / g->dirs);
		for (int lin = 0; !r && lin < 2 * g->gates; lin++) {
			void *ma = NULL, *ba = NULL;
			st = cudnnGetRNNWeightParams(h, p->rd, q, p->wbytes, w,
			                             lin, md, &ma, bd, &ba);
			if (st != CUDNN_STATUS_SUCCESS) {
				r = cudnn_fail(op, st, "cudnnGetRNNWeightParams",
				               __FILE__, __LINE__, d);
				break;
			}
			/* -1: cuDNN gave no address */
			int64_t mo = ma ? ((const char *)ma - (const char *)w) /
			                  (int64_t)sizeof(float) : -1;
			int64_t bo = ba ? ((const char *)ba - (const char *)w) /
			                  (int64_t)sizeof(float) : -1;
			int64_t mw = krl_rnn_mat_off(g, q, lin);
			int64_t bw = krl_rnn_bias_off(g, q, lin);
			/* the matrix's element count, from its descriptor */
			cudnnDataType_t dt;
			int nd = 0, dim[8], str[8];
			st = cudnnGetTensorNdDescriptor(md, 8, &dt, &nd, dim, str);
			int64_t numel = 1;
			for (int i = 0; st == CUDNN_STATUS_SUCCESS && i < nd; i++)
				numel *= dim[i];
			int64_t wantn = g->H * (lin < g->gates ? in : g->H);
			if (st != CUDNN_STATUS_SUCCESS)
				r = cudnn_fail(op, st, "cudnnGetTensorNdDescriptor",
				               __FILE__, __LINE__, d);
			else if (mo != mw || bo != bw || numel != wantn)
				r = krl_diag_set(d, KRL_EUNSUPPORTED, nopos,
				                 "%s: cuDNN places pseudo-layer %d's "
				                 "linear layer %d at matrix offset "
				                 "%lld (%lld elements), bias offset "
				                 "%lld; docs/ops-rnn.md's layout "
				                 "(which the golden reads) says "
				                 "%lld (%lld), %lld", op, q, lin,
				                 (long long)mo, (long long)numel,
				                 (long long)bo, (long long)mw,
				                 (long long)wantn, (long long)bw);
		}
	}
	if (md)
		cudnnDestroyTensorDescriptor(md);
	if (bd)
		cudnnDestroyTensorDescriptor(bd);
	return r;
}

/* Sets up plan p for geometry g: descriptors, sizes, the layout check. */
static krl_err plan_make(const char *op, cudnnHandle_t h, rnn_plan *p,
                         const krl_rnn_geom *g, const void *w, krl_diag *d)
{
	plan_free(p);
	p->g = *g;
	CUDNN_TRY(op, cudnnCreateRNNDescriptor(&p->rd), d);
	CUDNN_TRY(op, cudnnCreateDropoutDescriptor(&p->dd), d);
	CUDNN_TRY(op, cudnnCreateRNNDataDescriptor(&p->xd), d);
	CUDNN_TRY(op, cudnnCreateRNNDataDescriptor(&p->yd), d);
	CUDNN_TRY(op, cudnnCreateTensorDescriptor(&p->hd), d);
	/* dropout 0: no states, no random numbers (PyTorch's
	 * set_no_dropout) */
	CUDNN_TRY(op, cudnnSetDropoutDescriptor(p->dd, h, 0.f, NULL, 0, 0), d);
	CUDNN_TRY(op, cudnnSetRNNDescriptor_v8(
		p->rd, rec_algo(g->rec),
		g->gates == 4 ? CUDNN_LSTM : g->gates == 3 ? CUDNN_GRU :
		CUDNN_RNN_TANH, CUDNN_RNN_DOUBLE_BIAS,
		g->dirs == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL,
		CUDNN_LINEAR_INPUT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
		g->gates == 1 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH,
		(int32_t)g->I, (int32_t)g->H, (int32_t)g->H, g->layers, p->dd,
		CUDNN_RNN_PADDED_IO_ENABLED), d);
	int *len = malloc((size_t)g->B * sizeof(int));
	if (!len)
		return krl_diag_set(d, KRL_ENOMEM, nopos,
		                    "%s: out of host memory", op);
	for (int64_t b = 0; b < g->B; b++)
		len[b] = (int)g->T;
	cudnnStatus_t st = cudnnSetRNNDataDescriptor(
		p->xd, CUDNN_DATA_FLOAT, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED,
		(int)g->T, (int)g->B, (int)g->I, len, NULL);
	if (st == CUDNN_STATUS_SUCCESS)
		st = cudnnSetRNNDataDescriptor(
			p->yd, CUDNN_DATA_FLOAT,
			CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED, (int)g->T,
			(int)g->B, (int)(g->dirs * g->H), len, NULL);
	free(len);
	if (st != CUDNN_STATUS_SUCCESS)
		return cudnn_fail(op, st, "cudnnSetRNNDataDescriptor", __FILE__,
		                  __LINE__, d);
	int hdim[3] = { g->layers * g->dirs, (int)g->B, (int)g->H };
	int hstr[3] = { (int)(g->B * g->H), (int)g->H, 1 };
	CUDNN_TRY(op, cudnnSetTensorNdDescriptor(p->hd, CUDNN_DATA_FLOAT, 3,
	                                         hdim, hstr), d);
	CUDNN_TRY(op, cudnnGetRNNWeightSpaceSize(h, p->rd, &p->wbytes), d);
	CUDNN_TRY(op, cudnnGetRNNTempSpaceSizes(h, p->rd, rec_mode(g->rec),
	                                        p->xd, &p->ws, &p->rs), d);
	krl_err r = check_layout(op, h, p, w, d);
	if (r)
		return r;
	p->used = 1;
	return KRL_OK;
}

/* The cached plan of g in c's state, made on a miss. */
static krl_err plan_get(const char *op, krl_opctx *c, cudnnHandle_t h,
                        const krl_rnn_geom *g, const void *w, rnn_plan **out,
                        krl_diag *d)
{
	void **slot = krl_opctx_slot(c, &krl_family_rnn);
	*out = NULL;
	if (!*slot) {
		*slot = calloc(1, sizeof(rnn_state));
		if (!*slot)
			return krl_diag_set(d, KRL_ENOMEM, nopos,
			                    "%s: out of host memory", op);
	}
	rnn_state *s = *slot;
	rnn_plan *victim = &s->plan[0];
	for (int i = 0; i < RNN_PLANS; i++) {
		rnn_plan *p = &s->plan[i];
		if (p->used && same_geom(&p->g, g)) {
			p->stamp = ++s->clock;
			*out = p;
			return KRL_OK;
		}
		if (!p->used || (victim->used && p->stamp < victim->stamp))
			victim = p;
	}
	krl_err r = plan_make(op, h, victim, g, w, d);
	if (r) {
		plan_free(victim);
		return r;
	}
	victim->stamp = ++s->clock;
	*out = victim;
	return KRL_OK;
}

static size_t up(size_t n)
{
	return (n + RNN_ALIGN - 1) / RNN_ALIGN * RNN_ALIGN;
}

/* lstm (gates 4), gru (gates 3) or rnn_tanh (gates 1): inputs x, h0,
 * [c0,] w; outputs y, hy,
 * [cy] (check() has accepted them). */
static krl_err run_rnn(const char *op, int gates, krl_opctx *c,
                       const krl_tensor *in, const krl_tensor *out,
                       const krl_attrs *a, krl_diag *d)
{
	int lstm = gates == 4;
	krl_rnn_geom g = krl_rnn_geom_of(gates, in, a);
	const krl_tensor *w = &in[lstm ? 3 : 2];
	void *hv = NULL;
	krl_err r = krl_ops_cudnn_handle(c, &hv, d);
	if (r)
		return r;
	cudnnHandle_t h = hv;
	rnn_plan *p = NULL;
	if ((r = plan_get(op, c, h, &g, w->data, &p, d)))
		return r;
	size_t xb = g.batch_first ? up((size_t)(g.T * g.B * g.I) *
	                               sizeof(float)) : 0;
	size_t wsb = up(p->ws);
	char *tmp = NULL;
	size_t total = xb + wsb + p->rs;
	if (total) {
		void *t = NULL;
		if ((r = krl_opctx_temp(c, total, &t, op, d)))
			return r;
		tmp = t;
	}
	const void *x = in[0].data;
	if (g.batch_first) {
		/* [B, T, I] -> [T, B, I]: the box over the output */
		krl_copy_box b;
		memset(&b, 0, sizeof b);
		b.m = 3;
		b.size[0] = g.T;
		b.size[1] = g.B;
		b.size[2] = g.I;
		b.in_stride[0] = g.I;
		b.in_stride[1] = g.T * g.I;
		b.in_stride[2] = 1;
		b.out_stride[0] = g.B * g.I;
		b.out_stride[1] = g.I;
		b.out_stride[2] = 1;
		CUDA_TRY(d, krl_k_strided_copy(in[0].data, tmp, &b,
		                               (int)sizeof(float), c->stream));
		x = tmp;
	}
	CUDNN_TRY(op, cudnnRNNForward(
		h, p->rd, rec_mode(g.rec), NULL, p->xd, x, p->yd,
		out[0].data, p->hd, in[1].data, out[1].data,
		lstm ? p->hd : NULL, lstm ? in[2].data : NULL,
		lstm ? out[2].data : NULL,
		p->wbytes, w->data, p->ws, p->ws ? tmp + xb : NULL, p->rs,
		p->rs ? tmp + xb + wsb : NULL), d);
	return KRL_OK;
}

KRL_RUN(lstm)
{
	return run_rnn("lstm", 4, c, in, out, a, d);
}

KRL_RUN(gru)
{
	return run_rnn("gru", 3, c, in, out, a, d);
}

KRL_RUN(rnn_tanh)
{
	return run_rnn("rnn_tanh", 1, c, in, out, a, d);
}
