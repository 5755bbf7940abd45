#!/usr/bin/env python3
"""bench/peers: what a user would run instead of kernelrl, timed in the
judge's protocol (../shared/BENCHMARKING.md, docs/peers.md).

For each task (any level), on its KernelBench problem file at the shape set
(.kb/kb1 or .kb/kb0, exported by bench/fetch_kb.sh), the module as
KernelBench builds it -- Model(*get_init_inputs()).cuda(), training mode,
under torch.no_grad() -- is timed as three peers:

  eager    the module called as is                      torch_eager_ms
  graph    one forward captured in a CUDA graph         torch_graph_ms
           (after warm-up, on a side stream), replayed;
           each call's new inputs are copied into the
           captured input tensors before the call
  compile  torch.compile(model), default mode           torch_compile_ms
           (first call = torch_compile_s, not timed)

Each timed call: new inputs from get_inputs(), an L2 flush (a write of 2x
the L2 size), then CUDA events around the call on the current stream;
warm-up calls are not timed. Calls continue until the relative standard
error (stdev / sqrt(n) / mean, as the judge's) is at most --rse with at
least --min-calls calls, or the problem's --budget is spent. The median is
reported. PyTorch's precision defaults are left as they are (TF32 off for
matmul, on for cuDNN convolutions), except that a task of precision fp32
(no `precision tf32` line: level 3's 10, 20 and 45 among those with
convolutions) runs with torch.backends.cudnn.allow_tf32 = False, as its
reference does (recorded as cudnn_tf32 in its line). A peer that fails is recorded as
<peer>_error and the run goes on. One JSON line per problem, flushed as it
is written; --resume skips the tasks already in --out.

--compile-workers N first compiles every problem in N spawned processes
sharing one Inductor/Triton cache (TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR)
so that the timing process, which compiles again, hits the cache; timing
itself runs one problem at a time, alone on the GPU.

--device D times on CUDA device D (the ordinal among the visible ones, as
krl's --device counts it), its compile workers too; every line records the
GPU it was timed on (gpu, gpu_uuid in krl's form, device), so that
bench/join_peers.py can tell a problem's peers ran on the GPU its result
was measured on. bench/run_gpu.sh runs one per device at once when
`krl optimize --workers N` spread the problems over several.

    bash bench/fetch_kb.sh
    python3 bench/peers.py --level 2 --shapes kb1 --compile-workers 8 \\
        --out bench/out/peers_level2_kb1.jsonl

Needs PyTorch with a GPU to run; --help and the task selection work
without it (torch is imported after the arguments are read).
"""
import argparse
import gc
import importlib.util
import json
import math
import multiprocessing
import os
import re
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kbtasks  # noqa: E402

PEERS = ("eager", "graph", "compile")
# Messages after which the CUDA context is unusable: the process stops so
# that a new one (--resume) goes on with the next problem.
FATAL = ("illegal memory access", "unspecified launch failure",
         "device-side assert", "misaligned address", "illegal instruction",
         "CUDA error: an illegal", "uncorrectable ECC")


# ----------------------------------------------------------------- helpers

def rel_se(xs):
    """stdev / sqrt(n) / mean: the judge's relative standard error."""
    if len(xs) < 2:
        return math.inf
    m = statistics.fmean(xs)
    return statistics.stdev(xs) / math.sqrt(len(xs)) / m if m > 0 else math.inf


def err_text(e):
    return f"{type(e).__name__}: {e}".replace("\n", " ")[:500]


def load_problem(path, tag):
    """The KernelBench problem file as a module, registered in sys.modules
    under a name unique to the file (Dynamo and pickling look modules up)."""
    name = "kb_" + re.sub(r"\W", "_", tag)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def draw_inputs(torch, mod, dev):
    """New inputs from the problem's get_inputs(), made on device dev (its
    random draws run there; any tensor it still makes elsewhere is copied
    over)."""
    with dev:
        xs = mod.get_inputs()
    return [x.to(dev) if isinstance(x, torch.Tensor) and x.device != dev
            else x for x in xs]


def build_model(torch, mod, dev):
    """Model(*get_init_inputs()) on device dev in training mode (KernelBench
    never calls eval()), parameters drawn there from a fixed seed."""
    torch.manual_seed(0)
    with dev:
        init = mod.get_init_inputs()
        model = mod.Model(*init)
    return model.to(dev)


def gpu_uuid(props):
    """The device's uuid as krl's result lines write it (src/runtime/device.c:
    its 16 bytes as 32 lowercase hex digits, no "GPU-" and no dashes), so
    that bench/join_peers.py can compare the two; "" where this PyTorch does
    not give one. torch's uuid object has the bytes; its str() is the
    8-4-4-4-12 form."""
    u = getattr(props, "uuid", None)
    if u is None:
        return ""
    b = getattr(u, "bytes", None)
    if b is not None:
        return bytes(x & 0xff for x in b).hex()
    return "".join(c for c in str(u).lower() if c in "0123456789abcdef")


class Alarm:
    """Raises TimeoutError in the main thread after `seconds` (0: never);
    bounds torch.compile's first call."""

    def __init__(self, seconds):
        self.seconds = seconds

    def _fire(self, signum, frame):
        raise TimeoutError(f"over {self.seconds} s")

    def __enter__(self):
        if self.seconds > 0:
            self.old = signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *exc):
        if self.seconds > 0:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old)
        return False


def usable_cpus():
    """CPUs this process may use: its affinity set, and a cgroup v2 quota
    if there is one (a container may see the host's cores)."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    try:
        with open("/sys/fs/cgroup/cpu.max") as f:
            quota, period = f.read().split()[:2]
        if quota != "max":
            n = min(n, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return n


def commit_id(root):
    c = os.environ.get("KRL_COMMIT", "")
    if not c and os.path.exists(os.path.join(root, ".commit")):
        c = open(os.path.join(root, ".commit")).read().strip()
    if not c:
        try:
            c = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"],
                               capture_output=True, text=True).stdout.strip()
        except OSError:
            c = ""
    return c


def done_tasks(path, shapes):
    """Task ids that already have a line at `shapes` in the output file."""
    out = set()
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for ln in f:
            try:
                rec = json.loads(ln)
            except ValueError:
                continue  # a line cut by a kill: that task runs again
            if rec.get("shapes") == shapes and "task" in rec:
                out.add(rec["task"])
    return out


# ------------------------------------------------------------------ timing

class Timer:
    """The judge's protocol around one callable: warm-up, then per call new
    inputs, an L2 flush, CUDA events on the current stream, median."""

    def __init__(self, torch, args, dev):
        self.torch = torch
        self.args = args
        self.dev = dev
        props = torch.cuda.get_device_properties(dev)
        l2 = getattr(props, "L2_cache_size", 0) or 64 << 20
        self.flush = torch.empty(2 * l2, dtype=torch.uint8, device=dev)
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)

    def run(self, prepare, call, budget_s):
        """prepare() makes a call's inputs (untimed) and returns them;
        call(inputs) is the timed call. Returns (median ms, n, rse)."""
        torch, a = self.torch, self.args
        for _ in range(a.warmup):
            x = prepare()
            call(x)
            del x
        torch.cuda.synchronize(self.dev)
        stream = torch.cuda.current_stream(self.dev)
        times = []
        t0 = time.perf_counter()
        while True:
            x = prepare()
            self.flush.zero_()
            self.start.record(stream)
            y = call(x)
            self.end.record(stream)
            self.end.synchronize()
            times.append(self.start.elapsed_time(self.end))
            del x, y
            n = len(times)
            if n >= a.max_calls:
                break
            if n >= a.min_calls and (rel_se(times) <= a.rse or
                                     time.perf_counter() - t0 >= budget_s):
                break
        return statistics.median(times), len(times), rel_se(times)


def peer_eager(torch, timer, mod, model, budget_s, rec):
    return timer.run(lambda: draw_inputs(torch, mod, timer.dev),
                     lambda x: model(*x), budget_s)


def peer_graph(torch, timer, mod, model, budget_s, rec):
    dev = timer.dev
    static = draw_inputs(torch, mod, dev)
    side = torch.cuda.Stream(device=dev)
    side.wait_stream(torch.cuda.current_stream(dev))
    with torch.cuda.stream(side):
        for _ in range(max(1, timer.args.warmup)):
            model(*static)
    torch.cuda.current_stream(dev).wait_stream(side)
    torch.cuda.synchronize(dev)
    graph = torch.cuda.CUDAGraph()
    # Captures on a side stream of its own, of the current device (main()
    # made it dev).
    with torch.cuda.graph(graph):
        static_out = model(*static)

    def prepare():
        for dst, src in zip(static, draw_inputs(torch, mod, dev)):
            if isinstance(dst, torch.Tensor):
                dst.copy_(src)
        return None

    try:
        return timer.run(prepare, lambda _: graph.replay(), budget_s)
    finally:
        del graph, static_out, static


def peer_compile(torch, timer, mod, model, budget_s, rec):
    torch._dynamo.reset()
    compiled = torch.compile(model)
    x = draw_inputs(torch, mod, timer.dev)
    t0 = time.perf_counter()
    with Alarm(timer.args.compile_timeout):
        compiled(*x)
        torch.cuda.synchronize(timer.dev)
    rec["torch_compile_s"] = time.perf_counter() - t0
    del x
    try:
        return timer.run(lambda: draw_inputs(torch, mod, timer.dev),
                         lambda x: compiled(*x), budget_s)
    finally:
        del compiled
        torch._dynamo.reset()


PEER_FN = {"eager": peer_eager, "graph": peer_graph, "compile": peer_compile}


def free(torch):
    """Drops what the last peer left (caching allocator included) on the
    current device (main() set it); returns the error text if the GPU
    reports one, else None."""
    try:
        gc.collect()
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    except Exception as e:
        return err_text(e)
    return None


def time_problem(torch, timer, task, args, rec):
    """Times the chosen peers of one problem into rec; returns the fatal
    CUDA error message if one left the context unusable, else None."""
    t0 = time.perf_counter()
    mod = model = None
    # the task's precision tier: TF32 convolutions only where it allows them
    torch.backends.cudnn.allow_tf32 = task.allows_tf32()
    rec["cudnn_tf32"] = torch.backends.cudnn.allow_tf32
    try:
        mod = load_problem(task.path, f"{args.shapes}_{task.tid}")
        with torch.no_grad():
            model = build_model(torch, mod, timer.dev)
    except BaseException as e:  # noqa: B036 (KeyboardInterrupt re-raised)
        if isinstance(e, KeyboardInterrupt):
            raise
        msg = err_text(e)
        for p in args.peer_list:
            rec[f"torch_{p}_error"] = "setup: " + msg
        model = None
        freed = free(torch)
        return freed or (msg if any(f in msg for f in FATAL) else None)
    rec["setup_s"] = round(time.perf_counter() - t0, 3)
    budget = args.budget / len(args.peer_list)
    fatal = None
    for p in args.peer_list:
        try:
            with torch.no_grad():
                ms, n, rse = PEER_FN[p](torch, timer, mod, model, budget, rec)
            rec[f"torch_{p}_ms"] = ms
            rec[f"torch_{p}_n"] = n
            rec[f"torch_{p}_rse"] = round(rse, 5)
        except BaseException as e:  # noqa: B036
            if isinstance(e, KeyboardInterrupt):
                raise
            msg = err_text(e)
            rec[f"torch_{p}_error"] = msg
            if any(f in msg for f in FATAL):
                fatal = msg
        if fatal is None:
            fatal = free(torch)
        if fatal is not None:
            for q in args.peer_list:
                if f"torch_{q}_ms" not in rec and f"torch_{q}_error" not in rec:
                    rec[f"torch_{q}_error"] = ("not run: the CUDA context "
                                               "broke (" + fatal[:200] + ")")
            break
    ran = {p: rec[f"torch_{p}_ms"] for p in args.peer_list
           if f"torch_{p}_ms" in rec}
    if ran:
        best = min(ran, key=ran.get)
        rec["best_torch_ms"] = ran[best]
        rec["best_torch_peer"] = best
    del model, mod
    if fatal is None:
        fatal = free(torch)
    rec["wall_s"] = round(time.perf_counter() - t0, 3)
    return fatal


# ----------------------------------------------------- compile-cache warming

def warm_worker(items, threads, mem_fraction, log_path, device):
    """A spawned process: compiles each (task id, file) of its share with
    one forward at the problem's shapes (nothing timed) on CUDA device
    `device`, the timing process's (Inductor's autotuning runs there, and
    the memory it may take is that device's), so the shared Inductor/Triton
    caches hold the graphs, kernels and autotuning results; a line per
    problem goes to log_path."""
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", str(threads))
    import torch
    torch.cuda.set_device(device)
    dev = torch.device("cuda", device)
    torch.cuda.set_per_process_memory_fraction(mem_fraction, device)
    with open(log_path, "a") as log:
        for tid, path, tag, tf32 in items:
            rec = {"task": tid}
            torch.backends.cudnn.allow_tf32 = tf32
            t0 = time.perf_counter()
            mod = model = compiled = x = None
            try:
                mod = load_problem(path, tag)
                with torch.no_grad():
                    model = build_model(torch, mod, dev)
                    compiled = torch.compile(model)
                    x = draw_inputs(torch, mod, dev)
                    compiled(*x)
                    torch.cuda.synchronize(dev)
            except Exception as e:
                rec["error"] = err_text(e)
            rec["s"] = round(time.perf_counter() - t0, 3)
            del mod, model, compiled, x
            try:
                torch._dynamo.reset()
                gc.collect()
                torch.cuda.empty_cache()
            except Exception as e:
                rec["error"] = rec.get("error", "") + " / cleanup: " + err_text(e)
                log.write(json.dumps(rec) + "\n")
                log.flush()
                return  # a broken context: this worker's share ends here
            log.write(json.dumps(rec) + "\n")
            log.flush()


def warm_caches(tasks, args, deadline):
    """Runs --compile-workers spawned compile processes over `tasks`
    (round-robin shares), until they finish or `deadline` (time.monotonic)
    passes (then they are killed); returns {task id: worker record}."""
    n = min(args.compile_workers, len(tasks))
    # --cpu-share: this process's part of the CPUs when other peers.py
    # processes (other devices) compile at the same time.
    threads = max(1, min(4, int(usable_cpus() * args.cpu_share) // n))
    frac = args.worker_memory / n
    logdir = os.path.join(args.cache_dir, "warm-logs")
    os.makedirs(logdir, exist_ok=True)
    ctx = multiprocessing.get_context("spawn")
    procs, logs = [], []
    for w in range(n):
        share = [(t.tid, t.path, f"{args.shapes}_{t.tid}", t.allows_tf32())
                 for t in tasks[w::n]]
        log = os.path.join(logdir, f"worker{w}.{os.getpid()}.jsonl")
        open(log, "w").close()
        # Not daemonic: Inductor may start compile processes of its own.
        p = ctx.Process(target=warm_worker,
                        args=(share, threads, frac, log, args.device))
        p.start()
        procs.append(p)
        logs.append(log)
    t0 = time.monotonic()
    print(f"peers: warming the compile cache of {len(tasks)} problems in "
          f"{n} processes on device {args.device} ({threads} compile "
          f"threads, {frac:.3f} of GPU memory each)", file=sys.stderr,
          flush=True)
    for p in procs:
        p.join(None if deadline == math.inf
               else max(0.0, deadline - time.monotonic()))
    killed = 0
    for p in procs:
        if p.is_alive():
            p.kill()
            p.join()
            killed += 1
    out = {}
    for log in logs:
        with open(log) as f:
            for ln in f:
                try:
                    rec = json.loads(ln)
                except ValueError:
                    continue
                out[rec["task"]] = rec
        os.remove(log)
    errs = sum("error" in r for r in out.values())
    print(f"peers: warm-up compiled {len(out) - errs} of {len(tasks)} "
          f"({errs} errors, {killed} workers stopped at the deadline) in "
          f"{time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    return out


# -------------------------------------------------------------------- main

def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1])
    kbtasks.add_selection_args(ap)
    ap.add_argument("--shapes", default="kb1", choices=("kb0", "kb1"))
    ap.add_argument("--kb", default="",
                    help="KernelBench export root (default .kb/SHAPES)")
    ap.add_argument("--peers", default="eager,graph,compile",
                    help="peers to time, comma-separated: eager,graph,compile")
    ap.add_argument("--out", default="bench/out/peers.jsonl")
    ap.add_argument("--resume", action="store_true",
                    help="append, skipping tasks already in --out")
    ap.add_argument("--budget", type=float, default=6.0,
                    help="seconds of timed calls per problem, shared by its "
                         "peers (default 6)")
    ap.add_argument("--rse", type=float, default=0.01,
                    help="stop when stdev/sqrt(n)/mean is at most this (0.01)")
    ap.add_argument("--min-calls", type=int, default=6,
                    help="timed calls at least (6: the median's 95%% interval "
                         "needs 6, as the judge's)")
    ap.add_argument("--max-calls", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=3,
                    help="untimed calls per peer before timing (3)")
    ap.add_argument("--compile-timeout", type=float, default=300,
                    help="seconds allowed for torch.compile's first call in "
                         "the timing process (0: no limit)")
    ap.add_argument("--compile-workers", type=int, default=0,
                    help="processes that compile every problem first, to warm "
                         "the shared caches (0: none)")
    ap.add_argument("--worker-memory", type=float, default=0.8,
                    help="share of GPU memory all compile workers together may "
                         "allocate (each gets this / N; default 0.8)")
    ap.add_argument("--cpu-share", type=float, default=1.0,
                    help="share of this machine's usable CPUs the compile "
                         "workers' threads divide (default 1; 1/D when D "
                         "peers.py processes run at once, one per device)")
    ap.add_argument("--device", type=int, default=0,
                    help="CUDA device to time on, its ordinal among the "
                         "visible ones (CUDA_VISIBLE_DEVICES applies, as for "
                         "krl --device); the compile workers use it too "
                         "(default 0)")
    ap.add_argument("--cache-dir", default="",
                    help="TORCHINDUCTOR_CACHE_DIR for this run and its workers "
                         "(TRITON_CACHE_DIR is its triton/); default "
                         "$TORCHINDUCTOR_CACHE_DIR or /tmp/krl-peers-inductor")
    ap.add_argument("--deadline", type=float, default=0,
                    help="seconds after which no new problem starts (0: none); "
                         "the cache warm-up gets at most --warm-share of it")
    ap.add_argument("--warm-share", type=float, default=0.6)
    ap.add_argument("--dry-run", action="store_true",
                    help="list the tasks and files that would be timed, and stop")
    ap.add_argument("--commit", default="",
                    help="kernelrl commit to record (default $KRL_COMMIT, "
                         ".commit, or git)")
    ap.add_argument("--session", default="",
                    help="the device call to record as `session` (default "
                         "$KRL_SESSION; bench/run_gpu.sh sets it), so that "
                         "bench/join_peers.py can tell whether the peers and "
                         "the search ran in one call")
    args = ap.parse_args(argv)
    args.peer_list = [p.strip() for p in args.peers.split(",") if p.strip()]
    bad = [p for p in args.peer_list if p not in PEERS]
    if bad or not args.peer_list:
        ap.error(f"--peers: unknown {bad}; choose from {','.join(PEERS)}")
    if args.min_calls < 5:
        ap.error("--min-calls must be at least 5")
    if args.device < 0:
        ap.error("--device must be 0 or more")
    if not 0 < args.cpu_share <= 1:
        ap.error("--cpu-share must be above 0 and at most 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    t_start = time.monotonic()
    deadline = t_start + args.deadline if args.deadline > 0 else math.inf
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    kb_root = args.kb or os.path.join(".kb", args.shapes)
    if not os.path.isdir(kb_root):
        sys.exit(f"peers: no {kb_root}: run bench/fetch_kb.sh first")
    tasks = kbtasks.select(args, args.shapes, kb_root)
    done = done_tasks(args.out, args.shapes) if args.resume else set()
    todo = [t for t in tasks if t.tid not in done]
    print(f"peers: {len(tasks)} tasks at {args.shapes}, {len(tasks) - len(todo)} "
          f"already in {args.out}, {len(todo)} to time", file=sys.stderr,
          flush=True)
    if args.dry_run:
        for t in todo:
            print(f"{t.tid}\t{t.path}")
        return 0
    if not todo:
        return 0

    # One cache for this process and its workers, set before torch loads.
    args.cache_dir = os.path.abspath(
        args.cache_dir or os.environ.get("TORCHINDUCTOR_CACHE_DIR")
        or "/tmp/krl-peers-inductor")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = args.cache_dir
    os.environ["TRITON_CACHE_DIR"] = os.path.join(args.cache_dir, "triton")
    os.makedirs(os.environ["TRITON_CACHE_DIR"], exist_ok=True)

    warm = {}
    if "compile" in args.peer_list and args.compile_workers > 0:
        # One warm-up per problem file (tasks sharing a file compile once).
        seen, uniq = set(), []
        for t in todo:
            if t.path not in seen:
                seen.add(t.path)
                uniq.append(t)
        wdl = (t_start + args.warm_share * args.deadline
               if args.deadline > 0 else math.inf)
        warm = warm_caches(uniq, args, wdl)

    import torch
    if not torch.cuda.is_available():
        sys.exit("peers: no CUDA device")
    if args.device >= torch.cuda.device_count():
        sys.exit(f"peers: --device {args.device}: only "
                 f"{torch.cuda.device_count()} CUDA devices visible "
                 f"(CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', 'unset')})")
    # The current device too: what names no device (the CUDA graph's
    # capture, the caching allocator's release, a problem's own .cuda())
    # goes to it.
    torch.cuda.set_device(args.device)
    dev = torch.device("cuda", args.device)
    env = {
        "shapes": args.shapes,
        "torch_version": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "gpu": torch.cuda.get_device_name(dev),
        "gpu_uuid": gpu_uuid(torch.cuda.get_device_properties(dev)),
        "device": args.device,
        "commit": args.commit or commit_id(root),
    }
    if args.session or os.environ.get("KRL_SESSION"):
        env["session"] = args.session or os.environ["KRL_SESSION"]
    rev = os.path.join(kb_root, "REVISION")
    if os.path.exists(rev):
        env["kernelbench_commit"] = open(rev).read().split()[0]
    timer = Timer(torch, args, dev)
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    by_path = {}
    longest = 0.0
    left = len(todo)
    rc = 0
    with open(args.out, "a" if args.resume else "w") as out:
        for task in todo:
            if time.monotonic() + longest > deadline:
                print(f"peers: deadline: {left} of {len(todo)} tasks left "
                      "(run again with --resume)", file=sys.stderr, flush=True)
                break
            rec = {"task": task.tid, "level": task.level,
                   "kernelbench": f"level{task.kb_level}/"
                                  f"{os.path.basename(task.path)}"}
            rec.update(env)
            rec["date"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            w = warm.get(task.tid)
            if w is not None:
                rec["torch_compile_worker_s"] = w.get("s")
                if "error" in w:
                    rec["torch_compile_worker_error"] = w["error"]
            fatal = None
            if task.path in by_path:  # same file as an earlier task: reuse
                first = by_path[task.path]
                rec.update({k: v for k, v in first.items()
                            if k.startswith(("torch_", "best_"))
                            and not k.startswith(("torch_version",
                                                  "torch_compile_worker"))})
                rec["same_problem_as"] = first["task"]
            else:
                t0 = time.monotonic()
                fatal = time_problem(torch, timer, task, args, rec)
                longest = max(longest, time.monotonic() - t0)
                by_path[task.path] = rec
            out.write(json.dumps(rec) + "\n")
            out.flush()
            left -= 1
            errs = [k for k in rec if k.endswith("_error")]
            print(f"{task.tid:48s} "
                  + "  ".join(f"{p} {rec.get(f'torch_{p}_ms', float('nan')):9.4f}"
                              for p in args.peer_list)
                  + (f"  compile_s {rec['torch_compile_s']:.1f}"
                     if "torch_compile_s" in rec else "")
                  + (f"  errors: {', '.join(errs)}" if errs else ""),
                  flush=True)
            if fatal:
                print(f"peers: the CUDA context is broken ({fatal}); "
                      "stopping, run again with --resume", file=sys.stderr,
                      flush=True)
                rc = 3
                break
    return rc


if __name__ == "__main__":
    sys.exit(main())
