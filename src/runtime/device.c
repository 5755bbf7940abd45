/*
 * The device: selection, properties, the NVRTC architecture, and access to
 * the driver API through the runtime's entry-point query.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "krl/runtime.h"
#include "runtime/cudacheck.h"

/* ==== Error reporting ==== */

/* __FILE__ from its last "src/" on (the build passes absolute paths), or
 * as it is. */
static const char *src_path(const char *file)
{
	const char *p = file, *best = NULL;
	while ((p = strstr(p, "src/")) != NULL) {
		if (p == file || p[-1] == '/')
			best = p;
		p += 4;
	}
	return best ? best : file;
}

krl_err krl_cuda_fail(krl_diag *d, cudaError_t e, const char *expr,
                      const char *file, int line)
{
	krl_err code = KRL_ECUDA;
	if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
	    e == cudaErrorInitializationError)
		code = KRL_ENODEVICE;
	else if (e == cudaErrorMemoryAllocation)
		code = KRL_EDEVMEM;
	krl_pos none = {0};
	return krl_diag_set(d, code, none, "%s:%d: %s: %s (%s)",
	                    src_path(file), line, expr, cudaGetErrorString(e),
	                    cudaGetErrorName(e));
}

krl_err krl_cu_fail(krl_diag *d, krl_err code, CUresult e, const char *expr,
                    const char *file, int line)
{
	const char *name = "?", *text = "?";
	const krl_drv *drv = krl_drv_get(NULL);
	if (drv) {
		drv->GetErrorName(e, &name);
		drv->GetErrorString(e, &text);
	}
	krl_pos none = {0};
	return krl_diag_set(d, code, none, "%s:%d: %s: %s (%s, %d)",
	                    src_path(file), line, expr, text, name, (int)e);
}

/* ==== Driver entry points ==== */

static krl_drv drv_table;
static int drv_ok;
static char drv_msg[256];
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;

#define DRV_LOAD(field, sym)                                                  \
	do {                                                                  \
		void *fn_ = NULL;                                             \
		enum cudaDriverEntryPointQueryResult q_;                           \
		cudaError_t e_ = cudaGetDriverEntryPointByVersion(            \
			sym, &fn_, CUDA_VERSION, cudaEnableDefault, &q_);     \
		if (e_ != cudaSuccess || !fn_) {                              \
			snprintf(drv_msg, sizeof drv_msg,                     \
			         "CUDA driver entry point %s unavailable: %s",\
			         sym, cudaGetErrorString(e_));                \
			return;                                               \
		}                                                             \
		memcpy(&drv_table.field, &fn_, sizeof fn_);                   \
	} while (0)

static void drv_load(void)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0) {
		snprintf(drv_msg, sizeof drv_msg, "no CUDA device: %s",
		         e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
		return;
	}
	DRV_LOAD(ModuleLoadData, "cuModuleLoadData");
	DRV_LOAD(ModuleUnload, "cuModuleUnload");
	DRV_LOAD(ModuleGetFunction, "cuModuleGetFunction");
	DRV_LOAD(FuncSetAttribute, "cuFuncSetAttribute");
	DRV_LOAD(FuncGetAttribute, "cuFuncGetAttribute");
	DRV_LOAD(LaunchKernelEx, "cuLaunchKernelEx");
	DRV_LOAD(OccupancyMaxActiveBlocksPerMultiprocessor,
	         "cuOccupancyMaxActiveBlocksPerMultiprocessor");
	DRV_LOAD(GetErrorString, "cuGetErrorString");
	DRV_LOAD(GetErrorName, "cuGetErrorName");
	DRV_LOAD(MemGetAddressRange, "cuMemGetAddressRange");
	drv_ok = 1;
}

const krl_drv *krl_drv_get(krl_diag *d)
{
	pthread_once(&drv_once, drv_load);
	if (!drv_ok) {
		krl_pos none = {0};
		krl_diag_set(d, KRL_ENODEVICE, none, "%s", drv_msg);
		return NULL;
	}
	return &drv_table;
}

/* ==== Device ==== */

int krl_device_count(void)
{
	int n = 0;
	return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

krl_err krl_device_open(int ordinal, krl_device *dev, krl_diag *d)
{
	krl_err r = KRL_OK;
	struct cudaDeviceProp prop;
	memset(dev, 0, sizeof *dev);
	CUDA_CHECK(d, cudaSetDevice(ordinal));
	CUDA_CHECK(d, cudaGetDeviceProperties(&prop, ordinal));
	CUDA_CHECK(d, cudaFree(0)); /* create the primary context now */
	if (!krl_drv_get(d)) {
		r = KRL_ENODEVICE;
		goto out;
	}
	dev->ordinal = ordinal;
	snprintf(dev->name, sizeof dev->name, "%s", prop.name);
	for (int i = 0; i < 16; i++)
		snprintf(dev->uuid + 2 * i, 3, "%02x",
		         (unsigned char)prop.uuid.bytes[i]);
	dev->cc_major = prop.major;
	dev->cc_minor = prop.minor;
	/* The "a" variants unlock architecture-specific instructions (wgmma,
	 * setmaxnreg) on Hopper and later; code built for them runs only on
	 * that exact architecture, which is what we want. */
	snprintf(dev->arch, sizeof dev->arch, "sm_%d%d%s", prop.major,
	         prop.minor, prop.major >= 9 ? "a" : "");
	dev->sm_count = prop.multiProcessorCount;
	dev->l2_bytes = (size_t)prop.l2CacheSize;
	dev->total_mem = prop.totalGlobalMem;
	dev->limits.sm_count = prop.multiProcessorCount;
	dev->limits.max_threads = (unsigned)prop.maxThreadsPerBlock;
	dev->limits.max_smem = (unsigned)prop.sharedMemPerBlockOptin;
	dev->limits.max_cluster = prop.major >= 9 ? 8 : 1;
out:
	return r;
}
