/*
 * A CPU stand-in for the CUDA execution model, enough to run the code
 * generator's kernels (src/opt/codegen*.c) in tests on machines without a
 * GPU (tests/opt/test_codegen_sim.c compiles a candidate with g++ against
 * this header).
 *
 * Blocks run one after another; the threads of a block are coroutines
 * (ucontext) on one OS thread. A thread runs until it reaches
 * __syncthreads() (all threads of the block must arrive) or a warp shuffle
 * (all 32 lanes of its warp must arrive), then the next thread runs; the
 * order of threads is shuffled between rounds, so code that races on
 * shared memory tends to give wrong results here too. __shared__ is
 * `static`: one copy, reused by the block that runs. Deadlocks (a barrier
 * some threads never reach) abort with a message.
 *
 * The test precompiles this header once per process (g++'s .gch) and
 * compiles each distinct candidate once, so keep it free of anything that
 * depends on the candidate.
 */
#ifndef KRL_CUDASIM_H
#define KRL_CUDASIM_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <cmath>
#include <type_traits>
#include <utility>

using std::isnan;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __shared__ static

struct dim3 {
	unsigned x, y, z;
};
typedef dim3 uint3;

struct float4 {
	float x, y, z, w;
};
struct float2 {
	float x, y;
};

static inline float4 make_float4(float a, float b, float c, float d)
{
	float4 r = { a, b, c, d };
	return r;
}

static inline float2 make_float2(float a, float b)
{
	float2 r = { a, b };
	return r;
}

static inline float rsqrtf(float x)
{
	return 1.f / sqrtf(x);
}

/* The SFU's exp and log and the approximate division (math=fast,
 * src/opt/pwop.c) as the hardware computes them: exp through exp2 of x
 * log2(e) in fp32 (its error grows with |x| as __expf's does), log
 * through log2, the division through the reciprocal. */
/* (glibc declares __expf and __logf itself: the candidates' calls are
 * renamed) */
static inline float krl_sim_expf(float x)
{
	return exp2f(x * 1.44269504f);
}
#define __expf krl_sim_expf

static inline float krl_sim_logf(float x)
{
	return log2f(x) * 0.693147181f;
}
#define __logf krl_sim_logf

static inline float __fdividef(float a, float b)
{
	return a * (1.f / b);
}

static inline float __int_as_float(int i)
{
	float f;
	memcpy(&f, &i, sizeof f);
	return f;
}

static inline float __uint_as_float(unsigned u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static inline unsigned __float_as_uint(float f)
{
	unsigned u;
	memcpy(&u, &f, sizeof u);
	return u;
}

static inline int __ffsll(long long x)
{
	return __builtin_ffsll(x);
}

static inline int __ffs(int x)
{
	return __builtin_ffs(x);
}

static inline int __clz(int x)
{
	return x ? __builtin_clz((unsigned)x) : 32;
}

static inline unsigned __umulhi(unsigned a, unsigned b)
{
	return (unsigned)(((unsigned long long)a * b) >> 32);
}

static inline float exp2f_(float x)
{
	return exp2f(x);
}

template <class A, class B>
static inline auto min(A a, B b) -> decltype(a + b)
{
	return a < b ? a : b;
}

template <class A, class B>
static inline auto max(A a, B b) -> decltype(a + b)
{
	return a > b ? a : b;
}

namespace sim {

enum { RUN, AT_BARRIER, AT_WARP, DONE };

struct thr {
	ucontext_t ctx;
	dim3 tid;
	int state;
	int lane, warp;
	char *stack;
};

static const size_t STACK = 256 * 1024;
static thr *threads;
static int nthreads, capthreads;
static thr *cur;
static ucontext_t main_ctx;
static dim3 bid, bdim, gdim;
/* The kernel call of the launch under way: body(body_arg) (a function
 * pointer, not std::function, whose header was most of this one's
 * compile time) */
static void (*body)(void *);
static void *body_arg;
static unsigned long long slots[32][32];
static const uint64_t RNG_SEED = 88172645463325252ull;
static uint64_t rng = RNG_SEED;

static inline uint64_t xorshift()
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static inline void yield(int state)
{
	cur->state = state;
	swapcontext(&cur->ctx, &main_ctx);
}

static void entry()
{
	body(body_arg);
	cur->state = DONE;
}

/* Puts the thread-order generator back at its seed: a shared object that
 * is loaded again (or still loaded) then runs a kernel in the same order
 * as a freshly loaded one. */
static inline void reset()
{
	rng = RNG_SEED;
}

/* Runs every thread of the block at bid to its end. */
static void run_block()
{
	for (int i = 0; i < nthreads; i++) {
		thr *t = &threads[i];
		getcontext(&t->ctx);
		t->ctx.uc_stack.ss_sp = t->stack;
		t->ctx.uc_stack.ss_size = STACK;
		t->ctx.uc_link = &main_ctx;
		t->state = RUN;
		makecontext(&t->ctx, entry, 0);
	}
	int order[1024], prio[32];
	for (int i = 0; i < nthreads; i++)
		order[i] = i;
	/* Between two block barriers (an epoch), either every warp runs in
	 * turn (lockstep), or one warp at a time runs as far as it can, in a
	 * random order of warps: code that lets one warp overwrite shared
	 * memory another has not read yet gets wrong values then. */
	int solo = 0;
	for (int w = 0; w < 32; w++)
		prio[w] = w;
	for (;;) {
		for (int i = nthreads - 1; i > 0; i--) {
			int j = (int)(xorshift() % (uint64_t)(i + 1));
			int k = order[i];
			order[i] = order[j];
			order[j] = k;
		}
		int pick = -1;
		if (solo) {
			for (int i = 0; i < nthreads; i++)
				if (threads[i].state == RUN &&
				    (pick < 0 || prio[threads[i].warp] < prio[pick]))
					pick = threads[i].warp;
		}
		int ran = 0;
		for (int i = 0; i < nthreads; i++) {
			thr *t = &threads[order[i]];
			if (t->state != RUN || (pick >= 0 && t->warp != pick))
				continue;
			cur = t;
			swapcontext(&main_ctx, &t->ctx);
			ran = 1;
		}
		int done = 1, barrier = 1;
		for (int i = 0; i < nthreads; i++) {
			if (threads[i].state != DONE)
				done = 0;
			if (threads[i].state != DONE && threads[i].state != AT_BARRIER)
				barrier = 0;
		}
		if (done)
			return;
		int released = 0;
		if (barrier) {
			for (int i = 0; i < nthreads; i++)
				if (threads[i].state == AT_BARRIER) {
					threads[i].state = RUN;
					released = 1;
				}
			/* a new epoch */
			solo = (int)(xorshift() & 1);
			for (int w = 31; w > 0; w--) {
				int j = (int)(xorshift() % (uint64_t)(w + 1));
				int k = prio[w];
				prio[w] = prio[j];
				prio[j] = k;
			}
		}
		for (int w = 0; w * 32 < nthreads; w++) {
			int all = 1, any = 0;
			for (int l = 0; l < 32 && w * 32 + l < nthreads; l++) {
				int s = threads[w * 32 + l].state;
				if (s == AT_WARP)
					any = 1;
				else
					all = 0;
			}
			if (any && !all) {
				for (int l = 0; l < 32 && w * 32 + l < nthreads; l++)
					if (threads[w * 32 + l].state == DONE) {
						fprintf(stderr, "cudasim: a warp shuffle with an "
						        "exited lane (block %u, warp %d)\n", bid.x, w);
						abort();
					}
			}
			if (any && all) {
				for (int l = 0; l < 32 && w * 32 + l < nthreads; l++)
					threads[w * 32 + l].state = RUN;
				released = 1;
			}
		}
		if (!released && !ran) {
			fprintf(stderr, "cudasim: deadlock in block %u (threads wait "
			        "at barriers others never reach)\n", bid.x);
			abort();
		}
	}
}

static void launch_(unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                    unsigned by, unsigned bz, void (*fn)(void *), void *arg)
{
	nthreads = (int)(bx * by * bz);
	if (nthreads > 1024 || nthreads < 1) {
		fprintf(stderr, "cudasim: block of %d threads\n", nthreads);
		abort();
	}
	if (nthreads > capthreads) {
		thr *t = (thr *)realloc(threads, (size_t)nthreads * sizeof *t);
		if (!t)
			abort();
		threads = t;
		for (int i = capthreads; i < nthreads; i++)
			threads[i].stack = (char *)malloc(STACK);
		capthreads = nthreads;
	}
	for (int i = 0; i < nthreads; i++) {
		threads[i].tid.x = (unsigned)i % bx;
		threads[i].tid.y = (unsigned)i / bx % by;
		threads[i].tid.z = (unsigned)i / (bx * by);
		threads[i].lane = i % 32;
		threads[i].warp = i / 32;
	}
	gdim.x = gx;
	gdim.y = gy;
	gdim.z = gz;
	bdim.x = bx;
	bdim.y = by;
	bdim.z = bz;
	body = fn;
	body_arg = arg;
	for (unsigned z = 0; z < gz; z++)
		for (unsigned y = 0; y < gy; y++)
			for (unsigned x = 0; x < gx; x++) {
				bid.x = x;
				bid.y = y;
				bid.z = z;
				run_block();
			}
}

/* Launches f() (a kernel call) on a gx x gy x gz grid of bx x by x bz
 * blocks. */
template <class F>
static inline void launch(unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                          unsigned by, unsigned bz, F f)
{
	launch_(gx, gy, gz, bx, by, bz,
	        [](void *p) { (*static_cast<F *>(p))(); }, &f);
}

/* A shuffle: every lane posts its value, waits for the warp, reads its
 * source lane's, and waits again before the slots can be reused. */
template <class T>
static inline T shfl(T v, int src)
{
	unsigned long long u = 0;
	memcpy(&u, &v, sizeof v);
	slots[cur->warp][cur->lane] = u;
	yield(AT_WARP);
	T r = v;
	if (src >= 0 && src < 32)
		memcpy(&r, &slots[cur->warp][src], sizeof r);
	yield(AT_WARP);
	return r;
}

template <class... P, size_t... I>
static inline void call_(void (*f)(P...), void **a, std::index_sequence<I...>)
{
	f(*static_cast<typename std::remove_cv<
	      typename std::remove_reference<P>::type>::type *>(a[I])...);
}

template <class... P>
static inline void call(void (*f)(P...), void **a)
{
	call_(f, a, std::index_sequence_for<P...>{});
}

} /* namespace sim */

#define threadIdx (sim::cur->tid)
#define blockIdx (sim::bid)
#define blockDim (sim::bdim)
#define gridDim (sim::gdim)

static inline void __syncthreads()
{
	sim::yield(sim::AT_BARRIER);
}

/* Blocks run one after another, each thread to a barrier at a time: a
 * fence has nothing to order, and an atomic nothing to race with. */
static inline void __threadfence() {}

static inline int atomicAdd(int *p, int v)
{
	int o = *p;
	*p = o + v;
	return o;
}

static inline int atomicMin(int *p, int v)
{
	int o = *p;
	*p = v < o ? v : o;
	return o;
}

static inline int atomicMax(int *p, int v)
{
	int o = *p;
	*p = v > o ? v : o;
	return o;
}

template <class T>
static inline T __shfl_xor_sync(unsigned, T v, int m)
{
	return sim::shfl(v, sim::cur->lane ^ m);
}

template <class T>
static inline T __shfl_up_sync(unsigned, T v, int d)
{
	int s = sim::cur->lane - d;
	return sim::shfl(v, s < 0 ? sim::cur->lane : s);
}

template <class T>
static inline T __shfl_down_sync(unsigned, T v, int d)
{
	int s = sim::cur->lane + d;
	return sim::shfl(v, s > 31 ? sim::cur->lane : s);
}

template <class T>
static inline T __shfl_sync(unsigned, T v, int s)
{
	return sim::shfl(v, s);
}

#endif
