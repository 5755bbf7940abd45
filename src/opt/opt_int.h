/*
 * Internals of the program optimizer shared by its files (src/opt/):
 * the pointwise-op table (one row per krl_pwop: its float64 meaning for
 * the interpreter and its CUDA C text for the code generator) and the
 * graph builder.
 */
#ifndef KRL_OPT_INT_H
#define KRL_OPT_INT_H

#include "krl/opt.h"

typedef struct krl_pwinfo {
	const char *name;        /* "add", "relu", ... (for comments and tests) */
	int nin;                 /* 1, 2 or 3 */
	/* CUDA C for fp32 operands: "%0", "%1", "%2" stand for the operands
	 * (each an fp32 expression, parenthesised by the generator), e.g.
	 * "fmaxf(%0, 0.f)", "(%0 + %1)". */
	const char *cuda;
	double (*f)(const double *a);   /* the float64 meaning */
} krl_pwinfo;

const krl_pwinfo *krl_pw_info(krl_pwop op);

/* Appends a copy of *n (taking ownership of its strings and attrs) and
 * returns its index, or -1 when out of memory. */
int krl_graph_add(krl_graph *g, const krl_gnode *n);

/* ==== GEMM as generated code: the 3xTF32 kernel (src/opt/gemm.c) ==== */

/* One GEMM written as a launch of the 3xTF32 tensor-core kernel
 * (src/opt/kernels/gemm_3xtf32.cuh: fp32 accuracy from three TF32
 * products). C[z] = epilogue(alpha * op(A[z]) @ op(B[z])) for z < batch,
 * each matrix row-major and contiguous. */
typedef struct krl_gemm_spec {
	const char *kernel;      /* name of the kernel to define (unique) */
	const char *a, *b, *c;   /* plan buffer names */
	int ta, tb;              /* A stored [K, M] / B stored [N, K] */
	const char *m, *n, *k;   /* plan expressions */
	const char *batch;       /* plan expression; NULL: 1 */
	int b_shared;            /* B has no batch dims (one B for every z) */
	const char *alpha;       /* plan expression; NULL: 1 */
	int tri;                 /* 0: none, 1: triu, 2: tril of each C */
	const char *diag;        /* triu/tril diagonal; NULL: 0 */
} krl_gemm_spec;

/* The kernel body for layout (ta, tb), in its own namespace gemm_t<ta><tb>:
 * write it once per layout a file uses, before the kernels of that
 * layout. Caller frees. */
char *krl_gemm_body(int ta, int tb);
/* The __global__ wrapper of s (device code) and its plan `launch` line.
 * Callers free both. */
krl_err krl_gemm_kernel(const krl_gemm_spec *s, char **device, char **launch,
                        krl_diag *d);

#endif
