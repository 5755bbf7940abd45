#!/usr/bin/env python3
"""Writes the level-3 attention and transformer tasks (docs/tasks.md,
"Level 3"): 43 MinGPTCausalAttention, 44 MiniGPTBlock, 50
ReLUSelfAttention, 28 VisionTransformer, 32 ConvolutionalVisionTransformer
(and its kb0 sibling, batch_first=False) and 31 VisionAttention.

Each network is our own reading of the KernelBench Model as the op
sequence PyTorch eager runs (coverage-l2-l3.md sections 3 and 4): a
Python function per network appends the plan's statements to a Plan, and
this script does the rest as gen_l3_tasks.py does (it imports that
script's helpers: evaluation of shape expressions, the folding of long
bytes/flops sums into consts, the header wrapping, the problems.jsonl
check). The attention pieces shared by several networks are functions
here: minGPT's causal attention (43, 44, 50) and nn.MultiheadAttention
inside nn.TransformerEncoderLayer (28, 32).

Usage: tasks/tools/gen_l3_attn.py [--check]   (--check: write nothing,
fail if a file would change or a set's sizes disagree with problems.jsonl)
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_l3_tasks import (check_jsonl, ev, fold_sum,  # noqa: E402
                          level3_problems, wrap, write_tasks)


def U(bound):
    return "uniform(-%s, %s)" % ("%.6g" % bound, "%.6g" % bound)


class Plan:
    """The declarations and plan of one task, over shape keys; the
    bytes are those of the input, params and outputs (each moved once),
    the flops each op's count (GEMMs 2*M*N*K, others one a value)."""

    def __init__(self, sets, keys):
        self.sets = sets
        self.keys = keys
        self.envs = {k: dict(v) for k, v in sets.items()}
        self.consts = []            # (name, expr)
        self.inputs = []            # (name, dims, dist)
        self.params = []            # (name, dims, dist)
        self.outputs = []           # (name, dims)
        self.decls = []             # plan declarations (buffer / view lines)
        self.body = []              # call lines
        self.flops = {}             # expr -> coefficient
        self.names = set()
        self.dtypes = {}            # param name -> dtype other than f32

    def const(self, name, expr, value=True):
        """A const; value=False for a float one (scales, eps) that no
        shape or count uses, which ev (integer arithmetic) cannot
        evaluate."""
        self.consts.append((name, expr))
        for env in self.envs.values():
            if value:
                env[name] = ev(expr, env)
        return name

    def val(self, expr, s="kb1"):
        return ev(expr, self.envs[s])

    def _new(self, name):
        assert name not in self.names, name
        self.names.add(name)
        return name

    def input(self, name, dims, dist="normal(0, 1)"):
        self.inputs.append((self._new(name), dims, dist))
        return name

    def param(self, name, dims, dist, dt="f32"):
        self.params.append((self._new(name), dims, dist))
        if dt != "f32":
            self.dtypes[name] = dt
        return name

    def output(self, name, dims):
        self.outputs.append((self._new(name), dims))
        return name

    def buf(self, name, dims, dt="f32"):
        self.decls.append("buffer %s %s [%s]" % (self._new(name), dt, ", ".join(dims)))
        return name

    def view(self, name, src, dims, off=None):
        line = "view %s = %s [%s]" % (self._new(name), src, ", ".join(dims))
        if off:
            line += " offset=%s" % off
        self.decls.append(line)
        return name

    def call(self, op, ins, outs, **attrs):
        line = "call %s(%s) -> %s" % (op, ", ".join(ins), ", ".join(outs))
        for k, v in attrs.items():
            line += " %s=%s" % (k, v)
        self.body.append(line)

    def flop(self, expr, coef=1):
        self.flops[expr] = self.flops.get(expr, 0) + coef

    # ---- layers ----
    def linear(self, x, w, b, y, m, k, n):
        """F.linear on a contiguous x of m rows: addmm with the bias
        epilogue (`linear`)."""
        self.call("linear", [x, w, b], [y])
        self.flop("%s * %s * %s" % (m, k, n), 2)

    def linear_params(self, pre, k, n, bound_k):
        """nn.Linear(k -> n)'s weight and bias, uniform(+-1/sqrt(bound_k))
        (PyTorch's init at kb1's fan-in bound_k)."""
        u = U(1 / math.sqrt(bound_k))
        return (self.param(pre + "_w", [n, k], u), self.param(pre + "_b", [n], u))

    def layernorm(self, x, w, b, y, rows, e):
        self.call("layernorm", [x, w, b], [y], eps="eps")
        self.flop("%s * %s" % (rows, e), 8)

    def ln_params(self, pre, e):
        return (self.param(pre + "_w", [e], "normal(1, 0.5)"),
                self.param(pre + "_b", [e], "normal(0, 0.5)"))

    def numel(self, dims):
        if not dims:
            return "1"
        return " * ".join(d if d.replace("_", "").isalnum() else "(%s)" % d for d in dims)


# ---- minGPT's causal self-attention (43, 44, 50) --------------------------

def causal_attention(P, x, out, pre, relu=False, proj=True):
    """minGPT's CausalSelfAttention on x [B, T, C] (keys batch_size,
    seq_len, n_head, head_dim; consts n_embd, bias_rows) into out:
    [B, T, C] (after c_proj) or, without proj, the re-assembled heads.
    The ops PyTorch runs, in its order: c_attn (addmm + bias epilogue);
    the head split (views) and the contiguous copies matmul makes of q,
    k^T and v, here one permute of all of qkv; q @ k^T (bmm); * 1/sqrt(hs)
    (mul, out of place); bias[:, :, :T, :T] == 0 (eq on a strided slice);
    masked_fill out of place (clone = copy, then masked_fill_ in place);
    softmax, or F.relu for 50 (out of place); att @ v (bmm); the
    transpose(1, 2).contiguous() copy; c_proj."""
    B, T, H, D, C = "batch_size", "seq_len", "n_head", "head_dim", "n_embd"
    BT, BH = "%s * %s" % (B, T), "%s * %s" % (B, H)
    wa, ba = P.linear_params(pre + "c_attn", C, "3 * n_embd", P.val("n_embd"))
    qkv = P.buf(pre + "qkv", [B, T, "3 * n_embd"])
    P.linear(x, wa, ba, qkv, BT, C, "3 * n_embd")
    qkv5 = P.view(pre + "qkv5", qkv, [B, T, "3", H, D])
    qkvh = P.buf(pre + "qkvh", ["3", B, H, T, D])
    P.call("permute", [qkv5], [qkvh], p0=2, p1=0, p2=3, p3=1, p4=4)
    q = P.view(pre + "q", qkvh, [BH, T, D])
    k = P.view(pre + "k", qkvh, [BH, T, D], off="%s * %s * %s" % (BH, T, D))
    v = P.view(pre + "v", qkvh, [BH, T, D], off="2 * %s * %s * %s" % (BH, T, D))
    att = P.buf(pre + "att", [BH, T, T])
    att2 = P.buf(pre + "att2", [BH, T, T])
    P.call("gemm", [q, k], [att], tb=1)
    P.flop("%s * %s * %s * %s" % (BH, T, T, D), 2)
    P.call("scale", [att], [att2], alpha="attn_scale")
    P.flop("%s * %s * %s" % (BH, T, T))
    mask = P.buf(pre + "mask", ["1", T, T], "bool")
    bias3 = P.view(pre + "bias3", "bias", ["1", "max_seqlen", "max_seqlen"])
    P.call("eq_scalar", [bias3], [mask], value=0)
    P.call("copy", [att2], [att])
    P.call("masked_fill", [att, mask], [att], value="-inf")
    if relu:
        P.call("relu", [att], [att2])
        P.flop("%s * %s * %s" % (BH, T, T))
    else:
        P.call("softmax", [att], [att2], dim=-1)
        P.flop("%s * %s * %s" % (BH, T, T), 5)
    yh = P.buf(pre + "yh", [BH, T, D])
    P.call("gemm", [att2, v], [yh])
    P.flop("%s * %s * %s * %s" % (BH, T, T, D), 2)
    yh4 = P.view(pre + "yh4", yh, [B, H, T, D])
    if not proj:
        o4 = P.view(pre + "out4", out, [B, T, H, D])
        P.call("permute", [yh4], [o4], p0=0, p1=2, p2=1, p3=3)
        return
    yt = P.buf(pre + "yt", [B, T, H, D])
    P.call("permute", [yh4], [yt], p0=0, p1=2, p2=1, p3=3)
    yt3 = P.view(pre + "yt3", yt, [B, T, C])
    wp, bp = P.linear_params(pre + "c_proj", C, C, P.val("n_embd"))
    P.linear(yt3, wp, bp, out, BT, C, C)


GPT_KEYS = ["batch_size", "max_seqlen", "seq_len", "n_head", "head_dim"]


def gpt_sets(kb1, tiny):
    return dict(kb0=dict(kb1), kb1=kb1, tiny=tiny)


def gpt_jsonl(s):
    return dict(batch_size=s["batch_size"], max_seqlen=s["max_seqlen"],
                seq_len=s["seq_len"], n_embd=s["n_head"] * s["head_dim"],
                n_head=s["n_head"])


def gpt_common(P):
    P.const("n_embd", "n_head * head_dim")
    P.const("attn_scale", "1.0 / sqrt(head_dim)", value=False)
    return P.input("x", ["batch_size", "seq_len", "n_embd"])


def gpt_bias(P):
    """The registered causal buffer, declared after the parameters as
    the Model's state lists its buffers (krl export matches params to the
    Model's tensors in that order)."""
    P.param("bias", ["1", "1", "max_seqlen", "max_seqlen"], "tril(1)")


GPT_SHARED = """x [batch_size, seq_len, n_embd] with n_embd = n_head * head_dim (keys
n_head and head_dim, so every shape set has whole heads). The registered
buffer bias = torch.tril(torch.ones(max_seqlen, max_seqlen)).view(1, 1,
max_seqlen, max_seqlen) is the param `bias` drawn `tril(1)`: a constant
buffer whose exact contents are part of the task (docs/language.md,
"Constant buffers"), so a candidate may rely on it being causal.

How PyTorch runs it (and the plan with it): c_attn is one addmm with the
bias epilogue (`linear`); split/view/transpose are views; `q @
k.transpose(-2, -1)` and `att @ v` are torch.matmul on 4-D views, which
reshape copies the strided q, k^T and v to contiguous [B*nh, T, hs] and
runs bmm. The plan makes those copies as one `permute` of qkv viewed [B,
T, 3, nh, hs] into [3, B, nh, T, hs] (the same bytes read and written as
PyTorch's three copies, in one launch instead of three; k stays [T, hs],
so the first bmm is `gemm tb=1` where PyTorch's runs on k^T copied: the
language has no strided-slice operand for a copy of q alone). `* (1.0 /
math.sqrt(hs))` is a `scale` into a new tensor; `bias[:, :, :T, :T] ==
0` is `eq_scalar` on the leading [T, T] slice of the buffer (read strided
when T < max_seqlen, as PyTorch's comparison kernel on the slice); the
out-of-place `masked_fill` is PyTorch's clone (`copy`) then `masked_fill_`
in place with -inf, the [1, T, T] mask broadcast over B*nh. Dropout(p =
0.0) is the identity (no kernel, as at::dropout returns its input for p =
0). The transpose(1, 2).contiguous() is a `permute` copy. Scratch reuse
follows the caching allocator: two [B*nh, T, T] buffers for the scores.

Params: nn.Linear's init at kb1's fan-ins, weights and biases uniform(+-
1/sqrt(n_embd)) (PyTorch's bound)."""


def mingpt_attention():
    sets = gpt_sets(dict(batch_size=128, max_seqlen=1024, seq_len=512, n_head=8, head_dim=96),
                    dict(batch_size=2, max_seqlen=7, seq_len=5, n_head=3, head_dim=4))
    P = Plan(sets, GPT_KEYS)
    x = gpt_common(P)
    y = P.output("y", ["batch_size", "seq_len", "n_embd"])
    causal_attention(P, x, y, "")
    gpt_bias(P)
    note = """minGPT's masked multi-head self-attention: y = c_proj(softmax(mask(q
k^T / sqrt(hs))) v) with q, k, v = split(c_attn(x)), causal mask from the
registered tril buffer, attention and residual dropout p = 0.0. Same
forward and sizes at both revisions (kb0 draws randn, kb1 rand; we draw
normal(0, 1)): kb0 = kb1 = batch 128, T = 512 of max_seqlen 1024, 768
wide, 8 heads of 96.

""" + GPT_SHARED + """

Precision fp32 (strict: Linear and bmm run without TF32 in PyTorch).
The scores have ~0.33 rms, so softmax averages v over the causal prefix:
y is ~0.05 rms (largest in the first rows, plus the c_proj bias). A CPU
emulation of one kb1 batch row (2026-12-02: numpy's blocked fp32 sums
against float64) errs by 5e-7 at worst, 0.03 of the allowance; TF32-
rounded GEMM inputs err by 5.5e-4, 39 times it. atol = 1e-5, rtol =
1e-4: a missing mask (row 0 then averages all of v), a missing
1/sqrt(hs), a dropped bias or TF32 GEMMs fail."""
    return dict(id=43, stem="43_MinGPTCausalAttention", name="mingpt_causal_attention",
                P=P, note=note, tol=(1e-5, 1e-4), prec="fp32", jsonl=gpt_jsonl,
                sets=sets)


def gelu_new(P, f, out, dims, n):
    """minGPT's NewGELU in Python's evaluation order, 8 kernels (as level
    1's 88_mingpt_new_gelu): 0.5 * x; x ** 3; * 0.044715; x + .; *
    sqrt(2/pi); tanh; 1.0 + .; half_x * ."""
    hx = P.buf("half_x", dims)
    ta = P.buf("t_a", dims)
    tb = P.buf("t_b", dims)
    P.call("scale", [f], [hx], alpha=0.5)
    P.call("pow_scalar", [f], [ta], exponent=3)
    P.call("scale", [ta], [tb], alpha=0.044715)
    P.call("add", [f, tb], [ta])
    P.call("scale", [ta], [tb], alpha="sqrt_2_over_pi")
    P.call("tanh", [tb], [ta])
    P.call("add_scalar", [ta], [tb], alpha=1)
    P.call("mul", [hx, tb], [out])
    P.flop(n, 10)


def mingpt_block():
    sets = gpt_sets(dict(batch_size=128, max_seqlen=1024, seq_len=512, n_head=8, head_dim=96),
                    dict(batch_size=2, max_seqlen=7, seq_len=5, n_head=3, head_dim=4))
    P = Plan(sets, GPT_KEYS)
    x = gpt_common(P)
    P.const("eps", "1e-5", value=False)
    P.const("sqrt_2_over_pi", "0.7978845608028654", value=False)
    B, T, C = "batch_size", "seq_len", "n_embd"
    BT = "%s * %s" % (B, T)
    y = P.output("y", [B, T, C])
    l1w, l1b = P.ln_params("ln_1", C)
    h = P.buf("h", [B, T, C])
    a = P.buf("a", [B, T, C])
    x1 = P.buf("x1", [B, T, C])
    P.layernorm(x, l1w, l1b, h, BT, C)
    causal_attention(P, h, a, "attn_")
    P.call("add", [x, a], [x1])
    P.flop("%s * %s" % (BT, C))
    l2w, l2b = P.ln_params("ln_2", C)
    P.layernorm(x1, l2w, l2b, h, BT, C)
    fw, fb = P.linear_params("mlp_c_fc", C, "4 * n_embd", P.val("n_embd"))
    f = P.buf("f", [B, T, "4 * n_embd"])
    P.linear(h, fw, fb, f, BT, C, "4 * n_embd")
    g = P.buf("g", [B, T, "4 * n_embd"])
    gelu_new(P, f, g, [B, T, "4 * n_embd"], "%s * 4 * %s" % (BT, C))
    pw, pb = P.linear_params("mlp_c_proj", "4 * n_embd", C, 4 * P.val("n_embd"))
    P.linear(g, pw, pb, a, BT, "4 * n_embd", C)
    P.call("add", [x1, a], [y])
    P.flop("%s * %s" % (BT, C))
    gpt_bias(P)
    note = """minGPT's transformer block: x = x + attn(ln_1(x)); x = x +
c_proj(NewGELU(c_fc(ln_2(x)))), attn as in 43_mingpt_causal_attention,
dropouts p = 0.0. Same forward and sizes at both revisions (kb0 = kb1 =
batch 128, T = 512 of max_seqlen 1024, 768 wide, 8 heads; we draw x ~
normal(0, 1)).

""" + GPT_SHARED + """ LayerNorm affine drawn w ~ normal(1, 0.5), b ~
normal(0, 0.5) (ones/zeros would hide a dropped affine), eps 1e-5.
NewGELU is the 8 kernels of Python's evaluation order (level 1's
88_mingpt_new_gelu); the residual adds are out of place (`x = x + ...`).

Precision fp32 (strict). y ~1.05 rms (x plus the two residual
branches). A CPU emulation of one kb1 batch row (numpy's blocked fp32
against float64) errs by 8e-7 at worst, 0.01 of the allowance; TF32-
rounded GEMM inputs by 6.8e-4, 12 times it. atol = 5e-5, rtol = 1e-4: a
missing mask, erf GELU for NewGELU (~1e-3 apart), a dropped affine or
TF32 GEMMs fail."""
    return dict(id=44, stem="44_MiniGPTBlock", name="mingpt_block", P=P, note=note,
                tol=(5e-5, 1e-4), prec="fp32", jsonl=gpt_jsonl, sets=sets)


def relu_self_attention():
    keys = ["batch_size", "max_seqlen", "n_head", "head_dim"]
    sets = gpt_sets(dict(batch_size=16, max_seqlen=1024, n_head=12, head_dim=64),
                    dict(batch_size=2, max_seqlen=6, n_head=3, head_dim=4))
    P = Plan(sets, keys)
    P.const("seq_len", "max_seqlen")
    x = gpt_common(P)
    y = P.output("y", ["batch_size", "seq_len", "n_embd"])
    causal_attention(P, x, y, "", relu=True, proj=False)
    gpt_bias(P)
    # c_proj is declared by the Model but never called: no param
    note = """Masked multi-head self-attention with ReLU in place of softmax and no
output projection: y = (relu(mask(q k^T / sqrt(hs))) v) re-assembled, q,
k, v = split(c_attn(x)); masked scores are -inf, so ReLU makes them 0.
The Model also builds c_proj but never calls it (no param here). Same
forward and sizes at both revisions (kb0 = kb1 = batch 16, T =
max_seqlen = 1024, 768 wide, 12 heads of 64; we draw x ~ normal(0, 1)).
T is max_seqlen (x's length), a const, so the mask slice is the whole
buffer.

""" + GPT_SHARED + """ F.relu is out of place (a new tensor).

Precision fp32 (strict). Without softmax the output is a causal sum of
up to 1024 rows of v weighted by ReLU'd scores: y grows with the row, ~4
rms overall, with cancellation in the sums. A CPU emulation of one kb1
batch row (numpy's blocked fp32 against float64) errs by 1.4e-5 at
worst, 0.82 of an atol = 1e-5, rtol = 1e-4 allowance, so the tolerance
is atol = 5e-5, rtol = 5e-4 (that order at ~0.17 of it); TF32-rounded
GEMM inputs err by 1.5e-2, ~200 times it. A missing mask (future rows
added) or a missing scale fail."""
    return dict(id=50, stem="50_ReLUSelfAttention", name="relu_self_attention", P=P,
                note=note, tol=(5e-5, 5e-4), prec="fp32",
                jsonl=lambda s: dict(batch_size=s["batch_size"], max_seqlen=s["max_seqlen"],
                                     n_embd=s["n_head"] * s["head_dim"], n_head=s["n_head"]),
                sets=sets)


# ---- nn.TransformerEncoderLayer (28, 32) ----------------------------------

def mha_params(P, pre, e, e_kb1):
    """nn.MultiheadAttention's params: in_proj_weight xavier_uniform
    (bound sqrt(6 / (E + 3E))), out_proj.weight nn.Linear's bound
    1/sqrt(E); both biases are zeros in PyTorch and drawn uniform(+-
    1/sqrt(E)) here, so that a dropped bias fails."""
    xb = math.sqrt(6.0 / (4 * e_kb1))
    u = U(1 / math.sqrt(e_kb1))
    return (P.param(pre + "in_w", ["3 * %s" % e, e], U(xb)),
            P.param(pre + "in_b", ["3 * %s" % e], u),
            P.param(pre + "out_w", [e, e], u),
            P.param(pre + "out_b", [e], u))


def encoder_layer(P, x, i, L, N, batch_first):
    """One nn.TransformerEncoderLayer (post-norm, ReLU, dropout 0, training
    mode: the slow path) on x, returning the name of its output buffer.
    batch_first=False: x is [L, N, E] (sequence first); True: x is [N, L,
    E]. Keys/consts: E (model width), H (heads), hd (head dim), ff."""
    E, H, D, FF = "E", "H", "hd", "ff"
    pre = "l%d_" % i
    LN = "%s * %s" % (L, N)
    # params in the Model's order (self_attn, linear1, linear2, norm1,
    # norm2), as krl export matches them
    inw, inb, outw, outb = mha_params(P, pre, E, P.val("E"))
    w1, b1 = P.linear_params(pre + "linear1", E, FF, P.val("E"))
    w2, b2 = P.linear_params(pre + "linear2", FF, E, P.val("ff"))
    n1w, n1b = P.ln_params(pre + "norm1", E)
    n2w, n2b = P.ln_params(pre + "norm2", E)
    proj = P.buf(pre + "proj", [L, N, "3 * E"])
    if batch_first:
        # MHA transposes x to [L, N, E] (a view); F.linear on that
        # non-contiguous 3-D view is matmul: reshape copies it, mm, and
        # the bias is an add_ of its own
        xt = P.buf(pre + "xt", [L, N, E])
        P.call("permute", [x], [xt], p0=1, p1=0, p2=2)
        P.call("gemm", [xt, inw], [proj], tb=1)
        P.flop("%s * %s * 3 * %s" % (LN, E, E), 2)
        P.call("add_bcast", [proj, inb], [proj])
        P.flop("%s * 3 * %s" % (LN, E))
    else:
        P.linear(x, inw, inb, proj, LN, E, "3 * E")
    proj5 = P.view(pre + "proj5", proj, [L, N, "3", H, D])
    qkvh = P.buf(pre + "qkvh", ["3", N, H, L, D])
    P.call("permute", [proj5], [qkvh], p0=2, p1=1, p2=3, p3=0, p4=4)
    NH = "%s * %s" % (N, H)
    q = P.view(pre + "q", qkvh, [NH, L, D])
    k = P.view(pre + "k", qkvh, [NH, L, D], off="%s * %s * %s" % (NH, L, D))
    v = P.view(pre + "v", qkvh, [NH, L, D], off="2 * %s * %s * %s" % (NH, L, D))
    o = P.buf(pre + "o", [NH, L, D])
    P.call("sdpa", [q, k, v], [o])
    P.flop("%s * %s * %s * %s" % (NH, L, L, D), 4)
    o4 = P.view(pre + "o4", o, [N, H, L, D])
    if batch_first:
        ot = P.buf(pre + "ot", [N, L, H, D])
        P.call("permute", [o4], [ot], p0=0, p1=2, p2=1, p3=3)
        dims = [N, L, E]
    else:
        ot = P.buf(pre + "ot", [L, N, H, D])
        P.call("permute", [o4], [ot], p0=2, p1=0, p2=1, p3=3)
        dims = [L, N, E]
    ot3 = P.view(pre + "ot3", ot, dims)
    sa = P.buf(pre + "sa", dims)
    P.linear(ot3, outw, outb, sa, LN, E, E)
    r = P.buf(pre + "r", dims)
    P.call("add", [x, sa], [r])
    P.flop("%s * %s" % (LN, E))
    x1 = P.buf(pre + "x1", dims)
    P.layernorm(r, n1w, n1b, x1, LN, E)
    f1 = P.buf(pre + "f1", dims[:2] + [FF])
    P.linear(x1, w1, b1, f1, LN, E, FF)
    f2 = P.buf(pre + "f2", dims[:2] + [FF])
    P.call("relu", [f1], [f2])
    P.flop("%s * %s" % (LN, FF))
    P.linear(f2, w2, b2, sa, LN, FF, E)
    P.call("add", [x1, sa], [r])
    P.flop("%s * %s" % (LN, E))
    xo = P.buf(pre + "xo", dims)
    P.layernorm(r, n2w, n2b, xo, LN, E)
    return xo


def cls_cat(P, cls, rows, out, B, E):
    """torch.cat((cls_token.expand(B, -1, -1), x), dim=1): one
    CatArrayBatchedCopy in PyTorch. Over out viewed [B * (1 + rows), E]
    the cat is along dim 0 of cls and each batch's rows (views of x, at
    their offsets), 2B inputs, one launch; B is fixed (at most 32)."""
    nb = P.val(B)
    for s in P.sets:
        assert P.val(B, s) == nb
    assert 2 * nb <= 64
    cls2 = P.view("cls2", cls, ["1", E])
    ins = []
    for b in range(nb):
        xb = P.view("xrow%d" % b, rows[0], [rows[1], E],
                    off=("%d * %s * %s" % (b, rows[1], E)) if b else None)
        ins += [cls2, xb]
    out2 = P.view(out + "_2", out, ["%s * (1 + %s)" % (B, rows[1]), E])
    P.call("cat", ins, [out2], dim=0)


ENC_NOTE = """Each nn.TransformerEncoderLayer (post-norm, ReLU, dropout 0.0) runs in
training mode, so nn.MultiheadAttention takes its slow path
(F.multi_head_attention_forward) with need_weights=False, which calls
scaled_dot_product_attention: for fp32 on the H200 the one-kernel
memory-efficient backend, here the library's fused `sdpa` (one kernel,
fp32). The in-projection is one Linear to [L, N, 3E]; PyTorch then copies
it to [3, L, N, E] (unflatten/transpose/contiguous) and hands SDPA
strided per-head views; the plan's one copy is a `permute` to [3, N, H,
L, hd] instead, which makes each head contiguous for `sdpa` (the same
bytes, one launch). The SDPA output is permuted and copied before the
out-projection Linear, as in PyTorch; the residual adds are out of place;
F.relu is out of place. Params: in_proj_weight xavier_uniform (PyTorch's
init), out_proj and linear1/linear2 nn.Linear's bound 1/sqrt(fan_in);
the MHA biases, zeros in PyTorch, are drawn uniform(+-1/sqrt(E)) so that a
dropped bias fails; LayerNorm affine w ~ normal(1, 0.5), b ~ normal(0,
0.5) (ones/zeros would hide a dropped affine), eps 1e-5."""


def vit():
    kb1 = dict(batch_size=2, grid=14, patch_size=16, channels=3, H=8, hd=64, ff=2048,
               num_classes=10)
    tiny = dict(batch_size=2, grid=2, patch_size=2, channels=3, H=2, hd=4, ff=12,
                num_classes=5)
    sets = dict(kb0=dict(kb1), kb1=kb1, tiny=tiny)
    keys = list(kb1)
    P = Plan(sets, keys)
    depth = 6
    P.const("eps", "1e-5", value=False)
    P.const("E", "H * hd")
    P.const("image_size", "grid * patch_size")
    P.const("np", "grid * grid")
    P.const("ntok", "np + 1")
    P.const("patch_dim", "channels * patch_size * patch_size")
    B, C, G, PS, E = "batch_size", "channels", "grid", "patch_size", "E"
    img = P.input("img", [B, C, "image_size", "image_size"])
    y = P.output("y", [B, "num_classes"])
    pos = P.param("pos_embedding", ["1", "ntok", E], "normal(0, 1)")
    pw, pb = P.linear_params("patch_to_embedding", "patch_dim", E, 3 * 16 * 16)
    cls = P.param("cls_token", ["1", "1", E], "normal(0, 1)")
    img6 = P.view("img6", img, [B, C, G, PS, G, PS])
    patches = P.buf("patches", [B, C, G, G, PS, PS])
    P.call("permute", [img6], [patches], p0=0, p1=1, p2=2, p3=4, p4=3, p5=5)
    p3 = P.view("patches3", patches, [B, "np", "patch_dim"])
    emb = P.buf("emb", [B, "np", E])
    P.linear(p3, pw, pb, emb, "%s * np" % B, "patch_dim", E)
    x0 = P.buf("x0", [B, "ntok", E])
    cls_cat(P, cls, (emb, "np"), x0, B, E)
    P.call("add_bcast", [x0, pos], [x0])
    P.flop("%s * ntok * %s" % (B, E))
    x = x0
    for i in range(depth):
        x = encoder_layer(P, x, i, B, "ntok", batch_first=False)
    c0 = P.buf("cls_out", [B, "1", E])
    P.call("narrow", [x], [c0], dim=1, start=0)
    c2 = P.view("cls_out2", c0, [B, E])
    hw, hb = P.linear_params("mlp_head0", E, "ff", 512)
    h1 = P.buf("head1", [B, "ff"])
    P.linear(c2, hw, hb, h1, B, E, "ff")
    h2 = P.buf("head2", [B, "ff"])
    P.call("gelu", [h1], [h2])
    P.flop("%s * ff" % B, 8)
    ow, ob = P.linear_params("mlp_head3", "ff", "num_classes", 2048)
    P.linear(h2, ow, ob, y, B, "ff", "num_classes")
    note = """Vision Transformer: patches by img.unfold(2, p, p).unfold(3, p,
p).reshape(B, -1, p*p*C), Linear(p*p*C -> dim), cat of the cls token, +=
pos_embedding, nn.TransformerEncoder of depth 6 (dim 512, 8 heads, mlp_dim
2048) with batch_first=False on the batch-major tensor, so attention
runs over the batch dim (sequence L = batch 2, "batch" N = 197 tokens),
then mlp_head(x[:, 0]) = Linear(dim -> mlp_dim), GELU, Dropout(0),
Linear(mlp_dim -> num_classes). Same forward and sizes at both revisions
(kb0 = kb1: 2 images of 3 x 224 x 224; we draw normal(0, 1)). Keys:
grid = image_size / patch_size, H heads of hd (dim = H * hd), ff =
mlp_dim, so every shape set resolves whole patches and heads; batch_size
is fixed at 2 (the cls cat below has one input per batch row).

How PyTorch runs it: the unfold/reshape is one strided copy (a `permute`
of img viewed [B, C, g, p, g, p] into [B, C, g, g, p, p], whose reshape
is a view: KernelBench's reshape mixes channels into the patch rows, kept
as written); patch_to_embedding is addmm (`linear`); the cat is one
CatArrayBatchedCopy of the expanded cls token and x (`cat` along dim 0 of
[B * 197, dim], the cls row and each image's rows as inputs: one launch);
`x += pos_embedding` is an in-place broadcast add; dropout(0) is the
identity. x[:, 0] for the head is a strided view that addmm reads with a
row stride; the language has no strided operand, so the plan copies it
with `narrow` (one launch of 4 KB that PyTorch does not run).

The output does not depend on img (declared `degenerate`): attention
runs over the batch dim, token by token, and token 0 of both images is
the same cls_token + pos_embedding[0], so x[:, 0], all the head reads,
is one function of the params for every image (checked at tiny: both
output rows equal, whatever img). That is KernelBench's Model as written;
the task keeps it, and a candidate may exploit it as the Model allows.

""" + ENC_NOTE + """ pos_embedding and cls_token are
torch.randn parameters: normal(0, 1).

Precision fp32 (strict: no convolution; Linear, bmm and the
memory-efficient SDPA's 3xTF32 are fp32-accurate). The logits are
~0.2-0.3 rms. A CPU emulation of the kb1 network (numpy's blocked fp32 against
float64) errs by <5e-7 at worst, ~0.01 of the allowance; TF32-rounded
GEMM inputs by 3.2e-4 to 3.6e-4, ~10 times it. atol = 3e-5, rtol = 3e-5: attention
over the wrong dim, a dropped bias or affine, or TF32 GEMMs fail."""
    return dict(id=28, stem="28_VisionTransformer", name="vision_transformer", P=P,
                note=note, tol=(3e-5, 3e-5), prec="fp32", fixed=["batch_size"],
                degenerate="the output does not depend on img: batch_first=False "
                "attends over the batch dim, and token 0 of every image is the same "
                "cls_token + pos_embedding[0], so x[:, 0] is one function of the params",
                jsonl=lambda s: dict(image_size=s["grid"] * s["patch_size"],
                                     patch_size=s["patch_size"],
                                     num_classes=s["num_classes"], dim=s["H"] * s["hd"],
                                     depth=depth, heads=s["H"], mlp_dim=s["ff"],
                                     channels=s["channels"]),
                sets=sets)


def cvit(kb0):
    kb1 = dict(batch_size=10, grid=8, patch_size=4, in_channels=3, H=4, hd=32,
               num_classes=1000)
    tiny = dict(batch_size=10, grid=2, patch_size=2, in_channels=3, H=2, hd=4,
                num_classes=5)
    sets = dict(kb0=dict(kb1), kb1=dict(kb1), tiny=tiny)
    P = Plan(sets, list(kb1))
    depth = 6
    P.const("eps", "1e-5", value=False)
    P.const("E", "H * hd")
    P.const("ff", "4 * E")
    P.const("image_size", "grid * patch_size")
    P.const("np", "grid * grid")
    B, E = "batch_size", "E"
    img = P.input("img", [B, "in_channels", "image_size", "image_size"])
    y = P.output("y", [B, "num_classes"])
    cb = 1 / math.sqrt(3 * 4 * 4)
    cw = P.param("conv1_w", [E, "in_channels", "patch_size", "patch_size"], U(cb))
    cbias = P.param("conv1_b", [E], U(cb))
    lw, lb = P.linear_params("linear_proj", "E * np", E, 128 * 64)
    cls = "cls_token"   # declared after the layers, as the Model creates it
    c = P.buf("conv", [B, E, "grid", "grid"])
    P.call("conv_bias", [img, cw, cbias], [c], stride="patch_size")
    P.flop("%s * %s * np * in_channels * patch_size * patch_size" % (B, E), 2)
    cf = P.view("conv_flat", c, [B, "E * np"])
    e = P.buf("emb", [B, E])
    P.linear(cf, lw, lb, e, B, "E * np", E)
    x0 = P.buf("x0", [B, "2", E])
    cls_cat(P, cls, (e, "1"), x0, B, E)
    x = x0
    for i in range(depth):
        if kb0:
            x = encoder_layer(P, x, i, B, "2", batch_first=False)
        else:
            x = encoder_layer(P, x, i, "2", B, batch_first=True)
    P.param(cls, ["1", "1", E], "normal(0, 1)")
    c0 = P.buf("cls_out", [B, "1", E])
    P.call("narrow", [x], [c0], dim=1, start=0)
    c2 = P.view("cls_out2", c0, [B, E])
    fw, fb = P.linear_params("fc_out", E, "num_classes", 128)
    P.linear(c2, fw, fb, y, B, E, "num_classes")
    which = ("""kb0's program (b08d959^): nn.TransformerEncoderLayer without
batch_first, so on the [B, 2, E] tensor attention runs over the batch dim
(sequence L = B = 10, "batch" N = 2 tokens) and the in-projection is a
Linear on a contiguous tensor; main's (32_convolutional_vision_transformer)
has batch_first=True. This file's kb1 set repeats kb0's sizes, which main
keeps.

The output does not depend on img (declared `degenerate`): attention
runs over the batch dim, token by token, and token 0 of every row is
the same cls_token, so x[:, 0], all fc_out reads, is one function of the
params for every image (checked at tiny: all output rows equal). That is
KernelBench's kb0 Model as written; main's batch_first=True fixed it.""" if kb0 else """main's program: nn.TransformerEncoderLayer(batch_first=True), so MHA
transposes x to [L = 2, N = B, E] (a view) and F.linear on that
non-contiguous 3-D view is matmul: a reshape copy (`permute` to [2, B,
E]), mm (`gemm tb=1`) and an in-place bias add (`add_bcast`), 4 launches
where a contiguous input gets one addmm. The attention output is permuted
back batch-major before the out-projection (PyTorch permutes it to [L, N,
E] and its residual add reads that transposed; the plan's copy writes [N,
L, E], the same bytes, so the add runs on contiguous operands). kb0's
forward differs (batch_first=False): 32kb0_convolutional_vision_transformer.""")
    note = """Convolutional Vision Transformer: Conv2d(3 -> 128, k = s = 4) on 32 x
32 images, flatten, Linear(128 * 64 -> 128), cat of the cls token (x.
unsqueeze(1)) into [B, 2, 128], 6 nn.TransformerEncoderLayer(128, 4
heads, ff 512, dropout 0), fc_out(x[:, 0]) = Linear(128 -> 1000). Batch
10; we draw normal(0, 1). Keys: grid = image_size / patch_size, H heads
of hd (E = H * hd, ff = 4E); batch_size is fixed (the cls cat has one
input per row).

""" + which + """

The conv with bias is `conv_bias` (cuDNN + the bias add); flatten is a
view; the cat is one CatArrayBatchedCopy (`cat` along dim 0 of [2B, E],
the cls row and each embedding row as inputs). x[:, 0] is a strided view
that addmm reads with a row stride; the plan copies it with `narrow` (one
extra launch of 5 KB).

""" + ENC_NOTE + """ cls_token is zeros in PyTorch and drawn normal(0,
1) here (zeros would let a candidate drop it). Conv params at PyTorch's
bound 1/sqrt(48).

Precision tf32 (the conv is cuDNN with TF32, PyTorch's default). The
logits are ~0.7 rms. A CPU emulation at kb1 (numpy fp32 against float64,
2026-12-02) puts a TF32 conv at 9e-5 worst error and TF32 in every GEMM
at 1.1e-3, 0.09 of the allowance, while attention over the other dim
(main's program against kb0's) errs by 0.42, ~35 times it. atol = 1e-2,
rtol = 1e-2 (level 2's conv allowance): the wrong dim, a dropped cls
token, bias or affine fail."""
    tid_kb0 = kb0
    return dict(id=32, stem="32_ConvolutionalVisionTransformer",
                name="convolutional_vision_transformer", P=P, note=note, tol=(1e-2, 1e-2),
                prec="tf32", kb0=tid_kb0, fixed=["batch_size"],
                degenerate=("the output does not depend on img: without batch_first "
                            "attention runs over the batch dim, and token 0 of every row "
                            "is the same cls_token, so x[:, 0] is one function of the "
                            "params") if kb0 else None,
                jsonl=lambda s: dict(batch_size=s["batch_size"],
                                     image_size=s["grid"] * s["patch_size"],
                                     embed_dim=s["H"] * s["hd"],
                                     in_channels=s["in_channels"], num_heads=s["H"],
                                     num_classes=s["num_classes"]),
                sets=sets)


# ---- nn.MultiheadAttention with need_weights=True (31) --------------------

def vision_attention():
    kb1 = dict(batch_size=2, H=4, hd=32, height=128, width=128)
    tiny = dict(batch_size=2, H=2, hd=4, height=3, width=5)
    sets = dict(kb0=dict(kb1), kb1=kb1, tiny=tiny)
    P = Plan(sets, list(kb1))
    P.const("eps", "1e-5", value=False)
    P.const("q_scale", "sqrt(1.0 / hd)", value=False)
    P.const("E", "H * hd")
    P.const("L", "height * width")
    B, E, H, D, L = "batch_size", "E", "H", "hd", "L"
    x = P.input("x", [B, E, "height", "width"])
    y = P.output("y", [B, E, "height", "width"])
    inw, inb, outw, outb = mha_params(P, "attn_", E, P.val("E"))
    nw, nb = P.ln_params("norm", E)
    LB, BH = "%s * %s" % (L, B), "%s * %s" % (B, H)
    x3 = P.view("x3", x, [B, E, L])
    xt = P.buf("xt", [L, B, E])
    P.call("permute", [x3], [xt], p0=2, p1=0, p2=1)
    proj = P.buf("proj", [L, B, "3 * E"])
    P.call("gemm", [xt, inw], [proj], tb=1)
    P.flop("%s * %s * 3 * %s" % (LB, E, E), 2)
    P.call("add_bcast", [proj, inb], [proj])
    P.flop("%s * 3 * %s" % (LB, E))
    proj5 = P.view("proj5", proj, [L, B, "3", H, D])
    qkvh = P.buf("qkvh", ["3", B, H, L, D])
    P.call("permute", [proj5], [qkvh], p0=2, p1=1, p2=3, p3=0, p4=4)
    q = P.view("q", qkvh, [BH, L, D])
    k = P.view("k", qkvh, [BH, L, D], off="%s * %s * %s" % (BH, L, D))
    v = P.view("v", qkvh, [BH, L, D], off="2 * %s * %s * %s" % (BH, L, D))
    qs = P.buf("q_scaled", [BH, L, D])
    P.call("scale", [q], [qs], alpha="q_scale")
    P.flop("%s * %s * %s" % (BH, L, D))
    sc = P.buf("scores", [BH, L, L])
    P.call("gemm", [qs, k], [sc], tb=1)
    P.flop("%s * %s * %s * %s" % (BH, L, L, D), 2)
    pw = P.buf("weights", [BH, L, L])
    P.call("softmax", [sc], [pw], dim=-1)
    P.flop("%s * %s * %s" % (BH, L, L), 5)
    o = P.buf("o", [BH, L, D])
    P.call("gemm", [pw, v], [o])
    P.flop("%s * %s * %s * %s" % (BH, L, L, D), 2)
    ot = P.buf("ot", [L, BH, D])
    P.call("permute", [o], [ot], p0=1, p1=0, p2=2)
    ot2 = P.view("ot2", ot, [LB, E])
    ao = P.buf("ao", [L, B, E])
    ao2 = P.view("ao2", ao, [LB, E])
    P.linear(ot2, outw, outb, ao2, LB, E, E)
    pw3 = P.view("weights3", pw, [B, H, "%s * %s" % (L, L)])
    wavg = P.buf("weights_avg", [B, "1", "%s * %s" % (L, L)])
    P.call("mean", [pw3], [wavg], dim=1)
    P.flop("%s * %s * %s" % (BH, L, L))
    r = P.buf("r", [L, B, E])
    P.call("add", [ao, xt], [r])
    P.flop("%s * %s" % (LB, E))
    z = P.buf("z", [L, B, E])
    P.layernorm(r, nw, nb, z, LB, E)
    y3 = P.view("y3", y, [B, E, L])
    P.call("permute", [z], [y3], p0=1, p1=2, p2=0)
    note = """Self-attention over the pixels of an image: x [B, C, H, W] viewed
[B, C, HW] and permuted to [HW, B, C] (sequence first), nn.
MultiheadAttention(C = 128, 4 heads) on it, x = LayerNorm(attn + x),
permuted back to [B, C, H, W]. Same forward and sizes at both revisions
(kb0 = kb1: 2 images of 128 channels, 128 x 128, so L = 16384 tokens; we
draw normal(0, 1)). Keys: H heads of hd (C = H * hd), height, width.

The Model calls self.attn(x, x, x) with need_weights=True (the default)
in training mode, so F.multi_head_attention_forward takes its slow path
and PyTorch runs (and the plan with it): F.linear on the permuted,
non-contiguous x is matmul, which copies it to [L, B, C] (`permute`), mm
(`gemm tb=1`) and an in-place bias add (`add_bcast`); the packed q, k, v
are copied to contiguous [3, L, B, C] (here one `permute` to [3, B, H, L,
hd], the same bytes, which makes each head contiguous: PyTorch's bmms
read its per-head views with a batch stride instead); q * sqrt(1/hd)
(`scale`); bmm(q, k^T) into [B*H, L, L] (8 GiB at kb1: tensors of
exactly 2^31 elements); softmax (another 8 GiB); dropout 0 is skipped;
bmm with v; transpose(0, 1).contiguous() (`permute`); out_proj (addmm,
`linear`); and the head-averaged attention weights, returned by MHA and
discarded by the Model but computed all the same: mean over heads of the
weights viewed [B, H, L*L] (2 GiB). The residual add reads x through its
permuted view in PyTorch; the plan adds the [L, B, C] copy made for the
in-projection (the same values, read contiguously). The output is a
permuted view in PyTorch; a task output is contiguous, so the plan's
last `permute` is a copy PyTorch does not make (16 MiB, ~10 us of a
~10 ms reference).

Params: in_proj_weight xavier_uniform (PyTorch's init), out_proj.weight
nn.Linear's bound 1/sqrt(C); the two biases, zeros in PyTorch, are drawn
uniform(+-1/sqrt(C)) so that a dropped bias fails; LayerNorm affine w ~
normal(1, 0.5), b ~ normal(0, 0.5), eps 1e-5.

Precision fp32 (strict: Linear and bmm run without TF32). y ~1.2 rms,
mostly LayerNorm(x + bias): the attention term is small. A CPU emulation
at L = 4096 (64 x 64 pixels; numpy's blocked fp32 against float64) errs
by 1.4e-6 at worst, 0.015 of the allowance; TF32-rounded GEMM inputs by
1.4e-4, ~6 times it; uniform attention (the mean of v) by 0.15. atol =
2e-5, rtol = 2e-5: uniform attention, a missing scale, a dropped bias or
affine, or TF32 bmms fail; the discarded head average cannot be checked
(it is no output) but is part of the reference's time, as of
PyTorch's."""
    return dict(id=31, stem="31_VisionAttention", name="vision_attention", P=P, note=note,
                tol=(2e-5, 2e-5), prec="fp32",
                jsonl=lambda s: dict(embed_dim=s["H"] * s["hd"], num_heads=s["H"],
                                     batch_size=s["batch_size"], num_channels=s["H"] * s["hd"],
                                     image_height=s["height"], image_width=s["width"]),
                sets=sets)


# ---- rendering ------------------------------------------------------------

def render(n):
    P = n["P"]
    bytes_terms = {}
    for d in [i[1] for i in P.inputs] + [p[1] for p in P.params] + [o[1] for o in P.outputs]:
        k = P.numel(d)
        bytes_terms[k] = bytes_terms.get(k, 0) + 1
    bytes_expr = "4 * (" + fold_sum(P, bytes_terms, "nbytes") + ")"
    flops_expr = fold_sum(P, P.flops, "nflops")
    for s, env in P.envs.items():
        assert ev(bytes_expr, env) > 0 and ev(flops_expr, env) > 0, s
    kb0 = n.get("kb0")
    tid = "%d%s_%s" % (n["id"], "kb0" if kb0 else "", n["name"])
    hdr = ["Level 3 problem %d: %s. Generated by tasks/tools/%s; edit"
           % (n["id"], n["stem"], n.get("gen", "gen_l3_attn.py")),
           "the network there, not this file."]
    out = ["# " + l if l else "#" for l in hdr + [""] + wrap(n["note"])]
    out.append("task      %s" % (n["name"] + ("_kb0" if kb0 else "")))
    out.append('source    "KernelBench level3/%s.py%s"' % (n["stem"], " (b08d959^)" if kb0 else ""))
    for s in ("kb0", "kb1", "tiny"):
        out.append("shapes    %-5s %s" % (s, " ".join("%s=%d" % (k, n["sets"][s][k])
                                                    for k in P.keys)))
    if n.get("fixed"):
        out.append("fixed     " + " ".join(n["fixed"]))
    for name, expr in P.consts:
        out.append("const     %s = %s" % (name, expr))
    if n["prec"] == "tf32":
        out.append("precision tf32")
    for name, d, dist in P.inputs:
        out.append("input     %s  f32 [%s]  %s" % (name, ", ".join(d), dist))
    for name, d, dist in P.params:
        out.append("param     %s  %s [%s]  %s" % (name, P.dtypes.get(name, "f32"),
                                                   ", ".join(str(x) for x in d), dist))
    for name, d in P.outputs:
        out.append("output    %s  f32 [%s]" % (name, ", ".join(d)))
    out.append("tolerance atol=%g rtol=%g" % n["tol"])
    if n.get("degenerate"):
        out.append('degenerate "%s"' % n["degenerate"])
    out.append("bytes     " + bytes_expr)
    out.append("flops     " + flops_expr)
    out.append("plan")
    for l in P.decls + P.body:
        out.append("  " + l)
    out.append("end")
    return tid, "\n".join(out) + "\n"


NETS = [mingpt_attention, mingpt_block, relu_self_attention, vit,
        lambda: cvit(False), lambda: cvit(True), vision_attention]


def main():
    check = "--check" in sys.argv[1:]
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    probs = level3_problems()
    rendered = []
    for mk in NETS:
        n = mk()
        check_jsonl(n, probs)
        tid, text = render(n)
        if not only or tid.split("_")[0] in only:
            rendered.append((tid, text))
    return write_tasks(rendered, check)


if __name__ == "__main__":
    sys.exit(main())
