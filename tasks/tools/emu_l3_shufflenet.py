#!/usr/bin/env python3
"""CPU emulation behind the tolerances of tasks/level3/25 and 26
(ShuffleNet): the forward at kb1's sizes (25: one image of 240 x 224 x 224;
26: two images) in float64, and again with the operands of the cuDNN
convolutions rounded to TF32 (PyTorch's default; the depthwise convs stay
fp32, as PyTorch's depthwise kernel is); prints the difference and its
worst ratio to 1e-2/1e-2 and how many outputs a constant gets wrong.

Usage: tasks/tools/emu_l3_shufflenet.py 25|26
"""
import numpy as np, sys
which = sys.argv[1] if len(sys.argv) > 1 else "26"
B = 2 if which == "26" else 1
def tf32(a):
    b = a.astype(np.float32).view(np.uint32)
    return ((b + 0x1000) & 0xFFFFE000).view(np.float32).astype(np.float64)
rng = np.random.default_rng(0)
f32 = lambda a: a.astype(np.float32).astype(np.float64)
U = lambda shape, fan: f32(rng.uniform(-fan**-.5, fan**-.5, shape))
BN = lambda c: (f32(rng.normal(1, .5, c)), f32(rng.normal(0, .5, c)))
g = 3
def unit_params(ci, co):
    m = co // 4
    p = dict(w1=U((m, ci // g), ci // g), bn1=BN(m), w2=U((m, 3, 3), 9), bn2=BN(m),
             w3=U((co, m // g), m // g), bn3=BN(co))
    if ci != co:
        p.update(ws=U((co, ci), ci), bns=BN(co))
    return p
if which == "26":
    stem = U((24, 3, 3, 3), 27), BN(24)
    units, ci = [], 24
    for co, n in ((240, 3), (480, 7), (960, 3)):
        for i in range(n):
            units.append(unit_params(ci, co)); ci = co
    w5, bn5 = U((1024, 960), 960), BN(1024)
    fw, fb = U((1000, 1024), 1024), U((1000,), 1024)
    x0 = f32(rng.normal(0, 1, (B, 3, 224, 224)))
else:
    units = [unit_params(240, 480)]
    x0 = f32(rng.normal(0, 1, (B, 240, 224, 224)))
def run(tf):
    r = tf32 if tf else (lambda a: a)
    def bn(x, p):
        m = x.mean((0,2,3), keepdims=True); v = ((x-m)**2).mean((0,2,3), keepdims=True)
        return (x-m)/np.sqrt(v+1e-5)*p[0][None,:,None,None] + p[1][None,:,None,None]
    def gconv(x, w, groups):     # 1x1, w [co, ci/g]
        n, c, h, wd = x.shape; co = w.shape[0]
        xg = r(x).reshape(n, groups, c // groups, h, wd); wg = r(w).reshape(groups, co // groups, c // groups)
        return np.einsum('ngchw,goc->ngohw', xg, wg, optimize=True).reshape(n, co, h, wd)
    def dw(x, w):                # depthwise 3x3 p1, fp32 (no TF32)
        n, c, h, wd = x.shape
        xp = np.pad(x, ((0,0),(0,0),(1,1),(1,1))); y = np.zeros_like(x)
        for i in range(3):
            for j in range(3):
                y += xp[:, :, i:i+h, j:j+wd] * w[None, :, i, j, None, None]
        return y
    def unit(x, p):
        o = np.maximum(bn(gconv(x, p['w1'], g), p['bn1']), 0)
        o = bn(dw(o, p['w2']), p['bn2'])
        n, c, h, wd = o.shape
        o = o.reshape(n, g, c // g, h, wd).transpose(0, 2, 1, 3, 4).reshape(n, c, h, wd)
        o = np.maximum(bn(gconv(o, p['w3'], g), p['bn3']), 0)
        return o + (bn(gconv(x, p['ws'], 1), p['bns']) if 'ws' in p else x)
    x = x0
    if which == "26":
        w, pb = stem
        n, c, h, wd = x.shape; oh = (h + 2 - 3)//2 + 1
        xp = r(np.pad(x, ((0,0),(0,0),(1,1),(1,1)))); y = np.zeros((n, 24, oh, oh))
        for i in range(3):
            for j in range(3):
                y += np.einsum('nchw,oc->nohw', xp[:, :, i:i+2*oh:2, j:j+2*oh:2], r(w[:, :, i, j]))
        x = np.maximum(bn(y, pb), 0)
        xp = np.pad(x, ((0,0),(0,0),(1,1),(1,1)), constant_values=-np.inf); oh2 = (oh + 2 - 3)//2 + 1
        x = np.max([xp[:, :, i:i+2*oh2:2, j:j+2*oh2:2] for i in range(3) for j in range(3)], axis=0)
    for p in units:
        x = unit(x, p)
    if which == "26":
        x = np.maximum(bn(gconv(x, w5, 1), bn5), 0).mean((2, 3))
        x = x @ fw.T + fb
    return x
y = run(False); yt = run(True)
d = np.abs(yt - y)
print("%s: y rms %.3g; tf32 diff rms %.3g max %.3g; worst ratio to 1e-2/1e-2: %.3g; a constant fails on %.3g%%" % (
    which, np.sqrt((y**2).mean()), np.sqrt((d**2).mean()), d.max(), (d/(1e-2+1e-2*np.abs(y))).max(),
    100*np.mean(np.abs(y - y.mean()) > 1e-2 + 1e-2*np.abs(y))))
