/*
 * kernelrl: the tokenizer of the plan languages and the parser helpers that
 * report "expected X, found Y" (see lexer.h and docs/language.md, "Lexical
 * rules").
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lexer.h"

#define KRL_LEX_MAX_NEST 64

typedef struct krl_lexer {
	const char *file;
	const char *s;
	size_t len;
	size_t i;
	int line, col;
	krl_tok *toks;
	int n, cap;
	int depth;                        /* open ( and [ */
	krl_pos open[KRL_LEX_MAX_NEST];   /* where each open bracket is */
	char openc[KRL_LEX_MAX_NEST];
	krl_diag *d;
} krl_lexer;

static krl_pos lex_pos(const krl_lexer *L)
{
	krl_pos p = { L->file, L->line, L->col };
	return p;
}

/* Moves over one character, keeping line:col. */
static void lex_adv(krl_lexer *L)
{
	if (L->i >= L->len)
		return;
	if (L->s[L->i] == '\n') {
		L->line++;
		L->col = 1;
	} else {
		L->col++;
	}
	L->i++;
}

static int lex_ch(const krl_lexer *L, size_t k)
{
	return L->i + k < L->len ? (unsigned char)L->s[L->i + k] : -1;
}

/* Appends a token; returns NULL (and sets the diag) when out of memory. */
static krl_tok *lex_push(krl_lexer *L, krl_tokkind kind, krl_pos pos,
                         size_t start)
{
	if (L->n == L->cap) {
		int cap = L->cap ? L->cap * 2 : 64;
		krl_tok *t = realloc(L->toks, (size_t)cap * sizeof *t);
		if (!t) {
			krl_diag_set(L->d, KRL_ENOMEM, pos, "out of memory");
			return NULL;
		}
		L->toks = t;
		L->cap = cap;
	}
	krl_tok *t = &L->toks[L->n++];
	memset(t, 0, sizeof *t);
	t->kind = kind;
	t->pos = pos;
	t->text = L->s + start;
	t->len = L->i - start;
	return t;
}

/* Ends a statement unless nothing is pending (blank lines, comments). */
static krl_err lex_newline(krl_lexer *L, krl_pos pos)
{
	if (L->n == 0 || L->toks[L->n - 1].kind == KRL_T_NL)
		return KRL_OK;
	return lex_push(L, KRL_T_NL, pos, L->i) ? KRL_OK : KRL_ENOMEM;
}

/*
 * Lexes a number at L->i: digits with `_` between digits, then an optional
 * fraction and exponent (which make it a float). A letter glued to the number
 * and an integer beyond int64 are errors.
 */
static krl_err lex_number(krl_lexer *L)
{
	krl_pos pos = lex_pos(L);
	size_t start = L->i;
	char buf[128];
	size_t nb = 0;
	int is_float = 0;
	int64_t v = 0;
	int overflow = 0;

	for (;;) {
		int c = lex_ch(L, 0);
		if (c >= '0' && c <= '9') {
			if (!is_float) {
				int64_t dv = c - '0';
				if (v > (INT64_MAX - dv) / 10)
					overflow = 1;
				else
					v = v * 10 + dv;
			}
			if (nb + 1 < sizeof buf)
				buf[nb++] = (char)c;
			lex_adv(L);
		} else if (c == '_') {
			int nx = lex_ch(L, 1);
			if (nb == 0 || !(buf[nb - 1] >= '0' && buf[nb - 1] <= '9') ||
			    !(nx >= '0' && nx <= '9'))
				return krl_diag_set(L->d, KRL_ESYNTAX, lex_pos(L),
				                    "expected a digit on both sides of "
				                    "'_' in a number");
			lex_adv(L);
		} else if (c == '.' && !is_float && lex_ch(L, 1) >= '0' &&
		           lex_ch(L, 1) <= '9' &&
		           !memchr(buf, 'e', nb) && !memchr(buf, 'E', nb)) {
			is_float = 1;
			if (nb + 1 < sizeof buf)
				buf[nb++] = '.';
			lex_adv(L);
		} else if ((c == 'e' || c == 'E') && !memchr(buf, 'e', nb) &&
		           !memchr(buf, 'E', nb)) {
			int k = 1;
			if (lex_ch(L, 1) == '+' || lex_ch(L, 1) == '-')
				k = 2;
			if (!(lex_ch(L, k) >= '0' && lex_ch(L, k) <= '9'))
				break;
			is_float = 1;
			for (int j = 0; j < k; j++) {
				if (nb + 1 < sizeof buf)
					buf[nb++] = (char)lex_ch(L, 0);
				lex_adv(L);
			}
		} else {
			break;
		}
	}
	int c = lex_ch(L, 0);
	if (c >= 0 && (isalnum(c) || c == '_' || c == '.')) {
		while (lex_ch(L, 0) >= 0 &&
		       (isalnum(lex_ch(L, 0)) || lex_ch(L, 0) == '_' ||
		        lex_ch(L, 0) == '.'))
			lex_adv(L);
		return krl_diag_set(L->d, KRL_ESYNTAX, pos,
		                    "expected a number (like 4096, 1_048_576, "
		                    "1.5 or 1e-5), found '%.*s'",
		                    (int)(L->i - start), L->s + start);
	}
	/* buf holds what strtod reads: a number that filled it was cut. */
	if (nb + 1 >= sizeof buf)
		return krl_diag_set(L->d, KRL_ESYNTAX, pos,
		                    "number too long: at most %d characters, "
		                    "not counting '_'", (int)sizeof buf - 2);
	buf[nb] = 0;
	if (!is_float && overflow)
		return krl_diag_set(L->d, KRL_ESYNTAX, pos,
		                    "integer '%.*s' does not fit in 64 bits",
		                    (int)(L->i - start), L->s + start);
	krl_tok *t = lex_push(L, is_float ? KRL_T_FLOAT : KRL_T_INT, pos, start);
	if (!t)
		return KRL_ENOMEM;
	if (is_float)
		t->fval = strtod(buf, NULL);
	else
		t->ival = v;
	return KRL_OK;
}

/* Lexes a "..." string with \" and \\ escapes; no newlines inside. */
static krl_err lex_string(krl_lexer *L)
{
	krl_pos pos = lex_pos(L);
	size_t start = L->i;
	lex_adv(L);
	size_t cap = 16, n = 0;
	char *z = malloc(cap);
	if (!z)
		return krl_diag_set(L->d, KRL_ENOMEM, pos, "out of memory");
	for (;;) {
		int c = lex_ch(L, 0);
		if (c < 0 || c == '\n') {
			free(z);
			return krl_diag_set(L->d, KRL_ESYNTAX, pos,
			                    "unterminated string: expected '\"' "
			                    "before the end of the line");
		}
		if (c == '"') {
			lex_adv(L);
			break;
		}
		if (c == '\\') {
			int e = lex_ch(L, 1);
			if (e != '"' && e != '\\') {
				free(z);
				krl_pos ep = lex_pos(L);
				return krl_diag_set(L->d, KRL_ESYNTAX, ep,
				                    "expected '\\\"' or '\\\\' in a "
				                    "string, found '\\%c'",
				                    e < 0 || e == '\n' ? ' ' : e);
			}
			lex_adv(L);
			c = e;
		}
		if (n + 2 > cap) {
			cap *= 2;
			char *nz = realloc(z, cap);
			if (!nz) {
				free(z);
				return krl_diag_set(L->d, KRL_ENOMEM, pos,
				                    "out of memory");
			}
			z = nz;
		}
		z[n++] = (char)c;
		lex_adv(L);
	}
	z[n] = 0;
	krl_tok *t = lex_push(L, KRL_T_STRING, pos, start);
	if (!t) {
		free(z);
		return KRL_ENOMEM;
	}
	t->str = z;
	return KRL_OK;
}

/* Lexes one bracket or operator character, tracking ( [ nesting. */
static krl_err lex_punct(krl_lexer *L, int c)
{
	krl_pos pos = lex_pos(L);
	size_t start = L->i;
	if (c == '-' && lex_ch(L, 1) == '>') {
		lex_adv(L);
		lex_adv(L);
		return lex_push(L, KRL_T_ARROW, pos, start) ? KRL_OK : KRL_ENOMEM;
	}
	if (c == '(' || c == '[') {
		if (L->depth < KRL_LEX_MAX_NEST) {
			L->open[L->depth] = pos;
			L->openc[L->depth] = (char)c;
		}
		L->depth++;
	} else if ((c == ')' || c == ']') && L->depth > 0) {
		/* A mismatched closer is the parser's to report, with context. */
		L->depth--;
	}
	lex_adv(L);
	krl_tok *t = lex_push(L, KRL_T_PUNCT, pos, start);
	if (!t)
		return KRL_ENOMEM;
	t->c = (char)c;
	return KRL_OK;
}

krl_err krl_lex(const char *file, const char *text, size_t len, int line,
                int col, krl_tok **out, int *n, krl_diag *d)
{
	krl_lexer L;
	memset(&L, 0, sizeof L);
	L.file = file;
	L.s = text;
	L.len = len;
	L.line = line;
	L.col = col;
	L.d = d;
	krl_err r = KRL_OK;

	while (L.i < L.len) {
		int c = lex_ch(&L, 0);
		if (c == '\n') {
			krl_pos pos = lex_pos(&L);
			lex_adv(&L);
			if (L.depth == 0 && (r = lex_newline(&L, pos)))
				goto cleanup;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
		           c == '\v') {
			lex_adv(&L);
		} else if (c == '#') {
			while (L.i < L.len && L.s[L.i] != '\n')
				lex_adv(&L);
		} else if (c == '\\') {
			/* A continuation: only blanks may follow up to the newline. */
			krl_pos pos = lex_pos(&L);
			size_t k = 1;
			while (lex_ch(&L, k) == ' ' || lex_ch(&L, k) == '\t' ||
			       lex_ch(&L, k) == '\r')
				k++;
			if (lex_ch(&L, k) != '\n' && lex_ch(&L, k) >= 0) {
				r = krl_diag_set(d, KRL_ESYNTAX, pos,
				                 "expected a newline after the line "
				                 "continuation '\\'");
				goto cleanup;
			}
			for (size_t j = 0; j <= k; j++)
				lex_adv(&L);
		} else if (isalpha(c) || c == '_') {
			krl_pos pos = lex_pos(&L);
			size_t start = L.i;
			while (lex_ch(&L, 0) >= 0 &&
			       (isalnum(lex_ch(&L, 0)) || lex_ch(&L, 0) == '_'))
				lex_adv(&L);
			if (!lex_push(&L, KRL_T_IDENT, pos, start)) {
				r = KRL_ENOMEM;
				goto cleanup;
			}
		} else if (c >= '0' && c <= '9') {
			if ((r = lex_number(&L)))
				goto cleanup;
		} else if (c == '"') {
			if ((r = lex_string(&L)))
				goto cleanup;
		} else if (c > 0 && strchr("()[],=+-*/%", c)) {
			if ((r = lex_punct(&L, c)))
				goto cleanup;
		} else {
			if (c >= 0x20 && c < 0x7f)
				r = krl_diag_set(d, KRL_ESYNTAX, lex_pos(&L),
				                 "unexpected character '%c'", c);
			else
				r = krl_diag_set(d, KRL_ESYNTAX, lex_pos(&L),
				                 "unexpected byte 0x%02x", c);
			goto cleanup;
		}
	}
	if (L.depth > 0) {
		int k = L.depth <= KRL_LEX_MAX_NEST ? L.depth - 1 :
		        KRL_LEX_MAX_NEST - 1;
		r = krl_diag_set(d, KRL_ESYNTAX, L.open[k],
		                 "'%c' is never closed: expected '%c' before the "
		                 "end of the text", L.openc[k],
		                 L.openc[k] == '(' ? ')' : ']');
		goto cleanup;
	}
	krl_pos end = lex_pos(&L);
	if ((r = lex_newline(&L, end)))
		goto cleanup;
	if (!lex_push(&L, KRL_T_EOF, end, L.i)) {
		r = KRL_ENOMEM;
		goto cleanup;
	}
	*out = L.toks;
	*n = L.n;
	return KRL_OK;
cleanup:
	krl_toks_free(L.toks, L.n);
	*out = NULL;
	*n = 0;
	return r;
}

void krl_toks_free(krl_tok *t, int n)
{
	if (!t)
		return;
	for (int i = 0; i < n; i++)
		free(t[i].str);
	free(t);
}

const char *krl_tok_describe(const krl_tok *t, char *buf, size_t cap)
{
	switch (t->kind) {
	case KRL_T_EOF:
		snprintf(buf, cap, "end of file");
		break;
	case KRL_T_NL:
		snprintf(buf, cap, "end of line");
		break;
	case KRL_T_STRING:
		snprintf(buf, cap, "string \"%s\"", t->str ? t->str : "");
		break;
	default:
		snprintf(buf, cap, "'%.*s'", (int)(t->len > 60 ? 60 : t->len),
		         t->text);
		break;
	}
	return buf;
}

/* ==== Parser helpers ==== */

krl_tok *krl_p_peek(krl_parser *p)
{
	return &p->toks[p->i];
}

krl_tok *krl_p_next(krl_parser *p)
{
	krl_tok *t = &p->toks[p->i];
	if (t->kind != KRL_T_EOF)
		p->i++;
	return t;
}

int krl_p_is(krl_parser *p, char c)
{
	krl_tok *t = krl_p_peek(p);
	return t->kind == KRL_T_PUNCT && t->c == c;
}

int krl_p_is_word(krl_parser *p, const char *z)
{
	krl_tok *t = krl_p_peek(p);
	return t->kind == KRL_T_IDENT && t->len == strlen(z) &&
	       memcmp(t->text, z, t->len) == 0;
}

int krl_p_accept(krl_parser *p, char c)
{
	if (!krl_p_is(p, c))
		return 0;
	krl_p_next(p);
	return 1;
}

void krl_p_skip_nl(krl_parser *p)
{
	while (krl_p_peek(p)->kind == KRL_T_NL)
		krl_p_next(p);
}

krl_err krl_p_expected(krl_parser *p, const char *what)
{
	char buf[128];
	krl_tok *t = krl_p_peek(p);
	return krl_diag_set(p->d, KRL_ESYNTAX, t->pos, "expected %s, found %s",
	                    what, krl_tok_describe(t, buf, sizeof buf));
}

krl_err krl_p_expect(krl_parser *p, char c)
{
	if (krl_p_accept(p, c))
		return KRL_OK;
	char what[8];
	snprintf(what, sizeof what, "'%c'", c);
	return krl_p_expected(p, what);
}

char *krl_tok_strdup(const krl_tok *t)
{
	char *z = malloc(t->len + 1);
	if (!z)
		return NULL;
	memcpy(z, t->text, t->len);
	z[t->len] = 0;
	return z;
}

krl_err krl_p_ident(krl_parser *p, const char *what, char **out)
{
	krl_tok *t = krl_p_peek(p);
	if (t->kind != KRL_T_IDENT)
		return krl_p_expected(p, what);
	*out = krl_tok_strdup(t);
	if (!*out)
		return krl_diag_set(p->d, KRL_ENOMEM, t->pos, "out of memory");
	krl_p_next(p);
	return KRL_OK;
}

krl_err krl_p_eol(krl_parser *p)
{
	krl_tok *t = krl_p_peek(p);
	if (t->kind == KRL_T_NL) {
		krl_p_next(p);
		return KRL_OK;
	}
	if (t->kind == KRL_T_EOF)
		return KRL_OK;
	return krl_p_expected(p, "the end of the statement");
}
