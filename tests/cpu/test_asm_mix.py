"""The C++ Summary's counts (kx_core/cpu/asm_mix.py) against objdump's disassembly of the
same translation unit compiled to an object with the same flags: the assembler's own
reading of the code, by another path than kx's parse of g++'s -S text."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from kx_core.cpu.asm_mix import asm_mix
from kx_core.cpu.compile import compile_cpp, gcc_command
from kx_testing import ROOT

pytestmark = pytest.mark.skipif(
    shutil.which("g++") is None or shutil.which("objdump") is None, reason="needs g++ and objdump"
)
CPU = ROOT / "kx_core" / "data" / "examples" / "cpu"
# Example: "  401136:\tvfmadd231ps ymm0,ymm1,YMMWORD PTR [rdi+rax*1]"
_OBJDUMP_INSN = re.compile(r"^\s*[0-9a-f]+:\s+(\S+)\s*(.*)$")
_PADDING = {"nop", "xchg", "cs", "data16", "int3"}


def _objdump_functions(path, tier: str, tmp_path) -> dict[str, list[tuple[str, str]]]:
    obj = tmp_path / "out.o"
    cmd = gcc_command(str(path), tier, str(obj), str(tmp_path / "remarks.txt"))
    cmd[cmd.index("-S")] = "-c"
    subprocess.run(cmd, check=True, cwd=os.path.dirname(path), capture_output=True)
    text = subprocess.run(
        ["objdump", "-d", "-C", "-M", "intel", "--no-show-raw-insn", str(obj)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    out: dict[str, list[tuple[str, str]]] = {}
    current = None
    for line in text.splitlines():
        if m := re.match(r"^[0-9a-f]+ <(.+)>:$", line):
            current = out.setdefault(m.group(1), [])
        elif current is not None and (m := _OBJDUMP_INSN.match(line)):
            if m.group(1) not in _PADDING:
                current.append((m.group(1), m.group(2)))
    return out


@pytest.mark.parametrize(("name", "tier"), [("rmsnorm_avx2.cpp", "avx2"), ("rmsnorm_avx512.cpp", "avx512")])
def test_counts_equal_objdumps_disassembly(name, tier, tmp_path):
    result = compile_cpp(str(CPU / name), f"cpu:{tier}")
    truth = _objdump_functions(CPU / name, tier, tmp_path)
    assert result.kernels
    checked = 0
    for k in result.kernels:
        insns = truth.get(k.name)
        if insns is None:
            continue  # a name objdump spells otherwise (a clone suffix)
        mix = asm_mix(k.name, k.stages["asm"])
        assert mix.instructions == len(insns), k.name
        fma = sum(op.startswith(("vfmadd", "vfmsub", "vfnmadd", "vfnmsub")) for op, _ in insns)
        assert mix.fma == fma, k.name
        for bits, reg in ((512, "zmm"), (256, "ymm"), (128, "xmm")):
            wider = ("zmm", "ymm", "xmm")[: ("zmm", "ymm", "xmm").index(reg)]
            n = sum(reg in ops and not any(w in ops for w in wider) for _, ops in insns)
            assert mix.by_width.get(bits, 0) == n, (k.name, reg)
        checked += 1
    assert checked >= 2


def test_kx_summary_of_a_cpp_file_prints_the_x86_mix():
    import json

    from kx_testing import run_kx

    path = CPU / "rmsnorm_avx512.cpp"
    proc = run_kx("summary", str(path), "--target", "cpu:avx512", "--json")
    assert proc.returncode == 0, proc.stderr
    mixes = json.loads(proc.stdout)
    result = compile_cpp(str(path), "cpu:avx512")
    assert [m["function"] for m in mixes] == [k.name for k in result.kernels]
    assert [m["by_width"].get("512", 0) for m in mixes] == [
        asm_mix(k.name, k.stages["asm"]).by_width.get(512, 0) for k in result.kernels
    ]
    assert any(m["by_width"].get("512", 0) for m in mixes)  # the AVX-512 variant uses zmm
    text = run_kx("summary", str(path), "--target", "cpu:avx512").stdout
    assert text.splitlines()[1].startswith("instructions") and "registers" not in text
