#!/usr/bin/env python3
"""CPU emulation behind the tolerance of tasks/level3/30_swin_transformer_v2
.task, and an independent numpy reading of KernelBench's SwinTransformerV2
(written from the Model's code, not from the task's plan).

Default: kb1's network on one image with params drawn as the task draws
them (numpy's generator, the task's distributions and its constant
buffers from gen_l3_swin.numpy_buffers): float64, float32 throughout
(numpy's blocked sums), float32 with the patch conv's operands rounded to
TF32 (cuDNN's default in PyTorch), and wrong variants (no mask, no shift,
no logit clamp, no position bias, bf16 activations); prints y's rms and
each one's distance from float64 against the task's tolerance (and TF32
in the Linears and bmms, which the tier does not allow).

--against DIR SET: reads params, input and output y that a float64 run of
the task's plan wrote to DIR (NAME.bin, float64, as the golden executor
holds them) and compares y with this reading of the Model at set SET.

Usage: tasks/tools/emu_l3_swinv2.py [--against DIR SET]   (numpy only;
GELU through math.erf; ~1 min at kb1 on 2 cores)
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_l3_swin as G  # noqa: E402

verf = np.vectorize(math.erf)


def tf32(a):
    b = a.astype(np.float32).view(np.uint32)
    return ((b + 0x1000) & 0xFFFFE000).view(np.float32)


def bf16(a):
    b = a.astype(np.float32).view(np.uint32)
    return ((b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000).view(np.float32)


def forward(P, x, s, dt=np.float64, conv_tf32=False, act=None, no_mask=False,
            no_shift=False, no_clamp=False, no_bias=False, mm_tf32=False):
    """The Model's forward at shape set s (dict of keys) on params P (the
    task's names), every tensor in dt; act rounds each block's output."""
    c = lambda a: np.asarray(a, dtype=dt)
    P = {k: c(v) if v.dtype != np.int64 else v for k, v in P.items()}
    x = c(x)
    B = x.shape[0]

    def ln(t, w, b):
        m = t.mean(-1, keepdims=True, dtype=dt)
        v = ((t - m) ** 2).mean(-1, keepdims=True, dtype=dt)
        return ((t - m) / np.sqrt(v + dt(1e-5))) * w + b

    r = (lambda a: tf32(a).astype(dt)) if mm_tf32 else (lambda a: a)

    def mm(a, b):
        return np.matmul(r(a), r(b))

    def linear(t, w, b=None):
        y = mm(t.reshape(-1, t.shape[-1]), w.T).reshape(t.shape[:-1] + (w.shape[0],))
        return y + b if b is not None else y

    def gelu(t):
        return c(0.5 * t * (1 + verf(t / np.sqrt(dt(2)))))

    # PatchEmbed
    w, b = P["pe_w"], P["pe_b"]
    if conv_tf32:
        xi, w = tf32(x).astype(dt), tf32(w).astype(dt)
    else:
        xi = x
    E, R = w.shape[0], s["image_size"] // 4
    xp = xi.reshape(B, 3, R, 4, R, 4).transpose(0, 2, 4, 1, 3, 5).reshape(B, R * R, 48)
    h = linear(xp, w.reshape(E, 48), b)                   # [B, L, E]
    h = ln(h, P["pe_norm_w"], P["pe_norm_b"])
    for si, (res, C, nh, ws, shifts) in enumerate(G.stages(s)):
        for bi in range(G.DEPTHS[si]):
            pre = "s%db%d_" % (si + 1, bi + 1)
            p = {k[len(pre):]: v for k, v in P.items() if k.startswith(pre)}
            shift = 0 if no_shift else shifts[bi]
            sc = h
            t = h.reshape(B, res, res, C)
            if shift:
                t = np.roll(t, (-shift, -shift), axis=(1, 2))
            n = res // ws
            xw = t.reshape(B, n, ws, n, ws, C).transpose(0, 1, 3, 2, 4, 5).reshape(-1, ws * ws, C)
            Bw, N = xw.shape[0], ws * ws
            qkv_b = np.concatenate([p["q_bias"], np.zeros_like(p["v_bias"]), p["v_bias"]])
            qkv = linear(xw, p["qkv_w"], qkv_b).reshape(Bw, N, 3, nh, -1).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            qn = q / np.maximum(np.sqrt((q * q).sum(-1, keepdims=True, dtype=dt)), dt(1e-12))
            kn = k / np.maximum(np.sqrt((k * k).sum(-1, keepdims=True, dtype=dt)), dt(1e-12))
            attn = mm(qn, kn.swapaxes(-2, -1))
            ls = p["logit_scale"]
            if not no_clamp:
                ls = np.minimum(ls, c(np.log(c(100.0))))
            attn = attn * np.exp(ls)
            if not no_bias:
                tab = p["coords_table"].reshape(-1, 2)
                hid = np.maximum(linear(tab, p["cpb1_w"], p["cpb1_b"]), 0)
                bt = linear(hid, p["cpb2_w"]).reshape(-1, nh)
                rpb = bt[p["position_index"].reshape(-1).astype(np.int64)].reshape(N, N, nh)
                rpb = 16 / (1 + np.exp(-rpb.transpose(2, 0, 1)))
                attn = attn + c(rpb)[None]
            if shifts[bi] and not no_mask and not no_shift:
                m = p["attn_mask"]
                nW = m.shape[0]
                attn = (attn.reshape(Bw // nW, nW, nh, N, N) + m[None, :, None]).reshape(-1, nh, N, N)
            attn = attn - attn.max(-1, keepdims=True)
            e = np.exp(attn)
            attn = e / e.sum(-1, keepdims=True, dtype=dt)
            o = mm(attn, v).transpose(0, 2, 1, 3).reshape(Bw, N, C)
            o = linear(o, p["proj_w"], p["proj_b"])
            o = o.reshape(B, n, n, ws, ws, C).transpose(0, 1, 3, 2, 4, 5).reshape(B, res, res, C)
            if shift:
                o = np.roll(o, (shift, shift), axis=(1, 2))
            h = sc + ln(o.reshape(B, res * res, C), p["norm1_w"], p["norm1_b"])
            f = linear(gelu(linear(h, p["fc1_w"], p["fc1_b"])), p["fc2_w"], p["fc2_b"])
            h = h + ln(f, p["norm2_w"], p["norm2_b"])
            if act is not None:
                h = c(act(h))
        if si < 3:
            pre = "s%d_merge_" % (si + 1)
            t = h.reshape(B, res, res, C)
            t = np.concatenate([t[:, 0::2, 0::2], t[:, 1::2, 0::2], t[:, 0::2, 1::2],
                                t[:, 1::2, 1::2]], -1).reshape(B, -1, 4 * C)
            t = linear(t, P[pre + "reduction_w"])
            h = ln(t, P[pre + "norm_w"], P[pre + "norm_b"])
    h = ln(h, P["norm_w"], P["norm_b"])
    h = h.mean(1, dtype=dt)
    return linear(h, P["head_w"], P["head_b"])


def draw(P, s, rng):
    """Params as the task declares them (its distributions, its patterns)."""
    from gen_l3_tasks import ev
    env = dict(s)
    for name, expr in P.consts:
        try:
            env[name] = ev(expr, env)
        except Exception:       # float consts (eps): no shape uses them
            pass
    out = {}
    for name, dims, dist in P.params:
        shape = tuple(ev(d, env) for d in dims)
        kind, args = dist.split("(")[0], [float(a) for a in dist[dist.index("(") + 1:-1].split(",")]
        if kind == "uniform":
            a = rng.uniform(args[0], args[1], shape)
        elif kind == "normal":
            a = rng.normal(args[0], args[1], shape)
        elif kind == "const":
            a = np.full(shape, args[0])
        elif kind in ("swin_coords", "swin_index", "swin_mask"):
            ws = int(args[0]) if kind != "swin_mask" else int(args[2])
            res = int(args[0]) if kind == "swin_mask" else ws
            shift = int(args[3]) if kind == "swin_mask" else 0
            tab, idx, m = G.numpy_buffers(ws, res, shift)
            a = {"swin_coords": tab, "swin_index": idx, "swin_mask": m}[kind]
            out[name] = a.reshape(shape)
            continue
        else:
            raise ValueError(dist)
        out[name] = a.astype(np.float32).astype(np.float64)
    return out


def against(d, set_name):
    n = G.build()
    P = n["P"]
    s = n["sets"][set_name]
    from gen_l3_tasks import ev
    env = dict(s)
    for name, expr in P.consts:
        try:
            env[name] = ev(expr, env)
        except Exception:
            pass
    prm = {}
    for name, dims, dist in P.params:
        shape = tuple(ev(x, env) for x in dims) if dims else ()
        a = np.fromfile(os.path.join(d, name + ".bin"), dtype=np.float64)
        prm[name] = a.reshape(shape).astype(np.int64) if P.dtypes.get(name) == "i64" \
            else a.reshape(shape)
    x = np.fromfile(os.path.join(d, "x.bin")).reshape(s["batch_size"], 3, s["image_size"], -1)
    y = np.fromfile(os.path.join(d, "y.bin")).reshape(s["batch_size"], -1)
    yr = forward(prm, x, s)
    err = np.abs(yr - y).max()
    print("y rms %.3g; max |plan - Model reading| %.3g" % (np.sqrt((yr ** 2).mean()), err))
    return 0 if err < 1e-9 * max(1, np.abs(yr).max()) else 1


def main():
    if "--against" in sys.argv:
        i = sys.argv.index("--against")
        return against(sys.argv[i + 1], sys.argv[i + 2])
    n = G.build()
    s = dict(n["sets"]["kb1"], batch_size=1)
    rng = np.random.default_rng(0)
    prm = draw(n["P"], s, rng)
    x = rng.normal(0, 1, (1, 3, 224, 224)).astype(np.float32).astype(np.float64)
    ref = forward(prm, x, s)
    atol, rtol = n["tol"]
    rms = np.sqrt((ref ** 2).mean())
    print("y rms %.3g, max |y| %.3g; tolerance atol %g rtol %g" % (rms, np.abs(ref).max(), atol, rtol))
    runs = [("fp32", dict(dt=np.float32)),
            ("fp32 + TF32 conv", dict(dt=np.float32, conv_tf32=True)),
            ("TF32 conv (float64 else)", dict(conv_tf32=True)),
            ("TF32 Linears and bmm", dict(dt=np.float32, conv_tf32=True, mm_tf32=True)),
            ("no mask", dict(no_mask=True)), ("no shift", dict(no_shift=True)),
            ("no logit clamp", dict(no_clamp=True)), ("no position bias", dict(no_bias=True)),
            ("bf16 block outputs", dict(act=bf16))]
    for name, kw in runs:
        y = forward(prm, x, s, **kw).astype(np.float64)
        d = np.abs(y - ref)
        ratio = (d / (atol + rtol * np.abs(ref))).max()
        print("%-26s max %.3g rms %.3g  worst/allowance %.3g  fails %.1f%%" % (
            name, d.max(), np.sqrt((d ** 2).mean()), ratio,
            100 * (d > atol + rtol * np.abs(ref)).mean()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
