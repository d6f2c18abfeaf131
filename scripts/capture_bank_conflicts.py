"""Capture Triton's own bank-conflict counts into fixtures/layout/bank_conflicts.<version>.json.

    python scripts/capture_bank_conflicts.py [--cases 240] [--seed 0]

For random (register layout, shared layout, shape, element bits) cases it asks Gluon's
helper, `GluonOpBuilder.get_shared_bank_conflicts` (what `gl.bank_conflicts` calls), and
writes the cases with its answers. tests/layout/test_shared.py checks kx's simulation
against the file. Why a file: the helper works in triton 3.6 but segfaults in the
triton 3.9.0 wheel, so CI on 3.9 reads the answers 3.6 gave. Each case runs in this
process; cases Triton would abort on (tensors smaller than one wavefront) are not drawn.
Never edit the output by hand.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = ROOT / "fixtures" / "layout"


def draw_cases(n: int, seed: int) -> list[dict]:
    """Blocked register layouts (4 warps) against swizzled and NVMMA shared layouts."""
    rng = random.Random(seed)
    p2 = lambda lo, hi: 1 << rng.randint(lo, hi)
    cases = []
    while len(cases) < n:
        shape = [p2(2, 6), p2(2, 7)]
        lanes0, warps0 = p2(0, 5), p2(0, 2)
        reg = (
            f"#ttg.blocked<{{sizePerThread = {[p2(0, 2), p2(0, 3)]}, threadsPerWarp = {[lanes0, 32 // lanes0]}, "
            f"warpsPerCTA = {[warps0, 4 // warps0]}, order = {rng.choice([[1, 0], [0, 1]])}}}>"
        )
        bits = rng.choice([8, 16, 32, 64])
        if rng.random() < 0.6:
            shared = (
                f"#ttg.swizzled_shared<{{vec = {p2(0, 3)}, perPhase = {p2(0, 2)}, maxPhase = {p2(0, 3)}, "
                f"order = {rng.choice([[1, 0], [0, 1]])}}}>"
            )
        else:
            bits = min(bits, 32)
            swizzle = rng.choice([32, 64, 128])
            transposed = rng.choice([False, True])
            contiguous = 0 if transposed else 1
            # NVMMA tiles need a whole swizzle row along the contiguous dim and 8 rows
            shape[contiguous] = max(shape[contiguous], swizzle * 8 // bits)
            shape[1 - contiguous] = max(shape[1 - contiguous], 8)
            shared = (
                f"#ttg.nvmma_shared<{{swizzlingByteWidth = {swizzle}, transposed = {str(transposed).lower()}, "
                f"elementBitWidth = {bits}}}>"
            )
        if shape[0] * shape[1] * bits < 4096:  # smaller than a wavefront: Triton asserts
            continue
        cases.append({"reg": reg, "shared": shared, "shape": shape, "bits": bits})
    return cases


def triton_conflicts(cases: list[dict]) -> list[int]:
    from triton._C.libtriton import gluon_ir, ir

    from kx_core.ir.anatomy import parse_layout
    from kx_core.layout.linear import gluon_layout
    from kx_core.layout.shared import gluon_shared_layout

    out = []
    for case in cases:
        context = ir.context()
        ir.load_dialects(context)
        builder = gluon_ir.GluonOpBuilder(context)
        reg = gluon_layout(parse_layout(case["reg"]), {}, case["shape"])._to_ir(builder)
        shared = gluon_shared_layout(parse_layout(case["shared"]), case["shape"])._to_ir(builder)
        out.append(int(builder.get_shared_bank_conflicts(reg, shared, case["shape"], case["bits"])))
    return out


def helper_works(python: str = sys.executable) -> bool:
    """Whether this triton's bank-conflict helper runs (3.9.0's segfaults)."""
    probe = (
        "import sys; sys.path.insert(0, " + repr(str(ROOT)) + "); "
        "from scripts.capture_bank_conflicts import triton_conflicts; "
        "triton_conflicts([{'reg': '#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], "
        "warpsPerCTA = [4, 1], order = [1, 0]}>', 'shared': '#ttg.swizzled_shared<{vec = 1, perPhase = 1, "
        "maxPhase = 1, order = [1, 0]}>', 'shape': [32, 32], 'bits': 32}])"
    )
    return subprocess.run([python, "-c", probe], capture_output=True, timeout=120).returncode == 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=240)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    import triton

    if not helper_works():
        print(
            f"triton {triton.__version__}: get_shared_bank_conflicts crashes here; run this with triton 3.6"
        )
        return 1
    cases = draw_cases(args.cases, args.seed)
    for case, n in zip(cases, triton_conflicts(cases)):
        case["triton_conflicts"] = n
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"bank_conflicts.{triton.__version__}.json"
    path.write_text(json.dumps({"triton": triton.__version__, "cases": cases}, indent=1) + "\n")
    print(f"{path.relative_to(ROOT)}: {len(cases)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
