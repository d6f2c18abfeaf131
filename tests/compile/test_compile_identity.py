"""A captured kernel is the real run's kernel down to Triton's hash (issue 28, item 5).

Triton's hash is its cache key and the name of its dump and override folders; it covers
the source, the specialization, the options and every cache-invalidating environment
variable. Two oracles:
- here (any machine): a plain `triton.compile` of the recorded specialization in a fresh
  process with none of kx's environment gives the same hash as kx's capture;
- against the H200: where this machine's Triton is the version the ground truth was
  recorded with (fixtures/real_world/ground: scripts/record_real_runs.py on the H200),
  every compile kx captures has the real run's hash, and its PTX is byte for byte the
  real run's when the installation is at the real run's path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.jobs.real_runs import captured_key, identity, recorded_key
from kx_testing import ROOT

# Compiles each recorded specialization with triton.compile, nothing of kx's loaded.
_PLAIN = r"""
import importlib.util, json, sys
import triton, triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
spec = json.loads(sys.argv[2])
m = importlib.util.spec_from_file_location("kernels_under_test", sys.argv[1])
mod = importlib.util.module_from_spec(m); m.loader.exec_module(mod)
def dtype(v):
    name = v.removeprefix("tl.") if isinstance(v, str) else None
    return getattr(tl, name) if name and isinstance(getattr(tl, name, None), tl.dtype) else v
out = []
for k in spec:
    fn = getattr(mod, k["name"])
    while not hasattr(fn, "params"):
        fn = fn.fn
    idx = {p.name: p.num for p in fn.params}
    s = k["specialization"]
    constexprs = {(idx[n],): dtype(v) for n, v in s["constexprs"].items()}
    attrs = {(idx[n],): v for n, v in s["attrs"].items()}
    opts = {o: v for o, v in s["options"].items() if v is not None}
    kernel = triton.compile(ASTSource(fn, s["signature"], constexprs, attrs),
                            target=GPUTarget("cuda", 90, 32), options=opts)
    out.append(kernel.hash)
print(json.dumps(out))
"""


def _plain_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TRITON_", "MLIR_", "LLVM_", "KX_"))}
    env["TRITON_CACHE_DIR"] = os.path.join(os.environ.get("KX_CACHE_DIR", "/tmp"), "plain-triton-cache")
    return env


KERNELS_AND_LAUNCHES = """
import torch
import triton
import triton.language as tl


@triton.jit
def axpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((64, 2), (256, 4))], key=["n"])
@triton.jit
def row_max(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * n + offs, mask=offs < n, other=-float("inf"))
    tl.store(out_ptr + row, tl.max(x, 0))


if __name__ == "__main__":
    x = torch.randn(4096, device="cuda", dtype=torch.float16)
    y = torch.empty_like(x)
    axpy[(4,)](x, y, 2.0, x.numel(), BLOCK=1024)
    axpy[(4,)](x[1:], y[1:], 1.5, 4095, BLOCK=1024)  # unaligned: another specialization
    rows = torch.randn(32, 200, device="cuda")
    row_max[(32,)](rows, torch.empty(32, device="cuda"), 200)
"""


def test_the_captured_hash_is_a_plain_compiles(tmp_path):
    path = tmp_path / "kernels.py"
    path.write_text(KERNELS_AND_LAUNCHES)
    r = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    kernels = [k for k in r.kernels if k.status == "compiled"]
    assert len(kernels) == 4, r.diagnostics  # two axpy specializations, two row_max configs
    spec = [{"name": k.name, "specialization": k.specialization.to_json()} for k in kernels]
    p = subprocess.run(
        [sys.executable, "-c", _PLAIN, str(path), json.dumps(spec)],
        capture_output=True,
        text=True,
        env=_plain_env(),
        check=True,
    )
    assert json.loads(p.stdout.strip().splitlines()[-1]) == [k.metadata.hash for k in kernels]


GROUND = sorted((ROOT / "fixtures" / "real_world" / "ground").glob("*.json"))


def _triton_version() -> str:
    import triton

    return triton.__version__


@pytest.mark.parametrize("ground", GROUND, ids=[g.stem for g in GROUND])
def test_every_captured_hash_is_the_h200_runs(ground):
    record = json.loads(ground.read_text())
    if record["triton"] != _triton_version():
        pytest.skip(f"the ground truth is Triton {record['triton']}'s; this is {_triton_version()}'s")
    if ground.stem == "needs_other_env":
        pytest.skip("needs the other interpreter (test_real_world runs it)")
    r = compile_file(
        CompileRequest(str(ROOT / record["file"]), target="cuda:90", gpu="h200"), use_cache=False
    )
    same = identity(record, list(r.kernels))
    real = {recorded_key(c) for c in record["compiles"] if c["status"] == "compiled"}
    distinct = {c["hash"] for c in record["compiles"] if c["status"] == "compiled"}
    assert same.matched == len(distinct) and {captured_key(k) for k in r.kernels} >= real
    assert same.same_hash == same.with_hash == same.matched, same.differing
    triton_dir = os.path.dirname(__import__("triton").__file__)
    if triton_dir.startswith("/opt/torch/.venv/"):  # the H200 image's installation path
        assert same.same_ptx == same.with_ptx == same.matched, same.differing
