#define CAT(a,b) a##b
#define STR(x) #x
#define S2(x) %:x
#define P2(a,b) a%:%:b
int f(int a, int b, int c) { return a < b > c; }
