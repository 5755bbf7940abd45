#!/usr/bin/env python3
"""tasks/splits/make_split: the training split of a level (krl train),
stratified by family, written as 'TASK train|heldout' lines.

The rule (the one tasks/splits/level1.txt was made by): within each family,
the problems in suite order (problem number, then id), n of them; a kb0
variant ("13kb0_x") of a problem of the same family is not a problem of its
own: it goes where its problem goes, so that no held-out problem is trained
on under another revision's sizes. h = round(0.3 n) (Python's round, half
to even) are held out, evenly spaced: problem i (0-based) is held out when
floor((i + 1) h / n) > floor(i h / n).

Level 2's families come from each task's plan: its leading operation
(linear or gemm: gemm; conv_bias: conv; conv_transpose(_bias):
convtranspose) and the kind of its chain (reduce when any other call is a
reduction, a softmax or logsumexp, a norm or a pooling; elementwise
otherwise), six families in all. Level 1's families are the ones its split
file names in its '# family: ...' headers (they were chosen by hand).

    python3 tasks/splits/make_split.py 2 > tasks/splits/level2.txt
    python3 tasks/splits/make_split.py --check 1   # level1.txt follows the rule
    python3 tasks/splits/make_split.py --check 2   # level2.txt is up to date
"""
import argparse
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TASKS = os.path.dirname(HERE)
SHARE = 0.3

LEAD = {"linear": "gemm", "gemm": "gemm", "conv_bias": "conv",
        "conv_transpose_bias": "convtranspose", "conv_transpose": "convtranspose"}
# A chain with one of these (or a pooling) is a reduce chain.
REDUCING = {"mean", "sum", "max", "min", "prod", "softmax", "log_softmax",
            "logsumexp", "groupnorm", "batchnorm", "instancenorm", "layernorm",
            "argmax", "argmin"}
FAMILY_ORDER = ["gemm, elementwise chain", "gemm, reduce chain",
                "conv, elementwise chain", "conv, reduce chain",
                "convtranspose, elementwise chain", "convtranspose, reduce chain"]


def number(tid):
    return int(re.match(r"(\d+)", tid.split("/", 1)[1]).group(1))


def order_key(tid):
    return (number(tid), tid)


def kb0_parent(tid, ids):
    """The problem a kb0 variant belongs to ("level2/13kb0_x" ->
    "level2/13_x"-like id of the same number), or None."""
    lv, name = tid.split("/", 1)
    m = re.match(r"(\d+)kb0_", name)
    if not m:
        return None
    for other in ids:
        o = other.split("/", 1)[1]
        if other != tid and re.match(rf"{m.group(1)}_", o):
            return other
    return None


def plan_calls(path):
    """The operation names of the task's plan calls, in order."""
    calls, inplan = [], False
    with open(path) as f:
        for ln in f:
            w = ln.split()
            if not w:
                continue
            if w[0] == "plan" and len(w) == 1:
                inplan = True
            elif w[0] == "end" and len(w) == 1:
                inplan = False
            elif inplan and w[0] == "call" and len(w) > 1:
                calls.append(w[1].split("(", 1)[0])
    return calls


def family_level2(path):
    """'gemm, reduce chain' and so on, from the plan."""
    calls = plan_calls(path)
    lead = next((c for c in calls if c in LEAD), None)
    if lead is None:
        raise ValueError(f"{path}: no GEMM or convolution in the plan")
    rest = list(calls)
    rest.remove(lead)
    reduce_ = any(c in REDUCING or "pool" in c for c in rest)
    return f"{LEAD[lead]}, {'reduce' if reduce_ else 'elementwise'} chain"


def families_level2(tasks_dir=TASKS):
    """{family: [task ids]} of every level-2 task."""
    out = {}
    for p in sorted(glob.glob(os.path.join(tasks_dir, "level2", "*.task"))):
        tid = "level2/" + os.path.basename(p)[:-len(".task")]
        out.setdefault(family_level2(p), []).append(tid)
    return out


def read_split(path):
    """([(task, part)] in file order, {family: [task ids]} from the
    '# family: ...' headers)."""
    rows, fams, fam = [], {}, None
    with open(path) as f:
        for ln in f:
            s = ln.strip()
            m = re.match(r"#\s*([^:]+):\s*\d+ train, \d+ held out", s)
            if m:
                fam = m.group(1).strip()
                fams[fam] = []
                continue
            if not s or s.startswith("#"):
                continue
            w = s.split()
            if len(w) != 2 or w[1] not in ("train", "heldout"):
                raise ValueError(f"{path}: not 'TASK train|heldout': {s!r}")
            rows.append((w[0], w[1]))
            if fam is not None:
                fams[fam].append(w[0])
    return rows, fams


def assign(ids):
    """{task: part} for one family's task ids by the rule."""
    ids = sorted(ids, key=order_key)
    kept = [t for t in ids if kb0_parent(t, ids) is None]
    n = len(kept)
    h = round(SHARE * n)
    part = {}
    for i, t in enumerate(kept):
        held = (i + 1) * h // n > i * h // n
        part[t] = "heldout" if held else "train"
    for t in ids:
        if t not in part:
            part[t] = part[kb0_parent(t, ids)]
    return part


def ordered(ids):
    """A family's ids in file order: problems in order, each kb0 variant
    right after its problem."""
    ids = sorted(ids, key=order_key)
    out = []
    for t in ids:
        if kb0_parent(t, ids) is None:
            out.append(t)
            out += [v for v in ids if kb0_parent(v, ids) == t]
    return out


def render(level, fams, order):
    """The split file's text."""
    total = {"train": 0, "heldout": 0}
    body = []
    for fam in order:
        part = assign(fams[fam])
        ids = ordered(fams[fam])
        tr = sum(part[t] == "train" for t in ids)
        body.append("")
        body.append(f"# {fam}: {tr} train, {len(ids) - tr} held out")
        for t in ids:
            body.append(f"{t} {part[t]}")
            total[part[t]] += 1
    head = [
        f"# The level-{level} split for training the builtin policy (krl train "
        f"--level {level}):",
        "# 'train' tasks teach the weights, 'heldout' tasks measure them "
        "(krl train --eval).",
        f"# One 'TASK SPLIT' line per level-{level} task; "
        f"{total['train']} train, {total['heldout']} held out.",
        "# Made by tasks/splits/make_split.py: stratified by family (the "
        "leading GEMM or",
        "# convolution and whether the chain reduces); within each family, "
        "problems in order",
        "# (a kb0 variant goes with its problem), h = round(0.3 n) of the n "
        "problems are held",
        "# out, evenly spaced: problem i (0-based) is held out when "
        "floor((i + 1) h / n) > floor(i h / n).",
    ]
    return "\n".join(head + body) + "\n"


def check_level1(path):
    """Problems where level1.txt departs from the rule (empty: none)."""
    rows, fams = read_split(path)
    have = dict(rows)
    bad = []
    for fam, ids in fams.items():
        for t, p in assign(ids).items():
            if have[t] != p:
                bad.append(f"{t}: {have[t]}, the rule says {p} ({fam})")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("level", type=int, choices=(1, 2))
    ap.add_argument("--check", action="store_true",
                    help="compare with tasks/splits/levelN.txt instead of "
                         "printing")
    args = ap.parse_args()
    path = os.path.join(HERE, f"level{args.level}.txt")
    if args.level == 1:
        if not args.check:
            sys.exit("level 1's families are its split file's: use --check")
        bad = check_level1(path)
    else:
        text = render(2, families_level2(), FAMILY_ORDER)
        if not args.check:
            sys.stdout.write(text)
            return 0
        with open(path) as f:
            bad = [] if f.read() == text else [f"{path} is not what "
                                               "make_split.py 2 writes"]
    for b in bad:
        print(b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
