/*
 * kernelrl: parsing shared by task and candidate files (private to
 * src/lang/): expressions, buffer declarations and plan statements.
 *
 * Every parse function works on a krl_parser (lexer.h), fills its output and
 * returns KRL_OK, or returns KRL_ESYNTAX / KRL_ENOMEM with p->d set at the
 * offending token. On failure the partial output is left for the caller's
 * usual free (krl_decl_clear, krl_plan_clear), which handles it.
 */
#ifndef KRL_LANG_PLAN_H
#define KRL_LANG_PLAN_H

#include "krl/lang.h"
#include "lexer.h"

/* ==== Expressions (expr.c) ==== */

/* Parses one expression (docs/language.md grammar). Function names and
 * their argument counts are checked here; names are resolved at eval time.
 * *out is a tree to free with krl_expr_free. */
krl_err krl_parse_expr(krl_parser *p, krl_expr **out);

/* ==== Declarations and plans (plan.c) ==== */

/* Parses `NAME DTYPE [dims]` into decl (name, dtype, ndim, dim, pos); the
 * role and distribution are the caller's. decl must start zeroed. */
krl_err krl_parse_decl(krl_parser *p, krl_decl *decl);

/*
 * Parses plan statements into plan, which must start zeroed.
 * reference != 0: a task's reference plan. Only `buffer` and `call` are
 * allowed and the plan ends at a line `end` (consumed); start is where
 * the `plan` keyword was, for the "never closed" message.
 * reference == 0: a candidate plan, up to the end of the tokens; `derived`,
 * `launch` and one `init ... end` block are allowed too.
 */
krl_err krl_plan_parse(krl_parser *p, krl_plan *plan, int reference,
                       krl_pos start);

/* Grows the array *arr (a pointer to a T*, elements of size sz) by one
 * zeroed element and returns it, or NULL when out of memory (the array is
 * then unchanged). Capacity doubles, so the array must start NULL with *n 0
 * and grow only through this function. */
void *krl_lang_grow(void *arr, int *n, size_t sz);

/* Reads the whole file at path into *out (malloc'd, NUL-terminated, caller
 * frees) and its length into *len. KRL_EIO with a message on failure. */
krl_err krl_lang_read_file(const char *path, char **out, size_t *len,
                           krl_diag *d);

/* Frees what a declaration owns and zeroes it. NULL-safe. */
void krl_decl_clear(krl_decl *decl);
/* Frees what a plan owns and zeroes it. NULL-safe. */
void krl_plan_clear(krl_plan *plan);

#endif
