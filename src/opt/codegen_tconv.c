/*
 * A transposed convolution written as a forward one (the decision
 * `lib.tconv`, docs/optimizer.md section 3b).
 *
 * cuDNN runs conv_transpose as the data gradient of a convolution; its
 * forward engines are others, and for some geometries faster. Along one
 * spatial dim a transposed convolution computes
 *
 *     y[o] = sum over (i, k) with i*s - p + k*d = o of x[i] w[k].
 *
 * With s = 1 that is the correlation of x with the flipped kernel, padding
 * d(k - 1) - p, dilation d: a forward convolution with the same output
 * size. With d a multiple of s (d = q s), o + p must be a multiple of s: only
 * the outputs o = s m + r0, r0 = (-p) mod s, receive taps, and for them
 * i = m + c - k q with c = (r0 + p) / s: a forward convolution with the
 * flipped kernel, dilation q and padding (k - 1) q - c, whose output t[m] is
 * scattered to y[s m + r0] while every other output is 0 (or the bias). Any
 * other stride and dilation mixes several sub-kernels; those are left to
 * the library.
 *
 * The flipped weight, w[ci, co, k...] -> wf[co, ci, flipped k...] per group
 * (flipping every spatial dim reverses the flat tap index), is a `derived`
 * buffer written in `init`: once per param draw, not per call.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "krl/opgeom.h"

void cg_lib_attrs(const krl_gnode *x, krl_attrs *a)
{
	a->n = 0;
	for (int i = 0; i < x->nattrs && a->n < KRL_MAX_ATTR; i++) {
		if (isnan(x->aval[i]))
			continue;
		a->key[a->n] = x->attrs[i].key;
		a->val[a->n] = x->aval[i];
		a->n++;
	}
}

void cg_lib_inputs(const krl_graph *g, const krl_gnode *x, krl_tensor *in)
{
	memset(in, 0, 2 * sizeof *in);
	for (int k = 0; k < 2; k++) {
		const krl_gnode *b = &g->n[x->in[k]];
		in[k].dtype = b->dtype;
		in[k].ndim = b->ndim;
		for (int j = 0; j < b->ndim; j++)
			in[k].dim[j] = b->dim[j].val;
	}
}

int cg_tconv_geom(const krl_graph *g, int n, cg_tconv *t)
{
	const krl_gnode *x = &g->n[n];
	memset(t, 0, sizeof *t);
	if (!krl_opt_lib_tconv(g, n) || x->dtype != KRL_F32)
		return 0;
	t->bias = x->nin == 3;
	for (int i = 0; i < x->nattrs; i++)
		if (isnan(x->aval[i]) && strcmp(x->attrs[i].key, "layout"))
			return 0; /* a value the set does not give */
	krl_tensor in[2];
	cg_lib_inputs(g, x, in);
	krl_attrs a;
	cg_lib_attrs(x, &a);
	krl_conv_geom *geo = &t->geo;
	if (krl_conv_geom_get(1, in, &a, geo) || geo->groups < 1 ||
	    x->ndim != geo->nsp + 2)
		return 0;
	for (int i = 0; i < geo->nsp; i++) {
		int64_t s = geo->stride[i], p = geo->pad[i], d = geo->dil[i];
		int64_t k = geo->k[i], L = geo->in[i], O = geo->out[i];
		if (s < 1 || d < 1 || k < 1 || d % s || O != x->dim[2 + i].val)
			return 0;
		int64_t q = d / s, r0 = ((-p) % s + s) % s, c = (r0 + p) / s;
		int64_t fpad = (k - 1) * q - c;
		int64_t m = L + 2 * fpad - q * (k - 1);
		int64_t need = O > r0 ? (O - r0 + s - 1) / s : 0;
		if (fpad < 0 || m < need || m < 1)
			return 0;
		if (s > 1)
			t->scatter = 1;
	}
	return 1;
}

/* The spatial letters of an nsp-dim convolution, dim by dim. */
static const char *letter(int nsp, int i)
{
	static const char *const L[3] = { "d", "h", "w" };
	return L[3 - nsp + i];
}

static void emit_wflip(cg_gen *G, int id, int dense)
{
	/* wf's second dim: a group's input channels, or (dense) all of them */
	const char *cin = dense ? "groups * cin_g" : "cin_g";
	const char *cinp = dense ? "(groups * cin_g)" : "cin_g";
	cg_sb_printf(&G->dev,
	"\n/*\n"
	" * k%d_wflip (init): the transposed convolution's weight as a forward\n"
	" * one. w is [groups * cin_g, cout_g, taps], wf [groups * cout_g, %s,\n"
	" * taps] with the taps reversed (every spatial dim flipped)%s.\n"
	" */\n"
	"extern \"C\" __global__ void k%d_wflip(const float *__restrict__ w,\n"
	"                                     float *__restrict__ wf, long cin_g,\n"
	"                                     long cout_g, long groups, long taps)\n"
	"{\n"
	"\tlong i = (long)blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i >= groups * cout_g * %s * taps)\n"
	"\t\treturn;\n"
	"\tlong tap = i %% taps, j = i / taps;\n"
	"\tlong ci = j %% %s, cof = j / %s;\n"
	"\tlong g = cof / cout_g, co = cof %% cout_g;\n"
	"\twf[i] = %s;\n"
	"}\n",
	id, cin,
	dense ? ",\n * block-diagonal: zeros where ci and co are in other groups "
	        "(one group\n * for the forward call)" : "",
	id, cin, cinp, cinp,
	dense ? "ci / cin_g == g ? w[(ci * cout_g + co) * taps + (taps - 1 - "
	        "tap)] : 0.f" :
	        "w[((g * cin_g + ci) * cout_g + co) * taps + (taps - 1 - tap)]");
}

/*
 * The scatter's shape, measured on an H200 (bench/results/2026-11-30-*):
 * along a long line (1-d: 79 at kb1, lines of 262145) one line per
 * blockIdx.y with up to 256 threads along it and no line arithmetic at
 * all ran 1.42 ms for the whole candidate, against 2.0 ms with 8 lines of
 * 32 lanes per block and 2.6 ms with the line's coordinates worked out per
 * thread; for short lines (77, 3-d, lines of 65) 8 lines of 32 lanes,
 * each lane taking 4 outputs 32 apart, ran 1.28x where one line per block
 * row of 64 threads ran 1.15x. So 1-d convolutions get the first shape and
 * 2-d and 3-d ones the second.
 */
#define SC_E 4

static void emit_scatter(cg_gen *G, int id, int bias, int nsp)
{
	/* the forward call has no bias here: the scatter adds it to the
	 * outputs taps reach and writes it alone everywhere else */
	const char *none = bias ? "b[krl_mod(row, C)]" : "0.f";
	const char *plus = bias ? " + none" : "";
	G->need |= CG_NEED_DIV;
	cg_sb_printf(&G->dev,
	"\n/*\n"
	" * k%d_scatter: y[r, o0, o1, o2] = t[r, m0, m1, m2] where every o = s m + r0\n"
	" * with m < M%s, else %s (spatial dims padded to three with size-1\n"
	" * leading ones). Along a line (r, o0, o1), thread u writes the s2\n"
	" * outputs from s2 u + r2 on: t's element u, then what no tap reaches.\n"
	" * No division per element.%s\n"
	" */\n"
	"extern \"C\" __global__ void __launch_bounds__(256)\n"
	"k%d_scatter(const float *__restrict__ t,%s float *__restrict__ y,\n"
	"           long rows, long C, long O0, long O1, long O2, long M0, long M1,\n"
	"           long M2, long s0, long s1, long s2, long r0, long r1, long r2)\n"
	"{\n", id, bias ? ", plus the bias b[r % C]" : "", bias ? "the bias" : "0",
	nsp == 1 ? " One line (a row: 1-d) per blockIdx.y\n * (striding)."
	         : " A block is 8 lines of 32 lanes, each lane\n"
	           " * taking 4 values of u 32 apart; the line's coordinates and "
	           "taps\n * are worked out once per thread.",
	id, bias ? " const float *__restrict__ b," : "");
	if (nsp == 1) {
		cg_sb_printf(&G->dev,
		"\tconst long u = (long)blockIdx.x * blockDim.x + threadIdx.x - 1;\n"
		"\tconst long o = s2 * u + r2; /* this thread's first output */\n"
		"\tfor (long row = blockIdx.y; row < rows; row += gridDim.y) {\n"
		"\t\tconst float none = %s;\n"
		"\t\tfloat *yl = y + row * O2;\n"
		"\t\tif (o >= 0 && o < O2)\n"
		"\t\t\tyl[o] = u < M2 ? t[row * M2 + u]%s : none;\n"
		"\t\tfor (long j = 1; j < s2 && o + j < O2; j++)\n"
		"\t\t\tif (o + j >= 0)\n"
		"\t\t\t\tyl[o + j] = none;\n"
		"\t}\n"
		"}\n", none, plus);
		return;
	}
	cg_sb_printf(&G->dev,
	"\tconst long lines = rows * O0 * O1;\n"
	"\tconst long u0 = (long)blockIdx.x * (32 * %d) + threadIdx.x - 1;\n"
	"\tfor (long ln = (long)blockIdx.y * 8 + threadIdx.y; ln < lines;\n"
	"\t     ln += (long)gridDim.y * 8) {\n"
	"\t\tconst long row = krl_div(ln, O0 * O1), rest = ln - row * (O0 * O1);\n"
	"\t\tconst long o0 = krl_div(rest, O1), o1 = rest - o0 * O1;\n"
	"\t\tconst long a0 = o0 - r0, a1 = o1 - r1;\n"
	"\t\tconst long m0 = a0 >= 0 ? krl_div(a0, s0) : -1;\n"
	"\t\tconst long m1 = a1 >= 0 ? krl_div(a1, s1) : -1;\n"
	"\t\tconst bool tap = m0 >= 0 && m1 >= 0 && m0 * s0 == a0 &&\n"
	"\t\t                 m1 * s1 == a1 && m0 < M0 && m1 < M1;\n"
	"\t\tconst float none = %s;\n"
	"\t\tconst float *tl = t + ((row * M0 + m0) * M1 + m1) * M2;\n"
	"\t\tfloat *yl = y + ln * O2;\n"
	"#pragma unroll\n"
	"\t\tfor (int e = 0; e < %d; e++) {\n"
	"\t\t\tconst long u = u0 + 32 * e, o = s2 * u + r2;\n"
	"\t\t\tif (o >= O2)\n"
	"\t\t\t\tbreak;\n"
	"\t\t\tif (o >= 0)\n"
	"\t\t\t\tyl[o] = tap && u < M2 ? tl[u]%s : none;\n"
	"\t\t\tfor (long j = 1; j < s2 && o + j < O2; j++)\n"
	"\t\t\t\tif (o + j >= 0)\n"
	"\t\t\t\t\tyl[o + j] = none;\n"
	"\t\t}\n"
	"\t}\n"
	"}\n", SC_E, none, SC_E, plus);
}

/* Whether plan text z is the integer literal v. */
static int is_lit(const char *z, long v)
{
	char *e;
	long r = strtol(z, &e, 10);
	return e != z && !*e && r == v;
}

/* The plan texts of one spatial dim's forward geometry (section comment
 * at the top): expressions over the call's attributes and the tensors'
 * dims, so that one candidate serves every shape set. */
typedef struct dimtext {
	const char *s, *r0, *fpad, *fdil, *m;
} dimtext;

static dimtext dim_texts(cg_gen *G, const krl_gnode *x, const krl_gnode *xi,
                         const krl_gnode *w, int nsp, int i)
{
	const char *l = letter(nsp, i);
	const char *S = cg_attr_plan_axis(G, x, "stride", l, "1");
	const char *P = cg_attr_plan_axis(G, x, "padding", l, "0");
	const char *D = cg_attr_plan_axis(G, x, "dilation", l, "1");
	const char *k = w->dim[2 + i].text, *L = xi->dim[2 + i].text;
	dimtext d;
	const char *q, *c;
	if (is_lit(S, 1)) {
		q = cg_fmt(G, "(%s)", D);
		d.r0 = "0";
		c = cg_fmt(G, "(%s)", P);
	} else {
		q = cg_fmt(G, "((%s) / (%s))", D, S);
		d.r0 = cg_fmt(G, "((%s) - (%s) %% (%s)) %% (%s)", S, P, S, S);
		c = cg_fmt(G, "((%s + (%s)) / (%s))", d.r0, P, S);
	}
	d.s = S;
	d.fdil = is_lit(D, 1) && is_lit(S, 1) ? "1" : q;
	d.fpad = cg_fmt(G, "((%s) - 1) * %s - %s", k, q, c);
	d.m = cg_fmt(G, "(%s) + ((%s) - 1) * %s - 2 * %s", L, k, q, c);
	return d;
}

krl_err cg_emit_tconv(cg_gen *G, cg_kern *K, const cg_tconv *t)
{
	const krl_graph *g = G->g;
	int n = K->anchor[0], id = K->id;
	const krl_gnode *x = &g->n[n];
	const krl_gnode *xi = &g->n[x->in[0]], *w = &g->n[x->in[1]];
	const char *xn = cg_bufname(G, x->in[0]), *wn = cg_bufname(G, x->in[1]);
	const char *yn = cg_bufname(G, n);
	int nsp = t->geo.nsp;
	dimtext dt[3];
	for (int i = 0; i < nsp; i++)
		dt[i] = dim_texts(G, x, xi, w, nsp, i);
	const char *groups = cg_attr_plan(G, x, "groups", "1");
	int grouped = !is_lit(groups, 1);
	/* lib.groups=dense: the flipped weight block-diagonal, one group */
	int dense = grouped && G->s.lib_dense && cg_dense_geom(g, n);

	/* the flipped weight: derived, written once per param draw */
	emit_wflip(G, id, dense);
	const char *cin_g = grouped ?
	        cg_fmt(G, "(%s) / (%s)", xi->dim[1].text, groups) :
	        cg_fmt(G, "(%s)", xi->dim[1].text);
	char *taps = cg_prod(G, x->in[1], 2, w->ndim);
	cg_sb_printf(&G->bufs, "derived k%d_wf f32 [(%s), %s", id,
	             x->dim[1].text, dense ? cg_fmt(G, "(%s)", xi->dim[1].text) :
	             cin_g);
	for (int i = 2; i < w->ndim; i++)
		cg_sb_printf(&G->bufs, ", (%s)", w->dim[i].text);
	cg_sb_puts(&G->bufs, "]\n");
	cg_sb_printf(&G->init, "  # k%d: the weight of node %d flipped for the "
	             "forward convolution\n", id, n);
	cg_sb_printf(&G->init, "  launch k%d_wflip grid=(cdiv(numel(%s)%s, "
	             "256)) block=(256) args(%s, k%d_wf, %s, %s, %s, %s)\n", id,
	             wn, dense ? cg_fmt(G, " * (%s)", groups) : "", wn, id, cin_g,
	             w->dim[1].text, groups, taps);
	if (dense)
		G->ndense++;

	/* conv.impl=igemm: the forward convolution as the implicit GEMM over
	 * the flipped weight, straight into y (stride 1 only) */
	if (G->s.conv_impl >= 1 && !t->scatter && !dense &&
	    cg_emit_igemm_tconv(G, K, cg_fmt(G, "k%d_wf", id))) {
		G->ntconv++;
		return KRL_OK;
	}

	/* the forward convolution, into y or into the scattered scratch */
	const char *dst = yn;
	if (t->scatter) {
		dst = cg_fmt(G, "k%d_t", id);
		cg_sb_printf(&G->bufs, "buffer k%d_t f32 [(%s), (%s)", id,
		             x->dim[0].text, x->dim[1].text);
		for (int i = 0; i < nsp; i++)
			cg_sb_printf(&G->bufs, ", %s", dt[i].m);
		cg_sb_puts(&G->bufs, "]\n");
	}
	cg_sb_printf(&G->plan, "# k%d: node %d, the transposed convolution, as "
	             "a forward one%s\n", id, n,
	             t->scatter ? " scattered to the outputs its taps reach" : "");
	int fbias = t->bias && !t->scatter;
	cg_sb_printf(&G->plan, "call %s(%s, k%d_wf%s%s) -> %s",
	             fbias ? "conv_bias" : "conv", xn, id, fbias ? ", " : "",
	             fbias ? cg_bufname(G, x->in[2]) : "", dst);
	for (int i = 0; i < nsp; i++) {
		cg_sb_printf(&G->plan, " padding_%s=%s", letter(nsp, i),
		             dt[i].fpad);
		if (!is_lit(dt[i].fdil, 1))
			cg_sb_printf(&G->plan, " dilation_%s=%s", letter(nsp, i),
			             dt[i].fdil);
	}
	if (grouped && !dense)
		cg_sb_printf(&G->plan, " groups=%s", groups);
	cg_lib_choices(G, 1, 1, -1); /* the forward call takes both */
	G->ntconv++;
	if (!t->scatter)
		return KRL_OK;

	emit_scatter(G, id, t->bias, nsp);
	const char *O[3], *M[3], *S[3], *R[3];
	for (int i = 0; i < 3; i++) {
		int j = i - (3 - nsp); /* spatial dim of padded dim i */
		O[i] = j < 0 ? "1" : x->dim[2 + j].text;
		M[i] = j < 0 ? "1" : dt[j].m;
		S[i] = j < 0 ? "1" : dt[j].s;
		R[i] = j < 0 ? "0" : dt[j].r0;
	}
	const char *rows = cg_fmt(G, "(%s) * (%s)", x->dim[0].text,
	                          x->dim[1].text);
	/* threads along a line: u from -1 to cdiv(O2, s2) - 1 at most */
	const char *nu = cg_fmt(G, "cdiv(%s, %s) + 1", O[2], S[2]);
	const char *tail = cg_fmt(G, "args(k%d_t, %s%s%s, %s, %s, %s, %s, %s, "
	                          "%s, %s, %s, %s, %s, %s, %s, %s, %s)", id,
	                          t->bias ? cg_bufname(G, x->in[2]) : "",
	                          t->bias ? ", " : "", yn, rows, x->dim[1].text,
	                          O[0], O[1], O[2], M[0], M[1], M[2], S[0], S[1],
	                          S[2], R[0], R[1], R[2]);
	if (nsp == 1) {
		const char *bx = cg_fmt(G, "min(256, 32 * cdiv(%s, 32))", nu);
		cg_sb_printf(&G->plan, "launch k%d_scatter grid=(cdiv(%s, %s), "
		             "min(%s, 65535)) block=(%s) %s\n", id, nu, bx, rows, bx,
		             tail);
	} else {
		cg_sb_printf(&G->plan, "launch k%d_scatter grid=(cdiv(%s, %d), "
		             "min(cdiv(%s * (%s) * (%s), 8), 65535)) block=(32, 8) "
		             "%s\n", id, nu, 32 * SC_E, rows, O[0], O[1], tail);
	}
	return KRL_OK;
}
