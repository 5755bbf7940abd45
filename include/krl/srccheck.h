/*
 * kernelrl: the include rule, checked over a candidate's device source
 * before NVRTC sees it (src/runtime/nvrtc.c calls it before every compile).
 *
 * NVRTC resolves #include against the host file system and quotes what it
 * includes in its log, so a candidate that could include any file could
 * read host files (/etc/passwd, /proc/self/environ) into the logs the
 * policy is trained on. The rule: device code may include only headers of
 * the CUDA toolkit, written <name>, and nothing else that reaches a file or
 * a pragma the checker cannot see through.
 *
 * The checker runs translation phases 1-3 of C++17 (line splices, comments,
 * literals, raw strings, pp-numbers) and scans every directive, including
 * those inside #if 0: it evaluates no conditional and expands no macro, so
 * it is conservative. Whatever compilers might read differently (a lone
 * carriage return, a backslash before trailing blanks, trigraphs, an
 * unterminated literal or comment, `$` or non-ASCII bytes just before a
 * quote) is refused rather than guessed at. What is refused:
 *
 *  - a NUL or other control byte (tab, LF, VT, FF and CR-LF aside), a
 *    backslash followed by blanks and a newline, a trigraph outside comments
 *    and ??/ inside them, a universal character name outside literals;
 *  - an unterminated comment, string, character or raw string literal; an
 *    invalid raw string delimiter; a raw string that spans lines inside a
 *    directive (GCC ends it there); a digit separator ' not followed by a
 *    letter, digit or _; a name holding $ or non-ASCII bytes just before a
 *    quote (a name right after a literal is its ud-suffix, so the quote
 *    after it starts an ordinary literal, never a raw string);
 *  - a directive other than define, undef, if, ifdef, ifndef, elif,
 *    elifdef, elifndef, else, endif, error, warning, pragma, line, include
 *    and the null directive (# alone);
 *  - an #include that is not exactly <name> (a name of [A-Za-z0-9_][...]
 *    segments joined by '/') followed by nothing but comments, or whose
 *    name is not a regular file under one of the include directories (the
 *    first directory holding the name decides, as in the compiler's search,
 *    and the file's real path must stay inside that directory);
 *  - #line with anything but a decimal number;
 *  - a #pragma or _Pragma("...") other than unroll, nounroll, once, pack,
 *    push_macro, pop_macro, message, nv_diag* and diag_*; _Pragma not
 *    written out as _Pragma ( "string" ); a #define of one of those pragma
 *    names (pragmas may be macro-expanded);
 *  - the identifiers __has_include*, __has_embed* and __pragma, and every
 *    proper prefix of _Pragma, __has_include and __has_embed (_, __h,
 *    _Prag): ## could complete one into the name, and the checker expands
 *    no macro; in a name holding $ or non-ASCII bytes, any of those as a
 *    piece of it;
 *  - a name (or number) holding "pragma", "has_include" or "has_embed" in
 *    any case, _Pragma and the directive name aside: the toolkit's own
 *    macros _CCCL_PRAGMA(x) and _CCCL_HAS_INCLUDE(x) wrap _Pragma and
 *    __has_include.
 *
 * Thread-safe: no global state.
 */
#ifndef KRL_SRCCHECK_H
#define KRL_SRCCHECK_H

#include <stddef.h>

#include "krl/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks device source src[0..len) (need not be NUL-terminated; src may be
 * NULL when len is 0) named `name` (used as the file in diagnostics; may be
 * NULL) against the include rule, resolving <header> names against
 * dirs[0..ndirs), which must be the include directories NVRTC is given, in
 * the same order. With ndirs == 0 every #include is refused.
 *
 * Returns KRL_OK, or KRL_ECOMPILE with d (if not NULL) set: d->pos =
 * {name, line, col} of the offending token (1-based physical line and
 * column in the original text, counting bytes; for a directive, its '#')
 * and d->msg saying what was found and what is allowed. The message quotes
 * at most ~60 bytes of the candidate's own text (bytes that are not
 * printable ASCII become '?') and never anything of a file. Reads no byte
 * past len; time linear in len, plus a few file-system look-ups per
 * distinct header name. Cannot fail otherwise. */
krl_err krl_srccheck(const char *src, size_t len, const char *name,
                     const char *const *dirs, int ndirs, krl_diag *d);

#ifdef __cplusplus
}
#endif
#endif
