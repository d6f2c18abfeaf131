"""Inductor's max-autotune choices under capture: which of a matmul's (or convolution's)
candidate kernels Inductor generates code for, and which nodes it fuses by timing them.

With `mode="max-autotune"` (or `max_autotune=True`) Inductor's select_algorithm makes a
list of choices for each tunable op (ATen's extern kernel first, then its Triton
templates with their configs), compiles every Triton template (what a real run compiles
too, so the capture compiles them as Inductor does), times each on GPU tensors it makes
(`AlgorithmSelectorCache.make_benchmark_fn`: `rand_strided(..., device="cuda")`) and
keeps the fastest. A capture cannot time: it stopped there ("Found no NVIDIA driver"),
dynamo ran the frame eagerly and no Inductor kernel was shown. Here every choice gets the
same time; on equal times Inductor keeps its first choice (`min` over the timings in the
choices' order). The pick is a placeholder at the file's line naming the op, its shapes
and the choice kx took: the kernels after it may differ from a real run's (exit 5).

`max-autotune` also turns on benchmark_fusion: the scheduler compiles a fused candidate
(`TritonScheduling.benchmark_codegened_module`: its first call compiles every config of
it, as a real run's does) and times it against the nodes apart. Here the candidate is
compiled (`triton_.precompile()`, the same compiles) and timed like every other module,
so a fused kernel (1) is faster than two apart (1 + 1): Inductor fuses, as it does
without benchmark_fusion. A placeholder too.

Inductor keeps its timings in a local autotune cache under its cache folder
(`PersistentCache`); a capture neither reads it (a capture is a cold run) nor writes it
(the user's next real run would take kx's equal times for measured ones).

Runs only inside the capture worker, when torch._inductor.select_algorithm is imported.
"""

from __future__ import annotations

import importlib
from typing import Any

# Placeholder wording (capture.py adds "...; kx took <answer> and went on").
TIMING = "Inductor's max-autotune timing of {n} choices for {op} {shapes}"
TIE = "equal times for all (Inductor's first on equal times is {choice}, unless a fused template is then timed faster)"
FUSION = "Inductor's benchmark_fusion timing of a fused kernel ({nodes}) against its parts"
FUSED = "equal times for every module (so fused, as Inductor fuses without benchmark_fusion)"


def install(module: Any) -> None:
    """Patch select_algorithm's benchmark maker (see the module docstring)."""
    cache = getattr(module, "AlgorithmSelectorCache", None)
    if cache is None or not hasattr(cache, "make_benchmark_fn"):
        return

    def make_benchmark_fn(
        cls: Any, choices: Any, input_nodes: Any, layout: Any, *args: Any, **kwargs: Any
    ) -> Any:
        def untimed(choices: Any) -> dict:
            from kx_core.compile.capturing.device.placeholders import LEDGER

            choices = list(choices)
            if choices:
                name = getattr(choices[0], "name", "") or type(choices[0]).__name__
                LEDGER.use(
                    TIMING.format(n=len(choices), op=_op_name(name), shapes=_shapes(input_nodes)),
                    TIE.format(choice=name),
                )
            return dict.fromkeys(choices, 1.0)

        return untimed

    cache.make_benchmark_fn = classmethod(make_benchmark_fn)
    codecache = importlib.import_module("torch._inductor.codecache")
    persistent = getattr(codecache, "PersistentCache", None)
    if persistent is not None and hasattr(persistent, "lookup"):

        def cold_lookup(
            self: Any, choices: Any, op: Any, inputs: Any, benchmark: Any, *args: Any, **kw: Any
        ) -> Any:
            # what a cold cache answers: the timings when it may time, else none
            return benchmark(choices) if benchmark is not None else {}

        persistent.lookup = cold_lookup


def _op_name(choice_name: str) -> str:
    """'mm' of ATen's choice 'extern_mm' (a template's name is the op's too: 'triton_mm_3')."""
    for prefix in ("extern_", "triton_"):
        if choice_name.startswith(prefix):
            return choice_name[len(prefix) :].rstrip("_0123456789") or choice_name
    return choice_name


def _shapes(input_nodes: Any) -> str:
    """'(128x256, 256x512)': the inputs' sizes as Inductor holds them."""
    sizes = []
    for node in input_nodes or ():
        try:
            sizes.append("x".join(str(s) for s in node.get_size()))
        except Exception:  # noqa: BLE001 - a node without sizes: named by nothing
            sizes.append("?")
    return f"({', '.join(sizes)})"


def install_fusion_timing(module: Any) -> None:
    """Patch the Triton scheduling's module benchmark (see the module docstring)."""
    scheduling = getattr(module, "TritonScheduling", None)
    if scheduling is None or not hasattr(scheduling, "benchmark_codegened_module"):
        return

    def benchmark_codegened_module(
        self: Any, mod: Any, *args: Any, node_names: Any = None, **kwargs: Any
    ) -> Any:
        from kx_core.compile.capturing.device.placeholders import LEDGER

        mod.triton_.precompile()  # (a real run's first call compiles it: the same compiles)
        names = ", ".join(sorted(node_names)) if node_names else "a template and its epilogue"
        LEDGER.use(FUSION.format(nodes=names), FUSED)
        return 1.0, mod.__file__

    scheduling.benchmark_codegened_module = benchmark_codegened_module
