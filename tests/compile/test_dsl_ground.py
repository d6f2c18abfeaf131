"""kx's capture of kernels in the Python kernel languages against what the languages'
own runs built on the H200 (fixtures/dsl_ground/<triton version>.json, recorded by
scripts/gpu_dsl_ground_truth.sh: each file run for real there, every compile logged with
Triton's hash and the sha256 of its PTX; kx's capture there, run beside it, gave the same
hashes). Compiled here, without a GPU, by the same Triton version (a managed one: kx
versions), kx's kernels have the real run's PTX, byte for byte, and the registers and
shared memory kx read from the H200's cubins. Triton's hash itself differs here: its key
covers the machine's compiler environment as well as the kernel."""

from __future__ import annotations

import hashlib
import json

import pytest

from kx_core.compile import CompileRequest, compile_file
from kx_testing import ROOT, other_triton

GROUND = sorted((ROOT / "fixtures" / "dsl_ground").glob("*.json"))
FILES = [(g, f) for g in GROUND for f in json.loads(g.read_text())["files"]]


@pytest.mark.parametrize(
    ("ground", "file"), FILES, ids=[f"{g.stem}:{f.rsplit('/', 1)[-1]}" for g, f in FILES]
)
def test_kx_builds_what_the_languages_own_run_built(ground, file):
    record = json.loads(ground.read_text())
    assert record["gpu"] == "NVIDIA H200"
    env = other_triton()
    if env.triton != record["triton"]:
        pytest.skip(f"the ground truth is Triton {record['triton']}'s; the managed one is {env.triton}")
    real = record["files"][file]["real"]
    result = compile_file(
        CompileRequest(str(ROOT / file), target="cuda:90", python=env.python), use_cache=False
    )
    kernels = [k for k in result.kernels if k.status == "compiled"]
    by_ptx = {hashlib.sha256(k.stages["ptx"].encode()).hexdigest(): k for k in kernels}
    assert sorted(by_ptx) == sorted(r["ptx_sha256"] for r in real)
    # the real run's hash names what kx reported on the H200 for that kernel
    there = {k["hash"]: k for k in record["files"][file]["kx"]}
    for r in real:
        k, h200 = by_ptx[r["ptx_sha256"]], there[r["hash"]]
        assert (k.name, k.metadata.registers, k.metadata.shared) == (
            h200["name"],
            h200["registers"],
            h200["shared"],
        )
