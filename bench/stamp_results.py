#!/usr/bin/env python3
"""bench/stamp_results: adds fields to the JSON lines of a results file
that do not have them yet, in place.

`krl optimize --results` records the commit and date of each problem, not
the GPU or the device call. bench/optimize_level.sh calls this after every
`krl optimize`, so the lines that call wrote (and only those: earlier
lines already carry the fields) get the GPU and the call's session id,
which bench/join_peers.py compares with the peers':

    python3 bench/stamp_results.py FILE gpu="NVIDIA H200" session=ID

A KEY=VALUE whose VALUE is empty is not added. Lines that are not JSON
objects are kept as they are. The file is replaced atomically.
"""
import json
import os
import sys


def stamp(path, fields):
    """Adds each of fields (a dict) to the lines of path that lack the key;
    returns the number of lines changed."""
    fields = {k: v for k, v in fields.items() if v != ""}
    if not fields or not os.path.exists(path):
        return 0
    changed = 0
    out = []
    with open(path) as f:
        for ln in f:
            try:
                r = json.loads(ln)
            except ValueError:
                out.append(ln if ln.endswith("\n") else ln + "\n")
                continue
            if not isinstance(r, dict):
                out.append(ln if ln.endswith("\n") else ln + "\n")
                continue
            add = {k: v for k, v in fields.items() if k not in r}
            if add:
                r.update(add)
                changed += 1
                ln = json.dumps(r) + "\n"
            out.append(ln if ln.endswith("\n") else ln + "\n")
    tmp = path + ".stamp.tmp"
    with open(tmp, "w") as f:
        f.writelines(out)
    os.replace(tmp, path)
    return changed


def main(argv):
    if len(argv) < 2 or any("=" not in a for a in argv[1:]):
        sys.exit("usage: stamp_results.py FILE KEY=VALUE...")
    fields = dict(a.split("=", 1) for a in argv[1:])
    n = stamp(argv[0], fields)
    print(f"stamp_results: {n} lines of {argv[0]} stamped "
          f"({', '.join(sorted(k for k, v in fields.items() if v))})",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
