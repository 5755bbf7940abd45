/*
 * The code generator's driver (docs/optimizer.md, section 3): from an op
 * graph and a schedule to candidate text. It groups the graph's nodes
 * into kernels (cg_form, cggroup.c; the model is in codegen.h) until no
 * writer asks for more to be materialised, has each kernel written by its
 * writer (codegen_map.c, codegen_row.c, codegen_total.c, codegen_scan.c,
 * codegen_pool.c, codegen_tconv.c; GEMMs as library calls or the 3xTF32
 * kernel with its epilogue, codegen_gemm.c), and assembles the file: a
 * header comment, helper device functions, the kernels and the plan.
 * Before the grouping, the ends of the pointwise chains that GEMM
 * epilogues will compute are marked materialised. Nothing but space.c calls
 * this file; the writers call only the toolbox (cgtool.h) and the value
 * emitter (codegen_ev.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

/* src/opt/kernels/helpers.cuh, embedded by the build. */
extern const char krl_kernel_helpers[];

/* A plan expression as text (attributes of library calls). */
static void expr_text(cg_sb *b, const krl_expr *e)
{
	switch (e->kind) {
	case KRL_EX_INT:
		cg_sb_printf(b, "%lld", (long long)e->ival);
		break;
	case KRL_EX_FLOAT: {
		char t[64];
		snprintf(t, sizeof t, "%.17g", e->fval);
		if (!strpbrk(t, ".eEn"))
			strcat(t, ".0");
		cg_sb_puts(b, t);
		break;
	}
	case KRL_EX_NAME:
		cg_sb_puts(b, e->name);
		break;
	case KRL_EX_NEG:
		cg_sb_puts(b, "-(");
		expr_text(b, e->lhs);
		cg_sb_puts(b, ")");
		break;
	case KRL_EX_BINARY:
		cg_sb_puts(b, "(");
		expr_text(b, e->lhs);
		cg_sb_printf(b, " %c ", e->op);
		expr_text(b, e->rhs);
		cg_sb_puts(b, ")");
		break;
	case KRL_EX_CALL:
		cg_sb_printf(b, "%s(", e->name);
		for (int i = 0; i < e->nargs; i++) {
			if (i)
				cg_sb_puts(b, ", ");
			expr_text(b, e->args[i]);
		}
		cg_sb_puts(b, ")");
		break;
	}
}

/* Whether node n is a convolution with its bias (added in the implicit
 * GEMM's epilogue when written so). */
static int is_conv_bias(const krl_graph *g, int n)
{
	return g->n[n].kind == KRL_GN_LIB && !strcmp(g->n[n].op, "conv_bias");
}

static krl_err emit_lib(cg_gen *G, cg_kern *K)
{
	const krl_graph *g = G->g;
	int n = K->anchor[0];
	const krl_gnode *x = &g->n[n];
	if (G->skip[n] == 1)
		return KRL_OK;
	if (cg_cat_inplace(G, n) && G->catlib[n] >= 0) {
		cg_sb_printf(&G->plan, "# k%d: %s (node %d) a view of %s, whose "
		             "parts' kernels wrote it\n", K->id, x->op, n,
		             cg_bufname(G, G->catlib[n]));
		G->ncat++;
		return KRL_OK;
	}
	if (cg_cat_inplace(G, n)) {
		cg_sb_printf(&G->plan, "# k%d: %s (node %d) written in place: "
		             "its inputs' kernels wrote their places in %s\n",
		             K->id, x->op, n, cg_bufname(G, n));
		G->ncat++;
		return KRL_OK;
	}
	if (cg_cat_read(G, n)) {
		cg_sb_printf(&G->plan, "# k%d: %s (node %d) read in place: its "
		             "readers select the part\n", K->id, x->op, n);
		G->ncatrd++;
		return KRL_OK;
	}
	if (cg_gemm_tc(G, n) && cg_emit_gemm(G, K))
		return KRL_OK;
	if (G->s.conv_impl >= 1 && cg_emit_igemm(G, K))
		return KRL_OK;
	if (G->s.conv_dw && cg_emit_dwconv(G, K))
		return KRL_OK;
	if (cg_emit_perm(G, K))
		return KRL_OK;
	cg_tconv tc;
	if (G->s.lib_tconv && cg_tconv_geom(g, n, &tc))
		return cg_emit_tconv(G, K, &tc);
	int dense = G->s.lib_dense && cg_dense_geom(g, n);
	const char *wd = dense ? cg_emit_dense(G, K) : cg_weight_krsc(G, K, n);
	int krsc = wd && !dense;
	cg_sb_printf(&G->plan, "# k%d: library call (node %d)%s\n", K->id, n,
	             krsc ? ", its weight kept channels-last" :
	             wd ? ", its weight block-diagonal, ungrouped" : "");
	cg_sb_printf(&G->plan, "call %s(", x->op);
	for (int i = 0; i < x->nin; i++)
		cg_sb_printf(&G->plan, "%s%s", i ? ", " : "",
		             i == 1 && wd ? wd : cg_bufname(G, x->in[i]));
	cg_sb_puts(&G->plan, ") -> ");
	for (int j = 0; j < (x->nout > 0 ? x->nout : 1); j++) {
		int p = x->nout > 1 ? -1 : n;
		for (int m = n + 1; m < g->nn && p < 0; m++)
			if (g->n[m].kind == KRL_GN_PROJ && g->n[m].in[0] == n &&
			    g->n[m].index == j)
				p = m;
		if (p < 0) {
			snprintf(G->err, sizeof G->err, "output %d of '%s' (node "
			         "%d) is never used and has no shape", j, x->op, n);
			return KRL_EUNSUPPORTED;
		}
		if (cg_out_decl(g, p, 1) >= 0) {
			snprintf(G->err, sizeof G->err, "node %d is two outputs",
			         p);
			return KRL_EUNSUPPORTED;
		}
		cg_sb_printf(&G->plan, "%s%s", j ? ", " : "", cg_bufname(G, p));
	}
	for (int a = 0; a < x->nattrs; a++) {
		if (!strcmp(x->attrs[a].key, "algo") ||
		    !strcmp(x->attrs[a].key, "layout") ||
		    !strcmp(x->attrs[a].key, "recurrence"))
			continue; /* the schedule's, below */
		if (wd && !krsc && !strcmp(x->attrs[a].key, "groups"))
			continue; /* one group */
		cg_sb_printf(&G->plan, " %s=", x->attrs[a].key);
		expr_text(&G->plan, x->attrs[a].value);
	}
	if (krsc)
		cg_sb_puts(&G->plan, " w_layout=krsc");
	cg_lib_choices(G, krl_opt_lib_takes_algo(g, n),
	               krl_opt_lib_takes_layout(g, n), n);
	return KRL_OK;
}

/* Appends section `name` of kernels/helpers.cuh (from after its marker
 * line to the next marker) to o. A missing section (a build whose
 * helpers.cuh lacks it) fails the generation with G->err. */
static void helper(cg_gen *G, cg_sb *o, const char *name)
{
	char mark[64];
	snprintf(mark, sizeof mark, "/*@helper %s@*/\n", name);
	const char *p = strstr(krl_kernel_helpers, mark);
	if (!p) {
		snprintf(G->err, sizeof G->err, "no device helper '%s' in "
		         "src/opt/kernels/helpers.cuh", name);
		return;
	}
	p += strlen(mark);
	const char *e = strstr(p, "/*@helper ");
	size_t n = e ? (size_t)(e - p) : strlen(p);
	cg_sb_printf(o, "%.*s", (int)n, p);
}

/* The device helpers the kernels need (G->need), before the kernels. */
static void emit_helpers(cg_gen *G, cg_sb *o)
{
	unsigned need = G->need;
	helper(G, o, "inf");
	if (need & CG_NEED_HALF)
		helper(G, o, "half");
	if (need & CG_NEED_DIV)
		helper(G, o, "div");
	if (need & CG_NEED_MINMAX)
		helper(G, o, "minmax");
	if (need & (CG_NEED_RED | CG_NEED_ARG))
		helper(G, o, "nanminmax");
	if (need & CG_NEED_ARG)
		helper(G, o, "argbetter");
	if (need & (CG_NEED_WARP | CG_NEED_BLOCK)) {
		helper(G, o, "warp");
		if (need & CG_NEED_ARG)
			helper(G, o, "warparg");
	}
	if (need & CG_NEED_BLOCK) {
		helper(G, o, "block");
		if (need & CG_NEED_ARG)
			helper(G, o, "blockarg");
	}
	if (need & CG_NEED_TAIL)
		helper(G, o, "tail");
	if (need & CG_NEED_FAST)
		helper(G, o, "fastmath");
}

/* The terms [lo, hi) of t (n, len) as a balanced tree of max(): its
 * depth grows as log2 of the count, so a network of hundreds of tails
 * stays within the plan language's nesting limit (64). */
static void max_tree(cg_sb *m, const char *const *t, const int *len, int lo,
                     int hi)
{
	if (hi - lo == 1) {
		cg_sb_printf(m, "%.*s", len[lo], t[lo]);
		return;
	}
	int mid = lo + (hi - lo) / 2;
	cg_sb_puts(m, "max(");
	max_tree(m, t, len, lo, mid);
	cg_sb_puts(m, ", ");
	max_tree(m, t, len, mid, hi);
	cg_sb_puts(m, ")");
}

/* The tickets of the kernels with tails (codegen_row.c, tail_take): one
 * buffer, krl_tk, as long as the most groups any of them has (each leaves
 * its tickets at 0 for the next), zeroed by the plan's first launch. */
static void tail_plan(cg_gen *G)
{
	if (!G->tails.z)
		return;
	/* G->tails: "\ng1\ng2\n...": the max of g1, g2, ... */
	cg_sb m = { 0 }, p = { 0 };
	int terms = 0, cap = 0;
	for (const char *z = G->tails.z; *z; z++)
		cap += *z == '\n';
	const char **t = malloc((size_t)cap * sizeof *t);
	int *len = malloc((size_t)cap * sizeof *len);
	if (!t || !len) {
		G->oom = 1;
		free(t);
		free(len);
		return;
	}
	for (const char *z = G->tails.z + 1; *z && terms < cap;) {
		const char *e = strchr(z, '\n');
		if (!e)
			break;
		t[terms] = z;
		len[terms++] = (int)(e - z);
		z = e + 1;
	}
	if (terms)
		max_tree(&m, t, len, 0, terms);
	free(t);
	free(len);
	const char *n = m.z ? m.z : "1";
	cg_sb_printf(&G->bufs, "buffer krl_tk i32 [%s]\n", n);
	cg_sb_printf(&p, "# the tickets of the tails, zeroed\n"
	             "launch krl_tail_zero grid=(min(cdiv(%s, 256), 1024)) "
	             "block=(256) args(krl_tk, %s)\n", n, n);
	cg_sb_puts(&p, G->plan.z ? G->plan.z : "");
	if (m.oom || p.oom)
		G->oom = 1;
	cg_sb_free(&m);
	cg_sb_free(&G->plan);
	G->plan = p;
}

void krl_sched_default(krl_sched *s)
{
	memset(s, 0, sizeof *s);
	s->fuse = 1;
	s->map_block = 256;
	s->map_vec = 4;
	s->map_ept = 1;
	s->map_grid = 0;
	s->row_strategy = CG_ROW_AUTO;
	s->row_block = 256;
	s->row_cache = 1;
	s->row_cols = 1;
	s->total_blocks = 2;
	s->total_block = 256;
	s->total_steps = 8;
	s->scan_block = 256;
	s->pool_block = 256;
	s->pool_ept = 1;
	s->pool_taps = 0;
	s->pool_strip = 4;
	s->pool_unc = 0;
	s->conv_tiles = 1;
	s->row_tail = 1;
	s->row_cltile = 1;
	s->gemm_mask = 1;
}

static const char *kind_name(cg_kkind k)
{
	switch (k) {
	case CK_MAP: return "map";
	case CK_ROW: return "row";
	case CK_TOTAL: return "total";
	case CK_SCAN: return "scan";
	case CK_POOL: return "pool";
	default: return "library";
	}
}

static void gen_free(cg_gen *G)
{
	for (int i = 0; i < G->nstrs; i++)
		free(G->strs[i]);
	free(G->strs);
	free(G->nuse);
	free(G->sclass);
	for (int n = 0; G->chain && n < G->g->nn; n++)
		free(G->chain[n]);
	free(G->chain);
	free(G->chain_end);
	free(G->convred);
	free(G->redconv);
	free(G->mrng);
	free(G->mat);
	free(G->forcemap);
	free(G->alias);
	free(G->outview);
	free(G->clgen);
	free(G->catof);
	free(G->catlib);
	free(G->catoff);
	free(G->catrd);
	free(G->skip);
	free(G->home);
	free(G->k);
	cg_sb_free(&G->dev);
	cg_sb_free(&G->plan);
	cg_sb_free(&G->bufs);
	cg_sb_free(&G->init);
	cg_sb_free(&G->tails);
}

/* Emits every kernel for the current grouping: KRL_OK, or KRL_EAGAIN-like
 * 1 when a node must be materialised first (G->fail), or an error. */
static int emit_all(cg_gen *G)
{
	for (int k = 0; k < G->nk; k++) {
		cg_kern *K = &G->k[k];
		krl_err r = KRL_OK;
		cg_args_reset(K);
		switch (K->kind) {
		case CK_MAP:
			/* a map kernel whose outputs all went to a GEMM's
			 * epilogue (codegen_gemm.c) has nothing left to write */
			r = K->nout ? cg_emit_map(G, K) : KRL_OK;
			break;
		case CK_ROW: r = cg_emit_row(G, K); break;
		case CK_TOTAL: r = cg_emit_total(G, K); break;
		case CK_SCAN: r = cg_emit_scan(G, K); break;
		case CK_POOL: r = cg_emit_pool(G, K); break;
		case CK_LIB: r = emit_lib(G, K); break;
		default: break;
		}
		if (G->fail >= 0)
			return 1;
		if (r)
			return -(int)r;
		if (G->err[0])
			return -(int)KRL_EUNSUPPORTED;
		if (G->oom)
			return -(int)KRL_ENOMEM;
	}
	return 0;
}

static void reset_output(cg_gen *G)
{
	cg_sb_free(&G->dev);
	cg_sb_free(&G->plan);
	cg_sb_free(&G->bufs);
	cg_sb_free(&G->init);
	cg_sb_free(&G->tails);
	G->ntail = G->rows_tail = G->rows_cltile = G->nfold = 0;
	memset(&G->prev, 0, sizeof G->prev);
	G->need = 0;
	G->counter = 0;
	G->fail = -1;
	G->failforce = 0;
	G->gemm_bodies = 0;
	G->ngemm_tc = G->nfused_lib = G->nconv_tc = G->igemm_body = 0;
	G->nconv_red = G->nconv_fin = 0;
	G->nconv_dw = G->dw_body = G->ndense = G->dense_body = 0;
	G->nperm = G->perm_body = 0;
	G->mrange_body = G->nmasked = 0;
	if (G->mrng)
		memset(G->mrng, 0, (size_t)G->g->nn * sizeof *G->mrng);
	G->nalgo = G->nlayout = G->nlayout_xy = G->ntconv = G->ncat = 0;
	G->ncatrd = 0;
	G->nwkrsc = G->wkrsc_body = 0;
	G->row_cl = G->pool_cl = G->map_clout = G->pool_clout = 0;
	memset(G->skip, 0, (size_t)(G->g->nn > 0 ? G->g->nn : 1));
}

/* Whether view v of node a does more than add or drop dims of 1: their
 * dims other than 1, in order, differ. */
static int view_regroups(const krl_gnode *a, const krl_gnode *v)
{
	int i = 0, j = 0;
	for (;;) {
		while (i < a->ndim && a->dim[i].val == 1)
			i++;
		while (j < v->ndim && v->dim[j].val == 1)
			j++;
		if (i == a->ndim || j == v->ndim)
			return i != a->ndim || j != v->ndim;
		if (a->dim[i].val != v->dim[j].val)
			return 1;
		i++;
		j++;
	}
}

krl_err krl_codegen(const krl_graph *g, const krl_sched *s,
                    const char *header, char **text, char **summary,
                    krl_cginfo *info, krl_diag *d)
{
	if (info)
		memset(info, 0, sizeof *info);
	*text = NULL;
	if (summary)
		*summary = NULL;
	cg_gen G;
	memset(&G, 0, sizeof G);
	G.g = g;
	G.s = *s;
	G.fail = -1;
	krl_err r = KRL_OK;
	int nn = g->nn > 0 ? g->nn : 1;
	G.nuse = calloc((size_t)nn, sizeof *G.nuse);
	G.mat = calloc((size_t)nn, 1);
	G.forcemap = calloc((size_t)nn, 1);
	G.alias = calloc((size_t)nn, 1);
	G.skip = calloc((size_t)nn, 1);
	G.home = calloc((size_t)nn, sizeof *G.home);
	G.outview = malloc((size_t)nn * sizeof *G.outview);
	if (!G.nuse || !G.mat || !G.forcemap || !G.alias || !G.home || !G.skip ||
	    !G.outview || cg_shape_classes(&G)) {
		r = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
		goto done;
	}
	for (int n = 0; n < g->nn; n++) {
		const krl_gnode *x = &g->n[n];
		for (int i = 0; i < x->nin; i++)
			G.nuse[x->in[i]]++;
		if (x->kind == KRL_GN_LIB || x->kind == KRL_GN_PROJ)
			G.mat[n] = 1;
		if (!s->fuse && x->kind != KRL_GN_BUF &&
		    x->kind != KRL_GN_CONST)
			G.mat[n] = 1;
	}
	for (int i = 0; i < g->nout; i++)
		G.mat[g->out[i]] = 1;
	/* pointwise nodes seen through a VIEW that merges or splits dims
	 * by a reader of at least 64 times their elements (group norm's
	 * per-channel scale and shift [N, G, Cg] seen [N, C, 1, 1], lower.c
	 * groupnorm2): materialised, so that the large kernel loads them
	 * instead of computing them again, with the view's index arithmetic,
	 * at every element. Views that only add or drop dims of 1 (a norm
	 * seen [B, K, 1]) keep them inline. */
	for (int n = 0; n < g->nn; n++) {
		const krl_gnode *x = &g->n[n];
		if (x->kind != KRL_GN_VIEW || g->n[x->in[0]].kind != KRL_GN_PW ||
		    !view_regroups(&g->n[x->in[0]], x))
			continue;
		double small = (double)krl_gnode_numel(&g->n[x->in[0]]);
		for (int m = n + 1; m < g->nn && !G.mat[x->in[0]]; m++)
			for (int q = 0; q < g->n[m].nin; q++)
				if (g->n[m].in[q] == n &&
				    (double)krl_gnode_numel(&g->n[m]) >= 64 * small)
					G.mat[x->in[0]] = 1;
	}
	/* the GEMMs written as kernels write the end of the pointwise chain
	 * that reads them (their epilogue computes it) */
	if ((s->gemm_impl || s->conv_impl >= 1 || s->conv_dw) && s->fuse)
		cg_gemm_prepare(&G);
	/* library calls that write a task output seen through views */
	cg_out_views(&G);

	/* group, emit; materialise more and start again when needed */
	int clrounds = 0;
	for (int round = 0;; round++) {
		if (round > 4 * g->nn + 8) {
			r = krl_diag_set(d, KRL_EUNSUPPORTED, (krl_pos){0},
			                 "code generation did not settle");
			goto done;
		}
		int f = cg_form(&G);
		if (f < 0 || G.err[0] || G.oom) {
			r = G.oom ? KRL_ENOMEM : KRL_EUNSUPPORTED;
			krl_diag_set(d, r, (krl_pos){0}, "%s",
			             G.err[0] ? G.err : "out of memory");
			goto done;
		}
		if (f > 0)
			continue;
		/* cats whose inputs write their slices of its output */
		if (cg_cat_plan(&G) < 0) {
			r = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
			goto done;
		}
		/* lib.layout=nhwc_xy: which map outputs go channels-last; the
		 * grouping asks cg_is_cl, so it is formed again until the marks
		 * settle (a few rounds; else none) */
		int c = cg_cl_plan(&G);
		if (c < 0) {
			r = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
			goto done;
		}
		if (c > 0 && ++clrounds > 8) {
			G.clgen_off = 1;
			free(G.clgen);
			G.clgen = NULL;
		}
		if (c > 0)
			continue;
		reset_output(&G);
		int e = emit_all(&G);
		if (e == 1) {
			if (G.mat[G.fail] && !G.failforce) {
				r = krl_diag_set(d, KRL_EUNSUPPORTED, (krl_pos){0},
				                 "node %d cannot be evaluated where it "
				                 "is needed", G.fail);
				goto done;
			}
			G.mat[G.fail] = 1;
			if (G.failforce)
				G.forcemap[G.fail] = 1;
			continue;
		}
		if (e < 0) {
			r = (krl_err)-e;
			krl_diag_set(d, r, (krl_pos){0}, "%s",
			             G.err[0] ? G.err : krl_strerror(r));
			goto done;
		}
		break;
	}

	/* scratch buffers of materialised nodes */
	for (int n = 0; n < g->nn; n++) {
		const krl_gnode *x = &g->n[n];
		if (!G.mat[n] || x->kind == KRL_GN_BUF || cg_out_decl(g, n, 0) >= 0 ||
		    G.skip[n] == 2 || (G.catof && G.catof[n] >= 0) ||
		    (G.catlib && G.catlib[n] >= 0) || cg_cat_read(&G, n))
			continue;
		/* a call with several outputs writes them to its PROJ nodes */
		if (x->kind == KRL_GN_LIB && x->nout > 1)
			continue;
		if (G.outview[n] >= 0)
			cg_sb_printf(&G.bufs, "view t%d = %s [", n,
			             cg_bufname(&G, G.outview[n]));
		else if (G.alias[n])
			cg_sb_printf(&G.bufs, "view t%d = %s [", n,
			             cg_bufname(&G, x->in[0]));
		else
			cg_sb_printf(&G.bufs, "buffer t%d %s [", n,
			             krl_dtype_name(x->dtype));
		for (int i = 0; i < x->ndim; i++)
			cg_sb_printf(&G.bufs, "%s(%s)", i ? ", " : "",
			             x->dim[i].text);
		cg_sb_puts(&G.bufs, "]");
		/* a slice: its start (slice_alias: the one attribute not a
		 * literal dim) */
		for (int a = 0; G.alias[n] == 2 && a < x->nattrs; a++)
			if (!strcmp(x->attrs[a].key, "start")) {
				char *z = krl_opt_expr_text(x->attrs[a].value);
				if (!z) {
					r = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0},
					                 "out of memory");
					goto done;
				}
				cg_sb_printf(&G.bufs, " offset=(%s)", z);
				free(z);
			}
		cg_sb_puts(&G.bufs, "\n");
	}
	/* slices of flat cats that library calls write: views of the cat's
	 * buffer (declared above) at the slice's offset */
	for (int n = 0; G.catlib && n < g->nn; n++) {
		const krl_gnode *x = &g->n[n];
		if (G.catlib[n] < 0)
			continue;
		cg_sb_printf(&G.bufs, "view t%d = %s [", n,
		             cg_bufname(&G, G.catlib[n]));
		for (int i = 0; i < x->ndim; i++)
			cg_sb_printf(&G.bufs, "%s(%s)", i ? ", " : "",
			             x->dim[i].text);
		cg_sb_printf(&G.bufs, "] offset=(%s)\n", G.catoff[n]);
	}

	/* one line saying what the candidate does */
	cg_sb sm = { 0 };
	{
		int counts[CG_NKINDS] = { 0 }, ops = 0, first = 1;
		int epi_ops = 0, epi_bias = 0, nempty = 0;
		for (int k = 0; k < G.nk; k++) {
			const cg_kern *K = &G.k[k];
			counts[K->kind]++;
			if (K->kind == CK_MAP && !K->nout)
				nempty++;
			if (K->kind == CK_LIB && G.skip[K->anchor[0]] >= 2) {
				epi_bias += krl_gemm_form(g, K->anchor[0]) == 2 ||
				            is_conv_bias(g, K->anchor[0]);
				epi_ops += cg_gemm_fused(&G, K->anchor[0]);
			}
		}
		counts[CK_LIB] -= G.ngemm_tc + G.nconv_tc + G.nconv_dw +
		                  G.nfused_lib + G.ncat + G.ncatrd + G.nperm;
		counts[CK_MAP] -= nempty;
		/* a convolution reducing its positions launches a second
		 * kernel that folds its blocks' partials (k<id>_cfin) */
		int nk = G.nk - G.nfused_lib - nempty - G.ncat - G.ncatrd +
		         G.nconv_fin;
		for (int n = 0; n < g->nn; n++)
			if (g->n[n].kind != KRL_GN_BUF &&
			    g->n[n].kind != KRL_GN_CONST &&
			    g->n[n].kind != KRL_GN_PROJ &&
			    g->n[n].kind != KRL_GN_VIEW)
				ops++;
		cg_sb_printf(&sm, "%s %d op%s into %d kernel%s:",
		             s->fuse ? "fused" : "split", ops, ops == 1 ? "" : "s",
		             nk, nk == 1 ? "" : "s");
		if (G.ngemm_tc || G.nconv_tc || G.nconv_dw) {
			if (G.nconv_dw)
				cg_sb_printf(&sm, " %d conv (depthwise, fp32%s",
				             G.nconv_dw, G.ngemm_tc || G.nconv_tc ?
				             "), and" : "");
			if (G.ngemm_tc && G.nconv_tc)
				cg_sb_printf(&sm, " %d gemm (3xTF32) and %d conv "
				             "(implicit GEMM, TF32", G.ngemm_tc,
				             G.nconv_tc);
			else if (G.nconv_tc)
				cg_sb_printf(&sm, " %d conv (implicit GEMM, TF32",
				             G.nconv_tc);
			else if (G.ngemm_tc)
				cg_sb_printf(&sm, " %d gemm (3xTF32%s", G.ngemm_tc,
				             G.nfused_lib ? ", triangle fused" : "");
			if (epi_bias || epi_ops)
				cg_sb_puts(&sm, ", epilogue:");
			if (epi_bias)
				cg_sb_printf(&sm, " bias%s", epi_ops ? " +" : "");
			if (epi_ops)
				cg_sb_printf(&sm, " %d op%s", epi_ops,
				             epi_ops == 1 ? "" : "s");
			if (G.nconv_red)
				cg_sb_printf(&sm, "; %d ending in a reduction%s",
				             G.nconv_red, G.nconv_fin ? cg_fmt(&G,
				             ", %d with a kernel folding its "
				             "blocks", G.nconv_fin) : "");
			if (G.nmasked)
				cg_sb_printf(&sm, "; %d masked pair%s", G.nmasked,
				             G.nmasked == 1 ? "" : "s");
			cg_sb_puts(&sm, ")");
			first = 0;
		}
		for (int k = 0; k < CG_NKINDS; k++) {
			if (!counts[k])
				continue;
			cg_sb_printf(&sm, "%s %d %s", first ? "" : ",", counts[k],
			             kind_name((cg_kkind)k));
			first = 0;
			switch (k) {
			case CK_MAP:
				cg_sb_printf(&sm, " (block %d, vec %d, ept %d, %s%s%s)",
				             s->map_block, s->map_vec, s->map_ept,
				             s->map_grid ? "persistent" : "cdiv",
				             s->lib_layout >= 2 && !s->map_cl &&
				             G.nlayout ?
				             "; over a channels-last y, tiles of 256 "
				             "threads" : "",
				             G.map_clout ? cg_fmt(&G, "; %d writing "
				             "channels-last", G.map_clout) : "");
				break;
			case CK_ROW:
				if (s->row_cols > 1 && G.cols_wide)
					cg_sb_printf(&sm, " (4 columns per lane, block "
					             "512)");
				else
					cg_sb_printf(&sm, " (block %d, %s%s%s%s%s)",
					             s->row_block,
					             s->row_cache ? "regs" : "reread",
					             s->row_colregs && G.cols_regs ?
					             ", 4 columns a lane held in registers" :
					             "",
					             s->row_colthread && G.cols_short ?
					             ", a thread per column" : "",
					             G.row_cl ? cg_fmt(&G, "; %d over a "
					             "channels-last y in its memory order",
					             G.row_cl) : "",
					             G.ntail ? cg_fmt(&G, "; %d writing "
					             "outputs in a tail", G.ntail) : "");
				break;
			case CK_TOTAL:
				cg_sb_printf(&sm, " (%dx%d per SM)", s->total_blocks,
				             s->total_block);
				break;
			case CK_SCAN:
				cg_sb_printf(&sm, " (block %d)", s->scan_block);
				break;
			case CK_POOL:
				cg_sb_printf(&sm, " (block %d, ept %d, %s taps%s%s)",
				             s->pool_block, s->pool_ept,
				             s->pool_taps ? "mul" : "inc",
				             G.pool_cl ? cg_fmt(&G, "; %d over a "
				             "channels-last y in its memory order",
				             G.pool_cl) : "",
				             G.pool_clout ? cg_fmt(&G, "; %d writing "
				             "channels-last", G.pool_clout) : "");
				break;
			default:
				if (G.ntconv)
					cg_sb_printf(&sm, " (%d transposed conv as "
					             "forward)", G.ntconv);
				if (G.ndense)
					cg_sb_printf(&sm, " (%d grouped conv as "
					             "dense)", G.ndense);
				const char *xy = cg_fmt(&G, "%s%s",
				                 G.nlayout_xy ? cg_fmt(&G, "; %d reading x "
				                 "channels-last", G.nlayout_xy) : "",
				                 G.nwkrsc ? cg_fmt(&G, "; %d weight%s kept "
				                 "channels-last", G.nwkrsc, G.nwkrsc == 1 ?
				                 "" : "s") : "");
				if (G.nalgo && G.nlayout)
					cg_sb_printf(&sm, " (algo %d, layout nhwc%s)",
					             s->lib_algo, xy);
				else if (G.nalgo)
					cg_sb_printf(&sm, " (algo %d)", s->lib_algo);
				else if (G.nlayout)
					cg_sb_printf(&sm, " (layout nhwc%s)", xy);
				if (G.nrec)
					cg_sb_printf(&sm, " (recurrence %s)",
					             krl_attr_words("recurrence")
					             [s->lib_rnn]);
				break;
			}
		}
		if (G.ncat)
			cg_sb_printf(&sm, "; %d cat%s or permute%s written in "
			             "place by %s inputs' kernels", G.ncat,
			             G.ncat == 1 ? "" : "s", G.ncat == 1 ? "" : "s",
			             G.ncat == 1 ? "its" : "their");
		if (G.ncatrd)
			cg_sb_printf(&sm, "; %d cat%s or narrow%s read in place "
			             "by %s readers", G.ncatrd,
			             G.ncatrd == 1 ? "" : "s", G.ncatrd == 1 ? "" : "s",
			             G.ncatrd == 1 ? "its" : "their");
		if (G.nperm)
			cg_sb_printf(&sm, "; %d permute%s as kernelrl's copy "
			             "kernel", G.nperm, G.nperm == 1 ? "" : "s");
	}

	tail_plan(&G);
	int nsame = cg_dedup_kernels(&G.dev, &G.plan, &G.init);
	if (nsame < 0)
		G.oom = 1;
	cg_sb out = { 0 };
	cg_sb_puts(&out, "/*\n");
	if (header && *header) {
		const char *p = header;
		while (*p) {
			const char *e = strchr(p, '\n');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			cg_sb_printf(&out, " * %.*s\n", (int)len, p);
			p += len;
			if (*p)
				p++;
		}
	}
	cg_sb_printf(&out, " * %s\n *\n", sm.z ? sm.z : "");
	cg_sb_puts(&out, " * Written by kernelrl's code generator (docs/optimizer.md)."
	           " Kernels, in\n * the order the plan runs them:\n");
	for (int k = 0; k < G.nk; k++)
		cg_sb_printf(&out, " *   k%d: %s\n", k,
		             G.k[k].kind == CK_LIB && G.skip[G.k[k].anchor[0]] == 1 ?
		             "library call fused into the GEMM before it" :
		             G.k[k].kind == CK_LIB && G.skip[G.k[k].anchor[0]] >= 2 ?
		             (krl_gemm_form(g, G.k[k].anchor[0]) ? "gemm (3xTF32)" :
		              "conv (implicit GEMM, TF32)") :
		             G.k[k].kind == CK_MAP && !G.k[k].nout ?
		             "none (its map went into the GEMM epilogue before it)" :
		             G.k[k].kind == CK_LIB &&
		             cg_cat_inplace(&G, G.k[k].anchor[0]) ?
		             "none (a cat or permute its inputs' kernels wrote "
		             "in place)" :
		             G.k[k].kind == CK_LIB &&
		             cg_perm_written(&G, G.k[k].anchor[0]) ?
		             "permute (copy kernel)" :
		             kind_name(G.k[k].kind));
	cg_sb_puts(&out, " * Every kernel indexes with 64-bit integers, guards every "
	           "load and store,\n * and takes its vector path only where a "
	           "run-time check says sizes allow.\n");
	if (nsame > 0)
		cg_sb_printf(&out, " * %d kernel%s the code of an earlier one "
		             "(the same text up to the\n * names of parameters "
		             "and locals): one definition, launched under its\n"
		             " * name.\n", nsame, nsame == 1 ? " runs" : "s run");
	cg_sb_puts(&out, " */\n\n");
	if (G.need)
		G.need |= CG_NEED_RED;
	emit_helpers(&G, &out);
	cg_sb_cat(&out, &G.dev);
	cg_sb_puts(&out, "\n/*@plan\n");
	if (G.bufs.z)
		cg_sb_puts(&out, G.bufs.z);
	if (G.init.z) {
		cg_sb_puts(&out, "init\n");
		cg_sb_puts(&out, G.init.z);
		cg_sb_puts(&out, "end\n");
	}
	if (G.plan.z)
		cg_sb_puts(&out, G.plan.z);
	cg_sb_puts(&out, "@*/\n");
	if (G.err[0]) {
		cg_sb_free(&out);
		cg_sb_free(&sm);
		r = krl_diag_set(d, KRL_ENOTFOUND, (krl_pos){0}, "%s", G.err);
		goto done;
	}
	if (out.oom || G.dev.oom || G.plan.oom || G.bufs.oom || G.init.oom ||
	    G.oom || sm.oom) {
		cg_sb_free(&out);
		cg_sb_free(&sm);
		r = krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
		goto done;
	}
	*text = out.z;
	if (summary)
		*summary = sm.z;
	else
		cg_sb_free(&sm);
	if (info) {
		info->nk = G.nk;
		info->cols_wide = G.cols_wide;
		info->cols_short = G.cols_short;
		info->cols_regs = G.cols_regs;
		info->rows_tail = G.rows_tail;
		info->rows_cltile = G.rows_cltile;
		for (int k = 0; k < G.nk; k++) {
			const cg_kern *K = &G.k[k];
			if (K->kind == CK_MAP && !K->nout)
				continue; /* in a GEMM's epilogue */
			info->count[K->kind]++;
			if (K->kind == CK_ROW) {
				const krl_gnode *sp = &g->n[K->space];
				if (cg_dims_one(sp, K->ax1, sp->ndim))
					info->rows_inner1++;
				else
					info->rows_cols++;
			}
			if (K->kind == CK_SCAN) {
				/* a row scan (the axis last) of at most 1024 at
				 * the set: a warp a row is enough */
				const krl_gnode *sp = &g->n[K->space];
				if (K->ax0 == sp->ndim - 1 &&
				    sp->dim[K->ax0].val <= 1024)
					info->scans_short++;
				else
					info->scans_long++;
			}
			if (K->kind == CK_LIB && krl_gemm_form(g, K->anchor[0]))
				info->nlib_gemm++;
		}
	}
done:
	gen_free(&G);
	return r;
}
