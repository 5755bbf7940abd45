#pragma unroll 4
#pragma once
#pragma pack(push, 1)
#pragma
#pragma GCC dependency "/etc/passwd"
#pragma STDC FP_CONTRACT ON
#define unroll 4
