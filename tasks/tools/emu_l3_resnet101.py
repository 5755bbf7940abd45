#!/usr/bin/env python3
"""CPU emulation of how far batch-norm statistics in another fp32 summation
order can move y of tasks/level3/10_resnet101.task at kb1's sizes.

It reads the task file itself (shape set kb1, consts, param lines, plan) and
interprets the plan with numpy: conv as im2col + matmul (1x1 as a plain
matmul; depthwise as 9 shifted multiply-adds), batchnorm in training mode
(batch statistics over N, H, W, biased variance, eps from the plan), relu,
hardtanh, max_pool2d, add, mean over a view, linear. Params are drawn fp32 as
the param lines say (uniform/normal, seeded), x ~ normal(0, 1).

Runs, on IMAGES images (default 10 = kb1's batch; fewer images also means
batch statistics over fewer images):
  f64   float64 throughout;
  tf32  every non-depthwise conv operand rounded to TF32 (ties away), products
        accumulated in float32, every op's output stored as fp32, batch-norm
        statistics computed in float64 and rounded to fp32; linear fp32;
  tf32' as tf32, with each BN's mean and variance multiplied by
        (1 + REL * z), z ~ normal(0, 1) per channel (seeded): a model of the
        same statistics summed in another fp32 order (REL default 1e-7);
  fp32  as tf32 without the TF32 rounding (strict fp32 convs);
and compares (a) tf32 vs f64, (b) tf32' vs tf32, (c) (b) again with every BN
affine at w = 1, b = 0 (KernelBench's own init) instead of the drawn
normal(1, 0.5) / normal(0, 0.5), (d) fp32 vs f64, (e) (b) on fp32 runs.
For each: max |diff|, diff rms, y rms, the outputs outside atol + rtol *
|ref| (1e-2, 1e-2 as the task) out of N * classes, and the relative rms
difference (rms diff / rms of the reference tensor) after the stem and after
every residual block (or after every BN for a net without adds).

Numpy only; with OpenBLAS (apt-get install libopenblas0-pthread; Debian's
reference BLAS is ~50x slower) the seven forwards at 10 images take ~40 s
on 2 cores. Findings at 10 images (kb1's batch): a 1e-7 (even 1e-9)
perturbation of the BN statistics moves y by max 0.04 (tf32), 1e-4 (fp32):
any bit of difference at a TF32 conv's input flips the TF32 rounding of
some operands, a ~5e-4 relative change, and the net's gain carries it to
the output; so at precision tf32 this tolerance fails correct candidates.

Usage: tasks/tools/emu_l3_resnet101.py [IMAGES [REL]]
"""
import numpy as np, os, re, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ATOL, RTOL = 1e-2, 1e-2


def tf32(a):
    b = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    return ((b + 0x1000) & 0xFFFFE000).view(np.float32)


class Task:
    pass


def load(path, shapes="kb1", **over):
    """Parse a .task file: the named shape set (+ overrides), consts, input,
    params, output and plan (buffers, views, calls)."""
    t = Task()
    t.env, t.params, t.buffers, t.views, t.calls = {}, [], {}, {}, []
    t.inputs, t.outputs = [], {}
    ev = lambda e: eval(e.replace("/", "//"), {}, t.env)
    shp = lambda s: tuple(ev(d) for d in s.split(","))
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("#") or not line.strip():
            continue
        w = line.split()
        if w[0] == "shapes" and w[1] == shapes:
            for kv in w[2:]:
                k, v = kv.split("=")
                t.env[k] = int(v)
            t.env.update(over)
        elif w[0] == "const":
            k, e = line[len("const"):].split("=", 1)
            t.env[k.strip()] = ev(e.strip())
        elif w[0] in ("input", "param", "output"):
            m = re.match(r"^\w+\s+(\S+)\s+f32\s+\[(.*?)\]\s*(?:(\w+)\((.*)\))?\s*$", line)
            name, s, dist, args = m.groups()
            ent = (name, shp(s), dist, tuple(float(a) for a in args.split(",")) if args else None)
            {"input": t.inputs, "param": t.params}.get(w[0], []).append(ent)
            if w[0] == "output":
                t.outputs[name] = ent[1]
        elif w[0] == "tolerance":
            t.tol = dict(kv.split("=") for kv in w[1:])
        elif w[0] == "buffer":
            m = re.match(r"^\s*buffer\s+(\S+)\s+\w+\s+\[(.*?)\]", line)
            t.buffers[m.group(1)] = shp(m.group(2))
        elif w[0] == "view":
            m = re.match(r"^\s*view\s+(\S+)\s*=\s*(\S+)\s+\[(.*?)\]", line)
            t.views[m.group(1)] = (m.group(2), shp(m.group(3)))
        elif w[0] == "call":
            m = re.match(r"^\s*call\s+(\w+)\((.*?)\)\s*->\s*(.*)$", line)
            op, ins, rest = m.groups()
            a = re.search(r"\s[a-z_]+=", " " + rest)
            outs, attrs = (rest, "") if not a else (rest[:a.start() - 1], rest[a.start():])
            kw = {}
            for kv in re.split(r"\s+(?=[a-z_]+=)", attrs.strip()) if attrs.strip() else []:
                k, e = kv.split("=", 1)
                kw[k] = t.env[e.strip()] if e.strip() in t.env else ev(e)
            t.calls.append((op, [s.strip() for s in ins.split(",")],
                            [s.strip() for s in outs.split(",")], kw))
    t.buffers.update(t.outputs)
    return t


def draw(t, seed=0):
    """x and params, fp32, in the task file's order."""
    rng = np.random.default_rng(seed)
    vals = {}
    for name, s, dist, a in t.inputs + t.params:
        v = rng.uniform(a[0], a[1], s) if dist == "uniform" else rng.normal(a[0], a[1], s)
        vals[name] = v.astype(np.float32)
    return vals


def conv(x, w, stride, pad, groups, dt, tf):
    n, c, h, wd = x.shape
    o, ci, kh, kw = w.shape
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    if groups > 1:   # depthwise: the library's own fp32 kernel, no TF32
        assert groups == c == o and ci == 1, "only depthwise grouped convs"
        xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))).astype(dt)
        y = np.zeros((n, c, oh, ow), dt)
        for i in range(kh):
            for j in range(kw):
                y += xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride] * \
                    w[None, :, 0, i, j, None, None].astype(dt)
        return y
    r = tf32 if tf else (lambda a: a.astype(dt))
    wr = r(w).reshape(o, ci * kh * kw)
    if kh == kw == 1 and pad == 0:
        cols = r(x[:, :, ::stride, ::stride]).reshape(n, c, oh * ow)
    else:
        xp = r(np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))))
        sn, sc, sh, sw = xp.strides
        v = np.lib.stride_tricks.as_strided(
            xp, (n, c, kh, kw, oh, ow), (sn, sc, sh, sw, sh * stride, sw * stride))
        cols = v.reshape(n, c * kh * kw, oh * ow)
    y = np.empty((n, o, oh * ow), dt)
    for k in range(n):
        np.dot(wr, cols[k], out=y[k])
    return y.reshape(n, o, oh, ow)


def forward(t, p, mode, rel=0.0, pseed=1, affine=True, track=None):
    """Interpret t's plan. mode 'f64', 'tf32' or 'fp32' (as tf32 without the
    rounding of conv operands). rel: relative perturbation
    of every BN's mean and variance. affine=False: BN w = 1, b = 0.
    track: op names after which a float32 snapshot of the output is kept.
    Returns (y, snapshots)."""
    dt = np.float64 if mode == "f64" else np.float32
    tf = mode == "tf32"
    pz = np.random.default_rng(pseed)
    base = lambda nm: t.views[nm][0] if nm in t.views else nm
    last = {}
    for i, (op, ins, outs, kw) in enumerate(t.calls):
        for nm in ins:
            last[base(nm)] = i
    env = {k: v.astype(dt) for k, v in p.items()}
    snaps = []

    def get(nm):
        if nm in t.views:
            b, s = t.views[nm]
            return env[b].reshape(s)
        return env[nm]

    def put(nm, v):
        b = base(nm)
        env[b] = np.ascontiguousarray(v, dtype=dt).reshape(t.buffers[b])

    for i, (op, ins, outs, kw) in enumerate(t.calls):
        a = [get(nm) if nm in env or nm in t.views else None for nm in ins]
        if op == "conv":
            y = conv(a[0], p[ins[1]], kw.get("stride", 1), kw.get("padding", 0),
                     kw.get("groups", 1), dt, tf)
        elif op == "batchnorm":
            x64 = a[0].astype(np.float64)
            m = x64.mean((0, 2, 3))
            v = ((x64 - m[None, :, None, None]) ** 2).mean((0, 2, 3))
            if dt == np.float32:
                m, v = m.astype(np.float32).astype(np.float64), v.astype(np.float32).astype(np.float64)
            zm, zv = pz.normal(0, 1, m.shape), pz.normal(0, 1, v.shape)
            if rel:
                m, v = m * (1 + rel * zm), v * (1 + rel * zv)
            g, b = (a[1].astype(np.float64), a[2].astype(np.float64)) if affine else (1.0, 0.0)
            s = g / np.sqrt(v + kw["eps"])
            y = (x64 - m[None, :, None, None]) * (s * np.ones_like(m))[None, :, None, None] + \
                (b * np.ones_like(m))[None, :, None, None]
        elif op == "relu":
            y = np.maximum(a[0], 0)
        elif op == "hardtanh":
            y = np.clip(a[0], kw["min_val"], kw["max_val"])
        elif op == "add":
            y = a[0] + a[1]
        elif op == "max_pool2d":
            k, s, pd = kw["kernel_size"], kw.get("stride", kw["kernel_size"]), kw.get("padding", 0)
            x = a[0]
            n, c, h, wd = x.shape
            oh, ow = (h + 2 * pd - k) // s + 1, (wd + 2 * pd - k) // s + 1
            xp = np.pad(x, ((0, 0), (0, 0), (pd, pd), (pd, pd)), constant_values=-np.inf)
            y = np.full((n, c, oh, ow), -np.inf, dt)
            for di in range(k):
                for dj in range(k):
                    np.maximum(y, xp[:, :, di:di + s * oh:s, dj:dj + s * ow:s], out=y)
        elif op == "mean":
            y = a[0].astype(np.float64).mean(kw["dim"], keepdims=True)
        elif op == "linear":
            y = np.dot(a[0], a[1].T) + a[2]
        else:
            raise SystemExit("op %s not emulated" % op)
        put(outs[0], y)
        for o in outs[1:]:
            env[base(o)] = None   # max_pool2d's index output: unused
        if track and op in track:
            snaps.append((op, env[base(outs[0])].astype(np.float32)))
        for nm in set(base(n_) for n_ in ins):
            if last.get(nm) == i and nm not in t.outputs and nm not in p:
                del env[nm]
    return env["y"].astype(np.float64), snaps


def report(name, z, ref):
    d = np.abs(z - ref)
    out = int((d > ATOL + RTOL * np.abs(ref)).sum())
    print("%s: max_abs %.3g, diff rms %.3g, y rms %.3g (ref), outside %g+%g*|ref|: %d of %d;"
          " worst ratio to the allowance %.3g" % (
              name, d.max(), np.sqrt((d ** 2).mean()), np.sqrt((ref ** 2).mean()), ATOL, RTOL,
              out, d.size, (d / (ATOL + RTOL * np.abs(ref))).max()))


def growth(name, sz, sref, per_line=8):
    r = ["%.2g" % (np.sqrt(((a - b).astype(np.float64) ** 2).mean() / (b.astype(np.float64) ** 2).mean()))
         for (_, a), (_, b) in zip(sz, sref)]
    labels = [op for op, _ in sref]
    print("%s: relative rms diff after each of %d tracked ops (%s):" % (
        name, len(r), ", ".join(sorted(set(labels)))))
    for k in range(0, len(r), per_line):
        print("   %3d.. %s" % (k + 1, " ".join(r[k:k + per_line])))


def main(task_file, argv, marks=None):
    images = int(argv[1]) if len(argv) > 1 else 10
    rel = float(argv[2]) if len(argv) > 2 else 1e-7
    t = load(os.path.join(HERE, "..", "level3", task_file), "kb1", batch_size=images)
    p = draw(t)
    ops = set(op for op, *_ in t.calls)
    track = {"max_pool2d", "add"} if "add" in ops else {"batchnorm"}
    print("%s at kb1 on %d image(s) (BN statistics over %d image(s)), %d calls; BN perturbation %g" % (
        task_file, images, images, len(t.calls), rel))
    t0 = time.time()
    y64, s64 = forward(t, p, "f64", track=track)
    t1 = time.time()
    print("f64 forward %.1f s" % (t1 - t0))
    ya, sa = forward(t, p, "tf32", track=track)
    t2 = time.time()
    print("tf32 forward %.1f s" % (t2 - t1))
    xdep = ya - ya.mean(0, keepdims=True)
    print("y rms %.3g, |y| mean %.3g, max %.3g; its x-dependent part (y minus its mean over images) %.3g rms" % (
        np.sqrt((ya ** 2).mean()), np.abs(ya).mean(), np.abs(ya).max(), np.sqrt((xdep ** 2).mean())))
    if marks:
        print("tracked-op marks: %s" % marks)
    report("(a) tf32 vs f64", ya, y64)
    growth("(a)", sa, s64)
    yb, sb = forward(t, p, "tf32", rel=rel, track=track)
    report("(b) tf32 + BN stats * (1 + %g z) vs tf32" % rel, yb, ya)
    growth("(b)", sb, sa)
    del sb
    yc, sc = forward(t, p, "tf32", affine=False, track=track)
    yd, sd = forward(t, p, "tf32", rel=rel, affine=False, track=track)
    report("(c) as (b), BN affine w=1 b=0", yd, yc)
    growth("(c)", sd, sc)
    ye, se = forward(t, p, "fp32", track=track)
    report("(d) fp32 (no TF32) vs f64", ye, y64)
    growth("(d)", se, s64)
    yf, sf = forward(t, p, "fp32", rel=rel, track=track)
    report("(e) fp32 + BN stats * (1 + %g z) vs fp32" % rel, yf, ye)
    growth("(e)", sf, se)
    print("total %.1f s" % (time.time() - t0))


if __name__ == "__main__":
    main("10_resnet101.task", sys.argv,
         "1 = stem (after max_pool2d), then blocks: layer1 = 2..4, layer2 = 5..8, "
         "layer3 = 9..31, layer4 = 32..34")
