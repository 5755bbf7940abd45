/*
 * kernelrl: the task file parser (docs/language.md, "Task files").
 *
 * A task says what to compute: shape sets, constants, inputs, params and
 * outputs, tolerance, roofline counts and the reference plan. The parser
 * checks everything that does not depend on a shape set: required and
 * unique statements, names, dtypes, distributions, that every shape set
 * defines the same keys. Expressions are resolved by krl_program_build.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/plan.h"

/* A name declared so far, for the "defined twice" check. */
typedef struct task_name {
	const char *name;   /* borrowed from the task */
	krl_pos pos;
	int is_key;
} task_name;

typedef struct task_parse {
	krl_parser p;
	krl_task *t;
	task_name *names;
	int nnames;
	/* first position of each at-most-once statement; line 0 = not seen */
	krl_pos seen_task, seen_source, seen_tol, seen_bytes, seen_flops,
		seen_degen, seen_plan, seen_precision, seen_fixed;
} task_parse;

/* ==== Freeing and lookup ==== */

int krl_task_is_tf32(const krl_task *t)
{
	return t->precision && !strcmp(t->precision, "tf32");
}

void krl_task_free(krl_task *t)
{
	if (!t)
		return;
	free(t->path);
	free(t->text);
	free(t->id);
	free(t->name);
	free(t->source);
	for (int i = 0; i < t->nsets; i++) {
		free(t->sets[i].name);
		for (int k = 0; k < t->sets[i].n; k++)
			free(t->sets[i].keys[k]);
		free(t->sets[i].keys);
		free(t->sets[i].vals);
	}
	free(t->sets);
	for (int i = 0; i < t->nconsts; i++) {
		free(t->const_names[i]);
		krl_expr_free(t->const_vals[i]);
	}
	free(t->const_names);
	free(t->const_vals);
	for (int i = 0; i < t->ndecls; i++)
		krl_decl_clear(&t->decls[i]);
	free(t->decls);
	krl_expr_free(t->bytes);
	krl_expr_free(t->flops);
	free(t->degenerate);
	for (int i = 0; i < t->nfixed; i++)
		free(t->fixed[i]);
	free(t->fixed);
	for (int i = 0; i < t->nstress; i++) {
		free(t->stress[i].input);
		free(t->stress[i].why);
	}
	free(t->stress);
	free(t->precision);
	krl_plan_clear(&t->ref);
	free(t);
}

const krl_shapeset *krl_task_shapeset(const krl_task *t, const char *z)
{
	for (int i = 0; t && z && i < t->nsets; i++)
		if (strcmp(t->sets[i].name, z) == 0)
			return &t->sets[i];
	return NULL;
}

/* ==== Stress kinds ==== */

static const char *const stress_names[KRL_STRESS_KINDS] = {
	[KRL_STRESS_SCALE] = "scale",
	[KRL_STRESS_OFFSET] = "offset",
	[KRL_STRESS_SPIKES] = "spikes",
};

const char *krl_stress_name(krl_stress_kind k)
{
	return (unsigned)k < KRL_STRESS_KINDS ? stress_names[k] : "?";
}

int krl_stress_parse(const char *z, krl_stress_kind *out)
{
	for (int k = 0; z && k < KRL_STRESS_KINDS; k++)
		if (!strcmp(z, stress_names[k])) {
			*out = (krl_stress_kind)k;
			return 0;
		}
	return -1;
}

/* ==== Parsing ==== */

static krl_err oom(task_parse *tp)
{
	return krl_diag_set(tp->p.d, KRL_ENOMEM, krl_p_peek(&tp->p)->pos,
	                    "out of memory");
}

/*
 * Records a newly declared name. A shape key may be declared again by
 * another shape set; anything else seen twice (or `sm_count`, which the
 * device provides) is an error at pos.
 */
static krl_err add_name(task_parse *tp, const char *z, krl_pos pos,
                        int is_key)
{
	if (strcmp(z, "sm_count") == 0)
		return krl_diag_set(tp->p.d, KRL_ESYNTAX, pos,
		                    "'sm_count' is reserved (the device's number "
		                    "of SMs); choose another name");
	for (int i = 0; i < tp->nnames; i++) {
		if (strcmp(tp->names[i].name, z) != 0)
			continue;
		if (is_key && tp->names[i].is_key)
			return KRL_OK;
		return krl_diag_set(tp->p.d, KRL_ESYNTAX, pos,
		                    "'%s' is already defined at line %d", z,
		                    tp->names[i].pos.line);
	}
	task_name *n = krl_lang_grow(&tp->names, &tp->nnames, sizeof *n);
	if (!n)
		return oom(tp);
	n->name = z;
	n->pos = pos;
	n->is_key = is_key;
	return KRL_OK;
}

/* Fails when an at-most-once statement is repeated; else records it. */
static krl_err once(task_parse *tp, krl_pos *seen, const char *what)
{
	krl_pos here = krl_p_peek(&tp->p)->pos;
	if (seen->line)
		return krl_diag_set(tp->p.d, KRL_ESYNTAX, here,
		                    "'%s' is given twice (first at line %d)",
		                    what, seen->line);
	*seen = here;
	krl_p_next(&tp->p);
	return KRL_OK;
}

/* A number with an optional sign: INT or FLOAT. */
static krl_err parse_number(krl_parser *p, double *out, int *is_int)
{
	int neg = 0;
	krl_tok *t = krl_p_peek(p);
	if (krl_p_is(p, '-')) {
		neg = 1;
		t = &p->toks[p->i + 1];
	}
	if (t->kind != KRL_T_INT && t->kind != KRL_T_FLOAT)
		return krl_diag_set(p->d, KRL_ESYNTAX, t->pos,
		                    "expected a number, found %s",
		                    krl_tok_describe(t, (char[64]){ 0 }, 64));
	if (neg)
		krl_p_next(p);
	krl_p_next(p);
	double v = t->kind == KRL_T_INT ? (double)t->ival : t->fval;
	*out = neg ? -v : v;
	if (is_int)
		*is_int = t->kind == KRL_T_INT;
	return KRL_OK;
}

static krl_err expect_string(krl_parser *p, char **out)
{
	krl_tok *t = krl_p_peek(p);
	if (t->kind != KRL_T_STRING)
		return krl_p_expected(p, "a string in double quotes");
	if (!(*out = strdup(t->str)))
		return krl_diag_set(p->d, KRL_ENOMEM, t->pos, "out of memory");
	krl_p_next(p);
	return KRL_OK;
}

/* stress (NAME | *) (off | KIND...) "why": see krl_stress_decl. */
static krl_err parse_stress(task_parse *tp)
{
	krl_parser *p = &tp->p;
	krl_task *t = tp->t;
	krl_pos at = krl_p_peek(p)->pos;
	krl_stress_decl *sd = krl_lang_grow(&t->stress, &t->nstress, sizeof *sd);
	if (!sd)
		return oom(tp);
	memset(sd, 0, sizeof *sd);
	sd->pos = at;
	krl_err r;
	if (!krl_p_accept(p, '*') &&
	    (r = krl_p_ident(p, "an input's name or *", &sd->input)))
		return r;
	if (krl_p_is_word(p, "off")) {
		krl_p_next(p);
	} else {
		if (krl_p_peek(p)->kind != KRL_T_IDENT)
			return krl_p_expected(p, "off or stress kinds (scale, "
			                         "offset, spikes)");
		while (krl_p_peek(p)->kind == KRL_T_IDENT) {
			krl_tok *tk = krl_p_peek(p);
			int k = -1;
			for (int q = 0; q < KRL_STRESS_KINDS && k < 0; q++)
				if (krl_p_is_word(p, stress_names[q]))
					k = q;
			if (k < 0)
				return krl_diag_set(p->d, KRL_ESYNTAX, tk->pos,
				                    "expected a stress kind (scale, "
				                    "offset or spikes), found '%.*s'",
				                    (int)tk->len, tk->text);
			sd->kinds |= 1u << k;
			krl_p_next(p);
		}
	}
	if (krl_p_peek(p)->kind != KRL_T_STRING)
		return krl_p_expected(p, "the reason, in double quotes (a stress "
		                         "statement says why the inputs' domain "
		                         "is bounded)");
	if ((r = expect_string(p, &sd->why)))
		return r;
	if (!sd->why[0])
		return krl_diag_set(p->d, KRL_ESYNTAX, at,
		                    "a stress statement needs a non-empty reason");
	return KRL_OK;
}

/* normal(mean, std) | uniform(lo, hi) | randint(lo, hi) | bernoulli(p)
 * | const(v) | tril(v[, k]) | triu(v[, k]) | arange(start, step)
 * | swin_coords(wh, ww[, pwh, pww]) | swin_index(wh, ww)
 * | swin_mask(h, w, ws, shift), with the argument rules of
 * docs/language.md (the patterns' place rules are parse_io's, their
 * size rules the program builder's). */
static krl_err parse_dist(krl_parser *p, krl_dist *dist)
{
	static const struct {
		const char *name;
		krl_dist_kind kind;
		int nargs, least; /* arguments: at most nargs, at least least */
	} kinds[] = {
		{ "normal", KRL_DIST_NORMAL, 2, 2 },
		{ "uniform", KRL_DIST_UNIFORM, 2, 2 },
		{ "randint", KRL_DIST_RANDINT, 2, 2 },
		{ "bernoulli", KRL_DIST_BERNOULLI, 1, 1 },
		{ "const", KRL_DIST_CONST, 1, 1 },
		{ "tril", KRL_DIST_TRIL, 2, 1 },
		{ "triu", KRL_DIST_TRIU, 2, 1 },
		{ "arange", KRL_DIST_ARANGE, 2, 2 },
		{ "swin_coords", KRL_DIST_SWIN_COORDS, 4, 2 },
		{ "swin_index", KRL_DIST_SWIN_INDEX, 2, 2 },
		{ "swin_mask", KRL_DIST_SWIN_MASK, 4, 4 },
	};
	const int nkinds = (int)(sizeof kinds / sizeof kinds[0]);
	const char *what = "a distribution (normal(mean, std), uniform(lo, "
	                   "hi), randint(lo, hi), bernoulli(p) or const(v)) "
	                   "or a pattern (tril(v[, k]), triu(v[, k]), "
	                   "arange(start, step), swin_coords(wh, ww[, pwh, "
	                   "pww]), swin_index(wh, ww), swin_mask(h, w, ws, "
	                   "shift))";
	krl_tok *t = krl_p_peek(p);
	int k = -1;
	for (int i = 0; i < nkinds && t->kind == KRL_T_IDENT; i++)
		if (krl_p_is_word(p, kinds[i].name))
			k = i;
	if (k < 0)
		return krl_p_expected(p, what);
	krl_pos pos = t->pos;
	krl_p_next(p);
	krl_err r = krl_p_expect(p, '(');
	if (r)
		return r;
	double v[4] = { 0, 0, 0, 0 };
	int is_int[4] = { 1, 1, 1, 1 };
	for (int i = 0; i < kinds[k].nargs; i++) {
		if (i >= kinds[k].least && krl_p_is(p, ')'))
			break;
		if (i && (r = krl_p_expect(p, ',')))
			return r;
		if ((r = parse_number(p, &v[i], &is_int[i])))
			return r;
	}
	if (!krl_p_is(p, ')'))
		return krl_p_expected(p, kinds[k].nargs == 1 ? "')'" :
		                      kinds[k].nargs == 2 ?
		                      "')' after at most two arguments" :
		                      "')' after at most four arguments");
	krl_p_next(p);
	dist->kind = kinds[k].kind;
	dist->a = v[0];
	dist->b = v[1];
	if (dist->kind >= KRL_DIST_SWIN_COORDS) {
		int n = kinds[k].nargs;
		for (int i = 0; i < n; i++)
			if (!is_int[i] || v[i] < 0 || v[i] > 65536)
				return krl_diag_set(p->d, KRL_ESYNTAX, pos,
				                    "%s: argument %d is an integer "
				                    "in [0, 65536], found %g",
				                    kinds[k].name, i + 1, v[i]);
		dist->rows = (int64_t)v[2];
		dist->cols = (int64_t)v[3];
	}
	switch (dist->kind) {
	case KRL_DIST_NORMAL:
		if (v[1] < 0)
			return krl_diag_set(p->d, KRL_ESYNTAX, pos,
			                    "normal(mean, std): std must be >= 0, "
			                    "found %g", v[1]);
		break;
	case KRL_DIST_UNIFORM:
	case KRL_DIST_RANDINT:
		if (!(v[0] < v[1]))
			return krl_diag_set(p->d, KRL_ESYNTAX, pos,
			                    "%s(lo, hi): expected lo < hi, found "
			                    "%g, %g", kinds[k].name, v[0], v[1]);
		if (dist->kind == KRL_DIST_RANDINT && !(is_int[0] && is_int[1]))
			return krl_diag_set(p->d, KRL_ESYNTAX, pos,
			                    "randint(lo, hi) takes integers");
		break;
	case KRL_DIST_BERNOULLI:
		if (v[0] < 0 || v[0] > 1)
			return krl_diag_set(p->d, KRL_ESYNTAX, pos,
			                    "bernoulli(p): expected 0 <= p <= 1, "
			                    "found %g", v[0]);
		break;
	case KRL_DIST_TRIL:
	case KRL_DIST_TRIU:
		if (!is_int[1])
			return krl_diag_set(p->d, KRL_ESYNTAX, pos,
			                    "%s(v, k): the diagonal k is an "
			                    "integer", kinds[k].name);
		break;
	case KRL_DIST_SWIN_COORDS:
		/* the Model divides by (window - 1), or (pretrained - 1) */
		if (v[0] < 1 || v[1] < 1 ||
		    (v[2] > 0 ? v[2] : v[0]) < 2 || (v[3] > 0 ? v[3] : v[1]) < 2)
			return krl_diag_set(p->d, KRL_ESYNTAX, pos,
			                    "swin_coords(wh, ww[, pwh, pww]): the "
			                    "window is at least 1 x 1 and the divisor "
			                    "(pwh, pww if > 0, else wh, ww) at least "
			                    "2 (the Model divides by it minus 1)");
		break;
	case KRL_DIST_SWIN_INDEX:
		if (v[0] < 1 || v[1] < 1)
			return krl_diag_set(p->d, KRL_ESYNTAX, pos,
			                    "swin_index(wh, ww): the window is at "
			                    "least 1 x 1");
		break;
	case KRL_DIST_SWIN_MASK:
		if (v[2] < 1 || v[0] < v[2] || v[1] < v[2] ||
		    (int64_t)v[0] % (int64_t)v[2] != 0 ||
		    (int64_t)v[1] % (int64_t)v[2] != 0 ||
		    !(v[3] > 0 && v[3] < v[2]))
			return krl_diag_set(p->d, KRL_ESYNTAX, pos,
			                    "swin_mask(h, w, ws, shift): expected "
			                    "h and w multiples of ws >= 1 and 0 < "
			                    "shift < ws, found %g, %g, %g, %g",
			                    v[0], v[1], v[2], v[3]);
		break;
	default:
		break;
	}
	return KRL_OK;
}

/* shapes SET k=INT ... */
static krl_err parse_shapes(task_parse *tp)
{
	krl_parser *p = &tp->p;
	krl_task *t = tp->t;
	krl_err r;
	krl_p_next(p);
	krl_pos pos = krl_p_peek(p)->pos;
	krl_tok *nt = krl_p_peek(p);
	for (int i = 0; nt->kind == KRL_T_IDENT && i < t->nsets; i++)
		if (strlen(t->sets[i].name) == nt->len &&
		    memcmp(t->sets[i].name, nt->text, nt->len) == 0)
			return krl_diag_set(p->d, KRL_ESYNTAX, pos,
			                    "shape set '%s' is already defined at "
			                    "line %d", t->sets[i].name,
			                    t->sets[i].pos.line);
	krl_shapeset *s = krl_lang_grow(&t->sets, &t->nsets, sizeof *s);
	if (!s)
		return oom(tp);
	s->pos = pos;
	if ((r = krl_p_ident(p, "a shape set name", &s->name)))
		return r;
	while (krl_p_peek(p)->kind != KRL_T_NL &&
	       krl_p_peek(p)->kind != KRL_T_EOF) {
		krl_tok *kt = krl_p_peek(p);
		if (kt->kind != KRL_T_IDENT)
			return krl_p_expected(p, "key=INT");
		for (int k = 0; k < s->n; k++)
			if (strlen(s->keys[k]) == kt->len &&
			    memcmp(s->keys[k], kt->text, kt->len) == 0)
				return krl_diag_set(p->d, KRL_ESYNTAX, kt->pos,
				                    "key '%s' is given twice in "
				                    "shape set '%s'", s->keys[k],
				                    s->name);
		char **keys = realloc(s->keys, (size_t)(s->n + 1) * sizeof *keys);
		if (!keys)
			return oom(tp);
		s->keys = keys;
		int64_t *vals = realloc(s->vals, (size_t)(s->n + 1) * sizeof *vals);
		if (!vals)
			return oom(tp);
		s->vals = vals;
		s->vals[s->n] = 0;
		if (!(s->keys[s->n] = krl_tok_strdup(kt)))
			return oom(tp);
		s->n++;
		krl_p_next(p);
		if ((r = add_name(tp, s->keys[s->n - 1], kt->pos, 1)) ||
		    (r = krl_p_expect(p, '=')))
			return r;
		if (krl_p_peek(p)->kind != KRL_T_INT)
			return krl_p_expected(p, "a non-negative integer");
		s->vals[s->n - 1] = krl_p_next(p)->ival;
	}
	if (s->n == 0)
		return krl_p_expected(p, "key=INT");
	return KRL_OK;
}

/* const NAME = expr */
static krl_err parse_const(task_parse *tp)
{
	krl_parser *p = &tp->p;
	krl_task *t = tp->t;
	krl_err r;
	krl_p_next(p);
	krl_pos pos = krl_p_peek(p)->pos;
	char **names = realloc(t->const_names,
	                       (size_t)(t->nconsts + 1) * sizeof *names);
	if (!names)
		return oom(tp);
	t->const_names = names;
	krl_expr **vals = realloc(t->const_vals,
	                          (size_t)(t->nconsts + 1) * sizeof *vals);
	if (!vals)
		return oom(tp);
	t->const_vals = vals;
	int i = t->nconsts++;
	names[i] = NULL;
	vals[i] = NULL;
	if ((r = krl_p_ident(p, "a constant name", &names[i])) ||
	    (r = add_name(tp, names[i], pos, 0)) ||
	    (r = krl_p_expect(p, '=')))
		return r;
	return krl_parse_expr(p, &vals[i]);
}

/* input|param|output NAME DTYPE [dims] [DIST] */
static krl_err parse_io(task_parse *tp, krl_role role)
{
	krl_parser *p = &tp->p;
	krl_task *t = tp->t;
	krl_err r;
	krl_p_next(p);
	krl_decl *dc = krl_lang_grow(&t->decls, &t->ndecls, sizeof *dc);
	if (!dc)
		return oom(tp);
	dc->role = role;
	if ((r = krl_parse_decl(p, dc)) ||
	    (r = add_name(tp, dc->name, dc->pos, 0)))
		return r;
	if (role == KRL_ROLE_OUTPUT)
		return KRL_OK;
	krl_pos at = krl_p_peek(p)->pos;
	if ((r = parse_dist(p, &dc->dist)))
		return r;
	if (krl_dist_is_pattern(dc->dist.kind) && role != KRL_ROLE_PARAM)
		return krl_diag_set(p->d, KRL_ESYNTAX, at,
		                    "'%s': a pattern (tril, triu, arange, swin_*) gives "
		                    "a constant buffer, which is a param; an "
		                    "input is drawn fresh for every call",
		                    dc->name);
	if ((dc->dist.kind == KRL_DIST_TRIL || dc->dist.kind == KRL_DIST_TRIU) &&
	    dc->ndim < 2)
		return krl_diag_set(p->d, KRL_ESYNTAX, at,
		                    "'%s': tril and triu fill the last two dims, "
		                    "so the buffer needs at least 2 (it has %d)",
		                    dc->name, dc->ndim);
	return KRL_OK;
}

/* tolerance atol=F rtol=F (both, either order) */
static krl_err parse_tolerance(task_parse *tp)
{
	krl_parser *p = &tp->p;
	krl_task *t = tp->t;
	krl_err r;
	int have_a = 0, have_r = 0;
	krl_pos pos = krl_p_peek(p)->pos;
	if ((r = once(tp, &tp->seen_tol, "tolerance")))
		return r;
	while (krl_p_is_word(p, "atol") || krl_p_is_word(p, "rtol")) {
		int is_a = krl_p_is_word(p, "atol");
		krl_pos kp = krl_p_next(p)->pos;
		if ((is_a && have_a) || (!is_a && have_r))
			return krl_diag_set(p->d, KRL_ESYNTAX, kp,
			                    "%s is given twice",
			                    is_a ? "atol" : "rtol");
		if ((r = krl_p_expect(p, '=')))
			return r;
		double v;
		krl_pos vp = krl_p_peek(p)->pos;
		if ((r = parse_number(p, &v, NULL)))
			return r;
		if (v < 0)
			return krl_diag_set(p->d, KRL_ESYNTAX, vp,
			                    "a tolerance must be >= 0, found %g", v);
		if (is_a) {
			t->atol = v;
			have_a = 1;
		} else {
			t->rtol = v;
			have_r = 1;
		}
	}
	if (!have_a || !have_r) {
		if (krl_p_peek(p)->kind == KRL_T_NL ||
		    krl_p_peek(p)->kind == KRL_T_EOF)
			return krl_diag_set(p->d, KRL_ESYNTAX, pos,
			                    "tolerance needs both atol= and rtol=");
		return krl_p_expected(p, have_a ? "rtol=" : "atol=");
	}
	return KRL_OK;
}

static const char *const krl_task_words =
	"a statement (task, source, shapes, const, input, param, output, "
	"tolerance, bytes, flops, degenerate, precision, fixed, stress or "
	"plan)";

/* Parses one statement at the current token, including its end of line. */
static krl_err parse_statement(task_parse *tp)
{
	krl_parser *p = &tp->p;
	krl_task *t = tp->t;
	krl_err r;
	if (krl_p_peek(p)->kind != KRL_T_IDENT)
		return krl_p_expected(p, krl_task_words);
	if (krl_p_is_word(p, "task")) {
		if (!(r = once(tp, &tp->seen_task, "task")))
			r = krl_p_ident(p, "the task's name", &t->name);
	} else if (krl_p_is_word(p, "source")) {
		if (!(r = once(tp, &tp->seen_source, "source")))
			r = expect_string(p, &t->source);
	} else if (krl_p_is_word(p, "degenerate")) {
		if (!(r = once(tp, &tp->seen_degen, "degenerate")))
			r = expect_string(p, &t->degenerate);
	} else if (krl_p_is_word(p, "precision")) {
		/* The precision tier: fp32 (strict, the default) or tf32 (where
		 * the eager reference itself may use TF32, e.g. cuDNN
		 * convolutions, and candidates get the same freedom). */
		krl_pos at;
		if (!(r = once(tp, &tp->seen_precision, "precision"))) {
			at = krl_p_peek(p)->pos;
			free(t->precision);
			t->precision = NULL;
			r = krl_p_ident(p, "a precision tier (fp32 or tf32)",
			                &t->precision);
			if (!r && strcmp(t->precision, "fp32") != 0 &&
			    strcmp(t->precision, "tf32") != 0)
				r = krl_diag_set(p->d, KRL_ESYNTAX, at,
				                 "expected a precision tier (fp32 or "
				                 "tf32), found '%s'", t->precision);
		}
	} else if (krl_p_is_word(p, "fixed")) {
		/* Shape keys the judge's hidden shape sets keep at tiny's value
		 * (kernel sizes, strides, groups: the problem, not its size). */
		if (!(r = once(tp, &tp->seen_fixed, "fixed"))) {
			if (krl_p_peek(p)->kind != KRL_T_IDENT)
				r = krl_p_expected(p, "shape keys");
			while (!r && krl_p_peek(p)->kind == KRL_T_IDENT) {
				char **k = krl_lang_grow(&t->fixed, &t->nfixed,
				                         sizeof *k);
				if (!k)
					return oom(tp);
				*k = NULL;
				r = krl_p_ident(p, "a shape key", k);
			}
		}
	} else if (krl_p_is_word(p, "stress")) {
		krl_p_next(p);
		r = parse_stress(tp);
	} else if (krl_p_is_word(p, "shapes")) {
		r = parse_shapes(tp);
	} else if (krl_p_is_word(p, "const")) {
		r = parse_const(tp);
	} else if (krl_p_is_word(p, "input")) {
		r = parse_io(tp, KRL_ROLE_INPUT);
	} else if (krl_p_is_word(p, "param")) {
		r = parse_io(tp, KRL_ROLE_PARAM);
	} else if (krl_p_is_word(p, "output")) {
		r = parse_io(tp, KRL_ROLE_OUTPUT);
	} else if (krl_p_is_word(p, "tolerance")) {
		r = parse_tolerance(tp);
	} else if (krl_p_is_word(p, "bytes")) {
		if (!(r = once(tp, &tp->seen_bytes, "bytes")))
			r = krl_parse_expr(p, &t->bytes);
	} else if (krl_p_is_word(p, "flops")) {
		if (!(r = once(tp, &tp->seen_flops, "flops")))
			r = krl_parse_expr(p, &t->flops);
	} else if (krl_p_is_word(p, "plan")) {
		krl_pos start = krl_p_peek(p)->pos;
		if ((r = once(tp, &tp->seen_plan, "plan")) ||
		    (r = krl_p_eol(p)) ||
		    (r = krl_plan_parse(p, &t->ref, 1, start)))
			return r;
		for (int i = 0; i < t->ref.nbufs; i++)
			if ((r = add_name(tp, t->ref.bufs[i].name,
			                  t->ref.bufs[i].pos, 0)))
				return r;
		return KRL_OK;
	} else {
		return krl_p_expected(p, krl_task_words);
	}
	if (r)
		return r;
	return krl_p_eol(p);
}

/* The checks that need the whole file: required statements and that every
 * shape set defines the same keys. */
static krl_err validate(task_parse *tp, krl_pos end)
{
	krl_task *t = tp->t;
	krl_diag *d = tp->p.d;
	krl_pos top = { t->path, 1, 1 };
	static const char *const required[] = { "kb0", "kb1", "tiny" };
	if (!tp->seen_task.line)
		return krl_diag_set(d, KRL_ESYNTAX, top,
		                    "missing the 'task NAME' statement");
	for (int i = 0; i < 3; i++)
		if (!krl_task_shapeset(t, required[i]))
			return krl_diag_set(d, KRL_ESYNTAX, end,
			                    "missing shape set '%s' (every task "
			                    "defines kb0, kb1 and tiny)",
			                    required[i]);
	const krl_shapeset *s0 = &t->sets[0];
	for (int i = 1; i < t->nsets; i++) {
		const krl_shapeset *s = &t->sets[i];
		for (int k = 0; k < s0->n; k++) {
			int found = 0;
			for (int j = 0; j < s->n && !found; j++)
				found = strcmp(s->keys[j], s0->keys[k]) == 0;
			if (!found)
				return krl_diag_set(d, KRL_ESYNTAX, s->pos,
				                    "shape set '%s' does not define "
				                    "'%s' (shape set '%s' does; every "
				                    "set defines the same keys)",
				                    s->name, s0->keys[k], s0->name);
		}
		for (int j = 0; j < s->n; j++) {
			int found = 0;
			for (int k = 0; k < s0->n && !found; k++)
				found = strcmp(s->keys[j], s0->keys[k]) == 0;
			if (!found)
				return krl_diag_set(d, KRL_ESYNTAX, s->pos,
				                    "shape set '%s' defines '%s', which "
				                    "shape set '%s' does not (every "
				                    "set defines the same keys)",
				                    s->name, s->keys[j], s0->name);
		}
	}
	for (int i = 0; i < t->nfixed; i++) {
		int found = 0;
		for (int k = 0; k < s0->n && !found; k++)
			found = strcmp(t->fixed[i], s0->keys[k]) == 0;
		if (!found)
			return krl_diag_set(d, KRL_ESYNTAX, tp->seen_fixed,
			                    "'fixed' names '%s', which is not a "
			                    "shape key", t->fixed[i]);
	}
	for (int i = 0; i < t->nstress; i++) {
		const krl_stress_decl *sd = &t->stress[i];
		int found = !sd->input;
		for (int k = 0; k < t->ndecls && !found; k++)
			found = t->decls[k].role == KRL_ROLE_INPUT &&
			        strcmp(t->decls[k].name, sd->input) == 0;
		if (!found)
			return krl_diag_set(d, KRL_ESYNTAX, sd->pos,
			                    "'stress' names '%s', which is not an "
			                    "input (stress draws change inputs only)",
			                    sd->input);
	}
	int nout = 0;
	for (int i = 0; i < t->ndecls; i++)
		nout += t->decls[i].role == KRL_ROLE_OUTPUT;
	if (!nout)
		return krl_diag_set(d, KRL_ESYNTAX, end,
		                    "missing an 'output NAME DTYPE [dims]' "
		                    "statement (a task has at least one output)");
	if (!tp->seen_tol.line)
		return krl_diag_set(d, KRL_ESYNTAX, end,
		                    "missing the 'tolerance atol=F rtol=F' "
		                    "statement");
	if (!tp->seen_plan.line)
		return krl_diag_set(d, KRL_ESYNTAX, end,
		                    "missing the reference 'plan ... end'");
	return KRL_OK;
}

krl_err krl_task_parse(const char *path, const char *text, size_t len,
                       krl_task **out, krl_diag *d)
{
	task_parse tp;
	memset(&tp, 0, sizeof tp);
	krl_err r = KRL_OK;
	krl_pos nopos = { path, 0, 0 };
	*out = NULL;
	tp.t = calloc(1, sizeof *tp.t);
	if (!tp.t || !(tp.t->path = strdup(path ? path : "")) ||
	    !(tp.t->text = malloc(len + 1))) {
		r = krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory");
		goto cleanup;
	}
	if (len)
		memcpy(tp.t->text, text, len);
	tp.t->text[len] = 0;
	tp.t->text_len = len;
	tp.p.d = d;
	if ((r = krl_lex(tp.t->path, text, len, 1, 1, &tp.p.toks, &tp.p.n, d)))
		goto cleanup;
	for (;;) {
		krl_p_skip_nl(&tp.p);
		if (krl_p_peek(&tp.p)->kind == KRL_T_EOF)
			break;
		if ((r = parse_statement(&tp)))
			goto cleanup;
	}
	if ((r = validate(&tp, krl_p_peek(&tp.p)->pos)))
		goto cleanup;
	*out = tp.t;
	tp.t = NULL;
cleanup:
	/* The diagnostic must not point into the task we are about to free. */
	if (r && d && tp.t && d->pos.file == tp.t->path)
		d->pos.file = path;
	krl_toks_free(tp.p.toks, tp.p.n);
	free(tp.names);
	krl_task_free(tp.t);
	return r;
}

/* Reads the whole file at path into a malloc'd NUL-terminated buffer. */
krl_err krl_lang_read_file(const char *path, char **out, size_t *len,
                           krl_diag *d)
{
	krl_pos pos = { path, 0, 0 };
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return krl_diag_set(d, KRL_EIO, pos, "cannot open the file: %s",
		                    strerror(errno));
	krl_err r = KRL_OK;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	if (!buf) {
		r = krl_diag_set(d, KRL_ENOMEM, pos, "out of memory");
		goto cleanup;
	}
	for (;;) {
		if (n + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				r = krl_diag_set(d, KRL_ENOMEM, pos, "out of memory");
				goto cleanup;
			}
			buf = nb;
			cap *= 2;
		}
		size_t k = fread(buf + n, 1, cap - n - 1, f);
		n += k;
		if (k == 0)
			break;
	}
	if (ferror(f)) {
		r = krl_diag_set(d, KRL_EIO, pos, "cannot read the file: %s",
		                 strerror(errno));
		goto cleanup;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	buf = NULL;
cleanup:
	free(buf);
	fclose(f);
	return r;
}

krl_err krl_task_load(const char *path, krl_task **out, krl_diag *d)
{
	char *text = NULL;
	size_t len = 0;
	*out = NULL;
	krl_err r = krl_lang_read_file(path, &text, &len, d);
	if (!r)
		r = krl_task_parse(path, text, len, out, d);
	free(text);
	return r;
}
