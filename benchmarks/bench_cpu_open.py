"""Issue 19's target: opening a C++ kernel file to its assembly and vectorization remarks
in at most 3 s here, not the ~70 s a compile through torch's headers costs.

    python benchmarks/bench_cpu_open.py [--repeats 3] [--torch-reference]

Prints kx's time (compile_cpp: g++ with the tier's flags, -g -dA, the remarks, the split
by function, the checks) for each shipped CPU example, against a plain `g++ -O3 -S` of the
same file measured in the same run; with --torch-reference also against `g++ -fsyntax-only`
of the torch binding (torch's headers: what the seed's layout keeps out of the kernel's
translation unit)."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kx_core.cpu.compile import compile_cpp, torch_include_flags  # noqa: E402
from kx_core.cpu.targets import COMMON_FLAGS, TIER_FLAGS  # noqa: E402

EXAMPLES = ROOT / "kx_core" / "data" / "examples" / "cpu"


def timed(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def plain_gcc(path: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["g++", *COMMON_FLAGS, *TIER_FLAGS["avx2"], "-S", "-o", f"{tmp}/out.s", str(path)]
        subprocess.run(cmd, check=True, capture_output=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--torch-reference", action="store_true")
    args = ap.parse_args()
    print("# bench_cpu_open  kx compile FILE.cpp --target cpu:avx2 (median of repeats)")
    for path in sorted(EXAMPLES.glob("*_avx2.cpp")):
        kx = timed(lambda p=path: compile_cpp(str(p), "cpu:avx2"), args.repeats)
        ref = timed(lambda p=path: plain_gcc(p), args.repeats)
        lines = len(path.read_text().splitlines())
        print(
            f"{path.name:22} {lines:4d} lines  kx {kx:.2f} s  plain g++ -S {ref:.2f} s  ratio {kx / ref:.2f}x  (target <= 3 s)"
        )
    if args.torch_reference:
        binding = EXAMPLES / "binding.cpp"
        cmd = ["g++", *COMMON_FLAGS, *torch_include_flags(), "-fsyntax-only", str(binding)]
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        torch_s = time.perf_counter() - start
        kx = timed(lambda: compile_cpp(str(EXAMPLES / "rmsnorm_avx2.cpp"), "cpu:avx2"), args.repeats)
        print(
            f"torch headers (g++ -fsyntax-only binding.cpp) {torch_s:.1f} s; kx on rmsnorm {kx:.2f} s = {kx / torch_s:.3f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
