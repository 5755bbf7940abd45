#!/usr/bin/env python3
"""CPU emulation behind the tolerance of tasks/level3/29_swin_mlp.task: the
Swin MLP forward at kb1's sizes on 2 images in float64, and again with the
operands of the cuDNN convolutions (the patch conv, the grouped spatial
convs) rounded to TF32 as PyTorch's default lets cuDNN do; prints y's rms,
the difference, and its worst ratio to the task's allowance. numpy only
(GELU through math.erf, ~30 s).

Usage: tasks/tools/emu_l3_swin_mlp.py
"""
import numpy as np, sys
B = 2
def tf32(a):
    b = a.astype(np.float32).view(np.uint32)
    return ((b + 0x1000) & 0xFFFFE000).view(np.float32).astype(np.float64)
rng = np.random.default_rng(0)
U = lambda shape, fan: rng.uniform(-fan**-.5, fan**-.5, shape).astype(np.float32).astype(np.float64)
def LNp(c): return [rng.normal(1, .5, c).astype(np.float32).astype(np.float64), rng.normal(0, .5, c).astype(np.float32).astype(np.float64)]
E, ws, heads, depths = 96, 7, [3, 6, 12, 24], [2, 2, 6, 2]
P = {}
P['pe'] = (U((E, 3, 4, 4), 48), U((E,), 48)); P['pe_ln'] = LNp(E)
blocks = []
C = E
for st in range(4):
    for i in range(depths[st]):
        nh = heads[st]; cc = nh * ws * ws
        blocks.append(dict(ln1=LNp(C), sw=U((cc, ws*ws), ws*ws), sb=U((cc,), ws*ws), ln2=LNp(C),
                           w1=U((4*C, C), C), b1=U((4*C,), C), w2=U((C, 4*C), 4*C), b2=U((C,), 4*C)))
    if st < 3:
        blocks.append(dict(mln=LNp(4*C), mw=U((2*C, 4*C), 4*C))); C *= 2
P['ln'] = LNp(C); P['hw'] = U((1000, C), C); P['hb'] = U((1000,), C)
x0 = rng.normal(0, 1, (B, 3, 224, 224)).astype(np.float32).astype(np.float64)
from math import erf
verf = np.vectorize(erf)
def gelu(x):
    return 0.5 * x * (1 + verf(x / np.sqrt(2)))
def run(tf):
    r = tf32 if tf else (lambda a: a)
    def ln(x, p): m = x.mean(-1, keepdims=True); v = ((x-m)**2).mean(-1, keepdims=True); return (x-m)/np.sqrt(v+1e-5)*p[0]+p[1]
    w, b = P['pe']
    xp = x0.reshape(B, 3, 56, 4, 56, 4)
    x = np.einsum('bchpwq,ecpq->bhwe', r(xp), r(w)) + b        # [B, 56, 56, E]
    x = ln(x.reshape(B, 3136, E), P['pe_ln'])
    res, C, k = 56, E, 0
    for st in range(4):
        for i in range(depths[st]):
            p = blocks[k]; k += 1
            nh = heads[st]; shift = (ws // 2) if (i % 2 == 1 and st < 3) else 0
            sc = x
            h = ln(x, p['ln1']).reshape(B, res, res, C)
            if shift:
                h = np.pad(h, ((0,0),(ws-shift, shift),(ws-shift, shift),(0,0)))
            H = h.shape[1]; nw = H // ws
            win = h.reshape(B, nw, ws, nw, ws, C).transpose(0,1,3,2,4,5).reshape(-1, ws*ws, nh, C//nh)
            # grouped 1x1 conv: per head, [ws*ws out, ws*ws in]
            sw = p['sw'].reshape(nh, ws*ws, ws*ws)
            o = np.einsum('gij,njgc->nigc', r(sw), r(win)) + p['sb'].reshape(nh, ws*ws).T[None, :, :, None]
            o = o.reshape(B, nw, nw, ws, ws, C).transpose(0,1,3,2,4,5).reshape(B, H, H, C)
            if shift:
                o = o[:, ws-shift:H-shift, ws-shift:H-shift, :]
            x = sc + o.reshape(B, res*res, C)
            m = ln(x, p['ln2'])
            x = x + (gelu(m @ p['w1'].T + p['b1']) @ p['w2'].T + p['b2'])
        if st < 3:
            p = blocks[k]; k += 1
            xx = x.reshape(B, res, res, C)
            x = np.concatenate([xx[:, 0::2, 0::2], xx[:, 1::2, 0::2], xx[:, 0::2, 1::2], xx[:, 1::2, 1::2]], -1)
            res //= 2
            x = ln(x.reshape(B, res*res, 4*C), p['mln']) @ p['mw'].T
            C *= 2
    x = ln(x, P['ln']).mean(1)
    return x @ P['hw'].T + P['hb']
y = run(False); yt = run(True)
d = np.abs(y - yt)
print("y rms %.3g; tf32 diff rms %.3g max %.3g; worst ratio to 1e-2/1e-2 %.3g; to 2e-3/2e-3 %.3g; constant fails %.3g%%" % (
    np.sqrt((y**2).mean()), np.sqrt((d**2).mean()), d.max(), (d/(1e-2+1e-2*np.abs(y))).max(), (d/(2e-3+2e-3*np.abs(y))).max(),
    100*np.mean(np.abs(y - y.mean()) > 2e-3 + 2e-3*np.abs(y))))
