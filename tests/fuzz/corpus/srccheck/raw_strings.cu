const char *s = R"x(
#include "x"
)x", *t = u8R"(/*)", *u = LR"()";
#include "x"
FOOR"x(";
