#!/usr/bin/env python3
"""CPU emulation behind the tolerances of tasks/level3/48 and 49 (Mamba2),
and an independent float64 reading of the KernelBench Model to check the
tasks' plans against.

model() is the Model's forward written from the KernelBench source with
numpy (einsum, cumsum, the segsum mask), in any dtype; it shares nothing
with the plans in tasks/tools/gen_l3_mamba.py.

  emu_l3_mamba.py [BATCH]    kb1's per-item sizes (chunks of 64, 8 heads of
                             64, state 16) on BATCH items (default 64; the
                             headers quote 256), with A ~ normal(0, 1) (the
                             Model's draw) and normal(0, A_STD) (the tasks'
                             draw, see their headers): float64 against
                             numpy float32 (its own summation orders;
                             Mamba2's einsums/bmm run strict fp32 in
                             PyTorch, so there is no TF32 case) and a
                             float32 run with the cumsums in a different
                             order (and, for A_STD, TF32-rounded X, B, C
                             and a wrong output); prints each one's worst
                             error against the tasks' allowances, and the
                             exponents' range over a full kb1 batch of A.
  emu_l3_mamba.py --tiny BUILD   (or --kb0 BUILD: one draw)
                             the golden executor (BUILD/libkrl.a, compiled
                             into a small runner here) on both tasks at
                             that set, on inputs drawn here, against
                             model() in float64: prints the largest
                             difference; exit status 1 if they disagree.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

TOL = {48: (1e-2, 1e-3), 49: (1e-3, 1e-3)}   # (atol, rtol), as the tasks
A_STD = 0.1                                  # the tasks' draw of A: normal(0, A_STD)


def segsum(x, cumsum):
    T = x.shape[-1]
    xc = cumsum(x)
    xs = xc[..., :, None] - xc[..., None, :]
    mask = np.tril(np.ones((T, T), dtype=bool), 0)
    return np.where(mask, xs, -np.inf)


def model(X, A, B, C, block_len, dt, cumsum=None):
    """KernelBench's Model.forward (initial_states None): returns (Y,
    new_states[:, -1])."""
    if cumsum is None:
        def cumsum(x):
            return np.cumsum(x, axis=-1, dtype=dt)
    X, A, B, C = (t.astype(dt) for t in (X, A, B, C))
    b, L = X.shape[:2]
    c = L // block_len

    def blocks(t):
        return t.reshape((b, c, block_len) + t.shape[2:])
    Xb, Ab, Bb, Cb = blocks(X), blocks(A), blocks(B), blocks(C)
    Ab = Ab.transpose(0, 3, 1, 2)                     # b h c l
    A_cumsum = cumsum(Ab)
    with np.errstate(over="ignore"):
        Lm = np.exp(segsum(Ab, cumsum))
        Y_diag = np.einsum("bclhn,bcshn,bhcls,bcshp->bclhp", Cb, Bb, Lm, Xb, optimize=True)
        decay_states = np.exp(A_cumsum[:, :, :, -1:] - A_cumsum)
        states = np.einsum("bclhn,bhcl,bclhp->bchpn", Bb, decay_states, Xb, optimize=True)
        init = np.zeros_like(states[:, :1])
        states = np.concatenate([init, states], axis=1)
        padded = np.pad(A_cumsum[:, :, :, -1], ((0, 0), (0, 0), (1, 0)))
        decay_chunk = np.exp(segsum(padded, cumsum))
        new_states = np.einsum("bhzc,bchpn->bzhpn", decay_chunk, states, optimize=True)
        states = new_states[:, :-1]
        state_decay_out = np.exp(A_cumsum)
        Y_off = np.einsum("bclhn,bchpn,bhcl->bclhp", Cb, states, state_decay_out, optimize=True)
    Y = (Y_diag + Y_off).reshape(b, c * block_len, *Y_diag.shape[3:])
    return Y, new_states[:, -1]


def draw(rng, b, L, h, p, n, a_std=A_STD):
    f32 = np.float32
    return (rng.normal(0, 1, (b, L, h, p)).astype(f32), rng.normal(0, a_std, (b, L, h)).astype(f32),
            rng.normal(0, 1, (b, L, h, n)).astype(f32), rng.normal(0, 1, (b, L, h, n)).astype(f32))


def pairwise_cumsum(dt):
    """float32 cumsum in a tree order (Hillis-Steele steps, as a parallel
    scan adds), not numpy's sequential one."""
    def f(x):
        y = x.astype(dt).copy()
        s = 1
        while s < y.shape[-1]:
            y[..., s:] = y[..., s:] + y[..., :-s]
            s *= 2
        return y
    return f


def report(name, y64, y, tol):
    atol, rtol = tol
    d = np.abs(y.astype(np.float64) - y64)
    ratio = d / (atol + rtol * np.abs(y64))
    print("  %-22s max |diff| %.3g, worst ratio to the allowance %.3g, rel rms %.3g"
          % (name, d.max(), ratio.max(), np.sqrt((d ** 2).mean() / (y64 ** 2).mean())))


def tf32(a):
    u = a.astype(np.float32).view(np.uint32)
    return ((u + 0x1000) & 0xFFFFE000).view(np.float32)


def emulate(b):
    L, h, p, n, bl = 128, 8, 64, 16, 64
    for a_std in (1.0, A_STD):
        X, A, B, C = draw(np.random.default_rng(7), b, L, h, p, n, a_std)
        print("== A ~ normal(0, %g), batch %d of kb1's per-item sizes" % (a_std, b))
        Y64, S64 = model(X, A, B, C, bl, np.float64)
        Y32, S32 = model(X, A, B, C, bl, np.float32)
        Yt, St = model(X, A, B, C, bl, np.float32, pairwise_cumsum(np.float32))
        YT, ST = model(tf32(X), A, tf32(B), tf32(C), bl, np.float32)
        for tid, y64, y32, yt, yT in ((48, Y64, Y32, Yt, YT), (49, S64, S32, St, ST)):
            print("problem %d: y rms %.3g, |y| max %.3g, median %.3g" % (
                tid, np.sqrt((y64 ** 2).mean()), np.abs(y64).max(), np.median(np.abs(y64))))
            report("fp32 (numpy orders)", y64, y32, TOL[tid])
            report("fp32, tree cumsum", y64, yt, TOL[tid])
            if a_std == 1.0:
                r = np.abs(y32.astype(np.float64) - y64) / np.abs(y64)
                print("  fp32 elements beyond rtol 1e-3 / 1e-2 / 1e-1: %d / %d / %d of %d"
                      % ((r > 1e-3).sum(), (r > 1e-2).sum(), (r > 1e-1).sum(), r.size))
                continue
            report("TF32-rounded operands", y64, yT, TOL[tid])
            report("(wrong: Y_off dropped)" if tid == 48 else "(wrong: a chunk early)", y64,
                   model_wrong(X, A, B, C, bl, tid), TOL[tid])
        # exponent range over a full kb1 batch of A
        Afull = np.random.default_rng(8).normal(0, a_std, (2048, L, h)).astype(np.float32)
        Ab = Afull.reshape(2048, 2, bl, h).transpose(0, 3, 1, 2).astype(np.float64)
        cs = np.cumsum(Ab, -1)
        seg = cs[..., :, None] - cs[..., None, :]
        lower = np.tril(np.ones((bl, bl), bool))
        print("full kb1 batch of A: A_cumsum in [%.3g, %.3g]; segsum (kept part) up to %.3g; "
              "chunk totals' partial sums up to %.3g (float32 exp overflows above 88.7)"
              % (cs.min(), cs.max(), seg[..., lower].max(),
                 np.abs(np.cumsum(cs[..., -1], -1)).max()))


def model_wrong(X, A, B, C, bl, tid):
    Y, S = model(X, A, B, C, bl, np.float64)
    if tid == 48:
        Xs, As, Bs, Cs = X, A, B, C
        # Y_diag alone: the off-diagonal (state) term left out
        b, L = X.shape[:2]
        c = L // bl
        Ab = As.astype(np.float64).reshape(b, c, bl, -1).transpose(0, 3, 1, 2)
        Lm = np.exp(segsum(Ab, lambda x: np.cumsum(x, -1)))
        Yd = np.einsum("bclhn,bcshn,bhcls,bcshp->bclhp",
                       Cs.astype(np.float64).reshape(b, c, bl, *Cs.shape[2:]),
                       Bs.astype(np.float64).reshape(b, c, bl, *Bs.shape[2:]), Lm,
                       Xs.astype(np.float64).reshape(b, c, bl, *Xs.shape[2:]), optimize=True)
        return Yd.reshape(Y.shape)
    # the state before the last chunk instead of after it
    b, L = X.shape[:2]
    return model(X[:, :L - bl], A[:, :L - bl], B[:, :L - bl], C[:, :L - bl], bl, np.float64)[1]


RUNNER = r"""
#include <stdio.h>
#include <stdlib.h>
#include "krl/lang.h"
#include "krl/runtime.h"
/* argv: task, shape set, dir: reads DIR/<input or param>.f64, runs the
 * reference plan with the golden ops, writes DIR/<output>.out.f64 */
int main(int argc, char **argv)
{
	krl_diag d = {0};
	char msg[1200];
	krl_task *t = NULL;
	krl_program *p = NULL;
	krl_limits lim = krl_limits_sm90();
	if (argc != 4 || krl_task_load(argv[1], &t, &d) != KRL_OK ||
	    krl_program_build(t, NULL, argv[2], &lim, &p, &d) != KRL_OK)
		return fprintf(stderr, "%s\n", krl_diag_format(&d, msg, sizeof msg)), 1;
	double **bufs = calloc((size_t)p->nbufs, sizeof *bufs);
	for (int i = 0; i < p->nbufs; i++) {
		const krl_buf *b = &p->bufs[i];
		char path[512];
		if (b->role == KRL_ROLE_VIEW)
			continue;
		bufs[i] = calloc((size_t)(b->numel ? b->numel : 1), sizeof(double));
		if (b->role != KRL_ROLE_INPUT && b->role != KRL_ROLE_PARAM)
			continue;
		snprintf(path, sizeof path, "%s/%s.f64", argv[3], b->name);
		FILE *f = fopen(path, "rb");
		if (!f || fread(bufs[i], sizeof(double), (size_t)b->numel, f) != (size_t)b->numel)
			return fprintf(stderr, "cannot read %s\n", path), 1;
		fclose(f);
	}
	if (krl_exec_golden(p, bufs, &d) != KRL_OK)
		return fprintf(stderr, "%s\n", krl_diag_format(&d, msg, sizeof msg)), 1;
	for (int i = 0; i < p->nbufs; i++) {
		char path[512];
		if (p->bufs[i].role != KRL_ROLE_OUTPUT)
			continue;
		snprintf(path, sizeof path, "%s/%s.out.f64", argv[3], p->bufs[i].name);
		FILE *f = fopen(path, "wb");
		fwrite(bufs[i], sizeof(double), (size_t)p->bufs[i].numel, f);
		fclose(f);
	}
	return 0;
}
"""


GOLDEN_SETS = {"tiny": (2, 3, 4, 2, 3, 2, 3), "kb0": (16, 2, 64, 8, 64, 16, 1)}


def golden(build, set_name):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    tmp = tempfile.mkdtemp(prefix="emu_mamba_")
    src, obj, exe = (os.path.join(tmp, f) for f in ("run.c", "run.o", "run"))
    open(src, "w").write(RUNNER)
    subprocess.check_call(["gcc", "-std=c17", "-O1", "-I", os.path.join(root, "include"),
                           "-c", src, "-o", obj])
    subprocess.check_call(["g++", obj, os.path.join(build, "libkrl.a"),
                           os.path.join(build, "libkrl_ops.so"),
                           "-Wl,-rpath," + os.path.abspath(build),
                           "-L" + cuda + "/lib64", "-L" + cuda + "/lib64/stubs",
                           "-lcudart_static", "-lcuda", "-lnvrtc", "-lcublasLt", "-lcublas",
                           "-lcudnn", "-ljansson", "-lm", "-lpthread", "-ldl", "-lrt", "-o", exe])
    # the tasks' shapes lines: batch, chunks, block_len, heads, d_head, d_state
    b, c, bl, h, p, n, seeds = GOLDEN_SETS[set_name]
    worst = 0.0
    for seed in range(seeds):
        X, A, B, C = draw(np.random.default_rng(100 + seed), b, c * bl, h, p, n)
        for name, t in (("X", X), ("A", A), ("B", B), ("C", C)):
            t.astype(np.float64).tofile(os.path.join(tmp, name + ".f64"))
        Y, S = model(X, A, B, C, bl, np.float64)
        for task, want in (("48_mamba2_return_y", Y), ("49_mamba2_return_final_state", S)):
            subprocess.check_call([exe, os.path.join(root, "tasks", "level3", task + ".task"),
                                   set_name, tmp])
            got = np.fromfile(os.path.join(tmp, "y.out.f64")).reshape(want.shape)
            rel = np.abs(got - want).max() / np.abs(want).max()
            worst = max(worst, rel)
            print("%s seed %d: max |golden - numpy| %.3g of max |y| %.3g (relative %.2g)"
                  % (task, seed, np.abs(got - want).max(), np.abs(want).max(), rel))
    print("worst relative difference %.2g: %s" % (worst, "agree" if worst < 1e-12 else "DISAGREE"))
    return 0 if worst < 1e-12 else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] in ("--tiny", "--kb0"):
        sys.exit(golden(sys.argv[2], sys.argv[1][2:]))
    emulate(int(sys.argv[1]) if len(sys.argv) > 1 else 64)
