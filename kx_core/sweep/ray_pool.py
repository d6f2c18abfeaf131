"""`kx sweep --ray [ADDRESS]`: the same sweep on a Ray cluster (the optional extra,
`pip install 'kx[ray]'`). Compile jobs are CPU tasks (each shape compiled where the
cluster has a free CPU; `compile_remote`), measuring jobs go to GPU actors, one per GPU
(Ray pins each to its device through CUDA_VISIBLE_DEVICES), each answering like a local
measuring worker (kx_core.sweep.measure), so the queue, the keys and the judging are the
local path's. Without an address a local Ray instance is started with no dashboard, asked
for loopback (127.0.0.1); Ray 2.60 registers the node under the machine's address anyway
(by design: ray-project/ray#26293), and guards it with its token authentication (on by
default). A cluster must be on a trusted network: Ray runs whatever its clients send.
An address is checked before Ray is asked (kx_core.sweep.ray_address): nothing answering
there is kx's message, not Ray's endless retries.

The file must be at the same path on every node (a shared file system): the tasks and
actors import it there. The binaries a compile task built travel to the actors through
Ray's object store, put once per content hash however many shapes share them, fetched by
an actor only when it has not received that hash before (kx_core.sweep.binaries: an
actor whose Triton's cache key differs from the compile node's compiles the config
itself, counted as compiled again).
"""

from __future__ import annotations

import os
import threading

from kx_core.sweep.errors import DispatchError


def _ray():
    try:
        import ray
    except ImportError:
        raise DispatchError("--ray needs Ray: pip install 'kx[ray]'") from None
    return ray


_INIT = threading.Lock()


def init(address: str) -> None:
    """Join the cluster at `address`, or start a local instance on loopback (''); once,
    whichever thread asks first (the compile tasks and the measuring actors both need it)."""
    with _INIT:
        _init(address)


def _init(address: str) -> None:
    ray = _ray()
    if ray.is_initialized():
        return
    common = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    # the workers find kx_core where this process does, whatever the cluster's nodes have
    env = {
        "env_vars": {
            "PYTHONPATH": os.pathsep.join(p for p in (_engine_root(), os.environ.get("PYTHONPATH")) if p)
        }
    }
    if address:
        from kx_core.sweep.ray_address import check

        check(address)  # Ray's client retries an address where nothing answers for ever
        ray.init(address=address, runtime_env=env, **common)
    else:
        ray.init(_node_ip_address="127.0.0.1", runtime_env=env, **common)


def _engine_root() -> str:
    import kx_core

    return os.path.dirname(os.path.dirname(os.path.abspath(kx_core.__file__)))


class MeasureActor:
    """One GPU's measuring worker inside a Ray actor (or a simulated one: no GPU)."""

    def __init__(self, simulate: bool, env: dict[str, str]) -> None:
        os.environ.update(env)
        self.simulate = simulate
        if simulate:
            from kx_core.sweep.measure import simulated_cache

            simulated_cache()
            self.device, self.key = "simulated Ray actor", f"ray-simulated-{os.getpid()}"
            return
        from kx_core.compile.capturing import launch_hooks
        from kx_core.sweep import measure

        launch_hooks.install(measure._KEEP.on_jit_run, measure._KEEP.on_autotune_run)
        self.device, self.key = measure.gpu_key()

    def info(self) -> tuple[str, str]:
        return self.device, self.key

    def run(self, job: dict) -> dict:
        from kx_core.sweep import measure

        try:
            job = _fetched(job)
            answer = {"result": measure.simulated(job) if self.simulate else measure.run_job(job)}
        except Exception as e:  # noqa: BLE001 - a job's failure is its answer; the actor goes on
            answer = {"error": f"{type(e).__name__}: {e}"}
        # a fault lost this process's CUDA context: the pool replaces the actor (restart)
        return measure.lost_answer(answer) if measure.context_lost(job, self.simulate) else answer


def _fetched(job: dict) -> dict:
    """The job with the files of each binary this actor has not received yet, fetched
    from the object store by their reference."""
    from kx_core.sweep.measure import _RECEIVED

    ray = _ray()
    shipped = []
    for b in job.get("binaries", []):
        b = dict(b)
        ref = b.pop("ref", None)
        if ref is not None and b["digest"] not in _RECEIVED:
            b["files"] = ray.get(ref)
        shipped.append(b)
    return {**job, "binaries": shipped}


class _RayWorker:
    """A MeasureActor as the pool's worker: ask(job) -> answer; restart() after a fault."""

    def __init__(self, index: int, actor, device: str, key: str, simulated: bool, start=None) -> None:
        self.index, self.actor, self.device, self.key, self.simulated = index, actor, device, key, simulated
        self._start = start  # () -> a new actor of the same kind

    def restart(self) -> _RayWorker:
        """A fresh actor for one whose CUDA context a fault lost (raises DispatchError)."""
        self.close()
        actor = self._start()
        try:
            device, key = _ray().get(actor.info.remote(), timeout=300)
        except Exception as e:  # noqa: BLE001 - an actor that cannot start is said
            raise DispatchError(
                f"a Ray measuring actor did not start again: {type(e).__name__}: {e}"
            ) from None
        return _RayWorker(self.index, actor, device, key, self.simulated, self._start)

    def ask(self, job: dict) -> dict:
        ray = _ray()
        try:
            return ray.get(self.actor.run.remote(job))
        except Exception as e:  # noqa: BLE001 - an actor that died answers with its error
            return {"error": f"the Ray actor failed: {type(e).__name__}: {e}"}

    def close(self) -> None:
        try:
            _ray().kill(self.actor)
        except Exception:  # noqa: BLE001 - already gone with its cluster
            pass


def ray_workers(n: int, simulate: bool, env: dict[str, str], address: str) -> list[_RayWorker]:
    ray = _ray()
    init(address)
    gpus = int(ray.cluster_resources().get("GPU", 0))
    if not simulate and gpus < n:
        raise DispatchError(f"the Ray cluster has {gpus} GPU(s), {n} measuring actor(s) asked for")
    actor_class = ray.remote(num_gpus=0 if simulate else 1, num_cpus=0 if simulate else 1)(MeasureActor)
    start = lambda: actor_class.remote(simulate, env)  # noqa: E731 - also a restart's
    actors = [start() for _ in range(n)]
    try:
        infos = ray.get([a.info.remote() for a in actors], timeout=300)
    except Exception as e:  # noqa: BLE001 - an actor that cannot start is the pool's failure
        raise DispatchError(f"a Ray measuring actor did not start: {type(e).__name__}: {e}") from None
    return [
        _RayWorker(i, a, dev, key, simulate, start) for i, (a, (dev, key)) in enumerate(zip(actors, infos))
    ]


def compile_remote(req, shapes: list[dict]):
    """Each shape's compile side as a Ray CPU task; yields (index, CaseResult) as they
    finish (in completion order, so a shape is measured as soon as it is compiled)."""
    ray = _ray()
    init(req.ray)
    task = ray.remote(num_cpus=1)(_compile_task)
    pending = {task.remote(req, shape): i for i, shape in enumerate(shapes)}
    stored: dict[str, object] = {}  # content hash -> its object reference: one put each
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        i = pending.pop(done[0])
        case, binaries, files = ray.get(done[0])
        shipped = {}
        for label, b in binaries.items():
            if b.digest not in stored:
                stored[b.digest] = ray.put(files[b.digest])
            shipped[label] = {**b.to_json(), "folder": "", "ref": stored[b.digest]}
        yield i, case, shipped


def _compile_task(req, shape):
    """One shape compiled on a node with a free CPU: its case, its binaries and their
    files by content hash (read from the node's Triton cache before the task ends)."""
    import tempfile
    from pathlib import Path

    from kx_core.sweep.binaries import read_group
    from kx_core.sweep.compile_side import compile_shape

    with tempfile.TemporaryDirectory(prefix="kx-sweep-ray-") as folder:
        case, binaries = compile_shape(req, shape, folder)
    files = {}
    for b in binaries.values():
        group = read_group(Path(b.folder), b.name)
        if group is not None:
            files[b.digest] = group
    return case, {label: b for label, b in binaries.items() if b.digest in files}, files
