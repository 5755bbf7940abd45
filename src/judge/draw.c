/*
 * Drawing task buffers from seeds, shared by the judge (its private copies)
 * and the runner (the candidate's buffers): both must derive the same
 * per-buffer seed, so that the same call seed gives the same values in
 * both processes.
 */
#include "judge/judge_int.h"
#include "krl/check.h"

static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* The seed of task buffer i for a call seed. */
static uint64_t buffer_seed(uint64_t seed, int i)
{
	return mix(seed ^ mix((uint64_t)i + 1));
}

krl_err krl_judge_draw(const krl_program *p, void *const *ptrs, krl_role role,
                       uint64_t seed, void *stream, krl_diag *d)
{
	for (int i = 0; i < p->ntask; i++) {
		const krl_buf *b = &p->bufs[i];
		if (b->role != role)
			continue;
		krl_err r = krl_fill_random(ptrs[i], b->dtype, b->numel, b->dist,
		                            buffer_seed(seed, i), stream, d);
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
                         krl_role role, uint64_t seed)
{
	for (int i = 0; i < p->ntask; i++) {
		const krl_buf *b = &p->bufs[i];
		if (b->role != role)
			continue;
		uint64_t s = buffer_seed(seed, i);
		for (int64_t k = 0; k < b->numel; k++)
			bufs[i][k] = krl_draw_value(b->dist, b->dtype, s, k);
	}
}
