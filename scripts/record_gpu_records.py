"""Record, on the GPU machine, what the real tools leave behind for records kx opens
(issue 36) beside scripts/record_fixtures.py's kernel-level records:

    PYTHONPATH=. python3 scripts/record_gpu_records.py [--out DIR]

Writes into DIR (default fixtures/records/<triton version>/cuda<cc>-gpu/):
    inductor_trace.ndjson   tritonparse's structured log of a torch.compile'd model
    inductor_debug/         the TORCH_COMPILE_DEBUG folder of the same model
    torch_trace/            its TORCH_TRACE log folder
    proton.hatchet          a Proton profile (kernel times) of record_kernels.launch_both
    proton_pc.hatchet       the same under Proton's PC sampling (per-line samples)
    records.json            what each step did: exit status, files, the last lines of its log

Each record is made by a child process of its own, with the tool's variables set only
there, and a step that fails is recorded as failed rather than stopping the others (the
GPU machine's tools differ from version to version). Never edit what this writes by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "fixtures" / "records"
STEPS = frozenset({"inductor", "proton", "proton_pc"})

# A small model whose Inductor code is Triton kernels only (no matmul, so no cuBLAS):
# a pointwise op fused into a softmax, and a row sum.
_MODEL = r"""
import torch

def model(x):
    y = torch.softmax(x * 2.0 + 1.0, dim=-1)
    return y + x.sum(dim=-1, keepdim=True)

x = torch.randn(512, 1000, device="cuda")
compiled = torch.compile(model)
torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-4)
"""

_TRITONPARSE = (
    r"""
import sys
import tritonparse.structured_logging as tp
tp.init(sys.argv[1], enable_trace_launch=True)
"""
    + _MODEL
)

_PROTON = r"""
import sys
sys.path.insert(0, {kernels!r})
import triton.profiler as proton
import record_kernels as rk
mode = sys.argv[2]
if mode == "pcsampling":
    # before the first launch: Proton maps sampled PCs to source lines only for the
    # modules loaded while its session runs (a warm-up first leaves the lines out)
    proton.start(sys.argv[1], backend="cupti", mode="pcsampling")
else:
    rk.launch_both()  # compiled and warm: the profile holds launches, not compiles
    proton.start(sys.argv[1], hook="triton")
for _ in range(20):
    rk.launch_both()
proton.finalize()
"""


def _step(name: str, code: str, args: list[str], env: dict, log: Path, timeout: float) -> dict:
    with log.open("w") as fh:
        try:
            p = subprocess.run(
                [sys.executable, "-c", code, *args],
                env=env,
                stdout=fh,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                cwd=log.parent,
            )
            rc = p.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    tail = log.read_text(errors="replace").splitlines()[-15:]
    print(f"{name}: exit {rc}", flush=True)
    return {"exit": rc, "log_tail": tail}


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def record(out: Path, timeout: float, steps: frozenset[str] = STEPS) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    base = dict(os.environ)
    # Inductor compiles in this process (not its worker pool), so tritonparse's hook sees
    # every compile; its FX graph cache off so the compiles happen at all.
    base |= {"TORCHINDUCTOR_COMPILE_THREADS": "1", "TORCHINDUCTOR_FX_GRAPH_CACHE": "0"}
    old = out / "records.json"  # a run of some steps keeps what the others recorded
    report: dict = json.loads(old.read_text()) if old.exists() else {}
    with tempfile.TemporaryDirectory(prefix="kx-gpu-records-") as tmp:
        work = Path(tmp)

        def fresh(name: str) -> dict:
            cache = work / name / "triton-cache"
            cache.mkdir(parents=True)
            return dict(
                base, TRITON_CACHE_DIR=str(cache), TORCHINDUCTOR_CACHE_DIR=str(work / name / "inductor")
            )

        if "inductor" in steps:
            _inductor(work, out, fresh, timeout, report)
        for mode, name in (("triton", "proton"), ("pcsampling", "proton_pc")):
            if name in steps:
                _proton(work, out, fresh, timeout, report, mode, name)
    import torch
    import triton

    report["versions"] = {"triton": triton.__version__, "torch": torch.__version__}
    report["gpu"] = torch.cuda.get_device_name(0)
    (out / "records.json").write_text(json.dumps(report, indent=1) + "\n")
    return report


def _inductor(work: Path, out: Path, fresh, timeout: float, report: dict) -> None:
    """tritonparse's log of the compiled model, then its debug folder and TORCH_TRACE."""
    env = fresh("tp")
    r = _step("inductor trace", _TRITONPARSE, [str(work / "tp" / "trace")], env, work / "tp" / "log", timeout)
    traces = sorted((work / "tp" / "trace").glob("*.ndjson")) if (work / "tp" / "trace").is_dir() else []
    if traces:
        shutil.copyfile(max(traces, key=lambda p: p.stat().st_size), out / "inductor_trace.ndjson")
    r["traces"] = [p.name for p in traces]
    report["inductor_trace"] = r

    # TORCH_COMPILE_DEBUG and TORCH_TRACE of the same model, one run
    env = fresh("dbg") | {
        "TORCH_COMPILE_DEBUG": "1",
        "TORCH_COMPILE_DEBUG_DIR": str(work / "dbg" / "debug"),
        "TORCH_TRACE": str(work / "dbg" / "torch_trace"),
    }
    r = _step("inductor debug", _MODEL, [], env, work / "dbg" / "log", timeout)
    for src, dst in (
        (work / "dbg" / "debug", "inductor_debug"),
        (work / "dbg" / "torch_trace", "torch_trace"),
    ):
        shutil.rmtree(out / dst, ignore_errors=True)
        if src.is_dir():
            shutil.copytree(src, out / dst)
            r[dst] = _files(out / dst)
    report["inductor_debug"] = r


def _proton(work: Path, out: Path, fresh, timeout: float, report: dict, mode: str, name: str) -> None:
    env = fresh(name)
    code = _PROTON.format(kernels=str(KERNELS))
    r = _step(name, code, [str(work / name / "profile"), mode], env, work / name / "log", timeout)
    made = sorted((work / name).glob("profile*.hatchet"))
    if made:
        shutil.copyfile(made[0], out / f"{name}.hatchet")
    r["made"] = [p.name for p in made]
    report[name] = r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="the folder to write (default: fixtures/records/VER/cudaCC-gpu)")
    ap.add_argument("--timeout", type=float, default=240, help="seconds each step may take")
    ap.add_argument(
        "--steps", default=",".join(sorted(STEPS)), help="which records: inductor,proton,proton_pc"
    )
    args = ap.parse_args()
    out = args.out
    if out is None:
        import torch
        import triton

        major, minor = torch.cuda.get_device_capability()
        out = KERNELS / triton.__version__ / f"cuda{major}{minor}-gpu"
    record(out, args.timeout, frozenset(args.steps.split(",")))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
