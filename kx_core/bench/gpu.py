"""Timing on the local GPU with CUDA events.

- The first call (compile, autotune, lazy init) is timed on its own and never mixed in.
- Warm-up and repeat counts come from a time budget, from an estimate of one call.
- A long kernel's time depends on the GPU's state: on the H200 (700 W cap) an 8192^3 fp16
  matmul draws the SM clock from 1980 to ~1300 MHz within 0.1 s, and runs in 1.97-2.01 ms
  when the GPU was idle for a few seconds before, 2.06-2.11 ms after seconds of load,
  whichever timer is used (benchmarks/probe_long_timing.py). kx times from the state the
  file leaves; `cool_down` puts a reference timer in the same state.
- Each timed call is bracketed by CUDA events; between calls the L2 is flushed by zeroing
  the buffer do_bench zeroes (switchable), outside the events, so every call starts cold
  as in a real pipeline where other work evicts the cache.
- Before each start event the GPU is kept busy for ~100 us (`torch.cuda._sleep`), so the
  CPU has queued the start event and the call before the GPU reaches them: the events then
  time the kernel, not the Python launch path. Without it a call whose launch takes longer
  on the CPU than the flush takes on the GPU is timed with the launch latency in it: the
  cause of the H200's 11 / 24 / 11 us runs of one softmax (do_bench's 256 MB flush hides
  the same latency by taking longer). Calls of 0.1 ms or more get no lead: the queue
  stays ahead of them anyway, and the idle lead gave a power-capped H200 headroom that
  made a 2 ms matmul 4% faster than under do_bench (benchmarks/probe_long_timing.py).
- CUDA-graph mode captures one call and times its replays, which removes the CPU
  launch overhead (what a graph-launched model sees).
- Results are a frozen `Timing`: median, quartiles, spread, sample count; "faster" is
  decided with K2's compare (interquartile ranges must not overlap).

Needs torch with CUDA; import it only where a GPU may be."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kx_core.base.jsonable import Jsonable
from kx_core.bench.harness import percentile

FLUSH_MIN_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class Timing(Jsonable):
    median_ms: float
    q1_ms: float
    q3_ms: float
    min_ms: float
    max_ms: float
    n: int
    warmup: int
    first_call_ms: float | None
    flush_l2: bool
    cuda_graph: bool
    samples_ms: tuple[float, ...] = ()

    @property
    def iqr_ms(self) -> float:
        return self.q3_ms - self.q1_ms

    def summary(self) -> dict:
        """K2's summarize() shape, for harness.compare."""
        return {"median": self.median_ms, "q1": self.q1_ms, "q3": self.q3_ms, "iqr": self.iqr_ms}


_flush_buffer = None
_sleep_cycles_per_us: float | None = None
LEAD_US = 100.0  # how far the GPU is kept ahead of each timed call's launch
LEAD_BELOW_MS = 0.1  # only calls shorter than this get the lead


def _lead(torch) -> None:
    """Keep the GPU busy for LEAD_US (calibrated once: clock cycles per microsecond)."""
    global _sleep_cycles_per_us
    sleep = getattr(torch.cuda, "_sleep", None)
    if sleep is None:
        return
    if _sleep_cycles_per_us is None:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        cycles = 1_000_000
        sleep(cycles)  # the first call loads the kernel
        torch.cuda.synchronize()
        start.record()
        sleep(cycles)
        end.record()
        torch.cuda.synchronize()
        _sleep_cycles_per_us = cycles / max(start.elapsed_time(end) * 1e3, 1.0)
    sleep(int(_sleep_cycles_per_us * LEAD_US))


def _flush(torch) -> None:
    global _flush_buffer
    if _flush_buffer is None:
        _flush_buffer = _flush_buffer_like_do_bench(torch)
    _flush_buffer.zero_()


def _flush_buffer_like_do_bench(torch):
    """The buffer triton.testing.do_bench zeroes between calls (256 MB in Triton 3.x), so
    both time a call after the same work: on the H200 a 2 ms matmul ran 2-5% faster after
    a 2x-L2 flush than after do_bench's, the shorter gap between calls changing how the
    power cap clocks it. Twice the L2 where Triton has no such buffer."""
    try:
        from triton.runtime import driver

        return driver.active.get_empty_cache_for_benchmark()
    except (ImportError, AttributeError, RuntimeError):  # older Triton, other driver
        l2 = getattr(torch.cuda.get_device_properties(torch.cuda.current_device()), "L2_cache_size", 0)
        return torch.empty(max(2 * l2, FLUSH_MIN_BYTES) // 4, dtype=torch.int32, device="cuda")


def cool_down(timing: Timing) -> None:
    """Let the GPU cool after timing a long call (as long as the timing took, 0.5-3 s),
    so the next timer starts from the same power and clock state; a no-op for calls
    under LEAD_BELOW_MS, which do not move the clock."""
    import time

    if timing.median_ms >= LEAD_BELOW_MS:
        spent_s = (timing.n + timing.warmup) * timing.median_ms * 1e-3
        time.sleep(min(3.0, max(0.5, spent_s)))


def time_gpu(
    fn: Callable[[], object],
    budget_ms: float = 300.0,
    warmup_ms: float = 50.0,
    flush_l2: bool = True,
    cuda_graph: bool = False,
    min_reps: int = 10,
    max_reps: int = 2000,
    first_call: bool = True,
) -> Timing:
    """Time fn() on the current CUDA device."""
    import torch

    first = _events_ms(torch, fn, 1) if first_call else None
    call = _graphed(torch, fn) if cuda_graph else fn
    # estimate one call from 5, then size warm-up and repeats by the budget
    estimate = max(_events_ms(torch, call, 5) / 5, 1e-4)
    warmup = max(1, int(warmup_ms / estimate))
    reps = max(min_reps, min(max_reps, int(budget_ms / estimate)))
    for _ in range(warmup):
        call()
    # a call this long keeps the CPU's launches ahead of the GPU by itself; the lead's
    # idle 100 us would lend it power headroom (4% faster than do_bench on the H200)
    samples = _samples(torch, call, reps, flush_l2, lead=estimate < LEAD_BELOW_MS)
    return Timing(
        median_ms=percentile(samples, 50),
        q1_ms=percentile(samples, 25),
        q3_ms=percentile(samples, 75),
        min_ms=min(samples),
        max_ms=max(samples),
        n=len(samples),
        warmup=warmup,
        first_call_ms=first,
        flush_l2=flush_l2,
        cuda_graph=cuda_graph,
        samples_ms=tuple(samples),
    )


def _events_ms(torch: Any, call: Callable[[], object], times: int) -> float:
    """Milliseconds between CUDA events around `times` calls, from an idle GPU."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(times):
        call()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end)


def _graphed(torch: Any, fn: Callable[[], object]) -> Callable[[], object]:
    """fn captured in a CUDA graph; its replay."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        fn()  # warm the allocator on the side stream before capture
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph.replay


def _samples(torch: Any, call: Callable[[], object], reps: int, flush_l2: bool, lead: bool) -> list[float]:
    """One time per call, each between its own pair of events (L2 flushed and the lead
    queued before the start event, so neither is timed)."""
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    torch.cuda.synchronize()
    for i in range(reps):
        if flush_l2:
            _flush(torch)
        if lead:
            _lead(torch)
        starts[i].record()
        call()
        ends[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(starts, ends)]
