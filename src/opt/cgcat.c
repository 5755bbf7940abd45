/*
 * kernelrl: concatenations written in place (docs/optimizer.md section 3,
 * "cat in place").
 *
 * A `cat` is a library call that copies its inputs into their slices of
 * its output: where the inputs are written by generated kernels for the
 * cat alone (SqueezeNet's fire modules: two ReLU'd expand convolutions;
 * GoogLeNet's inception branches, each a convolution's bias add), that
 * copy is a read and a write of the whole output that nothing needs. Here
 * each such input is written straight into its slice of the cat's
 * buffer, and the call is dropped.
 *
 * The slice of input m (dims d0 ... along the cat's dim d, extent Cm,
 * after the inputs before it, whose extents along d sum to `off`) is not
 * contiguous unless d is 0: with A = Cm x inner and B = Ct x inner (inner
 * the product of the dims after d, Ct the cat's extent along d), element
 * L of m goes to (L / A) B + off x inner + L % A of the output. A vector
 * store of lanes L .. L + vec - 1 stays one aligned run of the output
 * where A, B and off x inner are multiples of vec; the map kernel's
 * run-time guard asks that too.
 *
 * A `permute` that keeps the last dim in place is written in place the
 * same way (since 2026-12-05: ShuffleNet's channel shuffle after its
 * batch norm's map kernel, 13 copies of 26's 146 plan steps): its input,
 * a map kernel's output seen through VIEWs read by the permute alone
 * (row-major order, so the node's index L is the view's), goes straight
 * to its place in the permute's output: with the view's dims d, the
 * permutation p and S_j the output's strides, element L has coordinates
 * i_a = (L / prod_{b > a} d_b) % d_a and lands at sum_j i_{p[j]} S_j.
 * A run along the last dim stays a run, so a vector store needs the last
 * dim a multiple of vec (the guard).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

int cg_cat_dim(const krl_gnode *c)
{
	return krl_gnode_dim_attr(c);
}

/* The permutation of library node c when it is a `permute` that keeps
 * its last dim (p[] its rank's entries), else 0. */
static int perm_of(const krl_gnode *c, int *p)
{
	return c->ndim >= 2 && cg_perm_of(c, p) && p[c->ndim - 1] == c->ndim - 1;
}

/* Whether node m ends the pointwise chain of a GEMM or convolution that
 * may be written as a kernel (cg_gemm_prepare found the chain; its
 * epilogue would store m itself, codegen_gemm.c). */
static int gemm_chain_end(const cg_gen *G, int m)
{
	for (int n = 0; G->chain && n < G->g->nn; n++)
		if (G->chain[n] && G->chain_end[n] == m)
			return 1;
	return 0;
}

/* Whether node m ends the pointwise chain of a convolution written as
 * the implicit GEMM (codegen_conv.c igemm_emit: its epilogue stores an
 * NCHW image of YK channels), so that m can be a channel slice of cat c
 * (dim 1, c's rank, NCHW: lib.layout=nchw): the epilogue stores the
 * slice itself. Where the chain does not fit the kernel after all
 * (cg_chain_fits), the map kernel that m's grouping gave it writes the
 * slice through cg_cat_index. */
static int igemm_chain_end(const cg_gen *G, int c, int m)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[c];
	cg_igemm q;
	if (G->s.conv_impl < 1 || G->s.lib_layout || strcmp(x->op, "cat") ||
	    cg_cat_dim(x) != 1 || g->n[m].ndim != x->ndim)
		return 0;
	for (int n = 0; G->chain && n < g->nn; n++)
		if (G->chain[n] && G->chain_end[n] == m)
			return cg_igemm_geom(g, n, &q) &&
			       g->n[n].ndim == x->ndim;
	return 0;
}

int cg_cat_part_conv(const cg_gen *G, int m)
{
	return G->catof && G->catof[m] >= 0 &&
	       igemm_chain_end(G, G->catof[m], m);
}

/* Whether input m of cat c can be written in place: an f32 node of c's
 * rank, materialised by a map or pool kernel (the stores this file's
 * index reaches: map_step, emit_map_cl, emit_map_tile, the pool's
 * store_outputs) as one of its outputs, or the end of an implicit-GEMM
 * convolution's chain (igemm_chain_end), read by c alone, once, not a
 * task output, not a view of another buffer. (Stored channels-last only
 * with c: cg_cl_plan marks the two together.) */
static int part_ok(const cg_gen *G, int c, int m)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[m];
	int p[KRL_MAX_DIM];
	if (x->dtype != KRL_F32 ||
	    (x->ndim != g->n[c].ndim && !perm_of(&g->n[c], p)) || !G->mat[m] ||
	    G->alias[m] || G->home[m] < 0 || G->nuse[m] != 1 ||
	    krl_graph_is_output(g, m) || cg_out_decl(g, m, 0) >= 0 ||
	    (x->kind != KRL_GN_PW && x->kind != KRL_GN_POOL))
		return 0;
	const cg_kern *K = &G->k[G->home[m]];
	if ((K->kind != CK_MAP && K->kind != CK_POOL) ||
	    (gemm_chain_end(G, m) && !igemm_chain_end(G, c, m)))
		return 0;
	for (int o = 0; o < K->nout; o++)
		if (K->out[o] == m)
			return 1;
	return 0;
}

/* The library call whose output is input i of flat cat c (its slices
 * contiguous: every dim before the cat's is 1), seen through VIEWs that
 * only the chain reads, when that call can write its slice itself: one
 * output, of the cat's dtype, read by the chain alone, no task output or
 * plan view of another buffer; else -1. */
static int lib_part(const cg_gen *G, int c, int i)
{
	const krl_graph *g = G->g;
	int m = g->n[c].in[i];
	for (int depth = 0; g->n[m].kind == KRL_GN_VIEW && depth < 16; depth++) {
		if (G->nuse[m] != 1 || krl_graph_is_output(g, m) ||
		    cg_out_decl(g, m, 0) >= 0 || G->alias[m] != 1)
			return -1;
		m = g->n[m].in[0];
	}
	const krl_gnode *x = &g->n[m];
	/* (a cat there would be a view of a view declared after it) */
	if (x->kind != KRL_GN_LIB || x->nout != 1 || x->dtype != g->n[c].dtype ||
	    !strcmp(x->op, "cat") ||
	    !G->mat[m] || G->alias[m] || G->outview[m] >= 0 ||
	    G->nuse[m] != 1 || krl_graph_is_output(g, m) ||
	    cg_out_decl(g, m, 0) >= 0)
		return -1;
	return m;
}

/* Whether cat c may be read in place (see the head of the file): an f32
 * cat of 2 to CAT_READ_MAX parts and CAT_READ_MIN elements at least (at
 * the set generated for), of a literal dim, in no task output nor
 * a view of one, not written in place, whose readers are all pointwise or
 * reduce nodes (evaluated through cg_ev: map, row and tail kernels; not a
 * GEMM's epilogue) and whose parts each have a buffer of their own in
 * NCHW order. */
/* A part adds two arguments to a kernel reading the cat (its pointer and
 * its end along the cat's dim): a normalise map reading a cat of 8 parts
 * and three per-channel statistics split alike (cat_reduce's) takes 68
 * of the 96 a kernel may have. */
enum { CAT_READ_MAX = 8 };
/* Smaller cats are copied: a per-channel statistic (cat_reduce's) read at
 * every element of a map chose its part at every vector step there, and
 * 14's largest normalise map ran 0.415 ms against 0.283 reading copies
 * (H100, kb1), where a copy of 192 floats is one launch. */
#define CAT_READ_MIN 65536.0

static int read_ok(const cg_gen *G, int c)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[c];
	int nar = x->kind == KRL_GN_LIB && !strcmp(x->op, "narrow") &&
	          x->nin == 1;
	if (x->kind != KRL_GN_LIB || (strcmp(x->op, "cat") && !nar) ||
	    x->nout != 1 || x->dtype != KRL_F32 || (x->nin < 2 && !nar) ||
	    x->nin > CAT_READ_MAX ||
	    cg_cat_dim(x) < 0 || krl_graph_is_output(g, c) ||
	    cg_out_decl(g, c, 1) >= 0 || G->alias[c] || G->outview[c] >= 0 ||
	    cg_cat_inplace(G, c) || G->s.lib_layout == 3)
		return 0;
	if ((double)krl_gnode_numel(x) < CAT_READ_MIN && !nar)
		return 0;
	for (int i = 0; i < x->nin; i++) {
		int v = x->in[i];
		const krl_gnode *y = &g->n[v];
		if (y->dtype != KRL_F32 || y->ndim != x->ndim ||
		    (!G->mat[v] && y->kind != KRL_GN_BUF) ||
		    G->catof[v] >= 0 || G->catlib[v] >= 0 || cg_is_cl(G, v) ||
		    y->kind == KRL_GN_VIEW || y->kind == KRL_GN_CONST ||
		    (y->kind == KRL_GN_LIB && (y->nout != 1 || !strcmp(y->op, "cat"))) ||
		    (y->kind != KRL_GN_BUF && y->kind != KRL_GN_LIB &&
		     y->kind != KRL_GN_PROJ && (G->alias[v] || G->home[v] < 0)))
			return 0;
	}
	if (!krl_graph_pw_readers(g, c))
		return 0;
	for (int m = c + 1; m < g->nn && G->chain_end; m++)
		for (int i = 0; i < g->n[m].nin; i++)
			if (g->n[m].in[i] == c && G->chain_end[m] >= 0)
				return 0;
	return 1;
}

int cg_off_view(const cg_gen *G, int n)
{
	return G->catlib && G->catlib[n] >= 0 && strcmp(G->catoff[n], "0") &&
	       G->g->n[n].kind == KRL_GN_REDUCE;
}

int cg_cat_read(const cg_gen *G, int n)
{
	return G->catrd && G->catrd[n];
}

/* Node c as a flat cat (every dim before its cat dim is 1: each part a
 * contiguous run of it) that may host its parts (flat_hosts): f32, no
 * task output, not yet written in place, its parts distinct reductions
 * materialised by generated kernels, no task output, none written into
 * another cat. A part becomes a view at an offset that need not be a
 * multiple of 4 (at a hidden set): a reduction's kernel stores it a
 * scalar at a time, and its readers load it so (cg_off_view). */
static int host_ok(const cg_gen *G, int c)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[c];
	int d = x->kind == KRL_GN_LIB && !strcmp(x->op, "cat") ?
	        cg_cat_dim(x) : -1;
	if (d < 0 || x->nout != 1 || x->dtype != KRL_F32 || x->nin < 2 ||
	    !cg_dims_one(x, 0, d) || G->s.lib_layout == 3 || G->alias[c] ||
	    G->outview[c] >= 0 || krl_graph_is_output(g, c) ||
	    cg_out_decl(g, c, 1) >= 0 || cg_cat_inplace(G, c) ||
	    G->catlib[c] >= 0)
		return 0;
	for (int i = 0; i < x->nin; i++) {
		int v = x->in[i];
		const krl_gnode *y = &g->n[v];
		for (int j = 0; j < i; j++)
			if (x->in[j] == v)
				return 0;
		if (y->dtype != KRL_F32 || y->ndim != x->ndim || !G->mat[v] ||
		    G->alias[v] || G->catof[v] >= 0 || G->catlib[v] >= 0 ||
		    y->kind != KRL_GN_REDUCE || G->home[v] < 0 ||
		    krl_graph_is_output(g, v) || cg_out_decl(g, v, 0) >= 0)
			return 0;
	}
	return 1;
}

/* Where flat cat c's parts run as a contiguous run of host h's parts:
 * the index of its first part in h, or -1. */
static int run_in(const cg_gen *G, int c, int h)
{
	const krl_gnode *x = &G->g->n[c], *y = &G->g->n[h];
	if (c == h || x->nin > y->nin || x->ndim != y->ndim ||
	    cg_cat_dim(x) != cg_cat_dim(y))
		return -1;
	for (int k = 0; k + x->nin <= y->nin; k++) {
		int i = 0;
		while (i < x->nin && x->in[i] == y->in[k + i])
			i++;
		if (i == x->nin)
			return k;
	}
	return -1;
}

/* Whether library node c may become a view of a flat host: a call whose
 * output is no task output, no view, nothing written in place yet. */
static int view_ok(const cg_gen *G, int c)
{
	const krl_graph *g = G->g;
	return g->n[c].kind == KRL_GN_LIB && !krl_graph_is_output(g, c) &&
	       cg_out_decl(g, c, 1) < 0 && !G->alias[c] && G->outview[c] < 0 &&
	       G->catlib[c] < 0 && !cg_cat_inplace(G, c);
}

/* Flat cats that share their parts (cat_reduce's per-channel statistics
 * of a dense block: layer j's statistics are cat(s_0, ..., s_j), a prefix
 * of the next layer's): the one with the most parts hosts them, each part
 * a plan view of its buffer at the part's offset (G->catlib, catoff: the
 * kernels that write the part write there), and every other flat cat
 * whose parts are a run of the host's is a view of it too. The host's
 * call and theirs are dropped (cg_cat_inplace). Only where a host covers
 * another cat: a lone cat keeps its call. */
static void flat_hosts(cg_gen *G)
{
	const krl_graph *g = G->g;
	for (;;) {
		int best = -1;
		for (int h = 0; h < g->nn; h++)
			if ((best < 0 || g->n[h].nin > g->n[best].nin) && host_ok(G, h))
				for (int c = 0; c < g->nn && best != h; c++)
					if (run_in(G, c, h) >= 0 && view_ok(G, c))
						best = h;
		if (best < 0)
			return;
		const krl_gnode *x = &g->n[best];
		/* the parts' offsets, in elements of the host */
		const char *offs[KRL_MAX_CALL_IN];
		const char *off = "0";
		for (int i = 0; i < x->nin; i++) {
			int v = x->in[i];
			offs[i] = off;
			G->catlib[v] = best;
			G->catoff[v] = off;
			off = cg_fmt(G, "%s + %s", off, cg_prod(G, v, 0, g->n[v].ndim));
		}
		for (int c = 0; c < g->nn; c++) {
			int k = run_in(G, c, best);
			if (k < 0 || !view_ok(G, c))
				continue;
			G->catlib[c] = best;
			G->catoff[c] = offs[k];
		}
	}
}

int cg_cat_plan(cg_gen *G)
{
	const krl_graph *g = G->g;
	size_t nn = (size_t)(g->nn > 0 ? g->nn : 1);
	if (!G->catof) {
		G->catof = malloc(nn * sizeof *G->catof);
		G->catlib = malloc(nn * sizeof *G->catlib);
		G->catoff = malloc(nn * sizeof *G->catoff);
		G->catrd = malloc(nn);
		if (!G->catof || !G->catlib || !G->catoff || !G->catrd)
			return -1;
	}
	for (int n = 0; n < g->nn; n++) {
		G->catof[n] = -1;
		G->catlib[n] = -1;
		G->catoff[n] = NULL;
		G->catrd[n] = 0;
	}
	if (!G->s.fuse)
		return 0;
	/* permutes: the node under the input's VIEWs, each read once */
	for (int c = 0; c < g->nn; c++) {
		int p[KRL_MAX_DIM];
		if (!perm_of(&g->n[c], p) || g->n[c].dtype != KRL_F32 ||
		    cg_out_decl(g, c, 1) >= 0)
			continue;
		int v = g->n[c].in[0], m = v;
		/* (a VIEW a library call reads is a plan view, alias 1:
		 * dropped with the permute's call) */
		while (g->n[m].kind == KRL_GN_VIEW && G->nuse[m] == 1 &&
		       (!G->mat[m] || G->alias[m] == 1) &&
		       cg_out_decl(g, m, 0) < 0)
			m = g->n[m].in[0];
		if (g->n[m].kind == KRL_GN_VIEW || !part_ok(G, c, m))
			continue;
		G->catof[m] = c;
		G->catof[v] = c;   /* cg_cat_inplace asks the input */
	}
	for (int c = 0; c < g->nn; c++) {
		const krl_gnode *x = &g->n[c];
		if (x->kind != KRL_GN_LIB || strcmp(x->op, "cat") || x->nout != 1 ||
		    x->dtype != KRL_F32 || x->nin < 1 || cg_cat_dim(x) < 0 ||
		    cg_out_decl(g, c, 1) >= 0)
			continue;
		/* parts written by map or pool kernels (any cat), or by their
		 * library call into a plan view of the cat's buffer (a flat
		 * cat: 48 and 49's zero state and chunk states along dim 0;
		 * not under nhwc_xy, whose planning reads map parts only) */
		int d = cg_cat_dim(x), flat = cg_dims_one(x, 0, d) &&
		    G->s.lib_layout != 3 && G->alias[c] != 2;
		int ok = 1, lib[KRL_MAX_CALL_IN];
		for (int i = 0; i < x->nin && ok; i++) {
			int map = part_ok(G, c, x->in[i]);
			lib[i] = map || !flat ? -1 : lib_part(G, c, i);
			ok = map || lib[i] >= 0;
		}
		if (!ok)
			continue;
		const char *off = "0";
		for (int i = 0; i < x->nin; i++) {
			int v = x->in[i];
			if (lib[i] < 0) {
				G->catof[v] = c;
			} else {
				/* the call and the views on its way: views of the
				 * cat's buffer at the part's offset */
				for (int m = v;; m = g->n[m].in[0]) {
					G->catlib[m] = c;
					G->catoff[m] = off;
					if (m == lib[i])
						break;
				}
			}
			off = cg_fmt(G, "%s + %s", off,
			             cg_prod(G, v, 0, g->n[v].ndim));
		}
	}
	flat_hosts(G);
	/* cats read in place: after those written so, whose parts have no
	 * buffer of their own */
	for (int c = 0; c < g->nn; c++)
		G->catrd[c] = (unsigned char)read_ok(G, c);
	return 0;
}

int cg_cat_inplace(const cg_gen *G, int c)
{
	const krl_gnode *x = &G->g->n[c];
	/* (a cat in catlib is a view of the flat cat hosting its parts) */
	return G->catof && x->kind == KRL_GN_LIB && x->nin > 0 &&
	       (G->catof[x->in[0]] == c || G->catlib[x->in[0]] == c ||
	        (G->catlib[c] >= 0 && !strcmp(x->op, "cat")));
}

/* Where element lin of permute c's input goes in its output. */
static const char *perm_index(cg_em *em, int c, const int *p, const char *lin,
                              int vec)
{
	cg_gen *G = em->G;
	cg_kern *K = em->K;
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[c];
	int v = x->in[0], r = x->ndim;
	const char *coord[KRL_MAX_DIM];
	for (int a = 0; a < r; a++) {
		const char *d = cg_arg_long(G, K, cg_prod(G, v, a, a + 1));
		const char *q = a + 1 < r ?
			cg_fmt(G, "krl_div(%s, %s)", lin,
			       cg_arg_long(G, K, cg_prod(G, v, a + 1, r))) : lin;
		coord[a] = a ? cg_fmt(G, "krl_mod(%s, %s)", q, d) : q;
	}
	if (vec > 1)
		cg_guard_add(em, cg_arg_long(G, K, cg_prod(G, v, r - 1, r)));
	G->need |= CG_NEED_DIV;
	const char *at = coord[p[r - 1]];
	for (int j = r - 2; j >= 0; j--)
		at = cg_fmt(G, "%s + %s * %s", at, coord[p[j]],
		            cg_arg_long(G, K, cg_prod(G, c, j + 1, r)));
	return cg_fmt(G, "(%s)", at);
}

const char *cg_cat_before(cg_gen *G, int c, int n)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[c];
	int d = cg_cat_dim(x);
	cg_sb off = { 0 };
	for (int i = 0; i < x->nin && x->in[i] != n; i++)
		cg_sb_printf(&off, "%s(%s)", i ? " + " : "",
		             g->n[x->in[i]].dim[d].text);
	if (off.oom)
		G->oom = 1;
	const char *r = off.z ? cg_fmt(G, "%s", off.z) : NULL;
	cg_sb_free(&off);
	return r;
}

const char *cg_cat_index(cg_em *em, int n, const char *lin, int vec)
{
	cg_gen *G = em->G;
	cg_kern *K = em->K;
	const krl_graph *g = G->g;
	int c = G->catof[n];
	const krl_gnode *x = &g->n[c];
	int p[KRL_MAX_DIM];
	if (perm_of(x, p))
		return perm_index(em, c, p, lin, vec);
	int d = cg_cat_dim(x);
	/* off: the extents along d of the inputs before n */
	const char *off = cg_cat_before(G, c, n);
	/* a channels-last cat (of channels: cg_cl_plan) holds its parts'
	 * runs of channels position by position: n's element at memory
	 * index L goes to (L / C_n) C + off + L % C_n */
	int cl = cg_is_cl(G, c);
	int e = cl ? d + 1 : x->ndim;
	const char *inner = cl ? "1" : cg_prod(G, c, d + 1, x->ndim);
	const char *O = off ? cg_arg_long(G, K, cg_fmt(G, "(%s) * %s", off,
	                                               inner)) : NULL;
	if (vec > 1 && O)
		cg_guard_add(em, O);
	if (d == 0)
		return O ? cg_fmt(G, "(%s + %s)", lin, O) : lin;
	const char *A = cg_arg_long(G, K, cg_prod(G, n, d, e));
	const char *B = cg_arg_long(G, K, cg_prod(G, c, d, e));
	if (vec > 1) {
		cg_guard_add(em, A);
		cg_guard_add(em, B);
	}
	G->need |= CG_NEED_DIV;
	return cg_fmt(G, "(krl_div(%s, %s) * %s%s%s + krl_mod(%s, %s))", lin, A,
	              B, O ? " + " : "", O ? O : "", lin, A);
}

/* The start of narrow node x (its attribute's text; "0" when absent). */
static const char *narrow_start(cg_gen *G, const krl_gnode *x)
{
	for (int a = 0; a < x->nattrs; a++)
		if (!strcmp(x->attrs[a].key, "start")) {
			char *z = krl_opt_expr_text(x->attrs[a].value);
			const char *r = z ? cg_fmt(G, "(%s)", z) : "0";
			if (!z)
				G->oom = 1;
			free(z);
			return r;
		}
	return "0";
}

const char *cg_cat_part(cg_em *em, int c, const char *lin, int lvl,
                        const char **delta)
{
	cg_gen *G = em->G;
	cg_kern *K = em->K;
	const krl_gnode *x = &G->g->n[c];
	int d = cg_cat_dim(x);
	const char *inner = cg_prod(G, c, d + 1, x->ndim);
	const char *I = cg_arg_long(G, K, inner);
	const char *Ct = cg_arg_long(G, K, cg_fmt(G, "(%s)", x->dim[d].text));
	cg_sb *b = em->buf[lvl];
	int ind = em->ind[lvl];
	if (!strcmp(x->op, "narrow")) {
		/* one part, the narrowed node of Cs along d: the narrow's
		 * element (b, ch, r) is its (b, ch + start, r), the narrow's
		 * index plus b (Cs - Cn) I + start I */
		int v = x->in[0];
		const char *Cs = cg_arg_long(G, K, cg_fmt(G, "(%s)",
		                             G->g->n[v].dim[d].text));
		const char *S = cg_arg_long(G, K, narrow_start(G, x));
		const char *D = cg_name(G, "cd");
		if (d > 0) {
			const char *q = cg_name(G, "cq");
			cg_line(b, ind, "const long %s = krl_div(%s, %s);", q, lin,
			        cg_arg_long(G, K, cg_fmt(G, "(%s) * %s",
			                                 x->dim[d].text, inner)));
			cg_line(b, ind, "const long %s = %s * (%s - %s) * %s + %s * %s;",
			        D, q, Cs, Ct, I, S, I);
			G->need |= CG_NEED_DIV;
		} else {
			cg_line(b, ind, "const long %s = %s * %s;", D, S, I);
		}
		*delta = D;
		return cg_arg_buf(G, K, v, 0);
	}
	/* q = b Ct + ch: the index of (b, ch) over the dims up to d */
	const char *q = lin;
	if (strcmp(inner, "1")) {
		q = cg_name(G, "cq");
		cg_line(b, ind, "const long %s = krl_div(%s, %s);", q, lin, I);
	}
	const char *ch = q, *bo = NULL;
	if (d > 0) {
		ch = cg_name(G, "cc");
		bo = cg_name(G, "cb");
		cg_line(b, ind, "const long %s = krl_mod(%s, %s), %s = krl_div(%s, "
		        "%s);", ch, q, Ct, bo, q, Ct);
	}
	G->need |= CG_NEED_DIV;
	/* part i, channels [lo, hi) of the cat (E_i, its boundaries, the only
	 * arguments a part adds beside its pointer): its element is the cat's
	 * index plus b (hi - lo - Ct) I - lo I */
	cg_sb ps = { 0 }, ds = { 0 };
	cg_sb e = { 0 };
	cg_sb_puts(&e, "0");
	const char *lo = NULL;
	for (int i = 0; i < x->nin; i++) {
		int v = x->in[i];
		const char *ptr = cg_arg_buf(G, K, v, 0);
		cg_sb_printf(&e, " + (%s)", G->g->n[v].dim[d].text);
		const char *hi = i + 1 < x->nin ?
		                 cg_arg_long(G, K, cg_fmt(G, "(%s)", e.z)) : Ct;
		const char *dl = lo ? cg_fmt(G, "- %s * %s", lo, I) : "";
		if (bo)
			dl = cg_fmt(G, "%s * (%s - %s - %s) * %s %s", bo, hi,
			            lo ? lo : "0", Ct, I, dl);
		else if (!lo)
			dl = "0";
		if (i + 1 < x->nin) {
			cg_sb_printf(&ps, "%s < %s ? %s : ", ch, hi, ptr);
			cg_sb_printf(&ds, "%s < %s ? %s : ", ch, hi, dl);
		} else {
			cg_sb_puts(&ps, ptr);
			cg_sb_printf(&ds, "%s", dl);
		}
		lo = hi;
	}
	const char *P = cg_name(G, "cp"), *D = cg_name(G, "cd");
	cg_line(b, ind, "const float *__restrict__ %s = %s;", P, ps.z ? ps.z : "");
	cg_line(b, ind, "const long %s = %s;", D, ds.z ? ds.z : "");
	if (ps.oom || ds.oom || e.oom)
		G->oom = 1;
	cg_sb_free(&ps);
	cg_sb_free(&ds);
	cg_sb_free(&e);
	*delta = D;
	return P;
}
