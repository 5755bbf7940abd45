/*
 * Forward convolutions as generated code (the decision `conv.impl`,
 * docs/optimizer.md section 3d): a conv or conv_bias library node written
 * as the implicit-GEMM kernel of src/opt/kernels/conv_igemm.cuh (TF32
 * products on the tensor cores, fp32 sums, NCHW in and out), with the
 * pointwise chain that reads its output in the kernel's epilogue
 * (cg_chain_of, cg_write_epi: the same machinery as the 3xTF32 GEMM's,
 * codegen_gemm.c), so that the output is written once, already
 * transformed, and never changes layout.
 *
 * Offered to tasks of the tf32 tier only (space.c): their library
 * convolution is cuDNN's TF32 one (PyTorch's default, allow_tf32), so
 * their tolerance already allows TF32 products; a strict fp32 task keeps
 * cuDNN's fp32 call.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "krl/opgeom.h"

extern const char krl_kernel_conv_igemm[];
extern const char krl_kernel_conv_dw[];

/* igemm::a_ld and x_cs (conv_igemm.cuh), for the halo form's shared
 * memory: A's row stride, the least multiple of 4 from kc whose fragment
 * reads hit 32 banks; the window's channel stride, 8 or 24 mod 32 */
static int halo_a_ld(int kc, int rs)
{
	int base = (kc + 3) / 4 * 4;
	for (int ld = base; ld < base + 128; ld += 4) {
		unsigned seen = 0;
		int ok = 1;
		for (int g = 0; g < 8 && ok; g++)
			for (int t = 0; t < 4 && ok; t++) {
				unsigned b = 1u << ((g * ld + t * rs) & 31);
				ok = !(seen & b);
				seen |= b;
			}
		if (ok)
			return ld;
	}
	return base;
}

static int halo_x_cs(int n)
{
	while (n % 32 != 8 && n % 32 != 24)
		n++;
	return n;
}

/* igemm::htile's shared memory: 2 stages (H_STAGES) of A [bm][a_ld] and
 * the window [8][x_cs] */
static unsigned halo_smem(int bm, int R, int S)
{
	return 2u * (unsigned)(bm * halo_a_ld(8 * R * S, R * S) +
	                       8 * halo_x_cs((4 + R - 1) * (32 + S - 1))) * 4u;
}

/* igemm::wtile: the Hopper halo form's rows a block (2 for 128 channels,
 * 4 for 64) and its shared memory, 4 stages (W_STAGES) of the packed
 * weight's chunk (R S taps x 8 channels x bm) and the window (8 channels x
 * (rows + R - 1) x (128 + S - 1)) */
static int wg_rows(int bm)
{
	return bm == 128 ? 2 : 4;
}

static unsigned wg_smem(int bm, int R, int S)
{
	return 4u * (unsigned)(R * S * 8 * bm +
	                       8 * (wg_rows(bm) + R - 1) * (128 + S - 1)) * 4u;
}

/* The geometry of LIB node n when it is an f32 forward convolution (conv,
 * or conv_bias: *bias = 1) of 1-3 spatial dims whose attributes (but the
 * library's) and kernel sizes are the same in every shape set, so that a
 * kernel writes them as literals: 1 and *geo filled, else 0. With
 * depthwise, strides, paddings, dilations and kernel sizes need only a
 * value at the set (the depthwise kernel takes them at run time, literals
 * where they are the set's), and `groups` may instead be x's channel
 * count, written as x's dim is. */
/* Whether every attribute of LIB node x but the library's (algo,
 * layout) is the same in every shape set and has a value at the graph's
 * (with depthwise, strides, paddings, dilations and a `groups` written as
 * x's channel count need only the value), so that a kernel writes them
 * as literals. */
static int attrs_fixed(const krl_graph *g, const krl_gnode *x, int depthwise)
{
	for (int i = 0; i < x->nattrs; i++) {
		if (!strcmp(x->attrs[i].key, "algo") ||
		    !strcmp(x->attrs[i].key, "layout"))
			continue;
		const char *key = x->attrs[i].key;
		char *z = krl_opt_expr_text(x->attrs[i].value);
		int fixed = z && (krl_graph_text_fixed(g, z) ||
		                  (depthwise && !strcmp(key, "groups") &&
		                   !strcmp(z, g->n[x->in[0]].dim[1].text)) ||
		                  (depthwise && (!strncmp(key, "stride", 6) ||
		                                 !strncmp(key, "padding", 7) ||
		                                 !strncmp(key, "dilation", 8))));
		free(z);
		if (!fixed || isnan(x->aval[i]))
			return 0;
	}
	return 1;
}

static int conv_fixed(const krl_graph *g, int n, int depthwise,
                      krl_conv_geom *geo, int *bias)
{
	const krl_gnode *x = &g->n[n];
	if (x->kind != KRL_GN_LIB || x->dtype != KRL_F32 || x->nout > 1 ||
	    x->ndim < 3 || x->ndim > 5)
		return 0;
	if (!strcmp(x->op, "conv") && x->nin == 2)
		*bias = 0;
	else if (!strcmp(x->op, "conv_bias") && x->nin == 3)
		*bias = 1;
	else
		return 0;
	for (int k = 0; k < 2; k++)
		if (g->n[x->in[k]].dtype != KRL_F32 ||
		    g->n[x->in[k]].ndim != x->ndim)
			return 0;
	krl_tensor in[2];
	cg_lib_inputs(g, x, in);
	if (*bias && (g->n[x->in[2]].dtype != KRL_F32 ||
	              g->n[x->in[2]].ndim != 1))
		return 0;
	if (!attrs_fixed(g, x, depthwise))
		return 0;
	krl_attrs a;
	cg_lib_attrs(x, &a);
	if (krl_conv_geom_get(0, in, &a, geo) || geo->cout != x->dim[1].val ||
	    geo->n != x->dim[0].val)
		return 0;
	const krl_gnode *w = &g->n[x->in[1]];
	for (int i = 0; i < geo->nsp; i++)
		if (geo->out[i] != x->dim[2 + i].val || geo->out[i] < 1 ||
		    geo->stride[i] < 1 || geo->dil[i] < 1 || geo->pad[i] < 0 ||
		    (!depthwise && !krl_graph_text_fixed(g, w->dim[2 + i].text)))
			return 0;
	return 1;
}

/* The kernel's geometry *q (but q->bias) from a forward convolution's
 * geo, groups 1: 1, or 0 when the kernel does not take it. */
static int igemm_fill(const krl_conv_geom *geo_in, cg_igemm *q)
{
	const krl_conv_geom geo = *geo_in;
	if (geo.groups != 1)
		return 0;
	int64_t planes = 1, pos = 1;
	for (int i = 0; i < geo.nsp; i++) {
		if (geo.dil[i] * (geo.k[i] - 1) >= 1024)
			return 0;
		planes *= geo.in[i];
		pos *= geo.out[i];
	}
	q->nsp = geo.nsp;
	q->cin = geo.cin;
	int64_t k3[3] = { 1, 1, 1 };
	for (int i = 0; i < 3; i++) {
		int j = i - (3 - geo.nsp); /* the spatial dim this one is, or < 0 */
		q->stride[i] = j >= 0 ? geo.stride[j] : 1;
		q->padv[i] = j >= 0 ? geo.pad[j] : 0;
		q->dil[i] = j >= 0 ? geo.dil[j] : 1;
		k3[i] = j >= 0 ? geo.k[j] : 1;
		if (q->padv[i])
			q->pad = 1;
	}
	/* the kernel's in-image offsets, positions and taps are 32-bit */
	if (geo.cin * planes >= INT32_MAX || geo.cout * pos >= INT32_MAX ||
	    geo.cin * k3[0] * k3[1] * k3[2] >= INT32_MAX)
		return 0;
	q->T = (int)k3[0];
	q->R = (int)k3[1];
	q->S = (int)k3[2];
	/* the tile: as many output channels as the convolution has (up to
	 * 128), 8 warps */
	int64_t K = geo.cout;
	if (K > 64) {
		q->bm = 128, q->bn = 128, q->wm = 64, q->wn = 32;
	} else if (K > 32) {
		q->bm = 64, q->bn = 128, q->wm = 32, q->wn = 32;
	} else if (K > 16) {
		q->bm = 32, q->bn = 128, q->wm = 16, q->wn = 32;
	} else {
		q->bm = 16, q->bn = 128, q->wm = 16, q->wn = 16;
	}
	/* the halo form where it applies and pays: a 2-d convolution of
	 * stride and dilation 1 over 16 channels or more (fewer fill a chunk
	 * of 8 partly, or leave its 2 stages one chunk: those the gather
	 * runs, measured 1.26x-3.72x of cuDNN), its rows at least 24 wide (a
	 * block's 32 columns mostly in y) */
	int halo_geo = geo.nsp == 2 && geo.cin >= 8 && geo.out[1] >= 24 &&
	               q->R * q->S > 1 && q->stride[1] == 1 &&
	               q->stride[2] == 1 && q->dil[1] == 1 && q->dil[2] == 1;
	if (halo_geo && geo.cin >= 16) {
		/* its channel tile halved until the stages fit in 224 KB (a
		 * block may take 227, the simulator's buffer holds 224): a
		 * chunk holds 8 R S taps, large kernels need smaller tiles */
		int bm = K > 64 ? 128 : K > 32 ? 64 : 32;
		while (bm > 32 && halo_smem(bm, q->R, q->S) > 224u * 1024u)
			bm /= 2;
		if (halo_smem(bm, q->R, q->S) <= 224u * 1024u) {
			q->halo = 1;
			q->bm = bm;
			q->bn = 4 * 32;
			q->wm = bm / 2;
			q->wn = 32;
		}
	}
	/* its Hopper form (conv.impl=wgmma) where a block's channel tile
	 * is 64 or 128 (17-32 output channels take 64, the rest of the
	 * products on zeros: over few input channels the MMAs are not what
	 * bounds it, its epilogue is) and its 128 columns mostly in y (rows
	 * of 96 or more), the 4 stages within a block's 227 KB (the
	 * simulator's 224); 8 input channels suffice, the pipeline running
	 * over row tiles: wu of them a block, so that a block's pipeline
	 * holds 8 chunks or more (8 channels: 8 tiles), fewer where the grid
	 * would fill fewer than 2 waves of 132 blocks */
	int wbm = K > 64 ? 128 : 64;
	if (halo_geo && K > 16 && geo.out[1] >= 96 &&
	    wg_smem(wbm, q->R, q->S) <= 224u * 1024u) {
		int64_t nch = (geo.cin + 7) / 8, th = wg_rows(wbm);
		int64_t rt = (geo.out[0] + th - 1) / th;
		int64_t cols = (K + wbm - 1) / wbm * ((geo.out[1] + 127) / 128) *
		               geo.n;
		int u = nch >= 8 ? 1 : (int)(8 / nch);
		while (u > 1 && (u > rt || cols * ((rt + u - 1) / u) < 264))
			u /= 2;
		q->wg = 1;
		q->wbm = wbm;
		q->wu = u;
	}
	return 1;
}

int cg_igemm_geom(const krl_graph *g, int n, cg_igemm *q)
{
	memset(q, 0, sizeof *q);
	krl_conv_geom geo;
	int bias = 0;
	if (!conv_fixed(g, n, 0, &geo, &bias) || !igemm_fill(&geo, q))
		return 0;
	q->bias = bias;
	return 1;
}

int cg_igemm_tconv_geom(const krl_graph *g, int n, cg_igemm *q)
{
	memset(q, 0, sizeof *q);
	cg_tconv t;
	const krl_gnode *x = &g->n[n];
	if (!cg_tconv_geom(g, n, &t) || t.scatter || t.geo.groups != 1 ||
	    x->nout > 1 || x->ndim < 3 || x->ndim > 5 || !attrs_fixed(g, x, 0))
		return 0;
	/* the kernel sizes, too, the same in every shape set (checked
	 * below): literals in the kernel */
	const krl_gnode *xi = &g->n[x->in[0]], *w = &g->n[x->in[1]];
	const krl_conv_geom tg = t.geo;
	/* the forward convolution of section 3b's stride-1 form: the flipped
	 * weight [Cout, Cin, k...], padding d (k - 1) - p, dilation d */
	krl_conv_geom f;
	memset(&f, 0, sizeof f);
	f.nsp = tg.nsp;
	f.n = xi->dim[0].val;
	f.cin = xi->dim[1].val;
	f.cout = x->dim[1].val;
	f.groups = 1;
	for (int i = 0; i < tg.nsp; i++) {
		if (tg.stride[i] != 1 || tg.opad[i] != 0 ||
		    !krl_graph_text_fixed(g, w->dim[2 + i].text))
			return 0;
		f.in[i] = tg.in[i];
		f.k[i] = tg.k[i];
		f.out[i] = x->dim[2 + i].val;
		f.stride[i] = 1;
		f.dil[i] = tg.dil[i];
		f.pad[i] = tg.dil[i] * (tg.k[i] - 1) - tg.pad[i];
		if (f.pad[i] < 0 ||
		    f.out[i] != f.in[i] + 2 * f.pad[i] - f.dil[i] * (f.k[i] - 1))
			return 0;
	}
	if (!igemm_fill(&f, q))
		return 0;
	q->bias = t.bias;
	return 1;
}

/* Shared memory of tile (bm, bn): 3 stages of A [bm][32 + 8] and B [32][bn
 * + 4] (igemm::tile); the Hopper form's where wg. */
static unsigned igemm_smem(const cg_igemm *q, int wg)
{
	if (wg)
		return wg_smem(q->wbm, q->R, q->S);
	if (q->halo)
		return halo_smem(q->bm, q->R, q->S);
	return 3u * (unsigned)(q->bm * 40 + 32 * (q->bn + 4)) * 4u;
}

/* The pointwise chain that reads convolution n, for K's epilogue: its end
 * (*end, -1 when none fits or fusion is off) and nodes (*in), the buffer
 * the kernel writes (the chain's end, or n's own); NULL on G->oom. */
static const char *conv_take_chain(cg_gen *G, cg_kern *K, int n, int *end,
                                   const unsigned char **in)
{
	*end = -1;
	if (G->convred && G->convred[n] >= 0) {
		/* a reduction the epilogue computes (cg_conv_red): the chain
		 * (if any) stays in registers, nothing is taken from a map */
		*end = cg_chain_of(G, n, in);
		G->skip[n] = 2;
		return G->oom ? NULL : cg_bufname(G, G->convred[n]);
	}
	if (G->s.fuse && (*end = cg_chain_of(G, n, in)) >= 0 &&
	    !cg_chain_fits(G, K, n, *end, *in))
		*end = -1;
	if (G->oom)
		return NULL;
	if (*end >= 0) {
		cg_take_output(G, K, *end);
		G->skip[n] = 2; /* y never reaches memory: the chain's end does */
		return cg_bufname(G, *end);
	}
	G->skip[n] = 3; /* written as a kernel, y in its own buffer */
	return cg_bufname(G, n);
}

/* The start of a convolution kernel k<id>_conv: *sp cleared and named,
 * the chain taken (conv_take_chain), the kernel's body (the what
 * convolution's text) written once a candidate (*written): the buffer
 * the kernel writes, or NULL on G->oom. */
static const char *conv_start(cg_gen *G, cg_kern *K, int n, krl_gemm_spec *sp,
                              int *end, const unsigned char **in,
                              int *written, const char *what,
                              const char *body)
{
	memset(sp, 0, sizeof *sp);
	sp->kernel = cg_fmt(G, "k%d_conv", K->id);
	const char *y = conv_take_chain(G, K, n, end, in);
	if (y && !*written) {
		cg_sb_printf(&G->dev, "\n/* ==== %s convolution body ==== */\n%s",
		             what, body);
		*written = 1;
	}
	return y;
}

/* Ends the kernel's comment with the chain of conv_take_chain (each node,
 * then the buffer written) and writes its epilogue functor into *sp: 1,
 * or 0 when the epilogue could not be written (G->err, G->fail or G->oom
 * says why). */
static int conv_write_chain(cg_gen *G, cg_kern *K, int n, int end,
                            const unsigned char *in, const char *y,
                            krl_gemm_spec *sp)
{
	if (end >= 0) {
		cg_sb_printf(&G->dev, ".\n * Its epilogue (k%d_conv_epi):", K->id);
		for (int m = n + 1; m <= end; m++)
			if (in[m]) {
				const krl_pwinfo *pi = krl_pw_info(G->g->n[m].pw);
				cg_sb_printf(&G->dev, "\n *   node %d %s", m,
				             pi ? pi->name : "pw");
			}
		cg_sb_printf(&G->dev, "\n * writes %s", y);
	}
	cg_sb_puts(&G->dev, ".\n */");
	if (end >= 0) {
		cg_write_epi(G, K, n, NULL, -1, end, 1, sp);
		if (!sp->epi)
			return 0;
	}
	return 1;
}

/* The one reader of node m, or -1 */
static int only_reader(const cg_gen *G, int m)
{
	const krl_graph *g = G->g;
	if (G->nuse[m] != 1 || krl_graph_is_output(g, m))
		return -1;
	for (int r = m + 1; r < g->nn; r++)
		for (int i = 0; i < g->n[r].nin; i++)
			if (g->n[r].in[i] == m)
				return r;
	return -1;
}

int cg_conv_red(cg_gen *G, int n, int e)
{
	const krl_graph *g = G->g;
	cg_igemm q;
	if (!G->s.fuse || G->s.conv_impl < 1 || !cg_igemm_geom(g, n, &q) ||
	    (q.wg && G->s.conv_impl == 2))
		return -1;
	/* the chain's end (or n) read once, by the reduction (or by a view
	 * of its positions as one dim that the reduction reads) */
	int src = e >= 0 ? e : n, nd = g->n[src].ndim;
	int r = only_reader(G, src);
	if (r < 0 || g->n[src].dtype != KRL_F32)
		return -1;
	const krl_gnode *x = &g->n[r];
	int pos = 0;
	if (x->kind == KRL_GN_VIEW && x->ndim == 3 && !q.halo &&
	    cg_dim_eq(x->dim[0].text, g->n[src].dim[0].text) &&
	    cg_dim_eq(x->dim[1].text, g->n[src].dim[1].text)) {
		/* [N, K, positions]: the position reduction over dim 2 */
		r = only_reader(G, r);
		if (r < 0)
			return -1;
		x = &g->n[r];
		pos = x->axis == 2 && x->naxes == 1;
	} else if (x->kind == KRL_GN_REDUCE && !q.halo) {
		pos = x->axis == 2 && x->naxes == nd - 2;
	}
	if (x->kind != KRL_GN_REDUCE || x->nin != 1 || x->dtype != KRL_F32 ||
	    (x->red != KRL_RED_SUM && x->red != KRL_RED_MIN &&
	     x->red != KRL_RED_MAX))
		return -1;
	/* over the channels: the halo form; over the positions: the
	 * gather form */
	if (!pos && !(q.halo && q.nsp == 2 && nd == 4 && x->in[0] == src &&
	              x->axis == 1 && x->naxes == 1))
		return -1;
	if (!G->convred) {
		size_t nn = (size_t)(g->nn > 0 ? g->nn : 1);
		G->convred = malloc(nn * sizeof *G->convred);
		G->redconv = malloc(nn * sizeof *G->redconv);
		if (!G->convred || !G->redconv) {
			G->oom = 1;
			return -2;
		}
		for (size_t i = 0; i < nn; i++)
			G->convred[i] = G->redconv[i] = -1;
	}
	return r;
}

/* Writes convolution n of K (geometry q) as the implicit-GEMM kernel over
 * weight buffer wbuf ([Cout, Cin, k...]): 1 (or G->err, G->fail, G->oom
 * set). */
static int igemm_emit(cg_gen *G, cg_kern *K, int n, cg_igemm q,
                      const char *wbuf)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[n];
	const krl_gnode *xi = &g->n[x->in[0]];
	/* a reduction in the epilogue (cg_conv_red): over the channels in
	 * the halo form, over the positions in the gather form */
	const int r = G->convred && G->convred[n] >= 0 ? G->convred[n] : -1;
	const int chan = r >= 0 && q.halo, pos = r >= 0 && !q.halo;
	krl_gemm_spec sp;
	const unsigned char *in = NULL;
	int end = -1;
	const char *y = conv_start(G, K, n, &sp, &end, &in, &G->igemm_body,
	                           "implicit-GEMM", krl_kernel_conv_igemm);
	if (!y)
		return 1;
	G->nconv_tc++;
	/* the Hopper form where it applies and conv.impl=wgmma */
	const int wg = q.wg && G->s.conv_impl == 2;
	if (wg)
		q.bm = q.wbm;
	/* position tiles a block of the gather form walks (conv.tiles), row
	 * tiles of the Hopper form (q.wu) */
	const int U = wg ? q.wu : q.halo || G->s.conv_tiles < 1 ? 1 :
	              G->s.conv_tiles;
	if (wg)
		cg_sb_printf(&G->dev, "\n/*\n * k%d (conv, implicit GEMM on the "
		             "tensor cores: TF32 products, fp32 sums):\n * node %d "
		             "(%s), tiles of %d output channels x %d rows x 128 "
		             "columns%s,\n * x read once a tile through its window, "
		             "the weight packed in init\n * (the halo form, wgmma "
		             "on sm_90a)", K->id, n, x->op, q.bm, wg_rows(q.bm),
		             U > 1 ? cg_fmt(G, ", %d row tiles a block", U) : "");
	else if (q.halo)
		cg_sb_printf(&G->dev, "\n/*\n * k%d (conv, implicit GEMM on the "
		             "tensor cores: TF32 products, fp32 sums):\n * node %d "
		             "(%s), tiles of %d output channels x 4 rows x 32 "
		             "columns,\n * x read once a tile through its window "
		             "(the halo form)", K->id, n, x->op, q.bm);
	else
		cg_sb_printf(&G->dev, "\n/*\n * k%d (conv, implicit GEMM on the "
		             "tensor cores: TF32 products, fp32 sums):\n * node %d "
		             "(%s), tiles of %d output channels x %d positions%s",
		             K->id, n, x->op, q.bm, q.bn, U > 1 ? cg_fmt(G,
		             ", %d position tiles a block", U) : "");
	if (q.bias)
		cg_sb_puts(&G->dev, ", its bias added");
	/* the body's red_comb calls krl_minf and krl_maxf */
	G->need |= CG_NEED_RED;
	const char *OP = "";
	if (r >= 0) {
		const krl_gnode *rx = &g->n[r];
		OP = rx->red == KRL_RED_SUM ? "SUM" : rx->red == KRL_RED_MIN ?
		     "MIN" : "MAX";
		cg_sb_printf(&G->dev, ";\n * node %d, the %s over its %s, in the "
		             "epilogue\n * (y never formed)%s", r,
		             cg_red_name(rx->red),
		             chan ? "channels" : "positions", chan ?
		             ": a block walks every channel tile\n * of its "
		             "positions" : cg_fmt(G, ": each block's partial "
		             "into\n * k%d_part, folded by k%d_cfin", K->id, K->id));
		G->nconv_red++;
	}
	/* sizes as plan text: x [N, C, (D, (H,)) W], y [N, K, ...] */
	const char *dim_in[3], *dim_out[3];
	for (int i = 0; i < 3; i++) {
		int j = i - (3 - q.nsp);
		dim_in[i] = j >= 0 ? cg_fmt(G, "(%s)", xi->dim[2 + j].text) : "1";
		dim_out[i] = j >= 0 ? cg_fmt(G, "(%s)", x->dim[2 + j].text) : "1";
	}
	/* y's image: its own channels, or those of the cat it is a slice of
	 * (cgcat.c part_ok: the chain's end written in place), y then the
	 * cat's buffer from the slice's first channel */
	const char *Ko = cg_fmt(G, "(%s)", x->dim[1].text);
	const char *ydesc = y, *YK = Ko, *yoff = "0";
	if (r < 0 && end >= 0 && cg_cat_part_conv(G, end)) {
		const krl_gnode *c = &g->n[G->catof[end]];
		const char *P = cg_fmt(G, "%s * %s * %s", dim_out[0], dim_out[1],
		                       dim_out[2]);
		const char *o = cg_cat_before(G, G->catof[end], end);
		if (!o)
			o = "0";
		y = cg_bufname(G, G->catof[end]);
		ydesc = cg_fmt(G, "its slice of %s (channels from %s)", y, o);
		YK = cg_fmt(G, "(%s)", c->dim[1].text);
		yoff = cg_fmt(G, "(%s) * %s", o, P);
	}
	if (!conv_write_chain(G, K, n, end, in, ydesc, &sp))
		return 1; /* G->err, G->fail or G->oom says why */

	const char *N = cg_fmt(G, "(%s)", xi->dim[0].text);
	const char *C = cg_fmt(G, "(%s)", xi->dim[1].text);
	const char *cb = q.bias ? cg_bufname(G, x->in[2]) : cg_bufname(G, x->in[0]);
	/* the Hopper form's weight: packed once per param draw (k%d_wpack,
	 * igemm::wpack) into chunks laid out as its stages */
	if (wg) {
		const char *np = cg_fmt(G, "cdiv(%s, %d) * %d * cdiv(%s, 8) * 8 * "
		                        "%d", Ko, q.bm, q.bm, C, q.R * q.S);
		cg_sb_printf(&G->dev,
		    "\n/* k%d_wpack (init): k%d's weight packed as its stages read "
		    "it */\n"
		    "extern \"C\" __global__ void k%d_wpack(const float *__restrict__ "
		    "w,\n\tfloat *__restrict__ wp, int K, int C, long n)\n{\n"
		    "\tconst long i = (long)blockIdx.x * blockDim.x + threadIdx.x;\n"
		    "\tif (i < n)\n\t\tigemm::wpack<%d, %d>(w, wp, K, C, i);\n}\n",
		    K->id, K->id, K->id, q.bm, q.R * q.S);
		cg_sb_printf(&G->bufs, "derived k%d_wp f32 [%s]\n", K->id, np);
		cg_sb_printf(&G->init, "  # k%d: node %d's weight packed for the "
		             "Hopper halo form\n", K->id, n);
		cg_sb_printf(&G->init, "  launch k%d_wpack grid=(cdiv(%s, 256)) "
		             "block=(256) args(%s, k%d_wp, %s, %s, %s)\n", K->id, np,
		             wbuf, K->id, Ko, C, np);
		wbuf = cg_fmt(G, "k%d_wp", K->id);
	}
	const char *entry = wg ? cg_fmt(G, "wgh_entry<%d, %d, %d", q.bm, q.R,
	                                q.S) :
	    q.halo ? cg_fmt(G, "halo%s_entry<%d, %d, %d", chan ? "_red" : "",
	                    q.bm, q.R, q.S) :
	    cg_fmt(G, "conv%s_entry<%d, %d, %d, %d, %d, %d, %d", pos ? "_red" :
	           "", q.bm, q.bn, q.wm, q.wn, q.T, q.R, q.S);
	/* the template's last arguments: row or position tiles a block,
	 * the reduction */
	const char *targs = q.halo && !wg ? "" : cg_fmt(G, ", %d", U);
	if (r >= 0)
		targs = cg_fmt(G, "%s, igemm::RED_%s", targs, OP);
	cg_sb_printf(&G->dev,
	    "\nextern \"C\" __global__ void __launch_bounds__(256, %d)\n"
	    "%s(const float *__restrict__ x, const float *__restrict__ w,\n"
	    "\tconst float *__restrict__ cb, float *__restrict__ y, int nimg,\n"
	    "\tint C, int D, int H, int W, int K, int OD, int OH, int OW,\n"
	    "\tint sd, int sh, int sw, int pd, int ph, int pw, int dd, int dh,\n"
	    "\tint dw, int YK, long yoff%s)\n{\n"
	    "\tconst igemm::geo q = {C, D, H, W, K, OD, OH, OW, sd, sh, sw, pd, "
	    "ph, pw, dd, dh, dw, YK};\n"
	    "\tconst long P = (long)OD * OH * OW;\n"
	    "\t(void)P;\n"
	    "\tconst %s e = %s;\n"
	    "\tigemm::%s, %s, %s%s>(x, w, cb, y + yoff, q, nimg, e);\n}\n",
	    wg ? 1 : 2, sp.kernel, sp.epi ? sp.epi_params : "",
	    sp.epi ? sp.epi : "igemm::ident", sp.epi ? sp.epi_init : "{}",
	    entry, q.pad ? "true" : "false", q.bias ? "true" : "false", targs);
	if (pos) {
		G->nconv_fin++;
		cg_sb_printf(&G->dev,
		    "\n/* k%d_cfin: node %d from k%d_conv's partials */\n"
		    "extern \"C\" __global__ void __launch_bounds__(256)\n"
		    "k%d_cfin(const float *__restrict__ part, float *__restrict__ "
		    "r, int nimg, int nblk,\n\tint K)\n{\n"
		    "\tigemm::red_finish<igemm::RED_%s>(part, r, nimg, nblk, K);\n"
		    "}\n", K->id, r, K->id, K->id, OP);
	}
	cg_sb_printf(&G->plan, "# k%d: node %d as the implicit-GEMM "
	             "convolution%s\n", K->id, n, r >= 0 ? cg_fmt(G, ", node %d "
	             "(the reduction over its %s) in its epilogue", r, chan ?
	             "channels" : "positions") : "");
	/* blocks: channel tiles x position tiles (the halo form's: column
	 * tiles x row tiles of one plane) */
	const char *tiles = wg ?
	    cg_fmt(G, "cdiv(%s, 128) * cdiv(%s, %d)", dim_out[2], dim_out[1],
	           wg_rows(q.bm) * U) :
	    q.halo ?
	    cg_fmt(G, "cdiv(%s, 32) * cdiv(%s, 4)", dim_out[2], dim_out[1]) :
	    cg_fmt(G, "cdiv(%s * %s * %s, %d)", dim_out[0], dim_out[1],
	           dim_out[2], q.bn * U);
	/* the channel reduction's blocks walk every channel tile; the
	 * position reduction writes [N, position blocks, K] partials */
	const char *ctiles = chan ? "" : cg_fmt(G, "cdiv(%s, %d) * ", Ko, q.bm);
	const char *nblk = cg_fmt(G, "cdiv(%s * %s * %s, %d)", dim_out[0],
	                          dim_out[1], dim_out[2], q.bn * U);
	if (pos) {
		y = cg_fmt(G, "k%d_part", K->id);
		cg_sb_printf(&G->bufs, "buffer %s f32 [%s, %s, %s]\n", y, N, nblk,
		             Ko);
	}
	cg_sb_printf(&G->plan,
	    "launch %s grid=(%s%s, min(%s, "
	    "65535)) block=(256) \\\n    smem=%u args(%s, %s, %s, %s, %s, %s, "
	    "%s, %s, %s, %s, %s, %s, %s, %lld, %lld, %lld, %lld, %lld, %lld, "
	    "%lld, %lld, %lld, %s, %s%s)\n",
	    sp.kernel, ctiles, tiles, N,
	    igemm_smem(&q, wg), cg_bufname(G, x->in[0]), wbuf,
	    cb, y, N, C, dim_in[0], dim_in[1], dim_in[2], Ko, dim_out[0],
	    dim_out[1], dim_out[2], (long long)q.stride[0],
	    (long long)q.stride[1], (long long)q.stride[2],
	    (long long)q.padv[0], (long long)q.padv[1], (long long)q.padv[2],
	    (long long)q.dil[0], (long long)q.dil[1], (long long)q.dil[2],
	    YK, yoff, sp.epi ? sp.epi_args : "");
	if (pos)
		cg_sb_printf(&G->plan, "launch k%d_cfin grid=(cdiv(%s * %s, 256)) "
		             "block=(256) args(%s, %s, %s, %s, %s)\n", K->id, N, Ko,
		             y, cg_bufname(G, r), N, nblk, Ko);
	return 1;
}

int cg_emit_igemm(cg_gen *G, cg_kern *K)
{
	int n = K->anchor[0];
	cg_igemm q;
	if (!cg_igemm_geom(G->g, n, &q))
		return 0;
	return igemm_emit(G, K, n, q, cg_bufname(G, G->g->n[n].in[1]));
}

int cg_emit_igemm_tconv(cg_gen *G, cg_kern *K, const char *wf)
{
	int n = K->anchor[0];
	cg_igemm q;
	if (!cg_igemm_tconv_geom(G->g, n, &q))
		return 0;
	return igemm_emit(G, K, n, q, wf);
}

/* ==== Depthwise convolutions (src/opt/kernels/conv_dw.cuh) ==== */

int cg_dw_geom(const krl_graph *g, int n, cg_dw *q)
{
	memset(q, 0, sizeof *q);
	krl_conv_geom geo;
	if (!conv_fixed(g, n, 1, &geo, &q->bias) || geo.nsp != 2 ||
	    !krl_conv_is_depthwise(&geo) || geo.cout % geo.cin)
		return 0;
	/* the weights in registers, the walk unrolled: at most 64 taps, a
	 * tap's reach below 64 */
	if (geo.k[0] * geo.k[1] > 64 || geo.dil[0] * (geo.k[0] - 1) >= 64 ||
	    geo.dil[1] * (geo.k[1] - 1) >= 64 || geo.stride[0] > 8 ||
	    geo.stride[1] > 8 || geo.pad[0] >= 64 || geo.pad[1] >= 64)
		return 0;
	/* in-plane offsets are 32-bit */
	if (geo.in[0] * geo.in[1] >= INT32_MAX ||
	    geo.out[0] * geo.out[1] >= INT32_MAX || geo.cout >= INT32_MAX)
		return 0;
	q->kh = (int)geo.k[0];
	q->kw = (int)geo.k[1];
	q->sh = (int)geo.stride[0];
	q->sw = (int)geo.stride[1];
	q->dh = (int)geo.dil[0];
	q->dw = (int)geo.dil[1];
	q->ow = geo.out[1];
	return 1;
}

int cg_emit_dwconv(cg_gen *G, cg_kern *K)
{
	const krl_graph *g = G->g;
	int n = K->anchor[0];
	const krl_gnode *x = &g->n[n];
	cg_dw q;
	int rows = G->s.conv_dw;
	if (rows < 1 || !cg_dw_geom(g, n, &q))
		return 0;
	const krl_gnode *xi = &g->n[x->in[0]], *wi = &g->n[x->in[1]];
	krl_gemm_spec sp;
	const unsigned char *in = NULL;
	int end = -1;
	const char *y = conv_start(G, K, n, &sp, &end, &in, &G->dw_body,
	                           "depthwise", krl_kernel_conv_dw);
	if (!y)
		return 1;
	G->nconv_dw++;
	cg_sb_printf(&G->dev, "\n/*\n * k%d (depthwise conv, fp32): node %d "
	             "(%s), %d x %d taps (stride %d x %d, dilation %d x %d)\n"
	             " * walked as literals, a thread %d output rows of a "
	             "column, 32 columns x %d rows\n * a block", K->id, n, x->op,
	             q.kh, q.kw, q.sh, q.sw, q.dh, q.dw, rows, 8 * rows);
	if (q.bias)
		cg_sb_puts(&G->dev, ", its bias added");
	if (!conv_write_chain(G, K, n, end, in, y, &sp))
		return 1;
	cg_sb_printf(&G->dev,
	    "\nextern \"C\" __global__ void __launch_bounds__(256)\n"
	    "%s(const float *__restrict__ x, const float *__restrict__ w,\n"
	    "\tconst float *__restrict__ cb, float *__restrict__ y, int nimg,\n"
	    "\tint C, int H, int W, int K, int OH, int OW, int kh, int kw,\n"
	    "\tint sh, int sw, int ph, int pw, int dh, int dw%s)\n{\n"
	    "\tconst dwconv::geo q = {C, H, W, K, OH, OW, K / C, kh, kw, sh, "
	    "sw, ph, pw, dh, dw};\n"
	    "\tconst long P = (long)OH * OW;\n"
	    "\t(void)P;\n"
	    "\tconst %s e = %s;\n"
	    "\tdwconv::entry<%d, %d, %d, %d, %d, %d, %d, %s>(x, w, cb, y, q, "
	    "nimg, e);\n}\n",
	    sp.kernel, sp.epi ? sp.epi_params : "",
	    sp.epi ? sp.epi : "dwconv::ident", sp.epi ? sp.epi_init : "{}",
	    q.kh, q.kw, q.sh, q.sw, q.dh, q.dw, rows,
	    q.bias ? "true" : "false");
	cg_sb_printf(&G->plan, "# k%d: node %d as the depthwise convolution\n",
	             K->id, n);
	const char *N = cg_fmt(G, "(%s)", xi->dim[0].text);
	const char *Ko = cg_fmt(G, "(%s)", x->dim[1].text);
	const char *OH = cg_fmt(G, "(%s)", x->dim[2].text);
	const char *OW = cg_fmt(G, "(%s)", x->dim[3].text);
	const char *cb = q.bias ? cg_bufname(G, x->in[2]) : cg_bufname(G, x->in[0]);
	cg_sb_printf(&G->plan,
	    "launch %s grid=(cdiv(%s, 32) * cdiv(%s, %d), min(%s * %s, 65535)) "
	    "block=(256) \\\n    args(%s, %s, %s, %s, %s, (%s), (%s), (%s), %s, "
	    "%s, %s, (%s), (%s), %s, %s, %s, %s, %s, %s%s)\n",
	    sp.kernel, OW, OH, 8 * rows, N, Ko, cg_bufname(G, x->in[0]),
	    cg_bufname(G, x->in[1]), cb, y, N, xi->dim[1].text, xi->dim[2].text,
	    xi->dim[3].text, Ko, OH, OW, wi->dim[2].text, wi->dim[3].text,
	    cg_attr_plan_axis(G, x, "stride", "h", "1"),
	    cg_attr_plan_axis(G, x, "stride", "w", "1"),
	    cg_attr_plan_axis(G, x, "padding", "h", "0"),
	    cg_attr_plan_axis(G, x, "padding", "w", "0"),
	    cg_attr_plan_axis(G, x, "dilation", "h", "1"),
	    cg_attr_plan_axis(G, x, "dilation", "w", "1"),
	    sp.epi ? sp.epi_args : "");
	return 1;
}
