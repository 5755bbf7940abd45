/* krl optimize (the builtin policy and the LLM), krl export-rollouts,
 * krl export-sft: the contrastive loops and their data. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "krl/judge.h"
#include "krl/optimize.h"
#include "krl/suite.h"

static const char builtin_usage[] =
	"usage: krl optimize TASK... [options]              the builtin policy (default)\n"
	"       krl optimize TASK --policy llm [options]    an LLM (options below)\n"
	"\n"
	"Makes each TASK faster and says by how much. The builtin policy rewrites the\n"
	"task's reference plan: it applies algebraic rules, fuses ops into generated\n"
	"kernels, picks their schedules, runs a GEMM in cuBLASLt or as a generated\n"
	"3xTF32 kernel, picks which of cuBLASLt's or cuDNN's algorithms a library call\n"
	"runs (lib.algo) and whether a cuDNN convolution runs on channels-last (NHWC)\n"
	"copies of its tensors (lib.layout: x, w and y transposed on every call), and\n"
	"whether a transposed convolution runs as a forward one on a flipped weight\n"
	"made in init (lib.tconv; strided ones scattered to the outputs they reach),\n"
	"choosing with weights learned across tasks (krl train).\n"
	"Round 0 judges the default choice, the default with the other GEMM or\n"
	"convolution implementation, layout or recurrence where offered (the\n"
	"layout first where convolutions hold most of the work), then the reference\n"
	"plan itself (fuse=ref; a budget too small for round 0 ends with it when\n"
	"nothing was as fast as the reference); each later round takes earlier correct\n"
	"candidates, drawn by measured speedup, and judges G variations of their\n"
	"choices (see krl eval). Every evaluation is stored: kill it at any moment and\n"
	"run the same command again; it resumes without losing or repeating one.\n"
	"Prints a table: problem, reference and best time, speedup with its 95% CI,\n"
	"roofline fraction, and what the best candidate does (its file is in the work\n"
	"folder).\n"
	"\n"
	"options (builtin):\n"
	"  --budget N          evaluations per problem, round 0 included (default 32)\n"
	"  --group G           proposals per round (default 4)\n"
	"  --weights FILE      the policy's weights (default $KRL_WEIGHTS, else\n"
	"                      policy/builtin.weights)\n"
	"  --no-learn          keep the weights fixed; by default the search takes a\n"
	"                      gradient step after each round (in memory, not saved)\n"
	"  --exemplars N       earlier candidates varied per round (default 2)\n"
	"  --tau T             exemplar sampling temperature (default 1)\n"
	"  --search-seed N     seed of the proposals (default 1)\n"
	"  --patience R        stop a problem's search when R rounds in a row raised\n"
	"                      its best speedup by at most --min-gain (default 0: use\n"
	"                      the whole budget)\n"
	"  --min-gain X        relative gain that counts as progress (default 0.01)\n"
	"  --round0 MODE       fixed (default): round 0 judges the default choice and\n"
	"                      its fixed alternatives (docs/optimizer.md section 5);\n"
	"                      policy: round 0 is a round drawn from the weights,\n"
	"                      their likeliest choice first (what the weights alone\n"
	"                      find; in the run's name)\n"
	"  --results FILE      append one JSON line per problem: problem, shapes, ref_ms,\n"
	"                      best_ms, speedup, ci_low, ci_high, roofline, verdict,\n"
	"                      evaluations, commit ($KRL_COMMIT, else git rev-parse\n"
	"                      HEAD), date\n"
	"  --run NAME          run name in the store (one TASK only; default\n"
	"                      TASK/builtin/SHAPES/bBUDGET/WEIGHTS-FINGERPRINT)\n"
	"  --store DB          the store (default krl.db; --db is the same)\n"
	"  --work-dir DIR      where candidate files are written (default krl-candidates)\n"
	"  --json              print each problem's summary as one JSON line\n"
	"  --workers N         judge workers, each a process with its own judge on\n"
	"                      device --device + i (modulo the devices visible), taking\n"
	"                      the next problem when free; the table and --results come\n"
	"                      out in the problems' order (default: one per visible GPU\n"
	"                      when there are several problems; 1 for one)\n"
	"The judge's timing budget (krl eval's --budget) is --time-budget here.\n"
	"The optimizer generates for the timing shape set (the last of --shapes);\n"
	"candidates are checked on every set given and on hidden ones.\n"
	"\n";

static const char optimize_usage[] =
	"--policy llm runs CUDA-L1's contrastive loop: each round shows the model\n"
	"earlier candidates of the task with their measured speedups, asks for G new\n"
	"ones, judges each (see krl eval), stores every evaluation with its reward and,\n"
	"per round, group-relative advantages. Kill it at any moment and run the same\n"
	"command again: it resumes without losing or repeating an evaluation.\n"
	"\n"
	"options (--policy llm):\n"
	"  --policy P          builtin (the default, above) or llm (an OpenAI-compatible\n"
	"                      server)\n"
	"  --stage S           rl (default): contrastive RL, exemplars with their\n"
	"                      speedups, speedup rewards; selfsup: self-supervised\n"
	"                      rounds, no exemplars, reward 1 for a correct candidate\n"
	"  --base-url URL      chat-completions server, e.g. http://127.0.0.1:8000/v1\n"
	"                      (default $KRL_LLM_BASE_URL or $OPENAI_BASE_URL)\n"
	"  --model NAME        model name (default $KRL_LLM_MODEL)\n"
	"                      the API key comes from $KRL_LLM_API_KEY or $OPENAI_API_KEY\n"
	"  --rounds N          prompts per run (default 4)\n"
	"  --group G           proposals per prompt (default 4)\n"
	"  --exemplars N       earlier candidates shown per prompt (default 2)\n"
	"  --tau T             exemplar sampling temperature (default 1)\n"
	"  --temperature T     sampling temperature sent to the model\n"
	"  --llm-timeout S     per request (default 300); --max-in-flight N (default 8)\n"
	"  --run NAME          run name in the store (default TASK/STAGE)\n"
	"  --db PATH           the store (default krl.db; --store is the same)\n"
	"  --work-dir DIR      where candidate files are written (default krl-candidates)\n"
	"  --json              print the run summary as JSON\n"
	"With --policy llm, --budget keeps krl eval's meaning (the judge's timing\n"
	"budget in seconds) and --time-budget is the same.\n"
	"\n";

/* The judge's options as krl optimize takes them: --budget is the
 * builtin search's, so the judge's timing budget is --time-budget. */
static const char *const judge_renames[] = {"--budget", "--time-budget SEC"};

static void print_help(void)
{
	fputs(builtin_usage, stdout);
	fputs(optimize_usage, stdout);
	krl_cli_print_judge_usage(stdout, judge_renames, 1);
}

static const char sft_usage[] =
	"usage: krl export-sft [--db PATH] [--run NAME] [--min-speedup X] [--out FILE]\n"
	"\n"
	"Writes the supervised fine-tuning set (the paper's data augmentation): one\n"
	"JSON line per distinct correct candidate (its best evaluation: task, prompt,\n"
	"completion, candidate source, speedup, policy), over one run or all runs --\n"
	"runs of several models or policies in one store make one set.\n";

static const char export_usage[] =
	"usage: krl export-rollouts [--db PATH] [--run NAME] [--out FILE]\n"
	"\n"
	"Writes every stored evaluation (all runs, or one) as JSON lines: prompt,\n"
	"completion, reward, advantage, verdict, speedup, task, run, slot; the\n"
	"format verl, OpenRLHF and TRL read (docs/rl.md).\n";

/* The final table: verdict counts and the best candidates. */
static void print_summary(const json_t *sum, const char *timing,
                          const char *tier)
{
	const char *key;
	json_t *v;
	printf("\nrun %s (%s): %lld evaluations, %d correct%s\n",
	       json_string_value(json_object_get(sum, "run")),
	       json_string_value(json_object_get(sum, "stage")),
	       (long long)json_integer_value(json_object_get(sum, "evaluations")),
	       (int)json_integer_value(json_object_get(sum, "correct")),
	       json_is_true(json_object_get(sum, "resumed")) ? " (resumed)" : "");
	printf("  verdicts:");
	json_object_foreach(json_object_get(sum, "verdicts"), key, v)
		printf(" %s %lld", key, (long long)json_integer_value(v));
	printf("\n\n  %-8s %-24s %s\n", "slot", "speedup [95% CI]", "candidate");
	size_t i;
	json_array_foreach(json_object_get(sum, "top"), i, v) {
		char sp[64];
		snprintf(sp, sizeof sp, "%.3fx [%.3f, %.3f]",
		         json_number_value(json_object_get(v, "speedup")),
		         json_number_value(json_object_get(v, "ci_low")),
		         json_number_value(json_object_get(v, "ci_high")));
		printf("  %-8s %-24s %s\n",
		       json_string_value(json_object_get(v, "slot")), sp,
		       json_string_value(json_object_get(v, "file")));
	}
	if (!json_array_size(json_object_get(sum, "top")))
		printf("  (no correct candidate yet)\n");
	printf("\n  speedups: over kernelrl's eager reference, %s, %s "
	       "timing, on the timing shape set\n", tier, timing);
}

/* krl optimize --policy llm: the LLM loop (one TASK). */
static int optimize_llm(int argc, char **argv)
{
	krl_judge_opts jo = {0};
	krl_optimize_opts oo = {0};
	krl_llm_opts lo = {0};
	char sets_buf[512];
	const char *ref = NULL, *policy = NULL, *db = "krl.db";
	int json = 0, rc = KRL_EXIT_ERROR;
	krl_suite *s = NULL;
	krl_task *t = NULL;
	krl_judge *j = NULL;
	krl_llm *llm = NULL;
	krl_store *st = NULL;
	json_t *sum = NULL;
	krl_diag d = {0};
	char buf[1200];
	oo.progress = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int used;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			print_help();
			return KRL_EXIT_OK;
		} else if (!strcmp(a, "--json")) {
			json = 1;
			continue;
		} else if (!strcmp(a, "--time-budget")) {
			a = "--budget";
		}
		used = krl_cli_judge_option(a, v, &jo, sets_buf, sizeof sets_buf);
		if (used < 0)
			return KRL_EXIT_USAGE;
		if (used > 0) {
			i += used - 1;
			continue;
		}
		if (a[0] != '-') {
			if (ref) {
				fprintf(stderr, "krl optimize: unexpected argument '%s'\n", a);
				return KRL_EXIT_USAGE;
			}
			ref = a;
			continue;
		}
		if (!v) {
			fprintf(stderr, "krl optimize: unknown option '%s' or missing value "
			                "(see krl optimize --help)\n", a);
			return KRL_EXIT_USAGE;
		}
		i++;
		if (!strcmp(a, "--policy"))
			policy = v;
		else if (!strcmp(a, "--base-url"))
			lo.base_url = v;
		else if (!strcmp(a, "--model"))
			lo.model = v;
		else if (!strcmp(a, "--rounds"))
			oo.rounds = atoi(v);
		else if (!strcmp(a, "--group"))
			oo.group = atoi(v);
		else if (!strcmp(a, "--exemplars"))
			oo.exemplars.n = atoi(v);
		else if (!strcmp(a, "--tau"))
			oo.exemplars.tau = atof(v);
		else if (!strcmp(a, "--temperature"))
			lo.temperature = atof(v);
		else if (!strcmp(a, "--llm-timeout"))
			lo.timeout_s = atof(v);
		else if (!strcmp(a, "--max-in-flight"))
			lo.max_in_flight = atoi(v);
		else if (!strcmp(a, "--run"))
			oo.run_name = v;
		else if (!strcmp(a, "--stage")) {
			if (!strcmp(v, "rl"))
				oo.stage = KRL_STAGE_RL;
			else if (!strcmp(v, "selfsup"))
				oo.stage = KRL_STAGE_SELFSUP;
			else {
				fprintf(stderr, "krl optimize: --stage is rl or selfsup, "
				                "not '%s'\n", v);
				return KRL_EXIT_USAGE;
			}
		}
		else if (!strcmp(a, "--db") || !strcmp(a, "--store"))
			db = v;
		else if (!strcmp(a, "--work-dir"))
			oo.work_dir = v;
		else {
			fprintf(stderr, "krl optimize: unknown option '%s' (see krl "
			                "optimize --help)\n", a);
			return KRL_EXIT_USAGE;
		}
	}
	if (!ref) {
		fputs(builtin_usage, stderr);
		return KRL_EXIT_USAGE;
	}
	(void)policy; /* llm: krl_cmd_optimize sent it here */
	oo.shapes = jo.nsets ? jo.sets[jo.nsets - 1] : "kb1";
	char policy_name[300];
	const char *model = lo.model ? lo.model : getenv("KRL_LLM_MODEL");
	snprintf(policy_name, sizeof policy_name, "llm:%s", model ? model : "?");
	oo.policy = policy_name;
	if (krl_suite_load(NULL, &s, &d) != KRL_OK ||
	    krl_suite_load_task(s, ref, &t, &d) != KRL_OK ||
	    krl_llm_create(&lo, &llm, &d) != KRL_OK ||
	    krl_store_open(db, &st, &d) != KRL_OK ||
	    krl_judge_create(&jo, &j, &d) != KRL_OK) {
		fprintf(stderr, "krl optimize: %s\n",
		        krl_diag_format(&d, buf, sizeof buf));
		goto out;
	}
	oo.timing = krl_timing_name(krl_judge_timing_for(jo.timing, t));
	krl_evaluator ev = krl_judge_evaluator(j);
	if (krl_optimize_llm(t, llm, &ev, st, &oo, &sum, &d) != KRL_OK) {
		fprintf(stderr, "krl optimize: %s\n(run the same command again to "
		                "resume)\n", krl_diag_format(&d, buf, sizeof buf));
		goto out;
	}
	if (json) {
		char *z = json_dumps(sum, JSON_COMPACT);
		if (z)
			puts(z);
		free(z);
	} else {
		print_summary(sum, oo.timing,
		              krl_task_is_tf32(t) ? "tf32 tier" : "strict fp32");
	}
	rc = KRL_EXIT_OK;
out:
	json_decref(sum);
	krl_judge_free(j);
	krl_store_close(st);
	krl_llm_free(llm);
	krl_task_free(t);
	krl_suite_free(s);
	return rc;
}

/* ==== The builtin policy ==== */

/* The weights of the builtin policy: path, or the shipped file (zeros,
 * with a note, when that is missing). */
/* The timing the problems of a run were measured in: one mode's name, or
 * both when --timing auto gave level-3 problems graph mode and the others
 * stream. */
static const char *timing_label(const krl_timing_mode *modes, int n)
{
	int seen[KRL_TIMING_COUNT] = { 0 };
	for (int k = 0; k < n; k++)
		seen[modes[k]] = 1;
	if (seen[KRL_TIMING_STREAM] && seen[KRL_TIMING_GRAPH])
		return "stream (levels 1-2) and graph (level 3)";
	return krl_timing_name(seen[KRL_TIMING_GRAPH] ? KRL_TIMING_GRAPH
	                                               : KRL_TIMING_STREAM);
}

static krl_err load_weights(const char *path, krl_policy **pol, krl_diag *d)
{
	if (path)
		return krl_policy_load(path, pol, d);
	const char *def = krl_policy_default_path();
	if (access(def, R_OK) == 0)
		return krl_policy_load(def, pol, d);
	fprintf(stderr, "krl: no weights file at %s: every option equally "
	                "likely\n", def);
	return krl_policy_create(pol);
}

/* ==== krl optimize TASK... (the builtin policy) ==== */

/* What every problem of a run shares, in the parent and in each worker. */
typedef struct opt_run {
	const krl_suite *s;
	char **ids;
	const krl_timing_mode *modes; /* each task's timing (--timing auto) */
	krl_builtin_opts bo;
	krl_judge_opts jo;
	const char *weights, *db, *results;
	int nrefs, ndev, json;
	/* the parent's tally */
	double logsum;
	int nlog, failed;
} opt_run;

/* Searches problem k with judge j and store st: 0 and *sum (with the GPU
 * it was measured on), or the error code and why. Worker w (-1: the only
 * one) says so in the progress line. */
static int run_problem(opt_run *r, int k, int w, krl_judge *j, krl_store *st,
                       json_t **sum, char *why, size_t nwhy)
{
	krl_policy *p = NULL;
	krl_diag d = {0};
	krl_builtin_opts bo = r->bo;
	const char *name, *uuid;
	int ordinal;
	krl_judge_gpu(j, &name, &uuid, &ordinal);
	*sum = NULL;
	why[0] = 0;
	if (r->nrefs > 1 && w >= 0)
		fprintf(stderr, "[%d/%d] %s (worker %d, device %d)\n", k + 1,
		        r->nrefs, r->ids[k], w, ordinal);
	else if (r->nrefs > 1)
		fprintf(stderr, "[%d/%d] %s\n", k + 1, r->nrefs, r->ids[k]);
	/* Each problem starts from the weights as loaded: what one search
	 * learns stays in it. */
	krl_err e = load_weights(r->weights, &p, &d);
	bo.timing = krl_timing_name(r->modes[k]);
	if (e == KRL_OK)
		e = krl_cli_search(r->s, r->ids[k], j, st, p, &bo, sum, &d);
	krl_policy_free(p);
	if (e != KRL_OK)
		krl_diag_format(&d, why, nwhy);
	if (*sum) {
		json_object_set_new(*sum, "gpu", json_string(name));
		json_object_set_new(*sum, "gpu_uuid", json_string(uuid));
		json_object_set_new(*sum, "device", json_integer(ordinal));
	}
	return e;
}

/* Problem k's row, JSON line and results line, in the parent. */
static void report_problem(opt_run *r, int k, int e, json_t *sum,
                           const char *why)
{
	const char *id = r->ids[k];
	if (e != KRL_OK) {
		fprintf(stderr, "krl optimize: %s: %s\n", id, why);
		r->failed++;
	}
	if (r->json && sum) {
		char *z = json_dumps(sum, JSON_COMPACT | JSON_REAL_PRECISION(9));
		if (z)
			puts(z);
		free(z);
	} else if (!r->json) {
		krl_cli_table_row(stdout, id, sum, e != KRL_OK ? why : NULL);
	}
	fflush(stdout);
	double x = json_number_value(json_object_get(sum, "speedup"));
	if (x > 0) {
		r->logsum += log(x);
		r->nlog++;
	}
	krl_diag rd = {0};
	if (r->results &&
	    krl_cli_results_line(r->results, id, r->bo.shapes,
	                         krl_timing_name(r->modes[k]), sum,
	                         e == KRL_OK             ? NULL
	                         : e == KRL_EUNSUPPORTED ? "unsupported"
	                                                 : "error",
	                         &rd) != KRL_OK) {
		fprintf(stderr, "krl optimize: %s\n", rd.msg);
		r->failed++;
	}
}

/* krl_cli_worker_fn: worker w's judge on device --device + w (modulo the
 * devices visible), its own store connection. */
static int opt_work(void *ctx, int w, int k, void **wctx, char **sum,
                    char *why, size_t nwhy)
{
	opt_run *r = ctx;
	int rc;
	if (krl_cli_judge_worker_step(&r->jo, r->ndev, r->db, w, k, wctx, why,
	                              nwhy, &rc))
		return rc;
	krl_cli_judge_worker *ow = *wctx;
	json_t *js = NULL;
	int e = run_problem(r, k, w, ow->j, ow->st, &js, why, nwhy);
	/* all the digits: the parent's table and results line are the ones
	 * a one-worker run prints */
	*sum = js ? json_dumps(js, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
	json_decref(js);
	return e;
}

/* krl_cli_report_fn: the outcome as the worker sent it. */
static void opt_report(void *rctx, int k, int err, const char *sum,
                       const char *why)
{
	opt_run *r = rctx;
	json_t *js = sum ? json_loads(sum, 0, NULL) : NULL;
	report_problem(r, k, err, js, why);
	json_decref(js);
}

static int optimize_builtin(int argc, char **argv)
{
	opt_run r;
	char sets_buf[512], buf[1200];
	const char *refs[512];
	char *ids[512] = {0};
	krl_timing_mode modes[512];
	int nrefs = 0, rc = KRL_EXIT_ERROR, workers = 0;
	krl_suite *s = NULL;
	krl_judge *j = NULL;
	krl_store *st = NULL;
	krl_policy *pol = NULL;
	krl_diag d = {0};
	int ntf32 = 0; /* tasks of the tf32 tier */
	memset(&r, 0, sizeof r);
	r.db = "krl.db";
	r.bo.learn = 1;
	r.bo.progress = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int used;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			print_help();
			return KRL_EXIT_OK;
		} else if (!strcmp(a, "--json")) {
			r.json = 1;
			continue;
		} else if (!strcmp(a, "--no-learn")) {
			r.bo.learn = 0;
			continue;
		} else if (a[0] != '-') {
			if (nrefs == 512) {
				fprintf(stderr, "krl optimize: at most 512 tasks\n");
				return KRL_EXIT_USAGE;
			}
			refs[nrefs++] = a;
			continue;
		}
		if (strcmp(a, "--budget") != 0) {
			used = krl_cli_judge_option(
				!strcmp(a, "--time-budget") ? "--budget" : a, v, &r.jo,
				sets_buf, sizeof sets_buf);
			if (used < 0)
				return KRL_EXIT_USAGE;
			if (used > 0) {
				i += used - 1;
				continue;
			}
		}
		if (!v) {
			fprintf(stderr, "krl optimize: unknown option '%s' or missing value "
			                "(see krl optimize --help)\n", a);
			return KRL_EXIT_USAGE;
		}
		i++;
		if (!strcmp(a, "--budget") || !strcmp(a, "--group") ||
		    !strcmp(a, "--workers")) {
			char *end = NULL;
			long n = strtol(v, &end, 10);
			long max = !strcmp(a, "--budget") ? 1000000 : 64;
			if (!end || *end || n < 1 || n > max) {
				fprintf(stderr, "krl optimize: %s needs a number from 1 to "
				                "%ld\n", a, max);
				return KRL_EXIT_USAGE;
			}
			if (!strcmp(a, "--group"))
				r.bo.group = (int)n;
			else if (!strcmp(a, "--workers"))
				workers = (int)n;
			else
				r.bo.budget = (int)n;
		} else if (!strcmp(a, "--weights"))
			r.weights = v;
		else if (!strcmp(a, "--exemplars"))
			r.bo.exemplars.n = atoi(v);
		else if (!strcmp(a, "--tau"))
			r.bo.exemplars.tau = atof(v);
		else if (!strcmp(a, "--search-seed"))
			r.bo.seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--patience") || !strcmp(a, "--min-gain")) {
			char *end = NULL;
			double x = strtod(v, &end);
			int is_p = !strcmp(a, "--patience");
			if (!end || *end || !(x >= 0) || x > (is_p ? 1000 : 10) ||
			    (is_p && x != (int)x)) {
				fprintf(stderr, "krl optimize: %s needs %s\n", a,
				        is_p ? "a whole number of rounds from 0 to 1000"
				             : "a number from 0 to 10");
				return KRL_EXIT_USAGE;
			}
			if (is_p)
				r.bo.patience = (int)x;
			else
				r.bo.min_gain = x;
		}
		else if (!strcmp(a, "--round0")) {
			if (krl_cli_round0("optimize", v, &r.bo) < 0)
				return KRL_EXIT_USAGE;
		} else if (!strcmp(a, "--results"))
			r.results = v;
		else if (!strcmp(a, "--run"))
			r.bo.run_name = v;
		else if (!strcmp(a, "--store") || !strcmp(a, "--db"))
			r.db = v;
		else if (!strcmp(a, "--work-dir"))
			r.bo.work_dir = v;
		else if (!strcmp(a, "--policy") && !strcmp(v, "builtin"))
			;
		else {
			fprintf(stderr, "krl optimize: unknown option '%s' (see krl "
			                "optimize --help)\n", a);
			return KRL_EXIT_USAGE;
		}
	}
	if (!nrefs) {
		fputs(builtin_usage, stderr);
		return KRL_EXIT_USAGE;
	}
	if (r.bo.run_name && nrefs > 1) {
		fprintf(stderr, "krl optimize: --run names one run: give one TASK\n");
		return KRL_EXIT_USAGE;
	}
	r.bo.shapes = r.jo.time_set ? r.jo.time_set
	                            : r.jo.nsets ? r.jo.sets[r.jo.nsets - 1] : "kb1";
	/* Everything that can be checked before the GPU is. */
	if (krl_suite_load(NULL, &s, &d) != KRL_OK ||
	    load_weights(r.weights, &pol, &d) != KRL_OK) {
		fprintf(stderr, "krl optimize: %s\n",
		        krl_diag_format(&d, buf, sizeof buf));
		goto out;
	}
	for (int k = 0; k < nrefs; k++) {
		krl_task *t = NULL;
		if (krl_suite_load_task(s, refs[k], &t, &d) != KRL_OK) {
			fprintf(stderr, "krl optimize: %s\n",
			        krl_diag_format(&d, buf, sizeof buf));
			goto out;
		}
		ids[k] = strdup(t->id);
		modes[k] = krl_judge_timing_for(r.jo.timing, t);
		ntf32 += krl_task_is_tf32(t);
		krl_task_free(t);
		if (!ids[k])
			goto out;
	}
	r.s = s;
	r.ids = ids;
	r.modes = modes;
	r.nrefs = nrefs;
	/* Workers: --workers, else one per visible GPU (from --device on)
	 * when there are several problems; never more than the problems. The
	 * count comes from a child: this process must not touch CUDA before
	 * it forks the workers. */
	r.ndev = 1;
	if (nrefs > 1 && workers != 1) {
		int n = krl_cli_device_count() - r.jo.device;
		r.ndev = n > 0 ? n : 1;
		if (!workers)
			workers = r.ndev;
	}
	if (workers < 1)
		workers = 1;
	if (workers > nrefs)
		workers = nrefs;
	if (!r.json) {
		krl_cli_table_header(stdout);
		fflush(stdout);
	}
	if (workers > 1) {
		int last = r.jo.device + (workers < r.ndev ? workers : r.ndev) - 1;
		fprintf(stderr, "krl optimize: %d workers on device%s %d", workers,
		        last > r.jo.device ? "s" : "", r.jo.device);
		if (last > r.jo.device)
			fprintf(stderr, "..%d", last);
		fputc('\n', stderr);
		if (krl_cli_workers_run(workers, nrefs, opt_work, &r, opt_report,
		                        &r, &d) != KRL_OK) {
			fprintf(stderr, "krl optimize: %s\n",
			        krl_diag_format(&d, buf, sizeof buf));
			r.failed++;
		}
	} else {
		if (krl_store_open(r.db, &st, &d) != KRL_OK ||
		    krl_judge_create(&r.jo, &j, &d) != KRL_OK) {
			fprintf(stderr, "krl optimize: %s\n",
			        krl_diag_format(&d, buf, sizeof buf));
			goto out;
		}
		for (int k = 0; k < nrefs; k++) {
			json_t *sum = NULL;
			int e = run_problem(&r, k, -1, j, st, &sum, buf, sizeof buf);
			report_problem(&r, k, e, sum, buf);
			json_decref(sum);
		}
	}
	if (!r.json) {
		/* each task's own tier: the reference had the same freedom */
		char tier[64];
		if (!ntf32)
			snprintf(tier, sizeof tier, "strict fp32");
		else if (ntf32 == nrefs)
			snprintf(tier, sizeof tier, "tf32 tier");
		else
			snprintf(tier, sizeof tier, "strict fp32, tf32 tier for %d",
			         ntf32);
		printf("\nspeedups over kernelrl's eager reference at %s (%s, "
		       "%s timing, L2 flushed), best of at most %d evaluations "
		       "per problem",
		       r.bo.shapes, tier, timing_label(modes, nrefs),
		       r.bo.budget ? r.bo.budget : 32);
		if (r.nlog)
			printf("; geometric mean %.3fx over %d problem%s",
			       exp(r.logsum / r.nlog), r.nlog, r.nlog > 1 ? "s" : "");
		printf("\ncandidate files: %s/; store: %s\n",
		       r.bo.work_dir ? r.bo.work_dir : "krl-candidates", r.db);
	}
	rc = r.failed ? KRL_EXIT_ERROR : KRL_EXIT_OK;
out:
	for (int k = 0; k < nrefs; k++)
		free(ids[k]);
	krl_policy_free(pol);
	krl_judge_free(j);
	krl_store_close(st);
	krl_suite_free(s);
	return rc;
}

int krl_cmd_optimize(int argc, char **argv)
{
	const char *policy = "builtin";
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--policy"))
			policy = argv[i + 1];
	if (!strcmp(policy, "llm"))
		return optimize_llm(argc, argv);
	if (strcmp(policy, "builtin") != 0) {
		fprintf(stderr, "krl optimize: --policy is builtin or llm, not "
		                "'%s'\n", policy);
		return KRL_EXIT_USAGE;
	}
	return optimize_builtin(argc, argv);
}

/* krl export-sft and krl export-rollouts: same options (export-sft also
 * takes --min-speedup), different writers. */
static int export_cmd(int argc, char **argv, int sft)
{
	const char *usage = sft ? sft_usage : export_usage;
	const char *name = sft ? "krl export-sft" : "krl export-rollouts";
	const char *db = "krl.db", *run = NULL, *outp = NULL;
	double min_speedup = 0;
	krl_store *st = NULL;
	krl_diag d = {0};
	char buf[1200];
	int64_t n = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return KRL_EXIT_OK;
		}
		if (!v) {
			fputs(usage, stderr);
			return KRL_EXIT_USAGE;
		}
		i++;
		if (!strcmp(a, "--db"))
			db = v;
		else if (!strcmp(a, "--run"))
			run = v;
		else if (!strcmp(a, "--out"))
			outp = v;
		else if (sft && !strcmp(a, "--min-speedup"))
			min_speedup = atof(v);
		else {
			fputs(usage, stderr);
			return KRL_EXIT_USAGE;
		}
	}
	FILE *f = outp ? fopen(outp, "w") : stdout;
	if (!f) {
		fprintf(stderr, "%s: cannot write %s\n", name, outp);
		return KRL_EXIT_ERROR;
	}
	krl_err e = krl_store_open(db, &st, &d);
	if (e == KRL_OK)
		e = sft ? krl_export_sft(st, run, min_speedup, f, &n, &d)
		        : krl_export_rollouts(st, run, f, &n, &d);
	krl_store_close(st);
	if (outp)
		fclose(f);
	if (e != KRL_OK) {
		fprintf(stderr, "%s: %s\n", name,
		        krl_diag_format(&d, buf, sizeof buf));
		return KRL_EXIT_ERROR;
	}
	fprintf(stderr, "%lld %s\n", (long long)n,
	        sft ? "SFT examples" : "rollouts");
	return KRL_EXIT_OK;
}

int krl_cmd_export_sft(int argc, char **argv)
{
	return export_cmd(argc, argv, 1);
}

int krl_cmd_export_rollouts(int argc, char **argv)
{
	return export_cmd(argc, argv, 0);
}
