#!/usr/bin/env python3
"""bench/ref_vs_torch: is kernelrl's eager reference an honest baseline?

Times PyTorch eager on the KernelBench definitions and kernelrl's eager
reference (`krl time-ref`) on the same problems and shapes with the same
protocol -- a 2x-L2 write before every call, fresh inputs, CUDA events on
the stream, median -- and writes a table: reference time over PyTorch time
per problem, and the share within 0.67x-1.5x (issue 3).

Run on the GPU machine (it has PyTorch). The KernelBench problem files are
read from --kernelbench (default .kb/SHAPES, exported by bench/fetch_kb.sh:
KernelBench/levelN/*.py at HEAD for kb1, at b08d959^ for kb0); they are used
at run time and never copied into this repository.

    bash bench/fetch_kb.sh            # .kb/kb1, .kb/kb0 (ignored)
    python3 bench/ref_vs_torch.py --level 2 --shapes kb1 \
        --krl build/krl --out bench/out/ref_vs_torch_level2_kb1.jsonl

Any level: --level, task ids, --list, --only and a --from/--to slice select
the tasks (bench/kbtasks.py; a source line's "(main)" / "(b08d959^)" marker
keeps a task to its revision's shape set). The share within 0.67x-1.5x is
reported per level.

PyTorch runs with its defaults: TF32 off for matmul, on for cuDNN
convolutions (the tasks' precision tiers say the same).
"""
import argparse
import gc
import importlib.util
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kbtasks  # noqa: E402


def load_module(path):
    spec = importlib.util.spec_from_file_location("kb_problem", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def time_torch(path, reps, torch):
    """Median ms of Model(*get_init_inputs())(*get_inputs()) on the GPU."""
    model = inputs = flush = None
    try:
        mod = load_module(path)
        torch.manual_seed(0)
        with torch.device("cuda"):
            model = mod.Model(*mod.get_init_inputs())
            inputs = mod.get_inputs()
        model = model.cuda()
        inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in inputs]
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        times = []
        with torch.no_grad():
            for i in range(reps + 3):
                # Fresh values in the same buffers (as the judge draws fresh
                # inputs): floating tensors are redrawn like get_inputs does.
                for x in inputs:
                    if isinstance(x, torch.Tensor) and x.is_floating_point():
                        x.uniform_()
                flush.zero_()
                start.record()
                model(*inputs)
                end.record()
                end.synchronize()
                if i >= 3:
                    times.append(start.elapsed_time(end))
        return statistics.median(times)
    finally:
        # Also after an error (out of memory): the next problem gets the
        # memory back.
        del model, inputs, flush
        gc.collect()
        torch.cuda.empty_cache()


def time_reference(krl, ids, shapes, reps):
    """{task id: median ms} from `krl time-ref --json`."""
    out = {}
    proc = subprocess.run([krl, "time-ref", *ids, "--shapes", shapes,
                           "--reps", str(reps), "--json"],
                          capture_output=True, text=True)
    sys.stderr.write(proc.stderr)
    for line in proc.stdout.splitlines():
        rec = json.loads(line)
        if (rec.get("ref_ms") or {}).get("median"):
            out[rec["task"]] = rec["ref_ms"]["median"]
    return out


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1])
    kbtasks.add_selection_args(ap)
    ap.add_argument("--kernelbench", default="",
                    help="KernelBench export of the shape set's revision, "
                         "holding levelN/*.py (default .kb/SHAPES)")
    ap.add_argument("--shapes", default="kb1", choices=("kb0", "kb1"))
    ap.add_argument("--krl", default="build/krl")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--krl-times", action="append", default=[],
                    help="reuse `krl time-ref --json` output instead of running "
                         "it (repeatable: pieces of one run)")
    ap.add_argument("--out", default="bench/out/ref_vs_torch.jsonl")
    args = ap.parse_args()

    kb = args.kernelbench or os.path.join(".kb", args.shapes)
    if not os.path.isdir(kb):
        sys.exit(f"ref_vs_torch: no {kb}: run bench/fetch_kb.sh first")
    todo = kbtasks.select(args, args.shapes, kb)
    if not todo:
        sys.exit("ref_vs_torch: no task selected")

    import torch  # only on the GPU machine

    if args.krl_times:
        ref = {}
        for path in args.krl_times:
            for line in open(path):
                rec = json.loads(line)
                if (rec.get("ref_ms") or {}).get("median"):
                    ref[rec["task"]] = rec["ref_ms"]["median"]
    else:
        ref = time_reference(args.krl, [t.tid for t in todo], args.shapes,
                             args.reps)
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    rows = []
    with open(args.out, "w") as f:
        for t in todo:
            row = {"task": t.tid, "level": t.level, "shapes": args.shapes,
                   "kernelbench": os.path.basename(t.path),
                   "ref_ms": ref.get(t.tid)}
            try:
                row["torch_ms"] = time_torch(t.path, args.reps, torch)
            except Exception as e:  # a problem that cannot run is reported
                row["torch_error"] = f"{type(e).__name__}: {e}"[:300]
            if row.get("ref_ms") and row.get("torch_ms"):
                row["ratio"] = row["ref_ms"] / row["torch_ms"]
                row["within"] = 0.67 <= row["ratio"] <= 1.5
            rows.append(row)
            f.write(json.dumps(row) + "\n")
            f.flush()
            print(f"{t.tid:36s} ref {row.get('ref_ms') or float('nan'):10.4f} ms  "
                  f"torch {row.get('torch_ms') or float('nan'):10.4f} ms  "
                  f"ratio {row.get('ratio', float('nan')):6.3f}"
                  f"{'' if row.get('within', True) else '  OUTSIDE'}"
                  f"{'  ' + row['torch_error'] if 'torch_error' in row else ''}",
                  flush=True)
    for line in share_lines(rows):
        print(line)


def share_lines(rows):
    """Per level: how many problems are within 0.67x-1.5x of PyTorch eager
    (of those with both times), and how many lack a time."""
    by_level = defaultdict(list)
    for r in rows:
        by_level[r.get("level")].append(r)
    out = []
    for level in sorted(by_level, key=lambda x: (x is None, x)):
        rs = by_level[level]
        both = [r for r in rs if "ratio" in r]
        inside = sum(r["within"] for r in both)
        out.append(f"level {level}: {inside} of {len(both)} problems within "
                   f"0.67x-1.5x of PyTorch eager "
                   f"({100.0 * inside / max(1, len(both)):.1f}%); "
                   f"{len(rs) - len(both)} without both times")
    return out


if __name__ == "__main__":
    main()
