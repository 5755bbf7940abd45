/*
 * krl train: learns the builtin policy's weights by running its search
 * with learning on over the training part of a split of the suite, and
 * (--eval) compares the learned weights with uniform random choice on the
 * held-out part at equal budget (docs/optimizer.md, section 5).
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
	"                      (default policy/builtin.weights; not the --weights file)\n"
	"  --seed S            seed of the task order and the proposals (default 1)\n"
	"  --results FILE      --eval: write the comparison as one JSON object\n"
	"  --at N[,N...]       --eval: also compare the best of each search's first N\n"
	"                      evaluations (N below --budget; at most 8 of them)\n"
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
	int rounds, eval, level, list;
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

/* Trains: returns the exit status. */
static int train(trainargs *a, const krl_suite *s, char **ids, int n,
                 krl_judge *j, krl_store *st)
{
	krl_policy *pol = NULL;
	krl_diag d = {0};
	char buf[1200], fp0[17], run[600];
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
		double logsum = 0;
		int nlog = 0, skipped = 0;
		shuffle(order, n, a->seed, r);
		for (int i = 0; i < n; i++) {
			const char *id = ids[order[i]];
			krl_builtin_opts bo = a->bo;
			json_t *sum = NULL;
			/* A run per (task, round), named by everything that makes it:
			 * the same command finds it again. */
			if (krl_fmt_fixed(run, sizeof run, "the run name", &d,
			                  "train/%s/b%d/s%llu/w%.8s/r%d/%s", bo.shapes,
			                  bo.budget, (unsigned long long)a->seed, fp0,
			                  r, id) != KRL_OK) {
				fprintf(stderr, "krl train: %s\n", d.msg);
				rc = KRL_EXIT_ERROR;
				break;
			}
			bo.run_name = run;
			bo.learn = 1;
			bo.seed = krl_splitmix64(a->seed ^ krl_splitmix64((uint64_t)r));
			fprintf(stderr, "[round %d/%d, task %d/%d] %s\n", r + 1,
			        a->rounds, i + 1, n, id);
			e = krl_cli_search(s, id, j, st, pol, &bo, &sum, &d);
			if (e == KRL_EUNSUPPORTED || e == KRL_ENOTFOUND) {
				fprintf(stderr, "  skipped: %s\n",
				        krl_diag_format(&d, buf, sizeof buf));
				skipped++;
				continue;
			}
			if (e != KRL_OK) {
				fprintf(stderr, "krl train: %s: %s\n(run the same command "
				                "again to resume)\n", id,
				        krl_diag_format(&d, buf, sizeof buf));
				rc = KRL_EXIT_ERROR;
				break;
			}
			double x = json_number_value(json_object_get(sum, "speedup"));
			if (x > 0) {
				logsum += log(x);
				nlog++;
			}
			char best[32] = "none correct";
			if (x > 0)
				snprintf(best, sizeof best, "%.3fx", x);
			printf("%-30s best %-12s (%lld evaluations)\n", id, best,
			       (long long)json_integer_value(
				       json_object_get(sum, "evaluations")));
			json_decref(sum);
			/* The weights after every task: a stop keeps them. */
			if ((e = krl_policy_save(pol, a->weights_out, &d)) != KRL_OK) {
				fprintf(stderr, "krl train: %s\n",
				        krl_diag_format(&d, buf, sizeof buf));
				rc = KRL_EXIT_ERROR;
				break;
			}
			fflush(stdout);
		}
		if (rc == KRL_EXIT_OK)
			printf("round %d/%d: %d tasks, %d skipped (the optimizer cannot "
			       "take them); geometric mean of the best speedups %.3fx "
			       "over %d\n", r + 1, a->rounds, n, skipped,
			       nlog ? exp(logsum / nlog) : 0, nlog);
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
static int arm(trainargs *a, const krl_suite *s, const char *id, krl_judge *j,
               krl_store *st, int uniform, const char *fp, double *best,
               double *at, krl_diag *d)
{
	krl_policy *pol = NULL;
	krl_builtin_opts bo = a->bo;
	char run[600];
	json_t *sum = NULL;
	*best = NAN;
	if (krl_fmt_fixed(run, sizeof run, "the run name", d,
	                  "eval/%s/%s/b%d/s%llu/%s/%s",
	                  uniform ? "uniform" : "weights", bo.shapes, bo.budget,
	                  (unsigned long long)a->seed, uniform ? "-" : fp,
	                  id) != KRL_OK)
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

/* Compares the weights with uniform random choice: the exit status. */
static int evaluate(trainargs *a, const krl_suite *s, char **ids, int n,
                    krl_judge *j, krl_store *st)
{
	krl_policy *pol = NULL;
	krl_diag d = {0};
	char buf[1200], fp[17], date[32];
	const char *wpath = a->weights ? a->weights : krl_policy_default_path();
	if (krl_policy_load(wpath, &pol, &d) != KRL_OK) {
		fprintf(stderr, "krl train --eval: %s\n",
		        krl_diag_format(&d, buf, sizeof buf));
		return KRL_EXIT_ERROR;
	}
	krl_policy_fingerprint(pol, fp);
	krl_policy_free(pol);
	a->weights = wpath;
	json_t *rows = json_array();
	tally all = {0}, at[MAX_AT];
	memset(at, 0, sizeof at);
	int skipped = 0, rc = KRL_EXIT_OK;
	printf("%-30s %10s %10s", "problem", "weights", "uniform");
	for (int k = 0; k < a->nat; k++)
		printf("   at %-4d weights / uniform", a->at[k]);
	printf("\n");
	for (int i = 0; i < n && rc == KRL_EXIT_OK; i++) {
		double x[2], px[2][MAX_AT];
		int st2[2];
		/* Alternate which arm goes first: the GPU's state is shared. */
		for (int k = 0; k < 2; k++) {
			int uniform = (k + i) % 2;
			fprintf(stderr, "[task %d/%d] %s, %s\n", i + 1, n, ids[i],
			        uniform ? "uniform random" : "weights");
			st2[uniform] = arm(a, s, ids[i], j, st, uniform, fp, &x[uniform],
			                   px[uniform], &d);
			if (st2[uniform] < 0) {
				fprintf(stderr, "krl train --eval: %s: %s\n(run the same "
				                "command again to resume)\n", ids[i],
				        krl_diag_format(&d, buf, sizeof buf));
				rc = KRL_EXIT_ERROR;
				break;
			}
		}
		if (rc != KRL_EXIT_OK)
			break;
		if (st2[0] > 0 || st2[1] > 0) {
			printf("%-30s %10s %10s  (the optimizer cannot take it)\n", ids[i],
			       "-", "-");
			skipped++;
			continue;
		}
		printf("%-30s %9.3fx %9.3fx", ids[i], x[0], x[1]);
		json_t *row = json_pack("{s:s, s:o, s:o}", "problem", ids[i],
		                        "weights", num_or_null(x[0]), "uniform",
		                        num_or_null(x[1]));
		json_t *ats = a->nat ? json_array() : NULL;
		for (int k = 0; k < a->nat; k++) {
			printf("   %14.3fx / %.3fx", px[0][k], px[1][k]);
			json_array_append_new(ats, json_pack("{s:i, s:o, s:o}",
			                                     "budget", a->at[k],
			                                     "weights",
			                                     num_or_null(px[0][k]),
			                                     "uniform",
			                                     num_or_null(px[1][k])));
			tally_add(&at[k], px[0][k], px[1][k]);
		}
		if (ats)
			json_object_set_new(row, "at", ats);
		printf("\n");
		fflush(stdout);
		json_array_append_new(rows, row);
		tally_add(&all, x[0], x[1]);
	}
	printf("\ngeometric mean of the best speedups over %d problems (both "
	       "found a correct candidate): weights %.3fx, uniform random %.3fx; "
	       "weights better on %d, worse on %d; %d skipped\n",
	       all.both, tally_gm(&all, 0), tally_gm(&all, 1), all.wins,
	       all.losses, skipped);
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
			num_or_null(tally_gm(&all, 0)), "uniform_geomean",
			num_or_null(tally_gm(&all, 1)), "problems_both", all.both,
			"weights_better", all.wins, "weights_worse", all.losses,
			"skipped", skipped, "per_problem", json_incref(rows), "commit",
			krl_cli_commit(), "date", date);
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
	json_decref(rows);
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
