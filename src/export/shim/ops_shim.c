/*
 * libkrl_ops (docs/export.md): krl_ops_call, the C ABI that exported
 * candidates call their plan's library ops through. One op context per
 * (device, stream), created on first use and kept for the process.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "krl/ops.h"
#include "krl_ops_shim.h"
#include "runtime/cudacheck.h"

#define SHIM_MAX_CTX 64

static _Thread_local char shim_err[1100];

typedef struct shim_ctx {
	int device;
	void *stream;
	krl_opctx *ctx;
} shim_ctx;

static shim_ctx shim_ctxs[SHIM_MAX_CTX];
static int shim_nctx;
static pthread_mutex_t shim_lock = PTHREAD_MUTEX_INITIALIZER;

const char *krl_ops_error(void)
{
	return shim_err;
}

static int shim_fail(const char *op, const char *msg)
{
	snprintf(shim_err, sizeof shim_err, "krl_ops %s: %s", op, msg);
	return -1;
}

/* The op context of (current device, stream), made on first use. */
static krl_opctx *shim_context(void *stream, krl_diag *d)
{
	int dev = 0;
	if (cudaGetDevice(&dev) != cudaSuccess) {
		krl_pos np = { 0, 0, 0 };
		krl_diag_set(d, KRL_ENODEVICE, np, "no current CUDA device");
		return NULL;
	}
	krl_opctx *c = NULL;
	pthread_mutex_lock(&shim_lock);
	for (int i = 0; i < shim_nctx; i++)
		if (shim_ctxs[i].device == dev && shim_ctxs[i].stream == stream)
			c = shim_ctxs[i].ctx;
	if (!c) {
		if (shim_nctx == SHIM_MAX_CTX) {
			krl_pos np = { 0, 0, 0 };
			krl_diag_set(d, KRL_EINVAL, np, "more than %d streams "
			             "used with library ops", SHIM_MAX_CTX);
		} else if (krl_opctx_create(stream, &c, d) == KRL_OK) {
			shim_ctxs[shim_nctx].device = dev;
			shim_ctxs[shim_nctx].stream = stream;
			shim_ctxs[shim_nctx].ctx = c;
			shim_nctx++;
		}
	}
	pthread_mutex_unlock(&shim_lock);
	return c;
}

static void shim_tensor(krl_tensor *t, const krl_ops_tensor *s)
{
	memset(t, 0, sizeof *t);
	t->data = s->data;
	t->dtype = (krl_dtype)s->dtype;
	t->ndim = s->ndim;
	for (int i = 0; i < s->ndim && i < KRL_MAX_DIM; i++)
		t->dim[i] = s->dim[i];
}

int krl_ops_call(const char *op, const krl_ops_tensor *in, int nin,
                 const krl_ops_tensor *out, int nout, int nattr,
                 const char *const *keys, const double *vals, void *stream)
{
	shim_err[0] = 0;
	const krl_op *o = krl_op_find(op);
	if (!o)
		return shim_fail(op, "no such op in this libkrl_ops");
	if (!krl_op_takes_nin(o, nin) || nout != o->nout ||
	    nin > KRL_MAX_CALL_IN || nout > KRL_MAX_CALL_OUT ||
	    nattr < 0 || nattr > KRL_MAX_ATTR)
		return shim_fail(op, "wrong number of operands or attributes");
	krl_tensor ti[KRL_MAX_CALL_IN], to[KRL_MAX_CALL_OUT];
	for (int i = 0; i < nin; i++) {
		if (in[i].ndim < 0 || in[i].ndim > KRL_MAX_DIM ||
		    in[i].dtype < 0 || in[i].dtype >= KRL_DTYPE_COUNT)
			return shim_fail(op, "bad input tensor");
		shim_tensor(&ti[i], &in[i]);
	}
	for (int i = 0; i < nout; i++) {
		if (out[i].ndim < 0 || out[i].ndim > KRL_MAX_DIM ||
		    out[i].dtype < 0 || out[i].dtype >= KRL_DTYPE_COUNT)
			return shim_fail(op, "bad output tensor");
		shim_tensor(&to[i], &out[i]);
	}
	krl_attrs a;
	memset(&a, 0, sizeof a);
	a.nin = nin;
	a.n = nattr;
	for (int i = 0; i < nattr; i++) {
		a.key[i] = keys[i];
		a.val[i] = vals[i];
	}
	char msg[1024];
	if (o->check(ti, to, &a, msg, sizeof msg) != KRL_OK)
		return shim_fail(op, msg);
	krl_diag d;
	memset(&d, 0, sizeof d);
	krl_opctx *c = shim_context(stream, &d);
	if (!c || o->run(c, ti, to, &a, &d) != KRL_OK)
		return shim_fail(op, krl_diag_format(&d, msg, sizeof msg));
	return 0;
}

/* ==== CUDA errors ====
 * libkrl_ops's own krl_cuda_fail (runtime/cudacheck.h's CUDA_TRY calls
 * it): libkrl's lives in src/runtime/device.c beside the driver API, which
 * this library does not link. */
krl_err krl_cuda_fail(krl_diag *d, cudaError_t e, const char *expr,
                      const char *file, int line)
{
	krl_err code = e == cudaErrorMemoryAllocation ? KRL_EDEVMEM
	             : e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver
	               ? KRL_ENODEVICE : KRL_ECUDA;
	krl_pos none = { 0, 0, 0 };
	return krl_diag_set(d, code, none, "%s:%d: %s: %s (%s)", file, line,
	                    expr, cudaGetErrorString(e), cudaGetErrorName(e));
}
