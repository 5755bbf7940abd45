#!/usr/bin/env python3
"""
Prints the dependency cycles among the files of one src/ folder, read from
the object files of a build: file A depends on file B when A's object
refers to a symbol (function or data) that B's object defines. Each
strongly connected component of more than one file is a cycle; it is
printed with the symbols that tie it together. Exit status 1 when there is
a cycle, 0 when there is none, 2 on a usage error.

    python3 scripts/depcycles.py [--build build] [--verbose] src/opt

Reads `nm` on build/CMakeFiles/*/<folder>/*.o (the objects CMake makes of
that folder's sources). Python 3 standard library only.
"""
import argparse
import glob
import os
import subprocess
import sys


def symbols(obj):
    """(defined, undefined) external symbol names of one object file."""
    out = subprocess.run(["nm", "-P", obj], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        name, kind = f[0], f[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRCGSVW" and kind.isupper():
            defined.add(name)
    return defined, undefined


def sccs(nodes, edges):
    """Tarjan's strongly connected components (iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", help="a source folder, e.g. src/opt")
    ap.add_argument("--build", default="build", help="the build folder")
    ap.add_argument("--verbose", action="store_true",
                    help="print every file's dependencies too")
    a = ap.parse_args()
    folder = a.folder.rstrip("/")
    objs = sorted(glob.glob(os.path.join(a.build, "CMakeFiles", "*",
                                         folder, "*.o")))
    if not objs:
        print(f"depcycles: no object files for {folder} under "
              f"{a.build}/CMakeFiles (build first)", file=sys.stderr)
        return 2
    files = {}
    for o in objs:
        name = os.path.basename(o)[:-2]          # "graph.c"
        files[name] = symbols(o)
    owner = {}
    for f, (defined, _) in files.items():
        for s in defined:
            owner.setdefault(s, f)
    edges = {f: set() for f in files}
    why = {}
    for f, (_, undefined) in files.items():
        for s in undefined:
            g = owner.get(s)
            if g and g != f:
                edges[f].add(g)
                why.setdefault((f, g), []).append(s)
    if a.verbose:
        for f in sorted(files):
            print(f"{f} -> {', '.join(sorted(edges[f])) or '(nothing)'}")
    cycles = [c for c in sccs(files, edges) if len(c) > 1]
    for c in cycles:
        print(f"cycle of {len(c)} files in {folder}: {' '.join(c)}")
        members = set(c)
        for f in c:
            for g in sorted(edges[f] & members):
                syms = sorted(why[(f, g)])
                more = f" (+{len(syms) - 4})" if len(syms) > 4 else ""
                print(f"  {f} -> {g}: {', '.join(syms[:4])}{more}")
    if not cycles:
        print(f"{folder}: {len(files)} files, no dependency cycle")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
