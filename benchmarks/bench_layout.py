"""Layout ownership speed against a reference measured in the same run.

    python benchmarks/bench_layout.py

Ownership of a 256x256 tensor in a blocked, an MMA and a dot-operand layout through
Triton's linear layouts (target <= 20 ms each), against the drill's pure-Python blocked
model (drill T2's owners()) on the same blocked layout.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kx_core.layout import blocked as t2  # noqa: E402
from kx_core.layout.linear import linear_bases, ownership  # noqa: E402

MMA = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"
LAYOUTS = {
    "blocked": "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
    "nvidia_mma v2": MMA,
    "dot_op(mma)": "#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>",
}


def median_ms(fn, n=7) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    shape = [256, 256]
    print("# bench_layout  256x256")
    for name, attr in LAYOUTS.items():
        ms = median_ms(lambda a=attr: ownership(linear_bases(a, shape, {"#mma": MMA})))
        print(f"{name:14} ownership (Triton linear layout + numpy): {ms:6.1f} ms   (target <= 20 ms)")
    model = t2.parse_blocked(LAYOUTS["blocked"])
    ref = median_ms(lambda: t2.owners(model, shape), n=3)
    fast = median_ms(lambda: ownership(linear_bases(LAYOUTS["blocked"], shape)))
    print(
        f"reference: the drill's Python blocked model, same layout: {ref:.0f} ms (linear is {ref / fast:.0f}x faster)"
    )


if __name__ == "__main__":
    main()
