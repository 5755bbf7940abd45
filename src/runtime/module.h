/* The layout of a loaded module (private to the runtime). */
#ifndef KRL_MODULE_H
#define KRL_MODULE_H

#include <cuda.h>

struct krl_module {
	CUmodule mod;
	CUfunction *funcs;       /* indexed like krl_candidate.kernels */
	int nfuncs;
};

#endif
