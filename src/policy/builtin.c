/*
 * The builtin policy (include/krl/policy.h, docs/optimizer.md section 4):
 * string-keyed weights of a log-linear model over a task's decisions, the
 * weights file, sampling and mutating choices, and the policy-gradient
 * step that the search (src/rl/search.c) takes after each group.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "krl/policy.h"
#include "util/strbuf.h"

#ifndef KRL_SOURCE_DIR
#define KRL_SOURCE_DIR "."
#endif

#define NAME_MAX_LEN 63
#define KEY_CAP (3 * (NAME_MAX_LEN + 1))
#define HEADER "krl-builtin-weights"

/* ==== The weight table ==== */

/* One weight: key is "decision\toption\tfeature" (names hold no white
 * space, so the tab sorts the keys as the triples sort). */
typedef struct entry {
	char *key;
	double w;
	int line;                /* where the weights file set it (messages) */
} entry;

struct krl_policy {
	entry *slot;             /* open addressing; key NULL = empty */
	int cap, n;
	int uniform;
};

static uint64_t fnv(const void *data, size_t len, uint64_t h)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

#define FNV_START 0xcbf29ce484222325ull

static int make_key(char *buf, const char *a, const char *b, const char *c)
{
	int n = snprintf(buf, KEY_CAP, "%s\t%s\t%s", a, b, c);
	return n > 0 && n < KEY_CAP ? n : -1;
}

/* The slot holding key, or the empty slot where it would go. */
static entry *find(const krl_policy *p, const char *key)
{
	if (!p->cap)
		return NULL;
	uint64_t h = fnv(key, strlen(key), FNV_START);
	for (int i = (int)(h & (uint64_t)(p->cap - 1));; i = (i + 1) & (p->cap - 1))
		if (!p->slot[i].key || !strcmp(p->slot[i].key, key))
			return &p->slot[i];
}

static krl_err grow(krl_policy *p)
{
	int cap = p->cap ? 2 * p->cap : 64;
	entry *old = p->slot;
	int oldcap = p->cap;
	entry *slot = calloc((size_t)cap, sizeof *slot);
	if (!slot)
		return KRL_ENOMEM;
	p->slot = slot;
	p->cap = cap;
	for (int i = 0; i < oldcap; i++)
		if (old[i].key)
			*find(p, old[i].key) = old[i];
	free(old);
	return KRL_OK;
}

/* The entry of key, created (weight 0) when absent; NULL when out of
 * memory. */
static entry *get_or_add(krl_policy *p, const char *key)
{
	entry *e = find(p, key);
	if (e && e->key)
		return e;
	if (4 * (p->n + 1) > 3 * p->cap) {
		if (grow(p) != KRL_OK)
			return NULL;
		e = find(p, key);
	}
	if (!(e->key = strdup(key)))
		return NULL;
	e->w = 0;
	e->line = 0;
	p->n++;
	return e;
}

static double wget(const krl_policy *p, const char *a, const char *b,
                   const char *c)
{
	char key[KEY_CAP];
	if (make_key(key, a, b, c) < 0)
		return 0;
	const entry *e = find(p, key);
	return e && e->key ? e->w : 0;
}

krl_err krl_policy_create(krl_policy **out)
{
	*out = calloc(1, sizeof **out);
	return *out ? KRL_OK : KRL_ENOMEM;
}

void krl_policy_free(krl_policy *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->cap; i++)
		free(p->slot[i].key);
	free(p->slot);
	free(p);
}

void krl_policy_set_uniform(krl_policy *p, int on)
{
	p->uniform = on != 0;
}

int krl_policy_is_uniform(const krl_policy *p)
{
	return p->uniform;
}

static int good_name(const char *z)
{
	size_t n = strlen(z);
	if (!n || n > NAME_MAX_LEN)
		return 0;
	for (; *z; z++)
		if (*z == ' ' || *z == '\t' || *z == '\n' || *z == '\r' || *z == '#')
			return 0;
	return 1;
}

double krl_policy_weight(const krl_policy *p, const char *decision,
                         const char *option, const char *feature)
{
	return wget(p, decision, option, feature);
}

krl_err krl_policy_set_weight(krl_policy *p, const char *decision,
                              const char *option, const char *feature,
                              double w)
{
	char key[KEY_CAP];
	if (!good_name(decision) || !good_name(option) || !good_name(feature) ||
	    !isfinite(w))
		return KRL_EINVAL;
	make_key(key, decision, option, feature);
	entry *e = get_or_add(p, key);
	if (!e)
		return KRL_ENOMEM;
	e->w = w;
	return KRL_OK;
}

/* The non-zero entries sorted by key (caller frees the array, not the
 * entries); NULL with *n = 0 when there are none or memory ran out
 * (*oom says which). */
static entry **sorted(const krl_policy *p, int *n, int *oom)
{
	entry **v = malloc(sizeof *v * (size_t)(p->n ? p->n : 1));
	*n = 0;
	*oom = !v;
	if (!v)
		return NULL;
	for (int i = 0; i < p->cap; i++)
		if (p->slot[i].key && p->slot[i].w != 0)
			v[(*n)++] = &p->slot[i];
	for (int i = 1; i < *n; i++) /* insertion sort: a few thousand at most */
		for (int j = i; j > 0 && strcmp(v[j - 1]->key, v[j]->key) > 0; j--) {
			entry *t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return v;
}

/* p[key] += sign * w for every weight w of q (q's keys are valid names). */
static krl_err add_scaled(krl_policy *p, const krl_policy *q, double sign)
{
	for (int i = 0; i < q->cap; i++) {
		const entry *s = &q->slot[i];
		if (!s->key || s->w == 0)
			continue;
		entry *e = get_or_add(p, s->key);
		if (!e)
			return KRL_ENOMEM;
		e->w += sign * s->w;
	}
	return KRL_OK;
}

krl_err krl_policy_add_change(krl_policy *p, const krl_policy *after,
                              const krl_policy *before)
{
	/* the change first, so that p's weight moves by exactly
	 * after - before (rounded once) */
	krl_policy *dw = NULL;
	krl_err e = krl_policy_create(&dw);
	if (e == KRL_OK)
		e = add_scaled(dw, after, 1);
	if (e == KRL_OK)
		e = add_scaled(dw, before, -1);
	if (e == KRL_OK)
		e = add_scaled(p, dw, 1);
	krl_policy_free(dw);
	return e;
}

int krl_policy_size(const krl_policy *p)
{
	int n = 0;
	for (int i = 0; i < p->cap; i++)
		n += p->slot[i].key && p->slot[i].w != 0;
	return n;
}

void krl_policy_fingerprint(const krl_policy *p, char out[17])
{
	int n, oom;
	entry **v = sorted(p, &n, &oom);
	uint64_t h = fnv(p->uniform ? "u" : "w", 1, FNV_START);
	for (int i = 0; i < n; i++) {
		h = fnv(v[i]->key, strlen(v[i]->key) + 1, h);
		h = fnv(&v[i]->w, sizeof v[i]->w, h);
	}
	if (oom)
		h = 0; /* never equal to a real fingerprint's run */
	free(v);
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* ==== The weights file ==== */

static krl_err perr(krl_diag *d, const char *path, int line, int col,
                    const char *fmt, const char *arg)
{
	krl_pos pos = {path, line, col};
	return krl_diag_set(d, KRL_ESYNTAX, pos, fmt, arg);
}

krl_err krl_policy_parse(const char *path, const char *text, krl_policy **out,
                         krl_diag *d)
{
	krl_policy *p = NULL;
	krl_err e = krl_policy_create(&p);
	int line = 0, seen_header = 0;
	*out = NULL;
	if (e != KRL_OK)
		return e;
	for (const char *z = text; *z;) {
		const char *eol = strchr(z, '\n');
		size_t len = eol ? (size_t)(eol - z) : strlen(z);
		char buf[512];
		line++;
		if (len >= sizeof buf) {
			e = perr(d, path, line, (int)sizeof buf,
			         "line longer than %s characters", "511");
			goto fail;
		}
		memcpy(buf, z, len);
		buf[len] = 0;
		if (len && buf[len - 1] == '\r')
			buf[len - 1] = 0;
		z = eol ? eol + 1 : z + len;
		/* Fields split at blanks, with their columns. */
		char *f[6];
		int col[6], nf = 0;
		for (char *q = buf; *q && nf < 6;) {
			while (*q == ' ' || *q == '\t')
				q++;
			if (!*q || (nf == 0 && *q == '#'))
				break;
			f[nf] = q;
			col[nf++] = (int)(q - buf) + 1;
			while (*q && *q != ' ' && *q != '\t')
				q++;
			if (*q)
				*q++ = 0;
		}
		if (nf == 0)
			continue;
		if (!seen_header) {
			if (strcmp(f[0], HEADER) != 0 || nf != 2) {
				e = perr(d, path, line, col[0],
				         "expected the header line '%s 1' (a krl weights "
				         "file)", HEADER);
				goto fail;
			}
			char *end;
			long v = strtol(f[1], &end, 10);
			if (*end || v != KRL_WEIGHTS_VERSION) {
				e = perr(d, path, line, col[1],
				         "weights format version '%s' is not the one this "
				         "build reads (1)", f[1]);
				goto fail;
			}
			seen_header = 1;
			continue;
		}
		if (nf < 4) {
			e = perr(d, path, line, nf ? col[nf - 1] : 1,
			         "expected 4 fields: decision option feature weight%s",
			         "");
			goto fail;
		}
		if (nf > 4) {
			e = perr(d, path, line, col[4],
			         "unexpected '%s' after the weight", f[4]);
			goto fail;
		}
		for (int i = 0; i < 3; i++)
			if (!good_name(f[i])) {
				e = perr(d, path, line, col[i],
				         "name '%s' is longer than 63 characters or holds "
				         "a '#'", f[i]);
				goto fail;
			}
		char *end;
		errno = 0;
		double w = strtod(f[3], &end);
		if (*end || end == f[3] || !isfinite(w) || errno == ERANGE) {
			e = perr(d, path, line, col[3],
			         "weight '%s' is not a finite number", f[3]);
			goto fail;
		}
		char key[KEY_CAP];
		make_key(key, f[0], f[1], f[2]);
		entry *en = find(p, key);
		if (en && en->key) {
			char msg[64];
			snprintf(msg, sizeof msg, "%d", en->line);
			e = perr(d, path, line, col[0],
			         "duplicate weight (first set at line %s)", msg);
			goto fail;
		}
		if (!(en = get_or_add(p, key))) {
			e = KRL_ENOMEM;
			goto fail;
		}
		en->w = w;
		en->line = line;
	}
	if (!seen_header) {
		e = perr(d, path, line ? line : 1, 1,
		         "expected the header line '%s 1' before the end of the "
		         "file",
		         HEADER);
		goto fail;
	}
	*out = p;
	return KRL_OK;
fail:
	krl_policy_free(p);
	return e;
}

krl_err krl_policy_load(const char *path, krl_policy **out, krl_diag *d)
{
	FILE *f = fopen(path, "rb");
	*out = NULL;
	if (!f)
		return krl_diag_set(d, KRL_EIO, (krl_pos){path, 0, 0},
		                    "cannot read the weights file: %s",
		                    strerror(errno));
	char *text = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			char *t = realloc(text, cap = 2 * cap + 8192);
			if (!t) {
				free(text);
				fclose(f);
				return KRL_ENOMEM;
			}
			text = t;
		}
		size_t got = fread(text + n, 1, 4096, f);
		n += got;
		if (got < 4096)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(text);
		return krl_diag_set(d, KRL_EIO, (krl_pos){path, 0, 0},
		                    "cannot read the weights file");
	}
	text[n] = 0;
	if (strlen(text) != n) {
		free(text);
		return krl_diag_set(d, KRL_ESYNTAX, (krl_pos){path, 0, 0},
		                    "the weights file holds a NUL byte");
	}
	krl_err e = krl_policy_parse(path, text, out, d);
	free(text);
	return e;
}

krl_err krl_policy_save(const krl_policy *p, const char *path, krl_diag *d)
{
	char tmp[4200];
	int n, oom;
	krl_err e = krl_fmt_fixed(tmp, sizeof tmp, "the weights path", d,
	                          "%s.tmp.%ld", path, (long)getpid());
	if (e != KRL_OK)
		return e;
	entry **v = sorted(p, &n, &oom);
	if (oom)
		return KRL_ENOMEM;
	FILE *f = fopen(tmp, "w");
	if (!f) {
		free(v);
		return krl_diag_set(d, KRL_EIO, (krl_pos){path, 0, 0},
		                    "cannot write the weights file: %s",
		                    strerror(errno));
	}
	fprintf(f, "%s %d\n"
	           "# The builtin policy's weights (docs/optimizer.md, section 4):\n"
	           "# logit(decision, option) = w[decision option bias] +\n"
	           "#     sum over features f of w[decision option f] * f.\n"
	           "# One 'decision option feature weight' line per non-zero weight,"
	           " sorted;\n"
	           "# a weight not listed is 0 (all 0: every option equally likely).\n",
	        HEADER, KRL_WEIGHTS_VERSION);
	for (int i = 0; i < n; i++) {
		char key[KEY_CAP];
		snprintf(key, sizeof key, "%s", v[i]->key);
		for (char *q = key; *q; q++)
			if (*q == '\t')
				*q = ' ';
		fprintf(f, "%s %.17g\n", key, v[i]->w);
	}
	free(v);
	int bad = ferror(f);
	bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		int err = errno;
		unlink(tmp);
		return krl_diag_set(d, KRL_EIO, (krl_pos){path, 0, 0},
		                    "cannot write the weights file: %s",
		                    strerror(err));
	}
	return KRL_OK;
}

const char *krl_policy_default_path(void)
{
	/* never copied into a buffer: nothing to cut */
	struct stat st;
	const char *env = getenv("KRL_WEIGHTS");
	if (env && *env)
		return env;
	if (stat("policy/builtin.weights", &st) == 0)
		return "policy/builtin.weights";
	return KRL_SOURCE_DIR "/policy/builtin.weights";
}

/* ==== The model ==== */

static int is_bias(const char *z)
{
	return !z || !strcmp(z, "bias");
}

void krl_policy_probs(const krl_policy *p, const krl_space *s,
                      const krl_features *x, int k, double *probs)
{
	const krl_decision *dk = &s->dec[k];
	double mx = -INFINITY, sum = 0;
	if (dk->nopt <= 0)
		return;
	if (p->uniform) {
		for (int j = 0; j < dk->nopt; j++)
			probs[j] = 1.0 / dk->nopt;
		return;
	}
	for (int j = 0; j < dk->nopt; j++) {
		double l = wget(p, dk->name, dk->opt[j], "bias");
		for (int f = 0; x && f < x->n; f++)
			if (!is_bias(x->name[f]) && x->val[f] != 0)
				l += wget(p, dk->name, dk->opt[j], x->name[f]) * x->val[f];
		probs[j] = l;
		mx = fmax(mx, l);
	}
	for (int j = 0; j < dk->nopt; j++)
		sum += probs[j] = exp(probs[j] - mx);
	for (int j = 0; j < dk->nopt; j++)
		probs[j] /= sum;
}

/* Draws an option of decision k. */
static int draw(const krl_policy *p, const krl_space *s, const krl_features *x,
                int k, krl_rng *rng)
{
	double pr[KRL_MAX_OPTIONS];
	int n = s->dec[k].nopt, pick = 0;
	if (n <= 1)
		return 0;
	krl_policy_probs(p, s, x, k, pr);
	double u = krl_rng_uniform(rng), acc = 0;
	for (int j = 0; j < n; j++) {
		if (!(pr[j] > 0))
			continue;
		pick = j; /* the last possible one absorbs rounding */
		acc += pr[j];
		if (u < acc)
			break;
	}
	return pick;
}

void krl_policy_mode(const krl_policy *p, const krl_space *s,
                     const krl_features *x, krl_choice *out)
{
	double pr[KRL_MAX_OPTIONS];
	memset(out, 0, sizeof *out);
	for (int k = 0; k < s->ndec; k++) {
		if (s->dec[k].nopt <= 1)
			continue;
		krl_policy_probs(p, s, x, k, pr);
		for (int j = 1; j < s->dec[k].nopt; j++)
			if (pr[j] > pr[out->opt[k]])
				out->opt[k] = j;
	}
}

void krl_policy_sample(const krl_policy *p, const krl_space *s,
                       const krl_features *x, krl_rng *rng, krl_choice *out)
{
	memset(out, 0, sizeof *out);
	for (int k = 0; k < s->ndec; k++)
		out->opt[k] = draw(p, s, x, k, rng);
}

int krl_policy_mutate(const krl_policy *p, const krl_space *s,
                      const krl_features *x, const krl_choice *base, int m,
                      krl_rng *rng, krl_choice *out, uint32_t *mask)
{
	int elig[KRL_MAX_DECISIONS], n = 0;
	*out = *base;
	*mask = 0;
	for (int k = 0; k < s->ndec; k++)
		if (s->dec[k].nopt >= 2)
			elig[n++] = k;
	if (m > n)
		m = n;
	/* The first m of a partial Fisher-Yates shuffle: m distinct decisions,
	 * each subset equally likely. */
	for (int i = 0; i < m; i++) {
		int r = i + (int)(krl_rng_uniform(rng) * (n - i));
		int t = elig[i];
		elig[i] = elig[r];
		elig[r] = t;
		out->opt[elig[i]] = draw(p, s, x, elig[i], rng);
		*mask |= 1u << elig[i];
	}
	return m;
}

/* Adds v to the delta of key (a, b, c). */
static krl_err acc(krl_policy *dw, const char *a, const char *b, const char *c,
                   double v)
{
	char key[KEY_CAP];
	if (make_key(key, a, b, c) < 0)
		return KRL_OK; /* a name no weight can have: never read either */
	entry *e = get_or_add(dw, key);
	if (!e)
		return KRL_ENOMEM;
	e->w += v;
	return KRL_OK;
}

krl_err krl_policy_update(krl_policy *p, const krl_space *s,
                          const krl_features *x, int n,
                          const krl_choice *choice, const uint32_t *mask,
                          const double *adv, double lr, double max_norm,
                          double *norm)
{
	krl_policy *dw = NULL;
	krl_err e;
	if (norm)
		*norm = 0;
	if (p->uniform)
		return KRL_OK;
	if ((e = krl_policy_create(&dw)) != KRL_OK)
		return e;
	/* Normalised as in NLMS: a step changes a logit by lr * adv * (1[j ==
	 * c] - P(j)) whatever the features' scale (a log2 of bytes is ~25). */
	double xx = 1;
	for (int f = 0; x && f < x->n; f++)
		if (!is_bias(x->name[f]))
			xx += x->val[f] * x->val[f];
	for (int i = 0; i < n && e == KRL_OK; i++) {
		if (adv[i] == 0 || !isfinite(adv[i]))
			continue;
		for (int k = 0; k < s->ndec && e == KRL_OK; k++) {
			const krl_decision *dk = &s->dec[k];
			double pr[KRL_MAX_OPTIONS];
			if (!(mask[i] >> k & 1) || dk->nopt < 2)
				continue;
			krl_policy_probs(p, s, x, k, pr);
			for (int j = 0; j < dk->nopt && e == KRL_OK; j++) {
				double g = lr * adv[i] *
				           ((j == choice[i].opt[k] ? 1.0 : 0.0) - pr[j]) / xx;
				e = acc(dw, dk->name, dk->opt[j], "bias", g);
				for (int f = 0; x && f < x->n && e == KRL_OK; f++)
					if (!is_bias(x->name[f]) && x->val[f] != 0)
						e = acc(dw, dk->name, dk->opt[j], x->name[f],
						        g * x->val[f]);
			}
		}
	}
	double ss = 0;
	for (int i = 0; e == KRL_OK && i < dw->cap; i++)
		if (dw->slot[i].key)
			ss += dw->slot[i].w * dw->slot[i].w;
	double nm = sqrt(ss), scale = 1;
	if (max_norm > 0 && nm > max_norm)
		scale = max_norm / nm;
	/* Make room first, so that running out of memory changes nothing. */
	for (int i = 0; e == KRL_OK && i < dw->cap; i++)
		if (dw->slot[i].key && !get_or_add(p, dw->slot[i].key))
			e = KRL_ENOMEM;
	for (int i = 0; e == KRL_OK && i < dw->cap; i++)
		if (dw->slot[i].key)
			find(p, dw->slot[i].key)->w += scale * dw->slot[i].w;
	if (e == KRL_OK && norm)
		*norm = nm;
	krl_policy_free(dw);
	return e;
}
