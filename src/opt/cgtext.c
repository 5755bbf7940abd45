/*
 * The codegen toolbox, text (cgtool.h): the growing string every emitter
 * writes into (cg_sb: an allocation failure is never silent: the builder
 * is marked oom, and krl_codegen fails with KRL_ENOMEM), strings owned by
 * a generation (cg_fmt), fresh C names, and the texts of dims.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgtool.h"

/* ==== Strings ==== */

void cg_sb_puts(cg_sb *b, const char *z)
{
	krl_strbuf_str(b, z);
}

void cg_sb_vprintf(cg_sb *b, const char *fmt, va_list ap)
{
	krl_strbuf_vprintf(b, fmt, ap);
}

void cg_sb_printf(cg_sb *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	krl_strbuf_vprintf(b, fmt, ap);
	va_end(ap);
}

void cg_line(cg_sb *b, int ind, const char *fmt, ...)
{
	for (int i = 0; i < ind; i++)
		krl_strbuf_str(b, "\t");
	va_list ap;
	va_start(ap, fmt);
	krl_strbuf_vprintf(b, fmt, ap);
	va_end(ap);
	krl_strbuf_str(b, "\n");
}

void cg_sb_cat(cg_sb *b, const cg_sb *src)
{
	if (src->oom)
		b->oom = 1;
	krl_strbuf_add(b, src->z ? src->z : "", src->len);
}

void cg_sb_free(cg_sb *b)
{
	krl_strbuf_free(b);
}

char *cg_fmt(cg_gen *G, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || G->oom)
		goto oom;
	if (G->nstrs == G->capstrs) {
		int cap = G->capstrs ? 2 * G->capstrs : 256;
		char **p = realloc(G->strs, (size_t)cap * sizeof *p);
		if (!p)
			goto oom;
		G->strs = p;
		G->capstrs = cap;
	}
	char *s = malloc((size_t)n + 1);
	if (!s)
		goto oom;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	G->strs[G->nstrs++] = s;
	return s;
oom:
	G->oom = 1;
	return (char *)"";
}

const char *cg_name(cg_gen *G, const char *pre)
{
	return cg_fmt(G, "%s%d", pre, G->counter++);
}

/* ==== Shapes ==== */

int cg_dim_eq(const char *a, const char *b)
{
	char x[512], y[512];
	krl_dim_text_norm(a, x, sizeof x);
	krl_dim_text_norm(b, y, sizeof y);
	return strcmp(x, y) == 0;
}

int cg_dim_one(const char *a)
{
	/* only a text of one '1' among blanks and parentheses can be 1
	 * after krl_dim_text_norm: the others are told at once */
	int ones = 0;
	for (const char *p = a; *p; p++) {
		if (*p == '1')
			ones++;
		else if (*p != ' ' && *p != '\t' && *p != '(' && *p != ')')
			return 0;
	}
	return ones == 1 && cg_dim_eq(a, "1");
}

int cg_same_shape(const krl_graph *g, int a, int b)
{
	const krl_gnode *x = &g->n[a], *y = &g->n[b];
	/* dims of 1 do not change a linear index: compare the others */
	int i = 0, j = 0;
	for (;;) {
		while (i < x->ndim && cg_dim_one(x->dim[i].text))
			i++;
		while (j < y->ndim && cg_dim_one(y->dim[j].text))
			j++;
		if (i == x->ndim || j == y->ndim)
			return i == x->ndim && j == y->ndim;
		if (!krl_graph_text_same(g, x->dim[i].text, y->dim[j].text))
			return 0;
		i++;
		j++;
	}
}

uint64_t cg_fnv(const char *z)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *z; z++) {
		h ^= (unsigned char)*z;
		h *= 0x100000001b3ull;
	}
	return h;
}

int cg_shape_classes(cg_gen *G)
{
	const krl_graph *g = G->g;
	int nn = g->nn, nc = 0, r = 0;
	size_t cap = (size_t)(nn > 0 ? nn : 1);
	char **key = calloc(cap, sizeof *key);
	uint64_t *h = calloc(cap, sizeof *h);
	int *rep = calloc(cap, sizeof *rep);
	if (!(G->sclass = calloc(cap, sizeof *G->sclass)) || !key || !h || !rep) {
		r = -1;
		goto out;
	}
	for (int n = 0; n < nn; n++) {
		const krl_gnode *x = &g->n[n];
		cg_sb b = { 0 };
		int ok = 1;
		/* the dims that are not 1, normalised, each ended by '|' */
		for (int i = 0; i < x->ndim && ok; i++) {
			char t[512];
			if (cg_dim_one(x->dim[i].text))
				continue;
			ok = krl_graph_text_norm(g, x->dim[i].text, t,
			                         sizeof t);
			cg_sb_printf(&b, "%s|", t);
		}
		if (!ok || b.oom) {
			cg_sb_free(&b);
			r = -1;
			goto out;
		}
		key[n] = b.z ? b.z : calloc(1, 1);
		if (!key[n]) {
			r = -1;
			goto out;
		}
		uint64_t v = h[n] = cg_fnv(key[n]);
		int c = 0;
		while (c < nc && !(h[rep[c]] == v &&
		                   !strcmp(key[rep[c]], key[n])))
			c++;
		if (c == nc)
			rep[nc++] = n;
		G->sclass[n] = c;
	}
out:
	for (int n = 0; key && n < nn; n++)
		free(key[n]);
	free(key);
	free(h);
	free(rep);
	if (r) {
		free(G->sclass);
		G->sclass = NULL;
	}
	return r;
}

int cg_gsame(const cg_gen *G, int a, int b)
{
	if (G->sclass)
		return G->sclass[a] == G->sclass[b];
	return cg_same_shape(G->g, a, b);
}

int cg_dims_one(const krl_gnode *x, int from, int to)
{
	for (int i = from; i < to; i++)
		if (!cg_dim_one(x->dim[i].text))
			return 0;
	return 1;
}

char *cg_prod(cg_gen *G, int n, int from, int to)
{
	const krl_gnode *x = &G->g->n[n];
	cg_sb b = { 0 };
	int k = 0;
	for (int i = from; i < to; i++) {
		if (cg_dim_one(x->dim[i].text))
			continue;
		cg_sb_printf(&b, "%s(%s)", k++ ? " * " : "", x->dim[i].text);
	}
	char *r = cg_fmt(G, "%s", k ? (b.z ? b.z : "1") : "1");
	if (b.oom)
		G->oom = 1;
	cg_sb_free(&b);
	return r;
}
