"""`kx repro` (issue 54): what a repro script carries of the kernel's file, that it stands
alone (no kx), and the kernels kx refuses with a message and exit status 1. Whether the
scripts compile the captured kernel is tests/lab/test_repro_oracle.py."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

import pytest

from kx_core.cli import main
from kx_core.compile import CompileRequest, compile_file
from kx_core.lab.repro import _string_literal, make_repro, pick_kernel
from kx_core.lab.repro_source import embed_kernel
from kx_core.lab.repro_types import ReproChoiceError, ReproError
from kx_testing import KERNELS, ROOT

REPRO = ROOT / "fixtures" / "kernels" / "repro"
SPECIALIZATIONS = REPRO / "specializations.py"


def _line(text: str, needle: str) -> int:
    return next(i for i, t in enumerate(text.splitlines(), 1) if needle in t)


def test_the_embedded_source_keeps_every_line_where_the_file_has_it():
    """The kernel's `def`, its helper, the @jit passed as a constexpr and the constexpr
    global at their own lines; the dropped heuristics' first line holds the @jit (a
    function's first line is in Triton's hash); the file's launches, its unrelated
    tensor and the heuristics' lambdas are gone; the indented comment after the body,
    which Triton reads as part of the kernel, stays."""
    text = SPECIALIZATIONS.read_text()
    e = embed_kernel(text, str(SPECIALIZATIONS), "scaled_activation", extra=("leaky", "identity"))
    got = e.text.splitlines()
    for needle in (
        "def scaled_activation(",
        "def leaky(",
        "def identity(",
        "SCALE: tl.constexpr",
        "import triton",
    ):
        at = _line(text, needle)
        assert got[at - 1] == text.splitlines()[at - 1], needle
    assert got[_line(text, "@triton.heuristics(") - 1] == "@triton.jit"
    assert got[_line(text, "an indented comment after the body") - 1].strip().startswith("# an indented")
    for gone in ("unrelated", "lambda args", "torch.randn", "__main__", "[(8,)]"):
        assert gone not in e.text, gone
    assert e.dropped == ("triton.heuristics",)
    assert {"SCALE", "leaky", "identity", "tl", "triton"} <= set(e.kept)
    assert "shifted" not in e.kept  # another kernel of the file, not called


def test_the_script_literal_of_a_source_is_that_source():
    for text in ("a = '''x'''\nb = 1\n", 'a = """x"""\nb = "\\\\n"\n', "c = '\\t' + \"'''\" + '\"\"\"'\n"):
        assert ast.literal_eval(_string_literal(text)) == text


@pytest.fixture(scope="module")
def vector_add():
    return compile_file(CompileRequest(str(KERNELS / "vector_add.py"), target="cuda:90"))


@pytest.fixture(scope="module")
def siblings():
    return compile_file(CompileRequest(str(REPRO / "uses_sibling.py"), target="cuda:90"))


def _imported_roots(script: str) -> set[str]:
    roots = set()
    for source in (script, ast.literal_eval(_source_literal(script))):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                roots |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                roots.add((node.module or "").split(".")[0])
    return roots


def _source_literal(script: str) -> str:
    tree = ast.parse(script)
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "SOURCE")
    return ast.get_source_segment(script, node.value)


# a script run with kx made unimportable: sys.modules[name] = None makes `import name` fail
_WITHOUT_KX = (
    "import runpy, sys\n"
    "sys.modules['kx_core'] = sys.modules['kx_gui'] = None\n"
    "runpy.run_path(sys.argv[1], run_name='__main__')\n"
)


def test_the_script_stands_alone(vector_add, tmp_path):
    """No kx in it: its imports are the standard library's, torch's and triton's; run with
    kx unimportable, from another folder, it gets as far as this machine allows (no GPU
    here: it says so and exits 2, having compiled nothing)."""
    repro = make_repro(vector_add, 0)
    allowed = set(sys.stdlib_module_names) | {"torch", "triton"}
    assert _imported_roots(repro.script) <= allowed
    path = tmp_path / "repro.py"
    path.write_text(repro.script)
    p = subprocess.run(
        [sys.executable, "-c", _WITHOUT_KX, str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    import torch

    if torch.cuda.is_available():  # the GPU machine: it launches and compares
        assert p.returncode in (0, 1) and "expected  " + repro.expected_hash in p.stdout, p.stdout + p.stderr
    else:
        assert p.returncode == 2 and "no CUDA GPU here" in p.stdout, p.stdout + p.stderr


def test_kernels_kx_cannot_reproduce_are_refused_with_the_reason(siblings, capsys):
    with pytest.raises(ReproError, match="sibling_helpers, a module of the user's"):
        make_repro(siblings, pick_kernel(siblings, "double_kernel"))
    with pytest.raises(ReproError, match="defined inside a function or class"):
        make_repro(siblings, pick_kernel(siblings, "inner_kernel"))
    file = str(REPRO / "uses_sibling.py")
    assert main(["repro", file, "--target", "cuda:90", "--kernel", "double_kernel"]) == 1
    err = capsys.readouterr()
    assert "sibling_helpers" in err.err and err.out == ""
    assert main(["repro", file, "--target", "cuda:90", "--kernel", "inner_kernel", "--json"]) == 1
    answer = json.loads(capsys.readouterr().out)
    assert answer["kx_error"]["exit_status"] == 1
    assert "top level" in answer["kx_error"]["messages"][0]


def test_a_kernel_that_compiled_nothing_is_refused(capsys):
    file = str(SPECIALIZATIONS)
    # `leaky` is passed as a constexpr, never launched: its record is not-launched
    assert main(["repro", file, "--target", "cuda:90", "--kernel", "leaky"]) == 1
    assert "not-launched, not compiled" in capsys.readouterr().err


def test_the_launch_is_named_by_kernel_config_and_index(tmp_path, capsys):
    file = str(KERNELS / "matmul_autotune.py")
    assert main(["repro", file, "--target", "cuda:90", "--kernel", "matmul_kernel"]) == 2
    err = capsys.readouterr().err
    assert (
        "4 launches match" in err
        and "--index 3: matmul_kernel[BLOCK_M=64,BLOCK_N=64,BLOCK_K=64,w4,s2]" in err
    )
    assert main(["repro", file, "--target", "cuda:90", "--kernel", "nope"]) == 2
    assert "no compiled kernel named 'nope' (compiled: matmul_kernel)" in capsys.readouterr().err
    assert main(["repro", file, "--target", "cuda:90", "--kernel", "matmul_kernel", "--config", "1x1"]) == 2
    assert "its configs: 'BLOCK_M=128" in capsys.readouterr().err
    out = tmp_path / "mm.py"
    status = main(
        ["repro", file, "--target", "cuda:90", "--kernel", "matmul_kernel", "--config", "64x64x64 w4 s2"]
        + ["-o", str(out), "--json"]
    )
    answer = json.loads(capsys.readouterr().out)
    assert status == 0 and answer["path"] == str(out) and answer["mode"] == "launch"
    assert answer["kernel"] == "matmul_kernel[BLOCK_M=64,BLOCK_N=64,BLOCK_K=64,w4,s2]"
    script = out.read_text()
    assert f'"expected_hash": "{answer["expected_hash"]}"' in script
    assert '"BLOCK_K", "kind": "constexpr", "value": 64' in script and '"num_stages": 2' in script
    # without -o the script goes to stdout and no file is written
    before = set(tmp_path.iterdir())
    assert main(["repro", file, "--target", "cuda:90", "--kernel", "matmul_kernel", "--index", "0"]) == 0
    assert capsys.readouterr().out.startswith("#!/usr/bin/env python3") and set(tmp_path.iterdir()) == before


def test_a_choice_error_is_a_repro_error_that_lists_the_launches(vector_add):
    with pytest.raises(
        ReproChoiceError, match=r"--index 5 is out of range; the choices: --index 0: add_kernel"
    ):
        pick_kernel(vector_add, "add_kernel", index=5)
