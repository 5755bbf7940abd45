#!/usr/bin/env python3
"""The latest result of every problem of a level at a shape set, across all
the sessions' results folders: how far the suite stands between acceptance
runs. Not an acceptance figure (those come from one run at one commit).

    python3 bench/latest_results.py [--level 2] [--shapes kb1]
        [--root bench/results] [--below 0.97] [--md]

Reads every optimize-level{L}-{S}.jsonl below ROOT (bench/run_gpu.sh's
level phase writes them, with peer columns from bench/join_peers.py). A
line counts when its verdict is ok and it carries vs_best_torch (its peers
ran); of a problem's lines the one with the latest "date" wins (a later
file's line on a tie), whatever the folder names say. Prints how many
problems, from how many commits, the geometric means over PyTorch's best
and over eager, and the problems below BELOW of PyTorch's best, worst
first, each with its ms, the peer that was best, its commit and the file it
came from; then the problems with ok lines of which none has peers. --md
writes the same as markdown. Exit status 0, or 2 when no line counts.
"""
import argparse
import glob
import json
import math
import os
import sys


def collect(root, level, shapes):
    """{problem: line} of the latest counted line per problem, the
    problems whose ok lines all lack peers, and the files read."""
    name = f"optimize-level{level}-{shapes}.jsonl"
    files = sorted(glob.glob(os.path.join(root, "**", name), recursive=True))
    best, nopeers = {}, {}

    def keep(d, p, r):  # the later line of p wins (a later file's on a tie)
        if p not in d or d[p].get("date", "") <= r.get("date", ""):
            d[p] = r

    for f in files:
        with open(f) as fh:
            for ln in fh:
                try:
                    r = json.loads(ln)
                except ValueError:
                    continue
                if not isinstance(r, dict) or r.get("verdict") != "ok":
                    continue
                p = r.get("problem")
                if not p or (r.get("shapes") or "").split(",")[-1] != shapes:
                    continue
                r = dict(r, _file=os.path.relpath(f, root))
                keep(nopeers if r.get("vs_best_torch") is None else best, p, r)
    for p in list(nopeers):
        if p in best:
            del nopeers[p]
    return best, nopeers, files


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def report(best, nopeers, below, md):
    rows = sorted(best.values(), key=lambda r: r["vs_best_torch"])
    low = [r for r in rows if r["vs_best_torch"] < below]
    commits = {r.get("commit", "")[:7] for r in rows}
    head = (f"{len(rows)} problems, latest result each ({len(commits)} "
            f"commit{'s' if len(commits) != 1 else ''}; not an acceptance run): "
            f"{geomean([r['vs_best_torch'] for r in rows]):.3f}x of the best of "
            f"PyTorch, {geomean([r.get('vs_eager') for r in rows]):.3f}x over "
            f"eager; {len(low)} below {below}")
    out = [("- " if md else "") + head]
    if md and low:
        out += ["", "| problem | vs best | kernelrl ms | best of PyTorch ms | "
                "peer | commit | date | file |", "|---|---:|---:|---:|---|---|---|---|"]
    for r in low:
        cells = (r["problem"], f"{r['vs_best_torch']:.3f}", f"{r['best_ms']:.4f}",
                 f"{r.get('best_torch_ms', float('nan')):.4f}",
                 r.get("best_torch_peer", ""), r.get("commit", "")[:7],
                 r.get("date", ""), r["_file"])
        out.append("| " + " | ".join(cells) + " |" if md else
                   "  %s %sx (kernelrl %s ms, %s %s ms) %s %s %s" %
                   (cells[0], cells[1], cells[2], cells[4], cells[3],
                    cells[5], cells[6], cells[7]))
    if nopeers:
        out.append(("\n- " if md else "") + f"{len(nopeers)} with an ok result "
                   "but no peers: " + ", ".join(sorted(nopeers)))
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--level", type=int, default=2)
    ap.add_argument("--shapes", default="kb1")
    ap.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "results"))
    ap.add_argument("--below", type=float, default=0.97)
    ap.add_argument("--md", action="store_true")
    a = ap.parse_args(argv)
    best, nopeers, files = collect(a.root, a.level, a.shapes)
    if not best:
        print(f"latest_results: no ok line with peers in "
              f"optimize-level{a.level}-{a.shapes}.jsonl below {a.root} "
              f"({len(files)} files)", file=sys.stderr)
        return 2
    print(report(best, nopeers, a.below, a.md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
