"""Capture the IR fixtures of fixtures/ir/<triton-version>/<target>/ from real compiles.

    python scripts/capture_ir_fixtures.py [--targets cuda:80,cuda:90]

For each target: every stage of vector_add.py's kernel (add.*) and of matmul.py's kernel
(matmul.*): .ttir.mlir, .ttgir.mlir, .llir.ll, .ptx, .sass; and matmul.passes.txt.gz, the
MLIR pass dump (MLIR_ENABLE_DUMP + MLIR_ENABLE_TIMING) of the same compile, replayed
from kx's recorded specialization in a fresh process. Never edit these files by hand.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kx_core.compile import CompileRequest, compile_file  # noqa: E402
from kx_core.compile.artifacts.derived import with_derived  # noqa: E402
from kx_core.compile.jobs.cache import triton_version  # noqa: E402

KERNELS = ROOT / "kx_core" / "data" / "examples"
EXTENSIONS = {"ttir": "ttir.mlir", "ttgir": "ttgir.mlir", "llir": "llir.ll", "ptx": "ptx", "sass": "sass"}

# Compiles one recorded specialization with MLIR's pass dump on (stderr -> file).
_REPLAY = r"""
import importlib.util, json, sys
sys.path.insert(0, {root!r})
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.runtime import driver
from kx_core.compile.capturing.capture_driver import make_capture_driver
from kx_core.records.results import Target
spec = json.loads(sys.argv[2])
target = Target.from_json(spec["target"])
driver.set_active(make_capture_driver(target))
m = importlib.util.spec_from_file_location("kernels_under_test", sys.argv[1])
mod = importlib.util.module_from_spec(m); m.loader.exec_module(mod)
fn = getattr(mod, spec["name"])
while not hasattr(fn, "params"):  # an @autotune / @heuristics wrapper
    fn = fn.fn
idx = {{p.name: p.num for p in fn.params}}
s = spec["specialization"]
triton.compile(
    ASTSource(fn, s["signature"], {{(idx[n],): v for n, v in s["constexprs"].items()}},
              {{(idx[n],): v for n, v in s["attrs"].items()}}),
    target=GPUTarget(target.backend, target.arch, target.warp_size),
    options={{o: v for o, v in s["options"].items() if v is not None}},
)
"""


def pass_dump(file: Path, kernel, llvm: bool = False) -> str:
    """The pass dump (stderr) of compiling `kernel`'s recorded specialization afresh;
    with llvm=True, LLVM's print-after-all too."""
    spec = {
        "target": kernel.target.to_json(),
        "name": kernel.name,
        "specialization": kernel.specialization.to_json(),
    }
    env = dict(
        os.environ,
        MLIR_ENABLE_DUMP="1",
        MLIR_ENABLE_TIMING="1",
        TRITON_CACHE_DIR=tempfile.mkdtemp(),
        TRITON_DEFAULT_FP_FUSION="1",
        **({"LLVM_IR_ENABLE_DUMP": "1"} if llvm else {}),
    )
    p = subprocess.run(
        [sys.executable, "-c", _REPLAY.format(root=str(ROOT)), str(file), json.dumps(spec)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return p.stderr


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", default="cuda:80,cuda:90")
    args = ap.parse_args()
    base = ROOT / "fixtures" / "ir" / triton_version()
    for target in args.targets.split(","):
        out = base / target.replace(":", "")
        out.mkdir(parents=True, exist_ok=True)
        for name, file in (("add", KERNELS / "vector_add.py"), ("matmul", KERNELS / "matmul.py")):
            result = with_derived(compile_file(CompileRequest(str(file), target=target), use_cache=False))
            (kernel,) = [k for k in result.kernels if k.status == "compiled"]
            for stage, ext in EXTENSIONS.items():
                (out / f"{name}.{ext}").write_text(kernel.stages[stage])
            if name == "matmul":
                # gzip: a pass dump is megabytes of text that compresses tenfold
                data = gzip.compress(pass_dump(file, kernel).encode(), mtime=0)
                (out / "matmul.passes.txt.gz").write_bytes(data)
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
