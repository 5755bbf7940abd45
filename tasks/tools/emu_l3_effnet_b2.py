#!/usr/bin/env python3
"""Why KernelBench level-3 problem 24 (EfficientNetB2) has no task yet: its
output is not reproducible. The Model's "squeeze and excitation" is a plain
Sequential, so from the first block's AdaptiveAvgPool2d on every tensor is
[2, C, 1, 1] and each BatchNorm (training mode) normalises 2 values per
channel: b +- w * d / sqrt(d^2 + 4 eps) for the two images' difference d,
which turns tiny differences of nearly equal pooled values into +-1.

This runs kb1's network (batch 2) in float64 on f32-representable inputs
and params, then (a) with the cuDNN convs' operands rounded to TF32,
(b) in numpy float32 throughout (another summation order), and prints how
far each moves y (y ~0.5 rms). Both move it by about its own size, so no
tolerance separates a correct candidate from a wrong one.

Usage: tasks/tools/emu_l3_effnet_b2.py [SEEDS]
"""
import numpy as np, sys
def tf32(a):
    b = a.astype(np.float32).view(np.uint32)
    b = (b + 0x1000) & 0xFFFFE000   # round to nearest, 10-bit mantissa
    return b.view(np.float32).astype(np.float64)
def run(x, P, tf):
    r = (lambda a: tf32(a)) if tf else (lambda a: a)
    def conv(x, w, s=1, p=0, dw=False):
        n, c, h, wd = x.shape
        co, ci, k, _ = w.shape
        xp = np.pad(x, ((0,0),(0,0),(p,p),(p,p)))
        oh = (h + 2*p - k)//s + 1; ow = (wd + 2*p - k)//s + 1
        if dw:
            y = np.zeros((n, c, oh, ow))
            for i in range(k):
                for j in range(k):
                    y += xp[:, :, i:i+s*oh:s, j:j+s*ow:s] * w[None, :, 0, i, j, None, None]
            return y
        xr, wr = r(xp), r(w)
        y = np.zeros((n, co, oh, ow))
        for i in range(k):
            for j in range(k):
                y += np.einsum('nchw,oc->nohw', xr[:, :, i:i+s*oh:s, j:j+s*ow:s], wr[:, :, i, j])
        return y
    def bn(x, w, b):
        m = x.mean(axis=(0,2,3), keepdims=True); v = x.var(axis=(0,2,3), keepdims=True)
        return (x - m)/np.sqrt(v + 1e-5)*w[None,:,None,None] + b[None,:,None,None]
    relu = lambda a: np.maximum(a, 0)
    it = iter(P)
    x = relu(bn(conv(x, next(it), 2, 1), next(it), next(it)))
    for (cin, cout, s, t) in ((32,96,1,3),(96,144,2,6),(144,192,2,6),(192,288,2,6),(288,384,1,6)):
        x = relu(bn(conv(x, next(it)), next(it), next(it)))
        x = relu(bn(conv(x, next(it), s, 1, dw=True), next(it), next(it)))
        x = x.mean(axis=(2,3), keepdims=True)
        x = relu(conv(x, next(it)))
        x = 1/(1+np.exp(-conv(x, next(it))))
        x = bn(conv(x, next(it)), next(it), next(it))
    x = relu(bn(conv(x, next(it)), next(it), next(it)))
    x = x.mean(axis=(2,3))
    W, b = next(it), next(it)
    return x @ W.T + b
def params(rng):
    P = []
    U = lambda shape, fan: rng.uniform(-1/np.sqrt(fan), 1/np.sqrt(fan), shape)
    BN = lambda c: [rng.normal(1, .5, c), rng.normal(0, .5, c)]
    P += [U((32,3,3,3), 27)] + BN(32)
    for (cin, cout, s, t) in ((32,96,1,3),(96,144,2,6),(144,192,2,6),(192,288,2,6),(288,384,1,6)):
        h = cin*t
        P += [U((h,cin,1,1), cin)] + BN(h) + [U((h,1,3,3), 9)] + BN(h)
        P += [U((h//4,h,1,1), h), U((h,h//4,1,1), h//4), U((cout,h,1,1), h)] + BN(cout)
    P += [U((1408,384,1,1), 384)] + BN(1408) + [U((1000,1408), 1408), U((1000,), 1408)]
    return P


def run32(x, P):
    """The same forward with every array float32 (numpy's own sums)."""
    src = RUN_SRC.replace("def run(x, P, tf):", "def run_t(x, P, tf=False):") \
        .replace("np.zeros((n, c, oh, ow))", "np.zeros((n, c, oh, ow), np.float32)") \
        .replace("np.zeros((n, co, oh, ow))", "np.zeros((n, co, oh, ow), np.float32)") \
        .replace("np.sqrt(v + 1e-5)", "np.sqrt(v + np.float32(1e-5))")
    env = dict(globals())
    exec(src, env)
    f = lambda a: a.astype(np.float32)
    return env["run_t"](f(x), [f(p) for p in P]).astype(np.float64)


RUN_SRC = "def run(x, P, tf):" + \
    open(__file__).read().split("def run(x, P, tf):")[1].split("def params")[0]
for seed in range(int(sys.argv[1]) if len(sys.argv) > 1 else 2):
    rng = np.random.default_rng(seed)
    P = [p.astype(np.float32).astype(np.float64) for p in params(rng)]
    x = rng.normal(0, 1, (2, 3, 224, 224)).astype(np.float32).astype(np.float64)
    y = run(x, P, False)
    for name, z in (("tf32", run(x, P, True)), ("fp32", run32(x, P))):
        d = np.abs(z - y)
        print("seed %d %s: y rms %.3g, diff rms %.3g, max %.3g" % (
            seed, name, np.sqrt((y**2).mean()), np.sqrt((d**2).mean()), d.max()))
