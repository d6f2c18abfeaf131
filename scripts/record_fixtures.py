"""Record the fixtures of fixtures/records/<triton-version>/<target>/ from real compiles:
what a real run of fixtures/records/record_kernels.py leaves behind, made by the tools
themselves (Triton's cache manager and dump manager, tritonparse's structured logging).

    python scripts/record_fixtures.py [--target cuda:90]      # this machine, no GPU needed
    python scripts/record_fixtures.py --gpu                    # the GPU machine: real launches

Writes, per target:
    cache/       a TRITON_CACHE_DIR holding both kernels (hash folders, __grp__*.json)
    dump/        a TRITON_KERNEL_DUMP=1 TRITON_DUMP_DIR folder of the same compiles
    trace.ndjson a tritonparse trace of the same compiles (SASS dump on, as tritonparse's
                 enable_sass_dump writes it)
    trace.bin.ndjson  the same compiles traced again with tritonparse's gzip compression
                 (one gzip member per record), from a fresh cache

Without --gpu both kernels are compiled through `triton.compile(ASTSource(...))` for the
target (no launch: the trace has compilation events only). With --gpu the file's
`launch_both()` runs them on the local GPU with tritonparse's launch tracing on, so the
trace also holds launch events with their arguments; this path needs a CUDA GPU and has
not run on a CPU-only machine. Never edit the files this writes by hand.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "fixtures" / "records"

# Runs in a child with TRITON_CACHE_DIR / TRITON_DUMP_DIR set: Triton reads its knobs from
# the environment, and tritonparse's compression setting is read once at init.
_CHILD = r"""
import json, sys
sys.path.insert(0, {kernels!r})
import tritonparse.structured_logging as tp
opts = json.loads(sys.argv[1])
tp.init(opts["trace"], enable_sass_dump=True, compression=opts["compression"],
        enable_trace_launch=opts["gpu"])
import record_kernels as rk
if opts["gpu"]:
    rk.launch_both()
else:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    backend, arch = opts["target"].split(":")
    target = GPUTarget(backend, int(arch) if arch.isdigit() else arch, 32 if backend == "cuda" else 64)
    aligned = [["tt.divisibility", 16]]
    # the specializations a launch on 16-byte aligned tensors gives (launch_both's shapes)
    triton.compile(ASTSource(rk.add_vectors,
        {{"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"}},
        {{(4,): 1024}}, {{(0,): aligned, (1,): aligned, (2,): aligned, (3,): aligned}}), target=target)
    triton.compile(ASTSource(rk.softmax_rows,
        {{"out_ptr": "*fp32", "in_ptr": "*fp32", "row_stride": "i32", "n_cols": "i32", "COLS": "constexpr"}},
        {{(4,): 1024}}, {{(0,): aligned, (1,): aligned}}), target=target)
"""


def _run_child(work: Path, target: str, gpu: bool, compression: str, dump: bool) -> Path:
    """One traced run in a fresh cache under `work`; returns its trace file."""
    import os

    env = dict(os.environ, TRITON_CACHE_DIR=str(work / "cache"))
    env.pop("TRITON_KERNEL_DUMP", None)
    if dump:
        env |= {"TRITON_KERNEL_DUMP": "1", "TRITON_DUMP_DIR": str(work / "dump")}
    opts = {"trace": str(work / "trace"), "compression": compression, "gpu": gpu, "target": target}
    subprocess.run(
        [sys.executable, "-c", _CHILD.format(kernels=str(KERNELS)), json.dumps(opts)],
        cwd=work,
        env=env,
        check=True,
    )
    (trace,) = sorted((work / "trace").iterdir())
    return trace


def record(out: Path, target: str, gpu: bool) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kx-records-") as tmp:
        plain = Path(tmp) / "plain"
        plain.mkdir()
        trace = _run_child(plain, target, gpu, "none", dump=True)
        for name in ("cache", "dump"):
            shutil.rmtree(out / name, ignore_errors=True)
            shutil.copytree(plain / name, out / name)
        shutil.copyfile(trace, out / "trace.ndjson")
        packed = Path(tmp) / "gzip"
        packed.mkdir()
        shutil.copyfile(_run_child(packed, target, gpu, "gzip", dump=False), out / "trace.bin.ndjson")
    print(f"wrote {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", default="cuda:90", help="the compile target without --gpu (cuda:90)")
    ap.add_argument("--gpu", action="store_true", help="run the kernels on the local GPU (launch events)")
    args = ap.parse_args()
    import triton

    folder = args.target.replace(":", "")
    if args.gpu:  # the local GPU's arch, kept apart from the compile-only records
        import torch

        major, minor = torch.cuda.get_device_capability()
        folder = f"cuda{major}{minor}-gpu"
    out = ROOT / "fixtures" / "records" / triton.__version__ / folder
    record(out, args.target, args.gpu)


if __name__ == "__main__":
    main()
