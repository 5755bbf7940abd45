#!/usr/bin/env python3
"""CPU tests of bench/split_by_device.py (which device each finished
problem's peers are timed on; the per-device peers files merged into one)
and of bench/run_gpu.sh's level phase with stand-ins for krl and
bench/peers.py: one peers process per device the results name, each with
--device, its share of the compile workers and its own file and log, merged
without duplicates across reruns; with one device, the call of before. Run
from the repository root (ctest does):
python3 tests/bench/test_split_by_device.py"""
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import split_by_device as sbd  # noqa: E402


def write(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write((r if isinstance(r, str) else json.dumps(r)) + "\n")


def res(problem, device=None, shapes="kb1"):
    r = {"problem": problem, "shapes": shapes, "best_ms": 1.0, "ref_ms": 2.0,
         "verdict": "ok"}
    if device is not None:
        r.update(device=device, gpu_uuid=f"{device:032x}", gpu="NVIDIA H200")
    return r


class Split(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="krl-split-")
        self.addCleanup(shutil.rmtree, self.d)

    def path(self, name):
        return os.path.join(self.d, name)

    def test_latest_line_at_the_set(self):
        write(self.path("r.jsonl"), [
            res("level1/19_relu", 0),
            res("level1/19_relu", 1),                 # a resumed run: latest
            res("level1/21_sigmoid", 3, shapes="tiny,kb0"),  # another set
            res("tasks/level1/21_sigmoid.task", 2, shapes="tiny,kb1"),
            "not json",
            res("level1/22_tanh"),                    # no device recorded
        ])
        self.assertEqual(sbd.latest_devices(self.path("r.jsonl"), "kb1"),
                         {"level1/19_relu": 1, "level1/21_sigmoid": 2,
                          "level1/22_tanh": None})
        self.assertEqual(sbd.latest_devices(self.path("r.jsonl"), "kb0"),
                         {"level1/21_sigmoid": 3})
        self.assertEqual(sbd.latest_devices(self.path("none.jsonl"), "kb1"), {})

    def test_split_in_order_with_fallback_and_skip(self):
        devs = {"a": 1, "b": 2, "c": None, "d": 1, "e": 2}
        self.assertEqual(sbd.split(["a", "b", "c", "d", "e", "f"], devs),
                         {1: ["a", "c", "d", "f"], 2: ["b", "e"]})
        self.assertEqual(sbd.split(["a", "b", "d"], devs, skip={"b"}),
                         {1: ["a", "d"]})
        # no device named at all: the default device, as before
        self.assertEqual(sbd.split(["x", "y"], {"x": None}), {0: ["x", "y"]})

    def test_cli_split(self):
        write(self.path("r.jsonl"), [res("level1/19_relu", 0),
                                     res("level1/21_sigmoid", 1),
                                     res("level1/22_tanh", 1),
                                     res("level1/23_softmax", 0)])
        with open(self.path("done.txt"), "w") as f:
            f.write("level1/19_relu\nlevel1/21_sigmoid\nlevel1/22_tanh\n"
                    "level1/23_softmax\n")
        # 23's peers are timed already
        write(self.path("p.jsonl"), [{"task": "level1/23_softmax",
                                      "shapes": "kb1"},
                                     {"task": "level1/21_sigmoid",
                                      "shapes": "kb0"}])
        buf = io.StringIO()
        with redirect_stdout(buf):
            rc = sbd.main(["split", self.path("r.jsonl"), "kb1",
                           self.path("done.txt"), self.path("pf"),
                           "--skip", self.path("p.jsonl")])
        self.assertEqual(rc, 0)
        self.assertEqual(buf.getvalue().split(), ["0", "1"])
        with open(self.path("pf.dev0.txt")) as f:
            self.assertEqual(f.read().split(), ["level1/19_relu"])
        with open(self.path("pf.dev1.txt")) as f:
            self.assertEqual(f.read().split(), ["level1/21_sigmoid",
                                                "level1/22_tanh"])
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            self.assertEqual(sbd.main(["split", "too", "few"]), 2)

    def test_merge_adds_nothing_twice(self):
        write(self.path("p.jsonl"), [{"task": "a", "shapes": "kb1", "n": 0}])
        write(self.path("p.dev0.jsonl"), [{"task": "a", "shapes": "kb1", "n": 1},
                                          {"task": "b", "shapes": "kb1", "n": 2},
                                          '{"task": "cut by a k'])
        write(self.path("p.dev1.jsonl"), [{"task": "c", "shapes": "kb1", "n": 3},
                                          {"task": "b", "shapes": "kb1", "n": 4},
                                          {"task": "a", "shapes": "kb0", "n": 5}])
        parts = [self.path("p.dev0.jsonl"), self.path("p.dev1.jsonl")]
        self.assertEqual(sbd.merge(self.path("p.jsonl"), parts), 3)
        self.assertEqual(sbd.merge(self.path("p.jsonl"), parts), 0)
        with open(self.path("p.jsonl")) as f:
            got = [json.loads(ln)["n"] for ln in f]
        self.assertEqual(got, [0, 2, 3, 5])
        # into a file that is not there yet
        self.assertEqual(sbd.merge(self.path("new.jsonl"), parts), 4)


# A stand-in for krl optimize: one results line per task, measured on
# device $FAKE_BASE + i % $FAKE_NDEV (worker i), as the worker pool writes
# them.
FAKE_KRL = r"""#!/usr/bin/env python3
import json, os, sys
args = sys.argv[2:]
tasks, res, shapes, i = [], None, None, 0
while i < len(args):
    a = args[i]
    if a in ("--results", "--shapes"):
        if a == "--results":
            res = args[i + 1]
        else:
            shapes = args[i + 1]
        i += 2
    elif a.startswith("--"):
        i += 2
    else:
        tasks.append(a); i += 1
n = int(os.environ.get("FAKE_NDEV", "2"))
b = int(os.environ.get("FAKE_BASE", "0"))
with open(res, "a") as f:
    for k, t in enumerate(tasks):
        f.write(json.dumps({"problem": t, "shapes": shapes, "best_ms": 1.0,
                            "ref_ms": 2.0, "speedup": 2.0, "verdict": "ok",
                            "gpu": "NVIDIA H200",
                            "gpu_uuid": "%032x" % (b + k % n),
                            "device": b + k % n}) + "\n")
"""

# A stand-in for bench/peers.py: a line per listed task not yet in --out,
# on the GPU of --device; its command line to peers-calls.jsonl.
FAKE_PEERS = r"""#!/usr/bin/env python3
import json, os, sys
a = sys.argv[1:]
opt = {a[i]: a[i + 1] for i in range(len(a) - 1) if a[i].startswith("--")}
dev = int(opt.get("--device", "0"))
with open(os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "peers-calls.jsonl"), "a") as f:
    f.write(json.dumps(a) + "\n")
out, shapes = opt["--out"], opt["--shapes"]
done = set()
if os.path.exists(out):
    done = {json.loads(ln)["task"] for ln in open(out)}
with open(opt["--list"]) as f:
    todo = [t for t in f.read().split() if t not in done]
with open(out, "a") as f:
    for t in todo:
        f.write(json.dumps({"task": t, "shapes": shapes, "torch_eager_ms": 4.0,
                            "best_torch_ms": 4.0, "best_torch_peer": "eager",
                            "gpu": "NVIDIA H200", "gpu_uuid": "%032x" % dev,
                            "device": dev, "commit": "c" * 40}) + "\n")
print(f"peers: {len(todo)} to time on device {dev}", file=sys.stderr)
"""


# What run_gpu.sh's level phase reads, kept out of the caller's environment.
RUN_GPU_VARS = ("TASKS", "TASK_LIST", "ONLY", "SHAPES", "BUDGET", "WORKERS",
                "PEERS", "PEERS_BUDGET", "PEERS_CACHE", "KB", "PACK",
                "REASONS", "LEVEL_SECONDS", "OPT_SECONDS", "KRL_OPT_ARGS")


class RunGpuLevel(unittest.TestCase):
    def setUp(self):
        self.d = d = tempfile.mkdtemp(prefix="krl-level-")
        self.addCleanup(shutil.rmtree, d)
        os.symlink(os.path.join(ROOT, "tasks"), os.path.join(d, "tasks"))
        # bench/ with the real scripts, peers.py a stand-in
        os.makedirs(os.path.join(d, "bench"))
        for name in os.listdir(os.path.join(ROOT, "bench")):
            if name.endswith((".py", ".sh")) and name != "peers.py":
                os.symlink(os.path.join(ROOT, "bench", name),
                           os.path.join(d, "bench", name))
        for rel, text in (("bench/peers.py", FAKE_PEERS),
                          ("build/krl", FAKE_KRL)):
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w") as f:
                f.write(text)
            os.chmod(os.path.join(d, rel), 0o755)

    def level(self, ndev, **env):
        # this python3 first (run_gpu.sh calls python3)
        path = os.path.dirname(sys.executable) + ":/usr/bin:/bin"
        e = {k: v for k, v in os.environ.items() if k not in RUN_GPU_VARS}
        e.update(PATH=path, KRL_COMMIT="c" * 40,
                 KRL_SESSION="s1", FAKE_NDEV=str(ndev), LEVEL="2",
                 TASKS_FROM="1", TASKS_TO="5", OUT="out", WORK="work",
                 PEERS_WORKERS="8", **env)
        r = subprocess.run(["bash", "bench/run_gpu.sh", "level"], cwd=self.d,
                           env=e, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r

    def calls(self):
        p = os.path.join(self.d, "peers-calls.jsonl")
        if not os.path.exists(p):
            return []
        with open(p) as f:
            return [json.loads(ln) for ln in f]

    def lines(self, rel):
        with open(os.path.join(self.d, rel)) as f:
            return [json.loads(ln) for ln in f]

    def test_two_devices(self):
        w = "work/opt-level2-kb1"
        r = self.level(2)
        calls = self.calls()
        self.assertEqual(len(calls), 2, r.stdout)
        by_dev = {}
        for c in calls:
            o = {c[i]: c[i + 1] for i in range(len(c) - 1)}
            by_dev[int(o["--device"])] = o
            self.assertEqual(o["--compile-workers"], "4")  # 8 over 2
            self.assertEqual(o["--cpu-share"], "0.5")
        self.assertEqual(sorted(by_dev), [0, 1])
        self.assertTrue(by_dev[1]["--out"].endswith("peers_level2_kb1.dev1.jsonl"))
        for dev in (0, 1):
            self.assertTrue(os.path.exists(
                os.path.join(self.d, "out", f"peers.dev{dev}.log")))
        # tasks 1, 3, 5 on device 0; 2, 4 on device 1 (the stand-in's pool)
        with open(os.path.join(self.d, w, "peers_level2_kb1.dev1.txt")) as f:
            self.assertEqual(len(f.read().split()), 2)
        merged = self.lines(f"{w}/peers_level2_kb1.jsonl")
        self.assertEqual(len(merged), 5)
        results = {ln["problem"]: ln["device"]
                   for ln in self.lines(f"{w}/optimize-level2-kb1.jsonl")}
        for p in merged:
            self.assertEqual(p["device"], results[p["task"]], p["task"])
        joined = self.lines("out/optimize-level2-kb1.jsonl")
        self.assertEqual(len(joined), 5)
        for j in joined:
            self.assertNotIn("peers_gpu_mismatch", j)
            self.assertEqual(j["peers_device"], j["device"])
        self.assertIn("5 tasks on 2 devices (0 1)", r.stdout)
        self.assertIn("5 lines merged from 2 devices", r.stdout)
        # a rerun times nothing again and adds no line twice
        self.level(2)
        self.assertEqual(len(self.lines(f"{w}/peers_level2_kb1.jsonl")), 5)
        self.assertEqual(len(self.lines("out/optimize-level2-kb1.jsonl")), 5)
        # a per-device line a killed call left unmerged is merged first
        with open(os.path.join(self.d, w, "peers_level2_kb1.jsonl")) as f:
            keep = f.readlines()
        with open(os.path.join(self.d, w, "peers_level2_kb1.jsonl"), "w") as f:
            f.writelines(keep[:-1])
        r = self.level(2)
        self.assertIn("1 lines of earlier per-device files merged", r.stdout)
        self.assertEqual(len(self.lines(f"{w}/peers_level2_kb1.jsonl")), 5)

    def test_one_device_as_before(self):
        r = self.level(1)
        calls = self.calls()
        self.assertEqual(len(calls), 1, r.stdout)
        c = calls[0]
        self.assertNotIn("--device", c)
        self.assertNotIn("--cpu-share", c)
        o = {c[i]: c[i + 1] for i in range(len(c) - 1)}
        self.assertEqual(o["--compile-workers"], "8")
        self.assertTrue(o["--out"].endswith("opt-level2-kb1/peers_level2_kb1.jsonl"))
        self.assertTrue(o["--list"].endswith("opt-level2-kb1/done.txt"))
        self.assertTrue(os.path.exists(os.path.join(self.d, "out", "peers.log")))
        w = os.path.join(self.d, "work", "opt-level2-kb1")
        self.assertEqual([n for n in os.listdir(w) if ".dev" in n], [])
        self.assertIn("peers kb1 (try 1): exit 0, 5 lines in "
                      "peers_level2_kb1.jsonl", r.stdout)

    def test_one_other_device(self):
        # krl optimize --device 1 (KRL_OPT_ARGS), one worker: the peers on
        # device 1 too, into the usual file
        r = self.level(1, FAKE_BASE="1")
        calls = self.calls()
        self.assertEqual(len(calls), 1, r.stdout)
        o = {calls[0][i]: calls[0][i + 1] for i in range(len(calls[0]) - 1)}
        self.assertEqual(o["--device"], "1")
        self.assertEqual(o["--compile-workers"], "8")
        self.assertNotIn("--cpu-share", o)
        self.assertIn("peers kb1 on device 1 (try 1): exit 0, 5 lines in "
                      "peers_level2_kb1.jsonl", r.stdout)
        for j in self.lines("out/optimize-level2-kb1.jsonl"):
            self.assertEqual(j["peers_device"], 1)
            self.assertNotIn("peers_gpu_mismatch", j)


if __name__ == "__main__":
    unittest.main(verbosity=2)
