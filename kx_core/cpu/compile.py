"""`kx compile FILE.cpp --target cpu:avx2`: a C++ kernel's assembly and vectorization
remarks, one record per exported function, without building anything else.

The kernel's own translation unit is compiled (`g++ -S`) with the tier's flags, debug
line info and GCC's vectorization report; a file that includes torch's headers gets
torch's include folders (slow: most of a minute), so the seed's layout (the SIMD kernel in
its own .cpp, the binding apart) opens in about a second. Compile errors become
diagnostics at their line; the seed's correctness rules (checks.py) are added as `rule`
diagnostics. Records carry the stages `asm` (Intel syntax, each instruction linked to
its line, intrinsics to their call site) and `vectorization` (every loop's remark)."""

from __future__ import annotations

import functools
import os
import re
import shutil
import tempfile
import time

from kx_core.base.tools import ToolFailed, find_tool, run_tool
from kx_core.cpu.assembly import split_functions
from kx_core.cpu.build_toml import BuildFlags, build_flags
from kx_core.cpu.checks import check_file
from kx_core.cpu.definitions import function_definitions, is_user_file
from kx_core.cpu.opt_record import find_record, loop_remarks
from kx_core.cpu.remarks import VectorRemark, parse_remarks, remarks_text
from kx_core.cpu.targets import COMMON_FLAGS, TIER_FLAGS, cpu_target
from kx_core.records.results import CompiledKernel, CompileResult, Diagnostic

# Example: "add.cpp:12:9: error: '_mm256_loadu_pz' was not declared in this scope"
_GCC_DIAG_RE = re.compile(r"^(.+?):(\d+):(\d+): (error|fatal error): (.*)$")
_TORCH_INCLUDE_RE = re.compile(r'#\s*include\s*[<"](?:torch|ATen|c10)/')
# Example: "call\t_ZN3c1010TensorImpl7releaseEv@PLT" -> "_ZN3c1010TensorImpl7releaseEv"
_MANGLED_RE = re.compile(r"\b_Z[\w$]+(?:\.[\w$]+)*")


def torch_include_flags() -> list[str]:
    """-I flags for torch's headers (needs torch; only for a file that includes them)."""
    import logging
    import sysconfig

    # its import logs "No CUDA runtime is found, using CUDA_HOME=..." (a warning about GPU
    # builds, on a CPU compile): not a word for a C++ kernel's output or status line
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
    from torch.utils.cpp_extension import include_paths

    # torch/extension.h includes Python.h too
    return [f"-I{p}" for p in [*include_paths(), sysconfig.get_paths()["include"]]]


def gcc_command(
    path: str, tier: str, asm_out: str, remarks_out: str, build: BuildFlags | None = None
) -> list[str]:
    """g++ for reading a kernel: the tier's flags, or those of the build.toml that builds
    it (its cxx-flags and include folders), with debug lines and the vectorizer's report."""
    compiler = find_tool("g++") or "g++"
    isa = [*build.cxx_flags, *(f"-I{d}" for d in build.include_dirs)] if build else [*TIER_FLAGS[tier]]
    flags = [*COMMON_FLAGS, *isa, "-g", "-dA", "-S", "-masm=intel"]
    flags += ["-fno-asynchronous-unwind-tables", f"-fopt-info-vec-all={remarks_out}", "-o", asm_out]
    # the JSON optimisation record, beside asm_out: each remark's function and inlining chain
    flags.insert(-2, "-fsave-optimization-record")
    return [compiler, *flags, path]


def demangle(symbols: list[str]) -> dict[str, str]:
    """Mangled -> readable names (c++filt; the names themselves when it is missing)."""
    tool = find_tool("c++filt")
    if not tool or not symbols:
        return {s: s for s in symbols}
    try:
        out = run_tool(tool, [], 10, stdin="\n".join(symbols) + "\n").splitlines()
    except ToolFailed:
        return {s: s for s in symbols}
    return dict(zip(symbols, out)) if len(out) == len(symbols) else {s: s for s in symbols}


def compile_step(path: str) -> str:
    """What compiling `path` does, said while it runs (a progress line): g++ on the file
    and, for a file that includes torch's headers (a torch extension), that they make it
    slow, so a minute of silence does not read as a hang (issue 54)."""
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            source = f.read()
        build = build_flags(path)
    except (OSError, ValueError):  # compile_cpp says what is wrong with it
        return f"g++ {name}"
    if _includes_torch(path, source, build.include_dirs if build else ()):
        return f"compiling the torch extension {name} with g++ and torch's headers (slow: most of a minute)"
    return f"compiling {name} with g++"


def compile_cpp(
    path: str, spec: str = "cpu:avx2", timeout_s: float = 180.0, keep: str | None = None
) -> CompileResult:
    """g++ on `path` for the tier in `spec`, read into kernels: one per function, with its
    assembly, vectorization remarks and where DWARF says it is defined. `keep`: a folder to
    copy g++'s own outputs into (the assembly, the JSON optimisation record, -fopt-info's
    text), for reading them another way (a torch extension's compile takes most of a minute:
    the tests read its record and DWARF from the same compile rather than a second one)."""
    path = os.path.abspath(path)
    tier = spec.split(":", 1)[1]
    target = cpu_target(tier)
    started = time.perf_counter()
    with open(path, encoding="utf-8", errors="replace") as f:
        source = f.read()
    with tempfile.TemporaryDirectory(prefix="kx-cpu-") as tmp:
        asm_path, remarks_path = os.path.join(tmp, "out.s"), os.path.join(tmp, "remarks.txt")
        build = build_flags(path)
        cmd = gcc_command(path, tier, asm_path, remarks_path, build)
        if _includes_torch(path, source, build.include_dirs if build else ()):
            cmd[1:1] = torch_include_flags()
        try:
            proc = run_tool(cmd[0], cmd[1:], timeout_s, cwd=os.path.dirname(path), check=False)
        except ToolFailed as e:  # it took too long, or could not start
            kind = "timeout" if e.timed_out else "environment"
            diag = Diagnostic(kind, str(e), path)
            return CompileResult(path, target, "", (), (diag,), time.perf_counter() - started)
        diagnostics = _gcc_diagnostics(proc.stderr, path) if proc.returncode else []
        if proc.returncode and not diagnostics:
            diagnostics = [Diagnostic("compile", proc.stderr.strip()[-800:] or "g++ failed", path)]
        asm = open(asm_path, encoding="utf-8").read() if os.path.exists(asm_path) else ""
        remark_text = open(remarks_path, encoding="utf-8").read() if os.path.exists(remarks_path) else ""
        record = find_record(tmp)
        remarks = loop_remarks(record, path) if record and not proc.returncode else None
        if keep:
            os.makedirs(keep, exist_ok=True)
            for name in os.listdir(tmp):
                shutil.copy2(os.path.join(tmp, name), keep)
    if remarks is None:  # no JSON record (an older GCC): -fopt-info's lines, by line range
        remarks = parse_remarks(remark_text, path)
    functions = split_functions(asm, path) if not proc.returncode else []
    definitions = function_definitions(asm) if functions else {}
    names = demangle(
        sorted({s for fn in functions for s in _MANGLED_RE.findall(fn.text)} | {f.symbol for f in functions})
    )
    for symbol, defined in definitions.items():
        if names.get(symbol, symbol) == symbol and symbol.startswith("_Z") and defined.dwarf_name:
            # c++filt 2.40 gives up on some lambda manglings (at::parallel_for's bodies):
            # DWARF's own name for the function reads instead
            names[symbol] = defined.dwarf_name
    own = _remarks_by_function(remarks, functions)
    kernels = []
    for fn in functions:
        defined = definitions.get(fn.symbol)
        mangled = set(_MANGLED_RE.findall(fn.text))
        kernels.append(
            CompiledKernel(
                name=names.get(fn.symbol, fn.symbol),
                status="compiled",
                target=target,
                source_file=path,
                source_line=fn.first_line,
                stages={"asm": fn.text, "vectorization": remarks_text(own.get(fn.symbol, []), path)},
                compile_time_s=time.perf_counter() - started,
                defined_in=defined.file if defined else None,
                library_code=not is_user_file(defined.file if defined else None, path),
                demangled={m: names[m] for m in sorted(mangled) if names.get(m, m) != m},
            )
        )
    # the user's functions first, in the file's order (the one selected first is theirs),
    # then library templates holding their loops (at::parallel_for's body), then the rest
    kernels.sort(key=lambda k: 0 if not k.library_code else 1 if k.stages["vectorization"] else 2)
    diagnostics += check_file(path)
    if build is not None:  # said: the flags are the build file's, not the tier's
        what = f"compiled with {os.path.relpath(build.toml, os.path.dirname(path))} [kernel.{build.kernel}]'s cxx-flags"
        diagnostics.append(Diagnostic("flags", f"{what}: {' '.join(build.cxx_flags)}", path))
    version = _gcc_version()
    return CompileResult(
        path,
        target,
        version,
        tuple(kernels),
        tuple(diagnostics),
        time.perf_counter() - started,
        output=proc.stderr,
    )


# Example: '#include "cpu_types_avx2.hpp"'
_QUOTED_INCLUDE_RE = re.compile(r'#\s*include\s*"([^"]+)"')


def _includes_torch(path: str, source: str, include_dirs=()) -> bool:
    """Whether the file, or a header of the user's it includes (`#include "..."`, found
    beside it or in the build's include folders), includes torch's headers: a kernel
    whose header includes <torch/all.h> needs torch's include folders too."""
    seen, todo = set(), [(path, source)]
    while todo and len(seen) < 64:
        current, text = todo.pop()
        if _TORCH_INCLUDE_RE.search(text):
            return True
        seen.add(current)
        for name in _QUOTED_INCLUDE_RE.findall(text):
            for folder in (os.path.dirname(current), *include_dirs):
                found = os.path.realpath(os.path.join(folder, name))
                if found not in seen and os.path.isfile(found):
                    with open(found, encoding="utf-8", errors="replace") as f:
                        todo.append((found, f.read()))
                    break
    return False


def _remarks_by_function(remarks: list[VectorRemark], functions) -> dict[str, list[VectorRemark]]:
    """Each function's loop remarks: those the record says are in its code; a remark of a
    function the assembly does not have (or one -fopt-info gave without its function) goes
    to the function whose lines hold it, else to the first function of the user's file, so
    that no loop's remark is lost."""
    symbols = {fn.symbol for fn in functions}
    mine = [fn for fn in functions if fn.first_line is not None]
    out: dict[str, list[VectorRemark]] = {}
    for remark in remarks:
        symbol = remark.function if remark.function in symbols else None
        if symbol is None:
            holding = [fn for fn in mine if fn.first_line <= remark.line]
            chosen = max(holding, key=lambda fn: fn.first_line, default=mine[0] if mine else None)
            symbol = chosen.symbol if chosen else None
        if symbol is not None:
            out.setdefault(symbol, []).append(remark)
    return out


def _gcc_diagnostics(stderr: str, path: str) -> list[Diagnostic]:
    out = []
    for raw in stderr.splitlines():
        m = _GCC_DIAG_RE.match(raw.strip())
        if m:
            file = (
                m.group(1) if os.path.isabs(m.group(1)) else os.path.join(os.path.dirname(path), m.group(1))
            )
            out.append(Diagnostic("compile", m.group(5), file, int(m.group(2)), int(m.group(3))))
    return out


@functools.cache
def _gcc_version() -> str:
    """Asked of g++ once per process (every compile names it)."""
    tool = find_tool("g++")
    try:
        return "g++ " + run_tool(tool, ["-dumpfullversion"], 10).strip() if tool else "g++"
    except ToolFailed:
        return "g++"
