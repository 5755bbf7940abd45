/* The task suite: discovery and lookup of task files by id. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "krl/suite.h"

#ifndef KRL_SOURCE_DIR
#define KRL_SOURCE_DIR "."
#endif

const char *krl_tasks_root(void)
{
	static char root[4096];
	struct stat st;
	const char *env = getenv("KRL_TASKS");
	if (env && *env)
		snprintf(root, sizeof root, "%s", env);
	else if (stat("tasks", &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(root, sizeof root, "tasks");
	else
		snprintf(root, sizeof root, "%s/tasks", KRL_SOURCE_DIR);
	return root;
}

static int ends_with(const char *z, const char *suffix)
{
	size_t n = strlen(z), m = strlen(suffix);
	return n >= m && !strcmp(z + n - m, suffix);
}

/* Orders "level1/2_x" before "level1/10_y": by folder, then by the leading
 * problem number, then by name. */
static int id_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	const char *sx = strrchr(x, '/'), *sy = strrchr(y, '/');
	size_t dx = sx ? (size_t)(sx - x) : 0, dy = sy ? (size_t)(sy - y) : 0;
	int c = strncmp(x, y, dx < dy ? dx : dy);
	if (c || dx != dy)
		return c ? c : (dx < dy ? -1 : 1);
	long nx = strtol(sx ? sx + 1 : x, NULL, 10);
	long ny = strtol(sy ? sy + 1 : y, NULL, 10);
	if (nx != ny)
		return nx < ny ? -1 : 1;
	return strcmp(x, y);
}

static int push(char ***v, int *n, int *cap, char *z)
{
	if (*n == *cap) {
		int nc = *cap ? 2 * *cap : 64;
		char **nv = realloc(*v, (size_t)nc * sizeof *nv);
		if (!nv)
			return -1;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = z;
	return 0;
}

krl_err krl_suite_load(const char *root, krl_suite **out, krl_diag *d)
{
	krl_suite *s = calloc(1, sizeof *s);
	char **ids = NULL;
	int n = 0, cap = 0;
	*out = NULL;
	if (!s)
		return KRL_ENOMEM;
	s->root = strdup(root ? root : krl_tasks_root());
	DIR *top = opendir(s->root);
	if (!top) {
		krl_suite_free(s);
		return krl_diag_set(d, KRL_EIO, (krl_pos){0},
		                    "cannot open the tasks folder %s",
		                    root ? root : krl_tasks_root());
	}
	struct dirent *e;
	while ((e = readdir(top))) {
		if (e->d_name[0] == '.')
			continue;
		char sub[4096];
		snprintf(sub, sizeof sub, "%s/%s", s->root, e->d_name);
		DIR *dd = opendir(sub);
		if (!dd)
			continue;
		struct dirent *f;
		while ((f = readdir(dd))) {
			if (f->d_name[0] == '.' || !ends_with(f->d_name, ".task"))
				continue;
			size_t len = strlen(e->d_name) + 1 + strlen(f->d_name) - 5;
			char *id = malloc(len + 1);
			if (!id || push(&ids, &n, &cap, id) != 0) {
				free(id);
				break;
			}
			snprintf(id, len + 1, "%s/%.*s", e->d_name,
			         (int)(strlen(f->d_name) - 5), f->d_name);
		}
		closedir(dd);
	}
	closedir(top);
	qsort(ids, (size_t)n, sizeof *ids, id_cmp);
	s->ids = ids;
	s->n = n;
	s->paths = calloc((size_t)(n ? n : 1), sizeof *s->paths);
	if (!s->paths) {
		krl_suite_free(s);
		return KRL_ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		size_t len = strlen(s->root) + strlen(ids[i]) + 8;
		s->paths[i] = malloc(len);
		if (s->paths[i])
			snprintf(s->paths[i], len, "%s/%s.task", s->root, ids[i]);
	}
	*out = s;
	return KRL_OK;
}

void krl_suite_free(krl_suite *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++) {
		free(s->ids[i]);
		if (s->paths)
			free(s->paths[i]);
	}
	free(s->ids);
	free(s->paths);
	free(s->root);
	free(s);
}

int krl_suite_find(const krl_suite *s, const char *ref, krl_diag *d)
{
	int hit = -1, nhits = 0;
	size_t m = strlen(ref);
	char *clean = strdup(ref);
	if (!clean)
		return -1;
	if (ends_with(clean, ".task"))
		clean[m - 5] = 0;
	/* A path into the suite ("tasks/level1/19_relu.task") ends with an id. */
	for (int i = 0; i < s->n; i++) {
		size_t k = strlen(s->ids[i]), c = strlen(clean);
		if (!strcmp(clean, s->ids[i]) ||
		    (c > k && !strcmp(clean + c - k, s->ids[i]) &&
		     clean[c - k - 1] == '/')) {
			free(clean);
			return i;
		}
	}
	m = strlen(clean);
	for (int i = 0; i < s->n; i++) {
		const char *id = s->ids[i];
		if (!strncmp(id, clean, m) && (id[m] == '_' || id[m] == 0)) {
			hit = i;
			nhits++;
		}
	}
	if (nhits == 1) {
		free(clean);
		return hit;
	}
	if (nhits > 1)
		krl_diag_set(d, KRL_ENOTFOUND, (krl_pos){0},
		             "task '%s' is ambiguous (%d tasks match)", ref, nhits);
	else
		krl_diag_set(d, KRL_ENOTFOUND, (krl_pos){0},
		             "no task '%s' in %s (try `krl tasks`)", ref, s->root);
	free(clean);
	return -1;
}

krl_err krl_suite_load_task(const krl_suite *s, const char *ref,
                            krl_task **out, krl_diag *d)
{
	struct stat st;
	int i = krl_suite_find(s, ref, d);
	krl_err r;
	*out = NULL;
	if (i < 0) {
		/* A task file outside the suite. */
		if (stat(ref, &st) != 0 || !S_ISREG(st.st_mode))
			return KRL_ENOTFOUND;
		r = krl_task_load(ref, out, d);
		if (r == KRL_OK)
			(*out)->id = strdup(ref);
		return r;
	}
	r = krl_task_load(s->paths[i], out, d);
	if (r == KRL_OK)
		(*out)->id = strdup(s->ids[i]);
	return r;
}
