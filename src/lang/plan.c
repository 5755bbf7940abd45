/*
 * kernelrl: parsing of the plan language shared by task references and
 * candidates — `buffer`, `view`, `derived`, `launch`, `call` and
 * `init ... end`
 * (docs/language.md, "Plan statements"). Checking a plan against shapes,
 * kernels and ops is program.c's job; here only the form is checked.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/plan.h"

/* ==== Freeing ==== */

void krl_decl_clear(krl_decl *decl)
{
	if (!decl)
		return;
	free(decl->name);
	for (int i = 0; i < decl->ndim; i++)
		krl_expr_free(decl->dim[i]);
	free(decl->view_of);
	krl_expr_free(decl->view_off);
	memset(decl, 0, sizeof *decl);
}

static void stmt_clear(krl_stmt *s)
{
	free(s->name);
	for (int i = 0; i < 3; i++) {
		krl_expr_free(s->grid[i]);
		krl_expr_free(s->block[i]);
		krl_expr_free(s->cluster[i]);
	}
	krl_expr_free(s->smem);
	for (int i = 0; i < s->nargs; i++)
		krl_expr_free(s->args[i]);
	free(s->args);
	for (int i = 0; i < s->nin; i++)
		free(s->ins[i]);
	free(s->ins);
	for (int i = 0; i < s->nout; i++)
		free(s->outs[i]);
	free(s->outs);
	for (int i = 0; i < s->nattrs; i++) {
		free(s->attrs[i].key);
		krl_expr_free(s->attrs[i].value);
	}
	free(s->attrs);
	memset(s, 0, sizeof *s);
}

void krl_plan_clear(krl_plan *plan)
{
	if (!plan)
		return;
	for (int i = 0; i < plan->nbufs; i++)
		krl_decl_clear(&plan->bufs[i]);
	free(plan->bufs);
	for (int i = 0; i < plan->nbody; i++)
		stmt_clear(&plan->body[i]);
	free(plan->body);
	for (int i = 0; i < plan->ninit; i++)
		stmt_clear(&plan->init[i]);
	free(plan->init);
	memset(plan, 0, sizeof *plan);
}

/* ==== Helpers ==== */

#define grow krl_lang_grow

void *krl_lang_grow(void *arr_, int *n, size_t sz)
{
	void **arr = arr_;
	char *a = *arr;
	/* The capacity is implicit: the smallest power of two >= *n, so the
	 * array is reallocated only when *n reaches one (a candidate of 10^5
	 * tokens must not cost 10^5 reallocations). */
	if (*n == 0 || (*n & (*n - 1)) == 0) {
		if (*n > INT_MAX / 2)
			return NULL;
		size_t cap = *n ? (size_t)*n * 2 : 1;
		if (!(a = realloc(*arr, cap * sz)))
			return NULL;
		*arr = a;
	}
	memset(a + (size_t)*n * sz, 0, sz);
	return a + (size_t)(*n)++ * sz;
}

static krl_err oom(krl_parser *p)
{
	return krl_diag_set(p->d, KRL_ENOMEM, krl_p_peek(p)->pos,
	                    "out of memory");
}

static krl_err parse_dims(krl_parser *p, krl_decl *decl);

krl_err krl_parse_decl(krl_parser *p, krl_decl *decl)
{
	krl_err r;
	decl->pos = krl_p_peek(p)->pos;
	if ((r = krl_p_ident(p, "a buffer name", &decl->name)))
		return r;
	krl_tok *t = krl_p_peek(p);
	char z[16] = "";
	if (t->kind == KRL_T_IDENT && t->len < sizeof z) {
		memcpy(z, t->text, t->len);
		z[t->len] = 0;
	}
	if (krl_dtype_parse(z, &decl->dtype))
		return krl_p_expected(p, "a dtype (f32, f16, bf16, i32, i64, "
		                         "bool)");
	krl_p_next(p);
	return parse_dims(p, decl);
}

/* Parses `[e, ...]` (or `[]`) into decl's dims. */
static krl_err parse_dims(krl_parser *p, krl_decl *decl)
{
	krl_err r;
	if ((r = krl_p_expect(p, '[')))
		return r;
	if (krl_p_accept(p, ']'))
		return KRL_OK;
	for (;;) {
		if (decl->ndim == KRL_MAX_DIM)
			return krl_diag_set(p->d, KRL_ESYNTAX, krl_p_peek(p)->pos,
			                    "a buffer has at most %d dimensions",
			                    KRL_MAX_DIM);
		r = krl_parse_expr(p, &decl->dim[decl->ndim++]);
		if (r)
			return r;
		if (krl_p_accept(p, ']'))
			return KRL_OK;
		if (!krl_p_accept(p, ','))
			return krl_p_expected(p, "',' or ']'");
	}
}

/* Parses the rest of `view NAME = SRC [dims] [offset=e]` into decl. */
static krl_err parse_view(krl_parser *p, krl_decl *decl)
{
	krl_err r;
	decl->role = KRL_ROLE_VIEW;
	decl->pos = krl_p_peek(p)->pos;
	if ((r = krl_p_ident(p, "a view name", &decl->name)) ||
	    (r = krl_p_expect(p, '=')) ||
	    (r = krl_p_ident(p, "the name of the buffer it views",
	                     &decl->view_of)) ||
	    (r = parse_dims(p, decl)))
		return r;
	if (krl_p_is_word(p, "offset")) {
		krl_p_next(p);
		if ((r = krl_p_expect(p, '=')) ||
		    (r = krl_parse_expr(p, &decl->view_off)))
			return r;
	}
	return KRL_OK;
}

/* Parses `=(e[, e[, e]])` into dims[3] for the option named what. */
static krl_err parse_dim3(krl_parser *p, const char *what, krl_pos opt,
                          krl_expr **dims)
{
	krl_err r;
	if (dims[0])
		return krl_diag_set(p->d, KRL_ESYNTAX, opt,
		                    "%s= is given twice", what);
	if ((r = krl_p_expect(p, '=')) || (r = krl_p_expect(p, '(')))
		return r;
	for (int i = 0;; i++) {
		if (i == 3)
			return krl_diag_set(p->d, KRL_ESYNTAX, krl_p_peek(p)->pos,
			                    "%s has at most 3 dimensions (x, y, z)",
			                    what);
		if ((r = krl_parse_expr(p, &dims[i])))
			return r;
		if (krl_p_accept(p, ')'))
			return KRL_OK;
		if (!krl_p_accept(p, ','))
			return krl_p_expected(p, "',' or ')'");
	}
}

/* launch KERNEL grid=(..) block=(..) [smem=e] [cluster=(..)] [cooperative]
 * args(e, ...) — options in any order, grid, block and args required. */
static krl_err parse_launch(krl_parser *p, krl_stmt *s)
{
	krl_err r;
	int have_args = 0;
	s->kind = KRL_ST_LAUNCH;
	if ((r = krl_p_ident(p, "a kernel name", &s->name)))
		return r;
	for (;;) {
		krl_tok *t = krl_p_peek(p);
		if (t->kind == KRL_T_NL || t->kind == KRL_T_EOF)
			break;
		krl_pos opt = t->pos;
		if (krl_p_is_word(p, "grid")) {
			krl_p_next(p);
			r = parse_dim3(p, "grid", opt, s->grid);
		} else if (krl_p_is_word(p, "block")) {
			krl_p_next(p);
			r = parse_dim3(p, "block", opt, s->block);
		} else if (krl_p_is_word(p, "cluster")) {
			krl_p_next(p);
			r = parse_dim3(p, "cluster", opt, s->cluster);
		} else if (krl_p_is_word(p, "smem")) {
			krl_p_next(p);
			if (s->smem)
				return krl_diag_set(p->d, KRL_ESYNTAX, opt,
				                    "smem= is given twice");
			if (!(r = krl_p_expect(p, '=')))
				r = krl_parse_expr(p, &s->smem);
		} else if (krl_p_is_word(p, "cooperative")) {
			krl_p_next(p);
			s->cooperative = 1;
		} else if (krl_p_is_word(p, "args")) {
			krl_p_next(p);
			if (have_args)
				return krl_diag_set(p->d, KRL_ESYNTAX, opt,
				                    "args(...) is given twice");
			have_args = 1;
			if ((r = krl_p_expect(p, '(')))
				return r;
			if (krl_p_accept(p, ')'))
				continue;
			for (;;) {
				krl_expr **a = grow(&s->args, &s->nargs,
				                    sizeof *s->args);
				if (!a)
					return oom(p);
				if ((r = krl_parse_expr(p, a)))
					return r;
				if (krl_p_accept(p, ')'))
					break;
				if (!krl_p_accept(p, ','))
					return krl_p_expected(p, "',' or ')'");
			}
		} else {
			return krl_p_expected(p, "grid=, block=, smem=, cluster=, "
			                         "cooperative or args(...)");
		}
		if (r)
			return r;
	}
	if (!s->grid[0])
		return krl_diag_set(p->d, KRL_ESYNTAX, s->pos,
		                    "launch of '%s': expected grid=(...)",
		                    s->name);
	if (!s->block[0])
		return krl_diag_set(p->d, KRL_ESYNTAX, s->pos,
		                    "launch of '%s': expected block=(...)",
		                    s->name);
	if (!have_args)
		return krl_diag_set(p->d, KRL_ESYNTAX, s->pos,
		                    "launch of '%s': expected args(...)", s->name);
	return KRL_OK;
}

/* Parses a comma-separated list of at least `min` buffer names, up to max,
 * into *names / *n. */
static krl_err parse_names(krl_parser *p, char ***names, int *n, int min,
                           int max, const char *what)
{
	krl_err r;
	if (min == 0 && !(krl_p_peek(p)->kind == KRL_T_IDENT))
		return KRL_OK;
	for (;;) {
		if (*n == max)
			return krl_diag_set(p->d, KRL_ESYNTAX, krl_p_peek(p)->pos,
			                    "a call has at most %d %s", max, what);
		char **z = grow(names, n, sizeof **names);
		if (!z)
			return oom(p);
		if ((r = krl_p_ident(p, "a buffer name", z)))
			return r;
		if (!krl_p_accept(p, ','))
			return KRL_OK;
	}
}

/* call OP(in, ...) -> out[, out] [key=expr ...] */
static krl_err parse_call(krl_parser *p, krl_stmt *s)
{
	krl_err r;
	s->kind = KRL_ST_CALL;
	if ((r = krl_p_ident(p, "an op name", &s->name)) ||
	    (r = krl_p_expect(p, '(')) ||
	    (r = parse_names(p, &s->ins, &s->nin, 0, KRL_MAX_CALL_IN,
	                     "inputs")))
		return r;
	if (!krl_p_accept(p, ')'))
		return krl_p_expected(p, "',' or ')'");
	if (krl_p_peek(p)->kind != KRL_T_ARROW)
		return krl_p_expected(p, "'->' and the outputs");
	krl_p_next(p);
	if ((r = parse_names(p, &s->outs, &s->nout, 1, KRL_MAX_CALL_OUT,
	                     "outputs")))
		return r;
	while (krl_p_peek(p)->kind == KRL_T_IDENT) {
		krl_tok *t = krl_p_peek(p);
		for (int i = 0; i < s->nattrs; i++)
			if (strlen(s->attrs[i].key) == t->len &&
			    memcmp(s->attrs[i].key, t->text, t->len) == 0)
				return krl_diag_set(p->d, KRL_ESYNTAX, t->pos,
				                    "attribute '%s' is given twice",
				                    s->attrs[i].key);
		if (s->nattrs == KRL_MAX_ATTR)
			return krl_diag_set(p->d, KRL_ESYNTAX, t->pos,
			                    "a call has at most %d attributes",
			                    KRL_MAX_ATTR);
		krl_attr *a = grow(&s->attrs, &s->nattrs, sizeof *s->attrs);
		if (!a)
			return oom(p);
		a->pos = t->pos;
		if ((r = krl_p_ident(p, "an attribute", &a->key)))
			return r;
		if (!krl_p_is(p, '='))
			return krl_p_expected(p, "'=' after the attribute name");
		krl_p_next(p);
		if ((r = krl_parse_expr(p, &a->value)))
			return r;
	}
	return KRL_OK;
}

/* Parses one `launch` or `call` into a new element of (*arr, *n). */
static krl_err parse_step(krl_parser *p, krl_stmt **arr, int *n, int launch)
{
	krl_pos pos = krl_p_next(p)->pos;
	krl_stmt *s = grow(arr, n, sizeof **arr);
	if (!s)
		return oom(p);
	s->pos = pos;
	krl_err r = launch ? parse_launch(p, s) : parse_call(p, s);
	if (r)
		return r;
	return krl_p_eol(p);
}

static const char *const krl_ref_words =
	"a plan statement (buffer, view, call or end)";
static const char *const krl_cand_words =
	"a plan statement (buffer, view, derived, launch, call or init)";

krl_err krl_plan_parse(krl_parser *p, krl_plan *plan, int reference,
                       krl_pos start)
{
	krl_err r;
	int in_init = 0, had_init = 0;
	krl_pos init_pos = start;
	for (;;) {
		krl_p_skip_nl(p);
		krl_tok *t = krl_p_peek(p);
		if (t->kind == KRL_T_EOF) {
			if (in_init)
				return krl_diag_set(p->d, KRL_ESYNTAX, init_pos,
				                    "'init' is never closed: expected "
				                    "'end' before the end of the plan");
			if (reference)
				return krl_diag_set(p->d, KRL_ESYNTAX, start,
				                    "'plan' is never closed: expected "
				                    "'end' before the end of the file");
			return KRL_OK;
		}
		if (t->kind != KRL_T_IDENT)
			return krl_p_expected(p, reference ? krl_ref_words :
			                                     krl_cand_words);
		int is_buffer = krl_p_is_word(p, "buffer");
		int is_derived = krl_p_is_word(p, "derived");
		int is_view = krl_p_is_word(p, "view");
		if (is_buffer || is_view || (is_derived && !reference)) {
			if (in_init)
				return krl_diag_set(p->d, KRL_ESYNTAX, t->pos,
				                    "declarations go outside 'init': "
				                    "expected launch, call or end");
			krl_p_next(p);
			krl_decl *dc = grow(&plan->bufs, &plan->nbufs,
			                    sizeof *plan->bufs);
			if (!dc)
				return oom(p);
			if (is_view) {
				r = parse_view(p, dc);
			} else {
				dc->role = is_buffer ? KRL_ROLE_SCRATCH :
				                       KRL_ROLE_DERIVED;
				r = krl_parse_decl(p, dc);
			}
			if (r || (r = krl_p_eol(p)))
				return r;
		} else if (krl_p_is_word(p, "launch") && !reference) {
			if (in_init)
				r = parse_step(p, &plan->init, &plan->ninit, 1);
			else
				r = parse_step(p, &plan->body, &plan->nbody, 1);
			if (r)
				return r;
		} else if (krl_p_is_word(p, "call")) {
			if (in_init)
				r = parse_step(p, &plan->init, &plan->ninit, 0);
			else
				r = parse_step(p, &plan->body, &plan->nbody, 0);
			if (r)
				return r;
		} else if (krl_p_is_word(p, "init") && !reference) {
			if (in_init)
				return krl_diag_set(p->d, KRL_ESYNTAX, t->pos,
				                    "'init' blocks do not nest");
			if (had_init)
				return krl_diag_set(p->d, KRL_ESYNTAX, t->pos,
				                    "a plan has at most one 'init' "
				                    "block (the first is at line %d)",
				                    init_pos.line);
			init_pos = t->pos;
			krl_p_next(p);
			in_init = had_init = 1;
			if ((r = krl_p_eol(p)))
				return r;
		} else if (krl_p_is_word(p, "end") && (in_init || reference)) {
			krl_p_next(p);
			if ((r = krl_p_eol(p)))
				return r;
			if (!in_init)
				return KRL_OK;
			in_init = 0;
		} else if (reference && (krl_p_is_word(p, "launch") ||
		                         krl_p_is_word(p, "derived") ||
		                         krl_p_is_word(p, "init"))) {
			char buf[64];
			return krl_diag_set(p->d, KRL_ESYNTAX, t->pos,
			                    "a task's reference plan may only use "
			                    "buffer, view and call, found %s",
			                    krl_tok_describe(t, buf, sizeof buf));
		} else {
			return krl_p_expected(p, reference ? krl_ref_words :
			                      in_init ? "launch, call or end" :
			                                krl_cand_words);
		}
	}
}
