#!/usr/bin/env python3
"""CPU emulation behind the precision tier and tolerance of
tasks/level3/45_unet_softmax.task: the U-Net forward at kb1's sizes on
IMAGES images (default 1) in float64, then (a) with every conv operand
rounded to TF32 (PyTorch's cuDNN default), (b) rounded to fp32 storage,
(c) with relative noise of 3e-7 and 1e-6 on every 3x3 conv output (a model
of fp32 accumulation in another order);
prints each difference from float64 and its worst ratio to the task's
allowance (atol 1e-2, rtol 1e-2). numpy only, ~1 minute an image.

Usage: tasks/tools/emu_l3_unet_softmax.py [IMAGES]
"""
import numpy as np, sys
B, CIN, COUT, H, W, F = int(sys.argv[1]) if len(sys.argv) > 1 else 1, 8, 4, 64, 512, 64
def tf32(a):
    b = a.astype(np.float32).view(np.uint32)
    return ((b + 0x1000) & 0xFFFFE000).view(np.float32).astype(np.float64)
rng = np.random.default_rng(0)
f32 = lambda a: a.astype(np.float32).astype(np.float64)
U = lambda shape, fan: f32(rng.uniform(-fan**-.5, fan**-.5, shape))
def dc_params(ci, co):
    return [U((co, ci, 3, 3), ci*9), U((co,), ci*9), f32(rng.normal(1, .5, co)), f32(rng.normal(0, .5, co)),
            U((co, co, 3, 3), co*9), U((co,), co*9), f32(rng.normal(1, .5, co)), f32(rng.normal(0, .5, co))]
enc = [dc_params(CIN, F), dc_params(F, 2*F), dc_params(2*F, 4*F), dc_params(4*F, 8*F)]
bott = dc_params(8*F, 16*F)
ups, decs = [], []
for c in (8*F, 4*F, 2*F, F):
    ups.append((U((2*c, c, 2, 2), c*4), U((c,), c*4)))
    decs.append(dc_params(2*c, c))
fw, fb = U((COUT, F, 1, 1), F), U((COUT,), F)
x0 = f32(rng.normal(0, 1, (B, CIN, H, W)))
NOISE, nz = 0.0, np.random.default_rng(9)   # relative noise on 3x3 conv outputs
def run(tf):
    r = tf32 if tf else (lambda a: a)
    def conv3(x, w, b):
        n, c, h, wd = x.shape
        xp = r(np.pad(x, ((0,0),(0,0),(1,1),(1,1)))); wr = r(w)
        y = np.zeros((n, w.shape[0], h, wd))
        for i in range(3):
            for j in range(3):
                y += np.einsum('nchw,oc->nohw', xp[:, :, i:i+h, j:j+wd], wr[:, :, i, j], optimize=True)
        return y * (1 + NOISE * nz.normal(0, 1, y.shape)) + b[None, :, None, None]
    def bn(x, g, b):
        m = x.mean((0,2,3), keepdims=True); v = ((x-m)**2).mean((0,2,3), keepdims=True)
        return (x-m)/np.sqrt(v+1e-5)*g[None,:,None,None] + b[None,:,None,None]
    def sm(x):
        e = np.exp(x - x.max(-1, keepdims=True)); return e / e.sum(-1, keepdims=True)
    def dc(x, p):
        x = sm(bn(conv3(x, p[0], p[1]), p[2], p[3]))
        return sm(bn(conv3(x, p[4], p[5]), p[6], p[7]))
    def pool(x):
        n, c, h, w = x.shape
        return x.reshape(n, c, h//2, 2, w//2, 2).max((3, 5))
    def up(x, w, b):
        n, c, h, wd = x.shape
        y = np.einsum('nchw,copq->nohpwq', r(x), r(w), optimize=True).reshape(n, w.shape[1], 2*h, 2*wd)
        return y + b[None, :, None, None]
    skips = []
    x = x0
    for p in enc:
        x = dc(x, p); skips.append(x); x = pool(x)
    x = dc(x, bott)
    for (w, b), p, s in zip(ups, decs, reversed(skips)):
        x = dc(np.concatenate([up(x, w, b), s], 1), p)
    return np.einsum('nchw,oc->nohw', r(x), r(fw[:, :, 0, 0])) + fb[None, :, None, None]
y = run(False)
xdep = y - y.mean((0, 2, 3), keepdims=True)
print("y rms %.3g, its x-dependent part (y minus its per-channel mean) %.3g rms; "
      "a per-channel constant fails on %.3g%% of the outputs" % (
          np.sqrt((y**2).mean()), np.sqrt((xdep**2).mean()),
          100 * np.mean(np.abs(xdep) > 1e-2 + 1e-2 * np.abs(y))))
yt = run(True)
tf32 = lambda a: a.astype(np.float32).astype(np.float64)
y32 = run(True)
for name, z in (("tf32", yt), ("fp32", y32)):
    d = np.abs(z - y)
    print("%s: diff rms %.3g max %.3g; worst ratio to 1e-2/1e-2: %.3g" % (
        name, np.sqrt((d**2).mean()), d.max(), (d / (1e-2 + 1e-2 * np.abs(y))).max()))
tf32 = lambda a: a
for NOISE in (3e-7, 1e-6):
    d = np.abs(run(False) - y)
    print("noise %.0e: diff max %.3g; worst ratio to 1e-2/1e-2: %.3g" % (
        NOISE, d.max(), (d / (1e-2 + 1e-2 * np.abs(y))).max()))
