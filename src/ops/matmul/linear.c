/*
 * kernelrl: the linear op's GPU driver (nn.Linear with a bias), as PyTorch
 * eager runs F.linear(x, w, b) for a contiguous x of rank >= 2: the
 * leading dims flattened to M rows, then addmm(b, x, w.t()), whose fp32
 * path (allow_tf32 = False) is one cublasLtMatmul with
 * CUBLASLT_EPILOGUE_BIAS, CUBLAS_COMPUTE_32F and the heuristic's first
 * algorithm among those fitting PyTorch's 1 MiB cuBLASLt workspace
 * (gemm_and_bias; KRL_LINEAR_LT_WORKSPACE). w [N, K] is consumed transposed in place:
 * it is the gemm engine's b with tb = 1, no copy.
 *
 * addmm takes the epilogue only when both operands have more than one row
 * and column (M, K, N > 1; PyTorch's comment: cuBLASLt's heuristic failed
 * on a bias epilogue with a dim of 1). Otherwise it copies the bias expanded to [M, N] into y
 * and runs the GEMM with beta = 1; so do we (krl_k_bias_rows, then the
 * engine with beta = 1). We also take that path for a bias not aligned to
 * 16 bytes, which cuBLASLt's epilogue does not accept (PyTorch's
 * parameters are always aligned; a plan's view may not be).
 *
 * The GEMM itself, its handle, workspace and plan cache are gemm.c's
 * (krl_matmul_lt); `algo` picks the heuristic's K-th result, as for gemm.
 */
#include <stdint.h>
#include <string.h>

#include "ops/matmul/matmul.h"
#include "ops/ops_int.h"
#include "runtime/cudacheck.h"

KRL_RUN(linear)
{
	const krl_tensor *x = &in[0], *w = &in[1], *b = &in[2];
	krl_lt_gemm g;
	memset(&g, 0, sizeof g);
	g.op = "linear";
	g.tb = 1;
	g.algo = (int)krl_attrs_get(a, "algo", 0);
	g.alpha = 1.f;
	g.m = krl_ops_prod(x, 0, x->ndim - 1);
	g.k = x->dim[x->ndim - 1];
	g.n = w->dim[0];
	g.batch = 1;
	g.a = x->data;
	g.b = w->data;
	g.c = out[0].data;
	if (g.m == 0 || g.n == 0)
		return KRL_OK;
	int epilogue = g.m > 1 && g.k > 1 && g.n > 1 &&
	               ((uintptr_t)b->data & 15) == 0;
	if (epilogue) {
		g.bias = b->data;
		g.beta = 0.f;
		g.ws_cap = KRL_LINEAR_LT_WORKSPACE;
		return krl_matmul_lt(c, &g, d);
	}
	CUDA_TRY(d, krl_k_bias_rows((const float *)b->data,
	                             (float *)out[0].data, g.m, g.n, c->stream));
	if (g.k == 0)
		return KRL_OK;   /* y = b: cuBLAS's k = 0 only scales c by beta */
	g.beta = 1.f;
	return krl_matmul_lt(c, &g, d);
}
