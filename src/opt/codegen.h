/*
 * Internals of the code generator (src/opt/codegen*.c): the value emitter
 * that writes the CUDA C of one node at one point of a kernel's iteration
 * space (codegen_ev.c), the per-kind kernel writers (codegen_<kind>.c) and
 * the driver's entry (codegen.c). What they all share (strings, kernels,
 * arguments, grouping) is the toolbox, cgtool.h.
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
 *   triu/tril that is its only reader, or the pointwise chain that reads
 *   it (and linear's bias), in its epilogue (codegen_gemm.c).
 */
#ifndef KRL_OPT_CODEGEN_H
#define KRL_OPT_CODEGEN_H

#include "cgtool.h"
#include "krl/opgeom.h"

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
	const char *plin;        /* main points of a channels-last row kernel
	                            (cg_row_cl): the point's index in the
	                            channels-last leaf's memory; else NULL */
	const char *const *coord; /* NULL, or the point's coordinate along
	                            each dim of the space (C expressions):
	                            broadcast operands index from them, not
	                            by dividing lin (channels-last pools) */
	const char *const *coord0; /* NULL, or with coord on a vector step:
	                            lane 0's coordinates (the step's vector
	                            loads index from them) */
	const char *const *mcoord; /* NULL, or with coord: mcoord[e] (3 <= e
	                            <= ndim) the index within the spatial dims
	                            [2, e) (channels-last maps: ts for all of
	                            them), so that an operand full along dims
	                            2..e-1 (softmax's [N, 1, H, W] statistics)
	                            indexes without their coordinates */
	const char *qpin, *qval; /* NULL, or lin / (the product qpin of the
	                            space's dims, as cg_prod writes it) is
	                            qval, a C expression: a vector step's
	                            lanes straddling a run (lane_offset) */
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
	int used_coord;          /* an operand indexed from a point's coord */
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
	/* a channels-last row kernel (cg_row_cl): the memory index of the
	 * leaf's element (o, 0, c), and the memory stride of r; else NULL */
	const char *pb, *pstride;
	/* gathers and flips being evaluated (innermost last) */
	int gf[64];
	int ngf;
	/* map kernels over a channels-last leaf (codegen_map.c): the node
	 * clnode's (-1: none) value at a main point is the C expression
	 * clfmt with cllane + the point's lane for its %d (a register of the
	 * channel-blocked kernel, an element of the tiled kernel's tile) */
	int clnode, cllane;
	const char *clfmt;
	/* warp reductions over groups of this many lanes (C text; NULL: the
	 * whole warp): a warp-strategy row kernel's rows of few elements */
	const char *wlanes;
	/* a column kernel's columns packed (codegen_row.c, split_body): cw
	 * lanes a column group, 32 / cw rows of its threads a warp; column
	 * cx, virtual row cy */
	int colpack;
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
/* Stores v at linear index `lin` of every buffer node n is written to
 * (a part of a cat written in place: at its place in the cat's). */
void cg_store(cg_em *em, int lvl, int n, const char *lin, cg_val v);
/* Where element `lin` of node n, a part of a cat written in place
 * (G->catof[n] >= 0), is in the cat's buffer; with vec > 1 the guard of
 * em's vector path asks what keeps vec lanes one aligned run there. */
const char *cg_cat_index(cg_em *em, int n, const char *lin, int vec);
/* The extents along cat c's dim of its inputs before input n, as plan
 * text ("(a) + (b)"); NULL where n is the first (cgcat.c). */
const char *cg_cat_before(cg_gen *G, int c, int n);
/* For a cat read in place (cg_cat_read), declares at level lvl of em
 * which part holds the cat's element `lin`: returns the part's pointer,
 * and in *delta the part's index minus the cat's (the same for every
 * element of the cat with the same coordinates up to its dim). */
const char *cg_cat_part(cg_em *em, int c, const char *lin, int lvl,
                        const char **delta);
/* The C text for converting v to dtype t. */
const char *cg_conv(cg_em *em, cg_val v, krl_dtype t);
/* The vector guard of em as a C condition ("true" when none). */
const char *cg_guard_cond(cg_em *em);
/* Adds an extent that must be a multiple of em->vec on the vector path. */
void cg_guard_add(cg_em *em, const char *ext);

/* Level of node n at point p in kernel K: 0 kernel-invariant, 1 row-
 * invariant, 2 per point. */
int cg_level(cg_em *em, int n, const cg_point *p);

/* ==== Kernel writers (codegen_<kind>.c) ==== */

krl_err cg_emit_map(cg_gen *G, cg_kern *K);
krl_err cg_emit_row(cg_gen *G, cg_kern *K);
krl_err cg_emit_total(cg_gen *G, cg_kern *K);
krl_err cg_emit_scan(cg_gen *G, cg_kern *K);
krl_err cg_emit_pool(cg_gen *G, cg_kern *K);

/* GEMMs as the 3xTF32 kernel with a generated epilogue (codegen_gemm.c).
 *
 * The pointwise chain that GEMM node n's output feeds and that the GEMM's
 * epilogue may compute: in[] (g->nn entries) marks its nodes; returns the
 * last one, or -1 when there is none. Each node of the chain is pointwise,
 * of n's dims, and reads n, earlier nodes of the chain, or side operands
 * (nodes that do not depend on n: constants, per-column or per-row
 * vectors, other buffers); n and every node of the chain but the last are
 * read by nodes of the chain only and are no task outputs. Of the chains
 * that qualify, the longest (the latest end on a tie). */
int cg_gemm_chain(const krl_graph *g, int n, unsigned char *in);
/* Before the grouping: marks the end of every such chain materialised
 * (the GEMM writes it), for the GEMMs the 3xTF32 kernel will write. */
void cg_gemm_prepare(cg_gen *G);
/* Writes GEMM kernel K as the 3xTF32 kernel, with a triu/tril or the
 * chain (and linear's bias) in its epilogue: 1 when written (or G->err,
 * G->fail, G->oom set), 0 when it does not apply (the library call is
 * written instead). */
int cg_emit_gemm(cg_gen *G, cg_kern *K);
/* After the emission: how many pointwise nodes GEMM node n's epilogue
 * computes (0: none). */
int cg_gemm_fused(cg_gen *G, int n);
/* The pointwise chain that reads GEMM or convolution node n
 * (cg_gemm_chain), computed once per generation (the preparation, every
 * round's emission and the what-line ask): its end (or -1) and, in *in,
 * its nodes; NULL *in when out of memory (G->oom). */
int cg_chain_of(cg_gen *G, int n, const unsigned char **in);
/* Whether the grouping lets kernel K compute the chain in[] of node n up
 * to e: the chain inline (nothing but e materialised), e one output
 * written by a map kernel after K, every side operand readable in K. */
int cg_chain_fits(const cg_gen *G, const cg_kern *K, int n, int e,
                  const unsigned char *in);
/* Moves node e from the map kernel that was to write it to K: K's
 * epilogue writes it, later kernels load it. */
void cg_take_output(cg_gen *G, cg_kern *K, int e);
/* Writes the functor type <sp->kernel>_epi into G->dev and fills sp's epi
 * fields: the value of node n at the element the kernel stores from the
 * sum of products ep_acc (times alpha when given, plus the bias node's
 * element when bias >= 0), then, when end >= 0, the chain's value at end.
 * conv 0: a GEMM's element (ep_row, ep_col) of rows ep_n long, the functor
 * initialised from the kernel's N; conv 1: a convolution's (ep_z, ep_row,
 * ep_col) = (image, channel, position) of ep_m channels of ep_n positions,
 * initialised from the kernel's P and K. */
void cg_write_epi(cg_gen *G, cg_kern *K, int n, const char *alpha,
                  int bias, int end, int conv, krl_gemm_spec *sp);

/* A forward convolution as the implicit-GEMM kernel (codegen_conv.c,
 * src/opt/kernels/conv_igemm.cuh): its spatial dims, kernel sizes (T, R,
 * S: leading ones of 1 below 3-d), whether some padding makes taps check
 * bounds, whether it adds a bias (conv_bias), and the tile: bm output
 * channels x bn positions, warps of wm x wn. Sizes the emitter writes as
 * plan expressions. */
typedef struct cg_igemm {
	int nsp, T, R, S, pad, bias;
	int bm, bn, wm, wn;
	int halo;                /* igemm::halo_entry (2-d, stride and dilation
	                          * 1, 16 input channels or more): tiles of bm
	                          * channels x 4 rows x 32 columns */
	int wg;                  /* its Hopper form applies, igemm::wgh_entry
	                          * (as the halo form's geometry but 8 input
	                          * channels or more, 17 output channels or
	                          * more, rows of 96 or more; written with
	                          * conv.impl=wgmma): tiles of wbm (64 or 128)
	                          * channels x (wbm 128: 2, 64: 4) rows x 128
	                          * columns over a packed weight, wu row tiles
	                          * a block */
	int wbm, wu;
	int64_t stride[3], padv[3], dil[3];  /* d, h, w (1, 0, 1 below 3-d) */
	int64_t cin;             /* input channels at the generation's set */
} cg_igemm;

/* 1 and *q filled when LIB node n of g is an f32 forward convolution the
 * kernel takes: conv or conv_bias, groups 1, attributes and kernel sizes
 * fixed in every shape set (krl_graph_text_fixed), a tap's reach (dilation x (k - 1))
 * below 1024, indices within 32 bits; else 0. */
/* Whether chain end m is written into its cat's slice by an
 * implicit-GEMM convolution's epilogue (cgcat.c). */
int cg_cat_part_conv(const cg_gen *G, int m);
int cg_igemm_geom(const krl_graph *g, int n, cg_igemm *q);
/* The reduction node that the implicit GEMM's epilogue computes for
 * forward convolution n (its pointwise chain's end e, or -1), the only
 * reader of that end: a sum, min or max over dim 1 (the channels) of a
 * 2-d convolution written in the halo form (mma.sync;
 * igemm::halo_red_entry), or over the positions (dims 2.., or dim 2 of a
 * [N, K, positions] view) of one written in the gather form
 * (igemm::conv_red_entry). -1 when none; -2 out of memory (G->oom).
 * Makes G->convred and G->redconv on first use. */
int cg_conv_red(cg_gen *G, int n, int e);
/* Writes K's convolution as the implicit-GEMM kernel, the pointwise chain
 * that reads it in its epilogue where the grouping allows: 1 when written
 * (or G->err, G->fail, G->oom set), 0 when it does not apply. */
int cg_emit_igemm(cg_gen *G, cg_kern *K);
/* The same for a transposed convolution of stride 1 (groups 1, no output
 * padding, attributes and kernel sizes fixed) in its forward form
 * (lib.tconv=fwd with conv.impl=igemm, docs/optimizer.md 3b): the forward
 * convolution's geometry (padding d (k - 1) - p), for cg_emit_tconv,
 * which writes the flipped weight wf first. */
int cg_igemm_tconv_geom(const krl_graph *g, int n, cg_igemm *q);
int cg_emit_igemm_tconv(cg_gen *G, cg_kern *K, const char *wf);

/* Grouped transposed convolutions as dense ones (codegen_groups.c,
 * lib.groups=dense): the group count when LIB node n of g is an f32
 * transposed convolution given `groups`, more than one at the set; else
 * 0. */
int cg_dense_geom(const krl_graph *g, int n);
/* Writes the block-diagonal weight of K's convolution (a derived buffer
 * and its init launch): the buffer's name, for the call made with one
 * group. */
const char *cg_emit_dense(cg_gen *G, cg_kern *K);

/* A 2-d depthwise convolution as generated code (codegen_conv.c,
 * src/opt/kernels/conv_dw.cuh): groups = C input channels > 1, K = C x
 * mult output channels; kernel sizes, strides and dilations (h, w) at the
 * set generated for (the kernel's literal walk; other sets pass theirs at
 * run time), whether it adds a bias (conv_bias), the output's width (the
 * pay rule's). */
typedef struct cg_dw {
	int kh, kw, sh, sw, dh, dw, bias;
	int64_t ow;
} cg_dw;

/* 1 and *q filled when LIB node n of g is an f32 2-d depthwise
 * convolution the kernel takes: conv or conv_bias, groups = C > 1 in
 * every set (x's channel dim, or fixed), the other attributes but
 * strides, paddings and dilations fixed in every shape set; at the set,
 * at most 64 taps, a tap's reach below 64 rows or columns, planes within
 * 32-bit offsets; else 0. */
int cg_dw_geom(const krl_graph *g, int n, cg_dw *q);
/* Writes K's depthwise convolution as the generated kernel, G->s.conv_dw
 * output rows a thread, the pointwise chain that reads it in its epilogue
 * where the grouping allows: 1 when written (or G->err, G->fail, G->oom
 * set), 0 when it does not apply. */
int cg_emit_dwconv(cg_gen *G, cg_kern *K);

/* Whether GEMM node n is written as the 3xTF32 kernel under G's
 * gemm.impl: every GEMM (3xtf32), or each that pays (mixed,
 * krl_gemm_pays). */
int cg_gemm_tc(const cg_gen *G, int n);

/* A `permute` as kernelrl's copy kernel (codegen_perm.c,
 * src/opt/kernels/permute.cuh): y's r dims in m runs, run k x's dims
 * first[k] .. last[k] (consecutive and in order in both), run jl holding
 * x's last dim (m - 1: the `inner` form, rows of y are runs of x; else
 * `tile`). */
typedef struct cg_perm {
	int r, m, jl;
	int first[KRL_MAX_DIM], last[KRL_MAX_DIM];
} cg_perm;

/* 1 and p[] (its rank's entries) when LIB node c is a `permute` whose
 * p0 ... are literals making a permutation; else 0. */
int cg_perm_of(const krl_gnode *c, int *p);
/* 1 and *q filled (q may be NULL) when LIB node n of g is an f32
 * permute the kernel takes (cg_perm_of); else 0. */
int cg_perm_geom(const krl_graph *g, int n, cg_perm *q);
/* Whether LIB node n is a permute written as the copy kernel under G's
 * schedule (perm.impl=gen, a permute the kernel takes, one output). */
int cg_perm_written(const cg_gen *G, int n);
/* Writes K's permute as the copy kernel where cg_perm_written: 1 when
 * written (G->oom may be set), 0 when it does not apply (a library call
 * then). */
int cg_emit_perm(cg_gen *G, cg_kern *K);

/* A transposed convolution as a forward one (codegen_tconv.c): whether
 * it adds a bias, whether some stride is above 1 (the forward output is
 * then scattered), its geometry at the graph's set (spatial dims, groups,
 * sizes). The plan's sizes are expressions, written by the emitter. */
typedef struct cg_tconv {
	int bias, scatter;
	krl_conv_geom geo;       /* the transposed convolution's, at the set */
} cg_tconv;

/* The literal attribute values of LIB node x as the op's krl_attrs (those
 * that do not evaluate at the graph's set left out). */
void cg_lib_attrs(const krl_gnode *x, krl_attrs *a);
/* The first two operands of LIB node x (x, w) as the op's krl_tensors
 * (dtype, rank and dims at the graph's set), for its geometry. */
void cg_lib_inputs(const krl_graph *g, const krl_gnode *x, krl_tensor *in);
/* 1 and *t filled when LIB node n of g is an f32 transposed convolution
 * whose every dim has stride 1 or a dilation that is a multiple of it
 * (and the forward call's padding is not negative); else 0. */
int cg_tconv_geom(const krl_graph *g, int n, cg_tconv *t);
/* Writes K's transposed convolution as the weight flip (init), the
 * forward call and, when needed, the scatter kernel. */
krl_err cg_emit_tconv(cg_gen *G, cg_kern *K, const cg_tconv *t);

/* ==== Entry ==== */

/* The schedule of option 0 of every decision. */
void krl_sched_default(krl_sched *s);

/* What a generation made (for the decision space and the summary). */
typedef struct krl_cginfo {
	int nk;                  /* kernels */
	int count[CG_NKINDS];    /* per cg_kkind */
	int rows_inner1;         /* row kernels with inner == 1 */
	int rows_cols;           /* row kernels with inner > 1 */
	int cols_wide;           /* of those, ones the wide layout applies to */
	int cols_short;          /* of those, ones row.colthread applies to */
	int cols_regs;           /* of those, ones row.colregs applies to */
	int rows_tail;           /* row kernels row.tail applies to */
	int rows_cltile;         /* row kernels written with tiles
	                            (row.cltile) */
	int nlib_gemm;           /* library calls of gemm */
	int scans_short;         /* scan kernels along a last axis of at most
	                            1024 at the set */
	int scans_long;          /* the other scan kernels */
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
