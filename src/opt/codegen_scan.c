/*
 * Scan kernels (codegen.h): a cumulative sum or product along one axis,
 * inclusive or exclusive, forward or reverse, with its pointwise prologue
 * (a mask, a flip folded into the index) and the pointwise nodes over its
 * result at the same point.
 *
 * inner == 1: a block per row walks the row in tiles of block * 4
 * elements, carrying the running total from tile to tile (in double for
 * sums). Each thread owns 4 consecutive elements of the tile in scan order
 * (a float4 when rows are 16-byte aligned), scans them in registers; warps
 * scan their threads' totals with shuffles and the block combines the
 * warp totals through shared memory.
 * inner > 1: a thread per (outer, inner) column walks the axis; threads of
 * a warp read neighbouring columns, so loads are coalesced.
 */
#include <stdio.h>
#include <string.h>

#include "codegen.h"

typedef struct sinfo {
	int node, in0, rev, excl, prod, inner1;
	const char *id;          /* identity as a float literal */
	const char *op;          /* "+" or "*" */
} sinfo;

static const char *lin_of(cg_em *em, const sinfo *si, const char *r)
{
	return si->inner1 ? cg_fmt(em->G, "(%s + %s)", em->rb, r) :
	       cg_fmt(em->G, "(%s + %s * %s)", em->rb, r, em->rinner);
}

/* The scan input at lanes (vector path when vec > 1), into x0.. */
static void prologue(cg_em *em, const sinfo *si, int vec, const char *k0,
                     const char *xv, cg_sb *b, int ind)
{
	cg_gen *G = em->G;
	em->buf[2] = b;
	em->ind[2] = ind;
	if (vec > 1) {
		cg_em_forget(em, 2);
		em->vec = vec;
		em->rev = si->rev;
		em->vr = si->rev ? cg_fmt(G, "(%s - 4 - %s)", em->rlen, k0) : k0;
		em->vlin = lin_of(em, si, em->vr);
		for (int q = 0; q < vec; q++) {
			const char *r = si->rev ?
			                cg_fmt(G, "(%s - 1 - (%s + %d))", em->rlen, k0, q) :
			                cg_fmt(G, "(%s + %d)", k0, q);
			cg_point p = cg_row_point(em, lin_of(em, si, r), r, q);
			cg_val v = cg_ev(em, si->in0, &p);
			if (!v.e)
				return;
			cg_line(b, ind, "%s%d = %s;", xv, q, cg_f(em, v));
		}
		return;
	}
	em->vec = 1;
	em->rev = 0;
	for (int q = 0; q < 4; q++) {
		cg_em_forget(em, 2);
		em->ind[2] = ind + 1;
		cg_line(b, ind, "if (%s + %d < %s) {", k0, q, em->rlen);
		cg_line(b, ind + 1, "const long r = %s;", si->rev ?
		        cg_fmt(G, "%s - 1 - (%s + %d)", em->rlen, k0, q) :
		        cg_fmt(G, "%s + %d", k0, q));
		cg_point p = cg_row_point(em, lin_of(em, si, "r"), "r", 0);
		cg_val v = cg_ev(em, si->in0, &p);
		if (!v.e)
			return;
		cg_line(b, ind + 1, "%s%d = %s;", xv, q, cg_f(em, v));
		cg_line(b, ind, "}");
	}
}

/* Evaluates and stores K's outputs at the lanes, the scan being y0.. */
static void epilogue(cg_em *em, const sinfo *si, int vec, const char *k0,
                     const char *yv, cg_sb *b, int ind)
{
	cg_gen *G = em->G;
	const krl_graph *g = G->g;
	cg_kern *K = em->K;
	em->buf[2] = b;
	em->ind[2] = ind;
	em->snode = si->node;
	if (vec > 1) {
		cg_em_forget(em, 2);
		em->vec = vec;
		em->rev = si->rev;
		em->vr = si->rev ? cg_fmt(G, "(%s - 4 - %s)", em->rlen, k0) : k0;
		em->vlin = lin_of(em, si, em->vr);
		cg_val v[CG_MAX_KNODES][4];
		for (int q = 0; q < vec; q++) {
			const char *r = si->rev ?
			                cg_fmt(G, "(%s - 1 - (%s + %d))", em->rlen, k0, q) :
			                cg_fmt(G, "(%s + %d)", k0, q);
			cg_point p = cg_row_point(em, lin_of(em, si, r), r, q);
			em->sval.e = cg_fmt(G, "%s%d", yv, q);
			em->sval.t = 'f';
			for (int o = 0; o < K->nout; o++) {
				v[o][q] = cg_ev(em, K->out[o], &p);
				if (!v[o][q].e)
					return;
			}
		}
		for (int o = 0; o < K->nout; o++) {
			int n = K->out[o];
			if (g->n[n].dtype == KRL_F32 && cg_out_decl(g, n, 1) < 0) {
				const char *c[4];
				for (int q = 0; q < 4; q++)
					c[q] = cg_f(em, v[o][si->rev ? 3 - q : q]);
				cg_line(b, ind, "*reinterpret_cast<float4 *>(%s + %s) = "
				        "make_float4(%s, %s, %s, %s);",
				        cg_arg_buf(G, K, n, 1), em->vlin, c[0], c[1], c[2],
				        c[3]);
				continue;
			}
			for (int q = 0; q < vec; q++) {
				const char *r = si->rev ?
				                cg_fmt(G, "(%s - 1 - (%s + %d))", em->rlen, k0,
				                       q) : cg_fmt(G, "(%s + %d)", k0, q);
				cg_store(em, 2, n, lin_of(em, si, r), v[o][q]);
			}
		}
		return;
	}
	em->vec = 1;
	em->rev = 0;
	for (int q = 0; q < 4; q++) {
		cg_em_forget(em, 2);
		em->ind[2] = ind + 1;
		cg_line(b, ind, "if (%s + %d < %s) {", k0, q, em->rlen);
		cg_line(b, ind + 1, "const long r = %s;", si->rev ?
		        cg_fmt(G, "%s - 1 - (%s + %d)", em->rlen, k0, q) :
		        cg_fmt(G, "%s + %d", k0, q));
		cg_point p = cg_row_point(em, lin_of(em, si, "r"), "r", 0);
		em->sval.e = cg_fmt(G, "%s%d", yv, q);
		em->sval.t = 'f';
		for (int o = 0; o < K->nout; o++) {
			cg_val v = cg_ev(em, K->out[o], &p);
			if (!v.e)
				return;
			cg_store(em, 2, K->out[o], p.lin, v);
		}
		cg_line(b, ind, "}");
	}
}

#define SUBTILES 4 /* sub-tiles per tile: their loads are in flight at once */

static void emit_rows(cg_gen *G, cg_kern *K, const sinfo *si,
                      const char *otext, const char *ltext)
{
	const int sb = G->s.scan_block;
	const char *name = cg_fmt(G, "k%d_scan", K->id);
	cg_em em;
	cg_em_init(&em, G, K);
	cg_sb l0 = { 0 }, sec = { 0 }, body = { 0 };
	cg_sb pv[SUBTILES] = { { 0 } }, ps[SUBTILES] = { { 0 } },
	      ev[SUBTILES] = { { 0 } }, es[SUBTILES] = { { 0 } };
	em.buf[0] = &l0;
	em.ind[0] = 1;
	em.buf[1] = &sec;
	em.ind[1] = 2;
	const char *O = cg_arg_long(G, K, otext);
	em.rlen = cg_arg_long(G, K, ltext);
	em.ro = "o";
	em.rc = NULL;
	em.rb = "rb";
	em.rinner = "1";
	for (int u = 0; u < SUBTILES; u++) {
		const char *k0 = cg_fmt(G, "k%d", u);
		prologue(&em, si, 4, k0, cg_fmt(G, "x%d_", u), &pv[u], 4);
		prologue(&em, si, 1, k0, cg_fmt(G, "x%d_", u), &ps[u], 4);
		epilogue(&em, si, 4, k0, cg_fmt(G, "y%d_", u), &ev[u], 4);
		epilogue(&em, si, 1, k0, cg_fmt(G, "y%d_", u), &es[u], 4);
	}
	em.vec = 4;
	cg_guard_add(&em, em.rlen);
	const char *guard = cg_guard_cond(&em);
	if (G->fail >= 0 || G->err[0] || G->oom)
		goto done;
	const char *op = si->op, *id = si->id;
	int nw = sb / 32;
	cg_line(&body, 0, "{");
	cg_line(&body, 1, "/* warp totals, one set per sub-tile: a set is "
	        "rewritten only after the barriers of the other sub-tiles */");
	cg_line(&body, 1, "__shared__ float krl_ws[%d][%d];", SUBTILES, nw);
	cg_sb_cat(&body, &l0);
	cg_line(&body, 1, "const int tid = threadIdx.x, lane = tid & 31, warp = "
	        "tid >> 5;");
	cg_line(&body, 1, "const bool vec = %s;", guard);
	cg_line(&body, 1, "for (long o = blockIdx.x; o < %s; o += gridDim.x) {", O);
	cg_line(&body, 2, "const long rb = o * %s;", em.rlen);
	cg_sb_cat(&body, &sec);
	cg_line(&body, 2, "double carry = %s; /* the elements before the "
	        "sub-tile */", si->prod ? "1.0" : "0.0");
	cg_line(&body, 2, "for (long t0 = 0; t0 < %s; t0 += %d) {", em.rlen,
	        sb * 4 * SUBTILES);
	cg_line(&body, 3, "/* loads of every sub-tile first: each thread owns 4 "
	        "consecutive elements (in scan order) of each */");
	for (int u = 0; u < SUBTILES; u++) {
		cg_line(&body, 3, "const long k%d = t0 + %d + (long)tid * 4;", u,
		        u * sb * 4);
		cg_line(&body, 3, "float x%d_0 = %s, x%d_1 = %s, x%d_2 = %s, x%d_3 = "
		        "%s;", u, id, u, id, u, id, u, id);
		cg_line(&body, 3, "if (vec && k%d + 3 < %s) {", u, em.rlen);
		cg_sb_cat(&body, &pv[u]);
		cg_line(&body, 3, "} else {");
		cg_sb_cat(&body, &ps[u]);
		cg_line(&body, 3, "}");
	}
	for (int u = 0; u < SUBTILES; u++) {
		cg_line(&body, 3, "{");
		cg_line(&body, 4, "/* sub-tile %d: the thread's 4, its warp, the "
		        "block */", u);
		cg_line(&body, 4, "const float s0 = x%d_0, s1 = s0 %s x%d_1, s2 = s1 "
		        "%s x%d_2, s3 = s2 %s x%d_3;", u, op, u, op, u, op, u);
		cg_line(&body, 4, "float inc = s3;");
		cg_line(&body, 4, "for (int off = 1; off < 32; off <<= 1) {");
		cg_line(&body, 5, "const float t = __shfl_up_sync(0xffffffffu, inc, "
		        "off);");
		cg_line(&body, 5, "if (lane >= off)");
		cg_line(&body, 6, "inc = t %s inc;", op);
		cg_line(&body, 4, "}");
		cg_line(&body, 4, "float wex = __shfl_up_sync(0xffffffffu, inc, 1);");
		cg_line(&body, 4, "if (lane == 0)");
		cg_line(&body, 5, "wex = %s;", id);
		cg_line(&body, 4, "if (lane == 31)");
		cg_line(&body, 5, "krl_ws[%d][warp] = inc;", u);
		cg_line(&body, 4, "__syncthreads();");
		cg_line(&body, 4, "float before = %s, tile = %s;", id, id);
		cg_line(&body, 4, "#pragma unroll");
		cg_line(&body, 4, "for (int w = 0; w < %d; w++) {", nw);
		cg_line(&body, 5, "const float t = krl_ws[%d][w];", u);
		cg_line(&body, 5, "if (w < warp)");
		cg_line(&body, 6, "before = before %s t;", op);
		cg_line(&body, 5, "tile = tile %s t;", op);
		cg_line(&body, 4, "}");
		cg_line(&body, 4, "const float pre = ((float)carry %s before) %s wex;",
		        op, op);
		if (si->excl)
			cg_line(&body, 4, "const float y%d_0 = pre, y%d_1 = pre %s s0, "
			        "y%d_2 = pre %s s1, y%d_3 = pre %s s2;", u, u, op, u, op,
			        u, op);
		else
			cg_line(&body, 4, "const float y%d_0 = pre %s s0, y%d_1 = pre %s "
			        "s1, y%d_2 = pre %s s2, y%d_3 = pre %s s3;", u, op, u, op,
			        u, op, u, op);
		cg_line(&body, 4, "carry = carry %s (double)tile;", op);
		cg_line(&body, 4, "const long k = k%d;", u);
		cg_line(&body, 4, "if (vec && k + 3 < %s) {", em.rlen);
		cg_sb_cat(&body, &ev[u]);
		cg_line(&body, 4, "} else {");
		cg_sb_cat(&body, &es[u]);
		cg_line(&body, 4, "}");
		cg_line(&body, 3, "}");
	}
	cg_line(&body, 2, "}");
	cg_line(&body, 1, "}");
	cg_line(&body, 0, "}");
	cg_kernel_comment(G, K, cg_fmt(G, "scan: a block of %d per row, tiles of "
	                  "%d x %d, %s%s %s", sb, SUBTILES, sb * 4,
	                  si->rev ? "reverse " : "",
	                  si->excl ? "exclusive" : "inclusive",
	                  si->prod ? "product" : "sum"));
	cg_kernel_sig(G, K, name, sb);
	cg_sb_cat(&G->dev, &body);
	cg_plan_launch(G, K, name, cg_fmt(G, "min(%s, sm_count * 32)", otext),
	               cg_fmt(G, "%d", sb));
done:
	if (l0.oom || sec.oom || body.oom)
		G->oom = 1;
	cg_sb_free(&l0);
	cg_sb_free(&sec);
	cg_sb_free(&body);
	for (int u = 0; u < SUBTILES; u++) {
		if (pv[u].oom || ps[u].oom || ev[u].oom || es[u].oom)
			G->oom = 1;
		cg_sb_free(&pv[u]);
		cg_sb_free(&ps[u]);
		cg_sb_free(&ev[u]);
		cg_sb_free(&es[u]);
	}
	cg_em_free(&em);
}

static void emit_cols(cg_gen *G, cg_kern *K, const sinfo *si,
                      const char *otext, const char *ltext, const char *itext)
{
	const int sb = G->s.scan_block;
	const char *name = cg_fmt(G, "k%d_scan", K->id);
	const krl_graph *g = G->g;
	cg_em em;
	cg_em_init(&em, G, K);
	cg_sb l0 = { 0 }, sec = { 0 }, st = { 0 }, body = { 0 };
	em.buf[0] = &l0;
	em.ind[0] = 1;
	em.buf[1] = &sec;
	em.ind[1] = 2;
	em.buf[2] = &st;
	em.ind[2] = 3;
	const char *O = cg_arg_long(G, K, otext);
	em.rlen = cg_arg_long(G, K, ltext);
	const char *I = cg_arg_long(G, K, itext);
	em.ro = "o";
	em.rc = "c";
	em.rb = "rb";
	em.rinner = I;
	em.snode = si->node;
	cg_point p = cg_row_point(&em, lin_of(&em, si, "r"), "r", 0);
	cg_val x = cg_ev(&em, si->in0, &p);
	if (x.e) {
		cg_line(&st, 3, "const double x = (double)%s;", cg_f(&em, x));
		if (si->excl) {
			cg_line(&st, 3, "const float y = (float)acc;");
			cg_line(&st, 3, "acc = acc %s x;", si->op);
		} else {
			cg_line(&st, 3, "acc = acc %s x;", si->op);
			cg_line(&st, 3, "const float y = (float)acc;");
		}
		em.sval.e = "y";
		em.sval.t = 'f';
		for (int o = 0; o < K->nout; o++) {
			cg_val v = cg_ev(&em, K->out[o], &p);
			if (!v.e)
				break;
			cg_store(&em, 2, K->out[o], p.lin, v);
		}
	}
	(void)g;
	if (G->fail >= 0 || G->err[0] || G->oom)
		goto done;
	cg_line(&body, 0, "{");
	cg_sb_cat(&body, &l0);
	cg_line(&body, 1, "for (long q = (long)blockIdx.x * %d + threadIdx.x; q < "
	        "%s * %s; q += (long)gridDim.x * %d) {", sb, O, I, sb);
	cg_line(&body, 2, "const long o = q / %s, c = q %% %s;", I, I);
	cg_line(&body, 2, "const long rb = o * %s * %s + c;", em.rlen, I);
	cg_sb_cat(&body, &sec);
	cg_line(&body, 2, "double acc = %s;", si->prod ? "1.0" : "0.0");
	cg_line(&body, 2, "for (long k = 0; k < %s; k++) {", em.rlen);
	cg_line(&body, 3, "const long r = %s;", si->rev ?
	        cg_fmt(G, "%s - 1 - k", em.rlen) : "k");
	cg_sb_cat(&body, &st);
	cg_line(&body, 2, "}");
	cg_line(&body, 1, "}");
	cg_line(&body, 0, "}");
	cg_kernel_comment(G, K, cg_fmt(G, "scan over a middle axis: a thread per "
	                  "column, %s%s %s", si->rev ? "reverse " : "",
	                  si->excl ? "exclusive" : "inclusive",
	                  si->prod ? "product" : "sum"));
	cg_kernel_sig(G, K, name, sb);
	cg_sb_cat(&G->dev, &body);
	cg_plan_launch(G, K, name,
	               cg_fmt(G, "min(cdiv((%s) * (%s), %d), sm_count * 32)", otext,
	                      itext, sb),
	               cg_fmt(G, "%d", sb));
done:
	if (l0.oom || sec.oom || st.oom || body.oom)
		G->oom = 1;
	cg_sb_free(&l0);
	cg_sb_free(&sec);
	cg_sb_free(&st);
	cg_sb_free(&body);
	cg_em_free(&em);
}

krl_err cg_emit_scan(cg_gen *G, cg_kern *K)
{
	const krl_graph *g = G->g;
	sinfo si;
	memset(&si, 0, sizeof si);
	si.node = K->anchor[0];
	const krl_gnode *x = &g->n[si.node];
	si.in0 = x->in[0];
	si.rev = x->reverse;
	si.excl = x->exclusive;
	si.prod = x->scan == KRL_SCAN_PROD;
	si.id = si.prod ? "1.f" : "0.f";
	si.op = si.prod ? "*" : "+";
	const krl_gnode *sp = &g->n[K->space];
	if (K->ax0 < 0 || K->ax0 >= sp->ndim) {
		snprintf(G->err, sizeof G->err, "scan node %d: bad axis", si.node);
		return KRL_OK;
	}
	for (int o = 0; o < K->nout; o++)
		if (!cg_gsame(G, K->out[o], K->space)) {
			snprintf(G->err, sizeof G->err, "scan kernel k%d: output node %d "
			         "has another shape", K->id, K->out[o]);
			return KRL_OK;
		}
	const char *otext = cg_prod(G, K->space, 0, K->ax0);
	const char *ltext = cg_prod(G, K->space, K->ax0, K->ax0 + 1);
	const char *itext = cg_prod(G, K->space, K->ax0 + 1, sp->ndim);
	si.inner1 = !strcmp(itext, "1");
	if (si.inner1)
		emit_rows(G, K, &si, otext, ltext);
	else
		emit_cols(G, K, &si, otext, ltext, itext);
	return KRL_OK;
}
