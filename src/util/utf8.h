/*
 * UTF-8 hygiene for text that leaves kernelrl (records, logs, prompts):
 * cutting at a character boundary and replacing what is not valid UTF-8,
 * so that JSON encoders (which refuse invalid UTF-8 and drop the whole
 * string) never lose a message. Private to libkrl.
 */
#ifndef KRL_UTIL_UTF8_H
#define KRL_UTIL_UTF8_H

#include <stddef.h>

/* The length of the valid UTF-8 character at s[0..n) (n >= 1), or 0 when
 * s does not start one (RFC 3629: no overlong forms, no surrogates, at
 * most U+10FFFF). */
size_t krl_utf8_char_len(const char *s, size_t n);

/* The length of the longest prefix of s[0..n) that is at most cap bytes
 * and does not end inside a multi-byte character (s itself need not be
 * valid UTF-8: an invalid byte counts as a character of its own). */
size_t krl_utf8_cut(const char *s, size_t n, size_t cap);

/* Replaces, in place, every byte that does not start or continue a valid
 * UTF-8 character (overlong forms, surrogates and code points above
 * U+10FFFF included) with '?', and every control character other than
 * '\n' and '\t' with '?'. Returns how many bytes were replaced. */
size_t krl_utf8_scrub(char *s);

#endif
