/*
 * Stress draws (docs/judge.md "Stress draws"): which inputs of a task the
 * judge may draw from harder distributions, and how.
 *
 * A candidate that is right for normal(0, 1) inputs but wrong for large or
 * offset ones (softmax without the max shift, one-pass E[x^2] - E[x]^2
 * variance, log(1 + exp(x)) without a threshold) saves a pass, so a search
 * finds it; the user who runs it gets inf or garbage. Besides the nominal
 * seeds, every correctness run therefore draws each shape set once more per
 * kind:
 *   scale   every element times 64 (exact: a power of two): |x| up to
 *           ~250 for normal(0, 1), past exp's overflow at 88.7;
 *   offset  every element plus 1000 spreads of its distribution (its
 *           std, or (b - a) / sqrt(12) for uniform(a, b); |mean|, or 1,
 *           where that is 0): a mean large against the spread, so that
 *           E[x^2] - E[x]^2 in float loses several percent of the
 *           variance (its error ~eps (mean/std)^2 = 0.06 variances, times
 *           the summation's growth) while two-pass or Welford statistics
 *           lose ~eps mean/std (1e-4 of a std). Not more: at 10^4 spreads
 *           a fused exp argument x c - m c (FlashAttention's habit, in the
 *           softmax example) already loses 3e-4 relative, past softmax's
 *           rtol, with nothing unstable about it;
 *   spikes  about one element in 1024 (and always one) times 1024.
 * Inputs drawn from randint, bernoulli or const, and integer or bool
 * inputs, are left alone (indices, masks, targets: bounded by nature).
 * A task narrows this with `stress NAME|* off|KIND... "why"` statements
 * (applied in order, each narrowing); an op whose product-like semantics
 * make any scaled input leave the float range (krl_op.no_stress) turns
 * stress draws off for the tasks that use it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "judge/judge_int.h"
#include "krl/ops.h"

/* The values of the three kinds (see above). */
#define STRESS_SCALE 64.0
#define STRESS_OFFSET_SPREADS 1000.0
#define STRESS_SPIKE 1024.0

/* The conditioning probe's jitter (docs/judge.md, "Ill-conditioned
 * draws" and "Exact answers the judge rejected"): 2^-20 relative, 8 to 16
 * ulps of f32, the random backward error of a sum of 256 terms in order
 * (sqrt(256) 2^-24); for a reference whose library calls sum K > 256
 * terms in order, 2^-24 sqrt(K). */
#define STRESS_JITTER 0x1p-20
#define STRESS_JITTER_SEQ 256.0
/* ... and for a tf32 task whose reference calls a library op that
 * multiplies in TF32 (krl_op.tf32), TF32's unit roundoff: every product's
 * inputs are rounded to 10 mantissa bits, a relative change of up to
 * 2^-11 that the jitter of x stands for (the weights' rounding, the same
 * at every output, comes on top: the probe's 8x margin covers it). */
#define STRESS_JITTER_TF32 0x1p-11

static int is_float(krl_dtype t)
{
	return t == KRL_F32 || t == KRL_F64 || t == KRL_F16 || t == KRL_BF16;
}

/* The spread of a continuous distribution (std of normal, std of
 * uniform), or a scale of its mean where it has none. */
static double spread(const krl_dist *d)
{
	double s = 0, m = 0;
	if (d->kind == KRL_DIST_NORMAL) {
		s = fabs(d->b);
		m = d->a;
	} else if (d->kind == KRL_DIST_UNIFORM) {
		s = fabs(d->b - d->a) / sqrt(12.0);
		m = 0.5 * (d->a + d->b);
	}
	if (s > 0)
		return s;
	return fabs(m) > 0 ? fabs(m) : 1.0;
}

int krl_stress_resolve(const krl_task *t, const krl_program *p,
                       krl_stress_kind kind, krl_stress *s,
                       const char **why)
{
	memset(s, 0, sizeof *s);
	s->kind = kind;
	if (why)
		*why = NULL;
	for (int i = 0; i < t->ref.nbody; i++) {
		const krl_op *op = krl_op_find(t->ref.body[i].name);
		if (op && op->no_stress) {
			if (why)
				*why = op->no_stress;
			return 0;
		}
	}
	const char *narrowed = NULL;
	for (int i = 0; i < p->ntask && s->n < KRL_STRESS_MAX_BUFS; i++) {
		const krl_buf *b = &p->bufs[i];
		if (b->role != KRL_ROLE_INPUT || !is_float(b->dtype) ||
		    (b->dist.kind != KRL_DIST_NORMAL &&
		     b->dist.kind != KRL_DIST_UNIFORM))
			continue;
		unsigned kinds = KRL_STRESS_ALL;
		for (int k = 0; k < t->nstress; k++) {
			const krl_stress_decl *sd = &t->stress[k];
			if (sd->input && strcmp(sd->input, b->name) != 0)
				continue;
			kinds &= sd->kinds;
			if (!(kinds & (1u << kind)))
				narrowed = sd->why;
		}
		if (!(kinds & (1u << kind)))
			continue;
		krl_stress_op *o = &s->ops[s->n++];
		o->buf = i;
		o->kind = kind;
		o->v = kind == KRL_STRESS_SCALE    ? STRESS_SCALE
		       : kind == KRL_STRESS_SPIKES ? STRESS_SPIKE
		                                   : STRESS_OFFSET_SPREADS *
		                                             spread(&b->dist);
	}
	if (s->n == 0 && why)
		*why = narrowed;
	return s->n;
}

double krl_stress_jitter(const krl_program *p, int64_t *seq)
{
	int64_t k = 0;
	int tf32 = 0;
	for (int i = 0; i < p->nbody; i++) {
		const krl_step *s = &p->body[i];
		if (s->kind != KRL_ST_CALL || !s->op ||
		    (!s->op->seq_len && !(p->tf32 && s->op->tf32)))
			continue;
		krl_tensor in[KRL_MAX_CALL_IN], out[KRL_MAX_CALL_OUT];
		for (int j = 0; j < s->nin; j++)
			krl_buf_tensor(&p->bufs[s->in[j]], NULL, &in[j]);
		for (int j = 0; j < s->nout; j++)
			krl_buf_tensor(&p->bufs[s->out[j]], NULL, &out[j]);
		int64_t n = s->op->seq_len ? s->op->seq_len(in, out, &s->attrs) : 0;
		if (n > k)
			k = n;
		if (p->tf32 && s->op->tf32 && s->op->tf32(in, out, &s->attrs))
			tf32 = 1;
	}
	if (seq)
		*seq = k;
	double j = STRESS_JITTER * (k > STRESS_JITTER_SEQ
	                            ? sqrt((double)k / STRESS_JITTER_SEQ) : 1.0);
	return tf32 && j < STRESS_JITTER_TF32 ? STRESS_JITTER_TF32 : j;
}

void krl_stress_print(FILE *f, const krl_task *t, const krl_program *p)
{
	for (int k = 0; k < KRL_STRESS_KINDS; k++) {
		krl_stress s;
		const char *why = NULL;
		fprintf(f, "stress %-6s ", krl_stress_name((krl_stress_kind)k));
		if (krl_stress_resolve(t, p, (krl_stress_kind)k, &s, &why) == 0) {
			fprintf(f, "skipped: %s\n",
			        why ? why : "no float input drawn from a continuous "
			                    "distribution");
			continue;
		}
		for (int q = 0; q < s.n; q++)
			fprintf(f, "%s%s %s %g", q ? ", " : "",
			        p->bufs[s.ops[q].buf].name,
			        k == KRL_STRESS_OFFSET ? "+" : "x", s.ops[q].v);
		fprintf(f, "%s\n", k == KRL_STRESS_SPIKES
		                       ? " (about 1 element in 1024)"
		                       : "");
	}
}
