#!/usr/bin/env python3
"""CPU tests of bench/igemm_variants.py on implicit-GEMM candidates this
build's generator writes (bench/regen_candidate is not built in every
configuration, so the candidates judged on the H200 in
bench/results/2026-12-03-h200-conv-igemm/candidates serve). Run from the
repository root (ctest does): python3 tests/bench/test_igemm_variants.py"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import igemm_variants  # noqa: E402

CAND = os.path.join(ROOT, "bench/results/2026-12-03-h200-conv-igemm/candidates")
ONE = os.path.join(CAND, "1_conv2d_relu_biasadd.ig.cu")      # 128 x 128 tile
SEVENTYONE = os.path.join(CAND, "71_conv2d_divide_leakyrelu.ig.cu")  # 64 x 128
HALO = os.path.join(ROOT, "bench/results/2026-12-03-h200-conv-halo/candidates")
HALO_ONE = os.path.join(HALO, "1_conv2d_relu_biasadd.halo.cu")    # BM 128, 3 x 3
HALO_56 = os.path.join(HALO, "56_conv2d_asym.halo.cu")            # BM 64, 5 x 7


def read(p):
    with open(p) as f:
        return f.read()


class Variants(unittest.TestCase):
    def test_tile_rewrites_grid_and_smem(self):
        src = read(ONE)
        out = igemm_variants.variant(src, tile=(128, 64, 32, 32))
        self.assertIn("conv_entry<128, 64, 32, 32, 1, 3, 3, false, false>", out)
        self.assertIn("cdiv((out_channels), 128) * cdiv(1 * (oh) * (ow), 64)", out)
        self.assertIn("smem=%d" % (3 * (128 * 40 + 32 * 68) * 4), out)
        self.assertNotIn("smem=112128", out)
        # the rest of the file is the candidate's
        self.assertEqual(out.count("\n"), src.count("\n"))

    def test_generated_smem_matches_formula(self):
        # the generator's smem= for its own tile is the tool's formula
        for path, tile in ((ONE, (128, 128)), (SEVENTYONE, (64, 128))):
            m = re.search(r"smem=(\d+)", read(path))
            self.assertEqual(int(m.group(1)), igemm_variants.smem(tile[0], tile[1], 32, 3))

    def test_settings(self):
        out = igemm_variants.variant(read(ONE), lb=1, bk=16, stages=4, trunc=True)
        self.assertIn("__launch_bounds__(256, 1)", out)
        self.assertIn("constexpr int BK = 16;", out)
        self.assertIn("constexpr int STAGES = 4;", out)
        self.assertIn("return __float_as_uint(x);", out)
        self.assertIn("smem=%d" % igemm_variants.smem(128, 128, 16, 4), out)

    def test_refuses_other_files(self):
        with self.assertRaises(ValueError):
            igemm_variants.variant(read(os.path.join(CAND, "1_conv2d_relu_biasadd.def.cu")))

    def test_main_writes_batch(self):
        d = tempfile.mkdtemp()
        try:
            rc = subprocess.run([sys.executable, os.path.join(ROOT, "bench/igemm_variants.py"), d,
                                 "level2/1_conv2d_relu_biasadd=" + ONE,
                                 "level2/71_conv2d_divide_leakyrelu=" + SEVENTYONE],
                                capture_output=True, text=True).returncode
            self.assertEqual(rc, 0)
            lines = read(os.path.join(d, "batch.txt")).split("\n")[:-1]
            self.assertEqual(len(lines), 14)  # 5 settings + 2 tiles, twice
            for ln in lines:
                fn, task = ln.split()
                self.assertTrue(os.path.exists(os.path.join(d, fn)))
                self.assertTrue(task.startswith("level2/"))
            self.assertIn("71_conv2d_divide_leakyrelu.t32x128.cu level2/71_conv2d_divide_leakyrelu", lines)
            krl = os.environ.get("KRL_BIN")
            if krl and os.path.exists(krl):
                # NVRTC compiles a variant (no GPU needed)
                r = subprocess.run([krl, "check", "level2/1_conv2d_relu_biasadd",
                                    os.path.join(d, "1_conv2d_relu_biasadd.t64x128.cu")],
                                   capture_output=True, text=True,
                                   env=dict(os.environ, KRL_TASKS=os.path.join(ROOT, "tasks")))
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        finally:
            shutil.rmtree(d)


class HaloVariants(unittest.TestCase):
    def test_generated_smem_matches_formula(self):
        # the generator's smem= (codegen_conv.c's halo_smem) is the tool's
        # formula (igemm::htile), at the generator's 2 stages
        for path, bm, r, s in ((HALO_ONE, 128, 3, 3), (HALO_56, 64, 5, 7)):
            src = read(path)
            self.assertIn("halo_entry<%d, %d, %d," % (bm, r, s), src)
            self.assertIn("constexpr int H_STAGES = 2;", src)
            m = re.search(r"smem=(\d+)", src)
            self.assertEqual(int(m.group(1)), igemm_variants.halo_smem(bm, r, s, 2))
        # 3 x 3 over 8 channels: A rows of 72 taps padded to 76 (no bank
        # conflicts with taps 9 apart), the 6 x 34 window to 216 floats
        self.assertEqual(igemm_variants.halo_a_ld(72, 9), 76)
        self.assertEqual(igemm_variants.halo_smem(128, 3, 3, 2), 2 * (128 * 76 + 8 * 216) * 4)

    def test_bm_stages_bound(self):
        src = read(HALO_ONE)
        out = igemm_variants.halo_variant(src, bm=64, lb=1, stages=3, trunc=True)
        self.assertIn("halo_entry<64, 3, 3, false, false>", out)
        self.assertIn("grid=(cdiv((out_channels), 64) * cdiv((ow), 32) * cdiv((oh), 4)", out)
        self.assertIn("__launch_bounds__(256, 1)", out)
        self.assertIn("constexpr int H_STAGES = 3;", out)
        self.assertIn("return __float_as_uint(x);", out)
        self.assertIn("smem=%d" % igemm_variants.halo_smem(64, 3, 3, 3), out)
        self.assertEqual(out.count("\n"), src.count("\n"))

    def test_refuses_gather_form(self):
        with self.assertRaises(ValueError):
            igemm_variants.halo_variant(read(ONE))

    def test_main_leaves_out_oversized(self):
        d = tempfile.mkdtemp()
        try:
            r = subprocess.run([sys.executable, os.path.join(ROOT, "bench/igemm_variants.py"), d,
                                "level1/56_conv2d_asym=" + HALO_56],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            names = [ln.split()[0] for ln in read(os.path.join(d, "batch.txt")).split("\n")[:-1]]
            # BM 64 at 5 x 7 takes 165 KB in 2 stages, 248 KB in 3: more
            # than a block may take
            self.assertIn("56_conv2d_asym.hbase.cu", names)
            self.assertIn("56_conv2d_asym.hbm32.cu", names)
            self.assertNotIn("56_conv2d_asym.hst3.cu", names)
            self.assertIn("more than a block may take", r.stderr)
            for n in names:
                sm = int(re.search(r"smem=(\d+)", read(os.path.join(d, n))).group(1))
                self.assertLessEqual(sm, 227 * 1024)
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    unittest.main()
