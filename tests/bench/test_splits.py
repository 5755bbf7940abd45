#!/usr/bin/env python3
"""CPU tests of the training splits (tasks/splits/levelN.txt, made by
tasks/splits/make_split.py) and of krl train's choice of split (--level,
--list; $KRL_BIN). Run from the repository root (ctest does):
python3 tests/bench/test_splits.py"""
import glob
import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPLITS = os.path.join(ROOT, "tasks", "splits")
sys.path.insert(0, SPLITS)
import make_split  # noqa: E402


def level_ids(level):
    return sorted(f"level{level}/" + os.path.basename(p)[:-len(".task")]
                  for p in glob.glob(os.path.join(ROOT, "tasks", f"level{level}",
                                                  "*.task")))


class Split(unittest.TestCase):
    def check_file(self, level):
        rows, fams = make_split.read_split(os.path.join(SPLITS,
                                                        f"level{level}.txt"))
        ids = [t for t, _ in rows]
        # every task of the level exactly once, nothing else
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(sorted(ids), level_ids(level))
        held = sum(p == "heldout" for _, p in rows)
        self.assertGreater(held / len(rows), 0.25)
        self.assertLess(held / len(rows), 0.35)
        # every family is split, and a kb0 variant goes with its problem
        part = dict(rows)
        for fam, members in fams.items():
            self.assertTrue(any(part[t] == "train" for t in members), fam)
            if len(members) >= 3:
                self.assertTrue(any(part[t] == "heldout" for t in members), fam)
            for t in members:
                parent = make_split.kb0_parent(t, members)
                if parent:
                    self.assertEqual(part[t], part[parent], t)
        return rows, fams

    def test_level1_follows_the_rule(self):
        self.check_file(1)
        self.assertEqual(make_split.check_level1(os.path.join(SPLITS,
                                                              "level1.txt")), [])

    def test_level2(self):
        rows, fams = self.check_file(2)
        self.assertEqual(sorted(fams), sorted(make_split.FAMILY_ORDER))
        # the file is what the rule makes from the tasks as they are now
        # (a task added or re-planned: python3 tasks/splits/make_split.py 2)
        with open(os.path.join(SPLITS, "level2.txt")) as f:
            self.assertEqual(f.read(), make_split.render(
                2, make_split.families_level2(), make_split.FAMILY_ORDER),
                "tasks/splits/level2.txt is stale: run make_split.py 2")
        # the families agree with the names' leading operation
        for fam, members in fams.items():
            lead = fam.split(",")[0]
            for t in members:
                word = t.split("_")[1]
                want = ("convtranspose" if word.startswith("convtranspose")
                        else "conv" if word.startswith("conv") else "gemm")
                self.assertEqual(lead, want, t)
        part = dict(rows)
        self.assertEqual(part["level2/13kb0_convtranspose3d_mean_add_softmax_tanh_scaling"],
                         part["level2/13_convtranspose3d_mean_add_softmax_tanh_scaling"])

    def test_rule(self):
        ids = [f"level9/{i}_x" for i in range(1, 11)]
        part = make_split.assign(ids)
        held = [t for t in ids if part[t] == "heldout"]
        # n = 10, h = 3: i = 3, 6, 9 (0-based)
        self.assertEqual(held, ["level9/4_x", "level9/7_x", "level9/10_x"])
        # a kb0 variant follows its problem and is not counted
        part = make_split.assign(ids + ["level9/4kb0_y"])
        self.assertEqual(part["level9/4kb0_y"], "heldout")
        self.assertEqual(sum(p == "heldout" for p in part.values()), 4)
        # round half to even, as level1.txt was made: 15 problems, 4 held out
        part = make_split.assign([f"level9/{i}_x" for i in range(15)])
        self.assertEqual(sum(p == "heldout" for p in part.values()), 4)

    def test_malformed_line(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("level2/1_conv2d_relu_biasadd test\n")
        self.addCleanup(os.remove, f.name)
        with self.assertRaises(ValueError):
            make_split.read_split(f.name)


@unittest.skipUnless(os.access(os.environ.get("KRL_BIN", ""), os.X_OK),
                     "KRL_BIN (the krl binary) not set")
class Train(unittest.TestCase):
    def krl(self, *args):
        r = subprocess.run([os.environ["KRL_BIN"], "train", *args], cwd=ROOT,
                           capture_output=True, text=True)
        return r.returncode, r.stdout.split(), r.stderr

    def test_level2_split(self):
        rows, _ = make_split.read_split(os.path.join(SPLITS, "level2.txt"))
        rc, out, err = self.krl("--level", "2", "--tasks", "all", "--list")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, [t for t, _ in rows])
        rc, out, err = self.krl("--level", "2", "--eval", "--list")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, [t for t, p in rows if p == "heldout"])

    def test_level1_default_unchanged(self):
        rows, _ = make_split.read_split(os.path.join(SPLITS, "level1.txt"))
        rc, out, err = self.krl("--list")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, [t for t, p in rows if p == "train"])
        rc, out2, _ = self.krl("--split", os.path.join(SPLITS, "level1.txt"),
                               "--list")
        self.assertEqual(out2, out)

    def test_no_such_level(self):
        rc, _, err = self.krl("--level", "99", "--list")
        self.assertNotEqual(rc, 0)
        self.assertIn("splits/level99.txt", err)
        rc, _, err = self.krl("--level", "0", "--list")
        self.assertEqual(rc, 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
