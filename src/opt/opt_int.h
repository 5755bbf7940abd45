/*
 * Internals of the program optimizer shared by its files (src/opt/):
 * the pointwise-op table (one row per krl_pwop: its float64 meaning for
 * the interpreter and its CUDA C text for the code generator) and the
 * graph builder.
 */
#ifndef KRL_OPT_INT_H
#define KRL_OPT_INT_H

#include "krl/opt.h"
#include "krl/ops.h"
#include "lang/scope.h"

typedef struct krl_pwinfo {
	const char *name;        /* "add", "relu", ... (for comments and tests) */
	int nin;                 /* 1, 2 or 3 */
	/* CUDA C for fp32 operands: "%0", "%1", "%2" stand for the operands
	 * (each an fp32 expression, parenthesised by the generator), e.g.
	 * "krl_maxf(%0, 0.f)", "(%0 + %1)". */
	const char *cuda;
	double (*f)(const double *a);   /* the float64 meaning */
	/* the text under math=fast (the schedule's math_fast), NULL where it
	 * is cuda's: the SFU's approximations (__expf, __logf) instead of
	 * the accurate libm functions */
	const char *fast;
} krl_pwinfo;

const krl_pwinfo *krl_pw_info(krl_pwop op);

/* Appends a copy of *n (taking ownership of its strings and attrs) and
 * returns its index, or -1 when out of memory. */
int krl_graph_add(krl_graph *g, const krl_gnode *n);

/* ==== GEMM as generated code: the 3xTF32 kernel (src/opt/gemm.c) ==== */

/* One GEMM written as a launch of the 3xTF32 tensor-core kernel
 * (src/opt/kernels/gemm_3xtf32.cuh: fp32 accuracy from three TF32
 * products). C[z] = epilogue(op(A[z]) @ op(B[z])) for z < batch, each
 * matrix row-major and contiguous. The epilogue is the body's own
 * (alpha, then triu/tril), or a generated functor (epi != NULL: the bias
 * and pointwise chain of src/opt/codegen_gemm.c), whose type the caller
 * defines before the kernel and whose members the kernel takes as extra
 * parameters. */
typedef struct krl_gemm_spec {
	const char *kernel;      /* name of the kernel to define (unique) */
	const char *a, *b, *c;   /* plan buffer names */
	int ta, tb;              /* A stored [K, M] / B stored [N, K] */
	const char *m, *n, *k;   /* plan expressions */
	const char *batch;       /* plan expression; NULL: 1 */
	int b_shared;            /* B has no batch dims (one B for every z) */
	const char *alpha;       /* plan expression; NULL: 1 (no epi) */
	int tri;                 /* 0: none, 1: triu, 2: tril of each C (no
	                            epi) */
	const char *diag;        /* triu/tril diagonal; NULL: 0 */
	const char *epi;         /* the functor type; NULL: the body's own */
	const char *epi_params;  /* its members as the kernel's parameters,
	                            each ", type name" ("" when none) */
	const char *epi_init;    /* its initialiser from those ("{p_b, a0}") */
	const char *epi_args;    /* their plan arguments, each ", text" */
	const char *splits;      /* split-K (no batch): plan expression of the
	                            slices of K, each a block's partial C into
	                            buffer `part` [splits, M, N], added up in
	                            order by a second kernel that applies the
	                            epilogue; NULL: one pass */
	const char *part;
	const char *rng;         /* a masked pair (codegen_gemm.c): the plan
	                            buffer of each 128-row block's column
	                            range, NULL: none */
	int rng_mode;            /* with rng: 1 the product whose chain masks
	                            (tiles outside skipped), 2 the product
	                            that reads it as A (k-tiles outside
	                            skipped); gemm_entry_rng's MODE */
} krl_gemm_spec;

/* Whether library node i of g is a GEMM the 3xTF32 kernel may replace
 * (its op declares KRL_OPCAP_EPILOGUE) and in which form: 1 for two
 * operands (gemm: a, b with the attributes ta, tb, alpha), 2 for linear's
 * three (x [..., K], w [N, K], b [N]: x @ w^T + b, the bias added in the
 * epilogue; the rule about linear's algebra, so it names the op); 0
 * otherwise. */
int krl_gemm_form(const krl_graph *g, int i);

/* Split-K's thresholds: a GEMM of fewer 128 x 128 tiles than half an
 * H100/H200's 132 SMs and a K of at least KRL_GEMM_SPLIT_K (at the set
 * generated for) is split into slices of at least KRL_GEMM_SPLIT_MIN_K,
 * as many as fill two blocks an SM (krl_gemm_spec.splits). Level 1's 6
 * (M = N = 256, K = 524288: 4 tiles): 1.07 ms split 66 ways, against
 * cuBLAS's 1.35 and PyTorch's 1.30 (H200). */
#define KRL_GEMM_SPLIT_TILES 66
#define KRL_GEMM_SPLIT_K 16384
#define KRL_GEMM_SPLIT_MIN_K 4096
int krl_gemm_split_pays(int64_t m, int64_t n, int64_t k);
/* Whether GEMM node i of g (krl_gemm_form) is one the 3xTF32 kernel is
 * expected to run faster than cuBLASLt's fp32: enough 128 x 128 tiles to
 * fill the GPU (a wave of the 132 SMs within 10%), M and N at least 64
 * (no thin operand: a matrix-vector product is memory-bound, cuBLAS's
 * GEMV does it better) and at least half of each tile used, or split
 * along K; never in a task of precision
 * tf32 (cuBLASLt's TF32 does a third of the kernel's products); at the
 * set g was lowered for. */
int krl_gemm_pays(const krl_graph *g, int i);

/* The kernel body for layout (ta, tb), in its own namespace gemm_t<ta><tb>:
 * write it once per layout a file uses, before the kernels of that
 * layout. Caller frees. */
char *krl_gemm_body(int ta, int tb);
/* The __global__ wrapper of s (device code) and its plan `launch` line.
 * Callers free both. */
krl_err krl_gemm_kernel(const krl_gemm_spec *s, char **device, char **launch,
                        krl_diag *d);


/* ==== The graph: representation and builders (src/opt/graph.c) ====
 *
 * How a krl_graph says things (lower.c writes it so, every reader relies
 * on it):
 * - Dims: dim[k].text is a plan expression over the task's shape keys and
 *   consts ("batch_size", "n - 1", "features / num_groups"); dim[k].val is
 *   its value at the shape set the graph was lowered for. A kept reduced
 *   dim is the text "1". Texts parse with the plan language
 *   (krl_opt_eval_text), so a generated plan may write them as they are.
 * - Scalars (CONST nodes, full reductions, losses) have ndim 0. A CONST's
 *   cexpr is a plan expression that may be integer-valued ("1", "n",
 *   "eps", "1.0 / (batch_size * n)"): use its value as a float.
 * - PW broadcasting is numpy's: operands right-aligned, a dim of value 1
 *   stretches to the other operands'. The result takes the texts of the
 *   operand dims that are not 1. Every PW result is f32; operands may be
 *   f32, bool (0/1: mul_mask's mask) or i64.
 * - REDUCE over axes [axis, axis + naxes) of in[0]; keep = 1 leaves them
 *   as "1" dims (keepdim), keep = 0 drops them. ARGMAX/ARGMIN are i64,
 *   over one axis. A mean is a SUM and a PW MUL by the CONST
 *   "1.0 / (R)" (R the reduced size text).
 * - GATHER: in[0] indexed along .axis by in[1] (i64, in[0]'s dims without
 *   the axis); an index outside [0, size) gives NaN in the interpreter
 *   (generated code must not read out of bounds there).
 * - SCAN .exclusive: y[0] = 0 (sum) or 1 (prod), y[j] = op of x[0..j-1];
 *   .reverse runs from the end (y[j] = op of x[j..n-1], exclusive
 *   x[j+1..n-1]).
 * - LIB: a library op (registry name .op, attrs copied from the reference
 *   call, .nout outputs). With nout == 1 the node is its output; with
 *   nout > 1 the node's dims are output 0's and every output is read
 *   through a PROJ node (.index) carrying that output's dims and dtype.
 * - VIEW: in[0]'s elements in row-major order with new dims (equal
 *   count): element i of the view is element i of in[0].
 * - POOL over the last .naxes dims of in[0] (1 to 3), the others kept:
 *   .op names the library op it stands for ("max_pool2d") and .attrs are
 *   that call's (kernel_size, stride, padding, dilation, ceil_mode,
 *   count_include_pad, divisor_override, each absent meaning the op's
 *   default); the pooled dims are the call's output dims. MAX is f32,
 *   ARGMAX (max pooling's index output: the flat index within the input
 *   plane) i64, AVG f32.
 * - Task buffers: one BUF node per task decl (inputs, params and outputs
 *   alike, in decl order, first); g->out[i] is the node whose value task
 *   output g->outdecl[i] must hold (it may be a BUF node of an input).
 */

/* String helpers: malloc'd results, NULL when out of memory. */
char *krl_opt_strdup(const char *z);
char *krl_opt_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* 1 when z is one name or number (needs no parentheses). */
int krl_opt_text_atomic(const char *z);
/* "a op b" with non-atomic operands parenthesised; a "1" factor is
 * dropped for '*' (and "/ 1"). */
char *krl_opt_text_binary(const char *a, char op, const char *b);
/* The shortest text that reads back as v, with a '.' or an exponent so
 * that the plan language sees a float ("2.0", "1e-05", "(-0.5)"); NULL
 * when v is not finite or out of memory. */
char *krl_opt_num_text(double v);
/* An expression tree printed back as plan-language text (parentheses only
 * where needed). */
char *krl_opt_expr_text(const krl_expr *e);
/* A deep copy (free with krl_expr_free), NULL when out of memory. */
krl_expr *krl_opt_expr_copy(const krl_expr *e);
/* 1 when e uses no name: its value is the same in every shape set. */
int krl_opt_expr_literal(const krl_expr *e);
/* Copies n attributes (keys and expression trees). KRL_ENOMEM. */
krl_err krl_opt_attrs_copy(const krl_attr *src, int n, krl_attr **out);

/* What the op of library node i declares it lets the optimizer do
 * (KRL_OPCAP_*, include/krl/ops.h), or 0 when i is no library node (or
 * names no registered op). src/opt asks these, never an op's name. */
unsigned krl_opt_lib_caps(const krl_graph *g, int i);

/* Whether library node i takes the `algo` attribute (which of the
 * library's usable configurations runs: KRL_OPCAP_ALGO). The code
 * generator writes the schedule's lib_algo on these calls. */
int krl_opt_lib_takes_algo(const krl_graph *g, int i);

/* Whether library node i takes the `layout` attribute (the memory layout
 * the library runs on: KRL_OPCAP_LAYOUT). The code generator writes
 * `layout=nhwc` on these calls when the schedule's lib_layout says so. */
int krl_opt_lib_takes_layout(const krl_graph *g, int i);

/* Whether library node i is a transposed convolution that may run as a
 * forward one over a flipped, transposed weight (KRL_OPCAP_TCONV). */
int krl_opt_lib_tconv(const krl_graph *g, int i);

/* The names of one shape set of a task (lang's builder, src/lang/scope.h:
 * its keys, consts and sm_count, 132), and the task decls' shapes for
 * numel()/dim(). Free with krl_opt_scope_free (also after a failed
 * init). */
typedef struct krl_opt_scope {
	krl_scope scope;
	krl_setscope names;
	krl_bufshape *bufs;
} krl_opt_scope;
krl_err krl_opt_scope_init(krl_opt_scope *s, const krl_task *t,
                           const char *set, krl_diag *d);
void krl_opt_scope_free(krl_opt_scope *s);
/* "(a) * (b) ..." of the texts of node x's dims [from, to) into buf
 * (dims whose text is the literal 1 left out; "1" when none is left), and
 * the product of their values: an element count as plan-expression text. */
int64_t krl_gnode_dims_text(const krl_gnode *x, int from, int to, char *buf,
                            size_t cap);
/* Parses text as one plan expression into *out (free with
 * krl_expr_free). */
krl_err krl_opt_parse_text(const char *text, krl_expr **out, krl_diag *d);
/* Parses text as one plan expression and evaluates it in sc. */
krl_err krl_opt_eval_text(const char *text, const krl_scope *sc,
                          krl_value *out, krl_diag *d);

/* Frees what a node owns (dim texts, cexpr, attrs) and zeroes it. */
void krl_gnode_clear(krl_gnode *n);
/* A deep copy of src into dst (KRL_ENOMEM leaves dst zeroed). */
krl_err krl_gnode_copy(krl_gnode *dst, const krl_gnode *src);
int64_t krl_gnode_numel(const krl_gnode *n);
/* A literal attribute of a LIB node: its value, or dflt when absent; 0
 * when present but not a literal. */
int krl_gnode_lib_literal(const krl_gnode *n, const char *key, double dflt,
                          double *v);

/* An empty graph of task t (borrowed); NULL when out of memory. */
krl_graph *krl_graph_new(const krl_task *t);
/* A deep copy of g (the task still borrowed); NULL when out of memory.
 * Free with krl_graph_free. */
krl_graph *krl_graph_clone(const krl_graph *g);
/* Library node n's `dim` attribute made non-negative when it is an integer
 * literal in range (the same dim in every shape set); 0 when absent, -1
 * otherwise (cat, narrow). */
int krl_gnode_dim_attr(const krl_gnode *n);
/* How many node inputs and graph outputs read node i. */
int krl_graph_users(const krl_graph *g, int i);
/* How many node inputs read node i when every node reading it is one
 * that generated kernels evaluate their inputs inline in (pointwise,
 * reduce and pool nodes) or, with cat, a `cat` library call (cgcat.c
 * writes such inputs in place) or a convolution reading it as x (which
 * lib.layout=nhwc_xy may give it channels-last); 0 when one is not (or
 * none reads it). */
int krl_graph_fused_readers(const krl_graph *g, int i, int cat);
/* How many node inputs read node i when every node reading it is a
 * pointwise or reduce node (what generated kernels read through cg_ev: a
 * cat or narrow read in place, cgcat.c); 0 when one is not (or none reads
 * it). */
int krl_graph_pw_readers(const krl_graph *g, int i);
int krl_graph_is_output(const krl_graph *g, int i);
/* Dim or attribute text of g that has the same value in every shape set
 * the judge draws: a constant expression, or a shape key g's task
 * declares `fixed` (hidden sets keep tiny's value) whose value is the
 * same in every named set too (a candidate written at kb0 with a pool of
 * 2 is checked on hidden sets with tiny's 4). */
int krl_graph_text_fixed(const krl_graph *g, const char *text);
/* Copies dim text a to out[cap] without spaces and without parentheses
 * that enclose all of it. */
void krl_dim_text_norm(const char *a, char *out, size_t cap);
/* Whether dim texts a and b of g say the same in every shape set by
 * their text: equal once spaces and outer parentheses are dropped and a
 * const's name is replaced by its expression (`seq_len` is `max_seqlen`
 * where the task says const seq_len = max_seqlen). */
int krl_graph_text_same(const krl_graph *g, const char *a, const char *b);
/* Text z as krl_graph_text_same compares it (blanks and whole outer
 * parentheses gone, a const's name replaced by its expression) in
 * out[cap]; 0 when out of memory. */
int krl_graph_text_norm(const krl_graph *g, const char *z, char *out,
                        size_t cap);
/* Removes the nodes no output depends on (BUF nodes stay, and every
 * PROJ of a library call that stays), keeping the order and renumbering
 * inputs and outputs; *removed (may be NULL) counts them. KRL_ENOMEM
 * leaves g unchanged. */
krl_err krl_graph_compact(krl_graph *g, int *removed);
/* One line per node, "%3 = pw mul (%1, %2) f32 [n=70, m=33]"; caller
 * frees; NULL when out of memory. */
char *krl_graph_format(const krl_graph *g);

/* Node builders: each appends one node, works out its dtype and dims from
 * its inputs and sets *out to its index. KRL_EINVAL (shapes that do not
 * fit, with d saying how) or KRL_ENOMEM; the graph is unchanged then. */
krl_err krl_graph_const(krl_graph *g, const char *text, double val,
                        int *out, krl_diag *d);
/* A CONST whose text is krl_opt_num_text(val). */
krl_err krl_graph_const_num(krl_graph *g, double val, int *out, krl_diag *d);
/* in[] holds krl_pw_info(op)->nin node indices. */
krl_err krl_graph_pw(krl_graph *g, krl_pwop op, const int *in, int *out,
                     krl_diag *d);
krl_err krl_graph_reduce(krl_graph *g, krl_redop op, int x, int axis,
                         int naxes, int keep, int *out, krl_diag *d);
krl_err krl_graph_scan(krl_graph *g, krl_scanop op, int x, int axis,
                       int reverse, int exclusive, int *out, krl_diag *d);
krl_err krl_graph_flip(krl_graph *g, int x, int axis, int *out, krl_diag *d);
krl_err krl_graph_gather(krl_graph *g, int x, int idx, int axis, int *out,
                         krl_diag *d);
/* A pool (op) of x over its last `rank` dims, the op's registry name
 * (static) and attributes (copied) as the library call has them; out[]
 * holds the rank pooled sizes (copied). */
krl_err krl_graph_pool(krl_graph *g, krl_poolop op, const char *name,
                       int x, int rank, const krl_attr *attrs, int nattrs,
                       const krl_gdim *out, int *res, krl_diag *d);
/* dims are copied. */
krl_err krl_graph_view(krl_graph *g, int x, int ndim, const krl_gdim *dims,
                       int *out, krl_diag *d);
/* The node under x's VIEWs (x when it is none). */
int krl_graph_unview(const krl_graph *g, int x);
/* Node x seen with dims[0..ndim): the node under x's VIEWs when it has
 * those dims (the same texts), else a VIEW of it (a view of a view is a
 * view of the first). */
krl_err krl_graph_view_as(krl_graph *g, int x, int ndim, const krl_gdim *dims,
                          int *out, krl_diag *d);
/* One attribute of a library node a rule builds: its key, its value as
 * plan-expression text (what the generated plan writes) and that text's
 * value in the graph's shape set. */
typedef struct krl_gattr {
	const char *key;
	const char *text;
	double val;
} krl_gattr;
/* A library call of registry op `op` over in[0..nin) with one output of
 * dims[0..ndim) and the attributes attrs[0..nattrs) (all copied); its
 * dtype is in[0]'s. KRL_EINVAL for an unknown op or too many of anything. */
krl_err krl_graph_lib(krl_graph *g, const char *op, const int *in, int nin,
                      int ndim, const krl_gdim *dims, const krl_gattr *attrs,
                      int nattrs, int *out, krl_diag *d);

#endif
