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
		if (vec > 1 && g->n[n].dtype == KRL_F32 &&
		    cg_out_decl(g, n, 1) < 0) {
			const char *ptr = cg_arg_buf(G, K, n, 1);
			const char *vt = vec == 4 ? "float4" : "float2";
			cg_sb args = { 0 };
			for (int q = 0; q < vec; q++)
				cg_sb_printf(&args, "%s%s", q ? ", " : "",
				             cg_f(em, v[o][q]));
			cg_line(em->buf[2], ind,
			        "*reinterpret_cast<%s *>(%s + %s) = make_%s(%s);", vt,
			        ptr, lin0, vt, args.z ? args.z : "");
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
	const char *crd[KRL_MAX_DIM];
	cg_sb sc = { 0 };
	crd[0] = "tn";
	const char *q = "ts";
	for (int k = sp->ndim - 1; k >= 2; k--) {
		if (k == 2) {
			crd[k] = q;
			break;
		}
		const char *D = cg_arg_long(G, K, cg_fmt(G, "(%s)", sp->dim[k].text));
		crd[k] = cg_fmt(G, "ts%d", k);
		cg_line(&sc, 2, "const long ts%d = krl_mod(%s, %s), tq%d = "
		        "krl_div(%s, %s);", k, q, D, k, q, D);
		q = cg_fmt(G, "tq%d", k);
	}
	at.coord = crd;
	for (int j = 0; j < 8 && G->fail < 0 && !G->err[0]; j++) {
		cg_em_forget(&em, 1);
		em.cllane = j;
		at.r = cg_fmt(G, "(tc0 + %d)", j);
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
	cg_line(&body, 2, "const long ts = krl_mod(e, %s);", S);
	cg_line(&body, 2, "const long tq = krl_div(e, %s);", S);
	cg_line(&body, 2, "const long tc0 = krl_mod(tq, %s) * 8;", CB);
	cg_line(&body, 2, "const long tn = krl_div(tq, %s);", CB);
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
	if (steps.z)
		cg_sb_puts(&body, steps.z);
	cg_line(&body, 1, "}");
	cg_line(&body, 0, "}");
	map_finish(G, K, name, &body, cg_fmt(G, "map over a channels-last "
	           "input (node %d), 8 channels per thread: %d threads", cl,
	           blk), ntt, blk);
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
 * The tiled form (map.cl=tile) of the map kernel over a channels-last
 * leaf: a block of CL_THREADS threads takes a tile of CL_R positions x
 * CL_Q channels of one sample at a time (position tiles fastest, so that
 * the blocks at work write on along each channel's plane), reads it into
 * shared memory in 128-byte runs of channels (float4 loads when C is a
 * multiple of 4), and writes it out in 128-byte runs of positions: each
 * warp step takes 4 channels x 8 runs of 4 positions, and each run is one
 * vector step of the chain at rowed point (n, c, s) with float4 stores,
 * or, when S or an operand's extent is not a multiple of 4 (a run-time
 * check), 4 scalar steps. The tile's rows are CL_Q + 1 floats long so
 * that both phases' shared accesses hit 32 banks. bench/transpose_probe
 * measured this structure for the pure transpose (sm*x* variants).
 */
#define CL_R 128
#define CL_Q 64
#define CL_THREADS 256

static krl_err emit_map_tile(cg_gen *G, cg_kern *K, int cl)
{
	const krl_graph *g = G->g;
	const krl_sched *s = &G->s;
	const krl_gnode *sp = &g->n[K->space];
	const int steps = CL_R * CL_Q / 128, warps = CL_THREADS / 32;
	const char *name = cg_fmt(G, "k%d_map", K->id);
	const char *ct = cg_prod(G, K->space, 1, 2);
	const char *st = cg_prod(G, K->space, 2, sp->ndim);
	const char *ntt = cg_fmt(G, "(%s) * cdiv(%s, %d) * cdiv(%s, %d)",
	                         cg_prod(G, K->space, 0, 1), st, CL_R, ct, CL_Q);
	cg_em em;
	cg_sb l0 = { 0 }, vstep = { 0 }, sstep = { 0 }, body = { 0 };
	cg_em_init(&em, G, K);
	const char *C = cg_arg_long(G, K, ct), *S = cg_arg_long(G, K, st);
	const char *SB = cg_arg_long(G, K, cg_fmt(G, "cdiv(%s, %d)", st, CL_R));
	const char *CB = cg_arg_long(G, K, cg_fmt(G, "cdiv(%s, %d)", ct, CL_Q));
	const char *NT = cg_arg_long(G, K, ntt);
	const char *X = cg_arg_buf(G, K, cl, 0);
	G->need |= CG_NEED_DIV;
	em.buf[0] = &l0;
	em.ind[0] = 1;
	em.clnode = cl;
	em.clfmt = "ttile[trr + %d][tqq]";
	cg_point at;
	memset(&at, 0, sizeof at);
	at.rowed = 1;
	at.ax0 = 1;
	at.ax1 = 2;
	at.o = "tn";
	at.r = "tc";
	/* the vector step: positions ts..ts+3 of channel tc */
	em.buf[1] = em.buf[2] = &vstep;
	em.ind[1] = em.ind[2] = 5;
	em.vec = 4;
	em.cllane = 0;
	at.c = "ts";
	map_step(&em, "i", 4, 5, &at);
	const char *guard = cg_guard_cond(&em);
	/* the scalar steps */
	em.vec = 1;
	em.buf[1] = em.buf[2] = &sstep;
	em.ind[1] = em.ind[2] = 6;
	for (int k = 0; k < 4 && G->fail < 0 && !G->err[0]; k++) {
		cg_em_forget(&em, 1);
		em.cllane = k;
		at.c = cg_fmt(G, "(ts + %d)", k);
		cg_line(&sstep, 5, "if (ts + %d < %s) {", k, S);
		cg_line(&sstep, 6, "const long i = (tn * %s + tc) * %s + ts + %d;",
		        C, S, k);
		map_step(&em, "i", 1, 6, &at);
		cg_line(&sstep, 5, "}");
	}
	if (G->fail >= 0 || G->err[0] || G->oom)
		goto done;
	cg_line(&body, 0, "{");
	cg_line(&body, 1, "__shared__ float ttile[%d][%d];", CL_R, CL_Q + 1);
	if (l0.z)
		cg_sb_puts(&body, l0.z);
	cg_line(&body, 1, "const int lane = threadIdx.x & 31, warp = "
	        "threadIdx.x >> 5;");
	cg_line(&body, 1, "const bool tld4 = (%s & 3) == 0;", C);
	cg_line(&body, 1, "const bool tst4 = (%s & 3) == 0 && (%s);", S, guard);
	cg_line(&body, 1, "for (long e = blockIdx.x; e < %s; e += gridDim.x) {",
	        NT);
	cg_line(&body, 2, "const long ts0 = krl_mod(e, %s) * %d;", SB, CL_R);
	cg_line(&body, 2, "const long tq = krl_div(e, %s);", SB);
	cg_line(&body, 2, "const long tc0 = krl_mod(tq, %s) * %d;", CB, CL_Q);
	cg_line(&body, 2, "const long tn = krl_div(tq, %s);", CB);
	cg_line(&body, 2, "/* load: a warp step reads 4 positions x 32 "
	        "channels */");
	cg_line(&body, 2, "for (int w = warp; w < %d; w += %d) {", steps, warps);
	cg_line(&body, 3, "const int trr = w %% %d * 4 + (lane >> 3);", CL_R / 4);
	cg_line(&body, 3, "const int tqq = w / %d * 32 + (lane & 7) * 4;",
	        CL_R / 4);
	cg_line(&body, 3, "const long s = ts0 + trr, c = tc0 + tqq;");
	cg_line(&body, 3, "const long b = (tn * %s + s) * %s + c;", S, C);
	cg_line(&body, 3, "float4 v = make_float4(0.f, 0.f, 0.f, 0.f);");
	cg_line(&body, 3, "if (s < %s && tld4 && c < %s) {", S, C);
	cg_line(&body, 4, "v = *reinterpret_cast<const float4 *>(%s + b);", X);
	cg_line(&body, 3, "} else if (s < %s) {", S);
	cg_line(&body, 4, "if (c < %s) v.x = %s[b];", C, X);
	cg_line(&body, 4, "if (c + 1 < %s) v.y = %s[b + 1];", C, X);
	cg_line(&body, 4, "if (c + 2 < %s) v.z = %s[b + 2];", C, X);
	cg_line(&body, 4, "if (c + 3 < %s) v.w = %s[b + 3];", C, X);
	cg_line(&body, 3, "}");
	cg_line(&body, 3, "ttile[trr][tqq] = v.x;");
	cg_line(&body, 3, "ttile[trr][tqq + 1] = v.y;");
	cg_line(&body, 3, "ttile[trr][tqq + 2] = v.z;");
	cg_line(&body, 3, "ttile[trr][tqq + 3] = v.w;");
	cg_line(&body, 2, "}");
	cg_line(&body, 2, "__syncthreads();");
	cg_line(&body, 2, "/* the chain: a warp step writes 4 channels x 32 "
	        "positions */");
	cg_line(&body, 2, "for (int w = warp; w < %d; w += %d) {", steps, warps);
	cg_line(&body, 3, "const int trr = w %% %d * 32 + (lane & 7) * 4;",
	        CL_R / 32);
	cg_line(&body, 3, "const int tqq = w / %d * 4 + (lane >> 3);", CL_R / 32);
	cg_line(&body, 3, "const long tc = tc0 + tqq, ts = ts0 + trr;");
	cg_line(&body, 3, "if (tc >= %s || ts >= %s)", C, S);
	cg_line(&body, 4, "continue;");
	cg_line(&body, 3, "if (tst4) {");
	cg_line(&body, 4, "{");
	cg_line(&body, 5, "const long i = (tn * %s + tc) * %s + ts;", C, S);
	if (vstep.z)
		cg_sb_puts(&body, vstep.z);
	cg_line(&body, 4, "}");
	cg_line(&body, 3, "} else {");
	cg_line(&body, 4, "{");
	if (sstep.z)
		cg_sb_puts(&body, sstep.z);
	cg_line(&body, 4, "}");
	cg_line(&body, 3, "}");
	cg_line(&body, 2, "}");
	cg_line(&body, 2, "/* the tile is refilled for the next e */");
	cg_line(&body, 2, "__syncthreads();");
	cg_line(&body, 1, "}");
	cg_line(&body, 0, "}");
	cg_kernel_comment(G, K, cg_fmt(G, "map over a channels-last input (node "
	                  "%d), tiles of %d positions x %d channels through "
	                  "shared memory: %d threads, persistent grid", cl, CL_R,
	                  CL_Q, CL_THREADS));
	cg_kernel_sig(G, K, name, CL_THREADS);
	cg_sb_cat(&G->dev, &body);
	cg_plan_launch(G, K, name, cg_fmt(G, "min(sm_count * %d, %s)",
	               2048 / CL_THREADS, ntt), cg_fmt(G, "%d", CL_THREADS));
	(void)s;
done:
	if (l0.oom || vstep.oom || sstep.oom || body.oom)
		G->oom = 1;
	cg_sb_free(&l0);
	cg_sb_free(&vstep);
	cg_sb_free(&sstep);
	cg_sb_free(&body);
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
			if (cl >= 0)
				return s->map_cl ? emit_map_tile(G, K, cl) :
				                   emit_map_cl(G, K, cl);
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
