/*
 * Check macros for the CUDA runtime and driver APIs, for every module of
 * the library (one place: the op families and the checks use them too).
 * Each records the failing expression, file and line in a krl_diag; the
 * _CHECK forms jump to the function's single cleanup label `out` with `r`
 * set, CUDA_TRY returns.
 */
#ifndef KRL_CUDACHECK_H
#define KRL_CUDACHECK_H

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "krl/error.h"

#ifdef __cplusplus
extern "C" { /* the .cu files (src/runtime/check.cu, the op families) */
#endif

/* Runtime API: on failure sets r = KRL_ECUDA (KRL_ENODEVICE when there is
 * no usable device or driver, KRL_EDEVMEM when device memory ran out) and
 * jumps to out. The message: "src/<file>:<line>: <expr>: <error> (<name>)". */
#define CUDA_CHECK(d, expr)                                                   \
	do {                                                                  \
		cudaError_t e_ = (expr);                                      \
		if (e_ != cudaSuccess) {                                      \
			r = krl_cuda_fail((d), e_, #expr, __FILE__, __LINE__);\
			goto out;                                             \
		}                                                             \
	} while (0)

/* Runtime API, for functions with nothing to clean up: on failure returns
 * what CUDA_CHECK would set r to. */
#define CUDA_TRY(d, expr)                                                     \
	do {                                                                  \
		cudaError_t e_ = (expr);                                      \
		if (e_ != cudaSuccess)                                        \
			return krl_cuda_fail((d), e_, #expr, __FILE__,        \
			                     __LINE__);                       \
	} while (0)

/* Driver API (through krl_drv()): sets r = `code` and jumps to out. */
#define CU_CHECK(d, code, expr)                                               \
	do {                                                                  \
		CUresult e_ = (expr);                                         \
		if (e_ != CUDA_SUCCESS) {                                     \
			r = krl_cu_fail((d), (code), e_, #expr, __FILE__,     \
			                __LINE__);                            \
			goto out;                                             \
		}                                                             \
	} while (0)

/* What the macros call: record the failure in d (may be NULL) and return
 * its code. file is trimmed to its path from the source tree's src/. */
krl_err krl_cuda_fail(krl_diag *d, cudaError_t e, const char *expr,
                      const char *file, int line);
krl_err krl_cu_fail(krl_diag *d, krl_err code, CUresult e, const char *expr,
                    const char *file, int line);

/* The driver entry points kernelrl uses, resolved once through
 * cudaGetDriverEntryPointByVersion. */
typedef struct krl_drv {
	__typeof__(&cuModuleLoadData) ModuleLoadData;
	__typeof__(&cuModuleUnload) ModuleUnload;
	__typeof__(&cuModuleGetFunction) ModuleGetFunction;
	__typeof__(&cuFuncSetAttribute) FuncSetAttribute;
	__typeof__(&cuFuncGetAttribute) FuncGetAttribute;
	__typeof__(&cuLaunchKernelEx) LaunchKernelEx;
	__typeof__(&cuOccupancyMaxActiveBlocksPerMultiprocessor) OccupancyMaxActiveBlocksPerMultiprocessor;
	__typeof__(&cuGetErrorString) GetErrorString;
	__typeof__(&cuGetErrorName) GetErrorName;
	__typeof__(&cuMemGetAddressRange) MemGetAddressRange;
} krl_drv;

/* The table, or NULL with d set (KRL_ENODEVICE) when the driver is absent. */
const krl_drv *krl_drv_get(krl_diag *d);

#ifdef __cplusplus
}
#endif

#endif
