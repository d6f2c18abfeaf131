"""The Arguments form's first values (issue 31): a float scalar by its name is suggested
as a float, so the call compiles it as fp32, not i32."""

from __future__ import annotations

from kx_core.compile import CompileRequest
from kx_core.compile.jobs.runner import compile_file


def test_float_scalars_are_suggested_as_floats(tmp_path):
    path = tmp_path / "scaled.py"
    path.write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def scaled_add(x_ptr, y_ptr, out_ptr, alpha, sm_scale, n_elements, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    mask = offs < n_elements\n"
        "    x = tl.load(x_ptr + offs, mask=mask)\n"
        "    y = tl.load(y_ptr + offs, mask=mask)\n"
        "    tl.store(out_ptr + offs, alpha * x + sm_scale * y, mask=mask)\n"
    )
    listing = compile_file(CompileRequest(str(path), target="cuda:90", import_only=True), use_cache=False)
    (definition,) = listing.definitions
    suggested = {p.name: p.suggested for p in definition.params}
    assert suggested["alpha"] == suggested["sm_scale"] == "1.0" and suggested["n_elements"] == "4096"
    # compiled as the form would call it: alpha and sm_scale are fp32 in the signature
    args = {name: value for name, value in suggested.items() if value is not None}
    called = compile_file(
        CompileRequest(str(path), target="cuda:90", kernel="scaled_add", args=args), use_cache=False
    )
    (kernel,) = [k for k in called.kernels if k.status == "compiled"]
    assert "%alpha: f32" in kernel.stages["ttir"] and "%sm_scale: f32" in kernel.stages["ttir"]
    assert "%n_elements: i32" in kernel.stages["ttir"]
