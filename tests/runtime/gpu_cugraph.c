/*
 * A plan captured in a CUDA graph (src/runtime/cugraph.c) on a GPU: a
 * capture whose op would have to grow its workspace is refused naming the
 * statement, leaves the stream usable and not capturing; after one
 * uncaptured run the same plan captures, and a replay on new inputs
 * written into the same buffers reproduces the stream run bit for bit
 * (the graph reads the buffers, not the values they held at capture).
 * Skips itself (exit 77) without a GPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "testutil.h"
#include "krl/lang.h"
#include "krl/ops.h"
#include "krl/runtime.h"

/* relu into a plan buffer, then roll along two dims: the op library's roll
 * keeps the first roll in the context's temporary buffer, which a fresh
 * context has yet to allocate (line 11: the roll statement). */
static const char task_text[] =
	"task      graphroll\n"
	"shapes    kb0   a=64 b=1000\n"
	"shapes    kb1   a=64 b=1000\n"
	"shapes    tiny  a=5 b=7\n"
	"input     x  f32 [a, b]  normal(0, 1)\n"
	"output    y  f32 [a, b]\n"
	"tolerance atol=1e-7 rtol=1e-6\n"
	"plan\n"
	"  buffer t f32 [a, b]\n"
	"  call relu(x) -> t\n"
	"  call roll(t) -> y dim0=0 shift0=1 dim1=1 shift1=2\n"
	"end\n";
#define ROLL_LINE 11

static void capture_refuses_then_replays(void **state)
{
	(void)state;
	krl_device dev;
	krl_diag d = {0};
	cudaStream_t s = NULL;
	krl_opctx *ops = NULL;
	krl_task *t = NULL;
	krl_program *p = NULL;
	krl_cugraph *g = NULL;
	KRL_ASSERT_OK(krl_device_open(0, &dev, &d), &d);
	assert_int_equal(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
	                 cudaSuccess);
	KRL_ASSERT_OK(krl_opctx_create(s, &ops, &d), &d);
	KRL_ASSERT_OK(krl_task_parse("graphroll.task", task_text,
	                             strlen(task_text), &t, &d), &d);
	KRL_ASSERT_OK(krl_program_build(t, NULL, "kb0", &dev.limits, &p, &d),
	              &d);
	void **ptrs = calloc((size_t)p->nbufs, sizeof *ptrs);
	assert_non_null(ptrs);
	for (int i = 0; i < p->nbufs; i++)
		if (p->bufs[i].role != KRL_ROLE_VIEW)
			assert_int_equal(cudaMalloc(&ptrs[i], p->bufs[i].bytes),
			                 cudaSuccess);
	krl_program_bind_views(p, ptrs, 0);
	int ix = -1, iy = -1;
	for (int i = 0; i < p->ntask; i++) {
		if (!strcmp(p->bufs[i].name, "x"))
			ix = i;
		if (!strcmp(p->bufs[i].name, "y"))
			iy = i;
	}
	assert_true(ix >= 0 && iy >= 0);
	int64_t n = p->bufs[ix].numel;
	float *hx = malloc((size_t)n * sizeof *hx);
	float *want = malloc((size_t)n * sizeof *want);
	float *got = malloc((size_t)n * sizeof *got);
	assert_true(hx && want && got);
	for (int64_t i = 0; i < n; i++)
		hx[i] = (float)sin(0.37 * (double)i);
	assert_int_equal(cudaMemcpy(ptrs[ix], hx, (size_t)n * sizeof *hx,
	                            cudaMemcpyHostToDevice), cudaSuccess);

	/* 1. no warm-up: roll's temporary would grow during the capture */
	krl_err r = krl_cugraph_capture(p, p->body, p->nbody, ptrs, NULL, ops,
	                                s, &g, &d);
	printf("refused: %s (line %d)\n", d.msg, d.pos.line);
	assert_int_equal(r, KRL_EUNSUPPORTED);
	assert_null(g);
	assert_non_null(strstr(d.msg, "cannot be captured in a CUDA graph"));
	assert_non_null(strstr(d.msg, "roll"));
	assert_non_null(strstr(d.msg, "during a graph capture"));
	assert_int_equal(d.pos.line, ROLL_LINE);
	enum cudaStreamCaptureStatus cs = cudaStreamCaptureStatusActive;
	assert_int_equal(cudaStreamIsCapturing(s, &cs), cudaSuccess);
	assert_int_equal(cs, cudaStreamCaptureStatusNone);
	assert_int_equal(cudaGetLastError(), cudaSuccess);

	/* 2. the stream still works: one uncaptured run (the warm-up) */
	KRL_ASSERT_OK(krl_exec(p, p->body, p->nbody, ptrs, NULL, ops, s, &d),
	              &d);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);

	/* 3. now it captures: at least one node per call */
	KRL_ASSERT_OK(krl_cugraph_capture(p, p->body, p->nbody, ptrs, NULL, ops,
	                                  s, &g, &d), &d);
	assert_non_null(g);
	printf("captured: %d nodes\n", krl_cugraph_nodes(g));
	assert_true(krl_cugraph_nodes(g) >= 2);

	/* 4. new inputs in the same buffer: the stream run's output ... */
	for (int64_t i = 0; i < n; i++)
		hx[i] = (float)cos(1.3 * (double)i) * 3.0f;
	assert_int_equal(cudaMemcpy(ptrs[ix], hx, (size_t)n * sizeof *hx,
	                            cudaMemcpyHostToDevice), cudaSuccess);
	KRL_ASSERT_OK(krl_exec(p, p->body, p->nbody, ptrs, NULL, ops, s, &d),
	              &d);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(cudaMemcpy(want, ptrs[iy], (size_t)n * sizeof *want,
	                            cudaMemcpyDeviceToHost), cudaSuccess);
	/* ... and the replay's, on a poisoned output, agree bit for bit */
	assert_int_equal(cudaMemset(ptrs[iy], 0xFF, p->bufs[iy].bytes),
	                 cudaSuccess);
	KRL_ASSERT_OK(krl_cugraph_launch(g, s, &d), &d);
	assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
	assert_int_equal(cudaMemcpy(got, ptrs[iy], (size_t)n * sizeof *got,
	                            cudaMemcpyDeviceToHost), cudaSuccess);
	assert_memory_equal(got, want, (size_t)n * sizeof *got);
	/* the expected values themselves: relu, then the roll by (1, 2) */
	int64_t a = p->bufs[iy].dim[0], b = p->bufs[iy].dim[1];
	for (int64_t i = 0; i < a; i++)
		for (int64_t k = 0; k < b; k++) {
			int64_t si = (i - 1 + a) % a, sk = (k - 2 + b) % b;
			float v = hx[si * b + sk];
			assert_true(got[i * b + k] == (v > 0 ? v : 0.0f));
		}

	krl_cugraph_free(g);
	for (int i = 0; i < p->nbufs; i++)
		if (p->bufs[i].role != KRL_ROLE_VIEW)
			cudaFree(ptrs[i]);
	free(ptrs);
	free(hx);
	free(want);
	free(got);
	krl_program_free(p);
	krl_task_free(t);
	krl_opctx_free(ops);
	cudaStreamDestroy(s);
}

int main(void)
{
	krl_test_require_gpu("runtime_gpu_cugraph");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(capture_refuses_then_replays),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
