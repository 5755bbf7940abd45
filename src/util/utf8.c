/* UTF-8 hygiene (util/utf8.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

/* krl_utf8_char_len (utf8.h) on bytes. */
static size_t char_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t k;
	uint32_t cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		k = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		k = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		k = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < k)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return k;
}

size_t krl_utf8_char_len(const char *s, size_t n)
{
	return char_len((const unsigned char *)s, n);
}

size_t krl_utf8_cut(const char *s, size_t n, size_t cap)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		size_t k = char_len(u + i, n - i);
		if (k == 0)
			k = 1;
		if (i + k > cap)
			break;
		i += k;
	}
	return i;
}

size_t krl_utf8_scrub(char *s)
{
	unsigned char *u = (unsigned char *)s;
	size_t n = strlen(s), i = 0, bad = 0;
	while (i < n) {
		size_t k = char_len(u + i, n - i);
		if (k == 0 || (u[i] < 0x20 && u[i] != '\n' && u[i] != '\t') ||
		    u[i] == 0x7f) {
			u[i] = '?';
			bad++;
			k = 1;
		}
		i += k;
	}
	return bad;
}
