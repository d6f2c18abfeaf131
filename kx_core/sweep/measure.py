"""The measuring worker of a sweep: `python -m kx_core.sweep.measure CMD_FD REPLY_FD`, one
per GPU (CUDA_VISIBLE_DEVICES pins it), JSON lines over a pipe pair:

  worker -> {"ready": {"device": ..., "key": ..., "simulated": bool}} | {"error": ...}
  parent -> {"job": {...}}   worker -> {"result": {...}} | {"error": ...}
  parent -> {"quit": true}

A job is one shape: the file is imported afresh, the kernel given the job's configs, and
the entry called with the shape. Its first autotuned launch of the kernel is kept instead
of autotuned by Triton: every config compiled at once on threads, then timed in
interleaved rounds (config order reversed every other round, so the slow drift of clocks
and heat falls on every config alike), each round a burst after an untimed warm-up, the
L2 flushed before each call; a config whose round medians spread more than SPREAD is
timed for as many rounds again. A job with "triton_autotune" instead times the plain
call: Triton's own autotuner compiling and benchmarking the same configs (the worker
is then started with an empty Triton cache, so compiles count).

KX_SWEEP_SIMULATE=1 starts a worker without a GPU that answers every job with the
model's figures the job carries (the dispatch path, tested on a machine without one).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time

ROUNDS = int(os.environ.get("KX_SWEEP_ROUNDS", "5"))
ROUND_MS = float(os.environ.get("KX_SWEEP_ROUND_MS", "25"))
WARMUP_MS = float(os.environ.get("KX_SWEEP_WARMUP_MS", "10"))
SPREAD = 0.05  # max/min of a config's round medians above 1.05: timed again


def gpu_key(index: int = 0) -> tuple[str, str]:
    """(device name, key): the key names the model, the SM clock limit and the UUID, so
    results of different GPUs (or one GPU at other clocks) are never ranked together."""
    import torch

    props = torch.cuda.get_device_properties(index)
    clock = ""
    try:
        import subprocess

        visible = os.environ.get("CUDA_VISIBLE_DEVICES", str(index)).split(",")[index]
        out = subprocess.run(
            ["nvidia-smi", "-i", visible, "--query-gpu=clocks.max.sm,clocks.sm", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=10,
        ).stdout.strip()  # fmt: skip
        # Example: "1980 MHz, 1980 MHz"
        clock = out.split(",")[0].strip() if out else ""
    except (OSError, IndexError, subprocess.SubprocessError):
        pass
    uuid = str(getattr(props, "uuid", "") or "")
    return props.name, f"{props.name} | max SM clock {clock or '?'} | {uuid or 'device ' + str(index)}"


class _Keep:
    """Launch hooks that keep the first autotuned launch of one kernel (its arguments)
    and run it once with the first config, so the entry completes without Triton's own
    autotuning."""

    def __init__(self) -> None:
        self.kernel: str | None = None  # None: every launch passes through
        self.kept = None

    def on_jit_run(self, runs, fn, *args, grid, warmup, **kwargs):
        return runs.jit(fn, *args, grid=grid, warmup=warmup, **kwargs)

    def on_autotune_run(self, runs, tuner, *args, **kwargs):
        from kx_core.compile.artifacts.kernel_record import jit_name
        from kx_core.compile.capturing.jit_objects import base_jit

        base = base_jit(tuner)
        if jit_name(base) != self.kernel or self.kept is not None:
            return runs.autotune(tuner, *args, **kwargs)
        self.kept = (runs, tuner, base, args, kwargs)
        rest = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}
        return runs.jit(
            base, *args, grid=kwargs.get("grid"), warmup=False, **{**rest, **tuner.configs[0].all_kwargs()}
        )


def _median(xs):
    return statistics.median(xs)


def time_calls(calls: dict, rounds: int = ROUNDS, round_ms: float = ROUND_MS, warmup_ms: float = WARMUP_MS):
    """label -> (median of round medians in ms, round medians), interleaved as the
    module docstring says."""
    import torch

    from kx_core.bench.gpu import _events_ms, _samples

    estimate = {name: max(_events_ms(torch, fn, 3) / 3, 1e-4) for name, fn in calls.items()}
    per_round: dict[str, list[float]] = {name: [] for name in calls}

    def one_round(names):
        for name in names:
            fn, est = calls[name], estimate[name]
            _samples(torch, fn, max(1, int(warmup_ms / est)), flush_l2=True, lead=False)
            s = _samples(torch, fn, max(3, min(2000, int(round_ms / est))), flush_l2=True, lead=False)
            per_round[name].append(_median(s))

    order = list(calls)
    for r in range(rounds):
        one_round(order if r % 2 == 0 else order[::-1])
    again = [n for n, xs in per_round.items() if max(xs) / min(xs) > 1 + SPREAD]
    for r in range(rounds if again else 0):
        one_round(again if r % 2 == 0 else again[::-1])
    return {n: (_median(xs), xs) for n, xs in per_round.items()}, again


_KEEP = _Keep()

# content hash -> Triton key of every binary this worker has received: each is fetched
# and installed once, however many jobs (shapes) share it
_RECEIVED: dict[str, str] = {}


def receive(shipped: list[dict]) -> tuple[set[str], list[str]]:
    """Put the compile side's binaries into this process's Triton cache (kx_core.sweep.
    binaries): (the Triton keys now served from it, what could not be received). A binary
    arrives as its files (`files`, from Ray's object store) or its folder (`folder`, on
    this machine)."""
    from pathlib import Path

    from kx_core.sweep.binaries import install, read_group

    keys, problems = set(), []
    for b in shipped:
        if b["digest"] in _RECEIVED:
            keys.add(b["key"])
            continue
        files = b.get("files")
        if files is None and b.get("folder"):
            files = read_group(Path(b["folder"]), b["name"])
        if files is None:
            problems.append(f"{b['label']}: its binary was gone from the compile side's cache")
            continue
        status = install(b["key"], b["name"], files, b["digest"])
        if status == "damaged":
            problems.append(f"{b['label']}: its binary arrived damaged (content hash differs): compiled here")
            continue
        _RECEIVED[b["digest"]] = b["key"]
        keys.add(b["key"])
    return keys, problems


def run_job(job: dict) -> dict:
    import torch

    from kx_core.bench.run import compile_configs
    from kx_core.compile.artifacts.kernel_record import config_of
    from kx_core.sweep.driver import caller, load, set_configs
    from kx_core.sweep.space import ConfigSpec

    specs = [ConfigSpec(**s) for s in job["configs"]]
    if job.get("fresh_cache"):  # compiles count: nothing of an earlier job is reused
        import tempfile

        os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="kx-sweep-cache-")
    module = load(job["file"])
    tuner = set_configs(module, job["kernel"], specs)
    entry = caller(module, job["shape"], job.get("entry"), job.get("call"))
    if job.get("triton_autotune"):  # the reference: Triton's autotuner as the user runs it
        torch.cuda.synchronize()
        start = time.perf_counter()
        entry()
        torch.cuda.synchronize()
        wall = time.perf_counter() - start
        best = tuner.best_config
        label = config_of(best, tuner.configs.index(best)).label if best in tuner.configs else None
        return {"wall_s": wall, "triton_pick": label}
    from kx_core.sweep.binaries import Compiles

    keep = _KEEP
    keep.kernel, keep.kept = job["kernel"], None
    compiles = Compiles(job["kernel"])
    try:
        start = time.perf_counter()
        received, problems = receive(job.get("binaries", []))
        compiles.start()
        entry()
        torch.cuda.synchronize()
        if keep.kept is None:
            raise RuntimeError(f"the entry did not launch {job['kernel']}")
        runs, tuner, base, args, kwargs = keep.kept
        configs = list(tuner.configs)
        if len(configs) > 1:
            compile_configs(base, args, kwargs, configs[1:])
        compile_s = time.perf_counter() - start
        compiles.stop()
        grid = kwargs.get("grid")
        rest = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}
        calls, failed = {}, {}
        for i, cfg in enumerate(configs):
            label = config_of(cfg, i).label
            meta = {**rest, **cfg.all_kwargs()}

            def call(meta=meta):
                runs.jit(base, *args, grid=grid, warmup=False, **meta)

            try:
                call()  # a config the GPU refuses (out of resources) fails here, not in timing
                torch.cuda.synchronize()
                calls[label] = call
            except Exception as e:  # noqa: BLE001 - one config's failure is its result
                failed[label] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        timed, again = time_calls(calls)
        return {
            "times_us": {n: ms * 1e3 for n, (ms, _) in timed.items()},
            "rounds_us": {n: [x * 1e3 for x in xs] for n, (_, xs) in timed.items()},
            "remeasured": again,
            "failed": failed,
            "compile_s": compile_s,
            "wall_s": time.perf_counter() - start,
            # the job's configs served by what the compile side built, and built here
            "shipped": len(compiles.hits & received),
            "compiled_again": len(compiles.compiled),
            "shipping": problems,
        }
    finally:
        compiles.stop()
        keep.kernel, keep.kept = None, None
        torch.cuda.empty_cache()


def simulated(job: dict) -> dict:
    """The model's figures as the measurement (no GPU): what the dispatch path needs."""
    # a simulated job's duration (KX_SWEEP_SIMULATE_S): long enough that every worker of
    # a test's pool takes jobs, as on real GPUs
    time.sleep(float(os.environ.get("KX_SWEEP_SIMULATE_S", "0")))
    times = {s["label"]: s["predicted_us"] for s in job.get("figures", [])}
    # the binaries are received as on a GPU, and counted as shipped where Triton's own
    # loader reads back the binary the compile side built (nothing launches them here)
    from kx_core.sweep.binaries import served

    received, problems = receive(job.get("binaries", []))
    shipped = sum(1 for b in job.get("binaries", []) if b["key"] in received and served(b["key"], b["name"]))
    return {"times_us": times, "rounds_us": {n: [t] for n, t in times.items()}, "remeasured": [], "failed": {},
            "compile_s": 0.0, "wall_s": 0.0, "shipped": shipped, "compiled_again": 0,
            "shipping": problems}  # fmt: skip


def simulated_cache() -> None:
    """A simulated worker's Triton cache: a folder of its own, gone when it ends (the
    binaries it receives are not the user's cache's business)."""
    import atexit
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="kx-sweep-simulated-cache-")
    os.environ["TRITON_CACHE_DIR"] = folder
    atexit.register(shutil.rmtree, folder, True)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    commands, replies = os.fdopen(int(argv[0]), "r"), os.fdopen(int(argv[1]), "w")

    def say(message: dict) -> None:
        replies.write(json.dumps(message) + "\n")
        replies.flush()

    import faulthandler

    faulthandler.enable(file=sys.stderr, all_threads=True)
    simulate = os.environ.get("KX_SWEEP_SIMULATE") == "1"
    if simulate:
        simulated_cache()
    try:
        if simulate:
            say(
                {
                    "ready": {
                        "device": "simulated CPU worker",
                        "key": f"simulated-{os.getpid()}",
                        "simulated": True,
                    }
                }
            )
        else:
            import torch

            if not torch.cuda.is_available():
                say({"error": "no CUDA GPU here: nothing can be measured"})
                return 1
            from kx_core.compile.capturing import launch_hooks

            launch_hooks.install(_KEEP.on_jit_run, _KEEP.on_autotune_run)  # once: install wraps what is there
            name, key = gpu_key()
            say({"ready": {"device": name, "key": key, "simulated": False}})
    except Exception as e:  # noqa: BLE001 - the parent reads one line, not a traceback
        say({"error": f"{type(e).__name__}: {e}"})
        return 1
    for line in commands:
        message = json.loads(line)
        if message.get("quit"):
            break
        job = message["job"]
        try:
            answer = {"result": simulated(job) if simulate else run_job(job)}
        except Exception as e:  # noqa: BLE001 - a job's failure is its answer; the worker goes on
            answer = {"error": f"{type(e).__name__}: {e}"}
        # a kernel that faulted (an illegal address) leaves the process's CUDA context
        # unusable: every later call fails, so the next shapes would fail for nothing.
        # Say so and end; the parent starts a fresh worker (kx_core.sweep.dispatch)
        if context_lost(job, simulate):
            say(lost_answer(answer))
            return 3
        say(answer)
    return 0


LOST = " (the GPU's context was lost: the next shapes go to a fresh measuring worker)"


def context_lost(job: dict, simulate: bool) -> bool:
    """Whether this process's CUDA context is unusable after the job: a fault is sticky
    (every later call raises it again), so a synchronize that raises says so. A simulated
    worker loses it where the job asks (the dispatch path's test)."""
    if simulate:
        return bool(job.get("simulate_lost_context"))
    import torch

    try:
        torch.cuda.synchronize()
        return False
    except Exception:  # noqa: BLE001 - any error here is the lost context's
        return True


def lost_answer(answer: dict) -> dict:
    """A job's answer once the context is lost: an error naming the fault (the job's own
    error, else its configs' first failure), flagged for the parent to start a fresh worker."""
    failed = (answer.get("result") or {}).get("failed") or {}
    first = next(iter(failed.items()), None)
    why = answer.get("error") or (f"{first[0]}: {first[1]}" if first else "the GPU faulted")
    return {"error": why + LOST, "lost_context": True}


if __name__ == "__main__":
    raise SystemExit(main())
