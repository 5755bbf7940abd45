#!/usr/bin/env python3
"""Writes the level-3 Mamba2 tasks (docs/tasks.md, "Level 3"): 48
Mamba2ReturnY and 49 Mamba2ReturnFinalState, KernelBench's chunked SSD
scan (the same forward up to the inter-chunk recurrence; 48 goes on to
the outputs Y, 49 returns the last chunk's state).

The plan is our reading of the op sequence PyTorch eager runs for the
Model (coverage-l2-l3.md sections 3 and 4), with torch.einsum lowered as
at::einsum lowers it without opt_einsum (left to right: permute copies
where a reshape cannot view, bmm, mul; tasks/tools/trace_einsum.py models
it). The notes in NOTE_* say where the plan departs from it and why.
The Plan class, the renderer and the problems.jsonl check come from
gen_l3_attn.py and gen_l3_tasks.py.

Usage: tasks/tools/gen_l3_mamba.py [--check]   (--check: write nothing,
fail if a file would change or a set's sizes disagree with problems.jsonl)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_l3_tasks import check_jsonl, level3_problems, write_tasks  # noqa: E402
import gen_l3_attn  # noqa: E402
from gen_l3_attn import Plan  # noqa: E402

KEYS = ["batch_size", "n_chunks", "block_len", "n_heads", "d_head", "d_state"]
# kb0 and kb1 differ in batch_size only (16 and 2048); seq_length = 128 =
# 2 chunks of 64. tiny has 3 chunks, so the chunk recurrence mixes more
# than two (4 x 4 decay_chunk), and unequal odd-ish sizes elsewhere.
KB1 = dict(batch_size=2048, n_chunks=2, block_len=64, n_heads=8, d_head=64, d_state=16)
SETS = dict(kb0=dict(KB1, batch_size=16), kb1=KB1,
            tiny=dict(batch_size=2, n_chunks=3, block_len=4, n_heads=2, d_head=3, d_state=2))

b, c, l, h, p, n = "batch_size", "n_chunks", "block_len", "n_heads", "d_head", "d_state"
z = "n_z"
cbh = "n_chunks * batch_size * n_heads"
bh = "batch_size * n_heads"


def segsum_exp(P, x, pre, lead, t, mask_rank):
    """torch.exp(segsum(x)) for a contiguous x [*lead, t] whose cumsum
    PyTorch takes along the last dim: cumsum, the broadcast sub
    cs[..., :, None] - cs[..., None, :], torch.ones(t, t, bool) (fill),
    tril, ~ (bitwise_not), masked_fill out of place (clone = copy, then
    masked_fill_ in place with -inf) and exp. Returns the [*lead, t, t]
    buffer."""
    cs = P.buf(pre + "_cs", lead + [t])
    P.call("cumsum", [x], [cs], dim=len(lead))
    ci = P.view(pre + "_ci", cs, lead + [t, "1"])
    cj = P.view(pre + "_cj", cs, lead + ["1", t])
    seg = P.buf(pre + "_seg", lead + [t, t])
    P.call("sub_bcast", [ci, cj], [seg])
    ones = P.buf(pre + "_ones", [t, t], "bool")
    P.call("fill", [], [ones], value=1)
    tri = P.buf(pre + "_tril", [t, t], "bool")
    P.call("tril", [ones], [tri], diagonal=0)
    ntri = P.buf(pre + "_ntril", [t, t], "bool")
    P.call("bitwise_not", [tri], [ntri])
    nt = P.view(pre + "_ntril_b", ntri, ["1"] * (mask_rank - 2) + [t, t])
    segm = P.buf(pre + "_segm", lead + [t, t])
    P.call("copy", [seg], [segm])
    P.call("masked_fill", [segm, nt], [segm], value="-inf")
    P.call("exp", [segm], [seg])      # the allocator hands exp seg's block (x_segsum is dead)
    numel = P.numel(lead + [t, t])
    P.flop(P.numel(lead + [t]))       # cumsum
    P.flop(numel, 2)                  # sub, exp
    return seg


def mamba(ret_y):
    P = Plan(SETS, KEYS)
    P.const("seq_length", "n_chunks * block_len")
    P.const(z, "n_chunks + 1")
    P.const("crop", "1 - block_len")
    P.const("last_idx", "block_len - 1")
    X = P.input("X", [b, "seq_length", h, p])
    A = P.param("A", [b, "seq_length", h], "normal(0, 0.1)")   # see the note
    B = P.param("B", [b, "seq_length", h, n], "normal(0, 1)")
    C = P.param("C", [b, "seq_length", h, n], "normal(0, 1)")
    if ret_y:
        y = P.output("y", [b, "seq_length", h, p])
    else:
        y = P.output("y", [b, h, p, n])
    # rearrange "b (c l) ... -> b c l ...": views
    X5 = P.view("X5", X, [b, c, l, h, p])
    A4 = P.view("A4", A, [b, c, l, h])
    B5 = P.view("B5", B, [b, c, l, h, n])
    C5 = P.view("C5", C, [b, c, l, h, n])

    # A_blocks = rearrange(.., "b c l h -> b h c l") is a permuted view;
    # cumsum copies it contiguous (scan_dim's expect_contiguous) and scans
    # the last dim.
    Ah = P.buf("A_bhcl", [b, h, c, l])
    P.call("permute", [A4], [Ah], p0=0, p1=3, p2=1, p3=2)
    Acs = P.buf("A_cumsum", [b, h, c, l])
    P.call("cumsum", [Ah], [Acs], dim=3)
    P.flop(P.numel([b, h, c, l]))

    # 1. L = exp(segsum(A_blocks)): segsum's own cumsum copies A_blocks
    # again; the copy here lays it out [c, b, h, l] (NOTE_LAYOUT).
    Ac = P.buf("A_cbhl", [c, b, h, l])
    P.call("permute", [A4], [Ac], p0=1, p1=0, p2=3, p3=2)
    Lm = segsum_exp(P, Ac, "L", [c, b, h], l, 5)

    # Y_diag = einsum("bclhn,bcshn,bhcls,bcshp->bclhp", C, B, L, X):
    # (C B) over n: C and B copied for bmm; * L; (. X) over s: X copied.
    Cp = P.buf("Cp", [c, b, h, l, n])
    Bt = P.buf("Bt", [c, b, h, n, l])
    Xp = P.buf("Xp", [c, b, h, l, p])
    Cp3 = P.view("Cp3", Cp, [cbh, l, n])
    Bt3 = P.view("Bt3", Bt, [cbh, n, l])
    Xp3 = P.view("Xp3", Xp, [cbh, l, p])
    P.call("permute", [C5], [Cp], p0=1, p1=0, p2=3, p3=2, p4=4)
    P.call("permute", [B5], [Bt], p0=1, p1=0, p2=3, p3=4, p4=2)
    # the bmm's output takes the block masked_fill's tensor freed (dead
    # after exp), as the caching allocator hands it over
    CB = P.view("CB", Lm.replace("_seg", "_segm"), [cbh, l, l])
    P.call("gemm", [Cp3, Bt3], [CB])
    P.flop("%s * %s * %s * %s" % (cbh, l, l, n), 2)
    L3 = P.view("L3", Lm, [cbh, l, l])
    M = P.buf("CBL", [cbh, l, l])
    P.call("mul", [CB, L3], [M])
    P.flop("%s * %s * %s" % (cbh, l, l))
    P.call("permute", [X5], [Xp], p0=1, p1=0, p2=3, p3=2, p4=4)
    Yd = P.buf("Y_diag", [cbh, l, p])
    P.call("gemm", [M, Xp3], [Yd])
    P.flop("%s * %s * %s * %s" % (cbh, l, p, l), 2)

    # 2. decay_states = exp(A_cumsum[:, :, :, -1:] - A_cumsum)
    last = P.buf("A_last", [b, h, c, "1"])
    P.call("narrow", [Acs], [last], dim=3, start="last_idx")
    dsub = P.buf("dstate_sub", [b, h, c, l])
    P.call("sub_bcast", [last, Acs], [dsub])
    ds = P.buf("decay_states", [b, h, c, l])
    P.call("exp", [dsub], [ds])
    P.flop(P.numel([b, h, c, l]), 2)
    # states = einsum("bclhn,bhcl,bclhp->bchpn", B, decay_states, X):
    # B * decay_states (output in B's layout), then (. X) over l: both
    # copied for bmm.
    dsp = P.buf("decay_states_bclh", [b, c, l, h])
    P.call("permute", [ds], [dsp], p0=0, p1=2, p2=3, p3=1)
    dsp5 = P.view("decay_states_b", dsp, [b, c, l, h, "1"])
    Mb = P.buf("B_decay", [b, c, l, h, n])
    P.call("mul_bcast", [B5, dsp5], [Mb])
    P.flop(P.numel([b, c, l, h, n]))
    Mbt = P.buf("B_decay_t", [c, b, h, n, l])
    P.call("permute", [Mb], [Mbt], p0=1, p1=0, p2=3, p3=4, p4=2)
    P.call("permute", [X5], [Xp], p0=1, p1=0, p2=3, p3=2, p4=4)
    Mbt3 = P.view("B_decay_t3", Mbt, [cbh, n, l])
    St = P.buf("states", [cbh, n, p])
    P.call("gemm", [Mbt3, Xp3], [St])
    P.flop("%s * %s * %s * %s" % (cbh, n, p, l), 2)

    # 3. states = cat([zeros_like(states[:, :1]), states], dim=1)
    zs = P.buf("initial_states", ["1", b, h, n, p])
    P.call("fill", [], [zs], value=0)
    St5 = P.view("states5", St, [c, b, h, n, p])
    SC = P.buf("states_cat", [z, b, h, n, p])
    P.call("cat", [zs, St5], [SC], dim=0)
    # decay_chunk = exp(segsum(F.pad(A_cumsum[:, :, :, -1], (1, 0))))
    xpad = P.buf("A_last_pad", [b, h, z, "1"])
    P.call("pad", [Acs], [xpad], pad0="crop", pad1=0, pad2=1, pad3=0)
    xpad3 = P.view("A_last_pad3", xpad, [b, h, z])
    DC = segsum_exp(P, xpad3, "dchunk", [b, h], z, 4)
    # new_states = einsum("bhzc,bchpn->bzhpn", decay_chunk, states): the
    # cat'ed states copied for bmm, decay_chunk a view.
    SCp = P.buf("states_t", [b, h, z, p, n])
    P.call("permute", [SC], [SCp], p0=1, p1=2, p2=0, p3=4, p4=3)
    DC3 = P.view("dchunk3", DC, [bh, z, z])
    SCp3 = P.view("states_t3", SCp, [bh, z, "d_head * d_state"])
    NS = P.buf("new_states", [bh, z, "d_head * d_state"])
    P.call("gemm", [DC3, SCp3], [NS])
    P.flop("%s * %s * d_head * d_state * %s" % (bh, z, z), 2)

    if not ret_y:
        # new_states[:, -1]: a strided view; the output is contiguous
        y3 = P.view("y3", y, [bh, "1", "d_head * d_state"])
        P.call("narrow", [NS], [y3], dim=1, start=c)
        return P

    # 4. states = new_states[:, :-1]; state_decay_out = exp(A_cumsum)
    sdo = P.buf("state_decay_out", [b, h, c, l])
    P.call("exp", [Acs], [sdo])
    P.flop(P.numel([b, h, c, l]))
    # Y_off = einsum('bclhn,bchpn,bhcl->bclhp', C, states, state_decay_out):
    # (C states) over n: C and the states view copied for bmm; * decay.
    P.call("permute", [C5], [Cp], p0=1, p1=0, p2=3, p3=2, p4=4)
    NS5 = P.view("new_states5", NS, [b, h, z, p, n])
    NSt = P.buf("new_states_t", [z, b, h, n, p])
    P.call("permute", [NS5], [NSt], p0=2, p1=0, p2=1, p3=4, p4=3)
    Sprev = P.view("states_prev", NSt, [cbh, n, p])
    Po = P.buf("C_states", [cbh, l, p])
    P.call("gemm", [Cp3, Sprev], [Po])
    P.flop("%s * %s * %s * %s" % (cbh, l, p, n), 2)
    sdop = P.buf("state_decay_out_cbhl", [c, b, h, l])
    P.call("permute", [sdo], [sdop], p0=2, p1=0, p2=1, p3=3)
    sdop5 = P.view("state_decay_out_b", sdop, [c, b, h, l, "1"])
    Po5 = P.view("C_states5", Po, [c, b, h, l, p])
    Yo = P.buf("Y_off", [c, b, h, l, p])
    P.call("mul_bcast", [Po5, sdop5], [Yo])
    # Y = rearrange(Y_diag + Y_off, "b c l h p -> b (c l) h p"): the add
    # keeps its operands' layout; the reshape copies.
    Yd5 = P.view("Y_diag5", Yd, [c, b, h, l, p])
    S = P.buf("Y_sum", [c, b, h, l, p])
    P.call("add", [Yd5, Yo], [S])
    P.flop(P.numel([c, b, h, l, p]), 2)
    y5 = P.view("y5", y, [b, c, l, h, p])
    P.call("permute", [S], [y5], p0=1, p1=0, p2=3, p3=2, p4=4)
    return P


COMMON = """KernelBench's Mamba2 SSD ("state space duality") forward,
chunked: X [batch, seq_length, n_heads, d_head] is cut into n_chunks
chunks of block_len steps; A [batch, seq, heads] (log decays), B and C
[batch, seq, heads, d_state] are nn.Parameters sized by the batch (kb1:
69 M params, 264 MiB). Per chunk: L = exp(segsum(A)) (the causal decay
matrix, -inf above the diagonal before exp), Y_diag = einsum(C, B, L, X);
the chunk states einsum(B, exp(A_cumsum_last - A_cumsum), X); the
inter-chunk recurrence new_states = einsum(exp(segsum(pad(chunk totals))),
cat(zeros, states)). Keys: n_chunks and block_len (seq_length =
n_chunks * block_len, so every set divides), n_heads, d_head, d_state.
kb0 and kb1 differ in batch_size only (16, 2048; 2 chunks of 64, 8 heads
of 64, state 16); tiny has 3 chunks of 4, so the recurrence mixes more
than two.

How PyTorch runs it (and the plan with it). Assumption: torch.einsum
without opt_einsum. KernelBench's requirements (torch 2.5.0, einops,
numpy, ...) do not list opt_einsum and torch's wheel does not require it
(it is the optional extra torch[opt-einsum]); torch.backends.opt_einsum's
docs: without the package, torch.einsum contracts from left to right (with
it installed, enabled by default, opt_einsum's 'auto' path would reorder
the 3- and 4-operand einsums). at::einsum then runs each pair as
sumproduct_pair: the operands permuted and reshaped to [batch, M, K] and
[batch, K, N] (a reshape that cannot view copies: a `permute` here), one
bmm (`gemm`, strict fp32: allow_tf32 is off for matmul), or a mul when
nothing is summed (tasks/tools/trace_einsum.py models it). rearrange of
"b (c l) ..." is a view; "b c l h -> b h c l" a permuted view, which
torch.cumsum copies contiguous before its scan (twice: A_cumsum and
segsum's own cumsum). segsum is cumsum, the broadcast sub
cs[..., :, None] - cs[..., None, :] (`sub_bcast`), torch.ones(T, T,
bool) (`fill`), tril, ~ (`bitwise_not`), masked_fill out of place (clone
= `copy`, then `masked_fill` in place with -inf) and exp. zeros_like is a
`fill`; F.pad(A_cumsum[..., -1], (1, 0)) is one `pad` of A_cumsum that
crops the last dim to its last element and pads the chunk dim (fill +
strided copy, PyTorch's constant_pad_nd on the strided select). Scratch
reuse: exp writes over the sub's tensor, the first bmm over masked_fill's
(the caching allocator's reuse)."""

DEPART = """Where the plan departs from PyTorch's kernels, and why (the language
has no strided operand for elementwise ops): (1) the bmm batches are
ordered (chunk, batch, head) where PyTorch's are (batch, chunk, head):
each permute copy PyTorch makes for an einsum (C, B, X, B * decay, X
again%s) lands in that order instead (the same bytes, the same
GEMMs). That lets the cat of the zero state and the chunk states be one
contiguous `cat` on dim 0 (PyTorch's 5-D cat is two copy_ kernels into
narrowed slices: the same bytes, one launch fewer here), and (2) segsum's
copy of A for L is laid out [chunk, batch, head, l], so L comes out in
the layout of C.B and their mul reads both contiguously, where PyTorch's
mul reads L through a permuted view (the same bytes; PyTorch's kernel is
then TensorIterator's non-vectorised one, ours may vectorise: at most a
few percent of that one 3 x 512 MiB kernel, in the reference's favour).
(3) Copies PyTorch does not make, each named: A_cumsum[..., -1:] read
strided by the decay_states sub is a `narrow` first (batch * heads *
n_chunks floats: 128 KiB at kb1); the decay_states tensor broadcast over
d_state in B's layout is a `permute` to [batch, chunk, l, head] first (8
MiB at kb1) so the mul is a `mul_bcast`"""

NOTE_48 = COMMON + """ Problem 48 returns Y = rearrange(Y_diag + Y_off,
"b c l h p -> b (c l) h p"), Y_off = einsum(C, new_states[:, :-1],
exp(A_cumsum)); the add keeps its operands' layout and the rearrange
copies (`add`, `permute`).

""" + DEPART % ", C again" + """; state_decay_out likewise (`permute` to [chunk, batch,
head, l], 8 MiB); and the copy of new_states[:, :-1] for Y_off's bmm is a
`permute` of all n_chunks + 1 chunks (its first n_chunks form the
operand), 64 MiB more read and written than PyTorch's 128 MiB copy at
kb1. Together about 160 MiB of traffic and 3 small launches beyond
PyTorch's ~15 GiB and 45 kernels (47 here): about 1% of the reference's
time (~4 ms at kb1, memory-bound), in PyTorch's favour.

Params: B and C normal(0, 1), the Model's torch.randn; X normal(0, 1)
(kb0 draws randn, kb1 rand); A normal(0, 0.1), not the Model's randn:
with unit A the 64-step cumsums reach +-37 and the chunk totals' sums 54
over a kb1 batch, so exp spans e^+-55 and Y runs from ~1e2 (median) to
5e18; correct fp32 orders then differ elementwise by up to 2x where
those huge terms cancel (an emulation of 1/8 of kb1,
tasks/tools/emu_l3_mamba.py: 212 of 16.8 M elements beyond rtol 1e-2, 19 beyond
1e-1, ~20/r expected beyond rtol r at full size), so no atol/rtol
separates a correct kernel from a wrong one. A at a tenth keeps
every sign and the function (a candidate must still compute every
decay: e^+-3.7 within a chunk, +-5.4 across them) with y rms ~55, max
~3.5e3.

Precision fp32 (strict: every bmm is strict fp32 in PyTorch, exp is
expf). The emulation (256 items at kb1's per-item sizes, float64 against
numpy's float32 orders and against a tree-ordered cumsum) errs by at
most 1.7e-3, 0.029 of the allowance atol = 1e-2, rtol = 1e-3 (atol is
2e-4 of y's rms); TF32-rounded X, B, C err by 1.5, 61 times it, and
dropping Y_off fails by 3e4."""

NOTE_49 = COMMON + """ Problem 49 returns new_states[:, -1], the state after
the last chunk; the Y_diag branch is computed (PyTorch runs it) though
nothing returned depends on it, so a candidate may leave it out.

""" + DEPART % "" + """; and the returned view new_states[:, -1] (strided) is
copied into the contiguous output by a `narrow` (64 MiB at kb1). Together
about 145 MiB of traffic and 2 small launches beyond PyTorch's ~10.5 GiB
and 38 kernels (40 here): about 1.5% of the reference's time (~2.9 ms at
kb1, memory-bound), in PyTorch's favour.

Params: B and C normal(0, 1), the Model's torch.randn; X normal(0, 1)
(kb0 draws randn, kb1 rand); A normal(0, 0.1), not the Model's randn:
with unit A the cumsums' exps span e^+-55 and the final states run to
7e17; correct fp32 orders then differ elementwise by up to 0.8x where
huge terms cancel (tasks/tools/emu_l3_mamba.py: 31 of 2.1 M elements
beyond rtol 1e-2 on 1/8 of kb1), so no atol/rtol separates a correct
kernel from a wrong one. A at a tenth keeps every sign and the function
(decays e^+-3.7 within a chunk, +-5.4 across them), y rms ~24, max
~820.

Precision fp32 (strict: every bmm is strict fp32 in PyTorch, exp is
expf). The emulation (256 items at kb1's per-item sizes, float64 against
numpy's float32 orders and a tree-ordered cumsum) errs by at most 5e-4,
0.041 of the allowance atol = 1e-3, rtol = 1e-3; TF32-rounded X, B, C
err by 0.29, 95 times it, and the state one chunk early fails by 4e4."""


def jsonl(s):
    return dict(batch_size=s["batch_size"], seq_length=s["n_chunks"] * s["block_len"],
                n_heads=s["n_heads"], d_head=s["d_head"], d_state=s["d_state"],
                block_len=s["block_len"])


def nets():
    return [dict(id=48, stem="48_Mamba2ReturnY", name="mamba2_return_y", P=mamba(True),
                 note=NOTE_48, tol=TOL_48, prec="fp32", jsonl=jsonl, sets=SETS),
            dict(id=49, stem="49_Mamba2ReturnFinalState", name="mamba2_return_final_state",
                 P=mamba(False), note=NOTE_49, tol=TOL_49, prec="fp32", jsonl=jsonl,
                 sets=SETS)]


TOL_48 = (1e-2, 1e-3)     # tasks/tools/emu_l3_mamba.py (TOL there)
TOL_49 = (1e-3, 1e-3)


def render(net):
    tid, text = gen_l3_attn.render(net)
    return tid, text.replace("Generated by tasks/tools/gen_l3_attn.py",
                             "Generated by tasks/tools/gen_l3_mamba.py", 1)


def main():
    check = "--check" in sys.argv[1:]
    probs = level3_problems()
    rendered = []
    for net in nets():
        check_jsonl(net, probs)
        rendered.append(render(net))
    return write_tasks(rendered, check)


if __name__ == "__main__":
    sys.exit(main())
