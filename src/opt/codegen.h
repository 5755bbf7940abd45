/*
 * Internals of the code generator (src/opt/codegen*.c): how graph nodes are
 * grouped into kernels, the emitter that writes the CUDA C of one node at
 * one point of a kernel's iteration space, and the per-kind kernel writers.
 *
 * The model (docs/optimizer.md, section 3):
 * - A node is either *inline* (a pointwise node, gather, flip or view,
 *   recomputed wherever it is used), or *materialised*: written to memory
 *   by the one kernel that is its *home*, and loaded by kernels after it.
 * - Anchors are the nodes that shape a kernel: reductions (row or total
 *   kernels), scans, pools (over the same windows of one input: max pool's
 *   values and indices share a kernel) and library calls. Materialised
 *   pointwise nodes without an anchor among their inline inputs get map
 *   kernels.
 * - Kernels are formed in topological order; a node joins an earlier kernel
 *   only when everything it needs is produced before that kernel.
 * - When a kernel would need an anchor of another kernel that is not in
 *   memory, something is materialised (the highest node on the way that
 *   the other kernel can write, else the anchor itself) and the grouping
 *   starts again; the set of materialised nodes only grows, so this ends,
 *   at worst with every node materialised (one kernel per op). The
 *   emitter may ask for more (a gather or flip that leaves the row a
 *   kernel computes): the same loop handles it.
 * - Row kernels run a row program in passes; two patterns are fused into
 *   one pass: softmax's max and sum of exp (online rescaling) and a norm's
 *   mean and variance (sums shifted by the row's first value).
 * - A GEMM may be written as the 3xTF32 kernel of src/opt/gemm.c, with a
 *   triu/tril that is its only reader in its epilogue.
 */
#ifndef KRL_OPT_CODEGEN_H
#define KRL_OPT_CODEGEN_H

#include <stdarg.h>
#include <stddef.h>

#include "opt_int.h"

/* ==== Strings ==== */

/* A growing string; oom is set (and later appends ignored) when an
 * allocation fails. */
typedef struct cg_sb {
	char *s;
	size_t n, cap;
	int oom;
} cg_sb;

void cg_sb_puts(cg_sb *b, const char *z);
void cg_sb_printf(cg_sb *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cg_sb_vprintf(cg_sb *b, const char *fmt, va_list ap);
/* Appends a line: ind tabs, the formatted text and a newline. */
void cg_line(cg_sb *b, int ind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cg_sb_free(cg_sb *b);

/* ==== Kernels ==== */

typedef enum cg_kkind {
	CK_MAP, CK_ROW, CK_TOTAL, CK_SCAN, CK_POOL, CK_LIB, CG_NKINDS
} cg_kkind;

/* A kernel argument: a pointer to a buffer, or a long or double value
 * given by a plan expression. */
typedef struct cg_arg {
	char kind;               /* 'p', 'l' or 'd' */
	char *cname;             /* its name in the kernel */
	char *ctype;             /* pointers: "const float *__restrict__" ... */
	char *plan;              /* plan text: a buffer name or an expression */
} cg_arg;

#define CG_MAX_ARGS 96
#define CG_MAX_KNODES 32

typedef struct cg_kern {
	cg_kkind kind;
	int id;
	int anchor[CG_MAX_KNODES];  /* reduces (row, total), the scan, the
	                               pools, the lib */
	int nanchor;
	int out[CG_MAX_KNODES];     /* materialised nodes whose home it is */
	int nout;
	int space;               /* node whose dims are the iteration space:
	                            map: the first output; row, total, scan: the
	                            anchor's input; pool: the first anchor (the
	                            output's dims) */
	int ax0, ax1;            /* row, scan: the reduced/scanned axes */
	/* Emission state: arguments of the kernel being written. */
	cg_arg args[CG_MAX_ARGS];
	int nargs;
} cg_kern;

/* The schedule: the knobs of the decisions (space.c maps a choice onto
 * it; krl_sched_default gives option 0 of each). */
typedef struct krl_sched {
	int fuse;                /* 1: fuse; 0: one kernel per op */
	int map_block, map_vec, map_ept;
	int map_grid;            /* 0: cdiv; k: persistent, sm_count * k blocks */
	int row_strategy;        /* CG_ROW_AUTO, ... */
	int row_block;
	int row_cache;           /* 1: rows in registers when they fit */
	int row_cols;            /* column kernels: columns per lane (1, or 4
	                            where the wide layout applies) */
	int total_blocks;        /* blocks per SM */
	int total_block;
	int scan_block;
	int pool_block;          /* threads per block of pool kernels */
	int pool_ept;            /* outputs per thread along the last dim */
	int pool_taps;           /* 0: in-plane offsets of the plane's type,
	                            stepped; 1: 64-bit indices multiplied at
	                            every tap (the first pool kernel) */
	int gemm_impl;           /* 0: the library call; 1: the 3xTF32 kernel
	                            (src/opt/gemm.c) where it applies */
	int lib_algo;            /* `algo=` of library calls that take it
	                            (krl_opt_lib_has_algo); 0: the library's
	                            first choice, as the reference */
	int lib_layout;          /* 1: `layout=nhwc` on the library calls that
	                            take it (krl_opt_lib_takes_layout); 0:
	                            none, NCHW as the reference */
	int lib_tconv;           /* 1: transposed convolutions that allow it
	                            as a forward one (codegen_tconv.c); 0: the
	                            library's transposed call */
} krl_sched;

enum { CG_ROW_AUTO, CG_ROW_WARP, CG_ROW_BLOCK, CG_ROW_MULTI };

void krl_sched_default(krl_sched *s);

/* The whole generation: graph, schedule, grouping and output text. */
typedef struct cg_gen {
	const krl_graph *g;
	krl_sched s;
	int *nuse;               /* consumers of each node */
	unsigned char *mat;      /* materialised (written by its home) */
	unsigned char *forcemap; /* must be written by a map kernel */
	unsigned char *skip;     /* 1: a library call fused into another's
	                            kernel (nothing to emit); 2: a GEMM whose
	                            C never reaches memory (no buffer); 3: a
	                            GEMM written as a kernel */
	unsigned gemm_bodies;    /* 3xTF32 layouts already written (bit 2ta+tb) */
	int ngemm_tc;            /* GEMMs written as the 3xTF32 kernel */
	int nfused_lib;          /* library calls fused into those */
	int nalgo;               /* library calls written with algo= */
	int nlayout;             /* library calls written with layout=nhwc */
	int ntconv;              /* transposed convolutions written as forward */
	int *home;               /* kernel of each anchor and materialised
	                            node, else -1 */
	cg_kern *k;
	int nk, capk;
	/* output */
	cg_sb dev;               /* device code */
	cg_sb plan;              /* plan statements */
	cg_sb bufs;              /* plan buffer declarations */
	cg_sb init;              /* statements of the plan's init block */
	char **strs;             /* every string cg_fmt made, freed at the end */
	int nstrs, capstrs;
	int oom;
	int fail;                /* node to materialise, or -1 */
	int failforce;           /* 1: materialise fail as a map output */
	char err[256];           /* why generation cannot proceed */
	/* helpers the device code needs (emitted once, before the kernels) */
	unsigned need;
	int cols_wide;           /* column kernels the wide layout applies to */
	int counter;             /* fresh C names */
} cg_gen;

enum {
	CG_NEED_DIV = 1, CG_NEED_RED = 2, CG_NEED_ARG = 4,
	CG_NEED_WARP = 16, CG_NEED_BLOCK = 32, CG_NEED_HALF = 64,
	CG_NEED_MINMAX = 128
};

/* A string owned by G (freed with it); NULL when out of memory. */
char *cg_fmt(cg_gen *G, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ==== Shapes ==== */

/* Whether two dim texts say the same thing (spaces and redundant outer
 * parentheses ignored). */
int cg_dim_eq(const char *a, const char *b);
/* Whether a dim text is the constant 1. */
int cg_dim_one(const char *a);
/* Whether two nodes have the same shape (dims compared by text). */
int cg_same_shape(const krl_graph *g, int a, int b);
/* The plan text of the product of dims [from, to) of node n: "1" when
 * empty, else "(d0) * (d1) ...". */
char *cg_prod(cg_gen *G, int n, int from, int to);

/* ==== Kernel arguments ==== */

const char *cg_arg_long(cg_gen *G, cg_kern *K, const char *plan);
const char *cg_arg_dbl(cg_gen *G, cg_kern *K, const char *plan);
/* The pointer to node n's buffer (BUF: the task's; others: where they are
 * materialised); write != 0 for an output of K. */
const char *cg_arg_buf(cg_gen *G, cg_kern *K, int n, int write);
/* As cg_arg_buf for a plan buffer by name (partials). */
const char *cg_arg_named(cg_gen *G, cg_kern *K, const char *name,
                         const char *ctype);
/* The plan text of attribute key of node x (LIB, POOL), or dflt when
 * absent. */
const char *cg_attr_plan(cg_gen *G, const krl_gnode *x, const char *key,
                         const char *dflt);
/* The C type of an element of dtype t ("float", "long long", ...). */
const char *cg_ctype(krl_dtype t);
/* The plan name of node n's buffer (task decl or scratch "tN"). */
const char *cg_bufname(cg_gen *G, int n);

/* ==== The emitter ==== */

/* A point of an iteration space at which nodes are evaluated. */
typedef struct cg_point {
	int space;               /* node whose dims are the space */
	const char *lin;         /* C expression: linear index in the space */
	/* rowed: the space seen as [outer | axes ax0..ax1 | inner] at o, r, c */
	int rowed, ax0, ax1;
	const char *o, *r, *c;
	int inrow;               /* in the kernel's current row: its reduce
	                            values (registers) are valid here (pool
	                            kernels: the output point, where the
	                            window's values are) */
	int rowlevel;            /* the point varies only with the row */
	int main;                /* the kernel's own iteration point */
	int lane;                /* lane within a vector step (main points) */
	int cap;                 /* 0, or 1 + the highest level code for this
	                            point may go to (points inside a gather,
	                            flip or view computed at a lower level) */
} cg_point;

/* A value: its C expression and type ('f' float, 'l' long long). */
typedef struct cg_val {
	const char *e;
	char t;
} cg_val;

typedef struct cg_memo {
	int node, level;
	const char *key;
	cg_val v;
} cg_memo;

typedef struct cg_em {
	cg_gen *G;
	cg_kern *K;
	cg_sb *buf[3];           /* code of level 0 (kernel), 1 (row), 2 */
	int ind[3];
	cg_memo *memo;
	int nmemo, capmemo;
	/* vector steps of main points */
	int vec;                 /* lanes (1, 2, 4) */
	int rev;                 /* lanes go backwards (reverse scans) */
	const char *vlin;        /* linear index of lane 0 (rev: lane vec-1) */
	const char *vr;          /* rowed: r of that lane */
	/* register cache of row kernels: for nodes in cnode, element k of
	 * cvar[i] holds the vector step ck */
	int cnode[8];
	const char *cvar[8];
	int ncache;
	const char *ck;
	/* guards of the vector path: extents that must be multiples of vec */
	const char *guard[16];
	int nguard;
	/* reduce values in registers: node -> expression (row/total kernels) */
	int rnode[CG_MAX_KNODES];
	cg_val rval[CG_MAX_KNODES];
	int nr;
	/* the scan's value at the main point (scan kernels) */
	int snode;
	cg_val sval;
	/* the current row of row and scan kernels: C names of o, c (NULL when
	 * inner is 1), the linear index of (o, 0, c), the row length and the
	 * inner extent ("1" when inner is 1) */
	const char *ro, *rc, *rb, *rlen, *rinner;
	/* gathers and flips being evaluated (innermost last) */
	int gf[64];
	int ngf;
} cg_em;

void cg_em_init(cg_em *em, cg_gen *G, cg_kern *K);
void cg_em_free(cg_em *em);
/* Forgets memoised values of level >= level (a new row, step or path). */
void cg_em_forget(cg_em *em, int level);
/* Makes node (an anchor of the kernel) evaluate to v from now on. */
void cg_em_set_reduce(cg_em *em, int node, cg_val v);
/* A rowed main point of the row or scan kernel em writes: lin and r as
 * given (lane q), o, c from em's current row. */
cg_point cg_row_point(cg_em *em, const char *lin, const char *r, int lane);

/* Accumulators of reductions (see codegen_ev.c). */
void cg_acc_decl(cg_sb *b, int ind, krl_redop op, const char *acc);
/* Combines lane values v[0..nv) (floats) at indices idx[0..nv) into acc. */
void cg_acc_step(cg_sb *b, int ind, krl_redop op, const char *acc,
                 const char *const *v, const char *const *idx, int nv);
/* Combines a partial (a double slot; arg ops read slot and slot + 1) into
 * acc. */
void cg_acc_part(cg_sb *b, int ind, krl_redop op, const char *acc,
                 const char *part, const char *slot);
/* Writes acc into part[slot] (and slot + 1 for arg ops). */
void cg_acc_store(cg_sb *b, int ind, krl_redop op, const char *acc,
                  const char *part, const char *slot);
/* Reduces acc across the block and has thread 0 write it to
 * part[slot] (and slot + 1). */
void cg_acc_block_store(cg_em *em, cg_sb *b, int ind, krl_redop op,
                        const char *acc, const char *part, const char *slot);
/* The reduce's value after a cross-thread reduction of acc with the warp
 * or block helpers (block != 0): declares and returns it. */
cg_val cg_acc_finish(cg_em *em, cg_sb *b, int ind, krl_redop op,
                     const char *acc, int block);

/* Emits the code that computes node n at point p and returns its value;
 * .e is NULL on failure (G->fail names the node to materialise, or
 * G->err says why). */
cg_val cg_ev(cg_em *em, int n, const cg_point *p);
/* The float value of v (a cast when it is an integer). */
const char *cg_f(cg_em *em, cg_val v);
/* Stores v at linear index `lin` of every buffer node n is written to. */
void cg_store(cg_em *em, int lvl, int n, const char *lin, cg_val v);
/* A fresh C name with prefix pre. */
const char *cg_name(cg_gen *G, const char *pre);
/* The C text for converting v to dtype t. */
const char *cg_conv(cg_em *em, cg_val v, krl_dtype t);
/* The vector guard of em as a C condition ("true" when none). */
const char *cg_guard_cond(cg_em *em);
/* Adds an extent that must be a multiple of em->vec on the vector path. */
void cg_guard_add(cg_em *em, const char *ext);

/* Level of node n at point p in kernel K: 0 kernel-invariant, 1 row-
 * invariant, 2 per point. */
int cg_level(cg_em *em, int n, const cg_point *p);

/* ==== Reductions ==== */

/* The C type of an accumulator, its identity, and the per-element and
 * cross-thread combine for a reduce op; helpers for the kernel writers. */
const char *cg_red_name(krl_redop op);
int cg_red_is_arg(krl_redop op);

/* ==== Kernel writers (codegen_<kind>.c) ==== */

krl_err cg_emit_map(cg_gen *G, cg_kern *K);
krl_err cg_emit_row(cg_gen *G, cg_kern *K);
krl_err cg_emit_total(cg_gen *G, cg_kern *K);
krl_err cg_emit_scan(cg_gen *G, cg_kern *K);
krl_err cg_emit_pool(cg_gen *G, cg_kern *K);

/* Ends the library call being written in G->plan: the schedule's algo=
 * and layout=nhwc where the call takes them (algo, layout nonzero),
 * counted for the what-line, then the newline. */
void cg_lib_choices(cg_gen *G, int algo, int layout);

/* A transposed convolution as a forward one (codegen_tconv.c): its
 * spatial dims, whether it adds a bias, whether some stride is above 1
 * (the forward output is then scattered), its groups. The plan's sizes
 * are expressions, written by the emitter. */
typedef struct cg_tconv {
	int nsp, bias, scatter;
	int64_t groups;
} cg_tconv;

/* 1 and *t filled when LIB node n of g is an f32 transposed convolution
 * whose every dim has stride 1 or a dilation that is a multiple of it
 * (and the forward call's padding is not negative); else 0. */
int cg_tconv_geom(const krl_graph *g, int n, cg_tconv *t);
/* Writes K's transposed convolution as the weight flip (init), the
 * forward call and, when needed, the scatter kernel. */
krl_err cg_emit_tconv(cg_gen *G, cg_kern *K, const cg_tconv *t);

/* Writes the kernel's header comment (what it fuses) into G->dev. */
void cg_kernel_comment(cg_gen *G, cg_kern *K, const char *how);
/* Writes `extern "C" __global__ void __launch_bounds__(block) name(args)`
 * with K's arguments into G->dev. */
void cg_kernel_sig(cg_gen *G, cg_kern *K, const char *name, int block);
/* Writes a plan launch of name with K's arguments. */
void cg_plan_launch(cg_gen *G, cg_kern *K, const char *name,
                    const char *grid, const char *block);
/* Resets K's argument list (each launched kernel has its own). */
void cg_args_reset(cg_kern *K);

/* Whether node n is evaluated inline in kernel K (not loaded). */
int cg_inline_in(const cg_gen *G, int n, const cg_kern *K);

/* How kernel kid sees node m: loaded from memory (a leaf), computed inline,
 * an anchor of kid itself, or an anchor of another kernel that is not in
 * memory (which kid cannot use). */
enum { SEE_LEAF, SEE_INLINE, SEE_IN, SEE_OUT };
int cg_see(const cg_gen *G, int m, int kid);
/* The task decl of the which-th output that node n is, or -1. */
int cg_out_decl(const krl_graph *g, int n, int which);
/* Whether node n's shape is row kernel K's row shape (its space without
 * the reduced axes; dims of 1 ignored). */
int cg_is_rowshape(const cg_gen *G, const cg_kern *K, int n);

/* ==== Entry ==== */

/* What a generation made (for the decision space and the summary). */
typedef struct krl_cginfo {
	int nk;                  /* kernels */
	int count[CG_NKINDS];    /* per cg_kkind */
	int rows_inner1;         /* row kernels with inner == 1 */
	int rows_cols;           /* row kernels with inner > 1 */
	int cols_wide;           /* of those, ones the wide layout applies to */
	int nlib_gemm;           /* library calls of gemm */
} krl_cginfo;

/*
 * Writes the candidate for g under schedule s: *text (device code and
 * plan; caller frees) and *summary (one line, caller frees). header is
 * put first in the file's opening comment (the choice line); info (may
 * be NULL) says what kernels it made. Failures:
 * KRL_EUNSUPPORTED (a graph the generator cannot write) with d saying
 * why, KRL_ENOMEM.
 */
krl_err krl_codegen(const krl_graph *g, const krl_sched *s,
                    const char *header, char **text, char **summary,
                    krl_cginfo *info, krl_diag *d);

#endif
