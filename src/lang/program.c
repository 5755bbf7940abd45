/*
 * kernelrl: resolving a plan into a program for one shape set
 * (docs/language.md, "Resolution and validation").
 *
 * krl_program_build evaluates every shape and expression, types every
 * kernel argument, resolves ops and checks every rule of the plan language:
 * device limits, who may write what, that every output is written. All the
 * judgement about a plan happens here, before anything touches a GPU, so
 * that an invalid plan is reported at its statement with a clear sentence.
 *
 * Conventions of the resolved steps: grid/block dims are >= 1; cluster is
 * {0, 0, 0} when the launch has no cluster; pointer arguments have buf set
 * and 8 zero bytes (the runtime fills in the device address).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "krl/ops.h"
#include "lang/plan.h"
#include "lang/scope.h"
#include "util/rng.h"

typedef struct build {
	const krl_task *task;
	const krl_candidate *cand;
	const krl_plan *plan;
	const krl_limits *lim;
	krl_diag *d;
	krl_setscope names;       /* shape keys, consts, sm_count */
	krl_bufshape *shapes;     /* parallel to prog->bufs */
	krl_scope scope;          /* names', and shapes as buffers */
	krl_program *prog;
	int *written;             /* per buffer: written by a body/init step */
} build;

krl_limits krl_limits_sm90(void)
{
	krl_limits l = { 132, 1024, 232448, 8 };
	return l;
}

void krl_program_free(krl_program *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nbody; i++)
		free(p->body[i].args);
	for (int i = 0; i < p->ninit; i++)
		free(p->init[i].args);
	free(p->body);
	free(p->init);
	free(p->bufs);
	free(p);
}

/* ==== Helpers ==== */

static const char *role_name(krl_role r)
{
	switch (r) {
	case KRL_ROLE_INPUT: return "input";
	case KRL_ROLE_PARAM: return "param";
	case KRL_ROLE_OUTPUT: return "output";
	case KRL_ROLE_SCRATCH: return "buffer";
	case KRL_ROLE_DERIVED: return "derived buffer";
	case KRL_ROLE_VIEW: return "view";
	}
	return "?";
}

static int find_buf(const build *b, const char *z)
{
	for (int i = 0; i < b->prog->nbufs; i++)
		if (strcmp(b->prog->bufs[i].name, z) == 0)
			return i;
	return -1;
}

static krl_err eval(build *b, const krl_expr *e, krl_value *v)
{
	return krl_expr_eval(e, &b->scope, v, b->d);
}

/* Evaluates e to an integer in [lo, hi]; what names it in messages. */
static krl_err eval_int(build *b, const krl_expr *e, int64_t lo, int64_t hi,
                        const char *what, int64_t *out)
{
	krl_value v;
	krl_err r = eval(b, e, &v);
	if (r)
		return r;
	if (v.is_float)
		return krl_diag_set(b->d, KRL_EINVAL, e->pos,
		                    "%s: expected an integer, found %g", what, v.f);
	if (v.i < lo || v.i > hi)
		return krl_diag_set(b->d, KRL_EINVAL, e->pos,
		                    "%s must be in %lld..%lld, found %lld", what,
		                    (long long)lo, (long long)hi,
		                    (long long)v.i);
	*out = v.i;
	return KRL_OK;
}

static void put_le(unsigned char *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* ==== Scope and buffers ==== */

/* The names of the set (scope.h: its keys, the task's consts and
 * sm_count), seen by b's scope along with the buffers' shapes. */
static krl_err build_scope(build *b, const krl_shapeset *set)
{
	krl_err r = krl_setscope_init(&b->names, b->task, set, b->lim->sm_count,
	                              b->d);
	if (r)
		return r;
	b->scope.names = b->names.scope.names;
	b->scope.values = b->names.scope.values;
	b->scope.n = b->names.scope.n;
	return KRL_OK;
}

/* Resolves view kb (declared by dc, its dims already evaluated) onto
 * buffer src, the one it views: same dtype, numel + offset within that buffer, alias
 * and offset taken through to the root so that views of views need no
 * chasing later. */
static krl_err bind_view(build *b, const krl_decl *dc, int src, krl_buf *kb)
{
	const krl_buf *sb = &b->prog->bufs[src];
	int64_t off = 0;
	if (dc->view_off) {
		char what[96];
		snprintf(what, sizeof what, "offset of view '%s'", dc->name);
		krl_err r = eval_int(b, dc->view_off, 0, INT64_MAX, what, &off);
		if (r)
			return r;
	}
	if (off > sb->numel || kb->numel > sb->numel - off)
		return krl_diag_set(b->d, KRL_EINVAL, dc->pos,
		                    "view '%s' has %lld elements from offset "
		                    "%lld, but '%s' has only %lld: a view must "
		                    "lie inside the buffer it views",
		                    dc->name, (long long)kb->numel,
		                    (long long)off, sb->name,
		                    (long long)sb->numel);
	if (sb->role == KRL_ROLE_VIEW) {
		kb->alias = sb->alias;
		kb->offset = sb->offset + off;
	} else {
		kb->alias = src;
		kb->offset = off;
	}
	return KRL_OK;
}

/* Resolves one declaration into prog->bufs[prog->nbufs++]; its dims may
 * use the buffers before it. */
static krl_err add_buf(build *b, const krl_decl *dc)
{
	krl_program *p = b->prog;
	for (int i = 0; i < b->names.scope.n; i++)
		if (strcmp(b->names.names[i], dc->name) == 0)
			return krl_diag_set(b->d, KRL_EINVAL, dc->pos,
			                    "'%s' is already a shape key, const or "
			                    "sm_count; a buffer needs its own name",
			                    dc->name);
	int prev = find_buf(b, dc->name);
	if (prev >= 0) {
		krl_pos pp = prev < p->ntask ? b->task->decls[prev].pos :
		             b->plan->bufs[prev - p->ntask].pos;
		return krl_diag_set(b->d, KRL_EINVAL, dc->pos,
		                    "'%s' is already declared (as the %s at "
		                    "%s:%d)", dc->name,
		                    role_name(p->bufs[prev].role),
		                    pp.file ? pp.file : "?", pp.line);
	}
	krl_buf *kb = &p->bufs[p->nbufs];
	krl_bufshape *sh = &b->shapes[p->nbufs];
	kb->name = dc->name;
	kb->role = dc->role;
	kb->dtype = dc->dtype;
	int src = -1; /* the buffer a view views */
	if (dc->role == KRL_ROLE_VIEW) {
		src = find_buf(b, dc->view_of);
		if (src < 0)
			return krl_diag_set(b->d, KRL_ENOTFOUND, dc->pos,
			                    "view '%s': no buffer '%s' is declared "
			                    "before it", dc->name, dc->view_of);
		kb->dtype = p->bufs[src].dtype;
	}
	kb->ndim = dc->ndim;
	kb->dist = dc->dist;
	kb->numel = 1;
	for (int i = 0; i < dc->ndim; i++) {
		char what[96];
		snprintf(what, sizeof what, "dimension %d of '%s'", i, dc->name);
		krl_err r = eval_int(b, dc->dim[i], 1, INT64_MAX, what,
		                     &kb->dim[i]);
		if (r)
			return r;
		if (__builtin_mul_overflow(kb->numel, kb->dim[i], &kb->numel))
			return krl_diag_set(b->d, KRL_EINVAL, dc->pos,
			                    "'%s' has more than 2^63 elements",
			                    dc->name);
	}
	if ((uint64_t)kb->numel > KRL_MAX_BUFFER_BYTES / krl_dtype_size(kb->dtype))
		return krl_diag_set(b->d, KRL_EINVAL, dc->pos,
		                    "'%s' is too large to allocate (%lld elements "
		                    "of %zu bytes; a buffer holds at most 2^46 "
		                    "bytes)", dc->name, (long long)kb->numel,
		                    krl_dtype_size(kb->dtype));
	kb->bytes = (size_t)kb->numel * krl_dtype_size(kb->dtype);
	/* tril/triu patterns fill each matrix of the last two dims */
	if (kb->dist.kind == KRL_DIST_TRIL || kb->dist.kind == KRL_DIST_TRIU) {
		kb->dist.rows = kb->dim[kb->ndim - 2];
		kb->dist.cols = kb->dim[kb->ndim - 1];
	}
	/* the Swin patterns define one layout: the buffer has its size */
	if (kb->dist.kind >= KRL_DIST_SWIN_COORDS &&
	    kb->dist.kind <= KRL_DIST_SWIN_MASK) {
		int64_t a = (int64_t)kb->dist.a, bb = (int64_t)kb->dist.b;
		int64_t want = 0;
		const char *layout = "";
		if (kb->dist.kind == KRL_DIST_SWIN_COORDS) {
			want = (2 * a - 1) * (2 * bb - 1) * 2;
			layout = "[1, 2 wh - 1, 2 ww - 1, 2]";
		} else if (kb->dist.kind == KRL_DIST_SWIN_INDEX) {
			want = a * bb * a * bb;
			layout = "[wh ww, wh ww]";
		} else {
			int64_t n = kb->dist.rows * kb->dist.rows;
			want = (a / kb->dist.rows) * (bb / kb->dist.rows) * n * n;
			layout = "[(h / ws) (w / ws), ws ws, ws ws]";
		}
		if (kb->numel != want)
			return krl_diag_set(b->d, KRL_EINVAL, dc->pos,
			                    "'%s' has %lld elements; its pattern "
			                    "fills %s = %lld", dc->name,
			                    (long long)kb->numel, layout,
			                    (long long)want);
	}
	if (dc->role == KRL_ROLE_VIEW) {
		krl_err r = bind_view(b, dc, src, kb);
		if (r)
			return r;
	}
	sh->name = kb->name;
	sh->dtype = kb->dtype;
	sh->ndim = kb->ndim;
	memcpy(sh->dim, kb->dim, sizeof sh->dim);
	p->nbufs++;
	b->scope.nbufs = p->nbufs;
	return KRL_OK;
}

/* ==== Steps ==== */

/*
 * Checks that step `s` may touch buffer `buf` the way it does. In the body a
 * write must go to an output or a scratch buffer; in init every buffer
 * touched must be a param or a derived buffer, and every write a derived
 * buffer. how says where in the statement the buffer appears.
 */
static krl_err check_access(build *b, krl_pos pos, int in_init, int buf,
                            int writes, const char *how)
{
	/* a view has its root's rights, and writing it writes the root */
	const krl_buf *vb = &b->prog->bufs[buf];
	buf = krl_buf_root(b->prog, buf);
	const krl_buf *kb = &b->prog->bufs[buf];
	char nm[160];
	if (vb != kb)
		snprintf(nm, sizeof nm, "%s' (through the view '%s')", kb->name,
		         vb->name);
	else
		snprintf(nm, sizeof nm, "%s'", kb->name);
	if (in_init) {
		if (writes && kb->role != KRL_ROLE_DERIVED)
			return krl_diag_set(b->d, KRL_EINVAL, pos,
			                    "%s writes the %s '%s, but init may "
			                    "write only derived buffers", how,
			                    role_name(kb->role), nm);
		if (kb->role != KRL_ROLE_PARAM && kb->role != KRL_ROLE_DERIVED)
			return krl_diag_set(b->d, KRL_EINVAL, pos,
			                    "%s uses the %s '%s, but init may read "
			                    "only params and derived buffers", how,
			                    role_name(kb->role), nm);
	} else if (writes && kb->role != KRL_ROLE_OUTPUT &&
	           kb->role != KRL_ROLE_SCRATCH) {
		return krl_diag_set(b->d, KRL_EINVAL, pos,
		                    "%s writes the %s '%s, which the plan may not "
		                    "write (only outputs and buffers; derived "
		                    "buffers only in init)", how,
		                    role_name(kb->role), nm);
	}
	if (writes)
		b->written[buf] = 1;
	return KRL_OK;
}

static const char *ptype_name(krl_ptype t)
{
	switch (t) {
	case KRL_P_PTR: return "pointer";
	case KRL_P_I32: return "int";
	case KRL_P_U32: return "unsigned int";
	case KRL_P_I64: return "long";
	case KRL_P_U64: return "unsigned long";
	case KRL_P_F32: return "float";
	case KRL_P_F64: return "double";
	}
	return "?";
}

/* Types argument i of a launch of kernel k into a. */
static krl_err resolve_arg(build *b, const krl_stmt *s, const krl_kernel *k,
                           int i, int in_init, krl_karg *a)
{
	const krl_kparam *kp = &k->params[i];
	const krl_expr *e = s->args[i];
	char what[160];
	snprintf(what, sizeof what, "argument %d of '%s' (%s %s)", i + 1,
	         k->name, kp->type == KRL_P_PTR && kp->is_const ?
	         "const pointer" : ptype_name(kp->type), kp->name);
	a->type = kp->type;
	a->buf = -1;
	int buf = e->kind == KRL_EX_NAME ? find_buf(b, e->name) : -1;
	if (kp->type == KRL_P_PTR) {
		if (buf < 0)
			return krl_diag_set(b->d, e->kind == KRL_EX_NAME ?
			                    KRL_ENOTFOUND : KRL_EINVAL, e->pos,
			                    "%s: expected a buffer name, found %s",
			                    what, e->kind == KRL_EX_NAME ?
			                    "a name that is not a buffer" :
			                    "an expression");
		a->buf = buf;
		a->size = 8;
		return check_access(b, e->pos, in_init, buf, !kp->is_const,
		                    what);
	}
	if (buf >= 0)
		return krl_diag_set(b->d, KRL_EINVAL, e->pos,
		                    "%s: expected a value, found the buffer '%s' "
		                    "(pointer parameters take buffers)", what,
		                    e->name);
	krl_value v;
	krl_err r = eval(b, e, &v);
	if (r)
		return r;
	if (kp->type == KRL_P_F32 || kp->type == KRL_P_F64) {
		double f = v.is_float ? v.f : (double)v.i;
		if (kp->type == KRL_P_F32) {
			float x = (float)f;
			uint32_t u;
			memcpy(&u, &x, 4);
			put_le(a->bytes, u, 4);
			a->size = 4;
		} else {
			uint64_t u;
			memcpy(&u, &f, 8);
			put_le(a->bytes, u, 8);
			a->size = 8;
		}
		return KRL_OK;
	}
	if (v.is_float)
		return krl_diag_set(b->d, KRL_EINVAL, e->pos,
		                    "%s: expected an integer, found %g", what, v.f);
	int64_t lo = INT64_MIN, hi = INT64_MAX;
	switch (kp->type) {
	case KRL_P_I32: lo = INT32_MIN; hi = INT32_MAX; a->size = 4; break;
	case KRL_P_U32: lo = 0; hi = UINT32_MAX; a->size = 4; break;
	case KRL_P_U64: lo = 0; a->size = 8; break;
	default: a->size = 8; break;
	}
	if (v.i < lo || v.i > hi)
		return krl_diag_set(b->d, KRL_EINVAL, e->pos,
		                    "%s: %lld does not fit (expected %lld..%lld)",
		                    what, (long long)v.i, (long long)lo,
		                    (long long)hi);
	put_le(a->bytes, (uint64_t)v.i, a->size);
	return KRL_OK;
}

/* Resolves a launch: kernel, geometry within the device limits, args. */
static krl_err resolve_launch(build *b, const krl_stmt *s, int in_init,
                              krl_step *st)
{
	const krl_candidate *c = b->cand;
	krl_err r;
	if (!c)
		return krl_diag_set(b->d, KRL_EINVAL, s->pos,
		                    "a task's reference plan cannot launch "
		                    "kernels (use call)");
	st->kernel = -1;
	for (int i = 0; i < c->nkernels; i++)
		if (strcmp(c->kernels[i].name, s->name) == 0)
			st->kernel = i;
	if (st->kernel < 0) {
		char list[512] = "";
		size_t n = 0;
		for (int i = 0; i < c->nkernels && n < sizeof list; i++)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s",
			                      i ? ", " : "", c->kernels[i].name);
		if (c->nkernels)
			return krl_diag_set(b->d, KRL_ENOTFOUND, s->pos,
			                    "no kernel '%s' in the candidate "
			                    "(found: %s)", s->name, list);
		return krl_diag_set(b->d, KRL_ENOTFOUND, s->pos,
		                    "no kernel '%s' in the candidate (it has no "
		                    "extern \"C\" __global__ kernels)", s->name);
	}
	const krl_kernel *k = &c->kernels[st->kernel];
	static const char *const axis[3] = { "x", "y", "z" };
	static const int64_t grid_max[3] = { 2147483647, 65535, 65535 };
	static const int64_t block_max[3] = { 1024, 1024, 64 };
	for (int i = 0; i < 3; i++) {
		int64_t g = 1, bl = 1;
		char what[64];
		snprintf(what, sizeof what, "grid %s", axis[i]);
		if (s->grid[i] &&
		    (r = eval_int(b, s->grid[i], 1, grid_max[i], what, &g)))
			return r;
		snprintf(what, sizeof what, "block %s", axis[i]);
		if (s->block[i] &&
		    (r = eval_int(b, s->block[i], 1, block_max[i], what, &bl)))
			return r;
		st->grid[i] = (unsigned)g;
		st->block[i] = (unsigned)bl;
	}
	uint64_t threads = (uint64_t)st->block[0] * st->block[1] * st->block[2];
	if (threads > b->lim->max_threads)
		return krl_diag_set(b->d, KRL_EINVAL, s->block[0]->pos,
		                    "block of %u x %u x %u = %llu threads is above "
		                    "the device's %u threads per block",
		                    st->block[0], st->block[1], st->block[2],
		                    (unsigned long long)threads,
		                    b->lim->max_threads);
	if (s->smem) {
		int64_t sm = 0;
		if ((r = eval_int(b, s->smem, 0, b->lim->max_smem,
		                  "smem (dynamic shared memory bytes)", &sm)))
			return r;
		st->smem = (unsigned)sm;
	}
	if (s->cluster[0]) {
		uint64_t prod = 1;
		for (int i = 0; i < 3; i++) {
			int64_t cl = 1;
			char what[64];
			snprintf(what, sizeof what, "cluster %s", axis[i]);
			if (s->cluster[i] &&
			    (r = eval_int(b, s->cluster[i], 1,
			                  b->lim->max_cluster, what, &cl)))
				return r;
			st->cluster[i] = (unsigned)cl;
			prod *= (uint64_t)cl;
			if (st->grid[i] % st->cluster[i])
				return krl_diag_set(b->d, KRL_EINVAL,
				                    s->cluster[i] ? s->cluster[i]->pos :
				                    s->pos,
				                    "grid %s (%u) is not a multiple of "
				                    "cluster %s (%u)", axis[i],
				                    st->grid[i], axis[i], st->cluster[i]);
		}
		if (prod > b->lim->max_cluster)
			return krl_diag_set(b->d, KRL_EINVAL, s->cluster[0]->pos,
			                    "a cluster of %llu blocks is above the "
			                    "device's %u", (unsigned long long)prod,
			                    b->lim->max_cluster);
	}
	st->cooperative = s->cooperative;
	if (s->cooperative) {
		/* A necessary condition only (32 resident blocks per SM at
		 * best); the runtime checks the kernel's real occupancy. */
		uint64_t blocks = (uint64_t)st->grid[0] * st->grid[1] *
		                  st->grid[2];
		uint64_t most = (uint64_t)b->lim->sm_count * 32;
		if (blocks > most)
			return krl_diag_set(b->d, KRL_EINVAL, s->grid[0]->pos,
			                    "a cooperative grid must fit on the "
			                    "device at once: %llu blocks is above "
			                    "%d SMs x 32", (unsigned long long)blocks,
			                    b->lim->sm_count);
	}
	if (s->nargs != k->nparams) {
		char list[512] = "";
		size_t n = 0;
		for (int i = 0; i < k->nparams && n < sizeof list; i++)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s",
			                      i ? ", " : "", k->params[i].name);
		return krl_diag_set(b->d, KRL_EINVAL, s->pos,
		                    "kernel '%s' takes %d argument%s (%s), the "
		                    "launch passes %d", k->name, k->nparams,
		                    k->nparams == 1 ? "" : "s", list, s->nargs);
	}
	if (k->nparams) {
		st->args = calloc((size_t)k->nparams, sizeof *st->args);
		if (!st->args)
			return krl_diag_set(b->d, KRL_ENOMEM, s->pos,
			                    "out of memory");
	}
	st->nargs = k->nparams;
	for (int i = 0; i < k->nparams; i++)
		if ((r = resolve_arg(b, s, k, i, in_init, &st->args[i])))
			return r;
	return KRL_OK;
}

static void to_tensor(const krl_buf *kb, krl_tensor *t)
{
	memset(t, 0, sizeof *t);
	t->dtype = kb->dtype;
	t->ndim = kb->ndim;
	memcpy(t->dim, kb->dim, sizeof t->dim);
}

/* The value of word-valued attribute a of op (krl_attr_words): its word's
 * index in the list. The value must be a bare word of the list; anything
 * else is an error at the value that names the op, the attribute and the
 * words allowed. */
static krl_err eval_word(build *b, const krl_op *op, const krl_attr *a,
                         krl_value *v)
{
	const char *const *words = krl_attr_words(a->key);
	char list[128] = "";
	size_t n = 0;
	for (int k = 0; words[k]; k++) {
		if (a->value->kind == KRL_EX_NAME &&
		    strcmp(a->value->name, words[k]) == 0) {
			memset(v, 0, sizeof *v);
			v->i = k;
			return KRL_OK;
		}
		if (n < sizeof list)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s",
			                      k ? ", " : "", words[k]);
	}
	if (a->value->kind == KRL_EX_NAME)
		return krl_diag_set(b->d, KRL_EINVAL, a->value->pos,
		                    "op '%s': %s=%s is not one of its values "
		                    "(allowed: %s)", op->name, a->key,
		                    a->value->name, list);
	return krl_diag_set(b->d, KRL_EINVAL, a->value->pos,
	                    "op '%s': %s takes a word, not a number or an "
	                    "expression (allowed: %s)", op->name, a->key, list);
}

/* Resolves a call: the op, its buffers and attributes, and the op's own
 * shape check. */
static krl_err resolve_call(build *b, const krl_stmt *s, int in_init,
                            krl_step *st)
{
	krl_err r;
	const krl_op *op = krl_op_find(s->name);
	if (!op) {
		char list[768] = "";
		size_t n = 0;
		int nops = 0;
		const krl_op *const *all = krl_op_all(&nops);
		for (int i = 0; all && i < nops && n < sizeof list; i++)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s",
			                      i ? ", " : "", all[i]->name);
		return krl_diag_set(b->d, KRL_ENOTFOUND, s->pos,
		                    "unknown op '%s' (the ops are: %s)", s->name,
		                    list);
	}
	st->op = op;
	if (!krl_op_takes_nin(op, s->nin) || s->nout != op->nout) {
		char nin[32];
		if (op->nin < 0)
			snprintf(nin, sizeof nin, "%d to %d inputs", -op->nin,
			         KRL_MAX_CALL_IN);
		else
			snprintf(nin, sizeof nin, "%d input%s", op->nin,
			         op->nin == 1 ? "" : "s");
		return krl_diag_set(b->d, KRL_EINVAL, s->pos,
		                    "op '%s' takes %s and %d output%s, found %d "
		                    "and %d", op->name, nin, op->nout,
		                    op->nout == 1 ? "" : "s", s->nin, s->nout);
	}
	if (s->nin > KRL_MAX_CALL_IN || s->nout > KRL_MAX_CALL_OUT)
		return krl_diag_set(b->d, KRL_EINVAL, s->pos,
		                    "too many buffers for one call");
	krl_tensor in[KRL_MAX_CALL_IN], out[KRL_MAX_CALL_OUT];
	for (int j = 0; j < s->nin + s->nout; j++) {
		int is_out = j >= s->nin;
		int k = is_out ? j - s->nin : j;
		const char *z = is_out ? s->outs[k] : s->ins[k];
		int buf = find_buf(b, z);
		if (buf < 0)
			return krl_diag_set(b->d, KRL_ENOTFOUND, s->pos,
			                    "%s %d of '%s': no buffer named '%s'",
			                    is_out ? "output" : "input", k + 1,
			                    op->name, z);
		char how[96];
		snprintf(how, sizeof how, "%s %d of op '%s'",
		         is_out ? "output" : "input", k + 1, op->name);
		if ((r = check_access(b, s->pos, in_init, buf, is_out, how)))
			return r;
		if (is_out) {
			st->out[k] = buf;
			to_tensor(&b->prog->bufs[buf], &out[k]);
		} else {
			st->in[k] = buf;
			to_tensor(&b->prog->bufs[buf], &in[k]);
		}
	}
	st->nin = s->nin;
	st->nout = s->nout;
	st->attrs.nin = s->nin;
	for (int i = 0; i < s->nattrs; i++) {
		const krl_attr *a = &s->attrs[i];
		int ok = 0;
		for (int k = 0; op->attr_names && op->attr_names[k] && !ok; k++)
			ok = strcmp(op->attr_names[k], a->key) == 0;
		if (!ok) {
			char list[256] = "";
			size_t n = 0;
			for (int k = 0; op->attr_names && op->attr_names[k] &&
			                n < sizeof list; k++)
				n += (size_t)snprintf(list + n, sizeof list - n,
				                      "%s%s", k ? ", " : "",
				                      op->attr_names[k]);
			return krl_diag_set(b->d, KRL_EINVAL, a->pos,
			                    "op '%s' has no attribute '%s' (%s%s)",
			                    op->name, a->key, n ? "it takes: " :
			                    "it takes none", list);
		}
		krl_value v;
		if ((r = krl_attr_words(a->key) ? eval_word(b, op, a, &v)
		                                : eval(b, a->value, &v)))
			return r;
		st->attrs.key[st->attrs.n] = a->key;
		st->attrs.val[st->attrs.n++] = v.is_float ? v.f : (double)v.i;
	}
	char msg[512] = "";
	if (op->check && op->check(in, out, &st->attrs, msg, sizeof msg))
		/* The op's sentence already names the op and the operand. */
		return krl_diag_set(b->d, KRL_EINVAL, s->pos, "%s",
		                    msg[0] ? msg : "the op rejects this call");
	return KRL_OK;
}

/* Resolves the n statements of src into a new step array *out. */
static krl_err resolve_steps(build *b, const krl_stmt *src, int n,
                             int in_init, krl_step **out, int *nout)
{
	if (!n)
		return KRL_OK;
	*out = calloc((size_t)n, sizeof **out);
	if (!*out)
		return krl_diag_set(b->d, KRL_ENOMEM, src[0].pos, "out of memory");
	for (int i = 0; i < n; i++) {
		krl_step *st = &(*out)[i];
		st->kind = src[i].kind;
		st->src = &src[i];
		st->kernel = -1;
		*nout = i + 1;
		krl_err r = src[i].kind == KRL_ST_LAUNCH ?
		            resolve_launch(b, &src[i], in_init, st) :
		            resolve_call(b, &src[i], in_init, st);
		if (r)
			return r;
	}
	return KRL_OK;
}

/* ==== Building ==== */

krl_err krl_program_build(const krl_task *task, const krl_candidate *cand,
                          const char *set, const krl_limits *lim,
                          krl_program **out, krl_diag *d)
{
	krl_pos tpos = { task->path, 0, 0 };
	const krl_shapeset *ss = krl_task_shapeset(task, set);
	*out = NULL;
	if (!ss) {
		char list[256] = "";
		size_t n = 0;
		for (int i = 0; i < task->nsets && n < sizeof list; i++)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s",
			                      i ? ", " : "", task->sets[i].name);
		return krl_diag_set(d, KRL_ENOTFOUND, tpos,
		                    "no shape set '%s' in the task (it has: %s)",
		                    set ? set : "(null)", list);
	}
	return krl_program_build_shapes(task, cand, ss, lim, out, d);
}

krl_err krl_program_build_shapes(const krl_task *task,
                                 const krl_candidate *cand,
                                 const krl_shapeset *ss, const krl_limits *lim,
                                 krl_program **out, krl_diag *d)
{
	krl_err r = KRL_OK;
	build b;
	memset(&b, 0, sizeof b);
	krl_limits dflt = krl_limits_sm90();
	b.task = task;
	b.cand = cand;
	b.plan = cand ? &cand->plan : &task->ref;
	b.lim = lim ? lim : &dflt;
	b.d = d;
	*out = NULL;
	krl_pos tpos = { task->path, 0, 0 };
	if (!(b.prog = calloc(1, sizeof *b.prog))) {
		r = krl_diag_set(d, KRL_ENOMEM, tpos, "out of memory");
		goto cleanup;
	}
	int nbufs = task->ndecls + b.plan->nbufs;
	b.prog->bufs = calloc((size_t)nbufs + 1, sizeof *b.prog->bufs);
	b.shapes = calloc((size_t)nbufs + 1, sizeof *b.shapes);
	b.written = calloc((size_t)nbufs + 1, sizeof *b.written);
	if (!b.prog->bufs || !b.shapes || !b.written) {
		r = krl_diag_set(d, KRL_ENOMEM, tpos, "out of memory");
		goto cleanup;
	}
	b.scope.bufs = b.shapes;
	if ((r = build_scope(&b, ss)))
		goto cleanup;
	b.prog->ntask = task->ndecls;
	b.prog->tf32 = krl_task_is_tf32(task);
	for (int i = 0; i < task->ndecls; i++)
		if ((r = add_buf(&b, &task->decls[i])))
			goto cleanup;
	for (int i = 0; i < b.plan->nbufs; i++) {
		const krl_decl *dc = &b.plan->bufs[i];
		if (!cand && dc->role == KRL_ROLE_DERIVED) {
			r = krl_diag_set(d, KRL_EINVAL, dc->pos,
			                 "a task's reference plan cannot declare "
			                 "derived buffers");
			goto cleanup;
		}
		if ((r = add_buf(&b, dc)))
			goto cleanup;
	}
	krl_value v;
	if (task->bytes) {
		if ((r = eval(&b, task->bytes, &v)))
			goto cleanup;
		b.prog->bytes = v.is_float ? v.f : (double)v.i;
	}
	if (task->flops) {
		if ((r = eval(&b, task->flops, &v)))
			goto cleanup;
		b.prog->flops = v.is_float ? v.f : (double)v.i;
	}
	if (!cand && b.plan->ninit) {
		r = krl_diag_set(d, KRL_EINVAL, b.plan->init[0].pos,
		                 "a task's reference plan cannot have init");
		goto cleanup;
	}
	if ((r = resolve_steps(&b, b.plan->init, b.plan->ninit, 1,
	                       &b.prog->init, &b.prog->ninit)))
		goto cleanup;
	/* init writes derived buffers; outputs count only from the body. */
	for (int i = 0; i < b.prog->nbufs; i++) {
		const krl_buf *kb = &b.prog->bufs[i];
		if (kb->role == KRL_ROLE_DERIVED && !b.written[i]) {
			r = krl_diag_set(d, KRL_EINVAL,
			                 b.plan->bufs[i - b.prog->ntask].pos,
			                 "derived buffer '%s' is never written by "
			                 "init", kb->name);
			goto cleanup;
		}
		b.written[i] = 0;
	}
	if ((r = resolve_steps(&b, b.plan->body, b.plan->nbody, 0,
	                       &b.prog->body, &b.prog->nbody)))
		goto cleanup;
	for (int i = 0; i < task->ndecls; i++) {
		if (task->decls[i].role != KRL_ROLE_OUTPUT || b.written[i])
			continue;
		krl_pos pos = task->decls[i].pos;
		if (cand) {
			krl_pos cpos = { cand->path, 0, 0 };
			pos = b.plan->nbody ? b.plan->body[b.plan->nbody - 1].pos :
			                      cpos;
		}
		r = krl_diag_set(d, KRL_EINVAL, pos,
		                 "output %s is never written by the plan (every "
		                 "output must be written by a body statement)",
		                 task->decls[i].name);
		goto cleanup;
	}
	*out = b.prog;
	b.prog = NULL;
cleanup:
	krl_program_free(b.prog);
	krl_setscope_free(&b.names);
	free(b.shapes);
	free(b.written);
	return r;
}

void krl_program_bind_views(const krl_program *p, void **ptrs, size_t elem)
{
	for (int i = 0; i < p->nbufs; i++) {
		const krl_buf *kb = &p->bufs[i];
		if (kb->role != KRL_ROLE_VIEW)
			continue;
		size_t sz = elem ? elem : krl_dtype_size(kb->dtype);
		ptrs[i] = ptrs[kb->alias] ?
		          (char *)ptrs[kb->alias] + (size_t)kb->offset * sz : NULL;
	}
}

/* ==== Hidden shape sets ==== */

static int is_fixed(const krl_task *t, const char *key)
{
	for (int i = 0; i < t->nfixed; i++)
		if (strcmp(t->fixed[i], key) == 0)
			return 1;
	return 0;
}

krl_err krl_task_draw_hidden(const krl_task *t, uint64_t *state,
                             const krl_limits *lim, krl_shapeset *out,
                             krl_diag *d)
{
	const krl_shapeset *tiny = krl_task_shapeset(t, "tiny");
	krl_pos tpos = { t->path, 0, 0 };
	memset(out, 0, sizeof *out);
	if (!tiny)
		return krl_diag_set(d, KRL_ENOTFOUND, tpos, "the task has no tiny "
		                    "shape set to draw hidden sets from");
	*out = *tiny;
	out->vals = calloc((size_t)(tiny->n ? tiny->n : 1), sizeof *out->vals);
	if (!out->vals)
		return krl_diag_set(d, KRL_ENOMEM, tpos, "out of memory");
	krl_diag last = {0};
	for (int attempt = 0; attempt < 64; attempt++) {
		for (int k = 0; k < tiny->n; k++) {
			int64_t v = tiny->vals[k];
			if (v <= 1 || is_fixed(t, tiny->keys[k])) {
				out->vals[k] = v;
				continue;
			}
			/* never below 2: a key of 2 or 3 drawn as 1 would turn
			 * a dimension into a broadcast one, another problem */
			int64_t lo = v / 2 < 2 ? 2 : v / 2, span = 2 * v - lo + 1;
			out->vals[k] = lo + (int64_t)(krl_splitmix64_next(state) %
			                               (uint64_t)span);
		}
		krl_program *p = NULL;
		krl_err r = krl_program_build_shapes(t, NULL, out, lim, &p, &last);
		krl_program_free(p);
		if (r == KRL_OK)
			return KRL_OK;
	}
	free(out->vals);
	out->vals = NULL;
	return krl_diag_set(d, KRL_ENOTFOUND, tpos,
	                    "no hidden shape set drawn from tiny resolves in 64 "
	                    "tries (last: %s); declare the keys that must not "
	                    "vary with 'fixed'", last.msg);
}
