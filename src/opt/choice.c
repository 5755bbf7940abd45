/* A choice written into a candidate and read back (include/krl/opt.h). */
#include <stdio.h>
#include <string.h>

#include "krl/opt.h"

int krl_choice_format(const krl_space *s, const krl_choice *c, char *buf,
                      size_t cap)
{
	size_t n = 0;
	int len = snprintf(buf, cap, "krl-choice:");
	for (int k = 0; k < s->ndec; k++) {
		n = len < 0 ? 0 : (size_t)len;
		const krl_decision *dk = &s->dec[k];
		int j = c->opt[k] >= 0 && c->opt[k] < dk->nopt ? c->opt[k] : 0;
		len += snprintf(n < cap ? buf + n : NULL, n < cap ? cap - n : 0,
		                " %s=%s", dk->name, dk->opt[j]);
	}
	return len;
}

static int find_opt(const krl_decision *dk, const char *z, size_t len)
{
	for (int j = 0; j < dk->nopt; j++)
		if (strlen(dk->opt[j]) == len && !memcmp(dk->opt[j], z, len))
			return j;
	return -1;
}

krl_err krl_choice_parse(const krl_space *s, const char *text, krl_choice *c,
                         krl_diag *d)
{
	memset(c, 0, sizeof *c);
	const char *p = strstr(text, "krl-choice:");
	if (!p)
		return krl_diag_set(d, KRL_ENOTFOUND, (krl_pos){0},
		                    "no 'krl-choice:' line in the candidate");
	p += strlen("krl-choice:");
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n' || *p == '\r')
			break;
		const char *name = p, *eq = NULL;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
			if (*p == '=' && !eq)
				eq = p;
			p++;
		}
		if (!eq)
			continue;
		size_t nlen = (size_t)(eq - name);
		for (int k = 0; k < s->ndec; k++) {
			if (strlen(s->dec[k].name) != nlen ||
			    memcmp(s->dec[k].name, name, nlen))
				continue;
			int j = find_opt(&s->dec[k], eq + 1, (size_t)(p - eq - 1));
			if (j >= 0)
				c->opt[k] = j;
		}
	}
	return KRL_OK;
}
