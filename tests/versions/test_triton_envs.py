"""Triton versions managed by kx (issue 32): `kx versions add` of the version kx runs on
makes an environment over its packages (no download), `--triton` compiles in it, and the
kernels it compiles equal a plain compile by that version; `list` and `remove` agree.
Adding another version downloads it (measured by hand: NOTES.md)."""

from __future__ import annotations

import json
import os
from importlib.metadata import requires, version

import pytest

from kx_testing import KERNELS as EXAMPLES_DIR
from kx_testing import run_kx

OWN = version("triton")


@pytest.fixture
def versions_dir(tmp_path, monkeypatch):
    folder = tmp_path / "versions"
    monkeypatch.setenv("KX_VERSIONS_DIR", str(folder))
    return folder


def test_add_list_compile_and_remove_a_version(versions_dir):
    proc = run_kx("versions", "add", OWN, "--json")
    assert proc.returncode == 0, proc.stderr
    env = json.loads(proc.stdout)
    assert env["triton"] == OWN and env["installer"] == "linked"
    # the torch pin as torch's own metadata states it (none for a CPU build)
    pins = [r for r in requires("torch") or [] if r.startswith(("triton==", "triton~="))]
    assert env["torch_pins"] == (pins[0].split(";")[0].split("=")[-1].strip() if pins else "")
    assert os.path.exists(env["python"]) and env["python"].startswith(str(versions_dir))
    listed = json.loads(run_kx("versions", "list", "--json").stdout)
    assert [e["version"] for e in listed] == [OWN]
    path = str(EXAMPLES_DIR / "vector_add.py")
    managed = run_kx("compile", path, "--target", "cuda:90", "--triton", OWN, "--json", no_cache=True)
    plain = run_kx("compile", path, "--target", "cuda:90", "--json", no_cache=True)
    assert managed.returncode == plain.returncode == 0, managed.stderr
    m, p = json.loads(managed.stdout), json.loads(plain.stdout)
    assert m["triton_version"] == p["triton_version"] == OWN
    for km, kp in zip(m["kernels"], p["kernels"], strict=True):
        assert km["stages"]["sass"] == kp["stages"]["sass"] and km["stages"]["ttgir"] == kp["stages"]["ttgir"]
    assert run_kx("versions", "remove", OWN).returncode == 0
    assert json.loads(run_kx("versions", "list", "--json").stdout) == []


def test_a_version_not_added_names_the_command_that_adds_it(versions_dir):
    proc = run_kx("compile", str(EXAMPLES_DIR / "vector_add.py"), "--triton", "3.6.0")
    assert proc.returncode == 2 and "kx versions add 3.6.0" in proc.stderr
    proc = run_kx(
        "compare", f"{EXAMPLES_DIR / 'vector_add.py'},triton=3.6.0", str(EXAMPLES_DIR / "vector_add.py")
    )
    assert proc.returncode == 2 and "kx versions add 3.6.0" in proc.stderr
    bad = run_kx("versions", "add", "three")
    assert bad.returncode == 2 and "expected a Triton release" in bad.stderr
