/*
 * kernelrl: the task suite: every *.task file under a root folder
 * (tasks/level1/..., tasks/level2/...), addressed by id ("level1/19_relu",
 * the path under the root without ".task").
 */
#ifndef KRL_SUITE_H
#define KRL_SUITE_H

#include "krl/error.h"
#include "krl/lang.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct krl_suite {
	char *root;
	char **ids;              /* sorted by level, then problem number */
	char **paths;
	int n;
} krl_suite;

/* The tasks folder: $KRL_TASKS, else ./tasks if it exists, else the source
 * tree's tasks/ (compiled in). Static storage. */
const char *krl_tasks_root(void);

/* Lists the suite under root (NULL: krl_tasks_root()). Free with
 * krl_suite_free. */
krl_err krl_suite_load(const char *root, krl_suite **out, krl_diag *d);
void krl_suite_free(krl_suite *s);

/*
 * Finds a task by reference: an existing file path, an exact id, or an
 * unambiguous id prefix ending at a boundary ("level1/19" matches
 * "level1/19_relu" but not "level1/190_x"). Returns its index or -1 with d
 * saying why (not found, or which ids are ambiguous).
 */
int krl_suite_find(const krl_suite *s, const char *ref, krl_diag *d);

/* Loads task ref (as krl_suite_find) with t->id set. */
krl_err krl_suite_load_task(const krl_suite *s, const char *ref,
                            krl_task **out, krl_diag *d);

#ifdef __cplusplus
}
#endif
#endif
