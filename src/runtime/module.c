/*
 * Loaded candidate modules: one cubin in the current context, with a
 * CUfunction for every kernel the candidate declares.
 */
#include <stdlib.h>

#include "krl/runtime.h"
#include "runtime/cudacheck.h"
#include "runtime/module.h"

krl_err krl_module_load(const krl_cubin *cb, const krl_candidate *cand,
                        krl_module **out, krl_diag *d)
{
	krl_err r = KRL_OK;
	const krl_drv *drv = krl_drv_get(d);
	krl_module *m = NULL;
	*out = NULL;
	if (!drv)
		return KRL_ENODEVICE;
	m = calloc(1, sizeof *m);
	if (!m)
		return KRL_ENOMEM;
	m->nfuncs = cand->nkernels;
	m->funcs = calloc((size_t)(cand->nkernels ? cand->nkernels : 1),
	                  sizeof *m->funcs);
	if (!m->funcs) {
		r = KRL_ENOMEM;
		goto out;
	}
	CU_CHECK(d, KRL_ELAUNCH, drv->ModuleLoadData(&m->mod, cb->data));
	for (int i = 0; i < cand->nkernels; i++)
		CU_CHECK(d, KRL_ELAUNCH,
		         drv->ModuleGetFunction(&m->funcs[i], m->mod,
		                                cand->kernels[i].name));
	*out = m;
	m = NULL;
out:
	krl_module_free(m);
	return r;
}

void krl_module_free(krl_module *m)
{
	if (!m)
		return;
	const krl_drv *drv = krl_drv_get(NULL);
	if (m->mod && drv)
		drv->ModuleUnload(m->mod);
	free(m->funcs);
	free(m);
}
