"""An Inductor output module (the `output_code.py` torch.compile writes) as a record holds
it: its Triton kernels read from the text, and their stages as kx compiles that text.

Inductor's module keeps each kernel's Python as a string (`async_compile.triton(NAME,
'''...''')`) with its `triton_meta` (signature, the device it was generated for) and
`inductor_meta`; neither a TORCH_COMPILE_DEBUG folder nor a TORCH_TRACE log keeps any
IR. So the stages here are kx's own: the module compiled under kx's capture
(kx_core.compile, which runs Inductor's runtime and compiles each config its
heuristics list) for the target the module names. Every kernel says so
(`metadata.extra["recompiled"]`, shown by record_notes) and the result carries a
`recompiled` Diagnostic naming the Triton that compiled it beside the run's, where the
record names that.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from importlib import metadata as package_metadata

from kx_core.compile import CompileRequest, compile_file
from kx_core.records.results import CompiledKernel, CompileResult, Diagnostic, KernelMetadata
from kx_core.records.target import parse_target

# A kernel's block in the module: its variable, the kernel's name and its source string.
# Example: triton_poi_fused_add_0 = async_compile.triton('triton_poi_fused_add_0', '''
_BLOCK_START_RE = re.compile(r"^(\w+) = async_compile\.triton\('(\w+)', '''$", re.MULTILINE)
# Example: ''', device_str='cuda')
_BLOCK_END_RE = re.compile(r"^''', device_str='(\w+)'\)$", re.MULTILINE)
# The device Inductor generated the kernel for, in its triton_meta.
# Example: 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, max_threads_per_block=1024, warp_size=32)
_DEVICE_RE = re.compile(r"DeviceProperties\(type='(\w+)',[^)]*?\bcc='?(\w+)'?[,)]")
# Example: def triton_poi_fused_add_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
_DEF_RE = re.compile(r"^def (\w+)\(", re.MULTILINE)


@dataclass(frozen=True)
class ModuleKernel:
    """One kernel block of an output module as its text has it (lines are the module's,
    1-based). `end_line` is None for a block cut short; `target` is None where the
    block's triton_meta names no device."""

    name: str
    line: int  # the `= async_compile.triton(` line
    def_line: int | None
    end_line: int | None
    target: str | None  # 'cuda:90', 'hip:gfx942'


def module_kernels(text: str) -> list[ModuleKernel]:
    """Every Triton kernel block of an output module's text, in order."""
    out = []
    starts = list(_BLOCK_START_RE.finditer(text))
    for i, start in enumerate(starts):
        limit = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        end = _BLOCK_END_RE.search(text, start.end(), limit)
        body = text[start.end() : end.start() if end else limit]
        device = _DEVICE_RE.search(body)
        defined = next((m for m in _DEF_RE.finditer(body) if m.group(1) == start.group(2)), None)
        line = text.count("\n", 0, start.start()) + 1
        out.append(
            ModuleKernel(
                name=start.group(2),
                line=line,
                def_line=line + body.count("\n", 0, defined.start()) if defined else None,
                end_line=text.count("\n", 0, end.start()) + 1 if end else None,
                target=f"{device.group(1)}:{device.group(2)}" if device else None,
            )
        )
    return out


@dataclass(frozen=True)
class RecordedRun:
    """What the record says of the run that wrote the module (None: it does not say), and
    the configs it launched (kernel name -> triton.Config kwargs with num_warps and
    num_stages), for the recompiled kernels to be matched with."""

    origin: str  # 'inductor-debug model__0_inference_0.0', 'torch-trace line 1335'
    triton: str | None = None
    torch: str | None = None
    launched: dict[str, dict] | None = None
    launched_from: str = ""  # where `launched` was read: "the log's triton_kernel_info"
    record_file: str | None = None  # the module's path on the machine that ran (a log's)


def recompile_module(file: str, text: str, run: RecordedRun) -> tuple[CompileResult | None, list, list]:
    """The module at `file` (its text `text`, as the record holds it) compiled by kx for
    the target its kernels name: (the compile's result or None, its kernels labelled
    recompiled, diagnostics). A kernel of the text kx's compile did not make is a
    `failed` kernel at its line, with the reason."""
    found = module_kernels(text)
    diagnostics: list[Diagnostic] = []
    named = sorted({k.target for k in found if k.target})
    targets = [t for t in named if _supported(t)]
    if len(targets) < len(named):
        others = ", ".join(t for t in named if t not in targets)
        diagnostics.append(
            Diagnostic("recompiled", f"kernels for {others}: kx compiles for CUDA and HIP only", file)
        )
    target = targets[0] if targets else "cuda:90"
    if not named and found:
        diagnostics.append(
            Diagnostic(
                "recompiled", "no kernel's triton_meta names a device: compiled for cuda:90 (a guess)", file
            )
        )
    if len(targets) > 1:
        diagnostics.append(
            Diagnostic("recompiled", f"kernels for {', '.join(targets)}: all compiled for {target}", file)
        )
    for k in found:
        if k.end_line is None:
            diagnostics.append(
                Diagnostic(
                    "record",
                    f"the source of {k.name} is cut short (no closing '''): not compiled",
                    file,
                    k.line,
                )
            )
    if not found:
        diagnostics.append(
            Diagnostic("record", "no Triton kernel (async_compile.triton) in this module", file)
        )
        return None, [], diagnostics
    complete = [k for k in found if k.end_line is not None]
    result = None
    if complete:
        result = compile_file(CompileRequest(file, target=target, cwd=os.path.dirname(file)))
        diagnostics += [
            replace(d, kind="record") if d.kind == "not-captured" else d for d in result.diagnostics
        ]
    compiled = list(result.kernels) if result else []
    note = _recompiled_note(os.path.basename(file), target, result.triton_version if result else None, run)
    kernels = [_labelled(k, run, note) for k in compiled]
    made = {k.name for k in compiled}
    for k in found:
        if k.name not in made:
            why = (
                "its source is cut short"
                if k.end_line is None
                else "kx's compile of the module did not make it"
            )
            kernels.append(
                CompiledKernel(
                    k.name,
                    "failed",
                    result.target if result else parse_target(target),
                    source_file=file,
                    source_line=k.def_line or k.line,
                    metadata=KernelMetadata(0, 0, extra={"record": run.origin, "recompiled": note}),
                    message=f"not compiled: {why}",
                )
            )
    if result is not None:
        diagnostics.insert(0, Diagnostic("recompiled", note, file))
    diagnostics += _launched_diagnostics(kernels, run, file)
    return result, kernels, diagnostics


# why a record's module was not run, said in its diagnostic and its kernels' rows
NOT_RUN = (
    "not run: {name} is the record's own Python, and kx compiles its kernels by running it under "
    "its capture, which runs whatever else it holds; its kernels are listed from its text, with no stages"
)


NOT_RUN_ROW = "the record's module was not run (not trusted): no stages"


def list_module(file: str, text: str, run: RecordedRun) -> tuple[list, list]:
    """The module's kernels as its text names them, nothing run (the record is not
    trusted): (kernels, diagnostics). Each kernel is `not-launched` at its def line, with
    no stages; one `not-captured` diagnostic says why (the result is incomplete)."""
    found = module_kernels(text)
    if not found:
        return [], [Diagnostic("record", "no Triton kernel (async_compile.triton) in this module", file)]
    why = NOT_RUN.format(name=os.path.basename(file))
    kernels = [
        CompiledKernel(
            k.name,
            "not-launched",
            parse_target(k.target if k.target and _supported(k.target) else "cuda:90"),
            source_file=file,
            source_line=k.def_line or k.line,
            metadata=KernelMetadata(0, 0, extra={"record": run.origin, "notes": [NOT_RUN_ROW]}),
            message=f"not compiled: {NOT_RUN_ROW}",
        )
        for k in found
    ]
    return kernels, [Diagnostic("not-captured", why, file)]


def _supported(spec: str) -> bool:
    try:
        parse_target(spec)
    except ValueError:  # TargetError: a device kx has no backend for (Inductor's xpu, mtia)
        return False
    return True


def _recompiled_note(name: str, target: str, triton: str | None, run: RecordedRun) -> str:
    """What a recompiled kernel's row and the result say: kx compiled the record's source."""
    note = f"the record holds {name}'s source, no IR: these stages are kx's compile of it for {target}"
    if triton:
        note += f" with Triton {triton}"
    note += ", its grid and launch count kx's capture of the module's own run (its __main__ benchmark)"
    if run.triton and triton and run.triton != triton:
        note += f"; the run had Triton {run.triton}: its IR may differ"
    elif not run.triton:
        note += "; the record does not name the run's Triton"
    here = _version("torch")
    if run.torch and here and run.torch != here:
        note += f"; its configs are this machine's Inductor's (torch {here}; the run's was {run.torch})"
    return note


def _version(package: str) -> str | None:
    try:
        return package_metadata.version(package)
    except package_metadata.PackageNotFoundError:
        return None


def _config_values(k: CompiledKernel) -> dict | None:
    if k.config is None:
        return None
    return dict(k.config.kwargs) | {"num_warps": k.config.num_warps, "num_stages": k.config.num_stages}


def _labelled(k: CompiledKernel, run: RecordedRun, note: str) -> CompiledKernel:
    """A kernel of kx's compile, marked as recompiled from the record; where the record
    says which config the run launched, `chosen` says so (and not kx's guess)."""
    md = k.metadata or KernelMetadata(0, 0)
    extra = dict(md.extra) | {
        "record": run.origin,
        "recompiled": note,
        "record_stages": [],
        "derived_stages": [],
    }
    if run.record_file:
        extra["record_file"] = run.record_file
    chosen = k.chosen
    if run.launched is not None and k.name in run.launched:
        # the record says which config ran: kx's choice (`chosen`, a guess) gives way to it
        chosen = None
        ran = _config_values(k) == run.launched[k.name]
        extra["launched"] = (
            f"the run {'launched this config' if ran else 'did not launch this config'} ({run.launched_from})"
        )
    return replace(k, metadata=replace(md, extra=extra), chosen=chosen)


def _launched_diagnostics(kernels: list[CompiledKernel], run: RecordedRun, file: str) -> list[Diagnostic]:
    """A config the record says the run launched that kx's compile did not make."""
    out = []
    for name, launched in (run.launched or {}).items():
        mine = [k for k in kernels if k.name == name and k.status != "failed"]
        if mine and not any(_config_values(k) == launched for k in mine):
            text = ",".join(f"{k}={v}" for k, v in launched.items())
            out.append(
                Diagnostic(
                    "recompiled",
                    f"the run launched {name} with {text} ({run.launched_from}); kx's compile has no such config",
                    file,
                    kernel=name,
                )
            )
    return out
