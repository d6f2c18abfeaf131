"""kx's ctypes mirror of CUPTI's PC sampling structs (kx_core.bench.pcsampling) against
the header Triton's wheel ships: a C compiler prints each struct's size and each field's
offset, and they must equal ctypes' own. A wrong offset would have CUPTI write past a
buffer on the GPU machine; this catches it on any machine with a compiler."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from kx_core.bench import pcsampling as pc

triton = pytest.importorskip("triton")
INCLUDE = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "include")
HEADER = os.path.join(INCLUDE, "cupti_pcsampling.h")

# ctypes struct -> (C type, {ctypes field: C field})
STRUCTS = {
    pc.StallReason: (
        "CUpti_PCSamplingStallReason",
        {"index": "pcSamplingStallReasonIndex", "samples": "samples"},
    ),
    pc.PCData: (
        "CUpti_PCSamplingPCData",
        {
            n: n
            for n in (
                "size",
                "cubinCrc",
                "pcOffset",
                "functionIndex",
                "functionName",
                "stallReasonCount",
                "stallReason",
                "correlationId",
            )
        },
    ),
    pc.PCSamplingData: (
        "CUpti_PCSamplingData",
        {
            n: n
            for n in (
                "size",
                "collectNumPcs",
                "totalSamples",
                "droppedSamples",
                "totalNumPcs",
                "remainingNumPcs",
                "rangeId",
                "pPcData",
                "nonUsrKernelsTotalSamples",
                "hardwareBufferFull",
            )
        },
    ),
    pc.ConfigInfo: (
        "CUpti_PCSamplingConfigurationInfo",
        {"attributeType": "attributeType", "attributeStatus": "attributeStatus", "data": "attributeData"},
    ),
    pc.ConfigParams: (
        "CUpti_PCSamplingConfigurationInfoParams",
        {"ctx": "ctx", "numAttributes": "numAttributes", "pInfo": "pPCSamplingConfigurationInfo"},
    ),
    pc.GetDataParams: ("CUpti_PCSamplingGetDataParams", {"ctx": "ctx", "pcSamplingData": "pcSamplingData"}),
    pc.ContextParams: ("CUpti_PCSamplingEnableParams", {"ctx": "ctx"}),
    pc.NumStallParams: ("CUpti_PCSamplingGetNumStallReasonsParams", {"numStallReasons": "numStallReasons"}),
    pc.StallNamesParams: (
        "CUpti_PCSamplingGetStallReasonsParams",
        {
            "numStallReasons": "numStallReasons",
            "stallReasonIndex": "stallReasonIndex",
            "stallReasons": "stallReasons",
        },
    ),
}


@pytest.mark.skipif(
    not os.path.exists(HEADER) or shutil.which("gcc") is None, reason="needs the header and gcc"
)
def test_the_ctypes_structs_match_the_header(tmp_path):
    lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <cupti_pcsampling.h>", "int main(void) {"]
    for cname, fields in STRUCTS.values():
        lines.append(f'printf("{cname} #sizeof %zu\\n", sizeof({cname}));')
        for mine, theirs in fields.items():
            lines.append(f'printf("{cname} {mine} %zu\\n", offsetof({cname}, {theirs}));')
    lines.append("return 0; }")
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "layout"
    subprocess.run(["gcc", "-I", INCLUDE, "-o", str(exe), str(src)], check=True, capture_output=True)
    printed = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split("\n")
    c_side = {tuple(line.split()[:2]): int(line.split()[2]) for line in printed if line}
    for ctype, (cname, fields) in STRUCTS.items():
        assert c_side[(cname, "#sizeof")] == ctypes_sizeof(ctype), cname
        for mine in fields:
            assert c_side[(cname, mine)] == getattr(ctype, mine).offset, (cname, mine)


def ctypes_sizeof(ctype) -> int:
    import ctypes

    return ctypes.sizeof(ctype)


def test_without_a_gpu_sampling_says_why():
    import shutil as sh

    if sh.which("nvidia-smi"):
        pytest.skip("a GPU machine")
    with pytest.raises(pc.PCSamplingUnavailable):
        pc.Sampler()
