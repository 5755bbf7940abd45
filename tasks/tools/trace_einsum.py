#!/usr/bin/env python3
"""A model of the kernels PyTorch's at::einsum launches, for writing level-3
reference plans that contain einsums (Mamba2, L3 48/49): for operand shapes
and strides it lists the sums, muls, contiguous copies (a reshape of a
non-viewable layout, a bmm operand cuBLAS cannot take) and bmms, following
our reading of Linear.cpp's einsum / sumproduct_pair (left-to-right
contraction), TensorUtils' computeStride (when reshape is a view) and
TensorIterator's output layout (reorder_dimensions) for the muls.

Not verified against a PyTorch run: torch.einsum in Python takes
opt_einsum's contraction path instead when the opt_einsum package is
installed (3+ operands), which changes the sequence; check both with the
profiler on the GPU machine before a plan relies on it.

Usage: tasks/tools/trace_einsum.py   (prints Mamba2's four einsums at kb1)
"""
import sys

class T:
    def __init__(s, name, sizes, strides=None):
        s.name, s.sizes = name, list(sizes)
        s.strides = list(strides) if strides is not None else contig(sizes)
    def __repr__(s):
        return "%s%s/%s" % (s.name, s.sizes, s.strides)

def contig(sizes):
    st, acc = [], 1
    for d in reversed(sizes):
        st.insert(0, acc); acc *= d
    return st

def numel(sizes):
    n = 1
    for d in sizes: n *= d
    return n

def is_contig(t):
    exp = 1
    for d in reversed(range(len(t.sizes))):
        if t.sizes[d] != 1:
            if t.strides[d] != exp: return False
            exp *= t.sizes[d]
    return True

def permute(t, p):
    return T(t.name + "'", [t.sizes[i] for i in p], [t.strides[i] for i in p])

def unsqueeze(t, d):
    st = t.sizes[d] * t.strides[d] if d < len(t.sizes) else 1
    return T(t.name, t.sizes[:d] + [1] + t.sizes[d:], t.strides[:d] + [st] + t.strides[d:])

def compute_stride(old, olds, new):
    if numel(old) == 0: return None
    news = [0] * len(new)
    view_d = len(new) - 1
    chunk = olds[-1]; tn = 1; vn = 1
    for td in reversed(range(len(old))):
        tn *= old[td]
        if td == 0 or (old[td-1] != 1 and olds[td-1] != tn * chunk):
            while view_d >= 0 and (vn < tn or new[view_d] == 1):
                news[view_d] = vn * chunk; vn *= new[view_d]; view_d -= 1
            if vn != tn: return None
            if td > 0:
                chunk = olds[td-1]; tn = 1; vn = 1
    if view_d != -1: return None
    return news

LOG = []
def reshape(t, new):
    st = compute_stride(t.sizes, t.strides, new)
    if st is None:
        LOG.append("copy    %s -> contiguous %s (reshape of a non-viewable layout)" % (t, t.sizes))
        return T(t.name + "c", new)
    return T(t.name, new, st)

def tsum(t, dims):
    LOG.append("sum     %s over dims %s (keepdim)" % (t, dims))
    sz = [1 if i in dims else d for i, d in enumerate(t.sizes)]
    return T(t.name + "s", sz)

def bmm_operand(t):
    s, st = t.sizes, t.strides
    if st[2] == 1 and st[1] >= max(1, s[2]): return t, "n"
    if st[1] == 1 and st[2] >= max(1, s[1]): return t, "t"
    LOG.append("copy    %s -> contiguous (bmm operand)" % t)
    return T(t.name + "c", s), "n"

def ti_output(name, ins):
    """The output TensorIterator allocates for inputs ins: the broadcast
    shape, its dims ordered as reorder_dimensions orders them (by the
    inputs' strides, the first input first; size-1 dims of an operand are
    ambiguous there), contiguous in that order."""
    nd = len(ins[0].sizes)
    sz = [max(t.sizes[d] for t in ins) for d in range(nd)]
    def st(t, d):
        return 0 if t.sizes[d] == 1 else t.strides[d]
    def should_swap(d0, d1):        # 1: d0 is outer to d1 (larger stride)
        for t in ins:
            s0, s1 = st(t, d0), st(t, d1)
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1: return -1
            if s0 > s1: return 1
        return 0
    # TensorIterator's perm lists dims innermost first; insertion sort
    perm = list(reversed(range(nd)))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    strides = [0] * nd
    acc = 1
    for d in perm:                  # innermost first
        strides[d] = acc
        acc *= sz[d]
    return T(name, sz, strides)

def sumproduct_pair(a, b, sum_dims):
    if not sum_dims:
        LOG.append("mul     %s * %s" % (a, b))
        return ti_output("mul", [a, b])
    dim = len(a.sizes)
    lro, lo, ro = [], [], []
    lro_s = lo_s = ro_s = sum_s = 1
    for i in range(dim):
        sl, sr = a.sizes[i] != 1, b.sizes[i] != 1
        if i in sum_dims:
            if sl and sr: sum_s *= a.sizes[i]
            elif sl: a = tsum(a, [i])
            elif sr: b = tsum(b, [i])
        elif sl and sr: lro.append(i); lro_s *= a.sizes[i]
        elif sl: lo.append(i); lo_s *= a.sizes[i]
        else: ro.append(i); ro_s *= b.sizes[i]
    lp = lro + lo + sum_dims + ro
    rp = lro + sum_dims + ro + lo
    a3 = reshape(permute(a, lp), [lro_s, lo_s, sum_s])
    b3 = reshape(permute(b, rp), [lro_s, sum_s, ro_s])
    a3, ta = bmm_operand(a3)
    b3, tb = bmm_operand(b3)
    LOG.append("bmm     [%d, %d, %d] x [%d, %d, %d] (a %s, b %s)" % (lro_s, lo_s, sum_s, lro_s, sum_s, ro_s, ta, tb))
    out_size = [a.sizes[d] for d in lro] + [a.sizes[d] for d in lo] + [1] * len(sum_dims) + [b.sizes[d] for d in ro]
    r = T("bmm", out_size)
    operm = [0] * len(out_size)
    for k, d in enumerate(lro + lo + sum_dims + ro): operm[d] = k
    return permute(r, operm)

def einsum(eq, ops):
    lhs, rhs = eq.split("->")
    labels = lhs.split(",")
    out = list(rhs)
    allL = []
    for l in labels:
        for c in l:
            if c not in allL: allL.append(c)
    perm_index = {c: i for i, c in enumerate(out)}
    k = len(out)
    for c in sorted(set(allL) - set(out)):   # at::einsum adds contraction labels in label order
        perm_index[c] = k; k += 1
    n = k
    dim_counts = [0] * n
    prepared = []
    for l, t in zip(labels, ops):
        p = [-1] * n; d = 0
        for c in l:
            if t.sizes[d] != 1: dim_counts[perm_index[c]] += 1
            p[perm_index[c]] = d; d += 1
        for i in range(n):
            if p[i] == -1:
                t = unsqueeze(t, d); p[i] = d; d += 1
        prepared.append(permute(t, p))
    ops = prepared
    while len(ops) > 1:
        a, b = ops[0], ops[1]; ops = ops[2:]
        sum_dims, asum, bsum = [], [], []
        for d in range(len(out), n):
            if a.sizes[d] != 1 and b.sizes[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1: sum_dims.append(d); dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a.sizes[d] != 1: asum.append(d); dim_counts[d] = 0
                elif b.sizes[d] != 1: bsum.append(d); dim_counts[d] = 0
        if asum: a = tsum(a, asum)
        if bsum: b = tsum(b, bsum)
        ops.insert(0, sumproduct_pair(a, b, sum_dims))
    return ops[0]


def mamba2_kb1():
    """Mamba2's einsums (L3 48/49) at kb1: b 2048, 2 chunks of l 64, h 8,
    n 16, p 64; X, B, C are views of contiguous inputs, L and the decays
    new contiguous tensors."""
    b, c, l, h, n, p = 2048, 2, 64, 8, 16, 64
    X = T("X", [b, c, l, h, p])
    Bb = T("B", [b, c, l, h, n])
    Cb = T("C", [b, c, l, h, n])
    cases = [("Y_diag", "bclhn,bcshn,bhcls,bcshp->bclhp",
              [Cb, Bb, T("L", [b, h, c, l, l]), X]),
             ("states", "bclhn,bhcl,bclhp->bchpn",
              [Bb, T("decay_states", [b, h, c, l]), X]),
             ("new_states", "bhzc,bchpn->bzhpn",
              [T("decay_chunk", [b, h, c + 1, c + 1]), T("states", [b, c + 1, h, p, n])])]
    for title, eq, ops in cases:
        del LOG[:]
        r = einsum(eq, ops)
        print("== %s %s" % (title, eq))
        for x in LOG:
            print("   " + x)
        print("   result %s%s" % (r, "" if is_contig(r) else " (not contiguous)"))
        if title == "new_states":
            ns = r
    # Y_off reads states = new_states[:, :-1], a view
    del LOG[:]
    r = einsum("bclhn,bchpn,bhcl->bclhp",
               [Cb, T("states", [b, c, h, p, n], ns.strides), T("state_decay_out", [b, h, c, l])])
    print("== Y_off bclhn,bchpn,bhcl->bclhp")
    for x in LOG:
        print("   " + x)
    print("   result %s%s" % (r, "" if is_contig(r) else " (not contiguous)"))


if __name__ == "__main__":
    mamba2_kb1()
