"""What a pass capture costs against a compile (issue 32: both sides of a compare need
their pipelines), and how much of it is Triton's own printing.

    python benchmarks/bench_pass_capture.py [--repeats 3]

Prints, for the bundled matmul's kernel on cuda:90 (median of the repeats):
- a raw `triton.compile` in a fresh process, plain and with MLIR_ENABLE_DUMP=1 (Triton
  prints the module before every pass): the floor any capture through that dump has;
- kx's capture through a fresh worker, plain and with its passes (kx's pass recorder);
- the same through the warm daemon (`kx daemon`, the app's worker): the compile a compare
  of two edits or configs pays;
- (with --dump) the same with KX_PASS_CAPTURE=dump, Triton's own MLIR_ENABLE_DUMP, the
  way kx captured passes before the recorder.
Each as seconds and as the ratio passes / plain (issue 32's target: <= 1.5x).
Last, what a compare pays: `kx compare A B --passes` (both sides' pipelines, the sides
compiled at once) against `kx compile A --no-cache` (one plain compile), each a fresh
`kx` process, wall clock.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _scratch  # noqa: F401 - before any folder is made: removed at exit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
EXAMPLE = ROOT / "kx_core" / "data" / "examples" / "matmul.py"

# the kernel compiled as the example launches it (its constexprs and options)
RAW = """
import importlib.util, sys, time
spec = importlib.util.spec_from_file_location("kernel", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
sig = {n: "*fp16" for n in ("a_ptr", "b_ptr", "c_ptr")}
sig |= {n: "i32" for n in ("M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn")}
sig |= {n: "constexpr" for n in ("BLOCK_M", "BLOCK_N", "BLOCK_K")}
src = ASTSource(m.matmul_kernel, sig, constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32})
t = time.perf_counter()
triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4, "num_stages": 3})
print(time.perf_counter() - t)
"""


def _kernel_only(folder: str) -> str:
    """The example's kernel without its module-level device query (no GPU here)."""
    text = EXAMPLE.read_text().split('\nif __name__ == "__main__":')[0]
    text = "\n".join(line for line in text.splitlines() if not line.startswith("DEVICE = "))
    path = os.path.join(folder, "kernel.py")
    Path(path).write_text(text)
    return path


def _raw(path: str, dump: bool) -> float:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TRITON_CACHE_DIR=cache)
        if dump:
            env["MLIR_ENABLE_DUMP"] = "1"
        out = subprocess.run(
            [sys.executable, "-c", RAW, path], env=env, capture_output=True, text=True, check=True
        )
        return float(out.stdout.split()[-1])


def _kx(passes: bool) -> float:
    from kx_core.compile import CompileRequest, compile_file

    # Triton's cache too: a fresh one each time, so each compile is a real one
    os.environ["KX_CACHE_DIR"] = tempfile.mkdtemp(prefix="kx-bench-passes-")
    request = CompileRequest(str(EXAMPLE), target="cuda:90", passes=passes, llvm_passes=False)
    result = compile_file(request, use_cache=False)
    assert result.kernels and (bool(result.kernels[0].passes) == passes)
    return result.timings.get("file_s", result.wall_time_s)


def _rows(fn, repeats: int) -> tuple[float, float]:
    plain, dumped = [], []
    for _ in range(repeats):  # interleaved, so drift hits both
        plain.append(fn(False))
        dumped.append(fn(True))
    return statistics.median(plain), statistics.median(dumped)


def _cli(*argv: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "kx_core.cli", *argv],
        env=dict(os.environ, PYTHONPATH=str(ROOT), KX_CACHE_DIR=tempfile.mkdtemp(prefix="kx-bench-cli-")),
        stdout=subprocess.DEVNULL,
        check=True,
    )
    return time.perf_counter() - start


def _compare_row(folder: str, repeats: int) -> tuple[float, float]:
    """(one plain compile, a compare of two edits with both pipelines), medians."""
    edited = os.path.join(folder, "matmul_edited.py")
    text = EXAMPLE.read_text().replace("acc += tl.dot(a, b)", "acc = tl.dot(a, b, acc)")
    assert text != EXAMPLE.read_text()
    Path(edited).write_text(text)
    one, both = [], []
    for _ in range(repeats):
        one.append(_cli("compile", str(EXAMPLE), "--target", "cuda:90", "--no-cache"))
        both.append(_cli("compare", str(EXAMPLE), edited, "--target", "cuda:90", "--passes", "--no-cache"))
    return statistics.median(one), statistics.median(both)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--dump", action="store_true", help="also time kx through Triton's dump")
    args = ap.parse_args()
    from kx_core.compile.jobs import warm

    rows = {}
    with tempfile.TemporaryDirectory() as folder:
        path = _kernel_only(folder)
        rows["raw triton.compile (Triton's dump)"] = _rows(lambda dump: _raw(path, dump), args.repeats)
    warm.stop()
    rows["kx capture, fresh worker"] = _rows(_kx, args.repeats)
    if args.dump:
        os.environ["KX_PASS_CAPTURE"] = "dump"
        rows["kx capture, fresh worker, dump"] = _rows(_kx, args.repeats)
        os.environ.pop("KX_PASS_CAPTURE")
    with tempfile.TemporaryDirectory() as folder:
        compare = _compare_row(folder, args.repeats)
    proc = warm.launch(detach=True, wait_s=120)
    try:
        _kx(False)  # the daemon's first compile warms what every later one reuses
        rows["kx capture, warm daemon"] = _rows(_kx, args.repeats)
    finally:
        warm.stop()
        if proc is not None:
            proc.wait(30)
    started = time.strftime("%Y-%m-%d %H:%M")
    print(f"pass capture cost, bundled matmul for cuda:90, median of {args.repeats} ({started})")
    for name, (plain, dumped) in rows.items():
        print(f"  {name:36s} plain {plain:.3f} s  with passes {dumped:.3f} s  ratio {dumped / plain:.2f}x")
    one, both = compare
    print(
        f"  kx compare A B --passes {both:.3f} s against kx compile A {one:.3f} s (fresh processes): "
        f"ratio {both / one:.2f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
