#!/usr/bin/env python3
"""bench/join_peers: kernelrl's optimize results with PyTorch's peers in the
same rows, and the headline figures of ../shared/BENCHMARKING.md.

Inputs:
  OPTIMIZE...   `krl optimize --results` JSON lines: problem, shapes, ref_ms,
                best_ms (kernelrl's reference and its best candidate, median
                ms of the judge's pairs), speedup (= ref_ms / best_ms), ci_low,
                ci_high, roofline, verdict, evaluations, commit, date, the
                GPU it was measured on (gpu, gpu_uuid, device); and, as
                bench/optimize_level.sh stamps it, session.
  --peers F     bench/peers.py JSON lines: task, shapes, kernelbench,
                torch_eager_ms, torch_graph_ms, torch_compile_ms (median ms of
                PyTorch's call), torch_compile_s (seconds, the first call's
                compile, never a call time), best_torch_ms, best_torch_peer,
                torch_<peer>_error, torch_version, gpu, gpu_uuid, device,
                commit, session, date.

Each optimize line (the last one per problem and shape set) gets the peer
line of the same task at the same shape set (the timing set: the last of
`shapes`), or, where the peers were timed under a sibling task that names the
same KernelBench file (level 1's 12_diag_mul and 12kb0_diag_matmul at kb0;
bench/kbtasks.py), that one. A task whose program is the other revision's at
that set (a `kb0` task at kb1) has no KernelBench problem there: it is
joined without peers and left out of the headline figures. Added fields:

  torch_eager_ms, torch_graph_ms, torch_compile_ms, torch_compile_s,
  best_torch_ms, best_torch_peer, torch_<peer>_error, torch_version,
  kernelbench, kernelbench_commit          as bench/peers.py wrote them
  vs_eager, vs_graph, vs_compile           peer ms / best_ms (above 1:
  vs_best_torch                            kernelrl faster); best_torch_ms /
                                           best_ms
  gpu                                      peers' GPU where the line has none
  peers_gpu, peers_gpu_uuid, peers_device, where the peers were measured
  peers_commit, peers_session, peers_date,
  peers_task, peers_same_session
  peers_gpu_mismatch                       true where the result and its
                                           peers both name a GPU uuid and
                                           the two differ (warned on stderr,
                                           listed in the figures)
  peers_missing                            why a line has no peers

The headline figures per level and shape set: geometric means of
vs_best_torch, of speedup and of vs_eager (also graph and compile), where a
problem whose search found nothing faster than the reference counts with
the reference's own time (best_ms above ref_ms, or no correct candidate:
ref_ms from the line or from --refs, `krl time-ref --json`); the problems
below 0.97 of best-of-PyTorch, each with its reason (--reasons); the median
roofline fraction and the fractions above 1.0; verdicts and evaluations;
the problems whose peers ran on another GPU than their result; the
commits, GPUs and sessions, with a warning when they are several. Needs
no torch.

    python3 bench/join_peers.py bench/out/optimize-level2-kb1.krl.jsonl \\
        --peers bench/out/peers_level2_kb1.jsonl \\
        --out bench/out/optimize-level2-kb1.jsonl --md bench/out/optimize-level2-kb1.md
"""
import argparse
import json
import math
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kbtasks  # noqa: E402
from peer_table import fmt, gmean, read_jsonl, short, task_key  # noqa: E402

PEERS = ("eager", "graph", "compile")
# Below this share of best-of-PyTorch a problem is a loss (BENCHMARKING.md).
PARITY = 0.97
# Fields a peers line hands over as they are.
PEER_FIELDS = ("torch_eager_ms", "torch_graph_ms", "torch_compile_ms",
               "torch_compile_s", "best_torch_ms", "best_torch_peer",
               "torch_version", "kernelbench", "kernelbench_commit", "cuda",
               "cudnn")


def fx(g):
    """A geometric mean as "1.234x", or "n/a"."""
    return "n/a" if g is None else f"{g:.3f}x"


def timing_set(shapes):
    """The set a result is timed at: the last of "tiny,kb1"."""
    return (shapes or "").split(",")[-1].strip()


def task_id(name):
    """A problem name as a task id: "tasks/level2/1_x.task" -> "level2/1_x"."""
    name = (name or "").strip()
    if name.startswith("tasks/"):
        name = name[len("tasks/"):]
    if name.endswith(".task"):
        name = name[:-len(".task")]
    return name


def level_of(tid):
    lv = task_key(tid)[0]
    return lv if lv != 99 else None


def num(x):
    """x as a finite positive float, else None."""
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) \
        and math.isfinite(x) and x > 0 else None


def ratio(a, b):
    a, b = num(a), num(b)
    return a / b if a and b else None


def norm_uuid(u):
    """A GPU uuid as bare lowercase hex digits, so that krl's form (32 hex
    digits, src/runtime/device.c), bench/peers.py's (the same) and
    nvidia-smi's ("GPU-xxxxxxxx-xxxx-...") compare equal; "" for none."""
    return "".join(c for c in str(u or "").lower() if c in "0123456789abcdef")


class Tasks:
    """The suite's tasks by id (bench/kbtasks.py), for the revision and
    KernelBench file of each; empty when the folder is absent."""

    def __init__(self, tasks_dir):
        self.by_id = {}
        if tasks_dir and os.path.isdir(tasks_dir):
            for t in kbtasks.all_tasks(tasks_dir):
                self.by_id[t.tid] = t

    def other_revision(self, tid, shapes):
        t = self.by_id.get(tid)
        return t is not None and not t.runs_at(shapes)

    def kb_names(self, tid):
        """The "levelN/FILE.py" names a peers line may give for the task's
        problem (its file and, where respelled, the other spelling)."""
        t = self.by_id.get(tid)
        if t is None:
            return set()
        names = {t.kb_file}
        alt = kbtasks.RESPELLED.get((t.kb_level, t.kb_file))
        if alt:
            names.add(alt)
        return {f"level{t.kb_level}/{n}" for n in names}


def load_optimize(paths):
    """{(task id, timing set): line}, a later line replacing an earlier one
    (a resumed run writes its problem again); and how many were replaced."""
    rows, replaced = {}, 0
    for p in paths:
        for r in read_jsonl(p):
            tid = task_id(r.get("problem") or r.get("task"))
            if not tid:
                print(f"{p}: a line without a problem, skipped", file=sys.stderr)
                continue
            key = (tid, timing_set(r.get("shapes")))
            replaced += key in rows
            rows[key] = r
    return rows, replaced


def load_peers(paths):
    """{(task id, shapes): peers line}, a later line replacing an earlier."""
    out = {}
    for p in paths:
        for r in read_jsonl(p):
            if "task" in r:
                out[(task_id(r["task"]), timing_set(r.get("shapes")))] = r
    return out


def load_refs(paths):
    """{(task id, set): reference ms} from `krl time-ref --json` lines."""
    out = {}
    for p in paths:
        for r in read_jsonl(p):
            ms = num((r.get("ref_ms") or {}).get("median")
                     if isinstance(r.get("ref_ms"), dict) else r.get("ref_ms"))
            if "task" in r and ms:
                out[(task_id(r["task"]), timing_set(r.get("set") or
                                                     r.get("shapes")))] = ms
    return out


def load_reasons(path):
    """{task id: reason} from 'TASK reason text' lines (# comments)."""
    out = {}
    if path:
        with open(path) as f:
            for ln in f:
                ln = ln.strip()
                if ln and not ln.startswith("#"):
                    tid, _, why = ln.partition(" ")
                    out[task_id(tid)] = why.strip()
    return out


def find_peer(tid, shapes, peers, tasks, by_file):
    """The peers line of a task at a set: (line, how) with how "task" or
    "file" (a sibling task on the same KernelBench file), or (None, why)."""
    r = peers.get((tid, shapes))
    if r is not None:
        return r, "task"
    if tasks.other_revision(tid, shapes):
        return None, (f"another revision's program at {shapes}: no "
                      "KernelBench problem to time")
    for name in sorted(tasks.kb_names(tid)):
        sib = by_file.get((name, shapes))
        if sib is not None:
            return sib, "file"
    return None, "no peers line for this problem at this shape set"


def joined_already(r):
    """Whether r is a line this script wrote (it has peer columns)."""
    return any(k in r for k in PEER_FIELDS[:5]) or "peers_missing" in r


def peer_key(k):
    """Whether k is a field this script adds (dropped before a new join)."""
    return (k in PEER_FIELDS or k.startswith(("vs_", "peers_"))
            or (k.startswith("torch_") and k.endswith("_error")))


def join_line(r, p, how, tid):
    """The optimize line r with the peers line p's columns (a new dict). A
    line joined before (an earlier output of this script, re-read to add
    up slices) keeps its columns when no peers line is given for it."""
    if p is None:
        out = dict(r)
        if not joined_already(r):
            out["peers_missing"] = how
        return out
    out = {k: v for k, v in r.items() if not peer_key(k)}
    for k in PEER_FIELDS:
        if k in p:
            out[k] = p[k]
    for k, v in p.items():  # a failed peer; not a warm-up worker's failure
        if k.startswith("torch_") and k.endswith("_error") \
                and not k.startswith("torch_compile_worker"):
            out[k] = v
    best = r.get("best_ms")
    for peer in PEERS:
        out[f"vs_{peer}"] = ratio(p.get(f"torch_{peer}_ms"), best)
    out["vs_best_torch"] = ratio(p.get("best_torch_ms"), best)
    if p.get("gpu"):
        if not r.get("gpu"):
            out["gpu"] = p["gpu"]
        out["peers_gpu"] = p["gpu"]
    for k in ("gpu_uuid", "device"):
        if p.get(k) is not None:
            out[f"peers_{k}"] = p[k]
    # Peers timed on another GPU than the search's result are not the
    # comparison BENCHMARKING.md asks for (issue 20): said, never silent.
    # Lines without uuids (files from before krl and peers.py wrote them)
    # join as before.
    ru, pu = norm_uuid(r.get("gpu_uuid")), norm_uuid(p.get("gpu_uuid"))
    if ru and pu and ru != pu:
        out["peers_gpu_mismatch"] = True
    for k in ("commit", "session", "date"):
        if p.get(k) is not None:
            out[f"peers_{k}"] = p[k]
    if how == "file" or task_id(p.get("task")) != tid:
        out["peers_task"] = p.get("task")
    if r.get("session") and p.get("session"):
        out["peers_same_session"] = r["session"] == p["session"]
    return out


def join(opt, peers, tasks):
    """The joined lines, in suite order."""
    by_file = {}
    for (tid, s), p in sorted(peers.items()):
        if p.get("kernelbench"):
            by_file.setdefault((p["kernelbench"], s), p)
    out = []
    for (tid, s) in sorted(opt, key=lambda k: (task_key(k[0]), k[1])):
        p, how = find_peer(tid, s, peers, tasks, by_file)
        j = join_line(opt[(tid, s)], p, how, tid)
        if j.get("peers_gpu_mismatch"):
            print(f"join_peers: warning: {tid} at {s}: measured on GPU "
                  f"{j.get('gpu_uuid')} (device {j.get('device')}), its peers "
                  f"on {j.get('peers_gpu_uuid')} (device "
                  f"{j.get('peers_device')})", file=sys.stderr)
        out.append(j)
    return out


# ---------------------------------------------------------------- headline

def counted(j, refs):
    """kernelrl's time as the headline counts it: the best candidate's, or
    the reference's where the search found nothing faster (a speedup below
    1, the judge's median of paired ratios; without one, best_ms above
    ref_ms; or no correct candidate); (ms, counted at the reference)."""
    tid, s = task_id(j.get("problem")), timing_set(j.get("shapes"))
    best, ref = num(j.get("best_ms")), num(j.get("ref_ms"))
    if ref is None:
        ref = refs.get((tid, s))
    sp = num(j.get("speedup"))
    slower = sp < 1.0 if sp is not None else (
        best is not None and ref is not None and best > ref)
    if best is not None and not (slower and ref is not None):
        return best, False
    return ref, ref is not None


def summarize(rows, refs, reasons, expect=None):
    """Markdown lines for one level at one shape set: the table, then the
    figures. Returns (lines, figures dict)."""
    head = ["problem", "verdict", "evals", "ref ms", "best ms", "speedup",
            "eager ms", "graph ms", "compile ms", "best of PyTorch",
            "vs eager", "vs graph", "vs compile", "vs best", "roofline",
            "note"]
    lines = ["| " + " | ".join(head) + " |",
             "| " + " | ".join("---" if h in ("problem", "verdict", "best of PyTorch", "note")
                               else "---:" for h in head) + " |"]
    vs = {k: [] for k in ("best_torch", "eager", "graph", "compile")}
    speedups, roofs, above, losses, at_ref = [], [], [], [], []
    other, missing, no_time, errors, mismatch = [], [], [], [], []
    verdicts = defaultdict(int)
    evals = []
    for j in sorted(rows, key=lambda j: task_key(task_id(j.get("problem")))):
        tid = task_id(j.get("problem"))
        verdicts[j.get("verdict") or "?"] += 1
        if isinstance(j.get("evaluations"), int):
            evals.append(j["evaluations"])
        note = []
        roof = j.get("roofline")
        if isinstance(roof, (int, float)) and math.isfinite(roof):
            roofs.append(roof)
            if roof > 1.0:
                above.append((tid, roof))
        if j.get("peers_missing"):
            if j["peers_missing"].startswith("another revision"):
                other.append(tid)
                note.append("another revision's program: not counted")
            else:
                missing.append(tid)
                note.append("no peers")
        ms, by_ref = counted(j, refs)
        if "peers_missing" not in j and ms is None:
            no_time.append(tid)
            note.append("no kernelrl time")
        if tid not in other:
            sp = num(j.get("speedup"))
            speedups.append(max(sp, 1.0) if sp else 1.0)
        if "peers_missing" not in j and ms is not None:
            if by_ref:
                at_ref.append(tid)
                note.append("counted at the reference's time")
            for k in vs:
                col = "best_torch_ms" if k == "best_torch" else f"torch_{k}_ms"
                v = ratio(j.get(col), ms)
                if v:
                    vs[k].append(v)
                if k == "best_torch" and v and v < PARITY:
                    losses.append((tid, v, j))
        for k in sorted(j):
            if k.startswith("torch_") and k.endswith("_error"):
                errors.append((tid, k[len("torch_"):-len("_error")], j[k]))
                note.append(f"{k[len('torch_'):-len('_error')]} failed")
        if j.get("peers_task"):
            note.append(f"peers of {j['peers_task']}")
        if j.get("peers_same_session") is False:
            note.append("peers from another session")
        if j.get("peers_gpu_mismatch"):
            mismatch.append(tid)
            note.append("peers on another GPU")
        lines.append("| " + " | ".join([
            tid, str(j.get("verdict", "")), str(j.get("evaluations", "")),
            fmt(num(j.get("ref_ms")), ".4f"), fmt(num(j.get("best_ms")), ".4f"),
            fmt(num(j.get("speedup"))),
            fmt(num(j.get("torch_eager_ms")), ".4f"),
            fmt(num(j.get("torch_graph_ms")), ".4f"),
            fmt(num(j.get("torch_compile_ms")), ".4f"),
            (fmt(num(j.get("best_torch_ms")), ".4f") + " " +
             str(j.get("best_torch_peer", ""))).strip(),
            fmt(j.get("vs_eager")), fmt(j.get("vs_graph")),
            fmt(j.get("vs_compile")), fmt(j.get("vs_best_torch")),
            fmt(roof if isinstance(roof, (int, float)) else None),
            "; ".join(note)]) + " |")
    n = len(rows)
    counted_n = len(vs["best_torch"])
    g = {k: gmean(v) for k, v in vs.items()}
    fig = {"problems": n, "counted": counted_n,
           "gmean_vs_best_torch": g["best_torch"], "gmean_vs_eager": g["eager"],
           "gmean_vs_graph": g["graph"], "gmean_vs_compile": g["compile"],
           "gmean_speedup": gmean(speedups),
           "below_parity": [t for t, _, _ in losses],
           "roofline_median": statistics.median(roofs) if roofs else None,
           "roofline_above_1": [t for t, _ in above],
           "other_revision": other, "no_peers": missing, "no_time": no_time,
           "peers_gpu_mismatch": mismatch}
    lines.append("")
    lines.append(f"- problems: {n} result lines; **{counted_n}** counted "
                 "(peers and a kernelrl time at this shape set)")
    if expect is not None:
        got = {task_id(j.get("problem")) for j in rows}
        lack = [t for t in expect if t not in got]
        fig["no_result"] = lack
        lines.append(f"- selected tasks without a result line: {len(lack)}"
                     + (": " + ", ".join(lack) if lack else ""))
    lines.append("- geometric mean of vs_best_torch (best of PyTorch ms / "
                 f"kernelrl ms): **{fx(g['best_torch'])}** over "
                 f"{len(vs['best_torch'])}")
    lines.append(f"- geometric mean of speedup over kernelrl's reference: "
                 f"{fx(fig['gmean_speedup'])} over {len(speedups)}; over "
                 f"PyTorch eager (vs_eager): **{fx(g['eager'])}**; over CUDA "
                 f"graph {fx(g['graph'])}; over torch.compile "
                 f"{fx(g['compile'])}")
    lines.append(f"- below {PARITY} of best-of-PyTorch: **{len(losses)}**"
                 + ("" if losses else " (none)"))
    for tid, v, j in sorted(losses, key=lambda x: x[1]):
        why = reasons.get(tid, "reason not given (--reasons)")
        lines.append(f"  - {tid}: {v:.3f}x (best of PyTorch: "
                     f"{j.get('best_torch_peer', '?')} "
                     f"{fmt(num(j.get('best_torch_ms')), '.4f')} ms, kernelrl "
                     f"{fmt(num(j.get('best_ms')), '.4f')} ms, roofline "
                     f"{fmt(num(j.get('roofline')))}): {why}")
    lines.append(f"- roofline fraction: median "
                 f"{fmt(fig['roofline_median']) or 'n/a'} "
                 f"over {len(roofs)}; above 1.0: **{len(above)}**"
                 + (" (" + ", ".join(f"{t} {r:.2f}" for t, r in above) + ")"
                    if above else ""))
    lines.append("- verdicts: " + ", ".join(f"{k} {v}" for k, v in
                                             sorted(verdicts.items()))
                 + (f"; evaluations at most {max(evals)}, {sum(evals)} in all"
                    if evals else ""))
    if at_ref:
        lines.append(f"- counted at the reference's time (nothing faster "
                     f"found): {', '.join(at_ref)}")
    if other:
        lines.append(f"- not counted, another revision's program at this "
                     f"set: {', '.join(other)}")
    if missing:
        lines.append(f"- **no peers line**: {', '.join(missing)}")
    if mismatch:
        lines.append(f"- **peers timed on another GPU than the result** "
                     f"(gpu_uuid differs; counted all the same): "
                     f"{len(mismatch)}: {', '.join(mismatch)}")
    if no_time:
        lines.append(f"- **no kernelrl time** (no correct candidate and no "
                     f"reference time; give --refs): {', '.join(no_time)}")
    if errors:
        lines.append("- peers that failed: " + "; ".join(
            f"{t} {p}: {short(e, 80)}" for t, p, e in errors))
    return lines, fig


def provenance(joined):
    """Header lines: commits, GPUs, PyTorch, sessions, with the warnings
    BENCHMARKING.md asks for."""
    out = []

    def vals(key):
        return sorted({str(j[key]) for j in joined if j.get(key)})

    for key, label in (("commit", "kernelrl commit"),
                       ("peers_commit", "peers' commit"),
                       ("gpu", "GPU"), ("torch_version", "PyTorch"),
                       ("kernelbench_commit", "KernelBench")):
        v = vals(key)
        if v:
            out.append(f"- {label}: {', '.join(v)}")
    commits = set(vals("commit")) | set(vals("peers_commit"))
    if len(commits) > 1:
        out.append("- **several commits: not one run "
                   "(../shared/BENCHMARKING.md)**")
    gpus = set(vals("gpu")) | set(vals("peers_gpu"))
    if len(gpus) > 1:
        out.append("- **several GPUs: not one run**")
    ru = {norm_uuid(u) for u in vals("gpu_uuid")}
    pu = {norm_uuid(u) for u in vals("peers_gpu_uuid")}
    if ru | pu:
        out.append(f"- GPUs by uuid: {len(ru | pu)} (results on {len(ru)}, "
                   f"peers on {len(pu)})")
    mism = [task_id(j.get("problem")) for j in joined
            if j.get("peers_gpu_mismatch")]
    if mism:
        out.append(f"- **peers timed on another GPU than the result: "
                   f"{len(mism)}** ({', '.join(mism)})")
    sessions = set(vals("session")) | set(vals("peers_session"))
    if sessions:
        out.append(f"- sessions (device calls): {len(sessions)}")
    other = [task_id(j.get("problem")) for j in joined
             if j.get("peers_same_session") is False]
    if other:
        out.append(f"- peers measured in another call than the search: "
                   f"{len(other)} ({', '.join(other)}): allowed only for the "
                   "call right after it on the same machine")
    dates = vals("date") + vals("peers_date")
    if dates:
        out.append(f"- dates: {min(dates)} to {max(dates)}")
    return out


def report(joined, refs, reasons, expect=None, sources=()):
    """The whole markdown document and {(level, set): figures}."""
    out = ["# kernelrl against PyTorch's peers (bench/join_peers.py)", ""]
    if sources:
        out.append("- inputs: " + ", ".join(f"`{s}`" for s in sources))
    out += provenance(joined)
    out.append("- vs X: X's ms / kernelrl's ms (above 1 = kernelrl faster); "
               "the figures count a problem whose search found nothing faster "
               "with the reference's time")
    groups = defaultdict(list)
    for j in joined:
        groups[(level_of(task_id(j.get("problem"))),
                timing_set(j.get("shapes")))].append(j)
    figs = {}
    for key in sorted(groups, key=lambda k: (k[0] or 0, k[1])):
        level, s = key
        exp = None
        if expect is not None:
            exp = [t for t in expect if level_of(t) == level]
        out += ["", f"## Level {level}, {s}", ""]
        lines, figs[key] = summarize(groups[key], refs, reasons, exp)
        out += lines
    return "\n".join(out) + "\n", figs


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("optimize", nargs="+",
                    help="krl optimize --results JSON lines files")
    ap.add_argument("--peers", action="append", default=[],
                    help="bench/peers.py JSON lines (repeatable)")
    ap.add_argument("--tasks", default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tasks"),
        help="the suite's folder (revisions and KernelBench files)")
    ap.add_argument("--refs", action="append", default=[],
                    help="krl time-ref --json lines: the reference's time of "
                         "a problem without a correct candidate")
    ap.add_argument("--reasons", default="",
                    help="'TASK reason' lines: why a problem is below parity")
    ap.add_argument("--expect", default="",
                    help="a file of the selected task ids: those without a "
                         "result line are listed")
    ap.add_argument("--out", default="", help="the joined JSON lines")
    ap.add_argument("--md", default="", help="the table and figures (markdown)")
    args = ap.parse_args(argv)

    opt, replaced = load_optimize(args.optimize)
    if replaced:
        print(f"join_peers: {replaced} earlier lines replaced by later ones "
              "of the same problem", file=sys.stderr)
    joined = join(opt, load_peers(args.peers), Tasks(args.tasks))
    expect = None
    if args.expect:
        with open(args.expect) as f:
            expect = [task_id(ln.split("#", 1)[0]) for ln in f]
        expect = [t for t in expect if t]
    text, _ = report(joined, load_refs(args.refs), load_reasons(args.reasons),
                     expect, args.optimize + args.peers)
    if args.out:
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            for j in joined:
                f.write(json.dumps(j) + "\n")
        os.replace(tmp, args.out)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    # stdout: the header and the figures, not the table
    for ln in text.splitlines():
        if not ln.startswith("|"):
            print(ln)
    return 0


if __name__ == "__main__":
    sys.exit(main())
