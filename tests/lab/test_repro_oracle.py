"""`kx repro`'s oracle (issue 54): a repro script, run as a file through kx's own capture
(which compiles what a file launches, for cuda:90, without a GPU), makes Triton compile
a kernel with the captured launch's hash: a plain kernel, an autotuned one's configs, a
heuristics kernel, an integer argument equal to 1 with a pointer not 16-byte aligned, a
@jit function passed as a constexpr, a warmed-up kernel, a library module's autotuned
heuristics kernel, a Gluon kernel and an Inductor kernel (compile mode, which also runs
in a plain process here: triton.compile needs no GPU).

The capture's hash is a real run's (tests/compile/test_compile_identity.py against the
H200's ground truth); scripts/gpu_repro_check.sh runs the scripts on the H200 itself."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kx_core.compile import CompileRequest, compile_file
from kx_core.lab.repro import make_repro
from kx_testing import ROOT

# file -> the records to reproduce, by (kernel name, index among its compiled records)
CASES = {
    "kx_core/data/examples/vector_add.py": [("add_kernel", 0)],
    # autotuned, four configs: the first and the last
    "kx_core/data/examples/matmul_autotune.py": [("matmul_kernel", 0), ("matmul_kernel", 3)],
    # heuristics and a @jit constexpr; then stride == 1, x_ptr 4 bytes in, n % 16 != 0;
    # then a kernel compiled by warmup() with do_not_specialize
    "fixtures/kernels/repro/specializations.py": [
        ("scaled_activation", 0),
        ("scaled_activation", 1),
        ("shifted", 0),
    ],
    # a helper kernel, and the launch on a view one float in (not 16-byte aligned)
    "kx_core/data/examples/two_kernels.py": [("row_sum_of_squares", 1)],
    # autotune over heuristics in a library module the driver imports (bf16; fp16 with
    # n_cols = 1000, not a multiple of 16)
    "fixtures/real_world/use_mylib.py": [("rms_norm_kernel", 0), ("rms_norm_kernel", 3)],
    "fixtures/kernels/gluon/helper_layouts.py": [("helper_copy_kernel", 0)],
    # a Gluon layout passed as a constexpr (its repr, rebuilt as the layout)
    "kx_core/data/examples/gluon_transpose.py": [("scale_kernel", 0)],
    # torch.compile: each config of Inductor's kernel, compiled with triton.compile
    "fixtures/kernels/repro/inductor_pointwise.py": [("triton_poi_", 0), ("triton_poi_", 1)],
}

_RESULTS: dict = {}


def _original(file: str):
    if file not in _RESULTS:
        _RESULTS[file] = compile_file(CompileRequest(str(ROOT / file), target="cuda:90"), use_cache=False)
    return _RESULTS[file]


def _record(result, name: str, index: int):
    named = [k for k in result.kernels if k.status == "compiled" and k.name.startswith(name)]
    assert len(named) > index, (name, [k.display_name for k in result.kernels], result.diagnostics)
    return named[index]


@pytest.mark.slow
@pytest.mark.parametrize(
    "file,name,index", [(f, n, i) for f, picks in CASES.items() for n, i in picks], ids=lambda v: str(v)
)
def test_the_script_compiles_the_captured_kernel(file, name, index, tmp_path):
    original = _original(file)
    kernel = _record(original, name, index)
    repro = make_repro(original, kernel)
    assert repro.expected_hash == kernel.metadata.hash
    assert repro.mode == ("compile" if "inductor" in file else "launch")
    script = tmp_path / "repro.py"
    script.write_text(repro.script)
    run = compile_file(CompileRequest(str(script), target="cuda:90"), use_cache=False)
    got = [k.metadata.hash for k in run.kernels if k.status == "compiled"]
    assert got == [kernel.metadata.hash], (kernel.display_name, run.output, run.diagnostics)
    # the script's own verdict, printed in the capture's run
    assert "same hash: Triton compiled the captured kernel" in run.output, run.output


# a script run with kx made unimportable: sys.modules[name] = None makes `import name` fail
_WITHOUT_KX = (
    "import runpy, sys\n"
    "sys.modules['kx_core'] = sys.modules['kx_gui'] = None\n"
    "runpy.run_path(sys.argv[1], run_name='__main__')\n"
)


@pytest.mark.slow
def test_an_inductor_script_gives_the_hash_in_a_plain_process(tmp_path):
    """Compile mode needs no GPU and no kx: run as a plain Python file, with kx made
    unimportable, from another folder, it prints the captured hash and exits 0."""
    original = _original("fixtures/kernels/repro/inductor_pointwise.py")
    kernel = _record(original, "triton_poi_", 0)
    script = tmp_path / "inductor_repro.py"
    script.write_text(make_repro(original, kernel).script)
    p = subprocess.run(
        [sys.executable, "-c", _WITHOUT_KX, str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"got       {kernel.metadata.hash}" in p.stdout


@pytest.mark.slow
def test_an_output_code_kernel_whose_generated_module_is_gone(tmp_path):
    """A kernel of an Inductor output_code.py run as the file: its module is a string in the
    file (`source_alias`); with Inductor's generated copy gone (another machine, a cleared
    cache), the script carries the string's text and still gives the captured hash."""
    from dataclasses import replace

    original = _original("fixtures/inductor/mlp_0_forward_output_code.py")
    kernel = _record(original, "triton_poi_fused_gelu_0", 0)
    ((_, offset),) = kernel.source_alias.items()
    gone = replace(kernel, source_alias={str(tmp_path / "gone" / "module.py"): offset})
    script = tmp_path / "output_code_repro.py"
    script.write_text(make_repro(original, gone).script)
    p = subprocess.run(
        [sys.executable, "-c", _WITHOUT_KX, str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert p.returncode == 0 and f"got       {kernel.metadata.hash}" in p.stdout, p.stdout + p.stderr


def test_a_gluon_layouts_text_is_rebuilt_as_that_layout():
    """What the capture writes of a layout constexpr (its repr) becomes the layout again,
    nested ones too; any other text stays text (Gluon's own classes and equality)."""
    from triton.experimental.gluon import language as gl

    from kx_core.lab.repro_runtime import gluon_layout

    blocked = gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    for layout in (blocked, gl.SliceLayout(0, blocked)):
        assert gluon_layout(repr(layout)) == layout
    for text in ("fp16", "os.system('x')", "BlockedLayout(", "NotALayout(1)", "Layout()"):
        assert gluon_layout(text) is None
