# PyTorch's ConvTranspose3d of level-1 73 at kb1: time it and, with cuDNN's
# API log on (set in the environment by the caller), record the engine.
import importlib.util, sys, torch
p = sys.argv[1]
spec = importlib.util.spec_from_file_location("m73", p)
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
model = m.Model(*m.get_init_inputs()).cuda()
x = [t.cuda() for t in m.get_inputs()]
print("cudnn", torch.backends.cudnn.version(), "torch", torch.__version__, flush=True)
with torch.no_grad():
    for _ in range(3):
        y = model(*x)
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(True), torch.cuda.Event(True)
    ts = []
    for _ in range(10):
        s.record(); y = model(*x); e.record(); e.synchronize(); ts.append(s.elapsed_time(e))
print("torch 73 ms", sorted(ts)[5], "shape", tuple(y.shape), flush=True)
