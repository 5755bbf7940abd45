#!/usr/bin/env python3
"""Summarises krl --json records (JSON lines) as a table: one row per
evaluation with verdict, speedup and 95% CI, times, pairs and roofline."""
import json
import sys


def row(r):
    name = r["candidate"].split("/")[-1]
    t = r.get("timing")
    if not t:
        msg = r.get("message", "").split("\n")[0][:70]
        return f"| {name} | {r['verdict']} | | | | | {msg} |"
    sp = t["speedup"]
    rl = r.get("roofline", {})
    return (f"| {name} | {r['verdict']} | {sp['median']:.3f} [{sp['ci_low']:.3f}, {sp['ci_high']:.3f}] "
            f"| {t['ref_ms']['median']:.4f} | {t['cand_ms']['median']:.4f} | {t['pairs']} "
            f"| roofline {rl.get('fraction', 0):.2f} (ref {rl.get('ref_fraction', 0):.2f}), {rl.get('bound', '')}-bound |")


def main():
    for path in sys.argv[1:]:
        print(f"\n{path}\n")
        print("| candidate | verdict | speedup [95% CI] | ref ms | cand ms | pairs | notes |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        secs = 0.0
        n = 0
        for line in open(path):
            r = json.loads(line)
            secs += r.get("eval_seconds", 0)
            n += 1
            print(row(r))
        print(f"\n{n} evaluations, {secs:.1f} s of evaluation time, {60 * n / secs:.1f} evaluations per minute")


if __name__ == "__main__":
    main()
