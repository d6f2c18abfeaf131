"""Registers from cuobjdump -res-usage agree with ptxas's own -v report (the oracle)."""

from __future__ import annotations

import re
import subprocess

import pytest

from kx_core.compile.artifacts.resources import parse_amdgcn_resources, parse_res_usage


def _ptxas_report(ptx: str, arch: int, tmp_path) -> tuple[int, int]:
    """(registers, spill store bytes) as ptxas -v prints them for this PTX."""
    from triton import knobs

    tool = knobs.nvidia.ptxas.path if arch < 90 else knobs.nvidia.ptxas_blackwell.path
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    gpu = f"sm_{arch}a" if arch >= 90 else f"sm_{arch}"
    cmd = [
        tool,
        "-lineinfo",
        "-v",
        "--regAllocOptLevel=2",
        f"--gpu-name={gpu}",
        str(src),
        "-o",
        str(tmp_path / "k.o"),
    ]
    log = subprocess.run(cmd, capture_output=True, text=True, check=True).stderr
    # Example: "ptxas info    : Used 126 registers, used 1 barriers, 16 bytes smem"
    regs = int(re.search(r"Used (\d+) registers", log).group(1))
    # Example: "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
    spills = int(re.search(r"(\d+) bytes spill stores", log).group(1))
    return regs, spills


@pytest.mark.parametrize("target", ["cuda:90", "cuda:80"])
def test_registers_match_ptxas(capture, target, tmp_path):
    kernels = capture("matmul_autotune.py", target).kernels + capture("vector_add.py", target).kernels
    arch = int(target.split(":")[1])
    for k in kernels:
        regs, spill_bytes = _ptxas_report(k.stages["ptx"], arch, tmp_path)
        assert k.metadata.registers == regs, k.display_name
        assert (k.metadata.local or 0) >= spill_bytes


def test_res_usage_parser_picks_the_named_function():
    text = (
        "\nResource usage:\n Common:\n  GLOBAL:0\n Function a_kernel:\n"
        "  REG:30 STACK:8 SHARED:0 LOCAL:16 CONSTANT[0]:576 TEXTURE:0 SURFACE:0 SAMPLER:0\n"
        " Function b_kernel:\n  REG:40 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:576\n"
    )
    a = parse_res_usage(text, "a_kernel")
    assert (a.registers, a.stack, a.local, a.spills) == (30, 8, 16, 4)
    b = parse_res_usage(text, "b_kernel")
    assert (b.registers, b.shared) == (40, 1024)
    assert parse_res_usage("garbage").reason is not None


def test_amdgcn_resources_from_a_real_compile(capture):
    k = capture("matmul_autotune.py", "hip:gfx942").kernels[0]
    usage = parse_amdgcn_resources(k.stages["amdgcn"])
    # the .amdhsa directive and the metadata block must agree on VGPRs
    next_free = int(re.search(r"\.amdhsa_next_free_vgpr (\d+)", k.stages["amdgcn"]).group(1))
    assert usage.registers > 0 and usage.registers <= next_free + 8
    assert usage.registers == k.metadata.registers


def test_the_elf_stage_reports_registers_and_barriers_as_ptxas_allocated_them(capture, tmp_path):
    """The ELF stage (cuobjdump -elf -res-usage of the cubin) against ptxas -v on the PTX:
    registers and named barriers per kernel; a softmax row reduction across warps syncs,
    a vector add does not."""
    from triton import knobs

    from kx_core.compile.artifacts.elf import resource_usage

    seen_barriers = set()
    for name in ("fused_softmax.py", "vector_add.py", "matmul_autotune.py"):
        for k in capture(name, "cuda:90").kernels:
            elf = k.stages["elf"]
            assert "Sections:" in elf and "EIATTR_REGCOUNT" in elf
            usage = resource_usage(elf)[k.name]
            src = tmp_path / "k.ptx"
            src.write_text(k.stages["ptx"])
            log = subprocess.run(
                [knobs.nvidia.ptxas_blackwell.path, "-lineinfo", "-v", "--gpu-name=sm_90a", str(src)],
                capture_output=True,
                text=True,
                check=True,
                cwd=tmp_path,
            ).stderr
            # Example: "ptxas info    : Used 126 registers, used 1 barriers, 16 bytes smem"
            assert usage["REG"] == int(re.search(r"Used (\d+) registers", log).group(1)), k.display_name
            barriers = re.search(r"used (\d+) barriers", log)
            assert usage["BAR"] == (int(barriers.group(1)) if barriers else 0), k.display_name
            assert usage["REG"] == k.metadata.registers
            seen_barriers.add(usage["BAR"] > 0)
    assert seen_barriers == {True, False}
