/*
 * kernelrl export --to cuda (docs/export.md): the candidate's device code as
 * it is, followed by generated host code that runs its plan for one shape
 * set (kernels.cu); the C header of the launch functions (krl_<task>.h); a
 * sample main.cu; a Makefile. Kernel launches go through
 * cudaLaunchKernelExC with the plan's grid, block, dynamic shared memory,
 * cluster and cooperative attributes; library calls through libkrl_ops
 * (src/export/shim/krl_ops_shim.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export_int.h"
#include "krl/ops.h"

static const krl_pos nopos = { 0, 0, 0 };

/* ==== Types and values ==== */

/* The C type of one element, as the header declares pointers to it. */
static const char *ctype(krl_dtype t)
{
	switch (t) {
	case KRL_F32: return "float";
	case KRL_F64: return "double";
	case KRL_I32: return "int32_t";
	case KRL_I64: return "int64_t";
	case KRL_BOOL: return "uint8_t";
	case KRL_F16: case KRL_BF16: return "uint16_t";
	default: return "void";
	}
}

/* A double as an exact C literal (hex float), inf and nan included. */
static void put_double(krl_strbuf *b, double v, int is_float)
{
	if (isnan(v))
		krl_strbuf_str(b, is_float ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")");
	else if (isinf(v))
		krl_strbuf_printf(b, "%s%s", v < 0 ? "-" : "",
		                  is_float ? "__builtin_huge_valf()" : "__builtin_huge_val()");
	else
		krl_strbuf_printf(b, "%a%s", v, is_float ? "f" : "");
}

/* One launch argument's local: `TYPE aK = VALUE;`. */
static void put_karg(krl_strbuf *b, const krl_karg *a, int k)
{
	if (a->buf >= 0) {
		krl_strbuf_printf(b, "\t\tvoid *a%d = krl_b[%d];\n", k, a->buf);
		return;
	}
	int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; float f; double g;
	switch (a->type) {
	case KRL_P_I32:
		memcpy(&i32, a->bytes, 4);
		krl_strbuf_printf(b, "\t\tint a%d = %" PRId32 ";\n", k, i32);
		break;
	case KRL_P_U32:
		memcpy(&u32, a->bytes, 4);
		krl_strbuf_printf(b, "\t\tunsigned a%d = %" PRIu32 "u;\n", k, u32);
		break;
	case KRL_P_I64:
		memcpy(&i64, a->bytes, 8);
		krl_strbuf_printf(b, "\t\tlong long a%d = %" PRId64 "ll;\n", k, i64);
		break;
	case KRL_P_U64:
		memcpy(&u64, a->bytes, 8);
		krl_strbuf_printf(b, "\t\tunsigned long long a%d = %" PRIu64 "ull;\n", k, u64);
		break;
	case KRL_P_F32:
		memcpy(&f, a->bytes, 4);
		krl_strbuf_printf(b, "\t\tfloat a%d = ", k);
		put_double(b, f, 1);
		krl_strbuf_str(b, ";\n");
		break;
	case KRL_P_F64:
		memcpy(&g, a->bytes, 8);
		krl_strbuf_printf(b, "\t\tdouble a%d = ", k);
		put_double(b, g, 0);
		krl_strbuf_str(b, ";\n");
		break;
	default:
		krl_strbuf_printf(b, "\t\tvoid *a%d = 0;\n", k);
	}
}

/* ==== Layout ==== */

void krl_export_layout(const krl_program *p, size_t *off, size_t *scratch,
                       size_t *derived)
{
	*scratch = *derived = 0;
	for (int i = 0; i < p->nbufs; i++) {
		off[i] = 0;
		size_t *area = p->bufs[i].role == KRL_ROLE_SCRATCH ? scratch
		             : p->bufs[i].role == KRL_ROLE_DERIVED ? derived : NULL;
		if (!area)
			continue;
		off[i] = *area;
		*area += (p->bufs[i].bytes + 255) / 256 * 256;
	}
}

/* ==== kernels.cu ==== */

/* The parameter list of the task's buffers (roles in keep), in task
 * order: "const float *x, float *y". */
static void put_task_params(krl_strbuf *b, const krl_program *p, int inputs,
                            int outputs, int *n)
{
	for (int i = 0; i < p->ntask; i++) {
		const krl_buf *q = &p->bufs[i];
		int out = q->role == KRL_ROLE_OUTPUT;
		if ((out && !outputs) || (!out && !inputs))
			continue;
		krl_strbuf_printf(b, "%s%s%s *%s", (*n)++ ? ", " : "",
		                  out ? "" : "const ", ctype(q->dtype), q->name);
	}
}

/* Statements setting B[i], the device pointer of every buffer the steps
 * may touch (in init: params and derived buffers only). */
static void put_bufptrs(krl_strbuf *b, const krl_program *p, const size_t *off,
                        int init)
{
	krl_strbuf_printf(b, "\tvoid *krl_b[%d];\n", p->nbufs > 0 ? p->nbufs : 1);
	for (int i = 0; i < p->nbufs; i++) {
		const krl_buf *q = &p->bufs[i];
		switch (q->role) {
		case KRL_ROLE_INPUT: case KRL_ROLE_OUTPUT:
			if (init) {
				krl_strbuf_printf(b, "\tkrl_b[%d] = 0;\n", i);
				break;
			}
			/* fallthrough */
		case KRL_ROLE_PARAM:
			krl_strbuf_printf(b, "\tkrl_b[%d] = (void *)%s;\n", i, q->name);
			break;
		case KRL_ROLE_SCRATCH:
			if (init)
				krl_strbuf_printf(b, "\tkrl_b[%d] = 0;\n", i);
			else
				krl_strbuf_printf(b, "\tkrl_b[%d] = (char *)krl_scratch + %zu;\n",
				                  i, off[i]);
			break;
		case KRL_ROLE_DERIVED:
			krl_strbuf_printf(b, "\tkrl_b[%d] = (char *)krl_derived + %zu;\n", i,
			                  off[i]);
			break;
		case KRL_ROLE_VIEW:
			krl_strbuf_printf(b, "\tkrl_b[%d] = krl_b[%d] ? (char *)krl_b[%d] + %lld : 0;"
			                  "  /* view %s */\n", i, q->alias, q->alias,
			                  (long long)(q->offset *
			                              (int64_t)krl_dtype_size(q->dtype)),
			                  q->name);
			break;
		}
	}
}

static void put_tensor(krl_strbuf *b, const krl_program *p, int i)
{
	const krl_buf *q = &p->bufs[i];
	krl_strbuf_printf(b, "{krl_b[%d], %d, %d, {", i, (int)q->dtype, q->ndim);
	for (int k = 0; k < q->ndim; k++)
		krl_strbuf_printf(b, "%s%lld", k ? ", " : "", (long long)q->dim[k]);
	krl_strbuf_str(b, q->ndim ? "}}" : "0}}");
}

static void put_steps(krl_strbuf *b, const krl_candidate *c,
                      const krl_program *p, const krl_step *st, int n,
                      const char *stem)
{
	for (int s = 0; s < n; s++) {
		const krl_step *x = &st[s];
		int line = x->src ? x->src->pos.line : 0;
		if (x->kind == KRL_ST_CALL) {
			krl_strbuf_printf(b, "\t{ /* plan line %d: call %s */\n",
			                  line, x->op->name);
			krl_strbuf_str(b, "\t\tconst krl_ops_tensor in[] = {");
			for (int k = 0; k < x->nin; k++) {
				krl_strbuf_str(b, k ? ", " : "");
				put_tensor(b, p, x->in[k]);
			}
			krl_strbuf_str(b, "};\n\t\tconst krl_ops_tensor out[] = {");
			for (int k = 0; k < x->nout; k++) {
				krl_strbuf_str(b, k ? ", " : "");
				put_tensor(b, p, x->out[k]);
			}
			krl_strbuf_str(b, "};\n");
			if (x->attrs.n) {
				krl_strbuf_str(b, "\t\tstatic const char *const keys[] = {");
				for (int k = 0; k < x->attrs.n; k++)
					krl_strbuf_printf(b, "%s\"%s\"", k ? ", " : "",
					                  x->attrs.key[k]);
				krl_strbuf_str(b, "};\n\t\tstatic const double vals[] = {");
				for (int k = 0; k < x->attrs.n; k++) {
					krl_strbuf_str(b, k ? ", " : "");
					put_double(b, x->attrs.val[k], 0);
				}
				krl_strbuf_str(b, "};\n");
			} else {
				krl_strbuf_str(b, "\t\tconst char *const *keys = 0;\n"
				                  "\t\tconst double *vals = 0;\n");
			}
			krl_strbuf_printf(b, "\t\tif (krl_ops_call(\"%s\", in, %d, out, "
			                  "%d, %d, keys, vals, (void *)krl_stream))\n"
			                  "\t\t\treturn %s_fail_ops(\"%s\");\n\t}\n",
			                  x->op->name, x->nin, x->nout, x->attrs.n,
			                  stem, x->op->name);
			continue;
		}
		const char *kn = c->kernels[x->kernel].name;
		krl_strbuf_printf(b, "\t{ /* plan line %d: launch %s */\n", line, kn);
		for (int k = 0; k < x->nargs; k++)
			put_karg(b, &x->args[k], k);
		krl_strbuf_str(b, "\t\tvoid *args[] = {");
		for (int k = 0; k < x->nargs; k++)
			krl_strbuf_printf(b, "%s&a%d", k ? ", " : "", k);
		krl_strbuf_str(b, x->nargs ? "};\n" : "0};\n");
		krl_strbuf_printf(b, "\t\tcudaLaunchConfig_t cfg = {};\n"
		                  "\t\tcfg.gridDim = dim3(%uu, %uu, %uu);\n"
		                  "\t\tcfg.blockDim = dim3(%uu, %uu, %uu);\n"
		                  "\t\tcfg.dynamicSmemBytes = %uu;\n"
		                  "\t\tcfg.stream = krl_stream;\n",
		                  x->grid[0], x->grid[1], x->grid[2], x->block[0],
		                  x->block[1], x->block[2], x->smem);
		int na = 0;
		krl_strbuf_str(b, "\t\tcudaLaunchAttribute at[2];\n");
		if (x->cluster[0] > 1 || x->cluster[1] > 1 || x->cluster[2] > 1) {
			krl_strbuf_printf(b, "\t\tat[%d].id = cudaLaunchAttributeClusterDimension;\n"
			                  "\t\tat[%d].val.clusterDim.x = %u;\n"
			                  "\t\tat[%d].val.clusterDim.y = %u;\n"
			                  "\t\tat[%d].val.clusterDim.z = %u;\n", na, na,
			                  x->cluster[0] ? x->cluster[0] : 1, na,
			                  x->cluster[1] ? x->cluster[1] : 1, na,
			                  x->cluster[2] ? x->cluster[2] : 1);
			na++;
		}
		if (x->cooperative) {
			krl_strbuf_printf(b, "\t\tat[%d].id = cudaLaunchAttributeCooperative;\n"
			                  "\t\tat[%d].val.cooperative = 1;\n", na, na);
			na++;
		}
		krl_strbuf_printf(b, "\t\tcfg.attrs = at;\n\t\tcfg.numAttrs = %d;\n", na);
		if (x->smem > 48 * 1024)
			/* The raised limit is per device: remember the devices. */
			krl_strbuf_printf(b, "\t\tstatic unsigned long long raised;\n"
			                  "\t\tint dev = 0;\n"
			                  "\t\tcudaError_t e = cudaGetDevice(&dev);\n"
			                  "\t\tif (e == cudaSuccess && dev < 64 && !(raised >> dev & 1)) {\n"
			                  "\t\t\te = cudaFuncSetAttribute((const void *)%s,\n"
			                  "\t\t\t\tcudaFuncAttributeMaxDynamicSharedMemorySize, %u);\n"
			                  "\t\t\tif (e == cudaSuccess)\n"
			                  "\t\t\t\traised |= 1ull << dev;\n\t\t}\n"
			                  "\t\tif (e != cudaSuccess)\n"
			                  "\t\t\treturn %s_fail(e, \"raise the shared memory limit of %s\");\n",
			                  kn, x->smem, stem, kn);
		krl_strbuf_printf(b, "\t\tcudaError_t le = cudaLaunchKernelExC(&cfg, "
		                  "(const void *)%s, args);\n"
		                  "\t\tif (le != cudaSuccess)\n"
		                  "\t\t\treturn %s_fail(le, \"launch %s\");\n\t}\n",
		                  kn, stem, kn);
	}
}

static int has_calls(const krl_program *p)
{
	for (int i = 0; i < p->nbody; i++)
		if (p->body[i].kind == KRL_ST_CALL)
			return 1;
	for (int i = 0; i < p->ninit; i++)
		if (p->init[i].kind == KRL_ST_CALL)
			return 1;
	return 0;
}

static int has_derived(const krl_program *p)
{
	for (int i = 0; i < p->nbufs; i++)
		if (p->bufs[i].role == KRL_ROLE_DERIVED)
			return 1;
	return 0;
}

/* A comment listing the shape set and the task's buffers. */
static void put_shapes_comment(krl_strbuf *b, const krl_task *t,
                               const krl_program *p, const char *set)
{
	const krl_shapeset *ss = krl_task_shapeset(t, set);
	krl_strbuf_printf(b, " * Shapes fixed to set %s:", set);
	for (int i = 0; ss && i < ss->n; i++)
		krl_strbuf_printf(b, " %s=%lld", ss->keys[i], (long long)ss->vals[i]);
	krl_strbuf_str(b, ".\n");
	for (int i = 0; i < p->ntask; i++) {
		const krl_buf *q = &p->bufs[i];
		krl_strbuf_printf(b, " *   %-6s %-10s %s [", q->role == KRL_ROLE_INPUT
		                  ? "input" : q->role == KRL_ROLE_PARAM ? "param"
		                  : "output", q->name, krl_dtype_name(q->dtype));
		for (int k = 0; k < q->ndim; k++)
			krl_strbuf_printf(b, "%s%lld", k ? ", " : "", (long long)q->dim[k]);
		krl_strbuf_str(b, "]\n");
	}
}

static void put_header(krl_strbuf *b, const krl_task *t, const krl_program *p,
                       const krl_export_opts *o, const char *stem)
{
	int der = has_derived(p), n = 0;
	krl_strbuf_printf(b, "/*\n * krl_%s.h: generated by `krl export` from "
	                  "task %s (candidate %s): do not edit.\n *\n",
	                  stem, t->id ? t->id : t->name,
	                  o->cand_hash ? o->cand_hash
	                  : o->cand_origin ? o->cand_origin : "?");
	put_shapes_comment(b, t, p, o->shapes);
	krl_strbuf_printf(b,
		" *\n * Every function runs asynchronously on krl_stream and returns 0, a\n"
		" * cudaError_t (> 0) or -1 (a library op failed); krl_%s_error()\n"
		" * says what failed. All pointers are device pointers to contiguous\n"
		" * row-major tensors of the shapes above. docs/export.md.\n */\n"
		"#ifndef KRL_EXPORT_%s_H\n#define KRL_EXPORT_%s_H\n\n"
		"#include <stddef.h>\n#include <stdint.h>\n\n#include <cuda_runtime.h>\n\n"
		"#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
		"#define KRL_%s_SHAPES \"%s\"\n\n"
		"/* Bytes of the scratch workspace forward needs (256-byte aligned). */\n"
		"size_t krl_%s_workspace_size(void);\n", stem, stem, stem, stem,
		o->shapes, stem);
	if (der) {
		krl_strbuf_printf(b,
			"/* Bytes of the derived buffers init computes from the params\n"
			" * and forward reads; keep them between calls. */\n"
			"size_t krl_%s_derived_size(void);\n"
			"/* Computes the derived buffers from the params: call once, and\n"
			" * again whenever the params change. */\n"
			"int krl_%s_init(", stem, stem);
		int m = 0;
		for (int i = 0; i < p->ntask; i++)
			if (p->bufs[i].role == KRL_ROLE_PARAM)
				krl_strbuf_printf(b, "%sconst %s *%s", m++ ? ", " : "",
				                  ctype(p->bufs[i].dtype), p->bufs[i].name);
		krl_strbuf_printf(b, "%svoid *krl_derived, cudaStream_t krl_stream);\n",
		                  m ? ", " : "");
	}
	krl_strbuf_printf(b, "/* Runs the plan: inputs, params and outputs in the "
	                  "task's order. */\nint krl_%s_forward(", stem);
	put_task_params(b, p, 1, 1, &n);
	krl_strbuf_printf(b, "%s%svoid *krl_scratch, cudaStream_t krl_stream);\n",
	                  n ? ", " : "", der ? "const void *krl_derived, " : "");
	krl_strbuf_printf(b, "/* What the last failing call on this thread "
	                  "failed at. */\nconst char *krl_%s_error(void);\n\n"
	                  "#ifdef __cplusplus\n}\n#endif\n#endif\n", stem);
}

static void put_kernels(krl_strbuf *b, const krl_task *t, const krl_candidate *c,
                        const krl_program *p, const krl_export_opts *o,
                        const char *stem)
{
	size_t off[p->nbufs > 0 ? p->nbufs : 1], scratch, derived;
	krl_export_layout(p, off, &scratch, &derived);
	int der = has_derived(p), n = 0;
	krl_strbuf_printf(b, "/* kernels.cu: generated by `krl export` from task "
	                  "%s: the candidate's device code as it is (%s), then "
	                  "host code for its plan. */\n#line 1 \"candidate.cu\"\n",
	                  t->id ? t->id : t->name,
	                  o->cand_origin ? o->cand_origin : "candidate");
	krl_strbuf_add(b, c->source, c->len);
	krl_strbuf_str(b, "\n\n/* ==== Host code for the plan (generated) ==== */\n");
	int line = 1;
	for (size_t i = 0; i < b->len; i++)
		line += b->z[i] == '\n';
	krl_strbuf_printf(b, "#line %d \"kernels.cu\"\n", line + 1);
	krl_strbuf_printf(b,
		"#include <stdio.h>\n#include \"krl_%s.h\"\n\n", stem);
	if (has_calls(p))
		krl_strbuf_str(b,
			"/* libkrl_ops (src/export/shim/krl_ops_shim.h in kernelrl). */\n"
			"extern \"C\" {\n"
			"typedef struct krl_ops_tensor {\n\tvoid *data;\n\tint dtype;\n"
			"\tint ndim;\n\tlong long dim[8];\n} krl_ops_tensor;\n"
			"int krl_ops_call(const char *op, const krl_ops_tensor *in, int nin,\n"
			"                 const krl_ops_tensor *out, int nout, int nattr,\n"
			"                 const char *const *keys, const double *vals, void *stream);\n"
			"const char *krl_ops_error(void);\n}\n\n");
	krl_strbuf_printf(b,
		"static thread_local char %s_err[1200];\n\n"
		"static int %s_fail(cudaError_t e, const char *what)\n{\n"
		"\tsnprintf(%s_err, sizeof %s_err, \"%s: %%s: %%s\", what, cudaGetErrorString(e));\n"
		"\treturn (int)e;\n}\n\n", stem, stem, stem, stem, stem);
	if (has_calls(p))
		krl_strbuf_printf(b,
			"static int %s_fail_ops(const char *op)\n{\n"
			"\tsnprintf(%s_err, sizeof %s_err, \"%s: call %%s: %%s\", op, krl_ops_error());\n"
			"\treturn -1;\n}\n\n", stem, stem, stem, stem);
	krl_strbuf_printf(b, "extern \"C\" const char *krl_%s_error(void)\n{\n"
	                  "\treturn %s_err;\n}\n\n"
	                  "extern \"C\" size_t krl_%s_workspace_size(void)\n{\n"
	                  "\treturn %zu;\n}\n\n", stem, stem, stem, scratch);
	if (der) {
		krl_strbuf_printf(b, "extern \"C\" size_t krl_%s_derived_size(void)\n"
		                  "{\n\treturn %zu;\n}\n\nextern \"C\" int krl_%s_init(",
		                  stem, derived, stem);
		int m = 0;
		for (int i = 0; i < p->ntask; i++)
			if (p->bufs[i].role == KRL_ROLE_PARAM)
				krl_strbuf_printf(b, "%sconst %s *%s", m++ ? ", " : "",
				                  ctype(p->bufs[i].dtype), p->bufs[i].name);
		krl_strbuf_printf(b, "%svoid *krl_derived, cudaStream_t krl_stream)\n{\n",
		                  m ? ", " : "");
		put_bufptrs(b, p, off, 1);
		put_steps(b, c, p, p->init, p->ninit, stem);
		krl_strbuf_str(b, "\treturn 0;\n}\n\n");
	}
	krl_strbuf_printf(b, "extern \"C\" int krl_%s_forward(", stem);
	put_task_params(b, p, 1, 1, &n);
	krl_strbuf_printf(b, "%s%svoid *krl_scratch, cudaStream_t krl_stream)\n{\n",
	                  n ? ", " : "", der ? "const void *krl_derived, " : "");
	put_bufptrs(b, p, off, 0);
	put_steps(b, c, p, p->body, p->nbody, stem);
	krl_strbuf_str(b, "\t(void)krl_b;\n\t(void)krl_scratch;\n\treturn 0;\n}\n");
}

/* ==== main.cu ==== */

static void put_main(krl_strbuf *b, const krl_task *t, const krl_program *p,
                     const char *stem)
{
	int der = has_derived(p);
	krl_strbuf_printf(b,
		"/*\n * main.cu: generated by `krl export` (task %s): a sample that\n"
		" * draws the inputs and params from a fixed seed, runs init (if any)\n"
		" * and forward, checks that the run succeeds and every float output\n"
		" * is finite, prints a checksum per output and the median of 20 timed\n"
		" * calls (no L2 flush: a sample, not kernelrl's protocol; correctness\n"
		" * against PyTorch: bench/check_export.py on a --to torch export).\n */\n"
		"#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
		"#include <algorithm>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n\n"
		"#include \"krl_%s.h\"\n\n"
		"#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \\\n"
		"\tfprintf(stderr, \"%%s:%%d: %%s: %%s\\n\", __FILE__, __LINE__, #x, \\\n"
		"\t        cudaGetErrorString(e_)); exit(1); } } while (0)\n"
		"#define RUN(x) do { int r_ = (x); if (r_) { \\\n"
		"\tfprintf(stderr, \"%%s failed (%%d): %%s\\n\", #x, r_, krl_%s_error()); \\\n"
		"\texit(1); } } while (0)\n\n"
		"static unsigned long long rng = 0x6b726c6578706f72ull; /* fixed seed */\n"
		"static double uni(void) /* splitmix64 -> [0, 1) */\n{\n"
		"\tunsigned long long z = (rng += 0x9e3779b97f4a7c15ull);\n"
		"\tz = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;\n"
		"\tz = (z ^ (z >> 27)) * 0x94d049bb133111ebull;\n"
		"\treturn (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;\n}\n\n"
		"/* kind: 1 normal(a, b), 2 uniform [a, b), 3 randint [a, b), 4 bernoulli(a), 5 const(a) */\n"
		"static double draw(int kind, double a, double b)\n{\n"
		"\tswitch (kind) {\n"
		"\tcase 1: { double u = uni(), v = uni();\n"
		"\t\treturn a + b * sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v); }\n"
		"\tcase 2: return a + (b - a) * uni();\n"
		"\tcase 3: return floor(a + (b - a) * uni());\n"
		"\tcase 4: return uni() < a ? 1.0 : 0.0;\n"
		"\tdefault: return a;\n\t}\n}\n\n"
		"static size_t esize(int dt)\n{\n"
		"\tstatic const size_t s[] = {4, 2, 2, 4, 8, 1, 8};\n\treturn s[dt];\n}\n\n"
		"static void put(void *h, size_t i, int dt, double v)\n{\n"
		"\tswitch (dt) {\n"
		"\tcase 0: ((float *)h)[i] = (float)v; break;\n"
		"\tcase 1: ((__half *)h)[i] = __double2half(v); break;\n"
		"\tcase 2: ((__nv_bfloat16 *)h)[i] = __double2bfloat16(v); break;\n"
		"\tcase 3: ((int *)h)[i] = (int)v; break;\n"
		"\tcase 4: ((long long *)h)[i] = (long long)v; break;\n"
		"\tcase 5: ((unsigned char *)h)[i] = v != 0; break;\n"
		"\tdefault: ((double *)h)[i] = v;\n\t}\n}\n\n"
		"static double get(const void *h, size_t i, int dt)\n{\n"
		"\tswitch (dt) {\n"
		"\tcase 0: return ((const float *)h)[i];\n"
		"\tcase 1: return __half2float(((const __half *)h)[i]);\n"
		"\tcase 2: return __bfloat162float(((const __nv_bfloat16 *)h)[i]);\n"
		"\tcase 3: return ((const int *)h)[i];\n"
		"\tcase 4: return (double)((const long long *)h)[i];\n"
		"\tcase 5: return ((const unsigned char *)h)[i];\n"
		"\tdefault: return ((const double *)h)[i];\n\t}\n}\n\n"
		"/* kinds 6 tril(a, b), 7 triu(a, b) over the last two dims (rows, cols),\n"
		" * 8 arange(a, b): the task's constant buffers, exact patterns */\n"
		"static double pattern(int kind, double a, double b, size_t i, long long rows,\n"
		"                      long long cols)\n{\n"
		"\tif (kind == 8)\n\t\treturn a + b * (double)i;\n"
		"\tdouble k = (double)((long long)(i %% cols) - (long long)(i / cols %% rows));\n"
		"\treturn (kind == 6 ? k <= b : k >= b) ? a : 0.0;\n}\n\n"
		"static void *make(size_t n, int dt, int kind, double a, double b,\n"
		"                  long long rows, long long cols)\n{\n"
		"\tvoid *h = malloc(n * esize(dt) + 1), *d = 0;\n"
		"\tif (!h) { fprintf(stderr, \"out of host memory\\n\"); exit(1); }\n"
		"\tfor (size_t i = 0; i < n; i++)\n\t\tput(h, i, dt, kind >= 6 ?\n"
		"\t\t    pattern(kind, a, b, i, rows, cols) : draw(kind, a, b));\n"
		"\tCK(cudaMalloc(&d, n * esize(dt) + 1));\n"
		"\tCK(cudaMemcpy(d, h, n * esize(dt), cudaMemcpyHostToDevice));\n"
		"\tfree(h);\n\treturn d;\n}\n\n"
		"/* Prints sum and sum of |v|; returns 0 when a float output is not finite. */\n"
		"static int checksum(const char *name, const void *d, size_t n, int dt)\n{\n"
		"\tvoid *h = malloc(n * esize(dt) + 1);\n"
		"\tif (!h) { fprintf(stderr, \"out of host memory\\n\"); exit(1); }\n"
		"\tCK(cudaMemcpy(h, d, n * esize(dt), cudaMemcpyDeviceToHost));\n"
		"\tdouble s = 0, sa = 0;\n\tsize_t bad = 0;\n"
		"\tfor (size_t i = 0; i < n; i++) {\n\t\tdouble v = get(h, i, dt);\n"
		"\t\tif (!isfinite(v)) bad++;\n\t\ts += v;\n\t\tsa += fabs(v);\n\t}\n"
		"\tfree(h);\n"
		"\tprintf(\"%%s: %%zu elements, sum %%.9g, sum|v| %%.9g, non-finite %%zu\\n\", name, n, s, sa, bad);\n"
		"\treturn bad == 0;\n}\n\n"
		"int main(void)\n{\n\tcudaStream_t s;\n\tCK(cudaStreamCreate(&s));\n",
		t->id ? t->id : t->name, stem, stem);
	static const int distk[] = { 5, 1, 2, 3, 4, 5, 6, 7, 8 };
	for (int i = 0; i < p->ntask; i++) {
		const krl_buf *q = &p->bufs[i];
		if (q->role == KRL_ROLE_OUTPUT) {
			krl_strbuf_printf(b, "\tvoid *buf_%s = 0;\n\tCK(cudaMalloc(&buf_%s, %zu));\n",
			                  q->name, q->name, q->bytes + 1);
			continue;
		}
		krl_strbuf_printf(b, "\tvoid *buf_%s = make(%lldull, %d, %d, ", q->name,
		                  (long long)q->numel, (int)q->dtype,
		                  distk[q->dist.kind]);
		put_double(b, q->dist.a, 0);
		krl_strbuf_str(b, ", ");
		put_double(b, q->dist.b, 0);
		krl_strbuf_printf(b, ", %lldll, %lldll);\n",
		                  (long long)q->dist.rows, (long long)q->dist.cols);
	}
	krl_strbuf_printf(b, "\tvoid *scratch = 0;\n"
	                  "\tCK(cudaMalloc(&scratch, krl_%s_workspace_size() + 1));\n",
	                  stem);
	if (der) {
		krl_strbuf_printf(b, "\tvoid *derived = 0;\n"
		                  "\tCK(cudaMalloc(&derived, krl_%s_derived_size() + 1));\n"
		                  "\tRUN(krl_%s_init(", stem, stem);
		for (int i = 0; i < p->ntask; i++)
			if (p->bufs[i].role == KRL_ROLE_PARAM)
				krl_strbuf_printf(b, "(const %s *)buf_%s, ",
				                  ctype(p->bufs[i].dtype), p->bufs[i].name);
		krl_strbuf_str(b, "derived, s));\n");
	}
	krl_strbuf_printf(b, "#define FORWARD krl_%s_forward(", stem);
	for (int i = 0; i < p->ntask; i++)
		krl_strbuf_printf(b, "(%s%s *)buf_%s, ",
		                  p->bufs[i].role == KRL_ROLE_OUTPUT ? "" : "const ",
		                  ctype(p->bufs[i].dtype), p->bufs[i].name);
	krl_strbuf_printf(b, "%sscratch, s)\n", der ? "derived, " : "");
	krl_strbuf_str(b, "\tRUN(FORWARD);\n\tCK(cudaStreamSynchronize(s));\n"
	                  "\tint ok = 1;\n");
	for (int i = 0; i < p->ntask; i++)
		if (p->bufs[i].role == KRL_ROLE_OUTPUT)
			krl_strbuf_printf(b, "\tok &= checksum(\"%s\", buf_%s, %lldull, %d);\n",
			                  p->bufs[i].name, p->bufs[i].name,
			                  (long long)p->bufs[i].numel,
			                  (int)p->bufs[i].dtype);
	krl_strbuf_str(b,
		"\tcudaEvent_t e0, e1;\n\tCK(cudaEventCreate(&e0));\n\tCK(cudaEventCreate(&e1));\n"
		"\tfloat ms[20];\n\tfor (int k = 0; k < 20; k++) {\n"
		"\t\tCK(cudaEventRecord(e0, s));\n\t\tRUN(FORWARD);\n"
		"\t\tCK(cudaEventRecord(e1, s));\n\t\tCK(cudaEventSynchronize(e1));\n"
		"\t\tCK(cudaEventElapsedTime(&ms[k], e0, e1));\n\t}\n"
		"\tstd::sort(ms, ms + 20);\n"
		"\tprintf(\"forward: median %.4f ms over 20 calls (inputs in L2 may be warm)\\n\", 0.5 * (ms[9] + ms[10]));\n"
		"\tprintf(\"%s\\n\", ok ? \"check: ok\" : \"check: FAILED (non-finite outputs)\");\n"
		"\treturn ok ? 0 : 1;\n}\n");
}

/* ==== Makefile ==== */

static void put_makefile(krl_strbuf *b, const krl_program *p,
                         const krl_export_opts *o, const char *stem)
{
	int calls = has_calls(p);
	krl_strbuf_printf(b,
		"# Generated by `krl export`: builds the sample (make) and the shared\n"
		"# library that the PyTorch package loads (make lib). docs/export.md.\n"
		"NVCC ?= nvcc\nARCH ?= %s\n"
		"NVFLAGS ?= -O3 -std=c++17 -arch=$(ARCH) -lineinfo\n"
		"%s\n\n"
		"krl_%s: main.cu kernels.cu krl_%s.h\n"
		"\t$(NVCC) $(NVFLAGS) -o $@ main.cu kernels.cu $(LIBS)\n\n"
		"lib: libkrl_%s_export.so\n\n"
		"libkrl_%s_export.so: kernels.cu krl_%s.h\n"
		"\t$(NVCC) $(NVFLAGS) -Xcompiler -fPIC -shared -o $@ kernels.cu $(LIBS)\n\n"
		".PHONY: lib\n", o->arch,
		calls ? "# The plan calls library ops: libkrl_ops.so (kernelrl's op library) sits here.\n"
		        "LIBS = -L. -lkrl_ops -Xlinker -rpath,'$$ORIGIN'"
		      : "LIBS =",
		stem, stem, stem, stem, stem);
}

/* ==== The folder ==== */

krl_err krl_export_cuda(const krl_task *t, const krl_candidate *c,
                        const krl_program *p, const krl_export_opts *o,
                        const char *dir, krl_diag *d)
{
	char stem[96], name[160];
	krl_export_stem(t, stem, sizeof stem);
	krl_strbuf b = {0};
	krl_err e;
	/* main.cu fills tril, triu and arange itself; the Swin tables are
	 * not written out in it (yet): refused rather than left random */
	for (int i = 0; i < p->ntask; i++)
		if (p->bufs[i].dist.kind >= KRL_DIST_SWIN_COORDS &&
		    p->bufs[i].dist.kind <= KRL_DIST_SWIN_MASK)
			return krl_diag_set(d, KRL_EUNSUPPORTED, nopos,
			                    "--to cuda: param '%s' is a Swin constant "
			                    "buffer (swin_coords, swin_index or "
			                    "swin_mask), which the standalone main.cu "
			                    "does not fill; export --to torch instead "
			                    "(the Model holds it)", p->bufs[i].name);
	if (has_calls(p)) {
		if (!o->ops_lib)
			return krl_diag_set(d, KRL_ENOTFOUND, nopos,
			                    "the plan calls library ops, which the export "
			                    "runs through libkrl_ops.so: build it "
			                    "(cmake --build build --target krl_ops) or set "
			                    "KRL_OPS_LIB to its path");
		if ((e = krl_export_copy(o->ops_lib, dir, "libkrl_ops.so", d)))
			return e;
	}
	put_header(&b, t, p, o, stem);
	snprintf(name, sizeof name, "krl_%s.h", stem);
	if ((e = krl_export_file(dir, name, &b, d)))
		return e;
	put_kernels(&b, t, c, p, o, stem);
	if ((e = krl_export_file(dir, "kernels.cu", &b, d)))
		return e;
	put_main(&b, t, p, stem);
	if ((e = krl_export_file(dir, "main.cu", &b, d)))
		return e;
	put_makefile(&b, p, o, stem);
	return krl_export_file(dir, "Makefile", &b, d);
}
