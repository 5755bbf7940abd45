/*
 * kernelrl: the builtin policy's program optimizer (docs/optimizer.md).
 *
 * A task's reference plan is lowered to an op graph (krl_graph) whose nodes
 * are pointwise operations, reductions, scans, gathers, window pooling and
 * library calls kept as they are (GEMM, convolution). Rewrite rules change the
 * graph without changing its meaning; the code generator groups nodes into
 * fused kernels and writes a readable candidate file (CUDA C device code
 * and a plan) for a schedule. krl_opt wraps the three for a policy: it
 * names the decisions one task offers (which rewrites, which schedule
 * knobs, which library algorithm) and turns one choice of options into a
 * candidate.
 *
 * Shapes stay symbolic: every dimension is an expression over the task's
 * shape keys and consts (its text, as a plan may write it), so a generated
 * candidate serves every shape set, hidden ones included. The values for
 * the shape set the optimizer was created for are kept beside the text
 * (policy features, schedule limits).
 */
#ifndef KRL_OPT_H
#define KRL_OPT_H

#include <stddef.h>
#include <stdint.h>

#include "krl/error.h"
#include "krl/lang.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== The op graph ==== */

typedef enum krl_gkind {
	KRL_GN_BUF,      /* a task input or param: .buf indexes task->decls */
	KRL_GN_CONST,    /* a scalar: .cexpr (text), .cval (its value) */
	KRL_GN_PW,       /* pointwise .pw over .in (numpy broadcasting) */
	KRL_GN_REDUCE,   /* .red over axes [axis, axis + naxes) of in[0] */
	KRL_GN_SCAN,     /* .scan along .axis of in[0] (.reverse, .exclusive) */
	KRL_GN_GATHER,   /* in[0] indexed along .axis by in[1] (i64), that
	                    axis removed: nll_loss's pick */
	KRL_GN_FLIP,     /* in[0] reversed along .axis */
	KRL_GN_LIB,      /* a library op call kept as is: .op, .attrs */
	KRL_GN_PROJ,     /* output .index of the KRL_GN_LIB node in[0] */
	KRL_GN_VIEW,     /* in[0]'s elements, row-major, seen with this
	                    node's dims (same count): a reshape, no copy */
	KRL_GN_POOL      /* .pool over windows of the last .naxes dims of
	                    in[0] (nn.MaxPoolNd / AvgPoolNd): the geometry is
	                    in .attrs, as the library op takes it */
} krl_gkind;

typedef enum krl_pwop {
	/* unary */
	KRL_PW_NEG, KRL_PW_ABS, KRL_PW_EXP, KRL_PW_LOG, KRL_PW_LOG1P,
	KRL_PW_SQRT, KRL_PW_RSQRT, KRL_PW_RECIP, KRL_PW_SQUARE, KRL_PW_TANH,
	KRL_PW_ERF, KRL_PW_SIGMOID, KRL_PW_RELU, KRL_PW_SIGN,
	/* binary */
	KRL_PW_ADD, KRL_PW_SUB, KRL_PW_MUL, KRL_PW_DIV, KRL_PW_MAX, KRL_PW_MIN,
	KRL_PW_POW, KRL_PW_XLOGY, KRL_PW_GT, KRL_PW_GE, KRL_PW_LT, KRL_PW_LE,
	KRL_PW_EQ,       /* comparisons give 1 or 0 */
	/* ternary */
	KRL_PW_WHERE,    /* in[0] != 0 ? in[1] : in[2] */
	KRL_PW_COUNT
} krl_pwop;

typedef enum krl_redop {
	KRL_RED_SUM, KRL_RED_PROD, KRL_RED_MAX, KRL_RED_MIN, KRL_RED_ARGMAX,
	KRL_RED_ARGMIN   /* first index of the extreme, i64 */
} krl_redop;

typedef enum krl_scanop { KRL_SCAN_SUM, KRL_SCAN_PROD } krl_scanop;

/* Window pooling: max_pool's two outputs are two nodes (the values, f32,
 * and the flat in-plane index of each maximum, i64), so an index nobody
 * reads is never computed. */
typedef enum krl_poolop {
	KRL_POOL_MAX, KRL_POOL_ARGMAX, KRL_POOL_AVG
} krl_poolop;

/* A symbolic dimension: plan-expression text and its value in the shape
 * set the graph was lowered for. */
typedef struct krl_gdim {
	char *text;              /* e.g. "batch_size", "(N) * (M)" */
	int64_t val;
} krl_gdim;

typedef struct krl_gnode {
	krl_gkind kind;
	krl_dtype dtype;
	int ndim;
	krl_gdim dim[KRL_MAX_DIM];
	int in[KRL_MAX_CALL_IN]; /* node indices, all smaller than this one's
	                            (KRL_GN_LIB: a variadic op's many) */
	int nin;
	int buf;                 /* KRL_GN_BUF */
	char *cexpr;             /* KRL_GN_CONST */
	double cval;
	krl_pwop pw;             /* KRL_GN_PW */
	krl_redop red;           /* KRL_GN_REDUCE */
	krl_scanop scan;         /* KRL_GN_SCAN */
	krl_poolop pool;         /* KRL_GN_POOL */
	int axis, naxes, keep;   /* REDUCE, SCAN, GATHER, FLIP; POOL: the
	                            pooled dims are [axis, axis + naxes), the
	                            last ones */
	int reverse, exclusive;  /* SCAN */
	const char *op;          /* KRL_GN_LIB, KRL_GN_POOL: registry name
	                            (static string) */
	krl_attr *attrs;         /* KRL_GN_LIB, KRL_GN_POOL: copies of the
	                            reference's */
	int nattrs;
	double aval[KRL_MAX_ATTR]; /* KRL_GN_LIB, KRL_GN_POOL: each attribute's
	                            value in the set lowered (NAN: a word, or
	                            no value) */
	int nout;                /* KRL_GN_LIB: outputs (PROJ nodes read them) */
	int index;               /* KRL_GN_PROJ */
} krl_gnode;

typedef struct krl_graph {
	const krl_task *task;    /* borrowed */
	krl_gnode *n;            /* in topological order */
	int nn, cap;
	int out[8];              /* node of each task output, in decl order */
	int outdecl[8];          /* the task decl index of each output */
	int nout;
} krl_graph;

/*
 * Lowers t's reference plan for shape set `set` (values for features and
 * limits; the graph itself is symbolic). Library ops with a pointwise,
 * reduction or scan meaning are decomposed (softmax into max, sub, exp,
 * sum, div; layernorm into means and a normalisation; losses into their
 * formulas); pooling becomes KRL_GN_POOL nodes; every op declared
 * KRL_OPCAP_LIBRARY (GEMM, convolution, ...) stays one KRL_GN_LIB node. A
 * reference that uses an op that is neither lowered nor a library call is
 * KRL_EUNSUPPORTED with the op named.
 */
krl_err krl_graph_lower(const krl_task *t, const char *set, krl_graph **out,
                        krl_diag *d);
/* 1 when krl_graph_lower has a lowering of its own for op z (the ops
 * declared KRL_OPCAP_LOWER), 0 otherwise (a library op kept whole, or an
 * op the optimizer does not know). */
int krl_graph_lowers(const char *z);
void krl_graph_free(krl_graph *g);

/* Evaluates g on the CPU in float64: bufs[i] holds task decl i (inputs
 * and params filled, outputs written), each as the golden ops lay them out
 * (row-major doubles, integers as doubles), at shape set `set`. */
krl_err krl_graph_interp(const krl_graph *g, const char *set,
                         double *const *bufs, krl_diag *d);

/* ==== Rewrite rules ==== */

typedef enum krl_rule {
	KRL_RULE_FOLD,       /* constant folding, x*1, x+0, scalar reassociation */
	KRL_RULE_DIAG_BCAST, /* diag(v) @ B as v[:, None] * B (and B @ diag) */
	KRL_RULE_FLIP,       /* flip(flip(x)) = x; flip, scan, flip = reverse scan */
	KRL_RULE_REDUCE_LINEAR, /* a sum over a GEMM's output as a GEMV */
	KRL_RULE_CANCEL,     /* idempotent and cancelling ops (relu(relu(x)), ...) */
	KRL_RULE_CONV_MEAN,  /* a transposed convolution's spatial sum as a GEMM
	                        over per-tap sums of its input */
	KRL_RULE_CONV_BIAS,  /* a convolution's bias, read by pointwise ops, added
	                        as a broadcast they fuse with */
	KRL_RULE_RECURRENCE, /* an unrolled Elman recurrence (cat, linear, tanh
	                        per step) as one rnn_tanh call, and the
	                        linears over its states, stacked, as one */
	KRL_RULE_POOL_CONV,  /* an average pool of a 1x1 convolution as the
	                        convolution of the pooled input */
	KRL_RULE_NARROW_GEMM, /* a narrow of a GEMM's output as the GEMM of
	                        the narrowed operand */
	KRL_RULE_CSE,        /* a library call identical to an earlier one is
	                        that one */
	KRL_RULE_ATTENTION,  /* GEMM, (mask,) softmax or relu, GEMM as one
	                        fused sdpa call */
	KRL_RULE_CAT_REDUCE, /* a reduction of a cat, along a dim it keeps, as
	                        the cat of its parts' reductions (an earlier
	                        identical one reused) */
	KRL_RULE_CONV_MERGE, /* convolutions of one x with the same attributes
	                        as one over their joined weights, each a
	                        narrow of its channels */
	KRL_RULE_SMALL_K,    /* a batched GEMM over at most 4 products an
	                        output as a sum over K: a reduction generated
	                        kernels compute (off by default) */
	KRL_RULE_TANH_SOFTPLUS, /* tanh(softplus x) (mish's) as e^x (e^x + 2)
	                        over itself plus 2 */
	KRL_RULE_COUNT
} krl_rule;

const char *krl_rule_name(krl_rule r);
/* Whether rule r matches somewhere in g (a policy offers only those). */
int krl_rule_matches(const krl_graph *g, krl_rule r);
/* Applies rule r everywhere it matches; *applied counts the sites. */
krl_err krl_rule_apply(krl_graph *g, krl_rule r, int *applied, krl_diag *d);

/* ==== Decisions a policy makes for one task ==== */

/* at most 32: the search keeps the decisions a proposal drew as bits of a
 * uint32_t (src/rl/search.c) */
#define KRL_MAX_DECISIONS 32
#define KRL_MAX_OPTIONS 12

/* One decision: a name stable across tasks ("rule.diag_bcast",
 * "map.block", "row.strategy", "gemm.algo") and its options ("off", "on",
 * "128", ...). Option 0 is the default. */
typedef struct krl_decision {
	char name[32];
	int nopt;
	char opt[KRL_MAX_OPTIONS][16];
} krl_decision;

typedef struct krl_space {
	int ndec;
	krl_decision dec[KRL_MAX_DECISIONS];
} krl_space;

/* One option index per decision of a space. */
typedef struct krl_choice {
	int opt[KRL_MAX_DECISIONS];
} krl_choice;

#define KRL_MAX_FEATURES 24

typedef struct krl_opt krl_opt;

/* Lowers t for shape set `set` and works out its decisions. */
krl_err krl_opt_create(const krl_task *t, const char *set, krl_opt **out,
                       krl_diag *d);
void krl_opt_free(krl_opt *o);
const krl_space *krl_opt_space(const krl_opt *o);

/* Task features for a policy (names stable across tasks: "bias",
 * "log2_bytes", "row_len", "has_gemm", ...); returns how many. */
int krl_opt_features(const krl_opt *o, const char **names, double *vals,
                     int cap);

/* Writes the candidate of choice c: *text (the file, caller frees) and
 * *what (one line saying what it does, caller frees). The file's first
 * comment holds the line krl_choice_format writes, so a stored candidate
 * says which choice made it. */
krl_err krl_opt_generate(const krl_opt *o, const krl_choice *c, char **text,
                         char **what, krl_diag *d);

/* Writes "krl-choice: name=option name=option ..." (every decision of s)
 * into buf; returns the length snprintf would give. */
int krl_choice_format(const krl_space *s, const krl_choice *c, char *buf,
                      size_t cap);
/* Finds a "krl-choice:" line in text and reads it back against s: names
 * s does not have are ignored, decisions the line lacks get option 0.
 * KRL_ENOTFOUND when text has no such line. */
krl_err krl_choice_parse(const krl_space *s, const char *text, krl_choice *c,
                         krl_diag *d);

#ifdef __cplusplus
}
#endif
#endif
