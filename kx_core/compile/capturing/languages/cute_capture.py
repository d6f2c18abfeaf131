"""CuTe DSL files (`@cute.jit` / `@cute.kernel`, NVIDIA's nvidia-cutlass-dsl) under kx's
capture. The DSL compiles through its own MLIR to PTX and a cubin, with no GPU needed
(`cute.compile` on fake tensors). kx runs the file as it is, with the DSL told to keep its
artifacts in the job's folder (CUTE_DSL_KEEP, CUTE_DSL_DUMP_DIR), to compile for the
target's arch (CUTE_DSL_ARCH) and with line info (CUTE_DSL_LINEINFO), and reads back one
kernel record per compiled program: its MLIR before any pass (located in the source),
PTX, the cubin (SASS and resources from it, as for Triton's).

A run that then launches the compiled program fails here (no GPU): what was compiled
before that is still shown, with the run's error as a diagnostic.
"""

from __future__ import annotations

import base64
import glob
import os
import re
import tempfile
from pathlib import Path

from kx_core.compile.artifacts import resources
from kx_core.compile.capturing.languages import Captured
from kx_core.records.results import CompiledKernel, KernelMetadata, Target

# Example: ".visible .entry kernel_cutlass_add_kernel_tensorptrf32gmemo2565121256_0("
_ENTRY_RE = re.compile(r"^\.visible \.entry (\w+)\(", re.MULTILINE)
# Example: ".reqntid 256, 1, 1" (the block the program launches with, when fixed)
_NTID_RE = re.compile(r"^\.(?:reqntid|maxntid) (\d+)(?:, (\d+))?(?:, (\d+))?", re.MULTILINE)
# Example: "cutlass_add_FakeTensorFloat32..._0.sm_90a.ptx" -> base "cutlass_add_...", arch "sm_90a"
_ARTIFACT_RE = re.compile(r"^(?P<base>.+)\.(?P<arch>sm_\w+)\.(?P<ext>ptx|cubin)$")


def arch_for(target: Target) -> str:
    """The DSL's arch for a CUDA target: sm_90a for cuda:90 (wgmma and TMA need the 'a'
    variant, which the DSL's Hopper and Blackwell code assumes), sm_100a, sm_80."""
    arch = int(target.arch)
    return f"sm_{arch}a" if arch >= 90 else f"sm_{arch}"


def prepare(text: str, target: Target) -> str | None:
    """Before a CuTe DSL file runs (for a target the DSL compiles for: the language
    table's `marks` and `compiles_for`), the DSL's artifacts kept in a folder of the
    job's; returns that folder."""
    folder = tempfile.mkdtemp(prefix="cute-", dir=os.environ.get("KX_JOB_DIR") or None)
    os.environ.update(
        CUTE_DSL_KEEP="ir-debug,ptx,cubin",
        CUTE_DSL_DUMP_DIR=folder,
        CUTE_DSL_ARCH=arch_for(target),
        CUTE_DSL_LINEINFO="1",
    )
    from kx_core.compile.capturing.languages import cute_stand_ins

    cute_stand_ins.install(_told_stand_in)
    return folder


# what kx stood in for, as the placeholder diagnostic says it
_STOOD_IN = {
    "from_dlpack": "from_dlpack got kx's stand-in for a CUDA tensor: the DSL compiled from its description "
    "(cuda:0, its dtype, shape and strides, a 256-byte aligned address), as the real run's tensor gives "
    "it",
    "initialize_cuda_context": "the CUDA context is kx's capture device: no driver was started",
    "launch": "the compiled program's launch was skipped (no GPU here): what it writes stays kx's placeholder "
    "data, and the file went on to the programs after it",
    "HardwareInfo": "HardwareInfo answered from the capture device ({gpu}: {sms} SMs; max active clusters = "
    "SMs / cluster size, one CTA an SM; the driver's occupancy query can allow fewer for a kernel's own "
    "resources)",
}


def _told_stand_in(what: str, file: str, line: int) -> None:
    from kx_core.compile.capturing import capture_state
    from kx_core.records.results import Diagnostic

    gpu = getattr(capture_state.STATE.report, "gpu", None)
    message = _STOOD_IN[what].format(gpu=getattr(gpu, "name", "?"), sms=getattr(gpu, "sm_count", "?"))
    capture_state.STATE.send_diagnostic(Diagnostic("placeholder", message, file, line))


def finish(folder: str, namespace: dict, user_file: str, target: Target) -> Captured:
    """After the run: what the DSL compiled, whether or not the run then failed."""
    return Captured(kernels=[(f"cute:{k.name}:{k.message}", k) for k in records(folder, target, user_file)])


def records(folder: str, target: Target, user_file: str) -> list[CompiledKernel]:
    """One record per program the DSL compiled into `folder`."""
    out = []
    for ptx_path in sorted(glob.glob(os.path.join(folder, "*.ptx"))):
        m = _ARTIFACT_RE.match(os.path.basename(ptx_path))
        if not m:
            continue
        base = m.group("base")
        ptx = Path(ptx_path).read_text(encoding="utf-8", errors="replace")
        stages = {}
        ir_path = os.path.join(folder, f"cute_dsl_{base}.mlir")
        if os.path.exists(ir_path):
            stages["cute"] = Path(ir_path).read_text(encoding="utf-8", errors="replace")
        stages["ptx"] = ptx
        cubin_path = ptx_path[: -len(".ptx")] + ".cubin"
        binaries, usage = {}, resources.ResourceUsage(reason="no cubin kept")
        entry = _ENTRY_RE.search(ptx)
        if os.path.exists(cubin_path):
            cubin = Path(cubin_path).read_bytes()
            binaries["cubin"] = base64.b64encode(cubin).decode("ascii")
            usage = resources.cubin_resources(cubin, entry.group(1) if entry else None)
        ntid = _NTID_RE.search(ptx)
        threads = 1
        for g in ntid.groups() if ntid else ():
            threads *= int(g or 1)
        notes = [usage.reason] if usage.reason else []
        if not ntid:
            notes.append("the block size is set at launch (not in the binary): warps unknown")
        metadata = KernelMetadata(
            num_warps=threads // 32 if ntid else 0,
            num_stages=0,  # the DSL pipelines in the program itself; Triton's knob has no meaning
            shared=usage.shared or 0,
            registers=usage.registers,
            spills=usage.spills,
            local=usage.local,
            stack=usage.stack,
            extra={
                "notes": notes,
                "compiler": "nvidia-cutlass-dsl",
                "compiler_version": _dsl_version(),
                "arch": m.group("arch"),
            },  # fmt: skip
        )
        out.append(
            CompiledKernel(
                name=_program_name(base),
                status="compiled",
                target=target,
                source_file=user_file,
                stages=stages,
                binaries=binaries,
                metadata=metadata,
                message=f"CuTe DSL program {base}" + (f" (kernel {entry.group(1)})" if entry else ""),
            )
        )
    return out


def _dsl_version() -> str:
    import sys

    return str(getattr(sys.modules.get("cutlass"), "__version__", "") or "")


def _program_name(base: str) -> str:
    """'cutlass_add_FakeTensorFloat32...' -> 'add': the @cute.jit function's name (the DSL
    prefixes 'cutlass_' and appends the arguments' types)."""
    name = base[len("cutlass_") :] if base.startswith("cutlass_") else base
    return re.split(r"_(?:FakeTensor|Tensor|Float|Int|Pointer|Stream|Shape)", name, maxsplit=1)[0] or name
