"""What a sweep is asked to do (kx_core.sweep.run): the file, kernel, shapes and space,
the target and the model's GPU, what to measure and on which workers."""

from __future__ import annotations

from dataclasses import dataclass, field

from kx_core.model.gpu import GPU
from kx_core.sweep.space import ConfigSpec


@dataclass(frozen=True)
class SweepRequest:
    file: str
    kernel: str
    shapes: tuple[dict[str, int], ...]
    space: tuple[ConfigSpec, ...] | None = None  # None: the kernel's own autotune configs
    entry: str | None = None
    target: str = "local"
    gpu: GPU | None = None  # the GPU the model places configs on; None: the target's
    measure: str = "top-k"  # 'top-k' | 'all' | 'none'
    top_k: int = 4
    gpus: int | None = None  # measuring workers (GPUs 0..n-1); None: every local GPU
    simulate: bool = False  # simulated workers (the model's figures): no GPU needed
    jobs: int | None = None  # configs compiled at once
    versus_autotune: bool = False
    timeout_s: float = 600.0
    env: dict[str, str] = field(default_factory=dict)  # extra environment of the workers
    # the compile side's interpreter (a managed Triton version's, `--triton`); None: kx's own.
    # The measuring workers run kx's own: a GPU times what its own Triton builds
    python: str | None = None
    overlap: bool = True  # measure each shape as soon as it is compiled
    # None: local processes; '': a local Ray instance; else a Ray cluster's address
    # (compiles as CPU tasks, measuring on GPU actors: kx_core.sweep.ray_pool)
    ray: str | None = None
    # each shape's wrapper call (kx_core.sweep.calls.WrapperCall as JSON; None: the entry
    # form), and why a shape has none; empty until the sweep planned them
    calls: tuple[dict | None, ...] = ()
    call_errors: tuple[str | None, ...] = ()

    def call_for(self, shape: dict) -> tuple[dict | None, str | None]:
        """The planned call of `shape` and why there is none (None, None: the entry form)."""
        if shape in self.shapes:
            i = self.shapes.index(shape)
            if i < len(self.calls):
                return self.calls[i], self.call_errors[i]
        return None, None
