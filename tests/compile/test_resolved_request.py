"""A request is resolved once, at the door (compile/jobs/resolve.py), into one
ResolvedRequest that the cache key, the Build and the worker read: resolving it so must
not change what a request was before.

The expected values were recorded by running the code of commit b6bacfe (before the
request was resolved once: `git archive b6bacfe | tar -x -C /tmp/kx_old`, then a script
run with PYTHONPATH=/tmp/kx_old) on exactly these requests with exactly the pins below:
`runner.compile_file(request)` with `cache.load` patched to record the key it was asked
for and to answer a hit for the target `runner.resolve_target` gave (so no worker ran),
the hit's Build as `iter_compile` named it, `capture_device.device_report(target, gpu)`,
and, with `runner._start_worker` patched to raise, the request and target the worker was
given. The pins: `cache.engine_digest` -> "pinned-engine" (the engine's sources are in
every key and change with any commit), the installed Triton -> "3.6.0-pinned", the
--python probe -> an Interpreter with Triton 3.5.1 at /opt/other/bin/python (no
subprocess), the local GPU -> none, or an sm_86 for the 'local' case.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from kx_core.compile.jobs import cache, resolve, runner
from kx_core.compile.jobs.interpreter import Interpreter
from kx_core.model.boards import DeviceError, device_report
from kx_core.model.resolved_request import ResolvedRequest
from kx_core.records import target as target_spelling
from kx_core.records.results import CompileRequest, CompileResult, Target
from kx_core.records.target import TargetError

ROOT = Path(__file__).resolve().parents[2]
FILE = "/kx-cache-key-case/add.py"  # never read: the request carries its text
SOURCE = "import triton\n\n@triton.jit\ndef k(x):\n    pass\n"
PYTHON = "/opt/other/bin/python"

CASES = {
    "cuda90": dict(target="cuda:90"),
    "cuda90_h200": dict(target="cuda:90", gpu="h200"),
    "default_gpu_h200": dict(gpu="h200"),
    "default_gpu_mi300x": dict(gpu="mi300x"),
    "hip_gfx942": dict(target="hip:gfx942"),
    "hip_gfx90a_nearest": dict(target="gfx90a"),
    "sm_80_spelling": dict(target="sm_80"),
    "cuda89_python": dict(target="cuda:89", python=PYTHON),
    "default_no_local": dict(target="default"),
    "local_86": dict(target="local"),
    "signature_a100": dict(
        target="cuda:80", gpu="a100", kernel="k", signature="*fp32", num_warps=8, constexprs={"B": "64"}
    ),
}

# name -> (cache key, the Build's gpu, the target, the device report: name, major, minor,
# arch, is_hip, the board's name), as commit b6bacfe gave them
EXPECTED = {
    "cuda89_python": ("c688cfcdc7befe5700d39a4942093e108abc6c44e47e7aa86132053a45cb4766", "RTX 4090", "cuda:89", ('NVIDIA RTX 4090', 8, 9, 'sm_89', False, 'RTX 4090')),
    "cuda90": ("3a91b6b0f7170b5fbfd8cca406302a839509b05215cac5f5755cd60849306425", "H100 SXM5 80GB", "cuda:90", ('NVIDIA H100 SXM5 80GB', 9, 0, 'sm_90', False, 'H100 SXM5 80GB')),
    "cuda90_h200": ("0478b0486199cef55adb6bdb76637180050cf3294eeebb4e50a8a1a08ede4630", "H200 SXM 141GB", "cuda:90", ('NVIDIA H200 SXM 141GB', 9, 0, 'sm_90', False, 'H200 SXM 141GB')),
    "default_gpu_h200": ("0478b0486199cef55adb6bdb76637180050cf3294eeebb4e50a8a1a08ede4630", "H200 SXM 141GB", "cuda:90", ('NVIDIA H200 SXM 141GB', 9, 0, 'sm_90', False, 'H200 SXM 141GB')),
    "default_gpu_mi300x": ("bd14fc9b25844876d1bc1b85f409da63e8a3e3c12878dc1bd54835950d3bab59", "MI300X", "hip:gfx942", ('AMD Instinct MI300X', 9, 4, 'gfx942', True, 'MI300X')),
    "default_no_local": ("3a91b6b0f7170b5fbfd8cca406302a839509b05215cac5f5755cd60849306425", "H100 SXM5 80GB", "cuda:90", ('NVIDIA H100 SXM5 80GB', 9, 0, 'sm_90', False, 'H100 SXM5 80GB')),
    "hip_gfx90a_nearest": ("e13a2a8b414094b8c651d615f5f0aa433dae57bf7c783667c828784279695992", "MI300X", "hip:gfx90a", ('AMD Instinct MI300X', 9, 4, 'gfx90a', True, 'MI300X')),
    "hip_gfx942": ("1f79607ebcfd83bae7fcd074ceec6a59c678d0a519aab109ab34e1ebc84dd654", "MI300X", "hip:gfx942", ('AMD Instinct MI300X', 9, 4, 'gfx942', True, 'MI300X')),
    "local_86": ("de58d37766dd0e5612f6e7c15753093f72c49682453d416b876ea37e74d147c3", "RTX 3070 (SM86)", "cuda:86", ('NVIDIA RTX 3070 (SM86)', 8, 6, 'sm_86', False, 'RTX 3070 (SM86)')),
    "signature_a100": ("09a6e24d4c44260183742e197c917cb916f76ee44028a12fab29dd3652cf20ea", "A100 SXM4 80GB", "cuda:80", ('NVIDIA A100 SXM4 80GB', 8, 0, 'sm_80', False, 'A100 SXM4 80GB')),
    "sm_80_spelling": ("a9b3726f519ca85eb1d43d513db4446c98394e1402d6c35cf50b10c1350e2fab", "A100 SXM4 80GB", "cuda:80", ('NVIDIA A100 SXM4 80GB', 8, 0, 'sm_80', False, 'A100 SXM4 80GB')),
}  # fmt: skip
BUILD_OPTIONS = {"signature_a100": ("kernel=k", "signature=*fp32", "constexprs.B=64", "num_warps=8")}
CONTENT = "96ba1eba60089f19"  # records.build.content_hash(SOURCE)

REFUSED = {  # the requests b6bacfe refused, and how
    "gpu_of_another_arch": (dict(target="hip:gfx942", gpu="h200"), DeviceError, "the H200 SXM 141GB is sm_90, not the target's gfx942"),
    "unknown_gpu": (dict(target="cuda:90", gpu="v100"), DeviceError, "unknown GPU 'v100': one of rtx3070, a100, h100, h200, rtx4090, mi300x"),
    "unknown_target": (dict(target="cuda:9x"), TargetError, "unknown target 'cuda:9x': use cuda:90, sm_80, hip:gfx942 or local"),
}  # fmt: skip


@pytest.fixture
def pinned(monkeypatch):
    """The pins the expected values were recorded under (the module docstring)."""
    monkeypatch.setattr(cache, "engine_digest", lambda: "pinned-engine")
    monkeypatch.setattr(resolve, "triton_version", lambda: "3.6.0-pinned")
    monkeypatch.setattr(
        resolve, "probe", lambda path, timeout_s=120.0: Interpreter(PYTHON, "3.11.9", "2.8.0", "3.5.1")
    )
    monkeypatch.setattr(target_spelling, "local_target", lambda: None)
    return monkeypatch


def _request(name: str) -> CompileRequest:
    return CompileRequest(FILE, text=SOURCE, **CASES[name])


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_requests_cache_key_and_build_are_what_they_were(pinned, name):
    key, gpu, target, _ = EXPECTED[name]
    if name == "local_86":
        pinned.setattr(target_spelling, "local_target", lambda: Target("cuda", 86, 32))
    asked = []
    hit_target = resolve.resolve_request(_request(name)).target

    def load(k):  # a hit, so that no worker runs
        asked.append(k)
        return CompileResult(FILE, hit_target, "3.6.0-pinned", (), ())

    pinned.setattr(cache, "load", load)
    result = runner.compile_file(_request(name))
    assert asked == [key]
    assert result.from_cache and result.build.target == target and result.build.gpu == gpu
    assert result.build.content == CONTENT and result.build.triton == "3.6.0-pinned"
    assert result.build.options == BUILD_OPTIONS.get(name, ())


class _Started(Exception):
    pass


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_worker_is_given_what_it_was_given_and_the_board(pinned, name):
    """The worker's request is the one it got before (its file absolute, --python the
    interpreter found), beside the target and the board's report it derived itself."""
    _, _, target, device = EXPECTED[name]
    if name == "local_86":
        pinned.setattr(target_spelling, "local_target", lambda: Target("cuda", 86, 32))
    pinned.setattr(cache, "load", lambda k: None)

    def start(resolved, work, *rest, **kw):
        shutil.rmtree(work)  # the job's folder, made for the worker that does not start
        raise _Started(resolved)

    pinned.setattr(runner, "_start_worker", start)
    with pytest.raises(_Started) as started:
        runner.compile_file(_request(name))
    (resolved,) = started.value.args
    expected = _request(name)
    if expected.python:
        expected = replace(expected, python=PYTHON)
    assert resolved.request == expected and resolved.target.spec == target
    d = resolved.device
    assert (d.name, d.major, d.minor, d.arch, d.is_hip, d.gpu.name) == device
    assert resolved.triton == ("3.5.1" if expected.python else "3.6.0-pinned")


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_bad_request_is_refused_as_it_was(pinned, name):
    fields, error, message = REFUSED[name]
    with pytest.raises(error) as refused:
        runner.compile_file(CompileRequest(FILE, text=SOURCE, **fields))
    assert str(refused.value) == message


def test_the_resolved_request_crosses_to_the_worker_unchanged(pinned):
    """The worker reads the JSON the parent wrote: every field comes back equal, the
    board's figures included (tuples of floats: peaks)."""
    resolved = resolve.resolve_request(_request("cuda89_python"))
    assert ResolvedRequest.from_json(resolved.to_json()) == resolved
    hip = ResolvedRequest(
        _request("hip_gfx942"), Target("hip", "gfx942", 64), device_report(Target("hip", "gfx942", 64)), "x"
    )
    assert ResolvedRequest.from_json(hip.to_json()) == hip and hip.backend.name == "hip"


def test_an_interpreter_that_cannot_run_the_worker_ends_the_compile_before_its_key(pinned):
    broken = Interpreter(PYTHON, "3.9.0", problem=f"{PYTHON}: Python 3.9.0 is older than kx supports")
    pinned.setattr(resolve, "probe", lambda path, timeout_s=120.0: broken)
    pinned.setattr(cache, "cache_key", lambda *a: pytest.fail("no key for a request that cannot run"))
    result = runner.compile_file(_request("cuda89_python"))
    assert [d.kind for d in result.diagnostics] == ["environment"]
    assert result.build.gpu == "RTX 4090" and result.target == Target("cuda", 89, 32)


# What derives something from a request or its target: parsing its spelling, asking the
# compiler, picking the board, reporting it, probing the interpreter, the Triton version.
_DERIVES = re.compile(
    r"\b(parse_target|check_supported|target_for_gpu|capture_gpu|device_report|probe|triton_version)\("
    r"|request\.(target|gpu)\b"
)


def test_only_the_door_derives_from_the_request():
    """Inside kx_core/compile, the request is resolved in jobs/resolve.py alone; the
    runner, the cache, the worker and the capture read the ResolvedRequest. Two others
    are left: the C++ path (no board, no worker) and make_capture_driver's default for
    scripts that drive Triton without a request."""
    allowed = {
        "jobs/resolve.py": None,
        "jobs/runner.py": {"request.target"},  # the C++ path's CPU tier
        "capturing/capture_driver.py": {"device_report("},  # a script's driver: no request
    }
    found = {}
    for path in sorted((ROOT / "kx_core" / "compile").rglob("*.py")):
        rel = path.relative_to(ROOT / "kx_core" / "compile").as_posix()
        for line in path.read_text().splitlines():
            code = line.split("#", 1)[0]
            if code.lstrip().startswith("def ") or (m := _DERIVES.search(code)) is None:
                continue
            if rel in allowed and (allowed[rel] is None or m.group(0) in allowed[rel]):
                continue
            found.setdefault(rel, []).append(line.strip())
    assert not found, f"derived from the request outside the door: {found}"
