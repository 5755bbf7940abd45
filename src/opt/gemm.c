/*
 * A GEMM node as generated code: the 3xTF32 tensor-core kernel
 * (src/opt/kernels/gemm_3xtf32.cuh, embedded at build time) behind a small
 * __global__ wrapper per GEMM, and its plan launch; which library nodes it
 * may replace. docs/optimizer.md (section 3c, and gemm.impl in section 4)
 * says how and when the optimizer uses it; src/opt/codegen_gemm.c writes
 * its generated epilogues.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opt/opt_int.h"

extern const char krl_kernel_gemm_3xtf32[];

/* Shared memory of the default 128x128x32, 3-stage configuration for each
 * layout: STAGES * (A_STAGE + B_STAGE) * 4 bytes; where both operands are
 * K-contiguous, the Hopper form's (the body's gemm_block_wg: WG_STAGES = 4
 * stages of 32 KB, two split buffers of 32 KB, 1 KB to align its lines),
 * which the mma.sync form fits in too. */
static unsigned gemm_smem(int ta, int tb)
{
	if (!ta && tb)
		return 4 * 32768 + 2 * 32768 + 1024;
	unsigned a = ta ? 32 * (128 + 4) : 128 * (32 + 8);
	unsigned b = tb ? 128 * (32 + 8) : 32 * (128 + 4);
	return 3 * (a + b) * 4;
}

int krl_gemm_split_pays(int64_t m, int64_t n, int64_t k)
{
	int64_t tiles = ((m + 127) / 128) * ((n + 127) / 128);
	return m > 0 && n > 0 && tiles < KRL_GEMM_SPLIT_TILES &&
	       k >= KRL_GEMM_SPLIT_K;
}

int krl_gemm_form(const krl_graph *g, int i)
{
	if (!(krl_opt_lib_caps(g, i) & KRL_OPCAP_EPILOGUE))
		return 0;
	const krl_gnode *x = &g->n[i];
	if (x->nin == 2)
		return 1;
	return x->nin == 3 && !strcmp(x->op, "linear") ? 2 : 0;
}

/* Tiles a GEMM needs for the 3xTF32 kernel's pay rule: a wave of the
 * 132 SMs within 10%. cuBLASLt's fp32 runs on the FMA units, about a
 * seventh of the tensor cores' rate against the 3xTF32 kernel's third
 * (level 3's MLPs at kb1 run 16384 x 16384 weights over 128 rows: 128
 * tiles of a long K, which a rule of 132 kept on cuBLASLt). Under
 * `precision tf32` cuBLASLt runs TF32 on the tensor cores, a third of the
 * kernel's products: no GEMM is expected to pay there (the search may
 * still judge the kernel). */
#define GEMM_WAVE_TILES 119

int krl_gemm_pays(const krl_graph *g, int i)
{
	const krl_gnode *x = &g->n[i];
	int form = krl_gemm_form(g, i);
	if (!form)
		return 0;
	const krl_gnode *a = &g->n[x->in[0]];
	if (a->ndim < 2 || x->ndim < 2)
		return 0;
	const char *tier = g->task ? g->task->precision : NULL;
	if (tier && !strcmp(tier, "tf32"))
		return 0;
	/* C [..., M, N], or a linear's [..., N] whose leading dims are all
	 * rows of one GEMM */
	double m = (double)x->dim[x->ndim - 2].val, batch = 1;
	for (int k = 0; k < x->ndim - 2; k++)
		batch *= (double)x->dim[k].val;
	double ta = 0;
	int na = a->ndim;
	if (form == 1)
		for (int k = 0; k < x->nattrs; k++)
			if (!strcmp(x->attrs[k].key, "ta"))
				ta = x->aval[k];
	/* a linear's rows, and a batch over one B untransposed A: more rows
	 * of one GEMM, as the kernel runs it (codegen_gemm.c gemm_geom) */
	if (form == 2 || (g->n[x->in[1]].ndim == 2 && ta == 0)) {
		m *= batch;
		batch = 1;
	}
	double nn = (double)x->dim[x->ndim - 1].val;
	double tiles = ceil(m / 128) * ceil(nn / 128) * batch;
	/* few tiles and a long K: the kernel splits K (split-K) */
	double k = (double)a->dim[form == 1 && ta == 1 ? na - 2 : na - 1].val;
	if (batch == 1 && m >= 64 && nn >= 64 &&
	    krl_gemm_split_pays((int64_t)m, (int64_t)nn, (int64_t)k))
		return 1;
	/* and at least half of each tile's products are C's (48's batched
	 * 64 x 64 products would fill a quarter of their 128 x 128 tiles),
	 * and no batch of short products: on the H100 the batched score
	 * products of attention (50: K = 64, 31: K = 32) ran slower as the
	 * kernel than as cuBLASLt's (50 4.58 ms against 3.95, 31 18.5
	 * against 17.7), where level 1's single 7 (K = 64) ran 1.2x faster */
	double fill = m * nn / (ceil(m / 128) * ceil(nn / 128) * 128 * 128);
	return tiles >= GEMM_WAVE_TILES && m >= 64 && nn >= 64 &&
	       fill >= 0.5 && (batch == 1 || k >= 128);
}

char *krl_gemm_body(int ta, int tb)
{
	/* The body's layout macros change with (ta, tb); the others are the
	 * same for every layout, so only these are undefined first. */
	return krl_opt_fmt("\n/* ==== 3xTF32 GEMM body, A %s, B %s ==== */\n"
	           "#undef A_KCONTIG\n#undef B_KCONTIG\n"
	           "#undef A_LD\n#undef A_STAGE\n#undef B_LD\n#undef B_STAGE\n"
	           "#undef SMEM_BYTES\n#undef GEMM_WG\n#undef WG_STAGES\n"
	           "#undef WG_TILE\n#undef WG_STAGE\n"
	           "#define A_KCONTIG %d\n#define B_KCONTIG %d\n"
	           "namespace gemm_t%d%d {\n%s} /* namespace gemm_t%d%d */\n",
	           ta ? "stored [K, M]" : "[M, K]",
	           tb ? "stored [N, K]" : "[K, N]", !ta, tb, ta, tb,
	           krl_kernel_gemm_3xtf32, ta, tb);
}

/* Split-K (s->splits): the GEMM kernel writes one partial C per slice
 * of K (blockIdx.y; K rounded to whole k-tiles, a slice past K writes
 * zeros) with no epilogue, and <kernel>_sum adds the slices in order and
 * applies it: deterministic, no atomics. For GEMMs of few tiles and a
 * long K (level 1's 6: 4 tiles, K = 524288), whose one pass would run a
 * block per tile. */
static krl_err gemm_splitk(const krl_gemm_spec *s, char **device,
                           char **launch)
{
	const char *lda = s->ta ? "M" : "K", *ldb = s->tb ? "K" : "N";
	/* where slice z's first k lies in A and B */
	const char *aoff = s->ta ? "k0 * (long)M" : "k0";
	const char *boff = s->tb ? "k0" : "k0 * (long)N";
	char *epi_decl = s->epi ?
	    krl_opt_fmt("\tconst %s e = %s;\n", s->epi,
	                s->epi_init ? s->epi_init : "{}") :
	    krl_opt_fmt("\tconst gemm_t%d%d::gemm_tri<%d> e = {%s, diag};\n",
	                s->ta, s->tb, s->tri, s->alpha ? "alpha" : "1.f");
	char *params = s->epi ? krl_opt_fmt("%s", s->epi_params ?
	                                     s->epi_params : "") :
	               krl_opt_fmt(",\n\tfloat alpha, long diag");
	*device = !epi_decl || !params ? NULL : krl_opt_fmt(
	    "\n/* %s: the partial C of K slice blockIdx.y, %s @ %s (3xTF32, "
	    "split-K). */\n"
	    "extern \"C\" __global__ void %s(const float *__restrict__ A, "
	    "const float *__restrict__ B,\n\tfloat *__restrict__ P, int M, "
	    "int N, int K, int ks)\n{\n"
	    "\tconst int k0 = blockIdx.y * ks;\n"
	    "\tconst int kl = k0 < K ? min(ks, K - k0) : 0;\n"
	    "\tconst gemm_t%d%d::gemm_tri<0> e = {1.f, 0};\n"
	    "\tgemm_t%d%d::gemm_entry(A + (k0 < K ? %s : 0), B + (k0 < K ? %s "
	    ": 0),\n\t\tP + blockIdx.y * (long)M * N, M, N, kl, %s, %s, e);\n}\n"
	    "\n/* %s_sum: C = epilogue(the slices' partials added in order). */\n"
	    "extern \"C\" __global__ void __launch_bounds__(256)\n"
	    "%s_sum(const float *__restrict__ P, float *__restrict__ C, int M, "
	    "int N, int splits%s)\n{\n%s"
	    "\tconst long mn = (long)M * N;\n"
	    "\tfor (long i = (long)blockIdx.x * 256 + threadIdx.x; i < mn;\n"
	    "\t     i += (long)gridDim.x * 256) {\n"
	    "\t\tfloat v = 0.f;\n"
	    "\t\tfor (int z = 0; z < splits; z++)\n"
	    "\t\t\tv += P[z * mn + i];\n"
	    "\t\tC[i] = e(v, (int)(i / N), (int)(i %% N));\n"
	    "\t}\n}\n",
	    s->kernel, s->ta ? "A^T" : "A", s->tb ? "B^T" : "B", s->kernel,
	    s->ta, s->tb, s->ta, s->tb, aoff, boff, lda, ldb, s->kernel,
	    s->kernel, params, epi_decl);
	free(epi_decl);
	free(params);
	char *tail = s->epi ? krl_opt_fmt("%s", s->epi_args ? s->epi_args : "") :
	             krl_opt_fmt(", %s, %s", s->alpha ? s->alpha : "1",
	                         s->diag ? s->diag : "0");
	*launch = !tail ? NULL : krl_opt_fmt(
	    "launch %s grid=(cdiv(%s, 128) * cdiv(%s, 128), %s) block=(256) "
	    "\\\n    smem=%u args(%s, %s, %s, %s, %s, %s, "
	    "cdiv(cdiv(%s, %s), 32) * 32)\n"
	    "launch %s_sum grid=(min(cdiv(%s * %s, 256), sm_count * 8)) "
	    "block=(256) \\\n    args(%s, %s, %s, %s, %s%s)\n",
	    s->kernel, s->m, s->n, s->splits, gemm_smem(s->ta, s->tb), s->a,
	    s->b, s->part, s->m, s->n, s->k, s->k, s->splits,
	    s->kernel, s->m, s->n, s->part, s->c, s->m, s->n, s->splits, tail);
	free(tail);
	if (!*device || !*launch) {
		free(*device);
		free(*launch);
		*device = *launch = NULL;
		return KRL_ENOMEM;
	}
	return KRL_OK;
}

krl_err krl_gemm_kernel(const krl_gemm_spec *s, char **device, char **launch,
                        krl_diag *d)
{
	if (s->splits && !s->batch)
		return gemm_splitk(s, device, launch) ?
		       krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory") :
		       KRL_OK;
	const char *batch = s->batch ? s->batch : "1";
	const char *alpha = s->alpha ? s->alpha : "1";
	const char *diag = s->diag ? s->diag : "0";
	/* Leading dimensions: A [M, K] has K per row, stored [K, M] has M. */
	const char *lda = s->ta ? "M" : "K", *ldb = s->tb ? "K" : "N";
	const char *epi = s->tri == 1 ? "triu(alpha * " :
	                  s->tri == 2 ? "tril(alpha * " : "alpha * ";
	char *strideb = s->b_shared ? krl_opt_fmt("0") :
	                krl_opt_fmt("(%s) * (%s)", s->k, s->n);
	/* Constants stay literal so that the inlined body folds them away
	 * (a runtime alpha and triangle test cost 12% at 4096^3). */
	/* the entry: the masked pair's form (and its range) or the plain one */
	char *entry = s->rng ? krl_opt_fmt("gemm_entry_rng<%d>", s->rng_mode) :
	              krl_opt_fmt("gemm_entry");
	const char *rarg = s->rng ? " rng," : "";
	/* a generated epilogue sees C's rows: matrix z's start at z M */
	char *body = !entry ? NULL : s->batch && s->epi ?
	    krl_opt_fmt("\tfor (long z = blockIdx.y; z < batch; z += gridDim.y) "
	        "{\n\t\t%s ez = e;\n\t\tez.ep_r0 = z * (long)M;\n"
	        "\t\tgemm_t%d%d::%s(A + z * (long)M * K, B + z * "
	        "strideB,\n\t\t\tC + z * (long)M * N, M, N, K, %s, %s,%s ez);\n"
	        "\t}\n", s->epi, s->ta, s->tb, entry, lda, ldb, rarg) :
	    s->batch ?
	    krl_opt_fmt("\tfor (long z = blockIdx.y; z < batch; z += gridDim.y)\n"
	        "\t\tgemm_t%d%d::%s(A + z * (long)M * K, B + z * "
	        "strideB,\n\t\t\tC + z * (long)M * N, M, N, K, %s, %s,%s e);\n",
	        s->ta, s->tb, entry, lda, ldb, rarg) :
	    krl_opt_fmt("\tgemm_t%d%d::%s(A, B, C, M, N, K, %s, %s,%s e);\n",
	        s->ta, s->tb, entry, lda, ldb, rarg);
	char *head = krl_opt_fmt("extern \"C\" __global__ void %s(const float "
	    "*__restrict__ A, const float *__restrict__ B,\n\tfloat "
	    "*__restrict__ C, int M, int N, int K, long batch, long strideB%s",
	    s->kernel, s->rng ? ",\n\tconst int *__restrict__ rng" : "");
	free(entry);
	if (!body || !head)
		*device = NULL;
	else if (s->epi)
		*device = krl_opt_fmt(
		    "\n/* %s: C[z] = epilogue(%s @ %s) for each matrix z of the "
		    "batch (3xTF32), the epilogue %s. */\n"
		    "%s%s)\n{\n\tconst %s e = %s;\n%s}\n",
		    s->kernel, s->ta ? "A^T" : "A", s->tb ? "B^T" : "B", s->epi,
		    head, s->epi_params ? s->epi_params : "", s->epi,
		    s->epi_init ? s->epi_init : "{}", body);
	else
		*device = krl_opt_fmt(
		    "\n/* %s: C[z] = %s%s @ %s%s for each matrix z of the batch "
		    "(3xTF32). */\n"
		    "%s,\n\tfloat alpha, long diag)\n{\n"
		    "\tconst gemm_t%d%d::gemm_tri<%d> e = {%s, diag};\n%s}\n",
		    s->kernel, epi, s->ta ? "A^T" : "A", s->tb ? "B^T" : "B",
		    s->tri ? ")" : "", head, s->ta, s->tb, s->tri,
		    s->alpha ? "alpha" : "1.f", body);
	free(body);
	free(head);
	char *tail = s->epi ? krl_opt_fmt("%s", s->epi_args ? s->epi_args : "") :
	             krl_opt_fmt(", %s, %s", alpha, diag);
	*launch = !strideb || !tail ? NULL : krl_opt_fmt(
	    "launch %s grid=(cdiv(%s, 128) * cdiv(%s, 128), min(%s, 65535)) "
	    "block=(256) \\\n    smem=%u args(%s, %s, %s, %s, %s, %s, %s, "
	    "%s%s%s%s)\n",
	    s->kernel, s->m, s->n, batch, gemm_smem(s->ta, s->tb), s->a, s->b,
	    s->c, s->m, s->n, s->k, batch, strideb, s->rng ? ", " : "",
	    s->rng ? s->rng : "", tail);
	free(strideb);
	free(tail);
	if (!*device || !*launch) {
		free(*device);
		free(*launch);
		*device = *launch = NULL;
		return krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
	}
	return KRL_OK;
}
