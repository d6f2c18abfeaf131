"""Why kx bench and do_bench part on a long kernel (GPU machine only).

Times the 8192^3 matmul fixture after 4 s of load, alternately with
triton.testing.do_bench and kx's time_gpu (as it is, and with do_bench's 256 MB flush
buffer), then each after 3 s idle, printing each phase's median with its wall-clock
window, so the SM clock and power sampled beside it
(`nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100`) can be
lined up with the phases.

    PYTHONPATH=. python3 benchmarks/probe_long_timing.py"""

import runpy
import time
from pathlib import Path

import torch
from triton.testing import do_bench

from kx_core.bench import gpu

ns = runpy.run_path(str(Path(__file__).parents[1] / "fixtures/kernels/gpu/matmul_large.py"))
a, b, c, n, kernel = ns["a"], ns["b"], ns["c"], ns["n"], ns["matmul_kernel"]


def call():
    kernel[(n // 128, n // 128)](a, b, c, n, n, n, BM=128, BN=128, BK=64, num_warps=8, num_stages=3)


def kx(**kw):
    return gpu.time_gpu(call, 300.0, first_call=False, **kw).median_ms


def big_flush(lead: bool = True):
    """kx's loop with do_bench's 256 MB flush buffer (and optionally no lead)."""
    old_buf, old_lead = gpu._flush_buffer, gpu.LEAD_US
    gpu._flush_buffer = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")
    gpu.LEAD_US = old_lead if lead else 0.0
    try:
        return kx()
    finally:
        gpu._flush_buffer, gpu.LEAD_US = old_buf, old_lead


def bench():
    return do_bench(call, warmup=25, rep=300, return_mode="median")


def hot(seconds: float) -> None:
    end = time.time() + seconds
    while time.time() < end:
        for _ in range(50):
            call()
        torch.cuda.synchronize()


def cool_then(fn):
    time.sleep(3)
    return fn()


phases = [("hot: 4 s of load", lambda: (hot(4.0), 0.0)[1])]
for _ in range(3):
    phases += [("do_bench median", bench), ("kx", kx), ("kx 256 MB flush (lead)", big_flush)]
phases += [
    ("cool 3 s, then kx", lambda: cool_then(kx)),
    ("cool 3 s, then do_bench", lambda: cool_then(bench)),
    ("cool 3 s, then kx", lambda: cool_then(kx)),
    ("cool 3 s, then do_bench", lambda: cool_then(bench)),
]


for name, fn in phases:
    t0 = time.time()
    ms = fn()
    print(
        f"{name:24s} {ms * 1e3:9.1f} us   wall {time.strftime('%H:%M:%S', time.gmtime(t0))}.{int(t0 % 1 * 1000):03d} +{time.time() - t0:.2f} s",
        flush=True,
    )
