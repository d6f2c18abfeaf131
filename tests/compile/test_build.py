"""The Build a compile names (records/build.py): the content hash of the bytes it read,
the target, the GPU the capture stood for, the Triton version and the options that
change the code; a cached result names the same build; a change to any of them is a
different build, and `difference` says which in words."""

from __future__ import annotations

import hashlib

import triton

from kx_core.compile import CompileRequest, compile_file
from kx_testing import KERNELS


def test_a_compile_names_its_build_and_a_change_is_another_build(tmp_path):
    path = tmp_path / "matmul_autotune.py"
    path.write_bytes((KERNELS / "matmul_autotune.py").read_bytes())
    first = compile_file(CompileRequest(str(path), target="cuda:90"))
    build = first.build
    assert build.content == hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    assert (build.file, build.target, build.triton) == (str(path), "cuda:90", triton.__version__)
    assert build.gpu == "H100 SXM5 80GB" and build.options == () and build.kernel == ""

    cached = compile_file(CompileRequest(str(path), target="cuda:90"))
    assert cached.from_cache and cached.build == build

    # one kernel's build names it and its config: the four configs are four builds
    kernels = [first.kernel_build(k) for k in first.kernels if k.status == "compiled"]
    assert len({(b.kernel, b.config) for b in kernels}) == len(kernels) == 4
    assert all(b.whole == build for b in kernels)
    assert "another config" in kernels[0].difference(kernels[1])

    other_target = compile_file(CompileRequest(str(path), target="cuda:80")).build
    assert other_target.difference(build) == "another target (cuda:90, now cuda:80); another GPU " + (
        f"({build.gpu}, now {other_target.gpu})"
    )
    path.write_bytes(path.read_bytes() + b"\n# edited\n")
    edited = compile_file(CompileRequest(str(path), target="cuda:90")).build
    assert edited.content != build.content
    assert edited.difference(build) == (
        f"the file changed since (was @{build.content[:8]}, now @{edited.content[:8]})"
    )
    assert build.difference(build) == ""


def test_options_that_change_the_code_are_part_of_the_build():
    plain = compile_file(CompileRequest(str(KERNELS / "vector_add.py"), target="cuda:90")).build
    request = CompileRequest(
        str(KERNELS / "vector_add.py"),
        target="cuda:90",
        kernel="add_kernel",
        args={"n_elements": "4096", "BLOCK_SIZE": "256"},
        grid="16",
        import_only=True,
    )
    called = compile_file(request).build
    assert called.content == plain.content and called.options == (
        "kernel=add_kernel",
        "args.BLOCK_SIZE=256",
        "args.n_elements=4096",
        "grid=16",
        "import_only=True",
    )
    assert called.difference(plain).startswith("other options (none, now kernel=add_kernel, ")
