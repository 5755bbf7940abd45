/*
 * The codegen toolbox, kernels (cgtool.h): a kernel's arguments (the
 * buffers and plan values it reads), its header comment, its signature and
 * its plan launch, the schedule's choices on a library call, and the names
 * of reduce ops. Every kernel writer uses these; they call no writer.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

/* ==== Kernel arguments ==== */

static cg_arg *add_arg(cg_gen *G, cg_kern *K, char kind)
{
	if (K->nargs == CG_MAX_ARGS) {
		snprintf(G->err, sizeof G->err, "more than %d arguments in one "
		         "kernel", CG_MAX_ARGS);
		return NULL;
	}
	cg_arg *a = &K->args[K->nargs++];
	memset(a, 0, sizeof *a);
	a->kind = kind;
	return a;
}

const char *cg_arg_long(cg_gen *G, cg_kern *K, const char *plan)
{
	for (int i = 0; i < K->nargs; i++)
		if (K->args[i].kind == 'l' && strcmp(K->args[i].plan, plan) == 0)
			return K->args[i].cname;
	cg_arg *a = add_arg(G, K, 'l');
	if (!a)
		return "0";
	a->plan = cg_fmt(G, "%s", plan);
	a->cname = cg_fmt(G, "a%d", K->nargs - 1);
	a->ctype = "long";
	return a->cname;
}

const char *cg_arg_dbl(cg_gen *G, cg_kern *K, const char *plan)
{
	for (int i = 0; i < K->nargs; i++)
		if (K->args[i].kind == 'd' && strcmp(K->args[i].plan, plan) == 0)
			return K->args[i].cname;
	cg_arg *a = add_arg(G, K, 'd');
	if (!a)
		return "0.0";
	a->plan = cg_fmt(G, "%s", plan);
	a->cname = cg_fmt(G, "c%d", K->nargs - 1);
	a->ctype = "double";
	return a->cname;
}

const char *cg_ctype(krl_dtype t)
{
	switch (t) {
	case KRL_F32: return "float";
	case KRL_F64: return "double";
	case KRL_I32: return "int";
	case KRL_I64: return "long long";
	case KRL_BOOL: return "unsigned char";
	case KRL_F16: return "__half";
	case KRL_BF16: return "__nv_bfloat16";
	default: return "float";
	}
}

const char *cg_arg_named(cg_gen *G, cg_kern *K, const char *name,
                         const char *ctype)
{
	for (int i = 0; i < K->nargs; i++)
		if (K->args[i].kind == 'p' && strcmp(K->args[i].plan, name) == 0)
			return K->args[i].cname;
	cg_arg *a = add_arg(G, K, 'p');
	if (!a)
		return "0";
	a->plan = cg_fmt(G, "%s", name);
	a->cname = cg_fmt(G, "p_%s", name);
	a->ctype = cg_fmt(G, "%s", ctype);
	return a->cname;
}

const char *cg_attr_plan(cg_gen *G, const krl_gnode *x, const char *key,
                         const char *dflt)
{
	for (int i = 0; i < x->nattrs; i++) {
		if (strcmp(x->attrs[i].key, key))
			continue;
		char *z = krl_opt_expr_text(x->attrs[i].value);
		if (!z) {
			G->oom = 1;
			return dflt;
		}
		const char *r = cg_fmt(G, "%s", z);
		free(z);
		return r;
	}
	return dflt;
}

const char *cg_attr_plan_axis(cg_gen *G, const krl_gnode *x,
                              const char *name, const char *axis,
                              const char *dflt)
{
	return cg_attr_plan(G, x, cg_fmt(G, "%s_%s", name, axis),
	                    cg_attr_plan(G, x, name, dflt));
}

const char *cg_bufname(cg_gen *G, int n)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[n];
	if (x->kind == KRL_GN_BUF)
		return g->task->decls[x->buf].name;
	int od = cg_out_decl(g, n, 0);
	if (od >= 0)
		return g->task->decls[od].name;
	return cg_fmt(G, "t%d", n);
}

const char *cg_arg_buf(cg_gen *G, cg_kern *K, int n, int write)
{
	const krl_gnode *x = &G->g->n[n];
	const char *name = cg_bufname(G, n);
	const char *ct = cg_ctype(x->dtype);
	return cg_arg_named(G, K, name,
	                    write ? cg_fmt(G, "%s *__restrict__", ct)
	                          : cg_fmt(G, "const %s *__restrict__", ct));
}

void cg_args_reset(cg_kern *K)
{
	K->nargs = 0;
}

/* ==== Assembly ==== */

void cg_kernel_comment(cg_gen *G, cg_kern *K, const char *how)
{
	const krl_graph *g = G->g;
	cg_sb b = { 0 };
	int first = 1;
	/* every node computed here: anchors, outputs, and the inline nodes
	 * they use */
	unsigned char *seen = calloc((size_t)g->nn, 1);
	int *stack = malloc((size_t)g->nn * sizeof *stack);
	int ns = 0;
	if (!seen || !stack) {
		G->oom = 1;
		free(seen);
		free(stack);
		return;
	}
	for (int a = 0; a < K->nanchor; a++)
		stack[ns++] = K->anchor[a];
	for (int o = 0; o < K->nout && ns < g->nn; o++)
		if (!seen[K->out[o]]) {
			stack[ns++] = K->out[o];
			seen[K->out[o]] = 1;
		}
	for (int a = 0; a < K->nanchor; a++)
		seen[K->anchor[a]] = 1;
	while (ns) {
		int m = stack[--ns];
		const krl_gnode *x = &g->n[m];
		for (int i = 0; i < x->nin; i++) {
			int c = x->in[i];
			if (seen[c] || !cg_inline_in(G, c, K) ||
			    g->n[c].kind == KRL_GN_CONST)
				continue;
			seen[c] = 1;
			stack[ns++] = c;
		}
	}
	for (int m = 0; m < g->nn; m++) {
		if (!seen[m])
			continue;
		const krl_gnode *x = &g->n[m];
		const char *what = "?";
		switch (x->kind) {
		case KRL_GN_PW: {
			const krl_pwinfo *pi = krl_pw_info(x->pw);
			what = pi ? pi->name : "pw";
			break;
		}
		case KRL_GN_REDUCE: what = cg_red_name(x->red); break;
		case KRL_GN_SCAN:
			what = x->scan == KRL_SCAN_SUM ? "cumsum" : "cumprod";
			break;
		case KRL_GN_GATHER: what = "gather"; break;
		case KRL_GN_FLIP: what = "flip"; break;
		case KRL_GN_POOL:
			what = x->pool == KRL_POOL_AVG ? "avg_pool" :
			       x->pool == KRL_POOL_MAX ? "max_pool" :
			       "max_pool_index";
			break;
		case KRL_GN_BUF: what = "copy"; break;
		case KRL_GN_CONST: what = "fill"; break;
		case KRL_GN_VIEW: what = "view"; break;
		default: break;
		}
		cg_sb_printf(&b, "%s%d %s", first ? "" : ", ", m, what);
		first = 0;
	}
	cg_sb_printf(&G->dev, "\n/*\n * k%d (%s): nodes %s.\n", K->id, how,
	             b.z ? b.z : "");
	cg_sb_puts(&G->dev, " * Writes:");
	for (int o = 0; o < K->nout; o++)
		cg_sb_printf(&G->dev, " %s", cg_bufname(G, K->out[o]));
	cg_sb_puts(&G->dev, ".\n */\n");
	if (b.oom)
		G->oom = 1;
	cg_sb_free(&b);
	free(seen);
	free(stack);
}

void cg_kernel_sig(cg_gen *G, cg_kern *K, const char *name, int block)
{
	cg_kernel_sig_min(G, K, name, block, 0);
}

void cg_kernel_sig_min(cg_gen *G, cg_kern *K, const char *name, int block,
                       int minblocks)
{
	if (minblocks > 0)
		cg_sb_printf(&G->dev, "extern \"C\" __global__ void "
		             "__launch_bounds__(%d, %d)\n%s(", block, minblocks,
		             name);
	else
		cg_sb_printf(&G->dev, "extern \"C\" __global__ void "
		             "__launch_bounds__(%d)\n%s(", block, name);
	for (int i = 0; i < K->nargs; i++) {
		const cg_arg *a = &K->args[i];
		cg_sb_printf(&G->dev, "%s%s %s", i ? ",\n\t" : "", a->ctype,
		             a->cname);
	}
	cg_sb_puts(&G->dev, ")\n");
}

void cg_plan_launch(cg_gen *G, cg_kern *K, const char *name,
                    const char *grid, const char *block)
{
	cg_sb_printf(&G->plan, "launch %s grid=(%s) block=(%s) args(", name,
	             grid, block);
	for (int i = 0; i < K->nargs; i++)
		cg_sb_printf(&G->plan, "%s%s", i ? ",\n    " : "",
		             K->args[i].plan);
	cg_sb_puts(&G->plan, ")\n");
}

void cg_lib_choices(cg_gen *G, int algo, int layout, int n)
{
	if (algo && G->s.lib_algo > 0) {
		cg_sb_printf(&G->plan, " algo=%d", G->s.lib_algo);
		G->nalgo++;
	}
	if (layout && G->s.lib_layout) {
		int xy = n >= 0 && cg_cl_reads_x(G, n);
		cg_sb_puts(&G->plan, xy ? " layout=nhwc_xy" :
		           n >= 0 && cg_is_cl(G, n) ? " layout=nhwc_y" :
		           " layout=nhwc");
		G->nlayout++;
		G->nlayout_xy += xy;
	}
	const char *const *rec = krl_attr_words("recurrence");
	if (n >= 0 && G->s.lib_rnn > 0 && G->s.lib_rnn < 4 &&
	    (krl_opt_lib_caps(G->g, n) & KRL_OPCAP_RECURRENCE)) {
		cg_sb_printf(&G->plan, " recurrence=%s", rec[G->s.lib_rnn]);
		G->nrec++;
	}
	cg_sb_puts(&G->plan, "\n");
}

int cg_cl_view(const krl_graph *g, int n)
{
	const krl_gnode *x = &g->n[n];
	if (x->kind != KRL_GN_VIEW)
		return 0;
	const krl_gnode *a = &g->n[x->in[0]];
	return x->ndim >= 3 && a->ndim >= 3 &&
	       cg_dim_eq(x->dim[0].text, a->dim[0].text) &&
	       cg_dim_eq(x->dim[1].text, a->dim[1].text);
}

double cg_cl_col_blocks(const krl_gnode *sp, int ax0, int ax1)
{
	double outer = 1, inner = 1;
	for (int k = 0; k < sp->ndim; k++) {
		double v = sp->dim[k].val > 0 ? (double)sp->dim[k].val : 1;
		if (k == 0 || (k >= 2 && k < ax0))
			outer *= v;
		else if (k == 1 || k >= ax1)
			inner *= v;
	}
	return outer * ceil(inner / 32);
}

int cg_cl_rows_pay(const krl_gnode *sp, int ax0, int ax1)
{
	if (sp->ndim < 3)
		return 0;
	if (ax0 == 1 && ax1 == 2)
		return (double)sp->dim[1].val >= CG_CL_MIN_ROW;
	if (ax0 < 2 || ax1 <= ax0 || ax1 > sp->ndim)
		return 0;
	return cg_cl_col_blocks(sp, ax0, ax1) >= CG_CL_MIN_BLOCKS;
}

/* Whether pool node j (over every spatial dim) is read by a convolution
 * taking it as a channels-last x: then a channels-last input of the pool
 * serves that convolution too (the pool kernel walks it in memory order
 * and writes its output so). SqueezeNet's fire modules 4 and 8 end in a
 * cat that a max pool reads before the next module's squeeze
 * convolution: without this the cat's parts were written NCHW through
 * shared-memory transposes and the convolution read x NCHW. */
static int pool_feeds_conv(const cg_gen *G, int j)
{
	const krl_graph *g = G->g;
	for (int k = j + 1; k < g->nn; k++)
		if (g->n[k].kind == KRL_GN_LIB && g->n[k].nin >= 1 &&
		    g->n[k].in[0] == j && cg_is_cl(G, k))
			return 1;
	return 0;
}

/* Whether every reader of node n is a generated node that indexes a
 * channels-last n through codegen_ev.c or walks it in memory order: a
 * pointwise node, a reduction, or a pool over every spatial dim
 * (emit_pool_cl; a pool over fewer dims may read its input's buffer
 * directly). Library readers count only where `conv_x` (cg_cl_plan) and
 * they read n as a channels-last x; *nconv counts those, and pools whose
 * output such a convolution reads (pool_feeds_conv). Returns how many
 * readers, 0 when one is of another kind. */
static int cl_readers(const cg_gen *G, int n, int conv_x, int *nconv)
{
	const krl_graph *g = G->g;
	int k = 0;
	for (int j = n + 1; j < g->nn; j++)
		for (int q = 0; q < g->n[j].nin; q++) {
			if (g->n[j].in[q] != n)
				continue;
			const krl_gnode *r = &g->n[j];
			int ok = r->kind == KRL_GN_PW || r->kind == KRL_GN_REDUCE ||
			         (r->kind == KRL_GN_POOL && r->axis == 2 &&
			          r->ndim == g->n[n].ndim);
			if (ok && conv_x && r->kind == KRL_GN_POOL &&
			    pool_feeds_conv(G, j))
				(*nconv)++;
			if (!ok && conv_x && r->kind == KRL_GN_LIB && q == 0 &&
			    cg_is_cl(G, j)) {
				ok = 1;
				(*nconv)++;
			}
			if (!ok)
				return 0;
			k++;
		}
	return k;
}

/* cg_is_cl's library nodes: convolutions leaving y channels-last. */
static int lib_cl(const cg_gen *G, int n)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[n];
	cg_tconv tc;
	cg_igemm ig;
	if (G->s.lib_layout < 2 || x->kind != KRL_GN_LIB || x->nin != 2 ||
	    x->nout != 1 || x->dtype != KRL_F32 || x->ndim < 3 ||
	    !krl_opt_lib_takes_layout(g, n) ||
	    (strcmp(x->op, "conv") && strcmp(x->op, "conv_transpose")) ||
	    krl_graph_is_output(g, n) ||
	    (G->s.lib_tconv && cg_tconv_geom(g, n, &tc)) ||
	    /* the implicit GEMM writes NCHW */
	    (G->s.conv_impl >= 1 && cg_igemm_geom(g, n, &ig)))
		return 0;
	/* groups 1: never depthwise, whose kernel writes NCHW */
	int nconv = 0;
	return cg_groups_one(x) && cl_readers(G, n, 0, &nconv) > 0;
}

int cg_groups_one(const krl_gnode *x)
{
	for (int a = 0; a < x->nattrs; a++) {
		if (strcmp(x->attrs[a].key, "groups"))
			continue;
		char *z = krl_opt_expr_text(x->attrs[a].value);
		int one = z && !strcmp(z, "1");
		free(z);
		if (!one)
			return 0;
	}
	return 1;
}

int cg_is_cl(const cg_gen *G, int n)
{
	if (G->clgen && G->clgen[n])
		return 1;
	return lib_cl(G, n);
}

int cg_cl_reads_x(const cg_gen *G, int n)
{
	const krl_gnode *x = &G->g->n[n];
	return G->clgen && x->kind == KRL_GN_LIB && x->nin >= 1 &&
	       G->clgen[x->in[0]] && lib_cl(G, n);
}

/* cg_cl_plan's test of node m itself, homed in kernel K: an f32
 * pointwise node (or, in a pool kernel, the pool) of K's shape, no task
 * output, read only by generated nodes and convolutions taking x
 * channels-last, whose count goes to *nconv. */
static int clgen_node(cg_gen *G, const cg_kern *K, int m, int *nconv)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[m];
	if ((x->kind != KRL_GN_PW && x->kind != KRL_GN_POOL) ||
	    x->dtype != KRL_F32 || x->ndim < 3 || !G->mat[m] || G->alias[m] ||
	    krl_graph_is_output(g, m) || cg_out_decl(g, m, 0) >= 0 ||
	    !cg_gsame(G, m, K->space) || g->n[K->space].ndim != x->ndim)
		return 0;
	return cl_readers(G, m, 1, nconv) > 0;
}

/* Whether kernel K writes its output m in a channels-last input's memory
 * order, so that it can store m channels-last: a map kernel over a
 * channels-last leaf that m (pointwise) reaches (emit_map_cl), or a pool
 * kernel pooling one over every spatial dim (emit_pool_cl). m has K's
 * shape. */
static int writes_cl_order(cg_gen *G, cg_kern *K, int m)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[m];
	if (!cg_gsame(G, m, K->space) || g->n[K->space].ndim != x->ndim)
		return 0;
	if (K->kind == CK_MAP) {
		int leaf = -1;
		for (int q = 0; q < x->nin && leaf < 0; q++)
			leaf = cg_cl_reach(G, K, x->in[q], K->space, 0);
		return x->kind == KRL_GN_PW && leaf >= 0;
	}
	const krl_gnode *a0 = &g->n[K->anchor[0]];
	return K->kind == CK_POOL && a0->kind == KRL_GN_POOL && a0->axis == 2 &&
	       cg_cl_reach(G, K, a0->in[0], a0->in[0], 0) >= 0;
}

/* Whether map or pool output m may be written channels-last (cg_cl_plan's
 * test, the marks of the nodes before m made): its kernel writes it in a
 * channels-last leaf's order (writes_cl_order), m read by a convolution
 * taking it as x; a pool kernel's outputs all so, one of them read by
 * such a convolution. */
static int clgen_ok(cg_gen *G, int m)
{
	if (G->home[m] < 0)
		return 0;
	cg_kern *K = &G->k[G->home[m]];
	int out = 0, nconv = 0;
	for (int o = 0; o < K->nout; o++)
		out |= K->out[o] == m;
	if (!out || !clgen_node(G, K, m, &nconv) || !writes_cl_order(G, K, m))
		return 0;
	for (int o = 0; K->kind == CK_POOL && o < K->nout; o++)
		if (K->out[o] != m && !clgen_node(G, K, K->out[o], &nconv))
			return 0;
	return nconv > 0;
}

/* Whether cat c, written in place, may be stored channels-last with its
 * parts: a cat of channels (dim 1) of f32 [N, C, s...], no task output,
 * read only by generated nodes and convolutions taking it as x (one at
 * least); each part written in a channels-last leaf's order
 * (writes_cl_order), a pool's as its kernel's one output. */
static int cat_cl_ok(cg_gen *G, int c)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[c];
	int nconv = 0;
	if (!cg_cat_inplace(G, c) || cg_cat_dim(x) != 1 || x->ndim < 3 ||
	    krl_graph_is_output(g, c) || cg_out_decl(g, c, 0) >= 0 ||
	    cl_readers(G, c, 1, &nconv) <= 0 || !nconv)
		return 0;
	for (int i = 0; i < x->nin; i++) {
		cg_kern *K = &G->k[G->home[x->in[i]]];
		if (!writes_cl_order(G, K, x->in[i]) ||
		    (K->kind == CK_POOL && K->nout != 1))
			return 0;
	}
	return 1;
}

int cg_cl_plan(cg_gen *G)
{
	const krl_graph *g = G->g;
	if (G->s.lib_layout != 3 || G->clgen_off)
		return 0;
	size_t nn = (size_t)(g->nn > 0 ? g->nn : 1);
	unsigned char *was = G->clgen;
	G->clgen = calloc(nn, 1);
	if (!G->clgen) {
		G->clgen = was;
		return -1;
	}
	/* in node order: a mark may make a later map's leaf; a cat's parts
	 * (before it) and the cat take the cat's one answer, with the
	 * marks made so far (the rounds settle the rest) */
	for (int m = 0; m < g->nn; m++) {
		int c = G->catof[m];
		G->clgen[m] = (unsigned char)(c >= 0 ? cat_cl_ok(G, c) :
		                              cg_cat_inplace(G, m) ?
		                              cat_cl_ok(G, m) : clgen_ok(G, m));
	}
	int changed = !was ? memchr(G->clgen, 1, nn) != NULL :
	              memcmp(was, G->clgen, nn) != 0;
	free(was);
	return changed;
}

int cg_cl_reach(cg_gen *G, cg_kern *K, int n, int shape, int depth)
{
	const krl_graph *g = G->g;
	if (depth > 64)
		return -1;
	if (cg_is_cl(G, n))
		return cg_gsame(G, n, shape) ? n : -1;
	if (g->n[n].kind != KRL_GN_PW || cg_see(G, n, K->id) != SEE_INLINE)
		return -1;
	for (int q = 0; q < g->n[n].nin; q++) {
		int c = cg_cl_reach(G, K, g->n[n].in[q], shape, depth + 1);
		if (c >= 0)
			return c;
	}
	return -1;
}

/* ==== Reduce ops ==== */

const char *cg_red_name(krl_redop op)
{
	switch (op) {
	case KRL_RED_SUM: return "sum";
	case KRL_RED_PROD: return "prod";
	case KRL_RED_MAX: return "max";
	case KRL_RED_MIN: return "min";
	case KRL_RED_ARGMAX: return "argmax";
	case KRL_RED_ARGMIN: return "argmin";
	}
	return "?";
}

int cg_red_is_arg(krl_redop op)
{
	return op == KRL_RED_ARGMAX || op == KRL_RED_ARGMIN;
}
