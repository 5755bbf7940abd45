/*
 * kernelrl: a `permute` as kernelrl's own copy kernel (perm.impl=gen;
 * src/opt/kernels/permute.cuh; docs/optimizer.md section 3, "Permutes").
 *
 * The library's permute is the kernel PyTorch's copy_ runs for a
 * permuted view (one element a thread, each offset found dim by dim:
 * src/ops/shape/shape.cu), as the reference must be. The generated one
 * merges the dims that stay adjacent and in order (x [b, c, l, h, p] to
 * [c, b, h, l, p] is 4 dims of y over 4 strides of x, the last kept),
 * then copies rows of y as runs of x, float4 at a time (`inner`), or,
 * where x's last dim moves, through 32 x 32 tiles of shared memory
 * (`tile`). Merging is structural (by the permutation, not the sizes),
 * so one candidate serves every shape set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

extern const char krl_kernel_permute[];

int cg_perm_of(const krl_gnode *c, int *p)
{
	if (c->kind != KRL_GN_LIB || strcmp(c->op, "permute") || c->nin != 1 ||
	    c->nout != 1 || c->ndim < 1 || c->ndim > KRL_MAX_DIM)
		return 0;
	unsigned seen = 0;
	for (int j = 0; j < c->ndim; j++) {
		char key[16];
		double v;
		snprintf(key, sizeof key, "p%d", j);
		if (!krl_gnode_lib_literal(c, key, -1, &v) || v < 0 ||
		    v >= c->ndim || v != (int)v || (seen >> (int)v & 1))
			return 0;
		p[j] = (int)v;
		seen |= 1u << p[j];
	}
	return 1;
}

int cg_perm_geom(const krl_graph *g, int n, cg_perm *q)
{
	const krl_gnode *c = &g->n[n];
	int p[KRL_MAX_DIM];
	if (!cg_perm_of(c, p) || c->dtype != KRL_F32 ||
	    g->n[c->in[0]].dtype != KRL_F32 || g->n[c->in[0]].ndim != c->ndim)
		return 0;
	cg_perm z;
	memset(&z, 0, sizeof z);
	z.r = c->ndim;
	/* y's dims in runs whose x dims are consecutive and in order */
	for (int j = 0; j < z.r; j++) {
		if (j && p[j] == p[j - 1] + 1) {
			z.last[z.m - 1] = p[j];
			continue;
		}
		z.first[z.m] = z.last[z.m] = p[j];
		z.m++;
	}
	z.jl = -1;
	for (int k = 0; k < z.m; k++)
		if (z.last[k] == z.r - 1)
			z.jl = k;
	if (q)
		*q = z;
	return z.jl >= 0;
}

int cg_perm_written(const cg_gen *G, int n)
{
	return G->s.perm_gen && cg_perm_geom(G->g, n, NULL) &&
	       cg_out_decl(G->g, n, 1) < 0;
}

int cg_emit_perm(cg_gen *G, cg_kern *K)
{
	const krl_graph *g = G->g;
	int n = K->anchor[0];
	const krl_gnode *c = &g->n[n];
	cg_perm q;
	if (!cg_perm_written(G, n) || !cg_perm_geom(g, n, &q))
		return 0;
	int v = c->in[0];
	if (!G->perm_body) {
		cg_sb_printf(&G->dev, "\n/* ==== permute copy body ==== */\n%s",
		             krl_kernel_permute);
		G->perm_body = 1;
	}
	G->nperm++;
	const char *name = cg_fmt(G, "k%d_perm", K->id);
	int tile = q.jl != q.m - 1;
	/* sizes of y's merged dims, x's stride of each */
	const char *sz[KRL_MAX_DIM], *st[KRL_MAX_DIM];
	for (int k = 0; k < q.m; k++) {
		sz[k] = cg_prod(G, v, q.first[k], q.last[k] + 1);
		st[k] = cg_prod(G, v, q.last[k] + 1, q.r);
	}
	cg_sb_printf(&G->dev, "\n/*\n * k%d (permute, %s): node %d, y [", K->id,
	             tile ? G->s.perm_gen == 2 ? "32 x 32 tiles through shared "
	             "memory, the next one loaded while one is stored" :
	             "32 x 32 tiles through shared memory" :
	             "rows of y as runs of x, float4 where aligned", n);
	for (int k = 0; k < q.m; k++) {
		cg_sb_printf(&G->dev, "%s", k ? ", " : "");
		for (int i = q.first[k]; i <= q.last[k]; i++)
			cg_sb_printf(&G->dev, "%sx%d", i > q.first[k] ? " " : "",
			             i);
	}
	cg_sb_printf(&G->dev, "] (x's dims merged where they stay adjacent)"
	             "\n */\nextern \"C\" __global__ void __launch_bounds__(256)"
	             "\n%s(const float *__restrict__ x, float *__restrict__ y",
	             name);
	for (int k = 0; k < q.m; k++)
		cg_sb_printf(&G->dev, ", long s%d", k);
	for (int k = 0; k < q.m; k++)
		cg_sb_printf(&G->dev, ", long t%d", k);
	cg_sb_puts(&G->dev, ")\n{\n\tconst long sz[] = {");
	for (int k = 0; k < q.m; k++)
		cg_sb_printf(&G->dev, "%ss%d", k ? ", " : "", k);
	cg_sb_puts(&G->dev, "}, st[] = {");
	for (int k = 0; k < q.m; k++)
		cg_sb_printf(&G->dev, "%st%d", k ? ", " : "", k);
	if (tile)
		cg_sb_printf(&G->dev, "};\n\tperm::tile<%d, %d%s>(x, y, sz, st);"
		             "\n}\n", q.m, q.jl, G->s.perm_gen == 2 ? ", true" : "");
	else
		cg_sb_printf(&G->dev, "};\n\tperm::inner<%d>(x, y, sz, st);\n}\n",
		             q.m);

	cg_sb_printf(&G->plan, "# k%d: permute (node %d) as kernelrl's copy "
	             "kernel\n", K->id, n);
	if (tile) {
		const char *rest = "1";
		for (int k = 0; k < q.m - 1; k++)
			if (k != q.jl)
				rest = cg_fmt(G, "%s * %s", rest, sz[k]);
		/* at most 2048 slices at once, each block walking the rest:
		 * small tiles are many (49's states permute: 49,152 slices of
		 * 64 x 16, 2 tiles each, ran at 0.67 TB/s on the H100 as a block
		 * each, bound by blocks starting) */
		cg_sb_printf(&G->plan, "launch %s grid=(cdiv(%s, 32) * cdiv(%s, "
		             "32), min(%s, 2048)) block=(32, 8) \\\n    args(%s, "
		             "%s", name, sz[q.jl], sz[q.m - 1], rest,
		             cg_bufname(G, v), cg_bufname(G, n));
	} else {
		cg_sb_printf(&G->plan, "launch %s grid=(cdiv(%s, 8192)) "
		             "block=(256) \\\n    args(%s, %s", name,
		             cg_prod(G, v, 0, q.r), cg_bufname(G, v),
		             cg_bufname(G, n));
	}
	for (int k = 0; k < q.m; k++)
		cg_sb_printf(&G->plan, ", %s", sz[k]);
	for (int k = 0; k < q.m; k++)
		cg_sb_printf(&G->plan, ", %s", st[k]);
	cg_sb_puts(&G->plan, ")\n");
	return 1;
}
