"""A TileLang file: kx runs it as it is, with TileLang compiling for kx's target (sm_90a
for cuda:90) through pip's nvcc, and shows each kernel TileLang compiled: its TIR, the
CUDA C TileLang generated, and nvcc's PTX, cubin (registers from cuobjdump), SASS and ELF.
Oracle: TileLang's own compile of the same program, in a process of its own, generates
the same CUDA C, and cuobjdump reads kx's cubin as kx says."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kx_core.base.data import data_path
from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.artifacts import resources
from kx_core.compile.artifacts.derived import with_derived
from kx_testing import missing_extra

pytestmark = pytest.mark.extra("tilelang")
pytest.importorskip("tilelang", reason=missing_extra("tilelang"))

FILE = data_path("examples", "tilelang_gemm.py")
FIXTURE_DIR = Path(__file__).resolve().parents[2] / "fixtures" / "kernels" / "tilelang"

# TileLang's own compile of the example's program, as the file would make it on a GPU
# machine (target sm_90a given: no GPU here to detect it from)
_OWN = """
import json, sys
sys.path.insert(0, sys.argv[1])
import tilelang
from tilelang_gemm import matmul
k = tilelang.compile(matmul(1024, 1024, 1024), out_idx=[2], target={"kind": "cuda", "arch": "sm_90a"})
print(json.dumps({"source": k.get_kernel_source()}))
"""


@pytest.fixture(scope="module")
def result():
    return with_derived(compile_file(CompileRequest(file=str(FILE), target="cuda:90"), use_cache=False))


def test_each_kernel_tilelang_compiled_has_every_stage(result):
    (k,) = [k for k in result.kernels if k.status == "compiled"]
    assert k.name == "gemm"
    assert list(k.stages)[:3] == ["tilelang", "cudac", "ptx"] and {"sass", "elf"} <= set(k.stages)
    assert "T.Pipelined" in k.stages["tilelang"] or "T.gemm" in k.stages["tilelang"]
    assert "__global__ void __launch_bounds__(" in k.stages["cudac"]
    # T.gemm of fp16 tiles on Hopper: wgmma in the PTX, HGMMA in the SASS
    assert "wgmma.mma_async" in k.stages["ptx"] and "HGMMA." in k.stages["sass"]
    assert k.metadata.extra["arch"] == "sm_90a"


def test_the_cuda_c_is_tilelangs_own_and_the_figures_are_the_cubins(result, tmp_path):
    (k,) = [k for k in result.kernels if k.status == "compiled"]
    env = dict(os.environ, TILELANG_CACHE_DIR=str(tmp_path / "cache"), TILELANG_DISABLE_CACHE="1")
    env.setdefault("CUDA_HOME", k.metadata.extra["cuda_home"])
    own = subprocess.run(
        [sys.executable, "-c", _OWN, str(FILE.parent)], capture_output=True, text=True, env=env, timeout=600
    )
    assert own.returncode == 0, own.stderr[-2000:]
    source = json.loads(own.stdout.strip().splitlines()[-1])["source"]
    assert k.stages["cudac"] == source
    cubin = base64.b64decode(k.binaries["cubin"])
    usage = resources.cubin_resources(cubin, None)
    assert k.metadata.registers == usage.registers > 0
    # per block: the cubin's static shared memory and the pipeline's dynamic buffers, three
    # stages of a 128x32 and a 32x128 fp16 tile (T.Pipelined(num_stages=3))
    assert k.metadata.shared == usage.shared + 3 * (128 * 32 + 32 * 128) * 2


def test_the_launch_is_the_programs_own(result):
    (k,) = [k for k in result.kernels if k.status == "compiled"]
    # T.Kernel(ceildiv(N, 128), ceildiv(M, 128)) over 1024x1024: 8x8 blocks
    assert k.launch.grid == (8, 8, 1)
    assert [(a.dtype, a.shape) for a in k.launch.args] == [("float16", (1024, 1024))] * 3


def test_a_launch_is_skipped_and_said(result):
    said = [
        d for d in result.diagnostics if d.kind == "placeholder" and "TileLang kernel's launch" in d.message
    ]
    launch_line = next(i for i, t in enumerate(FILE.read_text().splitlines(), 1) if "c = kernel(a, b)" in t)
    assert [d.line for d in said] == [launch_line]
    assert not [d for d in result.diagnostics if d.kind == "runtime"], [d.message for d in result.diagnostics]


_OWN_JIT = """
import json, sys
sys.path.insert(0, sys.argv[1])
import tilelang
import tilelang.language as T
import runpy
ns = runpy.run_path(sys.argv[2], run_name="not_main")
fn = ns["elementwise_add"]
sources = []
for args, kwargs in (((1024, 1024), {}), ((2048, 512), {"block_M": 64})):
    # the @tilelang.jit function's own program, compiled by TileLang for sm_90a
    k = tilelang.compile(fn.get_tir(*args, **kwargs), out_idx=[-1], target={"kind": "cuda", "arch": "sm_90a"})
    sources.append(k.get_kernel_source())
print(json.dumps(sources))
"""


def test_a_jit_function_compiled_twice_is_two_kernels(tmp_path):
    file = FIXTURE_DIR / "jit_add.py"
    r = compile_file(CompileRequest(file=str(file), target="cuda:90"), use_cache=False)
    kernels = [k for k in r.kernels if k.status == "compiled"]
    assert [k.name for k in kernels] == ["add", "add"]
    assert "float32[1024x1024]" in kernels[0].message and "float32[2048x512]" in kernels[1].message
    # TileLang's Profiler checks and times on random GPU inputs: placeholders, said
    said = {d.message.split(" reads")[0] for d in r.diagnostics if d.kind == "placeholder"}
    assert {"tilelang Profiler.assert_allclose", "tilelang Profiler.do_bench"} <= said, said
    assert not [d for d in r.diagnostics if d.kind == "runtime"], [d.message for d in r.diagnostics]
    env = dict(os.environ, TILELANG_CACHE_DIR=str(tmp_path / "cache"), TILELANG_DISABLE_CACHE="1")
    env.setdefault("CUDA_HOME", kernels[0].metadata.extra["cuda_home"])
    own = subprocess.run(
        [sys.executable, "-c", _OWN_JIT, str(file.parent), str(file)],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    if own.returncode != 0 and "get_tir" in own.stderr:
        pytest.skip("this TileLang's jit functions have no get_tir")
    assert own.returncode == 0, own.stderr[-2000:]
    assert [k.stages["cudac"] for k in kernels] == json.loads(own.stdout.strip().splitlines()[-1])


def test_the_model_leaves_it_off_rather_than_at_zero_work(result):
    from kx_core.model.matrix import modelled, models

    # kx's work estimate counts FLOPs and bytes in TTIR, which a TileLang kernel has none of
    (k,) = [k for k in result.kernels if k.status == "compiled"]
    assert not modelled(k) and models(result.kernels) == []
