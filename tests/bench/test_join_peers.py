#!/usr/bin/env python3
"""CPU tests of bench/join_peers.py (optimize results joined with PyTorch's
peers, the headline figures, the GPU each side was measured on),
bench/stamp_results.py, bench/peers.py's GPU uuid and bench/optimize_level.sh
(with a stand-in krl), on fixture lines. Run from the repository root
(ctest does): python3 tests/bench/test_join_peers.py"""
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import join_peers  # noqa: E402
import peers as peers_py  # noqa: E402  (no torch needed to import it)
import stamp_results  # noqa: E402

TASKS = os.path.join(ROOT, "tasks")
COMMIT = "c" * 40
# Two GPUs' uuids as krl writes them (src/runtime/device.c: 32 hex digits).
UUID0 = "5d0b8a1e3c2f4a6b9e7d1c0f2a3b4c5d"
UUID1 = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"


def opt(problem, best, ref, shapes="kb1", verdict="ok", roofline=0.5, **kw):
    """A `krl optimize --results` line (times in ms)."""
    r = {"problem": problem, "shapes": shapes, "ref_ms": ref, "best_ms": best,
         "speedup": ref / best if best and ref else None, "ci_low": None,
         "ci_high": None, "roofline": roofline, "verdict": verdict,
         "evaluations": 8, "commit": COMMIT, "date": "2026-12-02T05:00:00Z"}
    r.update(kw)
    return r


def peer(task, eager, graph, compile_, shapes="kb1", kb="", **kw):
    """A bench/peers.py line (call times in ms; compile time in seconds)."""
    ms = {"eager": eager, "graph": graph, "compile": compile_}
    ran = {k: v for k, v in ms.items() if v is not None}
    best = min(ran, key=ran.get)
    r = {"task": task, "level": int(task[5]), "kernelbench": kb,
         "shapes": shapes, "torch_version": "2.11.0+cu130",
         "gpu": "NVIDIA H200", "commit": COMMIT, "session": "s1",
         "date": "2026-12-02T05:01:00Z", "torch_compile_s": 42.0,
         "best_torch_ms": ran[best], "best_torch_peer": best}
    for k, v in ms.items():
        if v is not None:
            r[f"torch_{k}_ms"] = v
    r.update(kw)
    return r


def write(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


class Join(unittest.TestCase):
    def setUp(self):
        self.tasks = join_peers.Tasks(TASKS)

    def joined(self, opts, peers):
        o = {(join_peers.task_id(r["problem"]),
              join_peers.timing_set(r["shapes"])): r for r in opts}
        p = {(r["task"], r["shapes"]): r for r in peers}
        return {j["problem"]: j for j in join_peers.join(o, p, self.tasks)}

    def test_columns_and_ratios(self):
        j = self.joined([opt("level1/19_relu", 2.0, 2.2, session="s1",
                             gpu="NVIDIA H200")],
                        [peer("level1/19_relu", 3.0, 2.5, 4.0)])["level1/19_relu"]
        self.assertEqual(j["torch_eager_ms"], 3.0)
        self.assertEqual(j["torch_graph_ms"], 2.5)
        self.assertEqual(j["torch_compile_ms"], 4.0)
        self.assertEqual(j["best_torch_ms"], 2.5)
        self.assertEqual(j["best_torch_peer"], "graph")
        # peer ms / kernelrl's best ms; compile seconds are never a call time
        self.assertAlmostEqual(j["vs_eager"], 1.5)
        self.assertAlmostEqual(j["vs_graph"], 1.25)
        self.assertAlmostEqual(j["vs_compile"], 2.0)
        self.assertAlmostEqual(j["vs_best_torch"], 1.25)
        self.assertEqual(j["torch_compile_s"], 42.0)
        self.assertEqual(j["peers_commit"], COMMIT)
        self.assertEqual(j["peers_session"], "s1")
        self.assertIs(j["peers_same_session"], True)
        self.assertNotIn("peers_missing", j)
        # the optimize fields are kept as they were
        self.assertEqual(j["ref_ms"], 2.2)
        self.assertEqual(j["best_ms"], 2.0)
        self.assertEqual(j["commit"], COMMIT)

    def test_failed_peer_and_other_session(self):
        p = peer("level1/19_relu", 3.0, None, 4.0,
                 torch_graph_error="RuntimeError: capture failed",
                 session="s2")
        j = self.joined([opt("level1/19_relu", 2.0, 2.2, session="s1")],
                        [p])["level1/19_relu"]
        self.assertEqual(j["torch_graph_error"], "RuntimeError: capture failed")
        self.assertIsNone(j["vs_graph"])
        self.assertAlmostEqual(j["vs_best_torch"], 1.5)
        self.assertIs(j["peers_same_session"], False)
        self.assertEqual(j["gpu"], "NVIDIA H200")  # from the peers

    def test_sibling_file_and_other_revision(self):
        kb = "level1/12_Matmul_with_diagonal_matrices_.py"
        opts = [opt("level1/12kb0_diag_matmul", 0.1, 5.0, shapes="tiny,kb0"),
                opt("level1/12kb0_diag_matmul", 0.2, 9.0),
                opt("level1/12_diag_mul", 0.3, 3.0)]
        peers = [peer("level1/12_diag_mul", 4.0, 4.0, 0.5, shapes="kb0", kb=kb),
                 peer("level1/12_diag_mul", 6.0, 6.0, 0.6, kb=kb)]
        o = {(join_peers.task_id(r["problem"]),
              join_peers.timing_set(r["shapes"])): r for r in opts}
        p = {(r["task"], r["shapes"]): r for r in peers}
        rows = {(j["problem"], j["shapes"]): j
                for j in join_peers.join(o, p, self.tasks)}
        # kb0: 12kb0 has no peers line of its own; 12's (same file) is used
        j = rows[("level1/12kb0_diag_matmul", "tiny,kb0")]
        self.assertEqual(j["peers_task"], "level1/12_diag_mul")
        self.assertAlmostEqual(j["vs_best_torch"], 5.0)
        # kb1: 12kb0 is the other revision's program: no problem to compare
        j = rows[("level1/12kb0_diag_matmul", "kb1")]
        self.assertIn("another revision", j["peers_missing"])
        self.assertNotIn("vs_best_torch", j)
        j = rows[("level1/12_diag_mul", "kb1")]
        self.assertAlmostEqual(j["vs_best_torch"], 2.0)
        self.assertNotIn("peers_task", j)

    def test_missing_peers(self):
        j = self.joined([opt("level1/23_softmax", 1.0, 2.0)], [])["level1/23_softmax"]
        self.assertIn("no peers line", j["peers_missing"])

    def test_rejoin_keeps_and_replaces_columns(self):
        first = self.joined([opt("level1/19_relu", 2.0, 2.2)],
                            [peer("level1/19_relu", 3.0, None, 4.0,
                                  torch_graph_error="boom")])["level1/19_relu"]
        # a joined line re-read without peers keeps its columns
        again = self.joined([first], [])["level1/19_relu"]
        self.assertEqual(again, first)
        # with a new peers line, the old columns (the error) go
        new = self.joined([first], [peer("level1/19_relu", 3.0, 2.0, 4.0)])
        self.assertNotIn("torch_graph_error", new["level1/19_relu"])
        self.assertAlmostEqual(new["level1/19_relu"]["vs_best_torch"], 1.0)


def run_main(test, opts, peers, files=None, extra=()):
    """join_peers.main on fixture files; files: {name: text} written next to
    them, DIR in extra naming their folder. Returns (joined rows, the
    markdown, stdout, stderr)."""
    d = tempfile.mkdtemp()
    test.addCleanup(shutil.rmtree, d)
    write(os.path.join(d, "opt.jsonl"), opts)
    write(os.path.join(d, "peers.jsonl"), peers)
    for name, text in (files or {}).items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    out, md = os.path.join(d, "joined.jsonl"), os.path.join(d, "t.md")
    buf, err = io.StringIO(), io.StringIO()
    with redirect_stdout(buf), redirect_stderr(err):
        rc = join_peers.main([os.path.join(d, "opt.jsonl"), "--peers",
                              os.path.join(d, "peers.jsonl"), "--tasks",
                              TASKS, "--out", out, "--md", md,
                              *[a.replace("DIR", d) for a in extra]])
    test.assertEqual(rc, 0)
    with open(out) as f:
        rows = [json.loads(ln) for ln in f]
    with open(md) as f:
        text = f.read()
    return rows, text, buf.getvalue(), err.getvalue()


class SameGpu(unittest.TestCase):
    """Issue 20: a problem's peers on the GPU its result was measured on,
    or the joined line says they were not."""

    def test_matching_uuids_join_cleanly(self):
        rows, text, _, err = run_main(
            self,
            [opt("level1/19_relu", 1.0, 2.0, gpu_uuid=UUID0, device=0),
             opt("level1/21_sigmoid", 1.0, 2.0, gpu_uuid=UUID1, device=1)],
            [peer("level1/19_relu", 4.0, 3.0, 2.0, gpu_uuid=UUID0, device=0),
             # the same GPU in nvidia-smi's form compares equal
             peer("level1/21_sigmoid", 4.0, 3.0, 2.0, device=1,
                  gpu_uuid="GPU-0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0")])
        by = {r["problem"]: r for r in rows}
        for tid, uuid, dev in (("level1/19_relu", UUID0, 0),
                               ("level1/21_sigmoid", UUID1, 1)):
            self.assertNotIn("peers_gpu_mismatch", by[tid])
            self.assertEqual(by[tid]["peers_device"], dev)
            self.assertEqual(by[tid]["device"], dev)
            self.assertEqual(join_peers.norm_uuid(by[tid]["peers_gpu_uuid"]),
                             uuid)
        self.assertAlmostEqual(by["level1/19_relu"]["vs_best_torch"], 2.0)
        self.assertEqual(err, "")
        self.assertIn("- GPUs by uuid: 2 (results on 2, peers on 2)", text)
        self.assertNotIn("another GPU", text)

    def test_mismatching_uuids_flagged(self):
        rows, text, out, err = run_main(
            self,
            [opt("level1/19_relu", 1.0, 2.0, gpu_uuid=UUID1, device=1),
             opt("level1/21_sigmoid", 1.0, 2.0, gpu_uuid=UUID0, device=0)],
            [peer("level1/19_relu", 4.0, 3.0, 2.0, gpu_uuid=UUID0, device=0),
             peer("level1/21_sigmoid", 4.0, 3.0, 2.0, gpu_uuid=UUID0,
                  device=0)])
        by = {r["problem"]: r for r in rows}
        j = by["level1/19_relu"]
        self.assertIs(j["peers_gpu_mismatch"], True)
        self.assertEqual(j["peers_gpu_uuid"], UUID0)
        self.assertEqual(j["peers_device"], 0)
        self.assertEqual(j["gpu_uuid"], UUID1)  # the result's own, kept
        self.assertAlmostEqual(j["vs_best_torch"], 2.0)  # joined all the same
        self.assertNotIn("peers_gpu_mismatch", by["level1/21_sigmoid"])
        # a warning on stderr naming the problem and both GPUs
        self.assertIn("warning: level1/19_relu at kb1", err)
        self.assertIn(UUID0, err)
        self.assertIn(UUID1, err)
        self.assertNotIn("level1/21_sigmoid", err)
        # counted in the figures and the header, noted in the row
        self.assertIn("peers timed on another GPU than the result** "
                      "(gpu_uuid differs; counted all the same): 1: "
                      "level1/19_relu", text)
        self.assertIn("peers timed on another GPU than the result: 1** "
                      "(level1/19_relu)", out)
        self.assertIn("peers on another GPU |", text)
        # re-joined with a peers line of the right GPU, the flag goes
        first = join_peers.join(
            {("level1/19_relu", "kb1"): j},
            {("level1/19_relu", "kb1"): peer("level1/19_relu", 4.0, 3.0, 2.0,
                                             gpu_uuid=UUID1, device=1)},
            join_peers.Tasks(TASKS))[0]
        self.assertNotIn("peers_gpu_mismatch", first)
        self.assertEqual(first["peers_device"], 1)
        # re-read without peers, a flagged line keeps its flag (and warns)
        err = io.StringIO()
        with redirect_stderr(err):
            kept = join_peers.join({("level1/19_relu", "kb1"): j}, {},
                                   join_peers.Tasks(TASKS))[0]
        self.assertIs(kept["peers_gpu_mismatch"], True)
        self.assertIn("warning: level1/19_relu", err.getvalue())

    def test_lines_without_uuids_as_before(self):
        # old files: neither side names a GPU uuid; or only one side does
        opts = [opt("level1/19_relu", 1.0, 2.0),
                opt("level1/21_sigmoid", 1.0, 2.0, gpu_uuid=UUID0, device=0),
                opt("level1/22_tanh", 1.0, 2.0)]
        peers = [peer("level1/19_relu", 4.0, 3.0, 2.0),
                 peer("level1/21_sigmoid", 4.0, 3.0, 2.0),
                 peer("level1/22_tanh", 4.0, 3.0, 2.0, gpu_uuid=UUID1,
                      device=1)]
        rows, text, _, err = run_main(self, opts, peers)
        by = {r["problem"]: r for r in rows}
        for r in rows:
            self.assertNotIn("peers_gpu_mismatch", r)
        self.assertEqual(err, "")
        old = by["level1/19_relu"]
        for k in ("peers_gpu_uuid", "peers_device", "gpu_uuid", "device"):
            self.assertNotIn(k, old)
        self.assertEqual(old["peers_gpu"], "NVIDIA H200")
        self.assertAlmostEqual(old["vs_best_torch"], 2.0)
        self.assertEqual(by["level1/22_tanh"]["peers_gpu_uuid"], UUID1)
        self.assertNotIn("another GPU", text)
        # a file with no uuid at all: no uuid line in the header either
        _, text, _, _ = run_main(self, opts[:1], peers[:1])
        self.assertNotIn("GPUs by uuid", text)


class PeersGpuUuid(unittest.TestCase):
    """bench/peers.py writes a device's uuid the way krl's result lines do
    (src/runtime/device.c: each of the 16 bytes as two lowercase hex
    digits), from torch's uuid object, whichever form it gives."""

    RAW = bytes.fromhex(UUID0)

    class Props:
        def __init__(self, uuid):
            self.uuid = uuid

    def test_from_bytes(self):
        class U:  # torch's _CUuuid: .bytes, a list of 16 ints
            bytes = list(PeersGpuUuid.RAW)

            def __str__(self):
                return "not used"
        self.assertEqual(peers_py.gpu_uuid(self.Props(U())), UUID0)

    def test_from_text(self):
        class U:  # no .bytes: the 8-4-4-4-12 text
            def __str__(self):
                h = PeersGpuUuid.RAW.hex().upper()
                return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
        self.assertEqual(peers_py.gpu_uuid(self.Props(U())), UUID0)

    def test_none(self):
        self.assertEqual(peers_py.gpu_uuid(object()), "")

    def test_device_option(self):
        self.assertEqual(peers_py.parse_args([]).device, 0)
        self.assertEqual(peers_py.parse_args(["--device", "3"]).device, 3)
        with redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
            peers_py.parse_args(["--device", "-1"])


class PeersPrecision(unittest.TestCase):
    """bench/peers.py runs a task's PyTorch peers in its precision tier:
    cuDNN's TF32 only where the task says `precision tf32` (level 3's 10,
    20 and 45 are fp32 with convolutions; 9 is tf32)."""

    class FakeTorch:
        class backends:
            class cudnn:
                allow_tf32 = True

        class cuda:
            @staticmethod
            def synchronize():
                pass

            @staticmethod
            def empty_cache():
                pass

        class no_grad:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

    def task(self, tid):
        import kbtasks
        return kbtasks.parse_task(os.path.join(TASKS, tid + ".task"), TASKS)

    def test_parse(self):
        self.assertEqual(self.task("level3/10_resnet101").precision, "fp32")
        self.assertEqual(self.task("level3/20_mobilenet_v2").precision, "fp32")
        self.assertEqual(self.task("level3/45_unet_softmax").precision, "fp32")
        self.assertEqual(self.task("level3/9_resnet18").precision, "tf32")
        self.assertEqual(self.task("level1/54_conv3d").precision, "tf32")

    def flag_for(self, tid):
        torch = self.FakeTorch()
        torch.backends.cudnn.allow_tf32 = True
        t = self.task(tid)
        t.path = os.path.join(TASKS, "no-such-problem.py")  # setup fails
        args = peers_py.parse_args([])
        rec = {}
        peers_py.time_problem(torch, None, t, args, rec)
        self.assertTrue(all("setup:" in rec[f"torch_{p}_error"]
                            for p in args.peer_list))
        return torch.backends.cudnn.allow_tf32, rec["cudnn_tf32"]

    def test_flag_follows_the_task(self):
        self.assertEqual(self.flag_for("level3/10_resnet101"), (False, False))
        self.assertEqual(self.flag_for("level3/9_resnet18"), (True, True))


class Headline(unittest.TestCase):
    def run_main(self, opts, peers, files=None, extra=()):
        rows, text, out, _ = run_main(self, opts, peers, files, extra)
        return rows, text, out

    def test_figures(self):
        opts = [
            opt("level1/19_relu", 9.0, 9.0),                # replaced below
            opt("level1/19_relu", 1.0, 1.0),                # 2x best torch
            opt("level1/21_sigmoid", 1.0, 1.5),             # 0.5x: a loss
            opt("level1/22_tanh", 2.0, 1.0, speedup=0.5),   # slower than ref:
                                                            # counted at 1.0 ms
            opt("level1/23_softmax", None, None, verdict="mismatch",
                roofline=None),                             # ref from --refs
            opt("level1/24_log_softmax", 1.0, 1.2, roofline=1.4),  # no peers
            opt("level1/12kb0_diag_matmul", 1.0, 1.0),      # other revision
        ]
        peers = [peer("level1/19_relu", 4.0, 3.0, 2.0),
                 peer("level1/21_sigmoid", 0.5, 0.6, 0.7),
                 peer("level1/22_tanh", 1.0, 1.0, 1.0),
                 peer("level1/23_softmax", 8.0, 8.0, 8.0)]
        refs = {"task": "level1/23_softmax", "set": "kb1",
                "ref_ms": {"median": 4.0}}
        files = {"refs.jsonl": json.dumps(refs) + "\n",
                 "reasons.txt": "# why\nlevel1/21_sigmoid the fixture's reason\n",
                 "expect.txt": "level1/19_relu\nlevel1/21_sigmoid\nlevel1/25_swish\n"}
        rows, text, out = self.run_main(
            opts, peers, files, ["--refs", "DIR/refs.jsonl", "--reasons",
                                 "DIR/reasons.txt", "--expect", "DIR/expect.txt"])
        self.assertEqual(len(rows), 6)
        by = {r["problem"]: r for r in rows}
        self.assertAlmostEqual(by["level1/19_relu"]["vs_best_torch"], 2.0)
        self.assertIsNone(by["level1/23_softmax"]["vs_best_torch"])
        # vs_best_torch per problem: 2.0, 0.5, 1.0 (22 at the reference's
        # 1.0 ms), 2.0 (23 at the reference's 4.0 ms from --refs)
        g = math.exp((math.log(2.0) + math.log(0.5) + math.log(1.0)
                      + math.log(2.0)) / 4)
        self.assertIn(f"**{g:.3f}x** over 4", text)
        # vs eager: 4/1, 0.5/1, 1/1, 8/4
        ge = math.exp((math.log(4) + math.log(0.5) + 0 + math.log(2)) / 4)
        self.assertIn(f"(vs_eager): **{ge:.3f}x**", text)
        # speedup over our reference, 24 included: 1, 1.5, 1 (0.5 counted
        # as 1), 1 (none correct), 1.2
        gs = math.exp((math.log(1.5) + math.log(1.2)) / 5)
        self.assertIn(f"reference: {gs:.3f}x over 5", text)
        self.assertIn("below 0.97 of best-of-PyTorch: **1**", text)
        self.assertIn("level1/21_sigmoid: 0.500x", text)
        self.assertIn("the fixture's reason", text)
        self.assertIn("above 1.0: **1** (level1/24_log_softmax 1.40)", text)
        self.assertIn("no peers line**: level1/24_log_softmax", text)
        self.assertIn("another revision's program at this set: "
                      "level1/12kb0_diag_matmul", text)
        self.assertIn("counted at the reference's time (nothing faster "
                      "found): level1/22_tanh, level1/23_softmax", text)
        self.assertIn("selected tasks without a result line: 1: "
                      "level1/25_swish", text)
        self.assertIn("## Level 1, kb1", text)
        # stdout: the figures without the table
        self.assertIn("geometric mean of vs_best_torch", out)
        self.assertNotIn("| level1/19_relu", out)
        self.assertIn("| level1/19_relu", text)
        self.assertNotIn("several commits", text)

    def test_several_commits_warned(self):
        _, text, _ = self.run_main(
            [opt("level1/19_relu", 1.0, 1.0),
             opt("level2/1_conv2d_relu_biasadd", 1.0, 1.0, commit="d" * 40)],
            [peer("level1/19_relu", 4.0, 3.0, 2.0),
             peer("level2/1_conv2d_relu_biasadd", 4.0, 3.0, 2.0)])
        self.assertIn("several commits", text)
        self.assertIn("## Level 1, kb1", text)
        self.assertIn("## Level 2, kb1", text)


class Stamp(unittest.TestCase):
    def test_only_missing_fields(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        p = os.path.join(d, "r.jsonl")
        write(p, [{"problem": "a", "session": "old"}, {"problem": "b"}])
        with open(p, "a") as f:
            f.write("not json\n")
        n = stamp_results.stamp(p, {"session": "new", "gpu": "G", "x": ""})
        self.assertEqual(n, 2)
        with open(p) as f:
            lines = f.read().splitlines()
        a, b = json.loads(lines[0]), json.loads(lines[1])
        self.assertEqual(a, {"problem": "a", "session": "old", "gpu": "G"})
        self.assertEqual(b, {"problem": "b", "session": "new", "gpu": "G"})
        self.assertEqual(lines[2], "not json")
        self.assertEqual(stamp_results.stamp(p, {"session": "new"}), 0)


FAKE_KRL = r"""#!/usr/bin/env python3
# A stand-in for krl optimize: one results line per task, and a log.
import json, sys
args = sys.argv[2:]
tasks = []
res = shapes = None
i = 0
while i < len(args):
    a = args[i]
    if a == "--results":
        res = args[i + 1]; i += 2
    elif a == "--shapes":
        shapes = args[i + 1]; i += 2
    elif a.startswith("--"):
        i += 2
    else:
        tasks.append(a); i += 1
with open(sys.argv[0] + ".log", "a") as f:
    f.write(" ".join(tasks) + "\n")
with open(sys.argv[0] + ".argv", "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\n")
with open(res, "a") as f:
    for t in tasks:
        f.write(json.dumps({"problem": t, "shapes": shapes, "best_ms": 1.0,
                            "ref_ms": 2.0, "verdict": "ok"}) + "\n")
"""


class OptimizeLevel(unittest.TestCase):
    def test_resume_and_stamp(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        for name in ("bench", "tasks"):
            os.symlink(os.path.join(ROOT, name), os.path.join(d, name))
        os.makedirs(os.path.join(d, "build"))
        krl = os.path.join(d, "build", "krl")
        with open(krl, "w") as f:
            f.write(FAKE_KRL)
        os.chmod(krl, 0o755)
        env = dict(os.environ, KRL_SESSION="call-1", KRL_COMMIT=COMMIT,
                   PATH="/usr/bin:/bin")  # no nvidia-smi: no gpu stamped

        def run(*sel):
            return subprocess.run(
                ["bash", "bench/optimize_level.sh", "2", "out", "4", "kb1",
                 *sel], cwd=d, env=env, capture_output=True, text=True)

        r = run("--from", "1", "--to", "3")
        self.assertEqual(r.returncode, 0, r.stderr)
        res = os.path.join(d, "out", "optimize-level2-kb1.jsonl")
        with open(res) as f:
            lines = [json.loads(ln) for ln in f]
        first3 = [ln["problem"] for ln in lines]
        self.assertEqual(first3, ["level2/1_conv2d_relu_biasadd",
                                  "level2/2_convtranspose2d_biasadd_clamp_scaling_clamp_divide",
                                  "level2/3_convtranspose3d_sum_layernorm_avgpool_gelu"])
        self.assertTrue(all(ln["session"] == "call-1" for ln in lines))
        self.assertTrue(all("gpu" not in ln for ln in lines))
        self.assertIn("3 of 3 with a result line", r.stdout)
        # WORKERS unset: no --workers, krl's default (one per visible GPU)
        with open(krl + ".argv") as f:
            argv = json.loads(f.readline())
        self.assertNotIn("--workers", argv)
        # a second call over 1-4 runs 4 only; earlier lines keep their call
        env["KRL_SESSION"] = "call-2"
        r = run("--from", "1", "--to", "4")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(krl + ".log") as f:
            calls = f.read().splitlines()
        self.assertEqual(calls[-1], "level2/4_conv2d_mish_mish")
        with open(res) as f:
            lines = [json.loads(ln) for ln in f]
        self.assertEqual([ln["session"] for ln in lines],
                         ["call-1"] * 3 + ["call-2"])
        self.assertIn("3 done before, 1 run now", r.stdout)
        with open(os.path.join(d, "out", "done.txt")) as f:
            self.assertEqual(len(f.read().split()), 4)
        # everything done: krl is not called
        r = run("--from", "1", "--to", "4")
        with open(krl + ".log") as f:
            self.assertEqual(len(f.read().splitlines()), 2)
        self.assertIn("0 run now", r.stdout)
        # WORKERS set: passed on
        env["WORKERS"] = "2"
        r = run("--from", "5", "--to", "5")
        self.assertEqual(r.returncode, 0, r.stderr)
        del env["WORKERS"]
        with open(krl + ".argv") as f:
            argv = json.loads(f.read().splitlines()[-1])
        self.assertEqual(argv[argv.index("--workers") + 1], "2")
        # the old name and arguments still work (level 1, its table copy)
        r = subprocess.run(["bash", "bench/optimize_level1.sh", "out1", "4",
                            "kb1", "level1/19_relu"], cwd=d, env=env,
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(d, "out1", "optimize-level1-kb1.jsonl")) as f:
            self.assertEqual(json.loads(f.readline())["problem"],
                             "level1/19_relu")
        self.assertTrue(os.path.exists(os.path.join(d, "out1",
                                                    "optimize-kb1.txt")))


if __name__ == "__main__":
    unittest.main(verbosity=2)
