"""Helion files under kx's capture. Helion generates a Triton kernel per call and launches
it through Triton, so the capture sees it as any launch (kernel_record reads the generated
module: compile/artifacts/helion_generated.py). What differs is the config: a Helion kernel
without `config=` autotunes on a real run, by timing configs kx cannot time. kx has Helion
compile its default config instead (HELION_AUTOTUNE_EFFORT=none, unless the user set it)
and says, per kernel, that a real run may launch another.

For such a kernel kx also compiles part of Helion's own config space with the first
call's arguments, so the Autotune pane ranks them with kx's model as it ranks a
`triton.autotune` kernel's configs: Helion's default config and then configs drawn by
Helion's own generator (ConfigGeneration.random_population, seeded so every run draws
the same), KX_HELION_CONFIGS of them in all (4 unless set; 0 compiles none). Each is
a record of the generated Triton kernel with the Helion config as its config."""

from __future__ import annotations

import os
from typing import Any

from kx_core.compile.capturing.languages import Captured
from kx_core.records.results import Diagnostic, Target

_EFFORT = "HELION_AUTOTUNE_EFFORT"
_CONFIGS = "KX_HELION_CONFIGS"
_SEED = 0
# the Helion config settings a config's name shows (num_warps and num_stages as w/s)
_NAMED = ("block_sizes", "reduction_loops", "pid_type", "num_sm_multiplier", "maxnreg")
_FIRST_CALLS: dict[int, tuple[Any, tuple, dict]] = {}  # id(kernel) -> (kernel, args, kwargs)


def prepare(text: str, target: Target) -> bool | None:
    """Before a Helion file runs (the language table's `marks`): Helion's traces on the
    GPU (see `_on_the_gpu`) and its default config rather than an autotune kx cannot time.
    True when kx chose that config (the user did not); None when the user did (nothing to
    say after the run)."""
    _on_the_gpu()
    if _EFFORT in os.environ:
        return None
    os.environ[_EFFORT] = "none"
    if _explored() > 0:
        _remember_first_calls()
    return True


def finish(default_config: bool, namespace: dict, path: str, target: Target) -> Captured:
    """After a run in which kx chose Helion's default config: each kernel whose config a
    real run would choose by autotuning said so, and part of its config space compiled
    (`explore_configs`: their records go out as its launches compile)."""
    if not namespace:
        return Captured()
    return Captured(diagnostics=guessed_configs(namespace, path) + explore_configs(namespace, path))


def _on_the_gpu() -> None:
    """Helion compiles a kernel for the device it finds among the arguments, with fakes of
    them made on their device. A capture tensor is a meta tensor standing for a GPU tensor:
    the device Helion compiles for is cuda:0, its fakes are on cuda:0 and its compile runs
    without the capture's torch function mode (which makes GPU factory calls meta), so every
    tensor it traces is on the GPU, as a real run's are. Left on meta, a reduction's lowering
    asks the meta device's backend what it can do (torch 2.11 asserts) and `hl.full` or
    `x.new_zeros` in a kernel meet tensors of the other device."""
    from kx_core.compile.capturing.import_hooks import after_import

    after_import("helion._compiler.compile_environment", _gpu_fakes)
    after_import("helion.runtime.kernel", _gpu_compiles)


def _gpu_fakes(module: Any) -> None:
    from kx_core.compile.capturing.device import gpu_fakes

    env = getattr(module, "CompileEnvironment", None)
    real = getattr(env, "_to_fake_tensor", None)
    if real is None or getattr(real, "_kx_gpu", False):
        return

    def _to_fake_tensor(self, tensor, source):
        if not getattr(tensor, "is_meta", False):
            return real(self, tensor, source)
        with gpu_fakes.gpu_fakes_of_capture_tensors():  # however Helion makes it
            return real(self, tensor, source)

    _to_fake_tensor._kx_gpu = True
    env._to_fake_tensor = _to_fake_tensor


def _gpu_compiles(module: Any) -> None:
    import torch

    from kx_core.compile.capturing.device.gpu_fakes import without_torch_function_modes

    find, bound = getattr(module, "_find_device", None), getattr(module, "BoundKernel", None)
    if find is None or bound is None or getattr(find, "_kx_gpu", False):
        return

    def _find_device(args):
        device = find(args)
        return torch.device("cuda", 0) if device.type == "meta" else device

    init = bound.__init__

    def __init__(self, *args, **kwargs):  # where Helion traces and compiles the kernel
        with without_torch_function_modes():
            init(self, *args, **kwargs)

    _find_device._kx_gpu = True
    module._find_device = _find_device
    bound.__init__ = __init__


def _explored() -> int:
    try:
        return max(0, int(os.environ.get(_CONFIGS, "4")))
    except ValueError:
        return 4


def _remember_first_calls() -> None:
    """Each Helion kernel's first call's arguments (kx's stand-in tensors: no data), for
    compiling its config space after the run."""
    try:
        from helion.runtime.kernel import Kernel
    except ImportError:  # the file's own import says what is missing
        return
    original = Kernel.__call__
    if getattr(original, "_kx_first_call", False):
        return

    def __call__(self, *args, **kwargs):
        _FIRST_CALLS.setdefault(id(self), (self, args, kwargs))
        return original(self, *args, **kwargs)

    __call__._kx_first_call = True
    Kernel.__call__ = __call__


def explore_configs(namespace: dict, path: str) -> list[Diagnostic]:
    """Compile part of each autotuned Helion kernel's config space (see the module), with
    the config set on the capture so its launch records carry it; a config Helion or
    Triton refuses is a `config` diagnostic, the rest go on."""
    import random

    from kx_core.compile.capturing import capture_state
    from kx_core.records.results import AutotuneConfig

    n = _explored()
    out = []
    for k in _helion_kernels(namespace):
        if len(getattr(k, "configs", ())) == 1 or id(k) not in _FIRST_CALLS or not n:
            continue
        _, args, kwargs = _FIRST_CALLS[id(k)]
        try:
            from helion.autotuner.config_generation import ConfigGeneration

            bound = k.bind(args)
            spec = bound.config_spec
            random.seed(_SEED)  # Helion's generator draws from `random`
            drawn = [spec.default_config(), *ConfigGeneration(spec).random_population(max(0, n - 1))]
        except Exception as e:  # noqa: BLE001 - Helion's own refusal, said and the run's result kept
            out.append(
                Diagnostic("config", f"{k.name}: Helion's config space: {type(e).__name__}: {e}"[:400], path)
            )
            continue
        seen, configs = set(), []
        for c in drawn:  # the generator may draw a config twice
            if repr(c) not in seen:
                seen.add(repr(c))
                configs.append(c)
        state = capture_state.STATE
        values = [dict(c.config) if hasattr(c, "config") else dict(c) for c in configs]
        # a config's name: of the settings that size the work (Helion's Config has a
        # dozen more: indexing, eviction policies, ...; the generated module, its stage,
        # shows them all), those on which the drawn configs differ
        varying = [
            key for key in _NAMED if key in values[0] and any(v.get(key) != values[0][key] for v in values)
        ] or ["block_sizes"]
        for i, c in enumerate(configs):
            state.config = AutotuneConfig(
                index=i,
                kwargs={key: values[i][key] for key in varying if key in values[i]},
                num_warps=int(getattr(c, "num_warps", 4) or 4),
                num_stages=int(getattr(c, "num_stages", 1) or 1),
            )
            try:
                bound.compile_config(c, allow_print=False)(*args, **kwargs)
            except Exception as e:  # noqa: BLE001 - one config refused, the others still compile
                out.append(
                    Diagnostic(
                        "config",
                        f"{k.name} config {state.config.label}: {type(e).__name__}: {str(e)[:200]}",
                        path,
                        _def_line(getattr(k, "fn", None)),
                        kernel=k.name,
                    )
                )
            finally:
                state.config = None
    return out


def _helion_kernels(namespace: dict) -> list[Any]:
    return [
        v
        for v in namespace.values()
        if type(v).__name__ == "Kernel" and type(v).__module__.startswith("helion.")
    ]


def _def_line(fn: Any) -> int | None:
    """The line of the `def` (its code object starts at the decorator)."""
    import inspect

    try:
        lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    return start + next((i for i, t in enumerate(lines) if t.lstrip().startswith("def ")), 0)


def guessed_configs(namespace: dict, path: str) -> list[Diagnostic]:
    """A `not-captured` diagnostic for each Helion kernel the file called whose config a
    real run would choose by autotuning (none given, or several)."""
    out = []
    for k in _helion_kernels(namespace):
        if len(getattr(k, "configs", ())) == 1 or not getattr(k, "_bound_kernels", None):
            continue
        line = _def_line(getattr(k, "fn", None))
        given = len(k.configs)
        out.append(
            Diagnostic(
                "not-captured",
                f"{k.name}: a real run autotunes it ({'no config given' if not given else f'{given} configs'}); "
                f"kx compiled Helion's default config ({_EFFORT}=none), which a real run may not launch: "
                "give @helion.kernel(config=...) to see the one you run",
                path,
                line,
                kernel=k.name,
            )
        )
    return out
