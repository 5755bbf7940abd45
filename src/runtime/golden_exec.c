/*
 * The golden executor: runs a reference plan on the CPU with the op
 * library's float64 golden ops, buffer by buffer, in plan order. It is the
 * ground truth the GPU reference is checked against, and lets CPU-only
 * machines compute a task's reference output on small shape sets
 * (krl audit-tasks, tests). Candidate kernels cannot run here.
 */
#include <stdlib.h>
#include <string.h>

#include "krl/ops.h"
#include "krl/runtime.h"

/* Buffer i of p as a tensor over bufs: a view (KRL_ROLE_VIEW) reads its
 * root's array from its offset on, so views need no array of their own. */
static void view(krl_tensor *t, const krl_program *p, double *const *bufs,
                 int i)
{
	const krl_buf *b = &p->bufs[i];
	krl_buf_tensor(b, b->role == KRL_ROLE_VIEW ? bufs[b->alias] + b->offset
	                                           : bufs[i], t);
}

krl_err krl_exec_golden(const krl_program *p, double *const *bufs,
                        krl_diag *d)
{
	for (int i = 0; i < p->nbody; i++) {
		const krl_step *s = &p->body[i];
		krl_tensor in[KRL_MAX_CALL_IN], out[KRL_MAX_CALL_OUT];
		krl_pos at = s->src ? s->src->pos : (krl_pos){0};
		if (s->kind != KRL_ST_CALL)
			return krl_diag_set(d, KRL_EUNSUPPORTED, at,
			                    "kernel launches have no CPU golden version");
		if (!s->op->golden)
			return krl_diag_set(d, KRL_EUNSUPPORTED, at,
			                    "op %s has no golden version", s->op->name);
		for (int k = 0; k < s->nin; k++)
			view(&in[k], p, bufs, s->in[k]);
		for (int k = 0; k < s->nout; k++)
			view(&out[k], p, bufs, s->out[k]);
		krl_err r = s->op->golden(in, out, &s->attrs);
		if (r != KRL_OK)
			return krl_diag_set(d, r, at, "golden %s failed: %s",
			                    s->op->name, krl_strerror(r));
	}
	return KRL_OK;
}
