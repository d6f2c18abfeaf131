"""Where do_bench's two modes on a ~13 us kernel come from (GPU machine only).

In one process, ten rounds, each timing the softmax fixture's launch four ways: kx's
time_gpu; triton.testing.do_bench (median); and do_bench's own loop copied here, once
with a flush buffer allocated for each call (as do_bench does) and once with one buffer
kept for the whole run. Printed per round, so one sees which of them change mode
between calls.

    PYTHONPATH=. python3 benchmarks/probe_small_timing.py"""

import runpy
import statistics
from pathlib import Path

import torch
from triton.testing import do_bench

from kx_core.bench import gpu

ns = runpy.run_path(str(Path(__file__).parents[1] / "fixtures/kernels/gpu/softmax_rows.py"))
x, y, kernel = ns["x"], ns["y"], ns["softmax_rows"]
KEPT = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int, device="cuda")


def call():
    kernel[(4096,)](x, y, 1024, BLOCK=1024)


def do_bench_loop(cache=None, rep_ms: float = 400.0) -> float:
    """do_bench's loop (estimate, warm-up, flush + events per call), median in us."""
    cache = (
        cache if cache is not None else torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int, device="cuda")
    )
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        cache.zero_()
        call()
    end.record()
    torch.cuda.synchronize()
    estimate = start.elapsed_time(end) / 5
    for _ in range(max(1, int(25 / estimate))):
        call()
    n = max(1, int(rep_ms / estimate))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
    for i in range(n):
        cache.zero_()
        starts[i].record()
        call()
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends)) * 1e3


def main() -> None:
    names = ("kx", "do_bench", "loop, new buffer", "loop, kept buffer")
    rows = []
    for i in range(10):
        row = (
            gpu.time_gpu(call, 400.0, first_call=False).median_ms * 1e3,
            do_bench(call, warmup=25, rep=400, return_mode="median") * 1e3,
            do_bench_loop(),
            do_bench_loop(KEPT),
        )
        rows.append(row)
        print(f"round {i}: " + "   ".join(f"{n} {v:.2f}" for n, v in zip(names, row)), flush=True)
    for n, col in zip(names, zip(*rows)):
        print(f"{n}: max/min {max(col) / min(col):.4f}, median {statistics.median(col):.2f} us")


if __name__ == "__main__":
    main()
