/* Helpers shared by the op tests: tensors over host doubles, attribute
 * lists, and running an op's check and golden version. */
#ifndef KRL_OPTEST_H
#define KRL_OPTEST_H

#include <stdint.h>

#include "krl/ops.h"
#include "testutil.h"

/* A f32 tensor over host doubles with ndim int64_t dims (use I(x)). */
krl_tensor optest_tensor(double *data, int ndim, ...);
#define I(x) ((int64_t)(x))
/* n (const char *key, double value) pairs. */
krl_attrs optest_attrs(int n, ...);
/* Checks, then runs the golden op; both must succeed. */
void optest_golden(const char *name, const krl_tensor *in,
                   const krl_tensor *out, const krl_attrs *a);
/* Asserts got[i] within tol of want[i] for i < n, printing the first
 * element that is not (NaN included). */
void optest_near(const double *got, const double *want, int n, double tol);
/* check() must fail with KRL_EINVAL and a message containing want. */
void optest_rejects(const char *name, const krl_tensor *in,
                    const krl_tensor *out, const krl_attrs *a,
                    const char *want);

#endif
