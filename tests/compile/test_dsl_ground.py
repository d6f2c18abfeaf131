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
@pytest.mark.managed_triton
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
    # the PTX, byte for byte: it names the source's absolute path (`.file`, and the folder
    # in its DWARF .debug_info), so a record with the hash of the PTX less those compares
    # anywhere; an older one only where this checkout sits where it sat on the GPU machine
    if all(r.get("ptx_sha256_nodebug") for r in real):
        mine = sorted(_sha(_nodebug(k.stages["ptx"])) for k in kernels)
        assert mine == sorted(r["ptx_sha256_nodebug"] for r in real)
    elif str(ROOT) == RECORDED_ROOT:
        assert sorted(_sha(k.stages["ptx"]) for k in kernels) == sorted(r["ptx_sha256"] for r in real)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _nodebug(ptx: str) -> str:
    """The PTX less its paths (scripts/record_real_runs.py's ptx_sha256_nodebug)."""
    from scripts.record_cute_runs import nodebug_ptx

    return nodebug_ptx(ptx)


def _portable(ptx: str) -> str:
    """Each `.file N "path"` cut to its file name (scripts/record_real_runs.py's portable hash)."""
    from scripts.record_cute_runs import portable_ptx

    return portable_ptx(ptx)


# Helion's ground truth: its real run on the H200 (Helion 1.4.0, the newest that imports
# against the H200's torch 2.11), with Helion's search off (its default config)
HELION_GROUND = sorted((ROOT / "fixtures" / "dsl_ground" / "helion").glob("*.json"))


def _package_version(python: str, name: str) -> str | None:
    import subprocess

    probe = f"import importlib.metadata as m\ntry: print(m.version({name!r}))\nexcept m.PackageNotFoundError: pass"
    out = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=60)
    return out.stdout.strip() or None


@pytest.mark.parametrize("ground", HELION_GROUND, ids=[g.stem for g in HELION_GROUND])
@pytest.mark.managed_triton
def test_kx_builds_what_helion_built_on_the_h200(ground, monkeypatch):
    """Every kernel Helion's own run built on the H200, and no other, is what kx builds
    here from the same file with the same Triton and Helion (a managed environment: `kx
    versions add 3.6.0 --with helion==1.4.0`): the Triton kernel Helion generated, text for
    text, and under the record's torch its PTX byte for byte (file paths aside); the
    registers and shared memory are those kx read from the H200's cubins there, where its
    capture built the same compiles (the same Triton hashes)."""
    record = json.loads(ground.read_text())
    assert record["gpu"] == "NVIDIA H200"
    env = other_triton()
    if env.triton != record["triton"]:
        pytest.skip(f"the ground truth is Triton {record['triton']}'s; the managed one is {env.triton}")
    have = _package_version(env.python, "helion")
    if have != record["helion"]:
        pytest.skip(
            f"the managed Triton {env.triton} has helion {have or 'none'}, the record {record['helion']}: "
            f"kx versions add {env.triton} --with helion=={record['helion']}"
        )
    monkeypatch.setenv("KX_HELION_CONFIGS", "1")  # the default config: what the real run built
    # the generated kernels inline torch's Inductor helpers (triton_helpers.py), whose line
    # numbers are in the PTX's line table: its bytes compare under the record's torch only
    same_torch = (_package_version(env.python, "torch") or "").split("+")[0] == record["torch"].split("+")[0]
    for file, entry in record["files"].items():
        result = compile_file(
            CompileRequest(str(ROOT / file), target="cuda:90", python=env.python), use_cache=False
        )
        kernels = [k for k in result.kernels if k.status == "compiled"]
        if all(r.get("source") for r in entry["real"]):
            # the Triton kernel Helion generated, as the real run's Triton compiled it, and
            # none other (a config kx explores may be the one the run launched: twice)
            sources = [r["source"].strip() for r in entry["real"]]
            assert all(any(s in k.stages["helion"] for k in kernels) for s in sources)
            assert all(any(s in k.stages["helion"] for s in sources) for k in kernels)
        if same_torch and all(r.get("ptx_sha256_nodebug") for r in entry["real"]):
            mine = {_sha(_nodebug(k.stages["ptx"])) for k in kernels}
            assert mine == {r["ptx_sha256_nodebug"] for r in entry["real"]}
        elif same_torch and str(ROOT) == RECORDED_ROOT:
            mine = {_sha(_portable(k.stages["ptx"])) for k in kernels}
            assert mine == {r["ptx_sha256_portable"] for r in entry["real"]}
        by_name = {k.name: k for k in kernels}
        assert entry["kx"]
        for there in entry["kx"]:
            assert there["same_as_real_run"], there["name"]
            k = by_name[there["name"]]
            assert (k.metadata.registers, k.metadata.shared) == (there["registers"], there["shared"])


# CuTe DSL's ground truth: its own runs on the H200 (nvidia-cutlass-dsl 4.8.1, carried
# there as wheels), each program's PTX, cubin resources and SASS kept by the DSL
# (scripts/record_cute_runs.py); the DSL builds no Triton kernel, so kx's own interpreter
# (where the DSL is installed, `pip install 'kx[cute]'`) compiles the files here
CUTE_GROUND = sorted((ROOT / "fixtures" / "dsl_ground" / "cute").glob("*.json"))


@pytest.mark.parametrize("ground", CUTE_GROUND, ids=[g.stem for g in CUTE_GROUND])
@pytest.mark.extra("cute")
def test_kx_builds_what_cute_dsl_built_on_the_h200(ground):
    """Every program the DSL built in its real runs on the H200 (from torch CUDA tensors
    through from_dlpack, a grid sized by the driver's HardwareInfo, fake tensors) is
    what kx builds here without a GPU: the PTX byte for byte (file paths aside), the
    registers and shared memory of the cubin, and its SASS text."""
    import importlib.metadata

    from scripts.record_cute_runs import portable_ptx, portable_sass, sha

    record = json.loads(ground.read_text())
    assert record["gpu"] == "NVIDIA H200"
    try:
        have = importlib.metadata.version("nvidia-cutlass-dsl")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("no CuTe DSL here: pip install 'kx[cute]'")
    if have != record["nvidia-cutlass-dsl"]:
        pytest.skip(f"the ground truth is CuTe DSL {record['nvidia-cutlass-dsl']}'s; this is {have}")
    from kx_core.compile.artifacts.derived import with_derived

    for file, entry in record["files"].items():
        result = with_derived(
            compile_file(CompileRequest(str(ROOT / file), target="cuda:90"), use_cache=False)
        )
        kernels = [k for k in result.kernels if k.status == "compiled"]
        assert len(kernels) == len(entry["real"]) >= 1, file
        mine = sorted(
            (
                sha(portable_ptx(k.stages["ptx"])),
                k.metadata.registers,
                k.metadata.shared,
                sha(portable_sass(k.stages["sass"])),
            )
            for k in kernels
        )
        theirs = sorted(
            (r["ptx_sha256_portable"], r["registers"], r["shared"], r["sass_sha256_portable"])
            for r in entry["real"]
        )
        assert mine == theirs, file
