"""The one lookup of external programs: beside the interpreter before PATH, the triton
wheel's own NVIDIA tools, and a message naming the provider when one is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kx_core.base import tools


def test_console_scripts_are_found_with_nothing_on_path(tmp_path):
    """A venv that is not activated: its bin/ is not on PATH, its scripts still count."""
    probe = "from kx_core.base.tools import find_tool; print(find_tool('graphviz-pure'))"
    env = dict(os.environ, PATH=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    found = Path(p.stdout.strip())
    assert found.is_file() and found.parent in {Path(d) for d in tools.interpreter_scripts_dirs()}


def test_nvidia_tools_come_from_the_triton_wheel():
    folder = tools.triton_nvidia_bin()
    assert folder is not None
    for name in ("ptxas", "cuobjdump", "nvdisasm"):
        assert tools.find_tool(name) == os.path.join(folder, name)


def test_triton_environment_variable_wins(tmp_path, monkeypatch):
    fake = tmp_path / "my-nvdisasm"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("TRITON_NVDISASM_PATH", str(fake))
    assert tools.find_tool("nvdisasm") == str(fake)


def test_a_missing_tool_names_its_package(tmp_path, monkeypatch):
    monkeypatch.setattr(tools, "interpreter_scripts_dirs", lambda: [])
    monkeypatch.setenv("PATH", str(tmp_path))
    assert tools.find_tool("graphviz-pure") is None
    with pytest.raises(tools.ToolMissing, match=r"pip install graphviz-pure"):
        tools.require_tool("graphviz-pure", "it draws the e-graph")
    with pytest.raises(tools.ToolMissing, match="not installed"):
        tools.require_tool("no-such-program-kx")


def test_the_egraph_layout_runs_dot_without_path(tmp_path):
    """What the issue saw: the E-graph pane's dot with the venv's bin/ off PATH."""
    probe = (
        "from kx_core.luminal import egraph as l2\n"
        "from kx_core.luminal.egraph_layout import layout\n"
        "from kx_core.luminal.terms import parse_term\n"
        "g, snaps = l2.EGraph(), []\n"
        "g.add(parse_term('(+ (* x y) (* x z))'))\n"
        "g.run(l2.ALGEBRA, iter_limit=30, node_limit=20_000, on_iteration=snaps.append)\n"
        "print(len(layout(snaps[-1]).nodes))\n"
    )
    env = dict(os.environ, PATH=str(tmp_path))
    p = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    assert int(p.stdout.strip()) > 0


def test_a_tool_whose_output_is_no_longer_wanted_is_ended(tmp_path):
    """Issue 51: the window's disassembly of a build it stopped showing gives its cores to
    the next compile: the running tool is ended (ToolStopped), not waited for."""
    pid_file = tmp_path / "pid"
    with tools.stopped_by(pid_file.exists), pytest.raises(tools.ToolStopped):
        tools.run_tool(
            "/bin/sh", ["-c", f"echo $$ > {pid_file}.tmp; mv {pid_file}.tmp {pid_file}; exec sleep 60"], 120
        )
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):  # ended and reaped, not left to sleep on
        os.kill(pid, 0)


def test_a_tool_outside_stopped_by_runs_to_its_end():
    with tools.stopped_by(None):
        assert tools.run_tool("/bin/sh", ["-c", "echo done"], 60).strip() == "done"
