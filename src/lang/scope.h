/*
 * kernelrl: the names one shape set of a task gives its expressions
 * (internal to the library: src/lang/program.c resolves plans with it,
 * src/opt/ evaluates graph dims and attributes with it).
 */
#ifndef KRL_LANG_SCOPE_H
#define KRL_LANG_SCOPE_H

#include "krl/lang.h"

/* The set's shape keys, then the task's consts (each may use the keys and
 * the consts before it), then sm_count: scope.names, scope.values and
 * scope.n point into the arrays below, which it owns. scope.bufs and
 * scope.nbufs are left 0 for the caller (buffer shapes are its own). */
typedef struct krl_setscope {
	krl_scope scope;
	const char **names;
	krl_value *values;
} krl_setscope;

/* Builds s for shape set `set` of t with sm_count as the device's SM
 * count. KRL_ENOMEM, or a const's evaluation error (d set at the const).
 * Free with krl_setscope_free, also after a failure. */
krl_err krl_setscope_init(krl_setscope *s, const krl_task *t,
                          const krl_shapeset *set, int64_t sm_count,
                          krl_diag *d);
/* Frees what s owns and zeroes it; a zeroed s is a no-op. */
void krl_setscope_free(krl_setscope *s);

#endif
