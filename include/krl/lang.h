/*
 * kernelrl: the task language and the candidate language (docs/language.md).
 *
 * Both files share one plan language: buffers, kernel launches and calls of
 * library ops, with integer/float expressions over shape names, constants,
 * buffer shapes and the device's SM count. Parsing gives an AST (krl_task,
 * krl_candidate); krl_program_build() checks a plan against one shape set and
 * resolves it into a krl_program that the runtime executes.
 *
 * Ownership: every *_parse function returns a heap object that the caller
 * frees with the matching *_free (freeing NULL is a no-op). Strings inside are
 * owned by the object.
 */
#ifndef KRL_LANG_H
#define KRL_LANG_H

#include <stddef.h>
#include <stdint.h>

#include "krl/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KRL_MAX_DIM 8
#define KRL_MAX_ATTR 16
/* The most inputs and outputs of one op call: a variadic op (krl_op's nin
 * < 0, e.g. cat) takes up to KRL_MAX_CALL_IN (DenseNet201's last dense
 * block cats 49 tensors). Every array holding a call's operands has these
 * sizes: the plan, the program's steps, the executors, the export shim. */
#define KRL_MAX_CALL_IN 64
#define KRL_MAX_CALL_OUT 4
/* No buffer is larger (64 TiB, past any GPU's memory): plan validation
 * refuses bigger ones, and allocators' rounding cannot wrap. */
#define KRL_MAX_BUFFER_BYTES ((size_t)1 << 46)

/* ==== Data types ==== */

typedef enum krl_dtype {
	KRL_F32, KRL_F16, KRL_BF16, KRL_I32, KRL_I64, KRL_BOOL, KRL_F64,
	KRL_DTYPE_COUNT
} krl_dtype;

size_t krl_dtype_size(krl_dtype t);
const char *krl_dtype_name(krl_dtype t);
/* Returns 0 and sets *out when z names a dtype ("f32", ...), else -1. */
int krl_dtype_parse(const char *z, krl_dtype *out);

/* ==== Expressions ==== */

typedef enum krl_expr_kind {
	KRL_EX_INT, KRL_EX_FLOAT, KRL_EX_NAME, KRL_EX_NEG, KRL_EX_BINARY,
	KRL_EX_CALL
} krl_expr_kind;

typedef struct krl_expr {
	krl_expr_kind kind;
	krl_pos pos;
	int64_t ival;           /* KRL_EX_INT */
	double fval;            /* KRL_EX_FLOAT */
	char *name;             /* KRL_EX_NAME, KRL_EX_CALL (function name) */
	char op;                /* KRL_EX_BINARY: + - * / % */
	struct krl_expr *lhs;   /* KRL_EX_NEG, KRL_EX_BINARY */
	struct krl_expr *rhs;   /* KRL_EX_BINARY */
	struct krl_expr **args; /* KRL_EX_CALL */
	int nargs;
} krl_expr;

typedef struct krl_value {
	int is_float;
	int64_t i;
	double f;
} krl_value;

/* A buffer's resolved shape, visible to numel(b), dim(b, i), rank(b). */
typedef struct krl_bufshape {
	const char *name;
	krl_dtype dtype;
	int ndim;
	int64_t dim[KRL_MAX_DIM];
} krl_bufshape;

/* What names mean during evaluation. Lookup is by exact name, linear. */
typedef struct krl_scope {
	const char *const *names;
	const krl_value *values;
	int n;
	const krl_bufshape *bufs;
	int nbufs;
} krl_scope;

/*
 * Evaluates e in scope. Integer arithmetic is exact int64 (overflow, division
 * by zero and a negative divisor are errors); any float operand makes the
 * result float. Functions: numel(b), dim(b, i), rank(b), cdiv(a, b),
 * min(a, b), max(a, b). Errors: KRL_EINVAL (arithmetic), KRL_ENOTFOUND (an
 * unknown name, function or buffer), with d set at the node.
 */
krl_err krl_expr_eval(const krl_expr *e, const krl_scope *scope,
                      krl_value *out, krl_diag *d);
void krl_expr_free(krl_expr *e);

/* ==== Declarations ==== */

typedef enum krl_role {
	KRL_ROLE_INPUT,   /* task: drawn fresh for every call, read-only */
	KRL_ROLE_PARAM,   /* task: drawn per correctness seed, read-only */
	KRL_ROLE_OUTPUT,  /* task: written by the plan, poisoned before a call */
	KRL_ROLE_SCRATCH, /* plan: `buffer`, uninitialised (poisoned) each call */
	KRL_ROLE_DERIVED, /* candidate: `derived`, written only by `init` */
	KRL_ROLE_VIEW     /* plan: `view`, another buffer's memory reshaped */
} krl_role;

typedef enum krl_dist_kind {
	KRL_DIST_NONE, KRL_DIST_NORMAL, KRL_DIST_UNIFORM, KRL_DIST_RANDINT,
	KRL_DIST_BERNOULLI, KRL_DIST_CONST,
	/* deterministic patterns (params only: constant buffers) */
	KRL_DIST_TRIL, KRL_DIST_TRIU, KRL_DIST_ARANGE,
	/* Swin Transformer V2's registered buffers, as its __init__ builds
	 * them (docs/language.md "Constant buffers") */
	KRL_DIST_SWIN_COORDS, KRL_DIST_SWIN_INDEX, KRL_DIST_SWIN_MASK,
	KRL_DIST_LAST = KRL_DIST_SWIN_MASK
} krl_dist_kind;

/* normal(mean a, std b); uniform [a, b); randint [a, b); bernoulli(p = a);
 * const(a). The patterns ignore the seed (docs/language.md "Constant
 * buffers"): tril(a, b) is a where col - row <= b in each matrix of the
 * last two dims, else 0 (torch.tril(full(a)), b the diagonal); triu(a, b)
 * is a where col - row >= b; arange(a, b) is a + b * i at flat index i.
 * rows and cols are the buffer's last two dims, set by the program
 * builder for tril and triu (0 otherwise).
 * The Swin patterns take integer arguments, the first two in a and b, the
 * third and fourth in rows and cols: swin_coords(wh, ww, pwh, pww) is
 * relative_coords_table [1, 2wh-1, 2ww-1, 2] (log-spaced; pwh, pww the
 * pretrained window, 0 for none); swin_index(wh, ww) is
 * relative_position_index [wh*ww, wh*ww]; swin_mask(h, w, ws, shift) is
 * the shifted-window attn_mask [(h/ws)*(w/ws), ws*ws, ws*ws] of 0 and
 * -100. Contents by flat index, in those layouts. */
typedef struct krl_dist {
	krl_dist_kind kind;
	double a, b;
	int64_t rows, cols;
} krl_dist;

/* Whether kind is a deterministic pattern (a constant buffer's). */
static inline int krl_dist_is_pattern(krl_dist_kind kind)
{
	return kind >= KRL_DIST_TRIL && kind <= KRL_DIST_LAST;
}

typedef struct krl_decl {
	char *name;
	krl_role role;
	krl_dtype dtype;
	int ndim;
	krl_expr *dim[KRL_MAX_DIM];
	krl_dist dist;
	krl_pos pos;
	char *view_of;           /* KRL_ROLE_VIEW: the buffer it views */
	krl_expr *view_off;      /* KRL_ROLE_VIEW: element offset, or NULL */
} krl_decl;

/* ==== Stress draws ==== */

/* The judge's harder input distributions (docs/judge.md "Stress draws"):
 * every input value times a power of two (scale), plus a large multiple
 * of its distribution's spread (offset), or a few elements times a large
 * power of two (spikes). */
typedef enum krl_stress_kind {
	KRL_STRESS_SCALE, KRL_STRESS_OFFSET, KRL_STRESS_SPIKES, KRL_STRESS_KINDS
} krl_stress_kind;
#define KRL_STRESS_ALL ((1u << KRL_STRESS_KINDS) - 1)

/* "scale", "offset", "spikes". */
const char *krl_stress_name(krl_stress_kind k);
/* Returns 0 and sets *out when z names a kind, else -1. */
int krl_stress_parse(const char *z, krl_stress_kind *out);

/* A task's `stress NAME|* off|KIND... "why"` statement: narrows which
 * stress kinds the judge may apply to input NAME (NULL: every input). */
typedef struct krl_stress_decl {
	char *input;             /* an input's name, or NULL for `*` */
	unsigned kinds;          /* bitmask of 1 << krl_stress_kind; 0: off */
	char *why;               /* the reason, required */
	krl_pos pos;
} krl_stress_decl;

/* ==== Plans ==== */

typedef enum krl_stmt_kind { KRL_ST_LAUNCH, KRL_ST_CALL } krl_stmt_kind;

typedef struct krl_attr {
	char *key;
	krl_expr *value;
	krl_pos pos;
} krl_attr;

typedef struct krl_stmt {
	krl_stmt_kind kind;
	krl_pos pos;
	char *name;              /* kernel (launch) or op (call) */
	/* launch */
	krl_expr *grid[3];       /* NULL = 1 */
	krl_expr *block[3];      /* NULL = 1 */
	krl_expr *smem;          /* NULL = 0 */
	krl_expr *cluster[3];    /* all NULL = no cluster */
	int cooperative;
	krl_expr **args;
	int nargs;
	/* call */
	char **ins;
	int nin;
	char **outs;
	int nout;
	krl_attr *attrs;
	int nattrs;
} krl_stmt;

typedef struct krl_plan {
	krl_decl *bufs;          /* `buffer` (scratch) and `derived` declarations */
	int nbufs;
	krl_stmt *body;          /* run on every call */
	int nbody;
	krl_stmt *init;          /* run when params change (candidates only) */
	int ninit;
} krl_plan;

/* ==== Tasks ==== */

typedef struct krl_shapeset {
	char *name;
	char **keys;
	int64_t *vals;
	int n;
	krl_pos pos;
} krl_shapeset;

typedef struct krl_task {
	char *path;              /* file it was read from */
	char *text;              /* the text it was parsed from (NUL-ended) */
	size_t text_len;
	char *id;                /* e.g. "level1/19_relu" (set by the suite) */
	char *name;              /* `task` line */
	char *source;            /* `source` line, free text */
	krl_shapeset *sets;
	int nsets;
	char **const_names;
	krl_expr **const_vals;
	int nconsts;
	krl_decl *decls;         /* inputs, params, outputs in file order */
	int ndecls;
	double atol, rtol;
	krl_expr *bytes;         /* minimal bytes moved */
	krl_expr *flops;         /* minimal floating-point operations */
	char *degenerate;        /* reason the output is degenerate, or NULL */
	char *precision;         /* "tf32" when declared so; NULL means "fp32" */
	char **fixed;            /* shape keys hidden sets do not vary */
	int nfixed;
	krl_stress_decl *stress; /* `stress` statements, in file order */
	int nstress;
	krl_plan ref;            /* the reference plan (calls only) */
} krl_task;

/* Parses a task from text; path is used for messages and kept, and so is
 * a copy of the text (t->text, for the judge's runner). */
krl_err krl_task_parse(const char *path, const char *text, size_t len,
                       krl_task **out, krl_diag *d);
/* Reads and parses the file at path. */
krl_err krl_task_load(const char *path, krl_task **out, krl_diag *d);
void krl_task_free(krl_task *t);
/* Whether t's precision tier lets it use TF32 (`precision tf32`). */
int krl_task_is_tf32(const krl_task *t);
/* The shape set named z, or NULL. */
const krl_shapeset *krl_task_shapeset(const krl_task *t, const char *z);

/* ==== Candidates ==== */

typedef enum krl_ptype {
	KRL_P_PTR, KRL_P_I32, KRL_P_U32, KRL_P_I64, KRL_P_U64, KRL_P_F32,
	KRL_P_F64
} krl_ptype;

typedef struct krl_kparam {
	char *name;
	krl_ptype type;
	int is_const;            /* pointer to const: the kernel only reads it */
} krl_kparam;

typedef struct krl_kernel {
	char *name;
	krl_kparam *params;
	int nparams;
	krl_pos pos;
} krl_kernel;

typedef struct krl_candidate {
	char *path;
	char *source;            /* the whole file: NVRTC compiles it as is */
	size_t len;
	krl_kernel *kernels;     /* every extern "C" __global__ function */
	int nkernels;
	krl_plan plan;
} krl_candidate;

krl_err krl_candidate_parse(const char *path, const char *text, size_t len,
                            krl_candidate **out, krl_diag *d);
krl_err krl_candidate_load(const char *path, krl_candidate **out,
                           krl_diag *d);
void krl_candidate_free(krl_candidate *c);

/* ==== Resolved programs ==== */

struct krl_op; /* krl/ops.h */

typedef struct krl_buf {
	const char *name;        /* borrowed from the task/candidate */
	krl_role role;
	krl_dtype dtype;
	int ndim;
	int64_t dim[KRL_MAX_DIM];
	int64_t numel;
	size_t bytes;
	krl_dist dist;
	/* KRL_ROLE_VIEW only: the buffer whose memory it is (never itself a
	 * view: chains of views resolve to the first buffer) and the offset
	 * into it in elements. A view has no allocation of its own; who may
	 * write it is its root's role. */
	int alias;
	int64_t offset;
} krl_buf;

typedef struct krl_karg {
	int buf;                 /* buffer index for pointers, -1 for values */
	krl_ptype type;
	unsigned char bytes[8];  /* the value, little-endian, size by type */
	size_t size;
} krl_karg;

typedef struct krl_attrs {
	/* The call's input count, which a variadic op (krl_op's nin < 0, e.g.
	 * cat) reads; 0 when the caller leaves it unset, which such an op
	 * reads as its least count. Every caller of a variadic op's check,
	 * run or golden sets it (the program builder, the export shim, the
	 * optimizer's interpreter). */
	int nin;
	int n;
	const char *key[KRL_MAX_ATTR];
	double val[KRL_MAX_ATTR];
} krl_attrs;

typedef struct krl_step {
	krl_stmt_kind kind;
	const krl_stmt *src;
	/* launch */
	int kernel;              /* index into the candidate's kernels */
	unsigned grid[3], block[3], cluster[3];
	unsigned smem;
	int cooperative;
	krl_karg *args;
	int nargs;
	/* call */
	const struct krl_op *op;
	int in[KRL_MAX_CALL_IN];
	int nin;
	int out[KRL_MAX_CALL_OUT];
	int nout;
	krl_attrs attrs;
} krl_step;

typedef struct krl_program {
	krl_buf *bufs;           /* task decls in file order, then plan buffers */
	int nbufs;
	int ntask;               /* bufs[0..ntask) are the task's decls */
	int tf32;                /* the task's precision tier allows TF32
	                            (`precision tf32`); krl_exec tells the ops */
	krl_step *body;
	int nbody;
	krl_step *init;
	int ninit;
	double bytes, flops;     /* minimal, from the task (0 if undeclared) */
} krl_program;

/* Facts about the device that plans may use and validation checks. */
typedef struct krl_limits {
	int sm_count;            /* value of `sm_count` */
	unsigned max_threads;    /* per block, 1024 */
	unsigned max_smem;       /* opt-in dynamic shared memory per block */
	unsigned max_cluster;    /* blocks per cluster, 8 portable */
} krl_limits;

/* Limits of an H100/H200 (sm_90), used where no device is present. */
krl_limits krl_limits_sm90(void);

/*
 * Checks plan (the task's reference when cand is NULL, else the candidate's)
 * against shape set `set` and resolves it. Failures are KRL_EINVAL (an
 * invalid plan) or KRL_ENOTFOUND, with d pointing into the offending file.
 * The program borrows names from task and cand: free it before them.
 */
krl_err krl_program_build(const krl_task *task, const krl_candidate *cand,
                          const char *set, const krl_limits *lim,
                          krl_program **out, krl_diag *d);
/*
 * Draws a hidden shape set for the judge: the task's tiny set with every
 * key not declared `fixed` (and greater than 1) replaced by a value drawn
 * uniformly between half and twice tiny's (never below 2), redrawn (up to
 * 64 times) until
 * the task's reference plan resolves on it. *state is a splitmix64 state
 * the caller owns. out->keys are borrowed from the task; out->vals is
 * malloc'd (free it). KRL_ENOTFOUND when the task has no tiny set or no
 * draw resolves.
 */
krl_err krl_task_draw_hidden(const krl_task *t, uint64_t *state,
                             const krl_limits *lim, krl_shapeset *out,
                             krl_diag *d);

/* As krl_program_build, for a shape set that need not be one of the
 * task's (the judge's hidden sets): ss must define the task's keys. */
krl_err krl_program_build_shapes(const krl_task *task,
                                 const krl_candidate *cand,
                                 const krl_shapeset *ss, const krl_limits *lim,
                                 krl_program **out, krl_diag *d);
void krl_program_free(krl_program *p);

/* The buffer whose memory program buffer i is: i itself, or a view's
 * root (KRL_ROLE_VIEW). */
static inline int krl_buf_root(const krl_program *p, int i)
{
	return p->bufs[i].role == KRL_ROLE_VIEW ? p->bufs[i].alias : i;
}

/* Points every view's ptrs[i] into its root's memory: ptrs[alias] +
 * offset elements of elem bytes (elem 0: the dtype's size, for device
 * buffers; sizeof(double) for the golden executor's host buffers). Call
 * after the other buffers have their pointers; views have no allocation. */
void krl_program_bind_views(const krl_program *p, void **ptrs, size_t elem);

#ifdef __cplusplus
}
#endif
#endif
