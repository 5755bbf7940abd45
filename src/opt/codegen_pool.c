/*
 * Pool kernels (codegen.h): max and average pooling over windows of the
 * last 1, 2 or 3 dims of a tensor (nn.MaxPoolNd, nn.AvgPoolNd), with the
 * pointwise nodes before the pool evaluated at every window tap (a pool
 * of relu(x)) and those after it at every output (relu of a pool). Max
 * pooling's values and indices are anchors of one kernel; an index
 * nobody reads is not computed.
 *
 * Output-parallel. The output is seen as [rows, OW] (rows: the leading
 * dims and the outer pooled ones). A warp owns 32 * ept consecutive
 * outputs of a row, lane l taking outputs l, l + 32, ..., so every step of
 * a warp loads and stores neighbouring elements; the outer window bounds
 * are worked out once per thread. Each output walks its window from
 * global memory: the windows of neighbouring outputs overlap and L1
 * serves the repeats.
 *
 * The window arithmetic is PyTorch's (and the golden's, krl_pool_golden
 * in src/ops/reduce/family.c): max pooling takes the taps start, start +
 * d, ... inside the input (the first moved past the left padding in
 * steps of the dilation), keeps the first strict maximum or the window's
 * last NaN, and its index is the tap's flat position in the input plane;
 * average pooling sums the window clipped to the input and divides by the
 * window clipped to the padded input (count_include_pad), by the taps
 * inside (count_include_pad=0) or by divisor_override; a window with no
 * tap inside gives 0. Every size and the geometry (kernel size, stride,
 * padding, dilation) are run-time arguments, so the candidate serves
 * every shape set. pool.taps=inc (the default) computes offsets within
 * an input plane as int (long for a plane too big for one: the kernel's
 * work is a template over that type), finds a window's first tap without
 * a loop and steps the offsets from tap to tap; pool.taps=mul, the first
 * kernel, multiplies 64-bit indices out at every tap. krl_div divides in
 * 32 bits when the operands fit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

static const char *const DIMS[3] = { "T", "H", "W" };
static const char *const COORD[3] = { "t", "h", "w" };

typedef struct pinfo {
	int rank;                /* pooled dims, 1 to 3 */
	int avg;
	int mx, amx, av;         /* the anchors: max, its index, mean; or -1 */
	int x;                   /* the pooled input */
	const char *cip, *dov;   /* avg: count_include_pad, divisor_override:
	                            C text (a literal or an argument) */
	int cip_lit, dov_lit;    /* ... written as literals: their values */
	long cip_v, dov_v;
} pinfo;

/* Whether attribute key of x is the same integer in every shape set
 * (absent: dflt); its value in *v. */
static int attr_int_literal(const krl_gnode *x, const char *key, long dflt,
                            long *v)
{
	*v = dflt;
	for (int i = 0; i < x->nattrs; i++) {
		if (strcmp(x->attrs[i].key, key))
			continue;
		krl_scope none = { 0 };
		krl_value val;
		if (!krl_opt_expr_literal(x->attrs[i].value) ||
		    krl_expr_eval(x->attrs[i].value, &none, &val, NULL) ||
		    val.is_float)
			return 0;
		*v = (long)val.i;
	}
	return 1;
}

/* Whether attribute key of x (absent: dflt) has one value in every
 * shape set (krl_graph_text_fixed); the value, at the generation's set,
 * in *v. */
static int attr_fixed(const krl_graph *g, const krl_gnode *x,
                      const char *key, long dflt, long *v)
{
	*v = dflt;
	for (int i = 0; i < x->nattrs; i++) {
		if (strcmp(x->attrs[i].key, key))
			continue;
		char *z = krl_opt_expr_text(x->attrs[i].value);
		int fixed = z && krl_graph_text_fixed(g, z) && !isnan(x->aval[i]);
		free(z);
		if (fixed)
			*v = (long)x->aval[i];
		return fixed;
	}
	return 1;
}

/* Whether a window of size ks and dilation dl over pi's pooled dims is
 * small enough to walk as loops of literal counts: at most 8 taps a dim,
 * 64 in all. */
static int walkable(const pinfo *pi, long ks, long dl)
{
	if (ks < 1 || ks > 8 || dl < 1)
		return 0;
	long taps = 1;
	for (int j = 0; j < pi->rank; j++)
		taps *= ks;
	return taps <= 64;
}

/* Whether pool node a0's window has a size (and, for a max, a dilation)
 * fixed in every shape set and walkable: its size in *ks, its dilation in
 * *dl. */
static int fixed_window(const krl_graph *g, const krl_gnode *a0,
                        const pinfo *pi, long *ks, long *dl)
{
	*dl = 1;
	return attr_fixed(g, a0, "kernel_size", 1, ks) &&
	       (pi->avg || attr_fixed(g, a0, "dilation", 1, dl)) &&
	       walkable(pi, *ks, *dl);
}

/* The value of attribute key of pool node a0 at the set generated for
 * (absent: dflt); NaN where it has none. */
static double attr_at_set(const krl_gnode *a0, const char *key, double dflt)
{
	for (int i = 0; i < a0->nattrs; i++)
		if (!strcmp(a0->attrs[i].key, key))
			return a0->aval[i];
	return dflt;
}

/* Whether pool node a0's window, at the shape set generated for, is
 * walkable (as fixed_window, but fixed or not): its size in *ks, its
 * dilation in *dl. */
static int window_at_set(const krl_gnode *a0, const pinfo *pi, long *ks,
                         long *dl)
{
	double k = attr_at_set(a0, "kernel_size", 1);
	double d = pi->avg ? 1 : attr_at_set(a0, "dilation", 1);
	/* in range before the casts */
	if (isnan(k) || isnan(d) || k < 1 || k > 8 || d < 1 || d > 1e6)
		return 0;
	*ks = (long)k;
	*dl = (long)d;
	return walkable(pi, *ks, *dl);
}

/* The tap loops of a window fixed in every shape set (fixed_window: size
 * ks, dilation dl), at indent ind: literal counts, unrolled, taps outside
 * the input skipped (and, with first, whatever its condition rejects, at
 * the outermost dim); coordinates i<d> from the window starts <d>s. The
 * caller closes the r loops. */
static void literal_taps(cg_gen *G, cg_sb *b, int ind, const pinfo *pi,
                         long ks, long dl, const char *first, int check)
{
	const int r = pi->rank;
	cg_line(b, ind, "/* the window's %ld%s%s taps%s */", ks, r > 1 ?
	        cg_fmt(G, " x %ld", ks) : "", r > 2 ? cg_fmt(G, " x %ld", ks) :
	        "", check ? ", those outside the input skipped" : "");
	for (int j = 0; j < r; j++) {
		const char *d = COORD[3 - r + j], *D = DIMS[3 - r + j];
		cg_line(b, ind + j, "#pragma unroll");
		cg_line(b, ind + j, "for (int k%s = 0; k%s < %ld; k%s++) {", d, d,
		        ks, d);
		cg_line(b, ind + j + 1, "const I i%s = %ss + k%s%s;", d, d, d,
		        dl > 1 ? cg_fmt(G, " * %ld", dl) : "");
		if (!check)
			continue;
		cg_line(b, ind + j + 1, "if (%si%s < 0 || i%s >= n%s)", j ? "" :
		        first, d, d, D);
		cg_line(b, ind + j + 2, "continue;");
	}
}

/*
 * The register window of a 1-d average pool (win_branch): a thread takes
 * WIN_E consecutive outputs of a row. Where the window is the one of the
 * set generated for with stride 1 (win_geometry) and rows start 16-byte
 * aligned, it reads the span its outputs' windows cover as float4s into
 * registers, from the 16-byte boundary at or before the first window's
 * start, and takes every tap from there: a warp's loads are contiguous
 * runs of 512 bytes, about one per output against one scalar load per
 * tap. Outputs whose span leaves the input take their taps one by one,
 * checked. Judged at kb1 on the H200 (2026-12-04): 44 1.97 -> 1.17 ms
 * (torch.compile 1.63). A max is left out: a hand-written max window
 * judged 2.28 ms on 41 against the walk's 2.49, but the generated one
 * 4.18 (not separated), so a max keeps the walk.
 */
#define WIN_E 4

static void cat_dedent(cg_sb *o, const cg_sb *b, int n);
static void window(cg_sb *b, int ind, const pinfo *pi, int j);
static void avg_mean(cg_gen *G, cg_sb *body, int ind, const pinfo *pi);

/* Whether the register window applies to K's pool (win_branch): a mean
 * over one pooled dim of an f32 buffer (not computed inline), its window
 * literal-sized at the set generated for (ks) with stride 1; its padding
 * there in *pad. */
static int win_geometry(cg_gen *G, cg_kern *K, const krl_gnode *a0,
                        const pinfo *pi, long ks, long *pad)
{
	const krl_graph *g = G->g;
	if (pi->rank != 1 || !pi->avg || g->n[pi->x].dtype != KRL_F32 ||
	    cg_inline_in(G, pi->x, K))
		return 0;
	double st = attr_at_set(a0, "stride", (double)ks);
	double pd = attr_at_set(a0, "padding", 0);
	if (isnan(st) || isnan(pd) || st != 1 || pd < 0 || pd > 1 << 20)
		return 0;
	*pad = (long)pd;
	return 1;
}

/* Writes the register-window branch (see WIN_E) at indent 1 of a 1-d
 * average pool kernel's body: its own grid loop, then return. The outputs'
 * code is epi (written at indent from), with the mean in mean at output
 * index o. */
static void win_branch(cg_gen *G, cg_sb *b, const pinfo *pi, long ks,
                       long pad, int blk, const char *xp, const cg_sb *epi,
                       int from)
{
	const int E = WIN_E;
	const long S = (4 - pad % 4) % 4; /* the span starts S before ws */
	const long span = S + (E - 1) + ks;
	const long nv = (span + 3) / 4;
	cg_line(b, 1, "/* the window of the set generated for (%ld taps, stride "
	        "1, padding %ld) over rows that start 16-byte aligned: %d "
	        "consecutive outputs per thread, their span in registers */", ks,
	        pad, E);
	cg_line(b, 1, "if (ksize == %ld && stride == 1 && pad == %ld && (IW & 3) "
	        "== 0) {", ks, pad);
	cg_line(b, 2, "const long wgroups = (OW + %d) / %d; /* per row */", E - 1,
	        E);
	cg_line(b, 2, "for (long t = (long)blockIdx.x * %d + threadIdx.x; t < "
	        "rows * wgroups;", blk);
	cg_line(b, 2, "     t += (long)gridDim.x * %d) {", blk);
	cg_line(b, 3, "const long row = krl_div(t, wgroups);");
	cg_line(b, 3, "const long ow0 = (t - row * wgroups) * %d;", E);
	cg_line(b, 3, "const long xb = row * IW; /* where the row starts in x */");
	cg_line(b, 3, "const long sb = ow0 - %ld; /* the span's start, "
	        "16-byte aligned */", pad + S);
	cg_line(b, 3, "if (sb >= 0 && sb + %ld <= IW && ow0 + %d <= OW) {",
	        4 * nv, E);
	cg_line(b, 4, "float v[%ld];", 4 * nv);
	cg_line(b, 4, "#pragma unroll");
	cg_line(b, 4, "for (int q = 0; q < %ld; q++) {", nv);
	cg_line(b, 5, "const float4 f = *reinterpret_cast<const float4 *>(%s + "
	        "xb + sb + 4 * q);", xp);
	cg_line(b, 5, "v[4 * q] = f.x;");
	cg_line(b, 5, "v[4 * q + 1] = f.y;");
	cg_line(b, 5, "v[4 * q + 2] = f.z;");
	cg_line(b, 5, "v[4 * q + 3] = f.w;");
	cg_line(b, 4, "}");
	cg_line(b, 4, "#pragma unroll");
	cg_line(b, 4, "for (int e = 0; e < %d; e++) {", E);
	cg_line(b, 5, "float sum = 0.f;");
	cg_line(b, 5, "#pragma unroll");
	cg_line(b, 5, "for (int k = 0; k < %ld; k++)", ks);
	cg_line(b, 6, "sum += v[%ld + e + k];", S);
	/* inside the input, every divisor is the window's size */
	const char *div = pi->dov_lit && pi->dov_v > 0 ?
	                  cg_fmt(G, "%ld.f", pi->dov_v) :
	                  pi->dov_lit ? cg_fmt(G, "%ld.f", ks) :
	                  cg_fmt(G, "(%s > 0 ? (float)%s : %ld.f)", pi->dov,
	                         pi->dov, ks);
	cg_line(b, 5, "const float mean = sum / %s;", div);
	cg_line(b, 5, "const long o = row * OW + ow0 + e;");
	cat_dedent(b, epi, from - 5);
	cg_line(b, 4, "}");
	cg_line(b, 4, "continue;");
	cg_line(b, 3, "}");
	cg_line(b, 3, "/* at a border or the row's end: tap by tap */");
	cg_line(b, 3, "for (int e = 0; e < %d; e++) {", E);
	cg_line(b, 4, "const long ow = ow0 + e;");
	cg_line(b, 4, "if (ow >= OW)");
	cg_line(b, 5, "break;");
	window(b, 4, pi, 0);
	cg_line(b, 4, "float sum = 0.f;");
	cg_line(b, 4, "for (long iw = wlo; iw < whi; iw++)");
	cg_line(b, 5, "sum += %s[xb + iw];", xp);
	avg_mean(G, b, 4, pi);
	cg_line(b, 4, "const long o = row * OW + ow;");
	cat_dedent(b, epi, from - 4);
	cg_line(b, 3, "}");
	cg_line(b, 2, "}");
	cg_line(b, 2, "return;");
	cg_line(b, 1, "}");
}

/*
 * The column strip of a 2-d max (strip_branch): a thread takes R
 * outputs down a column (pool.strip: 4, 2, 1 or 8; with a `u`, every
 * tap of the strip is loaded first from its place clamped into the
 * input, in one block the compiler issues back to back: the plain
 * strip's per-row `continue` and per-tap guards made
 * ptxas load one tap at a time, each max waiting on its load, so a
 * thread's 18 loads ran one latency after another). Where the window is
 * the one of the set generated for (literal size, stride and padding,
 * dilation 1; no index), each input row the strip's windows cover has
 * its taps maxed once (the row max), and that goes to every output whose
 * window holds the row: (R - 1) S + K rows of K taps for R outputs,
 * against R K^2 taps walked one output at a time
 * (6's 3 x 3 pool of stride 1: 4.5 taps an output, not 9; 18's of stride
 * 2, 6.75), and a chain before the pool (18's bias and relu) is computed
 * as many times fewer. A max is associative and the NaN-keeping one too,
 * so the value is the walk's; the index would not be (its first strict
 * maximum), so a max with its index keeps the walk. Windows at a border
 * skip the taps outside the input, as the walk does.
 */

/* Whether the column strip applies to K's pool: a 2-d max without its
 * index whose window at the set generated for is literal (ks, dilation
 * dl 1) with a stride of at most ks; the stride and padding there in
 * *st and *pad. */
static int strip_geometry(const krl_gnode *a0, const pinfo *pi, long ks,
                          long dl, long *st, long *pad)
{
	if (pi->rank != 2 || pi->avg || pi->amx >= 0 || pi->mx < 0 || dl != 1)
		return 0;
	double s = attr_at_set(a0, "stride", (double)ks);
	double pd = attr_at_set(a0, "padding", 0);
	if (isnan(s) || isnan(pd) || s < 1 || s > ks || pd < 0 || pd > ks)
		return 0;
	*st = (long)s;
	*pad = (long)pd;
	return 1;
}

#define STRIP_TIND 6   /* indent of the strip's tap body */

/* The coordinate names of a tap in x [outer..., pooled r dims] (nd
 * dims): sc<k> along the outer dims, i<d> along the pooled ones (the
 * literal taps' and the strip's ih, iw). */
static void tap_coords(cg_gen *G, int nd, int r, const char **co)
{
	for (int k = 0; k < nd - r; k++)
		co[k] = cg_fmt(G, "sc%d", k);
	for (int j = 0; j < r; j++)
		co[nd - r + j] = cg_fmt(G, "i%s", COORD[3 - r + j]);
}

/* Into crd (indent 0): the coordinates sc<k> of x's first nouter dims
 * from their linear index q (a C name), one division a dim. */
static void outer_coords(cg_gen *G, cg_kern *K, const krl_gnode *x,
                         int nouter, const char *q, cg_sb *crd)
{
	for (int k = nouter - 1; k >= 0; k--) {
		if (!k) {
			cg_line(crd, 0, "const long sc0 = %s;", q);
			break;
		}
		const char *D = cg_arg_long(G, K, cg_fmt(G, "(%s)",
		                            x->dim[k].text));
		cg_line(crd, 0, "const long sc%d = krl_mod(%s, %s);", k, q, D);
		const char *nq = cg_fmt(G, "sq%d", k);
		cg_line(crd, 0, "const long %s = krl_div(%s, %s);", nq, q, D);
		q = nq;
	}
}

/* The column strip's tap (into tap, at STRIP_TIND; its level-0 code into
 * l0): the input at xi, from a point that names its coordinates, sc<k>
 * along the outer dims and ih, iw, so that an operand broadcast over the
 * plane (18's bias before its pool) is indexed by them, where the walk's
 * tap divides xi at every tap; crd (indent 0) computes the sc<k> from
 * the plane pl, one division a dim a thread. 0 where the evaluation
 * failed (G->fail or G->err says why). */
static int strip_tap(cg_gen *G, cg_kern *K, const pinfo *pi, cg_sb *l0,
                     cg_sb *tap, cg_sb *crd)
{
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[pi->x];
	const int nd = x->ndim;
	const char *co[KRL_MAX_DIM];
	tap_coords(G, nd, 2, co);
	cg_em em;
	cg_em_init(&em, G, K);
	em.buf[0] = l0;
	em.ind[0] = 1;
	em.buf[1] = em.buf[2] = tap;
	em.ind[1] = em.ind[2] = STRIP_TIND;
	cg_point p;
	memset(&p, 0, sizeof p);
	p.space = pi->x;
	p.lin = "xi";
	p.coord = co;
	cg_val v = cg_ev(&em, pi->x, &p);
	if (v.e) {
		G->need |= CG_NEED_RED;
		cg_line(tap, STRIP_TIND, "m = krl_maxf(m, %s); /* NaN wins */",
		        cg_f(&em, v));
	}
	/* the outer coordinates, where an operand indexes by them */
	if (v.e && em.used_coord)
		outer_coords(G, K, x, nd - 2, "pl", crd);
	cg_em_free(&em);
	return v.e != NULL;
}

/* The strip's tap at (ih, iw) of the plane at xb, at indent 5: its
 * offsets, then tap's code (written at indent tind), which leaves the
 * max with it in m. */
static void strip_tap_at(cg_sb *b, const cg_sb *tap, int tind)
{
	cg_line(b, 5, "const I xw = ih * nW + iw; /* the tap in the plane */");
	cg_line(b, 5, "const long xi = xb + xw;");
	cat_dedent(b, tap, tind - 5);
}

/* Writes the column-strip branch (see above) at indent 1 of a 2-d max
 * pool's walk (inc: after inc_prelude), R outputs down a column a thread
 * (pool.strip): its own grid loop, then return. The input's value at xi
 * is tap's code (written at indent tind, ending `m = krl_maxf(m,
 * ...)`; the tap's coordinates are sc<k> along the outer dims, which crd
 * computes from the plane pl, and ih, iw), the outputs' code epi (at
 * indent from, the max in m at output index o). */
static void strip_branch(cg_sb *b, long ks, long st, long pad, int blk,
                         int R, int unc, const cg_sb *crd, const cg_sb *tap,
                         int tind, const cg_sb *epi, int from)
{
	const long span = (R - 1) * st + ks;
	cg_line(b, 1, "/* the window of the set generated for (%ld x %ld taps, "
	        "stride %ld, padding %ld): %d output%s down a column a thread, "
	        "each input row's taps maxed once for every output whose window "
	        "holds it */", ks, ks, st, pad, R, R > 1 ? "s" : "");
	cg_line(b, 1, "if (ksize == %ld && stride == %ld && pad == %ld && dil == "
	        "1) {", ks, st, pad);
	cg_line(b, 2, "const long planes = rows / OH;");
	cg_line(b, 2, "const long hgroups = (OH + %d) / %d; /* strips a column "
	        "*/", R - 1, R);
	cg_line(b, 2, "const long wgroups = (OW + 31) / 32; /* warps a row */");
	cg_line(b, 2, "for (long t = (long)blockIdx.x * %d + threadIdx.x; t < "
	        "planes * hgroups * wgroups * 32;", blk);
	cg_line(b, 2, "     t += (long)gridDim.x * %d) {", blk);
	cg_line(b, 3, "const long u = t >> 5;");
	cg_line(b, 3, "const long ph = krl_div(u, wgroups); /* plane, strip */");
	cg_line(b, 3, "const long ow = (u - ph * wgroups) * 32 + (t & 31);");
	cg_line(b, 3, "if (ow >= OW)");
	cg_line(b, 4, "continue;");
	cg_line(b, 3, "const long pl = krl_div(ph, hgroups); /* the plane */");
	cg_line(b, 3, "const I oh0 = (I)(ph - pl * hgroups) * %d;", R);
	cat_dedent(b, crd, -3);
	cg_line(b, 3, "const long xb = pl * plane; /* where the plane starts in "
	        "x */");
	cg_line(b, 3, "const I hs = oh0 * st - pd, ws = (I)ow * st - pd;");
	if (!unc)
		cg_line(b, 3, "const bool inw = ws >= 0 && ws + %ld <= nW;", ks);
	cg_line(b, 3, "float mv[%d];", R);
	cg_line(b, 3, "#pragma unroll");
	cg_line(b, 3, "for (int j = 0; j < %d; j++)", R);
	cg_line(b, 4, "mv[j] = -INFINITY;");
	if (unc) {
		/* every tap loaded first, from its place clamped into the
		 * input, so that the loads are one block the compiler issues
		 * back to back. Exact for a max of dilation 1: a window is a
		 * run of rows (columns) that meets the input, so where it
		 * reaches past an edge it holds the edge row (column) the
		 * clamped tap reads, and a max of a value twice is the max */
		cg_line(b, 3, "float tv[%ld][%ld]; /* the taps, clamped into "
		        "the input */", span, ks);
		cg_line(b, 3, "#pragma unroll");
		cg_line(b, 3, "for (int q = 0; q < %ld; q++) {", span);
		cg_line(b, 4, "#pragma unroll");
		cg_line(b, 4, "for (int kw = 0; kw < %ld; kw++) {", ks);
		cg_line(b, 5, "const I hq = hs + q, wq = ws + kw;");
		cg_line(b, 5, "const I ih = hq < 0 ? 0 : hq < nH ? hq : nH - 1;");
		cg_line(b, 5, "const I iw = wq < 0 ? 0 : wq < nW ? wq : nW - 1;");
		cg_line(b, 5, "float m = -INFINITY;");
		strip_tap_at(b, tap, tind);
		cg_line(b, 5, "tv[q][kw] = m;");
		cg_line(b, 4, "}");
		cg_line(b, 3, "}");
	}
	cg_line(b, 3, "#pragma unroll");
	cg_line(b, 3, "for (int q = 0; q < %ld; q++) {", span);
	if (unc) {
		cg_line(b, 4, "float m = -INFINITY; /* the row's max */");
		cg_line(b, 4, "#pragma unroll");
		cg_line(b, 4, "for (int kw = 0; kw < %ld; kw++)", ks);
		cg_line(b, 5, "m = krl_maxf(m, tv[q][kw]);");
	} else {
		cg_line(b, 4, "const I ih = hs + q;");
		cg_line(b, 4, "if (ih < 0 || ih >= nH)");
		cg_line(b, 5, "continue;");
		cg_line(b, 4, "float m = -INFINITY; /* the row's max */");
		cg_line(b, 4, "#pragma unroll");
		cg_line(b, 4, "for (int kw = 0; kw < %ld; kw++) {", ks);
		cg_line(b, 5, "const I iw = ws + kw;");
		cg_line(b, 5, "if (!inw && (iw < 0 || iw >= nW))");
		cg_line(b, 6, "continue;");
		strip_tap_at(b, tap, tind);
		cg_line(b, 4, "}");
	}
	cg_line(b, 4, "/* the outputs whose windows hold row q */");
	cg_line(b, 4, "#pragma unroll");
	cg_line(b, 4, "for (int j = 0; j < %d; j++)", R);
	cg_line(b, 5, "if (q >= j * %ld && q < j * %ld + %ld)", st, st, ks);
	cg_line(b, 6, "mv[j] = krl_maxf(mv[j], m);");
	cg_line(b, 3, "}");
	cg_line(b, 3, "#pragma unroll");
	cg_line(b, 3, "for (int j = 0; j < %d; j++) {", R);
	cg_line(b, 4, "if (oh0 + j >= OH)");
	cg_line(b, 5, "break;");
	cg_line(b, 4, "const float m = mv[j];");
	cg_line(b, 4, "const long o = (pl * OH + oh0 + j) * OW + ow;");
	cat_dedent(b, epi, from - 4);
	cg_line(b, 3, "}");
	cg_line(b, 2, "}");
	cg_line(b, 2, "return;");
	cg_line(b, 1, "}");
}

/* Appends b's lines to o, each with n fewer leading tabs (n < 0: -n
 * more). */
static void cat_dedent(cg_sb *o, const cg_sb *b, int n)
{
	for (const char *z = b->z ? b->z : ""; *z;) {
		for (int k = 0; k < n && *z == '\t'; k++)
			z++;
		for (int k = 0; k < -n; k++)
			cg_sb_puts(o, "\t");
		const char *e = strchr(z, '\n');
		size_t len = e ? (size_t)(e - z) + 1 : strlen(z);
		cg_sb_printf(o, "%.*s", (int)len, z);
		z += len;
	}
}

/* A run-time long of K, or the literal when the attribute is one. */
static const char *attr_long(cg_gen *G, cg_kern *K, const krl_gnode *x,
                             const char *key, long dflt, int *lit, long *v)
{
	if ((*lit = attr_int_literal(x, key, dflt, v)))
		return cg_fmt(G, "%ld", *v);
	return cg_arg_long(G, K, cg_fmt(G, "(%s)",
	                                cg_attr_plan(G, x, key, cg_fmt(G, "%ld",
	                                                            dflt))));
}

/* The window of output coordinate o<d> along pooled dim j, in the
 * kernel's names (ksize, stride, pad, dil; I<D> the input's size):
 * [<d>lo, <d>hi) holds the taps inside the input, and for average
 * pooling [<d>s, <d>p) is the window clipped to the padded input. */
static void window(cg_sb *b, int ind, const pinfo *pi, int j)
{
	const char *D = DIMS[3 - pi->rank + j], *d = COORD[3 - pi->rank + j];
	cg_line(b, ind, "const long %ss = o%s * stride - pad; /* window start */",
	        d, d);
	if (pi->avg) {
		cg_line(b, ind, "const long %sp = krl_minl(%ss + ksize, I%s + pad); "
		        "/* end in the padded input */", d, d, D);
		cg_line(b, ind, "const long %slo = krl_maxl(%ss, 0), %shi = "
		        "krl_minl(%sp, I%s);", d, d, d, d, D);
		return;
	}
	cg_line(b, ind, "const long %shi = krl_minl(%ss + (ksize - 1) * dil + 1, "
	        "I%s);", d, d, D);
	cg_line(b, ind, "long %slo = %ss; /* the first tap inside the input */",
	        d, d);
	cg_line(b, ind, "while (%slo < 0)", d);
	cg_line(b, ind + 1, "%slo += dil;", d);
}

/* window()'s bounds for pool.taps=inc, of the in-plane type I and
 * without a loop: o<d> and the geometry are I (st, pd, dl; kx the
 * window's extent, n<D> the input's size). */
static void window_inc(cg_sb *b, int ind, const pinfo *pi, int j)
{
	const char *D = DIMS[3 - pi->rank + j], *d = COORD[3 - pi->rank + j];
	cg_line(b, ind, "const I %ss = %so%s * st - pd; /* window start */", d,
	        j == pi->rank - 1 ? "(I)" : "", d);
	if (pi->avg) {
		cg_line(b, ind, "const I %sp = %ss + kx < n%s + pd ? %ss + kx : n%s + "
		        "pd; /* end in the padded input */", d, d, D, d, D);
		cg_line(b, ind, "const I %slo = %ss > 0 ? %ss : 0, %shi = %sp < n%s ? "
		        "%sp : n%s;", d, d, d, d, d, D, d, D);
		return;
	}
	cg_line(b, ind, "/* the taps inside the input: the first past the "
	        "padding, in steps of dl */");
	cg_line(b, ind, "const I %slo = %ss >= 0 ? %ss : %ss + (dl - 1 - %ss) / dl "
	        "* dl;", d, d, d, d, d);
	cg_line(b, ind, "const I %shi = %ss + kx < n%s ? %ss + kx : n%s;", d, d, D,
	        d, D);
}

/* The flat index, within the input plane's first `upto` pooled dims, of
 * the point whose coordinates are named pre<d>post ("ih", "hlo"):
 * "(it * IH + ih) * IW + iw" for three (the sizes named dn<D>). */
static const char *plane_index(cg_gen *G, const pinfo *pi, int upto,
                               const char *pre, const char *post,
                               const char *dn)
{
	const char *z = NULL;
	for (int j = 0; j < upto; j++) {
		const char *d = COORD[3 - pi->rank + j];
		const char *c = cg_fmt(G, "%s%s%s", pre, d, post);
		if (!z)
			z = c;
		else
			z = cg_fmt(G, "%s * %s%s + %s", j > 1 ?
			           cg_fmt(G, "(%s)", z) : z, dn, DIMS[3 - pi->rank + j],
			           c);
	}
	return z ? z : "0";
}

/* Average pooling's mean of the window whose bounds window_inc (or
 * window) declared, from its sum: the divisor as divisor_override and
 * count_include_pad say. */
static void avg_mean(cg_gen *G, cg_sb *body, int ind, const pinfo *pi)
{
	const int r = pi->rank;
	cg_sb t = { 0 }, n = { 0 }, ne = { 0 };
	for (int j = 0; j < r; j++) {
		const char *d = COORD[3 - r + j];
		cg_sb_printf(&t, "%s(%sp - %ss)", j ? " * " : "", d, d);
		cg_sb_printf(&n, "%s(%shi - %slo)", j ? " * " : "", d, d);
		cg_sb_printf(&ne, "%s%slo < %shi", j ? " && " : "", d, d);
	}
	/* one dim: its parentheses are the product's */
	const char *ts = r > 1 ? cg_fmt(G, "(%s)", t.z) : t.z;
	const char *ns = r > 1 ? cg_fmt(G, "(%s)", n.z) : n.z;
	const char *div, *why;
	if (pi->dov_lit && pi->dov_v > 0) {
		div = cg_fmt(G, "%ld.f", pi->dov_v);
		why = "divisor_override";
	} else if (pi->dov_lit && pi->cip_lit) {
		div = cg_fmt(G, "(float)%s", pi->cip_v ? ts : ns);
		why = pi->cip_v ? "the window in the padded input "
		      "(count_include_pad)" : "the taps inside the input";
	} else {
		/* the second line under the first's value */
		div = cg_fmt(G, "%s > 0 ? (float)%s :\n%.*s%18s%s ? (float)%s : "
		             "(float)%s", pi->dov, pi->dov, ind, "\t\t\t\t\t\t", "",
		             pi->cip, ts, ns);
		why = "divisor_override, else as count_include_pad says";
	}
	cg_line(body, ind, "/* the divisor: %s */", why);
	cg_line(body, ind, "const float div = %s;", div);
	cg_line(body, ind, "const float mean = %s ? sum / div : 0.f;", ne.z);
	if (t.oom || n.oom || ne.oom)
		G->oom = 1;
	cg_sb_free(&t);
	cg_sb_free(&n);
	cg_sb_free(&ne);
}

/* The start of a pool.taps=inc kernel's work, a template over the
 * in-plane type I: the call of walk<long> (args: the kernel's arguments)
 * where a plane widened by a window's reach does not fit in an int, the
 * input's sizes and the geometry as I, and with steps the step of each
 * outer dim's tap loop. */
static void inc_prelude(cg_gen *G, cg_sb *body, const pinfo *pi,
                        const char *walk, const char *args, int steps)
{
	static const char *const NS[3] = { "nT", "nH", "nW" };
	const int r = pi->rank;
	const char *const *ns = NS + 3 - r;
	cg_line(body, 1, "/* how far a window reaches past the input */");
	cg_line(body, 1, "const long reach = 2 * pad + stride + ksize%s;",
	        pi->avg ? "" : " * dil");
	cg_line(body, 1, "if constexpr (sizeof(I) < sizeof(long)) {");
	cg_line(body, 2, "if (%s >= 0x80000000l) {", r > 2 ?
	        "(IT + reach) * (IH + reach) * (IW + reach)" : r > 1 ?
	        "(IH + reach) * (IW + reach)" : "IW + reach");
	cg_line(body, 3, "/* a huge plane */");
	cg_line(body, 3, "%s<long>(%s);", walk, args ? args : "");
	cg_line(body, 3, "return;");
	cg_line(body, 2, "}");
	cg_line(body, 1, "}");
	cg_sb_printf(body, "\tconst I ");
	for (int j = 0; j < r; j++)
		cg_sb_printf(body, "%s%s = I%s", j ? ", " : "", ns[j],
		             DIMS[3 - r + j]);
	cg_sb_printf(body, "; /* the input's size%s */\n", r > 1 ? "s" : "");
	cg_line(body, 1, "const I st = stride, pd = pad%s;",
	        pi->avg ? "" : ", dl = dil");
	cg_line(body, 1, "const I kx = %s; /* a window's extent */",
	        pi->avg ? "ksize" : "(ksize - 1) * dil + 1");
	/* the step of each outer dim's tap loop */
	for (int j = 0; steps && j < r - 1; j++) {
		const char *d = COORD[3 - r + j];
		cg_sb sz = { 0 };
		for (int k = j + 1; k < r; k++)
			cg_sb_printf(&sz, "%s%s", k > j + 1 ? " * " : "", ns[k]);
		cg_line(body, 1, "const I %sstep = %s%s; /* from a tap %s to "
		        "the next */", d, pi->avg ? "" : "dl * ", sz.z,
		        j == r - 2 ? "row" : "plane");
		if (sz.oom)
			G->oom = 1;
		cg_sb_free(&sz);
	}
}

/* Evaluates K's outputs at output point p (NCHW index "o") and stores
 * them there: the pointwise nodes after the pool. */
static void store_outputs(cg_em *em, const cg_point *p)
{
	cg_gen *G = em->G;
	cg_kern *K = em->K;
	for (int o = 0; o < K->nout && !(G->fail >= 0 || G->err[0]); o++) {
		cg_val w = cg_ev(em, K->out[o], p);
		if (!w.e)
			break;
		/* outputs written channels-last (emit_pool_cl) at the memory
		 * index of the point */
		cg_store(em, 2, K->out[o], p->plin && cg_is_cl(G, K->out[o]) ?
		         p->plin : "o", w);
	}
}

/* Writes pool kernel `name` of K: with inc, body as the template walk<I>
 * and the kernel calling walk<int> (args: its arguments); else body as
 * the kernel's. */
static void emit_walk(cg_gen *G, cg_kern *K, const char *name,
                      const char *walk, cg_sb *body, const char *args,
                      const char *how, int blk, int inc)
{
	if (inc) {
		/* the kernel's work as a template over the in-plane type */
		cg_sb_printf(&G->dev, "/* %s's outputs, with offsets and "
		             "coordinates in a plane of type I:\n * int when the "
		             "plane, widened by a window's reach, fits (the usual "
		             "case),\n * else long */\ntemplate <typename I>\n"
		             "static __device__ __forceinline__ void\n%s(", name,
		             walk);
		for (int i = 0; i < K->nargs; i++)
			cg_sb_printf(&G->dev, "%s%s %s", i ? ",\n\t" : "",
			             K->args[i].ctype, K->args[i].cname);
		cg_sb_puts(&G->dev, ")\n");
		cg_sb_cat(&G->dev, body);
	}
	cg_kernel_comment(G, K, how);
	cg_kernel_sig(G, K, name, blk);
	if (inc)
		cg_sb_printf(&G->dev, "{\n\t%s<int>(%s);\n}\n", walk,
		             args ? args : "");
	else
		cg_sb_cat(&G->dev, body);
}

/*
 * A pool kernel over an input x [N, C, s...] that reaches a channels-last
 * leaf of its shape (memory [N, s..., C]; cg_is_cl), its pooled dims all
 * of s. Walking the outputs in NCHW order would read the leaf with a
 * stride of C at every tap, through the index map. Here a block takes one
 * sample, cw channels and pb consecutive output positions; a thread takes
 * one output position and 4 neighbouring channels, so each tap is one
 * float4 load (4 scalar ones where C is not a multiple of 4) and a warp's
 * taps read runs of contiguous channels. The chain before the pool is
 * evaluated per channel on the loaded registers (as the channel-blocked
 * map kernel does, codegen_map.c), with rowed points [N x C | s]:
 * operands per channel or sample (a bias, a norm's statistics) load once
 * per (n, c) before the taps. The window's max (and its index) or mean
 * goes to shared memory, and after a barrier the block stores each
 * channel's pb positions as one contiguous run of the NCHW outputs, the
 * pointwise nodes after the pool applied there. A window whose size is
 * the same in every shape set walks a literal count of taps (those
 * outside the input skipped), so its loads are in flight together.
 * Outputs written channels-last too (cg_cl_plan, lib.layout=nhwc_xy; then
 * all of them are) are stored from the tile a run of the block's
 * channels per position instead, neighbouring threads on neighbouring
 * channels, at memory index (n OS + s) C + c.
 */
static void emit_pool_cl(cg_gen *G, cg_kern *K, pinfo *pi, cg_sb *geo,
                         const char *name, int leaf)
{
	const krl_graph *g = G->g;
	const krl_gnode *a0 = &g->n[K->anchor[0]];
	const int nd = a0->ndim, r = pi->rank;
	/* at most 256 threads: the shared tiles of 512 or 1024 (each of the
	 * two instantiations has its own) would take 49-99 KB with a max's
	 * index; 512 ran 1.13x as long as 256 on 35's pool */
	const int blk = G->s.pool_block < 256 ? G->s.pool_block : 256;
	const int64_t cgen = g->n[K->space].dim[1].val;
	/* channels a block takes, 4 to a thread */
	const int cw = cgen >= 32 ? 32 : cgen >= 16 ? 16 : 8;
	const int tp = cw / 4;           /* threads per position */
	const int pb = blk / tp;         /* positions of a block */
	const int per = cw * pb / blk;   /* outputs a thread stores */
	const char *Nt = cg_prod(G, K->space, 0, 1);
	const char *Ct = cg_prod(G, K->space, 1, 2);
	const char *OSt = cg_prod(G, K->space, 2, nd);
	const char *Na = cg_arg_long(G, K, Nt), *Ca = cg_arg_long(G, K, Ct);
	const char *Sa = cg_arg_long(G, K, cg_prod(G, pi->x, 2, nd));
	const char *OSa = cg_arg_long(G, K, OSt);
	const char *X = cg_arg_buf(G, K, leaf, 0);
	static const char *const TILE[3] = { "tm", "tmi", "tmean" };
	static const char *const VAL[3] = { "m", "mi", "mean" };
	const int anc[3] = { pi->mx, pi->amx, pi->av };
	const int tind = 2 + r;   /* indent of the tap body */
	/* a window of a size fixed in every shape set: loops of literal
	 * counts */
	long ks, dl;
	const int fixed = fixed_window(g, a0, pi, &ks, &dl);

	/* ---- the taps: channel j of the thread's 4 at NCHW index rb<j> +
	 * rr, its leaf value in tv[j] ---- */
	cg_em em;
	cg_em_init(&em, G, K);
	cg_sb l0 = { 0 }, l1 = { 0 }, tap = { 0 }, epi = { 0 }, body = { 0 };
	cg_sb args = { 0 };
	em.buf[0] = &l0;
	em.ind[0] = 1;
	em.buf[1] = &l1;
	em.ind[1] = 2;
	em.buf[2] = &tap;
	em.ind[2] = tind;
	em.clnode = leaf;
	em.clfmt = "tv[%d]";
	cg_point p;
	memset(&p, 0, sizeof p);
	p.space = pi->x;
	p.main = 1;
	p.rowed = 1;
	p.ax0 = 2;
	p.ax1 = nd;
	p.r = "rr";
	p.inrow = 1;
	/* the tap's coordinates: n, channel j, the window's i<d> */
	const char *crd[KRL_MAX_DIM];
	crd[0] = "n";
	for (int k = 0; k < r; k++)
		crd[2 + k] = cg_fmt(G, "i%s", COORD[3 - r + k]);
	p.coord = crd;
	for (int j = 0; j < 4 && G->fail < 0 && !G->err[0]; j++) {
		cg_em_forget(&em, 1);
		em.cllane = j;
		em.rb = cg_fmt(G, "rb%d", j);
		crd[1] = cg_fmt(G, "ch%d", j);
		p.lin = cg_fmt(G, "(rb%d + rr)", j);
		p.o = cg_fmt(G, "nc%d", j);
		cg_val v = cg_ev(&em, pi->x, &p);
		if (!v.e)
			break;
		const char *f = cg_f(&em, v);
		if (pi->avg) {
			cg_line(&tap, tind, "sum%d += %s;", j, f);
		} else if (pi->amx < 0) {
			G->need |= CG_NEED_RED;
			cg_line(&tap, tind, "m%d = krl_maxf(m%d, %s); /* NaN wins */",
			        j, j, f);
		} else {
			cg_line(&tap, tind, "if (%s > m%d || %s != %s) { /* NaN wins */",
			        f, j, f, f);
			cg_line(&tap, tind + 1, "m%d = %s;", j, f);
			cg_line(&tap, tind + 1, "mi%d = rr;", j);
			cg_line(&tap, tind, "}");
		}
	}

	/* ---- the outputs at NCHW index o, from the tiles ---- */
	cg_em_forget(&em, 1);
	em.clnode = -1;
	em.clfmt = NULL;
	em.buf[1] = em.buf[2] = &epi;
	em.ind[1] = em.ind[2] = 3;
	em.rb = "ob";
	for (int k = 0; k < 3; k++)
		if (anc[k] >= 0)
			cg_em_set_reduce(&em, anc[k], (cg_val){ VAL[k],
			                 k == 1 ? 'l' : 'f' });
	int clo = K->nout > 0;
	for (int o = 0; o < K->nout; o++)
		clo &= cg_is_cl(G, K->out[o]);
	memset(&p, 0, sizeof p);
	p.space = K->space;
	p.lin = "o";
	p.plin = clo ? "ol" : NULL;
	p.main = 1;
	p.inrow = 1;
	p.rowed = 1;
	p.ax0 = 2;
	p.ax1 = nd;
	p.o = "nc";
	p.r = "s";
	store_outputs(&em, &p);
	if (G->fail >= 0 || G->err[0] || G->oom)
		goto done;

	/* ---- the kernel: a template over the in-plane type ---- */
	const char *walk = cg_fmt(G, "%s_walk", name);
	for (int i = 0; i < K->nargs; i++)
		cg_sb_printf(&args, "%s%s", i ? ", " : "", K->args[i].cname);
	cg_line(&body, 0, "{");
	cg_sb_cat(&body, &l0);
	cg_sb_cat(&body, geo);
	inc_prelude(G, &body, pi, walk, args.z, 0);
	cg_line(&body, 1, "/* x is [N, C, s...], in memory [N, s..., C]; S "
	        "positions in, OS out */");
	cg_line(&body, 1, "const long N = %s, C = %s, S = %s, OS = %s;", Na, Ca,
	        Sa, OSa);
	cg_line(&body, 1, "const long ncb = (C + %d) / %d, nsb = (OS + %d) / "
	        "%d; /* blocks of channels, of positions */", cw - 1, cw,
	        pb - 1, pb);
	cg_line(&body, 1, "const bool tvec = (C & 3) == 0; /* float4 loads */");
	cg_line(&body, 1, "/* a block's outputs: %d channels x %d positions, "
	        "a row per channel */", cw, pb);
	for (int k = 0; k < 3; k++)
		if (anc[k] >= 0)
			cg_line(&body, 1, "__shared__ %s %s[%d];", k == 1 ?
			        "long long" : "float", TILE[k], cw * (pb + 1));
	cg_line(&body, 1, "const int tq = threadIdx.x %% %d, sl = threadIdx.x "
	        "/ %d; /* channels 4 tq.., position sl */", tp, tp);
	cg_line(&body, 1, "/* neighbouring blocks: the channel blocks of the "
	        "same positions */");
	cg_line(&body, 1, "for (long b = blockIdx.x; b < N * ncb * nsb; b += "
	        "gridDim.x) {");
	cg_line(&body, 2, "const long bs = krl_div(b, ncb), n = krl_div(bs, "
	        "nsb);");
	cg_line(&body, 2, "const long c0 = (b - bs * ncb) * %d + 4 * tq, s0 = "
	        "(bs - n * nsb) * %d;", cw, pb);
	cg_line(&body, 2, "const long s = s0 + sl;");
	cg_line(&body, 2, "const bool live = s < OS;");
	cg_line(&body, 2, "/* channels past C compute channel C - 1's values, "
	        "not stored */");
	for (int j = 0; j < 4; j++) {
		cg_line(&body, 2, "const long ch%d = c0 + %d < C ? c0 + %d : C - 1;",
		        j, j, j);
		cg_line(&body, 2, "const long nc%d = n * C + ch%d;", j, j);
		cg_line(&body, 2, "const long rb%d = nc%d * S; /* x[n, c, 0...]: "
		        "NCHW */", j, j);
	}
	cg_line(&body, 2, "const long yb = n * S * C; /* the sample in "
	        "memory */");
	cg_sb_cat(&body, &l1);
	/* the output's coordinates, innermost first (in I: an output plane
	 * fits where the input's, widened by a window's reach, does) */
	const char *q = "so";
	cg_line(&body, 2, "const I so = live ? (I)s : 0;");
	for (int j = r - 1; j >= 0; j--) {
		const char *D = DIMS[3 - r + j], *d = COORD[3 - r + j];
		if (!j) {
			cg_line(&body, 2, "const I o%s = %s;", d, q);
			break;
		}
		const char *nq = cg_fmt(G, "q%s", d);
		cg_line(&body, 2, "const I %s = %s / (I)O%s;", nq, q, D);
		cg_line(&body, 2, "const I o%s = %s - %s * (I)O%s;", d, q, nq, D);
		q = nq;
	}
	for (int j = 0; j < r; j++)
		window_inc(&body, 2, pi, j);
	for (int j = 0; j < 4; j++) {
		if (pi->avg) {
			cg_line(&body, 2, "float sum%d = 0.f;", j);
		} else {
			cg_line(&body, 2, "float m%d = -INFINITY;", j);
			if (pi->amx >= 0)
				cg_line(&body, 2, "long long mi%d = %s; /* the first tap */",
				        j, plane_index(G, pi, r, "", "lo", "n"));
		}
	}
	if (fixed)
		/* the same taps, a literal count of them */
		literal_taps(G, &body, 2, pi, ks, dl, "!live || ", 1);
	for (int j = 0; j < r && !fixed; j++) {
		const char *d = COORD[3 - r + j];
		cg_line(&body, 2 + j, "for (I i%s = %slo; i%s < %shi; i%s%s) {",
		        d, d, d, d, d, pi->avg ? "++" : " += dl");
	}
	if (!fixed) {
		/* (a position past OS has an empty window) */
		cg_line(&body, tind, "if (!live)");
		cg_line(&body, tind + 1, "continue;");
	}
	cg_line(&body, tind, "const I rr = %s; /* the tap in the plane */",
	        plane_index(G, pi, r, "i", "", "n"));
	cg_line(&body, tind, "const long tb = yb + (long)rr * C + c0;");
	cg_line(&body, tind, "float tv[4];");
	cg_line(&body, tind, "if (tvec && c0 + 4 <= C) {");
	cg_line(&body, tind + 1, "const float4 q4 = *reinterpret_cast<const "
	        "float4 *>(%s + tb);", X);
	cg_line(&body, tind + 1, "tv[0] = q4.x; tv[1] = q4.y; tv[2] = q4.z; "
	        "tv[3] = q4.w;");
	cg_line(&body, tind, "} else {");
	cg_line(&body, tind + 1, "#pragma unroll");
	cg_line(&body, tind + 1, "for (int j = 0; j < 4; j++)");
	cg_line(&body, tind + 2, "tv[j] = %s[tb + (c0 + j < C ? j : C - 1 - "
	        "c0)];", X);
	cg_line(&body, tind, "}");
	cg_sb_cat(&body, &tap);
	for (int j = r - 1; j >= 0; j--)
		cg_line(&body, 2 + j, "}");
	for (int j = 0; j < 4; j++) {
		if (pi->avg) {
			/* avg_mean's names, one channel at a time */
			cg_line(&body, 2, "{");
			cg_line(&body, 3, "const float sum = sum%d;", j);
			avg_mean(G, &body, 3, pi);
			cg_line(&body, 3, "tmean[(4 * tq + %d) * %d + sl] = mean;", j,
			        pb + 1);
			cg_line(&body, 2, "}");
			continue;
		}
		if (pi->mx >= 0)
			cg_line(&body, 2, "tm[(4 * tq + %d) * %d + sl] = m%d;", j, pb + 1,
			        j);
		if (pi->amx >= 0)
			cg_line(&body, 2, "tmi[(4 * tq + %d) * %d + sl] = mi%d;", j,
			        pb + 1, j);
	}
	cg_line(&body, 2, "__syncthreads();");
	cg_line(&body, 2, clo ? "/* each position's run of channels, contiguous "
	        "in the channels-last outputs */" : "/* each channel's run of "
	        "positions, contiguous in the NCHW outputs */");
	cg_line(&body, 2, "const long cb = c0 - 4 * tq;");
	cg_line(&body, 2, "for (int e = 0; e < %d; e++) {", per);
	if (clo)
		cg_line(&body, 3, "const int t = threadIdx.x + e * %d, cq = t %% "
		        "%d, sq = t / %d;", blk, cw, cw);
	else
		cg_line(&body, 3, "const int t = threadIdx.x + e * %d, cq = t / %d, "
		        "sq = t %% %d;", blk, pb, pb);
	cg_line(&body, 3, "const long s = s0 + sq;");
	cg_line(&body, 3, "if (cb + cq >= C || s >= OS)");
	cg_line(&body, 4, "continue;");
	cg_line(&body, 3, "const long nc = n * C + cb + cq, ob = nc * OS, o = "
	        "ob + s;");
	if (clo)
		cg_line(&body, 3, "const long ol = (n * OS + s) * C + cb + cq;");
	for (int k = 0; k < 3; k++)
		if (anc[k] >= 0)
			cg_line(&body, 3, "const %s %s = %s[cq * %d + sq];", k == 1 ?
			        "long long" : "float", VAL[k], TILE[k], pb + 1);
	cg_sb_cat(&body, &epi);
	cg_line(&body, 2, "}");
	cg_line(&body, 2, "__syncthreads();");
	cg_line(&body, 1, "}");
	cg_line(&body, 0, "}");

	const char *how = cg_fmt(G, "pool: %d-d %s over windows of %s, a "
	                  "channels-last input read %d channels x %d positions "
	                  "a block, 4 channels a thread, stored through shared "
	                  "memory%s, %d threads", r, pi->avg ? "mean" :
	                  pi->amx >= 0 && pi->mx >= 0 ? "max and its index" :
	                  pi->amx >= 0 ? "index of the max" : "max",
	                  cg_inline_in(G, pi->x, K) ? "its input (computed at "
	                  "every tap)" : cg_bufname(G, pi->x), cw, pb,
	                  clo ? " channels-last" : "", blk);
	emit_walk(G, K, name, walk, &body, args.z, how, blk, 1);
	G->pool_cl++;
	G->pool_clout += clo;
	cg_plan_launch(G, K, name,
	               cg_fmt(G, "min(%s * cdiv(%s, %d) * cdiv(%s, %d), sm_count "
	                      "* 256)", Nt, Ct, cw, OSt, pb),
	               cg_fmt(G, "%d", blk));
done:
	if (l0.oom || l1.oom || tap.oom || epi.oom || body.oom || args.oom)
		G->oom = 1;
	cg_sb_free(&args);
	cg_sb_free(&l0);
	cg_sb_free(&l1);
	cg_sb_free(&tap);
	cg_sb_free(&epi);
	cg_sb_free(&body);
	cg_em_free(&em);
}

krl_err cg_emit_pool(cg_gen *G, cg_kern *K)
{
	const krl_graph *g = G->g;
	const int blk = G->s.pool_block, ept = G->s.pool_ept;
	const int inc = !G->s.pool_taps;   /* in-plane offsets, stepped */
	const krl_gnode *a0 = &g->n[K->anchor[0]];
	pinfo pi;
	memset(&pi, 0, sizeof pi);
	pi.mx = pi.amx = pi.av = -1;
	pi.rank = a0->naxes;
	pi.avg = a0->pool == KRL_POOL_AVG;
	pi.x = a0->in[0];
	for (int j = 0; j < K->nanchor; j++) {
		const krl_gnode *a = &g->n[K->anchor[j]];
		if (a->pool == KRL_POOL_MAX)
			pi.mx = K->anchor[j];
		else if (a->pool == KRL_POOL_ARGMAX)
			pi.amx = K->anchor[j];
		else
			pi.av = K->anchor[j];
	}
	const krl_gnode *xn = &g->n[pi.x];
	const int nd = a0->ndim, r = pi.rank;
	if (r < 1 || r > 3 || nd < r + 1 || xn->ndim != nd ||
	    a0->axis != nd - r) {
		snprintf(G->err, sizeof G->err, "pool node %d: pooled dims "
		         "[%d, %d) of a rank-%d tensor", K->anchor[0], a0->axis,
		         a0->axis + r, xn->ndim);
		return KRL_OK;
	}
	for (int o = 0; o < K->nout; o++)
		if (!cg_gsame(G, K->out[o], K->space)) {
			snprintf(G->err, sizeof G->err, "pool kernel k%d: output node "
			         "%d has another shape", K->id, K->out[o]);
			return KRL_OK;
		}
	G->need |= CG_NEED_DIV | CG_NEED_MINMAX;
	const char *name = cg_fmt(G, "k%d_pool", K->id);
	const char *rows_t = cg_prod(G, K->space, 0, nd - 1);
	const char *ow_t = cg_fmt(G, "(%s)", a0->dim[nd - 1].text);
	const int grp = 32 * ept;

	/* the arguments, named in the kernel */
	cg_sb geo = { 0 };
	const char *rows = cg_arg_long(G, K, rows_t);
	cg_line(&geo, 1, "/* x is [.., %s%s%s] and the output [.., %s%s%s], seen "
	        "as [rows, OW] */", r > 2 ? "IT, " : "", r > 1 ? "IH, " : "",
	        "IW", r > 2 ? "OT, " : "", r > 1 ? "OH, " : "", "OW");
	cg_sb_printf(&geo, "\tconst long rows = %s", rows);
	/* (one argument at a time: their order is the signature's) */
	for (int j = 0; j < r; j++) {
		const char *D = DIMS[3 - r + j];
		const char *ia = cg_arg_long(G, K, cg_fmt(G, "(%s)",
		                             xn->dim[nd - r + j].text));
		cg_sb_printf(&geo, ", I%s = %s", D, ia);
	}
	for (int j = 0; j < r; j++) {
		const char *D = DIMS[3 - r + j];
		const char *oa = cg_arg_long(G, K, cg_fmt(G, "(%s)",
		                             a0->dim[nd - r + j].text));
		cg_sb_printf(&geo, ", O%s = %s", D, oa);
	}
	cg_sb_puts(&geo, ";\n");
	/* a literal attribute (or an absent one) is written as its value */
	int lit;
	long lv;
	const char *ka = attr_long(G, K, a0, "kernel_size", 1, &lit, &lv);
	const char *sa = ka;
	for (int i = 0; i < a0->nattrs; i++)
		if (!strcmp(a0->attrs[i].key, "stride"))
			sa = attr_long(G, K, a0, "stride", 1, &lit, &lv);
	const char *pa = attr_long(G, K, a0, "padding", 0, &lit, &lv);
	cg_sb_printf(&geo, "\tconst long ksize = %s, stride = %s, pad = %s", ka,
	             sa, pa);
	if (!pi.avg) {
		const char *da = attr_long(G, K, a0, "dilation", 1, &lit, &lv);
		cg_sb_printf(&geo, ", dil = %s", da);
	}
	cg_sb_puts(&geo, ";\n");
	if (pi.avg) {
		pi.cip = attr_long(G, K, a0, "count_include_pad", 1, &pi.cip_lit,
		                   &pi.cip_v);
		pi.dov = attr_long(G, K, a0, "divisor_override", 0, &pi.dov_lit,
		                   &pi.dov_v);
		if (!pi.cip_lit || !pi.dov_lit) {
			cg_line(&geo, 1, "const long count_include_pad = %s, "
			        "divisor_override = %s;", pi.cip, pi.dov);
			pi.cip = "count_include_pad";
			pi.dov = "divisor_override";
		}
	}

	/* pooling every spatial dim of an input that reaches a channels-last
	 * leaf: the kernel that reads it in memory order */
	int leaf = a0->axis == 2 ? cg_cl_reach(G, K, pi.x, pi.x, 0) : -1;
	if (leaf >= 0) {
		emit_pool_cl(G, K, &pi, &geo, name, leaf);
		if (geo.oom)
			G->oom = 1;
		cg_sb_free(&geo);
		return KRL_OK;
	}

	/* ---- the taps: the input (and its prologue) at index xi ---- */
	cg_em em;
	cg_em_init(&em, G, K);
	cg_sb l0 = { 0 }, tap = { 0 }, epi = { 0 }, body = { 0 };
	cg_sb stap = { 0 }, scrd = { 0 };   /* the column strip's tap */
	cg_sb args = { 0 };   /* inc: the kernel's arguments, passed on */
	const int base = ept > 1 ? 3 : 2;   /* indent of the per-output code */
	/* the tap loops: with a window fixed in every shape set, literal
	 * counts of taps (those outside the input skipped), so that the
	 * loads are in flight together; with one that is not, literal taps
	 * where the window is the one of the set generated for (spec), the
	 * loops elsewhere */
	long ks, dl;
	const int fixed = inc && fixed_window(g, a0, &pi, &ks, &dl);
	const int spec = inc && !fixed && window_at_set(a0, &pi, &ks, &dl);
	const int tind = base + r + spec + (fixed || spec); /* of the tap body */
	em.buf[0] = &l0;
	em.ind[0] = 1;
	em.buf[1] = em.buf[2] = &tap;
	em.ind[1] = em.ind[2] = tind;
	cg_point p;
	memset(&p, 0, sizeof p);
	p.space = pi.x;
	p.lin = "xi";
	/* a window fixed in every set is walked with the taps' coordinates
	 * named (i<d>, and sc<k> outer ones from the plane), so that an
	 * operand broadcast over the plane (a norm's statistics and affine
	 * before 19's 7 x 7 average pool) is indexed by them rather than by
	 * dividing xi at every tap: 49 taps of 5 divisions each, in 4 copies
	 * of the walk, took ptxas 30 s on 19's candidate */
	const char *wco[KRL_MAX_DIM];
	if (fixed) {
		tap_coords(G, nd, r, wco);
		p.coord = wco;
	}
	cg_val v = cg_ev(&em, pi.x, &p);
	cg_sb wcrd = { 0 };
	if (v.e && fixed && em.used_coord)
		outer_coords(G, K, xn, nd - r, r > 1 ? "pl" : "row", &wcrd);
	if (v.e) {
		/* a name: the emitter declares every value it computes */
		const char *f = cg_f(&em, v);
		if (pi.avg) {
			cg_line(&tap, tind, "sum += %s;", f);
		} else if (pi.amx < 0) {
			G->need |= CG_NEED_RED;
			cg_line(&tap, tind, "m = krl_maxf(m, %s); /* NaN wins */", f);
		} else {
			cg_line(&tap, tind, "if (%s > m || %s != %s) { /* NaN wins */", f,
			        f, f);
			cg_line(&tap, tind + 1, "m = %s;", f);
			cg_line(&tap, tind + 1, inc ? "mi = xw;" : "mi = xi - xb;");
			cg_line(&tap, tind, "}");
		}
	}

	/* ---- the outputs at index o ---- */
	cg_em_forget(&em, 1);
	em.buf[1] = em.buf[2] = &epi;
	em.ind[1] = em.ind[2] = base;
	cg_val val;
	if (pi.mx >= 0) {
		val.e = "m";
		val.t = 'f';
		cg_em_set_reduce(&em, pi.mx, val);
	}
	if (pi.amx >= 0) {
		val.e = "mi";
		val.t = 'l';
		cg_em_set_reduce(&em, pi.amx, val);
	}
	if (pi.av >= 0) {
		val.e = "mean";
		val.t = 'f';
		cg_em_set_reduce(&em, pi.av, val);
	}
	memset(&p, 0, sizeof p);
	p.space = K->space;
	p.lin = "o";
	p.main = 1;
	p.inrow = 1;
	store_outputs(&em, &p);
	if (G->fail >= 0 || G->err[0] || G->oom)
		goto done;
	/* the column strip of a 2-d max: its own tap (level-0 code into l0,
	 * so before the body takes it) */
	long spad = 0, sst = 1;
	int strip = (fixed || spec) && strip_geometry(a0, &pi, ks, dl, &sst,
	                                              &spad) &&
	            strip_tap(G, K, &pi, &l0, &stap, &scrd);
	if (G->fail >= 0 || G->err[0] || G->oom)
		goto done;

	/* ---- the kernel ---- */
	cg_line(&body, 0, "{");
	cg_sb_cat(&body, &l0);
	cg_sb_cat(&body, &geo);
	if (r > 1)
		cg_line(&body, 1, "const long plane = %s; /* elements of an input "
		        "plane */", r > 2 ? "IT * IH * IW" : "IH * IW");
	cg_line(&body, 1, "/* a warp takes %d consecutive outputs of a row, lane "
	        "l the outputs l, l + 32, ... */", grp);
	cg_line(&body, 1, "const long groups = (OW + %d) / %d; /* per row */",
	        grp - 1, grp);
	const int k1 = 1;   /* indent of the grid loop */
	const char *walk = cg_fmt(G, "%s_walk", name);
	for (int i = 0; i < K->nargs; i++)
		cg_sb_printf(&args, "%s%s", i ? ", " : "", K->args[i].cname);
	if (inc)
		inc_prelude(G, &body, &pi, walk, args.z, 1);
	long wpad;
	if ((fixed || spec) && win_geometry(G, K, a0, &pi, ks, &wpad))
		win_branch(G, &body, &pi, ks, wpad, blk, cg_arg_buf(G, K, pi.x, 0),
		           &epi, base);
	if (strip)
		strip_branch(&body, ks, sst, spad, blk, G->s.pool_strip,
		             G->s.pool_unc, &scrd, &stap, STRIP_TIND, &epi, base);
	cg_line(&body, k1, "for (long t = (long)blockIdx.x * %d + threadIdx.x; t < "
	        "rows * groups * 32;", blk);
	cg_line(&body, k1, "     t += (long)gridDim.x * %d) {", blk);
	cg_line(&body, k1 + 1, "const long row = krl_div(t >> 5, groups);");
	cg_line(&body, k1 + 1, "const long ow0 = ((t >> 5) - row * groups) * %d + "
	        "(t & 31);", grp);
	/* the row's coordinates, innermost first */
	const char *q = "row";
	for (int j = r - 2; j >= 0; j--) {
		const char *D = DIMS[3 - r + j], *d = COORD[3 - r + j];
		const char *nq = j ? cg_fmt(G, "r%s", d) : "pl";
		if (inc) {
			/* one division: the remainder is what is left */
			cg_line(&body, k1 + 1, "const long %s = krl_div(%s, O%s);%s", nq,
			        q, D, j ? "" : " /* the plane */");
			cg_line(&body, k1 + 1, "const I o%s = %s - %s * O%s;", d, q, nq,
			        D);
		} else {
			cg_line(&body, k1 + 1, "const long o%s = krl_mod(%s, O%s);", d,
			        q, D);
			cg_line(&body, k1 + 1, "const long %s = krl_div(%s, O%s);%s", nq,
			        q, D, j ? "" : " /* the plane */");
		}
		q = nq;
	}
	cg_line(&body, k1 + 1, "const long xb = %s * %s; /* where the plane "
	        "starts in x */", r > 1 ? q : "row", r > 1 ? "plane" : "IW");
	cat_dedent(&body, &wcrd, -(k1 + 1));
	for (int j = 0; j < r - 1; j++)
		(inc ? window_inc : window)(&body, k1 + 1, &pi, j);
	int ind = k1 + 1;
	if (ept > 1) {
		cg_line(&body, k1 + 1, "#pragma unroll");
		cg_line(&body, k1 + 1, "for (int e = 0; e < %d; e++) {", ept);
		cg_line(&body, k1 + 2, "const long ow = ow0 + e * 32;");
		cg_line(&body, k1 + 2, "if (ow >= OW)");
		cg_line(&body, k1 + 3, "break;");
		ind = k1 + 2;
	} else {
		cg_line(&body, k1 + 1, "const long ow = ow0;");
		cg_line(&body, k1 + 1, "if (ow >= OW)");
		cg_line(&body, k1 + 2, "continue;");
	}
	(inc ? window_inc : window)(&body, ind, &pi, r - 1);
	if (pi.avg) {
		cg_line(&body, ind, "float sum = 0.f;");
	} else {
		cg_line(&body, ind, "float m = -INFINITY;");
		if (pi.amx >= 0)
			cg_line(&body, ind, "long long mi = %s; /* the first tap */",
			        plane_index(G, &pi, r, "", "lo", inc ? "n" : "I"));
	}
	if (fixed || spec) {
		if (spec) {
			cg_line(&body, ind, "if (ksize == %ld%s) {", ks, pi.avg ? "" :
			        cg_fmt(G, " && dil == %ld", dl));
			ind++;
		}
		/* a window inside the input (most of them) reads every tap
		 * unchecked; one at a border skips those outside */
		cg_sb in = { 0 };
		for (int j = 0; j < r; j++) {
			const char *d = COORD[3 - r + j], *D = DIMS[3 - r + j];
			cg_sb_printf(&in, "%s%ss >= 0 && %ss + %ld <= n%s", j ? " && " :
			             "", d, d, (ks - 1) * dl + 1, D);
		}
		cg_line(&body, ind, "if (%s) {", in.z ? in.z : "1");
		if (in.oom)
			G->oom = 1;
		cg_sb_free(&in);
		for (int check = 0; check < 2; check++) {
			if (check)
				cg_line(&body, ind, "} else {");
			literal_taps(G, &body, ind + 1, &pi, ks, dl, "", check);
			cg_line(&body, ind + 1 + r, "const I xw = %s; /* the tap in the "
			        "plane */", plane_index(G, &pi, r, "i", "", "n"));
			cg_line(&body, ind + 1 + r, "const long xi = xb + xw;");
			cg_sb_cat(&body, &tap);
			for (int j = r - 1; j >= 0; j--)
				cg_line(&body, ind + 1 + j, "}");
		}
		cg_line(&body, ind, "}");
	}
	if (spec) {
		cg_line(&body, ind - 1, "} else {");
		cg_line(&body, ind, "/* another window: the loops */");
	}
	for (int j = 0; j < r && !fixed; j++) {
		const char *d = COORD[3 - r + j];
		if (inc) {
			/* x<d>: the offset in the plane of the tap's point in dims
			 * up to d, stepped */
			const char *prev = j ? cg_fmt(G, "x%s + ", COORD[3 - r + j - 1]) :
			                   "";
			const char *sz = j == r - 1 ? "" : j == r - 2 ? " * nW" :
			                 " * (nH * nW)";
			const char *step = j < r - 1 ? cg_fmt(G, " += %sstep", d) :
			                   pi.avg ? "++" : " += dl";
			cg_line(&body, ind + j, "for (I x%s = %s%slo%s; x%s < %s%shi%s; "
			        "x%s%s) {", d, prev, d, sz, d, prev, d, sz, d, step);
			if (j == r - 1)
				cg_line(&body, ind + j + 1, "const long xi = xb + xw;");
			continue;
		}
		cg_line(&body, ind + j, "for (long i%s = %slo; i%s < %shi; i%s%s) {",
		        d, d, d, d, d, pi.avg ? "++" : " += dil");
		if (j == r - 1) {
			cg_line(&body, ind + j + 1, "const long xi = %s;",
			        r > 1 ? "xr + iw" : "xb + iw");
		} else if (j == r - 2) {
			const char *pr = plane_index(G, &pi, r - 1, "i", "", "I");
			cg_line(&body, ind + j + 1, "const long xr = xb + %s * IW;",
			        r > 2 ? cg_fmt(G, "(%s)", pr) : pr);
		}
	}
	if (!fixed) {
		/* the tap body was written at the literal walk's depth */
		cat_dedent(&body, &tap, tind - (ind + r));
		for (int j = r - 1; j >= 0; j--)
			cg_line(&body, ind + j, "}");
	}
	if (spec)
		cg_line(&body, --ind, "}");
	if (pi.avg)
		avg_mean(G, &body, ind, &pi);
	cg_line(&body, ind, "const long o = row * OW + ow;");
	cg_sb_cat(&body, &epi);
	if (ept > 1)
		cg_line(&body, k1 + 1, "}");
	cg_line(&body, k1, "}");
	cg_line(&body, 0, "}");

	const char *how = cg_fmt(G, "pool: %d-d %s over windows of %s, "
	                  "%d output%s per thread along the last dim%s, %d "
	                  "threads",
	                  r, pi.avg ? "mean" : pi.amx >= 0 && pi.mx >= 0 ?
	                  "max and its index" : pi.amx >= 0 ? "index of the max" :
	                  "max", cg_inline_in(G, pi.x, K) ? "its input (computed "
	                  "at every tap)" : cg_bufname(G, pi.x), ept,
	                  ept > 1 ? "s" : "", strip ? cg_fmt(G, " (%d down a "
	                  "column where the window is the set's%s)",
	                  G->s.pool_strip, G->s.pool_unc ? ", taps loaded "
	                  "first" : "") : "",
	                  blk);
	emit_walk(G, K, name, walk, &body, args.z, how, blk, inc);
	cg_plan_launch(G, K, name,
	               cg_fmt(G, "min(cdiv(%s * cdiv(%s, %d) * 32, %d), "
	                      "sm_count * 1024)", rows_t, ow_t, grp, blk),
	               cg_fmt(G, "%d", blk));
done:
	if (geo.oom || l0.oom || tap.oom || epi.oom || body.oom || args.oom ||
	    stap.oom || scrd.oom || wcrd.oom)
		G->oom = 1;
	cg_sb_free(&wcrd);
	cg_sb_free(&stap);
	cg_sb_free(&scrd);
	cg_sb_free(&args);
	cg_sb_free(&geo);
	cg_sb_free(&l0);
	cg_sb_free(&tap);
	cg_sb_free(&epi);
	cg_sb_free(&body);
	cg_em_free(&em);
	return KRL_OK;
}
