/*
 * kernelrl bench: does cuDNN's graph API fuse a pointwise chain into an
 * fp32 convolution (forward, or backward-data as a transposed
 * convolution) on this GPU, in which layouts, and how fast is it against
 * the convolution alone? The facts behind docs/optimizer.md's "Level 2:
 * the convolution problems" (bench/results/2026-12-02-h200-level2-conv/).
 *
 *   cudnn_fusion_probe N C K H W R TRANSPOSED STRIDE CHAIN
 *
 * CHAIN: rb (relu, then a per-channel bias add), br (bias, relu), bt (bias,
 * tanh, times a scalar) or none. It runs, for each heuristics mode
 * (instant, fallback) and each of its first $PROBE_MAXCFG (default 12)
 * engine configs that build: the convolution alone in NCHW and in NHWC;
 * the fused graph in NCHW and NHWC; and the NHWC convolution with (b) an
 * NCHW output, (c) an NCHW input through an identity prologue and an NCHW
 * output, (d) the same with an NHWC output. Each line: the engine, its
 * numerical notes (0: tensor cores) and behaviour notes (3: runtime
 * compiled), the workspace, the plan's build time, the mean of 10 calls
 * and the largest difference from the unfused convolution with the chain
 * applied on the host (every 7th of the first 16 Mi elements). Timings
 * are back to back, no L2 flush: a probe, not the judge.
 */
#include <cuda_runtime.h>
#include <cudnn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdbool.h>

#define CK(x) do { cudnnStatus_t s_ = (x); if (s_) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudnnGetErrorString(s_)); return s_; } } while (0)
typedef cudnnBackendDescriptor_t BD;

static int64_t st_of(const int64_t *d, int nhwc, int64_t *s)
{
	if (!nhwc) { s[3] = 1; s[2] = d[3]; s[1] = d[2] * d[3]; s[0] = d[1] * d[2] * d[3]; }
	else { s[1] = 1; s[3] = d[1]; s[2] = d[3] * d[1]; s[0] = d[2] * d[3] * d[1]; }
	return 0;
}

static cudnnStatus_t tensor(BD *t, const int64_t *d, int nhwc, int64_t uid, int virt)
{
	int64_t s[4], al = 16;
	cudnnDataType_t dt = CUDNN_DATA_FLOAT;
	bool v = virt;
	st_of(d, nhwc, s);
	CK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, t));
	CK(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt));
	CK(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, d));
	CK(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, s));
	CK(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
	CK(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &al));
	CK(cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &v));
	CK(cudnnBackendFinalize(*t));
	return 0;
}

static cudnnStatus_t pw(BD *op, cudnnPointwiseMode_t m, BD x, BD b, BD y)
{
	BD pd;
	cudnnDataType_t ct = CUDNN_DATA_FLOAT;
	CK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &pd));
	CK(cudnnBackendSetAttribute(pd, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &m));
	CK(cudnnBackendSetAttribute(pd, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &ct));
	CK(cudnnBackendFinalize(pd));
	CK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, op));
	CK(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pd));
	CK(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x));
	if (b)
		CK(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b));
	CK(cudnnBackendSetAttribute(*op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y));
	CK(cudnnBackendFinalize(*op));
	return 0;
}

static int N, C, K, H, W, R, TR, S, maxcfg = 12;
static int XL, ZL = -1, PRO, MAPMODE; /* x layout (1 nhwc), z layout, prologue identity from NCHW x */
static int64_t xd[4], wd[4], yd[4], bd[4] = { 1, 0, 1, 1 }, sd[4] = { 1, 1, 1, 1 };

/* builds the graph for chain ch in layout nhwc; uids x=1 w=2 z=3 bias=4 scalar=5 */
static cudnnStatus_t build(cudnnHandle_t h, const char *ch, int nhwc, BD *graph)
{
	BD tx, tw, ty, tb, ts, t1, t2, tz, conv, ops[4];
	int nops = 0;
	int none = !strcmp(ch, "none");
	BD txin = NULL;
	if (PRO) {
		CK(tensor(&txin, xd, 0, 1, 0));
		CK(tensor(&tx, xd, 1, 13, 1));
	} else
		CK(tensor(&tx, xd, nhwc, 1, 0));
	CK(tensor(&tw, wd, nhwc, 2, 0));
	CK(tensor(&ty, yd, nhwc, none ? 3 : 10, !none));
	CK(tensor(&tb, bd, nhwc, 4, 0));
	CK(tensor(&ts, sd, nhwc, 5, 0));
	CK(tensor(&t1, yd, nhwc, 11, 1));
	CK(tensor(&t2, yd, nhwc, 12, 1));
	CK(tensor(&tz, yd, ZL >= 0 ? ZL : nhwc, 3, 0));
	int64_t nsp = 2, pad[2] = { 0, 0 }, str[2] = { S, S }, dil[2] = { 1, 1 };
	cudnnDataType_t ct = CUDNN_DATA_FLOAT;
	cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
	CK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &conv));
	CK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &ct));
	CK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode));
	CK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &nsp));
	CK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad));
	CK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad));
	CK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, str));
	CK(cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dil));
	CK(cudnnBackendFinalize(conv));
	float alpha = 1.f, beta = 0.f;
	BD cop;
	if (!TR) {
		CK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &cop));
		CK(cudnnBackendSetAttribute(cop, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tx));
		CK(cudnnBackendSetAttribute(cop, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tw));
		CK(cudnnBackendSetAttribute(cop, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ty));
		CK(cudnnBackendSetAttribute(cop, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv));
		CK(cudnnBackendSetAttribute(cop, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha));
		CK(cudnnBackendSetAttribute(cop, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta));
	} else {
		CK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR, &cop));
		CK(cudnnBackendSetAttribute(cop, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tx));
		CK(cudnnBackendSetAttribute(cop, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &tw));
		CK(cudnnBackendSetAttribute(cop, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ty));
		CK(cudnnBackendSetAttribute(cop, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv));
		CK(cudnnBackendSetAttribute(cop, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha));
		CK(cudnnBackendSetAttribute(cop, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA, CUDNN_TYPE_FLOAT, 1, &beta));
	}
	CK(cudnnBackendFinalize(cop));
	if (PRO)
		CK(pw(&ops[nops++], CUDNN_POINTWISE_IDENTITY, txin, NULL, tx));
	ops[nops++] = cop;
	if (!strcmp(ch, "br")) {
		CK(pw(&ops[nops++], CUDNN_POINTWISE_ADD, ty, tb, t1));
		CK(pw(&ops[nops++], CUDNN_POINTWISE_RELU_FWD, t1, NULL, tz));
	} else if (!strcmp(ch, "rb")) {
		CK(pw(&ops[nops++], CUDNN_POINTWISE_RELU_FWD, ty, NULL, t1));
		CK(pw(&ops[nops++], CUDNN_POINTWISE_ADD, t1, tb, tz));
	} else if (!strcmp(ch, "bt")) {
		CK(pw(&ops[nops++], CUDNN_POINTWISE_ADD, ty, tb, t1));
		CK(pw(&ops[nops++], CUDNN_POINTWISE_TANH_FWD, t1, NULL, t2));
		CK(pw(&ops[nops++], CUDNN_POINTWISE_MUL, t2, ts, tz));
	}
	CK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, graph));
	CK(cudnnBackendSetAttribute(*graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, nops, ops));
	CK(cudnnBackendSetAttribute(*graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h));
	CK(cudnnBackendFinalize(*graph));
	return 0;
}

static void engine_info(BD cfg, char *buf)
{
	BD eng;
	int64_t n = 0, gi = -1;
	cudnnBackendNumericalNote_t note[16];
	cudnnBackendBehaviorNote_t beh[16];
	buf[0] = 0;
	cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng);
	if (cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &eng))
		return;
	cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &gi);
	int p = sprintf(buf, "eng%lld notes", (long long)gi);
	if (!cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, 16, &n, note))
		for (int i = 0; i < n; i++)
			p += sprintf(buf + p, ",%d", note[i]);
	p += sprintf(buf + p, " beh");
	if (!cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, 16, &n, beh))
		for (int i = 0; i < n; i++)
			p += sprintf(buf + p, ",%d", beh[i]);
}

static void *dx, *dw, *dz, *db, *ds, *dws;
static size_t zbytes;

static double run_chain(cudnnHandle_t h, const char *ch, int nhwc, float *host_out, int verbose)
{
	BD graph;
	double best = 1e30;
	if (build(h, ch, nhwc, &graph)) {
		printf("  %s %s: graph not built\n", ch, nhwc ? "nhwc" : "nchw");
		return best;
	}
	cudnnBackendHeurMode_t modes[3] = { CUDNN_HEUR_MODE_INSTANT, CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK };
	const char *mname[3] = { "instant", "A", "fallback" };
	for (int m = 0; m < 3; m++) {
		if (m == 1) continue;
		BD heur;
		int64_t cnt = 0;
		cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur);
		cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
		cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &modes[m]);
		cudnnStatus_t st = cudnnBackendFinalize(heur);
		if (!st)
			st = cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &cnt, NULL);
		printf("  %s %s heur %s: %s, %lld configs\n", ch, nhwc ? "nhwc" : "nchw", mname[m], cudnnGetErrorString(st), (long long)cnt);
		if (st || cnt <= 0)
			continue;
		BD cfg[64];
		if (cnt > 64) cnt = 64;
		for (int i = 0; i < cnt; i++)
			cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg[i]);
		int64_t got = 0;
		cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, cnt, &got, cfg);
		for (int i = 0; i < got && i < maxcfg; i++) {
			char info[256];
			engine_info(cfg[i], info);
			BD plan;
			int64_t ws = 0, n = 0;
			cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan);
			cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
			cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg[i]);
			struct timespec t0, t1;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			st = cudnnBackendFinalize(plan);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			double fin = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
			if (st) {
				printf("    cfg %d %s: plan %s (%.0f ms)\n", i, info, cudnnGetErrorString(st), fin);
				continue;
			}
			cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, &ws);
			if (ws > (int64_t)1 << 32) { printf("    cfg %d: ws %lld too big\n", i, (long long)ws); continue; }
			BD vp;
			int64_t uids[5] = { 1, 2, 3, 4, 5 };
			void *ptrs[5] = { dx, dw, dz, db, ds };
			int nu = !strcmp(ch, "none") ? 3 : !strcmp(ch, "bt") ? 5 : 4;
			cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp);
			cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, nu, uids);
			cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, nu, ptrs);
			cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &dws);
			cudnnBackendFinalize(vp);
			cudaMemset(dz, 0, zbytes);
			st = cudnnBackendExecute(h, plan, vp);
			cudaError_t ce = cudaDeviceSynchronize();
			if (st || ce) {
				printf("    cfg %d %s: execute %s / %s\n", i, info, cudnnGetErrorString(st), cudaGetErrorString(ce));
				cudaGetLastError();
				continue;
			}
			float diff = -1;
			if (host_out) {
				static float *tmp;
				size_t cnt2 = zbytes / 4 < (1 << 24) ? zbytes / 4 : (1 << 24);
				if (!tmp) tmp = malloc(cnt2 * 4);
				cudaMemcpy(tmp, dz, cnt2 * 4, cudaMemcpyDeviceToHost);
				/* host_out is NCHW; z may be NHWC: compare by index mapping */
				diff = 0;
				for (size_t e = 0; e < cnt2; e += 7) {
					size_t ref_i = e;
					if (MAPMODE == 2) {
						/* z NCHW, ref NHWC: e = ((n*K + k)*OH + h)*OW + w */
						size_t ww = e % yd[3], r = e / yd[3];
						size_t hh = r % yd[2]; r /= yd[2];
						size_t k = r % yd[1], nn = r / yd[1];
						ref_i = ((nn * yd[2] + hh) * yd[3] + ww) * yd[1] + k;
					}
					if (MAPMODE == 1) {
						/* e = ((n*OH + h)*OW + w)*K + k */
						size_t k = e % yd[1], r = e / yd[1];
						size_t ww = r % yd[3]; r /= yd[3];
						size_t hh = r % yd[2], nn = r / yd[2];
						ref_i = ((nn * yd[1] + k) * yd[2] + hh) * yd[3] + ww;
					}
					float d0 = fabsf(tmp[e] - host_out[ref_i]);
					if (d0 > diff) diff = d0;
				}
			}
			cudaEvent_t e0, e1;
			cudaEventCreate(&e0); cudaEventCreate(&e1);
			cudnnBackendExecute(h, plan, vp);
			cudaEventRecord(e0, 0);
			for (int r = 0; r < 10; r++)
				cudnnBackendExecute(h, plan, vp);
			cudaEventRecord(e1, 0);
			cudaEventSynchronize(e1);
			float ms = 0;
			cudaEventElapsedTime(&ms, e0, e1);
			ms /= 10;
			if (ms < best) best = ms;
			printf("    cfg %d %s: ws %lld, finalize %.0f ms, %.4f ms, maxdiff %.3g\n", i, info, (long long)ws, fin, ms, diff);
			(void)verbose;
		}
	}
	return best;
}

int main(int argc, char **argv)
{
	if (argc < 10) {
		fprintf(stderr, "usage: cudnn_fusion_probe N C K H W R TRANSPOSED STRIDE rb|br|bt|none\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("PROBE_MAXCFG"))
		maxcfg = atoi(getenv("PROBE_MAXCFG"));
	N = atoi(argv[1]); C = atoi(argv[2]); K = atoi(argv[3]); H = atoi(argv[4]); W = atoi(argv[5]);
	R = atoi(argv[6]); TR = atoi(argv[7]); S = atoi(argv[8]);
	const char *chain = argv[9];
	int OH, OW;
	if (!TR) { OH = (H - R) / S + 1; OW = (W - R) / S + 1; }
	else { OH = (H - 1) * S + R; OW = (W - 1) * S + R; }
	/* forward: x [N,C,H,W], w [K,C,R,R], y [N,K,OH,OW]
	 * transposed (dgrad of a conv mapping y->x): dy = x [N,C,H,W], w [C,K,R,R], dx = y [N,K,OH,OW] */
	xd[0] = N; xd[1] = C; xd[2] = H; xd[3] = W;
	if (!TR) { wd[0] = K; wd[1] = C; } else { wd[0] = C; wd[1] = K; }
	wd[2] = R; wd[3] = R;
	yd[0] = N; yd[1] = K; yd[2] = OH; yd[3] = OW;
	bd[1] = K;
	size_t xb = (size_t)N * C * H * W * 4, wb = (size_t)K * C * R * R * 4;
	zbytes = (size_t)N * K * OH * OW * 4;
	printf("problem N=%d C=%d K=%d %dx%d R=%d S=%d %s -> %dx%d, chain %s; y %.2f GB\n", N, C, K, H, W, R, S, TR ? "dgrad" : "fprop", OH, OW, chain, zbytes / 1e9);
	cudnnHandle_t h;
	cudnnCreate(&h);
	cudaMalloc(&dx, xb); cudaMalloc(&dw, wb); cudaMalloc(&dz, zbytes); cudaMalloc(&db, K * 4); cudaMalloc(&ds, 4);
	cudaMalloc(&dws, (size_t)1 << 32);
	float *hx = malloc(xb), *hw = malloc(wb), hb[4096], hs = 0.7f;
	srand(1);
	for (size_t i = 0; i < xb / 4; i++) hx[i] = (rand() / (float)RAND_MAX) * 2 - 1;
	for (size_t i = 0; i < wb / 4; i++) hw[i] = ((rand() / (float)RAND_MAX) * 2 - 1) * 0.05f;
	for (int i = 0; i < K; i++) hb[i] = (rand() / (float)RAND_MAX) * 2 - 1;
	cudaMemcpy(dx, hx, xb, cudaMemcpyHostToDevice);
	cudaMemcpy(dw, hw, wb, cudaMemcpyHostToDevice);
	cudaMemcpy(db, hb, K * 4, cudaMemcpyHostToDevice);
	cudaMemcpy(ds, &hs, 4, cudaMemcpyHostToDevice);
	float *refc = malloc(zbytes), *refh = malloc(zbytes);
	size_t total = zbytes / 4, plane = (size_t)OH * OW;
	double tnone = run_chain(h, "none", 0, NULL, 0);
	cudaMemcpy(refc, dz, zbytes, cudaMemcpyDeviceToHost);
	double tnone_h = run_chain(h, "none", 1, NULL, 0);
	cudaMemcpy(refh, dz, zbytes, cudaMemcpyDeviceToHost);
	for (size_t i = 0; i < total; i++) {
		for (int q = 0; q < 2; q++) {
			float *ref = q ? refh : refc;
			float v = ref[i], b = q ? hb[i % K] : hb[(i / plane) % K];
			if (!strcmp(chain, "br")) v = fmaxf(v + b, 0.f);
			else if (!strcmp(chain, "rb")) v = fmaxf(v, 0.f) + b;
			else if (!strcmp(chain, "bt")) v = tanhf(v + b) * hs;
			ref[i] = v;
		}
	}
	printf("== fused, all NCHW\n");
	double tfc = run_chain(h, chain, 0, refc, 0);
	printf("== fused, all NHWC\n");
	double tfh = run_chain(h, chain, 1, refh, 0);
	printf("== b: x NHWC, conv NHWC, z NCHW\n");
	ZL = 0; PRO = 0; MAPMODE = 2;
	double tb = run_chain(h, chain, 1, refh, 0);
	printf("== c: x NCHW through an identity prologue, conv NHWC, z NCHW\n");
	ZL = 0; PRO = 1; MAPMODE = 0;
	double tc = run_chain(h, chain, 1, refc, 0);
	printf("== d: x NCHW through an identity prologue, conv NHWC, z NHWC\n");
	ZL = 1; PRO = 1; MAPMODE = 1;
	double td = run_chain(h, chain, 1, refc, 0);
	printf("SUMMARY %s (best ms; 1e30: no plan): conv nchw %.4f, conv nhwc %.4f, "
	       "fused nchw %.4g, fused nhwc %.4g, b %.4g, c %.4g, d %.4g\n", chain,
	       tnone, tnone_h, tfc, tfh, tb, tc, td);
	return 0;
}
