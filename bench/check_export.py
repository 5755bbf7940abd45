#!/usr/bin/env python3
"""bench/check_export: checks a `krl export --to torch` package on the GPU
against KernelBench's own Model (docs/export.md).

Correctness, KernelBench's way: for each of --seeds seeds, Model and the
export's ModelNew are built from get_init_inputs() under the same seed (so
ModelNew adopts the same parameter values), inputs come from get_inputs()
under that seed, and every output must have the Model's shape and be within
the task's tolerance (meta.json: atol + rtol * |ref|, as the judge's rule).
Then, unless --no-graph / --no-compile: ModelNew captured in a CUDA graph
and replayed, and torch.compile(ModelNew), must give the eager outputs.

Timing, the protocol of ../shared/BENCHMARKING.md (bench/peers.py's Timer):
fresh inputs from get_inputs() before every call, the L2 flushed, CUDA
events on the current stream, median over calls until 1% relative standard
error (at least 6 calls, --budget seconds per side), warm-up excluded,
under torch.no_grad(), Model in training mode as KernelBench runs it,
cuDNN's TF32 only where the task's tier is tf32 (as bench/peers.py). The
speedup over PyTorch eager is compared with the one krl measured
(meta.json's krl_speedup, against kernelrl's eager reference): the record
says whether it is within --max-drift (5%).

    python3 bench/check_export.py OUT/relu --kernelbench .kb/kb1/level1/19_ReLU.py

One JSON line on stdout (and appended to --out). Exit status: 0 correct,
1 wrong outputs or a failure, 2 usage, 3 correct but (with --strict) the
speedup is more than --max-drift away from krl's.
"""
import argparse
import glob
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def find_package(root):
    """(folder to put on sys.path, package name, meta) of an export."""
    root = os.path.abspath(root)
    if os.path.exists(os.path.join(root, "meta.json")):
        parent, name = os.path.split(root)
    else:
        metas = glob.glob(os.path.join(root, "*", "meta.json"))
        if len(metas) != 1:
            raise SystemExit(f"check_export: {root} holds {len(metas)} export "
                             "packages (a folder with meta.json); name one")
        parent, name = root, os.path.basename(os.path.dirname(metas[0]))
    with open(os.path.join(parent, name, "meta.json")) as f:
        return parent, name, json.load(f)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("package", help="the export folder (krl export --to torch DIR)")
    ap.add_argument("--kernelbench", default="",
                    help="KernelBench's problem file (default: the Model file "
                         "the export copied, PACKAGE/krl_<task>/kb_model.py)")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--budget", type=float, default=6.0,
                    help="seconds of timed calls per side (6)")
    ap.add_argument("--rse", type=float, default=0.01)
    ap.add_argument("--min-calls", type=int, default=6)
    ap.add_argument("--max-calls", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--max-drift", type=float, default=0.05,
                    help="allowed relative difference from krl's speedup (0.05)")
    ap.add_argument("--strict", action="store_true",
                    help="exit 3 when the speedup drifts more than --max-drift")
    ap.add_argument("--no-time", action="store_true")
    ap.add_argument("--no-graph", action="store_true")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--out", default="", help="append the JSON line here too")
    return ap.parse_args(argv)


def compare(torch, ref, new, atol, rtol):
    """None when new matches ref (shape and tolerance), else why not."""
    refs = ref if isinstance(ref, (tuple, list)) else (ref,)
    news = new if isinstance(new, (tuple, list)) else (new,)
    if len(refs) != len(news):
        return f"{len(news)} outputs, the Model gives {len(refs)}"
    for k, (r, n) in enumerate(zip(refs, news)):
        if tuple(r.shape) != tuple(n.shape):
            return f"output {k}: shape {list(n.shape)}, the Model's is {list(r.shape)}"
        if r.dtype != n.dtype:
            return f"output {k}: dtype {n.dtype}, the Model's is {r.dtype}"
        if r.dtype.is_floating_point:
            rd, nd = r.double(), n.double()
            bad = ~((nd - rd).abs() <= atol + rtol * rd.abs())
            bad &= ~(torch.isnan(rd) & torch.isnan(nd))
        else:
            bad = r != n
        nbad = int(bad.sum())
        if nbad:
            i = int(bad.flatten().nonzero()[0])
            return (f"output {k}: {nbad} of {r.numel()} elements outside "
                    f"atol={atol} rtol={rtol}; first at flat index {i}: "
                    f"{float(n.flatten()[i])} vs {float(r.flatten()[i])}")
    return None


def main(argv=None):
    args = parse_args(argv)
    parent, name, meta = find_package(args.package)
    kb = args.kernelbench or os.path.join(parent, name, "kb_model.py")
    import torch
    import peers  # bench/peers.py: the protocol's helpers
    sys.path.insert(0, parent)
    pkg = __import__(name)
    mod = peers.load_problem(kb, "check_" + name)
    atol, rtol = meta["atol"], meta["rtol"]
    # the task's precision tier, as bench/peers.py times the Model: TF32
    # convolutions only where it allows them (PyTorch's default allows them)
    torch.backends.cudnn.allow_tf32 = meta.get("precision") == "tf32"
    rec = {"task": meta["task"], "shapes": meta["shapes"],
           "cudnn_tf32": torch.backends.cudnn.allow_tf32,
           "candidate": meta["candidate"], "kernelbench": kb,
           "atol": atol, "rtol": rtol, "torch_version": torch.__version__,
           "gpu": torch.cuda.get_device_name(0)}
    status = 0

    def build(cls, seed):
        torch.manual_seed(seed)
        with torch.device("cuda"):
            init = mod.get_init_inputs()
            torch.manual_seed(seed)
            m = cls(*init)
        return m.cuda()

    dev = torch.device("cuda", torch.cuda.current_device())

    def inputs(seed):
        torch.manual_seed(seed)
        return peers.draw_inputs(torch, mod, dev)

    with torch.no_grad():
        # ---- correctness: 5 seeds
        errors = []
        for seed in range(args.seeds):
            try:
                ref_m, new_m = build(mod.Model, seed), build(pkg.ModelNew, seed)
                x = inputs(seed)
                why = compare(torch, ref_m(*x), new_m(*x), atol, rtol)
            except Exception as e:  # a failure is a wrong answer, recorded
                why = peers.err_text(e)
            if why:
                errors.append(f"seed {seed}: {why}")
        rec["correct"] = not errors
        rec["seeds"] = args.seeds
        if errors:
            rec["errors"] = errors
            status = 1
        model, new = build(mod.Model, 0), build(pkg.ModelNew, 0)
        # ---- CUDA graph capture and torch.compile of ModelNew
        if not errors and not args.no_graph:
            try:
                x = inputs(1)
                want = new(*x)
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                g = torch.cuda.CUDAGraph()
                with torch.cuda.stream(s):
                    new(*x)
                    with torch.cuda.graph(g, stream=s):
                        got = new(*x)
                torch.cuda.current_stream().wait_stream(s)
                g.replay()
                torch.cuda.synchronize()
                why = compare(torch, want, got, atol, rtol)
                rec["graph"] = why or "ok"
            except Exception as e:
                rec["graph"] = peers.err_text(e)
        if not errors and not args.no_compile:
            try:
                x = inputs(2)
                why = compare(torch, model(*x), torch.compile(new)(*x), atol, rtol)
                rec["compile"] = why or "ok"
            except Exception as e:
                rec["compile"] = peers.err_text(e)
        # ---- timing: eager Model vs ModelNew, the judge's protocol
        if not errors and not args.no_time:
            timer = peers.Timer(torch, args, dev)
            prep = lambda: peers.draw_inputs(torch, mod, dev)  # noqa: E731
            e_ms, e_n, e_rse = timer.run(prep, lambda x: model(*x), args.budget)
            n_ms, n_n, n_rse = timer.run(prep, lambda x: new(*x), args.budget)
            sp = e_ms / n_ms
            rec.update({"torch_eager_ms": e_ms, "eager_calls": e_n,
                        "eager_rse": e_rse, "export_ms": n_ms,
                        "export_calls": n_n, "export_rse": n_rse,
                        "speedup_vs_eager": sp,
                        "krl_speedup": meta["krl_speedup"]})
            if meta["krl_speedup"] > 0:
                drift = sp / meta["krl_speedup"] - 1
                rec["drift"] = drift
                rec["within_drift"] = abs(drift) <= args.max_drift
                if args.strict and not rec["within_drift"] and status == 0:
                    status = 3
    rec["date"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    line = json.dumps(rec, default=lambda v: None if isinstance(v, float)
                      and not math.isfinite(v) else str(v))
    print(line)
    if args.out:
        with open(args.out, "a") as f:
            f.write(line + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
