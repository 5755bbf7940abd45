/*
 * The emitter of the code generator (codegen.h): the CUDA C that computes
 * one graph node at one point of a kernel's iteration space.
 *
 * A point is a linear index into a space (the dims of a node), optionally
 * seen as [outer | reduced axes | inner] at (o, r, c) in row and scan
 * kernels. A node evaluated at a point of a space its shape broadcasts
 * into is loaded (a leaf: a task buffer or a node in memory) at the
 * broadcast index, or computed from its inputs at the same point
 * (pointwise nodes), or at a moved point (gather, flip).
 *
 * Code goes to one of three levels, so that it runs as rarely as it can:
 * 0 once per thread (constants, scalar tensors), 1 once per row (the row's
 * reductions and what depends only on them and on row-indexed tensors), 2
 * per element. Values are memoised per level, so a node used twice is
 * computed once. On main points of vector steps, leaves that are laid out
 * like the space are loaded as float4/float2 once for all lanes (or taken
 * from the register cache of row kernels).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

/* ==== Memo ==== */

void cg_em_init(cg_em *em, cg_gen *G, cg_kern *K)
{
	memset(em, 0, sizeof *em);
	em->G = G;
	em->K = K;
	em->vec = 1;
	em->snode = -1;
	em->clnode = -1;
	em->rinner = "1";
}

void cg_em_free(cg_em *em)
{
	free(em->memo);
	em->memo = NULL;
	em->nmemo = em->capmemo = 0;
}

void cg_em_forget(cg_em *em, int level)
{
	int k = 0;
	for (int i = 0; i < em->nmemo; i++)
		if (em->memo[i].level < level)
			em->memo[k++] = em->memo[i];
	em->nmemo = k;
}

static const cg_val *memo_get(cg_em *em, int n, int level, const char *key)
{
	for (int i = em->nmemo - 1; i >= 0; i--) {
		const cg_memo *m = &em->memo[i];
		if (m->node == n && m->level == level && !strcmp(m->key, key))
			return &m->v;
	}
	return NULL;
}

static void memo_put(cg_em *em, int n, int level, const char *key, cg_val v)
{
	if (em->nmemo == em->capmemo) {
		int cap = em->capmemo ? 2 * em->capmemo : 64;
		cg_memo *m = realloc(em->memo, (size_t)cap * sizeof *m);
		if (!m) {
			em->G->oom = 1;
			return;
		}
		em->memo = m;
		em->capmemo = cap;
	}
	cg_memo *m = &em->memo[em->nmemo++];
	m->node = n;
	m->level = level;
	m->key = key;
	m->v = v;
}

void cg_em_set_reduce(cg_em *em, int node, cg_val v)
{
	for (int i = 0; i < em->nr; i++)
		if (em->rnode[i] == node) {
			em->rval[i] = v;
			return;
		}
	if (em->nr < CG_MAX_KNODES) {
		em->rnode[em->nr] = node;
		em->rval[em->nr++] = v;
	}
}

/* ==== Guards ==== */

void cg_guard_add(cg_em *em, const char *ext)
{
	for (int i = 0; i < em->nguard; i++)
		if (!strcmp(em->guard[i], ext))
			return;
	if (em->nguard < 16)
		em->guard[em->nguard++] = ext;
	else
		snprintf(em->G->err, sizeof em->G->err,
		         "too many vector guards in one kernel");
}

/* A guard that is a condition of its own (kept with a leading '?'). */
static void guard_cond_add(cg_em *em, const char *cond)
{
	cg_guard_add(em, cg_fmt(em->G, "?%s", cond));
}

const char *cg_guard_cond(cg_em *em)
{
	if (!em->nguard || em->vec == 1)
		return "true";
	cg_sb b = { 0 };
	for (int i = 0; i < em->nguard; i++)
		if (em->guard[i][0] == '?')
			cg_sb_printf(&b, "%s%s", i ? " && " : "", em->guard[i] + 1);
		else
			cg_sb_printf(&b, "%s%s %% %d == 0", i ? " && " : "",
			             em->guard[i], em->vec);
	const char *r = cg_fmt(em->G, "%s", b.z ? b.z : "true");
	if (b.oom)
		em->G->oom = 1;
	cg_sb_free(&b);
	return r;
}

/* ==== Shapes of leaves within a space ==== */

enum { CL_FULL, CL_ONE, CL_UNK, CL_WILD };

/* How node n's dims (right-aligned) relate to those of space s, one class
 * per dim of s. Returns -1 when n cannot broadcast into s. */
static int classify(const krl_graph *g, int n, int s, int *cls)
{
	const krl_gnode *x = &g->n[n], *sp = &g->n[s];
	int off = sp->ndim - x->ndim;
	for (int j = 0; j < -off; j++)
		if (!cg_dim_one(x->dim[j].text))
			return -1;
	for (int i = 0; i < sp->ndim; i++) {
		int j = i - off;
		if (cg_dim_one(sp->dim[i].text))
			cls[i] = CL_WILD;
		else if (j < 0 || cg_dim_one(x->dim[j].text))
			cls[i] = CL_ONE;
		else if (cg_dim_eq(x->dim[j].text, sp->dim[i].text))
			cls[i] = CL_FULL;
		else
			cls[i] = CL_UNK;
	}
	return 0;
}

/* The class shared by dims [from, to) of cls (CL_WILD when all are wild),
 * or -1 when they differ or one is unknown. */
static int seg_class(const int *cls, int from, int to)
{
	int c = CL_WILD;
	for (int i = from; i < to; i++) {
		if (cls[i] == CL_WILD)
			continue;
		if (cls[i] == CL_UNK)
			return -1;
		if (c == CL_WILD)
			c = cls[i];
		else if (c != cls[i])
			return -1;
	}
	return c;
}

/* The stride of node n along space dims ending before space dim `end`:
 * the product of n's dims after the one aligned with end - 1. */
static const char *stride_after(cg_em *em, int n, int s, int end)
{
	const krl_graph *g = em->G->g;
	int off = g->n[s].ndim - g->n[n].ndim;
	int j = end - off;
	if (j < 0)
		j = 0;
	return cg_prod(em->G, n, j, g->n[n].ndim);
}

/* n's stride along dim i of space s where n's extent there is another
 * symbol (CL_UNK): full or 1 at run time, so 0 where it is 1. */
static const char *unk_stride(cg_em *em, int n, int s, int i)
{
	const krl_graph *g = em->G->g;
	int off = g->n[s].ndim - g->n[n].ndim;
	return cg_fmt(em->G, "(min((%s), 2) - 1) * %s", g->n[n].dim[i - off].text,
	              stride_after(em, n, s, i + 1));
}

/* The class of the innermost run of dims of one class in cls (wild dims
 * joining any run), its first dim in *lo; -1 when every dim is wild. */
static int inner_run(const int *cls, int nd, int *lo)
{
	int i = nd - 1;
	while (i >= 0 && cls[i] == CL_WILD)
		i--;
	*lo = i;
	if (i < 0)
		return -1;
	while (*lo - 1 >= 0 && (cls[*lo - 1] == cls[i] || cls[*lo - 1] == CL_WILD))
		(*lo)--;
	return cls[i];
}

/* Whether a rowed point p indexes a node of classes cls by its (o, r, c)
 * coordinates, without dividing: each of the three runs of dims [0, ax0),
 * [ax0, ax1), [ax1, nd) has one class (in sc). */
static int rowed_coords(const int *cls, const cg_point *p, int nd, int *sc)
{
	int b[4] = { 0, p->ax0, p->ax1, nd };
	int ok = 1;
	for (int k = 0; k < 3; k++)
		if ((sc[k] = seg_class(cls, b[k], b[k + 1])) < 0)
			ok = 0;
	return ok;
}

/* rowed_coords, where a run may also be one dim of unknown extent (CL_UNK:
 * full or 1 at run time, a layer norm's [normalized_shape] weight over
 * W) among wild ones: sc[k] CL_UNK and that dim in ud[k]. */
static int rowed_coords_unk(const int *cls, const cg_point *p, int nd,
                            int *sc, int *ud)
{
	int b[4] = { 0, p->ax0, p->ax1, nd };
	for (int k = 0; k < 3; k++) {
		ud[k] = -1;
		if ((sc[k] = seg_class(cls, b[k], b[k + 1])) >= 0)
			continue;
		int nw = 0;
		for (int i = b[k]; i < b[k + 1]; i++)
			if (cls[i] != CL_WILD) {
				nw++;
				ud[k] = i;
			}
		if (nw != 1 || cls[ud[k]] != CL_UNK)
			return 0;
		sc[k] = CL_UNK;
	}
	return 1;
}

/* Linear index, in node n's own layout, of point p (n broadcast into p's
 * space). */
static const char *offset_of(cg_em *em, int n, const cg_point *p)
{
	cg_gen *G = em->G;
	const krl_graph *g = G->g;
	const krl_gnode *sp = &g->n[p->space];
	int cls[KRL_MAX_DIM];
	if (classify(g, n, p->space, cls)) {
		snprintf(G->err, sizeof G->err, "node %d does not broadcast to "
		         "the shape of node %d", n, p->space);
		return "0";
	}
	int full = 1, one = 1;
	for (int i = 0; i < sp->ndim; i++) {
		if (cls[i] != CL_FULL && cls[i] != CL_WILD)
			full = 0;
		if (cls[i] != CL_ONE && cls[i] != CL_WILD)
			one = 0;
	}
	if (one)
		return "0";
	/* the space's own index, unless the reduced axes are all 1s: then n
	 * is the same at every r (leaf_level puts it at the row level, where
	 * the point's index, which names r, is not defined yet), and the
	 * [outer | axes | inner] index below leaves r out */
	int rwild = p->rowed && p->ax1 > p->ax0 &&
	            seg_class(cls, p->ax0, p->ax1) == CL_WILD;
	if (full && g->n[n].ndim <= sp->ndim && !rwild)
		return p->lin;
	/* a point that names its coordinates: each full dim's coordinate
	 * times n's stride, no division; a dim that may be full or 1 (its
	 * extent another symbol: a layer norm's [normalized_shape] weight
	 * over W) its coordinate times the stride where n's extent is not 1,
	 * as below */
	if (p->coord) {
		cg_sb t = { 0 };
		int nt = 0;
		em->used_coord = 1;
		for (int i = 0; i < sp->ndim; i++) {
			if (cls[i] == CL_UNK) {
				cg_sb_printf(&t, "%s%s * %s", nt++ ? " + " : "",
				             p->coord[i], cg_arg_long(G, em->K,
				             unk_stride(em, n, p->space, i)));
				continue;
			}
			if (cls[i] != CL_FULL)
				continue;
			/* a run of full spatial dims from the first: one merged
			 * coordinate, n's stride of the run's last dim */
			const char *c = p->coord[i];
			int e = i + 1;
			if (i == 2 && p->mcoord) {
				while (e < sp->ndim && cls[e] == CL_FULL)
					e++;
				if (e > 3)
					c = p->mcoord[e];
				else
					e = i + 1;
			}
			const char *st = stride_after(em, n, p->space, e);
			if (!strcmp(st, "1"))
				cg_sb_printf(&t, "%s%s", nt++ ? " + " : "", c);
			else
				cg_sb_printf(&t, "%s%s * %s", nt++ ? " + " : "", c,
				             cg_arg_long(G, em->K, st));
			i = e - 1;
		}
		const char *r = nt ? cg_fmt(G, "(%s)", t.z) : "0";
		if (t.oom)
			G->oom = 1;
		cg_sb_free(&t);
		return r;
	}
	if (p->rowed) {
		int b[4] = { 0, p->ax0, p->ax1, sp->ndim };
		int sc[3], ud[3];
		if (rowed_coords_unk(cls, p, sp->ndim, sc, ud) &&
		    (sc[0] != CL_UNK || p->o) && (sc[1] != CL_UNK || p->r) &&
		    (sc[2] != CL_UNK || p->c)) {
			const char *coord[3] = { p->o, p->r, p->c };
			cg_sb t = { 0 };
			int nt = 0;
			for (int k = 0; k < 3; k++) {
				if (sc[k] == CL_UNK) {
					/* its coordinate times the stride, 0 where its
					 * extent is 1 */
					cg_sb_printf(&t, "%s%s * %s", nt++ ? " + " : "",
					             coord[k], cg_arg_long(G, em->K,
					             unk_stride(em, n, p->space, ud[k])));
					continue;
				}
				if (sc[k] != CL_FULL || !coord[k])
					continue;
				const char *st = stride_after(em, n, p->space, b[k + 1]);
				if (!strcmp(st, "1"))
					cg_sb_printf(&t, "%s%s", nt++ ? " + " : "", coord[k]);
				else
					cg_sb_printf(&t, "%s%s * %s", nt++ ? " + " : "",
					             coord[k], cg_arg_long(G, em->K, st));
			}
			const char *r = nt ? cg_fmt(G, "(%s)", t.z) : "0";
			if (t.oom)
				G->oom = 1;
			cg_sb_free(&t);
			return r;
		}
	}
	/* generic: runs of full or broadcast dims from the innermost; every
	 * run of full (or unknown) dims adds its coordinate times n's stride.
	 * A node the same at every r of a row is indexed from the row's
	 * element r = 0 (em->rb): the row level, where r is not defined */
	const char *lin = p->lin;
	if (p->rowed && em->rb && p->ax1 > p->ax0) {
		int rc = seg_class(cls, p->ax0, p->ax1);
		if (rc == CL_ONE || rc == CL_WILD)
			lin = em->rb;
	}
	int outer = 0;
	while (outer < sp->ndim && cls[outer] == CL_WILD)
		outer++;
	cg_sb t = { 0 };
	int nt = 0;
	int i = sp->ndim - 1;
	G->need |= CG_NEED_DIV;
	while (i >= 0) {
		if (cls[i] == CL_WILD) {
			i--;
			continue;
		}
		int c = cls[i], hi = i + 1, lo = i;
		if (c != CL_UNK)
			while (lo - 1 >= 0 && (cls[lo - 1] == c || cls[lo - 1] == CL_WILD))
				lo--;
		i = lo - 1;
		if (c == CL_ONE)
			continue;
		const char *pin = cg_prod(G, p->space, hi, sp->ndim);
		const char *ext = cg_prod(G, p->space, lo, hi);
		/* an unknown dim is a run of its own: lo == i, hi == i + 1 */
		const char *st = c == CL_FULL ? stride_after(em, n, p->space, hi) :
		                 unk_stride(em, n, p->space, lo);
		const char *q = !strcmp(pin, "1") ? lin :
		                p->qval && lin == p->lin && !strcmp(pin, p->qpin) ?
		                p->qval :
		                cg_fmt(G, "krl_div(%s, %s)", lin,
		                       cg_arg_long(G, em->K, pin));
		if (lo > outer)
			q = cg_fmt(G, "krl_mod(%s, %s)", q, cg_arg_long(G, em->K, ext));
		if (strcmp(st, "1"))
			q = cg_fmt(G, "%s * %s", q, cg_arg_long(G, em->K, st));
		cg_sb_printf(&t, "%s%s", nt++ ? " + " : "", q);
	}
	const char *r = nt ? cg_fmt(G, "(%s)", t.z) : "0";
	if (t.oom)
		G->oom = 1;
	cg_sb_free(&t);
	return r;
}

/* Where node n, stored channels-last (cg_is_cl: dims [N, C, s...], memory
 * [N, s..., C]), holds its element at p: its NCHW index L mapped,
 * ((L / (C S)) S + L % S) C + (L / S) % C with S the product of s. */
static const char *cl_offset(cg_em *em, int n, const cg_point *p)
{
	cg_gen *G = em->G;
	const char *L = offset_of(em, n, p);
	const char *C = cg_arg_long(G, em->K, cg_prod(G, n, 1, 2));
	const char *S = cg_arg_long(G, em->K, cg_prod(G, n, 2, G->g->n[n].ndim));
	const char *CS = cg_arg_long(G, em->K, cg_prod(G, n, 1, G->g->n[n].ndim));
	G->need |= CG_NEED_DIV;
	return cg_fmt(G, "((krl_div(%s, %s) * %s + krl_mod(%s, %s)) * %s + "
	              "krl_mod(krl_div(%s, %s), %s))", L, CS, S, L, S, C, L, S,
	              C);
}

/* ==== Levels ==== */

/* The level of a leaf-like node n (a leaf, or a view of one) at p: from
 * how its dims broadcast into p's space. */
static int leaf_level(cg_em *em, int n, const cg_point *p)
{
	const krl_graph *g = em->G->g;
	int cls[KRL_MAX_DIM];
	if (classify(g, n, p->space, cls))
		return 2;
	const krl_gnode *sp = &g->n[p->space];
	int one = 1;
	for (int i = 0; i < sp->ndim; i++)
		if (cls[i] != CL_ONE && cls[i] != CL_WILD)
			one = 0;
	if (one)
		return 0;
	if (p->rowed && p->inrow) {
		int b[4] = { 0, p->ax0, p->ax1, sp->ndim };
		int ok = 1;
		for (int k = 0; k < 3; k++)
			if (seg_class(cls, b[k], b[k + 1]) < 0)
				ok = 0;
		int rc = seg_class(cls, p->ax0, p->ax1);
		/* the same at every r of the row: at the row level, indexed
		 * by its coordinates or, where its outer or inner dims do not
		 * broadcast alike (a per-channel operand of a reduction over N
		 * and the spatial dims), at r = 0 (offset_of) */
		if ((ok || em->rb) && (rc == CL_ONE || rc == CL_WILD))
			return 1;
	}
	return 2;
}

static int level_rec(cg_em *em, int n, const cg_point *p, int depth)
{
	const krl_graph *g = em->G->g;
	const krl_gnode *x = &g->n[n];
	if (x->kind == KRL_GN_CONST)
		return 0;
	int s = cg_see(em->G, n, em->K->id);
	if (s == SEE_IN)
		return x->kind == KRL_GN_REDUCE ? 1 : 2;
	if (s == SEE_OUT)
		return 2;
	if (s == SEE_LEAF)
		return leaf_level(em, n, p);
	if (x->kind == KRL_GN_VIEW) {
		int b = x->in[0];
		while (g->n[b].kind == KRL_GN_VIEW &&
		       cg_see(em->G, b, em->K->id) == SEE_INLINE)
			b = g->n[b].in[0];
		return cg_see(em->G, b, em->K->id) == SEE_LEAF ?
		       leaf_level(em, n, p) : 2;
	}
	if (x->kind != KRL_GN_PW || depth > 256)
		return 2;
	int l = 0;
	for (int i = 0; i < x->nin && l < 2; i++) {
		int li = level_rec(em, x->in[i], p, depth + 1);
		if (li > l)
			l = li;
	}
	return l;
}

int cg_level(cg_em *em, int n, const cg_point *p)
{
	int l = level_rec(em, n, p, 0);
	int cap = p->rowlevel ? 1 : 2;
	if (p->cap && p->cap - 1 < cap)
		cap = p->cap - 1;
	return l < cap ? l : cap;
}

/* ==== Values ==== */

const char *cg_f(cg_em *em, cg_val v)
{
	return v.t == 'l' ? cg_fmt(em->G, "(float)%s", v.e) : v.e;
}

const char *cg_conv(cg_em *em, cg_val v, krl_dtype t)
{
	cg_gen *G = em->G;
	switch (t) {
	case KRL_F32: return cg_f(em, v);
	case KRL_F64: return cg_fmt(G, "(double)%s", v.e);
	case KRL_I64: return v.t == 'l' ? v.e : cg_fmt(G, "(long long)%s", v.e);
	case KRL_I32: return cg_fmt(G, "(int)%s", v.e);
	case KRL_BOOL:
		return v.t == 'l' ? cg_fmt(G, "(unsigned char)(%s != 0)", v.e) :
		       cg_fmt(G, "(unsigned char)(%s != 0.f)", v.e);
	case KRL_F16:
		G->need |= CG_NEED_HALF;
		return cg_fmt(G, "__float2half(%s)", cg_f(em, v));
	case KRL_BF16:
		G->need |= CG_NEED_HALF;
		return cg_fmt(G, "__float2bfloat16(%s)", cg_f(em, v));
	default: return cg_f(em, v);
	}
}

/* The C expression of element `off` of node n's buffer, as a value. */
static cg_val elem(cg_em *em, int n, const char *ptr, const char *off)
{
	cg_gen *G = em->G;
	cg_val v = { NULL, 'f' };
	switch (G->g->n[n].dtype) {
	case KRL_F32:
		v.e = cg_fmt(G, "%s[%s]", ptr, off);
		break;
	case KRL_I32:
	case KRL_I64:
		v.e = cg_fmt(G, "(long long)%s[%s]", ptr, off);
		v.t = 'l';
		break;
	case KRL_F16:
		G->need |= CG_NEED_HALF;
		v.e = cg_fmt(G, "__half2float(%s[%s])", ptr, off);
		break;
	case KRL_BF16:
		G->need |= CG_NEED_HALF;
		v.e = cg_fmt(G, "__bfloat162float(%s[%s])", ptr, off);
		break;
	default:
		v.e = cg_fmt(G, "(float)%s[%s]", ptr, off);
		break;
	}
	return v;
}

/* Declares a value at level lvl and returns it as a variable. */
static cg_val declare(cg_em *em, int lvl, cg_val v)
{
	const char *name = cg_name(em->G, "v");
	cg_line(em->buf[lvl], em->ind[lvl], "const %s %s = %s;",
	        v.t == 'l' ? "long long" : "float", name, v.e);
	cg_val r = { name, v.t };
	return r;
}

static const char *comp(int c)
{
	static const char *const xyzw[4] = { "x", "y", "z", "w" };
	return xyzw[c & 3];
}

/* A vector of em->vec floats of node n from element off (which must be
 * aligned) of ptr (NULL: n's buffer; a cat read in place: its part's),
 * loaded once per step. */
static const char *vload(cg_em *em, int n, const char *ptr, const char *off)
{
	cg_gen *G = em->G;
	const char *key = cg_fmt(G, "V%s", off);
	const cg_val *m = memo_get(em, n, 2, key);
	if (m)
		return m->e;
	if (!ptr)
		ptr = cg_arg_buf(G, em->K, n, 0);
	const char *vt = em->vec == 4 ? "float4" : "float2";
	const char *name = cg_name(G, "w");
	cg_line(em->buf[2], em->ind[2],
	        "const %s %s = *reinterpret_cast<const %s *>(%s + %s);", vt, name,
	        vt, ptr, off);
	cg_val v = { name, 'f' };
	memo_put(em, n, 2, key, v);
	return name;
}

/* A leaf on a main point of a vector step. */
static cg_val load_main(cg_em *em, int n, const cg_point *p)
{
	cg_gen *G = em->G;
	const krl_graph *g = G->g;
	const krl_gnode *sp = &g->n[p->space];
	int cls[KRL_MAX_DIM];
	cg_val v = { NULL, 'f' };
	if (classify(g, n, p->space, cls)) {
		snprintf(G->err, sizeof G->err, "node %d does not broadcast to "
		         "the shape of node %d", n, p->space);
		return v;
	}
	int c = em->rev ? em->vec - 1 - p->lane : p->lane;
	int full = 1;
	for (int i = 0; i < sp->ndim; i++)
		if (cls[i] != CL_FULL && cls[i] != CL_WILD)
			full = 0;
	/* a view at an offset that may leave it unaligned: a scalar a lane */
	int f32 = g->n[n].dtype == KRL_F32 && !cg_off_view(G, n);
	if (full) {
		for (int i = 0; i < em->ncache && em->ck; i++)
			if (em->cnode[i] == n) {
				v.e = cg_fmt(G, "%s[%s].%s", em->cvar[i], em->ck, comp(c));
				return v;
			}
		if (f32) {
			v.e = cg_fmt(G, "%s.%s", vload(em, n, NULL, em->vlin), comp(c));
			return v;
		}
		return declare(em, 2, elem(em, n, cg_arg_buf(G, em->K, n, 0),
		                           p->lin));
	}
	/* the innermost run of dims with one class */
	int lo;
	int rc = inner_run(cls, sp->ndim, &lo);
	if (rc == CL_UNK || rc < 0)
		return declare(em, 2, elem(em, n, cg_arg_buf(G, em->K, n, 0),
		                           offset_of(em, n, p)));
	cg_guard_add(em, cg_arg_long(G, em->K, cg_prod(G, p->space, lo,
	                                               sp->ndim)));
	cg_point p0 = *p;
	p0.lin = em->vlin;
	if (p->rowed)
		p0.r = em->vr;
	if (p->coord0)
		p0.coord = p->coord0;
	const char *off0 = offset_of(em, n, &p0);
	const char *ptr = cg_arg_buf(G, em->K, n, 0);
	if (rc == CL_ONE) {
		const char *key = cg_fmt(G, "S%s", off0);
		const cg_val *m = memo_get(em, n, 2, key);
		if (m)
			return *m;
		cg_val r = declare(em, 2, elem(em, n, ptr, off0));
		memo_put(em, n, 2, key, r);
		return r;
	}
	if (f32) {
		v.e = cg_fmt(G, "%s.%s", vload(em, n, NULL, off0), comp(c));
		return v;
	}
	return declare(em, 2, elem(em, n, ptr, cg_fmt(G, "%s + %d", off0, c)));
}

/* The innermost gather or flip being evaluated must be materialised by a
 * map kernel: the kernel's anchors are needed at a point outside its
 * current row. */
static cg_val fail_gf(cg_em *em, int n)
{
	cg_val bad = { NULL, 'f' };
	cg_gen *G = em->G;
	if (em->ngf) {
		G->fail = em->gf[em->ngf - 1];
		G->failforce = 1;
	} else {
		snprintf(G->err, sizeof G->err, "node %d is needed outside the "
		         "point where kernel k%d computes it", n, em->K->id);
	}
	return bad;
}

/* Whether a float literal is exactly this constant's text. */
static int literal(const char *z, double *out)
{
	char *end;
	while (*z == ' ' || *z == '(')
		z++;
	double v = strtod(z, &end);
	if (end == z)
		return 0;
	while (*end == ' ' || *end == ')')
		end++;
	if (*end)
		return 0;
	*out = v;
	return 1;
}

cg_point cg_row_point(cg_em *em, const char *lin, const char *r, int lane)
{
	cg_point p;
	memset(&p, 0, sizeof p);
	p.space = em->K->space;
	p.lin = lin;
	p.rowed = 1;
	p.ax0 = em->K->ax0;
	p.ax1 = em->K->ax1;
	p.o = em->ro;
	p.r = r;
	p.c = em->rc;
	p.inrow = 1;
	p.main = 1;
	p.lane = lane;
	if (em->pb)
		p.plin = strcmp(em->pstride, "1") ?
		         cg_fmt(em->G, "(%s + %s * %s)", em->pb, r, em->pstride) :
		         cg_fmt(em->G, "(%s + %s)", em->pb, r);
	return p;
}

static cg_val ev_gather(cg_em *em, int n, const cg_point *p, int lvl)
{
	cg_gen *G = em->G;
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[n];
	cg_val bad = { NULL, 'f' };
	int in0 = x->in[0];
	const krl_gnode *x0 = &g->n[in0];
	int a = x->axis;
	if (a < 0 || a >= x0->ndim) {
		snprintf(G->err, sizeof G->err, "gather node %d: bad axis", n);
		return bad;
	}
	cg_val iv = cg_ev(em, x->in[1], p);
	if (!iv.e)
		return bad;
	const char *D = cg_arg_long(G, em->K, cg_fmt(G, "(%s)", x0->dim[a].text));
	const char *gi = cg_name(G, "g");
	cg_line(em->buf[lvl], em->ind[lvl], "long long %s = (long long)%s;", gi,
	        iv.e);
	/* an index outside the axis would read out of bounds: clamp it */
	cg_line(em->buf[lvl], em->ind[lvl],
	        "%s = %s < 0 ? 0 : %s >= %s ? %s - 1 : %s;", gi, gi, gi, D, D,
	        gi);
	const cg_kern *K = em->K;
	cg_point q;
	memset(&q, 0, sizeof q);
	q.rowlevel = p->rowlevel;
	if (K->kind == CK_ROW && a == K->ax0 && K->ax1 == a + 1 && p->inrow &&
	    g->n[K->space].ndim == x0->ndim && cg_gsame(G, in0, K->space) &&
	    cg_is_rowshape(G, K, n) && em->ro) {
		q = cg_row_point(em, strcmp(em->rinner, "1") ?
		                 cg_fmt(G, "(%s + %s * %s)", em->rb, gi, em->rinner) :
		                 cg_fmt(G, "(%s + %s)", em->rb, gi), gi, 0);
		q.main = 0;
		q.rowlevel = p->rowlevel;
	} else {
		const char *own = offset_of(em, n, p);
		const char *inner = cg_prod(G, in0, a + 1, x0->ndim);
		q.rowlevel = p->rowlevel;
		G->need |= CG_NEED_DIV;
		if (!strcmp(inner, "1")) {
			q.lin = cg_fmt(G, "(%s * %s + %s)", own, D, gi);
		} else {
			const char *ia = cg_arg_long(G, em->K, inner);
			q.lin = cg_fmt(G, "((krl_div(%s, %s) * %s + %s) * %s + "
			               "krl_mod(%s, %s))", own, ia, D, gi, ia, own, ia);
		}
		q.space = in0;
	}
	if (em->ngf == 64) {
		snprintf(G->err, sizeof G->err, "gathers nested too deep");
		return bad;
	}
	q.cap = lvl + 1;
	em->gf[em->ngf++] = n;
	cg_val v = cg_ev(em, in0, &q);
	em->ngf--;
	return v;
}

static cg_val ev_flip(cg_em *em, int n, const cg_point *p, int lvl)
{
	cg_gen *G = em->G;
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[n];
	cg_val bad = { NULL, 'f' };
	int in0 = x->in[0];
	int a = x->axis;
	if (a < 0 || a >= x->ndim) {
		snprintf(G->err, sizeof G->err, "flip node %d: bad axis", n);
		return bad;
	}
	const cg_kern *K = em->K;
	cg_point q;
	memset(&q, 0, sizeof q);
	q.rowlevel = p->rowlevel;
	if ((K->kind == CK_ROW || K->kind == CK_SCAN) && a == K->ax0 &&
	    K->ax1 == a + 1 && p->rowed && p->space == K->space &&
	    g->n[K->space].ndim == x->ndim && cg_gsame(G, n, K->space) &&
	    em->ro) {
		const char *r = cg_fmt(G, "(%s - 1 - %s)", em->rlen, p->r);
		q = cg_row_point(em, strcmp(em->rinner, "1") ?
		                 cg_fmt(G, "(%s + %s * %s)", em->rb, r, em->rinner) :
		                 cg_fmt(G, "(%s + %s)", em->rb, r), r, 0);
		q.main = 0;
		q.inrow = p->inrow;
		q.rowlevel = p->rowlevel;
	} else {
		const char *own = offset_of(em, n, p);
		const char *D = cg_arg_long(G, em->K,
		                            cg_fmt(G, "(%s)", x->dim[a].text));
		const char *inner = cg_prod(G, n, a + 1, x->ndim);
		G->need |= CG_NEED_DIV;
		if (!strcmp(inner, "1")) {
			q.lin = cg_fmt(G, "(%s + (%s - 1 - 2 * krl_mod(%s, %s)))", own,
			               D, own, D);
		} else {
			const char *ia = cg_arg_long(G, em->K, inner);
			q.lin = cg_fmt(G, "(%s + (%s - 1 - 2 * krl_mod(krl_div(%s, %s), "
			               "%s)) * %s)", own, D, own, ia, D, ia);
		}
		q.space = n;
	}
	if (em->ngf == 64) {
		snprintf(G->err, sizeof G->err, "flips nested too deep");
		return bad;
	}
	q.cap = lvl + 1;
	em->gf[em->ngf++] = n;
	cg_val v = cg_ev(em, in0, &q);
	em->ngf--;
	return v;
}

/* Whether view node n, of the shape of rowed point p's space, keeps that
 * space's outer and inner dims and merges or splits only the reduced
 * ones: the same dims (by text) before p->ax0 and after p->ax1 in its
 * input. Then the input's point has the same o, r and c, with the reduced
 * axes [*ax0, *ax1) of the input. */
static int view_rows(const krl_graph *g, int n, const cg_point *p,
                     int *ax0, int *ax1)
{
	const krl_gnode *x = &g->n[n], *a = &g->n[x->in[0]];
	if (!p->rowed || x->ndim != g->n[p->space].ndim || p->ax0 > a->ndim)
		return 0;
	for (int i = 0; i < p->ax0; i++)
		if (!cg_dim_eq(x->dim[i].text, a->dim[i].text))
			return 0;
	int tail = x->ndim - p->ax1;
	if (a->ndim - tail < p->ax0)
		return 0;
	for (int j = 1; j <= tail; j++)
		if (!cg_dim_eq(x->dim[x->ndim - j].text, a->dim[a->ndim - j].text))
			return 0;
	*ax0 = p->ax0;
	*ax1 = a->ndim - tail;
	return 1;
}

/* The point whose index the lanes of a vector step share for view n (of
 * level lvl at p): lane 0's, where n is broadcast along the innermost
 * dims of p's space (a per-channel bias viewed [1, C, 1, 1]) whose extent
 * is a multiple of the lane count at the set generated for; the vector
 * path's guard then asks it at run time, so that the vec lanes from an
 * aligned index (a map kernel's, or a row kernel's float4 step) lie in
 * one run and read one element (one index computation, not vec); p
 * itself otherwise. Lane 0's point is a linear one at em->vlin: a rowed
 * point that would index by its coordinates (no division) keeps them,
 * and so does a coordinate point. With `carry`, an extent that is not a
 * multiple of vec returns lane 0's point too, its run's first dim in
 * *lop (lane_offset's case); without, p. */
static const cg_point *lane_point_of(cg_em *em, int n, const cg_point *p,
                                     int lvl, cg_point *p0, int carry,
                                     int *lop)
{
	cg_gen *G = em->G;
	const krl_gnode *sp = &G->g->n[p->space];
	int cls[KRL_MAX_DIM], sc[3], lo;
	*lop = -1;
	if (!p->main || lvl != 2 || em->vec == 1 || !em->vlin || p->coord ||
	    classify(G->g, n, p->space, cls) ||
	    (p->rowed && rowed_coords(cls, p, sp->ndim, sc)) ||
	    inner_run(cls, sp->ndim, &lo) != CL_ONE)
		return p;
	if (lo == 0)
		return p; /* one element: its index is 0 at every lane */
	/* the run's extent at the set generated for: where it is not a
	 * multiple of vec, a guard would turn the whole vector path off
	 * there, which costs more than an index per lane */
	int64_t ext = 1;
	for (int k = lo; k < sp->ndim; k++)
		ext *= sp->dim[k].val > 0 ? sp->dim[k].val : 0;
	/* carry asks for lanes at vlin + lane: not reversed (a reverse
	 * scan's), not a channels-last walk (plin: lanes C apart in memory
	 * are S apart in the space) */
	if (!ext || (ext % em->vec && (!carry || em->rev || p->plin)))
		return p;
	*p0 = *p;
	p0->lin = em->vlin;
	p0->rowed = 0;
	if (ext % em->vec)
		*lop = lo;
	else
		cg_guard_add(em, cg_arg_long(G, em->K, cg_prod(G, p->space, lo,
		                                               sp->ndim)));
	return p0;
}

static const cg_point *lane_point(cg_em *em, int n, const cg_point *p,
                                  int lvl, cg_point *p0)
{
	int lo;
	return lane_point_of(em, n, p, lvl, p0, 0, &lo);
}

/*
 * Where view n holds its element at p: lane_point's shared index, or,
 * where the run's extent E is not a multiple of vec at the set generated
 * for (60's group norm at kb1: a per-channel bias over planes of 31 x 63
 * x 63), the index of lane 0's run or of the next one's: a step's lanes
 * (E >= vec, which the vector path's guard asks) lie in at most two runs,
 * lane k in the next one where (vlin mod E) + k >= E. Both indices are
 * the same expressions at every lane of the step (one division of vlin
 * by E, and what indexes the run: the bias's channel, a modulo), where
 * each lane divided its own index before (two 32-bit divisions a lane,
 * the integer work that bound 60's map and row kernels at kb1: 1.31 and
 * 0.82 ms against Triton's 0.73 and 0.57 on the H100).
 */
static const char *lane_offset(cg_em *em, int n, const cg_point *p, int lvl)
{
	cg_gen *G = em->G;
	cg_point q0;
	int lo;
	const cg_point *l0 = lane_point_of(em, n, p, lvl, &q0, 1, &lo);
	if (lo < 0)
		return offset_of(em, n, l0);
	const char *pt = cg_prod(G, p->space, lo, G->g->n[p->space].ndim);
	const char *E = cg_arg_long(G, em->K, pt);
	guard_cond_add(em, cg_fmt(G, "%s >= %d", E, em->vec));
	q0.qpin = pt;
	q0.qval = cg_fmt(G, "krl_div(%s, %s)", em->vlin, E);
	const char *a = offset_of(em, n, &q0);
	if (p->lane == 0)
		return a;
	cg_point q1 = q0;
	q1.qval = cg_fmt(G, "(krl_div(%s, %s) + 1)", em->vlin, E);
	const char *b = offset_of(em, n, &q1);
	if (!strcmp(a, b))
		return a;
	return cg_fmt(G, "(krl_mod(%s, %s) + %d >= %s ? %s : %s)", em->vlin, E,
	              p->lane, E, b, a);
}

/* A view: in[0] at the same linear index (its own). A view of a leaf
 * keeps the main point's lanes when its index is the point's, and a row
 * kernel's rowed coordinates where it only reshapes the reduced axes
 * (view_rows): per-channel operands behind it stay row-level. */
static cg_val ev_view(cg_em *em, int n, const cg_point *p, int lvl)
{
	cg_gen *G = em->G;
	cg_val bad = { NULL, 'f' };
	const char *own = lane_offset(em, n, p, lvl);
	cg_point q;
	memset(&q, 0, sizeof q);
	q.space = G->g->n[n].in[0];
	q.lin = own;
	q.rowlevel = p->rowlevel;
	q.cap = lvl + 1;
	if (!strcmp(own, p->lin)) {
		q.main = p->main;
		q.lane = p->lane;
		/* the same element of a channels-last input in memory */
		if (cg_cl_view(G->g, n))
			q.plin = p->plin;
		int a0, a1;
		if (view_rows(G->g, n, p, &a0, &a1)) {
			q.rowed = 1;
			q.ax0 = a0;
			q.ax1 = a1;
			q.o = p->o;
			q.r = p->r;
			q.c = p->c;
			q.inrow = p->inrow;
		}
	}
	/* a row kernel's view of a row-shaped node as another row shape (a
	 * kept dim added or dropped): the same index is the same row, so the
	 * row's reduce values hold there too. Where the view is read at a
	 * full-shape point (own is then the row's index, not p's: 47's
	 * norm, clamped through [b, k] and broadcast back as [b, k, 1] to
	 * divide the row) as where a reduction is written to an output
	 * through it. */
	if (p->inrow && em->K->kind == CK_ROW && cg_is_rowshape(G, em->K, n) &&
	    cg_is_rowshape(G, em->K, q.space))
		q.inrow = 1;
	if (em->ngf == 64) {
		snprintf(G->err, sizeof G->err, "views nested too deep");
		return bad;
	}
	em->gf[em->ngf++] = n;
	cg_val v = cg_ev(em, q.space, &q);
	em->ngf--;
	return v;
}

/* A cat read in place (cg_cat_read): its element at p from the part
 * that holds it. The part is chosen once a row where the row kernel's
 * rows lie within one part (the cat's dim outside the reduced axes, no
 * inner coordinate: DenseNet's batch-norm statistics over (H, W) rows),
 * once a vector step where the step's lanes do (the extent after the cat's
 * dim a multiple of vec: the guard), or where the step's lanes read one
 * element of it, else at each element. */
static cg_val ev_catread(cg_em *em, int n, const cg_point *p, int lvl)
{
	cg_gen *G = em->G;
	const krl_gnode *x = &G->g->n[n];
	cg_val v = { NULL, 'f' };
	int d = cg_cat_dim(x);
	cg_point lane0;
	/* lane 0's index where the lanes of a vector step share it (a
	 * per-channel statistic): one part chosen a step, not a lane */
	const char *own = offset_of(em, n, lane_point(em, n, p, lvl, &lane0));
	int full = !strcmp(own, p->lin);
	int vec = lvl == 2 && p->main && em->vec > 1 && em->vlin && full &&
	          !em->rev;
	int row = full && lvl >= 1 && p->rowed && p->inrow && em->rb &&
	          !em->rc && em->K->kind == CK_ROW && d < p->ax0;
	const char *lin = row ? em->rb : vec ? em->vlin : own;
	int sl = row ? 1 : lvl;
	const char *pkey = cg_fmt(G, "P%s", lin), *dkey = cg_fmt(G, "D%s", lin);
	const cg_val *mp = memo_get(em, n, sl, pkey);
	const cg_val *md = memo_get(em, n, sl, dkey);
	const char *P, *D;
	if (mp && md) {
		P = mp->e;
		D = md->e;
	} else {
		P = cg_cat_part(em, n, lin, sl, &D);
		memo_put(em, n, sl, pkey, (cg_val){ P, 'f' });
		memo_put(em, n, sl, dkey, (cg_val){ D, 'l' });
	}
	if (vec) {
		cg_guard_add(em, cg_arg_long(G, em->K, cg_prod(G, n, d + 1,
		                                               x->ndim)));
		v.e = cg_fmt(G, "%s.%s", vload(em, n, P, cg_fmt(G, "(%s + %s)",
		             em->vlin, D)), comp(p->lane));
		return v;
	}
	return declare(em, lvl, (cg_val){ cg_fmt(G, "%s[%s + %s]", P, own, D),
	                                  'f' });
}

/* Whether an operand needs no parentheses: a name, a member or element
 * of one, or an unsigned number. */
static int atomic(const char *z)
{
	if (!*z)
		return 0;
	for (const char *c = z; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || *c == '.' ||
		      *c == '[' || *c == ']'))
			return 0;
	return 1;
}

static cg_val ev_pw(cg_em *em, int n, const cg_point *p, int lvl)
{
	cg_gen *G = em->G;
	const krl_gnode *x = &G->g->n[n];
	cg_val bad = { NULL, 'f' };
	const krl_pwinfo *pi = krl_pw_info(x->pw);
	if (!pi || !pi->cuda) {
		snprintf(G->err, sizeof G->err, "pointwise op %d has no CUDA text",
		         (int)x->pw);
		return bad;
	}
	if (strstr(pi->cuda, "krl_maxf") || strstr(pi->cuda, "krl_minf"))
		G->need |= CG_NEED_RED; /* the NaN-keeping max and min */
	/* math=fast: the row's approximate text where it has one */
	const char *text = G->s.math_fast && pi->fast ? pi->fast : pi->cuda;
	if (strstr(text, "krl_tanh_fast"))
		G->need |= CG_NEED_FAST;
	const char *a[4] = { 0 };
	for (int i = 0; i < x->nin && i < 4; i++) {
		cg_val v = cg_ev(em, x->in[i], p);
		if (!v.e)
			return bad;
		a[i] = cg_f(em, v);
	}
	cg_sb b = { 0 };
	for (const char *s = text; *s; s++) {
		if (s[0] == '%' && s[1] >= '0' && s[1] <= '3') {
			int k = s[1] - '0';
			if (k >= x->nin) {
				cg_sb_free(&b);
				snprintf(G->err, sizeof G->err, "pointwise '%s' uses "
				         "operand %d of %d", pi->name, k, x->nin);
				return bad;
			}
			/* the table's text parenthesises its operands already when
			 * they stand in an expression ("(%0 + %1)") */
			cg_sb_printf(&b, atomic(a[k]) ? "%s" : "(%s)", a[k]);
			s++;
		} else {
			char c[2] = { *s, 0 };
			cg_sb_puts(&b, c);
		}
	}
	cg_val v = { cg_fmt(G, "%s", b.z ? b.z : ""), 'f' };
	if (b.oom)
		G->oom = 1;
	cg_sb_free(&b);
	return declare(em, lvl, v);
}

cg_val cg_ev(cg_em *em, int n, const cg_point *p)
{
	cg_gen *G = em->G;
	const krl_graph *g = G->g;
	const krl_gnode *x = &g->n[n];
	cg_val bad = { NULL, 'f' };
	if (G->fail >= 0 || G->err[0] || G->oom)
		return bad;
	int s = cg_see(G, n, em->K->id);
	if (s == SEE_OUT) {
		G->fail = n;
		return bad;
	}
	if (s == SEE_IN) {
		if (x->kind == KRL_GN_SCAN) {
			if (p->main && em->snode == n && em->sval.e)
				return em->sval;
			return fail_gf(em, n);
		}
		if (!p->inrow)
			return fail_gf(em, n);
		for (int i = 0; i < em->nr; i++)
			if (em->rnode[i] == n)
				return em->rval[i];
		snprintf(G->err, sizeof G->err, "reduce node %d is used before "
		         "kernel k%d has its value", n, em->K->id);
		return bad;
	}
	int lvl = cg_level(em, n, p);
	/* values of levels 0 and 1 at main points depend only on the row;
	 * elsewhere (row outputs, gathers, flips, views, a row's first
	 * element) on the index too */
	const char *key = x->kind == KRL_GN_CONST ? "const" :
	                  cg_fmt(G, "%d|%s", p->space,
	                         lvl == 2 || !p->main ? p->lin : "");
	if (x->kind == KRL_GN_CONST)
		lvl = 0;
	const cg_val *m = memo_get(em, n, lvl, key);
	if (m)
		return *m;
	cg_val v = bad;
	if (s == SEE_LEAF) {
		/* in memory: a task buffer, a library result, or a node another
		 * kernel wrote; or the parts of a cat read in place */
		if (cg_cat_read(G, n))
			v = ev_catread(em, n, p, lvl);
		else if (n == em->clnode && em->clfmt && p->main &&
		    !strcmp(offset_of(em, n, p), p->lin))
			/* the channel-blocked map kernel loaded it */
			v = (cg_val){ cg_fmt(G, em->clfmt, em->cllane + p->lane),
			              'f' };
		else if (cg_is_cl(G, n))
			/* a channels-last row kernel walks it in memory order */
			v = declare(em, lvl, elem(em, n, cg_arg_buf(G, em->K, n, 0),
			                          p->plin && p->main &&
			                          !strcmp(offset_of(em, n, p), p->lin) ?
			                          p->plin : cl_offset(em, n, p)));
		else if (lvl == 2 && p->main && em->vec > 1)
			v = load_main(em, n, p);
		else
			v = declare(em, lvl, elem(em, n, cg_arg_buf(G, em->K, n, 0),
			                          offset_of(em, n, p)));
	} else switch (x->kind) {
	case KRL_GN_CONST: {
		double lit;
		if (x->cexpr && literal(x->cexpr, &lit)) {
			cg_val c = { cg_fmt(G, "%.9ef", lit), 'f' };
			if (lit != lit)
				c.e = "NAN";
			else if (lit - lit != 0)
				c.e = lit > 0 ? "INFINITY" : "(-INFINITY)";
			v = declare(em, 0, c);
		} else {
			const char *a = cg_arg_dbl(G, em->K, cg_fmt(G, "(%s)",
			                           x->cexpr ? x->cexpr : "0"));
			cg_val c = { cg_fmt(G, "(float)%s", a), 'f' };
			v = declare(em, 0, c);
		}
		lvl = 0;
		break;
	}
	case KRL_GN_PW:
		v = ev_pw(em, n, p, lvl);
		break;
	case KRL_GN_GATHER:
		v = ev_gather(em, n, p, lvl);
		break;
	case KRL_GN_FLIP:
		v = ev_flip(em, n, p, lvl);
		break;
	case KRL_GN_VIEW:
		v = ev_view(em, n, p, lvl);
		break;
	default:
		snprintf(G->err, sizeof G->err, "node %d (kind %d) cannot be "
		         "evaluated inline", n, (int)x->kind);
		return bad;
	}
	if (!v.e)
		return bad;
	memo_put(em, n, lvl, key, v);
	return v;
}

void cg_store(cg_em *em, int lvl, int n, const char *lin, cg_val v)
{
	cg_gen *G = em->G;
	const krl_graph *g = G->g;
	krl_dtype t = g->n[n].dtype;
	const char *val = cg_conv(em, v, t);
	/* the node's buffer, and every further output it is; a part of a
	 * cat written in place goes to its slice of the cat's */
	if (G->catof && G->catof[n] >= 0) {
		cg_line(em->buf[lvl], em->ind[lvl], "%s[%s] = %s;",
		        cg_arg_buf(G, em->K, G->catof[n], 1),
		        cg_cat_index(em, n, lin, 1), val);
		return;
	}
	const char *ptr = cg_arg_buf(G, em->K, n, 1);
	cg_line(em->buf[lvl], em->ind[lvl], "%s[%s] = %s;", ptr, lin, val);
	for (int w = 1;; w++) {
		int od = cg_out_decl(g, n, w);
		if (od < 0)
			break;
		const char *p2 = cg_arg_named(G, em->K, g->task->decls[od].name,
		                              cg_fmt(G, "%s *__restrict__",
		                                     cg_ctype(t)));
		cg_line(em->buf[lvl], em->ind[lvl], "%s[%s] = %s;", p2, lin, val);
	}
}

/* ==== Reductions ==== */

void cg_acc_decl(cg_sb *b, int ind, krl_redop op, const char *acc)
{
	switch (op) {
	case KRL_RED_SUM: cg_line(b, ind, "double %s = 0.0;", acc); break;
	case KRL_RED_PROD: cg_line(b, ind, "double %s = 1.0;", acc); break;
	case KRL_RED_MAX: cg_line(b, ind, "float %s = -INFINITY;", acc); break;
	case KRL_RED_MIN: cg_line(b, ind, "float %s = INFINITY;", acc); break;
	case KRL_RED_ARGMAX:
		cg_line(b, ind, "float %s = -INFINITY;", acc);
		cg_line(b, ind, "long long %s_i = 0x4000000000000000ll;", acc);
		break;
	case KRL_RED_ARGMIN:
		cg_line(b, ind, "float %s = INFINITY;", acc);
		cg_line(b, ind, "long long %s_i = 0x4000000000000000ll;", acc);
		break;
	}
}

void cg_acc_step(cg_sb *b, int ind, krl_redop op, const char *acc,
                 const char *const *v, const char *const *idx, int nv)
{
	switch (op) {
	case KRL_RED_SUM:
		/* the lanes in fp32 (pairwise), the running sum in double */
		if (nv == 1)
			cg_line(b, ind, "%s += (double)%s;", acc, v[0]);
		else if (nv == 2)
			cg_line(b, ind, "%s += (double)(%s + %s);", acc, v[0], v[1]);
		else
			cg_line(b, ind, "%s += (double)((%s + %s) + (%s + %s));", acc,
			        v[0], v[1], v[2], v[3]);
		break;
	case KRL_RED_PROD:
		for (int i = 0; i < nv; i++)
			cg_line(b, ind, "%s *= (double)%s;", acc, v[i]);
		break;
	case KRL_RED_MAX:
	case KRL_RED_MIN: {
		const char *f = op == KRL_RED_MAX ? "krl_maxf" : "krl_minf";
		if (nv == 1)
			cg_line(b, ind, "%s = %s(%s, %s);", acc, f, acc, v[0]);
		else if (nv == 2)
			cg_line(b, ind, "%s = %s(%s, %s(%s, %s));", acc, f, acc, f,
			        v[0], v[1]);
		else
			cg_line(b, ind, "%s = %s(%s, %s(%s(%s, %s), %s(%s, %s)));", acc,
			        f, acc, f, f, v[0], v[1], f, v[2], v[3]);
		break;
	}
	case KRL_RED_ARGMAX:
	case KRL_RED_ARGMIN: {
		const char *f = op == KRL_RED_ARGMAX ? "krl_amax_better" :
		                "krl_amin_better";
		for (int i = 0; i < nv; i++) {
			cg_line(b, ind, "if (%s(%s, %s, %s, %s_i)) {", f, v[i], idx[i],
			        acc, acc);
			cg_line(b, ind + 1, "%s = %s;", acc, v[i]);
			cg_line(b, ind + 1, "%s_i = %s;", acc, idx[i]);
			cg_line(b, ind, "}");
		}
		break;
	}
	}
}

void cg_acc_part(cg_sb *b, int ind, krl_redop op, const char *acc,
                 const char *part, const char *slot)
{
	switch (op) {
	case KRL_RED_SUM:
		cg_line(b, ind, "%s += %s[%s];", acc, part, slot);
		break;
	case KRL_RED_PROD:
		cg_line(b, ind, "%s *= %s[%s];", acc, part, slot);
		break;
	case KRL_RED_MAX:
		cg_line(b, ind, "%s = krl_maxf(%s, (float)%s[%s]);", acc, acc, part,
		        slot);
		break;
	case KRL_RED_MIN:
		cg_line(b, ind, "%s = krl_minf(%s, (float)%s[%s]);", acc, acc, part,
		        slot);
		break;
	case KRL_RED_ARGMAX:
	case KRL_RED_ARGMIN: {
		const char *f = op == KRL_RED_ARGMAX ? "krl_amax_better" :
		                "krl_amin_better";
		cg_line(b, ind, "{");
		cg_line(b, ind + 1, "const float pv = (float)%s[%s];", part, slot);
		cg_line(b, ind + 1, "const long long pi = (long long)%s[%s + 1];",
		        part, slot);
		cg_line(b, ind + 1, "if (%s(pv, pi, %s, %s_i)) {", f, acc, acc);
		cg_line(b, ind + 2, "%s = pv;", acc);
		cg_line(b, ind + 2, "%s_i = pi;", acc);
		cg_line(b, ind + 1, "}");
		cg_line(b, ind, "}");
		break;
	}
	}
}

void cg_acc_store(cg_sb *b, int ind, krl_redop op, const char *acc,
                  const char *part, const char *slot)
{
	cg_line(b, ind, "%s[%s] = (double)%s;", part, slot, acc);
	if (cg_red_is_arg(op))
		cg_line(b, ind, "%s[%s + 1] = (double)%s_i;", part, slot, acc);
}

cg_val cg_acc_finish(cg_em *em, cg_sb *b, int ind, krl_redop op,
                     const char *acc, int block)
{
	cg_gen *G = em->G;
	const char *pre = block ? "krl_block" : "krl_warp";
	/* a warp's groups of lanes: the width after the value */
	const char *w = !block && em->wlanes ? cg_fmt(G, ", %s", em->wlanes) :
	                "";
	const char *name = cg_name(G, "r");
	cg_val v = { name, 'f' };
	G->need |= block ? (CG_NEED_BLOCK | CG_NEED_WARP) : CG_NEED_WARP;
	G->need |= CG_NEED_RED;
	switch (op) {
	case KRL_RED_SUM:
		cg_line(b, ind, "const float %s = (float)%s_sum(%s%s);", name, pre,
		        acc, w);
		break;
	case KRL_RED_PROD:
		cg_line(b, ind, "const float %s = (float)%s_prod(%s%s);", name, pre,
		        acc, w);
		break;
	case KRL_RED_MAX:
		cg_line(b, ind, "const float %s = %s_max(%s%s);", name, pre, acc, w);
		break;
	case KRL_RED_MIN:
		cg_line(b, ind, "const float %s = %s_min(%s%s);", name, pre, acc, w);
		break;
	case KRL_RED_ARGMAX:
	case KRL_RED_ARGMIN:
		G->need |= CG_NEED_ARG;
		cg_line(b, ind, "%s_%s(%s, %s_i%s);", pre,
		        op == KRL_RED_ARGMAX ? "amax" : "amin", acc, acc, w);
		cg_line(b, ind, "const long long %s = %s_i;", name, acc);
		v.t = 'l';
		break;
	}
	return v;
}

void cg_acc_block_store(cg_em *em, cg_sb *b, int ind, krl_redop op,
                        const char *acc, const char *part, const char *slot)
{
	cg_gen *G = em->G;
	G->need |= CG_NEED_BLOCK | CG_NEED_WARP | CG_NEED_RED;
	switch (op) {
	case KRL_RED_SUM:
		cg_line(b, ind, "%s = krl_block_sum(%s);", acc, acc);
		break;
	case KRL_RED_PROD:
		cg_line(b, ind, "%s = krl_block_prod(%s);", acc, acc);
		break;
	case KRL_RED_MAX:
		cg_line(b, ind, "%s = krl_block_max(%s);", acc, acc);
		break;
	case KRL_RED_MIN:
		cg_line(b, ind, "%s = krl_block_min(%s);", acc, acc);
		break;
	case KRL_RED_ARGMAX:
	case KRL_RED_ARGMIN:
		G->need |= CG_NEED_ARG;
		cg_line(b, ind, "krl_block_%s(%s, %s_i);",
		        op == KRL_RED_ARGMAX ? "amax" : "amin", acc, acc);
		break;
	}
	cg_line(b, ind, "if (threadIdx.x == 0) {");
	cg_acc_store(b, ind + 1, op, acc, part, slot);
	cg_line(b, ind, "}");
}
