/*
 * offset_bn: on the CPU, how far level 2's 97 (Linear, training batch
 * norm over the batch, bias, swish) computed in fp32 lands from float64
 * on the judge's `offset` stress draw: x = normal(0, 1) + OFF (1000
 * spreads), so each column of the GEMM's output carries a shift of about
 * 577 that the batch norm then cancels. The fp32 GEMM is one FMA chain
 * over k (an SGEMM thread's order); the batch norm's statistics are
 * taken in double here (their rounding is small next to the GEMM's).
 * Prints the largest |fp32 - float64| of the outputs, their rms, and how
 * many pass the draw's allowance (atol 3e-5 x the judge's factor, about
 * 716 on the H100's draws: 0.0214, + 1e-4 |y|).
 *
 *   cc -O2 -o offset_bn offset_bn.c -lm && ./offset_bn [columns=64] [OFF=1000]
 *
 * 2026-12-07, 200 columns x 1024 rows: max 0.0143, rms 1.1e-3, none
 * past the allowance; the GPU's 3xTF32 candidates differ from the fp32
 * reference by 0.032-0.040 on 8.4M outputs
 * (bench/results/2026-12-07-h100-level2-a3a91b6/README.md).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define K 8192
#define M 1024

static uint64_t rs = 88172645463325252ull;

static double unif(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (double)(rs >> 11) * (1.0 / 9007199254740992.0);
}

static double normal(void)
{
	double a = unif() + 1e-300, b = unif();
	return sqrt(-2 * log(a)) * cos(6.283185307179586 * b);
}

int main(int argc, char **argv)
{
	int cols = argc > 1 ? atoi(argv[1]) : 64;
	double off = argc > 2 ? atof(argv[2]) : 1000;
	const double allow = 0.0214, rtol = 1e-4, eps = 1e-5;
	float *x = malloc(sizeof(float) * (size_t)M * K);
	static float w[K], tf[M];
	static double td[M];
	if (!x)
		return 1;
	for (size_t i = 0; i < (size_t)M * K; i++)
		x[i] = (float)(normal() + off);
	double worst = 0, sq = 0;
	long n = 0, past = 0;
	for (int c = 0; c < cols; c++) {
		for (int k = 0; k < K; k++)
			w[k] = (float)((unif() * 2 - 1) * 0.0110485);
		float b = (float)((unif() * 2 - 1) * 0.0110485);
		double bw = 1 + 0.5 * normal(), bb = 0.5 * normal(), bias = 0.3;
		for (int m = 0; m < M; m++) {
			const float *xm = x + (size_t)m * K;
			float a = 0;
			double d = 0;
			for (int k = 0; k < K; k++) {
				a = fmaf(xm[k], w[k], a);
				d += (double)xm[k] * w[k];
			}
			tf[m] = a + b;
			td[m] = d + b;
		}
		double mf = 0, md = 0, vf = 0, vd = 0;
		for (int m = 0; m < M; m++) {
			mf += tf[m];
			md += td[m];
		}
		mf /= M;
		md /= M;
		for (int m = 0; m < M; m++) {
			vf += (tf[m] - mf) * (tf[m] - mf);
			vd += (td[m] - md) * (td[m] - md);
		}
		vf /= M;
		vd /= M;
		for (int m = 0; m < M; m++) {
			float uf = (float)((tf[m] - mf) / sqrt(vf + eps) * bw + bb + bias);
			float yf = uf / (1 + expf(-uf));
			double ud = (td[m] - md) / sqrt(vd + eps) * bw + bb + bias;
			double yd = ud / (1 + exp(-ud)), e = fabs(yf - yd);
			if (e > worst)
				worst = e;
			sq += e * e;
			past += e > allow + rtol * fabs(yd);
			n++;
		}
	}
	printf("%ld outputs, offset %g: max |fp32 - float64| %.4g, rms %.3g, "
	       "past the draw's allowance: %ld\n", n, off, worst, sqrt(sq / n), past);
	free(x);
	return 0;
}
