"""TileLang files (`@T.prim_func` programs compiled with `tilelang.compile` or
`@tilelang.jit`) under kx's capture. TileLang lowers a tile program through TVM's TIR to
CUDA C and compiles that with nvcc to a cubin, with no GPU needed once it is told the
arch. kx runs the file as it is and, for each kernel TileLang compiles:

- the target: where the file asks for "auto" or "cuda" (the local GPU on a real run),
  kx's target (sm_90a for cuda:90: TileLang's Hopper code needs wgmma's 'a' variant);
- what nvcc was given and gave: TileLang's own `compile_cuda` call is watched, its CUDA C
  kept and its cubin read (registers and shared memory from cuobjdump, SASS from
  nvdisasm, as for a Triton kernel); the PTX is nvcc's for the same code and options;
- the program as TileLang traced it (its TIR script) as the first stage.

TileLang's binary cache would answer a kernel compiled before without calling nvcc: the
job's own cache folder keeps every capture's compile real. Calling the compiled kernel
needs a GPU: kx returns empty (meta) tensors for its outputs instead and says so once, so
the file goes on to the kernels after it.
"""

from __future__ import annotations

import base64
import os
import re
import tempfile
import threading
from dataclasses import dataclass
from typing import Any

from kx_core.compile.capturing.device.aten_layouts import contiguous_strides
from kx_core.compile.capturing.languages import Captured
from kx_core.compile.capturing.languages.cute_capture import arch_for
from kx_core.records.results import CompiledKernel, Diagnostic, KernelMetadata, Launch, LaunchArg, Target

# Example: ".visible .entry main_kernel(" / ".entry gemm_kernel("
_ENTRY_RE = re.compile(r"^(?:\.visible\s+)?\.entry\s+(\w+)\s*\(", re.MULTILINE)
# Example: "extern "C" __global__ void __launch_bounds__(128, 1) main_kernel(" -> 128 threads
_BOUNDS_RE = re.compile(r"__launch_bounds__\((\d+)")
# the lowered device module's launch: Example: 'bx = T.launch_thread("blockIdx.x", 8)'
_GRID_RE = re.compile(r'T\.launch_thread\("blockIdx\.([xyz])", (\d+)\)')
# Example: 'T.func_attr({"calling_conv": 2, "dyn_shared_memory_buf": 49152, ...'
_DYN_SMEM_RE = re.compile(r'"dyn_shared_memory_buf": (\d+)')


@dataclass
class _Build:
    """One kernel being compiled: what nvcc was asked for while its JITKernel was made."""

    code: str = ""  # the CUDA C TileLang gave nvcc
    arch: str = ""  # nvcc's target: 'sm_90a'
    cubin: bytes = b""
    ptx: str = ""  # nvcc's PTX of the same code and options
    device_ir: str = ""  # the lowered device module (TVMScript): its launch and dynamic shared memory


_LOCAL = threading.local()
_KERNELS: list[CompiledKernel] = []
_SAID: set[str] = set()


def prepare(text: str, target: Target) -> bool:
    """Before a TileLang file runs (for a target TileLang compiles for: the language
    table's `marks` and `compiles_for`), TileLang's compiles watched and its target, cache
    and launches set as the module says. True."""
    folder = tempfile.mkdtemp(prefix="tilelang-", dir=os.environ.get("KX_JOB_DIR") or None)
    os.environ["TILELANG_CACHE_DIR"] = folder
    os.environ["TILELANG_DISABLE_CACHE"] = "1"
    if "CUDA_HOME" not in os.environ and "CUDA_PATH" not in os.environ and (home := _pip_cuda_home()):
        # the nvcc kx[tilelang] installs, matched to torch's CUDA headers, rather than
        # whichever nvcc PATH finds first: the same compile on every machine
        os.environ["CUDA_HOME"] = home
    from kx_core.compile.capturing.import_hooks import after_import

    arch = arch_for(target)
    after_import("tilelang.backend.target", lambda m: _target_is_kx_s(m, arch))
    after_import("tilelang.contrib.nvcc", _watch_nvcc)
    after_import("tilelang.jit.kernel", lambda m: _record_kernels(m, target))
    after_import("tilelang.profiler", _profiler_placeholders)
    return True


def _profiler_placeholders(module: Any) -> None:
    """TileLang's Profiler checks a kernel against a reference on random GPU inputs and times
    it: no GPU here, so each check is a placeholder that passed and each timing one in the
    shape do_bench gives, as for Triton's testing helpers (the kernel was compiled before)."""
    from kx_core.compile.capturing.device.placeholders import LEDGER

    profiler = getattr(module, "Profiler", None)
    if profiler is None:
        return
    for name in ("assert_allclose", "manual_assert_close", "assert_consistent"):
        if hasattr(profiler, name):
            setattr(
                profiler,
                name,
                lambda self, *a, _n=name, **k: LEDGER.use(f"tilelang Profiler.{_n}", "passed", steers=False),
            )
    if hasattr(profiler, "do_bench"):
        profiler.do_bench = lambda self, *a, **k: LEDGER.timing("tilelang Profiler.do_bench")
    if hasattr(profiler, "run_once"):
        profiler.run_once = lambda self, *a, **k: LEDGER.use("tilelang Profiler.run_once", None, steers=False)


def _pip_cuda_home() -> str | None:
    """The folder above pip's nvcc (nvidia-cuda-nvcc: nvidia/cu13/bin/nvcc), or None."""
    from importlib import metadata

    try:
        files = metadata.files("nvidia-cuda-nvcc") or []
    except metadata.PackageNotFoundError:
        return None
    nvcc = next((f for f in files if f.name == "nvcc"), None)
    return str(nvcc.locate().parent.parent) if nvcc is not None else None


def finish(prepared: bool, namespace: dict, user_file: str, target: Target) -> Captured:
    """After the run: what TileLang compiled, whether or not the run then failed, each
    compile its own record."""
    return Captured(kernels=[(f"tilelang:{i}:{k.name}", k) for i, k in enumerate(records(user_file))])


def records(user_file: str) -> list[CompiledKernel]:
    """The kernels TileLang compiled in this run, in order."""
    import dataclasses

    return [dataclasses.replace(k, source_file=user_file) for k in _KERNELS]


def _target_is_kx_s(module: Any, arch: str) -> None:
    real = module.determine_target

    def determine_target(target="auto", return_object=False):
        if isinstance(target, str) and target in ("auto", "cuda"):
            target = {"kind": "cuda", "arch": arch}
        return real(target, return_object=return_object)

    module.determine_target = determine_target


def _watch_nvcc(module: Any) -> None:
    real = module.compile_cuda

    def compile_cuda(code, target_format="ptx", arch=None, options=None, path_target=None, verbose=False):
        binary = real(code, target_format, arch, options=options, path_target=path_target, verbose=verbose)
        build = getattr(_LOCAL, "build", None)
        if build is not None:
            opts = [options] if isinstance(options, str) else list(options or [])
            build.code, build.arch = code, _arch(arch, opts)
            if target_format == "ptx":
                build.ptx = bytes(binary).decode("utf-8", "replace")
            else:  # the cubin TileLang loads, and nvcc's PTX of the same code and options
                build.cubin = bytes(binary)
                build.ptx = bytes(real(code, "ptx", arch, options=opts, verbose=False)).decode(
                    "utf-8", "replace"
                )
        return binary

    module.compile_cuda = compile_cuda


def _record_kernels(module: Any, target: Target) -> None:
    jit_kernel = module.JITKernel
    init = jit_kernel.__init__

    def __init__(self, func=None, *args, **kwargs):
        _LOCAL.build = build = _Build()
        try:
            init(self, func, *args, **kwargs)
        finally:
            _LOCAL.build = None
        if build.code:
            _KERNELS.append(_record(self, func, build, target))

    def __call__(self, *args, **kwargs):
        return _launch_placeholder(self)

    lower = getattr(jit_kernel, "_compile_artifact", None)

    def _compile_artifact(self, *args, **kwargs):
        artifact = lower(self, *args, **kwargs)
        build = getattr(_LOCAL, "build", None)
        if build is not None and getattr(artifact, "device_mod", None) is not None:
            build.device_ir = str(artifact.device_mod)
        return artifact

    jit_kernel.__init__ = __init__
    jit_kernel.__call__ = __call__
    if lower is not None:
        jit_kernel._compile_artifact = _compile_artifact


def _record(kernel: Any, func: Any, build: _Build, target: Target) -> CompiledKernel:
    from kx_core.compile.artifacts import resources

    code, ptx, cubin = build.code, build.ptx, build.cubin
    entry = _ENTRY_RE.search(ptx)
    usage = resources.cubin_resources(cubin, entry.group(1) if entry else None) if cubin else None
    static = (usage.shared or 0) if usage else 0
    bounds = _BOUNDS_RE.search(code)
    grid = dict(_GRID_RE.findall(build.device_ir))
    dynamic = int(m.group(1)) if (m := _DYN_SMEM_RE.search(build.device_ir)) else 0
    stages = {"tilelang": _script(func), "cudac": code, "ptx": ptx}
    name = getattr(getattr(func, "attrs", None), "get", lambda *_: None)("global_symbol") or "main"
    metadata = KernelMetadata(
        num_warps=int(bounds.group(1)) // 32 if bounds else 0,
        num_stages=0,  # TileLang pipelines in the program (T.Pipelined); Triton's knob has no meaning
        # per block: the cubin's static shared memory and the dynamic part TileLang's host
        # code asks for at launch (its pipeline buffers)
        shared=static + dynamic,
        registers=usage.registers if usage else None,
        spills=usage.spills if usage else None,
        local=usage.local if usage else None,
        stack=usage.stack if usage else None,
        extra={
            "notes": [
                *([] if bounds else ["the block size is set at launch: warps unknown"]),
                f"shared memory: {static} B static (the cubin's) + "
                f"{dynamic} B dynamic (TileLang's pipeline buffers, asked for at launch)",
            ],
            "compiler": "tilelang",
            "compiler_version": _version(),
            "cuda_home": os.environ.get("CUDA_HOME", ""),
            "arch": build.arch,
        },  # fmt: skip
    )
    launch = None
    if grid:  # the program fixes its grid (T.Kernel's extents): any call launches this one
        launch = Launch(
            grid=tuple(int(grid.get(a, 1)) for a in "xyz"),  # type: ignore[arg-type]
            args=tuple(_arg(i, p) for i, p in enumerate(getattr(kernel, "params", None) or [])),
            constexprs={},
            num_warps=metadata.num_warps,
            num_stages=0,
        )
    return CompiledKernel(
        name=str(name),
        launch=launch,
        status="compiled",
        target=target,
        source_file="",  # the user's file: records()
        stages={k: v for k, v in stages.items() if v},
        binaries={"cubin": base64.b64encode(cubin).decode("ascii")} if cubin else {},
        metadata=metadata,
        message=f"TileLang kernel {name}({_signature(kernel)}): its CUDA C compiled by nvcc for "
        f"{metadata.extra['arch'] or 'the target'}",
    )


def _arg(index: int, param: Any) -> LaunchArg:
    """A kernel parameter as a launch argument: a contiguous tensor of its declared shape."""
    try:
        shape = tuple(int(x) for x in getattr(param, "shape", []))
    except (TypeError, ValueError):  # a symbolic extent: its size is the call's
        return LaunchArg(f"arg{index}", "tensor", dtype=str(getattr(param, "dtype", "")) or None)
    strides = tuple(contiguous_strides(shape))
    return LaunchArg(f"arg{index}", "tensor", dtype=str(param.dtype), shape=shape, strides=strides)


def _signature(kernel: Any) -> str:
    """The kernel's parameters as TileLang declares them. Example: 'float16[1024x1024], ...'."""
    out = []
    for p in getattr(kernel, "params", None) or []:
        shape = "x".join(str(s) for s in getattr(p, "shape", []))
        out.append(f"{getattr(p, 'dtype', '?')}[{shape}]")
    return ", ".join(out)


def _arch(arch: Any, options: list[str]) -> str:
    """'sm_90a' from nvcc's arch argument ('sm_90a', or a list such as ['-arch=sm_90a'])
    or, without one, its options."""
    for a in [arch] if isinstance(arch, str) else [*(arch or []), *options]:
        if m := re.search(r"(sm_\w+|compute_\w+)", str(a)):
            return m.group(1)
    return ""


def _script(func: Any) -> str:
    script = getattr(func, "script", None)
    try:
        return script() if callable(script) else ""
    except (RuntimeError, ValueError, TypeError):  # a program TVM cannot print: no stage
        return ""


def _version() -> str:
    import sys

    return str(getattr(sys.modules.get("tilelang"), "__version__", "") or "")


def _launch_placeholder(kernel: Any) -> Any:
    """A compiled kernel's call: no GPU to run it on. Its outputs (out_idx) are empty meta
    tensors of their declared shapes, and the file goes on."""
    import torch

    from kx_core.compile.capturing import capture_state

    user = capture_state.STATE.user_file
    if "launch" not in _SAID:
        _SAID.add("launch")
        capture_state.STATE.send_diagnostic(
            Diagnostic(
                "placeholder",
                "a TileLang kernel's launch was skipped (no GPU here): its outputs are empty tensors of "
                "their declared shapes, and the file went on to the kernels after it",
                user or None,
                _user_line(user),
            )
        )
    params = list(getattr(kernel, "params", []) or [])
    out_idx = getattr(kernel, "out_idx", None) or []
    out_idx = [out_idx] if isinstance(out_idx, int) else list(out_idx)
    outs = []
    for i in out_idx:
        p = params[i]
        shape = [int(s) for s in p.shape]
        dtype = p.torch_dtype() if hasattr(p, "torch_dtype") else torch.float32
        outs.append(torch.empty(shape, dtype=dtype, device="meta"))
    if not outs:
        return None
    return outs[0] if len(outs) == 1 else outs


def _user_line(user: str) -> int | None:
    import sys

    frame = sys._getframe(1)
    while frame is not None:
        if user and os.path.abspath(frame.f_code.co_filename) == os.path.abspath(user):
            return frame.f_lineno
        frame = frame.f_back
    return None
