/*
 * GEMMs as generated code (docs/optimizer.md, section 3c, "The 3xTF32
 * GEMM and its epilogue"): a GEMM library node (gemm, linear:
 * krl_gemm_form) written as the 3xTF32 kernel of gemm.c, with what reads
 * its output fused into the kernel's epilogue, so that the output is
 * written once, already transformed:
 * - a triu or tril that is its only reader (the body's own epilogue,
 *   gemm_tri);
 * - or the pointwise chain that reads it (cg_gemm_chain), written here
 *   with the value emitter (codegen_ev.c) as a functor the body calls on
 *   each element; linear's bias is its first link, and a linear with no
 *   chain still gets a functor for the bias alone.
 * The chain's last node goes straight to its buffer from the GEMM; the map
 * kernel the grouping made for it writes only its other outputs (none, as
 * a rule: the driver then skips it). What comes after the chain (a row
 * reduction, a norm) reads that buffer as before.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

/* ==== The chain (graph level) ==== */

int cg_gemm_chain(const krl_graph *g, int n, unsigned char *in)
{
	int nn = g->nn, best = -1, bestn = 0;
	memset(in, 0, (size_t)nn);
	if (krl_graph_is_output(g, n))
		return -1;
	/* dep: depends on n; ok: computable from n at each of its elements
	 * (pointwise, f32, n's dims, inputs n, ok nodes, or nodes that do not
	 * depend on n: side operands) */
	unsigned char *dep = calloc((size_t)nn, 1), *ok = calloc((size_t)nn, 1);
	unsigned char *s = calloc((size_t)nn, 1);
	if (!dep || !ok || !s) {
		free(dep);
		free(ok);
		free(s);
		return -1;
	}
	dep[n] = 1;
	const krl_gnode *gn = &g->n[n];
	for (int m = n + 1; m < nn; m++) {
		const krl_gnode *x = &g->n[m];
		int fits = x->kind == KRL_GN_PW && x->dtype == KRL_F32 &&
		           x->ndim == gn->ndim && cg_same_shape(g, m, n);
		for (int i = 0; i < x->nin; i++) {
			int a = x->in[i];
			dep[m] |= dep[a];
			if (dep[a] && a != n && !ok[a])
				fits = 0;
		}
		ok[m] = fits && dep[m];
	}
	for (int e = n + 1; e < nn; e++) {
		if (!ok[e])
			continue;
		/* the chain ending at e: e and what it reads of the ok nodes */
		memset(s, 0, (size_t)nn);
		s[e] = 1;
		int count = 0;
		for (int m = e; m > n; m--) {
			if (!s[m])
				continue;
			count++;
			for (int i = 0; i < g->n[m].nin; i++)
				if (ok[g->n[m].in[i]])
					s[g->n[m].in[i]] = 1;
		}
		/* n and every node but e are read inside the chain only */
		int valid = 1;
		for (int m = n; m < e && valid; m++) {
			if (m != n && !s[m])
				continue;
			if (m != n && krl_graph_is_output(g, m))
				valid = 0;
			for (int r = m + 1; r < nn && valid; r++)
				for (int i = 0; i < g->n[r].nin; i++)
					if (g->n[r].in[i] == m && !s[r])
						valid = 0;
		}
		if (valid && count >= bestn) {
			best = e;
			bestn = count;
			memcpy(in, s, (size_t)nn);
		}
	}
	free(dep);
	free(ok);
	free(s);
	return best;
}

int cg_chain_of(cg_gen *G, int n, const unsigned char **in)
{
	const krl_graph *g = G->g;
	size_t nn = (size_t)(g->nn > 0 ? g->nn : 1);
	*in = NULL;
	if (!G->chain) {
		G->chain = calloc(nn, sizeof *G->chain);
		G->chain_end = malloc(nn * sizeof *G->chain_end);
		if (!G->chain || !G->chain_end) {
			G->oom = 1;
			return -1;
		}
		/* -1: no chain (asked of any node: cgcat.c's read_ok) */
		for (size_t i = 0; i < nn; i++)
			G->chain_end[i] = -1;
	}
	if (!G->chain[n]) {
		if (!(G->chain[n] = malloc(nn))) {
			G->oom = 1;
			return -1;
		}
		G->chain_end[n] = cg_gemm_chain(g, n, G->chain[n]);
	}
	*in = G->chain[n];
	return G->chain_end[n];
}

/* ==== Geometry ==== */

/* The value of a literal attribute of library node x (dflt when absent);
 * 0 when it is not a literal. */
static int attr_literal(const krl_gnode *x, const char *key, double dflt,
                        double *v)
{
	*v = dflt;
	for (int i = 0; i < x->nattrs; i++) {
		if (strcmp(x->attrs[i].key, key))
			continue;
		krl_scope none = { 0 };
		krl_value val;
		if (krl_expr_eval(x->attrs[i].value, &none, &val, NULL))
			return 0;
		*v = val.is_float ? val.f : (double)val.i;
	}
	return 1;
}

/* The layout, sizes, batch and operands of GEMM node n (form 1 or 2) as
 * the 3xTF32 kernel sees them, in *sp; 0 when the kernel does not apply
 * (ta or tb not a literal 0 or 1, operands not f32, batch dims of A and
 * B that differ). */
static int gemm_geom(cg_gen *G, int n, int form, krl_gemm_spec *sp)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[n];
	const krl_gnode *a = &g->n[x->in[0]], *b = &g->n[x->in[1]];
	memset(sp, 0, sizeof *sp);
	if (x->nout > 1 || a->dtype != KRL_F32 || b->dtype != KRL_F32 ||
	    x->dtype != KRL_F32 || a->ndim < 2 || b->ndim < 2)
		return 0;
	int na = a->ndim, nb = b->ndim;
	if (form == 2) {
		/* x [..., K] @ w^T, w [N, K]: the leading dims are rows */
		if (nb != 2 || g->n[x->in[2]].dtype != KRL_F32)
			return 0;
		sp->tb = 1;
		sp->b_shared = 1;
		sp->m = cg_fmt(G, "%s", cg_prod(G, x->in[0], 0, na - 1));
		sp->k = cg_fmt(G, "(%s)", a->dim[na - 1].text);
		sp->n = cg_fmt(G, "(%s)", b->dim[0].text);
		return 1;
	}
	double ta, tb;
	if (!attr_literal(x, "ta", 0, &ta) || !attr_literal(x, "tb", 0, &tb) ||
	    (ta != 0 && ta != 1) || (tb != 0 && tb != 1))
		return 0;
	sp->ta = (int)ta;
	sp->tb = (int)tb;
	sp->m = cg_fmt(G, "(%s)", a->dim[sp->ta ? na - 1 : na - 2].text);
	sp->k = cg_fmt(G, "(%s)", a->dim[sp->ta ? na - 2 : na - 1].text);
	sp->n = cg_fmt(G, "(%s)", b->dim[sp->tb ? nb - 2 : nb - 1].text);
	const char *batch = cg_prod(G, x->in[0], 0, na - 2);
	sp->b_shared = nb == 2;
	if (!sp->b_shared && (nb != na || strcmp(cg_prod(G, x->in[1], 0, nb - 2),
	                                         batch)))
		return 0;
	if (strcmp(batch, "1")) {
		if (sp->b_shared && !sp->ta) {
			/* one B for every matrix: the batch is more rows of A */
			sp->m = cg_fmt(G, "%s * %s", batch, sp->m);
		} else {
			sp->batch = batch;
		}
	}
	return 1;
}

/* Whether node a, a side operand of a chain after node n, is computed
 * from nothing that a library call after n writes: task buffers,
 * constants, and pointwise nodes and views of those or of library results
 * before n (the kernels run in node order, so these are ready when n's
 * GEMM runs; 43's mask, a library eq_scalar after the score GEMM, is not,
 * and its chain is then left to the kernels after the GEMM). */
static int side_early(const krl_graph *g, int a, int n, int depth)
{
	const krl_gnode *x = &g->n[a];
	if (depth > 64)
		return 0;
	if (x->kind == KRL_GN_BUF || x->kind == KRL_GN_CONST)
		return 1;
	if (x->kind != KRL_GN_PW && x->kind != KRL_GN_VIEW)
		return a < n;
	for (int i = 0; i < x->nin; i++)
		if (!side_early(g, x->in[i], n, depth + 1))
			return 0;
	return 1;
}

int cg_gemm_tc(const cg_gen *G, int n)
{
	return krl_gemm_form(G->g, n) &&
	       (G->s.gemm_impl == 1 ||
	        (G->s.gemm_impl == 2 && krl_gemm_pays(G->g, n)));
}

void cg_gemm_prepare(cg_gen *G)
{
	const krl_graph *g = G->g;
	for (int n = 0; n < g->nn; n++) {
		int form = cg_gemm_tc(G, n) ? krl_gemm_form(g, n) : 0;
		krl_gemm_spec sp;
		cg_igemm q;
		cg_dw dq;
		const unsigned char *in;
		if ((!form || !gemm_geom(G, n, form, &sp)) &&
		    (G->s.conv_impl < 1 || !(cg_igemm_geom(g, n, &q) ||
		                              (G->s.lib_tconv &&
		                               cg_igemm_tconv_geom(g, n, &q)))) &&
		    (!G->s.conv_dw || !cg_dw_geom(g, n, &dq)))
			continue;
		int e = cg_chain_of(G, n, &in), early = 1;
		for (int m = n + 1; e >= 0 && m <= e && early; m++)
			for (int i = 0; in[m] && i < g->n[m].nin && early; i++) {
				int a = g->n[m].in[i];
				early = a == n || in[a] || side_early(g, a, n, 0);
			}
		if (!early)
			continue;
		/* a reduction over the channels or positions of a convolution
		 * (or of its chain) that its kernel's epilogue computes: the
		 * chain stays in registers, the reduction is written */
		int r = cg_conv_red(G, n, e);
		if (r >= 0) {
			G->convred[n] = r;
			G->redconv[r] = n;
			G->mat[r] = 1;
		} else if (r == -1 && e >= 0) {
			G->mat[e] = 1;
		}
	}
}

/* ==== Emission ==== */

/* Whether node m can be evaluated in kernel kid, the GEMM's, before any
 * kernel after it has run: constants, task buffers, nodes written by
 * earlier kernels, and pointwise nodes and views of those. */
static int side_ok(const cg_gen *G, int m, int kid, int depth)
{
	const krl_gnode *x = &G->g->n[m];
	if (depth > 256)
		return 0;
	switch (cg_see(G, m, kid)) {
	case SEE_LEAF:
		return x->kind == KRL_GN_BUF ||
		       (G->home[m] >= 0 && G->home[m] < kid) ||
		       (G->alias[m] && side_ok(G, x->in[0], kid, depth + 1));
	case SEE_INLINE:
		if (x->kind != KRL_GN_CONST && x->kind != KRL_GN_PW &&
		    x->kind != KRL_GN_VIEW)
			return 0;
		for (int i = 0; i < x->nin; i++)
			if (!side_ok(G, x->in[i], kid, depth + 1))
				return 0;
		return 1;
	default:
		return 0;
	}
}

int cg_chain_fits(const cg_gen *G, const cg_kern *K, int n, int e,
                  const unsigned char *in)
{
	const krl_graph *g = G->g;
	for (int m = n + 1; m < e; m++)
		if (in[m] && G->mat[m])
			return 0;
	if (!G->mat[e] || cg_out_decl(g, e, 1) >= 0)
		return 0;
	int h = G->home[e];
	if (h <= K->id || h >= G->nk || G->k[h].kind != CK_MAP)
		return 0;
	for (int m = n + 1; m <= e; m++) {
		if (!in[m])
			continue;
		for (int i = 0; i < g->n[m].nin; i++) {
			int a = g->n[m].in[i];
			if (a != n && !in[a] && !side_ok(G, a, K->id, 0))
				return 0;
		}
	}
	return 1;
}

void cg_take_output(cg_gen *G, cg_kern *K, int e)
{
	cg_kern *M = &G->k[G->home[e]];
	int k = 0;
	for (int o = 0; o < M->nout; o++)
		if (M->out[o] != e)
			M->out[k++] = M->out[o];
	M->nout = k;
	G->home[e] = K->id;
}

void cg_write_epi(cg_gen *G, cg_kern *K, int n, const char *alpha,
                  int bias, int end, int conv, krl_gemm_spec *sp)
{
	const krl_gnode *x = &G->g->n[n];
	cg_em em;
	cg_em_init(&em, G, K);
	cg_sb body = { 0 }, scratch = { 0 }, st = { 0 }, params = { 0 };
	cg_sb init = { 0 }, args = { 0 };
	for (int l = 0; l < 3; l++) {
		em.buf[l] = &body;
		em.ind[l] = 2;
	}
	/* the point: a GEMM's output seen as rows of its last dim; a
	 * convolution's as (image, channel, position) */
	cg_point p;
	memset(&p, 0, sizeof p);
	p.space = n;
	p.rowed = 1;
	if (conv) {
		p.lin = "((long long)(ep_z * ep_m + ep_row) * ep_n + ep_col)";
		p.ax0 = 1;
		p.ax1 = 2;
		p.o = "ep_z";
		p.r = "ep_row";
		p.c = "ep_col";
	} else {
		p.lin = "((long long)ep_row * ep_n + ep_col)";
		p.ax0 = x->ndim - 1;
		p.ax1 = x->ndim;
		p.o = "ep_row";
		p.r = "ep_col";
	}
	const char *v = "ep_acc";
	if (alpha)
		v = cg_fmt(G, "(float)%s * ep_acc", cg_arg_dbl(G, K, alpha));
	if (bias >= 0) {
		cg_val b = cg_ev(&em, bias, &p);
		if (!b.e)
			goto done;
		v = cg_fmt(G, "%s + %s", v, cg_f(&em, b));
	}
	cg_line(&body, 2, "const float ep_v = %s;", v);
	const char *ret = "ep_v";
	if (end >= 0) {
		/* To the emitter n is a leaf (a library result, loaded from
		 * memory). Evaluate it once where nothing is kept (its load,
		 * and the argument of its buffer, are dropped) and make its
		 * memoised value at this point ep_v: every node of the chain
		 * reads n at this point (pointwise nodes evaluate their inputs
		 * where they are), so all of them get the register. */
		int nargs = K->nargs;
		for (int l = 0; l < 3; l++)
			em.buf[l] = &scratch;
		cg_val c = cg_ev(&em, n, &p);
		for (int l = 0; l < 3; l++)
			em.buf[l] = &body;
		K->nargs = nargs;
		int bound = 0;
		for (int i = em.nmemo - 1; i >= 0 && c.e && !bound; i--)
			if (em.memo[i].node == n) {
				em.memo[i].v.e = "ep_v";
				em.memo[i].v.t = 'f';
				bound = 1;
			}
		if (!bound) {
			if (!G->err[0] && G->fail < 0)
				snprintf(G->err, sizeof G->err, "the epilogue of "
				         "GEMM node %d cannot take its value", n);
			goto done;
		}
		cg_val r = cg_ev(&em, end, &p);
		if (!r.e)
			goto done;
		ret = cg_conv(&em, r, KRL_F32);
	}
	cg_line(&body, 2, "return %s;", ret);

	const char *type = cg_fmt(G, "%s_epi", sp->kernel);
	/* its members: the row length (the kernel's N; a convolution's
	 * positions and channels), then the arguments the emitter asked for */
	cg_sb_printf(&st, "\nstruct %s {\n\tlong ep_n;\n%s", type,
	             conv ? "\tlong ep_m;\n" : "");
	for (int i = 0; i < K->nargs; i++) {
		const cg_arg *a = &K->args[i];
		cg_sb_printf(&st, "\t%s %s;\n", a->ctype, a->cname);
		cg_sb_printf(&params, ",\n\t%s %s", a->ctype, a->cname);
		cg_sb_printf(&init, ", %s", a->cname);
		cg_sb_printf(&args, ", %s", a->plan);
	}
	/* a GEMM's: the first row of its matrix among C's rows (a batched
	 * GEMM sets it for matrix z: z M; the body passes the row within
	 * the matrix); zero as the braces leave it otherwise */
	if (conv)
		cg_sb_puts(&st, "\t__device__ __forceinline__ float operator()"
		           "(float ep_acc, int ep_z, int ep_row, int ep_col) "
		           "const\n\t{\n");
	else
		cg_sb_puts(&st, "\tlong ep_r0;\n\t__device__ __forceinline__ "
		           "float operator()(float ep_acc, int ep_rin, int ep_col) "
		           "const\n\t{\n\t\tconst long ep_row = ep_r0 + ep_rin;"
		           "\n");
	cg_sb_cat(&st, &body);
	cg_sb_puts(&st, "\t}\n};\n");
	cg_sb_cat(&G->dev, &st);
	if (params.oom || init.oom || args.oom)
		G->oom = 1;
	sp->epi = type;
	sp->epi_params = cg_fmt(G, "%s", params.z ? params.z : "");
	sp->epi_init = cg_fmt(G, "{%s%s}", conv ? "P, K" : "N",
	                      init.z ? init.z : "");
	sp->epi_args = cg_fmt(G, "%s", args.z ? args.z : "");
done:
	cg_sb_free(&body);
	cg_sb_free(&scratch);
	cg_sb_free(&st);
	cg_sb_free(&params);
	cg_sb_free(&init);
	cg_sb_free(&args);
	cg_em_free(&em);
}

int cg_gemm_fused(cg_gen *G, int n)
{
	const unsigned char *in;
	int count = 0;
	if (G->skip[n] != 2 || G->home[n] < 0)
		return 0;
	int e = cg_chain_of(G, n, &in);
	if (e >= 0 && (G->home[e] == G->home[n] ||
	               (G->convred && G->convred[n] >= 0)))
		for (int m = 0; m < G->g->nn; m++)
			count += in[m];
	return count;
}

/* Whether GEMM node n (form, its geometry sp) is split along K
 * (krl_gemm_split_pays at the set generated for). */
static int gemm_split_pays(const krl_graph *g, int n, int form,
                           const krl_gemm_spec *sp)
{
	const krl_gnode *x = &g->n[n], *a = &g->n[x->in[0]];
	if (sp->batch || x->ndim < 1)
		return 0;
	int64_t nn = x->dim[x->ndim - 1].val, mn = 1;
	for (int i = 0; i < x->ndim; i++)
		mn *= x->dim[i].val;
	int na = a->ndim;
	int64_t k = a->dim[form == 2 || !sp->ta ? na - 1 : na - 2].val;
	return nn > 0 && mn > 0 && krl_gemm_split_pays(mn / nn, nn, k);
}

/* ==== The masked pair ==== */

/* Whether side operand m (a mask) can be read by krl_mrange: of rank 2
 * or more, its leading dims 1 and its last two e's, and a param seen
 * through views (bool: true masks) or `param == c` (f32; 50's lowered
 * eq_scalar); *buf the param's BUF node, *value c, *isbool which form.
 * Views are reshapes, so the param holds the mask's elements in order. */
static int mask_form(const krl_graph *g, int m, int e, int *buf,
                     double *value, int *isbool)
{
	const krl_gnode *M = &g->n[m], *E = &g->n[e];
	if (M->ndim < 2 || E->ndim < 2 || !cg_dims_one(M, 0, M->ndim - 2) ||
	    !krl_graph_text_same(g, M->dim[M->ndim - 2].text,
	                         E->dim[E->ndim - 2].text) ||
	    !krl_graph_text_same(g, M->dim[M->ndim - 1].text,
	                         E->dim[E->ndim - 1].text))
		return 0;
	int v = m;
	*isbool = 1;
	*value = 0;
	if (M->kind == KRL_GN_PW && M->pw == KRL_PW_EQ && M->nin == 2 &&
	    g->n[M->in[1]].kind == KRL_GN_CONST &&
	    krl_graph_text_fixed(g, g->n[M->in[1]].cexpr)) {
		*isbool = 0;
		*value = g->n[M->in[1]].cval;
		v = M->in[0];
	}
	while (g->n[v].kind == KRL_GN_VIEW)
		v = g->n[v].in[0];
	const krl_gnode *b = &g->n[v];
	if (b->kind != KRL_GN_BUF || !g->task ||
	    g->task->decls[b->buf].role != KRL_ROLE_PARAM ||
	    b->dtype != (*isbool ? KRL_BOOL : KRL_F32))
		return 0;
	*buf = v;
	return 1;
}

/* Whether the chain (in[], from GEMM node n to its end e) is zero
 * wherever the condition `cond` of one of its where nodes holds, whatever
 * the GEMM's value: evaluated in float64 with that value 0, +-1, +-1e30,
 * +-inf and NaN and the condition true (1 wherever it is read). Only the
 * GEMM, chain nodes, the condition and constants may be read; a constant
 * read at or after the where must be the same in every shape set. */
static int zero_where(const krl_graph *g, int n, int e,
                      const unsigned char *in, int w, int cond)
{
	static const double xs[] = { 0, 1, -1, 1e30, -1e30, INFINITY,
	                             -INFINITY, NAN };
	double *val = malloc((size_t)(e - n + 1) * sizeof *val);
	int ok = val != NULL;
	for (size_t t = 0; ok && t < sizeof xs / sizeof xs[0]; t++) {
		val[0] = xs[t];
		for (int m = n + 1; m <= e && ok; m++) {
			const krl_gnode *x = &g->n[m];
			const krl_pwinfo *pi = in[m] ? krl_pw_info(x->pw) : NULL;
			double a[3] = { 0, 0, 0 };
			if (!in[m])
				continue;
			if (!pi || !pi->f || x->nin > 3) {
				ok = 0;
				break;
			}
			for (int i = 0; i < x->nin && ok; i++) {
				int q = x->in[i];
				const krl_gnode *y = &g->n[q];
				if (q == n || in[q])
					a[i] = val[q - n];
				else if (q == cond)
					a[i] = 1.0;
				else if (y->kind == KRL_GN_CONST &&
				         (m < w || krl_graph_text_fixed(g, y->cexpr)))
					a[i] = y->cval;
				else
					ok = 0;
			}
			val[m - n] = pi->f(a);
		}
		ok = ok && val[e - n] == 0.0;
	}
	free(val);
	return ok;
}

/* krl_mrange, once per candidate: the column range of each 128-row block
 * of a mask, written by init from the param it is computed from. */
static void emit_mrange(cg_gen *G)
{
	if (G->mrange_body)
		return;
	G->mrange_body = 1;
	cg_sb_puts(&G->dev,
	"\n/*\n"
	" * krl_mrange (init): of a mask m [R, C] (true where masked: m != 0 in\n"
	" * bool, or m == value in f32), for row block b (rows 128 b ..):\n"
	" * rng[2 b] the first column some row of it leaves unmasked, rng[2 b +\n"
	" * 1] one past the last (C and 0 where the block is masked whole).\n"
	" */\n"
	"extern \"C\" __global__ void __launch_bounds__(256)\n"
	"krl_mrange(const void *__restrict__ m, int isbool, double value, long R,\n"
	"           long C, int *__restrict__ rng)\n"
	"{\n"
	"\t__shared__ int lo, hi;\n"
	"\tif (threadIdx.x == 0) {\n"
	"\t\tlo = (int)C;\n"
	"\t\thi = 0;\n"
	"\t}\n"
	"\t__syncthreads();\n"
	"\tconst long r0 = (long)blockIdx.x * 128;\n"
	"\tconst long r1 = r0 + 128 < R ? r0 + 128 : R;\n"
	"\tint mlo = (int)C, mhi = 0;\n"
	"\tfor (long i = r0 * C + threadIdx.x; i < r1 * C; i += 256) {\n"
	"\t\tconst bool masked = isbool ?\n"
	"\t\t\t((const unsigned char *)m)[i] != 0 :\n"
	"\t\t\t((const float *)m)[i] == (float)value;\n"
	"\t\tif (!masked) {\n"
	"\t\t\tconst int j = (int)(i % C);\n"
	"\t\t\tmlo = j < mlo ? j : mlo;\n"
	"\t\t\tmhi = j + 1 > mhi ? j + 1 : mhi;\n"
	"\t\t}\n"
	"\t}\n"
	"\tatomicMin(&lo, mlo);\n"
	"\tatomicMax(&hi, mhi);\n"
	"\t__syncthreads();\n"
	"\tif (threadIdx.x == 0) {\n"
	"\t\trng[2 * blockIdx.x] = lo;\n"
	"\t\trng[2 * blockIdx.x + 1] = hi;\n"
	"\t}\n"
	"}\n");
}

/* The masked pair (docs/optimizer.md 3c): GEMM node n (its chain ending
 * at e, in[]) whose chain is zero wherever a mask from a param holds
 * (50: relu(where(bias == 0, -inf, scale x))), e read only by GEMM n2 as
 * its A; then e's tiles that the mask covers whole are not computed and
 * n2 sums only the columns a row block leaves unmasked. Writes the
 * range's derived buffer and its init launch, tells n2 (G->mrng) and
 * sets sp's range: n2, or -1 when n is no such GEMM. */
static int mask_pair(cg_gen *G, cg_kern *K, int n, int e,
                     const unsigned char *in, krl_gemm_spec *sp)
{
	const krl_graph *g = G->g;
	const krl_gnode *E = &g->n[e];
	if (krl_gemm_form(g, n) != 1 || E->ndim < 2 || G->nuse[e] != 1 ||
	    krl_graph_is_output(g, e) || cg_out_decl(g, e, 0) >= 0 ||
	    (!sp->batch && E->ndim > 2))
		return -1;
	int n2 = -1;
	for (int r = e + 1; r < g->nn && n2 < 0; r++)
		for (int i = 0; i < g->n[r].nin; i++)
			if (g->n[r].in[i] == e)
				n2 = r;
	krl_gemm_spec s2;
	if (n2 < 0 || krl_gemm_form(g, n2) != 1 || !cg_gemm_tc(G, n2) ||
	    g->n[n2].in[0] != e ||
	    g->n[n2].in[1] == e || !gemm_geom(G, n2, 1, &s2) || s2.ta ||
	    (!s2.batch && E->ndim > 2) || gemm_split_pays(g, n2, 1, &s2))
		return -1;
	int w = -1, buf = -1, isbool = 0;
	double value = 0;
	for (int m = n + 1; m <= e && w < 0; m++) {
		const krl_gnode *x = &g->n[m];
		if (!in[m] || x->kind != KRL_GN_PW || x->pw != KRL_PW_WHERE ||
		    x->in[0] == n || in[x->in[0]] ||
		    !mask_form(g, x->in[0], e, &buf, &value, &isbool) ||
		    !zero_where(g, n, e, in, m, x->in[0]))
			continue;
		w = m;
	}
	if (w < 0)
		return -1;
	if (!G->mrng) {
		G->mrng = calloc((size_t)g->nn, sizeof *G->mrng);
		if (!G->mrng) {
			G->oom = 1;
			return -1;
		}
	}
	emit_mrange(G);
	const char *R = E->dim[E->ndim - 2].text, *C = E->dim[E->ndim - 1].text;
	const char *rng = cg_fmt(G, "k%d_rng", K->id);
	cg_sb_printf(&G->bufs, "derived %s i32 [2 * cdiv((%s), 128)]\n", rng, R);
	cg_sb_printf(&G->init, "  # k%d: the columns each 128-row block of node "
	             "%d's mask leaves unmasked\n", K->id, g->n[w].in[0]);
	cg_sb_printf(&G->init, "  launch krl_mrange grid=(cdiv((%s), 128)) "
	             "block=(256) args(%s, %d, %.17g, (%s), (%s), %s)\n", R,
	             cg_bufname(G, buf), isbool, value, R, C, rng);
	G->mrng[n2] = rng;
	sp->rng = rng;
	sp->rng_mode = 1;
	G->nmasked++;
	return n2;
}

int cg_emit_gemm(cg_gen *G, cg_kern *K)
{
	const krl_graph *g = G->g;
	int n = K->anchor[0];
	const krl_gnode *x = &g->n[n];
	int form = krl_gemm_form(g, n);
	krl_gemm_spec sp;
	if (!form || !gemm_geom(G, n, form, &sp))
		return 0;
	sp.a = cg_bufname(G, x->in[0]);
	sp.b = cg_bufname(G, x->in[1]);
	sp.c = cg_bufname(G, n);
	sp.kernel = cg_fmt(G, "k%d_gemm", K->id);
	/* the second of a masked pair: its A's row blocks' column ranges */
	if (G->mrng && G->mrng[n]) {
		sp.rng = G->mrng[n];
		sp.rng_mode = 2;
	}
	const char *alpha = form == 1 ? cg_attr_plan(G, x, "alpha", NULL) : NULL;
	int bias = form == 2 ? x->in[2] : -1;

	/* the pointwise chain that reads C */
	const unsigned char *in = NULL;
	int end = -1;
	if (G->s.fuse && (end = cg_chain_of(G, n, &in)) >= 0 &&
	    !cg_chain_fits(G, K, n, end, in))
		end = -1;
	if (G->oom)
		return 1;

	/* else triu(C) or tril(C) as the only reader of C: the GEMM's
	 * epilogue masks C as these two ops do, so this is about their
	 * meaning and names them */
	int tri = -1;
	if (form == 1 && end < 0 && G->nuse[n] == 1 && cg_out_decl(g, n, 0) < 0)
		for (int m = n + 1; m < g->nn; m++)
			if (g->n[m].kind == KRL_GN_LIB && g->n[m].nin == 1 &&
			    g->n[m].in[0] == n && (!strcmp(g->n[m].op, "triu") ||
			                           !strcmp(g->n[m].op, "tril")))
				tri = m;
	cg_sb what = { 0 };
	if (tri >= 0) {
		sp.tri = !strcmp(g->n[tri].op, "triu") ? 1 : 2;
		sp.alpha = alpha;
		sp.diag = cg_attr_plan(G, &g->n[tri], "diagonal", NULL);
		sp.c = cg_bufname(G, tri);
		G->skip[tri] = 1; /* its call is this kernel's epilogue */
		G->nfused_lib++;
		G->skip[n] = 2;   /* and C goes straight to its buffer */
		cg_sb_printf(&what, " and the %s of node %d in its epilogue",
		             g->n[tri].op, tri);
	} else if (end >= 0) {
		cg_take_output(G, K, end);
		sp.c = cg_bufname(G, end);
		G->skip[n] = 2;   /* C never reaches memory: the chain's end does */
		int n2 = G->s.gemm_mask ? mask_pair(G, K, n, end, in, &sp) : -1;
		if (n2 >= 0)
			cg_sb_printf(&what, ", the tiles its mask covers whole "
			             "skipped (node %d, which reads it, sums only "
			             "the columns a row block leaves)", n2);
	} else {
		sp.alpha = alpha;
		G->skip[n] = 3;   /* written as a kernel, C in its own buffer */
	}
	if (end >= 0 || bias >= 0) {
		cg_sb_puts(&what, ".\n * Its epilogue (k" );
		cg_sb_printf(&what, "%d_gemm_epi):", K->id);
		if (bias >= 0)
			cg_sb_printf(&what, " the bias %s%s", cg_bufname(G, bias),
			             end >= 0 ? ", then" : "");
		for (int m = n + 1; m <= end; m++)
			if (in[m]) {
				const krl_pwinfo *pi = krl_pw_info(g->n[m].pw);
				cg_sb_printf(&what, "\n *   node %d %s", m,
				             pi ? pi->name : "pw");
			}
		cg_sb_printf(&what, "%s writes %s", end >= 0 ? "\n *" : ";",
		             sp.c);
	}
	G->ngemm_tc++;

	int layout = sp.ta * 2 + sp.tb;
	if (!(G->gemm_bodies & (1u << layout))) {
		char *body = krl_gemm_body(sp.ta, sp.tb);
		if (!body) {
			G->oom = 1;
			cg_sb_free(&what);
			return 1;
		}
		cg_sb_puts(&G->dev, body);
		free(body);
		G->gemm_bodies |= 1u << layout;
	}
	cg_sb_printf(&G->dev, "\n/*\n * k%d (gemm, 3xTF32 on tensor cores: fp32 "
	             "accuracy from three TF32\n * products): node %d (%s)%s.\n */",
	             K->id, n, x->op, what.z ? what.z : "");
	if (what.oom)
		G->oom = 1;
	cg_sb_free(&what);
	if (end >= 0 || bias >= 0) {
		cg_write_epi(G, K, n, alpha, bias, end, 0, &sp);
		if (!sp.epi)
			return 1; /* G->err, G->fail or G->oom says why */
	}
	int split = gemm_split_pays(g, n, form, &sp);
	if (split) {
		sp.splits = cg_fmt(G, "max(1, min(cdiv(2 * sm_count, cdiv(%s, 128) "
		                   "* cdiv(%s, 128)), %s / %d))", sp.m, sp.n, sp.k,
		                   KRL_GEMM_SPLIT_MIN_K);
		sp.part = cg_fmt(G, "k%d_gemm_p", K->id);
		cg_sb_printf(&G->bufs, "buffer %s f32 [%s, %s, %s]\n", sp.part,
		             sp.splits, sp.m, sp.n);
	}
	char *dev = NULL, *launch = NULL;
	if (krl_gemm_kernel(&sp, &dev, &launch, NULL)) {
		G->oom = 1;
		return 1;
	}
	cg_sb_puts(&G->dev, dev);
	cg_sb_printf(&G->plan, "# k%d: node %d as the 3xTF32 GEMM%s\n", K->id, n,
	             split ? ", split along K, the slices added in order" : "");
	cg_sb_puts(&G->plan, launch);
	free(dev);
	free(launch);
	return 1;
}
