#!/usr/bin/env python3
"""bench/split_by_device: which GPU each finished problem's peers are timed
on, and the per-device peers files merged back into one (issue 20).

`krl optimize --workers N` searches its problems on N devices, and every
result line names the device it was measured on (`device`, the ordinal among
the visible ones; `gpu_uuid`). bench/run_gpu.sh's level phase times each
problem's PyTorch peers (bench/peers.py) on that same device: one peers.py
per device, all at once, each on its share of the problems.

    split RESULTS SET DONE PREFIX [--skip PEERS]
        For each task id in DONE (one a line, bench/optimize_level.sh's
        done.txt), the device of its latest line in RESULTS at timing set SET
        (the last of "tiny,kb1"). Tasks that already have a line at SET in
        PEERS are left out (their peers are timed). Prints the devices that
        have tasks, one a line, ascending, and, when they are several,
        writes PREFIX.devD.txt, the tasks for device D in DONE's order
        (with one device, DONE is the list, as before). A task whose latest
        line names no device (a line from before krl recorded it, or a
        failed problem, which has no measurement) goes with the lowest
        device the others name, or 0 when none does: the default device,
        as before.
    merge PEERS PART...
        Appends to PEERS the lines of each PART whose task and shapes PEERS
        does not hold yet (the first PART's line wins), so that a rerun adds
        nothing twice; a line cut by a kill is not copied (peers.py --resume
        times that task again). Prints how many lines it added.

Needs no torch.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from join_peers import task_id, timing_set  # noqa: E402


def _lines(path):
    """The JSON objects of a JSON lines file (none when it is absent); lines
    that are not JSON objects (cut by a kill) are skipped."""
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for ln in f:
            try:
                r = json.loads(ln)
            except ValueError:
                continue
            if isinstance(r, dict):
                out.append(r)
    return out


def latest_devices(results, shapes):
    """{task id: device ordinal or None} from the latest line of each
    problem at timing set `shapes` in the results file (a resumed run writes
    its problem again: the later line is the one reported)."""
    out = {}
    for r in _lines(results):
        tid = task_id(r.get("problem") or r.get("task"))
        if not tid or timing_set(r.get("shapes")) != timing_set(shapes):
            continue
        d = r.get("device")
        out[tid] = d if isinstance(d, int) and not isinstance(d, bool) \
            and d >= 0 else None
    return out


def peers_done(path, shapes):
    """Task ids that have a peers line at `shapes` in path."""
    return {task_id(r["task"]) for r in _lines(path)
            if "task" in r and timing_set(r.get("shapes")) == timing_set(shapes)}


def split(done, devices, skip=()):
    """{device: [task id, ...]} for the task ids in `done` (in its order)
    not in `skip`, by `devices` ({task id: ordinal or None}); a task with no
    device goes with the lowest named one, or 0."""
    named = sorted({d for d in devices.values() if d is not None})
    fallback = named[0] if named else 0
    out = {}
    for tid in done:
        if tid in skip:
            continue
        d = devices.get(tid)
        out.setdefault(fallback if d is None else d, []).append(tid)
    return out


def merge(peers, parts):
    """Appends to `peers` the lines of `parts` whose (task, shapes) it does
    not hold; returns how many were added."""
    have = {(task_id(r["task"]), timing_set(r.get("shapes")))
            for r in _lines(peers) if "task" in r}
    add = []
    for p in parts:
        for r in _lines(p):
            if "task" not in r:
                continue
            key = (task_id(r["task"]), timing_set(r.get("shapes")))
            if key not in have:
                have.add(key)
                add.append(r)
    if add:
        with open(peers, "a") as f:
            for r in add:
                f.write(json.dumps(r) + "\n")
    return len(add)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    usage = ("usage: split_by_device.py split RESULTS SET DONE PREFIX "
             "[--skip PEERS]\n       split_by_device.py merge PEERS PART...")
    if argv[:1] == ["split"] and len(argv) in (5, 7) and \
            (len(argv) == 5 or argv[5] == "--skip"):
        results, shapes, done_path, prefix = argv[1:5]
        skip = peers_done(argv[6], shapes) if len(argv) == 7 else set()
        with open(done_path) as f:
            done = [task_id(ln) for ln in f if ln.strip()]
        groups = split(done, latest_devices(results, shapes), skip)
        for d in sorted(groups):
            if len(groups) > 1:  # one device: DONE itself is its list
                with open(f"{prefix}.dev{d}.txt", "w") as f:
                    f.write("".join(t + "\n" for t in groups[d]))
            print(d)
        return 0
    if argv[:1] == ["merge"] and len(argv) >= 2:
        print(merge(argv[1], argv[2:]))
        return 0
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
