#if __has_include(<cuda_fp16.h>)
#endif
#define H __has_include_next
__pragma(once)
int a$__has_include;
