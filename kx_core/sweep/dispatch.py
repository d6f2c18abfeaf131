"""The measuring workers of a sweep and the queue they share: one worker per GPU, each
pinned to its device (CUDA_VISIBLE_DEVICES), each taking the next job when it is free
(not dealt round-robin: a slow shape does not hold the others back). Every result carries
the key of the GPU that measured it (kx_core.sweep.measure.gpu_key), so a ranking is
never drawn from two GPUs. With `simulate`, the workers are CPU processes answering with
the model's figures: the same path, where there is no GPU."""

from __future__ import annotations

import json
import os
import queue
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass

from kx_core.base import workers
from kx_core.sweep.errors import DispatchError  # noqa: F401 - raised here, caught by callers


@dataclass(frozen=True)
class Done:
    job_id: int
    worker: int  # index of the worker (its GPU, CUDA_VISIBLE_DEVICES)
    device: str
    key: str
    simulated: bool
    result: dict | None
    error: str | None


def device_of(index: int) -> str:
    """The GPU worker `index` is pinned to: KX_SWEEP_DEVICES (`kx sweep --devices`, e.g.
    "0,0": two workers on GPU 0, the N-GPU dispatch path on a machine of one GPU, their
    timings then sharing it) or device `index`."""
    devices = [d.strip() for d in os.environ.get("KX_SWEEP_DEVICES", "").split(",") if d.strip()]
    return devices[index % len(devices)] if devices else str(index)


class _Worker:
    """One `python -m kx_core.sweep.measure` process over a pipe pair."""

    def __init__(
        self, index: int, folder: str, simulate: bool, env_extra: dict[str, str] | None = None
    ) -> None:
        env = dict(os.environ)
        if not simulate:
            env["CUDA_VISIBLE_DEVICES"] = device_of(index)
        env["KX_SWEEP_SIMULATE"] = "1" if simulate else "0"
        env.update(env_extra or {})
        to_child_r, to_child = os.pipe()
        from_child, from_child_w = os.pipe()
        self.index = index
        self.output = os.path.join(folder, f"measure-{index}-{id(self)}.out")
        self.proc = workers.start(
            "kx_core.sweep.measure", [str(to_child_r), str(from_child_w)],
            output=self.output, env=env, pass_fds=(to_child_r, from_child_w),
        )  # fmt: skip
        os.close(to_child_r)
        os.close(from_child_w)
        self._reader = os.fdopen(from_child, "r")
        self._writer = os.fdopen(to_child, "w")
        hello = self.read()
        if "error" in hello:
            self.close()
            raise DispatchError(f"measuring worker {index}: {hello['error']}")
        ready = hello["ready"]
        self.device, self.key, self.simulated = ready["device"], ready["key"], ready["simulated"]

    def read(self) -> dict:
        line = self._reader.readline()
        if not line:
            tail = workers.read_tail(self.output, 4000).strip().splitlines()
            return {"error": "the measuring worker ended: " + (tail[-1] if tail else "no output")}
        return json.loads(line)

    def ask(self, job: dict) -> dict:
        try:
            self._writer.write(json.dumps({"job": job}) + "\n")
            self._writer.flush()
        except OSError as e:
            return {"error": f"the measuring worker is gone: {e}"}
        return self.read()

    def close(self) -> None:
        try:
            self._writer.write(json.dumps({"quit": True}) + "\n")
            self._writer.flush()
        except (OSError, ValueError):
            pass
        workers.stop(self.proc, grace_s=2.0)
        for f in (self._reader, self._writer):
            try:
                f.close()
            except OSError:
                pass


class _Gone:
    """A measuring worker that could not be started again: its jobs are answered with why."""

    def __init__(self, w: _Worker, why: str) -> None:
        self.index, self.device, self.key, self.simulated, self.why = (
            w.index,
            w.device,
            w.key,
            w.simulated,
            why,
        )

    def ask(self, job: dict) -> dict:
        return {"error": f"no measuring worker on this device: {self.why}"}

    def close(self) -> None:
        pass


class Pool:
    """N measuring workers (devices 0..N-1, or N simulated ones) and their job queue:
    `start`, `submit` as jobs come, `join`; or `run(jobs, on_done)` for a list. Setting
    `stop` ends it after the jobs in hand."""

    def __init__(
        self, n: int, simulate: bool = False, env_extra: dict[str, str] | None = None, ray: str | None = None
    ) -> None:
        """`ray`: None for local processes; '' for a local Ray instance, or a cluster's
        address: the workers are then Ray actors (kx_core.sweep.ray_pool)."""
        self._folder = tempfile.TemporaryDirectory(prefix="kx-sweep-")
        self._simulate, self._env_extra = simulate, env_extra
        self.workers: list = []
        self.stop = threading.Event()
        try:
            if ray is not None:
                from kx_core.sweep.ray_pool import ray_workers

                self.workers = ray_workers(n, simulate, env_extra or {}, ray)
            else:
                for i in range(n):
                    self.workers.append(_Worker(i, self._folder.name, simulate, env_extra))
        except DispatchError:
            self.close()
            raise

    def start(self, on_done: Callable[[Done], None]) -> None:
        """Serve jobs as they are submitted (a sweep submits a shape as soon as it is
        compiled, so measuring overlaps compiling); `on_done` is called from the worker
        threads, one Done at a time."""
        self._todo: queue.Queue = queue.Queue()
        lock = threading.Lock()

        def serve(w) -> None:
            while True:
                item = self._todo.get()
                if item is None or self.stop.is_set():
                    return
                i, job = item
                answer = w.ask(job)
                done = Done(
                    i, w.index, w.device, w.key, w.simulated, answer.get("result"), answer.get("error")
                )
                with lock:
                    on_done(done)
                if answer.get("lost_context"):
                    w = self._restart(w)

        self._threads = [threading.Thread(target=serve, args=(w,), daemon=True) for w in self.workers]
        for t in self._threads:
            t.start()

    def _restart(self, w):
        """A fresh worker on the same device (a local process, or a Ray actor: its own
        restart) for one whose CUDA context a fault lost; where none starts, a stand-in
        that answers every later job with why."""
        try:
            if isinstance(w, _Worker):
                w.close()
                fresh = _Worker(w.index, self._folder.name, self._simulate, self._env_extra)
            else:
                fresh = w.restart()
        except DispatchError as e:
            fresh = _Gone(w, str(e))
        self.workers = [fresh if x is w else x for x in self.workers]
        return fresh

    def submit(self, job_id: int, job: dict) -> None:
        self._todo.put((job_id, job))

    def join(self) -> None:
        """Wait for every submitted job (or the stop flag, after the jobs in hand)."""
        for _ in self._threads:
            self._todo.put(None)
        for t in self._threads:
            t.join()

    def run(self, jobs: list[dict], on_done: Callable[[Done], None]) -> None:
        """Every job, then return."""
        self.start(on_done)
        for i, job in enumerate(jobs):
            self.submit(i, job)
        self.join()

    def close(self) -> None:
        for w in self.workers:
            w.close()
        self.workers = []
        self._folder.cleanup()

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def local_gpu_count() -> int:
    """NVIDIA GPUs here, by nvidia-smi (no torch in the parent)."""
    from kx_core.base.tools import ToolFailed, find_tool, run_tool

    smi = find_tool("nvidia-smi")
    if smi is None:
        return 0
    try:
        out = run_tool(smi, ["-L"], 10)
    except ToolFailed:
        return 0
    # Example line: "GPU 0: NVIDIA H200 (UUID: GPU-8c0e...)"
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))
