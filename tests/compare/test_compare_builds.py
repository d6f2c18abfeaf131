"""`kx compare` on real pairs: every delta it states equals the one computed from the two
builds' own artifacts (cuobjdump on each cubin, each side's PTX text, each side's pass
dumps), for two configs of an autotuned matmul, an edit that unrolls a loop with
`tl.static_range`, cuda:80 vs cuda:90, and Triton 3.6.0 (managed: kx versions) vs 3.8.0
on the fused softmax and matmul."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import tempfile

import pytest

from kx_core.base.tools import require_tool
from kx_core.compare.pipelines import first_divergence, normalised
from kx_core.compare.report import compare_pair
from kx_core.compare.sides import SideError, pairs, parse_side, pick
from kx_core.model.kernel import gpu_for
from kx_core.records.results import CompiledKernel
from kx_testing import kernel_path, other_triton, run_kx

# Example: "  REG:126 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:556 ..."
_RES_RE = re.compile(r"REG:(\d+)\s+STACK:\d+\s+SHARED:\d+\s+LOCAL:(\d+)")
# Example: "        /*0b80*/                   HGMMA.64x64x16.F32 R24, gdesc[UR12].tnspB, R24 ;"
_SASS_LINE_RE = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", re.MULTILINE)


def _cuobjdump(kernel: CompiledKernel, flag: str) -> str:
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(base64.b64decode(kernel.binaries["cubin"]))
        f.flush()
        return subprocess.run(
            [require_tool("cuobjdump"), flag, f.name], capture_output=True, text=True, check=True
        ).stdout


def _oracle(kernel: CompiledKernel) -> dict[str, int]:
    """The figures from the artifacts themselves: cuobjdump's resource line and SASS, the
    PTX's own text."""
    reg, local = (int(x) for x in _RES_RE.search(_cuobjdump(kernel, "-res-usage")).groups())
    opcodes = _SASS_LINE_RE.findall(_cuobjdump(kernel, "-sass"))
    ptx = kernel.stages["ptx"]
    return {
        "registers": reg,
        "spills": local // 4,
        "SASS instructions": len(opcodes),
        "SASS tensor": sum(op in ("HGMMA", "HMMA") for op in opcodes),
        "MMA": len(re.findall(r"^\s*(?:wgmma\.mma_async|mma\.sync)\S*", ptx, re.MULTILINE)),
        "cp.async": len(re.findall(r"^\s*(?:@%p\d+\s+)?cp\.async\.c[ag]\.", ptx, re.MULTILINE)),
    }


def _check_deltas(a: CompiledKernel, b: CompiledKernel) -> None:
    pair = compare_pair(a, b, gpu_for(a), gpu_for(b))
    stated = {d.name: d for d in (*pair.resources, *pair.instructions)}
    oa, ob = _oracle(a), _oracle(b)
    for name in ("registers", "spills", "SASS instructions", "SASS tensor", "cp.async"):
        d = stated.get(name)  # a family neither side has is not listed
        assert ((d.a, d.b) if d else (0, 0)) == (oa[name], ob[name]), name
    mma = [d for n, d in stated.items() if n.startswith("MMA ")]
    assert sum(d.a for d in mma) == oa["MMA"] and sum(d.b for d in mma) == ob["MMA"]


def test_two_configs_of_an_autotuned_matmul(capture):
    result = capture("matmul_autotune.py")
    a, b = pick(result, "0")[0], pick(result, "1")[0]
    _check_deltas(a, b)
    pair = compare_pair(a, b, gpu_for(a), gpu_for(b))
    asked = {d.name: (d.a, d.b) for d in pair.inputs}
    for key in set(a.config.kwargs) | set(b.config.kwargs):
        if a.config.kwargs.get(key) != b.config.kwargs.get(key):
            assert asked[key] == (a.config.kwargs.get(key), b.config.kwargs.get(key))
    assert ("num_warps" in asked) == (a.config.num_warps != b.config.num_warps)


def test_an_edit_that_unrolls_a_loop(capture):
    a = capture("compare/row_scale_loop.py").kernels[0]
    b = capture("compare/row_scale_unrolled.py").kernels[0]
    _check_deltas(a, b)
    pair = compare_pair(a, b, gpu_for(a), gpu_for(b))
    assert not pair.inputs  # the same kernel, asked the same: only the source changed
    ttir = {s.stage: s for s in pair.stages}["ttir"]
    assert not ttir.identical and "scf.for" in a.stages["ttir"] and "scf.for" not in b.stages["ttir"]


def test_cuda80_against_cuda90(capture):
    a = capture("matmul.py", "cuda:80").kernels[0]
    b = capture("matmul.py", "cuda:90").kernels[0]
    _check_deltas(a, b)
    pair = compare_pair(a, b, gpu_for(a), gpu_for(b))
    assert {d.name: (d.a, d.b) for d in pair.inputs}["target"] == ("cuda:80", "cuda:90")
    blocks = {d.name: d for d in pair.resources}["CTAs per SM"]
    assert blocks.kind == "model" and gpu_for(a).name in blocks.model and gpu_for(b).name in blocks.model


@pytest.mark.parametrize(
    "a,b,frontend",
    [
        (("matmul.py", "cuda:80"), ("matmul.py", "cuda:90"), False),
        (("compare/row_scale_loop.py", "cuda:90"), ("compare/row_scale_unrolled.py", "cuda:90"), True),
    ],
)
def test_first_divergent_pass_agrees_with_the_pass_dumps(capture, a, b, frontend):
    ka = capture(*a, passes=True).kernels[0]
    kb = capture(*b, passes=True).kernels[0]
    d = first_divergence(ka.passes, kb.passes)
    assert d is not None and (d.index_a is None) == frontend
    if frontend:
        assert normalised(ka.passes[0].ir) != normalised(kb.passes[0].ir)
        return
    # the pass saw the same IR on both sides, and so did every pass before it in order ...
    assert normalised(ka.passes[d.index_a].ir) == normalised(kb.passes[d.index_b].ir)
    names_a = [(p.name, p.function) for p in ka.passes[: d.index_a]]
    assert names_a == [(p.name, p.function) for p in kb.passes[: d.index_b]] or d.only_a or d.only_b
    # ... and its outputs (the next pass's input on each side) differ
    assert normalised(d.after_a) != normalised(d.after_b)
    assert ka.passes[d.index_a].name == kb.passes[d.index_b].name == d.name


def test_sides_are_spelled_and_picked():
    s = parse_side("k.py@cuda:80#BLOCK_N=128,gpu=a100,python=/v/bin/python")
    assert (s.file, s.target, s.kernel, s.gpu, s.python) == (
        "k.py",
        "cuda:80",
        "BLOCK_N=128",
        "a100",
        "/v/bin/python",
    )
    assert parse_side("k.py").target is None
    with pytest.raises(SideError, match="not one of"):
        parse_side("k.py,colour=red")


def test_pick_and_pair_by_name(capture):
    result = capture("matmul_autotune.py")
    kernels = pick(result, None)
    assert pick(result, kernels[2].display_name) == [kernels[2]]
    with pytest.raises(SideError, match="pick one by number"):
        pick(result, "matmul_kernel[")
    with pytest.raises(SideError, match="compiled 4 kernel"):
        pick(result, "9")
    paired, left = pairs(kernels, kernels[:2])
    assert [a.display_name for a, _ in paired] == [k.display_name for k in kernels[:2]] and len(left) == 2


def test_compare_command_json(capture):
    path = str(kernel_path("matmul_autotune.py"))
    r = run_kx("compare", f"{path}#0", f"{path}#1", "--target", "cuda:90", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    (pair,) = data["pairs"]
    result = capture("matmul_autotune.py")
    a, b = pick(result, "0")[0], pick(result, "1")[0]
    regs = next(d for d in pair["resources"] if d["name"] == "registers")
    assert (regs["a"], regs["b"]) == (a.metadata.registers, b.metadata.registers)
    text = run_kx("compare", f"{path}#0", f"{path}#1", "--target", "cuda:90").stdout
    assert text.splitlines()[0].startswith("A  ") and "asked differently:" in text


@pytest.mark.parametrize("name", ["fused_softmax.py", "matmul.py"])
@pytest.mark.managed_triton
def test_triton_36_against_38(capture, name):
    """The tutorials' fused softmax and matmul under two Triton versions: every delta
    from each version's own cubin (cuobjdump) and PTX; the pipelines diverge where the
    two versions' passes differ (the pass dumps)."""
    env = other_triton()
    old = capture(name, python=env.python, passes=True)
    new = capture(name, passes=True)
    assert old.triton_version == env.triton and new.triton_version != env.triton
    a, b = old.kernels[0], new.kernels[0]
    _check_deltas(a, b)
    pair = compare_pair(a, b, gpu_for(a), gpu_for(b))
    assert pair.divergence == first_divergence(a.passes, b.passes)
    assert pair.divergence is not None  # two releases' pipelines are not one
