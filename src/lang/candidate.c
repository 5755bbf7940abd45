/*
 * kernelrl: the candidate file parser (docs/language.md, "Candidate files").
 *
 * A candidate is CUDA C device code with one plan block: a comment that
 * opens with slash-star-@plan and closes with @-star-slash.
 * This file scans the CUDA source just enough to find (1) the signature of
 * every `extern "C" __global__` kernel, typing each parameter per the spec's
 * table, and (2) the plan block, whose text is parsed by plan.c with
 * positions mapped to the real line:col in the file. Comments, string and
 * character literals and preprocessor lines are skipped, so a kernel or a
 * plan marker mentioned inside them does not count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/plan.h"

/* ==== A small C/C++ token scanner ==== */

typedef enum ctok_kind { CT_IDENT, CT_STRING, CT_NUMBER, CT_PUNCT } ctok_kind;

typedef struct ctok {
	ctok_kind kind;
	const char *text;
	size_t len;
	krl_pos pos;
} ctok;

/* Where a plan block's text is: [start, end) with its first position. */
typedef struct plan_block {
	krl_pos pos;      /* of the opening slash */
	size_t start, end;
	int line, col;    /* position of text[start] */
} plan_block;

typedef struct cscan {
	const char *file;
	const char *s;
	size_t len, i;
	int line, col;
	int bol;          /* only blanks so far on this line */
	ctok *toks;
	int n;
	plan_block plan;
	int nplans;
	krl_diag *d;
} cscan;

static void cs_adv(cscan *c)
{
	if (c->i >= c->len)
		return;
	if (c->s[c->i] == '\n') {
		c->line++;
		c->col = 1;
		c->bol = 1;
	} else {
		c->col++;
	}
	c->i++;
}

static int cs_ch(const cscan *c, size_t k)
{
	return c->i + k < c->len ? (unsigned char)c->s[c->i + k] : -1;
}

static krl_pos cs_pos(const cscan *c)
{
	krl_pos p = { c->file, c->line, c->col };
	return p;
}

static int is_ident_ch(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_';
}

static int is_blank(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' ||
	       ch == '\f' || ch == '\v';
}

/*
 * Handles a block comment at c->i. A comment that opens with the plan
 * marker (slash-star-@plan, then a blank, `@` or the end) is a plan block:
 * the comment's first star-slash must be preceded by `@`, and there must be
 * only one plan block.
 */
static krl_err cs_block_comment(cscan *c)
{
	krl_pos pos = cs_pos(c);
	int is_plan = c->len - c->i >= 7 &&
	              memcmp(c->s + c->i, "/*@plan", 7) == 0 &&
	              (c->i + 7 == c->len || is_blank(c->s[c->i + 7]) ||
	               c->s[c->i + 7] == '@');
	for (int k = 0; k < (is_plan ? 7 : 2); k++)
		cs_adv(c);
	plan_block b = { pos, c->i, 0, c->line, c->col };
	for (;;) {
		if (c->i >= c->len) {
			if (is_plan)
				return krl_diag_set(c->d, KRL_ESYNTAX, pos,
				                    "unterminated plan block: expected "
				                    "'@*/' to close '/*@plan'");
			return KRL_OK; /* NVRTC will report it */
		}
		if (cs_ch(c, 0) == '*' && cs_ch(c, 1) == '/')
			break;
		cs_adv(c);
	}
	if (is_plan) {
		if (c->i == b.start || c->s[c->i - 1] != '@') {
			return krl_diag_set(c->d, KRL_ESYNTAX, cs_pos(c),
			                    "expected '@*/' to end the plan block "
			                    "opened at line %d, found '*/'",
			                    pos.line);
		}
		b.end = c->i - 1;
		if (c->nplans++)
			return krl_diag_set(c->d, KRL_ESYNTAX, pos,
			                    "a second /*@plan block (the first is at "
			                    "line %d): a candidate has exactly one",
			                    c->plan.pos.line);
		c->plan = b;
	}
	cs_adv(c);
	cs_adv(c);
	return KRL_OK;
}

/* Skips a quoted literal (string or char) with backslash escapes; stops at
 * an unescaped newline (left for NVRTC to report). */
static void cs_quoted(cscan *c, int q)
{
	cs_adv(c);
	while (c->i < c->len && cs_ch(c, 0) != q && cs_ch(c, 0) != '\n') {
		if (cs_ch(c, 0) == '\\')
			cs_adv(c);
		cs_adv(c);
	}
	if (cs_ch(c, 0) == q)
		cs_adv(c);
}

/* Skips a raw string R"delim( ... )delim" starting at the quote. */
static void cs_raw_string(cscan *c)
{
	cs_adv(c);
	size_t d0 = c->i;
	while (c->i < c->len && cs_ch(c, 0) != '(' && cs_ch(c, 0) != '\n')
		cs_adv(c);
	size_t dn = c->i - d0;
	while (c->i < c->len) {
		if (cs_ch(c, 0) == ')' && c->len - c->i > dn + 1 &&
		    memcmp(c->s + c->i + 1, c->s + d0, dn) == 0 &&
		    c->s[c->i + 1 + dn] == '"') {
			for (size_t k = 0; k < dn + 2; k++)
				cs_adv(c);
			return;
		}
		cs_adv(c);
	}
}

static krl_err cs_push(cscan *c, ctok_kind kind, size_t start, krl_pos pos)
{
	ctok *t = krl_lang_grow(&c->toks, &c->n, sizeof *t);
	if (!t)
		return krl_diag_set(c->d, KRL_ENOMEM, pos, "out of memory");
	t->kind = kind;
	t->text = c->s + start;
	t->len = c->i - start;
	t->pos = pos;
	return KRL_OK;
}

/* Tokenizes the whole source into c->toks, noting the plan block. */
static krl_err cs_scan(cscan *c)
{
	krl_err r;
	while (c->i < c->len) {
		int ch = cs_ch(c, 0);
		krl_pos pos = cs_pos(c);
		size_t start = c->i;
		if (is_blank(ch)) {
			cs_adv(c);
			continue;
		}
		if (ch == '#' && c->bol) {
			/* A preprocessor line, with its continuations. */
			while (c->i < c->len && cs_ch(c, 0) != '\n') {
				if (cs_ch(c, 0) == '\\' && cs_ch(c, 1) == '\n')
					cs_adv(c);
				else if (cs_ch(c, 0) == '/' && cs_ch(c, 1) == '*') {
					if ((r = cs_block_comment(c)))
						return r;
					continue;
				}
				cs_adv(c);
			}
			continue;
		}
		c->bol = 0;
		if (ch == '/' && cs_ch(c, 1) == '/') {
			while (c->i < c->len && cs_ch(c, 0) != '\n')
				cs_adv(c);
		} else if (ch == '/' && cs_ch(c, 1) == '*') {
			if ((r = cs_block_comment(c)))
				return r;
		} else if (ch == '"') {
			cs_quoted(c, '"');
			if ((r = cs_push(c, CT_STRING, start, pos)))
				return r;
		} else if (ch == '\'') {
			cs_quoted(c, '\'');
		} else if (is_ident_ch(ch) && !(ch >= '0' && ch <= '9')) {
			while (is_ident_ch(cs_ch(c, 0)))
				cs_adv(c);
			if (cs_ch(c, 0) == '"' && c->s[c->i - 1] == 'R') {
				cs_raw_string(c);
				continue;
			}
			if (cs_ch(c, 0) == '"' || cs_ch(c, 0) == '\'')
				continue; /* an encoding prefix: u8"..", L'x' */
			if ((r = cs_push(c, CT_IDENT, start, pos)))
				return r;
		} else if (ch >= '0' && ch <= '9') {
			/* A pp-number, including 1'000 digit separators. */
			while (is_ident_ch(cs_ch(c, 0)) || cs_ch(c, 0) == '.' ||
			       (cs_ch(c, 0) == '\'' && is_ident_ch(cs_ch(c, 1))) ||
			       ((cs_ch(c, 0) == '+' || cs_ch(c, 0) == '-') &&
			        strchr("eEpP", c->s[c->i - 1])))
				cs_adv(c);
			if ((r = cs_push(c, CT_NUMBER, start, pos)))
				return r;
		} else {
			cs_adv(c);
			if ((r = cs_push(c, CT_PUNCT, start, pos)))
				return r;
		}
	}
	return KRL_OK;
}

/* ==== Kernel signatures ==== */

static int ct_is(const ctok *t, const char *z)
{
	return t->len == strlen(z) && memcmp(t->text, z, t->len) == 0;
}

static int ct_punct(const ctok *t, char ch)
{
	return t->kind == CT_PUNCT && t->text[0] == ch;
}

/* Index of the token that closes the bracket at toks[i], or n. */
static int ct_match(const ctok *toks, int n, int i)
{
	char open = toks[i].text[0];
	char close = open == '(' ? ')' : open == '[' ? ']' : '}';
	int depth = 0;
	for (int k = i; k < n; k++) {
		if (ct_punct(&toks[k], open))
			depth++;
		else if (ct_punct(&toks[k], close) && --depth == 0)
			return k;
	}
	return n;
}

static const char *const krl_qualifiers[] = {
	"__restrict__", "__restrict", "restrict", "volatile",
	"__grid_constant__", "register", NULL
};

static const char *const krl_type_words[] = {
	"int", "unsigned", "signed", "long", "short", "char", "float",
	"double", "bool", "void", "int32_t", "uint32_t", "int64_t",
	"uint64_t", "size_t", "ptrdiff_t", NULL
};

static const struct {
	const char *spelling;
	krl_ptype type;
} krl_value_types[] = {
	{ "int", KRL_P_I32 }, { "signed", KRL_P_I32 },
	{ "signed int", KRL_P_I32 }, { "int32_t", KRL_P_I32 },
	{ "unsigned", KRL_P_U32 }, { "unsigned int", KRL_P_U32 },
	{ "uint32_t", KRL_P_U32 },
	{ "long", KRL_P_I64 }, { "long int", KRL_P_I64 },
	{ "signed long", KRL_P_I64 }, { "long long", KRL_P_I64 },
	{ "long long int", KRL_P_I64 }, { "signed long long", KRL_P_I64 },
	{ "int64_t", KRL_P_I64 }, { "ptrdiff_t", KRL_P_I64 },
	{ "unsigned long", KRL_P_U64 }, { "unsigned long int", KRL_P_U64 },
	{ "unsigned long long", KRL_P_U64 },
	{ "unsigned long long int", KRL_P_U64 },
	{ "uint64_t", KRL_P_U64 }, { "size_t", KRL_P_U64 },
	{ "float", KRL_P_F32 }, { "double", KRL_P_F64 },
};

static int in_list(const ctok *t, const char *const *list)
{
	for (int i = 0; list[i]; i++)
		if (ct_is(t, list[i]))
			return 1;
	return 0;
}

/*
 * Types one parameter from its tokens toks[a..b). Pointers (any pointee)
 * become KRL_P_PTR, const when `const` qualifies the pointee (the segment
 * before the last `*`); value types go through the spec's table. Anything
 * else is KRL_ESYNTAX at the parameter.
 */
static krl_err type_param(cscan *c, const ctok *toks, int a, int b,
                          const char *kname, krl_kparam *kp)
{
	int nptr = 0, seg_const[16] = { 0 };
	const ctok *words[16];
	int nwords = 0, word_seg[16];
	int bad = 0;
	for (int k = a; k < b; k++) {
		const ctok *t = &toks[k];
		if (t->kind == CT_IDENT) {
			if (ct_is(t, "const")) {
				seg_const[nptr < 15 ? nptr : 15] = 1;
			} else if (in_list(t, krl_qualifiers)) {
				continue;
			} else if (k + 2 < b && ct_punct(&toks[k + 1], ':') &&
			           ct_punct(&toks[k + 2], ':')) {
				k += 2; /* std::size_t and friends */
			} else if (nwords < 16) {
				word_seg[nwords] = nptr;
				words[nwords++] = t;
			} else {
				bad = 1;
			}
		} else if (ct_punct(t, '*')) {
			if (nptr < 15)
				nptr++;
		} else {
			bad = 1; /* references, arrays, templates, defaults */
		}
	}
	/* The name is the last word if something names a type before it. */
	const ctok *name = NULL;
	if (nwords >= 2 && !in_list(words[nwords - 1], krl_type_words) &&
	    word_seg[nwords - 1] == nptr)
		name = words[--nwords];
	else if (nwords >= 1 && nptr > 0 && word_seg[nwords - 1] == nptr)
		name = words[--nwords];
	kp->name = name ? strndup(name->text, name->len) : strdup("");
	if (!kp->name)
		return krl_diag_set(c->d, KRL_ENOMEM, toks[a].pos,
		                    "out of memory");
	char spell[128] = "";
	size_t ns = 0;
	for (int w = 0; w < nwords; w++) {
		int k = snprintf(spell + ns, sizeof spell - ns, "%s%.*s",
		                 w ? " " : "", (int)words[w]->len, words[w]->text);
		if (k < 0 || (size_t)k >= sizeof spell - ns)
			break;
		ns += (size_t)k;
	}
	krl_pos pos = a < b ? toks[a].pos : toks[a > 0 ? a - 1 : 0].pos;
	if (!bad && nwords >= 1 && nptr > 0) {
		kp->type = KRL_P_PTR;
		kp->is_const = seg_const[nptr - 1];
		return KRL_OK;
	}
	if (!bad && nptr == 0) {
		for (size_t i = 0; i < sizeof krl_value_types /
		                           sizeof krl_value_types[0]; i++) {
			if (strcmp(spell, krl_value_types[i].spelling) == 0) {
				kp->type = krl_value_types[i].type;
				return KRL_OK;
			}
		}
	}
	int n = b > a ? (int)(toks[b - 1].text + toks[b - 1].len - toks[a].text)
	              : 0;
	return krl_diag_set(c->d, KRL_ESYNTAX, pos,
	                    "kernel '%s': unsupported parameter type in '%.*s' "
	                    "(expected a pointer, int, unsigned, long, "
	                    "unsigned long, size_t, float or double, or their "
	                    "<stdint.h> names)", kname, n > 80 ? 80 : n,
	                    n ? toks[a].text : "");
}

/*
 * Reads the kernel whose __global__ is at toks[g] and sets *next to the
 * token to continue the scan at. Fails (KRL_ESYNTAX, KRL_ENOMEM) with c->d
 * set. A kernel already recorded (a prototype, then the definition) is kept
 * once.
 */
static krl_err read_kernel(cscan *c, krl_candidate *cand, int g, int *next)
{
	const ctok *toks = c->toks;
	int n = c->n, k = g + 1;
	int is_void = 0;
	/* Find NAME '(' skipping attribute macros and their arguments. */
	while (k + 1 < n) {
		const ctok *t = &toks[k];
		if (ct_punct(t, ';') || ct_punct(t, '{') || ct_punct(t, '}'))
			return *next = k, KRL_OK;
		if (t->kind == CT_IDENT && ct_punct(&toks[k + 1], '(')) {
			if (ct_is(t, "__launch_bounds__") ||
			    ct_is(t, "__cluster_dims__") ||
			    ct_is(t, "__maxnreg__") || ct_is(t, "__attribute__") ||
			    ct_is(t, "alignas")) {
				k = ct_match(toks, n, k + 1) + 1;
				continue;
			}
			break;
		}
		if (ct_is(t, "void"))
			is_void = 1;
		k++;
	}
	*next = k;
	if (k + 1 >= n || !is_void)
		return KRL_OK;
	const ctok *name = &toks[k];
	int open = k + 1, close = ct_match(toks, n, open);
	*next = close + 1;
	if (close >= n)
		return KRL_OK;
	for (int i = 0; i < cand->nkernels; i++)
		if (strlen(cand->kernels[i].name) == name->len &&
		    memcmp(cand->kernels[i].name, name->text, name->len) == 0)
			return KRL_OK;
	krl_kernel *kn = krl_lang_grow(&cand->kernels, &cand->nkernels,
	                               sizeof *kn);
	if (!kn || !(kn->name = strndup(name->text, name->len)))
		return krl_diag_set(c->d, KRL_ENOMEM, name->pos,
		                    "out of memory");
	kn->pos = name->pos;
	/* `(void)` and `()` take nothing. */
	if (close == open + 1 ||
	    (close == open + 2 && ct_is(&toks[open + 1], "void")))
		return KRL_OK;
	int a = open + 1, depth = 0;
	for (int i = open + 1; i <= close; i++) {
		const ctok *t = &toks[i];
		if (ct_punct(t, '(') || ct_punct(t, '[') || ct_punct(t, '<'))
			depth++;
		else if ((ct_punct(t, ')') || ct_punct(t, ']') ||
		          ct_punct(t, '>')) && i < close)
			depth--;
		if (i == close || (depth == 0 && ct_punct(t, ','))) {
			krl_kparam *kp = krl_lang_grow(&kn->params, &kn->nparams,
			                               sizeof *kp);
			if (!kp)
				return krl_diag_set(c->d, KRL_ENOMEM, t->pos,
				                    "out of memory");
			krl_err r = type_param(c, toks, a, i, kn->name, kp);
			if (r)
				return r;
			a = i + 1;
		}
	}
	return KRL_OK;
}

/*
 * Finds every `extern "C" __global__ void NAME(...)`, including those in
 * `extern "C" { ... }` blocks. __global__ functions without C linkage are
 * skipped: their mangled names cannot be launched by name.
 */
static krl_err find_kernels(cscan *c, krl_candidate *cand)
{
	const ctok *toks = c->toks;
	int n = c->n, depth = 0, pending = 0;
	int cblock[64], ncblock = 0;
	for (int i = 0; i < n;) {
		const ctok *t = &toks[i];
		if (ct_is(t, "extern") && t->kind == CT_IDENT && i + 1 < n &&
		    toks[i + 1].kind == CT_STRING && ct_is(&toks[i + 1], "\"C\"")) {
			if (i + 2 < n && ct_punct(&toks[i + 2], '{')) {
				depth++;
				if (ncblock < 64)
					cblock[ncblock++] = depth;
				i += 3;
			} else {
				pending = 1;
				i += 2;
			}
			continue;
		}
		if (ct_punct(t, '{')) {
			depth++;
			pending = 0;
		} else if (ct_punct(t, '}')) {
			if (ncblock && cblock[ncblock - 1] == depth)
				ncblock--;
			depth--;
			pending = 0;
		} else if (ct_punct(t, ';')) {
			pending = 0;
		} else if (t->kind == CT_IDENT && ct_is(t, "__global__")) {
			int is_c = pending ||
			           (ncblock && cblock[ncblock - 1] == depth);
			pending = 0;
			if (is_c) {
				int next = i + 1;
				krl_err r = read_kernel(c, cand, i, &next);
				if (r)
					return r;
				i = next;
				continue;
			}
		}
		i++;
	}
	return KRL_OK;
}

/* ==== Candidates ==== */

void krl_candidate_free(krl_candidate *c)
{
	if (!c)
		return;
	free(c->path);
	free(c->source);
	for (int i = 0; i < c->nkernels; i++) {
		free(c->kernels[i].name);
		for (int k = 0; k < c->kernels[i].nparams; k++)
			free(c->kernels[i].params[k].name);
		free(c->kernels[i].params);
	}
	free(c->kernels);
	krl_plan_clear(&c->plan);
	free(c);
}

krl_err krl_candidate_parse(const char *path, const char *text, size_t len,
                            krl_candidate **out, krl_diag *d)
{
	krl_err r = KRL_OK;
	krl_pos nopos = { path, 0, 0 };
	krl_parser p;
	memset(&p, 0, sizeof p);
	cscan c;
	memset(&c, 0, sizeof c);
	*out = NULL;
	krl_candidate *cand = calloc(1, sizeof *cand);
	if (!cand || !(cand->path = strdup(path ? path : "")) ||
	    !(cand->source = malloc(len + 1))) {
		r = krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory");
		goto cleanup;
	}
	memcpy(cand->source, text, len);
	cand->source[len] = 0;
	cand->len = len;

	c.file = cand->path;
	c.s = cand->source;
	c.len = len;
	c.line = c.col = c.bol = 1;
	c.d = d;
	if ((r = cs_scan(&c)))
		goto cleanup;
	if (c.nplans == 0) {
		krl_pos top = { cand->path, 1, 1 };
		r = krl_diag_set(d, KRL_ESYNTAX, top,
		                 "no plan: expected one /*@plan ... @*/ block "
		                 "saying how to launch the kernels");
		goto cleanup;
	}
	if ((r = find_kernels(&c, cand)))
		goto cleanup;

	p.d = d;
	if ((r = krl_lex(cand->path, cand->source + c.plan.start,
	                 c.plan.end - c.plan.start, c.plan.line, c.plan.col,
	                 &p.toks, &p.n, d)) ||
	    (r = krl_plan_parse(&p, &cand->plan, 0, c.plan.pos)))
		goto cleanup;
	*out = cand;
	cand = NULL;
cleanup:
	if (r && d && cand && d->pos.file == cand->path)
		d->pos.file = path;
	krl_toks_free(p.toks, p.n);
	free(c.toks);
	krl_candidate_free(cand);
	return r;
}

krl_err krl_candidate_load(const char *path, krl_candidate **out,
                           krl_diag *d)
{
	char *text = NULL;
	size_t len = 0;
	*out = NULL;
	krl_err r = krl_lang_read_file(path, &text, &len, d);
	if (!r)
		r = krl_candidate_parse(path, text, len, out, d);
	free(text);
	return r;
}
