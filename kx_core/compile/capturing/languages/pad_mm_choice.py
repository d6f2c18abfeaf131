"""Inductor's pad_mm decision under capture: whether a matmul whose sizes are not
aligned is padded (which changes the graph, so the kernels Inductor generates).

Inductor's pad_mm pass decides by its own rules first: can_pad, force_shape_pad, the
bf16 large-K rule on the device's capability, compute-bound or not, and, where the
file's config asks for it, AutoHeuristic's learned heuristic. All of those run here as
Inductor wrote them, on the capture device's answers, and decide exactly. Where they leave
it open, a real run times the matmul padded and unpadded on GPU tensors it makes, and
pads where padding is over 1.1x faster. A capture cannot time. It asks what PyTorch itself
ships as a model of those timings: AutoHeuristic's learned pad_mm heuristic for the GPU
(trained on that GPU's timings; Inductor matches it by shared memory and capability),
which answers only where it is confident. Where none answers, the times are equal and the
matmul stays unpadded (the tie keeps the original, as Inductor's autotuner keeps its first
config). Either way the decision is a placeholder at the file's line, naming which.

The pass's tensors are made as meta tensors (the GPU's shapes, no data), and its caches
of earlier decisions and timings (a LocalCache, and the should_pad memoizer on disk) are
neither read (a capture is a cold run) nor written (the user's next real run would take
kx's guess).

Runs only inside the capture worker, when torch._inductor.fx_passes.pad_mm is imported.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

# What the placeholder names, and the two answers kx can take (capture.py words the
# diagnostic: "<what> decides which kernels Inductor generates; ... kx took <answer>").
TIMING = "Inductor's pad_mm timing of {op} {shape} padded against unpadded"
LEARNED = "the {choice} {op}, as PyTorch's learned pad_mm heuristic for this GPU predicts (AutoHeuristic)"
TIE = (
    "the unpadded {op} (PyTorch ships no confident learned answer for it on this GPU; on "
    "equal times Inductor keeps it unpadded: it pads only where padding is over 1.1x faster)"
)


def install(module: Any) -> None:
    """Patch the pad_mm pass module (see the module docstring)."""
    import torch

    from kx_core.compile.capturing.device.placeholders import LEDGER

    should_pad = getattr(module, "_should_pad", None)
    ask_heuristic = getattr(module, "run_autoheuristic", None)
    if should_pad is None or not hasattr(module, "get_do_bench"):
        return
    undecorated = inspect.unwrap(should_pad)  # past the memoizer that persists results
    for name in ("get_cached_should_pad", "get_cached_base_mm_benchmark_time"):
        if hasattr(module, name):
            setattr(module, name, lambda key: None)
    for name in ("set_cached_should_pad", "set_cached_base_mm_benchmark_time"):
        if hasattr(module, name):
            setattr(module, name, lambda key, value: None)
    config = torch._inductor.config
    timed: list[bool] = []
    learned: list[bool | None] = []

    def untimed(fn: Callable[[], Any], *args: Any, **kwargs: Any) -> float:
        timed.append(True)
        return 1.0

    def heuristic(*args: Any, **kwargs: Any) -> Any:
        answer = ask_heuristic(*args, **kwargs)
        learned.append(answer)
        return answer

    module.get_do_bench = lambda: untimed
    if ask_heuristic is not None:
        module.run_autoheuristic = heuristic

    def _should_pad(match: Any, mat1: Any, mat2: Any, op: Any, input: Any = None) -> bool:
        timed.clear()
        learned.clear()
        files_own = config.use_autoheuristic("pad_mm")
        with config.patch(_learned_pad_mm_on(config)), gpu_tensors_on_meta():
            padded = undecorated(match, mat1, mat2, op, input)
        guessed = timed or (learned and learned[-1] is not None and not files_own)
        if guessed:
            name = getattr(op, "__name__", str(op)).split(".")[-1]
            shape = "x".join(str(d) for d in (*mat1.shape, mat2.shape[-1]))
            if timed:
                answer = TIE.format(op=name)
            else:
                answer = LEARNED.format(choice="padded" if padded else "unpadded", op=name)
            LEDGER.use(TIMING.format(op=name, shape=shape), answer)
        return padded

    module._should_pad = _should_pad


def _learned_pad_mm_on(config: Any) -> dict[str, Any]:
    """The config patch that turns on pad_mm's learned heuristic, in this PyTorch's form:
    a flag of the `autoheuristic_use` class (torch 2.14) or a name in its comma-separated
    string (torch 2.11: "mixed_mm", patched to "mixed_mm,pad_mm"). The flag's key is not a
    config of torch 2.11: patching it raised inside Inductor, and every torch.compile that
    reached pad_mm ran eagerly on the H100's torch (issue 50, corpus 5)."""
    use = config.autoheuristic_use
    if isinstance(use, str):
        return {"autoheuristic_use": ",".join([*use.split(","), "pad_mm"])}
    return {"autoheuristic_use.pad_mm": True}


def gpu_tensors_on_meta() -> Any:
    """A torch function mode under which a tensor made for the GPU (`device=` cuda, as
    the pass makes real tensors on its fakes' device) is a meta tensor: its shape,
    strides and dtype, no data. (The capture's own mode lets calls pass while Inductor
    compiles: torch.compiler.is_compiling() is true there.)"""
    import torch
    from torch.overrides import TorchFunctionMode

    meta = torch.device("meta")

    def on_meta(value: Any) -> Any:
        if isinstance(value, (str, torch.device)) and torch.device(value).type == "cuda":
            return meta
        return value

    class GpuTensorsOnMeta(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = {k: on_meta(v) if k == "device" else v for k, v in (kwargs or {}).items()}
            return func(*args, **kwargs)

    return GpuTensorsOnMeta()
