/*
 * Total kernels (codegen.h): reductions of a whole tensor to a scalar
 * (losses), with the pointwise nodes before them and the scalar ones after
 * (a mean's 1/n, a scale). Two kernels:
 * - k<N>_part: a persistent grid (total.blocks per SM, capped so that
 *   every block has work; `__launch_bounds__` with that many blocks, so
 *   that they are all resident) streams the tensor as float4 (total.steps
 *   vectors in flight per thread), accumulates per thread (a vector's
 *   lanes in fp32, the running sum in double), reduces the block in double
 *   and writes one partial per block to scratch: deterministic, no
 *   atomics, nothing to initialise. Broadcast operands index from the
 *   point's coordinates, stepped by the grid's stride (no division per
 *   step: a 64-bit division's call kept ptxas from issuing the next
 *   step's loads early);
 * - k<N>_final: one block combines the partials and writes the outputs.
 */
#include <stdio.h>
#include <string.h>

#include "codegen.h"

/* The coordinates of a vector step (NULL: none, operands divide the
 * linear index): crd[k] the step's coordinate along dim k of the space,
 * the last one lane 0's. */
typedef struct step_coords {
	const char *crd[KRL_MAX_DIM];
	int nd;
} step_coords;

/* One step: the reduce inputs at `lanes` lanes from linear index lin0
 * (at coordinates sc, or NULL). */
static void total_step(cg_em *em, const char *lin0, int lanes,
                       const char *const *acc, int ind,
                       const step_coords *sc)
{
	cg_gen *G = em->G;
	cg_kern *K = em->K;
	const krl_graph *g = G->g;
	const char *vals[CG_MAX_KNODES][4], *idx[CG_MAX_KNODES][4];
	cg_em_forget(em, 2);
	em->vec = lanes;
	em->vlin = lin0;
	em->ind[2] = ind;
	const char *lc[4][KRL_MAX_DIM];
	for (int q = 0; q < lanes; q++) {
		cg_point p;
		memset(&p, 0, sizeof p);
		p.space = K->space;
		p.lin = q ? cg_fmt(G, "(%s + %d)", lin0, q) : lin0;
		p.main = 1;
		p.lane = q;
		if (sc) {
			/* lane q: the last coordinate plus q (the vector path's
			 * guard keeps a step within one run of the last dim) */
			for (int k = 0; k < sc->nd; k++)
				lc[q][k] = k < sc->nd - 1 || !q ? sc->crd[k] :
				           cg_fmt(G, "(%s + %d)", sc->crd[k], q);
			p.coord = lc[q];
			p.coord0 = sc->crd;
		}
		for (int j = 0; j < K->nanchor; j++) {
			cg_val v = cg_ev(em, g->n[K->anchor[j]].in[0], &p);
			if (!v.e)
				return;
			vals[j][q] = cg_f(em, v);
			idx[j][q] = p.lin;
		}
	}
	for (int j = 0; j < K->nanchor; j++)
		cg_acc_step(em->buf[2], ind, g->n[K->anchor[j]].red, acc[j], vals[j],
		            idx[j], lanes);
}

/* Declares the thread's coordinates tc<k> of element gt * 4 and the
 * digits td<k> of the grid's stride gs * 4 in the space's extents ext
 * (mixed radix, divided once per thread). */
static void total_coords_init(cg_gen *G, cg_sb *b, int nd, const char **ext)
{
	G->need |= CG_NEED_DIV;
	cg_line(b, 1, "long tc[%d], td[%d];", nd, nd);
	cg_line(b, 1, "{");
	cg_line(b, 2, "long a = gt * 4, d = gs * 4;");
	for (int k = nd - 1; k > 0; k--) {
		cg_line(b, 2, "tc[%d] = krl_mod(a, %s); a = krl_div(a, %s);", k,
		        ext[k], ext[k]);
		cg_line(b, 2, "td[%d] = krl_mod(d, %s); d = krl_div(d, %s);", k,
		        ext[k], ext[k]);
	}
	cg_line(b, 2, "tc[0] = a;");
	cg_line(b, 2, "td[0] = d;");
	cg_line(b, 1, "}");
}

/* One step's coordinates: names crd[k] take the thread's current ones,
 * which then advance by the grid's stride (digits td, carries of at most
 * one: no division). */
static void total_coords_step(cg_sb *b, int ind, int nd, const char **ext,
                              const char *const *crd)
{
	if (!nd)
		return;
	for (int k = 0; k < nd; k++)
		cg_line(b, ind, "const long %s = tc[%d];", crd[k], k);
	cg_line(b, ind, "{");
	cg_line(b, ind + 1, "long cy = 0;");
	for (int k = nd - 1; k > 0; k--) {
		cg_line(b, ind + 1, "tc[%d] += td[%d] + cy;", k, k);
		cg_line(b, ind + 1, "cy = tc[%d] >= %s;", k, ext[k]);
		cg_line(b, ind + 1, "tc[%d] -= cy ? %s : 0;", k, ext[k]);
	}
	cg_line(b, ind + 1, "tc[0] += td[0] + cy;");
	cg_line(b, ind, "}");
}

krl_err cg_emit_total(cg_gen *G, cg_kern *K)
{
	const krl_graph *g = G->g;
	const int tb = G->s.total_block, kb = G->s.total_blocks;
	const int ns4 = G->s.total_steps == 8 ? 8 : 4;
	const krl_gnode *sp = &g->n[K->space];
	const char *ntext = cg_prod(G, K->space, 0, sp->ndim);
	const char *part = cg_fmt(G, "k%d_part", K->id);
	const char *nparts = cg_fmt(G, "min(sm_count * %d, cdiv(%s, %d))", kb,
	                            ntext, tb * 4);
	int slot[CG_MAX_KNODES], ns = 0;
	for (int j = 0; j < K->nanchor; j++) {
		if (g->n[K->anchor[j]].in[0] != g->n[K->anchor[0]].in[0] &&
		    !cg_gsame(G, g->n[K->anchor[j]].in[0], K->space)) {
			snprintf(G->err, sizeof G->err, "total kernel k%d: reductions "
			         "of different shapes", K->id);
			return KRL_OK;
		}
		slot[j] = ns;
		ns += cg_red_is_arg(g->n[K->anchor[j]].red) ? 2 : 1;
	}
	cg_sb_printf(&G->bufs, "buffer %s f64 [sm_count * %d, %d]\n", part, kb, ns);

	/* ---- the partials ---- */
	{
		const char *name = cg_fmt(G, "k%d_part", K->id);
		cg_em em;
		cg_em_init(&em, G, K);
		cg_sb l0 = { 0 }, loops = { 0 }, body = { 0 };
		em.buf[0] = &l0;
		em.ind[0] = 1;
		const char *n = cg_arg_long(G, K, ntext);
		const char *acc[CG_MAX_KNODES];
		for (int j = 0; j < K->nanchor; j++)
			acc[j] = cg_name(G, "acc");
		em.buf[1] = em.buf[2] = &loops;
		/* the coordinates of a 2-d or more space, stepped by the grid's
		 * stride (one division per thread, none per step): broadcast
		 * operands index from them (total_coords) */
		int nd = sp->ndim >= 2 && sp->ndim <= KRL_MAX_DIM ? sp->ndim : 0;
		const char *ext[KRL_MAX_DIM];
		for (int k = 0; k < nd; k++)
			ext[k] = cg_arg_long(G, K, cg_fmt(G, "(%s)", sp->dim[k].text));
		step_coords scs[8];
		for (int u = 0; u < ns4; u++) {
			scs[u].nd = nd;
			for (int k = 0; k < nd; k++)
				scs[u].crd[k] = cg_fmt(G, "c%d_%d", u, k);
		}
		cg_line(&loops, 1, "long s = gt;");
		cg_line(&loops, 1, "/* %d float4 steps in flight per thread */", ns4);
		cg_line(&loops, 1, "for (; s + %d * gs < nv; s += %d * gs) {", ns4 - 1,
		        ns4);
		for (int u = 0; u < ns4; u++) {
			const char *lin = cg_fmt(G, "i%d", u);
			cg_line(&loops, 2, "const long %s = (s + %d * gs) * 4;", lin, u);
			total_coords_step(&loops, 2, nd, ext, scs[u].crd);
		}
		for (int u = 0; u < ns4; u++)
			total_step(&em, cg_fmt(G, "i%d", u), 4, acc, 2,
			           nd ? &scs[u] : NULL);
		cg_line(&loops, 1, "}");
		cg_line(&loops, 1, "for (; s < nv; s += gs) {");
		cg_line(&loops, 2, "const long i = s * 4;");
		total_coords_step(&loops, 2, nd, ext, scs[0].crd);
		total_step(&em, "i", 4, acc, 2, nd ? &scs[0] : NULL);
		cg_line(&loops, 1, "}");
		em.vec = 4;
		/* a lane's coordinate is lane 0's plus its lane: the last dim a
		 * multiple of 4, so that no step crosses its end */
		if (em.used_coord)
			cg_guard_add(&em, ext[nd - 1]);
		const char *guard = cg_guard_cond(&em);
		cg_line(&loops, 1, "/* the tail, and everything when the vector path "
		        "does not apply */");
		cg_line(&loops, 1, "for (long i = nv * 4 + gt; i < %s; i += gs) {", n);
		total_step(&em, "i", 1, acc, 2, NULL);
		cg_line(&loops, 1, "}");
		for (int j = 0; j < K->nanchor; j++)
			cg_acc_block_store(&em, &loops, 1, g->n[K->anchor[j]].red, acc[j],
			                   cg_arg_named(G, K, part,
			                                "double *__restrict__"),
			                   cg_fmt(G, "blockIdx.x * %d + %d", ns, slot[j]));
		if (G->fail >= 0 || G->err[0] || G->oom) {
			cg_sb_free(&l0);
			cg_sb_free(&loops);
			cg_sb_free(&body);
			cg_em_free(&em);
			return KRL_OK;
		}
		cg_line(&body, 0, "{");
		cg_sb_cat(&body, &l0);
		cg_line(&body, 1, "const long gt = (long)blockIdx.x * %d + threadIdx.x;",
		        tb);
		cg_line(&body, 1, "const long gs = (long)gridDim.x * %d;", tb);
		cg_line(&body, 1, "const long nv = (%s) ? %s / 4 : 0;", guard, n);
		if (nd)
			total_coords_init(G, &body, nd, ext);
		for (int j = 0; j < K->nanchor; j++)
			cg_acc_decl(&body, 1, g->n[K->anchor[j]].red, acc[j]);
		cg_sb_cat(&body, &loops);
		cg_line(&body, 0, "}");
		cg_kernel_comment(G, K, cg_fmt(G, "total, partials: %d blocks of %d "
		                  "per SM, one double per block and reduction to %s",
		                  kb, tb, part));
		/* the grid's blocks all resident: registers for that many */
		cg_kernel_sig_min(G, K, name, tb, kb * tb <= 2048 ? kb : 0);
		cg_sb_cat(&G->dev, &body);
		cg_plan_launch(G, K, name, nparts, cg_fmt(G, "%d", tb));
		if (l0.oom || loops.oom || body.oom)
			G->oom = 1;
		cg_sb_free(&l0);
		cg_sb_free(&loops);
		cg_sb_free(&body);
		cg_em_free(&em);
	}

	/* ---- the final block ---- */
	{
		const char *name = cg_fmt(G, "k%d_final", K->id);
		cg_args_reset(K);
		cg_em em;
		cg_em_init(&em, G, K);
		cg_sb l0 = { 0 }, comb = { 0 }, sec = { 0 }, st = { 0 }, body = { 0 };
		em.buf[0] = &l0;
		em.ind[0] = 1;
		const char *pp = cg_arg_named(G, K, part, "const double *__restrict__");
		const char *np = cg_arg_long(G, K, nparts);
		for (int j = 0; j < K->nanchor; j++) {
			krl_redop op = g->n[K->anchor[j]].red;
			const char *acc = cg_name(G, "acc");
			cg_acc_decl(&comb, 1, op, acc);
			cg_line(&comb, 1, "for (long q = threadIdx.x; q < %s; q += %d)", np,
			        tb);
			cg_acc_part(&comb, 2, op, acc, pp,
			            cg_fmt(G, "q * %d + %d", ns, slot[j]));
			cg_em_set_reduce(&em, K->anchor[j],
			                 cg_acc_finish(&em, &comb, 1, op, acc, 1));
		}
		em.buf[1] = &sec;
		em.ind[1] = 1;
		em.buf[2] = &st;
		em.ind[2] = 2;
		for (int o = 0; o < K->nout; o++) {
			cg_point p;
			memset(&p, 0, sizeof p);
			p.space = K->out[o];
			p.lin = "0";
			p.inrow = 1;
			p.rowlevel = 1;
			cg_val v = cg_ev(&em, K->out[o], &p);
			if (!v.e)
				break;
			cg_store(&em, 2, K->out[o], "0", v);
		}
		if (!(G->fail >= 0 || G->err[0] || G->oom)) {
			cg_line(&body, 0, "{");
			cg_sb_cat(&body, &l0);
			cg_sb_cat(&body, &comb);
			cg_sb_cat(&body, &sec);
			cg_line(&body, 1, "if (threadIdx.x == 0) {");
			cg_sb_cat(&body, &st);
			cg_line(&body, 1, "}");
			cg_line(&body, 0, "}");
			cg_kernel_comment(G, K, "total, final: one block adds the "
			                  "partials in double and writes the outputs");
			cg_kernel_sig(G, K, name, tb);
			cg_sb_cat(&G->dev, &body);
			cg_plan_launch(G, K, name, "1", cg_fmt(G, "%d", tb));
		}
		if (l0.oom || comb.oom || sec.oom || st.oom || body.oom)
			G->oom = 1;
		cg_sb_free(&l0);
		cg_sb_free(&comb);
		cg_sb_free(&sec);
		cg_sb_free(&st);
		cg_sb_free(&body);
		cg_em_free(&em);
	}
	return KRL_OK;
}
