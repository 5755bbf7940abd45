/*
 * GPU tests of the timing gate (src/runtime/gate.cu): work enqueued behind
 * a closed gate does not run until the host opens it, then does, and the
 * wait says it did not give way; a gate never opened gives way after its
 * time limit and says so; tickets keep working over many rounds. Skips
 * itself (exit 77) without a GPU.
 */
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "testutil.h"
#include "krl/gate.h"

#define CU(call) assert_int_equal((call), cudaSuccess)

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* An event recorded behind the gate stays pending while it is closed. */
static void test_holds_until_opened(void **state)
{
	(void)state;
	krl_diag d = { 0 };
	krl_gate *g = NULL;
	cudaStream_t s;
	cudaEvent_t ev;
	CU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CU(cudaEventCreate(&ev));
	KRL_ASSERT_OK(krl_gate_create(5000.0, &g, &d), &d);
	for (int round = 0; round < 3; round++) {
		KRL_ASSERT_OK(krl_gate_close(g, s, &d), &d);
		CU(cudaEventRecord(ev, s));
		sleep_ms(50);
		assert_int_equal(cudaEventQuery(ev), cudaErrorNotReady);
		krl_gate_open(g);
		CU(cudaEventSynchronize(ev));
		assert_int_equal(krl_gate_gave_way(g), 0);
	}
	/* many rounds: the ticket advances each time */
	for (int round = 0; round < 200; round++) {
		KRL_ASSERT_OK(krl_gate_close(g, s, &d), &d);
		krl_gate_open(g);
	}
	CU(cudaStreamSynchronize(s));
	assert_int_equal(krl_gate_gave_way(g), 0);
	krl_gate_destroy(g);
	CU(cudaEventDestroy(ev));
	CU(cudaStreamDestroy(s));
}

/* A gate nobody opens gives way after its limit (20 ms), and says so; the
 * next close and open works normally. */
static void test_gives_way(void **state)
{
	(void)state;
	krl_diag d = { 0 };
	krl_gate *g = NULL;
	cudaStream_t s;
	CU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	KRL_ASSERT_OK(krl_gate_create(20.0, &g, &d), &d);
	KRL_ASSERT_OK(krl_gate_close(g, s, &d), &d);
	CU(cudaStreamSynchronize(s)); /* would hang without the limit */
	assert_int_equal(krl_gate_gave_way(g), 1);
	krl_gate_open(g); /* late: the wait is over already */
	KRL_ASSERT_OK(krl_gate_close(g, s, &d), &d);
	krl_gate_open(g);
	CU(cudaStreamSynchronize(s));
	assert_int_equal(krl_gate_gave_way(g), 0);
	krl_gate_destroy(g);
	CU(cudaStreamDestroy(s));
}

int main(void)
{
	krl_test_require_gpu("gpu_gate");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_holds_until_opened),
		cmocka_unit_test(test_gives_way),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
