"""`kx bench FILE.cpp --baseline BASELINE.py [--op NAME]`: build the kernel's folder as a
torch extension on the local CPU, check its op against the PyTorch baseline with the
structure-aware comparator, and time both the seed's way.

The build follows the seed's layout: every SIMD translation unit (a file whose name ends
in its tier, `*_avx2.cpp`, `*_avx512.cpp`) is compiled on its own with that tier's flags
(fast: no torch headers), the rest of the folder's C++ (dispatcher, binding) by
torch.utils.cpp_extension.load without SIMD flags, linked with those objects; each part
is kept in kx's cache folder under a hash of its own sources, headers and flags, so an
edit to a SIMD kernel rebuilds that object and the link only. The baseline follows
the seed's contract: `get_inputs()` gives the op's arguments, and `Model` (its forward
takes them) or `get_reference_output()` gives what the op must return.

Timing is torch.utils.benchmark.Timer.blocked_autorange for the op and for the baseline,
alternating, reported as medians with their interquartile range and the speed-up. Runs in
a worker process (`python -m kx_core.bench.cpu_bench`): a crash in the kernel costs that
process only."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import sys
from pathlib import Path

from kx_core.bench.cpu_result import CpuBenchResult, Timed
from kx_core.cpu.targets import tier_of_file
from kx_core.records.results import Diagnostic

# Example: 'TORCH_LIBRARY(kx_cpu, m) {' and 'm.def("rms_norm(Tensor x, ...) -> Tensor", &rms_norm);'
_LIBRARY_RE = re.compile(r"TORCH_LIBRARY\s*\(\s*(\w+)\s*,")
_DEF_RE = re.compile(r'\.def\(\s*"(\w+)\s*\(')


def variant_note(file: str, ran: str | None) -> dict:
    """What the result must say about which variant was timed: the one asked for (the
    opened file's tier), the one that ran, the folder's others, and a sentence when kx
    could not make sure they are the same."""
    asked = tier_of_file(file)
    folder = Path(file).resolve().parent
    variants = sorted({t for p in folder.glob("*.c*") if (t := tier_of_file(p.name))})
    out: dict = {"asked_tier": asked, "variants": variants}
    if ran is None:
        out["tier_note"] = "which variant ran is not known: the op has no `<op>_tier` companion to ask" + (
            f" (asked for {asked} with KX_CPU_TIER)" if asked else ""
        )
    elif asked is None:
        out["tier_note"] = f"timed the dispatcher's choice, {ran}: {os.path.basename(file)} names no tier"
    elif ran != asked:
        out["tier_note"] = (
            f"timed {ran}, not {asked}: the dispatcher did not take KX_CPU_TIER={asked} "
            "(this CPU cannot run it, or the dispatcher does not read it)"
        )
    return out


def registered_ops(folder: Path) -> list[str]:
    """'namespace::name' of every op a TORCH_LIBRARY block in the folder defines."""
    ops = []
    for path in sorted(folder.glob("*.cpp")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for lib in _LIBRARY_RE.finditer(text):
            ops += [f"{lib.group(1)}::{name}" for name in _DEF_RE.findall(text[lib.end() :])]
    return ops


def _digest(paths: list[Path], flags: object) -> str:
    digest = hashlib.sha256()
    for p in paths:
        digest.update(p.name.encode() + p.read_bytes())
    digest.update(repr(flags).encode())
    return digest.hexdigest()


def build(folder: Path, cache: Path) -> float:
    """Build the folder's op library and load it; returns the seconds the build took."""
    import logging
    import time

    # its import warns that no CUDA runtime is found: true, and not this CPU build's business
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
    from torch.utils.cpp_extension import load

    from kx_core.base.tools import run_tool
    from kx_core.cpu.targets import COMMON_FLAGS, TIER_FLAGS

    sources = sorted(p for p in folder.glob("*.cpp"))
    headers = sorted([*folder.glob("*.hpp"), *folder.glob("*.h")])
    simd = [p for p in sources if tier_of_file(p.name)]
    plain = [p for p in sources if not tier_of_file(p.name)]
    flags = (COMMON_FLAGS, TIER_FLAGS)
    # Each part is kept under the hash of what it is made from, so the edit a user makes
    # (a SIMD kernel's body) rebuilds that kernel's object and the link, not the torch
    # translation unit beside it (35 s of torch headers on 2 cores, against 1-2 s for the
    # kernel): the torch part's build folder is keyed by its own sources, headers and flags,
    # and ninja, keeping that folder, recompiles only what changed.
    out = cache / f"cpu-ext-{_digest(plain + headers, flags)[:16]}"
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    objects = []
    for src in simd:  # a SIMD translation unit: its own tier's flags, no torch headers
        tier = tier_of_file(src.name)
        obj = cache / "cpu-obj" / f"{src.stem}-{_digest([src, *headers], TIER_FLAGS[tier])[:16]}.o"
        if not obj.exists():
            obj.parent.mkdir(parents=True, exist_ok=True)
            part = obj.with_name(f"{obj.stem}.{os.getpid()}.o")  # renamed when whole
            cmd = [*COMMON_FLAGS, *TIER_FLAGS[tier], "-fPIC", "-c", "-o", str(part), str(src)]
            run_tool("g++", cmd, 600, cwd=str(folder))
            os.replace(part, obj)
        objects.append(str(obj))
    # ninja keys an object by its source's path and torch's flags carry the library's
    # name: the torch part is compiled from a copy in its build folder under a name of its
    # own sources, so the same sources in another folder (a copy of an example) reuse it
    # too. The folder's headers are copied beside it (an include outside the folder,
    # "../common.h", is not found: the command must not name the folder to be shared)
    copies = out / "src"
    copies.mkdir(exist_ok=True)
    for p in plain + headers:
        if not (copies / p.name).exists():  # an existing copy keeps its time: no rebuild
            part = copies / f".{p.name}.{os.getpid()}"
            part.write_bytes(p.read_bytes())
            os.replace(part, copies / p.name)
    # Builds of two kernels beside one torch part link the same library path: held from
    # the build to the load, so no other build relinks it in between (ld writes a new
    # file, so a library already loaded stays what was loaded).
    with open(out / "kx-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            load(
                name=f"kx_cpu_ext_{out.name.removeprefix('cpu-ext-')[:8]}",
                sources=[str(copies / p.name) for p in plain],
                extra_cflags=["-O3", "-fopenmp"],
                extra_ldflags=[*objects, "-fopenmp"],
                build_directory=str(out),
                is_python_module=False,
                verbose=False,
            )
        except Exception as e:  # noqa: BLE001 - re-raised: the messages name the user's files, not the copies
            raise RuntimeError(str(e).replace(str(copies), str(folder))) from None
    return time.perf_counter() - started


def _timed(stmt, globals_: dict) -> Timed:
    from torch.utils.benchmark import Timer

    m = Timer(stmt=stmt, globals=globals_).blocked_autorange(min_run_time=0.5)
    q1, q3 = (float(x) for x in __import__("numpy").percentile(m.times, [25, 75]))
    return Timed(m.median * 1e6, (q3 - q1) * 1e6, len(m.times))


def measure(file: str, baseline: str, op: str | None, cache: str, perf: bool = False) -> CpuBenchResult:
    import runpy

    import torch

    from kx_core.bench.compare import compare_structured

    folder = Path(file).resolve().parent
    ops = registered_ops(folder)
    if op is None and len(ops) != 1:
        why = "no TORCH_LIBRARY op" if not ops else f"{len(ops)} ops ({', '.join(ops)}): name one with --op"
        return CpuBenchResult(
            file, "", False, diagnostics=(Diagnostic("environment", f"{folder}: {why}", file),)
        )
    op = op or ops[0]
    asked = tier_of_file(file)
    if asked:  # the variant the user opened: a dispatcher that reads KX_CPU_TIER takes it
        os.environ["KX_CPU_TIER"] = asked
    build_s = build(folder, Path(cache))
    namespace, name = op.split("::")
    kernel = getattr(getattr(torch.ops, namespace), name)
    base = runpy.run_path(baseline)
    inputs = list(base["get_inputs"]())
    if "get_reference_output" in base:
        reference = base["get_reference_output"](*inputs)
        model = None
    else:
        model = base["Model"](*base.get("get_init_inputs", lambda: [])())
        reference = model(*inputs)
    out = kernel(*inputs)
    mismatches = compare_structured(reference, out)
    timed_kernel = _timed("kernel(*inputs)", {"kernel": kernel, "inputs": inputs})
    ref_fn = model if model is not None else base["get_reference_output"]
    timed_base = _timed("ref(*inputs)", {"ref": ref_fn, "inputs": inputs})
    extra = {}
    try:  # an op `<name>_tier` (as the examples' dispatcher has) says which ISA tier ran
        extra["tier"] = str(getattr(getattr(torch.ops, namespace), name + "_tier")())
    except (AttributeError, RuntimeError):
        pass
    extra.update(variant_note(file, extra.get("tier")))
    counted = None
    if perf:
        from kx_core.cpu.perf_stat import count

        with torch.no_grad():  # as the seed's runner: no autograd work in the counted calls
            counted = count(lambda: kernel(*inputs))
    return CpuBenchResult(
        perf=counted,
        extra=extra,
        file=file,
        op=op,
        correct=not mismatches,
        mismatches=tuple(mismatches),
        kernel=timed_kernel,
        baseline=timed_base,
        speedup=timed_base.median_us / timed_kernel.median_us,
        threads=torch.get_num_threads(),
        build_s=build_s,
    )


def run(
    file: str, baseline: str, op: str | None = None, timeout: float = 900.0, perf: bool = False
) -> CpuBenchResult:
    """measure() in a worker process (MeasureJob "cpu"); a crash or a hang is a diagnostic."""
    from kx_core.bench.bench import MeasureJob
    from kx_core.bench.requests import CpuBenchRequest

    return MeasureJob(CpuBenchRequest(baseline, op or "", perf), file).start().wait(timeout)


def main(argv: list[str] | None = None) -> int:
    from kx_core.bench.requests import CpuBenchRequest, read_request

    req, path, out = read_request(CpuBenchRequest, argv, "kx-cpu-bench-worker")
    req = req.resolved()
    try:
        result = measure(path, req.baseline, req.op or None, req.cache, req.perf)
    except Exception as e:  # noqa: BLE001 - a build or run failure is the result
        result = CpuBenchResult(
            path, req.op or "", False, diagnostics=(Diagnostic("compile", str(e)[-2000:], path),)
        )
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result.to_json(), f)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
