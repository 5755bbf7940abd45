_Pragma("unroll")
_Pragma(L"nv_diag_suppress 177")
#define P(x) _Pragma(#x)
_Pragma("GCC dependency \"/etc/passwd\"")
_Pragma(
"once")
