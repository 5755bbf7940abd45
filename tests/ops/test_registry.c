/*
 * kernelrl tests: the op registry as the families make it (docs/ops.md):
 * every registered op belongs to exactly one family descriptor (its
 * `family` names it and that family's table holds it), names are unique,
 * and each op declares exactly one of KRL_OPCAP_LOWER / KRL_OPCAP_LIBRARY
 * (what the optimizer may do with it). CPU only: reads tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "krl/ops.h"

/* The family descriptor named name, or NULL. */
static const krl_op_family *family_named(const char *name)
{
	int nf = 0;
	const krl_op_family *const *f = krl_op_families(&nf);
	for (int i = 0; name && i < nf; i++)
		if (strcmp(f[i]->name, name) == 0)
			return f[i];
	return NULL;
}

/* How many times op appears in family f's table. */
static int count_in(const krl_op_family *f, const krl_op *op)
{
	int n = 0;
	for (int i = 0; f->ops[i]; i++)
		n += f->ops[i] == op;
	return n;
}

static void test_families(void **state)
{
	(void)state;
	int nf = 0;
	const krl_op_family *const *f = krl_op_families(&nf);
	assert_true(nf >= 5);
	int total = 0;
	for (int i = 0; i < nf; i++) {
		assert_non_null(f[i]->name);
		assert_non_null(f[i]->ops);
		assert_non_null(f[i]->ops[0]);    /* no empty family */
		for (int j = 0; j < i; j++)
			assert_string_not_equal(f[i]->name, f[j]->name);
		for (int k = 0; f[i]->ops[k]; k++)
			total++;
	}
	/* krl_op_all lists every family's ops, and nothing else. */
	int n = 0;
	krl_op_all(&n);
	assert_int_equal(n, total);
}

static void test_every_op(void **state)
{
	(void)state;
	int n = 0, nf = 0;
	const krl_op *const *all = krl_op_all(&n);
	const krl_op_family *const *f = krl_op_families(&nf);
	assert_true(n > 20);
	for (int i = 0; i < n; i++) {
		const krl_op *op = all[i];
		assert_non_null(op->name);
		/* its family is one of the descriptors, and holds it once */
		const krl_op_family *fam = family_named(op->family);
		if (!fam)
			fail_msg("op %s: family '%s' is no registered family",
			         op->name, op->family ? op->family : "(null)");
		assert_int_equal(count_in(fam, op), 1);
		for (int j = 0; j < nf; j++)
			if (f[j] != fam)
				assert_int_equal(count_in(f[j], op), 0);
		/* a unique name */
		for (int j = 0; j < i; j++)
			if (strcmp(all[j]->name, op->name) == 0)
				fail_msg("op %s is registered twice", op->name);
		assert_ptr_equal(krl_op_find(op->name), op);
		/* exactly one of lowered / library call */
		int lower = (op->caps & KRL_OPCAP_LOWER) != 0;
		int lib = (op->caps & KRL_OPCAP_LIBRARY) != 0;
		if (lower + lib != 1)
			fail_msg("op %s: caps 0x%x must hold exactly one "
			         "of KRL_OPCAP_LOWER and KRL_OPCAP_LIBRARY",
			         op->name, op->caps);
		assert_non_null(op->check);
		assert_non_null(op->golden);
		assert_non_null(op->run);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_every_op),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
