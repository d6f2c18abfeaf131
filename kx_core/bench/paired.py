"""Two launches timed against each other on the local GPU, interleaved: the GPU side of
`kx compare`.

Each side runs in its own worker (`python -m kx_core.bench.paired`, with that side's
interpreter, so two Triton versions can be compared): the file runs for real as
`__main__`, and the first launch of every kernel and autotune config is kept as a call
(not timed while the file runs). Then the parent asks for rounds in turn, A B B A A B ...,
each a burst of calls timed between CUDA events with the L2 flushed before each
(kx_core.bench.gpu, as `kx bench` times). The verdict is drawn from the per-round ratio
of medians (B / A): its median, and a 95% bootstrap interval over the rounds (a seeded
resample, so the same rounds give the same interval). Alternating the order each round
and pairing rounds cancels the slow drift of clocks and heat that separate runs suffer.

Verdict: 'faster' / 'slower' when the interval excludes 1 and the ratio is more than the
noise floor from 1, else 'no significant difference'. The floor is what two workers timing
the *same* launch were seen to disagree by on the H200 (the interval, drawn within one
pair of workers, cannot see it: each process has its own buffers and flush, and a short
kernel's time depends on them): at most 0.9% over 10 pairs for a 220 us matmul, up to
3.7% over 16 pairs for a 9 us one. So 1% for calls of 0.1 ms and more, 4% below
(noise_floor).

The protocol is JSON lines over a pipe pair the parent passes (the file's own prints go to
the worker's output file, not into the protocol):
  worker -> {"ready": [names...], "device": ..., "triton": ...} | {"error": ...}
  parent -> {"round": NAME, "reps": N, "warmup": W}   worker -> {"samples_ms": [...]} (W untimed first)
  parent -> {"do_bench": NAME}           worker -> {"ms": median of triton.testing.do_bench}
  parent -> {"quit": true}
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass

from kx_core.base import workers
from kx_core.base.jsonable import Jsonable

NOISE_FLOOR = 0.01  # calls of SHORT_MS and more: a ratio within 1% of 1 is no difference
SHORT_NOISE_FLOOR = 0.04  # shorter calls (launch-scale: the process's own state shows)
SHORT_MS = 0.1


def noise_floor(median_ms: float) -> float:
    """The smallest ratio change called a difference, for calls this long."""
    return NOISE_FLOOR if median_ms >= SHORT_MS else SHORT_NOISE_FLOOR


# Each round times a side for ROUND_MS after WARMUP_MS of untimed calls: as one
# triton.testing.do_bench call does (25 ms warm-up, 100 ms timed). Measured on the H200
# (benchmarks/bench_compare_verdict.py --runs 10, a 4096^3 matmul's two tiles): with 25 ms
# and no warm-up, kx said 1.96-1.99x where do_bench said 1.74-1.77x, every run (the big
# tile timed 227 us in a short burst after the other side's round, 250 us once the power
# cap has settled the clocks, as in do_bench); with 100 ms and 25 ms, do_bench's ratio lay
# in kx's interval in 10 of 10 runs, and the same kernel twice was no difference in 10 of
# 10. The environment variables are for such measurements.
ROUND_MS = float(os.environ.get("KX_PAIRED_ROUND_MS", "100"))
WARMUP_MS = float(os.environ.get("KX_PAIRED_WARMUP_MS", "25"))
BOOTSTRAP = 2000


@dataclass(frozen=True)
class PairedTiming(Jsonable):
    """A against B: medians of each side's round medians, the ratio B / A with its 95%
    interval, and the verdict about B."""

    name_a: str
    name_b: str
    device: str
    rounds: int
    reps_a: int
    reps_b: int
    median_a_ms: float
    median_b_ms: float
    ratio: float  # B / A, the median of the per-round ratios
    low: float
    high: float
    verdict: str  # 'faster' | 'slower' | 'no significant difference' (about B)
    floor: float = NOISE_FLOOR  # the noise floor the verdict used
    round_ms_a: tuple[float, ...] = ()
    round_ms_b: tuple[float, ...] = ()
    # the oracle, when asked for: triton.testing.do_bench's medians (ms) of each side,
    # run on both in turn in the same workers, on a CUDA graph of the call (do_bench's
    # own start event is recorded before the CPU has launched the kernel: the launch
    # latency of the plain call, 60 us and more through a Python launcher, would be timed)
    do_bench_a_ms: tuple[float, ...] = ()
    do_bench_b_ms: tuple[float, ...] = ()
    do_bench_plain_a_ms: tuple[float, ...] = ()  # the same on the plain call, for the record
    do_bench_plain_b_ms: tuple[float, ...] = ()

    @property
    def do_bench_ratios(self) -> tuple[float, ...]:
        return tuple(b / a for a, b in zip(self.do_bench_a_ms, self.do_bench_b_ms))

    @property
    def verdict_text(self) -> str:
        pct = (self.ratio - 1) * 100
        interval = (
            f"B/A {self.ratio:.3f} [{self.low:.3f}, {self.high:.3f}] 95%, {self.rounds} interleaved rounds"
        )
        if self.verdict == "no significant difference":
            return (
                f"GPU ({self.device}): no significant difference ({interval}; "
                f"differences under {self.floor:.0%} are noise between two workers for calls this long)"
            )
        return (
            f"GPU ({self.device}): B is {self.verdict} by {abs(pct):.1f}% "
            f"({self.median_a_ms * 1e3:.2f} -> {self.median_b_ms * 1e3:.2f} us; {interval})"
        )


def _median(xs) -> float:
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def verdict_of(
    rounds_a: list[float], rounds_b: list[float], seed: int = 0, floor: float | None = None
) -> tuple[float, float, float, str]:
    """(ratio, low, high, verdict) from paired round medians: B / A per round, its
    median and the 2.5th / 97.5th percentiles of the median over bootstrap resamples."""
    import numpy as np

    ratios = np.array([b / a for a, b in zip(rounds_a, rounds_b)])
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(ratios), size=(BOOTSTRAP, len(ratios)))
    medians = np.median(ratios[picks], axis=1)
    ratio = float(np.median(ratios))
    low, high = (float(x) for x in np.percentile(medians, [2.5, 97.5]))
    if floor is None:
        floor = noise_floor(min(_median(rounds_a), _median(rounds_b)))
    if high < 1 and ratio < 1 - floor:
        verdict = "faster"
    elif low > 1 and ratio > 1 + floor:
        verdict = "slower"
    else:
        verdict = "no significant difference"
    return ratio, low, high, verdict


# ---------------------------------------------------------------- the parent


class _Worker:
    def __init__(self, file: str, python: str | None, folder: str, tag: str) -> None:
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        self.output = os.path.join(folder, f"{tag}.out")
        self.proc = workers.start(
            "kx_core.bench.paired",
            [os.path.abspath(file), str(to_child_r), str(from_child_w)],
            output=self.output,
            python=python,
            pass_fds=(to_child_r, from_child_w),
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._reader = os.fdopen(self._from_child, "r")
        self._writer = os.fdopen(self._to_child, "w")

    def ask(self, message: dict) -> dict:
        self._writer.write(json.dumps(message) + "\n")
        self._writer.flush()
        return self.read()

    def read(self) -> dict:
        line = self._reader.readline()
        if not line:
            tail = workers.read_tail(self.output, 4000).strip().splitlines()
            raise PairedError("the timing worker ended: " + (tail[-1] if tail else "no output"))
        return json.loads(line)

    def close(self) -> None:
        try:
            self._writer.write(json.dumps({"quit": True}) + "\n")
            self._writer.flush()
        except OSError:
            pass
        workers.stop(self.proc)
        for f in (self._reader, self._writer):
            try:
                f.close()
            except OSError:
                pass


class PairedError(RuntimeError):
    """The pair could not be timed (no GPU, a worker failed, a launch not found)."""


def _choose(names: list[str], wanted: str) -> str:
    if wanted in names:
        return wanted
    near = [n for n in names if wanted in n]
    if len(near) == 1:
        return near[0]
    raise PairedError(f"{wanted!r} was not launched by the file (launched: {', '.join(names) or 'nothing'})")


def time_pair(
    file_a: str,
    name_a: str,
    file_b: str,
    name_b: str,
    *,
    python_a: str | None = None,
    python_b: str | None = None,
    rounds: int = 20,
    round_ms: float = ROUND_MS,
    warmup_ms: float = WARMUP_MS,
    seed: int = 0,
    do_bench_runs: int = 0,
) -> PairedTiming:
    """Time launch `name_a` of file A against `name_b` of file B (display names, as the
    compile names them: 'matmul_kernel[BLOCK_M=128,...]'), interleaved."""
    folder = tempfile.mkdtemp(prefix="kx-paired-")
    sides = []
    try:
        for tag, file, python in (("a", file_a, python_a), ("b", file_b, python_b)):
            sides.append(_Worker(file, python, folder, tag))
        ready = [w.read() for w in sides]
        for r in ready:
            if "error" in r:
                raise PairedError(r["error"])
        names = (_choose(ready[0]["ready"], name_a), _choose(ready[1]["ready"], name_b))
        # size each side's burst from a first estimate: ROUND_MS of GPU time
        reps, warm = [], []
        for w, name in zip(sides, names):
            est = _median(w.ask({"round": name, "reps": 5})["samples_ms"])
            reps.append(max(5, min(1000, int(round_ms / max(est, 1e-4)))))
            warm.append(max(0, min(1000, int(warmup_ms / max(est, 1e-4)))))
            w.ask({"round": name, "reps": reps[-1]})  # warm-up at the round's size
        per_round: tuple[list[float], list[float]] = ([], [])
        for r in range(rounds):
            order = (0, 1) if r % 2 == 0 else (1, 0)
            for side in order:
                samples = sides[side].ask({"round": names[side], "reps": reps[side], "warmup": warm[side]})[
                    "samples_ms"
                ]
                per_round[side].append(_median(samples))
        ratio, low, high, verdict = verdict_of(per_round[0], per_round[1], seed)
        oracle: dict[tuple[int, bool], list[float]] = {(s, g): [] for s in (0, 1) for g in (True, False)}
        for r in range(do_bench_runs):
            order = (0, 1) if r % 2 == 0 else (1, 0)
            for graph in (True, False):
                for side in order:
                    oracle[side, graph].append(
                        sides[side].ask({"do_bench": names[side], "graph": graph})["ms"]
                    )
        return PairedTiming(
            names[0],
            names[1],
            ready[0].get("device", "")
            if ready[0].get("device") == ready[1].get("device")
            else f"{ready[0].get('device')} / {ready[1].get('device')}",
            rounds,
            reps[0],
            reps[1],
            _median(per_round[0]),
            _median(per_round[1]),
            ratio,
            low,
            high,
            verdict,
            noise_floor(min(_median(per_round[0]), _median(per_round[1]))),
            tuple(per_round[0]),
            tuple(per_round[1]),
            tuple(oracle[0, True]),
            tuple(oracle[1, True]),
            tuple(oracle[0, False]),
            tuple(oracle[1, False]),
        )
    finally:
        for w in sides:
            w.close()


# ---------------------------------------------------------------- the worker


def _collecting_hooks():
    """kx bench's launch hooks with a timer that keeps each launch's call instead of
    timing it (every autotune config's too)."""
    from kx_core.bench.gpu import Timing
    from kx_core.bench.run import _BenchHooks, _Timer

    class _Recorder(list):
        """The timer's list of launches: each one appended takes the call kept before it."""

        def __init__(self, keeper) -> None:
            super().__init__()
            self.keeper = keeper

        def append(self, t) -> None:
            self.keeper.calls[t.display_name] = self.keeper.pending
            super().append(t)

    class _Keeper(_Timer):
        def __init__(self) -> None:
            super().__init__(0.0, True, False, None, True)
            self.calls: dict[str, object] = {}
            self.pending = None
            self.timings = _Recorder(self)

        def time(self, call, args, kwargs, budget_ms=None, first_ms=None) -> Timing:
            self.pending = call
            return Timing(0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, None, True, False)

    keeper = _Keeper()
    hooks = _BenchHooks(keeper)
    return keeper, hooks


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    path, cmd_fd, reply_fd = argv[0], int(argv[1]), int(argv[2])
    commands, replies = os.fdopen(cmd_fd, "r"), os.fdopen(reply_fd, "w")

    def say(message: dict) -> None:
        replies.write(json.dumps(message) + "\n")
        replies.flush()

    import faulthandler

    faulthandler.enable(file=sys.stderr, all_threads=True)
    try:
        import torch
        import triton

        if not torch.cuda.is_available():
            say({"error": "no CUDA GPU here: nothing can be timed"})
            return 1
        from kx_core.bench.gpu import LEAD_BELOW_MS, _samples
        from kx_core.bench.run import run_file
        from kx_core.compile.capturing import launch_hooks

        keeper, hooks = _collecting_hooks()
        launch_hooks.install(hooks.on_jit_run, hooks.on_autotune_run)
        diagnostics = run_file(path)
        torch.cuda.synchronize()
        fatal = [d for d in diagnostics if d.fatal]
        if fatal and not keeper.calls:
            say({"error": f"{path}: {fatal[0]}"})
            return 1
        say(
            {
                "ready": list(keeper.calls),
                "device": torch.cuda.get_device_name(),
                "triton": triton.__version__,
            }
        )
        graphs: dict[str, object] = {}  # do_bench's calls as CUDA graph replays
        use_lead = os.environ.get("KX_PAIRED_LEAD", "1") != "0"
        lead: dict[str, bool] = {}  # a short call gets kx bench's lead (kx_core.bench.gpu), decided once
        for line in commands:
            message = json.loads(line)
            if message.get("quit"):
                break
            if "do_bench" in message:
                from triton.testing import do_bench

                from kx_core.bench.gpu import _graphed

                fn = keeper.calls[message["do_bench"]]
                if message.get("graph"):
                    graphs.setdefault(message["do_bench"], _graphed(torch, fn))
                    fn = graphs[message["do_bench"]]
                rep = int(os.environ.get("KX_PAIRED_DO_BENCH_REP", "100"))  # do_bench's default
                ms = do_bench(fn, warmup=25, rep=rep, return_mode="median")
                say({"ms": float(ms)})
                continue
            name = message["round"]
            call = keeper.calls[name]
            if message.get("warmup"):  # untimed, as do_bench's warm-up before its timed calls
                _samples(torch, call, int(message["warmup"]), flush_l2=True, lead=lead.get(name, False))
            samples = _samples(torch, call, int(message["reps"]), flush_l2=True, lead=lead.get(name, False))
            lead.setdefault(name, use_lead and _median(samples) < LEAD_BELOW_MS)
            say({"samples_ms": samples})
        return 0
    except Exception as e:  # noqa: BLE001 - the parent reads one line, not a traceback
        say({"error": f"{type(e).__name__}: {e}"})
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
