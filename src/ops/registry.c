/*
 * kernelrl: the op registry (docs/ops.md): the families' tables gathered
 * into one list, and lookup by name.
 *
 * Each family (src/ops/<family>/family.c) exports one descriptor,
 * krl_family_<name>; this file lists the descriptors once. Adding an op
 * edits its family's table only; adding a family adds one line here.
 * CPU code only (the fuzzers compile it).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops_int.h"

static const krl_op_family *const families[] = {
	&krl_family_matmul, &krl_family_eltwise, &krl_family_reduce,
	&krl_family_norm, &krl_family_conv, &krl_family_shape,
	&krl_family_rnn,
};

#define NFAMILIES ((int)(sizeof families / sizeof families[0]))

_Static_assert(NFAMILIES <= KRL_OPS_MAX_FAMILIES,
               "a krl_opctx has KRL_OPS_MAX_FAMILIES state slots");

const krl_op_family *const *krl_op_families(int *n)
{
	if (n)
		*n = NFAMILIES;
	return families;
}

int krl_ops_family_slot(const krl_op_family *f)
{
	for (int i = 0; i < NFAMILIES; i++)
		if (families[i] == f)
			return i;
	return -1;
}

static const krl_op **flat;
static int nflat;
static pthread_once_t flat_once = PTHREAD_ONCE_INIT;

/* One flat list of every family's ops, in the order of families[], built
 * once. On allocation failure the list is empty (krl_op_find finds
 * nothing, and the program builder says the op is unknown). */
static void build_flat(void)
{
	int n = 0;
	for (int f = 0; f < NFAMILIES; f++)
		for (int i = 0; families[f]->ops[i]; i++)
			n++;
	flat = malloc((size_t)n * sizeof *flat);
	if (!flat)
		return;
	for (int f = 0; f < NFAMILIES; f++)
		for (int i = 0; families[f]->ops[i]; i++)
			flat[nflat++] = families[f]->ops[i];
}

const krl_op *krl_op_find(const char *z)
{
	if (!z)
		return NULL;
	pthread_once(&flat_once, build_flat);
	for (int i = 0; i < nflat; i++)
		if (strcmp(flat[i]->name, z) == 0)
			return flat[i];
	return NULL;
}

const krl_op *const *krl_op_all(int *n)
{
	pthread_once(&flat_once, build_flat);
	if (n)
		*n = nflat;
	return flat;
}
