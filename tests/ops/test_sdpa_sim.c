/*
 * sdpa's CUDA kernels on the CPU: builds tests/ops/sdpa_sim.cpp (the
 * kernels of src/ops/norm/sdpa.cuh against the CUDA stand-in
 * tests/opt/cudasim.h) with the C++ compiler ($CXX, else g++) and runs it;
 * it checks every output of the tiled and rows kernels, plain, causal,
 * relu and both, against attention in double (a missing barrier before
 * the P V step, or a mask one key late, fails it). Skips (exit 77) where
 * no C++ compiler is found. Run from the source folder (ctest does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static const char *cxx(void)
{
	const char *c = getenv("CXX");
	return c && *c ? c : "g++";
}

static void kernels_match_double(void **state)
{
	(void)state;
	char dir[] = "/tmp/krl-sdpa-sim-XXXXXX", cmd[1024];
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof cmd, "%s -O1 -std=c++17 -I tests/opt -I src "
	         "tests/ops/sdpa_sim.cpp -o %s/sdpa_sim > %s/cc.log 2>&1", cxx(),
	         dir, dir);
	int rc = system(cmd);
	if (rc != 0) {
		snprintf(cmd, sizeof cmd, "cat %s/cc.log >&2", dir);
		(void)system(cmd);
	}
	assert_int_equal(rc, 0);
	snprintf(cmd, sizeof cmd, "%s/sdpa_sim", dir);
	rc = system(cmd);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	(void)system(cmd);
	assert_int_equal(rc, 0);
}

int main(void)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "%s --version > /dev/null 2>&1", cxx());
	if (system(cmd) != 0) {
		printf("SKIP: no C++ compiler (%s) to build the CUDA stand-in\n",
		       cxx());
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kernels_match_double),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
