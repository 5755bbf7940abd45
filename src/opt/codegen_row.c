/*
 * Row kernels (codegen.h): one or more reductions over the same axes of
 * tensors of one shape, viewed as [outer, R, inner], with the pointwise
 * nodes before them (inline), between them (a reduction may use an earlier
 * one: softmax's sum uses its max) and after them (outputs of the full
 * shape, e.g. softmax's quotient, and of the row shape, e.g. a norm).
 *
 * The row program runs in passes: pass p computes the reductions that
 * need only those of earlier passes; then the full-shape outputs are
 * written, then the row-shape ones. Strategies for inner == 1:
 * - warp: a warp per row, warp-shuffle reductions (short rows);
 * - block: a block per row, block reductions;
 * - multi: several blocks per row (long rows, few rows): one kernel per
 *   pass writes per-block partials (in double) that the next kernel's
 *   blocks combine; the last kernel writes the outputs.
 * Warp and block keep the row's elements in registers between passes when
 * the row fits (a run-time check against the cache's capacity; otherwise
 * each pass re-reads global memory). Rows whose length is a multiple of 4
 * take float4 paths; others a scalar path. For inner > 1 a block of 32 x
 * (block / 32) threads owns 32 neighbouring columns (coalesced over inner)
 * and its rows of threads split R, combining through shared memory.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

#define MULTI_CHUNK_VECS 8 /* float4s per thread per chunk of multi */

typedef struct rinfo {
	int nred;
	int red[CG_MAX_KNODES];
	int pass[CG_MAX_KNODES];
	int slot[CG_MAX_KNODES];
	int online[CG_MAX_KNODES]; /* a sum of exp(x - max) computed with that
	                              max (the index of its reduce), or -1 */
	int onlinef[CG_MAX_KNODES]; /* 1: its max is logsumexp's finite max
	                               of that max (online_pair) */
	int var[CG_MAX_KNODES];  /* a sum of (x - mean)^2 computed with the sum
	                            of x the mean is (its index), or -1 */
	int varc[CG_MAX_KNODES]; /* that mean's constant factor (a node) */
	int npass, nslot;
	int full[CG_MAX_KNODES], nfull;
	int rowo[CG_MAX_KNODES], nrowo;
	int cache[4], ncache;
	int inner1;
	int strategy;
	int blk;
	int64_t rval;            /* the row length at the set generated for */
	int64_t pival;           /* the columns of the memory's rows there */
	const char *otext, *rtext, *itext;
	/* cg_row_cl: 1 rows of C, 2 spatial columns, 0 NCHW order; the
	 * kernel's outer and inner extents in the leaf's memory order, C, and
	 * S (1: the spatial extent) or the spatial extent before the reduced
	 * axes (2) */
	int perm;
	const char *potext, *pitext, *ctext, *stext;
	/* with full-shape outputs (cg_row_cl_tiles), tile = perm: 1, tiles
	 * of 32 positions, their outputs through shared memory of tilec x 33
	 * floats each (tilec: C at the set rounded up to 32); 2, a column
	 * block's 32 columns x tilec rows (the run at the set) through 32 x
	 * tilep floats (tilep = tilec | 1: odd, so that a warp's 32 columns
	 * at one row hit distinct banks) */
	int tile, tilec, tilep;
} rinfo;

/* ==== Channels-last rows ==== */

/* Whether node m is, or reaches through pointwise nodes of its shape and
 * views that keep N and C (cg_cl_view), a channels-last leaf. */
static int reaches_cl(const cg_gen *G, int m, int depth)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[m];
	if (cg_is_cl(G, m))
		return 1;
	if (depth > 64)
		return 0;
	if (x->kind == KRL_GN_VIEW)
		return cg_cl_view(g, m) && reaches_cl(G, x->in[0], depth + 1);
	if (x->kind != KRL_GN_PW)
		return 0;
	for (int q = 0; q < x->nin; q++)
		if (cg_gsame(G, x->in[q], m) &&
		    g->n[x->in[q]].ndim == x->ndim &&
		    reaches_cl(G, x->in[q], depth + 1))
			return 1;
	return 0;
}

/*
 * A row kernel over [N, C, s...] whose reductions read a channels-last
 * leaf (memory [N, s..., C]) walks it in memory order. Over C (1): the
 * rows are C contiguous floats, one per position (n, s), outer N * S. Over
 * a run of spatial axes (2): outer (n, the spatial axes before the run),
 * R the run, inner (the spatial axes after it, then C): 32 neighbouring
 * memory columns per block, a warp reading 128 contiguous bytes. The
 * reductions' NCHW coordinates (o, r, c) are computed from those, so every
 * other operand is indexed as in NCHW order and outputs of the row shape
 * go where they always do; full-shape outputs are left to map kernels
 * (cggroup.c's homeable), whose channel-blocked form reads the leaf
 * coalesced and writes NCHW.
 */
int cg_row_cl(const cg_gen *G, const cg_kern *K)
{
	const krl_gnode *sp = &G->g->n[K->space];
	if (K->kind != CK_ROW || G->s.lib_layout < 2 || sp->ndim < 3 ||
	    !reaches_cl(G, K->space, 0))
		return 0;
	/* rows of C: a warp's lanes at least (cg_cl_rows_pay); a few column
	 * blocks split their run (emit_cols_split) */
	if (K->ax0 == 1 && K->ax1 == 2)
		return cg_cl_rows_pay(sp, 1, 2);
	return K->ax0 >= 2 && K->ax1 > K->ax0 ? 2 : 0;
}

static int64_t prod_val(const krl_gnode *x, int from, int to);

/* The strategy CG_ROW_AUTO takes for `rows` rows of R elements. */
static int auto_strategy(int64_t R, int64_t rows, int perm)
{
	if (R <= 1024 && rows >= 256)
		return CG_ROW_WARP;
	if (rows < 264 && R >= 8192 && !perm)
		return CG_ROW_MULTI;
	return CG_ROW_BLOCK;
}

/* Whether a channels-last row kernel over a run of spatial axes
 * (cg_row_cl 2) splits the run over blocks (emit_cols_split): too few
 * column blocks at the set for emit_cols. */
static int cl_split(const krl_gnode *sp, const cg_kern *K)
{
	return cg_cl_col_blocks(sp, K->ax0, K->ax1) < CG_CL_MIN_BLOCKS;
}

/* Rows of a run of spatial axes (cg_row_cl 2) whose outputs go through
 * a tile: the run ends the spatial axes (each column's outputs one
 * contiguous run of NCHW), at most CL_TILE_R elements at the set, and
 * not split (emit_cols_split writes none). */
#define CL_TILE_R 256

int cg_row_cl_tiles(const cg_gen *G, const cg_kern *K, int n)
{
	const krl_graph *g = G->g;
	const krl_gnode *sp = &g->n[K->space];
	int cl = cg_row_cl(G, K);
	if (!cl || !G->s.row_cltile || g->n[n].dtype != KRL_F32 ||
	    cg_out_decl(g, n, 1) >= 0 || (G->catof && G->catof[n] >= 0))
		return 0;
	if (cl == 2) {
		int64_t R = prod_val(sp, K->ax0, K->ax1);
		return K->ax1 == sp->ndim && R > 0 && R <= CL_TILE_R &&
		       !cl_split(sp, K);
	}
	int64_t C = sp->dim[1].val;
	int64_t rows = prod_val(sp, 0, 1) * prod_val(sp, 2, sp->ndim);
	int st = G->s.row_strategy;
	if (st == CG_ROW_AUTO)
		st = auto_strategy(C, rows, 1);
	return C > 0 && C <= CG_CL_TILE_C && st == CG_ROW_WARP;
}

/* In-kernel reduces reachable from node m through inline nodes. */
static void reach(cg_gen *G, cg_kern *K, int m, unsigned long long *found,
                  int depth)
{
	int s = cg_see(G, m, K->id);
	if (s == SEE_IN) {
		for (int j = 0; j < K->nanchor; j++)
			if (K->anchor[j] == m && j < 64)
				*found |= 1ull << j;
		return;
	}
	if (s != SEE_INLINE || depth > 512)
		return;
	const krl_gnode *x = &G->g->n[m];
	for (int i = 0; i < x->nin; i++)
		reach(G, K, x->in[i], found, depth + 1);
}

static int pass_of(cg_gen *G, cg_kern *K, const int *online, int j,
                   int *memo, int depth)
{
	if (memo[j])
		return memo[j];
	if (depth > CG_MAX_KNODES)
		return 1;
	if (online[j] >= 0)
		return memo[j] = pass_of(G, K, online, online[j], memo, depth + 1);
	if (online[j + CG_MAX_KNODES] >= 0)
		return memo[j] = pass_of(G, K, online,
		                         online[j + CG_MAX_KNODES], memo, depth + 1);
	unsigned long long f = 0;
	reach(G, K, G->g->n[K->anchor[j]].in[0], &f, 0);
	int p = 1;
	for (int i = 0; i < K->nanchor; i++)
		if (f & (1ull << i)) {
			int q = pass_of(G, K, online, i, memo, depth + 1) + 1;
			if (q > p)
				p = q;
		}
	return memo[j] = p;
}

/* f32 leaves whose element at a main point is at the point's linear
 * index (the space's shape, or seen through a view of it), read through
 * pointwise nodes: candidates for the register cache. */
static void find_cache(cg_gen *G, cg_kern *K, int m, rinfo *ri, int viewed,
                       int depth)
{
	const krl_graph *g = G->g;
	int s = cg_see(G, m, K->id);
	const krl_gnode *x = &g->n[m];
	if (s == SEE_LEAF) {
		/* a channels-last leaf is not at the point's linear index */
		if (x->dtype != KRL_F32 || cg_is_cl(G, m) || cg_cat_read(G, m) ||
		    cg_off_view(G, m))
			return;
		if (!viewed && (!cg_gsame(G, m, K->space) ||
		                x->ndim != g->n[K->space].ndim))
			return;
		for (int i = 0; i < ri->ncache; i++)
			if (ri->cache[i] == m)
				return;
		if (ri->ncache < 4)
			ri->cache[ri->ncache++] = m;
		return;
	}
	if (s != SEE_INLINE || depth > 512)
		return;
	if (x->kind == KRL_GN_VIEW && !viewed &&
	    cg_gsame(G, m, K->space) && x->ndim == g->n[K->space].ndim) {
		const krl_gnode *b = &g->n[x->in[0]];
		if (b->kind != KRL_GN_VIEW)
			find_cache(G, K, x->in[0], ri, 1, depth + 1);
		return;
	}
	if (x->kind != KRL_GN_PW || viewed)
		return;
	for (int i = 0; i < x->nin; i++)
		find_cache(G, K, x->in[i], ri, 0, depth + 1);
}

static int64_t prod_val(const krl_gnode *x, int from, int to)
{
	int64_t v = 1;
	for (int i = from; i < to; i++)
		v *= x->dim[i].val > 0 ? x->dim[i].val : 1;
	return v;
}

/* Whether node i is a scalar 0 in every shape set (a candidate serves
 * them all). */
static int is_zero(const krl_graph *g, int i)
{
	const krl_gnode *n = &g->n[i];
	return n->kind == KRL_GN_CONST && n->ndim == 0 && n->cval == 0.0 &&
	       n->cexpr && krl_graph_text_fixed(g, n->cexpr);
}

/* Whether node w is logsumexp's finite max (lower.c lo_logsumexp):
 * where(M - M == 0, M, 0) of node M. */
static int finite_max_of(const krl_graph *g, int w, int M)
{
	const krl_gnode *x = &g->n[w];
	if (x->kind != KRL_GN_PW || x->pw != KRL_PW_WHERE || x->nin != 3 ||
	    x->in[1] != M || !is_zero(g, x->in[2]))
		return 0;
	const krl_gnode *eq = &g->n[x->in[0]];
	if (eq->kind != KRL_GN_PW || eq->pw != KRL_PW_EQ || eq->nin != 2 ||
	    !is_zero(g, eq->in[1]))
		return 0;
	const krl_gnode *d = &g->n[eq->in[0]];
	return d->kind == KRL_GN_PW && d->pw == KRL_PW_SUB && d->nin == 2 &&
	       d->in[0] == M && d->in[1] == M;
}

/* The online softmax: reduce j a sum of exp(E - M) with M an in-kernel max
 * of E (softmax, log_softmax, cross entropy), or of exp(E - M') with M'
 * logsumexp's finite max of M (finite_max_of: M, or 0 where M is
 * infinite; *fin 1, and the finish makes the sum +inf where M is).
 * Returns M's index, or -1. */
static int online_pair(cg_gen *G, cg_kern *K, int j, int *fin)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[K->anchor[j]];
	if (x->red != KRL_RED_SUM)
		return -1;
	int e = x->in[0];
	if (g->n[e].kind != KRL_GN_PW || g->n[e].pw != KRL_PW_EXP ||
	    cg_see(G, e, K->id) != SEE_INLINE)
		return -1;
	int d = g->n[e].in[0];
	if (g->n[d].kind != KRL_GN_PW || g->n[d].pw != KRL_PW_SUB ||
	    cg_see(G, d, K->id) != SEE_INLINE)
		return -1;
	for (int i = 0; i < K->nanchor; i++) {
		const krl_gnode *m = &g->n[K->anchor[i]];
		if (i != j && m->red == KRL_RED_MAX &&
		    (K->anchor[i] == g->n[d].in[1] ||
		     finite_max_of(g, g->n[d].in[1], K->anchor[i])) &&
		    m->in[0] == g->n[d].in[0]) {
			*fin = K->anchor[i] != g->n[d].in[1];
			return i;
		}
	}
	return -1;
}

/* The one-pass variance: reduce j a sum of (E - mean)^2 with mean = S * c,
 * S an in-kernel sum of E and c a constant (layer, instance and group
 * norms). Returns S's index (and c in *cn), or -1. */
static int var_pair(cg_gen *G, cg_kern *K, int j, int *cn)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[K->anchor[j]];
	if (x->red != KRL_RED_SUM)
		return -1;
	int q = x->in[0];
	if (g->n[q].kind != KRL_GN_PW || cg_see(G, q, K->id) != SEE_INLINE)
		return -1;
	int d;
	if (g->n[q].pw == KRL_PW_SQUARE)
		d = g->n[q].in[0];
	else if (g->n[q].pw == KRL_PW_MUL && g->n[q].in[0] == g->n[q].in[1])
		d = g->n[q].in[0];
	else
		return -1;
	if (g->n[d].kind != KRL_GN_PW || g->n[d].pw != KRL_PW_SUB ||
	    cg_see(G, d, K->id) != SEE_INLINE)
		return -1;
	int e = g->n[d].in[0], mean = g->n[d].in[1];
	const krl_gnode *mn = &g->n[mean];
	if (mn->kind != KRL_GN_PW || mn->pw != KRL_PW_MUL ||
	    cg_see(G, mean, K->id) != SEE_INLINE)
		return -1;
	for (int side = 0; side < 2; side++) {
		int sn = mn->in[side], c = mn->in[1 - side];
		if (g->n[c].kind != KRL_GN_CONST)
			continue;
		for (int i = 0; i < K->nanchor; i++)
			if (i != j && K->anchor[i] == sn &&
			    g->n[sn].red == KRL_RED_SUM && g->n[sn].in[0] == e) {
				*cn = c;
				return i;
			}
	}
	return -1;
}

/* The reductions' pairs (online[]: sums of exp(E - M) kept with their
 * max, where online; var[]: one-pass variances), passes and slots. */
static void assign_passes(cg_gen *G, cg_kern *K, rinfo *ri, int online)
{
	const krl_graph *g = G->g;
	int memo[CG_MAX_KNODES] = { 0 };
	/* online[] then var[]: pass_of reads both */
	int links[2 * CG_MAX_KNODES];
	for (int j = 0; j < K->nanchor; j++) {
		ri->onlinef[j] = 0;
		ri->online[j] = online ? online_pair(G, K, j, &ri->onlinef[j]) : -1;
		ri->var[j] = ri->online[j] < 0 ? var_pair(G, K, j, &ri->varc[j]) : -1;
		links[j] = ri->online[j];
		links[j + CG_MAX_KNODES] = ri->var[j];
	}
	ri->npass = ri->nslot = 0;
	for (int j = 0; j < K->nanchor; j++) {
		ri->red[j] = K->anchor[j];
		ri->pass[j] = pass_of(G, K, links, j, memo, 0);
		if (ri->pass[j] > ri->npass)
			ri->npass = ri->pass[j];
		ri->slot[j] = ri->nslot;
		ri->nslot += cg_red_is_arg(g->n[K->anchor[j]].red) ? 2 : 1;
	}
}

static int analyse(cg_gen *G, cg_kern *K, rinfo *ri)
{
	const krl_graph *g = G->g;
	const krl_gnode *sp = &g->n[K->space];
	memset(ri, 0, sizeof *ri);
	ri->nred = K->nanchor;
	for (int o = 0; o < K->nout; o++) {
		int n = K->out[o];
		if (cg_is_rowshape(G, K, n)) {
			ri->rowo[ri->nrowo++] = n;
		} else if (cg_gsame(G, n, K->space)) {
			ri->full[ri->nfull++] = n;
		} else {
			snprintf(G->err, sizeof G->err, "node %d is neither of the "
			         "row kernel's full shape nor its row shape", n);
			return -1;
		}
	}
	/* full-shape outputs keep a channels-last walk only through tiles
	 * (every one of them f32 and single: cg_row_cl_tiles) */
	ri->perm = cg_row_cl(G, K);
	for (int o = 0; o < ri->nfull && ri->perm; o++)
		if (!cg_row_cl_tiles(G, K, ri->full[o]))
			ri->perm = 0;
	ri->tile = ri->nfull > 0 ? ri->perm : 0;
	if (ri->tile == 1) {
		ri->tilec = (int)((sp->dim[1].val + 31) / 32 * 32);
		ri->tilep = 33;
	} else if (ri->tile == 2) {
		ri->tilec = (int)prod_val(sp, K->ax0, K->ax1);
		ri->tilep = ri->tilec | 1;
	}
	/* static shared memory: at most 40 KB for the tiles (a column
	 * kernel's combine takes a few more); past that the stores go
	 * straight to memory (strided, correct) */
	if (ri->tile && (int64_t)ri->nfull * (ri->tile == 1 ? ri->tilec : 32) *
	    ri->tilep * 4 > 40 * 1024)
		ri->tile = 0;
	/* the strategy first: the online softmax is written for the warp and
	 * block ones (and the plain column kernel: cg_emit_row) */
	ri->strategy = G->s.row_strategy;
	int64_t rows = prod_val(sp, 0, K->ax0);
	if (ri->perm == 1)
		rows *= prod_val(sp, 2, sp->ndim);
	if (ri->strategy == CG_ROW_AUTO)
		ri->strategy = auto_strategy(prod_val(sp, K->ax0, K->ax1), rows,
		                             ri->perm);
	if (ri->perm && ri->strategy == CG_ROW_MULTI)
		ri->strategy = CG_ROW_BLOCK;
	/* rows of one warp or block: C contiguous (perm 1), or inner 1 */
	int inner1 = ri->perm == 1 ||
	             (!ri->perm && !strcmp(cg_prod(G, K->space, K->ax1, sp->ndim),
	                                   "1"));
	assign_passes(G, K, ri, inner1 && ri->strategy != CG_ROW_MULTI);
	ri->otext = cg_prod(G, K->space, 0, K->ax0);
	ri->rtext = cg_prod(G, K->space, K->ax0, K->ax1);
	ri->itext = cg_prod(G, K->space, K->ax1, sp->ndim);
	ri->inner1 = !strcmp(ri->itext, "1");
	if (ri->perm) {
		const char *n = cg_prod(G, K->space, 0, 1);
		ri->ctext = cg_prod(G, K->space, 1, 2);
		ri->stext = ri->perm == 1 ? ri->itext :
		            cg_prod(G, K->space, 2, K->ax0);
		ri->potext = cg_fmt(G, "%s * %s", n, ri->stext);
		ri->pitext = ri->perm == 1 ? "1" :
		             cg_fmt(G, "%s * %s", ri->itext, ri->ctext);
	} else {
		/* NCHW: the memory's rows and columns are the space's */
		ri->potext = ri->otext;
		ri->pitext = ri->itext;
	}
	for (int j = 0; j < ri->nred; j++)
		find_cache(G, K, g->n[ri->red[j]].in[0], ri, 0, 0);
	for (int o = 0; o < ri->nfull; o++)
		find_cache(G, K, ri->full[o], ri, 0, 0);
	ri->blk = G->s.row_block;
	ri->rval = prod_val(sp, K->ax0, K->ax1);
	ri->pival = ri->perm == 1 ? 1 : prod_val(sp, K->ax1, sp->ndim) *
	            (ri->perm == 2 ? prod_val(sp, 1, 2) : 1);
	return 0;
}

/* ==== Loops over a row ==== */

enum { LV_CACHED, LV_VEC, LV_PEEL, LV_SCALAR, LV_COL };

typedef struct rloop {
	int variant;
	const char *lid, *nl;    /* lane id and count over the row */
	const char *r0, *r1;     /* the part of the row */
	int caps;                /* cached: float4s per thread */
	int ty;                  /* column kernels: rows of threads */
} rloop;

static const char *lin_of(cg_em *em, const rinfo *ri, const char *r)
{
	return ri->inner1 ? cg_fmt(em->G, "(%s + %s)", em->rb, r) :
	       cg_fmt(em->G, "(%s + %s * %s)", em->rb, r, em->rinner);
}

/* Reductions of one pass computed together: kind[k] 1 when node k is a
 * sum of exp(E - M) kept online with max with[k]; 2 when it is a sum of
 * (E - mean)^2 kept as shifted sums with sum with[k] (shift[with[k]], the
 * row's first E, the shift). */
typedef struct rpair {
	int kind[CG_MAX_KNODES];
	int with[CG_MAX_KNODES];
	const char *shift[CG_MAX_KNODES];
} rpair;

/* Whether node k is the partner of a pair (its step is the pair's). */
static int partner(const rpair *pr, int nn, int k)
{
	for (int q = 0; pr && q < nn; q++)
		if (pr->kind[q] && pr->with[q] == k)
			return 1;
	return 0;
}

/* The exp the row kernels' sums of exp(E - M) call: __expf under
 * math=fast (its arguments are at most 0, where it errs by 2 ulp), as
 * the pointwise exp's fast text (pwop.c). */
static const char *row_exp(const cg_gen *G)
{
	return G->s.math_fast ? "__expf" : "expf";
}

/* The online step of a sum of exp(E - M) with its max M: lanes v of E. */
static void online_step(cg_em *em, const char *accm, const char *accs,
                        const char *const *v, int vec, int ind)
{
	cg_gen *G = em->G;
	cg_sb *b = em->buf[2];
	const char *ex = row_exp(G);
	const char *mx = v[0];
	if (vec == 2)
		mx = cg_fmt(G, "krl_maxf(%s, %s)", v[0], v[1]);
	else if (vec == 4)
		mx = cg_fmt(G, "krl_maxf(krl_maxf(%s, %s), krl_maxf(%s, %s))", v[0],
		            v[1], v[2], v[3]);
	cg_line(b, ind, "{");
	cg_line(b, ind + 1, "/* online: the running sum follows the running "
	        "max */");
	cg_line(b, ind + 1, "const float mn = krl_maxf(%s, %s);", accm, mx);
	cg_line(b, ind + 1, "if (mn != %s) {", accm);
	cg_line(b, ind + 2, "%s *= (double)%s(%s - mn);", accs, ex, accm);
	cg_line(b, ind + 2, "%s = mn;", accm);
	cg_line(b, ind + 1, "}");
	cg_line(b, ind + 1, "if (%s != -INFINITY)", accm);
	if (vec == 1)
		cg_line(b, ind + 2, "%s += (double)%s(%s - %s);", accs, ex, v[0],
		        accm);
	else if (vec == 2)
		cg_line(b, ind + 2, "%s += (double)(%s(%s - %s) + %s(%s - %s));",
		        accs, ex, v[0], accm, ex, v[1], accm);
	else
		cg_line(b, ind + 2, "%s += (double)((%s(%s - %s) + %s(%s - %s)) + "
		        "(%s(%s - %s) + %s(%s - %s)));", accs, ex, v[0], accm, ex,
		        v[1], accm, ex, v[2], accm, ex, v[3], accm);
	cg_line(b, ind, "}");
}

/* The shifted sums of E (into accp) and of its squares (into accq). */
static void var_step(cg_em *em, const char *accp, const char *accq,
                     const char *sh, const char *const *v, int vec, int ind)
{
	cg_sb *b = em->buf[2];
	cg_line(b, ind, "{");
	cg_line(b, ind + 1, "/* shifted by the row's first value: no "
	        "cancellation in the variance */");
	for (int q = 0; q < vec; q++)
		cg_line(b, ind + 1, "const float d%d = %s - %s;", q, v[q], sh);
	if (vec == 1) {
		cg_line(b, ind + 1, "%s += (double)d0;", accp);
		cg_line(b, ind + 1, "%s += (double)(d0 * d0);", accq);
	} else if (vec == 2) {
		cg_line(b, ind + 1, "%s += (double)(d0 + d1);", accp);
		cg_line(b, ind + 1, "%s += (double)(d0 * d0 + d1 * d1);", accq);
	} else {
		cg_line(b, ind + 1, "%s += (double)((d0 + d1) + (d2 + d3));", accp);
		cg_line(b, ind + 1, "%s += (double)((d0 * d0 + d1 * d1) + (d2 * d2 "
		        "+ d3 * d3));", accq);
	}
	cg_line(b, ind, "}");
}

/* One step: nodes at lanes (reduce inputs accumulated into acc, or
 * outputs stored). Lane q is at rs[q]; with vec > 1 the lanes are the vec
 * consecutive elements from rs[0] (loaded as one vector), otherwise nl
 * independent positions (nl loads in flight, one double add per step). */
static void row_step_to(cg_em *em, const rinfo *ri, const char *const *rs,
                        int nl, int vec, const int *nodes, int nn, int isred,
                        const char *const *acc, const rpair *pr, int ind,
                        cg_sb *stores);

static void row_step(cg_em *em, const rinfo *ri, const char *const *rs,
                     int nl, int vec, const int *nodes, int nn, int isred,
                     const char *const *acc, const rpair *pr, int ind)
{
	row_step_to(em, ri, rs, nl, vec, nodes, nn, isred, acc, pr, ind, NULL);
}

/* row_step, its outputs' stores (when stores is given) written there
 * rather than after the step's values: a caller writes several steps'
 * values, then all their stores, so that their loads are in flight
 * together. */
static void row_step_to(cg_em *em, const rinfo *ri, const char *const *rs,
                        int nl, int vec, const int *nodes, int nn, int isred,
                        const char *const *acc, const rpair *pr, int ind,
                        cg_sb *stores)
{
	cg_gen *G = em->G;
	const krl_graph *g = G->g;
	cg_em_forget(em, 2);
	em->vec = vec;
	em->vr = rs[0];
	em->vlin = lin_of(em, ri, rs[0]);
	em->ind[2] = ind;
	const char *vals[CG_MAX_KNODES][4], *idx[CG_MAX_KNODES][4];
	const char *lins[4];
	cg_val ov[CG_MAX_KNODES][4];
	for (int q = 0; q < nl; q++) {
		lins[q] = q ? lin_of(em, ri, rs[q]) : em->vlin;
		cg_point p = cg_row_point(em, lins[q], rs[q], vec > 1 ? q : 0);
		for (int k = 0; k < nn; k++) {
			if (isred && pr && pr->kind[k])
				continue; /* its lanes are its partner's */
			int n = isred ? g->n[nodes[k]].in[0] : nodes[k];
			cg_val v = cg_ev(em, n, &p);
			if (!v.e)
				return;
			ov[k][q] = v;
			vals[k][q] = cg_f(em, v);
			idx[k][q] = rs[q];
		}
	}
	cg_sb *vals_buf = em->buf[2];
	if (stores && !isred)
		em->buf[2] = stores;
	for (int k = 0; k < nn; k++) {
		if (isred) {
			if (pr && pr->kind[k] == 1)
				online_step(em, acc[pr->with[k]], acc[k],
				            vals[pr->with[k]], nl, ind);
			else if (pr && pr->kind[k] == 2)
				var_step(em, acc[pr->with[k]], acc[k],
				         pr->shift[pr->with[k]], vals[pr->with[k]], nl,
				         ind);
			else if (!partner(pr, nn, k))
				cg_acc_step(em->buf[2], ind, g->n[nodes[k]].red, acc[k],
				            vals[k], idx[k], nl);
			continue;
		}
		int n = nodes[k];
		if (ri->tile) {
			/* into the tile while the set's C fits it (tiled), else
			 * straight to memory */
			cg_sb *sb = em->buf[2];
			for (int q = 0; q < nl; q++) {
				cg_line(sb, ind, "if (tiled) {");
				if (ri->tile == 1)
					cg_line(sb, ind + 1, "tl%d[%s * 33 + tq] = %s;", k,
					        rs[q], vals[k][q]);
				else
					cg_line(sb, ind + 1, "tl%d[tx * %d + %s] = %s;", k,
					        ri->tilep, rs[q], vals[k][q]);
				cg_line(sb, ind, "} else {");
				em->ind[2] = ind + 1;
				cg_store(em, 2, n, lins[q], ov[k][q]);
				em->ind[2] = ind;
				cg_line(sb, ind, "}");
			}
			continue;
		}
		if (vec == 4 && g->n[n].dtype == KRL_F32 && cg_out_decl(g, n, 1) < 0) {
			const char *ptr = cg_arg_buf(G, em->K, n, 1);
			cg_line(em->buf[2], ind, "*reinterpret_cast<float4 *>(%s + %s) = "
			        "make_float4(%s, %s, %s, %s);", ptr, em->vlin, vals[k][0],
			        vals[k][1], vals[k][2], vals[k][3]);
			continue;
		}
		for (int q = 0; q < nl; q++)
			cg_store(em, 2, n, lins[q], ov[k][q]);
	}
	em->buf[2] = vals_buf;
}

/* The lanes of a step: consecutive ("r", "(r + 1)", ...) or strided
 * ("r", "(r + s)", ...). */
static void lanes(cg_gen *G, const char **rs, int n, int stride)
{
	for (int q = 0; q < n; q++)
		rs[q] = q ? cg_fmt(G, "(r + %d)", q * stride) : "r";
}

/* A loop variant over the row into b. */
static void row_loop(cg_em *em, const rinfo *ri, const rloop *L,
                     const int *nodes, int nn, int isred,
                     const char *const *acc, const rpair *pair, cg_sb *b,
                     int ind)
{
	cg_gen *G = em->G;
	const char *rs[4];
	em->buf[2] = b;
	em->ck = NULL;
	const char *r0 = L->r0 && strcmp(L->r0, "0") ?
	                 cg_fmt(G, "%s + ", L->r0) : "";
	switch (L->variant) {
	case LV_CACHED:
		em->ck = "k";
		cg_line(b, ind, "#pragma unroll");
		cg_line(b, ind, "for (int k = 0; k < %d; k++) {", L->caps);
		cg_line(b, ind + 1, "const long r = ((long)k * %s + %s) * 4;", L->nl,
		        L->lid);
		cg_line(b, ind + 1, "if (r < %s) {", em->rlen);
		lanes(G, rs, 4, 1);
		row_step(em, ri, rs, 4, 4, nodes, nn, isred, acc, pair, ind + 2);
		cg_line(b, ind + 1, "}");
		cg_line(b, ind, "}");
		em->ck = NULL;
		break;
	case LV_VEC:
		if (isred) {
			cg_line(b, ind, "#pragma unroll 4");
			cg_line(b, ind, "for (long r = %s(long)%s * 4; r < %s; r += "
			        "(long)%s * 4) {", r0, L->lid, L->r1, L->nl);
			lanes(G, rs, 4, 1);
			row_step(em, ri, rs, 4, 4, nodes, nn, isred, acc, pair,
			         ind + 1);
			cg_line(b, ind, "}");
			break;
		}
		/* the outputs: four float4 steps a thread at a time, their loads
		 * written before any of their stores (one step at a time, the
		 * loop's branches kept one load in flight: 24's log_softmax at
		 * kb1 ran 6.15 ms, 4.77 so), then one step at a time */
		cg_line(b, ind, "{");
		cg_line(b, ind + 1, "long r = %s(long)%s * 4;", r0, L->lid);
		cg_line(b, ind + 1, "for (; r + 12 * (long)%s < %s; r += 16 * "
		        "(long)%s) {", L->nl, L->r1, L->nl);
		{
			cg_sb st = { 0 };
			for (int q = 0; q < 4; q++) {
				const char *base = q ? cg_fmt(G, "(r + %d * (long)%s)",
				                              4 * q, L->nl) : "r";
				for (int e = 0; e < 4; e++)
					rs[e] = e ? cg_fmt(G, "(%s + %d)", base, e) : base;
				row_step_to(em, ri, rs, 4, 4, nodes, nn, 0, acc, pair,
				            ind + 2, &st);
			}
			cg_sb_cat(b, &st);
			if (st.oom)
				G->oom = 1;
			cg_sb_free(&st);
		}
		cg_line(b, ind + 1, "}");
		cg_line(b, ind + 1, "for (; r < %s; r += (long)%s * 4) {", L->r1,
		        L->nl);
		lanes(G, rs, 4, 1);
		row_step(em, ri, rs, 4, 4, nodes, nn, isred, acc, pair, ind + 2);
		cg_line(b, ind + 1, "}");
		cg_line(b, ind, "}");
		break;
	case LV_PEEL: {
		/* rows not 16-byte aligned: one element per lane up to a 16-byte
		 * boundary, float4s, then the last 0..3 elements */
		const char *a = L->r0 ? L->r0 : "0";
		cg_line(b, ind, "{");
		cg_line(b, ind + 1, "const long h = min((long)((4 - ((%s + %s) & 3)) & "
		        "3), %s - %s);", em->rb, a, L->r1, a);
		cg_line(b, ind + 1, "const long t = (%s - %s - h) & 3;", L->r1, a);
		for (int part = 0; part < 2; part++) {
			cg_line(b, ind + 1, "if (%s < %s) {", L->lid, part ? "t" : "h");
			cg_line(b, ind + 2, "const long r = %s;", part ?
			        cg_fmt(G, "%s - t + %s", L->r1, L->lid) :
			        cg_fmt(G, "%s + %s", a, L->lid));
			rs[0] = "r";
			row_step(em, ri, rs, 1, 1, nodes, nn, isred, acc, pair, ind + 2);
			cg_line(b, ind + 1, "}");
		}
		if (isred)
			cg_line(b, ind + 1, "#pragma unroll 4");
		cg_line(b, ind + 1, "for (long r = %sh + (long)%s * 4; r < %s - t; "
		        "r += (long)%s * 4) {", r0, L->lid, L->r1, L->nl);
		lanes(G, rs, 4, 1);
		row_step(em, ri, rs, 4, 4, nodes, nn, isred, acc, pair, ind + 2);
		cg_line(b, ind + 1, "}");
		cg_line(b, ind, "}");
		break;
	}
	case LV_SCALAR:
	case LV_COL: {
		/* strided lanes: four positions in flight per thread, then one
		 * at a time */
		int col = L->variant == LV_COL;
		/* a column kernel's first row: its row of threads, or packed
		 * (em->colpack) its virtual row */
		const char *ys = em->colpack ? "cy" : "ty";
		const char *start = !col ? cg_fmt(G, "%s%s", r0, L->lid) :
		                    L->r0 ? cg_fmt(G, "%s + %s", L->r0, ys) : ys;
		const char *end = col && !L->r1 ? em->rlen : L->r1;
		/* the stride: a number, or a warp-strategy kernel's lanes a row
		 * (a variable), or a packed column kernel's rows of threads */
		const char *st = !col ? L->nl : em->colpack ?
		                 cg_fmt(G, "(%d * cs)", L->ty) :
		                 cg_fmt(G, "%d", L->ty);
		cg_line(b, ind, "{");
		cg_line(b, ind + 1, "long r = %s;", start);
		if (isred) {
			cg_line(b, ind + 1, "for (; r + 3 * %s < %s; r += 4 * %s) {", st,
			        end, st);
			for (int q = 0; q < 4; q++)
				rs[q] = q ? cg_fmt(G, "(r + %d * %s)", q, st) : "r";
			row_step(em, ri, rs, 4, 1, nodes, nn, isred, acc, pair, ind + 2);
			cg_line(b, ind + 1, "}");
		}
		cg_line(b, ind + 1, "for (; r < %s; r += %s) {", end, st);
		if (col && !isred) {
			cg_line(b, ind + 2, "if (!valid)");
			cg_line(b, ind + 3, "break;");
		}
		rs[0] = "r";
		row_step(em, ri, rs, 1, 1, nodes, nn, isred, acc, pair, ind + 2);
		cg_line(b, ind + 1, "}");
		cg_line(b, ind, "}");
		break;
	}
	}
}

/* The column kernel's combine of acc across its rows of threads (shared
 * memory); every thread gets the value. */
static cg_val col_finish(cg_em *em, cg_sb *b, int ind, krl_redop op,
                         const char *acc, int ty)
{
	cg_gen *G = em->G;
	const char *name = cg_name(G, "r");
	cg_val v = { name, 'f' };
	G->need |= CG_NEED_RED;
	if (ty == 1) {
		/* a thread per column: its accumulator is the column's */
		if (cg_red_is_arg(op)) {
			G->need |= CG_NEED_ARG;
			cg_line(b, ind, "const long long %s = %s_i;", name, acc);
			v.t = 'l';
		} else {
			cg_line(b, ind, "const float %s = (float)%s;", name, acc);
		}
		return v;
	}
	cg_line(b, ind, "__syncthreads(); /* the slots may still be read */");
	/* slot 0 of the column and the others' (k from 1): [k][tx], or where
	 * the columns are packed, virtual row k's [k / cs][cx + k % cs cw] */
	int pk = em->colpack;
	const char *s0 = pk ? "[0][cx]" : "[0][tx]";
	const char *sk = pk ? "[k / cs][cx + k % cs * cw]" : "[k][tx]";
	const char *nk = pk ? cg_fmt(G, "%d * cs", ty) : cg_fmt(G, "%d", ty);
	switch (op) {
	case KRL_RED_SUM:
	case KRL_RED_PROD:
		cg_line(b, ind, "krl_cd[ty][tx] = %s;", acc);
		cg_line(b, ind, "__syncthreads();");
		cg_line(b, ind, "%s = krl_cd%s;", acc, s0);
		cg_line(b, ind, "for (int k = 1; k < %s; k++)", nk);
		cg_line(b, ind + 1, "%s %s= krl_cd%s;", acc,
		        op == KRL_RED_SUM ? "+" : "*", sk);
		cg_line(b, ind, "const float %s = (float)%s;", name, acc);
		break;
	case KRL_RED_MAX:
	case KRL_RED_MIN:
		cg_line(b, ind, "krl_cf[ty][tx] = %s;", acc);
		cg_line(b, ind, "__syncthreads();");
		cg_line(b, ind, "%s = krl_cf%s;", acc, s0);
		cg_line(b, ind, "for (int k = 1; k < %s; k++)", nk);
		cg_line(b, ind + 1, "%s = %s(%s, krl_cf%s);", acc,
		        op == KRL_RED_MAX ? "krl_maxf" : "krl_minf", acc, sk);
		cg_line(b, ind, "const float %s = %s;", name, acc);
		break;
	case KRL_RED_ARGMAX:
	case KRL_RED_ARGMIN:
		G->need |= CG_NEED_ARG;
		cg_line(b, ind, "krl_cf[ty][tx] = %s;", acc);
		cg_line(b, ind, "krl_cl[ty][tx] = %s_i;", acc);
		cg_line(b, ind, "__syncthreads();");
		cg_line(b, ind, "%s = krl_cf%s;", acc, s0);
		cg_line(b, ind, "%s_i = krl_cl%s;", acc, s0);
		cg_line(b, ind, "for (int k = 1; k < %s; k++) {", nk);
		cg_line(b, ind + 1, "if (%s(krl_cf%s, krl_cl%s, %s, %s_i)) {",
		        op == KRL_RED_ARGMAX ? "krl_amax_better" : "krl_amin_better",
		        sk, sk, acc, acc);
		cg_line(b, ind + 2, "%s = krl_cf%s;", acc, sk);
		cg_line(b, ind + 2, "%s_i = krl_cl%s;", acc, sk);
		cg_line(b, ind + 1, "}");
		cg_line(b, ind, "}");
		cg_line(b, ind, "const long long %s = %s_i;", name, acc);
		v.t = 'l';
		break;
	}
	return v;
}

/* The row's sum S and sum of squared deviations V from the shifted sums
 * accp, accq (row totals, double) and the shift sh: S = P + n sh and
 * V = Q - 2 d P + n d^2 with d = mean - sh, mean = S * c as the graph
 * computes it. Sets both reduce values in em. */
static void var_finish(cg_em *em, cg_sb *b, int ind, int snode, int vnode,
                       int cnode, const char *accp, const char *accq,
                       const char *sh)
{
	cg_gen *G = em->G;
	cg_point pc;
	memset(&pc, 0, sizeof pc);
	pc.space = cnode;
	pc.lin = "0";
	cg_val c = cg_ev(em, cnode, &pc);
	if (!c.e)
		return;
	const char *rs = cg_name(G, "r"), *rv = cg_name(G, "r");
	const char *mn = cg_name(G, "m"), *dv = cg_name(G, "dm");
	cg_line(b, ind, "const float %s = (float)(%s + (double)%s * (double)%s);",
	        rs, accp, em->rlen, sh);
	cg_line(b, ind, "const float %s = %s * %s;", mn, rs, c.e);
	cg_line(b, ind, "const double %s = (double)%s - (double)%s;", dv, mn, sh);
	cg_line(b, ind, "const float %s = (float)fmax(%s - 2.0 * %s * %s + "
	        "(double)%s * %s * %s, 0.0);", rv, accq, dv, accp, em->rlen, dv, dv);
	cg_val vs = { rs, 'f' }, vv = { rv, 'f' };
	cg_em_set_reduce(em, snode, vs);
	cg_em_set_reduce(em, vnode, vv);
}

/* The shift of a variance pair: E (sum node's input) at the row's first
 * element, a row-level value. */
static const char *var_shift(cg_em *em, const rinfo *ri, int snode)
{
	cg_gen *G = em->G;
	cg_point p0 = cg_row_point(em, lin_of(em, ri, "0"), "0", 0);
	p0.main = 0;
	p0.rowlevel = 1;
	cg_val v = cg_ev(em, G->g->n[snode].in[0], &p0);
	return v.e ? cg_f(em, v) : "0.f";
}

/* ==== The program of one row ==== */

typedef struct rprog {
	const char *conds[4];    /* loop variants' conditions, tried in order
	                            (NULL: else) */
	int nvar;
	rloop L[4];
	int finish;              /* 0 warp, 1 block, 2 column, 3 partials,
	                            4 column partials */
	const char *part, *pslot; /* partials: buffer, index of slot 0 */
	int first, last;         /* passes to compute */
	int outputs;             /* write the outputs after the last pass */
	const char *rowguard;    /* who stores row outputs */
} rprog;

static void emit_sections(cg_em *em, const rinfo *ri, const rprog *P,
                          cg_sb *b, int ind)
{
	cg_gen *G = em->G;
	const krl_graph *g = G->g;
	for (int pass = P->first; pass <= P->last + (P->outputs ? 1 : 0);
	     pass++) {
		int isred = pass <= P->last;
		int nodes[CG_MAX_KNODES], nn = 0, js[CG_MAX_KNODES];
		rpair pr;
		const char *acc[CG_MAX_KNODES];
		memset(&pr, 0, sizeof pr);
		if (isred) {
			for (int j = 0; j < ri->nred; j++)
				if (ri->pass[j] == pass) {
					js[nn] = j;
					nodes[nn++] = ri->red[j];
				}
			for (int k = 0; k < nn; k++)
				for (int q = 0; q < nn; q++) {
					if (ri->online[js[k]] == js[q]) {
						pr.kind[k] = 1;
						pr.with[k] = q;
					}
					if (ri->var[js[k]] == js[q]) {
						pr.kind[k] = 2;
						pr.with[k] = q;
					}
				}
		} else {
			for (int o = 0; o < ri->nfull; o++)
				nodes[nn++] = ri->full[o];
		}
		cg_sb sec = { 0 }, loops = { 0 };
		em->buf[1] = &sec;
		em->ind[1] = ind;
		for (int k = 0; k < nn; k++)
			if (isred && pr.kind[k] == 2)
				pr.shift[pr.with[k]] = var_shift(em, ri, nodes[pr.with[k]]);
		if (isred) {
			cg_line(&loops, ind, "/* pass %d */", pass);
			for (int k = 0; k < nn; k++) {
				acc[k] = cg_name(G, "acc");
				cg_acc_decl(&loops, ind, g->n[nodes[k]].red, acc[k]);
			}
		} else if (nn) {
			cg_line(&loops, ind, "/* the outputs of the full shape */");
		}
		for (int v = 0; v < P->nvar && nn; v++) {
			if (P->conds[v])
				cg_line(&loops, ind, "%sif (%s) {", v ? "} else " : "",
				        P->conds[v]);
			else if (v)
				cg_line(&loops, ind, "} else {");
			int in = ind + (P->conds[v] || v ? 1 : 0);
			row_loop(em, ri, &P->L[v], nodes, nn, isred, acc,
			         isred ? &pr : NULL, &loops, in);
			if (v == P->nvar - 1 && (P->conds[v] || v))
				cg_line(&loops, ind, "}");
		}
		if (isred) {
			/* maxes first: an online sum is rescaled to its row max */
			cg_val fin[CG_MAX_KNODES];
			for (int k = 0; k < nn; k++)
				fin[k].e = NULL;
			for (int k = 0; k < nn && P->finish < 3; k++) {
				if (pr.kind[k] != 1)
					continue;
				int m = pr.with[k];
				/* the thread's own max (the column finish overwrites
				 * its accumulator with the column's) */
				const char *lm = acc[m];
				if (P->finish == 2) {
					lm = cg_name(G, "lm");
					cg_line(&loops, ind, "const float %s = %s;", lm, acc[m]);
					fin[m] = col_finish(em, &loops, ind, KRL_RED_MAX, acc[m],
					                    P->L[0].ty);
				} else {
					fin[m] = cg_acc_finish(em, &loops, ind, KRL_RED_MAX,
					                       acc[m], P->finish == 1);
				}
				/* a row of max +inf: exp(E - M) is NaN at +inf
				 * (softmax's NaN), but the sum is +inf where its M is
				 * logsumexp's finite max (0 there) */
				const char *inf = ri->onlinef[js[k]] ?
				                  cg_fmt(G, "%s == INFINITY ? "
				                         "(double)INFINITY : ", fin[m].e) : "";
				cg_line(&loops, ind, "%s = %s == -INFINITY ? 0.0 : %s%s * "
				        "(double)%s(%s - %s);", acc[k], lm, inf, acc[k],
				        row_exp(G), lm, fin[m].e);
				cg_em_set_reduce(em, nodes[m], fin[m]);
			}
			/* variance pairs: both shifted sums over the row, in place */
			for (int k = 0; k < nn && P->finish < 3; k++) {
				if (pr.kind[k] != 2)
					continue;
				int sk = pr.with[k];
				for (int h = 0; h < 2; h++) {
					const char *a = h ? acc[k] : acc[sk];
					if (P->finish == 2) {
						col_finish(em, &loops, ind, KRL_RED_SUM, a, P->L[0].ty);
					} else {
						G->need |= CG_NEED_WARP | CG_NEED_RED |
						           (P->finish == 1 ? CG_NEED_BLOCK : 0);
						cg_line(&loops, ind, "%s = %s_sum(%s%s);", a,
						        P->finish == 1 ? "krl_block" : "krl_warp", a,
						        P->finish == 0 && em->wlanes ?
						        cg_fmt(G, ", %s", em->wlanes) : "");
					}
				}
				var_finish(em, &loops, ind, nodes[sk], nodes[k],
				           ri->varc[js[k]], acc[sk], acc[k], pr.shift[sk]);
				fin[k].e = fin[sk].e = "";
			}
			for (int k = 0; k < nn; k++) {
				if (fin[k].e)
					continue;
				krl_redop op = g->n[nodes[k]].red;
				cg_val r = { NULL, 'f' };
				switch (P->finish) {
				case 0:
				case 1:
					r = cg_acc_finish(em, &loops, ind, op, acc[k],
					                  P->finish == 1);
					break;
				case 2:
					r = col_finish(em, &loops, ind, op, acc[k], P->L[0].ty);
					break;
				case 4:
					/* the block's total of its column, in acc */
					col_finish(em, &loops, ind, op, acc[k], P->L[0].ty);
					cg_line(&loops, ind, "if (%s == 0 && valid) {",
					        em->colpack ? "cy" : "ty");
					cg_acc_store(&loops, ind + 1, op, acc[k], P->part,
					             cg_fmt(G, "%s + %d", P->pslot,
					                    ri->slot[js[k]]));
					cg_line(&loops, ind, "}");
					break;
				default:
					cg_acc_block_store(em, &loops, ind, op, acc[k], P->part,
					                   cg_fmt(G, "%s + %d", P->pslot,
					                          ri->slot[js[k]]));
					break;
				}
				if (r.e)
					cg_em_set_reduce(em, nodes[k], r);
			}
		}
		cg_sb_cat(b, &sec);
		cg_sb_cat(b, &loops);
		if (sec.oom || loops.oom)
			G->oom = 1;
		cg_sb_free(&sec);
		cg_sb_free(&loops);
	}
	if (P->outputs && ri->nrowo) {
		cg_sb sec = { 0 }, st = { 0 };
		em->buf[1] = &sec;
		em->ind[1] = ind;
		em->buf[2] = &st;
		em->ind[2] = ind + 1;
		cg_line(&sec, ind, "/* the outputs of the row shape */");
		for (int o = 0; o < ri->nrowo; o++) {
			int n = ri->rowo[o];
			cg_point p;
			memset(&p, 0, sizeof p);
			p.space = n;
			p.lin = ri->inner1 ? em->ro :
			        cg_fmt(G, "(%s * %s + %s)", em->ro, em->rinner, em->rc);
			p.inrow = 1;
			p.rowlevel = 1;
			cg_val v = cg_ev(em, n, &p);
			if (!v.e)
				break;
			cg_store(em, 2, n, p.lin, v);
		}
		cg_sb_cat(b, &sec);
		cg_line(b, ind, "if (%s) {", P->rowguard);
		cg_sb_cat(b, &st);
		cg_line(b, ind, "}");
		if (sec.oom || st.oom)
			G->oom = 1;
		cg_sb_free(&sec);
		cg_sb_free(&st);
	}
}

/* ==== Kernels ==== */

/* Declares the kernel's shape arguments and row names in em. */
static void row_names(cg_em *em, const rinfo *ri, const char **O,
                      const char **I)
{
	cg_gen *G = em->G;
	*O = cg_arg_long(G, em->K, ri->otext);
	em->rlen = cg_arg_long(G, em->K, ri->rtext);
	*I = ri->inner1 ? "1" : cg_arg_long(G, em->K, ri->itext);
	em->rinner = *I;
	em->ro = "o";
	em->rc = ri->inner1 ? NULL : "c";
	em->rb = "rb";
}

static void finish_kernel(cg_gen *G, cg_kern *K, const char *name,
                          const char *how, int block, cg_sb *body,
                          const char *grid, const char *blockdims)
{
	cg_kernel_comment(G, K, how);
	cg_kernel_sig(G, K, name, block);
	cg_sb_puts(&G->dev, body->z ? body->z : "");
	cg_plan_launch(G, K, name, grid, blockdims);
}

/* Rows of at most this many elements (at the set generated for) share a
 * warp (emit_rows). */
#define SUB_WARP_R 64

/* Warp or block strategy (inner == 1): one kernel. */
static void emit_rows(cg_gen *G, cg_kern *K, const rinfo *ri)
{
	int warp = ri->strategy == CG_ROW_WARP;
	int blk = ri->blk;
	const char *name = cg_fmt(G, "k%d_row", K->id);
	cg_em em;
	cg_em_init(&em, G, K);
	cg_sb l0 = { 0 }, rowb = { 0 }, body = { 0 };
	em.buf[0] = &l0;
	em.ind[0] = 1;
	const char *O, *I;
	row_names(&em, ri, &O, &I);
	/* the warp strategy over rows of at most SUB_WARP_R elements at the
	 * set generated for: a row takes lpr lanes (krl_row_lanes: two
	 * float4s a lane, 4 to 32 lanes), 32 / lpr rows a warp, so that rows of few
	 * elements (47's softmax over 32 clusters) do not leave 3 of 4 lanes
	 * idle; the reductions combine groups of lpr lanes. Longer rows keep
	 * a warp each at literal 32: the run-time lane count cost level 2's
	 * channels-last rows of 128 8-12% (H100, 2026-12-06) */
	int sub = warp && ri->rval <= SUB_WARP_R;
	const char *nl = sub ? "lpr" : warp ? "32" : cg_fmt(G, "%d", blk);
	if (sub)
		em.wlanes = "lpr";
	int caps = 8 / (ri->ncache ? ri->ncache : 1);
	if (caps < 1)
		caps = 1;
	int cap = (warp ? 32 : blk) * caps * 4;
	/* registers pay only when the row is read more than once, and when it
	 * fits at the shape set the candidate is generated for: the array
	 * takes registers (so occupancy) whether or not a row uses it. Rows
	 * split over lanes re-read instead: 46's batch norm and softmax over
	 * rows of 48 ran 0.209 ms with the cache, 0.097 without (H100) */
	int cache = G->s.row_cache && ri->ncache > 0 && !ri->perm && !sub &&
	            ri->npass + (ri->nfull > 0) > 1 && ri->rval <= cap;
	rprog P;
	memset(&P, 0, sizeof P);
	int v = 0;
	if (ri->perm) {
		/* rows of C contiguous in the leaf; NCHW operands at a stride of S:
		 * one element per lane and step */
		em.pb = "pb";
		em.pstride = "1";
		P.L[v++].variant = LV_SCALAR;
	} else {
		if (cache) {
			P.conds[v] = "cached";
			P.L[v].variant = LV_CACHED;
			P.L[v].caps = caps;
			v++;
		}
		P.conds[v] = "vec";
		P.L[v].variant = LV_VEC;
		v++;
		P.conds[v] = "peel";
		P.L[v].variant = LV_PEEL;
		v++;
		P.L[v].variant = LV_SCALAR;
		v++;
	}
	P.nvar = v;
	for (int k = 0; k < v; k++) {
		P.L[k].lid = "lid";
		P.L[k].nl = nl;
		P.L[k].r0 = "0";
		P.L[k].r1 = em.rlen;
	}
	P.finish = warp ? 0 : 1;
	P.first = 1;
	P.last = ri->npass;
	P.outputs = 1;
	P.rowguard = "lid == 0";
	/* the cache lives for the whole row */
	em.ncache = cache ? ri->ncache : 0;
	for (int i = 0; i < em.ncache; i++) {
		em.cnode[i] = ri->cache[i];
		em.cvar[i] = cg_fmt(G, "cch%d", i);
	}
	emit_sections(&em, ri, &P, &rowb, ri->tile ? 4 : 2);
	em.vec = 4;
	/* broadcast extents that allow float4 lanes allow them in the peeled
	 * path too; the row length only in the aligned one */
	const char *others = cg_guard_cond(&em);
	cg_guard_add(&em, em.rlen);
	const char *guard = cg_guard_cond(&em);
	if (G->fail >= 0 || G->err[0] || G->oom)
		goto done;

	cg_line(&body, 0, "{");
	cg_sb_cat(&body, &l0);
	cg_line(&body, 1, "const int tid = threadIdx.x;");
	if (warp && !sub) {
		cg_line(&body, 1, "const int lid = tid & 31;");
		cg_line(&body, 1, "const long wpb = %d; /* warps (rows) per block */",
		        blk / 32);
	} else if (warp) {
		cg_line(&body, 1, "const int lpr = krl_row_lanes(%s); /* lanes a "
		        "row */", em.rlen);
		cg_line(&body, 1, "const int lsh = __ffs(lpr) - 1; /* lpr = 1 << lsh "
		        "*/");
		cg_line(&body, 1, "const int lid = tid & (lpr - 1);");
		cg_line(&body, 1, "const long rpw = 32 >> lsh; /* rows a warp */");
		cg_line(&body, 1, "const long wpb = %d; /* warps per block */",
		        blk / 32);
		G->need |= CG_NEED_WARP;
	} else {
		cg_line(&body, 1, "const int lid = tid;");
	}
	const char *ov = ri->perm ? "op" : "o";
	if (ri->perm) {
		O = cg_arg_long(G, K, ri->potext);
	} else {
		cg_line(&body, 1, "/* float4 paths when rows start 16-byte aligned, "
		        "or after a peeled head */");
		cg_line(&body, 1, "const bool vec = %s;", guard);
		cg_line(&body, 1, "const bool peel = %s;", others);
	}
	if (cache)
		cg_line(&body, 1, "const bool cached = vec && %s <= %d;", em.rlen, cap);
	/* the row loop's indent */
	int ri2 = ri->tile ? 4 : 2;
	if (ri->tile) {
		/* tiles of 32 positions: each warp takes rows of the tile, the
		 * full-shape outputs gather in tl (a row of 33 per channel: the
		 * stores of a row's lanes and the reads of a channel's 32
		 * positions hit distinct banks), then leave NCHW; the last
		 * tile's rows past the end repeat the last row (their values
		 * are not stored) */
		for (int k = 0; k < ri->nfull; k++)
			cg_line(&body, 1, "__shared__ float tl%d[%d];", k,
			        ri->tilec * 33);
		cg_line(&body, 1, "const bool tiled = %s <= %d;", em.rlen, ri->tilec);
		cg_line(&body, 1, "for (long t0 = (long)blockIdx.x * 32; t0 < %s; "
		        "t0 += (long)gridDim.x * 32) {", O);
		cg_line(&body, 2, "{");
		cg_line(&body, 3, "for (long qw = (long)(tid >> 5) * %s; qw < 32; "
		        "qw += wpb * %s) {", sub ? "rpw" : "1", sub ? "rpw" : "1");
		cg_line(&body, 4, "const long tq = qw%s;", sub ?
		        " + (long)((tid & 31) >> lsh)" : "");
		cg_line(&body, 4, "const long %s = min(t0 + tq, %s - 1);", ov, O);
	} else if (warp && !sub) {
		cg_line(&body, 1, "for (long %s = (long)blockIdx.x * wpb + (tid >> 5); "
		        "%s < %s; %s += (long)gridDim.x * wpb) {", ov, ov, O, ov);
	} else if (warp) {
		/* a warp's rows; the last group's lanes past the end repeat the
		 * last row (the same values stored twice): every lane of a warp
		 * stays for its shuffles */
		cg_line(&body, 1, "for (long g = (long)blockIdx.x * wpb + (tid >> 5); "
		        "g * rpw < %s; g += (long)gridDim.x * wpb) {", O);
		cg_line(&body, 2, "const long %s = min(g * rpw + (long)((tid & 31) >> "
		        "lsh), %s - 1);", ov, O);
	} else
		cg_line(&body, 1, "for (long %s = blockIdx.x; %s < %s; %s += "
		        "gridDim.x) {", ov, ov, O, ov);
	if (ri->perm) {
		/* row op of the leaf's memory is position (n, s) = (o, c) */
		/* 32-bit (or shift) division where the values fit, as the map
		 * kernels' (ptxas's 64-bit sequence is long: eed9afa's 32-bit
		 * paths took 60's map 1.219 -> 1.107 ms), once a row */
		cg_line(&body, ri2, "const long o = krl_div(op, %s), c = krl_mod(op, "
		        "%s);", I, I);
		G->need |= CG_NEED_DIV;
		cg_line(&body, ri2, "const long rb = o * %s * %s + c;", em.rlen, I);
		cg_line(&body, ri2, "const long pb = op * %s;", em.rlen);
	} else {
		cg_line(&body, 2, "const long rb = o * %s;", em.rlen);
	}
	if (cache) {
		cg_line(&body, 2, "/* the row in registers when it fits */");
		for (int i = 0; i < ri->ncache; i++)
			cg_line(&body, 2, "float4 cch%d[%d];", i, caps);
		cg_line(&body, 2, "if (cached) {");
		cg_line(&body, 3, "#pragma unroll");
		cg_line(&body, 3, "for (int k = 0; k < %d; k++) {", caps);
		cg_line(&body, 4, "const long r = ((long)k * %s + lid) * 4;", nl);
		cg_line(&body, 4, "if (r < %s) {", em.rlen);
		for (int i = 0; i < ri->ncache; i++)
			cg_line(&body, 5, "cch%d[k] = *reinterpret_cast<const float4 *>"
			        "(%s + rb + r);", i, cg_arg_buf(G, K, ri->cache[i], 0));
		cg_line(&body, 4, "}");
		cg_line(&body, 3, "}");
		cg_line(&body, 2, "}");
	}
	cg_sb_cat(&body, &rowb);
	if (ri->tile) {
		/* the tile out: thread tid stores position t0 + tid % 32 of
		 * channels tid / 32, + the warps a block, ... */
		cg_line(&body, 3, "}");
		cg_line(&body, 2, "}");
		cg_line(&body, 2, "if (tiled) {");
		cg_line(&body, 3, "__syncthreads();");
		cg_line(&body, 3, "const long fp = t0 + (tid & 31);");
		cg_line(&body, 3, "if (fp < %s) {", O);
		cg_line(&body, 4, "const long fb = krl_div(fp, %s) * %s * %s + "
		        "krl_mod(fp, %s);", I,
		        em.rlen, I, I);
		cg_line(&body, 4, "for (long fc = tid >> 5; fc < %s; fc += %d) {",
		        em.rlen, blk / 32);
		for (int k = 0; k < ri->nfull; k++)
			cg_line(&body, 5, "%s[fb + fc * %s] = tl%d[fc * 33 + (tid & 31)];",
			        cg_arg_buf(G, K, ri->full[k], 1), I, k);
		cg_line(&body, 4, "}");
		cg_line(&body, 3, "}");
		cg_line(&body, 3, "__syncthreads();");
		cg_line(&body, 2, "}");
	}
	cg_line(&body, 1, "}");
	cg_line(&body, 0, "}");
	{
		const char *ot = ri->potext;
		const char *grid = ri->tile ?
		    cg_fmt(G, "min(cdiv(%s, 32), sm_count * 32)", ot) : warp ?
		    cg_fmt(G, "min(cdiv(%s, %d), sm_count * 32)", ot, blk / 32) :
		    cg_fmt(G, "min(%s, sm_count * 32)", ot);
		cg_prev pv = { 0 };
		pv.dev0 = G->dev.len;
		pv.plan0 = G->plan.len;
		finish_kernel(G, K, name,
		              cg_fmt(G, "row: %s per row, %d threads, %s, %d pass%s%s%s",
		                     sub ? "4 to 32 lanes" : warp ? "a warp" :
		                     "a block", blk,
		                     cache ? "rows in registers when they fit" :
		                     "rows re-read", ri->npass,
		                     ri->npass == 1 ? "" : "es",
		                     ri->perm ? "; rows of C contiguous in a "
		                     "channels-last input, one per position" : "",
		                     ri->tile ? "; full-shape outputs through "
		                     "shared-memory tiles of 32 positions" : ""),
		              blk, &body, grid, cg_fmt(G, "%d", blk));
		/* a grid-stride loop every thread leaves at its end: a small
		 * kernel after it may run in its tail (fold_tail) */
		if (!strstr(body.z ? body.z : "return", "return")) {
			pv.form = 1;
			pv.threads = blk;
			pv.dev1 = G->dev.len;
			pv.plan1 = G->plan.len;
			pv.count = "(long)gridDim.x";
			pv.slot = "0";
			pv.need = "1";
			G->prev = pv;
		}
	}
done:
	if (l0.oom || rowb.oom || body.oom)
		G->oom = 1;
	cg_sb_free(&l0);
	cg_sb_free(&rowb);
	cg_sb_free(&body);
	cg_em_free(&em);
}

/* The partials of the reductions of passes before pass, in scratch pp,
 * combined into em's reduce values (code into comb at indent ind). Chunk
 * q's slot 0 is at slot0 (a format, %s for q). With blk, the block's blk
 * threads split the chunks and then combine across the block (a row of
 * several blocks: emit_multi); else a column kernel's ty rows of threads
 * split its column's chunks and combine through shared memory
 * (emit_cols_split, col_finish: before 2026-12-06 each of 47's 8 rows of
 * threads walked all 915 chunks' partials of its batch norm). */
static void combine_parts(cg_em *em, const rinfo *ri, int pass, cg_sb *comb,
                          int ind, const char *pp, const char *slot0, int blk,
                          int ty)
{
	cg_gen *G = em->G;
	const char *at = cg_fmt(G, slot0, "q");
	const char *loop = blk ?
	                   cg_fmt(G, "for (long q = tid; q < nch; q += %d)", blk) :
	                   em->colpack ?
	                   cg_fmt(G, "for (long q = cy; q < nch; q += %d * cs)",
	                          ty) :
	                   cg_fmt(G, "for (long q = ty; q < nch; q += %d)", ty);
	for (int j = 0; j < ri->nred; j++) {
		if (ri->pass[j] >= pass)
			continue;
		int isvs = 0;
		for (int v = 0; v < ri->nred; v++)
			if (ri->var[v] == j)
				isvs = 1;
		if (isvs)
			continue; /* with its variance, below */
		if (ri->var[j] >= 0) {
			int js = ri->var[j];
			const char *ap = cg_name(G, "acc"), *aq = cg_name(G, "acc");
			cg_line(comb, ind, "double %s = 0.0, %s = 0.0;", ap, aq);
			cg_line(comb, ind, "%s {", loop);
			cg_line(comb, ind + 1, "%s += %s[%s + %d];", ap, pp, at,
			        ri->slot[js]);
			cg_line(comb, ind + 1, "%s += %s[%s + %d];", aq, pp, at,
			        ri->slot[j]);
			cg_line(comb, ind, "}");
			if (blk) {
				G->need |= CG_NEED_BLOCK | CG_NEED_WARP | CG_NEED_RED;
				cg_line(comb, ind, "%s = krl_block_sum(%s);", ap, ap);
				cg_line(comb, ind, "%s = krl_block_sum(%s);", aq, aq);
			} else {
				col_finish(em, comb, ind, KRL_RED_SUM, ap, ty);
				col_finish(em, comb, ind, KRL_RED_SUM, aq, ty);
			}
			var_finish(em, comb, ind, ri->red[js], ri->red[j], ri->varc[j],
			           ap, aq, var_shift(em, ri, ri->red[js]));
			continue;
		}
		krl_redop op = G->g->n[ri->red[j]].red;
		const char *acc = cg_name(G, "acc");
		cg_acc_decl(comb, ind, op, acc);
		cg_line(comb, ind, "%s", loop);
		cg_acc_part(comb, ind + 1, op, acc, pp,
		            cg_fmt(G, "%s + %d", at, ri->slot[j]));
		cg_em_set_reduce(em, ri->red[j],
		                 blk ? cg_acc_finish(em, comb, ind, op, acc, 1) :
		                 col_finish(em, comb, ind, op, acc, ty));
	}
}

/* src into dst, each non-empty line one tab deeper (a kernel's body
 * ends at the first "}" on a line of its own: cgdedup.c). */
static void indent_into(cg_sb *dst, const char *src)
{
	for (const char *p = src ? src : ""; *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p + 1) : strlen(p);
		cg_sb_printf(dst, "%s%.*s", *p == '\n' ? "" : "\t", (int)len, p);
		p += len;
	}
}

/* The plan's tickets (krl_tk) are at least `count` long (an expression
 * over the shape). */
static void tail_need(cg_gen *G, const char *count)
{
	const char *line = cg_fmt(G, "\n%s\n", count);
	if (!G->tails.z || !strstr(G->tails.z, line))
		cg_sb_printf(&G->tails, "%s%s\n", G->tails.z ? "" : "\n", count);
	G->need |= CG_NEED_TAIL;
}

/* The gate of a tail in tb: past it, only the last block of group grp
 * (nblk blocks) goes on, reading partials of `part` through krl_pp. */
static void tail_gate(cg_gen *G, cg_kern *K, cg_sb *tb, const char *grp,
                      const char *nblk, const char *part)
{
	const char *t = cg_arg_named(G, K, "krl_tk", "int *__restrict__");
	cg_line(tb, 1, "if (!krl_tail_last(%s + %s, %s))", t, grp, nblk);
	cg_line(tb, 2, "return;");
	cg_line(tb, 1, "const volatile double *krl_pp = %s;",
	        cg_arg_named(G, K, part, ""));
}

/* The tail tb closed around the outputs' code outb (freed). */
static void tail_close(cg_gen *G, cg_sb *tb, cg_sb *outb)
{
	indent_into(tb, outb->z);
	cg_line(tb, 0, "}");
	if (outb->oom)
		G->oom = 1;
	cg_sb_free(outb);
}

/* A kernel's body into whole: body, and after it the tail tb where last
 * (both one tab deeper inside one block), else body alone. */
static void tail_compose(cg_sb *whole, const cg_sb *body, const cg_sb *tb,
                         int last)
{
	if (!last) {
		cg_sb_cat(whole, body);
		return;
	}
	cg_line(whole, 0, "{");
	indent_into(whole, body->z);
	indent_into(whole, tb->z);
	cg_line(whole, 0, "}");
}

/* Whether a kernel of several passes hands its outputs to a tail (the
 * last block of a group: row.tail, docs/optimizer.md section 3, "Tails")
 * and, if so, registers its groups (a count, an expression over the
 * shape) with the plan's tickets (cg_tail_plan). */
static int tail_take(cg_gen *G, const char *groups)
{
	G->rows_tail++;
	if (!G->s.row_tail)
		return 0;
	tail_need(G, groups);
	G->ntail++;
	return 1;
}

/* The body of one kernel of the multi strategy into body: the reductions
 * of pass (or, out, the outputs) of the blocks numbered blk (an
 * expression; NULL: the pass's own numbering). pp: the partials'
 * parameter, as read by the combine. 0 when generation failed. */
static int multi_body(cg_gen *G, cg_kern *K, const rinfo *ri, int pass,
                      int out, const char *blkx, const char *pp_read,
                      cg_sb *body, const char **Oo, const char **rleno)
{
	int blk = ri->blk;
	int chunk = blk * 4 * MULTI_CHUNK_VECS;
	const char *part = cg_fmt(G, "k%d_part", K->id);
	cg_em em;
	cg_em_init(&em, G, K);
	cg_sb l0 = { 0 }, comb = { 0 }, rowb = { 0 };
	em.buf[0] = &l0;
	em.ind[0] = 1;
	const char *O, *I;
	row_names(&em, ri, &O, &I);
	const char *pp = cg_arg_named(G, K, part, out ?
	                              "const double *__restrict__" :
	                              "double *__restrict__");
	/* combine the partials of the earlier passes */
	em.buf[1] = &comb;
	em.ind[1] = 1;
	combine_parts(&em, ri, pass, &comb, 1, pp_read ? pp_read : pp,
	              cg_fmt(G, "(o * nch + %%s) * %d", ri->nslot), blk, 0);
	rprog P;
	memset(&P, 0, sizeof P);
	P.nvar = 3;
	P.conds[0] = "vec";
	P.L[0].variant = LV_VEC;
	P.conds[1] = "peel";
	P.L[1].variant = LV_PEEL;
	P.L[2].variant = LV_SCALAR;
	for (int k = 0; k < 3; k++) {
		P.L[k].lid = "tid";
		P.L[k].nl = cg_fmt(G, "%d", blk);
		P.L[k].r0 = "r0";
		P.L[k].r1 = "r1";
	}
	P.finish = 3;
	P.part = pp;
	P.pslot = cg_fmt(G, "(o * nch + ch) * %d", ri->nslot);
	P.first = out ? ri->npass + 1 : pass;
	P.last = out ? ri->npass : pass;
	P.outputs = out;
	P.rowguard = "ch == 0 && tid == 0";
	emit_sections(&em, ri, &P, &rowb, 1);
	em.vec = 4;
	const char *others = cg_guard_cond(&em);
	cg_guard_add(&em, em.rlen);
	const char *guard = cg_guard_cond(&em);
	int ok = !(G->fail >= 0 || G->err[0] || G->oom);
	if (ok) {
		cg_line(body, 0, "{");
		cg_line(body, 1, "const int tid = threadIdx.x;");
		cg_line(body, 1, "const long nch = (%s + %d) / %d;", em.rlen,
		        chunk - 1, chunk);
		if (blkx) {
			cg_line(body, 1, "const long blk = %s;", blkx);
		} else {
			cg_line(body, 1, "/* blocks numbered chunk-major; every other "
			        "pass walks them backwards, so it first reads what the "
			        "previous one read last (still in L2) */");
			cg_line(body, 1, "const long blk = %s;", pass % 2 ?
			        "blockIdx.x" : "(long)gridDim.x - 1 - blockIdx.x");
		}
		cg_line(body, 1, "const long ch = blk / %s, o = blk %% %s;", O, O);
		if (out && !ri->nfull && !blkx) {
			cg_line(body, 1, "if (ch != 0)");
			cg_line(body, 2, "return; /* only row-shape outputs */");
		}
		cg_line(body, 1, "const long rb = o * %s;", em.rlen);
		cg_line(body, 1, "const long r0 = ch * %d;", chunk);
		cg_line(body, 1, "const long r1 = min(%s, r0 + %d);", em.rlen, chunk);
		cg_line(body, 1, "const bool vec = %s;", guard);
		cg_line(body, 1, "const bool peel = %s;", others);
		cg_sb_cat(body, &l0);
		cg_sb_cat(body, &comb);
		cg_sb_cat(body, &rowb);
		cg_line(body, 0, "}");
		*Oo = O;
		*rleno = em.rlen;
	}
	if (l0.oom || comb.oom || rowb.oom)
		G->oom = 1;
	cg_sb_free(&l0);
	cg_sb_free(&comb);
	cg_sb_free(&rowb);
	cg_em_free(&em);
	return ok;
}

/* Multi strategy (inner == 1): a kernel per pass and one for the outputs;
 * blocks own chunks of rows and pass partials through scratch. Where the
 * outputs have the row's shape, the last pass's kernel writes them in its
 * tail (row.tail): the last of a row's blocks to finish. */
static void emit_multi(cg_gen *G, cg_kern *K, const rinfo *ri)
{
	int blk = ri->blk;
	int chunk = blk * 4 * MULTI_CHUNK_VECS;
	const char *part = cg_fmt(G, "k%d_part", K->id);
	cg_sb_printf(&G->bufs, "buffer %s f64 [%s, cdiv(%s, %d), %d]\n", part,
	             ri->otext, ri->rtext, chunk, ri->nslot);
	const char *grid = cg_fmt(G, "(%s) * cdiv(%s, %d)", ri->otext, ri->rtext,
	                          chunk);
	int tail = !ri->nfull && tail_take(G, ri->otext);
	for (int pass = 1; pass <= ri->npass + (tail ? 0 : 1); pass++) {
		int out = pass == ri->npass + 1;
		int last = tail && pass == ri->npass;
		const char *name = out ? cg_fmt(G, "k%d_out", K->id) :
		                   cg_fmt(G, "k%d_pass%d", K->id, pass);
		cg_args_reset(K);
		cg_sb body = { 0 };
		const char *O = NULL, *rlen = NULL;
		int ok = multi_body(G, K, ri, pass, out, NULL, NULL, &body, &O,
		                    &rlen);
		cg_sb tailb = { 0 };
		if (ok && last) {
			/* the tail: the outputs, by the row's last block */
			cg_sb outb = { 0 };
			cg_line(&tailb, 0, "{");
			cg_line(&tailb, 1, "/* the outputs: the last of row o's blocks "
			        "to finish writes them (a tail) */");
			cg_line(&tailb, 1, "const long krl_o = (%s) %% %s;", pass % 2 ?
			        "(long)blockIdx.x" :
			        "(long)gridDim.x - 1 - blockIdx.x", O);
			tail_gate(G, K, &tailb, "krl_o", cg_fmt(G, "(%s + %d) / %d",
			          rlen, chunk - 1, chunk), part);
			ok = multi_body(G, K, ri, ri->npass + 1, 1, "krl_o", "krl_pp",
			                &outb, &O, &rlen);
			tail_close(G, &tailb, &outb);
		}
		if (ok) {
			cg_sb whole = { 0 };
			tail_compose(&whole, &body, &tailb, last);
			finish_kernel(G, K, name,
			              out ? cg_fmt(G, "row, several blocks per row "
			                           "(chunks of %d): the outputs",
			                           chunk) :
			              last ? cg_fmt(G, "row, several blocks per row "
			                            "(chunks of %d): pass %d of %d, "
			                            "partials to %s; the last block of "
			                            "a row writes its outputs", chunk,
			                            pass, ri->npass, part) :
			                     cg_fmt(G, "row, several blocks per row "
			                            "(chunks of %d): pass %d of %d, "
			                            "partials to %s", chunk, pass,
			                            ri->npass, part),
			              blk, &whole, grid, cg_fmt(G, "%d", blk));
			if (whole.oom)
				G->oom = 1;
			cg_sb_free(&whole);
		}
		if (body.oom || tailb.oom)
			G->oom = 1;
		cg_sb_free(&body);
		cg_sb_free(&tailb);
		if (!ok)
			return;
	}
}

/* The shared memory col_finish combines the reductions of pass (0: all)
 * through, for ty rows of threads. */
static void col_smem(cg_gen *G, const rinfo *ri, int pass, int ty, cg_sb *b)
{
	int nd = 0, nf = 0, nl = 0;
	for (int j = 0; j < ri->nred; j++) {
		if (pass && ri->pass[j] != pass)
			continue;
		krl_redop op = G->g->n[ri->red[j]].red;
		if (op == KRL_RED_SUM || op == KRL_RED_PROD)
			nd = 1;
		else
			nf = 1;
		if (cg_red_is_arg(op))
			nl = 1;
	}
	if (nd)
		cg_line(b, 1, "__shared__ double krl_cd[%d][33];", ty);
	if (nf)
		cg_line(b, 1, "__shared__ float krl_cf[%d][33];", ty);
	if (nl)
		cg_line(b, 1, "__shared__ long long krl_cl[%d][33];", ty);
}

/* The coordinates of a column kernel in a channels-last leaf's memory
 * order (perm 2), from op and cp (its row and column there, PI columns):
 * memory column cp is (s after the run, channel), op is (n, s before
 * it); the NCHW row o and column c, the NCHW index rb of (o, 0, c) and the
 * memory index pb of (op, 0, cp). */
static void perm_coords(cg_em *em, const rinfo *ri, cg_sb *b, const char *PI)
{
	cg_gen *G = em->G;
	const char *C = cg_arg_long(G, em->K, ri->ctext);
	if (!strcmp(ri->stext, "1")) {
		cg_line(b, 2, "const long o = op * %s + krl_mod(cp, %s);", C, C);
	} else {
		const char *SP = cg_arg_long(G, em->K, ri->stext);
		cg_line(b, 2, "const long o = (krl_div(op, %s) * %s + krl_mod(cp, "
		        "%s)) * %s + krl_mod(op, %s);", SP, C, C, SP, SP);
	}
	G->need |= CG_NEED_DIV;
	if (ri->inner1) {
		cg_line(b, 2, "const long rb = o * %s;", em->rlen);
	} else {
		cg_line(b, 2, "const long c = krl_div(cp, %s);", C);
		cg_line(b, 2, "const long rb = o * %s * %s + c;", em->rlen,
		        em->rinner);
	}
	cg_line(b, 2, "const long pb = op * %s * %s + cp;", em->rlen, PI);
}

/* The body of one kernel of emit_cols_split into body: the column
 * partials of pass (or, out, the outputs) of the blocks numbered bx (an
 * expression; NULL: blockIdx.x, in the out kernel's numbering where out).
 * pp_read: the partials as the combine reads them (NULL: the parameter).
 * 0 when generation failed. */
static int split_body(cg_gen *G, cg_kern *K, const rinfo *ri, int pass,
                      int out, int64_t ch, const char *bx,
                      const char *pp_read, cg_sb *body, const char **PIo,
                      const char **rleno)
{
	int ty = ri->blk / 32;
	const char *part = cg_fmt(G, "k%d_part", K->id);
	cg_em em;
	cg_em_init(&em, G, K);
	/* at most 16 columns at the set generated for: each warp's lanes
	 * take cs = 32 / cw rows of cw columns (cw the columns rounded up
	 * to a power of two, at run time), not one row with lanes past the
	 * columns idle: 60's group-norm statistics over 16 channels read a
	 * channels-last y at 0.68 TB/s (H100) with half the lanes idle */
	em.colpack = ri->pival <= 16 && ty > 1;
	cg_sb l0 = { 0 }, comb = { 0 }, rowb = { 0 };
	em.buf[0] = &l0;
	em.ind[0] = 1;
	const char *O, *I;
	row_names(&em, ri, &O, &I);
	const char *PI = cg_arg_long(G, K, ri->pitext);
	if (ri->perm) {
		em.pb = "pb";
		em.pstride = PI;
	}
	const char *pp = cg_arg_named(G, K, part, out ?
	                              "const double *__restrict__" :
	                              "double *__restrict__");
	const char *slot0 = cg_fmt(G, "((op * nch + %%s) * %s + cp) * %d",
	                           PI, ri->nslot);
	/* each thread combines its column's partials of earlier passes */
	em.buf[1] = &comb;
	em.ind[1] = 2;
	combine_parts(&em, ri, pass, &comb, 2, pp_read ? pp_read : pp, slot0,
	              0, ty);
	rprog P;
	memset(&P, 0, sizeof P);
	P.nvar = 1;
	P.L[0].variant = LV_COL;
	P.L[0].ty = ty;
	P.L[0].r0 = "r0";
	P.L[0].r1 = "r1";
	P.finish = 4;
	P.part = pp;
	P.pslot = cg_fmt(G, slot0, "ch");
	P.first = out ? ri->npass + 1 : pass;
	P.last = out ? ri->npass : pass;
	P.outputs = out;
	P.rowguard = em.colpack ? "valid && cy == 0" : "valid && ty == 0";
	emit_sections(&em, ri, &P, &rowb, 2);
	int ok = !(G->fail >= 0 || G->err[0] || G->oom);
	if (ok) {
		const char *b = bx ? bx : "blockIdx.x";
		cg_line(body, 0, "{");
		/* every pass's slots: the combine of the earlier passes' and
		 * the outputs' partials goes through them too */
		col_smem(G, ri, 0, ty, body);
		cg_sb_cat(body, &l0);
		cg_line(body, 1, "const int tx = threadIdx.x, ty = threadIdx.y;");
		if (em.colpack) {
			cg_line(body, 1, "/* packed: cw lanes a column group (its "
			        "columns rounded up to a power of two, at most 32), "
			        "cs rows a warp */");
			cg_line(body, 1, "const int cw = %s >= 32 ? 32 : 1 << (32 - "
			        "__clz((int)%s - 1));", PI, PI);
			cg_line(body, 1, "const int cs = 32 / cw, cx = tx & (cw - 1), "
			        "cy = ty * cs + tx / cw;");
		}
		cg_line(body, 1, "const long ncb = (%s + 31) / 32;", PI);
		cg_line(body, 1, "const long nch = (%s + %lld) / %lld;", em.rlen,
		        (long long)ch - 1, (long long)ch);
		cg_line(body, 1, "{");
		cg_line(body, 2, "/* block (op, column group, chunk)%s */",
		        out ? "; the outputs: chunk 0 only" : "");
		cg_line(body, 2, "const long cg = %s %% ncb, t = %s / ncb;", b, b);
		if (out)
			cg_line(body, 2, "const long ch = 0, op = t;");
		else
			cg_line(body, 2, "const long ch = t %% nch, op = t / nch;");
		cg_line(body, 2, "const long r0 = ch * %lld;", (long long)ch);
		cg_line(body, 2, "const long r1 = min(%s, r0 + %lld);", em.rlen,
		        (long long)ch);
		cg_line(body, 2, "const long cc = cg * 32 + %s;", em.colpack ?
		        "cx" : "tx");
		cg_line(body, 2, "const bool valid = cc < %s;", PI);
		cg_line(body, 2, "const long cp = valid ? cc : %s - 1;", PI);
		if (ri->perm) {
			perm_coords(&em, ri, body, PI);
		} else {
			cg_line(body, 2, "const long o = op, c = cp;");
			cg_line(body, 2, "const long rb = o * %s * %s + c;", em.rlen,
			        I);
		}
		cg_sb_cat(body, &comb);
		cg_sb_cat(body, &rowb);
		cg_line(body, 1, "}");
		cg_line(body, 0, "}");
		*PIo = PI;
		*rleno = em.rlen;
	}
	if (l0.oom || comb.oom || rowb.oom)
		G->oom = 1;
	cg_sb_free(&l0);
	cg_sb_free(&comb);
	cg_sb_free(&rowb);
	cg_em_free(&em);
	return ok;
}

/* The blocks of 32 columns a column kernel has: in the memory of a
 * channels-last leaf (perm 2), or NCHW's. */
static double col_blocks(const cg_gen *G, const cg_kern *K, const rinfo *ri)
{
	const krl_gnode *sp = &G->g->n[K->space];
	if (ri->perm)
		return cg_cl_col_blocks(sp, K->ax0, K->ax1);
	return (double)prod_val(sp, 0, K->ax0) *
	       ceil((double)prod_val(sp, K->ax1, sp->ndim) / 32);
}

/* Whether an NCHW column kernel (perm 0) splits its run (emit_cols_split):
 * a long run over fewer than CG_CL_MIN_BLOCKS column blocks, where each
 * block would walk it alone, and outputs of the row shape only (46's batch norm over 204,800 rows of 48
 * columns: 2 blocks, 2.7x the reference's time). */
static int split_pays(const cg_gen *G, const cg_kern *K, const rinfo *ri)
{
	return !ri->perm && !ri->inner1 && !ri->nfull &&
	       ri->rval >= CG_SPLIT_MIN_R &&
	       col_blocks(G, K, ri) < CG_CL_MIN_BLOCKS;
}

/*
 * Fewer than CG_CL_MIN_BLOCKS column blocks over a long run (a block would
 * walk its whole run alone: batch norm's statistics over 16 samples of a
 * channels-last input, perm 2; or over NCHW's rows, split_pays):
 * the run split into chunks of CH rows, one kernel per pass whose blocks
 * (row, column group, chunk) write their columns' partials (double) to
 * scratch, the next pass's threads combining them for their column, and
 * a last kernel that combines all and writes the row-shape outputs; with
 * row.tail, the last pass's kernel writes them instead, in the last
 * block of each (row, column group) to finish its chunk.
 */
static void emit_cols_split(cg_gen *G, cg_kern *K, const rinfo *ri)
{
	int blk = ri->blk, ty = blk / 32;
	/* chunks enough for 4096 blocks, at least 4 rows per thread: with
	 * 1024, level 2's 52's batch-norm statistics (256 column blocks,
	 * chunks of 4000 rows) ran 1.55 waves and were latency-bound (ncu:
	 * no eligible warp 68% of cycles); chunks of 992 took them 0.470 ->
	 * 0.431 ms on the H100 (2026-12-07) */
	double nb = col_blocks(G, K, ri);
	double want = ceil(4096.0 / (nb > 1 ? nb : 1));
	int64_t ch = (int64_t)ceil((double)ri->rval / want);
	int64_t step = 4 * ty;
	ch = (ch + step - 1) / step * step;
	if (ch < step)
		ch = step;
	const char *part = cg_fmt(G, "k%d_part", K->id);
	cg_sb_printf(&G->bufs, "buffer %s f64 [%s, cdiv(%s, %lld), %s, %d]\n",
	             part, ri->potext, ri->rtext, (long long)ch, ri->pitext,
	             ri->nslot);
	int tail = tail_take(G, cg_fmt(G, "(%s) * cdiv(%s, 32)", ri->potext,
	                               ri->pitext));
	for (int pass = 1; pass <= ri->npass + (tail ? 0 : 1); pass++) {
		int out = pass == ri->npass + 1;
		int last = tail && pass == ri->npass;
		const char *name = out ? cg_fmt(G, "k%d_out", K->id) :
		                   cg_fmt(G, "k%d_pass%d", K->id, pass);
		cg_args_reset(K);
		cg_sb body = { 0 };
		const char *PI = NULL, *rlen = NULL;
		int ok = split_body(G, K, ri, pass, out, ch, NULL, NULL, &body, &PI,
		                    &rlen);
		cg_sb tailb = { 0 };
		if (ok && last) {
			/* the tail: the outputs, by the group's last block */
			cg_sb outb = { 0 };
			cg_line(&tailb, 0, "{");
			cg_line(&tailb, 1, "/* the outputs: the last of the group's "
			        "blocks (row, column group) to finish its chunk writes "
			        "them (a tail) */");
			cg_line(&tailb, 1, "const long krl_ncb = (%s + 31) / 32, krl_nch "
			        "= (%s + %lld) / %lld;", PI, rlen, (long long)ch - 1,
			        (long long)ch);
			cg_line(&tailb, 1, "const long krl_g = (long)blockIdx.x / krl_ncb "
			        "/ krl_nch * krl_ncb + (long)blockIdx.x %% krl_ncb;");
			tail_gate(G, K, &tailb, "krl_g", "krl_nch", part);
			ok = split_body(G, K, ri, ri->npass + 1, 1, ch, "krl_g",
			                "krl_pp", &outb, &PI, &rlen);
			tail_close(G, &tailb, &outb);
		}
		if (ok) {
			cg_sb whole = { 0 };
			tail_compose(&whole, &body, &tailb, last);
			const char *of = ri->perm ? " of a channels-last input's "
			                 "memory" : "";
			const char *how = out ?
				cg_fmt(G, "row over a middle axis%s, the run split into "
				       "chunks of %lld rows: the outputs", of,
				       (long long)ch) :
				cg_fmt(G, "row over a middle axis%s, the run split into "
				       "chunks of %lld rows: pass %d of %d, column partials "
				       "to %s%s", of,
				       (long long)ch, pass, ri->npass, part, last ?
				       "; the last block of a group writes its outputs" :
				       "");
			cg_prev pv = { 0 };
			pv.dev0 = G->dev.len;
			pv.plan0 = G->plan.len;
			finish_kernel(G, K, name, how, blk, &whole,
			              out ? cg_fmt(G, "(%s) * cdiv(%s, 32)", ri->potext,
			                           ri->pitext) :
			                    cg_fmt(G, "(%s) * cdiv(%s, 32) * cdiv(%s, "
			                           "%lld)", ri->potext, ri->pitext,
			                           ri->rtext, (long long)ch),
			              cg_fmt(G, "32, %d", ty));
			if (last) {
				/* the groups' last blocks may run a small kernel
				 * after this one (fold_tail), with the ticket after
				 * theirs */
				const char *ng = cg_fmt(G, "((long)gridDim.x / ((%s + "
				                        "%lld) / %lld))", rlen,
				                        (long long)ch - 1, (long long)ch);
				pv.form = 2;
				pv.threads = blk;
				pv.dev1 = G->dev.len;
				pv.plan1 = G->plan.len;
				pv.count = ng;
				pv.slot = ng;
				pv.need = cg_fmt(G, "(%s) * cdiv(%s, 32) + 1", ri->potext,
				                 ri->pitext);
				G->prev = pv;
			}
			if (whole.oom)
				G->oom = 1;
			cg_sb_free(&whole);
		}
		if (body.oom || tailb.oom)
			G->oom = 1;
		cg_sb_free(&body);
		cg_sb_free(&tailb);
		if (!ok)
			return;
	}
}

/* z with every whole-word occurrence of from replaced by to, appended to
 * o (the fold's renaming of a kernel's block and thread indices). */
static void replace_into(cg_sb *o, const char *z, const char *from,
                         const char *to)
{
	size_t n = strlen(from);
	for (const char *p = z; *p;) {
		const char *q = strstr(p, from);
		if (!q) {
			cg_sb_puts(o, p);
			break;
		}
		cg_sb_printf(o, "%.*s", (int)(q - p), p);
		/* boundaries matter where from starts or ends with a name's
		 * character */
		int idf = isalnum((unsigned char)from[0]) || from[0] == '_';
		int idl = isalnum((unsigned char)from[n - 1]) ||
		          from[n - 1] == '_';
		int word = (!idf || q == z || !(isalnum((unsigned char)q[-1]) ||
		                                q[-1] == '_')) &&
		           (!idl || !(isalnum((unsigned char)q[n]) ||
		                      q[n] == '_'));
		cg_sb_puts(o, word ? to : from);
		p = q + n;
	}
}

/* Whether K, a column kernel of cw threads (a thread per column) just
 * written from dev offset d0 and plan offset p0, may run in the tail of
 * the kernel written right before it: that one offers its tail
 * (G->prev), has as many threads, and K is a few blocks of short columns
 * at the set generated for (at most 8 blocks, 64 rows). */
static int fold_fits(const cg_gen *G, const cg_kern *K, const rinfo *ri,
                     int cw, size_t d0, size_t p0)
{
	const cg_prev *pv = &G->prev;
	if (!pv->form || pv->dev1 != d0 || pv->plan1 != p0 ||
	    pv->threads != cw || ri->rval > 64)
		return 0;
	const krl_gnode *sp = &G->g->n[K->space];
	double outer = 1, inner = 1;
	for (int k = 0; k < sp->ndim; k++) {
		double v = sp->dim[k].val > 0 ? (double)sp->dim[k].val : 1;
		if (k < K->ax0)
			outer *= v;
		else if (k >= K->ax1)
			inner *= v;
	}
	return outer * ceil(inner / cw) <= 8;
}

/*
 * The kernel K just wrote (its text from dev offset d0, its launch from
 * plan offset p0: a grid-stride loop over blocks, blk threads) runs in
 * the tail of the kernel before it (G->prev) instead of on its own: the
 * last block to finish that kernel (form 1), or the last of its groups'
 * last blocks (form 2), runs K's code as one block that walks every
 * block of K's grid (blockIdx.x 0, gridDim.x 1), its threads numbered
 * across the block's x and y. K's code becomes a device function, its
 * parameters the earlier kernel's last ones (renamed p_f<id>_...), its
 * launch's arguments that launch's last. Fine where K's grid is a few
 * blocks of small work: batch norm's statistics over the batch after
 * each sample's (the column kernel over N rows of C after the row
 * kernel, or the channels-last statistics kernel's tails): one launch
 * fewer per batch norm.
 */
static void fold_tail(cg_gen *G, cg_kern *K, size_t d0, size_t p0)
{
	cg_prev *pv = &G->prev;
	const char *dev = G->dev.z, *plan = G->plan.z;
	const char *kname = cg_fmt(G, "k%d_col", K->id);
	/* K's definition: comment, signature, body */
	const char *sig = strstr(dev + d0, "extern \"C\" __global__");
	const char *par = sig ? strstr(sig, cg_fmt(G, "\n%s(", kname)) : NULL;
	const char *pend = par ? strstr(par, ")\n{") : NULL;
	/* the earlier kernel's signature end and body end */
	const char *psig = strstr(dev + pv->dev0, "extern \"C\" __global__");
	const char *ppend = psig ? strstr(psig, ")\n{") : NULL;
	/* the launches' argument lists end with ")\n" */
	if (!sig || !par || !pend || !psig || !ppend ||
	    (size_t)(ppend - dev) > pv->dev1 || pv->plan1 < 2 ||
	    strncmp(plan + pv->plan1 - 2, ")\n", 2) ||
	    strncmp(G->plan.z + G->plan.len - 2, ")\n", 2))
		return;
	const char *largs = strstr(plan + p0, " args(");
	if (!largs)
		return;
	/* K's parameters ("type name" separated by ",\n\t") without
	 * __restrict__: the earlier kernel writes what they read, in the same
	 * launch */
	cg_sb fn = { 0 }, params = { 0 }, callargs = { 0 }, kd = { 0 };
	cg_sb npl = { 0 }, sp = { 0 }, tmp = { 0 };
	const char *p0k = par + 1 + strlen(kname) + 1;
	cg_sb_printf(&tmp, "%.*s", (int)(pend - p0k), p0k);
	replace_into(&sp, tmp.z ? tmp.z : "", "__restrict__ ", "");
	cg_sb_free(&tmp);
	const char *sz = sp.z ? sp.z : "", *send = sz + strlen(sz);
	int nparam = 0;
	for (const char *p = sz; p < send;) {
		const char *e = strstr(p, ",\n\t");
		if (!e)
			e = send;
		const char *nm = e;
		while (nm > p && (isalnum((unsigned char)nm[-1]) || nm[-1] == '_'))
			nm--;
		cg_sb_printf(&params, ",\n\t%.*sp_f%d_%.*s", (int)(nm - p), p,
		             K->id, (int)(e - nm), nm);
		cg_sb_printf(&callargs, ", p_f%d_%.*s", K->id, (int)(e - nm), nm);
		nparam++;
		p = e == send ? send : e + 3;
	}
	/* the device function: K's text with those parameters, its indices
	 * those of one block walking the grid */
	static const char *const ren[][2] = { { "threadIdx.x", "krl_vt" },
		{ "blockIdx.x", "0" }, { "gridDim.x", "1" } };
	cg_sb_printf(&fn, "%.*s", (int)(sig - (dev + d0)), dev + d0);
	cg_sb_printf(&fn, "static __device__ __forceinline__ void\n%s_tail(int "
	             "krl_vt,\n\t", kname);
	cg_sb_printf(&tmp, "%s%s", sz, pend);
	for (int i = 0; i < 3; i++) {
		cg_sb o = { 0 };
		replace_into(i == 2 ? &fn : &o, tmp.z ? tmp.z : "", ren[i][0],
		             ren[i][1]);
		cg_sb_free(&tmp);
		tmp = o;
	}
	if (sp.oom)
		G->oom = 1;
	cg_sb_free(&sp);
	/* the earlier kernel with K's parameters and the call in its tail */
	const char *tk = "p_krl_tk";
	int has_tk = pv->form == 2; /* a kernel with tails has the ticket */
	cg_sb_printf(&kd, "%.*s", (int)(ppend - psig), psig);
	if (!has_tk)
		cg_sb_printf(&kd, ",\n\tint *__restrict__ %s", tk);
	cg_sb_printf(&kd, "%s", params.z ? params.z : "");
	/* the body up to its closing brace, then the tail */
	const char *bend = dev + pv->dev1 - 2; /* "}\n" */
	cg_sb_printf(&kd, "%.*s", (int)(bend - ppend), ppend);
	cg_sb_printf(&kd, "\t/* a column kernel's code, by the last block to "
	             "finish (a tail) */\n");
	cg_sb_printf(&kd, "\tif (!krl_tail_last(%s + %s, %s))\n\t\treturn;\n",
	             tk, pv->slot, pv->count);
	cg_sb_printf(&kd, "\t%s_tail(threadIdx.x + 32 * threadIdx.y%s);\n}\n",
	             kname, callargs.z ? callargs.z : "");
	/* the launch: the earlier one's arguments, then K's */
	cg_sb_printf(&npl, "%.*s", (int)(pv->plan1 - 2 - pv->plan0),
	             plan + pv->plan0);
	if (!has_tk)
		cg_sb_puts(&npl, ",\n    krl_tk");
	const char *a = largs + strlen(" args(");
	cg_sb_printf(&npl, ",\n    %.*s", (int)(G->plan.z + G->plan.len - 2 - a),
	             a);
	cg_sb_puts(&npl, ")\n");
	int oom = fn.oom || params.oom || callargs.oom || kd.oom || npl.oom;
	if (oom) {
		G->oom = 1;
	} else if (nparam) {
		cg_sb ndev = { 0 };
		cg_sb_printf(&ndev, "%.*s", (int)pv->dev0, dev);
		cg_sb_cat(&ndev, &fn);
		cg_sb_printf(&ndev, "%.*s", (int)(psig - (dev + pv->dev0)),
		             dev + pv->dev0);
		cg_sb_cat(&ndev, &kd);
		cg_sb nplan = { 0 };
		cg_sb_printf(&nplan, "%.*s", (int)pv->plan0, plan);
		cg_sb_cat(&nplan, &npl);
		if (ndev.oom || nplan.oom) {
			G->oom = 1;
			cg_sb_free(&ndev);
			cg_sb_free(&nplan);
		} else {
			cg_sb_free(&G->dev);
			G->dev = ndev;
			cg_sb_free(&G->plan);
			G->plan = nplan;
			tail_need(G, pv->need);
			G->nfold++;
		}
	}
	memset(pv, 0, sizeof *pv);
	cg_sb_free(&fn);
	cg_sb_free(&params);
	cg_sb_free(&callargs);
	cg_sb_free(&kd);
	cg_sb_free(&npl);
}

/* inner > 1: 32 columns per block, rows of threads split R; or, with
 * row.colthread where R is short (CG_COL_THREAD_R at the set generated
 * for), a thread per column, blk columns per block, each thread walking
 * its whole column (no shared-memory combine). */
static void emit_cols(cg_gen *G, cg_kern *K, const rinfo *ri)
{
	int blk = ri->blk;
	G->cols_short += ri->rval <= CG_COL_THREAD_R;
	const int tpc = G->s.row_colthread && ri->rval <= CG_COL_THREAD_R &&
	                !ri->tile;
	const int ty = tpc ? 1 : blk / 32, cw = tpc ? blk : 32;
	const char *name = cg_fmt(G, "k%d_col", K->id);
	cg_em em;
	cg_em_init(&em, G, K);
	cg_sb l0 = { 0 }, rowb = { 0 }, body = { 0 };
	em.buf[0] = &l0;
	em.ind[0] = 1;
	const char *O, *I;
	row_names(&em, ri, &O, &I);
	/* the columns: NCHW's inner, or (perm) the leaf's memory inner */
	const char *pot = ri->potext, *pit = ri->pitext;
	const char *PO = cg_arg_long(G, K, pot), *PI = cg_arg_long(G, K, pit);
	if (ri->perm) {
		em.pb = "pb";
		em.pstride = PI;
	}
	rprog P;
	memset(&P, 0, sizeof P);
	P.nvar = 1;
	P.L[0].variant = LV_COL;
	P.L[0].ty = ty;
	P.finish = 2;
	P.first = 1;
	P.last = ri->npass;
	P.outputs = 1;
	P.rowguard = "valid && ty == 0";
	emit_sections(&em, ri, &P, &rowb, 2);
	if (G->fail >= 0 || G->err[0] || G->oom)
		goto done;
	cg_line(&body, 0, "{");
	if (!tpc)
		col_smem(G, ri, 0, ty, &body);
	if (ri->tile) {
		/* the block's 32 columns' outputs, a row of tilep each, and
		 * each column's NCHW row (-1: no column) */
		for (int k = 0; k < ri->nfull; k++)
			cg_line(&body, 1, "__shared__ float tl%d[%d];", k,
			        32 * ri->tilep);
		cg_line(&body, 1, "__shared__ long tlo[32];");
		cg_line(&body, 1, "const bool tiled = %s <= %d;", em.rlen, ri->tilec);
	}
	cg_sb_cat(&body, &l0);
	cg_line(&body, 1, "const int tx = threadIdx.x, ty = %s;",
	        tpc ? "0" : "threadIdx.y");
	const char *ov = ri->perm ? "op" : "o", *cv = ri->perm ? "cp" : "c";
	cg_line(&body, 1, "const long ncb = (%s + %d) / %d;", PI, cw - 1, cw);
	cg_line(&body, 1, "for (long blk = blockIdx.x; blk < %s * ncb; blk += "
	        "gridDim.x) {", PO);
	/* 32-bit division where the values fit, as in the row kernels, here
	 * once for a column's few elements */
	cg_line(&body, 2, "const long %s = krl_div(blk, ncb);", ov);
	cg_line(&body, 2, "const long cc = krl_mod(blk, ncb) * %d + tx;", cw);
	G->need |= CG_NEED_DIV;
	cg_line(&body, 2, "const bool valid = cc < %s;", PI);
	cg_line(&body, 2, "/* past the last column: compute the last one's "
	        "values (in bounds), store nothing */");
	cg_line(&body, 2, "const long %s = valid ? cc : %s - 1;", cv, PI);
	if (ri->perm) {
		perm_coords(&em, ri, &body, PI);
	} else {
		cg_line(&body, 2, "const long rb = o * %s * %s + c;", em.rlen, I);
	}
	cg_sb_cat(&body, &rowb);
	if (ri->tile) {
		/* the tile out: each row of threads (a warp) takes columns, its
		 * lanes 32 neighbouring elements of one's NCHW run */
		cg_line(&body, 2, "if (tiled) {");
		cg_line(&body, 3, "if (ty == 0)");
		cg_line(&body, 4, "tlo[tx] = valid ? o : -1;");
		cg_line(&body, 3, "__syncthreads();");
		cg_line(&body, 3, "for (int j = ty; j < 32; j += %d) {", ty);
		cg_line(&body, 4, "const long oj = tlo[j];");
		cg_line(&body, 4, "if (oj < 0)");
		cg_line(&body, 5, "continue;");
		cg_line(&body, 4, "for (long r = tx; r < %s; r += 32) {", em.rlen);
		for (int k = 0; k < ri->nfull; k++)
			cg_line(&body, 5, "%s[oj * %s + r] = tl%d[j * %d + r];",
			        cg_arg_buf(G, K, ri->full[k], 1), em.rlen, k,
			        ri->tilep);
		cg_line(&body, 4, "}");
		cg_line(&body, 3, "}");
		cg_line(&body, 3, "__syncthreads();");
		cg_line(&body, 2, "}");
	}
	cg_line(&body, 1, "}");
	cg_line(&body, 0, "}");
	size_t d0 = G->dev.len, p0 = G->plan.len;
	finish_kernel(G, K, name,
	              cg_fmt(G, "row over a middle axis: %s, %d pass%s%s%s",
	                     tpc ? cg_fmt(G, "a thread per column, %d columns "
	                                  "per block", cw)
	                         : cg_fmt(G, "32 columns x %d rows of threads "
	                                  "per block", ty), ri->npass,
	                     ri->npass == 1 ? "" : "es",
	                     ri->perm ? "; the columns of a channels-last input's "
	                     "memory (spatial positions after the reduced axes, "
	                     "then channels)" : "",
	                     ri->tile ? "; full-shape outputs through a "
	                     "shared-memory tile of the block's columns" : ""),
	              blk, &body,
	              cg_fmt(G, "min((%s) * cdiv(%s, %d), sm_count * %d)", pot,
	                     pit, cw, tpc ? 2048 / cw : 32),
	              cg_fmt(G, "%d, %d", cw, ty));
	/* counted for the decision whether or not a thread per column
	 * (row.colthread, which folding needs) is chosen */
	if (!ri->perm && fold_fits(G, K, ri, blk, d0, p0)) {
		G->rows_tail++;
		if (G->s.row_tail && tpc)
			fold_tail(G, K, d0, p0);
	}
done:
	if (l0.oom || rowb.oom || body.oom)
		G->oom = 1;
	cg_sb_free(&l0);
	cg_sb_free(&rowb);
	cg_sb_free(&body);
	cg_em_free(&em);
}

/* ==== The wide column kernel ==== */

/* One step of a column kernel's combine of shared-memory slots: a, the
 * accumulator, takes slot e by the plain reduction op. */
static void slot_combine(cg_sb *b, int ind, krl_redop op, const char *a,
                         const char *e)
{
	if (op == KRL_RED_SUM)
		cg_line(b, ind, "%s += %s;", a, e);
	else if (op == KRL_RED_PROD)
		cg_line(b, ind, "%s *= %s;", a, e);
	else
		cg_line(b, ind, "%s = %s(%s, %s);", a,
		        op == KRL_RED_MAX ? "krl_maxf" : "krl_minf", a, e);
}

#define WIDE_W 4   /* columns per lane, 32 apart */
#define WIDE_TY 16 /* rows of threads */
#define WIDE_U 16  /* rows in flight per lane */

/* Whether the wide layout applies: one sum, product, max or min of an f32
 * task buffer over the middle axes, whose outputs are all of the row
 * shape. */
static int wide_ok(cg_gen *G, const rinfo *ri)
{
	const krl_graph *g = G->g;
	if (ri->inner1 || ri->nred != 1 || ri->npass != 1 || ri->nfull)
		return 0;
	const krl_gnode *r = &g->n[ri->red[0]];
	const krl_gnode *x = &g->n[r->in[0]];
	return !cg_red_is_arg(r->red) && x->kind == KRL_GN_BUF &&
	       x->dtype == KRL_F32;
}

/*
 * inner > 1, one plain reduction (wide_ok): a block of 32 x WIDE_TY
 * threads owns 32 * WIDE_W neighbouring columns of one outer index; lane
 * tx reads columns tx, tx + 32, ..., so a warp reads 32 * WIDE_W
 * contiguous elements of a row per step, and WIDE_U rows are in flight
 * per lane. The rows of threads are combined through shared memory, and
 * the first 32 * WIDE_W threads each finish one column. One block per
 * (outer index, column group): no grid-stride loop. The layout of the
 * hand-written example of 47, measured at kb1 at 1.077x against the
 * library's 1.000x and the 32-column kernel's 0.955x
 * (bench/results/2026-11-30-h200-issue2); this generated form has not
 * run on a GPU yet (docs/optimizer.md, row.cols).
 */
static void emit_cols_wide(cg_gen *G, cg_kern *K, const rinfo *ri)
{
	const krl_graph *g = G->g;
	int rn = ri->red[0], x = g->n[rn].in[0];
	krl_redop op = g->n[rn].red;
	int dbl = op == KRL_RED_SUM || op == KRL_RED_PROD;
	const int cols = 32 * WIDE_W;
	const char *name = cg_fmt(G, "k%d_colw", K->id);
	const char *idx[4];
	cg_em em;
	cg_em_init(&em, G, K);
	/* the emitter writes only the outputs' code (loads and steps are
	 * written below): kernel-level values, the column's, its stores */
	cg_sb l0 = { 0 }, mainb = { 0 }, tail = { 0 };
	cg_sb sec = { 0 }, st = { 0 }, body = { 0 };
	em.buf[0] = &l0;
	em.ind[0] = 1;
	em.buf[1] = &sec;
	em.ind[1] = 2;
	em.buf[2] = &st;
	em.ind[2] = 2;
	const char *O, *I;
	row_names(&em, ri, &O, &I);
	G->need |= CG_NEED_RED;
	for (int q = 0; q < 4; q++)
		idx[q] = "r"; /* unused: no arg reductions here */

	/* The loads are written here, not through cg_ev (the input is a task
	 * buffer): each is guarded by its column, as in the hand-written
	 * kernel, which keeps the compiler from moving it down to its add;
	 * unguarded, the kernel kept a few loads in flight instead of all of
	 * them and read 0.75x against 1.08x on 47 at kb1. */
	const char *xp = cg_arg_buf(G, K, x, 0);
	cg_line(&mainb, 2, "float v[%d][%d];", WIDE_U, WIDE_W);
	cg_line(&mainb, 2, "#pragma unroll");
	cg_line(&mainb, 2, "for (int k = 0; k < %d; k++)", WIDE_U);
	cg_line(&mainb, 3, "#pragma unroll");
	cg_line(&mainb, 3, "for (int w = 0; w < %d; w++) {", WIDE_W);
	cg_line(&mainb, 4, "const long cw = cb + 32 * w + tx;");
	cg_line(&mainb, 4, "v[k][w] = cw < %s ? xr[(r + k * %d) * %s + cw] : "
	        "0.f;", I, WIDE_TY, I);
	cg_line(&mainb, 3, "}");
	for (int w = 0; w < WIDE_W; w++)
		for (int k = 0; k < WIDE_U; k += 4) {
			const char *vk[4];
			for (int q = 0; q < 4; q++)
				vk[q] = cg_fmt(G, "v[%d][%d]", k + q, w);
			cg_acc_step(&mainb, 2, op, cg_fmt(G, "acc%d", w), vk, idx, 4);
		}
	/* the rows left: one at a time */
	for (int w = 0; w < WIDE_W; w++) {
		const char *vt = cg_fmt(G, "t%d", w);
		cg_line(&tail, 2, "const float %s = c%d < %s ? xr[r * %s + c%d] : "
		        "0.f;", vt, w, I, I, w);
		cg_acc_step(&tail, 2, op, cg_fmt(G, "acc%d", w), &vt, idx, 1);
	}

	/* the column's value, then the outputs of the row shape (row_names
	 * named the column c; its row starts at o * R * I + c) */
	em.rb = cg_fmt(G, "(o * %s * %s + c)", em.rlen, I);
	const char *rv = cg_name(G, "r");
	cg_val v = { rv, 'f' };
	cg_em_set_reduce(&em, rn, v);
	for (int o = 0; o < ri->nrowo; o++) {
		int n = ri->rowo[o];
		cg_point p;
		memset(&p, 0, sizeof p);
		p.space = n;
		p.lin = cg_fmt(G, "(o * %s + c)", I);
		p.inrow = 1;
		p.rowlevel = 1;
		cg_val ov = cg_ev(&em, n, &p);
		if (!ov.e)
			goto done;
		cg_store(&em, 2, n, p.lin, ov);
	}
	if (G->fail >= 0 || G->err[0] || G->oom)
		goto done;

	const char *at = dbl ? "double" : "float";
	cg_line(&body, 0, "{");
	cg_line(&body, 1, "__shared__ %s krl_cw[%d][%d];", at, WIDE_TY, cols + 1);
	cg_sb_cat(&body, &l0);
	cg_line(&body, 1, "const int tx = threadIdx.x, ty = threadIdx.y;");
	cg_line(&body, 1, "const long ncb = (%s + %d) / %d;", I, cols - 1, cols);
	cg_line(&body, 1, "const long o = (long)blockIdx.x / ncb;");
	cg_line(&body, 1, "const long cb = ((long)blockIdx.x %% ncb) * %d;", cols);
	cg_line(&body, 1, "const float *xr = %s + o * %s * %s;", xp, em.rlen, I);
	for (int w = 0; w < WIDE_W; w++) {
		cg_line(&body, 1, "const long c%d = cb + %d + tx; /* >= %s: "
		        "read nothing, kept by no one */", w, 32 * w, I);
		cg_acc_decl(&body, 1, op, cg_fmt(G, "acc%d", w));
	}
	cg_line(&body, 1, "long r = ty;");
	cg_line(&body, 1, "for (; r + %d < %s; r += %d) {", (WIDE_U - 1) * WIDE_TY,
	        em.rlen, WIDE_U * WIDE_TY);
	cg_sb_cat(&body, &mainb);
	cg_line(&body, 1, "}");
	cg_line(&body, 1, "for (; r < %s; r += %d) {", em.rlen, WIDE_TY);
	cg_sb_cat(&body, &tail);
	cg_line(&body, 1, "}");
	for (int w = 0; w < WIDE_W; w++)
		cg_line(&body, 1, "krl_cw[ty][tx + %d] = acc%d;", 32 * w, w);
	cg_line(&body, 1, "__syncthreads();");
	cg_line(&body, 1, "const int t = ty * 32 + tx;");
	cg_line(&body, 1, "const long c = cb + t;");
	cg_line(&body, 1, "if (t < %d && c < %s) {", cols, I);
	cg_line(&body, 2, "%s a = krl_cw[0][t];", at);
	cg_line(&body, 2, "for (int k = 1; k < %d; k++)", WIDE_TY);
	slot_combine(&body, 3, op, "a", "krl_cw[k][t]");
	cg_line(&body, 2, "const float %s = %sa;", rv, dbl ? "(float)" : "");
	cg_sb_cat(&body, &sec);
	cg_sb_cat(&body, &st);
	cg_line(&body, 1, "}");
	cg_line(&body, 0, "}");
	finish_kernel(G, K, name,
	              cg_fmt(G, "row over a middle axis: %d columns (%d neighbouring "
	                     "ones per lane) x %d rows of threads per block, %d rows "
	                     "in flight per lane", cols, WIDE_W, WIDE_TY, WIDE_U),
	              32 * WIDE_TY, &body,
	              cg_fmt(G, "(%s) * cdiv(%s, %d)", ri->otext, ri->itext, cols),
	              cg_fmt(G, "32, %d", WIDE_TY));
done:
	if (l0.oom || mainb.oom || tail.oom || sec.oom || st.oom || body.oom)
		G->oom = 1;
	cg_sb_free(&l0);
	cg_sb_free(&mainb);
	cg_sb_free(&tail);
	cg_sb_free(&sec);
	cg_sb_free(&st);
	cg_sb_free(&body);
	cg_em_free(&em);
}

/* ==== The column kernel with its columns in registers ==== */

#define CR_W 4     /* neighbouring columns per lane */
#define CR_TY 8    /* rows of threads */
#define CR_MAXK 16 /* rows a thread holds, at most */
#define CR_MINB 3  /* blocks a multiprocessor (__launch_bounds__) */

/* The rows a thread holds when the registered layout applies (at the set
 * generated for: the run in CR_TY * k rows, k a power of two up to
 * CR_MAXK), else 0: one pass of plain reductions (no arg, online or
 * variance pairs), outputs of the full shape, and one leaf to hold (the
 * register cache's one candidate, read by the reductions and outputs). */
static int regs_rows(const cg_gen *G, const rinfo *ri)
{
	if (ri->inner1 || ri->perm || ri->npass != 1 || !ri->nfull ||
	    ri->ncache != 1 || ri->rval < 1 || ri->rval > CR_TY * CR_MAXK)
		return 0;
	for (int j = 0; j < ri->nred; j++)
		if (cg_red_is_arg(G->g->n[ri->red[j]].red) || ri->online[j] >= 0 ||
		    ri->var[j] >= 0)
			return 0;
	int k = 1;
	while (k * CR_TY < ri->rval)
		k *= 2;
	return k;
}

/* Column w's coordinates in a block of the registered layout (lane tx
 * holds columns cb + 4 tx + w): cv, whether it is one (valid), the column
 * c (past the last one: the last one's, in bounds, stored by no one) and
 * the linear index rb of (o, 0, c); names suffixed sfx. */
static void regs_column(cg_sb *b, int ind, int w, const char *I,
                        const char *R, const char *sfx)
{
	cg_line(b, ind, "const long cv%s = cb + 4 * tx + %d;", sfx, w);
	cg_line(b, ind, "const bool valid%s = cv%s < %s;", sfx, sfx, I);
	cg_line(b, ind, "const long c%s = valid%s ? cv%s : %s - 1;", sfx, sfx,
	        sfx, I);
	cg_line(b, ind, "const long rb%s = o * %s * %s + c%s;", sfx, R, I, sfx);
}

/* Opens the loop over a thread's rows r (two levels, closed by the
 * caller): the kpt held ones, or every CR_TY-th of the run. */
static void regs_rows_open(cg_sb *b, int ind, int held, int kpt,
                           const char *R)
{
	if (held) {
		cg_line(b, ind, "#pragma unroll");
		cg_line(b, ind, "for (int k = 0; k < %d; k++) {", kpt);
		cg_line(b, ind + 1, "const long r = ty + k * %d;", CR_TY);
		cg_line(b, ind + 1, "if (r < %s) {", R);
	} else {
		cg_line(b, ind, "for (long r = ty; r < %s; r += %d) {", R, CR_TY);
		cg_line(b, ind + 1, "{");
	}
}

/* One path of the registered kernel into b: held (the rows in v[k][w],
 * kpt of them a thread) or re-read from memory (any run). */
static void regs_path(cg_em *em, const rinfo *ri, int held, int kpt,
                      cg_sb *b)
{
	cg_gen *G = em->G;
	const krl_graph *g = G->g;
	const char *R = em->rlen, *I = em->rinner;
	int nn = ri->nred;
	const char *acc[CR_W][CG_MAX_KNODES];
	int ind = 2;
	if (held) {
		/* a float4 of four neighbouring columns a row where rows are
		 * 16-byte aligned (I a multiple of 4), else one at a time */
		const char *xp = cg_arg_buf(G, em->K, ri->cache[0], 0);
		cg_line(b, ind, "float v[%d][%d];", kpt, CR_W);
		cg_line(b, ind, "if (vec4) {");
		cg_line(b, ind + 1, "const long c = min(cb + 4 * tx, %s - 4);", I);
		cg_line(b, ind + 1, "#pragma unroll");
		cg_line(b, ind + 1, "for (int k = 0; k < %d; k++) {", kpt);
		cg_line(b, ind + 2, "const long r = ty + k * %d;", CR_TY);
		cg_line(b, ind + 2, "const float4 t = r < %s ? *reinterpret_cast<"
		        "const float4 *>(%s + (o * %s + r) * %s + c) : make_float4("
		        "0.f, 0.f, 0.f, 0.f);", R, xp, R, I);
		cg_line(b, ind + 2, "v[k][0] = t.x;");
		cg_line(b, ind + 2, "v[k][1] = t.y;");
		cg_line(b, ind + 2, "v[k][2] = t.z;");
		cg_line(b, ind + 2, "v[k][3] = t.w;");
		cg_line(b, ind + 1, "}");
		cg_line(b, ind, "} else {");
		cg_line(b, ind + 1, "#pragma unroll");
		cg_line(b, ind + 1, "for (int w = 0; w < %d; w++) {", CR_W);
		cg_line(b, ind + 2, "const long c = min(cb + 4 * tx + w, %s - 1);", I);
		cg_line(b, ind + 2, "#pragma unroll");
		cg_line(b, ind + 2, "for (int k = 0; k < %d; k++) {", kpt);
		cg_line(b, ind + 3, "const long r = ty + k * %d;", CR_TY);
		cg_line(b, ind + 3, "v[k][w] = r < %s ? %s[(o * %s + r) * %s + c] : "
		        "0.f;", R, xp, R, I);
		cg_line(b, ind + 2, "}");
		cg_line(b, ind + 1, "}");
		cg_line(b, ind, "}");
		em->clnode = ri->cache[0];
	} else {
		em->clnode = -1;
	}
	for (int w = 0; w < CR_W; w++)
		for (int j = 0; j < nn; j++) {
			acc[w][j] = cg_name(G, "acc");
			cg_acc_decl(b, ind, g->n[ri->red[j]].red, acc[w][j]);
		}
	/* the reductions: every column's, row by row */
	regs_rows_open(b, ind, held, kpt, R);
	const char *rs[1] = { "r" };
	em->rc = "c";
	em->rb = "rb";
	for (int w = 0; w < CR_W; w++) {
		/* row-level values (level 1) before the step's (level 2) */
		cg_sb sec = { 0 }, st = { 0 };
		cg_line(b, ind + 2, "{");
		regs_column(b, ind + 3, w, I, R, "");
		cg_em_forget(em, 1);
		em->buf[1] = &sec;
		em->ind[1] = ind + 3;
		em->buf[2] = &st;
		em->clfmt = "v[k][%d]";
		em->cllane = w;
		row_step(em, ri, rs, 1, 1, ri->red, nn, 1, acc[w], NULL, ind + 3);
		cg_sb_cat(b, &sec);
		cg_sb_cat(b, &st);
		if (sec.oom || st.oom)
			G->oom = 1;
		cg_sb_free(&sec);
		cg_sb_free(&st);
		cg_line(b, ind + 2, "}");
	}
	cg_line(b, ind + 1, "}");
	cg_line(b, ind, "}");
	/* the rows of threads met in shared memory (slot 32 w + tx: a thread
	 * reads only its own columns' slots, lanes side by side, no bank
	 * conflicts; 4 tx + w put 8 lanes on a bank) */
	for (int w = 0; w < CR_W; w++)
		for (int j = 0; j < nn; j++)
			cg_line(b, ind, "krl_cr%d[ty][%d + tx] = %s;", j, 32 * w,
			        acc[w][j]);
	cg_line(b, ind, "__syncthreads();");
	/* each column's values (row level, names of their own), then every
	 * row's outputs of the four columns, stored together */
	cg_sb sec = { 0 }, step = { 0 }, st = { 0 };
	const char *val[CR_W][CG_MAX_KNODES];
	for (int w = 0; w < CR_W; w++) {
		const char *sfx = cg_fmt(G, "%d", w);
		regs_column(b, ind, w, I, R, sfx);
		em->rc = cg_fmt(G, "c%d", w);
		em->rb = cg_fmt(G, "rb%d", w);
		cg_em_forget(em, 1);
		for (int j = 0; j < nn; j++) {
			krl_redop op = g->n[ri->red[j]].red;
			int dbl = op == KRL_RED_SUM || op == KRL_RED_PROD;
			const char *a = cg_name(G, "a");
			cg_line(b, ind, "%s %s = krl_cr%d[0][%d + tx];",
			        dbl ? "double" : "float", a, j, 32 * w);
			cg_line(b, ind, "#pragma unroll");
			cg_line(b, ind, "for (int t = 1; t < %d; t++)", CR_TY);
			const char *e = cg_fmt(G, "krl_cr%d[t][%d + tx]", j, 32 * w);
			slot_combine(b, ind + 1, op, a, e);
			const char *rv = cg_name(G, "r");
			cg_line(b, ind, "const float %s = %s%s;", rv, dbl ? "(float)" : "",
			        a);
			cg_val v = { rv, 'f' };
			cg_em_set_reduce(em, ri->red[j], v);
		}
		em->buf[1] = &sec;
		em->ind[1] = ind;
		em->buf[2] = &step;
		em->ind[2] = ind + 2;
		em->clfmt = "v[k][%d]";
		em->cllane = w;
		em->vec = 1;
		const char *lin = cg_fmt(G, "(rb%d + r * %s)", w, I);
		for (int o = 0; o < ri->nfull; o++) {
			cg_point p = cg_row_point(em, lin, "r", 0);
			cg_val ov = cg_ev(em, ri->full[o], &p);
			if (!ov.e)
				goto out;
			val[w][o] = cg_f(em, ov);
			if (g->n[ri->full[o]].dtype != KRL_F32 ||
			    cg_out_decl(g, ri->full[o], 1) >= 0) {
				/* stored alone, converted */
				cg_line(&st, ind + 3, "if (valid%d)", w);
				cg_sb *keep = em->buf[2];
				em->buf[2] = &st;
				cg_store(em, 2, ri->full[o], lin, ov);
				em->buf[2] = keep;
				val[w][o] = NULL;
			}
		}
		/* the outputs of the row shape: the first row of threads */
		for (int o = 0; o < ri->nrowo; o++) {
			int n = ri->rowo[o];
			cg_point p;
			memset(&p, 0, sizeof p);
			p.space = n;
			p.lin = cg_fmt(G, "(o * %s + c%d)", I, w);
			p.inrow = 1;
			p.rowlevel = 1;
			cg_sb rowst = { 0 };
			cg_sb *keep = em->buf[2];
			em->buf[2] = &rowst;
			em->ind[2] = ind + 1;
			cg_val ov = cg_ev(em, n, &p);
			if (ov.e)
				cg_store(em, 2, n, p.lin, ov);
			em->buf[2] = keep;
			em->ind[2] = ind + 2;
			cg_line(&sec, ind, "if (ty == 0 && valid%d) {", w);
			cg_sb_cat(&sec, &rowst);
			cg_line(&sec, ind, "}");
			cg_sb_free(&rowst);
			if (!ov.e)
				goto out;
		}
	}
	cg_sb_cat(b, &sec);
	regs_rows_open(b, ind, held, kpt, R);
	cg_sb_cat(b, &step);
	for (int o = 0; o < ri->nfull; o++) {
		if (!val[0][o])
			continue;
		const char *yp = cg_arg_buf(G, em->K, ri->full[o], 1);
		cg_line(b, ind + 2, "if (vec4 && cv0 + 3 < %s) {", I);
		cg_line(b, ind + 3, "*reinterpret_cast<float4 *>(%s + rb0 + r * %s) "
		        "= make_float4(%s, %s, %s, %s);", yp, I, val[0][o],
		        val[1][o], val[2][o], val[3][o]);
		cg_line(b, ind + 2, "} else {");
		for (int w = 0; w < CR_W; w++) {
			cg_line(b, ind + 3, "if (valid%d)", w);
			cg_line(b, ind + 4, "%s[rb%d + r * %s] = %s;", yp, w, I,
			        val[w][o]);
		}
		cg_line(b, ind + 2, "}");
	}
	cg_sb_cat(b, &st);
	cg_line(b, ind + 1, "}");
	cg_line(b, ind, "}");
out:
	if (sec.oom || step.oom || st.oom)
		G->oom = 1;
	cg_sb_free(&sec);
	cg_sb_free(&step);
	cg_sb_free(&st);
	em->clnode = -1;
	em->clfmt = NULL;
	em->rc = "c";
	em->rb = "rb";
}

/*
 * inner > 1, one pass, outputs of the full shape (regs_rows): a block of
 * 32 x CR_TY threads owns 32 * CR_W columns of one outer index, lane tx
 * the CR_W from cb + 4 tx (a float4 where rows are 16-byte aligned: a
 * warp reads and writes 512 contiguous bytes of a row a step), rows of
 * threads splitting the run. Where the run fits (kpt rows
 * a thread), each thread holds its rows of its columns in registers, read
 * once: the reductions, met in shared memory, then the outputs from the
 * registers; a longer run (another shape set) re-reads them. Measured on
 * the H200 at kb1 (36, RMSNorm over 64 rows): this kernel 3.78 ms in the
 * level-1 run (1.044x of torch.compile's 3.94), a hand-written form of it
 * 3.70, the 32-column kernel's re-read 5.57
 * (bench/results/2026-12-04-h200-level1-full).
 */
static void emit_cols_regs(cg_gen *G, cg_kern *K, const rinfo *ri, int kpt)
{
	const krl_graph *g = G->g;
	const int cols = 32 * CR_W;
	const char *name = cg_fmt(G, "k%d_colr", K->id);
	cg_em em;
	cg_em_init(&em, G, K);
	cg_sb l0 = { 0 }, held = { 0 }, reread = { 0 }, body = { 0 };
	em.buf[0] = &l0;
	em.ind[0] = 1;
	const char *O, *I;
	row_names(&em, ri, &O, &I);
	G->need |= CG_NEED_RED;
	regs_path(&em, ri, 1, kpt, &held);
	if (!(G->fail >= 0 || G->err[0] || G->oom)) {
		cg_em_forget(&em, 1);
		regs_path(&em, ri, 0, kpt, &reread);
	}
	if (G->fail >= 0 || G->err[0] || G->oom)
		goto done;
	cg_line(&body, 0, "{");
	for (int j = 0; j < ri->nred; j++) {
		krl_redop op = g->n[ri->red[j]].red;
		cg_line(&body, 1, "__shared__ %s krl_cr%d[%d][%d];",
		        op == KRL_RED_SUM || op == KRL_RED_PROD ? "double" : "float",
		        j, CR_TY, cols + 1);
	}
	cg_sb_cat(&body, &l0);
	cg_line(&body, 1, "const int tx = threadIdx.x, ty = threadIdx.y;");
	cg_line(&body, 1, "const long ncb = (%s + %d) / %d;", I, cols - 1, cols);
	cg_line(&body, 1, "const long o = (long)blockIdx.x / ncb;");
	cg_line(&body, 1, "const long cb = ((long)blockIdx.x %% ncb) * %d;", cols);
	cg_line(&body, 1, "const bool vec4 = %s %% 4 == 0;", I);
	cg_line(&body, 1, "if (%s <= %d) {", em.rlen, CR_TY * kpt);
	cg_line(&body, 2, "/* the run fits: each thread's rows in registers */");
	cg_sb_cat(&body, &held);
	cg_line(&body, 1, "} else {");
	cg_line(&body, 2, "/* a longer run: re-read */");
	cg_sb_cat(&body, &reread);
	cg_line(&body, 1, "}");
	cg_line(&body, 0, "}");
	/* registers capped for 3 blocks of 256 a multiprocessor: on 36 at
	 * kb1 the kernel took 96 (2 blocks) and ran 4.33 ms, capped 3.78 (a
	 * few bytes spilled) */
	cg_kernel_comment(G, K, cg_fmt(G, "row over a middle axis: %d columns "
	                  "(%d neighbouring ones per lane) x %d rows of threads "
	                  "per block, each thread's %d rows of its columns in "
	                  "registers when the run fits, 1 pass", cols, CR_W,
	                  CR_TY, kpt));
	cg_kernel_sig_min(G, K, name, 32 * CR_TY, CR_MINB);
	cg_sb_puts(&G->dev, body.z ? body.z : "");
	cg_plan_launch(G, K, name,
	               cg_fmt(G, "(%s) * cdiv(%s, %d)", ri->otext, ri->itext, cols),
	               cg_fmt(G, "32, %d", CR_TY));
done:
	if (l0.oom || held.oom || reread.oom || body.oom)
		G->oom = 1;
	cg_sb_free(&l0);
	cg_sb_free(&held);
	cg_sb_free(&reread);
	cg_sb_free(&body);
	cg_em_free(&em);
}

krl_err cg_emit_row(cg_gen *G, cg_kern *K)
{
	rinfo ri;
	if (analyse(G, K, &ri))
		return KRL_OK;
	int wide = !ri.perm && !ri.inner1 && wide_ok(G, &ri);
	int kpt = regs_rows(G, &ri);
	G->cols_wide += wide;
	G->cols_regs += kpt > 0;
	if (ri.perm)
		G->row_cl++;
	G->rows_cltile += ri.tile > 0;
	if (ri.perm == 2 && cl_split(&G->g->n[K->space], K))
		emit_cols_split(G, K, &ri);
	else if (ri.perm == 2)
		emit_cols(G, K, &ri);
	else if (ri.perm == 1)
		emit_rows(G, K, &ri);
	else if (wide && G->s.row_cols > 1)
		emit_cols_wide(G, K, &ri);
	else if (kpt && G->s.row_colregs)
		emit_cols_regs(G, K, &ri, kpt);
	else if (split_pays(G, K, &ri))
		emit_cols_split(G, K, &ri);
	else if (!ri.inner1) {
		/* the plain column kernel keeps a sum of exp(E - M) online
		 * with its max too (one pass fewer, E computed once) */
		assign_passes(G, K, &ri, 1);
		emit_cols(G, K, &ri);
	}
	else if (ri.strategy == CG_ROW_MULTI)
		emit_multi(G, K, &ri);
	else
		emit_rows(G, K, &ri);
	return KRL_OK;
}
