/*
 * Guarded device buffers: [guard | buffer | guard] in one allocation, so a
 * write past either end of a buffer is found after the call, and so one IPC
 * handle shares the buffer with its guards between the judge and a runner.
 */
#include <stdio.h>
#include <string.h>

#include "krl/check.h"
#include "krl/runtime.h"
#include "runtime/cudacheck.h"

krl_err krl_gbuf_alloc(krl_gbuf *b, size_t bytes, void *stream, krl_diag *d)
{
	krl_err r = KRL_OK;
	memset(b, 0, sizeof *b);
	if (bytes > KRL_MAX_BUFFER_BYTES) {
		krl_pos none = {0};
		return krl_diag_set(d, KRL_EDEVMEM, none,
		                    "a buffer of %zu bytes is larger than any "
		                    "device memory (at most %zu)", bytes,
		                    KRL_MAX_BUFFER_BYTES);
	}
	size_t rounded = (bytes + 255) & ~(size_t)255;
	size_t alloc = rounded + 2 * (size_t)KRL_GUARD_BYTES;
	void *p = NULL;
	CUDA_CHECK(d, cudaMalloc(&p, alloc));
	b->base = p;
	b->ptr = (char *)p + KRL_GUARD_BYTES;
	b->bytes = bytes;
	b->alloc = alloc;
	r = krl_gbuf_reset_guards(b, stream, d);
	if (r != KRL_OK)
		krl_gbuf_free(b);
out:
	return r;
}

void krl_gbuf_free(krl_gbuf *b)
{
	if (!b || !b->base)
		return;
	if (b->opened)
		cudaIpcCloseMemHandle(b->base);
	else
		cudaFree(b->base);
	memset(b, 0, sizeof *b);
}

/* The tail guard starts right at ptr + bytes (not at the 256-byte rounded
 * end), so even a one-element overrun is caught. */
krl_err krl_gbuf_reset_guards(krl_gbuf *b, void *stream, krl_diag *d)
{
	krl_err r = krl_fill_pattern(b->base, KRL_GUARD_BYTES, KRL_GUARD_PATTERN,
	                             stream, d);
	if (r != KRL_OK)
		return r;
	char *tail = (char *)b->ptr + b->bytes;
	size_t tail_bytes = b->alloc - (size_t)(tail - (char *)b->base);
	return krl_fill_pattern(tail, tail_bytes, KRL_GUARD_PATTERN, stream, d);
}

krl_err krl_gbuf_check_guards(const krl_gbuf *b, int64_t *bad, int64_t *where,
                              void *stream, krl_diag *d)
{
	int64_t n1 = 0, f1 = -1, n2 = 0, f2 = -1;
	krl_err r = krl_check_pattern(b->base, KRL_GUARD_BYTES, KRL_GUARD_PATTERN,
	                              &n1, &f1, stream, d);
	if (r != KRL_OK)
		return r;
	char *tail = (char *)b->ptr + b->bytes;
	size_t tail_bytes = b->alloc - (size_t)(tail - (char *)b->base);
	r = krl_check_pattern(tail, tail_bytes, KRL_GUARD_PATTERN, &n2, &f2,
	                      stream, d);
	if (r != KRL_OK)
		return r;
	*bad = n1 + n2;
	if (n1)
		*where = f1 - (int64_t)KRL_GUARD_BYTES;
	else if (n2)
		*where = (int64_t)b->bytes + f2;
	else
		*where = 0;
	return KRL_OK;
}

krl_err krl_gbuf_export(const krl_gbuf *b, char hex[129], krl_diag *d)
{
	krl_err r = KRL_OK;
	cudaIpcMemHandle_t h;
	CUDA_CHECK(d, cudaIpcGetMemHandle(&h, b->base));
	for (size_t i = 0; i < sizeof h.reserved && i < 64; i++)
		snprintf(hex + 2 * i, 3, "%02x", (unsigned char)h.reserved[i]);
	hex[128] = 0;
out:
	return r;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

krl_err krl_gbuf_import(krl_gbuf *b, const char *hex, size_t bytes,
                        krl_diag *d)
{
	krl_err r = KRL_OK;
	cudaIpcMemHandle_t h;
	memset(b, 0, sizeof *b);
	if (strlen(hex) != 128) {
		krl_pos none = {0};
		return krl_diag_set(d, KRL_EINVAL, none,
		                    "IPC handle must be 128 hex digits");
	}
	for (int i = 0; i < 64; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			krl_pos none = {0};
			return krl_diag_set(d, KRL_EINVAL, none,
			                    "IPC handle has a non-hex digit");
		}
		h.reserved[i] = (char)(hi * 16 + lo);
	}
	void *p = NULL;
	if (bytes > KRL_MAX_BUFFER_BYTES) {
		krl_pos none = {0};
		return krl_diag_set(d, KRL_EINVAL, none,
		                    "an IPC buffer of %zu bytes is past the limit",
		                    bytes);
	}
	CUDA_CHECK(d, cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess));
	size_t rounded = (bytes + 255) & ~(size_t)255;
	/* The allocation behind the handle must hold guards and buffer as
	 * this process lays them out: a runner that allocated for another
	 * plan (desynchronised) is caught here, not by a stray access. */
	{
		const krl_drv *drv = krl_drv_get(d);
		CUdeviceptr abase = 0;
		size_t asize = 0;
		size_t want = rounded + 2 * (size_t)KRL_GUARD_BYTES;
		if (!drv || drv->MemGetAddressRange(&abase, &asize,
		                                    (CUdeviceptr)(uintptr_t)p) !=
		                    CUDA_SUCCESS ||
		    abase != (CUdeviceptr)(uintptr_t)p || asize < want) {
			krl_pos none = {0};
			cudaIpcCloseMemHandle(p);
			return krl_diag_set(d, KRL_ERUNNER, none,
			                    "the runner's buffer is %zu bytes, "
			                    "expected at least %zu", asize, want);
		}
	}
	b->base = p;
	b->ptr = (char *)p + KRL_GUARD_BYTES;
	b->bytes = bytes;
	b->alloc = rounded + 2 * (size_t)KRL_GUARD_BYTES;
	b->opened = 1;
out:
	return r;
}
