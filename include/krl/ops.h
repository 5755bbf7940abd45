/*
 * kernelrl: the op library (docs/ops.md).
 *
 * Each op is the trusted, eager-style implementation of one library call of
 * the plan language (`call NAME(in, ...) -> out, ... key=value`): a shape
 * check, a GPU implementation (cuBLASLt or a kernel of our own, run on the
 * caller's stream) and a float64 CPU golden version used by the tests.
 */
#ifndef KRL_OPS_H
#define KRL_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "krl/error.h"
#include "krl/lang.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A tensor view: contiguous, row-major. On the GPU `data` is a device
 * pointer of `dtype`; for golden ops it is always a host `double *`. */
typedef struct krl_tensor {
	void *data;
	krl_dtype dtype;
	int ndim;
	int64_t dim[KRL_MAX_DIM];
} krl_tensor;

int64_t krl_tensor_numel(const krl_tensor *t);

/* Per-stream state the GPU ops share. Create with krl_opctx_create on the
 * current CUDA context; free with krl_opctx_free. */
typedef struct krl_opctx krl_opctx;

/* stream is a CUstream/cudaStream_t. Fails with KRL_ENODEVICE without GPU. */
krl_err krl_opctx_create(void *stream, krl_opctx **out, krl_diag *d);
void krl_opctx_free(krl_opctx *c);

/* Whether the ops of c may use TF32 where PyTorch's defaults do (cuDNN's
 * convolutions: cudnn.allow_tf32); 1 when created. A program of a task
 * of precision fp32 runs with 0 (krl_exec sets it from the program):
 * convolutions then take no tensor-core engine. */
void krl_opctx_set_tf32(krl_opctx *c, int allow);

/*
 * What the builtin optimizer (src/opt/) may do with an op: it reads these
 * declarations, never an op's name or a private ops header. Every op is
 * either KRL_OPCAP_LOWER or KRL_OPCAP_LIBRARY (tests/ops/test_registry.c checks it).
 */
enum {
	/* The optimizer's graph lowers it (src/opt/lower.c has its
	 * lowering): its work can move into generated kernels. */
	KRL_OPCAP_LOWER = 1u << 0,
	/* Kept whole: the optimizer's plans call the library op itself. */
	KRL_OPCAP_LIBRARY = 1u << 1,
	/* Takes `algo=` (which of the library's configurations runs). */
	KRL_OPCAP_ALGO = 1u << 2,
	/* Takes `layout=` (the operands' memory layout, e.g. nhwc). */
	KRL_OPCAP_LAYOUT = 1u << 3,
	/* Has an epilogue slot: the optimizer may fold a following bias or
	 * elementwise op into the call, or replace it with a generated GEMM
	 * whose epilogue computes them (gemm, linear). */
	KRL_OPCAP_EPILOGUE = 1u << 4,
	/* A transposed convolution that may run as a forward one over a
	 * flipped, transposed weight (lib.tconv=fwd). */
	KRL_OPCAP_TCONV = 1u << 5,
	/* A convolution whose depthwise case (groups = input channels > 1)
	 * runs kernelrl's own kernel, which ignores algo and layout. */
	KRL_OPCAP_DEPTHWISE = 1u << 6,
	/* A recurrent layer that takes `recurrence=` (cuDNN's RNN algorithm
	 * and forward mode: standard, infer, persist, small_h). */
	KRL_OPCAP_RECURRENCE = 1u << 7,
};

typedef struct krl_op {
	const char *name;
	/* Inputs: nin >= 0 takes exactly nin; nin < 0 declares a variadic op
	 * taking at least -nin (KRL_OP_AT_LEAST(k)) and at most
	 * KRL_MAX_CALL_IN (cat: -2). Test a count with krl_op_takes_nin. */
	int nin, nout;
	const char *const *attr_names;   /* NULL-terminated: allowed keys */
	const char *doc;                 /* one line: semantics */
	/* Checks dtypes, shapes and attributes (tensors carry no data).
	 * Returns KRL_OK, or KRL_EINVAL with a sentence in msg. */
	krl_err (*check)(const krl_tensor *in, const krl_tensor *out,
	                 const krl_attrs *a, char *msg, size_t cap);
	/* Runs on the GPU, asynchronously on the context's stream. */
	krl_err (*run)(krl_opctx *c, const krl_tensor *in, const krl_tensor *out,
	               const krl_attrs *a, krl_diag *d);
	/* float64 CPU reference; tensors hold host doubles (integers too). */
	krl_err (*golden)(const krl_tensor *in, const krl_tensor *out,
	                  const krl_attrs *a);
	/* Why the judge's stress draws (docs/judge.md) must not be applied
	 * to a task whose reference uses this op, or NULL when they may (a
	 * product of many elements overflows for any scaled-up input, in
	 * the reference and in any correct order alike). */
	const char *no_stress;
	const char *family;              /* its family: "matmul", "conv", ... */
	unsigned caps;                   /* KRL_OPCAP_*: what the optimizer may do */
	/* The longest run of fp32 additions made in order behind one output
	 * element of the op's GPU run: a GEMM's K, a convolution's Cin /
	 * groups times its taps (cuBLASLt's and cuDNN's kernels walk them in
	 * order). NULL for ops whose sums are short or made in trees. The
	 * judge sizes its conditioning probe by it (docs/judge.md, "Exact
	 * answers the judge rejected"). */
	int64_t (*seq_len)(const krl_tensor *in, const krl_tensor *out,
	                   const krl_attrs *a);
	/* Whether the op's GPU run multiplies in TF32 where the task's tier
	 * allows it (`precision tf32`: cuDNN's allow_tf32, every product's
	 * inputs rounded to 10 mantissa bits). NULL: never (cuBLASLt's GEMMs
	 * here stay fp32 at either tier). The judge's conditioning probe
	 * jitters by TF32's rounding where a call does (docs/judge.md). */
	int (*tf32)(const krl_tensor *in, const krl_tensor *out,
	            const krl_attrs *a);
} krl_op;

/*
 * An op family (src/ops/<name>/): the unit an op is added to. Each family
 * exports one descriptor; the registry (src/ops/registry.c) lists them.
 * Every op's `family` is the name of the one family whose table holds it.
 */
typedef struct krl_op_family {
	const char *name;                /* "matmul", "eltwise", ... */
	const krl_op *const *ops;        /* its table, NULL-terminated */
	/* Frees the family's state in a krl_opctx (its slot, created on
	 * first use by its GPU drivers), or NULL when it keeps none. */
	void (*state_free)(void *state);
} krl_op_family;

/* Every family, in registry order; *n is set to the count. */
const krl_op_family *const *krl_op_families(int *n);

/* The op named z, or NULL. */
const krl_op *krl_op_find(const char *z);
/* All ops, for listings: every family's table in registry order; *n is
 * set to the count. */
const krl_op *const *krl_op_all(int *n);

/* The nin of a variadic op taking at least k inputs (k >= 1). */
#define KRL_OP_AT_LEAST(k) (-(k))

/* Whether op takes n inputs: exactly op->nin, or for a variadic op
 * (nin < 0) from -nin to KRL_MAX_CALL_IN. */
static inline int krl_op_takes_nin(const krl_op *op, int n)
{
	return op->nin >= 0 ? n == op->nin
	                    : n >= -op->nin && n <= KRL_MAX_CALL_IN;
}

/* An attribute's value, or dflt when absent. */
double krl_attrs_get(const krl_attrs *a, const char *key, double dflt);

/* Attributes whose value is a word from a fixed list, not a number
 * (`layout=nhwc`): the plan writes a bare word, which names nothing (a
 * shape key or const of the same name does not count), and the op sees the
 * word's index in the list as the attribute's value. Returns the list of
 * attribute `key` (NULL-terminated; index 0 is the default), or NULL when
 * key takes a number. The same list for every op that takes key. */
const char *const *krl_attr_words(const char *key);

#ifdef __cplusplus
}
#endif
#endif
