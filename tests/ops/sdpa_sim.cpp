/*
 * sdpa's kernels (src/ops/norm/sdpa.cuh) on the CPU stand-in for the CUDA
 * execution model (tests/opt/cudasim.h: a block's threads are coroutines,
 * run in a shuffled order between barriers and shuffles, so a missing
 * __syncthreads tends to give wrong results here too). Built and run by
 * tests/ops/test_sdpa_sim.c with the C++ compiler:
 *
 *   g++ -O1 -I tests/opt -I src tests/ops/sdpa_sim.cpp && ./a.out
 *
 * Each case draws q, k, v (a fixed generator), runs the thread kernel
 * (every width it rounds to, one and two rows a thread, partial query
 * tiles, key tiles and groups of four keys, L != S both ways, several
 * heads), the tiled kernel (every width it rounds to, partial tiles,
 * L != S), the short kernel (a few queries, odd widths) or the rows
 * kernel (short sequences, odd widths), plain,
 * causal, relu and both, and checks every output element against
 * attention computed here in double: |o - r| <= 1e-5 + 1e-4 |r|. Prints
 * one line per case; exits 1 when an element is off.
 */
#include "cudasim.h"

#define SDPA_DYN_SMEM(name) static float4 name[8192]
#include "ops/norm/sdpa.cuh"

#include <vector>

static uint64_t g_state = 0x2545f4914f6cdd1dull;

/* uniform(-1.7, 1.7): about a normal's spread */
static float draw(void)
{
	g_state = g_state * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((double)(g_state >> 11) / 9007199254740992.0 * 3.4 - 1.7);
}

/* o = weights(q k^T * scale) v in double: the softmax, or relu's weights;
 * causal hides key j from query i where j > i. */
static void attention(const std::vector<float> &q, const std::vector<float> &k,
                      const std::vector<float> &v, std::vector<double> &o,
                      int bh, int l, int s, int e, int ev, double scale,
                      int causal, int relu)
{
	std::vector<double> w(s);
	for (int z = 0; z < bh; z++)
		for (int i = 0; i < l; i++) {
			int send = causal && i + 1 < s ? i + 1 : s;
			double mx = -INFINITY, sum = 0;
			for (int j = 0; j < send; j++) {
				double dot = 0;
				for (int t = 0; t < e; t++)
					dot += (double)q[((size_t)z * l + i) * e + t] *
					       k[((size_t)z * s + j) * e + t];
				w[j] = dot * scale;
				mx = w[j] > mx ? w[j] : mx;
			}
			for (int j = 0; j < send; j++) {
				w[j] = relu ? (w[j] > 0 ? w[j] : 0) : exp(w[j] - mx);
				sum += w[j];
			}
			for (int c = 0; c < ev; c++) {
				double acc = 0;
				for (int j = 0; j < send; j++)
					acc += w[j] * v[((size_t)z * s + j) * ev + c];
				o[((size_t)z * l + i) * ev + c] = relu ? acc : acc / sum;
			}
		}
}

enum kern { ROWS, TILED, THREAD, SHORT };

struct kcase {
	int bh, l, s, e, ev;
	kern kn;                 /* sdpa_rows<32>, sdpa_tiled, sdpa_thread,
	                            sdpa_short */
};

static const char *const kern_name[] = { "rows  ", "tiled ", "thread",
                                         "short " };

template <int D, int DV>
static void run_tiled(const float *q, const float *k, const float *v, float *o,
                      const kcase &c, float scale, int causal, int relu)
{
	unsigned tiles = (unsigned)((c.l + TL_BQ - 1) / TL_BQ);
	sim::launch((unsigned)c.bh, tiles, 1, TL_THREADS, 1, 1, [&] {
		sdpa_tiled<D, DV>(q, k, v, o, c.l, c.s, c.e, c.ev, scale,
		                  causal, relu);
	});
}

/* R rows a thread, as sdpa.cu's thread_dispatch picks them */
template <int D, int DV, int R>
static void run_thread(const float *q, const float *k, const float *v,
                       float *o, const kcase &c, float scale, int causal,
                       int relu)
{
	unsigned tiles = (unsigned)((c.l + TH_THREADS * R - 1) /
	                            (TH_THREADS * R));
	sim::launch((unsigned)c.bh, tiles, 1, TH_THREADS, 1, 1, [&] {
		sdpa_thread<D, DV, R>(q, k, v, o, c.l, c.s, c.e, c.ev, scale,
		                      causal, relu);
	});
}

static int run_case(const kcase &c, float scale, int causal, int relu)
{
	size_t nq = (size_t)c.bh * c.l * c.e, nk = (size_t)c.bh * c.s * c.e;
	size_t nv = (size_t)c.bh * c.s * c.ev, no = (size_t)c.bh * c.l * c.ev;
	std::vector<float> q(nq), k(nk), v(nv), o(no, NAN);
	std::vector<double> r(no);
	for (auto &x : q)
		x = draw();
	for (auto &x : k)
		x = draw();
	for (auto &x : v)
		x = draw();
	if (c.kn == THREAD) {
		int d = (c.e + 31) / 32, dv = (c.ev + 31) / 32;
#define SIM_CASE(a, b, r)                                                  \
	else if (d == (a) / 32 && dv == (b) / 32)                              \
		run_thread<a, b, r>(q.data(), k.data(), v.data(), o.data(), c, \
		                    scale, causal, relu);
		if (0) {
		}
		SIM_CASE(32, 32, 2) SIM_CASE(32, 64, 1) SIM_CASE(64, 32, 1)
		SIM_CASE(64, 64, 1)
		else {
			printf("no instantiation for e %d ev %d\n", c.e, c.ev);
			return 1;
		}
#undef SIM_CASE
	} else if (c.kn == TILED) {
		int d = (c.e + 31) / 32, dv = (c.ev + 31) / 32;
#define SIM_CASE(a, b)                                                     \
	else if (d == (a) / 32 && dv == (b) / 32)                              \
		run_tiled<a, b>(q.data(), k.data(), v.data(), o.data(), c,     \
		                scale, causal, relu);
		if (0) {
		}
		SIM_CASE(32, 32) SIM_CASE(32, 64) SIM_CASE(64, 64)
		SIM_CASE(96, 96) SIM_CASE(96, 64) SIM_CASE(128, 128)
		else {
			printf("no instantiation for e %d ev %d\n", c.e, c.ev);
			return 1;
		}
#undef SIM_CASE
	} else if (c.kn == SHORT) {
		/* as sdpa.cu's short_launch: four warps a block, widths
		 * rounded up to 32, 64 or 128 */
		int64_t rows = (int64_t)c.bh * c.l;
		unsigned blocks = (unsigned)((rows + 3) / 4);
		int w = c.e > c.ev ? c.e : c.ev;
#define SIM_SHORT(n)                                                       \
	sim::launch(blocks, 1, 1, SH_THREADS, 1, 1, [&] {                      \
		sdpa_short<n>(q.data(), k.data(), v.data(), o.data(), rows,    \
		              c.l, c.s, c.e, c.ev, scale, causal, relu);       \
	})
		if (w <= 32)
			SIM_SHORT(1);
		else if (w <= 64)
			SIM_SHORT(2);
		else
			SIM_SHORT(4);
#undef SIM_SHORT
	} else {
		unsigned tiles = (unsigned)((c.l + 31) / 32);
		sim::launch(tiles, (unsigned)c.bh, 1, SD_THREADS, 1, 1, [&] {
			sdpa_rows<32>(q.data(), k.data(), v.data(), o.data(), c.l,
			              c.s, c.e, c.ev, scale, causal, relu);
		});
	}
	attention(q, k, v, r, c.bh, c.l, c.s, c.e, c.ev, scale, causal, relu);
	size_t bad = 0, first = 0;
	double worst = 0;
	for (size_t i = 0; i < no; i++) {
		double err = fabs((double)o[i] - r[i]);
		if (!(err <= 1e-5 + 1e-4 * fabs(r[i]))) {
			if (!bad)
				first = i;
			bad++;
		}
		if (err > worst || err != err)
			worst = err;
	}
	printf("%s bh %d l %d s %d e %d ev %d scale %g causal %d relu %d: "
	       "worst error %.3g", kern_name[c.kn], c.bh, c.l, c.s, c.e, c.ev,
	       (double)scale, causal, relu, worst);
	if (bad)
		printf(", %zu of %zu off (first at %zu: %g, want %g)", bad, no,
		       first, (double)o[first], r[first]);
	printf("\n");
	return bad != 0;
}

int main(void)
{
	static const kcase cases[] = {
		/* two rows a thread: 2 query tiles of 256, the last partial
		 * and odd (a thread's second row past L); 10 key tiles of 32,
		 * the last of 12 keys */
		{ 2, 301, 300, 32, 32, THREAD },
		/* one row a thread, L > S: queries past the keys; S not a
		 * multiple of 4 (a partial group) */
		{ 2, 200, 150, 64, 64, THREAD },
		{ 1, 150, 333, 8, 24, THREAD },    /* S > L, widths below 32 */
		{ 1, 140, 90, 60, 20, THREAD },    /* D 64, DV 32 */
		{ 1, 129, 130, 12, 64, THREAD },   /* D 32, DV 64 */
		{ 1, 257, 64, 48, 40, THREAD },    /* one key tile and a half:
		                                      S = 64, the fewest */
		{ 2, 130, 130, 32, 32, TILED },    /* 3 query and key tiles, the
		                                      last partial */
		{ 1, 64, 200, 64, 64, TILED },     /* S > L */
		{ 1, 100, 70, 128, 128, TILED },   /* L > S: queries past the
		                                      keys */
		{ 1, 77, 77, 20, 60, TILED },      /* widths below 32 and 64 */
		{ 1, 130, 150, 96, 36, TILED },    /* a float2 column group */
		{ 1, 96, 96, 96, 96, TILED },      /* 96: float4 and float2
		                                      groups */
		/* the short kernel: 28's heads (2 queries, 2 keys, 64
		 * columns) and a partial last block of warps; L > S (causal
		 * rows past the keys); widths below 32, unequal, odd; 128
		 * columns; one query over 256 keys */
		{ 7, 2, 2, 64, 64, SHORT },
		{ 3, 8, 5, 20, 100, SHORT },
		{ 2, 3, 7, 5, 3, SHORT },
		{ 2, 5, 40, 128, 128, SHORT },
		{ 1, 1, 256, 33, 64, SHORT },
		{ 2, 40, 40, 7, 9, ROWS },         /* the rows kernel */
		{ 1, 20, 90, 64, 64, ROWS },
	};
	int fail = 0;
	for (const kcase &c : cases) {
		fail |= run_case(c, 0.2f, 0, 0);
		fail |= run_case(c, 0.2f, 1, 0);
		fail |= run_case(c, 0.1f, 0, 1);
		fail |= run_case(c, 0.1f, 1, 1);
	}
	printf("%s\n", fail ? "FAIL" : "all cases ok");
	return fail;
}
