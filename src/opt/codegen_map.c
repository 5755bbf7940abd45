/*
 * Map kernels (codegen.h): pointwise chains over one iteration space, one
 * or more outputs of that shape. Each thread takes `ept` vector steps of
 * `vec` consecutive elements per pass of a grid-stride loop (a grid of
 * cdiv(n, block * vec * ept) blocks, or a persistent sm_count * k); a
 * scalar loop does the last n % vec elements, and all of them when a
 * broadcast input's layout does not allow the vector path for these sizes
 * (a run-time check, so every shape set is served).
 */
#include <stdio.h>
#include <string.h>

#include "codegen.h"

/* Evaluates every output of K at the lanes of one step and stores them.
 * lin0 is the linear index of lane 0; vec lanes follow it. A non-NULL
 * `at` gives lane 0's rowed coordinates too, so that operands broadcast
 * along its rows index by them, without dividing lin0; lane q is at
 * at's inner index c + q (the lanes run along the innermost dims). */
static void map_step(cg_em *em, const char *lin0, int vec, int ind,
                     const cg_point *at)
{
	cg_gen *G = em->G;
	cg_kern *K = em->K;
	const krl_graph *g = G->g;
	cg_val v[CG_MAX_KNODES][4];
	em->vlin = lin0;
	em->vr = at ? at->r : NULL;
	for (int q = 0; q < vec; q++) {
		cg_point p;
		memset(&p, 0, sizeof p);
		if (at) {
			p = *at;
			if (q)
				p.c = cg_fmt(G, "(%s + %d)", at->c, q);
		}
		p.space = K->space;
		p.lin = q ? cg_fmt(G, "(%s + %d)", lin0, q) : lin0;
		p.main = 1;
		p.lane = q;
		for (int o = 0; o < K->nout; o++) {
			v[o][q] = cg_ev(em, K->out[o], &p);
			if (!v[o][q].e)
				return;
		}
	}
	for (int o = 0; o < K->nout; o++) {
		int n = K->out[o];
		if (at && at->plin && cg_is_cl(G, n)) {
			/* written channels-last (emit_map_cl): a register of the
			 * thread's run of channels, stored with the others */
			cg_line(em->buf[2], ind, "tw%d[%d] = %s;", o, em->cllane,
			        cg_f(em, v[o][0]));
			continue;
		}
		if (vec > 1 && g->n[n].dtype == KRL_F32 &&
		    cg_out_decl(g, n, 1) < 0) {
			/* a part of a cat written in place: its run there */
			int part = G->catof && G->catof[n] >= 0;
			const char *ptr = cg_arg_buf(G, K, part ? G->catof[n] : n, 1);
			const char *at0 = part ? cg_cat_index(em, n, lin0, vec) : lin0;
			const char *vt = vec == 4 ? "float4" : "float2";
			cg_sb args = { 0 };
			for (int q = 0; q < vec; q++)
				cg_sb_printf(&args, "%s%s", q ? ", " : "",
				             cg_f(em, v[o][q]));
			cg_line(em->buf[2], ind,
			        "*reinterpret_cast<%s *>(%s + %s) = make_%s(%s);", vt,
			        ptr, at0, vt, args.z ? args.z : "");
			if (args.oom)
				G->oom = 1;
			cg_sb_free(&args);
			continue;
		}
		for (int q = 0; q < vec; q++)
			cg_store(em, 2, n, q ? cg_fmt(G, "%s + %d", lin0, q) : lin0,
			         v[o][q]);
	}
}

/* Ends map kernel `name`: its comment (what), signature, body, and the
 * launch over `total` items of which a block takes `per` (a cdiv grid, or
 * the persistent one). */
static void map_finish(cg_gen *G, cg_kern *K, const char *name, cg_sb *body,
                       const char *what, const char *total, int per)
{
	const krl_sched *s = &G->s;
	cg_kernel_comment(G, K, cg_fmt(G, "%s, %s grid", what,
	                  s->map_grid ? "persistent" : "cdiv"));
	cg_kernel_sig(G, K, name, s->map_block);
	cg_sb_cat(&G->dev, body);
	const char *cd = cg_fmt(G, "cdiv(%s, %d)", total, per);
	const char *grid = s->map_grid ?
	                   cg_fmt(G, "min(sm_count * %d, %s)", s->map_grid, cd) :
	                   cd;
	cg_plan_launch(G, K, name, grid, cg_fmt(G, "%d", s->map_block));
}

/* A channels-last leaf (cg_is_cl) of K's shape that K's outputs reach
 * through pointwise nodes evaluated inline, from node n; -1 if none. */
static int cl_leaf(cg_gen *G, cg_kern *K, int n)
{
	for (int q = 0; q < G->g->n[n].nin; q++) {
		int c = cg_cl_reach(G, K, G->g->n[n].in[q], K->space, 0);
		if (c >= 0)
			return c;
	}
	return -1;
}

/* The spatial coordinates of a point at index ts within the spatial dims
 * of K's space [N, C, s...]: crd[2..] and mcrd[3..ndim] (cg_point.coord
 * and .mcoord), ts<k> and tq<k> divided out of ts, innermost first, by
 * lines written to sc at indent 2. With arr, each is also kept in
 * element k of arrays tcs<k>, tcq<k> of kr elements, declared in arr. */
static void cl_coords(cg_gen *G, cg_kern *K, const char **crd,
                      const char **mcrd, cg_sb *sc, cg_sb *arr, int kr)
{
	const krl_gnode *sp = &G->g->n[K->space];
	const char *q = "ts";
	for (int k = sp->ndim - 1; k >= 2; k--) {
		mcrd[k + 1] = q;
		if (k == 2) {
			crd[k] = q;
			break;
		}
		const char *D = cg_arg_long(G, K, cg_fmt(G, "(%s)", sp->dim[k].text));
		crd[k] = cg_fmt(G, "ts%d", k);
		cg_line(sc, 2, "const long ts%d = krl_mod(%s, %s), tq%d = "
		        "krl_div(%s, %s);", k, q, D, k, q, D);
		if (arr) {
			cg_line(arr, 1, "long tcs%d[%d], tcq%d[%d];", k, kr, k, kr);
			cg_line(sc, 2, "tcs%d[k] = ts%d;", k, k);
			cg_line(sc, 2, "tcq%d[k] = tq%d;", k, k);
		}
		q = cg_fmt(G, "tq%d", k);
	}
}

/*
 * A map kernel over the shape [N, C, s...] of a channels-last leaf cl
 * (memory [N, s..., C]), channel-blocked: each thread takes one position
 * (n, s) and 8 channels c0..c0+7, so a warp reads 32 positions' 32-byte
 * runs of channels and writes, for each channel, 32 consecutive elements
 * of its NCHW outputs: both sides coalesced, where walking NCHW order
 * would read the leaf with a stride of C. The thread loads its 8 leaf
 * values into registers first (two float4 loads when C is a multiple of
 * 4, so that the run is aligned), then each channel is one scalar step at
 * its NCHW index i, with rowed coordinates (n, c, s): per-channel
 * operands index by c, not by dividing i.
 *
 * Outputs stored channels-last too (cg_cl_plan, lib.layout=nhwc_xy) are
 * kept in 8 registers per output through the steps and written as the
 * leaf was read, two float4 stores of the thread's run (scalar stores
 * where C is not a multiple of 4 or the run is cut); every point then
 * also has its memory index tbase + j (cg_point.plin), so other
 * channels-last leaves of the shape are read there. Where every output
 * is channels-last (no NCHW store to coalesce), the threads take the
 * runs in memory order instead, a position's runs on neighbouring
 * threads: a warp then reads and writes whole positions (C / 8 runs
 * each), where positions on neighbouring threads made every 32-byte run
 * of a warp a separate access C floats from the next.
 */
static krl_err emit_map_cl(cg_gen *G, cg_kern *K, int cl)
{
	const krl_graph *g = G->g;
	const krl_sched *s = &G->s;
	const int blk = s->map_block;
	const krl_gnode *sp = &g->n[K->space];
	const char *name = cg_fmt(G, "k%d_map", K->id);
	const char *ct = cg_prod(G, K->space, 1, 2);
	const char *st = cg_prod(G, K->space, 2, sp->ndim);
	const char *ntt = cg_fmt(G, "(%s) * cdiv(%s, 8) * (%s)",
	                         cg_prod(G, K->space, 0, 1), ct, st);
	cg_em em;
	cg_sb l0 = { 0 }, steps = { 0 }, body = { 0 };
	cg_em_init(&em, G, K);
	const char *C = cg_arg_long(G, K, ct), *S = cg_arg_long(G, K, st);
	const char *CB = cg_arg_long(G, K, cg_fmt(G, "cdiv(%s, 8)", ct));
	const char *NT = cg_arg_long(G, K, ntt);
	const char *X = cg_arg_buf(G, K, cl, 0);
	G->need |= CG_NEED_DIV;
	em.buf[0] = &l0;
	em.ind[0] = 1;
	em.buf[1] = em.buf[2] = &steps;
	em.ind[1] = em.ind[2] = 3;
	em.vec = 1;
	em.clnode = cl;
	em.clfmt = "tv[%d]";
	int ncl = 0;
	for (int o = 0; o < K->nout; o++)
		ncl += cg_is_cl(G, K->out[o]);
	cg_point at;
	memset(&at, 0, sizeof at);
	at.rowed = 1;
	at.ax0 = 1;
	at.ax1 = 2;
	at.o = "tn";
	at.c = "ts";
	/* the point's coordinates (n, c, the spatial ones from ts, divided
	 * once per thread): operands that vary within s but not along all
	 * of it (layer norm's statistics [N, C, D, H, 1]) index from them */
	const char *crd[KRL_MAX_DIM], *mcrd[KRL_MAX_DIM + 1];
	cg_sb sc = { 0 };
	crd[0] = "tn";
	cl_coords(G, K, crd, mcrd, &sc, NULL, 0);
	at.coord = crd;
	at.mcoord = mcrd;
	for (int j = 0; j < 8 && G->fail < 0 && !G->err[0]; j++) {
		cg_em_forget(&em, 1);
		em.cllane = j;
		at.r = cg_fmt(G, "(tc0 + %d)", j);
		if (ncl)
			at.plin = cg_fmt(G, "(tbase + %d)", j);
		crd[1] = at.r;
		cg_line(&steps, 2, "if (tc0 + %d < %s) {", j, C);
		cg_line(&steps, 3, "const long i = (tn * %s + tc0 + %d) * %s + ts;",
		        C, j, S);
		map_step(&em, "i", 1, 3, &at);
		cg_line(&steps, 2, "}");
	}
	if (G->fail >= 0 || G->err[0] || G->oom)
		goto done;
	cg_line(&body, 0, "{");
	if (l0.z)
		cg_sb_puts(&body, l0.z);
	cg_line(&body, 1, "const int tid = threadIdx.x;");
	cg_line(&body, 1, "const bool tvec = (%s & 3) == 0;", C);
	cg_line(&body, 1, "for (long e = (long)blockIdx.x * %d + tid; e < %s;",
	        blk, NT);
	cg_line(&body, 1, "     e += (long)gridDim.x * %d) {", blk);
	if (ncl == K->nout) {
		/* every output channels-last: the threads in memory order, a
		 * position's channel runs on neighbouring threads, so that a
		 * warp reads and writes whole positions */
		cg_line(&body, 2, "const long tc0 = krl_mod(e, %s) * 8;", CB);
		cg_line(&body, 2, "const long tq = krl_div(e, %s);", CB);
		cg_line(&body, 2, "const long ts = krl_mod(tq, %s);", S);
		cg_line(&body, 2, "const long tn = krl_div(tq, %s);", S);
	} else {
		cg_line(&body, 2, "const long ts = krl_mod(e, %s);", S);
		cg_line(&body, 2, "const long tq = krl_div(e, %s);", S);
		cg_line(&body, 2, "const long tc0 = krl_mod(tq, %s) * 8;", CB);
		cg_line(&body, 2, "const long tn = krl_div(tq, %s);", CB);
	}
	cg_line(&body, 2, "const long tbase = (tn * %s + ts) * %s + tc0;", S, C);
	if (sc.z)
		cg_sb_puts(&body, sc.z);
	cg_line(&body, 2, "float tv[8];");
	cg_line(&body, 2, "if (tvec && tc0 + 8 <= %s) {", C);
	cg_line(&body, 3, "const float4 q0 = *reinterpret_cast<const float4 *>"
	        "(%s + tbase);", X);
	cg_line(&body, 3, "const float4 q1 = *reinterpret_cast<const float4 *>"
	        "(%s + tbase + 4);", X);
	cg_line(&body, 3, "tv[0] = q0.x; tv[1] = q0.y; tv[2] = q0.z; "
	        "tv[3] = q0.w;");
	cg_line(&body, 3, "tv[4] = q1.x; tv[5] = q1.y; tv[6] = q1.z; "
	        "tv[7] = q1.w;");
	cg_line(&body, 2, "} else {");
	cg_line(&body, 3, "#pragma unroll");
	cg_line(&body, 3, "for (int j = 0; j < 8; j++)");
	cg_line(&body, 4, "tv[j] = tc0 + j < %s ? %s[tbase + j] : 0.f;", C, X);
	cg_line(&body, 2, "}");
	for (int o = 0; o < K->nout; o++)
		if (cg_is_cl(G, K->out[o]))
			cg_line(&body, 2, "float tw%d[8] = { 0.f, 0.f, 0.f, 0.f, 0.f, "
			        "0.f, 0.f, 0.f };", o);
	if (steps.z)
		cg_sb_puts(&body, steps.z);
	for (int o = 0; o < K->nout; o++) {
		int n = K->out[o];
		if (!cg_is_cl(G, n))
			continue;
		/* a part of a channels-last cat written in place: its run of
		 * channels at the position's place in the cat's */
		int part = G->catof && G->catof[n] >= 0;
		const char *Y = cg_arg_buf(G, K, part ? G->catof[n] : n, 1);
		const char *tb = "tbase";
		if (part) {
			tb = cg_fmt(G, "tp%d", o);
			cg_line(&body, 2, "const long %s = %s;", tb,
			        cg_cat_index(&em, n, "tbase", 1));
		}
		cg_line(&body, 2, "if (tvec && tc0 + 8 <= %s%s) {", C,
		        part ? cg_fmt(G, " && (%s & 3) == 0", tb) : "");
		cg_line(&body, 3, "*reinterpret_cast<float4 *>(%s + %s) = "
		        "make_float4(tw%d[0], tw%d[1], tw%d[2], tw%d[3]);", Y, tb, o,
		        o, o, o);
		cg_line(&body, 3, "*reinterpret_cast<float4 *>(%s + %s + 4) = "
		        "make_float4(tw%d[4], tw%d[5], tw%d[6], tw%d[7]);", Y, tb, o,
		        o, o, o);
		cg_line(&body, 2, "} else {");
		cg_line(&body, 3, "#pragma unroll");
		cg_line(&body, 3, "for (int j = 0; j < 8; j++)");
		cg_line(&body, 4, "if (tc0 + j < %s) %s[%s + j] = tw%d[j];", C, Y, tb,
		        o);
		cg_line(&body, 2, "}");
	}
	cg_line(&body, 1, "}");
	cg_line(&body, 0, "}");
	map_finish(G, K, name, &body, cg_fmt(G, "map over a channels-last "
	           "input (node %d), 8 channels per thread%s: %d threads", cl,
	           ncl ? cg_fmt(G, ", %d output%s channels-last", ncl,
	                        ncl == 1 ? "" : "s") : "", blk), ntt, blk);
	G->map_clout += ncl > 0;
done:
	if (l0.oom || steps.oom || body.oom || sc.oom)
		G->oom = 1;
	cg_sb_free(&l0);
	cg_sb_free(&steps);
	cg_sb_free(&body);
	cg_sb_free(&sc);
	cg_em_free(&em);
	return KRL_OK;
}

/*
 * The tiled form (map.cl=tile, the default) of the map kernel over a
 * channels-last leaf, the layout torch.compile's Triton kernels take for
 * the same transpose: a block of 256 threads takes one tile of TR
 * positions x TQ channels of one sample (position tiles fastest, so that
 * neighbouring blocks write on along the same channels' planes). It reads
 * the tile into shared memory in memory order, float4 loads of channels
 * where C is a multiple of 4, every load issued before the shared stores;
 * and writes it with a lane per position: a warp step is one channel's 32
 * consecutive positions, one scalar step of the chain at rowed point (n,
 * c, s), a 128-byte store whatever the alignment of S (float4 stores of 4
 * positions need S % 4 == 0, and with rows of 63504 bytes ran at 0.44-0.66
 * of copy rate in bench/transpose_probe). TQ is the channel count of the
 * shape set generated for, rounded up to a power of two between 8 and 32
 * (32 was the fastest or within 2% of it on 9 level-2 problems against 8,
 * 16 and 64: docs/optimizer.md); TR = 4096 / TQ. The tile's rows are TQ +
 * 1 floats long so that the lane-per-position reads hit 32 banks.
 */
#define CL_TILE 4096
#define CL_TQ_MAX 32
#define CL_THREADS 256

static krl_err emit_map_tile(cg_gen *G, cg_kern *K, int cl)
{
	const krl_graph *g = G->g;
	const krl_gnode *sp = &g->n[K->space];
	const char *name = cg_fmt(G, "k%d_map", K->id);
	const char *ct = cg_prod(G, K->space, 1, 2);
	const char *st = cg_prod(G, K->space, 2, sp->ndim);
	int tq = 8;
	while (tq < CL_TQ_MAX && tq < sp->dim[1].val)
		tq *= 2;
	const int tr = CL_TILE / tq, lpp = tq / 4, ppw = 32 / lpp;
	const int nld = CL_TILE / 4 / CL_THREADS;
	const char *ntt = cg_fmt(G, "(%s) * cdiv(%s, %d) * cdiv(%s, %d)",
	                         cg_prod(G, K->space, 0, 1), st, tr, ct, tq);
	cg_em em;
	cg_sb l0 = { 0 }, l1 = { 0 }, step = { 0 }, body = { 0 }, sc = { 0 };
	cg_em_init(&em, G, K);
	const char *C = cg_arg_long(G, K, ct), *S = cg_arg_long(G, K, st);
	const char *SB = cg_arg_long(G, K, cg_fmt(G, "cdiv(%s, %d)", st, tr));
	const char *CB = cg_arg_long(G, K, cg_fmt(G, "cdiv(%s, %d)", ct, tq));
	const char *X = cg_arg_buf(G, K, cl, 0);
	G->need |= CG_NEED_DIV;
	em.buf[0] = &l0;
	em.ind[0] = 1;
	em.buf[1] = &l1;
	em.ind[1] = 2;
	em.buf[2] = &step;
	em.ind[2] = 4;
	em.vec = 1;
	em.clnode = cl;
	em.clfmt = "ttile[trr][tqq]";
	em.cllane = 0;
	/* rows are a sample's channel planes: operands that vary only with
	 * (n, c), per-channel ones, are loaded once per channel, before the
	 * loop over its positions (the row level, em.buf[1]) */
	em.rb = "trb";
	cg_point at;
	memset(&at, 0, sizeof at);
	at.main = 1;
	at.rowed = 1;
	at.inrow = 1;
	at.ax0 = 2;
	at.ax1 = sp->ndim;
	at.o = "tno";
	at.r = "ts";
	/* the point's coordinates, the spatial ones divided out of ts (as
	 * in emit_map_cl) once per position of the thread, before the loop
	 * over channels (pc: into arrays; sc: out of them at the point) */
	const int kr = tr / 32;
	const char *crd[KRL_MAX_DIM], *mcrd[KRL_MAX_DIM + 1];
	cg_sb pc = { 0 };
	crd[0] = "tn";
	crd[1] = "tc";
	cl_coords(G, K, crd, mcrd, &sc, &pc, kr);
	at.coord = crd;
	at.mcoord = mcrd;
	map_step(&em, "i", 1, 4, &at);
	if (G->fail >= 0 || G->err[0] || G->oom)
		goto done;
	cg_line(&body, 0, "{");
	cg_line(&body, 1, "__shared__ float ttile[%d][%d];", tr, tq + 1);
	if (l0.z)
		cg_sb_puts(&body, l0.z);
	cg_line(&body, 1, "const int lane = threadIdx.x & 31, warp = "
	        "threadIdx.x >> 5;");
	cg_line(&body, 1, "const long ts0 = krl_mod((long)blockIdx.x, %s) * %d;",
	        SB, tr);
	cg_line(&body, 1, "const long tcq = krl_div((long)blockIdx.x, %s);", SB);
	cg_line(&body, 1, "const long tc0 = krl_mod(tcq, %s) * %d;", CB, tq);
	cg_line(&body, 1, "const long tn = krl_div(tcq, %s);", CB);
	cg_line(&body, 1, "/* load: a warp step reads %d positions x %d "
	        "channels */", ppw, tq);
	cg_line(&body, 1, "float4 tld[%d];", nld);
	cg_line(&body, 1, "const int tlq = (lane %% %d) * 4;", lpp);
	cg_line(&body, 1, "const long tlc = tc0 + tlq;");
	cg_line(&body, 1, "#pragma unroll");
	cg_line(&body, 1, "for (int k = 0; k < %d; k++) {", nld);
	cg_line(&body, 2, "const long s = ts0 + (k * %d + warp) * %d + lane / %d;",
	        CL_THREADS / 32, ppw, lpp);
	cg_line(&body, 2, "const long b = (tn * %s + s) * %s + tlc;", S, C);
	cg_line(&body, 2, "tld[k] = make_float4(0.f, 0.f, 0.f, 0.f);");
	cg_line(&body, 2, "if (s < %s && (%s & 3) == 0 && tlc < %s) {", S, C, C);
	cg_line(&body, 3, "tld[k] = *reinterpret_cast<const float4 *>(%s + b);",
	        X);
	cg_line(&body, 2, "} else if (s < %s) {", S);
	cg_line(&body, 3, "if (tlc < %s) tld[k].x = %s[b];", C, X);
	cg_line(&body, 3, "if (tlc + 1 < %s) tld[k].y = %s[b + 1];", C, X);
	cg_line(&body, 3, "if (tlc + 2 < %s) tld[k].z = %s[b + 2];", C, X);
	cg_line(&body, 3, "if (tlc + 3 < %s) tld[k].w = %s[b + 3];", C, X);
	cg_line(&body, 2, "}");
	cg_line(&body, 1, "}");
	cg_line(&body, 1, "#pragma unroll");
	cg_line(&body, 1, "for (int k = 0; k < %d; k++) {", nld);
	cg_line(&body, 2, "const int r = (k * %d + warp) * %d + lane / %d;",
	        CL_THREADS / 32, ppw, lpp);
	cg_line(&body, 2, "ttile[r][tlq] = tld[k].x;");
	cg_line(&body, 2, "ttile[r][tlq + 1] = tld[k].y;");
	cg_line(&body, 2, "ttile[r][tlq + 2] = tld[k].z;");
	cg_line(&body, 2, "ttile[r][tlq + 3] = tld[k].w;");
	cg_line(&body, 1, "}");
	cg_line(&body, 1, "__syncthreads();");
	if (pc.z) {
		cg_line(&body, 1, "/* the coordinates of the thread's positions */");
		cg_sb_puts(&body, pc.z);
		cg_line(&body, 1, "#pragma unroll");
		cg_line(&body, 1, "for (int k = 0; k < %d; k++) {", kr);
		cg_line(&body, 2, "const long ts = ts0 + k * 32 + lane;");
		cg_sb_puts(&body, sc.z);
		cg_line(&body, 1, "}");
	}
	cg_line(&body, 1, "/* the chain: a warp step writes one channel's 32 "
	        "positions */");
	cg_line(&body, 1, "#pragma unroll");
	cg_line(&body, 1, "for (int j = 0; j < %d; j++) {", tq / 8);
	cg_line(&body, 2, "const int tqq = j * 8 + warp;");
	cg_line(&body, 2, "const long tc = tc0 + tqq;");
	cg_line(&body, 2, "if (tc >= %s)", C);
	cg_line(&body, 3, "continue;");
	cg_line(&body, 2, "const long tno = tn * %s + tc, trb = tno * %s;", C, S);
	if (l1.z)
		cg_sb_puts(&body, l1.z);
	cg_line(&body, 2, "#pragma unroll");
	cg_line(&body, 2, "for (int k = 0; k < %d; k++) {", tr / 32);
	cg_line(&body, 3, "const int trr = k * 32 + lane;");
	cg_line(&body, 3, "const long ts = ts0 + trr;");
	cg_line(&body, 3, "if (ts < %s) {", S);
	cg_line(&body, 4, "const long i = trb + ts;");
	for (int k = sp->ndim - 1; k >= 3; k--)
		cg_line(&body, 4, "const long ts%d = tcs%d[k], tq%d = tcq%d[k];", k,
		        k, k, k);
	if (step.z)
		cg_sb_puts(&body, step.z);
	cg_line(&body, 3, "}");
	cg_line(&body, 2, "}");
	cg_line(&body, 1, "}");
	cg_line(&body, 0, "}");
	cg_kernel_comment(G, K, cg_fmt(G, "map over a channels-last input (node "
	                  "%d), tiles of %d positions x %d channels through "
	                  "shared memory: %d threads, cdiv grid", cl, tr, tq,
	                  CL_THREADS));
	cg_kernel_sig(G, K, name, CL_THREADS);
	cg_sb_cat(&G->dev, &body);
	cg_plan_launch(G, K, name, ntt, cg_fmt(G, "%d", CL_THREADS));
done:
	if (l0.oom || l1.oom || step.oom || body.oom || sc.oom || pc.oom)
		G->oom = 1;
	cg_sb_free(&l0);
	cg_sb_free(&l1);
	cg_sb_free(&step);
	cg_sb_free(&body);
	cg_sb_free(&sc);
	cg_sb_free(&pc);
	cg_em_free(&em);
	return KRL_OK;
}

krl_err cg_emit_map(cg_gen *G, cg_kern *K)
{
	const krl_graph *g = G->g;
	const krl_sched *s = &G->s;
	const int blk = s->map_block, ept = s->map_ept;
	int vec = s->map_vec;
	const krl_gnode *sp = &g->n[K->space];
	if (sp->ndim >= 3)
		for (int o = 0; o < K->nout; o++) {
			int cl = cl_leaf(G, K, K->out[o]);
			if (cl < 0)
				continue;
			/* outputs written channels-last: the channel-blocked
			 * kernel, whose stores are in that order */
			int keep = 0;
			for (int q = 0; q < K->nout; q++)
				keep |= cg_is_cl(G, K->out[q]);
			return s->map_cl || keep ? emit_map_cl(G, K, cl) :
			                           emit_map_tile(G, K, cl);
		}
	const char *name = cg_fmt(G, "k%d_map", K->id);
	const char *ntext = cg_prod(G, K->space, 0, sp->ndim);
	cg_em em;
	cg_sb l0 = { 0 }, step = { 0 }, tail = { 0 }, body = { 0 };
	cg_em_init(&em, G, K);
	const char *n = cg_arg_long(G, K, ntext);

	/* the vector (or, with vec 1, the only) loop's step */
	em.vec = vec;
	em.buf[0] = &l0;
	em.ind[0] = 1;
	em.buf[1] = em.buf[2] = &step;
	em.ind[1] = em.ind[2] = 4;
	map_step(&em, vec > 1 ? "i" : "s", vec, 4, NULL);
	const char *guard = cg_guard_cond(&em);

	/* the scalar tail */
	if (vec > 1) {
		cg_em_forget(&em, 1);
		em.vec = 1;
		em.buf[1] = em.buf[2] = &tail;
		em.ind[1] = em.ind[2] = 2;
		map_step(&em, "i", 1, 2, NULL);
	}
	if (G->fail >= 0 || G->err[0] || G->oom)
		goto done;

	cg_line(&body, 0, "{");
	if (l0.z)
		cg_sb_puts(&body, l0.z);
	cg_line(&body, 1, "const int tid = threadIdx.x;");
	if (vec > 1)
		cg_line(&body, 1, "const long nv = (%s) ? %s / %d : 0;", guard, n,
		        vec);
	else
		cg_line(&body, 1, "const long nv = %s;", n);
	cg_line(&body, 1, "for (long base = (long)blockIdx.x * %d; base < nv;",
	        blk * ept);
	cg_line(&body, 1, "     base += (long)gridDim.x * %d) {", blk * ept);
	if (ept > 1) {
		cg_line(&body, 2, "#pragma unroll");
		cg_line(&body, 2, "for (int e = 0; e < %d; e++) {", ept);
		cg_line(&body, 3, "const long s = base + e * %d + tid;", blk);
	} else {
		cg_line(&body, 2, "{");
		cg_line(&body, 3, "const long s = base + tid;");
	}
	cg_line(&body, 3, "if (s < nv) {");
	if (vec > 1)
		cg_line(&body, 4, "const long i = s * %d;", vec);
	if (step.z)
		cg_sb_puts(&body, step.z);
	cg_line(&body, 3, "}");
	cg_line(&body, 2, "}");
	cg_line(&body, 1, "}");
	if (vec > 1) {
		cg_line(&body, 1, "/* the tail, and everything when the vector "
		        "path does not apply */");
		cg_line(&body, 1, "for (long i = nv * %d + (long)blockIdx.x * %d + "
		        "tid; i < %s;", vec, blk, n);
		cg_line(&body, 1, "     i += (long)gridDim.x * %d) {", blk);
		if (tail.z)
			cg_sb_puts(&body, tail.z);
		cg_line(&body, 1, "}");
	}
	cg_line(&body, 0, "}");

	map_finish(G, K, name, &body, cg_fmt(G, "map: %d threads, %d-wide "
	           "vectors, %d per thread", blk, vec, ept), ntext,
	           blk * vec * ept);
done:
	if (l0.oom || step.oom || tail.oom || body.oom)
		G->oom = 1;
	cg_sb_free(&l0);
	cg_sb_free(&step);
	cg_sb_free(&tail);
	cg_sb_free(&body);
	cg_em_free(&em);
	return KRL_OK;
}
