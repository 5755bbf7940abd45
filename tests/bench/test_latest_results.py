#!/usr/bin/env python3
"""CPU tests of bench/latest_results.py (the latest result of every problem
across results folders) on fixture folders. Run from the repository root
(ctest does): python3 tests/bench/test_latest_results.py"""
import io
import json
import math
import os
import shutil
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import latest_results  # noqa: E402


def line(problem, vs, date, commit="a" * 40, verdict="ok", shapes="kb1",
         peers=True):
    r = {"problem": problem, "shapes": shapes, "verdict": verdict,
         "best_ms": 1.0, "date": date, "commit": commit}
    if peers:
        r.update(vs_best_torch=vs, vs_eager=2 * vs, best_torch_ms=vs,
                 best_torch_peer="compile")
    return json.dumps(r)


class LatestResults(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="krl-latest-")

    def tearDown(self):
        shutil.rmtree(self.d)

    def write(self, folder, lines, level=2, shapes="kb1"):
        os.makedirs(os.path.join(self.d, folder), exist_ok=True)
        with open(os.path.join(self.d, folder,
                               f"optimize-level{level}-{shapes}.jsonl"), "w") as f:
            f.write("\n".join(lines) + "\n")

    def run_main(self, *args):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            rc = latest_results.main(["--root", self.d, *args])
        return rc, out.getvalue(), err.getvalue()

    def test_latest_by_date_not_by_folder_name(self):
        # "z-old" sorts after "a-new" but holds the older line of p1
        self.write("z-old", [line("level2/p1", 0.5, "2026-12-01T00:00:00Z", "1" * 40),
                             line("level2/p2", 1.2, "2026-12-01T00:00:00Z", "1" * 40)])
        self.write("a-new", [line("level2/p1", 0.9, "2026-12-03T00:00:00Z", "2" * 40)])
        best, nopeers, files = latest_results.collect(self.d, 2, "kb1")
        self.assertEqual(len(files), 2)
        self.assertEqual(best["level2/p1"]["vs_best_torch"], 0.9)
        self.assertEqual(best["level2/p2"]["vs_best_torch"], 1.2)
        self.assertEqual(nopeers, {})
        rc, out, _ = self.run_main()
        self.assertEqual(rc, 0)
        self.assertIn("2 problems, latest result each (2 commits;", out)
        self.assertIn("%.3fx of the best" % math.sqrt(0.9 * 1.2), out)
        self.assertIn("%.3fx over eager" % math.sqrt(1.8 * 2.4), out)
        self.assertIn("1 below 0.97", out)
        self.assertIn("level2/p1 0.900x", out)
        self.assertNotIn("level2/p2 1.200x", out)

    def test_skips_failures_other_sets_and_counts_missing_peers(self):
        self.write("s1", [line("level2/p1", 1.1, "2026-12-01T00:00:00Z"),
                          line("level2/p1", 0.1, "2026-12-05T00:00:00Z",
                               verdict="wrong_output"),
                          line("level2/p2", 0.2, "2026-12-05T00:00:00Z",
                               shapes="tiny,kb0"),
                          line("level2/p3", 0, "2026-12-05T00:00:00Z", peers=False),
                          "not json"])
        best, nopeers, _ = latest_results.collect(self.d, 2, "kb1")
        self.assertEqual(sorted(best), ["level2/p1"])
        self.assertEqual(best["level2/p1"]["vs_best_torch"], 1.1)
        self.assertEqual(sorted(nopeers), ["level2/p3"])
        rc, out, _ = self.run_main("--md", "--below", "1.2")
        self.assertEqual(rc, 0)
        self.assertIn("- 1 problems", out)
        self.assertIn("| level2/p1 | 1.100 |", out)
        self.assertIn("1 with an ok result but no peers: level2/p3", out)

    def test_level_and_set_select_the_file_and_nothing_is_status_2(self):
        self.write("s1", [line("level2/p1", 1.0, "2026-12-01T00:00:00Z",
                               shapes="kb0")], shapes="kb0")
        rc, out, err = self.run_main()
        self.assertEqual(rc, 2)
        self.assertIn("no ok line with peers in optimize-level2-kb1.jsonl", err)
        rc, out, _ = self.run_main("--shapes", "kb0")
        self.assertEqual(rc, 0)
        self.assertIn("1 problems", out)


if __name__ == "__main__":
    unittest.main()
