"""ModelNew: a kernelrl candidate exported by `krl export --to torch`.

A drop-in for KernelBench's Model of the task named in meta.json: the same
constructor arguments (the Model is built inside, and its parameters and
buffers, initialised as PyTorch initialises them, become this module's own,
under the same names) and the same forward signature. forward runs the
exported CUDA code (csrc/kernels.cu, built once into a shared library with
nvcc on first use) on PyTorch's current stream, with PyTorch's tensors and
caching allocator; the plan's `init` reruns whenever a parameter changes
(its version counter or storage). Shapes are fixed to the exported shape
set. Forward only (no autograd). docs/export.md in kernelrl.
"""
import contextlib
import ctypes
import json
import os
import shutil
import subprocess

import torch

from . import kb_model

_HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(_HERE, "meta.json")) as _f:
    META = json.load(_f)
_STEM = META["stem"]
_DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
           "i32": torch.int32, "i64": torch.int64, "bool": torch.bool,
           "f64": torch.float64}
_lib = None
_fwd = None   # krl_<stem>_forward, _init: krl_<stem>_init (ctypes), set by load()
_init = None


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


# What forward needs of META, resolved once: the inputs (dtype, element
# count, spec), the outputs (shape, dtype), each buffer's role in the
# launch's argument order, and the workspace's size.
_INPUTS = [(_DTYPES[b["dtype"]], _numel(b["shape"]), b)
           for b in META["buffers"] if b["role"] == "input"]
_OUTPUTS = [(tuple(b["shape"]), _DTYPES[b["dtype"]])
            for b in META["buffers"] if b["role"] == "output"]
_ROLES = [b["role"] for b in META["buffers"]]
# the keep masks of training-mode dropout (bool inputs drawn bernoulli(p)),
# which KernelBench's get_inputs() does not give: drawn when left out
_MASKS = sum(1 for b in META["buffers"]
             if b["role"] == "input" and "bernoulli" in b)
_WS_BYTES = max(1, META["workspace_bytes"])
_SAME_DEVICE = contextlib.nullcontext()


def _nvcc():
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"),
                 "/usr/local/cuda"):
        if home and os.path.exists(os.path.join(home, "bin", "nvcc")):
            return os.path.join(home, "bin", "nvcc")
    found = shutil.which("nvcc")
    if not found:
        raise RuntimeError(f"{__name__}: nvcc not found (set CUDA_HOME) to "
                           "build the exported kernels")
    return found


def _build_dir():
    """csrc/ when it is writable, else a copy under ~/.cache."""
    src = os.path.join(_HERE, "csrc")
    if os.access(src, os.W_OK):
        return src
    dst = os.path.join(os.path.expanduser("~/.cache/krl_export"),
                       f"{_STEM}-{META['candidate'][:16]}")
    if not os.path.exists(os.path.join(dst, "kernels.cu")):
        shutil.copytree(src, dst, dirs_exist_ok=True)
    return dst


def load():
    """The exported library (built with `make lib` on first use)."""
    global _lib, _fwd, _init
    if _lib is not None:
        return _lib
    d = _build_dir()
    so = os.path.join(d, META["library"])
    if not os.path.exists(so) or (os.path.getmtime(so) <
                                  os.path.getmtime(os.path.join(d, "kernels.cu"))):
        r = subprocess.run(["make", "-C", d, "lib", "NVCC=" + _nvcc(),
                            "ARCH=" + META["arch"]],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{__name__}: building {so} failed:\n"
                               f"{r.stdout}\n{r.stderr}")
    lib = ctypes.CDLL(so)
    nptr = len(META["buffers"])
    fwd = getattr(lib, f"krl_{_STEM}_forward")
    fwd.argtypes = [ctypes.c_void_p] * (nptr + (1 if META["derived_bytes"] else 0) + 2)
    fwd.restype = ctypes.c_int
    if META["has_init"]:
        init = getattr(lib, f"krl_{_STEM}_init")
        nparam = sum(1 for b in META["buffers"] if b["role"] == "param")
        init.argtypes = [ctypes.c_void_p] * (nparam + 2)
        init.restype = ctypes.c_int
    err = getattr(lib, f"krl_{_STEM}_error")
    err.restype = ctypes.c_char_p
    _fwd = fwd
    _init = getattr(lib, f"krl_{_STEM}_init", None)
    _lib = lib
    return lib


def _build_model(args, kwargs):
    """KernelBench's Model(*args, **kwargs), and its parameters, then its
    buffers, as (dotted name, tensor) in the order its constructors created
    them. nn.Module's __setattr__ and register_* are wrapped while the Model
    is built to record that order (not thread-safe with other threads
    building modules at the same moment)."""
    seen = {}
    mod_setattr = torch.nn.Module.__setattr__
    mod_regp = torch.nn.Module.register_parameter
    mod_regb = torch.nn.Module.register_buffer

    def note(m, name):
        names = seen.setdefault(id(m), [])
        if name not in names:
            names.append(name)

    def setattr_(self, name, value):
        if isinstance(value, (torch.nn.Parameter, torch.nn.Module, torch.Tensor)):
            note(self, name)
        mod_setattr(self, name, value)

    def regp(self, name, *a, **k):
        note(self, name)
        return mod_regp(self, name, *a, **k)

    def regb(self, name, *a, **k):
        note(self, name)
        return mod_regb(self, name, *a, **k)

    torch.nn.Module.__setattr__ = setattr_
    torch.nn.Module.register_parameter = regp
    torch.nn.Module.register_buffer = regb
    try:
        ref = kb_model.Model(*args, **kwargs)
    finally:
        torch.nn.Module.__setattr__ = mod_setattr
        torch.nn.Module.register_parameter = mod_regp
        torch.nn.Module.register_buffer = mod_regb
    order, done = [], set()

    def walk(m, prefix, kind):
        names = list(seen.get(id(m), []))
        names += [n for n in list(m._parameters) + list(m._buffers) +
                  list(m._modules) if n not in names]
        store = m._parameters if kind == "p" else m._buffers
        for n in names:
            if n in store and store[n] is not None:
                t = store[n]
                if id(t) not in done:
                    done.add(id(t))
                    order.append((prefix + n, t))
            elif n in m._modules and m._modules[n] is not None:
                walk(m._modules[n], prefix + n + ".", kind)

    walk(ref, "", "p")   # parameters first, then buffers (running stats)
    walk(ref, "", "b")
    return ref, order


def _fail(lib, what, rc):
    msg = getattr(lib, f"krl_{_STEM}_error")().decode(errors="replace")
    raise RuntimeError(f"{__name__}: {what} failed ({rc}): {msg}")


def _const_tensor(spec):
    """A task constant the Model does not hold: const(v) or a constant
    buffer's pattern (docs/language.md "Constant buffers")."""
    dt = _DTYPES[spec["dtype"]]
    if "const" in spec:
        return torch.full(spec["shape"], spec["const"], dtype=dt)
    p = spec["pattern"]
    if p["kind"].startswith("swin_"):
        # Swin-V2's tables are the Model's own registered buffers; one
        # left unmatched means the Model differs from the task
        raise ValueError(f"{__name__}: task param {spec['name']} is the Swin "
                         f"constant buffer {p['kind']}, which only the "
                         "Model's registered buffer provides; none matched")
    if p["kind"] == "arange":
        v = p["a"] + p["b"] * torch.arange(_numel(spec["shape"]),
                                           dtype=torch.float64)
        return v.reshape(spec["shape"]).to(dt)
    full = torch.full(spec["shape"], p["a"], dtype=torch.float64)
    tri = torch.tril if p["kind"] == "tril" else torch.triu
    return tri(full, int(p["b"])).to(dt)


class ModelNew(torch.nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()
        ref, order = _build_model(args, kwargs)
        # The task's params, in order, are the Model's parameters, then its
        # buffers, each in the order its __init__ created them (recorded
        # while it ran: named_parameters() lists a module's own parameters
        # before its submodules', whatever order __init__ used).
        # Params are matched in order, each to the next Model tensor, whose
        # element count must agree; a param drawn as const(v) with no such
        # tensor left to match is a constant of the task (a `zero` the
        # reference needs), not the Model's: it is filled with v.
        self._param_names = []
        k = 0
        for spec in (b for b in META["buffers"] if b["role"] == "param"):
            if k < len(order) and order[k][1].numel() == _numel(spec["shape"]):
                self._param_names.append(order[k][0])
                k += 1
            elif "const" in spec or "pattern" in spec:
                self._param_names.append(None)
            elif k < len(order):
                raise ValueError(f"{__name__}: task param {spec['name']} "
                                 f"{spec['shape']} does not match the Model's "
                                 f"{order[k][0]} {list(order[k][1].shape)}")
            else:
                raise ValueError(f"{__name__}: task param {spec['name']} has "
                                 "no Model parameter or buffer left to match")
        # Adopt the Model's state under the same names (state_dict keys match).
        for n, m in ref.named_children():
            self.add_module(n, m)
        for n, p in ref._parameters.items():
            self.register_parameter(n, p)
        for n, b in ref._buffers.items():
            self.register_buffer(n, b, persistent=n not in ref._non_persistent_buffers_set)
        specs = [b for b in META["buffers"] if b["role"] == "param"]
        for b, n in zip(specs, self._param_names):
            if n is None:
                self.register_buffer("_krl_const_" + b["name"], _const_tensor(b),
                                     persistent=False)
        # Each param's place, for forward's lookup: (submodule path, attribute,
        # dotted name, dtype, spec). forward walks the path again on every
        # call (a submodule or tensor replaced since is followed).
        self._param_paths = []
        for spec, n in zip(specs, self._param_names):
            n = n or "_krl_const_" + spec["name"]
            *path, attr = n.split(".")
            self._param_paths.append((tuple(path), attr, n,
                                      _DTYPES[spec["dtype"]], spec))
        self._derived = None
        self._init_key = None
        self._warm = set()
        self._ws = {}   # (device index, stream handle) -> workspace, eager calls

    def _params(self, dev):
        """The params' tensors in the task's order, contiguous (a copy where
        a param is not), checked for dtype and device."""
        out = []
        for path, attr, n, want, spec in self._param_paths:
            try:
                m = self
                for a in path:
                    m = m._modules[a]
                t = m._parameters.get(attr)
                if t is None:
                    t = m._buffers[attr]
            except (AttributeError, KeyError):
                # gone or renamed: PyTorch's own lookup says what is missing
                try:
                    t = self.get_parameter(n)
                except AttributeError:
                    t = self.get_buffer(n)
            if t.device != dev or t.dtype != want:
                raise ValueError(f"{__name__}: param {n} is {t.dtype} on "
                                 f"{t.device}; the export needs "
                                 f"{spec['dtype']} on {dev}")
            out.append(t if t.is_contiguous() else t.detach().contiguous())
        return out

    def _workspace(self, dev, stream):
        """The plan's workspace: kept per device and stream for eager calls
        (a stream runs its calls in order), new for each call captured in a
        CUDA graph (the graph's own pool)."""
        if torch.cuda.is_current_stream_capturing():
            return torch.empty(_WS_BYTES, dtype=torch.uint8, device=dev)
        key = (dev.index, stream.cuda_stream)
        ws = self._ws.get(key)
        if ws is None:
            ws = self._ws[key] = torch.empty(_WS_BYTES, dtype=torch.uint8,
                                             device=dev)
        return ws

    def _device(self, inputs):
        """Where a call runs: its first input's device, else the params'."""
        return inputs[0].device if inputs else next(self.parameters()).device

    def _with_masks(self, given):
        """The given inputs with each dropout keep mask drawn in between:
        True with probability p, as training-mode dropout keeps an element
        (the same distribution as KernelBench's Model, not its draws)."""
        dev = self._device(given)
        it = iter(given)
        out = []
        for _, _, spec in _INPUTS:
            if "bernoulli" in spec:
                out.append(torch.rand(spec["shape"], device=dev) <
                           spec["bernoulli"])
            else:
                out.append(next(it))
        return out

    @torch.compiler.disable
    def forward(self, *inputs):
        if _lib is None:
            load()
        if len(inputs) != len(_INPUTS):
            if not _MASKS or len(inputs) != len(_INPUTS) - _MASKS:
                also = (f" (or {len(_INPUTS) - _MASKS}, without the dropout "
                        "masks, which it then draws)" if _MASKS else "")
                raise TypeError(f"{__name__}: forward takes {len(_INPUTS)} "
                                f"inputs{also}, got {len(inputs)}")
            inputs = self._with_masks(inputs)
        dev = self._device(inputs)
        if dev.type != "cuda":
            raise ValueError(f"{__name__}: inputs must be CUDA tensors")
        xs = []
        for (want, numel, spec), x in zip(_INPUTS, inputs):
            if x.dtype != want or x.device != dev or x.numel() != numel:
                raise ValueError(
                    f"{__name__}: input {spec['name']} must be {spec['dtype']} "
                    f"{spec['shape']} on {dev} (the export is fixed to shape "
                    f"set {META['shapes']}), got {x.dtype} {list(x.shape)}")
            xs.append(x if x.is_contiguous() else x.contiguous())
        params = self._params(dev)
        outs = [torch.empty(shape, dtype=dt, device=dev) for shape, dt in _OUTPUTS]
        stream = torch.cuda.current_stream(dev)
        if dev.index not in self._warm and torch.cuda.is_current_stream_capturing():
            raise RuntimeError(f"{__name__}: run ModelNew once on this device "
                               "before capturing it in a CUDA graph (the first "
                               "call loads the library and sets up its state)")
        # the CUDA runtime launches on its current device: switch only when
        # that is not dev already
        on = (_SAME_DEVICE if torch.cuda.current_device() == dev.index
              else torch.cuda.device(dev))
        with on:
            derived = ()
            if META["derived_bytes"]:
                key = (dev, tuple((p.data_ptr(), p._version) for p in params))
                if self._derived is None or self._derived.device != dev:
                    self._derived = torch.empty(META["derived_bytes"],
                                                dtype=torch.uint8, device=dev)
                    self._init_key = None
                if key != self._init_key:
                    if torch.cuda.is_current_stream_capturing():
                        raise RuntimeError(f"{__name__}: parameters changed "
                                           "during a CUDA graph capture")
                    rc = _init(*[p.data_ptr() for p in params],
                               self._derived.data_ptr(), stream.cuda_stream)
                    if rc:
                        _fail(_lib, "init", rc)
                    self._init_key = key
                derived = (self._derived.data_ptr(),)
            ws = self._workspace(dev, stream)
            it = {"input": iter(xs), "param": iter(params), "output": iter(outs)}
            ptrs = [next(it[r]).data_ptr() for r in _ROLES]
            rc = _fwd(*ptrs, *derived, ws.data_ptr(), stream.cuda_stream)
            if rc:
                _fail(_lib, "forward", rc)
        self._warm.add(dev.index)
        return outs[0] if len(outs) == 1 else tuple(outs)
