/* Verdict records: setting the verdict, and human-readable summaries. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/judge_int.h"
#include "krl/judge.h"
#include "util/json.h"
#include "util/strbuf.h"

int krl_judge_verdict(json_t *rec, krl_verdict v, json_t *detail,
                      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = krl_vfmt(fmt, ap); /* whole: a record's data is never cut */
	va_end(ap);
	json_object_set_new(rec, "verdict", json_string(krl_verdict_name(v)));
	/* candidate and compiler text may be invalid UTF-8 or cut inside a
	 * character: never let that drop the message */
	json_object_set_new(rec, "message",
	                    krl_json_text(msg ? msg : "(out of memory)"));
	free(msg);
	if (detail)
		json_object_set_new(rec, "failure", detail);
	return 1;
}

static double num(const json_t *o, const char *a, const char *b)
{
	const json_t *x = json_object_get(o, a);
	if (b)
		x = json_object_get(x, b);
	return json_number_value(x);
}

void krl_record_print(FILE *f, const json_t *rec)
{
	const char *v = json_string_value(json_object_get(rec, "verdict"));
	const char *msg = json_string_value(json_object_get(rec, "message"));
	const json_t *tm = json_object_get(rec, "timing");
	const json_t *rl = json_object_get(rec, "roofline");
	fprintf(f, "%s  %s  %s\n", v ? v : "?",
	        json_string_value(json_object_get(rec, "task")),
	        json_string_value(json_object_get(rec, "candidate")));
	if (v && strcmp(v, "ok") != 0) {
		fprintf(f, "  %s\n", msg ? msg : "");
		return;
	}
	if (!tm) {
		fprintf(f, "  %s (not timed)\n", msg ? msg : "");
		return;
	}
	/* the record's mode (records before graph mode say "stream" at the
	 * top level only) and its precision tier */
	const char *mode = json_string_value(json_object_get(tm, "mode"));
	if (!mode)
		mode = json_string_value(json_object_get(rec, "timing_mode"));
	const char *prec = json_string_value(json_object_get(rec, "precision"));
	fprintf(f,
	        "  speedup %.3fx  95%% CI [%.3f, %.3f]  over the eager reference"
	        " (%s shapes, %s, %s timing, %d interleaved pairs, L2 flushed)\n",
	        num(tm, "speedup", "median"), num(tm, "speedup", "ci_low"),
	        num(tm, "speedup", "ci_high"),
	        json_string_value(json_object_get(tm, "set")),
	        prec ? prec : "fp32", mode ? mode : "stream",
	        (int)json_integer_value(json_object_get(tm, "pairs")));
	const json_t *g = json_object_get(tm, "graph");
	if (g)
		fprintf(f, "  CUDA graphs: candidate %d nodes (captured in %.1f ms), "
		        "reference %d nodes (%.1f ms)\n",
		        (int)json_integer_value(json_object_get(g, "cand_nodes")),
		        num(g, "cand_capture_ms", NULL),
		        (int)json_integer_value(json_object_get(g, "ref_nodes")),
		        num(g, "ref_capture_ms", NULL));
	fprintf(f,
	        "  candidate %.4f ms (mean %.4f, min %.4f)   reference %.4f ms "
	        "(mean %.4f, min %.4f)\n",
	        num(tm, "cand_ms", "median"), num(tm, "cand_ms", "mean"),
	        num(tm, "cand_ms", "min"), num(tm, "ref_ms", "median"),
	        num(tm, "ref_ms", "mean"), num(tm, "ref_ms", "min"));
	if (rl)
		fprintf(f,
		        "  roofline %.0f%% of the %s-bound floor %.4f ms "
		        "(reference %.0f%%)\n",
		        100 * num(rl, "fraction", NULL),
		        json_string_value(json_object_get(rl, "bound")),
		        num(rl, "floor_ms", NULL), 100 * num(rl, "ref_fraction", NULL));
	fprintf(f, "  %s; %d timed outputs verified\n", msg ? msg : "",
	        (int)json_integer_value(json_object_get(tm, "verified")));
}
