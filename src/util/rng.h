/*
 * splitmix64, the one 64-bit generator and mixer of kernelrl (Steele, Lea
 * and Flood, "Fast splittable pseudorandom number generators", OOPSLA
 * 2014, with Stafford's "Mix13" finaliser, as in Java's SplittableRandom).
 * Private to libkrl; usable from C and from CUDA (host and device code:
 * src/runtime/rng.h draws the test data with it on both sides).
 *
 * The generator's state is a 64-bit word s; each step adds the odd
 * constant KRL_SPLITMIX64_GAMMA to s and returns the finaliser of the new
 * s. Output c (c = 0, 1, ...) of the stream started at state s is
 * therefore krl_splitmix64_mix(s + (c + 1) * GAMMA), and can be read
 * directly (krl_splitmix64_at) without stepping.
 *
 * Every seeded draw goes through here: the judge's own choices
 * (krl_rng), the per-buffer seeds and input values of the checks, hidden
 * shape sets, training order, search seeds. The arithmetic is frozen: a
 * different sequence would change the inputs behind every verdict.
 * tests/util/test_rng.c pins known outputs (including the published
 * values for seed 0 and 1234567).
 */
#ifndef KRL_UTIL_RNG_H
#define KRL_UTIL_RNG_H

#include <stdint.h>

/* Inline in C, host and device inline under nvcc. */
#ifndef KRL_HD
#ifdef __CUDACC__
#define KRL_HD static __host__ __device__ __forceinline__
#else
#define KRL_HD static inline
#endif
#endif

/* The Weyl increment: 2^64 / golden ratio, rounded to odd. */
#define KRL_SPLITMIX64_GAMMA 0x9e3779b97f4a7c15ULL

/* The finaliser: a bijection of 64-bit words whose every output bit
 * depends on every input bit. mix(0) = 0; use it as a hash only on words
 * that are not themselves small counters, or go through
 * krl_splitmix64(x). */
KRL_HD uint64_t krl_splitmix64_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Output c (0-based) of the stream started at state s, without stepping. */
KRL_HD uint64_t krl_splitmix64_at(uint64_t s, uint64_t c)
{
	return krl_splitmix64_mix(s + (c + 1) * KRL_SPLITMIX64_GAMMA);
}

/* One step: advances *state and returns the next output. */
KRL_HD uint64_t krl_splitmix64_next(uint64_t *state)
{
	*state += KRL_SPLITMIX64_GAMMA;
	return krl_splitmix64_mix(*state);
}

/* The first output of the stream started at x: a well-mixed 64-bit hash
 * of x, used to derive seeds from (seed, round, member) tuples. */
KRL_HD uint64_t krl_splitmix64(uint64_t x)
{
	return krl_splitmix64_at(x, 0);
}

/* The top 53 bits of h as a double in [0, 1) (exact). */
KRL_HD double krl_u01(uint64_t h)
{
	return (double)(h >> 11) * 1.1102230246251565404e-16; /* 2^-53 */
}

#endif
