"""bench/kbtasks: which KernelBench problem file each kernelrl task states,
and which tasks a benchmark run covers.

A task file names its KernelBench problem in its `source` line:

    source "KernelBench level2/13_ConvTranspose3d_Mean_AddBias_Softmax_Tanh_Scaling.py (main)"

The optional suffix says which KernelBench revision's program the task is:
"(main)" only HEAD's (the kb1 shape set), "(b08d959^)" only the older
revision's (kb0); without a suffix the program is the same at both. A run at
shape set S therefore covers the tasks whose program is S's revision, and
reads the problem file from the export of that revision (bench/fetch_kb.sh:
.kb/kb1 or .kb/kb0). Used by bench/peers.py and bench/ref_vs_torch.py; needs
no torch.
"""
import glob
import os
import re
import sys

# The revision marker a source line carries when its program is one
# revision's only, by the shape set that revision defines.
MARKER = {"kb1": "(main)", "kb0": "(b08d959^)"}

# The same problem spelled differently at the two revisions (HEAD's name,
# b08d959^'s name), both ways; /work/shared/kernelbench/problems.jsonl lists
# every name that differs, and these are the only ones that are the same
# problem (the others are different problems under one number).
_SPELLINGS = [(3, "35_LSTM.py", "35_LTSM.py"),
              (3, "36_LSTMHn.py", "36_LTSMHn.py"),
              (3, "37_LSTMCn.py", "37_LTSMCn.py"),
              (3, "38_LSTMBidirectional.py", "38_LTSMBidirectional.py"),
              (3, "41_GRUBidirectional.py", "41_GRUBirectional.py")]
RESPELLED = {**{(lv, a): b for lv, a, b in _SPELLINGS},
             **{(lv, b): a for lv, a, b in _SPELLINGS}}

SOURCE_RE = re.compile(
    r'^source\s+"[^"]*?\blevel(\d+)/([^"\s]+\.py)\s*([^"]*)"', re.M)

PRECISION_RE = re.compile(r"^precision\s+(\w+)", re.M)


class Task:
    """One task: id ("level2/13_name"), its suite level, the KernelBench
    level and file its source line names, its revision marker ("" when
    the program is the same at both revisions) and its precision tier
    ("fp32" unless the task says `precision tf32`)."""

    def __init__(self, tid, level, kb_level, kb_file, marker, precision="fp32"):
        self.tid = tid
        self.precision = precision
        self.level = level
        self.kb_level = kb_level
        self.kb_file = kb_file
        self.marker = marker
        self.path = None

    def number(self):
        """The problem number, the id's leading digits (13 for 13kb0_x)."""
        m = re.match(r"(\d+)", self.tid.split("/", 1)[1])
        return int(m.group(1)) if m else -1

    def allows_tf32(self):
        """Whether the task's tier lets cuDNN's convolutions use TF32
        (PyTorch's cudnn.allow_tf32; bench/peers.py sets it so)."""
        return self.precision == "tf32"

    def sort_key(self):
        return (self.level, self.number(), self.tid)

    def runs_at(self, shapes):
        """Whether this task's program is the one of `shapes`'s revision:
        a task marked with the other revision's marker is not."""
        other = MARKER["kb0" if shapes == "kb1" else "kb1"]
        return other not in self.marker

    def kb_path(self, kb_root):
        """The problem file under an export root (.kb/kb1): the named file,
        or its other spelling (RESPELLED) where the two revisions spell the
        same problem differently; None when that revision has neither (its
        problem of that number is another one, as level 1's 50 at kb0)."""
        d = os.path.join(kb_root, f"level{self.kb_level}")
        for name in (self.kb_file, RESPELLED.get((self.kb_level, self.kb_file))):
            if name and os.path.exists(os.path.join(d, name)):
                return os.path.join(d, name)
        return None


def parse_task(path, tasks_dir):
    """The Task of a .task file, or None when it has no KernelBench source
    line."""
    tid = os.path.relpath(path, tasks_dir)[:-len(".task")]
    level = int(re.match(r"level(\d+)", tid).group(1)) if tid.startswith("level") else -1
    with open(path) as f:
        text = f.read()
    m = SOURCE_RE.search(text)
    if not m:
        return None
    prec = PRECISION_RE.search(text)
    return Task(tid, level, int(m.group(1)), m.group(2), m.group(3).strip(),
                prec.group(1) if prec else "fp32")


def all_tasks(tasks_dir, levels=None):
    """Every task with a KernelBench source line under tasks_dir/level*/,
    in (level, problem number) order; levels limits it (a set of ints)."""
    out = []
    for path in glob.glob(os.path.join(tasks_dir, "level*", "*.task")):
        t = parse_task(path, tasks_dir)
        if t is None:
            print(f"{os.path.relpath(path, tasks_dir)}: no KernelBench source "
                  "line, skipped", file=sys.stderr)
        elif levels is None or t.level in levels:
            out.append(t)
    return sorted(out, key=Task.sort_key)


def add_selection_args(ap):
    """The task-selection options both scripts share."""
    ap.add_argument("ids", nargs="*", metavar="TASK",
                    help="task ids (level2/13_name); default: every task of "
                         "--level (or of every level)")
    ap.add_argument("--tasks", default="tasks", help="the suite's folder")
    ap.add_argument("--level", default="",
                    help="levels to cover, comma-separated (e.g. 2 or 1,2)")
    ap.add_argument("--only", default="", help="regex on task ids")
    ap.add_argument("--list", default="",
                    help="a file of task ids, one a line (# comments)")
    ap.add_argument("--from", dest="from_", type=int, default=0, metavar="I",
                    help="first task of the selection to run, 1-based "
                         "(a slice for one device call)")
    ap.add_argument("--to", type=int, default=0, metavar="J",
                    help="last task of the selection to run, 1-based, inclusive")


def select(args, shapes=None, kb_root=None):
    """The tasks a run covers, in (level, problem number) order: ids /
    --list / --level / --only, then the --from..--to slice (positions in
    that list, so one slice names the same task files in every phase and
    at both shape sets), then, with `shapes`, the revision filter: tasks
    of the other revision are reported on stderr and left out. With
    kb_root (the export of `shapes`'s revision), so are tasks whose file
    that revision does not have, and each kept task's file is t.path."""
    levels = ({int(x) for x in args.level.split(",") if x.strip()}
              if args.level else None)
    tasks = all_tasks(args.tasks, levels)
    want = list(args.ids)
    if args.list:
        with open(args.list) as f:
            want += [ln.split("#", 1)[0].strip() for ln in f]
        want = [w for w in want if w]
    if want:
        by_id = {t.tid: t for t in tasks}
        for w in want:
            if w not in by_id:
                print(f"{w}: no such task with a KernelBench source line",
                      file=sys.stderr)
        wanted = set(want)
        tasks = [t for t in tasks if t.tid in wanted]
    if args.only:
        tasks = [t for t in tasks if re.search(args.only, t.tid)]
    lo = max(args.from_, 1) - 1
    hi = args.to if args.to > 0 else len(tasks)
    tasks = tasks[lo:hi]
    if shapes is None:
        return tasks
    kept = []
    for t in tasks:
        if not t.runs_at(shapes):
            print(f"{t.tid}: another revision's program at {shapes}, skipped",
                  file=sys.stderr)
            continue
        if kb_root is not None:
            t.path = t.kb_path(kb_root)
            if t.path is None:
                print(f"{t.tid}: {kb_root} has no level{t.kb_level}/"
                      f"{t.kb_file} ({shapes}'s revision), skipped",
                      file=sys.stderr)
                continue
        kept.append(t)
    return kept


def main():
    """Lists the selected task ids, one a line (bench/run_gpu.sh's refs
    phase uses it so that its slices match peers.py's and
    ref_vs_torch.py's)."""
    import argparse
    ap = argparse.ArgumentParser(description="list the task ids a benchmark "
                                 "selection covers")
    add_selection_args(ap)
    ap.add_argument("--shapes", default="", choices=("", "kb0", "kb1"),
                    help="also drop tasks of the other revision")
    ap.add_argument("--files", default="",
                    help="with --shapes: the KernelBench export root; print "
                         "each task's problem file too")
    args = ap.parse_args()
    for t in select(args, args.shapes or None,
                    args.files or None if args.shapes else None):
        print(f"{t.tid}\t{t.path}" if t.path else t.tid)


if __name__ == "__main__":
    main()
