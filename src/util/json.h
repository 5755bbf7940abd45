/* JSON helpers for text from outside kernelrl (private to libkrl). */
#ifndef KRL_UTIL_JSON_H
#define KRL_UTIL_JSON_H

#include <jansson.h>

/* json_string() of a copy of s made valid by krl_utf8_scrub (NULL s: ""),
 * so that text from candidates and compilers is never dropped (jansson
 * refuses invalid UTF-8). NULL only when memory ran out. */
json_t *krl_json_text(const char *s);

#endif
