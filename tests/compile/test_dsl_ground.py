"""kx's capture of kernels in the Python kernel languages against what the languages'
own runs built on the H200 (fixtures/dsl_ground/<triton version>.json, recorded by
scripts/gpu_dsl_ground_truth.sh: each file run for real there, every compile logged with
Triton's hash and the sha256 of its PTX; kx's capture there, run beside it, gave the same
hashes). Compiled here, without a GPU, by the same Triton version (a managed one: kx
versions), kx's kernels have the real run's PTX, byte for byte (its file paths aside),
and the registers and shared memory kx read from the H200's cubins. Triton's hash itself
differs here: its key covers the machine's compiler environment as well as the kernel."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from kx_core.compile import CompileRequest, compile_file
from kx_testing import ROOT, other_triton

# where the GPU machine runs the copied tree (the records' paths say so): an older ground
# truth's raw PTX hash holds only for a checkout there
RECORDED_ROOT = "/work/main"
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
    # what kx reported there is what it reports here: the figures come from the same cubin
    there = {k["name"]: k for k in record["files"][file]["kx"]}
    assert sorted(k.name for k in kernels) == sorted(there) and len(real) == len(kernels)
    for k in kernels:
        assert (k.metadata.registers, k.metadata.shared) == (
            there[k.name]["registers"],
            there[k.name]["shared"],
        )
    # the PTX, byte for byte: it names the source's and Triton's absolute paths (`.file`),
    # so a record with the path-independent hash compares anywhere; an older one only
    # where this checkout and Triton sit where they sat on the GPU machine
    if all(r.get("ptx_sha256_portable") for r in real):
        mine = sorted(_sha(_portable(k.stages["ptx"])) for k in kernels)
        assert mine == sorted(r["ptx_sha256_portable"] for r in real)
    elif str(ROOT) == RECORDED_ROOT:
        assert sorted(_sha(k.stages["ptx"]) for k in kernels) == sorted(r["ptx_sha256"] for r in real)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _portable(ptx: str) -> str:
    """Each `.file N "path"` cut to its file name (scripts/record_real_runs.py's portable
    hash). Example: '.file 1 "/work/main/x.py"' -> '.file 1 "x.py"'."""
    return re.sub(r'^(\s*\.file\s+\d+\s+)"(?:[^"]*/)?([^/"]*)"', r'\1"\2"', ptx, flags=re.M)
