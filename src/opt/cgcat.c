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
 */
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

int cg_cat_dim(const krl_gnode *c)
{
	for (int a = 0; a < c->nattrs; a++) {
		if (strcmp(c->attrs[a].key, "dim"))
			continue;
		char *z = krl_opt_expr_text(c->attrs[a].value);
		char *end = NULL;
		long d = z ? strtol(z, &end, 10) : 0;
		int ok = z && end != z && !*end;
		free(z);
		if (!ok)
			return -1;
		if (d < 0)
			d += c->ndim;
		return d >= 0 && d < c->ndim ? (int)d : -1;
	}
	return 0;
}

/* Whether input m of cat c can be written in place: an f32 node of c's
 * rank, materialised by a map or pool kernel (the stores this file's
 * index reaches: map_step, emit_map_cl, emit_map_tile, the pool's
 * store_outputs) as one of its outputs, read by c alone, once, not a
 * task output, not a view of another buffer. (Stored channels-last only
 * with c: cg_cl_plan marks the two together.) */
static int part_ok(const cg_gen *G, int c, int m)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[m];
	if (x->dtype != KRL_F32 || x->ndim != g->n[c].ndim || !G->mat[m] ||
	    G->alias[m] || G->home[m] < 0 || G->nuse[m] != 1 ||
	    krl_graph_is_output(g, m) || cg_out_decl(g, m, 0) >= 0 ||
	    (x->kind != KRL_GN_PW && x->kind != KRL_GN_POOL))
		return 0;
	const cg_kern *K = &G->k[G->home[m]];
	if (K->kind != CK_MAP && K->kind != CK_POOL)
		return 0;
	for (int o = 0; o < K->nout; o++)
		if (K->out[o] == m)
			return 1;
	return 0;
}

int cg_cat_plan(cg_gen *G)
{
	const krl_graph *g = G->g;
	size_t nn = (size_t)(g->nn > 0 ? g->nn : 1);
	if (!G->catof) {
		G->catof = malloc(nn * sizeof *G->catof);
		if (!G->catof)
			return -1;
	}
	for (int n = 0; n < g->nn; n++)
		G->catof[n] = -1;
	if (!G->s.fuse)
		return 0;
	for (int c = 0; c < g->nn; c++) {
		const krl_gnode *x = &g->n[c];
		if (x->kind != KRL_GN_LIB || strcmp(x->op, "cat") || x->nout != 1 ||
		    x->dtype != KRL_F32 || x->nin < 1 || cg_cat_dim(x) < 0 ||
		    cg_out_decl(g, c, 1) >= 0)
			continue;
		int ok = 1;
		for (int i = 0; i < x->nin && ok; i++)
			ok = part_ok(G, c, x->in[i]);
		if (!ok)
			continue;
		for (int i = 0; i < x->nin; i++)
			G->catof[x->in[i]] = c;
	}
	return 0;
}

int cg_cat_inplace(const cg_gen *G, int c)
{
	const krl_gnode *x = &G->g->n[c];
	return G->catof && x->kind == KRL_GN_LIB && x->nin > 0 &&
	       G->catof[x->in[0]] == c;
}

const char *cg_cat_index(cg_em *em, int n, const char *lin, int vec)
{
	cg_gen *G = em->G;
	cg_kern *K = em->K;
	const krl_graph *g = G->g;
	int c = G->catof[n];
	const krl_gnode *x = &g->n[c];
	int d = cg_cat_dim(x);
	/* off: the extents along d of the inputs before n */
	cg_sb off = { 0 };
	int k = 0;
	for (int i = 0; i < x->nin && x->in[i] != n; i++)
		cg_sb_printf(&off, "%s(%s)", k++ ? " + " : "",
		             g->n[x->in[i]].dim[d].text);
	/* a channels-last cat (of channels: cg_cl_plan) holds its parts'
	 * runs of channels position by position: n's element at memory
	 * index L goes to (L / C_n) C + off + L % C_n */
	int cl = cg_is_cl(G, c);
	int e = cl ? d + 1 : x->ndim;
	const char *inner = cl ? "1" : cg_prod(G, c, d + 1, x->ndim);
	const char *O = k ? cg_arg_long(G, K, cg_fmt(G, "(%s) * %s", off.z,
	                                             inner)) : NULL;
	if (off.oom)
		G->oom = 1;
	cg_sb_free(&off);
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
