"""coalesced_layout == the layout Triton's own tritongpu-coalesce pass picks, on generated
compiles of kx_core/data/examples/copy_2d.py over shapes, dtypes, orders and warp counts."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys

from kx_core.layout import blocked as t2
from kx_testing import KERNELS, ROOT

CASES = [
    (s0, s1, dtype, col, warps)
    for (s0, s1), dtype, col, warps in itertools.product(
        [(64, 64), (16, 128), (128, 16), (8, 8), (32, 256)], ["fp16", "fp32", "i8"], [False, True], [4, 8]
    )
]
BITS = {"fp16": 16, "fp32": 32, "i8": 8}

# Compiles every case to TTGIR in one process and prints the load's layout for each.
_SCRIPT = r"""
import json, sys, importlib.util
sys.path.insert(0, {root!r})
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.runtime import driver
from kx_core.compile.capturing.capture_driver import make_capture_driver
from kx_core.records.results import Target
driver.set_active(make_capture_driver(Target("cuda", 90, 32)))
spec = importlib.util.spec_from_file_location("copy_2d", {file!r})
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
out = []
for s0, s1, dtype, col, warps in json.loads(sys.argv[1]):
    src = ASTSource(mod.copy_2d, {{"x_ptr": "*" + dtype, "y_ptr": "*" + dtype, "S0": "constexpr", "S1": "constexpr",
                                  "COL_MAJOR": "constexpr"}}, {{(2,): s0, (3,): s1, (4,): col}},
                    {{(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}})
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={{"num_warps": warps}})
    out.append(k.asm["ttgir"])
print(json.dumps(out))
"""

# Example: "%0 = tt.load %ptrs : tensor<64x64x!tt.ptr<f16>, #blocked> loc(#loc12)"
_LOAD_RE = re.compile(r"= tt\.load %\S+ : tensor<\d+x\d+x!tt\.ptr<\w+>, (#\w+)>")
# Example: "#blocked = #ttg.blocked<{sizePerThread = [1, 8], ..., order = [1, 0]}>"
_ALIAS_RE = re.compile(r"^(#\w+) = (#ttg\.blocked<.*>)$", re.MULTILINE)


def test_coalesce_pass_oracle(tmp_path):
    assert len(CASES) >= 20
    env = dict(os.environ, TRITON_CACHE_DIR=str(tmp_path), TRITON_DEFAULT_FP_FUSION="1")
    p = subprocess.run(
        [
            sys.executable,
            "-c",
            _SCRIPT.format(root=str(ROOT), file=str(KERNELS / "copy_2d.py")),
            json.dumps(CASES),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    ttgirs = json.loads(p.stdout.strip().splitlines()[-1])
    for (s0, s1, dtype, col, warps), ttgir in zip(CASES, ttgirs):
        alias = _LOAD_RE.search(ttgir).group(1)
        real = t2.parse_blocked(dict(_ALIAS_RE.findall(ttgir))[alias])
        order = [0, 1] if col else [1, 0]
        shape = [s0, s1]
        derived = t2.coalesced_layout(shape, order, BITS[dtype], contiguity=shape[order[0]], num_warps=warps)
        assert derived == real, (s0, s1, dtype, col, warps, str(real))
        # the TTGIR-side explanation finds the same deciding term(s) the derivation does
        explained = t2.explain_load_layout(real, shape, BITS[dtype])
        terms = t2.explain_elements_per_thread(shape, order, BITS[dtype], shape[order[0]], 16, warps)
        assert explained["chosen"] == terms["chosen"]
        seen = set(explained["limited by"]) - {"alignment/contiguity"}
        assert seen == set(terms["limited by"]) & {"shape", "128-bit limit", "elements/threads cap"}
