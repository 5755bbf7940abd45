/*
 * The codegen toolbox (src/opt/cgtext.c, cgkern.c, cggroup.c): what every
 * kernel writer of the code generator shares. The string builder and the
 * strings and names a generation owns; the kernels, the schedule and the
 * generation's state; the texts of dims; a kernel's arguments, comment,
 * signature and launch; the grouping of nodes into kernels and the
 * queries about it (the model is in codegen.h).
 *
 * Layering (scripts/depcycles.py checks it): the toolbox calls no kernel
 * writer; the value emitter (codegen_ev.c) calls the toolbox; the kernel
 * writers (codegen_map/row/total/scan/pool/tconv.c) call the emitter and
 * the toolbox; only the driver (codegen.c) calls the writers.
 */
#ifndef KRL_OPT_CGTOOL_H
#define KRL_OPT_CGTOOL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "opt_int.h"
#include "util/strbuf.h"

/* ==== Strings (cgtext.c) ==== */

/* A growing string: the library's krl_strbuf (util/strbuf.h; text in z,
 * length len). It never truncates silently: when an allocation fails
 * (or a size would overflow, or a format is invalid) oom is set, later
 * appends are ignored, and the flag travels on: cg_sb_cat passes it to
 * the builder it appends to, and krl_codegen fails with KRL_ENOMEM when
 * any of the generation's builders (dev, plan, bufs, init) or G->oom has
 * it. A builder whose text is used other than through cg_sb_cat must have
 * its oom checked by its writer (they set G->oom). */
typedef krl_strbuf cg_sb;

void cg_sb_puts(cg_sb *b, const char *z);
void cg_sb_printf(cg_sb *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cg_sb_vprintf(cg_sb *b, const char *fmt, va_list ap);
/* Appends a line: ind tabs, the formatted text and a newline. */
void cg_line(cg_sb *b, int ind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Appends src's text to b, and src's oom flag: a builder that failed
 * makes the one it goes into fail too. */
void cg_sb_cat(cg_sb *b, const cg_sb *src);
/* Frees b's text and zeroes it (freeing a zeroed builder is a no-op). */
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
	int map_cl;              /* over a channels-last leaf: 0, tiles through
	                            shared memory; 1, 8 channels a thread */
	int map_grid;            /* 0: cdiv; k: persistent, sm_count * k blocks */
	int row_strategy;        /* CG_ROW_AUTO, ... */
	int row_block;
	int row_cache;           /* 1: rows in registers when they fit */
	int row_cols;            /* column kernels: columns per lane (1, or 4
	                            where the wide layout applies) */
	int row_colthread;       /* column kernels over at most CG_COL_THREAD_R
	                            rows (at the set generated for): 1, a
	                            thread per column, the block's threads
	                            side by side; 0, 32 columns x block / 32
	                            rows of threads */
	int row_tail;            /* kernels of several passes whose outputs
	                            have the shape of a row (emit_multi,
	                            emit_cols_split): 1, the last block of a
	                            row's chunks writes them (a tail); 0, a
	                            kernel of their own */
	int row_cltile;          /* channels-last row kernels (cg_row_cl):
	                            1, they write full-shape outputs
	                            through shared-memory tiles where
	                            cg_row_cl_tiles allows; 0, a map kernel
	                            writes those */
	int row_colregs;         /* column kernels of one pass whose run fits
	                            CR_TY x 16 rows (codegen_row.c,
	                            regs_rows): 1, 4 columns a lane and each
	                            thread's rows held in registers; 0, the
	                            32-column kernel re-reading */
	int total_blocks;        /* blocks per SM */
	int total_block;
	int total_steps;         /* float4 steps a thread has in flight in a
	                            total kernel's loop (4 or 8) */
	int scan_block;
	int pool_block;          /* threads per block of pool kernels */
	int pool_ept;            /* outputs per thread along the last dim */
	int pool_taps;           /* 0: in-plane offsets of the plane's type,
	                            stepped; 1: 64-bit indices multiplied at
	                            every tap (the first pool kernel) */
	int pool_strip;          /* outputs down a column a thread of a 2-d
	                            max's column strip (codegen_pool.c) */
	int pool_unc;            /* 1: the strip loads every tap first, from
	                            clamped places (pool.strip=Nu) */
	int gemm_impl;           /* 0: the library call; 1: the 3xTF32 kernel
	                            (src/opt/gemm.c) where it applies; 2: that
	                            where the GEMM pays (krl_gemm_pays), the
	                            library call elsewhere */
	int gemm_mask;           /* with gemm_impl 1: 1, a masked pair's
	                            tiles skipped (codegen_gemm.c mask_pair);
	                            0: every tile computed */
	int lib_algo;            /* `algo=` of library calls that take it
	                            (krl_opt_lib_takes_algo); 0: the library's
	                            first choice, as the reference */
	int lib_layout;          /* 1: `layout=nhwc` on the library calls that
	                            take it (krl_opt_lib_takes_layout); 2: the
	                            same, `layout=nhwc_y` on those whose output
	                            only generated kernels read (cg_is_cl); 3:
	                            as 2, and map kernels whose outputs feed
	                            such convolutions write them channels-last
	                            (cg_cl_plan), which those read as they are
	                            (`layout=nhwc_xy`); 0: none, NCHW as the
	                            reference */
	int lib_tconv;           /* 1: transposed convolutions that allow it
	                            as a forward one (codegen_tconv.c); 0: the
	                            library's transposed call */
	int conv_impl;           /* 0: the library call; 1: the implicit-GEMM
	                            kernel (codegen_conv.c) where it applies,
	                            its mma.sync forms; 2: as 1, the Hopper
	                            halo form (wgmma) where that applies */
	int lib_dense;           /* 1: grouped transposed convolutions as
	                            dense ones, the weight block-diagonal
	                            (codegen_groups.c); 0: grouped calls */
	int math_fast;           /* 1: pointwise ops with an approximate text
	                            (pwop.c: exp, log, tanh, sigmoid) use it */
	int conv_tiles;          /* position tiles a block of the implicit
	                            GEMM's gather form walks through one
	                            pipeline (conv_igemm.cuh conv_block's U) */
	int conv_dw;             /* 0: depthwise convolutions as the library
	                            call; else the generated kernel
	                            (codegen_conv.c, cg_dw_geom), that many
	                            output rows a thread */
	int perm_gen;            /* 1: permutes as kernelrl's copy kernel
	                            (codegen_perm.c); 2: the same, its tile
	                            form loading a block's next tile while it
	                            stores one (perm.impl=pipe); 0: the
	                            library's call, as the reference */
	int lib_rnn;             /* `recurrence=` of the recurrent layers
	                            (KRL_OPCAP_RECURRENCE): the index of its
	                            word (krl_attr_words: 0 standard, the
	                            reference's, writes nothing; 1 infer, 2
	                            persist, 3 small_h) */
} krl_sched;

enum { CG_ROW_AUTO, CG_ROW_WARP, CG_ROW_BLOCK, CG_ROW_MULTI };

/* The kernel just written, when a small kernel after it may run in its
 * tail (codegen_row.c, fold_tail): where its text is, and who takes the
 * ticket. */
typedef struct cg_prev {
	int form;                /* 0: none; 1: its whole grid takes the
	                            ticket (a grid-stride kernel with no early
	                            return); 2: the last block of each of its
	                            groups does (a kernel with tails) */
	int threads;             /* its block's threads */
	size_t dev0, dev1;       /* its text in dev (comment included) */
	size_t plan0, plan1;     /* its launch in plan */
	const char *count;       /* C: how many blocks take the ticket */
	const char *slot;        /* C: the ticket's index in krl_tk */
	const char *need;        /* plan text: tickets the fold needs */
} cg_prev;

/* The whole generation: graph, schedule, grouping and output text. */
typedef struct cg_gen {
	const krl_graph *g;
	krl_sched s;
	int *nuse;               /* consumers of each node */
	int *sclass;             /* each node's shape class (cg_shape_classes:
	                            equal where cg_same_shape holds), or NULL */
	unsigned char *mat;      /* materialised (written by its home) */
	unsigned char *forcemap; /* must be written by a map kernel */
	unsigned char *alias;    /* 1: a VIEW a library call reads, written as
	                            a plan `view` of its input's buffer (no
	                            kernel copies it; materialised, its home
	                            its input's: the kernel writing the input
	                            evaluates it inline, later ones read it);
	                            2: a `narrow` of a flat tensor along dim
	                            0 (a slice), the same with an offset;
	                            3: a task output that VIEWs the output
	                            of a library call (outview), which
	                            writes it: no kernel copies it */
	int *outview;            /* per library node, the task output (a
	                            VIEW chain of it, alias 3) whose memory
	                            it writes as a plan `view`, or -1 */
	unsigned char *clgen;    /* lib.layout=nhwc_xy: 1 where a map kernel
	                            writes the node channels-last (cg_cl_plan;
	                            cg_is_cl) */
	int clgen_off;           /* cg_cl_plan did not settle: none */
	int *catof;              /* per node, the cat whose output slice it is
	                            written to in place (cg_cat_plan), or -1 */
	int *catlib;             /* per node, the flat cat (its slices
	                            contiguous) whose slice a library call
	                            writes through a plan view declared there
	                            (the call, and the views between it and the
	                            cat), or -1 */
	const char **catoff;     /* with catlib: the slice's offset, plan text */
	unsigned char *catrd;    /* per node, 1 for a cat its readers read in
	                            place, part by part (cg_cat_plan): no
	                            buffer, no copy */
	int ncat;                /* cats so dropped */
	int ncatrd;              /* cats read in place */
	unsigned char *skip;     /* 1: a library call fused into another's
	                            kernel (nothing to emit); 2: a GEMM whose
	                            C never reaches memory (no buffer); 3: a
	                            GEMM written as a kernel */
	unsigned gemm_bodies;    /* 3xTF32 layouts already written (bit 2ta+tb) */
	unsigned char **chain;   /* per GEMM node, its epilogue chain's nodes
	                            (cg_gemm_chain's in[]), made on first use */
	int *chain_end;          /* per node, that chain's end, or -1 */
	int *convred;            /* per convolution node, the reduction over
	                            its output channels or positions that its
	                            kernel's epilogue computes (cg_conv_red),
	                            or -1; NULL: none */
	int *redconv;            /* per such reduction, that convolution */
	int ngemm_tc;            /* GEMMs written as the 3xTF32 kernel */
	int nconv_tc;            /* convolutions written as the implicit GEMM */
	int nconv_red;           /* of those, reducing their channels or
	                            positions in the epilogue (cg_conv_red) */
	int nconv_fin;           /* of those, over the positions: a second
	                            kernel folds the blocks' partials */
	int igemm_body;          /* its body written */
	int nconv_dw;            /* depthwise convolutions written as the
	                            generated kernel */
	int dw_body;             /* its body written */
	const char **mrng;       /* per GEMM node, the range buffer of the
	                            masked pair it ends (mask_pair), or NULL */
	int mrange_body;         /* krl_mrange written */
	int nmasked;             /* masked pairs */
	int nperm;               /* permutes written as the copy kernel */
	int perm_body;           /* its body written */
	int ndense;              /* grouped convolutions written as dense */
	int dense_body;          /* krl_wdense written */
	int nfused_lib;          /* library calls fused into those */
	int nalgo;               /* library calls written with algo= */
	int nlayout;             /* library calls written with layout=nhwc */
	int nlayout_xy;          /* of those, with layout=nhwc_xy */
	int nwkrsc;              /* of those, with w_layout=krsc */
	int wkrsc_body;          /* krl_wkrsc written */
	int nrec;                /* library calls written with recurrence= */
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
	int cols_short;          /* column kernels row.colthread applies to
	                            (emit_cols over at most CG_COL_THREAD_R
	                            rows) */
	int cols_regs;           /* column kernels row.colregs applies to
	                            (codegen_row.c, regs_rows) */
	int row_cl;              /* row kernels walking a channels-last input
	                            in memory order (cg_row_cl) */
	int pool_cl;             /* pool kernels reading one so */
	int map_clout;           /* map kernels writing channels-last outputs
	                            (cg_cl_plan) */
	int pool_clout;          /* pool kernels doing so */
	int ntail;               /* kernels whose last block writes their
	                            group's outputs (row.tail) */
	int rows_tail;           /* kernels row.tail applies to */
	int rows_cltile;         /* kernels written with tiles (row.cltile) */
	cg_sb tails;             /* their tickets: max(...) of the groups */
	cg_prev prev;            /* the kernel just written (fold_tail) */
	int nfold;               /* small kernels run in another's tail */
	int counter;             /* fresh C names */
} cg_gen;

enum {
	CG_NEED_DIV = 1, CG_NEED_RED = 2, CG_NEED_ARG = 4,
	CG_NEED_WARP = 16, CG_NEED_BLOCK = 32, CG_NEED_HALF = 64,
	CG_NEED_MINMAX = 128, CG_NEED_TAIL = 512,
	CG_NEED_FAST = 1024
};

/* A string owned by G (freed with it); when out of memory, "" with
 * G->oom set (krl_codegen then fails). */
char *cg_fmt(cg_gen *G, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A fresh C name with prefix pre, owned by G. */
const char *cg_name(cg_gen *G, const char *pre);

/* ==== Dim texts (cgtext.c) ==== */

/* Whether two dim texts say the same thing (spaces and redundant outer
 * parentheses ignored). */
int cg_dim_eq(const char *a, const char *b);
/* Whether a dim text is the constant 1. */
int cg_dim_one(const char *a);
/* Whether dims [from, to) of x are all the constant 1 (or none). */
int cg_dims_one(const krl_gnode *x, int from, int to);
/* Whether two nodes have the same shape (dims compared by text). */
int cg_same_shape(const krl_graph *g, int a, int b);
/* The FNV-1a hash of text z (kernel codes, shape keys). */
uint64_t cg_fnv(const char *z);
/* G's graph's nodes numbered by shape (G->sclass): two nodes have the same
 * number exactly where cg_same_shape holds, so the grouping, which asks
 * it of a node against every kernel in every round, compares two ints;
 * -1 when out of memory. */
int cg_shape_classes(cg_gen *G);
/* cg_same_shape of G's graph through G->sclass where it is made. */
int cg_gsame(const cg_gen *G, int a, int b);
/* The plan text of the product of dims [from, to) of node n: "1" when
 * empty, else "(d0) * (d1) ...". */
char *cg_prod(cg_gen *G, int n, int from, int to);

/* ==== Kernel arguments (cgkern.c) ==== */

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
/* The plan text of a spatial attribute along one axis ("d", "h", "w"):
 * name_axis's (stride_h), else name's (stride), else dflt. */
const char *cg_attr_plan_axis(cg_gen *G, const krl_gnode *x,
                              const char *name, const char *axis,
                              const char *dflt);
/* The C type of an element of dtype t ("float", "long long", ...). */
const char *cg_ctype(krl_dtype t);
/* The plan name of node n's buffer (task decl or scratch "tN"). */
const char *cg_bufname(cg_gen *G, int n);

/* ==== Kernel assembly (cgkern.c) ==== */

/* Writes the kernel's header comment (what it fuses) into G->dev. */
void cg_kernel_comment(cg_gen *G, cg_kern *K, const char *how);
/* Writes `extern "C" __global__ void __launch_bounds__(block) name(args)`
 * with K's arguments into G->dev. */
void cg_kernel_sig(cg_gen *G, cg_kern *K, const char *name, int block);
/* The same with __launch_bounds__(block, minblocks) where minblocks > 0:
 * registers capped so that that many blocks fit a multiprocessor. */
void cg_kernel_sig_min(cg_gen *G, cg_kern *K, const char *name, int block,
                       int minblocks);
/* Writes a plan launch of name with K's arguments. */
void cg_plan_launch(cg_gen *G, cg_kern *K, const char *name,
                    const char *grid, const char *block);
/* Resets K's argument list (each launched kernel has its own). */
void cg_args_reset(cg_kern *K);

/* ==== Reduce ops (cgkern.c) ==== */

/* The name of a reduce op ("sum", "argmax", ...), for comments. */
const char *cg_red_name(krl_redop op);
/* Whether op is argmax or argmin (an accumulator with an index too). */
int cg_red_is_arg(krl_redop op);

/* Ends the library call being written in G->plan: the schedule's algo=
 * and layout= where the call takes them (algo, layout nonzero), and its
 * recurrence= where library node n is a recurrent layer, counted for the
 * what-line, then the newline. Library node n (-1: a call the generator
 * made) gets layout=nhwc_xy where cg_cl_reads_x says so, else nhwc_y
 * where cg_is_cl does, else layout=nhwc. */
void cg_lib_choices(cg_gen *G, int algo, int layout, int n);
/* The last pass (cgdedup.c): each kernel of dev whose code equals an
 * earlier kernel's up to the names of its parameters and locals loses its
 * definition (a comment says whose code it runs) and its launches in plan
 * and init call the earlier kernel. Returns how many, or -1 when out of
 * memory (the texts are then unchanged). */
int cg_dedup_kernels(cg_sb *dev, cg_sb *plan, cg_sb *init);
/* Whether node n is stored channels-last in memory ([N, s..., C] under
 * its dims [N, C, s...]): a library node that leaves its output so
 * (`layout=nhwc_y` or `nhwc_xy`, lib.layout=nhwc_y or nhwc_xy): a
 * convolution without bias, not grouped, not run as a forward one
 * (lib.tconv) nor as the implicit GEMM (conv.impl=igemm), no task
 * output, read by generated nodes only (pointwise ones, reductions, and
 * pools over every spatial dim); or a map kernel's output that
 * cg_cl_plan marked. Its readers index it so (codegen_ev.c); a map
 * kernel over its shape walks it channel-blocked (codegen_map.c). */
int cg_is_cl(const cg_gen *G, int n);
/* lib.layout=nhwc_xy, once the kernels are formed: marks (G->clgen) the
 * outputs of map kernels over a channels-last leaf, of the kernel's
 * shape, that no task output is and that only convolutions reading them
 * as x channels-last (cg_is_cl, one at least) and generated nodes read:
 * those kernels write them channels-last; and a cat of channels written
 * in place (cg_cat_plan, run before it) whose readers are so, with its
 * parts, where each part's kernel can write them channels-last. Returns
 * 1 when the marks changed (the grouping, which asks cg_is_cl, is then
 * formed again), 0 when not, -1 when out of memory. */
int cg_cl_plan(cg_gen *G);
/* Concatenations written in place (cgcat.c), once the kernels are
 * formed: G->catof[m] = c for every input m of a cat c whose inputs are
 * all map or pool outputs read by c alone; their kernels store into c's
 * buffer (cg_store, cg_cat_index) and c's call is dropped. 0, or -1 when
 * out of memory. */
int cg_cat_plan(cg_gen *G);
/* Whether node n is a part of a flat cat that hosts it at a nonzero
 * offset (cg_cat_plan's flat hosts): its buffer's start may not be 16-byte
 * aligned, so no vector load reads it. */
int cg_off_view(const cg_gen *G, int n);
/* Whether node n is a cat read in place: G->catrd[n] (cg_cat_plan). */
int cg_cat_read(const cg_gen *G, int n);
/* Whether cat (or permute: cgcat.c) node c is written in place by its
 * inputs' kernels. */
int cg_cat_inplace(const cg_gen *G, int c);
/* The dim cat node c concatenates along (its literal `dim`, made
 * non-negative), -1 when that is not a literal in range. */
int cg_cat_dim(const krl_gnode *c);
/* Whether library node n reads its x channels-last (layout=nhwc_xy): a
 * convolution that leaves y so whose x cg_cl_plan marked. */
int cg_cl_reads_x(const cg_gen *G, int n);
/* A channels-last leaf (cg_is_cl) of node shape's shape that node n is,
 * or reaches through pointwise nodes kernel K evaluates inline; -1 if
 * none. depth: 0 (a bound on the walk). */
int cg_cl_reach(cg_gen *G, cg_kern *K, int n, int shape, int depth);
/* Whether row kernel K walks a channels-last leaf of its shape [N, C,
 * s...] in the leaf's memory order (codegen_row.c): 1 when it reduces over
 * C (rows of C contiguous), 2 over a run of spatial axes (32 neighbouring
 * memory columns per block); 0 otherwise. Such a kernel writes outputs of
 * its row shape, and full-shape ones only where cg_row_cl_tiles allows
 * them: the grouping leaves the others to a map kernel, which reads the
 * leaf channel-blocked. */
int cg_row_cl(const cg_gen *G, const cg_kern *K);
/* Whether row kernel K over a channels-last leaf (cg_row_cl) may write
 * full-shape output n (row.cltile on; n f32, one buffer: no second output
 * name, no cat slice). Over rows of C (1): C at most CG_CL_TILE_C at the
 * shape set and the warp strategy; its rows go in tiles of 32 positions
 * whose outputs gather in shared memory, [C][33], and leave NCHW, a warp
 * storing 32 neighbouring positions of a channel (91's softmax over 128
 * channels, then its chain: one read of the convolution's output instead
 * of two). Over a run of spatial axes (2): the run ends the spatial axes,
 * at most 256 at the set, and is not split over blocks; the block's 32
 * columns x the run go through shared memory, each column leaving as one
 * contiguous NCHW run (34's layer norm over W). */
int cg_row_cl_tiles(const cg_gen *G, const cg_kern *K, int n);
#define CG_CL_TILE_C 256
/* Whether node x's `groups` attribute is absent or the literal 1 (in
 * every shape set: never a depthwise convolution). */
int cg_groups_one(const krl_gnode *x);
/* For library convolution n called channels-last (lib.layout): the name
 * of a derived copy of its weight in cuDNN's channels-last filter format,
 * written in the plan's init by a generated transpose (the call then
 * takes `w_layout=krsc`, and transposes no weight per call); NULL where
 * the weight is not a param or the call is grouped. */
const char *cg_weight_krsc(cg_gen *G, cg_kern *K, int n);

/* Whether view node n keeps its input's N and C (dims 0 and 1, both at
 * least 3-d), merging or splitting spatial dims only: a channels-last
 * input's memory order is then the view's too. */
int cg_cl_view(const krl_graph *g, int n);
/* Whether a row kernel over space sp (dims [N, C, s...] at the shape set
 * generated for) reducing axes [ax0, ax1) pays in a channels-last input's
 * memory order (cg_row_cl): over C, at least CG_CL_MIN_ROW channels (a
 * warp's lanes; 16 channels took 6.4 ms against 4.8 through the NCHW
 * order on 58); over spatial axes, at least CG_CL_MIN_BLOCKS column blocks
 * (when a block walked its whole run, 15, 38 and 72 at kb1 with 16-64
 * blocks took 4.7x-13x as long as with NCHW, 52 and 67 with 256 took
 * 1.13x-1.15x as long, 17 with 512 took 0.76x). Measured on the H200,
 * bench/results/2026-12-04-h200-cl-rows. Since 794d6c1 fewer blocks split
 * their run (emit_cols_split), and cg_row_cl no longer asks for blocks;
 * only lib.layout's pay rule does. Measured with the split (call 3 there,
 * round 0 of each search, nhwc_y against NCHW): 15 1.29x, 52 1.18x, 67
 * 1.07x, 77 1.02x faster, 38 0.74x and 79 (16 channels) 0.81x: the
 * threshold is stale, and 16 channels (half a column group) the better
 * test; not changed without a run at the commit that changes it. */
#define CG_CL_MIN_ROW 32
#define CG_CL_MIN_BLOCKS 512
/* The shortest run (at the set generated for) over which an NCHW column
 * kernel with fewer than CG_CL_MIN_BLOCKS column blocks splits its run
 * across blocks (codegen_row.c's split_pays). */
#define CG_SPLIT_MIN_R 4096
/* The longest reduced extent (at the set generated for) for which a
 * column kernel offers a thread per column (row.colthread): 6's softmax
 * over 16 channels, 58's logsumexp over 16. */
#define CG_COL_THREAD_R 32

/* The most multiply-adds (at the set generated for) of a GEMM for which
 * lib.algo tries cuBLASLt's second algorithm first (space.c,
 * gemm_small; it also needs 64 rows). */
#define CG_SMALL_GEMM 4194304.0

int cg_cl_rows_pay(const krl_gnode *sp, int ax0, int ax1);
/* The column blocks of such a row kernel over spatial axes [ax0, ax1):
 * (n, the spatial dims before ax0) x groups of 32 of (the spatial dims
 * after ax1, C), at the shape set generated for. */
double cg_cl_col_blocks(const krl_gnode *sp, int ax0, int ax1);

/* ==== Grouping (cggroup.c) ==== */

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


/* Marks the library calls whose one reader is a chain of VIEWs that is a
 * task output (each node under it read once; not a GEMM written as a
 * kernel: G->skip): the call writes the output's memory through a plan
 * `view` (G->outview) and the output needs no copy kernel (alias 3).
 * With fuse=none nothing is marked. */
void cg_out_views(cg_gen *G);

/* One grouping of the graph under the current materialised set (G->mat,
 * G->forcemap): fills G->k, G->home. 0 done, 1 something more was
 * materialised (group again), -1 an error (G->err or G->oom). */
int cg_form(cg_gen *G);

#endif
