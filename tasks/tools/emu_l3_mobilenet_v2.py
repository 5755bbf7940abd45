#!/usr/bin/env python3
"""CPU emulation of how far batch-norm statistics in another fp32 summation
order can move y of tasks/level3/20_mobilenet_v2.task at kb1's sizes.

The same interpreter and runs as tasks/tools/emu_l3_resnet101.py (its
docstring says what each run and comparison is): the task file's own plan
and param draws, f64 vs tf32 (non-depthwise conv operands rounded to TF32;
the 17 depthwise convs fp32, as the library's own kernel), tf32 with every
BN's mean and variance times (1 + REL * z), the same with BN affine w = 1,
b = 0, and fp32 (no TF32) for contrast. This net has no residual adds, so
the growth lines give the relative rms difference after each of its 52 BNs.
Numpy only (with OpenBLAS); ~20 s at 10 images on 2 cores.

Usage: tasks/tools/emu_l3_mobilenet_v2.py [IMAGES [REL]]
"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emu_l3_resnet101 import main

if __name__ == "__main__":
    main("20_mobilenet_v2.task", sys.argv,
         "after BN 1 (stem), 2-3 (block 1), then 3 BNs per inverted-residual "
         "block (blocks 2..17 = BNs 4..51), 52 = the last 1x1 conv's BN")
