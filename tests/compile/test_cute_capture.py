"""A CuTe DSL file compiles without a GPU to its MLIR, PTX and cubin, shown as kx's stages
and linked to the source; its registers and shared memory are the cubin's, and the cubin
is the one the DSL itself builds for the same program."""

from __future__ import annotations

import base64
import os
import subprocess
import sys

import pytest

from kx_core.base.data import data_path
from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.artifacts.derived import with_derived
from kx_core.compile.artifacts.resources import cubin_resources
from kx_core.compile.artifacts.sass import disassemble
from kx_core.ir.sourcemap import source_map_of
from kx_testing import ROOT, missing_extra

pytestmark = pytest.mark.extra("cute")
pytest.importorskip("cutlass.cute", reason=missing_extra("cute"))

FILE = data_path("examples", "cute_add.py")

# The DSL's own build of the same program, in a process of its own (the DSL keeps
# global state): its cubin as base64 on stdout.
_OWN_BUILD = """
import base64, importlib.util, sys
spec = importlib.util.spec_from_file_location("cute_add", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
import cutlass, cutlass.cute as cute
a, b, c = (m.make_fake_compact_tensor(cutlass.Float32, (1024, 512)) for _ in range(3))
print(base64.b64encode(cute.compile(m.add, a, b, c, options="--keep-cubin").artifacts.CUBIN).decode())
"""


@pytest.fixture(scope="module")
def result():
    return with_derived(compile_file(CompileRequest(file=str(FILE), target="cuda:90")))


def test_a_cute_program_is_one_kernel_with_every_stage(result):
    assert result.exit_status == 0, [str(d) for d in result.diagnostics]
    (k,) = result.kernels
    assert k.name == "add" and k.status == "compiled"
    assert list(k.stages)[:2] == ["cute", "ptx"] and "sass" in k.stages
    assert "cute.memref" in k.stages["cute"] and ".target sm_90a" in k.stages["ptx"]
    import cutlass

    assert k.metadata.extra["compiler"] == "nvidia-cutlass-dsl"
    assert k.metadata.extra["compiler_version"] == cutlass.__version__  # what the window names
    # the block the program launches with is in the binary: 256 threads
    assert k.metadata.num_warps == 8
    line = next(i for i, t in enumerate(FILE.read_text().splitlines(), 1) if "gC[row, col] =" in t)
    links = source_map_of(k, str(FILE)).ir_lines(line)
    assert {"cute", "ptx", "sass"} <= set(links)
    ptx = k.stages["ptx"].splitlines()
    assert any("st.global" in ptx[i - 1] for i in links["ptx"])


def test_its_cubin_is_the_one_the_dsl_builds(result, tmp_path):
    (k,) = result.kernels
    ours = base64.b64decode(k.binaries["cubin"])
    env = dict(os.environ, CUTE_DSL_ARCH="sm_90a", CUTE_DSL_LINEINFO="1")
    out = subprocess.run(
        [sys.executable, "-c", _OWN_BUILD, str(FILE)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        cwd=tmp_path,  # --keep-cubin writes the cubin in the working folder
    )
    assert out.returncode == 0, out.stderr[-2000:]
    theirs = base64.b64decode(out.stdout.strip().splitlines()[-1])
    a, b = cubin_resources(ours), cubin_resources(theirs)
    assert (k.metadata.registers, k.metadata.shared) == (a.registers, a.shared or 0)
    assert (a.registers, a.shared, a.spills) == (b.registers, b.shared, b.spills)
    assert disassemble(ours) == disassemble(theirs)  # instructions and line table alike


DLPACK = ROOT / "fixtures" / "kernels" / "cute" / "dlpack_add.py"
# The DSL's own no-GPU build of the same program: fake gmem tensors of the layout torch
# gives a contiguous (1024, 512) fp16 CUDA tensor, aligned as the file asks; its PTX.
_FAKE_BUILD = """
import glob, os, sys
os.environ.update(CUTE_DSL_KEEP="ptx", CUTE_DSL_DUMP_DIR=sys.argv[2], CUTE_DSL_ARCH="sm_90a", CUTE_DSL_LINEINFO="1")
import cutlass, cutlass.cute as cute
from cutlass.cute.runtime import make_fake_tensor
text = open(sys.argv[1]).read()
ns = {"__name__": "dlpack_add"}
exec(compile(text[: text.index("a = torch.randn")], sys.argv[1], "exec"), ns)
cute.compile(ns["add"], *(make_fake_tensor(cutlass.Float16, (1024, 512), (512, 1), assumed_align=16) for _ in range(3)))
(ptx,) = glob.glob(os.path.join(sys.argv[2], "*.ptx"))
sys.stdout.write(open(ptx).read())
"""


def test_from_dlpack_of_a_cuda_tensor_compiles_what_the_real_tensor_gives(tmp_path):
    """kx's stand-in for a CUDA tensor reaches the DSL as the CUDA tensor it stands for
    (device, dtype, shape, strides), said as a placeholder at the from_dlpack line; the PTX
    is the DSL's own build for gmem tensors of that layout, line for line."""
    r = compile_file(CompileRequest(file=str(DLPACK), target="cuda:90"), use_cache=False)
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    line = next(i for i, t in enumerate(DLPACK.read_text().splitlines(), 1) if "from_dlpack(t" in t)
    (told,) = [d for d in r.diagnostics if "stand-in for a CUDA tensor" in d.message]
    assert told.line == line and told.kind == "placeholder"
    assert "gmemalign16" in k.message  # the DSL saw global memory, 16-byte aligned
    own = subprocess.run(
        [sys.executable, "-c", _FAKE_BUILD, str(DLPACK), str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert k.stages["ptx"].splitlines() == own.splitlines()
    # the launch that follows cannot run without a GPU: skipped and said (the check after
    # it reads placeholder data, said too), nothing fatal, no terminal colours
    assert [d.kind for d in r.diagnostics if "launch was skipped" in d.message] == ["placeholder"]
    assert not [d for d in r.diagnostics if d.fatal or d.kind == "runtime"]
    assert not [d for d in r.diagnostics if "\x1b[" in d.message]


def test_the_dsls_driver_queries_are_answered_by_the_capture_device():
    """initialize_cuda_context and HardwareInfo, which need a driver, are the capture
    device's: the grid the script sizes by max active clusters is the table GPU's SM
    count (one CTA an SM), each stand-in said once at the user's line."""
    file = ROOT / "fixtures" / "kernels" / "cute" / "persistent_grid.py"
    r = compile_file(CompileRequest(file=str(file), target="cuda:90", gpu="h200"), use_cache=False)
    (k,) = [k for k in r.kernels if k.status == "compiled"]
    lines = file.read_text().splitlines()
    at = {d.line: d.message for d in r.diagnostics if d.kind == "placeholder"}
    line_of = lambda needle: next(i for i, t in enumerate(lines, 1) if needle in t)  # noqa: E731
    assert "no driver was started" in at[line_of("cutlass.cuda.initialize_cuda_context()")]
    from kx_core.model.gpu import spec

    h200 = spec("h200")
    assert f"{h200.sm_count} SMs" in at[line_of("programs = utils.HardwareInfo()")]
    # the tensors the script made from that count: (SMs, 128) floats, as the DSL saw them
    assert f"o{h200.sm_count}128" in k.message.replace(",", "")


def test_a_launch_is_skipped_and_the_next_program_compiles():
    """A program's launch needs the GPU: kx skips it (said once) and the file goes on, so
    the program compiled after it (and after a stream sync) is captured too, as in the
    file's real run."""
    result = compile_file(
        CompileRequest(file=str(ROOT / "fixtures/kernels/cute/two_programs.py"), target="cuda:90")
    )
    names = sorted(k.name for k in result.kernels if k.status == "compiled")
    assert names == ["double", "offset"], [str(d) for d in result.diagnostics]
    skipped = [d for d in result.diagnostics if "launch was skipped" in d.message]
    assert len(skipped) == 1 and skipped[0].kind == "placeholder" and skipped[0].line
    assert not [d for d in result.diagnostics if d.fatal]
