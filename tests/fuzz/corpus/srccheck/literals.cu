x = 1'000'000 + 0x1p-3 + 1.5e+3f; /* c */
char c = '"';
const char *s = "\"/*";
x = 1'+';
#include "x"
