/*
 * Grouped transposed convolutions as dense ones (the decision
 * `lib.groups`, docs/optimizer.md section 3b): the weight written out
 * block-diagonal, zeros between the groups, in `init` (a `derived`
 * buffer: once per param draw, not per call), and the call made with one
 * group. It does groups times the products, but cuDNN's engines for a
 * grouped backward-data convolution are far slower than its dense ones:
 * on the H200 (cuDNN 9.14 and 9.19) 73's grouped call (4 groups) ran 9.9
 * ms at best over every algorithm, the same call ungrouped 1.8 ms
 * (bench/results/2026-12-04-h200-level1-peers, README).
 *
 * A weight [A, B / groups, taps] (a transposed convolution's is [cin,
 * cout / groups, k...]; a forward one's [cout, cin / groups, k...] has
 * the same form) becomes [A, B, taps] with wd[a, b] = w[a, b mod B_g]
 * where a and b are in the same group (a / A_g == b / B_g), else 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

int cg_dense_geom(const krl_graph *g, int n)
{
	const krl_gnode *x = &g->n[n];
	if (x->kind != KRL_GN_LIB || !krl_opt_lib_tconv(g, n) ||
	    x->dtype != KRL_F32 || x->nin < 2 || x->nout > 1 ||
	    g->n[x->in[1]].ndim < 3)
		return 0;
	/* groups given, more than one at the set */
	for (int i = 0; i < x->nattrs; i++)
		if (!strcmp(x->attrs[i].key, "groups"))
			return x->aval[i] >= 2 ? (int)x->aval[i] : 0;
	return 0;
}

/* The block-diagonal weight's kernel, written once per candidate. */
static void emit_wdense(cg_gen *G)
{
	if (G->dense_body)
		return;
	G->dense_body = 1;
	cg_sb_puts(&G->dev,
	"\n/*\n"
	" * krl_wdense (init): a grouped convolution's weight w [A, B / groups,\n"
	" * taps] as a dense one wd [A, B, taps], block-diagonal: wd[a, b] =\n"
	" * w[a, b mod B_g] where a / A_g == b / B_g, else 0.\n"
	" */\n"
	"extern \"C\" __global__ void krl_wdense(const float *__restrict__ w,\n"
	"                                      float *__restrict__ wd, long A,\n"
	"                                      long B, long groups, long taps)\n"
	"{\n"
	"\tconst long i = (long)blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i >= A * B * taps)\n"
	"\t\treturn;\n"
	"\tconst long t = i % taps, j = i / taps;\n"
	"\tconst long b = j % B, a = j / B;\n"
	"\tconst long ag = A / groups, bg = B / groups;\n"
	"\twd[i] = b / bg == a / ag ? w[(a * bg + b % bg) * taps + t] : 0.f;\n"
	"}\n");
}

const char *cg_emit_dense(cg_gen *G, cg_kern *K)
{
	const krl_graph *g = G->g;
	int n = K->anchor[0], id = K->id;
	const krl_gnode *x = &g->n[n], *w = &g->n[x->in[1]];
	const char *wn = cg_bufname(G, x->in[1]);
	const char *groups = cg_attr_plan(G, x, "groups", "1");
	const char *B = cg_fmt(G, "(%s) * (%s)", w->dim[1].text, groups);
	char *taps = cg_prod(G, x->in[1], 2, w->ndim);
	emit_wdense(G);
	cg_sb_printf(&G->bufs, "derived k%d_wd f32 [(%s), %s", id,
	             w->dim[0].text, B);
	for (int i = 2; i < w->ndim; i++)
		cg_sb_printf(&G->bufs, ", (%s)", w->dim[i].text);
	cg_sb_puts(&G->bufs, "]\n");
	cg_sb_printf(&G->init, "  # k%d: the weight of node %d block-diagonal, "
	             "the call ungrouped\n", id, n);
	cg_sb_printf(&G->init, "  launch krl_wdense grid=(cdiv(numel(%s) * (%s), "
	             "256)) block=(256) args(%s, k%d_wd, %s, %s, %s, %s)\n", wn,
	             groups, wn, id, w->dim[0].text, B, groups, taps);
	G->ndense++;
	return cg_fmt(G, "k%d_wd", id);
}

/* krl_wkrsc, once per candidate: the transpose of a weight [A, B, taps]
 * into cuDNN's channels-last filter format [A, taps, B]. */
static void emit_wkrsc(cg_gen *G)
{
	if (G->wkrsc_body)
		return;
	G->wkrsc_body = 1;
	cg_sb_puts(&G->dev,
	"\n/*\n"
	" * krl_wkrsc (init): a convolution's weight w [A, B, taps] in cuDNN's\n"
	" * channels-last filter format wt [A, taps, B] (what layout=nhwc\n"
	" * transposes it to on every call), for w_layout=krsc.\n"
	" */\n"
	"extern \"C\" __global__ void krl_wkrsc(const float *__restrict__ w,\n"
	"                                     float *__restrict__ wt, long A,\n"
	"                                     long B, long taps)\n"
	"{\n"
	"\tconst long i = (long)blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i >= A * B * taps)\n"
	"\t\treturn;\n"
	"\tconst long b = i % B, j = i / B;\n"
	"\tconst long t = j % taps, a = j / taps;\n"
	"\twt[i] = w[(a * B + b) * taps + t];\n"
	"}\n");
}

const char *cg_weight_krsc(cg_gen *G, cg_kern *K, int n)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[n];
	if (!G->s.lib_layout || x->nin < 2 || !krl_opt_lib_takes_layout(g, n) ||
	    (strcmp(x->op, "conv") && strcmp(x->op, "conv_bias") &&
	     strcmp(x->op, "conv_transpose") &&
	     strcmp(x->op, "conv_transpose_bias")) || !cg_groups_one(x))
		return NULL;
	const krl_gnode *w = &g->n[x->in[1]];
	if (w->kind != KRL_GN_BUF || w->dtype != KRL_F32 || w->ndim < 3 ||
	    g->task->decls[w->buf].role != KRL_ROLE_PARAM)
		return NULL;
	const char *wn = cg_bufname(G, x->in[1]);
	char *taps = cg_prod(G, x->in[1], 2, w->ndim);
	emit_wkrsc(G);
	cg_sb_printf(&G->bufs, "derived k%d_wt f32 [", K->id);
	for (int i = 0; i < w->ndim; i++)
		cg_sb_printf(&G->bufs, "%s(%s)", i ? ", " : "", w->dim[i].text);
	cg_sb_puts(&G->bufs, "]\n");
	cg_sb_printf(&G->init, "  # k%d: the weight of node %d in cuDNN's "
	             "channels-last filter format\n", K->id, n);
	cg_sb_printf(&G->init, "  launch krl_wkrsc grid=(cdiv(numel(%s), 256)) "
	             "block=(256) args(%s, k%d_wt, %s, %s, %s)\n", wn, wn, K->id,
	             w->dim[0].text, w->dim[1].text, taps);
	G->nwkrsc++;
	return cg_fmt(G, "k%d_wt", K->id);
}
