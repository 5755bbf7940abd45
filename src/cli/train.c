/*
 * krl train: learns the builtin policy's weights by running its search
 * with learning on over the training part of a split of the suite, and
 * (--eval) compares the learned weights with uniform random choice on the
 * held-out part at equal budget (docs/optimizer.md, section 5). With
 * several GPUs the searches run on a pool of judge workers (--workers;
 * docs/workers.md): training in batches whose changes are added in order,
 * --eval task by task.
 */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/rng.h"
#include "util/strbuf.h"

static const char train_usage[] =
	"usage: krl train [options]          learn the builtin policy's weights\n"
	"       krl train --eval [options]   learned weights vs uniform random choice\n"
	"\n"
	"Training runs the builtin search (as krl optimize does) with learning on over\n"
	"the tasks of one part of a split, --rounds times, each time in an order\n"
	"shuffled by --seed, and writes the weights after every task. Every evaluation\n"
	"is stored: run the same command again to resume; finished searches are\n"
	"replayed from the store (their learning included), not judged again.\n"
	"\n"
	"--eval runs two searches on each task of the held-out part at the same\n"
	"budget: one with the weights (learning on, as krl optimize does) and one\n"
	"choosing uniformly at random (no learning), each drawing exemplars only from\n"
	"its own candidates. It prints both best speedups per task and their geometric\n"
	"means over the tasks where both found a correct candidate; with --at, also\n"
	"the same over each search's first N evaluations, which are exactly those of\n"
	"a search of budget N (every draw is seeded by round and member): one run at\n"
	"--budget 32 --at 4,8 reports budgets 4, 8 and 32.\n"
	"\n"
	"options:\n"
	"  --tasks PART        part of the split: train (default), heldout (--eval's\n"
	"                      default) or all\n"
	"  --level N           the level whose split is used: splits/levelN.txt in the\n"
	"                      tasks folder (default 1; level 2 has one too)\n"
	"  --split FILE        'TASK PART' lines (default: the --level's split)\n"
	"  --list              print the part's tasks, one a line, and stop (nothing\n"
	"                      is judged)\n"
	"  --shapes A[,B...]   shape sets checked; timing and the optimizer use the last\n"
	"                      (default kb0: cheap)\n"
	"  --budget N          evaluations per task per round (default 16)\n"
	"  --rounds R          passes over the tasks (default 1; training only)\n"
	"  --group G           proposals per search round (default 4)\n"
	"  --lr X              learning rate (default 0.1)\n"
	"  --weights FILE      training: weights to start from (default: all zero);\n"
	"                      --eval: the weights compared (default $KRL_WEIGHTS,\n"
	"                      else policy/builtin.weights)\n"
	"  --weights-out FILE  where training writes the weights, after every task\n"
	"                      (batch with --workers; default\n"
	"                      policy/builtin.weights; not the --weights file)\n"
	"  --seed S            seed of the task order and the proposals (default 1)\n"
	"  --results FILE      --eval: write the comparison as one JSON object\n"
	"  --round0 MODE       fixed (default): every search's round 0 judges the\n"
	"                      default choice and its fixed alternatives, in both\n"
	"                      --eval arms; policy: round 0 is a round drawn from the\n"
	"                      policy (the weights' likeliest choice first; uniform\n"
	"                      draws in --eval's uniform arm), so that --eval compares\n"
	"                      what the weights alone find (in the runs' names)\n"
	"  --at N[,N...]       --eval: also compare the best of each search's first N\n"
	"                      evaluations (N below --budget; at most 8 of them)\n"
	"  --workers N         judge workers on devices --device .. --device+N-1\n"
	"                      (default: every visible GPU from --device on).\n"
	"                      Training: the tasks go in batches of N, each search\n"
	"                      of a batch from the batch's weights, their changes\n"
	"                      added in the tasks' order (N is in the runs' names:\n"
	"                      another N is another training); --eval: tasks in\n"
	"                      parallel, the same results\n"
	"  --store DB          the store (default krl.db; --db is the same)\n"
	"  --work-dir DIR      where candidate files are written (default krl-candidates)\n"
	"\n";

/* The judge's options as krl train takes them. */
static const char *const judge_renames[] = {
	"--budget", "--time-budget SEC", "--seed", "--judge-seed N",
	"--shapes", NULL};

/* ==== The split ==== */

/* Reads the ids of part (or every id for "all") from the split file into
 * ids (caller frees each and the array); *n their count. Each must name a
 * task of the suite. Errors say file:line. */
static krl_err read_split(const char *path, const char *part,
                          const krl_suite *s, char ***ids, int *n,
                          krl_diag *d)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	krl_err e = KRL_OK;
	*ids = NULL;
	*n = 0;
	if (!f)
		return krl_diag_set(d, KRL_EIO, (krl_pos){path, 0, 0},
		                    "cannot read the split: %s", strerror(errno));
	for (int ln = 1; e == KRL_OK && fgets(line, sizeof line, f); ln++) {
		char task[512], which[64], extra[8];
		char *p = line + strspn(line, " \t");
		if (*p == '#' || *p == '\n' || *p == '\r' || !*p)
			continue;
		int got = sscanf(p, "%511s %63s %7s", task, which, extra);
		if (got != 2 || (strcmp(which, "train") && strcmp(which, "heldout"))) {
			e = krl_diag_set(d, KRL_ESYNTAX, (krl_pos){path, ln, 1},
			                 "expected 'TASK train' or 'TASK heldout'");
			break;
		}
		if (krl_suite_find(s, task, NULL) < 0) {
			e = krl_diag_set(d, KRL_ENOTFOUND, (krl_pos){path, ln, 1},
			                 "no task '%s' in %s", task, s->root);
			break;
		}
		if (strcmp(part, "all") && strcmp(part, which))
			continue;
		char **g = realloc(*ids, sizeof *g * (size_t)(*n + 1));
		if (!g || !(g[*n] = strdup(task))) {
			*ids = g ? g : *ids;
			e = KRL_ENOMEM;
			break;
		}
		*ids = g;
		(*n)++;
	}
	fclose(f);
	if (e == KRL_OK && !*n)
		e = krl_diag_set(d, KRL_EINVAL, (krl_pos){path, 0, 0},
		                 "no task in part '%s'", part);
	if (e != KRL_OK) {
		for (int i = 0; i < *n; i++)
			free((*ids)[i]);
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	return e;
}

/* Fisher-Yates with a krl_rng seeded by (seed, round). */
static void shuffle(int *order, int n, uint64_t seed, int round)
{
	krl_rng rng = {krl_splitmix64(seed ^
	                              krl_splitmix64((uint64_t)round + 7))};
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(krl_rng_uniform(&rng) * (i + 1));
		int t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
}

/* ==== Training and evaluation ==== */

/* The most budgets --at takes. */
#define MAX_AT 8

typedef struct trainargs {
	krl_judge_opts jo;
	krl_builtin_opts bo;
	char sets_buf[512];
	const char *part, *split, *weights, *weights_out, *results, *db;
	int rounds, eval, level, list, workers;
	int at[MAX_AT], nat;     /* --at: smaller budgets read from each run */
	uint64_t seed;
} trainargs;

static int parse(int argc, char **argv, trainargs *a)
{
	memset(a, 0, sizeof *a);
	a->db = "krl.db";
	a->weights_out = "policy/builtin.weights";
	a->rounds = 1;
	a->level = 1;
	a->seed = 1;
	a->bo.budget = 16;
	a->bo.progress = 1;
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			fputs(train_usage, stdout);
			krl_cli_print_judge_usage(stdout, judge_renames, 3);
			exit(KRL_EXIT_OK);
		}
		if (!strcmp(s, "--eval")) {
			a->eval = 1;
			continue;
		}
		if (!strcmp(s, "--list")) {
			a->list = 1;
			continue;
		}
		const char *js = !strcmp(s, "--time-budget") ? "--budget"
		                 : !strcmp(s, "--judge-seed") ? "--seed"
		                 : strcmp(s, "--budget") && strcmp(s, "--seed") ? s
		                                                                 : "";
		int used = krl_cli_judge_option(js, v, &a->jo, a->sets_buf,
		                                sizeof a->sets_buf);
		if (used < 0)
			return -1;
		if (used > 0) {
			i += used - 1;
			continue;
		}
		if (!v || s[0] != '-') {
			fprintf(stderr, "krl train: unexpected '%s' (see krl train "
			                "--help)\n", s);
			return -1;
		}
		i++;
		if (!strcmp(s, "--tasks"))
			a->part = v;
		else if (!strcmp(s, "--split"))
			a->split = v;
		else if (!strcmp(s, "--level"))
			a->level = atoi(v);
		else if (!strcmp(s, "--budget"))
			a->bo.budget = atoi(v);
		else if (!strcmp(s, "--rounds"))
			a->rounds = atoi(v);
		else if (!strcmp(s, "--group"))
			a->bo.group = atoi(v);
		else if (!strcmp(s, "--lr"))
			a->bo.lr = atof(v);
		else if (!strcmp(s, "--weights"))
			a->weights = v;
		else if (!strcmp(s, "--weights-out"))
			a->weights_out = v;
		else if (!strcmp(s, "--seed"))
			a->seed = strtoull(v, NULL, 0);
		else if (!strcmp(s, "--results"))
			a->results = v;
		else if (!strcmp(s, "--round0")) {
			if (krl_cli_round0("train", v, &a->bo) < 0)
				return -1;
		}
		else if (!strcmp(s, "--at")) {
			char *end = NULL;
			const char *p = v;
			a->nat = 0;
			for (;;) {
				long x = strtol(p, &end, 10);
				if (end == p || x < 1 || x > 100000 || a->nat == MAX_AT) {
					fprintf(stderr, "krl train: --at takes up to %d "
					                "positive numbers separated by commas, "
					                "not '%s'\n", MAX_AT, v);
					return -1;
				}
				a->at[a->nat++] = (int)x;
				if (*end != ',')
					break;
				p = end + 1;
			}
			if (*end) {
				fprintf(stderr, "krl train: --at takes numbers separated by "
				                "commas, not '%s'\n", v);
				return -1;
			}
		}
		else if (!strcmp(s, "--store") || !strcmp(s, "--db"))
			a->db = v;
		else if (!strcmp(s, "--workers")) {
			char *end = NULL;
			long x = strtol(v, &end, 10);
			if (end == v || *end || x < 1 || x > 64) {
				fprintf(stderr, "krl train: --workers takes a number from "
				                "1 to 64, not '%s'\n", v);
				return -1;
			}
			a->workers = (int)x;
		}
		else if (!strcmp(s, "--work-dir"))
			a->bo.work_dir = v;
		else {
			fprintf(stderr, "krl train: unknown option '%s' (see krl train "
			                "--help)\n", s);
			return -1;
		}
	}
	if (a->level < 1) {
		fprintf(stderr, "krl train: --level needs a positive number\n");
		return -1;
	}
	if (a->bo.budget < 1 || a->rounds < 1 || a->bo.group < 0 ||
	    a->bo.group > 64 || a->bo.lr < 0) {
		fprintf(stderr, "krl train: --budget and --rounds need a positive "
		                "number, --group one from 1 to 64, --lr one >= 0\n");
		return -1;
	}
	for (int k = 0; k < a->nat; k++)
		if (a->at[k] >= a->bo.budget) {
			fprintf(stderr, "krl train: --at %d is not below --budget %d "
			                "(the full budget is always compared)\n", a->at[k],
			        a->bo.budget);
			return -1;
		}
	if (a->nat && !a->eval) {
		fprintf(stderr, "krl train: --at is an option of --eval\n");
		return -1;
	}
	if (!a->part)
		a->part = a->eval ? "heldout" : "train";
	if (strcmp(a->part, "train") && strcmp(a->part, "heldout") &&
	    strcmp(a->part, "all")) {
		fprintf(stderr, "krl train: --tasks is train, heldout or all, not "
		                "'%s'\n", a->part);
		return -1;
	}
	if (!a->jo.nsets) {
		a->jo.sets[0] = "kb0";
		a->jo.nsets = 1;
	}
	a->bo.shapes = a->jo.time_set ? a->jo.time_set
	                              : a->jo.sets[a->jo.nsets - 1];
	return 0;
}

/* ==== One task ==== */

/* Searches task id in training round r with learning on, from pol (which
 * learns). width: the tasks searched from the same weights at once (1:
 * one after another; krl train --workers N: N, named in the run so that
 * runs of other widths, which start from other weights, are apart). */
static krl_err train_one(const trainargs *a, const krl_suite *s,
                         const char *id, int r, int width, const char *fp0,
                         krl_judge *j, krl_store *st, krl_policy *pol,
                         json_t **sum, krl_diag *d)
{
	krl_builtin_opts bo = a->bo;
	char run[600], w[16] = "";
	*sum = NULL;
	if (width > 1)
		snprintf(w, sizeof w, "/p%d", width);
	/* A run per (task, round), named by everything that makes it: the
	 * same command finds it again. */
	krl_err e = krl_fmt_fixed(run, sizeof run, "the run name", d,
	                          "train/%s/b%d/s%llu/w%.8s%s%s/r%d/%s", bo.shapes,
	                          bo.budget, (unsigned long long)a->seed, fp0, w,
	                          bo.round0_policy ? "/r0policy" : "", r, id);
	if (e != KRL_OK)
		return e;
	bo.run_name = run;
	bo.learn = 1;
	bo.seed = krl_splitmix64(a->seed ^ krl_splitmix64((uint64_t)r));
	return krl_cli_search(s, id, j, st, pol, &bo, sum, d);
}

/* The tally of a training round. */
typedef struct trainround {
	double logsum;
	int nlog, skipped;
} trainround;

/* Prints task id's row from its search's summary. */
static void train_row(trainround *t, const char *id, const json_t *sum)
{
	double x = json_number_value(json_object_get(sum, "speedup"));
	char best[32] = "none correct";
	if (x > 0) {
		t->logsum += log(x);
		t->nlog++;
		snprintf(best, sizeof best, "%.3fx", x);
	}
	printf("%-30s best %-12s (%lld evaluations)\n", id, best,
	       (long long)json_integer_value(json_object_get(sum, "evaluations")));
	fflush(stdout);
}

static void train_round_line(const trainround *t, int r, int rounds, int n)
{
	printf("round %d/%d: %d tasks, %d skipped (the optimizer cannot take "
	       "them); geometric mean of the best speedups %.3fx over %d\n",
	       r + 1, rounds, n, t->skipped, t->nlog ? exp(t->logsum / t->nlog) : 0,
	       t->nlog);
}

/* Trains one task after another with judge j: the exit status. */
static int train(trainargs *a, const krl_suite *s, char **ids, int n,
                 krl_judge *j, krl_store *st)
{
	krl_policy *pol = NULL;
	krl_diag d = {0};
	char buf[1200], fp0[17];
	int *order = malloc(sizeof *order * (size_t)n), rc = KRL_EXIT_OK;
	krl_err e = order ? (a->weights ? krl_policy_load(a->weights, &pol, &d)
	                                : krl_policy_create(&pol))
	                  : KRL_ENOMEM;
	if (e != KRL_OK) {
		fprintf(stderr, "krl train: %s\n", krl_diag_format(&d, buf, sizeof buf));
		free(order);
		return KRL_EXIT_ERROR;
	}
	krl_policy_fingerprint(pol, fp0);
	for (int r = 0; r < a->rounds && rc == KRL_EXIT_OK; r++) {
		trainround t = {0};
		shuffle(order, n, a->seed, r);
		for (int i = 0; i < n; i++) {
			const char *id = ids[order[i]];
			json_t *sum = NULL;
			fprintf(stderr, "[round %d/%d, task %d/%d] %s\n", r + 1,
			        a->rounds, i + 1, n, id);
			e = train_one(a, s, id, r, 1, fp0, j, st, pol, &sum, &d);
			if (e == KRL_EUNSUPPORTED || e == KRL_ENOTFOUND) {
				fprintf(stderr, "  skipped: %s\n",
				        krl_diag_format(&d, buf, sizeof buf));
				t.skipped++;
				continue;
			}
			if (e != KRL_OK) {
				fprintf(stderr, "krl train: %s: %s\n(run the same command "
				                "again to resume)\n", id,
				        krl_diag_format(&d, buf, sizeof buf));
				rc = KRL_EXIT_ERROR;
				break;
			}
			train_row(&t, id, sum);
			json_decref(sum);
			/* The weights after every task: a stop keeps them. */
			if ((e = krl_policy_save(pol, a->weights_out, &d)) != KRL_OK) {
				fprintf(stderr, "krl train: %s\n",
				        krl_diag_format(&d, buf, sizeof buf));
				rc = KRL_EXIT_ERROR;
				break;
			}
		}
		if (rc == KRL_EXIT_OK)
			train_round_line(&t, r, a->rounds, n);
	}
	if (rc == KRL_EXIT_OK &&
	    (e = krl_policy_save(pol, a->weights_out, &d)) != KRL_OK) {
		fprintf(stderr, "krl train: %s\n", krl_diag_format(&d, buf, sizeof buf));
		rc = KRL_EXIT_ERROR;
	}
	if (rc == KRL_EXIT_OK)
		printf("wrote %s: %d non-zero weights\n", a->weights_out,
		       krl_policy_size(pol));
	krl_policy_free(pol);
	free(order);
	return rc;
}

/* One arm of the comparison on task id: the weights a->weights (learning
 * on) or uniform random choice. *best gets the best speedup, NAN when no
 * candidate was correct, and at[k] the best of the first a->at[k]
 * evaluations. Returns 0, 1 when the optimizer cannot take the task, -1
 * when the search failed (d says why). */
static int arm(const trainargs *a, const krl_suite *s, const char *id,
               krl_judge *j, krl_store *st, int uniform, const char *fp,
               double *best, double *at, krl_diag *d)
{
	krl_policy *pol = NULL;
	krl_builtin_opts bo = a->bo;
	char run[600];
	json_t *sum = NULL;
	*best = NAN;
	if (krl_fmt_fixed(run, sizeof run, "the run name", d,
	                  "eval/%s/%s/b%d/s%llu/%s%s/%s",
	                  uniform ? "uniform" : "weights", bo.shapes, bo.budget,
	                  (unsigned long long)a->seed, uniform ? "-" : fp,
	                  bo.round0_policy ? "/r0policy" : "", id) != KRL_OK)
		return -1;
	krl_err e = uniform ? krl_policy_create(&pol)
	                    : krl_policy_load(a->weights, &pol, d);
	if (e != KRL_OK)
		return -1;
	krl_policy_set_uniform(pol, uniform);
	bo.run_name = run;
	bo.learn = !uniform;
	bo.run_exemplars = 1;
	bo.seed = a->seed;
	e = krl_cli_search(s, id, j, st, pol, &bo, &sum, d);
	krl_policy_free(pol);
	if (e == KRL_EUNSUPPORTED || e == KRL_ENOTFOUND)
		return 1;
	if (e != KRL_OK)
		return -1;
	double x = json_number_value(json_object_get(sum, "speedup"));
	if (x > 0)
		*best = x;
	json_decref(sum);
	for (int k = 0; k < a->nat; k++)
		if (krl_run_best_within(st, run, a->at[k], &at[k], d) != KRL_OK)
			return -1;
	return 0;
}

/* Both arms on task i of n. */
typedef struct armpair {
	int skip;                /* the optimizer cannot take the task */
	double x[2];             /* best speedup: [0] weights, [1] uniform */
	double px[2][MAX_AT];    /* the same within --at's budgets */
} armpair;

/* Runs both arms on task i (the first alternating with i: the GPU's state
 * is shared). Returns 0, or -1 with d saying why. */
static int eval_task(const trainargs *a, const krl_suite *s, const char *id,
                     int i, int n, const char *fp, krl_judge *j,
                     krl_store *st, armpair *out, krl_diag *d)
{
	int st2[2];
	memset(out, 0, sizeof *out);
	for (int k = 0; k < 2; k++) {
		int uniform = (k + i) % 2;
		fprintf(stderr, "[task %d/%d] %s, %s\n", i + 1, n, id,
		        uniform ? "uniform random" : "weights");
		st2[uniform] = arm(a, s, id, j, st, uniform, fp, &out->x[uniform],
		                   out->px[uniform], d);
		if (st2[uniform] < 0)
			return -1;
	}
	out->skip = st2[0] > 0 || st2[1] > 0;
	return 0;
}

/* Geometric means of one budget's comparison. */
typedef struct tally {
	double lw, lu;
	int both, wins, losses;
} tally;

static void tally_add(tally *t, double w, double u)
{
	if (isnan(w) || isnan(u))
		return;
	t->lw += log(w);
	t->lu += log(u);
	t->both++;
	t->wins += w > u;
	t->losses += w < u;
}

static double tally_gm(const tally *t, int uniform)
{
	return t->both ? exp((uniform ? t->lu : t->lw) / t->both) : NAN;
}

static json_t *num_or_null(double x)
{
	return isnan(x) ? json_null() : json_real(x);
}

static double null_or_num(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The comparison's state in the parent. */
typedef struct evalstate {
	json_t *rows;
	tally all, at[MAX_AT];
	int skipped;
} evalstate;

/* Prints task id's row and adds it to the tallies. */
static void eval_row(const trainargs *a, evalstate *E, const char *id,
                     const armpair *p)
{
	if (p->skip) {
		printf("%-30s %10s %10s  (the optimizer cannot take it)\n", id, "-",
		       "-");
		E->skipped++;
		return;
	}
	printf("%-30s %9.3fx %9.3fx", id, p->x[0], p->x[1]);
	json_t *row = json_pack("{s:s, s:o, s:o}", "problem", id, "weights",
	                        num_or_null(p->x[0]), "uniform",
	                        num_or_null(p->x[1]));
	json_t *ats = a->nat ? json_array() : NULL;
	for (int k = 0; k < a->nat; k++) {
		printf("   %14.3fx / %.3fx", p->px[0][k], p->px[1][k]);
		json_array_append_new(ats, json_pack("{s:i, s:o, s:o}", "budget",
		                                     a->at[k], "weights",
		                                     num_or_null(p->px[0][k]),
		                                     "uniform",
		                                     num_or_null(p->px[1][k])));
		tally_add(&E->at[k], p->px[0][k], p->px[1][k]);
	}
	if (ats)
		json_object_set_new(row, "at", ats);
	printf("\n");
	fflush(stdout);
	json_array_append_new(E->rows, row);
	tally_add(&E->all, p->x[0], p->x[1]);
}

/* The comparison's summary lines and --results file: the exit status
 * (rc unless the file cannot be written). */
static int eval_finish(const trainargs *a, evalstate *E, const char *wpath,
                       const char *fp, int rc)
{
	char date[32];
	tally *all = &E->all, *at = E->at;
	printf("\ngeometric mean of the best speedups over %d problems (both "
	       "found a correct candidate): weights %.3fx, uniform random %.3fx; "
	       "weights better on %d, worse on %d; %d skipped\n",
	       all->both, tally_gm(all, 0), tally_gm(all, 1), all->wins,
	       all->losses, E->skipped);
	for (int k = 0; k < a->nat; k++)
		printf("first %d evaluations of each search, over %d problems: "
		       "weights %.3fx, uniform random %.3fx; weights better on %d, "
		       "worse on %d\n", a->at[k], at[k].both, tally_gm(&at[k], 0),
		       tally_gm(&at[k], 1), at[k].wins, at[k].losses);
	printf("(%s part, %s shapes, %d evaluations per search, weights %s)\n",
	       a->part, a->bo.shapes, a->bo.budget, wpath);
	if (a->results && rc == KRL_EXIT_OK) {
		krl_cli_date(date);
		json_t *o = json_pack(
			"{s:s, s:s, s:i, s:s, s:s, s:o, s:o, s:i, s:i, s:i, s:i, s:o, "
			"s:s, s:s}",
			"part", a->part, "shapes", a->bo.shapes, "budget", a->bo.budget,
			"weights", wpath, "weights_fingerprint", fp, "weights_geomean",
			num_or_null(tally_gm(all, 0)), "uniform_geomean",
			num_or_null(tally_gm(all, 1)), "problems_both", all->both,
			"weights_better", all->wins, "weights_worse", all->losses,
			"skipped", E->skipped, "per_problem", json_incref(E->rows),
			"commit", krl_cli_commit(), "date", date);
		if (o && a->nat) {
			json_t *ats = json_array();
			for (int k = 0; k < a->nat; k++)
				json_array_append_new(ats, json_pack(
					"{s:i, s:o, s:o, s:i, s:i, s:i}", "budget", a->at[k],
					"weights_geomean", num_or_null(tally_gm(&at[k], 0)),
					"uniform_geomean", num_or_null(tally_gm(&at[k], 1)),
					"problems_both", at[k].both, "weights_better",
					at[k].wins, "weights_worse", at[k].losses));
			json_object_set_new(o, "at", ats);
		}
		FILE *f = fopen(a->results, "w");
		char *z = o ? json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER |
		                                JSON_REAL_PRECISION(9))
		            : NULL;
		if (!f || !z || fprintf(f, "%s\n", z) < 0) {
			fprintf(stderr, "krl train --eval: cannot write %s\n", a->results);
			rc = KRL_EXIT_ERROR;
		}
		if (f)
			fclose(f);
		free(z);
		json_decref(o);
	}
	return rc;
}

/* The weights compared (--weights, else the shipped file) and their
 * fingerprint; -1 with the error printed. */
static int eval_weights(trainargs *a, char fp[17])
{
	krl_policy *pol = NULL;
	krl_diag d = {0};
	char buf[1200];
	const char *wpath = a->weights ? a->weights : krl_policy_default_path();
	if (krl_policy_load(wpath, &pol, &d) != KRL_OK) {
		fprintf(stderr, "krl train --eval: %s\n",
		        krl_diag_format(&d, buf, sizeof buf));
		return -1;
	}
	krl_policy_fingerprint(pol, fp);
	krl_policy_free(pol);
	a->weights = wpath;
	return 0;
}

static void eval_header(const trainargs *a)
{
	printf("%-30s %10s %10s", "problem", "weights", "uniform");
	for (int k = 0; k < a->nat; k++)
		printf("   at %-4d weights / uniform", a->at[k]);
	printf("\n");
}

/* Compares the weights with uniform random choice, one task after
 * another with judge j: the exit status. */
static int evaluate(trainargs *a, const krl_suite *s, char **ids, int n,
                    krl_judge *j, krl_store *st)
{
	krl_diag d = {0};
	char buf[1200], fp[17];
	if (eval_weights(a, fp) < 0)
		return KRL_EXIT_ERROR;
	evalstate E = { .rows = json_array() };
	int rc = KRL_EXIT_OK;
	eval_header(a);
	for (int i = 0; i < n; i++) {
		armpair p;
		if (eval_task(a, s, ids[i], i, n, fp, j, st, &p, &d) < 0) {
			fprintf(stderr, "krl train --eval: %s: %s\n(run the same "
			                "command again to resume)\n", ids[i],
			        krl_diag_format(&d, buf, sizeof buf));
			rc = KRL_EXIT_ERROR;
			break;
		}
		eval_row(a, &E, ids[i], &p);
	}
	rc = eval_finish(a, &E, a->weights, fp, rc);
	json_decref(E.rows);
	return rc;
}

/* ==== Judge workers (--workers N > 1, docs/workers.md) ==== */

/*
 * Training: the tasks of a round, in its shuffled order, go in batches of
 * N. Every search of a batch starts from the weights the batch started
 * with (written to <weights-out>.start) and learns on its own; each
 * writes what it ended with to <weights-out>.part<k>, and the parent adds
 * each search's change to the batch's start in the tasks' order
 * (krl_policy_add_change), so the weights do not depend on which worker
 * finished first, only on N (which the runs' names hold). With N = 1 it
 * is the one-after-another training exactly. --eval: each task's two
 * searches (their weights fixed at the start) run in one worker, the
 * tasks on as many workers as there are.
 */
typedef struct trainpool {
	trainargs *a;
	const krl_suite *s;
	char **ids;
	int n, ndev;
	/* training: the batch's tasks are ids[task[0..]], its round r */
	const int *task;
	int first, r, width;
	char fp0[17];
	char start[4200];        /* the batch's weights, a file */
	/* --eval */
	char fp[17];
	evalstate *E;
	/* outcomes in the parent, by problem */
	int *err;
	json_t **sum;
	char (*why)[1200];
} trainpool;

/* Where search k of a batch leaves its weights. */
static int part_path(const trainpool *P, int k, char *buf, size_t cap,
                     krl_diag *d)
{
	return krl_fmt_fixed(buf, cap, "the batch's weights path", d, "%s.part%d",
	                     P->a->weights_out, k) == KRL_OK ? 0 : -1;
}

/* krl_cli_worker_fn: worker w's judge on device --device + w (modulo the
 * devices visible), its own store connection. */
static int pool_work(void *ctx, int w, int k, void **wctx, char **sum,
                     char *why, size_t nwhy)
{
	trainpool *P = ctx;
	krl_diag d = {0};
	int rc;
	if (krl_cli_judge_worker_step(&P->a->jo, P->ndev, P->a->db, w, k, wctx,
	                              why, nwhy, &rc))
		return rc;
	krl_cli_judge_worker *tw = *wctx;
	json_t *js = NULL;
	krl_err e;
	if (P->a->eval) {
		armpair p;
		e = eval_task(P->a, P->s, P->ids[k], k, P->n, P->fp, tw->j, tw->st,
		              &p, &d) < 0 ? KRL_EIO : KRL_OK;
		if (e == KRL_OK) {
			json_t *x = json_array(), *at = json_array();
			for (int u = 0; u < 2; u++) {
				json_array_append_new(x, num_or_null(p.x[u]));
				json_t *pu = json_array();
				for (int q = 0; q < P->a->nat; q++)
					json_array_append_new(pu, num_or_null(p.px[u][q]));
				json_array_append_new(at, pu);
			}
			js = json_pack("{s:b, s:o, s:o}", "skip", p.skip, "x", x, "at",
			               at);
		}
	} else {
		const char *id = P->ids[P->task[k]];
		krl_policy *pol = NULL;
		char path[4200];
		fprintf(stderr, "[round %d/%d, task %d/%d] %s (worker %d)\n",
		        P->r + 1, P->a->rounds, P->first + k + 1, P->n, id, w);
		e = krl_policy_load(P->start, &pol, &d);
		if (e == KRL_OK)
			e = train_one(P->a, P->s, id, P->r, P->width, P->fp0, tw->j,
			              tw->st, pol, &js, &d);
		if (e == KRL_OK && part_path(P, k, path, sizeof path, &d) < 0)
			e = KRL_EINVAL;
		if (e == KRL_OK)
			e = krl_policy_save(pol, path, &d);
		krl_policy_free(pol);
	}
	if (e != KRL_OK)
		snprintf(why, nwhy, "%s", d.msg);
	/* all the digits: the parent prints what one worker would */
	*sum = js ? json_dumps(js, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
	json_decref(js);
	return e;
}

/* krl_cli_report_fn: --eval prints each task's row as it comes (in the
 * tasks' order); training keeps the outcomes for the end of the batch. */
static void pool_report(void *rctx, int k, int err, const char *sum,
                        const char *why)
{
	trainpool *P = rctx;
	json_t *js = sum ? json_loads(sum, 0, NULL) : NULL;
	if (!P->a->eval) {
		P->err[k] = err ? err : js ? 0 : KRL_EIO;
		P->sum[k] = js;
		snprintf(P->why[k], sizeof P->why[k], "%s",
		         err || js ? why : "the worker sent no summary");
		return;
	}
	if (err || !js) {
		fprintf(stderr, "krl train --eval: %s: %s\n(run the same command "
		                "again to resume)\n", P->ids[k],
		        err || js ? why : "the worker sent no summary");
		P->err[0] = err ? err : KRL_EIO; /* the first failure */
		json_decref(js);
		return;
	}
	armpair p;
	memset(&p, 0, sizeof p);
	p.skip = json_is_true(json_object_get(js, "skip"));
	for (int u = 0; u < 2; u++) {
		p.x[u] = null_or_num(json_array_get(json_object_get(js, "x"), u));
		json_t *pu = json_array_get(json_object_get(js, "at"), u);
		for (int q = 0; q < P->a->nat; q++)
			p.px[u][q] = null_or_num(json_array_get(pu, q));
	}
	eval_row(P->a, P->E, P->ids[k], &p);
	json_decref(js);
}

/* Says which workers run on which devices. */
static void pool_banner(const trainpool *P, int workers)
{
	int d0 = P->a->jo.device;
	int last = d0 + (workers < P->ndev ? workers : P->ndev) - 1;
	fprintf(stderr, "krl train: %d workers on device%s %d", workers,
	        last > d0 ? "s" : "", d0);
	if (last > d0)
		fprintf(stderr, "..%d", last);
	fputc('\n', stderr);
}

/* Training on `width` workers: the exit status. */
static int train_pool(trainargs *a, const krl_suite *s, char **ids, int n,
                      int width, int ndev)
{
	trainpool P;
	krl_policy *pol = NULL, *start = NULL, *after = NULL;
	krl_diag d = {0};
	char buf[1200], path[4200];
	memset(&P, 0, sizeof P);
	P.a = a;
	P.s = s;
	P.ids = ids;
	P.n = n;
	P.ndev = ndev;
	P.width = width;
	int *order = malloc(sizeof *order * (size_t)n), rc = KRL_EXIT_OK;
	P.err = calloc((size_t)width, sizeof *P.err);
	P.sum = calloc((size_t)width, sizeof *P.sum);
	P.why = calloc((size_t)width, sizeof *P.why);
	krl_err e = order && P.err && P.sum && P.why ? KRL_OK : KRL_ENOMEM;
	if (e == KRL_OK)
		e = a->weights ? krl_policy_load(a->weights, &pol, &d)
		               : krl_policy_create(&pol);
	if (e == KRL_OK)
		e = krl_fmt_fixed(P.start, sizeof P.start, "the batch's weights "
		                  "path", &d, "%s.start", a->weights_out);
	if (e != KRL_OK) {
		fprintf(stderr, "krl train: %s\n", e == KRL_ENOMEM ? "out of "
		        "memory" : krl_diag_format(&d, buf, sizeof buf));
		rc = KRL_EXIT_ERROR;
		goto out;
	}
	krl_policy_fingerprint(pol, P.fp0);
	pool_banner(&P, width);
	for (int r = 0; r < a->rounds && rc == KRL_EXIT_OK; r++) {
		trainround t = {0};
		shuffle(order, n, a->seed, r);
		P.r = r;
		for (int b = 0; b < n && rc == KRL_EXIT_OK; b += width) {
			int m = n - b < width ? n - b : width;
			P.task = order + b;
			P.first = b;
			for (int k = 0; k < m; k++) {
				P.err[k] = KRL_EIO;
				P.sum[k] = NULL;
				snprintf(P.why[k], sizeof P.why[k], "no outcome");
			}
			krl_policy_free(start);
			start = NULL;
			/* the batch's start, as the workers will read it */
			if (krl_policy_save(pol, P.start, &d) != KRL_OK ||
			    krl_policy_load(P.start, &start, &d) != KRL_OK ||
			    krl_cli_workers_run(m, m, pool_work, &P, pool_report, &P,
			                        &d) != KRL_OK) {
				fprintf(stderr, "krl train: %s\n",
				        krl_diag_format(&d, buf, sizeof buf));
				rc = KRL_EXIT_ERROR;
			}
			/* every search's change, in the tasks' order; a failed search
			 * leaves the batch unapplied (a resume replays the others) */
			for (int k = 0; k < m && rc == KRL_EXIT_OK; k++)
				if (P.err[k] && P.err[k] != KRL_EUNSUPPORTED &&
				    P.err[k] != KRL_ENOTFOUND) {
					fprintf(stderr, "krl train: %s: %s\n(run the same "
					                "command again to resume)\n",
					        ids[P.task[k]], P.why[k]);
					rc = KRL_EXIT_ERROR;
				}
			for (int k = 0; k < m && rc == KRL_EXIT_OK; k++) {
				const char *id = ids[P.task[k]];
				if (P.err[k]) {
					fprintf(stderr, "  %s skipped: %s\n", id, P.why[k]);
					t.skipped++;
					continue;
				}
				krl_policy_free(after);
				after = NULL;
				if (part_path(&P, k, path, sizeof path, &d) < 0 ||
				    krl_policy_load(path, &after, &d) != KRL_OK ||
				    krl_policy_add_change(pol, after, start) != KRL_OK) {
					fprintf(stderr, "krl train: %s: %s\n", id,
					        d.msg[0] ? krl_diag_format(&d, buf, sizeof buf)
					                 : "out of memory");
					rc = KRL_EXIT_ERROR;
					break;
				}
				train_row(&t, id, P.sum[k]);
			}
			for (int k = 0; k < m; k++) {
				json_decref(P.sum[k]);
				P.sum[k] = NULL;
				if (part_path(&P, k, path, sizeof path, &d) == 0)
					unlink(path);
			}
			unlink(P.start);
			/* The weights after every batch: a stop keeps them. */
			if (rc == KRL_EXIT_OK &&
			    krl_policy_save(pol, a->weights_out, &d) != KRL_OK) {
				fprintf(stderr, "krl train: %s\n",
				        krl_diag_format(&d, buf, sizeof buf));
				rc = KRL_EXIT_ERROR;
			}
		}
		if (rc == KRL_EXIT_OK)
			train_round_line(&t, r, a->rounds, n);
	}
	if (rc == KRL_EXIT_OK)
		printf("wrote %s: %d non-zero weights\n", a->weights_out,
		       krl_policy_size(pol));
out:
	krl_policy_free(pol);
	krl_policy_free(start);
	krl_policy_free(after);
	free(order);
	free(P.err);
	free(P.sum);
	free(P.why);
	return rc;
}

/* The comparison on `workers` workers: the exit status. */
static int evaluate_pool(trainargs *a, const krl_suite *s, char **ids, int n,
                         int workers, int ndev)
{
	trainpool P;
	krl_diag d = {0};
	char buf[1200];
	int err0 = 0, rc = KRL_EXIT_OK;
	memset(&P, 0, sizeof P);
	if (eval_weights(a, P.fp) < 0)
		return KRL_EXIT_ERROR;
	evalstate E = { .rows = json_array() };
	P.a = a;
	P.s = s;
	P.ids = ids;
	P.n = n;
	P.ndev = ndev;
	P.E = &E;
	P.err = &err0;
	pool_banner(&P, workers);
	eval_header(a);
	if (krl_cli_workers_run(workers, n, pool_work, &P, pool_report, &P,
	                        &d) != KRL_OK) {
		fprintf(stderr, "krl train --eval: %s\n",
		        krl_diag_format(&d, buf, sizeof buf));
		rc = KRL_EXIT_ERROR;
	}
	if (err0)
		rc = KRL_EXIT_ERROR;
	rc = eval_finish(a, &E, a->weights, P.fp, rc);
	json_decref(E.rows);
	return rc;
}

int krl_cmd_train(int argc, char **argv)
{
	trainargs a;
	krl_suite *s = NULL;
	krl_judge *j = NULL;
	krl_store *st = NULL;
	krl_diag d = {0};
	char buf[1200], split[4200];
	char **ids = NULL;
	int n = 0, rc = KRL_EXIT_ERROR;
	if (parse(argc, argv, &a) != 0)
		return KRL_EXIT_USAGE;
	if (krl_suite_load(NULL, &s, &d) != KRL_OK)
		goto fail;
	if ((a.split ? krl_fmt_fixed(split, sizeof split, "the split path", &d,
	                             "%s", a.split)
	             : krl_fmt_fixed(split, sizeof split, "the split path", &d,
	                             "%s/splits/level%d.txt", s->root,
	                             a.level)) != KRL_OK ||
	    read_split(split, a.part, s, &ids, &n, &d) != KRL_OK)
		goto fail;
	if (a.list) {
		for (int i = 0; i < n; i++)
			printf("%s\n", ids[i]);
		rc = fflush(stdout) ? KRL_EXIT_ERROR : KRL_EXIT_OK;
		goto out;
	}
	/* Fail before any GPU work when the weights cannot be written, or
	 * would overwrite the starting point (a resume starts again from
	 * --weights and replays the store). */
	if (!a.eval) {
		char dir[4200], r1[4200], r2[4200];
		if (krl_fmt_fixed(dir, sizeof dir, "the --weights-out path", &d,
		                  "%s", a.weights_out) != KRL_OK)
			goto fail;
		if (access(dirname(dir), W_OK) != 0) {
			fprintf(stderr, "krl train: cannot write %s: %s\n", a.weights_out,
			        strerror(errno));
			goto out;
		}
		if (a.weights && realpath(a.weights, r1) &&
		    realpath(a.weights_out, r2) && !strcmp(r1, r2)) {
			fprintf(stderr, "krl train: --weights-out must not be the "
			                "--weights file (%s): a resumed training starts "
			                "again from --weights\n", a.weights);
			rc = KRL_EXIT_USAGE;
			goto out;
		}
	}
	/* Workers: --workers, else one per visible GPU (from --device on)
	 * when there are several tasks; never more than the tasks. The count
	 * comes from a child: this process must not touch CUDA before it
	 * forks the workers. */
	int ndev = 1, workers = a.workers;
	if (n > 1 && workers != 1) {
		int c = krl_cli_device_count() - a.jo.device;
		ndev = c > 0 ? c : 1;
		if (!workers)
			workers = ndev;
	}
	if (workers < 1)
		workers = 1;
	if (workers > n)
		workers = n;
	if (workers > 1) {
		rc = a.eval ? evaluate_pool(&a, s, ids, n, workers, ndev)
		            : train_pool(&a, s, ids, n, workers, ndev);
		goto out;
	}
	if (krl_store_open(a.db, &st, &d) != KRL_OK ||
	    krl_judge_create(&a.jo, &j, &d) != KRL_OK)
		goto fail;
	rc = a.eval ? evaluate(&a, s, ids, n, j, st) : train(&a, s, ids, n, j, st);
	goto out;
fail:
	fprintf(stderr, "krl train: %s\n", krl_diag_format(&d, buf, sizeof buf));
out:
	for (int i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	krl_judge_free(j);
	krl_store_close(st);
	krl_suite_free(s);
	return rc;
}
