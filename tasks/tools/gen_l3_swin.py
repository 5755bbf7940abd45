#!/usr/bin/env python3
"""Writes level-3 problem 30, SwinTransformerV2 (docs/tasks.md, "Level
3"), as PyTorch eager runs KernelBench's Model (coverage-l2-l3.md
sections 3 and 4), with gen_l3_attn.py's Plan and rendering (imported,
as that script imports gen_l3_tasks.py's helpers).

The Model's registered buffers (relative_coords_table,
relative_position_index, attn_mask) are params drawn by the task
language's Swin patterns (docs/language.md, "Constant buffers"), whose
arguments this script derives from the stage sizes. numpy_buffers()
computes them as WindowAttention.__init__ and SwinTransformerBlock.
__init__ do (float32 numpy for the table), and --check compares them,
bit for bit, with the patterns' C code (src/runtime/rng.h, compiled here
by cc when one is found) besides checking the task file is up to date.

Usage: tasks/tools/gen_l3_swin.py [--check]
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_l3_tasks import check_jsonl, level3_problems, write_tasks  # noqa: E402
from gen_l3_attn import Plan, U, render  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KEYS = ["batch_size", "image_size", "num_classes", "embed_dim", "window_size",
        "h1", "h2", "h3", "h4"]
KB1 = dict(batch_size=10, image_size=224, num_classes=1000, embed_dim=96, window_size=7,
           h1=3, h2=6, h3=12, h4=24)
TINY = dict(batch_size=1, image_size=224, num_classes=11, embed_dim=4, window_size=7,
            h1=2, h2=2, h3=4, h4=4)
DEPTHS = [2, 2, 6, 2]
CPB_HIDDEN = 512
LOGIT, LOGIT_LAST = "uniform(1.5, 3.5)", "uniform(1.5, 6)"


def stages(s):
    """(res, dim, heads, window, [shift per block]) of each stage at a
    shape set s, as the Model's BasicLayer/SwinTransformerBlock compute
    them (a map no larger than the window is one unshifted window)."""
    out = []
    res, dim = s["image_size"] // 4, s["embed_dim"]
    for i, d in enumerate(DEPTHS):
        ws = s["window_size"]
        shifts = [0 if b % 2 == 0 else ws // 2 for b in range(d)]
        if res <= ws:
            ws, shifts = res, [0] * d
        out.append((res, dim, s["h%d" % (i + 1)], ws, shifts))
        res, dim = res // 2, dim * 2
    return out


# ---- the buffers as the Model's __init__ builds them (numpy) ---------------

def numpy_buffers(ws, res, shift):
    """relative_coords_table (float32), relative_position_index (int64)
    and, for shift > 0, attn_mask (float32) of one block, following
    WindowAttention.__init__ and SwinTransformerBlock.__init__ step by
    step (float32 as torch's; np.log2(8) is a float64 scalar, which torch
    treats as a Python scalar: the division stays float32)."""
    import numpy as np
    f32 = np.float32
    rh = np.arange(-(ws - 1), ws, dtype=f32)
    gh, gw = np.meshgrid(rh, rh, indexing="ij")
    table = np.stack([gh, gw]).transpose(1, 2, 0).copy()[None]
    table[..., 0] /= f32(ws - 1)
    table[..., 1] /= f32(ws - 1)
    table *= f32(8)
    lg = (np.sign(table) * np.log2(np.abs(table) + f32(1.0))).astype(f32)
    table = (lg / f32(3.0)).astype(f32)
    ch, cw = np.meshgrid(np.arange(ws), np.arange(ws), indexing="ij")
    c = np.stack([ch.ravel(), cw.ravel()])
    rel = (c[:, :, None] - c[:, None, :]).transpose(1, 2, 0).copy()
    rel[:, :, 0] += ws - 1
    rel[:, :, 1] += ws - 1
    rel[:, :, 0] *= 2 * ws - 1
    index = rel.sum(-1).astype(np.int64)
    mask = None
    if shift:
        img = np.zeros((1, res, res, 1), f32)
        cnt = 0
        sl = (slice(0, -ws), slice(-ws, -shift), slice(-shift, None))
        for h in sl:
            for w in sl:
                img[:, h, w, :] = cnt
                cnt += 1
        n = res // ws
        mw = img.reshape(1, n, ws, n, ws, 1).transpose(0, 1, 3, 2, 4, 5).reshape(-1, ws * ws)
        m = mw[:, None, :] - mw[:, :, None]
        mask = np.where(m != 0, f32(-100.0), f32(0.0)).astype(f32)
    return table, index, mask


C_DUMP = r"""
#include <stdio.h>
#include "runtime/rng.h"
int main(int argc, char **argv)
{
	long ws, res, shift;
	if (argc < 4 || sscanf(argv[1], "%ld", &ws) != 1 ||
	    sscanf(argv[2], "%ld", &res) != 1 || sscanf(argv[3], "%ld", &shift) != 1)
		return 2;
	long nt = (2 * ws - 1) * (2 * ws - 1) * 2, ni = ws * ws * ws * ws;
	for (long i = 0; i < nt; i++)
		printf("%a\n", (double)(float)krl_swin_coords(ws, ws, 0, 0, i));
	for (long i = 0; i < ni; i++)
		printf("%.0f\n", krl_swin_index(ws, ws, i));
	if (shift > 0)
		for (long i = 0; i < (res / ws) * (res / ws) * ni; i++)
			printf("%.0f\n", krl_swin_mask(res, res, ws, shift, i));
	return 0;
}
"""


def check_patterns(cases):
    """Compiles C_DUMP against src/runtime/rng.h and compares its
    contents with numpy_buffers for each (ws, res, shift); returns the
    number of mismatching elements (None without a C compiler)."""
    import numpy as np
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return None
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "dump.c"), os.path.join(d, "dump")
        with open(src, "w") as f:
            f.write(C_DUMP)
        subprocess.run([cc, "-std=c17", "-O1", "-I" + os.path.join(ROOT, "include"),
                        "-I" + os.path.join(ROOT, "src"), src, "-o", exe, "-lm"], check=True)
        for ws, res, shift in cases:
            out = subprocess.run([exe, str(ws), str(res), str(shift)], check=True,
                                 capture_output=True, text=True).stdout.split()
            table, index, mask = numpy_buffers(ws, res, shift)
            nt = table.size
            got_t = np.array([float.fromhex(v) for v in out[:nt]], dtype=np.float32)
            bad += int((got_t.view(np.int32) != table.ravel().view(np.int32)).sum())
            got_i = np.array([int(v) for v in out[nt:nt + index.size]])
            bad += int((got_i != index.ravel()).sum())
            if mask is not None:
                got_m = np.array([float(v) for v in out[nt + index.size:]], dtype=np.float32)
                bad += int(got_m.size != mask.size) or int((got_m != mask.ravel()).sum())
    return bad


# ---- the network -------------------------------------------------------------

def ops_count(P):
    return len(P.body)


def swinv2():
    sets = dict(kb0=dict(KB1), kb1=dict(KB1), tiny=dict(TINY))
    P = Plan(sets, KEYS)
    st = {s: stages(v) for s, v in sets.items()}
    # the patterns' arguments are numbers: every set has kb1's maps and window
    for s in sets:
        assert [(r, w, sh) for r, _, _, w, sh in st[s]] == \
            [(r, w, sh) for r, _, _, w, sh in st["kb1"]], s
    P.const("eps", "1e-5", value=False)
    P.const("shift", "window_size / 2")
    P.const("res1", "image_size / 4")
    for i in range(2, 5):
        P.const("res%d" % i, "res%d / 2" % (i - 1))
    P.const("e2", "2 * embed_dim")
    P.const("e4", "4 * embed_dim")
    P.const("e8", "8 * embed_dim")
    B, E = "batch_size", "embed_dim"
    dims = [E, "e2", "e4", "e8"]
    heads = ["h1", "h2", "h3", "h4"]
    x_in = P.input("x", [B, "3", "image_size", "image_size"])
    y = P.output("y", [B, "num_classes"])
    flop = P.flop

    # -- params in the Model's creation order (krl export matches them) --
    pe_w = P.param("pe_w", [E, "3", "4", "4"], U(1 / (48 ** 0.5)))
    pe_b = P.param("pe_b", [E], U(1 / (48 ** 0.5)))
    pe_nw, pe_nb = P.ln_params("pe_norm", E)
    blocks = []     # (stage, block, param names)
    merges = []
    kb1c = [KB1["embed_dim"] * 2 ** i for i in range(4)]
    for si, (res, _, _, ws, shifts) in enumerate(st["kb1"]):
        C, nh = dims[si], heads[si]
        for bi in range(DEPTHS[si]):
            pre = "s%db%d_" % (si + 1, bi + 1)
            p = {}
            p["n1w"], p["n1b"] = P.ln_params(pre + "norm1", C)
            # logit_scale: log(10) in the Model, drawn around it; only the
            # last block's may pass the clamp at log(100) (see the note)
            p["ls"] = P.param(pre + "logit_scale", [nh, "1", "1"],
                              LOGIT_LAST if (si, bi) == (3, DEPTHS[3] - 1) else LOGIT)
            p["c1w"] = P.param(pre + "cpb1_w", [str(CPB_HIDDEN), "2"], U(1 / 2 ** 0.5))
            p["c1b"] = P.param(pre + "cpb1_b", [str(CPB_HIDDEN)], U(1 / 2 ** 0.5))
            p["c2w"] = P.param(pre + "cpb2_w", [nh, str(CPB_HIDDEN)], U(1 / CPB_HIDDEN ** 0.5))
            p["qkvw"] = P.param(pre + "qkv_w", ["3 * %s" % C, C], U(1 / kb1c[si] ** 0.5))
            p["qb"] = P.param(pre + "q_bias", [C], U(1 / kb1c[si] ** 0.5))
            p["vb"] = P.param(pre + "v_bias", [C], U(1 / kb1c[si] ** 0.5))
            p["pw"], p["pb"] = P.linear_params(pre + "proj", C, C, kb1c[si])
            p["n2w"], p["n2b"] = P.ln_params(pre + "norm2", C)
            p["f1w"], p["f1b"] = P.linear_params(pre + "fc1", C, "4 * %s" % C, kb1c[si])
            p["f2w"], p["f2b"] = P.linear_params(pre + "fc2", "4 * %s" % C, C, 4 * kb1c[si])
            blocks.append((si, bi, p))
        if si < 3:
            pre = "s%d_merge_" % (si + 1)
            rw = P.param(pre + "reduction_w", ["2 * %s" % C, "4 * %s" % C],
                         U(1 / (4 * kb1c[si]) ** 0.5))
            nw_, nb_ = P.ln_params(pre + "norm", "2 * %s" % C)
            merges.append((rw, nw_, nb_))
    fn_w, fn_b = P.ln_params("norm", "e8")
    hw, hb = P.linear_params("head", "e8", "num_classes", 8 * KB1["embed_dim"])
    # registered buffers (after every parameter, as the Model lists them)
    for si, bi, p in blocks:
        res, _, _, ws, shifts = st["kb1"][si]
        pre = "s%db%d_" % (si + 1, bi + 1)
        p["table"] = P.param(pre + "coords_table",
                             ["1", str(2 * ws - 1), str(2 * ws - 1), "2"],
                             "swin_coords(%d, %d)" % (ws, ws))
        p["index"] = P.param(pre + "position_index", [str(ws * ws), str(ws * ws)],
                             "swin_index(%d, %d)" % (ws, ws), dt="i64")
        if shifts[bi]:
            nw = (res // ws) ** 2
            p["mask"] = P.param(pre + "attn_mask", [str(nw), str(ws * ws), str(ws * ws)],
                                "swin_mask(%d, %d, %d, %d)" % (res, res, ws, shifts[bi]))
    # torch.tensor(1. / 0.01, device=cuda): a constant of the task
    hundred = P.param("hundred", [], "const(100)")

    # -- forward --
    # Scratch: the residual stream (x1, x2) is one buffer per block; every
    # other temporary is one buffer per stage (name s<stage>_...), reused
    # by its blocks as PyTorch's caching allocator reuses freed blocks, and
    # the score chain ping-pongs between two such buffers; cpb_h is one.
    made = {}

    def tmp(name, dims, stage=None):
        key = name if stage is None else "s%d_%s" % (stage + 1, name)
        if key in made:
            assert made[key] == dims, (key, made[key], dims)
            return key
        made[key] = dims
        return P.buf(key, dims)

    R1 = "res1"
    L1 = "res1 * res1"
    pe = P.buf("pe", [B, E, "res1", "res1"])
    P.call("conv_bias", [x_in, pe_w, pe_b], [pe], stride=4)
    flop("%s * %s * res1 * res1 * 48" % (B, E), 2)
    pe3 = P.view("pe3", pe, [B, E, L1])
    pet = P.buf("pe_t", [B, L1, E])
    P.call("permute", [pe3], [pet], p0=0, p1=2, p2=1)
    x = P.buf("pe_n", [B, L1, E])
    P.layernorm(pet, pe_nw, pe_nb, x, "%s * %s" % (B, L1), E)
    for si, bi, p in blocks:
        res_v, _, _, ws_v, shifts = st["kb1"][si]
        C, nh, R = dims[si], heads[si], "res%d" % (si + 1)
        L = "%s * %s" % (R, R)
        single = res_v == ws_v
        shift = shifts[bi]
        pre = "s%db%d_" % (si + 1, bi + 1)
        N = "window_size * window_size"
        nwin = "(%s / window_size) * (%s / window_size)" % (R, R)
        Bw = "%s * %s" % (B, nwin) if not single else B
        hd = "%s / %s" % (C, nh)
        BH = "%s * %s" % (Bw, nh)
        x4 = P.view(pre + "x4", x, [B, R, R, C])
        src = x4
        if shift:
            src = tmp("rolled", [B, R, R, C], stage=si)
            P.call("roll", [x4], [src], dim0=1, shift0="0 - shift", dim1=2,
                   shift1="0 - shift")
        if single:
            xw = P.view(pre + "xw", src, [Bw, N, C])
        else:
            s6 = P.view(pre + "x6", src, [B, "%s / window_size" % R, "window_size",
                                          "%s / window_size" % R, "window_size", C])
            xw = tmp("xw", [Bw, N, C], stage=si)
            xw6 = P.view(pre + "xw6", xw, [B, "%s / window_size" % R, "%s / window_size" % R,
                                           "window_size", "window_size", C])
            P.call("permute", [s6], [xw6], p0=0, p1=1, p2=3, p3=2, p4=4, p5=5)
        # qkv bias: cat(q_bias, zeros_like(v_bias), v_bias)
        z = tmp("zeros", [C], stage=si)
        P.call("fill", [], [z], value=0)
        qkvb = tmp("qkv_bias", ["3 * %s" % C], stage=si)
        P.call("cat", [p["qb"], z, p["vb"]], [qkvb], dim=0)
        qkv = tmp("qkv", [Bw, N, "3 * %s" % C], stage=si)
        P.linear(xw, p["qkvw"], qkvb, qkv, "%s * %s" % (Bw, N), C, "3 * %s" % C)
        qkv5 = P.view(pre + "qkv5", qkv, [Bw, N, "3", nh, hd])
        qkvh = tmp("qkvh", ["3", Bw, nh, N, hd], stage=si)
        P.call("permute", [qkv5], [qkvh], p0=2, p1=0, p2=3, p3=1, p4=4)
        rows = "%s * %s" % (BH, N)
        normed = []
        for j, nm in enumerate(("q", "k")):
            t = P.view(pre + nm, qkvh, [rows, hd],
                       off=None if j == 0 else "%s * %s * %s" % (BH, N, hd))
            nrm = tmp(nm + "_norm", [rows, "1"], stage=si)
            P.call("vector_norm", [t], [nrm], dim=1)
            nc = tmp(nm + "_normc", [rows, "1"], stage=si)
            P.call("clamp_min", [nrm], [nc], min="1e-12")
            tn = tmp(nm + "_n", [BH, N, hd], stage=si)
            tn2 = P.view(pre + nm + "_n2", tn, [rows, hd])
            P.call("div_bcast", [t, nc], [tn2])
            flop("%s * %s" % (rows, hd), 3)
            normed.append(tn)
        v = P.view(pre + "v", qkvh, [BH, N, hd], off="2 * %s * %s * %s" % (BH, N, hd))
        s1 = tmp("scores_a", [BH, N, N], stage=si)
        sb = tmp("scores_b", [BH, N, N], stage=si)
        P.call("gemm", normed, [s1], tb=1)
        flop("%s * %s * %s * %s" % (BH, N, N, hd), 2)
        # logit_scale = clamp(logit_scale, max=log(100)).exp()
        lg = tmp("log100", [], stage=si)
        P.call("log", [hundred], [lg])
        lc = tmp("ls_c", [nh, "1", "1"], stage=si)
        P.call("minimum_bcast", [p["ls"], lg], [lc])
        le = tmp("ls_e", [nh, "1", "1"], stage=si)
        P.call("exp", [lc], [le])
        s14 = P.view(pre + "scores4", s1, [Bw, nh, N, N])
        s2 = P.view(pre + "scaled", sb, [Bw, nh, N, N])
        P.call("mul_bcast", [s14, le], [s2])
        flop("%s * %s * %s" % (BH, N, N))
        # continuous position bias: cpb_mlp on the table, gathered, 16 sigmoid
        T = "(2 * window_size - 1) * (2 * window_size - 1)"
        t2 = P.view(pre + "table2", p["table"], [T, "2"])
        hcp = tmp("cpb_h", [T, str(CPB_HIDDEN)])
        P.linear(t2, p["c1w"], p["c1b"], hcp, T, "2", str(CPB_HIDDEN))
        P.call("relu", [hcp], [hcp])
        flop("%s * %d" % (T, CPB_HIDDEN))
        bt = tmp("cpb_out", [T, nh], stage=si)
        P.call("gemm", [hcp, p["c2w"]], [bt], tb=1)
        flop("%s * %d * %s" % (T, CPB_HIDDEN, nh), 2)
        idx = P.view(pre + "index1", p["index"], ["%s * %s" % (N, N)])
        g = tmp("bias_g", ["%s * %s" % (N, N), nh], stage=si)
        P.call("index_select", [bt, idx], [g], dim=0)
        g3 = P.view(pre + "bias_g3", g, [N, N, nh])
        rp = tmp("bias_p", [nh, N, N], stage=si)
        P.call("permute", [g3], [rp], p0=2, p1=0, p2=1)
        sg = tmp("bias_s", [nh, N, N], stage=si)
        P.call("sigmoid", [rp], [sg])
        rpb = tmp("bias16", [nh, N, N], stage=si)
        P.call("scale", [sg], [rpb], alpha=16)
        flop("%s * %s * %s" % (nh, N, N), 5)
        s3 = P.view(pre + "biased", s1, [Bw, nh, N, N])
        P.call("add_bcast", [s2, rpb], [s3])
        flop("%s * %s * %s" % (BH, N, N))
        att = s3
        if shift:
            nwn = str((res_v // ws_v) ** 2)
            s35 = P.view(pre + "biased5", s3, [B, nwn, nh, N, N])
            m4 = P.view(pre + "mask4", p["mask"], [nwn, "1", N, N])
            s4 = P.view(pre + "masked", sb, [B, nwn, nh, N, N])
            P.call("add_bcast", [s35, m4], [s4])
            flop("%s * %s * %s" % (BH, N, N))
            att = P.view(pre + "masked4", s4, [Bw, nh, N, N])
        pr = sb if att == s3 else s1      # the one the softmax does not read
        pr4 = P.view(pre + "probs4", pr, [Bw, nh, N, N])
        P.call("softmax", [att], [pr4], dim=-1)
        flop("%s * %s * %s" % (BH, N, N), 5)
        o = tmp("o", [BH, N, hd], stage=si)
        P.call("gemm", [pr, v], [o])
        flop("%s * %s * %s * %s" % (BH, N, N, hd), 2)
        o4 = P.view(pre + "o4", o, [Bw, nh, N, hd])
        ot = tmp("ot", [Bw, N, nh, hd], stage=si)
        P.call("permute", [o4], [ot], p0=0, p1=2, p2=1, p3=3)
        ot3 = P.view(pre + "ot3", ot, [Bw, N, C])
        pj = tmp("proj", [Bw, N, C], stage=si)
        P.linear(ot3, p["pw"], p["pb"], pj, "%s * %s" % (Bw, N), C, C)
        # window_reverse, reverse shift
        if single:
            back = P.view(pre + "back", pj, [B, R, R, C])
        else:
            pj6 = P.view(pre + "proj6", pj, [B, "%s / window_size" % R, "%s / window_size" % R,
                                             "window_size", "window_size", C])
            back = tmp("back", [B, R, R, C], stage=si)
            b6 = P.view(pre + "back6", back, [B, "%s / window_size" % R, "window_size",
                                              "%s / window_size" % R, "window_size", C])
            P.call("permute", [pj6], [b6], p0=0, p1=1, p2=3, p3=2, p4=4, p5=5)
        if shift:
            ub = tmp("unrolled", [B, R, R, C], stage=si)
            P.call("roll", [back], [ub], dim0=1, shift0="shift", dim1=2, shift1="shift")
            back = ub
        b3 = P.view(pre + "back3", back, [B, L, C])
        BL = "%s * %s" % (B, L)
        n1 = tmp("n1", [B, L, C], stage=si)
        P.layernorm(b3, p["n1w"], p["n1b"], n1, BL, C)
        x1 = P.buf(pre + "x1", [B, L, C])
        P.call("add", [x, n1], [x1])
        flop("%s * %s" % (BL, C))
        hf = tmp("fc1", [B, L, "4 * %s" % C], stage=si)
        P.linear(x1, p["f1w"], p["f1b"], hf, BL, C, "4 * %s" % C)
        gf = tmp("gelu", [B, L, "4 * %s" % C], stage=si)
        P.call("gelu", [hf], [gf])
        flop("%s * 4 * %s" % (BL, C), 8)
        of = tmp("fc2", [B, L, C], stage=si)
        P.linear(gf, p["f2w"], p["f2b"], of, BL, "4 * %s" % C, C)
        n2 = tmp("n2", [B, L, C], stage=si)
        P.layernorm(of, p["n2w"], p["n2b"], n2, BL, C)
        x2 = P.buf(pre + "x2", [B, L, C])
        P.call("add", [x1, n2], [x2])
        flop("%s * %s" % (BL, C))
        x = x2
        if bi == DEPTHS[si] - 1 and si < 3:
            rw, mnw, mnb = merges[si]
            R2 = "res%d" % (si + 2)
            pre = "s%d_merge_" % (si + 1)
            x6 = P.view(pre + "x6", x, [B, R2, "2", R2, "2", C])
            cat = tmp("cat", [B, "%s * %s" % (R2, R2), "4 * %s" % C], stage=si)
            cat6 = P.view(pre + "cat6", cat, [B, R2, R2, "2", "2", C])
            P.call("permute", [x6], [cat6], p0=0, p1=1, p2=3, p3=4, p4=2, p5=5)
            rows = "%s * %s * %s" % (B, R2, R2)
            red = tmp("reduced", [B, "%s * %s" % (R2, R2), "2 * %s" % C], stage=si)
            P.call("gemm", [cat, rw], [red], tb=1)
            flop("%s * 4 * %s * 2 * %s" % (rows, C, C), 2)
            x = tmp("norm", [B, "%s * %s" % (R2, R2), "2 * %s" % C], stage=si)
            P.layernorm(red, mnw, mnb, x, rows, "2 * %s" % C)
    L4 = "res4 * res4"
    xn = P.buf("final_norm", [B, L4, "e8"])
    P.layernorm(x, fn_w, fn_b, xn, "%s * %s" % (B, L4), "e8")
    pooled = P.buf("pooled", [B, "e8"])
    pv = P.view("pooled3", pooled, [B, "1", "e8"])
    P.call("mean", [xn], [pv], dim=1)
    flop("%s * %s * e8" % (B, L4))
    P.linear(pooled, hw, hb, y, B, "e8", "num_classes")
    return P


NOTE = """SwinTransformerV2 (KernelBench's; Model() with its defaults, no
init_weights): PatchEmbed (Conv2d(3, 96, 4, stride 4, bias),
flatten(2).transpose(1, 2), LayerNorm(96)); 4 stages of (2, 2, 6, 2)
blocks at 56, 28, 14, 7 (dims 96, 192, 384, 768; heads 3, 6, 12, 24;
window 7; the odd blocks of stages 1-3 shifted by 3, stage 4 one
unshifted window), PatchMerging (cat of the four 2 x 2 phases, Linear(4C,
2C, no bias), LayerNorm(2C): V2 reduces before it normalises) after the
first three; LayerNorm(768); AdaptiveAvgPool1d(1) on x.transpose(1, 2);
Linear(768, num_classes). On x[10, 3, 224, 224]. Same forward at both
revisions (kb0 draws randn, kb1 rand; we draw normal(0, 1)); kb0 = kb1.
Dropout (p = 0) and drop_path (nn.Identity) are left out. {nops} calls.

Each block is post-norm: x = x + norm1(attn(x)); x = x + norm2(mlp(x)).
The window attention (cosine attention with a continuous position bias),
as PyTorch eager runs it and the plan with it: the shifted blocks roll
the [B, H, W, C] map by (-3, -3) (`roll`, two kernels as roll_common's
recursion) and back by (3, 3) after; window_partition and window_reverse
are one `permute` copy each (.contiguous() of the permuted view; stage 4
permutes only size-1 dims, no copy); the qkv bias is torch.cat((q_bias,
zeros_like(v_bias), v_bias)): a `fill` (zeros_like) and one `cat`; F.
linear on the contiguous windows is addmm with the bias epilogue
(`linear`). F.normalize(q) and F.normalize(k) are each a norm reduction,
clamp_min(1e-12) and a division (`vector_norm`, `clamp_min`,
`div_bcast`); then q_n @ k_n^T and attn @ v, where torch.matmul's reshape
copies q_n, k_n^T and v (the normalized tensors keep q's strided layout)
before each bmm. The plan instead makes one `permute` of qkv viewed [B_,
N, 3, heads, hd] into [3, B_, heads, N, hd] before the norms (the same
bytes as PyTorch's three copies, in one launch: the language's
vector_norm reads a contiguous last dim), so the norms read q and k
contiguously and k stays [N, hd] for `gemm tb=1`. logit_scale =
clamp(logit_scale, max=log(tensor(100, device=cuda))).exp(): the
per-block torch.tensor(1 / 0.01, device=cuda) is a pageable H2D copy and
a stream sync in eager, which a plan cannot express: it is the constant
param `hundred` (const(100)), so the reference skips 12 host syncs a call
(slightly faster than eager: conservative); the `log` of it, the clamp
with a tensor bound (`minimum_bcast`, clamp_max's kernel) and the `exp`
stay, one kernel each per block as in eager. attn * logit_scale is a
broadcast `mul_bcast`. The continuous position bias runs every call, as
in forward: cpb_mlp on the [1, 13, 13, 2] table (Linear(2, 512) as addmm
with bias, `linear`; ReLU in place; Linear(512, heads, no bias) as mm,
`gemm tb=1`), table[relative_position_index.view(-1)] (`index_select`,
index.Tensor's gather), .view(49, 49, heads).permute(2, 0, 1).contiguous()
(`permute`), 16 * sigmoid (`sigmoid`, `scale`), + into the scores
(`add_bcast`); the shifted blocks add the mask viewed [1, nW, 1, N, N] to
the scores viewed [B, nW, heads, N, N] (`add_bcast`); softmax; bmm with
v; transpose(1, 2).reshape (`permute`); proj (`linear`). The MLP is fc1
(`linear`), GELU (erf), fc2 (`linear`). PatchMerging's cat of four
strided slices on the last dim is one CatArrayBatchedCopy in PyTorch;
here one `permute` of x viewed [B, H/2, 2, W/2, 2, C] to (b, i, j, dw,
dh, c), the same bytes in one launch. PatchEmbed's LayerNorm gets the
transposed view, which layer_norm makes contiguous (`permute`); the final
pool is one `mean` over L of [B, L, C].

Constant buffers (docs/language.md, "Constant buffers"): every block's
relative_coords_table is a param drawn `swin_coords(7, 7)`, its
relative_position_index (i64) `swin_index(7, 7)`, and each shifted
block's attn_mask `swin_mask(res, res, 7, 3)`: exactly what the Model's
__init__ computes (tasks/tools/gen_l3_swin.py --check compares the
patterns' C code with a numpy replay of the Model's __init__, bit for
bit; the table's log2 is accurate to about 1 ulp in torch's CPU kernel,
correctly rounded in the pattern). One set per block, as the Model
registers them (declared after every parameter, in creation order, as
krl export matches params to the Model's tensors). The patterns take
numbers, not shape keys, so every shape set keeps kb1's 224 x 224 image
and window 7 (`fixed`); tiny shrinks the batch to {tb} and the widths to
embed {te} (heads {th}; the cpb MLP's hidden 512 is the Model's literal),
within the CPU audit's limits.

Scratch: the residual stream is one buffer per block, every other
temporary one buffer per stage, reused by its blocks (as PyTorch's
caching allocator reuses freed blocks), the attention scores ping-pong
between two, and the cpb MLP's hidden [169, 512] is one: 0.8 GB at
kb1.

Params: PyTorch's init at kb1's fan-ins (the Model does not
re-initialise): Linear and Conv weights and biases uniform(+-
1/sqrt(fan_in)); q_bias and v_bias (zeros in the Model) drawn the same
so that a dropped bias fails; logit_scale (log(10) in the Model) drawn
{logit} around it, and the last block's {logit_last}, so that the
clamp at log(100) = 4.61 holds some of its heads and dropping it fails.
Only the last block's: a clamped head multiplies cosines by 100, its
softmax is nearly an argmax, and in an early block that makes the rest
of the network sensitive to the patch conv's TF32 rounding (clamped heads
in every block: 3.7e-3 at worst in the emulation below, 30 times what
this draw gives); LayerNorm w ~ normal(1, 0.5), b ~ normal(0, 0.5)
(ones/zeros would hide a dropped affine); eps = 1e-5.

{tol_note}"""

TOL_NOTE = """Precision tf32 (the patch conv runs in cuDNN with TF32 allowed, PyTorch's
default; every Linear and bmm is strict fp32). tasks/tools/emu_l3_swinv2.py
(kb1's network on one image, params drawn as here, float64 against
float32 with TF32 operands in the patch conv): y ~{yrms} rms; TF32 in the
conv moves it by {tf32_rms} rms, {tf32_max} at worst; fp32 alone by
{f32_max} at worst. atol = {atol:g}, rtol = {rtol:g}: the TF32 conv uses
{tf32_ratio} of the allowance (a candidate with an fp32 conv against the
TF32 reference differs by that), while TF32 in the Linears and bmms
({mm_ratio} of it at worst, failing on {mm_fail} of one image's outputs),
bf16 block outputs ({bf16_ratio}), a dropped mask, shift, logit clamp or
position bias (20 to 80 times it), zeros and a constant fail."""

# filled from tasks/tools/emu_l3_swinv2.py's output
EMU = dict(yrms="0.71", tf32_rms="3.8e-5", tf32_max="1.2e-4", f32_max="6.9e-7", atol=1e-3,
           rtol=1e-3, tf32_ratio="0.11", mm_ratio="1.12", mm_fail="0.5%", bf16_ratio="2.0")


def build():
    P = swinv2()
    note = NOTE.format(nops=ops_count(P), tol_note=TOL_NOTE.format(**EMU), logit=LOGIT,
                       logit_last=LOGIT_LAST, tb=TINY["batch_size"], te=TINY["embed_dim"],
                       th=", ".join(str(TINY["h%d" % i]) for i in range(1, 5)))
    return dict(id=30, stem="30_SwinTransformerV2", name="swin_transformer_v2", P=P,
                note=note, tol=(EMU["atol"], EMU["rtol"]), prec="tf32",
                sets=P.sets, gen="gen_l3_swin.py",
                fixed=["image_size", "embed_dim", "window_size", "h1", "h2", "h3", "h4"],
                jsonl=lambda s: dict(batch_size=s["batch_size"], image_size=s["image_size"]))


def main():
    check = "--check" in sys.argv[1:]
    n = build()
    check_jsonl(n, level3_problems())
    rc = write_tasks([render(n)], check)
    if check:
        cases = [(7, 56, 3), (7, 28, 3), (7, 14, 3), (7, 7, 0), (4, 12, 1)] + \
            [(w, 2 * w, w // 2) for w in range(2, 17)]
        bad = check_patterns(cases)
        if bad is None:
            print("no C compiler: the patterns were not compared with numpy")
        elif bad:
            print("swin patterns: %d elements differ from numpy's __init__" % bad,
                  file=sys.stderr)
            rc = 1
        else:
            print("swin patterns equal numpy's __init__ (%d window/map/shift cases)"
                  % len(cases))
    return rc


if __name__ == "__main__":
    sys.exit(main())
