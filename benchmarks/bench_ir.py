"""IR analysis speed, each figure next to a reference measured in the same run.

    python benchmarks/bench_ir.py

1. Every analysis of a 50,000-line LLVM IR plus its PTX (stage detection, ops,
   concepts, PTX classes, source locations, the instruction summary):
   target <= 300 ms. Reference: one pass of Python's own str.splitlines over both.
2. Parsing the full pass dump (MLIR + LLVM) of the autotuned matmul's first config:
   target <= 0.5 s. Reference: reading it line by line with one regex (the headers).
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import _scratch  # noqa: F401 - before any folder is made: removed at exit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["KX_CACHE_DIR"] = tempfile.mkdtemp(prefix="kx-bench-ir-")

from kx_core.compile import CompileRequest, compile_file  # noqa: E402
from kx_core.ir import anatomy  # noqa: E402
from kx_core.ir.passes import parse_pass_dump  # noqa: E402
from kx_core.ir.sourcemap import build_source_map  # noqa: E402
from kx_core.ir.summary import summarize  # noqa: E402
from kx_core.records.results import CompiledKernel  # noqa: E402

KERNELS = ROOT / "kx_core" / "data" / "examples"
sys.path.insert(0, str(ROOT / "scripts"))


def grow(text: str, lines: int) -> str:
    body = text.splitlines()
    return "\n".join((body * (lines // len(body) + 1))[:lines])


def analyses(llir: str, ptx: str, kernel: CompiledKernel) -> None:
    for text in (llir, ptx):
        anatomy.detect_stage(text)
        anatomy.concepts(text)
        anatomy.ptx_instructions(text)
    build_source_map({"llir": llir, "ptx": ptx}, kernel.source_file or "")
    summarize(kernel)


def best_of(fn, n=5) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def full_pass_dump(kernel: CompiledKernel) -> str:
    from capture_ir_fixtures import pass_dump  # the fixture script's replay of a specialization

    return pass_dump(KERNELS / "matmul_autotune.py", kernel, llvm=True)


def main() -> None:
    result = compile_file(CompileRequest(str(KERNELS / "matmul_autotune.py"), target="cuda:90"))
    kernel = result.kernels[0]
    llir = grow(kernel.stages["llir"], 50_000)
    ptx = grow(
        kernel.stages["ptx"],
        len(llir.splitlines())
        * len(kernel.stages["ptx"].splitlines())
        // len(kernel.stages["llir"].splitlines()),
    )
    big = CompiledKernel(
        kernel.name, kernel.status, kernel.target, kernel.source_file, stages={"llir": llir, "ptx": ptx}
    )
    t = best_of(lambda: analyses(llir, ptx, big))
    ref = best_of(lambda: (llir.splitlines(), ptx.splitlines()))
    print(
        f"# bench_ir   LLVM IR {len(llir.splitlines())} lines ({len(llir) / 1e6:.1f} MB) + "
        f"PTX {len(ptx.splitlines())} lines ({len(ptx) / 1e6:.1f} MB)"
    )
    print(
        f"all analyses: {t * 1000:.0f} ms   (target <= 300 ms); reference splitlines: {ref * 1000:.1f} ms "
        f"({t / ref:.0f}x)"
    )
    dump = full_pass_dump(kernel)
    header = re.compile(r"^(?:// -----// IR Dump|; \*\*\* IR Dump)")
    p = best_of(lambda: parse_pass_dump(dump), 3)
    r = best_of(lambda: [line for line in dump.splitlines() if header.match(line)], 3)
    parsed = parse_pass_dump(dump)
    print(
        f"full pass dump of {kernel.display_name}: {len(dump.splitlines())} lines ({len(dump) / 1e6:.1f} MB), "
        f"{len(parsed.passes)} passes kept, {parsed.llvm_unchanged} unchanged LLVM passes dropped"
    )
    print(
        f"parse: {p * 1000:.0f} ms   (target <= 500 ms); reference header scan: {r * 1000:.0f} ms ({p / r:.1f}x)"
    )


if __name__ == "__main__":
    main()
