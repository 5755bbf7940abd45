/*
 * Generated candidates computed on the CPU: each level-1 task's candidate
 * (the default choice and random ones) and each level-2 and level-3
 * task's (the default choice) is compiled with the host C++
 * compiler against tests/opt/cudasim.h, a stand-in for the CUDA execution
 * model (threads as coroutines, barriers and warp shuffles, shared memory),
 * run on the task's tiny shapes (and a hidden-like draw) with a small
 * sm_count, library calls done by the float64 golden ops, and its outputs
 * compared with the golden reference within the task's tolerance. Every
 * buffer ends at an unmapped page, so reading or writing past its end
 * crashes the test; scratch and outputs start poisoned (NaN).
 *
 * Needs a C++ compiler (g++, or $CXX); without one the test skips. The
 * header is precompiled once per process and each distinct candidate
 * compiled once (see "Where the time goes" below).
 *
 * An argument k/n runs part k of n of every test's cases (ctest runs the
 * parts as opt_test_codegen_sim_<k>of<n>, side by side under ctest -j);
 * the parts together run every case with the seed and choice it has in a
 * whole run; no argument runs all.
 * KRL_SIM_CHOICES=n runs n random choices per task (default 1 on level
 * 1, 0 on level 2: a level-2 run of every task's default takes about a
 * minute, KRL_SIM_ONLY=level2/);
 * KRL_SIM_SWEEP=1 runs, instead, every option of every decision with the
 * others at their defaults;
 * KRL_SIM_ONLY=substr runs the matching tasks only (ids, or the paths
 * of the geometry tests' tasks); KRL_SIM_TEST=pattern the matching tests
 * only (cmocka's filter: channels_last_pools*). A task whose default
 * choice is a library call alone runs its random choices (and, for a
 * transposed convolution, the forward form of section 3b of
 * docs/optimizer.md: an init, a forward call and a scatter kernel).
 *
 * A third runs the transposed-convolution geometries of tests/data/tconv/
 * in their forward form (lib.tconv=fwd) at all three of their sets, and a
 * fourth the middle-axis reductions of tests/data/reduce/ with each
 * row.cols option (the wide column kernel's main loop needs rows longer
 * than the level-1 tiny sets have), and a fifth a task of views
 * (tests/data/views/), of slices and of cats written in place, fused and
 * not.
 *
 * A second test runs the pooling geometries of tests/data/pool/ (ceil
 * mode, dilation, padding, 1-d to 3-d, max with its index and avg with
 * each divisor rule, a fused pool) with every option of the pool kernel's
 * knobs, at all three of their shape sets, and max pooling again with
 * NaNs in the input.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "graphtest.h"
#include "krl/nvrtc.h"
#include "krl/ops.h"
#include "krl/suite.h"

/* ==== Buffers ending at a guard page ==== */

typedef struct gbuf {
	void *map;
	size_t maplen;
	void *data;
} gbuf;

static void *guarded(gbuf *g, size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (bytes + page - 1) / page * page;
	if (!len)
		len = page;
	g->maplen = len + page;
	g->map = mmap(NULL, g->maplen, PROT_READ | PROT_WRITE,
	              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(g->map != MAP_FAILED);
	assert_int_equal(mprotect((char *)g->map + len, page, PROT_NONE), 0);
	/* 16-byte aligned like device buffers (256 there); the end is within
	 * 15 bytes of the guard */
	size_t off = (len - bytes) & ~(size_t)15;
	g->data = (char *)g->map + off;
	return g->data;
}

static double get(const void *p, krl_dtype t, int64_t i)
{
	switch (t) {
	case KRL_F32: return ((const float *)p)[i];
	case KRL_F64: return ((const double *)p)[i];
	case KRL_I32: return ((const int32_t *)p)[i];
	case KRL_I64: return (double)((const int64_t *)p)[i];
	case KRL_BOOL: return ((const uint8_t *)p)[i];
	default: return NAN;
	}
}

static void put(void *p, krl_dtype t, int64_t i, double v)
{
	switch (t) {
	case KRL_F32: ((float *)p)[i] = (float)v; break;
	case KRL_F64: ((double *)p)[i] = v; break;
	case KRL_I32: ((int32_t *)p)[i] = (int32_t)v; break;
	case KRL_I64: ((int64_t *)p)[i] = (int64_t)v; break;
	case KRL_BOOL: ((uint8_t *)p)[i] = v != 0; break;
	default: break;
	}
}

/* ==== Compiling a candidate against the stand-in ==== */

static int rm_entry(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static const char *cxx(void)
{
	const char *c = getenv("CXX");
	return c && *c ? c : "g++";
}

static int have_cxx(void)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "%s --version > /dev/null 2>&1", cxx());
	return system(cmd) == 0;
}

/* Where the time goes: the host compiler, about 1 s of CPU a candidate,
 * two thirds of it parsing cudasim.h's C++ headers (the kernels' runs take
 * a few percent). So the header is precompiled once per process (g++'s
 * .gch; another compiler just parses it each time), each distinct
 * candidate text is compiled once per process, however many shape sets,
 * seeds and NaN patterns run it, and linked with gold where there is one.
 * -O0 was measured too: 15% less compile time, slower runs; kept -O1. */

/* A precompiled cudasim.h: its folder (made once per process, removed by
 * main), or "" where none could be built. */
static char g_pchdir[64];
static int g_pch_tried;
/* "-fuse-ld=gold " where the compiler links with gold (a fifth of the
 * time per candidate went to GNU ld; gold takes a fifth of that), or "" */
static const char *g_ld = "";

/* The folder holding cudasim.h: under the working directory (the source
 * tree, as ctest runs tests), else beside the tasks folder the build
 * knows. */
static void sim_include(char *inc, size_t n)
{
	char path[1100];
	assert_non_null(getcwd(inc, n - 32));
	strcat(inc, "/tests/opt");
	snprintf(path, sizeof path, "%s/cudasim.h", inc);
	if (access(path, R_OK) != 0)
		snprintf(inc, n, "%s/../tests/opt", krl_tasks_root());
}

/* The compiler flags every candidate and the precompiled header share
 * (a .gch is used only under the flags it was built with). */
#define SIM_CXXFLAGS "-std=c++17 -O1 -w -fPIC"

static void build_pch(const char *inc)
{
	if (g_pch_tried)
		return;
	g_pch_tried = 1;
	snprintf(g_pchdir, sizeof g_pchdir, "/tmp/krl-simpch-XXXXXX");
	if (!mkdtemp(g_pchdir)) {
		g_pchdir[0] = 0;
		return;
	}
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "%s " SIM_CXXFLAGS " -x c++-header "
	         "%s/cudasim.h -o %s/cudasim.h.gch > %s/cc.log 2>&1", cxx(), inc,
	         g_pchdir, g_pchdir);
	if (system(cmd) != 0) {
		/* no precompiled header: each compile parses cudasim.h */
		snprintf(cmd, sizeof cmd, "%s/cudasim.h.gch", g_pchdir);
		remove(cmd);
	}
	snprintf(cmd, sizeof cmd, "echo 'int krl_probe;' | %s " SIM_CXXFLAGS
	         " -shared -fuse-ld=gold -x c++ - -o %s/probe.so > /dev/null "
	         "2>&1", cxx(), g_pchdir);
	if (system(cmd) == 0)
		g_ld = "-fuse-ld=gold ";
}

/* Texts compiled in this process, each into <dir>/k-<hash>.so. */
typedef struct sofile {
	char *text;
	char path[1100];
} sofile;
static sofile *g_so;
static int g_nso, g_capso;

static uint64_t fnv(const char *z)
{
	uint64_t h = 1469598103934665603ull;
	for (; *z; z++)
		h = (h ^ (unsigned char)*z) * 1099511628211ull;
	return h;
}

/* The shared object of text under dir, compiled on first use; its path in
 * out. 0, or -1 when it does not compile (its log printed). */
static int compile_so(const char *dir, const char *text,
                      const krl_candidate *c, char *out, size_t nout)
{
	size_t dl = strlen(dir);
	for (int i = 0; i < g_nso; i++)
		if (!strncmp(g_so[i].path, dir, dl) && g_so[i].path[dl] == '/' &&
		    !strcmp(g_so[i].text, text)) {
			snprintf(out, nout, "%s", g_so[i].path);
			return 0;
		}
	char inc[1024];
	sim_include(inc, sizeof inc);
	build_pch(inc);
	char tag[40], path[1200], cmd[4096];
	snprintf(tag, sizeof tag, "%016llx", (unsigned long long)fnv(text));
	/* two texts of one hash (never seen) would only share a name */
	for (int i = 0; i < g_nso; i++)
		if (strstr(g_so[i].path, tag)) {
			snprintf(tag + 16, sizeof tag - 16, "-%d", g_nso);
			break;
		}
	snprintf(path, sizeof path, "%s/gen-%s.cu", dir, tag);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(path, sizeof path, "%s/launch-%s.cpp", dir, tag);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#include \"cudasim.h\"\n#include \"gen-%s.cu\"\n", tag);
	fprintf(f, "extern \"C\" void krl_sim_reset(void)\n{\n\tsim::reset();\n}\n");
	for (int k = 0; k < c->nkernels; k++)
		fprintf(f, "extern \"C\" void krl_launch_%s(const unsigned *g, "
		        "const unsigned *b, void **a)\n{\n\tsim::launch(g[0], g[1], "
		        "g[2], b[0], b[1], b[2], [&] { sim::call(%s, a); });\n}\n",
		        c->kernels[k].name, c->kernels[k].name);
	fclose(f);
	/* the .gch folder first: g++ takes cudasim.h.gch there */
	char pch[100] = "";
	if (g_pchdir[0])
		snprintf(pch, sizeof pch, "-I%s ", g_pchdir);
	snprintf(cmd, sizeof cmd, "%s " SIM_CXXFLAGS " -shared %s%s-I%s -I%s "
	         "-o %s/k-%s.so %s > %s/cc-%s.log 2>&1", cxx(), g_ld, pch, inc,
	         dir, dir, tag, path, dir, tag);
	if (system(cmd) != 0) {
		snprintf(cmd, sizeof cmd, "head -c 3000 %s/cc-%s.log", dir, tag);
		if (system(cmd)) {
		}
		return -1;
	}
	if (g_nso == g_capso) {
		g_capso = g_capso ? 2 * g_capso : 64;
		g_so = realloc(g_so, (size_t)g_capso * sizeof *g_so);
		assert_non_null(g_so);
	}
	sofile *e = &g_so[g_nso++];
	e->text = strdup(text);
	assert_non_null(e->text);
	snprintf(e->path, sizeof e->path, "%s/k-%s.so", dir, tag);
	snprintf(out, nout, "%s", e->path);
	return 0;
}

/* Loads text's shared object (compiling it on first use) with the
 * stand-in's scheduler at its seed, as a fresh load would have it;
 * returns its handle. */
static void *build_so(const char *dir, const char *text,
                      const krl_candidate *c)
{
	char path[1200];
	if (compile_so(dir, text, c, path, sizeof path))
		return NULL;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		printf("dlopen: %s\n", dlerror());
		return NULL;
	}
	void (*reset)(void) = (void (*)(void))(uintptr_t)dlsym(h, "krl_sim_reset");
	assert_non_null(reset);
	reset();
	return h;
}

/* Forgets the shared objects compiled under dir (about to be removed). */
static void forget_dir(const char *dir)
{
	size_t dl = strlen(dir);
	int n = 0;
	for (int i = 0; i < g_nso; i++) {
		if (!strncmp(g_so[i].path, dir, dl) && g_so[i].path[dl] == '/')
			free(g_so[i].text);
		else
			g_so[n++] = g_so[i];
	}
	g_nso = n;
}

/* ==== Parts: one ctest entry per part ==== */

/* The part of the cases this process runs: g_part of g_parts (argv[1]
 * "k/n", 1 <= k <= n; default all). Each test numbers its cases (a task's
 * choice, a geometry's candidate) in a fixed order and runs those whose
 * number is g_part modulo g_parts; every random draw is still made for
 * the cases of other parts, so each case keeps its seed and choice. */
static int g_part, g_parts = 1;

/* Whether case *item is this part's; counts it. */
static int mine(int *item)
{
	return (*item)++ % g_parts == g_part;
}

typedef void (*launch_fn)(const unsigned *, const unsigned *, void **);

/* Runs steps (init or body) of program p on the buffers gb: kernels from
 * the compiled so, library calls as the golden op on doubles. 0, or -1
 * when a golden op fails. */
static int64_t run_steps(const krl_program *p, const krl_candidate *c,
                         void *so, gbuf *gb, const krl_step *steps,
                         int nsteps, const char *id)
{
	int64_t bad = 0;
	for (int s = 0; s < nsteps && bad >= 0; s++) {
		const krl_step *st = &steps[s];
		if (st->kind == KRL_ST_LAUNCH) {
			const char *name = c->kernels[st->kernel].name;
			char sym[256];
			snprintf(sym, sizeof sym, "krl_launch_%s", name);
			launch_fn fn = (launch_fn)(uintptr_t)dlsym(so, sym);
			assert_non_null(fn);
			void *args[128];
			uint64_t vals[128];
			void *ptrs[128];
			assert_true(st->nargs <= 128);
			for (int a = 0; a < st->nargs; a++) {
				const krl_karg *ka = &st->args[a];
				if (ka->buf >= 0) {
					ptrs[a] = gb[ka->buf].data;
					args[a] = &ptrs[a];
				} else {
					vals[a] = 0;
					memcpy(&vals[a], ka->bytes, ka->size);
					args[a] = &vals[a];
				}
			}
			fn(st->grid, st->block, args);
		} else {
			/* a library call: the golden op on doubles */
			/* a variadic call (cat) has up to KRL_MAX_CALL_IN
			 * inputs: DenseNet's cats, the class-token cats */
			krl_tensor in[KRL_MAX_CALL_IN], out[KRL_MAX_CALL_OUT];
			double *din[KRL_MAX_CALL_IN], *dout[KRL_MAX_CALL_OUT];
			for (int k = 0; k < st->nin; k++) {
				const krl_buf *b = &p->bufs[st->in[k]];
				memset(&in[k], 0, sizeof in[k]);
				in[k].dtype = b->dtype;
				in[k].ndim = b->ndim;
				memcpy(in[k].dim, b->dim, sizeof in[k].dim);
				din[k] = calloc((size_t)(b->numel ? b->numel : 1), 8);
				for (int64_t q = 0; q < b->numel; q++)
					din[k][q] = get(gb[st->in[k]].data, b->dtype, q);
				in[k].data = din[k];
			}
			for (int k = 0; k < st->nout; k++) {
				const krl_buf *b = &p->bufs[st->out[k]];
				memset(&out[k], 0, sizeof out[k]);
				out[k].dtype = b->dtype;
				out[k].ndim = b->ndim;
				memcpy(out[k].dim, b->dim, sizeof out[k].dim);
				dout[k] = calloc((size_t)(b->numel ? b->numel : 1), 8);
				out[k].data = dout[k];
			}
			krl_err r = st->op->golden(in, out, &st->attrs);
			if (r) {
				printf("%s: golden %s failed\n", id, st->op->name);
				bad = -1;
			}
			for (int k = 0; k < st->nout; k++) {
				const krl_buf *b = &p->bufs[st->out[k]];
				for (int64_t q = 0; q < b->numel; q++)
					put(gb[st->out[k]].data, b->dtype, q, dout[k][q]);
				free(dout[k]);
			}
			for (int k = 0; k < st->nin; k++)
				free(din[k]);
		}
	}
	return bad;
}

/* Runs candidate text for task t at shape set ss; compares with the
 * golden outputs of the same inputs. Returns the number of bad elements
 * (printing the first few), or -1 when it could not run. nan_every > 0
 * makes every nan_every-th element of each f32 input NaN, < 0 every
 * -nan_every-th +inf. */
static int64_t run(const krl_task *t, const char *id, const char *text,
                   const krl_shapeset *ss, uint64_t seed, const char *dir,
                   int nan_every)
{
	krl_diag d = { 0 };
	char buf[1400];
	krl_candidate *c = NULL;
	if (krl_candidate_parse(id, text, strlen(text), &c, &d)) {
		printf("%s: %s\n", id, krl_diag_format(&d, buf, sizeof buf));
		return -1;
	}
	krl_limits lim = krl_limits_sm90();
	lim.sm_count = 3; /* grid-stride loops go round more than once */
	krl_program *p = NULL, *ref = NULL;
	if (krl_program_build_shapes(t, c, ss, &lim, &p, &d) ||
	    krl_program_build_shapes(t, NULL, ss, &lim, &ref, &d)) {
		printf("%s: %s\n", id, krl_diag_format(&d, buf, sizeof buf));
		krl_program_free(p);
		krl_candidate_free(c);
		return -1;
	}
	/* the golden reference on drawn inputs */
	double **gold = calloc((size_t)ref->nbufs, sizeof *gold);
	assert_non_null(gold);
	for (int i = 0; i < ref->nbufs; i++) {
		int64_t n = ref->bufs[i].numel ? ref->bufs[i].numel : 1;
		gold[i] = calloc((size_t)n, sizeof **gold);
		assert_non_null(gold[i]);
	}
	krl_judge_draw_host(ref, gold, KRL_ROLE_PARAM, seed, NULL, NULL);
	krl_judge_draw_host(ref, gold, KRL_ROLE_INPUT, seed + 1, NULL, NULL);
	for (int i = 0; nan_every && i < ref->ntask; i++)
		if (ref->bufs[i].role == KRL_ROLE_INPUT &&
		    ref->bufs[i].dtype == KRL_F32)
			for (int64_t k = 2; k < ref->bufs[i].numel;
			     k += nan_every > 0 ? nan_every : -nan_every)
				gold[i][k] = nan_every > 0 ? NAN : INFINITY;
	/* inputs as the device sees them (f32 rounding) */
	for (int i = 0; i < ref->ntask; i++)
		if (ref->bufs[i].role != KRL_ROLE_OUTPUT &&
		    ref->bufs[i].dtype == KRL_F32)
			for (int64_t k = 0; k < ref->bufs[i].numel; k++)
				gold[i][k] = (double)(float)gold[i][k];
	KRL_ASSERT_OK(krl_exec_golden(ref, gold, &d), &d);

	void *so = build_so(dir, text, c);
	if (!so) {
		printf("%s: does not compile for the CPU stand-in\n", id);
		for (int i = 0; i < ref->nbufs; i++)
			free(gold[i]);
		free(gold);
		krl_program_free(ref);
		krl_program_free(p);
		krl_candidate_free(c);
		return -1;
	}
	gbuf *gb = calloc((size_t)p->nbufs, sizeof *gb);
	assert_non_null(gb);
	for (int i = 0; i < p->nbufs; i++) {
		const krl_buf *b = &p->bufs[i];
		if (b->role == KRL_ROLE_VIEW)
			continue; /* its root's memory, below */
		void *data = guarded(&gb[i], b->bytes ? b->bytes : 1);
		if (i < p->ntask && b->role != KRL_ROLE_OUTPUT)
			for (int64_t k = 0; k < b->numel; k++)
				put(data, b->dtype, k, gold[i][k]);
		else
			memset(data, 0xff, b->bytes); /* NaN, -1 */
	}
	/* a candidate's views (plan views the generator declares) alias
	 * their roots, as on the device */
	for (int i = 0; i < p->nbufs; i++)
		if (p->bufs[i].role == KRL_ROLE_VIEW)
			gb[i].data = (char *)gb[p->bufs[i].alias].data +
			             p->bufs[i].offset *
			             (int64_t)krl_dtype_size(p->bufs[i].dtype);
	int64_t bad = run_steps(p, c, so, gb, p->init, p->ninit, id);
	if (bad >= 0)
		bad = run_steps(p, c, so, gb, p->body, p->nbody, id);
	for (int i = 0; i < p->ntask && bad >= 0; i++) {
		const krl_buf *b = &p->bufs[i];
		if (b->role != KRL_ROLE_OUTPUT)
			continue;
		int isint = b->dtype == KRL_I32 || b->dtype == KRL_I64 ||
		            b->dtype == KRL_BOOL;
		for (int64_t k = 0; k < b->numel; k++) {
			double v = get(gb[i].data, b->dtype, k), r = gold[i][k];
			int okv = isint ? v == r :
			          (fabs(v - r) <= t->atol + t->rtol * fabs(r)) ||
			          (isnan(v) && isnan(r)) || (v == r);
			if (!okv) {
				if (bad < 5)
					printf("%s: %s[%lld] = %.9g, golden %.9g\n", id, b->name,
					       (long long)k, v, r);
				bad++;
			}
		}
	}
	for (int i = 0; i < p->nbufs; i++)
		if (gb[i].map)
			munmap(gb[i].map, gb[i].maplen);
	free(gb);
	dlclose(so);
	for (int i = 0; i < ref->nbufs; i++)
		free(gold[i]);
	free(gold);
	krl_program_free(ref);
	krl_program_free(p);
	krl_candidate_free(c);
	return bad;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Whether KRL_SIM_ONLY (unset: everything) selects the task id or path
 * z. */
static int wanted(const char *z)
{
	const char *only = getenv("KRL_SIM_ONLY");
	return !only || !*only || strstr(z, only) != NULL;
}

/* Skips library-only candidates: their meaning is the golden op's. */
static int has_kernel(const char *text)
{
	return strstr(text, "launch ") != NULL;
}

/* The shape sets of the geometry tests' tasks (tests/data/). */
static const char *const geometry_sets[] = { "tiny", "kb0", "kb1" };

/* Runs candidate text (summary what) of task t (file path) at the first
 * nsets of geometry_sets, set q with seed seed + q and nan as run's,
 * counting the runs and the wrong ones. */
static void run_first_sets(int nsets, const krl_task *t, const char *path,
                           const char *text, const char *what, uint64_t seed,
                           int nan, const char *dir, int *runs, int *wrong)
{
	for (int q = 0; q < nsets; q++) {
		const krl_shapeset *ss = krl_task_shapeset(t, geometry_sets[q]);
		assert_non_null(ss);
		int64_t bad = run(t, path, text, ss, seed + (uint64_t)q, dir, nan);
		(*runs)++;
		if (bad) {
			printf("%s (%s) at %s%s: %s\n", path, what, geometry_sets[q],
			       nan > 0 ? " with NaNs" : nan < 0 ? " with +infs" : "",
			       bad < 0 ? "did not run" : "wrong values");
			(*wrong)++;
		}
	}
}

/* run_first_sets at every set */
static void run_geometry_sets(const krl_task *t, const char *path,
                              const char *text, const char *what,
                              uint64_t seed, int nan, const char *dir,
                              int *runs, int *wrong)
{
	run_first_sets(3, t, path, text, what, seed, nan, dir, runs, wrong);
}

/* The candidate of choice line (e.g. "krl-choice: row.cols=4"), its text
 * and summary (caller frees), after checking that NVRTC compiles it for
 * the GPU. */
static void generate_compiled(krl_opt *o, const char *path, const char *line,
                              char **text, char **what)
{
	krl_diag d = { 0 };
	krl_choice ch;
	KRL_ASSERT_OK(krl_choice_parse(krl_opt_space(o), line, &ch, &d), &d);
	KRL_ASSERT_OK(krl_opt_generate(o, &ch, text, what, &d), &d);
	krl_cubin *cu = NULL;
	KRL_ASSERT_OK(krl_nvrtc_compile(*text, strlen(*text), path, "sm_90a",
	                                krl_cache_dir(), &cu, &d), &d);
	krl_cubin_free(cu);
}

/* The candidates of every task whose id starts with prefix (level "1"
 * or "2" in the summary): the default choice and nchoice random ones
 * (KRL_SIM_CHOICES overrides it), at tiny and a hidden-like set. */
/* The 3xTF32 GEMM is tensor-core PTX the CPU stand-in cannot run; its
 * epilogue (gemm_tri or the generated chain, src/opt/codegen_gemm.c) is
 * plain code. scalar_gemm(text) is text with each GEMM body replaced by a
 * scalar one with the same interface (gemm_entry<E> over the same grid of
 * 128 x 128 tiles, sums in double, e(v, row, col) on every element of C),
 * so that a gemm.impl=3xtf32 candidate's epilogue runs here. */
static const char scalar_gemm_body[] =
	"template <int TRI> struct gemm_tri {\n"
	"\tfloat alpha;\n\tlong diag;\n"
	"\t__device__ float operator()(float v, int row, int col) const {\n"
	"\t\tv *= alpha;\n"
	"\t\tif ((TRI == 1 && (long)col - row < diag) ||\n"
	"\t\t    (TRI == 2 && (long)col - row > diag))\n\t\t\tv = 0.f;\n"
	"\t\treturn v;\n\t}\n};\n"
	"template <class E> static __device__ void gemm_entry(const float *A,\n"
	"\tconst float *B, float *C, int M, int N, int K, int lda, int ldb,\n"
	"\tconst E &e)\n{\n"
	"\tconst int tn = (N + 127) / 128, bm = blockIdx.x / tn,\n"
	"\t          bn = blockIdx.x % tn;\n"
	"\tfor (int i = threadIdx.x; i < 128 * 128; i += blockDim.x) {\n"
	"\t\tconst int r = bm * 128 + i / 128, c = bn * 128 + i % 128;\n"
	"\t\tif (r >= M || c >= N)\n\t\t\tcontinue;\n"
	"\t\tdouble acc = 0;\n"
	"\t\tfor (int k = 0; k < K; k++)\n"
	"\t\t\tacc += (double)(A_KCONTIG ? A[(long)r * lda + k]\n"
	"\t\t\t                          : A[(long)k * lda + r]) *\n"
	"\t\t\t       (double)(B_KCONTIG ? B[(long)c * ldb + k]\n"
	"\t\t\t                          : B[(long)k * ldb + c]);\n"
	"\t\tC[(long)r * N + c] = e((float)acc, r, c);\n\t}\n}\n"
	/* the masked pair's forms, as the body's: MODE 1 leaves a tile that
	 * misses its row block's range unwritten (the buffer's NaNs stay),
	 * MODE 2 sums only the 32-wide k-tiles that meet it */
	"template <int MODE, class E> static __device__ void gemm_entry_rng(\n"
	"\tconst float *A, const float *B, float *C, int M, int N, int K,\n"
	"\tint lda, int ldb, const int *rng, const E &e)\n{\n"
	"\tconst int tn = (N + 127) / 128, bm = blockIdx.x / tn,\n"
	"\t          bn = blockIdx.x % tn;\n"
	"\tconst int lo = rng[2 * bm], hi = rng[2 * bm + 1];\n"
	"\tif (MODE == 1 && (bn * 128 >= hi || bn * 128 + 128 <= lo))\n"
	"\t\treturn;\n"
	"\tint k0 = 0, k1 = K;\n"
	"\tif (MODE == 2) {\n"
	"\t\tk0 = lo / 32 * 32;\n"
	"\t\tk1 = (hi + 31) / 32 * 32 < K ? (hi + 31) / 32 * 32 : K;\n"
	"\t}\n"
	"\tfor (int i = threadIdx.x; i < 128 * 128; i += blockDim.x) {\n"
	"\t\tconst int r = bm * 128 + i / 128, c = bn * 128 + i % 128;\n"
	"\t\tif (r >= M || c >= N)\n\t\t\tcontinue;\n"
	"\t\tdouble acc = 0;\n"
	"\t\tfor (int k = k0; k < k1; k++)\n"
	"\t\t\tacc += (double)(A_KCONTIG ? A[(long)r * lda + k]\n"
	"\t\t\t                          : A[(long)k * lda + r]) *\n"
	"\t\t\t       (double)(B_KCONTIG ? B[(long)c * ldb + k]\n"
	"\t\t\t                          : B[(long)k * ldb + c]);\n"
	"\t\tC[(long)r * N + c] = e((float)acc, r, c);\n\t}\n}\n";

static char *scalar_gemm(const char *text)
{
	size_t n = strlen(text);
	char *out = malloc(n + 8 * sizeof scalar_gemm_body + 1);
	assert_non_null(out);
	size_t o = 0;
	const char *p = text, *a;
	while ((a = strstr(p, "\nnamespace gemm_t"))) { /* its opening line */
		const char *open = strchr(a, '{'), *end =
			open ? strstr(open, "} /* namespace gemm_t") : NULL;
		assert_non_null(end);
		memcpy(out + o, p, (size_t)(open + 1 - p));
		o += (size_t)(open + 1 - p);
		assert_true(o + sizeof scalar_gemm_body + (size_t)(text + n - end)
		            < n + 8 * sizeof scalar_gemm_body);
		memcpy(out + o, "\n", 1);
		o += 1;
		memcpy(out + o, scalar_gemm_body, sizeof scalar_gemm_body - 1);
		o += sizeof scalar_gemm_body - 1;
		p = end;
	}
	strcpy(out + o, p);
	return out;
}

/* The index of decision dc's option called name (which it has). */
static int opt_named(const krl_decision *dc, const char *name)
{
	for (int j = 0; j < dc->nopt; j++)
		if (!strcmp(dc->opt[j], name))
			return j;
	fail_msg("decision %s has no option %s", dc->name, name);
	return 0;
}

static void candidates_compute_golden(const char *prefix, const char *level,
                                      int nchoice)
{
	if (!have_cxx()) {
		printf("SKIP: no C++ compiler (%s)\n", cxx());
		return;
	}
	char dir[] = "/tmp/krl-sim-XXXXXX";
	assert_non_null(mkdtemp(dir));
	krl_suite *s = NULL;
	krl_diag d = { 0 };
	char buf[1400];
	const char *nc = getenv("KRL_SIM_CHOICES");
	if (nc && *nc)
		nchoice = atoi(nc);
	size_t np = strlen(prefix);
	int tasks = 0, runs = 0, wrong = 0, item = 0;
	uint64_t rng = 0xc0ffee;
	KRL_ASSERT_OK(krl_suite_load(NULL, &s, &d), &d);
	for (int i = 0; i < s->n; i++) {
		if (strncmp(s->ids[i], prefix, np) != 0)
			continue;
		if (!wanted(s->ids[i]))
			continue;
		krl_task *t = NULL;
		KRL_ASSERT_OK(krl_suite_load_task(s, s->ids[i], &t, &d), &d);
		krl_opt *o = NULL;
		if (krl_opt_create(t, "kb1", &o, &d)) {
			krl_task_free(t);
			continue;
		}
		const krl_space *sp = krl_opt_space(o);
		const krl_shapeset *tiny = krl_task_shapeset(t, "tiny");
		assert_non_null(tiny);
		/* a hidden-like set too: tiny's keys drawn anew */
		krl_shapeset hid = { 0 };
		uint64_t hs = 1234 + (uint64_t)i;
		krl_limits lim = krl_limits_sm90();
		int have_hidden = krl_task_draw_hidden(t, &hs, &lim, &hid, NULL) ==
		                  KRL_OK;
		int counted = 0;
		int sweep = getenv("KRL_SIM_SWEEP") && *getenv("KRL_SIM_SWEEP") == '1';
		int nrun = nchoice;
		if (sweep) {
			nrun = 0;
			for (int j = 0; j < sp->ndec; j++)
				nrun += sp->dec[j].nopt - 1;
		}
		for (int k = 0; k <= nrun; k++) {
			krl_choice ch;
			memset(&ch, 0, sizeof ch);
			if (sweep) {
				int left = k - 1;
				for (int j = 0; k && j < sp->ndec; j++) {
					if (left >= 0 && left < sp->dec[j].nopt - 1)
						ch.opt[j] = left + 1;
					left -= sp->dec[j].nopt - 1;
				}
			}
			for (int j = 0; k && !sweep && j < sp->ndec; j++)
				ch.opt[j] = (int)(splitmix(&rng) %
				                  (uint64_t)sp->dec[j].nopt);
			/* the default of a transposed convolution is the library
			 * call alone: run its forward form instead (kernels and
			 * an init) on every such task */
			if (!k)
				KRL_ASSERT_OK(krl_choice_parse(sp, "krl-choice: "
				                               "lib.tconv=fwd", &ch, &d),
				              &d);
			/* GEMMs as library calls (the golden op); and, for the
			 * default choice, once more as the 3xTF32 GEMM with its
			 * epilogue, its body the scalar stand-in (scalar_gemm) */
			/* a forward convolution: for the default choice, once
			 * more as the implicit-GEMM kernel (its tensor-core
			 * product computed from the warp's fragments by
			 * conv_igemm.cuh's stand-in). Not on level 3: its
			 * networks carry TF32's rounding through dozens of
			 * layers and batch norms beyond what the task's
			 * tolerance allows against the float64 golden at tiny
			 * (mobilenet_v2 and efficientnet_b1 fail so, and pass
			 * with fp32 products); there the judge on the GPU
			 * decides. */
			int impl = -1, cimpl = -1;
			for (int j = 0; j < sp->ndec; j++) {
				if (!strcmp(sp->dec[j].name, "gemm.impl"))
					impl = j;
				if (!strcmp(sp->dec[j].name, "conv.impl"))
					cimpl = j;
			}
			/* v = 3: gemm.impl=mixed where offered (the GEMMs that
			 * pay as the stand-in, the others as library calls) */
			int mixed = 0;
			for (int j = 0; impl >= 0 && j < sp->dec[impl].nopt; j++)
				mixed |= !strcmp(sp->dec[impl].opt[j], "mixed");
			for (int v = 0; v < 4; v++) {
			int gv = v == 1 || v == 3;
			if (v && (k || (v == 2 ? cimpl : impl) < 0))
				continue;
			if ((v == 2 && level[0] == '3') || (v == 3 && !mixed))
				continue;
			if (impl >= 0)
				ch.opt[impl] = opt_named(&sp->dec[impl],
				                         v == 3 ? "mixed" :
				                         gv ? "3xtf32" : "lib");
			if (cimpl >= 0 && !k)
				ch.opt[cimpl] = opt_named(&sp->dec[cimpl],
				                          v == 2 ? "igemm" : "lib");
			if (!mine(&item))
				continue;
			char *text = NULL, *what = NULL;
			KRL_ASSERT_OK(krl_opt_generate(o, &ch, &text, &what, &d), &d);
			if (gv) {
				char *sim = scalar_gemm(text);
				free(text);
				text = sim;
			}

			if (!has_kernel(text)) {
				/* library calls only (a convolution's choices
				 * may write kernels, the default does not) */
				free(text);
				free(what);
				continue;
			}
			counted = 1;
			const krl_shapeset *sets[2] = { tiny, have_hidden ? &hid : NULL };
			for (int q = 0; q < 2; q++) {
				if (!sets[q])
					continue;
				int64_t bad = run(t, s->ids[i], text, sets[q], 7 + (uint64_t)k,
				                  dir, 0);
				runs++;
				if (bad) {
					char path[600];
					snprintf(path, sizeof path, "%s/fail-%s-%d.cu", dir,
					         strrchr(s->ids[i], '/') + 1, k);
					FILE *f = fopen(path, "w");
					if (f) {
						fputs(text, f);
						fclose(f);
					}
					printf("%s: choice %d%s (%s) at %s: %s (kept as %s)\n",
					       s->ids[i], k, v == 3 ? " mixed, with the GEMM's "
					       "stand-in" : gv ? " with the GEMM's stand-in" :
					       v == 2 ? " with the implicit-GEMM conv" : "",
					       what, q ? "a hidden set" : "tiny",
					       bad < 0 ? "did not run" : "wrong values", path);
					wrong++;
				}
			}
			free(text);
			free(what);
			}
		}
		tasks += counted;
		free(hid.vals);
		krl_opt_free(o);
		krl_task_free(t);
	}
	(void)buf;
	printf("level %s on the CPU stand-in (part %d of %d): %d tasks with "
	       "kernels, %d runs, %d wrong\n", level, g_part + 1, g_parts, tasks,
	       runs, wrong);
	krl_suite_free(s);
	forget_dir(dir);
	if (!wrong)
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	assert_int_equal(wrong, 0);
}

static void level1_candidates_compute_golden(void **state)
{
	(void)state;
	candidates_compute_golden("level1/", "1", 1);
}

/* Level 2 (a GEMM or convolution and a chain after it, views included):
 * the default choice of every task. */
static void level2_candidates_compute_golden(void **state)
{
	(void)state;
	candidates_compute_golden("level2/", "2", 0);
}

/* Level 3 (whole networks, slices read as narrow copies, variadic cats):
 * the default choice of every task the optimizer lowers. */
static void level3_candidates_compute_golden(void **state)
{
	(void)state;
	candidates_compute_golden("level3/", "3", 0);
}

/* Every pooling geometry of tests/data/pool/, generated at kb1 with the
 * default choice, every option of the pool knobs (pool.taps=mul with
 * each of the others) and fuse=none, run at
 * tiny, kb0 and kb1 (each with its own geometry) and, for max pooling
 * and the fused relu -> max pool -> scale, once more with NaNs in the
 * input (relu keeps NaN, as torch's does). */
static void pool_geometries_compute_golden(void **state)
{
	(void)state;
	static const char *const tasks[] = {
		"tests/data/pool/max1d.task", "tests/data/pool/max2d.task",
		"tests/data/pool/max3d.task", "tests/data/pool/max2d_chw.task",
		"tests/data/pool/avg1d.task", "tests/data/pool/avg2d.task",
		"tests/data/pool/avg3d.task", "tests/data/pool/fused.task",
		"tests/data/pool/avg3d_fixed.task",
		"tests/data/pool/max3d_fixed.task",
		"tests/data/pool/max1d_win.task", "tests/data/pool/avg1d_win.task",
		"tests/data/pool/max2d_strip.task",
	};
	if (!have_cxx()) {
		printf("SKIP: no C++ compiler (%s)\n", cxx());
		return;
	}
	char dir[] = "/tmp/krl-simpool-XXXXXX";
	assert_non_null(mkdtemp(dir));
	krl_diag d = { 0 };
	int runs = 0, wrong = 0, item = 0;
	for (size_t i = 0; i < sizeof tasks / sizeof tasks[0]; i++) {
		if (!wanted(tasks[i]))
			continue;
		krl_task *t = NULL;
		KRL_ASSERT_OK(krl_task_load(tasks[i], &t, &d), &d);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		const krl_space *sp = krl_opt_space(o);
		int max = strstr(tasks[i], "/max") != NULL;
		/* the default; every pool.ept and pool.block option (paired, so
		 * that each is run once), with pool.taps inc and again with mul
		 * (today's kernel); fuse=none where it splits kernels; every
		 * other pool.strip (a 2-d max's column strip: 2, 1 or 8 rows) */
		krl_choice ch[16];
		int nch = 1;
		memset(ch, 0, sizeof ch);
		int je = -1, jb = -1, jt = -1, jf = -1, js = -1;
		for (int j = 0; j < sp->ndec; j++) {
			if (!strcmp(sp->dec[j].name, "pool.strip"))
				js = j;
			if (!strcmp(sp->dec[j].name, "pool.ept"))
				je = j;
			if (!strcmp(sp->dec[j].name, "pool.block"))
				jb = j;
			if (!strcmp(sp->dec[j].name, "pool.taps"))
				jt = j;
			if (!strcmp(sp->dec[j].name, "fuse"))
				jf = j;
		}
		assert_true(je >= 0 && jb >= 0 && jt >= 0 && jf >= 0);
		assert_string_equal(sp->dec[jf].opt[1], "none");
		assert_string_equal(sp->dec[jt].opt[1], "mul");
		for (int tp = 0; tp < sp->dec[jt].nopt; tp++)
			for (int k = tp ? 0 : 1; k < sp->dec[jb].nopt; k++, nch++) {
				ch[nch].opt[jb] = k;
				ch[nch].opt[je] = k % sp->dec[je].nopt;
				ch[nch].opt[jt] = tp;
			}
		if (max || strstr(tasks[i], "fused"))
			ch[nch++].opt[jf] = 1;
		assert_true(js >= 0);
		for (int k = 1; k < sp->dec[js].nopt; k++)
			ch[nch++].opt[js] = k;
		assert_true(nch <= (int)(sizeof ch / sizeof ch[0]));
		for (int c = 0; c < nch; c++) {
			if (!mine(&item))
				continue;
			char *text = NULL, *what = NULL;
			KRL_ASSERT_OK(krl_opt_generate(o, &ch[c], &text, &what, &d), &d);
			assert_true(has_kernel(text));
			/* the register window where it applies: a mean
			 * (pool.taps=inc); never a max */
			if (strstr(tasks[i], "_win") && ch[c].opt[jt] == 0 &&
			    ch[c].opt[jf] == 0)
				assert_int_equal(strstr(text, "their span in registers") !=
				                 NULL, !max);
			/* the column strip where it applies (pool.taps=inc): both
			 * pools of max2d_strip; never one with its index (max2d) */
			if (ch[c].opt[jt] == 0 && ch[c].opt[jf] == 0 &&
			    (strstr(tasks[i], "_strip") || strstr(tasks[i], "max2d.")))
				assert_int_equal(strstr(text, " down a column a "
				                        "thread") != NULL,
				                 strstr(tasks[i], "_strip") != NULL);
			for (int nan = 0;
			     nan <= (max || strstr(tasks[i], "fused") ? 7 : 0); nan += 7)
				run_geometry_sets(t, tasks[i], text, what,
				                  11 + (uint64_t)c, nan, dir, &runs,
				                  &wrong);
			free(text);
			free(what);
		}
		krl_opt_free(o);
		krl_task_free(t);
	}
	printf("pooling geometries on the CPU stand-in (part %d of %d): %d "
	       "runs, %d wrong\n", g_part + 1, g_parts, runs, wrong);
	forget_dir(dir);
	if (!wrong)
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	assert_int_equal(wrong, 0);
}

/* Transposed convolutions written as forward ones (lib.tconv=fwd) on the
 * geometries of tests/data/tconv/: a bias with and without the scatter,
 * groups, output padding, per-dim strides, dilations and paddings, each
 * set with other values (the plan's expressions must follow them); the
 * grouped one also with its weight block-diagonal (lib.groups=dense),
 * forward and as the library's call. */
static void tconv_geometries_compute_golden(void **state)
{
	(void)state;
	static const char *const tasks[] = {
		"tests/data/tconv/bias1d.task", "tests/data/tconv/bias2d.task",
		"tests/data/tconv/strided3d.task",
	};
	if (!have_cxx()) {
		printf("SKIP: no C++ compiler (%s)\n", cxx());
		return;
	}
	char dir[] = "/tmp/krl-simtconv-XXXXXX";
	assert_non_null(mkdtemp(dir));
	krl_diag d = { 0 };
	int runs = 0, wrong = 0, item = 0;
	for (size_t i = 0; i < sizeof tasks / sizeof tasks[0]; i++) {
		if (!wanted(tasks[i]) || !mine(&item))
			continue;
		krl_task *t = NULL;
		KRL_ASSERT_OK(krl_task_load(tasks[i], &t, &d), &d);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		/* bias2d is grouped at kb1 (3 groups, 1 at tiny): its forward
		 * form grouped and dense, and the library's call dense */
		int grouped = strstr(tasks[i], "bias2d") != NULL;
		for (int f = 0; f < (grouped ? 3 : 1); f++) {
		char *text = NULL, *what = NULL;
		generate_compiled(o, tasks[i], f == 0 ?
		                  "krl-choice: lib.tconv=fwd lib.groups=grouped" :
		                  f == 1 ? "krl-choice: lib.tconv=fwd lib.groups=dense" :
		                  "krl-choice: lib.tconv=lib lib.groups=dense", &text,
		                  &what);
		/* offered and taken: the candidate's choice line says so */
		assert_int_equal(strstr(text, " lib.tconv=fwd") != NULL, f < 2);
		assert_int_equal(strstr(text, "launch k0_wflip ") != NULL, f < 2);
		assert_int_equal(strstr(text, "block-diagonal: zeros") != NULL,
		                 f == 1);
		assert_int_equal(strstr(text, "launch krl_wdense ") != NULL, f == 2);
		/* strided: a scatter (with the bias); stride 1: conv_bias */
		int strided = strstr(tasks[i], "bias2d") == NULL;
		assert_int_equal(strstr(text, "launch k0_scatter ") != NULL,
		                 strided);
		if (strstr(tasks[i], "bias") && f < 2)
			assert_non_null(strstr(text, strided ? "k0_t, b, y," :
			                       "call conv_bias(x, k0_wf, b) -> y"));
		if (f == 2)
			assert_non_null(strstr(text, "call conv_transpose_bias(x, "
			                       "k0_wd, b) -> y"));
		run_geometry_sets(t, tasks[i], text, what, 21 + (uint64_t)f, 0, dir,
		                  &runs, &wrong);
		free(text);
		free(what);
		}
		krl_opt_free(o);
		krl_task_free(t);
	}
	printf("transposed-convolution geometries on the CPU stand-in (part "
	       "%d of %d): %d runs, %d wrong\n", g_part + 1, g_parts, runs,
	       wrong);
	forget_dir(dir);
	if (!wrong)
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	assert_int_equal(wrong, 0);
}

/* Transposed convolutions of stride 1 as the implicit GEMM over their
 * flipped weight (lib.tconv=fwd with conv.impl=igemm) on
 * tests/data/tconv/igemm_halo.task (the halo kernel, a ReLU in its
 * epilogue) and igemm_gather.task (1-d, dilation 2, the gather kernel
 * with the bias), generated at kb1 and run at tiny, kb0 and kb1. */
static void tconv_igemm_compute_golden(void **state)
{
	(void)state;
	static const char *const tasks[] = {
		"tests/data/tconv/igemm_halo.task",
		"tests/data/tconv/igemm_gather.task",
	};
	if (!have_cxx()) {
		printf("SKIP: no C++ compiler (%s)\n", cxx());
		return;
	}
	char dir[] = "/tmp/krl-simtig-XXXXXX";
	assert_non_null(mkdtemp(dir));
	krl_diag d = { 0 };
	int runs = 0, wrong = 0, item = 0;
	for (size_t i = 0; i < sizeof tasks / sizeof tasks[0]; i++) {
		if (!wanted(tasks[i]) || !mine(&item))
			continue;
		krl_task *t = NULL;
		KRL_ASSERT_OK(krl_task_load(tasks[i], &t, &d), &d);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		char *text = NULL, *what = NULL;
		generate_compiled(o, tasks[i], "krl-choice: lib.tconv=fwd "
		                  "conv.impl=igemm", &text, &what);
		/* the flipped weight in init, then the implicit GEMM over it,
		 * no library call */
		assert_non_null(strstr(text, "launch k0_wflip "));
		assert_non_null(strstr(text, strstr(tasks[i], "halo") ?
		                       "igemm::halo_entry<" : "igemm::conv_entry<"));
		assert_non_null(strstr(text, "launch k0_conv "));
		assert_null(strstr(text, "\ncall "));
		run_geometry_sets(t, tasks[i], text, what, 71 + (uint64_t)i, 0, dir,
		                  &runs, &wrong);
		free(text);
		free(what);
		krl_opt_free(o);
		krl_task_free(t);
	}
	printf("transposed convolutions as the implicit GEMM on the CPU "
	       "stand-in (part %d of %d): %d runs, %d wrong\n", g_part + 1,
	       g_parts, runs, wrong);
	forget_dir(dir);
	if (!wrong)
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	assert_int_equal(wrong, 0);
}

/* Depthwise convolutions written as the generated kernel (conv.dw) on the
 * geometries of tests/data/dwconv/, generated at kb1 with each of its
 * options (the literal walk at 8, 4, 16 and 2 rows a thread, and the
 * library call), run at tiny, kb0 and kb1: kb0 (and some tiny) sets have
 * another window, stride or dilation, which the run-time walk takes. */
static void dwconv_geometries_compute_golden(void **state)
{
	(void)state;
	static const char *const tasks[] = {
		"tests/data/dwconv/square.task", "tests/data/dwconv/strided.task",
		"tests/data/dwconv/tall.task",
	};
	static const char *const forms[] = {
		"krl-choice: conv.dw=rows8", "krl-choice: conv.dw=rows4",
		"krl-choice: conv.dw=rows16", "krl-choice: conv.dw=lib",
		"krl-choice: conv.dw=rows2",
	};
	const size_t nf = sizeof forms / sizeof forms[0];
	if (!have_cxx()) {
		printf("SKIP: no C++ compiler (%s)\n", cxx());
		return;
	}
	char dir[] = "/tmp/krl-simdw-XXXXXX";
	assert_non_null(mkdtemp(dir));
	krl_diag d = { 0 };
	int runs = 0, wrong = 0, item = 0;
	for (size_t j = 0; j < nf * (sizeof tasks / sizeof tasks[0]); j++) {
		const char *path = tasks[j / nf];
		if (!wanted(path) || !mine(&item))
			continue;
		krl_task *t = NULL;
		KRL_ASSERT_OK(krl_task_load(path, &t, &d), &d);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		char *text = NULL, *what = NULL;
		generate_compiled(o, path, forms[j % nf], &text, &what);
		/* the generated kernel where chosen, the relu in its epilogue */
		int gen = j % nf != 3;
		assert_int_equal(strstr(text, "(depthwise conv, fp32)") != NULL,
		                 gen);
		if (gen && strstr(path, "strided"))
			assert_non_null(strstr(text, "Its epilogue"));
		run_geometry_sets(t, path, text, what, 31 + (uint64_t)j, 0, dir,
		                  &runs, &wrong);
		free(text);
		free(what);
		krl_opt_free(o);
		krl_task_free(t);
	}
	printf("depthwise-convolution geometries on the CPU stand-in (part %d "
	       "of %d): %d runs, %d wrong\n", g_part + 1, g_parts, runs, wrong);
	forget_dir(dir);
	if (!wrong)
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	assert_int_equal(wrong, 0);
}

/* One candidate of a choice-line test: task path, choice line, a kernel
 * the candidate must launch and one it must not (NULL: none), the seed of
 * its geometry sets. */
typedef struct choice_case {
	const char *path, *line, *must, *mustnot;
	uint64_t seed;
	int nsets;               /* the first nsets of geometry_sets; 0: all */
} choice_case;

/* Generates each case's candidate at kb1 (compiled by NVRTC), checks its
 * launches and runs it at the three sets on the CPU stand-in, with NaN or
 * +inf elements as run's nan_every; prints "<what> on the CPU stand-in
 * ..." and fails on any wrong run. */
static void run_choice_cases_nan(const char *what, const choice_case *cs,
                                 int n, int nan)
{
	if (!have_cxx()) {
		printf("SKIP: no C++ compiler (%s)\n", cxx());
		return;
	}
	char dir[] = "/tmp/krl-simcc-XXXXXX";
	assert_non_null(mkdtemp(dir));
	krl_diag d = { 0 };
	int runs = 0, wrong = 0, item = 0;
	for (int i = 0; i < n; i++) {
		if (!wanted(cs[i].path) || !mine(&item))
			continue;
		krl_task *t = NULL;
		KRL_ASSERT_OK(krl_task_load(cs[i].path, &t, &d), &d);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		char *text = NULL, *sum = NULL;
		generate_compiled(o, cs[i].path, cs[i].line, &text, &sum);
		if (cs[i].must)
			assert_non_null(strstr(text, cs[i].must));
		if (cs[i].mustnot)
			assert_null(strstr(text, cs[i].mustnot));
		run_first_sets(cs[i].nsets ? cs[i].nsets : 3, t, cs[i].path,
		               text, sum, cs[i].seed, nan, dir, &runs, &wrong);
		free(text);
		free(sum);
		krl_opt_free(o);
		krl_task_free(t);
	}
	printf("%s on the CPU stand-in (part %d of %d): %d runs, %d wrong\n",
	       what, g_part + 1, g_parts, runs, wrong);
	forget_dir(dir);
	if (!wrong)
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	assert_int_equal(wrong, 0);
}

/* run_choice_cases_nan without NaNs */
static void run_choice_cases(const char *what, const choice_case *cs, int n)
{
	run_choice_cases_nan(what, cs, n, 0);
}

/* A cat along the channels whose parts are the ReLU'd outputs of
 * implicit-GEMM convolutions (tests/data/cat/igemm.task: a fire module
 * and a map kernel's part between them): each epilogue stores its slice
 * of y (YK channels an image, from its first channel), the cat's copy
 * dropped; and the same with cuDNN's convolutions, their bias-and-ReLU
 * maps writing the slices. */
static void cat_igemm_compute_golden(void **state)
{
	(void)state;
	static const choice_case cs[] = {
		{ "tests/data/cat/igemm.task", "krl-choice: conv.impl=igemm",
		  "writes its slice of y (channels from (e1) + (sq))",
		  "call cat", 81, 0 },
		{ "tests/data/cat/igemm.task", "krl-choice: conv.impl=lib",
		  "written in place: its inputs' kernels wrote", "_conv(", 82, 0 },
	};
	run_choice_cases("cats written by implicit-GEMM epilogues", cs, 2);
}

/* The implicit-GEMM convolution's Hopper halo form (conv.impl=wgmma) on
 * tests/data/conv/hopper.task (input channels off the chunk, output
 * channels off the tile, odd rows, rows off the 128 columns, padding)
 * and tests/data/conv/hopper8.task (8 input channels: a block walks 8
 * row tiles through its pipeline, the last block fewer; tiny and kb0
 * only, kb1 being too large for the stand-in): on the CPU stand-in its
 * stages (the weight packed in init, the channels-last window) feed the
 * mma.sync fragments that stand for the wgmma (whose descriptors only the
 * GPU test checks: gpu_gemm_epi), and level 2's 87, 21 and 1 and level
 * 1's 57 (a transposed convolution's forward form) at tiny.
 * conv.impl=igemm writes the halo form's mma.sync kernel instead. */
static void conv_hopper_compute_golden(void **state)
{
	(void)state;
	static const choice_case cs[] = {
		{ "tests/data/conv/hopper.task", "krl-choice: conv.impl=wgmma",
		  "igemm::wgh_entry<128, 3, 3, true, false, 1>", "call conv", 91,
		  0 },
		{ "tests/data/conv/hopper8.task", "krl-choice: conv.impl=wgmma",
		  "igemm::wgh_entry<64, 3, 3, true, false, 8>", "call conv", 92,
		  2 },
		{ "tests/data/conv/hopper.task", "krl-choice: conv.impl=igemm",
		  "igemm::halo_entry<", "igemm::wgh_entry<", 93, 1 },
		/* level 2's at tiny: 87 and 21 over 8 input channels (64 and
		 * 32 output channels), 1 over 64 */
		{ "tasks/level2/87_conv2d_subtract_subtract_mish.task",
		  "krl-choice: conv.impl=wgmma",
		  "igemm::wgh_entry<64, 3, 3, false, false, 8>", NULL, 94, 1 },
		{ "tasks/level2/21_conv2d_add_scale_sigmoid_groupnorm.task",
		  "krl-choice: conv.impl=wgmma",
		  "igemm::wgh_entry<64, 3, 3, false, false, 8>", NULL, 95, 1 },
		{ "tasks/level2/1_conv2d_relu_biasadd.task",
		  "krl-choice: conv.impl=wgmma",
		  "igemm::wgh_entry<128, 3, 3, false, false, 1>", NULL, 96, 1 },
		/* a transposed convolution of stride 1 as its forward form:
		 * the flipped weight packed */
		{ "tasks/level1/57_conv_transpose2d.task",
		  "krl-choice: conv.impl=wgmma lib.tconv=fwd",
		  "launch k0_wpack grid=", "conv_transpose(", 97, 1 },
	};
	run_choice_cases("the Hopper halo convolution", cs, 7);
}

/* A reduction in the implicit-GEMM convolution's epilogue (cg_conv_red),
 * y never formed. Over the output channels (the halo form,
 * igemm::halo_red_entry): tests/data/conv/chansum.task (a ReLU, then a
 * sum; 72 channels of a 128 tile at kb1, three tiles walked at kb0) and
 * chanmax.task (a per-channel scale, then a max written straight to the
 * output; 40 channels of a 64 tile, odd rows), with NaN draws too (the
 * max propagates them); level 2's 25 (the min, then two tanh in their own
 * map) and 32 (the min into y) at tiny. Over the positions (the gather
 * form, igemm::conv_red_entry, then k0_cfin over the blocks' partials):
 * tests/data/conv/posmax.task (stride 2, a tanh, then a max; three
 * channel tiles and four position tiles at kb0) with 1 and 4 position
 * tiles a block, NaN draws too, and level 2's 67 (GELU, then the mean).
 * And chanmax with the library's convolution, whose row kernel reduces. */
static void conv_red_compute_golden(void **state)
{
	(void)state;
	static const choice_case cs[] = {
		{ "tests/data/conv/chansum.task", "krl-choice: conv.impl=igemm",
		  "igemm::halo_red_entry<128, 3, 3, true, false, igemm::RED_SUM>",
		  "igemm::halo_entry<", 61, 0 },
		{ "tests/data/conv/chanmax.task", "krl-choice: conv.impl=igemm",
		  "igemm::halo_red_entry<64, 3, 3, false, false, igemm::RED_MAX>",
		  "launch k1_", 62, 0 },
		{ "tests/data/conv/chanmax.task", "krl-choice: conv.impl=lib",
		  "call conv", "halo_red_entry<", 63, 0 },
		{ "tasks/level2/25_conv2d_min_tanh_tanh.task",
		  "krl-choice: conv.impl=igemm",
		  "igemm::halo_red_entry<64, 3, 3, false, false, igemm::RED_MIN>",
		  "igemm::halo_entry<", 64, 1 },
		{ "tasks/level2/32_conv2d_scaling_min.task",
		  "krl-choice: conv.impl=igemm",
		  "igemm::halo_red_entry<128, 3, 3, false, false, igemm::RED_MIN>",
		  "launch k1_", 65, 1 },
		{ "tests/data/conv/posmax.task", "krl-choice: conv.impl=igemm "
		  "conv.tiles=4", "igemm::conv_red_entry<64, 128, 32, 32, 1, 3, 3, "
		  "true, false, 4, igemm::RED_MAX>", "igemm::conv_entry<", 66, 0 },
		{ "tests/data/conv/posmax.task", "krl-choice: conv.impl=igemm "
		  "conv.tiles=1", "launch k0_cfin grid=", "igemm::conv_entry<", 67,
		  0 },
		{ "tasks/level2/67_conv2d_gelu_globalavgpool.task",
		  "krl-choice: conv.impl=igemm", "igemm::conv_red_entry<",
		  "igemm::conv_entry<", 68, 1 },
	};
	run_choice_cases("reductions in the convolution's epilogue", cs, 8);
	run_choice_cases_nan("reductions in the convolution's epilogue, NaN "
	                     "draws", cs + 1, 1, 5);
	run_choice_cases_nan("reductions in the convolution's epilogue, NaN "
	                     "draws", cs + 5, 1, 7);
}

/* Permutes as kernelrl's copy kernel on tests/data/perm/forms.task
 * (both forms, merged dims, part-filled tiles, the float4 path at kb1
 * and the scalar one at kb0 and tiny), with the tile form's next tile
 * loaded while one is stored (perm.impl=pipe: kb1's reversed y6 has
 * 2,640 slices over 2,048 blocks, so blocks walk two), and as the
 * library's call. */
static void permute_forms_compute_golden(void **state)
{
	(void)state;
	static const choice_case cs[] = {
		{ "tests/data/perm/forms.task", "krl-choice: perm.impl=gen",
		  "perm::tile<5, 0>", "call permute", 51, 0 },
		{ "tests/data/perm/forms.task", "krl-choice: perm.impl=gen",
		  "perm::inner<5>", NULL, 52, 0 },
		{ "tests/data/perm/forms.task", "krl-choice: perm.impl=lib",
		  "call permute", "perm::", 53, 0 },
		{ "tests/data/perm/forms.task", "krl-choice: perm.impl=pipe",
		  "perm::tile<5, 0, true>", "call permute", 54, 0 },
	};
	run_choice_cases("permute forms", cs, 4);
}

/* The column kernel with its columns in registers (row.colregs) on
 * tests/data/reduce/colrms.task and colscale.task, on and off: at kb1 and
 * tiny the run fits the rows a thread holds, at kb0 it does not (the
 * re-read path); partial 128-column groups, 4-d columns, two reductions
 * of one pass. */
static void colregs_compute_golden(void **state)
{
	(void)state;
	/* offered and taken: one kernel, registered where on */
	static const choice_case cs[] = {
		{ "tests/data/reduce/colrms.task", "krl-choice: row.colregs=on",
		  "launch k0_colr ", NULL, 41, 0 },
		{ "tests/data/reduce/colrms.task", "krl-choice: row.colregs=off",
		  " row.colregs=", "launch k0_colr ", 42, 0 },
		{ "tests/data/reduce/colscale.task", "krl-choice: row.colregs=on",
		  "launch k0_colr ", NULL, 43, 0 },
		{ "tests/data/reduce/colscale.task", "krl-choice: row.colregs=off",
		  " row.colregs=", "launch k0_colr ", 44, 0 },
	};
	run_choice_cases("registered column kernels", cs, 4);
}

/* The 3xTF32 GEMM split along K (codegen_gemm.c gemm_split_pays) on
 * tests/data/gemm/splitk.task (a chain after C, applied by the sum
 * kernel) and splitk_t.task (both operands stored transposed, alpha): one
 * tile and a long K at kb1, so the candidate splits; at its three sets it
 * runs 4, 5 and 2 slices, the last one shorter. The GEMM body is the
 * scalar stand-in (scalar_gemm), which takes the slices' leading
 * dimensions and offsets as the tensor-core body does. */
/* Each of tasks[0..n) generated at kb1 with choice (gemm.impl=3xtf32 and
 * more; NVRTC compiles it), the lines of must[] in its text (and `what` in its
 * summary, when not NULL), then run at tiny, kb0 and kb1 with the GEMM's
 * scalar stand-in; prints "<label> on the CPU stand-in ..." and fails on
 * any wrong run. */
static void stand_in_cases(const char *label, const char *const *tasks,
                           size_t n, const char *choice,
                           const char *const *must, const char *summary,
                           uint64_t seed)
{
	if (!have_cxx()) {
		printf("SKIP: no C++ compiler (%s)\n", cxx());
		return;
	}
	char dir[] = "/tmp/krl-simsk-XXXXXX";
	assert_non_null(mkdtemp(dir));
	krl_diag d = { 0 };
	int runs = 0, wrong = 0, item = 0;
	for (size_t j = 0; j < n; j++) {
		const char *path = tasks[j];
		if (!wanted(path) || !mine(&item))
			continue;
		krl_task *t = NULL;
		KRL_ASSERT_OK(krl_task_load(path, &t, &d), &d);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		char *text = NULL, *what = NULL;
		generate_compiled(o, path, choice, &text, &what);
		for (int k = 0; must[k]; k++)
			assert_non_null(strstr(text, must[k]));
		if (summary)
			assert_non_null(strstr(what, summary));
		char *sim = scalar_gemm(text);
		run_geometry_sets(t, path, sim, what, seed + (uint64_t)j, 0, dir,
		                  &runs, &wrong);
		free(sim);
		free(text);
		free(what);
		krl_opt_free(o);
		krl_task_free(t);
	}
	printf("%s on the CPU stand-in (part %d of %d): %d runs, %d wrong\n",
	       label, g_part + 1, g_parts, runs, wrong);
	forget_dir(dir);
	if (!wrong)
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	assert_int_equal(wrong, 0);
}

/* Full-shape outputs of a row kernel over a channels-last y's rows of C
 * (cg_row_cl_tiles) on tests/data/conv/cltile.task: a softmax over C
 * through shared-memory tiles of 32 positions (rows of 40 at kb1, where
 * it is generated: 64 channels a tile, 4 to 32 lanes a row, the last
 * tile partial), the chain after it a map reading the softmax; kb0's 100
 * channels past the tiles' 64 store straight to memory. And a column
 * kernel's (a layer norm over W, tests/data/conv/cltile_run.task): its
 * block's 32 columns x the run through shared memory, kb0's longer runs
 * straight to memory. With row.cltile=off, a map writes the softmax. */
static void conv_cltile_compute_golden(void **state)
{
	(void)state;
	static const char *const tasks[] = { "tests/data/conv/cltile.task" };
	static const char *const must[] = {
		"shared-memory tiles of 32 positions", "__shared__ float tl0[2112];",
		"const bool tiled = a1 <= 64;", NULL,
	};
	stand_in_cases("channels-last row tiles", tasks, 1, "krl-choice: "
	               "lib.layout=nhwc_y conv.impl=lib", must, NULL, 83);
	/* a column kernel's tile: 32 columns x runs of 40 (rows of 41) */
	static const char *const tasks2[] = {
		"tests/data/conv/cltile_run.task",
	};
	static const char *const must2[] = {
		"shared-memory tile of the block's columns",
		"__shared__ float tl0[1312];", "const bool tiled = a1 <= 40;", NULL,
	};
	stand_in_cases("channels-last column tiles", tasks2, 1, "krl-choice: "
	               "lib.layout=nhwc_y conv.impl=lib", must2, NULL, 89);
	/* row.cltile=off: the statistics, then a map over y writes NCHW */
	static const char *const must3[] = {
		"map over a channels-last input (node", NULL,
	};
	stand_in_cases("channels-last rows without tiles", tasks, 1,
	               "krl-choice: lib.layout=nhwc_y conv.impl=lib "
	               "row.cltile=off", must3, NULL, 97);
}

static void gemm_splitk_compute_golden(void **state)
{
	(void)state;
	static const char *const tasks[] = {
		"tests/data/gemm/splitk.task", "tests/data/gemm/splitk_t.task",
	};
	/* split: the partials' buffer and the kernel that adds them */
	static const char *const must[] = {
		"buffer k0_gemm_p ", "launch k0_gemm_sum ", NULL,
	};
	stand_in_cases("split-K GEMMs", tasks, 2, "krl-choice: gemm.impl=3xtf32",
	               must, NULL, 61);
}

/* The masked pair (codegen_gemm.c mask_pair) on tests/data/gemm/masked.task:
 * three ReLU attentions whose masks come from params (causal, its
 * transpose past the diagonal with a block masked whole at kb0, and a
 * random one), each score GEMM skipping the tiles its mask covers whole
 * and the second GEMM summing only the columns a row block leaves; run at
 * tiny, kb0 and kb1 with the GEMM's stand-in, whose MODE 1 leaves skipped
 * tiles as the buffer's NaNs, so a read of one shows (a range that
 * starts 64 columns late fails it at every set). */
static void gemm_masked_compute_golden(void **state)
{
	(void)state;
	static const char *const tasks[] = { "tests/data/gemm/masked.task" };
	static const char *const must[] = {
		"gemm_entry_rng<1>(", "gemm_entry_rng<2>(", "launch krl_mrange ",
		NULL,
	};
	/* the attention rule off: it would make the causal pair an sdpa call */
	stand_in_cases("masked GEMM pairs", tasks, 1, "krl-choice: gemm.impl="
	               "3xtf32 rule.attention=off", must, "3 masked pairs", 71);
}

typedef struct cl_tally {
	int runs, wrong;
	int blocked;             /* map kernels over y, channel-blocked */
	int tiled;               /* of those, tiled through shared memory */
	int rowcl;               /* row kernels in y's memory order */
	int poolcl;              /* pool kernels reading y so */
	int colthread;           /* column kernels with a thread per column */
	int xy;                  /* candidates with a convolution reading x
	                            channels-last (layout=nhwc_xy) */
	int cands;               /* candidates judged */
} cl_tally;

/* Judges each task of ids in each form of forms (choice lines, written
 * for shape set gen) on the CPU stand-in at tiny and a hidden-like set,
 * tallying the kernels over y. With cl, every candidate but an implicit
 * GEMM's leaves y channels-last; with rowcl, every candidate must have a
 * row kernel in y's memory order (cg_row_cl). */
static void judge_forms(const char *gen, const char *const *ids,
                        size_t nids, const char *const *forms,
                        size_t nforms, int cl, int rowcl, cl_tally *n)
{
	char dir[] = "/tmp/krl-simcl-XXXXXX";
	assert_non_null(mkdtemp(dir));
	krl_suite *s = NULL;
	krl_diag d = { 0 };
	int item = 0;
	memset(n, 0, sizeof *n);
	KRL_ASSERT_OK(krl_suite_load(NULL, &s, &d), &d);
	for (size_t j = 0; j < nforms * nids; j++) {
		size_t i = j / nforms;
		if (!wanted(ids[i]) || !mine(&item))
			continue;
		krl_task *t = NULL;
		KRL_ASSERT_OK(krl_suite_load_task(s, ids[i], &t, &d), &d);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, gen, &o, &d), &d);
		char *text = NULL, *what = NULL;
		generate_compiled(o, ids[i], forms[j % nforms], &text, &what);
		/* (the implicit GEMM writes NCHW) */
		if (cl && !strstr(text, "conv_igemm"))
			assert_non_null(strstr(text, " layout=nhwc_y\n"));
		n->blocked += strstr(text, "channels-last input (node") != NULL;
		n->tiled += strstr(text, "channels through shared memory") != NULL;
		int rc = strstr(text, "contiguous in a channels-last input") ||
		         strstr(text, "of a channels-last input's memory");
		if (rowcl && !rc)
			printf("%s (%s): no row kernel in y's memory order\n", ids[i],
			       what);
		if (rowcl)
			assert_true(rc);
		n->rowcl += rc;
		n->poolcl += strstr(text, "a channels-last input read") != NULL;
		n->colthread += strstr(text, "a thread per column,") != NULL;
		n->xy += strstr(text, " layout=nhwc_xy\n") != NULL;
		n->cands++;
		krl_shapeset hid = { 0 };
		uint64_t hs = 99 + (uint64_t)i;
		krl_limits lim = krl_limits_sm90();
		const krl_shapeset *sets[2] = { krl_task_shapeset(t, "tiny"), NULL };
		if (krl_task_draw_hidden(t, &hs, &lim, &hid, NULL) == KRL_OK)
			sets[1] = &hid;
		for (int q = 0; q < 2; q++) {
			if (!sets[q])
				continue;
			int64_t bad = run(t, ids[i], text, sets[q], 31 + (uint64_t)q,
			                  dir, 0);
			n->runs++;
			if (bad) {
				printf("%s (%s) at %s: %s\n", ids[i], what,
				       q ? "a hidden set" : "tiny",
				       bad < 0 ? "did not run" : "wrong values");
				n->wrong++;
			}
		}
		free(hid.vals);
		free(text);
		free(what);
		krl_opt_free(o);
		krl_task_free(t);
	}
	krl_suite_free(s);
	forget_dir(dir);
	if (!n->wrong)
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* judge_forms of channels-last candidates written for kb1. */
static void cl_judge(const char *const *ids, size_t nids,
                     const char *const *forms, size_t nforms, int rowcl,
                     cl_tally *n)
{
	judge_forms("kb1", ids, nids, forms, nforms, 1, rowcl, n);
}

/* Convolutions that leave y channels-last (lib.layout=nhwc_y; the golden
 * op writes y so too): the map kernel over it in both forms (tiles
 * through shared memory, their channel count set by kb1's C, and 8
 * channels a thread; 2-D and 3-D, forward and transposed, channel counts
 * that are and are not multiples of 8 at the hidden-like set) and other
 * kernels reading it through the index map (a max pool after the chain: 35; an average pool: 46), at
 * tiny and a hidden-like set. Each candidate also compiles with NVRTC. */
static void channels_last_compute_golden(void **state)
{
	(void)state;
	static const char *const ids[] = {
		"level2/1_conv2d_relu_biasadd",
		"level2/2_convtranspose2d_biasadd_clamp_scaling_clamp_divide",
		"level2/5_convtranspose2d_subtract_tanh",
		"level2/7_conv3d_relu_leakyrelu_gelu_sigmoid_biasadd",
		"level2/16_convtranspose2d_mish_add_hardtanh_scaling",
		"level2/26_convtranspose3d_add_hardswish",
		"level2/35_conv2d_subtract_hardswish_maxpool_mish",
		"level2/46_conv2d_subtract_tanh_subtract_avgpool",
		"level2/54_conv2d_multiply_leakyrelu_gelu",
	};
	static const char *const forms[2] = {
		"krl-choice: lib.layout=nhwc_y map.cl=chan8",
		"krl-choice: lib.layout=nhwc_y map.cl=tile",
	};
	if (!have_cxx()) {
		printf("SKIP: no C++ compiler (%s)\n", cxx());
		return;
	}
	cl_tally n;
	cl_judge(ids, sizeof ids / sizeof ids[0], forms, 2, 0, &n);
	printf("channels-last convolutions on the CPU stand-in (part %d of %d): "
	       "%d runs, %d wrong, %d map kernels over y, %d of them tiled\n",
	       g_part + 1, g_parts, n.runs, n.wrong, n.blocked, n.tiled);
	assert_int_equal(n.wrong, 0);
}

/* Channels-last across layers (lib.layout=nhwc_xy): the map kernels
 * between convolutions (a batch norm's normalisation and ReLU, a residual
 * add, a bias and ReLU) write their outputs channels-last and the next
 * convolution reads x so (the golden op too), batch norms' statistics
 * read them in memory order, and pools between convolutions (ResNet's
 * stem, AlexNet's and VGG's max pools) write theirs channels-last too:
 * residual blocks with and without a downsample (8, 9, 10's
 * bottlenecks), convolutions with a bias (AlexNet 5, VGG 11,
 * SqueezeNet's fire modules 17, RegNet 27), cats of channels written in
 * place channels-last by their parts' map and pool kernels and read so
 * by the next module's convolutions (GoogLeNet's inception modules 6 and
 * 7, SqueezeNet 18), inverted residuals beside
 * depthwise convolutions (MobileNetV2 20, EfficientNet's MBConv 22),
 * U-Net's 45; both map forms for the kernels that write NCHW, at tiny
 * and a hidden-like set. Every candidate has a convolution reading x
 * channels-last. */
static void channels_last_layers_compute_golden(void **state)
{
	(void)state;
	static const char *const ids[] = {
		"level3/8_resnet_basic_block",
		"level3/9_resnet18",
		"level3/10_resnet101",
		"level3/5_alexnet",
		"level3/6_googlenet_inception_module",
		"level3/7_googlenet_inception_v1",
		"level3/11_vgg16",
		"level3/17_squeezenet_fire_module",
		"level3/18_squeezenet",
		"level3/20_mobilenet_v2",
		"level3/22_efficientnet_b0",
		"level3/27_regnet",
		"level3/45_unet_softmax",
	};
	static const char *const forms[2] = {
		"krl-choice: lib.layout=nhwc_xy map.cl=tile",
		"krl-choice: lib.layout=nhwc_xy map.cl=chan8 row.colthread=off",
	};
	if (!have_cxx()) {
		printf("SKIP: no C++ compiler (%s)\n", cxx());
		return;
	}
	cl_tally n;
	judge_forms("kb1", ids, sizeof ids / sizeof ids[0], forms, 2, 0, 0, &n);
	printf("channels-last layers on the CPU stand-in (part %d of %d): %d "
	       "runs, %d wrong, %d of %d candidates reading x channels-last\n",
	       g_part + 1, g_parts, n.runs, n.wrong, n.xy, n.cands);
	assert_int_equal(n.wrong, 0);
	assert_int_equal(n.xy, n.cands);
}

/* Row kernels that walk a channels-last y in its memory order
 * (cg_row_cl): reductions over C (min: 25, 32, 36, and of a 3-D output:
 * 24; softmax's max and sum, its quotient in a map kernel: 49, 91), over
 * all spatial axes (batch norm's statistics: 11; instance norm: 17), over
 * the last one (layer norm over W: 3, 34) and over the first of three
 * (13's mean over D), the conv's bias moved into them (rule conv_bias);
 * with the run split over blocks where the column blocks are few
 * (emit_cols_split: batch norm over 16 samples of a 3-D output, 15; over
 * 64 samples, 52; a mean through a view of the spatial dims, 67; instance
 * norm's mean and variance as one pass of shifted sums, 79; group norm's
 * per-channel statistics in two levels, 19 and 60). Both map forms for
 * the full-shape outputs. */
static void channels_last_rows_compute_golden(void **state)
{
	(void)state;
	static const char *const ids[] = {
		"level2/3_convtranspose3d_sum_layernorm_avgpool_gelu",
		"level2/11_convtranspose2d_batchnorm_tanh_maxpool_groupnorm",
		"level2/13_convtranspose3d_mean_add_softmax_tanh_scaling",
		"level2/15_convtranspose3d_batchnorm_subtract",
		"level2/17_conv2d_instancenorm_divide",
		"level2/19_convtranspose2d_gelu_groupnorm",
		"level2/24_conv3d_min_softmax",
		"level2/25_conv2d_min_tanh_tanh",
		"level2/32_conv2d_scaling_min",
		"level2/34_convtranspose3d_layernorm_gelu_scaling",
		"level2/36_convtranspose2d_min_sum_gelu_add",
		"level2/49_convtranspose3d_softmax_sigmoid",
		"level2/52_conv2d_activation_batchnorm",
		"level2/60_convtranspose3d_swish_groupnorm_hardswish",
		"level2/67_conv2d_gelu_globalavgpool",
		"level2/79_conv3d_multiply_instancenorm_clamp_multiply_max",
		"level2/91_convtranspose2d_softmax_biasadd_scaling_sigmoid",
	};
	static const char *const forms[2] = {
		"krl-choice: lib.layout=nhwc_y conv.impl=lib map.cl=chan8",
		"krl-choice: lib.layout=nhwc_y conv.impl=lib map.cl=tile",
	};
	if (!have_cxx()) {
		printf("SKIP: no C++ compiler (%s)\n", cxx());
		return;
	}
	cl_tally n;
	cl_judge(ids, sizeof ids / sizeof ids[0], forms, 2, 1, &n);
	printf("channels-last row kernels on the CPU stand-in (part %d of %d): "
	       "%d runs, %d wrong, %d candidates with a row kernel in y's memory "
	       "order, %d with a map kernel over y\n", g_part + 1, g_parts,
	       n.runs, n.wrong, n.rowcl, n.blocked);
	assert_int_equal(n.wrong, 0);
}

/* Pools over every spatial dim of a chain on a channels-last y
 * (emit_pool_cl): a block's 32 (16, 8) channels x 32 positions read in
 * y's memory order and stored through shared memory. Average pools of 3-D
 * outputs (3 after a layer norm, 50, 72's two in a row, the second over
 * NCHW), max pools with and without their index read (2-D: 10, 11 after
 * batch norm, 35; 3-D: 6 after softmax over
 * C, 74, 78 twice, 89 with padding 0 given, 96), 2-D average (46); at
 * tiny (channel counts below a warp's) and a hidden-like set; and the
 * geometries of tests/data/pool/conv_pools.task at pool.block 256 and
 * 1024 (run with 256 threads), NaNs included. */
static void channels_last_pools_compute_golden(void **state)
{
	(void)state;
	static const char *const ids[] = {
		"level2/3_convtranspose3d_sum_layernorm_avgpool_gelu",
		"level2/6_conv3d_softmax_maxpool_maxpool",
		"level2/10_convtranspose2d_maxpool_hardtanh_mean_tanh",
		"level2/11_convtranspose2d_batchnorm_tanh_maxpool_groupnorm",
		"level2/35_conv2d_subtract_hardswish_maxpool_mish",
		"level2/46_conv2d_subtract_tanh_subtract_avgpool",
		"level2/50_convtranspose3d_scaling_avgpool_biasadd_scaling",
		"level2/72_convtranspose3d_batchnorm_avgpool_avgpool",
		"level2/74_convtranspose3d_leakyrelu_multiply_leakyrelu_max",
		"level2/78_convtranspose3d_max_max_sum",
		"level2/89_convtranspose3d_maxpool_softmax_subtract_swish_max",
		"level2/96_convtranspose3d_multiply_max_globalavgpool_clamp",
	};
	static const char *const forms[1] = {
		"krl-choice: lib.layout=nhwc_y conv.impl=lib lib.tconv=dgrad",
	};
	if (!have_cxx()) {
		printf("SKIP: no C++ compiler (%s)\n", cxx());
		return;
	}
	cl_tally n;
	cl_judge(ids, sizeof ids / sizeof ids[0], forms, 1, 0, &n);
	/* the geometries: padding, dilation, ceil mode, the index, NaNs */
	static const char *const geo = "tests/data/pool/conv_pools.task";
	char dir[] = "/tmp/krl-simclpool-XXXXXX";
	assert_non_null(mkdtemp(dir));
	int item = 1000, runs = 0, wrong = 0;
	if (wanted(geo) && mine(&item)) {
		krl_diag d = { 0 };
		krl_task *t = NULL;
		KRL_ASSERT_OK(krl_task_load(geo, &t, &d), &d);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		/* the default, and pool.block=1024, which the kernel runs with
		 * 256 threads */
		static const char *const geoforms[2] = {
			"krl-choice: lib.layout=nhwc_y",
			"krl-choice: lib.layout=nhwc_y pool.block=1024",
		};
		for (int f = 0; f < 2; f++) {
			char *text = NULL, *what = NULL;
			generate_compiled(o, geo, geoforms[f], &text, &what);
			assert_non_null(strstr(text, "a channels-last input read"));
			assert_non_null(strstr(text, "taps, those outside the input "
			                       "skipped"));
			assert_null(strstr(text, "block=(1024)"));
			for (int nan = 0; nan <= 7; nan += 7)
				run_geometry_sets(t, geo, text, what, 41 + (uint64_t)f, nan,
				                  dir, &runs, &wrong);
			free(text);
			free(what);
		}
		krl_opt_free(o);
		krl_task_free(t);
	}
	forget_dir(dir);
	if (!wrong)
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	printf("channels-last pools on the CPU stand-in (part %d of %d): %d "
	       "runs, %d wrong, %d of %d candidates with a pool in y's memory "
	       "order; geometries: %d runs, %d wrong\n", g_part + 1, g_parts,
	       n.runs, n.wrong, n.poolcl, n.cands, runs, wrong);
	assert_int_equal(n.wrong, 0);
	assert_int_equal(wrong, 0);
	assert_int_equal(n.poolcl, n.cands);
}

/* Candidates written for kb0 where a `fixed` key has another value at
 * kb0 than at tiny (hidden sets keep tiny's): the pool after the chain
 * of 82 and 65 (a window of 2 at kb0, 4 at tiny) with the pool kernel
 * over a channels-last y and after the implicit GEMM, and 10's transposed
 * convolution (kernel 4 and stride 2 at kb0, 3 and
 * 1 at tiny) with its max pool. A generator that writes kb0's window as a
 * literal count of taps computes 2 x 2 of tiny's 4 x 4 (the judge saw 82
 * so on the H200, 2026-12-04). */
static void kb0_generation_compute_golden(void **state)
{
	(void)state;
	static const char *const ids[] = {
		"level2/10_convtranspose2d_maxpool_hardtanh_mean_tanh",
		"level2/65_conv2d_avgpool_sigmoid_sum",
		"level2/82_conv2d_tanh_scaling_biasadd_max",
	};
	static const char *const forms[2] = {
		"krl-choice: lib.layout=nhwc_y conv.impl=lib lib.tconv=dgrad",
		"krl-choice: lib.layout=nhwc_y conv.impl=igemm",
	};
	if (!have_cxx()) {
		printf("SKIP: no C++ compiler (%s)\n", cxx());
		return;
	}
	cl_tally n;
	judge_forms("kb0", ids, sizeof ids / sizeof ids[0], forms, 2, 1, 0, &n);
	printf("candidates written for kb0 on the CPU stand-in (part %d of "
	       "%d): %d runs, %d wrong, %d pools in y's memory order\n",
	       g_part + 1, g_parts, n.runs, n.wrong, n.poolcl);
	assert_int_equal(n.wrong, 0);
	assert_true(n.poolcl >= 1 || g_parts > 1);
}

/* Column kernels with a thread per column (row.colthread=on, where the
 * reduced extent at kb1 is at most CG_COL_THREAD_R): softmax over 16
 * channels (6, 24, 89; 13 after a mean), logsumexp (42, 58 and its kb0
 * variant), batch norm and instance norm statistics (15, 77, 79), 27kb0,
 * 38kb0; in NCHW and channels-last y, at block sizes 256 and 1024 (1024
 * columns a block: more than tiny's columns), at tiny and a hidden-like
 * set. Each candidate also compiles with NVRTC. */
static void col_thread_compute_golden(void **state)
{
	(void)state;
	static const char *const ids[] = {
		"level2/6_conv3d_softmax_maxpool_maxpool",
		"level2/13_convtranspose3d_mean_add_softmax_tanh_scaling",
		"level2/15_convtranspose3d_batchnorm_subtract",
		"level2/24_conv3d_min_softmax",
		"level2/27kb0_conv3d_hardswish_relu_softmax_mean",
		"level2/38kb0_convtranspose3d_avgpool_clamp_softmax_multiply",
		"level2/42_convtranspose2d_globalavgpool_biasadd_logsumexp_sum_multiply",
		"level2/58_convtranspose3d_logsumexp_hardswish_subtract_clamp",
		"level2/58kb0_convtranspose3d_logsumexp_hardswish_subtract_clamp_max",
		"level2/77_convtranspose3d_scale_batchnorm_globalavgpool",
		"level2/79_conv3d_multiply_instancenorm_clamp_multiply_max",
		"level2/89_convtranspose3d_maxpool_softmax_subtract_swish_max",
	};
	static const char *const forms[3] = {
		"krl-choice: row.colthread=on",
		"krl-choice: row.colthread=on row.block=1024 lib.layout=nchw",
		"krl-choice: row.colthread=on row.block=128 lib.layout=nhwc_y "
		"conv.impl=lib lib.tconv=dgrad",
	};
	if (!have_cxx()) {
		printf("SKIP: no C++ compiler (%s)\n", cxx());
		return;
	}
	const size_t nids = sizeof ids / sizeof ids[0];
	cl_tally n;
	judge_forms("kb1", ids, nids, forms, 3, 0, 0, &n);
	printf("column kernels with a thread per column on the CPU stand-in "
	       "(part %d of %d): %d runs, %d wrong, %d of %d candidates with "
	       "one\n", g_part + 1, g_parts, n.runs, n.wrong, n.colthread,
	       n.cands);
	assert_int_equal(n.wrong, 0);
	/* every task in the first form at least, whichever part ran it */
	assert_true(n.colthread >= (g_parts > 1 ? 1 : (int)nids));
}

/* Reductions over a middle axis (tests/data/reduce/) with the column
 * kernel of each row.cols option: rows long enough for the wide kernel's
 * main loop (256 rows a step), partial 128-column groups, a 4-d mean whose
 * inner extent is a product, max and min. */
static void reduce_geometries_compute_golden(void **state)
{
	(void)state;
	static const char *const tasks[] = {
		"tests/data/reduce/colsum.task", "tests/data/reduce/colmean4d.task",
		"tests/data/reduce/colmax.task", "tests/data/reduce/colmin.task",
	};
	/* offered and taken: the wide kernel, or the 32-column one */
	choice_case cs[8];
	for (int i = 0; i < 8; i++)
		cs[i] = (choice_case){ tasks[i / 2], i % 2 ?
		                       "krl-choice: row.cols=4" :
		                       "krl-choice: row.cols=1",
		                       i % 2 ? "launch k0_colw " : "launch k0_col ",
		                       NULL, 31 + 3 * (uint64_t)(i % 2), 0 };
	run_choice_cases("middle-axis reductions", cs, 8);
}

/* logsumexp over the middle axis (the column kernel) and the last axis (a
 * row kernel) of tests/data/reduce/lse.task, each kept online in one pass
 * (its sum of exp(x - m') follows the running max; m' the finite max),
 * at all three sets, and again with +inf elements (a column or row
 * holding one is +inf) and with NaNs. */
static void logsumexp_online_compute_golden(void **state)
{
	(void)state;
	static const choice_case cs[] = {
		{ "tests/data/reduce/lse.task", "krl-choice:",
		  "(double)INFINITY : ", "/* pass 2 */", 61, 0 },
	};
	run_choice_cases_nan("logsumexp kept online", cs, 1, 0);
	run_choice_cases_nan("logsumexp kept online, +inf elements", cs, 1, -7);
	run_choice_cases_nan("logsumexp kept online, NaN elements", cs, 1, 5);
}

/* The split column kernel over NCHW rows (tests/data/reduce/colsplit.task:
 * batch norm's statistics and a max over a run of 5,003 rows of 48
 * columns at kb1, codegen_row.c's split_pays): the run's chunks write
 * partials, and the last block of a column group (row.tail=on) or a
 * kernel of its own (off) combines them, at all three sets; and with its
 * columns packed (colpack.task: 12 columns at kb1, 40 at kb0, 3 at tiny;
 * an argmax too). */
static void colsplit_compute_golden(void **state)
{
	(void)state;
	static const choice_case cs[] = {
		{ "tests/data/reduce/colsplit.task", "krl-choice: row.tail=on",
		  "launch k0_pass1 ", "launch k0_out ", 53, 0 },
		{ "tests/data/reduce/colsplit.task", "krl-choice: row.tail=off",
		  "launch k0_out ", NULL, 56, 0 },
		{ "tests/data/reduce/colpack.task", "krl-choice: row.tail=on",
		  "cy = ty * cs + tx / cw", NULL, 57, 0 },
		{ "tests/data/reduce/colpack.task", "krl-choice: row.tail=off",
		  "cy = ty * cs + tx / cw", NULL, 58, 0 },
	};
	run_choice_cases("split column kernels", cs, 4);
}

/* Row and column reductions of a product with a weight whose extent is
 * another symbol (tests/data/reduce/unkrow.task: v = w at kb1 and tiny,
 * 1 at kb0), indexed by the row coordinate times its stride, 0 where its
 * extent is 1 (codegen_ev.c rowed_coords_unk; level 2's 34 and level 3's
 * 29 and 30 index their layer norms' weights so), at all three sets. */
static void unkrow_compute_golden(void **state)
{
	(void)state;
	static const choice_case cs[] = {
		{ "tests/data/reduce/unkrow.task", "krl-choice: ",
		  "p_g[(r * ", "krl_mod((rb + r)", 61, 0 },
		{ "tests/data/reduce/unkrow.task", "krl-choice: ",
		  "p_h[(r * ", NULL, 62, 0 },
	};
	run_choice_cases("weights of another symbol's extent", cs, 2);
}

/* Views in generated code (tests/data/views/views.task: reads through a
 * view of a view, writes through views of a plan buffer and of three
 * outputs, by a row, a column and a map kernel), with the default choice
 * and with fuse=none (every node in memory, views copied), at all three
 * sets; and the same for tests/data/parts/steps.task (slices written one
 * by one and read back, src/opt/lower.c "Parts", with plan views for the
 * views and slices library calls read) and tests/data/cat/inplace.task
 * (cats written in place by their inputs' map and pool kernels, along C,
 * N and W, vector stores where kb0's and kb1's runs allow, src/opt/cgcat.c;
 * with fuse=none the library's cat) and tests/data/cat/channels_last.task
 * (a cat of channels written in place channels-last by two maps and a
 * pool, read so by the next convolution: lib.layout=nhwc_xy; and
 * nchw), tests/data/cat/permute.task (a channel shuffle's permute
 * written in place by the map kernel before it; two permutes that must
 * stay calls) and tests/data/cat/flat_lib.task (a cat along dim 0 whose
 * fill and GEMM write their slices through views of its buffer, a map
 * its own; a cat along dim 1 of two GEMMs stays a call; every part's
 * view at offset 0 fails it) and tests/data/cat/read.task (cats read in
 * place by their readers: a batch norm's statistics, per part by the
 * cat_reduce rule, and its map, a softmax across the parts, maps of cats
 * along N and W; a second batch norm whose statistics host the first's,
 * flat cats as views) and tests/data/cat/narrow.task (two convolutions
 * merged by conv_merge, their narrows read in place). */
static void views_compute_golden(void **state)
{
	(void)state;
	static const char *const paths[] = {
		"tests/data/views/views.task", "tests/data/parts/steps.task",
		"tests/data/cat/inplace.task", "tests/data/cat/channels_last.task",
		"tests/data/cat/permute.task", "tests/data/cat/flat_lib.task",
		"tests/data/cat/read.task", "tests/data/cat/narrow.task",
		"tests/data/views/straddle.task",
	};
	static const char *const lines[] = {
		"krl-choice: fuse=full", "krl-choice: fuse=none",
	};
	/* the channels-last cat: across layers, and the defaults' NCHW */
	static const char *const cl_lines[] = {
		"krl-choice: lib.layout=nhwc_xy", "krl-choice: lib.layout=nchw",
	};
	if (!have_cxx()) {
		printf("SKIP: no C++ compiler (%s)\n", cxx());
		return;
	}
	char dir[] = "/tmp/krl-simview-XXXXXX";
	assert_non_null(mkdtemp(dir));
	krl_diag d = { 0 };
	int runs = 0, wrong = 0, item = 0;
	/* the narrows of merged convolutions (the default), and the
	 * convolutions apart */
	static const char *const merge_lines[] = {
		"krl-choice: fuse=full", "krl-choice: rule.conv_merge=off",
	};
	for (int p = 0; p < 9; p++) {
		const char *path = paths[p];
		if (!wanted(path))
			continue;
		krl_task *t = NULL;
		KRL_ASSERT_OK(krl_task_load(path, &t, &d), &d);
		krl_opt *o = NULL;
		KRL_ASSERT_OK(krl_opt_create(t, "kb1", &o, &d), &d);
		for (int c = 0; c < 2; c++) {
			if (!mine(&item))
				continue;
			char *text = NULL, *what = NULL;
			generate_compiled(o, path, p == 3 ? cl_lines[c] :
			                  p == 7 ? merge_lines[c] : lines[c],
			                  &text, &what);
			if (p == 7)
				assert_true((strstr(what, "2 cats or narrows read in "
				                    "place") != NULL) == (c == 0) &&
				            (strstr(what, "conv_merge x2") != NULL) ==
				            (c == 0));
			assert_true(has_kernel(text));
			if (p == 2)
				assert_true((strstr(what, "4 cats or permutes written "
				                    "in place") != NULL) == (c == 0));
			if (p == 4 || p == 5)
				assert_true((strstr(what, "1 cat or permute written "
				                    "in place") != NULL) == (c == 0));
			/* no cat copied under fusion: four read in place, the
			 * first batch norm's three statistics (cat_reduce's)
			 * views of the second's, whose parts their kernels
			 * write into its buffers; all ten copied without */
			if (p == 6)
				assert_true((strstr(what, "4 cats or narrows read in "
				                    "place") !=
				             NULL) == (c == 0) &&
				            (strstr(what, "6 cats or permutes written "
				                    "in place") != NULL) == (c == 0) &&
				            (strstr(text, "call cat(") == NULL) ==
				            (c == 0));
			/* the fill and the GEMM write their slices through
			 * views of y; the cat along dim 1 stays a call */
			if (p == 5 && c == 0)
				assert_true(strstr(text, "view t4 = y [(m), (p)] "
				                   "offset=(0)\n") &&
				            strstr(text, "call cat(") &&
				            strstr(text, "-> z dim=1"));
			/* lanes in two rows of the bias: one division a step */
			if (p == 8)
				assert_true((strstr(text, " + 3 >= a") != NULL) ==
				            (c == 0));
			if (p == 3)
				assert_true((strstr(text, "_wt) -> t24 padding=1 "
				                    "w_layout=krsc layout=nhwc_xy\n") !=
				             NULL) == (c == 0));
			run_geometry_sets(t, path, text, what,
			                  41 + 3 * (uint64_t)c + 7 * (uint64_t)p, 0,
			                  dir, &runs, &wrong);
			free(text);
			free(what);
		}
		krl_opt_free(o);
		krl_task_free(t);
	}
	printf("views on the CPU stand-in (part %d of %d): %d runs, %d wrong\n",
	       g_part + 1, g_parts, runs, wrong);
	forget_dir(dir);
	if (!wrong)
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	assert_int_equal(wrong, 0);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		int k = 0, n = 0;
		if (sscanf(argv[1], "%d/%d", &k, &n) != 2 || n < 1 || k < 1 ||
		    k > n) {
			fprintf(stderr, "usage: %s [k/n] (run part k of n)\n", argv[0]);
			return 2;
		}
		g_part = k - 1;
		g_parts = n;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(level1_candidates_compute_golden),
		cmocka_unit_test(level2_candidates_compute_golden),
		cmocka_unit_test(level3_candidates_compute_golden),
		cmocka_unit_test(pool_geometries_compute_golden),
		cmocka_unit_test(tconv_geometries_compute_golden),
		cmocka_unit_test(tconv_igemm_compute_golden),
		cmocka_unit_test(cat_igemm_compute_golden),
		cmocka_unit_test(conv_red_compute_golden),
		cmocka_unit_test(conv_hopper_compute_golden),
		cmocka_unit_test(logsumexp_online_compute_golden),
		cmocka_unit_test(dwconv_geometries_compute_golden),
		cmocka_unit_test(colregs_compute_golden),
		cmocka_unit_test(permute_forms_compute_golden),
		cmocka_unit_test(gemm_splitk_compute_golden),
		cmocka_unit_test(gemm_masked_compute_golden),
		cmocka_unit_test(channels_last_compute_golden),
		cmocka_unit_test(channels_last_rows_compute_golden),
		cmocka_unit_test(conv_cltile_compute_golden),
		cmocka_unit_test(channels_last_pools_compute_golden),
		cmocka_unit_test(channels_last_layers_compute_golden),
		cmocka_unit_test(kb0_generation_compute_golden),
		cmocka_unit_test(col_thread_compute_golden),
		cmocka_unit_test(reduce_geometries_compute_golden),
		cmocka_unit_test(colsplit_compute_golden),
		cmocka_unit_test(unkrow_compute_golden),
		cmocka_unit_test(views_compute_golden),
	};
	/* KRL_SIM_TEST: run only the tests whose names match (a pattern
	 * with * and ?) */
	const char *only = getenv("KRL_SIM_TEST");
	if (only && *only)
		cmocka_set_test_filter(only);
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	if (g_pchdir[0])
		nftw(g_pchdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(g_so);
	return r;
}
