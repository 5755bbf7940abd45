/*
 * kernelrl: the names one shape set of a task gives its expressions
 * (scope.h): its keys, the task's consts and sm_count. The one builder of
 * them, for the plan resolver (program.c) and the optimizer (src/opt/).
 */
#include <stdlib.h>
#include <string.h>

#include "lang/scope.h"

krl_err krl_setscope_init(krl_setscope *s, const krl_task *t,
                          const krl_shapeset *set, int64_t sm_count,
                          krl_diag *d)
{
	krl_pos pos = { t->path, 0, 0 };
	memset(s, 0, sizeof *s);
	int cap = set->n + t->nconsts + 1;
	s->names = calloc((size_t)cap, sizeof *s->names);
	s->values = calloc((size_t)cap, sizeof *s->values);
	if (!s->names || !s->values)
		return krl_diag_set(d, KRL_ENOMEM, pos, "out of memory");
	s->scope.names = s->names;
	s->scope.values = s->values;
	for (int i = 0; i < set->n; i++) {
		s->names[s->scope.n] = set->keys[i];
		s->values[s->scope.n].i = set->vals[i];
		s->values[s->scope.n].f = (double)set->vals[i];
		s->scope.n++;
	}
	for (int i = 0; i < t->nconsts; i++) {
		krl_value v;
		krl_err r = krl_expr_eval(t->const_vals[i], &s->scope, &v, d);
		if (r)
			return r;
		s->names[s->scope.n] = t->const_names[i];
		s->values[s->scope.n++] = v;
	}
	s->names[s->scope.n] = "sm_count";
	s->values[s->scope.n].i = sm_count;
	s->values[s->scope.n].f = (double)sm_count;
	s->scope.n++;
	return KRL_OK;
}

void krl_setscope_free(krl_setscope *s)
{
	free(s->names);
	free(s->values);
	memset(s, 0, sizeof *s);
}
