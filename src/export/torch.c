/*
 * kernelrl export --to torch (docs/export.md): an installable Python
 * package krl_<task>/ whose ModelNew (templates/export/torch_init.py,
 * embedded at build time) runs the --to cuda sources, written into
 * krl_<task>/csrc/, through ctypes; meta.json tells it the task's buffers,
 * shapes, tolerance and the candidate's measured speedup; kb_model.py is
 * KernelBench's Model file, whose parameters ModelNew adopts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "export/export_int.h"
#include "util/fs.h"

extern const char krl_export_torch_init[];

static const krl_pos nopos = { 0, 0, 0 };

static const char *role_name(krl_role r)
{
	return r == KRL_ROLE_INPUT ? "input" : r == KRL_ROLE_PARAM ? "param"
	       : "output";
}

static json_t *meta_json(const krl_task *t, const krl_program *p,
                         const krl_export_opts *o, const char *stem)
{
	size_t off[p->nbufs > 0 ? p->nbufs : 1], scratch, derived;
	krl_export_layout(p, off, &scratch, &derived);
	char lib[160];
	snprintf(lib, sizeof lib, "libkrl_%s_export.so", stem);
	json_t *bufs = json_array(), *shape = json_object();
	const krl_shapeset *ss = krl_task_shapeset(t, o->shapes);
	for (int i = 0; ss && i < ss->n; i++)
		json_object_set_new(shape, ss->keys[i], json_integer(ss->vals[i]));
	for (int i = 0; i < p->ntask; i++) {
		const krl_buf *q = &p->bufs[i];
		json_t *dims = json_array();
		for (int k = 0; k < q->ndim; k++)
			json_array_append_new(dims, json_integer(q->dim[k]));
		json_t *jb = json_pack("{s:s, s:s, s:s, s:o}",
			"name", q->name, "role", role_name(q->role),
			"dtype", krl_dtype_name(q->dtype), "shape", dims);
		/* a param drawn as const(v) is a constant of the task, not a
		 * parameter of the Model: ModelNew fills it with v */
		if (jb && q->role == KRL_ROLE_PARAM && q->dist.kind == KRL_DIST_CONST)
			json_object_set_new(jb, "const", json_real(q->dist.a));
		/* a bool input drawn bernoulli(p): a training-mode dropout's
		 * keep mask, which the task takes as an input and KernelBench's
		 * get_inputs() does not give; ModelNew draws it when called
		 * without it */
		if (jb && q->role == KRL_ROLE_INPUT && q->dtype == KRL_BOOL &&
		    q->dist.kind == KRL_DIST_BERNOULLI)
			json_object_set_new(jb, "bernoulli", json_real(q->dist.a));
		/* a constant buffer (tril, triu, arange): matched to the Model's
		 * registered buffer like any param, else filled from the pattern */
		if (jb && q->role == KRL_ROLE_PARAM &&
		    krl_dist_is_pattern(q->dist.kind)) {
			static const char *const pat[] = { "tril", "triu", "arange",
				"swin_coords", "swin_index", "swin_mask" };
			json_object_set_new(jb, "pattern", json_pack(
				"{s:s, s:f, s:f, s:I, s:I}",
				"kind", pat[q->dist.kind - KRL_DIST_TRIL],
				"a", q->dist.a, "b", q->dist.b,
				"rows", (json_int_t)q->dist.rows,
				"cols", (json_int_t)q->dist.cols));
		}
		json_array_append_new(bufs, jb);
	}
	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:f, s:f, s:s, "
	                 "s:s, s:s, s:f, s:f, s:f, s:I, s:I, s:b, s:o, s:s}",
		"task", t->id ? t->id : t->name, "name", t->name, "stem", stem,
		"shapes", o->shapes, "shape_values", shape,
		"source", t->source ? t->source : "",
		"precision", t->precision ? t->precision : "fp32",
		"atol", t->atol, "rtol", t->rtol, "arch", o->arch,
		"candidate", o->cand_hash ? o->cand_hash : "",
		"origin", o->cand_origin ? o->cand_origin : "",
		"krl_speedup", o->speedup, "krl_ci_low", o->ci_low,
		"krl_ci_high", o->ci_high, "workspace_bytes", (json_int_t)scratch,
		"derived_bytes", (json_int_t)derived, "has_init", p->ninit > 0,
		"buffers", bufs, "library", lib);
}

krl_err krl_export_torch(const krl_task *t, const krl_candidate *c,
                         const krl_program *p, const krl_export_opts *o,
                         const char *dir, krl_diag *d)
{
	char stem[96], pkg[4096], csrc[4200];
	krl_export_stem(t, stem, sizeof stem);
	if (!o->kb_model)
		return krl_diag_set(d, KRL_ENOTFOUND, nopos, "--to torch needs "
		                    "KernelBench's Model file of %s (its source: %s): "
		                    "pass --kernelbench FILE.py, or run "
		                    "bench/fetch_kb.sh", t->id ? t->id : t->name,
		                    t->source ? t->source : "unknown");
	snprintf(pkg, sizeof pkg, "%s/krl_%s", dir, stem);
	snprintf(csrc, sizeof csrc, "%s/csrc", pkg);
	if (krl_mkdirs(csrc) != 0)
		return krl_diag_set(d, KRL_EIO, nopos, "cannot create "
		                    "%s: %s", csrc, strerror(errno));
	krl_err e = krl_export_cuda(t, c, p, o, csrc, d);
	if (e)
		return e;
	if ((e = krl_export_copy(o->kb_model, pkg, "kb_model.py", d)))
		return e;
	krl_strbuf b = {0};
	krl_strbuf_str(&b, krl_export_torch_init);
	if ((e = krl_export_file(pkg, "__init__.py", &b, d)))
		return e;
	json_t *m = meta_json(t, p, o, stem);
	char *z = m ? json_dumps(m, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;
	json_decref(m);
	if (!z)
		return krl_diag_set(d, KRL_ENOMEM, nopos, "out of memory");
	krl_strbuf_str(&b, z);
	krl_strbuf_str(&b, "\n");
	free(z);
	if ((e = krl_export_file(pkg, "meta.json", &b, d)))
		return e;
	krl_strbuf_printf(&b,
		"# Generated by `krl export --to torch` (task %s). docs/export.md.\n"
		"[build-system]\nrequires = [\"setuptools>=61\"]\n"
		"build-backend = \"setuptools.build_meta\"\n\n"
		"[project]\nname = \"krl-%s\"\nversion = \"0.1.0\"\n"
		"description = \"kernelrl candidate for %s as a drop-in ModelNew\"\n"
		"requires-python = \">=3.9\"\ndependencies = [\"torch\"]\n\n"
		"[tool.setuptools]\npackages = [\"krl_%s\"]\n\n"
		"[tool.setuptools.package-data]\n"
		"krl_%s = [\"meta.json\", \"csrc/*\"]\n",
		t->id ? t->id : t->name, stem, t->id ? t->id : t->name, stem, stem);
	if ((e = krl_export_file(dir, "pyproject.toml", &b, d)))
		return e;
	krl_strbuf_printf(&b,
		"# krl_%s: kernelrl's candidate for %s, as a PyTorch module\n\n"
		"    pip install .            # or use the folder on sys.path\n"
		"    from krl_%s import ModelNew\n\n"
		"`ModelNew(*get_init_inputs())` is a drop-in for KernelBench's `Model`\n"
		"(krl_%s/kb_model.py). Shapes are fixed to shape set %s. The first call\n"
		"builds csrc/kernels.cu with nvcc (make lib; CUDA_HOME or nvcc on PATH).\n"
		"Check it against the Model on a GPU:\n\n"
		"    python3 bench/check_export.py %s --kernelbench krl_%s/kb_model.py\n\n"
		"Candidate %s; speedup measured by krl: %.4fx [%.4f, %.4f].\n",
		stem, t->id ? t->id : t->name, stem, stem, o->shapes, dir, stem,
		o->cand_hash ? o->cand_hash : "?", o->speedup, o->ci_low, o->ci_high);
	return krl_export_file(dir, "README.md", &b, d);
}
