/*
 * The executor: runs the steps of a resolved plan on one stream. Launches go
 * through cuLaunchKernelEx (clusters, cooperative launch); calls go to the
 * op library. Nothing here synchronises: the caller decides when to wait and
 * how to time.
 */
#include <string.h>

#include "krl/runtime.h"
#include "runtime/cudacheck.h"
#include "runtime/module.h"

#define MAX_ARGS 64

static krl_err step_fail(krl_diag *d, const krl_step *s, krl_err r)
{
	/* Keep the underlying message, prefix the statement's position. */
	char inner[sizeof d->msg];
	memcpy(inner, d->msg, sizeof inner);
	return krl_diag_set(d, r, s->src ? s->src->pos : (krl_pos){0},
	                    "%s %s: %s",
	                    s->kind == KRL_ST_LAUNCH ? "launch" : "call",
	                    s->src ? s->src->name : "?", inner);
}

static krl_err run_launch(const krl_step *s, void *const *bufs,
                          const krl_module *mod, void *stream, krl_diag *d)
{
	krl_err r = KRL_OK;
	const krl_drv *drv = krl_drv_get(d);
	void *params[MAX_ARGS];
	void *ptrs[MAX_ARGS];
	CUlaunchAttribute attrs[2];
	CUlaunchConfig cfg;
	if (!drv)
		return KRL_ENODEVICE;
	if (!mod || s->kernel < 0 || s->kernel >= mod->nfuncs ||
	    s->nargs > MAX_ARGS) {
		krl_pos none = {0};
		return krl_diag_set(d, KRL_EINVAL, none,
		                    "launch has no loaded kernel or too many arguments");
	}
	for (int i = 0; i < s->nargs; i++) {
		const krl_karg *a = &s->args[i];
		if (a->buf >= 0) {
			ptrs[i] = bufs[a->buf];
			params[i] = &ptrs[i];
		} else {
			params[i] = (void *)a->bytes;
		}
	}
	memset(&cfg, 0, sizeof cfg);
	cfg.gridDimX = s->grid[0];
	cfg.gridDimY = s->grid[1];
	cfg.gridDimZ = s->grid[2];
	cfg.blockDimX = s->block[0];
	cfg.blockDimY = s->block[1];
	cfg.blockDimZ = s->block[2];
	cfg.sharedMemBytes = s->smem;
	cfg.hStream = (CUstream)stream;
	cfg.attrs = attrs;
	if (s->cluster[0]) {
		attrs[cfg.numAttrs].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
		attrs[cfg.numAttrs].value.clusterDim.x = s->cluster[0];
		attrs[cfg.numAttrs].value.clusterDim.y = s->cluster[1];
		attrs[cfg.numAttrs].value.clusterDim.z = s->cluster[2];
		cfg.numAttrs++;
	}
	if (s->cooperative) {
		attrs[cfg.numAttrs].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
		attrs[cfg.numAttrs].value.cooperative = 1;
		cfg.numAttrs++;
	}
	CU_CHECK(d, KRL_ELAUNCH,
	         drv->LaunchKernelEx(&cfg, mod->funcs[s->kernel], params, NULL));
out:
	return r;
}

void krl_buf_tensor(const krl_buf *b, void *data, krl_tensor *t)
{
	t->data = data;
	t->dtype = b->dtype;
	t->ndim = b->ndim;
	memcpy(t->dim, b->dim, sizeof b->dim);
}

krl_err krl_exec(const krl_program *p, const krl_step *steps, int n,
                 void *const *bufs, const krl_module *mod, krl_opctx *ops,
                 void *stream, krl_diag *d)
{
	/* the task's precision tier, for the ops' library choices */
	krl_opctx_set_tf32(ops, p->tf32);
	for (int i = 0; i < n; i++) {
		const krl_step *s = &steps[i];
		krl_err r;
		if (s->kind == KRL_ST_LAUNCH) {
			r = run_launch(s, bufs, mod, stream, d);
		} else {
			krl_tensor in[KRL_MAX_CALL_IN], out[KRL_MAX_CALL_OUT];
			for (int k = 0; k < s->nin; k++)
				krl_buf_tensor(&p->bufs[s->in[k]], bufs[s->in[k]],
				               &in[k]);
			for (int k = 0; k < s->nout; k++)
				krl_buf_tensor(&p->bufs[s->out[k]], bufs[s->out[k]],
				               &out[k]);
			r = s->op->run(ops, in, out, &s->attrs, d);
		}
		if (r != KRL_OK)
			return step_fail(d, s, r);
	}
	return KRL_OK;
}

krl_err krl_exec_prepare(const krl_program *p, const krl_module *mod,
                         krl_diag *d)
{
	krl_err r = KRL_OK;
	const krl_drv *drv;
	if (!mod)
		return KRL_OK;
	drv = krl_drv_get(d);
	if (!drv)
		return KRL_ENODEVICE;
	for (int f = 0; f < mod->nfuncs; f++) {
		unsigned need = 0;
		for (int pass = 0; pass < 2; pass++) {
			const krl_step *st = pass ? p->init : p->body;
			int n = pass ? p->ninit : p->nbody;
			for (int i = 0; i < n; i++)
				if (st[i].kind == KRL_ST_LAUNCH &&
				    st[i].kernel == f && st[i].smem > need)
					need = st[i].smem;
		}
		if (need > 48u * 1024u)
			CU_CHECK(d, KRL_ELAUNCH,
			         drv->FuncSetAttribute(
				         mod->funcs[f],
				         CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
				         (int)need));
	}
out:
	return r;
}
