/*
 * The judge's timing modes on the CPU (docs/judge.md, "Graph timing"):
 * the mode names, the per-task choice of --timing auto, the CLI's
 * --timing option (krl eval, krl time-ref, krl optimize), the record's
 * timing fields as krl_record_print shows them and as the store keeps
 * them, and the capture-refusal explanations (krl_cugraph_hint) and the
 * refusal of a capture without a stream of its own, which need no GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"
#include "krl/judge.h"
#include "krl/runtime.h"
#include "krl/store.h"

/* ==== Names and the per-task choice ==== */

static void names_round_trip(void **state)
{
	(void)state;
	static const char *const names[] = {"stream", "graph", "auto"};
	static const krl_timing_mode modes[] = {KRL_TIMING_STREAM,
	                                        KRL_TIMING_GRAPH, KRL_TIMING_AUTO};
	for (int i = 0; i < 3; i++) {
		krl_timing_mode m = KRL_TIMING_COUNT;
		assert_int_equal(krl_timing_parse(names[i], &m), 0);
		assert_int_equal((int)m, (int)modes[i]);
		assert_string_equal(krl_timing_name(m), names[i]);
	}
	krl_timing_mode m = KRL_TIMING_GRAPH;
	assert_int_equal(krl_timing_parse("Graph", &m), -1);
	assert_int_equal(krl_timing_parse("", &m), -1);
	assert_int_equal(krl_timing_parse(NULL, &m), -1);
	assert_int_equal((int)m, KRL_TIMING_GRAPH); /* untouched on failure */
	assert_string_equal(krl_timing_name(KRL_TIMING_COUNT), "unknown");
	/* the default of a zeroed option struct is auto: stream for levels
	 * 1-2, graph for level 3 */
	krl_judge_opts o = {0};
	assert_int_equal((int)o.timing, KRL_TIMING_AUTO);
}

static void auto_picks_per_task(void **state)
{
	(void)state;
	krl_task l1 = {.id = "level1/19_relu"};
	krl_task l2 = {.id = "level2/1_conv2d_relu_biasadd"};
	krl_task l3 = {.id = "level3/8_resnet_basic_block"};
	krl_task bare = {.name = "relu"}; /* loaded by path: no suite id */
	assert_int_equal(krl_judge_timing_for(KRL_TIMING_AUTO, &l1),
	                 KRL_TIMING_STREAM);
	assert_int_equal(krl_judge_timing_for(KRL_TIMING_AUTO, &l2),
	                 KRL_TIMING_STREAM);
	assert_int_equal(krl_judge_timing_for(KRL_TIMING_AUTO, &l3),
	                 KRL_TIMING_GRAPH);
	assert_int_equal(krl_judge_timing_for(KRL_TIMING_AUTO, &bare),
	                 KRL_TIMING_STREAM);
	assert_int_equal(krl_judge_timing_for(KRL_TIMING_AUTO, NULL),
	                 KRL_TIMING_STREAM);
	/* an explicit mode is never overridden, level 3 included */
	assert_int_equal(krl_judge_timing_for(KRL_TIMING_STREAM, &l3),
	                 KRL_TIMING_STREAM);
	assert_int_equal(krl_judge_timing_for(KRL_TIMING_GRAPH, &l1),
	                 KRL_TIMING_GRAPH);
}

/* ==== The command line ==== */

/* Runs `$KRL_BIN args` with stderr merged into out[cap]; the exit status. */
static int run_krl(const char *args, char *out, size_t cap)
{
	const char *bin = getenv("KRL_BIN");
	char cmd[1024];
	if (!bin)
		bin = "build/krl";
	snprintf(cmd, sizeof cmd, "%s %s 2>&1", bin, args);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = 0;
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void cli_option(void **state)
{
	(void)state;
	static char out[1 << 16];
	const char *bin = getenv("KRL_BIN");
	if (!bin || access(bin, X_OK) != 0)
		skip(); /* ctest sets KRL_BIN */
	/* a bad mode is a usage error naming the choices, before any GPU */
	assert_int_equal(run_krl("eval level1/19_relu "
	                         "examples/level1/19_relu.fast.cu --timing "
	                         "bogus", out, sizeof out), 2);
	assert_non_null(strstr(out, "--timing needs stream, graph or auto"));
	assert_int_equal(run_krl("eval level1/19_relu "
	                         "examples/level1/19_relu.fast.cu --timing",
	                         out, sizeof out), 2);
	assert_non_null(strstr(out, "--timing needs a value"));
	assert_int_equal(run_krl("time-ref level1/19_relu --timing x", out,
	                         sizeof out), 2);
	assert_non_null(strstr(out, "--timing needs stream, graph or auto"));
	assert_int_equal(run_krl("optimize level1/19_relu --timing sometimes",
	                         out, sizeof out), 2);
	assert_non_null(strstr(out, "--timing needs stream, graph or auto"));
	/* the help of each command that takes it says what it does */
	assert_int_equal(run_krl("eval --help", out, sizeof out), 0);
	assert_non_null(strstr(out, "--timing MODE"));
	assert_non_null(strstr(out, "auto\n                     (default: graph for level-3 tasks"));
	assert_int_equal(run_krl("time-ref --help", out, sizeof out), 0);
	assert_non_null(strstr(out, "--timing MODE"));
	assert_int_equal(run_krl("optimize --help", out, sizeof out), 0);
	assert_non_null(strstr(out, "--timing MODE"));
	/* a good mode is accepted: what fails next is the device, not the
	 * option (exit 3 without a GPU, a verdict or 0 with one) */
	int rc = run_krl("eval level1/19_relu examples/level1/19_relu.fast.cu "
	                 "--timing graph --no-timing --shapes tiny", out,
	                 sizeof out);
	assert_true(rc != 2);
}

/* ==== Records ==== */

static const char graph_record[] =
	"{\"task\":\"level1/19_relu\",\"candidate\":\"c.cu\","
	"\"verdict\":\"ok\",\"message\":\"correct\",\"precision\":\"fp32\","
	"\"timing_mode\":\"graph\",\"baseline\":\"krl eager reference, CUDA "
	"graph replay\",\"timing\":{\"set\":\"kb1\",\"mode\":\"graph\","
	"\"pairs\":20,\"verified\":20,\"ref_ms\":{\"median\":2.0,\"mean\":2.0,"
	"\"min\":1.9},\"cand_ms\":{\"median\":1.0,\"mean\":1.0,\"min\":0.9},"
	"\"speedup\":{\"median\":2.0,\"ci_low\":1.9,\"ci_high\":2.1},"
	"\"graph\":{\"ref_nodes\":7,\"cand_nodes\":3,\"ref_capture_ms\":1.5,"
	"\"cand_capture_ms\":0.5}}}";

/* krl_record_print's text of rec. */
static char *printed(const json_t *rec)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	krl_record_print(f, rec);
	fclose(f);
	return buf;
}

static void record_print_states_mode(void **state)
{
	(void)state;
	json_error_t je;
	json_t *rec = json_loads(graph_record, 0, &je);
	assert_non_null(rec);
	char *s = printed(rec);
	assert_non_null(strstr(s, "graph timing"));
	assert_null(strstr(s, "stream timing"));
	assert_non_null(strstr(s, "CUDA graphs: candidate 3 nodes"));
	assert_non_null(strstr(s, "reference 7 nodes"));
	free(s);
	/* a record from before graph mode: the mode at the top level only */
	json_object_del(json_object_get(rec, "timing"), "mode");
	json_object_del(json_object_get(rec, "timing"), "graph");
	json_object_set_new(rec, "timing_mode", json_string("stream"));
	s = printed(rec);
	assert_non_null(strstr(s, "stream timing"));
	assert_null(strstr(s, "CUDA graphs"));
	free(s);
	json_decref(rec);
}

/* What store_keeps_mode reads back: the record's top-level and timing
 * modes, and how many rows. */
typedef struct modes_seen {
	char mode[16], tmode[16];
	int n;
} modes_seen;

static int see_modes(const krl_eval_row *r, void *ctx)
{
	modes_seen *got = ctx;
	json_error_t je;
	json_t *rec = r->record ? json_loads(r->record, 0, &je) : NULL;
	const char *m = json_string_value(json_object_get(rec, "timing_mode"));
	const char *tm = json_string_value(json_object_get(
		json_object_get(rec, "timing"), "mode"));
	snprintf(got->mode, sizeof got->mode, "%s", m ? m : "");
	snprintf(got->tmode, sizeof got->tmode, "%s", tm ? tm : "");
	got->n++;
	json_decref(rec);
	return 0;
}

static void store_keeps_mode(void **state)
{
	(void)state;
	char dir[256], path[300];
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/krl-timing-XXXXXX", t && *t ? t : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/s.db", dir);
	krl_store *st = NULL;
	krl_diag d = {0};
	int64_t run = 0;
	int resumed = 0;
	KRL_ASSERT_OK(krl_store_open(path, &st, &d), &d);
	KRL_ASSERT_OK(krl_store_run_begin(st, "r", "{}", &run, &resumed, &d),
	              &d);
	krl_eval_row row = {.run_id = run, .speedup = 2.0, .ci_low = 1.9,
	                    .ci_high = 2.1};
	snprintf(row.slot, sizeof row.slot, "r0/g0/k0");
	snprintf(row.task, sizeof row.task, "level1/19_relu");
	snprintf(row.verdict, sizeof row.verdict, "ok");
	row.record = (char *)graph_record;
	KRL_ASSERT_OK(krl_store_add_eval(st, &row, &d), &d);
	krl_store_close(st);
	/* reopened: the record comes back with its mode */
	st = NULL;
	modes_seen got = {{0}, {0}, 0};
	KRL_ASSERT_OK(krl_store_open(path, &st, &d), &d);
	KRL_ASSERT_OK(krl_store_foreach_eval(st, run, see_modes, &got, &d), &d);
	krl_store_close(st);
	assert_int_equal(got.n, 1);
	assert_string_equal(got.mode, "graph");
	assert_string_equal(got.tmode, "graph");
	char cmd[400];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* ==== Capture refusals ==== */

static void refusal_hints(void **state)
{
	(void)state;
	/* cudaErrorStreamCaptureUnsupported: a sync, an allocation, a copy
	 * to the host */
	assert_non_null(strstr(krl_cugraph_hint(900), "synchronises"));
	assert_non_null(strstr(krl_cugraph_hint(900), "allocates"));
	/* cudaErrorStreamCaptureInvalidated */
	assert_non_null(strstr(krl_cugraph_hint(901), "invalidated"));
	/* cudaErrorStreamCaptureImplicit: the legacy stream */
	assert_non_null(strstr(krl_cugraph_hint(906), "legacy default stream"));
	/* cudaErrorCapturedEvent */
	assert_non_null(strstr(krl_cugraph_hint(907), "event"));
	/* nothing capture-specific */
	assert_string_equal(krl_cugraph_hint(0), "");
	assert_string_equal(krl_cugraph_hint(2), "");
}

static void capture_needs_a_stream(void **state)
{
	(void)state;
	/* refused before any CUDA call: the legacy default stream cannot be
	 * captured, and nothing is left capturing */
	krl_program p = {0};
	krl_cugraph *g = (krl_cugraph *)&p; /* must be reset */
	krl_diag d = {0};
	assert_int_equal(krl_cugraph_capture(&p, NULL, 0, NULL, NULL, NULL,
	                                     NULL, &g, &d),
	                 KRL_EINVAL);
	assert_null(g);
	assert_non_null(strstr(d.msg, "legacy default stream"));
	assert_int_equal(krl_cugraph_nodes(NULL), 0);
	krl_cugraph_free(NULL);
	assert_int_equal(krl_cugraph_launch(NULL, NULL, &d), KRL_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_round_trip),
		cmocka_unit_test(auto_picks_per_task),
		cmocka_unit_test(cli_option),
		cmocka_unit_test(record_print_states_mode),
		cmocka_unit_test(store_keeps_mode),
		cmocka_unit_test(refusal_hints),
		cmocka_unit_test(capture_needs_a_stream),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
