#!/usr/bin/env python3
"""bench/peer_table: the peers' results (bench/peers.py JSON lines) as a
markdown table per level and shape set, with their headline figures.

Per problem: PyTorch eager, CUDA graph, torch.compile and the best of them
(ms), each peer's speedup over eager (eager ms / peer ms, the way
../shared/BENCHMARKING.md states "torch.compile 1.65x over eager"), the
compile time, and the errors. Per table: the geometric means of the graph,
compile and best speedups over eager (over the problems where both times
exist) and the count of failures per peer. Optionally the kernelrl
reference's time (`krl time-ref --json` lines, --refs) and its ratio to
PyTorch eager, with the share within 0.67x-1.5x (references timed with
`--timing graph` are compared with PyTorch's graph replay instead); or the ratio that
bench/ref_vs_torch.py measured (--ref-vs-torch). Needs no torch.

    python3 bench/peer_table.py bench/out/peers_level2_kb1.jsonl \\
        --refs bench/out/refs_level2_kb1.jsonl --out bench/out/peers_level2_kb1.md
"""
import argparse
import json
import math
import re
import sys
from collections import defaultdict

PEERS = ("eager", "graph", "compile")


def read_jsonl(path):
    out = []
    with open(path) as f:
        for n, ln in enumerate(f, 1):
            ln = ln.strip()
            if not ln:
                continue
            try:
                out.append(json.loads(ln))
            except ValueError:
                print(f"{path}:{n}: not JSON, skipped", file=sys.stderr)
    return out


def task_key(tid):
    """(level, problem number, id): the suite's order."""
    m = re.match(r"level(\d+)/(\d+)", tid)
    return (int(m.group(1)), int(m.group(2)), tid) if m else (99, 0, tid)


def gmean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def fmt(x, spec=".3f"):
    return "" if x is None else format(x, spec)


def short(msg, n=70):
    msg = msg.replace("|", "/")
    return msg if len(msg) <= n else msg[:n - 3] + "..."


def refs_by_task(paths, mode="stream"):
    """{(task, shapes): median ms} from `krl time-ref --json` lines timed in
    `mode` (the record's timing_mode; records without one are stream)."""
    out = {}
    for p in paths:
        for r in read_jsonl(p):
            ms = (r.get("ref_ms") or {}).get("median")
            if "task" in r and ms and r.get("timing_mode", "stream") == mode:
                out[(r["task"], r.get("set"))] = ms
    return out


def rvt_by_task(paths):
    """{(task, shapes): ratio} from bench/ref_vs_torch.py lines."""
    out = {}
    for p in paths:
        for r in read_jsonl(p):
            if "task" in r and r.get("ratio"):
                out[(r["task"], r.get("shapes"))] = r["ratio"]
    return out


def table(rows, refs, rvt, shapes, grefs=None):
    """Markdown lines for one level at one shape set; grefs: the references
    timed in graph mode, compared with PyTorch's graph replay."""
    grefs = grefs or {}
    have_refs = any((r["task"], shapes) in refs for r in rows)
    have_grefs = any((r["task"], shapes) in grefs for r in rows)
    have_rvt = any((r["task"], shapes) in rvt for r in rows)
    head = ["problem", "eager ms", "graph ms", "compile ms", "best ms", "best",
            "graph x", "compile x", "best x", "compile s"]
    if have_refs:
        head += ["ours ms", "ours/eager"]
    if have_grefs:
        head += ["ours graph ms", "ours/graph"]
    if have_rvt:
        head += ["ref_vs_torch"]
    head.append("errors")
    lines = ["| " + " | ".join(head) + " |",
             "| " + " | ".join("---" if h in ("problem", "best", "errors")
                               else "---:" for h in head) + " |"]
    sp = {p: [] for p in ("graph", "compile", "best")}
    fails = {p: 0 for p in PEERS}
    ours, inside = [], 0
    gours, ginside = [], 0
    for r in sorted(rows, key=lambda r: task_key(r["task"])):
        ms = {p: r.get(f"torch_{p}_ms") for p in PEERS}
        best = r.get("best_torch_ms")
        eager = ms["eager"]

        def x(t):
            return eager / t if eager and t else None

        for p in ("graph", "compile"):
            sp[p].append(x(ms[p]))
        sp["best"].append(x(best))
        errs = []
        for p in PEERS:
            e = r.get(f"torch_{p}_error")
            if e:
                fails[p] += 1
                errs.append(f"{p}: {short(e)}")
        if r.get("torch_compile_worker_error") and not r.get("torch_compile_error"):
            errs.append("warm-up: " + short(r["torch_compile_worker_error"]))
        cells = [r["task"], fmt(ms["eager"], ".4f"), fmt(ms["graph"], ".4f"),
                 fmt(ms["compile"], ".4f"), fmt(best, ".4f"),
                 r.get("best_torch_peer", ""), fmt(x(ms["graph"])),
                 fmt(x(ms["compile"])), fmt(x(best)),
                 fmt(r.get("torch_compile_s"), ".1f")]
        if have_refs:
            ref = refs.get((r["task"], shapes))
            ratio = ref / eager if ref and eager else None
            if ratio is not None:
                ours.append(ratio)
                inside += 0.67 <= ratio <= 1.5
            cells += [fmt(ref, ".4f"), fmt(ratio)]
        if have_grefs:
            gref = grefs.get((r["task"], shapes))
            gratio = gref / ms["graph"] if gref and ms["graph"] else None
            if gratio is not None:
                gours.append(gratio)
                ginside += 0.67 <= gratio <= 1.5
            cells += [fmt(gref, ".4f"), fmt(gratio)]
        if have_rvt:
            cells.append(fmt(rvt.get((r["task"], shapes))))
        cells.append("; ".join(errs))
        lines.append("| " + " | ".join(cells) + " |")
    n = len(rows)
    lines.append("")
    for p, label in (("graph", "CUDA graph"), ("compile", "torch.compile"),
                     ("best", "best of PyTorch")):
        got = [v for v in sp[p] if v]
        g = gmean(got)
        lines.append(f"- {label} over eager (geometric mean of eager ms / "
                     f"{p} ms): **{fmt(g) + 'x' if g else 'n/a'}** over "
                     f"{len(got)} of {n} problems")
    lines.append("- failures: " + ", ".join(f"{p} {fails[p]}" for p in PEERS)
                 + f" (of {n} problems)")
    if have_refs:
        lines.append(f"- kernelrl reference within 0.67x-1.5x of PyTorch eager: "
                     f"**{inside} of {len(ours)}**; geometric mean of ours / "
                     f"eager {fmt(gmean(ours))}")
    if have_grefs:
        lines.append(f"- kernelrl reference in graph mode within 0.67x-1.5x of "
                     f"PyTorch's CUDA-graph replay: **{ginside} of {len(gours)}**; "
                     f"geometric mean of ours / graph {fmt(gmean(gours))}")
    return lines


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("peers", nargs="+", help="bench/peers.py JSON lines files")
    ap.add_argument("--refs", action="append", default=[],
                    help="`krl time-ref --json` lines (repeatable)")
    ap.add_argument("--ref-vs-torch", action="append", default=[],
                    help="bench/ref_vs_torch.py lines (repeatable)")
    ap.add_argument("--out", default="", help="write here (default stdout)")
    args = ap.parse_args()

    rows = {}
    for p in args.peers:
        for r in read_jsonl(p):
            if "task" in r:  # a later line for a task replaces an earlier
                rows[(r["task"], r.get("shapes"))] = r
    refs = refs_by_task(args.refs)
    grefs = refs_by_task(args.refs, "graph")
    rvt = rvt_by_task(args.ref_vs_torch)
    groups = defaultdict(list)
    for r in rows.values():
        groups[(r.get("level", task_key(r["task"])[0]), r.get("shapes"))].append(r)

    out = ["# PyTorch's peers (bench/peers.py)", ""]
    for key in ("gpu", "torch_version", "cuda", "cudnn", "commit",
                "kernelbench_commit"):
        vals = sorted({str(r.get(key)) for r in rows.values() if r.get(key)})
        if vals:
            out.append(f"- {key}: {', '.join(vals)}")
    commits = {r.get("commit") for r in rows.values() if r.get("commit")}
    if len(commits) > 1:
        out.append("- **several commits: not one run (../shared/BENCHMARKING.md)**")
    out.append("- graph x, compile x, best x: eager ms / that peer's ms "
               "(above 1 = faster than eager)")
    for (level, shapes) in sorted(groups, key=lambda k: (k[0], str(k[1]))):
        out += ["", f"## Level {level}, {shapes}", ""]
        out += table(groups[(level, shapes)], refs, rvt, shapes, grefs)
    text = "\n".join(out) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
