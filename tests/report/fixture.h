/*
 * The report tests' fixture (tests/report/test_*.c): a small store built
 * through the store API (two runs; ok, wrong_output, compile_error and
 * no_candidate evaluations with speedups and intervals; a task name with
 * "<&>" and a candidate whose source tries to close the page's tags) and
 * a results JSONL with PyTorch's peer columns from two commits. Static
 * functions: each test includes it once.
 */
#ifndef KRL_TEST_REPORT_FIXTURE_H
#define KRL_TEST_REPORT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krl/store.h"
#include "testutil.h"

#define FX_EVIL "lvl/<&>evil\"'"
#define FX_EVIL_SRC                                                        \
	"// evil: closes the page's tags\n</code></pre></details><script>"   \
	"alert(1)</script><img src=\"https://example.com/x.png\">\n"

static void fx_eval(krl_store *st, int64_t run, const char *slot,
                    const char *task, const char *source, const char *verdict,
                    double speedup, double lo, double hi, double roof,
                    const char *what)
{
	krl_diag d = {0};
	krl_eval_row row;
	memset(&row, 0, sizeof row);
	row.run_id = run;
	snprintf(row.slot, sizeof row.slot, "%s", slot);
	snprintf(row.task, sizeof row.task, "%s", task);
	snprintf(row.verdict, sizeof row.verdict, "%s", verdict);
	if (source)
		KRL_ASSERT_OK(krl_store_put_candidate(st, source, strlen(source),
		                                      row.cand_hash, &d), &d);
	row.speedup = speedup;
	row.ci_low = lo;
	row.ci_high = hi;
	char rec[512], comp[256];
	if (!strcmp(verdict, "ok"))
		snprintf(rec, sizeof rec,
		         "{\"verdict\":\"ok\",\"device\":\"NVIDIA H200\","
		         "\"precision\":\"fp32\",\"timing_mode\":\"stream\","
		         "\"baseline\":\"krl eager reference\",\"time_set\":\"kb1\","
		         "\"roofline\":{\"fraction\":%.3f}}", roof);
	else
		snprintf(rec, sizeof rec, "{\"verdict\":\"%s\"}", verdict);
	snprintf(comp, sizeof comp, "krl-choice: x\nwhat: %s\n", what ? what : "");
	row.record = rec;
	row.completion = comp;
	KRL_ASSERT_OK(krl_store_add_eval(st, &row, &d), &d);
	row.record = row.completion = NULL;
}

/* Makes dir/krl.db and dir/results.jsonl. */
static void fx_make(const char *dir)
{
	char path[512];
	krl_diag d = {0};
	krl_store *st = NULL;
	int64_t r1, r2;
	int resumed;
	snprintf(path, sizeof path, "%s/krl.db", dir);
	KRL_ASSERT_OK(krl_store_open(path, &st, &d), &d);
	KRL_ASSERT_OK(krl_store_run_begin(st, "level1/19_relu/builtin/kb1/b6",
	                                  "{\"task\":\"level1/19_relu\","
	                                  "\"shapes\":\"kb1\"}",
	                                  &r1, &resumed, &d), &d);
	fx_eval(st, r1, "r0/k0", "level1/19_relu", "// relu A\nA", "ok", 1.25,
	        1.2, 1.3, 0.55, "the reference plan");
	fx_eval(st, r1, "r0/k1", "level1/19_relu", "// relu B\nB",
	        "wrong_output", 0, 0, 0, 0, NULL);
	fx_eval(st, r1, "r1/k0", "level1/19_relu", "// relu C\nC",
	        "compile_error", 0, 0, 0, 0, NULL);
	fx_eval(st, r1, "r1/k1", "level1/19_relu", NULL, "no_candidate", 0, 0,
	        0, 0, NULL);
	fx_eval(st, r1, "r2/k0", "level1/19_relu",
	        "// relu D: vectorized, 8 blocks per SM\nD", "ok", 2.345, 2.301,
	        2.389, 0.812, "fused <b>relu</b> & vectorized x4");
	fx_eval(st, r1, "r2/k1", "level1/19_relu", "// relu E\nE", "ok", 1.9,
	        1.8, 2.0, 0.7, "slower variant");
	KRL_ASSERT_OK(krl_store_run_begin(st, "evil-run-<&>",
	                                  "{\"task\":\"" "lvl/<&>evil\\\"'"
	                                  "\",\"shapes\":\"kb1\"}",
	                                  &r2, &resumed, &d), &d);
	fx_eval(st, r2, "r0/k0", FX_EVIL, FX_EVIL_SRC, "ok", 1.5, 1.4, 1.6,
	        1.37, NULL);
	fx_eval(st, r2, "r0/k1", FX_EVIL, "// x\nX", "compile_error", 0, 0, 0,
	        0, NULL);
	krl_store_close(st);

	snprintf(path, sizeof path, "%s/results.jsonl", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"problem\":\"level1/19_relu\",\"shapes\":\"kb1\","
	      "\"ref_ms\":1.1725,\"best_ms\":0.5,\"speedup\":2.345,"
	      "\"ci_low\":2.301,\"ci_high\":2.389,\"roofline\":0.812,"
	      "\"verdict\":\"ok\",\"evaluations\":6,\"commit\":\"aaaa1111\","
	      "\"date\":\"2026-12-01T10:00:00Z\",\"gpu\":\"NVIDIA H200\","
	      "\"torch_eager_ms\":1.234,\"torch_graph_ms\":1.0,"
	      "\"torch_compile_ms\":0.75,\"best_torch_ms\":0.75,"
	      "\"torch_version\":\"2.11.0+cu130\"}\n", f);
	fputs("\n", f); /* a blank line is skipped */
	fputs("{\"problem\":\"lvl/<&>evil\\\"'\",\"shapes\":\"kb1\","
	      "\"ref_ms\":3.0,\"best_ms\":2.0,\"speedup\":1.5,"
	      "\"ci_low\":1.4,\"ci_high\":1.6,\"roofline\":1.37,"
	      "\"verdict\":\"ok\",\"evaluations\":2,\"commit\":\"bbbb2222\","
	      "\"date\":\"2026-12-01T11:00:00Z\",\"torch_eager_ms\":3.3,"
	      "\"torch_graph_ms\":null,\"torch_graph_error\":\"capture <failed>\","
	      "\"torch_compile_ms\":2.2,\"best_torch_ms\":2.2}\n", f);
	fputs("{\"task\":\"level1/999_only_peers\",\"torch_eager_ms\":4.0,"
	      "\"torch_graph_ms\":3.5,\"torch_compile_ms\":3.9,"
	      "\"best_torch_ms\":3.5}\n", f);
	assert_int_equal(fclose(f), 0);
}

/* The whole file (caller frees), failing the test when unreadable. */
static char *fx_read(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *z = malloc((size_t)n + 1);
	assert_non_null(z);
	assert_int_equal(fread(z, 1, (size_t)n, f), (size_t)n);
	z[n] = 0;
	fclose(f);
	return z;
}

#endif
