/*
 * kernelrl: the tokenizer shared by the task and candidate plan languages
 * (private to src/lang/).
 *
 * The languages are line oriented: the lexer turns text into a token array in
 * which a KRL_T_NL token ends each statement. A line ending in `\`, and any
 * newline inside `(...)` or `[...]`, continues the statement instead. `#`
 * comments and blank lines produce nothing. Every token carries its
 * file:line:col position.
 *
 * The small recursive-descent parser state (krl_parser) and its helpers live
 * here too, so that expr.c, plan.c and task.c share one way of reporting
 * "expected X, found Y".
 */
#ifndef KRL_LANG_LEXER_H
#define KRL_LANG_LEXER_H

#include <stddef.h>
#include <stdint.h>

#include "krl/error.h"
#include "krl/lang.h"

typedef enum krl_tokkind {
	KRL_T_EOF,
	KRL_T_NL,     /* end of a statement */
	KRL_T_IDENT,
	KRL_T_INT,
	KRL_T_FLOAT,
	KRL_T_STRING,
	KRL_T_ARROW,  /* -> */
	KRL_T_PUNCT   /* one of ( ) [ ] , = + - * / % */
} krl_tokkind;

typedef struct krl_tok {
	krl_tokkind kind;
	krl_pos pos;
	const char *text;  /* borrowed: the token's characters in the source */
	size_t len;
	char c;            /* KRL_T_PUNCT */
	int64_t ival;      /* KRL_T_INT */
	double fval;       /* KRL_T_FLOAT */
	char *str;         /* KRL_T_STRING, decoded; owned by the token array */
} krl_tok;

/*
 * Tokenizes text[0..len). Positions use file (borrowed, must outlive the
 * tokens) and start at line:col, so that a plan inside a comment block maps
 * to the real file position. On success *out is a malloc'd array of *n
 * tokens ending with KRL_T_EOF; free it with krl_toks_free. Errors are
 * KRL_ESYNTAX (bad character, number, string, unclosed bracket) or
 * KRL_ENOMEM, with d set.
 */
krl_err krl_lex(const char *file, const char *text, size_t len, int line,
                int col, krl_tok **out, int *n, krl_diag *d);
void krl_toks_free(krl_tok *t, int n);

/* Writes a human description of t ("'float'", "end of line", "end of
 * file") into buf and returns buf. */
const char *krl_tok_describe(const krl_tok *t, char *buf, size_t cap);

/* ==== Parser state ==== */

typedef struct krl_parser {
	krl_tok *toks;
	int n;
	int i;           /* the current token; never past the final EOF */
	krl_diag *d;
} krl_parser;

/* The current token (never NULL: the array ends with EOF). */
krl_tok *krl_p_peek(krl_parser *p);
/* Returns the current token and moves on (stays on EOF). */
krl_tok *krl_p_next(krl_parser *p);
/* 1 when the current token is the punctuation c. */
int krl_p_is(krl_parser *p, char c);
/* 1 when the current token is the identifier z. */
int krl_p_is_word(krl_parser *p, const char *z);
/* Consumes punctuation c and returns 1, or returns 0 and leaves it. */
int krl_p_accept(krl_parser *p, char c);
/* Skips statement separators (KRL_T_NL). */
void krl_p_skip_nl(krl_parser *p);

/* Sets p->d to "expected <what>, found <current token>" at the current
 * token and returns KRL_ESYNTAX. */
krl_err krl_p_expected(krl_parser *p, const char *what);
/* Consumes punctuation c or fails with "expected 'c', found ...". */
krl_err krl_p_expect(krl_parser *p, char c);
/* Consumes an identifier and returns a malloc'd copy in *out (caller
 * frees), or fails with "expected <what>, found ...". */
krl_err krl_p_ident(krl_parser *p, const char *what, char **out);
/* Consumes the end of the statement (KRL_T_NL or EOF) or fails. */
krl_err krl_p_eol(krl_parser *p);

/* malloc'd copy of t's text (caller frees); NULL on allocation failure. */
char *krl_tok_strdup(const krl_tok *t);

#endif
