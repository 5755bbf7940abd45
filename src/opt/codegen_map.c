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
 * lin0 is the linear index of lane 0; vec lanes follow it. With vec 1, a
 * non-NULL `at` gives the point's rowed coordinates too, so that operands
 * broadcast along its rows index by them, without dividing lin0. */
static void map_step(cg_em *em, const char *lin0, int vec, int ind,
                     const cg_point *at)
{
	cg_gen *G = em->G;
	cg_kern *K = em->K;
	const krl_graph *g = G->g;
	cg_val v[CG_MAX_KNODES][4];
	em->vlin = lin0;
	for (int q = 0; q < vec; q++) {
		cg_point p;
		memset(&p, 0, sizeof p);
		if (at && vec == 1)
			p = *at;
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
static int cl_leaf(cg_gen *G, cg_kern *K, int n, int depth)
{
	const krl_graph *g = G->g;
	if (depth > 64)
		return -1;
	for (int q = 0; q < g->n[n].nin; q++) {
		int m = g->n[n].in[q];
		if (cg_is_cl(G, m) && cg_same_shape(g, m, K->space))
			return m;
		if (g->n[m].kind == KRL_GN_PW &&
		    cg_see(G, m, K->id) == SEE_INLINE) {
			int c = cl_leaf(G, K, m, depth + 1);
			if (c >= 0)
				return c;
		}
	}
	return -1;
}

/*
 * A map kernel over the shape [N, C, s...] of a channels-last leaf cl
 * (memory [N, s..., C], S = prod(s)), by tiles of 32 channels and P
 * positions: a block takes positions s0..s0+P-1 of one sample and
 * channels c0..c0+31 at a time, the tiles in (n, s-tile, c-tile) order,
 * channels fastest, so that the blocks at work read whole runs of [s][C]
 * and write neighbouring runs of each channel's plane. The block loads
 * its tile into shared memory along the channels (a warp reads 32
 * consecutive floats of one position), then each warp evaluates the
 * chain down the positions of its channels (a warp writes 32 consecutive
 * NCHW elements), each element one scalar step at its NCHW index i with
 * rowed coordinates (n, c, s): per-channel operands index by c, without
 * dividing i, and NCHW operands of the output's shape read coalesced.
 * Blocks of B threads (a multiple of 32 dividing 1024: W = B / 32 warps)
 * take P = max(32, 4 W) positions, so that each thread has at least 4
 * loads in flight. A walk in NCHW order would read the leaf with a stride
 * of C; one thread per position and 8 channels, reading 32-byte pieces 4C
 * bytes apart, measured 1.9x slower than the copy rate.
 */
static krl_err emit_map_cl(cg_gen *G, cg_kern *K, int cl)
{
	const krl_graph *g = G->g;
	const krl_sched *s = &G->s;
	const int blk = s->map_block, warps = blk / 32;
	const int P = 4 * warps > 32 ? 4 * warps : 32;
	const krl_gnode *sp = &g->n[K->space];
	if (blk % 32 || 32 % warps) {
		snprintf(G->err, sizeof G->err, "map over channels-last node %d: "
		         "block %d is not a multiple of 32 dividing 1024", cl, blk);
		return KRL_OK;
	}
	const char *name = cg_fmt(G, "k%d_map", K->id);
	const char *ct = cg_prod(G, K->space, 1, 2);
	const char *st = cg_prod(G, K->space, 2, sp->ndim);
	const char *ntt = cg_fmt(G, "(%s) * cdiv(%s, %d) * cdiv(%s, 32)",
	                         cg_prod(G, K->space, 0, 1), st, P, ct);
	cg_em em;
	cg_sb l0 = { 0 }, steps = { 0 }, body = { 0 };
	cg_em_init(&em, G, K);
	const char *C = cg_arg_long(G, K, ct), *S = cg_arg_long(G, K, st);
	const char *CB = cg_arg_long(G, K, cg_fmt(G, "cdiv(%s, 32)", ct));
	const char *SB = cg_arg_long(G, K, cg_fmt(G, "cdiv(%s, %d)", st, P));
	const char *NT = cg_arg_long(G, K, ntt);
	const char *X = cg_arg_buf(G, K, cl, 0);
	G->need |= CG_NEED_DIV;
	em.buf[0] = &l0;
	em.ind[0] = 1;
	em.buf[1] = em.buf[2] = &steps;
	em.ind[1] = em.ind[2] = 3;
	em.vec = 1;
	em.clnode = cl;
	cg_point at;
	memset(&at, 0, sizeof at);
	at.rowed = 1;
	at.ax0 = 1;
	at.ax1 = 2;
	at.o = "tn";
	for (int m = 0; m < P / 32 && G->fail < 0 && !G->err[0]; m++)
		for (int k = 0; k < 32 / warps && G->fail < 0 && !G->err[0]; k++) {
			int c = k * warps, q = m * 32;
			cg_em_forget(&em, 1);
			em.clval = cg_fmt(G, "ttile[tx + %d][ty + %d]", q, c);
			at.r = cg_fmt(G, "(tc0 + ty + %d)", c);
			at.c = cg_fmt(G, "(ts + %d)", q);
			cg_line(&steps, 2, "if (tc0 + ty + %d < %s && ts + %d < %s) {", c,
			        C, q, S);
			cg_line(&steps, 3, "const long i = (tn * %s + tc0 + ty + %d) * %s"
			        " + ts + %d;", C, c, S, q);
			map_step(&em, "i", 1, 3, &at);
			cg_line(&steps, 2, "}");
		}
	if (G->fail >= 0 || G->err[0] || G->oom)
		goto done;
	cg_line(&body, 0, "{");
	cg_line(&body, 1, "__shared__ float ttile[%d][33];", P);
	if (l0.z)
		cg_sb_puts(&body, l0.z);
	cg_line(&body, 1, "const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;");
	cg_line(&body, 1, "for (long e = blockIdx.x; e < %s; e += gridDim.x) {",
	        NT);
	cg_line(&body, 2, "const long tc0 = krl_mod(e, %s) * 32;", CB);
	cg_line(&body, 2, "const long tq = krl_div(e, %s);", CB);
	cg_line(&body, 2, "const long ts0 = krl_mod(tq, %s) * %d;", SB, P);
	cg_line(&body, 2, "const long tn = krl_div(tq, %s);", SB);
	cg_line(&body, 2, "#pragma unroll");
	cg_line(&body, 2, "for (int r = ty; r < %d; r += %d)", P, warps);
	cg_line(&body, 3, "ttile[r][tx] = ts0 + r < %s && tc0 + tx < %s ? "
	        "%s[(tn * %s + ts0 + r) * %s + tc0 + tx] : 0.f;", S, C, X, S, C);
	cg_line(&body, 2, "__syncthreads();");
	cg_line(&body, 2, "const long ts = ts0 + tx;");
	if (steps.z)
		cg_sb_puts(&body, steps.z);
	cg_line(&body, 2, "/* the tile is refilled for the next e */");
	cg_line(&body, 2, "__syncthreads();");
	cg_line(&body, 1, "}");
	cg_line(&body, 0, "}");
	map_finish(G, K, name, &body, cg_fmt(G, "map over a channels-last "
	           "input (node %d), tiles of 32 channels x %d positions through "
	           "shared memory: %d threads", cl, P, blk), ntt, 1);
done:
	if (l0.oom || steps.oom || body.oom)
		G->oom = 1;
	cg_sb_free(&l0);
	cg_sb_free(&steps);
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
			int cl = cl_leaf(G, K, K->out[o], 0);
			if (cl >= 0)
				return emit_map_cl(G, K, cl);
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
