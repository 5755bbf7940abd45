#!/usr/bin/env python3
"""bench/torch_kernels: which GPU kernels PyTorch eager runs for KernelBench
problems, and for how long (torch.profiler, one call after warm-up), with
PyTorch's and cuDNN's versions. Explains a reference that differs from
PyTorch's time (bench/ref_vs_torch.py). Run on the GPU machine:

    python3 bench/torch_kernels.py [--compile] KB/level1/33_BatchNorm.py ...

--compile profiles torch.compile(model) (default mode, compiled by the
warm-up calls) instead: the kernels of PyTorch's fastest peer on most of
level 2, with the strides of its output (Inductor may return channels-last).
"""
import importlib.util
import sys


def main():
    import torch
    from torch.profiler import ProfilerActivity, profile

    print(f"torch {torch.__version__}, cuda {torch.version.cuda}, "
          f"cudnn {torch.backends.cudnn.version()}, "
          f"cudnn.benchmark {torch.backends.cudnn.benchmark}, "
          f"allow_tf32 (cudnn) {torch.backends.cudnn.allow_tf32}")
    args = sys.argv[1:]
    compiled = "--compile" in args
    args = [a for a in args if a != "--compile"]
    for path in args:
        spec = importlib.util.spec_from_file_location("kb", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        with torch.device("cuda"):
            model = mod.Model(*mod.get_init_inputs())
            inputs = mod.get_inputs()
        model = model.cuda()
        inputs = [x.cuda() if isinstance(x, torch.Tensor) else x
                  for x in inputs]
        if compiled:
            model = torch.compile(model)
        with torch.no_grad():
            for _ in range(3):
                out = model(*inputs)
            if compiled and isinstance(out, torch.Tensor):
                print(f"== {path}: compiled output {tuple(out.shape)}, strides {out.stride()}")
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                model(*inputs)
                torch.cuda.synchronize()
        print(f"== {path}{' (torch.compile)' if compiled else ''}")
        for e in prof.key_averages():
            t = getattr(e, "device_time_total", None)
            if t is None:
                t = e.cuda_time_total
            if t > 0:
                print(f"  {t / 1000:9.3f} ms  {e.key[:150]}")
        del model, inputs
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
