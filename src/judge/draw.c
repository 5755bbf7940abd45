/*
 * Drawing task buffers from seeds, shared by the judge (its private copies)
 * and the runner (the candidate's buffers): both derive the same
 * per-buffer seed from a call seed and the evaluation's secret key, so
 * that the same call seed gives the same values in both processes.
 *
 * The per-buffer seed is HMAC-SHA256(key, call seed || buffer index),
 * truncated to 64 bits: a candidate that sees a buffer's values may
 * recover that buffer's seed (the value function is not meant to hide
 * it), but without the key it can neither get back to the call seed nor
 * compute another buffer's values, and the call seeds themselves come from
 * getrandom (eval.c), so nothing it sees predicts a later draw.
 */
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "judge/judge_int.h"
#include "krl/check.h"
#include "util/rng.h"

static const unsigned char zero_key[KRL_JUDGE_KEY_BYTES];

/* The seed of task buffer i for a call seed under key (NULL: all zero). */
static uint64_t buffer_seed(const unsigned char *key, uint64_t seed, int i)
{
	unsigned char msg[12], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	for (int b = 0; b < 8; b++)
		msg[b] = (unsigned char)(seed >> (8 * b));
	for (int b = 0; b < 4; b++)
		msg[8 + b] = (unsigned char)((unsigned)i >> (8 * b));
	if (!HMAC(EVP_sha256(), key ? key : zero_key, KRL_JUDGE_KEY_BYTES, msg,
	          sizeof msg, md, &mdlen) ||
	    mdlen < 8) {
		/* OpenSSL failed (out of memory): still the same value in both
		 * processes, from the key's first bytes and a plain mix. */
		uint64_t k = 0;
		memcpy(&k, key ? key : zero_key, sizeof k);
		return krl_splitmix64(seed ^ k ^ krl_splitmix64((uint64_t)i + 1));
	}
	uint64_t v = 0;
	for (int b = 0; b < 8; b++)
		v |= (uint64_t)md[b] << (8 * b);
	return v;
}

/* The stress op of buffer i in s, or NULL. */
static const krl_stress_op *stress_of(const krl_stress *s, int i)
{
	for (int k = 0; s && k < s->n; k++)
		if (s->ops[k].buf == i)
			return &s->ops[k];
	return NULL;
}

krl_err krl_judge_draw(const krl_program *p, void *const *ptrs, krl_role role,
                       uint64_t seed, const unsigned char *key,
                       const krl_stress *stress, void *stream, krl_diag *d)
{
	for (int i = 0; i < p->ntask; i++) {
		const krl_buf *b = &p->bufs[i];
		if (b->role != role)
			continue;
		uint64_t bs = buffer_seed(key, seed, i);
		krl_err r = krl_fill_random(ptrs[i], b->dtype, b->numel, b->dist,
		                            bs, stream, d);
		const krl_stress_op *so = stress_of(stress, i);
		if (r == KRL_OK && so)
			r = krl_stress_apply(ptrs[i], b->dtype, b->numel,
			                     (int)so->kind, so->v, bs, stream, d);
		if (r != KRL_OK)
			return r;
	}
	return KRL_OK;
}

krl_err krl_judge_poison(const krl_program *p, void *const *ptrs,
                         krl_role role, void *stream, krl_diag *d)
{
	for (int i = 0; i < p->nbufs; i++)
		if (p->bufs[i].role == role) {
			krl_err r = krl_fill_pattern(ptrs[i], p->bufs[i].bytes,
			                             KRL_POISON_PATTERN, stream, d);
			if (r != KRL_OK)
				return r;
		}
	return KRL_OK;
}

void krl_judge_draw_host(const krl_program *p, double *const *bufs,
                         krl_role role, uint64_t seed,
                         const unsigned char *key, const krl_stress *stress)
{
	for (int i = 0; i < p->ntask; i++) {
		const krl_buf *b = &p->bufs[i];
		if (b->role != role)
			continue;
		uint64_t s = buffer_seed(key, seed, i);
		const krl_stress_op *so = stress_of(stress, i);
		for (int64_t k = 0; k < b->numel; k++) {
			double x = krl_draw_value(b->dist, b->dtype, s, k);
			bufs[i][k] = so ? krl_stress_host(b->dtype, (int)so->kind,
			                                  so->v, s, k, b->numel, x)
			                : x;
		}
	}
}
