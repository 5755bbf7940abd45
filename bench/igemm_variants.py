#!/usr/bin/env python3
"""bench/igemm_variants.py: tuning variants of implicit-GEMM convolution
candidates (conv.impl=igemm, src/opt/kernels/conv_igemm.cuh), for one
`krl batch` call on the GPU machine that says which launch bound, k-tile,
pipeline depth or tile shape to adopt in the generator.

    python3 bench/igemm_variants.py OUTDIR TASK=CANDIDATE.cu ...

For each candidate (a generated file holding the kernel body, one
`conv_entry<BM, BN, WM, WN, ...>` call and its `launch ... smem=` line)
writes OUTDIR/<name>.<variant>.cu and appends `FILE TASK` to
OUTDIR/batch.txt, for

    base     the candidate as generated
    lb1      __launch_bounds__(256, 1): no register cap (one block an SM
             for the 112 KB tiles)
    trunc    TF32 operands truncated by the tensor core instead of rounded
    bk16     k-tiles of 16 taps, 4 stages
    st4lb1   4 stages, no register cap
    and other tiles of the same 8 warps: 128x64 and 64x128 where the
    candidate's is 128x128; 64x64 and 32x128 where it is 64x128.

A halo-form candidate (`halo_entry<BM, R, S, ...>`, 2-d convolutions over
16 channels or more) gets HALO_VARIANTS instead, named h<variant>: 3
stages, 3 stages at one block an SM, TF32 truncation, BM 64 and 32.
Variants needing more shared memory than a block may take are left out
with a line on stderr.

The launch's grid and smem= are rewritten to match. Check them on the CPU
first (`krl check TASK FILE` compiles each with NVRTC) and judge them on the
GPU with `krl batch OUTDIR/batch.txt --shapes tiny,kb1 --json`.
"""
import os
import re
import sys

# Each variant: name -> (launch bound, BK, STAGES, truncate, tile or None).
VARIANTS = [
    ("base", 2, 32, 3, False),
    ("lb1", 1, 32, 3, False),
    ("trunc", 2, 32, 3, True),
    ("bk16", 2, 16, 4, False),
    ("st4lb1", 1, 32, 4, False),
]
TILES = {  # the generated tile -> other tiles of 8 warps (BM, BN, WM, WN)
    (128, 128, 64, 32): [("t128x64", (128, 64, 32, 32)), ("t64x128", (64, 128, 32, 32))],
    (64, 128, 32, 32): [("t64x64", (64, 64, 32, 16)), ("t32x128", (32, 128, 16, 32))],
}


def smem(bm, bn, bk, stages):
    """igemm::tile's shared memory: stages of A [bm][bk + 8], B [bk][bn + 4]."""
    return stages * (bm * (bk + 8) + bk * (bn + 4)) * 4


def variant(src, lb=2, bk=32, stages=3, trunc=False, tile=None):
    """The text of candidate src with those settings; ValueError when src
    is not an implicit-GEMM candidate of this generator."""
    m = re.search(r"conv_entry<(\d+), (\d+), (\d+), (\d+),", src)
    if not m or "__launch_bounds__(256, 2)" not in src or "constexpr int BK = 32;" not in src:
        raise ValueError("not an implicit-GEMM convolution candidate")
    old = tuple(int(v) for v in m.groups())
    bm, bn, wm, wn = tile or old
    out = src.replace("__launch_bounds__(256, 2)", "__launch_bounds__(256, %d)" % lb)
    out = out.replace("constexpr int BK = 32;", "constexpr int BK = %d;" % bk)
    out = out.replace("constexpr int STAGES = 3;", "constexpr int STAGES = %d;" % stages)
    if trunc:
        out = out.replace("return (__float_as_uint(x) + 0x1000u) & 0xffffe000u;",
                          "return __float_as_uint(x);")
    out = out.replace("conv_entry<%d, %d, %d, %d," % old, "conv_entry<%d, %d, %d, %d," % (bm, bn, wm, wn))
    grid = re.compile(r"cdiv\(\(([^()]+)\), %d\) \* cdiv\((.*?), %d\)" % (old[0], old[1]))
    out, n = grid.subn(lambda g: "cdiv((%s), %d) * cdiv(%s, %d)" % (g.group(1), bm, g.group(2), bn), out)
    if n != 1:
        raise ValueError("the launch's grid is not the generator's")
    out = re.sub(r"smem=\d+", "smem=%d" % smem(bm, bn, bk, stages), out)
    return out


# The halo form (igemm::halo_entry<BM, R, S, ...>): name -> (BM, launch
# bound, stages, truncate); None keeps the candidate's. Measured on the H200
# (bench/results/2026-12-03-h200-conv-halo): 2 stages at 2 blocks an SM,
# now the generator's, were the fastest of these on problems 1, 25 and 54.
HALO_VARIANTS = [
    ("base", None, None, 2, False),
    ("st3", None, None, 3, False),
    ("st3lb1", None, 1, 3, False),
    ("trunc", None, None, 2, True),
    ("bm64", 64, None, 2, False),
    ("bm32", 32, None, 2, False),
]


def halo_a_ld(kc, rs):
    """igemm::a_ld: A's row stride, the least multiple of 4 from kc whose
    fragment reads hit 32 banks."""
    base = (kc + 3) // 4 * 4
    for ld in range(base, base + 128, 4):
        banks = {(g * ld + t * rs) % 32 for g in range(8) for t in range(4)}
        if len(banks) == 32:
            return ld
    return base


def halo_smem(bm, r, s, stages):
    """igemm::htile's shared memory: stages of A [bm][a_ld] and the window
    [8][x_cs], x_cs at least (4 + r - 1)(32 + s - 1), 8 or 24 mod 32."""
    n = (4 + r - 1) * (32 + s - 1)
    while n % 32 not in (8, 24):
        n += 1
    return stages * (bm * halo_a_ld(8 * r * s, r * s) + 8 * n) * 4


def halo_variant(src, bm=None, lb=None, stages=2, trunc=False):
    """The text of halo-form candidate src with those settings; ValueError
    when src is not one of this generator."""
    m = re.search(r"halo_entry<(\d+), (\d+), (\d+),", src)
    lbm = re.search(r"__launch_bounds__\(256, (\d)\)\n(k\d+_conv)\(", src)
    stm = re.search(r"constexpr int H_STAGES = (\d+);", src)
    if not m or not lbm or not stm:
        raise ValueError("not a halo-form implicit-GEMM candidate")
    obm, r, s = (int(v) for v in m.groups())
    bm = bm or obm
    lb = lb or int(lbm.group(1))
    out = src.replace(lbm.group(0), "__launch_bounds__(256, %d)\n%s(" % (lb, lbm.group(2)))
    out = out.replace(stm.group(0), "constexpr int H_STAGES = %d;" % stages)
    if trunc:
        out = out.replace("return (__float_as_uint(x) + 0x1000u) & 0xffffe000u;",
                          "return __float_as_uint(x);")
    out = out.replace(m.group(0), "halo_entry<%d, %d, %d," % (bm, r, s))
    grid = re.compile(r"grid=\(cdiv\(\(([^()]+)\), %d\) \* cdiv\(" % obm)
    out, n = grid.subn(lambda g: "grid=(cdiv((%s), %d) * cdiv(" % (g.group(1), bm), out)
    if n != 1:
        raise ValueError("the launch's grid is not the generator's")
    out = re.sub(r"smem=\d+", "smem=%d" % halo_smem(bm, r, s, stages), out)
    return out


def main(argv):
    if len(argv) < 3 or any("=" not in a for a in argv[2:]):
        sys.stderr.write("usage: igemm_variants.py OUTDIR TASK=CANDIDATE.cu ...\n")
        return 2
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    lines = []
    for arg in argv[2:]:
        task, path = arg.split("=", 1)
        with open(path) as f:
            src = f.read()
        name = os.path.basename(path).split(".")[0]
        m = re.search(r"conv_entry<(\d+), (\d+), (\d+), (\d+),", src)
        tile = tuple(int(v) for v in m.groups()) if m else None
        if "halo_entry<" in src:
            make = halo_variant
            todo = [("h" + v[0], dict(bm=v[1], lb=v[2], stages=v[3], trunc=v[4]))
                    for v in HALO_VARIANTS]
        else:
            make = variant
            todo = [(v[0], dict(lb=v[1], bk=v[2], stages=v[3], trunc=v[4])) for v in VARIANTS]
            todo += [(t[0], dict(tile=t[1])) for t in TILES.get(tile, [])]
        for vname, kw in todo:
            try:
                text = make(src, **kw)
                sm = int(re.search(r"smem=(\d+)", text).group(1))
                if sm > 227 * 1024:
                    sys.stderr.write("igemm_variants: %s.%s: %d bytes of shared memory, "
                                     "more than a block may take; left out\n" % (name, vname, sm))
                    continue
            except ValueError as e:
                sys.stderr.write("igemm_variants: %s: %s\n" % (path, e))
                return 1
            fn = "%s.%s.cu" % (name, vname)
            with open(os.path.join(outdir, fn), "w") as f:
                f.write(text)
            lines.append("%s %s\n" % (fn, task))
    with open(os.path.join(outdir, "batch.txt"), "a") as f:
        f.writelines(lines)
    print("igemm_variants: %d candidates in %s/batch.txt" % (len(lines), outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
