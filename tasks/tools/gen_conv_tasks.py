#!/usr/bin/env python3
"""Writes tasks/level1/<id>_<name>.task for KernelBench level 1's convolution
problems (50 and 54-87) from the per-problem table below and the sizes in
/work/shared/kernelbench/problems.jsonl (docs/ops-conv.md, "Tasks").

The table is our own reading of each KernelBench Model (nn.ConvNd /
ConvTransposeNd arguments, which of them get_init_inputs passes, the input's
dim order); the script only does the arithmetic that is the same for all of
them: output sizes, bytes, flops, the weight std and the tolerance.

Usage: tasks/tools/gen_conv_tasks.py [--check]   (--check: write nothing,
fail if a file would change)
"""
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROBLEMS = os.environ.get("KRL_KB_PROBLEMS", "/work/shared/kernelbench/problems.jsonl")
AXES = "dhw"

# Each problem: id, task name, KernelBench file stem, op (conv or
# conv_transpose), the spatial dims of x in KernelBench's order, the kernel
# per spatial dim, and stride / padding / dilation / output_padding / groups
# as expressions over the shape keys (None: PyTorch's default). `tiny` gives
# the tiny set (every key); `fixed` keys that the jsonl does not list
# (constants written into the Model). `note` is the header's extra text.
P = []


def prob(**kw):
    P.append(kw)


prob(id=50, name="conv2d", stem="50_conv_standard_2D__square_input__square_kernel",
     op="conv", bias=True,
     fixed=dict(in_channels=3, out_channels=96, height=224, width=224,
                kernel_size=11, stride=4, padding=2),
     x=["height", "width"], k=["kernel_size"] * 2, stride="stride",
     padding="padding",
     tiny=dict(batch_size=2, in_channels=3, out_channels=7, height=37,
               width=45, kernel_size=11, stride=4, padding=2),
     note="""nn.Conv2d(3, 96, kernel_size=11, stride=4, padding=2) with its
default bias=True (AlexNet's first layer) on x[batch_size, 3, 224, 224].
KernelBench main's problem 50; in kb0 (b08d959^) problem 50 was a product
reduction (tasks/level1/50kb0_prod_reduction.task), so this problem has no
kb0 sizes of its own: kb0 here repeats kb1 (batch 256). The jsonl lists
only batch_size (and the unused num_classes); channels, image size,
kernel, stride and padding are constants of the Model.

Bias: b ~ normal(0, 1) (PyTorch draws it uniform(+-1/sqrt(363)));
a bias of the outputs' own scale makes a missing or misplaced bias fail.""")

prob(id=54, name="conv3d", stem="54_conv_standard_3D__square_input__square_kernel",
     op="conv", x=["depth", "width", "height"], k=["kernel_size"] * 3,
     tiny=dict(batch_size=2, in_channels=3, out_channels=5, kernel_size=3,
               depth=7, width=9, height=11),
     note="""nn.Conv3d(in_channels, out_channels, (k, k, k)), no bias, on
x[batch_size, in_channels, depth, width, height] (KernelBench's dim names,
kept in its order).""")

prob(id=55, name="conv2d_asym_input", stem="55_conv_standard_2D__asymmetric_input__square_kernel",
     op="conv", x=["height", "width"], k=["kernel_size"] * 2,
     tiny=dict(batch_size=2, in_channels=64, out_channels=5, kernel_size=3,
               height=9, width=23),
     note="""nn.Conv2d(in_channels, out_channels, (k, k)), no bias, on
x[batch_size, in_channels, height, width] with width > height.""")

prob(id=56, name="conv2d_asym", stem="56_conv_standard_2D__asymmetric_input__asymmetric_kernel",
     op="conv", x=["height", "width"], k=["kernel_size_h", "kernel_size_w"],
     tiny=dict(batch_size=2, in_channels=64, out_channels=5, kernel_size_h=5,
               kernel_size_w=7, height=13, width=11),
     note="""nn.Conv2d(in_channels, out_channels, kernel_size=(kh, kw)), no
bias, on x[batch_size, in_channels, height, width].""")

prob(id=57, name="conv_transpose2d", stem="57_conv_transposed_2D__square_input__square_kernel",
     op="conv_transpose", x=["height", "width"], k=["kernel_size"] * 2,
     tiny=dict(batch_size=2, in_channels=64, out_channels=5, kernel_size=3,
               height=9, width=11),
     note="""nn.ConvTranspose2d(in_channels, out_channels, k), stride 1, no
padding, no bias, on x[batch_size, in_channels, height, width].""")

prob(id=58, name="conv_transpose3d_asym", stem="58_conv_transposed_3D__asymmetric_input__asymmetric_kernel",
     op="conv_transpose", x=["depth_in", "height_in", "width_in"],
     k=["kernel_size_d", "kernel_size_h", "kernel_size_w"],
     tiny=dict(batch_size=2, in_channels=32, out_channels=5, kernel_size_d=3,
               kernel_size_h=5, kernel_size_w=7, depth_in=3, height_in=5,
               width_in=6),
     note="""nn.ConvTranspose3d(in_channels, out_channels, (kd, kh, kw)),
stride 1, no padding, no bias, on x[batch_size, in_channels, depth_in,
height_in, width_in].""")

prob(id=59, name="conv3d_asym_input", stem="59_conv_standard_3D__asymmetric_input__square_kernel",
     op="conv", x=["height", "width", "depth"], k=["kernel_size", "kernel_size", "1"],
     tiny=dict(batch_size=2, in_channels=3, out_channels=5, kernel_size=3,
               width=11, height=9, depth=3),
     note="""nn.Conv3d(in_channels, out_channels, (k, k, 1)), no bias, on
x[batch_size, in_channels, height, width, depth]: the kernel's unit extent
is along the last dim (depth = 10), so this is a 2D convolution per depth
slice written as a 3D one.""")

prob(id=60, name="conv3d_asym_kernel", stem="60_conv_standard_3D__square_input__asymmetric_kernel",
     op="conv", x=["width", "height", "depth"],
     k=["kernel_size_d", "kernel_size_h", "kernel_size_w"],
     tiny=dict(batch_size=2, in_channels=3, out_channels=5, kernel_size_d=3,
               kernel_size_h=5, kernel_size_w=7, width=6, height=8, depth=9),
     note="""nn.Conv3d(in_channels, out_channels, kernel_size=(3, 5, 7)), no
bias, on x[batch_size, in_channels, width, height, depth] (KernelBench's
names; the kernel's first extent applies to x's dim 2, and so on; the keys
kernel_size_d/_h/_w name the kernel's positions d, h, w).""")

prob(id=61, name="conv_transpose3d", stem="61_conv_transposed_3D__square_input__square_kernel",
     op="conv_transpose", x=["depth", "height", "width"], k=["kernel_size"] * 3,
     tiny=dict(batch_size=2, in_channels=48, out_channels=5, kernel_size=3,
               depth=3, height=5, width=6),
     note="""nn.ConvTranspose3d(in_channels, out_channels, (k, k, k)), stride
1, no padding, no bias, on x[batch_size, in_channels, depth, height,
width].""")

prob(id=62, name="conv2d_asym_kernel", stem="62_conv_standard_2D__square_input__asymmetric_kernel",
     op="conv", x=["height", "width"], k=["kernel_size_h", "kernel_size_w"],
     tiny=dict(batch_size=2, in_channels=32, out_channels=5, kernel_size_h=5,
               kernel_size_w=9, height=13, width=15),
     note="""nn.Conv2d(in_channels, out_channels, kernel_size=(kh, kw)), no
bias, on a square x[batch_size, in_channels, height, width].""")

prob(id=63, name="conv2d_square", stem="63_conv_standard_2D__square_input__square_kernel",
     op="conv", x=["height", "width"], k=["kernel_size"] * 2,
     tiny=dict(batch_size=2, in_channels=16, out_channels=5, kernel_size=3,
               height=13, width=13),
     note="""nn.Conv2d(in_channels, out_channels, (k, k)), no bias, on
x[batch_size, in_channels, height, width]. At kb1 y is 16 x 128 x 1022 x
1022 (2.14e9 elements, just under 2^31).""")

prob(id=64, name="conv_transpose1d", stem="64_conv_transposed_1D",
     op="conv_transpose", x=["length"], k=["kernel_size"],
     tiny=dict(batch_size=2, in_channels=128, out_channels=5, kernel_size=3,
               length=37),
     note="""nn.ConvTranspose1d(in_channels, out_channels, k), stride 1, no
padding, no bias, on x[batch_size, in_channels, length].""")

prob(id=65, name="conv_transpose2d_asym_kernel", stem="65_conv_transposed_2D__square_input__asymmetric_kernel",
     op="conv_transpose", x=["height", "width"],
     k=["kernel_size_h", "kernel_size_w"],
     tiny=dict(batch_size=2, in_channels=64, out_channels=5, kernel_size_h=3,
               kernel_size_w=7, height=9, width=9),
     note="""nn.ConvTranspose2d(in_channels, out_channels, (kh, kw)), stride
1, no padding, no bias, on x[batch_size, in_channels, height, width].""")

prob(id=66, name="conv3d_asym", stem="66_conv_standard_3D__asymmetric_input__asymmetric_kernel",
     op="conv", x=["depth", "height", "width"],
     k=["kernel_size_d", "kernel_size_h", "kernel_size_w"],
     tiny=dict(batch_size=2, in_channels=3, out_channels=5, kernel_size_d=3,
               kernel_size_h=5, kernel_size_w=7, depth=5, height=9, width=11),
     note="""nn.Conv3d(in_channels, out_channels, (kd, kh, kw)), no bias, on
x[batch_size, in_channels, depth, height, width].""")

prob(id=67, name="conv1d", stem="67_conv_standard_1D",
     op="conv", x=["length"], k=["kernel_size"],
     tiny=dict(batch_size=2, in_channels=64, out_channels=5, kernel_size=3,
               length=101),
     note="""nn.Conv1d(in_channels, out_channels, k), no bias, on
x[batch_size, in_channels, length]. cuDNN runs it as 2D with a unit
height, as PyTorch does.""")

prob(id=68, name="conv_transpose3d_asym_kernel", stem="68_conv_transposed_3D__square_input__asymmetric_kernel",
     op="conv_transpose", x=["depth", "width", "height"],
     k=["kernel_depth", "kernel_width", "kernel_height"],
     tiny=dict(batch_size=2, in_channels=32, out_channels=5, kernel_depth=3,
               kernel_width=5, kernel_height=5, depth=3, width=6, height=5),
     note="""nn.ConvTranspose3d(in_channels, out_channels, (kernel_depth,
kernel_width, kernel_height)), stride 1, no padding, no bias, on
x[batch_size, in_channels, depth, width, height] (KernelBench's order).""")

prob(id=69, name="conv_transpose2d_asym", stem="69_conv_transposed_2D__asymmetric_input__asymmetric_kernel",
     op="conv_transpose", x=["height_in", "width_in"],
     k=["kernel_size_h", "kernel_size_w"],
     tiny=dict(batch_size=2, in_channels=64, out_channels=5, kernel_size_h=3,
               kernel_size_w=5, height_in=7, width_in=10),
     note="""nn.ConvTranspose2d(in_channels, out_channels, (kh, kw)), stride
1, no padding, no bias, on x[batch_size, in_channels, height_in,
width_in].""")

prob(id=70, name="conv_transpose3d_asym_input", stem="70_conv_transposed_3D__asymmetric_input__square_kernel",
     op="conv_transpose", x=["depth", "height", "width"], k=["kernel_size"] * 3,
     tiny=dict(batch_size=2, in_channels=48, out_channels=5, kernel_size=3,
               depth=3, height=4, width=6),
     note="""nn.ConvTranspose3d(in_channels, out_channels, (k, k, k)), stride
1, no padding, no bias, on x[batch_size, in_channels, depth, height,
width].""")

prob(id=71, name="conv_transpose2d_asym_input", stem="71_conv_transposed_2D__asymmetric_input__square_kernel",
     op="conv_transpose", x=["height_in", "width_in"], k=["kernel_size"] * 2,
     tiny=dict(batch_size=2, in_channels=32, out_channels=5, kernel_size=3,
               height_in=7, width_in=13),
     note="""nn.ConvTranspose2d(in_channels, out_channels, k), stride 1, no
padding, no bias, on x[batch_size, in_channels, height_in, width_in].""")

prob(id=72, name="conv_transpose3d_strided_grouped", stem="72_conv_transposed_3D_asymmetric_input_asymmetric_kernel___strided_padded_grouped_",
     op="conv_transpose", x=["depth", "height", "width"],
     k=["kernel_size_d", "kernel_size_h", "kernel_size_w"],
     stride=["stride_d", "stride_h", "stride_w"],
     padding=["padding_d", "padding_h", "padding_w"],
     opad=["output_padding_d", "output_padding_h", "output_padding_w"],
     groups="groups",
     tiny=dict(batch_size=2, in_channels=32, out_channels=12, kernel_size_d=3,
               kernel_size_h=5, kernel_size_w=7, depth=3, height=4, width=5,
               stride_d=2, stride_h=2, stride_w=2, padding_d=1, padding_h=2,
               padding_w=3, output_padding_d=1, output_padding_h=1,
               output_padding_w=1, groups=4),
     note="""nn.ConvTranspose3d(in_channels, out_channels, (3, 5, 7),
stride=(2, 2, 2), padding=(1, 2, 3), output_padding=(1, 1, 1), groups=4), no
bias, on x[batch_size, in_channels, depth, height, width]. w is [in_channels,
out_channels / groups, kd, kh, kw] (PyTorch's ConvTranspose layout).""")

prob(id=73, name="conv_transpose3d_strided_padded_grouped", stem="73_conv_transposed_3D_asymmetric_input_square_kernel__strided_padded__grouped",
     op="conv_transpose", x=["depth", "height", "width"], k=["kernel_size"] * 3,
     stride="stride", padding="padding", groups="groups",
     tiny=dict(batch_size=2, in_channels=32, out_channels=8, kernel_size=3,
               depth=3, height=4, width=6, stride=2, padding=1, groups=4),
     note="""nn.ConvTranspose3d(in_channels, out_channels, (k, k, k),
stride=stride, padding=padding, groups=groups), no bias, on x[batch_size,
in_channels, depth, height, width]. The Model takes an output_padding
argument but does not pass it on: output_padding is 0. kb0 pads by 3,
kb1 by 1.""")

prob(id=74, name="conv_transpose1d_dilated", stem="74_conv_transposed_1D_dilated",
     op="conv_transpose", x=["length"], k=["kernel_size"],
     stride="stride", padding="padding", dilation="dilation",
     tiny=dict(batch_size=2, in_channels=32, out_channels=5, kernel_size=5,
               length=37, stride=1, padding=0, dilation=3),
     note="""nn.ConvTranspose1d(in_channels, out_channels, k, stride=1,
padding=0, dilation=3), no bias, on x[batch_size, in_channels, length].""")

prob(id=75, name="conv_transpose2d_strided_grouped_dilated", stem="75_conv_transposed_2D_asymmetric_input_asymmetric_kernel_strided__grouped____padded____dilated__",
     op="conv_transpose", x=["height", "width"],
     k=["kernel_size_h", "kernel_size_w"],
     stride=["stride_h", "stride_w"], padding=["padding_h", "padding_w"],
     dilation=["dilation_h", "dilation_w"], groups="groups",
     tiny=dict(batch_size=2, in_channels=32, out_channels=8, kernel_size_h=3,
               kernel_size_w=5, height=7, width=9, stride_h=2, stride_w=3,
               padding_h=1, padding_w=2, dilation_h=2, dilation_w=1,
               groups=4),
     note="""nn.ConvTranspose2d(in_channels, out_channels, (3, 5), stride=(2,
3), padding=(1, 2), dilation=(2, 1), groups=4), no bias, on x[batch_size,
in_channels, height, width].""")

prob(id=76, name="conv1d_dilated_strided", stem="76_conv_standard_1D_dilated_strided__",
     op="conv", x=["length"], k=["kernel_size"], stride="stride",
     dilation="dilation",
     tiny=dict(batch_size=2, in_channels=64, out_channels=5, kernel_size=3,
               length=103, stride=3, dilation=4),
     note="""nn.Conv1d(in_channels, out_channels, k, stride=3, dilation=4), no
padding, no bias, on x[batch_size, in_channels, length]. At kb1 x has
2,147,450,880 elements, just under 2^31.""")

prob(id=77, name="conv_transpose3d_padded_dilated_strided", stem="77_conv_transposed_3D_square_input_square_kernel___padded____dilated____strided__",
     op="conv_transpose", x=["depth", "height", "width"], k=["kernel_size"] * 3,
     stride="stride", padding="padding", dilation="dilation",
     tiny=dict(batch_size=2, in_channels=32, out_channels=5, kernel_size=3,
               depth=3, height=4, width=5, stride=2, padding=1, dilation=2),
     note="""nn.ConvTranspose3d(in_channels, out_channels, (k, k, k),
stride=2, padding=1, dilation=2), no bias, on x[batch_size, in_channels,
depth, height, width].""")

prob(id=78, name="conv_transpose2d_padded", stem="78_conv_transposed_2D_asymmetric_input_asymmetric_kernel___padded__",
     op="conv_transpose", x=["height", "width"],
     k=["kernel_size_h", "kernel_size_w"],
     stride=["stride_h", "stride_w"], padding=["padding_h", "padding_w"],
     tiny=dict(batch_size=2, in_channels=32, out_channels=5, kernel_size_h=3,
               kernel_size_w=7, height=7, width=11, stride_h=1, stride_w=1,
               padding_h=1, padding_w=3),
     note="""nn.ConvTranspose2d(in_channels, out_channels, (kh, kw), stride=(1,
1), padding=(ph, pw)), no bias, on x[batch_size, in_channels, height,
width].""")

prob(id=79, name="conv_transpose1d_padded_strided_dilated", stem="79_conv_transposed_1D_asymmetric_input_square_kernel___padded____strided____dilated__",
     op="conv_transpose", x=["length"], k=["kernel_size"],
     stride="stride", padding="padding", dilation="dilation",
     tiny=dict(batch_size=2, in_channels=32, out_channels=5, kernel_size=3,
               length=37, stride=2, padding=1, dilation=2),
     note="""nn.ConvTranspose1d(in_channels, out_channels, k, stride=2,
padding=1, dilation=2), no bias, on x[batch_size, in_channels, length].""")

prob(id=80, name="conv2d_dilated_padded", stem="80_conv_standard_2D_square_input_asymmetric_kernel___dilated____padded__",
     op="conv", x=["height", "width"], k=["kernel_size_h", "kernel_size_w"],
     stride="stride", padding=["padding_h", "padding_w"],
     dilation=["dilation_h", "dilation_w"],
     tiny=dict(batch_size=2, in_channels=32, out_channels=5, kernel_size_h=5,
               kernel_size_w=9, height=13, width=29, stride=1, padding_h=2,
               padding_w=4, dilation_h=2, dilation_w=3),
     note="""nn.Conv2d(in_channels, out_channels, (kh, kw), stride=1,
padding=(ph, pw), dilation=(dh, dw)), no bias, on x[batch_size,
in_channels, height, width].""")

prob(id=81, name="conv_transpose2d_dilated_padded_strided", stem="81_conv_transposed_2D_asymmetric_input_square_kernel___dilated____padded____strided__",
     op="conv_transpose", x=["height_in", "width_in"], k=["kernel_size"] * 2,
     stride="stride", padding="padding", dilation="dilation",
     tiny=dict(batch_size=2, in_channels=32, out_channels=5, kernel_size=3,
               height_in=5, width_in=7, stride=5, padding=1, dilation=2),
     note="""nn.ConvTranspose2d(in_channels, out_channels, k, stride=5,
padding=1, dilation=2), no bias, on x[batch_size, in_channels, height_in,
width_in]. With stride 5 and taps at offsets -1, 1, 3 (mod 5) per dim, 16
of every 25 output points receive no product and are exactly zero: that
is the problem, not a degenerate output.""")

prob(id=82, name="conv_depthwise2d", stem="82_conv_depthwise_2D_square_input_square_kernel",
     op="conv", x=["height", "width"], k=["kernel_size"] * 2,
     cout="in_channels", groups="in_channels", stride="stride",
     padding="padding",
     tiny=dict(batch_size=2, in_channels=5, kernel_size=3, height=13,
               width=11, stride=1, padding=0),
     note="""Depthwise nn.Conv2d(in_channels, in_channels, k, stride=1,
padding=0, groups=in_channels), no bias, on x[batch_size, in_channels,
height, width]: w is [in_channels, 1, k, k].""")

prob(id=83, name="conv_depthwise2d_asym_kernel", stem="83_conv_depthwise_2D_square_input_asymmetric_kernel",
     op="conv", x=["height", "width"], k=["kernel_size", "1"],
     cout="in_channels", groups="in_channels", stride="stride",
     padding="padding", dilation="dilation",
     tiny=dict(batch_size=2, in_channels=5, kernel_size=3, height=13,
               width=11, stride=1, padding=0, dilation=1),
     note="""Depthwise nn.Conv2d(in_channels, in_channels, kernel_size=(k, 1),
stride=1, padding=0, dilation=1, groups=in_channels), no bias, on
x[batch_size, in_channels, height, width].""")

prob(id=84, name="conv_depthwise2d_asym_input", stem="84_conv_depthwise_2D_asymmetric_input_square_kernel",
     op="conv", x=["height_in", "width_in"], k=["kernel_size"] * 2,
     groups="in_channels", stride="stride", padding="padding",
     tiny=dict(batch_size=2, in_channels=5, out_channels=5, kernel_size=3,
               height_in=9, width_in=14, stride=1, padding=0),
     note="""Depthwise nn.Conv2d(in_channels, out_channels, (k, k), stride=1,
padding=0, groups=in_channels), no bias, on x[batch_size, in_channels,
height_in, width_in]; out_channels equals in_channels in every set, so w
is [in_channels, 1, k, k].""")

prob(id=85, name="conv_depthwise2d_asym", stem="85_conv_depthwise_2D_asymmetric_input_asymmetric_kernel",
     op="conv", x=["height", "width"], k=["kernel_size_h", "kernel_size_w"],
     cout="in_channels", groups="in_channels",
     stride=["stride_h", "stride_w"], padding=["padding_h", "padding_w"],
     dilation=["dilation_h", "dilation_w"],
     tiny=dict(batch_size=2, in_channels=5, out_channels=5, kernel_size_h=3,
               kernel_size_w=7, height=9, width=14, stride_h=1, stride_w=1,
               padding_h=0, padding_w=0, dilation_h=1, dilation_w=1,
               groups=5),
     note="""Depthwise nn.Conv2d(in_channels, in_channels, (kh, kw),
stride=(sh, sw), padding=(ph, pw), dilation=(dh, dw), groups=in_channels),
no bias, on x[batch_size, in_channels, height, width]. The Model's
out_channels and groups arguments are ignored by it (it always builds
in_channels -> in_channels with groups=in_channels); they stay as unused
shape keys so the sets match the jsonl.""")

prob(id=87, name="conv_pointwise2d", stem="87_conv_pointwise_2D",
     op="conv", x=["height", "width"], k=["1", "1"],
     tiny=dict(batch_size=2, in_channels=64, out_channels=5, height=9,
               width=13),
     note="""Pointwise nn.Conv2d(in_channels, out_channels, kernel_size=1), no
bias, on x[batch_size, in_channels, height, width]: a GEMM over channels
per pixel, run through cuDNN as PyTorch runs it.""")


# ==== Arithmetic ====

def expand(sizes):
    """jsonl sizes with tuples split into _d/_h/_w (or _h/_w) keys."""
    out = {}
    for k, v in sizes.items():
        if isinstance(v, list):
            ax = AXES[3 - len(v):]
            for a, x in zip(ax, v):
                out["%s_%s" % (k, a)] = x
        else:
            out[k] = v
    return out


def ev(expr, env):
    return eval(str(expr), {}, dict(env))


def per_dim(spec, nsp, dflt):
    if spec is None:
        return [str(dflt)] * nsp
    if isinstance(spec, list):
        return spec
    return [spec] * nsp


def geometry(p, env):
    nsp = len(p["x"])
    tr = p["op"] == "conv_transpose"
    st, pd = per_dim(p.get("stride"), nsp, 1), per_dim(p.get("padding"), nsp, 0)
    dl, op = per_dim(p.get("dilation"), nsp, 1), per_dim(p.get("opad"), nsp, 0)
    g = ev(p.get("groups") or 1, env)
    cin = env["in_channels"]
    cout = ev(p.get("cout") or "out_channels", env)
    ins = [ev(x, env) for x in p["x"]]
    ks = [ev(k, env) for k in p["k"]]
    s = [ev(x, env) for x in st]
    pp = [ev(x, env) for x in pd]
    d = [ev(x, env) for x in dl]
    o = [ev(x, env) for x in op]
    if tr:
        outs = [(i - 1) * a - 2 * b + c * (k - 1) + e + 1
                for i, a, b, c, k, e in zip(ins, s, pp, d, ks, o)]
        # products per output: on average, and at most
        f_avg = cin // g * math.prod(ks) / math.prod(s)
        f_max = cin // g * math.prod(-(-k // a) for k, a in zip(ks, s))
    else:
        outs = [(i + 2 * b - c * (k - 1) - 1) // a + 1
                for i, a, b, c, k in zip(ins, s, pp, d, ks)]
        f_avg = f_max = cin // g * math.prod(ks)
    return dict(nsp=nsp, tr=tr, g=g, cin=cin, cout=cout, ins=ins, ks=ks,
                outs=outs, f_avg=f_avg, f_max=f_max)


def sig(v, n=3):
    return float("%.*g" % (n, v))


def up1(v):
    """v rounded up to one significant digit."""
    e = math.floor(math.log10(v))
    m = math.ceil(v / 10 ** e - 1e-9)
    return float("%ge%d" % (m, e)) if m < 10 else float("1e%d" % (e + 1))


# ==== Writing ====

def attr_list(p, nsp):
    out = []
    for key, spec in (("stride", p.get("stride")), ("padding", p.get("padding")),
                      ("dilation", p.get("dilation")),
                      ("output_padding", p.get("opad"))):
        if spec is None:
            continue
        if isinstance(spec, list):
            for a, e in zip(AXES[3 - nsp:], spec):
                out.append("%s_%s=%s" % (key, a, e))
        else:
            out.append("%s=%s" % (key, spec))
    if p.get("groups"):
        out.append("groups=%s" % p["groups"])
    return out


def wrap(text, prefix="# "):
    lines = []
    for para in text.strip().split("\n\n"):
        words = para.split()
        cur = ""
        for w in words:
            if len(prefix + cur + " " + w) > 78:
                lines.append(prefix + cur)
                cur = w
            else:
                cur = (cur + " " + w).strip()
        lines.append(prefix + cur)
        lines.append("#")
    return lines[:-1]


def task_text(p, sets):
    keys = list(sets["kb1"].keys())
    for s in ("kb0", "tiny"):
        if set(sets[s]) != set(keys):
            raise SystemExit("problem %d: set %s keys %s differ from kb1 %s"
                             % (p["id"], s, sorted(sets[s]), sorted(keys)))
    geo = {s: geometry(p, sets[s]) for s in sets}
    g1 = geo["kb1"]
    nsp, tr = g1["nsp"], g1["tr"]
    std = sig(1 / math.sqrt(g1["f_avg"]))
    # output rms ~ std * sqrt(f_avg); the largest outputs ~ std * sqrt(f_max)
    peak = max(std * math.sqrt(geo[s]["f_max"]) for s in sets)
    low = min(std * math.sqrt(geo[s]["f_avg"]) for s in sets)
    atol = up1(2e-2 * peak)
    rtol = 1e-2
    ratio = atol / low
    assert ratio <= 0.2, (p["id"], atol, low)
    for s in sets:
        for o in geo[s]["outs"]:
            assert o >= 1, (p["id"], s, geo[s]["outs"])
        if p.get("groups"):
            assert geo[s]["cin"] % geo[s]["g"] == 0
            assert geo[s]["cout"] % geo[s]["g"] == 0
    op = p["op"] + ("_bias" if p.get("bias") else "")
    cin, cout = "in_channels", p.get("cout") or "out_channels"
    grp = p.get("groups")
    g_expr = "%s / %s" % (cin, grp) if grp else cin
    st = per_dim(p.get("stride"), nsp, 1)
    pd = per_dim(p.get("padding"), nsp, 0)
    dl = per_dim(p.get("dilation"), nsp, 1)
    opd = per_dim(p.get("opad"), nsp, 0)
    outn = ["o" + AXES[3 - nsp + i] for i in range(nsp)]
    consts = []
    for i in range(nsp):
        x, k, s, pp, d, o = p["x"][i], p["k"][i], st[i], pd[i], dl[i], opd[i]
        if tr:
            e = "(%s - 1) * %s - 2 * %s + %s * (%s - 1) + %s + 1" % (x, s, pp, d, k, o)
        else:
            e = "(%s + 2 * %s - %s * (%s - 1) - 1) / %s + 1" % (x, pp, d, k, s)
        consts.append("const     %s = %s" % (outn[i], simplify(e)))
    xs = "[batch_size, %s, %s]" % (cin, ", ".join(p["x"]))
    ys = "[batch_size, %s, %s]" % (cout, ", ".join(outn))
    kk = ", ".join(p["k"])
    if tr:
        ws = "[%s, %s, %s]" % (cin, "%s / %s" % (cout, grp) if grp else cout, kk)
    else:
        ws = "[%s, %s, %s]" % (cout, g_expr, kk)
    nx = "batch_size * %s * %s" % (cin, " * ".join(p["x"]))
    ny = "batch_size * %s * %s" % (cout, " * ".join(outn))
    nw = "%s * %s * %s" % (cin if tr else cout,
                           ("%s / %s" % (cout, grp) if grp else cout) if tr else g_expr,
                           " * ".join(p["k"]))
    nw = simplify_prod(nw)
    if p.get("bias"):
        bytes_e = "4 * (%s + %s + %s + %s)" % (nx, nw, cout, ny)
    else:
        bytes_e = "4 * (%s + %s + %s)" % (nx, nw, ny)
    if tr:
        macs = "%s * %s * %s" % (nx, "(%s / %s)" % (cout, grp) if grp else cout,
                                 " * ".join(p["k"]))
    else:
        macs = "%s * %s * %s" % (ny, "(%s)" % g_expr if grp else cin,
                                 " * ".join(p["k"]))
    macs = simplify_prod(macs)
    flops = "2 * " + macs + (" + " + ny if p.get("bias") else "")
    kb0 = p["kb0_name"]
    src = "KernelBench level1/%s.py" % p["stem"]
    head = "Level 1 problem %d: %s" % (p["id"], p["note"])
    lines = wrap(head)
    lines.append("#")
    lines += wrap("Source: %s%s." % (src, "" if kb0 == p["stem"] else
                                     " (kb0's problem %d was %s)" % (p["id"], kb0)))
    for s in ("kb0", "kb1"):
        lines += wrap("%s: %s." % (s, ", ".join("%s=%s" % (k, sets[s][k]) for k in keys)))
    lines += wrap("""KernelBench draws x with randn at kb0 and torch.rand
(uniform [0, 1)) at kb1; we draw normal(0, 1) for every set. tiny keeps
kb1's channels per group and kernel (so its outputs have kb1's scale) on
small odd spatial sizes.""")
    lines.append("#")
    fan = "%d" % g1["f_avg"] if g1["f_avg"] == int(g1["f_avg"]) else "%.4g" % g1["f_avg"]
    what = ("in_channels / groups * kernel taps" if not tr else
            "in_channels / groups * kernel taps / stride taps: the products "
            "one output receives on average")
    lines += wrap("""Params: w ~ normal(0, %g) = 1/sqrt(%s) (%s, at kb1), so
outputs are ~N(0, 1) at kb1 (PyTorch's kaiming-uniform init has the same
order of scale).""" % (std, fan, what))
    lines.append("#")
    if low > 0.8:
        scale = "Outputs have rms ~1 in every set, the largest ~%.2g" % peak
    else:
        scale = ("Output rms ranges from %.2g (smallest set) to ~1, the "
                 "largest outputs ~%.2g" % (low, peak))
    lines += wrap("""Precision tier tf32: PyTorch runs this convolution
through cuDNN with allow_tf32 on (its default), so the reference does
too and candidates get the same freedom. %s. A TF32 product errs by
~4e-4 relative (rms), so outputs err by ~4e-4 of their rms; atol=%g
(2e-2 of the largest outputs' scale) with rtol=%g covers that with a wide
margin, leaving room for cuDNN's Winograd/FFT algorithms, while a zero,
shifted or mis-strided output (errors of the outputs' own scale, atol
being at most %.2g of the smallest rms) fails.""" % (scale, atol, rtol, ratio))
    lines.append("task      %s" % p["name"])
    lines.append('source    "%s"' % src)
    for s in ("kb0", "kb1", "tiny"):
        lines.append("shapes    %-5s %s" % (s, " ".join("%s=%s" % (k, sets[s][k]) for k in keys)))
    lines += consts
    lines.append("precision tf32")
    lines.append("input     x  f32 %s  normal(0, 1)" % xs)
    lines.append("param     w  f32 %s  normal(0, %g)" % (ws, std))
    if p.get("bias"):
        lines.append("param     b  f32 [%s]  normal(0, 1)" % cout)
    lines.append("output    y  f32 %s" % ys)
    lines.append("tolerance atol=%g rtol=%g" % (atol, rtol))
    lines.append("bytes     %s" % bytes_e)
    lines.append("flops     %s" % flops)
    lines.append("plan")
    args = "x, w, b" if p.get("bias") else "x, w"
    at = attr_list(p, nsp)
    lines.append("  call %s(%s) -> y%s" % (op, args, (" " + " ".join(at)) if at else ""))
    lines.append("end")
    return "\n".join(lines) + "\n"


def simplify(e):
    for a, b in ((" - 2 * 0", ""), (" + 2 * 0", ""), (" + 0 + 1", " + 1"),
                 ("1 * (", "("), (") / 1 + 1", ") + 1"), (" * 1 ", " ")):
        e = e.replace(a, b)
    return e


def simplify_prod(e):
    parts = [x.strip() for x in e.split(" * ")]
    parts = [x for x in parts if x != "1"]
    return " * ".join(parts)


def main():
    check = "--check" in sys.argv[1:]
    probs = {}
    with open(PROBLEMS) as f:
        for line in f:
            q = json.loads(line)
            if q["level"] == 1:
                probs[q["id"]] = q
    changed = []
    for p in P:
        q = probs[p["id"]]
        assert q["name"] == p["stem"], (q["name"], p["stem"])
        p["kb0_name"] = q["kb0_name"]
        fixed = p.get("fixed", {})
        kb1 = dict(fixed)
        kb1.update(expand(q["kb1_sizes"]))
        if q["kb0_name"] == q["name"]:
            kb0 = dict(fixed)
            kb0.update(expand(q["kb0_sizes"]))
        else:
            kb0 = dict(kb1)
        for s in (kb0, kb1):
            s.pop("num_classes", None)
        order = list(kb1.keys())
        tiny = {k: p["tiny"][k] for k in order}
        sets = {"kb0": {k: kb0[k] for k in order}, "kb1": kb1, "tiny": tiny}
        text = task_text(p, sets)
        path = os.path.join(ROOT, "tasks", "level1", "%d_%s.task" % (p["id"], p["name"]))
        old = open(path).read() if os.path.exists(path) else None
        if old != text:
            changed.append(path)
            if not check:
                with open(path, "w") as f:
                    f.write(text)
    for c in changed:
        print(("would change " if check else "wrote ") + os.path.relpath(c, ROOT))
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
